"""Text files built to mislead the reader, round three: a header wider than the sniffing
sample (once reported as a made-up duplicate name), a cell of tens of megabytes
(``PRIVCORE_MAX_CELL_CHARS``, measured on the bytes before the file is parsed), and
lines Python's csv module cannot split. Each is read right or refused with a clear
DataFormatError, never a traceback — in the loader and so on the command line.
"""

from __future__ import annotations

import csv
import gzip
import io
from pathlib import Path

import pandas as pd
import pytest

from privcore.cli import main
from privcore.data import load
from privcore.data.loading import sources
from privcore.errors import DataFormatError

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = sources._SAMPLE_BYTES


def error_of(source, **kw) -> DataFormatError:
    with pytest.raises(DataFormatError) as info:
        load(source, **kw)
    return info.value


def wide_csv(columns: int, *, name_width: int = 0, rows: int = 2) -> bytes:
    names = [f"c{i}".ljust(name_width, "x") for i in range(columns)]
    lines = [",".join(names)]
    lines += [",".join(str(r * columns + i) for i in range(columns)) for r in range(rows)]
    return ("\n".join(lines) + "\n").encode()


@pytest.fixture(autouse=True)
def default_limits(monkeypatch):
    for name in ("PRIVCORE_MAX_COLUMNS", "PRIVCORE_MAX_CELL_CHARS", "PRIVCORE_MAX_FILE_MB"):
        monkeypatch.delenv(name, raising=False)


# --------------------------------------------------------------------------- wide headers


def test_a_hundred_thousand_columns_are_too_many_not_a_duplicate():
    data = wide_csv(100_000, rows=1)
    assert data.index(b"\n") > SAMPLE  # the header goes on past the sample
    err = error_of(data, filename="wide.csv")
    assert err.code == "data.too_many_columns"
    assert err.params == {"columns": 100_000, "limit": 500}
    assert "appears twice" not in str(err) and "100000 columns" in str(err)


def test_a_header_longer_than_any_within_the_limits_is_counted_not_read(monkeypatch):
    monkeypatch.setenv("PRIVCORE_MAX_COLUMNS", "100")  # the demo's limit
    err = error_of(wide_csv(100_000, rows=1), filename="wide.csv")
    assert err.code == "data.too_many_columns"
    assert err.params["limit"] == 100 and err.params["more_than"] > 100
    assert "more than" in str(err) and "PRIVCORE_MAX_COLUMNS" in str(err)


def test_the_column_count_comes_before_the_names():
    """600 columns named twice each: the limit is named, not a duplicate."""
    header = ",".join(["same"] * 600)
    err = error_of(f"{header}\n{','.join(['1'] * 600)}\n".encode(), filename="w.csv")
    assert err.code == "data.too_many_columns" and err.params["columns"] == 600


@pytest.mark.parametrize("packed", ["plain", "gzip", "utf-16"])
def test_a_wide_header_within_the_limits_loads_whole(packed):
    """400 names of 300 characters: a 120 KB header, twice the sniffing sample."""
    data = wide_csv(400, name_width=300, rows=3)
    assert data.index(b"\n") > SAMPLE
    name = "wide.csv"
    if packed == "gzip":
        data, name = gzip.compress(data), "wide.csv.gz"
    elif packed == "utf-16":
        data = data.decode().encode("utf-16")
    dataset = load(data, filename=name)
    assert dataset.frame.shape == (3, 400)
    assert list(dataset.frame.columns) == [f"c{i}".ljust(300, "x") for i in range(400)]
    assert dataset.frame.iloc[2, 399] == 2 * 400 + 399
    assert dataset.delimiter == ","


def test_a_wide_header_beyond_the_sample_from_a_path_and_a_file_object(tmp_path):
    data = wide_csv(300, name_width=250)
    path = tmp_path / "wide.csv"
    path.write_bytes(data)
    assert load(path).frame.shape == (2, 300)
    assert load(io.BytesIO(data), filename="wide.csv").frame.shape == (2, 300)


def test_a_first_line_without_delimiters_past_every_header_is_a_long_name():
    data = b"x" * (3 * 1024 * 1024) + b"\n1\n"
    err = error_of(data, filename="one.csv")
    assert err.code == "data.column_name_too_long" and err.params["column"] == 1


# --------------------------------------------------------------------------- long cells


@pytest.mark.parametrize("quoted", [False, True])
def test_a_45_mib_cell_is_refused_before_parsing(quoted, tmp_path):
    cell = b"x" * (45 * 1024 * 1024)
    if quoted:
        cell = b'"' + cell + b'"'
    path = tmp_path / "cell.csv"
    path.write_bytes(b"id,text\n1,short\n2," + cell + b"\n3,short\n")
    err = error_of(path)
    assert err.code == "data.cell_too_long"
    assert err.params == {"chars": 45 * 1024 * 1024, "limit": 100_000, "line": 3}
    assert "PRIVCORE_MAX_CELL_CHARS" in str(err)


def test_the_cell_limit_is_exact_in_characters_not_bytes(monkeypatch):
    monkeypatch.setenv("PRIVCORE_MAX_CELL_CHARS", "50")
    name = "a_column_name_longer_than_fifty_characters_is_fine_here"
    at_limit = "中" * 50  # 150 bytes, 50 characters
    frame = load(f'id,{name}\n1,{at_limit}\n2,"{"y" * 50}"\n'.encode(), filename="c.csv").frame
    assert frame[name].tolist() == [at_limit, "y" * 50]
    err = error_of(f"id,text\n1,{'中' * 51}\n".encode(), filename="c.csv")
    assert err.code == "data.cell_too_long" and err.params["chars"] == 51
    assert err.params["line"] == 2


