"""Views of the Differential privacy page: the dinner story and the differencing attack,
the query builder's budget and answers, accuracy vs ε, DP vs k-anonymity, and the audit
of central mechanisms (SPEC §10).

Everything here shows what the library computed; the formulas live in
:mod:`privcore.dp`. Values of the data (column names, cells, a person's row) reach the
page as table cells or through :func:`ui.i18n.t`, which escapes them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import altair as alt
import numpy as np
import pandas as pd
import streamlit as st

from privcore.data import to_csv_bytes
from privcore.dp import Budget, NoisyAnswer, posterior_bound
from privcore.dp.audit import (
    AUDIT_MECHANISMS,
    DEFAULT_GAUSSIAN_DELTA,
    FALSE_ALARM_RATE,
    SUM_RECORDS,
)
from ui.charts import ACCENT, FAIL, MUTED
from ui.components import fmt, verdict_card, verdict_row
from ui.i18n import current_language, escape_md, t, t_plain
from ui.workspace import algorithm_title, choice_title, file_stem

RELATIONS = ("add_remove", "replace")
QUERIES = ("count", "sum", "mean", "histogram")
NOISES = ("auto", "laplace", "geometric", "gaussian")
VALUE_CHOICES = 1_000  # values offered for a condition (the most frequent first)
HISTOGRAM_BARS = 60  # cells drawn in a histogram's bar chart
ACCURACY_DRAWS = 200


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


# --------------------------------------------------------------------------- the dinner


def diner_name(name: str) -> str:
    """A diner's name in the page's language (张三 for Zhang San)."""
    return choice_title("dp.diner_" + "_".join(name.lower().split()), name)


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
    c3.metric(
        t("dp.noisy_singles"),
        f"{fmt_noisy(attack.noisy_with[0])} → {fmt_noisy(attack.noisy_without[0])}",
        help=t("dp.noisy_singles_help"),
    )
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
    c1.metric(
        t("dp.exact_counts"),
        f"{attack.count_with:,} → {attack.count_without:,}",
        help=t("dp.exact_counts_help"),
    )
    c2.metric(
        t("dp.noisy_counts"),
        f"{fmt_noisy(attack.noisy_with[0])} → {fmt_noisy(attack.noisy_without[0])}",
        help=t("dp.noisy_singles_help"),
    )
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


def differencing_summary(attack: Any) -> dict[str, Any]:
    """What the history keeps of an attack on a person: the privacy figures only — not
    the value tested, not whether the person has it, not the counts."""
    return {
        "epsilon": attack.epsilon,
        "prior": attack.prior,
        "mechanism": attack.mechanism,
        "posterior_exact_answers": attack.posterior_exact_answers,
        "posterior_max": attack.posterior_max,
        "posterior_min": attack.posterior_min,
    }


# --------------------------------------------------------------------------- the data


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


# --------------------------------------------------------------------------- the budget


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


def budget_bar(budget: Budget, slot: Any) -> None:
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


def without_last(budget: Budget) -> Budget:
    """The budget without its last spend: a query that failed before any noise was drawn
    released nothing, so it costs nothing."""
    fresh = Budget(budget.epsilon, budget.delta)
    for item in budget.ledger[:-1]:
        fresh.spend(item.epsilon, item.delta, label=item.label)
    return fresh


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


def ledger_frame(budget: Budget, answers: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
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
        st.altair_chart(histogram_chart(frame), width="stretch")
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


def _cell_text(cell: Any) -> str:
    parts = cell if isinstance(cell, tuple) else (cell,)
    return " · ".join("—" if pd.isna(p) else str(p) for p in parts)


def histogram_frame(noisy: NoisyAnswer) -> pd.DataFrame:
    """A noisy histogram as a table: cell, noisy count and its 95 % interval."""
    answer = noisy.answer
    intervals = np.asarray(noisy.interval, dtype=float)
    return pd.DataFrame(
        {
            t_plain("dp.cell"): [_cell_text(c) for c in answer.index.tolist()],
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


# --------------------------------------------------------------------------- accuracy


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
    return pd.DataFrame(
        {
            "ε": curve["epsilon"],
            t_plain("dp.acc_p5"): curve["p5"],
            t_plain("dp.acc_median"): curve["median"],
            t_plain("dp.acc_p95"): curve["p95"],
            t_plain("dp.acc_half_width"): curve["half_width"],
        }
    )


# --------------------------------------------------------------------------- DP vs k-anon


def cell_text(cell: Mapping[str, Any]) -> str:
    """A query's cell in words: "age = 39 · occupation = Sales"."""
    return " · ".join(f"{c} = {_cell_text(v)}" for c, v in cell.items())


