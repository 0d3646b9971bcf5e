"""Property tests of privcore.models (hypothesis) on small random tables.

Tables have ≤ 40 rows, 1–3 integer QIs with small domains, a categorical SA (values
``v0``…``v5``, with a random nested hierarchy over all six values, so some leaves may
not occur) and a numeric SA. A generalization coarsens each QI by integer division
(level L: ``v >> L``); a few rows may be suppressed (every QI ``*``).

Checked: k is at most every class size; a coarser generalization never lowers k,
distinct l or entropy l and never raises recursive c or t (monotonicity, seed 003
lemmas 20.3.1–3; t by convexity of the EMD and KL); equal/ordered/hierarchical t lie in
[0, 1]; recursive (c,l) ⇒ distinct l; the sparse measures equal brute-force and dense
references (per-class value counts, and the dense blocks of
``EquivalenceClasses.distributions``); violating rows are the rows of failing classes.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from privcore.classes import equivalence_classes
from privcore.data.hierarchy import Hierarchy
from privcore.models import (
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    RecursiveCLDiversity,
    TCloseness,
    distinct_values,
    entropy_l,
    recursive_c,
    t_distance,
    top_share,
)

TOL = 1e-9
SA_VALUES = [f"v{i}" for i in range(6)]
BOUNDED = ("equal", "ordered", "hierarchical")
SETTINGS = settings(max_examples=100, deadline=None)


@st.composite
def hierarchies(draw) -> Hierarchy:
    """A random nested hierarchy over v0…v5: each level maps the groups of the level
    below to fewer (or as many) groups; the top is ``*``."""
    height = draw(st.integers(1, 3))
    columns = [np.array(SA_VALUES, dtype=object)]
    groups = np.arange(len(SA_VALUES))  # group of each leaf at the current level
    n_groups = len(SA_VALUES)
    for level in range(1, height):
        n_up = draw(st.integers(1, n_groups))
        parents = st.lists(st.integers(0, n_up - 1), min_size=n_groups, max_size=n_groups)
        parent = np.array(draw(parents))
        groups = parent[groups]
        _, groups = np.unique(groups, return_inverse=True)
        n_groups = int(groups.max()) + 1
        columns.append(np.array([f"L{level}_{g}" for g in groups], dtype=object))
    columns.append(np.array(["*"] * len(SA_VALUES), dtype=object))
    return Hierarchy(np.column_stack(columns).tolist())


@st.composite
def tables(draw):
    """(raw QI frame, SA columns, QI domains' bit widths, suppressed mask, hierarchy)."""
    n = draw(st.integers(1, 40))
    n_qi = draw(st.integers(1, 3))
    qi = {}
    for i in range(n_qi):
        domain = draw(st.integers(1, 8))
        qi[f"q{i}"] = draw(st.lists(st.integers(0, domain - 1), min_size=n, max_size=n))
    s = draw(st.lists(st.sampled_from(SA_VALUES), min_size=n, max_size=n))
    x = draw(st.lists(st.integers(0, 9), min_size=n, max_size=n))
    suppressed = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    if draw(st.booleans()):
        suppressed[:] = False
    raw = pd.DataFrame(qi)
    sa = pd.DataFrame({"s": s, "x": np.array(x, dtype=np.int64)})
    return raw, sa, suppressed, draw(hierarchies())


def release(raw: pd.DataFrame, sa: pd.DataFrame, suppressed: np.ndarray, levels) -> pd.DataFrame:
    """Every QI coarsened by ``v >> level``; suppressed rows get ``*`` everywhere."""
    out = pd.DataFrame(
        {
            c: (raw[c].to_numpy() >> lv).astype(str).astype(object)
            for c, lv in zip(raw.columns, levels, strict=True)
        }
    )
    out.loc[suppressed, list(raw.columns)] = "*"
    return pd.concat([out, sa], axis=1)


def classes_of(frame: pd.DataFrame, qi, hierarchy):
    return equivalence_classes(frame, qi, ["s", "x"], hierarchies={"s": hierarchy})


@st.composite
def node_pairs(draw):
    """A table with two generalizations g ≤ g' (componentwise)."""
    raw, sa, suppressed, hierarchy = draw(tables())
    low = [draw(st.integers(0, 3)) for _ in raw.columns]
    high = [lv + draw(st.integers(0, 3)) for lv in low]
    return raw, sa, suppressed, hierarchy, low, high


@st.composite
def partitions(draw):
    raw, sa, suppressed, hierarchy = draw(tables())
    levels = [draw(st.integers(0, 3)) for _ in raw.columns]
    frame = release(raw, sa, suppressed, levels)
    return frame, classes_of(frame, list(raw.columns), hierarchy)


# --------------------------------------------------------------------------- references


def class_values(frame: pd.DataFrame, classes, column: str) -> list[list]:
    """The SA values of each class (a Python loop over classes: reference only)."""
    return [list(frame[column].to_numpy()[classes.ids == j]) for j in range(classes.n_classes)]


def dense_distance(classes, sa: str, distance: str) -> np.ndarray:
    """The definitions on dense per-class distributions (classes.distributions)."""
    attribute = classes.attribute(sa)
    q = attribute.distribution
    m = attribute.n_values
    out = np.zeros(classes.n_classes)
    order = "rank" if distance == "ordered" else "code"
    for first, p in classes.distributions(sa, order=order):
        rows = slice(first, first + len(p))
        if distance == "equal":
            out[rows] = 0.5 * np.abs(p - q).sum(axis=1)
        elif distance == "kl":
            with np.errstate(divide="ignore", invalid="ignore"):
                out[rows] = np.where(p > 0, p * np.log(p / q), 0.0).sum(axis=1)
        elif distance == "ordered":
            q_rank = np.zeros(m)
            q_rank[attribute.rank] = q
            cumulative = np.cumsum(p - q_rank, axis=1)
            out[rows] = np.abs(cumulative).sum(axis=1) / (m - 1) if m > 1 else 0.0
        else:
            out[rows] = dense_hierarchical(p - q, attribute)
    return out


def dense_hierarchical(extra: np.ndarray, attribute) -> np.ndarray:
    """Li et al. 2007: Σ over inner nodes N of (level/H)·min(pos(N), neg(N))."""
    hierarchy = attribute.hierarchy
    height = hierarchy.height
    values = pd.Series(attribute.values, dtype=object)
    labels = [
        pd.factorize(hierarchy.generalize_values(values, j).to_numpy(dtype=object))[0]
        for j in range(height + 1)
    ]
    cost = np.zeros(len(extra))
    child = extra @ np.eye(labels[0].max() + 1)[labels[0]]  # extras of level-0 nodes
    for j in range(1, height + 1):
        # parent indicator: level j−1 node → level j node
        up = np.zeros((labels[j - 1].max() + 1, labels[j].max() + 1))
        up[labels[j - 1], labels[j]] = 1
        pos = np.maximum(child, 0) @ up
        neg = np.maximum(-child, 0) @ up
        cost += j / height * np.minimum(pos, neg).sum(axis=1)
        child = child @ up
    return cost


# --------------------------------------------------------------------------- properties


@SETTINGS
@given(partitions())
def test_sparse_measures_equal_brute_force_and_dense_references(case):
    frame, classes = case
    for sa in ("s", "x"):
        per_class = [Counter(v) for v in class_values(frame, classes, sa)]
        assert distinct_values(classes, sa).tolist() == [len(c) for c in per_class]
        sizes = [sum(c.values()) for c in per_class]
        entropy = [
            -sum(k / n * math.log(k / n) for k in c.values())
            for c, n in zip(per_class, sizes, strict=True)
        ]
        assert np.allclose(entropy_l(classes, sa), np.exp(entropy), rtol=0, atol=TOL)
        top = [max(c.values()) / n for c, n in zip(per_class, sizes, strict=True)]
        assert np.allclose(top_share(classes, sa), top, atol=TOL)
        for l in range(1, 5):  # noqa: E741
            expected = []
            for c in per_class:
                r = sorted(c.values(), reverse=True)
                tail = sum(r[l - 1 :])
                expected.append(r[0] / tail if tail else math.inf)
            assert np.allclose(recursive_c(classes, sa, l), expected, atol=TOL)
        for distance in ("equal", "ordered", "kl") + (("hierarchical",) if sa == "s" else ()):
            sparse = t_distance(classes, sa, distance)
            assert np.allclose(sparse, dense_distance(classes, sa, distance), atol=TOL)


@SETTINGS
@given(partitions())
def test_k_is_at_most_every_class_size(case):
    _, classes = case
    achieved = KAnonymity(1).achieved(classes)["k"]
    if classes.n_classes == 0:
        assert achieved is None and KAnonymity(1000).satisfied(classes)
        return
    assert all(achieved <= size for size in classes.sizes)
    assert KAnonymity(achieved).satisfied(classes)
    assert not KAnonymity(achieved + 1).satisfied(classes)


@SETTINGS
@given(partitions())
def test_t_lies_in_unit_interval(case):
    _, classes = case
    for sa in ("s", "x"):
        for distance in BOUNDED if sa == "s" else ("equal", "ordered"):
            t = t_distance(classes, sa, distance)
            assert ((t >= 0) & (t <= 1)).all()
        assert (t_distance(classes, sa, "kl") >= 0).all()


@SETTINGS
@given(partitions(), st.floats(0.05, 5), st.integers(1, 4))
def test_recursive_cl_implies_distinct_l(case, c, l):  # noqa: E741
    _, classes = case
    for sa in ("s", "x"):
        model = RecursiveCLDiversity(c, l, (sa,))
        passing = model.class_pass(classes)
        assert (distinct_values(classes, sa)[passing] >= l).all()
        if model.satisfied(classes):
            assert DistinctLDiversity(l, (sa,)).satisfied(classes)


def _worst(values: np.ndarray, reducer):
    return reducer(values) if len(values) else None


@SETTINGS
@given(node_pairs())
def test_coarser_generalization_is_monotone(case):
    raw, sa, suppressed, hierarchy, low, high = case
    qi = list(raw.columns)
    fine = classes_of(release(raw, sa, suppressed, low), qi, hierarchy)
    coarse = classes_of(release(raw, sa, suppressed, high), qi, hierarchy)
    if fine.n_classes == 0:
        assert coarse.n_classes == 0
        return
    assert coarse.sizes.min() >= fine.sizes.min()  # k
    for name in ("s", "x"):
        assert distinct_values(coarse, name).min() >= distinct_values(fine, name).min()
        assert entropy_l(coarse, name).min() >= entropy_l(fine, name).min() - TOL
        for l in (2, 3):  # noqa: E741
            assert recursive_c(coarse, name, l).max() <= recursive_c(fine, name, l).max() + TOL
        distances = ("equal", "ordered", "kl") + (("hierarchical",) if name == "s" else ())
        for distance in distances:
            assert (
                t_distance(coarse, name, distance).max()
                <= t_distance(fine, name, distance).max() + TOL
            )
    # And so every model satisfied by the finer partition is satisfied by the coarser.
    for model in (
        KAnonymity(2),
        DistinctLDiversity(2),
        EntropyLDiversity(1.8),
        RecursiveCLDiversity(3, 2),
        TCloseness(0.4),
        TCloseness(0.4, "hierarchical", ("s",)),
    ):
        if model.satisfied(fine):
            assert model.satisfied(coarse)


@SETTINGS
@given(partitions(), st.integers(1, 6), st.floats(0, 1))
def test_violating_rows_are_the_rows_of_failing_classes(case, k, t):
    _, classes = case
    for model in (
        KAnonymity(k),
        DistinctLDiversity(min(k, 4)),
        EntropyLDiversity(1 + t * 3),
        RecursiveCLDiversity(1 + 2 * t, 2),
        TCloseness(t),
    ):
        passed = model.class_pass(classes)
        rows = model.violating_rows(classes)
        kept = classes.ids >= 0
        assert not rows[~kept].any()
        assert (rows[kept] == ~passed[classes.ids[kept]]).all()
        assert model.satisfied(classes) == (not rows.any())
