"""A busy or truncated history never loses a run silently.

A writer that finds the file locked for longer than the busy timeout sets its run aside
and a background retry adds it once the file is free; a history file found empty is kept
aside and reported, not silently reused.
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

import pytest

from privcore import history
from privcore.errors import HistoryError


@pytest.fixture
def quick(monkeypatch):
    monkeypatch.setattr(history.store, "BUSY_TIMEOUT_MS", 200)
    monkeypatch.setattr(history.pending, "RETRY_SECONDS", 0.05)


def _lock(path: Path) -> sqlite3.Connection:
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    return holder


def test_a_locked_history_keeps_the_run_and_adds_it_in_the_background(tmp_path, quick):
    path = tmp_path / "history.db"
    history.record_run("profile", path=path)
    holder = _lock(path)
    try:
        started = time.monotonic()
        with pytest.raises(HistoryError) as info:
            history.record_run(
                "audit", params={"epsilon": 1.0}, data=b"\x00\x01", owner="me", path=path
            )
        assert time.monotonic() - started < 2.0  # about the busy timeout, not 30 s
        assert info.value.code == "history.deferred"
        assert history.pending_runs(path) == 1
        time.sleep(0.3)  # the retry cannot get in while the lock is held
        assert history.pending_runs(path) == 1
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    deadline = time.monotonic() + 10
    while history.pending_runs(path) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert history.pending_runs(path) == 0
    runs = history.list_runs(kind="audit", path=path, owner="me")
    assert len(runs) == 1
    run = history.get_run(runs[0]["id"], path=path)
    assert run["params"] == {"epsilon": 1.0}
    assert run["data"] == b"\x00\x01"  # the opted-in bytes survive the detour


def test_runs_set_aside_are_added_once_even_when_flushed_twice(tmp_path, quick, monkeypatch):
    path = tmp_path / "history.db"
    history.record_run("profile", path=path)
    monkeypatch.setattr(history.pending, "RETRY_SECONDS", 3600)  # no background thread in the way
    holder = _lock(path)
    try:
        for k in (2, 3):
            with pytest.raises(HistoryError):
                history.record_run("anonymize", params={"k": k}, path=path)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    pending = sorted(history._pending_dir(path).glob("*.json"))
    copies = [p.read_bytes() for p in pending]
    assert history.flush_pending(path) == 2
    for file, content in zip(pending, copies, strict=True):  # a second process's copy
        file.write_bytes(content)
    history.flush_pending(path)
    ks = sorted(r["params"]["k"] for r in history.list_runs(kind="anonymize", path=path))
    assert ks == [2, 3]
    assert history.pending_runs(path) == 0


def test_an_empty_history_file_is_kept_aside_and_reported(tmp_path):
    path = tmp_path / "history.db"
    history.record_run("profile", path=path)
    path.write_bytes(b"")  # truncated by another program
    old = time.time() - 60
    os.utime(path, (old, old))
    for leftover in tmp_path.glob("history.db-*"):
        leftover.unlink()
    assert history.set_aside_files(path) == []
    run_id = history.record_run("measure", path=path)
    aside = history.set_aside_files(path)
    assert len(aside) == 1 and aside[0].name.startswith("history.db.empty-")
    assert aside[0].stat().st_size == 0
    assert [r["id"] for r in history.list_runs(path=path)] == [run_id]


def test_reading_an_empty_history_reports_the_loss(tmp_path):
    path = tmp_path / "history.db"
    path.write_bytes(b"")
    old = time.time() - 60
    os.utime(path, (old, old))
    assert history.list_runs(path=path) == []
    assert len(history.set_aside_files(path)) == 1
    assert not path.exists()  # nothing written by a read


def test_a_freshly_created_empty_file_is_left_alone(tmp_path):
    path = tmp_path / "history.db"
    path.write_bytes(b"")  # another process is about to write its schema
    history.record_run("measure", path=path)
    assert history.set_aside_files(path) == []
    assert len(history.list_runs(path=path)) == 1
