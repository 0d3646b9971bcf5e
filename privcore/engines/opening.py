"""Opening a table larger than memory in an engine (SPEC §9): :func:`open_table`.

A table is opened from a path of this machine (a Parquet file, a glob or folder of
Parquet parts, a CSV/TSV file, or a table of a DuckDB database file) in DuckDB or Spark
(:func:`make_engine`). What is kept of it is the engine and its handle on the table
(:class:`LargeTable`), never the rows: its first :data:`PREVIEW_ROWS` rows, and a
profile the engine computes (:mod:`privcore.engines.table_profile`), brought into memory
only up to :data:`PROFILE_LIMIT` distinct values of a column, with the roles suggested
from them. :func:`present_values`, :func:`suggested_hierarchy` and :func:`checked_schema`
read that profile when the table's roles and hierarchies are set.

A front end opens a table through :class:`privcore.runs.OpenTableRequest`, in its own
process: the engine's connection cannot cross to a worker.
"""

from __future__ import annotations

import glob
import re
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from privcore.core.progress import Progress, Stage
from privcore.data import Schema
from privcore.data.hierarchy_suggestions import HierarchySuggestion, suggest_hierarchy
from privcore.data.loading.parts import table_parts
from privcore.data.roles import RoleSuggestion
from privcore.engines.duckdb_engine import DuckDBEngine
from privcore.engines.failures import engine_errors
from privcore.engines.spark_engine import SparkEngine, spark_available
from privcore.engines.table_profile import integral, profile_columns, suggest_table_roles
from privcore.engines.text import is_text_file
from privcore.errors import DataFormatError, ParameterError, PrivcoreError

__all__ = [
    "DATABASE_SUFFIXES",
    "PREVIEW_ROWS",
    "PROFILE_LIMIT",
    "LargeTable",
    "checked_schema",
    "make_engine",
    "open_table",
    "present_values",
    "resolve_source",
    "suggested_hierarchy",
    "typed_path",
]

PREVIEW_ROWS = 200  # rows of the table kept in memory (the preview)


PROFILE_LIMIT = 100_000  # distinct values of one column brought into memory, at most


DATABASE_SUFFIXES = (".duckdb", ".ddb", ".db")


_MEMORY = re.compile(r"^\d+(\.\d+)?\s*(B|KB|MB|GB|TB|KIB|MIB|GIB|TIB)$", re.IGNORECASE)


@dataclass(eq=False)
class LargeTable:
    """A table opened in an engine from a path of this machine (:func:`open_table`).

    It holds the engine and its handle on the table (``scanned``), never the table's
    rows: ``preview`` (its first rows), ``profile`` (one row per column, computed by the
    engine), ``distinct`` (each column's one-column frequency set — its distinct values
    and their counts — or None above ``profile_limit`` values) and the role
    ``suggestions`` made from them. ``source``: the path scanned (a folder of Parquet
    parts as the glob of its parts); ``table``: the table of a DuckDB database file;
    ``last_release``: the release file last written from it, and whether its rows were
    shuffled (``last_release_shuffled``: then they do not pair with the table's by
    position).
    """

    name: str
    source: str
    engine: Any
    scanned: Any
    rows: int
    columns: list[str]
    preview: pd.DataFrame
    profile: pd.DataFrame
    distinct: dict[str, pd.DataFrame | None]
    suggestions: list[RoleSuggestion]
    profile_limit: int
    table: str | None = None
    last_release: str | None = None
    last_release_shuffled: bool = False

    @property
    def engine_name(self) -> str:
        return str(self.engine.name)

    @property
    def n_rows(self) -> int:
        return self.rows

    @property
    def n_columns(self) -> int:
        return len(self.columns)

    def summary(self) -> dict[str, Any]:
        """What the history keeps of the table: its name, size and engine (no rows)."""
        return {
            "name": self.name,
            "rows": self.rows,
            "columns": self.n_columns,
            "format": "engine",
            "engine": self.engine_name,
        }

    def close(self) -> None:
        """Let the engine go: a DuckDB connection is closed (a Spark session is shared
        by the process and stays)."""
        connection = getattr(self.engine, "connection", None)
        if self.engine_name == "duckdb" and connection is not None:
            connection.close()


def typed_path(text: Any) -> str:
    """A path as a visitor typed or pasted it, without the white space and quotes around
    it (a file manager's "copy as path" adds quotes); empty when nothing is given."""
    return str(text or "").strip().strip("\"'").strip()


