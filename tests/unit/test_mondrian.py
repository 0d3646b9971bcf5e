"""Mondrian (LeFevre, DeWitt, Ramakrishnan 2006; SPEC §4): partitions, summaries,
constraints measured by the independent code path, infeasibility, progress."""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from privcore.anonymize.mondrian import mondrian
from privcore.data.hierarchy import Hierarchy
from privcore.data.roles import Role
from privcore.data.samples import load_sample
from privcore.data.schema import Schema
from privcore.errors import CancelledError, InfeasibleError, ParameterError
from privcore.models import (
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    RecursiveCLDiversity,
    TCloseness,
)

Q, S, ID = Role.QUASI_IDENTIFIER, Role.SENSITIVE, Role.IDENTIFIER


def _sizes(release) -> np.ndarray:
    return np.bincount(release.class_ids)


def _assert_consistent(release, original: pd.DataFrame, identifiers=()) -> None:
    """Same rows, none suppressed, identifiers gone, one released QI tuple per partition."""
    assert len(release.frame) == len(original)
    assert not release.suppressed.any()
    assert (release.class_ids >= 0).all()
    for column in identifiers:
        assert column not in release.frame.columns
    keys = release.frame[list(release.qi)].astype(object).fillna("<missing>")
    per_class = keys.groupby(release.class_ids).nunique()
    assert (per_class <= 1).all().all()


# --------------------------------------------------------------------------- partitions


@pytest.mark.parametrize("k", [2, 3, 5, 7])
def test_distinct_values_give_partitions_between_k_and_2k_minus_1(k):
    """SPEC: Mondrian's partitions each hold between k and 2k−1 rows when values are
    distinct."""
    rng = np.random.default_rng(k)
    n = 100
    frame = pd.DataFrame(
        {
            "x": rng.permutation(n) * 3 + 1,
            "y": rng.permutation(n).astype(float) / 7,
            "s": rng.choice(list("abc"), n),
        }
    )
    release = mondrian(frame, Schema({"x": Q, "y": Q, "s": S}), [KAnonymity(k)])
    sizes = _sizes(release)
    assert sizes.min() >= k
    assert sizes.max() <= 2 * k - 1
    assert release.params["partitions"] == len(sizes)
    _assert_consistent(release, frame)


def test_one_numeric_qi_halves_at_the_median():
    frame = pd.DataFrame({"age": [7, 1, 4, 8, 2, 5, 3, 6], "s": list("abababab")})
    schema = Schema({"age": Q, "s": S})
    release = mondrian(frame, schema, [KAnonymity(2)])
    assert release.frame["age"].tolist() == [
        "[7-8]",
        "[1-2]",
        "[3-4]",
        "[7-8]",
        "[1-2]",
        "[5-6]",
        "[3-4]",
        "[5-6]",
    ]
    # k = 3: 8 rows → 4 | 4, and 4 < 2·3 cannot be cut again.
    release = mondrian(frame, schema, [KAnonymity(3)])
    low, high = "[1-4]", "[5-8]"
    assert release.frame["age"].tolist() == [high, low, low, high, low, high, low, high]
    assert release.params["summary"] == "range"
    assert release.params["partitions"] == 2
    # GCP: each partition spans 3 of the table's 7 → 3/7.
    assert release.extra_loss["ncp"] == pytest.approx(3 / 7)


def test_ties_never_put_a_value_on_both_sides():
    # The median value 5 covers most rows: the cut must keep all the 5s on one side.
    frame = pd.DataFrame({"v": [1, 5, 5, 5, 5, 5, 9, 9], "s": list("abababab")})
    release = mondrian(frame, Schema({"v": Q, "s": S}), [KAnonymity(2)])
    fives = release.class_ids[frame["v"].to_numpy() == 5]
    assert len(set(fives.tolist())) == 1
    assert release.frame["v"].tolist() == ["[1-5]"] * 6 + ["9", "9"]


# --------------------------------------------------------------------------- summaries


