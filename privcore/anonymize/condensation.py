"""Condensation: synthetic records from groups of at least k (Aggarwal & Yu 2004).

Seed 003 §20.3.1.4; SPEC §4. The table is cut into groups of ≥ k records; each group
is replaced by as many synthetic records, drawn from the group's first- and
second-order statistics.

Grouping. Numeric quasi-identifiers (QIs) are standardized (z-scores; a constant
column contributes nothing). While at least k records remain, a random remaining
record (seeded numpy Generator) and its k − 1 nearest remaining records (Euclidean
distance on the standardized numeric QIs; records at equal distance in a fixed order)
form a group; a k-d tree finds them (:func:`condensation_groups`: about O(n log n)).
The last < k records each join the group whose mean is nearest to them.
With l-diversity or t-closeness constraints, a group whose sensitive values fail them
then joins its nearest group (by mean), smallest failing group first, until every
group satisfies (:func:`merge_violating_groups`); the models are monotone under
merging, so only a table that fails as one group is infeasible. That loop costs about
groups × failing groups comparisons, capped on a hosted demo
(:func:`~privcore.anonymize.base.check_local_recoding_cost`); progress is reported
several times a second, so a run can be cancelled.

What it guarantees, and what not. Each released row stands for a group of at least k
records: its numeric QIs are synthesized from the group's mean and covariance, its
categorical QIs and its other columns are values of the group, permuted within it, so
the release shows no more than the group's first- and second-order statistics and its
multisets of values. It does not guarantee that no released row is a real record: a
group whose numeric QIs are constant (common with one integer QI such as an age) has
zero covariance, its synthetic values are its real ones, and the permutation can pair
them with a member's own values again. Every release reports how many of its rows equal
a real record (``real_records``: their own, or any), and the notes say so.

Synthesis, per group of g records with numeric QI matrix X (g × d), for every group at
once (:func:`synthesize`):

- mean μ and covariance C (the sample covariance, divisor g − 1, so that the
  synthetic sample covariance has expectation C; C = 0 for a group of one record,
  possible only with k = 1);
- eigen-decomposition C = V diag(λ) Vᵀ;
- each synthetic record: independent uniform coordinates u_i on [−√(3λ_i), √(3λ_i)]
  (variance λ_i, range √(12λ_i)) along the eigenvectors, rotated back: y = V u + μ;
- the g synthetic records are re-centred (their sample mean subtracted, μ added), so
  the group mean is preserved **exactly** (up to floating-point rounding); the
  re-centring is a translation, so it does not change their covariance.

Covariance is preserved in expectation only. For uniform coordinates (excess kurtosis
−1.2) the sampling error of the synthetic covariance S of a group of g records has,
in the eigenbasis, variance ≈ 0.8·λ_i²/(g − 1) on the diagonal and λ_i·λ_j/(g − 1)
off it, so the relative Frobenius error ‖S − C‖_F / ‖C‖_F has root mean square about
√(((Σλ)² − 0.2·Σλ²) / ((g − 1)·Σλ²)), at most √((d − 0.2)/(g − 1)): ≈ 0.19 for
d = 2, g = 50, and ≈ 0.06 for g = 500. The tests check that the mean over groups of
the error divided by this figure stays below 1.5 (about 0.9 is observed), and the
mean error below 1.5 times the worst case.

Other columns. Categorical QIs: each synthetic record takes a value of its group, by
a random permutation of the group's values (one permutation for all categorical QIs,
so their combinations within the group are kept). Sensitive and insensitive columns:
permuted within the group by another, independent permutation (the group's values and
their combinations are kept; the link between a record's QIs and its sensitive values
is broken). Identifiers are removed as by every algorithm.

Numeric QIs are released as floats, also for integer columns: rounding the synthetic
values would break the exact group means.

The privacy models: each group holds at least k records that are indistinguishable by
construction (k-indistinguishability of the group), and its multiset of sensitive
values — released unchanged, permuted within the group — meets the l-diversity and
t-closeness constraints. These hold for the condensation groups (``class_ids``), not
for equal released QI values — the independent measurement of the release, which groups
rows by equal cells, will typically find classes of one row.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from privcore.anonymize.base import (
    ClassChecker,
    Problem,
    Progress,
    ProgressClock,
    Release,
    check_local_recoding_cost,
    finish,
    report_progress,
    require_local_recoding,
)
from privcore.anonymize.nearest_merge import merge_into_nearest
from privcore.anonymize.perturbative import code_qis, numeric_qis
from privcore.anonymize.problem import Call, shared_signature
from privcore.classes import code_counts, distinct_rows, group_sums
from privcore.core.notes import Note
from privcore.core.scaling import column_units
from privcore.errors import ParameterError

NOTE_SYNTHETIC = Note(
    "condensation.synthetic",
    "The release is synthetic: its numeric quasi-identifiers are drawn from the mean and "
    "covariance of groups of at least k records, and its other columns are the group's "
    "own values, permuted within the group. The privacy models hold for the "
    "condensation groups, not for equal QI values. A released row can still equal a real "
    "record: a group whose numeric values are all equal releases exactly those values.",
)
NOTE_FLOATS = Note(
    "condensation.floats",
    "Numeric quasi-identifiers are released as floats (rounding would break the exact "
    "group means).",
)


def _numeric_qis(problem: Problem) -> list[str]:
    """The QIs condensation synthesizes: measurements. Numbers that are codes (a ZIP, an
    identifier: :func:`~privcore.data.roles.code_column`) are categories — a group's
    mean and covariance of ZIPs name no place — and are permuted within each group like
    the other categorical QIs."""
    numeric = numeric_qis(problem)
    if not numeric:
        codes = [c.column for c in code_qis(problem)]
        because = (
            f"; {', '.join(codes)} hold codes (a ZIP, an identifier), which are categories"
            if codes
            else ""
        )
        raise ParameterError(
            "Condensation needs at least one numeric quasi-identifier: it synthesizes "
            f"records from each group's mean and covariance{because}.",
            code="anonymize.condensation_no_numeric",
            columns=codes,
        )
    # Infinite values ("inf" in a CSV) would turn a group's mean and covariance into NaN.
    incomplete = [
        c
        for c in numeric
        if not np.isfinite(problem.frame[c].to_numpy(dtype="float64", na_value=np.nan)).all()
    ]
    if incomplete:
        raise ParameterError(
            f"Condensation needs complete numeric quasi-identifiers; "
            f"{', '.join(incomplete)} has missing or infinite values. Fill or remove them first.",
            code="anonymize.condensation_missing",
            columns=incomplete,
        )
    return numeric


def condensation_groups(
    z: np.ndarray, k: int, rng: np.random.Generator, progress: Progress | None = None
) -> np.ndarray:
    """Group id per row: groups of ≥ k rows of the standardized matrix ``z`` (n × d).

    While at least k rows remain, a random remaining row (seeded) and its k − 1 nearest
    remaining rows (Euclidean distance; the chosen row itself even among duplicates;
    rows at equal distance in a fixed order) form a group. The last < k rows each join
    the group whose mean is nearest to them (ties: the lowest group id). With k = 1
    every row is its own group.

    Search: rows with equal values are one point, holding its remaining rows. A k-d
    tree (:class:`scipy.spatial.cKDTree`) over the points that still hold rows gives
    the points nearest to the chosen row's, in order of distance (a query for the q
    nearest, q doubled until they hold k rows; emptied points are skipped, and the tree
    is rebuilt once half of its points are empty); the group takes the chosen row, then
    rows of its point and of the next points. A group costs about O(k log n) instead of
    a scan of every remaining row — O(n log n) in all rather than O(n²/k) — and a
    column with few distinct values (ages) costs next to nothing.
    """
    from scipy.spatial import cKDTree

    n = len(z)
    if k <= 1:
        return np.arange(n, dtype=np.int64)
    group = np.full(n, -1, dtype=np.int64)
    points, point_of = distinct_rows(z)
    # The rows of point p are block[start[p] : start[p] + size[p]], its remaining rows
    # the first left[p] of them; slot[r] is row r's index in block.
    block = np.argsort(point_of, kind="stable")
    start = np.searchsorted(point_of[block], np.arange(len(points)))
    left = code_counts(point_of, len(points))
    slot = np.empty(n, dtype=np.int64)
    slot[block] = np.arange(n)
    grouped = np.zeros(n, dtype=bool)
    pool = np.arange(n, dtype=np.int64)  # the remaining rows are pool[:size]
    where = np.arange(n, dtype=np.int64)  # each row's position in pool
    size = n
    tree_points = np.arange(len(points))
    tree = cKDTree(points)
    emptied = 0  # points of the tree that hold no row any more
    count = 0
    clock = ProgressClock(progress)
    while size >= k:
        j = int(pool[rng.integers(size)])
        p = int(point_of[j])
        # The chosen row goes last among its point's remaining rows: taken first.
        last = start[p] + left[p] - 1
        other = block[last]
        block[last], block[slot[j]] = j, other
        slot[other], slot[j] = slot[j], last
        parts, need = [], k
        for point in _nearest_points(tree, tree_points, points[p], left, k):
            m = min(int(left[point]), need)
            end = start[point] + left[point]
            parts.append(block[end - m : end])
            left[point] -= m
            need -= m
            emptied += int(left[point] == 0)
            if not need:
                break
        take = np.concatenate(parts)
        group[take] = count
        grouped[take] = True
        count += 1
        size = _remove(pool, where, size, take, grouped)
        if 2 * emptied > len(tree_points) and size >= k:
            tree_points = np.flatnonzero(left > 0)
            tree = cKDTree(points[tree_points])
            emptied = 0
        if clock.due():
            clock.report(0.7 * (n - size) / n, f"Condensation: {count} groups, {size} records left")
    if size:
        remaining = pool[:size]
        kept = group >= 0
        sums = group_sums(group[kept], count, z[kept])
        means = sums / code_counts(group[kept], count)[:, None]
        dist = ((z[remaining][:, None, :] - means[None, :, :]) ** 2).sum(axis=2)
        group[remaining] = np.argmin(dist, axis=1)  # ties: the lowest group id
    return group


def _nearest_points(
    tree, tree_points: np.ndarray, point: np.ndarray, left: np.ndarray, k: int
) -> np.ndarray:
    """Points of the tree still holding rows, nearest first, until they hold ≥ k rows
    (the tree holds every point that still has rows)."""
    q = min(k, len(tree_points))
    while True:
        _, found = tree.query(point, k=q)
        nearest = tree_points[np.atleast_1d(found)]
        nearest = nearest[left[nearest] > 0]
        if int(left[nearest].sum()) >= k or q == len(tree_points):
            return nearest
        q = min(2 * q, len(tree_points))


def _remove(
    pool: np.ndarray, where: np.ndarray, size: int, take: np.ndarray, grouped: np.ndarray
) -> int:
    """Take the rows ``take`` (already flagged in ``grouped``) out of pool[:size]: the
    remaining rows of the pool's tail fill their slots. Returns the new size."""
    new_size = size - len(take)
    slots = where[take]
    holes = slots[slots < new_size]
    tail = pool[new_size:size]
    movers = tail[~grouped[tail]]
    pool[holes] = movers
    where[movers] = holes
    return new_size


