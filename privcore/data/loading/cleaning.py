"""Types and cleaning, the same for every format: missing markers become missing
values, an object column whose values are all numbers becomes numeric (text stays text:
a ZIP code "02139" keeps its zero), dates become ``YYYY-MM-DD`` text, and the chunks of
one read are put together with the dtypes one read would give."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from privcore.data.loading.dataset import MISSING_MARKERS


def _finish_frame(frame: pd.DataFrame, *, normalize_text: bool) -> pd.DataFrame:
    """Missing markers to NA; mixed object columns to numbers when every value is one.

    Text stays text (a ZIP code "02139" keeps its zero); an object column (Excel, JSON)
    becomes numeric only when its non-missing cells are numbers, not digit strings.
    """
    for column in frame.columns:
        series = frame[column]
        if pd.api.types.is_numeric_dtype(series.dtype) or pd.api.types.is_bool_dtype(series.dtype):
            continue
        if pd.api.types.is_datetime64_any_dtype(series.dtype):
            frame[column] = series.dt.strftime("%Y-%m-%d").astype("str")
            continue
        if not normalize_text and series.dtype != object:
            continue
        text = series.astype("str").str.strip()
        missing = series.isna() | text.isin(MISSING_MARKERS)
        kept = series.mask(missing)
        if series.dtype == object and pd.api.types.infer_dtype(kept, skipna=True) in (
            "integer",
            "floating",
            "mixed-integer-float",
            "decimal",
        ):
            frame[column] = _narrow_numeric(pd.to_numeric(kept))
        else:
            frame[column] = text.mask(missing)
    return frame


def _narrow_numeric(values: pd.Series) -> pd.Series:
    """Floats that are all whole numbers (and not missing) become int64."""
    if values.notna().all():
        as_float = values.astype("float64")
        if np.all(np.mod(as_float.to_numpy(), 1) == 0):
            return as_float.astype("int64")
    return values.astype("float64")


def _concat_chunks(chunks: list[pd.DataFrame]) -> pd.DataFrame:
    """The chunks of one read as one table, with the dtypes one read would give: a
    column with no value in some chunk (parsed there as float NaN) takes the dtype of
    the chunks that have values (floats for whole numbers, so the gaps stay missing).
    A column with numbers in one chunk and text in another stays mixed (object), as
    pandas' own chunked parsing leaves it."""
    if len(chunks) == 1:
        return chunks[0]
    names = _union_columns(chunks)
    chunks = [c if list(c.columns) == names else c.reindex(columns=names) for c in chunks]
    for position in range(chunks[0].shape[1]):
        columns = [chunk.iloc[:, position] for chunk in chunks]
        if len({column.dtype for column in columns}) == 1:
            continue
        filled = {column.dtype for column in columns if column.notna().any()}
        if len(filled) != 1:
            continue
        target = filled.pop()
        if pd.api.types.is_integer_dtype(target):
            target = np.dtype("float64")
        elif pd.api.types.is_bool_dtype(target):
            target = np.dtype(object)
        for chunk, column in zip(chunks, columns, strict=True):
            if column.dtype != target:
                chunk.isetitem(position, column.astype(target))
    return pd.concat(chunks, ignore_index=True)


def _union_columns(chunks: list[pd.DataFrame]) -> list[Any]:
    """Column names of all chunks in order of first appearance (a JSON key may first
    appear in a later chunk)."""
    return list(dict.fromkeys(name for chunk in chunks for name in chunk.columns))
