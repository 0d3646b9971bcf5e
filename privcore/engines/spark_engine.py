"""The Spark engine: PySpark, on a cluster or on this machine (``local[2]`` in the tests).

Spark scans, groups and counts where the data is; only the frequency set comes back to
this process. A table is read as :func:`privcore.data.load` reads a Parquet file: column
names stripped; dates and times as ``YYYY-MM-DD`` text (in UTC); numbers and booleans as
they are; text cells stripped of surrounding white space and read as missing when they
are one of :data:`~privcore.data.loading.MISSING_MARKERS` — applied to the distinct
combinations Spark returns, which are then merged
(:func:`~privcore.engines.base.regrouped`). PySpark needs Java 17; it is installed for
the tests (requirements-dev.txt) — ``pip install pyspark`` elsewhere.
"""

from __future__ import annotations

import shutil
import threading
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pandas as pd

from privcore.engines.base import (
    COUNT,
    Engine,
    Regrouped,
    ReleaseWrite,
    check_columns,
    converted_frame,
    key_order_figures,
    normalized_text,
    regrouped,
    released_columns,
    too_many_groups,
)
from privcore.engines.text import is_text_file, text_converters
from privcore.errors import DataFormatError, ParameterError

#: Java's names of the encodings the loader detects.
_JAVA_ENCODINGS = {
    "utf-8": "UTF-8",
    "utf-8-sig": "UTF-8",
    "ascii": "UTF-8",
    "utf-16": "UTF-16",
    "cp1252": "windows-1252",
    "windows-1252": "windows-1252",
    "gb18030": "GB18030",
}


def spark_available() -> str | None:
    """None when the Spark engine can run here, else why not (in words)."""
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return "PySpark is not installed (pip install pyspark)."
    if shutil.which("java") is None:
        return "Java is not installed (PySpark needs Java 17)."
    return None


#: The columns that give a Parquet row's place: its part's path, its index in the part.
PARQUET_ORDER = ("_metadata.file_path", "_metadata.row_index")


#: The default of PRIVCORE_SPARK_TIMEOUT: seconds a block of Spark work may take.
SPARK_TIMEOUT = 3600


def spark_timeout() -> int:
    """``PRIVCORE_SPARK_TIMEOUT`` (default :data:`SPARK_TIMEOUT` seconds)."""
    from privcore.config import _env_int

    return _env_int("PRIVCORE_SPARK_TIMEOUT", SPARK_TIMEOUT)


#: Spark's memory by default, for its driver and for each executor (as Spark writes it).
SPARK_MEMORY = "1g"


def spark_memory(role: str) -> str:
    """``PRIVCORE_SPARK_DRIVER_MEMORY`` or ``PRIVCORE_SPARK_EXECUTOR_MEMORY`` (``role``),
    else :data:`SPARK_MEMORY`. One gigabyte each is enough because no table comes to the
    driver: it receives frequency sets and figures only, and the executors spill what
    exceeds their share."""
    import os

    return os.environ.get(f"PRIVCORE_SPARK_{role}_MEMORY", "").strip() or SPARK_MEMORY


