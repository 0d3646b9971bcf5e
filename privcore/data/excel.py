"""Read the first sheet of an Excel workbook (.xlsx) within the limits of a read.

A workbook is a zip archive of XML parts, and a small one can describe a huge sheet: an
8.7 MB file may expand to 3 GB of XML (53 million rows), a 165 KB file may hold a
million rows. So, before any row is parsed:

1. the parts' declared sizes and compression ratios are checked
   (:func:`privcore.data.archives.check_expansion`; the parts may expand to at most
   :data:`EXPANSION_PER_FILE_BYTE` times the file-size limit);
2. the sheet's declared dimension (``<dimension ref="A1:K1000000"/>``, read from the
   first bytes of the sheet only) is compared with the row and column limits;

then the sheet is streamed with openpyxl's read-only reader (``iter_rows`` of values),
stopping one row beyond the row limit or once more columns than the limit hold a value
(a row padded far to the right by a stray cell is kept as its filled cells only), and
checking the clock of the read every :data:`_ROWS_PER_CHECK` rows. openpyxl parses the
whole sheet when it opens a workbook whose sheet declares no dimension; the sheet here
is opened through a subclass that reads the dimension from the start of the sheet only.

Cell values are read as :func:`pandas.read_excel` reads them (first sheet, no header,
object columns): empty cells, Excel's error values and pandas' missing markers
(:data:`EXCEL_MISSING`) are missing.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path
from typing import IO, Any

import pandas as pd
from openpyxl.cell.cell import ERROR_CODES
from openpyxl.reader.excel import ExcelReader
from openpyxl.styles.stylesheet import apply_stylesheet
from openpyxl.utils.cell import range_boundaries
from openpyxl.worksheet._read_only import ReadOnlyWorksheet

from privcore.data.archives import check_expansion
from privcore.data.budget import ReadBudget
from privcore.errors import DataFormatError

#: The XML parts of a workbook may expand to this many times the file-size limit.
EXPANSION_PER_FILE_BYTE = 20

#: Cell texts read as missing: pandas.read_excel's default missing markers and Excel's
#: error values (#N/A, #DIV/0!, …), which pandas reads as missing too.
EXCEL_MISSING: frozenset[str] = frozenset(
    {
        "",
        "#N/A",
        "#N/A N/A",
        "#NA",
        "-1.#IND",
        "-1.#QNAN",
        "-NaN",
        "-nan",
        "1.#IND",
        "1.#QNAN",
        "<NA>",
        "N/A",
        "NA",
        "NULL",
        "NaN",
        "None",
        "n/a",
        "nan",
        "null",
        *ERROR_CODES,
    }
)

_ROWS_PER_CHECK = 1024
_DIMENSION_HEAD_BYTES = 1 << 16
_DIMENSION_RE = re.compile(rb"<(?:\w+:)?dimension\b[^>]*?\bref\s*=\s*[\"']([^\"']+)[\"']")
_SHEET_DATA_RE = re.compile(rb"<(?:\w+:)?sheetData\b")


class _Sheet(ReadOnlyWorksheet):
    """openpyxl's read-only sheet, with the declared dimension read from the start of
    the sheet's XML only (openpyxl reads on to the end when there is none) and not used
    to cut the rows (as pandas resets it: rows beyond a wrong dimension are read)."""

    declared: tuple[int, int, int, int] | None = None

    def _get_size(self) -> None:
        with self._get_source() as source:
            head = source.read(_DIMENSION_HEAD_BYTES)
        data_start = _SHEET_DATA_RE.search(head)
        match = _DIMENSION_RE.search(head, 0, data_start.start() if data_start else len(head))
        if match is None:
            return
        try:
            bounds = range_boundaries(match.group(1).decode("ascii", "replace").upper())
        except (ValueError, TypeError):
            return
        if None not in bounds:
            self.declared = bounds  # (min_col, min_row, max_col, max_row)


def read_first_sheet(buffer: str | Path | IO[bytes], budget: ReadBudget) -> pd.DataFrame:
    """The cells of the workbook's first worksheet as an object DataFrame (no header,
    rows and columns where they are in the sheet; blank rows are left out).

    Raises ``data.expands_too_large``, ``data.compression_ratio``,
    ``data.too_many_rows``, ``data.too_many_columns``, ``data.parse_timeout`` or
    ``data.bad_excel``.
    """
    if isinstance(buffer, (str, Path)):
        with open(buffer, "rb") as handle:
            return read_first_sheet(handle, budget)
    try:
        archive = zipfile.ZipFile(_rewound(buffer))
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise _bad_excel(exc) from exc
    with archive:
        check_expansion(archive, budget, factor=EXPANSION_PER_FILE_BYTE)
    try:
        reader = ExcelReader(_rewound(buffer), read_only=True, data_only=True, keep_links=False)
    except Exception as exc:  # a damaged archive, whatever raised it
        raise _bad_excel(exc) from exc
    try:
        sheet = _open_first_sheet(reader)
        budget.check_time()
        _check_declared_size(sheet, budget)
        frame = _stream_rows(sheet, budget)
    except DataFormatError:
        raise
    except Exception as exc:  # openpyxl raises many types for damaged parts
        raise _bad_excel(exc) from exc
    finally:
        reader.archive.close()
    return frame.mask(frame.isin(EXCEL_MISSING))


def _open_first_sheet(reader: ExcelReader) -> _Sheet:
    """The workbook's first worksheet (chart sheets are not worksheets), as
    :meth:`ExcelReader.read` would open it, without opening the other sheets."""
    reader.read_manifest()
    reader.read_strings()
    reader.read_workbook()
    apply_stylesheet(reader.archive, reader.wb)  # number formats: which numbers are dates
    for sheet, rel in reader.parser.find_sheets():
        if rel.target in reader.valid_files and "chartsheet" not in rel.Type:
            return _Sheet(reader.wb, sheet.name, rel.target, reader.shared_strings)
    raise DataFormatError("The workbook has no worksheet.", code="data.empty_file")


def _check_declared_size(sheet: _Sheet, budget: ReadBudget) -> None:
    if sheet.declared is None:
        return
    min_col, min_row, max_col, max_row = sheet.declared
    if max_col - min_col + 1 > budget.max_columns:
        raise budget.too_many_columns(max_col - min_col + 1)
    if max_row - min_row > budget.max_rows:  # the first row is the header
        raise budget.too_many_rows()


def _stream_rows(sheet: _Sheet, budget: ReadBudget) -> pd.DataFrame:
    """The non-blank rows, up to one beyond the header plus the row limit.

    A row wider than the column limit (a stray cell far to the right: openpyxl pads the
    row up to it) is kept as a dict of its filled cells, so a sheet of such rows costs
    what its XML holds; the columns filled in those rows and the width of the others
    are counted as they come (``data.too_many_columns`` once more than the limit).
    """
    rows: list[tuple[Any, ...] | dict[int, Any]] = []
    most = budget.max_rows + 1  # the header and max_rows data rows
    limit = budget.max_columns
    narrow_width = 0  # widest row within the limit
    wide_columns: set[int] = set()  # positions filled in wider rows

    def columns_used() -> int:
        return narrow_width + sum(1 for p in wide_columns if p >= narrow_width)

    for index, row in enumerate(sheet.iter_rows(values_only=True)):
        if index % _ROWS_PER_CHECK == 0:
            budget.check_time()
        if not row or row.count(None) == len(row):
            continue
        if len(row) > limit:
            filled = {i: v for i, v in enumerate(row) if v is not None}
            wide_columns.update(filled)
            if columns_used() > limit:
                raise budget.too_many_columns(columns_used())
            rows.append(filled)
        else:
            narrow_width = max(narrow_width, len(row))
            rows.append(row)
        if len(rows) > most:
            raise budget.too_many_rows()
    if not wide_columns:
        # openpyxl ends each row at its last cell: pad the shorter ones
        padded = [
            r if len(r) == narrow_width else (*r, *[None] * (narrow_width - len(r))) for r in rows
        ]
        return pd.DataFrame(padded, columns=range(narrow_width), dtype=object)
    if columns_used() > limit:
        raise budget.too_many_columns(columns_used())
    records = [row if isinstance(row, dict) else dict(enumerate(row)) for row in rows]
    frame = pd.DataFrame.from_records(records).astype(object)
    return frame.reindex(columns=sorted(frame.columns))


def _rewound(buffer: Any) -> Any:
    if hasattr(buffer, "seek"):
        buffer.seek(0)
    return buffer


def _bad_excel(exc: BaseException) -> DataFormatError:
    return DataFormatError(
        "The Excel file could not be read (damaged, encrypted, or not .xlsx).",
        code="data.bad_excel",
        detail=str(exc)[:200],
    )
