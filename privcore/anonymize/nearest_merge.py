"""Groups of records that fail a constraint merged into their nearest group, by mean.

Condensation (Aggarwal & Yu 2004) and MDAV (Domingo-Ferrer & Mateo-Sanz 2002) build
groups of at least k records; l-diversity and t-closeness may still fail on some of them.
Both then merge, one at a time, the smallest failing group (ties: the lowest id) into
the group whose mean — over the standardized numeric QIs ``z`` — is nearest to its own
in squared Euclidean distance (ties: the lowest id); the merged group keeps the lower id
and the size-weighted mean,

    mean(a ∪ b) = (|a|·mean(a) + |b|·mean(b)) / (|a| + |b|),

and is queued again while it fails. Every model the tool checks is monotone under
merging, so this ends with every group satisfying, or with one group left — all the
records — that still fails.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from privcore.classes import code_counts, group_sums, members


@dataclass(frozen=True, eq=False)
class Merged:
    """The outcome: ``ids`` (the groups renumbered 0..g-1 in order of their lowest old
    id), ``merges`` (how many merges), or ``ids`` None when the one group left fails,
    with its rows in ``failing_rows``."""

    ids: np.ndarray | None
    merges: int
    failing_rows: np.ndarray | None = None


def merge_into_nearest(
    group: np.ndarray,
    z: np.ndarray,
    failing: np.ndarray,
    violates: Callable[[np.ndarray], bool],
    on_merge: Callable[[int], None] | None = None,
) -> Merged:
    """Merge the ``failing`` groups (a boolean per group id) of ``group`` (an id 0..m-1
    per row of ``z``) into their nearest groups until none fails (module docstring).
    ``violates(rows)`` says whether the group of those rows (positions in ``z``) fails;
    ``on_merge`` is told the number of merges so far after each one."""
    n_groups = int(group.max()) + 1
    sizes = code_counts(group, n_groups)
    rows: list[np.ndarray | None] = list(members(group, n_groups))
    means = group_sums(group, n_groups, z) / sizes[:, None]
    alive = np.ones(n_groups, dtype=bool)
    queue = [(int(sizes[g]), int(g)) for g in np.flatnonzero(failing)]
    heapq.heapify(queue)
    merges = 0
    while queue:
        size, a = heapq.heappop(queue)
        if not alive[a] or len(rows[a]) != size:
            continue  # stale: merged since, or queued again with its new size
        if alive.sum() == 1:
            return Merged(None, merges, rows[a])
        distance = ((means - means[a]) ** 2).sum(axis=1)
        distance[a] = np.inf
        distance[~alive] = np.inf
        b = int(np.argmin(distance))
        keep, gone = min(a, b), max(a, b)
        n_keep, n_gone = len(rows[keep]), len(rows[gone])
        means[keep] = (means[keep] * n_keep + means[gone] * n_gone) / (n_keep + n_gone)
        rows[keep] = np.concatenate([rows[keep], rows[gone]])
        rows[gone] = None
        alive[gone] = False
        merges += 1
        if violates(rows[keep]):
            heapq.heappush(queue, (len(rows[keep]), keep))
        if on_merge is not None:
            on_merge(merges)
    renumbered = np.empty_like(group)
    for new, old in enumerate(np.flatnonzero(alive)):
        renumbered[rows[old]] = new
    return Merged(renumbered, merges)
