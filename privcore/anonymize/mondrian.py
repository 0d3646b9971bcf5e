"""Mondrian: strict multidimensional partitioning (SPEC §4).

LeFevre, DeWitt, Ramakrishnan, "Mondrian Multidimensional k-Anonymity" (ICDE 2006).
The whole table starts as one partition. A partition is cut in two along the
quasi-identifier (QI) with the largest normalized span, at its median; the cut is kept
only when both halves satisfy every privacy model (k, the three l, t), otherwise the
next QI by span is tried; a partition no QI can cut is final. Each final partition is
one equivalence class, every row of it released with the same summary of each QI.

Every QI is encoded once as ordered integer codes, so every cut is a threshold on one
column ("code ≤ c" goes left) and no value lies on both sides (strict partitioning):

- numeric QIs: rank of the value among the table's distinct values. Span = (max − min
  of the partition) / (max − min of the table); the cut is at the median (values ≤
  median | > median, or < median | ≥ median when that is more balanced — with ties the
  first can leave one side empty). Released as ``[a-b]`` (``a`` when a = b) or, with
  ``summary="mean"``, the partition's mean rounded to 2 decimals (as text).
- categorical QIs with a hierarchy: leaves are numbered depth first, so the leaves under
  any hierarchy node form one run of codes. The partition's values lie under their
  lowest common ancestor N; a cut separates N's children into two groups (a run of
  children on each side, as balanced in records as possible), so no child is divided.
  Span = values under N / distinct values of the table (N's own generalization cost).
  Released as N's label.
- other categorical QIs: codes in text order, treated as ordered for the median cut.
  Span = distinct values in the partition / in the table. Released as the set ``{a,b}``
  of the partition's values (sorted; a single value as itself).

Missing values are one value of their own, with the highest code: in a numeric range
they add ``,NA`` (the bounds ignore them; a partition mixing them with numbers has span
1, so they are split off first); in a set they are ``NA``; in a hierarchy they hang
from the root; a partition of missing values only releases a missing value.

Mondrian generalizes every row and suppresses none; constraints the whole table does not
meet raise :class:`~privcore.errors.InfeasibleError`. No randomness: ties between QIs go
to the first in schema order, so the release is the same for every seed.

Frequency sets (SPEC §9; ``weights``: row i stands for ``weights[i]`` records identical
in every QI and SA). Every size is a count of records: the histograms behind the spans
and the cuts are weighted, the median is a weighted median (the first code with at
least ⌈records/2⌉ records at or below it), the halves' checks and the summaries (ranges,
means, NCP) count records. A cut is a threshold on one QI's codes, and the records of
one frequency-set row share every code, so each row moves as one unsplittable block:
it lies wholly on one side of every cut, and its records get one released value. Since
the row version of Mondrian never divides records with equal codes either (strict
partitioning), both choose the same cuts and release the same values per record.

Information loss ``extra_loss["ncp"]`` is the GCP (Xu et al. 2006) of the partitions:
the mean over all QI cells of NCP — numeric (max − min of the partition) / (max − min of
the table), 0 for a constant column; categorical 0 for one distinct value, else
(values under the common ancestor with a hierarchy, the partition's distinct values
without) / distinct values of the table. As in the measurement's NCP
(:func:`privcore.measure.loss.ncp`, :func:`~privcore.measure.loss.cell_ncp`), the values
are those present — a missing value is none of them: a range naming ``NA`` costs its
range for each of its rows, a set ``{a,NA}`` costs 0, a partition at the root 1 — so
that a Mondrian release has one GCP, its own and the one measured from its cells.
"""

from __future__ import annotations

import time
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from privcore.anonymize.base import (
    Problem,
    Progress,
    Release,
    finish,
    prepare,
    report_progress,
    require_local_recoding,
)
from privcore.classes import (
    EquivalenceClasses,
    code_counts,
    distinct,
    present_codes,
    reduce_runs,
    value_codes,
)
from privcore.core.notes import Note
from privcore.core.scaling import unit_of
from privcore.data.cells import MISSING_TEXT  # a missing value inside a range or set
from privcore.data.codes import code_dtype, is_number
from privcore.data.hierarchy import Hierarchy, value_keys
from privcore.data.schema import Schema
from privcore.errors import InfeasibleError, ParameterError
from privcore.models import PrivacyModel

