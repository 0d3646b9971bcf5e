"""AppTest: the Attack simulator — roll, linkage before/after, background, two releases."""

from __future__ import annotations

from privcore import history
from tests.app.conftest import ROOT, new_app, no_exceptions


def open_page(active: str = "hospital"):
    at = new_app()
    at.session_state["workbench"].active = active
    at.switch_page(str(ROOT / "pages" / "attack.py"))
    at.run()
    return at


def metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def result(at, page: str = "attack"):
    """The page's result for the release its picker names (an Outcome)."""
    wb = at.session_state["workbench"]
    picked = wb.reviewed()
    return at.session_state["_results"][(page, picked.id)]["value"]


def linkage_runs() -> list[dict]:
    return [r for r in history.list_runs(kind="attack") if "attack" not in r["params"]]


def test_roll_then_linkage_before_and_after():
    at = open_page()
    no_exceptions(at)
    assert any("Build a voter roll" in i.value for i in at.info)
    at.button(key="at_build").click().run()
    no_exceptions(at)
    roll = at.session_state["at_roll"]["roll"]
    assert len(roll.frame) == 90 and int(roll.frame["in_dataset"].sum()) == 9
    at.button(key="at_run").click().run()
    no_exceptions(at)
    shown = metrics(at)
    assert shown["People of the data set in the roll"] == "9"
    assert shown["Re-identified"] == "0"  # the worked release: classes of 3
    sim = result(at).result
    assert sim.linkage["before"].summary["reidentified"] == 9  # the raw table: everyone
    assert any("Voter" in m.value and "candidates" in m.value for m in at.markdown)
    runs = linkage_runs()
    assert len(runs) == 1 and runs[0]["results"]["linkage"]["reidentified"] == 0
    assert runs[0]["results"]["before"]["linkage"]["reidentified"] == 9
    picked = at.session_state["workbench"].reviewed()
    assert runs[0]["params"]["release"] == picked.name
    assert any(f"Computed for «{picked.name}»" in c.value for c in at.caption)
    # the other attacks run when asked, once; a changed control marks them out of date
    assert not [r for r in history.list_runs(kind="attack") if "attack" in r["params"]]
    at.button(key="at_run_background").click().run()
    at.slider(key="at_m").set_value(2).run()
    live = [r["params"].get("attack") for r in history.list_runs(kind="attack")]
    assert live.count("background knowledge") == 1
    assert any("Out of date: m: 1 → 2" in w.value for w in at.warning)
    at.button(key="at_run_background").click().run()
    live = [r["params"].get("attack") for r in history.list_runs(kind="attack")]
    assert live.count("background knowledge") == 2
    assert not any("Out of date" in w.value for w in at.warning)
    # names of the roll never reach the history
    assert roll.frame["name"].iloc[0] not in str(runs[0])


def test_background_knowledge_slider():
    at = open_page()
    at.button(key="at_build").click().run()
    at.slider(key="at_m").set_value(2).run()
    at.button(key="at_run_background").click().run()
    no_exceptions(at)
    shown = metrics(at)
    before = int(shown["Records with confidence ≥ 0.8 (original table)"])
    after = int(shown["Records with confidence ≥ 0.8 (release)"])
    assert before == 9 and after <= before


def test_chinese_names_in_the_roll():
    at = open_page()
    at.selectbox(key="at_locale").set_value("zh").run()
    at.button(key="at_build").click().run()
    no_exceptions(at)
    names = at.session_state["at_roll"]["roll"].frame["name"]
    assert all(any("\u4e00" <= ch <= "\u9fff" for ch in name) for name in names.head(20))


def test_the_roll_is_the_population_of_the_privacy_level_page():
    at = open_page()
    at.button(key="at_build").click().run()
    at.switch_page(str(ROOT / "pages" / "privacy_level.py")).run()
    at.radio(key="pl_population_choice").set_value("roll").run()
    at.button[[b.label for b in at.button].index("Measure")].click().run()
    no_exceptions(at)
    labels = {m.label for m in at.metric}
    assert "Journalist risk (highest)" in labels
    measured = result(at, "privacy_level").result
    assert measured.risk.journalist_max is not None
    assert measured.risk.journalist_max <= measured.risk.prosecutor_max


def test_uploaded_register_with_mapped_columns_and_a_prior():
    at = open_page()
    at.radio(key="at_roll_source").set_value("upload").run()
    register = "who,postcode,years\nA,47677,29\nB,47602,22\nC,47905,43\nD,47999,60\n"
    at.file_uploader(key="at_roll_file").upload("register.csv", register.encode(), "text/csv")
    at.run()
    at.selectbox(key="at_roll_map_ZIP").set_value("postcode")
    at.selectbox(key="at_roll_map_Age").set_value("years")
    at.button(key="at_roll_use").click().run()
    no_exceptions(at)
    roll = at.session_state["at_roll"]["roll"]
    assert list(roll.frame["ZIP"]) == [47677, 47602, 47905, 47999]
    at.button(key="at_run").click().run()
    no_exceptions(at)
    sim = result(at).result
    assert sim.linkage["after"].summary["targets"] == 0
    at.toggle(key="at_prior_on").set_value(True).run()
    at.button(key="at_run_background").click().run()
    no_exceptions(at)
    assert any("confidence" in m.label for m in at.metric)


