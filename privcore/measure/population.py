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
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import special

from privcore.classes import EquivalenceClasses, group_sums, release_classes
from privcore.core.jsonsafe import plain
from privcore.errors import ParameterError

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

DANKAR_THRESHOLD = 0.1  # Dankar et al. 2012: Pitman up to this sampling fraction
MODELS = ("zayatz", "pitman", "snb")
METHODS = ("approx", "exact")
_TOLERANCE = 1e-9  # relative size of the score / residual accepted as a root
_MAX_STEPS = 200


# --------------------------------------------------------------------------- inputs


@dataclass(frozen=True, eq=False)
class FrequencyOfFrequencies:
    """The class sizes of a sample as frequencies of frequencies: ``counts[j]`` classes
    have ``sizes[j]`` records (sizes distinct, ascending, each count ≥ 1)."""

    sizes: np.ndarray
    counts: np.ndarray

    @classmethod
    def of_class_sizes(cls, class_sizes: Any) -> FrequencyOfFrequencies:
        """From one size per class (sizes ≥ 1; a frequency set's weighted sizes)."""
        sizes = np.asarray(class_sizes, dtype=np.int64)
        sizes = sizes[sizes > 0]
        distinct, counts = np.unique(sizes, return_counts=True)  # not rows: one per class
        return cls(distinct.astype(np.int64), counts.astype(np.int64))

    @classmethod
    def from_mapping(cls, frequencies: Mapping[int, int]) -> FrequencyOfFrequencies:
        """From {class size i: number of classes c_i}, e.g. ``{1: 3, 2: 1, 3: 1}``."""
        items = sorted((int(i), int(c)) for i, c in frequencies.items() if int(c) > 0)
        if any(i < 1 for i, _ in items):
            raise ParameterError(
                "Class sizes must be whole numbers of at least 1.",
                code="population.bad_class_sizes",
            )
        sizes = np.array([i for i, _ in items], dtype=np.int64)
        counts = np.array([c for _, c in items], dtype=np.int64)
        return cls(sizes, counts)

    @property
    def records(self) -> int:
        """n = Σ_i i·c_i."""
        return int((self.sizes * self.counts).sum())

    @property
    def classes(self) -> int:
        """u = Σ_i c_i."""
        return int(self.counts.sum())

    def of_size(self, size: int) -> int:
        """c_size: the number of classes of exactly ``size`` records."""
        hit = self.sizes == size
        return int(self.counts[hit].sum())


def population_size(records: int, *, sampling_fraction: Any = None, population: Any = None) -> int:
    """N, the population the ``records`` of a sample were drawn from.

    Give exactly one of ``sampling_fraction`` π (0 < π ≤ 1; N = round(records/π), as
    ARX's ``ARXPopulationModel.create(rows, π)``) and ``population``: a number of people,
    a table of them (its rows) or a register with a ``size`` (the attack simulator's
    voter roll, which holds every record of the data set and the other people).
    N must be at least ``records``.
    """
    if sampling_fraction is None and population is None:
        raise ParameterError(
            "Population risk needs the sampling fraction or the population size.",
            code="population.no_sampling_fraction",
        )
    if sampling_fraction is not None and population is not None:
        raise ParameterError(
            "Give either the sampling fraction or the population, not both.",
            code="population.fraction_and_population",
        )
    if sampling_fraction is not None:
        fraction = _real(sampling_fraction)
        if not (0.0 < fraction <= 1.0):
            raise ParameterError(
                f"The sampling fraction must lie in (0, 1], got {sampling_fraction!r}.",
                code="population.bad_sampling_fraction",
                value=str(sampling_fraction),
            )
        return max(math.floor(records / fraction + 0.5), int(records))  # Java's Math.round
    size = _people(population)
    if size < records:
        raise ParameterError(
            f"The population ({size} people) is smaller than the sample ({records} "
            "records): the sampling fraction would exceed 1.",
            code="population.bad_sampling_fraction",
            population=size,
            records=int(records),
        )
    return size


def _real(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, str)):
        return math.nan
    try:
        return float(value)
    except ValueError:
        return math.nan


def _people(population: Any) -> int:
    """The number of people of ``population`` (a count, a table, or a register)."""
    if isinstance(population, pd.DataFrame):
        return len(population)
    if isinstance(population, bool):
        size = math.nan
    elif isinstance(population, numbers.Real):
        size = float(population)
    else:
        size = _real(getattr(population, "size", None))
    if not math.isfinite(size) or size < 1 or size != round(size):
        raise ParameterError(
            f"The population size must be a whole number of people, at least 1, got "
            f"{population!r}.",
            code="population.bad_population",
            value=str(population)[:80],
        )
    return int(size)


# --------------------------------------------------------------------------- Zayatz


