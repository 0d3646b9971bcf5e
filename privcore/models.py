"""Privacy models checked on a released table (SPEC §2).

Each model is a small frozen constraint object checked on an
:class:`~privcore.classes.EquivalenceClasses` partition. Every anonymization algorithm and
every report uses the same objects: ``satisfied(classes)`` and ``violating_rows(classes)``
are all an algorithm needs; ``class_pass``, ``achieved`` and :func:`evaluate` serve the
reports.

Conventions shared by every model:

- Suppressed rows (class id -1, every QI shown as ``*``) form no class and are excluded
  from every check; they never violate a model. They are counted in the report.
- A partition with no class satisfies every model (vacuously).
- Missing sensitive values are one value of their own (as for the QIs); for the ordered
  distance that value ranks last, for the hierarchical distance it hangs from the root
  by a chain of its own (its ground distance to every other value is 1).
- Several sensitive attributes (SAs): a model checks each SA it covers (``attributes``,
  ``None`` = every SA of the partition); a class passes only when every SA passes.
- Floating comparisons against a threshold (entropy, t) allow 1e-12 for rounding, so
  a class whose entropy is exactly ``ln 3`` is entropy 3-diverse.

Every per-class measure is computed with numpy over the sparse per-(class, value)
counts of :meth:`EquivalenceClasses.value_counts` — no Python loop over rows or classes,
and no dense class × value matrix, so large domains (a numeric SA with thousands of
distinct values) cost no more than small ones. Measures are cached on the partition.

Sources: Sweeney 2002 (k-anonymity); Machanavajjhala, Kifer, Gehrke,
Venkitasubramaniam 2007 (l-diversity: distinct, entropy, recursive (c,l)); Li, Li,
Venkatasubramanian 2007 (t-closeness, Earth Mover's Distance with equal, ordered and
hierarchical ground distances).
"""

from __future__ import annotations

import math
import numbers
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from privcore.classes import EquivalenceClasses, SensitiveAttribute
from privcore.core.jsonsafe import plain
from privcore.errors import HierarchyError, ParameterError, RoleError

__all__ = [
    "DISTANCES",
    "L_KINDS",
    "DistinctLDiversity",
    "EntropyLDiversity",
    "KAnonymity",
    "ModelReport",
    "PrivacyModel",
    "RecursiveCLDiversity",
    "TCloseness",
    "distinct_values",
    "entropy_l",
    "evaluate",
    "l_diversity",
    "model_from_dict",
    "recursive_c",
    "resolve_distance",
    "t_distance",
    "top_share",
]

#: The t-closeness distances; ``"auto"`` is ordered for numeric SAs, equal otherwise.
DISTANCES = ("auto", "equal", "ordered", "hierarchical", "kl")
#: The three forms of l-diversity (:func:`l_diversity`).
L_KINDS = ("distinct", "entropy", "recursive")

_TOLERANCE = 1e-12  # slack of floating comparisons against a threshold


# --------------------------------------------------------------------------- validation
#
# All parameter checks live here; each model's __post_init__ calls them.


def _whole(value: Any, what: str, *, minimum: int) -> int:
    """``value`` as an int ≥ ``minimum`` (an integral float such as 5.0 is accepted)."""
    ok = not isinstance(value, bool) and (
        isinstance(value, numbers.Integral)
        or (isinstance(value, numbers.Real) and math.isfinite(value) and float(value).is_integer())
    )
    if not ok or int(value) < minimum:
        raise ParameterError(
            f"{what} must be a whole number ≥ {minimum}, got {value!r}.",
            code="models.bad_parameter",
            parameter=what,
            value=str(value),
        )
    return int(value)


def _real(
    value: Any,
    what: str,
    *,
    minimum: float,
    maximum: float = math.inf,
    strict: bool = False,
) -> float:
    """``value`` as a finite float in [minimum, maximum] (or (minimum, maximum])."""
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)
    if ok:
        v = float(value)
        ok = (v > minimum if strict else v >= minimum) and v <= maximum
    if not ok:
        low = f"> {minimum:g}" if strict else f"≥ {minimum:g}"
        rule = f"{low} and ≤ {maximum:g}" if math.isfinite(maximum) else low
        raise ParameterError(
            f"{what} must be a number {rule}, got {value!r}.",
            code="models.bad_parameter",
            parameter=what,
            value=str(value),
        )
    return float(value)


