"""Mondrian: strict multidimensional partitioning (SPEC §4).

LeFevre, DeWitt, Ramakrishnan, "Mondrian Multidimensional k-Anonymity" (ICDE 2006).
The whole table starts as one partition. A partition is cut in two along the
quasi-identifier (QI) with the largest normalized span, at its median; the cut is kept
only when both halves satisfy every privacy model (k, the three l, t), otherwise the
next QI by span is tried; a partition no QI can cut is final. Each final partition is
one equivalence class, every row of it released with the same summary of each QI.

Every QI is encoded once as ordered integer codes
(:mod:`privcore.anonymize.mondrian_dimensions`), so every cut is a threshold on one
column ("code ≤ c" goes left) and no value lies on both sides (strict partitioning; the
cuts: :mod:`privcore.anonymize.mondrian_cuts`):

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
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from privcore.anonymize.base import (
    Problem,
    Release,
    finish,
    report_progress,
    require_local_recoding,
)
from privcore.anonymize.mondrian_cuts import partition
from privcore.anonymize.mondrian_dimensions import HIERARCHY, NUMERIC, Dimension, dimensions
from privcore.anonymize.problem import Call, shared_signature
from privcore.classes import EquivalenceClasses, distinct, reduce_runs
from privcore.core.notes import Note
from privcore.data.cells import MISSING_TEXT  # a missing value inside a range or set
from privcore.data.codes import code_dtype
from privcore.data.hierarchy import value_keys
from privcore.errors import InfeasibleError, ParameterError

__all__ = ["SUMMARIES", "mondrian"]

#: How numeric QIs of a final partition are released.
SUMMARIES = ("range", "mean")


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


# --------------------------------------------------------------------------- summaries


def _numeric_summary(
    dim: Dimension,
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
    dim: Dimension, low: np.ndarray, high: np.ndarray
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
    dim: Dimension, column: np.ndarray, starts: np.ndarray, low: np.ndarray, high: np.ndarray
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


@shared_signature
def mondrian(
    call: Call, *, summary: str = "range", span_domains: Mapping[str, Any] | None = None
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
    progress = call.progress
    started = time.perf_counter()
    if summary not in SUMMARIES:
        raise ParameterError(
            f"Unknown Mondrian summary '{summary}'. Choose one of {', '.join(SUMMARIES)}.",
            code="anonymize.unknown_summary",
            summary=str(summary),
        )
    problem = call.prepare(need_hierarchies=False)
    require_local_recoding(problem, "Mondrian")
    _check_whole_table(problem)
    report_progress(progress, 0.0, "Mondrian: partitioning")
    dims = dimensions(problem, span_domains)
    # QI × row in the smallest type holding every QI's codes, reordered as rows move;
    # the row numbers in the smallest type holding 0..n-1 (int32 below 2³¹ rows)
    codes = np.stack([dim.codes for dim in dims])
    order = np.arange(problem.n_table_rows, dtype=code_dtype(problem.n_table_rows))
    moved_weights = None if problem.weights is None else problem.weights.copy()
    minimum = problem.minimal_class_size
    finals = partition(
        dims,
        codes,
        order,
        _halves_check(problem, minimum),
        minimum=minimum,
        sizes_decide=all(m.size_only for m in problem.constraints),
        progress=progress,
        weights=moved_weights,
    )
    report_progress(progress, 0.9, "Mondrian: summarising the partitions")
    released, gcp = _summarised(problem, dims, codes, order, finals, summary, moved_weights)
    del codes, order, dims, moved_weights  # row-sized
    search_seconds = time.perf_counter() - started
    notes = []
    if problem.max_suppression > 0:
        notes.append(
            Note("mondrian.no_suppression", "Mondrian generalizes every row and suppresses none.")
        )
    release = finish(
        problem,
        released,
        np.zeros(problem.n_table_rows, dtype=bool),
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


def _summarised(
    problem: Problem,
    dims: list[Dimension],
    codes: np.ndarray,
    order: np.ndarray,
    finals: list[tuple[int, int]],
    summary: str,
    weights: np.ndarray | None,
) -> tuple[pd.DataFrame, float]:
    """The released table — each QI of each row the summary of its final partition, as
    a categorical (:func:`_partition_categorical`) — and the partitions' GCP. ``codes``,
    ``order`` and ``weights`` are in the partitions' order (:func:`partition`)."""
    finals.sort()
    starts = np.array([lo for lo, _ in finals], dtype=np.int64)
    sizes = np.array([hi - lo for lo, hi in finals], dtype=np.int64)
    slot = np.empty(problem.n_table_rows, dtype=code_dtype(len(starts)))  # row's partition
    slot[order] = np.repeat(np.arange(len(starts)), sizes)
    lows = reduce_runs(codes, starts, "min", axis=1)
    highs = reduce_runs(codes, starts, "max", axis=1)
    # records per partition: its rows, or the sum of their weights
    records = sizes if weights is None else reduce_runs(weights, starts, "sum")
    released = problem.frame.copy()
    penalty = 0.0
    for q, dim in enumerate(dims):
        if dim.kind == NUMERIC:
            text, ncp = _numeric_summary(dim, codes[q], starts, records, summary, weights)
        elif dim.kind == HIERARCHY:
            text, ncp = _hierarchy_summary(dim, lows[q], highs[q])
        else:
            text, ncp = _set_summary(dim, codes[q], starts, lows[q], highs[q])
        penalty += float(ncp @ records)
        released[dim.name] = _partition_categorical(text, slot)
    return released, penalty / (problem.n_rows * len(dims))