def test_a_linkage_attack_stopped_by_cancel_is_recorded_as_cancelled(monkeypatch):
    from streamlit.runtime.scriptrunner_utils.exceptions import StopException

    import privcore.attacks  # the page imports simulate from it on every run

    def stopped(*_args, **_kwargs):
        raise StopException()

    monkeypatch.setattr(privcore.attacks, "simulate", stopped)
    at = open_page()
    at.button(key="at_build").click().run()
    assert at.button(key="at_cancel")
    at.button(key="at_run").click().run()
    [run] = [r for r in history.list_runs(kind="attack") if r["status"] != "ok"]
    assert run["status"] == "cancelled"


def test_row_order_and_two_release_tabs_and_the_chinese_page():
    at = new_app()
    at.session_state["workbench"].active = "hospital"
    at.switch_page(str(ROOT / "pages" / "anonymize.py"))
    at.run()
    at.button(key="an_run").click().run()
    no_exceptions(at)
    made = at.session_state["workbench"].last_release
    assert made is not None
    at.switch_page(str(ROOT / "pages" / "attack.py"))
    at.run()
    at.button(key="at_build").click().run()
    no_exceptions(at)
    wb = at.session_state["workbench"]
    assert wb.find_release(at.selectbox(key="at_release").value).release is made
    # row order: the release made here is in the original order; exported, shuffled
    at.button(key="at_run_ordering").click().run()
    shown = metrics(at)
    assert shown["Exported in the original order"] == "ρ = 1.000"
    assert "Exported shuffled (default)" in shown
    # two releases of one table: the one made here against the textbook's
    textbook = next(r for r in wb.releases() if r.origin == "hospital_release")
    at.selectbox(key="at_second").set_value(textbook.id).run()
    at.button(key="at_two").click().run()
    no_exceptions(at)
    shown = metrics(at)
    assert shown["k of each release"] == f"{made.measurement.to_dict()['k']} / 3"
    runs = history.list_runs(kind="attack")
    assert runs[0]["params"]["attack"] == "complementary"
    assert runs[0]["results"]["min_effective_k"] >= 1
    at.session_state["lang"] = "zh"
    at.run()
    no_exceptions(at)
    assert at.title[0].value == "攻击模拟"


def test_victims_reasoning_in_both_languages():
    from privcore.attacks.linkage import chain_text
    from ui.common.components import escape_md

    at = open_page()
    at.button(key="at_build").click().run()
    at.button(key="at_run").click().run()
    no_exceptions(at)
    steps = result(at).result.linkage["after"].details["chain_steps"]
    assert steps
    text = " ".join(m.value for m in at.markdown)
    for step in steps:  # the page says in English exactly what the library says
        assert escape_md(chain_text(step)) in text
    at.session_state["lang"] = "zh"
    at.run()
    no_exceptions(at)
    text = " ".join(m.value for m in at.markdown)
    assert "选民" in text and "发布等价类" in text and "Voter" not in text


def test_a_shuffled_release_with_a_row_key_is_lined_up_by_the_key():
    import pandas as pd

    hospital = ROOT / "assets" / "hospital"
    original = pd.read_csv(hospital / "hospital.csv", dtype=str).assign(
        rid=[str(i) for i in range(9)]
    )
    released = pd.read_csv(hospital / "hospital_release.csv", dtype=str)
    released = released.assign(rid=[str(i) for i in range(9)]).iloc[[4, 0, 8, 2, 6, 1, 7, 3, 5]]
    at = new_app("data_roles.py")
    at.file_uploader[0].upload("patients.csv", original.to_csv(index=False).encode(), "text/csv")
    at.run()
    at.session_state["roles::patients.csv"] = {  # rid: a row key, not a quasi-identifier
        "edited_rows": {4: {"role": "insensitive"}},
        "added_rows": [],
        "deleted_rows": [],
    }
    at.run()
    at.button(key="confirm::patients.csv").click().run()
    at.switch_page(str(ROOT / "pages" / "attack.py"))
    at.run()
    at.button(key="at_build").click().run()
    at.file_uploader(key="at_release_upload").upload(
        "release.csv", released.to_csv(index=False).encode(), "text/csv"
    )
    at.run()
    no_exceptions(at)
    wb = at.session_state["workbench"]
    assert wb.find_release(at.selectbox(key="at_release").value).name == "release.csv"
    # by position the rows do not line up: what needs no pairing is shown, and why
    at.button(key="at_run").click().run()
    no_exceptions(at)
    assert any("not paired with the original's" in i.value for i in at.info)
    assert metrics(at)["prosecutor risk (highest)"] == "0.333"  # classes of 3
    assert "Re-identified" not in metrics(at)
    # paired by the key column: the whole attack
    at.radio(key="at_pairing").set_value("key").run()
    at.selectbox(key="at_key").set_value("rid").run()
    assert any("Out of date" in w.value for w in at.warning)
    at.button(key="at_run").click().run()
    no_exceptions(at)
    assert metrics(at)["Re-identified"] == "0"  # the textbook's classes of 3, lined up


