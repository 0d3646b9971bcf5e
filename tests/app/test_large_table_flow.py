"""AppTest: the dead ends of the large-table flow (a table opened in an engine) — the file
to publish written shuffled with a copy in the table's order for the assessment (one run,
one search, one history row per press), the release file offered again after a second
run, an empty release file in words, the way to a shuffled file named on the Report page,
no population table "above", and the Anonymize button named as it reads."""

from __future__ import annotations

import pandas as pd
import pytest

from privcore import history
from privcore.data import load_sample
from tests.app.conftest import ROOT, new_app, no_exceptions
from ui.common.i18n import escape_md

ROWS = 600


@pytest.fixture
def parquet_file(tmp_path) -> str:
    frame = load_sample("adult")[0].frame.head(ROWS).reset_index(drop=True)
    path = tmp_path / "adult_600.parquet"
    frame.to_parquet(path, index=False)
    return str(path)


def confirmed(path: str):
    """The table opened in DuckDB, its suggested roles and hierarchies confirmed."""
    at = new_app("data_roles.py")
    at.text_input(key="lt_path").input(path)
    at.button(key="lt_open").click().run()
    key = at.session_state["workbench"].active
    at.button(key=f"lt_use_all::{key}").click().run()
    at.button(key=f"confirm::{key}").click().run()
    no_exceptions(at)
    return at, key


def go(at, page: str):
    at.switch_page(str(ROOT / "pages" / page))
    at.run()
    no_exceptions(at)
    return at


def errors(at) -> list[str]:
    return [e.value for e in at.error]


def anonymize(at, key: str, out, *, keep_order: bool):
    go(at, "anonymize.py")
    at.selectbox(key="an_algorithm").set_value("datafly").run()
    at.text_input(key=f"an_out::{key}::datafly").input(str(out))
    box = at.checkbox(key=f"an_keep_order::{key}")
    box.check() if keep_order else box.uncheck()
    at.run()
    return at


def test_the_file_to_publish_is_shuffled_and_its_copy_in_order_is_assessed(parquet_file, tmp_path):
    at, key = confirmed(parquet_file)
    out = tmp_path / "published.csv"
    anonymize(at, key, out, keep_order=False)
    # the words name the button as it reads, in both languages
    assert any("“Anonymize”" in i.value for i in at.info)
    assert not any("Run" in i.value for i in at.info)
    # next to the shuffle choice: the copy in the table's order, for the assessment
    assert any("copy in the table's order" in c.value for c in at.caption)
    at.session_state["lang"] = "zh"
    at.run()
    assert any("“匿名化”" in i.value for i in at.info)
    at.session_state["lang"] = "en"
    at.run()
    at.button(key="an_run").click().run()
    no_exceptions(at)
    assert errors(at) == []
    copy = tmp_path / "published_kept_order.csv"
    shuffled, ordered = pd.read_csv(out), pd.read_csv(copy)
    assert len(shuffled) == len(ordered) == ROWS
    columns = list(ordered.columns)
    assert (
        shuffled.sort_values(columns)
        .reset_index(drop=True)
        .equals(ordered.sort_values(columns).reset_index(drop=True))
    )
    assert any(str(copy) in element.value for element in at.text)

    # Privacy level: the file to publish offered, refused by position, its copy one click away
    go(at, "privacy_level.py")
    assert at.text_input(key=f"pl_release_file::{key}").value == str(out)
    at.button(key="pl_measure").click().run()
    assert any("Measure its copy in the table's order" in e for e in errors(at))
    at.toggle(key=f"pl_use_copy::{key}").set_value(True).run()
    no_exceptions(at)
    assert any(str(copy) in element.value for element in at.text)
    at.button(key="pl_measure").click().run()
    no_exceptions(at)
    assert errors(at) == []
    assert at.session_state["pl_table_measured"][key]["value"].result.to_dict()["k"] >= 2

    # Report: the copy judged as the shuffled file it stands for, no shuffle asked for
    go(at, "report.py")
    assert at.text_input(key=f"rp_release_file::{key}").value == str(out)
    at.toggle(key=f"rp_use_copy::{key}").set_value(True).run()
    assert any(str(out) in element.value for element in at.text)
    at.button(key="rp_go").click().run()
    no_exceptions(at)
    report = at.session_state["rp_table_reported"][key]["value"]["report"]
    assert report.findings["order"]["shuffled"] is True
    assert not [c for c in report.conditions if c["condition"].startswith("row_order")]