def test_mean_summary():
    frame = pd.DataFrame({"age": [1, 10, 2, 11, 2, 11], "s": list("ababab")})
    release = mondrian(frame, Schema({"age": Q, "s": S}), [KAnonymity(3)], summary="mean")
    assert release.frame["age"].tolist() == ["1.67", "10.67", "1.67", "10.67", "1.67", "10.67"]
    assert release.params["summary"] == "mean"
    # The NCP is the range's, whatever the summary: 1/10 for each partition.
    assert release.extra_loss["ncp"] == pytest.approx(0.1)


def test_unknown_summary_is_refused():
    frame = pd.DataFrame({"age": [1, 2], "s": list("ab")})
    with pytest.raises(ParameterError):
        mondrian(frame, Schema({"age": Q, "s": S}), [KAnonymity(1)], summary="median")


def test_set_summary_of_categorical_values_without_hierarchy():
    frame = pd.DataFrame({"city": list("babacdcd"), "s": list("xyxyxyxy")})
    release = mondrian(frame, Schema({"city": Q, "s": S}), [KAnonymity(4)])
    assert release.frame["city"].tolist() == ["{a,b}"] * 4 + ["{c,d}"] * 4
    # Two distinct of four in every cell.
    assert release.extra_loss["ncp"] == pytest.approx(0.5)


def test_single_values_are_released_as_themselves():
    # city first ({a,b} | {c,d}), then age inside each (30 | 40): single values remain.
    frame = pd.DataFrame(
        {"city": list("bbaaccdd"), "age": [30, 30, 40, 40, 30, 30, 40, 40], "s": list("xy") * 4}
    )
    release = mondrian(frame, Schema({"city": Q, "age": Q, "s": S}), [KAnonymity(2)])
    assert release.frame["city"].tolist() == list("bbaaccdd")
    assert release.frame["age"].tolist() == ["30", "30", "40", "40", "30", "30", "40", "40"]
    assert release.extra_loss["ncp"] == 0.0


@pytest.fixture
def city_hierarchy() -> Hierarchy:
    return Hierarchy([["x", "XY", "*"], ["y", "XY", "*"], ["z", "ZW", "*"], ["w", "ZW", "*"]])


def test_hierarchy_lowest_common_ancestor(city_hierarchy):
    frame = pd.DataFrame({"city": list("xyxyzwzw"), "s": list("abcdabcd")})
    schema = Schema({"city": Q, "s": S}, {"city": city_hierarchy})
    # k = 3: the root's children XY | ZW (4 rows each), and no child of XY holds 3.
    release = mondrian(frame, schema, [KAnonymity(3)])
    assert release.frame["city"].tolist() == ["XY"] * 4 + ["ZW"] * 4
    assert release.extra_loss["ncp"] == pytest.approx(0.5)  # 2 leaves of 4 under each
    # k = 2: down to the leaves.
    release = mondrian(frame, schema, [KAnonymity(2)])
    assert release.frame["city"].tolist() == list("xyxyzwzw")
    # k = 5: nothing can be cut; the root is the common ancestor.
    release = mondrian(frame, schema, [KAnonymity(5)])
    assert release.frame["city"].tolist() == ["*"] * 8
    assert release.extra_loss["ncp"] == pytest.approx(1.0)


def test_hierarchy_cut_keeps_each_child_whole(city_hierarchy):
    # XY holds 6 rows, ZW 2: the only cut of the root is XY | ZW, which leaves 2 < k = 3,
    # so the children are never divided into anything else.
    frame = pd.DataFrame({"city": list("xxxyyyzw"), "s": list("abcdabcd")})
    schema = Schema({"city": Q, "s": S}, {"city": city_hierarchy})
    release = mondrian(frame, schema, [KAnonymity(3)])
    assert release.frame["city"].tolist() == ["*"] * 8
    release = mondrian(frame, schema, [KAnonymity(2)])
    assert release.frame["city"].tolist() == ["x", "x", "x", "y", "y", "y", "ZW", "ZW"]


