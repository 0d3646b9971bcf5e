"""Views of the Attack simulator page: before/after charts and figures, the victims and
the attacker's reasoning, homogeneous classes, the background-knowledge posterior and
the effective k of two releases."""

from __future__ import annotations

from typing import Any

import altair as alt
import numpy as np
import pandas as pd
import streamlit as st

from privcore.attacks import AttackReport, RollFrequencySet, Simulation
from privcore.runs import AttackRequest
from privcore.runs.registry import OPTIONS
from privcore.words.labels import attack_table
from ui.common.charts import ACCENT, FAIL, MUTED, show_chart, titled_axes
from ui.common.components import escape_md, fmt
from ui.common.i18n import current_language, t, t_plain
from ui.common.state import keep

#: Columns of a roll frequency set's targets that hold rows of the joint frequency set or
#: names (left empty: a frequency set names nobody), not shown.
_FREQUENCY_SET_ONLY = ("person_id", "name", "record", "matched_record")


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
                t_plain("at.fig_disclosed", sa=sa): share(n, targets)
                for sa, n in (link.get("attribute_disclosed") or {}).items()
            },
            **{
                t_plain("at.fig_within", sa=sa, tolerance=percent(link.get("tolerance"))): share(
                    n, targets
                )
                for sa, n in (link.get("attribute_within_tolerance") or {}).items()
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


def _count_after(column: Any, label: str, after: int, before: int, *, help: str) -> None:
    """A metric card (in ``column``) of a count of people after anonymization, with its
    change from before (a rise in red: more people exposed)."""
    column.metric(
        label, f"{after:,}", delta=f"{after - before:,}", delta_color="inverse", help=help
    )


def headline(sim: Simulation) -> None:
    """Metric cards: re-identified and disclosed, after, with the change from before."""
    after, before = sim.linkage["after"].summary, sim.linkage["before"].summary
    cols = st.columns(4)
    cols[0].metric(t("at.targets"), f"{after['targets']:,}")
    _count_after(
        cols[1],
        t("at.reidentified"),
        after["reidentified"],
        before["reidentified"],
        help=t("at.reidentified_help"),
    )
    _count_after(
        cols[2],
        t("at.disclosed"),
        sum((after.get("attribute_disclosed") or {}).values()),
        sum((before.get("attribute_disclosed") or {}).values()),
        help=t("at.disclosed_help"),
    )
    cols[3].metric(t("at.baseline"), fmt(after.get("baseline")), help=t("at.baseline_help"))


def percent(share_of_one: Any) -> str:
    """0.1 → "10" (the tolerance as a percentage, without trailing zeros)."""
    return f"{100 * float(share_of_one or 0.0):g}"


def tolerance_input(original: pd.DataFrame, sa: list[str]) -> float:
    """The tolerance of the numeric disclosure, in percent on the page (0–100; the
    request's ``tolerance`` is its share of 1), shown when a sensitive attribute is
    numeric."""
    default = AttackRequest().tolerance
    numeric = [s for s in sa if s in original and pd.api.types.is_numeric_dtype(original[s])]
    if not numeric:
        return default
    top = float(OPTIONS["tolerance"].maximum or 1.0)
    chosen = st.number_input(
        t("at.tolerance", columns=", ".join(numeric)),
        min_value=0.0,
        max_value=100.0 * top,
        value=100.0 * default,
        step=1.0,
        format="%g",
        help=t("at.tolerance_help"),
        key=keep("at_tolerance"),
    )
    return round(float(chosen) / 100.0, 6)


def within_tolerance(sim: Simulation) -> None:
    """Per numeric sensitive attribute: the targets whose value the attacker learns
    within the tolerance (after, with the change from before)."""
    after, before = sim.linkage["after"].summary, sim.linkage["before"].summary
    within = after.get("attribute_within_tolerance") or {}
    if not within:
        return
    tolerance = percent(after.get("tolerance"))
    cols = st.columns(max(len(within), 2))
    for col, (sa, n) in zip(cols, within.items(), strict=False):
        was = (before.get("attribute_within_tolerance") or {}).get(sa, 0)
        col.metric(
            t("at.within", sa=sa, tolerance=tolerance),
            f"{n:,}",
            delta=f"{n - was:,}",
            delta_color="inverse",
            help=t("at.within_help", tolerance=tolerance),
        )


def explanations(report: AttackReport) -> None:
    """The attack's own sentences (English), or the figures restated in Chinese."""
    if current_language() == "en":
        for sentence in report.explanations:
            st.markdown(f"- {escape_md(sentence)}")
        return
    s = report.summary
    if report.attack == "linkage":
        key = "at.zh_linkage"
        figures = {
            "targets": s.get("targets"),
            "unique": s.get("unique_matches"),
            "reid": s.get("reidentified"),
            "baseline": fmt(s.get("baseline")),
        }
    elif report.attack == "homogeneity":
        key = "at.zh_homogeneity"
        figures = {"classes": s.get("classes_exposed"), "records": s.get("records_exposed")}
    else:
        return
    st.markdown("- " + t(key, **figures))


def chain_words(step: dict[str, Any]) -> str:
    """One victim's chain of reasoning (the library's steps) in the page's language."""
    person = t("at.list_sep").join(f"{q} {v}" for q, v in step["person"])
    parts = [t("at.step_voter", name=step["name"], person=person)]
    if step["classes"] == 0:
        parts.append(
            t("at.step_no_class") + (t("at.step_suppressed") if step["suppressed"] else "")
        )
    elif step["classes"] == 1:
        parts.append(t("at.step_one_class", cls=step["first_class"]))
    else:
        parts.append(t("at.step_classes", n=step["classes"], first=step["first_class"]))
    n = step["candidates"]
    if n == 1:
        key = "at.step_right_person" if step["correct"] else "at.step_someone_else"
        parts.append(t(key, record=step["matched_record"]))
    elif n:
        parts.append(t("at.step_candidates", n=f"{n:,}"))
    for sa, values, disclosed in step["sensitive"]:
        verdict = t("at.disclosed_yes") if disclosed else t("at.disclosed_no")
        parts.append(t("at.step_sa", sa=sa, values=values, verdict=verdict))
    return " → ".join(parts)


def victims(report: AttackReport, sa: list[str], *, limit: int = 10) -> None:
    """Example victims with their synthetic names and the attacker's reasoning; with a
    roll frequency set (targets counted in ``people``), which names nobody, the targets'
    rows with the people each stands for (:func:`counted_targets`)."""
    targets = report.targets
    if targets.empty:
        st.info(t("at.no_targets"))
        return
    if "people" in targets.columns:
        st.info(t("at.names_nobody"), icon=":material/groups:")
        shown = counted_targets(targets.sort_values("candidate_records", kind="stable").head(200))
        st.dataframe(attack_table(shown, current_language()), hide_index=True)
        return
    if report.details.get("chain_steps"):
        for step in report.details["chain_steps"][:limit]:
            st.markdown(f"- {chain_words(step)}")  # t() escaped the data in it
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
                + t(
                    "at.chain",
                    name=str(row.get("name", "")),
                    n=row.get("candidate_records"),
                    values="; ".join(parts),
                )
            )
    shown = targets.sort_values("candidate_records").head(200)
    st.dataframe(attack_table(shown, current_language()), hide_index=True)


