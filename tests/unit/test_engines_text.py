"""Engines on text files, writing a release, pairing two tables (SPEC §9).

DuckDB and Spark read a CSV/TSV file themselves: with the loader's layout (encoding,
delimiter, names, leading zeros) and the loader's values for its cells, so that every
engine's frequency set equals the one of the table :func:`privcore.data.load` reads.
An engine writes a release by joining the table with the released values of each
distinct combination; it pairs an original and a release row for row by position or
by key.
"""

from __future__ import annotations

import pandas as pd
import pytest

from privcore.data import load
from privcore.engines import ENGINES, engine
from privcore.engines.spark_engine import spark_available
from privcore.errors import DataFormatError
from tests.conftest import ASSETS

SPARK_MISSING = spark_available()
AVAILABLE = [name for name in ENGINES if name != "spark" or SPARK_MISSING is None]


@pytest.fixture(scope="module", autouse=True)
def stop_spark():
    yield
    if SPARK_MISSING is None:
        from pyspark.sql import SparkSession

        session = SparkSession.getActiveSession()
        if session is not None:
            session.stop()


def sets_of(path, columns):
    out = {}
    for name in AVAILABLE:
        e = engine(name)
        out[name] = e.frequency_set(e.scan(path), columns)
    return out


def assert_all_equal(sets):
    first = sets["pandas"]
    for name, fs in sets.items():
        assert fs.equals(first), (name, fs, first)


def test_adult_csv_gives_the_pandas_frequency_set_on_every_engine():
    path = ASSETS / "adult" / "adult.csv"
    columns = ["age", "sex", "race", "marital-status", "education", "occupation"]
    sets = sets_of(path, columns)
    assert_all_equal(sets)
    assert int(sets["pandas"]["count"].sum()) == 30_162


WINDOWS_TABLE = (
    ";zip;city;amount;flag;note\n"  # a written index: the first name is empty
    "0;02139;Köln;12;True;'=1+2\n"
    "1;02140; Köln ;12.5;False;plain\n"
    "2;02139;€-Stadt;NA;True;?\n"
    "3;10001;Köln;7;False;'@x\n"
)


@pytest.mark.parametrize("encoding", ["cp1252", "utf-8", "utf-16"])
def test_a_text_file_reads_as_the_loader_reads_it(tmp_path, encoding):
    """Hand-checked: the blank first name is "index"; "02139" keeps its zero (text);
    "amount" is a number with NA missing; "True"/"False" are booleans (numbers in a
    frequency set); the formula guard's quote is removed ("'=1+2" is "=1+2"); "?" is
    missing; " Köln " keeps its trailing space in a text file, as the loader keeps it
    (the space after the delimiter is skipped: the file has one there)."""
    path = tmp_path / f"table_{encoding}.csv"
    path.write_bytes(WINDOWS_TABLE.encode(encoding))
    loaded = load(path).frame
    assert list(loaded.columns) == ["index", "zip", "city", "amount", "flag", "note"]
    columns = ["zip", "city", "amount", "flag", "note"]
    sets = sets_of(path, columns)
    assert_all_equal(sets)
    fs = sets["pandas"]
    assert fs["zip"].tolist().count("02139") == 2
    assert fs["note"].isna().sum() == 1 and "=1+2" in fs["note"].tolist()
    assert "@x" in fs["note"].tolist()
    assert sorted(fs["amount"].dropna()) == [7.0, 12.0, 12.5]
    assert set(fs["flag"]) == {0.0, 1.0}
    assert "Köln " in fs["city"].tolist() and "€-Stadt" in fs["city"].tolist()


def test_gb18030_text_reads_on_every_engine(tmp_path):
    path = tmp_path / "gb.csv"
    path.write_bytes("城市,人数\n北京,3\n上海,4\n北京,5\n".encode("gb18030"))
    sets = sets_of(path, ["城市"])
    assert_all_equal(sets)
    assert sets["pandas"]["城市"].tolist() == ["上海", "北京"]
    assert sets["pandas"]["count"].tolist() == [1, 2]


@pytest.fixture(scope="module")
def small_table(tmp_path_factory):
    folder = tmp_path_factory.mktemp("write")
    frame = pd.DataFrame(
        {
            "name": ["Ann", "Bob", "Cy", "Di", "Ed", "Flo"],
            "zip": ["02139", "02139", "02140", "02140", None, "02141"],
            "age": [30, 31, 30, 45, 46, 47],
            "disease": ["flu", "flu", "cold", "cold", "flu", "=cmd"],
        }
    )
    frame.to_parquet(folder / "t.parquet")
    frame.to_csv(folder / "t.csv", index=False)
    return folder, frame