def _distance_name(distance: Any) -> str:
    if not isinstance(distance, str) or distance not in DISTANCES:
        raise ParameterError(
            f"Unknown t-closeness distance {distance!r}; choose one of {', '.join(DISTANCES)}.",
            code="models.unknown_distance",
            distance=str(distance),
        )
    return distance


def _attribute_names(attributes: Any) -> tuple[str, ...] | None:
    if attributes is None:
        return None
    if isinstance(attributes, str):
        attributes = (attributes,)
    if not isinstance(attributes, Sequence | set | frozenset) or not all(
        isinstance(a, str) for a in attributes
    ):
        raise ParameterError(
            f"Sensitive attributes must be a list of column names, got {attributes!r}.",
            code="models.bad_attributes",
        )
    names = tuple(dict.fromkeys(attributes))
    if not names:
        raise ParameterError(
            "Name at least one sensitive attribute (or none at all to check every one).",
            code="models.bad_attributes",
        )
    return names


def _covered(classes: EquivalenceClasses, attributes: tuple[str, ...] | None) -> list[str]:
    """The SAs a model checks on ``classes``; RoleError when there is none or one is
    unknown to the partition."""
    if attributes is None:
        names = list(classes.sensitive)
        if not names:
            raise RoleError(
                "This privacy model needs a sensitive attribute: choose a sensitive attribute.",
                code="roles.no_sensitive",
            )
        return names
    for name in attributes:
        classes.attribute(name)  # RoleError when the partition does not have it
    return list(attributes)


# --------------------------------------------------------------------------- measures


def _cached(classes: EquivalenceClasses, key: tuple, compute: Callable[[], np.ndarray]):
    """Per-partition cache (the partition is immutable; its value counts are cached the
    same way). Cached arrays are made read-only."""
    cache = classes.__dict__.setdefault("_model_measures", {})
    if key not in cache:
        result = compute()
        result.flags.writeable = False
        cache[key] = result
    return cache[key]


def _pairs(classes: EquivalenceClasses, sa: str):
    """Sparse counts of ``sa`` and, per pair, the size of its class."""
    counts = classes.value_counts(sa)
    return counts, classes.sizes[counts.cls]


def distinct_values(classes: EquivalenceClasses, sa: str) -> np.ndarray:
    """Number of distinct values of ``sa`` in each class (int64 per class).

    Distinct l-diversity (Machanavajjhala et al. 2007): a class is l-diverse when it
    holds at least l distinct sensitive values. Missing is one value.
    """

    def compute() -> np.ndarray:
        return classes.value_counts(sa).per_class().astype(np.int64)

    return _cached(classes, ("distinct", sa), compute)


def _entropy(classes: EquivalenceClasses, sa: str) -> np.ndarray:
    """H = −Σ p ln p per class, computed from integer counts as
    H = ln n − (1/n) Σ c ln c (exact for uniform classes: three values once each give
    exactly ln 3)."""

    def compute() -> np.ndarray:
        counts = classes.value_counts(sa)
        c = counts.count.astype(float)
        c_log_c = counts.per_class(c * np.log(c))
        n = classes.sizes.astype(float)  # every class has at least one row
        return np.maximum(np.log(n) - c_log_c / n, 0.0)

    return _cached(classes, ("entropy", sa), compute)


def entropy_l(classes: EquivalenceClasses, sa: str) -> np.ndarray:
    """exp(−Σ p ln p) per class (float, not floored): the largest l for which the class
    is entropy l-diverse.

    Entropy l-diversity (Machanavajjhala et al. 2007, Def. 4.1): a class is entropy
    l-diverse when −Σ_s p(s) ln p(s) ≥ ln l, p(s) the share of value s in the class.
    """
    return _cached(classes, ("entropy_l", sa), lambda: np.exp(_entropy(classes, sa)))


