"""The Report page on a table opened in an engine: a release file (by default the last
one the Anonymize page wrote from it in this session; a file written shuffled is not
paired by position), its rows paired with the table's by position or by a key column,
the thresholds — and Generate: the readiness report computed in the engine
(:func:`report`; recorded as its measure, attack and report runs), shown as on a table in
memory (verdict, reasons, conditions, checks, figures, notes) with its HTML document. The
"Try …" actions act on releases in memory: not offered."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import streamlit as st

from privcore.core.progress import Progress
from privcore.data import Schema
from privcore.runs import Outcome, ReportRequest
from ui.common.engine_tables import (
    on_release,
    release_file_input,
    run_and_keep,
    table_and_schema,
)
from ui.common.i18n import t
from ui.common.state import Workbench
from ui.common.workspace.names import file_stem
from ui.common.workspace.results import result_header
from ui.report.thresholds import threshold_controls
from ui.report.view import html_download, recorded_caption, show_report

#: Session key: engine table → its last report, the parameters and the release's name.
TABLE_REPORTED = "rp_table_reported"


def table_page(wb: Workbench) -> None:
    """The Report page on a table opened in an engine (see the module docstring)."""
    key, table, schema, qi, sa = table_and_schema(wb)
    left, right = st.columns([1, 1], gap="large")
    with left:
        release_path, key_column = release_file_input(table, key, page="rp")
        st.caption(t("rp.engine_roll"))
    with right:
        thresholds = threshold_controls()
    values = {"qi": qi, "sa": sa, "key": key_column, "thresholds": thresholds}
    params = {"release_file": str(release_path or "").strip(), "key": key_column, **thresholds}
    stored = run_and_keep(
        TABLE_REPORTED,
        key,
        params,
        release_path,
        buttons={
            "go_label": t("rp.generate"),
            "go_key": "rp_go",
            "cancel_key": "rp_cancel",
            "cancelled": t("rp.cancelled"),
            "working": t("rp.working"),
        },
        call=lambda bar: report(wb, key, schema, values, release_path, progress=bar),
        kept=lambda outcome: {
            "report": outcome.result.recorded(outcome.summary, outcome.run_id),
            "seconds": outcome.seconds,
        },
    )
    if stored is None:
        return
    made = stored["value"]["report"]
    current = result_header(
        stored,
        None,
        params,
        run_id=made.run_ids[-1] if made.run_ids else None,
        shown=("release_file", "key", "min_k", "min_l", "max_pl", "max_t"),
    )
    recorded_caption(made, stored["value"]["seconds"])
    show_report(made, key="rp", actions=False)
    html_download(made, file_stem(Path(stored["name"]).stem or "release"), current=current)


def report(
    wb: Workbench,
    key: str,
    schema: Schema,
    values: Mapping[str, Any],
    release_path: str,
    *,
    progress: Progress | None = None,
) -> Outcome:
    """The readiness report of the release file ``release_path`` against the table with
    the thresholds ``values["thresholds"]`` (page "report";
    :func:`privcore.runs.tables.readiness_tables`; see
    :func:`ui.common.engine_tables.on_release`): recorded as its measure and attack runs,
    then the report run that names them, as a report on tables in memory is."""

    return on_release(
        wb, key, ReportRequest, values, release_path, "report", progress, schema=schema
    )
