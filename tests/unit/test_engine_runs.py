"""The same runs on every engine (SPEC §9): ``anonymize`` and ``measure`` with
``--engine pandas|duckdb|spark`` give the same JSON (apart from timings), the same
release (sorted) and the same history summaries; the release written by an engine meets
its models when checked again on the file."""

from __future__ import annotations

import json
import sqlite3

import pandas as pd
import pytest

from privcore.cli import main
from privcore.engines import ENGINES
from privcore.engines.spark_engine import spark_available
from tests.conftest import ASSETS

SPARK_MISSING = spark_available()
AVAILABLE = [name for name in ENGINES if name != "spark" or SPARK_MISSING is None]

QI = ["age", "sex", "race", "marital-status", "education"]
SA = "occupation"
HIERARCHIES = [
    arg
    for column in QI
    for arg in ("--hierarchy", f"{column}={ASSETS / 'adult' / f'adult_hierarchy_{column}.csv'}")
]


@pytest.fixture(scope="module", autouse=True)
def stop_spark():
    yield
    if SPARK_MISSING is None:
        from pyspark.sql import SparkSession

        session = SparkSession.getActiveSession()
        if session is not None:
            session.stop()


@pytest.fixture(scope="module")
def adult_parquet(tmp_path_factory):
    """Adult as Parquet, with a row key (an identifier the release leaves out)."""
    from privcore.data import load

    frame = load(ASSETS / "adult" / "adult.csv").frame
    frame.insert(0, "person", [f"p{i}" for i in range(len(frame))])
    path = tmp_path_factory.mktemp("runs") / "adult.parquet"
    frame.to_parquet(path)
    return path


def without_timings(value):
    if isinstance(value, dict):
        return {
            k: without_timings(v)
            for k, v in value.items()
            if k not in ("seconds", "timings", "duration_s")
        }
    if isinstance(value, list):
        return [without_timings(v) for v in value]
    return value


def cli(capsys, *args) -> dict:
    assert main([*map(str, args), "--json"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def history_results(path) -> list[dict]:
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT kind, results FROM runs ORDER BY id").fetchall()
    return [(kind, without_timings(json.loads(results))) for kind, results in rows]


@pytest.mark.parametrize(
    "algorithm,options",
    [("optimal", ["--k", "10", "--max-suppression", "0.01"]), ("datafly", ["--k", "5"])],
)
def test_anonymize_and_measure_agree_on_every_engine(
    adult_parquet, tmp_path, capsys, isolated_history, algorithm, options
):
    reports, releases, measures = {}, {}, {}
    for name in AVAILABLE:
        out = tmp_path / f"{name}.parquet"
        reports[name] = cli(
            capsys,
            "anonymize",
            adult_parquet,
            "--qi",
            ",".join(QI),
            "--sa",
            SA,
            "--identifiers",
            "person",
            *HIERARCHIES,
            "--algorithm",
            algorithm,
            *options,
            "--out",
            out,
            "--keep-order",
            "--engine",
            name,
            "--record",
        )
        release = pd.read_parquet(out)
        assert "person" not in release.columns and len(release) == 30_162
        releases[name] = release
        measures[name] = cli(
            capsys,
            "measure",
            "--original",
            adult_parquet,
            "--release",
            out,
            "--qi",
            ",".join(QI),
            "--sa",
            SA,
            *HIERARCHIES,
            "--k",
            "5",
            "--engine",
            name,
            "--record",
        )
    first = AVAILABLE[0]
    for name in AVAILABLE:
        engine_block = reports[name].pop("engine")
        assert engine_block["name"] == name and engine_block["written_satisfied"] is True
        assert engine_block["rows_written"] == 30_162
        assert measures[name].pop("engine") == name
        assert without_timings(reports[name]) == without_timings(reports[first]), name
        assert without_timings(measures[name]) == without_timings(measures[first]), name
        pd.testing.assert_frame_equal(
            releases[name].astype(str), releases[first].astype(str), obj=name
        )
    assert reports[first]["k"] >= (10 if algorithm == "optimal" else 5)
    assert measures[first]["k"] == reports[first]["k"]
    assert measures[first]["rows"] == 30_162
    # the history keeps the same summaries, whichever engine ran
    runs = history_results(isolated_history)
    assert len(runs) == 2 * len(AVAILABLE)
    by_kind = {kind: [r for k, r in runs if k == kind] for kind in ("anonymize", "measure")}
    for kind, summaries in by_kind.items():
        assert all(s == summaries[0] for s in summaries), kind


def test_auto_picks_duckdb_above_the_row_limit(adult_parquet, tmp_path, capsys, monkeypatch):
    import privcore.cli as cli_module

    monkeypatch.setattr(cli_module, "ENGINE_ROWS", 1_000)
    out = tmp_path / "auto.parquet"
    report = cli(
        capsys,
        "anonymize",
        adult_parquet,
        "--qi",
        ",".join(QI),
        "--sa",
        SA,
        "--identifiers",
        "person",
        *HIERARCHIES,
        "--k",
        "5",
        "--out",
        out,
    )
    assert report["engine"]["name"] == "duckdb"


def test_algorithms_that_need_the_records_refuse_a_weighted_table(adult_parquet, tmp_path, capsys):
    code = main(
        [
            "anonymize",
            str(adult_parquet),
            "--qi",
            ",".join(QI),
            "--sa",
            SA,
            "--identifiers",
            "person",
            *HIERARCHIES,
            "--algorithm",
            "kaca",
            "--k",
            "5",
            "--out",
            str(tmp_path / "kaca.parquet"),
            "--engine",
            "duckdb",
            "--quiet",
        ]
    )
    assert code == 2
    assert "memory" in capsys.readouterr().err
