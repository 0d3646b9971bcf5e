"""Delimited text (CSV, TSV, semicolon- or pipe-separated): the encoding and delimiter
sniffed from the sample, the header read and checked, the cells' length measured on the
bytes, then the rows parsed by pandas in chunks, with the columns whose values have
leading zeros kept as text. A ragged row is an error naming its line; the formula
guard's quote (:mod:`privcore.data.writing`) is removed from the cells."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np
import pandas as pd

from privcore.core.notes import Note
from privcore.data.budget import ReadBudget
from privcore.data.loading import sources
from privcore.data.loading.cleaning import _concat_chunks, _finish_frame
from privcore.data.loading.dataset import (
    MISSING_MARKERS,
    Dataset,
    _empty_file,
    _no_rows,
    _ragged,
)
from privcore.data.loading.detect import _trim_partial_char, detect_encoding, sniff_delimiter
from privcore.data.loading.header import (
    _blank_first,
    _check_header,
    _header_record,
    _leading_zero_columns,
    _sample_lines,
    _skips_space,
    _unnamed_first,
    _whole_header,
)
from privcore.data.loading.limits import _check_cell_text, _scan_cells
from privcore.data.loading.sources import _as_buffer, _read_all
from privcore.data.writing import unguard_formulas, unguard_text
from privcore.errors import DataFormatError

# Rows parsed between two checks of the clock. Text files under this many rows are read
# in one piece (the same dtypes as one read_csv call).
_CSV_CHUNK_ROWS = 1_000_000
_DELIMITER_NAMES = {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe"}
# pandas' read_csv options that make the loader's missing markers, and only those,
# missing values (pandas' own list holds "None", "n/a", "-nan", …)
READ_CSV_MISSING: Mapping[str, Any] = MappingProxyType(
    {"na_values": list(MISSING_MARKERS), "keep_default_na": False}
)


def _read_text(
    source: Any, path: Path | None, head: bytes, name: str, budget: ReadBudget
) -> Dataset:
    """A delimited text file; what Python's csv module cannot split (a line break inside
    an unquoted field, a field above its size limit) is ``data.unreadable``."""
    try:
        return _read_text_file(source, path, head, name, budget)
    except csv.Error as exc:
        raise DataFormatError(
            f"The file could not be read as a table: {exc}.",
            code="data.unreadable",
            detail=str(exc),
        ) from exc


def _read_text_file(
    source: Any, path: Path | None, head: bytes, name: str, budget: ReadBudget
) -> Dataset:
    encoding = detect_encoding(head)
    if encoding == "utf-16":
        # pandas' C parser cannot stream UTF-16; decode once and parse UTF-8.
        raw = _read_all(source, path).decode("utf-16")
        return _parse_text(
            io.BytesIO(raw.encode("utf-8")),
            _whole_header(raw, None, raw[: sources._SAMPLE_BYTES], budget),
            name,
            "utf-8",
            budget,
            reported_encoding="utf-16",
        )
    head = _whole_header(source, path, head, budget)
    text_head = _trim_partial_char(head).decode(encoding, errors="replace")
    try:
        return _parse_text(_as_buffer(source, path), text_head, name, encoding, budget)
    except UnicodeDecodeError:
        # The sample looked like one encoding, a later part of the file does not.
        raw = _read_all(source, path)
        encoding = detect_encoding(raw)
        head = _whole_header(raw, None, raw[: sources._SAMPLE_BYTES], budget)
        return _parse_text(
            io.BytesIO(raw),
            _trim_partial_char(head).decode(encoding, "replace"),
            name,
            encoding,
            budget,
        )


def _parse_text(
    buffer: Any,
    text_head: str,
    name: str,
    encoding: str,
    budget: ReadBudget,
    *,
    reported_encoding: str | None = None,
) -> Dataset:
    """The table in ``buffer`` (bytes in ``encoding``), read with the layout its sample
    ``text_head`` shows; ``reported_encoding`` is the file's own encoding when the
    buffer holds a re-encoded copy."""
    lines, delimiter, names, blank_first = _text_header(text_head, budget)
    skip_space = _skips_space(lines, delimiter)
    text_columns = _leading_zero_columns(text_head, delimiter, names)
    quoted = _scan_cells(buffer, delimiter, encoding, budget)
    frame = _parse_rows(
        buffer,
        budget,
        names,
        delimiter=delimiter,
        encoding=encoding,
        skip_space=skip_space,
        text_columns=text_columns,
        header_line=lambda: text_head.lstrip("\ufeff").splitlines().index(lines[0]) + 1,
    )
    if quoted:  # a quoted cell may hold delimiters and line breaks: measured here
        _check_cell_text(frame, budget)
    short = _first_short_row(buffer, frame, delimiter, encoding, len(names))
    if short is not None:
        raise _ragged(short[0], len(names), short[1])
    unguarded = unguard_formulas(frame)
    frame = _finish_frame(frame, normalize_text=False)
    used = reported_encoding or encoding
    notes = _text_notes(used, delimiter, text_columns, unguarded, skip_space)
    fmt = "tsv" if delimiter == "\t" else "csv"
    return Dataset(frame, name, fmt, used, delimiter, notes, _unnamed_first(frame, blank_first))


def _text_header(text_head: str, budget: ReadBudget) -> tuple[list[str], str, list[str], bool]:
    """(the sample's lines from the header on, the delimiter, the checked column names,
    whether the first header cell alone was empty) of a text file's sample."""
    # csv's default field limit (131,072 characters) is below a long first line of the
    # sample: raised only, never lowered (threads)
    csv.field_size_limit(max(csv.field_size_limit(), len(text_head) + 1))
    lines = _sample_lines(text_head)
    delimiter = sniff_delimiter(lines)
    header = _header_record(lines, delimiter)
    if len(header) > budget.max_columns:  # before the names: no made-up duplicates
        raise budget.too_many_columns(len(header))
    # names written with the formula guard read as they were (then checked: unguarding
    # cannot make a duplicate pass unseen)
    names = _check_header([unguard_text(h) for h in header], first_may_be_blank=True)
    return lines, delimiter, names, _blank_first(header)


