"""Load a table from CSV/TSV/semicolon text, Excel, Parquet or JSON lines, plain or
compressed (a ``.gz`` file, or a ``.zip`` archive holding one such file).

Text files: the encoding is detected (UTF-8, UTF-8 with BOM, UTF-16 with BOM,
GB18030/GBK, Windows-1252/Latin-1) and the delimiter sniffed (``,`` ``;`` tab ``|``).
Missing markers (:data:`MISSING_MARKERS`) become real missing values (``NA``), which
every metric of privcore treats as one value of its own. A text cell that privcore's
formula guard prefixed with ``'`` (:mod:`privcore.data.writing`) is read back without
the quote, so a release written by privcore reads as the release it wrote.

The limits of the installation hold while a file is read (:mod:`privcore.data.budget`):
rows and columns are counted as they are read, decompressed bytes are capped, a
workbook is checked for decompression bombs before it is parsed
(:mod:`privcore.data.excel`), and the readers check the clock between chunks of rows.
A text file's header is read whole, however far past the sample it goes (up to the
longest header the column limit allows), and its columns counted before the rows are
parsed; its longest field is measured on its bytes before it is parsed
(``PRIVCORE_MAX_CELL_CHARS``; other formats' text cells after reading).

A text or Excel file whose first header cell alone is empty — a table written with its
index, as pandas' ``to_csv()`` does (R's ``write.csv`` with its row names) — is read
with that column named ``index``; :attr:`Dataset.unnamed_first` says so and whether the
column is just the running row number (0…n−1 or 1…n), so that the caller can offer to
drop or name it (:meth:`Dataset.drop_column`, :meth:`Dataset.rename_column`).

Every problem a user can cause raises :class:`~privcore.errors.DataFormatError` with a
message naming it (empty file, binary file, no header, blank, duplicate, too long or
broken column names, a ragged row with its line number, too many rows or columns, a
cell too long, a file that expands too much or takes too long to read, a line Python's
csv module cannot split).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
from collections import Counter
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import IO, Any

import numpy as np
import pandas as pd

from privcore.config import limits
from privcore.core.notes import Note
from privcore.data import archives
from privcore.data.budget import ReadBudget
from privcore.data.writing import csv_text, unguard_formulas, unguard_text
from privcore.errors import DataFormatError

#: Cell texts read as missing. Matching is exact (case-sensitive) after the cell is read.
MISSING_MARKERS: tuple[str, ...] = ("", "?", "NA", "NaN", "nan", "null", "NULL")

TEXT_FORMATS = ("csv", "tsv", "txt")
FORMATS = (*TEXT_FORMATS, "xlsx", "parquet", "jsonl")

#: Longest column name accepted: a longer "name" is a header line gone wrong.
MAX_COLUMN_NAME_CHARS = 1000
#: The name given to a first column whose header cell is empty (a written index).
INDEX_NAME = "index"

_SAMPLE_BYTES = 1 << 16  # enough to sniff; a later decoding error re-reads the whole file
# Rows parsed between two checks of the clock. Text files under this many rows are read
# in one piece (the same dtypes as one read_csv call).
_CSV_CHUNK_ROWS = 1_000_000
_JSON_CHUNK_ROWS = 100_000
_DELIMITERS = (",", ";", "\t", "|")
_MAGIC = {
    b"%PDF": "a PDF document",
    b"\x89PNG": "a PNG image",
    b"GIF8": "a GIF image",
    b"\xff\xd8\xff": "a JPEG image",
    b"\x7fELF": "a program (ELF binary)",
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
class UnnamedColumn:
    """The first column of a file whose first header cell was empty, as pandas writes a
    table with its index (``to_csv()``, ``to_excel()``) and R its row names.

    ``name`` is the name the loader gave it (:data:`INDEX_NAME`, or ``index_2``… when a
    column has that name already); ``running_index`` says whether its values are the
    row numbers 0, 1, …, n − 1 (or 1, …, n): such a column says nothing about anyone
    and can be dropped; ``start`` is its first value then (0 or 1), else None.
    """

    name: str
    running_index: bool
    start: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "running_index": self.running_index, "start": self.start}


@dataclass(frozen=True)
class Dataset:
    """A loaded table plus how it was read.

    ``frame`` holds numeric columns as numbers and every other column as text, with
    missing cells as ``NA``. ``notes`` lists what the loader changed or assumed.
    ``unnamed_first`` holds the facts of a first column read without a name (see
    :class:`UnnamedColumn`); :meth:`drop_column` and :meth:`rename_column` settle it.
    """

    frame: pd.DataFrame
    name: str
    source_format: str
    encoding: str | None = None
    delimiter: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)
    unnamed_first: UnnamedColumn | None = None

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

    def drop_column(self, column: str) -> Dataset:
        """This data set without ``column`` (the unnamed first column once dropped is
        settled: ``unnamed_first`` becomes None)."""
        if column not in self.frame.columns:
            raise DataFormatError(
                f"The table has no column '{column}'.", code="data.no_such_column", column=column
            )
        if self.frame.shape[1] == 1:
            raise DataFormatError(
                f"'{column}' is the table's only column; a table needs at least one.",
                code="data.last_column",
                column=column,
            )
        unnamed = self.unnamed_first
        return replace(
            self,
            frame=self.frame.drop(columns=[column]),
            unnamed_first=None if unnamed is not None and unnamed.name == column else unnamed,
        )

    def rename_column(self, column: str, new_name: str) -> Dataset:
        """This data set with ``column`` named ``new_name`` (stripped; not blank, not
        the name of another column, at most :data:`MAX_COLUMN_NAME_CHARS` characters).
        Renaming the unnamed first column settles it (``unnamed_first`` becomes None)."""
        if column not in self.frame.columns:
            raise DataFormatError(
                f"The table has no column '{column}'.", code="data.no_such_column", column=column
            )
        name = str(new_name).strip()
        if not name:
            raise DataFormatError(
                "A column name cannot be blank.", code="data.blank_new_name", column=column
            )
        if len(name) > MAX_COLUMN_NAME_CHARS:
            raise DataFormatError(
                f"A column name may have at most {MAX_COLUMN_NAME_CHARS:,} characters.",
                code="data.new_name_too_long",
                limit=MAX_COLUMN_NAME_CHARS,
            )
        if name != column and name in self.frame.columns:
            raise DataFormatError(
                f"The table has a column named '{name}' already; choose another name.",
                code="data.new_name_taken",
                column=name,
            )
        unnamed = self.unnamed_first
        return replace(
            self,
            frame=self.frame.rename(columns={column: name}),
            unnamed_first=None if unnamed is not None and unnamed.name == column else unnamed,
        )


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
    dataset = _read_content(source, path, head, name, budget)
    _check_shape(dataset.frame, budget)
    return dataset


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
            inner_head = data[:_SAMPLE_BYTES]
            if not inner_head.strip():
                raise DataFormatError("The file is empty.", code="data.empty_file")
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


def _opened(buffer: Any) -> Any:
    """A context giving a binary file object: ``buffer`` opened when it is a path."""
    if isinstance(buffer, Path):
        return buffer.open("rb")
    return nullcontext(buffer)


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


def _suffix(name: str | None) -> str:
    return Path(name).suffix.lower().lstrip(".") if name else ""


def _detect_format(name: str | None, head: bytes) -> str:
    """Format from the content's magic bytes first, then from the file extension."""
    if head.startswith(archives.ZIP_MAGIC):
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
    suffix = _suffix(name)
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
            _whole_header(raw, None, raw[:_SAMPLE_BYTES], budget),
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
        head = _whole_header(raw, None, raw[:_SAMPLE_BYTES], budget)
        return _parse_text(
            io.BytesIO(raw),
            _trim_partial_char(head).decode(encoding, "replace"),
            name,
            encoding,
            budget,
        )


