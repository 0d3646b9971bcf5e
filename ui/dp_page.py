"""The tabs of the Differential privacy page (``pages/differential_privacy.py``), one
function each, on the active data set (:class:`Context`)."""

from __future__ import annotations

import json
import math
import secrets
from dataclasses import dataclass
from functools import partial
from typing import Any

import streamlit as st

from privcore.dp import Budget, differencing, dinner_table
from privcore.dp.audit import (
    AUDIT_MECHANISMS,
    DEFAULT_SAMPLES,
    MAX_SAMPLES,
    MIN_SAMPLES,
)
from privcore.dp.dinner import DIFFERENCING_MECHANISMS
from privcore.errors import InfeasibleError, PrivcoreError
from privcore.runs import (
    DinnerRequest,
    DpAccuracyRequest,
    DpAuditRequest,
    DpQueryRequest,
    DpReleaseRequest,
    Inputs,
    TaskRequest,
    tasks,
)
from privcore.runs.registry import ALGORITHMS
from ui import dp_view as view
from ui.errors import show_error
from ui.heavy import heavy_button, new_request, run_heavy
from ui.i18n import escape_md, labels, t
from ui.state import keep, load_upload
from ui.workspace import RELEASE_TYPES, algorithm_title, guard_run, result_header

PAGE = "dp"
BUDGETS = "dp_budgets"  # data set → {"budget": Budget, "answers": [...]}
DINNER, PERSON, ACCURACY, RELEASE, AUDIT = (
    "dp_dinner_result",
    "dp_person_result",
    "dp_accuracy_result",
    "dp_release_result",
    "dp_audit_result",
)


def recorded(cls, values: dict, inputs: Inputs, *, label: str):
    """One recorded run of this page: the request ``cls(**values)`` on ``inputs``."""
    return run_heavy(new_request(cls, values, inputs, page=PAGE), inputs, label=label, page=PAGE)


def task(name: str, params: dict, inputs: Inputs, *, label: str):
    """A recorded run that the page computes itself (``inputs.work``)."""
    return run_heavy(TaskRequest(task=name, params=params), inputs, label=label, page=PAGE)


def fresh_seed() -> int:
    """Every released answer draws fresh noise: two answers sharing a seed would share
    their noise, and their difference would be exact."""
    return secrets.randbelow(2**31)


@dataclass(frozen=True, eq=False)
class Context:
    """The active data set as the tabs see it (None when it is not in memory)."""

    wb: Any
    dataset: Any
    schema: Any
    columns: list[str]
    data_title: str

    @classmethod
    def of(cls, wb: Any) -> Context:
        dataset = schema = None
        if not wb.is_table():
            try:
                dataset = wb.dataset()
                schema = wb.schema() or wb.draft()
            except PrivcoreError as exc:
                show_error(exc)
        frame = None if dataset is None else dataset.frame
        columns = [] if frame is None else [str(c) for c in frame.columns]
        return cls(wb, dataset, schema, columns, wb.title(wb.active))

    @property
    def frame(self) -> Any:
        return None if self.dataset is None else self.dataset.frame

    def within(self, chosen: Any) -> bool:
        return isinstance(chosen, list) and set(chosen) <= set(self.columns)

    def needs_data(self) -> bool:
        """Say so when the active data set is not in memory (a table opened in an engine)."""
        if self.dataset is None:
            st.info(t("dp.needs_data"), icon=":material/table_view:")
            return True
        return False


