"""The column names of a table: the first line of a text file read whole however wide
it is (up to the longest header the column limit allows), the names checked (blank,
duplicate, too long, a line break inside one, a first line that looks like data), and
the first column whose header cell alone is empty — a table written with its index —
named :data:`~privcore.data.loading.dataset.INDEX_NAME`."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from privcore.data.budget import ReadBudget
from privcore.data.loading import sources
from privcore.data.loading.dataset import (
    INDEX_NAME,
    MAX_COLUMN_NAME_CHARS,
    UnnamedColumn,
    _empty_file,
)
from privcore.data.loading.detect import _DELIMITERS
from privcore.data.loading.sources import _first_line_end, _read_prefix
from privcore.errors import DataFormatError


def _header_limit(budget: ReadBudget, *, chars: bool = False) -> int:
    """The longest first line read to find the column names, in bytes (characters with
    ``chars``): ``PRIVCORE_MAX_COLUMNS`` names of :data:`MAX_COLUMN_NAME_CHARS` characters
    (of up to 4 bytes each), quoted, with their delimiters — no header within the
    limits is longer."""
    per_name = (1 if chars else 4) * MAX_COLUMN_NAME_CHARS + 3
    return (budget.max_columns + 1) * per_name


def _whole_header(source: Any, path: Path | None, head: Any, budget: ReadBudget) -> Any:
    """The sample ``head`` (bytes, or the text of a decoded file), longer when the first
    line — the column names — goes on past it: to that line's end and a sample's worth
    of rows after it, so that a wide header is read whole instead of cut (a cut header
    shows made-up duplicate names). A first line longer than any header within the limits
    (:func:`_header_limit`) is not read to its end: :func:`_too_wide` says why."""
    sample = sources._SAMPLE_BYTES
    if len(head) < sample or _first_line_end(head) is not None:
        return head
    limit = _header_limit(budget, chars=isinstance(head, str))
    size = len(head)
    while True:  # read 4 times more each time, up to the limit and a sample
        size = min(4 * size, limit + sample)
        prefix = _read_prefix(source, path, size)
        end = _first_line_end(prefix)
        if end is None and len(prefix) < size:
            end = len(prefix)  # the whole file is one line: the column names
        if end is not None and end <= limit:
            return prefix[: end + sample]
        if end is not None or size == limit + sample:
            raise _too_wide(prefix[:limit], budget)


def _too_wide(prefix: Any, budget: ReadBudget) -> DataFormatError:
    """The error of a first line longer than any header within the limits: more columns
    than ``PRIVCORE_MAX_COLUMNS`` (its most frequent delimiter counted), or else — the
    line being longer than that many names can be — a column name that is too long."""
    as_text = isinstance(prefix, str)
    counts = {d: prefix.count(d if as_text else d.encode()) for d in _DELIMITERS}
    delimiter = max(counts, key=lambda d: counts[d])
    if counts[delimiter] + 1 > budget.max_columns:
        return DataFormatError(
            f"The first line has more than {counts[delimiter]:,} columns (it goes on past "
            f"{len(prefix):,} {'characters' if as_text else 'bytes'}); this installation "
            f"accepts at most {budget.max_columns} (PRIVCORE_MAX_COLUMNS).",
            code="data.too_many_columns",
            more_than=counts[delimiter],
            limit=budget.max_columns,
        )
    fields = prefix.split(delimiter if as_text else delimiter.encode())
    longest = max(range(len(fields)), key=lambda i: len(fields[i]))
    return _name_too_long(longest + 1)


def _name_too_long(column: int) -> DataFormatError:
    """``data.column_name_too_long``: the name of column ``column`` (1-based)."""
    return DataFormatError(
        f"The name of column {column} is longer than {MAX_COLUMN_NAME_CHARS:,} "
        "characters, which no column name may be. Check that the first line holds the "
        "column names.",
        code="data.column_name_too_long",
        column=column,
        limit=MAX_COLUMN_NAME_CHARS,
    )


def _sample_lines(text_head: str) -> list[str]:
    """The first 50 lines of the sample from the first non-blank one, the column names
    (``data.empty_file`` when every line is blank)."""
    lines = text_head.lstrip("\ufeff").splitlines()[:50]
    while lines and not lines[0].strip():
        lines.pop(0)
    if not lines:
        raise _empty_file()
    return lines


def _skips_space(lines: list[str], delimiter: str) -> bool:
    """Whether the sampled rows have spaces after their delimiters (``"a, b"``): only
    then are they skipped, an option that costs a third of the parse time."""
    return bool(re.search(re.escape(delimiter) + r" \S", "\n".join(lines[1:])))


def _header_record(lines: list[str], delimiter: str) -> list[str]:
    """The column names: the first record of the sample, which must end on its line.

    A record that goes on over the next line has a line break inside a quoted name (or a
    quote that is never closed): ``data.header_line_break`` names the column, where a
    one-line parse would report a header of one column and ragged rows.
    """
    reader = csv.reader(io.StringIO("\n".join(lines) + "\n"), delimiter=delimiter)
    header = next(reader, [])
    if reader.line_num > 1:
        broken = next(
            (i for i, name in enumerate(header) if "\n" in name or "\r" in name),
            len(header) - 1,
        )
        raise DataFormatError(
            f"The name of column {broken + 1} contains a line break (a quoted name that "
            "spans lines, or a quote that is never closed). Put every column name on the "
            "first line.",
            code="data.header_line_break",
            column=broken + 1,
        )
    return header


def _leading_zero_columns(text_head: str, delimiter: str, names: list[str]) -> list[str]:
    """Columns whose values in the sample's first 2,000 lines include digit strings with a
    leading zero (ZIP, phone): read as text so "02139" does not become 2139."""
    lines = text_head.lstrip("\ufeff").splitlines()[:2000]
    rows = list(csv.reader(lines[1:], delimiter=delimiter))
    found = []
    for index, name in enumerate(names):
        cells = [row[index].strip() for row in rows if len(row) > index]
        if any(len(c) > 1 and c[0] == "0" and c.isdigit() for c in cells):
            found.append(name)
    return found


def _blank_first(header: list[str]) -> bool:
    """The first header cell is empty and every other one is not: a table written with
    its index (pandas' ``to_csv()``/``to_excel()``, R's row names)."""
    names = [str(h).strip().lstrip("\ufeff").strip() for h in header]
    return len(names) > 1 and not names[0] and all(names[1:])


def _index_name(names: list[str]) -> str:
    """:data:`INDEX_NAME`, or ``index_2``, ``index_3``… when a column has that name."""
    taken = set(names)
    name, n = INDEX_NAME, 2
    while name in taken:
        name = f"{INDEX_NAME}_{n}"
        n += 1
    return name


def _unnamed_first(frame: pd.DataFrame, named: bool) -> UnnamedColumn | None:
    """The facts of the first column when its header cell was empty (``named``: the
    loader named it): whether it holds the running row numbers 0…n−1 or 1…n."""
    if not named:
        return None
    first = frame.iloc[:, 0]
    start = None
    if pd.api.types.is_integer_dtype(first.dtype) and len(first):
        values = first.to_numpy()
        for candidate in (0, 1):
            if np.array_equal(values, np.arange(candidate, candidate + len(values))):
                start = candidate
                break
    return UnnamedColumn(str(frame.columns[0]), start is not None, start)


def _check_header(header: list[str], *, first_may_be_blank: bool = False) -> list[str]:
    """The column names, checked; with ``first_may_be_blank`` an empty first name (and
    only it: :func:`_blank_first`) is named :func:`_index_name` instead of refused."""
    names = [h.strip().lstrip("\ufeff").strip() for h in header]
    if first_may_be_blank and _blank_first(names):
        names[0] = _index_name(names[1:])
    too_long = next((i for i, n in enumerate(names) if len(n) > MAX_COLUMN_NAME_CHARS), None)
    if too_long is not None:
        raise _name_too_long(too_long + 1)
    blank = [i + 1 for i, n in enumerate(names) if not n]
    if blank and len(names) > 1:
        raise DataFormatError(
            f"Column {blank[0]} has no name. Every column needs a name in the first line.",
            code="data.blank_column_name",
            column=blank[0],
        )
    seen: dict[str, int] = {}
    for i, n in enumerate(names):
        if n in seen:
            raise DataFormatError(
                f"The column name '{n}' appears twice (columns {seen[n] + 1} and {i + 1}). "
                "Column names must be unique.",
                code="data.duplicate_column",
                column=n,
                first=seen[n] + 1,
                second=i + 1,
            )
        seen[n] = i
    if names and all(_looks_like_value(n) for n in names):
        shown = ", ".join(names[:4])
        raise DataFormatError(
            f"The first line ({shown}…) looks like data, not column names. "
            "Add a header line with a name for every column.",
            code="data.no_header",
            first_line=shown,
        )
    return names


_VALUE_RE = re.compile(
    r"^[-+]?(\d+([.,]\d*)?|\.\d+)([eE][-+]?\d+)?$|^\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}$"
)


def _looks_like_value(name: str) -> bool:
    return bool(_VALUE_RE.match(name))
