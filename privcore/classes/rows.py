"""Row operations: grouping rows by a key (the frequency set), counts and sums per code
or group, the rows of each group and distinct values, rows and tuples — the named
operations of the row-level seam (:mod:`privcore.classes`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from privcore.data.codes import combine_codes


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


#: Key combinations up to which :func:`first_and_sums` counts in place.
DENSE_SPAN = 1 << 20


def first_and_sums(
    columns: Sequence[np.ndarray], cardinalities: Sequence[int], weights: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The groups of rows with equal codes (0..cardinality−1 per column): each group's
    first row and its summed ``weights`` (whole numbers), groups in order of their first
    row. When the codes span few combinations (at most :data:`DENSE_SPAN`, and at most
    16 per row) they are counted in place — one count per combination, no hashing —,
    else grouped by hashing (:func:`group_rows`): the same groups, order and sums."""
    span = math.prod(max(int(c), 1) for c in cardinalities)
    n = len(weights)
    if span > min(DENSE_SPAN, max(16 * n, 1 << 16)):
        groups = group_rows(columns, cardinalities, weights=weights)
        return groups.first, groups.counts
    key = combine_codes(columns, cardinalities)
    sums = np.bincount(key, weights=weights, minlength=span)
    first_at = np.full(span, n, dtype=np.int64)
    np.minimum.at(first_at, key, np.arange(n))
    present = np.flatnonzero(first_at < n)
    chosen = present[np.argsort(first_at[present])]
    return first_at[chosen], np.rint(sums[chosen]).astype(np.int64)


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
    (:func:`numpy.unique`). Integer values alone are sorted and their runs kept: the same
    answer as numpy's hash table, which is many times slower on many distinct values."""
    values = np.asarray(values)
    if values.dtype.kind in "iub" and not (return_index or return_inverse or return_counts):
        ordered = np.sort(values.ravel())
        return ordered[np.r_[True, ordered[1:] != ordered[:-1]]] if len(ordered) else ordered
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


def _first_occurrence(ids: np.ndarray) -> np.ndarray:
    """Index of the first row of each class id 0..m-1 (pd.factorize numbers classes
    in order of first appearance, so the first rows are found by one pass)."""
    if len(ids) == 0:
        return np.zeros(0, dtype=np.int64)
    m = int(ids.max()) + 1
    first = np.full(m, len(ids), dtype=np.int64)
    np.minimum.at(first, ids, np.arange(len(ids)))
    return first
