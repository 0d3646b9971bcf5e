"""AppTest: the Anonymize page — live runs on Adult, parameter changes, errors, history."""

from __future__ import annotations

from privcore import history
from tests.app.conftest import ROOT, new_app, no_exceptions


def open_page(active: str = "adult"):
    at = new_app()
    at.session_state["workbench"].active = active
    at.switch_page(str(ROOT / "pages" / "anonymize.py"))
    at.run()
    return at


def metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def test_adult_at_k5_live_with_the_class_table():
    at = open_page()
    no_exceptions(at)
    assert at.selectbox(key="an_algorithm").value == "optimal"
    shown = metrics(at)
    assert int(shown["k achieved"]) >= 5
    assert shown["Rows suppressed"] == "0"
    classes = at.dataframe(key="an_classes::table").value
    assert classes["size"].min() >= 5
    release = at.session_state["workbench"].last_release
    assert release is not None and release.algorithm == "optimal"
    assert len(release.frame) == 30162
    runs = history.list_runs(kind="anonymize")
    assert len(runs) == 1 and runs[0]["results"]["k"] >= 5


def test_changing_k_reruns_and_records():
    at = open_page()
    at.slider(key="an_k").set_value(20).run()
    no_exceptions(at)
    assert int(metrics(at)["k achieved"]) >= 20
    assert len(history.list_runs(kind="anonymize")) == 2


def test_each_full_domain_algorithm_on_the_hospital_table():
    at = open_page("hospital")
    for algorithm in ("datafly", "samarati", "incognito", "optimal"):
        at.selectbox(key="an_algorithm").set_value(algorithm).run()
        no_exceptions(at)
        assert not at.error, [e.value for e in at.error]
        assert int(metrics(at)["k achieved"]) >= 5 or metrics(at)["k achieved"] == "—"


def test_impossible_k_shows_an_error_not_a_traceback():
    at = open_page("hospital")
    at.slider(key="an_k").set_value(50).run()
    no_exceptions(at)
    assert any("larger than the table" in e.value for e in at.error)
    assert history.list_runs(kind="anonymize")[0]["status"] == "error"


def test_the_release_feeds_the_privacy_level_page():
    at = open_page("hospital")
    at.slider(key="an_k").set_value(3).run()
    at.switch_page(str(ROOT / "pages" / "privacy_level.py")).run()
    no_exceptions(at)
    assert at.radio(key="pl_source").value == "last"
    at.button[[b.label for b in at.button].index("Measure")].click().run()
    no_exceptions(at)
    assert metrics(at)["k achieved"] == "3"


def test_local_and_synthetic_algorithms_on_the_hospital_table():
    at = open_page("hospital")
    at.slider(key="an_k").set_value(3).run()
    for algorithm in ("mondrian", "kaca", "condensation"):
        at.selectbox(key="an_algorithm").set_value(algorithm).run()
        no_exceptions(at)
        assert not at.error, (algorithm, [e.value for e in at.error])
        assert int(metrics(at)["k achieved"]) >= 3, algorithm
        if algorithm == "condensation":
            assert any("synthetic" in i.value for i in at.info)
    assert {r["params"]["algorithm"] for r in history.list_runs(kind="anonymize")} >= {
        "mondrian",
        "kaca",
        "condensation",
    }


def test_compare_view_tables_each_algorithm():
    at = open_page("hospital")
    at.slider(key="an_k").set_value(3).run()
    at.multiselect(key="an_compare").set_value(["datafly", "mondrian", "kaca"]).run()
    at.button(key="an_compare_run").click().run()
    no_exceptions(at)
    table = next(d.value for d in at.dataframe if "seconds" in d.value.columns)
    assert list(table["algorithm"]) == ["Datafly", "Mondrian", "KACA"]
    assert (table["k"] >= 3).all()


def test_live_toggle_run_cancel_and_downloads():
    at = open_page("hospital")
    no_exceptions(at)
    assert len(history.list_runs(kind="anonymize")) == 1
    labels = [b.proto.label for b in at.get("download_button")]
    for wanted in ("Download the release (CSV)", "Download the generalization spec (JSON)"):
        assert wanted in labels
    # live off: a change keeps the previous result, says so, and runs nothing
    at.toggle(key="an_live").set_value(False).run()
    at.slider(key="an_k").set_value(3).run()
    no_exceptions(at)
    assert any("Showing the previous result" in i.value for i in at.info)
    assert len(history.list_runs(kind="anonymize")) == 1
    at.button(key="an_run").click().run()
    assert int(metrics(at)["k achieved"]) >= 3
    assert len(history.list_runs(kind="anonymize")) == 2
    # cancel: live again, but the cancelled parameters are not run again by themselves
    at.toggle(key="an_live").set_value(True).run()
    at.slider(key="an_k").set_value(4)
    at.button(key="an_cancel").click().run()
    assert any("Cancelled" in w.value for w in at.warning)
    assert len(history.list_runs(kind="anonymize")) == 2


def test_local_recoding_says_there_are_no_levels():
    at = open_page("hospital")
    at.selectbox(key="an_algorithm").set_value("mondrian").run()
    no_exceptions(at)
    assert any("no generalization levels per quasi-identifier" in i.value for i in at.info)
