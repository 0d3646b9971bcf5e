"""The limits a read is held to.

The shape of a table (``PRIVCORE_MAX_ROWS``, ``PRIVCORE_MAX_COLUMNS``) and the length
of its cells (``PRIVCORE_MAX_CELL_CHARS``): a text file's longest field is measured on
its bytes before it is parsed (:func:`_scan_cells`), other formats' text cells after
reading (:func:`_check_cell_text`). The readers also check the clock of the
:class:`~privcore.data.budget.ReadBudget` between chunks of rows.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from privcore.data.budget import ReadBudget
from privcore.data.loading.dataset import _no_rows
from privcore.data.loading.sources import _first_line_end, _opened


def _check_shape(frame: pd.DataFrame, budget: ReadBudget) -> None:
    if frame.shape[1] > budget.max_columns:
        raise budget.too_many_columns(frame.shape[1])
    if frame.shape[0] > budget.max_rows:
        raise budget.too_many_rows()
    if frame.shape[0] == 0:
        raise _no_rows()


#: Bytes of a text file measured at once by :func:`_scan_cells`.
_SCAN_BYTES = 1 << 23


def _scan_cells(buffer: Any, delimiter: str, encoding: str, budget: ReadBudget) -> bool:
    """Refuse a text file with a cell longer than ``PRIVCORE_MAX_CELL_CHARS``
    (``data.cell_too_long``, with its line) from its bytes, before it is parsed: one
    45 MB cell would cost a minute of parsing and profiling.

    Vectorized over chunks of :data:`_SCAN_BYTES`: a run of bytes without a delimiter or
    a line break lies inside one field; the runs longer than the limit in bytes are
    decoded and their characters counted (a character takes 1 to 4 bytes). A chunk in
    which every block of half the limit holds a delimiter or line break has no such run
    inside it (only one crossing its ends), so most chunks cost three comparisons. A
    quoted field may hold delimiters and line breaks: True when the file has a quote
    character — the parsed cells are then measured (:func:`_check_cell_text`). The
    column names (the first line) have their own limit.
    """
    limit = budget.max_cell_chars
    block = max(1, limit // 2)  # a run longer than the limit covers a whole block
    seps = (delimiter.encode(), b"\n", b"\r")
    spans: list[tuple[int, int]] = []  # runs without a delimiter or line break, > limit
    last, offset, quoted = -1, 0, False
    header_end: int | None = None
    with _opened(buffer) as handle:
        handle.seek(0)
        while chunk := handle.read(_SCAN_BYTES):
            if header_end is None:
                header_end = _first_line_end(chunk) or len(chunk)
            quoted = quoted or b'"' in chunk
            if _every_block_broken(chunk, block, seps):
                # no long run inside the chunk: only the one from the last break before it
                # to its first break; the one after its last break goes on in the next
                found = [at for at in (chunk.find(sep) for sep in seps) if at >= 0]
                breaks = np.array([min(found), max(chunk.rfind(sep) for sep in seps)])
                bounds = np.array([last - offset, breaks[0]])
            else:
                arr = np.frombuffer(chunk, dtype=np.uint8)
                is_break = arr == seps[0][0]
                is_break |= arr == 10
                is_break |= arr == 13
                breaks = np.flatnonzero(is_break)
                bounds = np.concatenate(([last - offset], breaks))
            for at in np.flatnonzero(np.diff(bounds) - 1 > limit):
                spans.append((offset + int(bounds[at]) + 1, offset + int(bounds[at + 1])))
            if breaks.size:
                last = offset + int(breaks[-1])
            offset += len(chunk)
            budget.check_time()
        if offset - last - 1 > limit:
            spans.append((last + 1, offset))
        for start, end in spans:
            if start < (header_end or 0):
                continue
            handle.seek(start)
            chars = _field_chars(handle.read(end - start), encoding)
            if chars > limit:
                handle.seek(0)
                line = 1 + sum(handle.read(min(_SCAN_BYTES, start - at)).count(b"\n")
                               for at in range(0, start, _SCAN_BYTES))  # fmt: skip
                handle.seek(0)
                raise budget.cell_too_long(chars, line=line)
        handle.seek(0)
    return quoted


def _every_block_broken(chunk: bytes, block: int, seps: tuple[bytes, ...]) -> bool:
    """Whether every whole block of ``block`` bytes of ``chunk`` (from its start) holds one
    of ``seps``: found with ``bytes.find``, which stops at the first; blocks of a few bytes
    (a tiny limit) with numpy. False when the chunk has no whole block and no separator."""
    if block < 4096:
        arr = np.frombuffer(chunk, dtype=np.uint8)
        is_break = np.zeros(len(arr), dtype=bool)
        for sep in seps:
            is_break |= arr == sep[0]
        whole = len(arr) // block * block
        return bool(is_break.any() and is_break[:whole].reshape(-1, block).any(axis=1).all())
    if not any(sep in chunk for sep in seps):
        return False
    for start in range(0, len(chunk) - block + 1, block):
        if all(chunk.find(sep, start, start + block) < 0 for sep in seps):
            return False
    return True


def _field_chars(data: bytes, encoding: str) -> int:
    """Characters of the field ``data`` (its quotes, if quoted, not counted)."""
    if encoding.startswith("utf-8"):
        arr = np.frombuffer(data, dtype=np.uint8)
        chars = int(np.count_nonzero((arr & 0xC0) != 0x80))  # not continuation bytes
    else:
        chars = len(data.decode(encoding, errors="replace"))
    if len(data) > 1 and data[:1] == b'"' and data[-1:] == b'"':
        chars -= 2 + (data.count(b'"') - 2) // 2
    return chars


def _check_cell_text(frame: pd.DataFrame, budget: ReadBudget) -> None:
    """Refuse a table with a text cell longer than ``PRIVCORE_MAX_CELL_CHARS``
    (``data.cell_too_long``, with its column), measured after reading."""
    for column in frame.columns:
        series = frame[column]
        if series.dtype != object and not pd.api.types.is_string_dtype(series.dtype):
            continue
        try:
            longest = series.str.len().max()
        except AttributeError:  # no text in the column
            continue
        if pd.notna(longest) and longest > budget.max_cell_chars:
            raise budget.cell_too_long(int(longest), column=str(column))
