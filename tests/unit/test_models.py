"""Privacy models (SPEC §2) against hand-computed values.

The worked example is the 9-row hospital release of SPEC §2 (Li, Li &
Venkatasubramanian 2007): classes rows {1,2,3}, {4,5,6}, {7,8,9}.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from privcore.classes import SensitiveAttribute, equivalence_classes, factorize
from privcore.data.samples import load_sample
from privcore.errors import HierarchyError, ParameterError, RoleError
from privcore.models import (
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    PrivacyModel,
    RecursiveCLDiversity,
    TCloseness,
    distinct_values,
    entropy_l,
    evaluate,
    model_from_dict,
    recursive_c,
    resolve_distance,
    t_distance,
    top_share,
)

# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def release() -> pd.DataFrame:
    return load_sample("hospital_release")[0].frame


@pytest.fixture(scope="module")
def disease_hierarchy():
    return load_sample("hospital")[1].hierarchies["Disease"]


@pytest.fixture
def hospital(release, disease_hierarchy):
    return equivalence_classes(
        release, ["ZIP", "Age"], ["Salary", "Disease"], hierarchies={"Disease": disease_hierarchy}
    )


def partition(frame: pd.DataFrame, qi=("q",), sensitive=("s",), **kwargs):
    return equivalence_classes(frame, list(qi), list(sensitive), **kwargs)


# --------------------------------------------------------------------------- worked example


def test_worked_example_classes(hospital):
    assert hospital.ids.tolist() == [0, 0, 0, 1, 1, 1, 2, 2, 2]
    assert hospital.sizes.tolist() == [3, 3, 3]


def test_worked_example_is_3_anonymous_and_distinct_3_diverse(hospital):
    assert KAnonymity(3).satisfied(hospital)
    assert not KAnonymity(4).satisfied(hospital)
    assert KAnonymity(3).achieved(hospital) == {"k": 3}
    assert DistinctLDiversity(3).satisfied(hospital)
    assert not DistinctLDiversity(4).satisfied(hospital)
    assert DistinctLDiversity(3).achieved(hospital) == {"l": {"Salary": 3, "Disease": 3}}
    assert distinct_values(hospital, "Disease").tolist() == [3, 3, 3]


def test_worked_example_salary_ordered_distance(hospital):
    # Salaries 3K…11K are 9 distinct values, once each: Q = 1/9 per rank, m = 9,
    # F_Q(i) = (i+1)/9 for ranks i = 0..8.
    # Class {3K,4K,5K} = ranks 0,1,2: F_P = 1/3, 2/3, 1, 1, 1, 1, 1, 1, 1.
    #   |F_P − F_Q| = 2/9, 4/9, 6/9, 5/9, 4/9, 3/9, 2/9, 1/9, 0 → sum 27/9 = 3;
    #   t = 3 / (m − 1) = 3/8 = 0.375.
    # Class {6K,11K,8K} = ranks 3,8,5: F_P = 0,0,0,1/3,1/3,2/3,2/3,2/3,1
    #   |F_P − F_Q| = 1,2,3,1,2,0,1,2,0 (ninths) → 12/9; t = 12/72 = 1/6.
    # Class {7K,9K,10K} = ranks 4,6,7: F_P = 0,0,0,0,1/3,1/3,2/3,1,1
    #   |F_P − F_Q| = 1,2,3,4,2,3,1,1,0 (ninths) → 17/9; t = 17/72.
    t = t_distance(hospital, "Salary", "ordered")
    assert t == pytest.approx([3 / 8, 1 / 6, 17 / 72], abs=1e-12)
    assert t.max() == pytest.approx(0.375, abs=1e-15)
    assert TCloseness(0.375, "ordered", ("Salary",)).satisfied(hospital)
    assert not TCloseness(0.37, "ordered", ("Salary",)).satisfied(hospital)
    assert resolve_distance(hospital, "Salary", "auto") == "ordered"
    assert TCloseness(0.2).achieved(hospital)["t"]["Salary"] == pytest.approx(0.375)


def test_worked_example_disease_equal_distance(hospital):
    # Q over the 9 rows: gastric ulcer 1/9, gastritis 2/9, stomach cancer 2/9, flu 1/9,
    # bronchitis 2/9, pneumonia 1/9.
    # Class 1 {gastric ulcer, gastritis, stomach cancer}, 1/3 each:
    #   |1/3−1/9| + |1/3−2/9| + |1/3−2/9| = 2/9 + 1/9 + 1/9, absent: 1/9 + 2/9 + 1/9
    #   → ½ · 8/9 = 4/9.
    # Class 2 {gastritis, flu, bronchitis}: 1/9 + 2/9 + 1/9, absent 1/9 + 2/9 + 1/9 → 4/9.
    # Class 3 {bronchitis, pneumonia, stomach cancer}: 1/9 + 2/9 + 1/9, absent
    #   1/9 + 2/9 + 1/9 → 4/9.
    assert t_distance(hospital, "Disease", "equal") == pytest.approx([4 / 9] * 3, abs=1e-12)
    assert resolve_distance(hospital, "Disease", "auto") == "equal"


def test_worked_example_disease_hierarchical_distance(hospital, disease_hierarchy):
    # Hierarchy (H = 3): * → digestive system diseases → stomach diseases →
    # {gastric ulcer, gastritis, stomach cancer}; * → respiratory system diseases →
    # respiratory infections → {flu, bronchitis, pneumonia}. Levels 1 and 2 are chains
    # (one child each), so their nodes cost min(pos, neg) = 0 at level 2.
    # Class 1: extras gu +2/9, gi +1/9, sc +1/9, flu −1/9, br −2/9, pn −1/9.
    #   stomach: pos 4/9, neg 0 → 0; respiratory infections: pos 0 → 0.
    #   Root (weight 3/3): children extras +4/9 and −4/9 → min = 4/9. Total 4/9.
    # Class 2 {gastritis, flu, bronchitis}: extras gu −1/9, gi +1/9, sc −2/9,
    #   flu +2/9, br +1/9, pn −1/9.
    #   stomach: pos 1/9, neg 3/9 → (1/3)·1/9 = 1/27; resp. infections: pos 3/9,
    #   neg 1/9 → 1/27. Extras −2/9 and +2/9 → root 2/9. Total 2/27 + 6/27 = 8/27.
    # Class 3 {bronchitis, pneumonia, stomach cancer}: extras gu −1/9, gi −2/9,
    #   sc +1/9, flu −1/9, br +1/9, pn +2/9 → likewise 1/27 + 1/27 + 2/9 = 8/27.
    assert disease_hierarchy.height == 3
    t = t_distance(hospital, "Disease", "hierarchical")
    assert t == pytest.approx([4 / 9, 8 / 27, 8 / 27], abs=1e-12)
    model = TCloseness(0.45, "hierarchical", ("Disease",))
    assert model.satisfied(hospital)
    assert model.achieved(hospital) == {
        "t": {"Disease": pytest.approx(4 / 9)},
        "distance": {"Disease": "hierarchical"},
    }


def test_worked_example_kl(hospital):
    # Salary, class 1: p = 1/3 on three values with q = 1/9: 3 · (1/3) ln 3 = ln 3.
    assert t_distance(hospital, "Salary", "kl") == pytest.approx([math.log(3)] * 3)
    # Disease, class 1: (1/3) ln(3) + (1/3) ln(3/2) + (1/3) ln(3/2).
    expected = (math.log(3) + 2 * math.log(1.5)) / 3
    assert t_distance(hospital, "Disease", "kl")[0] == pytest.approx(expected, abs=1e-12)


def test_worked_example_report(hospital, release):
    models = [
        KAnonymity(3),
        DistinctLDiversity(3),
        TCloseness(0.3, "ordered", ("Salary",)),
        TCloseness(0.5, "hierarchical", ("Disease",)),
    ]
    report = evaluate(hospital, models, frame=release)
    table = report.class_table
    assert table["class"].tolist() == [0, 1, 2]
    assert table["ZIP"].tolist() == ["4767*", "4790*", "4760*"]
    assert table["Age"].tolist() == ["<=40", ">=40", "<=40"]
    assert table["size"].tolist() == [3, 3, 3]
    for column in [
        "Salary · distinct",
        "Salary · entropy l",
        "Salary · top share",
        "Salary · t (ordered)",
        "Disease · t (hierarchical)",
    ]:
        assert column in table.columns
    # Only the distances asked for (auto when none asks): no equal column for Disease.
    assert "Disease · t (equal)" not in table.columns
    assert table["Disease · t (hierarchical)"].tolist() == pytest.approx([4 / 9, 8 / 27, 8 / 27])
    # Only class 0 (t = 0.375 > 0.3) fails the Salary t-model; two t-models share a
    # name, so the label carries the requirement.
    assert table["violates"].astype(object).tolist() == ["t-closeness: t ≤ 0.3 (ordered)", "", ""]
    assert not report.satisfied
    assert report.summary["k"] == 3
    assert report.summary["classes"] == 3
    assert report.summary["rows"] == 9
    assert report.summary["suppressed_rows"] == 0
    assert report.summary["l_distinct"] == {"Salary": 3, "Disease": 3}
    assert report.summary["l_entropy"]["Disease"] == pytest.approx(3.0)
    assert report.summary["recursive_c"]["Disease"] == pytest.approx(0.5)  # 1/(1+1)
    assert report.summary["t_closeness"]["Salary"] == {
        "distance": "ordered",
        "t": pytest.approx(0.375),
    }
    assert report.summary["top_share"]["Disease"] == pytest.approx(1 / 3)
    verdicts = {v["requirement"]: v for v in report.verdicts}
    assert verdicts["k ≥ 3"]["passed"] and verdicts["k ≥ 3"]["achieved"] == {"k": 3}
    failing = verdicts["t ≤ 0.3 (ordered)"]
    assert not failing["passed"]
    assert failing["violating_classes"] == 1
    assert failing["violating_rows"] == 3
    assert verdicts["t ≤ 0.5 (hierarchical)"]["passed"]


# --------------------------------------------------------------------------- l-diversity


@pytest.fixture
def counts_321():
    # One class, sensitive counts (3, 2, 1); a second class of one value only.
    frame = pd.DataFrame(
        {
            "q": ["a"] * 6 + ["b"] * 2,
            "s": ["x", "x", "x", "y", "y", "z", "w", "w"],
        }
    )
    return partition(frame)


def test_entropy_l_by_hand(counts_321):
    # p = (1/2, 1/3, 1/6): H = ½ ln 2 + ⅓ ln 3 + ⅙ ln 6 = 1.0114042647…,
    # exp H = 2^(1/2)·3^(1/3)·6^(1/6) = 2.7494592739…; the homogeneous class: H = 0, l = 1.
    h = 0.5 * math.log(2) + math.log(3) / 3 + math.log(6) / 6
    assert h == pytest.approx(1.0114042647073516, abs=1e-15)
    values = entropy_l(counts_321, "s")
    assert values == pytest.approx([math.exp(h), 1.0], abs=1e-12)
    assert values[0] == pytest.approx(2.749459273997205, abs=1e-12)
    only_first = EntropyLDiversity(2.7, ("s",))
    assert only_first.class_pass(counts_321).tolist() == [True, False]
    assert not EntropyLDiversity(2.75).class_pass(counts_321)[0]
    assert EntropyLDiversity(1).satisfied(counts_321)  # ln 1 = 0 ≤ every entropy
    assert EntropyLDiversity(2).achieved(counts_321) == {"l": {"s": pytest.approx(1.0)}}


def test_entropy_l_uniform_class_reaches_l_exactly():
    # Three values once each: H = ln 3 exactly, so entropy 3-diverse (not 2.999… < 3).
    frame = pd.DataFrame({"q": ["a"] * 3, "s": ["x", "y", "z"]})
    classes = partition(frame)
    assert EntropyLDiversity(3).satisfied(classes)
    assert not EntropyLDiversity(3.01).satisfied(classes)
    assert entropy_l(classes, "s")[0] == pytest.approx(3.0, abs=1e-12)


def test_recursive_cl_by_hand(counts_321):
    # Counts sorted descending r = (3, 2, 1).
    # l = 2: r1 / (r2 + r3) = 3 / 3 = 1.0 → c = 1 fails (3 < 3 is false), c = 1.01 passes.
    # l = 3: r1 / r3 = 3 / 1 = 3.0. l = 4: tail empty → inf, no c passes.
    # l = 1: r1 / (r1 + r2 + r3) = 3/6 = the top share.
    assert recursive_c(counts_321, "s", 2)[0] == 1.0
    assert recursive_c(counts_321, "s", 3)[0] == 3.0
    assert recursive_c(counts_321, "s", 4)[0] == math.inf
    assert recursive_c(counts_321, "s", 1)[0] == 0.5
    assert recursive_c(counts_321, "s", 2)[1] == math.inf  # homogeneous class
    assert not RecursiveCLDiversity(1, 2).class_pass(counts_321)[0]
    assert RecursiveCLDiversity(1.01, 2).class_pass(counts_321)[0]
    assert not RecursiveCLDiversity(3, 3).class_pass(counts_321)[0]
    assert RecursiveCLDiversity(3.5, 3).class_pass(counts_321)[0]
    assert not RecursiveCLDiversity(1e9, 4).class_pass(counts_321)[0]
    assert RecursiveCLDiversity(0.6, 1).class_pass(counts_321)[0]
    assert RecursiveCLDiversity(2, 2).achieved(counts_321) == {"c": {"s": math.inf}}


def test_recursive_cl_sorts_counts_descending():
    # Counts (1, 1, 4, 2) in code order: sorted descending (4, 2, 1, 1), l = 3:
    # r1 / (r3 + r4) = 4 / 2 = 2. Sorting ascending would give 1 / (2 + 4).
    frame = pd.DataFrame({"q": ["a"] * 8, "s": list("abccccdd")})
    classes = partition(frame)
    assert recursive_c(classes, "s", 3)[0] == 2.0
    assert recursive_c(classes, "s", 2)[0] == pytest.approx(4 / 4)


def test_top_share_and_distinct(counts_321):
    assert top_share(counts_321, "s").tolist() == [0.5, 1.0]
    assert distinct_values(counts_321, "s").tolist() == [3, 1]


# --------------------------------------------------------------------------- KL, equal


def test_kl_and_equal_by_hand():
    # Table: class A = x, x, y; class B = y, y, z. Q: x 2/6, y 3/6, z 1/6.
    # A: p = (2/3, 1/3, 0): KL = 2/3 ln((2/3)/(1/3)) + 1/3 ln((1/3)/(1/2))
    #                         = 2/3 ln 2 + 1/3 ln(2/3).
    #    equal: ½(|2/3 − 1/3| + |1/3 − 1/2| + 1/6) = ½(1/3 + 1/6 + 1/6) = 1/3.
    # B: p = (0, 2/3, 1/3): KL = 2/3 ln(4/3) + 1/3 ln 2;
    #    equal: ½(1/3 + |2/3 − 1/2| + |1/3 − 1/6|) = ½(1/3 + 1/6 + 1/6) = 1/3.
    frame = pd.DataFrame({"q": list("AAABBB"), "s": list("xxyyyz")})
    classes = partition(frame)
    kl = t_distance(classes, "s", "kl")
    assert kl == pytest.approx(
        [
            2 / 3 * math.log(2) + 1 / 3 * math.log(2 / 3),
            2 / 3 * math.log(4 / 3) + 1 / 3 * math.log(2),
        ],
        abs=1e-12,
    )
    assert t_distance(classes, "s", "equal") == pytest.approx([1 / 3, 1 / 3], abs=1e-12)
    assert TCloseness(0.43, "kl").satisfied(classes)  # KL max = 0.4228…
    assert not TCloseness(0.42, "kl").satisfied(classes)
    # KL thresholds above 1 are allowed.
    assert TCloseness(2.5, "kl").t == 2.5


def test_ordered_distance_single_value_is_zero():
    frame = pd.DataFrame({"q": list("ab"), "s": [5, 5]})
    assert t_distance(partition(frame), "s", "ordered").tolist() == [0.0, 0.0]


def test_ordered_distance_extremes():
    # Two values 0 and 1, half each; a class holding only the lowest value:
    # F_P = (1, 1), F_Q = (1/2, 1) → ½ / (m − 1) = 1/2.
    frame = pd.DataFrame({"q": list("aabb"), "s": [0, 0, 1, 1]})
    assert t_distance(partition(frame), "s", "ordered").tolist() == [0.5, 0.5]


# --------------------------------------------------------------------------- suppression


@pytest.fixture
def with_suppression():
    # Rows 5 and 6 are suppressed (every QI '*'); classes: a = rows 0-2, b = rows 3-4.
    frame = pd.DataFrame(
        {
            "q": ["a", "a", "a", "b", "b", "*", "*"],
            "r": ["1", "1", "1", "2", "2", "*", "*"],
            "s": ["x", "y", "z", "x", "x", "y", "w"],
        }
    )
    return frame, partition(frame, qi=("q", "r"))


def test_suppressed_rows_are_excluded_and_counted(with_suppression):
    frame, classes = with_suppression
    assert classes.ids.tolist() == [0, 0, 0, 1, 1, -1, -1]
    assert KAnonymity(2).satisfied(classes)  # the 2 suppressed rows do not form a class
    assert KAnonymity(2).achieved(classes) == {"k": 2}
    model = DistinctLDiversity(2)
    assert model.class_pass(classes).tolist() == [True, False]
    assert model.violating_rows(classes).tolist() == [False] * 3 + [True] * 2 + [False] * 2
    report = evaluate(classes, [KAnonymity(3), model], frame=frame)
    assert report.summary["suppressed_rows"] == 2
    assert report.summary["rows"] == 7
    assert report.summary["classes"] == 2
    assert report.summary["k"] == 2
    assert report.verdicts[0]["violating_rows"] == 2
    assert report.verdicts[1]["violating_rows"] == 2
    assert report.class_table["violates"].astype(object).tolist() == [
        "",
        "k-anonymity, distinct l-diversity",
    ]


def test_t_closeness_q_includes_suppressed_rows(with_suppression):
    # Q over all 7 rows (suppressed SA values are released): x 3/7, y 2/7, z 1/7, w 1/7.
    # Class b (x, x): ½(|1 − 3/7| + 2/7 + 1/7 + 1/7) = 4/7 (over the 5 kept rows it
    # would be 2/5).
    # Class a (x, y, z): ½(|1/3−3/7| + |1/3−2/7| + |1/3−1/7| + 1/7)
    #                  = ½(2/21 + 1/21 + 4/21 + 3/21) = 5/21.
    _, classes = with_suppression
    assert t_distance(classes, "s", "equal") == pytest.approx([5 / 21, 4 / 7], abs=1e-12)


def test_everything_suppressed_is_vacuously_satisfied():
    frame = pd.DataFrame({"q": ["*", "*"], "s": ["x", "y"]})
    classes = partition(frame)
    assert classes.n_classes == 0
    for model in [
        KAnonymity(5),
        DistinctLDiversity(2),
        EntropyLDiversity(2),
        RecursiveCLDiversity(2, 2),
        TCloseness(0.1),
    ]:
        assert model.satisfied(classes)
        assert not model.violating_rows(classes).any()
    assert KAnonymity(5).achieved(classes) == {"k": None}
    assert DistinctLDiversity(2).achieved(classes) == {"l": {"s": None}}
    report = evaluate(classes, [KAnonymity(5), TCloseness(0.1)])
    assert report.satisfied
    assert report.summary["k"] is None
    assert report.summary["suppressed_rows"] == 2
    assert len(report.class_table) == 0
    json.dumps(report.to_dict(), allow_nan=False)


# --------------------------------------------------------------------------- missing values


def test_missing_numeric_sa_value_is_one_value():
    frame = pd.DataFrame({"q": ["a"] * 4, "s": [1.0, np.nan, np.nan, 2.0]})
    classes = partition(frame)
    assert distinct_values(classes, "s").tolist() == [3]
    # counts (2, 1, 1): H = ln 4 − (2 ln 2)/4 = 1.5 ln 2.
    assert entropy_l(classes, "s")[0] == pytest.approx(2**1.5)


def test_missing_categorical_sa_value_is_one_value():
    # Built by hand: classes.SensitiveAttribute.from_series cannot order text with a
    # missing value under pandas 3 (see the module report); the models treat the
    # missing code as one value.
    frame = pd.DataFrame({"q": ["a", "a", "a", "b", "b"], "s": ["x", None, None, "x", "y"]})
    codes, values = factorize(frame["s"])
    attribute = SensitiveAttribute("s", codes, values, False, np.arange(len(values)))
    classes = equivalence_classes(frame, ["q"], {"s": attribute})
    assert distinct_values(classes, "s").tolist() == [2, 2]
    assert DistinctLDiversity(2).satisfied(classes)
    # Q: x 2/5, missing 2/5, y 1/5. Class a (x 1/3, missing 2/3):
    # ½(|1/3 − 2/5| + |2/3 − 2/5| + 1/5) = ½(1/15 + 4/15 + 3/15) = 4/15.
    assert t_distance(classes, "s", "equal")[0] == pytest.approx(4 / 15)


def test_missing_qi_value_is_one_value():
    frame = pd.DataFrame({"q": ["a", None, None, "a"], "s": ["x", "y", "z", "y"]})
    classes = partition(frame)
    assert classes.sizes.tolist() == [2, 2]
    assert KAnonymity(2).satisfied(classes)


# --------------------------------------------------------------------------- multiple SAs


@pytest.fixture
def two_sas():
    # Class a: S1 = x, y (2 values), S2 = u, u (1 value); class b: S1 x, y; S2 u, v.
    frame = pd.DataFrame({"q": list("aabb"), "S1": list("xyxy"), "S2": list("uuuv")})
    return partition(frame, sensitive=("S1", "S2"))


def test_a_class_must_pass_every_sa(two_sas):
    model = DistinctLDiversity(2)
    assert model.class_pass(two_sas).tolist() == [False, True]
    assert model.violating_rows(two_sas).tolist() == [True, True, False, False]
    assert model.achieved(two_sas) == {"l": {"S1": 2, "S2": 1}}
    assert DistinctLDiversity(2, ("S1",)).satisfied(two_sas)
    assert not DistinctLDiversity(2, "S2").satisfied(two_sas)  # one name is one SA
    assert not EntropyLDiversity(2).satisfied(two_sas)
    assert EntropyLDiversity(2, ["S1"]).satisfied(two_sas)
    # t per SA: S1 is distributed as the table in both classes (t = 0); S2 is not.
    assert TCloseness(0.0, "equal", ("S1",)).satisfied(two_sas)
    assert not TCloseness(0.0, "equal").satisfied(two_sas)


# --------------------------------------------------------------------------- violating rows


def test_violating_rows_mark_exactly_the_rows_of_failing_classes():
    frame = pd.DataFrame({"q": list("abacbcc"), "s": list("xyzxyxy")})
    classes = partition(frame)
    # classes in first-appearance order: a = rows 0, 2; b = rows 1, 4; c = rows 3, 5, 6.
    assert classes.sizes.tolist() == [2, 2, 3]
    k_rows = KAnonymity(3).violating_rows(classes)
    assert np.flatnonzero(k_rows).tolist() == [0, 1, 2, 4]
    # distinct: a {x, z} 2, b {y} 1, c {x, y} 2.
    l_rows = DistinctLDiversity(2).violating_rows(classes)
    assert np.flatnonzero(l_rows).tolist() == [1, 4]
    passed = np.array(KAnonymity(3).class_pass(classes))
    assert (KAnonymity(3).violating_rows(classes) == ~passed[classes.ids]).all()


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    "build",
    [
        lambda: KAnonymity(0),
        lambda: KAnonymity(-3),
        lambda: KAnonymity(2.5),
        lambda: KAnonymity(True),
        lambda: KAnonymity("3"),
        lambda: DistinctLDiversity(0),
        lambda: DistinctLDiversity(1.5),
        lambda: EntropyLDiversity(0.5),
        lambda: EntropyLDiversity(float("nan")),
        lambda: EntropyLDiversity(float("inf")),
        lambda: RecursiveCLDiversity(0, 2),
        lambda: RecursiveCLDiversity(-1, 2),
        lambda: RecursiveCLDiversity(2, 0),
        lambda: TCloseness(-0.1),
        lambda: TCloseness(1.5),
        lambda: TCloseness(1.5, "hierarchical"),
        lambda: TCloseness(-0.1, "kl"),
        lambda: TCloseness(float("inf"), "kl"),
        lambda: TCloseness(0.2, "emd"),
        lambda: DistinctLDiversity(2, attributes=()),
        lambda: DistinctLDiversity(2, attributes=[1, 2]),
    ],
)
def test_bad_parameters_raise_parameter_error(build):
    with pytest.raises(ParameterError) as info:
        build()
    assert info.value.code in {
        "models.bad_parameter",
        "models.unknown_distance",
        "models.bad_attributes",
    }
    assert str(info.value)


def test_parameter_messages_are_clear():
    with pytest.raises(ParameterError, match="k must be a whole number ≥ 1"):
        KAnonymity(0)
    with pytest.raises(ParameterError, match="Unknown t-closeness distance 'emd'") as info:
        TCloseness(0.1, "emd")
    assert info.value.code == "models.unknown_distance"
    with pytest.raises(ParameterError, match=r"t must be a number ≥ 0 and ≤ 1"):
        TCloseness(2)


def test_whole_floats_are_accepted():
    assert KAnonymity(5.0).k == 5 and isinstance(KAnonymity(5.0).k, int)
    assert DistinctLDiversity(np.int64(3)).l == 3


def test_unknown_sa_raises_role_error(hospital):
    with pytest.raises(RoleError) as info:
        DistinctLDiversity(2, ("Nope",)).satisfied(hospital)
    assert info.value.code == "roles.not_sensitive"
    with pytest.raises(RoleError):
        t_distance(hospital, "Nope", "equal")


def test_l_or_t_model_without_sensitive_attribute_raises_role_error(release):
    classes = equivalence_classes(release, ["ZIP", "Age"])
    assert KAnonymity(3).satisfied(classes)
    for model in [
        DistinctLDiversity(2),
        EntropyLDiversity(2),
        RecursiveCLDiversity(2, 2),
        TCloseness(0.5),
    ]:
        with pytest.raises(RoleError, match="choose a sensitive attribute") as info:
            model.satisfied(classes)
        assert info.value.code == "roles.no_sensitive"
        with pytest.raises(RoleError):
            evaluate(classes, [model])
    report = evaluate(classes, [KAnonymity(3)])
    assert report.satisfied and report.summary["l_distinct"] == {}


def test_hierarchical_distance_without_hierarchy_raises(hospital):
    with pytest.raises(HierarchyError, match="'Salary'") as info:
        TCloseness(0.5, "hierarchical").satisfied(hospital)  # Salary has none
    assert info.value.code == "hierarchy.missing"
    with pytest.raises(HierarchyError, match="Salary"):
        t_distance(hospital, "Salary", "hierarchical")
    assert TCloseness(0.5, "hierarchical", ("Disease",)).satisfied(hospital)


def test_hierarchy_not_covering_the_sa_raises(release, disease_hierarchy):
    frame = release.copy()
    frame.loc[0, "Disease"] = "measles"
    classes = equivalence_classes(
        frame, ["ZIP", "Age"], ["Disease"], hierarchies={"Disease": disease_hierarchy}
    )
    with pytest.raises(HierarchyError, match="measles") as info:
        t_distance(classes, "Disease", "hierarchical")
    assert "'Disease'" in str(info.value)


def test_unknown_distance_in_measure(hospital):
    with pytest.raises(ParameterError):
        t_distance(hospital, "Salary", "manhattan")


@pytest.mark.parametrize(
    "d",
    [
        {"model": "z"},
        {"k": 3},
        "k",
        {"model": "k"},
        {"model": "k", "k": 3, "l": 2},
        {"model": "t", "t": 2},
    ],
)
def test_model_from_dict_rejects_bad_input(d):
    with pytest.raises(ParameterError):
        model_from_dict(d)


def test_evaluate_rejects_non_models(hospital):
    with pytest.raises(ParameterError):
        evaluate(hospital, [3])


# --------------------------------------------------------------------------- round trips


@pytest.mark.parametrize(
    "model",
    [
        KAnonymity(5),
        DistinctLDiversity(3),
        DistinctLDiversity(2, ("Disease",)),
        EntropyLDiversity(2.5, ("Salary", "Disease")),
        RecursiveCLDiversity(3, 2),
        TCloseness(0.2, "ordered", ("Salary",)),
        TCloseness(1.5, "kl"),
        TCloseness(0.2),
    ],
)
def test_to_dict_round_trip(model):
    d = model.to_dict()
    json.dumps(d)
    again = model_from_dict(json.loads(json.dumps(d)))
    assert again == model
    assert isinstance(again, PrivacyModel)


def test_requirements_and_names():
    assert KAnonymity(5).requirement() == "k ≥ 5"
    assert DistinctLDiversity(3).requirement() == "l ≥ 3 (distinct)"
    assert EntropyLDiversity(2.5).requirement() == "l ≥ 2.5 (entropy)"
    assert TCloseness(0.2, "ordered").requirement() == "t ≤ 0.2 (ordered)"
    assert RecursiveCLDiversity(3, 2).requirement() == "r1 < 3·(r2 + … + rm) (recursive)"
    assert KAnonymity(5).to_dict() == {"model": "k", "k": 5}
    assert [m.name for m in (KAnonymity(2), DistinctLDiversity(2), EntropyLDiversity(2))] == [
        "k-anonymity",
        "distinct l-diversity",
        "entropy l-diversity",
    ]
    assert RecursiveCLDiversity(2, 2).name == "recursive (c,l)-diversity"
    assert TCloseness(0.1).name == "t-closeness"


def test_models_are_frozen():
    model = KAnonymity(3)
    with pytest.raises(AttributeError):
        model.k = 4  # type: ignore[misc]


def test_report_to_dict_is_json_safe(hospital, release):
    # The homogeneous classes below make recursive c infinite: JSON gets None.
    frame = release.assign(Disease=["flu"] * 3 + list(release["Disease"][3:]))
    classes = equivalence_classes(frame, ["ZIP", "Age"], ["Salary", "Disease"])
    models = [
        KAnonymity(2),
        EntropyLDiversity(2),
        RecursiveCLDiversity(2, 2),
        TCloseness(0.5, "kl"),
        KAnonymity(4),
    ]
    report = evaluate(classes, models, frame=frame)
    d = report.to_dict()
    text = json.dumps(d, allow_nan=False)
    back = json.loads(text)
    assert back["summary"]["recursive_c"]["Disease"] is None  # inf
    recursive = back["verdicts"][2]
    assert recursive["achieved"]["c"]["Disease"] is None
    assert recursive["violating_classes"] == 1
    assert back["class_table"]["columns"][:4] == ["class", "ZIP", "Age", "size"]
    assert len(back["class_table"]["rows"]) == 3
    # Two k-models share a name: the violates column tells them apart.
    assert "k-anonymity: k ≥ 4" in report.class_table["violates"].astype(object).tolist()[0]
    assert "class_table" not in report.to_dict(include_classes=False)


def test_cached_measures_are_read_only(hospital):
    values = distinct_values(hospital, "Disease")
    with pytest.raises(ValueError):
        values[0] = 9
