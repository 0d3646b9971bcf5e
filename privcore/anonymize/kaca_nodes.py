"""KACA's view of one quasi-identifier: its hierarchy's nodes over the values present.

A node is a (level, label) pair of the QI's hierarchy over the leaves present in the
data (Li, Wong, Fu & Pei 2006; :mod:`privcore.anonymize.kaca`). Merging two classes
takes, per QI, the lowest common ancestor of their nodes: the lowest level at or above
both levels where their labels agree. Its cost is the WHD of that level (SPEC §5, with
levels counted 1 = most general … h = H + 1 = original, so our level g costs
``whd(H + 1, H + 1 − g, H + 1, beta)``).

QIs with few nodes get a table of every node pair's common ancestor and its WHD, so
that one lookup prices a merge; :func:`pack` groups them so that a few reads price a
merge over all of them (:class:`~privcore.anonymize.kaca_classes.Classes`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from privcore.anonymize.base import Problem
from privcore.classes import SUPPRESSED, distinct
from privcore.measure.loss import whd

TABLE_NODES = 1500  # above this many hierarchy nodes of a QI, compare level by level
JOINT_NODES = 2048  # QIs priced together while the product of their node counts fits


class QiNodes:
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
        self._number_nodes()
        self._mark_stars()
        self.node_weight = self.weight[self.node_level]
        self.merge_weight: np.ndarray | None = None
        self.merge_node: np.ndarray | None = None
        if self.n_nodes <= TABLE_NODES:
            self._merge_tables()

    def _number_nodes(self) -> None:
        """Number the (level, label) pairs: ``node_of``, ``node_level``, ``node_leaf``
        (a leaf under each node) and ``n_nodes``."""
        labels = self.labels
        node_of = np.zeros_like(labels)
        node_level, node_leaf = [], []
        for g in range(self.height + 1):
            _, first, inverse = np.unique(  # not rows: one label per present leaf
                labels[g], return_index=True, return_inverse=True
            )
            node_of[g] = len(node_level) + inverse.ravel()
            node_level.extend([g] * len(first))
            node_leaf.extend(first.tolist())
        self.node_of = node_of
        self.node_level = np.array(node_level, dtype=np.int64)
        self.node_leaf = np.array(node_leaf, dtype=np.int64)
        self.n_nodes = len(node_level)

    def _mark_stars(self) -> None:
        """Whether each node's label is '*' (the top, or a level that reads '*' for it)."""
        self.node_star = np.zeros(self.n_nodes, dtype=bool)
        for g in range(self.height + 1):
            at = np.flatnonzero(self.node_level == g)
            names = np.append(np.asarray(self.hierarchy.labels(g), dtype=object), None)
            self.node_star[at] = names[self.labels[g, self.node_leaf[at]]] == SUPPRESSED

    def _merge_tables(self) -> None:
        """``merge_node`` and ``merge_weight`` of every pair of nodes."""
        leaf, labels = self.node_leaf, self.labels
        lca = np.zeros((self.n_nodes, self.n_nodes), dtype=np.int64)
        for g in range(self.height):
            lca += labels[g, leaf][:, None] != labels[g, leaf][None, :]
        level = np.maximum(np.maximum(lca, self.node_level[:, None]), self.node_level[None, :])
        self.merge_weight = self.weight[level]
        self.merge_node = self.node_of[level, leaf[:, None]]

    def merged_node(self, x: int, y: int) -> int:
        """The lowest common ancestor of nodes x and y."""
        leaf_x, leaf_y = self.node_leaf[x], self.node_leaf[y]
        lca = int((self.labels[:, leaf_x] != self.labels[:, leaf_y]).sum())
        level = max(int(self.node_level[x]), int(self.node_level[y]), lca)
        return int(self.node_of[level, leaf_x])

    def merged_weights(self, nodes_a: np.ndarray | int, nodes_b: np.ndarray) -> np.ndarray:
        """The WHD of the lowest common ancestor of each pair (``nodes_a[i]`` — or the
        one node ``nodes_a`` —, ``nodes_b[i]``), comparing the labels level by level."""
        leaf_a, leaf_b = self.node_leaf[nodes_a], self.node_leaf[nodes_b]
        labels_a = self.labels[:, leaf_a] if np.ndim(leaf_a) else self.labels[:, leaf_a, None]
        lca = (self.labels[:, leaf_b] != labels_a).sum(axis=0)
        level = np.maximum(self.node_level[nodes_b], self.node_level[nodes_a])
        return self.weight[np.maximum(level, lca)]

    def released(self, nodes: np.ndarray) -> pd.Series:
        """Each row's label at its class's level (missing stays missing below the top)."""
        levels = self.node_level[nodes]
        values = np.empty(len(nodes), dtype=object)
        for g in distinct(levels):
            rows = np.flatnonzero(levels == g)
            names = np.append(np.asarray(self.hierarchy.labels(int(g)), dtype=object), None)
            values[rows] = names[self.labels[g, self.dense[rows]]]
        return pd.Series(values, dtype="str")


def pack(members: list[int], widths: list[int]) -> list[list[int]]:
    """QIs packed into groups of joint width (product of node counts) ≤ 2,048: the
    widest first, each into the first group it fits (first-fit decreasing), so that few
    groups — one read per class each — price a merge. Members in QI order."""
    groups: list[list[int]] = []
    joints: list[int] = []
    for q, width in sorted(zip(members, widths, strict=True), key=lambda pair: -pair[1]):
        fits = next((g for g, joint in enumerate(joints) if joint * width <= JOINT_NODES), None)
        if fits is None:
            groups.append([q])
            joints.append(width)
        else:
            groups[fits].append(q)
            joints[fits] *= width
    return [sorted(group) for group in groups]
