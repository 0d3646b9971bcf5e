"""AppTest: the History page — list, filter, search, details, compare, delete."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

from privcore import history
from tests.app.conftest import ROOT, new_app, no_exceptions


def seed_runs():
    ds = {"name": "adult", "sha256": "ab" * 32, "rows": 10, "columns": 3}
    a = history.record_run(
        "profile", params={"roles": {"age": "quasi_identifier"}}, results={"rows": 10}, dataset=ds
    )
    b = history.record_run("measure", params={"k": 5}, results={"k": 3}, dataset=ds)
    return a, b


def test_empty_history_says_so():
    at = new_app("history.py")
    no_exceptions(at)
    assert any("No runs yet" in i.value for i in at.info)


def test_runs_are_listed_filtered_and_searched():
    seed_runs()
    at = new_app("history.py")
    no_exceptions(at)
    table = at.dataframe[0].value
    assert list(table["kind"]) == ["measure", "profile"]
    at.multiselect[0].set_value(["profile"]).run()
    assert list(at.dataframe[0].value["kind"]) == ["profile"]
    at.multiselect[0].set_value([]).run()
    at.text_input[0].set_value("quasi_identifier").run()
    assert list(at.dataframe[0].value["kind"]) == ["profile"]


def test_select_shows_details_compare_and_delete():
    a, b = seed_runs()
    at = new_app("history.py")
    at.session_state["history_table"] = {"selection": {"rows": [0, 1], "columns": [], "cells": []}}
    at.run()
    no_exceptions(at)
    assert any(f"#{b}" in m.value for m in at.markdown)
    # details: parameters and results per run; then the comparison, run by run
    compare = [d.value for d in at.dataframe if f"#{a}" in d.value.columns]
    assert [set(c.columns) for c in compare] == [{"Field", f"#{a}", f"#{b}"}] * 2
    at.button(key=f"delete::{b}").click().run()
    no_exceptions(at)
    assert [r["id"] for r in history.list_runs()] == [a]


def test_corrupt_history_database_is_explained(isolated_history):
    isolated_history.write_bytes(b"this is not a database" * 100)
    at = new_app("history.py")
    no_exceptions(at)
    assert any("damaged" in e.value for e in at.error)


def test_a_history_found_empty_and_runs_waiting_are_reported():
    import os
    import time
    from pathlib import Path

    path = Path(os.environ[history.ENV_VAR])
    path.write_bytes(b"")  # truncated by another program
    old = time.time() - 60
    os.utime(path, (old, old))
    waiting = history._pending_dir(path)
    waiting.mkdir()
    (waiting / "x.json").write_text("{}")  # a run another process could not write yet
    at = new_app("history.py")
    no_exceptions(at)
    assert any("were lost" in w.value and ".empty-" in w.value for w in at.warning)
    assert any("waiting to be added" in i.value for i in at.info)


def test_locked_history_warns_on_the_page_and_the_app_keeps_working(monkeypatch):
    """Another process holds the history file: the page says the run was kept aside, goes
    on (the anonymization result is shown), and the run is added once the file is free."""
    monkeypatch.setattr(history.store, "BUSY_TIMEOUT_MS", 200)
    monkeypatch.setattr(history.pending, "RETRY_SECONDS", 0.05)
    path = Path(os.environ[history.ENV_VAR])
    history.record_run("profile", path=path)  # an existing WAL history
    holder = sqlite3.connect(path, isolation_level=None)
    try:
        holder.execute("BEGIN EXCLUSIVE")
        at = new_app()
        at.switch_page(str(ROOT / "pages" / "anonymize.py"))
        at.run()
        at.button(key="an_run").click().run()
        assert not at.exception, [e.value for e in at.exception]
        notes = [w.value for w in at.info]
        assert any("kept aside" in w for w in notes), notes
        assert any("k ≥ 5" in m.value for m in at.markdown)  # the release is still there
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    deadline = time.monotonic() + 10
    while history.pending_runs(path) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [r["kind"] for r in history.list_runs(kind="anonymize", path=path)] == ["anonymize"]


def record_a_report():
    """A release made on the hospital table (k = 3) and a readiness report on it, as the
    Report page records one: the release's name, how it was made. Returns the outcomes."""
    from privcore.data import load_sample
    from privcore.runs import AnonymizeRequest, Inputs, ReportRequest, run

    dataset, schema = load_sample("hospital")
    qi, sa = ["ZIP", "Age"], ["Disease"]
    made = run(AnonymizeRequest(qi=qi, sa=sa, k=3), Inputs(original=dataset, schema=schema))
    release = made.result
    paired = Inputs(
        original=dataset,
        schema=schema,
        release=release.frame,
        aligned=True,
        release_name="k3 for the board",
        algorithm={"algorithm": release.algorithm, **release.params},
    )
    return made, run(ReportRequest(qi=qi, sa=sa), paired, page="report")


