"""Tests of privcore.history: the SQLite run history."""

from __future__ import annotations

import csv
import dataclasses
import datetime as dt
import io
import itertools
import json
import multiprocessing
import os
import sqlite3
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from privcore import __version__, history
from privcore.errors import CancelledError, HistoryError, ParameterError

DATASET = {"name": "adult.csv", "sha256": "ab" * 32, "rows": np.int64(32561), "columns": 15}


@pytest.fixture
def db_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "hist" / "history.db"
    monkeypatch.setenv("PRIVCORE_HISTORY", str(path))
    return path


def test_round_trip_with_numpy_params(db_path: Path) -> None:
    params = {
        "k": np.int64(5),
        "epsilon": np.float32(0.5),
        "qis": ("age", "sex"),
        "weights": np.array([0.25, 0.75]),
        "missing": float("nan"),
        "flag": np.bool_(True),
        "when": pd.Timestamp("2024-01-02T03:04:05Z"),
        "na": pd.NA,
        "file": Path("a/b.csv"),
        "labels": {"b", "a"},
    }
    results = {"risk": np.float64(0.125), "inf": float("inf"), "classes": np.arange(3)}
    run_id = history.record_run(
        "anonymize", params=params, results=results, dataset=DATASET, page="anonymize"
    )
    assert isinstance(run_id, int)

    row = history.get_run(run_id)
    assert row is not None
    assert row["id"] == run_id
    assert row["kind"] == "anonymize"
    assert row["page"] == "anonymize"
    assert row["status"] == "ok"
    assert row["error"] is None
    assert row["app_version"] == __version__
    assert row["dataset_name"] == "adult.csv"
    assert row["dataset_sha256"] == "ab" * 32
    assert row["dataset_rows"] == 32561
    assert row["dataset_columns"] == 15
    assert row["params"] == {
        "k": 5,
        "epsilon": 0.5,
        "qis": ["age", "sex"],
        "weights": [0.25, 0.75],
        "missing": None,
        "flag": True,
        "when": "2024-01-02T03:04:05+00:00",
        "na": None,
        "file": str(Path("a/b.csv")),
        "labels": ["a", "b"],
    }
    assert row["results"] == {"risk": 0.125, "inf": None, "classes": [0, 1, 2]}
    started = dt.datetime.fromisoformat(row["started_at"])
    assert started.utcoffset() == dt.timedelta(0)

    listed = history.list_runs()
    assert [r["id"] for r in listed] == [run_id]
    assert listed[0]["params"]["k"] == 5
    assert listed[0]["has_data"] is False
    assert "data" not in listed[0]

    assert history.delete_run(run_id) is True
    assert history.delete_run(run_id) is False
    assert history.get_run(run_id) is None
    assert history.list_runs() == []


