"""The DP release tab of the Differential privacy page: synthetic records made from
noisy marginals (ε-DP) beside a k-anonymous release of the same data, compared on the
same counts."""

from __future__ import annotations

import streamlit as st

from privcore.runs import DpReleaseRequest, Inputs
from privcore.runs.registry import ALGORITHMS
from ui.common.components import choice_radio
from ui.common.heavy import heavy_button
from ui.common.i18n import labels, t
from ui.common.reproduce import reproduce_in_python
from ui.common.state import keep
from ui.common.workspace.names import algorithm_title
from ui.common.workspace.results import guard_run
from ui.dp.context import RELEASE, Context, keep_outcome, kept_outcome, recorded
from ui.dp.release_view import release_result
from ui.dp.story_view import RELATIONS, relation_label, relation_note


def release_tab(ctx: Context) -> None:
    """A DP release compared with a k-anonymous release on the same counts."""
    st.caption(t("dp.release_help"))
    if ctx.needs_data():
        return
    r1, r2 = st.columns([1, 1], gap="large")
    with r1:
        release_qi, release_sa, release_relation = _columns(ctx)
    with r2:
        release_epsilon, release_k, release_algorithm, release_suppression, release_seed = (
            _parameters()
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
                    original=ctx.dataset,
                    schema=ctx.schema,
                ),
                label=t("dp.releasing"),
            )
        )
        keep_outcome(RELEASE, outcome, release_values, ctx)
    stored = kept_outcome(RELEASE, release_values, ctx)
    if stored is not None:
        release_result(stored["outcome"].result, name=stored["name"])
        reproduce_in_python(stored["outcome"], key="dp_release")


def _columns(ctx: Context) -> tuple[list[str], str | None, str]:
    """The quasi-identifiers and the sensitive attribute released (the schema's by
    default), and the neighbouring relation."""
    wb, schema, columns = ctx.wb, ctx.schema, ctx.columns
    default_qi = [c for c in (schema.quasi_identifiers if schema else []) if c in columns]
    release_qi = st.multiselect(
        t("dp.release_qi"),
        columns,
        default=default_qi,
        key=keep("dp_release_qi", scope=wb.active, valid=ctx.within),
    )
    sa_choices = [c for c in columns if c not in release_qi]
    release_sa = ctx.sensitive_choice(t("dp.release_sa"), sa_choices, "dp_release_sa")
    release_relation = choice_radio(
        t("dp.relation"), RELATIONS, relation_label, key=keep("dp_release_relation")
    )
    relation_note(release_relation)
    return release_qi, release_sa, release_relation


def _parameters() -> tuple[float, int, str, float, int]:
    """ε of the DP release; k, the algorithm and the suppression limit (in percent) of
    the k-anonymous one; the seed of both."""
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
    release_seed = int(c4.number_input(t("an.seed"), 0, 2**31 - 1, 0, key=keep("dp_release_seed")))
    return release_epsilon, release_k, release_algorithm, release_suppression, release_seed
