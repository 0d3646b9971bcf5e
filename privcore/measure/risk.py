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
suppression lowers every average.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd

from privcore.classes import EquivalenceClasses, combine_codes, factorize
from privcore.data.hierarchy import Hierarchy, value_keys
from privcore.errors import ParameterError
from privcore.measure.loss import generalization_levels

__all__ = ["RiskSummary", "population_sizes", "record_risk", "risk_summary"]


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
    n = classes.n_rows
    n_classes = classes.n_classes
    population = None if population_sizes is None else _check_population(population_sizes, sizes)
    if n == 0 or n_classes == 0:
        zero_or_none = None if population is None else 0.0
        return RiskSummary(
            0.0,
            0.0,
            0.0,
            0.0,
            threshold,
            0.0,
            zero_or_none,
            zero_or_none,
            classes.n_suppressed,
        )
    inverse = 1.0 / sizes
    at_risk = float(sizes[inverse > threshold].sum()) / n
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
        prosecutor_avg_classes=float(inverse.mean()),
        records_at_risk=at_risk,
        threshold=threshold,
        marketer=marketer,
        journalist_max=journalist_max,
        journalist_avg=journalist_avg,
        suppressed_rows=classes.n_suppressed,
    )


def population_sizes(
    classes: EquivalenceClasses,
    release: pd.DataFrame,
    population: pd.DataFrame,
    qi: Sequence[str],
    *,
    original: pd.DataFrame | None = None,
    hierarchies: Mapping[str, Hierarchy] | None = None,
) -> np.ndarray:
    """F_j: how many population records fall in each release class (for journalist risk).

    A QI whose released cells are all labels of one level L of its hierarchy (a
    full-domain release: checked against ``original``) is generalized to level L in the
    population; any other QI is compared as released (the population must then be in
    the release's representation). Counting is one factorized join over the class keys
    and the population rows. Classes of locally recoded columns (several levels in one
    column) need containment matching: the attack simulator does that.
    """
    hierarchies = hierarchies or {}
    missing = [c for c in qi if c not in population.columns]
    if missing:
        raise ParameterError(
            f"The population table has no column {', '.join(missing)}.",
            code="risk.population_columns",
            columns=missing,
        )
    keys = release.iloc[classes.first_row][list(qi)].reset_index(drop=True)
    pop = pd.DataFrame(index=population.index)
    for column in qi:
        values = population[column]
        hierarchy = hierarchies.get(column)
        if hierarchy is not None and original is not None:
            levels = generalization_levels(original[column], release[column], hierarchy)
            used = np.unique(levels[~classes.suppressed]) if classes.n_classes else levels[:0]
            if len(used) == 1 and used[0] >= 0:
                values = _generalize_known(hierarchy, values, int(used[0]))
            elif len(used) > 1:
                raise ParameterError(
                    f"'{column}' is generalized to several levels in this release; journalist "
                    "risk by exact matching needs one level per column (use the attack "
                    "simulator for locally recoded releases).",
                    code="risk.local_recoding",
                    column=column,
                )
        pop[column] = value_keys(values).to_numpy()
        keys[column] = value_keys(keys[column]).to_numpy()
    both = pd.concat([keys, pop], ignore_index=True)
    codes = [factorize(both[c])[0] for c in qi]
    key = combine_codes(codes, [int(c.max()) + 1 if len(c) else 1 for c in codes])
    class_key, population_key = key[: len(keys)], key[len(keys) :]
    uniques, counts = np.unique(population_key, return_counts=True)
    position = np.searchsorted(uniques, class_key)
    position = np.minimum(position, max(len(uniques) - 1, 0))
    found = len(uniques) > 0
    matched = found & (uniques[position] == class_key) if found else np.zeros(len(keys), bool)
    return np.where(matched, counts[position] if found else 0, 0).astype(np.int64)


def _generalize_known(hierarchy: Hierarchy, values: pd.Series, level: int) -> pd.Series:
    """Labels at ``level``; values the hierarchy does not know stay missing (they match
    no class), since a population is usually wider than the data set."""
    leaf = pd.Index(hierarchy.leaves).get_indexer(value_keys(values).to_numpy())
    labels = np.asarray(hierarchy.labels(level), dtype=object)[hierarchy.codes(level)]
    out = np.where(leaf >= 0, labels[np.maximum(leaf, 0)], None)
    return pd.Series(out, index=values.index, dtype=object)