def recursive_c(classes: EquivalenceClasses, sa: str, l: int) -> np.ndarray:  # noqa: E741
    """r1 / (r_l + r_{l+1} + … + r_m) per class, counts sorted descending; inf when the
    tail is empty (fewer than l distinct values).

    Recursive (c,l)-diversity (Machanavajjhala et al. 2007, Def. 4.3): with the counts
    of the sensitive values in a class sorted r1 ≥ r2 ≥ … ≥ rm, the class is (c,l)-diverse
    when r1 < c·(r_l + … + r_m) — that is, exactly when c is greater than this ratio.
    """
    l = _whole(l, "l", minimum=1)  # noqa: E741

    def compute() -> np.ndarray:
        r1, tail = _recursive_parts(classes, sa, l)
        return np.where(tail > 0, r1 / np.maximum(tail, 1), np.inf)

    return _cached(classes, ("recursive_c", sa, l), compute)


def _recursive_parts(classes: EquivalenceClasses, sa: str, l: int):  # noqa: E741
    """(r1, r_l + … + r_m) per class as int64 arrays (cached).

    The tail is the class size minus its l−1 largest counts: for l ≤ 2 no sort is
    needed (the largest count is a maximum per class); otherwise the pairs are sorted
    by class, then count descending, with one argsort of a combined key.
    """

    def compute() -> np.ndarray:
        counts = classes.value_counts(sa)
        sizes = classes.sizes
        if classes.n_classes == 0:
            return np.zeros((2, 0), dtype=np.int64)
        r1 = counts.class_max()
        if l == 1:
            return np.stack([r1, sizes])
        if l == 2:
            return np.stack([r1, sizes - r1])
        span = int(counts.count.max()) + 1
        order = np.argsort(counts.cls * span + (span - 1 - counts.count), kind="stable")
        cls, count = counts.cls[order], counts.count[order]
        top = np.arange(len(cls)) - counts.starts[cls] < l - 1  # the l−1 largest
        n = classes.n_classes
        head = np.bincount(cls[top], weights=count[top], minlength=n)  # not rows: pairs
        return np.stack([r1, sizes - head.astype(np.int64)])

    r1, tail = _cached(classes, ("recursive_parts", sa, l), compute)
    return r1, tail


def top_share(classes: EquivalenceClasses, sa: str) -> np.ndarray:
    """Share of the most frequent value of ``sa`` in each class (1.0 = homogeneous)."""

    def compute() -> np.ndarray:
        if classes.n_classes == 0:
            return np.zeros(0)
        return classes.value_counts(sa).class_max() / classes.sizes

    return _cached(classes, ("top_share", sa), compute)


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


# --------------------------------------------------------------------------- models


