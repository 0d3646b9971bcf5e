"""AppTest: results on a bundled sample are computed once per server and shared by
every visitor (Measure, the linkage attack, the report); each visitor's run is still
recorded as theirs, marked cached; nothing from an upload or an uploaded roll is shared."""

from __future__ import annotations

import pytest

from privcore import history
from tests.app.conftest import ROOT, new_app, no_exceptions
from ui.common import shared


@pytest.fixture(autouse=True)
def same_minute(monkeypatch):
    """Releases are named with the minute they were made in ("… · 14:32"), and the name
    is part of what a shared result depends on (a report names its release): two
    visitors of these tests make theirs in the same minute, whatever the clock says."""
    monkeypatch.setattr("ui.common.workspace.shelf.now_hhmm", lambda: "12:00")


def visitor(active: str = "hospital"):
    at = new_app()
    at.session_state["workbench"].active = active
    at.switch_page(str(ROOT / "pages" / "anonymize.py"))
    at.run()
    at.button(key="an_run").click().run()
    no_exceptions(at)
    return at


def go(at, page: str):
    at.switch_page(str(ROOT / "pages" / page))
    at.run()
    no_exceptions(at)
    return at


def outcome(at, page: str):
    picked = at.session_state["workbench"].reviewed()
    return at.session_state["_results"][(page, picked.id)]["value"]


def test_measure_attack_and_report_are_computed_once_for_all_visitors():
    first, second = visitor(), visitor()
    assert shared.size() == 1  # the one release
    results = {}
    for at in (first, second):
        go(at, "privacy_level.py").button(key="pl_measure").click().run()
        go(at, "attack.py").button(key="at_build").click().run()
        at.button(key="at_run").click().run()
        go(at, "report.py").button(key="rp_go").click().run()
        no_exceptions(at)
        results[at] = {
            "measure": outcome(at, "privacy_level"),
            "attack": outcome(at, "attack"),
            "report": at.session_state["_results"][
                ("report", at.session_state["workbench"].reviewed().id)
            ]["value"]["report"],
        }
    # release, measurement, roll, attack, report: five results, computed by the first
    assert shared.size() == 5
    mine, theirs = results[first], results[second]
    assert not mine["measure"].summary.get("cached")
    assert theirs["measure"].summary.get("cached") is True
    assert "seconds" not in theirs["measure"].summary
    assert theirs["measure"].result is mine["measure"].result
    assert theirs["attack"].summary.get("cached") is True
    assert theirs["report"].verdict == mine["report"].verdict
    assert theirs["report"].measurement == mine["report"].measurement
    # each visitor's own report names their own runs
    assert set(theirs["report"].run_ids).isdisjoint(mine["report"].run_ids)
    # every run is recorded under its visitor
    owners = {at.session_state["_owner"] for at in (first, second)}
    for kind in ("measure", "attack", "report"):
        runs = history.list_runs(kind=kind)
        assert {r["owner"] for r in runs} == owners, kind
        cached = [bool((r["results"] or {}).get("cached")) for r in runs]
        assert cached.count(True) >= 1, kind


def test_changed_parameters_are_computed_not_taken_from_the_cache():
    at = visitor()
    go(at, "privacy_level.py").button(key="pl_measure").click().run()
    before = shared.size()
    at.multiselect(key="pl_qi").set_value(at.multiselect(key="pl_qi").value[:1]).run()
    at.button(key="pl_measure").click().run()
    no_exceptions(at)
    assert shared.size() == before + 1
    assert not outcome(at, "privacy_level").summary.get("cached")


def test_an_uploaded_table_is_never_shared():
    at = new_app("data_roles.py")
    data = (ROOT / "assets" / "hospital" / "hospital.csv").read_bytes()
    at.file_uploader[0].upload("mine.csv", data, "text/csv")
    at.run()
    at.button(key="confirm::mine.csv").click().run()
    go(at, "anonymize.py").button(key="an_run").click().run()
    no_exceptions(at)
    go(at, "privacy_level.py").button(key="pl_measure").click().run()
    no_exceptions(at)
    assert outcome(at, "privacy_level").run_id is not None
    assert shared.size() == 0


def test_an_object_memo_computes_once_per_object_and_key_and_forgets_dead_objects():
    import gc

    import pandas as pd

    from ui.common.shared import ObjectMemo

    memo, calls = ObjectMemo(), []

    def compute(value):
        calls.append(value)
        return value

    table = pd.DataFrame({"a": [1, 2]})
    assert memo.get(table, "x", lambda: compute(1)) == 1
    assert memo.get(table, "x", lambda: compute(2)) == 1  # kept
    assert memo.get(table, "y", lambda: compute(3)) == 3  # another key: computed
    other = pd.DataFrame({"a": [1, 2]})  # equal rows, another object: its own value
    assert memo.get(other, "y", lambda: compute(4)) == 4
    assert calls == [1, 3, 4] and len(memo) == 2
    del table, other
    gc.collect()
    assert len(memo) == 0


