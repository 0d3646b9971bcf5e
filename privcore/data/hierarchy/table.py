"""The :class:`Hierarchy` class: a table of labels, one row per original value
``[leaf, level 1, ..., top]``, factorized per level, that encodes data values as leaves
and generalizes them to any level."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import pandas as pd

from privcore.data.hierarchy.arx import arx_rows, arx_text
from privcore.data.hierarchy.keys import _MAX_NAMED, _factorize_keys, _named
from privcore.data.hierarchy.validation import Where, _row_where, _to_table, check_levels
from privcore.errors import HierarchyError, ParameterError

#: The label of the most general level made by every builder.
TOP = "*"
#: Allowed values of :attr:`Hierarchy.kind`.
KINDS = ("arx", "intervals", "cuts", "rounding", "masking", "dates", "mapping", "custom")


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
        self._where: Where = _row_where
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
        check_levels(self._table, self._codes, self._labels, self._where)

    def _validate_numbered(self, where: Where) -> None:
        """:meth:`validate`, its messages numbering row i as ``where(i)`` says."""
        self._where = where
        try:
            self.validate()
        finally:
            self._where = _row_where

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
                f"the hierarchy{self._name_part()}: {_named(missing)}. Add a row for each.",
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
        return arx_text(self._table, sep, formula_guard=formula_guard)

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
        rows, lines, name = arx_rows(source, name=name, sep=sep)
        h = cls(rows, name=name, kind="arx", validate=False)
        h._validate_numbered(lambda i: ("line", lines[i]))
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
