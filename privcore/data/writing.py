"""Write tables: CSV/TSV with a formula guard, Excel with text kept as text, Parquet,
JSON lines.

Formula guard (OWASP, "CSV Injection"): a spreadsheet that opens a CSV file evaluates a
cell starting with ``=``, ``+``, ``-`` or ``@`` (and some programs one starting with a
tab or a carriage return) as a formula, so a released cell such as
``=HYPERLINK("http://…?"&A2, "click")`` runs in the reader's spreadsheet. OWASP's rule:
prefix such a text cell with a single quote, which spreadsheets show as text; and mind
the quotes, which can start the dangerous character "at the beginning of a cell" too.
:func:`guard_formulas` applies two rules to every text cell and column name:

- start: a cell that starts, after any quotes (``'`` ``"``) or byte-order marks
  (U+FEFF, which a reader drops at the start of a file), with ``=`` ``+`` ``-`` ``@``
  tab or CR gets a ``'`` in front — except text that is a plain number (``-2``,
  ``+3.5``, ``1e-3``), which no spreadsheet evaluates as a formula;
- line break: inside a cell, after every CR or LF followed (after any quotes or
  byte-order marks) by ``=`` ``+`` ``-`` ``@`` or tab, a ``'`` is inserted. A program
  that ends a row at a line break inside a quoted cell (or splits the file into lines
  on CR, LF or CRLF) starts a new row there: ``x\r=1+1`` is written ``x\r'=1+1``, so
  no line of the file, however split, starts a formula.

Cells of numeric columns are numbers and stay numbers. Quotes are counted before the
trigger character, so a cell already holding the guard's quote gets one more, and
:func:`unguard_formulas` — removing one ``'`` from the start of a cell that starts with
``'``, quotes and a trigger character, and one ``'`` right after a line break followed
by ``'``, quotes and a trigger character — gives back exactly the cells that were
guarded; privcore's loader applies it to CSV/TSV, so a release written by privcore reads
as it was.

Every CSV or TSV the product writes comes from one writer, :func:`csv_text` (through
:func:`save`, :func:`to_csv_bytes` for the page downloads, the history export and the
ARX hierarchy export): the guard above, and every field holding a CR or an LF (or the
delimiter, or a ``"``) in double quotes. Python's :mod:`csv` module — and pandas, which
uses it — leaves a field with a lone CR unquoted when rows end with LF, so a reader
ends the row there: the writer makes the module quote CR too, rows still ending with
LF. A NUL character is written as it is; a file holding one starts with a UTF-8
byte-order mark, which tells readers that take NUL bytes for a binary file (privcore's
loader among them) that it is text, so the table reads back as it was. The DuckDB and
Spark engines write large releases themselves with the same rules
(:data:`FORMULA_START`, :data:`FORMULA_AFTER_BREAK`); both quote CR and LF.

In an .xlsx file a text cell is stored as text, which Excel never evaluates:
:func:`save` marks text starting with ``=`` (openpyxl would write it as a formula) or
equal to an error value (``#N/A``) as text instead of prefixing it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from privcore.errors import DataFormatError

#: First characters that make a spreadsheet read a cell as a formula (OWASP).
FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")

# Characters that may stand before the trigger character: quotes, and the byte-order
# mark that a reader drops at the start of a file.
_LEAD = "[\ufeff'\"]*"
#: The start of a cell that the start rule guards (plain numbers aside): a regular
#: expression that Python, RE2 (DuckDB) and Java (Spark) read alike.
FORMULA_START = _LEAD + r"[=+\-@\t\r]"
#: A line break (group 1) and what follows it (group 2) that the line-break rule
#: guards: a ``'`` goes between the two groups (same regular-expression dialects).
FORMULA_AFTER_BREAK = r"([\r\n])(" + _LEAD + r"[=+\-@\t])"
#: Text that is a plain number, which the start rule leaves alone.
PLAIN_NUMBER = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"

_GUARDED_START = "'" + FORMULA_START
_BREAK_TRIGGER = r"[\r\n]" + _LEAD + r"[=+\-@\t]"  # FORMULA_AFTER_BREAK without groups
_GUARDED_BREAK = r"([\r\n])'(" + _LEAD + r"[=+\-@\t])"
_GUARDED_BREAK_TEST = r"[\r\n]'" + _LEAD + r"[=+\-@\t]"


@dataclass(frozen=True)
class SavedTable:
    """A table written by :func:`save`: where, and how many cells the formula guard
    prefixed (0 for formats other than CSV/TSV, or with the guard off)."""

    path: Path
    guarded_cells: int


def guard_formulas(frame: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """``frame`` with text cells and column names that a spreadsheet would read as a
    formula guarded with ``'`` (the start and line-break rules of the module
    docstring), and how many cells and names were changed.

    Numeric, boolean and date columns are untouched; ``frame`` itself is not changed.
    """
    guarded = frame.copy(deep=False)
    changed = 0
    for position in range(frame.shape[1]):
        column = frame.iloc[:, position]
        if not _is_text(column):
            continue
        if isinstance(column.dtype, pd.CategoricalDtype):
            column = column.astype(object)
        starts = _starts_like_formula(column)
        hits = starts | _str_test(column, "contains", _BREAK_TRIGGER)
        count = int(hits.sum())
        if count:
            column = column.copy()
            texts = column[hits].astype(str).str.replace(FORMULA_AFTER_BREAK, r"\1'\2", regex=True)
            column[hits] = np.where(starts[hits], "'" + texts, texts)
            guarded.isetitem(position, column)
            changed += count
    original = list(frame.columns)
    names = [guard_text(name) if isinstance(name, str) else name for name in original]
    renamed = sum(new != old for new, old in zip(names, original, strict=True))
    if renamed:
        guarded.columns = names
    return guarded, changed + renamed


def unguard_formulas(frame: pd.DataFrame) -> int:
    """Remove the formula guard's quotes from the text cells of ``frame`` (in place):
    one leading ``'`` of a cell that starts with ``'``, quotes and ``=``, ``+``, ``-``,
    ``@``, tab or carriage return, and one ``'`` right after each CR or LF that is
    followed by ``'``, quotes and ``=``, ``+``, ``-``, ``@`` or tab. Returns the number
    of cells changed."""
    changed = 0
    for position in range(frame.shape[1]):
        column = frame.iloc[:, position]
        if not _is_text(column) or isinstance(column.dtype, pd.CategoricalDtype):
            continue
        quoted = _str_test(column, "contains", "'")
        if not quoted.any():
            continue
        starts = quoted & _str_test(column, "match", _GUARDED_START)
        hits = starts | (quoted & _str_test(column, "contains", _GUARDED_BREAK_TEST))
        count = int(hits.sum())
        if count:
            column = column.copy()
            texts = column[hits].astype(str).str.replace(_GUARDED_BREAK, r"\1\2", regex=True)
            column[hits] = np.where(starts[hits], texts.str.slice(1), texts)
            frame.isetitem(position, column)
            changed += count
    return changed


def csv_text(
    frame: pd.DataFrame,
    *,
    sep: str = ",",
    header: bool = True,
    formula_guard: bool = True,
) -> tuple[str, int]:
    """The one CSV/TSV writer: ``frame`` as text (``sep``-separated, without its index,
    rows ending with LF) formula-guarded (:func:`guard_formulas`) unless told otherwise,
    and how many cells and names the guard changed.

    Every field holding a CR, an LF, ``sep`` or a ``"`` is written in double quotes
    (``"`` doubled inside). The :mod:`csv` module quotes a field that holds a character
    of its line terminator: rows are written ending with CRLF, so that CR and LF are
    quoted both, then every CRLF outside quotes — a row end — becomes LF.
    """
    guarded = 0
    frame = whole_numbers_as_written(frame)
    if formula_guard:
        frame, guarded = guard_formulas(frame)
    text = frame.to_csv(index=False, sep=sep, header=header, lineterminator="\r\n")
    if '"' not in text:
        return text.replace("\r\n", "\n"), guarded
    # every field with a line break is quoted, and a quote inside a field is doubled:
    # the even pieces between quotes are the text outside them
    pieces = text.split('"')
    pieces[::2] = [piece.replace("\r\n", "\n") for piece in pieces[::2]]
    return '"'.join(pieces), guarded


#: Whole floats up to this size are written without ".0" (2⁵³: every integer below it is
#: exactly a float, so the digits written are the number's).
_EXACT_INTEGERS = 2.0**53


def whole_numbers_as_written(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with each float column whose values are all whole numbers written as
    whole numbers: a column of ages or ZIP codes with a missing value is stored as
    floats (510630.0), and is written 510630 as it was read, the missing cells empty.
    In a column of text and numbers (a numeric column with ``*`` cells), the whole float
    cells likewise. Fractions, values beyond ±2⁵³ and non-finite values leave a column
    as it is; ``frame`` itself is not changed."""
    out = frame
    for position in range(frame.shape[1]):
        column = frame.iloc[:, position]
        if pd.api.types.is_float_dtype(column.dtype):
            values = column.to_numpy(dtype=np.float64, na_value=np.nan)
            present = values[~np.isnan(values)]
            if present.size == len(values) or not _whole(present):
                continue  # no missing value: pandas writes whole floats as they are
            written = pd.array(np.where(np.isnan(values), 0, values).astype(np.int64))
            written[np.isnan(values)] = pd.NA
            column = pd.Series(written, index=column.index, name=column.name)
        elif column.dtype == object:
            is_float = (column.map(type).isin((float, np.float64)) & column.notna()).to_numpy()
            if not is_float.any():
                continue
            values = column[is_float].to_numpy(dtype=np.float64)
            if not _whole(values):
                continue
            column = column.copy()
            column[is_float] = values.astype(np.int64).astype(object)
        else:
            continue
        if out is frame:
            out = frame.copy(deep=False)
        out.isetitem(position, column)
    return out


def _whole(values: np.ndarray) -> bool:
    return bool(
        np.isfinite(values).all()
        and (np.abs(values) <= _EXACT_INTEGERS).all()
        and (values == np.round(values)).all()
    )


def to_csv_bytes(frame: pd.DataFrame, *, sep: str = ",", formula_guard: bool = True) -> bytes:
    """``frame`` as UTF-8 CSV (or TSV with ``sep="\\t"``), formula-guarded unless told
    otherwise: what the pages offer for download (:func:`csv_text`; a table holding a
    NUL character starts with a byte-order mark)."""
    return _utf8(csv_text(frame, sep=sep, formula_guard=formula_guard)[0])


def _utf8(text: str) -> bytes:
    """``text`` in UTF-8; with a byte-order mark when it holds a NUL character, so that
    a reader taking NUL bytes for a binary file (privcore's loader) reads it as text."""
    return text.encode("utf-8-sig" if "\x00" in text else "utf-8")


def save(frame: pd.DataFrame, path: str | Path, *, formula_guard: bool = True) -> SavedTable:
    """Write a table in the format its extension names: .csv (UTF-8), .tsv, .xlsx,
    .parquet or .jsonl; anything else is written as CSV. CSV and TSV come from
    :func:`csv_text`, formula-guarded (:func:`guard_formulas`) unless ``formula_guard``
    is False; in .xlsx, text is always stored as text."""
    path = Path(path)
    suffix = path.suffix.lower()
    if path.is_dir():
        raise DataFormatError(
            f"Cannot write {path}: it is a folder. Give a file name.",
            code="data.cannot_write",
            path=str(path),
        )
    guarded = 0
    try:
        if suffix == ".xlsx":
            _write_xlsx(frame, path)
        elif suffix in (".parquet", ".pq"):
            frame.to_parquet(path, index=False)
        elif suffix in (".jsonl", ".ndjson"):
            frame.to_json(path, orient="records", lines=True, force_ascii=False)
        else:
            text, guarded = csv_text(
                frame, sep="\t" if suffix == ".tsv" else ",", formula_guard=formula_guard
            )
            path.write_bytes(_utf8(text))
    except OSError as exc:
        raise DataFormatError(
            f"Cannot write {path}: {exc.strerror or exc}.", code="data.cannot_write", path=str(path)
        ) from exc
    return SavedTable(path, guarded)


def _write_xlsx(frame: pd.DataFrame, path: Path) -> None:
    """One sheet, column names in the first row, missing cells empty; text that openpyxl
    would store as a formula (``=…``) or an error value (``#N/A``) stored as text."""
    from openpyxl import Workbook
    from openpyxl.cell import WriteOnlyCell
    from openpyxl.cell.cell import ERROR_CODES
    from openpyxl.utils.exceptions import IllegalCharacterError

    workbook = Workbook(write_only=True)
    sheet = workbook.create_sheet("Sheet1")

    def text_cell(value: str) -> WriteOnlyCell:
        cell = WriteOnlyCell(sheet, value=value)
        cell.data_type = "s"
        return cell

    special_columns = {}
    for position in range(frame.shape[1]):
        column = frame.iloc[:, position]
        if _is_text(column):
            mask = _str_test(column, "startswith", "=") | column.isin(ERROR_CODES).to_numpy()
            if mask.any():
                special_columns[position] = mask
    special_rows = np.zeros(len(frame), dtype=bool)
    for mask in special_columns.values():
        special_rows |= mask
    values = frame.astype(object).where(frame.notna(), None)
    try:
        sheet.append([text_cell(str(name)) for name in frame.columns])
        for index, row in enumerate(values.itertuples(index=False, name=None)):
            if special_rows[index]:
                row = list(row)
                for position, mask in special_columns.items():
                    if mask[index]:
                        row[position] = text_cell(row[position])
            sheet.append(row)
        workbook.save(path)
    except IllegalCharacterError as exc:
        raise DataFormatError(
            f"Cannot write {path}: a cell holds a control character, which Excel files "
            "cannot store. Save the table as CSV or Parquet instead.",
            code="data.cannot_write",
            path=str(path),
        ) from exc


def _is_text(column: pd.Series) -> bool:
    dtype = column.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        return not pd.api.types.is_numeric_dtype(dtype.categories.dtype)
    return not (
        pd.api.types.is_numeric_dtype(dtype)
        or pd.api.types.is_bool_dtype(dtype)
        or pd.api.types.is_datetime64_any_dtype(dtype)
        or isinstance(dtype, pd.PeriodDtype | pd.IntervalDtype)
        or pd.api.types.is_timedelta64_dtype(dtype)
    )


def _str_test(column: pd.Series, method: str, argument: str) -> np.ndarray:
    """A boolean array: ``column.str.<method>(argument)`` for text cells, False for
    missing and non-text cells (an object column may mix numbers and text)."""
    try:
        result = getattr(column.str, method)(argument, na=False)
    except AttributeError:  # an object column without any text
        return np.zeros(len(column), dtype=bool)
    return result.to_numpy(dtype=bool, na_value=False)


def _starts_like_formula(column: pd.Series) -> np.ndarray:
    starts = _str_test(column, "match", FORMULA_START)
    if not starts.any():
        return starts
    return starts & ~_str_test(column, "fullmatch", PLAIN_NUMBER)


def guard_text(text: str) -> str:
    """:func:`guard_formulas` on one text (a column name)."""
    guarded = re.sub(FORMULA_AFTER_BREAK, r"\1'\2", text)
    if re.match(FORMULA_START, text) and not re.fullmatch(PLAIN_NUMBER, text):
        guarded = "'" + guarded
    return guarded


def unguard_text(text: str) -> str:
    """The inverse of :func:`guard_text` on one text (a column name read from a CSV/TSV
    file): ``unguard_text(guard_text(t)) == t`` for every text."""
    plain = re.sub(_GUARDED_BREAK, r"\1\2", text)
    return plain[1:] if re.match(_GUARDED_START, text) else plain
