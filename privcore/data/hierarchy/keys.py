"""Value keys: how a data value is matched to a hierarchy's leaves (:func:`value_keys`:
``39`` and ``39.0`` both become ``"39"``), computed on the distinct values only, and
the small text rules the hierarchy's messages share."""

from __future__ import annotations

import datetime as _dt
import decimal
import math
import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from pandas.api import types as ptypes

from privcore.data.codes import value_codes
from privcore.errors import HierarchyError, ParameterError

_MAX_NAMED = 5  # how many offending values an error message names


def _scalar_key(v: Any) -> str:
    """The key of one non-missing scalar (used only on distinct values)."""
    if isinstance(v, str):
        return v
    if isinstance(v, bool | np.bool_):
        return str(bool(v))
    if isinstance(v, numbers.Integral):
        return str(int(v))
    if isinstance(v, float | np.floating):
        f = float(v)
        if math.isfinite(f) and f.is_integer():
            return str(int(f))
        return str(v)
    if isinstance(v, decimal.Decimal):
        if v.is_finite() and v == v.to_integral_value():
            return str(int(v))
        return str(v)
    if isinstance(v, pd.Timestamp | _dt.datetime):
        if (v.hour, v.minute, v.second, v.microsecond) == (0, 0, 0, 0):
            return v.date().isoformat()
        return v.isoformat()
    if isinstance(v, _dt.date):
        return v.isoformat()
    if isinstance(v, bytes):
        return v.decode("utf-8", errors="replace")
    return str(v)


def _float_keys(arr: np.ndarray) -> np.ndarray:
    """Keys of a float array: integral values without ``.0``, others as ``str``."""
    out = arr.astype(str).astype(object)
    as64 = arr.astype(np.float64)
    integral = np.isfinite(as64) & (as64 == np.trunc(as64))
    small = integral & (np.abs(as64) < 2.0**62)
    if small.any():
        out[small] = as64[small].astype(np.int64).astype(str).astype(object)
    big = np.flatnonzero(integral & ~small)
    for i in big:  # loop over (rare) huge distinct values only
        out[i] = str(int(as64[i]))
    return out


def _keys_of_uniques(uniques: Any) -> np.ndarray:
    """Keys (object array of str) of the distinct, non-missing values ``uniques``.

    Vectorized per dtype; a Python loop is used only for mixed object values, and then
    only over the distinct values.
    """
    idx = uniques if isinstance(uniques, pd.Index) else pd.Index(uniques)
    if isinstance(idx.dtype, pd.CategoricalDtype):
        idx = pd.Index(np.asarray(idx, dtype=object).tolist(), dtype=object)
    if len(idx) == 0:
        return np.empty(0, dtype=object)
    dtype = idx.dtype
    if ptypes.is_bool_dtype(dtype):
        return np.where(idx.to_numpy(dtype=bool), "True", "False").astype(object)
    if ptypes.is_integer_dtype(dtype):
        numpy_dtype = getattr(dtype, "numpy_dtype", dtype)
        return idx.to_numpy(dtype=numpy_dtype).astype(str).astype(object)
    if ptypes.is_float_dtype(dtype):
        numpy_dtype = getattr(dtype, "numpy_dtype", dtype)
        return _float_keys(idx.to_numpy(dtype=numpy_dtype))
    if ptypes.is_datetime64_any_dtype(dtype):
        if (idx == idx.normalize()).all():
            return np.asarray(idx.strftime("%Y-%m-%d"), dtype=object)
        return np.asarray([_scalar_key(v) for v in idx], dtype=object)
    if ptypes.is_string_dtype(dtype) and not ptypes.is_object_dtype(dtype):
        return idx.to_numpy(dtype=object)
    arr = idx.to_numpy(dtype=object)
    inferred = ptypes.infer_dtype(arr, skipna=False)
    if inferred == "string":
        return arr.copy()
    if inferred == "integer":
        try:
            return arr.astype(np.int64).astype(str).astype(object)
        except OverflowError:
            pass
    if inferred in ("floating", "mixed-integer-float"):
        return _float_keys(arr.astype(np.float64))
    return np.fromiter((_scalar_key(v) for v in arr), dtype=object, count=len(arr))


