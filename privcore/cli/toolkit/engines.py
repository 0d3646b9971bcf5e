"""``--engine``: which engine reads a command's tables (SPEC §9). ``auto`` keeps a table
in memory (pandas) unless it is a DuckDB database file or holds more than
``PRIVCORE_ENGINE_ROWS`` rows, which DuckDB reads out of core; a release and its
original are then paired and assessed from their joint frequency set
(:mod:`privcore.runs.tables`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from privcore.cli.toolkit.files import file_names, hierarchies, release_inputs
from privcore.cli.toolkit.output import say
from privcore.runs import Inputs

#: The default of PRIVCORE_ENGINE_ROWS: above this many rows ``--engine auto`` reads
#: with DuckDB.
ENGINE_ROWS = 2_000_000

_DATABASE_SUFFIXES = (".duckdb", ".ddb", ".db")


def engine_rows() -> int:
    """``PRIVCORE_ENGINE_ROWS`` (default :data:`ENGINE_ROWS`)."""
    from privcore.config import _env_int

    return _env_int("PRIVCORE_ENGINE_ROWS", ENGINE_ROWS)


def _estimated_rows(path: str) -> int:
    """Rows of the table at ``path`` without reading it: the metadata of a Parquet file
    (or of its parts: a glob, a folder); a text file's size over the mean length of its
    first 1,000 lines; other files 0 (the loader reads them)."""
    from privcore.data.loading.parts import table_parts
    from privcore.errors import DataFormatError

    try:
        parts = table_parts(path).files
    except DataFormatError:
        return 0  # the loader will say what is wrong
    total = 0
    for part in parts:
        suffix = Path(part).suffix.lower()
        if suffix == ".parquet":
            import pyarrow.parquet as pq

            try:
                total += pq.ParquetFile(part).metadata.num_rows
            except Exception:  # noqa: BLE001 - not Parquet after all: the loader will say
                return 0
        elif suffix in (".csv", ".tsv", ".txt") and Path(part).is_file():
            with open(part, "rb") as handle:
                head = handle.read(1 << 20)
            lines = head.count(b"\n")
            if lines:
                total += int(Path(part).stat().st_size / (len(head) / lines))
    return total


def chosen_engine(args: argparse.Namespace, *paths: str) -> str | None:
    """The engine ``--engine`` names, which reads the tables and groups them into
    frequency sets; ``auto``: duckdb for a DuckDB database file or a table of more than
    :func:`engine_rows` rows, else None: the table is read into memory and the rows are
    worked on directly (the same figures, to the last bits of floating point)."""
    if args.engine != "auto":
        return args.engine
    for path in paths:
        if Path(path).suffix.lower() in _DATABASE_SUFFIXES:
            return "duckdb"
        if _estimated_rows(path) > engine_rows():
            say(f"{path}: more than {engine_rows():,} rows, read with DuckDB (--engine)")
            return "duckdb"
    return None


def open_engine(args: argparse.Namespace, name: str) -> Any:
    """The engine ``name`` with the command's settings (``--memory-limit``,
    ``--temp-dir``, ``--spark-master``)."""
    from privcore.engines import engine

    if name == "duckdb":
        from privcore.engines.duckdb_engine import DuckDBEngine

        return DuckDBEngine(memory_limit=args.memory_limit, temp_dir=args.temp_dir)
    if name == "spark":
        from privcore.engines.spark_engine import SparkEngine

        return SparkEngine(master=args.spark_master)
    return engine(name)


def scan(engine: Any, path: str, table: str | None) -> Any:
    """The table at ``path`` on ``engine`` (``table``: the one to read from a DuckDB
    database file)."""
    if table is not None and Path(path).suffix.lower() in _DATABASE_SUFFIXES:
        return engine.scan(path, table=table)
    return engine.scan(path)


def paired_engine_inputs(args: argparse.Namespace, engine_name: str, **more: Any) -> Inputs:
    """``--original`` and ``--release`` scanned by the engine ``engine_name``, as a run's
    inputs (:class:`privcore.runs.EngineTable`: the run computes on the engine's
    frequency sets); ``more``: other fields of the inputs (``population``,
    ``control``). The history keeps the files' names and the engine, and the frequency
    set the run read."""
    from privcore.data import Schema
    from privcore.runs import EngineTable

    engine = open_engine(args, engine_name)
    original = scan(engine, args.original, args.table)
    release = scan(engine, args.release, None)
    release_name = Path(args.release).name
    return Inputs(
        original=EngineTable(engine, original, Path(args.original).name),
        release=EngineTable(engine, release, release_name),
        release_name=release_name,
        schema=Schema({}, hierarchies(args.hierarchy)),
        names={**file_names(args), "engine": engine_name},
        **more,
    )


def paired_inputs(args: argparse.Namespace) -> tuple[Inputs, str | None]:
    """``--original`` and ``--release`` as a run's inputs, with the engine that reads them:
    scanned by the engine :func:`chosen_engine` names (:func:`paired_engine_inputs`), or
    read into memory (:func:`~privcore.cli.toolkit.files.release_inputs`) with None."""
    engine_name = chosen_engine(args, args.original, args.release)
    if engine_name is not None:
        return paired_engine_inputs(args, engine_name), engine_name
    return release_inputs(args), None