class PrivacyModel(ABC):
    """A privacy constraint checked on an equivalence-class partition.

    Subclasses are frozen dataclasses; ``name`` is a class attribute. Suppressed rows
    are excluded from every check and never violate; a partition with no class satisfies
    every model.

    Every model declares what the algorithms may assume of it (the defaults assume
    nothing; the algorithms read these and never the model's type):

    - ``monotone_under_generalization``: a class made by merging classes that pass
      passes too, so a node of the generalization lattice that satisfies the model
      makes every more general node satisfy it (seed 003 lemmas 20.3.1–3). Lattice
      searches tag nodes by it, and Mondrian refuses early a table that fails as one
      class; without it every node is evaluated.
    - ``monotone_under_suppression``: a class that contains a passing class passes
      (whatever else is merged in), so with a suppression budget the violating rows
      never grow with generalization and lattice pruning stays sound (ARX: k-anonymity
      and distinct l-diversity only).
    - ``minimal_class_size``: the fewest records a passing class can hold (k for
      k-anonymity, l for distinct and recursive (c,l)-diversity, ⌈l⌉ for entropy
      l-diversity, 1 by default); a smaller class fails without being measured.
    - ``size_only``: a class passes exactly when it holds ``minimal_class_size``
      records, nothing else counts (k-anonymity); algorithms then check sizes only.
    - ``minimal_distinct_values``: the fewest distinct values of each sensitive
      attribute the model checks (:meth:`checked_attributes`) that a passing class
      holds (l for distinct and recursive (c,l)-diversity); a table with fewer is
      refused before any search.
    - ``local_recoding``: the model may be checked class by class on a locally recoded
      release (Mondrian, KACA, condensation); a model that needs one generalization for
      the whole table declares False and those algorithms refuse it.
    """

    name: ClassVar[str]
    monotone_under_generalization: ClassVar[bool] = False
    monotone_under_suppression: ClassVar[bool] = False
    size_only: ClassVar[bool] = False
    local_recoding: ClassVar[bool] = True

    @property
    def minimal_class_size(self) -> int:
        """The fewest records of a class that can pass (1: no bound known)."""
        return 1

    @property
    def minimal_distinct_values(self) -> int:
        """The fewest distinct values of each checked sensitive attribute a passing
        class holds (1: no bound)."""
        return 1

    def checked_attributes(self, sensitive: Sequence[str]) -> tuple[str, ...]:
        """The sensitive attributes among ``sensitive`` the model checks (none by
        default: a model of class sizes)."""
        return ()

    def reported_distances(self, classes: EquivalenceClasses) -> dict[str, str]:
        """The t-closeness distance the model measures each sensitive attribute with
        (resolved, e.g. ``"ordered"``), for the reports; empty for other models."""
        return {}

    @abstractmethod
    def class_pass(self, classes: EquivalenceClasses) -> np.ndarray:
        """Boolean per class: the class meets the model (for every SA it covers)."""

    @abstractmethod
    def achieved(self, classes: EquivalenceClasses) -> dict[str, Any]:
        """What the partition reaches (``None`` where there is no class)."""

    @abstractmethod
    def requirement(self) -> str:
        """The requirement in words, e.g. ``"k ≥ 5"``."""

    @abstractmethod
    def to_dict(self) -> dict[str, Any]:
        """Plain parameters; :func:`model_from_dict` rebuilds the model."""

    def satisfied(self, classes: EquivalenceClasses) -> bool:
        """True when every class passes (vacuously true with no class)."""
        return bool(self.class_pass(classes).all())

    def violating_rows(self, classes: EquivalenceClasses) -> np.ndarray:
        """Boolean per row: the row is in a failing class (suppressed rows: False)."""
        fails = np.append(~self.class_pass(classes), False)  # index -1 → suppressed
        return fails[classes.ids]


class _PerAttribute(PrivacyModel):
    """A model checked per sensitive attribute; a class passes when every SA passes."""

    attributes: tuple[str, ...] | None

    @abstractmethod
    def _attribute_pass(self, classes: EquivalenceClasses, sa: str) -> np.ndarray: ...

    def class_pass(self, classes: EquivalenceClasses) -> np.ndarray:
        passed = np.ones(classes.n_classes, dtype=bool)
        for sa in _covered(classes, self.attributes):
            passed &= self._attribute_pass(classes, sa)
        return passed

    def _per_attribute(
        self, classes: EquivalenceClasses, measure: Callable[[str], np.ndarray], worst
    ) -> dict[str, Any]:
        return {sa: _worst(measure(sa), worst) for sa in _covered(classes, self.attributes)}

    def _attributes_dict(self) -> list[str] | None:
        return None if self.attributes is None else list(self.attributes)

    def checked_attributes(self, sensitive: Sequence[str]) -> tuple[str, ...]:
        return tuple(sensitive) if self.attributes is None else self.attributes


def _fmt(x: float) -> str:
    return f"{x:g}"


@dataclass(frozen=True)
class KAnonymity(PrivacyModel):
    """k-anonymity (Sweeney 2002): every equivalence class holds at least k rows.

    Achieved: k = the smallest class size.
    """

    k: int
    name: ClassVar[str] = "k-anonymity"
    monotone_under_generalization: ClassVar[bool] = True
    monotone_under_suppression: ClassVar[bool] = True
    size_only: ClassVar[bool] = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", _whole(self.k, "k", minimum=1))

    @property
    def minimal_class_size(self) -> int:
        return self.k

    def class_pass(self, classes: EquivalenceClasses) -> np.ndarray:
        return classes.sizes >= self.k

    def achieved(self, classes: EquivalenceClasses) -> dict[str, Any]:
        return {"k": int(classes.sizes.min()) if classes.n_classes else None}

    def requirement(self) -> str:
        return f"k ≥ {self.k}"

    def to_dict(self) -> dict[str, Any]:
        return {"model": "k", "k": self.k}