__all__ = ["SUMMARIES", "mondrian"]

#: How numeric QIs of a final partition are released.
SUMMARIES = ("range", "mean")

_PROGRESS_EVERY = 200  # partitions between two progress reports
_NUMERIC, _HIERARCHY, _SET = "numeric", "hierarchy", "set"


# --------------------------------------------------------------------------- encoding


@dataclass(eq=False)
class _Dimension:
    """One QI encoded as ordered integer codes 0..n_values-1 (missing: the last code).

    ``text[c]`` is the released text of the single value c (None for missing).
    Numeric: ``numbers[c]`` its value times ``unit`` (1, or a power of two below it for
    values beyond ±2⁵⁰⁰, :func:`~privcore.core.scaling.unit_of`, so that ranges and sums
    stay finite), ``scale`` the table's range in the same unit. Hierarchy: nodes
    are numbered across levels; ``node_of[j][c]`` is the level-j ancestor of code c,
    ``node_size`` the values under a node, ``node_label`` its label, ``node_starts``
    the codes where each of its children but the first begins.
    """

    name: str
    kind: str
    codes: np.ndarray
    n_values: int
    missing: int
    text: np.ndarray
    numbers: np.ndarray | None = None
    scale: float = 0.0
    unit: float = 1.0
    number_list: list[float] = field(default_factory=list)
    node_of: list[list[int]] = field(default_factory=list)
    node_size: list[int] = field(default_factory=list)
    node_label: list[Any] = field(default_factory=list)
    node_starts: list[list[int]] = field(default_factory=list)
    span_base: float = 0.0  # what spans and NCP divide by, when not n_values

    @property
    def base(self) -> float:
        """The size of the QI's domain that spans and NCP are shares of: its number of
        values (``span_base`` when a larger table's is given)."""
        return self.span_base or self.n_values

    @property
    def present_base(self) -> float:
        """The values of :attr:`base` that are present — the domain a categorical NCP is
        a share of (the missing value is none of them, as in
        :func:`privcore.measure.loss.ncp`); at least 1."""
        return max(self.base - (self.missing >= 0), 1)

    def ancestor(self, a: int, b: int) -> int:
        """The lowest common ancestor (node id) of codes a and b (hierarchy only)."""
        for level in self.node_of:
            if level[a] == level[b]:
                return level[a]
        raise AssertionError("a hierarchy has a single root")  # pragma: no cover


def _with_missing(codes: np.ndarray, n_present: int) -> tuple[np.ndarray, int, int]:
    """Codes with missing (-1) moved to the last code, in the smallest integer type that
    holds them (:func:`~privcore.data.codes.code_dtype`); (codes, n_values, missing code)."""
    has_missing = bool((codes < 0).any())
    if has_missing:
        codes = np.where(codes < 0, n_present, codes)
    n_values = n_present + has_missing
    return codes.astype(code_dtype(n_values)), n_values, n_present if has_missing else -1


def _text_with_missing(text: np.ndarray, missing: int) -> np.ndarray:
    text = np.asarray(text, dtype=object)
    return np.append(text, None).astype(object) if missing >= 0 else text


def _numeric_dimension(name: str, series: pd.Series) -> _Dimension:
    codes, uniques = value_codes(series, sort=True)
    numbers = pd.to_numeric(pd.Series(uniques), errors="coerce").to_numpy(dtype=np.float64)
    codes, n_values, missing = _with_missing(codes, len(uniques))
    if np.isinf(numbers).any():
        # "inf" in a CSV reads as infinity: ranges and NCP would become inf and NaN.
        raise ParameterError(
            f"'{name}' has infinite values (inf); Mondrian needs finite numbers. Replace "
            "them or mark them as missing.",
            code="anonymize.infinite_values",
            column=name,
        )
    text = value_keys(pd.Series(uniques, dtype=object)).to_numpy(dtype=object)
    unit = unit_of(numbers)  # ±1e308: ranges and means computed in a unit that fits
    numbers = numbers * unit
    scale = float(numbers[-1] - numbers[0]) if len(numbers) else 0.0
    return _Dimension(
        name,
        _NUMERIC,
        codes,
        n_values,
        missing,
        _text_with_missing(text, missing),
        numbers=numbers,
        scale=scale,
        unit=unit,
        number_list=numbers.tolist(),
    )


