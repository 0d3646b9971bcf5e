"""AppTest: the DP release tab of the Differential privacy page by MST and AIM — the
method, δ, the intervals and public bounds of numeric columns; the result's (ε, δ) and
ρ, its ρ ledger step by step, its binnings and each released marginal's error bound; the
synthetic records put on the shelf once, as DP synthetic, whatever page assesses them;
the new controls and tables in Chinese."""

from __future__ import annotations

from dataclasses import replace

import pytest

from privcore import history
from privcore.data import load_sample
from privcore.dp.synthesis import DEFAULT_DELTA
from tests.app.conftest import ROOT, new_app, no_exceptions, shown_tables
from ui.common.workspace.pairing import shelf_inputs

PAGE = str(ROOT / "pages" / "differential_privacy.py")
DATA = "adult_2000.csv"
QI = ["sex", "age", "race"]
SA = "occupation"
#: The released marginals, the SA's first, then each QI × SA.
RELEASED = [[SA], *([q, SA] for q in QI)]


@pytest.fixture(scope="module")
def adult_2000():
    """The first 2,000 rows of the bundled Adult sample, with its roles."""
    dataset, schema = load_sample("adult")[:2]
    return replace(dataset, frame=dataset.frame.head(2000).reset_index(drop=True)), schema


def open_tab(adult_2000, lang: str = "en", method: str | None = None):
    """The DP page on the 2,000 rows: the release of sex, age and race with occupation at
    ε = 2 beside a 10-anonymous Mondrian release (a binned age has no hierarchy), without
    the attacks of both (quicker); ``method`` chosen."""
    at = new_app()
    at.session_state["lang"] = lang
    wb = at.session_state["workbench"]
    wb.uploads[DATA], wb.confirmed[DATA] = adult_2000
    wb.active = DATA
    at.run()
    at.switch_page(PAGE)
    at.run()
    no_exceptions(at)
    at.multiselect(key="dp_release_qi").set_value(QI)
    at.selectbox(key="dp_release_sa").set_value(SA)
    at.number_input(key="dp_release_epsilon").set_value(2.0)
    at.selectbox(key="dp_release_algorithm").set_value("mondrian")
    at.checkbox(key="dp_release_gdpr").uncheck()
    if method is not None:
        at.radio(key="dp_release_method").set_value(method)
    at.run()
    no_exceptions(at)
    return at


def release(at):
    at.button(key="dp_release_run").click().run()
    no_exceptions(at)
    assert not at.error, [e.value for e in at.error]
    return at.session_state["dp_release_result"]["outcome"]


def table_with(at, column: str):
    return next(f for f in shown_tables(at) if column in f.columns)


def keys(elements) -> set[str]:
    return {e.key for e in elements if e.key}


def captions(at) -> list[str]:
    return [c.value.replace("\\", "") for c in at.caption]


def test_delta_intervals_and_bounds_are_asked_for_mst_and_aim_only(adult_2000):
    at = open_tab(adult_2000)
    assert at.radio(key="dp_release_method").value == "marginals"
    asked = {"dp_release_delta", "dp_release_bins"}
    assert not asked & keys(at.number_input)
    assert "dp_release_known::age" not in keys(at.checkbox)
    for method in ("mst", "aim"):
        at.radio(key="dp_release_method").set_value(method).run()
        no_exceptions(at)
        assert asked <= keys(at.number_input)
        assert at.number_input(key="dp_release_delta").value == DEFAULT_DELTA
        assert at.number_input(key="dp_release_bins").value == 10
        # age has 72 values: it is cut into intervals, its range public or chosen under DP
        assert at.checkbox(key="dp_release_known::age").label == "I know the range of age"
        assert not {"dp_release_known::sex", "dp_release_known::race"} & keys(at.checkbox)
        said = captions(at)
        assert any(c.startswith("age: more than 32 distinct values") for c in said), said
        assert not at.warning
    # the default algorithm generalizes along hierarchies: age's intervals have their own
    at.selectbox(key="dp_release_algorithm").set_value("optimal").run()
    assert not at.warning
    at.radio(key="dp_release_method").set_value("marginals").run()
    assert not asked & keys(at.number_input)


