"""``privcore risk``: the documented JSON keys, figures that agree with the library's
own estimators, the population and control options, the history record, bad input."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from privcore import history
from privcore.cli import main
from privcore.measure.population import individual_risk, population_uniqueness
from privcore.measure.suda2 import suda2

ASSETS_QI = ("ZIP", "Age")


@pytest.fixture
def hospital(adult_path):
    root = adult_path.parent.parent / "hospital"
    hierarchies = [
        option
        for column in ASSETS_QI
        for option in ("--hierarchy", f"{column}={root}/hospital_hierarchy_{column}.csv")
    ]
    return root / "hospital.csv", root / "hospital_release.csv", hierarchies


def run_json(capsys, *argv: str) -> dict:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_keys_and_figures_agree_with_the_estimators(capsys, hospital):
    original, release, hierarchies = hospital
    out = run_json(capsys, "risk", "--original", str(original), "--release", str(release),
                   "--qi", "ZIP,Age", "--sa", "Disease", *hierarchies,
                   "--sampling-fraction", "0.2")  # fmt: skip
    assert {"model", "share"} <= set(out["population_uniqueness"])
    assert {"expected_reidentifications", "max"} <= set(out["individual_risk"])
    assert "special_uniques" in out["suda2"]
    for name in ("singling_out", "linkability"):
        assert {"risk", "ci", "baseline"} <= set(out[name])
        assert 0 <= out[name]["risk"] <= 1
    assert {"risk", "ci", "baseline"} <= set(out["inference"]["Disease"])
    assert out["delta_presence"] is None and out["k_map"] is None  # no --population
    assert (out["sampling_fraction"], out["sampling_fraction_source"]) == (0.2, "given")
    released = pd.read_csv(release)
    qi = list(ASSETS_QI)
    expected = individual_risk(released, qi, sampling_fraction=0.2)
    assert out["individual_risk"]["expected_reidentifications"] == pytest.approx(
        expected.expected_reidentifications
    )
    # the release's classes are 3, 3 and 3 records: no sample unique, no special unique
    assert (
        out["population_uniqueness"]["share"]
        == population_uniqueness(released, qi, sampling_fraction=0.2).share
    )
    assert out["suda2"]["special_uniques"] == suda2(released, qi).special_uniques == 0


def test_population_gives_presence_k_map_and_the_sampling_fraction(capsys, hospital, tmp_path):
    original, release, hierarchies = hospital
    frame = pd.read_csv(original, dtype={"ZIP": str})
    # the nine patients and nine other people with the same ZIP codes and ages
    population = pd.concat([frame, frame.assign(Salary=0)], ignore_index=True)
    population_file = tmp_path / "population.csv"
    population.to_csv(population_file, index=False)
    out = run_json(capsys, "risk", "--original", str(original), "--release", str(release),
                   "--qi", "ZIP,Age", "--sa", "Disease", *hierarchies,
                   "--population", str(population_file), "--no-gdpr")  # fmt: skip
    assert (out["sampling_fraction"], out["sampling_fraction_source"]) == (0.5, "population")
    # every class of 3 records matches 6 people of the population: δ = 3/6, k-map 6
    assert (out["delta_presence"]["min"], out["delta_presence"]["max"]) == (0.5, 0.5)
    assert out["k_map"]["k"] == 6
    assert "singling_out" not in out


def test_recorded_without_values(capsys, hospital):
    original, release, hierarchies = hospital
    run_json(capsys, "risk", "--original", str(original), "--release", str(release),
             "--qi", "ZIP,Age", "--sa", "Disease", *hierarchies, "--record")  # fmt: skip
    run = history.get_run(history.list_runs()[0]["id"])
    assert run["kind"] == "risk" and run["params"]["qi"] == ["ZIP", "Age"]
    text = json.dumps(run["results"], ensure_ascii=False)
    assert "gastritis" not in text and "4767" not in text


@pytest.mark.parametrize(
    "extra, words",
    [
        (["--sampling-fraction", "1.5"], "sampling fraction"),
        (["--sampling-fraction", "0.5", "--population", "x.csv"], "not allowed"),
    ],
)
def test_bad_input_exits_2(capsys, hospital, extra, words):
    original, release, hierarchies = hospital
    try:
        code = main(["risk", "--original", str(original), "--release", str(release),
                     "--qi", "ZIP,Age", "--sa", "Disease", *hierarchies, *extra])  # fmt: skip
    except SystemExit as exc:  # argparse refuses the pair of exclusive options
        code = exc.code
    assert code == 2 and words in capsys.readouterr().err


def test_on_an_engine_the_figures_are_those_in_memory(capsys, hospital):
    """``--engine duckdb``: the tables paired by position in DuckDB and assessed from
    their joint frequency set; the class-based figures equal those in memory, the JSON
    names the engine, and the run is recorded with it."""
    original, release, hierarchies = hospital
    argv = ["risk", "--original", str(original), "--release", str(release),
            "--qi", "ZIP,Age", "--sa", "Disease", *hierarchies,
            "--sampling-fraction", "0.2"]  # fmt: skip
    memory = run_json(capsys, *argv)
    on_engine = run_json(capsys, *argv, "--engine", "duckdb", "--record")
    assert (memory["engine"], on_engine["engine"]) == ("pandas", "duckdb")
    for name in ("population_uniqueness", "individual_risk", "suda2"):
        assert json.dumps(on_engine[name], sort_keys=True) == json.dumps(
            memory[name], sort_keys=True
        ), name
    assert {"risk", "ci", "baseline"} <= set(on_engine["singling_out"])
    assert "sample" not in on_engine["control"]  # 9 records: every one
    assert on_engine["control"]["training_rows"] + on_engine["control"]["control_rows"] == 9
    recorded = history.list_runs(kind="risk")[0]
    assert recorded["params"]["engine"] == "duckdb" and recorded["dataset_rows"] == 9
    assert recorded["results"]["suda2"] == on_engine["suda2"]
