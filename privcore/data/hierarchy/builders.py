"""Builders of validated hierarchies over the distinct non-missing values of a column:
numbers between cut points (:func:`cut_hierarchy`), rounded (:func:`rounding_hierarchy`),
masked text (:func:`masking_hierarchy`), dates (:func:`date_hierarchy`) and a mapping
table (:func:`mapping_hierarchy`); the helpers they share with
:func:`~privcore.data.hierarchy.intervals.interval_hierarchy`."""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from pandas.api import types as ptypes

from privcore.data.codes import value_codes
from privcore.data.hierarchy.keys import (
    _MAX_NAMED,
    _STR,
    _as_1d,
    _keys_of_uniques,
    _refuse_bad_keys,
    _single_character,
    value_keys,
)
from privcore.data.hierarchy.table import TOP, Hierarchy
from privcore.errors import HierarchyError, ParameterError


def _distinct(values: Any) -> tuple[np.ndarray, pd.Index]:
    """Distinct non-missing values of ``values``: ``(keys, uniques)``, first-appearance
    order, deduplicated by key (``1`` and ``1.0`` are one value)."""
    _, uniques = value_codes(_as_1d(values))
    uniques = uniques if isinstance(uniques, pd.Index) else pd.Index(uniques)
    if isinstance(uniques.dtype, pd.CategoricalDtype):
        uniques = pd.Index(np.asarray(uniques, dtype=object).tolist())
    keys = _keys_of_uniques(uniques)
    keep = ~pd.Index(keys, dtype=object).duplicated(keep="first")  # not rows: values
    if not keep.all():
        keys, uniques = keys[keep], uniques[keep]
    if len(keys) == 0:
        raise HierarchyError(
            "The column has no values (all are missing); a hierarchy needs at least one.",
            code="hierarchy.empty",
        )
    return keys, uniques


def _column_name(values: Any) -> str | None:
    name = getattr(values, "name", None)
    return name if isinstance(name, str) else None


def _numeric(keys: np.ndarray, uniques: pd.Index, *, infinite: bool = False) -> np.ndarray:
    """Float values of the distinct values; non-numeric ones raise, and infinite ones
    too unless ``infinite``."""
    if ptypes.is_numeric_dtype(uniques.dtype) and not ptypes.is_bool_dtype(uniques.dtype):
        nums = uniques.to_numpy(dtype=np.float64)
    else:
        nums = pd.to_numeric(pd.Series(keys, dtype=object), errors="coerce").to_numpy(
            dtype=np.float64, na_value=np.nan
        )
    bad = np.isnan(nums) if infinite else ~np.isfinite(nums)
    _refuse_bad_keys(
        keys,
        bad,
        "hierarchy.not_numeric",
        "not a finite number",
        lead="This builder needs numbers, but ",
    )
    return nums


def _fmt_num(x: float, decimals: int = 10) -> str:
    """A bin bound as text: float noise rounded off (to ``decimals`` places), integral
    values below 10¹⁶ without ``.0``, others in Python's shortest form (``2.5e+307``)."""
    f = float(x)
    r = round(f, decimals) if math.isfinite(f) else f
    if r.is_integer() and abs(r) < 1e16:
        return str(int(r))
    return repr(r)


def _fmt_nums(x: np.ndarray, decimals: int = 10) -> np.ndarray:
    """:func:`_fmt_num` of every element (object array), vectorized for integral values."""
    x = np.asarray(x, dtype=np.float64)
    out = np.empty(len(x), dtype=object)
    fast = (x == np.trunc(x)) & (np.abs(x) < 1e16)
    out[fast] = x[fast].astype(np.int64).astype(str).astype(object)
    for i in np.flatnonzero(~fast).tolist():  # fractional or huge bounds only
        out[i] = _fmt_num(x[i], decimals)
    return out


