"""The command line's ``--record``: measure, anonymize, attack and audit runs land in the
history like the pages' runs (same kinds, the request's ``to_dict()`` as parameters plus
the names of the files read, page ``cli``, a fingerprint of the data and never its
rows), nothing is written without it, and a broken history costs one warning on stderr,
never the result or the exit code."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from privcore import history
from privcore.cli import main
from privcore.data import load
from privcore.runs import AnonymizeRequest, AttackRequest, AuditRequest, MeasureRequest

ROOT = Path(__file__).resolve().parents[2]
HOSPITAL = ROOT / "assets" / "hospital"
ORIGINAL = HOSPITAL / "hospital.csv"
RELEASE = HOSPITAL / "hospital_release.csv"
# the sensitive values of the 9-patient table: none may reach the history
DISEASES = sorted(set(pd.read_csv(ORIGINAL)["Disease"]))


def _samples_file(folder: Path) -> Path:
    """Logged (input, output) rows of a randomized response over 3 values (small)."""
    rng = np.random.default_rng(0)
    x = rng.integers(0, 3, 6_000)
    y = np.where(rng.random(6_000) < 0.6, x, rng.integers(0, 3, 6_000))
    path = folder / "log.csv"
    pd.DataFrame({"input": x, "out": y}).to_csv(path, index=False)
    return path


def _command(name: str, folder: Path) -> list[str]:
    tables = ["--original", str(ORIGINAL), "--release", str(RELEASE)]
    roles = ["--qi", "ZIP,Age", "--sa", "Disease"]
    if name == "measure":
        return ["measure", *tables, *roles, "--k", "3"]
    if name == "anonymize":
        return [
            "anonymize",
            str(ORIGINAL),
            *roles,
            "--hierarchy",
            f"ZIP={HOSPITAL / 'hospital_hierarchy_ZIP.csv'}",
            "--hierarchy",
            f"Age={HOSPITAL / 'hospital_hierarchy_Age.csv'}",
            "--algorithm",
            "datafly",
            "--k",
            "3",
            "--out",
            str(folder / "release.csv"),
            "--quiet",
        ]
    if name == "attack":
        return ["attack", *tables, *roles, "--roll-size", "200", "--seed", "4", "--quiet"]
    if name == "audit":
        mechanism = ["--mechanism", "grr", "--epsilon", "1", "--domain", "4"]
        return ["audit", *mechanism, "--samples", "4000", "--method", "ob", "--quiet"]
    if name == "audit_samples":
        return [
            "audit",
            "--samples-file",
            str(_samples_file(folder)),
            "--input-col",
            "input",
            "--output-col",
            "out",
            "--claimed-epsilon",
            "5",
            "--method",
            "ob",
            "--quiet",
        ]
    raise AssertionError(name)


COMMANDS = ("measure", "anonymize", "attack", "audit", "audit_samples")
KIND = {name: name.split("_")[0] for name in COMMANDS}


def _run_json(capsys, args: list[str]) -> tuple[int, dict, str]:
    code = main([*args, "--json"])
    captured = capsys.readouterr()
    return code, json.loads(captured.out), captured.err


def _only_run(kind: str) -> dict:
    runs = history.list_runs()
    assert len(runs) == 1, runs
    run = history.get_run(runs[0]["id"])
    assert run["kind"] == kind and run["page"] == "cli"
    assert run["duration_s"] is not None and run["duration_s"] > 0
    assert run["data"] is None and run["owner"] is None
    return run


def _assert_params(run: dict, request, **names) -> None:
    """The run's parameters are the request's, plus the names of what it read."""
    assert run["params"] == {**request.to_dict(), **names}


def _assert_hospital_fingerprint(run: dict) -> None:
    expected = load(ORIGINAL).summary()
    assert run["dataset_name"] == "hospital.csv"
    assert run["dataset_sha256"] == expected["sha256"] and len(run["dataset_sha256"]) == 64
    assert (run["dataset_rows"], run["dataset_columns"]) == (9, 4)
    stored = history.to_json(run)
    assert not [d for d in DISEASES if d in stored], "a sensitive value reached the history"


def test_measure_records_one_run_with_the_privacy_level_pages_summary(tmp_path, capsys):
    code, out, err = _run_json(capsys, [*_command("measure", tmp_path), "--record"])
    assert code == 0 and err == ""
    run = _only_run("measure")
    assert run["status"] == "ok" and run["error"] is None
    _assert_hospital_fingerprint(run)
    params = run["params"]
    assert params["qi"] == ["ZIP", "Age"] and params["sa"] == ["Disease"]
    assert params["release"] == "hospital_release.csv" and params["k"] == 3
    assert params["release_sha256"] == load(RELEASE).fingerprint.sha256
    request = MeasureRequest(qi=("ZIP", "Age"), sa=("Disease",), k=3)
    files = {"release": "hospital_release.csv", "hierarchy_files": {}}
    _assert_params(run, request, **files, release_sha256=params["release_sha256"])
    # the figures the page keeps too (ReleaseMeasurement.history_summary)
    assert set(run["results"]) == {
        *("k", "classes", "rows", "suppressed_rows", "real_records", "l_distinct", "l_entropy"),
        *("t_closeness", "pl", "dr", "ul", "satisfied", "risk", "loss"),
    }
    assert run["results"]["k"] == out["k"] == 3
    assert run["results"]["pl"] == out["pl"]


def test_anonymize_records_one_run_with_the_anonymize_pages_keys(tmp_path, capsys):
    code, out, err = _run_json(capsys, [*_command("anonymize", tmp_path), "--record"])
    assert code == 0 and err == ""
    run = _only_run("anonymize")
    _assert_hospital_fingerprint(run)
    params = run["params"]
    for key in ("algorithm", "k", "l", "l_kind", "c", "t", "t_distance", "max_suppression"):
        assert key in params
    assert (params["algorithm"], params["k"], params["seed"]) == ("datafly", 3, 0)
    request = AnonymizeRequest(algorithm="datafly", qi=("ZIP", "Age"), sa=("Disease",), k=3)
    _assert_params(
        run,
        request,
        hierarchies=["Age", "ZIP"],
        hierarchy_files={"ZIP": "hospital_hierarchy_ZIP.csv", "Age": "hospital_hierarchy_Age.csv"},
        identifiers=[],
        keep_order=False,
        out="release.csv",
    )
    results = run["results"]
    assert set(results) == {
        "k",
        "classes",
        "suppressed_rows",
        "real_records",
        "seconds",
        "loss",
        "pl",
        "ul",
        "node",
        "satisfied",
    }
    assert results["k"] == out["k"] >= 3
    assert results["node"] == out["node"] == {"ZIP": 1, "Age": 2}
    assert results["loss"] == out["loss"]
    # the release itself is in the file, not in the history
    released = pd.read_csv(tmp_path / "release.csv", dtype=str)
    assert not [z for z in set(released["ZIP"]) if z in history.to_json(run)]


def test_attack_records_one_run_like_the_attack_pages_linkage_run(tmp_path, capsys):
    code, out, err = _run_json(capsys, [*_command("attack", tmp_path), "--record"])
    assert code == 0 and err == ""
    run = _only_run("attack")
    _assert_hospital_fingerprint(run)
    request = AttackRequest(qi=("ZIP", "Age"), sa=("Disease",), roll_size=200, seed=4)
    _assert_params(
        run,
        request,
        release="hospital_release.csv",
        release_sha256=load(RELEASE).fingerprint.sha256,
        hierarchy_files={},
    )
    assert run["results"]["roll"] == out["roll"] and out["roll"]["size"] == 200
    assert run["results"]["linkage"] == out["linkage"]
    assert (
        run["results"]["before"]["linkage"]["reidentified"]
        == (out["before"]["linkage"]["reidentified"])
    )


def test_audit_of_a_mechanism_records_one_run_per_method_like_the_ldp_page(tmp_path, capsys):
    code, out, err = _run_json(capsys, [*_command("audit", tmp_path), "--record"])
    assert code == 0 and err == ""
    run = _only_run("audit")
    assert run["dataset_name"] is None and run["dataset_sha256"] is None  # reads no table
    _assert_params(run, AuditRequest(mechanism="grr", epsilon=1, domain=4, samples=4000))
    assert run["params"]["methods"] == ["ob"] and run["params"]["density"] == "kde"
    assert run["results"]["ob"]["epsilon_hat"] == out["epsilon_hat"]
    assert run["results"]["ob"]["ci"] == out["ci"]
    assert run["results"]["ob"]["verdict"] == out["verdict"]


def test_audit_of_a_samples_file_records_its_fingerprint_not_its_rows(tmp_path, capsys):
    code, out, err = _run_json(capsys, [*_command("audit_samples", tmp_path), "--record"])
    assert code == 0 and err == ""
    run = _only_run("audit")
    samples = load(tmp_path / "log.csv")
    assert run["dataset_name"] == "log.csv"
    assert run["dataset_sha256"] == samples.fingerprint.sha256
    assert (run["dataset_rows"], run["dataset_columns"]) == (6_000, 2)
    request = AuditRequest(epsilon=5, methods=("ob",), input_column="input", output_columns=["out"])
    _assert_params(run, request, samples_file="log.csv")
    assert run["results"]["epsilon_hat"] == out["epsilon_hat"]
    assert run["results"]["verdict"] == out["verdict"]
    # a summary, not the 6,000 logged rows
    assert len(history.to_json(run)) < 5_000 < len((tmp_path / "log.csv").read_text())


@pytest.mark.parametrize("name", COMMANDS)
def test_without_record_nothing_is_written(name, tmp_path, capsys, isolated_history):
    assert main(_command(name, tmp_path)) == 0
    assert "history run" not in capsys.readouterr().out
    assert not isolated_history.exists()
    assert history.list_runs() == []


def test_the_readable_output_names_the_recorded_run(tmp_path, capsys):
    for number, name in enumerate(("measure", "attack"), start=1):
        assert main([*_command(name, tmp_path), "--record"]) == 0
        assert capsys.readouterr().out.strip().splitlines()[-1] == f"history run: #{number}"
    assert [r["kind"] for r in history.list_runs()] == ["attack", "measure"]


@pytest.mark.parametrize("broken", ["corrupt", "unwritable"])
@pytest.mark.parametrize("name", COMMANDS)
def test_a_broken_history_costs_a_warning_not_the_result(
    name, broken, tmp_path, capsys, monkeypatch
):
    code, expected, _ = _run_json(capsys, _command(name, tmp_path))
    assert code == 0
    if broken == "corrupt":
        target = tmp_path / "history.db"
        target.write_bytes(b"this is not a SQLite database\n" * 40)
    else:  # a folder where the database file should be: it cannot be created
        target = tmp_path / "a-folder"
        target.mkdir()
        monkeypatch.setenv("PRIVCORE_HISTORY", str(target))
    before = target.read_bytes() if target.is_file() else None
    code, out, err = _run_json(capsys, [*_command(name, tmp_path), "--record"])
    assert code == 0
    assert set(out) == set(expected)
    for key in ("k", "linkage", "verdict"):  # the same result (seconds vary)
        if key in expected:
            assert out[key] == expected[key]
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("warning: run not recorded in the history")
    assert ("damaged" if broken == "corrupt" else "cannot be created") in lines[0]
    if before is not None:
        assert target.read_bytes() == before
    # the readable output too, without a run number
    assert main([*_command(name, tmp_path), "--record"]) == 0
    captured = capsys.readouterr()
    assert "history run" not in captured.out
    assert captured.err.count("warning: run not recorded") == 1


def test_failed_runs_are_recorded_as_errors_like_the_pages(tmp_path, capsys):
    infeasible = [
        "anonymize",
        str(ORIGINAL),
        "--qi",
        "ZIP,Age",
        "--sa",
        "Disease",
        "--algorithm",
        "mondrian",
        "--k",
        "20",
        "--out",
        str(tmp_path / "r.csv"),
        "--quiet",
        "--record",
    ]
    assert main(infeasible) == 2
    assert "larger than the table" in capsys.readouterr().err
    run = _only_run("anonymize")
    # the error's code and its numbers, never its message (which may quote the data)
    assert run["status"] == "error" and run["error"] == "anonymize.k_too_large"
    assert run["results"] == {
        "error": {"code": "anonymize.k_too_large", "params": {"k": 20, "rows": 9}}
    }
    assert run["params"]["k"] == 20
    _assert_hospital_fingerprint(run)
    assert main(["audit", "--mechanism", "grr", "--epsilon", "-1", "--quiet", "--record"]) == 2
    capsys.readouterr()
    audit = history.list_runs(kind="audit")
    assert len(audit) == 1 and audit[0]["status"] == "error" and audit[0]["error"]
    assert audit[0]["error"] == "parameter.invalid"  # refused by the request, before any work
    # options missing: nothing ran, nothing is recorded
    assert main(["audit", "--samples-file", str(ORIGINAL), "--quiet", "--record"]) == 2
    assert len(history.list_runs()) == 2
