"""Equivalence classes and the one seam every row-level group-by goes through.

An equivalence class (EC) is the set of rows with identical (generalized) QI values.
Each QI column is factorized to integer codes once; the codes are combined into one
int64 key (mixed radix) and the key is factorized again — O(n), no per-row Python.
Missing values are one value of their own (a missing QI matches only missing).
Suppressed rows (class id -1) are kept aside: they are counted, and they are excluded
from the k/l/t checks, as ARX does (SPEC §2).

Rows whose QIs are ALL ``*`` — the top-level group G — look the same in a file whether
an algorithm suppressed them or generalized them to the top of every hierarchy, and an
attacker cannot tell them apart. A release made here knows which: a suppressed row is a
row the method blanked in every QI (SPEC §13), whatever its rows would be as one class
— counted, left out of the classes and charged against the suppression limit — and a
row at ``*`` because its values were generalized to the top is a class. Every release
made here is read so (:func:`release_classes` with ``blanked``, the rows the algorithm
blanked: the anonymization report, and the measurement, report and attack pages of such
a release), and its count is the one figure of suppressed rows on every page.

A table read from a file does not say which rows were blanked. :func:`release_classes`
then reads G by one rule:

- G, taken as one equivalence class, satisfies every requested privacy model (k, l in
  its form, t in its distance): G is a real class (the lattice top) — counted in the
  classes, in k, l, t, C_avg and in discernibility as a class (|G|²); no row of G is
  suppressed;
- otherwise G is suppression (SPEC §2, as ARX): its rows get class -1, are excluded
  from the k/l/t checks, counted as suppressed, charged n each in discernibility, and
  count against the suppression limit;
- with no model requested (a plain measurement) nothing can fail, so G is a class.

Every model is checked on G with the table's own reference distribution Q (t-closeness),
so the decision depends on G and the table only, not on the other classes. The models'
declared capabilities decide the cheap cases without building a partition: G smaller
than the minimal class size a model implies fails it, and a model decided by size alone
(k-anonymity) needs nothing but |G|.
:func:`equivalence_classes` keeps the older reading — every all-``*`` row set aside as
suppressed, or the blanked ones of a release made here — for the attack simulators,
which treat those rows as one group apart.

Sensitive attributes are factorized once per table (:class:`SensitiveAttribute`) and
shared by all the partitions an algorithm tries; per-class value counts come from one
more combined key (:meth:`EquivalenceClasses.value_counts`).

The row-level seam
------------------
Every group-by, count, distinct or factorization over the rows of a table (the data
set, a release, a voter roll, a sample of perturbed values) goes through the named
operations below, so that another engine can replace pandas/numpy in this one place:

- codes of a column: :func:`factorize` (missing is a value), :func:`value_codes`
  (missing is -1), :func:`combine_codes` (one key for several columns),
  :class:`TableCodes` (each column of a table factorized once, in the smallest integer
  type, shared by every step that reads it) — from :mod:`privcore.data.codes`, which
  the data layer uses directly;
- the frequency set: :func:`group_rows` / :func:`group_keys` (distinct combinations,
  their first row and their counts; weighted rows roll a frequency set up);
- counts: :func:`code_counts` (rows per code, i.e. per class, value or bin),
  :func:`present_codes`, :func:`bin_counts`, :func:`value_counts` and
  :func:`n_distinct` of a column;
- sums per group: :func:`group_sums`, :func:`reduce_runs` (rows sorted by group);
- distinct rows: :func:`distinct`, :func:`distinct_rows`, :func:`distinct_tuples`,
  :func:`duplicated`; the rows of each group: :func:`members`;
- partitions: :func:`equivalence_classes`, :func:`release_classes`,
  :func:`classes_from_codes`, and per-class distributions of a sensitive attribute
  (:meth:`EquivalenceClasses.value_counts`, :meth:`~EquivalenceClasses.count_values`,
  :meth:`~EquivalenceClasses.distributions`, :class:`ValueCounts`).

The rule: an array with one entry per row of a table is grouped, counted or
deduplicated only here. Arrays with one entry per class, per distinct value or cell,
per (class, value) pair, per hierarchy label or leaf, per partition or per histogram
bin are not rows: work on them may stay in its module, and each such call carries a
``# not rows: …`` comment saying what it runs over (a test greps for the group-by calls
of numpy and pandas outside this module and :mod:`privcore.data.codes`, and fails on
one without it). What stays outside, and why:

- :mod:`privcore.models`: per-class measures over the (class, value) pairs of
  :class:`ValueCounts` (sorted orders of the recursive and ordered measures), the
  (class, node) pairs of the hierarchical distance, and the per-class verdict
  combinations of ``evaluate`` — all derived from the frequency set, none from rows;
- hierarchies and the loss tables built on them (:mod:`privcore.data.hierarchy`,
  :mod:`privcore.measure.loss`, the lattice's NCP tables, KACA's and Mondrian's node
  numbering): one entry per leaf or label;
- released cells (:mod:`privcore.data.cells`, :mod:`privcore.matching`,
  :mod:`privcore.measure.report`): one entry per distinct cell or value, or per class;
- Mondrian's per-bin distinct counts and per-partition labels.

Sorting rows (Mondrian moves a partition's rows and reads medians from a sorted copy;
condensation permutes rows within groups), lookups (``searchsorted`` joins in the
matching, ``get_indexer``, ``isin``) and the LDP audits, which work on tensors of
mechanism samples rather than on table rows, are outside the rule.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Protocol

import numpy as np
import pandas as pd

from privcore.data.codes import (
    SUPPRESSED,
    TableCodes,
    code_dtype,
    combine_codes,
    compact_codes,
    duplicated,
    factorize,
    n_distinct,
    value_codes,
    value_counts,
)
from privcore.data.hierarchy import Hierarchy
from privcore.errors import ParameterError, RoleError

__all__ = [
    "SUPPRESSED",
    "ClassConstraint",
    "EquivalenceClasses",
    "Groups",
    "SensitiveAttribute",
    "TableCodes",
    "ValueCounts",
    "bin_counts",
    "checked_blanked",
    "classes_from_codes",
    "code_counts",
    "code_dtype",
    "combine_codes",
    "compact_codes",
    "distinct",
    "distinct_rows",
    "distinct_tuples",
    "duplicated",
    "equivalence_classes",
    "factorize",
    "group_keys",
    "group_rows",
    "group_sums",
    "members",
    "n_distinct",
    "one_class",
    "passes_as_one_class",
    "present_codes",
    "reduce_runs",
    "release_classes",
    "sensitive_attributes",
    "suppressed_rows",
    "top_rows",
    "value_codes",
    "value_counts",
]

_DENSE_CELLS = 4_000_000  # cells per chunk when per-class distributions are made dense


# --------------------------------------------------------------------------- row operations


@dataclass(frozen=True, eq=False)
class Groups:
    """Rows grouped by equal keys (a frequency set when the keys are QI/SA tuples).

    ``ids[i]`` is the group of row i, groups numbered 0..m-1 in order of first
    appearance; ``counts[j]`` the rows of group j, or the sum of their weights when rows
    stand for several records; ``first[j]`` its first row (found when first asked).
    """

    ids: np.ndarray
    counts: np.ndarray

    @property
    def n_groups(self) -> int:
        return len(self.counts)

    @cached_property
    def first(self) -> np.ndarray:
        return _first_occurrence(self.ids)


def group_keys(key: np.ndarray, *, weights: np.ndarray | None = None) -> Groups:
    """Group rows by an int64 key (hash-based, O(n)); ``weights`` (whole numbers, one per
    row) make each row stand for that many records, so a frequency set rolls up into a
    coarser one without a rescan of the table."""
    ids, uniques = pd.factorize(key)
    ids = ids.astype(np.int64, copy=False)
    counts = np.bincount(ids, weights=weights, minlength=len(uniques))
    if weights is not None:
        counts = np.rint(counts).astype(np.int64)
    return Groups(ids, counts)


def group_rows(
    columns: Sequence[np.ndarray],
    cardinalities: Sequence[int],
    *,
    weights: np.ndarray | None = None,
) -> Groups:
    """The frequency set of integer-coded columns (codes 0..cardinality-1 each): the
    distinct combinations, the first row holding each, and their counts (SPEC §9)."""
    return group_keys(combine_codes(columns, cardinalities), weights=weights)


def code_counts(codes: np.ndarray, size: int, *, weights: np.ndarray | None = None) -> np.ndarray:
    """Rows holding each code 0..size-1 (codes ≥ 0: one per row; a class, a value or a
    bin), or the sum of their ``weights``: int64 counts, float64 sums."""
    return np.bincount(codes, weights=weights, minlength=size)


def present_codes(codes: np.ndarray, size: int) -> np.ndarray:
    """The codes among 0..size-1 that some row holds, in increasing order (negative
    codes — missing — are left out)."""
    return np.flatnonzero(np.bincount(codes[codes >= 0], minlength=size))


def bin_counts(values: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Rows whose value lies in each bin [edges[i], edges[i+1]) (the last bin closed),
    as :func:`numpy.histogram` counts them."""
    return np.histogram(values, bins=edges)[0]


