"""Views of the Differential privacy page's first tab: the neighbouring relation a
guarantee is about, the dinner story and the differencing attack on a person of the data,
and the words of the page's choices.

Everything here shows what the library computed; the formulas live in
:mod:`privcore.dp`. Values of the data (column names, cells, a person's row) reach the
page as table cells or through :func:`ui.common.i18n.t`, which escapes them.
"""

from __future__ import annotations

from typing import Any

import altair as alt
import numpy as np
import pandas as pd
import streamlit as st

from privcore.dp import posterior_bound
from ui.common.charts import ACCENT, FAIL, MUTED
from ui.common.components import explained_metric, fmt, verdict_row
from ui.common.i18n import t, t_plain
from ui.common.workspace.names import diner_name

RELATIONS = ("add_remove", "replace")


QUERIES = ("count", "sum", "mean", "histogram")


NOISES = ("auto", "laplace", "geometric", "gaussian")


VALUE_CHOICES = 1_000  # values offered for a condition (the most frequent first)


def number(value: float) -> str:
    """A budget figure: up to four significant digits ("0.6", "1e-05")."""
    value = float(value)
    return "0" if abs(value) < 1e-15 else f"{value:.4g}"


def relation_note(relation: str = "add_remove") -> None:
    """The neighbouring relation a tab's guarantee is about (SPEC §10: say it everywhere)."""
    st.caption(t(f"dp.relation_note_{relation}"))


def relation_label(relation: str) -> str:
    return t_plain(f"dp.relation_{relation}")


def noise_label(noise: str) -> str:
    return t_plain(f"dp.noise_{noise}")


def query_name(query: str) -> str:
    return t_plain(f"dp.query_{query}")


def status_word(status: str) -> str:
    return t_plain(f"dp.status_{status}")


def dinner_frame(table: pd.DataFrame) -> pd.DataFrame:
    """The ten diners, in words."""
    return pd.DataFrame(
        {
            t_plain("dp.diner"): table["name"].map(diner_name),
            t_plain("dp.status"): table["status"].map(status_word),
        }
    )


def _bound_card(attack: Any) -> tuple[str, str, str, str]:
    """The card of the largest posterior under ε-DP answers (dinner and any person)."""
    return (
        t_plain("dp.posterior_bound"),
        fmt(attack.posterior_max),
        "info",
        t_plain(
            "dp.posterior_bound_detail", prior=fmt(attack.prior, 2), epsilon=fmt(attack.epsilon)
        ),
    )


def dinner_result(story: Any) -> None:
    """The dinner story played: exact counts before and after, then what the attacker
    believes from exact answers (certainty) and from ε-DP answers (the bound)."""
    attack = story.attack
    name = diner_name(story.leaver)
    c1, c2, c3 = st.columns(3)
    c1.metric(t("dp.diners"), f"{story.diners_before} → {story.diners_after}")
    c2.metric(t("dp.singles"), f"{story.singles_before} → {story.singles_after}")
    noisy = f"{fmt_noisy(attack.noisy_with[0])} → {fmt_noisy(attack.noisy_without[0])}"
    explained_metric(c3, t("dp.noisy_singles"), noisy, "dp.noisy_singles_help")
    status = status_word(story.leaver_status)
    verdict_row(
        [
            (
                t_plain("dp.posterior_exact"),
                fmt(attack.posterior_exact_answers),
                "fail",
                t_plain("dp.posterior_exact_detail", name=name, status=status),
            ),
            _bound_card(attack),
            (
                t_plain("dp.posterior_drawn"),
                fmt(float(attack.posteriors[0])),
                "info",
                t_plain("dp.posterior_drawn_detail", name=name),
            ),
        ],
        per_row=3,
    )
    st.caption(t("dp.two_queries_cost", total=fmt(2 * attack.epsilon)))


def fmt_noisy(value: Any) -> str:
    value = float(value)
    return f"{value:,.0f}" if value.is_integer() else f"{value:,.2f}"


