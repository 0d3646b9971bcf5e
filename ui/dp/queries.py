"""The query builder of the Differential privacy page: a budget (ε, δ) per data set, a
count, sum, mean or histogram with its conditions, its mechanism and relation, and each
answer released under the budget — the budget spent first, so that a refused query draws
no noise and releases nothing."""

from __future__ import annotations

from typing import Any

import streamlit as st

from privcore.errors import InfeasibleError, PrivcoreError
from privcore.runs import Accountant, DpQueryRequest, Inputs, Outcome
from ui.common.components import choice_radio
from ui.common.errors import show_error
from ui.common.heavy import heavy_button, new_request, run_heavy
from ui.common.i18n import labels, t
from ui.common.reproduce import reproduce_in_python
from ui.common.state import keep
from ui.common.workspace.results import history_note
from ui.dp.answers_view import budget_bar, ledger_frame, query_label, show_answer
from ui.dp.context import BUDGETS, PAGE, Context, fresh_seed
from ui.dp.story_view import (
    NOISES,
    QUERIES,
    RELATIONS,
    noise_label,
    number,
    numeric_columns,
    query_name,
    relation_label,
    relation_note,
    value_options,
)


def queries_tab(ctx: Context) -> dict | None:
    """The query builder with its budget bar; returns the builder's query (for the accuracy tab)."""
    st.caption(t("dp.queries_help"))
    if ctx.needs_data():
        return None
    held = _budget(ctx)
    budget = held["budget"]
    bar_slot = st.container()
    q1, q2 = st.columns(2, gap="large")
    with q1:
        query, where, column, clamp, histogram_columns = _query(ctx)
    with q2:
        noise, query_delta, relation, query_epsilon, cost_delta = _noise()
    query_spec = {
        "query": query,
        "where": where,
        "column": column,
        "clamp": clamp,
        "columns": histogram_columns,
        "delta": query_delta,
        "noise": None if noise == "auto" else noise,
        "relation": relation,
    }
    if heavy_button(t("dp.answer"), key="dp_answer", cancel=False):
        values = {**query_spec, "epsilon": query_epsilon, "draws": 1, "seed": fresh_seed()}
        _answer(ctx, held, values, query_epsilon, cost_delta)
        budget = held["budget"]
    budget_bar(budget, bar_slot)
    if held["answers"]:
        latest = held["answers"][-1]
        show_answer(latest["answer"], latest["label"])
        reproduce_in_python(latest.get("outcome"), key="dp_query")
        st.markdown(f"**{t('dp.ledger')}**")
        st.dataframe(ledger_frame(budget, held["answers"]), hide_index=True)
    else:
        st.caption(t("dp.nothing_spent"))
    return query_spec


def _budget(ctx: Context) -> dict[str, Any]:
    """The budget of the active data set (``{"budget": Accountant, "answers": [...]}``): its
    totals, and a new one when asked, when there is none, or when an unspent one has
    other totals than those now set."""
    budgets = st.session_state.setdefault(BUDGETS, {})
    b1, b2, b3 = st.columns([1, 1, 2])
    total_epsilon = float(
        b1.number_input(
            t("dp.budget_epsilon"), 0.01, 100.0, 1.0, 0.1, key=keep("dp_budget_epsilon")
        )
    )
    total_delta = float(
        b2.number_input(
            t("dp.budget_delta"),
            0.0,
            0.1,
            1e-5,
            1e-6,
            format="%.1e",
            key=keep("dp_budget_delta"),
        )
    )
    with b3:
        new_budget = st.button(t("dp.new_budget"), key="dp_new_budget")
        st.caption(t("dp.new_budget_help"))
    held = budgets.get(ctx.wb.active)
    unspent_with_other_totals = (
        held is not None
        and not held["budget"].ledger
        and (held["budget"].epsilon, held["budget"].delta) != (total_epsilon, total_delta)
    )
    if new_budget or held is None or unspent_with_other_totals:
        held = budgets[ctx.wb.active] = {
            "budget": Accountant("session", total_epsilon, total_delta),
            "answers": [],
        }
    budget = held["budget"]
    if (budget.epsilon, budget.delta) != (total_epsilon, total_delta):
        st.caption(
            t(
                "dp.budget_in_force",
                epsilon=number(budget.epsilon),
                delta=number(budget.delta),
            )
        )
    return held


def _query(ctx: Context) -> tuple[str, dict, str | None, list[float] | None, list[str]]:
    """The query and what it reads: its conditions (a count, sum or mean), the column
    summed and its clamping range (a sum or mean), the histogram's columns."""
    query = choice_radio(t("dp.query"), QUERIES, query_name, key=keep("dp_query"))
    where = {}
    column = clamp = None
    histogram_columns: list[str] = []
    if query in ("count", "sum", "mean"):
        where = _conditions(ctx)
    if query in ("sum", "mean"):
        column, clamp = _summed(ctx)
    if query == "histogram":
        schema, columns = ctx.schema, ctx.columns
        qis = [c for c in (schema.quasi_identifiers if schema else []) if c in columns]
        histogram_columns = st.multiselect(
            t("dp.histogram_columns"),
            columns,
            default=qis[:1],
            max_selections=4,
            key=keep("dp_histogram_columns", scope=ctx.wb.active, valid=ctx.within),
        )
    return query, where, column, clamp, histogram_columns


