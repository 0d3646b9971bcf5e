"""Property tests of the one CSV/TSV writer (:func:`privcore.data.writing.csv_text`)
over arbitrary text: CR, LF, CRLF, quotes, NUL, byte-order marks, tabs, delimiters and
every trigger character of the formula guard (OWASP "CSV Injection"), in cells and in
column names.

- Read back by a CSV reader and unguarded, the file is the table that was written:
  the same column names (as guarded), the same cells, the same number of rows.
- Read back by privcore's loader, it is the same table, for text the loader keeps as
  it is (a cell starting with a space may lose it; column names are stripped and may
  hold no line break; a missing marker reads as missing).
- No line of the file, however a program splits it (at CR, LF or CRLF), starts — after
  quotes and byte-order marks — with ``=`` ``+`` ``-`` ``@`` or tab, unless its first
  field is a plain number; no cell read back starts a formula.
"""

from __future__ import annotations

import csv
import io
import re

import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from privcore.data import load
from privcore.data.loading import MISSING_MARKERS
from privcore.data.writing import (
    PLAIN_NUMBER,
    csv_text,
    guard_formulas,
    guard_text,
    to_csv_bytes,
    unguard_formulas,
)

SPECIAL = ["\r", "\n", "\r\n", '"', "'", "\x00", "\ufeff", "\t", ",", ";", "|", " "]
TRIGGERS = ["=", "+", "-", "@", "\t", "\r"]
PLAIN = ["a", "x", "é", "字", "0", "1", ".", "e", "\u2028", "\x85"]

#: pieces of text: the special characters (CRLF as one piece) more often than chance
piece = st.one_of(
    st.sampled_from(SPECIAL + TRIGGERS + PLAIN),
    st.characters(codec="utf-8"),
)
text = st.lists(piece, max_size=8).map("".join)

SETTINGS = settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def _lines(data: str) -> list[str]:
    return re.split(r"\r\n|\r|\n", data)


def _check_no_formula(data: str, sep: str, cells: list[list[str]]) -> None:
    triggers = {"=", "+", "-", "@", "\t"} - {sep}
    for line in _lines(data):
        start = line.lstrip('"\ufeff')
        first = re.split(f'[{re.escape(sep)}"]', start, maxsplit=1)[0]
        assert not (start[:1] in triggers and not re.fullmatch(PLAIN_NUMBER, first)), line
    for row in cells:  # a quote first: the guard's, which spreadsheets show as text
        for cell in row:
            formula = re.match('[\ufeff"]*[=+\\-@\t\r]', cell)
            assert not (formula and not re.fullmatch(PLAIN_NUMBER, cell)), cell


@st.composite
def tables(draw, *, names, cells, min_columns=1):
    """A text table of 1–6 rows; sometimes one integer column (negative numbers too)."""
    width = draw(st.integers(min_columns, 3))
    columns = draw(st.lists(names, min_size=width, max_size=width, unique=True))
    rows = draw(st.integers(1, 6))
    frame = pd.DataFrame(
        {name: draw(st.lists(cells, min_size=rows, max_size=rows)) for name in columns},
        dtype=object,
    )
    if draw(st.booleans()):
        numbers = draw(st.lists(st.integers(-99, 99), min_size=rows, max_size=rows))
        frame.insert(draw(st.integers(0, width)), "n" + "".join(columns), numbers)
    return frame


def _expected(frame: pd.DataFrame) -> list[list[str]]:
    return [[str(v) for v in row] for row in frame.itertuples(index=False)]


@SETTINGS
@given(
    frame=tables(names=text.filter(bool).filter(lambda n: not n.startswith("\ufeff")), cells=text),
    sep=st.sampled_from([",", "\t"]),
)
def test_any_text_reads_back_the_same_and_starts_no_formula(frame, sep):
    written, _ = csv_text(frame, sep=sep)
    rows = list(csv.reader(io.StringIO(written, newline=""), delimiter=sep))
    assert len(rows) == 1 + len(frame)
    assert rows[0] == [guard_text(name) for name in frame.columns]
    _check_no_formula(written, sep, rows)
    back = pd.DataFrame(rows[1:], columns=list(frame.columns), dtype=object)
    unguard_formulas(back)
    assert _expected(back) == _expected(frame)
    # what pandas reads (the page downloads: bytes, with a byte-order mark if a NUL)
    data = to_csv_bytes(frame, sep=sep).decode("utf-8-sig")
    assert data == written
    if not data.split("\n", 1)[0].strip(" \t"):
        return  # one column named with spaces or tabs only: pandas skips the line as blank
    if frame.shape[1] == 1 and (frame.iloc[:, 0].astype(str).str.strip(" \t") == "").any():
        return  # one column and a cell of blanks: pandas skips its line as blank too
    read = pd.read_csv(io.StringIO(data), sep=sep, dtype=str, keep_default_na=False)
    assert list(read.columns) == rows[0] and len(read) == len(frame)


@SETTINGS
@given(names=text)
def test_a_name_is_guarded_like_a_cell_and_unguarded_exactly(names):
    frame = pd.DataFrame({"c": [names]}, dtype=object)
    guarded = guard_formulas(frame)[0]
    assert guarded["c"][0] == guard_text(names)
    unguard_formulas(guarded)
    assert guarded["c"][0] == names


# The loader keeps a cell as it is unless it starts with a space (skipped after a
# delimiter when the file has ", x"), is a missing marker, or every cell of its column is
# a number; column names are stripped and hold no line break, and are not unguarded.
loader_cell = text.filter(lambda c: c and not c.startswith(" ") and c not in MISSING_MARKERS)
loader_name = st.text(alphabet="abcxyzé字_", min_size=1, max_size=6)


@SETTINGS
@given(
    frame=tables(names=loader_name, cells=loader_cell, min_columns=2),
    sep=st.sampled_from([",", "\t"]),
)
def test_privcore_reads_what_it_wrote(frame, sep):
    text_columns = [c for c in frame.columns if frame[c].dtype == object]
    frame.loc[0, text_columns] = "x" + frame.loc[0, text_columns].astype(str)  # text
    data = to_csv_bytes(frame, sep=sep)
    dataset = load(data, filename="release.tsv" if sep == "\t" else "release.csv")
    back = dataset.frame
    assert list(back.columns) == list(frame.columns)
    assert len(back) == len(frame)
    assert _expected(back) == _expected(frame)
    assert dataset.delimiter == sep
    _check_no_formula(data.decode("utf-8-sig"), sep, [])
