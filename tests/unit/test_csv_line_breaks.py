"""Line breaks inside cells of every CSV/TSV privcore writes (OWASP "CSV Injection"):
a field holding a CR or an LF is quoted, and the formula guard's quote goes after every
line break inside a cell that a trigger character follows, so that a spreadsheet that
ends a row there starts no formula. The bytes are pinned by hand, from the rules of
:mod:`privcore.data.writing`.
"""

from __future__ import annotations

import csv
import io
import json
import re

import numpy as np
import pandas as pd
import pytest

from privcore import history
from privcore.cli import main
from privcore.data import load, save, to_csv_bytes
from privcore.data.hierarchy import Hierarchy
from privcore.data.loading import TextLayout, text_cells
from privcore.data.writing import PLAIN_NUMBER, csv_text, guard_formulas, unguard_formulas

#: cell -> what the guard makes of it (hand-made from the two rules)
CELLS = {
    "\r=2+2": "'\r'=2+2",  # start rule, then the line-break rule after the CR
    "x\r=1+1": "x\r'=1+1",  # a CR inside a cell
    "a\n@b": "a\n'@b",
    "=1": "'=1",
    "-2": "-2",  # a plain number: no formula
    "p\r\nq": "p\r\nq",  # a CRLF with nothing after it that starts a formula
    "r\r\n=s": "r\r\n'=s",  # the LF of the CRLF is the last break before the =
    "t\n-2": "t\n'-2",  # after a line break even a number is guarded
    'u\n"=v': "u\n'\"=v",  # quotes before the trigger count (OWASP)
    "w\n\t=x": "w\n'\t=x",
    "y\n'=z": "y\n''=z",  # the guard's own quote: one more, so unguard is exact
    "\ufeff=bom": "'\ufeff=bom",  # a byte-order mark, which a reader drops at a file's start
    "b\r\r=c": "b\r\r'=c",  # an empty line in between
    "d\n\n": "d\n\n",
    "plain text": "plain text",
}


def _lines(data: str) -> list[str]:
    """The lines of ``data`` however a program splits it: at CR, LF or CRLF."""
    return re.split(r"\r\n|\r|\n", data)


def _formula_lines(data: str, sep: str) -> list[str]:
    """Lines that start (after quotes and byte-order marks) like a formula; a first
    field that is a plain number is none."""
    triggers = {"=", "+", "-", "@", "\t"} - {sep}
    bad = []
    for line in _lines(data):
        text = line.lstrip('"\ufeff')
        first = re.split(f'[{re.escape(sep)}"]', text, maxsplit=1)[0]
        if text[:1] in triggers and not re.fullmatch(PLAIN_NUMBER, first):
            bad.append(line)
    return bad


def test_the_guard_of_line_breaks_is_exact_and_inverts():
    frame = pd.DataFrame({"note": list(CELLS)})
    guarded, changed = guard_formulas(frame)
    assert guarded["note"].tolist() == list(CELLS.values())
    assert changed == sum(new != old for old, new in CELLS.items())
    back = guarded.copy()
    assert unguard_formulas(back) == changed
    pd.testing.assert_frame_equal(back, frame)


def test_csv_bytes_quote_every_line_break_and_guard_after_it():
    frame = pd.DataFrame(
        {
            "note": ["\r=2+2", "x\r=1+1", "a\n@b", "=1", "-2", "p\r\nq", "r\r\n=s"],
            "n": [1, -2, 3, 4, 5, 6, 7],
        }
    )
    data = to_csv_bytes(frame)
    assert data == (
        b"note,n\n"
        b"\"'\r'=2+2\",1\n"
        b'"x\r\'=1+1",-2\n'
        b'"a\n\'@b",3\n'
        b"'=1,4\n"
        b"-2,5\n"
        b'"p\r\nq",6\n'
        b'"r\r\n\'=s",7\n'
    )
    assert _formula_lines(data.decode(), ",") == []
    # the old bytes: a lone CR unquoted, so a reader ended the row there
    old = b"note\n'\r=2+2\n"
    assert len(pd.read_csv(io.BytesIO(old), dtype=str)) == 2
    rows = list(csv.reader(io.StringIO(data.decode(), newline="")))
    assert len(rows) == 1 + len(frame)
    back = load(data, filename="release.csv").frame
    pd.testing.assert_frame_equal(back, frame, check_dtype=False)


