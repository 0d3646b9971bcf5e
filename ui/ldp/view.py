"""Views of the LDP auditor page: the device, verdict, distributions, leakage, sweep,
reconstruction."""

from __future__ import annotations

from typing import Any

import altair as alt
import numpy as np
import pandas as pd
import streamlit as st

from privcore.errors import ParameterError, PrivcoreError
from privcore.ldp.audit import AuditReport
from privcore.ldp.device import device
from privcore.runs.registry import MECHANISMS
from ui.common.chart_lines import identity_line
from ui.common.charts import ACCENT, FAIL, PASS, WARN, show_chart, titled_axes
from ui.common.components import fmt
from ui.common.errors import show_error
from ui.common.i18n import t, t_plain
from ui.common.workspace.names import choice_title

_VERDICT_STYLE = {
    "consistent": ("green", ":material/check_circle:"),
    "violation": ("red", ":material/gpp_bad:"),
    "inconclusive": ("orange", ":material/help:"),
}


def device_badge() -> bool:
    """The device the audits run on (a GPU or the CPU) as a badge; False when it cannot
    be told (the error is shown)."""
    try:
        where = device()
        st.badge(
            t("ldp.device_cuda") if where.startswith("cuda") else t("ldp.device_cpu"),
            icon=":material/memory:",
            color="green" if where.startswith("cuda") else "gray",
        )
    except PrivcoreError as exc:
        show_error(exc)
        return False
    return True


def mechanism_label(name: str) -> str:
    entry = MECHANISMS[name]
    suffix = t("ldp.broken_suffix") if entry.extra.get("broken") else ""
    return f"{choice_title(f'mechanism.{name}', entry.title)}{suffix}"


def parse_inputs(text: str) -> list[float] | None:
    """The OB inputs typed by the user ("0, 3, 7"), or None for the automatic choice."""
    parts = [p.strip() for p in text.replace(";", ",").split(",") if p.strip()]
    if not parts:
        return None
    try:
        return [float(p) for p in parts]
    except ValueError as exc:
        raise ParameterError(
            f"The inputs to compare must be numbers separated by commas, not '{text}'.",
            code="ldp.inputs_text",
        ) from exc


_REASON_KEYS = {
    "bound_above_claim": "ldp.verdict_violation_help",
    "within_margin": "ldp.verdict_consistent_help",
    "interval_too_wide": "ldp.verdict_inconclusive_help",
    "weak_evidence": "ldp.verdict_weak_evidence_help",
    "lower_bound_only": "ldp.verdict_lower_bound_only_help",
    "no_evidence_at_resolution": "ldp.verdict_ob_no_evidence_help",
    "estimate_above_claim": "ldp.verdict_ob_above_help",
    "disjoint_outputs": "ldp.verdict_ob_unbounded_help",
}


def verdict_help_key(report: AuditReport) -> str:
    """The plain-words explanation of a verdict, by the reason the library gives: OB
    only estimates (inconclusive: nothing found at its resolution, an estimate above the
    claim that the certified bound must confirm, or outputs that never overlap); a
    learned bound cannot clear; white-box measures are consistent only within 10 %."""
    reason = report.details.get("reason")
    return _REASON_KEYS.get(reason, f"ldp.verdict_{report.verdict}_help")


def deciding_report(reports: dict[str, AuditReport]) -> AuditReport:
    """The report whose verdict heads the results: a violation (certified bound, then
    AB), else a consistent white-box measure, else the bound, AB or OB, in that order."""
    order = [reports[m] for m in ("lb", "ab", "ob") if m in reports]
    for wanted in ("violation", "consistent"):
        for report in order:
            if report.verdict == wanted:
                return report
    return order[0]


def verdict_banner(report: AuditReport) -> None:
    colour, icon = _VERDICT_STYLE[report.verdict]
    st.markdown(f":{colour}[{icon} **{t('ldp.verdict_' + report.verdict)}**]")
    lo, hi = report.ci if report.ci else (None, None)
    st.caption(
        t(
            verdict_help_key(report),
            claimed=fmt(report.epsilon_claimed),
            hat=fmt(report.epsilon_hat),
            lo=fmt(lo),
            hi=fmt(hi),
            lower=fmt(report.details.get("decision_lower")),
            upper=fmt(report.details.get("decision_upper")),
            pairs=", ".join(f"{a}/{b}" for a, b in report.details.get("disjoint_pairs", [])[:5]),
        )
    )


def decision_note(report: AuditReport) -> None:
    """The rule behind the verdicts and its false-alarm rate."""
    rate = report.details.get("false_alarm_rate")
    if rate is not None:
        st.caption(t("ldp.decision_note", rate=f"{rate:.1%}"))


