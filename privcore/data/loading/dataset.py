"""What a load gives: the table with how it was read (:class:`Dataset`), its identity
without its content (:class:`Fingerprint`), the facts of a first column read without a
name (:class:`UnnamedColumn`), and the constants and errors every reader shares."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

import pandas as pd

from privcore.core.records import PlainFields
from privcore.errors import DataFormatError

#: Cell texts read as missing. Matching is exact (case-sensitive) after the cell is read.
MISSING_MARKERS: tuple[str, ...] = ("", "?", "NA", "NaN", "nan", "null", "NULL")

TEXT_FORMATS = ("csv", "tsv", "txt")
FORMATS = (*TEXT_FORMATS, "xlsx", "parquet", "jsonl")

#: Longest column name accepted: a longer "name" is a header line gone wrong.
MAX_COLUMN_NAME_CHARS = 1000
#: The name given to a first column whose header cell is empty (a written index).
INDEX_NAME = "index"


@dataclass(frozen=True)
class Fingerprint(PlainFields):
    """Identity of a table without its content: SHA-256 of its canonical bytes."""

    sha256: str
    rows: int
    columns: int


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
class UnnamedColumn(PlainFields):
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
        self._require(column)
        if self.frame.shape[1] == 1:
            raise DataFormatError(
                f"'{column}' is the table's only column; a table needs at least one.",
                code="data.last_column",
                column=column,
            )
        return self._changed(self.frame.drop(columns=[column]), column)

    def rename_column(self, column: str, new_name: str) -> Dataset:
        """This data set with ``column`` named ``new_name`` (stripped; not blank, not
        the name of another column, at most :data:`MAX_COLUMN_NAME_CHARS` characters).
        Renaming the unnamed first column settles it (``unnamed_first`` becomes None)."""
        self._require(column)
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
        return self._changed(self.frame.rename(columns={column: name}), column)

    def _require(self, column: str) -> None:
        if column not in self.frame.columns:
            raise DataFormatError(
                f"The table has no column '{column}'.", code="data.no_such_column", column=column
            )

    def _changed(self, frame: pd.DataFrame, column: str) -> Dataset:
        """This data set with ``frame`` after a change to ``column``: the unnamed first
        column, once changed, is settled."""
        unnamed = self.unnamed_first
        return replace(
            self,
            frame=frame,
            unnamed_first=None if unnamed is not None and unnamed.name == column else unnamed,
        )


def _empty_file() -> DataFormatError:
    return DataFormatError("The file is empty.", code="data.empty_file")


def _no_rows() -> DataFormatError:
    return DataFormatError("The file has column names but no data rows.", code="data.no_rows")


def _ragged(line: int, expected: int, found: int) -> DataFormatError:
    """``data.ragged``: line ``line`` has ``found`` fields, the header ``expected``."""
    return DataFormatError(
        f"Line {line} has {found} fields but the header has {expected}. "
        "Check for a missing or extra delimiter on that line.",
        code="data.ragged",
        line=line,
        expected=expected,
        found=found,
    )
