"""The other tabs of the LDP auditor page: ε sweep (one mechanism audited at several ε),
the planner (the samples a proportion's estimate needs) and randomization with
reconstruction (a distribution rebuilt from noisy reports)."""

from __future__ import annotations

import streamlit as st

from privcore.errors import PrivcoreError
from privcore.ldp import audit as ldp_audit
from privcore.runs import Inputs, ReconstructionRequest, SweepRequest
from privcore.runs.registry import MECHANISMS
from ui.common.charts import show_chart
from ui.common.components import choice_radio
from ui.common.errors import show_error
from ui.common.heavy import heavy_button, new_request, run_heavy
from ui.common.i18n import labels, t
from ui.common.reproduce import reproduce_call, reproduce_in_python
from ui.common.state import keep
from ui.common.workspace.results import guard_run
from ui.ldp import view
from ui.ldp.runs import PAGE


def sweep_tab() -> None:
    """A mechanism audited at each ε of a list (recorded): the chart and the table."""
    st.caption(t("ldp.sweep_help"))
    c1, c2 = st.columns(2)
    sweep_name = c1.selectbox(
        t("ldp.mechanism"),
        list(MECHANISMS),
        format_func=labels(MECHANISMS, view.mechanism_label),
        key=keep("ldp_sweep_mechanism"),
    )
    eps_text = c2.text_input(t("ldp.sweep_list"), "0.5, 1, 2, 4", key=keep("ldp_sweep_list"))
    sweep_d = 20 if MECHANISMS[sweep_name].family == "frequency" else None
    if heavy_button(t("ldp.run_sweep"), key="ldp_run_sweep", primary=False):
        try:
            epsilons = [float(x) for x in eps_text.replace(";", ",").split(",") if x.strip()]
        except ValueError:
            st.error(t("hierarchy.bad_numbers", text=eps_text))
        else:
            values = {"mechanism": sweep_name, "epsilons": epsilons, "domain": sweep_d}

            def sweep():
                inputs = Inputs()
                request = new_request(SweepRequest, values, inputs, page=PAGE)
                return run_heavy(request, inputs, label=t("ldp.sweeping"), page=PAGE)

            outcome = guard_run(sweep)
            if outcome is not None:
                show_chart(view.sweep_chart(outcome.result), key="ldp_sweep_chart_data")
                st.dataframe(view.sweep_table(outcome.result), hide_index=True)
                reproduce_in_python(outcome, key="ldp_sweep")


def planner_tab() -> None:
    """The samples needed to estimate a proportion p within a margin at a confidence."""
    st.caption(t("ldp.planner_help"))
    c1, c2, c3 = st.columns(3)
    p = c1.number_input(
        t("ldp.planner_p"), 0.0001, 0.9999, 0.01, 0.005, format="%.4f", key=keep("ldp_p")
    )
    margin = c2.number_input(
        t("ldp.planner_margin"), 0.00001, 0.5, 0.001, 0.0005, format="%.5f", key=keep("ldp_margin")
    )
    confidence = c3.number_input(
        t("ldp.planner_confidence"), 0.5, 0.9999, 0.95, 0.01, key=keep("ldp_conf")
    )
    try:
        st.metric(t("ldp.planner_n"), f"{ldp_audit.sample_size(p, margin, confidence):,}")
    except PrivcoreError as exc:
        show_error(exc)
        return
    call = f"ldp_audit.sample_size({float(p)!r}, {float(margin)!r}, {float(confidence)!r})"
    reproduce_call(f"from privcore.ldp import audit as ldp_audit\n\nprint({call})")


def reconstruction_tab() -> None:
    """Noisy reports of a known distribution, and the distribution reconstructed from
    them (Bayes or EM), with the total variation distance of each to the truth."""
    st.caption(t("ldp.rc_help"))
    c1, c2, c3, c4 = st.columns(4)
    kind = c1.selectbox(
        t("ldp.rc_noise"),
        ["uniform", "gaussian"],
        format_func=labels(["uniform", "gaussian"], lambda k: t(f"ldp.rc_{k}")),
        key=keep("ldp_rc_kind"),
    )
    scale = c2.number_input(t("ldp.rc_scale"), 0.5, 200.0, 25.0, 5.0, key=keep("ldp_rc_scale"))
    n_rc = int(
        c3.number_input(t("ldp.rc_n"), 1_000, 1_000_000, 100_000, 10_000, key=keep("ldp_rc_n"))
    )
    method = choice_radio(
        t("ldp.rc_method"), ["bayes", "em"], "ldp.rc_", key=keep("ldp_rc_method"), where=c4
    )
    if heavy_button(t("ldp.rc_run"), key="ldp_rc_run", primary=False):
        try:
            request = ReconstructionRequest(
                noise=kind, noise_scale=float(scale), values=n_rc, reconstruction=method
            )
            outcome = run_heavy(request, Inputs(), label=t("ldp.rc_run"), page=PAGE, record=False)
            (result, truth), summary = outcome.result, outcome.summary
            show_chart(
                view.reconstruction_chart(result.edges, truth, result.perturbed, result.estimate),
                key="ldp_rc_chart_data",
            )
            st.metric(t("ldp.rc_tv"), view.fmt(summary["tv"]), help=t("ldp.rc_tv_help"))
            st.caption(
                t(
                    "ldp.rc_tv_perturbed",
                    tv=view.fmt(summary["tv_perturbed"]),
                    iterations=summary["iterations"],
                )
            )
            reproduce_in_python(outcome, key="ldp_rc")
        except PrivcoreError as exc:
            show_error(exc)
