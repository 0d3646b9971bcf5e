"""Homogeneity, background-knowledge, unsorted-matching and complementary-release attacks
(SPEC §6) on hand-made tables with hand-computed answers."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from privcore.anonymize import anonymize
from privcore.attacks.background import background_attack, posteriors
from privcore.attacks.composition import complementary_attack
from privcore.attacks.homogeneity import homogeneity_attack
from privcore.attacks.ordering import export_order, spearman, unsorted_matching_attack
from privcore.attacks.report import AttackReport
from privcore.classes import equivalence_classes
from privcore.data import load_sample
from privcore.data.roles import Role
from privcore.data.schema import Schema
from privcore.errors import ParameterError, RoleError
from privcore.models import DistinctLDiversity, KAnonymity

QI = ["ZIP", "Age"]
SA = ["Salary", "Disease"]


@pytest.fixture(scope="module")
def hospital():
    return load_sample("hospital")[0].frame


@pytest.fixture(scope="module")
def hospital_release():
    return load_sample("hospital_release")[0].frame


def _well_formed(report: AttackReport, attack: str) -> None:
    assert report.attack == attack
    assert 2 <= len(report.explanations) <= 4
    assert len(report.details["explanation_codes"]) == len(report.explanations)
    json.dumps(report.to_dict())


# --------------------------------------------------------------------------- homogeneity


def test_homogeneity_hospital_release_has_no_homogeneous_class(hospital_release):
    report = homogeneity_attack(hospital_release, QI, SA)
    _well_formed(report, "homogeneity")
    s = report.summary
    assert (s["classes_exposed"], s["records_exposed"], s["classes"], s["records"]) == (0, 0, 3, 9)
    assert s["per_attribute"]["Disease"]["classes_exposed"] == 0
    assert s["tau"] == 1.0
    assert report.targets.empty
    # each class holds three distinct diseases: the top share is 1/3 everywhere
    np.testing.assert_allclose(report.details["top_share"]["Disease"], [1 / 3] * 3)


def test_homogeneity_at_one_third_exposes_every_class(hospital_release):
    report = homogeneity_attack(hospital_release, QI, ["Disease"], tau=1 / 3)
    s = report.summary
    assert (s["classes_exposed"], s["records_exposed"], s["records_exposed_share"]) == (3, 9, 1.0)
    targets = report.targets
    assert list(targets.columns) == ["class", *QI, "size", "attribute", "value", "count", "share"]
    assert targets["ZIP"].tolist() == ["4767*", "4790*", "4760*"]
    assert targets["size"].tolist() == [3, 3, 3]
    # ties go to the value seen first in the table (stomach cancer, row 3, before
    # bronchitis, row 6, in the third class)
    assert targets["value"].tolist() == ["gastric ulcer", "gastritis", "stomach cancer"]
    np.testing.assert_allclose(targets["share"], 1 / 3)


def test_homogeneity_one_homogeneous_class_per_attribute():
    frame = pd.DataFrame(
        {
            "zip": ["1*"] * 3 + ["2*"] * 4 + ["3*"] * 2 + ["*"],
            "disease": ["flu"] * 3 + ["flu", "cold", "cold", "cold"] + ["hiv", "flu"] + ["hiv"],
            "salary": ["low"] * 3 + ["high"] * 4 + ["low", "low"] + ["high"],
        }
    )
    report = homogeneity_attack(frame, ["zip"], ["disease", "salary"])
    s = report.summary
    # disease: class 1* only; salary: 1*, 2*, 3* all homogeneous; union = every class
    assert s["per_attribute"]["disease"] == {
        "classes_exposed": 1,
        "records_exposed": 3,
        "records_exposed_share": 0.3,
    }
    assert s["per_attribute"]["salary"]["classes_exposed"] == 3
    assert s["per_attribute"]["salary"]["records_exposed"] == 9
    assert (s["classes_exposed"], s["records_exposed"], s["suppressed"]) == (3, 9, 1)
    disease = report.targets[report.targets["attribute"] == "disease"]
    assert disease[["zip", "size", "value", "share"]].values.tolist() == [["1*", 3, "flu", 1.0]]
    # τ = 0.75: class 2* (cold 3 of 4) joins for disease
    loose = homogeneity_attack(frame, ["zip"], "disease", tau=0.75)
    assert loose.summary["classes_exposed"] == 2
    assert loose.targets["value"].tolist() == ["flu", "cold"]
    assert loose.targets["share"].tolist() == [1.0, 0.75]


def test_homogeneity_takes_a_release_and_rejects_bad_input(hospital):
    schema = Schema({"ZIP": Role.QUASI_IDENTIFIER, "Age": Role.QUASI_IDENTIFIER,
                     "Disease": Role.SENSITIVE})  # fmt: skip
    release = anonymize(hospital, schema, [KAnonymity(3)], algorithm="mondrian")
    report = homogeneity_attack(release)  # QIs and SA from the release
    assert report.summary["records"] == 9
    assert report.summary["per_attribute"].keys() == {"Disease"}
    with pytest.raises(ParameterError):
        homogeneity_attack(hospital, QI, SA, tau=0)
    with pytest.raises(ParameterError):
        homogeneity_attack(hospital, QI, SA, tau=1.5)
    with pytest.raises(RoleError):
        homogeneity_attack(hospital, ["nope"], SA)
    with pytest.raises(RoleError):
        homogeneity_attack(hospital, QI, [])


# --------------------------------------------------------------------------- background


@pytest.fixture
def counts_3_2_1():
    """One class of six records: a ×3, b ×2, c ×1, plus a second class (x, y)."""
    return pd.DataFrame({"q": ["A"] * 6 + ["B"] * 2, "s": ["a", "b", "a", "c", "b", "a", "x", "y"]})


@pytest.mark.parametrize(
    ("m", "expected"),
    [
        # m = 0: c(v)/n
        (0, {"a": 3 / 6, "b": 2 / 6, "c": 1 / 6, "x": 1 / 2, "y": 1 / 2}),
        # m = 1: a rules out b → 3/(6−2); b rules out a → 2/(6−3); c rules out a → 1/(6−3)
        (1, {"a": 3 / 4, "b": 2 / 3, "c": 1 / 3, "x": 1.0, "y": 1.0}),
        # m = 2: both wrong values gone: certainty
        (2, {"a": 1.0, "b": 1.0, "c": 1.0, "x": 1.0, "y": 1.0}),
        (5, {"a": 1.0, "b": 1.0, "c": 1.0, "x": 1.0, "y": 1.0}),
    ],
)
def test_background_posteriors_by_hand(counts_3_2_1, m, expected):
    report = background_attack(counts_3_2_1, ["q"], "s", m=m, tau=0.75)
    _well_formed(report, "background")
    targets = report.targets
    assert targets["row"].tolist() == list(range(8))
    got = dict(zip(targets["value"], targets["posterior"], strict=True))
    assert got == pytest.approx(expected)
    left = dict(zip(targets["value"], targets["values_left"], strict=True))
    assert left["a"] == 3 - min(m, 2) and left["x"] == 2 - min(m, 1)
    at_risk = sum(p >= 0.75 for p in targets["posterior"])
    assert report.summary["records_at_risk"] == at_risk
    assert report.summary["mean_posterior"] == pytest.approx(targets["posterior"].mean())
    assert report.summary["m"] == m
    assert sum(report.details["posterior_histogram"]["counts"]) == 8


def test_background_summary_m1(counts_3_2_1):
    s = background_attack(counts_3_2_1, ["q"], "s", m=1, tau=0.75).summary
    # at risk (≥ 0.75): the three a's and x, y
    assert s["records_at_risk"] == 5
    assert s["records_at_risk_share"] == pytest.approx(5 / 8)
    assert s["mean_posterior"] == pytest.approx((3 * 3 / 4 + 2 * 2 / 3 + 1 / 3 + 2) / 8)
    assert s["mean_posterior_without_knowledge"] == pytest.approx((3 * 0.5 + 2 / 3 + 1 / 6 + 1) / 8)
    assert s["min_values_left"] == 1


def test_background_histogram(counts_3_2_1):
    hist = background_attack(counts_3_2_1, ["q"], "s", m=0).details["posterior_histogram"]
    assert len(hist["edges"]) == 11 and len(hist["counts"]) == 10
    # posteriors 0.5 ×5 (a, a, a, x, y), 1/3 ×2 (b), 1/6 (c)
    assert hist["counts"][5] == 5 and hist["counts"][3] == 2 and hist["counts"][1] == 1


def test_background_prior_by_hand(counts_3_2_1):
    # weights w·c in class A: a 1·3 = 3, b 3·2 = 6, c 1·1 = 1 (c unlisted: weight 1)
    prior = {"a": 1.0, "b": 3.0}
    m0 = background_attack(counts_3_2_1, ["q"], "s", m=0, prior=prior)
    got = dict(zip(m0.targets["value"], m0.targets["posterior"], strict=True))
    assert got == pytest.approx({"a": 0.3, "b": 0.6, "c": 0.1, "x": 0.5, "y": 0.5})
    # m = 1 rules out the heaviest wrong value: a → b gone: 3/4; b → a gone: 6/7; c → b: 1/4
    m1 = background_attack(counts_3_2_1, ["q"], "s", m=1, prior=prior)
    got = dict(zip(m1.targets["value"], m1.targets["posterior"], strict=True))
    assert got == pytest.approx({"a": 3 / 4, "b": 6 / 7, "c": 1 / 4, "x": 1.0, "y": 1.0})
    assert m1.summary["prior"] is True


def test_background_prior_function_of_the_class(counts_3_2_1):
    seen = []

    def prior(qi_values):
        seen.append(qi_values)
        return {"x": 4.0} if qi_values["q"] == "B" else {}

    report = background_attack(counts_3_2_1, ["q"], "s", m=0, prior=prior)
    assert seen == [{"q": "A"}, {"q": "B"}]  # once per class
    got = dict(zip(report.targets["value"], report.targets["posterior"], strict=True))
    assert got == pytest.approx({"a": 0.5, "b": 1 / 3, "c": 1 / 6, "x": 0.8, "y": 0.2})


def test_background_hospital_release(hospital_release):
    # three distinct diseases per class: one elimination leaves 2, posterior 1/2
    report = background_attack(hospital_release, QI, "Disease", m=1)
    assert report.targets["posterior"].tolist() == [0.5] * 9
    assert report.summary["records_at_risk"] == 0
    assert report.summary["min_values_left"] == 2


def test_background_excludes_suppressed_and_validates():
    frame = pd.DataFrame({"q": ["1", "1", "*", "*"], "s": ["a", "b", "a", "a"]})
    report = background_attack(frame, ["q"], "s", m=1)
    assert report.targets["row"].tolist() == [0, 1]
    assert report.summary["suppressed"] == 2 and report.summary["records"] == 4
    assert report.summary["records_at_risk"] == 2
    assert report.summary["records_at_risk_share"] == 0.5
    for bad in ({"m": -1}, {"m": 1.5}, {"tau": 0}, {"prior": {"a": 0}}, {"prior": {"a": -2}}):
        with pytest.raises(ParameterError):
            background_attack(frame, ["q"], "s", **bad)
    with pytest.raises(ParameterError):
        background_attack(frame.assign(t=1), ["q"], ["s", "t"])


@st.composite
def _l_diverse_tables(draw):
    """Classes each holding at least l distinct values of the SA (built directly)."""
    l = draw(st.integers(2, 5))  # noqa: E741
    domain = draw(st.integers(l, 7))
    n_classes = draw(st.integers(1, 6))
    q, s = [], []
    for j in range(n_classes):
        chosen = draw(st.permutations(range(domain)))[:l]
        extra = draw(st.lists(st.integers(0, domain - 1), max_size=8))
        values = [*chosen, *extra]
        q += [f"c{j}"] * len(values)
        s += [f"v{v}" for v in values]
    order = draw(st.permutations(range(len(q))))
    frame = pd.DataFrame({"q": q, "s": s}).iloc[list(order)].reset_index(drop=True)
    return frame, l


@settings(max_examples=80, deadline=None)
@given(_l_diverse_tables())
def test_distinct_l_diversity_survives_l_minus_2_eliminations(case):
    frame, l = case  # noqa: E741
    classes = equivalence_classes(frame, ["q"], ["s"])
    assert DistinctLDiversity(l).satisfied(classes)
    report = background_attack(frame, ["q"], "s", m=l - 2, tau=1.0)
    assert (report.targets["values_left"] >= 2).all()
    assert (report.targets["posterior"] < 1.0).all()
    assert report.summary["records_at_risk"] == 0
    # one more elimination than l − 2 may leave a single value, never fewer
    more = background_attack(frame, ["q"], "s", m=l - 1)
    assert (more.targets["values_left"] >= 1).all()
    # the vectorized posterior equals the direct definition, record by record
    for row, value, posterior in report.targets[["row", "value", "posterior"]].itertuples(
        index=False
    ):
        counts = frame.loc[frame["q"] == frame.at[row, "q"], "s"].value_counts()
        wrong = counts.drop(value).sort_values(ascending=False)
        assert posterior == pytest.approx(counts[value] / (counts.sum() - wrong[: l - 2].sum()))


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    seed=st.integers(0, 10_000),
    k=st.integers(2, 4),
    l=st.integers(2, 3),
)
def test_anonymized_l_diverse_release_keeps_two_values(seed, k, l):  # noqa: E741
    rng = np.random.default_rng(seed)
    n = 40
    frame = pd.DataFrame(
        {
            "age": rng.integers(18, 80, n),
            "zip": rng.integers(0, 9, n),
            "disease": rng.choice(["flu", "cold", "hiv", "ulcer"], n),
        }
    )
    schema = Schema(
        {"age": Role.QUASI_IDENTIFIER, "zip": Role.QUASI_IDENTIFIER, "disease": Role.SENSITIVE}
    )
    release = anonymize(
        frame, schema, [KAnonymity(k), DistinctLDiversity(l)], algorithm="mondrian", seed=seed
    )
    report = background_attack(release, m=l - 2)
    assert (report.targets["values_left"] >= 2).all()
    assert report.summary["max_posterior"] < 1.0


def test_posteriors_function_matches_report(counts_3_2_1):
    classes = equivalence_classes(counts_3_2_1, ["q"], ["s"])
    post, left = posteriors(classes, "s", 1)
    counts = classes.value_counts("s")
    assert len(post) == len(counts.count) == 5
    assert post.tolist() == pytest.approx([3 / 4, 2 / 3, 1 / 3, 1.0, 1.0])
    assert left.tolist() == [2, 2, 2, 1, 1]


# --------------------------------------------------------------------------- unsorted matching


def test_unsorted_in_order_release_leaks_everything(hospital, hospital_release):
    report = unsorted_matching_attack(hospital, hospital_release, qi=QI)
    _well_formed(report, "unsorted_matching")
    s = report.summary
    assert s["spearman"] == pytest.approx(1.0)
    assert s["rows_in_place"] == 1.0
    assert s["reidentified_by_position"] == 9
    assert s["expected_reidentified_without_order"] == 3  # three classes of three
    assert report.targets["in_place"].all()
    assert report.targets["class_size"].tolist() == [3] * 9


def test_unsorted_shuffled_release_is_uncorrelated():
    n = 5000
    original = pd.DataFrame({"x": np.arange(n)})
    order = export_order(n, True, 7)
    report = unsorted_matching_attack(original, original.iloc[order], order=order)
    s = report.summary
    assert abs(s["spearman"]) < 0.1
    assert s["reidentified_by_position"] <= 6  # one fixed point expected
    assert s["rows_in_place"] == s["reidentified_by_position"] / n


def test_unsorted_compare_shuffled():
    n = 2000
    original = pd.DataFrame({"x": np.arange(n)})
    report = unsorted_matching_attack(original, original, compare_shuffled=True, seed=3)
    assert report.summary["spearman"] == pytest.approx(1.0)
    shuffled = report.summary["shuffled"]
    assert abs(shuffled["spearman"]) < 0.1
    assert shuffled["reidentified_by_position"] <= 6
    assert shuffled == {
        k: v for k, v in unsorted_matching_attack(
            original, original, order=export_order(n, True, 3)
        ).summary.items() if k in shuffled
    }  # fmt: skip
    assert report.details["order_source"] == "assumed original order"


def test_spearman_by_hand():
    assert spearman(np.array([0, 1, 2, 3])) == pytest.approx(1.0)
    assert spearman(np.array([3, 2, 1, 0])) == pytest.approx(-1.0)
    # d = (−1, 1, 0): ρ = 1 − 6·2 / (3·8) = 0.5
    assert spearman(np.array([1, 0, 2])) == pytest.approx(0.5)
    assert spearman(np.array([0])) is None


def test_export_order_matches_release_export(hospital):
    schema = Schema({"ZIP": Role.QUASI_IDENTIFIER, "Age": Role.QUASI_IDENTIFIER,
                     "Disease": Role.SENSITIVE})  # fmt: skip
    release = anonymize(
        hospital.assign(row=np.arange(9)), schema, [KAnonymity(3)], algorithm="mondrian", seed=5
    )
    for seed in (0, 1, 42):
        exported = release.export(shuffle=True, seed=seed)
        assert exported["row"].tolist() == export_order(9, True, seed).tolist()
    assert release.export()["row"].tolist() == export_order(9, True, 5).tolist()  # own seed
    assert release.export(shuffle=False)["row"].tolist() == export_order(9, False).tolist()
    # a Release published unshuffled / shuffled with its own seed
    classes = equivalence_classes(release.frame, QI)
    leaked = unsorted_matching_attack(hospital, release)
    assert leaked.summary["rows_in_place"] == 1.0
    assert leaked.summary["expected_reidentified_without_order"] == classes.n_classes
    assert leaked.targets["class_size"].tolist() == classes.row_sizes.tolist()
    shuffled = unsorted_matching_attack(hospital, release, shuffle=True)
    perm = export_order(9, True, 5)
    assert shuffled.targets["original_row"].tolist() == perm.tolist()
    # class sizes follow the rows through the permutation
    assert shuffled.targets["class_size"].tolist() == classes.row_sizes[perm].tolist()


def test_unsorted_rejects_bad_orders(hospital, hospital_release):
    with pytest.raises(ParameterError):
        unsorted_matching_attack(hospital, hospital_release, order=[0] * 9)
    with pytest.raises(ParameterError):
        unsorted_matching_attack(hospital, hospital_release, order=list(range(8)))
    with pytest.raises(ParameterError):
        unsorted_matching_attack(hospital, hospital_release.iloc[:5])


# --------------------------------------------------------------------------- complementary


@pytest.fixture
def six_rows():
    """Two releases of six records: A groups {0,1,2},{3,4,5}; B groups {0,1},{2,3},{4,5}.
    Intersections: {0,1}, {2}, {3}, {4,5} → effective k 2, 2, 1, 1, 2, 2."""
    a = pd.DataFrame({"zip": ["1*"] * 3 + ["2*"] * 3, "s": ["x", "x", "y", "y", "z", "z"]})
    b = pd.DataFrame({"zip": ["a", "a", "b", "b", "c", "c"], "s": a["s"]})
    return a, b


def test_complementary_six_rows_by_hand(six_rows):
    a, b = six_rows
    report = complementary_attack(a, b, ["zip"], sa="s")
    _well_formed(report, "complementary")
    s = report.summary
    assert (s["k_a"], s["k_b"], s["min_effective_k"]) == (3, 2, 1)
    assert s["median_effective_k"] == 2.0
    assert s["records_effective_k_1"] == 2
    assert s["records_effective_k_1_share"] == pytest.approx(1 / 3)
    assert s["records_narrowed"] == 2
    assert s["intersections"] == 4
    assert report.details["effective_k_histogram"] == {1: 2, 2: 4}
    by_row = report.targets.set_index("row").sort_index()
    assert by_row["effective_k"].tolist() == [2, 2, 1, 1, 2, 2]
    assert by_row["size_a"].tolist() == [3] * 6
    assert by_row["size_b"].tolist() == [2] * 6
    # every intersection is homogeneous in s ({x,x}, {y}, {y}, {z,z}): all disclosed
    assert s["attribute_disclosed"] == {"s": 6}
    assert report.targets["effective_k"].is_monotonic_increasing


def test_complementary_mixed_values_not_disclosed(six_rows):
    a, b = six_rows
    a = a.assign(s=["x", "y", "y", "y", "z", "w"])
    report = complementary_attack(a, b, ["zip"], sa=["s"])
    by_row = report.targets.set_index("row").sort_index()
    # {0,1}: x,y no; {2}: yes; {3}: yes; {4,5}: z,w no
    assert by_row["disclosed_s"].tolist() == [False, False, True, True, False, False]


def test_complementary_same_release_changes_nothing(hospital_release):
    report = complementary_attack(hospital_release, hospital_release, QI, sa="Disease")
    s = report.summary
    assert (s["min_effective_k"], s["records_effective_k_1"], s["records_narrowed"]) == (3, 0, 0)
    assert s["attribute_disclosed"] == {"Disease": 0}


def test_complementary_hospital_two_hierarchy_levels(hospital):
    """A: ZIP at level 1 (4767*/4760*/4790*), Age fully generalized → {1,3,8}, {2,7,9},
    {4,5,6} (rows numbered from 1). B: ZIP at level 3 (47***), Age by decade, with row 5
    (the only 50-something) suppressed → {1,2,3}, {4,6}, {7,8,9}, suppressed {5}.
    Intersections: {1,3}, {2}, {4,6}, {5}, {7,9}, {8}."""
    _, schema = load_sample("hospital")
    zip_h, age_h = schema.hierarchies["ZIP"], schema.hierarchies["Age"]
    a = pd.DataFrame(
        {"ZIP": zip_h.generalize_values(hospital["ZIP"], 1), "Age": "*",
         "Disease": hospital["Disease"]}
    )  # fmt: skip
    b = pd.DataFrame(
        {"ZIP": zip_h.generalize_values(hospital["ZIP"], 3).astype(object),
         "Age": age_h.generalize_values(hospital["Age"], 1).astype(object),
         "Disease": hospital["Disease"]}
    )  # fmt: skip
    b.loc[4, ["ZIP", "Age"]] = "*"
    report = complementary_attack(a, b, QI, sa="Disease")
    by_row = report.targets.set_index("row").sort_index()
    assert by_row["effective_k"].tolist() == [2, 1, 2, 2, 1, 2, 2, 1, 2]
    assert by_row["class_b"].tolist()[4] == -1
    assert by_row["size_b"].tolist() == [3, 3, 3, 2, 1, 2, 3, 3, 3]
    s = report.summary
    assert (s["k_a"], s["k_b"], s["suppressed_b"]) == (3, 2, 1)
    assert s["records_effective_k_1"] == 3
    # disclosed: the three singletons only ({1,3}, {4,6}, {7,9} hold two diseases each)
    assert s["attribute_disclosed"] == {"Disease": 3}
    assert (by_row["effective_k"] <= np.minimum(by_row["size_a"], by_row["size_b"])).all()


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3), st.booleans()), min_size=1,
             max_size=40)
)  # fmt: skip
def test_effective_k_never_exceeds_either_class(rows):
    a = pd.DataFrame({"q": [str(x) for x, _, _ in rows]})
    b = pd.DataFrame({"q": ["*" if sup else str(y) for _, y, sup in rows]})
    report = complementary_attack(a, b, ["q"])
    t = report.targets
    assert (t["effective_k"] <= t["size_a"]).all()
    assert (t["effective_k"] <= t["size_b"]).all()
    assert (t["effective_k"] >= 1).all()
    # the effective k of a record is the number of records sharing both its groups
    key = a["q"] + "|" + b["q"]
    expected = key.map(key.value_counts()).to_numpy()
    assert t.set_index("row").sort_index()["effective_k"].tolist() == expected.tolist()


def test_complementary_rejects_misaligned(six_rows):
    a, b = six_rows
    with pytest.raises(ParameterError):
        complementary_attack(a, b.iloc[:5], ["zip"])
    with pytest.raises(RoleError):
        complementary_attack(a, b.rename(columns={"zip": "z"}), ["zip"])
