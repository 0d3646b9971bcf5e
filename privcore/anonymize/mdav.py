"""MDAV microaggregation (Domingo-Ferrer & Mateo-Sanz 2002; sdcMicro/μ-Argus ``mdav``).

Microaggregation replaces each record's numeric quasi-identifiers (QIs) by the mean of a
group of at least k similar records: every group is then k records identical in those
QIs — a k-anonymous release without hierarchies, whose loss is the within-group spread.
MDAV ("maximum distance to average vector", the fixed-size heuristic of Domingo-Ferrer &
Torra 2005) forms the groups, on the numeric QIs standardized to z-scores (a constant
column contributes nothing; sdcMicro weights each variable by 1/variance, the same):

    while at least 3k records remain:
        c = the mean of the remaining records
        r = the remaining record farthest from c
        s = the remaining record farthest from r
        group: r and its k − 1 nearest remaining records; remove them
        group: the k remaining records nearest to s (s among them); remove them
    if at least 2k remain: r = the farthest from their mean, a group of r and its k − 1
        nearest; the rest (k … 2k − 1 records) form the last group
    else the remaining records (k … 2k − 1) form the last group

Distances are Euclidean; ties go to the lowest row number (nearest: by distance, then
row). Each group's records are released with the group's mean of each numeric QI
(floats, also for integer columns: rounding would move the mean).

Seed 003 (§20.3.1.4, condensation) starts the same way: "partition the data into groups
of at least k records with any clustering method". MDAV is such a clustering; the two
methods differ in what they release of a group — microaggregation its mean (first-order
statistics: the records become identical, so k-anonymity holds on the released values),
condensation synthetic records drawn from its mean *and* covariance (second order: the
records stay distinct, and k holds for the groups, not for equal values). The module
:mod:`privcore.anonymize.condensation` is the other half of that comparison.

Speed. MDAV is O(n²/k): each round scans every remaining record three times, and the
rounds are sequential (each depends on the records the previous ones took). Two things
make it fast here. Parts run together: the rounds of every part (below) are taken at
once, each step one vectorized operation over all parts (:func:`mdav_padded`), so the
number of Python steps is that of the largest part, not of the table. And a large
table is cut into parts: a stratum of more than P records (P = 8,192 up to 65,536
records, then 2^29/n but at least 2,048) is first cut by a k-d partition — at the median
of the widest standardized dimension, recursively — into parts of P/2 … P records, and
MDAV runs within each part (partitioning before microaggregation, as Solé, Muntés-Mulero
& Nin 2012 do for large data). Up to P records per stratum the groups are exactly MDAV's;
above, each group is MDAV's within its part, and the within-group spread grows a little
(bench/bench_mdav.py measures it against exact MDAV). Ties are broken as above up to
floating-point rounding (the running means are sums updated as records leave).

Categorical QIs are not averaged: a mean of categories means nothing. Codes written
with digits are categories too — a ZIP or postal code, an identifier, a column named or
generalized as one (:func:`privcore.data.roles.code_column`): the mean of 510630 and
100080 is a ZIP of neither city. MDAV runs within each combination of the categorical
values (a stratum, as sdcMicro's ``strata_variables``), so each group is alike in every
QI, the release is k-anonymous on all of them, and a code is released only as itself.
A stratum with fewer than k records cannot form a group: its records are suppressed —
shown with ``*`` in every QI, counted against the suppression limit (SPEC §13). With
l-diversity or t-closeness, a group whose sensitive values fail joins the group of its
stratum with the nearest mean, smallest failing group first, until every group meets
them (the models are monotone under merging); a stratum that fails as one group is
suppressed as well. When the suppressed records exceed the limit the run is refused
(:class:`~privcore.errors.InfeasibleError` ``anonymize.suppression_over_limit``, naming
the limit that would allow them), before any mean is released. Missing or infinite
numeric values are refused (``anonymize.numeric_qi_incomplete``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from privcore.anonymize.base import (
    ClassChecker,
    Problem,
    Progress,
    ProgressClock,
    Release,
    report_progress,
    require_local_recoding,
)
from privcore.anonymize.nearest_merge import merge_into_nearest
from privcore.anonymize.perturbative import (
    categorical_qis,
    codes_note,
    finish_perturbed,
    numeric_matrix,
    refuse_over_limit,
    require_numeric,
    star_cells,
)
from privcore.anonymize.problem import Call, shared_signature
from privcore.classes import code_counts, factorize, group_rows, group_sums, members
from privcore.core.notes import Note
from privcore.core.scaling import column_units

TITLE = "MDAV"


def standardized(x: np.ndarray) -> np.ndarray:
    """z-scores per column (population standard deviation, as sdcMicro's 1/variance
    weights); a constant column becomes 0. Values beyond ±2⁵⁰⁰ (up to ±1e308) are
    brought into range first (:func:`~privcore.core.scaling.column_units`): z-scores do
    not depend on the unit."""
    x = x * column_units(x)
    spread = x.std(axis=0)
    return (x - x.mean(axis=0)) / np.where(spread > 0, spread, 1.0)


def part_size(n: int, k: int) -> int:
    """The most records MDAV groups in one part: 8,192 for a table of up to 65,536
    records, then 2^29 / n, at least 2,048 (and at least 4k)."""
    return max(4 * k, max(2048, min(8192, 2**29 // max(n, 1))))


def kd_parts(z: np.ndarray, size: int) -> np.ndarray:
    """Part id per row of ``z``: a k-d partition cutting each part at the median of its
    widest dimension (any cut for equal points) until it holds at most ``size`` rows;
    parts hold ⌈size/2⌉ … size rows (all rows when there are at most ``size``)."""
    n = len(z)
    part = np.zeros(n, dtype=np.int64)
    if n <= size:
        return part
    order = np.arange(n)
    stack, starts = [(0, n)], []
    while stack:  # a loop over parts, each one pass over its rows
        s, e = stack.pop()
        if e - s <= size:
            starts.append(s)
            continue
        piece = z[order[s:e]]
        dim = int(np.argmax(piece.max(axis=0) - piece.min(axis=0)))
        half = (e - s) // 2
        order[s:e] = order[s:e][np.argpartition(piece[:, dim], half)]
        stack.extend(((s, s + half), (s + half, e)))
    marks = np.zeros(n, dtype=np.int64)  # 1 where a part starts (but the first)
    marks[np.array(sorted(starts)[1:], dtype=np.int64)] = 1
    part[order] = np.cumsum(marks)
    return part


def _k_nearest(distance: np.ndarray, alive: np.ndarray, k: int, parts: np.ndarray) -> np.ndarray:
    """Boolean (m × w): in each part of ``parts`` (a boolean per part), the k remaining
    entries with the smallest ``distance`` — ties to the earlier entry (entries are in
    row order, so: to the lowest row)."""
    masked = np.where(alive, distance, np.inf)
    kth = np.partition(masked, k - 1, axis=1)[:, k - 1 : k]
    below = masked < kth
    equal = masked == kth
    need = k - below.sum(axis=1, keepdims=True)
    take = below | (equal & (np.cumsum(equal, axis=1) <= need))
    take &= parts[:, None]
    return take


def _farthest(distance: np.ndarray, alive: np.ndarray) -> np.ndarray:
    """Per part, the remaining entry with the largest ``distance`` (ties: the earlier,
    that is the lowest row)."""
    return np.argmax(np.where(alive, distance, -1.0), axis=1)


def _squared_distances(points: np.ndarray, norms: np.ndarray, centre: np.ndarray) -> np.ndarray:
    """(m × w): squared Euclidean distance of every entry to its part's ``centre``
    (m × d), as |p|² − 2·p·c + |c|² (``norms``: |p|² per entry) — one pass over the
    points, no m × w × d temporary."""
    dot = np.matmul(points, centre[:, :, None])[:, :, 0]
    return norms - 2.0 * dot + np.einsum("md,md->m", centre, centre)[:, None]


def mdav_padded(
    points: np.ndarray, valid: np.ndarray, k: int, tick: Callable[[], None] | None = None
) -> np.ndarray:
    """MDAV in every part at once: ``points`` (m × w × d), ``valid`` (m × w) the real
    entries of each part (its records in row order, at least k of them, padding after).
    Returns the group of every entry within its part (-1 for padding), numbered in the
    order the groups are formed.

    Each round takes two groups in every part that still holds ≥ 3k records (the
    module docstring's loop), with one vectorized step per array operation; a part that
    holds fewer ends as MDAV ends (one more group around the record farthest from the
    mean when it holds ≥ 2k, then the rest). Every few rounds the finished parts and
    the emptied entries are packed away, so a round costs what remains.
    """
    m, w, _ = points.shape
    label = np.full((m, w), -1, dtype=np.int64)
    place = np.broadcast_to(np.arange(w), (m, w)).copy()  # each entry's column in label
    owner = np.arange(m)  # each current part's row in label
    alive = valid.copy()
    remaining = alive.sum(axis=1)
    sums = np.einsum("mwd,mw->md", points, alive.astype(np.float64))
    norms = np.einsum("mwd,mwd->mw", points, points)
    groups = np.zeros(m, dtype=np.int64)
    rows = np.arange(m)
    packed_width = w

    def distances(centre: np.ndarray) -> np.ndarray:
        return _squared_distances(points, norms, centre)

    def assign(take: np.ndarray, parts: np.ndarray) -> None:
        """Record the groups ``take`` (k entries in each part of ``parts``)."""
        hit = np.nonzero(take)  # by part, k entries each
        label[owner[hit[0]], place[hit]] = groups[hit[0]]
        groups[parts] += 1
        alive[hit] = False
        sums[parts] -= points[hit].reshape(-1, k, points.shape[2]).sum(axis=1)
        remaining[parts] -= k

    while True:
        ending = (remaining < 3 * k) & (remaining > 0)
        if ending.any():
            last_two = ending & (remaining >= 2 * k)
            if last_two.any():
                centre = sums / np.maximum(remaining, 1)[:, None]
                far = points[rows, _farthest(distances(centre), alive)]
                assign(_k_nearest(distances(far), alive, k, last_two), last_two)
            rest = alive & ending[:, None]
            hit = np.nonzero(rest)
            label[owner[hit[0]], place[hit]] = groups[hit[0]]
            groups[ending] += 1
            alive &= ~rest
            remaining = np.where(ending, 0, remaining)
        active = remaining >= 3 * k
        if not active.any():
            return label
        centre = sums / np.maximum(remaining, 1)[:, None]
        far_r = points[rows, _farthest(distances(centre), alive)]
        from_r = distances(far_r)
        far_s = points[rows, _farthest(from_r, alive)]
        assign(_k_nearest(from_r, alive, k, active), active)
        assign(_k_nearest(distances(far_s), alive, k, active), active)
        if tick is not None:
            tick()
        width = int(remaining.max())
        if 2 * width <= packed_width or 2 * int(active.sum()) <= len(active):
            keep = np.flatnonzero(remaining > 0)
            order = np.argsort(~alive[keep], axis=1, kind="stable")[:, :width]
            pick = keep[:, None]
            points = points[pick, order]
            norms = norms[pick, order]
            alive = alive[pick, order]
            place = place[pick, order]
            owner, sums, remaining, groups = owner[keep], sums[keep], remaining[keep], groups[keep]
            rows = np.arange(len(keep))
            packed_width = width


def mdav_groups(
    z: np.ndarray, part: np.ndarray, k: int, progress: Progress | None = None
) -> np.ndarray:
    """Group id per row of ``z`` (n × d, standardized): MDAV's groups within each part
    (``part``: id 0..p-1 per row, each part at least k rows; -1: a row left out, group
    -1), numbered part by part. A part of s rows forms ⌊s/k⌋ groups (k rows each, the
    last k … 2k − 1). k ≤ 1: one group per row (numbered part by part too).

    Parts of similar size are run together (:func:`mdav_padded`), padded to the next
    power of two: one batch per size class."""
    n = len(z)
    group = np.full(n, -1, dtype=np.int64)
    used = np.flatnonzero(part >= 0)
    order = used[np.argsort(part[used], kind="stable")]  # by part, rows in order
    if k <= 1 or not len(used):
        group[order] = np.arange(len(order))
        return group
    n_parts = int(part.max()) + 1
    sizes = code_counts(part[used], n_parts)
    first_group = np.concatenate([[0], np.cumsum(sizes // k)[:-1]])
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    position = np.empty(n, dtype=np.int64)
    position[order] = np.arange(len(order)) - starts[part[order]]
    width = 1 << np.ceil(np.log2(np.maximum(sizes, 1))).astype(np.int64)
    clock = ProgressClock(progress)
    done = 0

    def tick() -> None:
        if clock.due():
            clock.report(0.8 * done / n, f"MDAV: grouping ({done:,} of {n:,} records done)")

    for size_class in sorted(set(width.tolist())):  # a loop over size classes
        parts = np.flatnonzero(width == size_class)
        local = np.full(n_parts, -1, dtype=np.int64)
        local[parts] = np.arange(len(parts))
        rows = used[local[part[used]] >= 0]
        at = (local[part[rows]], position[rows])
        points = np.zeros((len(parts), int(size_class), z.shape[1]))
        valid = np.zeros((len(parts), int(size_class)), dtype=bool)
        points[at] = z[rows]
        valid[at] = True
        label = mdav_padded(points, valid, k, tick)
        group[rows] = first_group[part[rows]] + label[at]
        done += len(rows)
    return group


def _merge_failing(
    rows: np.ndarray,
    group: np.ndarray,
    z: np.ndarray,
    checker: ClassChecker,
    failing: np.ndarray,
) -> np.ndarray | None:
    """Within one stratum (``rows``, their local group ids ``group`` 0..m-1 and the
    groups that fail, ``failing``): the smallest failing group joins the group with the
    nearest mean (ties: the lowest id) until none fails
    (:func:`~privcore.anonymize.nearest_merge.merge_into_nearest`). Returns the new local
    ids, or None when the stratum fails as one group."""
    merged = merge_into_nearest(
        group, z[rows], failing, lambda local: checker.violates(rows[local])
    )
    return merged.ids


def strata(problem: Problem, columns: Sequence[str]) -> tuple[np.ndarray, int]:
    """(stratum id per row, number of strata): the combinations of the categorical QIs
    ``columns`` (missing is a value of its own); one stratum when there are none."""
    n = problem.n_table_rows
    if not columns:
        return np.zeros(n, dtype=np.int64), 1
    coded = [factorize(problem.frame[c]) for c in columns]
    grouped = group_rows([c for c, _ in coded], [len(u) for _, u in coded])
    return grouped.ids, grouped.n_groups


@shared_signature
def mdav(call: Call) -> Release:
    """MDAV microaggregation of the numeric QIs, within the strata of the categorical
    ones and codes (module docstring), with groups of k (the KAnonymity constraint; 1
    without).

    Every constraint holds on the release's classes, or
    :class:`~privcore.errors.InfeasibleError` is raised (also when the records of
    strata too small or failing would be more suppressed rows than the limit allows:
    ``anonymize.suppression_over_limit``). Deterministic (MDAV draws
    nothing; ``seed`` is recorded). ``params`` gain ``groups``, ``strata``,
    ``merges`` (groups joined for l/t) and ``aggregated`` (the numeric QIs).
    """
    progress = call.progress
    started = time.perf_counter()
    call = call.records(TITLE)
    problem = call.prepare(need_hierarchies=False)
    require_local_recoding(problem, TITLE)
    numeric = require_numeric(problem, TITLE)
    x = numeric_matrix(problem, numeric, TITLE, allow_missing=False)
    categorical = categorical_qis(problem)
    k = problem.k
    report_progress(progress, 0.0, f"MDAV: groups of {k} on {', '.join(numeric)}")
    z = standardized(x)
    stratum, n_strata = strata(problem, categorical)
    sizes = code_counts(stratum, n_strata)
    small = sizes[stratum] < max(k, 1)  # strata that cannot hold a group
    rows_of = members(stratum, n_strata)
    part = _parts(z, stratum, sizes, small, rows_of, part_size(problem.n_rows, k), k)
    group = mdav_groups(z, part, k, progress)
    n_groups = int(group.max()) + 1 if (group >= 0).any() else 0
    checker = ClassChecker(problem, TITLE)
    merges = 0
    failed = np.zeros(problem.n_rows, dtype=bool)
    if not checker.sizes_decide and n_groups:
        group, n_groups, merges, failed = _merged_for_models(
            group, n_groups, rows_of, small, z, checker, progress
        )
    starred = small | failed  # suppressed: '*' in every QI, within the limit or refused
    refuse_over_limit(problem, starred, TITLE)
    if starred.any():  # strata suppressed are released as '*', not as means
        group = np.where(starred, -1, group)
    search_seconds = time.perf_counter() - started
    report_progress(progress, 0.85, "MDAV: releasing the group means")
    released, n_groups = _released_means(problem, x, numeric, group, n_groups, starred)
    release = finish_perturbed(
        problem,
        released,
        algorithm="mdav",
        title=TITLE,
        started=started,
        search_seconds=search_seconds,
        suppressed=starred,
        params={
            "groups": n_groups,
            "strata": n_strata,
            "merges": merges,
            "aggregated": numeric,
        },
        notes=_notes(problem, numeric, categorical, n_groups, n_strata),
        enforces_models=True,
    )
    report_progress(progress, 1.0, "Done")
    return release


def _parts(
    z: np.ndarray,
    stratum: np.ndarray,
    sizes: np.ndarray,
    small: np.ndarray,
    rows_of: list[np.ndarray],
    limit: int,
    k: int,
) -> np.ndarray:
    """Each row's part (-1: a stratum too small for a group): one per stratum, a stratum
    above ``limit`` records cut by the k-d partition; numbered stratum by stratum, so
    that each stratum's groups have consecutive ids."""
    pieces = {
        int(s_id): kd_parts(z[rows_of[s_id]], limit) for s_id in np.flatnonzero(sizes > limit)
    }  # a loop over the few strata above the part size
    n_pieces = np.where(sizes >= max(k, 1), 1, 0)
    for s_id, cut in pieces.items():
        n_pieces[s_id] = int(cut.max()) + 1
    first_part = np.cumsum(n_pieces) - n_pieces
    part = np.where(small, -1, first_part[stratum])
    for s_id, cut in pieces.items():
        part[rows_of[s_id]] = first_part[s_id] + cut
    return part


def _merged_for_models(
    group: np.ndarray,
    n_groups: int,
    rows_of: list[np.ndarray],
    small: np.ndarray,
    z: np.ndarray,
    checker: ClassChecker,
    progress: Progress | None,
) -> tuple[np.ndarray, int, int, np.ndarray]:
    """Groups that fail a model other than k (l, t) merged within their stratum
    (:func:`_merge_failing`), the groups renumbered; a stratum whose groups cannot all
    pass is suppressed. (group, groups, merges, rows of failed strata)."""
    failed = np.zeros(len(group), dtype=bool)
    fails = checker.violating_groups(np.where(group >= 0, group, n_groups))[:n_groups]
    if not fails.any():
        return group, n_groups, 0, failed
    report_progress(progress, 0.8, "MDAV: merging groups for l / t")
    regroup = group.copy()
    next_id = 0
    merges = 0
    for rows in rows_of:
        if small[rows[0]]:
            continue
        ids = group[rows]
        first = int(ids.min())
        local = ids - first
        failing = fails[first : first + int(local.max()) + 1]
        if failing.any():
            merged = _merge_failing(rows, local, z, checker, failing)
            if merged is None:
                failed[rows] = True
                regroup[rows] = -1
                continue
            merges += int(local.max()) - int(merged.max())
            local = merged
        regroup[rows] = local + next_id
        next_id += int(local.max()) + 1
    return regroup, next_id, merges, failed


def _released_means(
    problem: Problem,
    x: np.ndarray,
    numeric: list[str],
    group: np.ndarray,
    n_groups: int,
    starred: np.ndarray,
) -> tuple[pd.DataFrame, int]:
    """The released table — each numeric QI of a grouped row its group's mean, every QI
    of a suppressed row '*' — and the number of groups released."""
    released = problem.frame.copy()
    kept = group >= 0
    if n_groups:
        sizes = code_counts(group[kept], n_groups)
        units = column_units(x)  # sums of values near ±1e308 in a unit that holds them
        sums = group_sums(group[kept], n_groups, x[kept] * units)
        means = sums / np.maximum(sizes, 1)[:, None] / units
        n_groups = int((sizes > 0).sum())  # groups of suppressed strata are released as '*'
    for j, column in enumerate(numeric):
        values = x[:, j].copy()
        if n_groups:
            values[kept] = means[group[kept], j]
        released[column] = pd.Series(values, index=released.index, dtype=np.float64)
    for column in problem.qi:
        released[column] = star_cells(released[column], starred)
    return released, n_groups


def _notes(
    problem: Problem, numeric: list[str], categorical: list[str], n_groups: int, n_strata: int
) -> list[Note]:
    """What the release is, in words: the means, the codes kept, the strata."""
    k = problem.k
    notes = [
        Note(
            "mdav.means",
            f"{', '.join(numeric)} released as the means of {n_groups} groups of at least "
            f"{k} similar records (floats).",
            columns=", ".join(numeric),
            groups=n_groups,
            k=k,
        )
    ]
    notes += codes_note(problem, TITLE)
    if categorical:
        notes.append(
            Note(
                "mdav.strata",
                f"Groups are formed within each combination of {', '.join(categorical)} "
                f"({n_strata} combinations), whose values are released unchanged.",
                columns=", ".join(categorical),
                strata=n_strata,
            )
        )
    return notes
