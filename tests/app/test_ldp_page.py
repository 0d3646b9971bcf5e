"""AppTest: the LDP auditor page — audits, uploaded samples, sweep, planner, reconstruction."""

from __future__ import annotations

import numpy as np
import pandas as pd

from privcore import history
from tests.app.conftest import ROOT, new_app, no_exceptions


def open_page():
    at = new_app()
    at.switch_page(str(ROOT / "pages" / "ldp_auditor.py"))
    at.run()
    return at


def test_audit_of_grr_is_consistent_and_recorded():
    at = open_page()
    no_exceptions(at)
    at.number_input(key="ldp_n_lb").set_value(100_000)
    at.button(key="ldp_run").click().run()
    no_exceptions(at)
    assert any("Consistent" in m.value for m in at.markdown)
    labels = {m.label for m in at.metric}
    assert {"AB estimate", "OB ε̂ (max over pairs)", "Certified lower bound ε_LB"} <= labels
    runs = history.list_runs(kind="audit")
    assert len(runs) == 1 and runs[0]["results"]["lb"]["verdict"] == "consistent"
    assert runs[0]["dataset_sha256"] is None


def test_broken_mechanism_is_a_violation():
    at = open_page()
    at.selectbox(key="ldp_mechanism").set_value("broken_grr")
    at.multiselect(key="ldp_methods").set_value(["lb"])
    at.button(key="ldp_run").click().run()
    no_exceptions(at)
    assert any("Violation" in m.value for m in at.markdown)


def test_ob_alone_on_a_broken_mechanism_says_the_estimate_is_above_the_claim():
    """OB never certifies a violation, but its words must not say nothing was found."""
    at = open_page()
    at.selectbox(key="ldp_mechanism").set_value("broken_grr")
    at.multiselect(key="ldp_methods").set_value(["ob"])
    at.button(key="ldp_run").click().run()
    no_exceptions(at)
    assert any("Inconclusive" in m.value for m in at.markdown)
    captions = " ".join(c.value for c in at.caption)
    assert "lies above the claimed ε = 1" in captions
    assert "run the certified lower bound" in captions
    assert "Nothing above" not in captions


def test_impossible_epsilon_is_refused_by_the_widget():
    at = open_page()
    assert at.number_input(key="ldp_epsilon").min == 0.05


def test_uploaded_samples_tab():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 4, 20_000)
    keep = rng.random(20_000) < np.e / (np.e + 3)
    y = np.where(keep, x, (x + rng.integers(1, 4, 20_000)) % 4)
    csv = pd.DataFrame({"x": x, "y": y}).to_csv(index=False).encode()
    at = open_page()
    at.file_uploader(key="ldp_samples").upload("samples.csv", csv, "text/csv")
    at.run()
    at.selectbox(key="ldp_in").set_value("x")
    at.selectbox(key="ldp_out").set_value("y")
    at.button(key="ldp_run_samples").click().run()
    no_exceptions(at)
    assert any(m.label == "OB ε̂ (max over pairs)" for m in at.metric)
    assert at.get("vega_lite_chart")  # the output distribution of each logged input


def test_planner_and_reconstruction_tabs():
    at = open_page()
    assert any(m.label == "Samples needed" for m in at.metric)
    at.button(key="ldp_rc_run").click().run()
    no_exceptions(at)
    tv = next(m for m in at.metric if m.label == "Total variation to the truth")
    assert float(tv.value) < 0.1


def test_samples_whose_outputs_never_overlap_are_called_unbounded():
    x = np.arange(3_000) % 3
    csv = pd.DataFrame({"x": x, "y": x}).to_csv(index=False).encode()
    at = open_page()
    at.file_uploader(key="ldp_samples").upload("identity.csv", csv, "text/csv")
    at.run()
    at.selectbox(key="ldp_in").set_value("x")
    at.selectbox(key="ldp_out").set_value("y")
    at.button(key="ldp_run_samples").click().run()
    no_exceptions(at)
    captions = " ".join(c.value for c in at.caption)
    assert "never overlap (0/1, 0/2, 1/2)" in captions and "ε = ∞" in captions


