"""The same runs on every engine (SPEC §9): ``anonymize``, ``measure`` and ``attack`` with
``--engine pandas|duckdb|spark`` give the same JSON (apart from timings), the same
release (sorted) and the same history summaries; the release written by an engine meets
its models when checked again on the file."""

from __future__ import annotations

import json
import sqlite3

import numpy as np
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
    reports, releases, measures, attacks = {}, {}, {}, {}
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
        attacks[name] = cli(
            capsys,
            "attack",
            "--original",
            adult_parquet,
            "--release",
            out,
            "--qi",
            ",".join(QI),
            "--sa",
            SA,
            *HIERARCHIES,
            "--seed",
            "7",
            "--engine",
            name,
            "--record",
        )
    first = AVAILABLE[0]
    for name in AVAILABLE:
        assert attacks[name].pop("engine") == name
        assert without_timings(attacks[name]) == without_timings(attacks[first]), name
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
    linkage = attacks[first]["before"]["linkage"]
    assert linkage["targets"] == 30_162 and attacks[first]["roll"]["size"] == 301_620
    assert attacks[first]["linkage"]["reidentified"] <= linkage["reidentified"]
    # the history keeps the same summaries, whichever engine ran
    runs = history_results(isolated_history)
    assert len(runs) == 3 * len(AVAILABLE)
    kinds = ("anonymize", "measure", "attack")
    by_kind = {kind: [r for k, r in runs if k == kind] for kind in kinds}
    for kind, summaries in by_kind.items():
        assert all(s == summaries[0] for s in summaries), kind


def test_auto_picks_duckdb_above_the_row_limit(adult_parquet, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PRIVCORE_ENGINE_ROWS", "1000")
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


def test_kaca_reads_the_records_into_memory_up_to_the_limit(
    adult_parquet, tmp_path, capsys, monkeypatch
):
    """KACA and condensation need the records: on an engine the table is read into
    memory for them (the same release and figures on every engine) up to
    PRIVCORE_MAX_LOCAL_RECODING_ROWS, and refused above it with the limit named."""
    reports = {}
    for name in AVAILABLE:
        out = tmp_path / f"kaca_{name}.parquet"
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
            "kaca",
            "--k",
            "5",
            "--out",
            out,
            "--keep-order",
            "--engine",
            name,
        )
        block = reports[name].pop("engine")
        assert block["written_satisfied"] and block["rows_written"] == 30_162
    first = reports[AVAILABLE[0]]
    assert first["k"] >= 5 and first["algorithm"] == "kaca"
    for name, report in reports.items():
        assert without_timings(report) == without_timings(first), name
    monkeypatch.setenv("PRIVCORE_MAX_LOCAL_RECODING_ROWS", "1000")
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