class SparkEngine(Engine):
    """Row-level work in Spark. ``session``: a ``SparkSession`` to use (a cluster's);
    else one is made for ``master`` (``local[2]`` by default, or ``spark://…``,
    ``yarn``…) with ``driver_memory`` and ``executor_memory`` (default
    :func:`spark_memory`)."""

    name = "spark"

    def __init__(
        self,
        session: Any = None,
        *,
        master: str = "local[2]",
        driver_memory: str | None = None,
        executor_memory: str | None = None,
    ) -> None:
        if session is None:
            why = spark_available()
            if why is not None:
                raise ParameterError(
                    f"The Spark engine cannot run here: {why}",
                    code="engines.spark_unavailable",
                    reason=why,
                )
            from pyspark.sql import SparkSession

            session = (
                SparkSession.builder.master(master)
                .appName("privcore")
                .config("spark.ui.enabled", "false")
                .config("spark.ui.showConsoleProgress", "false")
                .config("spark.sql.shuffle.partitions", "8")
                .config("spark.driver.memory", driver_memory or spark_memory("DRIVER"))
                .config("spark.executor.memory", executor_memory or spark_memory("EXECUTOR"))
                .config("spark.sql.session.timeZone", "UTC")
                .config("spark.sql.execution.arrow.pyspark.enabled", "true")
                .getOrCreate()
            )
            session.sparkContext.setLogLevel("ERROR")
        self.session = session

    @contextmanager
    def time_limited(self, seconds: float | None = None) -> Iterator[None]:
        """The Spark jobs this thread starts in the block are one job group, cancelled
        when the block has run ``seconds`` (default :func:`spark_timeout`): a job that
        would hang — a lost worker never replaced, a driver out of memory — ends with
        ``engines.timeout`` in words. Other threads' jobs (other visitors of the app)
        are not touched."""
        limit = spark_timeout() if seconds is None else seconds
        context = self.session.sparkContext
        group = f"privcore-{uuid.uuid4().hex}"
        context.setJobGroup(group, "privcore", interruptOnCancel=True)
        expired = threading.Event()

        def cancel() -> None:
            expired.set()
            context.cancelJobGroup(group)

        timer = threading.Timer(limit, cancel)
        timer.daemon = True
        timer.start()
        try:
            yield
        except Exception as exc:
            if expired.is_set():
                raise DataFormatError(
                    f"Spark did not finish within {limit:g} s (PRIVCORE_SPARK_TIMEOUT): "
                    "its jobs were cancelled.",
                    code="engines.timeout",
                    seconds=limit,
                ) from exc
            raise
        finally:
            timer.cancel()
            context.setLocalProperty("spark.jobGroup.id", None)

    def scan(self, source: str | Path | None = None, *, table: str | None = None) -> Any:
        """A Parquet file or a glob of Parquet parts (or a directory of them), an ORC file,
        a CSV/TSV file — or, with ``table``, that table of the session's catalog — read
        lazily."""
        from pyspark.errors import AnalysisException
        from pyspark.sql import functions as F
        from pyspark.sql.types import DateType, StringType, TimestampNTZType, TimestampType

        if table is None and is_text_file(str(source)):
            return self._scan_text(Path(str(source)))
        try:
            if table is not None:
                raw = self.session.table(table)
            elif str(source).lower().endswith(".orc"):
                raw = self.session.read.orc(str(source))
            else:
                raw = self._read_parquet(source)
        except AnalysisException as exc:
            if table is not None:
                raise DataFormatError(
                    f"The Spark catalog has no table {table!r}.",
                    code="engines.no_table",
                    table=table,
                ) from exc
            raise DataFormatError(f"No file matches {source}.", code="data.not_found") from exc
        selects, converters = [], {}
        for field in raw.schema.fields:
            cell = F.col(f"`{field.name}`")
            name = str(field.name).strip()
            if isinstance(field.dataType, StringType):
                value = cell  # normalized after grouping
                converters[name] = normalized_text
            elif isinstance(field.dataType, (DateType, TimestampType, TimestampNTZType)):
                value = F.date_format(cell, "yyyy-MM-dd")
            else:
                value = cell
            selects.append(value.alias(name))
        order = (
            list(PARQUET_ORDER)
            if table is None and not str(source).lower().endswith(".orc")
            else []
        )
        name = table or Path(str(source)).name
        return SparkTable(
            raw.select(*selects), converters, raw=raw, selects=selects, order=order, name=name
        )

    def _read_parquet(self, source: str | Path) -> Any:
        """The Parquet file, glob or folder of parts at ``source``, as every engine reads
        it (:mod:`privcore.data.loading.parts`): the data files named one by one, and
        for Hive partitions the folder as Spark's base path, so that Spark adds the
        partition columns (their types inferred) after the files' own."""
        from privcore.data.loading.parts import table_parts

        parts = table_parts(source)
        reader = self.session.read
        if parts.partitions:
            reader = reader.option("basePath", parts.root)
        return reader.parquet(*parts.files)

    def _scan_text(self, path: Path) -> SparkTable:
        """A CSV/TSV file with the loader's layout, every cell read as text (one task
        per file: cells may hold line breaks)."""
        from privcore.data.loading import text_layout

        if not path.is_file():
            raise DataFormatError(f"No file matches {path}.", code="data.not_found")
        layout = text_layout(path)
        encoding = _JAVA_ENCODINGS.get(layout.encoding.lower(), layout.encoding)
        if encoding not in ("UTF-8", "UTF-16"):  # Spark 4 reads others with Java's charsets
            self.session.conf.set("spark.sql.legacy.javaCharsets", "true")
        frame = self.session.read.csv(
            str(path),
            sep=layout.delimiter,
            header=True,
            quote='"',
            escape='"',
            encoding=encoding,
            multiLine=True,
            mode="FAILFAST",
            inferSchema=False,
        )
        if len(frame.columns) != len(layout.names):
            raise DataFormatError(
                f"Spark read {len(frame.columns)} columns where the header has "
                f"{len(layout.names)}.",
                code="data.ragged",
            )
        named = frame.toDF(*layout.names)  # one partition: the file's order is kept
        return SparkTable(named, text_converters(layout), name=path.name)

    def rows(self, table: SparkTable) -> int:
        return int(table.frame.count())

    def columns(self, table: SparkTable) -> list[str]:
        return list(table.frame.columns)

    def paired(self, original: SparkTable, release: SparkTable, *, key: str | None = None):
        """One table of the two, row i of ``original`` beside row i of ``release`` (by
        position in their files, or by ``key``), their columns named ``o:<name>`` and
        ``r:<name>``."""
        from pyspark.sql import functions as F

        self._check_paired(original, release, key)
        if key is not None:
            left, right, on = original.frame, release.frame, key
        else:
            left, right, on = original.numbered("__row"), release.numbered("__row"), "__row"
        left = left.select(*[F.col(f"`{c}`").alias(f"o:{c}") for c in left.columns])
        right = right.select(*[F.col(f"`{c}`").alias(f"r:{c}") for c in right.columns])
        # a sort-merge join: neither table is broadcast to the workers or held by the driver
        right = right.hint("merge")
        joined = left.join(right, left[f"`o:{on}`"] == right[f"`r:{on}`"], "inner")
        if key is not None:
            missing = self.rows(original) - joined.count()
            if missing:
                raise DataFormatError(
                    f"{missing:,} key(s) of the original are not in the release: every row "
                    f"must be in both to pair them by '{key}'.",
                    code="measure.alignment",
                    key=key,
                )
        names = [f"o:{c}" for c in original.frame.columns] + [
            f"r:{c}" for c in release.frame.columns
        ]
        converters = {f"o:{c}": f for c, f in original.converters.items()}
        converters.update({f"r:{c}": f for c, f in release.converters.items()})
        return SparkTable(
            joined.select(*[f"`{n}`" for n in names]),
            converters,
            name=f"{original.name} + {release.name}",
        )

    def _check_key(self, original: SparkTable, release: SparkTable, key: str) -> None:
        """``key`` is a column of both tables and names each of their rows once."""
        check_columns(self.columns(original), [key])
        check_columns(self.columns(release), [key])
        for side in (original, release):
            if side.frame.select(f"`{key}`").distinct().count() != self.rows(side):
                raise DataFormatError(
                    f"The key '{key}' repeats in {side.name}: it must name each row once.",
                    code="measure.key_not_unique",
                    key=key,
                )

    def key_order(self, original: SparkTable, release: SparkTable, key: str) -> dict:
        """The rows paired by ``key`` (:meth:`Engine.key_order`): each table's rows
        numbered in file order (:meth:`SparkTable.numbered`), joined on the key, each
        pair ranked by its position in either file (``row_number``), Σ d² summed as
        decimal(38, 0). The key's values are ranked as numbers when every cell reads as
        one (``try_cast`` of the trimmed text to double), else as text (code-point
        order); ties get their average rank; ρ with the row position is ``corr``."""
        from pyspark.sql import Window
        from pyspark.sql import functions as F

        self._check_key(original, release, key)
        cell = F.col(f"`{key}`")
        sides = [
            table.numbered("__privcore_row").select(
                cell.alias("k"), F.col("__privcore_row").alias(position)
            )
            for table, position in ((original, "po"), (release, "pr"))
        ]
        ranked = (
            sides[0]
            .join(sides[1], "k")
            .select(
                F.row_number().over(Window.orderBy("po")).alias("ro"),
                F.row_number().over(Window.orderBy("pr")).alias("rr"),
            )
        )
        difference = (F.col("ro") - F.col("rr")).cast("decimal(38,0)")
        n, squared, in_place = ranked.agg(
            F.count(F.lit(1)),
            F.coalesce(F.sum(difference * difference), F.lit(0).cast("decimal(38,0)")),
            F.sum(F.when(F.col("ro") == F.col("rr"), 1).otherwise(0)),
        ).first()
        text = F.trim(cell.cast("string"))
        number = text.try_cast("double")
        rows, numbers = original.frame.agg(F.count(F.lit(1)), F.count(number)).first()
        value = number if rows == numbers else text
        ties = F.count(F.lit(1)).over(Window.partitionBy("v"))
        rank = F.rank().over(Window.orderBy(F.col("v").asc_nulls_first())) + (ties - 1) / 2.0
        rho = (
            original.numbered("__privcore_row")
            .select(value.alias("v"), F.col("__privcore_row").alias("p"))
            .select(rank.alias("rk"), "p")
            .agg(F.corr("rk", "p"))
            .first()[0]
        )
        return key_order_figures(n, int(squared), in_place or 0, rows, rho)

    def grouped(
        self, table: SparkTable, columns: Sequence[str], *, limit: int | None = None
    ) -> Regrouped:
        """``groupBy(columns).count()`` (null is one group, as SPEC §9 asks of missing
        values), brought back as pandas; then the loader's rules on the distinct
        combinations. ``limit``: more distinct raw combinations than this is an error
        (``engines.too_many_groups``), found before they are brought back."""
        columns = check_columns(self.columns(table), columns)
        grouped = table.frame.groupBy(*[f"`{c}`" for c in columns]).count()
        if limit is not None:
            grouped = grouped.limit(int(limit) + 1)
        frame = grouped.toPandas()  # through Arrow: no Python object per combination
        if limit is not None and len(frame) > limit:
            raise too_many_groups(limit, columns)
        frame.columns = [*columns, COUNT]
        return regrouped(_typed(frame, table.frame, columns), columns, table.converters)

    def restricted(self, table: SparkTable, column: str, raw_values: Sequence[Any]) -> SparkTable:
        """The rows of ``table`` whose raw value of ``column`` is one of ``raw_values``
        (None: missing) — a fragment."""
        from pyspark.sql import functions as F

        present = [v for v in raw_values if v is not None and not pd.isna(v)]
        test = F.col(f"`{column}`").isin(present)
        if len(present) < len(raw_values):
            test = test | F.col(f"`{column}`").isNull()
        return SparkTable(table.frame.filter(test), table.converters, name=table.name)

    def head(self, table: SparkTable, rows: int) -> pd.DataFrame:
        """The first ``rows`` rows, with the loader's values."""
        frame = _typed(table.first(int(rows)).toPandas(), table.frame, table.frame.columns)
        return converted_frame(frame, table.converters)

    def _write_release(self, table: SparkTable, job: ReleaseWrite) -> int:
        """Write the release of ``table`` to ``job.out``: a directory of Parquet parts
        (which :func:`pandas.read_parquet` reads as one table) for ``.parquet``, else one
        CSV file. Each row's cells in the grouped columns are replaced by the released
        values of its row of the frequency set, by a broadcast join with the distinct raw
        combinations (null-safe); the ``drop`` columns are left out, the others copied as
        stored. Returns the rows written. ``shuffle_seed``: rows in an order drawn from
        it; None: in the table's order."""
        from pyspark.sql import functions as F

        columns = job.columns
        mapping = released_columns(job.grouped, job.released)
        shuffled = job.shuffle_seed is not None
        left = table.frame if shuffled else table.numbered("__privcore_row")
        for column in mapping.columns:  # Spark needs one type per column
            if mapping[column].dtype == object:
                mapping[column] = mapping[column].map(lambda v: None if v is None else str(v))
        right = self.session.createDataFrame(mapping)
        condition = [left[f"`{c}`"].eqNullSafe(right[f"`raw:{c}`"]) for c in columns]
        joined = left.join(F.broadcast(right), condition, "inner")
        outputs = [
            (right if name in columns else left)[f"`{name}`"].alias(name)
            for name in table.frame.columns
            if name not in job.drop
        ]
        if not shuffled:
            joined = joined.orderBy("__privcore_row")  # a projection keeps the order
        result = joined.select(*outputs)
        if job.as_csv:
            result = _guarded(result)
        if shuffled:
            result = result.orderBy(F.rand(int(job.shuffle_seed)))
        if job.as_csv:
            _write_one_csv(result, job.out)
        else:
            result.write.mode("overwrite").parquet(str(job.out))
        return job.grouped_rows