def _set_dimension(name: str, series: pd.Series) -> _Dimension:
    codes, uniques = value_codes(series)
    text = value_keys(pd.Series(uniques, dtype=object)).to_numpy(dtype=object)
    order = np.argsort(text.astype(str), kind="stable")  # text order
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    codes = np.append(rank, -1)[codes]  # missing (-1) stays -1
    codes, n_values, missing = _with_missing(codes, len(uniques))
    return _Dimension(
        name, _SET, codes, n_values, missing, _text_with_missing(text[order], missing)
    )


def _hierarchy_dimension(name: str, leaf: np.ndarray, hierarchy: Hierarchy) -> _Dimension:
    """Depth-first codes of the leaves present in the table, and the node structure."""
    height = hierarchy.height
    n_leaves = len(hierarchy.leaves)
    present = present_codes(leaf, n_leaves)
    # Depth first: sort by the level h-1 label, then h-2, …, then the leaf's row; the
    # leaves under one node then share a key prefix, so they form one run.
    keys = [present] + [hierarchy.codes(j)[present] for j in range(1, height)]
    present = present[np.lexsort(keys)]
    code_of_leaf = np.full(n_leaves + 1, -1, dtype=np.int64)  # index -1: missing
    code_of_leaf[present] = np.arange(len(present))
    codes, n_values, missing = _with_missing(code_of_leaf[leaf], len(present))

    node_of: list[list[int]] = []
    node_size: list[int] = []
    node_label: list[Any] = []
    node_first: list[int] = []
    for j in range(height + 1):
        label_codes = hierarchy.codes(j)[present]
        if missing >= 0:  # a chain of its own below the root
            label_codes = np.append(label_codes, -1 if j < height else 0)
        local, first, inverse, counts = np.unique(  # not rows: one label per present leaf
            label_codes, return_index=True, return_inverse=True, return_counts=True
        )
        labels = np.append(hierarchy.labels(j), None).astype(object)  # -1: missing
        node_of.append((len(node_size) + inverse).tolist())
        node_size.extend(counts.tolist())
        node_label.extend(labels[local].tolist())
        node_first.extend(first.tolist())
    # The children of a level-j node are its level-(j-1) runs; a child begins where the
    # level-(j-1) ancestor changes.
    node_starts: list[list[int]] = [[] for _ in node_size]
    for j in range(1, height + 1):
        below = np.asarray(node_of[j - 1])
        changes = np.flatnonzero(below[1:] != below[:-1]) + 1
        for node in sorted(set(node_of[j])):
            start = node_first[node]
            end = start + node_size[node]
            node_starts[node] = changes[(changes > start) & (changes < end)].tolist()
    text = np.asarray(hierarchy.leaves, dtype=object)[present]
    return _Dimension(
        name,
        _HIERARCHY,
        codes,
        n_values,
        missing,
        _text_with_missing(text, missing),
        node_of=node_of,
        node_size=node_size,
        node_label=node_label,
        node_starts=node_starts,
    )


def _domain_scale(dim: _Dimension, domain: Any) -> float:
    """The range of a numeric QI's whole table (``domain``: the range, or its
    ``(low, high)``, whose difference may be no float) in ``dim``'s unit, the unit made
    smaller first where the whole table's numbers need it."""
    if not isinstance(domain, tuple | list):
        return float(domain) * dim.unit
    low, high = float(domain[0]), float(domain[1])
    unit = min(dim.unit, unit_of([low, high]))
    if unit != dim.unit:  # both powers of two: the numbers rescaled exactly
        factor = unit / dim.unit
        assert dim.numbers is not None
        dim.numbers = dim.numbers * factor
        dim.number_list = dim.numbers.tolist()
        dim.scale *= factor
        dim.unit = unit
    return high * unit - low * unit


