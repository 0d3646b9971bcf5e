"""`privcore history export`: every run (or the newest --limit), never an owner token."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from pathlib import Path

import pytest

from privcore import history
from privcore.cli import main

RUNS = 1_722  # more than the 1,000 the export used to stop at
TOKEN = "f" * 32  # the browser session that recorded the runs


@pytest.fixture
def many_runs(isolated_history: Path) -> Path:
    """RUNS runs of one owner: one recorded as the app does, the others added in one
    transaction (recording each would take seconds)."""
    history.record_run("measure", results={"k": 0}, owner=TOKEN)
    conn = sqlite3.connect(isolated_history)
    try:
        with conn:
            conn.executemany(
                "INSERT INTO runs (started_at, finished_at, duration_s, kind, page, status, "
                "results, app_version, owner, uid) VALUES (?, ?, 0.1, 'measure', 'measure', "
                "'ok', ?, 'test', ?, ?)",
                [
                    (
                        f"2025-01-01T00:{i // 60 % 60:02d}:{i % 60:02d}Z",
                        f"2025-01-01T00:{i // 60 % 60:02d}:{i % 60:02d}Z",
                        json.dumps({"k": i}),
                        TOKEN,
                        f"{i:032x}",
                    )
                    for i in range(1, RUNS)
                ],
            )
    finally:
        conn.close()
    return isolated_history


def _rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def _no_token(text: str) -> None:
    rows = _rows(text)
    assert rows and not set(rows[0]) & {"owner", "uid"}, list(rows[0])
    assert TOKEN not in text and f"{1:032x}" not in text


def test_the_command_exports_every_run_without_tokens(many_runs, capsys):
    assert main(["history", "export"]) == 0
    text = capsys.readouterr().out
    rows = _rows(text)
    assert len(rows) == RUNS
    assert len({r["id"] for r in rows}) == RUNS
    _no_token(text)


def test_the_command_honours_limit_newest_first(many_runs, capsys):
    assert main(["history", "export", "--limit", "5"]) == 0
    text = capsys.readouterr().out
    rows = _rows(text)
    assert len(rows) == 5
    newest = history.list_runs(limit=5)
    assert [int(r["id"]) for r in rows] == [r["id"] for r in newest]
    _no_token(text)
    assert main(["history", "list", "--json"]) == 0  # the listing keeps its default of 50
    assert len(json.loads(capsys.readouterr().out)["runs"]) == 50


def test_the_library_and_the_history_page_export_leave_the_token_out(many_runs):
    everything = history.export_csv()
    assert len(_rows(everything)) == RUNS
    _no_token(everything)
    # the History page exports the visitor's own runs (owner=their token): all of them
    own = history.export_csv(owner=TOKEN, path=many_runs)
    assert len(_rows(own)) == RUNS
    _no_token(own)
    assert len(_rows(history.export_csv(limit=7))) == 7


def test_show_leaves_the_token_out(many_runs, capsys):
    assert main(["history", "show", "1"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["id"] == 1 and shown["results"] == {"k": 0}
    assert "owner" not in shown and "uid" not in shown
