"""KACA: k-anonymity by clustering in attribute hierarchies (local recoding).

Li, Wong, Fu & Pei 2006, "Achieving k-anonymity by clustering in attribute
hierarchical structures" (seed 004; SPEC §4). Every quasi-identifier (QI) needs a
generalization hierarchy.

The algorithm starts from the equivalence classes of the raw table (rows with the same
QI values) and gives every class, per QI, a node of that QI's hierarchy: a level g
(0 = original … H = ``*``) and the label of the class's values at that level. Then,
until every class meets every constraint:

1. take a violating class — the smallest first, ties: the lowest class id;
2. find the nearest other class: the one whose merge adds the least distortion,

       distance(a, b) = cost(a ∪ b) − cost(a) − cost(b),
       cost(class) = |class| · Σ_QI WHD(original → the class's level),

   where the merged class takes, per QI, the lowest common ancestor of the two nodes
   (the lowest level at or above both levels where their labels agree), and WHD is the
   weighted hierarchical distance of SPEC §5 with levels counted 1 = most general …
   h = H + 1 = original, so our level g costs ``whd(H + 1, H + 1 − g, H + 1, beta)``;
   ties: the lowest class id;
3. merge the two (the merged class keeps the lower id).

Classes are checked with the constraint objects themselves (k, the three l-diversities,
t-closeness): every model is monotone under merging (seed 003 lemmas 20.3.1–3), so the
loop ends with every class satisfying, or with one class holding the whole table that
still fails — then no recoding can help and :class:`~privcore.errors.InfeasibleError`
is raised.

Each row is released with the labels of its class's nodes; a locally recoded release
is partitioned by equal released cells, which is exactly KACA's classes (classes that
end on the same nodes are reported as one class).

Suppression (SPEC §2, the rule Datafly uses): the loop stops as soon as the rows of the
classes still violating number at most the budget ⌊MaxSup · n⌋; those rows are
suppressed (every QI shown as ``*``). With MaxSup = 0 every class is merged until it
satisfies. In the release, the suppressed rows and the rows of classes that ended at
``*`` in every QI look alike and are one group
(:func:`~privcore.classes.release_classes`): a class when it meets the constraints as
one class, suppression of every row of it otherwise. When that suppression would exceed
the budget, the loop goes on until no class violates (the group at ``*`` is then a union
of satisfying classes, which satisfies).

Vectorized search: per QI, the nodes over the values present in the data are numbered
and tables give, for every pair of nodes, their lowest common ancestor (the node a
merge takes) and its WHD; QIs are packed into few groups whose joint node count is at
most 2,048 (first-fit decreasing), so a step prices the merge of the violating class
with all classes at once: per group, the row of the class's joint node (the summed WHD
against every joint node, built once per joint node and kept) is read at every
class's joint node — one read per group and class, from a row that stays in the
processor's cache (a QI with more than 1,500 nodes compares the labels of each level
instead). Dead classes cost −∞, so their distance is ∞ without a mask, and the arrays
are compacted once a tenth of them are dead. With k-anonymity alone a class is checked
by its size, and each row's class is found at the end from the merges (pointer
jumping), so no class keeps a list of its rows. Adult (30,162 rows, 8 QIs in three
groups, 12,458 raw classes) at k = 5 takes about 0.5 s on one core.

Cost: about (classes) × (violating classes) comparisons; a hosted demo caps it
(:func:`~privcore.anonymize.base.check_local_recoding_cost`), and progress is reported
several times a second, so a run can be cancelled.
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
    ProgressClock,
    Release,
    check_local_recoding_cost,
    finish,
    prepare,
    records_only,
    report_progress,
    require_local_recoding,
    suppress,
)
from privcore.classes import SUPPRESSED, classes_from_codes, distinct
from privcore.data.schema import Schema
from privcore.measure.loss import whd
from privcore.models import PrivacyModel

_TABLE_NODES = 1500  # above this many hierarchy nodes of a QI, compare level by level
_JOINT_NODES = 2048  # QIs priced together while the product of their node counts fits
_KEPT_ROWS = 512  # rows of weights kept per QI group (at most 16 KB each)
_TIE = 1e-9  # relative slack under which two distances count as equal
_COMPACT_ALIVE = 1.1  # compact the class arrays once more than a tenth are dead


class _Qi:
    """One QI's hierarchy restricted to the values present in the data.

    ``dense`` is each row's leaf as an index 0..P−1 into the present leaves (a missing
    value is one more leaf of its own, which meets the others only at the top);
    ``labels[g, leaf]`` is the leaf's label index at level g (into
    ``hierarchy.labels(g)``, one past the end for missing); ``weight[g]`` the WHD from
    the original to level g.

    Nodes: the (level, label) pairs over the present leaves, numbered 0..N−1;
    ``node_of[g, leaf]`` is the node of a leaf at level g, ``node_weight`` the WHD of
    each node's level. When N ≤ 1,500, ``merge_node[x, y]`` is the lowest common
    ancestor of nodes x and y — the node a merged class takes — and ``merge_weight[x, y]``
    its WHD, so one lookup per QI prices a merge.
    """

    def __init__(self, name: str, problem: Problem, beta: float) -> None:
        hierarchy = problem.hierarchies[name]
        self.name = name
        self.hierarchy = hierarchy
        self.height = height = hierarchy.height
        present, dense = distinct(problem.leaf_codes[name], return_inverse=True)
        self.dense = dense.astype(np.int64, copy=False).ravel()
        self.n_leaves = len(present)
        labels = np.zeros((height + 1, len(present)), dtype=np.int64)
        for g in range(height):  # level `height` is the single top label, index 0
            codes = np.asarray(hierarchy.codes(g))
            missing_label = len(hierarchy.labels(g))
            labels[g] = np.where(present >= 0, codes[np.maximum(present, 0)], missing_label)
        self.labels = labels
        self.weight = np.array(
            [whd(height + 1, height + 1 - g, height + 1, beta) for g in range(height + 1)]
        )
        node_of = np.zeros_like(labels)
        node_level, node_leaf = [], []
        for g in range(height + 1):
            _, first, inverse = np.unique(  # not rows: one label per present leaf
                labels[g], return_index=True, return_inverse=True
            )
            node_of[g] = len(node_level) + inverse.ravel()
            node_level.extend([g] * len(first))
            node_leaf.extend(first.tolist())
        self.node_of = node_of
        self.node_level = np.array(node_level, dtype=np.int64)
        self.node_leaf = np.array(node_leaf, dtype=np.int64)  # a leaf under each node
        self.n_nodes = len(node_level)
        # Whether a node's label is '*' (the top, or a level that reads '*' for it).
        self.node_star = np.zeros(self.n_nodes, dtype=bool)
        for g in range(height + 1):
            at = np.flatnonzero(self.node_level == g)
            names = np.append(np.asarray(hierarchy.labels(g), dtype=object), None)
            self.node_star[at] = names[labels[g, self.node_leaf[at]]] == SUPPRESSED
        self.node_weight = self.weight[self.node_level]
        self.merge_weight: np.ndarray | None = None
        self.merge_node: np.ndarray | None = None
        if self.n_nodes <= _TABLE_NODES:
            leaf = self.node_leaf
            lca = np.zeros((self.n_nodes, self.n_nodes), dtype=np.int64)
            for g in range(height):
                lca += labels[g, leaf][:, None] != labels[g, leaf][None, :]
            level = np.maximum(np.maximum(lca, self.node_level[:, None]), self.node_level[None, :])
            self.merge_weight = self.weight[level]
            self.merge_node = node_of[level, leaf[:, None]]

    def merged_node(self, x: int, y: int) -> int:
        """The lowest common ancestor of nodes x and y."""
        leaf_x, leaf_y = self.node_leaf[x], self.node_leaf[y]
        lca = int((self.labels[:, leaf_x] != self.labels[:, leaf_y]).sum())
        level = max(int(self.node_level[x]), int(self.node_level[y]), lca)
        return int(self.node_of[level, leaf_x])

    def released(self, nodes: np.ndarray) -> pd.Series:
        """Each row's label at its class's level (missing stays missing below the top)."""
        levels = self.node_level[nodes]
        values = np.empty(len(nodes), dtype=object)
        for g in distinct(levels):
            rows = np.flatnonzero(levels == g)
            names = np.append(np.asarray(self.hierarchy.labels(int(g)), dtype=object), None)
            values[rows] = names[self.labels[g, self.dense[rows]]]
        return pd.Series(values, dtype="str")


class _Classes:
    """The current classes as parallel arrays (one entry per class, in id order).

    ``node[q]`` holds each class's node of QI q, ``size`` its rows, ``cost`` its
    distortion |class| · Σ_QI WHD (−∞ once dead). Dead classes (merged into another)
    stay in place until more than a tenth are dead; then the arrays are compacted,
    keeping the id order so that the first minimum is the lowest id.

    Pricing: QIs with a merge table are packed into groups whose joint node count (the
    product of their node counts) is at most 2,048; the row of a joint node holds the
    summed WHD of the QIs' common ancestors with every joint node. A step then costs one
    read per group and class instead of one per QI and class.
    """

    def __init__(self, qis: list[_Qi], first_row: np.ndarray, sizes: np.ndarray) -> None:
        self.qis = qis
        n = len(first_row)
        self.n_alive = n
        self.ids = np.arange(n, dtype=np.int64)
        self.pos_of = np.arange(n, dtype=np.int64)  # class id → index into the arrays
        self.alive = np.ones(n, dtype=bool)
        self.node = np.stack([q.node_of[0, q.dense[first_row]] for q in qis])  # (Q, n)
        self.size = np.asarray(sizes, dtype=np.int64).copy()
        self.size_f = self.size.astype(float)  # the same sizes, for the distances
        self.cost = np.zeros(n)
        self.table_q = [i for i, q in enumerate(qis) if q.merge_weight is not None]
        self.level_q = [i for i, q in enumerate(qis) if q.merge_weight is None]
        # every QI has a merge table: a class's nodes of those QIs are a column of `node`
        self._table_rows = slice(None) if not self.level_q else np.array(self.table_q)
        # Merged nodes and their weights of the table QIs, one flat lookup for all:
        # index = offset + node_a · N + node_b (nodes), offset + node (weights).
        widths = np.array([qis[i].n_nodes for i in self.table_q], dtype=np.int64)
        self.node_stride = widths
        self.node_offset = np.concatenate(([0], np.cumsum(widths**2)[:-1])).astype(np.int64)
        self.node_flat = _concatenated([qis[i].merge_node.ravel() for i in self.table_q])
        self.weight_offset = np.concatenate(([0], np.cumsum(widths)[:-1])).astype(np.int64)
        self.weight_flat = _concatenated([qis[i].node_weight for i in self.table_q], float)
        # QI groups priced together: a class's joint node in group g is radix[g] @ its
        # nodes; the weights of one joint node against all are a row (see _group_row).
        self.groups = _pack(self.table_q, [qis[i].n_nodes for i in self.table_q])
        self.radix = np.zeros((len(self.groups), len(qis)), dtype=np.int64)
        for g, members in enumerate(self.groups):
            step = 1
            for q in reversed(members):  # the last QI is the lowest digit
                self.radix[g, q] = step
                step *= qis[q].n_nodes
        self._group_rows: list[dict[int, np.ndarray]] = [{} for _ in self.groups]
        self._index_joint()

    def _index_joint(self) -> None:
        self.joint = self.radix @ self.node  # (groups, n): each class's joint node per group
        self._buffers()

    def _buffers(self) -> None:
        # Work buffers, reused by every step (allocating them each time is slower).
        self._row = np.empty(len(self.size))
        self._total = np.empty(len(self.size))
        self._dist = np.empty(len(self.size))

    def _group_row(self, g: int, pos: int) -> np.ndarray:
        """For QI group g, the summed WHD of the common ancestors of class ``pos``'s
        nodes and every joint node: the sum over the group's QIs (in order) of their
        ``merge_weight`` rows, laid out like the joint ids. Kept per joint node."""
        joint = int(self.joint[g, pos])
        rows = self._group_rows[g]
        row = rows.get(joint)
        if row is None:
            row = np.zeros(1)
            for q in self.groups[g]:
                weights = self.qis[q].merge_weight[self.node[q, pos]]
                row = (row[:, None] + weights[None, :]).ravel()
            if len(rows) >= _KEPT_ROWS:
                del rows[next(iter(rows))]
            rows[joint] = row
        return row

    def distances(self, pos: int) -> np.ndarray:
        """Distortion added by merging class ``pos`` with every class (inf for itself
        and for dead classes, whose cost is −inf). The array is a buffer overwritten by
        the next call.

        Per QI group, the row of class ``pos``'s joint node (at most 2,048 weights, so
        the reads stay in the processor's cache) is read at every class's joint node,
        and the groups are summed in order."""
        total, part, joint = self._total, self._row, self.joint
        if self.groups:
            # (every joint id is a valid index: "wrap" only skips the bounds check)
            np.take(self._group_row(0, pos), joint[0], out=total, mode="wrap")
            for g in range(1, len(self.groups)):
                np.take(self._group_row(g, pos), joint[g], out=part, mode="wrap")
                np.add(total, part, out=total)
        else:
            total.fill(0.0)
        for i in self.level_q:  # many nodes: compare the labels level by level
            qi = self.qis[i]
            leaf_a = qi.node_leaf[self.node[i, pos]]
            leaf_b = qi.node_leaf[self.node[i]]
            lca = (qi.labels[:, leaf_b] != qi.labels[:, leaf_a, None]).sum(axis=0)
            level = np.maximum(qi.node_level[self.node[i]], qi.node_level[self.node[i, pos]])
            total += qi.weight[np.maximum(level, lca)]
        dist, size, cost = self._dist, self.size_f, self.cost
        np.add(size, size[pos], out=dist)
        np.multiply(dist, total, out=dist)
        np.subtract(dist, cost, out=dist)  # dead classes: −(−inf) = inf
        np.subtract(dist, cost[pos], out=dist)
        dist[pos] = np.inf
        return dist

    def nearest(self, pos: int) -> int:
        """The id of the class nearest to class ``pos``: the least distance, ties (within
        a relative 10⁻⁹) the lowest id — the first in id order."""
        dist = self.distances(pos)
        first = int(dist.argmin())
        if first:  # a near tie can only come earlier than the first exact minimum
            best = float(dist[first])
            tied = dist[:first] <= best + _TIE * max(1.0, abs(best))
            earlier = int(tied.argmax())
            if tied[earlier]:
                first = earlier
        return int(self.ids[first])

    def merge(self, a: int, b: int) -> int:
        """Merge classes a and b (ids); the survivor keeps the lower id."""
        keep, gone = (a, b) if a < b else (b, a)
        i, j = int(self.pos_of[keep]), int(self.pos_of[gone])
        node = self.node
        weight = 0.0
        if self.table_q:
            rows = self._table_rows
            merged = self.node_flat[
                self.node_offset + node[rows, i] * self.node_stride + node[rows, j]
            ]
            node[rows, i] = merged
            weight += float(self.weight_flat[self.weight_offset + merged].sum())
        for q in self.level_q:
            qi = self.qis[q]
            merged_q = qi.merged_node(node[q, i], node[q, j])
            node[q, i] = merged_q
            weight += qi.node_weight[merged_q]
        size = self.size[i] + self.size[j]
        self.size[i] = size
        self.size_f[i] = size
        self.cost[i] = size * weight
        self.cost[j] = -np.inf  # never the nearest: its distance is inf
        self.alive[j] = False
        self.n_alive -= 1
        self.joint[:, i] = self.radix @ node[:, i]
        if self.n_alive * _COMPACT_ALIVE < len(self.alive):
            self._compact()
        return keep

    def _compact(self) -> None:
        keep = self.alive
        for name in ("ids", "alive", "size", "size_f", "cost"):
            setattr(self, name, getattr(self, name)[keep])
        self.node = self.node[:, keep]
        self.joint = self.joint[:, keep]
        self.pos_of[self.ids] = np.arange(len(self.ids))
        self._buffers()


def _concatenated(arrays: list[np.ndarray], dtype: type = np.int64) -> np.ndarray:
    return np.concatenate(arrays) if arrays else np.zeros(0, dtype=dtype)


def _pack(members: list[int], widths: list[int]) -> list[list[int]]:
    """QIs packed into groups of joint width (product of node counts) ≤ 2,048: the
    widest first, each into the first group it fits (first-fit decreasing), so that few
    groups — one read per class each — price a merge. Members in QI order."""
    groups: list[list[int]] = []
    joints: list[int] = []
    for q, width in sorted(zip(members, widths, strict=True), key=lambda pair: -pair[1]):
        fits = next((g for g, joint in enumerate(joints) if joint * width <= _JOINT_NODES), None)
        if fits is None:
            groups.append([q])
            joints.append(width)
        else:
            groups[fits].append(q)
            joints[fits] *= width
    return [sorted(group) for group in groups]


def _top_group_rows(
    classes: _Classes, qis: list[_Qi], violating: np.ndarray, class_of: np.ndarray
) -> np.ndarray:
    """Rows that the release would show as '*' in every QI: those of the violating
    classes (suppressed) and of the classes whose node is labelled '*' in every QI.
    ``class_of``: each row's class id."""
    alive = np.flatnonzero(classes.alive)
    star = np.ones(len(alive), dtype=bool)
    for q, qi in enumerate(qis):
        star &= qi.node_star[classes.node[q, alive]]
    ids = classes.ids[alive]
    chosen = np.zeros(len(violating), dtype=bool)
    chosen[ids[star | violating[ids]]] = True
    return np.flatnonzero(chosen[class_of])


