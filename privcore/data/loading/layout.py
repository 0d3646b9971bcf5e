"""The loader's rules for engines that read a text file themselves (DuckDB, Spark): the
layout of the file (:func:`text_layout`) and the values the loader gives its cells
(:func:`text_cells`)."""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from privcore.config import limits
from privcore.data.budget import ReadBudget
from privcore.data.loading.cleaning import _finish_frame
from privcore.data.loading.dataset import MISSING_MARKERS
from privcore.data.loading.detect import _trim_partial_char, detect_encoding, sniff_delimiter
from privcore.data.loading.header import (
    _check_header,
    _header_record,
    _leading_zero_columns,
    _sample_lines,
    _skips_space,
    _whole_header,
)
from privcore.data.loading.sources import _existing, _first_bytes
from privcore.data.writing import csv_text, unguard_formulas


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
    path = _existing(Path(path))
    head = _first_bytes(None, path)
    encoding = detect_encoding(head)
    head = _whole_header(None, path, head, ReadBudget.from_limits(limits()))
    if encoding == "utf-16":
        text_head = head.decode("utf-16", errors="replace")
    else:
        text_head = _trim_partial_char(head).decode(encoding, errors="replace")
    lines = _sample_lines(text_head)
    delimiter = sniff_delimiter(lines)
    names = _check_header(_header_record(lines, delimiter), first_may_be_blank=True)
    text_columns = _leading_zero_columns(text_head, delimiter, names)
    skip_space = _skips_space(lines, delimiter)
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