def test_an_audit_stopped_by_cancel_is_recorded_as_cancelled(monkeypatch):
    """Cancel makes Streamlit stop the running script; the audit still leaves its run."""
    from streamlit.runtime.scriptrunner_utils.exceptions import StopException

    from privcore.ldp import audit

    def stopped(*_args, **_kwargs):
        raise StopException()

    monkeypatch.setattr(audit, "lower_bound", stopped)
    at = open_page()
    at.multiselect(key="ldp_methods").set_value(["lb"])
    at.button(key="ldp_run").click().run()
    [run] = history.list_runs(kind="audit")
    assert run["status"] == "cancelled" and run["results"] == {}


def test_failed_sample_and_sweep_audits_are_recorded():
    csv = pd.DataFrame({"x": [0, 1] * 30, "y": [1, 0] * 30}).to_csv(index=False).encode()
    at = open_page()
    at.file_uploader(key="ldp_samples").upload("few.csv", csv, "text/csv")
    at.run()
    at.selectbox(key="ldp_in").set_value("x")
    at.selectbox(key="ldp_out").set_value("y")
    at.button(key="ldp_run_samples").click().run()
    no_exceptions(at)
    assert at.error  # too few samples per input
    at.text_input(key="ldp_sweep_list").set_value("1, -2").run()
    at.button(key="ldp_run_sweep").click().run()
    no_exceptions(at)
    statuses = [r["status"] for r in history.list_runs(kind="audit")]
    assert statuses == ["error", "error"], statuses


def page_text(at) -> str:
    return " ".join([*(m.value for m in at.markdown), *(c.value for c in at.caption)])


def test_charts_device_badge_sweep_and_the_chinese_page():
    import json

    at = open_page()
    assert "running on the CPU" in page_text(at)
    at.multiselect(key="ldp_methods").set_value(["ob", "lb"])
    at.number_input(key="ldp_n_lb").set_value(100_000)
    at.button(key="ldp_run").click().run()
    no_exceptions(at)
    specs = [json.dumps(json.loads(c.proto.spec)) for c in at.get("vega_lite_chart")]
    assert specs  # output distributions per input (pmf bars) at least
    at.text_input(key="ldp_sweep_list").set_value("0.5, 1, 2")
    at.button(key="ldp_run_sweep").click().run()
    no_exceptions(at)
    after = [json.dumps(json.loads(c.proto.spec)) for c in at.get("vega_lite_chart")]
    assert len(after) > len(specs)  # the sweep chart: measured vs claimed with y = x
    runs = history.list_runs(kind="audit")
    sweep = next(r for r in runs if "sweep" in (r["params"] or {}))
    assert [row["epsilon"] for row in sweep["results"]["rows"]] == [0.5, 1.0, 2.0]
    at.session_state["lang"] = "zh"
    at.run()
    no_exceptions(at)
    assert at.title[0].value == "LDP 审计"
    assert "在 CPU 上运行" in page_text(at)


def test_chosen_inputs_and_the_range_of_a_mean_mechanism():
    at = open_page()
    assert "Domain: the values 0 … 19." in page_text(at)
    at.multiselect(key="ldp_methods").set_value(["ab", "ob"])
    at.number_input(key="ldp_n_ab").set_value(20_000)
    at.text_input(key="ldp_inputs").set_value("0, 5, 19")
    at.button(key="ldp_run").click().run()
    no_exceptions(at)
    [run] = history.list_runs(kind="audit")
    assert run["params"]["inputs"] == [0.0, 5.0, 19.0]
    assert run["results"]["ob"]["inputs"] == [0, 5, 19]
    assert run["results"]["ab"]["samples"] == 20_000
    at.text_input(key="ldp_inputs").set_value("0, 25")
    at.button(key="ldp_run").click().run()
    no_exceptions(at)
    assert any("from 0 to 19; not 25" in e.value for e in at.error)
    at.selectbox(key="ldp_mechanism").set_value("duchi")
    at.text_input(key="ldp_inputs").set_value("")
    at.run()
    assert "Inputs are numbers in [-1, 1]." in page_text(at)


