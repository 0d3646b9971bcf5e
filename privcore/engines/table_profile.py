"""The profile of a table opened in an engine and the roles suggested from it.

Per column, the engine computes its one-column frequency set (the distinct values and
their counts), brought into memory only up to a limit of distinct values
(:func:`profile_columns`). Role suggestions (:func:`suggest_table_roles`) apply the
rules of :mod:`privcore.data.roles` to those distinct values; the whole table's rows are
never read into memory.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from privcore.core.progress import Progress
from privcore.data.profile import column_type
from privcore.data.roles import RoleSuggestion, _suggest_one
from privcore.engines.base import COUNT
from privcore.errors import InfeasibleError, ParameterError

__all__ = [
    "TOP_SHOWN",
    "TOP_VALUES_UP_TO",
    "integral",
    "profile_columns",
    "suggest_table_roles",
]

TOP_VALUES_UP_TO = 20  # a column with at most this many distinct values shows its top values


TOP_SHOWN = 5


def profile_columns(
    engine: Any,
    scanned: Any,
    columns: list[str],
    *,
    limit: int,
    progress: Progress | None = None,
) -> tuple[pd.DataFrame, dict[str, pd.DataFrame | None]]:
    """One row per column, computed by the engine from the column's one-column
    frequency set (``grouped(…, limit=limit)``): ``distinct`` present values (NA: more
    than ``limit``), ``missing`` cells (NA: not counted, the set was not brought into
    memory), ``missing_share``, ``uniqueness`` = distinct / present cells, ``min`` and
    ``max`` of a numeric column, ``top`` values (with counts) of a column with at most
    :data:`TOP_VALUES_UP_TO` values, and its ``type`` (:func:`privcore.data.profile.column_type`
    of its distinct values). Returns the profile and each column's frequency set (None
    above the limit)."""
    rows, sets = [], {}
    for index, column in enumerate(columns):
        if progress is not None:
            progress(index / max(len(columns), 1), f"Profiling {column}")
        try:
            counted = engine.grouped(scanned, [column], limit=limit).frame
        except (InfeasibleError, ParameterError) as exc:
            if exc.code not in ("engines.too_many_groups", "engines.reserved_column"):
                raise
            counted = None
        sets[column] = counted
        rows.append(_column_row(column, counted))
    if progress is not None:
        progress(1.0, "Done")
    profile = pd.DataFrame(rows)
    for name in ("distinct", "missing"):
        profile[name] = profile[name].astype("Int64")
    for name in ("missing_share", "uniqueness", "min", "max"):
        profile[name] = profile[name].astype("float64")
    return profile, sets


def _column_row(column: str, counted: pd.DataFrame | None) -> dict[str, Any]:
    """The profile's row of ``column`` from its frequency set (None: above the limit,
    only its name and the type ``many`` are known)."""
    if counted is None:
        return {
            "column": column,
            "type": "many",
            "distinct": None,
            "missing": None,
            "missing_share": None,
            "uniqueness": None,
            "min": None,
            "max": None,
            "top": "",
        }
    values = counted[column]
    present = values.notna().to_numpy()
    counts = counted[COUNT].to_numpy(dtype=np.int64)
    missing = int(counts[~present].sum())
    total = int(counts.sum())
    distinct = int(present.sum())
    kept = values[present]
    numeric = pd.api.types.is_numeric_dtype(values.dtype) and distinct > 0
    top = ""
    if 0 < distinct <= TOP_VALUES_UP_TO:
        order = np.argsort(-counts[present], kind="stable")[:TOP_SHOWN]
        top = " · ".join(
            f"{_shown_value(kept.iloc[i])} ({int(counts[present][i]):,})" for i in order
        )
    return {
        "column": column,
        "type": column_type(integral(kept.reset_index(drop=True))),
        "distinct": distinct,
        "missing": missing,
        "missing_share": missing / total if total else 0.0,
        "uniqueness": distinct / (total - missing) if total > missing else 0.0,
        "min": float(kept.min()) if numeric else None,
        "max": float(kept.max()) if numeric else None,
        "top": top,
    }


def _shown_value(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def integral(values: pd.Series) -> pd.Series:
    """Whole numbers as integers: an engine's frequency set holds every number as a
    float, the loader a column of whole numbers as integers (the role and type rules
    tell the two apart)."""
    if pd.api.types.is_float_dtype(values.dtype):
        finite = values.dropna()
        if len(finite) and np.all(np.isfinite(finite)) and np.all(np.mod(finite, 1) == 0):
            return values.astype("Int64")
    return values


def suggest_table_roles(
    profile: pd.DataFrame,
    distinct: Mapping[str, pd.DataFrame | None],
    preview: pd.DataFrame,
    rows: int,
    limit: int,
) -> list[RoleSuggestion]:
    """One role suggestion per column by the rules of :func:`privcore.data.suggest_roles`
    (value patterns, name, uniqueness, dates), applied to what the engine counted: the
    column's distinct values (value patterns, dates, a single value) and the uniqueness
    ratio distinct / present cells of the whole table. Above ``limit`` distinct values
    the patterns are read in the preview's values and the ratio is its lower bound
    (limit + 1) / rows."""
    suggestions = []
    for record in profile.to_dict("records"):
        column = record["column"]
        counted = distinct.get(column)
        if counted is None:
            values = integral(preview[column].reset_index(drop=True))
            ratio = min(1.0, (limit + 1) / rows) if rows else 0.0
        else:
            values = integral(counted[column].dropna().reset_index(drop=True))
            ratio = float(record["uniqueness"])
        suggestions.append(_suggest_one(column, values.rename(column), rows, ratio))
    return suggestions
