"""The methods compared on one workload (:mod:`privcore.report.method_comparison`): one row
per method — its kind, the mean total-variation distance of every 2- and 3-way marginal,
the accuracy of a model trained on its release, the share of records the reconstruction
lab rebuilds from its marginals, its held-out risks — and a chart of error against what
the reconstruction rebuilds. A method that could not release the table keeps its reason,
in words."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import altair as alt
import pandas as pd
import streamlit as st

from privcore.report.method_comparison import uninformative_majority
from privcore.words.catalog import error_words
from ui.common.charts import show_chart
from ui.common.components import fmt
from ui.common.i18n import current_language, t, t_plain

#: the method names as the page says them (the word keys)
METHOD_WORDS = {
    "aim": "dp.method_aim",
    "mst": "dp.method_mst",
    "marginals": "dp.method_marginals",
    "k_anon": "dp.methods_k_anon",
    "pram": "dp.methods_pram",
    "noise": "dp.methods_noise",
    "rank_swap": "dp.methods_rank_swap",
    "mdav": "dp.methods_mdav",
    "condensation": "dp.methods_condensation",
}
KIND_WORDS = {
    "dp_synthetic": "dp.methods_kind_dp_synthetic",
    "generalized": "dp.methods_kind_generalized",
    "perturbed": "dp.methods_kind_perturbed",
    "synthetic": "dp.methods_kind_synthetic",
}


def method_name(method: str) -> str:
    return t_plain(METHOD_WORDS.get(method, method))


def _share(value: Any) -> str:
    return "—" if value is None else f"{float(value):.1%}"


def _rate(result: Mapping[str, Any] | None) -> str:
    """One risk as its rate and 95 % interval, "—" when there is none."""
    rate = (result or {}).get("risk")
    if rate is None:
        return "—"
    interval = result.get("ci")
    if not interval:
        return f"{float(rate):.1%}"
    return f"{float(rate):.1%} [{float(interval[0]):.1%}, {float(interval[1]):.1%}]"


def _risk(risks: Mapping[str, Any] | None, which: str) -> str:
    """The held-out risk ``which`` (singling_out, linkability or inference: each
    sensitive column's) in words."""
    if not risks:
        return "—"
    if "not_measured" in risks:
        return t_plain("dp.methods_not_measured")
    if which == "inference":
        shown = [f"{column} {_rate(r)}" for column, r in (risks.get("inference") or {}).items()]
        return "; ".join(shown) or "—"
    return _rate(risks.get(which))


def _why(reason: Mapping[str, Any] | None) -> str:
    """A method's or its reconstruction's reason, in the page's language."""
    if not reason:
        return ""
    worded = error_words(reason, current_language())
    return reason.get("message", "") if worded == reason.get("error") else worded


def methods_frame(compared: Mapping[str, Any]) -> pd.DataFrame:
    """The comparison as a table, in words: one row per method."""
    rows = []
    for m in compared["methods"]:
        regression = m.get("regression") or {}
        rebuilt = m.get("reconstruction") or {}
        rows.append(
            {
                t_plain("dp.methods_method"): method_name(m["method"]),
                t_plain("dp.methods_kind"): t_plain(KIND_WORDS.get(m["kind"], m["kind"])),
                t_plain("dp.methods_tvd2"): fmt(m.get("tvd2"), 4),
                t_plain("dp.methods_tvd3"): fmt(m.get("tvd3"), 4),
                t_plain("dp.methods_accuracy"): _share(regression.get("accuracy")),
                t_plain("dp.methods_rebuilt"): _share(rebuilt.get("exact")),
                t_plain("dp.methods_singling_out"): _risk(m.get("risks"), "singling_out"),
                t_plain("dp.methods_linkability"): _risk(m.get("risks"), "linkability"),
                t_plain("dp.methods_inference"): _risk(m.get("risks"), "inference"),
                t_plain("dp.methods_seconds"): fmt(m.get("seconds"), 2),
                t_plain("dp.methods_why"): _why(
                    m.get("not_measured") or rebuilt.get("not_measured")
                ),
            }
        )
    return pd.DataFrame(rows)


def _chart(compared: Mapping[str, Any]) -> alt.Chart | None:
    points = [
        {
            t_plain("dp.methods_method"): method_name(m["method"]),
            t_plain("dp.methods_tvd3"): m["tvd3"],
            t_plain("dp.methods_rebuilt"): (m.get("reconstruction") or {})["exact"],
        }
        for m in compared["methods"]
        if m.get("tvd3") is not None and "exact" in (m.get("reconstruction") or {})
    ]
    if len(points) < 2:
        return None
    name, error, rebuilt = (
        t_plain("dp.methods_method"),
        t_plain("dp.methods_tvd3"),
        t_plain("dp.methods_rebuilt"),
    )
    base = alt.Chart(pd.DataFrame(points), title=t_plain("dp.methods_chart_title"))
    dots = base.mark_circle(size=90).encode(
        x=alt.X(f"{error}:Q", title=error),
        y=alt.Y(f"{rebuilt}:Q", title=rebuilt, axis=alt.Axis(format="%")),
        tooltip=[name, error, rebuilt],
    )
    labels = base.mark_text(align="left", dx=7).encode(
        x=f"{error}:Q", y=f"{rebuilt}:Q", text=f"{name}:N"
    )
    return dots + labels


def methods_result(compared: Mapping[str, Any], *, key: str) -> None:
    """The comparison of methods: the caption, the table, the chart (with its text)."""
    columns = ", ".join(compared["columns"])
    st.caption(t("dp.methods_caption", columns=columns))
    for item in compared.get("binnings", ()):
        st.caption(
            t(
                "dp.methods_binned" if item["source"] == "public" else "dp.methods_binned_data",
                column=item["column"],
                bins=item["bins"],
                lower=fmt(item["lower"], 4),
                upper=fmt(item["upper"], 4),
            )
        )
    st.dataframe(methods_frame(compared), hide_index=True)
    majority = uninformative_majority(m.get("regression") for m in compared["methods"])
    if majority is not None:
        st.caption(t("dp.methods_regression_flat", majority=f"{majority:.1%}"))
    chart = _chart(compared)
    if chart is not None:
        show_chart(chart, key=f"{key}_chart")
    st.caption(t("dp.methods_note"))
