"""Opening a table larger than memory in an engine (SPEC §9; ``privcore.engines``).

A table is opened from a path of this machine (a Parquet file, a glob or folder of
Parquet parts, a CSV/TSV file, or a table of a DuckDB database file) in DuckDB or Spark,
when this installation allows it (:func:`privcore.config.local_tables_allowed`; never on
the hosted demo). The session keeps the engine and its handle on the table
(:class:`ui.common.state.LargeTable`), never the rows: the first :data:`PREVIEW_ROWS`
rows, and a profile the engine computes (:mod:`ui.data.table_profile`), brought into
memory only up to :data:`PROFILE_LIMIT` distinct values of a column.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from privcore.core.progress import Progress, Stage
from privcore.engines.duckdb_engine import DuckDBEngine
from privcore.engines.failures import engine_errors
from privcore.engines.spark_engine import SparkEngine, spark_available
from privcore.engines.text import is_text_file
from privcore.errors import DataFormatError, ParameterError
from ui.common.engine_tables import resolve_source
from ui.common.i18n import t_plain
from ui.common.state import LargeTable
from ui.data.table_profile import profile_columns, suggest_table_roles

PREVIEW_ROWS = 200  # rows of the table a session holds (the preview)


PROFILE_LIMIT = 100_000  # distinct values of one column brought into memory, at most


DATABASE_SUFFIXES = (".duckdb", ".ddb", ".db")


_MEMORY = re.compile(r"^\d+(\.\d+)?\s*(B|KB|MB|GB|TB|KIB|MIB|GIB|TIB)$", re.IGNORECASE)


def make_engine(
    name: str,
    *,
    memory_limit: str | None = None,
    temp_dir: str | None = None,
    master: str | None = None,
) -> Any:
    """A DuckDB engine (``memory_limit`` such as ``4GB``, ``temp_dir`` where it spills)
    or a Spark engine (``master``, ``local[2]`` by default)."""
    if name == "duckdb":
        limit = (memory_limit or "").strip() or None
        if limit is not None and not _MEMORY.match(limit):
            raise ParameterError(
                f"'{limit}' is not an amount of memory DuckDB reads: write it like 4GB or 512MB.",
                code="engines.memory_limit",
                value=limit,
            )
        folder = (temp_dir or "").strip() or None
        if folder is not None:
            folder_path = Path(folder).expanduser()
            if folder_path.exists() and not folder_path.is_dir():
                raise ParameterError(
                    f"{folder_path} is a file, not a folder for DuckDB's temporary files.",
                    code="engines.temp_dir",
                    path=str(folder_path),
                )
            folder = str(folder_path)
        return DuckDBEngine(memory_limit=limit, temp_dir=folder)
    if name == "spark":
        why_not = spark_available()
        if why_not is not None:
            raise ParameterError(why_not, code="engines.spark_unavailable")
        return SparkEngine(master=(master or "").strip() or "local[2]")
    raise ParameterError(
        f"Unknown engine {name!r}: choose duckdb or spark.",
        code="engines.unknown",
        option="engine",
        allowed=["duckdb", "spark"],
    )


def open_table(
    path: str,
    *,
    table: str | None = None,
    engine: str = "duckdb",
    memory_limit: str | None = None,
    temp_dir: str | None = None,
    master: str | None = None,
    limit: int | None = None,
    progress: Progress | None = None,
) -> LargeTable:
    """Open the table at ``path`` (``table``: of a DuckDB database file) in ``engine``:
    its rows counted, its first :data:`PREVIEW_ROWS` rows and its profile
    (:func:`profile_columns`, at most ``limit`` distinct values of a column in memory;
    default :data:`PROFILE_LIMIT`) computed by the engine, roles suggested from them."""
    limit = PROFILE_LIMIT if limit is None else int(limit)
    stage = Stage(progress)
    source, name = resolve_source(path)
    table = (table or "").strip() or None
    database = Path(source).suffix.lower() in DATABASE_SUFFIXES
    if database and table is None:
        raise ParameterError(
            f"{name} is a DuckDB database file: give the name of its table.",
            code="data.table_name",
            name=name,
        )
    if table is not None and not database:
        raise ParameterError(
            "A table name is read from a DuckDB database file (.duckdb, .ddb, .db) only.",
            code="data.table_not_database",
        )
    if database and engine != "duckdb":
        raise ParameterError(
            "A DuckDB database file is read by the DuckDB engine.", code="data.database_engine"
        )
    if not database and not is_text_file(source) and not source.lower().endswith(".parquet"):
        raise DataFormatError(
            f"{name} is not a table the engines read: give a Parquet file or parts, a "
            "CSV/TSV file, or a DuckDB database file.",
            code="data.engine_format",
            name=name,
        )
    stage(0.0, t_plain("lt.step_scan"))
    with engine_errors():
        worker = make_engine(engine, memory_limit=memory_limit, temp_dir=temp_dir, master=master)
        scanned = worker.scan(source, table=table) if table else worker.scan(source)
        rows = worker.rows(scanned)
        columns = [str(c) for c in worker.columns(scanned)]
        preview = worker.head(scanned, PREVIEW_ROWS)
        profile, distinct = profile_columns(
            worker, scanned, columns, limit=limit, progress=stage.part(0.1, 1.0)
        )
    suggestions = suggest_table_roles(profile, distinct, preview, rows, limit)
    return LargeTable(
        name=table or name,
        source=source,
        engine=worker,
        scanned=scanned,
        rows=rows,
        columns=columns,
        preview=preview,
        profile=profile,
        distinct=distinct,
        suggestions=suggestions,
        profile_limit=limit,
        table=table,
    )
