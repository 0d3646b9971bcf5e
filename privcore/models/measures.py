"""Per-class measures of a sensitive attribute, computed with numpy over the sparse
(class, value) counts of :meth:`~privcore.classes.EquivalenceClasses.value_counts` and
cached on the partition: distinct values, entropy l, the recursive (c,l) ratio and the
share of the most frequent value (Machanavajjhala, Kifer, Gehrke, Venkitasubramaniam
2007)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from privcore.classes import EquivalenceClasses
from privcore.models.checks import _whole


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
