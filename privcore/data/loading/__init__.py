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

The steps, one module each: :mod:`~privcore.data.loading.read` (the entry point and
archives), :mod:`~privcore.data.loading.sources` (the bytes of a source),
:mod:`~privcore.data.loading.detect` (format, encoding, delimiter),
:mod:`~privcore.data.loading.header` (column names), :mod:`~privcore.data.loading.text`
(delimited text), :mod:`~privcore.data.loading.formats` (Excel, Parquet, JSON lines),
:mod:`~privcore.data.loading.cleaning` (types and missing values),
:mod:`~privcore.data.loading.limits` (rows, columns and cells within the limits),
:mod:`~privcore.data.loading.layout` (the rules for engines that read a file
themselves) and :mod:`~privcore.data.loading.dataset` (what a load gives).
"""

from privcore.data.loading.dataset import (
    FORMATS,
    INDEX_NAME,
    MAX_COLUMN_NAME_CHARS,
    MISSING_MARKERS,
    TEXT_FORMATS,
    Dataset,
    Fingerprint,
    UnnamedColumn,
    fingerprint,
)
from privcore.data.loading.detect import detect_encoding, sniff_delimiter
from privcore.data.loading.layout import TextLayout, text_cells, text_layout
from privcore.data.loading.read import load

__all__ = [
    "FORMATS",
    "INDEX_NAME",
    "MAX_COLUMN_NAME_CHARS",
    "MISSING_MARKERS",
    "TEXT_FORMATS",
    "Dataset",
    "Fingerprint",
    "TextLayout",
    "UnnamedColumn",
    "detect_encoding",
    "fingerprint",
    "load",
    "sniff_delimiter",
    "text_cells",
    "text_layout",
]
