"""History: every recorded run; filter, inspect, compare, delete, export."""

import functools
import json

import streamlit as st

from privcore import history
from privcore.config import history_scope
from privcore.errors import HistoryError
from privcore.report import readiness_from_history
from privcore.words.labels import dataset_name
from privcore.words.report_html import render_html
from ui import history_view as view
from ui.components import escape_md
from ui.errors import guard, show_error
from ui.i18n import current_language, labels, t
from ui.shell import require_app
from ui.state import keep, session_owner, workbench

require_app()

KINDS = ["profile", "measure", "anonymize", "attack", "audit", "report", "error"]
# On a hosted demo each visitor sees only their own runs (PRIVCORE_HISTORY_SCOPE=session)
OWNER = session_owner() if history_scope() == "session" else None

st.title(t("history.title"))
st.write(t("history.lead"))
if OWNER is not None:
    st.caption(t("history.session_only"))

left, right = st.columns([1, 2])
kinds = left.multiselect(
    t("history.kind"),
    KINDS,
    format_func=labels(KINDS, lambda k: t(f"kind.{k}")),
    key=keep("history_kinds"),
)
search = right.text_input(
    t("history.search"), placeholder=t("history.search_placeholder"), key=keep("history_search")
)

try:
    runs = history.runs_frame(kind=kinds or None, search=search or None, owner=OWNER)
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


def served_from_cache(results: object) -> bool:
    """Was the run's result taken from a cache (``cached: true`` in its results)?"""
    try:
        parsed = json.loads(results) if isinstance(results, str) else results
    except ValueError:
        return False
    return isinstance(parsed, dict) and parsed.get("cached") is True


columns = [
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
# one flag per listed run (at most a page of them), read from its results
runs["cached"] = runs["results"].map(served_from_cache).astype(bool)
runs["release"] = view.release_names(runs["params"])
table = runs[columns]
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


st.download_button(
    t("history.export"),
    # Built when the visitor clicks (a deferred download): nothing is kept on the server
    # between clicks, and the file served is dropped soon after (ui/hosting.py).
    data=functools.partial(
        history.export_csv,
        kind=kinds or None,
        search=search or None,
        owner=OWNER,
        path=history.history_path(),
    ),
    file_name="privacy_workbench_history.csv",
    mime="text/csv",
    on_click="ignore",
)

# A selection can outlive the rows it pointed to (after a delete or a new filter).
rows = [i for i in (event.selection.rows if event else []) if i < len(table)]
selected = [int(table.iloc[i]["id"]) for i in rows]
if not selected:
    st.caption(t("history.select_hint"))
    st.stop()

# the run that made each release of this session's shelf, by the release's fingerprint
made_by = {r.fingerprint: r.run_id for r in workbench().shelf if r.run_id is not None}

tab_details, tab_compare = st.tabs([t("history.tab_details"), t("history.tab_compare")])
with tab_details:
    for run_id in selected:
        with guard():
            run = history.get_run(run_id, owner=OWNER)
            if run is None:
                continue
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
                    rebuilt = readiness_from_history(run_id, owner=OWNER)
                    st.download_button(
                        t("history.report_again"),
                        data=functools.partial(render_html, rebuilt, current_language()),
                        file_name=f"release_readiness_report_run{run_id}.html",
                        mime="text/html",
                        on_click="ignore",
                        key=f"report_again::{run_id}",
                    )
                if st.button(t("history.delete"), key=f"delete::{run_id}"):
                    history.delete_run(run_id, owner=OWNER)
                    st.toast(t("history.deleted", id=run_id))
                    st.rerun()

with tab_compare:
    if len(selected) < 2:
        st.caption(t("history.compare_hint"))
    else:
        compared = [history.get_run(run_id, owner=OWNER) or {} for run_id in selected[:6]]
        view.show_comparison([run for run in compared if run])