def _release_metrics(figures: Mapping[str, Any], zero_in_truth: int) -> None:
    st.metric(t("dp.mean_abs_error"), fmt(figures["mean_abs_error"], 2))
    st.metric(t("dp.median_abs_error"), fmt(figures["median_abs_error"], 2))
    st.metric(t("dp.max_abs_error"), fmt(figures["max_abs_error"], 1))
    st.metric(
        t("dp.mean_relative_error"),
        f"{figures['mean_relative_error']:.1%}",
        help=t("dp.mean_relative_error_help"),
    )
    st.metric(
        t("dp.zero_answered"),
        f"{figures['zero_answered_positive']:,} / {zero_in_truth:,}",
        help=t("dp.zero_answered_help"),
    )


def release_result(result: Any, *, name: str) -> None:
    """The DP release beside the k-anonymous one: the summary of their errors on the same
    queries, a chart of every query's errors, the per-query table and the downloads."""
    dp, k_anon, comparison = result.dp, result.k_anon, result.comparison
    summary = comparison.summary
    st.caption(
        t(
            "dp.release_queries",
            queries=f"{summary['queries']:,}",
            zero=f"{summary['zero_in_truth']:,}",
        )
    )
    left, right = st.columns(2, gap="large")
    with left, st.container(border=True):
        st.markdown(f"**{t('dp.release_dp', epsilon=number(dp.epsilon))}**")
        st.caption(
            t(
                "dp.release_dp_facts",
                records=f"{len(dp.records):,}",
                marginals=len(dp.ledger),
                share=number(dp.ledger[0]["epsilon"]) if dp.ledger else "—",
            )
        )
        _release_metrics(summary["dp"], summary["zero_in_truth"])
    with right, st.container(border=True):
        k = summary["k_anon"].get("k")
        st.markdown(f"**{t('dp.release_k', k=k, algorithm=algorithm_title(k_anon.algorithm))}**")
        st.caption(t("dp.release_k_facts", suppressed=f"{k_anon.n_suppressed:,}"))
        _release_metrics(summary["k_anon"], summary["zero_in_truth"])
        outside = summary["k_anon"].get("rows_outside_domain") or {}
        if outside:
            st.caption(
                t(
                    "dp.rows_outside",
                    columns=", ".join(f"{c} ({n:,})" for c, n in outside.items()),
                )
            )
    if result.gdpr_risks is not None:
        method_risks(result.gdpr_risks, k=summary["k_anon"].get("k"), algorithm=k_anon.algorithm)
    table = per_query_frame(comparison.per_query)
    st.altair_chart(errors_chart(comparison.per_query), width="stretch")
    st.caption(t("dp.errors_chart_help"))
    st.dataframe(table, hide_index=True)
    st.markdown(f"**{t('dp.release_ledger')}**")
    st.dataframe(release_ledger_frame(dp.ledger), hide_index=True)
    stem = file_stem(name)
    d1, d2 = st.columns(2)
    d1.download_button(
        t("dp.download_records"),
        data=lambda: to_csv_bytes(dp.records),  # built on click
        file_name=f"{stem}_dp_records.csv",
        mime="text/csv",
        on_click="ignore",
        key="dp_download_records",
    )
    d2.download_button(
        t("dp.download_errors"),
        data=lambda: to_csv_bytes(per_query_export(comparison.per_query)),
        file_name=f"{stem}_dp_vs_k_errors.csv",
        mime="text/csv",
        on_click="ignore",
        key="dp_download_errors",
    )


def method_risks(risks: Mapping[str, Any], *, k: Any, algorithm: str) -> None:
    """Singling out, linkability and inference of the two methods, each release made
    again from 80 % of the records and attacked against the other 20 %: one table, a row
    per attack and method, with intervals and baselines."""
    from privcore.words.catalog import note_sentence
    from privcore.words.risks import article29_rows

    lang = current_language()
    st.markdown(f"**{t('dp.release_gdpr_title')}**")
    st.caption(t("dp.release_gdpr_caption"))
    names = {
        "dp": t_plain("dp.release_gdpr_dp"),
        "k_anon": t_plain("dp.release_gdpr_k", k=k, algorithm=algorithm_title(algorithm)),
    }
    rows = []
    for method, figures in risks.items():
        if "not_measured" in figures:
            said = note_sentence(
                {"note": "gdpr_not_measured", "params": figures["not_measured"]}, lang
            )
            st.caption(f"{escape_md(names[method])}: {escape_md(said)}")
            continue
        for row in article29_rows(figures, lang):
            rows.append({t_plain("dp.release_gdpr_method"): names[method], **row})
    if rows:
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")


def _marginal(columns: Any) -> str:
    return " × ".join(map(str, columns))


