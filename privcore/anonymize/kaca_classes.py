"""KACA's classes as parallel arrays, their merges, and the search for the nearest class.

The distance of classes a and b (Li, Wong, Fu & Pei 2006; :mod:`privcore.anonymize.kaca`)
is the distortion their merge adds,

    distance(a, b) = (|a| + |b|) · W − cost(a) − cost(b),   cost(c) = |c| · w(c),

with W the summed WHD of the merged nodes and w(c) that of c's own nodes. Ties within
a relative 10⁻⁹ go to the lowest class id.

Pricing: QIs with a merge table are packed into groups of at most 2,048 joint nodes
(:func:`~privcore.anonymize.kaca_nodes.pack`); the row of a joint node holds the summed
WHD of the group's common ancestors with every joint node, so pricing the merge of a
class with another takes one read per group, from rows that stay in the processor's
cache (a QI with more than 1,500 nodes compares the labels of each level instead).
Dead classes cost −∞, so their distance is ∞ without a mask. Each step prices only the
classes that an exact lower bound cannot rule out (see
:mod:`privcore.anonymize.kaca_search`).

This module lays out the arrays and tables (:class:`~privcore.anonymize.kaca_search.State`,
:class:`~privcore.anonymize.kaca_search.Tables`); the loop itself is compiled
(:mod:`privcore.anonymize.kaca_search`).
"""

from __future__ import annotations

import numpy as np

from privcore.anonymize import kaca_search
from privcore.anonymize.kaca_nodes import QiNodes, pack
from privcore.anonymize.kaca_search import ALIVE, HEAP, LAST, MERGES, SLOTS, VIOLATING_ROWS
from privcore.anonymize.kaca_search import near_threshold as near_threshold  # the tie rule

_EMPTY = np.zeros(0, dtype=np.int64)


def _concatenated(arrays: list[np.ndarray], dtype: type = np.int64) -> np.ndarray:
    return np.concatenate(arrays) if arrays else np.zeros(0, dtype=dtype)


def _grown(array: np.ndarray, slots: int) -> np.ndarray:
    """``array`` with room for ``slots`` along its last axis."""
    out = np.zeros((*array.shape[:-1], slots), dtype=array.dtype)
    out[..., : array.shape[-1]] = array
    return out


def _offsets(widths: list[int]) -> np.ndarray:
    return np.concatenate(([0], np.cumsum(widths)[:-1])).astype(np.int64)


def _table_qis(qis: list[QiNodes]) -> tuple[list[int], list[int]]:
    """The QIs with a merge table, and their node counts."""
    table_qs = [i for i, q in enumerate(qis) if q.merge_weight is not None]
    return table_qs, [qis[i].n_nodes for i in table_qs]


