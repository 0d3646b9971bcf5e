"""Rows at '*' in every QI: one group G, a class when it meets the requested models as
one class, suppression otherwise (privcore.classes.release_classes), used alike by the
anonymization report, the measurement of a release and the algorithms; and the count
of released rows that are real records."""

from __future__ import annotations

import importlib

import numpy as np
import pandas as pd
import pytest

from privcore.anonymize import anonymize
from privcore.anonymize.base import prepare
from privcore.anonymize.lattice import Lattice
from privcore.classes import release_classes, top_rows
from privcore.data import load, save
from privcore.data.hierarchy import Hierarchy
from privcore.data.samples import load_sample
from privcore.data.schema import Schema
from privcore.measure import average_class_size, discernibility
from privcore.measure.report import measure_release, real_records
from privcore.models import (
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    TCloseness,
)

Q, S = "quasi_identifier", "sensitive"
kaca_module = importlib.import_module("privcore.anonymize.kaca")


# --------------------------------------------------------------------------- the rule


def released_table() -> pd.DataFrame:
    """Eight released rows: class A = rows 0–2 (1, 1), G = rows 3–5 (*, *), B = rows
    6–7 (*, 2: not '*' in every QI). Diseases over the table: flu 4/8, cold 3/8,
    asthma 1/8."""
    return pd.DataFrame(
        {
            "a": ["1", "1", "1", "*", "*", "*", "*", "*"],
            "b": ["1", "1", "1", "*", "*", "*", "2", "2"],
            "s": ["flu", "flu", "cold", "flu", "cold", "asthma", "flu", "cold"],
        }
    )


def figures(models) -> dict:
    classes = release_classes(released_table(), ["a", "b"], ["s"], models=models)
    k = next((m.k for m in models if isinstance(m, KAnonymity)), 1)
    return {
        "sizes": sorted(classes.sizes.tolist()),
        "suppressed": classes.n_suppressed,
        "discernibility": discernibility(classes),
        "c_avg": average_class_size(classes, k),
        "ids": classes.ids.tolist(),
    }


def test_top_group_rows():
    assert top_rows(released_table(), ["a", "b"]).tolist() == [False] * 3 + [True] * 3 + [False] * 2


def test_without_models_the_top_group_is_a_class():
    """No model requested: nothing can fail, G is a class. Sizes 3, 3, 2;
    discernibility 9 + 9 + 4 = 22."""
    got = figures([])
    assert got["sizes"] == [2, 3, 3] and got["suppressed"] == 0
    assert got["discernibility"] == 22
    assert got["ids"] == [0, 0, 0, 1, 1, 1, 2, 2]


def test_a_top_group_meeting_k_is_a_class():
    """k = 3: G (3 rows) is 3-anonymous, so it is a class; B (2 rows) violates but stays
    a class. C_avg = (8/3)/3 = 8/9."""
    got = figures([KAnonymity(3)])
    assert got["sizes"] == [2, 3, 3] and got["suppressed"] == 0
    assert got["discernibility"] == 22
    assert got["c_avg"] == pytest.approx(8 / 9)


def test_a_top_group_failing_k_is_suppression():
    """k = 4: G fails, its 3 rows are suppressed: classes A and B; discernibility
    9 + 4 + 3 · 8 = 37; C_avg = (5/2)/4 = 0.625."""
    got = figures([KAnonymity(4)])
    assert got["sizes"] == [2, 3] and got["suppressed"] == 3
    assert got["discernibility"] == 37
    assert got["c_avg"] == pytest.approx(0.625)
    assert got["ids"] == [0, 0, 0, -1, -1, -1, 1, 1]


@pytest.mark.parametrize(("t", "is_class"), [(0.2, False), (0.21, True)])
def test_the_top_group_is_checked_with_t_against_the_whole_table(t, is_class):
    """G = flu, cold, asthma (1/3 each) against the table's 4/8, 3/8, 1/8: equal
    distance ½(1/6 + 1/24 + 5/24) = 5/24 ≈ 0.2083: a class at t = 0.21, suppressed at
    t = 0.2."""
    got = figures([KAnonymity(2), TCloseness(t, "equal")])
    assert got["suppressed"] == (0 if is_class else 3)
    classes = release_classes(released_table(), ["a", "b"], ["s"], models=[])
    from privcore.models import t_distance

    assert t_distance(classes, "s", "equal")[1] == pytest.approx(5 / 24)


