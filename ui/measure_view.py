"""Inputs and results of the Privacy level page (kept out of the page script).

Summary (verdict cards, PL/DR/UL, risk, information loss, explanations) · Classes ·
Charts (class sizes, PL matrix heatmap) · Download (JSON report, CSV class table).
"""

from __future__ import annotations

import json
from typing import Any

import altair as alt
import pandas as pd
import streamlit as st

from privcore.data import to_csv_bytes
from privcore.errors import PrivcoreError
from privcore.measure.entropy import pl_matrix
from privcore.models import (
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    RecursiveCLDiversity,
    TCloseness,
)
from ui.components import escape_md, explained_metric, fmt, verdict_row
from ui.ec_table import class_size_histogram, render_class_table
from ui.errors import show_error
from ui.i18n import t, t_plain
from ui.state import load_upload

DISTANCES = ["auto", "equal", "ordered", "hierarchical", "kl"]


def threshold_inputs(sa: list[str]) -> tuple[list, dict[str, Any]]:
    """The thresholds the verdicts are judged against (an expander), as model objects."""
    with st.expander(t("pl.thresholds"), expanded=False):
        c1, c2, c3, c4 = st.columns(4)
        k = c1.number_input("k", min_value=1, value=5, step=1, help=t("help.k"), key="pl_k")
        l_value = c2.number_input(
            "l", min_value=1.0, value=2.0, step=1.0, help=t("help.l"), key="pl_l"
        )
        l_kind = c2.selectbox(
            t("pl.l_kind"),
            ["distinct", "entropy", "recursive"],
            format_func=lambda x: t(f"pl.l_kind_{x}"),
            key="pl_l_kind",
        )
        c = c3.number_input(
            "c",
            min_value=0.01,
            value=3.0,
            step=0.5,
            help=t("help.c"),
            key="pl_c",
            disabled=l_kind != "recursive",
        )
        t_value = c3.number_input(
            "t", min_value=0.0, max_value=10.0, value=0.2, step=0.05, help=t("help.t"), key="pl_t"
        )
        distance = c4.selectbox(
            t("pl.t_distance"),
            DISTANCES,
            format_func=lambda d: t(f"distance.{d}"),
            key="pl_distance",
        )
        risk_threshold = c4.number_input(
            t("pl.risk_threshold"),
            min_value=0.01,
            max_value=1.0,
            value=0.2,
            step=0.05,
            help=t("help.risk_threshold"),
            key="pl_risk_threshold",
        )
    thresholds = {
        "k": int(k),
        "l": float(l_value),
        "l_kind": l_kind,
        "c": float(c),
        "t": float(t_value),
        "t_distance": distance,
        "risk_threshold": float(risk_threshold),
    }
    models: list = []
    try:
        models.append(KAnonymity(int(k)))
        if sa:
            if l_kind == "entropy":
                models.append(EntropyLDiversity(float(l_value)))
            elif l_kind == "recursive":
                models.append(RecursiveCLDiversity(float(c), int(l_value)))
            else:
                models.append(DistinctLDiversity(int(l_value)))
            models.append(TCloseness(float(t_value), distance))
    except PrivcoreError as exc:
        show_error(exc)
    return models, thresholds


def population_input(active: str) -> pd.DataFrame | None:
    """An optional population for journalist risk: the Attack simulator's voter roll of
    this data set, or an uploaded table (e.g. a real register)."""
    roll = st.session_state.get("at_roll")
    has_roll = roll is not None and roll["data"] == active
    with st.expander(t("pl.population")):
        st.caption(t("pl.population_help"))
        options = ["none", *(["roll"] if has_roll else []), "upload"]
        choice = st.radio(
            t("pl.population"),
            options,
            horizontal=True,
            format_func=lambda o: t(f"pl.population_{o}"),
            label_visibility="collapsed",
            key="pl_population_choice",
        )
        if choice == "roll":
            return roll["roll"].frame
        if choice == "upload":
            upload = st.file_uploader(
                t("pl.population_upload"),
                type=["csv", "tsv", "txt", "xlsx", "parquet", "jsonl", "gz", "zip"],
                key="pl_population",
            )
            if upload is None:
                return None
            try:
                return load_upload(upload.getvalue(), upload.name).frame
            except PrivcoreError as exc:
                show_error(exc)
        return None


