"""Views of the Attack simulator page: roll preview, before/after charts, victims."""

from __future__ import annotations

from typing import Any

import altair as alt
import numpy as np
import pandas as pd
import streamlit as st

from privcore.attacks import AttackReport, Simulation
from ui.charts import ACCENT, FAIL, MUTED
from ui.components import escape_md, fmt
from ui.i18n import current_language, t

WHEN = ("before", "after")


def when_label(when: str) -> str:
    return t(f"at.{when}")


def share(part: Any, whole: Any) -> float:
    return float(part) / float(whole) if whole else 0.0


def before_after_frame(sim: Simulation) -> pd.DataFrame:
    """Long table of the headline figures (shares in [0, 1]) before and after."""
    rows = []
    for when in WHEN:
        link = sim.linkage[when].summary
        hom = sim.homogeneity[when].summary
        risk = link.get("risk", {})
        targets = link.get("targets", 0)
        figures = {
            t("at.fig_reidentified"): share(link.get("reidentified", 0), targets),
            **{
                t("at.fig_disclosed", sa=sa): share(n, targets)
                for sa, n in (link.get("attribute_disclosed") or {}).items()
            },
            t("at.fig_homogeneous"): hom.get("records_exposed_share", 0.0),
            t("at.fig_prosecutor_max"): risk.get("prosecutor_max") or 0.0,
            t("at.fig_journalist_max"): risk.get("journalist_max") or 0.0,
            t("at.fig_marketer"): risk.get("marketer") or 0.0,
        }
        rows += [{"figure": k, "when": when_label(when), "value": v} for k, v in figures.items()]
    return pd.DataFrame(rows)


def before_after_chart(sim: Simulation) -> alt.Chart:
    data = before_after_frame(sim)
    order = list(dict.fromkeys(data["figure"]))
    return (
        alt.Chart(data, title=t("at.chart_title"))
        .mark_bar()
        .encode(
            y=alt.Y("figure:N", title=None, sort=order, axis=alt.Axis(labelLimit=260)),
            x=alt.X(
                "value:Q",
                title=t("at.chart_x"),
                axis=alt.Axis(format="%"),
                scale=alt.Scale(domain=[0, 1]),
            ),
            yOffset="when:N",
            color=alt.Color(
                "when:N",
                title=None,
                scale=alt.Scale(domain=[when_label(w) for w in WHEN], range=[FAIL, ACCENT]),
            ),
            tooltip=["figure:N", "when:N", alt.Tooltip("value:Q", format=".1%")],
        )
    )


def headline(sim: Simulation) -> None:
    """Metric cards: re-identified and disclosed, after, with the change from before."""
    after, before = sim.linkage["after"].summary, sim.linkage["before"].summary
    cols = st.columns(4)
    cols[0].metric(t("at.targets"), f"{after['targets']:,}")
    cols[1].metric(
        t("at.reidentified"),
        f"{after['reidentified']:,}",
        delta=f"{after['reidentified'] - before['reidentified']:,}",
        delta_color="inverse",
        help=t("at.reidentified_help"),
    )
    disclosed_after = sum((after.get("attribute_disclosed") or {}).values())
    disclosed_before = sum((before.get("attribute_disclosed") or {}).values())
    cols[2].metric(
        t("at.disclosed"),
        f"{disclosed_after:,}",
        delta=f"{disclosed_after - disclosed_before:,}",
        delta_color="inverse",
        help=t("at.disclosed_help"),
    )
    cols[3].metric(t("at.baseline"), fmt(after.get("baseline")), help=t("at.baseline_help"))


def explanations(report: AttackReport) -> None:
    """The attack's own sentences (English), or the figures restated in Chinese."""
    if current_language() == "en":
        for sentence in report.explanations:
            st.markdown(f"- {escape_md(sentence)}")
        return
    s = report.summary
    if report.attack == "linkage":
        st.markdown(
            "- "
            + t(
                "at.zh_linkage",
                targets=s.get("targets"),
                unique=s.get("unique_matches"),
                reid=s.get("reidentified"),
                baseline=fmt(s.get("baseline")),
            )
        )
    elif report.attack == "homogeneity":
        st.markdown(
            "- "
            + t(
                "at.zh_homogeneity",
                classes=s.get("classes_exposed"),
                records=s.get("records_exposed"),
            )
        )


def victims(report: AttackReport, sa: list[str], *, limit: int = 10) -> None:
    """Example victims with their synthetic names and the attacker's reasoning."""
    targets = report.targets
    if targets.empty:
        st.info(t("at.no_targets"))
        return
    if current_language() == "en" and report.details.get("chain"):
        for chain in report.details["chain"][:limit]:
            st.markdown(f"- {escape_md(chain)}")
    else:
        for row in targets.head(limit).to_dict("records"):
            parts = []
            for name in sa:
                verdict = (
                    t("at.disclosed_yes") if row.get(f"{name} disclosed") else t("at.disclosed_no")
                )
                parts.append(f"{name}: {row.get(f'{name} values')} → {verdict}")
            st.markdown(
                "- "
                + escape_md(
                    t(
                        "at.chain",
                        name=row.get("name", ""),
                        n=row.get("candidate_records"),
                        values="; ".join(parts),
                    )
                )
            )
    shown = targets.sort_values("candidate_records").head(200)
    st.dataframe(shown, hide_index=True)


def homogeneous_classes(report: AttackReport) -> None:
    if report.targets.empty:
        st.success(t("at.no_homogeneous"), icon=":material/check_circle:")
    else:
        st.dataframe(report.targets.head(500), hide_index=True)


def posterior_chart(reports: dict[str, AttackReport]) -> alt.Chart:
    """Distribution of the attacker's confidence in each record's true value."""
    rows = []
    for when, report in reports.items():
        hist = report.details.get("posterior_histogram") or {}
        edges, counts = hist.get("edges", []), hist.get("counts", [])
        for i, count in enumerate(counts):
            rows.append(
                {"from": edges[i], "to": edges[i + 1], "records": count, "when": when_label(when)}
            )
    data = pd.DataFrame(rows)
    return (
        alt.Chart(data, title=t("at.posterior_title"))
        .mark_bar(opacity=0.75)
        .encode(
            x=alt.X("from:Q", bin="binned", title=t("at.posterior_x"), axis=alt.Axis(format="%")),
            x2="to:Q",
            y=alt.Y("records:Q", title=t("at.records"), stack=None),
            color=alt.Color("when:N", title=None, scale=alt.Scale(range=[FAIL, ACCENT])),
            tooltip=[
                "when:N",
                alt.Tooltip("from:Q", format=".0%"),
                alt.Tooltip("to:Q", format=".0%"),
                "records:Q",
            ],
        )
    )


def effective_k_chart(report: AttackReport) -> alt.Chart:
    hist = report.details.get("effective_k_histogram") or {}
    data = pd.DataFrame({"k": [int(k) for k in hist], "records": list(hist.values())})
    data["re-identified"] = np.where(data["k"] == 1, t("at.yes"), t("at.no"))
    return (
        alt.Chart(data, title=t("at.effective_k_title"))
        .mark_bar()
        .encode(
            x=alt.X("k:O", title=t("at.effective_k_x")),
            y=alt.Y("records:Q", title=t("at.records")),
            color=alt.Color(
                "re-identified:N", title=t("at.reidentified"), scale=alt.Scale(range=[MUTED, FAIL])
            ),
            tooltip=["k:O", "records:Q"],
        )
    )
