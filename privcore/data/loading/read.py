"""The entry point, :func:`load`: a table from a path, bytes, a binary file object or a
DataFrame, in any format the loader reads, unpacked first when it is a gzip file or a
zip archive holding one file."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import IO, Any

import pandas as pd

from privcore.config import limits
from privcore.core.notes import Note
from privcore.data import archives
from privcore.data.budget import ReadBudget
from privcore.data.loading.cleaning import _finish_frame
from privcore.data.loading.dataset import Dataset
from privcore.data.loading.detect import _detect_format
from privcore.data.loading.formats import _read_excel, _read_jsonl, _read_parquet
from privcore.data.loading.limits import _check_shape
from privcore.data.loading.parts import TableParts, table_parts
from privcore.data.loading.sources import (
    _as_buffer,
    _existing,
    _first_bytes,
    _opened,
    _size_of,
    _source_name,
    _suffix,
)
from privcore.data.loading.text import _read_text
from privcore.errors import DataFormatError


def load(
    source: str | Path | bytes | IO[bytes] | pd.DataFrame,
    *,
    filename: str | None = None,
    max_rows: int | None = None,
) -> Dataset:
    """Read ``source`` (a path, bytes, a binary file object or a DataFrame) as a Dataset.

    ``filename`` gives the format by its extension when ``source`` has no name (an
    upload). ``max_rows`` defaults to the installation limit (``PRIVCORE_MAX_ROWS``).
    A gzip file or a zip archive with one file is read as the file it holds (its
    decompressed size counts against ``PRIVCORE_MAX_FILE_MB``); the read stops with an
    error once it passes the row limit or takes longer than ``PRIVCORE_MAX_PARSE_SECONDS``.
    """
    lim = limits()
    budget = ReadBudget.from_limits(lim, max_rows=max_rows)
    name = filename or _source_name(source)

    if isinstance(source, pd.DataFrame):
        frame = _finish_frame(source.copy(), normalize_text=True)
        _check_shape(frame, budget)
        return Dataset(frame, name or "table", "dataframe")

    if isinstance(source, (str, Path)) and not Path(source).is_file():
        parts = table_parts(source)  # a folder or a glob of parts (or a clear error)
        return _load_parts(parts, name or Path(source).name, budget)
    path = _existing(Path(source)) if isinstance(source, (str, Path)) else None
    size = path.stat().st_size if path is not None else _size_of(source)
    if size > lim.max_file_mb * 1024 * 1024:
        raise DataFormatError(
            f"The file is {size / 1e6:.1f} MB; this installation accepts at most "
            f"{lim.max_file_mb} MB (PRIVCORE_MAX_FILE_MB).",
            code="data.too_large",
            size_mb=round(size / 1e6, 1),
            limit_mb=lim.max_file_mb,
        )
    head = _first_bytes(source, path)
    dataset = _read_content(source, path, head, name, budget)
    _check_shape(dataset.frame, budget)
    return dataset


def _load_parts(parts: TableParts, name: str, budget: ReadBudget) -> Dataset:
    """A table of many files (:mod:`privcore.data.loading.parts`): each part read as a
    file is, stacked in path order, the Hive partition columns after the parts' own
    columns. A partition column whose values all read as numbers is numeric, as Spark and
    DuckDB infer it. The installation's limits hold for each part and for the whole."""
    frames = []
    for file in parts.files:
        frame = load(file, max_rows=budget.max_rows).frame
        for column, value in parts.partition_values(file).items():
            frame[column] = value
        frames.append(frame)
    frame = frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)
    if parts.partitions:
        values = frame[list(parts.partitions)].astype(object)
        for column in parts.partitions:
            numbers = pd.to_numeric(values[column], errors="coerce")
            if numbers.notna().sum() == values[column].notna().sum():
                values[column] = numbers
        frame[list(parts.partitions)] = _finish_frame(values, normalize_text=True)
    _check_shape(frame, budget)
    return Dataset(frame, name, "parquet")


def _read_content(
    source: Any,
    path: Path | None,
    head: bytes,
    name: str | None,
    budget: ReadBudget,
    *,
    unpacked: bool = False,
) -> Dataset:
    """The table in a file whose first bytes are ``head``: unpacked first when it is a
    gzip file or a zip archive that is not a workbook (one level: an archive inside an
    archive is refused)."""
    fmt = None
    if archives.is_compressed(head):
        content = _unpack(source, path, head, name, budget, unpacked=unpacked)
        if content is None:
            fmt = "xlsx"
        else:
            inner, data, kind = content
            inner_head = _first_bytes(data, None)
            dataset = _read_content(data, None, inner_head, inner, budget, unpacked=True)
            note = Note(
                "data.decompressed" if inner else "data.decompressed_single",
                f"Decompressed from a {kind} file" + (f" ({inner})." if inner else "."),
                kind=kind,
                inner=inner or "",
            )
            return replace(dataset, name=name or dataset.name, notes=(note, *dataset.notes))
    fmt = fmt or _detect_format(name, head)
    if fmt == "xlsx":
        frame, unnamed = _read_excel(_as_buffer(source, path), budget)
        return Dataset(frame, name or "table.xlsx", "xlsx", unnamed_first=unnamed)
    if fmt == "parquet":
        frame = _read_parquet(_as_buffer(source, path), budget)
        return Dataset(frame, name or "table.parquet", "parquet")
    if fmt == "jsonl":
        frame = _read_jsonl(source, path, head, budget)
        return Dataset(frame, name or "table.jsonl", "jsonl", encoding="utf-8")
    return _read_text(source, path, head, name or "table.csv", budget)


def _unpack(
    source: Any,
    path: Path | None,
    head: bytes,
    name: str | None,
    budget: ReadBudget,
    *,
    unpacked: bool,
) -> tuple[str | None, bytes, str] | None:
    """(name, content, "gzip" or "zip") of the file a compressed file holds; None for a
    workbook (a zip archive that is itself the table)."""
    with _opened(_as_buffer(source, path)) as handle:
        if head.startswith(archives.GZIP_MAGIC):
            if unpacked:
                raise _nested_archive(name)
            return archives.inner_name(name), archives.gunzip(handle, budget), "gzip"
        try:
            archive = archives.open_zip(handle)
        except DataFormatError:
            if _suffix(name) in ("xlsx", "xlsm"):
                return None  # the Excel reader says the workbook is damaged
            raise
        with archive:
            if archives.is_workbook(archive):
                return None
            if unpacked:
                raise _nested_archive(name)
            member, data = archives.single_member(archive, budget)
    return archives.inner_name(name, member), data, "zip"


def _nested_archive(name: str | None) -> DataFormatError:
    shown = name or "a compressed file"
    return DataFormatError(
        f"The archive holds another compressed file ({shown}); compress the table itself, once.",
        code="data.nested_archive",
        member=shown,
    )
