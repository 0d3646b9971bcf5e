"""What reading one file may cost: rows, columns, bytes after decompression, seconds.

One :class:`ReadBudget` is made per :func:`privcore.data.load` call from the limits of
the installation (:func:`privcore.config.limits`, environment variables in brackets):

- rows (``PRIVCORE_MAX_ROWS``) and columns (``PRIVCORE_MAX_COLUMNS``), checked while
  reading, so a file above the limit is refused when the limit is passed, not after it
  was read whole;
- bytes (``PRIVCORE_MAX_FILE_MB``): the file, and also what a compressed file (gzip,
  zip) expands to;
- seconds (``PRIVCORE_MAX_PARSE_SECONDS``): the readers check the clock between chunks
  of rows (and of decompressed bytes), so no upload keeps a worker busy longer than that.
- characters of one cell (``PRIVCORE_MAX_CELL_CHARS``): a text file's longest field is
  measured on its bytes before it is parsed, other formats' text cells after reading.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from privcore.config import Limits
from privcore.errors import DataFormatError

#: The clock of the time limit (a module attribute so tests can replace it).
_clock = time.monotonic

MB = 1024 * 1024


def _now() -> float:
    return _clock()


#: Per error code of a read above a limit: the :class:`ReadBudget` field holding the
#: limit, and the message (a :meth:`str.format` template of ``limit``, the error's
#: params and ``where``, the place of the cell).
_OVER_LIMIT: dict[str, tuple[str, str]] = {
    "data.parse_timeout": (
        "max_seconds",
        "Reading the file took longer than {limit} seconds, the limit of this installation "
        "(PRIVCORE_MAX_PARSE_SECONDS). Use a smaller file, or save it as CSV or Parquet, "
        "which read faster.",
    ),
    "data.too_many_rows": (
        "max_rows",
        "The file has more than {limit:,} rows, the limit of this installation "
        "(PRIVCORE_MAX_ROWS). Use a sample or raise the limit.",
    ),
    "data.too_many_columns": (
        "max_columns",
        "The table has {columns} columns; this installation accepts at most {limit} "
        "(PRIVCORE_MAX_COLUMNS).",
    ),
    "data.cell_too_long": (
        "max_cell_chars",
        "The file has a cell of {chars:,} characters{where}; this installation accepts at "
        "most {limit:,} characters in one cell (PRIVCORE_MAX_CELL_CHARS).",
    ),
}


@dataclass
class ReadBudget:
    """Limits of one file read, and the time it started."""

    max_rows: int
    max_columns: int
    max_file_mb: int
    max_seconds: int
    max_cell_chars: int = 100_000
    started: float = field(default_factory=_now)

    @classmethod
    def from_limits(cls, lim: Limits, *, max_rows: int | None = None) -> ReadBudget:
        return cls(
            max_rows=max_rows or lim.max_rows,
            max_columns=lim.max_columns,
            max_file_mb=lim.max_file_mb,
            max_seconds=lim.max_parse_seconds,
            max_cell_chars=lim.max_cell_chars,
        )

    @property
    def max_bytes(self) -> int:
        """Largest file, or decompressed content of a compressed file, in bytes."""
        return self.max_file_mb * MB

    def check_time(self) -> None:
        """Raise ``data.parse_timeout`` once the read has taken longer than the limit."""
        if _clock() - self.started > self.max_seconds:
            raise self._over_limit("data.parse_timeout")

    def too_many_rows(self) -> DataFormatError:
        return self._over_limit("data.too_many_rows")

    def too_many_columns(self, columns: int) -> DataFormatError:
        return self._over_limit("data.too_many_columns", columns=int(columns))

    def cell_too_long(
        self, chars: int, *, line: int | None = None, column: str | None = None
    ) -> DataFormatError:
        """``data.cell_too_long``: a cell of ``chars`` characters, above the limit; where it
        is, by its ``line`` of the file or its ``column``, when known."""
        where, params = "", {}
        if line is not None:
            where, params = f" (line {line:,})", {"line": int(line)}
        elif column is not None:
            where, params = f" (column '{column}')", {"column": str(column)}
        return self._over_limit("data.cell_too_long", where, params, chars=int(chars))

    def _over_limit(
        self,
        code: str,
        where: str = "",
        located: dict[str, Any] | None = None,
        **figures: Any,
    ) -> DataFormatError:
        """The error ``code`` of :data:`_OVER_LIMIT`: its message filled with the limit,
        ``where`` and ``figures``; its params the ``figures``, the limit (``limit``) and
        where it is (``located``), in that order."""
        name, message = _OVER_LIMIT[code]
        limit = getattr(self, name)
        text = message.format(limit=limit, where=where, **figures)
        return DataFormatError(text, code=code, **figures, limit=limit, **(located or {}))


def expands_too_much(limit_mb: int, *, factor: int = 1) -> DataFormatError:
    """``data.expands_too_large``: compressed content larger than ``limit_mb`` expanded,
    a limit that is ``factor`` times ``PRIVCORE_MAX_FILE_MB``."""
    source = "PRIVCORE_MAX_FILE_MB" if factor == 1 else f"{factor} × PRIVCORE_MAX_FILE_MB"
    return DataFormatError(
        f"The file expands to more than {limit_mb:,} MB when decompressed; this "
        f"installation accepts at most {limit_mb:,} MB ({source}).",
        code="data.expands_too_large",
        limit_mb=limit_mb,
    )
