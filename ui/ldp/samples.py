"""The second tab of the LDP auditor page: an implementation's logged samples (an input
column and one or several output columns of an uploaded table) audited for the ε it
claims, without a mechanism to inspect."""

from __future__ import annotations

from typing import Any

import streamlit as st

from privcore.errors import PrivcoreError
from privcore.runs import Inputs
from privcore.runs.registry import AUDIT_METHODS
from ui.common.charts import show_chart
from ui.common.components import choice_radio
from ui.common.errors import show_error
from ui.common.heavy import heavy_button
from ui.common.i18n import labels, t
from ui.common.reproduce import reproduce_in_python
from ui.common.state import keep, load_upload
from ui.common.workspace.results import guard_run
from ui.common.workspace.shelf import RELEASE_TYPES
from ui.ldp import view
from ui.ldp.runs import audit


def samples_tab() -> None:
    """The upload, its columns, the claimed ε and the method; the audit when asked."""
    st.caption(t("ldp.samples_help"))
    upload = st.file_uploader(t("ldp.samples_file"), type=RELEASE_TYPES, key="ldp_samples")
    if upload is None:
        return
    try:
        samples = load_upload(upload.getvalue(), upload.name).frame
        input_col, outputs, claimed, method = _columns([str(c) for c in samples.columns])
        if heavy_button(t("ldp.run_samples"), key="ldp_run_samples"):
            _audit(upload, input_col, outputs, claimed, method)
    except PrivcoreError as exc:
        show_error(exc)


def _columns(columns: list[str]) -> tuple[str, list[str], float, str]:
    """The input column, the output columns (one, or those with a prefix), the claimed ε
    and the method (logged samples have no mechanism to inspect: no white-box AB)."""
    c1, c2, c3 = st.columns(3)
    input_col = c1.selectbox(
        t("ldp.input_col"), columns, key=keep("ldp_in", valid=lambda v: v in columns)
    )
    shape = choice_radio(
        t("ldp.output_shape"), ["one", "prefix"], "ldp.output_", key=keep("ldp_shape"), where=c2
    )
    others = [c for c in columns if c != input_col]
    if shape == "one":
        outputs = [
            c2.selectbox(
                t("ldp.output_col"),
                others,
                key=keep("ldp_out", valid=lambda v: v in others),
            )
        ]
    else:
        prefix = c2.text_input(t("ldp.output_prefix"), "y", key=keep("ldp_prefix"))
        outputs = [c for c in others if c.startswith(prefix)]
        c2.caption(t("ldp.prefix_columns", n=len(outputs)))
    claimed = c3.number_input(t("ldp.claimed"), 0.05, 20.0, 1.0, 0.25, key=keep("ldp_claim"))
    method = c3.radio(
        t("ldp.methods"),
        # logged samples have no mechanism to inspect: no white-box AB
        [m for m in AUDIT_METHODS if m != "ab"],
        horizontal=True,
        format_func=labels(AUDIT_METHODS, lambda m: t(f"ldp.method_{m}")),
        key=keep("ldp_s_method"),
    )
    return input_col, outputs, claimed, method


def _audit(upload: Any, input_col: str, outputs: list[str], claimed: float, method: str) -> None:
    """The audit of the uploaded samples (recorded), and its verdict and figures."""
    dataset = load_upload(upload.getvalue(), upload.name)
    outcome = guard_run(
        lambda: audit(
            {
                "epsilon": float(claimed),
                "methods": [method],
                "input_column": input_col,
                "output_columns": outputs,
            },
            Inputs(samples=dataset, names={"samples": upload.name}),
            label=t("ldp.auditing"),
        )
    )
    if outcome is None:
        return
    report = outcome.result[method]
    view.verdict_banner(report)
    view.summary_metrics({method: report})
    view.decision_note(report)
    if method == "ob":  # what the implementation's outputs look like per input
        chart = view.distributions_chart(report, report.details["inputs"])
        if chart is not None:
            show_chart(chart, key="ldp_samples_chart_data")
        view.show_leakage(report, key="ldp_samples_leakage_data")
    reproduce_in_python(outcome, key="ldp_samples")