@pytest.mark.parametrize("method", ["mst", "aim"])
def test_a_release_by_mst_or_aim_shows_its_budget_binnings_and_error_bounds(adult_2000, method):
    at = open_tab(adult_2000, method=method)
    dp = release(at).result.dp
    assert (dp.method, dp.epsilon, dp.delta) == (method, 2.0, DEFAULT_DELTA)
    title = f"**DP release by {method.upper()} (ε = 2, δ = 1e-09)**"
    assert title in [m.value for m in at.markdown]
    assert any(f"is ρ = {dp.rho:.4g} of zero-concentrated DP" in c for c in captions(at))
    # the budget step by step: the DP bounds of age first, then the synthesizer's steps
    ledger = table_with(at, "ρ spent so far")
    assert list(ledger.columns) == ["Step", "ρ", "ρ spent so far"]
    assert len(ledger) == len(dp.ledger)
    assert list(ledger["Step"][:4]) == [
        "median of age (bounds chosen under DP)",
        "lower bound of age",
        "upper bound of age",
        "one-way marginal of sex",
    ]
    assert ledger["ρ spent so far"].iloc[-1] == f"{dp.ledger[-1]['spent_rho']:.4g}"
    assert abs(dp.ledger[-1]["spent_rho"] - dp.rho) < 1e-9 * dp.rho
    if method == "aim":
        assert "round 1: selection" in set(ledger["Step"])
    else:
        assert "selection of pair 1 of 3" in set(ledger["Step"])
    # age cut into 10 intervals between bounds chosen under DP
    [binning] = dp.binnings
    assert (binning["column"], binning["bins"], binning["source"]) == ("age", 10, "dp")
    words = (
        f"age: 10 intervals from {binning['lower']:.4g} to {binning['upper']:.4g}, "
        "bounds chosen under DP."
    )
    assert words in captions(at)
    # each released marginal's error bound at 95 %, in its table and beside each count
    bounds = table_with(at, "Error bound (95 %)")
    assert list(bounds["Marginal"]) == [" × ".join(m) for m in RELEASED]
    for shown, bound in zip(bounds["Error bound (95 %)"], dp.bounds, strict=True):
        if bound["source"] == "none":
            assert shown == "no bound: not measured"
        else:
            assert shown == f"TVD ≤ {bound['tvd']:.4g} (L1 ≤ {bound['l1']:.4g})"
    assert set(bounds["How it was found"]) <= {
        "from its measurement",
        "from the selection round that passed it over",
        "neither measured nor a candidate of any round",
    }
    per_query = table_with(at, "DP error")
    beside = dict(zip(bounds["Marginal"], bounds["Error bound (95 %)"], strict=True))
    for marginal, shown in zip(
        per_query["Marginal"], per_query["DP error bound on the marginal (95 %)"], strict=True
    ):
        assert shown == beside[marginal]
    [run] = history.list_runs(kind="dp_release")
    assert run["status"] == "ok" and run["params"]["method"] == method
    assert run["results"]["binnings"] == list(dp.binnings)


def test_public_bounds_and_intervals_are_passed_through(adult_2000):
    at = open_tab(adult_2000, method="mst")
    at.checkbox(key="dp_release_known::age").check().run()
    at.number_input(key="dp_release_lower::age").set_value(15.0)
    at.number_input(key="dp_release_upper::age").set_value(95.0)
    at.number_input(key="dp_release_bins").set_value(8).run()
    no_exceptions(at)
    assert not any(c.startswith("age: more than 32") for c in captions(at))
    dp = release(at).result.dp
    assert list(dp.binnings) == [
        {"column": "age", "lower": 15.0, "upper": 95.0, "bins": 8, "source": "public"}
    ]
    assert "age: 8 intervals from 15 to 95, bounds public (given)." in captions(at)
    steps = list(table_with(at, "ρ spent so far")["Step"])
    assert not any("of age (bounds" in s or s.endswith("bound of age") for s in steps)
    assert set(dp.records["age"]) <= {f"[{15 + 10 * i}, {25 + 10 * i})" for i in range(8)}
    [run] = history.list_runs(kind="dp_release")
    assert run["params"]["bounds"] == [["age", 15.0, 95.0]] and run["params"]["bins"] == 8