def per_query_frame(per_query: pd.DataFrame) -> pd.DataFrame:
    """The per-query table in words: the cell, its marginal, the three answers and the
    errors of both releases."""
    yes, no = t_plain("words.yes"), t_plain("words.no")
    return pd.DataFrame(
        {
            t_plain("dp.cell"): [cell_text(c) for c in per_query["cell"]],
            t_plain("dp.marginal"): [_marginal(c) for c in per_query["columns"]],
            t_plain("dp.true_count"): per_query["true"].to_numpy(),
            t_plain("dp.dp_count"): per_query["dp"].to_numpy(),
            t_plain("dp.k_count"): per_query["k_anon"].to_numpy(dtype=float).round(2),
            t_plain("dp.dp_error"): per_query["dp_error"].to_numpy(dtype=float).round(2),
            t_plain("dp.k_error"): per_query["k_anon_error"].to_numpy(dtype=float).round(2),
            t_plain("dp.dp_relative"): per_query["dp_relative"].to_numpy(dtype=float).round(4),
            t_plain("dp.k_relative"): per_query["k_anon_relative"].to_numpy(dtype=float).round(4),
            t_plain("dp.zero_in_truth"): np.where(per_query["zero_in_truth"], yes, no),
        }
    )


def per_query_export(per_query: pd.DataFrame) -> pd.DataFrame:
    """The per-query errors as a CSV for machines: the library's column names, the cell
    as text and the marginal's columns joined."""
    out = per_query.drop(columns=["cell"]).copy()
    out.insert(1, "cell", [cell_text(c) for c in per_query["cell"]])
    out["columns"] = [_marginal(c) for c in per_query["columns"]]
    return out


ERROR_POINTS = 5_000  # queries drawn in the errors chart (the largest errors first)


def errors_chart(per_query: pd.DataFrame) -> alt.Chart:
    """Every query's absolute error: DP (x) against k-anonymous (y), one colour per
    marginal, with the line where both are equal (points above it: DP is closer)."""
    data = pd.DataFrame(
        {
            "dp": per_query["dp_error"].to_numpy(dtype=float),
            "k": per_query["k_anon_error"].to_numpy(dtype=float),
            "marginal": [_marginal(c) for c in per_query["columns"]],
            "cell": [cell_text(c) for c in per_query["cell"]],
        }
    )
    if len(data) > ERROR_POINTS:
        data = data.loc[np.maximum(data["dp"], data["k"]).nlargest(ERROR_POINTS).index]
    top = float(max(data["dp"].max(), data["k"].max(), 1.0)) if len(data) else 1.0
    dp_title, k_title = t_plain("dp.dp_error"), t_plain("dp.k_error")
    diagonal = (
        alt.Chart(pd.DataFrame({"x": [0.0, top], "y": [0.0, top]}))
        .mark_line(color=MUTED, strokeDash=[4, 4])
        .encode(x="x:Q", y="y:Q")
    )
    points = (
        alt.Chart(data, title=t_plain("dp.errors_chart_title"))
        .mark_circle(opacity=0.6)
        .encode(
            x=alt.X("dp:Q", title=dp_title, scale=alt.Scale(type="symlog")),
            y=alt.Y("k:Q", title=k_title, scale=alt.Scale(type="symlog")),
            color=alt.Color("marginal:N", title=t_plain("dp.marginal")),
            tooltip=[
                alt.Tooltip("cell:N", title=t_plain("dp.cell")),
                alt.Tooltip("dp:Q", title=dp_title, format=",.2f"),
                alt.Tooltip("k:Q", title=k_title, format=",.2f"),
            ],
        )
    )
    return diagonal + points