def posterior_chart(epsilon: float, prior: float) -> alt.Chart:
    """The largest posterior p·e^ε/(p·e^ε + 1 − p) against ε, the chosen ε marked, with
    the prior and the certainty that exact answers give."""
    grid = np.unique(np.append(np.linspace(0.01, 5.0, 100), epsilon))
    bound = [posterior_bound(float(e), prior) for e in grid]
    series_bound = t_plain("dp.chart_bound")
    series_exact = t_plain("dp.chart_exact")
    series_prior = t_plain("dp.chart_prior")
    data = pd.concat(
        [
            pd.DataFrame({"epsilon": grid, "posterior": bound, "series": series_bound}),
            pd.DataFrame({"epsilon": grid, "posterior": 1.0, "series": series_exact}),
            pd.DataFrame({"epsilon": grid, "posterior": prior, "series": series_prior}),
        ],
        ignore_index=True,
    )
    colour = alt.Color(
        "series:N",
        title=None,
        scale=alt.Scale(
            domain=[series_bound, series_exact, series_prior], range=[ACCENT, FAIL, MUTED]
        ),
    )
    lines = (
        alt.Chart(data, title=t_plain("dp.chart_posterior_title"))
        .mark_line()
        .encode(
            x=alt.X("epsilon:Q", title="ε"),
            y=alt.Y(
                "posterior:Q",
                title=t_plain("dp.chart_posterior_y"),
                scale=alt.Scale(domain=[0, 1.02]),
            ),
            color=colour,
            strokeDash=alt.condition(
                alt.datum.series == series_bound, alt.value([1, 0]), alt.value([4, 4])
            ),
            tooltip=[
                alt.Tooltip("series:N", title=t_plain("dp.chart_series")),
                alt.Tooltip("epsilon:Q", title="ε", format=".2f"),
                alt.Tooltip("posterior:Q", title=t_plain("dp.chart_posterior_y"), format=".3f"),
            ],
        )
    )
    chosen = pd.DataFrame({"epsilon": [epsilon], "posterior": [posterior_bound(epsilon, prior)]})
    point = (
        alt.Chart(chosen)
        .mark_point(filled=True, size=120, color=FAIL)
        .encode(
            x="epsilon:Q",
            y="posterior:Q",
            tooltip=[
                alt.Tooltip("epsilon:Q", title="ε", format=".3f"),
                alt.Tooltip("posterior:Q", title=t_plain("dp.chart_posterior_y"), format=".3f"),
            ],
        )
    )
    return lines + point


def differencing_result(attack: Any, *, row: int, column: str, value: Any) -> None:
    """The differencing attack on one person of the data set."""
    has = t_plain("dp.has_value" if attack.target_has_value else "dp.has_not_value")
    c1, c2 = st.columns(2)
    exact = f"{attack.count_with:,} → {attack.count_without:,}"
    explained_metric(c1, t("dp.exact_counts"), exact, "dp.exact_counts_help")
    noisy = f"{fmt_noisy(attack.noisy_with[0])} → {fmt_noisy(attack.noisy_without[0])}"
    explained_metric(c2, t("dp.noisy_counts"), noisy, "dp.noisy_singles_help")
    condition = f"{column} = {value}"
    verdict_row(
        [
            (
                t_plain("dp.posterior_exact"),
                fmt(attack.posterior_exact_answers),
                "fail",
                t_plain("dp.person_exact_detail", row=row, has=has, condition=condition),
            ),
            _bound_card(attack),
            (
                t_plain("dp.posterior_drawn"),
                fmt(float(attack.posteriors[0])),
                "info",
                t_plain("dp.person_drawn_detail", row=row, condition=condition),
            ),
        ],
        per_row=3,
    )


def value_options(frame: pd.DataFrame, column: str) -> list[Any]:
    """The values of ``column`` a condition can test: the most frequent first, at most
    :data:`VALUE_CHOICES`, missing values left out."""
    counts = frame[column].value_counts(dropna=True)
    return counts.index[:VALUE_CHOICES].tolist()


def numeric_columns(frame: pd.DataFrame) -> list[str]:
    return [
        str(c)
        for c in frame.columns
        if pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c])
    ]
