"""What the pages share about a table opened in an engine (SPEC §9;
``privcore.engines``): where its path points, an engine's own errors in words, the
release file a page pairs with the table (and how), the run and Cancel buttons of a run
there, and the run itself (:func:`on_release`).

The session keeps the engine and its handle on the table (:class:`ui.common.state.LargeTable`),
never the rows. Runs go through :func:`privcore.runs.run` like any other (recorded in the
history): a release file is measured, attacked and given its readiness report against
the table in the engine (:mod:`privcore.runs.tables`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import streamlit as st

from privcore.core.progress import Progress
from privcore.data import Schema
from privcore.engines.failures import engine_errors
from privcore.engines.opening import resolve_source
from privcore.errors import ParameterError
from privcore.runs import EngineTable, Inputs, Outcome
from ui.common.components import choice_radio
from ui.common.heavy import cancel_pressed, heavy_button, new_request, run_heavy
from ui.common.i18n import escape_md, t
from ui.common.progress import progress_bar
from ui.common.sources import active_source
from ui.common.state import LargeTable, Workbench
from ui.common.workspace.results import guard_run

#: Session keys of the results the pages keep per engine table (Anonymize, Privacy
#: level, Attack, Report): a table closed takes its results with it.
RESULTS = (
    "an_table_made",
    "pl_table_measured",
    "pl_table_offered",
    "at_table_attacked",
    "at_table_offered",
    "rp_table_reported",
    "rp_table_offered",
)


#: How a release file's rows are paired with the table's (Privacy level, Attack, Report).
PAIRINGS = ("position", "key")


def not_on_engine(wb: Workbench, title: str) -> None:
    """On a page (titled by the key ``title``) that reads the active data set in memory:
    when that is a table opened in an engine, say so — the Privacy level, Attack and
    Report pages give its figures and its report — and stop (:meth:`Source.require_memory
    <ui.common.sources.Source.require_memory>`)."""
    active_source(wb).require_memory(title)


def table_and_schema(wb: Workbench) -> tuple[str, LargeTable, Schema, list[str], list[str]]:
    """The top of the Attack and Report pages on a table opened in an engine: its
    confirmed roles, with a QI and an SA (without them the page says what to do and
    stops), the table named and its columns used. Returns the table's key, the table,
    its schema, its QIs and its SAs."""
    key = wb.active
    table = wb.table(key)
    schema = wb.schema(key)
    if schema is None or not schema.quasi_identifiers or not schema.sensitive:
        st.warning(t("an.schema_first"), icon=":material/warning:")
        st.page_link("pages/data_roles.py", label=t("nav.data"), icon=":material/table_view:")
        st.stop()
    qi, sa = list(schema.quasi_identifiers), list(schema.sensitive)
    st.markdown(f"**{t('pl.original')}**: {escape_md(key)}")
    st.caption(t("an.columns_used", qi=", ".join(qi), sa=", ".join(sa)))
    return key, table, schema, qi, sa


def shuffled_here(table: LargeTable, release_path: str) -> bool:
    """Is ``release_path`` the file the Anonymize page last wrote from ``table``, with
    its rows shuffled?"""
    if not table.last_release or not table.last_release_shuffled:
        return False
    given = Path(str(release_path or "").strip().strip("\"'").strip()).expanduser()
    return given.resolve() == Path(table.last_release).resolve()


def refuse_shuffled_by_position(table: LargeTable, release_path: str, key: str | None) -> None:
    """Raise when ``release_path`` is to be paired with the table by position (no
    ``key``) but is the file the Anonymize page last wrote from it shuffled: its row i is
    not the table's row i, and every figure that pairs them would be wrong."""
    if key is None and shuffled_here(table, release_path):
        raise ParameterError(
            "The Anonymize page wrote this file's rows in shuffled order: they cannot be "
            "paired with the table's rows by position. Pair them by a key column, or write "
            "the release again with the table's row order kept.",
            code="measure.shuffled_release",
        )


