"""Views of the DP release tab: a DP release beside a k-anonymous one on the same
queries — the summary of their errors, a chart of every query's errors, the per-query
table, the noisy marginals' ledger (MST and AIM: the ρ ledger, the binnings and each
released marginal's error bound, :mod:`ui.dp.synthesis_view`), singling out,
linkability and inference of both, and the downloads."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import altair as alt
import numpy as np
import pandas as pd
import streamlit as st

from privcore.data import to_csv_bytes
from privcore.words.catalog import note_sentence
from privcore.words.risks import article29_rows
from ui.common.chart_lines import identity_line
from ui.common.charts import show_chart
from ui.common.components import explained_metric, fmt
from ui.common.i18n import current_language, escape_md, t, t_plain
from ui.common.workspace.names import algorithm_title, file_stem
from ui.dp.answers_view import cell_value
from ui.dp.story_view import number
from ui.dp.synthesis_view import bounds_by_marginal, synthesis_details, synthesis_header


def cell_text(cell: Mapping[str, Any]) -> str:
    """A query's cell in words: "age = 39 · occupation = Sales"."""
    return " · ".join(f"{c} = {cell_value(v)}" for c, v in cell.items())


def _release_metrics(figures: Mapping[str, Any], zero_in_truth: int) -> None:
    st.metric(t("dp.mean_abs_error"), fmt(figures["mean_abs_error"], 2))
    st.metric(t("dp.median_abs_error"), fmt(figures["median_abs_error"], 2))
    st.metric(t("dp.max_abs_error"), fmt(figures["max_abs_error"], 1))
    relative = f"{figures['mean_relative_error']:.1%}"
    explained_metric(st, t("dp.mean_relative_error"), relative, "dp.mean_relative_error_help")
    zeros = f"{figures['zero_answered_positive']:,} / {zero_in_truth:,}"
    explained_metric(st, t("dp.zero_answered"), zeros, "dp.zero_answered_help")


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
    synthesized = dp.method != "marginals"  # MST or AIM
    with left, st.container(border=True):
        if synthesized:
            synthesis_header(dp)
        else:
            _marginals_header(dp)
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
    table = per_query_frame(comparison.per_query, dp.bounds if synthesized else None)
    show_chart(errors_chart(comparison.per_query), key="dp_release_chart_data")
    st.caption(t("dp.errors_chart_help"))
    st.dataframe(table, hide_index=True)
    if synthesized:
        st.caption(t("dp.dp_bound_caption"))
        synthesis_details(dp)
    else:
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


def _marginals_header(dp: Any) -> None:
    """The title and facts of a release of noisy marginals: ε, and each marginal's share."""
    st.markdown(f"**{t('dp.release_dp', epsilon=number(dp.epsilon))}**")
    st.caption(
        t(
            "dp.release_dp_facts",
            records=f"{len(dp.records):,}",
            marginals=len(dp.ledger),
            share=number(dp.ledger[0]["epsilon"]) if dp.ledger else "—",
        )
    )


def method_risks(risks: Mapping[str, Any], *, k: Any, algorithm: str) -> None:
    """Singling out, linkability and inference of the two methods, each release made
    again from 80 % of the records and attacked against the other 20 %: one table, a row
    per attack and method, with intervals and baselines."""
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


def per_query_frame(
    per_query: pd.DataFrame, bounds: Sequence[Mapping[str, Any]] | None = None
) -> pd.DataFrame:
    """The per-query table in words: the cell, its marginal, the three answers and the
    errors of both releases; with ``bounds`` (MST and AIM), beside each marginal the
    bound on the DP release's error on it at 95 %."""
    yes, no = t_plain("words.yes"), t_plain("words.no")
    bound = {}
    if bounds is not None:
        said = bounds_by_marginal(bounds)
        none = t_plain("dp.bound_none")
        keys = [tuple(map(str, c)) for c in per_query["columns"]]
        bound = {t_plain("dp.dp_bound"): [said.get(key, none) for key in keys]}
    return pd.DataFrame(
        {
            t_plain("dp.cell"): [cell_text(c) for c in per_query["cell"]],
            t_plain("dp.marginal"): [_marginal(c) for c in per_query["columns"]],
            **bound,
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
    return identity_line(top) + points


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
