"""Lesson 7 of the Learn page: central differential privacy — the differencing attack
on a dinner's count of singles, the noise that bounds what it learns, and how accurate a
noisy count stays."""

from __future__ import annotations

import math

import altair as alt
import numpy as np
import pandas as pd
import streamlit as st

from privcore.dp import count, dinner_story, dinner_table, posterior_bound
from privcore.dp.mechanisms import (
    discrete_laplace_half_width,
    discrete_laplace_pmf,
    laplace_half_width,
    laplace_scale,
)
from ui.common.charts import ACCENT, PASS, show_chart
from ui.common.components import fmt
from ui.common.i18n import labels, t, t_plain
from ui.common.state import keep
from ui.common.workspace.names import diner_name
from ui.learn.common import LN3, answer_input, exercise, is_close

#: The exercise of lesson 7: the Laplace scale of a count at this ε (not a value of the
#: lesson's ε slider, whose metrics would show the answer).
L7_EXERCISE_EPSILON = 0.25


SINGLE = "single"


def output_probabilities(count_with: int, count_without: int, epsilon: float) -> pd.DataFrame:
    """P(output = y) of the discrete Laplace mechanism (sensitivity 1) on two true counts,
    over every y within the 99 % range of both: columns ``output``, ``with``, ``without``.

    The rows cover the outputs where the ratio of the two probabilities is decided; beyond
    them it stays at its value on the nearest edge (both tails fall by the same factor q per
    step), so the largest ratio over the rows is the largest over all outputs."""
    reach = discrete_laplace_half_width(1, epsilon, beta=0.01) + 1
    low, high = min(count_with, count_without) - reach, max(count_with, count_without) + reach
    outputs = np.arange(low, high + 1)
    return pd.DataFrame(
        {
            "output": outputs,
            "with": discrete_laplace_pmf(outputs - count_with, 1, epsilon),
            "without": discrete_laplace_pmf(outputs - count_without, 1, epsilon),
        }
    )


def largest_ratio(probabilities: pd.DataFrame) -> float:
    """max over outputs y of max(P_with(y)/P_without(y), P_without(y)/P_with(y)): ε-DP
    requires it to be at most e^ε."""
    ratio = probabilities["with"].to_numpy() / probabilities["without"].to_numpy()
    return float(np.max(np.maximum(ratio, 1.0 / ratio)))


def _distributions_chart(probabilities: pd.DataFrame, leaver: str) -> alt.Chart:
    series = {
        "with": t_plain("learn.l7.series_with"),
        "without": t_plain("learn.l7.series_without", name=diner_name(leaver)),
    }
    rows = probabilities.melt("output", ["with", "without"], "series", "probability")
    rows["series"] = rows["series"].map(series)
    return (
        alt.Chart(rows, title=t_plain("learn.l7.chart_title"))
        .mark_bar()
        .encode(
            x=alt.X("output:O", title=t_plain("learn.l7.chart_x")),
            xOffset=alt.XOffset("series:N", sort=list(series.values())),
            y=alt.Y("probability:Q", title=t_plain("learn.l7.chart_y")),
            color=alt.Color(
                "series:N",
                title=None,
                sort=list(series.values()),
                scale=alt.Scale(range=[ACCENT, PASS]),
            ),
            tooltip=[
                alt.Tooltip("series:N", title=t_plain("learn.l7.chart_series")),
                alt.Tooltip("output:O", title=t_plain("learn.l7.chart_x")),
                alt.Tooltip("probability:Q", format=".4f", title=t_plain("learn.l7.chart_y")),
            ],
        )
        .properties(height=260)
    )


def _dinner_guests(table: pd.DataFrame) -> pd.DataFrame:
    statuses = {status: t_plain(f"learn.l7.{status}") for status in table["status"].unique()}
    return pd.DataFrame(
        {
            t_plain("learn.col.name"): table["name"].map(diner_name),
            t_plain("learn.l7.col_status"): table["status"].map(statuses),
        }
    )


