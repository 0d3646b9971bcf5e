"""How a table's columns become integer codes: the first step of every group-by.

:func:`factorize` gives a column's codes and distinct values (missing is one value of its
own, as SQL's GROUP BY treats NULL), :func:`combine_codes` one key per row for several
columns. :mod:`privcore.classes` builds equivalence classes on them; the released-cell
grammar (:mod:`privcore.data.cells`) reads each distinct cell once through them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from privcore.errors import RoleError

__all__ = ["SUPPRESSED", "combine_codes", "factorize"]

#: How a suppressed quasi-identifier is shown.
SUPPRESSED = "*"


def factorize(values: pd.Series | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes 0..m-1 per row and the m distinct values; missing is one value."""
    codes, uniques = pd.factorize(pd.Series(values, copy=False), use_na_sentinel=False)
    return codes.astype(np.int64, copy=False), np.asarray(uniques, dtype=object)


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
