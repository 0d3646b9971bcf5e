"""How a table's columns become integer codes and counts: the first step of every group-by.

The column-level operations of the one row-level seam (:mod:`privcore.classes`
re-exports them; the data layer, which lies below it, uses them from here):

- :func:`factorize`: a column's codes and distinct values, missing one value of its own
  (as SQL's GROUP BY treats NULL);
- :func:`value_codes`: the same with missing left out (code -1) and the distinct values
  in their own type;
- :func:`combine_codes`: one key per row for several columns;
- :func:`value_counts`, :func:`n_distinct`, :func:`duplicated`: counts, the number of
  distinct values and repeated values of one column.

:mod:`privcore.classes` builds equivalence classes on them; the released-cell grammar
(:mod:`privcore.data.cells`) and the hierarchies read each distinct cell once through them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from privcore.errors import RoleError

__all__ = [
    "SUPPRESSED",
    "combine_codes",
    "duplicated",
    "factorize",
    "n_distinct",
    "value_codes",
    "value_counts",
]

#: How a suppressed quasi-identifier is shown.
SUPPRESSED = "*"


def factorize(values: pd.Series | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes 0..m-1 per row and the m distinct values; missing is one value."""
    codes, uniques = pd.factorize(pd.Series(values, copy=False), use_na_sentinel=False)
    return codes.astype(np.int64, copy=False), np.asarray(uniques, dtype=object)


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
    overflow int64 the partial key is re-factorized first (its cardinality ≤ n).
    """
    if not columns:
        raise RoleError("No quasi-identifier was given.", code="roles.no_qi")
    key = np.asarray(columns[0], dtype=np.int64)
    span = max(int(cardinalities[0]), 1)
    for codes, card in zip(columns[1:], cardinalities[1:], strict=True):
        card = max(int(card), 1)
        if span * card >= 2**62:
            key, uniques = pd.factorize(key)
            key = key.astype(np.int64, copy=False)
            span = max(len(uniques), 1)
        key = key * card + np.asarray(codes, dtype=np.int64)
        span *= card
    return key
