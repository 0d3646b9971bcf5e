"""AppTest: the Anonymize page — runs asked for on Adult, live updates as controls change,
errors, history, the shelf of releases."""

from __future__ import annotations

import json
from dataclasses import replace

from privcore import history
from tests.app.conftest import ROOT, new_app, no_exceptions, open_tab


def open_page(active: str = "adult"):
    at = new_app()
    at.session_state["workbench"].active = active
    at.switch_page(str(ROOT / "pages" / "anonymize.py"))
    at.run()
    return at


def errors(at) -> list[str]:
    """The error messages as shown (Markdown escapes removed)."""
    return [e.value.replace("\\", "") for e in at.error]


def metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def press_run(at):
    at.button(key="an_run").click().run()
    return at


def test_adult_at_k5_on_the_button_with_the_class_table():
    at = open_page()
    no_exceptions(at)
    assert at.selectbox(key="an_algorithm").value == "optimal"
    # opening the page starts no run: the user has not asked for one
    assert not metrics(at) and not history.list_runs(kind="anonymize")
    assert any("Press Anonymize" in i.value for i in at.info)
    # with the default suppression limit (5 %) the optimal search is expected to take
    # about a second on Adult (1.02 s estimated): on the button, not live
    assert any(
        "takes about 1.0 s" in c.value and "press Anonymize to run it" in c.value
        for c in at.caption
    )
    press_run(at)
    no_exceptions(at)
    shown = metrics(at)
    assert int(shown["k achieved"]) >= 5
    assert shown["Rows suppressed"] == "1,346"  # 4.5 %, within the default 5 %
    open_tab(at, "an_view", "Classes")  # the class table: drawn when its tab is open
    classes = at.dataframe(key="an_classes::table").value
    assert classes["size"].min() >= 5
    release = at.session_state["workbench"].last_release
    assert release is not None and release.algorithm == "optimal"
    assert len(release.frame) == 30162
    runs = history.list_runs(kind="anonymize")
    assert len(runs) == 1 and runs[0]["results"]["k"] >= 5


def test_options_changed_before_the_first_run_compute_nothing():
    at = open_page("hospital")
    # live update is on and the optimal search is quick here, yet nothing is shown yet:
    # ticking l-diversity, setting l and k start no run
    assert at.toggle(key="an_live").value is True
    at.checkbox(key="an_use_l").check().run()
    at.number_input(key="an_l").set_value(2.0).run()
    at.slider(key="an_k").set_value(3).run()
    no_exceptions(at)
    assert history.list_runs(kind="anonymize") == []
    assert at.session_state["workbench"].last_release is None and not metrics(at)
    assert any("Press Anonymize to make a release" in i.value for i in at.info)
    press_run(at)
    [run] = history.list_runs(kind="anonymize")
    assert (run["params"]["k"], run["params"]["l"]) == (3, 2.0)
    # once a release is shown, a change updates it (live update on, a quick algorithm)
    at.slider(key="an_k").set_value(4).run()
    no_exceptions(at)
    assert [r["params"]["k"] for r in history.list_runs(kind="anonymize")] == [4, 3]


def test_changing_k_shows_the_previous_release_until_pressed_then_reruns_and_records(
    monkeypatch,
):
    from ui.anonymize import duration

    monkeypatch.setattr(duration, "LIVE_LIMIT_S", 0.0)  # every run too slow to follow live
    at = press_run(open_page())
    at.slider(key="an_k").set_value(20).run()
    no_exceptions(at)
    assert int(metrics(at)["k achieved"]) < 20
    assert any("Showing the previous result" in w.value for w in [*at.warning, *at.info])
    press_run(at)
    no_exceptions(at)
    assert int(metrics(at)["k achieved"]) >= 20
    assert len(history.list_runs(kind="anonymize")) == 2


def test_each_full_domain_algorithm_on_the_hospital_table():
    at = press_run(open_page("hospital"))
    for algorithm in ("datafly", "samarati", "incognito", "optimal"):
        at.selectbox(key="an_algorithm").set_value(algorithm).run()
        no_exceptions(at)
        assert not at.error, [e.value for e in at.error]
        assert int(metrics(at)["k achieved"]) >= 5 or metrics(at)["k achieved"] == "—"


def test_impossible_k_shows_an_error_not_a_traceback():
    at = open_page("hospital")
    at.slider(key="an_k").set_value(50)
    press_run(at)
    no_exceptions(at)
    assert any("larger than the table" in e.value for e in at.error)
    assert history.list_runs(kind="anonymize")[0]["status"] == "error"


def test_the_release_feeds_the_privacy_level_page():
    at = open_page("hospital")
    at.slider(key="an_k").set_value(3)
    press_run(at)
    made = at.session_state["workbench"].last_release
    at.switch_page(str(ROOT / "pages" / "privacy_level.py")).run()
    no_exceptions(at)
    wb = at.session_state["workbench"]
    picked = wb.find_release(at.selectbox(key="pl_release").value)
    assert picked.release is made and picked.name.startswith("Optimal full-domain search k=3")
    at.button[[b.label for b in at.button].index("Measure")].click().run()
    no_exceptions(at)
    assert metrics(at)["k achieved"] == "3"
    assert any(f"Computed for «{picked.name}»" in c.value for c in at.caption)