def _parse_rows(
    buffer: Any,
    budget: ReadBudget,
    names: list[str],
    *,
    delimiter: str,
    encoding: str,
    skip_space: bool,
    text_columns: list[str],
    header_line: Callable[[], int],
) -> pd.DataFrame:
    """The rows of a text file under ``names`` (``text_columns`` kept as text); pandas'
    errors as the loader's. ``header_line()`` gives the header's line number."""
    try:
        frame = _read_csv_chunks(
            buffer,
            budget,
            sep=delimiter,
            encoding=encoding,
            skipinitialspace=skip_space,
            skip_blank_lines=True,
            # by position: pandas names an unnamed column itself ("Unnamed: 0")
            dtype={names.index(name): "str" for name in text_columns} or None,
            **READ_CSV_MISSING,
        )
    except pd.errors.ParserError as exc:
        raise _ragged_error(str(exc), len(names)) from exc
    except pd.errors.EmptyDataError as exc:
        raise _empty_file() from exc
    if frame is None:
        # pandas silently turns the first column into an index when the first data row
        # has one field more than the header: that is a ragged row, not an index.
        raise _ragged(header_line() + 1, len(names), len(names) + 1)
    if frame.shape[1] != len(names):
        raise DataFormatError(
            f"The header has {len(names)} columns but the rows have {frame.shape[1]}.",
            code="data.ragged",
            line=2,
            expected=len(names),
            found=int(frame.shape[1]),
        )
    frame.columns = names
    if frame.empty:
        raise _no_rows()
    return frame


def _text_notes(
    encoding: str, delimiter: str, text_columns: list[str], unguarded: int, skip_space: bool
) -> tuple[Note, ...]:
    """What reading a text file assumed or changed: its encoding and delimiter, the
    columns kept as text, the cells whose formula guard was removed, the spaces after
    delimiters removed."""
    delim_name = _DELIMITER_NAMES[delimiter]
    notes = [
        Note(
            f"data.read_as.{delim_name}",
            f"Read as {encoding} text, {delim_name}-separated.",
            encoding=encoding,
        )
    ]
    if text_columns:
        notes.append(
            Note(
                "data.leading_zeros",
                "Kept as text to keep leading zeros: " + ", ".join(text_columns) + ".",
                columns=", ".join(text_columns),
            )
        )
    if unguarded:
        notes.append(
            Note(
                "data.unguarded",
                "The formula guard (a ' before =, +, -, @, tab or CR) was removed from "
                f"{unguarded:,} {'cell' if unguarded == 1 else 'cells'}.",
                count=unguarded,
            )
        )
    if skip_space:
        notes.append(Note("data.spaces_removed", "Spaces after delimiters were removed."))
    return tuple(notes)