def test_the_synthetic_records_go_on_the_shelf_once_as_dp_synthetic(adult_2000):
    at = open_tab(adult_2000, method="aim")
    outcome = release(at)
    wb = at.session_state["workbench"]
    before = len(wb.shelf)
    at.button(key="dp_release_shelve").click().run()
    no_exceptions(at)
    assert [s.value for s in at.success] == [
        "«DP synthetic (AIM, ε = 2)» is on the shelf of releases."
    ]
    [entry] = wb.shelf[before:]
    assert (entry.data, entry.source, entry.kind, entry.aligned) == (
        DATA,
        "dp",
        "dp_synthetic",
        False,
    )
    assert (entry.qi, entry.sa, entry.run_id) == (tuple(QI), (SA,), outcome.run_id)
    assert entry.frame.equals(outcome.result.dp.records) and not entry.made_here
    original, schema = adult_2000
    assert shelf_inputs(entry, original, schema).release_kind == "dp_synthetic"
    # a second click adds none, and says where the records are
    at.button(key="dp_release_shelve").click().run()
    no_exceptions(at)
    assert len(wb.shelf) == before + 1 and not at.success
    assert any("already on the shelf as «DP synthetic (AIM, ε = 2)»" in i.value for i in at.info)
    # an assessing page offers it and says what it is; the attack publishes none of its cells
    wb.under_review[DATA] = entry.id
    at.switch_page(str(ROOT / "pages" / "attack.py"))
    at.run()
    no_exceptions(at)
    said = captions(at)
    assert any(c.startswith("Synthetic records of a DP release on the Differential") for c in said)
    assert any("is a DP synthetic release" in c for c in said), said


def test_the_chinese_tab_words_the_new_controls_and_tables(adult_2000):
    at = open_tab(adult_2000, lang="zh", method="mst")
    method = at.radio(key="dp_release_method")
    assert method.label == "DP 发布的方法"
    assert method.options == [
        "带噪边缘表（ε-差分隐私）",
        "MST（(ε, δ)-差分隐私）",
        "AIM（(ε, δ)-差分隐私）",
    ]
    assert at.number_input(key="dp_release_bins").label == "数值列的区间数"
    assert at.checkbox(key="dp_release_known::age").label == "我知道 age 的取值范围"
    release(at)
    markdown = [m.value for m in at.markdown]
    assert "**由 MST 生成的 DP 发布（ε = 2，δ = 1e-09）**" in markdown
    ledger = table_with(at, "累计花费 ρ")
    assert list(ledger.columns) == ["步骤", "ρ", "累计花费 ρ"]
    assert ledger["步骤"].iloc[0] == "age 的中位数（差分隐私下选择上下界）"
    assert not any("marginal" in s or "selection" in s for s in ledger["步骤"])
    bounds = table_with(at, "误差上界（95 %）")
    assert list(bounds.columns) == ["边缘表", "误差上界（95 %）", "如何得出"]
    assert any(c.startswith("age：从 ") for c in captions(at))
    at.button(key="dp_release_shelve").click().run()
    no_exceptions(at)
    assert [s.value for s in at.success] == ["「差分隐私合成（MST，ε = 2）」已放入发布架。"]


def test_every_method_compared_on_one_workload(adult_2000):
    """The Chinese page's "Compare every method": one row per method — its errors on the
    2- and 3-way marginals, the model trained on it, the reconstruction — or its reason,
    in the catalogue's words."""
    lang = "zh"
    from privcore.report.method_comparison import DP_METHODS, OTHER_METHODS
    from privcore.words.catalog import text

    at = open_tab(adult_2000, lang, method="mst")
    at.checkbox(key="dp_release_compare").check().run()
    outcome = release(at)
    compared = outcome.result.methods
    assert [m.method for m in compared.methods] == [*DP_METHODS, *OTHER_METHODS]
    shown = table_with(at, text("dp.methods_tvd3", lang))
    assert len(shown) == len(compared.methods)
    assert text("dp.methods_title", lang) in [h.value for h in at.subheader]
    for method, row in zip(compared.methods, shown.to_dict("records"), strict=True):
        why = row[text("dp.methods_why", lang)]
        if method.not_measured is not None:  # the reason in the page's words, never blank
            from privcore.words.catalog import error_words

            assert why == error_words(method.not_measured, lang) and why
        else:
            assert row[text("dp.methods_tvd2", lang)] != "—"
        risks = method.risks or {}
        if risks and "not_measured" not in risks:  # all three held-out risks, each worded
            assert row[text("dp.methods_singling_out", lang)].endswith("]")
            assert row[text("dp.methods_inference", lang)].startswith(f"{SA} ")
            assert text("dp.methods_linkability", lang) in row
    from privcore.report.method_comparison import uninformative_majority

    flat = uninformative_majority(m.regression for m in compared.methods) is not None
    said = [c for c in captions(at) if c.startswith(text("dp.methods_regression_flat", lang)[:12])]
    assert len(said) == int(flat)