def _log_choose(a: np.ndarray | float, b: np.ndarray | float) -> np.ndarray:
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    return special.gammaln(a + 1) - special.gammaln(b + 1) - special.gammaln(a - b + 1)


def _one_drawn(size: np.ndarray, population: int, records: int) -> np.ndarray:
    """h(i) = i·C(N−i, n−1)/C(N, n): the probability that exactly one person of a
    population class of i people is among n drawn without replacement from N."""
    size = np.asarray(size, dtype=np.float64)
    possible = population - size >= records - 1
    out = np.zeros(size.shape)
    i = size[possible]
    log_h = np.log(i) + _log_choose(population - i, records - 1) - _log_choose(population, records)
    out[possible] = np.exp(log_h)
    return out


def zayatz_uniques(frequencies: FrequencyOfFrequencies, population: int) -> float:
    """Zayatz (1991) estimate of the number of population uniques, as ARX's
    ``ModelZayatz``: U = c_1·P(F=1 | f=1)/π with
    P(F=1 | f=1) = c_1·h(1) / Σ_i c_i·h(i), h(i) = i·C(N−i, n−1)/C(N, n), π = n/N;
    since h(1) = π, U = c_1² / Σ_i c_i·h(i). At π = 1, h(i) = [i = 1] and U = c_1."""
    uniques = frequencies.of_size(1)
    if uniques == 0:
        return 0.0
    n = frequencies.records
    weights = _one_drawn(frequencies.sizes, population, n)
    weights[frequencies.sizes == 1] = n / population  # h(1) = π exactly
    # at most c_1/π (every sample unique a population unique), also in floating point
    return float(min(uniques**2 / (frequencies.counts * weights).sum(), uniques * population / n))


# --------------------------------------------------------------------------- Pitman


@dataclass(frozen=True)
class PitmanFit:
    """Pitman's sampling formula fitted to a sample: θ, α (maximum likelihood) and
    U = Γ(θ+1)/Γ(θ+α)·N^α population uniques (None when U is not in (0, N])."""

    theta: float
    alpha: float
    uniques: float | None


class _PitmanLikelihood:
    """Score and Hessian of the log-likelihood of Pitman's sampling formula (Pitman
    1995; Hoshino 2001) for a sample of n records in u classes, c_j of size j:

    L(θ, α) = Σ_{i=1}^{u−1} log(θ + iα) − Σ_{i=1}^{n−1} log(θ + i)
              + Σ_j c_j Σ_{i=1}^{j−1} log(i − α).

    Score: ∂L/∂θ = Σ_i 1/(θ+iα) − [ψ(θ+n) − ψ(θ+1)],
    ∂L/∂α = Σ_i i/(θ+iα) − Σ_j c_j [ψ(j−α) − ψ(1−α)]  (i = 1..u−1; ψ digamma);
    second derivatives with ψ₁ (trigamma) likewise. With r = θ/α, the sums over
    i = 1..u−1 have closed forms: Σ 1/(θ+iα) = [ψ(r+u) − ψ(r+1)]/α,
    Σ 1/(θ+iα)² = [ψ₁(r+1) − ψ₁(r+u)]/α², and Σ i/(θ+iα), Σ i/(θ+iα)², Σ i²/(θ+iα)²
    from these two; they are used when α > 0 and r ≤ u, where the subtractions they
    involve lose about one digit at worst (at r = u). Otherwise (α ≤ 0, or r > u) the
    sums are taken term by term.
    """

    def __init__(self, frequencies: FrequencyOfFrequencies) -> None:
        self.n = float(frequencies.records)
        self.u = float(frequencies.classes)
        self.sizes = frequencies.sizes.astype(np.float64)
        self.counts = frequencies.counts.astype(np.float64)

    def inside(self, theta: float, alpha: float) -> bool:
        """Every log of L is defined: θ ≥ 0 (ARX's constraint), θ + iα > 0, α < 1."""
        if not (math.isfinite(theta) and math.isfinite(alpha)) or theta < 0 or alpha >= 1:
            return False
        last = max(self.u - 1, 0.0)
        return theta + alpha > 0 and theta + last * alpha > 0

    def class_sums(self, theta: float, alpha: float) -> tuple[float, float, float, float, float]:
        """(Σ 1/v, Σ i/v, Σ 1/v², Σ i/v², Σ i²/v²) over i = 1..u−1, v = θ + iα."""
        u = self.u
        if alpha > 0 and theta <= alpha * u:
            r = theta / alpha
            s1 = (special.digamma(r + u) - special.digamma(r + 1)) / alpha
            t1 = (special.polygamma(1, r + 1) - special.polygamma(1, r + u)) / alpha**2
            s3 = ((u - 1) - theta * s1) / alpha  # Σ (v − θ)/(α v)
            t3 = (s1 - theta * t1) / alpha  # Σ (v − θ)/(α v²)
            t5 = ((u - 1) - 2 * theta * s1 + theta**2 * t1) / alpha**2  # Σ (v − θ)²/(α v)²
            return float(s1), float(s3), float(t1), float(t3), float(t5)
        i = np.arange(1, u, dtype=np.float64)
        v = theta + i * alpha
        inverse = 1.0 / v
        squared = inverse * inverse
        return (
            float(inverse.sum()),
            float((i * inverse).sum()),
            float(squared.sum()),
            float((i * squared).sum()),
            float((i * i * squared).sum()),
        )

    def score(self, theta: float, alpha: float) -> tuple[np.ndarray, np.ndarray, float]:
        """(score, Hessian, scale): scale is the size of the terms that cancel in the
        score, against which a root is judged."""
        s1, s3, t1, t3, t5 = self.class_sums(theta, alpha)
        s2 = special.digamma(theta + self.n) - special.digamma(theta + 1)
        t2 = special.polygamma(1, theta + 1) - special.polygamma(1, theta + self.n)
        c = self.counts
        s4 = (c * (special.digamma(self.sizes - alpha) - special.digamma(1 - alpha))).sum()
        t4 = (
            c * (special.polygamma(1, 1 - alpha) - special.polygamma(1, self.sizes - alpha))
        ).sum()
        score = np.array([s1 - s2, s3 - s4])
        hessian = np.array([[t2 - t1, -t3], [-t3, -t5 - t4]])
        return score, hessian, max(1.0, abs(s1) + abs(s2), abs(s3) + abs(s4))