def render(stored: dict[str, Any], original: pd.DataFrame, wb) -> None:
    result = stored["result"]
    summary = result.to_dict()
    if stored.get("run_id") is not None:
        st.caption(
            t(
                "pl.recorded",
                id=stored["run_id"],
                name=stored["release_name"],
                seconds=f"{result.seconds:.2f}",
            )
        )
    tabs = st.tabs([t("tab.summary"), t("tab.classes"), t("tab.charts"), t("tab.download")])
    with tabs[0]:
        _summary(result, summary)
    with tabs[1]:
        render_class_table(
            result.models.class_table, result.classes, result.release, key="pl_classes"
        )
    with tabs[2]:
        _charts(result, summary, original, wb)
    with tabs[3]:
        _downloads(result, summary)


def _summary(result, summary: dict[str, Any]) -> None:
    cards = []
    for verdict in summary["verdicts"]:
        status = "pass" if verdict["passed"] else "fail"
        cards.append(
            (
                verdict["model"],
                verdict["requirement"],
                status,
                t_plain(
                    "pl.achieved",
                    achieved=_achieved_text(verdict["achieved"]),
                    classes=verdict["violating_classes"],
                    rows=verdict["violating_rows"],
                ),
            )
        )
    verdict_row(cards)
    if summary["suppressed_rows"]:
        st.info(t("pl.suppressed_note", n=summary["suppressed_rows"]), icon=":material/info:")

    st.subheader(t("pl.level_title"))
    c1, c2, c3, c4, c5 = st.columns(5)
    explained_metric(c1, "PL", summary["pl"]["all"], "explain.pl")
    explained_metric(c2, "DR", summary["dr"], "explain.dr")
    explained_metric(c3, "UL", summary["ul"], "explain.ul")
    explained_metric(c4, t("pl.k_achieved"), summary["k"], "explain.k")
    real = summary["real_records"]
    explained_metric(c5, t("an.real_records"), real["any"], "explain.real_records", 0)
    if real["any"]:
        st.caption(t("an.real_records_detail", any=real["any"], own=real["own"]))
    for note in summary["notes"]:
        st.warning(escape_md(note), icon=":material/warning:")

    st.subheader(t("pl.risk_title"))
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

    st.subheader(t("pl.loss_title"))
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
    st.altair_chart(class_size_histogram(result.classes.sizes, summary["k"]), width="stretch")
    st.markdown(f"**{t('pl.matrix_title')}**")
    others = [k for k in wb.dataset_keys() if k != wb.active]
    compare = st.multiselect(t("pl.compare_with"), others, format_func=wb.title, key="pl_compare")
    releases = {t("pl.this_release"): result.release}
    for key in compare:
        releases[wb.title(key)] = wb.dataset(key).frame
    try:
        matrix = pl_matrix(original, releases, list(result.qi), list(result.sa))
    except PrivcoreError as exc:
        show_error(exc)
        return
    st.altair_chart(pl_heatmap(matrix), width="stretch")
    st.caption(t("pl.matrix_caption"))


def pl_heatmap(matrix: pd.DataFrame) -> alt.Chart:
    """PL matrix: releases (rows) × attributes + "all" (columns), numbers on the cells."""
    data = matrix.reset_index(names="release").melt(
        "release", var_name="attribute", value_name="PL"
    )
    base = alt.Chart(data).encode(
        x=alt.X("attribute:N", title=t("pl.matrix_x"), sort=list(matrix.columns)),
        y=alt.Y("release:N", title=None),
    )
    cells = base.mark_rect().encode(
        color=alt.Color("PL:Q", scale=alt.Scale(domain=[0, 1], scheme="orangered"), title="PL"),
        tooltip=["release:N", "attribute:N", alt.Tooltip("PL:Q", format=".3f")],
    )
    labels = base.mark_text(fontSize=12).encode(
        text=alt.Text("PL:Q", format=".3f"),
        color=alt.condition("datum.PL > 0.6", alt.value("white"), alt.value("black")),
    )
    return (cells + labels).properties(height=max(60, 40 * len(matrix)))


def _downloads(result, summary: dict[str, Any]) -> None:
    st.download_button(
        t("pl.download_json"),
        data=json.dumps(summary, ensure_ascii=False, indent=2).encode("utf-8"),
        file_name="privacy_level_report.json",
        mime="application/json",
        on_click="ignore",
    )
    st.download_button(
        t("pl.download_csv"),
        data=to_csv_bytes(result.models.class_table),
        file_name="equivalence_classes.csv",
        mime="text/csv",
        on_click="ignore",
    )