@pytest.mark.parametrize(("l", "is_class"), [(3, True), (4, False)])
def test_the_top_group_is_checked_with_l(l, is_class):  # noqa: E741
    got = figures([DistinctLDiversity(l)])
    assert got["suppressed"] == (0 if is_class else 3)


def test_measure_follows_the_rule_and_reports_real_records():
    """measure_release reads the release by the same rule: with k = 4 the three rows at
    '*' are suppressed, with no model (or k = 3) they are a class. Real records: rows
    0–2 are released as they were (own = any = 3)."""
    release = released_table()
    original = release.assign(a=["1", "1", "1", "2", "3", "4", "5", "5"])
    original["b"] = ["1", "1", "1", "1", "3", "4", "2", "2"]
    strict = measure_release(original, release, qi=["a", "b"], sa=["s"], models=[KAnonymity(4)])
    assert strict.to_dict()["suppressed_rows"] == 3 and strict.to_dict()["classes"] == 2
    plain = measure_release(original, release, qi=["a", "b"], sa=["s"])
    assert plain.to_dict()["suppressed_rows"] == 0 and plain.to_dict()["classes"] == 3
    assert plain.to_dict()["k"] == 2
    assert plain.to_dict()["real_records"] == {"own": 3, "any": 3}


def test_real_records_by_hand():
    """Own: released row i equals original row i (QIs and SAs); any: equals some
    original row. 39.0, 39 and "39" are one value. Rows 0 and 3 are their own record;
    row 1 is original row 2's; row 2 (41, M, cold) is no record: own = 2, any = 3."""
    original = pd.DataFrame(
        {"age": [39, 40, 41, 39], "sex": ["F", "M", "F", "F"], "s": ["flu", "cold", "flu", "cold"]}
    )
    release = pd.DataFrame(
        {
            "age": [39.0, 41, "41", 39],
            "sex": ["F", "F", "M", "F"],
            "s": ["flu", "flu", "cold", "cold"],
        }
    )
    assert real_records(original, release, ["age", "sex", "s"]) == {"own": 2, "any": 3}
    assert real_records(original, original, ["age", "sex", "s"]) == {"own": 4, "any": 4}
    missing = pd.DataFrame({"age": [None, 1.5], "s": ["x", "y"]})
    assert real_records(missing, missing.iloc[::-1].reset_index(drop=True), ["age", "s"]) == {
        "own": 0,
        "any": 2,
    }


# --------------------------------------------------------------------------- the reports


def adult(qi: list[str]) -> tuple[pd.DataFrame, Schema]:
    dataset, schema = load_sample("adult")
    frame = dataset.frame
    roles = dict.fromkeys(frame.columns, "insensitive")
    roles.update(dict.fromkeys(qi, Q))
    roles["occupation"] = S
    return frame, Schema(roles, schema.hierarchies)


def test_kaca_release_whose_top_class_is_real(tmp_path):
    """KACA on Adult (QIs sex, race, marital-status; SA occupation; k = 50, t = 0.2,
    MaxSup 0): 4,011 rows end at '*' in every QI. As one class they are 50-anonymous
    and 0.2-close, so they are a class of the release: counted in the classes and in
    discernibility as 4,011², nothing suppressed — in the anonymize report and in the
    measurement of the written file alike."""
    frame, schema = adult(["sex", "race", "marital-status"])
    models = [KAnonymity(50), TCloseness(0.2)]
    release = anonymize(frame, schema, models, algorithm="kaca", seed=2035)
    report = release.to_dict()
    top = top_rows(release.frame, release.qi)
    assert int(top.sum()) == 4011
    assert report["suppressed_rows"] == 0 and not release.suppressed.any()
    assert report["classes"] == release.measurement.classes.n_classes
    sizes = release.measurement.classes.sizes
    assert 4011 in sizes.tolist()
    assert report["loss"]["discernibility"] == int((sizes.astype(np.int64) ** 2).sum())
    assert report["satisfied"]
    # The written file measured against the original with the same models.
    path = tmp_path / "release.csv"
    save(release.export(shuffle=False), path)
    again = measure_release(
        frame,
        load(path).frame,
        qi=list(release.qi),
        sa=list(release.sa),
        models=models,
        hierarchies=schema.hierarchies,
    ).to_dict()
    for name in ("k", "classes", "suppressed_rows", "t_closeness", "real_records"):
        assert again[name] == report[name], name
    assert again["loss"]["discernibility"] == report["loss"]["discernibility"]