def test_missing_values_in_ranges_sets_and_hierarchies(city_hierarchy):
    frame = pd.DataFrame(
        {
            "age": [1.0, 3.0, None, None, None, None],
            "city": ["a", None, "a", None, None, None],
            "home": ["x", "y", None, "x", None, None],
            "s": list("ababab"),
        }
    )
    schema = Schema({"age": Q, "city": Q, "home": Q, "s": S}, {"home": city_hierarchy})
    release = mondrian(frame, schema, [KAnonymity(6)])
    assert release.frame["age"].tolist() == ["[1-3],NA"] * 6
    assert release.frame["city"].tolist() == ["{a,NA}"] * 6
    assert release.frame["home"].tolist() == ["*"] * 6
    # A partition of missing values only releases a missing value.
    frame = pd.DataFrame({"age": [1, 2, None, None], "s": list("abab")})
    release = mondrian(frame, Schema({"age": Q, "s": S}), [KAnonymity(2)])
    assert release.frame["age"].iloc[:2].tolist() == ["[1-2]", "[1-2]"]
    assert release.frame["age"].iloc[2:].isna().all()
    assert release.satisfied


def test_columns_of_missing_values_only(city_hierarchy):
    frame = pd.DataFrame(
        {
            "age": [None] * 4,
            "city": [None] * 4,
            "home": pd.Series([None] * 4, dtype=object),
            "s": list("abab"),
        }
    )
    schema = Schema({"age": Q, "city": Q, "home": Q, "s": S}, {"home": city_hierarchy})
    release = mondrian(frame, schema, [KAnonymity(2)])
    assert release.frame[["age", "city", "home"]].isna().all().all()
    assert release.params["partitions"] == 1
    assert release.extra_loss["ncp"] == 0.0


# --------------------------------------------------------------------------- constraints


def _random_table(n: int = 240, seed: int = 7) -> tuple[pd.DataFrame, Schema]:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "id": np.arange(n),
            "age": rng.integers(18, 80, n),
            "zip": rng.choice([f"4760{i}" for i in range(10)], n),
            "sex": rng.choice(["M", "F"], n),
            "disease": rng.choice(["flu", "cold", "ulcer", "gastritis", "cancer", "asthma"], n),
            "salary": rng.integers(1, 12, n) * 1000,
        }
    )
    disease = Hierarchy(
        [
            ["flu", "respiratory", "*"],
            ["cold", "respiratory", "*"],
            ["asthma", "respiratory", "*"],
            ["ulcer", "stomach", "*"],
            ["gastritis", "stomach", "*"],
            ["cancer", "stomach", "*"],
        ]
    )
    sex = Hierarchy([["M", "*"], ["F", "*"]])
    schema = Schema(
        {"id": ID, "age": Q, "zip": Q, "sex": Q, "disease": S, "salary": S},
        {"sex": sex, "disease": disease},
    )
    return frame, schema


CONSTRAINTS = {
    "k": [KAnonymity(5)],
    "distinct l": [DistinctLDiversity(3)],
    "entropy l": [EntropyLDiversity(2.5)],
    "recursive (c,l)": [RecursiveCLDiversity(3, 2)],
    "t equal": [TCloseness(0.3, "equal", attributes=("disease",))],
    "t ordered": [TCloseness(0.3, "ordered", attributes=("salary",))],
    "t hierarchical": [TCloseness(0.15, "hierarchical", attributes=("disease",))],
    "t kl": [TCloseness(0.5, "kl", attributes=("disease",))],
    "k + l + t": [KAnonymity(4), DistinctLDiversity(2), TCloseness(0.4)],
}


@pytest.mark.parametrize("name", list(CONSTRAINTS))
def test_every_release_satisfies_its_constraints(name):
    frame, schema = _random_table()
    constraints = CONSTRAINTS[name]
    release = mondrian(frame, schema, constraints)
    assert release.measurement.models.satisfied
    assert release.satisfied
    assert release.params["partitions"] > 1  # it did cut
    assert release.algorithm == "mondrian"
    _assert_consistent(release, frame, identifiers=("id",))
    assert "id" not in release.frame.columns
    assert 0.0 <= release.extra_loss["ncp"] <= 1.0
    # The sensitive and other columns are released as they are.
    assert release.frame["disease"].tolist() == frame["disease"].tolist()