def _pitman_start(frequencies: FrequencyOfFrequencies) -> tuple[float, float]:
    """ARX's starting point (``ModelPitman``; c_2 = 0 taken as 1)."""
    c1 = float(frequencies.of_size(1))
    c2 = float(frequencies.of_size(2)) or 1.0
    u, n = float(frequencies.classes), float(frequencies.records)
    c = c1 * (c1 - 1) / c2
    denominator = 2 * c1 * u + c1 * c - n * c
    theta = (n * u * c - c1 * (n - 1) * (2 * u + c)) / denominator if denominator else math.nan
    alpha = (theta * (c1 - n) + (n - 1) * c1) / (n * u)
    return theta, alpha


def _newton(
    evaluate: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray, float] | None],
    start: np.ndarray,
) -> np.ndarray | None:
    """A root of ``evaluate``'s first value by Newton–Raphson from ``start``, halving a
    step that leaves the domain (``evaluate`` returns None there) or does not reduce the
    residual; None when no root with |residual| ≤ 1e-9·scale is reached in 200 steps."""
    x = np.asarray(start, dtype=np.float64)
    current = evaluate(x)
    if current is None:
        return None
    for _ in range(_MAX_STEPS):
        residual, jacobian, scale = current
        if np.abs(residual).max() <= _TOLERANCE * scale:
            return x
        try:
            step = np.linalg.solve(jacobian, residual)
        except np.linalg.LinAlgError:
            return None
        if not np.all(np.isfinite(step)):
            return None
        norm = np.abs(residual).max()
        for _ in range(60):
            candidate = x - step
            found = evaluate(candidate)
            if found is not None and np.abs(found[0]).max() < norm:
                break
            step = step / 2
        else:
            return None
        x, current = candidate, found
        if np.abs(step).max() <= 1e-15 * (1 + np.abs(x).max()):
            break
    residual, _, scale = current
    return x if np.abs(residual).max() <= _TOLERANCE * scale else None


def pitman_uniques(frequencies: FrequencyOfFrequencies, population: int) -> PitmanFit | None:
    """Hoshino's (2001) Pitman-model estimate of the number of population uniques, as
    ARX's ``ModelPitman``: (θ, α) maximize the likelihood of Pitman's sampling formula
    (:class:`_PitmanLikelihood`; Newton–Raphson from ARX's starting point, then from
    ARX's grid of starting points {0, 0.33, 0.66, 0.99}², with θ ≥ 0), and
    U = Γ(θ+1)/Γ(θ+α)·N^α. None when no start converges; ``uniques`` is None when the
    fit gives α = 0 or a U outside (0, N]."""
    if frequencies.of_size(1) == 0:
        return PitmanFit(math.nan, math.nan, 0.0)
    likelihood = _PitmanLikelihood(frequencies)

    def evaluate(x: np.ndarray):
        theta, alpha = float(x[0]), float(x[1])
        if not likelihood.inside(theta, alpha):
            return None
        found = likelihood.score(theta, alpha)
        return found if np.all(np.isfinite(found[0])) and np.all(np.isfinite(found[1])) else None

    starts = [_pitman_start(frequencies)]
    grid = (0.0, 0.33, 0.66, 0.99)
    starts += [(t, a) for t in grid for a in grid]
    for start in starts:
        root = _newton(evaluate, np.array(start))
        if root is not None:
            theta, alpha = float(root[0]), float(root[1])
            return PitmanFit(theta, alpha, _pitman_count(theta, alpha, population))
    return None