def test_numeric_disclosure_within_a_tolerance_the_user_sets():
    """The textbook release: classes A 4767*/<=40 {3K, 4K, 5K}, B 4790*/>=40 {6K, 11K,
    8K}, C 4760*/<=40 {7K, 9K, 10K} of Salary. A voter's candidates are the class their
    ZIP and age fall in — patient 2 (47602) in C, patient 8 (47673) in A (SPEC §2: the
    seed's ZIPs of rows 2, 7, 8). At ±10 % nobody's candidates lie that close. At ±50 %
    (every candidate within [x/2, 3x/2] of the voter's own salary x): patient 3 (5K: A
    in [2.5K, 7.5K]), 5 (11K), 6 (8K), 7 (7K), 9 (10K) — 5 of 9; not 1 (3K: 5K > 4.5K),
    2 (4K: C), 4 (6K: 11K > 9K), 8 (9K: 3K < 4.5K). The raw table gives every value
    away exactly: 9."""
    at = open_page()
    at.button(key="at_build").click().run()
    assert at.number_input(key="at_tolerance").value == 10.0
    at.button(key="at_run").click().run()
    no_exceptions(at)
    assert metrics(at)["Salary learnt within ±10 %"] == "0"
    run = linkage_runs()[0]
    assert run["params"]["tolerance"] == 0.1
    assert run["results"]["linkage"]["attribute_within_tolerance"] == {"Salary": 0}
    at.number_input(key="at_tolerance").set_value(50.0).run()
    assert any("tolerance of numeric disclosure: 0.1 → 0.5" in w.value for w in at.warning)
    at.button(key="at_run").click().run()
    no_exceptions(at)
    assert metrics(at)["Salary learnt within ±50 %"] == "5"
    sim = result(at).result
    assert sim.linkage["before"].summary["attribute_within_tolerance"] == {"Salary": 9}
    assert linkage_runs()[0]["params"]["tolerance"] == 0.5
    assert "Salary within tolerance" in sim.linkage["after"].targets.columns


def test_a_release_is_not_intersected_with_itself():
    """The textbook release uploaded as a file holds the rows of the loaded textbook
    table: the two-release attack refuses the pair and says why."""
    at = open_page()
    at.file_uploader(key="at_release_upload").upload(
        "hospital_release.csv",
        (ROOT / "assets" / "hospital" / "hospital_release.csv").read_bytes(),
        "text/csv",
    )
    at.run()
    at.button(key="at_build").click().run()
    no_exceptions(at)
    wb = at.session_state["workbench"]
    assert wb.reviewed().source == "file"
    twin = next(r for r in wb.releases() if r.origin == "hospital_release")
    assert twin.fingerprint == wb.reviewed().fingerprint
    at.selectbox(key="at_second").set_value(twin.id).run()
    assert any("a release intersected with itself" in w.value for w in at.warning)
    assert at.button(key="at_two").disabled
    assert not [r for r in history.list_runs(kind="attack") if "attack" in r["params"]]


def test_releases_whose_classes_nest_narrow_nobody():
    """Optimal at k = 9 releases one class of all nine patients; the textbook's three
    classes lie inside it: intersecting shrinks no candidate set, and the page says so."""
    at = new_app()
    at.session_state["workbench"].active = "hospital"
    at.switch_page(str(ROOT / "pages" / "anonymize.py")).run()
    at.slider(key="an_k").set_value(9)
    at.button(key="an_run").click().run()
    no_exceptions(at)
    at.switch_page(str(ROOT / "pages" / "attack.py")).run()
    at.button(key="at_build").click().run()
    wb = at.session_state["workbench"]
    textbook = next(r for r in wb.releases() if r.origin == "hospital_release")
    at.selectbox(key="at_second").set_value(textbook.id).run()
    at.button(key="at_two").click().run()
    no_exceptions(at)
    assert metrics(at)["Smallest effective k"] == "3"
    assert any("No record's candidate set shrinks" in i.value for i in at.info)


def test_the_roll_of_a_bundled_sample_is_built_once_per_server():
    """Two visitors building the default roll of the same bundled table get one shared
    roll (a session would otherwise hold its own: 301,620 people for Adult)."""
    first, second = open_page(), open_page()
    for at in (first, second):
        at.button(key="at_build").click().run()
        no_exceptions(at)
    rolls = [at.session_state["at_roll"]["roll"] for at in (first, second)]
    assert rolls[0] is rolls[1] and len(rolls[0].frame) == 90
