"""The DuckDB engine: embedded, out of core. DuckDB streams the file, groups and counts;
only the frequency set comes back into memory.

A Parquet table is read as :func:`privcore.data.load` reads it: column names stripped;
dates and times as ``YYYY-MM-DD`` text; numbers and booleans as they are; text cells
stripped of surrounding white space and read as missing when they are one of
:data:`~privcore.data.loading.MISSING_MARKERS`. A CSV/TSV file is read with the loader's
layout (:func:`~privcore.data.loading.text_layout`: encoding, delimiter, names, the
columns kept as text for their leading zeros), every cell as text; its cells then get the
loader's values (:func:`~privcore.data.loading.text_cells`: numbers where the whole column
is numbers, markers missing, the formula guard removed). A text file in an encoding other
than UTF-8 or UTF-16 (Windows-1252, GB18030) is first copied as UTF-8 into the temporary
directory, in one streaming pass. DuckDB groups the raw values; the rules are applied to
the distinct combinations it returns, which are then merged
(:func:`~privcore.engines.base.regrouped`) — the same Python rules as the loader's, at the
cost of the frequency set, not of the table.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from privcore.engines.base import (
    COUNT,
    Converter,
    Engine,
    Regrouped,
    ReleaseWrite,
    check_columns,
    converted_frame,
    is_text,
    key_order_figures,
    normalized_text,
    regrouped,
    released_columns,
    too_many_groups,
)
from privcore.engines.text import is_text_file, text_converters, utf8_copy
from privcore.errors import DataFormatError, InfeasibleError


def _guarded(cell: str) -> str:
    """SQL of :func:`privcore.data.writing.guard_formulas` on one text cell: a quote
    before a cell a spreadsheet would read as a formula (it starts, after any quotes,
    with = + - @ tab or carriage return, and is not a plain number), and one after each
    line break inside it followed (after any quotes) by = + - @ or tab."""
    from privcore.data.writing import FORMULA_AFTER_BREAK, FORMULA_START, PLAIN_NUMBER

    started = (
        f"CASE WHEN regexp_matches({cell}, {_literal('^' + FORMULA_START)}) AND NOT "
        f"regexp_full_match({cell}, {_literal(PLAIN_NUMBER)}) THEN {QUOTE_PREFIX} || {cell} "
        f"ELSE {cell} END"
    )
    quoted = _literal(r"\1'\2")  # a quote between the line break and what follows
    return f"regexp_replace({started}, {_literal(FORMULA_AFTER_BREAK)}, {quoted}, 'g')"


QUOTE_PREFIX = "'" + "'" + "'" + "'"  # the SQL literal of one quote


def outputs_only(outputs: Sequence[str]) -> list[str]:
    """The source expressions of ``x AS name`` select items."""
    return [item.rsplit(" AS ", 1)[0] for item in outputs]


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


class DuckDBTable:
    """A table scanned by DuckDB: the connection, the SQL of its rows as read
    (``selects`` from ``source``), the conversions of its columns' distinct values
    (applied after grouping), and how its rows are ordered in the file (``order``: the
    SQL to sort by; ``""`` when the scan keeps the file's order; ``position``: the SQL
    of a column that already holds each row's position 0, 1, …, or ``""``)."""

    def __init__(
        self,
        connection: Any,
        selects: Sequence[str],
        source: str,
        columns: list[str],
        converters: Mapping[str, Converter],
        name: str,
        order: str = "",
        position: str = "",
    ) -> None:
        self.connection = connection
        self.selects = list(selects)
        self.source = source
        self.columns = columns
        self.converters = dict(converters)
        self.name = name
        self.order = order
        self.position = position

    @property
    def sql(self) -> str:
        return f"SELECT {', '.join(self.selects)} FROM {self.source}"

    def numbered_sql(self, name: str) -> str:
        """The rows with their position in the file (0, 1, …) as column ``name`` (read
        from the ``position`` column when the rows carry it already)."""
        selects = ", ".join(self.selects)
        if self.position:
            return f"SELECT {selects}, {self.position} AS {_quote(name)} FROM {self.source}"
        window = f"ORDER BY {self.order}" if self.order else ""
        return (
            f"SELECT {', '.join(self.selects)}, row_number() OVER ({window}) - 1 AS "
            f"{_quote(name)} FROM {self.source}"
        )


#: The most memory DuckDB takes by default, and the least (bytes).
DEFAULT_MEMORY_CAP = 4 * 2**30
DEFAULT_MEMORY_FLOOR = 512 * 2**20


def machine_memory() -> int:
    """Bytes of memory this process may use: the machine's, or its container's limit
    (cgroup v2 ``memory.max``, v1 ``memory.limit_in_bytes``) when that is lower."""
    import os

    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    for limit_file in (
        "/sys/fs/cgroup/memory.max",
        "/sys/fs/cgroup/memory/memory.limit_in_bytes",
    ):
        try:
            text = Path(limit_file).read_text().strip()
        except OSError:
            continue
        if text.isdigit():
            total = min(total, int(text))
    return total


def default_memory_limit() -> str:
    """DuckDB's memory limit when none is given: ``PRIVCORE_DUCKDB_MEMORY``, else a
    quarter of :func:`machine_memory`, at least 512 MiB and at most 4 GiB.

    DuckDB's own default, 80 % of the machine, leaves nothing for the Python process
    that holds the frequency sets, nor for other users of a shared machine (measured:
    8.7 GB peak to anonymize 3·10⁷ rows); DuckDB spills above its limit, so a lower
    one costs time, not results."""
    import os

    chosen = os.environ.get("PRIVCORE_DUCKDB_MEMORY", "").strip()
    if chosen:
        return chosen
    quarter = machine_memory() // 4
    return f"{min(max(quarter, DEFAULT_MEMORY_FLOOR), DEFAULT_MEMORY_CAP) // 2**20}MiB"


class DuckDBEngine(Engine):
    """Row-level work in embedded DuckDB. ``memory_limit`` (e.g. ``"2GB"``; default
    :func:`default_memory_limit`) and ``temp_dir`` (where it spills) are DuckDB's
    settings of the same names; ``threads`` its worker threads (default: DuckDB's, the
    number of cores)."""

    name = "duckdb"
    #: a release's classes are measured in SQL (:mod:`privcore.engines.class_report`)
    #: when they are too many to bring into memory
    classes_in_sql = True

    def __init__(
        self,
        *,
        memory_limit: str | None = None,
        temp_dir: str | Path | None = None,
        threads: int | None = None,
    ) -> None:
        import duckdb

        self.connection = duckdb.connect(":memory:")
        self.temp_dir = str(temp_dir) if temp_dir else None
        self._scratch: tempfile.TemporaryDirectory | None = None  # UTF-8 copies
        self._attached: dict[str, str] = {}  # database files attached, by path
        self._fragments = 0  # value lists registered for fragments
        self.connection.execute("SET enable_progress_bar = false")  # privcore reports its own
        self.memory_limit = str(memory_limit or default_memory_limit())
        self.connection.execute(f"SET memory_limit = {_literal(self.memory_limit)}")
        if temp_dir:
            self.connection.execute(f"SET temp_directory = {_literal(str(temp_dir))}")
        if threads:
            self.connection.execute(f"SET threads = {int(threads)}")

    def scan(self, source: str | Path, *, table: str | None = None) -> DuckDBTable:
        """A Parquet file, a glob of Parquet parts or a folder of them (any engine's
        output, Hive partitions included: :mod:`privcore.data.loading.parts`), a CSV/TSV
        file — or, with ``table``, that table of the DuckDB database file ``source``
        (attached read-only) — read lazily."""
        from privcore.data.loading.parts import table_parts

        text = str(source)
        parts = table_parts(text)  # a clear error when nothing matches
        if table is None and is_text_file(text):
            return self._scan_text(Path(text))
        if table is None:
            files = "[" + ", ".join(_literal(f) for f in parts.files) + "]"
            hive = "true" if parts.partitions else "false"
            raw = f"read_parquet({files}, hive_partitioning = {hive}, union_by_name = true)"
            source = (
                f"read_parquet({files}, hive_partitioning = {hive}, union_by_name = true, "
                "filename = '__privcore_file', file_row_number = true)"
            )
            order = "__privcore_file, file_row_number"
            position = self._parquet_position(files, parts.files)
        else:
            raw = source = self._attached_table(Path(text), table)
            order, position = "rowid", ""
        described = self._described(raw)
        if table is None and parts.partitions:  # DuckDB sorts them: outermost first
            position = {name: i for i, name in enumerate(parts.partitions)}
            described.sort(key=lambda row: position.get(str(row[0]), -1))
        selects, names, converters = [], [], {}
        for column, kind, *_ in described:
            name = str(column).strip()
            names.append(name)
            cell = _quote(str(column))
            kind = str(kind).upper()
            if kind == "VARCHAR" or kind.startswith("ENUM"):
                converters[name] = normalized_text
                expression = f"CAST({cell} AS VARCHAR)"
            elif kind.startswith(("DATE", "TIMESTAMP")):
                expression = f"strftime(CAST({cell} AS DATE), '%Y-%m-%d')"
            else:
                expression = cell
            selects.append(f"{expression} AS {_quote(name)}")
        name = table or Path(text).name
        return DuckDBTable(
            self.connection, selects, source, names, converters, name, order, position
        )

    def _parquet_position(self, listed: str, files: Sequence[str]) -> str:
        """The SQL of each row's position in Parquet ``files`` read in their order (by
        name, then row): ``file_row_number`` plus the rows of the files before it (from
        the files' footers). A scan numbers its rows with it as it reads them, where
        ``row_number()`` over the files' order would hold the whole table to sort it."""
        if len(files) == 1:
            return "file_row_number"
        rows = dict(
            self.connection.execute(
                f"SELECT file_name, num_rows FROM parquet_file_metadata({listed})"
            ).fetchall()
        )
        offsets, before = [], 0
        for file in sorted(rows):
            offsets.append(f"WHEN {_literal(file)} THEN {before}")
            before += int(rows[file])
        return f"(CASE __privcore_file {' '.join(offsets)} END + file_row_number)"

    def _described(self, raw: str) -> list:
        import duckdb

        try:
            return self.connection.execute(f"DESCRIBE SELECT * FROM {raw}").fetchall()
        except duckdb.Error as exc:
            raise DataFormatError(
                f"DuckDB could not read the table: {str(exc).splitlines()[0]}",
                code="engines.unreadable",
            ) from exc

    def _scan_text(self, path: Path) -> DuckDBTable:
        """A CSV/TSV file with the loader's layout, every cell read as text."""
        from privcore.data.loading import text_layout

        layout = text_layout(path)
        if layout.encoding in ("utf-8", "utf-8-sig", "ascii"):
            read, encoding = path, "utf-8"
        elif layout.encoding == "utf-16":
            read, encoding = path, "utf-16"
        else:
            read, encoding = utf8_copy(path, layout.encoding, self._scratch_dir()), "utf-8"
        columns = "{" + ", ".join(f"{_literal(n)}: 'VARCHAR'" for n in layout.names) + "}"
        raw = (
            f"read_csv({_literal(str(read))}, delim = {_literal(layout.delimiter)}, "
            f"header = true, quote = '\"', escape = '\"', encoding = {_literal(encoding)}, "
            f"columns = {columns}, auto_detect = false, strict_mode = true, "
            "null_padding = false)"
        )
        self._described(raw)  # a file DuckDB cannot read fails here, not at the group-by
        names = list(layout.names)
        selects = [_quote(n) for n in names]
        return DuckDBTable(self.connection, selects, raw, names, text_converters(layout), path.name)

    def _scratch_dir(self) -> Path:
        if self._scratch is None:
            self._scratch = tempfile.TemporaryDirectory(prefix="privcore-", dir=self.temp_dir)
        return Path(self._scratch.name)

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
        return int(self._execute(table, f"SELECT count(*) FROM ({table.sql})")[0][0])

    def _execute(self, table: DuckDBTable, sql: str) -> list[tuple]:
        """Run ``sql`` and fetch its rows (all of them: a result left half read would
        keep the connection busy)."""
        return self._guard(table, lambda: table.connection.execute(sql).fetchall())

    def _frame(self, table: DuckDBTable, sql: str) -> pd.DataFrame:
        """The result of ``sql`` as a DataFrame, through Arrow (text stays Arrow text:
        no Python object per cell)."""
        return self._guard(table, lambda: table.connection.sql(sql).to_arrow_table().to_pandas())

    def _guard(self, table: DuckDBTable, call: Any) -> Any:
        """``call()``; DuckDB running out of its memory limit (when even spilling to
        disk is not enough) is a clear error, not a crash."""
        import duckdb

        try:
            return call()
        except duckdb.OutOfMemoryException as exc:
            limit = table.connection.execute("SELECT current_setting('memory_limit')").fetchall()[0]
            raise InfeasibleError(
                f"DuckDB ran out of memory within its limit ({limit[0]}), even spilling to "
                "disk. Raise the memory limit, use fewer threads, or group fewer columns.",
                code="engines.out_of_memory",
                limit=str(limit[0]),
            ) from exc

    def columns(self, table: DuckDBTable) -> list[str]:
        return list(table.columns)

    def paired(
        self, original: DuckDBTable, release: DuckDBTable, *, key: str | None = None
    ) -> DuckDBTable:
        """One table of the two, row i of ``original`` beside row i of ``release`` (by
        position in their files, or by ``key``), their columns named ``o:<name>`` and
        ``r:<name>``: the joint frequency sets of a measurement come from it."""
        self._check_paired(original, release, key)
        if key is not None:
            left, right, on = original.sql, release.sql, f"o.{_quote(key)} = r.{_quote(key)}"
        selects = [f"o.{_quote(c)} AS {_quote('o:' + c)}" for c in original.columns] + [
            f"r.{_quote(c)} AS {_quote('r:' + c)}" for c in release.columns
        ]
        converters = {f"o:{c}": f for c, f in original.converters.items()}
        converters.update({f"r:{c}": f for c, f in release.converters.items()})
        names = [f"o:{c}" for c in original.columns] + [f"r:{c}" for c in release.columns]
        if key is not None:
            source = f"({left}) o JOIN ({right}) r ON {on}"
            joined = self._execute(original, f"SELECT count(*) FROM {source}")[0][0]
            if joined != self.rows(original):
                raise DataFormatError(
                    f"{self.rows(original) - joined:,} key(s) of the original are not in the "
                    f"release: every row must be in both to pair them by '{key}'.",
                    code="measure.alignment",
                    key=key,
                )
        else:  # row i beside row i, as both scans read them: no sort, no hash table
            source = f"({original.sql}) o POSITIONAL JOIN ({release.sql}) r"
        return DuckDBTable(
            self.connection,
            selects,
            source,
            names,
            converters,
            f"{original.name} + {release.name}",
        )

    def _check_key(self, original: DuckDBTable, release: DuckDBTable, key: str) -> None:
        """``key`` is a column of both tables and names each of their rows once."""
        check_columns(original.columns, [key])
        check_columns(release.columns, [key])
        for side in (original, release):
            distinct = self._execute(
                side, f"SELECT count(DISTINCT {_quote(key)}) FROM ({side.sql})"
            )[0][0]
            if distinct != self.rows(side):
                raise DataFormatError(
                    f"The key '{key}' repeats in {side.name}: it must name each row once.",
                    code="measure.key_not_unique",
                    key=key,
                )

    def key_order(self, original: DuckDBTable, release: DuckDBTable, key: str) -> dict:
        """The rows paired by ``key`` (:meth:`Engine.key_order`), in SQL: each table's
        rows numbered in file order (``numbered_sql``), joined on the key, each pair
        ranked by its position in either file (``row_number``), Σ d² summed as HUGEINT.
        The key's values are ranked as numbers when every cell reads as one (``TRY_CAST``
        of the trimmed text to DOUBLE), else as text (code-point order); ties get their
        average rank (``rank`` + (ties − 1) / 2); ρ with the row position is ``corr``."""
        self._check_key(original, release, key)
        cell, row = _quote(key), _quote("__privcore_row")
        numbered = {
            side: f"SELECT {cell} AS k, {row} AS p FROM ({table.numbered_sql('__privcore_row')})"
            for side, table in (("o", original), ("r", release))
        }
        n, squared, in_place = self._execute(
            original,
            f"WITH o AS ({numbered['o']}), r AS ({numbered['r']}), "
            "j AS (SELECT o.p AS po, r.p AS pr FROM o JOIN r ON o.k = r.k), "
            "ranked AS (SELECT CAST(row_number() OVER (ORDER BY po) AS HUGEINT) "
            "- row_number() OVER (ORDER BY pr) AS d FROM j) "
            "SELECT count(*), coalesce(sum(d * d), 0), count(*) FILTER (WHERE d = 0) FROM ranked",
        )[0]
        text = f"trim(CAST({cell} AS VARCHAR))"
        number = f"TRY_CAST({text} AS DOUBLE)"
        rows, numbers = self._execute(
            original, f"SELECT count(*), count({number}) FROM ({original.sql})"
        )[0]
        value = number if rows == numbers else text
        rho = self._execute(
            original,
            f"WITH o AS (SELECT {value} AS v, {row} AS p "
            f"FROM ({original.numbered_sql('__privcore_row')})), "
            "ranked AS (SELECT p, rank() OVER (ORDER BY v NULLS FIRST) "
            "+ (count(*) OVER (PARTITION BY v) - 1) / 2.0 AS rk FROM o) "
            "SELECT corr(rk, p) FROM ranked",
        )[0][0]
        return key_order_figures(n, squared, in_place, rows, rho)

    def grouped(
        self, table: DuckDBTable, columns: Sequence[str], *, limit: int | None = None
    ) -> Regrouped:
        """``SELECT columns, count(*) … GROUP BY columns`` (NULL is one group, as SPEC §9
        asks of missing values), then the loader's rules on the distinct combinations.
        ``limit``: more distinct raw combinations than this is an error
        (``engines.too_many_groups``), found before they are brought into memory."""
        columns = check_columns(table.columns, columns)
        listed = ", ".join(_quote(c) for c in columns)
        cap = "" if limit is None else f" LIMIT {int(limit) + 1}"
        frame = self._frame(
            table,
            f"SELECT {listed}, count(*) AS {_quote(COUNT)} FROM ({table.sql}) "
            f"GROUP BY {listed}{cap}",
        )
        if limit is not None and len(frame) > limit:
            raise too_many_groups(limit, columns)
        return regrouped(frame, columns, table.converters)

    def restricted(self, table: DuckDBTable, column: str, raw_values: Sequence[Any]) -> DuckDBTable:
        """The rows of ``table`` whose raw value of ``column`` is one of ``raw_values``
        (None: missing) — a fragment."""
        self._fragments += 1
        name = f"privcore_fragment_{self._fragments}"
        present = [v for v in raw_values if v is not None and not pd.isna(v)]
        cell = _quote(column)
        if present:  # one raw type per column: pandas infers it (numbers stay numbers)
            self.connection.register(name, pd.DataFrame({"value": present}))
            test = f"{cell} IN (SELECT value FROM {name})"
        else:
            test = "false"
        if len(present) < len(raw_values):
            test = f"({test} OR {cell} IS NULL)"
        return DuckDBTable(
            table.connection,
            ["*"],
            f"({table.sql}) WHERE {test}",
            list(table.columns),
            table.converters,
            table.name,
        )

    def head(self, table: DuckDBTable, rows: int) -> pd.DataFrame:
        """The first ``rows`` rows, with the loader's values (a preview, and the sample
        the role suggestions read)."""
        frame = self._frame(table, f"{table.sql} LIMIT {int(rows)}")
        return converted_frame(frame, table.converters)

    def _write_release(self, table: DuckDBTable, job: ReleaseWrite) -> int:
        """Write the release of ``table`` to ``job.out`` (``.parquet`` or ``.csv``): each
        row's cells in the grouped columns replaced by the released values of its row of
        the frequency set — a join of the table with the distinct raw combinations — the
        ``drop`` columns left out, the others copied as stored. Returns the rows written.
        ``shuffle_seed``: rows sorted by a hash of their cells and the seed (identical
        rows stay together, which says nothing); None: in the table's order."""
        mapping = released_columns(job.grouped, job.released)
        self.connection.register(MAPPING, mapping)
        try:
            text = {c: is_text(mapping[c]) for c in job.columns}
            self._write_joined(
                table, MAPPING, text, job.out, drop=job.drop, shuffle_seed=job.shuffle_seed
            )
        finally:
            self.connection.unregister(MAPPING)
        return job.grouped_rows

    def keep_released(self, table: DuckDBTable, grouped: Regrouped, released: pd.DataFrame) -> None:
        """Keep the released rows of one fragment of ``table`` inside the engine: the
        table's rows whose raw combination is one of ``grouped``'s (the fragment's),
        their cells replaced by the released values (:func:`released_columns`), appended
        with each row's position in the table to a temporary table (:data:`KEPT`, which
        spills to disk within the memory limit). A join holds one fragment's mapping at
        a time, never the whole release's; :meth:`write_kept` then writes the kept rows
        without another join."""
        mapping = released_columns(grouped, released)
        columns = [c for c in grouped.raw.columns if c != COUNT]
        key = " AND ".join(
            f"t.{_quote(c)} IS NOT DISTINCT FROM m.{_quote('raw:' + c)}" for c in columns
        )
        cells = [
            f"m.{_quote(c)} AS {_quote(c)}" if c in columns else f"t.{_quote(c)}"
            for c in table.columns
        ]
        rows = (
            f"SELECT {', '.join(cells)}, t.{_quote(KEPT_ROW)} FROM "
            f"({table.numbered_sql(KEPT_ROW)}) t JOIN {MAPPING} m ON {key}"
        )
        self.connection.register(MAPPING, mapping)
        try:
            exists = self.connection.execute(
                "SELECT count(*) FROM duckdb_tables() WHERE table_name = ? AND temporary",
                [KEPT],
            ).fetchall()[0][0]
            self._execute(
                table,
                f"INSERT INTO {KEPT} BY NAME {rows}"
                if exists
                else f"CREATE TEMP TABLE {KEPT} AS {rows}",
            )
        finally:
            self.connection.unregister(MAPPING)

    def write_kept(
        self,
        table: DuckDBTable,
        out: str | Path,
        *,
        drop: Sequence[str] = (),
        shuffle_seed: int | None = None,
    ) -> None:
        """:meth:`write` of the rows kept by :meth:`keep_released` (``table``'s rows with
        their released values and positions): in the table's order, or shuffled."""
        kept = DuckDBTable(
            self.connection,
            [_quote(c) for c in table.columns],
            KEPT,
            list(table.columns),
            {},
            table.name,
            position=_quote(KEPT_ROW),
        )
        self._write_joined(kept, None, {}, out, drop=drop, shuffle_seed=shuffle_seed)

    def drop_kept(self) -> None:
        """Forget the releases kept by :meth:`keep_released`."""
        self.connection.execute(f"DROP TABLE IF EXISTS {KEPT}")

    def _write_joined(
        self,
        table: DuckDBTable,
        mapping: str | None,
        text: Mapping[str, bool],
        out: str | Path,
        *,
        drop: Sequence[str],
        shuffle_seed: int | None,
    ) -> None:
        """Write ``table`` joined with ``mapping`` (a relation of ``raw:<c>`` keys and
        released ``<c>`` for each column ``c`` of ``text``, which says whether its
        released cells are text) as :meth:`write` describes; with no ``mapping``, the
        table's own cells."""
        from privcore.data.writing import guard_text

        key = " AND ".join(
            f"t.{_quote(c)} IS NOT DISTINCT FROM m.{_quote('raw:' + c)}" for c in text
        )
        join = f"JOIN {mapping} m ON {key}" if mapping else ""
        target = Path(out)
        as_csv = target.suffix.lower() != ".parquet"
        kinds = {row[0]: str(row[1]).upper() for row in self._described(f"({table.sql})")}
        outputs = []
        for name in table.columns:
            if name in drop:
                continue
            source = "m" if name in text else "t"
            cell = f"{source}.{_quote(name)}"
            is_text_cell = text[name] if name in text else kinds[name] == "VARCHAR"
            if as_csv and is_text_cell:
                cell = _guarded(cell)
            outputs.append(f"{cell} AS {_quote(guard_text(name) if as_csv else name)}")
        fmt = "CSV, HEADER true" if as_csv else "PARQUET"
        if shuffle_seed is not None:
            rows = table.sql
            order = f"ORDER BY hash({', '.join(outputs_only(outputs))}, {int(shuffle_seed)})"
        else:
            rows = table.numbered_sql("__privcore_row")
            order = 'ORDER BY t."__privcore_row"'
        self._execute(
            table,
            f"COPY (SELECT {', '.join(outputs)} FROM ({rows}) t {join} {order}) TO "
            f"{_literal(str(target))} "
            f"(FORMAT {fmt})",
        )


#: The name under which :meth:`DuckDBEngine.write` registers its released values.
MAPPING = "privcore_mapping"
#: The temporary table of the fragments' releases kept in the engine
#: (:meth:`DuckDBEngine.keep_released`).
KEPT = "privcore_kept_release"
#: The column of :data:`KEPT` holding each row's position in the table.
KEPT_ROW = "__privcore_kept_row"