@dataclass(frozen=True)
class DistinctLDiversity(_PerAttribute):
    """Distinct l-diversity (Machanavajjhala et al. 2007): every class holds at least l
    distinct values of each sensitive attribute.

    Achieved: l = the smallest number of distinct values in a class, per SA.
    """

    l: int  # noqa: E741
    attributes: tuple[str, ...] | None = None
    name: ClassVar[str] = "distinct l-diversity"
    monotone_under_generalization: ClassVar[bool] = True
    monotone_under_suppression: ClassVar[bool] = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "l", _whole(self.l, "l", minimum=1))
        object.__setattr__(self, "attributes", _attribute_names(self.attributes))

    @property
    def minimal_class_size(self) -> int:
        return self.l

    @property
    def minimal_distinct_values(self) -> int:
        return self.l

    def _attribute_pass(self, classes: EquivalenceClasses, sa: str) -> np.ndarray:
        return distinct_values(classes, sa) >= self.l

    def achieved(self, classes: EquivalenceClasses) -> dict[str, Any]:
        return {"l": self._per_attribute(classes, lambda sa: distinct_values(classes, sa), np.min)}

    def requirement(self) -> str:
        return f"l ≥ {self.l} (distinct)"

    def to_dict(self) -> dict[str, Any]:
        return {"model": "distinct_l", "l": self.l, "attributes": self._attributes_dict()}


@dataclass(frozen=True)
class EntropyLDiversity(_PerAttribute):
    """Entropy l-diversity (Machanavajjhala et al. 2007, Def. 4.1): in every class,
    −Σ_s p(s) ln p(s) ≥ ln l for each sensitive attribute.

    Achieved: l = min over classes of exp(entropy), per SA (not floored).
    """

    l: float  # noqa: E741
    attributes: tuple[str, ...] | None = None
    name: ClassVar[str] = "entropy l-diversity"
    monotone_under_generalization: ClassVar[bool] = True  # entropy is concave

    def __post_init__(self) -> None:
        object.__setattr__(self, "l", _real(self.l, "l", minimum=1.0))
        object.__setattr__(self, "attributes", _attribute_names(self.attributes))

    @property
    def minimal_class_size(self) -> int:
        """⌈l⌉: m distinct values give an entropy of at most ln m. (No bound on the
        table's distinct values is declared: a table that cannot reach entropy l is
        found by the search, which reports the whole table failing.)"""
        return math.ceil(self.l - 1e-9)

    def _attribute_pass(self, classes: EquivalenceClasses, sa: str) -> np.ndarray:
        return _entropy(classes, sa) >= math.log(self.l) - _TOLERANCE

    def achieved(self, classes: EquivalenceClasses) -> dict[str, Any]:
        return {"l": self._per_attribute(classes, lambda sa: entropy_l(classes, sa), np.min)}

    def requirement(self) -> str:
        return f"l ≥ {_fmt(self.l)} (entropy)"

    def to_dict(self) -> dict[str, Any]:
        return {"model": "entropy_l", "l": self.l, "attributes": self._attributes_dict()}


