"""Views of the audit tab of the Differential privacy page: the audited mechanisms in
words, the event an audit found, and its verdict with ε_LB and the two probabilities'
Clopper–Pearson intervals."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import streamlit as st

from privcore.dp.audit import (
    AUDIT_MECHANISMS,
    DEFAULT_GAUSSIAN_DELTA,
    FALSE_ALARM_RATE,
    SUM_RECORDS,
)
from ui.common.components import fmt, verdict_card
from ui.common.i18n import t, t_plain
from ui.common.workspace.names import choice_title
from ui.dp.story_view import number

_AUDIT_STATUS = {"violation": "fail", "consistent": "pass", "inconclusive": "warn"}


def audited_label(name: str) -> str:
    """An audited mechanism's title, "deliberately broken" when it is."""
    entry = AUDIT_MECHANISMS[name]
    suffix = t_plain("ldp.broken_suffix") if entry.broken else ""
    return choice_title(f"dp.audited_{name}", entry.title) + suffix


def _audit_words(key: str, fallback: str) -> str:
    """The catalogue's words for an audited mechanism, with the figures of its data sets
    filled in (the library's English when the catalogue has none)."""
    text = t_plain(
        key,
        delta=f"{DEFAULT_GAUSSIAN_DELTA:g}",
        records=", ".join(map(str, SUM_RECORDS)),
    )
    return fallback if text == key else text


def audited_description(name: str) -> str:
    return _audit_words(f"dp.audited_{name}_about", AUDIT_MECHANISMS[name].description)


def audit_needs_delta(name: str) -> bool:
    """Only the Gaussian mechanism claims a δ > 0."""
    return name == "gaussian_count"


def neighbours_text(name: str) -> str:
    """The two neighbouring data sets of an audited mechanism, in words: mechanisms that
    share their data sets share their words (keyed by the first of them)."""
    entry = AUDIT_MECHANISMS[name]
    first = next(n for n, e in AUDIT_MECHANISMS.items() if e.neighbours == entry.neighbours)
    return t_plain("dp.neighbours", text=_audit_words(f"dp.neighbours_{first}", entry.neighbours))


_SHOWN_POINTS = 8
"""Values of a point event listed in words; the rest are counted."""


def _output(value: Any) -> str:
    """An output value as the shortest text that reads back as the same double."""
    return repr(float(value))


def _bin_text(interval: Sequence[Any]) -> str:
    """A bin [low, high) in words; an end that is missing or infinite is ±∞."""
    low, high = interval
    left = "(−∞" if low is None or math.isinf(low) else f"[{float(low):.6g}"
    right = "∞)" if high is None or math.isinf(high) else f"{float(high):.6g})"
    return f"{left}, {right}"


def event_text(event: Mapping[str, Any]) -> str:
    """The learned event in words, with the order of the data sets it compares."""
    params = event.get("params") or {}
    kind = event.get("kind")
    if kind in ("at_least", "at_most"):
        words = t_plain(f"dp.event_{kind}", threshold=f"{params['threshold']:.6g}")
    elif kind == "low_bits":
        words = t_plain(
            "dp.event_low_bits", radius=f"{params['radius']:.6g}", bits=int(params["bits"])
        )
    elif kind == "point":
        words = t_plain("dp.event_point", value=_output(params["value"]))
    elif kind == "points":
        values = list(params["values"])
        shown = ", ".join(_output(v) for v in values[:_SHOWN_POINTS])
        words = t_plain(
            "dp.event_points",
            values=shown + (", …" if len(values) > _SHOWN_POINTS else ""),
            count=len(values),
        )
    elif kind == "bin":
        words = t_plain("dp.event_bin", interval=_bin_text(params["interval"]))
    elif kind == "bins":
        intervals = " ∪ ".join(_bin_text(i) for i in params["intervals"])
        words = t_plain("dp.event_bins", intervals=intervals)
    else:
        words = str(event.get("text", ""))
    order = str(event.get("order", "")).split(" over ")
    if len(order) == 2:
        return t_plain("dp.event_order", event=words, first=order[0], second=order[1])
    return words


def audit_result(report: Any) -> None:
    """An audit's verdict card with ε_LB and the claim, the event it found, and the two
    probabilities' Clopper–Pearson intervals."""
    low, high = report.loss_interval
    headline = "no_violation_found" if report.reason == "no_violation_found" else report.verdict
    verdict_card(
        t_plain("dp.audit_verdict"),
        t_plain(f"dp.verdict_{headline}"),
        _AUDIT_STATUS[report.verdict],
        t_plain(
            f"dp.reason_{report.reason}",
            lb=fmt(report.epsilon_lb),
            claimed=fmt(report.epsilon),
            share=fmt(report.epsilon * 0.5),
            samples=f"{report.samples:,}",
            low=fmt(float(low)),
            high=fmt(float(high)),
        ),
    )
    c1, c2, c3 = st.columns(3)
    c1.metric(
        t("dp.epsilon_lb"),
        fmt(report.epsilon_lb),
        help=t("dp.epsilon_lb_help", rate=f"{FALSE_ALARM_RATE:.1%}"),
    )
    c2.metric(t("dp.claimed"), fmt(report.epsilon))
    c3.metric(t("dp.audit_samples"), f"{report.samples:,}")
    st.caption(t("dp.event", event=event_text(report.event)))
    p1, p2 = st.columns(2)
    p1.metric(t("dp.p_d"), _interval(report.p_d), help=t("dp.p_help"))
    p2.metric(t("dp.p_d_prime"), _interval(report.p_d_prime), help=t("dp.p_help"))
    if report.delta:
        st.caption(t("dp.audit_delta", delta=number(report.delta)))


def _interval(bounds: Sequence[float]) -> str:
    low, high = bounds
    return f"[{float(low):.4f}, {float(high):.4f}]"
