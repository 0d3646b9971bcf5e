"""Population uniqueness of a sample: :func:`population_uniqueness` from a table, and
:func:`uniqueness_of_frequencies` from its frequencies of frequencies."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from privcore.classes import EquivalenceClasses
from privcore.core.records import PlainFields
from privcore.measure.population.models import (
    dankar_choice,
    pitman_uniques,
    snb_uniques,
    zayatz_uniques,
)
from privcore.measure.population.sample import (
    FrequencyOfFrequencies,
    _fraction,
    _sample_classes,
    _smaller_than_sample,
    population_size,
)

MODELS = ("zayatz", "pitman", "snb")


@dataclass(frozen=True)
class PopulationUniqueness(PlainFields):
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

    @classmethod
    def without_uniques(
        cls, fraction: float, population: int, records: int
    ) -> PopulationUniqueness:
        """A sample without uniques: model "none", every estimate 0."""
        return cls("none", 0.0, 0.0, dict.fromkeys(MODELS, 0.0), fraction, population, records, 0)


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
        raise _smaller_than_sample(population, records)
    fraction = records / population
    uniques = frequencies.of_size(1)
    if uniques == 0:
        return PopulationUniqueness.without_uniques(fraction, population, records)
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
        return PopulationUniqueness.without_uniques(fraction, size, 0)
    return uniqueness_of_frequencies(frequencies, size, records=records)
