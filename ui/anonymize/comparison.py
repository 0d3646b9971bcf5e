"""Algorithms compared on the Anonymize page: the same models and columns run by several
algorithms (each run recorded), their results in one table and on the risk-vs-utility
chart (:mod:`ui.anonymize.risk_utility`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import altair as alt
import pandas as pd
import streamlit as st

from privcore.data import Dataset, Schema
from privcore.errors import PrivcoreError
from privcore.runs import AnonymizeRequest
from privcore.runs.registry import ALGORITHMS
from ui.anonymize import risk_utility
from ui.anonymize.live import make, served_from_cache
from ui.common.charts import show_chart
from ui.common.components import loss_name
from ui.common.heavy import heavy_button
from ui.common.i18n import error_text, labels, t, t_plain
from ui.common.reproduce import reproduce_in_python
from ui.common.state import keep
from ui.common.workspace.actions import DEFAULTS
from ui.common.workspace.names import algorithm_title

#: The comparison last made: its settings, table and each algorithm's run (kept, so that
#: the reproduction of one run can be chosen under the table).
COMPARED = "an_compared"


def compare(dataset: Dataset, schema: Schema, values: Mapping[str, Any]) -> None:
    """Run several algorithms on the same models and column choice (``values``, the
    page's controls) when asked, and table their results (kept while the settings stay),
    with the reproduction in Python of the run chosen under them; each run is recorded."""
    algorithms = list(ALGORITHMS)
    chosen = st.multiselect(
        t("an.compare_algorithms"),
        algorithms,
        default=[a for a in ("datafly", "optimal", "mondrian", "mdav", "noise") if a in algorithms],
        format_func=labels(algorithms, algorithm_title),
        key=keep("an_compare"),
    )
    clicked = heavy_button(t("an.compare_run"), key="an_compare_run", primary=False)
    settings = {"data": dataset.fingerprint.sha256, "values": dict(values), "chosen": chosen}
    if clicked:
        compared = [_compared(dataset, schema, values, algorithm) for algorithm in chosen]
        st.session_state[COMPARED] = {
            **settings,
            "table": pd.DataFrame([row for row, _ in compared]),
            "outcomes": {a: outcome for a, (_, outcome) in zip(chosen, compared, strict=True)},
        }
    stored = st.session_state.get(COMPARED)
    # shown while the settings it was computed with are the page's
    if stored is None or any(stored[k] != v for k, v in settings.items()):
        return
    table = stored["table"]
    points = comparison_points(table)
    if len(points):
        st.markdown(f"**{t('an.ru.title')}**")
        st.caption(t("an.ru.help"))
        with alt.data_transformers.disable_max_rows():
            show_chart(risk_utility.risk_utility_chart(points), key="an_compare_chart_data")
    st.dataframe(
        table,
        hide_index=True,
        height=38 * (len(table) + 1) + 3,  # every compared algorithm on screen
        column_config=_column_config(),
    )
    made = [a for a, outcome in stored["outcomes"].items() if outcome is not None]
    if made:
        which = st.selectbox(
            t("an.compare_reproduce"),
            made,
            format_func=labels(made, algorithm_title),
            key="an_compare_reproduce",
        )
        reproduce_in_python(stored["outcomes"][which], key="an_compare")


def _compared(
    dataset: Dataset, schema: Schema, values: Mapping[str, Any], algorithm: str
) -> tuple[dict[str, Any], Any]:
    """One row of the comparison: ``algorithm`` run with the page's models and columns
    (its own options from ``values``, else their defaults), its figures and its point on
    the risk-vs-utility chart; a refused run's row says why."""
    own = ALGORITHMS[algorithm].options
    common = {k: v for k, v in values.items() if k not in ("loss_metric", "summary")}
    request_values = {
        **common,
        **{k: values.get(k, getattr(DEFAULTS, k)) for k in own},
        "algorithm": algorithm,
    }
    try:
        outcome = make(
            dataset,
            schema,
            AnonymizeRequest(**request_values),
            label=algorithm_title(algorithm),
        )
    except PrivcoreError as exc:
        row = {"algorithm": algorithm_title(algorithm), "k": None, "error": error_text(exc)}
        return row, None
    out = outcome.result.to_dict()
    point, failure = {"changed": None, "reidentified": None}, ""
    try:
        point = risk_utility.risk_utility_point(dataset.frame, outcome.result, schema.hierarchies)
    except PrivcoreError as exc:  # the release is made; only its point is missing
        failure = error_text(exc)
    return {
        "algorithm": algorithm_title(algorithm),
        **point,
        "k": out["k"],
        "satisfied": out["satisfied"],
        "suppressed": out["suppressed_rows"],
        "classes": out["classes"],
        "loss_name": loss_name(out["loss_headline"]["name"]),
        "loss": out["loss_headline"]["value"],
        "discernibility": out["loss"].get("discernibility"),
        "precision": out["loss"].get("precision"),
        "PL": out["pl"],
        "UL": out["ul"],
        # a run served from the cache spent no compute time of its own
        "seconds": None if served_from_cache(outcome) else out["seconds"],
        "cached": served_from_cache(outcome),
        "run": outcome.run_id,
        "error": failure,
    }, outcome


def _column_config() -> dict[str, Any]:
    """The comparison's columns, headed and formatted in the page's language."""
    return {
        "changed": st.column_config.NumberColumn(
            t_plain("an.ru.x"), help=t_plain("an.ru.x_help"), format="percent"
        ),
        "reidentified": st.column_config.NumberColumn(
            t_plain("an.ru.y"), help=t_plain("an.ru.y_help"), format="percent"
        ),
        **{
            name: st.column_config.Column(t_plain(f"an.cmp.{name}"))
            for name in (
                "algorithm",
                "k",
                "satisfied",
                "suppressed",
                "classes",
                "discernibility",
                "cached",
                "run",
                "error",
            )
        },
        "loss_name": st.column_config.Column(t_plain("an.cmp.loss_name")),
        "loss": st.column_config.NumberColumn(
            t_plain("an.cmp.loss"), help=t_plain("an.cmp.loss_help"), format="%.4f"
        ),
        "PL": st.column_config.NumberColumn(format="%.3f"),
        "UL": st.column_config.NumberColumn(format="%.3f"),
        "precision": st.column_config.NumberColumn(t_plain("an.cmp.precision"), format="%.3f"),
        "seconds": st.column_config.NumberColumn(t_plain("an.cmp.seconds"), format="%.3f"),
    }


def comparison_points(table: pd.DataFrame) -> pd.DataFrame:
    """The risk-vs-utility chart's data: one row per compared algorithm that made a
    release (a refused one has no figures), :data:`ui.anonymize.risk_utility.POINT_COLUMNS`."""
    columns = list(risk_utility.POINT_COLUMNS)
    if not len(table) or not set(columns) <= set(table.columns):
        return pd.DataFrame(columns=columns)
    return table.loc[table["changed"].notna(), columns].reset_index(drop=True)
