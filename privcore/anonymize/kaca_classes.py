"""KACA's classes as parallel arrays, their merges, and the search for the nearest class.

The distance of classes a and b (Li, Wong, Fu & Pei 2006; :mod:`privcore.anonymize.kaca`)
is the distortion their merge adds,

    distance(a, b) = (|a| + |b|) · W − cost(a) − cost(b),   cost(c) = |c| · w(c),

with W the summed WHD of the merged nodes and w(c) that of c's own nodes. Ties within
a relative 10⁻⁹ go to the lowest class id.

Pricing: QIs with a merge table are packed into groups of at most 2,048 joint nodes
(:func:`~privcore.anonymize.kaca_nodes.pack`); the row of a joint node holds the summed
WHD of the group's common ancestors with every joint node, so a step prices the merge
of a class with every class by one read per group and class, from a row that stays in
the processor's cache (a QI with more than 1,500 nodes compares the labels of each
level instead). Dead classes cost −∞, so their distance is ∞ without a mask, and the
arrays are compacted once a tenth of them are dead.
"""

from __future__ import annotations

import numpy as np

from privcore.anonymize.kaca_nodes import QiNodes, pack

KEPT_ROWS = 512  # rows of weights kept per QI group (at most 16 KB each)
TIE = 1e-9  # relative slack under which two distances count as equal
_COMPACT_ALIVE = 1.1  # compact the class arrays once more than a tenth are dead


def _concatenated(arrays: list[np.ndarray], dtype: type = np.int64) -> np.ndarray:
    return np.concatenate(arrays) if arrays else np.zeros(0, dtype=dtype)


def near_threshold(best: float) -> float:
    """The largest distance that ties with ``best`` (a relative 10⁻⁹)."""
    return best + TIE * max(1.0, abs(best))


class Classes:
    """The current classes as parallel arrays (one entry per class, in id order).

    ``node[q]`` holds each class's node of QI q, ``size`` its rows, ``cost`` its
    distortion |class| · Σ_QI WHD (−∞ once dead). Dead classes (merged into another)
    stay in place until more than a tenth are dead; then the arrays are compacted,
    keeping the id order. ``joint[g]`` is each class's joint node of QI group g.
    """

    def __init__(self, qis: list[QiNodes], first_row: np.ndarray, sizes: np.ndarray) -> None:
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
        self._merge_lookup()
        self._group_joint()

    def _merge_lookup(self) -> None:
        """Merged nodes and their weights of the table QIs, one flat lookup for all:
        index = offset + node_a · N + node_b (nodes), offset + node (weights)."""
        qis = self.qis
        # every QI has a merge table: a class's nodes of those QIs are a column of `node`
        self._table_rows = slice(None) if not self.level_q else np.array(self.table_q)
        widths = np.array([qis[i].n_nodes for i in self.table_q], dtype=np.int64)
        self.node_stride = widths
        self.node_offset = np.concatenate(([0], np.cumsum(widths**2)[:-1])).astype(np.int64)
        self.node_flat = _concatenated([qis[i].merge_node.ravel() for i in self.table_q])
        self.weight_offset = np.concatenate(([0], np.cumsum(widths)[:-1])).astype(np.int64)
        self.weight_flat = _concatenated([qis[i].node_weight for i in self.table_q], float)

    def _group_joint(self) -> None:
        """QI groups priced together: a class's joint node in group g is radix[g] @ its
        nodes; the weights of one joint node against all are a row (:meth:`group_row`)."""
        qis = self.qis
        self.groups = pack(self.table_q, [qis[i].n_nodes for i in self.table_q])
        self.radix = np.zeros((len(self.groups), len(qis)), dtype=np.int64)
        for g, members in enumerate(self.groups):
            step = 1
            for q in reversed(members):  # the last QI is the lowest digit
                self.radix[g, q] = step
                step *= qis[q].n_nodes
        self._group_rows: list[dict[int, np.ndarray]] = [{} for _ in self.groups]
        self.joint = self.radix @ self.node  # (groups, n)

    def group_row(self, g: int, pos: int) -> np.ndarray:
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
            if len(rows) >= KEPT_ROWS:
                del rows[next(iter(rows))]
            rows[joint] = row
        return row

    # ------------------------------------------------------------------ distances
    def distances(self, pos: int) -> np.ndarray:
        """Distortion added by merging class ``pos`` with every class (inf for dead
        classes, whose cost is −inf; ``pos`` itself included).

        Per QI group, the row of class ``pos``'s joint node (at most 2,048 weights, so
        the reads stay in the processor's cache) is read at each class's joint node and
        the groups are summed in order, giving W; then (|a| + |b|) · W − cost(b) −
        cost(a)."""
        joint = self.joint
        if self.groups:
            total = self.group_row(0, pos).take(joint[0])
            for g in range(1, len(self.groups)):
                total += self.group_row(g, pos).take(joint[g])
        else:
            total = np.zeros(joint.shape[1])
        for i in self.level_q:  # many nodes: compare the labels level by level
            total += self.qis[i].merged_weights(self.node[i, pos], self.node[i])
        dist = self.size_f + self.size_f[pos]
        dist *= total
        dist -= self.cost  # dead classes: −(−inf) = inf
        dist -= self.cost[pos]
        return dist

    # ------------------------------------------------------------------ nearest
    def nearest(self, pos: int) -> int:
        """The id of the class nearest to class ``pos``: the least distance, ties (within
        a relative 10⁻⁹) the lowest id — the first in id order."""
        dist = self.distances(pos)
        dist[pos] = np.inf
        first = int(dist.argmin())
        if first:  # a near tie can only come earlier than the first exact minimum
            tied = dist[:first] <= near_threshold(float(dist[first]))
            earlier = int(tied.argmax())
            if tied[earlier]:
                first = earlier
        return int(self.ids[first])

    # ------------------------------------------------------------------ merging
    def merge(self, a: int, b: int) -> int:
        """Merge classes a and b (ids); the survivor keeps the lower id."""
        keep, gone = (a, b) if a < b else (b, a)
        i, j = int(self.pos_of[keep]), int(self.pos_of[gone])
        node = self.node
        weight = 0.0
        if self.table_q:
            rows = self._table_rows
            pair = node[rows, i] * self.node_stride
            pair += node[rows, j]
            pair += self.node_offset
            merged = self.node_flat.take(pair)
            node[rows, i] = merged
            merged += self.weight_offset
            weight += float(self.weight_flat.take(merged).sum())
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
