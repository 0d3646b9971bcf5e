"""Load a table from CSV/TSV/semicolon text, Excel, Parquet or JSON lines.

Text files: the encoding is detected (UTF-8, UTF-8 with BOM, UTF-16 with BOM,
GB18030/GBK, Windows-1252/Latin-1) and the delimiter sniffed (``,`` ``;`` tab ``|``).
Missing markers (:data:`MISSING_MARKERS`) become real missing values (``NA``), which
every metric of privcore treats as one value of its own.

Every problem a user can cause raises :class:`~privcore.errors.DataFormatError` with a
message naming it (empty file, binary file, no header, blank or duplicate column
names, a ragged row with its line number, too many rows or columns).
"""

from __future__ import annotations

import csv
import hashlib
import io
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import IO, Any

import numpy as np
import pandas as pd

from privcore.config import limits
from privcore.errors import DataFormatError

#: Cell texts read as missing. Matching is exact (case-sensitive) after the cell is read.
MISSING_MARKERS: tuple[str, ...] = ("", "?", "NA", "NaN", "nan", "null", "NULL")

TEXT_FORMATS = ("csv", "tsv", "txt")
FORMATS = (*TEXT_FORMATS, "xlsx", "parquet", "jsonl")

_SAMPLE_BYTES = 1 << 16  # enough to sniff; a later decoding error re-reads the whole file
_DELIMITERS = (",", ";", "\t", "|")
_MAGIC = {
    b"%PDF": "a PDF document",
    b"\x89PNG": "a PNG image",
    b"GIF8": "a GIF image",
    b"\xff\xd8\xff": "a JPEG image",
    b"\x7fELF": "a program (ELF binary)",
    b"\x1f\x8b": "a gzip archive",
    b"Rar!": "a RAR archive",
    b"7z\xbc\xaf": "a 7-Zip archive",
    b"\xd0\xcf\x11\xe0": "an old Office file (.xls/.doc); save it as .xlsx or CSV",
}


@dataclass(frozen=True)
class Fingerprint:
    """Identity of a table without its content: SHA-256 of its canonical bytes."""

    sha256: str
    rows: int
    columns: int

    def to_dict(self) -> dict[str, Any]:
        return {"sha256": self.sha256, "rows": self.rows, "columns": self.columns}


def fingerprint(frame: pd.DataFrame) -> Fingerprint:
    """Fingerprint a table: SHA-256 over column names, dtypes and per-row hashes.

    The row hashes come from :func:`pandas.util.hash_pandas_object` (vectorized), so
    the same table gives the same fingerprint whatever file format it came from.
    """
    digest = hashlib.sha256()
    for name, dtype in frame.dtypes.items():
        kind = "num" if pd.api.types.is_numeric_dtype(dtype) else "text"
        digest.update(f"{name}\x1f{kind}\x1e".encode())
    if len(frame):
        row_hashes = pd.util.hash_pandas_object(frame, index=False).to_numpy()
        digest.update(row_hashes.tobytes())
    return Fingerprint(digest.hexdigest(), int(frame.shape[0]), int(frame.shape[1]))


@dataclass(frozen=True)
class Dataset:
    """A loaded table plus how it was read.

    ``frame`` holds numeric columns as numbers and every other column as text, with
    missing cells as ``NA``. ``notes`` lists what the loader changed or assumed.
    """

    frame: pd.DataFrame
    name: str
    source_format: str
    encoding: str | None = None
    delimiter: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    @cached_property
    def fingerprint(self) -> Fingerprint:
        return fingerprint(self.frame)

    @property
    def n_rows(self) -> int:
        return int(self.frame.shape[0])

    @property
    def n_columns(self) -> int:
        return int(self.frame.shape[1])

    def summary(self) -> dict[str, Any]:
        """The fingerprint and reading facts, for history rows (never the data)."""
        return {
            "name": self.name,
            **self.fingerprint.to_dict(),
            "format": self.source_format,
            "encoding": self.encoding,
        }


# ---------------------------------------------------------------------------------
# entry point


