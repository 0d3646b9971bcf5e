"""Re-identification risk of a release from its equivalence classes (SPEC §6).

The three attacker models of El Emam & Dankar (2008), with the conventions of ARX's
risk analysis:

- prosecutor: the attacker knows the target is in the release; a record in a class of
  f rows is re-identified with probability 1/f;
- journalist: the attacker knows only that the target is in a population; a class that
  matches F ≥ f population records gives 1/F;
- marketer: the attacker tries to re-identify everyone; the expected share of records
  re-identified.

Suppressed rows (every QI ``*``) carry no QI information: their record risk is 0 and
they form no class, but they count in n, the number of rows of the release. So
suppression lowers every average. On a weighted frequency set (SPEC §9: rows standing
for several records, :attr:`~privcore.classes.EquivalenceClasses.weights`) the class
sizes and n count records, so every figure is that of the records.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from privcore.classes import EquivalenceClasses
from privcore.errors import ParameterError

__all__ = ["RiskSummary", "record_risk", "risk_of_size_counts", "risk_summary"]


@dataclass(frozen=True)
class RiskSummary:
    """Prosecutor, journalist and marketer risk of one release (El Emam 2008; ARX).

    With n rows (suppressed included), classes j of size f_j and population
    counterparts F_j:

    - ``prosecutor_max`` = max over records of 1/f = 1/min f_j;
    - ``prosecutor_avg`` = (1/n) Σ_records 1/f = #classes / n (record-weighted, the
      figure ARX shows);
    - ``prosecutor_avg_classes`` = mean over classes of 1/f_j (the class-averaged
      convention, for reference);
    - ``records_at_risk`` = share of the n records with 1/f > ``threshold``;
    - ``marketer`` = #classes / n from the release alone, (1/n) Σ_j f_j/F_j with a
      population;
    - ``journalist_max`` = max_j 1/F_j and ``journalist_avg`` = (1/n) Σ_j f_j/F_j
      (the record-weighted mean of 1/F, equal to the marketer risk with a population);
      both None without a population;
    - ``suppressed_rows``: rows outside every class (record risk 0).
    """

    prosecutor_max: float
    prosecutor_avg: float
    prosecutor_avg_classes: float
    records_at_risk: float
    threshold: float
    marketer: float
    journalist_max: float | None
    journalist_avg: float | None
    suppressed_rows: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def record_risk(classes: EquivalenceClasses) -> np.ndarray:
    """Prosecutor risk 1/f of every row (f = size of its class); 0 for suppressed rows,
    which carry no QI information."""
    sizes = classes.row_sizes
    out = np.zeros(len(sizes), dtype=np.float64)
    kept = sizes > 0
    out[kept] = 1.0 / sizes[kept]
    return out


def _check_threshold(threshold: float) -> float:
    try:
        t = float(threshold)
    except (TypeError, ValueError):
        t = math.nan
    if isinstance(threshold, bool) or not (0.0 < t <= 1.0):
        raise ParameterError(
            f"The risk threshold must be a probability in (0, 1], got {threshold!r}.",
            code="risk.bad_threshold",
            value=str(threshold),
        )
    return t


def _check_population(population_sizes: Any, sizes: np.ndarray) -> np.ndarray:
    population = np.asarray(population_sizes, dtype=np.float64)
    if population.ndim != 1 or len(population) != len(sizes):
        raise ParameterError(
            f"Population sizes must give one count per equivalence class: expected "
            f"{len(sizes)}, got {population.size}.",
            code="risk.bad_population",
            expected=len(sizes),
            found=int(population.size),
        )
    bad = ~np.isfinite(population) | (population < sizes)
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        raise ParameterError(
            f"Each class must match at least as many population records as it has rows: "
            f"class {j} has {int(sizes[j])} rows but a population count of {population[j]:g} "
            f"({int(bad.sum())} class{'es' if bad.sum() > 1 else ''} affected).",
            code="risk.bad_population",
            cls=j,
            size=int(sizes[j]),
            population=float(population[j]),
            count=int(bad.sum()),
        )
    return population


def risk_summary(
    classes: EquivalenceClasses,
    *,
    threshold: float = 0.2,
    population_sizes: np.ndarray | None = None,
) -> RiskSummary:
    """Prosecutor, marketer and (with a population) journalist risk (El Emam 2008; ARX).

    ``threshold`` in (0, 1]: a record is at risk when 1/f > threshold (strictly).
    ``population_sizes`` gives F_j, the number of population records matching class j
    (same order as ``classes.sizes``, each ≥ f_j), e.g. counted on a synthetic voter
    roll. n is the number of all rows, suppressed rows included: they count in n with
    record risk 0, so they lower every average. See :class:`RiskSummary` for each
    formula.
    """
    threshold = _check_threshold(threshold)
    sizes = classes.sizes.astype(np.float64)
    population = None if population_sizes is None else _check_population(population_sizes, sizes)
    return _summary(sizes, None, classes.n_rows, classes.n_suppressed, threshold, population)


def risk_of_size_counts(
    size_counts: Mapping[int, int], *, rows: int, suppressed_rows: int, threshold: float = 0.2
) -> RiskSummary:
    """:func:`risk_summary` without a population from the number of classes of each
    size (``size_counts``: size → classes) — the classes of a table too large to list
    them, counted by an engine. ``rows``: n, suppressed rows included."""
    threshold = _check_threshold(threshold)
    sizes = np.fromiter(size_counts.keys(), dtype=np.float64, count=len(size_counts))
    counts = np.fromiter(size_counts.values(), dtype=np.float64, count=len(size_counts))
    return _summary(sizes, counts, int(rows), int(suppressed_rows), threshold, None)


def _summary(
    sizes: np.ndarray,
    counts: np.ndarray | None,
    n: int,
    suppressed: int,
    threshold: float,
    population: np.ndarray | None,
) -> RiskSummary:
    """The figures of :class:`RiskSummary` from the class sizes f (each standing for
    ``counts`` classes of that size, or one class each) and the population counts F."""
    n_classes = int(counts.sum()) if counts is not None else len(sizes)
    if n == 0 or n_classes == 0:
        zero_or_none = None if population is None else 0.0
        return RiskSummary(
            0.0, 0.0, 0.0, 0.0, threshold, 0.0, zero_or_none, zero_or_none, suppressed
        )
    inverse = 1.0 / sizes
    records = sizes if counts is None else sizes * counts  # records in classes of each size
    per_class = inverse if counts is None else inverse * counts
    at_risk = float(records[inverse > threshold].sum()) / n
    if population is None:
        marketer = n_classes / n
        journalist_max = journalist_avg = None
    else:
        marketer = float((sizes / population).sum()) / n
        journalist_max = float((1.0 / population).max())
        journalist_avg = marketer
    return RiskSummary(
        prosecutor_max=float(inverse.max()),
        prosecutor_avg=n_classes / n,
        prosecutor_avg_classes=float(per_class.sum()) / n_classes,
        records_at_risk=at_risk,
        threshold=threshold,
        marketer=marketer,
        journalist_max=journalist_max,
        journalist_avg=journalist_avg,
        suppressed_rows=suppressed,
    )