def test_mondrian_runs_on_fragments_above_the_group_limit(adult_parquet, tmp_path, monkeypatch):
    """With PRIVCORE_ENGINE_MAX_GROUPS below the frequency set's rows (13,733 for these
    columns), the table is cut into fragments by Mondrian's own first cuts and Mondrian
    runs on each: every record is released, the written file meets k, and the loss is
    at most 5 % above Mondrian's on the whole frequency set (here 5 fragments: 0.0299
    against 0.0305; with 2 fragments they are equal); the lattice searches refuse,
    naming the limit."""
    from privcore.data import Role, Schema, load_sample
    from privcore.engines.duckdb_engine import DuckDBEngine
    from privcore.errors import InfeasibleError
    from privcore.models import KAnonymity
    from privcore.runs.tables import anonymize_table

    _, sample = load_sample("adult")
    roles = {
        **dict.fromkeys(QI, Role.QUASI_IDENTIFIER),
        SA: Role.SENSITIVE,
        "person": Role.IDENTIFIER,
    }
    schema = Schema(roles, {c: sample.hierarchies[c] for c in QI})
    engine = DuckDBEngine()
    table = engine.scan(adult_parquet)
    whole = anonymize_table(
        engine, table, schema, [KAnonymity(10)], tmp_path / "whole.parquet", algorithm="mondrian"
    )
    monkeypatch.setenv("PRIVCORE_ENGINE_MAX_GROUPS", "4000")
    parts = anonymize_table(
        engine, table, schema, [KAnonymity(10)], tmp_path / "parts.parquet", algorithm="mondrian"
    )
    assert parts.release.params["fragments"] >= 4
    assert parts.rows_written == 30_162 and parts.written_check.satisfied
    assert parts.written_check.summary["k"] >= 10
    written = pd.read_parquet(tmp_path / "parts.parquet")
    assert len(written) == 30_162 and "person" not in written.columns
    gcp_whole, gcp_parts = whole.release.loss["gcp"], parts.release.loss["gcp"]
    assert gcp_parts <= 1.05 * gcp_whole, (gcp_parts, gcp_whole)  # no more than 5 % worse
    # the lattice searches start from the first generalization that fits (below),
    # except on an engine that cannot generalize inside itself
    from privcore.engines.pandas_engine import PandasEngine

    in_memory = PandasEngine()
    with pytest.raises(InfeasibleError) as error:
        anonymize_table(
            in_memory,
            in_memory.scan(adult_parquet),
            schema,
            [KAnonymity(10)],
            tmp_path / "x.parquet",
            algorithm="optimal",
        )
    assert error.value.code == "engines.too_many_groups"
    assert error.value.params["limit"] == 4000


@pytest.mark.parametrize("algorithm", ["optimal", "datafly", "samarati"])
def test_a_lattice_search_starts_where_the_engine_counts_fit(
    adult_parquet, tmp_path, monkeypatch, algorithm
):
    """Above PRIVCORE_ENGINE_MAX_GROUPS the search runs on the table generalized inside
    DuckDB to the first node whose frequency set fits: it finds the node it finds on
    the whole frequency set (that node lies above the start), the written file meets k
    and keeps the table's order, and the release names where it started."""
    from privcore.data import Role, Schema, load_sample
    from privcore.engines.duckdb_engine import DuckDBEngine
    from privcore.models import KAnonymity
    from privcore.runs.tables import anonymize_table

    _, sample = load_sample("adult")
    roles = {**dict.fromkeys(QI, Role.QUASI_IDENTIFIER), SA: Role.SENSITIVE}
    schema = Schema(roles, {c: sample.hierarchies[c] for c in QI})
    engine = DuckDBEngine()
    table = engine.scan(adult_parquet)
    models = [KAnonymity(10)]
    options = {"algorithm": algorithm, "max_suppression": 0.01, "shuffle": False}
    whole = anonymize_table(engine, table, schema, models, tmp_path / "whole.parquet", **options)
    monkeypatch.setenv("PRIVCORE_ENGINE_MAX_GROUPS", "4000")
    started = anonymize_table(engine, table, schema, models, tmp_path / "start.parquet", **options)
    start = started.release.params["start_levels"]
    assert sum(start.values()) >= 1
    assert all(level >= start[c] for c, level in zip(QI, started.release.node, strict=True))
    assert started.written_check.satisfied and started.rows_written == 30_162
    assert any(n.code == "engines.search_from_level" for n in started.release.notes)
    assert started.dataset.summary()["fingerprint_of"] == "row_hashes"
    if algorithm == "samarati":  # its lowest node (age at 1) lies below the start (age 2)
        assert whole.release.node[0] < start["age"]
        assert sum(started.release.node) >= sum(whole.release.node)
        return
    assert started.release.node == whole.release.node
    written = pd.read_parquet(tmp_path / "start.parquet")
    assert written.equals(pd.read_parquet(tmp_path / "whole.parquet"))  # same cells, order


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """3,000 generated records: a ZIP with leading zeros, an age with missing values
    ("?" in the CSV, null in Parquet), a sex with a few missing, a numeric SA; ARX
    hierarchy files for the three QIs."""
    rng = np.random.default_rng(17)
    n = 3_000
    zips = np.array([f"0{z}" for z in (2139, 2140, 2141, 2142, 2238, 2239, 2240, 2241)])
    frame = pd.DataFrame(
        {
            "zip": rng.choice(zips, n),
            "age": rng.integers(18, 80, n).astype(float),
            "sex": rng.choice(["F", "M"], n),
            "income": rng.integers(10, 200, n) * 1000,
        }
    )
    frame.loc[rng.random(n) < 0.03, "age"] = np.nan
    frame.loc[rng.random(n) < 0.003, "sex"] = None
    frame.loc[:2, "zip"] = "03000"  # three people alone in their ZIP area: suppressed
    folder = tmp_path_factory.mktemp("generated")
    frame.assign(age=frame["age"].astype("Int64")).to_parquet(folder / "g.parquet")
    frame.assign(age=frame["age"].map(lambda a: "?" if pd.isna(a) else str(int(a)))).to_csv(
        folder / "g.csv", index=False
    )
    (folder / "zip.csv").write_text(
        "".join(f"{z};{z[:4]}*;{z[:3]}**;*\n" for z in [*zips, "03000"]), encoding="utf-8"
    )
    (folder / "age.csv").write_text(
        "".join(
            f"{a};{a // 10 * 10}-{a // 10 * 10 + 9};{'<50' if a < 50 else '50+'};*\n"
            for a in range(18, 80)
        ),
        encoding="utf-8",
    )
    (folder / "sex.csv").write_text("F;*\nM;*\n", encoding="utf-8")
    return folder


