"""Condensation: synthetic records from groups of at least k (Aggarwal & Yu 2004).

Seed 003 §20.3.1.4; SPEC §4. The table is cut into groups of ≥ k records; each group
is replaced by as many synthetic records, drawn from the group's first- and
second-order statistics, so that no released record is a real one.

Grouping. Numeric quasi-identifiers (QIs) are standardized (z-scores; a constant
column contributes nothing). While at least k records remain, a random remaining
record (seeded numpy Generator) and its k − 1 nearest remaining records (Euclidean
distance on the standardized numeric QIs, ties broken by numpy's partition) form a
group. The last < k records each join the group whose mean is nearest to them.
With l-diversity or t-closeness constraints, a group whose sensitive values fail them
then joins its nearest group (by mean), smallest failing group first, until every
group satisfies (:func:`merge_violating_groups`); the models are monotone under
merging, so only a table that fails as one group is infeasible.

Synthesis, per group of g records with numeric QI matrix X (g × d):

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

The guarantee: each group holds at least k records that are indistinguishable by
construction (k-indistinguishability of the group), and its multiset of sensitive
values — released unchanged, permuted within the group — meets the l-diversity and
t-closeness constraints. These hold for the condensation groups (``class_ids``), not
for equal released QI values — the independent measurement of the release, which groups
rows by equal cells, will typically find classes of one row.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Sequence

import numpy as np
import pandas as pd

from privcore.anonymize.base import (
    ClassChecker,
    Problem,
    Progress,
    Release,
    finish,
    prepare,
    report_progress,
)
from privcore.data.schema import Schema
from privcore.errors import ParameterError
from privcore.models import PrivacyModel

_PROGRESS_EVERY = 200  # groups between two progress reports

NOTE_SYNTHETIC = (
    "The release is synthetic: its quasi-identifier values are drawn from the mean and "
    "covariance of groups of at least k records, and no row is a real record. "
    "The privacy models hold for the condensation groups, not for equal QI values."
)
NOTE_FLOATS = (
    "Numeric quasi-identifiers are released as floats (rounding would break the exact group means)."
)


def _numeric_qis(problem: Problem) -> list[str]:
    numeric = [
        c
        for c in problem.qi
        if pd.api.types.is_numeric_dtype(problem.frame[c].dtype)
        and not pd.api.types.is_bool_dtype(problem.frame[c].dtype)
    ]
    if not numeric:
        raise ParameterError(
            "Condensation needs at least one numeric quasi-identifier: it synthesizes "
            "records from each group's mean and covariance.",
            code="anonymize.condensation_no_numeric",
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
    """Group id per row: groups of ≥ k rows of the standardized matrix ``z`` (n × d)."""
    n = len(z)
    group = np.full(n, -1, dtype=np.int64)
    remaining = np.arange(n)
    rest = z.copy()
    count = 0
    while len(remaining) >= k:
        j = int(rng.integers(len(remaining)))
        dist = ((rest - rest[j]) ** 2).sum(axis=1)
        dist[j] = -1.0  # the chosen record itself, even among duplicates
        take = np.argpartition(dist, k - 1)[:k] if k < len(remaining) else np.arange(k)
        group[remaining[take]] = count
        count += 1
        keep = np.ones(len(remaining), dtype=bool)
        keep[take] = False
        remaining, rest = remaining[keep], rest[keep]
        if count % _PROGRESS_EVERY == 0:
            report_progress(
                progress,
                0.7 * (n - len(remaining)) / n,
                f"Condensation: {count} groups, {len(remaining)} records left",
            )
    if len(remaining):
        sums = np.zeros((count, z.shape[1]))
        np.add.at(sums, group[group >= 0], z[group >= 0])
        means = sums / np.bincount(group[group >= 0], minlength=count)[:, None]
        dist = ((z[remaining][:, None, :] - means[None, :, :]) ** 2).sum(axis=2)
        group[remaining] = np.argmin(dist, axis=1)  # ties: the lowest group id
    return group


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
    n_groups = int(group.max()) + 1
    order = np.argsort(group, kind="stable")
    sizes = np.bincount(group, minlength=n_groups)
    rows: list[np.ndarray | None] = list(np.split(order, np.cumsum(sizes)[:-1]))
    means = np.zeros((n_groups, z.shape[1]))
    np.add.at(means, group, z)
    means /= sizes[:, None]
    alive = np.ones(n_groups, dtype=bool)
    failing = [(len(r), g) for g, r in enumerate(rows) if checker.violates(r)]
    heapq.heapify(failing)
    merges = 0
    while failing:
        size, a = heapq.heappop(failing)
        if not alive[a] or len(rows[a]) != size:
            continue  # stale: merged since, or queued again with its new size
        if alive.sum() == 1:
            raise checker.infeasible(rows[a])
        dist = ((means - means[a]) ** 2).sum(axis=1)
        dist[a] = np.inf
        dist[~alive] = np.inf
        b = int(np.argmin(dist))
        keep, gone = min(a, b), max(a, b)
        size_keep, size_gone = len(rows[keep]), len(rows[gone])
        means[keep] = (means[keep] * size_keep + means[gone] * size_gone) / (size_keep + size_gone)
        rows[keep] = np.concatenate([rows[keep], rows[gone]])
        rows[gone] = None
        alive[gone] = False
        merges += 1
        if checker.violates(rows[keep]):
            heapq.heappush(failing, (len(rows[keep]), keep))
        if merges % _PROGRESS_EVERY == 0:
            report_progress(progress, 0.7, f"Condensation: {merges} groups merged")
    renumbered = np.empty_like(group)
    for new, old in enumerate(np.flatnonzero(alive)):
        renumbered[rows[old]] = new
    return renumbered, merges


def synthesize_group(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Synthetic records with the mean of ``x`` (g × d) exactly and its covariance in
    expectation (uniform coordinates along the eigenvectors, variance λ_i each)."""
    g, d = x.shape
    mean = x.mean(axis=0)
    if g < 2:
        return np.broadcast_to(mean, (g, d)).copy()
    cov = np.atleast_2d(np.cov(x, rowvar=False))
    eigenvalues, eigenvectors = np.linalg.eigh(cov)
    half_range = np.sqrt(3.0 * np.clip(eigenvalues, 0.0, None))
    u = rng.uniform(-1.0, 1.0, size=(g, d)) * half_range
    y = u @ eigenvectors.T
    return y - y.mean(axis=0) + mean