def _pitman_count(theta: float, alpha: float, population: int) -> float | None:
    if alpha == 0 or theta + alpha <= 0:
        return None
    log_u = (
        special.gammaln(theta + 1) - special.gammaln(theta + alpha) + alpha * math.log(population)
    )
    uniques = math.exp(log_u) if log_u < 700 else math.inf
    return uniques if 0 < uniques <= population else None


# --------------------------------------------------------------------------- SNB


@dataclass(frozen=True)
class SnbFit:
    """The slide negative binomial fitted to a sample: K non-empty population classes
    (Haas–Shlosser), NegBin shape α and probability β, and U = K·β^α population uniques
    (None when U is not in (0, N])."""

    classes: float
    alpha: float
    beta: float
    uniques: float | None


def haas_shlosser_classes(frequencies: FrequencyOfFrequencies, fraction: float) -> float:
    """K̂, the number of non-empty population classes (Haas, Naughton, Seshadri & Stokes
    1995, Shlosser-type estimator, as used by ARX's ``ModelSNB``), with q = π:

    K̂ = u + c_1 · [Σ_i i q² (1−q²)^(i−1) c_i / Σ_i ((1−q²)^i − (1−q)^i) c_i]
              · [Σ_i (1−q)^i c_i / Σ_i i q (1−q)^(i−1) c_i]²

    ((1−q²)^i − (1−q)^i = (1−q)^i((1+q)^i − 1)). At q = 1 every class is seen: K̂ = u."""
    u = float(frequencies.classes)
    if fraction >= 1.0:
        return u
    i = frequencies.sizes.astype(np.float64)
    c = frequencies.counts.astype(np.float64)
    q = float(fraction)
    kept = (1 - q) ** i
    first = (i * q**2 * (1 - q**2) ** (i - 1) * c).sum() / (((1 - q**2) ** i - kept) * c).sum()
    second = (kept * c).sum() / (i * q * (1 - q) ** (i - 1) * c).sum()
    return float(u + frequencies.of_size(1) * first * second**2)


def snb_expected_small_classes(
    classes: float, alpha: float, beta: float, fraction: float
) -> tuple[float, float]:
    """(E[c_1], E[c_2]) under the SNB model (Chen & McNulty 1998): K population classes
    of size F = 1 + X, X ~ NegBin(α, β) (P(X = x) = Γ(α+x)/(Γ(α) x!)·β^α(1−β)^x), each
    person sampled with probability π. With d = (1−π)(1−β), from the generating function
    of X:

    E[c_1] = K π (β/(1−d))^α (1 + α d/(1−d)),
    E[c_2] = K π² α β^α (1−β) (2 − (1−α) d) / (2 (1−d)^(α+2)).
    """
    log1, log2 = _snb_log_moments(alpha, beta, fraction)
    return classes * math.exp(log1), classes * math.exp(log2)


def _snb_log_moments(alpha: float, beta: float, fraction: float) -> tuple[float, float]:
    """(log E[c_1]/K, log E[c_2]/K) of :func:`snb_expected_small_classes`."""
    s = 1 - fraction
    d = s * (1 - beta)
    rest = 1 - d  # = π + (1−π)β > 0
    log1 = (
        math.log(fraction)
        + alpha * math.log(beta)
        - (alpha + 1) * math.log(rest)
        + math.log(rest + alpha * d)
    )
    log2 = (
        2 * math.log(fraction)
        + math.log(alpha)
        + alpha * math.log(beta)
        + math.log1p(-beta)
        + math.log(2 - (1 - alpha) * d)
        - math.log(2)
        - (alpha + 2) * math.log(rest)
    )
    return log1, log2


