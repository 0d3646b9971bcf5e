"""AppTest: the Attack simulator's Reconstruction tab — the records rebuilt from the
tables published of the hospital table (nine patients), with no voter roll built on the
page; chosen tables with the noisy curve; the release's cells; refusals in words; the
run in the history; both languages."""

from __future__ import annotations

from privcore import history
from tests.app.conftest import ROOT, new_app, no_exceptions, shown_tables


def open_page(active: str = "hospital", lang: str = "en"):
    at = new_app()
    at.session_state["workbench"].active = active
    at.session_state["lang"] = lang
    at.switch_page(str(ROOT / "pages" / "attack.py"))
    at.run()
    return at


def metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def outcome(at):
    """The tab's result for the release its picker names (an Outcome)."""
    picked = at.session_state["workbench"].reviewed()
    return at.session_state["_results"][("attack_reconstruction", picked.id)]["value"]


def runs() -> list[dict]:
    return history.list_runs(kind="reconstruction")


def chosen(at, tables: str):
    at.radio(key="at_rec_tables").set_value("chosen").run()
    at.text_input(key="at_rec_publish").input(tables).run()
    return at


def release_box(at):
    return next(c for c in at.checkbox if c.key.startswith("at_rec_release"))


def curve_specs(at) -> list[str]:
    """The specs of the charts of the noisy tables' curve, as JSON text."""
    specs = [c.proto.spec for c in at.get("vega_lite_chart")]
    return [s for s in specs if "Share rebuilt from the noisy tables" in s]


def test_the_suggested_tables_give_every_patient_away_without_a_roll():
    """ZIP × Disease, Age × Disease and ZIP × Age (Salary's 8,001 values left out) fit one
    table only: the nine records, all certain, each linked to the one person of the
    roll with that ZIP and age."""
    at = open_page()
    no_exceptions(at)
    assert "at_roll" not in at.session_state  # no voter roll built on the page
    captions = [c.value for c in at.caption]
    assert "Suggested tables: ZIP × Disease; Age × Disease; ZIP × Age" in captions
    assert any(c.startswith("Left out: Salary — its 8,001 values") for c in captions)
    at.button(key="at_rec_run").click().run()
    no_exceptions(at)
    shown = metrics(at)
    assert shown["Tables of records that fit"] == "unique"
    assert shown["Rebuilt exactly"] == "100.0%"
    assert shown["Within tolerance (Age ± 1)"] == "100.0%"
    assert shown["Certain records"] == "9"
    assert shown["Re-identified by name"] == "9"
    rebuilt, truth, named = shown_tables(at)[-3:]
    assert len(rebuilt) == len(truth) == 9 and rebuilt["certain"].all()
    assert sorted(rebuilt.columns) == sorted([*truth.columns, "certain"])
    assert len(named) == 9 and "name" in named.columns
    assert any("names are synthetic" in c.value for c in at.caption)
    # recorded, the summary without a record: no value of the table, no name
    [run] = runs()
    assert run["status"] == "ok" and run["params"]["publish"] == "suggest"
    assert run["params"]["qi"] == ["ZIP", "Age"]
    assert run["results"]["reidentified"] == 9 and run["results"]["curve"] == []
    text = str(run)
    assert "gastric ulcer" not in text and "47677" not in text
    assert not any(name in text for name in named["name"])
    assert outcome(at).run_id == run["id"]


def test_chosen_tables_with_a_block_and_the_noise_curve():
    at = chosen(open_page(), "Age,Disease")
    at.multiselect(key="at_rec_eps").set_value([1.0, 4.0])
    at.number_input(key="at_rec_seeds").set_value(2).run()
    at.button(key="at_rec_run").click().run()
    no_exceptions(at)
    assert metrics(at)["Tables of records that fit"] == "unique"
    [spec] = curve_specs(at)  # exact and within tolerance against ε, ∞ its own point
    assert '"\\u221e"' in spec or '"∞"' in spec
    [run] = runs()
    assert run["params"]["publish"] == [["Age", "Disease"]]
    assert run["params"]["epsilon"] == [1.0, 4.0] and run["params"]["seeds"] == 2
    assert [p["epsilon"] for p in run["results"]["curve"]] == [1.0, 4.0]
    # per ZIP: nine blocks of one patient each, each rebuilt on its own
    at.selectbox(key="at_rec_block").set_value("ZIP").run()
    assert any("Out of date" in w.value for w in at.warning)
    at.button(key="at_rec_run").click().run()
    no_exceptions(at)
    assert metrics(at)["Tables of records that fit"] == "unique in 9 of 9 blocks"
    assert any(e.label == "By block (9)" for e in at.expander)
    rebuilt = shown_tables(at)[-3]
    assert list(rebuilt.columns[:1]) == ["ZIP"] and len(rebuilt) == 9
    assert runs()[0]["params"]["block"] == "ZIP"