def _dimensions(
    problem: Problem, span_domains: Mapping[str, Any] | None = None
) -> list[_Dimension]:
    """Each QI encoded; ``span_domains`` (by QI) replaces the table's own domain size as
    what spans and NCP are shares of (numeric: the range, or its ``(low, high)``;
    others: the number of values, missing counted as one)."""
    out = []
    domains = dict(span_domains or {})
    for name in problem.qi:
        series = problem.frame[name]
        if is_number(series.dtype):
            out.append(_numeric_dimension(name, series))
        elif name in problem.leaf_codes:
            out.append(
                _hierarchy_dimension(name, problem.leaf_codes[name], problem.hierarchies[name])
            )
        else:
            out.append(_set_dimension(name, series))
        if name in domains:
            dim = out[-1]
            if dim.kind == _NUMERIC:
                dim.scale = max(_domain_scale(dim, domains[name]), dim.scale)
            else:
                dim.span_base = max(float(domains[name]), float(dim.n_values))
    return out


# --------------------------------------------------------------------------- cuts


# A partition's codes on one QI are summarised by a cumulative histogram, a Python list
# ``below`` with ``below[o + x] - base`` = rows with code ≤ x. QIs with small domains
# share one histogram over the whole code space (one bincount for all of them per
# partition); a QI with a large domain gets its own over the partition's code range, or,
# when that range is much wider than the partition, a sorted copy of its codes instead.
_SHARED_DOMAIN = 1024  # QIs with at most this many values share the histogram
_SHARED_BINS = 8192  # … up to this many bins in all


@dataclass
class _Extent:
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


def _span(dim: _Dimension, e: _Extent) -> float:
    """Normalized span of a partition on one QI (codes a < b)."""
    a, b = e.a, e.b
    if dim.kind == _NUMERIC:
        if b == dim.missing:
            return 1.0  # numbers mixed with missing values: split those off first
        return (dim.number_list[b] - dim.number_list[a]) / dim.scale
    if dim.kind == _HIERARCHY:
        return dim.node_size[dim.ancestor(a, b)] / dim.base
    return e.distinct / dim.base


def _cuts(dim: _Dimension, e: _Extent, size: int) -> list[tuple[int, int, int]]:
    """Candidate cuts ``(−smaller side, threshold, rows left)``: codes ≤ threshold go
    left. Most balanced first; every candidate leaves rows on both sides."""
    a, b = e.a, e.b
    if dim.kind == _HIERARCHY:
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


# --------------------------------------------------------------------------- checks


def _halves_check(
    problem: Problem, minimum: int
) -> Callable[[np.ndarray, np.ndarray, np.ndarray | None], bool]:
    """``check(rows, left, weights)``: do both halves (``rows[left]``, ``rows[~left]``)
    meet every model? A half below ``minimum`` records (the largest minimal class size
    the models declare) fails; size-only models (k-anonymity) then pass, and the others
    measure both halves as a 2-class partition, on the sensitive attributes restricted
    to those rows (Q stays the table's). ``weights``: the records of each row (None:
    one each)."""
    others = [m for m in problem.constraints if not m.size_only]
    sensitive = problem.sensitive
    qi = problem.qi

    def check(rows: np.ndarray, left: np.ndarray, weights: np.ndarray | None) -> bool:
        if weights is None:
            n_left, total = int(np.count_nonzero(left)), len(rows)
        else:
            n_left, total = int(weights[left].sum()), int(weights.sum())
        if min(n_left, total - n_left) < minimum:
            return False
        if not others:
            return True
        sizes = np.array([n_left, total - n_left], dtype=np.int64)
        first = np.array([int(np.argmax(left)), int(np.argmax(~left))], dtype=np.int64)
        classes = EquivalenceClasses(
            (~left).astype(np.int64),
            sizes,
            first,
            qi,
            {name: attr.regrouped(attr.codes[rows], None) for name, attr in sensitive.items()},
            weights,
        )
        return all(model.satisfied(classes) for model in others)

    return check