def _snb_parameters(
    classes: float, fraction: float, uniques: float, doubletons: float
) -> tuple[float, float] | None:
    """(α, β) solving E[c_1] = c_1 and E[c_2] = c_2 for K = ``classes`` by Newton–Raphson
    on the logarithms of both sides, in the unbounded coordinates (log α, logit β), from
    a fixed grid of starting points; None when none converges."""
    if uniques <= 0 or doubletons <= 0 or classes <= 0:
        return None
    s = 1 - fraction
    targets = np.array([math.log(uniques / classes), math.log(doubletons / classes)])

    def evaluate(x: np.ndarray):
        log_a, logit_b = float(x[0]), float(x[1])
        if abs(log_a) > 50 or abs(logit_b) > 50:
            return None
        a = math.exp(log_a)
        b = special.expit(logit_b)
        if not (0 < b < 1):
            return None
        d = s * (1 - b)
        rest = 1 - d
        log1, log2 = _snb_log_moments(a, b, fraction)
        residual = np.array([log1, log2]) - targets
        # ∂/∂α and ∂/∂β of both logs (∂d/∂β = −s)
        d1a = math.log(b) - math.log(rest) + d / (rest + a * d)
        d1b = a / b - (a + 1) * s / rest + s * (1 - a) / (rest + a * d)
        d2a = 1 / a + math.log(b) + d / (2 - (1 - a) * d) - math.log(rest)
        d2b = a / b - 1 / (1 - b) + (1 - a) * s / (2 - (1 - a) * d) - (a + 2) * s / rest
        jacobian = np.array([[d1a * a, d1b * b * (1 - b)], [d2a * a, d2b * b * (1 - b)]])
        if not (np.all(np.isfinite(residual)) and np.all(np.isfinite(jacobian))):
            return None
        return residual, jacobian, 1.0

    for a0 in (1.0, 0.1, 0.5, 2.0, 5.0):
        for b0 in (0.5, 0.1, 0.3, 0.7, 0.9):
            root = _newton(evaluate, np.array([math.log(a0), math.log(b0 / (1 - b0))]))
            if root is not None:
                return math.exp(float(root[0])), float(special.expit(float(root[1])))
    return None


def snb_uniques(
    frequencies: FrequencyOfFrequencies, population: int, fraction: float
) -> SnbFit | None:
    """Chen & McNulty's (1998) SNB estimate of the number of population uniques, as ARX's
    ``ModelSNB`` (with the published moment equations): K̂ from
    :func:`haas_shlosser_classes`, (α, β) solving E[c_1] = c_1, E[c_2] = c_2
    (:func:`snb_expected_small_classes`), U = K̂·β^α. None when no (α, β) solves the
    equations (e.g. no class of size 2)."""
    uniques = frequencies.of_size(1)
    if uniques == 0:
        return SnbFit(float(frequencies.classes), math.nan, math.nan, 0.0)
    classes = haas_shlosser_classes(frequencies, fraction)
    found = _snb_parameters(classes, fraction, uniques, frequencies.of_size(2))
    if found is None or not math.isfinite(classes):
        return None
    alpha, beta = found
    count = classes * beta**alpha
    return SnbFit(classes, alpha, beta, count if 0 < count <= population else None)


# --------------------------------------------------------------------------- Dankar


def dankar_choice(
    fraction: float, zayatz: float, pitman: float | None, snb: float | None
) -> tuple[str, float]:
    """Dankar, El Emam, Neisa & Roffey's (2012) decision rule, as ARX applies it:
    (model, estimate) from the three models' estimates of the number of population
    uniques (None: the model did not converge; 0 counts as not converged, as in ARX).

    - π ≤ 0.1: Pitman, or Zayatz when Pitman did not converge;
    - π > 0.1: the smaller of Zayatz and SNB (SNB on a tie), or Zayatz when SNB did not
      converge.
    """
    if fraction <= DANKAR_THRESHOLD:
        if _valid(pitman):
            return "pitman", float(pitman)
        return "zayatz", zayatz
    if _valid(snb):
        return ("zayatz", zayatz) if zayatz < snb else ("snb", float(snb))
    return "zayatz", zayatz


