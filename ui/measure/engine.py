"""The Privacy level page on a table opened in an engine: a release file (by default
the last one the Anonymize page wrote from it in this session) measured against the
table in the engine, rows paired by position or by a key column
(:func:`~ui.common.engine_tables.on_release`, recorded), shown with this page's views;
then its risk beyond class sizes (:func:`table_section`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import streamlit as st

from privcore.report.risk import GDPR_RECORDS
from privcore.runs import MeasureRequest, RiskRequest
from ui.common.charts import show_chart
from ui.common.components import escape_md
from ui.common.ec_table import (
    class_size_histogram,
    render_class_table,
    size_counts_histogram,
    worst_classes,
)
from ui.common.engine_tables import release_file_input, run_and_keep
from ui.common.i18n import t
from ui.common.reproduce import reproduce_in_python
from ui.common.state import Workbench
from ui.common.workspace.results import result_header
from ui.measure import risk as risk_view
from ui.measure.runs import PAGE
from ui.measure.thresholds import column_inputs, threshold_inputs
from ui.measure.view import downloads, result_tabs, summary_tab

TABLE_MEASURED = "pl_table_measured"  # engine table → its last measurement and parameters


def table_page(wb: Workbench) -> dict[str, Any]:
    """The Privacy level page on a table opened in an engine: a release file (by default
    the last one the Anonymize page wrote from it in this session) measured against the
    table in the engine, rows paired by position or by a key column
    (:func:`~ui.common.engine_tables.on_release`, recorded), shown with this page's views. Returns
    what the risk section below it reads: the QIs and SAs chosen and the release file."""
    key = wb.active
    table = wb.table(key)
    schema = wb.schema(key)
    if schema is None:
        st.warning(t("pl.confirm_first"), icon=":material/warning:")
        st.page_link("pages/data_roles.py", label=t("nav.data"), icon=":material/table_view:")
        st.stop()
    st.markdown(f"**{t('pl.original')}**: {escape_md(key)}")
    left, right = st.columns([1, 1])
    with left:
        qi, sa = column_inputs(list(table.columns), schema, scope=key)
    with right:
        release_path, key_column = release_file_input(table, key, page="pl")
    made = st.session_state.get("an_table_made", {}).get(key)
    thresholds = threshold_inputs(
        sa, request=made["values"] if made else None, scope=f"table::{key}"
    )
    values = {"qi": qi, "sa": sa, "key": key_column, **thresholds, "alignment": "position"}
    params = {**values, "release_file": str(release_path or "").strip()}
    # privcore.runs.tables.measure_tables, recorded
    stored = run_and_keep(
        wb, TABLE_MEASURED, MeasureRequest, values, release_path, PAGE, params=params
    )
    chosen = {"qi": qi, "sa": sa, "release_path": release_path}
    if stored is None:
        return chosen
    outcome = stored["value"]
    result_header(stored, None, params, run_id=outcome.run_id)
    render_table(outcome, wb, stored["name"])
    reproduce_in_python(outcome, key="pl_engine")
    return chosen


def render_table(outcome, wb: Workbench, name: str) -> None:
    """A measurement made on an engine (its rows pairs of a joint frequency set, with
    their counts): Summary · Classes (sizes in records) · Charts · Download."""
    result = outcome.result
    summary = result.to_dict()
    if result.classes is None:  # too many classes to list: measured inside the engine
        result_tabs(
            "pl_table_view",
            summary=lambda: summary_tab(result, summary, wb, None, outcome.request),
            classes=lambda: worst_classes(result.models.class_table),
            charts=lambda: show_chart(
                size_counts_histogram(result.size_counts, summary["k"]),
                key="pl_engine_counts_chart_data",
            ),
            download=lambda: downloads(result, summary, name),
        )
        return
    weights = np.asarray(result.weights, dtype=np.int64)
    result_tabs(
        "pl_table_view",
        summary=lambda: summary_tab(result, summary, wb, None, outcome.request),
        classes=lambda: render_class_table(
            result.models.class_table,
            result.classes,
            result.release,
            key="pl_table_classes",
            weights=weights,
        ),
        charts=lambda: _charts(result, summary),
        download=lambda: downloads(result, summary, name),
    )


def _charts(result: Any, summary: Any) -> None:
    """The class sizes in records (a frequency set has no PL matrix)."""
    show_chart(
        class_size_histogram(result.classes.sizes, summary["k"]), key="engine_chart_data_107"
    )
    st.caption(t("lt.no_matrix"))


#: Session key: engine table → its last risk assessment and the parameters.
TABLE_ASSESSED = "pl_table_risk"


def table_view(wb: Workbench) -> None:
    """The Privacy level page on a table opened in an engine: the release file measured
    (:func:`table_page`), then its risk beyond class sizes (:func:`table_section`)."""
    table_section(wb, table_page(wb))


def table_section(wb: Any, chosen: Mapping[str, Any]) -> None:
    """The risk section of the Privacy level page on a table opened in an engine
    (``chosen``: what :func:`table_page` returned): the release file
    assessed against the table, paired by position, from their joint frequency set
    (:func:`~ui.common.engine_tables.on_release`, recorded), with a Cancel button."""
    st.divider()
    st.header(t("risk.title"))
    st.caption(t("risk.lead_engine"))  # no population table on an engine table
    st.caption(t("risk.on_engine", limit=f"{GDPR_RECORDS:,}"))
    fraction, control = risk_view.inputs(None, on_engine=True)
    release_path = chosen["release_path"]
    values = {"qi": chosen["qi"], "sa": chosen["sa"], "sampling_fraction": fraction}
    params = {
        **values,
        "release_file": str(release_path or "").strip(),
        "control_rows": None if control is None else len(control),
    }
    # privcore.runs.tables.risk_tables, recorded; control: an uploaded control set
    stored = run_and_keep(
        wb, TABLE_ASSESSED, RiskRequest, values, release_path, PAGE, params=params, control=control
    )
    if stored is None:
        return
    result_header(stored, None, params, run_id=stored["value"].run_id)
    risk_view.render(stored["value"].result.to_dict(), on_engine=True)
