"""Released cells as predicates over original values (SPEC §6, linkage attack).

A generalized quasi-identifier cell does not name a value, it names a *set* of values:
``4767*`` stands for every five-character ZIP starting with ``4767``, ``[20-30)`` for
every age from 20 up to 30, ``{a,b}`` for ``a`` or ``b``, a hierarchy label for every
leaf under it. A linkage attacker matches a person to a class when each of the class's
cells contains the person's value. This module reads every *distinct* released value of
a column once and then answers "which cell contains which value" for many values at
once, as a boolean matrix computed with numpy per kind of cell.

Forms, tried in this order on each distinct released value:

``hierarchy``
    a label of the column's hierarchy (any level), when one is given: it contains the
    leaves whose label at that level it is (the top label contains every value, missing
    included). Values the hierarchy does not know are judged by the label's text as
    below (``4767*`` still contains ``47671``).
``any``
    ``*``: every value, missing included (also the suppression marker).
``mask``
    ``476**``: values whose text has the same length and starts with the prefix
    (``*``-run at the end only). Text, not number: ``04***`` contains ``"04321"`` but
    not the number ``4321``.
``comparison``
    ``<=40``, ``>=40``, ``<40``, ``>40``, ``≤40``, ``≥40`` over numbers.
``range``
    ``20-29``, ``20~29`` (both ends included), ``[20-30)``, ``[20,30]``, ``(20,30]``,
    ``[20-29]`` (brackets say which end is included); negative and decimal bounds.
``set``
    ``{a,b}`` or ``{a, b}``: any member; each member is read like a cell of its own
    (``NA`` = missing).
``missing``
    ``NA`` or a missing cell: only a missing value.
``exact``
    anything else: the value itself. A number-like cell (``39``, ``047``) compares as a
    number (``39`` = ``39.0`` = ``"39"``); any other cell compares as text.

A range, comparison or exact value followed by ``,NA`` (Mondrian's ``[20-29],NA``)
also contains the missing value. Every cell except ``*``, sets and unparsed cells also
contains an original whose text is exactly the cell's text.

``unparsed``
    a cell that looks generalized but fits no form: ``*`` inside the text (``4*7*``),
    brackets around something that is no numeric range (``[a-b]``, ``[20-]``), braces
    that make no set (``{}``, ``{a``), or a range whose low end exceeds its high end.
    It contains nothing; its column and value are reported, never guessed at.

Numbers are read from numeric columns and from number-like text; a value that is not a
number is in no range or comparison.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd
from pandas.api import types as ptypes

from privcore.data.codes import SUPPRESSED, factorize, is_number, value_codes
from privcore.data.hierarchy import Hierarchy, value_keys
from privcore.data.hierarchy.keys import _factorize_keys
from privcore.errors import ParameterError

__all__ = [
    "KINDS",
    "MISSING_TEXT",
    "ColumnCells",
    "comparable_keys",
    "numeric_cells",
    "parse_cell",
    "parse_column",
    "require_paired_rows",
]

#: The kinds of released cell, in the order they are tried.
KINDS = (
    "hierarchy",
    "any",
    "mask",
    "comparison",
    "range",
    "set",
    "missing",
    "exact",
    "unparsed",
)
#: How a missing value is written inside a released cell (Mondrian: ``[20-29],NA``).
MISSING_TEXT = "NA"

_NUM = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
_NUMBER = re.compile(rf"^{_NUM}$")
_MASK = re.compile(r"^([^*]*)(\*+)$")
_COMPARISON = re.compile(rf"^(<=|>=|=<|=>|<|>|≤|≥)\s*({_NUM})$")
_BARE_RANGE = re.compile(rf"^({_NUM})\s*(?:-|~|–)\s*({_NUM})$")
_BRACKETED_RANGE = re.compile(rf"^([\[(])\s*({_NUM})\s*(?:-|,|~|–)\s*({_NUM})\s*([\])])$")
_WITH_MISSING = re.compile(rf"^(.*\S)\s*,\s*{MISSING_TEXT}$")
_DENSE_CELLS = 16_000_000  # matrix cells evaluated per block (bounded memory)


# --------------------------------------------------------------------------- equal values

#: A number written plainly, as a program writes it: an optional minus, no leading zero
#: (but ``0`` itself), an optional fraction and exponent. ``0123`` and ``+5`` are no
#: such text: a code with a leading zero stays a code.
_PLAIN_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_PLAIN_INTEGER = re.compile(r"-?\d+")


def comparable_keys(values: Any) -> pd.Series:
    """The key by which a released cell is compared with an original value: equal keys,
    equal values, whatever the cells' storage types.

    :func:`~privcore.data.hierarchy.value_keys` (numbers as their text: ``39`` and
    ``39.0`` are ``"39"``; text as it is; missing stays missing), with one rule more: a
    text that spells a number plainly (:data:`_PLAIN_NUMBER`: ``"42"``, ``"42.0"``,
    ``"-3.50"``, ``"1e+20"``) is keyed as that number, so that a released column that
    became text — a ``*`` among numbers, ``"42.0"`` — still equals the original's 42,
    and ``"35.666666666666664"`` its float. An integer text keeps every digit (exact
    beyond 2⁵³); other numbers are read as floats. A text with a leading zero
    (``"02139"``) or a sign (``"+5"``) is no plain number and stays text: such a text
    is a code, and equals only itself. Vectorized over the distinct values. Returns a
    ``string`` Series aligned with ``values``, like ``value_keys``.
    """
    codes, uniques = _factorize_keys(values)  # the rows' distinct values and their keys
    text = np.asarray(uniques, dtype=object)
    present = np.array([isinstance(k, str) for k in text], dtype=bool)  # not rows: values
    plain = np.zeros(len(text), dtype=bool)
    plain[present] = [bool(_PLAIN_NUMBER.fullmatch(k)) for k in text[present]]
    if plain.any():
        whole = np.zeros(len(text), dtype=bool)
        whole[plain] = [bool(_PLAIN_INTEGER.fullmatch(k)) for k in text[plain]]
        text = text.copy()
        text[whole] = [str(int(k)) for k in text[whole]]
        fraction = plain & ~whole
        if fraction.any():
            numbers = pd.Series([float(k) for k in text[fraction]], dtype=np.float64)
            text[fraction] = value_keys(numbers).to_numpy(dtype=object)
    index = values.index if isinstance(values, pd.Series) else None
    name = values.name if isinstance(values, pd.Series) else None
    ext = np.append(text, None).astype(object)  # code -1 (missing) picks the trailing None
    return pd.Series(ext[codes], index=index, name=name, dtype="string")


# --------------------------------------------------------------------------- one cell


@dataclass(frozen=True)
class _Spec:
    """One parsed cell: its kind and the parameters of its predicate.

    ``low``/``high`` with ``low_closed``/``high_closed`` for ranges and comparisons;
    ``number`` for a number-like exact value; ``text`` the cell as text (matched
    literally); ``prefix``/``length`` for masks; ``members`` for sets;
    ``with_missing`` when the missing value is in the cell too.
    """

    kind: str
    text: str | None = None
    number: float | None = None
    low: float = -math.inf
    high: float = math.inf
    low_closed: bool = True
    high_closed: bool = True
    prefix: str = ""
    length: int = 0
    members: tuple[_Spec, ...] = ()
    with_missing: bool = False


def _as_number(text: str) -> float | None:
    if _NUMBER.match(text):
        value = float(text)
        return value if math.isfinite(value) else None
    return None


def parse_cell(text: str, *, in_set: bool = False) -> _Spec:
    """Parse one released cell written as text (no hierarchy; see the module docs)."""
    raw = text
    text = text.strip()
    if text == SUPPRESSED:
        return _Spec("any")
    if text == MISSING_TEXT:
        return _Spec("missing", text=raw)
    mask = _MASK.match(text)
    if mask:
        return _Spec("mask", text=raw, prefix=mask.group(1), length=len(text))
    comparison = _COMPARISON.match(text)
    if comparison:
        op, bound = comparison.group(1), float(comparison.group(2))
        if op in ("<", "<=", "=<", "≤"):
            return _Spec(
                "comparison", text=raw, high=bound, high_closed=op != "<", low_closed=False
            )
        return _Spec("comparison", text=raw, low=bound, low_closed=op != ">", high_closed=False)
    bare = _BARE_RANGE.match(text)
    bracketed = None if bare else _BRACKETED_RANGE.match(text)
    if bare or bracketed:
        if bare:
            low, high = float(bare.group(1)), float(bare.group(2))
            low_closed = high_closed = True
        else:
            assert bracketed is not None
            low, high = float(bracketed.group(2)), float(bracketed.group(3))
            low_closed, high_closed = bracketed.group(1) == "[", bracketed.group(4) == "]"
        if low > high or not (math.isfinite(low) and math.isfinite(high)):
            return _Spec("unparsed", text=raw)
        return _Spec(
            "range", text=raw, low=low, high=high, low_closed=low_closed, high_closed=high_closed
        )
    if not in_set and text.startswith("{") and text.endswith("}") and len(text) > 2:
        parts = [p.strip() for p in text[1:-1].split(",")]
        members = tuple(parse_cell(p, in_set=True) for p in parts if p)
        if len(members) < len(parts) or any(m.kind == "unparsed" for m in members):
            return _Spec("unparsed", text=raw)
        return _Spec("set", members=members)
    with_missing = _WITH_MISSING.match(text)
    if with_missing and not in_set:
        inner = parse_cell(with_missing.group(1), in_set=True)
        if inner.kind in ("range", "comparison", "exact"):
            return replace(inner, with_missing=True)
    if _looks_generalized(text):
        return _Spec("unparsed", text=raw)
    return _Spec("exact", text=raw, number=_as_number(text))


def _looks_generalized(text: str) -> bool:
    """Text that uses generalization syntax (so must not be taken as a plain value)."""
    return (
        SUPPRESSED in text
        or text.startswith("[")
        or text.startswith("{")
        or text.endswith("}")
        or (text.startswith("(") and text.endswith(("]", ")")) and any(c.isdigit() for c in text))
    )


def _spec_of_value(value: Any, key: Any) -> _Spec:
    """The spec of one distinct released value (a number, text, or missing)."""
    if key is None or key is pd.NA:
        return _Spec("missing")
    if isinstance(value, str):
        return parse_cell(value)
    if isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_)):
        number = float(value)
        return _Spec("exact", text=str(key), number=number if math.isfinite(number) else None)
    return _Spec("exact", text=str(key))


# --------------------------------------------------------------------------- originals


@dataclass(frozen=True)
class _Originals:
    """Original values prepared once: text keys, numbers, missing flags."""

    keys: np.ndarray  # object: str, or None when missing
    numbers: np.ndarray  # float64, NaN when not a number
    missing: np.ndarray  # bool

    @classmethod
    def of(cls, values: Any) -> _Originals:
        series = values if isinstance(values, pd.Series) else pd.Series(values, dtype=object)
        series = series.reset_index(drop=True)
        keys_s = value_keys(series)
        missing = keys_s.isna().to_numpy(dtype=bool)
        keys = keys_s.astype(object).where(~missing, None).to_numpy(dtype=object)
        dtype = series.dtype
        if ptypes.is_numeric_dtype(dtype) and not ptypes.is_bool_dtype(dtype):
            nums = np.array(  # a writable copy: pandas may hand out read-only views
                pd.to_numeric(series, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
            )
        else:
            text = keys_s.fillna("")
            looks = text.str.strip().str.fullmatch(_NUM).fillna(False).to_numpy(dtype=bool)
            nums = np.full(len(series), np.nan)
            if looks.any():
                nums[looks] = pd.to_numeric(text[looks].str.strip(), errors="coerce").to_numpy(
                    dtype=np.float64, na_value=np.nan
                )
            if ptypes.is_object_dtype(dtype):
                # Mixed object columns: real numbers among text.
                raw = series.to_numpy(dtype=object)
                is_num = np.fromiter(
                    (
                        isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))
                        for v in raw
                    ),
                    dtype=bool,
                    count=len(raw),
                )
                if is_num.any():
                    nums[is_num] = raw[is_num].astype(np.float64)
        nums[~np.isfinite(nums)] = np.nan
        return cls(keys, nums, missing)

    def __len__(self) -> int:
        return len(self.keys)


# --------------------------------------------------------------------------- evaluation


def _evaluate(specs: Sequence[_Spec], orig: _Originals) -> np.ndarray:
    """Boolean matrix specs × originals, one numpy pass per kind (no hierarchy)."""
    n_specs, n_values = len(specs), len(orig)
    out = np.zeros((n_specs, n_values), dtype=bool)
    if n_specs == 0 or n_values == 0:
        return out
    kinds = np.array([s.kind for s in specs], dtype=object)

    out[kinds == "any"] = True
    with_missing = np.array([s.kind == "missing" or s.with_missing for s in specs], dtype=bool)
    if with_missing.any() and orig.missing.any():
        out[np.ix_(with_missing, orig.missing)] = True

    x = orig.numbers
    ranged = np.flatnonzero((kinds == "range") | (kinds == "comparison"))
    if len(ranged):
        low = np.array([specs[i].low for i in ranged])[:, None]
        high = np.array([specs[i].high for i in ranged])[:, None]
        low_closed = np.array([specs[i].low_closed for i in ranged])[:, None]
        high_closed = np.array([specs[i].high_closed for i in ranged])[:, None]
        with np.errstate(invalid="ignore"):
            above = np.where(low_closed, x >= low, x > low)
            below = np.where(high_closed, x <= high, x < high)
        out[ranged] |= above & below

    numeric = np.flatnonzero(
        np.array([s.kind == "exact" and s.number is not None for s in specs], dtype=bool)
    )
    if len(numeric):
        target = np.array([specs[i].number for i in numeric], dtype=np.float64)[:, None]
        out[numeric] |= x[None, :] == target

    _match_text(specs, kinds, orig, out)
    _match_masks(specs, kinds, orig, out)

    sets = np.flatnonzero(kinds == "set")
    if len(sets):
        members = [m for i in sets for m in specs[i].members]
        lengths = np.array([len(specs[i].members) for i in sets])
        sub = _evaluate(members, orig)
        starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
        out[sets] |= np.logical_or.reduceat(sub, starts, axis=0)  # not rows: set members
    return out


def _match_text(
    specs: Sequence[_Spec], kinds: np.ndarray, orig: _Originals, out: np.ndarray
) -> None:
    """An original whose text is exactly the cell's text is in the cell."""
    literal = np.flatnonzero(
        np.isin(kinds, ["mask", "comparison", "range", "missing", "exact"])
        & np.array([s.text is not None for s in specs], dtype=bool)
    )
    present = np.flatnonzero(~orig.missing)
    if not len(literal) or not len(present):
        return
    texts = np.array([specs[i].text for i in literal], dtype=object)
    both = pd.Series(np.concatenate([texts, orig.keys[present]]), dtype=object)
    codes, _ = pd.factorize(both)  # not rows: distinct cells and distinct values
    cell_code, value_code = codes[: len(texts)], codes[len(texts) :]
    out[np.ix_(literal, present)] |= cell_code[:, None] == value_code[None, :]


