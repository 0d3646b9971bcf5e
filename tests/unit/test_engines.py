"""privcore.engines: pandas and DuckDB read the same Parquet table and give the same
frequency sets (SPEC §9), the loader's rules for text holding on both; DuckDB works out
of core (spilling) under a memory limit far below what the grouping needs."""

from __future__ import annotations

import datetime as dt
import threading
import time

import numpy as np
import pandas as pd
import pytest

from privcore.data import load
from privcore.engines import ENGINES, canonical, engine
from privcore.engines.spark_engine import spark_available
from privcore.errors import DataFormatError, ParameterError
from tests.conftest import ASSETS
from tests.spark_cluster import stop_active_spark

#: The engines that run here: Spark where PySpark and Java are installed (make test
#: installs PySpark; the machines have Java 17), else its tests say why they are skipped.
SPARK_MISSING = spark_available()
AVAILABLE = [name for name in ENGINES if name != "spark" or SPARK_MISSING is None]

ADULT_QI = [
    "age", "sex", "race", "marital-status", "education", "native-country", "workclass",
    "salary-class",
]  # fmt: skip


@pytest.fixture(scope="module", autouse=True)
def stop_spark():
    """One Spark session for this module (the engines share it), stopped at its end."""
    yield
    if SPARK_MISSING is None:
        stop_active_spark()


@pytest.fixture(scope="module")
def adult_parquet(tmp_path_factory):
    path = tmp_path_factory.mktemp("engines") / "adult.parquet"
    load(ASSETS / "adult" / "adult.csv").frame.to_parquet(path)
    return path


def both(path, columns):
    sets = {}
    for name in AVAILABLE:
        e = engine(name)
        table = e.scan(path)
        sets[name] = (e.rows(table), e.columns(table), e.frequency_set(table, columns))
    return sets


def test_adult_gives_the_same_frequency_set_on_every_engine(adult_parquet):
    frame = load(adult_parquet).frame
    columns = [c for c in ADULT_QI if c in frame.columns] + ["occupation"]
    assert len(columns) == 9
    sets = both(adult_parquet, columns)
    rows, names, fs = sets["pandas"]
    for other in AVAILABLE[1:]:
        rows2, names2, fs2 = sets[other]
        assert rows == rows2 == 30_162 and names == names2, other
        assert fs.equals(fs2), other
    assert int(fs["count"].sum()) == 30_162
    # the distinct QI/SA combinations, as an independent pandas group-by counts them
    expected = frame.groupby(columns, dropna=False).size()
    assert len(fs) == len(expected) and sorted(fs["count"]) == sorted(expected.tolist())


def test_text_rules_missing_markers_spaces_zeros_dates_numbers(tmp_path):
    """A small table counted by hand: "北京" with spaces (ASCII, ideographic) around it is
    "北京"; "?", "NA", "" and None are one missing value; "02139" keeps its zero; a date
    is its day; numbers and booleans stay numbers; a missing number is one value too."""
    table = pd.DataFrame(
        {
            "city": ["北京", " 北京 ", "\u3000北京\u3000", "?", "NA", "", None, "上海"],
            "zip": ["02139", "02139", "2139", "02139", None, "?", "02139", "10001"],
            "age": pd.array([30, 30, None, 30, 41, 41, None, 52], dtype="Int64"),
            "day": [dt.datetime(2024, 5, 1, 13, 5)] * 4 + [dt.datetime(2024, 5, 2)] * 4,
            "flag": [True, True, False, True, False, False, True, True],
            "score": [0.5, 0.5, np.nan, 1.25, 1.25, np.nan, 0.5, 2.0],
        }
    )
    path = tmp_path / "t.parquet"
    table.to_parquet(path)
    sets = both(path, ["city", "zip", "age", "day", "flag", "score"])
    for other in AVAILABLE[1:]:
        assert sets["pandas"][2].equals(sets[other][2]), other
    city = both(path, ["city"])["duckdb"][2]
    assert city["city"].tolist() == [None, "上海", "北京"]
    assert city["count"].tolist() == [4, 1, 3]
    zips = both(path, ["zip"])["pandas"][2]
    assert dict(zip(zips["zip"], zips["count"], strict=True)) == {
        None: 2, "02139": 4, "10001": 1, "2139": 1
    }  # fmt: skip
    ages = both(path, ["age"])["duckdb"][2]
    assert ages["age"].isna().tolist() == [True, False, False, False]
    assert ages["count"].tolist() == [2, 3, 2, 1]  # missing, 30, 41, 52
    days = both(path, ["day"])["duckdb"][2]
    assert days["day"].tolist() == ["2024-05-01", "2024-05-02"]