class SparkTable:
    """A table scanned by Spark: its DataFrame, the conversions of its columns' distinct
    values (applied after grouping) and how to number its rows in the file's order
    (``order``: columns of the ``raw`` scan to sort by, e.g. a Parquet file's path and
    row index; none: the DataFrame's own order)."""

    def __init__(
        self,
        frame: Any,
        converters: dict,
        *,
        raw: Any = None,
        selects: list | None = None,
        order: list[str] | None = None,
        name: str = "table",
    ) -> None:
        self.frame = frame
        self.converters = converters
        self.raw = raw
        self.selects = selects
        self.order = order or []
        self.name = name

    def first(self, rows: int) -> Any:
        """The first ``rows`` rows in the file's order (Spark takes the least ``rows``
        of each partition by the order's keys, then of those: no full sort)."""
        if not self.order:
            return self.frame.limit(rows)
        from pyspark.sql import functions as F

        keys = [f"__order{i}" for i in range(len(self.order))]
        frame = self.raw.select(
            *self.selects, *[F.col(c).alias(k) for c, k in zip(self.order, keys, strict=True)]
        )
        return frame.orderBy(*keys).limit(rows).drop(*keys)

    def numbered(self, name: str) -> Any:
        """The rows with their position in the files (0, 1, …) as column ``name``.

        Parquet parts: position = the rows of the parts before the row's own (in path
        order) + its index in its part. The rows per part are counted in the engine and
        the few counts joined back, so no row leaves its partition and no window puts
        the table in one task (which a table of 10⁶ rows and more would not survive).
        Other sources: the rows in the DataFrame's order, numbered in one window."""
        from pyspark.sql import Window
        from pyspark.sql import functions as F

        if tuple(self.order) == PARQUET_ORDER:
            path, index = (F.col(c) for c in PARQUET_ORDER)
            frame = self.raw.select(*self.selects, path.alias("__part"), index.alias("__index"))
            counts = self.raw.groupBy(path.alias("__part")).count()
            before = F.sum("count").over(Window.orderBy("__part")) - F.col("count")
            offsets = counts.select("__part", before.alias("__offset"))
            numbered = frame.join(F.broadcast(offsets), "__part")
            numbered = numbered.withColumn(name, F.col("__offset") + F.col("__index"))
            return numbered.select(*self.frame.columns, name)
        window = Window.orderBy(F.monotonically_increasing_id())
        return self.frame.withColumn(name, F.row_number().over(window) - 1)