def dinner_tab(ctx: Context) -> None:
    """The dinner story of the differencing attack, and the same attack on a person of the data."""
    wb = ctx.wb
    dataset = ctx.dataset
    schema = ctx.schema
    frame = ctx.frame
    columns = ctx.columns
    data_title = ctx.data_title
    needs_data = ctx.needs_data
    view.relation_note("add_remove")
    st.write(t("dp.dinner_story"))
    table = dinner_table()
    names = table["name"].tolist()
    left, right = st.columns([1, 2], gap="large")
    with left:
        leaver = st.selectbox(
            t("dp.leaver"),
            names,
            format_func=labels(names, view.diner_name),
            key=keep("dp_leaver"),
        )
        dinner_epsilon = st.slider("ε", 0.05, 5.0, 1.0, 0.01, key=keep("dp_dinner_epsilon"))
        st.caption(t("dp.e_epsilon", value=f"{math.exp(dinner_epsilon):.2f}"))
        prior = st.slider(t("dp.prior"), 0.01, 0.99, 0.5, 0.01, key=keep("dp_prior"))
        dinner_noise = st.radio(
            t("dp.mechanism"),
            DIFFERENCING_MECHANISMS,
            horizontal=True,
            format_func=labels(DIFFERENCING_MECHANISMS, view.noise_label),
            key=keep("dp_dinner_noise"),
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
            st.dataframe(view.dinner_frame(table), hide_index=True)
        if play:
            outcome = guard_run(
                lambda: recorded(
                    DinnerRequest,
                    {**dinner_params, "seed": fresh_seed()},
                    Inputs(),
                    label=t("dp.playing"),
                )
            )
            if outcome is not None:
                st.session_state[DINNER] = {"outcome": outcome, "params": dinner_params}
        stored = st.session_state.get(DINNER)
        if stored is not None:
            result_header(stored, None, dinner_params, run_id=stored["outcome"].run_id)
            view.dinner_result(stored["outcome"].result)
        else:
            st.info(t("dp.play_first"), icon=":material/restaurant:")
        st.altair_chart(view.posterior_chart(float(dinner_epsilon), float(prior)), width="stretch")
        st.caption(t("dp.posterior_chart_help"))

    st.divider()
    st.subheader(t("dp.any_person"))
    st.caption(t("dp.any_person_help", data=data_title))
    if not needs_data() and len(frame) > 0:
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
        sensitive = [c for c in (schema.sensitive if schema else []) if c in columns]
        target_column = p2.selectbox(
            t("dp.target_column"),
            columns,
            index=columns.index(sensitive[0]) if sensitive else 0,
            key=keep("dp_target_column", scope=wb.active, valid=lambda v: v in columns),
        )
        options = view.value_options(frame, target_column)
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
            seed = fresh_seed()

            def attack_person(progress):
                attack = differencing(
                    frame,
                    target_row,
                    {target_column: target_value},
                    epsilon=float(dinner_epsilon),
                    prior=float(prior),
                    mechanism=dinner_noise,
                    seed=seed,
                )
                return attack, view.differencing_summary(attack)

            outcome = guard_run(
                lambda: task(
                    "dp_differencing",
                    {
                        "epsilon": float(dinner_epsilon),
                        "prior": float(prior),
                        "noise": dinner_noise,
                        "where": [target_column],  # the column, never the value
                        "seed": seed,
                    },
                    Inputs(original=dataset, work=attack_person),
                    label=t("dp.attacking"),
                )
            )
            if outcome is not None:
                st.session_state[PERSON] = {
                    "outcome": outcome,
                    "params": person_params,
                    "data": wb.active,
                    "name": data_title,
                }
        stored = st.session_state.get(PERSON)
        if stored is not None and stored["data"] == wb.active:
            result_header(stored, None, person_params, run_id=stored["outcome"].run_id)
            view.differencing_result(
                stored["outcome"].result,
                row=stored["params"]["row"],
                column=stored["params"]["column"],
                value=stored["params"]["value"],
            )


def queries_tab(ctx: Context) -> dict | None:
    """The query builder with its budget bar; returns the builder's query (for the accuracy tab)."""
    wb = ctx.wb
    dataset = ctx.dataset
    schema = ctx.schema
    frame = ctx.frame
    columns = ctx.columns
    within = ctx.within
    needs_data = ctx.needs_data
    query_spec = None
    st.caption(t("dp.queries_help"))
    if not needs_data():
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
        held = budgets.get(wb.active)
        unspent_with_other_totals = (
            held is not None
            and not held["budget"].ledger
            and (held["budget"].epsilon, held["budget"].delta) != (total_epsilon, total_delta)
        )
        if new_budget or held is None or unspent_with_other_totals:
            held = budgets[wb.active] = {
                "budget": Budget(total_epsilon, total_delta),
                "answers": [],
            }
        budget = held["budget"]
        if (budget.epsilon, budget.delta) != (total_epsilon, total_delta):
            st.caption(
                t(
                    "dp.budget_in_force",
                    epsilon=view.number(budget.epsilon),
                    delta=view.number(budget.delta),
                )
            )
        bar_slot = st.container()

        q1, q2 = st.columns(2, gap="large")
        with q1:
            query = st.radio(
                t("dp.query"),
                view.QUERIES,
                horizontal=True,
                format_func=labels(view.QUERIES, view.query_name),
                key=keep("dp_query"),
            )
            where = {}
            column = clamp = None
            histogram_columns: list[str] = []
            if query in ("count", "sum", "mean"):
                condition_columns = st.multiselect(
                    t("dp.conditions"),
                    columns,
                    max_selections=3,
                    key=keep("dp_where_columns", scope=wb.active, valid=within),
                )
                for condition_column in condition_columns:
                    condition_options = view.value_options(frame, condition_column)
                    where[condition_column] = st.selectbox(
                        t("dp.condition_value", column=condition_column),
                        condition_options,
                        format_func=str,
                        key=keep(
                            f"dp_where::{condition_column}",
                            scope=wb.active,
                            valid=lambda v, o=condition_options: v in o,
                        ),
                    )
            if query in ("sum", "mean"):
                numeric = view.numeric_columns(frame)
                if not numeric:
                    st.warning(t("dp.no_numeric"), icon=":material/warning:")
                else:
                    column = st.selectbox(
                        t("dp.sum_column"),
                        numeric,
                        key=keep("dp_sum_column", scope=wb.active, valid=lambda v: v in numeric),
                    )
                    c1, c2 = st.columns(2)
                    low = c1.number_input(
                        t("dp.clamp_low"), value=0.0, key=keep("dp_clamp_low", scope=wb.active)
                    )
                    high = c2.number_input(
                        t("dp.clamp_high"), value=100.0, key=keep("dp_clamp_high", scope=wb.active)
                    )
                    clamp = [float(low), float(high)]
                    st.caption(t("dp.clamp_help"))
            if query == "histogram":
                qis = [c for c in (schema.quasi_identifiers if schema else []) if c in columns]
                histogram_columns = st.multiselect(
                    t("dp.histogram_columns"),
                    columns,
                    default=qis[:1],
                    max_selections=4,
                    key=keep("dp_histogram_columns", scope=wb.active, valid=within),
                )
        with q2:
            noise = st.selectbox(
                t("dp.mechanism"),
                view.NOISES,
                format_func=labels(view.NOISES, view.noise_label),
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
                view.RELATIONS,
                format_func=labels(view.RELATIONS, view.relation_label),
                key=keep("dp_relation"),
            )
            view.relation_note(relation)
            query_epsilon = float(
                st.number_input(
                    t("dp.query_epsilon"), 0.01, 10.0, 0.25, 0.05, key=keep("dp_query_epsilon")
                )
            )
            cost_delta = query_delta if noise == "gaussian" else 0.0
            st.caption(
                t(
                    "dp.query_cost",
                    epsilon=view.number(query_epsilon),
                    delta=view.number(cost_delta),
                )
            )
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
            label = view.query_label(values)
            try:
                # the budget first: a refused query draws no noise and releases nothing
                budget.spend(query_epsilon, cost_delta, label=label)
            except InfeasibleError as exc:
                remaining_epsilon, remaining_delta = budget.remaining
                st.error(
                    t(
                        "dp.over_budget",
                        epsilon=view.number(query_epsilon),
                        delta=view.number(cost_delta),
                        remaining=view.number(remaining_epsilon),
                        remaining_delta=view.number(remaining_delta),
                    )
                    if exc.code == "dp.budget_exceeded"
                    else t("dp.budget_refused"),
                    icon=":material/block:",
                )
            except PrivcoreError as exc:
                show_error(exc)
            else:
                outcome = guard_run(
                    lambda: recorded(
                        DpQueryRequest, values, Inputs(original=dataset), label=t("dp.answering")
                    )
                )
                if outcome is None:  # refused before any noise was drawn: nothing spent
                    held["budget"] = budget = view.without_last(budget)
                else:
                    held["answers"].append(
                        {"answer": outcome.result, "run_id": outcome.run_id, "label": label}
                    )
        view.budget_bar(budget, bar_slot)
        if held["answers"]:
            latest = held["answers"][-1]
            view.show_answer(latest["answer"], latest["label"])
            st.markdown(f"**{t('dp.ledger')}**")
            st.dataframe(view.ledger_frame(budget, held["answers"]), hide_index=True)
        else:
            st.caption(t("dp.nothing_spent"))
    return query_spec


def accuracy_tab(ctx: Context, query_spec: dict | None) -> None:
    """Accuracy vs ε of the builder's query (or a count chosen here)."""
    wb = ctx.wb
    dataset = ctx.dataset
    frame = ctx.frame
    columns = ctx.columns
    needs_data = ctx.needs_data
    st.caption(t("dp.acc_help", draws=view.ACCURACY_DRAWS))
    if not needs_data():
        sources = ["builder", "count"]
        source = st.radio(
            t("dp.acc_source"),
            sources,
            horizontal=True,
            format_func=labels(sources, lambda s: t(f"dp.acc_source_{s}")),
            key=keep("dp_acc_source"),
        )
        if source == "builder":
            spec = dict(query_spec)
            st.caption(t("dp.acc_query", query=view.query_label(spec)))
        else:
            a1, a2 = st.columns(2)
            acc_choices = ["", *columns]  # "": the count of all rows
            acc_column = a1.selectbox(
                t("dp.target_column"),
                acc_choices,
                format_func=labels(acc_choices, lambda c: c or t("dp.all_rows")),
                key=keep("dp_acc_column", scope=wb.active, valid=lambda v: v in acc_choices),
            )
            acc_where = {}
            if acc_column:
                acc_options = view.value_options(frame, acc_column)
                acc_where[acc_column] = a2.selectbox(
                    t("dp.target_value"),
                    acc_options,
                    format_func=str,
                    key=keep("dp_acc_value", scope=wb.active, valid=lambda v: v in acc_options),
                )
            spec = {
                "query": "count",
                "where": acc_where,
                "column": None,
                "clamp": None,
                "columns": [],
                "delta": None,
                "noise": None,
                "relation": "add_remove",
            }
            st.caption(t("dp.acc_query", query=view.query_label(spec)))
        view.relation_note(spec["relation"])
        spec_text = json.dumps(spec, sort_keys=True, default=str)
        accuracy_params = {"spec": spec_text, "data": wb.active}
        if heavy_button(t("dp.acc_run"), key="dp_acc_run"):
            try:
                request = DpAccuracyRequest(**spec, draws=view.ACCURACY_DRAWS, seed=0)
                outcome = run_heavy(
                    request,
                    Inputs(original=dataset),
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
                    "label": view.query_label(spec),
                }
        stored = st.session_state.get(ACCURACY)
        if stored is not None and stored["params"]["data"] == wb.active:
            if stored["params"] != accuracy_params:
                st.warning(t("dp.acc_out_of_date", query=stored["label"]), icon=":material/update:")
            st.altair_chart(view.accuracy_chart(stored["curve"]), width="stretch")
            st.caption(t("dp.acc_chart_help"))
            st.dataframe(view.accuracy_table(stored["curve"]), hide_index=True)


def release_tab(ctx: Context) -> None:
    """A DP release compared with a k-anonymous release on the same counts."""
    wb = ctx.wb
    dataset = ctx.dataset
    schema = ctx.schema
    columns = ctx.columns
    data_title = ctx.data_title
    within = ctx.within
    needs_data = ctx.needs_data
    st.caption(t("dp.release_help"))
    if not needs_data():
        r1, r2 = st.columns([1, 1], gap="large")
        with r1:
            default_qi = [c for c in (schema.quasi_identifiers if schema else []) if c in columns]
            release_qi = st.multiselect(
                t("dp.release_qi"),
                columns,
                default=default_qi,
                key=keep("dp_release_qi", scope=wb.active, valid=within),
            )
            sa_choices = [c for c in columns if c not in release_qi]
            default_sa = [c for c in (schema.sensitive if schema else []) if c in sa_choices]
            release_sa = st.selectbox(
                t("dp.release_sa"),
                sa_choices,
                index=sa_choices.index(default_sa[0]) if default_sa else 0,
                key=keep("dp_release_sa", scope=wb.active, valid=lambda v: v in sa_choices),
            )
            release_relation = st.radio(
                t("dp.relation"),
                view.RELATIONS,
                horizontal=True,
                format_func=labels(view.RELATIONS, view.relation_label),
                key=keep("dp_release_relation"),
            )
            view.relation_note(release_relation)
        with r2:
            c1, c2 = st.columns(2)
            release_epsilon = float(
                c1.number_input("ε", 0.01, 100.0, 1.0, 0.1, key=keep("dp_release_epsilon"))
            )
            release_k = int(c2.number_input("k", 2, 1000, 10, 1, key=keep("dp_release_k")))
            algorithms = list(ALGORITHMS)
            release_algorithm = st.selectbox(
                t("dp.release_algorithm"),
                algorithms,
                index=algorithms.index("optimal") if "optimal" in algorithms else 0,
                format_func=labels(algorithms, algorithm_title),
                key=keep("dp_release_algorithm", valid=lambda v: v in algorithms),
            )
            c3, c4 = st.columns(2)
            release_suppression = float(
                c3.number_input(
                    t("dp.release_suppression"),
                    0.0,
                    50.0,
                    100.0 * DpReleaseRequest.max_suppression,
                    1.0,
                    key=keep("dp_release_suppression"),
                )
            )
            release_seed = int(
                c4.number_input(t("an.seed"), 0, 2**31 - 1, 0, key=keep("dp_release_seed"))
            )
        release_gdpr = st.checkbox(
            t("dp.release_gdpr"),
            value=True,
            help=t("dp.release_gdpr_help"),
            key=keep("dp_release_gdpr"),
        )
        release_values = {
            "qi": release_qi,
            "sa": [release_sa] if release_sa else [],
            "epsilon": release_epsilon,
            "seed": release_seed,
            "relation": release_relation,
            "k": release_k,
            "algorithm": release_algorithm,
            "max_suppression": release_suppression / 100.0,
            "gdpr": release_gdpr,
        }
        release_go = heavy_button(
            t("dp.release_run"), key="dp_release_run", cancel_key="dp_release_cancel"
        )
        if release_go:
            outcome = guard_run(
                lambda: recorded(
                    DpReleaseRequest,
                    release_values,
                    Inputs(
                        original=dataset,
                        schema=schema,
                    ),
                    label=t("dp.releasing"),
                )
            )
            if outcome is not None:
                st.session_state[RELEASE] = {
                    "outcome": outcome,
                    "params": release_values,
                    "data": wb.active,
                    "name": data_title,
                }
        stored = st.session_state.get(RELEASE)
        if stored is not None and stored["data"] == wb.active:
            result_header(stored, None, release_values, run_id=stored["outcome"].run_id)
            view.release_result(stored["outcome"].result, name=stored["name"])


def audit_tab(ctx: Context) -> None:
    """The audit of a central mechanism, or of uploaded outputs."""
    st.caption(t("dp.audit_help"))
    audited_names = list(AUDIT_MECHANISMS)
    u1, u2 = st.columns([1, 2], gap="large")
    with u1:
        audited = st.selectbox(
            t("dp.audited"),
            audited_names,
            format_func=labels(audited_names, view.audited_label),
            key=keep("dp_audited", valid=lambda v: v in audited_names),
        )
        st.caption(escape_md(view.audited_description(audited)))
        audit_epsilon = float(
            st.number_input("ε", 0.05, 10.0, 1.0, 0.25, key=keep("dp_audit_epsilon"))
        )
        audit_delta = None
        if view.audit_needs_delta(audited):
            audit_delta = float(
                st.number_input(
                    "δ", 1e-12, 0.1, 1e-5, 1e-6, format="%.1e", key=keep("dp_audit_delta")
                )
            )
        audit_samples = int(
            st.number_input(
                t("dp.audit_samples"),
                MIN_SAMPLES,
                MAX_SAMPLES,
                DEFAULT_SAMPLES,
                10_000,
                key=keep("dp_audit_samples"),
            )
        )
        audit_seed = int(st.number_input(t("an.seed"), 0, 2**31 - 1, 0, key=keep("dp_audit_seed")))
        audit_go = heavy_button(t("dp.audit_run"), key="dp_audit_run", cancel_key="dp_audit_cancel")
    audit_values = {
        "audited": audited,
        "epsilon": audit_epsilon,
        "delta": audit_delta,
        "samples": audit_samples,
        "seed": audit_seed,
    }
    with u2:
        st.caption(escape_md(view.neighbours_text(audited)))
        if audit_go:
            outcome = guard_run(
                lambda: recorded(DpAuditRequest, audit_values, Inputs(), label=t("dp.auditing"))
            )
            if outcome is not None:
                st.session_state[AUDIT] = {"outcome": outcome, "params": audit_values}
        stored = st.session_state.get(AUDIT)
        if stored is not None:
            result_header(stored, None, audit_values, run_id=stored["outcome"].run_id)
            view.audit_result(stored["outcome"].result)

    st.divider()
    st.subheader(t("dp.upload_title"))
    st.caption(t("dp.upload_help"))
    upload = st.file_uploader(t("dp.upload_file"), type=RELEASE_TYPES, key="dp_outputs")
    if upload is not None:
        try:
            outputs = load_upload(upload.getvalue(), upload.name)
            output_columns = [str(c) for c in outputs.frame.columns]
            o1, o2, o3 = st.columns(3)
            column_d = o1.selectbox(
                t("dp.outputs_d"),
                output_columns,
                key=keep("dp_outputs_d", valid=lambda v: v in output_columns),
            )
            others = [c for c in output_columns if c != column_d]
            column_d_prime = o2.selectbox(
                t("dp.outputs_d_prime"),
                others,
                key=keep("dp_outputs_d_prime", valid=lambda v: v in others),
            )
            claimed = float(
                o3.number_input(t("dp.claimed"), 0.05, 20.0, 1.0, 0.25, key=keep("dp_claimed"))
            )
            claimed_delta = float(
                o3.number_input(
                    "δ", 0.0, 0.1, 0.0, 1e-6, format="%.1e", key=keep("dp_claimed_delta")
                )
            )
            if heavy_button(t("dp.audit_outputs"), key="dp_audit_outputs"):
                if column_d_prime is None:
                    st.error(t("dp.two_columns"), icon=":material/error:")
                else:
                    audit_upload = partial(
                        tasks.dp_outputs_task,
                        outputs.frame[column_d].dropna().to_numpy(),
                        outputs.frame[column_d_prime].dropna().to_numpy(),
                        claimed,
                        claimed_delta,
                    )

                    outcome = guard_run(
                        lambda: task(
                            "dp_audit",
                            {
                                "audited": "uploaded",
                                "epsilon": claimed,
                                "delta": claimed_delta,
                                "output_columns": [column_d, column_d_prime],
                            },
                            Inputs(
                                samples=outputs, names={"samples": upload.name}, work=audit_upload
                            ),
                            label=t("dp.auditing"),
                        )
                    )
                    if outcome is not None:
                        view.audit_result(outcome.result)
        except PrivcoreError as exc:
            show_error(exc)