def _header_limit(budget: ReadBudget, *, chars: bool = False) -> int:
    """The longest first line read to find the column names, in bytes (characters with
    ``chars``): ``PRIVCORE_MAX_COLUMNS`` names of :data:`MAX_COLUMN_NAME_CHARS` characters
    (of up to 4 bytes each), quoted, with their delimiters — no header within the
    limits is longer."""
    per_name = (1 if chars else 4) * MAX_COLUMN_NAME_CHARS + 3
    return (budget.max_columns + 1) * per_name


def _first_line_end(data: bytes | str) -> int | None:
    """The offset just past the end of the first non-blank line of ``data`` (its line
    break); None when that line does not end in ``data``."""
    breaks = ("\n", "\r") if isinstance(data, str) else (b"\n", b"\r")
    start = len(data) - len(data.lstrip())
    ends = [at for at in (data.find(breaks[0], start), data.find(breaks[1], start)) if at >= 0]
    return min(ends) + 1 if ends else None


def _whole_header(source: Any, path: Path | None, head: Any, budget: ReadBudget) -> Any:
    """The sample ``head`` (bytes, or the text of a decoded file), longer when the first
    line — the column names — goes on past it: to that line's end and a sample's worth
    of rows after it, so that a wide header is read whole instead of cut (a cut header
    shows made-up duplicate names). A first line longer than any header within the limits
    (:func:`_header_limit`) is not read to its end: :func:`_too_wide` says why."""
    if len(head) < _SAMPLE_BYTES or _first_line_end(head) is not None:
        return head
    limit = _header_limit(budget, chars=isinstance(head, str))
    size = len(head)
    while True:  # read 4 times more each time, up to the limit and a sample
        size = min(4 * size, limit + _SAMPLE_BYTES)
        prefix = _read_prefix(source, path, size)
        end = _first_line_end(prefix)
        if end is None and len(prefix) < size:
            end = len(prefix)  # the whole file is one line: the column names
        if end is not None and end <= limit:
            return prefix[: end + _SAMPLE_BYTES]
        if end is not None or size == limit + _SAMPLE_BYTES:
            raise _too_wide(prefix[:limit], budget)