def test_the_list_is_newest_first_with_times_to_the_second_and_the_release_named():
    made, reported = record_a_report()
    at = new_app("history.py")
    no_exceptions(at)
    table = at.dataframe[0].value
    summary = reported.summary
    expected = [reported.run_id, summary["attack_run"], summary["measure_run"], made.run_id]
    assert list(table["id"]) == expected
    started = history.get_run(reported.run_id)["started_at"]  # 2026-…T04:31:05.194796+00:00
    assert table["started_at"].iloc[0] == started[:10] + " " + started[11:19]
    assert all(len(value) == 19 for value in table["started_at"])  # no microseconds
    assert list(table["release"]) == ["k3 for the board"] * 3 + ["—"]


def test_a_reports_details_name_the_release_it_assessed():
    made, reported = record_a_report()
    sha = made.result.fingerprint.sha256
    at = new_app("history.py")
    at.session_state["history_table"] = {"selection": {"rows": [0], "columns": [], "cells": []}}
    at.run()
    no_exceptions(at)
    started = history.display_time(history.get_run(reported.run_id)["started_at"])
    captions = [c.value.replace("\u2060", "") for c in at.caption]  # as the page shows them
    assert any(c.startswith(f"Started {started} UTC · ") for c in captions)
    line = next(m.value for m in at.markdown if "Release assessed" in m.value).replace("\\", "")
    # the suppression limit is the request's default, 5 %
    assert line == (
        "Release assessed: «k3 for the board» · made with Optimal full-domain search "
        "(k ≥ 3, Suppression limit (share of rows) = 5%, Seed = 0, Information loss to "
        "minimize = NCP / GCP (certainty penalty)) · "
        f"fingerprint {sha[:16]}… · 9 rows × 4 columns"
    )


def test_the_release_line_in_both_languages_with_the_run_that_made_it():
    from ui import history as view

    run = {
        "params": {"release": "k3"},
        "results": {
            "release_fingerprint": {
                "sha256": "de71cd19011187db" + "0" * 48,
                "rows": 9,
                "columns": 4,
            },
            "algorithm": {
                "algorithm": "datafly",
                "constraints": [{"model": "k", "k": 3}],
                "max_suppression": 0.1,
                "seed": 0,
                "lattice_size": 24,  # a figure of the search, not a setting: not shown
            },
        },
    }
    assert view.release_line(run, "en", made_by=17) == (
        "Release assessed: «k3» · made with Datafly (k ≥ 3, Suppression limit (share of "
        "rows) = 10%, Seed = 0) · fingerprint de71cd19011187db… · 9 rows × 4 columns · "
        "made by run #17"
    )
    assert view.release_line(run, "zh", made_by=17) == (
        "评估的发布：「k3」 · 由 Datafly 生成（k ≥ 3、抑制上限（行比例） = 10%、随机种子 = 0） · "
        "指纹 de71cd19011187db… · 9 行 × 4 列 · 由运行 #17 生成"
    )
    assert view.release_line({"params": {"k": 3}, "results": {}}, "en") is None
