"""One run on an engine writes the file to publish (shuffled) and, when the request asks
for it (``order_copy``), a copy in the table's order from the same search: the copy is,
row for row, what a separate run with the order kept writes; the shuffled file is a
permutation of it; the search runs once and the history holds one run. The command line
offers it as ``anonymize --order-copy PATH``, refused with ``--keep-order`` or
``--from-spec``; without the option the report and the parameters are as before."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import privcore.anonymize
from privcore import history
from privcore.cli import main
from privcore.data import Schema, load_sample
from privcore.engines.duckdb_engine import DuckDBEngine
from privcore.engines.pandas_engine import PandasEngine
from privcore.errors import ParameterError
from privcore.runs import AnonymizeRequest, EngineTable, Inputs, run
from privcore.runs.tables import anonymize_table
from tests.conftest import ASSETS

ROWS = 1500
QI = ("age", "sex", "race", "marital-status", "education")
SA = ("occupation",)
ENGINES = {"pandas": PandasEngine, "duckdb": DuckDBEngine}
HIERARCHIES = [
    arg
    for column in QI
    for arg in ("--hierarchy", f"{column}={ASSETS / 'adult' / f'adult_hierarchy_{column}.csv'}")
]


@pytest.fixture(scope="module")
def adult():
    """The first rows of Adult as Parquet, with a row key (an identifier left out of the
    release), and the sample's schema for the chosen columns."""
    dataset, schema = load_sample("adult")
    frame = dataset.frame.head(ROWS).reset_index(drop=True)
    frame.insert(0, "person", [f"p{i}" for i in range(len(frame))])
    return frame, schema


@pytest.fixture
def table(adult, tmp_path):
    frame, _ = adult
    path = tmp_path / "adult.parquet"
    frame.to_parquet(path, index=False)
    return path


def _schema(adult) -> Schema:
    frame, schema = adult
    restricted = schema.restricted(QI, SA)
    roles = {c: restricted.roles.get(c) for c in frame.columns if c in restricted.roles}
    roles["person"] = "identifier"
    return Schema(roles, dict(restricted.hierarchies))


def _inputs(engine, path, schema, out, *, shuffled=True) -> Inputs:
    return Inputs(
        original=EngineTable(engine, engine.scan(str(path)), path.name),
        schema=schema,
        out=str(out),
        shuffled=shuffled,
    )


@pytest.fixture
def searches(monkeypatch):
    """How many times the anonymization (the search) runs."""
    calls = []
    real = privcore.anonymize.anonymize

    def counted(*args, **kwargs):
        calls.append(kwargs.get("algorithm"))
        return real(*args, **kwargs)

    monkeypatch.setattr(privcore.anonymize, "anonymize", counted)
    return calls


@pytest.mark.parametrize("name", list(ENGINES))
def test_one_run_writes_the_shuffled_file_and_its_copy_in_the_tables_order(
    name, adult, table, tmp_path, searches, isolated_history
):
    engine = ENGINES[name]()
    schema = _schema(adult)
    out, copy = tmp_path / "published.parquet", tmp_path / "published_kept_order.parquet"
    request = AnonymizeRequest(algorithm="datafly", qi=QI, sa=SA, k=5, seed=7, order_copy=str(copy))
    outcome = run(request, _inputs(engine, table, schema, out), page="anonymize")
    assert len(searches) == 1  # one search for both files
    assert [r["kind"] for r in history.list_runs()] == ["anonymize"]  # one history row
    assert history.list_runs()[0]["params"]["order_copy"] == str(copy)

    made = outcome.result
    assert made.out == out and made.order_copy == copy
    assert made.rows_written == made.order_copy_rows == ROWS
    report = made.to_dict()
    assert report["engine"]["order_copy"] == {"path": str(copy), "rows_written": ROWS}
    assert report["engine"]["written_satisfied"] and report["engine"]["written_k"] >= 5

    # the copy is what a run with the order kept writes, row for row
    kept = tmp_path / "kept.parquet"
    alone = run(
        AnonymizeRequest(algorithm="datafly", qi=QI, sa=SA, k=5, seed=7),
        _inputs(engine, table, schema, kept, shuffled=False),
        record=False,
    )
    assert "order_copy" not in alone.result.to_dict()["engine"]
    shuffled, ordered = pd.read_parquet(out), pd.read_parquet(copy)
    pd.testing.assert_frame_equal(ordered, pd.read_parquet(kept))
    assert "person" not in ordered.columns and len(ordered) == ROWS
    # its QIs generalized, its other cells the table's, in the table's order
    original = adult[0]
    assert ordered["occupation"].astype(str).tolist() == original["occupation"].astype(str).tolist()
    # the file to publish: the same rows, in another order
    columns = list(ordered.columns)
    assert list(shuffled.columns) == columns
    assert not shuffled.equals(ordered)
    pd.testing.assert_frame_equal(
        shuffled.sort_values(columns).reset_index(drop=True),
        ordered.sort_values(columns).reset_index(drop=True),
    )


def test_the_copy_of_an_algorithm_that_reads_the_records(adult, table, tmp_path, searches):
    """KACA on an engine (its records read into memory): the copy too, one search."""
    engine = DuckDBEngine()
    schema = _schema(adult)
    out, copy = tmp_path / "kaca.csv", tmp_path / "kaca_kept_order.csv"
    request = AnonymizeRequest(algorithm="kaca", qi=QI, sa=SA, k=5, order_copy=str(copy))
    made = run(request, _inputs(engine, table, schema, out), record=False).result
    assert len(searches) == 1 and made.order_copy_rows == ROWS
    shuffled, ordered = pd.read_csv(out), pd.read_csv(copy)
    columns = list(ordered.columns)
    pd.testing.assert_frame_equal(
        shuffled.sort_values(columns).reset_index(drop=True),
        ordered.sort_values(columns).reset_index(drop=True),
    )
    assert ordered["occupation"].astype(str).tolist() == adult[0]["occupation"].astype(str).tolist()


