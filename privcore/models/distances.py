"""t-closeness distances (Li, Li, Venkatasubramanian 2007): the Earth Mover's Distance
between a class's distribution of a sensitive attribute and the whole table's, with
equal, ordered or hierarchical ground distances, and the Kullback–Leibler divergence.
Each is computed per class over the sparse (class, value) pairs, without a dense
class × value matrix."""

from __future__ import annotations

import numpy as np
import pandas as pd

from privcore.classes import EquivalenceClasses, SensitiveAttribute
from privcore.errors import HierarchyError
from privcore.models.checks import _distance_name
from privcore.models.measures import _cached, _pairs


def resolve_distance(classes: EquivalenceClasses, sa: str, distance: str) -> str:
    """The distance actually used for ``sa``: ``"auto"`` is ``"ordered"`` for a numeric
    SA and ``"equal"`` otherwise; the others are returned as they are."""
    distance = _distance_name(distance)
    if distance == "auto":
        return "ordered" if classes.attribute(sa).numeric else "equal"
    return distance


def t_distance(classes: EquivalenceClasses, sa: str, distance: str = "auto") -> np.ndarray:
    """Dist(P_class, Q) per class, Q the distribution of ``sa`` over ALL rows of the table
    (suppressed rows included: their sensitive values are still released).

    t-closeness (Li, Li, Venkatasubramanian 2007): a class is t-close when this is ≤ t.
    With p, q the shares of each value in the class and in the table:

    - ``equal`` (equal ground distance, the variational distance): ½ Σ_i |p_i − q_i|;
    - ``ordered`` (ordered distance over the m distinct values in rank order):
      (1/(m−1)) Σ_i |Σ_{j≤i} (p_j − q_j)|, 0 when m = 1;
    - ``hierarchical`` (ground distance = height of the lowest common ancestor / H in
      the SA's hierarchy of height H): Σ over inner nodes N of (level(N)/H)·min(pos(N),
      neg(N)), the extra of a leaf being p_i − q_i, of an inner node the sum of its
      children's extras, pos/neg the sums of the positive / |negative| extras of N's
      children;
    - ``kl`` (Kullback–Leibler divergence, an option): Σ_{p_i>0} p_i ln(p_i/q_i);
    - ``auto``: ordered for a numeric SA, equal otherwise.

    Equal, ordered and hierarchical lie in [0, 1].
    """
    resolved = resolve_distance(classes, sa, distance)
    compute = {
        "equal": _equal_distance,
        "ordered": _ordered_distance,
        "hierarchical": _hierarchical_distance,
        "kl": _kl_distance,
    }[resolved]
    return _cached(classes, ("t", sa, resolved), lambda: compute(classes, sa))


def _equal_distance(classes: EquivalenceClasses, sa: str) -> np.ndarray:
    # ½ Σ|p−q| = ½ (Σ_present |p−q| + Σ_absent q) and Σ_absent q = 1 − Σ_present q.
    counts, size = _pairs(classes, sa)
    q = classes.attribute(sa).distribution[counts.value]
    p = counts.count / size
    present = counts.per_class(np.abs(p - q))
    q_present = counts.per_class(q)
    return np.clip(0.5 * (present + 1.0 - q_present), 0.0, 1.0)


def _kl_distance(classes: EquivalenceClasses, sa: str) -> np.ndarray:
    counts, size = _pairs(classes, sa)
    q = classes.attribute(sa).distribution[counts.value]
    p = counts.count / size
    kl = counts.per_class(p * np.log(p / q))
    return np.maximum(kl, 0.0)


def _ordered_distance(classes: EquivalenceClasses, sa: str) -> np.ndarray:
    """Ordered EMD without a dense class × value matrix.

    Let F_Q(i) be the table's cumulative share up to rank i (nondecreasing) and F_P the
    class's. F_P is constant between two consecutive values present in the class, so the
    sum Σ_i |F_P(i) − F_Q(i)| splits into one segment [a, b) per present value (plus
    [0, first) where F_P = 0). On a segment with constant c the sum is found from prefix
    sums of F_Q and the point where F_Q crosses c (a binary search).
    """
    attribute = classes.attribute(sa)
    m = attribute.n_values
    n = classes.n_classes
    if m <= 1 or n == 0:
        return np.zeros(n)
    by_rank = np.zeros(m)
    by_rank[attribute.rank] = attribute.distribution  # Q (weighted for frequency sets)
    f_q = np.cumsum(by_rank)  # F_Q(i), i = 0..m−1
    prefix = np.concatenate(([0.0], np.cumsum(f_q)))  # prefix[x] = Σ_{i<x} F_Q(i)

    counts = classes.value_counts(sa)
    rank = attribute.rank[counts.value]
    order = np.argsort(counts.cls * m + rank, kind="stable")
    cls, a, count = counts.cls[order], rank[order], counts.count[order]
    running = np.cumsum(count)
    base = np.concatenate(([0], running))[counts.starts]  # rows before each class
    c = (running - base[cls]) / classes.sizes[cls]  # F_P at each present rank
    b = np.empty_like(a)
    b[:-1] = a[1:]
    last = np.concatenate((counts.starts[1:], [len(a)])) - 1  # last pair of each class
    b[last] = m
    s = np.clip(np.searchsorted(f_q, c, side="left"), a, b)  # F_Q < c before s
    segment = c * (s - a) - (prefix[s] - prefix[a]) + (prefix[b] - prefix[s]) - c * (b - s)
    lead = prefix[a[counts.starts]]  # Σ_{i < first rank} |0 − F_Q(i)|
    total = np.bincount(cls, weights=segment, minlength=n) + lead  # not rows: pairs
    return np.clip(total / (m - 1), 0.0, 1.0)


