"""Release readiness (privcore.report): thresholds, checks, actions, conditions, verdicts,
recording through privcore.runs, rebuilding from the history, the command line."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from privcore import history
from privcore.anonymize import anonymize
from privcore.cli import main
from privcore.data import Role, Schema, load, load_sample
from privcore.errors import DataFormatError, ParameterError, PrivcoreError, RoleError
from privcore.models import DistinctLDiversity, KAnonymity
from privcore.report import (
    ReadinessReport,
    Thresholds,
    evaluate_checks,
    k_for_risk,
    readiness,
    readiness_from_history,
    report_from_history,
)
from privcore.runs import AnonymizeRequest, Inputs, ReportRequest, run
from privcore.words.catalog import report_lines, texts_of
from privcore.words.report_html import render_html

ROOT = Path(__file__).resolve().parents[2]
HOSPITAL = ROOT / "assets" / "hospital" / "hospital.csv"
HOSPITAL_RELEASE = ROOT / "assets" / "hospital" / "hospital_release.csv"
QI, SA = ["ZIP", "Age"], ["Salary", "Disease"]
#: The three Article 29 risks waived, for tests of the other checks: on 9 rows their
#: intervals are too wide to pass a limit (a held-out control set of 2 records).
WITHOUT_ARTICLE29 = {"max_singling_out": None, "max_linkability": None, "max_inference": None}


@pytest.fixture(scope="module")
def hospital() -> tuple[pd.DataFrame, pd.DataFrame]:
    return load(HOSPITAL).frame, load(HOSPITAL_RELEASE).frame


def statuses(report: ReadinessReport) -> dict[str, str]:
    return {
        c["check"] + (f":{c['attribute']}" if c["attribute"] else ""): c["status"]
        for c in report.checks
    }


def codes(report: ReadinessReport) -> list[str]:
    return [c["condition"] for c in report.conditions]


def sentences(report: ReadinessReport) -> list[str]:
    return [r.sentence for r in texts_of(report).reasons]


# --------------------------------------------------------------------------- thresholds


def test_thresholds_defaults_round_trip():
    t = Thresholds()
    assert (t.min_k, t.min_l, t.max_t, t.max_pl, t.max_prosecutor) == (5, 2, None, 0.3, 0.2)
    assert Thresholds.from_dict(t.to_dict()) == t
    assert Thresholds.from_dict({"min_k": 3}) == Thresholds(min_k=3)
    assert Thresholds.from_dict(json.loads(json.dumps(t.to_dict()))) == t


def test_class_size_and_prosecutor_risk_derive_each_other():
    """A class of s records re-identifies each with probability 1/s: risk ≤ r ⇔ k ≥ ⌈1/r⌉."""
    assert (k_for_risk(0.2), k_for_risk(0.1), k_for_risk(1 / 3), k_for_risk(0.3)) == (5, 10, 3, 4)
    assert Thresholds(max_prosecutor=0.1).min_k == 10
    assert Thresholds(max_prosecutor=0.25).min_k == 4
    assert Thresholds(min_k=3).max_prosecutor == pytest.approx(1 / 3)
    assert Thresholds(min_k=10).max_prosecutor == pytest.approx(0.1)
    both = Thresholds(min_k=3, max_prosecutor=0.2)  # both given: both checked as given
    assert (both.min_k, both.max_prosecutor) == (3, 0.2)
    # the defaults agree with each other, and round trip once resolved
    defaults = Thresholds()
    assert defaults.min_k == k_for_risk(defaults.max_prosecutor)
    derived = Thresholds(max_prosecutor=0.1)
    assert Thresholds.from_dict(derived.to_dict()) == derived


@pytest.mark.parametrize(
    "bad",
    [
        {"min_k": 0},
        {"min_k": 2.5},
        {"min_k": True},
        {"min_k": "5"},
        {"min_l": 0.5},
        {"max_t": 1.5},
        {"max_pl": -0.1},
        {"max_pl": float("nan")},
        {"max_prosecutor": 0},
        {"max_prosecutor": "0.2"},
        {"max_journalist": 2},
        {"max_reidentified_share": -1},
        {"max_disclosed_share": 1.01},
        {"max_suppressed_share": float("inf")},
        {"min_ul": 2},
    ],
)
def test_thresholds_out_of_range(bad):
    with pytest.raises(ParameterError) as info:
        Thresholds(**bad)
    assert info.value.code == "report.bad_threshold"
    assert next(iter(bad)) in info.value.message


def test_thresholds_unknown_key():
    with pytest.raises(ParameterError, match="min_kk"):
        Thresholds.from_dict({"min_kk": 5})


# --------------------------------------------------------------------------- actions


def _figures(**changes):
    """Stored figures of a 5-anonymous, 2-diverse release of 100 rows that passes the
    default thresholds; ``changes`` make one check fail."""
    measurement = {
        "k": 5,
        "rows": 100,
        "suppressed_rows": 0,
        "sa": ["Disease"],
        "l_distinct": {"Disease": 2},
        "t_closeness": {"Disease": {"t": 0.1, "distance": "equal"}},
        "pl": {"all": 0.1},
        "ul": 0.8,
        "risk": {"prosecutor_max": 0.2},
        "qi": ["ZIP"],
    }
    attacks = {
        "risk": {"journalist_max": 0.05},
        "linkage": {"targets": 100, "reidentified": 0, "attribute_disclosed": {"Disease": 0}},
    }
    for path, value in changes.items():
        where, _, name = path.partition("__")
        target = measurement if where == "m" else attacks
        *parents, leaf = name.split("__")
        for parent in parents:
            target = target[parent]
        target[leaf] = value
    return measurement, attacks


@pytest.mark.parametrize(
    ("changes", "thresholds", "check", "action"),
    [
        # k = 3 < 5 → k = 5
        ({"m__k": 3, "m__risk__prosecutor_max": 1 / 3}, {}, "k", {"k": 5}),
        # prosecutor 1/3 > 0.2 (k given as 3): classes of ⌈1/0.2⌉ = 5
        (
            {"m__k": 3, "m__risk__prosecutor_max": 1 / 3},
            {"min_k": 3, "max_prosecutor": 0.2},
            "prosecutor",
            {"k": 5},
        ),
        # journalist 0.2 > 0.1: classes of ≥ 10 in the population → k = 10
        ({"a__risk__journalist_max": 0.2}, {"max_journalist": 0.1}, "journalist", {"k": 10}),
        # distinct l = 1 < 3 → distinct l = 3
        ({"m__l_distinct__Disease": 1}, {"min_l": 3}, "l_distinct", {"l": 3, "l_kind": "distinct"}),
        # t = 0.1 > 0.05 → t-closeness at 0.05
        ({}, {"max_t": 0.05}, "t", {"t": 0.05, "t_distance": "auto"}),
        # 3 of 100 re-identified > 0: classes of 2 or more match nobody uniquely
        ({"a__linkage__reidentified": 3}, {"min_k": 1}, "reidentified_share", {"k": 2}),
        # 10 of 100 disclosed > 5 %: two values in every class
        ({"a__linkage__attribute_disclosed__Disease": 10}, {}, "disclosed_share", {"l": 2}),
        # 20 of 100 suppressed > 5 %: a suppression limit of 5 %
        ({"m__suppressed_rows": 20}, {}, "suppressed_share", {"max_suppression": 0.05}),
        # PL 0.5 > 0.3 at k = 5: classes twice as large
        ({"m__pl__all": 0.5}, {}, "pl", {"k": 10}),
        # UL 0.4 < 0.6: a local-recoding algorithm
        ({"m__ul": 0.4}, {"min_ul": 0.6}, "ul", {"algorithm": "mondrian"}),
    ],
)
def test_each_failing_check_carries_the_action_that_fixes_it(changes, thresholds, check, action):
    measurement, attacks = _figures(**changes)
    checks, reasons, _, verdict = evaluate_checks(
        measurement, attacks, {}, Thresholds(**thresholds)
    )
    assert verdict == "not_ready"
    reason = next(r for r in reasons if r["check"] == check)
    expected = {"action": "anonymize", **action}
    if check == "l_distinct" or check == "disclosed_share":
        expected.setdefault("l_kind", "distinct")
    assert reason["action"] == expected
    assert "status" not in reason and "message" not in reason
    assert next(c for c in checks if c["check"] == check)["action"] == expected


def _article29(point: float, high: float) -> dict:
    """An Article 29 risk as ``RiskResult.to_dict()`` stores it, reduced to what the
    checks read: the point estimate and its 95 % interval [0, high]."""
    return {"risk": point, "ci": [0.0, high], "baseline": 0.05, "confidence": 0.95}


def test_the_default_release_figures_pass_and_ask_for_nothing():
    measurement, attacks = _figures()
    # the Article 29 risks are checked by default against the prosecutor limit 1/5 = 0.2:
    # points 0.05, 0.02 and 0.1 with intervals up to 0.1, 0.08 and 0.19 all pass
    risks = {
        "singling_out": _article29(0.05, 0.1),
        "linkability": _article29(0.02, 0.08),
        "inference": {"Disease": _article29(0.1, 0.19)},
    }
    checks, reasons, conditions, verdict = evaluate_checks(
        measurement, attacks, {}, Thresholds(), gdpr_risks=risks
    )
    assert (verdict, reasons, conditions) == ("ready", [], [])
    assert not any("action" in c for c in checks)
    assert {c["check"]: c["threshold"] for c in checks[-3:]} == {
        "singling_out": 0.2,
        "linkability": 0.2,
        "inference": 0.2,
    }
    # without their figures the three risks are not measured: a condition each, not a pass
    checks, reasons, conditions, verdict = evaluate_checks(measurement, attacks, {}, Thresholds())
    assert (verdict, reasons) == ("ready_with_conditions", [])
    assert conditions == [
        {"condition": "not_measured", "params": {"check": name, "attribute": None}}
        for name in ("singling_out", "linkability", "inference")
    ]


def test_no_local_recoding_action_when_the_release_already_is_one():
    measurement, attacks = _figures(m__ul=0.4)
    thresholds = Thresholds(min_ul=0.6)
    _, reasons, _, _ = evaluate_checks(
        measurement, attacks, {}, thresholds, algorithm={"algorithm": "mondrian"}
    )
    assert "action" not in reasons[0]


# --------------------------------------------------------------------------- hospital


def test_hospital_by_hand(hospital):
    """Worked by hand (SPEC §2, §3): classes {1,2,3},{4,5,6},{7,8,9} of 3 rows, each with
    3 distinct salaries and 3 distinct diseases. k = 3 ≥ 3 and l = 3 ≥ 2 pass; PL(all) =
    0.5 > 0.3 fails (try k = 2 × 3 = 6) and prosecutor 1/3 > 0.2 fails (try ⌈1/0.2⌉ =
    5). The released ZIP cells (4767*, 4790*, 4760*) and ages (<=40, >=40) are disjoint,
    so a roll person matches at most one class of 3 records: nobody is matched uniquely
    (0 re-identified) and no candidate set holds a single SA value (0 disclosed);
    nothing is suppressed."""
    original, release = hospital
    thresholds = Thresholds(min_k=3, max_prosecutor=0.2, max_journalist=None, **WITHOUT_ARTICLE29)
    report = readiness(original, release, qi=QI, sa=SA, thresholds=thresholds)
    assert report.verdict == "not_ready"
    assert statuses(report) == {
        "k": "pass",
        "l_distinct:Salary": "pass",
        "l_distinct:Disease": "pass",
        "pl": "fail",
        "prosecutor": "fail",
        "reidentified_share": "pass",
        "disclosed_share": "pass",
        "suppressed_share": "pass",
    }
    assert sentences(report) == ["PL = 0.5 > 0.3", "prosecutor risk = 0.333 > 0.2"]
    assert [r["action"] for r in report.reasons] == [
        {"action": "anonymize", "k": 6},
        {"action": "anonymize", "k": 5},
    ]
    assert report.fix == {"action": "anonymize", "k": 6}
    by_check = {c["check"]: c for c in report.checks}
    assert by_check["pl"]["value"] == pytest.approx(0.5)
    assert by_check["prosecutor"]["value"] == pytest.approx(1 / 3)
    assert by_check["reidentified_share"]["value"] == 0.0
    assert by_check["disclosed_share"]["value"] == 0.0
    # Conditions are listed even when not ready: the file is in the original order.
    assert codes(report) == ["row_order_unverified"]
    assert report.conditions[0]["action"] == {"action": "shuffle"}


def test_hospital_min_k_3_derives_the_prosecutor_limit(hospital):
    """min_k = 3 alone: the prosecutor limit is 1/3, which 1/3 meets; PL alone fails."""
    original, release = hospital
    thresholds = Thresholds(min_k=3, max_journalist=None)
    report = readiness(original, release, qi=QI, sa=SA, thresholds=thresholds)
    assert statuses(report)["prosecutor"] == "pass"
    assert [r["check"] for r in report.reasons] == ["pl"]


def test_hospital_min_k_3_with_looser_limits_is_ready_with_conditions(hospital):
    """Prosecutor ≤ 1/3 and PL ≤ 0.6 pass; PL = 0.5 ≥ 0.8 × 0.6 = 0.48 is near its limit."""
    original, release = hospital
    thresholds = Thresholds(
        min_k=3, max_prosecutor=1 / 3, max_pl=0.6, max_journalist=None, **WITHOUT_ARTICLE29
    )
    report = readiness(original, release, qi=QI, sa=SA, thresholds=thresholds)
    assert report.verdict == "ready_with_conditions"
    assert report.reasons == [] and report.fix is None
    assert statuses(report)["pl"] == "warn"
    assert codes(report) == ["near_limit", "row_order_unverified"]
    assert report.conditions[0]["params"] == {
        "check": "pl",
        "attribute": None,
        "value": pytest.approx(0.5),
        "threshold": 0.6,
        "margin": 0.2,
    }
    assert report.ready


def test_hospital_journalist_from_the_roll(hospital):
    """Journalist risk = 1 / (roll people matching the class), max over classes: with the
    seed-0 roll of 90 people one class matches 11 of them → 1/11, which passes 0.1 but
    lies within 20 % of it (a warning and a condition)."""
    original, release = hospital
    thresholds = Thresholds(min_k=3, max_journalist=0.1)
    report = readiness(original, release, qi=QI, sa=SA, thresholds=thresholds, seed=0)
    journalist = next(c for c in report.checks if c["check"] == "journalist")
    assert journalist["value"] == pytest.approx(report.attacks["risk"]["journalist_max"])
    assert journalist["value"] == pytest.approx(1 / 11)
    assert journalist["status"] == "warn"
    assert "near_limit" in codes(report)
    assert report.attacks["roll"]["size"] == 90  # 10 × rows by default


def test_hospital_min_k_5_not_ready_with_k_reason(hospital):
    original, release = hospital
    report = readiness(original, release, qi=QI, sa=SA, thresholds=Thresholds(min_k=5))
    assert report.verdict == "not_ready"
    assert sentences(report)[0] == "k = 3 < 5"
    assert report.reasons[0] == {
        "check": "k",
        "attribute": None,
        "value": 3,
        "threshold": 5,
        "comparison": ">=",
        "action": {"action": "anonymize", "k": 5},
    }


def test_raw_table_as_release_not_ready(hospital):
    original, _ = hospital
    report = readiness(original, original, qi=QI, sa=SA)
    assert report.verdict == "not_ready"
    assert report.attacks["linkage"]["reidentified"] == 9
    reasons = {r["check"]: r for r in report.reasons}
    said = {r["check"]: s for r, s in zip(report.reasons, sentences(report), strict=True)}
    assert said["reidentified_share"] == "re-identified share = 1 > 0 (9 of 9 people)"
    assert reasons["reidentified_share"]["action"] == {"action": "anonymize", "k": 5}
    assert said["k"] == "k = 1 < 5"
    assert said["disclosed_share"].startswith("disclosed share = 1 > 0.05")
    assert reasons["disclosed_share"]["action"]["l"] == 2
    assert "homogeneous_classes" in codes(report)


def test_columns_key_and_order_conditions(hospital):
    """A release with a sequential key in the original order, a name column and an
    unanalysed QI-like column: every one of them is a condition."""
    original, release = hospital
    original = original.assign(record_no=np.arange(1, 10), sex=["F", "M"] * 4 + ["F"])
    release = release.assign(
        record_no=np.arange(1, 10),
        patient_name=[f"Person {i}" for i in range(9)],
        sex=original["sex"],
    )
    thresholds = Thresholds(
        min_k=3, max_prosecutor=0.34, max_pl=None, max_journalist=None, **WITHOUT_ARTICLE29
    )
    report = readiness(original, release, qi=QI, sa=SA, key="record_no", thresholds=thresholds)
    assert report.verdict == "ready_with_conditions"
    assert codes(report) == [
        "row_order",
        "key_sequential",
        "identifiers_present",
        "unanalysed_columns",
    ]
    assert report.conditions[0]["params"] == {"rho": pytest.approx(1.0), "in_place": 9}
    assert report.conditions[1]["action"] == {"action": "drop_columns", "columns": ["record_no"]}
    assert report.conditions[2]["action"] == {
        "action": "drop_columns",
        "columns": ["patient_name"],
    }
    assert report.findings["identifiers"] == ["patient_name"]
    assert report.findings["qi_like"] == ["sex"]

    # Shuffled rows and a random surrogate key: no order or key condition.
    rng = np.random.default_rng(3)
    token = rng.permutation(9) + 100
    shuffled = release.drop(columns=["patient_name", "sex"]).assign(token=token)
    shuffled = shuffled.drop(columns="record_no").iloc[[4, 7, 1, 8, 0, 3, 6, 2, 5]]
    report = readiness(
        original.drop(columns=["record_no", "sex"]).assign(token=token),
        shuffled,
        qi=QI,
        sa=SA,
        key="token",
        thresholds=thresholds,
    )
    assert report.verdict == "ready", report.conditions
    assert report.findings["order"]["kept"] is False
    assert {"note": "key_surrogate", "params": {"key": "token"}} in report.notes


def test_key_named_like_an_identifier(hospital):
    original, release = hospital
    ids = [f"P{i:03d}" for i in (5, 2, 9, 1, 7, 3, 8, 4, 6)]
    report = readiness(
        original.assign(patient_id=ids),
        release.assign(patient_id=ids),
        qi=QI,
        sa=SA,
        key="patient_id",
        thresholds=Thresholds(min_k=3),
    )
    assert "key_identifier" in codes(report)


def test_suppressed_rows_within_limit_are_a_condition(hospital):
    original, release = hospital
    release = release.copy()
    # Two rows at '*' in every QI fail k = 3 as one class: they are suppressed (three
    # would be a 3-anonymous class of their own); the third row of their class joins
    # the class of rows 7-9.
    release.loc[[0, 1], QI] = "*"
    release.loc[2, QI] = release.loc[6, QI]
    thresholds = Thresholds(
        min_k=3, max_prosecutor=0.34, max_pl=None, max_journalist=None, max_suppressed_share=0.4
    )
    report = readiness(original, release, qi=QI, sa=SA, thresholds=thresholds)
    assert report.measurement["suppressed_rows"] == 2
    assert "suppressed_rows" in codes(report)
    condition = report.conditions[codes(report).index("suppressed_rows")]
    assert condition["params"] == {"count": 2, "total": 9, "share": pytest.approx(2 / 9)}
    assert statuses(report)["suppressed_share"] == "pass"
    strict = readiness(original, release, qi=QI, sa=SA, thresholds=Thresholds(min_k=3))
    assert "suppressed share = 0.222 > 0.05 (2 of 9 rows)" in sentences(strict)
    reason = next(r for r in strict.reasons if r["check"] == "suppressed_share")
    assert reason["action"] == {"action": "anonymize", "max_suppression": 0.05}


# --------------------------------------------------------------------------- row order


def test_a_release_made_here_and_downloaded_shuffled_has_no_row_order_condition(hospital):
    """The released file of the worked example is the original's rows in order. As an
    upload (no key) it is in the original order: shuffle it. Made here, its download is
    shuffled by default: nothing to handle; made here but downloaded in order: download
    it shuffled."""
    original, release = hospital
    loose = Thresholds(min_k=3, max_pl=None, max_journalist=None, **WITHOUT_ARTICLE29)

    def order_codes(**how):
        report = readiness(original, release, qi=QI, sa=SA, thresholds=loose, **how)
        return report.verdict, [c for c in codes(report) if c.startswith("row_order")]

    assert order_codes() == ("ready_with_conditions", ["row_order_unverified"])
    assert order_codes(aligned=True, shuffled=True) == ("ready", [])
    assert order_codes(aligned=True) == ("ready_with_conditions", ["row_order_download"])
    # an upload its owner will shuffle before publishing asks for nothing either
    assert order_codes(shuffled=True) == ("ready", [])


def test_an_app_release_can_be_plainly_ready(hospital):
    """Made here (Datafly, k = 3) and downloaded shuffled, through the application layer."""
    dataset, schema = load_sample("hospital")
    request = AnonymizeRequest(algorithm="datafly", k=3, qi=QI, sa=SA)
    made = run(request, Inputs(original=dataset, schema=schema), record=False)
    thresholds = {"min_k": 3, "max_pl": None, "max_journalist": None, **WITHOUT_ARTICLE29}
    report_request = ReportRequest(qi=QI, sa=SA, thresholds=thresholds)

    def inputs(shuffled: bool) -> Inputs:
        return Inputs(
            original=dataset,
            schema=schema,
            release=made.result.frame,
            aligned=True,
            shuffled=shuffled,
            algorithm={"algorithm": "datafly", **made.result.params},
        )

    shuffled = run(report_request, inputs(True), record=False).result
    assert (shuffled.verdict, shuffled.conditions) == ("ready", [])
    in_order = run(report_request, inputs(False), record=False).result
    assert codes(in_order) == ["row_order_download"]


# --------------------------------------------------------------------------- bad input


def test_bad_input_errors(hospital):
    original, release = hospital
    with pytest.raises(RoleError):
        readiness(original, release, qi=["ZIP", "Nope"], sa=SA)
    with pytest.raises(DataFormatError) as info:
        readiness(original, release.iloc[:8], qi=QI, sa=SA)
    assert info.value.code == "measure.alignment"
    with pytest.raises(ParameterError):
        readiness(original, release, qi=QI, sa=SA, thresholds=Thresholds.from_dict({"max_t": 3}))
    with pytest.raises(ParameterError):
        readiness(original.to_dict(), release, qi=QI, sa=SA)
    with pytest.raises(PrivcoreError):
        readiness(original, release, qi=QI, sa=SA, roll_size=3)  # smaller than the data set


def test_progress_is_reported(hospital):
    original, release = hospital
    seen: list[float] = []
    readiness(original, release, qi=QI, sa=SA, progress=lambda f, _m: seen.append(f))
    assert seen[0] == 0.0 and seen[-1] == 1.0
    assert all(0.0 <= f <= 1.0 for f in seen)
    assert seen == sorted(seen)


# --------------------------------------------------------------------------- Adult


@pytest.fixture(scope="module")
def adult():
    """Adult with a random surrogate key, and two Mondrian releases: k = 10, and
    k = 10 with distinct 2-diversity."""
    dataset, schema = load_sample("adult")
    frame = dataset.frame.assign(
        token=np.random.default_rng(1).permutation(len(dataset.frame)).astype(str)
    )
    schema = Schema({**schema.roles, "token": Role.INSENSITIVE}, schema.hierarchies)
    k10 = anonymize(frame, schema, [KAnonymity(10)], algorithm="mondrian")
    k10_l2 = anonymize(frame, schema, [KAnonymity(10), DistinctLDiversity(2)], algorithm="mondrian")
    return frame, schema, k10, k10_l2


#: The Article 29 limits are left at their default, the prosecutor limit 0.1.
LOOSE = Thresholds(
    min_k=10,
    min_l=None,
    max_pl=0.5,
    max_prosecutor=0.1,
    max_journalist=0.2,
    max_disclosed_share=0.01,
)


def test_adult_k10_mondrian_ready_with_expected_conditions(adult):
    """Mondrian k = 10 without l: a few classes hold a single occupation (homogeneity),
    and ``Release.frame`` is in the original order (rows matched by position)."""
    frame, schema, k10, _ = adult
    qi = list(schema.quasi_identifiers)
    report = readiness(
        frame.drop(columns="token"),
        k10.frame.drop(columns="token"),
        qi=qi,
        sa=["occupation"],
        thresholds=LOOSE,
        hierarchies=schema.hierarchies,
        algorithm={"algorithm": k10.algorithm, "params": k10.params},
    )
    assert report.verdict == "ready_with_conditions"
    assert report.reasons == []
    # inference on occupation: 118 of 500 attacks right against 103 of 500 controls, point
    # (0.2380 − 0.2082)/(1 − 0.2082) = 0.0376 ≤ 0.1 but its interval reaches 0.1012: a condition
    assert codes(report) == ["interval_above_limit", "homogeneous_classes", "row_order_unverified"]
    inference = report.conditions[0]["params"]
    assert (inference["check"], inference["attribute"]) == ("inference", "occupation")
    assert inference["value"] == pytest.approx(0.0376, abs=1e-4)
    assert inference["high"] == pytest.approx(0.1012, abs=1e-4)
    assert report.conditions[1]["action"] == {"action": "anonymize", "l": 2, "l_kind": "distinct"}
    assert report.measurement["k"] == 10
    assert report.attacks["linkage"]["reidentified"] == 0
    assert report.attacks["before"]["linkage"]["reidentified"] > 0
    assert report.findings["homogeneity"]["classes_exposed"] > 0
    # The exported (shuffled) release, matched by the surrogate key: order is no issue.
    shuffled = readiness(
        frame,
        k10.export(seed=7),
        qi=qi,
        sa=["occupation"],
        key="token",
        thresholds=LOOSE,
        hierarchies=schema.hierarchies,
    )
    assert codes(shuffled) == ["interval_above_limit", "homogeneous_classes"]
    assert shuffled.findings["key"]["leaks"] is False


def test_adult_k10_l2_shuffled_is_ready_but_for_the_inference_interval(adult):
    frame, schema, _, k10_l2 = adult
    thresholds = Thresholds.from_dict({**LOOSE.to_dict(), "min_l": 2})
    report = readiness(
        frame,
        k10_l2.export(seed=7),
        qi=list(schema.quasi_identifiers),
        sa=["occupation"],
        key="token",
        thresholds=thresholds,
        hierarchies=schema.hierarchies,
    )
    # inference on occupation: 119 of 500 attacks right against 103 of 500 controls, point
    # (0.2400 − 0.2082)/(1 − 0.2082) = 0.0401 ≤ 0.1, but its interval reaches 0.0401 +
    # 0.0637 = 0.1038 > 0.1 (Wilson half-widths 0.0372 and 0.0354, propagated): a condition
    assert report.verdict == "ready_with_conditions" and report.reasons == []
    assert codes(report) == ["interval_above_limit"]
    params = report.conditions[0]["params"]
    assert (params["check"], params["attribute"], params["threshold"]) == (
        "inference",
        "occupation",
        0.1,
    )
    assert params["value"] == pytest.approx(0.0401, abs=1e-4)
    assert params["high"] == pytest.approx(0.1038, abs=1e-4)
    assert {c["check"] for c in report.checks if c["status"] != "pass"} == {"inference"}
    # every other check passes: without the inference limit the same figures are ready
    waived = Thresholds.from_dict({**thresholds.to_dict(), "max_inference": None})
    _, reasons, conditions, verdict = evaluate_checks(
        report.measurement, report.attacks, report.findings, waived, gdpr_risks=report.gdpr_risks
    )
    assert (verdict, reasons, conditions) == ("ready", [], [])
    # Local recoding maps one value to several labels (more entropy than the original)
    # but keeps I(X; X̄)/H(X) meaningful: no QI is flagged (SPEC §3 erratum).
    flagged = [n for n in report.notes if n["note"] == "pl_note"]
    assert not [n for n in flagged if n["params"]["note"] == "not_meaningful"]


def test_to_dict_is_json(hospital):
    original, release = hospital
    report = readiness(original, release, qi=QI, sa=SA)
    text = json.dumps(report.to_dict(), allow_nan=False, ensure_ascii=False)
    data = json.loads(text)
    assert data["verdict"] == "not_ready"
    assert data["thresholds"] == Thresholds().to_dict()
    assert data["roles"] == {"qi": QI, "sa": SA, "key": None}
    assert set(data["fingerprint"]) == {"sha256", "rows", "columns"}
    # aggregates only, never a row of the data (a ZIP of it: not inside a longer number,
    # a timing or a hexadecimal fingerprint, which may hold those digits by chance)
    assert not re.search(r"(?<![0-9a-f.])47677(?![0-9a-f])", text)


# --------------------------------------------------------------------------- history


def _run_report(thresholds=None, *, owner=None, algorithm=None):
    dataset, schema = load_sample("hospital")
    release = load_sample("hospital_release")[0]
    inputs = Inputs(
        original=dataset,
        schema=schema,
        release=release.frame,
        release_name=release.name,
        algorithm=algorithm,
    )
    request = ReportRequest(qi=QI, sa=SA, thresholds=thresholds)
    return dataset, run(request, inputs, owner=owner, page="report")


def test_readiness_writes_nothing(hospital, isolated_history):
    original, release = hospital
    report = readiness(original, release, qi=QI, sa=SA)
    assert report.run_ids == [] and not isolated_history.exists()


def test_run_records_the_measure_attack_and_report_runs(isolated_history):
    thresholds = {"min_k": 3, "max_prosecutor": 0.34, "max_pl": 0.6}
    algorithm = {"algorithm": "datafly", "params": {"k": 3}}
    dataset, outcome = _run_report(thresholds, owner="me", algorithm=algorithm)
    report = outcome.result.recorded(outcome.summary, outcome.run_id)
    runs = {r["kind"]: r for r in history.list_runs()}
    assert sorted(runs) == ["attack", "measure", "report"]
    measure_id, attack_id, report_id = report.run_ids
    assert (runs["measure"]["id"], runs["attack"]["id"], runs["report"]["id"]) == (
        measure_id,
        attack_id,
        report_id,
    )
    assert report_id == outcome.run_id
    for row in runs.values():
        assert row["page"] == "report" and row["owner"] == "me" and row["status"] == "ok"
        assert row["dataset_sha256"] == dataset.fingerprint.sha256
        assert history.get_run(row["id"])["data"] is None  # never the data itself
    stored = history.get_run(report_id)
    assert stored["results"]["measure_run"] == measure_id
    assert stored["results"]["attack_run"] == attack_id
    assert stored["results"]["verdict"] == report.verdict == "ready_with_conditions"
    assert stored["params"]["thresholds"] == thresholds  # as asked
    assert stored["results"]["thresholds"] == Thresholds(**thresholds).to_dict()  # resolved
    assert stored["params"]["release"] == "Hospital release (worked example)"
    # the parts carry the parameters a measure and an attack request record
    measure = history.get_run(measure_id)
    assert measure["params"]["k"] == 3 and measure["params"]["l"] == 2
    assert measure["params"]["risk_threshold"] == 0.34
    assert measure["results"] == report.measurement
    attack = history.get_run(attack_id)
    assert attack["params"]["seed"] == 0 and attack["results"] == report.attacks

    again = report_from_history(report_id)
    assert again["verdict"] == report.verdict
    assert again["recomputed_verdict"] == report.verdict and again["consistent"] is True
    assert again["algorithm"] == algorithm
    assert again["run_ids"] == report.run_ids
    with pytest.raises(ParameterError):
        report_from_history(measure_id)
    with pytest.raises(PrivcoreError):
        report_from_history(999)


def test_a_recorded_report_is_rebuilt_from_the_history_alone(isolated_history):
    _, outcome = _run_report(owner="o" * 32)
    made = outcome.result.recorded(outcome.summary, outcome.run_id)
    report_id = made.run_ids[-1]
    rebuilt = readiness_from_history(report_id, owner="o" * 32)
    assert rebuilt.verdict == made.verdict == "not_ready"
    assert rebuilt.checks == made.checks and rebuilt.reasons == made.reasons
    assert rebuilt.conditions == made.conditions
    assert rebuilt.thresholds == made.thresholds and rebuilt.run_ids == made.run_ids
    assert rebuilt.notes == [*made.notes, {"note": "rebuilt", "params": {"run": report_id}}]
    # the HTML is the same document, with one note saying where it came from
    for lang in ("en", "zh"):
        note = texts_of(rebuilt, lang).notes[-1]
        assert rebuilt.to_dict()["fingerprint"] == made.to_dict()["fingerprint"]
        page = render_html(rebuilt, lang).replace(f"<li>{note}</li>\n", "")
        assert page == render_html(made, lang)
    # another visitor's lookup and a report whose measure run is gone
    with pytest.raises(PrivcoreError) as info:
        readiness_from_history(report_id, owner="x" * 32)
    assert info.value.code == "history.no_run"
    history.delete_run(made.run_ids[0])
    with pytest.raises(PrivcoreError) as info:
        readiness_from_history(report_id)
    assert info.value.code == "report.missing_runs"


def test_a_report_whose_rules_changed_says_so(isolated_history):
    """A recorded verdict that today's rules do not give again is rebuilt with today's
    verdict and a note naming the recorded one."""
    _, outcome = _run_report({"min_k": 3})
    report_id = outcome.run_id
    stored = history.get_run(report_id)
    assert stored["results"]["verdict"] == "not_ready"
    results = {**stored["results"], "verdict": "ready"}
    with sqlite3.connect(isolated_history) as db:
        db.execute(
            f"UPDATE {history.TABLE} SET results = ? WHERE id = ?",
            (json.dumps(results), report_id),
        )
    rebuilt = readiness_from_history(report_id)
    assert rebuilt.verdict == "not_ready"
    assert {"note": "rules_changed", "params": {"verdict": "ready"}} in rebuilt.notes


# --------------------------------------------------------------------------- CLI


def _cli(*extra: str) -> list[str]:
    return [
        "report",
        "--original",
        str(HOSPITAL),
        "--release",
        str(HOSPITAL_RELEASE),
        "--qi",
        "ZIP,Age",
        "--sa",
        "Salary,Disease",
        "--quiet",
        *extra,
    ]


def _self_contained(page: str) -> bool:
    lowered = page.lower()
    return lowered.startswith("<!doctype html>") and "<script" not in lowered


def test_cli_ready_with_conditions_exits_0(tmp_path, capsys):
    out = tmp_path / "report.html"
    code = main(
        _cli("--min-k", "3", "--max-prosecutor", "0.34", "--max-pl", "0.6", "--out", str(out))
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert printed.startswith("verdict: ready with conditions")
    assert "conditions:" in printed and "shuffle the rows" in printed
    assert _self_contained(out.read_text(encoding="utf-8"))


def test_cli_not_ready_exits_1_and_json(tmp_path, capsys):
    out = tmp_path / "report.html"
    assert main(_cli("--out", str(out))) == 1
    printed = capsys.readouterr().out
    assert "FAIL k = 3 < 5 → Every class needs at least 5 records" in printed
    assert main(_cli("--out", str(out), "--json", "--lang", "zh", "--max-journalist", "none")) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"] == "not_ready"
    assert data["thresholds"]["max_journalist"] is None
    assert data["fingerprint"]["name"] == "hospital.csv"
    # the documented keys, with the English message of every reason and condition
    assert set(data) >= {"verdict", "reasons", "conditions", "checks", "thresholds"}
    assert data["reasons"][0]["message"] == "k = 3 < 5"
    assert data["reasons"][0]["action"] == {"action": "anonymize", "k": 5}
    assert all(c["message"] for c in data["conditions"] + data["checks"])
    assert "不可发布" in out.read_text(encoding="utf-8")


def test_cli_record(tmp_path, capsys):
    out = tmp_path / "report.html"
    assert main(_cli("--min-k", "3", "--out", str(out), "--record")) == 1
    assert "history runs: #1, #2, #3" in capsys.readouterr().out
    assert report_from_history(3)["verdict"] == "not_ready"
    assert sorted(r["kind"] for r in history.list_runs()) == ["attack", "measure", "report"]


def test_cli_rebuilds_a_recorded_report(tmp_path, capsys):
    out = tmp_path / "report.html"
    assert main(_cli("--min-k", "3", "--out", str(out), "--record")) == 1
    capsys.readouterr()
    again = tmp_path / "again.html"
    assert main(["report", "--from-run", "3", "--out", str(again)]) == 1
    assert again.read_text(encoding="utf-8") == render_html(readiness_from_history(3))
    history.delete_run(1)
    assert main(["report", "--from-run", "3", "--out", str(again)]) == 2


@pytest.mark.parametrize(
    "extra",
    [
        ("--qi", "ZIP,Nope"),
        ("--max-suppressed", "1.5"),
        ("--min-k", "0"),
        ("--max-prosecutor", "none"),
        ("--hierarchy", "ZIP"),
        ("--algorithm-report", "/nonexistent/report.json"),
    ],
)
def test_cli_bad_input_exits_2_with_one_line(tmp_path, capsys, extra):
    out = tmp_path / "report.html"
    assert main([*_cli("--out", str(out)), *extra]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and "\n" not in err
    assert not out.exists()


def test_cli_unwritable_out_exits_2(capsys):
    assert main(_cli("--out", "/nonexistent/folder/report.html")) == 2
    assert "folder does not exist" in capsys.readouterr().err


def test_cli_bad_option_value_exits_2(tmp_path):
    with pytest.raises(SystemExit) as info:
        main(_cli("--out", str(tmp_path / "r.html"), "--max-pl", "abc"))
    assert info.value.code == 2


def test_cli_algorithm_report(tmp_path, capsys):
    made = tmp_path / "anon.json"
    made.write_text(json.dumps({"algorithm": "datafly", "params": {"seed": 0}, "node": None}))
    out = tmp_path / "report.html"
    main(_cli("--min-k", "3", "--out", str(out), "--algorithm-report", str(made), "--json"))
    data = json.loads(capsys.readouterr().out)
    assert data["algorithm"]["algorithm"] == "datafly"
    assert "<td>Algorithm</td><td>Datafly</td>" in out.read_text(encoding="utf-8")


def test_report_command_without_tables_or_a_run_exits_2(tmp_path, capsys):
    assert main(["report", "--out", str(tmp_path / "r.html")]) == 2
    assert "--original, --release, --qi, --sa (or --from-run ID)" in capsys.readouterr().err


def test_a_threshold_that_cannot_be_waived_says_so(tmp_path, capsys):
    args = ["report", "--original", str(HOSPITAL), "--release", str(HOSPITAL_RELEASE)]
    args += ["--qi", "ZIP,Age", "--sa", "Disease", "--out", str(tmp_path / "r.html")]
    assert main([*args, "--max-disclosed", "none"]) == 2
    err = capsys.readouterr().err
    assert "--max-disclosed cannot be 'none'" in err and "--max-t" in err
    assert main([*args, "--max-t", "none", "--quiet"]) in (0, 1)  # waivable


def test_report_lines_name_the_verdict_reasons_and_conditions(hospital):
    original, release = hospital
    report = readiness(original, release, qi=QI, sa=SA, thresholds=Thresholds(min_k=5))
    lines = report_lines(report)
    assert lines[0] == "verdict: not ready"
    assert lines[1] == (
        "  FAIL k = 3 < 5 → Every class needs at least 5 records: anonymize again with k = 5."
    )
    assert "conditions:" in lines and re.search("shuffle the rows", "\n".join(lines))
