"""The engine protocol and the one form of a frequency set that every engine returns."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import pandas as pd

from privcore.errors import ParameterError

#: The engines, by name (Spark runs where PySpark and Java are installed).
ENGINES = ("pandas", "duckdb", "spark")

#: The name of the count column of a frequency set.
COUNT = "count"


class Engine(Protocol):
    """What an engine does: scan a table, say its size and columns, and compute the
    frequency set of some of its columns (SPEC §9)."""

    name: str

    def scan(self, source: str | Path) -> Any:
        """A handle on the table in ``source`` (a Parquet file or a glob of parts; the
        DuckDB and Spark engines also take ``table=``: a table of a DuckDB database file,
        of the Spark catalog)."""

    def rows(self, table: Any) -> int:
        """How many rows the table has."""

    def columns(self, table: Any) -> list[str]:
        """The table's column names, in order."""

    def frequency_set(self, table: Any, columns: Sequence[str]) -> pd.DataFrame:
        """The distinct combinations of ``columns`` with their counts, in
        :func:`canonical` form (missing is one value of its own)."""


def engine(name: str) -> Engine:
    """The engine called ``name`` (one of :data:`ENGINES`)."""
    if name == "pandas":
        from privcore.engines.pandas_engine import PandasEngine

        return PandasEngine()
    if name == "duckdb":
        from privcore.engines.duckdb_engine import DuckDBEngine

        return DuckDBEngine()
    if name == "spark":
        from privcore.engines.spark_engine import SparkEngine

        return SparkEngine()
    raise ParameterError(
        f"Unknown engine {name!r}: choose one of {', '.join(ENGINES)}.",
        code="engines.unknown",
        option="engine",
        allowed=list(ENGINES),
    )


def check_columns(present: Sequence[str], wanted: Sequence[str]) -> list[str]:
    """``wanted`` as a list, every name one of ``present`` (else a clear error)."""
    wanted = [str(c) for c in wanted]
    missing = [c for c in wanted if c not in set(present)]
    if missing:
        raise ParameterError(
            f"Column(s) not in the table: {', '.join(missing)}.",
            code="engines.missing_columns",
            columns=missing,
        )
    if not wanted:
        raise ParameterError("Name at least one column.", code="engines.no_columns")
    if COUNT in wanted:
        raise ParameterError(
            f"A column named {COUNT!r} cannot be grouped by: a frequency set names its "
            "counts so. Rename the column first.",
            code="engines.reserved_column",
            column=COUNT,
        )
    return wanted


def _by_value(values: pd.Series, convert) -> pd.Series:
    """``convert`` applied once per distinct value of ``values`` (missing: None), as an
    object Series in Python text; a frequency set may have millions of rows, its
    columns far fewer distinct values."""
    from privcore.data.codes import factorize

    codes, uniques = factorize(values)
    table = np.empty(len(uniques), dtype=object)
    table[:] = [None if v is None or pd.isna(v) else convert(v) for v in uniques]
    return pd.Series(table[codes], dtype=object)


def _as_text(values: pd.Series) -> pd.Series:
    return _by_value(values.reset_index(drop=True), str)


def normalized_text(values: pd.Series) -> pd.Series:
    """Text cells as :func:`privcore.data.load` reads them: surrounding white space
    stripped (``str.strip``), the missing markers and missing cells missing (None).
    Each distinct value is normalized once."""
    from privcore.data.loading import MISSING_MARKERS

    markers = set(MISSING_MARKERS)
    stripped = _by_value(values, lambda v: str(v).strip())
    out = stripped.where(~stripped.isin(markers), None)
    out.index = values.index
    return out.astype(object)


def regrouped(raw: pd.DataFrame, columns: Sequence[str], text: Sequence[str]) -> pd.DataFrame:
    """The frequency set of the table as the loader reads it, from an engine's frequency
    set of its raw values (``raw``: ``columns`` and ``count``): the ``text`` columns'
    values normalized (:func:`normalized_text`) — a function of the value alone, so the
    distinct raw combinations that become equal merge, their counts added — in
    :func:`canonical` form. The engine groups the rows; this works on the (far fewer)
    distinct combinations."""
    from privcore.classes import group_rows
    from privcore.data.codes import factorize

    frame = raw.copy()
    for column in text:
        frame[column] = normalized_text(frame[column])
    coded = [factorize(frame[c]) for c in columns]
    groups = group_rows(
        [c for c, _ in coded],
        [len(u) for _, u in coded],
        weights=frame[COUNT].to_numpy(dtype=np.float64),
    )
    merged = frame.iloc[groups.first][list(columns)].reset_index(drop=True)
    merged[COUNT] = groups.counts
    return canonical(merged, columns)


def canonical(frame: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """A frequency set in the one form every engine returns, so that two engines' sets
    compare equal with :meth:`pandas.DataFrame.equals`: the ``columns`` in order, then
    ``count`` (int64); a numeric column as float64 (missing: NaN), any other as Python
    text (missing: None); rows sorted by the columns, missing first."""
    out = {}
    for column in columns:
        values = frame[column]
        if pd.api.types.is_bool_dtype(values.dtype):
            out[column] = values.astype("float64")
        elif pd.api.types.is_numeric_dtype(values.dtype):
            out[column] = pd.to_numeric(values, errors="raise").astype("float64")
        else:
            out[column] = _as_text(values)
    result = pd.DataFrame(out, columns=list(columns))
    for column in columns:  # keep Python text and None (pandas would infer its str type)
        if column in out and out[column].dtype == object:
            result[column] = out[column].astype(object)
    result[COUNT] = frame[COUNT].to_numpy(dtype=np.int64)
    return result.sort_values(
        list(columns), na_position="first", kind="mergesort", ignore_index=True
    )