def test_same_seed_same_release():
    frame, schema = _random_table(seed=3)
    constraints = [KAnonymity(3), EntropyLDiversity(2)]
    first = mondrian(frame, schema, constraints, seed=11)
    again = mondrian(frame, schema, constraints, seed=11)
    pd.testing.assert_frame_equal(first.frame, again.frame)
    assert np.array_equal(first.class_ids, again.class_ids)
    assert first.params["seed"] == 11
    # No randomness at all: another seed gives the same table.
    other = mondrian(frame, schema, constraints, seed=12)
    pd.testing.assert_frame_equal(first.frame, other.frame)


def test_nothing_is_suppressed_whatever_the_limit():
    frame, schema = _random_table(seed=5)
    release = mondrian(frame, schema, [KAnonymity(4)], max_suppression=0.1)
    assert release.n_suppressed == 0
    assert release.params["max_suppression"] == 0.1


def test_infeasible_when_the_whole_table_fails():
    frame, schema = _random_table(seed=9)
    counts = frame["disease"].value_counts().to_numpy()
    p = counts / counts.sum()
    table_l = math.exp(-(p * np.log(p)).sum())
    with pytest.raises(InfeasibleError) as info:
        mondrian(frame, schema, [EntropyLDiversity(table_l + 0.01, attributes=("disease",))])
    assert "entropy l-diversity" in info.value.message
    assert "whole table" in info.value.message
    assert info.value.code == "anonymize.infeasible"
    # Just below the table's own entropy l it runs.
    release = mondrian(frame, schema, [EntropyLDiversity(table_l - 0.01, attributes=("disease",))])
    assert release.satisfied


def test_prepare_errors_come_first():
    frame, schema = _random_table()
    with pytest.raises(InfeasibleError):
        mondrian(frame, schema, [KAnonymity(len(frame) + 1)])
    with pytest.raises(InfeasibleError):
        mondrian(frame, schema, [DistinctLDiversity(7, attributes=("disease",))])


PROPERTY_HIERARCHY = Hierarchy(
    [["x", "XY", "*"], ["y", "XY", "*"], ["z", "ZW", "*"], ["w", "ZW", "*"], ["v", "V", "*"]]
)


def _property_models(which: int, k: int, l: float, t: float) -> list:  # noqa: E741
    return [
        [KAnonymity(k)],
        [DistinctLDiversity(int(l))],
        [EntropyLDiversity(l)],
        [RecursiveCLDiversity(2.0, int(l))],
        [TCloseness(t, "equal")],
        [TCloseness(t, "ordered", attributes=("m",))],
        [KAnonymity(k), TCloseness(t, "kl")],
    ][which]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10**6),
    n=st.integers(1, 80),
    k=st.integers(1, 8),
    l=st.floats(1, 3.5),
    t=st.floats(0.0, 1.0),
    which=st.integers(0, 6),
    summary=st.sampled_from(["range", "mean"]),
)
# Found by this test: the ordered distance must see the whole table's Q.
@example(seed=1, n=17, k=1, l=1.0, t=0.5625, which=5, summary="range")
def test_property_satisfied_or_infeasible(seed, n, k, l, t, which, summary):  # noqa: E741
    """Any release satisfies its models (or InfeasibleError), with missing values in
    every kind of QI: numeric, categorical, hierarchical."""
    rng = np.random.default_rng(seed)
    age = rng.integers(0, 20, n).astype(float)
    age[rng.random(n) < 0.15] = np.nan
    frame = pd.DataFrame(
        {
            "age": age,
            "b": rng.choice(["u", "v", "w", None], n),
            "h": rng.choice(["x", "y", "z", "w", "v", None], n),
            "s": rng.choice(["p", "q", "r", "o"], n),
            "m": rng.integers(0, 5, n),
        }
    )
    schema = Schema({"age": Q, "b": Q, "h": Q, "s": S, "m": S}, {"h": PROPERTY_HIERARCHY})
    try:
        release = mondrian(
            frame, schema, _property_models(which, k, l, t), seed=seed, summary=summary
        )
    except InfeasibleError:
        return
    assert release.satisfied
    _assert_consistent(release, frame)
    if which == 0:
        assert np.bincount(release.class_ids).min() >= k


