"""The rules of a hierarchy (:func:`check_levels`, run by
:meth:`~privcore.data.hierarchy.Hierarchy.validate`) and the reading of its rows into a
table of strings (:func:`_to_table`). Errors name the row (or the file's line) and the
level of the first cell that breaks a rule."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
from pandas.api import types as ptypes

from privcore.data.hierarchy.keys import _MAX_NAMED, _blank, _named, value_keys
from privcore.errors import HierarchyError

#: Where row i of a hierarchy stands, for the messages: ``("row", i + 1)`` or, for a
#: file, ``("line", its line number)``.
Where = Callable[[int], tuple[str, int]]


def _row_where(i: int) -> tuple[str, int]:
    return "row", i + 1


def _empty() -> HierarchyError:
    return HierarchyError(
        "The hierarchy is empty: it needs one row per original value.",
        code="hierarchy.empty",
    )


def _no_columns() -> HierarchyError:
    return HierarchyError(
        "The hierarchy has no columns; it needs at least two: the original value "
        "and the top value '*'.",
        code="hierarchy.too_short",
        columns=0,
    )


def check_levels(
    table: np.ndarray, codes: list[np.ndarray], labels: list[np.ndarray], where: Where
) -> None:
    """Raise :class:`HierarchyError` on the first rule the hierarchy breaks (in the
    order of :meth:`~privcore.data.hierarchy.Hierarchy.validate`). ``codes`` and
    ``labels`` are the factorization of each column of ``table``."""
    n, width = table.shape
    if n == 0:
        raise _empty()
    if width < 2:
        raise HierarchyError(
            "The hierarchy has a single column; it needs at least two: the original "
            "value and at least the top value '*'.",
            code="hierarchy.too_short",
            columns=width,
        )
    _check_blank(codes, labels, where)
    _check_leaves(table, codes[0], len(labels[0]), where)
    _check_monotone(codes, labels)
    _check_top(labels[-1], width - 1)


def _check_blank(codes: list[np.ndarray], labels: list[np.ndarray], where: Where) -> None:
    """Blank cells (empty or whitespace only), the first in reading order. Only the
    distinct labels of each level are inspected; their codes locate the rows."""
    first_blank: tuple[int, int] | None = None
    for j in range(len(labels)):
        is_blank = _blank(labels[j])
        if is_blank.any():
            i = int(np.flatnonzero(is_blank[codes[j]])[0])
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


def _check_leaves(table: np.ndarray, codes0: np.ndarray, n_leaves: int, where: Where) -> None:
    """A leaf (original value) repeated: the first one and its first two rows."""
    if n_leaves >= len(codes0):
        return
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


def _check_monotone(codes: list[np.ndarray], labels: list[np.ndarray]) -> None:
    """Every label has one parent. Each row's parent is scattered onto its label (any
    row wins), then every row must agree with what its label holds."""
    for lvl in range(len(codes) - 1):
        child, parent = codes[lvl], codes[lvl + 1]
        parent_of = np.empty(len(labels[lvl]), dtype=np.int64)
        parent_of[child] = parent
        disagree = parent_of[child] != parent
        if disagree.any():
            bad_labels = np.unique(child[disagree])  # not rows: labels
            c = int(bad_labels[0])  # smallest code = first to appear
            parents = pd.unique(parent[child == c])[:2]  # not rows: labels
            label = labels[lvl][c]
            p1, p2 = (labels[lvl + 1][p] for p in parents)
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


def _check_top(top: np.ndarray, level: int) -> None:
    """The top level holds a single value."""
    if len(top) != 1:
        raise HierarchyError(
            f"The top level (level {level}) must hold a single value such as '*', "
            f"but it holds {len(top)}: {_named(top.tolist())}.",
            code="hierarchy.top_not_single",
            level=level,
            count=len(top),
            values=top[:_MAX_NAMED].tolist(),
        )


def _to_table(rows: Any) -> np.ndarray:
    """2-D object array of str from a DataFrame or a sequence of rows; raises on empty
    input and on rows of different lengths."""
    if isinstance(rows, pd.DataFrame) or (isinstance(rows, np.ndarray) and rows.ndim == 2):
        if rows.shape[0] == 0:
            raise _empty()
        if rows.shape[1] == 0:
            raise _no_columns()
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
            raise _empty()
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
            raise _no_columns()
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
