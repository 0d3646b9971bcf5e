"""AppTest: what the Anonymize page records — one history row per settled parameter set
(a burst of live updates keeps its last step), and a run served from the cache of the
bundled samples marked as such, in the history and on the page."""

from __future__ import annotations

from collections import OrderedDict

import pytest

from privcore import history
from tests.app.conftest import ROOT, new_app, no_exceptions
from ui.anonymize import live as anonymize_view
from ui.common import shared


def open_page(active: str = "hospital"):
    at = new_app()
    at.session_state["workbench"].active = active
    at.switch_page(str(ROOT / "pages" / "anonymize.py"))
    at.run()
    return at


def anonymize_runs() -> list[dict]:
    return history.list_runs(kind="anonymize")


def shelf_ks(at) -> list[int]:
    return sorted(r.request["k"] for r in at.session_state["workbench"].releases() if r.request)


@pytest.fixture
def empty_cache(monkeypatch):
    """The process-wide cache of bundled samples' releases, empty for this test."""
    monkeypatch.setattr(shared, "_shared", OrderedDict())


def test_a_burst_of_live_steps_keeps_its_last_step(empty_cache, monkeypatch):
    at = open_page()
    at.button(key="an_run").click().run()
    assert [r["params"]["k"] for r in anonymize_runs()] == [5]
    # k moved 3 → 4 → 2 in quick succession, live: one row for the settled k = 2
    for k in (3, 4, 2):
        at.slider(key="an_k").set_value(k).run()
        no_exceptions(at)
    assert [r["params"]["k"] for r in anonymize_runs()] == [2, 5]
    assert shelf_ks(at) == [2, 5]  # the intermediate releases left the shelf too
    shown = at.session_state["workbench"].find_release(
        at.session_state["workbench"].made["hospital"]
    )
    assert shown.request["k"] == 2 and shown.run_id == anonymize_runs()[0]["id"]
    # the Run button settles the parameters: the next live step starts a new burst
    at.button(key="an_run").click().run()
    at.slider(key="an_k").set_value(3).run()
    assert [r["params"]["k"] for r in anonymize_runs()] == [3, 2, 5]
    # so does a pause longer than a burst: k = 3 stays when k = 4 comes later
    monkeypatch.setattr(anonymize_view, "BURST_SECONDS", 0.0)
    at.slider(key="an_k").set_value(4).run()
    assert [r["params"]["k"] for r in anonymize_runs()] == [4, 3, 2, 5]


def test_another_algorithm_is_another_release_not_a_step(empty_cache):
    """Mondrian, then Datafly straight after, live: two releases on the shelf and two
    history rows — a burst is the same algorithm on the same columns."""
    at = open_page()
    at.selectbox(key="an_algorithm").set_value("mondrian")
    at.button(key="an_run").click().run()
    no_exceptions(at)
    at.selectbox(key="an_algorithm").set_value("datafly").run()
    no_exceptions(at)
    algorithms = sorted(
        r.request["algorithm"] for r in at.session_state["workbench"].releases() if r.request
    )
    assert algorithms == ["datafly", "mondrian"]
    assert sorted(r["params"]["algorithm"] for r in anonymize_runs()) == ["datafly", "mondrian"]


def test_a_renamed_step_has_settled(empty_cache):
    """Renaming the release shown reruns the page without a live step: it has settled,
    so the next steps do not take it (or its run) away."""
    at = open_page()
    at.button(key="an_run").click().run()  # the first release: live steps follow it
    at.slider(key="an_k").set_value(3).run()
    at.text_input(key="an_name").input("keep me").run()
    at.slider(key="an_k").set_value(4).run()
    at.slider(key="an_k").set_value(2).run()
    assert [r["params"]["k"] for r in anonymize_runs()] == [2, 3, 5]
    names = {r.name for r in at.session_state["workbench"].releases()}
    assert "keep me" in names


def test_steps_interrupted_by_the_next_one_leave_no_row(empty_cache):
    """A live step stopped by the next change is recorded as cancelled; when the burst's
    next step finishes, that row goes with the other intermediate steps — but a run the
    user cancelled (Cancel settles the parameters first) stays."""
    at = open_page()
    owner = at.session_state["_owner"]
    at.button(key="an_run").click().run()  # the first release: live steps follow it
    at.slider(key="an_k").set_value(3).run()
    interrupted = history.record_run(
        "anonymize", params={"k": 4}, status="cancelled", page="anonymize", owner=owner
    )
    at.slider(key="an_k").set_value(2).run()
    assert history.get_run(interrupted) is None
    assert [r["params"]["k"] for r in anonymize_runs()] == [2, 5]
    # a run the user cancelled, then the page reran without a live step: kept
    cancelled = history.record_run(
        "anonymize", params={"k": 6}, status="cancelled", page="anonymize", owner=owner
    )
    at.button(key="an_cancel").click().run()
    at.slider(key="an_k").set_value(7).run()
    assert history.get_run(cancelled) is not None


def test_a_run_served_from_the_cache_is_marked(empty_cache):
    first = open_page()
    first.button(key="an_run").click().run()
    computed = anonymize_runs()[0]
    assert "cached" not in computed["results"] and computed["results"]["seconds"] >= 0
    assert not any("Served from the cache" in c.value for c in first.caption)
    # another visitor asks for the same release of the same bundled sample
    second = open_page()
    second.button(key="an_run").click().run()
    no_exceptions(second)
    served = anonymize_runs()[0]
    assert served["id"] != computed["id"] and served["params"] == computed["params"]
    assert served["results"]["cached"] is True and "seconds" not in served["results"]
    assert any("Served from the cache" in c.value for c in second.caption)
    # the live-update estimate keeps the release's own compute time, not the lookup's
    release = second.session_state["workbench"].last_release
    (timing,) = second.session_state["an_timings"].values()
    assert timing == release.timings["total"]
    # the History page says which run was served from the cache
    second.switch_page(str(ROOT / "pages" / "history.py")).run()
    no_exceptions(second)
    table = second.dataframe[0].value
    assert dict(zip(table["id"], table["cached"], strict=True)) == {
        served["id"]: True,
        computed["id"]: False,
    }