def summary_metrics(reports: dict[str, AuditReport]) -> None:
    cols = st.columns(4)
    claimed = next(iter(reports.values())).epsilon_claimed
    cols[0].metric(t("ldp.claimed"), fmt(claimed))
    if "ab" in reports:
        ab = reports["ab"]
        cols[1].metric(t("ldp.ab"), fmt(ab.epsilon_hat), help=t("ldp.ab_help"))
        cols[1].caption(
            t("ldp.interval", lo=fmt(ab.ci[0]), hi=fmt(ab.ci[1]), confidence=f"{ab.confidence:.0%}")
        )
    if "ob" in reports:
        ob = reports["ob"]
        cols[2].metric(t("ldp.ob"), fmt(ob.epsilon_hat), help=t("ldp.ob_help"))
        if ob.ci:
            cols[2].caption(
                t(
                    "ldp.interval",
                    lo=fmt(ob.ci[0]),
                    hi=fmt(ob.ci[1]),
                    confidence=f"{ob.confidence:.0%}",
                )
            )
        cols[2].caption(t("ldp.ob_avg", avg=fmt(ob.details.get("epsilon_avg"))))
        cols[2].caption(t("ldp.ob_inconclusive_note"))
    if "lb" in reports:
        lb = reports["lb"]
        cols[3].metric(t("ldp.lb"), fmt(lb.epsilon_lb), help=t("ldp.lb_help"))
        cols[3].caption(t("ldp.lb_confidence", confidence=f"{lb.confidence:.0%}"))


def distributions_chart(report: AuditReport, inputs: list[Any]) -> alt.Chart | None:
    """Output distribution per input: pmf bars, or KDE curves with the histogram."""
    densities = report.details.get("densities")
    if densities is None:
        return None
    densities = np.asarray(densities)
    if report.details.get("output") == "discrete":
        coords = min(densities.shape[1], 12)
        rows = []
        for i, value in enumerate(inputs):
            for c in range(coords):
                for code in range(densities.shape[2]):
                    share = float(densities[i, c, code])
                    if share > 0:
                        rows.append(
                            {"input": str(value), "coordinate": c, "value": code, "share": share}
                        )
        data = pd.DataFrame(rows)
        if densities.shape[1] == 1:
            return _shares_by_input(
                data, t("ldp.dist_title"), "value", t("ldp.output_value"), t("ldp.probability")
            )
        ones = data[data["value"] == 1]
        return _shares_by_input(
            ones, t("ldp.bits_title"), "coordinate", t("ldp.coordinate"), t("ldp.p_one")
        )
    grid = np.asarray(report.details["grid"])[0]
    other_key = "densities_histogram" if report.details.get("density") == "kde" else "densities_kde"
    rows = []
    for i, value in enumerate(inputs):
        rows += _density_rows(value, grid, densities[i, 0], report.details.get("density", "kde"))
        if other_key in report.details:
            other = np.asarray(report.details[other_key])[i, 0]
            rows += _density_rows(value, grid, other, other_key.split("_")[1])
    data = pd.DataFrame(rows)
    return (
        alt.Chart(data, title=t("ldp.density_title"))
        .mark_line()
        .encode(
            **titled_axes("y:Q", "ldp.output_value", "density:Q", "ldp.density"),
            color=alt.Color("input:N", title=t("ldp.input")),
            strokeDash=alt.StrokeDash("how:N", title=t("ldp.estimator")),
            tooltip=[
                "input:N",
                "how:N",
                alt.Tooltip("y:Q", format=".3f"),
                alt.Tooltip("density:Q", format=".4f"),
            ],
        )
    )


def _shares_by_input(
    data: pd.DataFrame, title: str, x: str, x_title: str, y_title: str
) -> alt.Chart:
    """Bars of ``share`` over the ordinal column ``x``, side by side per input."""
    return (
        alt.Chart(data, title=title)
        .mark_bar()
        .encode(
            x=alt.X(f"{x}:O", title=x_title),
            y=alt.Y("share:Q", title=y_title),
            xOffset="input:N",
            color=alt.Color("input:N", title=t("ldp.input")),
            tooltip=["input:N", f"{x}:O", alt.Tooltip("share:Q", format=".4f")],
        )
    )


def _density_rows(value: Any, grid: Any, densities: Any, how: str) -> list[dict[str, Any]]:
    """One row per grid point: the density of the outputs of input ``value`` there, as
    estimated by ``how``."""
    shown = t_plain(f"ldp.density_{how}")  # the legend in the page's language
    return [
        {"input": str(value), "y": float(x), "density": float(y), "how": shown}
        for x, y in zip(grid, densities, strict=True)
    ]