def _conditions(ctx: Context) -> dict[str, Any]:
    """Up to three conditions "column = value"."""
    where = {}
    condition_columns = st.multiselect(
        t("dp.conditions"),
        ctx.columns,
        max_selections=3,
        key=keep("dp_where_columns", scope=ctx.wb.active, valid=ctx.within),
    )
    for condition_column in condition_columns:
        condition_options = value_options(ctx.frame, condition_column)
        where[condition_column] = st.selectbox(
            t("dp.condition_value", column=condition_column),
            condition_options,
            format_func=str,
            key=keep(
                f"dp_where::{condition_column}",
                scope=ctx.wb.active,
                valid=lambda v, o=condition_options: v in o,
            ),
        )
    return where


def _summed(ctx: Context) -> tuple[str | None, list[float] | None]:
    """The numeric column a sum or mean reads and the range its values are clamped to."""
    numeric = numeric_columns(ctx.frame)
    if not numeric:
        st.warning(t("dp.no_numeric"), icon=":material/warning:")
        return None, None
    column = st.selectbox(
        t("dp.sum_column"),
        numeric,
        key=keep("dp_sum_column", scope=ctx.wb.active, valid=lambda v: v in numeric),
    )
    c1, c2 = st.columns(2)
    low = c1.number_input(
        t("dp.clamp_low"), value=0.0, key=keep("dp_clamp_low", scope=ctx.wb.active)
    )
    high = c2.number_input(
        t("dp.clamp_high"), value=100.0, key=keep("dp_clamp_high", scope=ctx.wb.active)
    )
    st.caption(t("dp.clamp_help"))
    return column, [float(low), float(high)]


def _noise() -> tuple[str, float | None, str, float, float]:
    """The mechanism (with its δ for Gaussian noise), the neighbouring relation and the
    query's ε; returns them with the δ the query costs."""
    noise = st.selectbox(
        t("dp.mechanism"),
        NOISES,
        format_func=labels(NOISES, noise_label),
        key=keep("dp_noise"),
    )
    query_delta = None
    if noise == "gaussian":
        query_delta = float(
            st.number_input(
                t("dp.query_delta"),
                1e-12,
                0.1,
                1e-6,
                1e-6,
                format="%.1e",
                key=keep("dp_query_delta"),
            )
        )
    relation = st.radio(
        t("dp.relation"),
        RELATIONS,
        format_func=labels(RELATIONS, relation_label),
        key=keep("dp_relation"),
    )
    relation_note(relation)
    query_epsilon = float(
        st.number_input(t("dp.query_epsilon"), 0.01, 10.0, 0.25, 0.05, key=keep("dp_query_epsilon"))
    )
    cost_delta = query_delta if noise == "gaussian" else 0.0
    st.caption(
        t(
            "dp.query_cost",
            epsilon=number(query_epsilon),
            delta=number(cost_delta),
        )
    )
    return noise, query_delta, relation, query_epsilon, cost_delta


def _answer(
    ctx: Context,
    held: dict[str, Any],
    values: dict[str, Any],
    query_epsilon: float,
    cost_delta: float,
) -> None:
    """Answer the query (recorded), spending its cost from the session's budget through
    the accountant of :func:`privcore.runs.run`: a query the budget refuses draws no
    noise, and one that fails costs nothing."""
    budget = held["budget"]
    label = query_label(values)
    inputs = Inputs(original=ctx.dataset)

    def answer() -> Outcome:
        # the accountant checks the cost first: a refused query draws no noise, and a
        # query that fails spends nothing
        request = new_request(DpQueryRequest, values, inputs, page=PAGE)
        return run_heavy(
            request,
            inputs,
            label=t("dp.answering"),
            page=PAGE,
            budget=budget,
            budget_label=label,
        )

    try:
        outcome = answer()
    except InfeasibleError as exc:
        remaining_epsilon, remaining_delta = budget.remaining
        st.error(
            t(
                "dp.over_budget",
                epsilon=number(query_epsilon),
                delta=number(cost_delta),
                remaining=number(remaining_epsilon),
                remaining_delta=number(remaining_delta),
            )
            if exc.code == "dp.budget_exceeded"
            else t("dp.budget_refused"),
            icon=":material/block:",
        )
    except PrivcoreError as exc:
        show_error(exc)
    else:
        history_note(outcome)
        held["answers"].append(
            {"answer": outcome.result, "run_id": outcome.run_id, "label": label, "outcome": outcome}
        )
