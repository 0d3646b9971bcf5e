"""AppTest: the Privacy level page on the worked example and on bad input."""

from __future__ import annotations

from privcore import history
from tests.app.conftest import ROOT, new_app, no_exceptions, open_tab


def open_with(active: str):
    at = new_app()
    at.session_state["workbench"].active = active
    at.switch_page(str(ROOT / "pages" / "privacy_level.py"))
    at.run()
    return at


def click(at, label: str):
    at.button[[b.label for b in at.button].index(label)].click().run()
    return at


def metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def test_worked_example_figures_and_history():
    at = open_with("hospital")
    no_exceptions(at)
    # the textbook's release, a loaded data set with the table's columns, is on the shelf
    wb = at.session_state["workbench"]
    picked = wb.find_release(at.selectbox(key="pl_release").value)
    assert picked.source == "dataset" and picked.origin == "hospital_release"
    click(at, "Measure")
    no_exceptions(at)
    shown = metrics(at)
    assert (shown["PL"], shown["DR"], shown["UL"], shown["k achieved"]) == (
        "0.500",
        "0.500",
        "0.750",
        "3",
    )
    # verdict cards: k ≥ 5 fails at k = 3; l and t were not asked for: information
    cards = [m.value for m in at.markdown]
    assert any("k ≥ 5" in c and ":red[" in c for c in cards)
    assert not any("l ≥" in c or "t ≤" in c for c in cards)
    assert any("l = 3" in c and ":blue[" in c for c in cards)
    # the class table has the three classes of the worked example
    open_tab(at, "pl_view", "Classes")
    classes = at.dataframe[0].value
    assert sorted(classes["size"].tolist()) == [3, 3, 3]
    runs = history.list_runs(kind="measure")
    assert len(runs) == 1
    assert runs[0]["results"]["pl"]["all"] == 0.5
    assert runs[0]["results"]["k"] == 3
    # the run's parameters are the request's, with the release's name
    assert runs[0]["params"]["release"] == picked.name and runs[0]["params"]["k"] == 5
    assert runs[0]["params"]["l"] is None and runs[0]["params"]["t"] is None
    # the result names the release and the parameters it was computed for
    assert any(f"Computed for «{picked.name}»" in c.value for c in at.caption)


def test_thresholds_change_the_verdicts():
    at = open_with("hospital")
    at.number_input(key="pl_k").set_value(3).run()
    click(at, "Measure")
    cards = [m.value for m in at.markdown]
    assert any("k ≥ 3" in c and ":green[" in c for c in cards)


def test_mismatched_upload_gives_a_clear_error():
    at = open_with("hospital")
    at.file_uploader(key="pl_release_upload").upload("other.csv", b"a,b\n1,2\n3,4\n", "text/csv")
    at.run()
    wb = at.session_state["workbench"]
    assert wb.find_release(at.selectbox(key="pl_release").value).name == "other.csv"
    click(at, "Measure")
    no_exceptions(at)
    assert any("has no column" in e.value for e in at.error)
    assert history.list_runs(kind="measure")[0]["status"] == "error"


def test_adult_without_a_release_asks_for_one():
    at = open_with("adult")
    no_exceptions(at)
    assert "pl_release" not in [box.key for box in at.selectbox]
    assert any("No release of this data set yet" in c.value for c in at.caption)
    assert not [b for b in at.button if b.label == "Measure"]


def test_switch_to_chinese_keeps_the_figures():
    at = open_with("hospital")
    click(at, "Measure")
    at.session_state["lang"] = "zh"
    at.run()
    no_exceptions(at)
    assert at.title[0].value == "隐私水平"
    assert metrics(at)["PL"] == "0.500"


def test_every_figure_is_explained_with_what_would_improve_it_in_both_languages():
    import json

    from ui.common.i18n import catalogue
    from ui.measure.view import EXPLAINED

    at = open_with("hospital")
    click(at, "Measure")
    no_exceptions(at)
    # the charts: class sizes and the PL matrix heatmap with its numbers
    open_tab(at, "pl_view", "Charts")
    specs = [json.loads(c.proto.spec) for c in at.get("vega_lite_chart")]
    assert len(specs) >= 2
    assert any("orangered" in json.dumps(s) for s in specs)  # the heatmap's scale
    # the downloads: the JSON report and the CSV of the class table
    open_tab(at, "pl_view", "Download")
    labels = [b.proto.label for b in at.get("download_button")]
    assert any("JSON" in label for label in labels) and any("CSV" in label for label in labels)
    open_tab(at, "pl_view", "Summary")  # the figures, each explained
    for lang in ("en", "zh"):
        at.session_state["lang"] = lang
        at.run()
        no_exceptions(at)
        text = " ".join(m.value for m in at.markdown)
        strings = catalogue(lang)
        for key in EXPLAINED:
            for part in ("explain.name_", "explain.", "improve."):
                assert strings[part + key] in text, (lang, part + key)