@dataclass(frozen=True)
class RecursiveCLDiversity(_PerAttribute):
    """Recursive (c,l)-diversity (Machanavajjhala et al. 2007, Def. 4.3): with the counts
    of the sensitive values of a class sorted r1 ≥ r2 ≥ … ≥ rm, every class has
    r1 < c·(r_l + r_{l+1} + … + r_m), for each sensitive attribute.

    Achieved: c = max over classes of r1 / (r_l + … + r_m), per SA (the partition is
    (c,l)-diverse for every c above it; ``None`` in JSON when infinite).
    """

    c: float
    l: int  # noqa: E741
    attributes: tuple[str, ...] | None = None
    name: ClassVar[str] = "recursive (c,l)-diversity"
    monotone_under_generalization: ClassVar[bool] = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "c", _real(self.c, "c", minimum=0.0, strict=True))
        object.__setattr__(self, "l", _whole(self.l, "l", minimum=1))
        object.__setattr__(self, "attributes", _attribute_names(self.attributes))

    @property
    def minimal_class_size(self) -> int:
        """l: the tail r_l + … + r_m is empty with fewer than l distinct values."""
        return self.l

    @property
    def minimal_distinct_values(self) -> int:
        return self.l

    def _attribute_pass(self, classes: EquivalenceClasses, sa: str) -> np.ndarray:
        r1, tail = _recursive_parts(classes, sa, self.l)
        return r1 < self.c * tail

    def achieved(self, classes: EquivalenceClasses) -> dict[str, Any]:
        return {
            "c": self._per_attribute(classes, lambda sa: recursive_c(classes, sa, self.l), np.max)
        }

    def requirement(self) -> str:
        return f"r1 < {_fmt(self.c)}·(r{self.l} + … + rm) (recursive)"

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": "recursive_cl",
            "c": self.c,
            "l": self.l,
            "attributes": self._attributes_dict(),
        }


@dataclass(frozen=True)
class TCloseness(_PerAttribute):
    """t-closeness (Li, Li, Venkatasubramanian 2007): in every class, the distance
    between the class's distribution of each sensitive attribute and the whole table's
    is at most t. Distances: see :func:`t_distance` (``"auto"``: ordered for numeric
    SAs, equal otherwise).

    Achieved: t = the largest class distance, per SA.
    """

    t: float
    distance: str = "auto"
    attributes: tuple[str, ...] | None = None
    name: ClassVar[str] = "t-closeness"
    monotone_under_generalization: ClassVar[bool] = True  # EMD of a merge ≤ the worst part

    def __post_init__(self) -> None:
        distance = _distance_name(self.distance)
        top = math.inf if distance == "kl" else 1.0
        object.__setattr__(self, "t", _real(self.t, "t", minimum=0.0, maximum=top))
        object.__setattr__(self, "attributes", _attribute_names(self.attributes))

    def _attribute_pass(self, classes: EquivalenceClasses, sa: str) -> np.ndarray:
        return t_distance(classes, sa, self.distance) <= self.t + _TOLERANCE

    def achieved(self, classes: EquivalenceClasses) -> dict[str, Any]:
        return {
            "t": self._per_attribute(
                classes, lambda sa: t_distance(classes, sa, self.distance), np.max
            ),
            "distance": {
                sa: resolve_distance(classes, sa, self.distance)
                for sa in _covered(classes, self.attributes)
            },
        }

    def requirement(self) -> str:
        return f"t ≤ {_fmt(self.t)} ({self.distance})"

    def reported_distances(self, classes: EquivalenceClasses) -> dict[str, str]:
        return {
            sa: resolve_distance(classes, sa, self.distance)
            for sa in _covered(classes, self.attributes)
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": "t",
            "t": self.t,
            "distance": self.distance,
            "attributes": self._attributes_dict(),
        }


_MODELS: dict[str, tuple[type[PrivacyModel], tuple[str, ...]]] = {
    "k": (KAnonymity, ("k",)),
    "distinct_l": (DistinctLDiversity, ("l", "attributes")),
    "entropy_l": (EntropyLDiversity, ("l", "attributes")),
    "recursive_cl": (RecursiveCLDiversity, ("c", "l", "attributes")),
    "t": (TCloseness, ("t", "distance", "attributes")),
}


def l_diversity(
    kind: str,
    l: float,  # noqa: E741 - the paper's letter
    c: float = 3.0,
    attributes: Any = None,
) -> PrivacyModel:
    """The l-diversity model of one of :data:`L_KINDS`: distinct and recursive take a
    whole l (recursive also c), entropy any l ≥ 1."""
    if kind not in L_KINDS:
        raise ParameterError(
            f"Unknown l-diversity form {kind!r}; choose one of {', '.join(L_KINDS)}.",
            code="models.bad_l_kind",
            kind=str(kind),
        )
    if kind == "entropy":
        return EntropyLDiversity(float(l), attributes)
    if not float(l).is_integer():
        raise ParameterError(
            f"l must be a whole number for {kind} l-diversity, not {l:g} (only entropy "
            "l-diversity takes a fractional l).",
            code="models.fractional_l",
            l=float(l),
            kind=kind,
        )
    if kind == "recursive":
        return RecursiveCLDiversity(float(c), int(l), attributes)
    return DistinctLDiversity(int(l), attributes)