def test_subset_selection_is_measured_as_one_joint_symbol():
    at = open_page()
    at.selectbox(key="ldp_mechanism").set_value("ss").run()
    at.number_input(key="ldp_d").set_value(10)
    at.multiselect(key="ldp_methods").set_value(["ob"])
    at.number_input(key="ldp_n_ob").set_value(20_000)
    at.button(key="ldp_run").click().run()
    no_exceptions(at)
    captions = " ".join(c.value for c in at.caption)
    assert "one joint symbol" in captions
    run = history.list_runs(kind="audit")[0]
    assert run["results"]["ob"]["verdict"] in ("consistent", "inconclusive")


def test_an_audit_over_the_memory_budget_is_refused_before_any_work():
    """OB on SHE (d = 2000) keeps 1,375 MB of tables: refused with what to lower, as an
    error, before AB (selected too) runs; the run is recorded as an error."""
    at = open_page()
    at.selectbox(key="ldp_mechanism").set_value("she").run()
    at.number_input(key="ldp_d").set_value(2000)
    at.multiselect(key="ldp_methods").set_value(["ab", "ob"])
    at.button(key="ldp_run").click().run()
    no_exceptions(at)
    [error] = [e.value.replace("\\", "") for e in at.error]  # shown as escaped Markdown
    assert "1409 MB" in error and "PRIVCORE_AUDIT_MEMORY_MB" in error
    assert "at most 1441" in error and "at most 5 inputs" in error
    assert not any(m.label == "AB estimate" for m in at.metric)
    [run] = history.list_runs(kind="audit")
    # recorded by its code and figures (the one policy of privcore.runs), no sentence
    assert run["status"] == "error" and run["error"] == "ldp.memory_budget"
    assert run["results"]["error"]["params"]["need_mb"] == 1409


def test_ob_says_what_inconclusive_means_and_the_rule_is_stated():
    at = open_page()
    at.multiselect(key="ldp_methods").set_value(["ob"])
    at.number_input(key="ldp_n_ob").set_value(20_000)
    at.button(key="ldp_run").click().run()
    no_exceptions(at)
    assert any("Inconclusive" in m.value for m in at.markdown)
    captions = " ".join(c.value for c in at.caption)
    assert "No evidence above the claim at this resolution; run the certified lower bound" in (
        captions
    )
    assert "OB only estimates" in captions and "not that the mechanism is safe" in captions
    assert "called a violation in at most 0.1% of audits" in captions
    [run] = history.list_runs(kind="audit")
    ob = run["results"]["ob"]
    assert (ob["verdict"], ob["reason"]) == ("inconclusive", "no_evidence_at_resolution")
    assert ob["false_alarm_rate"] == 0.001


def test_a_stop_during_the_progress_update_ends_a_long_audit(monkeypatch):
    """Streamlit honours Cancel (or a closed tab) by raising from the next call that
    touches the page: the bar's update, called between chunks. A 5,000,000-sample bound
    on SUE (d = 10,000: minutes of work) stops at the third update."""
    import time

    from streamlit.runtime.scriptrunner_utils.exceptions import StopException

    from ui.common.progress import ProgressBar

    original = ProgressBar.step
    calls = []

    def stopping_step(self, index):
        callback = original(self, index)

        def progress(fraction, message):
            callback(fraction, message)  # the bar's stop point runs on every call
            calls.append(fraction)
            if len(calls) >= 3:
                raise StopException()

        return progress

    monkeypatch.setattr(ProgressBar, "step", stopping_step)
    at = open_page()
    at.selectbox(key="ldp_mechanism").set_value("sue").run()
    at.number_input(key="ldp_d").set_value(10_000)
    at.multiselect(key="ldp_methods").set_value(["lb"])
    at.number_input(key="ldp_n_lb").set_value(5_000_000)
    started = time.perf_counter()
    at.button(key="ldp_run").click().run()
    assert time.perf_counter() - started < 60  # one chunk is 52 reports, not minutes
    assert len(calls) == 3 and calls == sorted(calls)
    [run] = history.list_runs(kind="audit")
    assert run["status"] == "cancelled"