def _permute_within(group: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Row i takes the values of row source[i], a random row of the same group."""
    by_group = np.argsort(group, kind="stable")
    shuffled = np.lexsort((rng.random(len(group)), group))
    source = np.empty(len(group), dtype=np.int64)
    source[by_group] = shuffled
    return source


def condensation(
    df: pd.DataFrame,
    schema: Schema,
    constraints: Sequence[PrivacyModel],
    *,
    max_suppression: float = 0.0,
    seed: int = 0,
    progress: Progress | None = None,
) -> Release:
    """Condensation (Aggarwal & Yu 2004; see the module docstring).

    Every constraint (k, the three l-diversities, t-closeness) is met by the groups; at
    least one numeric QI is needed. The release is synthetic (``synthetic=True``),
    ``class_ids`` are the groups (each ≥ k rows), nothing is suppressed; ``params``
    gain ``groups`` and ``merges`` (groups joined for l/t). Deterministic for a given
    ``seed``.
    """
    started = time.perf_counter()
    problem = prepare(
        df, schema, constraints, max_suppression=max_suppression, seed=seed, need_hierarchies=False
    )
    numeric = _numeric_qis(problem)
    frame = problem.frame
    n, k = problem.n_rows, problem.k
    rng = np.random.default_rng(problem.seed)
    report_progress(progress, 0.0, f"Condensation: grouping {n} records into groups of ≥ {k}")

    x = frame[numeric].to_numpy(dtype=np.float64)
    spread = x.std(axis=0)
    z = (x - x.mean(axis=0)) / np.where(spread > 0, spread, 1.0)
    group = condensation_groups(z, k, rng, progress)
    checker = ClassChecker(problem, "Condensation")
    merges = 0
    if not checker.only_k:
        group, merges = merge_violating_groups(group, z, checker, progress)
    n_groups = int(group.max()) + 1
    report_progress(progress, 0.7, f"Condensation: synthesizing {n_groups} groups")

    synthetic = np.empty_like(x)
    order = np.argsort(group, kind="stable")
    bounds = np.concatenate(([0], np.cumsum(np.bincount(group, minlength=n_groups))))
    for c in range(n_groups):
        rows = order[bounds[c] : bounds[c + 1]]
        synthetic[rows] = synthesize_group(x[rows], rng)
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
        notes.append("Condensation suppresses no rows; the suppression limit was not used.")
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
    )
    report_progress(progress, 1.0, "Done")
    return release