def _finish(
    keys: np.ndarray, levels: list[np.ndarray], order: np.ndarray, *, name: str | None, kind: str
) -> Hierarchy:
    """Assemble leaf + levels + top ``*`` (rows in ``order``) and validate."""
    n = len(keys)
    table = np.empty((n, len(levels) + 2), dtype=object)
    table[:, 0] = keys
    for j, lab in enumerate(levels, start=1):
        table[:, j] = lab
    table[:, -1] = TOP
    return Hierarchy(table[order], name=name, kind=kind)


def _check_positive(value: Any, what: str, code: str) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        v = math.nan
    if isinstance(value, bool) or not math.isfinite(v) or v <= 0:
        raise ParameterError(
            f"The {what} must be a positive number, got {value!r}.",
            code=code,
            value=str(value),
        )
    return v


def _cut_label(k: int, cuts: list[float]) -> str:
    if k == 0:
        return f"<{_fmt_num(cuts[0])}"
    if k == len(cuts):
        return f">={_fmt_num(cuts[-1])}"
    return f"[{_fmt_num(cuts[k - 1])}-{_fmt_num(cuts[k])})"


def cut_hierarchy(values: Any, cuts: Sequence[Sequence[float]] | Sequence[float]) -> Hierarchy:
    """Numeric intervals between user-given cut points, one cut list per level.

    ``cuts`` lists the cut lists from the finest level to the coarsest (a flat list of
    numbers is one level). Each coarser list must be a subset of the finer one, so the
    levels nest. With sorted cuts c1 < ... < cm a value x gets ``<c1`` when x < c1,
    ``[ci-ci+1)`` when ci ≤ x < ci+1, and ``>=cm`` when x ≥ cm (``-inf`` and ``inf``
    included). Then the top ``*``.
    """
    if (
        isinstance(cuts, str | bytes)
        or not isinstance(cuts, Sequence | np.ndarray)
        or not len(cuts)
    ):
        raise ParameterError(
            "Cuts must be a non-empty list of cut lists (one per level, fine to coarse).",
            code="hierarchy.bad_cuts",
        )
    if all(isinstance(c, numbers.Real) for c in cuts):
        cuts = [cuts]  # type: ignore[list-item]
    levels: list[list[float]] = []
    for j, lst in enumerate(cuts, start=1):
        try:
            nums = sorted({float(c) for c in lst})
        except (TypeError, ValueError):
            nums = []
        if not nums or not all(math.isfinite(c) for c in nums):
            raise ParameterError(
                f"The cuts of level {j} must be a non-empty list of finite numbers.",
                code="hierarchy.bad_cuts",
                level=j,
            )
        if levels:
            extra = sorted(set(nums) - set(levels[-1]))
            if extra:
                raise HierarchyError(
                    f"The cuts of level {j} must be a subset of those of level {j - 1} "
                    f"(coarser levels only remove cuts); not in level {j - 1}: "
                    f"{', '.join(_fmt_num(c) for c in extra[:_MAX_NAMED])}.",
                    code="hierarchy.cuts_not_nested",
                    level=j,
                    values=[_fmt_num(c) for c in extra[:_MAX_NAMED]],
                )
        levels.append(nums)
    keys, uniques = _distinct(values)
    x = _numeric(keys, uniques, infinite=True)  # -inf, inf: below / above every cut
    out: list[np.ndarray] = []
    for lst in levels:
        k = np.searchsorted(np.asarray(lst), x, side="right")  # number of cuts <= x
        uk, inv = np.unique(k, return_inverse=True)  # not rows: values
        names = np.array([_cut_label(int(v), lst) for v in uk], dtype=object)
        out.append(names[inv])
    order = np.lexsort((keys.astype(str), x))
    return _finish(keys, out, order, name=_column_name(values), kind="cuts")


def _int_labels(v: np.ndarray) -> np.ndarray:
    """``str(int(v))`` of integral floats, vectorized when they fit in int64."""
    if v.size == 0 or np.abs(v).max() < 2.0**62:
        return v.astype(np.int64).astype(str).astype(object)
    return np.array([str(int(f)) for f in v.tolist()], dtype=object)


