"""ARX's hierarchy files: no header, one line per original value,
``value;level1;...;*``. :func:`arx_rows` reads one (from a path, bytes or a file
object) into rows with their line numbers; :func:`arx_text` writes a table of labels in
that form, with the formula guard (:mod:`privcore.data.writing`)."""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from privcore.data.hierarchy.keys import _single_character
from privcore.data.writing import csv_text, unguard_formulas
from privcore.errors import HierarchyError


def arx_text(table: np.ndarray, sep: str, *, formula_guard: bool) -> str:
    """The rows of ``table`` as ARX text: ``sep``-separated, ``"\\n"`` line ends, cells
    holding ``sep``, quotes or line breaks CSV-quoted."""
    rows = pd.DataFrame(table.tolist(), dtype=object)
    return csv_text(rows, sep=sep, header=False, formula_guard=formula_guard)[0]


def arx_rows(
    source: Any, *, name: str | None, sep: str
) -> tuple[list[list[str]], list[int], str | None]:
    """(rows, the file's line number of each, the hierarchy's name) of an ARX file (see
    :meth:`~privcore.data.hierarchy.Hierarchy.read_arx`): empty lines skipped, every line
    of the same length, the formula guard removed."""
    _single_character(sep, "separator", "hierarchy.bad_separator")
    text, file_name = _read_source(source)
    if name is None and file_name:
        stem = Path(file_name).stem
        name = stem.rsplit("hierarchy_", 1)[-1] if "hierarchy_" in stem else stem
    rows, lines = _csv_rows(text, sep)
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
    table = pd.DataFrame(rows, dtype=object)
    if unguard_formulas(table):  # a file written with the formula guard
        rows = table.to_numpy(dtype=object).tolist()
    return rows, lines, name


def _csv_rows(text: str, sep: str) -> tuple[list[list[str]], list[int]]:
    """The non-empty lines of ``text`` split at ``sep`` and their line numbers."""
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
    return rows, lines


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
        with HierarchyError.on_os_error(
            "The hierarchy file '{path}' could not be read: {reason}.",
            code="hierarchy.unreadable",
            path=str(path),
        ):
            data = path.read_bytes()
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