def model_from_dict(d: Mapping[str, Any]) -> PrivacyModel:
    """Rebuild a model from :meth:`PrivacyModel.to_dict` output (``{"model": "k", "k": 5}``)."""
    if not isinstance(d, Mapping) or d.get("model") not in _MODELS:
        kind = d.get("model") if isinstance(d, Mapping) else d
        raise ParameterError(
            f"Unknown privacy model {kind!r}; expected one of {', '.join(_MODELS)}.",
            code="models.unknown_model",
            model=str(kind),
        )
    cls, fields = _MODELS[d["model"]]
    unknown = sorted(set(d) - {"model", *fields})
    if unknown:
        raise ParameterError(
            f"Unknown parameter(s) {', '.join(unknown)} for privacy model '{d['model']}'.",
            code="models.unknown_parameter",
            parameters=unknown,
        )
    required = [f for f in fields if f not in ("attributes", "distance")]
    absent = [f for f in required if f not in d]
    if absent:
        raise ParameterError(
            f"Privacy model '{d['model']}' needs {', '.join(absent)}.",
            code="models.missing_parameter",
            parameters=absent,
        )
    return cls(**{f: d[f] for f in fields if f in d})


# --------------------------------------------------------------------------- report


def _worst(values: np.ndarray, reducer) -> Any:
    return reducer(values).item() if len(values) else None


@dataclass(frozen=True)
class ModelReport:
    """Per-class measures, summary figures and one verdict per model (SPEC §2).

    ``class_table``: one row per class — ``class``, the QI values naming it (when a frame
    was given), ``size``, per SA ``"{sa} · distinct"``, ``"{sa} · entropy l"``,
    ``"{sa} · top share"``, ``"{sa} · t ({distance})"``, and ``violates`` (names of the
    failing models, ``""`` when none).
    ``summary``: ``k``, ``classes``, ``suppressed_rows``, ``rows``, and per SA
    ``l_distinct``, ``l_entropy``, ``recursive_c`` (for l = 2), ``t_closeness``
    (``{"distance", "t"}``), ``top_share`` (the worst class of each).
    ``verdicts``: per model ``model``, ``requirement``, ``achieved``, ``passed``,
    ``violating_classes``, ``violating_rows``, ``parameters``.
    """

    class_table: pd.DataFrame
    summary: dict[str, Any]
    verdicts: list[dict[str, Any]]

    @property
    def satisfied(self) -> bool:
        """True when every model passes."""
        return all(v["passed"] for v in self.verdicts)

    def to_dict(self, *, include_classes: bool = True) -> dict[str, Any]:
        """JSON-safe dictionary (no numpy types; inf and NaN become None)."""
        out: dict[str, Any] = {
            "satisfied": self.satisfied,
            "summary": plain(self.summary),
            "verdicts": plain(self.verdicts),
        }
        if include_classes:
            table = self.class_table
            out["class_table"] = {
                "columns": [str(c) for c in table.columns],
                "rows": plain(table.to_numpy(dtype=object)),
            }
        return out


def _t_distances_per_attribute(
    classes: EquivalenceClasses, models: Sequence[PrivacyModel], default: str = "auto"
) -> dict[str, list[str]]:
    """Per SA, the resolved distances of the t-models covering it (``default`` when
    none: the distance to report t with although no t threshold was set)."""
    out: dict[str, list[str]] = {sa: [] for sa in classes.sensitive}
    for model in models:
        for sa, resolved in model.reported_distances(classes).items():
            if resolved not in out[sa]:
                out[sa].append(resolved)
    for sa, distances in out.items():
        if not distances:
            distances.append(resolve_distance(classes, sa, default))
    return out