def test_tsv_quotes_tabs_and_line_breaks():
    frame = pd.DataFrame({"a": ["\t=1", "x\ty", "u\rv"], "b": ["=2", "-3", "k"]})
    text, changed = csv_text(frame, sep="\t")
    assert text == 'a\tb\n"\'\t=1"\t\'=2\n"x\ty"\t-3\n"u\rv"\tk\n'
    assert changed == 2
    back = load(text.encode(), filename="release.tsv").frame
    pd.testing.assert_frame_equal(back, frame, check_dtype=False)


def test_column_names_with_line_breaks_are_quoted_and_guarded():
    frame = pd.DataFrame({"=a\nb": ["1x"], "c\r@d": ["y"], "e": ['"=f']})
    text, changed = csv_text(frame)
    assert text == '"\'=a\nb","c\r\'@d",e\n1x,y,"\'""=f"\n'
    assert changed == 3
    assert _formula_lines(text, ",") == []
    header = next(csv.reader(io.StringIO(text, newline="")))
    assert header == ["'=a\nb", "c\r'@d", "e"]


def test_a_nul_character_reads_back_through_a_byte_order_mark(tmp_path):
    frame = pd.DataFrame({"a": ["x\x00y", "=\x00"], "b": ["1z", "2z"]})
    data = to_csv_bytes(frame)
    assert data == b"\xef\xbb\xbfa,b\nx\x00y,1z\n'=\x00,2z\n"
    pd.testing.assert_frame_equal(load(data, filename="t.csv").frame, frame, check_dtype=False)
    saved = save(frame, tmp_path / "t.csv")
    assert saved.path.read_bytes() == data and saved.guarded_cells == 1
    assert to_csv_bytes(frame.replace("\x00", "-", regex=True))[:3] == b"a,b"  # no NUL, no mark


def test_the_engines_text_cells_keep_a_carriage_return():
    layout = TextLayout("utf-8", ",", ("a",), (), False)
    cells = pd.Series(["x\r'=1", None, "'=2", "y"], dtype=object)
    back = text_cells(cells, layout, "a")
    assert len(back) == 4
    assert back[0] == "x\r=1" and pd.isna(back[1]) and back[2:].tolist() == ["=2", "y"]


def test_hierarchy_export_quotes_and_guards_line_breaks():
    hierarchy = Hierarchy([["a\r=1", "=g", "*"], ["b", "=g", "*"]], name="h")
    text = hierarchy.to_arx_csv()
    assert text == "\"a\r'=1\";'=g;*\nb;'=g;*\n"
    again = Hierarchy.read_arx(text.encode("utf-8"), name="h")
    assert again.to_frame().equals(hierarchy.to_frame())


def test_history_export_quotes_line_breaks():
    history.record_run("measure", params={}, results={}, dataset={"name": "x\r=1+1", "rows": 3})
    text = history.export_csv()
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    assert len(rows) == 1
    assert rows[0]["dataset_name"] == "x\r'=1+1"
    assert _formula_lines(text, ",") == []


NOTES = ["\r=2+2", "x\r=1+1", "a\n@SUM(1)", "p\r\nq"]


@pytest.fixture
def broken_table(tmp_path):
    """40 rows whose note column holds line breaks before formulas."""
    rng = np.random.default_rng(5)
    frame = pd.DataFrame(
        {
            "age": rng.integers(20, 60, 40),
            "disease": rng.choice(["flu", "cold", "ulcer"], 40),
            "note": [NOTES[i % 4] for i in range(40)],
        }
    )
    path = tmp_path / "table.csv"
    save(frame, path, formula_guard=False)
    assert len(load(path).frame) == 40
    return path, frame


def _check_release(out, rows: int) -> pd.DataFrame:
    text = out.read_bytes().decode("utf-8")
    assert _formula_lines(text, ",") == []
    assert len(list(csv.reader(io.StringIO(text, newline="")))) == rows + 1
    assert len(pd.read_csv(out, dtype=str)) == rows
    back = load(out).frame
    assert len(back) == rows
    return back


def test_cli_anonymize_out_quotes_and_guards_line_breaks(broken_table, tmp_path, capsys):
    path, frame = broken_table
    out = tmp_path / "release.csv"
    argv = ["anonymize", str(path), "--qi", "age", "--sa", "disease", "--identifiers", ""]
    argv += ["--algorithm", "mondrian", "--k", "4", "--keep-order", "--out", str(out)]
    assert main([*argv, "--quiet"]) == 0
    assert capsys.readouterr().err.startswith("30 cells ")  # every note but "p\r\nq"
    written = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert written["note"].tolist() == guard_formulas(frame)[0]["note"].tolist()
    back = _check_release(out, 40)
    assert back["note"].tolist() == frame["note"].tolist()


