"""How a table's columns become integer codes and counts: the first step of every group-by.

The column-level operations of the one row-level seam (:mod:`privcore.classes`
re-exports them; the data layer, which lies below it, uses them from here):

- :func:`factorize`: a column's codes and distinct values, missing one value of its own
  (as SQL's GROUP BY treats NULL);
- :func:`value_codes`: the same with missing left out (code -1) and the distinct values
  in their own type;
- :func:`combine_codes`: one key per row for several columns;
- :func:`compact_codes` and :class:`TableCodes`: codes in the smallest integer type that
  holds them, each column of a table factorized once and shared by every step that
  reads it (1 byte per row for a column of at most 127 values instead of 8);
- :func:`value_counts`, :func:`n_distinct`, :func:`duplicated`: counts, the number of
  distinct values and repeated values of one column;
- :func:`records_in`: the records some rows stand for (a frequency set's rows weighted).

:mod:`privcore.classes` builds equivalence classes on them; the released-cell grammar
(:mod:`privcore.data.cells`) and the hierarchies read each distinct cell once through them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from privcore.errors import ParameterError, RoleError

__all__ = [
    "SUPPRESSED",
    "TableCodes",
    "code_dtype",
    "combine_codes",
    "compact_codes",
    "duplicated",
    "factorize",
    "is_number",
    "n_distinct",
    "records_in",
    "value_codes",
    "value_counts",
]

#: How a suppressed quasi-identifier is shown.
SUPPRESSED = "*"


def factorize(values: pd.Series | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes 0..m-1 per row and the m distinct values; missing is one value."""
    codes, uniques = pd.factorize(pd.Series(values, copy=False), use_na_sentinel=False)
    return codes.astype(np.int64, copy=False), np.asarray(uniques, dtype=object)


def code_dtype(size: int) -> np.dtype:
    """The smallest signed integer type holding the codes -1..size-1 (int8 up to 127
    codes, int16 up to 32,767, int32 up to 2,147,483,647, else int64)."""
    for dtype in (np.int8, np.int16, np.int32):
        if size <= np.iinfo(dtype).max:
            return np.dtype(dtype)
    return np.dtype(np.int64)


def compact_codes(codes: np.ndarray, size: int) -> np.ndarray:
    """``codes`` (each in -1..size-1) in :func:`code_dtype` of ``size``, without a copy
    when they already are."""
    return np.asarray(codes).astype(code_dtype(size), copy=False)


class TableCodes:
    """The columns of one table as integer codes, each factorized once, when first asked.

    ``codes(column)`` are :func:`factorize`'s codes (missing is a value) in the smallest
    integer type (:func:`compact_codes`); ``uniques(column)`` the distinct values as an
    object array, as :func:`factorize` returns them; ``values(column)`` the same values in
    the column's own type (a pandas Index: numbers stay numbers, text stays text). Every
    step of a measurement reads the same codes (the equivalence classes, the entropies,
    the information loss, the real records), so each column is hashed once and held at
    1–4 bytes per row.
    """

    def __init__(self, frame: pd.DataFrame, *, same_as: TableCodes | None = None) -> None:
        self.frame = frame
        self.same_as = same_as
        self._columns: dict[str, tuple[np.ndarray, pd.Index]] = {}
        self._objects: dict[str, np.ndarray] = {}

    def __len__(self) -> int:
        return len(self.frame)

    def __contains__(self, column: object) -> bool:
        return column in self.frame.columns

    def _factorized(self, column: str) -> tuple[np.ndarray, pd.Index]:
        if column not in self._columns:
            other = self.same_as
            if (
                other is not None
                and column in other
                and _same_data(self.frame[column], other.frame[column])
            ):
                self._columns[column] = other._factorized(column)
                return self._columns[column]
            codes, uniques = pd.factorize(
                pd.Series(self.frame[column], copy=False), use_na_sentinel=False
            )
            if not isinstance(uniques, pd.Index):
                uniques = pd.Index(uniques)
            self._columns[column] = (compact_codes(codes, len(uniques)), uniques)
        return self._columns[column]

    def codes(self, column: str) -> np.ndarray:
        """Per row, the index of its value among :meth:`uniques` (missing is a value)."""
        return self._factorized(column)[0]

    def cardinality(self, column: str) -> int:
        """How many distinct values (missing counted as one) the column holds."""
        return len(self._factorized(column)[1])

    def values(self, column: str) -> pd.Index:
        """The distinct values in order of first appearance, in the column's own type."""
        return self._factorized(column)[1]

    def uniques(self, column: str) -> np.ndarray:
        """The distinct values as an object array (:func:`factorize`'s second result)."""
        if column not in self._objects:
            self._objects[column] = np.asarray(self._factorized(column)[1], dtype=object)
        return self._objects[column]


