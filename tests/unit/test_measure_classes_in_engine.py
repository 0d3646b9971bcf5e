"""``privcore measure --engine duckdb`` on a release with more distinct combinations
than PRIVCORE_ENGINE_MAX_GROUPS: its classes are measured inside DuckDB
(privcore.measure.engine_classes) and every figure it gives equals the one of the same
release measured in memory without pairing (``--alignment none``); the figures that
need the rows paired are left out with a note in words."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from privcore.cli import main

MODELS = ["--k", "2", "--l", "2", "--l-kind", "entropy", "--t", "0.4"]


def near_unique(n: int = 3_000, seed: int = 0) -> pd.DataFrame:
    """Exact ages, postcodes and days: almost every row its own class."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "age": rng.integers(18, 90, n),
            "zip": rng.integers(10_000, 99_999, n).astype(str),
            "day": rng.integers(1, 366, n),
            "disease": rng.choice(["flu", "cold", "cancer", None], n),
            "salary": rng.choice([10.0, 20.0, 35.0, 50.0], n),
        }
    )


def measured(capsys, original, release, *extra) -> dict:
    code = main(
        [
            "measure",
            "--original", str(original),
            "--release", str(release),
            "--qi", "age,zip,day",
            "--sa", "disease,salary",
            *MODELS,
            *extra,
            "--json",
        ]
    )  # fmt: skip
    out = capsys.readouterr()
    assert code == 0, out.err
    return json.loads(out.out)


def command(capsys, name: str, original, release, *extra) -> tuple[int, str, str]:
    """``privcore <name>`` on the two tables (QIs age, zip, day): exit code, out, err."""
    code = main(
        [
            name,
            "--original", str(original),
            "--release", str(release),
            "--qi", "age,zip,day",
            *extra,
        ]
    )  # fmt: skip
    out = capsys.readouterr()
    return code, out.out, out.err


def assert_same_figures(mine: dict, here: dict) -> None:
    for key in ("k", "classes", "rows", "suppressed_rows", "l_distinct", "satisfied"):
        assert mine[key] == here[key], key
    for key in ("l_entropy", "recursive_c"):
        assert mine[key] == pytest.approx(here[key]), key
    for attribute, figure in here["t_closeness"].items():
        assert mine["t_closeness"][attribute]["distance"] == figure["distance"]
        assert mine["t_closeness"][attribute]["t"] == pytest.approx(figure["t"])
    assert mine["dr"] == pytest.approx(here["dr"])
    for key, value in here["risk"].items():
        assert mine["risk"][key] == pytest.approx(value), key
    for key in ("discernibility", "c_avg", "whd_total", "gcp", "precision"):
        assert mine["loss"][key] == pytest.approx(here["loss"][key]), key
    for got, want in zip(mine["verdicts"], here["verdicts"], strict=True):
        for key in ("model", "passed", "violating_classes", "violating_rows"):
            assert got[key] == want[key], (key, got, want)


@pytest.fixture()
def tables(tmp_path, monkeypatch):
    monkeypatch.setenv("PRIVCORE_HISTORY", str(tmp_path / "history.db"))
    original = near_unique()
    release = original.astype({"age": str, "day": str})
    release.loc[release.index % 50 == 0, ["age", "zip", "day"]] = "*"  # a group at '*'
    paths = tmp_path / "original.parquet", tmp_path / "release.parquet"
    original.to_parquet(paths[0], index=False)
    release.to_parquet(paths[1], index=False)
    return paths


def test_a_near_unique_release_is_measured_by_its_classes_in_duckdb(tables, capsys, monkeypatch):
    original, release = tables
    here = measured(capsys, original, release, "--alignment", "none")
    monkeypatch.setenv("PRIVCORE_ENGINE_MAX_GROUPS", "500")
    mine = measured(capsys, original, release, "--engine", "duckdb")
    assert here["classes"] > 2_000
    assert_same_figures(mine, here)
    assert mine["pl"] is None and mine["ul"] is None and mine["real_records"] == {}
    assert mine["alignment"] == "none"
    assert mine["unpaired_because"] == "engines.too_many_groups"
    assert any("measured inside the engine" in note for note in mine["notes"])
    # the same release with the limit above its combinations: paired, PL computed
    monkeypatch.setenv("PRIVCORE_ENGINE_MAX_GROUPS", "100000")
    paired = measured(capsys, original, release, "--engine", "duckdb")
    assert paired["pl"] is not None and paired["alignment"] == "position"