def _guarded(frame: Any) -> Any:
    """:func:`privcore.data.writing.guard_formulas` on the text columns and the column
    names of ``frame``: a quote before a cell a spreadsheet would read as a formula, and
    one after each line break inside a cell followed by what would start one."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType

    from privcore.data.writing import (
        FORMULA_AFTER_BREAK,
        FORMULA_START,
        PLAIN_NUMBER,
        guard_text,
    )

    columns = []
    for field in frame.schema.fields:
        cell = F.col(f"`{field.name}`")
        if isinstance(field.dataType, StringType):
            formula = cell.rlike("^" + FORMULA_START) & ~cell.rlike(f"^(?:{PLAIN_NUMBER})$")
            cell = F.when(formula, F.concat(F.lit("'"), cell)).otherwise(cell)
            cell = F.regexp_replace(cell, FORMULA_AFTER_BREAK, "$1'$2")
        columns.append(cell.alias(guard_text(field.name)))
    return frame.select(*columns)


def _write_one_csv(result: Any, target: Path) -> None:
    """``result`` as one CSV file at ``target`` (Spark writes a directory of parts: one
    part is written, then moved). Cells are written as they are: Spark's writer would
    strip their leading and trailing spaces (`` =1`` would lose the space that keeps
    it from being a formula); it quotes a cell holding a CR or an LF."""
    import shutil
    import tempfile

    with tempfile.TemporaryDirectory(dir=target.parent) as scratch:
        parts = Path(scratch) / "parts"
        result.coalesce(1).write.csv(
            str(parts),
            header=True,
            quote='"',
            escape='"',
            ignoreLeadingWhiteSpace=False,
            ignoreTrailingWhiteSpace=False,
        )
        (part,) = parts.glob("part-*")
        shutil.move(str(part), target)


def kinds(table: Any) -> dict[str, Any]:
    """The Spark type of each column of ``table``."""
    return {f.name: f.dataType for f in table.schema.fields}


def _typed(frame: pd.DataFrame, table: Any, columns: Sequence[str]) -> pd.DataFrame:
    """Numbers and booleans as numbers whatever pandas type they came back in (a
    boolean or integer column with a missing value comes back as objects)."""
    from pyspark.sql.types import BooleanType, NumericType

    types = kinds(table)
    out = frame.copy()
    for column in columns:
        if isinstance(types[column], (NumericType, BooleanType)):
            out[column] = pd.to_numeric(out[column].astype(object), errors="raise").astype(
                "float64"
            )
    return out
