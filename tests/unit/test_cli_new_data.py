"""The command line on a table nobody prepared: suggested hierarchies
(``anonymize --auto-hierarchies``) and a CSV written with its index."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from privcore import history
from privcore.cli import main
from privcore.data import load
from tests.unit.test_hierarchy_suggestions import _generated_tables

HOSPITAL = Path(__file__).resolve().parents[2] / "assets" / "hospital"


def _anonymize(table: Path, out: Path, *more: str) -> list[str]:
    return [
        "anonymize",
        str(table),
        "--qi",
        "age,zip,sex",
        "--sa",
        "disease",
        "--out",
        str(out),
        "--quiet",
        *more,
    ]


def test_auto_hierarchies_makes_every_full_domain_algorithm_run(tmp_path, capsys):
    table = tmp_path / "patients.csv"
    _generated_tables()[0].to_csv(table, index=False)
    out = tmp_path / "release.csv"

    # without hierarchies the full-domain algorithms stop and say why
    assert main(_anonymize(table, out, "--algorithm", "datafly")) == 2
    err = capsys.readouterr().err
    assert "age, zip, sex have none: give --hierarchy COLUMN=FILE, or --auto-hierarchies" in err

    for algorithm in ("datafly", "samarati", "incognito", "optimal", "kaca"):
        code = main(
            _anonymize(table, out, "--algorithm", algorithm, "--auto-hierarchies", "--json")
        )
        captured = capsys.readouterr()
        assert code == 0, captured.err
        report = json.loads(captured.out)
        assert report["satisfied"] and report["k"] >= 5
        # each suggested hierarchy is named on stderr with its kind and why
        err = captured.err
        assert "suggested hierarchy for 'age' (Numeric intervals, height 6)" in err
        assert "intervals of width 5" in err
        assert "suggested hierarchy for 'zip' (Masking from the right" in err
        assert "suggested hierarchy for 'sex' (Value, then *" in err
    released = load(out).frame
    assert len(released) == 400 and released["age"].astype(str).str.contains(r"\[|\*").all()


def test_a_given_hierarchy_is_kept_and_only_the_others_are_suggested(tmp_path, capsys):
    out = tmp_path / "release.csv"
    code = main(
        [
            "anonymize",
            str(HOSPITAL / "hospital.csv"),
            "--qi",
            "ZIP,Age",
            "--sa",
            "Disease",
            "--hierarchy",
            f"ZIP={HOSPITAL / 'hospital_hierarchy_ZIP.csv'}",
            "--auto-hierarchies",
            "--algorithm",
            "datafly",
            "--k",
            "3",
            "--out",
            str(out),
            "--record",
            "--quiet",
        ]
    )
    err = capsys.readouterr().err
    assert code == 0, err
    assert "suggested hierarchy for 'Age'" in err and "'ZIP'" not in err
    params = history.list_runs(kind="anonymize")[0]["params"]
    assert params["suggested_hierarchies"] == ["Age"]
    assert params["hierarchy_files"] == {"ZIP": "hospital_hierarchy_ZIP.csv"}


def test_a_csv_written_with_its_index_is_read_and_the_index_dropped(tmp_path, capsys):
    table = tmp_path / "with_index.csv"
    _generated_tables()[0].to_csv(table)  # pandas' default: the index, first header empty
    assert main(["profile", str(table), "--json"]) == 0
    captured = capsys.readouterr()
    profiled = [c["column"] for c in json.loads(captured.out)["profile"]]
    assert profiled == ["age", "zip", "sex", "disease"]
    assert "dropped the unnamed first column" in captured.err
    assert "row numbers 0, 1, 2" in captured.err

    out = tmp_path / "release.csv"
    code = main(_anonymize(table, out, "--algorithm", "mondrian", "--identifiers", ""))
    assert code == 0, capsys.readouterr().err
    assert list(pd.read_csv(out, nrows=1).columns) == ["age", "zip", "sex", "disease"]


@pytest.mark.parametrize("content", [b",a,b\n3,x,1\n7,y,2\n"])
def test_an_unnamed_column_that_is_no_running_index_is_kept(tmp_path, capsys, content):
    table = tmp_path / "filtered.csv"
    table.write_bytes(content)
    assert main(["profile", str(table), "--json"]) == 0
    captured = capsys.readouterr()
    assert [c["column"] for c in json.loads(captured.out)["profile"]] == ["index", "a", "b"]
    assert "read as 'index'" in captured.err