def _read_prefix(source: Any, path: Path | None, size: int) -> Any:
    """The first ``size`` bytes of the file (characters of a decoded text)."""
    if path is not None:
        with path.open("rb") as handle:
            return handle.read(size)
    if isinstance(source, (bytes, bytearray, memoryview, str)):
        return source[:size] if isinstance(source, str) else bytes(source[:size])
    pos = source.tell()
    source.seek(0)
    prefix = source.read(size)
    source.seek(pos)
    return prefix


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
    return DataFormatError(
        f"The name of column {longest + 1} is longer than {MAX_COLUMN_NAME_CHARS:,} "
        "characters, which no column name may be. Check that the first line holds the "
        "column names.",
        code="data.column_name_too_long",
        column=longest + 1,
        limit=MAX_COLUMN_NAME_CHARS,
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
    # csv's default field limit (131,072 characters) is below a long first line of the
    # sample: raised only, never lowered (threads)
    csv.field_size_limit(max(csv.field_size_limit(), len(text_head) + 1))
    lines = [ln for ln in text_head.lstrip("\ufeff").splitlines()[:50]]
    while lines and not lines[0].strip():
        lines.pop(0)
    if not lines:
        raise DataFormatError("The file is empty.", code="data.empty_file")
    delimiter = sniff_delimiter(lines)
    header = _header_record(lines, delimiter)
    if len(header) > budget.max_columns:  # before the names: no made-up duplicates
        raise budget.too_many_columns(len(header))
    blank_first = _blank_first(header)
    # names written with the formula guard read as they were (then checked: unguarding
    # cannot make a duplicate pass unseen)
    names = _check_header([unguard_text(h) for h in header], first_may_be_blank=True)
    # Leading spaces after delimiters ("a, b") are skipped only when the sample has them:
    # the option costs a third of the parse time on large files.
    skip_space = bool(re.search(re.escape(delimiter) + r" \S", "\n".join(lines[1:])))
    notes: list[str] = []
    text_columns = _leading_zero_columns(
        text_head.lstrip("\ufeff").splitlines()[:2000], delimiter, names
    )
    if text_columns:
        notes.append(
            Note(
                "data.leading_zeros",
                "Kept as text to keep leading zeros: " + ", ".join(text_columns) + ".",
                columns=", ".join(text_columns),
            )
        )
    quoted = _scan_cells(buffer, delimiter, encoding, budget)
    try:
        frame = _read_csv_chunks(
            buffer,
            budget,
            sep=delimiter,
            encoding=encoding,
            na_values=list(MISSING_MARKERS),
            keep_default_na=False,
            skipinitialspace=skip_space,
            skip_blank_lines=True,
            # by position: pandas names an unnamed column itself ("Unnamed: 0")
            dtype={names.index(name): "str" for name in text_columns} or None,
        )
    except pd.errors.ParserError as exc:
        raise _ragged_error(str(exc), len(names)) from exc
    except pd.errors.EmptyDataError as exc:
        raise DataFormatError("The file is empty.", code="data.empty_file") from exc
    if frame is None:
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
    if quoted:  # a quoted cell may hold delimiters and line breaks: measured here
        _check_cell_text(frame, budget)
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
    unguarded = unguard_formulas(frame)
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
    frame = _finish_frame(frame, normalize_text=False)
    delim_name = {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe"}[delimiter]
    notes.insert(
        0,
        Note(
            f"data.read_as.{delim_name}",
            f"Read as {reported_encoding or encoding} text, {delim_name}-separated.",
            encoding=reported_encoding or encoding,
        ),
    )
    fmt = "tsv" if delimiter == "\t" else "csv"
    return Dataset(
        frame,
        name,
        fmt,
        reported_encoding or encoding,
        delimiter,
        tuple(notes),
        _unnamed_first(frame, blank_first),
    )


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


def _concat_chunks(chunks: list[pd.DataFrame]) -> pd.DataFrame:
    """The chunks of one read as one table, with the dtypes one read would give: a
    column with no value in some chunk (parsed there as float NaN) takes the dtype of
    the chunks that have values (floats for whole numbers, so the gaps stay missing).
    A column with numbers in one chunk and text in another stays mixed (object), as
    pandas' own chunked parsing leaves it."""
    if len(chunks) == 1:
        return chunks[0]
    names = _union_columns(chunks)
    chunks = [c if list(c.columns) == names else c.reindex(columns=names) for c in chunks]
    for position in range(chunks[0].shape[1]):
        columns = [chunk.iloc[:, position] for chunk in chunks]
        if len({column.dtype for column in columns}) == 1:
            continue
        filled = {column.dtype for column in columns if column.notna().any()}
        if len(filled) != 1:
            continue
        target = filled.pop()
        if pd.api.types.is_integer_dtype(target):
            target = np.dtype("float64")
        elif pd.api.types.is_bool_dtype(target):
            target = np.dtype(object)
        for chunk, column in zip(chunks, columns, strict=True):
            if column.dtype != target:
                chunk.isetitem(position, column.astype(target))
    return pd.concat(chunks, ignore_index=True)


def _union_columns(chunks: list[pd.DataFrame]) -> list[Any]:
    """Column names of all chunks in order of first appearance (a JSON key may first
    appear in a later chunk)."""
    return list(dict.fromkeys(name for chunk in chunks for name in chunk.columns))


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
        raise DataFormatError(
            f"The name of column {too_long + 1} is longer than {MAX_COLUMN_NAME_CHARS:,} "
            "characters, which no column name may be. Check that the first line holds the "
            "column names.",
            code="data.column_name_too_long",
            column=too_long + 1,
            limit=MAX_COLUMN_NAME_CHARS,
        )
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


# ---------------------------------------------------------------------------------
# Excel, Parquet, JSON lines


def _read_excel(buffer: Any, budget: ReadBudget) -> tuple[pd.DataFrame, UnnamedColumn | None]:
    """The first sheet — its first non-blank row holds the column names
    (:func:`privcore.data.excel.read_first_sheet` checks the workbook first) — and the
    facts of its first column when that has no name."""
    from privcore.data.excel import read_first_sheet  # openpyxl only for workbooks

    raw = read_first_sheet(buffer, budget)
    raw = raw.dropna(how="all").dropna(axis=1, how="all")
    if raw.empty:
        raise DataFormatError("The file is empty.", code="data.empty_file")
    header = [_excel_header_text(v) for v in raw.iloc[0].tolist()]
    names = _check_header(header, first_may_be_blank=True)
    frame = raw.iloc[1:].reset_index(drop=True)
    frame.columns = names
    if frame.empty:
        raise DataFormatError("The file has column names but no data rows.", code="data.no_rows")
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
    _check_header([str(c) for c in frame.columns])
    frame.columns = [str(c).strip() for c in frame.columns]
    if frame.empty:
        raise DataFormatError("The file has column names but no data rows.", code="data.no_rows")
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
    _check_header([str(c) for c in frame.columns])
    frame.columns = [str(c).strip() for c in frame.columns]
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


def _check_shape(frame: pd.DataFrame, budget: ReadBudget) -> None:
    if frame.shape[1] > budget.max_columns:
        raise budget.too_many_columns(frame.shape[1])
    if frame.shape[0] > budget.max_rows:
        raise budget.too_many_rows()
    if frame.shape[0] == 0:
        raise DataFormatError("The file has column names but no data rows.", code="data.no_rows")


# --------------------------------------------------------------------------- engines


@dataclass(frozen=True)
class TextLayout:
    """How :func:`load` reads a delimited text file, decided from its first bytes as the
    loader decides it: the ``encoding``, the ``delimiter``, the column ``names`` (checked;
    an empty first name, a written index, named :data:`INDEX_NAME`), the columns kept as
    text for their leading zeros (``text_columns``) and whether spaces after delimiters
    are skipped. An engine that reads the file itself (DuckDB, Spark) reads every cell as
    text with this layout and converts the distinct cells with :func:`text_cells`."""

    encoding: str
    delimiter: str
    names: tuple[str, ...]
    text_columns: tuple[str, ...]
    skip_space: bool


def text_layout(path: str | Path) -> TextLayout:
    """The :class:`TextLayout` of the text file at ``path`` (the loader's rules)."""
    path = Path(path)
    if not path.is_file():
        raise DataFormatError(f"No file at {path}.", code="data.not_found", path=str(path))
    head = _read_head(None, path)
    if not head.strip():
        raise DataFormatError("The file is empty.", code="data.empty_file")
    encoding = detect_encoding(head)
    head = _whole_header(None, path, head, ReadBudget.from_limits(limits()))
    if encoding == "utf-16":
        text_head = head.decode("utf-16", errors="replace")
    else:
        text_head = _trim_partial_char(head).decode(encoding, errors="replace")
    lines = text_head.lstrip("\ufeff").splitlines()[:50]
    while lines and not lines[0].strip():
        lines.pop(0)
    if not lines:
        raise DataFormatError("The file is empty.", code="data.empty_file")
    delimiter = sniff_delimiter(lines)
    names = _check_header(_header_record(lines, delimiter), first_may_be_blank=True)
    text_columns = _leading_zero_columns(
        text_head.lstrip("\ufeff").splitlines()[:2000], delimiter, names
    )
    skip_space = bool(re.search(re.escape(delimiter) + r" \S", "\n".join(lines[1:])))
    return TextLayout(encoding, delimiter, tuple(names), tuple(text_columns), skip_space)


def text_cells(cells: pd.Series, layout: TextLayout, column: str) -> pd.Series:
    """The values :func:`load` gives the text cells ``cells`` of one column of a file
    with ``layout`` (missing: NA): the cells parsed as that column by the same parser
    and options (numbers inferred only when every cell is one, the leading-zero columns
    kept as text, the missing markers missing), the formula guard removed, then the
    loader's finishing rules (text stripped). Meant for a column's distinct cells: the
    type is decided on all of them at once, as the loader decides it on the column."""
    cells = pd.Series(cells, dtype=object).reset_index(drop=True)
    present = cells.notna()
    # a missing cell is written as the empty field: the parser reads it as missing
    values = pd.DataFrame({column: cells.where(present, "").astype(str)})
    buffer = io.StringIO(csv_text(values, sep=layout.delimiter, formula_guard=False)[0])
    frame = pd.read_csv(
        buffer,
        sep=layout.delimiter,
        na_values=list(MISSING_MARKERS),
        keep_default_na=False,
        skipinitialspace=layout.skip_space,
        skip_blank_lines=False,
        dtype={0: "str"} if column in layout.text_columns else None,
    )
    unguard_formulas(frame)
    frame = _finish_frame(frame, normalize_text=False)
    return frame.iloc[:, 0].reset_index(drop=True)
