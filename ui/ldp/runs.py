"""The recorded audit runs of the LDP auditor page and the sample sizes they take."""

from __future__ import annotations

import streamlit as st

from privcore.ldp import audit as ldp_audit
from privcore.runs import AuditRequest, Inputs, Outcome
from ui.common.components import safe_bounds
from ui.common.heavy import new_request, run_heavy
from ui.common.i18n import t
from ui.common.state import keep

PAGE = "ldp"


def audit(request_values: dict, inputs: Inputs, *, label: str) -> Outcome:
    """One recorded audit run (every method's memory plan is checked before any work:
    :func:`privcore.runs.costs.check`)."""
    request = new_request(AuditRequest, request_values, inputs, page=PAGE)
    return run_heavy(request, inputs, label=label, page=PAGE)


def samples_input(label: str, top: int, value: int, step: int, key: str) -> int:
    """Samples per input of one audit method: at most ``top`` and this installation's
    limit (``PRIVCORE_MAX_AUDIT_SAMPLES``), the default clamped to them."""
    cap = ldp_audit.max_samples()
    low, high, value = safe_bounds(min(1_000, cap), min(top, cap), value)
    return int(
        st.number_input(
            t(label), low, high, value, step, key=keep(key, valid=lambda v: low <= v <= high)
        )
    )