def test_with_workers_on_a_pages_run_is_computed_in_a_worker_process(monkeypatch):
    from privcore.core import workers

    monkeypatch.setenv("PRIVCORE_WORKERS", "1")
    monkeypatch.setenv("PRIVCORE_WORKER_MIN_ROWS", "1")
    calls = []
    real = workers.call_in_worker

    def counted(fn, *args, **kwargs):
        calls.append(getattr(args[0], "__name__", fn.__name__))
        return real(fn, *args, **kwargs)

    monkeypatch.setattr(workers, "call_in_worker", counted)
    monkeypatch.setattr(workers, "_contended", lambda: True)  # as if others were waiting
    at = visitor()  # the anonymize run, in a worker
    go(at, "privacy_level.py").button(key="pl_measure").click().run()
    no_exceptions(at)
    assert not at.error, [e.value for e in at.error]
    assert calls == ["_anonymize", "_measure"]
    measured = outcome(at, "privacy_level")
    assert measured.result.to_dict()["k"] >= 1 and measured.run_id is not None


def test_alone_a_light_run_is_computed_in_place_and_a_heavy_one_in_a_worker(monkeypatch):
    """A visitor alone waits less for light work done in place; a heavy run (a search)
    goes to a worker all the same, so that Cancel or the end of the session kills it and
    frees its memory at once."""
    from privcore.core import workers
    from privcore.runs import DinnerRequest, Inputs, compute
    from ui.common import shared as shared_module

    monkeypatch.setenv("PRIVCORE_WORKERS", "1")
    monkeypatch.setenv("PRIVCORE_WORKER_MIN_ROWS", "1")
    assert workers._contended is shared_module.other_pages_running
    assert not shared_module.other_pages_running()  # this test runs no page right now
    assert not workers.wanted(10**6)
    calls = []
    monkeypatch.setattr(
        workers, "call_in_worker", lambda fn, *a, **k: calls.append(a[0].__name__) or fn(*a, **k)
    )
    compute(DinnerRequest(seed=1), Inputs(), worker=None)
    assert calls == []
    visitor()
    assert calls == ["_anonymize"]


def test_every_page_run_through_a_worker_gives_the_figures_computed_in_place(monkeypatch):
    """An upload (never shared) through Anonymize, Measure, the linkage attack and the
    report, once in place and once in worker processes: the same figures (every request
    and its inputs pickle, roll and algorithm included)."""
    from privcore.core import workers

    def visit():
        at = new_app("data_roles.py")
        data = (ROOT / "assets" / "hospital" / "hospital.csv").read_bytes()
        at.file_uploader[0].upload("mine.csv", data, "text/csv")
        at.run()
        at.button(key="confirm::mine.csv").click().run()
        go(at, "anonymize.py").slider(key="an_k").set_value(3)
        at.button(key="an_run").click().run()
        go(at, "privacy_level.py").button(key="pl_measure").click().run()
        go(at, "attack.py").button(key="at_build").click().run()
        at.button(key="at_run").click().run()
        go(at, "report.py").button(key="rp_go").click().run()
        no_exceptions(at)
        entry = at.session_state["workbench"].reviewed()
        results = at.session_state["_results"]
        report = results[("report", entry.id)]["value"]["report"]
        return (
            entry.frame.reset_index(drop=True),
            results[("privacy_level", entry.id)]["value"].result.to_dict(),
            results[("attack", entry.id)]["value"].result.to_dict(),
            (report.verdict, report.measurement, report.attacks),
        )

    here = visit()
    monkeypatch.setenv("PRIVCORE_WORKERS", "1")
    monkeypatch.setenv("PRIVCORE_WORKER_MIN_ROWS", "1")
    monkeypatch.setattr(workers, "_contended", lambda: True)
    calls = []
    real = workers.call_in_worker

    def counted(fn, *args, **kwargs):
        calls.append(args[0].__name__ if args else fn.func.__name__)  # a runner, or a task
        return real(fn, *args, **kwargs)

    monkeypatch.setattr(workers, "call_in_worker", counted)
    there = visit()
    assert calls == ["_anonymize", "_measure", "_roll", "_attack", "_report"]
    assert there[0].equals(here[0])
    for mine, theirs in zip(here[1:3], there[1:3], strict=True):
        mine.pop("seconds", None), theirs.pop("seconds", None)
        assert mine == theirs

    def strip(figures: dict) -> dict:
        return {k: v for k, v in figures.items() if k != "seconds"}

    assert there[3][0] == here[3][0]  # the verdict
    assert strip(there[3][1]) == strip(here[3][1])  # the measurement
    assert strip(there[3][2]) == strip(here[3][2])  # the attacks