def _describe(achieved: Any) -> str:
    """``{"l": {"occupation": 2.1}}`` → ``l = 2.1 (occupation)``."""
    parts = []
    for key, value in achieved.items():
        if isinstance(value, dict):
            parts += [f"{key} = {_number(v)} ({sa})" for sa, v in value.items()]
        else:
            parts.append(f"{key} = {_number(value)}")
    return ", ".join(parts)


def _number(value: Any) -> str:
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def _check_whole_table(problem: Problem) -> None:
    """Mondrian only refines the one-class partition; if that fails and every model is
    monotone under generalization (a merge of passing classes passes), no partition
    passes. Models that do not declare it are left to the cuts."""
    if not all(m.monotone_under_generalization for m in problem.constraints):
        return
    classes = EquivalenceClasses(
        np.zeros(problem.n_table_rows, dtype=np.int64),
        np.array([problem.n_rows], dtype=np.int64),
        np.array([0], dtype=np.int64),
        problem.qi,
        dict(problem.sensitive),
        problem.weights,
    )
    failing = [m for m in problem.constraints if not m.satisfied(classes)]
    if failing:
        reasons = "; ".join(
            f"{m.name} needs {m.requirement()}, the whole table has "
            f"{_describe(m.achieved(classes))}"
            for m in failing
        )
        raise InfeasibleError(
            f"No release can meet the constraints: even the whole table as one class fails "
            f"them ({reasons}). Loosen the constraints.",
            code="anonymize.infeasible",
            models=[m.to_dict() for m in failing],
        )


# --------------------------------------------------------------------------- partitioning


