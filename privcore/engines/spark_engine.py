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
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from privcore.engines.base import COUNT, check_columns, regrouped
from privcore.errors import DataFormatError, ParameterError


def spark_available() -> str | None:
    """None when the Spark engine can run here, else why not (in words)."""
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return "PySpark is not installed (pip install pyspark)."
    if shutil.which("java") is None:
        return "Java is not installed (PySpark needs Java 17)."
    return None


class SparkEngine:
    """Row-level work in Spark. ``session``: a ``SparkSession`` to use (a cluster's);
    else one is made for ``master`` (``local[2]`` by default, or ``spark://…``,
    ``yarn``…) with ``driver_memory``."""

    name = "spark"

    def __init__(
        self,
        session: Any = None,
        *,
        master: str = "local[2]",
        driver_memory: str = "1g",
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
                .config("spark.driver.memory", driver_memory)
                .config("spark.sql.session.timeZone", "UTC")
                .config("spark.sql.execution.arrow.pyspark.enabled", "true")
                .getOrCreate()
            )
            session.sparkContext.setLogLevel("ERROR")
        self.session = session

    def scan(self, source: str | Path | None = None, *, table: str | None = None) -> Any:
        """A Parquet file or a glob of Parquet parts (or a directory of them) — or, with
        ``table``, that table of the session's catalog — read lazily."""
        from pyspark.errors import AnalysisException
        from pyspark.sql import functions as F
        from pyspark.sql.types import DateType, StringType, TimestampNTZType, TimestampType

        try:
            raw = (
                self.session.table(table)
                if table is not None
                else self.session.read.parquet(str(source))
            )
        except AnalysisException as exc:
            if table is not None:
                raise DataFormatError(
                    f"The Spark catalog has no table {table!r}.",
                    code="engines.no_table",
                    table=table,
                ) from exc
            raise DataFormatError(f"No file matches {source}.", code="data.not_found") from exc
        selects = []
        for field in raw.schema.fields:
            cell = F.col(f"`{field.name}`")
            name = str(field.name).strip()
            if isinstance(field.dataType, StringType):
                value = cell  # normalized after grouping
            elif isinstance(field.dataType, (DateType, TimestampType, TimestampNTZType)):
                value = F.date_format(cell, "yyyy-MM-dd")
            else:
                value = cell
            selects.append(value.alias(name))
        return raw.select(*selects)

    def rows(self, table: Any) -> int:
        return int(table.count())

    def columns(self, table: Any) -> list[str]:
        return list(table.columns)

    def frequency_set(self, table: Any, columns: Sequence[str]) -> pd.DataFrame:
        """``groupBy(columns).count()`` (null is one group, as SPEC §9 asks of missing
        values), brought back as pandas; then the text rules on the distinct combinations."""
        from pyspark.sql.types import StringType

        columns = check_columns(self.columns(table), columns)
        grouped = table.groupBy(*[f"`{c}`" for c in columns]).count()
        frame = grouped.toPandas()  # through Arrow: no Python object per combination
        frame.columns = [*columns, COUNT]
        text = [c for c in columns if isinstance(kinds(table)[c], StringType)]
        return regrouped(_typed(frame, table, columns), columns, text)


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
