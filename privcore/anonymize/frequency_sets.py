"""Frequency sets of the lattice's nodes, rolled up from one another (Incognito).

The table is grouped once into the distinct combinations of (QI leaf, sensitive values)
with their counts — the frequency set of the bottom node (LeFevre, DeWitt &
Ramakrishnan 2005). The frequency set of a more general node is *rolled up* from that of
any less general node already computed, by mapping each group's labels one or more
levels up and summing counts: no rescan of the rows. A table given as a frequency set
(``Problem.weights``) is grouped with its weights: its bottom frequency set, and so
every node's, is that of the expanded table.

A frequency set does not depend on which predecessor it comes from: groups stay numbered
in the order of their first row of the table, and counts are sums of whole numbers.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from privcore.anonymize.base import Problem
from privcore.classes import group_rows
from privcore.classes.rows import first_and_sums

CACHE_GROUPS = 4_000_000  # groups kept in rolled-up frequency sets (memory bound)


@dataclass(frozen=True, eq=False)
class FrequencySet:
    """Distinct (QI labels at ``levels``, sensitive codes) combinations and their counts."""

    levels: tuple[int, ...]
    labels: np.ndarray  # groups × QIs, label index at each QI's level (-1: missing)
    sensitive: np.ndarray  # groups × SAs, value codes
    weights: np.ndarray  # records per group

    @property
    def n_groups(self) -> int:
        return len(self.weights)


class Rollup:
    """How the labels of one problem's QIs map up their hierarchies: the bottom
    frequency set and the roll-up of a frequency set to a more general node."""

    def __init__(self, problem: Problem) -> None:
        self.problem = problem
        self.qi = problem.qi
        self.hierarchies = [problem.hierarchies[c] for c in self.qi]
        self.heights = tuple(h.height for h in self.hierarchies)
        self._n_labels = [
            [len(h.labels(level)) for level in range(h.height + 1)] for h in self.hierarchies
        ]
        self._up_tables: dict[tuple[int, int, int], np.ndarray] = {}

    def bottom(self, *, with_sensitive: bool) -> FrequencySet:
        """The bottom node's frequency set: the distinct (QI leaf, sensitive values —
        when ``with_sensitive``) combinations of the table and their records."""
        problem = self.problem
        leaf = [problem.leaf_codes[c] for c in self.qi]
        names = problem.sa if with_sensitive else ()
        sens = [problem.sensitive[s].codes for s in names]
        cards = [len(h.leaves) + 1 for h in self.hierarchies] + [
            problem.sensitive[s].n_values for s in names
        ]
        shifted = [c + 1 for c in leaf] + sens  # missing (-1) becomes code 0
        groups = group_rows(shifted, cards, weights=problem.weights)  # rows of a freq. set
        weights, first = groups.counts.astype(np.int64), groups.first
        return FrequencySet(
            tuple(0 for _ in self.qi),
            by_group([c[first] for c in leaf], len(first)),
            by_group([c[first] for c in sens], len(first)),
            weights,
        )

    def up_table(self, q: int, source: int, target: int) -> np.ndarray:
        """Labels of QI q at level ``source`` → their ancestors at ``target``, both
        shifted by one (0: missing, which stays missing below the top and joins the top
        label at the top): index ``label + 1``, value ``ancestor + 1``."""
        key = (q, source, target)
        table = self._up_tables.get(key)
        if table is None:
            hierarchy = self.hierarchies[q]
            codes = hierarchy.codes(source)
            # ancestor of a level-`source` label = label at `target` of any leaf below it
            first_leaf = np.zeros(len(hierarchy.labels(source)), dtype=np.int64)
            first_leaf[codes[::-1]] = np.arange(len(codes))[::-1]
            ancestors = np.asarray(hierarchy.codes(target), dtype=np.int64)[first_leaf]
            missing = 1 if target == hierarchy.height else 0
            table = np.concatenate(([missing], ancestors + 1)).astype(np.int64)
            self._up_tables[key] = table
        return table

    def roll_up(self, source: FrequencySet, node: tuple[int, ...]) -> FrequencySet:
        """The frequency set of ``node`` from that of a less general node: each group's
        labels mapped up, equal groups merged and their counts summed. A QI at its top
        has one label: it splits no group and is left out of the grouping; a QI at the
        source's level keeps its labels."""
        shifted: list[np.ndarray | None] = []
        for q, level in enumerate(node):
            if level == self.heights[q]:
                shifted.append(None)
            elif level == source.levels[q]:
                shifted.append(source.labels[:, q] + 1)
            else:
                shifted.append(self.up_table(q, source.levels[q], level)[source.labels[:, q] + 1])
        n_sensitive = source.sensitive.shape[1]
        keys = [c for c in shifted if c is not None]
        keys += [source.sensitive[:, j] for j in range(n_sensitive)]
        cards = [
            self._n_labels[q][level] + 1 for q, level in enumerate(node) if shifted[q] is not None
        ]
        cards += [self.problem.sensitive[s].n_values for s in self.problem.sa[:n_sensitive]]
        if keys:
            first, counts = frequency_groups(keys, cards, source.weights)
        else:  # every QI at its top: one group
            first = np.zeros(min(source.n_groups, 1), dtype=np.int64)
            counts = np.array([source.weights.sum()], dtype=np.int64)[: len(first)]
        labels = np.zeros((len(node), len(first)), dtype=np.int64)
        for q, column in enumerate(shifted):
            if column is not None:
                labels[q] = column[first] - 1
        return FrequencySet(node, labels.T, source.sensitive[first], counts)