def _same_data(a: pd.Series, b: pd.Series) -> bool:
    """Whether two columns are one array in memory (same values at the same rows): the
    same pandas array, the same Arrow array, or NumPy arrays with one data pointer, shape,
    strides and type."""
    if len(a) != len(b) or a.dtype != b.dtype:
        return False
    x, y = a.array, b.array
    if x is y:
        return True
    if hasattr(x, "__arrow_array__") and hasattr(y, "__arrow_array__"):
        return x.__arrow_array__() is y.__arrow_array__()
    if isinstance(x, pd.arrays.NumpyExtensionArray) and isinstance(
        y, pd.arrays.NumpyExtensionArray
    ):
        u, v = np.asarray(x), np.asarray(y)
        return (u.__array_interface__["data"][0], u.shape, u.strides, u.dtype) == (
            v.__array_interface__["data"][0],
            v.shape,
            v.strides,
            v.dtype,
        )
    return False


def value_codes(values: Any, *, sort: bool = False) -> tuple[np.ndarray, Any]:
    """Integer codes 0..m-1 per row, -1 for a missing value, and the m distinct present
    values as pandas returns them (an Index or array of the column's own type, so that
    numbers stay numbers and dates dates). ``sort``: codes in value order, else in order
    of first appearance. ``values``: a Series, Index, extension array or 1-D array."""
    codes, uniques = pd.factorize(values, sort=sort, use_na_sentinel=True)
    return np.asarray(codes, dtype=np.int64), uniques


def value_counts(series: pd.Series, *, sort: bool = True) -> pd.Series:
    """How many rows hold each present value of ``series``: most frequent first (ties in
    order of first appearance), or in order of first appearance with ``sort=False``;
    missing values are not counted."""
    return series.value_counts(dropna=True, sort=sort)


def n_distinct(series: pd.Series) -> int:
    """The number of distinct present values of ``series`` (missing is not a value)."""
    return int(series.nunique(dropna=True))


def duplicated(values: Any) -> np.ndarray:
    """Boolean per row: the value already appeared in an earlier row (missing equals
    missing). ``values``: a Series, Index or 1-D array (an Index keeps its type)."""
    index = values if isinstance(values, pd.Index) else pd.Index(values)
    return np.asarray(index.duplicated(keep="first"))


def combine_codes(columns: Sequence[np.ndarray], cardinalities: Sequence[int]) -> np.ndarray:
    """One int64 key per row that is equal exactly when every column's code is equal.

    Mixed radix: key = ((c0·m1 + c1)·m2 + c2)…; when the product of cardinalities would
    overflow int64 the partial key is re-factorized first (its cardinality ≤ n). The
    columns may hold codes of any integer type; the key is one new int64 array, built in
    place (no temporary per column).
    """
    if not columns:
        raise RoleError("No quasi-identifier was given.", code="roles.no_qi")
    key = np.array(columns[0], dtype=np.int64)  # a copy: the key is built in place
    span = max(int(cardinalities[0]), 1)
    for codes, card in zip(columns[1:], cardinalities[1:], strict=True):
        card = max(int(card), 1)
        if span * card >= 2**62:
            key, uniques = pd.factorize(key)
            key = key.astype(np.int64, copy=False)
            span = max(len(uniques), 1)
        key *= card
        np.add(key, np.asarray(codes), out=key, casting="unsafe")
        span *= card
    return key


def is_number(dtype: object) -> bool:
    """Whether a column of ``dtype`` holds numbers to compare by value (ranges, widths,
    tolerances): a numeric dtype other than boolean."""
    return bool(pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype))


def records_in(rows: np.ndarray, weights: np.ndarray | None) -> int:
    """The records the rows selected by the boolean mask ``rows`` stand for: their
    number, or Σ weights[rows] when each row of a frequency set stands for ``weights``
    records."""
    if weights is None:
        return int(rows.sum())
    return int(weights[rows].sum())


def checked_counts(values: Any, n_rows: int, *, what: str, code: str) -> np.ndarray:
    """``values`` as int64, one whole number ≥ 1 per row of a table of ``n_rows`` rows
    (the records or people each row of a frequency set stands for, SPEC §9); anything
    else is a :class:`ParameterError` naming ``what`` and the problem."""
    array = np.asarray(values)
    problem = None
    if array.ndim != 1 or len(array) != n_rows:
        problem = f"one number per row: {n_rows:,} rows, {array.size:,} numbers"
    elif not (np.issubdtype(array.dtype, np.integer) or np.issubdtype(array.dtype, np.floating)):
        problem = f"whole numbers, not values of type {array.dtype}"
    elif not np.all(np.isfinite(array)) or not np.all(array == np.round(array)):
        problem = "whole numbers"
    elif array.size and array.min() < 1:
        problem = f"at least 1 each (a row stands for that many), not {array.min()}"
    if problem is not None:
        raise ParameterError(f"The {what} must be {problem}.", code=code, what=what, rows=n_rows)
    return array.astype(np.int64, copy=False)
