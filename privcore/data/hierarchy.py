"""Generalization hierarchies (SPEC §1).

A hierarchy maps every value of one attribute to ever more general values: level 0 is
the original value (a *leaf*), level ``height`` is the single top value ``*`` (full
suppression). Internally it is a table of strings with one row per leaf,
``[leaf, level 1, ..., top]``, and per level a factorization of that column (distinct
labels in first-appearance order plus, per leaf, the index of its label).

Data values are matched to leaves as strings (:func:`value_keys`): ``39`` and ``39.0``
both become ``"39"``. Everything proportional to the number of data rows is vectorized:
values are factorized once, only the distinct values are converted, and the result is
taken back to the rows.

Builders (:func:`interval_hierarchy`, :func:`cut_hierarchy`, :func:`rounding_hierarchy`,
:func:`masking_hierarchy`, :func:`date_hierarchy`, :func:`mapping_hierarchy`) make a
validated hierarchy over the distinct non-missing values of a column; ARX CSV files are
read with :meth:`Hierarchy.read_arx` and written with :meth:`Hierarchy.to_arx_csv`.
"""

from __future__ import annotations

import csv
import datetime as _dt
import decimal
import io
import itertools
import math
import numbers
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from pandas.api import types as ptypes

from privcore.data.codes import value_codes
from privcore.errors import HierarchyError, ParameterError

__all__ = [
    "KINDS",
    "TOP",
    "Hierarchy",
    "cut_hierarchy",
    "date_hierarchy",
    "interval_hierarchy",
    "mapping_hierarchy",
    "masking_hierarchy",
    "rounding_hierarchy",
    "value_keys",
]

#: The label of the most general level made by every builder.
TOP = "*"

#: Allowed values of :attr:`Hierarchy.kind`.
KINDS = ("arx", "intervals", "cuts", "rounding", "masking", "dates", "mapping", "custom")

_MAX_NAMED = 5  # how many offending values an error message names


# --------------------------------------------------------------------------- value keys


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


# --------------------------------------------------------------------------- the class


def _row_where(i: int) -> tuple[str, int]:
    return "row", i + 1