class FrequencyCache:
    """Frequency sets of nodes, each rolled up from the cached predecessor with the
    fewest groups, bounded in total groups (the least recently used go first; the
    bottom stays).

    The cached nodes' levels are the rows of a matrix (a free row has no groups: inf),
    so that finding the best predecessor is one vectorized dominance test. When only the
    bottom is below a node, the node at level min(level, 1) in every QI is rolled up
    and kept first: the nodes of a search share a few of those, far smaller than the
    bottom. A frequency set does not depend on which predecessor it comes from: groups
    stay numbered in the order of their first row of the table, and counts are sums of
    whole numbers.
    """

    def __init__(self, rollup: Rollup, bottom: FrequencySet) -> None:
        self.rollup = rollup
        self.bottom = bottom
        self._sets: OrderedDict[tuple[int, ...], FrequencySet] = OrderedDict()
        self._groups = 0
        self._slot_of: dict[tuple[int, ...], int] = {}
        self._slot_levels = np.zeros((64, len(bottom.levels)), dtype=np.int64)
        self._slot_groups = np.full(64, np.inf)
        self._free_slots: list[int] = list(range(63, -1, -1))
        self._remember(bottom)

    def get(self, node: tuple[int, ...]) -> FrequencySet:
        found = self._sets.get(node)
        if found is not None:
            self._sets.move_to_end(node)
            return found
        below = np.all(self._slot_levels <= np.asarray(node), axis=1)
        slot = int(np.argmin(np.where(below, self._slot_groups, np.inf)))
        source = self._sets[tuple(int(v) for v in self._slot_levels[slot])]
        if source is self.bottom and self._shares_hub(node):
            source = self.get(tuple(min(level, 1) for level in node))
        fs = self.rollup.roll_up(source, node)
        self._remember(fs)
        return fs

    def _shares_hub(self, node: tuple[int, ...]) -> bool:
        """Whether ``node`` is rolled up through its hub (level min(level, 1) in every
        QI) rather than from the bottom: when the hub differs from it and fewer than
        half of its QIs are at their top — such a node is grouped on its other QIs
        alone, which the bottom gives at once."""
        heights = self.rollup.heights
        at_top = sum(level == h for level, h in zip(node, heights, strict=True))
        return 2 * at_top < len(node) and any(level > 1 for level in node)

    def _remember(self, fs: FrequencySet) -> None:
        self._sets[fs.levels] = fs
        self._groups += fs.n_groups
        if not self._free_slots:
            grown = len(self._slot_groups)
            self._slot_levels = np.concatenate(
                [self._slot_levels, np.zeros_like(self._slot_levels)]
            )
            self._slot_groups = np.concatenate([self._slot_groups, np.full(grown, np.inf)])
            self._free_slots = list(range(2 * grown - 1, grown - 1, -1))
        slot = self._free_slots.pop()
        self._slot_of[fs.levels] = slot
        self._slot_levels[slot] = fs.levels
        self._slot_groups[slot] = fs.n_groups
        while self._groups > CACHE_GROUPS and len(self._sets) > 1:
            levels = next(v for v in self._sets if v != self.bottom.levels)
            dropped = self._sets.pop(levels)
            self._groups -= dropped.n_groups
            slot = self._slot_of.pop(levels)
            self._slot_groups[slot] = np.inf
            self._free_slots.append(slot)


def frequency_groups(
    keys: list[np.ndarray], cards: list[int], weights: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The groups of rows with equal ``keys``: each group's first row and its summed
    ``weights`` (:func:`privcore.classes.rows.first_and_sums`, the seam's)."""
    return first_and_sums(keys, cards, weights)


def by_group(columns: list[np.ndarray], n_groups: int) -> np.ndarray:
    """Per-group columns as a groups × columns matrix whose columns are contiguous
    (the transpose of a columns × groups array), so that a column is read at once."""
    if not columns:
        return np.zeros((n_groups, 0), dtype=np.int64)
    return np.stack(columns).astype(np.int64, copy=False).T
