"""The sample and its population: class sizes as frequencies of frequencies, the
population size N (from the sampling fraction π or a population), and the checks of
both and of a frequency set's row weights."""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from privcore.classes import EquivalenceClasses, release_classes
from privcore.errors import ParameterError


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
        raise _smaller_than_sample(size, int(records))
    return size


def _smaller_than_sample(population: int, records: int) -> ParameterError:
    """The error of a population of fewer people than the sample has records."""
    return ParameterError(
        f"The population ({population} people) is smaller than the sample ({records} "
        "records): the sampling fraction would exceed 1.",
        code="population.bad_sampling_fraction",
        population=population,
        records=records,
    )


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


def _sample_classes(
    frame: pd.DataFrame,
    qi: Sequence[str],
    weights: Any,
    classes: EquivalenceClasses | None,
) -> EquivalenceClasses:
    """The sample's partition on ``qi``: ``classes`` when given, else built with the
    checked frequency-set ``weights``."""
    if classes is not None:
        return classes
    return release_classes(frame, qi, weights=_checked_weights(weights, len(frame)))


def _fraction(records: int, size: int, sampling_fraction: Any) -> float:
    """π = records/N; for an empty sample (N = 0 from π) the π given."""
    return records / size if size else _real(sampling_fraction)


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
