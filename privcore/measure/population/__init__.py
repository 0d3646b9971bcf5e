"""Population risk estimated from a sample (SPEC §11).

A data set is usually a sample of a larger population: a record unique in the sample
(a class of size f_k = 1) need not be unique among the N people of the population, and
what a re-identification needs is a *population* unique (F_k = 1). Two families of
estimates, both functions of the sample's equivalence classes on the QIs alone:

**Population uniqueness** (:func:`population_uniqueness`). The class sizes enter only
through their *frequencies of frequencies* c_i = number of classes of size i
(:class:`FrequencyOfFrequencies`); with n records in u classes, c_1 sample uniques,
a population of N and the sampling fraction π = n/N, three models estimate U, the number
of population uniques:

- Zayatz (1991): the sample's class-size distribution stands for the population's;
  P(F = 1 | f = 1) = c_1·h(1) / Σ_i c_i·h(i), with h(i) = P(exactly one of a class of i
  people is drawn) = i·C(N−i, n−1)/C(N, n) (hypergeometric; h(1) = π), and
  U = c_1·P(F = 1 | f = 1)/π = c_1² / Σ_i c_i·h(i) (:func:`zayatz_uniques`);
- Pitman (Hoshino 2001): the sample is a draw from Pitman's two-parameter sampling
  formula; (θ, α) are its maximum-likelihood estimates and U = Γ(θ+1)/Γ(θ+α)·N^α
  (:func:`pitman_uniques`);
- SNB, the slide negative binomial (Chen & McNulty 1998): each of K non-empty population
  classes has size F = 1 + X, X ~ NegBin(α, β), and each person is sampled with
  probability π; K is estimated from the sample (Haas et al. 1995) and (α, β) by
  matching the expected numbers of classes of size 1 and 2 to c_1, c_2; U = K·β^α
  (:func:`snb_uniques`).

Dankar, El Emam, Neisa & Roffey (2012) choose among them (:func:`dankar_choice`): for
π ≤ 0.1 Pitman, or Zayatz when Pitman does not converge; for π > 0.1 the smaller of
Zayatz and SNB, or Zayatz when SNB does not converge — ARX's
``RiskModelPopulationUniqueness`` with ``PopulationUniquenessModel.DANKAR``.
The reported *share* is U/N, the estimated share of the population's people who are
unique in it on the QIs (ARX's "population uniqueness"); at π = 1 it is c_1/n, the
sample uniqueness.

**Individual risk** (:func:`individual_risk`; Benedetti & Franconi 1998, sdcMicro's
``measure_risk``/``indivRisk``). Each record k of a class with f_k sample records and an
estimated F̂_k = Σ (sampling weights) population records gets the posterior expectation
r_k = E[1/F_k | f_k] under the negative-binomial model F_k − f_k ~ NegBin(f_k, p_k) with
p_k = f_k/F̂_k; the file's expected number of re-identifications is Σ_k r_k.

Where this module departs from ARX's source, it follows the published formulas (each
checked by a test against a brute-force sum): ARX's SNB multiplies the expected number
of doubletons by (1−d)^(α+2) where the model divides by it, and its Haas–Shlosser
estimate of K subtracts 1 per distinct class size in one denominator instead of
(1−π)^i·c_i.

Suppressed rows (class id -1) carry no QI value: they are in the sample (they count in
n when N is derived from π) but in no class, and their individual risk is 0 (as in
:mod:`privcore.risk`); ARX leaves them out of its class-size histogram in the same way.
Frequency sets (``weights``: records per row) give the figures of the expanded table.

The package's modules: :mod:`~privcore.measure.population.sample` (the sample's class
sizes and its population), :mod:`~privcore.measure.population.models` (Zayatz, Pitman,
SNB, Dankar), :mod:`~privcore.measure.population.uniqueness` and
:mod:`~privcore.measure.population.individual`.
"""

from privcore.measure.population.individual import (
    IndividualRisk,
    individual_risk,
    individual_risk_of_classes,
    record_posterior_risk,
)
from privcore.measure.population.models import (
    DANKAR_THRESHOLD,
    PitmanFit,
    SnbFit,
    dankar_choice,
    haas_shlosser_classes,
    pitman_uniques,
    snb_expected_small_classes,
    snb_uniques,
    zayatz_uniques,
)
from privcore.measure.population.sample import FrequencyOfFrequencies, population_size
from privcore.measure.population.uniqueness import (
    PopulationUniqueness,
    population_uniqueness,
    uniqueness_of_frequencies,
)

__all__ = [
    "DANKAR_THRESHOLD",
    "FrequencyOfFrequencies",
    "IndividualRisk",
    "PitmanFit",
    "PopulationUniqueness",
    "SnbFit",
    "dankar_choice",
    "haas_shlosser_classes",
    "individual_risk",
    "individual_risk_of_classes",
    "pitman_uniques",
    "population_size",
    "population_uniqueness",
    "record_posterior_risk",
    "snb_expected_small_classes",
    "snb_uniques",
    "uniqueness_of_frequencies",
    "zayatz_uniques",
]
