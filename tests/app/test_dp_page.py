"""AppTest: the Differential privacy page — the dinner story, the query builder and its
budget, DP vs k-anonymity, and the audit of central mechanisms."""

from __future__ import annotations

import math

import pytest

from privcore import history
from tests.app.conftest import ROOT, new_app, no_exceptions, shown_tables

PAGE = str(ROOT / "pages" / "differential_privacy.py")


def open_page(lang: str = "en", data: str | None = None):
    at = new_app()
    at.session_state["lang"] = lang
    if data is not None:
        at.session_state["workbench"].active = data
    at.run()
    at.switch_page(PAGE)
    at.run()
    no_exceptions(at)
    return at


def metric(at, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


@pytest.mark.parametrize(("lang", "title"), [("en", "Differential privacy"), ("zh", "差分隐私")])
def test_the_page_opens_in_both_languages(lang, title):
    at = open_page(lang)
    assert at.title[0].value == title
    assert len(at.tabs) == 6


def test_the_dinner_story_at_ln3_gives_a_posterior_of_three_quarters():
    at = open_page()
    at.selectbox(key="dp_leaver").set_value("Zhang San")
    at.slider(key="dp_dinner_epsilon").set_value(math.log(3))
    at.slider(key="dp_prior").set_value(0.5)
    at.button(key="dp_play").click().run()
    no_exceptions(at)
    assert metric(at, "Singles at the table (exact)") == "2 → 1"
    assert metric(at, "Diners") == "10 → 9"
    shown = " ".join(m.value for m in at.markdown)
    assert "**1.000**" in shown  # exact answers: learned for certain
    assert "**0.750**" in shown  # ε-DP answers: p·e^ε / (p·e^ε + 1 − p) = 0.75
    [run] = history.list_runs(kind="dp_dinner")
    assert run["status"] == "ok" and run["params"]["leaver"] == "Zhang San"
    assert abs(run["results"]["posterior_max"] - 0.75) < 1e-12


def test_the_query_builder_spends_the_budget_and_refuses_a_query_over_it():
    at = open_page(data="hospital")
    at.number_input(key="dp_budget_epsilon").set_value(1.0)
    at.number_input(key="dp_query_epsilon").set_value(0.6)
    at.button(key="dp_answer").click().run()
    no_exceptions(at)
    assert metric(at, "ε spent") == "0.6"
    assert not at.error
    [ledger] = [f for f in shown_tables(at) if "Query" in f.columns]
    assert list(ledger["Query"]) == ["count()"] and list(ledger["ε"]) == ["0.6"]
    assert "True answer" not in " ".join(m.label for m in at.metric)  # a DP user never sees it
    # a second query at 0.6 would spend 1.2 > 1: refused before any noise is drawn
    at.button(key="dp_answer").click().run()
    no_exceptions(at)
    assert at.error and "remain" in at.error[0].value
    assert metric(at, "ε spent") == "0.6"
    [ledger] = [f for f in shown_tables(at) if "Query" in f.columns]
    assert len(ledger) == 1
    assert len(history.list_runs(kind="dp_query")) == 1
    # a new budget starts from nothing
    at.button(key="dp_new_budget").click().run()
    assert metric(at, "ε spent") == "0"


def test_dp_versus_k_anonymity_on_the_hospital_table_is_compared_and_recorded():
    at = open_page(data="hospital")
    at.number_input(key="dp_release_k").set_value(3)
    at.button(key="dp_release_run").click().run()
    no_exceptions(at)
    assert not at.error, [e.value for e in at.error]
    tables = shown_tables(at)
    per_query = next(f for f in tables if "DP error" in f.columns)
    assert {"True count", "k-anonymous error", "Zero in truth"} <= set(per_query.columns)
    assert len(per_query) > 0
    [run] = history.list_runs(kind="dp_release")
    assert run["status"] == "ok" and run["params"]["qi"] == ["ZIP", "Age"]
    assert run["results"]["comparison"]["queries"] == len(per_query)
    labels = [b.proto.label for b in at.get("download_button")]
    assert "Synthesized records (CSV)" in labels and "Errors per query (CSV)" in labels
    # singling out, linkability and inference of both methods (on by default), each made
    # again from 7 of the 9 patients and attacked against the other 2
    assert run["params"]["gdpr"] is True
    risks = run["results"]["gdpr_risks"]
    assert set(risks) == {"dp", "k_anon"}
    assert at.session_state["dp_release_result"]["outcome"].result.gdpr_risks == risks
    shown = [f for f in tables if "Release" in f.columns]
    captions = " ".join(c.value for c in at.caption)
    for method, label in (("dp", "DP release"), ("k_anon", "3-anonymous release")):
        if "not_measured" in risks[method]:  # e.g. a DP release of 7 records may hold none
            assert f"{label}" in captions and "were not measured" in captions
        else:
            rows = shown[0][shown[0]["Release"].str.startswith(label)]
            assert rows.iloc[0]["Attack"] == "Singling out"
            assert rows.iloc[0]["Risk"] == f"{100 * risks[method]['singling_out']['risk']:.2f} %"


def test_a_release_over_a_column_without_hierarchy_is_a_message_not_a_traceback():
    at = open_page(data="hospital")
    at.multiselect(key="dp_release_qi").set_value(["ZIP", "Salary"])
    at.number_input(key="dp_release_k").set_value(3)
    at.button(key="dp_release_run").click().run()
    no_exceptions(at)
    assert at.error
    [run] = history.list_runs(kind="dp_release")
    assert run["status"] == "error"


def test_the_audit_flags_a_broken_mechanism():
    at = open_page()
    at.selectbox(key="dp_audited").set_value("broken_float_laplace")
    at.button(key="dp_audit_run").click().run()
    no_exceptions(at)
    assert any("Violation" in m.value for m in at.markdown)
    [run] = history.list_runs(kind="dp_audit")
    assert run["results"]["verdict"] == "violation"


def test_the_attack_on_a_person_of_the_data_is_shown_and_recorded_without_the_value():
    at = open_page(data="hospital")
    at.number_input(key="dp_target_row").set_value(2)
    at.selectbox(key="dp_target_column").set_value("Disease").run()
    at.selectbox(key="dp_target_value").set_value("stomach cancer")
    at.button(key="dp_attack_person").click().run()
    no_exceptions(at)
    # two patients have stomach cancer (rows 2 and 8): counted with and without row 2
    assert metric(at, "Exact counts with → without the person") == "2 → 1"
    [run] = history.list_runs(kind="dp_differencing")
    assert run["params"]["where"] == ["Disease"]
    assert "stomach" not in str(run["params"]) + str(run["results"])
    assert run["results"]["posterior_exact_answers"] == 1.0


def test_accuracy_improves_with_epsilon_and_is_drawn_as_a_band():
    at = open_page(data="hospital")
    at.radio(key="dp_acc_source").set_value("count").run()
    at.button(key="dp_acc_run").click().run()
    no_exceptions(at)
    [curve] = [f for f in shown_tables(at) if "Median error" in f.columns]
    assert len(curve) == 12 and curve["ε"].is_monotonic_increasing
    # the geometric count's error shrinks as 1/ε: from about 20 at ε = 0.05 to 0 or 1 at 5
    assert curve["Median error"].iloc[0] > 5 * max(curve["Median error"].iloc[-1], 1)
    assert len(at.get("vega_lite_chart")) >= 2  # the posterior chart and the band
    # the stated 95 % half-width checked by the share of answers within it, per ε
    assert curve["within the half-width [95 % interval]"].str.match(r"\d+\.\d % \[").all()
    assert any(c.value.startswith("Draw 0 (200 answers per ε)") for c in at.caption)
    # a second run draws a new sample: another seed, other errors
    at.button(key="dp_acc_run").click().run()
    [again] = [f for f in shown_tables(at) if "Median error" in f.columns]
    assert any(c.value.startswith("Draw 1 (") for c in at.caption)
    assert not again.equals(curve)
    # the chart's text alternative: a caption from its data, the data behind a toggle
    assert any(c.value.startswith("Chart «Error of the noisy answer") for c in at.caption), [
        c.value for c in at.caption
    ]
    at.toggle(key="dp_accuracy_chart_data").set_value(True).run()
    behind = [f for f in shown_tables(at) if "ε" in f.columns and "Median error" not in f.columns]
    assert behind and len(behind[0]) >= 12


def test_uploaded_outputs_that_tell_the_data_sets_apart_are_a_violation():
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    csv = pd.DataFrame(
        {"on_d": rng.laplace(0.0, 1.0, 2_000), "on_d_prime": rng.laplace(10.0, 1.0, 2_000)}
    ).to_csv(index=False)
    at = open_page()
    at.file_uploader(key="dp_outputs").upload("outputs.csv", csv.encode(), "text/csv")
    at.run()
    at.selectbox(key="dp_outputs_d").set_value("on_d")
    at.selectbox(key="dp_outputs_d_prime").set_value("on_d_prime")
    at.button(key="dp_audit_outputs").click().run()
    no_exceptions(at)
    assert any("Violation" in m.value for m in at.markdown)
    [run] = history.list_runs(kind="dp_audit")
    assert run["params"]["audited"] == "uploaded" and run["results"]["verdict"] == "violation"


def test_uploaded_outputs_without_a_violation_are_not_called_consistent():
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    csv = pd.DataFrame(
        {"on_d": rng.laplace(0.0, 1.0, 2_000), "on_d_prime": rng.laplace(0.0, 1.0, 2_000)}
    ).to_csv(index=False)
    at = open_page()
    at.file_uploader(key="dp_outputs").upload("outputs.csv", csv.encode(), "text/csv")
    at.run()
    at.selectbox(key="dp_outputs_d").set_value("on_d")
    at.selectbox(key="dp_outputs_d_prime").set_value("on_d_prime")
    at.button(key="dp_audit_outputs").click().run()
    no_exceptions(at)
    [card] = [m.value for m in at.markdown if "No violation found at this sample size" in m.value]
    [detail] = [c.value for c in at.caption if "outputs per data set" in c.value]
    assert "2,000 outputs per data set" in detail and "This is not a clearance" in detail
    assert "onsistent" not in card + detail
    [run] = history.list_runs(kind="dp_audit")
    assert run["results"]["reason"] == "no_violation_found"