def lesson_differencing() -> None:
    st.header(t("learn.l7.title"))
    st.markdown(t("learn.l7.intro"))

    # 1. exact counts: the widgets of every section come first, the results are placed
    # in their sections once the one dinner_story call has run
    table, leaver, exact_box = _story_section()
    # 2. noisy counts
    epsilon, seed, noisy_box = _noise_section()
    # 3. the bound on the attacker's belief
    st.subheader(t("learn.l7.bound_title"))
    st.markdown(t("learn.l7.bound_text"))
    single, answers = t_plain("learn.l7.formula_single"), t_plain("learn.l7.formula_answers")
    st.latex(
        rf"\Pr[\text{{{single}}} \mid \text{{{answers}}}] \le "
        r"\frac{p\,e^{\varepsilon}}{p\,e^{\varepsilon} + 1 - p}"
    )
    prior = float(st.slider(t("learn.l7.prior"), 0.01, 0.99, 0.5, 0.01, key=keep("learn_l7_prior")))
    story = dinner_story(epsilon, prior=prior, leaver=leaver, mechanism="geometric", seed=seed)
    with exact_box:
        _exact_counts(story, leaver)
    with noisy_box:
        _noisy_counts(story, leaver, epsilon)
    _bound(story, leaver, epsilon, prior)
    # 4. accuracy
    sensitivity = _accuracy(table, story, epsilon)
    _exercise(sensitivity)


def _story_section() -> tuple[pd.DataFrame, str, object]:
    """The ten diners and the one who leaves; returns the table, the leaver and the box
    the exact counts go in."""
    st.subheader(t("learn.l7.story_title"))
    table = dinner_table()
    names = table["name"].tolist()
    st.markdown(
        t(
            "learn.l7.story_text",
            diners=len(table),
            couples=int((table["status"] != SINGLE).sum()),
            singles=int((table["status"] == SINGLE).sum()),
        )
    )
    st.dataframe(_dinner_guests(table), hide_index=True)
    first_single = names[int(np.flatnonzero(table["status"].to_numpy() == SINGLE)[0])]
    leaver = st.selectbox(
        t("learn.l7.leaver"),
        names,
        index=names.index(first_single),
        format_func=labels(names, diner_name),
        key=keep("learn_l7_leaver", valid=lambda v: v in names),
    )
    return table, leaver, st.container()


def _noise_section() -> tuple[float, int, object]:
    """ε and a fresh draw of the noise; returns them and the box the noisy counts go in."""
    st.subheader(t("learn.l7.noise_title"))
    st.markdown(t("learn.l7.noise_text"))
    left, right = st.columns([3, 1], vertical_alignment="bottom")
    epsilon = float(left.slider("ε", 0.1, 3.0, 1.0, 0.1, key=keep("learn_l7_eps")))
    if right.button(t("learn.l7.draw"), key="learn_l7_draw", icon=":material/casino:"):
        st.session_state["learn_l7_seed"] = st.session_state.get("learn_l7_seed", 0) + 1
    seed = int(st.session_state.get("learn_l7_seed", 0))
    return epsilon, seed, st.container()


def _exact_counts(story, leaver: str) -> None:
    """The exact counts of singles with and without the leaver, and what they tell."""
    cols = st.columns(2)
    cols[0].metric(t("learn.l7.count_with"), fmt(story.singles_before))
    cols[1].metric(t("learn.l7.count_without", name=diner_name(leaver)), fmt(story.singles_after))
    conclusion = (
        "learn.l7.exact_single"
        if story.singles_before - story.singles_after == 1
        else "learn.l7.exact_couple"
    )
    st.warning(
        t(
            conclusion,
            name=diner_name(leaver),
            before=story.singles_before,
            after=story.singles_after,
            diners_before=story.diners_before,
            diners_after=story.diners_after,
            posterior=f"{story.posterior_exact_answers:.0%}",
        ),
        icon=":material/visibility:",
    )


def _noisy_counts(story, leaver: str, epsilon: float) -> None:
    """The noisy counts drawn, the two distributions of the output and their largest
    ratio against e^ε."""
    attack = story.attack
    noisy_with, noisy_without = int(attack.noisy_with[0]), int(attack.noisy_without[0])
    cols = st.columns(3)
    cols[0].metric(t("learn.l7.noisy_with"), fmt(noisy_with))
    cols[1].metric(t("learn.l7.noisy_without", name=diner_name(leaver)), fmt(noisy_without))
    cols[2].metric(t("learn.l7.noisy_difference"), fmt(noisy_with - noisy_without))
    probabilities = output_probabilities(story.singles_before, story.singles_after, epsilon)
    show_chart(_distributions_chart(probabilities, leaver), key="learn_l7_chart_data")
    key = "learn.l7.ratio" if story.leaver_status == SINGLE else "learn.l7.ratio_couple"
    st.markdown(
        t(
            key,
            name=diner_name(leaver),
            ratio=fmt(largest_ratio(probabilities), 3),
            bound=fmt(math.exp(epsilon), 3),
            epsilon=fmt(epsilon, 1),
        )
    )


