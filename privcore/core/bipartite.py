"""Maximum bipartite matching on a small boolean matrix (no scipy import).

The row-order check and the pairing of small tables ask whether the rows of a release
can be matched one to one with the original's (``covered[i, j]``: released row i may be
original row j), and for one such matching. Kuhn's augmenting paths after a greedy start
(Kuhn 1955; Cormen et al., *Introduction to Algorithms*, §26.3): O(V·E) at worst, and for
the tables it serves (at most a few hundred rows, whose covers are blocks of equivalence
classes) the greedy start leaves almost nothing to augment. It replaces
``scipy.optimize.linear_sum_assignment``, whose import alone costs more than a
command-line measurement of a small table.
"""

from __future__ import annotations

import numpy as np

__all__ = ["maximum_matching"]


def maximum_matching(covered: np.ndarray) -> np.ndarray:
    """A maximum matching of rows to columns of the boolean matrix ``covered``:
    ``match[i]`` is the column given to row i, or −1. No two rows share a column, and no
    matching pairs more rows."""
    covered = np.asarray(covered, dtype=bool)
    n_rows, n_cols = covered.shape
    neighbours = [np.flatnonzero(covered[i]).tolist() for i in range(n_rows)]
    match = np.full(n_rows, -1, dtype=np.int64)
    owner = np.full(n_cols, -1, dtype=np.int64)
    # Greedy start: the diagonal first (rows usually keep their place), then any free column.
    for i in range(min(n_rows, n_cols)):
        if covered[i, i]:
            match[i], owner[i] = i, i
    for i in range(n_rows):
        if match[i] < 0:
            for j in neighbours[i]:
                if owner[j] < 0:
                    match[i], owner[j] = j, i
                    break
    for root in range(n_rows):
        if match[root] >= 0 or not neighbours[root]:
            continue
        _augment(root, neighbours, match, owner)
    return match


def _augment(root: int, neighbours: list[list[int]], match: np.ndarray, owner: np.ndarray) -> bool:
    """Find an augmenting path from the free row ``root`` (iterative depth-first search
    over alternating edges) and flip it; True when one was found."""
    seen: set[int] = set()
    parent: dict[int, tuple[int, int]] = {}  # column → (row that reached it, previous column)
    stack = [(root, iter(neighbours[root]), -1)]
    while stack:
        row, columns, via = stack[-1]
        advanced = False
        for j in columns:
            if j in seen:
                continue
            seen.add(j)
            parent[j] = (row, via)
            if owner[j] < 0:  # a free column: flip the path back to the root
                column = j
                while column >= 0:
                    r, previous = parent[column]
                    match[r], owner[column] = column, r
                    column = previous
                return True
            stack.append((int(owner[j]), iter(neighbours[owner[j]]), j))
            advanced = True
            break
        if not advanced:
            stack.pop()
    return False
