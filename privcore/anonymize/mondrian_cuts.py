"""Mondrian's cuts: where a partition lies on each QI, and where to cut it in two.

A partition is cut along the QI with the largest normalized span, at its median (a
numeric or set QI) or between two children of its lowest common ancestor (a QI with a
hierarchy); the cut is kept only when both halves pass the check, else the next QI by
span is tried; a partition no QI can cut is final (:mod:`privcore.anonymize.mondrian`).
Sizes, medians and the checks count records (rows weighted by their records).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from privcore.anonymize.base import Progress, report_progress
from privcore.anonymize.mondrian_dimensions import HIERARCHY, NUMERIC, SET, Dimension
from privcore.classes import code_counts
from privcore.data.codes import code_dtype

_PROGRESS_EVERY = 200  # partitions between two progress reports
Check = Callable[[np.ndarray, np.ndarray, np.ndarray | None], bool]
Cut = tuple[int, int, int]  # (QI, threshold: codes ≤ it go left, records left)

# A partition's codes on one QI are summarised by a cumulative histogram, a Python list
# ``below`` with ``below[o + x] - base`` = rows with code ≤ x. QIs with small domains
# share one histogram over the whole code space (one bincount for all of them per
# partition); a QI with a large domain gets its own over the partition's code range, or,
# when that range is much wider than the partition, a sorted copy of its codes instead.
_SHARED_DOMAIN = 1024  # QIs with at most this many values share the histogram
_SHARED_BINS = 8192  # … up to this many bins in all


@dataclass
class Extent:
    """Where one QI of one partition lies: codes a..b, and its histogram (``below``,
    offset ``o``, ``base``) or, for a sparse range, its sorted codes."""

    a: int
    b: int
    below: list[int] | None = None
    o: int = 0
    base: int = 0
    ordered: np.ndarray | None = None
    distinct: int = 0  # distinct codes (categorical QIs without a hierarchy only)
    cumulative: np.ndarray | None = None  # weighted: 0, then records up to each sorted code

    def rows_up_to(self, x: int) -> int:
        return self.below[self.o + x] - self.base

    def rows_below(self, codes: Any) -> Any:
        """Records with a code < each of ``codes`` (sorted codes only)."""
        at = self.ordered.searchsorted(codes)
        return at if self.cumulative is None else self.cumulative[at]

    def median(self, size: int) -> int:
        """The lower median's code (sorted codes only): the first code with at least
        ⌈size/2⌉ records ≤ it — a weighted median when rows stand for several records."""
        if self.cumulative is None:
            return int(self.ordered[(size - 1) // 2])
        return int(self.ordered[int(self.cumulative.searchsorted((size + 1) // 2)) - 1])


def span(dim: Dimension, e: Extent) -> float:
    """Normalized span of a partition on one QI (codes a < b)."""
    a, b = e.a, e.b
    if dim.kind == NUMERIC:
        if b == dim.missing:
            return 1.0  # numbers mixed with missing values: split those off first
        return (dim.number_list[b] - dim.number_list[a]) / dim.scale
    if dim.kind == HIERARCHY:
        return dim.node_size[dim.ancestor(a, b)] / dim.base
    return e.distinct / dim.base


def cuts(dim: Dimension, e: Extent, size: int) -> list[tuple[int, int, int]]:
    """Candidate cuts ``(−smaller side, threshold, rows left)``: codes ≤ threshold go
    left. Most balanced first; every candidate leaves rows on both sides."""
    a, b = e.a, e.b
    if dim.kind == HIERARCHY:
        # Between two children of the lowest common ancestor, never inside one.
        starts = dim.node_starts[dim.ancestor(a, b)]
        starts = starts[bisect_right(starts, a) : bisect_right(starts, b)]
        if e.below is not None:
            pairs = [(s - 1, e.rows_up_to(s - 1)) for s in starts]
        else:
            counts = e.rows_below(starts).tolist()  # rows < s
            pairs = [(s - 1, c) for s, c in zip(starts, counts, strict=True)]
    elif e.below is not None:
        # The lower median's code x: the first with at least ⌈size/2⌉ rows ≤ x.
        o = e.o
        x = bisect_left(e.below, e.base + (size + 1) // 2, o + a, o + b) - o
        pairs = [(x, e.rows_up_to(x)), (x - 1, e.rows_up_to(x - 1) if x > a else 0)]
    else:
        median = e.median(size)
        pairs = [(median, int(e.rows_below(median + 1))), (median - 1, int(e.rows_below(median)))]
    candidates = [(-min(n, size - n), t, n) for t, n in pairs if 0 < n < size]
    candidates.sort()
    return candidates


class _Histograms:
    """How the extents of a partition's QIs are read (see :class:`Extent`): QIs with
    small domains share one cumulative histogram over the whole code space, one
    bincount for all of them per partition; each other QI gets its own histogram over
    the partition's code range, or its sorted codes when that range is much wider than
    the partition."""

    def __init__(self, dims: list[Dimension], dtype: np.dtype) -> None:
        self.dims = dims
        shared = [q for q, dim in enumerate(dims) if dim.n_values <= _SHARED_DOMAIN]
        while sum(dims[q].n_values for q in shared) > _SHARED_BINS:
            shared.pop()
        self.shared = shared
        self.own = [q for q in range(len(dims)) if q not in shared]
        offsets = np.cumsum([0] + [dims[q].n_values for q in shared])
        self.bins = int(offsets[-1])
        # the shifted codes reach ``bins`` - 1: a type wide enough for them and the codes
        self.shift = offsets[:-1, None].astype(np.result_type(dtype, code_dtype(self.bins)))
        self.shared_rows = slice(None) if not self.own else np.asarray(shared)
        self.starts = offsets[:-1]
        self.starts_list = offsets.tolist()
        self.count_distinct = any(dims[q].kind == SET for q in shared)

    def extents(self, block: np.ndarray, w: np.ndarray | None, size: int) -> list[Extent]:
        """Every QI's extent in the partition ``block`` (QI × its rows; ``w``: records
        per row, None: one each) of ``size`` records."""
        extents: list[Extent | None] = [None] * len(self.dims)
        if self.shared:
            self._shared_extents(block, w, size, extents)
        for q in self.own:
            extents[q] = self._own_extent(self.dims[q], block[q], w)
        return extents

    def _shared_extents(
        self, block: np.ndarray, w: np.ndarray | None, size: int, extents: list
    ) -> None:
        shared = self.shared
        histogram = code_counts(
            (block[self.shared_rows] + self.shift).ravel(),
            self.bins,
            weights=None if w is None else np.tile(w, len(shared)),
        )
        if w is not None:
            histogram = np.rint(histogram).astype(np.int64)
        below = histogram.cumsum().tolist()
        distinct_in = (
            np.add.reduceat(histogram != 0, self.starts).tolist()  # not rows: bins
            if self.count_distinct
            else None
        )
        starts_list = self.starts_list
        for i, q in enumerate(shared):
            o, end = starts_list[i], starts_list[i + 1]
            base = below[o - 1] if o else 0
            a = bisect_right(below, base, o, end) - o
            b = bisect_left(below, base + size, o, end) - o
            e = extents[q] = Extent(a, b, below, o, base)
            if distinct_in is not None:
                e.distinct = distinct_in[i]

    @staticmethod
    def _own_extent(dim: Dimension, column: np.ndarray, w: np.ndarray | None) -> Extent:
        a, b = int(column.min()), int(column.max())
        if b - a <= 2 * len(column) + 64:
            histogram = code_counts(column - a, b - a + 1, weights=w)
            if w is not None:
                histogram = np.rint(histogram).astype(np.int64)
            e = Extent(a, b, histogram.cumsum().tolist(), -a)
            if dim.kind == SET:
                e.distinct = int(np.count_nonzero(histogram))
            return e
        if w is None:
            e = Extent(a, b, ordered=np.sort(column))
        else:  # the sorted codes and, from 0, the records up to each
            by_code = np.argsort(column, kind="stable")
            cumulative = np.concatenate(([0], np.cumsum(w[by_code])))
            e = Extent(a, b, ordered=column[by_code], cumulative=cumulative)
        if dim.kind == SET:
            e.distinct = int(np.count_nonzero(np.diff(e.ordered))) + 1
        return e


def _chosen_cut(
    dims: list[Dimension],
    extents: list[Extent],
    block: np.ndarray,
    rows: np.ndarray,
    w: np.ndarray | None,
    size: int,
    check: Check,
    *,
    minimum: int,
    sizes_decide: bool,
) -> Cut | None:
    """The cut of a partition: along the QIs by decreasing span (ties: schema order),
    the first of a QI's three most balanced candidates whose halves pass ``check`` —
    when sizes alone decide, the most balanced cut if both halves reach ``minimum``."""
    ranked = [(-span(dims[q], e), q) for q, e in enumerate(extents) if e.a != e.b]
    ranked.sort()  # widest first; ties: schema order
    for _, q in ranked:
        candidates = cuts(dims[q], extents[q], size)
        if sizes_decide:
            # Only the size of the halves matters: the most balanced cut or none.
            if candidates and -candidates[0][0] >= minimum:
                return (q, candidates[0][1], candidates[0][2])
            continue
        for _, threshold, n_left in candidates[:3]:
            if check(rows, block[q] <= threshold, w):
                return (q, threshold, n_left)
    return None


def _split(
    codes: np.ndarray,
    order: np.ndarray,
    weights: np.ndarray | None,
    lo: int,
    hi: int,
    cut: Cut,
) -> int:
    """Reorder the partition ``lo:hi`` so that the rows going left (codes ≤ the
    threshold) come first, in order; the number of rows that go left (a row is never
    divided, whatever its records)."""
    q, threshold, n_left = cut
    block = codes[:, lo:hi]
    right = block[q] > threshold
    moved = right.argsort(kind="stable")  # left rows first, in order
    codes[:, lo:hi] = block.take(moved, axis=1)
    order[lo:hi] = order[lo:hi].take(moved)
    if weights is not None:  # the rows (not records) going left
        weights[lo:hi] = weights[lo:hi].take(moved)
        n_left = len(right) - int(np.count_nonzero(right))
    return n_left


def partition(
    dims: list[Dimension],
    codes: np.ndarray,
    order: np.ndarray,
    check: Check,
    *,
    minimum: int,
    sizes_decide: bool,
    progress: Progress | None,
    weights: np.ndarray | None = None,
) -> list[tuple[int, int]]:
    """Cut the rows into final partitions. ``codes`` (QI × row), ``order`` (row
    numbers) and ``weights`` (records per row, when rows stand for several) are
    reordered in place so that every partition is one slice ``lo:hi``. Sizes, medians
    and the models' checks count records."""
    n = codes.shape[1]
    records = n if weights is None else int(weights.sum())
    histograms = _Histograms(dims, codes.dtype)
    stack = [(0, n)]
    finals: list[tuple[int, int]] = []
    final_rows = 0
    visited = 0
    while stack:
        lo, hi = stack.pop()
        w = None if weights is None else weights[lo:hi]
        size = hi - lo if w is None else int(w.sum())  # records
        visited += 1
        if visited % _PROGRESS_EVERY == 0:
            report_progress(
                progress,
                min(0.85, final_rows / records),
                f"Mondrian: {visited} partitions visited, {len(finals)} final",
            )
        cut = None
        if size >= 2 * minimum:
            block = codes[:, lo:hi]
            extents = histograms.extents(block, w, size)
            cut = _chosen_cut(
                dims,
                extents,
                block,
                order[lo:hi],
                w,
                size,
                check,
                minimum=minimum,
                sizes_decide=sizes_decide,
            )
        if cut is None:
            finals.append((lo, hi))
            final_rows += size
            continue
        n_left = _split(codes, order, weights, lo, hi, cut)
        stack.append((lo + n_left, hi))
        stack.append((lo, lo + n_left))
    return finals