def _model_labels(models: Sequence[PrivacyModel]) -> list[str]:
    """Model names; a name shared by several models gets its requirement added."""
    names = [m.name for m in models]
    return [f"{m.name}: {m.requirement()}" if names.count(m.name) > 1 else m.name for m in models]


def evaluate(
    classes: EquivalenceClasses,
    models: Sequence[PrivacyModel] = (),
    *,
    frame: pd.DataFrame | None = None,
    default_distance: str = "auto",
) -> ModelReport:
    """Check ``models`` on ``classes`` and measure every class (see :class:`ModelReport`).

    ``frame`` (the released table) names each class by its QI values in the class table.
    ``default_distance`` is the distance t is reported with for an SA no t-closeness
    model covers (a model's own distance wins).
    Raises RoleError/HierarchyError as the models do (an l or t model on a partition
    without a sensitive attribute, a hierarchical distance without a hierarchy).
    """
    models = list(models)
    for model in models:
        if not isinstance(model, PrivacyModel):
            raise ParameterError(
                f"Not a privacy model: {model!r}.", code="models.not_a_model", value=str(model)
            )
    n = classes.n_classes
    columns: dict[str, Any] = {"class": np.arange(n, dtype=np.int64)}
    table = pd.DataFrame(columns)
    if frame is not None:
        keys = classes.class_keys(frame)
        table = pd.concat([table, keys], axis=1)
    table["size"] = classes.sizes

    distances = _t_distances_per_attribute(classes, models, default_distance)
    summary: dict[str, Any] = {
        "k": int(classes.sizes.min()) if n else None,
        "classes": n,
        "suppressed_rows": classes.n_suppressed,
        "rows": classes.n_rows,
        "l_distinct": {},
        "l_entropy": {},
        "recursive_c": {},
        "t_closeness": {},
        "top_share": {},
    }
    extra: dict[str, Any] = {}
    for sa in classes.sensitive:
        distinct = distinct_values(classes, sa)
        ent = entropy_l(classes, sa)
        top = top_share(classes, sa)
        extra[f"{sa} · distinct"] = distinct
        extra[f"{sa} · entropy l"] = ent
        extra[f"{sa} · top share"] = top
        for distance in distances[sa]:
            extra[f"{sa} · t ({distance})"] = t_distance(classes, sa, distance)
        first = distances[sa][0]
        summary["l_distinct"][sa] = _worst(distinct, np.min)
        summary["l_entropy"][sa] = _worst(ent, np.min)
        summary["recursive_c"][sa] = _worst(recursive_c(classes, sa, 2), np.max)
        summary["t_closeness"][sa] = {
            "distance": first,
            "t": _worst(t_distance(classes, sa, first), np.max),
        }
        summary["top_share"][sa] = _worst(top, np.max)
    if extra:
        table = pd.concat([table, pd.DataFrame(extra)], axis=1)

    labels = _model_labels(models)
    verdicts = []
    fail_sets: list[np.ndarray] = []
    combination = np.zeros(n, dtype=np.int64)  # equal for classes failing the same models
    for model in models:
        fails = ~model.class_pass(classes)
        fail_sets.append(fails)
        combination = pd.factorize(combination * 2 + fails)[0]  # not rows: per class
        combination = combination.astype(np.int64)
        verdicts.append(
            {
                "model": model.name,
                "requirement": model.requirement(),
                "achieved": model.achieved(classes),
                "passed": not bool(fails.any()),
                "violating_classes": int(fails.sum()),
                "violating_rows": int(classes.sizes[fails].sum()),
                "parameters": model.to_dict(),
            }
        )
    # One label per distinct combination of failing models (few), not per class.
    _, first, group = np.unique(  # not rows: per class
        combination, return_index=True, return_inverse=True
    )
    names = [
        ", ".join(lab for lab, f in zip(labels, fail_sets, strict=True) if f[i]) for i in first
    ]
    name_codes, distinct_names = pd.factorize(  # not rows: one name per combination
        pd.Index(names, dtype=object)
    )
    table["violates"] = (
        pd.Categorical.from_codes(name_codes[group], categories=distinct_names) if n else ""
    )
    return ModelReport(table, summary, verdicts)