def test_bad_tables_are_refused_in_words():
    at = chosen(open_page(), "Age;Age")
    at.button(key="at_rec_run").click().run()
    no_exceptions(at)
    assert any("Name the column sets to publish" in e.value for e in at.error)
    assert runs()[0]["status"] == "error" and runs()[0]["error"] == "reconstruction.publish"
    chosen(at, "Age,Nope").button(key="at_rec_run").click().run()
    no_exceptions(at)
    assert any("Nope" in e.value for e in at.error)
    # the block column cannot be published too
    chosen(at, "ZIP,Age").selectbox(key="at_rec_block").set_value("ZIP").run()
    at.button(key="at_rec_run").click().run()
    no_exceptions(at)
    assert any("cannot also be published" in e.value for e in at.error)
    assert "Tables of records that fit" not in metrics(at)


def test_the_release_cells_of_a_file_and_a_contradiction():
    """The textbook release is read from a file: read as generalized, off by default.
    Its eight cells on Age and Disease fit the table; with ZIP published they contradict
    it (it labels patient 2's ZIP 47602 as 4767*): refused in words, briefly."""
    at = chosen(open_page(), "Age,Disease")
    box = release_box(at)
    assert not box.value and not box.disabled
    assert any("read as a generalized release" in c.value for c in at.caption)
    box.check().run()
    at.button(key="at_rec_run").click().run()
    no_exceptions(at)
    assert any("The release's 8 cells" in c.value for c in at.caption)
    [run] = runs()
    assert run["results"]["release_cells"] == 8
    assert run["params"]["release"] == at.session_state["workbench"].reviewed().name
    chosen(at, "ZIP,Disease;ZIP,Age").button(key="at_rec_run").click().run()
    no_exceptions(at)
    [refusal] = [e.value for e in at.error]
    assert "contradict each other" in refusal and len(refusal) < 600
    assert runs()[0]["error"] == "reconstruction.inconsistent"


def made_release(algorithm: str):
    """The Attack page on a release of the hospital table made here by ``algorithm``."""
    at = new_app()
    at.session_state["workbench"].active = "hospital"
    at.switch_page(str(ROOT / "pages" / "anonymize.py")).run()
    at.selectbox(key="an_algorithm").set_value(algorithm).run()
    at.button(key="an_run").click().run()
    no_exceptions(at)
    made = at.session_state["workbench"].last_release
    assert made is not None and made.algorithm == algorithm
    at.switch_page(str(ROOT / "pages" / "attack.py")).run()
    return at


def test_a_generalized_release_made_here_publishes_its_cells_by_default():
    at = chosen(made_release("mondrian"), "Age,Disease")
    box = release_box(at)
    assert box.value and not box.disabled
    at.button(key="at_rec_run").click().run()
    no_exceptions(at)
    [run] = runs()
    assert run["results"]["release_cells"] > 0
    assert metrics(at)["Rebuilt exactly"] == "100.0%"


def test_a_perturbed_release_is_not_read_as_counts_and_says_why():
    at = chosen(made_release("rank_swap"), "Age,Disease")
    box = release_box(at)
    assert box.disabled and not box.value
    assert any("is a perturbed release" in c.value for c in at.caption)
    at.button(key="at_rec_run").click().run()
    no_exceptions(at)
    [run] = runs()
    assert run["status"] == "ok" and run["results"]["release_cells"] == 0
    assert "release" not in run["params"]


def test_the_chinese_tab():
    at = open_page(lang="zh")
    no_exceptions(at)
    assert "记录重建" in [tab.label for tab in at.tabs]
    assert any(c.value.startswith("建议的统计表：") for c in at.caption)
    assert any(c.value.startswith("未公布：Salary") for c in at.caption)
    chosen(at, "Age,Disease")
    at.button(key="at_rec_run").click().run()
    no_exceptions(at)
    shown = metrics(at)
    assert shown["符合计数的记录表"] == "唯一" and shown["按姓名重识别"] == "9"
    rebuilt, _, named = shown_tables(at)[-3:]
    assert "确定" in rebuilt.columns and "姓名" in named.columns
    assert any("姓名是合成的" in c.value for c in at.caption)


def test_rounded_counts_the_noise_law_and_the_tolerance_reach_the_run():
    """Counts rounded to 5 (the patients' cells of one or two read as 0–2), the curve's
    noise Gaussian, and a tolerance of ± 2 on Age, the one numeric column published."""
    at = chosen(open_page(), "Age,Disease")
    at.number_input(key="at_rec_round").set_value(5)
    at.number_input(key="at_rec_tolerance").set_value(2.0)
    at.selectbox(key="at_rec_law").set_value("gaussian")
    at.multiselect(key="at_rec_eps").set_value([4.0]).run()
    at.button(key="at_rec_run").click().run()
    no_exceptions(at)
    shown = metrics(at)
    assert "Within tolerance (Age ± 2)" in shown
    assert shown["Tables of records that fit"] != "unique"  # rounding hides the cells
    [run] = runs()
    assert run["params"]["round_to"] == 5 and run["params"]["noise_law"] == "gaussian"
    assert run["params"]["record_tolerance"] == 2.0  # one width: every numeric column
