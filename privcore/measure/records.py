"""The released rows that are real records (:func:`real_records`), and the one value
space in which a released column's values are compared with the original's."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from privcore.classes import TableCodes, combine_codes, compact_codes, factorize
from privcore.data.cells import comparable_keys
from privcore.errors import DataFormatError


def real_records(
    original: pd.DataFrame,
    release: pd.DataFrame,
    columns: Sequence[str],
    *,
    aligned: bool = True,
    codes: tuple[TableCodes, TableCodes] | None = None,
    weights: np.ndarray | None = None,
) -> dict[str, int]:
    """Released rows that are real records, over ``columns`` (the QIs and SAs).

    ``own``: rows i whose released values equal those of original row i in every
    column (the tables aligned row for row; left out when ``aligned`` is False: the
    rows are not paired); ``any``: released rows equal to some original row. Values
    are compared, not their storage types (:func:`~privcore.data.cells.comparable_keys`:
    ``39``, ``39.0``, ``"39"`` and ``"39.0"`` are one value — a numeric column that
    became text for a ``*`` still equals its original; missing equals missing).
    Vectorized: each column's codes
    (``codes``: both tables' columns already factorized, else factorized here) are put
    in one value space by their distinct values alone, the codes are combined into one
    int64 key per row, and ``any`` is a hash join (``isin``) of the released keys on
    the original ones. A column none of whose released values is an original value
    (generalized throughout) makes both 0 at once. ``weights`` (the tables aligned, row i
    of each standing for ``weights[i]`` records: a weighted frequency set) make both
    counts count records: Σ of the weights of the rows counted.
    """
    columns = list(columns)
    if aligned and len(original) != len(release):
        raise DataFormatError(
            f"The original has {len(original)} rows but the release has {len(release)}.",
            code="measure.alignment",
            rows=[len(original), len(release)],
        )
    n = len(original)
    if n == 0 or not columns:
        return {"own": 0, "any": 0} if aligned else {"any": 0}
    original_codes, release_codes = codes or (TableCodes(original), TableCodes(release))
    keys = []
    for column in columns:
        key_of_original, key_of_released, card = _shared_keys(
            original_codes.uniques(column), release_codes.uniques(column)
        )
        if (key_of_released == card - 1).all():  # no released value is an original one
            return {"own": 0, "any": 0} if aligned else {"any": 0}
        keys.append((column, key_of_original, key_of_released, card))
    ours, theirs, cards = [], [], []
    for column, key_of_original, key_of_released, card in keys:
        ours.append(_recoded(original_codes.codes(column), key_of_original))
        theirs.append(_recoded(release_codes.codes(column), key_of_released))
        cards.append(card)
    if math.prod(cards) < 2**62:  # the keys are exact mixed-radix numbers: built apart
        original_key, released_key = combine_codes(ours, cards), combine_codes(theirs, cards)
    else:  # the key is re-factorized on the way: both tables at once, in one key space
        both = combine_codes(
            [np.concatenate(pair) for pair in zip(ours, theirs, strict=True)], cards
        )
        original_key, released_key = both[:n], both[n:]
    del ours, theirs
    found_rows = pd.Series(released_key).isin(pd.Series(original_key)).to_numpy()
    if weights is None:
        found = int(found_rows.sum())
        own = int(np.count_nonzero(original_key == released_key)) if aligned else 0
    else:
        found = int(weights[found_rows].sum())
        own = int(weights[original_key == released_key].sum()) if aligned else 0
    if not aligned:
        return {"any": found}
    return {"own": own, "any": found}


_MISSING_KEY = "\x00missing"  # the key of a missing value (no text value has it)


def _shared_keys(
    original_uniques: np.ndarray, released_uniques: np.ndarray
) -> tuple[np.ndarray, np.ndarray, int]:
    """One value space for two columns' distinct values (compared as keys): per distinct
    original value and per distinct released value, its code in that space; a released
    value absent from the original gets a code of its own. Returns (codes of the original's
    values, codes of the released values, number of codes), in the smallest integer type."""

    def keys_of(uniques: np.ndarray) -> np.ndarray:
        keys = comparable_keys(pd.Series(uniques, dtype=object)).astype(object)
        return keys.where(keys.notna(), _MISSING_KEY).to_numpy(dtype=object)

    key_of_original, keys = pd.factorize(keys_of(original_uniques))  # not rows: values
    lookup = pd.Index(keys).get_indexer(keys_of(released_uniques))
    absent = len(keys)  # one code for every value the original does not have
    lookup = np.where(lookup < 0, absent, lookup)
    return (
        compact_codes(key_of_original, absent + 1),
        compact_codes(lookup, absent + 1),
        absent + 1,
    )


def _recoded(codes: np.ndarray, new_code: np.ndarray) -> np.ndarray:
    """``new_code[codes]``, or ``codes`` themselves when every code keeps its number."""
    if np.array_equal(new_code, np.arange(len(new_code))):
        return codes
    return new_code[codes]


def _shared_codes(original: pd.Series, release: pd.Series) -> tuple[np.ndarray, np.ndarray, int]:
    """Codes of two columns in one value space (values compared as keys, see
    :func:`_shared_keys`). Returns (original codes, released codes, number of codes)."""
    original_rows, original_uniques = factorize(original)
    released_rows, released_uniques = factorize(release)
    key_of_original, key_of_released, card = _shared_keys(original_uniques, released_uniques)
    return key_of_original[original_rows], key_of_released[released_rows], card