@pytest.mark.parametrize("source", ["g.parquet", "g.csv"])
def test_missing_values_suppression_and_a_numeric_sa_agree_on_every_engine(
    generated, tmp_path, capsys, source
):
    """k = 25 with 2 % suppression on 3 QIs with missing values: the rows suppressed,
    the released values, the measurement (PL/UL/loss, t of the numeric SA) and the attack
    agree on every engine, for a Parquet and a CSV source."""
    hierarchies = [
        arg
        for column in ("zip", "age", "sex")
        for arg in ("--hierarchy", f"{column}={generated / f'{column}.csv'}")
    ]
    common = ["--qi", "zip,age,sex", "--sa", "income", *hierarchies]
    outputs = {}
    for name in AVAILABLE:
        out = tmp_path / f"{name}.parquet"
        report = cli(
            capsys,
            "anonymize",
            generated / source,
            *common,
            "--identifiers",
            "",
            "--k",
            "25",
            "--max-suppression",
            "0.02",
            "--out",
            out,
            "--keep-order",
            "--engine",
            name,
        )
        measured = cli(
            capsys,
            "measure",
            "--original",
            generated / source,
            "--release",
            out,
            *common,
            "--k",
            "25",
            "--t",
            "0.5",
            "--engine",
            name,
        )
        attacked = cli(
            capsys,
            "attack",
            "--original",
            generated / source,
            "--release",
            out,
            *common,
            "--engine",
            name,
        )
        release = pd.read_parquet(out)
        outputs[name] = (report, measured, attacked, release)
    first = outputs[AVAILABLE[0]]
    report, measured, attacked, release = first
    starred = (release[["zip", "age", "sex"]] == "*").all(axis=1).sum()
    assert starred > 0 and report["k"] >= 25  # rows suppressed (all-* cells)
    # all-* rows are one class when they meet k together, else counted as suppressed
    assert report["suppressed_rows"] in (0, starred)
    assert measured["t_closeness"]["income"]["distance"] == "ordered"
    assert release["zip"].str.startswith("0").all() or (release["zip"] == "*").any()
    for name, (rep, mea, att, rel) in outputs.items():
        for part in (rep, mea, att):
            part.pop("engine")
        assert without_timings(rep) == without_timings(report), name
        assert without_timings(mea) == without_timings(measured), name
        assert without_timings(att) == without_timings(attacked), name
        pd.testing.assert_frame_equal(rel.astype(str), release.astype(str), obj=name)