def test_a_glob_of_parts_is_the_table_they_make(adult_parquet, tmp_path):
    frame = pd.read_parquet(adult_parquet)
    half = len(frame) // 2
    frame.iloc[:half].to_parquet(tmp_path / "part-0.parquet")
    frame.iloc[half:].to_parquet(tmp_path / "part-1.parquet")
    whole = both(adult_parquet, ["age", "sex"])
    parts = both(tmp_path / "part-*.parquet", ["age", "sex"])
    for name in AVAILABLE:
        assert parts[name][0] == whole[name][0]
        assert parts[name][2].equals(whole[name][2])


@pytest.fixture(scope="module")
def wide_parquet(tmp_path_factory):
    """Two million distinct text keys (and the first thousand once more)."""
    rng = np.random.default_rng(0)
    keys = np.char.add("person-", rng.permutation(2_000_000).astype(str))
    path = tmp_path_factory.mktemp("wide") / "wide.parquet"
    pd.DataFrame({"key": np.concatenate([keys, keys[:1000]])}).to_parquet(path)
    return path


def _largest_spill(folder, done: threading.Event, seen: list[int]) -> None:
    while not done.is_set():
        files = [f for f in folder.glob("*") if f.is_file()] if folder.exists() else []
        seen[0] = max(seen[0], sum(f.stat().st_size for f in files))
        time.sleep(0.005)


@pytest.mark.slow
def test_duckdb_groups_out_of_core_under_a_small_memory_limit(wide_parquet, tmp_path):
    """Two million distinct keys grouped with a 50 MB memory limit: DuckDB writes to its
    temp directory (seen while it runs) and the counts are right."""
    from privcore.engines.duckdb_engine import DuckDBEngine

    spill = tmp_path / "spill"
    e = DuckDBEngine(memory_limit="50MB", temp_dir=spill, threads=1)
    done, seen = threading.Event(), [0]
    watcher = threading.Thread(target=_largest_spill, args=(spill, done, seen))
    watcher.start()
    try:
        fs = e.frequency_set(e.scan(wide_parquet), ["key"])
    finally:
        done.set()
        watcher.join()
    assert len(fs) == 2_000_000 and int(fs["count"].sum()) == 2_001_000
    assert int((fs["count"] == 2).sum()) == 1000
    assert seen[0] > 50 * 2**20  # more than the memory limit went to disk


def test_running_out_of_even_the_disk_backed_memory_is_a_clear_error(wide_parquet):
    from privcore.engines.duckdb_engine import DuckDBEngine
    from privcore.errors import InfeasibleError

    e = DuckDBEngine(memory_limit="8MB", threads=1)
    with pytest.raises(InfeasibleError) as raised:
        e.frequency_set(e.scan(wide_parquet), ["key"])
    assert raised.value.code == "engines.out_of_memory"
    assert "MiB" in raised.value.params["limit"]  # DuckDB's own words for its limit


def test_canonical_form_sorts_missing_first_and_types_numbers_as_floats():
    raw = pd.DataFrame({"a": ["y", None, "x"], "b": [2, 1, 1], "count": [1, 2, 3]})
    out = canonical(raw, ["a", "b"])
    assert out["a"].tolist() == [None, "x", "y"]
    assert out["b"].dtype == np.float64 and out["count"].tolist() == [2, 3, 1]


def test_bad_requests_are_clear_errors(adult_parquet, tmp_path):
    with pytest.raises(ParameterError) as raised:
        engine("oracle")
    assert raised.value.code == "engines.unknown"
    for name in AVAILABLE:
        e = engine(name)
        with pytest.raises(ParameterError) as raised:
            e.frequency_set(e.scan(adult_parquet), ["age", "no such column"])
        assert raised.value.code == "engines.missing_columns"
        with pytest.raises(DataFormatError):
            e.scan(tmp_path / "absent-*.parquet")
        with pytest.raises(ParameterError) as raised:
            e.frequency_set(e.scan(adult_parquet), ["count"])
        assert raised.value.code in ("engines.reserved_column", "engines.missing_columns")