def load(
    source: str | Path | bytes | IO[bytes] | pd.DataFrame,
    *,
    filename: str | None = None,
    max_rows: int | None = None,
) -> Dataset:
    """Read ``source`` (a path, bytes, a binary file object or a DataFrame) as a Dataset.

    ``filename`` gives the format by its extension when ``source`` has no name (an
    upload). ``max_rows`` defaults to the installation limit (``PRIVCORE_MAX_ROWS``).
    """
    lim = limits()
    max_rows = max_rows or lim.max_rows
    name = filename or _source_name(source)

    if isinstance(source, pd.DataFrame):
        frame = _finish_frame(source.copy(), normalize_text=True)
        _check_shape(frame, max_rows, lim.max_columns)
        return Dataset(frame, name or "table", "dataframe")

    path = Path(source) if isinstance(source, (str, Path)) else None
    if path is not None and not path.is_file():
        raise DataFormatError(f"No file at {path}.", code="data.not_found", path=str(path))
    size = path.stat().st_size if path is not None else _size_of(source)
    if size > lim.max_file_mb * 1024 * 1024:
        raise DataFormatError(
            f"The file is {size / 1e6:.1f} MB; this installation accepts at most "
            f"{lim.max_file_mb} MB (PRIVCORE_MAX_FILE_MB).",
            code="data.too_large",
            size_mb=round(size / 1e6, 1),
            limit_mb=lim.max_file_mb,
        )
    head = _read_head(source, path)
    if not head.strip():
        raise DataFormatError("The file is empty.", code="data.empty_file")

    fmt = _detect_format(name, head)
    if fmt == "xlsx":
        frame = _read_excel(_as_buffer(source, path))
        dataset = Dataset(frame, name or "table.xlsx", "xlsx")
    elif fmt == "parquet":
        frame = _read_parquet(_as_buffer(source, path))
        dataset = Dataset(frame, name or "table.parquet", "parquet")
    elif fmt == "jsonl":
        frame = _read_jsonl(source, path, head)
        dataset = Dataset(frame, name or "table.jsonl", "jsonl", encoding="utf-8")
    else:
        dataset = _read_text(source, path, head, name or "table.csv", max_rows)
    _check_shape(dataset.frame, max_rows, lim.max_columns)
    return dataset


# ---------------------------------------------------------------------------------
# source helpers


def _source_name(source: Any) -> str | None:
    if isinstance(source, (str, Path)):
        return Path(source).name
    return getattr(source, "name", None)


def _size_of(source: Any) -> int:
    if isinstance(source, (bytes, bytearray, memoryview)):
        return len(source)
    size = getattr(source, "size", None)
    if isinstance(size, int):
        return size
    try:
        pos = source.tell()
        source.seek(0, io.SEEK_END)
        end = source.tell()
        source.seek(pos)
        return end - pos
    except (AttributeError, OSError):
        return 0


def _read_head(source: Any, path: Path | None) -> bytes:
    if path is not None:
        with path.open("rb") as handle:
            return handle.read(_SAMPLE_BYTES)
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source[:_SAMPLE_BYTES])
    pos = source.tell()
    head = source.read(_SAMPLE_BYTES)
    source.seek(pos)
    if isinstance(head, str):
        raise DataFormatError(
            "Pass the file in binary mode (open(path, 'rb')).", code="data.text_mode"
        )
    return head


def _as_buffer(source: Any, path: Path | None) -> Any:
    if path is not None:
        return path
    if isinstance(source, (bytes, bytearray, memoryview)):
        return io.BytesIO(bytes(source))
    source.seek(0)
    return source


def _read_all(source: Any, path: Path | None) -> bytes:
    if path is not None:
        return path.read_bytes()
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source)
    source.seek(0)
    return source.read()


def _detect_format(name: str | None, head: bytes) -> str:
    """Format from the content's magic bytes first, then from the file extension."""
    if head.startswith(b"PK\x03\x04"):
        return "xlsx"
    if head.startswith(b"PAR1"):
        return "parquet"
    for magic, what in _MAGIC.items():
        if head.startswith(magic):
            raise DataFormatError(
                f"This file is {what}, not a table. Upload CSV, Excel (.xlsx), Parquet "
                "or JSON lines.",
                code="data.binary",
                kind=what,
            )
    suffix = Path(name).suffix.lower().lstrip(".") if name else ""
    if suffix in ("jsonl", "ndjson", "json"):
        return "jsonl"
    if suffix in ("xlsx", "xlsm", "parquet", "pq"):
        # The content did not start like one: say so instead of a parser error.
        raise DataFormatError(
            f"The file is named .{suffix} but its content is not in that format.",
            code="data.wrong_extension",
            suffix=suffix,
        )
    stripped = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if stripped.startswith(b"{") and suffix not in TEXT_FORMATS:
        return "jsonl"
    return "csv"


