"""Accuracy against ε on the Differential privacy page: the query builder's query (or a
count chosen here) answered many times at each ε, the spread of its error and the stated
95 % half-width. A view of the noise: it releases nothing, and is not recorded."""

from __future__ import annotations

import json

import streamlit as st

from privcore.errors import PrivcoreError
from privcore.runs import DpAccuracyRequest, Inputs
from ui.common.charts import show_chart
from ui.common.components import choice_radio
from ui.common.errors import show_error
from ui.common.heavy import heavy_button, run_heavy
from ui.common.i18n import labels, t
from ui.common.reproduce import reproduce_in_python
from ui.common.state import keep
from ui.dp.answers_view import (
    ACCURACY_DRAWS,
    accuracy_chart,
    accuracy_table,
    coverage_verdict,
    query_label,
)
from ui.dp.context import ACCURACY, PAGE, Context
from ui.dp.story_view import relation_note, value_options

#: The session's count of accuracy runs: each draws with the next seed.
ACCURACY_SEED = "dp_acc_seed"


def accuracy_tab(ctx: Context, query_spec: dict | None) -> None:
    """Accuracy vs ε of the builder's query (or a count chosen here)."""
    wb = ctx.wb
    st.caption(t("dp.acc_help", draws=ACCURACY_DRAWS))
    if ctx.needs_data():
        return
    sources = ["builder", "count"]
    source = choice_radio(t("dp.acc_source"), sources, "dp.acc_source_", key=keep("dp_acc_source"))
    spec = dict(query_spec) if source == "builder" else _count_spec(ctx)
    st.caption(t("dp.acc_query", query=query_label(spec)))
    relation_note(spec["relation"])
    spec_text = json.dumps(spec, sort_keys=True, default=str)
    accuracy_params = {"spec": spec_text, "data": wb.active}
    if heavy_button(t("dp.acc_run"), key="dp_acc_run"):
        # every run draws a new sample: the seed counts the runs of this session
        seed = st.session_state.get(ACCURACY_SEED, -1) + 1
        st.session_state[ACCURACY_SEED] = seed
        try:
            request = DpAccuracyRequest(**spec, draws=ACCURACY_DRAWS, seed=seed)
            outcome = run_heavy(
                request,
                Inputs(original=ctx.dataset),
                label=t("dp.acc_running"),
                page=PAGE,
                record=False,  # a view of the noise: it releases nothing
            )
        except PrivcoreError as exc:
            show_error(exc)
        else:
            st.session_state[ACCURACY] = {
                "curve": outcome.result,
                "params": accuracy_params,
                "label": query_label(spec),
                "seed": seed,
                "outcome": outcome,
            }
    stored = st.session_state.get(ACCURACY)
    if stored is not None and stored["params"]["data"] == wb.active:
        if stored["params"] != accuracy_params:
            st.warning(t("dp.acc_out_of_date", query=stored["label"]), icon=":material/update:")
        show_chart(accuracy_chart(stored["curve"]), key="dp_accuracy_chart_data")
        st.caption(t("dp.acc_chart_help"))
        st.dataframe(accuracy_table(stored["curve"]), hide_index=True)
        key, params = coverage_verdict(stored["curve"])
        st.caption(t(key, seed=stored.get("seed", 0), draws=ACCURACY_DRAWS, **params))
        reproduce_in_python(stored.get("outcome"), key="dp_accuracy")


def _count_spec(ctx: Context) -> dict:
    """A count chosen here: of all rows, or of the rows holding a value of a column."""
    a1, a2 = st.columns(2)
    acc_choices = ["", *ctx.columns]  # "": the count of all rows
    acc_column = a1.selectbox(
        t("dp.target_column"),
        acc_choices,
        format_func=labels(acc_choices, lambda c: c or t("dp.all_rows")),
        key=keep("dp_acc_column", scope=ctx.wb.active, valid=lambda v: v in acc_choices),
    )
    acc_where = {}
    if acc_column:
        acc_options = value_options(ctx.frame, acc_column)
        acc_where[acc_column] = a2.selectbox(
            t("dp.target_value"),
            acc_options,
            format_func=str,
            key=keep("dp_acc_value", scope=ctx.wb.active, valid=lambda v: v in acc_options),
        )
    return {
        "query": "count",
        "where": acc_where,
        "column": None,
        "clamp": None,
        "columns": [],
        "delta": None,
        "noise": None,
        "relation": "add_remove",
    }