def group_sums(group: np.ndarray, n_groups: int, values: np.ndarray) -> np.ndarray:
    """Σ of ``values`` over the rows of each group 0..n_groups-1: one sum per group for a
    1-D array, one row of column sums per group for an (n × d) matrix. Rows are added in
    row order."""
    values = np.asarray(values, dtype=np.float64)
    if values.ndim == 1:
        return np.bincount(group, weights=values, minlength=n_groups)
    sums = np.zeros((n_groups, values.shape[1]))
    for j in range(values.shape[1]):  # a loop over columns, each one pass over the rows
        sums[:, j] = np.bincount(group, weights=values[:, j], minlength=n_groups)
    return sums


def reduce_runs(values: np.ndarray, starts: np.ndarray, how: str, *, axis: int = -1) -> np.ndarray:
    """Minimum, maximum or sum (``how``) of each run of rows along ``axis``, the rows
    sorted by group so that group j is the run starting at ``starts[j]`` (increasing)."""
    reduce = {"min": np.minimum, "max": np.maximum, "sum": np.add}[how]
    return reduce.reduceat(values, starts, axis=axis)


def members(group: np.ndarray, n_groups: int) -> list[np.ndarray]:
    """The rows of each group 0..n_groups-1, each in row order (rows with a negative
    group — suppressed — belong to none)."""
    group = np.asarray(group)
    if len(group) and group.min() < 0:
        kept = np.flatnonzero(group >= 0)
        order = kept[np.argsort(group[kept], kind="stable")]
        sizes = np.bincount(group[kept], minlength=n_groups)
    else:
        order = np.argsort(group, kind="stable")
        sizes = np.bincount(group, minlength=n_groups)
    return list(np.split(order, np.cumsum(sizes)[:-1]))


