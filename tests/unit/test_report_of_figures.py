"""A readiness report assembled from its figures (privcore.report.readiness.report_of_figures):
the one assembly that ``readiness`` and a report rebuilt from the history share."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from privcore.data import load
from privcore.report import readiness
from privcore.report.readiness import report_of_figures

ROOT = Path(__file__).resolve().parents[2]
HOSPITAL = ROOT / "assets" / "hospital"
QI, SA = ["ZIP", "Age"], ["Salary", "Disease"]
#: The Article 29 risks waived: on 9 rows their intervals are too wide to pass a limit.
WITHOUT_ARTICLE29 = {"max_singling_out": None, "max_linkability": None, "max_inference": None}


@pytest.fixture(scope="module")
def report():
    original = load(HOSPITAL / "hospital.csv").frame
    release = load(HOSPITAL / "hospital_release.csv").frame
    return readiness(original, release, qi=QI, sa=SA, thresholds=WITHOUT_ARTICLE29, gdpr=False)


def _again(report, **options):
    return report_of_figures(
        report.measurement,
        report.attacks,
        report.findings,
        report.thresholds,
        roles=report.roles,
        algorithm=report.algorithm,
        gdpr_risks=report.gdpr_risks,
        fingerprint=report.fingerprint,
        release_fingerprint=report.release_fingerprint,
        **options,
    )


def test_the_figures_of_a_report_give_the_same_report(report):
    again = _again(report, created=report.created)
    assert again.to_dict() == report.to_dict()


def test_the_checks_are_evaluated_on_the_figures(report):
    # the hospital release has 3 classes of 3 rows: k = 3 < 5, prosecutor risk 1/3 > 0.2
    again = _again(report, created="2026-01-01T00:00:00+00:00")
    assert again.verdict == "not_ready"
    failed = {r["check"]: r for r in again.reasons}
    assert failed["k"]["value"] == 3 and failed["k"]["threshold"] == 5
    assert failed["k"]["action"] == {"action": "anonymize", "k": 5}
    assert failed["prosecutor"]["value"] == pytest.approx(1 / 3)
    assert again.created == "2026-01-01T00:00:00+00:00"


def test_notes_given_follow_the_notes_of_the_figures_and_the_time_defaults_to_now(report):
    extra = {"note": "rebuilt", "params": {"run": 7}}
    before = dt.datetime.now(dt.UTC).replace(microsecond=0)
    again = _again(report, notes=[extra], run_ids=[3, 4, 5])
    after = dt.datetime.now(dt.UTC)
    assert again.notes == [*report.notes, extra]
    assert again.run_ids == [3, 4, 5]
    created = dt.datetime.fromisoformat(again.created)
    assert created.utcoffset() == dt.timedelta(0) and created.microsecond == 0
    assert before <= created <= after