def test_full_domain_search_ending_at_the_top_reports_one_class():
    """Samarati on Adult (QIs sex, race, education, workclass; k = 5, t = 0.2, MaxSup
    5 %): only the top node satisfies. The release is one class of 30,162 rows:
    k = 30,162, t = 0, nothing suppressed, discernibility 30,162²."""
    frame, schema = adult(["sex", "race", "education", "workclass"])
    release = anonymize(
        frame,
        schema,
        [KAnonymity(5), TCloseness(0.2)],
        algorithm="samarati",
        max_suppression=0.05,
        seed=2035,
    )
    report = release.to_dict()
    assert report["node"] == {"sex": 1, "race": 1, "education": 3, "workclass": 2}
    assert report["k"] == 30162 and report["classes"] == 1
    assert report["suppressed_rows"] == 0
    assert report["t_closeness"]["occupation"]["t"] == 0.0
    assert report["verdicts"][0]["achieved"] == {"k": 30162}
    assert report["loss"]["discernibility"] == 30162**2
    assert report["loss"]["c_avg"] == pytest.approx(30162 / 5)


def one_qi(values, hierarchy: Hierarchy, sensitive) -> tuple[pd.DataFrame, Schema]:
    frame = pd.DataFrame({"a": values, "s": sensitive})
    return frame, Schema({"a": Q, "s": S}, {"a": hierarchy})


def test_datafly_suppression_that_stays_suppression():
    """a = 1, 1, 2, 2, 3 (hierarchy a → *), k = 2, MaxSup 20 % (1 row): at the bottom
    node the class {3} violates and is suppressed. The one row at '*' fails k = 2 as a
    class: it is suppression — 1 suppressed, 2 classes, discernibility 4 + 4 + 5."""
    hierarchy = Hierarchy([[v, "*"] for v in "1234"], name="a")
    frame, schema = one_qi(["1", "1", "2", "2", "3"], hierarchy, list("xyxyx"))
    release = anonymize(frame, schema, [KAnonymity(2)], algorithm="datafly", max_suppression=0.2)
    report = release.to_dict()
    assert release.node == (0,)
    assert report["suppressed_rows"] == 1 and report["classes"] == 2 and report["k"] == 2
    assert report["loss"]["discernibility"] == 13
    assert release.suppressed.tolist() == [False] * 4 + [True]
    assert any("suppressed" in note for note in release.notes)


def test_datafly_suppressed_rows_stay_suppressed_rows_when_they_would_form_a_class():
    """a = 1, 1, 2, 2, 3, 4, k = 2, MaxSup 1/3 (2 rows): {3} and {4} are suppressed by
    Datafly. In the file they are two rows at '*', which as one class would be
    2-anonymous — but the algorithm blanked them: 2 suppressed rows (SPEC §13), within
    the limit, 2 classes of 2, discernibility 2² + 2² + 2 · 6 = 20. The written file,
    which cannot say so, reads them as a class (module rule)."""
    hierarchy = Hierarchy([[v, "*"] for v in "1234"], name="a")
    frame, schema = one_qi(["1", "1", "2", "2", "3", "4"], hierarchy, list("xyxyxy"))
    release = anonymize(frame, schema, [KAnonymity(2)], algorithm="datafly", max_suppression=1 / 3)
    report = release.to_dict()
    assert release.node == (0,)
    assert report["suppressed_rows"] == 2 and report["classes"] == 2 and report["k"] == 2
    assert report["loss"]["discernibility"] == 20
    assert release.class_ids.tolist() == [0, 0, 1, 1, -1, -1]
    assert [note.code for note in release.notes] == ["anonymize.top_suppressed"]
    file_classes = release_classes(release.frame, ["a"], ["s"], models=[KAnonymity(2)])
    assert file_classes.n_suppressed == 0 and file_classes.n_classes == 3