def release_ledger_frame(ledger: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """What each noisy marginal cost (sequential composition)."""
    return pd.DataFrame(
        {
            t_plain("dp.marginal"): [_marginal(item["columns"]) for item in ledger],
            "ε": [number(item["epsilon"]) for item in ledger],
            t_plain("dp.cells"): [int(item["cells"]) for item in ledger],
            t_plain("dp.scale"): [number(item["scale"]) for item in ledger],
            t_plain("dp.spent"): [number(item["spent"]) for item in ledger],
        }
    )


# --------------------------------------------------------------------------- audit

_AUDIT_STATUS = {"violation": "fail", "consistent": "pass", "inconclusive": "warn"}


def audited_label(name: str) -> str:
    """An audited mechanism's title, "deliberately broken" when it is."""
    entry = AUDIT_MECHANISMS[name]
    suffix = t_plain("ldp.broken_suffix") if entry.broken else ""
    return choice_title(f"dp.audited_{name}", entry.title) + suffix


def _audit_words(key: str, fallback: str) -> str:
    """The catalogue's words for an audited mechanism, with the figures of its data sets
    filled in (the library's English when the catalogue has none)."""
    text = t_plain(
        key,
        delta=f"{DEFAULT_GAUSSIAN_DELTA:g}",
        records=", ".join(map(str, SUM_RECORDS)),
    )
    return fallback if text == key else text


def audited_description(name: str) -> str:
    return _audit_words(f"dp.audited_{name}_about", AUDIT_MECHANISMS[name].description)


def audit_needs_delta(name: str) -> bool:
    """Only the Gaussian mechanism claims a δ > 0."""
    return name == "gaussian_count"


def neighbours_text(name: str) -> str:
    """The two neighbouring data sets of an audited mechanism, in words: mechanisms that
    share their data sets share their words (keyed by the first of them)."""
    entry = AUDIT_MECHANISMS[name]
    first = next(n for n, e in AUDIT_MECHANISMS.items() if e.neighbours == entry.neighbours)
    return t_plain("dp.neighbours", text=_audit_words(f"dp.neighbours_{first}", entry.neighbours))


_SHOWN_POINTS = 8
"""Values of a point event listed in words; the rest are counted."""


def _output(value: Any) -> str:
    """An output value as the shortest text that reads back as the same double."""
    return repr(float(value))


def _bin_text(interval: Sequence[Any]) -> str:
    """A bin [low, high) in words; an end that is missing or infinite is ±∞."""
    low, high = interval
    left = "(−∞" if low is None or math.isinf(low) else f"[{float(low):.6g}"
    right = "∞)" if high is None or math.isinf(high) else f"{float(high):.6g})"
    return f"{left}, {right}"


def event_text(event: Mapping[str, Any]) -> str:
    """The learned event in words, with the order of the data sets it compares."""
    params = event.get("params") or {}
    kind = event.get("kind")
    if kind in ("at_least", "at_most"):
        words = t_plain(f"dp.event_{kind}", threshold=f"{params['threshold']:.6g}")
    elif kind == "low_bits":
        words = t_plain(
            "dp.event_low_bits", radius=f"{params['radius']:.6g}", bits=int(params["bits"])
        )
    elif kind == "point":
        words = t_plain("dp.event_point", value=_output(params["value"]))
    elif kind == "points":
        values = list(params["values"])
        shown = ", ".join(_output(v) for v in values[:_SHOWN_POINTS])
        words = t_plain(
            "dp.event_points",
            values=shown + (", …" if len(values) > _SHOWN_POINTS else ""),
            count=len(values),
        )
    elif kind == "bin":
        words = t_plain("dp.event_bin", interval=_bin_text(params["interval"]))
    elif kind == "bins":
        intervals = " ∪ ".join(_bin_text(i) for i in params["intervals"])
        words = t_plain("dp.event_bins", intervals=intervals)
    else:
        words = str(event.get("text", ""))
    order = str(event.get("order", "")).split(" over ")
    if len(order) == 2:
        return t_plain("dp.event_order", event=words, first=order[0], second=order[1])
    return words


def audit_result(report: Any) -> None:
    """An audit's verdict card with ε_LB and the claim, the event it found, and the two
    probabilities' Clopper–Pearson intervals."""
    low, high = report.loss_interval
    headline = "no_violation_found" if report.reason == "no_violation_found" else report.verdict
    verdict_card(
        t_plain("dp.audit_verdict"),
        t_plain(f"dp.verdict_{headline}"),
        _AUDIT_STATUS[report.verdict],
        t_plain(
            f"dp.reason_{report.reason}",
            lb=fmt(report.epsilon_lb),
            claimed=fmt(report.epsilon),
            share=fmt(report.epsilon * 0.5),
            samples=f"{report.samples:,}",
            low=fmt(float(low)),
            high=fmt(float(high)),
        ),
    )
    c1, c2, c3 = st.columns(3)
    c1.metric(
        t("dp.epsilon_lb"),
        fmt(report.epsilon_lb),
        help=t("dp.epsilon_lb_help", rate=f"{FALSE_ALARM_RATE:.1%}"),
    )
    c2.metric(t("dp.claimed"), fmt(report.epsilon))
    c3.metric(t("dp.audit_samples"), f"{report.samples:,}")
    st.caption(t("dp.event", event=event_text(report.event)))
    p1, p2 = st.columns(2)
    p1.metric(t("dp.p_d"), _interval(report.p_d), help=t("dp.p_help"))
    p2.metric(t("dp.p_d_prime"), _interval(report.p_d_prime), help=t("dp.p_help"))
    if report.delta:
        st.caption(t("dp.audit_delta", delta=number(report.delta)))


def _interval(bounds: Sequence[float]) -> str:
    low, high = bounds
    return f"[{float(low):.4f}, {float(high):.4f}]"
