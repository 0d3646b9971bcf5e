"""Generalization hierarchies suggested from the data, so that new tables need no
hand-built hierarchy before every algorithm runs.

:func:`suggest_hierarchy` looks at one column (its values and its name) and proposes one
hierarchy, with the rule that chose it (``kind``) and why (``reason`` code + params, for
the interface to word in either language):

- ``suppress`` — a column with at most two values, or named like sex/gender/性别: the
  value, then ``*`` in one step (a finer level would say nothing less than the value);
- ``dates`` — values that read as dates (ISO, or day first): day/month/year → month/year
  → year → ``*`` (:func:`~privcore.data.hierarchy.date_hierarchy`);
- ``masking`` — digit strings of one length (ZIP or post codes, phone prefixes), or a
  whole-number column named like zip/postcode/邮编 whose numbers all have the same
  number of digits: characters masked from the right, ``47677 → 4767* → 476** → … → *``;
- ``intervals`` — numbers: intervals of a "nice" width (1, 2 or 5 × 10ⁿ) giving at most
  :data:`TARGET_BINS` intervals over the value range, doubling at each level until one
  interval holds every value, then ``*``
  (:func:`~privcore.data.hierarchy.interval_hierarchy`);
- ``frequency`` — other text: values ordered by frequency (most frequent first, ties by
  value) and grouped in twos, fours, eights… of neighbours in that order, each group
  labelled with the set of its values (``{a, b}``, a form the released-cell grammar reads
  back), up to ``*``. Frequent values thus meet other frequent values first, so a level
  keeps classes balanced.

Missing values stay out of every hierarchy (a missing quasi-identifier is its own value
to the algorithms). Every suggestion is a plain :class:`~privcore.data.hierarchy.Hierarchy`
that the user may inspect and edit before use.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from privcore.data.codes import n_distinct, value_codes, value_counts
from privcore.data.hierarchy import (
    Hierarchy,
    date_hierarchy,
    interval_hierarchy,
    mapping_hierarchy,
    masking_hierarchy,
    value_keys,
)
from privcore.errors import HierarchyError, PrivcoreError

__all__ = [
    "KINDS",
    "REASONS",
    "TARGET_BINS",
    "HierarchySuggestion",
    "suggest_hierarchies",
    "suggest_hierarchy",
]

#: The rules a suggestion follows (``HierarchySuggestion.kind``).
KINDS = ("suppress", "dates", "masking", "intervals", "frequency")
#: Why a rule was chosen (``HierarchySuggestion.reason``; the interfaces word each code).
REASONS = (
    "few_values",
    "binary_name",
    "dates",
    "digit_codes",
    "code_name",
    "categories",
    "numbers",
)

#: At most this many intervals at the first level of a numeric hierarchy.
TARGET_BINS = 16
_DATE_SHARE = 0.95  # share of values that must read as dates
_BINARY_NAMES = re.compile(r"(^|[^a-z])(sex|gender)([^a-z]|$)|性别", re.IGNORECASE)
_CODE_NAMES = re.compile(r"zip|post.?code|postal|plz|邮编|邮政编码", re.IGNORECASE)


@dataclass(frozen=True)
class HierarchySuggestion:
    """A suggested hierarchy for ``column``, the rule that made it, and the reason
    (a code and its parameters)."""

    column: str
    hierarchy: Hierarchy
    kind: str
    reason: str
    params: Mapping[str, Any] = field(default_factory=dict)

    def reason_params(self) -> dict[str, Any]:
        """``params`` ready to fill in the words of the reason: a float written plainly
        (an interval width of 5.0 as ``5``, 0.05 as ``0.05``)."""
        return {k: f"{v:g}" if isinstance(v, float) else v for k, v in self.params.items()}


def _nice_width(span: float, whole: bool, *, low: float = 0.0, high: float = 0.0) -> float:
    """The smallest width of the form 1, 2 or 5 × 10ⁿ giving at most TARGET_BINS bins
    over ``span``, or over ``[low, high]`` when ``span`` is not finite (values near
    ±10³⁰⁸, whose span exceeds the largest float: it is divided before it is taken)."""
    raw = (
        max(span, 1e-12) / TARGET_BINS
        if math.isfinite(span)
        else high / TARGET_BINS - low / TARGET_BINS
    )
    exponent = math.floor(math.log10(raw))
    for step in (1, 2, 5, 10):
        width = step * 10.0**exponent
        if width >= raw:
            break
    if whole:
        width = max(1.0, math.ceil(width))
    return float(width)


def _frequency_groups(values: pd.Series, column: str) -> Hierarchy:
    counts = value_counts(values.dropna().astype(str), sort=False)
    order = sorted(counts.index, key=lambda v: (-int(counts[v]), v))
    n = len(order)
    levels = [list(order)]
    size = 1
    while size < n:
        size *= 2
        if size >= n:
            break
        position = np.arange(n) // size
        groups: dict[int, list[str]] = {}
        for value, group in zip(order, position, strict=True):
            groups.setdefault(int(group), []).append(value)
        labels = {
            v: ("{" + ", ".join(members) + "}" if len(members) > 1 else members[0])
            for members in groups.values()
            for v in members
        }
        levels.append([labels[v] for v in order])
    table = pd.DataFrame({f"level {i}": level for i, level in enumerate(levels)})
    table[f"level {len(levels)}"] = "*"
    hierarchy = mapping_hierarchy(table)
    return Hierarchy(hierarchy.to_frame().to_numpy(dtype=object).tolist(), name=column)


def _reads_as_dates(values: pd.Series) -> tuple[bool, dict[str, Any]]:
    text = values.dropna().astype(str)
    if text.empty or not text.str.contains(r"[-/.]", regex=True).all():
        return False, {}
    for options in ({"format": "ISO8601"}, {"dayfirst": True}):
        parsed = pd.to_datetime(text, errors="coerce", **options)
        if parsed.notna().mean() >= _DATE_SHARE:
            return True, options
    return False, {}


def suggest_hierarchy(values: pd.Series, column: str | None = None) -> HierarchySuggestion:
    """One hierarchy for the column ``values`` (named ``column``; see the module
    docstring for the rules). Raises :class:`HierarchyError` for a column with no value."""
    name = str(column if column is not None else values.name)
    present = values.dropna()
    if present.empty:
        raise HierarchyError(
            f"Column '{name}' holds no value, so no hierarchy can be suggested for it.",
            code="hierarchy.no_values",
            column=name,
        )
    keys = value_keys(present)  # how values meet leaves: 18.0 is "18", as the data is matched
    distinct = n_distinct(keys)
    numeric = pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values)
    if distinct <= 2 or _BINARY_NAMES.search(name):
        _, values_present = value_codes(keys)
        table = pd.DataFrame({"value": sorted(values_present), "top": "*"})
        hierarchy = Hierarchy(mapping_hierarchy(table).to_frame().to_numpy().tolist(), name=name)
        reason = "few_values" if distinct <= 2 else "binary_name"
        return HierarchySuggestion(name, hierarchy, "suppress", reason, {"values": distinct})
    if not numeric:
        dated, options = _reads_as_dates(present)
        if dated:
            dayfirst = options.get("dayfirst", False)
            fmt = options.get("format")
            hierarchy = date_hierarchy(values, dayfirst=dayfirst, format=fmt)
            return HierarchySuggestion(name, hierarchy, "dates", "dates", {})
        text = present.astype(str)
        lengths = text.str.len()
        if text.str.fullmatch(r"\d+").all() and n_distinct(lengths) == 1 and lengths.iloc[0] >= 3:
            hierarchy = masking_hierarchy(values)
            return HierarchySuggestion(
                name, hierarchy, "masking", "digit_codes", {"digits": int(lengths.iloc[0])}
            )
        return HierarchySuggestion(
            name, _frequency_groups(values, name), "frequency", "categories", {"values": distinct}
        )
    numbers = present.astype(float)
    # inf, -inf: values of their own up to the top (interval_hierarchy); at least one
    # finite number is left, since inf and -inf alone are two values (suppress, above)
    numbers = numbers[np.isfinite(numbers)]
    whole = bool(np.all(np.equal(np.mod(numbers, 1), 0)))
    if whole and _CODE_NAMES.search(name) and float(np.abs(numbers).max()) < 2.0**53:
        digits = numbers.astype(np.int64).astype(str).str.len()
        if n_distinct(digits) == 1 and digits.iloc[0] >= 3:
            hierarchy = masking_hierarchy(
                numbers.astype(np.int64).astype(str).reindex(values.index)
            )
            return HierarchySuggestion(
                name, hierarchy, "masking", "code_name", {"digits": int(digits.iloc[0])}
            )
    low, high = float(numbers.min()), float(numbers.max())
    with np.errstate(over="ignore"):
        span = float(np.float64(high) - np.float64(low))
    width = _nice_width(span, whole, low=low, high=high)
    hierarchy = interval_hierarchy(values, width=width)
    return HierarchySuggestion(
        name, hierarchy, "intervals", "numbers", {"width": width, "levels": hierarchy.height}
    )


def suggest_hierarchies(
    frame: pd.DataFrame, columns: Iterable[str]
) -> dict[str, HierarchySuggestion]:
    """A suggestion for each of ``columns`` of ``frame`` that can have one (a column
    without any value is left out)."""
    out: dict[str, HierarchySuggestion] = {}
    for column in columns:
        try:
            out[str(column)] = suggest_hierarchy(frame[column], str(column))
        except PrivcoreError:
            continue
    return out