def counted_targets(targets: pd.DataFrame) -> pd.DataFrame:
    """The targets of an attack with a roll frequency set as shown: each row a
    distinct combination of the data set's people, with how many people it stands for
    (headed in words) after their quasi-identifiers; no names or row numbers of the
    frequency set."""
    shown = targets.drop(columns=[c for c in _FREQUENCY_SET_ONLY if c in targets.columns])
    people = shown.pop("people")
    at = list(shown.columns).index("candidate_classes")
    shown.insert(at, t_plain("at.col_people"), people.to_numpy(dtype=np.int64))
    return shown.reset_index(drop=True)


def roll_rows(roll: RollFrequencySet, limit: int) -> pd.DataFrame:
    """The first ``limit`` rows of a roll frequency set as shown: the quasi-identifiers,
    whether the row's people are records of the data set, and how many people it stands
    for (headed in words)."""
    frame = roll.frame.head(limit)
    out = frame[list(roll.qi)].reset_index(drop=True).copy()
    out[t_plain("at.col_in_dataset")] = (frame["record"].to_numpy() >= 0).tolist()
    out[t_plain("at.col_people")] = frame["count"].to_numpy(dtype=np.int64)
    return out


def homogeneous_classes(report: AttackReport) -> None:
    if report.targets.empty:
        st.success(t("at.no_homogeneous"), icon=":material/check_circle:")
    else:
        st.dataframe(attack_table(report.targets.head(500), current_language()), hide_index=True)


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
            **titled_axes("k:O", "at.effective_k_x", "records:Q", "at.records"),
            color=alt.Color(
                "re-identified:N", title=t("at.reidentified"), scale=alt.Scale(range=[MUTED, FAIL])
            ),
            tooltip=["k:O", "records:Q"],
        )
    )


def unpaired_linkage(measurement) -> None:
    """The linkage attack's figures that need no pairing of rows: the release's classes
    matched against the roll (prosecutor, journalist and marketer risk, records at risk),
    and why who was re-identified is not shown."""
    st.info(t("at.unpaired"), icon=":material/swap_vert:")
    risk = measurement.to_dict()["risk"]
    cols = st.columns(4)
    cols[0].metric(t("at.fig_prosecutor_max"), fmt(risk.get("prosecutor_max")))
    cols[1].metric(t("at.fig_journalist_max"), fmt(risk.get("journalist_max")))
    cols[2].metric(t("at.fig_marketer"), fmt(risk.get("marketer")))
    cols[3].metric(
        t("pl.at_risk", threshold=fmt(risk.get("threshold"), 2)),
        fmt(risk.get("records_at_risk")),
    )
    st.caption(t("at.unpaired_classes", classes=measurement.to_dict()["classes"]))


def unparsed_warning(report: AttackReport) -> None:
    unparsed = report.summary.get("unparsed_cells") or {}
    if any(unparsed.values()):
        listed = "; ".join(f"{c}: {', '.join(map(str, v[:5]))}" for c, v in unparsed.items() if v)
        st.warning(t("at.unparsed", cells=listed), icon=":material/warning:")


def linkage_result(sim: Simulation, sa: list[str]) -> None:
    """A linkage attack before vs after: its figures and chart, the victims and the
    homogeneous classes."""
    unparsed_warning(sim.linkage["after"])
    headline(sim)
    within_tolerance(sim)
    show_chart(before_after_chart(sim), key="at_before_after_chart_data")
    explanations(sim.linkage["after"])
    st.header(t("at.victims"))
    victims(sim.linkage["after"], sa)
    st.header(t("at.homogeneous"))
    explanations(sim.homogeneity["after"])
    homogeneous_classes(sim.homogeneity["after"])