def release_file_input(table: LargeTable, key: str, *, page: str) -> tuple[str, str | None]:
    """The release file to pair with the table (by default the last one the Anonymize
    page wrote from it in this session, offered once per new file) and how its rows are
    paired: by position, or by a key column. ``page`` prefixes the widgets' keys and the
    session's record of the file offered (``<page>_table_offered``). Returns the path as
    typed and the key column (None: by position)."""
    path_key = f"{page}_release_file::{key}"
    offered = st.session_state.setdefault(f"{page}_table_offered", {})
    if table.last_release and offered.get(key) != table.last_release:
        st.session_state[path_key] = table.last_release  # the newest file written here
        offered[key] = table.last_release
    release_path = st.text_input(t("lt.release_file"), key=path_key, help=t("lt.release_file_help"))
    if table.last_release:
        st.caption(t("lt.release_offered"))
    if shuffled_here(table, release_path):
        st.caption(t("lt.release_shuffled"))
    pairing = choice_radio(
        t("ws.pairing"),
        PAIRINGS,
        lambda p: t(f"lt.pairing_{p}"),
        key=f"{page}_table_pairing::{key}",
    )
    key_column = None
    if pairing == "key":
        key_column = st.selectbox(
            t("pl.key"), table.columns, help=t("pl.key_help"), key=f"{page}_table_key::{key}"
        )
    return release_path, key_column


def run_buttons(
    *, go_label: str, go_key: str, cancel_key: str, cancelled: str, working: str, call: Any
) -> Outcome | None:
    """The run button of an engine page and its Cancel button (pressing it stops the
    running work at its next step, recorded as cancelled), with a progress bar:
    ``call(progress)`` when the run button is pressed (its outcome, None after an error
    shown), else None."""
    go = heavy_button(go_label, key=go_key, cancel_key=cancel_key, row=True)
    cancel = cancel_pressed(cancel_key)
    bar_slot = st.empty()
    if cancel:
        st.warning(cancelled, icon=":material/cancel:")
    if not go:
        return None
    with progress_bar(working, slot=bar_slot) as bar:
        return guard_run(lambda: call(bar))


def run_and_keep(
    results_key: str,
    key: str,
    params: Mapping[str, Any],
    release_path: str,
    *,
    buttons: Mapping[str, str],
    call: Any,
    kept: Any = None,
) -> dict[str, Any] | None:
    """:func:`run_buttons` (``buttons``: its labels and keys) on the table ``key`` and
    its release file; the outcome of a run (or ``kept(outcome)``) is kept in the session
    under ``results_key`` per table, with ``params`` and the file's name. Returns what is
    kept for the table (None: nothing yet)."""
    results = st.session_state.setdefault(results_key, {})
    outcome = run_buttons(**buttons, call=call)
    if outcome is not None:
        results[key] = {
            "params": params,
            "name": file_name(release_path),
            "value": outcome if kept is None else kept(outcome),
        }
    return results.get(key)


def file_name(release_path: str) -> str:
    """The name of the file at ``release_path`` as typed (quotes and spaces removed)."""
    return Path(str(release_path).strip().strip("\"'")).name


def engine_table(table: LargeTable) -> EngineTable:
    """The table opened in an engine as a run's original (:class:`privcore.runs.EngineTable`:
    the history keeps what the run read of it, else what the page knows)."""
    return EngineTable(
        table.engine, table.scanned, table.name, rows=table.rows, known=table.summary()
    )


def on_release(
    wb: Workbench,
    key: str,
    request_type: type,
    values: Mapping[str, Any],
    release_path: str,
    page: str,
    progress: Progress | None,
    *,
    schema: Schema | None = None,
    **more: Any,
) -> Outcome:
    """A run of ``page`` (a ``request_type`` of ``values``) on the table and the release
    file ``release_path``, paired in the engine by position or by the key column
    ``values["key"]`` (a file this session wrote shuffled is refused by position),
    through :func:`privcore.runs.run` (recorded), which computes it on the engine's
    frequency sets; ``schema`` gives the hierarchies, ``more`` other inputs (a control
    set)."""
    table = wb.table(key)
    source, name = resolve_source(release_path)
    refuse_shuffled_by_position(table, release_path, values.get("key"))
    original = engine_table(table)
    request = new_request(
        request_type, values, Inputs(original=original, release_name=name), page=page
    )
    with engine_errors():
        release = EngineTable(table.engine, table.engine.scan(source), name)
    inputs = Inputs(
        original=original,
        release=release,
        release_name=name,
        schema=schema,
        names={"engine": table.engine_name},
        **more,
    )
    return run_heavy(request, inputs, label="", page=page, progress=progress)
