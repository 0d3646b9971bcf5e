"""The Report page on a table opened in an engine: a release file (by default the last
one the Anonymize page wrote from it in this session; a file written shuffled is not
paired by position, but its copy in the table's order is, and stands for it as the file
to publish, shuffled), its rows paired with the table's by position or by a key column,
the thresholds — and Generate: the readiness report computed in the engine
(:func:`~ui.common.engine_tables.on_release`; recorded as its measure, attack and report
runs), shown as on a table in memory (verdict, reasons, conditions, checks, figures,
notes) with its HTML document. The "Try …" actions act on releases in memory: not
offered."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from privcore.runs import ReportRequest
from ui.common.engine_tables import (
    copy_of,
    release_file_input,
    run_and_keep,
    table_and_schema,
)
from ui.common.i18n import t
from ui.common.state import Workbench
from ui.common.workspace.names import file_stem
from ui.report.thresholds import threshold_controls
from ui.report.view import html_download, show_kept

#: Session key: engine table → its last report, the parameters and the release's name.
TABLE_REPORTED = "rp_table_reported"


def table_page(wb: Workbench) -> None:
    """The Report page on a table opened in an engine (see the module docstring)."""
    key, table, qi, sa = table_and_schema(wb)
    left, right = st.columns([1, 1], gap="large")
    with left:
        release_path, key_column = release_file_input(table, key, page="rp")
        st.caption(t("rp.engine_roll"))
    with right:
        thresholds = threshold_controls()
    values = {"qi": qi, "sa": sa, "key": key_column, "thresholds": thresholds}
    params = {"release_file": str(release_path or "").strip(), "key": key_column, **thresholds}
    # recorded as its measure and attack runs, then the report run that names them, as a
    # report on tables in memory is (privcore.runs.tables.readiness_tables)
    stored = run_and_keep(
        wb,
        TABLE_REPORTED,
        ReportRequest,
        values,
        release_path,
        "report",
        params=params,
        # the copy in the table's order stands for the shuffled file to publish
        shuffled=copy_of(key, release_path) is not None,
        kept=lambda outcome: {
            "report": outcome.result.recorded(outcome.summary, outcome.run_id),
            "seconds": outcome.seconds,
        },
    )
    if stored is None:
        return
    made, current, _ = show_kept(
        stored,
        None,
        params,
        shown=("release_file", "key", "min_k", "min_l", "max_pl", "max_t"),
        actions=False,
    )
    if any(str(c.get("condition", "")).startswith("row_order") for c in made.conditions):
        st.caption(t("lt.shuffle_how"))  # the way to a shuffled file to publish
    html_download(made, file_stem(Path(stored["name"]).stem or "release"), current=current)
