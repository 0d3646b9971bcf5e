"""The bytes of a source: a path, bytes or a binary file object — its name, size, first
bytes (the sample every step sniffs), a buffer to parse, or all of it.

:data:`_SAMPLE_BYTES` is read from this module when a step runs, so that one value
serves the sample, its trimming, the header's reading and the archive's content."""

from __future__ import annotations

import io
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from privcore.data.loading.dataset import _empty_file
from privcore.errors import DataFormatError

_SAMPLE_BYTES = 1 << 16  # enough to sniff; a later decoding error re-reads the whole file


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


def _existing(path: Path) -> Path:
    """``path``, a file (``data.not_found`` when there is none)."""
    if not path.is_file():
        raise DataFormatError(f"No file at {path}.", code="data.not_found", path=str(path))
    return path


def _first_bytes(source: Any, path: Path | None) -> bytes:
    """The sample (:func:`_read_head`); ``data.empty_file`` when it is blank."""
    head = _read_head(source, path)
    if not head.strip():
        raise _empty_file()
    return head


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


def _first_line_end(data: bytes | str) -> int | None:
    """The offset just past the end of the first non-blank line of ``data`` (its line
    break); None when that line does not end in ``data``."""
    breaks = ("\n", "\r") if isinstance(data, str) else (b"\n", b"\r")
    start = len(data) - len(data.lstrip())
    ends = [at for at in (data.find(breaks[0], start), data.find(breaks[1], start)) if at >= 0]
    return min(ends) + 1 if ends else None
