"""Information-loss metrics of a generalized release (SPEC §5).

Levels. A :class:`~privcore.data.hierarchy.Hierarchy` numbers its levels 0 (original
value) … ``height`` (top, ``*``). Per QI cell, :func:`generalization_levels` finds the
level at which the released value was produced from the original one; every metric
here works from those levels:

- weighted hierarchical distance and record/table distortion (seed 004, after Li,
  Wong, Fu & Pei's KACA): :func:`whd`, :func:`whd_distortion`;
- discernibility metric (Bayardo & Agrawal 2005, as in ARX): :func:`discernibility`;
- normalized average equivalence class size C_avg (LeFevre et al. 2006):
  :func:`average_class_size`;
- normalized / global certainty penalty (Xu et al. 2006): :func:`ncp`, :func:`gcp`, and
  :func:`cell_ncp` for released cells that are no labels of a hierarchy (ranges, sets);
- precision (Sweeney 2002): :func:`precision`;
- height of a full-domain generalization node (seed 003 §20.3.1.1):
  :func:`generalization_height`.

Everything proportional to the number of rows is vectorized, and most of it runs on
the distinct (original value, released value) pairs of a column rather than on its
rows: a released cell's level, NCP and whether it contains its original value depend
on the pair alone, so each column is factorized once, its pairs counted once
(:func:`column_pairs`), every rule applied per pair, and the result taken back to the
rows by one lookup. :func:`column_loss` gives what a measurement needs of one column
(levels per row in the smallest integer type, the sum of its NCP) from the codes it
already holds (:class:`~privcore.classes.TableCodes`).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from privcore.classes import (
    SUPPRESSED,
    EquivalenceClasses,
    TableCodes,
    code_counts,
    compact_codes,
    group_keys,
    present_codes,
)
from privcore.core.scaling import scaled_span
from privcore.data.cells import comparable_keys, parse_column
from privcore.data.codes import is_number
from privcore.data.hierarchy import Hierarchy
from privcore.errors import HierarchyError, ParameterError, PrivcoreError

__all__ = [
    "CodedColumn",
    "ColumnLoss",
    "ColumnPairs",
    "average_class_size",
    "cell_ncp",
    "column_loss",
    "column_pairs",
    "discernibility",
    "gcp",
    "gcp_of_sums",
    "generalization_height",
    "generalization_levels",
    "ncp",
    "precision",
    "precision_of_counts",
    "whd",
    "whd_distortion",
]


def _whole(value: object, what: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ParameterError(
            f"The {what} must be a whole number ≥ {minimum}, got {value!r}.",
            code="measure.bad_parameter",
            parameter=what,
            value=str(value),
        )
    return int(value)


def _weights(h: int, beta: float) -> np.ndarray:
    """w_{j,j−1} = 1/(j−1)^β for j = 2..h (index j−2)."""
    return 1.0 / np.arange(1, h, dtype=np.float64) ** beta


def _check_beta(beta: float) -> float:
    try:
        b = float(beta)
    except (TypeError, ValueError):
        b = math.nan
    if isinstance(beta, bool) or not math.isfinite(b):
        raise ParameterError(
            f"The WHD weight exponent β must be a finite number, got {beta!r}.",
            code="measure.bad_parameter",
            parameter="beta",
            value=str(beta),
        )
    return b


def whd(p: int, q: int, h: int, beta: float = 1.0) -> float:
    """Weighted hierarchical distance of generalizing level ``p`` to level ``q``.

    Levels are numbered as in seed 004: 1 = most general … h = original, so q ≤ p.
    With weights w_{j,j−1} = 1/(j−1)^β (β = 1 by default: steps near the top cost more),

        WHD(p, q) = Σ_{j=q+1..p} w_{j,j−1} / Σ_{j=2..h} w_{j,j−1}.

    Birth date D/M/Y → M/Y → Y → * (h = 4): WHD(4,3) = (1/3)/(11/6) = 2/11 ≈ 0.18,
    WHD(2,1) = 1/(11/6) = 6/11 ≈ 0.55. A one-level hierarchy (h = 1) gives 0.
    """
    h = _whole(h, "number of hierarchy levels h", 1)
    p = _whole(p, "level p", 1)
    q = _whole(q, "level q", 1)
    if not q <= p <= h:
        raise ParameterError(
            f"WHD needs 1 ≤ q ≤ p ≤ h (levels run from 1, most general, to h, original); "
            f"got p = {p}, q = {q}, h = {h}.",
            code="measure.bad_parameter",
            p=p,
            q=q,
            h=h,
        )
    if h == 1:
        return 0.0
    w = _weights(h, _check_beta(beta))
    return float(w[q - 1 : p - 1].sum() / w.sum())


def _whd_by_level(height: int, beta: float) -> np.ndarray:
    """WHD from the original to each of our levels g = 0..height (SPEC level h − g,
    h = height + 1): a cumulative sum of the weights from the bottom."""
    h = height + 1
    w = _weights(h, beta)  # w[i] is the step between SPEC levels i+2 and i+1
    steps = w[::-1]  # our step g−1 → g is SPEC h−g+1 → h−g: weight 1/(h−g)^β
    return np.concatenate([[0.0], np.cumsum(steps)]) / w.sum()


@dataclass(frozen=True, eq=False)
class CodedColumn:
    """A column as codes: ``codes[i]`` the index of row i's value among ``values`` (the
    distinct values in order of first appearance, in the column's own type, missing one
    value of its own), and the column's ``dtype``."""

    codes: np.ndarray
    values: pd.Index
    dtype: object

    @classmethod
    def of(cls, series: pd.Series) -> CodedColumn:
        """Factorize a column (:class:`~privcore.classes.TableCodes` does it the same way)."""
        series = pd.Series(series, copy=False)
        table = TableCodes(series.to_frame(name=0))
        return cls(table.codes(0), table.values(0), series.dtype)

    @classmethod
    def of_table(cls, table: TableCodes, column: str) -> CodedColumn:
        """A column of a table already factorized."""
        return cls(table.codes(column), table.values(column), table.frame[column].dtype)

    @cached_property
    def missing(self) -> np.ndarray:
        """Per distinct value: it is missing."""
        return np.asarray(pd.isna(self.values), dtype=bool).reshape(len(self.values))

    @cached_property
    def present(self) -> pd.Index:
        """The distinct non-missing values, in order of first appearance."""
        return self.values[~self.missing]

    @cached_property
    def value_index(self) -> np.ndarray:
        """Per distinct value: its index among :attr:`present`, -1 for missing."""
        return np.where(self.missing, -1, np.cumsum(~self.missing) - 1)


