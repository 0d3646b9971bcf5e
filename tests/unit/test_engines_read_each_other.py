"""Every engine reads every engine's release output: a file, a folder of parts with
Spark's ``_SUCCESS`` and checksums, a glob of parts, and Hive partitions written by
pandas, Arrow, DuckDB and Spark (:mod:`privcore.data.loading.parts`)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.dataset as pads
import pytest

from privcore.data import load
from privcore.data.loading.parts import table_parts
from privcore.engines import engine
from privcore.engines.opening import open_table, resolve_source
from privcore.errors import DataFormatError
from tests.unit.test_engines import AVAILABLE, SPARK_MISSING, stop_spark  # noqa: F401

TABLE = pd.DataFrame(
    {
        "zip": ["02138", "02139", "02141", "02142", "02138", "02139", "02141", None],
        "age": [30, 31, 45, 46, 30, 47, 45, 52],
        "sex": ["F", "M", "F", "M", "F", "F", "M", "M"],
        "disease": ["flu", "cold", "flu", "ulcer", "cold", "flu", "flu", "cold"],
    }
)
COLUMNS = ["zip", "age", "sex", "disease"]
RELEASED = {
    "zip": lambda z: "*" if not isinstance(z, str) else z[:4] + "*",
    "age": lambda a: f"{int(a) // 10}0s",
}


def released_by(name: str, folder: Path) -> Path:
    """The release of TABLE written by engine ``name`` (its own layout: a file for pandas
    and DuckDB, a folder of parts with ``_SUCCESS`` for Spark), rows in order."""
    source = folder / "table.parquet"
    if not source.exists():
        TABLE.to_parquet(source, index=False)
    e = engine(name)
    table = e.scan(source)
    grouped = e.grouped(table, ["zip", "age"])
    released = grouped.frame[["zip", "age"]].copy()
    for column, change in RELEASED.items():
        released[column] = [change(v) for v in grouped.frame[column]]
    out = folder / f"by_{name}.parquet"
    assert e.write(table, grouped, released, out, shuffle_seed=None) == len(TABLE)
    return out


def expected_release() -> pd.DataFrame:
    frame = TABLE.copy()
    for column, change in RELEASED.items():
        frame[column] = [change(v) for v in frame[column]]
    return frame


def read_by(name: str, path: Path) -> pd.DataFrame:
    """The table at ``path`` as engine ``name`` reads it (``load``: the loader, which
    the pages and the command line use for a table in memory)."""
    if name == "load":
        return load(path).frame
    e = engine(name)
    table = e.scan(str(path))
    return e.head(table, 1_000)


READERS = ["load", *AVAILABLE]


def same(result: pd.DataFrame, expected: pd.DataFrame, *, ordered: bool, label: str) -> None:
    result = result[list(expected.columns)]
    if not ordered:
        result = result.sort_values(list(expected.columns), ignore_index=True)
        expected = expected.sort_values(list(expected.columns), ignore_index=True)
    pd.testing.assert_frame_equal(
        result.reset_index(drop=True).astype(object).where(result.notna().to_numpy(), None),
        expected.reset_index(drop=True).astype(object).where(expected.notna().to_numpy(), None),
        check_dtype=False,
        obj=label,
    )


@pytest.mark.parametrize("writer", AVAILABLE)
def test_each_engines_release_is_read_alike_by_every_reader(tmp_path, writer):
    out = released_by(writer, tmp_path)
    if writer == "spark":  # a folder of parts with Spark's bookkeeping beside them
        names = {p.name for p in out.iterdir()}
        assert "_SUCCESS" in names and any(n.endswith(".crc") for n in names)
    expected = expected_release()
    for reader in READERS:
        result = read_by(reader, out)
        assert list(result.columns) == COLUMNS, (writer, reader)
        same(result, expected, ordered=True, label=f"{writer} → {reader}")


def hive_by_pandas(frame: pd.DataFrame, out: Path) -> None:
    frame.to_parquet(out, partition_cols=["sex", "age"], index=False)


def hive_by_arrow(frame: pd.DataFrame, out: Path) -> None:
    pads.write_dataset(
        pa.Table.from_pandas(frame, preserve_index=False),
        out,
        format="parquet",
        partitioning=["sex", "age"],
        partitioning_flavor="hive",
    )


def hive_by_duckdb(frame: pd.DataFrame, out: Path) -> None:
    import duckdb

    with duckdb.connect() as connection:
        connection.register("frame", frame)
        connection.execute(f"COPY frame TO '{out}' (FORMAT PARQUET, PARTITION_BY (sex, age))")


def hive_by_spark(frame: pd.DataFrame, out: Path) -> None:
    session = engine("spark").session
    session.createDataFrame(frame).write.partitionBy("sex", "age").parquet(str(out))


HIVE_WRITERS = {"pandas": hive_by_pandas, "arrow": hive_by_arrow, "duckdb": hive_by_duckdb}
if SPARK_MISSING is None:
    HIVE_WRITERS["spark"] = hive_by_spark


@pytest.mark.parametrize("writer", list(HIVE_WRITERS))
def test_hive_partitions_of_every_writer_are_read_by_every_reader(tmp_path, writer):
    """The partition columns come after the parts' own, numbers as numbers; a missing
    value is Hive's ``__HIVE_DEFAULT_PARTITION__`` folder, read as missing."""
    frame = TABLE.assign(sex=TABLE["sex"].where(TABLE.index != 7, None))
    out = tmp_path / f"hive_{writer}.parquet"
    HIVE_WRITERS[writer](frame, out)
    parts = table_parts(out)
    assert parts.partitions == ("sex", "age") and parts.is_folder
    for reader in READERS:
        result = read_by(reader, out)
        assert list(result.columns) == ["zip", "disease", "sex", "age"], (writer, reader)
        assert pd.api.types.is_numeric_dtype(result["age"]), (writer, reader)
        same(result, frame, ordered=False, label=f"{writer} → {reader}")