def _valid(value: float | None) -> bool:
    return value is not None and math.isfinite(value) and value != 0


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class PopulationUniqueness:
    """Estimated population uniqueness of a sample (see the module docstring).

    - ``model``: the model Dankar et al.'s rule chose ("zayatz", "pitman", "snb"), or
      "none" when the sample has no uniques (every estimate is then 0);
    - ``count``: U, the estimated number of people unique in the population on the QIs;
    - ``share``: U/N, the estimated share of the population's people who are population
      uniques (ARX's "population uniqueness"; c_1/n when π = 1);
    - ``models``: each model's share U/N, None when it did not converge;
    - ``sampling_fraction``: π = records/N (records: the sample's, suppressed included);
    - ``population_size`` N, ``records`` in the sample, ``sample_uniques`` c_1;
    - ``parameters``: the fits behind the estimates in ``models`` (Pitman θ, α; SNB K,
      α, β).
    """

    model: str
    share: float
    count: float
    models: dict[str, float | None]
    sampling_fraction: float
    population_size: int
    records: int
    sample_uniques: int
    parameters: dict[str, dict[str, float]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return plain(
            {
                "model": self.model,
                "share": self.share,
                "count": self.count,
                "models": self.models,
                "sampling_fraction": self.sampling_fraction,
                "population_size": self.population_size,
                "records": self.records,
                "sample_uniques": self.sample_uniques,
                "parameters": self.parameters,
            }
        )


def uniqueness_of_frequencies(
    frequencies: FrequencyOfFrequencies, population: int, *, records: int | None = None
) -> PopulationUniqueness:
    """Population uniqueness from the sample's frequencies of frequencies and the
    population size N. ``records``: the sample's records when some are in no class
    (suppressed; default n = Σ i·c_i); the models use π = n/N over the classified
    records, as ARX does."""
    n = frequencies.records
    records = n if records is None else int(records)
    population = int(population)
    if population < max(records, 1):
        raise ParameterError(
            f"The population ({population} people) is smaller than the sample ({records} "
            "records): the sampling fraction would exceed 1.",
            code="population.bad_sampling_fraction",
            population=population,
            records=records,
        )
    fraction = records / population
    uniques = frequencies.of_size(1)
    if uniques == 0:
        return PopulationUniqueness(
            "none", 0.0, 0.0, dict.fromkeys(MODELS, 0.0), fraction, population, records, 0
        )
    model_fraction = n / population
    zayatz = zayatz_uniques(frequencies, population)
    pitman = pitman_uniques(frequencies, population)
    snb = snb_uniques(frequencies, population, model_fraction)
    counts = {
        "zayatz": zayatz,
        "pitman": None if pitman is None else pitman.uniques,
        "snb": None if snb is None else snb.uniques,
    }
    model, count = dankar_choice(model_fraction, zayatz, counts["pitman"], counts["snb"])
    parameters = {}  # the fits behind the estimates that count
    if counts["pitman"] is not None:
        parameters["pitman"] = {"theta": pitman.theta, "alpha": pitman.alpha}
    if counts["snb"] is not None:
        parameters["snb"] = {"classes": snb.classes, "alpha": snb.alpha, "beta": snb.beta}
    return PopulationUniqueness(
        model=model,
        share=count / population,
        count=count,
        models={k: None if v is None else v / population for k, v in counts.items()},
        sampling_fraction=fraction,
        population_size=population,
        records=records,
        sample_uniques=uniques,
        parameters=parameters,
    )


def _sample_classes(
    frame: pd.DataFrame,
    qi: Sequence[str],
    weights: Any,
    classes: EquivalenceClasses | None,
) -> EquivalenceClasses:
    if classes is not None:
        return classes
    return release_classes(frame, qi, weights=_checked_weights(weights, len(frame)))


def population_uniqueness(
    frame: pd.DataFrame,
    qi: Sequence[str],
    *,
    sampling_fraction: Any = None,
    population: Any = None,
    weights: Any = None,
    classes: EquivalenceClasses | None = None,
) -> PopulationUniqueness:
    """Estimated population uniqueness of ``frame`` on ``qi`` (Zayatz, Pitman, SNB and
    Dankar et al.'s rule; see the module docstring and :class:`PopulationUniqueness`).

    The population: ``sampling_fraction`` π or ``population`` (a size, a table, or the
    voter roll of the attack simulator) — :func:`population_size`. ``weights``: records
    per row (a frequency set); the figures are those of the expanded table. ``classes``:
    the partition already built (:func:`~privcore.classes.release_classes`; its own
    weights count, ``weights`` is then not read), whose suppressed rows count as records
    but are in no class.
    """
    classes = _sample_classes(frame, qi, weights, classes)
    records = classes.n_rows
    size = population_size(records, sampling_fraction=sampling_fraction, population=population)
    frequencies = FrequencyOfFrequencies.of_class_sizes(classes.sizes)
    if records == 0:
        fraction = _fraction(records, size, sampling_fraction)
        return PopulationUniqueness(
            "none", 0.0, 0.0, dict.fromkeys(MODELS, 0.0), fraction, size, 0, 0
        )
    return uniqueness_of_frequencies(frequencies, size, records=records)


def _fraction(records: int, size: int, sampling_fraction: Any) -> float:
    """π = records/N; for an empty sample (N = 0 from π) the π given."""
    return records / size if size else _real(sampling_fraction)


# --------------------------------------------------------------------------- individual risk


def record_posterior_risk(sizes: Any, fractions: Any, *, method: str = "approx") -> np.ndarray:
    """r = E[1/F | f] for classes of f sample records and p = f/F̂ (Benedetti & Franconi
    1998; sdcMicro ``indivRisk``), F − f ~ NegBin(f, p):

    r = Σ_{h≥f} (1/h)·C(h−1, f−1)·p^f (1−p)^(h−f) = p ∫₀¹ s^(f−1)/(p + (1−p)s) ds,

    which gives, with q = 1 − p,

    - f = 1: (p/q)·log(1/p);
    - f = 2: p/q − (p/q)²·log(1/p);
    - f = 3: p/(2q) − p²/q² + (p³/q³)·log(1/p);
    - f ≥ 3, ``method="approx"`` (sdcMicro's default; Franconi & Polettini 2004):
      p/(f − q);
    - f ≥ 3, ``method="exact"``: the integral I_f = ∫₀¹ s^(f−1)/(p+qs) ds by the
      recursion I_(f+1) = (1/f − p·I_f)/q from I_1 = log(1/p)/q when p ≤ 1/2 (errors
      shrink by p/q per step), and by the series r = (p/f) Σ_m m!/(f+1)_m q^m (terms
      shrink at least by q ≤ 1/2) when p > 1/2;
    - p = 1 (the class is its whole population): 1/f.

    Every r lies in (0, 1/f] ⊂ (0, 1].
    """
    if method not in METHODS:
        raise ParameterError(
            f"The individual-risk method must be one of {', '.join(METHODS)}, got {method!r}.",
            code="population.bad_method",
            method=str(method),
            choices=list(METHODS),
        )
    f = np.asarray(sizes, dtype=np.float64)
    p = np.clip(np.asarray(fractions, dtype=np.float64), 0.0, 1.0)
    f, p = np.broadcast_arrays(f, p)
    out = np.zeros(f.shape)
    whole = p >= 1.0
    out[whole] = 1.0 / f[whole]
    rest = ~whole & (p > 0)
    pr, fr = p[rest], f[rest]
    q = 1.0 - pr
    odds = pr / q
    log_inverse = -np.log(pr)
    risk = np.empty(len(pr))
    one, two = fr == 1, fr == 2
    risk[one] = odds[one] * log_inverse[one]
    risk[two] = odds[two] - odds[two] ** 2 * log_inverse[two]
    more = fr >= 3
    if method == "approx":
        risk[more] = pr[more] / (fr[more] - q[more])
    else:
        risk[more] = _exact_risk(fr[more], pr[more])
    out[rest] = risk
    return out


def _exact_risk(f: np.ndarray, p: np.ndarray) -> np.ndarray:
    """p·I_f for f ≥ 3 (see :func:`record_posterior_risk`), vectorized over classes."""
    out = np.empty(len(f))
    low = p <= 0.5
    if low.any():  # forward recursion, classes sorted by f so the active ones are a suffix
        fl, pl = f[low], p[low]
        order = np.argsort(fl, kind="stable")
        fs, ps = fl[order], pl[order]
        qs = 1.0 - ps
        integral = -np.log(ps) / qs  # I_1
        start = 0
        for j in range(1, int(fs[-1])):  # a loop over class sizes, not rows
            start = int(np.searchsorted(fs, j, side="right"))  # classes with f > j
            integral[start:] = (1.0 / j - ps[start:] * integral[start:]) / qs[start:]
        values = np.empty(len(fl))
        values[order] = ps * integral
        out[low] = values
    high = ~low
    if high.any():
        fh, qh = f[high], 1.0 - p[high]
        term = np.ones(len(fh))
        total = np.ones(len(fh))
        for m in range(200):  # terms shrink by q·(m+1)/(f+1+m) ≤ 1/2
            term = term * qh * (m + 1) / (fh + 1 + m)
            total += term
            if term.max() < 1e-17 * total.min():
                break
        out[high] = p[high] / fh * total
    return out


@dataclass(frozen=True, eq=False)
class IndividualRisk:
    """Benedetti–Franconi individual risk of every record (sdcMicro ``measure_risk``).

    ``per_record[i]``: E[1/F | f] of row i (each of its records when rows stand for
    several, 0 for a suppressed row); ``expected_reidentifications`` = Σ over records of
    the risk (sdcMicro's global risk ``global_risk_ER``); ``max`` the largest record risk;
    ``mean`` = expected / records (sdcMicro's ``global_risk``); ``method`` "approx" or
    "exact"; ``sampling_fraction`` π when uniform weights 1/π were used (None with
    sampling weights); ``records`` in the file.
    """

    per_record: np.ndarray
    expected_reidentifications: float
    max: float
    mean: float
    method: str
    sampling_fraction: float | None
    records: int

    def to_dict(self) -> dict[str, Any]:
        return plain(
            {
                "expected_reidentifications": self.expected_reidentifications,
                "max": self.max,
                "mean": self.mean,
                "method": self.method,
                "sampling_fraction": self.sampling_fraction,
                "records": self.records,
            }
        )


def individual_risk_of_classes(
    classes: EquivalenceClasses,
    population_counts: Any,
    *,
    method: str = "approx",
    sampling_fraction: float | None = None,
) -> IndividualRisk:
    """Individual risk from a partition and F̂_k, the estimated population count of each
    class (Σ of its records' sampling weights), p_k = f_k/F̂_k
    (:func:`record_posterior_risk`)."""
    sizes = classes.sizes.astype(np.float64)
    estimated = np.asarray(population_counts, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        fractions = np.where(estimated > 0, sizes / estimated, 1.0)
    class_risk = record_posterior_risk(sizes, fractions, method=method)
    per_record = np.zeros(len(classes.ids))
    kept = ~classes.suppressed
    per_record[kept] = class_risk[classes.ids[kept]]
    records = classes.n_rows
    expected = float((sizes * class_risk).sum())
    return IndividualRisk(
        per_record=per_record,
        expected_reidentifications=expected,
        max=float(class_risk.max()) if len(class_risk) else 0.0,
        mean=expected / records if records else 0.0,
        method=method,
        sampling_fraction=sampling_fraction,
        records=records,
    )


def individual_risk(
    frame: pd.DataFrame,
    qi: Sequence[str],
    *,
    sampling_fraction: Any = None,
    population: Any = None,
    sampling_weights: Any = None,
    weights: Any = None,
    method: str = "approx",
    classes: EquivalenceClasses | None = None,
) -> IndividualRisk:
    """Benedetti–Franconi individual risk of every record of ``frame`` on ``qi`` and the
    file's expected number of re-identifications (sdcMicro ``measure_risk``).

    F̂_k, the population count of class k, is the sum of its records' sampling weights:
    ``sampling_weights`` (a column of ``frame`` or one number ≥ 1 per row), or else the
    uniform weight 1/π for every record, π from ``sampling_fraction`` or ``population``
    (:func:`population_size`; then F̂_k = f_k/π). ``weights``: records per row (a
    frequency set; each row's records share its sampling weight); ``classes``: the
    partition already built (its own weights count, ``weights`` is then not read).
    ``method``: see :func:`record_posterior_risk`.
    """
    if method not in METHODS:
        record_posterior_risk([], [], method=method)  # raises the method error
    classes = _sample_classes(frame, qi, weights, classes)
    records_per_row = (
        np.ones(len(classes.ids)) if classes.weights is None else classes.weights.astype(float)
    )
    fraction = None
    if sampling_weights is None:
        size = population_size(
            classes.n_rows, sampling_fraction=sampling_fraction, population=population
        )
        fraction = _fraction(classes.n_rows, size, sampling_fraction)
        row_weights = np.full(len(classes.ids), 1.0 / fraction)
    else:
        if sampling_fraction is not None or population is not None:
            raise ParameterError(
                "Give either sampling weights or a sampling fraction / population, not both.",
                code="population.weights_and_fraction",
            )
        row_weights = _checked_sampling_weights(frame, sampling_weights, len(classes.ids))
    kept = ~classes.suppressed
    estimated = group_sums(
        classes.ids[kept], classes.n_classes, (records_per_row * row_weights)[kept]
    )
    return individual_risk_of_classes(classes, estimated, method=method, sampling_fraction=fraction)


def _checked_sampling_weights(frame: pd.DataFrame, sampling_weights: Any, rows: int) -> np.ndarray:
    """One sampling weight ≥ 1 per row (the population records each sampled record
    stands for), from a column name or a sequence."""
    if isinstance(sampling_weights, str):
        if sampling_weights not in frame.columns:
            raise ParameterError(
                f"The table has no sampling-weight column '{sampling_weights}'.",
                code="population.bad_sampling_weights",
                column=sampling_weights,
            )
        values = pd.to_numeric(frame[sampling_weights], errors="coerce").to_numpy(float)
    else:
        try:
            values = np.asarray(sampling_weights, dtype=np.float64)
        except (TypeError, ValueError):
            values = np.full(0, np.nan)
    if values.ndim != 1 or len(values) != rows:
        raise ParameterError(
            f"Sampling weights need one number per row ({rows}), got {values.size}.",
            code="population.bad_sampling_weights",
            rows=rows,
            found=int(values.size),
        )
    bad = ~np.isfinite(values) | (values < 1)
    if bad.any():
        raise ParameterError(
            "Sampling weights must be numbers of at least 1 (the population records each "
            f"sampled record stands for); {int(bad.sum())} row(s) are not.",
            code="population.bad_sampling_weights",
            count=int(bad.sum()),
        )
    return values


def _checked_weights(weights: Any, rows: int) -> np.ndarray | None:
    """Records per row of a frequency set: whole numbers ≥ 1, one per row."""
    if weights is None:
        return None
    array = np.asarray(weights)
    numeric = np.issubdtype(array.dtype, np.integer) or np.issubdtype(array.dtype, np.floating)
    whole = (
        numeric
        and array.ndim == 1
        and bool(np.all(np.isfinite(array)))
        and bool(np.all(array == np.round(array)))
    )
    if not whole or len(array) != rows or (array.size and array.min() < 1):
        raise ParameterError(
            f"The row weights of a frequency set must be whole numbers of at least 1, one "
            f"per row ({rows}).",
            code="population.bad_weights",
            rows=rows,
        )
    return array.astype(np.int64, copy=False)
