"""An engine's own errors in words: what DuckDB or Spark raise (or the operating system
while they read or write) becomes a :class:`~privcore.errors.DataFormatError` whose
message is the engine's first line — shown by a page, one line on the command line,
its code kept by the history."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from typing import Any

from privcore.errors import DataFormatError, PrivcoreError

__all__ = ["engine_errors"]

_ENGINE_MODULES = ("duckdb", "_duckdb", "pyspark", "py4j")


@contextmanager
def engine_errors(engine: Any = None) -> Iterator[None]:
    """An engine's own error (DuckDB, Spark) as a :class:`DataFormatError` whose message
    is the engine's first line: the page shows it, the history keeps its code. With an
    ``engine`` that limits its jobs' time (Spark: ``time_limited``), the block runs
    within that limit."""
    limited = getattr(engine, "time_limited", None)
    with limited() if limited is not None else nullcontext(), _in_words():
        yield


@contextmanager
def _in_words() -> Iterator[None]:
    try:
        yield
    except PrivcoreError:
        raise
    except OSError as exc:
        raise DataFormatError(
            f"The file could not be read or written: {exc.strerror or exc}.",
            code="engines.io",
        ) from exc
    except Exception as exc:
        if type(exc).__module__.split(".")[0] not in _ENGINE_MODULES:
            raise
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise DataFormatError(f"The engine stopped: {first}", code="engines.failed") from exc
