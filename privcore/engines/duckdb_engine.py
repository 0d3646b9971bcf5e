"""The DuckDB engine: embedded, out of core. DuckDB streams the file, groups and counts;
only the frequency set comes back into memory.

A table is read as :func:`privcore.data.load` reads a Parquet file: column names
stripped; dates and times as ``YYYY-MM-DD`` text; numbers and booleans as they are; text
cells stripped of surrounding white space and read as missing when they are one of
:data:`~privcore.data.loading.MISSING_MARKERS`. DuckDB groups the raw values; the text
rules are applied to the distinct combinations it returns, which are then merged
(:func:`~privcore.engines.base.regrouped`) — the same Python rules as the loader's, at the
cost of the frequency set, not of the table.
"""

from __future__ import annotations

import glob
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from privcore.engines.base import COUNT, check_columns, regrouped
from privcore.errors import DataFormatError, InfeasibleError


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


class DuckDBTable:
    """A table scanned by DuckDB: the connection and the SQL of its normalized rows."""

    def __init__(self, connection: Any, sql: str, columns: list[str], text: list[str]) -> None:
        self.connection = connection
        self.sql = sql
        self.columns = columns
        self.text = text  # the text columns, normalized after grouping


class DuckDBEngine:
    """Row-level work in embedded DuckDB. ``memory_limit`` (e.g. ``"2GB"``) and
    ``temp_dir`` (where it spills) are DuckDB's settings of the same names; ``threads``
    its worker threads (default: DuckDB's, the number of cores)."""

    name = "duckdb"

    def __init__(
        self,
        *,
        memory_limit: str | None = None,
        temp_dir: str | Path | None = None,
        threads: int | None = None,
    ) -> None:
        import duckdb

        self.connection = duckdb.connect(":memory:")
        self._attached: dict[str, str] = {}  # database files attached, by path
        self.connection.execute("SET enable_progress_bar = false")  # privcore reports its own
        if memory_limit:
            self.connection.execute(f"SET memory_limit = {_literal(str(memory_limit))}")
        if temp_dir:
            self.connection.execute(f"SET temp_directory = {_literal(str(temp_dir))}")
        if threads:
            self.connection.execute(f"SET threads = {int(threads)}")

    def scan(self, source: str | Path, *, table: str | None = None) -> DuckDBTable:
        """A Parquet file or a glob of Parquet parts — or, with ``table``, that table of
        the DuckDB database file ``source`` (attached read-only) — read lazily."""
        text = str(source)
        if not (glob.has_magic(text) and glob.glob(text)) and not Path(text).is_file():
            raise DataFormatError(f"No file matches {source}.", code="data.not_found")
        if table is None:
            raw = f"read_parquet({_literal(text)})"
        else:
            raw = self._attached_table(Path(text), table)
        described = self.connection.execute(f"DESCRIBE SELECT * FROM {raw}").fetchall()
        selects, names, text = [], [], []
        for column, kind, *_ in described:
            name = str(column).strip()
            names.append(name)
            cell = _quote(str(column))
            kind = str(kind).upper()
            if kind == "VARCHAR" or kind.startswith("ENUM"):
                text.append(name)
                expression = f"CAST({cell} AS VARCHAR)"
            elif kind.startswith(("DATE", "TIMESTAMP")):
                expression = f"strftime(CAST({cell} AS DATE), '%Y-%m-%d')"
            else:
                expression = cell
            selects.append(f"{expression} AS {_quote(name)}")
        sql = f"SELECT {', '.join(selects)} FROM {raw}"
        return DuckDBTable(self.connection, sql, names, text)

    def _attached_table(self, path: Path, table: str) -> str:
        """The SQL name of ``table`` in the DuckDB database file ``path``, attached
        read-only (once per file)."""
        import duckdb

        key = str(path.resolve())
        alias = self._attached.get(key)
        if alias is None:
            alias = f"source_{len(self._attached)}"
            try:
                self.connection.execute(f"ATTACH {_literal(str(path))} AS {alias} (READ_ONLY)")
            except duckdb.Error as exc:
                raise DataFormatError(
                    f"{path.name} is not a DuckDB database file this version can read.",
                    code="engines.bad_database",
                ) from exc
            self._attached[key] = alias
        tables = {
            row[0]
            for row in self.connection.execute(
                "SELECT table_name FROM duckdb_tables() WHERE database_name = ?", [alias]
            ).fetchall()
        }
        if table not in tables:
            raise DataFormatError(
                f"The database {path.name} has no table {table!r} "
                f"(it has: {', '.join(sorted(tables)) or 'none'}).",
                code="engines.no_table",
                table=table,
            )
        return f"{alias}.{_quote(table)}"

    def rows(self, table: DuckDBTable) -> int:
        return int(self._execute(table, f"SELECT count(*) FROM ({table.sql})").fetchone()[0])

    def _execute(self, table: DuckDBTable, sql: str) -> Any:
        """Run ``sql``; DuckDB running out of its memory limit (when even spilling to
        disk is not enough) is a clear error, not a crash."""
        import duckdb

        try:
            return table.connection.execute(sql)
        except duckdb.OutOfMemoryException as exc:
            limit = table.connection.execute("SELECT current_setting('memory_limit')").fetchone()
            raise InfeasibleError(
                f"DuckDB ran out of memory within its limit ({limit[0]}), even spilling to "
                "disk. Raise the memory limit, use fewer threads, or group fewer columns.",
                code="engines.out_of_memory",
                limit=str(limit[0]),
            ) from exc

    def columns(self, table: DuckDBTable) -> list[str]:
        return list(table.columns)

    def frequency_set(self, table: DuckDBTable, columns: Sequence[str]) -> pd.DataFrame:
        """``SELECT columns, count(*) … GROUP BY columns`` (NULL is one group, as SPEC §9
        asks of missing values), then the text rules on the distinct combinations."""
        columns = check_columns(table.columns, columns)
        listed = ", ".join(_quote(c) for c in columns)
        frame = self._execute(
            table,
            f"SELECT {listed}, count(*) AS {_quote(COUNT)} FROM ({table.sql}) GROUP BY {listed}",
        ).df()
        return regrouped(frame, columns, [c for c in columns if c in table.text])