def merge_violating_groups(
    group: np.ndarray,
    z: np.ndarray,
    checker: ClassChecker,
    progress: Progress | None = None,
) -> tuple[np.ndarray, int]:
    """Merge groups that fail a constraint (l-diversity, t-closeness) into their
    nearest group until every group satisfies; returns the renumbered group ids and the
    number of merges.

    Repeatedly the smallest failing group (ties: the lowest id) joins the group whose
    mean (standardized numeric QIs) is nearest to its own (ties: the lowest id); the
    merged group keeps the lower id and the size-weighted mean. Every model is monotone
    under merging, so this ends with satisfying groups, or with one group — the whole
    table — that fails, which :meth:`ClassChecker.infeasible` reports.
    """
    violating = checker.violating_groups(group)
    check_local_recoding_cost("Condensation", int(group.max()) + 1, int(violating.sum()))
    clock = ProgressClock(progress)

    def merged(count: int) -> None:
        if clock.due():
            clock.report(0.7, f"Condensation: {count} groups merged")

    outcome = merge_into_nearest(group, z, violating, checker.violates, merged)
    if outcome.ids is None:
        raise checker.infeasible(outcome.failing_rows)
    return outcome.ids, outcome.merges


def synthesize(x: np.ndarray, group: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Synthetic records for every group at once (``group``: id per row of ``x``, n × d):
    each group keeps its mean exactly and its covariance in expectation (uniform
    coordinates along the eigenvectors of its covariance, variance λ_i each).

    Vectorized over groups: per-group sums (:func:`~privcore.classes.group_sums`),
    covariances of the centred rows, one batched eigen-decomposition, one draw of
    n × d uniforms.
    """
    n, d = x.shape
    n_groups = int(group.max()) + 1 if n else 0
    sizes = code_counts(group, n_groups).astype(np.float64)

    def group_means(values: np.ndarray) -> np.ndarray:
        return group_sums(group, n_groups, values) / sizes[:, None]

    mean = group_means(x)
    centred = x - mean[group]
    cov = np.zeros((n_groups, d, d))
    divisor = np.maximum(sizes - 1.0, 1.0)
    for a in range(d):
        for b in range(a, d):
            products = group_sums(group, n_groups, centred[:, a] * centred[:, b])
            cov[:, a, b] = cov[:, b, a] = products / divisor
    cov[sizes < 2] = 0.0  # one record: its own value
    eigenvalues, eigenvectors = np.linalg.eigh(cov)
    half_range = np.sqrt(3.0 * np.clip(eigenvalues, 0.0, None))
    u = rng.uniform(-1.0, 1.0, size=(n, d)) * half_range[group]
    y = np.einsum("nij,nj->ni", eigenvectors[group], u)
    return y - group_means(y)[group] + mean[group]


def synthesize_group(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Synthetic records with the mean of ``x`` (g × d) exactly and its covariance in
    expectation (:func:`synthesize` for one group)."""
    return synthesize(x, np.zeros(len(x), dtype=np.int64), rng)


def _permute_within(group: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Row i takes the values of row source[i], a random row of the same group."""
    by_group = np.argsort(group, kind="stable")
    shuffled = np.lexsort((rng.random(len(group)), group))
    source = np.empty(len(group), dtype=np.int64)
    source[by_group] = shuffled
    return source


@shared_signature
def condensation(call: Call) -> Release:
    """Condensation (Aggarwal & Yu 2004; see the module docstring).

    ``weights`` (a frequency set): condensation synthesizes records one by one, so the
    records of one frequency-set row would get different released values — it needs
    the records themselves; weights above 1 raise
    :class:`~privcore.errors.InfeasibleError` ``anonymize.needs_records``, weights all
    1 are the records (an ordinary release).

    Every constraint (k, the three l-diversities, t-closeness) is met by the groups; at
    least one numeric QI is needed. The release is synthetic (``synthetic=True``),
    ``class_ids`` are the groups (each ≥ k rows), nothing is suppressed; ``params``
    gain ``groups`` and ``merges`` (groups joined for l/t). Deterministic for a given
    ``seed``.
    """
    progress = call.progress
    started = time.perf_counter()
    call = call.records("Condensation")
    problem = call.prepare(need_hierarchies=False)
    require_local_recoding(problem, "Condensation")
    numeric = _numeric_qis(problem)
    frame = problem.frame
    n, k = problem.n_rows, problem.k
    rng = np.random.default_rng(problem.seed)
    report_progress(progress, 0.0, f"Condensation: grouping {n} records into groups of ≥ {k}")

    x = frame[numeric].to_numpy(dtype=np.float64)
    units = column_units(x)  # values near ±1e308: means and covariances in a unit that fits
    x = x * units
    spread = x.std(axis=0)
    z = (x - x.mean(axis=0)) / np.where(spread > 0, spread, 1.0)
    group = condensation_groups(z, k, rng, progress)
    checker = ClassChecker(problem, "Condensation")
    merges = 0
    if not checker.sizes_decide:
        group, merges = merge_violating_groups(group, z, checker, progress)
    n_groups = int(group.max()) + 1
    report_progress(progress, 0.7, f"Condensation: synthesizing {n_groups} groups")

    with np.errstate(over="ignore"):
        synthetic = synthesize(x, group, rng) / units
    # a draw near ±1.8e308 may land beyond the floats: the largest float it is
    synthetic = np.clip(synthetic, -np.finfo(np.float64).max, np.finfo(np.float64).max)
    search_seconds = time.perf_counter() - started

    released = frame.copy()
    for j, column in enumerate(numeric):
        released[column] = pd.Series(synthetic[:, j], index=frame.index, dtype=np.float64)
    categorical = [c for c in problem.qi if c not in numeric]
    others = [c for c in frame.columns if c not in problem.qi and c not in problem.identifiers]
    for columns in (categorical, others):
        if columns:
            source = _permute_within(group, rng)
            for column in columns:
                values = frame[column].iloc[source]
                released[column] = values.set_axis(frame.index)

    report_progress(progress, 0.9, "Condensation: measuring the release")
    notes = [NOTE_SYNTHETIC]
    if any(pd.api.types.is_integer_dtype(frame[c].dtype) for c in numeric):
        notes.append(NOTE_FLOATS)
    if problem.max_suppression > 0:
        notes.append(
            Note(
                "condensation.no_suppression",
                "Condensation suppresses no rows; the suppression limit was not used.",
            )
        )
    release = finish(
        problem,
        released,
        np.zeros(n, dtype=bool),
        algorithm="condensation",
        params={"groups": n_groups, "merges": merges},
        started=started,
        search_seconds=search_seconds,
        synthetic=True,
        notes=notes,
        class_override=group,
        numeric=numeric,
    )
    report_progress(progress, 1.0, "Done")
    return release
