"""Views of the query builder and the accuracy tab of the Differential privacy page: the
budget bar and its ledger, a released answer with its 95 % interval, a noisy histogram,
and accuracy against ε (never the true answer)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import altair as alt
import numpy as np
import pandas as pd
import streamlit as st

from privcore.dp import NoisyAnswer
from privcore.runs import Accountant
from ui.common.charts import ACCENT, FAIL, MUTED, show_chart
from ui.common.components import fmt
from ui.common.i18n import t, t_plain
from ui.dp.story_view import noise_label, number, query_name, relation_label

HISTOGRAM_BARS = 60  # cells drawn in a histogram's bar chart


ACCURACY_DRAWS = 200


def query_label(values: Mapping[str, Any]) -> str:
    """A query as a short formula in the page's language: "count(sex = Male)",
    "mean(age in [0, 100] | sex = Male)", "histogram(race, sex)"."""
    query = values["query"]
    where = ", ".join(f"{c} = {v}" for c, v in (values.get("where") or {}).items())
    name = query_name(query)
    if query == "count":
        return f"{name}({where})"
    if query == "histogram":
        return f"{name}({', '.join(values.get('columns') or ())})"
    low, high = values.get("clamp") or (None, None)
    condition = f" | {where}" if where else ""
    return f"{name}({values.get('column')} ∈ [{fmt(low)}, {fmt(high)}]{condition})"


def budget_bar(budget: Accountant, slot: Any) -> None:
    """The budget bar in ``slot`` (a container drawn above the query form): ε spent and
    left, and the share of ε spent with the figures of ε and δ as text."""
    spent_epsilon, spent_delta = budget.spent
    remaining_epsilon, _ = budget.remaining
    share = min(max(spent_epsilon / budget.epsilon, 0.0), 1.0)
    c1, c2, c3 = slot.columns([1, 1, 4])
    c1.metric(t("dp.spent_epsilon"), number(spent_epsilon))
    c2.metric(t("dp.remaining_epsilon"), number(remaining_epsilon))
    c3.progress(
        share,
        text=t(
            "dp.budget_bar",
            spent=number(spent_epsilon),
            total=number(budget.epsilon),
            spent_delta=number(spent_delta),
            total_delta=number(budget.delta),
        ),
    )


def answer_text(noisy: NoisyAnswer) -> str:
    if isinstance(noisy.answer, pd.Series):
        return t_plain("dp.cells_answered", n=f"{noisy.answer.size:,}")
    return fmt_answer(noisy.answer)


def fmt_answer(value: Any) -> str:
    value = float(value)
    if not math.isfinite(value):
        return "—"
    return f"{value:,.0f}" if value.is_integer() else f"{value:,.3f}"


def interval_text(noisy: NoisyAnswer) -> str:
    if isinstance(noisy.answer, pd.Series):
        lower, upper = np.asarray(noisy.interval, dtype=float)[0]
        half = (upper - lower) / 2
        return t_plain("dp.cell_interval", half=fmt_answer(half))
    lower, upper = np.asarray(noisy.interval, dtype=float)
    return f"[{fmt_answer(lower)}, {fmt_answer(upper)}]"


def ledger_frame(budget: Accountant, answers: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """The ledger: every query answered on this budget, its cost and its answer."""
    rows = []
    for position, (item, answered) in enumerate(zip(budget.ledger, answers, strict=False), 1):
        noisy = answered["answer"]
        rows.append(
            {
                t_plain("dp.ledger_n"): position,
                t_plain("dp.ledger_query"): item.label,
                "ε": number(item.epsilon),
                "δ": number(item.delta),
                t_plain("dp.ledger_answer"): answer_text(noisy),
                t_plain("dp.ledger_interval"): interval_text(noisy),
                t_plain("dp.ledger_run"): "—"
                if answered.get("run_id") is None
                else f"#{answered['run_id']}",
            }
        )
    return pd.DataFrame(rows)


def _scale_text(value: Any) -> str:
    if isinstance(value, Mapping):
        return " · ".join(f"{query_name(part)} {fmt(float(v))}" for part, v in value.items())
    return fmt(float(value))


def _mechanism_text(value: Any) -> str:
    if isinstance(value, Mapping):
        return " · ".join(f"{query_name(part)}: {noise_label(v)}" for part, v in value.items())
    return noise_label(str(value))


def show_answer(noisy: NoisyAnswer, label: str) -> None:
    """A released answer: the noisy value, its 95 % interval, the noise scale and the
    sensitivity (a histogram as a table and a bar chart) — never the true answer."""
    st.markdown(f"**{t('dp.latest_answer', query=label)}**")
    if isinstance(noisy.answer, pd.Series):
        frame = histogram_frame(noisy)
        c1, c2, c3 = st.columns(3)
        c1.metric(t("dp.cells"), f"{len(frame):,}")
        c2.metric(t("dp.scale"), _scale_text(noisy.scale), help=t("dp.scale_help"))
        c3.metric(t("dp.sensitivity"), _scale_text(noisy.sensitivity))
        st.caption(t("dp.histogram_interval", half=interval_text(noisy)))
        st.dataframe(frame, hide_index=True)
        show_chart(histogram_chart(frame), key="dp_answers_chart_data")
        if len(frame) > HISTOGRAM_BARS:
            st.caption(t("dp.histogram_top", n=HISTOGRAM_BARS, total=f"{len(frame):,}"))
    else:
        c1, c2, c3, c4 = st.columns(4)
        c1.metric(t("dp.noisy_answer"), fmt_answer(noisy.answer))
        c2.metric(t("dp.interval95"), interval_text(noisy), help=t("dp.interval95_help"))
        c3.metric(t("dp.scale"), _scale_text(noisy.scale), help=t("dp.scale_help"))
        c4.metric(t("dp.sensitivity"), _scale_text(noisy.sensitivity))
    st.caption(
        t(
            "dp.answer_facts",
            mechanism=_mechanism_text(noisy.mechanism),
            epsilon=number(noisy.epsilon),
            delta=number(noisy.delta),
            relation=relation_label(noisy.query.relation),
        )
    )


def cell_value(cell: Any) -> str:
    """A cell's value (or a histogram cell's values) in words, "—" where missing."""
    parts = cell if isinstance(cell, tuple) else (cell,)
    return " · ".join("—" if pd.isna(p) else str(p) for p in parts)


def histogram_frame(noisy: NoisyAnswer) -> pd.DataFrame:
    """A noisy histogram as a table: cell, noisy count and its 95 % interval."""
    answer = noisy.answer
    intervals = np.asarray(noisy.interval, dtype=float)
    return pd.DataFrame(
        {
            t_plain("dp.cell"): [cell_value(c) for c in answer.index.tolist()],
            t_plain("dp.noisy_count"): np.asarray(answer.to_numpy(), dtype=float),
            t_plain("dp.lower"): intervals[:, 0],
            t_plain("dp.upper"): intervals[:, 1],
        }
    )


def histogram_chart(frame: pd.DataFrame) -> alt.Chart:
    """The noisy counts of the largest cells as bars, their 95 % intervals as rules."""
    cell, count = t_plain("dp.cell"), t_plain("dp.noisy_count")
    lower, upper = t_plain("dp.lower"), t_plain("dp.upper")
    top = frame.nlargest(HISTOGRAM_BARS, count)
    data = pd.DataFrame(
        {"cell": top[cell], "count": top[count], "lower": top[lower], "upper": top[upper]}
    )
    x = alt.X("cell:N", title=cell, sort=list(data["cell"]))
    bars = (
        alt.Chart(data, title=t_plain("dp.histogram_title"))
        .mark_bar(color=ACCENT)
        .encode(
            x=x,
            y=alt.Y("count:Q", title=count),
            tooltip=[
                alt.Tooltip("cell:N", title=cell),
                alt.Tooltip("count:Q", title=count, format=",.0f"),
                alt.Tooltip("lower:Q", title=lower, format=",.1f"),
                alt.Tooltip("upper:Q", title=upper, format=",.1f"),
            ],
        )
    )
    rules = alt.Chart(data).mark_rule(color=MUTED).encode(x=x, y="lower:Q", y2="upper:Q")
    return bars + rules


def accuracy_chart(curve: pd.DataFrame) -> alt.Chart:
    """The error band (5–95 % of |noisy − true|), its median and the stated 95 %
    half-width, against ε on a log scale."""
    band_name = t_plain("dp.acc_band")
    median_name = t_plain("dp.acc_median")
    width_name = t_plain("dp.acc_half_width")
    scale = alt.Scale(domain=[band_name, median_name, width_name], range=[ACCENT, ACCENT, FAIL])
    x = alt.X("epsilon:Q", title="ε", scale=alt.Scale(type="log"))
    error_title = t_plain("dp.acc_error")
    band = (
        alt.Chart(curve.assign(series=band_name), title=t_plain("dp.acc_title"))
        .mark_area(opacity=0.25)
        .encode(
            x=x,
            y=alt.Y("p5:Q", title=error_title, scale=alt.Scale(type="symlog")),
            y2="p95:Q",
            color=alt.Color("series:N", title=None, scale=scale),
            tooltip=[
                alt.Tooltip("epsilon:Q", title="ε", format=".3f"),
                alt.Tooltip("p5:Q", title="5 %", format=",.3f"),
                alt.Tooltip("p95:Q", title="95 %", format=",.3f"),
            ],
        )
    )
    lines_data = pd.concat(
        [
            pd.DataFrame(
                {"epsilon": curve["epsilon"], "error": curve["median"], "series": median_name}
            ),
            pd.DataFrame(
                {"epsilon": curve["epsilon"], "error": curve["half_width"], "series": width_name}
            ),
        ],
        ignore_index=True,
    )
    lines = (
        alt.Chart(lines_data)
        .mark_line(point=True)
        .encode(
            x=x,
            y=alt.Y("error:Q", title=error_title, scale=alt.Scale(type="symlog")),
            color=alt.Color("series:N", title=None, scale=scale),
            strokeDash=alt.condition(
                alt.datum.series == width_name, alt.value([4, 4]), alt.value([1, 0])
            ),
            tooltip=[
                alt.Tooltip("series:N", title=t_plain("dp.chart_series")),
                alt.Tooltip("epsilon:Q", title="ε", format=".3f"),
                alt.Tooltip("error:Q", title=error_title, format=",.3f"),
            ],
        )
    )
    return band + lines


def accuracy_table(curve: pd.DataFrame) -> pd.DataFrame:
    """The curve's figures by ε, with the coverage of the stated interval and its
    exact 95 % interval, in words."""
    coverage = [
        f"{100 * c:.1f} % [{100 * lo:.1f}, {100 * hi:.1f}]"
        for c, lo, hi in zip(
            curve["coverage"], curve["coverage_low"], curve["coverage_high"], strict=True
        )
    ]
    return pd.DataFrame(
        {
            "ε": curve["epsilon"],
            t_plain("dp.acc_p5"): curve["p5"],
            t_plain("dp.acc_median"): curve["median"],
            t_plain("dp.acc_p95"): curve["p95"],
            t_plain("dp.acc_half_width"): curve["half_width"],
            t_plain("dp.acc_coverage"): coverage,
        }
    )


def coverage_verdict(curve: pd.DataFrame) -> tuple[str, dict]:
    """Whether the drawn answers bear out the stated 95 % interval: the words' key and
    their parameters (the ε whose coverage interval lies wholly below 0.95, if any)."""
    below = curve.loc[curve["coverage_high"] < 0.95, "epsilon"].tolist()
    if not below:
        return "dp.acc_coverage_holds", {}
    return "dp.acc_coverage_below", {"epsilons": ", ".join(f"{e:g}" for e in below)}
