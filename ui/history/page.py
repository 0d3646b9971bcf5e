"""The parts of the History page that read the history: the runs listed (with what the
history says about runs it set aside or has still to write), the table to pick them from,
the export, a run's details (with its readiness report made again, and its deletion) and
the comparison of several runs."""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from typing import Any

import pandas as pd
import streamlit as st

from privcore import history
from privcore.config import history_scope
from privcore.errors import HistoryError
from privcore.report import readiness_from_history
from privcore.words.labels import dataset_name
from privcore.words.report_html import render_html
from ui.common.components import escape_md
from ui.common.errors import show_error
from ui.common.i18n import current_language, t
from ui.common.state import session_owner
from ui.history import view

#: The columns of the run list, in order.
COLUMNS = [
    "id",
    "started_at",
    "kind",
    "page",
    "status",
    "cached",
    "dataset_name",
    "release",
    "dataset_rows",
    "duration_s",
]


def history_owner() -> str | None:
    """Whose runs the page lists: on a hosted demo (``PRIVCORE_HISTORY_SCOPE=session``)
    each visitor sees only their own runs; else everyone's (None)."""
    return session_owner() if history_scope() == "session" else None


def served_from_cache(results: object) -> bool:
    """Was the run's result taken from a cache (``cached: true`` in its results)?"""
    try:
        parsed = json.loads(results) if isinstance(results, str) else results
    except ValueError:
        return False
    return isinstance(parsed, dict) and parsed.get("cached") is True


def load_runs(kinds: list[str], search: str, owner: str | None) -> pd.DataFrame:
    """The runs of these kinds matching ``search``; the page says so and stops when the
    history cannot be read or holds none. Runs the history set aside (a file it could not
    read) and runs still to be written are said too."""
    try:
        runs = history.runs_frame(kind=kinds or None, search=search or None, owner=owner)
    except HistoryError as exc:
        show_error(exc)
        st.stop()
    for lost in history.set_aside_files():
        st.warning(t("history.lost_runs", file=lost.name), icon=":material/warning:")
    if waiting := history.pending_runs():
        st.info(t("history.pending", n=waiting), icon=":material/schedule:")
    if runs.empty:
        st.info(t("history.empty"), icon=":material/info:")
        st.stop()
    return runs


def run_table(runs: pd.DataFrame) -> tuple[Any, pd.DataFrame]:
    """The run list (kind, page and status in words, whether a cache served it, the
    release it assessed), several rows selectable; returns the selection event and the
    table the rows index."""
    # one flag per listed run (at most a page of them), read from its results
    runs["cached"] = runs["results"].map(served_from_cache).astype(bool)
    runs["release"] = view.release_names(runs["params"])
    table = runs[COLUMNS]
    shown = view.run_list(table, current_language())  # kind, page and status in words
    st.caption(t("history.count", n=len(runs), path=str(history.history_path())))
    event = st.dataframe(
        shown,
        hide_index=True,
        on_select="rerun",
        selection_mode="multi-row",
        key="history_table",
        column_config={
            "id": st.column_config.NumberColumn(t("history.col_id"), format="%d"),
            "started_at": st.column_config.TextColumn(t("history.col_started")),
            "kind": st.column_config.TextColumn(t("history.col_kind")),
            "page": st.column_config.TextColumn(t("history.col_page")),
            "status": st.column_config.TextColumn(t("history.col_status")),
            "cached": st.column_config.CheckboxColumn(
                t("history.col_cached"), help=t("history.col_cached_help")
            ),
            "dataset_name": st.column_config.TextColumn(t("history.col_dataset")),
            "release": st.column_config.TextColumn(
                t("history.col_release"), help=t("history.col_release_help")
            ),
            "dataset_rows": st.column_config.NumberColumn(t("history.col_rows")),
            "duration_s": st.column_config.NumberColumn(t("history.col_duration"), format="%.3f s"),
        },
    )
    return event, table


def export_button(kinds: list[str], search: str, owner: str | None) -> None:
    """The listed runs as a CSV file."""
    st.download_button(
        t("history.export"),
        # Built when the visitor clicks (a deferred download): nothing is kept on the server
        # between clicks, and the file served is dropped soon after (ui/common/hosting.py).
        data=functools.partial(
            history.export_csv,
            kind=kinds or None,
            search=search or None,
            owner=owner,
            path=history.history_path(),
        ),
        file_name="privacy_workbench_history.csv",
        mime="text/csv",
        on_click="ignore",
    )


def run_details(run_id: int, owner: str | None, made_by: dict[str, int]) -> None:
    """One run in a bordered box: its heading, when it started, its data set, the release
    it assessed (``made_by``: the run that made each release of the session's shelf, by
    fingerprint), its parameters and results, its readiness report made again (a report
    run) and its deletion."""
    run = history.get_run(run_id, owner=owner)
    if run is None:
        return
    with st.container(border=True):
        st.markdown(view.header(run))
        st.caption(
            f"{t('history.started_utc', time=history.display_time(run['started_at']))} · "
            f"{escape_md(dataset_name(run.get('dataset_name'), current_language()))} · "
            f"sha256 {str(run.get('dataset_sha256') or '—')[:16]}…"
        )
        found = history.assessed_release(run)
        line = view.release_line(
            run,
            current_language(),
            made_by=made_by.get((found or {}).get("sha256")),
        )
        if line is not None:
            st.markdown(escape_md(line))
        if served_from_cache(run.get("results")):
            st.caption(t("history.cached_note"))
        view.show_details(run)
        if run["kind"] == "report" and run["status"] == "ok":
            rebuilt = readiness_from_history(run_id, owner=owner)
            st.download_button(
                t("history.report_again"),
                data=functools.partial(render_html, rebuilt, current_language()),
                file_name=f"release_readiness_report_run{run_id}.html",
                mime="text/html",
                on_click="ignore",
                key=f"report_again::{run_id}",
            )
        if st.button(t("history.delete"), key=f"delete::{run_id}"):
            history.delete_run(run_id, owner=owner)
            st.toast(t("history.deleted", id=run_id))
            st.rerun()


def comparison(selected: Sequence[int], owner: str | None) -> None:
    """The first six runs selected, side by side."""
    compared = [history.get_run(run_id, owner=owner) or {} for run_id in selected[:6]]
    view.show_comparison([run for run in compared if run])