def leakage_chart(report: AuditReport) -> alt.Chart | None:
    leakage = report.details.get("coordinate_leakage")
    if leakage is None:
        return None
    leakage = np.asarray(leakage).reshape(-1)
    if len(leakage) <= 1:
        return None
    data = pd.DataFrame({"coordinate": np.arange(len(leakage)), "leakage": leakage})
    return (
        alt.Chart(data, title=t("ldp.leakage_title"))
        .mark_bar(color=WARN)
        .encode(
            **titled_axes("coordinate:O", "ldp.coordinate", "leakage:Q", "ldp.leakage_y"),
            tooltip=["coordinate:O", alt.Tooltip("leakage:Q", format=".4f")],
        )
    )


def show_leakage(report: AuditReport, key: str) -> None:
    """Per-coordinate leakage bars, or why there is one joint symbol instead (``key``:
    the chart's data toggle)."""
    chart = leakage_chart(report)
    if chart is not None:
        show_chart(chart, key=key)
    if report.details.get("joint"):
        joint = report.details["joint"]
        st.caption(t("ldp.joint_note", n=joint["symbols"], m=len(joint["coordinates"])))


#: The sweep's columns: the catalogue key of each one's header.
_SWEEP_COLUMNS = {
    "epsilon": "ldp.claimed",
    "true_epsilon": "ldp.true_eps",
    "ab": "ldp.ab",
    "ob": "ldp.ob",
    "lb": "ldp.lb",
    "verdict": "ldp.col_verdict",
}


def sweep_table(frame: pd.DataFrame) -> pd.DataFrame:
    """The sweep's table in words: its columns named in the page's language (an
    interval's ends after their measure, "AB: lower end"), its verdicts worded."""
    headers = {}
    for column in frame.columns:
        measure, _, end = str(column).partition("_")
        if end in ("lo", "hi") and measure in ("ab", "ob"):
            headers[column] = t_plain(f"ldp.col_{end}", measure=measure.upper())
        elif column in _SWEEP_COLUMNS:
            headers[column] = t_plain(_SWEEP_COLUMNS[column])
    shown = frame.copy()
    if "verdict" in shown:
        shown["verdict"] = shown["verdict"].map(
            lambda v: t_plain(f"ldp.verdict_{v}") if isinstance(v, str) else v
        )
    return shown.rename(columns=headers)


def sweep_chart(frame: pd.DataFrame) -> alt.Chart:
    """Measured vs claimed ε with the y = x line."""
    long = []
    for column, label in (
        ("ab", "AB"),
        ("ob", "OB ε̂_max"),
        ("lb", "ε_LB"),
        ("true_epsilon", t("ldp.true_eps")),
    ):
        if column in frame:
            long += [
                {"claimed": e, "measured": v, "measure": label}
                for e, v in zip(frame["epsilon"], frame[column], strict=True)
                if v is not None and np.isfinite(v)
            ]
    data = pd.DataFrame(long)
    top = float(max(frame["epsilon"].max(), data["measured"].max() if len(data) else 1)) * 1.1
    points = (
        alt.Chart(data, title=t("ldp.sweep_title"))
        .mark_line(point=True)
        .encode(
            **titled_axes("claimed:Q", "ldp.claimed", "measured:Q", "ldp.measured"),
            color=alt.Color("measure:N", title=None),
            tooltip=["measure:N", "claimed:Q", alt.Tooltip("measured:Q", format=".3f")],
        )
    )
    return identity_line(top) + points


def reconstruction_chart(
    edges: np.ndarray, truth: np.ndarray, perturbed: np.ndarray, estimate: np.ndarray
) -> alt.Chart:
    centres = 0.5 * (edges[1:] + edges[:-1])
    rows = []
    for label, values, colour in (
        (t("ldp.rc_true"), truth, PASS),
        (t("ldp.rc_perturbed"), perturbed, FAIL),
        (t("ldp.rc_estimate"), estimate, ACCENT),
    ):
        rows += [
            {"x": float(x), "share": float(v), "series": label, "colour": colour}
            for x, v in zip(centres, values, strict=True)
        ]
    data = pd.DataFrame(rows)
    return (
        alt.Chart(data, title=t("ldp.rc_title"))
        .mark_line(point=True)
        .encode(
            **titled_axes("x:Q", "ldp.rc_x", "share:Q", "ldp.rc_y"),
            color=alt.Color(
                "series:N",
                title=None,
                scale=alt.Scale(
                    domain=[t("ldp.rc_true"), t("ldp.rc_perturbed"), t("ldp.rc_estimate")],
                    range=[PASS, FAIL, ACCENT],
                ),
            ),
            tooltip=[
                "series:N",
                alt.Tooltip("x:Q", format=".1f"),
                alt.Tooltip("share:Q", format=".3f"),
            ],
        )
    )
