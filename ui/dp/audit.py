"""The audit tab of the Differential privacy page: a central mechanism audited for the ε
it claims (ε_LB, a certified lower bound), or the outputs of an implementation on two
neighbouring data sets, uploaded."""

from __future__ import annotations

import streamlit as st

from privcore.dp.audit import AUDIT_MECHANISMS, DEFAULT_SAMPLES, MAX_SAMPLES, MIN_SAMPLES
from privcore.errors import PrivcoreError
from privcore.runs import DpAuditRequest, Inputs
from ui.common.errors import show_error
from ui.common.heavy import heavy_button
from ui.common.i18n import escape_md, labels, t
from ui.common.reproduce import reproduce_in_python
from ui.common.state import keep, load_upload
from ui.common.workspace.results import guard_run
from ui.common.workspace.shelf import RELEASE_TYPES
from ui.dp.audit_view import (
    audit_needs_delta,
    audit_result,
    audited_description,
    audited_label,
    neighbours_text,
)
from ui.dp.context import AUDIT, Context, keep_outcome, kept_outcome, recorded


def audit_tab(ctx: Context) -> None:
    """The audit of a central mechanism, or of uploaded outputs."""
    st.caption(t("dp.audit_help"))
    u1, u2 = st.columns([1, 2], gap="large")
    with u1:
        audit_values = _mechanism_controls()
        audit_go = heavy_button(t("dp.audit_run"), key="dp_audit_run", cancel_key="dp_audit_cancel")
    with u2:
        st.caption(escape_md(neighbours_text(audit_values["audited"])))
        if audit_go:
            outcome = guard_run(
                lambda: recorded(DpAuditRequest, audit_values, Inputs(), label=t("dp.auditing"))
            )
            keep_outcome(AUDIT, outcome, audit_values)
        stored = kept_outcome(AUDIT, audit_values)
        if stored is not None:
            audit_result(stored["outcome"].result)
            reproduce_in_python(stored["outcome"], key="dp_audit")

    st.divider()
    st.header(t("dp.upload_title"))
    st.caption(t("dp.upload_help"))
    upload = st.file_uploader(t("dp.upload_file"), type=RELEASE_TYPES, key="dp_outputs")
    if upload is not None:
        try:
            _uploaded_outputs(upload)
        except PrivcoreError as exc:
            show_error(exc)


def _mechanism_controls() -> dict:
    """The mechanism audited, the ε (and δ) it claims, the samples and the seed."""
    audited_names = list(AUDIT_MECHANISMS)
    audited = st.selectbox(
        t("dp.audited"),
        audited_names,
        format_func=labels(audited_names, audited_label),
        key=keep("dp_audited", valid=lambda v: v in audited_names),
    )
    st.caption(escape_md(audited_description(audited)))
    audit_epsilon = float(st.number_input("ε", 0.05, 10.0, 1.0, 0.25, key=keep("dp_audit_epsilon")))
    audit_delta = None
    if audit_needs_delta(audited):
        audit_delta = float(
            st.number_input("δ", 1e-12, 0.1, 1e-5, 1e-6, format="%.1e", key=keep("dp_audit_delta"))
        )
    audit_samples = int(
        st.number_input(
            t("dp.audit_samples"),
            MIN_SAMPLES,
            MAX_SAMPLES,
            DEFAULT_SAMPLES,
            10_000,
            key=keep("dp_audit_samples"),
        )
    )
    audit_seed = int(st.number_input(t("an.seed"), 0, 2**31 - 1, 0, key=keep("dp_audit_seed")))
    return {
        "audited": audited,
        "epsilon": audit_epsilon,
        "delta": audit_delta,
        "samples": audit_samples,
        "seed": audit_seed,
    }


def _uploaded_outputs(upload) -> None:
    """An implementation's outputs on D and D′ (two columns of an uploaded table) audited
    for the ε and δ it claims (recorded)."""
    outputs = load_upload(upload.getvalue(), upload.name)
    output_columns = [str(c) for c in outputs.frame.columns]
    o1, o2, o3 = st.columns(3)
    column_d = o1.selectbox(
        t("dp.outputs_d"),
        output_columns,
        key=keep("dp_outputs_d", valid=lambda v: v in output_columns),
    )
    others = [c for c in output_columns if c != column_d]
    column_d_prime = o2.selectbox(
        t("dp.outputs_d_prime"),
        others,
        key=keep("dp_outputs_d_prime", valid=lambda v: v in others),
    )
    claimed = float(o3.number_input(t("dp.claimed"), 0.05, 20.0, 1.0, 0.25, key=keep("dp_claimed")))
    claimed_delta = float(
        o3.number_input("δ", 0.0, 0.1, 0.0, 1e-6, format="%.1e", key=keep("dp_claimed_delta"))
    )
    if not heavy_button(t("dp.audit_outputs"), key="dp_audit_outputs"):
        return
    if column_d_prime is None:
        st.error(t("dp.two_columns"), icon=":material/error:")
        return
    values = {
        "audited": "uploaded",
        "epsilon": claimed,
        "delta": claimed_delta or None,
        "output_columns": (column_d, column_d_prime),
    }
    inputs = Inputs(samples=outputs, names={"samples": upload.name})
    outcome = guard_run(lambda: recorded(DpAuditRequest, values, inputs, label=t("dp.auditing")))
    if outcome is not None:
        audit_result(outcome.result)
        reproduce_in_python(outcome, key="dp_audit_upload")
