"""privcore.core.bipartite: a maximum matching, checked by brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from privcore.core.bipartite import maximum_matching


def _brute_force(covered: np.ndarray) -> int:
    """The size of a maximum matching by trying every assignment of rows to columns."""
    n_rows, n_cols = covered.shape
    best = 0
    for columns in itertools.permutations(range(n_cols), min(n_rows, n_cols)):
        for rows in itertools.combinations(range(n_rows), len(columns)):
            best = max(best, sum(bool(covered[r, c]) for r, c in zip(rows, columns, strict=True)))
    return best


def _check(covered: np.ndarray, match: np.ndarray) -> None:
    used = match[match >= 0]
    assert len(set(used.tolist())) == len(used)  # no column twice
    assert all(covered[i, match[i]] for i in np.flatnonzero(match >= 0))


def test_hand_example_needs_an_augmenting_path():
    """Row 0 may take columns 0 or 1, row 1 only column 0: the greedy start gives row 0
    column 0 (the diagonal) and row 1 nothing; the augmenting path 1→0, 0→1 fixes it."""
    covered = np.array([[1, 1], [1, 0]], dtype=bool)
    match = maximum_matching(covered)
    assert match.tolist() == [1, 0]


@pytest.mark.parametrize("seed", range(40))
def test_maximum_on_random_matrices(seed):
    rng = np.random.default_rng(seed)
    covered = rng.random((rng.integers(1, 6), rng.integers(1, 6))) < rng.random()
    match = maximum_matching(covered)
    _check(covered, match)
    assert int((match >= 0).sum()) == _brute_force(covered)


def test_a_shuffled_block_structure_is_matched_perfectly():
    """Released rows that fit every original row of their class (as a generalized
    release does): a perfect matching exists whatever the order."""
    rng = np.random.default_rng(1)
    classes = rng.integers(0, 20, 200)
    order = rng.permutation(200)
    covered = classes[:, None] == classes[order][None, :]
    match = maximum_matching(covered)
    _check(covered, match)
    assert (match >= 0).all()
