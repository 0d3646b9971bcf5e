"""Excel workbooks (the first sheet), Parquet files (refused from their footer when
above the limits) and JSON lines (read in chunks), each checked and finished as a text
file is: the column names, the cells' length, the missing markers and the types."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from privcore.data.budget import ReadBudget
from privcore.data.loading.cleaning import _concat_chunks, _finish_frame
from privcore.data.loading.dataset import UnnamedColumn, _empty_file, _no_rows
from privcore.data.loading.detect import detect_encoding
from privcore.data.loading.header import _blank_first, _check_header, _unnamed_first
from privcore.data.loading.limits import _check_cell_text
from privcore.data.loading.sources import _read_all
from privcore.errors import DataFormatError

_JSON_CHUNK_ROWS = 100_000


def _read_excel(buffer: Any, budget: ReadBudget) -> tuple[pd.DataFrame, UnnamedColumn | None]:
    """The first sheet — its first non-blank row holds the column names
    (:func:`privcore.data.excel.read_first_sheet` checks the workbook first) — and the
    facts of its first column when that has no name."""
    from privcore.data.excel import read_first_sheet  # openpyxl only for workbooks

    raw = read_first_sheet(buffer, budget)
    raw = raw.dropna(how="all").dropna(axis=1, how="all")
    if raw.empty:
        raise _empty_file()
    header = [_excel_header_text(v) for v in raw.iloc[0].tolist()]
    names = _check_header(header, first_may_be_blank=True)
    frame = raw.iloc[1:].reset_index(drop=True)
    frame.columns = names
    if frame.empty:
        raise _no_rows()
    _check_cell_text(frame, budget)
    frame = _finish_frame(frame, normalize_text=True)
    return frame, _unnamed_first(frame, _blank_first(header))


def _excel_header_text(value: Any) -> str:
    """A header cell as text; a whole number stored as a float (2020.0) as "2020"."""
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _read_parquet(buffer: Any, budget: ReadBudget) -> pd.DataFrame:
    """A Parquet file, refused from its footer alone (row count, columns) when above
    the limits, before any data is read."""
    import pyarrow.parquet as pq

    try:
        with pq.ParquetFile(buffer) as parquet:
            rows = parquet.metadata.num_rows
            columns = [c for c in parquet.schema_arrow.names if not c.startswith("__index_level_")]
    except Exception as exc:  # pyarrow raises ArrowInvalid, OSError, ...
        raise _bad_parquet(exc) from exc
    if rows > budget.max_rows:
        raise budget.too_many_rows()
    if len(columns) > budget.max_columns:
        raise budget.too_many_columns(len(columns))
    if hasattr(buffer, "seek"):
        buffer.seek(0)
    try:
        frame = pd.read_parquet(buffer)
    except Exception as exc:  # pyarrow raises ArrowInvalid, OSError, ...
        raise _bad_parquet(exc) from exc
    budget.check_time()
    _named_columns(frame)
    if frame.empty:
        raise _no_rows()
    _check_cell_text(frame, budget)
    return _finish_frame(frame.reset_index(drop=True), normalize_text=True)


def _bad_parquet(exc: BaseException) -> DataFormatError:
    return DataFormatError(
        "The Parquet file could not be read (damaged or not Parquet).",
        code="data.bad_parquet",
        detail=str(exc)[:200],
    )


def _read_jsonl(source: Any, path: Path | None, head: bytes, budget: ReadBudget) -> pd.DataFrame:
    """JSON lines, read in chunks of :data:`_JSON_CHUNK_ROWS` records up to one beyond
    the row limit, the clock checked between chunks."""
    raw = _read_all(source, path)
    encoding = detect_encoding(head)
    text = raw.decode(encoding, errors="replace").lstrip("\ufeff")
    chunks: list[pd.DataFrame] = []
    rows = 0
    try:
        with pd.read_json(
            io.StringIO(text),
            lines=True,
            dtype=False,
            chunksize=_JSON_CHUNK_ROWS,
            nrows=budget.max_rows + 1,
        ) as reader:
            for chunk in reader:
                chunks.append(chunk)
                rows += len(chunk)
                if rows > budget.max_rows:
                    raise budget.too_many_rows()
                budget.check_time()
    except ValueError as exc:
        raise _bad_jsonl(text) from exc
    frame = _concat_chunks(chunks) if chunks else None
    if frame is None or frame.empty:
        raise DataFormatError("The file has no records.", code="data.no_rows")
    _named_columns(frame)
    _check_cell_text(frame, budget)
    return _finish_frame(frame, normalize_text=True)


def _bad_jsonl(text: str) -> DataFormatError:
    """The error of a JSON lines file pandas could not read: the first line that is not
    one JSON object, or one nested too deeply to be a record (``data.jsonl_too_deep``)."""
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except RecursionError:
            return DataFormatError(
                f"Line {number} of the JSON lines file is nested too deeply to be a record: "
                "each line must be one JSON object of column values.",
                code="data.jsonl_too_deep",
                line=number,
            )
        except ValueError:
            return _not_one_object(number)
        if not isinstance(value, dict):
            return _not_one_object(number)
    return _not_one_object(None)


def _not_one_object(line: int | None) -> DataFormatError:
    where = f" (line {line})" if line else ""
    return DataFormatError(
        f"The JSON lines file could not be read{where}: each line must be one JSON object.",
        code="data.bad_jsonl",
        line=line,
    )


def _named_columns(frame: pd.DataFrame) -> None:
    """Check the column names of a Parquet or JSON lines table and strip them."""
    _check_header([str(c) for c in frame.columns])
    frame.columns = [str(c).strip() for c in frame.columns]
