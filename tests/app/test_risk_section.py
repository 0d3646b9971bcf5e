"""AppTest: the Privacy level page's "Risk beyond class sizes" section (English and
Chinese, with and without a population table), and the Anonymize page's perturbative
methods (MDAV, PRAM) with their own options and notes."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from privcore import history
from privcore.data import load_sample, to_csv_bytes
from tests.app.conftest import ROOT, new_app, no_exceptions

CHINESE = re.compile(r"[\u4e00-\u9fff]")
ASSESS = {"en": "Assess the risk", "zh": "评估风险"}
FIGURES = {
    "en": (
        "Population uniqueness",
        "Expected re-identifications",
        "Largest record risk",
        "SUDA2 special uniques",
    ),
    "zh": ("总体唯一性", "预期重识别数", "最高记录风险", "SUDA2 特殊唯一记录"),
}


def open_page(page: str, lang: str = "en", active: str = "hospital"):
    at = new_app()
    at.session_state["lang"] = lang
    at.session_state["workbench"].active = active
    at.switch_page(str(ROOT / "pages" / page))
    at.run()
    return at


def click(at, label: str):
    at.button[[b.label for b in at.button].index(label)].click().run()
    return at


def metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_risk_section_runs_shows_its_figures_and_records_a_risk_run(lang):
    at = open_page("privacy_level.py", lang)
    no_exceptions(at)
    assert at.number_input(key="pl_risk_fraction").value == pytest.approx(0.1)
    assert not history.list_runs(kind="risk")  # nothing runs before the button
    click(at, ASSESS[lang])
    no_exceptions(at)
    assert not at.error, [e.value for e in at.error]
    (recorded,) = history.list_runs(kind="risk")
    assert recorded["status"] == "ok" and recorded["page"] == "privacy_level"
    assert recorded["params"]["sampling_fraction"] == pytest.approx(0.1)
    results = recorded["results"]
    # the worked example's release: three classes of 3, no sample unique; with π = 0.1
    # each record's Benedetti–Franconi risk is the figure shown and recorded
    shown = metrics(at)
    uniqueness, expected, largest, special = FIGURES[lang]
    assert shown[uniqueness] == "0.00 %"
    assert shown[special] == "0"
    individual = results["individual_risk"]
    assert shown[expected] == f"{individual['expected_reidentifications']:.2f}"
    assert shown[largest] == f"{individual['max']:.4f}"
    # singling out, linkability and inference per SA: one row each, with interval and
    # baseline, in the page's language
    table = at.dataframe[-2].value
    assert len(table) == 2 + len(results["inference"]) == 4
    risk_column = table.columns[1]
    assert table[risk_column].iloc[0] == f"{100 * results['singling_out']['risk']:.2f} %"
    captions = " ".join(c.value for c in at.caption)
    words = " ".join([*map(str, table.iloc[:, 0]), *map(str, table.columns), captions])
    if lang == "zh":
        assert "单独识别" in words and "可链接性" in words and "推断 Salary" in words
        assert "对照集" in captions and CHINESE.search(" ".join(w.value for w in at.warning))
    else:
        assert "Singling out" in words and "Inference of Disease" in words
        assert "Control set: a seeded share of the original held out, 2 records" in captions
    # the warnings of the attacks, in words (never their codes)
    codes = set(results["singling_out"]["warnings"])
    assert codes and all("_" not in w.value for w in at.warning)
    # the result names the release it was computed for and its run
    assert f"#{recorded['id']}" in captions
    assert recorded["params"]["release"] in captions
    # per record: every released row's QI cells and figures, the riskiest first
    per_record = at.dataframe[-1].value
    assert len(per_record) == 9 and list(per_record.columns)[1:3] == ["ZIP", "Age"]
    risks = per_record.iloc[:, 3].tolist()
    assert risks == sorted(risks, reverse=True)
    assert max(risks) == pytest.approx(individual["max"])
    labels = [b.proto.label for b in at.get("download_button")]
    expected_label = {"en": "Download every row's risk (CSV)", "zh": "下载每一行的风险（CSV）"}
    assert expected_label[lang] in labels


def test_with_a_population_table_the_fraction_comes_from_it_and_k_map_is_shown():
    at = open_page("privacy_level.py")
    original, _ = load_sample("hospital")
    population = pd.concat([original.frame] * 4, ignore_index=True)  # 36 people
    at.radio(key="pl_population_choice").set_value("upload").run()
    at.file_uploader(key="pl_population").upload(
        "register.csv", to_csv_bytes(population), "text/csv"
    )
    at.run()
    assert at.number_input(key="pl_risk_fraction").disabled
    click(at, "Assess the risk")
    no_exceptions(at)
    (recorded,) = history.list_runs(kind="risk")
    results = recorded["results"]
    assert results["sampling_fraction"] == pytest.approx(9 / 36)
    assert results["sampling_fraction_source"] == "population"
    shown = metrics(at)
    # each class of 3 matches its 12 people of the register: δ = 3/12, k-map = 12
    assert shown["k-map"] == "12"
    assert shown["δ-presence (range)"] == "0.2500 – 0.2500"
    assert any("Sampling fraction 0.25 (from the population table)" in c.value for c in at.caption)
    # a changed fraction source makes the shown result out of date
    at.radio(key="pl_population_choice").set_value("none").run()
    assert any("out of date" in w.value.lower() for w in at.warning), [w.value for w in at.warning]


def test_mdav_and_pram_run_from_the_anonymize_page_with_their_options(monkeypatch):
    monkeypatch.setattr("ui.anonymize.live.BURST_SECONDS", 0.0)
    at = open_page("anonymize.py")
    at.multiselect(key="an_qi").set_value(["Age"]).run()  # ZIP is a code, not averaged
    at.slider(key="an_k").set_value(3).run()
    at.selectbox(key="an_algorithm").set_value("mdav").run()
    at.button(key="an_run").click().run()
    no_exceptions(at)
    assert not at.error, [e.value for e in at.error]
    assert metrics(at)["k achieved"] == "3"
    assert any("released as the means of 3 groups of at least 3" in i.value for i in at.info)
    # MDAV has no option of its own; PRAM shows its two, with the registry's defaults
    assert [n.key for n in at.number_input] == ["an_seed"]
    at.selectbox(key="an_algorithm").set_value("pram").run()
    retain = at.number_input(key="an_pram_retain")
    assert (retain.value, retain.min, retain.max) == (0.8, 0.0, 1.0)
    assert at.number_input(key="an_pram_alpha").value == 0.5
    assert any("Invariant PRAM" in c.value or "stationary" in c.value for c in at.caption)
    retain.set_value(0.5).run()
    no_exceptions(at)
    assert not at.error, [e.value for e in at.error]
    assert any("invariant PRAM (pd = 0.5, alpha = 0.5)" in i.value for i in at.info)
    made = {
        (r["params"]["algorithm"], r["params"].get("pram_retain"))
        for r in history.list_runs(kind="anonymize")
    }
    assert ("pram", 0.5) in made and any(name == "mdav" for name, _ in made)
    # noise shows its own options (and PRAM's are gone)
    at.selectbox(key="an_algorithm").set_value("noise").run()
    no_exceptions(at)
    assert {n.key for n in at.number_input} == {"an_noise_level", "an_seed"}
    assert at.radio(key="an_noise_kind").value == "additive"