def _tables(qis: list[QiNodes], groups: list[list[int]], n_rows: int) -> kaca_search.Tables:
    """The QIs' nodes laid out for the compiled search (see ``Tables``' fields), the
    table QIs priced in ``groups``."""
    table_qs = _table_qis(qis)[0]
    level_qs = [i for i, q in enumerate(qis) if q.merge_weight is None]
    radix = np.zeros((len(groups), len(qis)), dtype=np.int64)
    widths = []
    for g, members in enumerate(groups):
        step = 1
        for q in reversed(members):  # the last QI is the lowest digit
            radix[g, q] = step
            step *= qis[q].n_nodes
        widths.append(step)
    group_qs = np.zeros((len(groups), max(map(len, groups), default=0)), dtype=np.int64)
    for g, members in enumerate(groups):
        group_qs[g, : len(members)] = members
    table_of = np.full(len(qis), -1, dtype=np.int64)
    table_of[table_qs] = np.arange(len(table_qs))
    t_n = [qis[i].n_nodes for i in table_qs]
    levels = [qis[i] for i in level_qs]
    height = max((q.height for q in levels), default=0) + 1
    lv_labels, lv_ancestor = [], []
    for q in levels:
        labels = np.zeros((q.n_nodes, height), dtype=np.int64)
        labels[:, : q.height + 1] = q.labels[:, q.node_leaf].T
        lv_labels.append(labels)
        ancestor = np.zeros((q.n_nodes, height), dtype=np.int64)
        ancestor[:, : q.height + 1] = q.node_of[:, q.node_leaf].T
        lv_ancestor.append(ancestor)
    lv_weight = np.zeros((len(levels), height))
    for k, q in enumerate(levels):
        lv_weight[k, : q.height + 1] = q.weight
    return kaca_search.Tables(
        radix=radix,
        width=np.array(widths, dtype=np.int64),
        group_qs=group_qs,
        group_len=np.array([len(m) for m in groups], dtype=np.int64),
        table_qs=np.array(table_qs, dtype=np.int64),
        table_of=table_of,
        t_n=np.array(t_n, dtype=np.int64),
        t_off=_offsets([n * n for n in t_n]),
        merge_node=_concatenated([qis[i].merge_node.ravel() for i in table_qs]),
        merge_weight=_concatenated([qis[i].merge_weight.ravel() for i in table_qs], float),
        w_off=_offsets(t_n),
        node_weight=_concatenated([qis[i].node_weight for i in table_qs], float),
        level_qs=np.array(level_qs, dtype=np.int64),
        lv_off=_offsets([q.n_nodes for q in levels]),
        lv_labels=np.concatenate(lv_labels) if levels else np.zeros((0, 1), dtype=np.int64),
        lv_level=_concatenated([q.node_level for q in levels]),
        lv_ancestor=np.concatenate(lv_ancestor) if levels else np.zeros((0, 1), dtype=np.int64),
        lv_weight=lv_weight,
        row_cache=np.zeros((len(groups), kaca_search.ROW_SLOTS, max(widths, default=1))),
        row_tag=np.full((len(groups), kaca_search.ROW_SLOTS), -1, dtype=np.int64),
        weights=np.zeros(len(table_qs)),
        # a distance's rounding: a few ulps of (|a| + |b|) · W ≤ rows · QIs, and of the
        # sums of at most QIs weights ≤ 1 each, times the sizes
        margin=4e-15 * n_rows * (len(qis) + 2) ** 2,
    )


def _counter(slot: int, doc: str) -> property:
    """The loop's counter ``slot`` (:mod:`~privcore.anonymize.kaca_search`) as an int."""
    return property(lambda classes: int(classes.state.counters[slot]), doc=doc)