def _roots(parent: np.ndarray) -> np.ndarray:
    """The class each class ended in, following ``parent`` (a merged class points to
    the class it joined; a class that lives on points to itself) by pointer jumping."""
    root = parent.copy()
    while True:
        hop = root[root]
        if np.array_equal(hop, root):
            return root
        root = hop


def kaca(
    df: pd.DataFrame,
    schema: Schema,
    constraints: Sequence[PrivacyModel],
    *,
    max_suppression: float = 0.0,
    seed: int = 0,
    progress: Progress | None = None,
    beta: float = 1.0,
    weights: np.ndarray | None = None,
) -> Release:
    """KACA local recoding (Li, Wong, Fu & Pei 2006; see the module docstring).

    ``weights`` (a frequency set): KACA recodes records one by one, so the records of
    one frequency-set row could get different released values — it needs the records
    themselves; weights above 1 raise :class:`~privcore.errors.InfeasibleError`
    ``anonymize.needs_records``, weights all 1 are the records (an ordinary release).

    ``beta`` is the exponent of the WHD weights 1/(j−1)^β (SPEC §5). Deterministic: no
    randomness is used (``seed`` is recorded only). Suppresses the rows of violating
    classes once they fit the budget — unless, together with the classes generalized to
    '*' in every QI, they would show as a group that fails the constraints and exceeds
    the budget: then every violating class is merged. The release records each row's
    level per QI (``record_levels``; suppressed rows at the top) and its class
    (``class_ids`` of the released table, -1 when suppressed); ``params`` gain ``beta``
    and ``merges``.
    """
    started = time.perf_counter()
    records_only(df, weights, "KACA")
    problem = prepare(
        df, schema, constraints, max_suppression=max_suppression, seed=seed, need_hierarchies=True
    )
    require_local_recoding(problem, "KACA")
    qis = [_Qi(name, problem, beta) for name in problem.qi]
    n = problem.n_rows
    initial = classes_from_codes(
        [q.dense for q in qis],
        [q.n_leaves for q in qis],
        qi=problem.qi,
        sensitive=problem.sensitive,
    )
    failing = np.zeros(initial.n_classes, dtype=bool)
    for model in problem.constraints:
        failing |= ~model.class_pass(initial)
    check_local_recoding_cost("KACA", initial.n_classes, int(failing.sum()))
    checker = ClassChecker(problem, "KACA")
    # A class is checked on its rows unless sizes alone decide (k-anonymity).
    rows: list[np.ndarray | None] | None = None if checker.sizes_decide else list(initial.members())
    parent = np.arange(initial.n_classes)  # a merged class points to the class it joined
    classes = _Classes(qis, initial.first_row, initial.sizes)

    heap = [(int(initial.sizes[c]), int(c)) for c in np.flatnonzero(failing)]
    heapq.heapify(heap)
    violating = failing.copy()  # by class id
    violating_rows = int(initial.sizes[failing].sum())
    merges = 0
    report_progress(
        progress,
        0.0,
        f"KACA: {initial.n_classes} classes, {int(failing.sum())} violate the constraints",
    )
    clock = ProgressClock(progress)

    def merge_until(limit: int) -> None:
        """Merge violating classes into their nearest until their rows fit ``limit``."""
        nonlocal violating_rows, merges
        while heap and violating_rows > limit:
            size, a = heapq.heappop(heap)
            pos = classes.pos_of[a]
            if not violating[a] or classes.size[pos] != size:
                continue  # stale entry: merged since, or re-queued with its new size
            if classes.n_alive == 1:  # class a holds the whole table
                raise checker.infeasible(np.arange(n) if rows is None else rows[a])
            b = classes.nearest(pos)
            size_b = int(classes.size[classes.pos_of[b]])
            violating_rows -= size + (size_b if violating[b] else 0)
            keep = classes.merge(a, b)
            gone = a + b - keep
            parent[gone] = keep
            violating[gone] = False
            merges += 1
            new_size = size + size_b
            if rows is None:
                violating[keep] = new_size < checker.minimum
            else:
                rows[keep] = np.concatenate([rows[keep], rows[gone]])
                rows[gone] = None
                violating[keep] = checker.violates(rows[keep])
            if violating[keep]:
                violating_rows += new_size
                heapq.heappush(heap, (new_size, keep))
            if clock.due():
                clock.report(
                    min(0.85, (n - violating_rows) / n),
                    f"KACA: {merges} merges, {violating_rows} rows still in violating classes",
                )

    budget = problem.budget
    merge_until(budget)
    # The rows to suppress and the classes that ended at '*' in every QI show alike in
    # the release: one group, a class if it meets the constraints, else suppression
    # (privcore.classes.release_classes). Suppression beyond the budget is not allowed:
    # then every violating class is merged instead (classes that meet the constraints
    # stay satisfying when merged, so the group left at '*' is then a class).
    top_group = _top_group_rows(classes, qis, violating, _roots(parent)[initial.ids])
    if len(top_group) > budget and checker.violates(top_group):
        merge_until(0)
    search_seconds = time.perf_counter() - started
    report_progress(progress, 0.9, "KACA: generalizing and measuring the release")

    # Classes still violating fit the suppression budget: their rows are suppressed.
    class_of = _roots(parent)[initial.ids]
    suppressed = violating[class_of]
    row_nodes = classes.node[:, classes.pos_of[class_of]]
    row_nodes[:, suppressed] = 0

    frame = problem.frame.copy()
    record_levels = {}
    for q, qi in enumerate(qis):
        frame[qi.name] = qi.released(row_nodes[q]).set_axis(frame.index)
        record_levels[qi.name] = np.where(suppressed, qi.height, qi.node_level[row_nodes[q]])
    frame = suppress(frame, problem.qi, suppressed)
    release = finish(
        problem,
        frame,
        suppressed,
        algorithm="kaca",
        params={"beta": float(beta), "merges": merges},
        started=started,
        search_seconds=search_seconds,
        record_levels=record_levels,
    )
    report_progress(progress, 1.0, "Done")
    return release