def rounding_hierarchy(values: Any, *, digits: Sequence[int] | None = None) -> Hierarchy:
    """Numbers rounded toward zero to 10**d (seed 002: ``int(y / 10**d) * 10**d``).

    Level i uses ``d = digits[i-1]`` (default 1, 2, 3, ... until every value gives the
    same label; that level is kept). ``1234`` at digits 1, 2 gives ``"1230"``,
    ``"1200"``. Truncation toward zero nests, so the levels are monotone. Then ``*``.
    Integer columns are computed exactly in int64.
    """
    if digits is not None:
        ds = list(digits)
        if (
            not ds
            or any(isinstance(d, bool) or not isinstance(d, numbers.Integral) for d in ds)
            or any(d < 0 for d in ds)
            or any(b <= a for a, b in itertools.pairwise(ds))
        ):
            raise ParameterError(
                f"Rounding digits must be increasing whole numbers ≥ 0, got {digits!r}.",
                code="hierarchy.bad_digits",
                value=str(digits),
            )
    keys, uniques = _distinct(values)
    y = _numeric(keys, uniques)
    exact = ptypes.is_integer_dtype(uniques.dtype) and not ptypes.is_bool_dtype(uniques.dtype)
    yi = uniques.to_numpy(dtype=np.int64) if exact else None
    maxabs = float(np.abs(y).max())

    def level(d: int) -> np.ndarray:
        p = 10**d
        if p > maxabs:  # every value truncates to 0
            return np.full(len(y), "0", dtype=object)
        if yi is not None:
            q = np.sign(yi) * (np.abs(yi) // p) * p  # integer truncation toward zero
            return q.astype(str).astype(object)
        with np.errstate(over="ignore"):
            q = np.trunc(y / p) * p
        # near ±1.8e308 the product may round past the floats: y less its remainder
        return _int_labels(np.where(np.isfinite(q), q, y - np.fmod(y, float(p))))

    out: list[np.ndarray] = []
    if digits is not None:
        out = [level(int(d)) for d in digits]
    else:
        d = 1
        while True:
            lab = level(d)
            out.append(lab)
            if len(pd.unique(lab)) == 1:  # not rows: values
                break
            d += 1
    order = np.lexsort((keys.astype(str), y))
    return _finish(keys, out, order, name=_column_name(values), kind="rounding")


def masking_hierarchy(values: Any, *, mask_char: str = "*") -> Hierarchy:
    """Mask trailing characters one at a time: ``47677 → 4767* → 476** → 47*** → 4****``
    → ``*``.

    With L the longest key length, level i (1 ≤ i ≤ L-1) replaces the last i characters
    by ``mask_char`` (a value shorter than i is fully masked, keeping its length); the
    top level is ``*``. Values are matched as keys (``47677`` or ``"47677"``); leaves
    are sorted as strings.
    """
    _single_character(mask_char, "mask character", "hierarchy.bad_mask_char")
    keys, _ = _distinct(values)
    text = keys.astype(_STR)
    lengths = np.strings.str_len(text)
    mask = np.array(mask_char, dtype=_STR)
    out: list[np.ndarray] = []
    for i in range(1, int(lengths.max())):
        keep = np.maximum(lengths - i, 0)
        masked = np.strings.add(
            np.strings.slice(text, 0, keep), np.strings.multiply(mask, lengths - keep)
        )
        out.append(masked.astype(object))
    order = np.argsort(keys.astype(str), kind="stable")
    return _finish(keys, out, order, name=_column_name(values), kind="masking")


def date_hierarchy(values: Any, *, dayfirst: bool = True, format: str | None = None) -> Hierarchy:
    """Dates: ``D/M/Y → M/Y → Y → *`` (leaf = the original text, then ``MM/YYYY``,
    ``YYYY``, ``*``).

    Text is parsed with ``format`` when given; otherwise ISO dates (``1990-03-05``) are
    read as such and anything else per value with ``dayfirst`` (``05/03/1990`` is 5
    March). Datetime columns are used directly. Unparseable values raise
    :class:`HierarchyError` naming up to 5 and the count. Leaves are sorted by date.
    """
    keys, uniques = _distinct(values)
    if ptypes.is_datetime64_any_dtype(uniques.dtype):
        dates = pd.Series(pd.DatetimeIndex(uniques))
        if dates.dt.tz is not None:
            dates = dates.dt.tz_localize(None)  # keep the local wall-clock date
    elif format is not None:
        dates = pd.to_datetime(pd.Series(keys, dtype=object), format=format, errors="coerce")
    else:
        text = pd.Series(keys, dtype=object)
        # ISO dates first: dateutil with dayfirst would read 1990-03-05 as 3 May.
        iso = text.str.match(r"^\s*\d{4}-\d{1,2}-\d{1,2}").fillna(False).astype(bool)
        from_iso = pd.to_datetime(text.where(iso), format="ISO8601", errors="coerce")
        other = pd.to_datetime(text.where(~iso), format="mixed", dayfirst=dayfirst, errors="coerce")
        dates = from_iso.where(iso, other)
    bad = dates.isna().to_numpy(dtype=bool)
    _refuse_bad_keys(
        keys,
        bad,
        "hierarchy.bad_dates",
        f"not a date that can be read{f' with format {format!r}' if format else ''}",
    )
    month = dates.dt.strftime("%m/%Y").to_numpy(dtype=object)
    year = dates.dt.strftime("%Y").to_numpy(dtype=object)
    order = np.lexsort((keys.astype(str), dates.to_numpy().astype(np.int64)))
    return _finish(keys, [month, year], order, name=_column_name(values), kind="dates")


def mapping_hierarchy(table: pd.DataFrame) -> Hierarchy:
    """A taxonomy entered as a mapping table: columns are the levels from the original
    value to the most general.

    Cells are stored as keys (``39.0 → "39"``). Rows that are entirely blank (e.g. the
    empty last row of an editable table) are ignored; any other blank cell raises
    :class:`HierarchyError` naming the 1-based row (``row=``). A top ``*`` column is
    appended when the last column has more than one distinct value.
    """
    if not isinstance(table, pd.DataFrame):
        raise ParameterError(
            "A mapping hierarchy needs a table (DataFrame) with one column per level.",
            code="hierarchy.bad_rows",
        )
    if table.shape[1] == 0:
        raise HierarchyError(
            "The mapping table has no columns; it needs at least the original values.",
            code="hierarchy.too_short",
            columns=0,
        )
    n_rows, width = table.shape
    cells = np.empty((n_rows, width), dtype=object)
    blank = np.zeros((n_rows, width), dtype=bool)
    for j in range(width):
        keys = value_keys(table.iloc[:, j]).fillna("")
        cells[:, j] = keys.to_numpy(dtype=object)
        blank[:, j] = keys.str.strip().eq("").to_numpy(dtype=bool)
    row_numbers = np.arange(1, n_rows + 1)
    keep = ~blank.all(axis=1)
    cells, blank, row_numbers = cells[keep], blank[keep], row_numbers[keep]
    if len(cells) == 0:
        raise HierarchyError(
            "The mapping table is empty: it needs one row per original value.",
            code="hierarchy.empty",
        )
    if blank.any():
        i, j = np.argwhere(blank)[0]
        column = table.columns[j]
        raise HierarchyError(
            f"Row {row_numbers[i]} of the mapping table has a blank cell in column "
            f"'{column}' (level {j}); fill in every level or delete the row.",
            code="hierarchy.blank_label",
            row=int(row_numbers[i]),
            level=int(j),
            column=str(column),
        )
    if cells.shape[1] == 1 or len(pd.unique(cells[:, -1])) > 1:  # not rows: mapping table
        cells = np.column_stack([cells, np.full(len(cells), TOP, dtype=object)])
    h = Hierarchy(cells.tolist(), kind="mapping", validate=False)
    h._validate_numbered(lambda i: ("row", int(row_numbers[i])))
    return h