def test_local_and_synthetic_algorithms_on_the_hospital_table(monkeypatch):
    # each algorithm's result is looked at (settles) before the next: each is recorded
    monkeypatch.setattr("ui.anonymize.live.BURST_SECONDS", 0.0)
    at = open_page("hospital")
    at.slider(key="an_k").set_value(3)
    press_run(at)
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


def test_condensation_with_l_diversity_on_the_page():
    at = open_page("hospital")
    at.slider(key="an_k").set_value(2).run()
    at.selectbox(key="an_algorithm").set_value("condensation").run()
    at.checkbox(key="an_use_l").check().run()
    at.number_input(key="an_l").set_value(3.0)
    press_run(at)
    no_exceptions(at)
    assert not at.error, [e.value for e in at.error]
    run = history.list_runs(kind="anonymize")[0]
    assert run["params"]["algorithm"] == "condensation"
    assert run["params"]["l"] == 3.0
    assert run["results"]["satisfied"] is True


def test_compare_view_tables_each_algorithm():
    at = open_page("hospital")
    at.slider(key="an_k").set_value(3)
    press_run(at)
    at.multiselect(key="an_compare").set_value(["datafly", "mondrian", "kaca"]).run()
    at.button(key="an_compare_run").click().run()
    no_exceptions(at)
    table = next(d.value for d in at.dataframe if "seconds" in d.value.columns)
    assert list(table["algorithm"]) == ["Datafly", "Mondrian", "KACA"]
    assert (table["k"] >= 3).all()


def test_live_toggle_run_cancel_and_downloads():
    at = press_run(open_page("hospital"))
    no_exceptions(at)
    assert len(history.list_runs(kind="anonymize")) == 1
    open_tab(at, "an_view", "Download")
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
    at.selectbox(key="an_algorithm").set_value("mondrian")
    press_run(at)
    no_exceptions(at)
    open_tab(at, "an_view", "Charts")
    assert any("no generalization levels per quasi-identifier" in i.value for i in at.info)


def test_quasi_identifiers_and_sensitive_attributes_default_to_the_schema():
    at = press_run(open_page("hospital"))
    no_exceptions(at)
    assert at.multiselect(key="an_qi").value == ["ZIP", "Age"]
    assert at.multiselect(key="an_sa").value == ["Salary", "Disease"]
    params = history.list_runs(kind="anonymize")[0]["params"]
    assert params["qi"] == ["ZIP", "Age"] and params["sa"] == ["Salary", "Disease"]


def test_a_quasi_identifier_left_out_is_released_unchanged():
    at = open_page("hospital")
    at.slider(key="an_k").set_value(3)
    press_run(at)
    generalized = at.session_state["workbench"].last_release
    assert set(generalized.qi) == {"ZIP", "Age"}
    at.multiselect(key="an_qi").unselect("Age").run()
    no_exceptions(at)
    assert not at.error, [e.value for e in at.error]
    release = at.session_state["workbench"].last_release
    assert release is not generalized and release.qi == ("ZIP",)
    original = at.session_state["workbench"].dataset().frame
    assert list(release.frame["Age"]) == list(original["Age"])
    assert list(release.frame["ZIP"]) != list(original["ZIP"])  # still generalized
    assert int(metrics(at)["k achieved"]) >= 3
    # the choice is recorded, and shown with the result
    latest = history.list_runs(kind="anonymize")[0]
    assert latest["params"]["qi"] == ["ZIP"]
    assert latest["params"]["sa"] == ["Salary", "Disease"]
    assert any("Quasi-identifiers: ZIP ·" in c.value for c in at.caption)
    # the spec download names only the chosen QI
    spec = json.loads(release.spec_json())
    assert spec["qi"] == ["ZIP"] and "Age" not in (spec["node"] or {})
    from ui.anonymize.release_view import report_of

    assert report_of(release)["qi"] == ["ZIP"]
    # choosing it again reuses the cached release of the full choice
    at.multiselect(key="an_qi").select("Age").run()
    assert at.session_state["workbench"].last_release is generalized


def test_other_pages_say_which_columns_they_check_a_narrower_release_against():
    at = open_page("hospital")
    at.slider(key="an_k").set_value(3)
    press_run(at)
    at.multiselect(key="an_qi").unselect("Age").run()
    for page in ("report.py", "attack.py", "privacy_level.py"):
        at.switch_page(str(ROOT / "pages" / page)).run()
        no_exceptions(at)
        notes = [i.value for i in at.info if "was made with quasi-identifiers ZIP" in i.value]
        assert notes and "checked here against ZIP, Age" in notes[0], page