class Classes:
    """The current classes, one slot each (sorted by key, see
    :class:`~privcore.anonymize.kaca_search.State`), and the queue of the violating ones
    (smallest first, ties: the lowest id), with the merge loop over them.

    ``first_row`` and ``sizes``: the raw classes (rows with equal QI values); ``failing``
    which of them violate; ``row_class`` (when sizes alone do not decide) each row's raw
    class: the rows of every class are kept, in row order — a merged class keeps the
    survivor's rows, then the other's. Class ids
    are those of the raw classes (< 2³¹, as sizes: a queue entry packs both).
    """

    def __init__(
        self,
        qis: list[QiNodes],
        first_row: np.ndarray,
        sizes: np.ndarray,
        failing: np.ndarray | None = None,
        row_class: np.ndarray | None = None,
    ) -> None:
        self.qis = qis
        n = len(first_row)
        size = np.asarray(sizes, dtype=np.int64).copy()
        node = np.stack([q.node_of[0, q.dense[first_row]] for q in qis])  # (Q, n)
        self.groups = pack(*_table_qis(qis))
        self.tables = _tables(qis, self.groups, int(size.sum()))
        failing = np.zeros(n, dtype=bool) if failing is None else failing
        queued = np.flatnonzero(failing)
        heap = np.zeros(2 * n + 1, dtype=np.int64)  # a push per violating class and merge
        heap[: len(queued)] = np.sort((size[queued] << 32) | queued)  # sorted: a heap
        head, tail, next_row = _EMPTY, _EMPTY, _EMPTY
        if row_class is not None:  # each class's rows in row order, linked
            order = np.argsort(row_class, kind="stable")
            firsts = np.cumsum(size) - size
            head, tail = order[firsts], order[firsts + size - 1]
            next_row = np.full(len(order), -1, dtype=np.int64)
            next_row[order[:-1]] = order[1:]
            next_row[tail] = -1
        counters = np.zeros(8, dtype=np.int64)
        counters[[SLOTS, ALIVE, VIOLATING_ROWS, HEAP]] = [n, n, size[failing].sum(), len(queued)]
        joint = self.tables.radix @ node
        width = max(self.tables.width, default=1)
        count = np.zeros((len(joint), width), dtype=np.int64)
        for g, joints in enumerate(joint):
            count[g] = np.bincount(joints, minlength=width)  # not rows: classes per node
        slots = 2 * n + 2  # room for the classes that move before the next sort
        self.state = kaca_search.State(
            counters=counters,
            ids=_grown(np.arange(n, dtype=np.int64), slots),
            pos_of=np.arange(n, dtype=np.int64),
            alive=_grown(np.ones(n, dtype=bool), slots),
            size=_grown(size, slots),
            size_f=_grown(size.astype(float), slots),
            cost=np.zeros(slots),
            node=_grown(node, slots),
            joint=_grown(joint, slots),
            start=np.zeros(max(self.tables.width, default=1) + 1, dtype=np.int64),
            count=count,
            tally=np.zeros(len(joint), dtype=np.int64),
            violating=np.asarray(failing, dtype=bool).copy(),
            parent=np.arange(n, dtype=np.int64),
            heap=heap,
            head=head,
            tail=tail,
            next_row=next_row,
            dist=np.zeros(slots),
            near=np.zeros(slots, dtype=np.int64),
        )
        kaca_search.sort_classes(self.state, self.tables)

    # ------------------------------------------------------------------ the loop
    def merge(self, limit: int, minimum: int, decide: bool, max_merges: int) -> int:
        """Run the compiled loop (:func:`~privcore.anonymize.kaca_search.merge_loop`)."""
        return int(
            kaca_search.merge_loop(self.state, self.tables, limit, minimum, decide, max_merges)
        )

    def requeue(self, keep: int, violates: bool) -> None:
        """Answer a CHECK of the loop: whether the merged class ``keep`` violates."""
        state = self.state
        kaca_search.requeue(
            keep, violates, state.violating, state.size, state.pos_of, state.heap, state.counters
        )

    def rows_of(self, c: int) -> np.ndarray:
        """The rows of class c (kept only when sizes alone do not decide)."""
        state = self.state
        return kaca_search.class_rows(c, state.pos_of, state.size, state.head, state.next_row)

    last = _counter(LAST, "The class the loop stopped at (CHECK, WHOLE_TABLE).")
    merges = _counter(MERGES, "Merges made so far.")
    violating_rows = _counter(VIOLATING_ROWS, "Rows of the violating classes.")
    n_alive = _counter(ALIVE, "Classes not merged into another.")

    # ------------------------------------------------------------------ the result
    @property
    def violating(self) -> np.ndarray:
        """Whether each class (by id) violates."""
        return self.state.violating

    @property
    def parent(self) -> np.ndarray:
        """The class each class (by id) merged into; itself while alive."""
        return self.state.parent

    @property
    def node(self) -> np.ndarray:
        """Each slot's node per QI, (QI, slot)."""
        return self.state.node[:, : self.state.counters[SLOTS]]

    @property
    def joint(self) -> np.ndarray:
        """Each slot's joint node per QI group, (group, slot)."""
        return self.state.joint[:, : self.state.counters[SLOTS]]

    def group_row(self, g: int, pos: int) -> np.ndarray:
        """For QI group g, the summed WHD of the common ancestors of slot ``pos``'s
        nodes and every joint node: the sum over the group's QIs (in order) of their
        ``merge_weight`` rows, laid out like the joint ids (as the search reads it)."""
        state, tables = self.state, self.tables
        kaca_search.group_row(g, pos, state.node, state.joint, tables)
        slot = state.joint[g, pos] % tables.row_cache.shape[1]
        return tables.row_cache[g, slot, : tables.width[g]].copy()

    def live(self) -> tuple[np.ndarray, np.ndarray]:
        """The ids of the live classes (in id order) and their nodes, (QI, class)."""
        state = self.state
        slots = np.flatnonzero(state.alive[: state.counters[SLOTS]])
        slots = slots[np.argsort(state.ids[slots])]
        return state.ids[slots], state.node[:, slots]

    def nodes_of(self, ids: np.ndarray) -> np.ndarray:
        """The nodes (QI, len(ids)) of live classes given by id."""
        return self.state.node[:, self.state.pos_of[ids]]