def test_times_and_duration(db_path: Path) -> None:
    start = dt.datetime(2024, 5, 1, 12, 0, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    end = start + dt.timedelta(seconds=90)
    run_id = history.record_run("audit", started_at=start, finished_at=end)
    row = history.get_run(run_id)
    assert row["started_at"] == "2024-05-01T10:00:00.000000+00:00"
    assert row["finished_at"] == "2024-05-01T10:01:30.000000+00:00"
    assert row["duration_s"] == pytest.approx(90.0)


def test_newest_first(db_path: Path) -> None:
    base = dt.datetime(2024, 1, 1, tzinfo=dt.UTC)
    ids = {}
    for offset in (2, 0, 1):
        ids[offset] = history.record_run(
            "measure", started_at=base + dt.timedelta(minutes=offset), duration_s=1.0
        )
    assert [r["id"] for r in history.list_runs()] == [ids[2], ids[1], ids[0]]
    assert [r["id"] for r in history.list_runs(limit=2)] == [ids[2], ids[1]]
    # Same start time: the later insert comes first.
    a = history.record_run("measure", started_at=base, duration_s=0.0)
    b = history.record_run("measure", started_at=base, duration_s=0.0)
    order = [r["id"] for r in history.list_runs()]
    assert order.index(b) < order.index(a)


def test_kind_filter_and_search(db_path: Path) -> None:
    m = history.record_run("measure", params={"k": 3}, dataset={"name": "Adult.csv"})
    a = history.record_run("attack", results={"linkage": "Zip code match"}, page="攻击")
    e = history.record_run("anonymize", status="error", error="Infeasible: k too large")
    c = history.record_run("audit", status="cancelled")

    assert [r["id"] for r in history.list_runs(kind="measure")] == [m]
    assert {r["id"] for r in history.list_runs(kind=["measure", "attack"])} == {m, a}
    assert history.list_runs(kind=[]) == []
    assert history.list_runs(kind="report") == []

    def found(text: str) -> set[int]:
        return {r["id"] for r in history.list_runs(search=text)}

    assert found("adult") == {m}  # dataset name, case-insensitive
    assert found("ZIP CODE") == {a}  # results text
    assert found('"k": 3') == {m}  # params text
    assert found("infeasible") == {e}  # error
    assert found("CANCEL") == {c}  # status
    assert found("攻击") == {a}  # page, non-ASCII
    assert found("attack") == {a}  # kind
    assert found("100%") == set()  # no LIKE wildcards
    assert found("") == {m, a, e, c}
    assert {r["id"] for r in history.list_runs(kind="anonymize", search="k")} == {e}


def test_invalid_arguments(db_path: Path) -> None:
    with pytest.raises(ParameterError):
        history.record_run("measure", status="done")
    with pytest.raises(ParameterError):
        history.record_run("")
    with pytest.raises(ParameterError):
        history.list_runs(limit=0)
    assert not db_path.exists()  # nothing was written


def test_recorder_ok(db_path: Path) -> None:
    with history.recording("measure", params={"k": 2}, dataset=DATASET, page="measure") as run:
        time.sleep(0.02)
        run.results = {"risk": np.float64(0.5)}
    assert run.id is not None
    row = history.get_run(run.id)
    assert row["status"] == "ok"
    assert row["error"] is None
    assert row["results"] == {"risk": 0.5}
    assert row["params"] == {"k": 2}
    assert row["page"] == "measure"
    assert row["dataset_rows"] == 32561
    assert row["duration_s"] >= 0.02
    assert row["data"] is None
    assert dt.datetime.fromisoformat(row["finished_at"]) > dt.datetime.fromisoformat(
        row["started_at"]
    )


def test_recorder_error_is_recorded_and_reraised(db_path: Path) -> None:
    with pytest.raises(ValueError, match="boom"), history.recording("attack") as run:
        run.results = {"partial": 1}
        raise ValueError("boom")
    row = history.get_run(run.id)
    assert row["status"] == "error"
    assert row["error"] == "boom"
    assert row["results"] == {"partial": 1}
    assert row["duration_s"] > 0


def test_recorder_cancelled(db_path: Path) -> None:
    with pytest.raises(CancelledError), history.recording("anonymize") as run:
        raise CancelledError("Cancelled by the user.")
    assert history.get_run(run.id)["status"] == "cancelled"

    with pytest.raises(KeyboardInterrupt), history.recording("anonymize") as run2:
        raise KeyboardInterrupt
    assert history.get_run(run2.id)["status"] == "cancelled"


def test_recorder_survives_broken_history(tmp_path: Path) -> None:
    bad = tmp_path / "bad.db"
    bad.write_bytes(os.urandom(4096))
    with history.recording("measure", path=bad) as run:
        run.results = {"x": 1}
    assert run.id is None
    assert run.history_error is not None
    assert run.history_error.code == "history.corrupt"


def test_data_only_when_opted_in(db_path: Path) -> None:
    plain = history.record_run("profile", dataset=DATASET)
    with_text = history.record_run("profile", data="age,sex\n30,F\n")
    with_bytes = history.record_run("profile", data=b"\x00\x01raw")
    assert history.get_run(plain)["data"] is None
    assert history.get_run(with_text)["data"] == "age,sex\n30,F\n"
    assert history.get_run(with_bytes)["data"] == b"\x00\x01raw"

    flags = {r["id"]: r["has_data"] for r in history.list_runs()}
    assert flags == {plain: False, with_text: True, with_bytes: True}
    full = {r["id"]: r["data"] for r in history.list_runs(include_data=True)}
    assert full[plain] is None
    assert full[with_text] == "age,sex\n30,F\n"
    assert "data" not in history.runs_frame().columns


def test_default_path_from_env_and_parent_creation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PRIVCORE_HISTORY", raising=False)
    assert history.history_path() == Path("data/history.db")

    target = tmp_path / "a" / "b" / "runs.db"
    monkeypatch.setenv("PRIVCORE_HISTORY", str(target))
    assert history.history_path() == target
    assert history.list_runs() == []  # reading does not create anything
    assert not target.parent.exists()
    history.record_run("report")
    assert target.is_file()

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PRIVCORE_HISTORY")
    history.record_run("report")
    assert (tmp_path / "data" / "history.db").is_file()


def test_explicit_path_overrides_env(db_path: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    run_id = history.record_run("measure", path=other)
    assert history.get_run(run_id, path=other) is not None
    assert history.list_runs() == []
    assert len(history.list_runs(path=other)) == 1
    assert history.delete_run(run_id, path=other) is True


def test_corrupt_file(db_path: Path) -> None:
    db_path.parent.mkdir(parents=True)
    db_path.write_bytes(os.urandom(8192))
    for call in (
        lambda: history.record_run("measure"),
        lambda: history.list_runs(),
        lambda: history.get_run(1),
        lambda: history.export_csv(),
    ):
        with pytest.raises(HistoryError) as info:
            call()
        assert info.value.code == "history.corrupt"
        assert str(db_path) in info.value.message
        assert "PRIVCORE_HISTORY" in info.value.message
        assert info.value.params["path"] == str(db_path)


def test_unwritable_location(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where a folder should be")
    with pytest.raises(HistoryError) as info:
        history.record_run("measure", path=blocker / "history.db")
    assert info.value.code == "history.unwritable"
    assert str(blocker / "history.db") in info.value.message


def test_locked_database(db_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    history.record_run("measure")
    holder = sqlite3.connect(db_path, isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")
        holder.execute("INSERT INTO runs (kind) VALUES ('measure')")
        monkeypatch.setattr(history.store, "BUSY_TIMEOUT_MS", 100)
        monkeypatch.setattr(history.pending, "RETRY_SECONDS", 3600)  # no background retry here
        with pytest.raises(HistoryError) as info:
            history.record_run("measure")
        assert info.value.code == "history.deferred"
        assert info.value.params["waiting"] == 1
        assert len(history.list_runs()) == 1  # readers are not blocked in WAL mode
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_runs_frame_and_export_csv(db_path: Path) -> None:
    assert list(history.runs_frame().columns) == [c for c in history.COLUMNS if c != "data"] + [
        "has_data"
    ]
    assert history.export_csv().splitlines()[0].startswith("id,started_at,")

    for i in range(3):
        history.record_run("measure", params={"i": i, "note": 'a, "quoted"\nline'})
    history.record_run("attack", dataset={"name": "x"})

    frame = history.runs_frame()
    assert len(frame) == 4
    assert frame["id"].is_monotonic_decreasing
    assert str(frame["dataset_rows"].dtype) == "Int64"
    assert str(frame["params"].dtype) == "string"
    assert pd.isna(frame.loc[0, "params"])  # the attack run has no params
    assert json.loads(frame.loc[1, "params"])["i"] == 2
    assert frame.dtypes.equals(history.runs_frame(path=db_path.with_name("none.db")).dtypes)
    assert len(history.runs_frame(kind="measure")) == 3

    text = history.export_csv()
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == 4
    assert list(rows[0]) == [c for c in frame.columns if c not in history.SECRET_COLUMNS]
    params = [json.loads(r["params"]) for r in rows if r["kind"] == "measure"]
    assert sorted(p["i"] for p in params) == [0, 1, 2]
    assert len(list(csv.DictReader(io.StringIO(history.export_csv(kind="attack"))))) == 1


def test_wal_mode(db_path: Path) -> None:
    history.record_run("measure")
    conn = sqlite3.connect(db_path)
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        sql = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'runs'").fetchone()[0]
        assert "AUTOINCREMENT" in sql
        indexes = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='index'")}
        assert {"idx_runs_kind", "idx_runs_started_at"} <= indexes
    finally:
        conn.close()


def test_to_json_types() -> None:
    @dataclasses.dataclass
    class WithToDict:
        x: float

        def to_dict(self) -> dict:
            return {"x": self.x, "kind": "custom"}

    @dataclasses.dataclass
    class Plain:
        y: int

    text = history.to_json(
        {
            "a": WithToDict(float("-inf")),
            "b": Plain(np.int8(3)),
            "c": np.array([[1.0, np.nan]]),
            "d": dt.date(2024, 2, 29),
            "e": pd.NaT,
            np.int64(7): (1, 2),
            "f": np.datetime64("2024-01-01T00:00"),
            "g": "日本",
        }
    )
    assert "日本" in text
    assert json.loads(text) == {
        "a": {"x": None, "kind": "custom"},
        "b": {"y": 3},
        "c": [[1.0, None]],
        "d": "2024-02-29",
        "e": None,
        "7": [1, 2],
        "f": "2024-01-01T00:00:00",
        "g": "日本",
    }
    assert history.to_json(float("nan")) == "null"


# --------------------------------------------------------------------------- concurrency

N_PROCESSES = 4
N_WRITES = 250


def _writer(path: str, proc: int, barrier) -> None:
    barrier.wait(timeout=60)
    for i in range(N_WRITES):
        try:
            history.record_run(
                "measure", params={"proc": proc, "i": i}, dataset={"name": f"p{proc}"}, path=path
            )
        except HistoryError as exc:  # on a starved machine a writer may wait > 2 s:
            if exc.code != "history.deferred":  # its run is kept aside, not lost
                raise


@pytest.mark.slow
def test_concurrent_writers(tmp_path: Path) -> None:
    path = tmp_path / "fresh" / "history.db"  # the writers also race to create it
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(N_PROCESSES)
    procs = [ctx.Process(target=_writer, args=(str(path), p, barrier)) for p in range(N_PROCESSES)]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(timeout=300)
    assert [proc.exitcode for proc in procs] == [0] * N_PROCESSES

    history.flush_pending(path)  # runs a starved writer kept aside (background retry died)
    rows = history.list_runs(limit=None, path=path)
    total = N_PROCESSES * N_WRITES
    assert len(rows) == total
    assert len({r["id"] for r in rows}) == total
    pairs = [(r["params"]["proc"], r["params"]["i"]) for r in rows]
    assert sorted(pairs) == [(p, i) for p in range(N_PROCESSES) for i in range(N_WRITES)]
    # The writers really overlapped: in id order the processes alternate, rather than
    # appearing as N_PROCESSES consecutive blocks.
    by_id = [r["params"]["proc"] for r in sorted(rows, key=lambda r: r["id"])]
    switches = sum(a != b for a, b in itertools.pairwise(by_id))
    assert switches > N_PROCESSES


def test_owner_keeps_runs_apart(db_path: Path) -> None:
    mine = history.record_run("measure", results={"k": 3}, owner="a" * 32, path=db_path)
    theirs = history.record_run("measure", results={"k": 9}, owner="b" * 32, path=db_path)
    unowned = history.record_run("profile", path=db_path)  # e.g. the command line
    assert [r["id"] for r in history.list_runs(owner="a" * 32, path=db_path)] == [mine]
    assert {r["id"] for r in history.list_runs(path=db_path)} == {mine, theirs, unowned}
    frame = history.runs_frame(owner="b" * 32, path=db_path)
    assert frame["id"].tolist() == [theirs]
    assert "k" in history.export_csv(owner="a" * 32, path=db_path)
    assert len(history.export_csv(owner="c" * 32, path=db_path).splitlines()) == 1  # header
    assert history.get_run(theirs, owner="a" * 32, path=db_path) is None
    assert history.get_run(theirs, owner="b" * 32, path=db_path)["results"] == {"k": 9}
    assert not history.delete_run(theirs, owner="a" * 32, path=db_path)
    assert history.get_run(theirs, path=db_path) is not None
    assert history.delete_run(theirs, owner="b" * 32, path=db_path)
    assert history.get_run(theirs, path=db_path) is None


def test_a_history_without_owners_is_upgraded_in_place(db_path: Path) -> None:
    """A database written before runs had an owner keeps its runs and gains the column."""
    db_path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(db_path)
    conn.execute(
        "CREATE TABLE runs (id INTEGER PRIMARY KEY AUTOINCREMENT, started_at TEXT, "
        "finished_at TEXT, duration_s REAL, kind TEXT, page TEXT, status TEXT, error TEXT, "
        "dataset_name TEXT, dataset_sha256 TEXT, dataset_rows INTEGER, "
        "dataset_columns INTEGER, params TEXT, results TEXT, data TEXT, app_version TEXT)"
    )
    conn.execute(
        "INSERT INTO runs (started_at, finished_at, kind, status) "
        "VALUES ('2026-01-01T00:00:00+00:00', '2026-01-01T00:00:01+00:00', 'measure', 'ok')"
    )
    conn.commit()
    conn.close()
    new = history.record_run("anonymize", owner="x" * 32, path=db_path)
    runs = history.list_runs(path=db_path)
    assert [r["kind"] for r in runs] == ["anonymize", "measure"]
    assert runs[1]["owner"] is None and runs[0]["id"] == new
    assert [r["id"] for r in history.list_runs(owner="x" * 32, path=db_path)] == [new]


@pytest.mark.parametrize(
    "recorded, shown",
    [
        ("2026-11-29T04:31:05.194796+00:00", "2026-11-29 04:31:05"),
        # the fraction is dropped, not rounded: 04:31:05.999999 is still 04:31:05
        ("2026-11-29T04:31:05.999999+00:00", "2026-11-29 04:31:05"),
        # another offset is converted to UTC: 12:31:05 at +08:00 is 04:31:05 UTC
        ("2026-11-29T12:31:05.000000+08:00", "2026-11-29 04:31:05"),
        ("2026-11-29T04:31:05", "2026-11-29 04:31:05"),  # no offset: the history's UTC
        (None, "—"),
        ("", "—"),
        (pd.NA, "—"),
        ("yesterday", "yesterday"),
    ],
)
def test_display_time_is_utc_to_the_second(recorded, shown) -> None:
    assert history.display_time(recorded) == shown


def test_a_recorded_time_is_shown_without_microseconds(db_path: Path) -> None:
    start = dt.datetime(2026, 11, 29, 4, 31, 5, 194796, tzinfo=dt.UTC)
    run_id = history.record_run("measure", started_at=start, duration_s=1.0)
    stored = history.get_run(run_id)["started_at"]
    assert stored == "2026-11-29T04:31:05.194796+00:00"
    assert history.display_time(stored) == "2026-11-29 04:31:05"


def test_the_release_a_report_assessed_is_named_from_its_record() -> None:
    made = {
        "algorithm": "datafly",
        "constraints": [{"model": "k", "k": 3}],
        "max_suppression": 0.1,
        "seed": 0,
    }
    report = {
        "params": {"qi": ["ZIP"], "release": "k3"},
        "results": {
            "verdict": "ready",
            "release_fingerprint": {"sha256": "de71" + "0" * 60, "rows": 9, "columns": 4},
            "algorithm": made,
        },
    }
    assert history.assessed_release(report) == {
        "name": "k3",
        "sha256": "de71" + "0" * 60,
        "rows": 9,
        "columns": 4,
        "algorithm": "datafly",
        "parameters": {"constraints": [{"model": "k", "k": 3}], "max_suppression": 0.1, "seed": 0},
    }
    # a measurement by the command line: its file name and fingerprint
    measured = {"params": {"release": "r.csv", "release_sha256": "ab" * 32}, "results": {}}
    assert history.assessed_release(measured) == {
        "name": "r.csv",
        "sha256": "ab" * 32,
        "rows": None,
        "columns": None,
        "algorithm": None,
        "parameters": {},
    }
    # a run of no release, or one whose record is not a mapping
    assert history.assessed_release({"params": {"k": 3}, "results": {"k": 3}}) is None
    assert history.assessed_release({"params": None, "results": "broken"}) is None