# ---------------------------------------------------------------------------------
# text (CSV / TSV / semicolon)


def detect_encoding(data: bytes) -> str:
    """Guess the text encoding of ``data`` (a sample or the whole file).

    Order: byte-order marks (UTF-8, UTF-16); strict UTF-8; GB18030 when nearly every
    non-ASCII character decoded is a common (GB2312) character — Latin-1 bytes also
    decode as GB18030, but to rare characters; Windows-1252 (which reads Latin-1 text
    too). Anything else raises :class:`DataFormatError` (``data.unknown_encoding``).
    """
    if data.startswith(b"\xef\xbb\xbf"):
        return "utf-8-sig"
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16"
    if b"\x00" in data[:8192]:
        utf16 = _utf16_without_bom(data[:8192])
        if utf16:
            raise DataFormatError(
                f"This looks like {utf16} text without a byte-order mark, which cannot be "
                "read reliably. Save it as UTF-8 and try again.",
                code="data.utf16_no_bom",
                encoding=utf16,
            )
        raise DataFormatError(
            "This looks like a binary file, not a text table (it contains NUL bytes).",
            code="data.binary",
            kind="binary",
        )
    trimmed = _trim_partial_char(data)
    try:
        trimmed.decode("utf-8")
        return "utf-8"
    except UnicodeDecodeError:
        pass
    try:
        text = trimmed.decode("gb18030")
    except UnicodeDecodeError:
        text = None
    if text is not None:
        counts = Counter(ch for ch in text if ord(ch) > 0x7F)
        common = sum(n for ch, n in counts.items() if _is_gb2312(ch))
        total = sum(counts.values())
        if total and common / total >= 0.9:
            return "gb18030"
    try:
        trimmed.decode("cp1252")
        return "cp1252"
    except UnicodeDecodeError:
        pass
    # Bytes that Windows-1252 leaves undefined are control characters in Latin-1, never
    # text: the file is in another encoding (Shift-JIS, MacRoman, ...). Reading it as
    # Latin-1 would give garbled names and values without a word.
    raise DataFormatError(
        "The text encoding of this file could not be recognized (it is not UTF-8, "
        "UTF-16 with a byte-order mark, GB18030/GBK or Windows-1252). Save it as UTF-8 "
        "and try again.",
        code="data.unknown_encoding",
    )


def _utf16_without_bom(sample: bytes) -> str | None:
    """The UTF-16 variant ("UTF-16-LE" or "UTF-16-BE") when the NUL bytes sit on one byte
    of the pairs only (the high byte of ASCII characters); None for any other data."""
    n = len(sample) // 2
    if n < 4:
        return None
    even, odd = sample[0 : 2 * n : 2].count(0) / n, sample[1 : 2 * n : 2].count(0) / n
    if odd >= 0.2 and even <= 0.01:
        return "UTF-16-LE"
    if even >= 0.2 and odd <= 0.01:
        return "UTF-16-BE"
    return None


def _is_gb2312(ch: str) -> bool:
    try:
        ch.encode("gb2312")
    except UnicodeEncodeError:
        return False
    return True


def _trim_partial_char(data: bytes) -> bytes:
    """Cut a sample at its last line end so no multi-byte character is split."""
    if len(data) < _SAMPLE_BYTES:
        return data
    cut = data.rfind(b"\n")
    return data[: cut + 1] if cut > 0 else data


