"""The command line's analyses around a release (background, ordering, complementary,
sweep, reconstruct): the same figures as the request run directly, the same errors, and
a history row with --record."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from privcore import history
from privcore.cli import main
from privcore.data import load
from privcore.runs import (
    BackgroundRequest,
    Inputs,
    ReconstructionRequest,
    run,
)

HOSPITAL = Path(__file__).resolve().parents[2] / "assets" / "hospital"
ORIGINAL = str(HOSPITAL / "hospital.csv")
RELEASE = str(HOSPITAL / "hospital_release.csv")


def _json(capsys, *argv: str) -> dict:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_background_prints_what_the_page_computes(capsys, tmp_path):
    prior = tmp_path / "prior.json"
    prior.write_text(json.dumps({"Cancer": 4, "Flu": 1}), encoding="utf-8")
    payload = _json(
        capsys,
        "background",
        "--original", ORIGINAL,
        "--release", RELEASE,
        "--qi", "ZIP,Age",
        "--sa", "Disease",
        "--m", "1",
        "--posterior-tau", "0.6",
        "--prior", str(prior),
    )  # fmt: skip
    inputs = Inputs(original=load(ORIGINAL), release=load(RELEASE).frame)
    request = BackgroundRequest(
        qi=("ZIP", "Age"), sa=("Disease",), m=1, tau=0.6, prior={"Cancer": 4.0, "Flu": 1.0}
    )
    direct = run(request, inputs, record=False).summary
    assert payload["before"] == json.loads(history.to_json(direct["before"]))
    assert payload["after"] == json.loads(history.to_json(direct["after"]))
    assert payload["attack"] == "background knowledge"
    assert payload["prior"] is True
    assert payload["tau"] == 0.6


def test_background_refuses_what_the_page_refuses(capsys, tmp_path):
    argv = ["background", "--original", ORIGINAL, "--release", RELEASE, "--qi", "ZIP,Age"]
    assert main([*argv, "--sa", "Disease", "--posterior-tau", "0"]) == 2
    assert "--posterior-tau must be a number above 0 and at most 1" in capsys.readouterr().err
    assert main([*argv, "--sa", "Disease,Salary"]) == 2
    assert "reads one sensitive attribute; 2 were given" in capsys.readouterr().err
    bad = tmp_path / "prior.json"
    bad.write_text(json.dumps({"Flu": -1}), encoding="utf-8")
    assert main([*argv, "--sa", "Disease", "--prior", str(bad)]) == 2
    assert "each weight a number above 0" in capsys.readouterr().err


def test_ordering_traces_a_file_through_its_key(capsys, tmp_path):
    original = pd.DataFrame({"id": [1, 2, 3, 4], "age": [30, 40, 50, 60]})
    original.to_csv(tmp_path / "o.csv", index=False)
    original.iloc[[1, 0, 2, 3]].to_csv(tmp_path / "r.csv", index=False)
    payload = _json(
        capsys,
        "ordering",
        "--original", str(tmp_path / "o.csv"),
        "--release", str(tmp_path / "r.csv"),
        "--key", "id",
    )  # fmt: skip
    # order = [1, 0, 2, 3]: two rows in place; ρ = 1 − 6·(1+1)/(4·15) = 0.8
    assert payload["rows_in_place"] == 0.5
    assert payload["spearman"] == pytest.approx(0.8)
    assert payload["key"] == "id"
    assert set(payload["shuffled"]) >= {"spearman", "rows_in_place"}


def test_complementary_pairs_two_releases_by_key(capsys, tmp_path):
    first = pd.DataFrame(
        {"id": [1, 2, 3, 4], "age": ["<40", "<40", "≥40", "≥40"], "zip": ["1*"] * 4}
    )
    second = pd.DataFrame({"id": [4, 3, 2, 1], "age": ["*"] * 4, "zip": ["11", "10", "11", "10"]})
    first.to_csv(tmp_path / "a.csv", index=False)
    second.to_csv(tmp_path / "b.csv", index=False)
    argv = ["complementary", "--release", str(tmp_path / "a.csv")]
    argv += ["--second-release", str(tmp_path / "b.csv"), "--qi", "age,zip"]
    by_key = _json(capsys, *argv, "--key", "id")
    # by key: record 1 is (<40, 10), 2 (<40, 11), 3 (≥40, 10), 4 (≥40, 11): all alone
    assert by_key["records_effective_k_1"] == 4
    by_position = _json(capsys, *argv)
    # by position: rows 1,2 → (<40, 11), (<40, 10); rows 3,4 → (≥40, 11), (≥40, 10): alone too
    assert by_position["min_effective_k"] == 1
    assert main([*argv, "--key", "no_such"]) == 2
    assert "is not in the second release" in capsys.readouterr().err


def test_sweep_and_reconstruct_print_the_runs_figures(capsys):
    sweep = _json(
        capsys, "sweep", "--mechanism", "grr", "--epsilons", "1", "--domain", "2", "--quiet"
    )
    assert sweep["sweep"] == "grr"
    assert [row["epsilon"] for row in sweep["rows"]] == [1.0]
    assert sweep["rows"][0]["verdict"] == "consistent"
    rebuilt = _json(capsys, "reconstruct", "--values", "20000", "--reconstruction", "em")
    direct = run(ReconstructionRequest(values=20_000, reconstruction="em"), record=False)
    assert rebuilt["tv"] == pytest.approx(direct.summary["tv"])
    assert len(rebuilt["truth"]) == 20
    assert len(rebuilt["edges"]) == 21
    assert main(["sweep", "--mechanism", "grr", "--epsilons", "1,-2", "--domain", "2"]) == 2
    assert "ε must be a finite number > 0 (ε ≤ 0 gives no privacy guarantee), got -2" in (
        capsys.readouterr().err
    )


def test_record_keeps_the_analysis_in_the_history(capsys):
    argv = ["background", "--original", ORIGINAL, "--release", RELEASE]
    assert main([*argv, "--qi", "ZIP,Age", "--sa", "Disease", "--record"]) == 0
    assert "history run: #" in capsys.readouterr().out
    (row,) = history.list_runs(kind="attack")
    assert row["page"] == "cli"
    assert row["params"]["attack"] == "background knowledge"
    assert row["params"]["release"] == "hospital_release.csv"
    assert set(row["results"]) == {"before", "after"}


def test_dp_accuracy_person_and_uploaded_outputs_as_on_the_page(capsys, tmp_path):
    import numpy as np

    from privcore.runs import DifferencingRequest, DpAccuracyRequest, DpAuditRequest

    table = pd.DataFrame({"status": ["single", "couple", "couple", "single"], "n": [1, 2, 3, 4]})
    table.to_csv(tmp_path / "t.csv", index=False)
    data = str(tmp_path / "t.csv")
    curve = _json(capsys, "dp", "accuracy", data, "--count", "--draws", "20", "--grid", "1,2")
    direct = run(
        DpAccuracyRequest(query="count", draws=20, grid=(1.0, 2.0)),
        Inputs(original=load(data)),
        record=False,
    ).result
    assert curve["rows"] == json.loads(history.to_json(direct.to_dict("records")))
    person = _json(
        capsys, "dp", "person", data, "--row", "0", "--where", "status=single", "--epsilon", "1"
    )
    # the first person is single: 2 singles with them, 1 without; exact answers tell it
    assert (person["count_with"], person["count_without"]) == (2, 1)
    assert person["posterior_exact_answers"] == 1.0
    attack = DifferencingRequest(row=0, where={"status": "single"}, epsilon=1.0)
    assert (
        person["posterior_max"]
        == run(attack, Inputs(original=load(data)), record=False).result.posterior_max
    )
    rng = np.random.default_rng(1)
    outputs = pd.DataFrame({"d": rng.integers(0, 3, 500), "d2": rng.integers(0, 3, 500)})
    outputs.to_csv(tmp_path / "outputs.csv", index=False)
    argv = ["dp", "audit", "--outputs", str(tmp_path / "outputs.csv"), "--epsilon", "1"]
    audited = _json(capsys, *argv, "--columns", "d,d2", "--record")
    expected = run(
        DpAuditRequest(audited="uploaded", epsilon=1.0, output_columns=("d", "d2")),
        Inputs(samples=load(outputs)),
        record=False,
    ).summary
    assert audited["epsilon_lb"] == pytest.approx(expected["epsilon_lb"])
    (row,) = history.list_runs(kind="dp_audit")
    assert row["params"]["output_columns"] == ["d", "d2"]
    assert main([*argv, "--columns", "d"]) == 2  # two columns or none
    assert "reads two columns" in capsys.readouterr().err
    assert main(["dp", "audit", "--epsilon", "1"]) == 2
    assert "needs --mechanism" in capsys.readouterr().err