def _match_masks(
    specs: Sequence[_Spec], kinds: np.ndarray, orig: _Originals, out: np.ndarray
) -> None:
    """Masks by string slicing, one pass per (prefix length, total length)."""
    masks = np.flatnonzero(kinds == "mask")
    present = np.flatnonzero(~orig.missing)
    if not len(masks) or not len(present):
        return
    text = orig.keys[present].astype(np.dtypes.StringDType())
    lengths = np.strings.str_len(text)
    groups: dict[tuple[int, int], list[int]] = {}
    for i in masks.tolist():  # distinct cells only
        groups.setdefault((len(specs[i].prefix), specs[i].length), []).append(i)
    for (width, length), members in groups.items():
        eligible = np.flatnonzero(lengths == length)
        if not len(eligible):
            continue
        heads = np.strings.slice(text[eligible], 0, width).astype(object)
        # Two cells may share a prefix (" 4767*" and "4767*"): compare prefix codes.
        heads_of_cells = pd.Series([specs[i].prefix for i in members], dtype=object)
        codes, prefixes = pd.factorize(heads_of_cells)  # not rows: distinct cells
        position = pd.Index(prefixes, dtype=object).get_indexer(heads)
        out[np.ix_(members, present[eligible])] |= codes[:, None] == position[None, :]