def _bound(story, leaver: str, epsilon: float, prior: float) -> None:
    """The bound on the attacker's belief beside the belief this draw gives and the
    certainty exact answers give."""
    attack = story.attack
    cols = st.columns(3)
    cols[0].metric(
        t("learn.l7.bound_metric"),
        fmt(posterior_bound(epsilon, prior)),
        help=t("learn.l7.bound_help"),
    )
    cols[1].metric(
        t("learn.l7.draw_posterior", name=diner_name(leaver)), fmt(float(attack.posteriors[0]))
    )
    cols[2].metric(t("learn.l7.exact_posterior"), fmt(story.posterior_exact_answers))
    st.caption(
        t(
            "learn.l7.bound_caption",
            low=fmt(attack.posterior_min),
            high=fmt(attack.posterior_max),
            prior=fmt(prior, 2),
            epsilon=fmt(epsilon, 1),
        )
    )
    st.info(t("learn.l7.worked", value=fmt(posterior_bound(LN3, 0.5), 2)), icon=":material/info:")


def _accuracy(table: pd.DataFrame, story, epsilon: float) -> float:
    """The Laplace scale of the count and its 95 % half-width (continuous and discrete);
    returns the count's sensitivity."""
    st.subheader(t("learn.l7.accuracy_title"))
    sensitivity = count(table, {"status": SINGLE}).sensitivity_l1
    st.markdown(t("learn.l7.accuracy_text", sensitivity=fmt(sensitivity, 0)))
    st.latex(
        r"b = \frac{\Delta}{\varepsilon},\qquad \Pr\bigl[|Z| > t\bigr] = e^{-t/b}"
        r"\;\Rightarrow\; t_{95\%} = \frac{\Delta}{\varepsilon}\,\ln 20"
    )
    scale = laplace_scale(sensitivity, epsilon)
    half_width = laplace_half_width(sensitivity, epsilon, beta=0.05)
    discrete_half_width = discrete_laplace_half_width(int(sensitivity), epsilon, beta=0.05)
    cols = st.columns(4)
    cols[0].metric(t("learn.l7.sensitivity"), fmt(sensitivity, 0))
    cols[1].metric(t("learn.l7.scale"), fmt(scale, 2))
    cols[2].metric(t("learn.l7.half_width"), fmt(half_width, 2))
    cols[3].metric(t("learn.l7.discrete_half_width"), fmt(discrete_half_width))
    st.caption(
        t(
            "learn.l7.accuracy_caption",
            epsilon=fmt(epsilon, 1),
            half=fmt(half_width, 2),
            discrete=fmt(discrete_half_width),
            singles=story.singles_before,
        )
    )
    return sensitivity


def _exercise(sensitivity: float) -> None:
    """The Laplace scale of the count at :data:`L7_EXERCISE_EPSILON`."""
    truth = laplace_scale(sensitivity, L7_EXERCISE_EPSILON)
    asked = fmt(L7_EXERCISE_EPSILON, 2)

    def check(answer: float) -> tuple[bool, str]:
        if is_close(answer, truth):
            return True, t(
                "learn.l7.right",
                sensitivity=fmt(sensitivity, 0),
                epsilon=asked,
                value=f"{truth:.2f}",
                half=fmt(laplace_half_width(sensitivity, L7_EXERCISE_EPSILON), 2),
            )
        if is_close(answer, L7_EXERCISE_EPSILON * sensitivity):
            return False, t("learn.l7.wrong_inverted", answer=fmt(float(answer), 2))
        return False, t(
            "learn.l7.wrong", answer=fmt(float(answer), 2), sensitivity=fmt(sensitivity, 0)
        )

    exercise(
        "learn_l7",
        t("learn.l7.question", epsilon=asked),
        lambda: answer_input(
            "learn_l7_answer", t("learn.l7.answer_label"), min_value=0.0, step=0.01, format="%.2f"
        ),
        check,
    )
