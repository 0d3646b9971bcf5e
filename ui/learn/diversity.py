"""Lesson 3 of the Learn page: l-diversity — the homogeneity and background-knowledge
attacks on a 3-anonymous release, and the three forms of l-diversity that stop them."""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd
import streamlit as st

from privcore.attacks import background_attack, homogeneity_attack
from privcore.classes import equivalence_classes
from privcore.models import (
    DistinctLDiversity,
    EntropyLDiversity,
    RecursiveCLDiversity,
    distinct_values,
    entropy_l,
    recursive_c,
)
from privcore.words.labels import requirement
from ui.common.charts import FAIL, show_chart
from ui.common.components import fmt, verdict_card
from ui.common.i18n import current_language, t, t_plain
from ui.common.state import keep
from ui.learn.common import QI, class_names, number_exercise


def diverse_release() -> pd.DataFrame:
    """A 3-anonymous release of ten patients in which one class is homogeneous."""
    return pd.DataFrame(
        {
            "ZIP": ["476**"] * 3 + ["4790*"] * 3 + ["476**"] * 4,
            "Age": ["2*"] * 3 + [">=40"] * 3 + ["3*"] * 4,
            "Disease": [
                "gastric ulcer",
                "gastritis",
                "stomach cancer",
                "stomach cancer",
                "stomach cancer",
                "stomach cancer",
                "bronchitis",
                "bronchitis",
                "pneumonia",
                "flu",
            ],
        }
    )


def lesson_l_diversity() -> None:
    st.header(t("learn.l3.title"))
    st.markdown(t("learn.l3.intro"))
    release = diverse_release()
    st.dataframe(release, hide_index=True)
    classes = equivalence_classes(release, QI, ["Disease"])
    names = class_names(release, classes)

    st.subheader(t("learn.l3.homogeneity_title"))
    attack = homogeneity_attack(release, QI, "Disease")
    for _, row in attack.targets.iterrows():
        st.warning(
            t(
                "learn.l3.homogeneous",
                zip=str(row["ZIP"]),
                age=str(row["Age"]),
                size=int(row["size"]),
                value=str(row["value"]),
            ),
            icon=":material/warning:",
        )
    st.markdown(t("learn.l3.homogeneity_text", records=attack.summary["records_exposed"]))

    st.subheader(t("learn.l3.background_title"))
    st.markdown(t("learn.l3.background_text"))
    st.latex(r"P(v) = \frac{c(v)}{n - \sum_{u \in R} c(u)}")
    m = st.slider(t("learn.l3.m"), 0, 3, 1, key=keep("learn_l3_m"))
    background = background_attack(release, QI, "Disease", m=int(m), tau=0.8)
    posterior = background.targets.assign(
        record=background.targets["row"] + 1,
        klass=[names[c] for c in background.targets["class"]],
    )
    show_chart(_posterior_chart(posterior), key="learn_l3_chart_data")
    st.caption(
        t(
            "learn.l3.background_caption",
            m=int(m),
            at_risk=background.summary["records_at_risk"],
            records=background.summary["records"],
            mean=fmt(background.summary["mean_posterior"], 2),
        )
    )

    st.subheader(t("learn.l3.forms_title"))
    st.markdown(t("learn.l3.forms_text"))
    distinct, entropy, recursive = (
        t_plain(f"learn.l3.formula_{form}") for form in ("distinct", "entropy", "recursive")
    )
    st.latex(rf"\text{{{distinct}: }} |\{{s\}}| \ge l")
    st.latex(rf"\text{{{entropy}: }} -\sum_s p(s)\ln p(s) \ge \ln l")
    st.latex(rf"\text{{{recursive}: }} r_1 < c\,(r_l + r_{{l+1}} + \dots + r_m)")
    left, right = st.columns(2)
    l_value = left.slider("l", 2, 3, 2, key=keep("learn_l3_l"))
    c_value = right.slider("c", 0.5, 4.0, 2.0, 0.5, key=keep("learn_l3_c"))
    models = {
        t("learn.l3.distinct"): DistinctLDiversity(int(l_value)),
        t("learn.l3.entropy"): EntropyLDiversity(float(l_value)),
        t("learn.l3.recursive"): RecursiveCLDiversity(float(c_value), int(l_value)),
    }
    table = pd.DataFrame(
        {
            t("learn.col.class"): names,
            t("learn.col.distinct_l"): distinct_values(classes, "Disease"),
            t("learn.col.entropy_l"): np.round(entropy_l(classes, "Disease"), 3),
            # a class of one value has no r2 … rm: its ratio is unbounded, said ∞
            t("learn.col.recursive_c", l=int(l_value)): [
                "∞" if np.isinf(ratio) else f"{ratio:.3f}"
                for ratio in recursive_c(classes, "Disease", int(l_value))
            ],
        }
    )
    for label, model in models.items():
        table[label] = np.where(model.class_pass(classes), "✓", "✗")
    st.dataframe(table, hide_index=True)
    cards = st.columns(3)
    for column, (label, model) in zip(cards, models.items(), strict=True):
        with column:
            passed = model.satisfied(classes)
            verdict_card(
                label,
                requirement(model.to_dict(), model.requirement(), current_language()),
                "pass" if passed else "fail",
                t_plain("learn.l3.card_pass") if passed else t_plain("learn.l3.card_fail"),
            )

    # The exercise class is not in the table above, whose entropy l column shows answers.
    quiz = pd.DataFrame({"Class": "X", "Disease": ["flu", "flu", "flu", "cold", "covid"]})
    truth = float(entropy_l(equivalence_classes(quiz, ["Class"], ["Disease"]), "Disease")[0])

    number_exercise("l3", truth, min_value=0.0)


def _posterior_chart(targets: pd.DataFrame) -> alt.Chart:
    bars = (
        alt.Chart(targets, title=t("learn.l3.chart_title"))
        .mark_bar()
        .encode(
            x=alt.X("record:O", title=t("learn.col.record")),
            y=alt.Y(
                "posterior:Q",
                title=t("learn.l3.chart_y"),
                scale=alt.Scale(domain=[0, 1]),
                axis=alt.Axis(format="%"),
            ),
            color=alt.Color("klass:N", title=t("learn.col.class")),
            tooltip=[
                alt.Tooltip("record:O", title=t("learn.col.record")),
                alt.Tooltip("value:N", title="Disease"),
                alt.Tooltip("posterior:Q", format=".0%", title=t("learn.l3.chart_y")),
                alt.Tooltip("values_left:Q", title=t("learn.l3.values_left")),
            ],
        )
    )
    rule = (
        alt.Chart(pd.DataFrame({"tau": [0.8]}))
        .mark_rule(color=FAIL, strokeDash=[4, 4])
        .encode(y="tau:Q")
    )
    return (bars + rule).properties(height=260)
