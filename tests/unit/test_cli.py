"""The command line: profile and history, exit codes and JSON keys."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from privcore import history
from privcore.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_profile_json(capsys, adult_path):
    assert main(["profile", str(adult_path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["rows"], out["columns"], out["delimiter"]) == (30162, 9, ";")
    by_column = {c["column"]: c for c in out["profile"]}
    assert by_column["age"]["suggested_role"] == "quasi_identifier"
    assert by_column["age"]["distinct"] == 72
    assert len(out["sha256"]) == 64


def test_bad_input_exits_2_with_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2,3\n")
    assert main(["profile", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: Line 2 has 3 fields") and "\n" not in err


def test_history_list_and_show(capsys):
    run_id = history.record_run("profile", params={"x": 1}, results={"rows": 3})
    assert main(["history", "list", "--json"]) == 0
    runs = json.loads(capsys.readouterr().out)["runs"]
    assert [r["id"] for r in runs] == [run_id]
    assert main(["history", "show", str(run_id)]) == 0
    assert json.loads(capsys.readouterr().out)["results"] == {"rows": 3}
    assert main(["history", "show", "999"]) == 2


def test_history_list_reports_lost_and_waiting_runs(capsys, isolated_history):
    import os
    import time

    history.record_run("profile")
    isolated_history.write_bytes(b"")  # truncated by another program
    old = time.time() - 60
    os.utime(isolated_history, (old, old))
    waiting = history._pending_dir(isolated_history)
    waiting.mkdir()
    (waiting / "x.json").write_text("{}")
    assert main(["history", "list", "--json"]) == 0
    captured = capsys.readouterr()
    payload = json.loads(captured.out)
    assert payload["runs"] == [] and payload["pending_runs"] == 1
    assert payload["lost_history_files"][0].endswith(
        ".empty-" + payload["lost_history_files"][0].split(".empty-")[1]
    )
    assert "were lost" in captured.err and "wait to be added" in captured.err


def test_python_dash_m_entry_point(adult_path):
    proc = subprocess.run(
        [sys.executable, "-m", "privcore", "profile", str(adult_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "30,162 rows" in proc.stdout
    proc = subprocess.run(
        [sys.executable, "-m", "privcore", "nope"], cwd=ROOT, capture_output=True, text=True
    )
    assert proc.returncode == 2


def test_anonymize_command_writes_release_and_report(tmp_path, capsys):
    hospital = ROOT / "assets" / "hospital"
    out, report = tmp_path / "release.csv", tmp_path / "report.json"
    code = main(
        [
            "anonymize",
            str(hospital / "hospital.csv"),
            "--qi",
            "ZIP,Age",
            "--sa",
            "Disease",
            "--hierarchy",
            f"ZIP={hospital / 'hospital_hierarchy_ZIP.csv'}",
            "--hierarchy",
            f"Age={hospital / 'hospital_hierarchy_Age.csv'}",
            "--algorithm",
            "datafly",
            "--k",
            "3",
            "--out",
            str(out),
            "--report",
            str(report),
            "--quiet",
        ]
    )
    assert code == 0
    data = json.loads(report.read_text())
    for key in ("k", "suppressed_rows", "seconds", "loss", "pl", "ul", "node"):
        assert key in data
    assert data["k"] >= 3 and data["node"] == {"ZIP": 1, "Age": 2}
    import pandas as pd

    released = pd.read_csv(out, dtype=str)
    assert len(released) == 9
    assert set(released["ZIP"]) == {"4767*", "4760*", "4790*"}


def test_anonymize_command_infeasible_exits_2(tmp_path, capsys):
    hospital = ROOT / "assets" / "hospital"
    code = main(
        [
            "anonymize",
            str(hospital / "hospital.csv"),
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
        ]
    )
    assert code == 2
    assert "larger than the table" in capsys.readouterr().err


def test_audit_command_json(capsys):
    assert (
        main(
            [
                "audit",
                "--mechanism",
                "broken_grr",
                "--epsilon",
                "1",
                "--domain",
                "10",
                "--samples",
                "100000",
                "--method",
                "lb",
                "--json",
                "--quiet",
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    for key in ("epsilon_lb", "verdict", "device", "seconds"):
        assert key in out
    assert out["verdict"] == "violation" and out["epsilon_lb"] > 1
    assert (
        main(
            [
                "audit",
                "--mechanism",
                "grr",
                "--epsilon",
                "1",
                "--domain",
                "10",
                "--method",
                "ab",
                "--json",
                "--quiet",
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert len(out["ci"]) == 2 and out["ci"][0] <= 1.0 <= out["ci"][1]


def test_audit_command_on_a_samples_file(tmp_path, capsys):
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    x = rng.integers(0, 3, 30_000)
    y = np.where(rng.random(30_000) < 0.6, x, rng.integers(0, 3, 30_000))
    path = tmp_path / "log.csv"
    pd.DataFrame({"input": x, "out": y}).to_csv(path, index=False)
    assert (
        main(
            [
                "audit",
                "--samples-file",
                str(path),
                "--input-col",
                "input",
                "--output-col",
                "out",
                "--claimed-epsilon",
                "5",
                "--method",
                "ob",
                "--json",
                "--quiet",
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["epsilon_hat"] is not None and out["mechanism"]["mechanism"] == "uploaded samples"
    assert main(["audit", "--mechanism", "grr", "--epsilon", "-1", "--quiet"]) == 2
    assert main(["audit", "--samples-file", str(path), "--input-col", "input", "--quiet"]) == 2


def test_measure_reports_t_with_the_distance_asked_for_even_without_a_threshold(capsys):
    hospital = ROOT / "assets" / "hospital"
    base = [
        "measure",
        "--original",
        str(hospital / "hospital.csv"),
        "--release",
        str(hospital / "hospital_release.csv"),
        "--qi",
        "ZIP,Age",
        "--sa",
        "Disease",
        "--json",
    ]
    shown = {}
    for distance in ("equal", "kl", "ordered"):
        assert main([*base, "--t-distance", distance]) == 0
        shown[distance] = json.loads(capsys.readouterr().out)["t_closeness"]["Disease"]
        assert shown[distance]["distance"] == distance
    assert shown["kl"]["t"] != shown["equal"]["t"]
    # with a threshold the model's distance is the one reported, as before
    assert main([*base, "--t-distance", "kl", "--t", "0.9"]) == 0
    assert json.loads(capsys.readouterr().out)["t_closeness"]["Disease"] == shown["kl"]


def test_anonymize_removes_suggested_identifiers_unless_told_otherwise(tmp_path, capsys):
    import pandas as pd

    table = tmp_path / "named.csv"
    table.write_text(
        "name,ZIP,Age,Disease\nAlice Smith,47677,29,flu\nBob Jones,47602,22,cold\n"
        "Carl Wu,47678,27,flu\nDana Li,47905,43,cold\nEve Ng,47909,52,flu\n"
        "Fay Ho,47906,47,cold\n"
    )
    common = ["anonymize", str(table), "--qi", "ZIP,Age", "--sa", "Disease"]
    common += ["--algorithm", "mondrian", "--k", "2", "--quiet"]
    out = tmp_path / "release.csv"
    assert main([*common, "--out", str(out)]) == 0
    assert "removed identifier column 'name'" in capsys.readouterr().err
    assert "name" not in pd.read_csv(out).columns
    kept = tmp_path / "kept.csv"
    assert main([*common, "--out", str(kept), "--identifiers", ""]) == 0
    assert "removed identifier" not in capsys.readouterr().err
    assert "name" in pd.read_csv(kept).columns


def test_attack_command_json_contract(capsys):
    hospital = ROOT / "assets" / "hospital"
    args = ["attack", "--original", str(hospital / "hospital.csv")]
    args += ["--release", str(hospital / "hospital_release.csv"), "--qi", "ZIP,Age"]
    args += ["--sa", "Disease", "--roll-size", "200", "--seed", "4", "--json", "--quiet"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("targets", "unique_matches", "reidentified", "attribute_disclosed"):
        assert key in out["linkage"] and key in out["before"]["linkage"]
    assert set(out["homogeneity"]) >= {"classes_exposed", "records_exposed"}
    assert set(out["risk"]) >= {"prosecutor_max", "journalist_max", "marketer"}
    assert out["linkage"]["targets"] == out["before"]["linkage"]["targets"] == 9
    # the 3-anonymous, 3-diverse release: nobody singled out by the release alone, no
    # homogeneous class, and far fewer re-identifications than on the raw table
    assert out["risk"]["prosecutor_max"] == pytest.approx(1 / 3)
    assert out["homogeneity"]["classes_exposed"] == 0
    assert out["linkage"]["reidentified"] < out["before"]["linkage"]["reidentified"]


def test_audit_command_ob_and_the_vector_sample_forms(tmp_path, capsys):
    import numpy as np
    import pandas as pd

    base = ["audit", "--mechanism", "sue", "--epsilon", "1", "--domain", "4"]
    assert main([*base, "--samples", "20000", "--method", "ob", "--json", "--quiet"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {"epsilon_hat", "ci", "verdict", "device", "seconds"} <= set(out)
    assert out["ci"][0] <= out["epsilon_hat"] <= out["ci"][1]
    # logged unary-encoding reports: one column per bit, sharing the prefix "bit"
    rng = np.random.default_rng(1)
    n, d, p, q = 8_000, 4, np.e**0.5 / (np.e**0.5 + 1), 1 / (np.e**0.5 + 1)
    x = rng.integers(0, d, n)
    bits = np.where(np.eye(d, dtype=bool)[x], rng.random((n, d)) < p, rng.random((n, d)) < q)
    frame = pd.DataFrame({"x": x, **{f"bit{i}": bits[:, i].astype(int) for i in range(d)}})
    path = tmp_path / "ue.csv"
    frame.to_csv(path, index=False)
    files = ["audit", "--samples-file", str(path), "--input-col", "x", "--output-prefix", "bit"]
    files += ["--claimed-epsilon", "1", "--json"]
    assert main([*files, "--method", "ob"]) == 0
    ob = json.loads(capsys.readouterr().out)
    assert ob["mechanism"]["outputs"] == ["bit0", "bit1", "bit2", "bit3"]
    assert 0.5 < ob["epsilon_hat"] < 1.6  # SUE at ε = 1, estimated from 2,000 per input
    assert main([*files, "--method", "lb"]) == 0
    lb = json.loads(capsys.readouterr().out)
    assert lb["epsilon_lb"] <= 1.0 and lb["verdict"] != "violation"


@pytest.mark.parametrize("algorithm", ["optimal", "mondrian", "kaca"])
def test_anonymize_spec_out_and_from_spec_give_the_same_file(tmp_path, capsys, algorithm):
    hospital = ROOT / "assets" / "hospital"
    first, spec = tmp_path / "first.csv", tmp_path / "spec.json"
    common = [
        "--hierarchy",
        f"ZIP={hospital / 'hospital_hierarchy_ZIP.csv'}",
        "--hierarchy",
        f"Age={hospital / 'hospital_hierarchy_Age.csv'}",
    ]
    code = main(
        [
            "anonymize",
            str(hospital / "hospital.csv"),
            "--qi",
            "ZIP,Age",
            "--sa",
            "Disease",
            *common,
            "--algorithm",
            algorithm,
            "--k",
            "3",
            "--l",
            "2",
            "--seed",
            "7",
            "--out",
            str(first),
            "--spec-out",
            str(spec),
            "--quiet",
        ]
    )
    assert code == 0, capsys.readouterr().err
    written = json.loads(spec.read_text())
    assert written["algorithm"] == algorithm and written["seed"] == 7
    assert written["constraints"][0] == {"model": "k", "k": 3}
    again = tmp_path / "again.csv"
    capsys.readouterr()
    code = main(
        [
            "anonymize",
            str(hospital / "hospital.csv"),
            "--from-spec",
            str(spec),
            "--out",
            str(again),
            "--quiet",
            "--json",
        ]
    )
    assert code == 0, capsys.readouterr().err
    assert json.loads(capsys.readouterr().out)["algorithm"] == algorithm
    assert again.read_bytes() == first.read_bytes()


def test_anonymize_from_spec_errors(tmp_path, capsys):
    hospital = ROOT / "assets" / "hospital"
    out = str(tmp_path / "r.csv")
    assert main(["anonymize", str(hospital / "hospital.csv"), "--out", out]) == 2
    assert "--qi, --sa (or --from-spec FILE)" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "other"}')
    args = ["anonymize", str(hospital / "hospital.csv"), "--from-spec", str(bad), "--out", out]
    assert main(args) == 2
    assert "not a release spec" in capsys.readouterr().err
    args[3] = str(tmp_path / "missing.json")
    assert main(args) == 2
    assert "Cannot read the spec" in capsys.readouterr().err


def test_measure_without_pairing_says_which_figures_need_it(capsys):
    args = [
        "measure",
        "--original",
        "assets/hospital/hospital.csv",
        "--release",
        "assets/hospital/hospital_release.csv",
        "--qi",
        "ZIP,Age",
        "--sa",
        "Disease",
        "--alignment",
        "none",
    ]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "k = 3" in out and "not paired" in out and "pl, ul" in out
    assert main([*args, "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["pl"] is None or payload["ul"] is None
    assert "pl" in payload["needs_alignment"]
