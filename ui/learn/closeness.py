"""Lesson 4 of the Learn page: t-closeness — the ordered distance on salaries (the sum
of running differences), the equal and hierarchical distances on diseases."""

from __future__ import annotations

from typing import Any

import altair as alt
import numpy as np
import pandas as pd
import streamlit as st

from privcore.classes import equivalence_classes
from privcore.models import t_distance
from ui.common.charts import ACCENT, MUTED, show_chart
from ui.common.components import fmt
from ui.common.i18n import t, t_plain
from ui.common.state import keep, sample
from ui.learn.common import (
    QI,
    SA,
    answer_input,
    class_names,
    hospital,
    hospital_release,
    number_exercise,
)


def _salary_steps(frame: pd.DataFrame, classes: Any, class_id: int) -> pd.DataFrame:
    """Per salary in rank order: the class's and the table's shares and the running
    difference Σ_{j≤i} (p_j − q_j) the ordered distance adds up."""
    values = np.sort(frame["Salary"].unique())
    q = frame["Salary"].value_counts(normalize=True).reindex(values, fill_value=0.0)
    members = frame["Salary"][classes.ids == class_id]
    p = members.value_counts(normalize=True).reindex(values, fill_value=0.0)
    return pd.DataFrame(
        {
            "salary": [f"{v / 1000:g}K" for v in values],
            "p": p.to_numpy(),
            "q": q.to_numpy(),
            "cumulative": np.cumsum(p.to_numpy() - q.to_numpy()),
        }
    )


def _cumulative_chart(steps: pd.DataFrame) -> alt.Chart:
    return (
        alt.Chart(steps, title=t("learn.l4.chart_title"))
        .mark_bar()
        .encode(
            x=alt.X("salary:O", sort=None, title=t("learn.l4.chart_x")),
            y=alt.Y("cumulative:Q", title=t("learn.l4.chart_y")),
            color=alt.condition("datum.cumulative >= 0", alt.value(ACCENT), alt.value(MUTED)),
            tooltip=[
                alt.Tooltip("salary:O", title=t("learn.l4.chart_x")),
                alt.Tooltip("p:Q", format=".3f", title="p"),
                alt.Tooltip("q:Q", format=".3f", title="q"),
                alt.Tooltip("cumulative:Q", format=".3f", title=t("learn.l4.chart_y")),
            ],
        )
        .properties(height=240)
    )


def tiny_table() -> pd.DataFrame:
    """The exercise table: ten patients in two classes."""
    return pd.DataFrame(
        {
            "Class": ["A"] * 6 + ["B"] * 4,
            "Disease": ["flu"] * 4 + ["cold"] * 2 + ["cold", "covid", "covid", "flu"],
        }
    )


def lesson_t_closeness() -> None:
    st.header(t("learn.l4.title"))
    st.markdown(t("learn.l4.intro"))
    release = hospital_release()
    hierarchy = sample("hospital")[1].hierarchies["Disease"]
    classes = equivalence_classes(release, QI, SA, hierarchies={"Disease": hierarchy})
    names = class_names(release, classes)
    st.dataframe(release, hide_index=True)

    st.subheader(t("learn.l4.ordered_title"))
    ordered = t_plain("learn.l4.formula_ordered")
    st.latex(
        rf"D_{{\text{{{ordered}}}}}(P,Q) = \frac{{1}}{{m-1}}\sum_{{i=1}}^{{m}}"
        r"\Bigl|\sum_{j\le i}(p_j-q_j)\Bigr|"
    )
    salary_t = t_distance(classes, "Salary", "ordered")
    worst = int(np.argmax(salary_t))
    chosen = st.selectbox(
        t("learn.col.class"),
        range(classes.n_classes),
        index=worst,
        format_func=lambda c: names[c],
        key=keep("learn_l4_class"),
    )
    steps = _salary_steps(release, classes, int(chosen))
    show_chart(_cumulative_chart(steps), key="learn_l4_chart_data")
    total = float(np.abs(steps["cumulative"]).sum())
    st.markdown(
        t(
            "learn.l4.ordered_sum",
            total=fmt(total),
            m=len(steps),
            value=fmt(float(salary_t[int(chosen)])),
        )
    )
    st.metric(t("learn.l4.t_salary"), fmt(float(salary_t.max())), help=t("learn.l4.t_salary_help"))
    st.caption(t("learn.l4.erratum", other=fmt(_other_grouping_t(), 4)))

    st.subheader(t("learn.l4.disease_title"))
    st.markdown(t("learn.l4.disease_text"))
    equal = t_plain("learn.l4.formula_equal")
    st.latex(rf"D_{{\text{{{equal}}}}}(P,Q) = \tfrac12\sum_i |p_i-q_i|")
    levels = hierarchy.to_frame()
    levels.columns = [t("learn.col.level", level=i) for i in range(len(levels.columns))]
    st.dataframe(levels, hide_index=True)
    st.dataframe(
        pd.DataFrame(
            {
                t("learn.col.class"): names,
                t("learn.col.t_ordered"): np.round(salary_t, 3),
                t("learn.col.t_equal"): np.round(t_distance(classes, "Disease", "equal"), 3),
                t("learn.col.t_hier"): np.round(t_distance(classes, "Disease", "hierarchical"), 3),
            }
        ),
        hide_index=True,
    )
    st.markdown(t("learn.l4.disease_after"))

    tiny = tiny_table()
    tiny_classes = equivalence_classes(tiny, ["Class"], ["Disease"])
    truth = float(t_distance(tiny_classes, "Disease", "equal")[1])

    number_exercise("l4", truth, ask=lambda: _tiny_question(tiny))


def _tiny_question(tiny: pd.DataFrame) -> float | None:
    st.dataframe(tiny, hide_index=True)
    return answer_input(
        "learn_l4_answer", t("learn.l4.answer_label"), min_value=0.0, step=0.01, format="%.2f"
    )


def _other_grouping_t() -> float:
    """Salary t of the grouping {1,3,8}, {4,5,6}, {2,7,9} of Li et al.'s paper."""
    frame = hospital().assign(group=[1, 2, 1, 3, 3, 3, 2, 1, 2])
    classes = equivalence_classes(frame, ["group"], ["Salary"])
    return float(t_distance(classes, "Salary", "ordered").max())