def test_a_copy_is_refused_with_the_order_kept_or_in_the_releases_place(adult, table, tmp_path):
    engine, schema = PandasEngine(), _schema(adult)
    handle = engine.scan(str(table))
    out = tmp_path / "r.parquet"
    with pytest.raises(ParameterError) as kept:
        anonymize_table(engine, handle, schema, [], out, shuffle=False, order_copy=tmp_path / "c")
    assert kept.value.code == "engines.order_copy_kept"
    with pytest.raises(ParameterError) as same:
        anonymize_table(engine, handle, schema, [], out, order_copy=str(out))
    assert same.value.code == "engines.order_copy_is_out"
    assert not out.exists()


def test_without_a_copy_the_parameters_are_as_before():
    request = AnonymizeRequest(qi=QI, sa=SA)
    assert "order_copy" not in request.to_dict()
    asked = request.replace(order_copy="copy.parquet")
    assert asked.to_dict()["order_copy"] == "copy.parquet"
    assert AnonymizeRequest.from_dict(asked.to_dict()) == asked


# --------------------------------------------------------------------------- CLI


def _cli(capsys, *args) -> tuple[int, dict | str]:
    code = main([*map(str, args)])
    captured = capsys.readouterr()
    return code, (json.loads(captured.out) if code == 0 and "--json" in args else captured.err)


def _anonymize_args(table, out, *more) -> list:
    """``anonymize`` on the table (datafly, k = 5, the Adult hierarchies), ``more`` options."""
    return [
        "anonymize",
        table,
        "--qi",
        ",".join(QI),
        "--sa",
        ",".join(SA),
        "--identifiers",
        "person",
        *HIERARCHIES,
        "--algorithm",
        "datafly",
        "--k",
        "5",
        "--out",
        out,
        *more,
        "--json",
    ]


@pytest.mark.parametrize("engine", ["duckdb", "auto"])  # auto: this small table in memory
def test_the_command_writes_the_copy_with_the_option(engine, table, tmp_path, capsys):
    out, copy = tmp_path / "out.parquet", tmp_path / "out_kept_order.parquet"
    where = ["--engine", engine]
    code, report = _cli(capsys, *_anonymize_args(table, out, "--order-copy", copy, *where))
    assert code == 0, report
    assert report["engine"]["order_copy"] == {"path": str(copy), "rows_written": ROWS}
    shuffled, ordered = pd.read_parquet(out), pd.read_parquet(copy)
    columns = list(ordered.columns)
    assert "person" not in columns and not shuffled.equals(ordered)
    pd.testing.assert_frame_equal(
        shuffled.sort_values(columns).reset_index(drop=True),
        ordered.sort_values(columns).reset_index(drop=True),
    )
    # the copy pairs with the table by position: measure accepts it
    measured = main(
        [
            "measure",
            "--original",
            str(table),
            "--release",
            str(copy),
            "--qi",
            ",".join(QI),
            "--sa",
            ",".join(SA),
            "--json",
        ]
    )
    assert measured == 0, capsys.readouterr().err
    assert json.loads(capsys.readouterr().out)["k"] >= 5


def test_the_command_without_the_option_reports_no_copy(table, tmp_path, capsys):
    out = tmp_path / "out.parquet"
    code, report = _cli(capsys, *_anonymize_args(table, out, "--engine", "duckdb"))
    assert code == 0, report
    assert set(report["engine"]) == {"name", "rows_written", "written_satisfied", "written_k"}
    assert not (tmp_path / "out_kept_order.parquet").exists()


@pytest.mark.parametrize(
    "copy,more,words",
    [
        ("copy.parquet", ["--keep-order"], "with --keep-order the release itself is in that"),
        ("copy.xlsx", ["--engine", "duckdb"], "written as .parquet or .csv"),
        ("OUT", [], "name the same file"),
        ("TABLE", [], "is the input file"),
        ("", [], "needs the path of the file to write"),
    ],
)
def test_the_command_refuses_the_option_in_words(copy, more, words, table, tmp_path, capsys):
    out = tmp_path / "out.parquet"
    path = {"OUT": out, "TABLE": table}.get(copy, tmp_path / copy if copy else "")
    code, said = _cli(capsys, *_anonymize_args(table, out, "--order-copy", path, *more))
    assert code == 2
    assert words in said
    assert not out.exists()


def test_the_command_refuses_the_option_with_a_spec(table, tmp_path, capsys):
    spec = tmp_path / "spec.json"
    spec.write_text("{}", encoding="utf-8")
    argv = ["anonymize", table, "--from-spec", spec, "--out", tmp_path / "o.csv"]
    code, said = _cli(capsys, *argv, "--order-copy", tmp_path / "c.csv")
    assert code == 2 and "not --from-spec" in said


def test_the_option_is_in_the_help(capsys):
    with pytest.raises(SystemExit):
        main(["anonymize", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert "--order-copy PATH" in shown
    assert "for measure, attack and report to pair by position" in shown
    assert "not with --keep-order or --from-spec" in shown