def test_the_compare_view_uses_the_same_columns():
    at = open_page("hospital")
    at.slider(key="an_k").set_value(3)
    press_run(at)
    at.multiselect(key="an_qi").unselect("Age").run()
    at.multiselect(key="an_compare").set_value(["datafly", "mondrian"]).run()
    at.button(key="an_compare_run").click().run()
    no_exceptions(at)
    compared = history.list_runs(kind="anonymize")[:2]
    assert {r["params"]["algorithm"] for r in compared} == {"datafly", "mondrian"}
    assert all(r["params"]["qi"] == ["ZIP"] for r in compared)


def test_no_sensitive_attribute_is_a_localized_error_not_a_traceback():
    at = open_page("hospital")
    at.multiselect(key="an_sa").set_value([])
    press_run(at)
    no_exceptions(at)
    assert errors(at) == ["Choose at least one sensitive attribute."]
    latest = history.list_runs(kind="anonymize")[0]
    assert latest["status"] == "error" and latest["params"]["sa"] == []
    at.multiselect(key="an_qi").set_value([])
    press_run(at)
    no_exceptions(at)
    assert errors(at) == ["Choose at least one quasi-identifier."]
    at.session_state["lang"] = "zh"
    at.run()
    no_exceptions(at)
    assert errors(at) == ["请至少选择一个准标识符。"]


def test_the_chinese_page_labels_the_column_choice():
    at = press_run(open_page("hospital"))
    at.session_state["lang"] = "zh"
    at.run()
    no_exceptions(at)
    assert at.multiselect(key="an_qi").label == "本次运行的准标识符"
    assert at.multiselect(key="an_sa").label == "本次运行的敏感属性"
    assert any(c.value.startswith("准标识符：ZIP, Age") for c in at.caption)


def test_column_names_are_not_rendered_as_markup():
    at = new_app()
    wb = at.session_state["workbench"]
    dataset = wb.dataset("hospital")
    frame = dataset.frame.rename(columns={"ZIP": "<b>ZIP</b>", "Disease": "*Disease*"})
    from privcore.data import Schema

    hospital = wb.schema("hospital")
    roles = {
        {"ZIP": "<b>ZIP</b>", "Disease": "*Disease*"}.get(c, c): r
        for c, r in hospital.roles.items()
    }
    hierarchies = {
        {"ZIP": "<b>ZIP</b>", "Disease": "*Disease*"}.get(c, c): h
        for c, h in hospital.hierarchies.items()
    }
    wb.uploads["evil"] = replace(dataset, frame=frame)
    wb.confirmed["evil"] = Schema(roles, hierarchies)
    wb.active = "evil"
    at.switch_page(str(ROOT / "pages" / "anonymize.py"))
    at.run()
    press_run(at)
    no_exceptions(at)
    assert at.multiselect(key="an_qi").options == ["<b>ZIP</b>", "Age"]
    used = next(c.value for c in at.caption if c.value.startswith("Quasi-identifiers:"))
    assert "\\<b\\>ZIP\\</b\\>" in used and "\\*Disease\\*" in used


def test_a_release_is_made_again_from_its_spec():
    at = open_page("hospital")
    at.slider(key="an_k").set_value(3)
    press_run(at)
    made = at.session_state["workbench"].last_release
    spec = made.spec_json().encode("utf-8")
    at.file_uploader(key="an_replay_file").upload("spec.json", spec, "application/json").run()
    at.button(key="an_replay_run").click().run()
    no_exceptions(at)
    assert not at.error, [e.value for e in at.error]
    again = at.session_state["workbench"].last_release
    assert again is not made and again.frame.equals(made.frame)
    assert any("Release reproduced with" in s.value for s in at.success)
    latest = history.list_runs(kind="anonymize")[0]
    assert latest["params"]["spec"] == "spec.json" and latest["params"]["algorithm"] == "optimal"
    # on the shelf, next to the release it reproduces, and shown by the page
    shelf = at.session_state["workbench"].releases("hospital")
    assert [r.source for r in shelf] == ["made", "replay"] and shelf[1].release is again


def test_a_spec_of_another_table_or_no_spec_is_a_clear_error():
    at = open_page("hospital")
    at.slider(key="an_k").set_value(3)
    press_run(at)
    spec = json.loads(at.session_state["workbench"].last_release.spec_json())
    spec["input"]["sha256"] = "0" * 64
    upload = json.dumps(spec).encode("utf-8")
    at.file_uploader(key="an_replay_file").upload("spec.json", upload, "application/json").run()
    at.button(key="an_replay_run").click().run()
    no_exceptions(at)
    assert any("not the one the release was made from" in e.value for e in at.error)
    at.file_uploader(key="an_replay_file").upload("x.json", b"[1, 2]", "application/json").run()
    at.button(key="an_replay_run").click().run()
    no_exceptions(at)
    assert any("not a release spec" in e.value for e in at.error)
