"""The defaults a careful reviewer signs: one risk limit for every way of being found,
the Article 29 risks counting by default, and a suppression limit that the report's own
suppression check accepts.

- k = 5 means a prosecutor risk of at most 1/5; the journalist, singling-out,
  linkability and inference limits take the same 1/k unless given (a journalist limit
  of 0.1 beside k = 5 asked for classes of 10 while asking for 5);
- a release whose inference risk is 0.248 (its interval 0.21–0.29) is not ready by
  default: the figure counts, and waiving it takes a word (None);
- the Anonymize page and ``privcore anonymize`` suppress up to 5 % of the rows unless
  told otherwise — the share the report allows — so one outlier does not drag every
  other row to the top of its hierarchy.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from privcore.cli import main
from privcore.report import Thresholds
from privcore.report.checks import evaluate_checks
from privcore.report.readiness import readiness
from privcore.runs import AnonymizeRequest, DpReleaseRequest

ROOT = Path(__file__).resolve().parents[2]
HOSPITAL = ROOT / "assets" / "hospital"
FOLLOWERS = ("max_journalist", "max_singling_out", "max_linkability", "max_inference")


@pytest.mark.parametrize(
    ("given", "k", "limit"),
    [
        ({}, 5, 0.2),  # neither given: k = 5, every risk limit 1/5
        ({"min_k": 10}, 10, 0.1),
        ({"max_prosecutor": 0.25}, 4, 0.25),  # ⌈1/0.25⌉ = 4
        ({"min_k": 3}, 3, 1 / 3),
    ],
)
def test_every_risk_limit_is_the_prosecutor_limit_unless_given(given, k, limit):
    t = Thresholds(**given)
    assert t.min_k == k and t.max_prosecutor == pytest.approx(limit)
    for name in FOLLOWERS:
        assert getattr(t, name) == pytest.approx(limit), name
    assert t.needs_gdpr_risks  # measured and checked by default


def test_a_limit_given_or_waived_is_kept():
    t = Thresholds(max_journalist=0.05, max_inference=None, max_singling_out=0.3)
    assert (t.max_journalist, t.max_inference, t.max_singling_out) == (0.05, None, 0.3)
    assert t.max_linkability == pytest.approx(0.2)
    waived = Thresholds(**dict.fromkeys(FOLLOWERS[1:]))
    assert not waived.needs_gdpr_risks
    # what a report stores comes back as it was
    assert Thresholds.from_dict(t.to_dict()) == t
    assert Thresholds.from_dict(Thresholds().to_dict()) == Thresholds()


def test_the_default_suppression_limit_is_the_share_the_report_accepts():
    assert AnonymizeRequest().max_suppression == Thresholds().max_suppressed_share == 0.05
    assert DpReleaseRequest(sa=("d",)).max_suppression == 0.05


@pytest.fixture(scope="module")
def hospital_report():
    original = pd.read_csv(HOSPITAL / "hospital.csv")
    release = pd.read_csv(HOSPITAL / "hospital_release.csv")
    report = readiness(
        original, release, qi=["ZIP", "Age"], sa=["Disease"], thresholds={"min_k": 3}, seed=1
    )
    return report


def _risk(value: float, low: float, high: float) -> dict:
    return {"risk": value, "ci": [low, high], "confidence": 0.95, "baseline": 0.1}


def test_an_inference_risk_above_1_over_k_fails_by_default(hospital_report):
    r = hospital_report
    figures = {
        "singling_out": _risk(0.0, 0.0, 0.05),
        "linkability": _risk(0.0, 0.0, 0.05),
        "inference": {"Disease": _risk(0.248, 0.21, 0.29)},
    }
    checks, reasons, _, verdict = evaluate_checks(
        r.measurement, r.attacks, r.findings, Thresholds(min_k=3), gdpr_risks=figures
    )
    inference = next(c for c in checks if c["check"] == "inference")
    # 0.248 > 1/3? no: with k = 3 the limit is 0.333 and the interval 0.21–0.29 lies below
    assert inference["status"] == "pass" and inference["threshold"] == pytest.approx(1 / 3)
    checks, reasons, _, verdict = evaluate_checks(
        r.measurement, r.attacks, r.findings, Thresholds(min_k=5), gdpr_risks=figures
    )
    inference = next(c for c in checks if c["check"] == "inference")
    # with k = 5 the limit is 0.2: 0.248 > 0.2 fails, naming the attribute
    assert (inference["status"], inference["attribute"]) == ("fail", "Disease")
    assert verdict == "not_ready" and "inference" in {x["check"] for x in reasons}
    # waived in words, the same figure no longer decides
    checks, reasons, _, _ = evaluate_checks(
        r.measurement,
        r.attacks,
        r.findings,
        Thresholds(min_k=5, max_inference=None),
        gdpr_risks=figures,
    )
    assert "inference" not in {c["check"] for c in checks}


def test_the_default_report_checks_the_three_risks(hospital_report):
    names = {c["check"] for c in hospital_report.checks}
    assert {"singling_out", "linkability", "inference"} <= names
    assert hospital_report.thresholds.max_inference == pytest.approx(1 / 3)
    for check in hospital_report.checks:
        if check["check"] in ("singling_out", "linkability", "inference"):
            # measured (a figure and its interval) or, if it could not be, a warning that says so
            assert check["status"] in ("pass", "warn", "fail")
            if check["value"] is None:
                assert check["status"] == "warn"


def test_anonymize_without_a_limit_suppresses_one_outlier_instead_of_generalizing_all(
    tmp_path, capsys
):
    """Nineteen ages in 30–39 and one of 95, k = 2: with no suppression every age must
    reach the hierarchy's top (*), since 95 shares no interval below it with anyone; the
    default 5 % (1 row of 20) suppresses that row and keeps decades."""
    ages = [30, 31, 31, 32, 33, 33, 34, 35, 35, 36, 36, 37, 37, 38, 38, 39, 39, 30, 32, 95]
    table = tmp_path / "people.csv"
    pd.DataFrame({"age": ages, "disease": list("ab" * 10)}).to_csv(table, index=False)
    hierarchy = tmp_path / "age.csv"
    rows = [f"{a};{a // 10 * 10}-{a // 10 * 10 + 9};*" for a in sorted(set(ages))]
    hierarchy.write_text("\n".join(rows) + "\n", encoding="utf-8")

    def run(*extra):
        out = tmp_path / "release.csv"
        code = main(
            [
                "anonymize",
                str(table),
                "--qi",
                "age",
                "--sa",
                "disease",
                "--algorithm",
                "optimal",
                "--k",
                "2",
                "--hierarchy",
                f"age={hierarchy}",
                "--keep-order",
                "--out",
                str(out),
                "--json",
                *extra,
            ]
        )
        assert code == 0
        report = json.loads(capsys.readouterr().out)
        return report, pd.read_csv(out, dtype=str)

    report, release = run()
    assert report["suppressed_rows"] == 1 and report["node"] == {"age": 1}
    assert release["age"].iloc[0] == "30-39" and release["age"].iloc[-1] == "*"
    report, release = run("--max-suppression", "0")
    assert report["suppressed_rows"] == 0 and report["node"] == {"age": 2}
    assert set(release["age"]) == {"*"}


def test_a_release_name_states_its_suppression_limit_only_when_not_the_default():
    from types import SimpleNamespace

    from ui.common.workspace import default_name

    def named(suppression):
        params = {"constraints": [{"k": 5}, {"l": 2}], "max_suppression": suppression}
        return default_name(SimpleNamespace(algorithm="datafly", params=params), "14:32")

    assert named(0.05) == "Datafly k=5 l=2 · 14:32"
    assert named(0.0) == "Datafly k=5 l=2 sup=0% · 14:32"
    assert named(0.1) == "Datafly k=5 l=2 sup=10% · 14:32"


def test_a_journalist_risk_at_the_prosecutor_limit_is_no_warning(hospital_report):
    """k = 5 and nobody else in the population like the smallest class: journalist risk
    1/5, the default limit 1/5, which k-anonymity guarantees — a pass, not a "near the
    limit" condition. Under a limit stricter than the prosecutor limit (0.22 < 1/4 with
    k = 4) the same 0.2 ≥ 0.8 × 0.22 = 0.176 is near it: a warning."""
    r = hospital_report
    attacks = {**r.attacks, "risk": {**(r.attacks.get("risk") or {}), "journalist_max": 0.2}}
    measurement = {**r.measurement, "k": 5}

    def journalist(thresholds):
        checks, _, conditions, _ = evaluate_checks(measurement, attacks, r.findings, thresholds)
        check = next(c for c in checks if c["check"] == "journalist")
        near = [c for c in conditions if c["params"].get("check") == "journalist"]
        return check["status"], check["threshold"], near

    status, limit, near = journalist(Thresholds())
    assert (status, limit, near) == ("pass", pytest.approx(0.2), [])
    status, limit, near = journalist(Thresholds(min_k=4, max_journalist=0.22))
    assert (status, limit) == ("warn", 0.22)
    assert [c["condition"] for c in near] == ["near_limit"]