@pytest.mark.parametrize("source", ["t.parquet", "t.csv"])
@pytest.mark.parametrize("out_suffix", [".parquet", ".csv"])
def test_every_engine_writes_the_same_release(small_table, source, out_suffix):
    """The released values of each frequency-set row replace the table's cells; the
    identifier is left out; the rows are the table's (sorted, they are equal); a CSV
    release is formula-guarded."""
    folder, _ = small_table
    written = {}
    for name in AVAILABLE:
        e = engine(name)
        table = e.scan(folder / source)
        grouped = e.grouped(table, ["zip", "age", "disease"])
        released = grouped.frame[["zip", "age"]].copy()
        released["zip"] = released["zip"].map(lambda z: "*" if z is None else z[:4] + "*")
        released["age"] = ["<40" if a < 40 else ">=40" for a in grouped.frame["age"]]
        out = folder / f"{name}_{source}{out_suffix}"
        assert e.write(table, grouped, released, out, drop=["name"], shuffle_seed=3) == 6
        result = load(out).frame if out.is_file() else pd.read_parquet(out)
        assert list(result.columns) == ["zip", "age", "disease"]
        written[name] = result.sort_values(list(result.columns), ignore_index=True)
    expected = pd.DataFrame(
        {
            "zip": ["*", "0213*", "0213*", "0214*", "0214*", "0214*"],
            "age": [">=40", "<40", "<40", "<40", ">=40", ">=40"],
            "disease": ["flu", "flu", "flu", "cold", "cold", "=cmd"],
        }
    ).sort_values(["zip", "age", "disease"], ignore_index=True)
    for name, result in written.items():
        pd.testing.assert_frame_equal(result, expected, check_dtype=False, obj=name)
    kept = {}
    for name in AVAILABLE:  # without a seed the release keeps the table's order
        e = engine(name)
        table = e.scan(folder / source)
        grouped = e.grouped(table, ["age"])
        released = pd.DataFrame({"age": [f"a{int(a)}" for a in grouped.frame["age"]]})
        out = folder / f"{name}_{source}_kept{out_suffix}"
        e.write(table, grouped, released, out, shuffle_seed=None)
        kept[name] = load(out).frame if out.is_file() else pd.read_parquet(out)
        assert kept[name]["age"].tolist() == [f"a{a}" for a in (30, 31, 30, 45, 46, 47)], name
        assert kept[name]["name"].tolist() == ["Ann", "Bob", "Cy", "Di", "Ed", "Flo"], name
    if out_suffix == ".csv":
        for name in AVAILABLE:
            text = (folder / f"{name}_{source}.csv").read_text()
            assert ",'=cmd" in text and ",=cmd" not in text, name


def test_pairing_by_position_and_by_key(small_table, tmp_path):
    folder, frame = small_table
    release = frame.assign(age=(frame["age"] // 10) * 10)
    release.to_parquet(tmp_path / "r.parquet")
    release.to_csv(tmp_path / "r.csv", index=False)
    shuffled = release.sample(frac=1, random_state=1)
    shuffled.to_parquet(tmp_path / "shuffled.parquet")
    results = []
    for name in AVAILABLE:
        e = engine(name)
        for original, other, key in [
            ("t.parquet", tmp_path / "r.parquet", None),
            ("t.csv", tmp_path / "r.csv", None),
            ("t.parquet", tmp_path / "shuffled.parquet", "name"),
        ]:
            paired = e.paired(e.scan(folder / original), e.scan(other), key=key)
            fs = e.frequency_set(paired, ["o:name", "o:age", "r:age"])
            results.append(((name, original, key), fs))
    for label, fs in results:
        assert fs["count"].tolist() == [1] * 6, label
        pairs = dict(zip(fs["o:age"], fs["r:age"], strict=True))
        assert pairs == {30: 30, 31: 30, 45: 40, 46: 40, 47: 40}, label
        assert fs.equals(results[0][1]), label


def test_pairing_refuses_tables_that_do_not_line_up(small_table, tmp_path):
    folder, frame = small_table
    frame.head(5).to_parquet(tmp_path / "short.parquet")
    pd.concat([frame, frame.head(1)]).head(6).assign(name="x").to_parquet(tmp_path / "dup.parquet")
    for name in AVAILABLE:
        e = engine(name)
        with pytest.raises(DataFormatError) as error:
            e.paired(e.scan(folder / "t.parquet"), e.scan(tmp_path / "short.parquet"))
        assert error.value.code == "measure.alignment"
        with pytest.raises(DataFormatError) as error:
            e.paired(e.scan(folder / "t.parquet"), e.scan(tmp_path / "dup.parquet"), key="name")
        assert error.value.code == "measure.key_not_unique"
        other = frame.assign(name=[f"x{i}" for i in range(len(frame))])
        other.to_parquet(tmp_path / "other_keys.parquet")
        with pytest.raises(DataFormatError) as error:  # as many rows, other people
            e.paired(
                e.scan(folder / "t.parquet"), e.scan(tmp_path / "other_keys.parquet"), key="name"
            )
        assert error.value.code == "measure.alignment"


@pytest.mark.skipif(SPARK_MISSING is not None, reason=f"Spark cannot run here: {SPARK_MISSING}")
def test_spark_reads_an_orc_file_as_the_same_table(small_table, tmp_path):
    import pyarrow as pa
    import pyarrow.orc as orc

    folder, frame = small_table
    orc.write_table(pa.Table.from_pandas(frame, preserve_index=False), tmp_path / "t.orc")
    e = engine("spark")
    columns = ["zip", "age", "disease"]
    from_orc = e.frequency_set(e.scan(tmp_path / "t.orc"), columns)
    from_parquet = engine("pandas").frequency_set(
        engine("pandas").scan(folder / "t.parquet"), columns
    )
    assert from_orc.equals(from_parquet)
