"""Delimited text files on an engine that reads them itself (DuckDB, Spark): the loader's
layout and values (:func:`privcore.data.loading.text_layout`,
:func:`~privcore.data.loading.text_cells`), and a UTF-8 copy of a file in another
encoding."""

from __future__ import annotations

import codecs
from functools import partial
from pathlib import Path

from privcore.data.loading import TEXT_FORMATS, TextLayout, text_cells
from privcore.engines.base import Converter

_COPY_CHUNK = 1 << 24  # bytes decoded at a time


def is_text_file(source: str | Path) -> bool:
    """A CSV/TSV/TXT file, by its extension (a ``.gz`` text file is not read by the
    engines: its size is not known until it is decompressed)."""
    return Path(str(source)).suffix.lower().lstrip(".") in TEXT_FORMATS


def text_converters(layout: TextLayout) -> dict[str, Converter]:
    """Every column of a text file converted as the loader converts it."""
    return {name: partial(text_cells, layout=layout, column=name) for name in layout.names}


def utf8_copy(path: Path, encoding: str, directory: Path) -> Path:
    """``path`` (text in ``encoding``) re-encoded as UTF-8 into ``directory``, streamed in
    chunks of 16 MB (an incremental decoder keeps characters split between chunks)."""
    target = Path(directory) / f"{path.stem}.utf8{path.suffix}"
    decoder = codecs.getincrementaldecoder(encoding)(errors="strict")
    with path.open("rb") as source, target.open("w", encoding="utf-8", newline="") as sink:
        while chunk := source.read(_COPY_CHUNK):
            sink.write(decoder.decode(chunk))
        sink.write(decoder.decode(b"", final=True))
    return target