def test_kaca_merges_on_when_the_group_at_the_top_would_exceed_the_limit():
    """Nine rows, QI a (a1, a2 → A; a3, a4 → B; then *), SA s with x 4/9, y 5/9; k = 2,
    t = 0.1 (equal), MaxSup 0.3 (2 rows). a1 (rows 0–2, 5–7: 3 x, 3 y, t = 1/18)
    satisfies; a2 {3: y}, a4 {4: x}, a3 {8: y} are single rows. KACA merges a2 with a4
    (both at '*' costs 2 < 7/3 with a1) into {3, 4} at '*' (x, y: satisfies); 1 row
    violates, within the budget. But in the file the suppressed row 8 and the class
    {3, 4} at '*' are one group y, x, y with t = 1/9 > 0.1: 3 rows of suppression, over
    the budget. So KACA merges on: row 8 joins {3, 4} (cost 3 − 2 = 1), still not
    0.1-close, then a1 (cost 9 − 3 = 6): one class of all nine rows at '*'."""
    hierarchy = Hierarchy(
        [["a1", "A", "*"], ["a2", "A", "*"], ["a3", "B", "*"], ["a4", "B", "*"]], name="a"
    )
    frame, schema = one_qi(
        ["a1", "a1", "a1", "a2", "a4", "a1", "a1", "a1", "a3"], hierarchy, list("xxyyxyxyy")
    )
    models = [KAnonymity(2), TCloseness(0.1, "equal")]
    release = anonymize(frame, schema, models, algorithm="kaca", max_suppression=0.3)
    report = release.to_dict()
    assert release.params["merges"] == 3
    assert (release.frame["a"] == "*").all()
    assert report["classes"] == 1 and report["k"] == 9 and report["suppressed_rows"] == 0
    assert report["satisfied"]


def test_full_domain_node_whose_group_at_the_top_fails_beyond_the_limit():
    """QI a with a3, a4 already '*' at level 1 (a1, a2 → A; a5, a6 → C). Entropy
    l = 1.9, MaxSup 3/7 (3 rows). At level 1: A (x, x, x) fails and would be
    suppressed (3 rows, within the budget), '*' (x, y) and C (y, z) pass — but in the
    file A's rows and the '*' class are one group x, x, x, x, y with exp(H) = 1.65 < 1.9,
    which an attacker reads as one, so level 1 does not satisfy. The top (x 4,
    y 2, z 1: exp(H) = 2.60) does: one class of seven rows."""
    hierarchy = Hierarchy(
        [
            ["a1", "A", "*"],
            ["a2", "A", "*"],
            ["a3", "*", "*"],
            ["a4", "*", "*"],
            ["a5", "C", "*"],
            ["a6", "C", "*"],
        ],
        name="a",
    )
    frame, schema = one_qi(["a1", "a2", "a2", "a3", "a4", "a5", "a6"], hierarchy, list("xxxxyyz"))
    models = [EntropyLDiversity(1.9)]
    lattice = Lattice(
        prepare(frame, schema, models, max_suppression=3 / 7, seed=0, need_hierarchies=True)
    )
    level1 = lattice.evaluate((1,))
    assert level1.violating_rows == 3 and level1.suppressed_rows == 3
    assert not level1.satisfied and not level1.top_is_class
    for algorithm in ("datafly", "samarati", "incognito", "optimal"):
        release = anonymize(frame, schema, models, algorithm=algorithm, max_suppression=3 / 7)
        report = release.to_dict()
        assert release.node == (2,), algorithm
        assert report["classes"] == 1 and report["suppressed_rows"] == 0


# --------------------------------------------------------------------------- condensation


def test_condensation_reports_the_real_records_it_releases():
    """Ages constant within each group of 5 (30 × 5, 40 × 5): the synthetic age of a
    constant group is its real value, and the diseases are the group's own, permuted —
    so every released row (age, disease) is a real record (any = 10) and rows whose
    disease stayed are their own record. The notes say so; they do not claim that no
    row is real."""
    frame = pd.DataFrame(
        {
            "age": [30] * 5 + [40] * 5,
            "disease": ["flu", "cold", "flu", "asthma", "ulcer"] * 2,
        }
    )
    schema = Schema({"age": Q, "disease": S})
    release = anonymize(frame, schema, [KAnonymity(5)], algorithm="condensation", seed=7)
    report = release.to_dict()
    own = int((release.frame["disease"] == frame["disease"]).sum())
    assert report["real_records"] == {"own": own, "any": 10}
    assert release.frame["age"].tolist() == [30.0] * 5 + [40.0] * 5
    notes = " ".join(release.notes)
    assert "no row is a real record" not in notes
    assert "10 released row(s) equal a real record" in notes


def test_condensation_with_spread_groups_releases_no_real_record():
    """Distinct ages in every group: synthetic ages are drawn along the group's spread
    and are no original value, so no released row is a real record."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"age": rng.permutation(60) + 20, "disease": ["flu", "cold"] * 30})
    schema = Schema({"age": Q, "disease": S})
    release = anonymize(frame, schema, [KAnonymity(5)], algorithm="condensation", seed=1)
    assert release.to_dict()["real_records"] == {"own": 0, "any": 0}
    assert not any("equal a real record of the input" in note for note in release.notes)
