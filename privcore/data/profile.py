"""Column profile: type, distinct values, missing cells, uniqueness and examples."""

from __future__ import annotations

import numpy as np
import pandas as pd

from privcore.data.codes import value_counts
from privcore.data.roles import _dates_share, uniqueness


def column_type(series: pd.Series) -> str:
    """ "integer", "decimal", "date", "text" or "empty" (all missing)."""
    if series.notna().sum() == 0:
        return "empty"
    if pd.api.types.is_integer_dtype(series.dtype) or pd.api.types.is_bool_dtype(series.dtype):
        return "integer"
    if pd.api.types.is_float_dtype(series.dtype):
        values = series.dropna().to_numpy()
        with np.errstate(invalid="ignore"):  # inf % 1 is NaN: inf is no whole number
            return "integer" if (values % 1 == 0).all() else "decimal"
    if _dates_share(series) >= 0.8:
        return "date"
    return "text"


def profile(frame: pd.DataFrame, *, examples: int = 3) -> pd.DataFrame:
    """One row per column: type, distinct, missing, missing share, uniqueness, examples.

    uniqueness = distinct values / non-missing cells (≈ 1 means a value points to one
    record, the mark of an identifier). Examples are the most frequent values.
    """
    rows = []
    n = len(frame)
    for column in frame.columns:
        series = frame[column]
        missing = int(series.isna().sum())
        counts = value_counts(series)
        present = n - missing
        rows.append(
            {
                "column": str(column),
                "type": column_type(series),
                "distinct": len(counts),
                "missing": missing,
                "missing_share": missing / n if n else 0.0,
                "uniqueness": uniqueness(len(counts), present),
                "examples": ", ".join(str(v) for v in counts.index[:examples]),
            }
        )
    return pd.DataFrame(rows)