# --------------------------------------------------------------------------- Adult, progress


@pytest.fixture(scope="module")
def adult():
    dataset, schema = load_sample("adult")
    return dataset.frame, schema


def test_adult_k10(adult):
    frame, schema = adult
    release = mondrian(frame, schema, [KAnonymity(10)])
    assert release.satisfied
    assert release.measurement.models.summary["k"] >= 10
    assert release.extra_loss["ncp"] < 0.15  # about 0.080 (the public Python one: 0.112)
    assert release.timings["search"] > 0
    assert set(release.frame.columns) == set(frame.columns)
    # Numbers as ranges, categories as labels of their hierarchy.
    ages = release.frame["age"]
    assert ages.str.fullmatch(r"\[\d+-\d+\]|\d+").all()
    labels = set(schema.hierarchies["education"].to_frame().stack().tolist())
    assert set(release.frame["education"].unique()) <= labels
    _assert_consistent(release, frame)


def _independent_ncp(original: pd.Series, released: pd.Series, hierarchy: Hierarchy | None):
    """NCP per cell from the released text alone (Xu et al. 2006): a range [a-b] costs
    (b − a) / (max − min of the column); a label, the share of the column's distinct
    values under it when it covers more than one (0 otherwise)."""
    labels = released.astype(str)
    if pd.api.types.is_numeric_dtype(original):
        bounds = labels.str.extract(r"^\[(-?[\d.]+)-(-?[\d.]+)\]$").astype(float)
        return ((bounds[1] - bounds[0]).fillna(0.0) / (original.max() - original.min())).to_numpy()
    present = set(original.dropna().astype(str))
    under: dict[str, set] = {}
    table = hierarchy.to_frame().astype(str)
    for _, row in table.iterrows():
        if row.iloc[0] in present:
            for label in row.iloc[1:]:
                under.setdefault(label, set()).add(row.iloc[0])
    card = labels.map(lambda label: len(under.get(label, ())) or 1).to_numpy()
    return np.where(card > 1, card / len(present), 0.0)


def test_own_ncp_and_measured_gcp_agree_with_the_released_text(adult):
    """One GCP for a Mondrian release: its own NCP is the mean over all 8 QIs (age as
    ranges), and the independent measurement reads the same figure from the released
    cells (age's ranges are no hierarchy labels, so WHD and precision leave age out,
    with a note, but GCP reads its cells): on Adult at k = 10, 0.0795 over 8 QIs.
    Both equal a recomputation from the released text."""
    frame, schema = adult
    release = mondrian(frame, schema, [KAnonymity(10)])
    per_qi = {
        q: _independent_ncp(frame[q], release.frame[q], schema.hierarchies.get(q))
        for q in release.qi
    }
    everything = float(np.mean([per_qi[q].mean() for q in release.qi]))
    assert release.extra_loss["ncp"] == pytest.approx(everything, abs=1e-12)
    measured = release.measurement.loss
    assert "age" not in measured["loss_columns"]
    assert sorted(measured["gcp_columns"]) == sorted(release.qi)
    assert any("'age'" in note for note in release.measurement.notes)
    assert measured["gcp"] == pytest.approx(everything, abs=1e-12)
    assert release.loss["gcp"] == measured["gcp"]
    assert round(everything, 4) == 0.0795


def test_progress_is_reported_and_cancellation_stops_the_work(adult):
    frame, schema = adult
    seen = []
    mondrian(frame, schema, [KAnonymity(10)], progress=lambda f, m: seen.append((f, m)))
    fractions = [f for f, _ in seen]
    assert len(seen) > 5
    assert fractions[-1] == 1.0
    assert all(0.0 <= f <= 0.85 for f in fractions[1:-2])
    assert fractions == sorted(fractions)
    assert any(re.search(r"\d+ partitions", m) for _, m in seen)

    calls = []

    def cancel_later(fraction, message):
        calls.append(fraction)
        if len(calls) == 3:  # inside the partitioning loop
            raise CancelledError("Stopped by the user.")

    with pytest.raises(CancelledError):
        mondrian(frame, schema, [KAnonymity(10)], progress=cancel_later)
    assert len(calls) == 3