# --------------------------------------------------------------------------- a column


@dataclass(frozen=True, eq=False)
class ColumnCells:
    """The distinct released values of one column, each parsed once.

    ``labels`` are the distinct released values (missing as ``None``), ``kinds`` the
    kind of each (see :data:`KINDS`), ``codes`` per input row the index of its label,
    ``unparsed`` the labels no form fits (as text). :meth:`contains` evaluates every
    label on many original values at once.
    """

    column: str | None
    labels: np.ndarray
    kinds: np.ndarray
    codes: np.ndarray
    unparsed: list[str]
    hierarchy: Hierarchy | None = None
    _specs: tuple[_Spec, ...] = field(default=(), repr=False)
    _texts: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=object), repr=False)

    def __len__(self) -> int:
        return len(self.labels)

    def contains(self, original_values: Any) -> np.ndarray:
        """Boolean matrix ``labels × original values``: True where the label's cell
        contains the value. Pass distinct values (the matrix has one column per value
        given); large inputs are evaluated in blocks."""
        orig = _Originals.of(original_values)
        n_values = len(orig)
        out = np.zeros((len(self.labels), n_values), dtype=bool)
        block = max(1, _DENSE_CELLS // max(len(self.labels), 1))
        for start in range(0, n_values, block):
            stop = min(start + block, n_values)
            part = _Originals(
                orig.keys[start:stop], orig.numbers[start:stop], orig.missing[start:stop]
            )
            out[:, start:stop] = self._contains(part)
        return out

    def _contains(self, orig: _Originals) -> np.ndarray:
        out = _evaluate(self._specs, orig)
        hierarchy = self.hierarchy
        hier = np.flatnonzero(self.kinds == "hierarchy")
        if hierarchy is None or not len(hier):
            return out
        leaf = pd.Index(hierarchy.leaves, dtype=object).get_indexer(
            pd.Index(np.where(orig.missing, None, orig.keys), dtype=object)
        )
        leaf[orig.missing] = -1
        covered = np.flatnonzero(leaf >= 0)
        texts = pd.Index(self._texts[hier], dtype=object)
        sub = np.zeros((len(hier), len(covered)), dtype=bool)
        top = np.zeros(len(hier), dtype=bool)
        for level in range(hierarchy.height + 1):
            position = pd.Index(hierarchy.labels(level), dtype=object).get_indexer(texts)
            here = np.flatnonzero(position >= 0)
            if not len(here):
                continue
            if level == hierarchy.height:
                top[here] = True
                sub[here] = True
            else:
                codes = hierarchy.codes(level)[leaf[covered]]
                sub[here] |= codes[None, :] == position[here][:, None]
        # Known leaves: the hierarchy decides; unknown values keep the textual reading.
        out[np.ix_(hier, covered)] = sub
        if top.any() and orig.missing.any():
            out[np.ix_(hier[top], orig.missing)] = True
        return out

    def kind_counts(self) -> dict[str, int]:
        """How many distinct labels are of each kind."""
        labels = self.kinds.astype(str)
        kinds, counts = np.unique(labels, return_counts=True)  # not rows: distinct labels
        return dict(zip(kinds.tolist(), counts.tolist(), strict=True))


def parse_column(
    values: pd.Series | np.ndarray | Sequence[Any],
    *,
    hierarchy: Hierarchy | None = None,
    column: str | None = None,
) -> ColumnCells:
    """Parse each distinct released value of a column once (see the module docs).

    ``hierarchy`` (optional) makes its labels take precedence over every textual form.
    Work is proportional to the number of rows only for the factorization; parsing
    touches the distinct values.
    """
    series = values if isinstance(values, pd.Series) else pd.Series(list(values), dtype=object)
    if column is None and series.name is not None:
        column = str(series.name)
    codes, uniques = factorize(series)
    keys = value_keys(pd.Series(uniques, dtype=object)).astype(object)
    keys = keys.where(keys.notna(), None).to_numpy(dtype=object)
    hierarchy_labels: set[str] = set()
    if hierarchy is not None:
        for level in range(hierarchy.height + 1):
            hierarchy_labels.update(hierarchy.labels(level).tolist())
    specs: list[_Spec] = []
    kinds: list[str] = []
    for value, key in zip(uniques.tolist(), keys.tolist(), strict=True):  # distinct only
        spec = _spec_of_value(value, key)
        specs.append(spec)
        in_hierarchy = key is not None and key in hierarchy_labels
        kinds.append("hierarchy" if in_hierarchy else spec.kind)
    unparsed = [str(k) for k, kind in zip(keys.tolist(), kinds, strict=True) if kind == "unparsed"]
    labels = np.asarray(uniques, dtype=object).copy()
    labels[np.array([k is None for k in keys], dtype=bool)] = None
    return ColumnCells(
        column=column,
        labels=labels,
        kinds=np.array(kinds, dtype=object),
        codes=codes,
        unparsed=unparsed,
        hierarchy=hierarchy,
        _specs=tuple(specs),
        _texts=keys,
    )


_CODED = r"^\s*(?:>=|<=|≥|≤)?\s*([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)\s*$"


def numeric_cells(values: pd.Series) -> np.ndarray:
    """The cells of a column as float64: numbers as they are; text cells that are a
    number, or ``>=m`` / ``<=M`` (top/bottom coding), as that number; anything else
    NaN. Each distinct text is read once."""
    if is_number(values.dtype):
        return values.to_numpy(dtype=np.float64, na_value=np.nan)
    codes, uniques = value_codes(values)
    text = pd.Series(np.asarray(uniques, dtype=object)).astype("str")
    numbers = pd.to_numeric(text.str.extract(_CODED, expand=False), errors="coerce")
    table = np.append(numbers.to_numpy(dtype=np.float64, na_value=np.nan), np.nan)
    return table[codes]  # code -1 (missing) picks the trailing NaN


def require_paired_rows(original: pd.DataFrame, release: pd.DataFrame, what: str) -> None:
    """Refuse (``utility.rows_differ``) to compare two tables row by row when their row
    counts differ; ``what`` names the figure that compares them."""
    if len(original) != len(release):
        raise ParameterError(
            f"The release has {len(release)} rows and the original {len(original)}: "
            f"{what} compares them row by row.",
            code="utility.rows_differ",
            original=len(original),
            release=len(release),
        )