def sniff_delimiter(lines: list[str]) -> str:
    """The delimiter that splits the first lines into the most consistent field counts.

    Candidates: comma, semicolon, tab, pipe. Each line is split with :mod:`csv` (so
    quoted delimiters do not count); the winner has the most lines whose field count
    equals the header's, then the most fields.
    """
    best, best_score = ",", (-1.0, 0)
    for delim in _DELIMITERS:
        rows = list(csv.reader(lines, delimiter=delim))
        if not rows:
            continue
        width = len(rows[0])
        if width < 2:
            continue
        agree = sum(1 for row in rows if len(row) == width) / len(rows)
        score = (agree, width)
        if score > best_score:
            best, best_score = delim, score
    return best


def _read_text(source: Any, path: Path | None, head: bytes, name: str, max_rows: int) -> Dataset:
    encoding = detect_encoding(head)
    text_head = _trim_partial_char(head).decode(encoding, errors="replace")
    if encoding == "utf-16":
        # pandas' C parser cannot stream UTF-16; decode once and parse UTF-8.
        raw = _read_all(source, path).decode("utf-16")
        return _parse_text(
            io.BytesIO(raw.encode("utf-8")),
            raw[:_SAMPLE_BYTES],
            name,
            "utf-8",
            max_rows,
            reported_encoding="utf-16",
        )
    try:
        return _parse_text(_as_buffer(source, path), text_head, name, encoding, max_rows)
    except UnicodeDecodeError:
        # The sample looked like one encoding, a later part of the file does not.
        raw = _read_all(source, path)
        encoding = detect_encoding(raw)
        return _parse_text(
            io.BytesIO(raw),
            raw[:_SAMPLE_BYTES].decode(encoding, "replace"),
            name,
            encoding,
            max_rows,
        )