class Hierarchy:
    """A generalization hierarchy over the values of one attribute.

    ``rows`` is a sequence of rows (each a sequence of values) or a DataFrame (its
    rows): ``[leaf, level 1, ..., top]``. Every cell is stored as a string (numbers
    through :func:`value_keys`, so ``39.0`` is stored as ``"39"``; missing cells become
    blank and fail validation). Level 0 holds the original values (*leaves*), level
    :attr:`height` the single top value.

    An empty table or rows of different lengths always raise :class:`HierarchyError`;
    the other rules are checked by :meth:`validate`, called unless ``validate=False``.
    Two hierarchies are equal when their rows are equal (name and kind are ignored).
    """

    __hash__ = None  # type: ignore[assignment]  # mutable-equality object

    def __init__(
        self,
        rows: Any,
        *,
        name: str | None = None,
        kind: str = "custom",
        validate: bool = True,
    ) -> None:
        if kind not in KINDS:
            raise ParameterError(
                f"Unknown hierarchy kind '{kind}'; expected one of {', '.join(KINDS)}.",
                code="hierarchy.bad_kind",
                kind=kind,
            )
        self.name: str | None = name
        self.kind: str = kind
        self._table = _to_table(rows)
        self._where: Callable[[int], tuple[str, int]] = _row_where
        self._init_levels()
        if validate:
            self.validate()

    # -- construction helpers
    def _init_levels(self) -> None:
        table = self._table
        table.flags.writeable = False
        self._codes: list[np.ndarray] = []
        self._labels: list[np.ndarray] = []
        for j in range(table.shape[1]):
            codes, uniques = pd.factorize(table[:, j], use_na_sentinel=True)  # not rows: leaves
            codes = np.asarray(codes, dtype=np.int64)
            labels = np.asarray(uniques, dtype=object)
            codes.flags.writeable = False
            labels.flags.writeable = False
            self._codes.append(codes)
            self._labels.append(labels)
        leaves = table[:, 0]
        self._leaves: tuple[str, ...] = tuple(leaves.tolist())
        # Leaf lookup (first occurrence wins when an unvalidated table repeats a leaf).
        index = pd.Index(leaves, dtype=object)
        first = ~index.duplicated(keep="first")  # not rows: leaves
        self._leaf_index = index[first]
        self._leaf_pos = np.flatnonzero(first).astype(np.int64)

    # -- basic properties
    @property
    def height(self) -> int:
        """Number of levels minus one: level 0 = leaves, level ``height`` = top."""
        return self._table.shape[1] - 1

    @property
    def leaves(self) -> tuple[str, ...]:
        """The level-0 (original) values, in row order."""
        return self._leaves

    def _check_level(self, level: Any) -> int:
        if isinstance(level, bool) or not isinstance(level, numbers.Integral):
            raise ParameterError(
                f"A hierarchy level must be a whole number, got {level!r}.",
                code="hierarchy.level_out_of_range",
                level=str(level),
                height=self.height,
            )
        level = int(level)
        if not 0 <= level <= self.height:
            raise ParameterError(
                f"Level {level} does not exist in hierarchy"
                f"{self._name_part()}: levels go from 0 to {self.height}.",
                code="hierarchy.level_out_of_range",
                level=level,
                height=self.height,
            )
        return level

    def _name_part(self) -> str:
        return f" '{self.name}'" if self.name else ""

    def labels(self, level: int) -> np.ndarray:
        """The distinct labels of ``level`` in first-appearance order (object array,
        read-only)."""
        return self._labels[self._check_level(level)]

    def codes(self, level: int) -> np.ndarray:
        """Per leaf (row order), the index of its label in :meth:`labels` of ``level``
        (int64, read-only)."""
        return self._codes[self._check_level(level)]

    # -- validation
    def validate(self) -> None:
        """Check every rule; raise :class:`HierarchyError` on the first one broken.

        Rules, in order: at least one row (``hierarchy.empty``) and two columns
        (``hierarchy.too_short``); rows of equal length (``hierarchy.ragged``, checked on
        construction); no blank cell (``hierarchy.blank_label``); no repeated leaf
        (``hierarchy.duplicate_leaf``); monotone: each level-i label has exactly one
        level-(i+1) label (``hierarchy.not_monotone``); a single top value
        (``hierarchy.top_not_single``). All checks are vectorized.
        """
        table = self._table
        n, width = table.shape
        where = self._where
        if n == 0:
            raise HierarchyError(
                "The hierarchy is empty: it needs one row per original value.",
                code="hierarchy.empty",
            )
        if width < 2:
            raise HierarchyError(
                "The hierarchy has a single column; it needs at least two: the original "
                "value and at least the top value '*'.",
                code="hierarchy.too_short",
                columns=width,
            )
        # Blank cells (empty or whitespace only), first in reading order. Only the
        # distinct labels of each level are inspected; their codes locate the rows.
        first_blank: tuple[int, int] | None = None
        for j in range(width):
            is_blank = _blank(self._labels[j])
            if is_blank.any():
                i = int(np.flatnonzero(is_blank[self._codes[j]])[0])
                if first_blank is None or i < first_blank[0]:
                    first_blank = (i, j)
        if first_blank is not None:
            i, j = first_blank
            unit, num = where(i)
            raise HierarchyError(
                f"{unit.capitalize()} {num}, level {j} is blank; every cell of a hierarchy "
                f"needs a label.",
                code="hierarchy.blank_label",
                level=j,
                **{unit: num},
            )
        # Duplicate leaves.
        codes0 = self._codes[0]
        if len(self._labels[0]) < n:
            dup = pd.Index(codes0).duplicated(keep="first")  # not rows: leaves
            first_dup = int(np.flatnonzero(dup)[0])
            value = table[first_dup, 0]
            rows = np.flatnonzero(codes0 == codes0[first_dup])
            unit, a = where(int(rows[0]))
            _, b = where(int(rows[1]))
            n_dup = len(pd.unique(codes0[dup]))  # not rows: leaves
            more = f" ({n_dup} values are repeated)" if n_dup > 1 else ""
            raise HierarchyError(
                f"The original value '{value}' appears twice ({unit}s {a} and {b}); each "
                f"value must have exactly one row{more}.",
                code="hierarchy.duplicate_leaf",
                value=value,
                count=n_dup,
                **{f"{unit}s": [a, b]},
            )
        # Monotone: every label has one parent. Scatter each row's parent onto its
        # label (any row wins), then every row must agree with what its label holds.
        for lvl in range(width - 1):
            child, parent = self._codes[lvl], self._codes[lvl + 1]
            parent_of = np.empty(len(self._labels[lvl]), dtype=np.int64)
            parent_of[child] = parent
            disagree = parent_of[child] != parent
            if disagree.any():
                bad_labels = np.unique(child[disagree])  # not rows: labels
                c = int(bad_labels[0])  # smallest code = first to appear
                parents = pd.unique(parent[child == c])[:2]  # not rows: labels
                label = self._labels[lvl][c]
                p1, p2 = (self._labels[lvl + 1][p] for p in parents)
                raise HierarchyError(
                    f"The hierarchy is not monotone: '{label}' at level {lvl} maps to both "
                    f"'{p1}' and '{p2}' at level {lvl + 1}. Values that are equal at one "
                    f"level must stay equal at the next.",
                    code="hierarchy.not_monotone",
                    label=label,
                    level=lvl,
                    parents=[p1, p2],
                    count=len(bad_labels),
                )
        top = self._labels[-1]
        if len(top) != 1:
            named = _quote_list(top[:_MAX_NAMED].tolist())
            raise HierarchyError(
                f"The top level (level {width - 1}) must hold a single value such as '*', "
                f"but it holds {len(top)}: {named}{', ...' if len(top) > _MAX_NAMED else ''}.",
                code="hierarchy.top_not_single",
                level=width - 1,
                count=len(top),
                values=top[:_MAX_NAMED].tolist(),
            )

    # -- encoding data
    def _lookup(self, keys: np.ndarray) -> np.ndarray:
        """Leaf index of each key, -1 when not a leaf."""
        found = self._leaf_index.get_indexer(pd.Index(keys, dtype=object))
        pos = np.full(len(keys), -1, dtype=np.int64)
        hit = found >= 0
        pos[hit] = self._leaf_pos[found[hit]]
        return pos

    def uncovered_values(self, values: Any) -> list[str]:
        """The distinct non-missing values (as keys, first-appearance order) that are
        not leaves of this hierarchy."""
        _, keys = _factorize_keys(values)
        keys = pd.unique(pd.Index(keys, dtype=object)).to_numpy(dtype=object)  # not rows: keys
        return keys[self._lookup(keys) < 0].tolist()

    def encode(self, values: Any) -> np.ndarray:
        """Leaf index (int64) of every value; missing values give -1.

        Values are matched by key (:func:`value_keys`). Values that are not leaves raise
        :class:`HierarchyError` (``hierarchy.uncovered``) naming up to 5 and the count.
        O(n): one factorization, a lookup of the distinct keys, one take.
        """
        codes, keys = _factorize_keys(values)
        pos = self._lookup(keys)
        if (pos < 0).any():
            absent = pd.Index(keys[pos < 0], dtype=object)
            missing = pd.unique(absent).tolist()  # not rows: distinct values
            raise HierarchyError(
                f"{len(missing)} value{'s are' if len(missing) > 1 else ' is'} not covered by "
                f"the hierarchy{self._name_part()}: {_quote_list(missing[:_MAX_NAMED])}"
                f"{', ...' if len(missing) > _MAX_NAMED else ''}. Add a row for each.",
                code="hierarchy.uncovered",
                name=self.name,
                count=len(missing),
                values=missing[:_MAX_NAMED],
            )
        return np.append(pos, -1)[codes]

    def generalize(self, codes: Any, level: int) -> np.ndarray:
        """Label index (int64, into :meth:`labels` of ``level``) of every leaf index.

        -1 (missing) stays -1, except at the top level, where every row, missing or not,
        gets the top label (index 0). Vectorized: one take.
        """
        level = self._check_level(level)
        codes = np.asarray(codes)
        if codes.dtype.kind not in "iu":
            raise ParameterError(
                "generalize() expects integer leaf indices, as returned by encode().",
                code="hierarchy.bad_codes",
            )
        codes = codes.astype(np.int64, copy=False)
        n = len(self._leaves)
        if codes.size and (codes.min() < -1 or codes.max() >= n):
            raise ParameterError(
                f"Leaf indices must be between -1 and {n - 1}.",
                code="hierarchy.bad_codes",
                leaves=n,
            )
        if level == self.height:
            return np.zeros(codes.shape, dtype=np.int64)
        return np.append(self._codes[level], -1)[codes]

    def generalize_values(self, values: Any, level: int) -> pd.Series:
        """The label at ``level`` of every value, as a ``string`` Series.

        Missing values stay ``<NA>`` below the top level and become the top label at
        the top. Same index as ``values`` when it is a Series.
        """
        g = self.generalize(self.encode(values), level)
        ext = np.append(self._labels[level], None).astype(object)
        index = values.index if isinstance(values, pd.Series) else None
        name = values.name if isinstance(values, pd.Series) else None
        return pd.Series(ext[g], index=index, name=name, dtype="string")

    # -- conversion
    def to_frame(self) -> pd.DataFrame:
        """The rows as a DataFrame with columns ``"level 0"`` ... ``f"level {h}"``."""
        return pd.DataFrame(
            {f"level {j}": self._table[:, j].copy() for j in range(self._table.shape[1])}
        )

    def to_arx_csv(self, sep: str = ";", *, formula_guard: bool = True) -> str:
        """The hierarchy in ARX format: no header, one row per leaf, ``sep``-separated,
        ``"\\n"`` line ends (cells containing ``sep``, quotes or line breaks are
        CSV-quoted), written by :func:`privcore.data.writing.csv_text`. Labels a
        spreadsheet would run as formulas get the formula guard's quote
        (:mod:`privcore.data.writing`), which :meth:`read_arx` removes again."""
        from privcore.data.writing import csv_text

        rows = pd.DataFrame(self._table.tolist(), dtype=object)
        return csv_text(rows, sep=sep, header=False, formula_guard=formula_guard)[0]

    @classmethod
    def read_arx(cls, source: Any, *, name: str | None = None, sep: str = ";") -> Hierarchy:
        """Read an ARX hierarchy: no header, one row per value, ``value;level1;...;*``.

        ``source`` is a path (``str`` or ``Path``), ``bytes``, or a text or binary
        file-like object (e.g. an upload). Bytes are decoded as UTF-8 (with or without
        BOM), else GB18030, else Latin-1. Empty lines are skipped; a final line without
        newline is fine. Errors name the 1-based line number (``line=``). When ``name``
        is not given it is taken from the file name, keeping the part after
        ``hierarchy_`` (ARX's ``adult_hierarchy_age.csv`` gives ``"age"``).
        """
        if not isinstance(sep, str) or len(sep) != 1:
            raise ParameterError(
                f"The separator must be a single character, got {sep!r}.",
                code="hierarchy.bad_separator",
                value=str(sep),
            )
        text, file_name = _read_source(source)
        if name is None and file_name:
            stem = Path(file_name).stem
            name = stem.rsplit("hierarchy_", 1)[-1] if "hierarchy_" in stem else stem
        reader = csv.reader(io.StringIO(text, newline=""), delimiter=sep)
        rows: list[list[str]] = []
        lines: list[int] = []
        try:
            for row in reader:
                if not row or (len(row) == 1 and not row[0].strip()):
                    continue  # an empty line
                rows.append(row)
                lines.append(reader.line_num)
        except csv.Error as exc:
            raise HierarchyError(
                f"The hierarchy file could not be read as CSV near line {reader.line_num}: {exc}.",
                code="hierarchy.unreadable",
                line=reader.line_num,
            ) from exc
        if not rows:
            raise HierarchyError(
                "The hierarchy file is empty: it needs one line per original value.",
                code="hierarchy.empty",
            )
        expected = len(rows[0])
        for row, line in zip(rows, lines, strict=True):
            if len(row) != expected:
                raise HierarchyError(
                    f"Line {line} has {len(row)} values but line {lines[0]} has {expected}; "
                    f"every line of a hierarchy must have the same number of levels "
                    f"(separator '{sep}').",
                    code="hierarchy.ragged",
                    line=line,
                    found=len(row),
                    expected=expected,
                )
        from privcore.data.writing import unguard_formulas

        table = pd.DataFrame(rows, dtype=object)
        if unguard_formulas(table):  # a file written with the formula guard
            rows = table.to_numpy(dtype=object).tolist()
        h = cls(rows, name=name, kind="arx", validate=False)
        h._where = lambda i: ("line", lines[i])
        try:
            h.validate()
        finally:
            h._where = _row_where
        return h

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict: ``{"name", "kind", "rows": [[str, ...], ...]}``."""
        return {"name": self.name, "kind": self.kind, "rows": self._table.tolist()}

    @classmethod
    def from_dict(cls, d: Any) -> Hierarchy:
        """Rebuild (and validate) a hierarchy from :meth:`to_dict` output."""
        if not isinstance(d, dict) or "rows" not in d:
            raise HierarchyError(
                "A saved hierarchy must be a mapping with a 'rows' entry.",
                code="hierarchy.bad_dict",
            )
        return cls(d["rows"], name=d.get("name"), kind=d.get("kind") or "custom")

    # -- dunder
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Hierarchy):
            return NotImplemented
        return self._table.shape == other._table.shape and bool(
            np.array_equal(self._table, other._table)
        )

    def __repr__(self) -> str:
        return (
            f"Hierarchy(name={self.name!r}, kind={self.kind!r}, leaves={len(self._leaves)}, "
            f"height={self.height})"
        )


def _to_table(rows: Any) -> np.ndarray:
    """2-D object array of str from a DataFrame or a sequence of rows; raises on empty
    input and on rows of different lengths."""
    if isinstance(rows, pd.DataFrame) or (isinstance(rows, np.ndarray) and rows.ndim == 2):
        if rows.shape[0] == 0:
            raise HierarchyError(
                "The hierarchy is empty: it needs one row per original value.",
                code="hierarchy.empty",
            )
        if rows.shape[1] == 0:
            raise HierarchyError(
                "The hierarchy has no columns; it needs at least two: the original value "
                "and the top value '*'.",
                code="hierarchy.too_short",
                columns=0,
            )
        if isinstance(rows, pd.DataFrame):
            columns = [rows.iloc[:, j] for j in range(rows.shape[1])]
        else:
            columns = [rows[:, j] for j in range(rows.shape[1])]
    else:
        if isinstance(rows, str | bytes) or not hasattr(rows, "__iter__"):
            raise HierarchyError(
                "A hierarchy needs a table: a list of rows, each a list of labels.",
                code="hierarchy.bad_rows",
            )
        rows = list(rows)
        if not rows:
            raise HierarchyError(
                "The hierarchy is empty: it needs one row per original value.",
                code="hierarchy.empty",
            )
        for i, r in enumerate(rows):
            if isinstance(r, str | bytes) or not hasattr(r, "__len__"):
                raise HierarchyError(
                    f"Row {i + 1} is not a list of labels.",
                    code="hierarchy.bad_rows",
                    row=i + 1,
                )
        lengths = np.fromiter((len(r) for r in rows), dtype=np.int64, count=len(rows))
        width = int(lengths[0])
        bad = np.flatnonzero(lengths != width)
        if bad.size:
            i = int(bad[0])
            raise HierarchyError(
                f"Row {i + 1} has {lengths[i]} values but row 1 has {width}; every row of a "
                f"hierarchy must have the same number of levels.",
                code="hierarchy.ragged",
                row=i + 1,
                found=int(lengths[i]),
                expected=width,
            )
        if width == 0:
            raise HierarchyError(
                "The hierarchy has no columns; it needs at least two: the original value "
                "and the top value '*'.",
                code="hierarchy.too_short",
                columns=0,
            )
        flat = np.fromiter((c for r in rows for c in r), dtype=object, count=len(rows) * width)
        grid = flat.reshape(len(rows), width)
        columns = [grid[:, j] for j in range(width)]
    table = np.empty((len(columns[0]), len(columns)), dtype=object)
    for j, col in enumerate(columns):
        if (
            isinstance(col, np.ndarray)
            and col.dtype == object
            and ptypes.infer_dtype(col, skipna=False) == "string"
        ):
            table[:, j] = col  # already all str: nothing to convert
        else:
            table[:, j] = value_keys(col).to_numpy(dtype=object, na_value="")
    return table


def _decode(data: bytes) -> str:
    for encoding in ("utf-8-sig", "gb18030"):
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    return data.decode("latin-1")


def _read_source(source: Any) -> tuple[str, str | None]:
    """``(text, file name or None)`` of a path, bytes, or file-like object."""
    if isinstance(source, bytes | bytearray | memoryview):
        return _decode(bytes(source)), None
    if isinstance(source, str | os.PathLike):
        path = Path(source)
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise HierarchyError(
                f"The hierarchy file '{path}' could not be read: {exc.strerror or exc}.",
                code="hierarchy.unreadable",
                path=str(path),
            ) from exc
        return _decode(data), path.name
    if hasattr(source, "read"):
        data = source.getvalue() if hasattr(source, "getvalue") else source.read()
        file_name = getattr(source, "name", None)
        file_name = file_name if isinstance(file_name, str) else None
        if isinstance(data, bytes | bytearray | memoryview):
            return _decode(bytes(data)), file_name
        if isinstance(data, str):
            return data.removeprefix("\ufeff"), file_name
    raise HierarchyError(
        "A hierarchy source must be a file path, bytes, or an open file.",
        code="hierarchy.unreadable",
    )


# --------------------------------------------------------------------------- builders


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
    if bad.any():
        named = keys[bad].tolist()
        raise HierarchyError(
            f"This builder needs numbers, but {len(named)} value"
            f"{'s are' if len(named) > 1 else ' is'} not a finite number: "
            f"{_quote_list(named[:_MAX_NAMED])}{', ...' if len(named) > _MAX_NAMED else ''}.",
            code="hierarchy.not_numeric",
            count=len(named),
            values=named[:_MAX_NAMED],
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


def interval_hierarchy(
    values: Any, *, width: float, levels: int | None = None, origin: float | None = None
) -> Hierarchy:
    """Numeric intervals of doubling width: ``[20-30)`` → ``[20-40)`` → ... → ``*``.

    Level 1 bins have width ``width`` and start at ``origin`` (default
    ``floor(min / width) * width``); level j has width ``width * 2**(j-1)`` with the same
    origin, so bins are nested (bin index at level j+1 = floor(bin index at j / 2)).
    Levels are added until one bin holds every value (that level is kept) or ``levels``
    interval levels exist; then the top ``*``. Labels are ``[lo-hi)`` with integral
    bounds written without ``.0``. Leaves are the value keys, sorted by value.

    Any finite numbers work, up to ±1.8·10³⁰⁸: a bin whose bound lies beyond the
    largest float is written as a comparison (``>=1e+308``, ``<-1e+308``), and a level
    whose one bin would reach beyond both ends is left out (the top ``*`` says the
    same). Infinite values (``inf``, ``-inf``) stay values of their own up to the top,
    as a missing value does. A width so small that the values span more than 2⁵²
    intervals is refused (:class:`ParameterError`, ``hierarchy.width_too_small``).
    """
    w = _check_positive(width, "interval width", "hierarchy.bad_width")
    if levels is not None and (
        isinstance(levels, bool) or not isinstance(levels, numbers.Integral) or levels < 1
    ):
        raise ParameterError(
            f"The number of interval levels must be a whole number ≥ 1, got {levels!r}.",
            code="hierarchy.bad_levels",
            value=str(levels),
        )
    keys, uniques = _distinct(values)
    x_all = _numeric(keys, uniques, infinite=True)
    finite = np.isfinite(x_all)
    if not finite.any():
        raise HierarchyError(
            "This builder needs numbers, but the column holds only infinite values: "
            f"{_quote_list(keys.tolist()[:_MAX_NAMED])}.",
            code="hierarchy.not_numeric",
            count=len(keys),
            values=keys.tolist()[:_MAX_NAMED],
        )
    x = x_all[finite]
    low, high = float(x.min()), float(x.max())
    if origin is None:
        start = low / w  # finite or +-inf (a tiny width), never NaN
        ko = float(math.floor(start)) if math.isfinite(start) else start
    else:
        try:
            o = float(origin)
        except (TypeError, ValueError):
            o = math.nan
        if not math.isfinite(o):
            raise ParameterError(
                f"The interval origin must be a finite number, got {origin!r}.",
                code="hierarchy.bad_origin",
                value=str(origin),
            )
        ko = o / w
    # ko: the origin in widths; every bound is (ko + m) * width for a whole m.
    with np.errstate(over="ignore", invalid="ignore"):
        o = ko * w if origin is None else o
        reach = max(abs(high / w - ko), abs(low / w - ko))
    if not reach < 2.0**52:
        least = max(abs(high / 2.0**52 - low / 2.0**52), math.ulp(0.0))
        raise ParameterError(
            f"An interval width of {w:g} is too small for this column: its values "
            f"(from {low:g} to {high:g}) would fall into more than 2^52 intervals. "
            f"Choose a width of at least {least:.3g}.",
            code="hierarchy.width_too_small",
            width=f"{w:g}",
            low=f"{low:g}",
            high=f"{high:g}",
            least=f"{least:.3g}",
        )
    decimals = max(10, 6 - math.floor(math.log10(w)))
    with np.errstate(over="ignore", invalid="ignore"):
        quotient = (x - o) / w
        if not np.isfinite(quotient).all():  # x - o beyond the floats: count in widths
            quotient = x / w - ko
    # Bin index at level 1; rounding the quotient first absorbs float noise (0.3/0.1),
    # then a value below its bin's written low end (-5e-324 for [0-1e-13)) or at its
    # high end moves one bin down or up, so that every label holds its values.
    bins = np.floor(np.round(quotient, 9)).astype(np.int64)
    bins -= x < _written(_bound(o, ko, w, bins.astype(np.float64)), decimals)
    bins += x >= _written(_bound(o, ko, w, bins.astype(np.float64) + 1), decimals)
    out: list[np.ndarray] = []
    j = 1
    while True:
        ub, inv = np.unique(bins, return_inverse=True)  # not rows: values
        ubf = ub.astype(np.float64)
        step = 2.0 ** (j - 1)
        lo, hi = _bound(o, ko, w, ubf * step), _bound(o, ko, w, (ubf + 1) * step)
        lo_ok, hi_ok = np.isfinite(lo), np.isfinite(hi)
        if len(ub) == 1 and not lo_ok[0] and not hi_ok[0]:
            break  # one bin holding every float: the top "*" says as much
        names = "[" + _fmt_nums(np.where(lo_ok, lo, 0.0), decimals) + "-"
        names = names + _fmt_nums(np.where(hi_ok, hi, 0.0), decimals) + ")"
        for i in np.flatnonzero(~(lo_ok & hi_ok)).tolist():  # a bound beyond the floats
            names[i] = (
                f">={_fmt_num(lo[i], decimals)}" if lo_ok[i] else f"<{_fmt_num(hi[i], decimals)}"
            )
        out.append(names[inv])
        if len(ub) == 1 or (levels is not None and j >= levels):
            break
        halved = np.floor_divide(bins, 2)
        if np.array_equal(halved, bins):  # bins -1 and 0 (an origin amid the values)
            break
        bins = halved
        j += 1
    if not finite.all():  # inf, -inf: values of their own up to the top
        labels = [np.empty(len(keys), dtype=object) for _ in out]
        for full, part in zip(labels, out, strict=True):
            full[finite], full[~finite] = part, keys[~finite]
        out = labels
    order = np.lexsort((keys.astype(str), x_all))
    return _finish(keys, out, order, name=_column_name(values), kind="intervals")


def _bound(o: float, ko: float, w: float, m: np.ndarray) -> np.ndarray:
    """The bin bounds ``o + m * w`` (``m`` whole numbers of widths), counted in widths
    from the origin (``ko = o / w``) where ``o + m * w`` is beyond the floats; ±inf
    where the bound itself is."""
    with np.errstate(over="ignore", invalid="ignore"):
        out = o + m * w
        return np.where(np.isfinite(out), out, (ko + m) * w)


def _written(bound: np.ndarray, decimals: int) -> np.ndarray:
    """The bounds as their labels write them (:func:`_fmt_num`: noise rounded off)."""
    with np.errstate(over="ignore", invalid="ignore"):
        r = np.round(bound, decimals)
    return np.where(np.isfinite(r) & (np.abs(bound) < 1e16), r, bound)


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
    if not isinstance(mask_char, str) or len(mask_char) != 1:
        raise ParameterError(
            f"The mask character must be a single character, got {mask_char!r}.",
            code="hierarchy.bad_mask_char",
            value=str(mask_char),
        )
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
    if bad.any():
        named = keys[bad].tolist()
        raise HierarchyError(
            f"{len(named)} value{'s are' if len(named) > 1 else ' is'} not a date that can be "
            f"read{f' with format {format!r}' if format else ''}: "
            f"{_quote_list(named[:_MAX_NAMED])}{', ...' if len(named) > _MAX_NAMED else ''}.",
            code="hierarchy.bad_dates",
            count=len(named),
            values=named[:_MAX_NAMED],
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
    h._where = lambda i: ("row", int(row_numbers[i]))
    try:
        h.validate()
    finally:
        h._where = _row_where
    return h
