"""The report's check of the records rebuilt from the tables published beside a release:
its figures are the reconstruction attack's own, judged against the limit, in words."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from privcore.attacks.reconstruction.published import ReleaseInput, attack_table
from privcore.cli import main
from privcore.errors import ParameterError
from privcore.report import Thresholds, readiness
from privcore.report.checks import evaluate_checks
from privcore.words.catalog import check_sentence


def _people(n: int = 60, seed: int = 3) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    original = pd.DataFrame(
        {
            "age": rng.integers(20, 60, n),
            "sex": rng.choice(["F", "M"], n),
            "disease": rng.choice(["flu", "cold", "none"], n),
        }
    )
    decade = original["age"] // 10 * 10
    release = original.assign(age=decade.astype(str) + "-" + (decade + 9).astype(str))
    return original, release


def _check(report) -> dict:
    return next(c for c in report.checks if c["check"] == "reconstructed_share")


def test_the_limit_is_not_required_by_default_and_is_a_share():
    assert Thresholds().max_reconstructed_share is None
    assert Thresholds(max_reconstructed_share=0.1).max_reconstructed_share == 0.1
    with pytest.raises(ParameterError):
        Thresholds(max_reconstructed_share=1.5)


def test_the_check_holds_the_attacks_own_figures_and_fails_above_the_limit():
    original, release = _people()
    report = readiness(
        original,
        release,
        qi=["age", "sex"],
        sa=["disease"],
        thresholds={"max_reconstructed_share": 0.05},
        aligned=True,
    )
    check = _check(report)
    # the same attack run directly: the tables suggested from the roles (age × disease,
    # sex × disease, age × sex: 40 × 3 × 2 = 240 record types) and the release's cells
    tables = [("age", "disease"), ("sex", "disease"), ("age", "sex")]
    direct = attack_table(
        original, tables, max_solutions=1, certain=False, release=ReleaseInput(release)
    ).summary()
    assert check["detail"]["tables"] == [list(t) for t in tables]
    assert check["value"] == pytest.approx(direct["exact_share"])
    assert check["detail"]["release_cells"] == direct["release_cells"] > 0
    assert check["detail"]["reidentified"] == direct["reidentified"]
    assert check["status"] == "fail" and report.verdict == "not_ready"
    assert report.findings["reconstruction"]["measured"] is True
    # the release's cells add to the tables: fewer tables fit them, so at least as many
    # records are certain (in every table that fits) with them as without
    sure = attack_table(original, tables, max_solutions=1, release=ReleaseInput(release))
    without = attack_table(original, tables, max_solutions=1).summary()
    assert without["certain"] < sure.summary()["certain"]
    # words in both languages, with the tables read
    english = check_sentence(check, "en")
    assert "age×disease" in english and "re-identified" in english
    assert "age×disease" in check_sentence(check, "zh")


def test_a_perturbed_release_is_attacked_on_its_tables_alone():
    original, _ = _people()
    report = readiness(
        original,
        original.assign(age=original["age"] + 0.5),  # noise: no cell covers the truth
        qi=["age", "sex"],
        sa=["disease"],
        thresholds={"max_reconstructed_share": 1.0},
        aligned=True,
        release_kind="perturbed",
    )
    figures = report.findings["reconstruction"]
    assert figures["release_read"] is False and figures["release_cells"] == 0
    assert _check(report)["status"] == "pass"


def test_not_measured_and_out_of_time_are_warnings_with_words():
    thresholds = Thresholds(max_reconstructed_share=0.1)
    measurement = {"k": 5, "rows": 10, "suppressed_rows": 0, "sa": []}
    attacks = {"linkage": {"targets": 10, "reidentified": 0}}
    figures = {"measured": False, "note": {"error": "reconstruction.too_many_types"}}
    checks, reasons, conditions, _ = evaluate_checks(
        measurement, attacks, {"reconstruction": figures}, thresholds
    )
    check = next(c for c in checks if c["check"] == "reconstructed_share")
    assert check["status"] == "warn" and check["value"] is None
    assert {"condition": "not_measured", "params": {"check": "reconstructed_share",
            "attribute": None}} in conditions  # fmt: skip
    assert "not measured" in check_sentence(check, "en")
    timed = {
        "measured": True,
        "exact_share": 0.02,
        "within_tolerance_share": 0.03,
        "tables": [["age", "sex"]],
        "release_cells": 0,
        "reidentified": None,
        "people": 10,
        "timed_out": True,
    }
    checks, reasons, _, _ = evaluate_checks(
        measurement, attacks, {"reconstruction": timed}, thresholds
    )
    check = next(c for c in checks if c["check"] == "reconstructed_share")
    assert check["status"] == "warn" and not any(
        r["check"] == "reconstructed_share" for r in reasons
    )
    assert "time ran out" in check_sentence(check, "en")


def test_the_command_line_checks_it_when_asked(tmp_path, capsys):
    original, release = _people(40)
    original.to_csv(tmp_path / "o.csv", index=False)
    release.to_csv(tmp_path / "r.csv", index=False)
    argv = ["report", "--original", str(tmp_path / "o.csv"), "--release", str(tmp_path / "r.csv"),
            "--qi", "age,sex", "--sa", "disease", "--out", str(tmp_path / "r.html"),
            "--json"]  # fmt: skip
    main([*argv, "--max-reconstructed", "0.05"])
    payload = json.loads(capsys.readouterr().out)
    (check,) = [c for c in payload["checks"] if c["check"] == "reconstructed_share"]
    assert check["threshold"] == 0.05 and check["detail"]["kind"] == "reconstruction"
    main(argv)
    payload = json.loads(capsys.readouterr().out)
    assert not any(c["check"] == "reconstructed_share" for c in payload["checks"])
    assert "reconstruction" not in payload["findings"]


def test_the_tables_published_with_the_release_are_the_ones_rebuilt_from():
    """``published_tables`` (the context's): the attack reads those tables, not the
    suggested ones, and runs without a limit (no check: the figures are findings); a
    column the original lacks is refused before any work."""
    original, release = _people()
    tables = [["age", "sex"], ["sex", "disease"]]
    report = readiness(
        original,
        release,
        qi=["age", "sex"],
        sa=["disease"],
        aligned=True,
        published_tables=tables,
    )
    found = report.findings["reconstruction"]
    direct = attack_table(
        original, tables, max_solutions=1, certain=False, release=ReleaseInput(release)
    ).summary()
    assert found["tables"] == tables and found["tables_given"] is True
    assert found["exact_share"] == pytest.approx(direct["exact_share"])
    assert not any(c["check"] == "reconstructed_share" for c in report.checks)
    with pytest.raises(ParameterError) as caught:
        readiness(original, release, qi=["age"], sa=["disease"], published_tables=[["zip"]])
    assert caught.value.code == "report.published_tables_columns"