def test_a_folder_of_parts_reads_in_path_order_and_skips_bookkeeping(tmp_path):
    folder = tmp_path / "parts"
    (folder / "_temporary" / "0").mkdir(parents=True)
    for i in range(3):
        TABLE.iloc[i * 3 : (i + 1) * 3].to_parquet(folder / f"part-{i:05d}.parquet", index=False)
    TABLE.to_parquet(folder / "_temporary" / "0" / "part-99999.parquet")  # unfinished job
    (folder / "_SUCCESS").write_bytes(b"")
    (folder / ".hidden.parquet").write_bytes(b"not a table")  # hidden: not a part
    (folder / ".part-99999.parquet.crc").write_bytes(b"a checksum of no part")
    assert [Path(f).name for f in table_parts(folder).files] == [
        "part-00000.parquet",
        "part-00001.parquet",
        "part-00002.parquet",
    ]
    for reader in READERS:
        same(read_by(reader, folder), TABLE, ordered=True, label=reader)
        same(read_by(reader, folder / "part-*.parquet"), TABLE, ordered=True, label=reader)
    assert resolve_source(str(folder)) == (str(folder), "parts")
    opened = open_table(str(folder), engine="duckdb")
    assert opened.rows == len(TABLE) and opened.columns == COLUMNS


def test_folders_that_are_not_tables_are_refused_in_words(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "_SUCCESS").write_bytes(b"")
    (empty / "notes.txt").write_text("not a part")
    mixed = tmp_path / "mixed"
    (mixed / "sex=F").mkdir(parents=True)
    TABLE.to_parquet(mixed / "sex=F" / "a.parquet", index=False)
    TABLE.to_parquet(mixed / "b.parquet", index=False)
    cases = {
        empty: "data.no_parts",
        mixed: "data.mixed_partitions",
        tmp_path / "nothing-*.parquet": "data.not_found",
    }
    for path, code in cases.items():
        for reader in READERS:
            with pytest.raises(DataFormatError) as caught:
                read_by(reader, path)
            assert caught.value.code == code, (path, reader)


def test_measure_reads_a_spark_release_folder_on_every_engine(tmp_path, capsys, monkeypatch):
    """``privcore measure --release <Spark's folder>``: the same figures in memory and on
    each engine (the folder Spark writes is a table to every one of them)."""
    import json

    from privcore.cli import main

    monkeypatch.setenv("PRIVCORE_HISTORY", str(tmp_path / "history.db"))
    writer = "spark" if SPARK_MISSING is None else "duckdb"
    out = released_by(writer, tmp_path)
    figures = {}
    for name in ["auto", *AVAILABLE]:
        code = main(
            [
                "measure",
                "--original", str(tmp_path / "table.parquet"),
                "--release", str(out),
                "--qi", "zip,age",
                "--sa", "disease",
                "--engine", name,
                "--json",
            ]
        )  # fmt: skip
        printed = capsys.readouterr().out
        assert code == 0, printed
        result = json.loads(printed)
        figures[name] = {key: result[key] for key in ("k", "classes", "l_distinct", "pl", "dr")}
    assert len(set(map(json.dumps, figures.values()))) == 1, figures