def test_a_few_classes_against_a_near_unique_original_fall_back_to_the_classes(
    tmp_path, capsys, monkeypatch
):
    """The release has few combinations (the estimate lets the pairing start) but the
    joint set with the near-unique original is too large: measured by the classes."""
    monkeypatch.setenv("PRIVCORE_HISTORY", str(tmp_path / "history.db"))
    original = near_unique(seed=1)
    release = original.copy()
    release["age"] = (release["age"] // 20 * 20).astype(str)
    release["zip"] = release["zip"].str[:1] + "****"
    release["day"] = "*"
    paths = tmp_path / "original.parquet", tmp_path / "release.parquet"
    original.to_parquet(paths[0], index=False)
    release.to_parquet(paths[1], index=False)
    here = measured(capsys, *paths, "--alignment", "none")
    monkeypatch.setenv("PRIVCORE_ENGINE_MAX_GROUPS", "500")
    mine = measured(capsys, *paths, "--engine", "duckdb")
    assert here["classes"] < 500
    assert mine["unpaired_because"] == "engines.too_many_groups"
    assert_same_figures(mine, here)


def test_the_command_line_says_what_was_left_out(tables, capsys, monkeypatch):
    original, release = tables
    monkeypatch.setenv("PRIVCORE_ENGINE_MAX_GROUPS", "500")
    extra = ("--sa", "disease", "--k", "2", "--engine", "duckdb")
    code, out, _ = command(capsys, "measure", original, release, *extra)
    assert code == 0
    assert "measured inside the engine" in out
    assert "the classes were measured inside the engine; pl, ul" in out


def test_discrimination_of_sums_by_hand():
    """Four rows: QI a, a, b, b; SA x, y, x, x. H(SA) = −(¾ ln ¾ + ¼ ln ¼) = 0.5623;
    H(SA | QI) = ½ ln 2 = 0.3466 (class a holds x and y, class b only x);
    DR = 1 − 0.3466 / 0.5623 = 0.3836."""
    from privcore.measure.engine_classes import discrimination_of_sums

    sums = {"qi": 2 * (2 * math.log(2)), "sa": 3 * math.log(3), "both": 2 * math.log(2)}
    assert discrimination_of_sums(sums, 4) == pytest.approx(0.38366, abs=1e-4)
    assert discrimination_of_sums({"qi": 0.0, "sa": 4 * math.log(4), "both": 0.0}, 4) == 0.0


def test_an_analysis_that_needs_the_pairs_refuses_in_words(tables, capsys, monkeypatch):
    """The attack simulator needs every (original, released) pair in memory: above the
    limit it stops before bringing them back, with one line that says what to do."""
    original, release = tables
    monkeypatch.setenv("PRIVCORE_ENGINE_MAX_GROUPS", "500")
    code, _, err = command(
        capsys, "attack", original, release, "--sa", "disease", "--engine", "duckdb"
    )
    assert code == 2
    assert "this analysis needs the pairs in memory" in err
    assert "Traceback" not in err


def test_alignment_none_and_auto_on_an_engine(tmp_path, capsys, monkeypatch):
    """``--alignment none`` on DuckDB measures the release by its classes inside the
    engine, as in memory; ``auto`` does so for a shuffled release and pairs one in
    order; pandas and Spark refuse ``none`` in words instead of pairing by position."""
    monkeypatch.setenv("PRIVCORE_HISTORY", str(tmp_path / "history.db"))
    original = near_unique(n=1_500, seed=4)
    release = original.astype({"age": str, "day": str})
    release.loc[release.index % 3 == 0, "zip"] = "*"
    shuffled = release.sample(frac=1.0, random_state=1)
    paths = {name: tmp_path / f"{name}.parquet" for name in ("o", "r", "s")}
    original.to_parquet(paths["o"], index=False)
    release.to_parquet(paths["r"], index=False)
    shuffled.to_parquet(paths["s"], index=False)
    here = measured(capsys, paths["o"], paths["r"], "--alignment", "none")
    mine = measured(capsys, paths["o"], paths["r"], "--alignment", "none", "--engine", "duckdb")
    assert_same_figures(mine, here)
    assert mine["alignment"] == "none" and mine["unpaired_because"] is None
    assert any("not paired" in note for note in mine["notes"])
    auto = measured(capsys, paths["o"], paths["s"], "--alignment", "auto", "--engine", "duckdb")
    assert auto["unpaired_because"] == "measure.row_order"
    assert_same_figures(auto, here)  # the same classes, whatever the order
    in_order = measured(capsys, paths["o"], paths["r"], "--alignment", "auto", "--engine", "duckdb")
    assert in_order["alignment"] == "position" and in_order["pl"] is not None
    extra = ("--sa", "disease", "--alignment", "none", "--engine", "pandas")
    code, _, err = command(capsys, "measure", paths["o"], paths["r"], *extra)
    assert code == 2 and "on DuckDB only" in err