def test_a_second_run_in_order_is_offered_and_an_empty_file_is_named(parquet_file, tmp_path):
    at, key = confirmed(parquet_file)
    out = tmp_path / "release.parquet"
    anonymize(at, key, out, keep_order=False)
    at.button(key="an_run").click().run()
    go(at, "privacy_level.py")
    assert at.text_input(key=f"pl_release_file::{key}").value == str(out)
    # written again, its rows in the table's order, to the same file
    anonymize(at, key, out, keep_order=True)
    at.button(key="an_run").click().run()
    no_exceptions(at)
    assert errors(at) == []
    go(at, "privacy_level.py")
    assert at.text_input(key=f"pl_release_file::{key}").value == str(out)
    # no population table on an engine table: nothing points "above" to one
    shown = [c.value for c in at.caption]
    assert not any("population table chosen above" in c for c in shown)
    assert "above" not in at.number_input(key="pl_risk_fraction").help
    at.button(key="pl_measure").click().run()
    no_exceptions(at)
    assert errors(at) == []
    at.button(key="pl_risk_assess").click().run()
    no_exceptions(at)
    assert errors(at) == []
    assert not any("above" in c.value for c in at.caption if "population" in c.value)
    # an empty field: what to enter, not an error about a table's path
    at.text_input(key=f"pl_release_file::{key}").input("").run()
    at.button(key="pl_measure").click().run()
    no_exceptions(at)
    said = errors(at)
    assert said and not any("Give the path of a table" in e for e in said)
    assert any("Enter the path of the release file" in e and escape_md(str(out)) in e for e in said)

    # Report: a file in the table's order is to be shuffled, and the page says how
    go(at, "report.py")
    assert at.text_input(key=f"rp_release_file::{key}").value == str(out)
    at.button(key="rp_go").click().run()
    no_exceptions(at)
    report = at.session_state["rp_table_reported"][key]["value"]["report"]
    assert [c for c in report.conditions if c["condition"].startswith("row_order")]
    assert any("untick" in c.value and "“Anonymize”" in c.value for c in at.caption)


def test_one_press_is_one_run_that_writes_both_files(parquet_file, tmp_path):
    """Shuffled, the press runs the anonymization once (one history row, the copy's
    path among its parameters) and writes the file to publish and its copy in the
    table's order; with the order kept, one run and no copy."""
    at, key = confirmed(parquet_file)
    before = len(history.list_runs(kind="anonymize"))
    out = tmp_path / "once.parquet"
    anonymize(at, key, out, keep_order=False)
    at.button(key="an_run").click().run()
    no_exceptions(at)
    assert errors(at) == []
    runs = history.list_runs(kind="anonymize")
    assert len(runs) == before + 1
    copy = tmp_path / "once_kept_order.parquet"
    assert runs[0]["params"]["order_copy"] == str(copy)
    assert at.session_state["an_table_copies"][key] == {
        "published": str(out),
        "assessed": str(copy),
    }
    made = at.session_state["an_table_made"][key]["outcome"].result
    assert made.order_copy == copy and made.order_copy_rows == made.rows_written == ROWS
    table = pd.read_parquet(parquet_file)
    ordered, shuffled = pd.read_parquet(copy), pd.read_parquet(out)
    assert ordered["occupation"].astype(str).tolist() == table["occupation"].astype(str).tolist()
    columns = list(ordered.columns)
    assert not shuffled.equals(ordered)
    assert (
        shuffled.sort_values(columns)
        .reset_index(drop=True)
        .equals(ordered.sort_values(columns).reset_index(drop=True))
    )

    kept = tmp_path / "kept.parquet"
    anonymize(at, key, kept, keep_order=True)
    at.button(key="an_run").click().run()
    no_exceptions(at)
    runs = history.list_runs(kind="anonymize")
    assert len(runs) == before + 2 and "order_copy" not in runs[0]["params"]
    assert key not in at.session_state["an_table_copies"]
    assert not (tmp_path / "kept_kept_order.parquet").exists()