def resolve_source(text: str) -> tuple[str, str]:
    """The path to scan for ``text`` (surrounding quotes and white space removed, ``~``
    expanded) and the table's name: a file, a glob of parts (named after their folder)
    or a folder of parts in any engine's layout (named after the folder;
    :mod:`privcore.data.loading.parts`). A path that matches no file, or a folder
    without Parquet parts, is a clear error."""
    raw = typed_path(text)
    if not raw:
        raise ParameterError("Give the path of a table.", code="data.no_path")
    path = Path(raw).expanduser()
    parts = table_parts(path)
    if parts.is_folder:
        return str(path), path.name
    if glob.has_magic(str(path)) and not path.is_file():
        return str(path), path.parent.name or path.name
    return str(path), path.name


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


def _checked_kind(source: str, name: str, table: str | None, engine: str) -> None:
    """Refuse, in words, a table the engine cannot read as asked: a DuckDB database
    file needs the name of its table and the DuckDB engine, a table name needs a
    database file, and anything else must be Parquet or CSV/TSV."""
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
    parts = not Path(source).is_file()  # a folder or glob of Parquet parts
    if not (database or parts or is_text_file(source) or source.lower().endswith(".parquet")):
        raise DataFormatError(
            f"{name} is not a table the engines read: give a Parquet file or parts, a "
            "CSV/TSV file, or a DuckDB database file.",
            code="data.engine_format",
            name=name,
        )


def open_table(
    path: str,
    *,
    table: str | None = None,
    engine: str = "duckdb",
    memory_limit: str | None = None,
    temp_dir: str | None = None,
    master: str | None = None,
    profile_limit: int | None = None,
    progress: Progress | None = None,
) -> LargeTable:
    """Open the table at ``path`` (``table``: of a DuckDB database file) in ``engine``
    (:func:`make_engine`): its rows counted, its first :data:`PREVIEW_ROWS` rows and its
    profile (:func:`~privcore.engines.table_profile.profile_columns`, at most
    ``profile_limit`` distinct values of a column in memory; default
    :data:`PROFILE_LIMIT`) computed by the engine, roles suggested from them."""
    limit = PROFILE_LIMIT if profile_limit is None else int(profile_limit)
    stage = Stage(progress)
    source, name = resolve_source(path)
    table = (table or "").strip() or None
    _checked_kind(source, name, table, engine)
    stage(0.0, "Reading the table")
    with engine_errors():
        worker = make_engine(engine, memory_limit=memory_limit, temp_dir=temp_dir, master=master)
    with engine_errors(worker):
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


def present_values(table: LargeTable, column: str) -> pd.Series | None:
    """The distinct present values of ``column`` (None above the profile's limit)."""
    counted = table.distinct.get(column)
    if counted is None:
        return None
    values = counted[column]
    return integral(values[values.notna()].reset_index(drop=True)).rename(column)


_SUGGESTED: weakref.WeakKeyDictionary[LargeTable, dict[str, HierarchySuggestion | None]] = (
    weakref.WeakKeyDictionary()
)


def suggested_hierarchy(table: LargeTable, column: str) -> HierarchySuggestion | None:
    """The hierarchy :func:`privcore.data.hierarchy_suggestions.suggest_hierarchy`
    suggests for ``column`` from its distinct values (each counted once), computed once
    per table; None when the column has more distinct values than the profile brought
    into memory, or none at all."""
    known = _SUGGESTED.setdefault(table, {})
    if column not in known:
        values = present_values(table, column)
        suggestion = None
        if values is not None and len(values):
            try:
                suggestion = suggest_hierarchy(values, column)
            except PrivcoreError:
                suggestion = None
        known[column] = suggestion
    return known[column]


def checked_schema(table: LargeTable, schema: Schema) -> None:
    """Raise unless ``schema`` fits the table (:meth:`privcore.data.Schema.validate`):
    every column has a role, and every hierarchy covers the column's distinct values
    (a column above the profile's limit is checked when a run reads it)."""
    parts = {}
    for column in table.columns:
        values = present_values(table, column) if column in schema.hierarchies else None
        parts[column] = pd.Series([], dtype=object) if values is None else values
    frame = pd.concat(parts, axis=1) if parts else pd.DataFrame()
    schema.validate(frame)