def _parse_text(
    buffer: Any,
    text_head: str,
    name: str,
    encoding: str,
    max_rows: int,
    *,
    reported_encoding: str | None = None,
) -> Dataset:
    lines = [ln for ln in text_head.lstrip("\ufeff").splitlines()[:50]]
    while lines and not lines[0].strip():
        lines.pop(0)
    if not lines:
        raise DataFormatError("The file is empty.", code="data.empty_file")
    delimiter = sniff_delimiter(lines)
    header = next(csv.reader(lines[:1], delimiter=delimiter))
    names = _check_header(header)
    # Leading spaces after delimiters ("a, b") are skipped only when the sample has them:
    # the option costs a third of the parse time on large files.
    skip_space = bool(re.search(re.escape(delimiter) + r" \S", "\n".join(lines[1:])))
    notes: list[str] = []
    text_columns = _leading_zero_columns(
        text_head.lstrip("\ufeff").splitlines()[:2000], delimiter, names
    )
    if text_columns:
        notes.append("Kept as text to keep leading zeros: " + ", ".join(text_columns) + ".")
    try:
        frame = pd.read_csv(
            buffer,
            sep=delimiter,
            encoding=encoding,
            na_values=list(MISSING_MARKERS),
            keep_default_na=False,
            skipinitialspace=skip_space,
            skip_blank_lines=True,
            dtype={name: "str" for name in text_columns} or None,
        )
    except pd.errors.ParserError as exc:
        raise _ragged_error(str(exc), len(names)) from exc
    except pd.errors.EmptyDataError as exc:
        raise DataFormatError("The file is empty.", code="data.empty_file") from exc
    if not frame.index.equals(pd.RangeIndex(len(frame))):
        # pandas silently turns the first column into an index when the first data row
        # has one field more than the header: that is a ragged row, not an index.
        header_line = text_head.lstrip("\ufeff").splitlines().index(lines[0]) + 1
        raise DataFormatError(
            f"Line {header_line + 1} has {len(names) + 1} fields but the header has "
            f"{len(names)}. Check for a missing or extra delimiter on that line.",
            code="data.ragged",
            line=header_line + 1,
            expected=len(names),
            found=len(names) + 1,
        )
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
        raise DataFormatError("The file has column names but no data rows.", code="data.no_rows")
    if len(frame) > max_rows:
        raise _too_many_rows(max_rows)
    short = _first_short_row(buffer, frame, delimiter, encoding, len(names))
    if short is not None:
        line, found = short
        raise DataFormatError(
            f"Line {line} has {found} fields but the header has {len(names)}. "
            "Check for a missing or extra delimiter on that line.",
            code="data.ragged",
            line=line,
            expected=len(names),
            found=found,
        )
    if skip_space:
        notes.append("Spaces after delimiters were removed.")
    frame = _finish_frame(frame, normalize_text=False)
    delim_name = {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe"}[delimiter]
    notes.insert(0, f"Read as {reported_encoding or encoding} text, {delim_name}-separated.")
    fmt = "tsv" if delimiter == "\t" else "csv"
    return Dataset(frame, name, fmt, reported_encoding or encoding, delimiter, tuple(notes))


def _leading_zero_columns(lines: list[str], delimiter: str, names: list[str]) -> list[str]:
    """Columns whose sampled values include digit strings with a leading zero (ZIP,
    phone): read as text so "02139" does not become 2139."""
    rows = list(csv.reader(lines[1:], delimiter=delimiter))
    found = []
    for index, name in enumerate(names):
        cells = [row[index].strip() for row in rows if len(row) > index]
        if any(len(c) > 1 and c[0] == "0" and c.isdigit() for c in cells):
            found.append(name)
    return found


def _check_header(header: list[str]) -> list[str]:
    names = [h.strip().lstrip("\ufeff").strip() for h in header]
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


_RAGGED_RE = re.compile(r"Expected (\d+) fields in line (\d+), saw (\d+)")


def _ragged_error(message: str, width: int) -> DataFormatError:
    match = _RAGGED_RE.search(message)
    if match:
        expected, line, found = (int(g) for g in match.groups())
        return DataFormatError(
            f"Line {line} has {found} fields but the header has {expected}. "
            "Check for a missing or extra delimiter on that line.",
            code="data.ragged",
            line=line,
            expected=expected,
            found=found,
        )
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
    for line_no, row in enumerate(csv.reader(io.StringIO(text), delimiter=delimiter), start=1):
        if line_no > 1 and row and len(row) < width:
            return line_no, len(row)
    return None


def _header_line_index(arr: np.ndarray, ends: np.ndarray) -> int:
    """Index of the first non-blank line (the header)."""
    starts = np.concatenate(([0], ends[:-1] + 1))
    nonblank = np.flatnonzero((ends - starts) > 1)
    return int(nonblank[0]) if len(nonblank) else 0


def _too_many_rows(max_rows: int) -> DataFormatError:
    return DataFormatError(
        f"The file has more than {max_rows:,} rows, the limit of this installation "
        "(PRIVCORE_MAX_ROWS). Use a sample or raise the limit.",
        code="data.too_many_rows",
        limit=max_rows,
    )


# ---------------------------------------------------------------------------------
# Excel, Parquet, JSON lines


def _read_excel(buffer: Any) -> pd.DataFrame:
    try:
        raw = pd.read_excel(buffer, header=None, dtype=object, engine="openpyxl")
    except Exception as exc:  # openpyxl raises many types for a damaged workbook
        raise DataFormatError(
            "The Excel file could not be read (damaged, encrypted, or not .xlsx).",
            code="data.bad_excel",
            detail=str(exc)[:200],
        ) from exc
    raw = raw.dropna(how="all").dropna(axis=1, how="all")
    if raw.empty:
        raise DataFormatError("The file is empty.", code="data.empty_file")
    header = ["" if pd.isna(v) else str(v) for v in raw.iloc[0].tolist()]
    names = _check_header(header)
    frame = raw.iloc[1:].reset_index(drop=True)
    frame.columns = names
    if frame.empty:
        raise DataFormatError("The file has column names but no data rows.", code="data.no_rows")
    return _finish_frame(frame, normalize_text=True)


def _read_parquet(buffer: Any) -> pd.DataFrame:
    try:
        frame = pd.read_parquet(buffer)
    except Exception as exc:  # pyarrow raises ArrowInvalid, OSError, ...
        raise DataFormatError(
            "The Parquet file could not be read (damaged or not Parquet).",
            code="data.bad_parquet",
            detail=str(exc)[:200],
        ) from exc
    _check_header([str(c) for c in frame.columns])
    frame.columns = [str(c).strip() for c in frame.columns]
    if frame.empty:
        raise DataFormatError("The file has column names but no data rows.", code="data.no_rows")
    return _finish_frame(frame.reset_index(drop=True), normalize_text=True)


def _read_jsonl(source: Any, path: Path | None, head: bytes) -> pd.DataFrame:
    raw = _read_all(source, path)
    encoding = detect_encoding(head)
    text = raw.decode(encoding, errors="replace").lstrip("\ufeff")
    try:
        frame = pd.read_json(io.StringIO(text), lines=True, dtype=False)
    except ValueError as exc:
        bad_line = _first_bad_json_line(text)
        where = f" (line {bad_line})" if bad_line else ""
        raise DataFormatError(
            f"The JSON lines file could not be read{where}: each line must be one JSON object.",
            code="data.bad_jsonl",
            line=bad_line,
        ) from exc
    if frame.empty:
        raise DataFormatError("The file has no records.", code="data.no_rows")
    _check_header([str(c) for c in frame.columns])
    frame.columns = [str(c).strip() for c in frame.columns]
    return _finish_frame(frame, normalize_text=True)


def _first_bad_json_line(text: str) -> int | None:
    import json

    for i, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError:
            return i
        if not isinstance(value, dict):
            return i
    return None


# ---------------------------------------------------------------------------------
# shared post-processing


def _finish_frame(frame: pd.DataFrame, *, normalize_text: bool) -> pd.DataFrame:
    """Missing markers to NA; mixed object columns to numbers when every value is one.

    Text stays text (a ZIP code "02139" keeps its zero); an object column (Excel, JSON)
    becomes numeric only when its non-missing cells are numbers, not digit strings.
    """
    for column in frame.columns:
        series = frame[column]
        if pd.api.types.is_numeric_dtype(series.dtype) or pd.api.types.is_bool_dtype(series.dtype):
            continue
        if pd.api.types.is_datetime64_any_dtype(series.dtype):
            frame[column] = series.dt.strftime("%Y-%m-%d").astype("str")
            continue
        if not normalize_text and series.dtype != object:
            continue
        text = series.astype("str").str.strip()
        missing = series.isna() | text.isin(MISSING_MARKERS)
        kept = series.mask(missing)
        if series.dtype == object and pd.api.types.infer_dtype(kept, skipna=True) in (
            "integer",
            "floating",
            "mixed-integer-float",
            "decimal",
        ):
            frame[column] = _narrow_numeric(pd.to_numeric(kept))
        else:
            frame[column] = text.mask(missing)
    return frame


def _narrow_numeric(values: pd.Series) -> pd.Series:
    """Floats that are all whole numbers (and not missing) become int64."""
    if values.notna().all():
        as_float = values.astype("float64")
        if np.all(np.mod(as_float.to_numpy(), 1) == 0):
            return as_float.astype("int64")
    return values.astype("float64")


def _check_shape(frame: pd.DataFrame, max_rows: int, max_columns: int) -> None:
    if frame.shape[1] > max_columns:
        raise DataFormatError(
            f"The table has {frame.shape[1]} columns; this installation accepts at most "
            f"{max_columns} (PRIVCORE_MAX_COLUMNS).",
            code="data.too_many_columns",
            columns=int(frame.shape[1]),
            limit=max_columns,
        )
    if frame.shape[0] > max_rows:
        raise _too_many_rows(max_rows)
    if frame.shape[0] == 0:
        raise DataFormatError("The file has column names but no data rows.", code="data.no_rows")


def save(frame: pd.DataFrame, path: str | Path) -> Path:
    """Write a table in the format its extension names: .csv (UTF-8), .tsv, .xlsx,
    .parquet or .jsonl; anything else is written as CSV."""
    path = Path(path)
    suffix = path.suffix.lower()
    try:
        if suffix == ".xlsx":
            frame.to_excel(path, index=False)
        elif suffix in (".parquet", ".pq"):
            frame.to_parquet(path, index=False)
        elif suffix in (".jsonl", ".ndjson"):
            frame.to_json(path, orient="records", lines=True, force_ascii=False)
        elif suffix == ".tsv":
            frame.to_csv(path, sep="\t", index=False)
        else:
            frame.to_csv(path, index=False)
    except OSError as exc:
        raise DataFormatError(
            f"Cannot write {path}: {exc.strerror or exc}.", code="data.cannot_write", path=str(path)
        ) from exc
    return path