# --------------------------------------------------------------------------- models


def _adult_release(tmp_path, *, top_rows: int = 0):
    """Adult anonymized in memory (optimal, k = 5), written as Parquet; ``top_rows``
    rows of it turned into the lattice top (every QI ``*``)."""
    from privcore.anonymize import anonymize
    from privcore.data import load_sample
    from privcore.models import KAnonymity

    dataset, schema = load_sample("adult")
    release = anonymize(dataset.frame, schema, [KAnonymity(5)], algorithm="optimal")
    frame = release.frame.copy()
    if top_rows:
        for column in release.qi:
            frame.loc[frame.index[:top_rows], column] = "*"
    path = tmp_path / "release.parquet"
    frame.to_parquet(path)
    return path, list(release.qi), list(release.sa), schema


@pytest.mark.parametrize("top_rows", [0, 3, 40])
def test_the_models_on_an_engine_equal_the_models_in_memory(tmp_path, top_rows):
    """k, distinct / entropy / recursive l and t-closeness from each engine's frequency
    set equal release_classes + evaluate on the released table in memory — the rows
    whose QIs are all ``*`` too (3 of them fail k = 5 and are suppressed; 40 pass and
    are the top class)."""
    from privcore.classes import release_classes
    from privcore.engines.models import release_models
    from privcore.models import (
        DistinctLDiversity,
        EntropyLDiversity,
        KAnonymity,
        RecursiveCLDiversity,
        TCloseness,
        evaluate,
    )

    path, qi, sa, schema = _adult_release(tmp_path, top_rows=top_rows)
    models = [
        KAnonymity(5),
        DistinctLDiversity(2),
        EntropyLDiversity(1.5),
        RecursiveCLDiversity(3.0, 2),
        TCloseness(0.4),
    ]
    frame = load(path).frame
    classes = release_classes(frame, qi, sa, models=models, hierarchies=schema.hierarchies)
    expected = evaluate(classes, models, frame=frame)
    assert expected.summary["suppressed_rows"] == (3 if top_rows == 3 else 0)
    for name in AVAILABLE:
        e = engine(name)
        got = release_models(e, e.scan(path), qi, sa, models, hierarchies=schema.hierarchies)
        assert got.summary == expected.summary, name
        assert got.verdicts == expected.verdicts, name
        assert sorted(got.class_table["size"]) == sorted(expected.class_table["size"])
        assert got.satisfied == expected.satisfied


def test_spark_runs_here_or_says_why():
    """make test installs PySpark and the machines have Java 17: the Spark engine is in
    every equivalence test above; elsewhere it is skipped with the reason."""
    if SPARK_MISSING is not None:
        pytest.skip(f"Spark engine not tested: {SPARK_MISSING}")
    assert "spark" in AVAILABLE


def test_a_table_of_a_duckdb_database_or_of_the_spark_catalog(adult_parquet, tmp_path):
    """The same Adult as a table of a DuckDB database file (DuckDB) and of the Spark
    catalog: the frequency set of the Parquet file; a missing table is a clear error."""
    import duckdb

    from privcore.engines.duckdb_engine import DuckDBEngine

    database = tmp_path / "registry.duckdb"
    with duckdb.connect(str(database)) as con:
        con.execute(f"CREATE TABLE people AS SELECT * FROM read_parquet('{adult_parquet}')")
    columns = ["age", "sex", "occupation"]
    expected = both(adult_parquet, columns)["pandas"][2]
    e = DuckDBEngine()
    assert e.frequency_set(e.scan(database, table="people"), columns).equals(expected)
    assert e.rows(e.scan(database, table="people")) == 30_162  # attached once, read again
    with pytest.raises(DataFormatError) as raised:
        e.scan(database, table="nobody")
    assert raised.value.code == "engines.no_table" and "people" in str(raised.value)
    if SPARK_MISSING is not None:
        return
    spark = engine("spark")
    spark.session.read.parquet(str(adult_parquet)).createOrReplaceTempView("people")
    assert spark.frequency_set(spark.scan(table="people"), columns).equals(expected)
    with pytest.raises(DataFormatError):
        spark.scan(table="nobody")
