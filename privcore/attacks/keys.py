"""Comparable keys as codes: the attacks compare a released cell with an original value
by :func:`~privcore.data.cells.comparable_keys` (``39`` = ``39.0`` = ``"39.0"``), and
most of them then only need which rows share a key. :func:`comparable_codes` gives those
codes with the keys worked out on the distinct values alone, never spelt out per row."""

from __future__ import annotations

import numpy as np
import pandas as pd

from privcore.classes import factorize, value_codes
from privcore.data.cells import comparable_keys

__all__ = ["comparable_codes", "comparable_codes_of_both"]


def comparable_codes(values: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Per row of ``values``, the code of its comparable key, and the distinct keys (an
    object array of text, None for the missing key): ``factorize(comparable_keys(values))``
    exactly — codes 0..m-1 in order of first appearance, missing one key of its own.

    The column's distinct values (in its own type, so that numbers stay numbers) are keyed
    once; values with one key (``39`` and ``"39.0"`` in a column of mixed types) share
    its code. The missing value takes its place in the order of first appearance: after
    the distinct values that appear before its first row."""
    codes, uniques = value_codes(values)
    keys = comparable_keys(pd.Series(uniques)).to_numpy(dtype=object, na_value=None)
    missing = codes < 0
    if missing.any():
        first = int(np.argmax(missing))
        at = int(codes[:first].max()) + 1 if first else 0
        keys = np.insert(keys, at, None)
        codes = codes + (codes >= at)
        codes[missing] = at
    key_codes, distinct_keys = factorize(keys)
    distinct_keys[pd.isna(distinct_keys)] = None
    return key_codes[codes], distinct_keys


def comparable_codes_of_both(
    first: pd.Series, first_codes: np.ndarray, second: pd.Series
) -> tuple[np.ndarray, np.ndarray]:
    """The codes of :func:`comparable_codes` of ``first`` followed by ``second`` (as one
    column, ``pd.concat``), split in two: those of ``first``'s rows and of ``second``'s.

    ``first_codes`` are ``first``'s values already numbered in order of first appearance
    (:func:`~privcore.classes.factorize`): only the first row of each value is keyed with
    ``second``, which numbers the keys as all of ``first`` would, and each row of
    ``first`` takes the code of its value."""
    top = np.maximum.accumulate(first_codes) if len(first_codes) else first_codes
    starts = np.flatnonzero(np.r_[True, top[1:] != top[:-1]]) if len(top) else top
    codes, _ = comparable_codes(pd.concat([first.iloc[starts], second], ignore_index=True))
    return codes[: len(starts)][first_codes], codes[len(starts) :]
