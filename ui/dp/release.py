"""The DP release tab of the Differential privacy page: synthetic records made from
noisy marginals (ε-DP), or by MST or AIM ((ε, δ)-DP, numeric columns with many values
cut into intervals between public or DP-chosen bounds), beside a k-anonymous release of
the same data, compared on the same counts; the synthetic records can join the shelf of
releases, where every page assesses them as DP synthetic."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from privcore.core.kinds import ReleaseKind
from privcore.data import fingerprint
from privcore.dp.synthesis import (
    BOUNDS_SHARE,
    DEFAULT_BINS,
    DEFAULT_DELTA,
    MAX_VALUES,
    needs_bins,
)
from privcore.report.method_comparison import DP_METHODS, OTHER_METHODS
from privcore.runs import DpReleaseRequest, Inputs
from privcore.runs.registry import ALGORITHMS
from ui.common.components import choice_radio
from ui.common.heavy import heavy_button
from ui.common.i18n import labels, t, t_plain
from ui.common.reproduce import reproduce_in_python
from ui.common.state import ShelfRelease, keep
from ui.common.workspace.names import algorithm_title, now_hhmm
from ui.common.workspace.results import guard_run
from ui.common.workspace.shelf import note_dropped
from ui.dp.context import RELEASE, Context, keep_outcome, kept_outcome, recorded
from ui.dp.methods_view import methods_result
from ui.dp.release_view import release_result
from ui.dp.story_view import RELATIONS, number, relation_label, relation_note
from ui.dp.synthesis_view import METHODS, method_label, method_name

#: the methods "Compare every method" releases and reads on one workload
COMPARED = (*DP_METHODS, *OTHER_METHODS)


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
    release_method = _method(ctx, release_qi, release_sa)
    release_gdpr = st.checkbox(
        t("dp.release_gdpr"),
        value=True,
        help=t("dp.release_gdpr_help"),
        key=keep("dp_release_gdpr"),
    )
    release_compare = st.checkbox(
        t("dp.methods_compare"),
        value=False,
        help=t("dp.methods_compare_help"),
        key=keep("dp_release_compare"),
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
        **release_method,
    }
    if release_compare:  # every method, read on one workload
        release_values["compare"] = list(COMPARED)
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
        methods = stored["outcome"].result.methods
        if methods is not None:
            st.subheader(t("dp.methods_title"))
            methods_result(methods.to_dict(), key="dp_release_methods")
        _shelve(ctx, stored)
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


def _method(ctx: Context, qi: list[str], sa: str | None) -> dict[str, Any]:
    """How the DP release is made (the request's ``method``) and, for MST and AIM, its
    ``delta``, the ``bins`` of numeric columns and their public ``bounds`` (a list of
    [column, lower, upper]; a numeric column with many values and no public range gets
    bounds chosen under DP, said in a caption; the k-anonymous release generalizes a
    binned QI along the hierarchy of its intervals)."""
    method = st.radio(
        t("dp.release_method"),
        METHODS,
        horizontal=True,
        format_func=labels(METHODS, method_label),
        help=t("dp.release_method_help"),
        key=keep("dp_release_method", valid=lambda v: v in METHODS),
    )
    if method == "marginals":
        return {"method": method}
    c1, c2 = st.columns(2)
    delta = float(
        c1.number_input(
            "δ",
            1e-15,
            0.1,
            DEFAULT_DELTA,
            1e-9,
            format="%.0e",
            help=t("dp.release_delta_help"),
            key=keep("dp_release_delta"),
        )
    )
    bins = int(
        c2.number_input(
            t("dp.release_bins"),
            2,
            100,
            DEFAULT_BINS,
            1,
            help=t("dp.release_bins_help", most=MAX_VALUES),
            key=keep("dp_release_bins"),
        )
    )
    wide = wide_columns(ctx.frame, [*qi, *([sa] if sa else [])])
    bounds = [b for b in (_public_bounds(ctx, column) for column in wide) if b is not None]
    public = {b[0] for b in bounds}
    chosen = [c for c in wide if c not in public]
    if chosen:
        st.caption(
            t(
                "dp.release_bounds_dp",
                columns=", ".join(chosen),
                most=MAX_VALUES,
                share=f"{BOUNDS_SHARE:.0%}",
            )
        )
    return {"method": method, "delta": delta, "bins": bins, "bounds": bounds}


def wide_columns(frame: pd.DataFrame, columns: list[str]) -> list[str]:
    """The numeric ``columns`` of ``frame`` with more than
    :data:`~privcore.dp.synthesis.MAX_VALUES` distinct values: MST and AIM cut them into
    intervals."""
    return [c for c in columns if c in frame.columns and needs_bins(frame[c])]


def _public_bounds(ctx: Context, column: str) -> list[Any] | None:
    """[column, lower, upper] when the user knows the range of ``column`` (kept per data
    set), else None."""
    scope = ctx.wb.active
    known = st.checkbox(
        t("dp.release_bounds_known", column=column),
        help=t("dp.release_bounds_known_help"),
        key=keep(f"dp_release_known::{column}", scope=scope),
    )
    if not known:
        return None
    b1, b2 = st.columns(2)
    lower = b1.number_input(
        t("dp.release_lower", column=column),
        value=0.0,
        key=keep(f"dp_release_lower::{column}", scope=scope),
    )
    upper = b2.number_input(
        t("dp.release_upper", column=column),
        value=100.0,
        key=keep(f"dp_release_upper::{column}", scope=scope),
    )
    return [column, float(lower), float(upper)]


def _shelve(ctx: Context, stored: dict) -> None:
    """ "Put the synthetic records on the shelf": the DP release's records join the
    shelf of releases of its data set as DP synthetic records (not paired with the
    original's rows), once — a second click names the one already there."""
    if not st.button(
        t("dp.release_shelve"),
        key="dp_release_shelve",
        icon=":material/inventory_2:",
        help=t("dp.release_shelve_help"),
    ):
        return
    wb, outcome, data = ctx.wb, stored["outcome"], stored["data"]
    dp = outcome.result.dp
    sha = fingerprint(dp.records).sha256
    kind = ReleaseKind.DP_SYNTHETIC.value
    existing = next((r for r in wb.releases(data) if r.fingerprint == sha and r.kind == kind), None)
    if existing is not None:
        st.info(t("dp.release_on_shelf", name=existing.name), icon=":material/inventory_2:")
        return
    name = t_plain(
        "dp.release_shelf_name", method=method_name(dp.method), epsilon=number(dp.epsilon)
    )
    entry, dropped = wb.add_release(
        lambda new_id: ShelfRelease(
            id=new_id,
            name=name,
            data=data,
            source="dp",
            frame=dp.records,
            qi=tuple(dp.qi),
            sa=(dp.sa,),
            fingerprint=sha,
            made_at=now_hhmm(),
            run_id=outcome.run_id,
            aligned=False,
            kind=kind,
        )
    )
    st.success(t("dp.release_shelved", name=entry.name), icon=":material/inventory_2:")
    note_dropped(dropped)