def test_a_long_quoted_cell_holding_delimiters_and_line_breaks_is_refused(monkeypatch):
    monkeypatch.setenv("PRIVCORE_MAX_CELL_CHARS", "1000")
    cell = ",\n".join(["word"] * 400)  # no run of 1,000 bytes without a delimiter
    err = error_of(f'id,notes\n1,"{cell}"\n2,ok\n'.encode(), filename="q.csv")
    assert err.code == "data.cell_too_long"
    assert err.params == {"chars": len(cell), "limit": 1000, "column": "notes"}


def test_the_bundled_huge_field_is_above_the_default_limit():
    err = error_of(ROOT / "tests" / "data" / "bad" / "huge_field.csv")
    assert err.code == "data.cell_too_long"
    assert err.params == {"chars": 2_000_000, "limit": 100_000, "column": "notes"}


def test_many_long_cells_under_the_limit_load(monkeypatch):
    monkeypatch.setenv("PRIVCORE_MAX_CELL_CHARS", "2000")
    text = "長" * 1500  # 4,500 bytes a cell: each one measured, each one under the limit
    data = ("id,text\n" + "".join(f"{i},{text}\n" for i in range(2000))).encode()
    frame = load(data, filename="long.csv").frame
    assert frame.shape == (2000, 2) and (frame["text"] == text).all()


def test_the_cell_limit_holds_for_other_formats_after_reading(monkeypatch, tmp_path):
    monkeypatch.setenv("PRIVCORE_MAX_CELL_CHARS", "1000")
    frame = pd.DataFrame({"id": [1, 2], "text": ["short", "z" * 2000]})
    frame.to_parquet(tmp_path / "t.parquet")
    frame.to_json(tmp_path / "t.jsonl", orient="records", lines=True)
    frame.to_excel(tmp_path / "t.xlsx", index=False)
    for name in ("t.parquet", "t.jsonl", "t.xlsx"):
        err = error_of(tmp_path / name)
        assert err.code == "data.cell_too_long", name
        assert err.params == {"chars": 2000, "limit": 1000, "column": "text"}


# --------------------------------------------------------------------------- csv errors


def test_a_line_break_inside_an_unquoted_field_is_a_ragged_row():
    """A carriage return in an unquoted field, after a quoted cell: csv once raised
    "new-line character seen in unquoted field"."""
    err = error_of(b'a,b\n"q",\nx\ry,2\n', filename="cr.csv")
    assert err.code == "data.ragged" and err.params["line"] == 3


def test_a_nul_byte_after_the_first_bytes_does_not_break_the_reader():
    data = b"a,b\n" + b"1,2\n" * 3000 + b'"q",\nx\x00y,2\n'
    try:
        frame = load(data, filename="nul.csv").frame
    except DataFormatError as err:  # refused with words is as good as read
        assert err.code.startswith("data.")
    else:
        assert frame.shape == (3002, 2)


@pytest.fixture
def low_field_limit(monkeypatch):
    """csv's field limit back at its default, and kept there: as if other code had set
    it and the loader could not raise it."""
    previous = csv.field_size_limit(131_072)
    monkeypatch.setattr(csv, "field_size_limit", lambda *limit: 131_072)
    monkeypatch.setenv("PRIVCORE_MAX_CELL_CHARS", "1000000")
    yield
    monkeypatch.undo()
    csv.field_size_limit(previous)


def long_quoted_field() -> bytes:
    """A quoted field of 200,000 characters, and a row whose last cell is missing (the
    loader then re-reads the rows with csv to find a short one)."""
    return b'id,text\n1,"' + b"t" * 200_000 + b'"\n2,\n'


def test_a_csv_error_becomes_words(low_field_limit):
    """csv's field limit is one for the process: left low (by other code), a long field
    makes csv raise `_csv.Error`, which the loader words as ``data.unreadable``."""
    err = error_of(long_quoted_field(), filename="field.csv")
    assert err.code == "data.unreadable" and "field larger than field limit" in str(err)


def one_line_error(capsys, argv: list[str]) -> str:
    code = main(argv)
    captured = capsys.readouterr()
    assert code == 2, (code, captured.err)
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
    return captured.err


@pytest.mark.parametrize("bad", ["wide", "cell", "csv_error"])
def test_measure_on_a_bad_file_exits_2_with_words(capsys, tmp_path, request, bad):
    path = tmp_path / "bad.csv"
    if bad == "wide":
        path.write_bytes(wide_csv(100_000, rows=1))
        words = "100000 columns"
    elif bad == "cell":
        path.write_bytes(b"ZIP,Age\n1," + b"9" * (45 * 1024 * 1024) + b"\n")
        words = "PRIVCORE_MAX_CELL_CHARS"
    else:
        request.getfixturevalue("low_field_limit")
        path.write_bytes(long_quoted_field().replace(b"id,text", b"ZIP,Age"))
        words = "could not be read as a table"
    good = tmp_path / "good.csv"
    good.write_text("ZIP,Age\n1,2\n3,4\n")
    for original, release in ((path, good), (good, path)):
        argv = ["measure", "--original", str(original), "--release", str(release)]
        message = one_line_error(capsys, [*argv, "--qi", "ZIP", "--sa", "Age"])
        assert words in message
