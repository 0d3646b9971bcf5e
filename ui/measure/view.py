"""The results of the Privacy level page.

Summary (verdict cards with the action that would fix each failed one, PL/DR/UL, risk,
information loss, explanations) · Classes · Charts (class sizes, PL matrix heatmap) ·
Download (JSON report, CSV class table). A release whose rows are not paired with the
original's shows every figure that needs no pairing and says which ones need it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import altair as alt
import pandas as pd
import streamlit as st

from privcore.data import to_csv_bytes
from privcore.errors import PrivcoreError
from privcore.measure.entropy import pl_matrix
from privcore.measure.report import NEEDS_ALIGNMENT
from privcore.words.labels import model_title, note_text, requirement
from ui.common.charts import show_chart
from ui.common.components import escape_md, explained_metric, fmt, verdict_row
from ui.common.ec_table import class_size_histogram, render_class_table
from ui.common.errors import show_error
from ui.common.i18n import current_language, labels, t, t_plain
from ui.common.layout import lazy_tabs
from ui.common.shared import ObjectMemo
from ui.common.state import ShelfRelease, Workbench, keep
from ui.common.workspace.actions import action_button, verdict_action
from ui.common.workspace.names import choice_title, file_stem


def information_cards(summary: dict[str, Any], request: Any) -> list[tuple[str, str, str, str]]:
    """Cards for the models the request did not judge: what the release achieves for
    each (k; l in the request's form per sensitive attribute; t with its distance per
    sensitive attribute), marked as information."""
    note = t_plain("pl.info_detail")
    cards = []
    if request.k is None:
        cards.append((t_plain("pl.info_k"), f"k = {fmt(summary['k'])}", "info", note))
    if request.l is None:
        kind = request.l_kind
        key, letter = {
            "distinct": ("l_distinct", "l"),
            "entropy": ("l_entropy", "l"),
            "recursive": ("recursive_c", "c"),
        }[kind]
        form = choice_title(f"pl.l_kind_{kind}", kind)
        for sa, value in (summary.get(key) or {}).items():
            shown = f"{letter} = {fmt(value)}" + (" (l = 2)" if kind == "recursive" else "")
            cards.append((t_plain("pl.info_l", form=form, sa=sa), shown, "info", note))
    if request.t is None:
        for sa, value in (summary.get("t_closeness") or {}).items():
            distance = choice_title(f"distance.{value['distance']}", value["distance"])
            cards.append(
                (
                    t_plain("pl.info_t", sa=sa),
                    f"t = {fmt(value['t'])}",
                    "info",
                    t_plain("pl.info_t_detail", distance=distance),
                )
            )
    return cards


def result_tabs(
    key: str,
    summary: Callable[[], None],
    classes: Callable[[], None],
    charts: Callable[[], None],
    download: Callable[[], None],
) -> None:
    """A measurement's tabs, Summary · Classes · Charts · Download, each drawn (by the
    function given for it) only when it is on screen, the one open kept under ``key``."""
    lazy_tabs(
        [
            (t("tab.summary"), summary),
            (t("tab.classes"), classes),
            (t("tab.charts"), charts),
            (t("tab.download"), download),
        ],
        key=key,
    )


def render(outcome, original: pd.DataFrame, wb: Workbench, entry: ShelfRelease) -> None:
    """The measurement of ``entry`` (an :class:`~privcore.runs.Outcome`)."""
    result = outcome.result
    summary = result.to_dict()
    if not result.aligned:
        figures = ", ".join(t_plain(f"ws.figure_{f.replace('.', '_')}") for f in NEEDS_ALIGNMENT)
        st.info(t("ws.unaligned", figures=figures), icon=":material/swap_vert:")
    result_tabs(
        "pl_view",
        summary=lambda: summary_tab(result, summary, wb, entry, outcome.request),
        classes=lambda: render_class_table(
            result.models.class_table, result.classes, result.release, key="pl_classes"
        ),
        charts=lambda: _charts(result, summary, original, wb),
        download=lambda: downloads(result, summary, entry.name),
    )


def summary_tab(
    result, summary: dict[str, Any], wb: Workbench, entry: ShelfRelease, request: Any
) -> None:
    cards = []
    for verdict in summary["verdicts"]:
        status = "pass" if verdict["passed"] else "fail"
        cards.append(
            (
                model_title(verdict.get("parameters"), verdict["model"], current_language()),
                requirement(verdict.get("parameters"), verdict["requirement"], current_language()),
                status,
                t_plain(
                    "pl.achieved",
                    achieved=_achieved_text(verdict["achieved"]),
                    classes=verdict["violating_classes"],
                    rows=verdict["violating_rows"],
                ),
            )
        )
    verdict_row([*cards, *information_cards(summary, request)])
    for index, verdict in enumerate(summary["verdicts"]):
        action = verdict_action(verdict)
        if action is not None:
            st.markdown(
                t(
                    "ws.verdict_fails",
                    requirement=requirement(
                        verdict.get("parameters"), verdict["requirement"], current_language()
                    ),
                    achieved=_achieved_text(verdict["achieved"]),
                )
            )
            action_button(wb, entry, action, key=f"pl_fix_{index}")
    if summary["suppressed_rows"]:
        st.info(t("pl.suppressed_note", n=summary["suppressed_rows"]), icon=":material/info:")

    st.header(t("pl.level_title"))
    c1, c2, c3, c4, c5 = st.columns(5)
    explained_metric(c1, "PL", (summary["pl"] or {}).get("all"), "explain.pl")
    explained_metric(c2, "DR", summary["dr"], "explain.dr")
    explained_metric(c3, "UL", summary["ul"], "explain.ul")
    explained_metric(c4, t("pl.k_achieved"), summary["k"], "explain.k")
    real = summary["real_records"]
    # not counted for a release measured by its classes inside the engine (a note says)
    explained_metric(c5, t("an.real_records"), real.get("any"), "explain.real_records", 0)
    if real.get("any") and "own" in real:
        st.caption(t("an.real_records_detail", any=real["any"], own=real["own"]))
    for note in summary["notes"]:
        st.warning(escape_md(note_text(note, current_language())), icon=":material/warning:")

    st.header(t("pl.risk_title"))
    risk = summary["risk"]
    c1, c2, c3, c4 = st.columns(4)
    explained_metric(c1, t("pl.prosecutor_max"), risk["prosecutor_max"], "explain.prosecutor_max")
    explained_metric(c2, t("pl.prosecutor_avg"), risk["prosecutor_avg"], "explain.prosecutor_avg")
    explained_metric(
        c3,
        t("pl.at_risk", threshold=fmt(risk["threshold"], 2)),
        risk["records_at_risk"],
        "explain.at_risk",
    )
    explained_metric(c4, t("pl.marketer"), risk["marketer"], "explain.marketer")
    if risk.get("journalist_max") is not None:
        c1, c2, _, _ = st.columns(4)
        explained_metric(c1, t("pl.journalist_max"), risk["journalist_max"], "explain.journalist")
        explained_metric(c2, t("pl.journalist_avg"), risk["journalist_avg"], "explain.journalist")
    st.caption(t("pl.avg_convention", classes=fmt(risk["prosecutor_avg_classes"])))

    st.header(t("pl.loss_title"))
    loss = summary["loss"]
    c1, c2, c3, c4, c5 = st.columns(5)
    explained_metric(c1, t("pl.discernibility"), loss.get("discernibility"), "explain.dm", 0)
    explained_metric(c2, "C_avg", loss.get("c_avg"), "explain.cavg", 2)
    explained_metric(c3, "GCP", loss.get("gcp"), "explain.gcp")
    explained_metric(c4, t("pl.precision"), loss.get("precision"), "explain.precision")
    explained_metric(c5, t("pl.whd_mean"), loss.get("whd_mean"), "explain.whd")

    with st.expander(t("pl.explain_title")):
        for key in EXPLAINED:
            st.markdown(
                f"**{t('explain.name_' + key)}** — {t('explain.' + key)} {t('improve.' + key)}"
            )


# Every figure of the page, in the order explained: what it means, what would improve it.
EXPLAINED = (
    "pl",
    "dr",
    "ul",
    "k",
    "l",
    "t",
    "prosecutor_max",
    "prosecutor_avg",
    "at_risk",
    "marketer",
    "journalist",
    "dm",
    "cavg",
    "gcp",
    "precision",
    "whd",
)


def _achieved_text(achieved: Any) -> str:
    if isinstance(achieved, dict):
        parts = []
        for name, value in achieved.items():
            if isinstance(value, dict):
                parts += [
                    f"{sa}: {fmt(v) if isinstance(v, float) else v}" for sa, v in value.items()
                ]
            else:
                parts.append(f"{name} = {fmt(value) if isinstance(value, float) else value}")
        return ", ".join(parts)
    return fmt(achieved)


def _charts(result, summary: dict[str, Any], original: pd.DataFrame, wb) -> None:
    show_chart(class_size_histogram(result.classes.sizes, summary["k"]), key="pl_sizes_chart_data")
    st.markdown(f"**{t('pl.matrix_title')}**")
    if not result.aligned:
        st.caption(t("ws.matrix_needs_pairing"))
        return
    others = [k for k in wb.dataset_keys() if k != wb.active]
    compare = st.multiselect(
        t("pl.compare_with"),
        others,
        format_func=labels(others, wb.title),
        key=keep("pl_compare", valid=lambda v: set(v) <= set(others)),
    )
    releases = {t("pl.this_release"): result.release}
    for key in compare:
        releases[wb.title(key)] = wb.dataset(key).frame
    try:
        matrix = _pl_matrix(result, original, releases, tuple(compare))
    except PrivcoreError as exc:
        show_error(exc)
        return
    matrix = matrix.rename(columns={"all": t_plain("pl.matrix_all")})
    show_chart(pl_heatmap(matrix), key="pl_matrix_chart_data")
    st.caption(t("pl.matrix_caption"))


_MATRIX = "_pl_matrix"  # session: the last PL matrix and what it was computed for


# The PL matrix of a measurement alone (nothing compared), by the measurement object: a
# bundled sample's measurement is one object shared by every session (ui.common.shared).
_ALONE = ObjectMemo()


def _pl_matrix(result, original: pd.DataFrame, releases: dict, compare: tuple) -> pd.DataFrame:
    """:func:`pl_matrix` of this measurement and the compared data sets, computed once:
    for a measurement compared with nothing, once per measurement; else kept in the
    session until either changes (a rerun of the page, a tab, a toggle reuses it)."""

    def compute() -> pd.DataFrame:
        return pl_matrix(original, releases, list(result.qi), list(result.sa))

    if not compare:
        return _ALONE.get(result, tuple(releases), compute)
    kept = st.session_state.get(_MATRIX)
    key = (*compare, *releases)
    if kept is not None and kept["result"] is result and kept["key"] == key:
        return kept["matrix"]
    matrix = compute()
    st.session_state[_MATRIX] = {"result": result, "key": key, "matrix": matrix}
    return matrix


def pl_heatmap(matrix: pd.DataFrame) -> alt.Chart:
    """PL matrix: releases (rows) × attributes + "all" (columns), numbers on the cells."""
    data = matrix.reset_index(names="release").melt(
        "release", var_name="attribute", value_name="PL"
    )
    base = alt.Chart(data).encode(
        x=alt.X(
            "attribute:N",
            title=t_plain("pl.matrix_x"),
            sort=list(matrix.columns),
            axis=alt.Axis(labelLimit=0, labelAngle=-30, orient="top"),  # names never cut
        ),
        y=alt.Y("release:N", title=None, axis=alt.Axis(labelLimit=0)),
    )
    cells = base.mark_rect().encode(
        color=alt.Color("PL:Q", scale=alt.Scale(domain=[0, 1], scheme="orangered"), title="PL"),
        tooltip=["release:N", "attribute:N", alt.Tooltip("PL:Q", format=".3f")],
    )
    labels = base.mark_text(fontSize=12).encode(
        text=alt.Text("PL:Q", format=".3f"),
        color=alt.condition("datum.PL > 0.6", alt.value("white"), alt.value("black")),
    )
    return (cells + labels).properties(height=max(120, 48 * len(matrix)))


def downloads(result, summary: dict[str, Any], name: str) -> None:
    stem = file_stem(name)
    st.download_button(
        t("pl.download_json"),
        data=json.dumps({"release": name, **summary}, ensure_ascii=False, indent=2).encode("utf-8"),
        file_name=f"{stem}_privacy_level.json",
        mime="application/json",
        on_click="ignore",
    )
    st.download_button(
        t("pl.download_csv"),
        data=lambda: to_csv_bytes(result.models.class_table),  # built on click
        file_name=f"{stem}_equivalence_classes.csv",
        mime="text/csv",
        on_click="ignore",
    )