def _as_1d(values: Any) -> Any:
    """Something :func:`pandas.factorize` accepts, without copying pandas/numpy input."""
    if isinstance(values, pd.Series | pd.Index | pd.api.extensions.ExtensionArray):
        return values
    if isinstance(values, np.ndarray):
        if values.ndim != 1:
            raise ParameterError(
                f"Expected a one-dimensional column of values, got an array of shape "
                f"{values.shape}.",
                code="hierarchy.bad_values",
                shape=list(values.shape),
            )
        return values
    if isinstance(values, str | bytes) or not hasattr(values, "__iter__"):
        raise ParameterError(
            "Expected a column of values (a Series, array or list), got a single value.",
            code="hierarchy.bad_values",
        )
    return pd.Series(list(values), dtype=object)


def _factorize_keys(values: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(codes, keys)``: per row the index of its distinct value (-1 = missing), and
    the key of each distinct value. O(n) in C, plus work on the distinct values."""
    codes, uniques = value_codes(_as_1d(values))
    return codes, _keys_of_uniques(uniques)


def value_keys(values: Any) -> pd.Series:
    """The string key of every value, as used to match data values to hierarchy leaves.

    Rule: strings stay as they are; integers render as integers; integer-valued floats
    render without ``.0`` (``39.0 -> "39"``); other floats as ``str`` (``"39.5"``);
    dates at midnight as ``YYYY-MM-DD``; missing values (``None``, ``NaN``, ``NA``,
    ``NaT``) stay missing (``<NA>``). Vectorized: the values are factorized, only the
    distinct values are converted, and the keys are taken back to the rows.

    Returns a ``string``-dtype Series aligned with ``values`` (same index if it is a
    Series).
    """
    codes, keys = _factorize_keys(values)
    ext = np.append(keys, None).astype(object)  # code -1 picks the trailing None
    index = values.index if isinstance(values, pd.Series) else None
    name = values.name if isinstance(values, pd.Series) else None
    return pd.Series(ext[codes], index=index, name=name, dtype="string")


_STR = np.dtypes.StringDType()


def _blank(labels: np.ndarray) -> np.ndarray:
    """Boolean mask of the labels that are empty or whitespace only (vectorized)."""
    arr = np.asarray(labels, dtype=object).astype(_STR)
    return (np.strings.str_len(arr) == 0) | np.strings.isspace(arr)


def _quote_list(items: Sequence[Any]) -> str:
    return ", ".join(f"'{x}'" for x in items)


def _named(values: Sequence[Any]) -> str:
    """The first :data:`_MAX_NAMED` of ``values`` quoted, ``, ...`` after them when there
    are more (the values an error message names)."""
    more = ", ..." if len(values) > _MAX_NAMED else ""
    return _quote_list(values[:_MAX_NAMED]) + more


def _refuse_bad_keys(
    keys: np.ndarray, bad: np.ndarray, code: str, problem: str, *, lead: str = ""
) -> None:
    """HierarchyError ``code`` when any of ``keys`` is marked ``bad``: "``lead`` 2 values
    are ``problem``: " followed by the first of them (:func:`_named`), with their count
    and those named as ``params``."""
    if not bad.any():
        return
    named = keys[bad].tolist()
    count = len(named)
    raise HierarchyError(
        f"{lead}{count} value{'s are' if count > 1 else ' is'} {problem}: {_named(named)}.",
        code=code,
        count=count,
        values=named[:_MAX_NAMED],
    )


def _single_character(value: Any, what: str, code: str) -> None:
    """``code`` unless ``value`` is one character (``what`` names it in the message)."""
    if not isinstance(value, str) or len(value) != 1:
        raise ParameterError(
            f"The {what} must be a single character, got {value!r}.",
            code=code,
            value=str(value),
        )