def test_cli_dp_release_out_quotes_and_guards_line_breaks(tmp_path, capsys):
    rng = np.random.default_rng(7)
    frame = pd.DataFrame(
        {
            "sex": rng.choice(["\r=2+2", "x\r=1+1"], 60),
            "city": rng.choice(["a\n@SUM(1)", "p\r\nq", "plain"], 60),
            "salary": rng.choice(["low", "high"], 60),
        }
    )
    path, out = tmp_path / "people.csv", tmp_path / "synthetic.csv"
    save(frame, path, formula_guard=False)
    argv = ["dp", "release", str(path), "--qi", "sex,city", "--sa", "salary"]
    assert main([*argv, "--epsilon", "1", "--out", str(out), "--json"]) == 0
    records = json.loads(capsys.readouterr().out)["records"]
    back = _check_release(out, records)
    assert set(back["sex"]) <= set(frame["sex"]) and set(back["city"]) <= set(frame["city"])
    assert set(back["sex"]) == {"\r=2+2", "x\r=1+1"}  # both drawn (seeded)
    data = out.read_bytes()
    assert b"\"'\r'=2+2\"," in data and b'"x\r\'=1+1",' in data


@pytest.fixture(scope="module")
def stop_spark():
    """The Spark session a test of this module started, stopped at the module's end."""
    yield
    from privcore.engines.spark_engine import spark_available

    if spark_available() is None:
        from pyspark.sql import SparkSession

        session = SparkSession.getActiveSession()
        if session is not None:
            session.stop()


@pytest.mark.usefixtures("stop_spark")
@pytest.mark.parametrize("name", ["pandas", "duckdb", "spark"])
def test_every_engine_quotes_and_guards_line_breaks(name, tmp_path):
    """DuckDB and Spark write a large release themselves: with the same rules (and
    Spark keeps the control characters and spaces around a cell, which it would strip,
    turning ``"\\x0b=2"`` into a formula)."""
    from privcore.engines import engine
    from privcore.engines.spark_engine import spark_available

    if name == "spark" and spark_available() is not None:
        pytest.skip(f"Spark engine not tested: {spark_available()}")
    frame = pd.DataFrame(
        {
            "id": ["p1", "p2", "p3", "p4"],
            "age": [30, 45, 30, 47],
            "=note": ["x\r=1+1", "\x0b=2", "a\n@SUM(1)", "p\r\nq"],
        }
    )
    source, out = tmp_path / "t.csv", tmp_path / "release.csv"
    save(frame, source, formula_guard=False)
    e = engine(name)
    table = e.scan(source)
    grouped = e.grouped(table, ["age"])
    ages = [int(a) for a in grouped.frame["age"]]
    released = pd.DataFrame({"age": [f"{a}\r-{a}" for a in ages]})
    assert e.write(table, grouped, released, out, drop=["id"], shuffle_seed=None) == 4
    text = out.read_bytes().decode("utf-8")
    assert _formula_lines(text, ",") == []
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert rows == [
        ["age", "'=note"],
        ["30\r'-30", "x\r'=1+1"],
        ["45\r'-45", "\x0b=2"],
        ["30\r'-30", "a\n'@SUM(1)"],
        ["47\r'-47", "p\r\nq"],
    ]
    back = load(out).frame
    assert back["age"].tolist() == ["30\r-30", "45\r-45", "30\r-30", "47\r-47"]
    assert back["=note"].tolist() == frame["=note"].tolist()  # the name unguarded too


def test_guarded_column_names_read_back_as_they_were():
    from privcore.data.loading import load
    from privcore.data.writing import guard_text, to_csv_bytes, unguard_text

    frame = pd.DataFrame({"=x": ["a"], "'=y": ["b"], "+1": ["c"], "@a": ["=1"], "ok": ["d"]})
    written = to_csv_bytes(frame)
    assert written.splitlines()[0] == b"'=x,''=y,+1,'@a,ok"  # +1 is a plain number
    read = load(written, filename="t.csv").frame
    assert list(read.columns) == ["=x", "'=y", "+1", "@a", "ok"]
    for text in ("=x", "'=x", "''=x", "a\n=b", "-2", "x", "'x", "\t=1"):
        assert unguard_text(guard_text(text)) == text


def test_a_name_that_unguards_to_a_duplicate_is_refused():
    from privcore.data.loading import load
    from privcore.errors import DataFormatError

    with pytest.raises(DataFormatError) as caught:
        load(b"'=x,=x\n1,2\n", filename="t.csv")
    assert caught.value.code == "data.duplicate_column"