def distinct(
    values: np.ndarray,
    *,
    return_index: bool = False,
    return_inverse: bool = False,
    return_counts: bool = False,
):
    """The distinct values of a 1-D array in increasing order, with (as asked) the first
    row of each, each row's position among them and the rows holding each
    (:func:`numpy.unique`)."""
    return np.unique(
        values,
        return_index=return_index,
        return_inverse=return_inverse,
        return_counts=return_counts,
    )


def distinct_rows(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(distinct rows of an n × d matrix in lexicographic order, each row's index among
    them as int64)."""
    rows, inverse = np.unique(matrix, axis=0, return_inverse=True)
    return rows, inverse.ravel().astype(np.int64)


def distinct_tuples(frame: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """The distinct tuples of ``columns`` in ``frame`` (first occurrence of each, in row
    order, with its index)."""
    return frame[list(columns)].drop_duplicates()


@dataclass(frozen=True, eq=False)
class SensitiveAttribute:
    """A sensitive column factorized over the whole table.

    ``codes`` per row index ``values`` (in the smallest integer type that holds them);
    ``rank`` gives each code's position in the ordered domain (numeric order for numbers,
    text order otherwise) used by the ordered distance; ``hierarchy`` (optional) serves
    the hierarchical distance.
    """

    name: str
    codes: np.ndarray
    values: np.ndarray
    numeric: bool
    rank: np.ndarray
    hierarchy: Hierarchy | None = None
    weights: np.ndarray | None = None  # multiplicity of each row (frequency sets)

    @classmethod
    def from_series(
        cls, series: pd.Series, hierarchy: Hierarchy | None = None
    ) -> SensitiveAttribute:
        codes, values = factorize(series)
        codes = compact_codes(codes, len(values))
        return cls.from_codes(str(series.name), codes, values, series.dtype, hierarchy)

    @classmethod
    def from_codes(
        cls,
        name: str,
        codes: np.ndarray,
        values: np.ndarray,
        dtype: object,
        hierarchy: Hierarchy | None = None,
    ) -> SensitiveAttribute:
        """The attribute from a column already factorized (:func:`factorize`'s codes and
        distinct values; ``dtype``: the column's type, which decides numeric order)."""
        numeric = bool(pd.api.types.is_numeric_dtype(dtype))
        present = pd.Series(values)
        if numeric:
            order = np.argsort(
                pd.to_numeric(present, errors="coerce").to_numpy(float), kind="stable"
            )
        else:
            # Text order; a missing value sorts last (it has no text to compare).
            text = np.array(["\U0010ffff" if pd.isna(v) else str(v) for v in values], dtype=object)
            order = np.argsort(text, kind="stable")
        rank = np.empty(len(values), dtype=np.int64)
        rank[order] = np.arange(len(values))
        return cls(name, codes, values, numeric, rank, hierarchy)

    @property
    def n_values(self) -> int:
        return len(self.values)

    @cached_property
    def distribution(self) -> np.ndarray:
        """Q: the share of each value over every row of the table, suppressed rows
        included (their sensitive values are released too) — t-closeness's reference."""
        counts = np.bincount(self.codes, weights=self.weights, minlength=self.n_values)
        return counts.astype(float) / counts.sum()

    def regrouped(self, codes: np.ndarray, weights: np.ndarray | None) -> SensitiveAttribute:
        """The same attribute over other rows (e.g. the groups of a frequency set),
        keeping the table's values, order, hierarchy and — unless the new weights
        reproduce it — its distribution Q."""
        clone = SensitiveAttribute(
            self.name, codes, self.values, self.numeric, self.rank, self.hierarchy, weights
        )
        clone.__dict__["distribution"] = self.distribution
        return clone


def sensitive_attributes(
    frame: pd.DataFrame,
    columns: Sequence[str],
    hierarchies: Mapping[str, Hierarchy] | None = None,
    *,
    codes: TableCodes | None = None,
) -> dict[str, SensitiveAttribute]:
    """Factorize each sensitive column once (shared by every partition of the table);
    ``codes``: the table's columns already factorized (:class:`TableCodes`)."""
    hierarchies = hierarchies or {}
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise RoleError(
            f"The table has no column {', '.join(missing)}.",
            code="roles.unknown_columns",
            columns=missing,
        )
    if codes is None:
        return {c: SensitiveAttribute.from_series(frame[c], hierarchies.get(c)) for c in columns}
    return {
        c: SensitiveAttribute.from_codes(
            str(c), codes.codes(c), codes.uniques(c), frame[c].dtype, hierarchies.get(c)
        )
        for c in columns
    }


@dataclass(frozen=True)
class ValueCounts:
    """Counts of each (class, sensitive value) pair present, sorted by class then value.

    ``starts[j]`` is the offset of class j's first pair; classes are 0..n_classes-1.
    """

    cls: np.ndarray
    value: np.ndarray
    count: np.ndarray
    starts: np.ndarray

    @property
    def n_classes(self) -> int:
        return len(self.starts)

    def per_class(self, values: np.ndarray | None = None) -> np.ndarray:
        """Σ of ``values`` (one per pair) over the pairs of each class; without
        ``values``, the number of pairs of each class (its distinct values)."""
        return np.bincount(self.cls, weights=values, minlength=self.n_classes)

    def class_max(self, values: np.ndarray | None = None) -> np.ndarray:
        """The largest of ``values`` (one per pair; default the counts) in each class."""
        values = self.count if values is None else values
        if self.n_classes == 0:
            return np.zeros(0, dtype=values.dtype)
        return np.maximum.reduceat(values, self.starts)


@dataclass(frozen=True, eq=False)
class EquivalenceClasses:
    """A partition of the rows into equivalence classes.

    ``ids[i]`` is the class of row i (-1: suppressed); ``sizes[j]`` the size of class j;
    ``first_row[j]`` a representative row of class j (its QI values name the class).
    """

    ids: np.ndarray
    sizes: np.ndarray
    first_row: np.ndarray
    qi: tuple[str, ...]
    sensitive: Mapping[str, SensitiveAttribute] = field(default_factory=dict)
    weights: np.ndarray | None = None  # rows standing for several records (frequency sets)

    @property
    def n_rows(self) -> int:
        """Records partitioned (the sum of the weights when rows are weighted)."""
        return len(self.ids) if self.weights is None else int(self.weights.sum())

    @property
    def n_classes(self) -> int:
        return len(self.sizes)

    @cached_property
    def suppressed(self) -> np.ndarray:
        return self.ids < 0

    @property
    def n_suppressed(self) -> int:
        if self.weights is None:
            return int(self.suppressed.sum())
        return int(self.weights[self.suppressed].sum())

    @property
    def row_sizes(self) -> np.ndarray:
        """Size of each row's class (0 for suppressed rows)."""
        out = np.zeros(len(self.ids), dtype=np.int64)
        kept = ~self.suppressed
        out[kept] = self.sizes[self.ids[kept]]
        return out

    def attribute(self, name: str) -> SensitiveAttribute:
        try:
            return self.sensitive[name]
        except KeyError as exc:
            raise RoleError(
                f"'{name}' is not a sensitive attribute of this partition.",
                code="roles.not_sensitive",
                column=name,
            ) from exc

    def value_counts(self, name: str) -> ValueCounts:
        """Per (class, value) counts of sensitive attribute ``name`` (cached)."""
        cache = self.__dict__.setdefault("_value_counts", {})
        if name not in cache:
            cache[name] = self._count_pairs(self.attribute(name))
        return cache[name]

    def _count_pairs(self, attribute: SensitiveAttribute) -> ValueCounts:
        return self.count_values(attribute.codes, attribute.n_values)

    def count_values(self, codes: np.ndarray, n_values: int) -> ValueCounts:
        """Per (class, value) counts of any per-row ``codes`` 0..n_values-1 (suppressed
        rows left out), sorted by class then code; the rows' weights count."""
        kept = ~self.suppressed
        m = max(int(n_values), 1)
        key = self.ids[kept] * m + np.asarray(codes)[kept]
        weights = None if self.weights is None else self.weights[kept]
        if self.n_classes * m <= 8 * max(len(key), 1) + 1024:
            dense = np.bincount(key, weights=weights, minlength=self.n_classes * m)
            pairs = np.flatnonzero(dense)
            counts = dense[pairs]
        elif weights is None:
            pairs, counts = np.unique(key, return_counts=True)
        else:
            pairs, inverse = np.unique(key, return_inverse=True)
            counts = np.bincount(inverse, weights=weights)
        cls = pairs // m
        starts = np.searchsorted(cls, np.arange(self.n_classes))
        return ValueCounts(cls, pairs % m, np.rint(counts).astype(np.int64), starts)

    def distributions(self, name: str, *, order: str = "code") -> Iterator[tuple[int, np.ndarray]]:
        """Per-class value distributions as dense row blocks: yields (first class, P).

        P[i, v] is the share of value v in class first+i. ``order="rank"`` puts columns
        in the ordered domain (for the ordered distance). Blocks hold at most about
        4 million cells, so memory stays bounded for large domains.
        """
        counts = self.value_counts(name)
        attribute = self.attribute(name)
        m = max(attribute.n_values, 1)
        column = attribute.rank[counts.value] if order == "rank" else counts.value
        block = max(1, _DENSE_CELLS // m)
        for first in range(0, self.n_classes, block):
            last = min(first + block, self.n_classes)
            lo, hi = (
                counts.starts[first],
                (counts.starts[last] if last < self.n_classes else len(counts.cls)),
            )
            matrix = np.zeros((last - first, m))
            np.add.at(matrix, (counts.cls[lo:hi] - first, column[lo:hi]), counts.count[lo:hi])
            matrix /= self.sizes[first:last, None]
            yield first, matrix

    def members(self) -> list[np.ndarray]:
        """The rows of each class, in row order (suppressed rows belong to none)."""
        return members(self.ids, self.n_classes)

    def class_keys(self, frame: pd.DataFrame) -> pd.DataFrame:
        """The QI values naming each class (from its representative row)."""
        return frame.iloc[self.first_row][list(self.qi)].reset_index(drop=True)


def _is_suppressed(factorized: Sequence[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """Rows whose every QI is ``*``, from the factorized QIs (one integer comparison
    per column: the code of ``*`` among that column's distinct values)."""
    n = len(factorized[0][0])
    mask = np.ones(n, dtype=bool)
    for codes, uniques in factorized:
        star = pd.Index(uniques, dtype=object).get_indexer([SUPPRESSED])[0]
        if star < 0:
            return np.zeros(n, dtype=bool)
        mask &= codes == star
    return mask


def top_rows(
    frame: pd.DataFrame,
    qi: Sequence[str],
    *,
    codes: TableCodes | None = None,
    classes: EquivalenceClasses | None = None,
) -> np.ndarray:
    """Boolean per row: every QI of the row is ``*`` (the group G of the module
    docstring, whether it turns out to be a class or suppression). ``codes``: the
    table's columns already factorized (:class:`TableCodes`); ``classes``: the table's
    equivalence classes over ``qi`` (:func:`release_classes`), from which G is read
    without going over the rows' values again — its rows are the suppressed ones, or
    the class whose representative row shows ``*`` in every QI."""
    if classes is None:
        _, factorized, _ = _prepared(frame, qi, (), None, codes)
        return _is_suppressed(factorized)
    top = classes.suppressed.copy()  # suppressed rows show '*' in every QI
    starred = np.ones(classes.n_classes, dtype=bool)  # per class: its QIs are all '*'
    for column in qi:
        cells = np.asarray(frame[column].iloc[classes.first_row], dtype=object)
        starred &= cells == SUPPRESSED
    at_top = np.flatnonzero(starred)
    if len(at_top):
        top |= classes.ids == at_top[0]
    return top


class ClassConstraint(Protocol):
    """What :func:`release_classes` needs of a privacy model (:mod:`privcore.models`):
    the per-class check and two declared capabilities — the fewest records a class
    needs to pass, and whether that size alone decides."""

    @property
    def minimal_class_size(self) -> int: ...

    @property
    def size_only(self) -> bool: ...

    def class_pass(self, classes: EquivalenceClasses) -> np.ndarray: ...


def one_class(
    rows: np.ndarray,
    *,
    qi: Sequence[str],
    sensitive: Mapping[str, SensitiveAttribute],
    weights: np.ndarray | None = None,
) -> EquivalenceClasses:
    """The rows ``rows`` (indices into the table) as a partition of one class.

    The sensitive attributes are regrouped to those rows and keep the table's
    distribution Q, so t-closeness measures the class against the whole table.
    ``weights`` (one per row of ``rows``) makes each row stand for that many records.
    """
    rows = np.asarray(rows, dtype=np.int64)
    size = len(rows) if weights is None else int(np.asarray(weights).sum())
    return EquivalenceClasses(
        ids=np.zeros(len(rows), dtype=np.int64),
        sizes=np.array([size], dtype=np.int64),
        first_row=np.zeros(1, dtype=np.int64),
        qi=tuple(qi),
        sensitive={
            name: attribute.regrouped(attribute.codes[rows], weights)
            for name, attribute in sensitive.items()
        },
        weights=weights,
    )


def passes_as_one_class(
    models: Sequence[ClassConstraint],
    rows: np.ndarray,
    *,
    qi: Sequence[str],
    sensitive: Mapping[str, SensitiveAttribute],
    weights: np.ndarray | None = None,
) -> bool:
    """Whether the rows ``rows``, taken as one equivalence class, meet every model
    (True when no model is given; False for no rows and a model to meet). A class below
    a model's minimal class size fails it and a size-only model passes on size, without
    building the one-class partition."""
    if not models:
        return True
    if len(rows) == 0:
        return False
    size = len(rows) if weights is None else int(np.asarray(weights).sum())
    if size < max(model.minimal_class_size for model in models):
        return False
    rest = [model for model in models if not model.size_only]  # the others pass by size
    if not rest:
        return True
    single = one_class(rows, qi=qi, sensitive=sensitive, weights=weights)
    return all(bool(model.class_pass(single)[0]) for model in rest)


def release_classes(
    frame: pd.DataFrame,
    qi: Sequence[str],
    sensitive: Sequence[str] | Mapping[str, SensitiveAttribute] = (),
    *,
    models: Sequence[ClassConstraint] = (),
    hierarchies: Mapping[str, Hierarchy] | None = None,
    codes: TableCodes | None = None,
    weights: np.ndarray | None = None,
    blanked: np.ndarray | None = None,
) -> EquivalenceClasses:
    """Equivalence classes of a released table, the rows whose QIs are all ``*`` read
    by the rule of this module's docstring.

    ``blanked`` (a boolean per row, or None): the rows the method that made the release
    blanked. Given, the suppressed rows are exactly the blanked rows whose QIs are all
    ``*`` (:func:`suppressed_rows`), and every other row — one generalized to the top
    included — is in a class. Without it (a table read from a file), G is read as
    follows.

    Those rows form one group G. G is a real class (the lattice top) when, taken as one
    equivalence class, it meets every model of ``models`` — always when ``models`` is
    empty; otherwise G is suppression: its rows get class id -1, are counted as
    suppressed and are left out of the model checks. Every other class is the set of
    rows with identical QI values (missing is one value). ``sensitive`` and
    ``hierarchies`` are as for :func:`equivalence_classes`; ``codes`` gives the table's
    columns already factorized (:class:`TableCodes`, shared with the other steps of a
    measurement). ``weights`` (whole numbers, one per row) make ``frame`` a frequency set:
    each row stands for that many records, in the class sizes, the sensitive values'
    counts and their distribution over the table.
    """
    qi, factorized, sensitive = _prepared(frame, qi, sensitive, hierarchies, codes)
    if weights is not None:
        weights = np.asarray(weights, dtype=np.int64)
        # the same values, each row counted ``weight`` times, Q too
        sensitive = {n: replace(a, weights=weights) for n, a in sensitive.items()}
    top = _is_suppressed(factorized)
    suppressed = None
    if blanked is not None:
        suppressed = top & checked_blanked(blanked, len(top))
    elif top.any():
        rows = np.flatnonzero(top)
        if not passes_as_one_class(
            list(models),
            rows,
            qi=qi,
            sensitive=sensitive,
            weights=None if weights is None else weights[rows],
        ):
            suppressed = top
    return classes_from_codes(
        [c for c, _ in factorized],
        [len(u) for _, u in factorized],
        qi=qi,
        suppressed=suppressed,
        sensitive=sensitive,
        weights=weights,
    )


def checked_blanked(blanked: Any, n_rows: int) -> np.ndarray:
    """``blanked`` as a boolean per row of a table of ``n_rows`` rows, or a
    :class:`~privcore.errors.ParameterError` ``release.bad_blanked``."""
    array = np.asarray(blanked)
    if array.shape != (n_rows,) or array.dtype != bool:
        raise ParameterError(
            f"The rows a method blanked must be one true/false value per released row "
            f"({n_rows}), got {array.dtype} of shape {array.shape}.",
            code="release.bad_blanked",
            rows=n_rows,
        )
    return array


def suppressed_rows(
    frame: pd.DataFrame, qi: Sequence[str], blanked: np.ndarray | None = None
) -> np.ndarray:
    """The suppressed rows of a release (module docstring), as a boolean per row: the
    rows whose QIs are all ``*`` and, when ``blanked`` is given (the rows the method
    blanked), among them. Without ``blanked`` every row at ``*`` in every QI — the
    reading of the attack simulators, which cannot tell how a row came to be ``*``."""
    top = top_rows(frame, qi)
    return top if blanked is None else top & checked_blanked(blanked, len(top))


def classes_from_codes(
    codes: Sequence[np.ndarray],
    cardinalities: Sequence[int],
    *,
    qi: Sequence[str],
    suppressed: np.ndarray | None = None,
    sensitive: Mapping[str, SensitiveAttribute] | None = None,
    weights: np.ndarray | None = None,
) -> EquivalenceClasses:
    """Partition from per-QI integer codes (what the anonymization lattice produces).

    Rows flagged in ``suppressed`` get class -1 and do not form a class. ``weights``
    (int per row) makes each row stand for that many records: the rows of a frequency
    set, whose class sizes and value counts are then weighted.
    """
    key = combine_codes(codes, cardinalities)
    n = len(key)
    if suppressed is not None and suppressed.any():
        kept = np.flatnonzero(~suppressed)
        sub_ids, _ = pd.factorize(key[kept])
        ids = np.full(n, -1, dtype=np.int64)
        ids[kept] = sub_ids
        first_row = kept[_first_occurrence(sub_ids)]
    else:
        ids, _ = pd.factorize(key)
        ids = ids.astype(np.int64, copy=False)
        first_row = _first_occurrence(ids)
    n_classes = len(first_row)
    kept = ids >= 0
    sizes = np.bincount(
        ids[kept], weights=None if weights is None else weights[kept], minlength=n_classes
    )
    sizes = np.rint(sizes).astype(np.int64)
    return EquivalenceClasses(ids, sizes, first_row, tuple(qi), dict(sensitive or {}), weights)


def _first_occurrence(ids: np.ndarray) -> np.ndarray:
    """Index of the first row of each class id 0..m-1 (pd.factorize numbers classes
    in order of first appearance, so the first rows are found by one pass)."""
    if len(ids) == 0:
        return np.zeros(0, dtype=np.int64)
    m = int(ids.max()) + 1
    first = np.full(m, len(ids), dtype=np.int64)
    np.minimum.at(first, ids, np.arange(len(ids)))
    return first


def equivalence_classes(
    frame: pd.DataFrame,
    qi: Sequence[str],
    sensitive: Sequence[str] | Mapping[str, SensitiveAttribute] = (),
    *,
    hierarchies: Mapping[str, Hierarchy] | None = None,
    blanked: np.ndarray | None = None,
) -> EquivalenceClasses:
    """Equivalence classes of ``frame`` over the columns ``qi``.

    ``sensitive`` names the sensitive columns (or passes them already factorized);
    ``hierarchies`` gives sensitive attributes their hierarchy for the hierarchical
    t-closeness distance. Rows whose QIs are all ``*`` are set aside as suppressed,
    whatever they are — unless ``blanked`` (the rows the method that made the release
    blanked, a boolean per row) says which of them are: then only those
    (:func:`suppressed_rows`). A release's classes under the models, where those rows
    may be a real class, come from :func:`release_classes`.
    """
    qi, factorized, sensitive = _prepared(frame, qi, sensitive, hierarchies)
    codes = [c for c, _ in factorized]
    cards = [len(u) for _, u in factorized]
    top = _is_suppressed(factorized)
    if blanked is not None:
        top &= checked_blanked(blanked, len(top))
    return classes_from_codes(codes, cards, qi=qi, suppressed=top, sensitive=sensitive)


def _prepared(
    frame: pd.DataFrame,
    qi: Sequence[str],
    sensitive: Sequence[str] | Mapping[str, SensitiveAttribute],
    hierarchies: Mapping[str, Hierarchy] | None,
    codes: TableCodes | None = None,
) -> tuple[list[str], list[tuple[np.ndarray, np.ndarray]], Mapping[str, SensitiveAttribute]]:
    """Checked QI names, the factorized QIs, and the factorized sensitive attributes
    (read from ``codes`` when given, else factorized here)."""
    qi = [str(c) for c in qi]
    unknown = [c for c in qi if c not in frame.columns]
    if unknown:
        raise RoleError(
            f"The table has no column {', '.join(unknown)}.",
            code="roles.unknown_columns",
            columns=unknown,
        )
    if not qi:
        raise RoleError("Choose at least one quasi-identifier.", code="roles.no_qi")
    if codes is None:  # each column's codes in the smallest integer type, one at a time
        factorized = [(compact_codes(c, len(u)), u) for c, u in (factorize(frame[c]) for c in qi)]
    else:
        factorized = [(codes.codes(c), codes.uniques(c)) for c in qi]
    if not isinstance(sensitive, Mapping):
        sensitive = sensitive_attributes(frame, list(sensitive), hierarchies, codes=codes)
    return qi, factorized, sensitive