def _read_csv_chunks(buffer: Any, budget: ReadBudget, **options: Any) -> pd.DataFrame | None:
    """``pandas.read_csv`` in chunks of :data:`_CSV_CHUNK_ROWS` rows, stopping one row
    beyond the row limit (``data.too_many_rows``) and checking the clock between chunks.

    None when pandas took the first column as the index (the first data row has one
    field more than the header).
    """
    chunks: list[pd.DataFrame] = []
    rows = 0
    with pd.read_csv(
        buffer, chunksize=_CSV_CHUNK_ROWS, nrows=budget.max_rows + 1, **options
    ) as reader:
        for chunk in reader:
            if not chunks and not chunk.index.equals(pd.RangeIndex(len(chunk))):
                return None
            chunks.append(chunk)
            rows += len(chunk)
            if rows > budget.max_rows:
                raise budget.too_many_rows()
            budget.check_time()
    return _concat_chunks(chunks)


_RAGGED_RE = re.compile(r"Expected (\d+) fields in line (\d+), saw (\d+)")


def _ragged_error(message: str, width: int) -> DataFormatError:
    match = _RAGGED_RE.search(message)
    if match:
        expected, line, found = (int(g) for g in match.groups())
        return _ragged(line, expected, found)
    return DataFormatError(
        f"The file could not be read as a table: {message.strip()}",
        code="data.unreadable",
        detail=message.strip(),
    )


def _first_short_row(
    buffer: Any, frame: pd.DataFrame, delimiter: str, encoding: str, width: int
) -> tuple[int, int] | None:
    """Line number and field count of the first row with fewer fields than the header.

    pandas pads short rows with missing values silently, so a row is a suspect only
    when its last cell is missing; only then are the suspects' lines re-read.
    """
    if width < 2 or not frame.iloc[:, -1].isna().any():
        return None
    if isinstance(buffer, Path):
        raw = buffer.read_bytes()
    else:
        buffer.seek(0)
        raw = buffer.read()
    text = raw.decode(encoding, errors="replace")
    if '"' not in text:
        # Unquoted: count delimiters per line with numpy, no Python loop over rows.
        arr = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
        ends = np.flatnonzero(arr == 10)
        if len(arr) and arr[-1] != 10:
            ends = np.append(ends, len(arr))
        delim_pos = np.flatnonzero(arr == ord(delimiter))
        per_line = np.diff(np.searchsorted(delim_pos, ends), prepend=0)
        starts = np.concatenate(([0], ends[:-1] + 1))
        nonblank = (ends - starts) > np.where(arr[np.maximum(ends - 1, 0)] == 13, 1, 0)
        fields = per_line + 1
        bad = np.flatnonzero(nonblank & (fields < width))
        bad = bad[bad > _header_line_index(arr, ends)]
        if len(bad):
            return int(bad[0]) + 1, int(fields[bad[0]])
        return None
    # csv's default field limit (131,072 characters) is below what pandas accepts: a long
    # free-text cell would raise _csv.Error here. Raised only, never lowered (threads).
    csv.field_size_limit(max(csv.field_size_limit(), len(text) + 1))
    rows = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    for line_no, row in enumerate(rows, start=1):
        if line_no > 1 and row and len(row) < width:
            return line_no, len(row)
    return None


def _header_line_index(arr: np.ndarray, ends: np.ndarray) -> int:
    """Index of the first non-blank line (the header)."""
    starts = np.concatenate(([0], ends[:-1] + 1))
    nonblank = np.flatnonzero((ends - starts) > 1)
    return int(nonblank[0]) if len(nonblank) else 0