def _partition(
    dims: list[_Dimension],
    codes: np.ndarray,
    order: np.ndarray,
    check: Callable[[np.ndarray, np.ndarray, np.ndarray | None], bool],
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
    shared = [q for q, dim in enumerate(dims) if dim.n_values <= _SHARED_DOMAIN]
    while sum(dims[q].n_values for q in shared) > _SHARED_BINS:
        shared.pop()
    own = [q for q in range(len(dims)) if q not in shared]
    offsets = np.cumsum([0] + [dims[q].n_values for q in shared])
    bins = int(offsets[-1])
    # the shifted codes reach ``bins`` - 1: a type wide enough for them and for ``codes``
    shift = offsets[:-1, None].astype(np.result_type(codes.dtype, code_dtype(bins)))
    shared_rows = slice(None) if not own else np.asarray(shared)
    starts = offsets[:-1]
    starts_list = offsets.tolist()
    count_distinct = any(dims[q].kind == _SET for q in shared)
    extents: list[_Extent | None] = [None] * len(dims)

    stack = [(0, n)]
    finals: list[tuple[int, int]] = []
    final_rows = 0
    visited = 0
    while stack:
        lo, hi = stack.pop()
        size = hi - lo  # records (rows, or the sum of their weights)
        w = None
        if weights is not None:
            w = weights[lo:hi]
            size = int(w.sum())
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
            if shared:
                histogram = code_counts(
                    (block[shared_rows] + shift).ravel(),
                    bins,
                    weights=None if w is None else np.tile(w, len(shared)),
                )
                if w is not None:
                    histogram = np.rint(histogram).astype(np.int64)
                below = histogram.cumsum().tolist()
                distinct_in = (
                    np.add.reduceat(histogram != 0, starts).tolist()  # not rows: bins
                    if count_distinct
                    else None
                )
                for i, q in enumerate(shared):
                    o, end = starts_list[i], starts_list[i + 1]
                    base = below[o - 1] if o else 0
                    a = bisect_right(below, base, o, end) - o
                    b = bisect_left(below, base + size, o, end) - o
                    e = extents[q] = _Extent(a, b, below, o, base)
                    if distinct_in is not None:
                        e.distinct = distinct_in[i]
            for q in own:
                column = block[q]
                a, b = int(column.min()), int(column.max())
                if b - a <= 2 * (hi - lo) + 64:
                    histogram = code_counts(column - a, b - a + 1, weights=w)
                    if w is not None:
                        histogram = np.rint(histogram).astype(np.int64)
                    e = extents[q] = _Extent(a, b, histogram.cumsum().tolist(), -a)
                    if dims[q].kind == _SET:
                        e.distinct = int(np.count_nonzero(histogram))
                elif w is None:
                    e = extents[q] = _Extent(a, b, ordered=np.sort(column))
                else:  # the sorted codes and, from 0, the records up to each
                    by_code = np.argsort(column, kind="stable")
                    cumulative = np.concatenate(([0], np.cumsum(w[by_code])))
                    e = extents[q] = _Extent(a, b, ordered=column[by_code], cumulative=cumulative)
                if e.ordered is not None and dims[q].kind == _SET:
                    e.distinct = int(np.count_nonzero(np.diff(e.ordered))) + 1
            ranked = [(-_span(dims[q], e), q) for q, e in enumerate(extents) if e.a != e.b]
            ranked.sort()  # widest first; ties: schema order
            for _, q in ranked:
                candidates = _cuts(dims[q], extents[q], size)
                if sizes_decide:
                    # Only the size of the halves matters: the most balanced cut or none.
                    if candidates and -candidates[0][0] >= minimum:
                        cut = (q, candidates[0][1], candidates[0][2])
                        break
                    continue
                for _, threshold, n_left in candidates[:3]:
                    if check(order[lo:hi], block[q] <= threshold, w):
                        cut = (q, threshold, n_left)
                        break
                if cut is not None:
                    break
        if cut is None:
            finals.append((lo, hi))
            final_rows += size
            continue
        q, threshold, n_left = cut
        right = block[q] > threshold
        moved = right.argsort(kind="stable")  # left rows first, in order
        codes[:, lo:hi] = block.take(moved, axis=1)
        order[lo:hi] = order[lo:hi].take(moved)
        if w is not None:  # the rows (not records) going left; a row is never divided
            weights[lo:hi] = w.take(moved)
            n_left = len(right) - int(np.count_nonzero(right))
        stack.append((lo + n_left, hi))
        stack.append((lo, lo + n_left))
    return finals


# --------------------------------------------------------------------------- summaries


def _numeric_summary(
    dim: _Dimension,
    column: np.ndarray,
    starts: np.ndarray,
    sizes: np.ndarray,
    summary: str,
    weights: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """(released text, NCP) per partition of a numeric QI. ``sizes``: records per
    partition; ``weights``: records per row (None: one each), for the mean."""
    missing = dim.missing
    is_missing = column == missing if missing >= 0 else np.zeros(len(column), dtype=bool)
    low = reduce_runs(column, starts, "min")
    high = reduce_runs(np.where(is_missing, -1, column), starts, "max")  # -1: all missing
    has_missing = reduce_runs(is_missing.astype(np.int64), starts, "sum") > 0
    numbers = np.append(dim.numbers, np.nan)
    all_missing = high < 0
    span = numbers[np.maximum(high, 0)] - numbers[low]
    ncp = np.where(all_missing | (dim.scale == 0), 0.0, span / (dim.scale or 1.0))
    if summary == "mean":
        values = np.where(is_missing, 0.0, numbers[column])
        missing_records = is_missing.astype(np.int64)
        if weights is not None:  # Σ w·x / Σ w over the records present
            values = values * weights
            missing_records = missing_records * weights
        present = sizes - reduce_runs(missing_records, starts, "sum")
        means = reduce_runs(values, starts, "sum") / np.maximum(present, 1) / dim.unit
        with np.errstate(over="ignore", invalid="ignore"):  # 1e308 × 100 is no float
            rounded = np.where(np.abs(means) < 1e15, np.round(means, 2), means)
        text = value_keys(pd.Series(rounded)).to_numpy(dtype=object)
    else:
        text = dim.text[low].copy()
        ranged = (high > low) & ~all_missing
        text[ranged] = "[" + text[ranged] + "-" + dim.text[high[ranged]] + "]"
    mixed = has_missing & ~all_missing
    text[mixed] = text[mixed] + ("," + MISSING_TEXT)
    text[all_missing] = None
    return text, np.clip(ncp, 0.0, 1.0)


def _hierarchy_summary(
    dim: _Dimension, low: np.ndarray, high: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(lowest common ancestor's label, NCP) per partition of a hierarchical QI: the
    present values under the ancestor / the present values of the table, and 1 at the
    root (where a partition mixing a missing value with others is)."""
    pairs = low.astype(np.int64) * dim.n_values + high
    unique, inverse = np.unique(pairs, return_inverse=True)  # not rows: per partition
    labels = np.empty(len(unique), dtype=object)
    ncp = np.zeros(len(unique))
    for i, pair in enumerate(unique.tolist()):
        a, b = divmod(pair, dim.n_values)
        if a == b:
            labels[i] = dim.text[a]
        else:
            node = dim.ancestor(a, b)
            labels[i] = dim.node_label[node]
            ncp[i] = min(dim.node_size[node] / dim.present_base, 1.0)  # the root: 1
    return labels[inverse], ncp[inverse]


def _set_summary(
    dim: _Dimension, column: np.ndarray, starts: np.ndarray, low: np.ndarray, high: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(``{a,b}`` of the partition's values, NCP) per partition of a categorical QI: the
    present values of the set / the present values of the table, 0 for a set of one
    present value (``{a,NA}``)."""
    text = dim.text[low].copy()
    ncp = np.zeros(len(starts))
    several = np.flatnonzero(low != high)
    if len(several):
        partition = np.repeat(np.arange(len(starts)), np.diff(np.append(starts, len(column))))
        keys = distinct(partition * dim.n_values + column.astype(np.int64))  # (partition, value)
        owner, value = np.divmod(keys, dim.n_values)
        bounds = np.searchsorted(owner, np.arange(len(starts) + 1))
        names = np.where(value == dim.missing, MISSING_TEXT, dim.text[value])
        for p in several.tolist():
            members = names[bounds[p] : bounds[p + 1]].tolist()
            text[p] = "{" + ",".join(members) + "}"
            present = int((value[bounds[p] : bounds[p + 1]] != dim.missing).sum())
            ncp[p] = present / dim.present_base if present > 1 else 0.0
    return text, ncp


def _partition_categorical(text: np.ndarray, slot: np.ndarray) -> pd.Categorical:
    """Each row's cell — the released ``text`` of its partition (``slot``; None:
    missing) — as a categorical of the distinct texts, as the pandas ``str`` type turns
    them into text; 1 or 2 bytes per row. :func:`~privcore.anonymize.base.finish`
    measures it and then turns it into text."""
    category, categories = pd.factorize(pd.array(text, dtype="str"))  # not rows: per partition
    codes = category.astype(code_dtype(len(categories) + 1))[slot]
    return pd.Categorical.from_codes(codes, categories=pd.Index(categories, dtype=object))


# --------------------------------------------------------------------------- the algorithm


def mondrian(
    df: pd.DataFrame,
    schema: Schema,
    constraints: Sequence[PrivacyModel],
    *,
    max_suppression: float = 0.0,
    seed: int = 0,
    progress: Progress | None = None,
    summary: str = "range",
    weights: np.ndarray | None = None,
    span_domains: Mapping[str, Any] | None = None,
) -> Release:
    """Strict multidimensional Mondrian (LeFevre, DeWitt, Ramakrishnan 2006; seeds 000,
    003): see the module docstring for the cuts, the summaries, missing values and
    frequency sets (``weights``). ``span_domains`` (by QI): the domain size of the larger
    table this one is a fragment of — numeric: its range, or its ``(low, high)``
    (a range of ±1e308 is no float); other QIs: its number of
    values, missing counted as one — which spans and NCP are then shares of, so that a
    fragment is cut as the whole table would be (:mod:`privcore.runs.tables`).

    ``summary``: ``"range"`` releases numeric QIs as ``[min-max]``, ``"mean"`` as the
    partition mean. Every row is released (none suppressed; ``max_suppression`` is
    validated but not needed). ``class_ids`` are the classes of the released table:
    the partitions, numbered in order of their first row — partitions released with the
    same cells (possible only where every QI is a hierarchy label, e.g. several
    partitions at ``*``) are one class; ``extra_loss["ncp"]`` is their GCP. Raises
    :class:`~privcore.errors.InfeasibleError` when the whole table fails a model.
    """
    started = time.perf_counter()
    if summary not in SUMMARIES:
        raise ParameterError(
            f"Unknown Mondrian summary '{summary}'. Choose one of {', '.join(SUMMARIES)}.",
            code="anonymize.unknown_summary",
            summary=str(summary),
        )
    problem = prepare(
        df,
        schema,
        constraints,
        max_suppression=max_suppression,
        seed=seed,
        need_hierarchies=False,
        weights=weights,
    )
    require_local_recoding(problem, "Mondrian")
    _check_whole_table(problem)
    report_progress(progress, 0.0, "Mondrian: partitioning")
    n = problem.n_table_rows
    dims = _dimensions(problem, span_domains)
    # QI × row in the smallest type holding every QI's codes, reordered as rows move;
    # the row numbers in the smallest type holding 0..n-1 (int32 below 2³¹ rows)
    codes = np.stack([dim.codes for dim in dims])
    order = np.arange(n, dtype=code_dtype(n))
    moved_weights = None if problem.weights is None else problem.weights.copy()
    minimum = problem.minimal_class_size
    sizes_decide = all(m.size_only for m in problem.constraints)
    finals = _partition(
        dims,
        codes,
        order,
        _halves_check(problem, minimum),
        minimum=minimum,
        sizes_decide=sizes_decide,
        progress=progress,
        weights=moved_weights,
    )
    report_progress(progress, 0.9, "Mondrian: summarising the partitions")

    finals.sort()
    starts = np.array([lo for lo, _ in finals], dtype=np.int64)
    sizes = np.array([hi - lo for lo, hi in finals], dtype=np.int64)
    slot = np.empty(n, dtype=code_dtype(len(starts)))  # each row's final partition
    slot[order] = np.repeat(np.arange(len(starts)), sizes)

    lows = reduce_runs(codes, starts, "min", axis=1)
    highs = reduce_runs(codes, starts, "max", axis=1)
    # records per partition: its rows, or the sum of their weights
    records = sizes if moved_weights is None else reduce_runs(moved_weights, starts, "sum")
    released = problem.frame.copy()
    penalty = 0.0
    for q, dim in enumerate(dims):
        if dim.kind == _NUMERIC:
            text, ncp = _numeric_summary(dim, codes[q], starts, records, summary, moved_weights)
        elif dim.kind == _HIERARCHY:
            text, ncp = _hierarchy_summary(dim, lows[q], highs[q])
        else:
            text, ncp = _set_summary(dim, codes[q], starts, lows[q], highs[q])
        penalty += float(ncp @ records)
        released[dim.name] = _partition_categorical(text, slot)
    gcp = penalty / (problem.n_rows * len(dims))
    del codes, order, slot, lows, highs, dims, moved_weights  # row-sized
    search_seconds = time.perf_counter() - started

    notes = []
    if problem.max_suppression > 0:
        notes.append(
            Note("mondrian.no_suppression", "Mondrian generalizes every row and suppresses none.")
        )
    release = finish(
        problem,
        released,
        np.zeros(n, dtype=bool),
        algorithm="mondrian",
        params={"summary": summary, "partitions": len(finals)},
        started=started,
        search_seconds=search_seconds,
        extra_loss={"ncp": gcp},
        notes=notes,
        coded=problem.qi,  # measured as categoricals, then turned into text
    )
    report_progress(progress, 1.0, "Done")
    return release
