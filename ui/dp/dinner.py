"""The first tab of the Differential privacy page: the dinner story of the differencing
attack (what exact answers give away and what ε-DP answers bound), and the same attack on
a person of the active data set."""

from __future__ import annotations

import math
from typing import Any

import streamlit as st

from privcore.dp import dinner_table
from privcore.dp.dinner import DIFFERENCING_MECHANISMS
from privcore.runs import DifferencingRequest, DinnerRequest, Inputs
from ui.common.charts import show_chart
from ui.common.components import choice_radio
from ui.common.heavy import heavy_button
from ui.common.i18n import labels, t
from ui.common.reproduce import reproduce_in_python
from ui.common.state import keep
from ui.common.workspace.results import guard_run
from ui.dp.context import (
    DINNER,
    PERSON,
    Context,
    fresh_seed,
    keep_outcome,
    kept_outcome,
    recorded,
)
from ui.dp.story_view import (
    differencing_result,
    diner_name,
    dinner_frame,
    dinner_result,
    noise_label,
    posterior_chart,
    relation_note,
    value_options,
)


def dinner_tab(ctx: Context) -> None:
    """The dinner story of the differencing attack, and the same attack on a person of the data."""
    relation_note("add_remove")
    st.write(t("dp.dinner_story"))
    table = dinner_table()
    names = table["name"].tolist()
    left, right = st.columns([1, 2], gap="large")
    with left:
        leaver = st.selectbox(
            t("dp.leaver"),
            names,
            format_func=labels(names, diner_name),
            key=keep("dp_leaver"),
        )
        dinner_epsilon = st.slider("ε", 0.05, 5.0, 1.0, 0.01, key=keep("dp_dinner_epsilon"))
        st.caption(t("dp.e_epsilon", value=f"{math.exp(dinner_epsilon):.2f}"))
        prior = st.slider(t("dp.prior"), 0.01, 0.99, 0.5, 0.01, key=keep("dp_prior"))
        dinner_noise = choice_radio(
            t("dp.mechanism"), DIFFERENCING_MECHANISMS, noise_label, key=keep("dp_dinner_noise")
        )
        play = heavy_button(t("dp.play"), key="dp_play", cancel=False)
    dinner_params = {
        "epsilon": float(dinner_epsilon),
        "prior": float(prior),
        "leaver": leaver,
        "noise": dinner_noise,
    }
    with right:
        with st.expander(t("dp.the_diners")):
            st.dataframe(dinner_frame(table), hide_index=True)
        if play:
            outcome = guard_run(
                lambda: recorded(
                    DinnerRequest,
                    {**dinner_params, "seed": fresh_seed()},
                    Inputs(),
                    label=t("dp.playing"),
                )
            )
            keep_outcome(DINNER, outcome, dinner_params)
        stored = kept_outcome(DINNER, dinner_params)
        if stored is not None:
            dinner_result(stored["outcome"].result)
            reproduce_in_python(stored["outcome"], key="dp_dinner")
        else:
            st.info(t("dp.play_first"), icon=":material/restaurant:")
        show_chart(posterior_chart(float(dinner_epsilon), float(prior)), key="dp_dinner_chart_data")
        st.caption(t("dp.posterior_chart_help"))

    st.divider()
    st.header(t("dp.any_person"))
    st.caption(t("dp.any_person_help", data=ctx.data_title))
    if not ctx.needs_data() and len(ctx.frame) > 0:
        _any_person(ctx, dinner_params)


def _any_person(ctx: Context, dinner_params: dict[str, Any]) -> None:
    """The differencing attack on a person of the data set: their row, a column and a
    value whose count is asked with and without them."""
    wb, frame, columns = ctx.wb, ctx.frame, ctx.columns
    p1, p2, p3 = st.columns(3)
    target_row = int(
        p1.number_input(
            t("dp.target_row"),
            0,
            len(frame) - 1,
            0,
            key=keep("dp_target_row", scope=wb.active, valid=lambda v: 0 <= v < len(frame)),
        )
    )
    target_column = ctx.sensitive_choice(
        t("dp.target_column"), columns, "dp_target_column", where=p2
    )
    options = value_options(frame, target_column)
    own = frame.iloc[target_row][target_column]
    target_value = p3.selectbox(
        t("dp.target_value"),
        options,
        index=options.index(own) if own in options else 0,
        format_func=str,
        key=keep("dp_target_value", scope=wb.active, valid=lambda v: v in options),
    )
    st.dataframe(frame.iloc[[target_row]], hide_index=False)
    person_params = {
        **{k: v for k, v in dinner_params.items() if k != "leaver"},
        "row": target_row,
        "column": target_column,
        "value": str(target_value),
    }
    if not options:
        st.info(t("dp.no_values", column=target_column), icon=":material/info:")
    if heavy_button(
        t("dp.attack_person"),
        key="dp_attack_person",
        primary=False,
        cancel=False,
        disabled=not options,
    ):
        outcome = guard_run(
            lambda: _attack_person(ctx, dinner_params, target_row, target_column, target_value)
        )
        keep_outcome(PERSON, outcome, person_params, ctx)
    stored = kept_outcome(PERSON, person_params, ctx)
    if stored is not None:
        differencing_result(
            stored["outcome"].result,
            row=stored["params"]["row"],
            column=stored["params"]["column"],
            value=stored["params"]["value"],
        )
        reproduce_in_python(stored["outcome"], key="dp_person")


def _attack_person(ctx: Context, dinner_params: dict[str, Any], row: int, column: str, value: Any):
    """The recorded run of the attack on the person of ``row`` (its record names the
    column, never the value)."""
    values = {
        "row": row,
        "where": {column: value},
        "epsilon": dinner_params["epsilon"],
        "prior": dinner_params["prior"],
        "noise": dinner_params["noise"],
        "seed": fresh_seed(),
    }
    return recorded(
        DifferencingRequest, values, Inputs(original=ctx.dataset), label=t("dp.attacking")
    )
