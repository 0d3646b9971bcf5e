"""Nearest released rows, the search of the linkability and inference attacks.

Distance and ties
    Anonymeter's mixed (Gower-like) distance: the sum over columns of |x − y| / range for
    numeric columns (range: greatest minus least value over the original tables and the
    release; 1 when they are all equal) and 0/1 (equal/different) for the others; a
    missing value is at distance 0 from a missing value and 1 from any other (for
    generalized cells: :mod:`privcore.attacks.gdpr_risks.columns`). Released rows at
    equal distance are ordered by a seeded random permutation of the release, one per set
    of columns, so a tie is broken at random, as Anonymeter's unstable sort does in
    effect. The search is vectorized: distances from each target to the distinct released
    combinations of the columns, computed in blocks, then the rows.

Both attacks aim at ``n_attacks`` target records drawn without replacement from the
training set and as many from the control set (:func:`_successes`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from privcore.attacks.gdpr_risks.columns import _Tables
from privcore.classes import group_rows, reduce_runs

_NEIGHBOUR_CELLS = 2**20  # distances per block of targets (kept within the caches)


@dataclass(frozen=True, eq=False)
class _Neighbours:
    """Nearest released rows on a set of columns, ties broken by a random order of the
    release: the distinct released combinations of the columns (``cells``: one row of
    cell codes each), per released row its combination (``combination``) and its place
    in the random order (``place``; ``row_at`` inverts it)."""

    tables: _Tables
    columns: tuple[str, ...]
    cells: np.ndarray
    combination: np.ndarray
    place: np.ndarray
    row_at: np.ndarray
    first_place: np.ndarray  # per combination: the earliest place among its rows

    @classmethod
    def build(
        cls, tables: _Tables, columns: Sequence[str], rng: np.random.Generator
    ) -> _Neighbours:
        codes = tables.codes("release", columns)
        groups = group_rows(
            [codes[:, i] for i in range(codes.shape[1])], tables.sizes("release", columns)
        )
        n = tables.n_release
        row_at = rng.permutation(n)
        place = np.empty(n, dtype=np.int64)
        place[row_at] = np.arange(n)
        order = np.argsort(groups.ids, kind="stable")
        starts = np.concatenate([[0], np.cumsum(groups.counts)[:-1]])
        first_place = reduce_runs(place[order], starts, "min")
        return cls(
            tables,
            tuple(columns),
            codes[groups.first],
            groups.ids,
            place,
            row_at,
            first_place,
        )

    def _distances(self, targets: np.ndarray) -> np.ndarray:
        """(targets × combinations) mixed distances; ``targets`` are domain codes.

        The 0/1 distances of the categorical columns are added as small integers (less
        memory traffic), the numeric ones as floats, and the two sums then added (the
        same operations for every entry, so equal distances stay exactly equal)."""
        shape = (len(targets), len(self.cells))
        columns = [self.tables[name] for name in self.columns]
        categorical = sum(not column.numeric for column in columns)
        mismatches = np.zeros(shape, dtype=np.uint8 if categorical < 256 else np.uint16)
        gaps = np.zeros(shape) if categorical < len(columns) else None
        for j, column in enumerate(columns):
            if column.numeric:
                gaps += column.distance(targets[:, j], self.cells[:, j])
            else:
                mismatches += column.differs(self.cells[:, j], targets[:, j])
        total = mismatches.astype(np.float64)
        if gaps is not None:
            total += gaps
        return total

    def nearest(self, targets: np.ndarray, k: int) -> np.ndarray:
        """(targets × k) released rows nearest to each target (domain codes per column),
        nearest first; ties in the random order."""
        n_combos, n_rows = len(self.cells), len(self.place)
        out = np.empty((len(targets), k), dtype=np.int64)
        width = n_combos if k == 1 else n_rows
        block = max(1, _NEIGHBOUR_CELLS // max(width, 1))
        for start in range(0, len(targets), block):
            part = slice(start, min(start + block, len(targets)))
            distances = self._distances(targets[part])
            if k == 1:
                best = distances.min(axis=1, keepdims=True)
                places = np.where(distances == best, self.first_place[None, :], n_rows)
                out[part, 0] = self.row_at[places.min(axis=1)]
                continue
            by_place = distances[:, self.combination[self.row_at]]  # columns: places
            kth = np.partition(by_place, k - 1, axis=1)[:, k - 1 : k]
            closer = by_place < kth
            tied = by_place == kth
            room = k - closer.sum(axis=1, keepdims=True)
            chosen = closer | (tied & (np.cumsum(tied, axis=1) <= room))
            places = np.nonzero(chosen)[1].reshape(-1, k)
            ranked = np.take_along_axis(by_place, places, axis=1)
            order = np.argsort(ranked, axis=1, kind="stable")
            out[part] = self.row_at[np.take_along_axis(places, order, axis=1)]
        return out


def _targets(tables: _Tables, which: str, columns: Sequence[str], rows: np.ndarray) -> np.ndarray:
    return tables.codes(which, columns)[rows]


def _successes(
    attack: Callable[[str, np.ndarray], int],
    tables: _Tables,
    n_attacks: int,
    rng_train: np.random.Generator,
    rng_control: np.random.Generator,
) -> tuple[int, int]:
    """The successes of ``attack(which, rows)`` on ``n_attacks`` target records of the
    training set and on as many of the control set, each drawn without replacement."""
    on_training = attack("train", rng_train.choice(tables.n_train, n_attacks, replace=False))
    on_control = attack("control", rng_control.choice(tables.n_control, n_attacks, replace=False))
    return on_training, on_control