@dataclass(frozen=True, eq=False)
class ColumnPairs:
    """The distinct (original value, released value) pairs of one column.

    ``rows[i]`` is the pair of row i (None once dropped: :meth:`counted`); per pair,
    ``original`` and ``released`` index the two columns' distinct values
    (:class:`CodedColumn`) and ``counts`` the rows holding it (the records, when the rows
    are weighted: :func:`column_pairs`). Anything that depends on the pair alone is
    computed once per pair and taken back to the rows by ``per_pair[rows]``.
    """

    rows: np.ndarray | None
    original: np.ndarray
    released: np.ndarray
    counts: np.ndarray

    def __len__(self) -> int:
        return len(self.counts)

    def counted(self) -> ColumnPairs:
        """The pairs and their counts without the pair of each row (None), to keep."""
        return ColumnPairs(None, self.original, self.released, self.counts)


def _check_rows(original: int, released: int) -> None:
    """An original column and its released version must have one row each per record."""
    if original != released:
        raise ParameterError(
            f"The original column has {original} rows but the released one has {released}.",
            code="measure.alignment",
            rows=[original, released],
        )


def column_pairs(
    original: CodedColumn, release: CodedColumn, *, weights: np.ndarray | None = None
) -> ColumnPairs:
    """Count the (original, released) value pairs of a column: one combined key per row,
    counted densely (a count per possible pair) when there are at most about 4 possible
    pairs per row, else grouped by hash. ``weights`` (int64, one whole number ≥ 1 per row)
    make row i stand for ``weights[i]`` records of a frequency set: each pair's count is
    then the sum of its rows' weights."""
    _check_rows(len(original.codes), len(release.codes))
    width = max(len(release.values), 1)
    span = max(len(original.values), 1) * width
    n = len(original.codes)
    key = np.array(original.codes, dtype=np.int64)
    key *= width
    key += release.codes
    if span <= 4 * n + 1024:
        counts = code_counts(key, span, weights=weights)
        if weights is not None:
            counts = np.rint(counts).astype(np.int64)
        pairs = np.flatnonzero(counts)  # not rows: one count per possible pair
        rank = compact_codes(np.cumsum(counts > 0) - 1, len(pairs))
        rows = rank[key]
        counts = counts[pairs]
    else:
        groups = group_keys(key, weights=weights)
        pairs = key[groups.first]
        rows, counts = compact_codes(groups.ids, groups.n_groups), groups.counts
    return ColumnPairs(rows, pairs // width, pairs % width, counts)


def _levels_of_pairs(
    pairs: ColumnPairs, original: CodedColumn, release: CodedColumn, hierarchy: Hierarchy
) -> tuple[np.ndarray, np.ndarray]:
    """(level per pair, leaf index per pair): the rule of :func:`generalization_levels`
    applied to each distinct pair. Original values the hierarchy does not cover raise
    :class:`~privcore.errors.HierarchyError` (from :meth:`Hierarchy.encode`)."""
    leaf_of_value = np.full(len(original.values), -1, dtype=np.int64)
    leaf_of_value[~original.missing] = hierarchy.encode(pd.Series(original.present))
    leaf = leaf_of_value[pairs.original]
    # Only the distinct released values become keys.
    present = pd.Series(np.asarray(release.present, dtype=object), dtype=object)
    released_keys = pd.Index(comparable_keys(present).to_numpy(dtype=object), dtype=object)
    released_index = release.value_index[pairs.released]  # -1: a missing released cell
    top = hierarchy.height
    levels = np.full(len(pairs), -1, dtype=np.int64)
    # From the top down, so that the lowest matching level is written last.
    for g in range(top, -1, -1):
        label_of_key = pd.Index(hierarchy.labels(g), dtype=object).get_indexer(released_keys)
        if g == top:
            label_of_key[released_keys == SUPPRESSED] = 0
        wanted = np.append(label_of_key, -2)[released_index]  # missing release: -2
        match = (hierarchy.generalize(leaf, g) == wanted) & (wanted >= 0)
        levels[match] = g
    levels[(leaf < 0) & (released_index < 0)] = 0
    return levels, leaf


def _ncp_of_pairs(
    pairs: ColumnPairs, leaf: np.ndarray, levels: np.ndarray, hierarchy: Hierarchy, numeric: bool
) -> np.ndarray:
    """NCP per pair by the rule of :func:`ncp` (``leaf`` and ``levels`` per pair, every
    level known)."""
    height = hierarchy.height
    present = present_codes(leaf, len(hierarchy.leaves))  # the leaves the column holds
    out = np.zeros(len(pairs), dtype=np.float64)
    for g in range(1, height):
        chosen = np.flatnonzero(levels == g)
        if len(chosen):
            penalty = _label_penalties(hierarchy, g, present, numeric)
            out[chosen] = penalty[hierarchy.generalize(leaf[chosen], g)]
    out[levels == height] = 1.0
    return out


def _label_penalties(
    hierarchy: Hierarchy, g: int, present: np.ndarray, numeric: bool
) -> np.ndarray:
    """NCP of each label of level ``g`` over the leaves ``present`` in the column (the
    rule of :func:`ncp`), then 0 for a missing value (the last entry)."""
    label_codes = hierarchy.codes(g)[present]  # label of each present value
    n_labels = len(hierarchy.labels(g))
    if numeric:
        leaf_values = pd.to_numeric(
            pd.Series(np.asarray(hierarchy.leaves, dtype=object)[present]), errors="coerce"
        ).to_numpy(dtype=np.float64)
        # ±1e308 in the unit of scaled_span; an infinite value is a leaf of its own (a
        # label holding it and other values spans the whole range: 1)
        leaf_values, span = scaled_span(leaf_values)
        lo = np.full(n_labels, np.inf)
        hi = np.full(n_labels, -np.inf)
        np.minimum.at(lo, label_codes, leaf_values)  # not rows: present leaves
        np.maximum.at(hi, label_codes, leaf_values)  # not rows: present leaves
        with np.errstate(invalid="ignore"):
            width = np.where(hi > lo, hi - lo, 0.0)
        penalty = np.minimum(width / span, 1.0) if span > 0 else np.zeros(n_labels)
    else:
        card = np.bincount(label_codes, minlength=n_labels)  # not rows: present leaves
        penalty = np.where(card > 1, card / max(len(present), 1), 0.0)
    return np.append(penalty, 0.0)


def generalization_levels(
    original: pd.Series, release: pd.Series, hierarchy: Hierarchy
) -> np.ndarray:
    """Per row, the level of ``hierarchy`` that turns the original value into the
    released one.

    The lowest level g (0 = original … ``hierarchy.height`` = top) whose label of the
    original value equals the released cell; a released ``*`` is the top level; -1
    when no level matches (the cell was not produced by this hierarchy). Values are
    compared as values (:func:`~privcore.data.cells.comparable_keys`: ``29`` = ``"29"``
    = ``"29.0"``).
    A missing original matches a missing released cell at level 0. Original values the
    hierarchy does not cover raise :class:`~privcore.errors.HierarchyError`.

    Vectorized: both columns are factorized once, their distinct (original, released)
    pairs counted (:func:`column_pairs`), each pair compared once per level, and the
    levels taken back to the rows.
    """
    _check_rows(len(original), len(release))
    original, release = CodedColumn.of(original), CodedColumn.of(release)
    pairs = column_pairs(original, release)
    levels, _ = _levels_of_pairs(pairs, original, release, hierarchy)
    return levels[pairs.rows]


def _check_levels(levels: np.ndarray, height: int, name: str) -> np.ndarray:
    levels = np.asarray(levels)
    if levels.dtype.kind not in "iu":
        raise ParameterError(
            f"The generalization levels of '{name}' must be whole numbers.",
            code="measure.bad_levels",
            column=name,
        )
    unknown = int((levels < 0).sum())
    if unknown:
        raise ParameterError(
            f"{unknown} released value{'s' if unknown > 1 else ''} of '{name}' "
            f"{'were' if unknown > 1 else 'was'} not produced by its hierarchy from the "
            f"original value (level -1); this loss metric needs the level of every cell.",
            code="measure.level_unknown",
            column=name,
            count=unknown,
        )
    if levels.size and int(levels.max()) > height:
        raise ParameterError(
            f"A level of '{name}' is above the top of its hierarchy (height {height}).",
            code="measure.bad_levels",
            column=name,
            height=height,
        )
    return levels  # any integer type: levels are small, and read only by lookups and sums


def _checked(
    levels: Mapping[str, np.ndarray], hierarchies: Mapping[str, Hierarchy]
) -> tuple[dict[str, np.ndarray], int]:
    """Levels per QI checked against the QI's hierarchy; all of one length n."""
    if not levels:
        raise ParameterError("No quasi-identifier levels were given.", code="measure.no_qi")
    ParameterError.unless_present(
        levels,
        hierarchies,
        "No hierarchy was given for {names}.",
        code="measure.no_hierarchy",
        quoted=True,
    )
    out = {name: _check_levels(lv, hierarchies[name].height, name) for name, lv in levels.items()}
    lengths = {len(v) for v in out.values()}
    if len(lengths) > 1:
        raise ParameterError(
            "The level arrays of the quasi-identifiers have different lengths "
            f"({', '.join(str(n) for n in sorted(lengths))}).",
            code="measure.alignment",
        )
    return out, lengths.pop()


def whd_distortion(
    levels: Mapping[str, np.ndarray],
    hierarchies: Mapping[str, Hierarchy],
    beta: float = 1.0,
    *,
    weights: np.ndarray | None = None,
) -> tuple[np.ndarray, float]:
    """Record and table distortion by weighted hierarchical distance (seed 004).

    Record distortion = Σ over QIs of WHD(h, h − g, h), from the original (SPEC level
    h) to the released level; our level g of a hierarchy of height H is SPEC level
    h − g with h = H + 1. Table distortion = Σ over records: with ``weights`` (row i of
    a frequency set stands for ``weights[i]`` records), Σ_i weights[i] · distortion of
    row i. Returns ``(per-row distortion, table distortion)``.
    """
    beta = _check_beta(beta)
    checked, n = _checked(levels, hierarchies)
    per_row = np.zeros(n, dtype=np.float64)
    step = np.empty(n, dtype=np.float64)  # one buffer for every column's distances
    for name, lv in checked.items():
        np.take(_whd_by_level(hierarchies[name].height, beta), lv, out=step)
        per_row += step
    if weights is not None:
        return per_row, float(np.dot(per_row, weights))
    return per_row, float(per_row.sum())


def discernibility(classes: EquivalenceClasses) -> int:
    """Discernibility metric DM = Σ_EC |EC|² + (suppressed rows) · n (Bayardo &
    Agrawal 2005; ARX): each row is charged the number of rows it cannot be told
    apart from, a suppressed row all n rows."""
    sizes = classes.sizes.astype(np.int64)
    return discernibility_of_sums(int(np.dot(sizes, sizes)), classes.n_suppressed, classes.n_rows)


def discernibility_of_sums(squares: int, suppressed: int, rows: int) -> int:
    """DM = Σ_EC |EC|² + (suppressed rows) · n from its sums (:func:`discernibility`):
    ``squares`` = Σ_EC |EC|², ``rows`` = n."""
    return int(squares) + int(suppressed) * int(rows)


def average_class_size(classes: EquivalenceClasses, k: int) -> float:
    """Normalized average equivalence class size C_avg = (rows kept / #EC) / k
    (LeFevre, DeWitt & Ramakrishnan 2006). 1 is ideal for k-anonymity; suppressed rows
    are not in a class and not counted. NaN when there is no class (all suppressed)."""
    return average_class_size_of(classes.n_rows - classes.n_suppressed, classes.n_classes, k)


def average_class_size_of(kept: int, n_classes: int, k: int) -> float:
    """C_avg = (rows kept / #EC) / k (:func:`average_class_size`) from the rows in a class
    (``kept``) and the number of classes; NaN without a class."""
    k = _whole(k, "k", 1)
    if n_classes == 0:
        return math.nan
    return kept / n_classes / k


def ncp(original: pd.Series, levels: np.ndarray, hierarchy: Hierarchy) -> np.ndarray:
    """Normalized certainty penalty of every cell of one QI (Xu et al. 2006).

    Numeric attribute: NCP = (max − min of the data values whose label at the row's
    level equals the row's label) / (max − min of the column). Categorical attribute:
    NCP = card(u) / |A| with card(u) the number of distinct data values under the
    row's label and |A| the number of distinct data values — and 0 when card(u) = 1,
    as Xu et al. define it (so level 0 always gives 0, and so does a label covering a
    single value present in the data). The top level (suppression) always gives 1.
    Only values present in the column count, not every leaf of the hierarchy. A
    missing original value gives 0 below the top, 1 at the top. A constant numeric
    column gives 0 below the top.
    """
    height = hierarchy.height
    levels = _check_levels(levels, height, str(original.name))
    if len(levels) != len(original):
        raise ParameterError(
            f"There are {len(levels)} levels for {len(original)} values.",
            code="measure.alignment",
            rows=[len(original), len(levels)],
        )
    leaf = hierarchy.encode(original)
    present = present_codes(leaf, len(hierarchy.leaves))
    numeric = is_number(original.dtype)
    out = np.zeros(len(leaf), dtype=np.float64)
    for g in range(1, height):
        rows = np.flatnonzero(levels == g)
        if not len(rows):
            continue
        penalty = _label_penalties(hierarchy, g, present, numeric)
        out[rows] = penalty[hierarchy.generalize(leaf[rows], g)]  # missing (-1) picks 0
    out[levels == height] = 1.0
    return out


#: Cells (distinct released values × distinct original values) :func:`cell_ncp` reads at
#: most, in blocks of :data:`_CELL_BLOCK`: about two seconds of work.
CELL_BUDGET = 200_000_000
_CELL_BLOCK = 16_000_000


def cell_ncp(
    original: pd.Series, release: pd.Series, hierarchy: Hierarchy | None = None
) -> tuple[np.ndarray | None, int]:
    """NCP of every cell of one QI read from the released cells themselves (Xu et al.
    2006), for releases whose cells are no labels of a hierarchy: Mondrian's ranges
    ``[20-29]`` and sets ``{a,b}``, masks, comparisons, uploaded releases.

    A released cell stands for the original values it contains
    (:mod:`privcore.data.cells`: ranges, masks, sets, hierarchy labels, ``*``). Over the
    values present in the column (missing left out), numeric attribute: NCP = (max − min
    of the values the cell contains) / (max − min of the column); categorical: NCP =
    (values the cell contains) / (values of the column), 0 when it contains a single one.
    ``*`` gives 1. A missing original costs what its cell costs: 0 for a missing cell
    (it contains no value of the column), the cell's NCP for one that names it among
    other values (Mondrian's ``[20-29],NA``: the reader cannot tell which), 1 for ``*``
    — the rules of :func:`ncp`, so a cell that is a hierarchy label costs the same
    either way, and a Mondrian range or set costs what Mondrian's own NCP says.

    Returns (NCP per row, rows whose cell does not contain their original value). When
    that count is not 0 the release was not made by generalizing this column (noise,
    synthesis, another table) and the NCP is ``None``. The work is distinct released
    values × distinct original values; above :data:`CELL_BUDGET` it raises
    :class:`ParameterError` ``measure.too_many_cells``.
    """
    _check_rows(len(original), len(release))
    name = str(original.name)
    original, release = CodedColumn.of(original), CodedColumn.of(release)
    pairs = column_pairs(original, release)
    penalty, outside = _cell_ncp_of_pairs(pairs, original, release, hierarchy, name)
    if penalty is None:
        return None, outside
    return penalty[pairs.rows], 0


def _cell_ncp_of_pairs(
    pairs: ColumnPairs,
    original: CodedColumn,
    release: CodedColumn,
    hierarchy: Hierarchy | None,
    name: str,
) -> tuple[np.ndarray | None, int]:
    """(NCP per pair, rows whose cell does not contain their original value) by the rule
    of :func:`cell_ncp`; the NCP is None when that count is not 0."""
    uniques = original.present
    m = len(uniques)
    released_values = np.asarray(release.values, dtype=object)
    n_labels = len(released_values)
    if n_labels * (m + 1) > CELL_BUDGET:
        raise ParameterError(
            f"'{name}' has too many distinct values to read its released cells "
            f"({n_labels:,} released × {m:,} original).",
            code="measure.too_many_cells",
            column=name,
            cells=n_labels * (m + 1),
        )
    # The original's distinct values, then the missing value (column m).
    values = pd.concat([pd.Series(uniques, dtype=object), pd.Series([None], dtype=object)])
    values = values.reset_index(drop=True)
    value_of_pair = original.value_index[pairs.original]  # -1: a missing original
    own_value = np.where(value_of_pair < 0, m, value_of_pair)
    numeric = is_number(original.dtype)
    if numeric:
        numbers = pd.to_numeric(pd.Series(uniques), errors="coerce").to_numpy(dtype=np.float64)
        scaled, span = scaled_span(numbers)  # ±1e308 in a unit whose range fits, inf aside
    if numeric and is_number(release.dtype):
        # released numbers (microaggregated, noisy, swapped): each cell is the point it
        # names, so it holds its original only when equal to it, and a point costs 0
        released_numbers = pd.to_numeric(pd.Series(released_values), errors="coerce")
        point = released_numbers.to_numpy(dtype=np.float64)[pairs.released]
        own = np.append(numbers, np.nan)[own_value]
        same = (point == own) | (np.isnan(point) & np.isnan(own))
        outside = int(pairs.counts[~same].sum())
        return (None, outside) if outside else (np.zeros(len(pairs), dtype=np.float64), 0)
    penalty = np.zeros(n_labels, dtype=np.float64)
    holds_own = np.zeros(len(pairs), dtype=bool)
    block = max(1, _CELL_BLOCK // (m + 1))
    for start in range(0, n_labels, block):  # blocks of distinct released values
        stop = min(start + block, n_labels)
        cells = parse_column(
            pd.Series(released_values[start:stop], dtype=object), hierarchy=hierarchy
        )
        contains = cells.contains(values)[cells.codes]  # one row per released value
        chosen = np.flatnonzero((pairs.released >= start) & (pairs.released < stop))
        holds_own[chosen] = contains[pairs.released[chosen] - start, own_value[chosen]]
        present = contains[:, :m]
        if not m:  # every original value missing: no value to cover, no penalty
            part = np.zeros(stop - start)
        elif numeric:
            low = np.where(present, scaled, np.inf).min(axis=1)
            high = np.where(present, scaled, -np.inf).max(axis=1)
            with np.errstate(invalid="ignore"):
                width = np.where(high > low, high - low, 0.0)
            part = np.minimum(width / span, 1.0) if span > 0 else np.zeros(stop - start)
        else:
            count = present.sum(axis=1)
            part = np.where(count > 1, count / max(m, 1), 0.0)
        top = cells.kinds[cells.codes] == "any"  # ``*``: every value
        penalty[start:stop] = np.where(top, 1.0, part)
    outside = int(pairs.counts[~holds_own].sum())
    if outside:
        return None, outside
    return penalty[pairs.released], 0


@dataclass(frozen=True, eq=False)
class ColumnLoss:
    """What a measurement needs of one QI column (:func:`column_loss`).

    ``levels``: per row, the hierarchy level of its released cell (the smallest integer
    type), when every cell is a label of the column's hierarchy, else None;
    ``penalty``: Σ over rows of the cell's NCP, as Σ over pairs of rows × NCP (:func:`ncp`
    from the levels, or :func:`cell_ncp` from cells that contain their original values),
    None when neither reads the column; ``level_counts``: the rows at each level 0..height
    (with ``levels``); ``failure``: why there are no levels — "no_hierarchy",
    "hierarchy_error" (``detail``: the error's message) or "not_labels" (``detail``: the
    rows whose cell is no label) — or None.
    """

    levels: np.ndarray | None
    penalty: float | None
    level_counts: np.ndarray | None = None
    failure: str | None = None
    detail: str = ""


def column_loss(
    original: TableCodes,
    release: TableCodes,
    column: str,
    hierarchy: Hierarchy | None,
    *,
    pairs: ColumnPairs | None = None,
    weights: np.ndarray | None = None,
) -> ColumnLoss:
    """Levels and the NCP sum of one QI column from both tables' codes: its distinct
    (original, released) pairs are counted once (``pairs``, when the caller counted them
    already) and every rule runs on them (:func:`generalization_levels`, :func:`ncp`, and
    :func:`cell_ncp` where the cells are no labels of the hierarchy); per row there remain
    only the levels. The figures equal those of the per-row functions (the NCP sum up to
    the order of a float sum: Σ over pairs of rows × NCP). ``weights`` (the rows of a
    frequency set standing for several records; :func:`column_pairs`) make the NCP sum,
    the level counts and the count of cells that are no labels count records."""
    before, after = CodedColumn.of_table(original, column), CodedColumn.of_table(release, column)
    if pairs is None:
        pairs = column_pairs(before, after, weights=weights)
    failure, detail = "no_hierarchy", ""
    if hierarchy is not None:
        try:
            levels, leaf = _levels_of_pairs(pairs, before, after, hierarchy)
        except HierarchyError as exc:
            failure, detail = "hierarchy_error", exc.message
        else:
            bad = int(pairs.counts[levels < 0].sum())
            if not bad:
                ncp_of_pair = _ncp_of_pairs(pairs, leaf, levels, hierarchy, is_number(before.dtype))
                level_counts = code_counts(levels, hierarchy.height + 1, weights=pairs.counts)
                return ColumnLoss(
                    levels=compact_codes(levels, hierarchy.height + 1)[pairs.rows],
                    penalty=float(np.dot(pairs.counts, ncp_of_pair)),
                    level_counts=np.rint(level_counts).astype(np.int64),
                )
            failure, detail = "not_labels", str(bad)
    try:
        read, _ = _cell_ncp_of_pairs(pairs, before, after, hierarchy, str(column))
    except PrivcoreError:
        read = None
    penalty = None if read is None else float(np.dot(pairs.counts, read))
    return ColumnLoss(levels=None, penalty=penalty, failure=failure, detail=detail)


def gcp_of_sums(sums: Sequence[float], n: int) -> float:
    """GCP (:func:`gcp`) from each QI's Σ over rows of its NCP: Σ sums / (n · |QI|)."""
    if not len(sums):
        raise ParameterError("No quasi-identifier penalties were given.", code="measure.no_qi")
    if n == 0:
        return 0.0
    return float(sum(sums) / (n * len(sums)))


def gcp(ncps: Mapping[str, np.ndarray]) -> float:
    """Global certainty penalty GCP = Σ_QI Σ_rows NCP / (n · |QI|) (Xu et al. 2006):
    the mean NCP over all QI cells, in [0, 1]. Xu et al. weight each class's NCP by its
    size, which is the same as averaging over rows."""
    if not ncps:
        raise ParameterError("No quasi-identifier penalties were given.", code="measure.no_qi")
    arrays = [np.asarray(v, dtype=np.float64) for v in ncps.values()]
    if len({len(a) for a in arrays}) > 1:
        raise ParameterError(
            "The penalty arrays of the quasi-identifiers have different lengths.",
            code="measure.alignment",
        )
    n = len(arrays[0])
    if n == 0:
        return 0.0
    return float(sum(a.sum() for a in arrays) / (n * len(arrays)))


def precision(levels: Mapping[str, np.ndarray], hierarchies: Mapping[str, Hierarchy]) -> float:
    """Precision Prec = 1 − Σ_rows Σ_QIs (level / height) / (n · |QI|) (Sweeney 2002):
    1 when nothing is generalized, 0 when everything is suppressed."""
    checked, n = _checked(levels, hierarchies)
    if n == 0:
        return 1.0
    total = sum(float(lv.sum()) / hierarchies[name].height for name, lv in checked.items())
    return 1.0 - total / (n * len(checked))


def precision_of_counts(
    level_counts: Mapping[str, np.ndarray], hierarchies: Mapping[str, Hierarchy]
) -> float:
    """:func:`precision` from the rows at each level of each QI (``level_counts[q][g]``):
    Σ_rows level = Σ_g g · rows at g, the same whole numbers."""
    if not level_counts:
        raise ParameterError("No quasi-identifier levels were given.", code="measure.no_qi")
    n = int(next(iter(level_counts.values())).sum())
    if n == 0:
        return 1.0
    total = sum(
        float(np.dot(np.arange(len(counts)), counts)) / hierarchies[name].height
        for name, counts in level_counts.items()
    )
    return 1.0 - total / (n * len(level_counts))


def generalization_height(node: Sequence[int]) -> int:
    """Height of a full-domain generalization node: the sum of its levels (seed 003
    §20.3.1.1); nodes of equal height form one layer of the lattice."""
    return sum(_whole(level, "generalization level", 0) for level in node)
