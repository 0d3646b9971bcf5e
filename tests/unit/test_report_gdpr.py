"""Singling out, linkability and inference in the readiness report: the thresholds, the
checks evaluated from stored figures, a real run, the rebuild from the history, the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from privcore import history
from privcore.attacks.gdpr_risks import gdpr_risks
from privcore.cli import main
from privcore.data import load_sample
from privcore.errors import ParameterError
from privcore.report import (
    Thresholds,
    evaluate_checks,
    readiness,
    readiness_from_history,
    report_from_history,
)
from privcore.runs import Inputs, ReportRequest, run
from privcore.words.catalog import check_sentence, condition_sentence, texts_of
from privcore.words.report_html import render_html

ROOT = Path(__file__).resolve().parents[2]
HOSPITAL = ROOT / "assets" / "hospital" / "hospital.csv"
HOSPITAL_RELEASE = ROOT / "assets" / "hospital" / "hospital_release.csv"
QI, SA = ["ZIP", "Age"], ["Salary", "Disease"]
GDPR = {"max_singling_out": 0.5, "max_linkability": 0.5, "max_inference": 0.5}
#: The three risks waived: no check of them.
WITHOUT_ARTICLE29 = dict.fromkeys(GDPR)
GDPR_CHECKS = ("singling_out", "linkability", "inference")


def only(**limits: float) -> dict:
    """The limits of the Article 29 risks given, the others waived (a test of one risk)."""
    return {**WITHOUT_ARTICLE29, **limits}


def risk(point: float, low: float, high: float, baseline: float = 0.1) -> dict:
    """A ``RiskResult.to_dict()`` reduced to what the checks read."""
    return {"risk": point, "ci": [low, high], "baseline": baseline, "confidence": 0.95}


def figures() -> tuple[dict, dict]:
    """Stored figures of a 5-anonymous, 2-diverse release of 100 rows that passes every
    default check (so that only the Article 29 checks decide)."""
    measurement = {
        "k": 5,
        "rows": 100,
        "suppressed_rows": 0,
        "sa": ["Disease", "Salary"],
        "l_distinct": {"Disease": 2, "Salary": 2},
        "pl": {"all": 0.1},
        "risk": {"prosecutor_max": 0.2},
        "qi": ["ZIP", "Age"],
    }
    attacks = {
        "risk": {"journalist_max": 0.05},
        "linkage": {"targets": 100, "reidentified": 0, "attribute_disclosed": {}},
    }
    return measurement, attacks


def gdpr(so=None, link=None, **inference) -> dict:
    return {"singling_out": so, "linkability": link, "inference": inference}


def evaluate(risks, **thresholds):
    measurement, attacks = figures()
    return evaluate_checks(measurement, attacks, {}, Thresholds(**thresholds), gdpr_risks=risks)


def check_of(checks, name):
    return next(c for c in checks if c["check"] == name)


# --------------------------------------------------------------------------- thresholds


def test_thresholds_default_to_the_prosecutor_limit_are_validated_and_round_trip():
    # by default each limit is the prosecutor limit 1/k: 1/5 = 0.2, 1/10 = 0.1, or as given
    t = Thresholds()
    assert (t.max_singling_out, t.max_linkability, t.max_inference) == (0.2, 0.2, 0.2)
    assert t.needs_gdpr_risks
    assert Thresholds.from_dict(json.loads(json.dumps(t.to_dict()))) == t
    t = Thresholds(min_k=10)
    assert (t.max_singling_out, t.max_linkability, t.max_inference) == (0.1, 0.1, 0.1)
    t = Thresholds(max_prosecutor=0.25, max_linkability=0.5)
    assert (t.max_singling_out, t.max_linkability, t.max_inference) == (0.25, 0.5, 0.25)
    # None waives them
    assert not Thresholds(**WITHOUT_ARTICLE29).needs_gdpr_risks
    given = Thresholds(max_singling_out=0.1, max_inference=1)
    assert given.needs_gdpr_risks and given.max_inference == 1.0
    assert Thresholds.from_dict(json.loads(json.dumps(given.to_dict()))) == given
    for name in GDPR:
        for bad in (-0.01, 1.5, float("nan"), "0.2", True):
            with pytest.raises(ParameterError) as info:
                Thresholds(**{name: bad})
            assert info.value.code == "report.bad_threshold" and name in info.value.message


def test_by_default_they_are_checked_and_waived_limits_change_nothing():
    # default limits 1/k = 0.2: singling out 0.9 > 0.2 fails; linkability and inference
    # have no figures: not measured, a condition each
    checks, reasons, conditions, verdict = evaluate(gdpr(risk(0.9, 0.8, 1.0)))
    assert verdict == "not_ready" and [r["check"] for r in reasons] == ["singling_out"]
    assert reasons[0]["threshold"] == 0.2
    assert conditions == [
        {"condition": "not_measured", "params": {"check": name, "attribute": None}}
        for name in ("linkability", "inference")
    ]
    # figures given but every limit waived: no check, the verdict of the other checks
    checks, reasons, conditions, verdict = evaluate(gdpr(risk(0.9, 0.8, 1.0)), **WITHOUT_ARTICLE29)
    assert verdict == "ready" and reasons == [] and conditions == []
    assert not {"singling_out", "linkability", "inference"} & {c["check"] for c in checks}


# --------------------------------------------------------------------------- checks


def test_above_the_limit_fails_with_an_action():
    # singling out 0.3 > 0.2 → fail; k = max(5, 2 × 5) = 10
    checks, reasons, _, verdict = evaluate(gdpr(risk(0.3, 0.25, 0.35)), max_singling_out=0.2)
    check = check_of(checks, "singling_out")
    assert check["status"] == "fail" and check["value"] == 0.3 and check["threshold"] == 0.2
    assert check["comparison"] == "<="
    assert check["detail"] == {
        "kind": "gdpr",
        "ci": [0.25, 0.35],
        "confidence": 0.95,
        "baseline": 0.1,
    }
    assert verdict == "not_ready"
    assert [r["check"] for r in reasons] == ["singling_out"]
    assert reasons[0]["action"] == {"action": "anonymize", "k": 10}


def test_below_the_limit_with_its_interval_below_passes():
    checks, reasons, conditions, verdict = evaluate(
        gdpr(link=risk(0.1, 0.05, 0.15)), **only(max_linkability=0.2)
    )
    assert check_of(checks, "linkability")["status"] == "pass"
    assert (verdict, reasons, conditions) == ("ready", [], [])


def test_at_the_limit_passes():
    checks, *_ = evaluate(gdpr(risk(0.2, 0.15, 0.2)), max_singling_out=0.2)
    assert check_of(checks, "singling_out")["status"] == "pass"


def test_near_the_limit_the_interval_makes_a_warning_and_a_condition():
    # point 0.15 ≤ 0.2, but the interval reaches 0.25 > 0.2
    checks, reasons, conditions, verdict = evaluate(
        gdpr(link=risk(0.15, 0.05, 0.25)), **only(max_linkability=0.2)
    )
    assert check_of(checks, "linkability")["status"] == "warn"
    assert reasons == [] and verdict == "ready_with_conditions"
    assert conditions == [
        {
            "condition": "interval_above_limit",
            "params": {
                "check": "linkability",
                "attribute": None,
                "value": 0.15,
                "threshold": 0.2,
                "low": 0.05,
                "high": 0.25,
                "confidence": 0.95,
            },
        }
    ]


def test_inference_takes_the_largest_point_over_the_sensitive_attributes():
    # Salary 0.25 > 0.2 fails though Disease's interval is the wider one
    risks = gdpr(Disease=risk(0.1, 0.0, 0.6), Salary=risk(0.25, 0.2, 0.3))
    checks, reasons, _, verdict = evaluate(risks, max_inference=0.2)
    check = check_of(checks, "inference")
    assert (check["attribute"], check["status"], check["value"]) == ("Salary", "fail", 0.25)
    assert verdict == "not_ready"
    assert reasons[0]["action"] == {"action": "anonymize", "k": 10, "l": 2, "l_kind": "distinct"}
    assert len([c for c in checks if c["check"] == "inference"]) == 1


def test_inference_warns_on_the_attribute_whose_interval_crosses_the_limit():
    # both points pass (Salary's 0.15 is the larger); Disease's interval reaches 0.3
    risks = gdpr(Disease=risk(0.1, 0.0, 0.3), Salary=risk(0.15, 0.12, 0.18))
    checks, _, conditions, verdict = evaluate(risks, **only(max_inference=0.2))
    check = check_of(checks, "inference")
    assert (check["attribute"], check["status"], check["value"]) == ("Disease", "warn", 0.1)
    assert verdict == "ready_with_conditions"
    assert conditions[0]["params"]["attribute"] == "Disease"
    # every interval within the limit: the largest point, passing
    risks = gdpr(Disease=risk(0.1, 0.0, 0.19), Salary=risk(0.15, 0.12, 0.18))
    check = check_of(evaluate(risks, **only(max_inference=0.2))[0], "inference")
    assert (check["attribute"], check["status"]) == ("Salary", "pass")


def test_a_risk_that_was_not_measured_is_a_warning():
    # linkability needs two quasi-identifiers; no figures at all (a report on an engine)
    for risks in (gdpr(risk(0.0, 0.0, 0.1)), None):
        checks, _, conditions, verdict = evaluate(risks, **only(max_linkability=0.2))
        check = check_of(checks, "linkability")
        assert check["status"] == "warn" and check["value"] is None
        assert conditions == [
            {"condition": "not_measured", "params": {"check": "linkability", "attribute": None}}
        ]
        assert verdict == "ready_with_conditions"


def test_words_of_the_checks_and_the_condition():
    risks = gdpr(risk(0.3, 0.25, 0.35, 0.05), risk(0.15, 0.05, 0.25), Salary=risk(0.1, 0, 0.2))
    checks, _, conditions, _ = evaluate(risks, **{name: 0.2 for name in GDPR})
    sentences = [check_sentence(c, "en") for c in checks[-3:]]
    assert sentences == [
        "singling-out risk = 0.3 > 0.2 (95% interval 0.25 to 0.35; a naive attacker's "
        "baseline 0.05)",
        "linkability risk = 0.15 ≤ 0.2 (95% interval 0.05 to 0.25; a naive attacker's "
        "baseline 0.1)",
        "inference risk on Salary = 0.1 ≤ 0.2 (95% interval 0 to 0.2; a naive attacker's "
        "baseline 0.1)",
    ]
    assert check_sentence(checks[-3], "zh") == (
        "单独识别风险 = 0.3 > 0.2（95% 置信区间 0.25 至 0.35；朴素攻击者基线 0.05）"
    )
    (condition,) = [c for c in conditions if c["condition"] == "interval_above_limit"]
    en = condition_sentence(condition, "en")
    assert en.startswith("linkability risk = 0.15 passes its limit 0.2, but its 95% ")
    assert "reaches 0.25 (from 0.05)" in en
    assert "可链接风险 = 0.15" in condition_sentence(condition, "zh")


# --------------------------------------------------------------------------- a real run


@pytest.fixture(scope="module")
def hospital():
    dataset, schema = load_sample("hospital")
    release = load_sample("hospital_release")[0].frame
    return dataset.frame, release, schema.hierarchies


def test_readiness_reports_the_three_risks_checks_them_by_default_and_waives_them_with_none(
    hospital, monkeypatch
):
    original, release, hierarchies = hospital
    report = readiness(original, release, qi=QI, sa=SA, hierarchies=hierarchies, seed=4)
    # measured and shown with every report, and checked against the prosecutor limit 0.2
    direct = gdpr_risks(original, release, QI, SA, seed=4, hierarchies=hierarchies).to_dict()
    assert report.gdpr_risks == json.loads(json.dumps(direct))
    checks = {c["check"]: c for c in report.checks if c["check"] in GDPR_CHECKS}
    assert {name: c["threshold"] for name, c in checks.items()} == dict.fromkeys(GDPR_CHECKS, 0.2)
    # singling out 0.041 (interval to 0.062) ≤ 0.2 passes; linkability, 2 of 2 attacks
    # right against 1 of 2 controls (Wilson centres 3.92/5.84 = 0.671 and 2.92/5.84 =
    # 0.5): (0.671 − 0.5)/(1 − 0.5) = 0.342 > 0.2 fails; inference, 1 of 2 against 0 of 2
    # (0.5 and 1.92/5.84 = 0.329) on either attribute: (0.5 − 0.329)/(1 − 0.329) = 0.255
    # > 0.2 fails, on Salary (the first of the equal points)
    assert {name: c["status"] for name, c in checks.items()} == {
        "singling_out": "pass",
        "linkability": "fail",
        "inference": "fail",
    }
    assert checks["singling_out"]["value"] == pytest.approx(0.0411, abs=1e-4)
    assert checks["linkability"]["value"] == pytest.approx(0.3424, abs=1e-4)
    assert checks["inference"]["attribute"] == "Salary"
    assert checks["inference"]["value"] == pytest.approx(0.2551, abs=1e-4)
    assert {"linkability", "inference"} <= {r["check"] for r in report.reasons}
    # waived: measured and shown still, but no check
    waived = readiness(
        original,
        release,
        qi=QI,
        sa=SA,
        hierarchies=hierarchies,
        seed=4,
        thresholds=WITHOUT_ARTICLE29,
    )
    assert waived.gdpr_risks == report.gdpr_risks
    assert not set(GDPR_CHECKS) & {c["check"] for c in waived.checks}
    page = render_html(report)
    assert 'id="gdpr"' in page and "Inference of Disease" in page and "Naive baseline" in page
    assert "单独识别" in render_html(report, "zh")
    import importlib

    module = importlib.import_module("privcore.attacks.gdpr_risks")  # read when measuring

    def refuse(*args, **kwargs):
        raise AssertionError("measured although left out")

    monkeypatch.setattr(module, "gdpr_risks", refuse)
    # left out (gdpr=False) and waived: not measured at all
    report = readiness(
        original,
        release,
        qi=QI,
        sa=SA,
        hierarchies=hierarchies,
        gdpr=False,
        thresholds=WITHOUT_ARTICLE29,
    )
    assert report.gdpr_risks is None and report.to_dict()["gdpr_risks"] is None
    assert 'id="gdpr"' not in render_html(report)


def test_risks_that_cannot_be_measured_are_a_note_not_an_error(hospital):
    original, release, hierarchies = hospital
    two = original.iloc[:2], release.iloc[:2]  # too few rows to hold a control set out
    report = readiness(*two, qi=QI, sa=SA, hierarchies=hierarchies)
    assert report.gdpr_risks is None
    note = report.notes[-1]
    assert note["note"] == "gdpr_not_measured"
    assert note["params"]["error"] == "gdpr_risk.too_few_rows"
    said = texts_of(report, "en").notes[-1]
    assert said.startswith("Singling out, linkability and inference were not measured: A table")
    assert "2 rows" in said and "gdpr_risk" not in said
    assert "未测量" in texts_of(report, "zh").notes[-1]
    # a limit set on them is a "not measured" condition, not a pass
    report = readiness(*two, qi=QI, sa=SA, hierarchies=hierarchies, thresholds=GDPR)
    assert {c["condition"] for c in report.conditions} >= {"not_measured"}


def test_a_real_run_on_the_hospital_release(hospital):
    original, release, hierarchies = hospital
    thresholds = {"min_k": 3, "max_singling_out": 0.01, "max_linkability": 0.5}
    thresholds["max_inference"] = 0.5
    report = readiness(
        original, release, qi=QI, sa=SA, thresholds=thresholds, hierarchies=hierarchies, seed=4
    )
    # the figures are gdpr_risks' own, with the report's seed and hierarchies
    direct = gdpr_risks(original, release, QI, SA, seed=4, hierarchies=hierarchies).to_dict()
    assert report.gdpr_risks == json.loads(json.dumps(direct))
    assert report.gdpr_risks["control"] == "held_out"
    so = check_of(report.checks, "singling_out")
    assert so["value"] == pytest.approx(direct["singling_out"]["risk"])
    assert so["value"] > 0.01 and so["status"] == "fail"
    assert report.verdict == "not_ready"
    assert "singling_out" in [r["check"] for r in report.reasons]
    inference = check_of(report.checks, "inference")
    worst = max(direct["inference"].values(), key=lambda r: r["risk"])
    assert inference["value"] == pytest.approx(worst["risk"])
    # the HTML document shows the three checks and their thresholds
    page = render_html(report)
    assert "singling-out risk = " in page and "linkability risk = " in page
    assert "Maximum singling-out risk" in page and "inference risk on " in page
    assert "单独识别风险" in render_html(report, "zh")
    assert json.loads(json.dumps(report.to_dict()))["gdpr_risks"] == report.gdpr_risks


# --------------------------------------------------------------------------- history


def test_a_recorded_report_with_the_three_risks_is_rebuilt(isolated_history):
    dataset, schema = load_sample("hospital")
    release = load_sample("hospital_release")[0]
    inputs = Inputs(
        original=dataset, schema=schema, release=release.frame, release_name=release.name
    )
    request = ReportRequest(qi=QI, sa=SA, thresholds={"min_k": 3, **GDPR})
    outcome = run(request, inputs, page="report")
    made = outcome.result.recorded(outcome.summary, outcome.run_id)
    assert made.gdpr_risks is not None
    stored = history.get_run(outcome.run_id)
    assert stored["results"]["gdpr_risks"] == made.gdpr_risks
    rebuilt = readiness_from_history(outcome.run_id)
    assert rebuilt.gdpr_risks == made.gdpr_risks
    assert rebuilt.checks == made.checks and rebuilt.conditions == made.conditions
    assert {"singling_out", "linkability", "inference"} <= {c["check"] for c in rebuilt.checks}
    again = report_from_history(outcome.run_id)
    assert again["consistent"] is True and again["gdpr_risks"] == made.gdpr_risks
    for lang in ("en", "zh"):
        note = texts_of(rebuilt, lang).notes[-1]
        page = render_html(rebuilt, lang).replace(f"<li>{note}</li>\n", "")
        assert page == render_html(made, lang)


# --------------------------------------------------------------------------- CLI


def _cli(tmp_path, *extra: str) -> list[str]:
    return [
        "report",
        *("--original", str(HOSPITAL), "--release", str(HOSPITAL_RELEASE)),
        *("--qi", "ZIP,Age", "--sa", "Salary,Disease", "--quiet"),
        *("--out", str(tmp_path / "report.html"), "--min-k", "3"),
        *extra,
    ]


def test_cli_flags(tmp_path, capsys):
    args = _cli(tmp_path, "--max-singling-out", "0.01", "--max-linkability", "0.5", "--json")
    assert main([*args, "--max-inference", "none"]) == 1
    data = json.loads(capsys.readouterr().out)
    thresholds = data["thresholds"]
    assert (thresholds["max_singling_out"], thresholds["max_linkability"]) == (0.01, 0.5)
    assert thresholds["max_inference"] is None
    names = [c["check"] for c in data["checks"]]
    assert "singling_out" in names and "linkability" in names and "inference" not in names
    so = check_of(data["checks"], "singling_out")
    assert so["status"] == "fail" and so["message"].startswith("singling-out risk = ")
    assert data["gdpr_risks"]["singling_out"]["risk"] == so["value"]
    # out of range: one line, exit 2, nothing written
    assert main(_cli(tmp_path, "--max-linkability", "1.5")) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and "max_linkability" in err and "\n" not in err
    with pytest.raises(SystemExit) as info:
        main(_cli(tmp_path, "--max-inference", "abc"))
    assert info.value.code == 2
    assert "--max-singling-out" in _help(capsys)


def _help(capsys) -> str:
    with pytest.raises(SystemExit):
        main(["report", "--help"])
    return capsys.readouterr().out
