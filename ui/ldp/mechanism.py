"""The first tab of the LDP auditor page: a local-DP mechanism of the registry audited
for the ε it claims, by the methods chosen (white-box AB, output-based OB, the certified
lower bound LB), with its verdict, figures and, for OB, the distributions and leakage."""

from __future__ import annotations

from typing import Any

import streamlit as st

from privcore.errors import PrivcoreError
from privcore.ldp.mechanisms import make
from privcore.runs import Inputs
from privcore.runs.registry import AUDIT_METHODS, DENSITIES, MECHANISMS
from ui.common.charts import show_chart
from ui.common.components import choice_radio
from ui.common.errors import show_error
from ui.common.heavy import heavy_button
from ui.common.i18n import labels, t
from ui.common.reproduce import reproduce_in_python
from ui.common.state import keep
from ui.common.workspace.results import guard_run, result_header
from ui.ldp import view
from ui.ldp.runs import audit, samples_input

RESULT = "ldp_result"


def mechanism_tab() -> None:
    """The mechanism and the audit's settings on the left, its result on the right."""
    left, right = st.columns([1, 2], gap="large")
    with left:
        values, inputs_text, go = _controls()
    with right:
        if go:
            _run(values, inputs_text)
        stored = st.session_state.get(RESULT)
        if stored and stored["outcome"].result:
            _result(stored, values)


def _controls() -> tuple[dict[str, Any], str, bool]:
    """The mechanism, ε, its domain, the OB inputs, the methods and their samples, the
    density mode and the seed; returns the request's values, the inputs as typed and
    whether Run was pressed."""
    names = list(MECHANISMS)
    name = st.selectbox(
        t("ldp.mechanism"),
        names,
        index=names.index("grr"),
        format_func=labels(names, view.mechanism_label),
        key=keep("ldp_mechanism"),
    )
    entry = MECHANISMS[name]
    st.caption(entry.source)
    epsilon = st.number_input("ε", 0.05, 10.0, 1.0, 0.25, key=keep("ldp_epsilon"))
    d = None
    if entry.family == "frequency":
        d = int(st.number_input(t("ldp.domain"), 2, 10_000, 20, key=keep("ldp_d")))
        st.caption(t("ldp.domain_values", top=d - 1))
    else:
        lo, hi = make(name, epsilon).input_range()
        st.caption(t("ldp.range", lo=f"{lo:g}", hi=f"{hi:g}"))
    inputs_text = st.text_input(
        t("ldp.inputs"), "", help=t("ldp.inputs_help"), key=keep("ldp_inputs")
    )
    methods = st.multiselect(
        t("ldp.methods"),
        list(AUDIT_METHODS),
        default=list(AUDIT_METHODS),
        format_func=labels(AUDIT_METHODS, lambda m: t(f"ldp.method_{m}")),
        key=keep("ldp_methods"),
    )
    n_ab = samples_input("ldp.n_ab", 5_000_000, 100_000, 50_000, "ldp_n_ab")
    n_ob = samples_input("ldp.n_ob", 1_000_000, 40_000, 10_000, "ldp_n_ob")
    n_lb = samples_input("ldp.n_lb", 5_000_000, 200_000, 100_000, "ldp_n_lb")
    density = choice_radio(
        t("ldp.density_mode"), list(DENSITIES), "ldp.density_", key=keep("ldp_density")
    )
    seed = int(st.number_input(t("an.seed"), 0, 2**31 - 1, 0, key=keep("ldp_seed")))
    go = heavy_button(t("ldp.run"), key="ldp_run", cancel_key="ldp_cancel")
    order = [m for m in AUDIT_METHODS if m in methods]  # as they run
    sizes = {"ab": n_ab, "ob": n_ob, "lb": n_lb}
    values = {
        "mechanism": name,
        "epsilon": float(epsilon),
        "domain": d,
        "methods": order,
        "method_samples": {m: sizes[m] for m in order},
        "density": density,
        "seed": seed,
    }
    return values, inputs_text, go


def _run(values: dict[str, Any], inputs_text: str) -> None:
    """The audit (recorded), kept with its parameters and the mechanism's description."""
    try:
        values["inputs"] = view.parse_inputs(inputs_text)
    except PrivcoreError as exc:
        show_error(exc)
        return
    outcome = guard_run(lambda: audit(values, Inputs(), label=t("ldp.auditing")))
    if outcome is not None:
        mechanism = make(values["mechanism"], values["epsilon"], d=values["domain"])
        st.session_state[RESULT] = {
            "outcome": outcome,
            "params": {k: v for k, v in values.items() if k != "inputs"},
            "mechanism": mechanism.describe(),
        }


def _result(stored: dict[str, Any], values: dict[str, Any]) -> None:
    """The audit kept: its header, the mechanism's true ε, the deciding verdict, the
    figures of every method, and OB's distributions and leakage."""
    reports = stored["outcome"].result
    now = {k: v for k, v in values.items() if k != "inputs"}
    result_header(stored, None, now, run_id=stored["outcome"].run_id)
    st.caption(t("ldp.true_epsilon", true=view.fmt(stored["mechanism"]["true_epsilon"])))
    deciding = view.deciding_report(reports)
    view.verdict_banner(deciding)
    view.summary_metrics(reports)
    view.decision_note(deciding)
    if "ob" in reports:
        ob = reports["ob"]
        chart = view.distributions_chart(ob, ob.details["inputs"])
        if chart is not None:
            show_chart(chart, key="ldp_mechanism_chart_data")
        view.show_leakage(ob, key="ldp_mechanism_leakage_data")
        st.caption(
            t(
                "ldp.ob_caption",
                floor=view.fmt(ob.details.get("floor"), 5),
                tau_d=ob.details.get("tau_d"),
                tau_c=ob.details.get("tau_c"),
            )
        )
    reproduce_in_python(stored["outcome"], key="ldp_audit")