def _hierarchy_nodes(sa: str, attribute: SensitiveAttribute) -> list[np.ndarray]:
    """Per level 0..H, the node of every value code (a missing value hangs from the
    root by a chain of nodes of its own)."""
    hierarchy = attribute.hierarchy
    if hierarchy is None:
        raise HierarchyError(
            f"The hierarchical t-closeness distance needs a generalization hierarchy for "
            f"the sensitive attribute '{sa}'; add one or choose another distance.",
            code="hierarchy.missing",
            column=sa,
        )
    try:
        leaf = hierarchy.encode(pd.Series(attribute.values, dtype=object))
    except HierarchyError as exc:
        raise HierarchyError(
            f"The hierarchy of the sensitive attribute '{sa}' does not fit it: {exc.message}",
            code=exc.code,
            column=sa,
            **exc.params,
        ) from exc
    missing = leaf < 0
    nodes = []
    for level in range(hierarchy.height + 1):
        labels = np.asarray(hierarchy.codes(level))
        node = labels[np.where(missing, 0, leaf)]
        if level < hierarchy.height:
            node = np.where(missing, len(hierarchy.labels(level)), node)
        nodes.append(node.astype(np.int64))
    return nodes


def _hierarchical_distance(classes: EquivalenceClasses, sa: str) -> np.ndarray:
    """Hierarchical EMD, level by level over the sparse (class, node) pairs.

    A node absent from a class has extra −Q(N) ≤ 0; so for an inner node N present in
    the class, pos(N) sums the positive extras of its present children and
    neg(N) = Σ_present max(−extra, 0) + (Q(N) − Σ_present Q(child)). An inner node absent
    from the class has pos = 0 and costs nothing.
    """
    attribute = classes.attribute(sa)
    nodes = _hierarchy_nodes(sa, attribute)
    height = len(nodes) - 1
    n = classes.n_classes
    if n == 0:
        return np.zeros(0)
    q_code = attribute.distribution
    counts, size = _pairs(classes, sa)

    # Level 0: (class, leaf) pairs; two codes with the same leaf key are merged.
    width = int(nodes[0].max()) + 1
    cls, node, p = counts.cls, nodes[0][counts.value], counts.count / size
    merged_leaves = len(np.unique(nodes[0])) < len(nodes[0])  # not rows: SA values
    if merged_leaves:  # two codes with one leaf key: merge
        cls, node, p = _group_pairs(cls, node, p, width)
    q_node = np.bincount(nodes[0], weights=q_code, minlength=width)  # not rows: SA values
    cost = np.zeros(n)
    for level in range(1, height + 1):
        parent_of = np.zeros(width, dtype=np.int64)
        parent_of[nodes[level - 1]] = nodes[level]  # one parent per node (monotone)
        up = int(nodes[level].max()) + 1
        q_up = np.bincount(nodes[level], weights=q_code, minlength=up)  # not rows: values
        extra = p - q_node[node]
        parent = parent_of[node]
        group, keys = _factorize(cls * up + parent)
        pos = np.bincount(group, weights=np.maximum(extra, 0.0))  # not rows: pairs
        neg_present = np.bincount(group, weights=np.maximum(-extra, 0.0))  # not rows: pairs
        q_present = np.bincount(group, weights=q_node[node])  # not rows: pairs
        up_cls, up_node = keys // up, keys % up
        neg = neg_present + np.maximum(q_up[up_node] - q_present, 0.0)
        moved = np.minimum(pos, neg)
        per_class = np.bincount(up_cls, weights=moved, minlength=n)  # not rows: pairs
        cost += (level / height) * per_class
        cls, node, p = up_cls, up_node, np.bincount(group, weights=p)  # not rows: pairs
        width, q_node = up, q_up
    return np.clip(cost, 0.0, 1.0)


def _factorize(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(group of each key, distinct keys): a hash-based O(n) grouping of (class, node)
    pairs."""
    group, distinct = pd.factorize(keys)  # not rows: (class, node) pairs
    return group, np.asarray(distinct, dtype=np.int64)


def _group_pairs(cls: np.ndarray, node: np.ndarray, p: np.ndarray, width: int):
    """Merge pairs with the same (class, node), summing p."""
    group, keys = _factorize(cls * width + node)
    return keys // width, keys % width, np.bincount(group, weights=p)  # not rows: pairs
