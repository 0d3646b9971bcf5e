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
from privcore.engines.failures import engine_errors
from privcore.engines.opening import resolve_source, typed_path
from privcore.errors import ParameterError
from privcore.runs import EngineTable, Inputs, Outcome
from ui.common.components import choice_radio
from ui.common.heavy import cancel_pressed, heavy_button, new_request, run_heavy
from ui.common.i18n import escape_md, t
from ui.common.progress import progress_bar
from ui.common.sources import active_source
from ui.common.state import LargeTable, Workbench, keep
from ui.common.workspace.results import guard_run

#: Session keys of the results the pages keep per engine table (Anonymize, Privacy
#: level, Attack, Report): a table closed takes its results with it.
RESULTS = (
    "an_table_made",
    "an_table_copies",
    "pl_table_measured",
    "pl_table_offered",
    "at_table_attacked",
    "at_table_offered",
    "rp_table_reported",
    "rp_table_offered",
)


#: How a release file's rows are paired with the table's (Privacy level, Attack, Report).
PAIRINGS = ("position", "key")

#: Session key: engine table → the file to publish the Anonymize page last wrote from it
#: shuffled (``published``) and the copy in the table's order it wrote for the
#: assessment (``assessed``), which the pages pair with the table by position.
COPIES = "an_table_copies"
COPY_SUFFIX = "_kept_order"


def kept_order_copy(published: Path) -> Path:
    """Where the copy in the table's order of the shuffled file ``published`` goes:
    next to it, ``<stem>_kept_order<suffix>``."""
    return published.with_name(f"{published.stem}{COPY_SUFFIX}{published.suffix}")


def _same_file(typed: str, path: str | None) -> bool:
    """Does the path ``typed`` (quotes and spaces removed) name the file ``path``?"""
    given = typed_path(typed)
    return bool(given and path) and Path(given).expanduser().resolve() == Path(path).resolve()


def copy_of(key: str, release_path: str) -> str | None:
    """The shuffled file to publish of which ``release_path`` is the copy in the table's
    order, written by the Anonymize page from the table ``key`` (else None)."""
    copies = st.session_state.get(COPIES, {}).get(key)
    if copies and _same_file(release_path, copies["assessed"]):
        return copies["published"]
    return None


def not_on_engine(wb: Workbench, title: str) -> None:
    """On a page (titled by the key ``title``) that reads the active data set in memory:
    when that is a table opened in an engine, say so — the Privacy level, Attack and
    Report pages give its figures and its report — and stop (:meth:`Source.require_memory
    <ui.common.sources.Source.require_memory>`)."""
    active_source(wb).require_memory(title)


def table_and_schema(wb: Workbench) -> tuple[str, LargeTable, list[str], list[str]]:
    """The top of the Attack and Report pages on a table opened in an engine: its
    confirmed roles, with a QI and an SA (without them the page says what to do and
    stops), the table named and its columns used. Returns the table's key, the table,
    its QIs and its SAs."""
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
    return key, table, qi, sa


def shuffled_here(table: LargeTable, release_path: str) -> bool:
    """Is ``release_path`` the file the Anonymize page last wrote from ``table``, with
    its rows shuffled?"""
    if not table.last_release or not table.last_release_shuffled:
        return False
    return _same_file(release_path, table.last_release)


def refuse_shuffled_by_position(table: LargeTable, release_path: str, key: str | None) -> None:
    """Raise when ``release_path`` is to be paired with the table by position (no
    ``key``) but is the file the Anonymize page last wrote from it shuffled: its row i is
    not the table's row i, and every figure that pairs them would be wrong."""
    if key is None and shuffled_here(table, release_path):
        raise ParameterError(
            "The Anonymize page wrote this file's rows in shuffled order, as the file to "
            "publish: they cannot be paired with the table's rows by position. Measure its "
            "copy in the table's order (written next to it), or pair the rows by a key column.",
            code="measure.shuffled_release",
        )


def release_file_input(table: LargeTable, key: str, *, page: str) -> tuple[str, str | None]:
    """The release file to pair with the table (by default the last one the Anonymize
    page wrote from it in this session, offered once per new file) and how its rows are
    paired: by position, or by a key column. ``page`` prefixes the widgets' keys and the
    session's record of the file offered (``<page>_table_offered``). Returns the path as
    typed (or that of its copy in the table's order, :func:`_through_copy`) and the key
    column (None: by position)."""
    path_key = keep(f"{page}_release_file::{key}")  # kept while the visitor is elsewhere
    offered = st.session_state.setdefault(f"{page}_table_offered", {})
    if table.last_release and (
        offered.get(key) != table.last_release or path_key not in st.session_state
    ):
        st.session_state[path_key] = table.last_release  # the newest file written here
        offered[key] = table.last_release
    release_path = st.text_input(t("lt.release_file"), key=path_key, help=t("lt.release_file_help"))
    if table.last_release:
        st.caption(t("lt.release_offered"))
    release_path = _through_copy(table, key, release_path, page)
    pairing = choice_radio(
        t("ws.pairing"), PAIRINGS, "lt.pairing_", key=f"{page}_table_pairing::{key}"
    )
    key_column = None
    if pairing == "key":
        key_column = st.selectbox(
            t("pl.key"), table.columns, help=t("pl.key_help"), key=f"{page}_table_key::{key}"
        )
    return release_path, key_column


def _through_copy(table: LargeTable, key: str, release_path: str, page: str) -> str:
    """Under the release file: a file written shuffled (to publish) cannot be paired by
    position — the toggle measures instead its copy in the table's order, written next
    to it by the Anonymize page — and that copy stands for the shuffled file to publish.
    Returns the path of the file to read: ``release_path``, or its copy."""
    copies = st.session_state.get(COPIES, {}).get(key)
    if shuffled_here(table, release_path):
        if not copies or not _same_file(release_path, copies["published"]):
            st.caption(t("lt.release_shuffled"))
        else:
            st.caption(t("lt.release_shuffled_copy"))
            st.text(copies["assessed"])
            if st.toggle(t("lt.use_copy"), key=f"{page}_use_copy::{key}"):
                release_path = copies["assessed"]
    published = copy_of(key, release_path)
    if published:
        st.caption(t("lt.release_is_copy"))
        st.text(published)
    return release_path


#: The buttons of each run on an engine table (:func:`run_and_keep`), by the session key
#: of its results: the run button's key and the key of its words, the Cancel button's key
#: and the key of the words after a cancel, the key of the progress bar's words.
RUN_BUTTONS = {
    "at_table_attacked": ("at_run", "at.run_linkage", "at_cancel", "at.cancelled", "at.working"),
    "pl_table_measured": ("pl_measure", "pl.measure", "pl_cancel", "pl.cancelled", "pl.measuring"),
    "pl_table_risk": (
        "pl_risk_assess",
        "risk.assess",
        "pl_risk_cancel",
        "pl.cancelled",
        "risk.assessing",
    ),
    "rp_table_reported": ("rp_go", "rp.generate", "rp_cancel", "rp.cancelled", "rp.working"),
}


def run_and_keep(
    wb: Workbench,
    results_key: str,
    request_type: type,
    values: Mapping[str, Any],
    release_path: str,
    page: str,
    *,
    params: Mapping[str, Any],
    kept: Any = None,
    **inputs: Any,
) -> dict[str, Any] | None:
    """A run of ``page`` on the active table and its release file (:func:`on_release`
    of ``request_type`` with ``values``; ``inputs``: its other inputs) when
    its run button is pressed, with a progress bar and a Cancel button (pressing it stops
    the running work at its next step, recorded as cancelled; the buttons and their words:
    :data:`RUN_BUTTONS` for ``results_key``). The outcome of a run (or ``kept(outcome)``)
    is kept in the session under ``results_key`` per table, with ``params`` and the
    file's name. Returns what is kept for the table (None: nothing yet)."""
    key = wb.active
    go_key, go_label, cancel_key, cancelled, working = RUN_BUTTONS[results_key]
    go = heavy_button(t(go_label), key=go_key, cancel_key=cancel_key, row=True)
    cancel = cancel_pressed(cancel_key)
    bar_slot = st.empty()
    if cancel:
        st.warning(t(cancelled), icon=":material/cancel:")
    results = st.session_state.setdefault(results_key, {})
    if go:
        with progress_bar(t(working), slot=bar_slot) as bar:
            outcome = guard_run(
                lambda: on_release(wb, key, request_type, values, release_path, page, bar, **inputs)
            )
        if outcome is not None:
            results[key] = {
                "params": params,
                "name": file_name(release_path),
                "value": outcome if kept is None else kept(outcome),
            }
    return results.get(key)


def file_name(release_path: str) -> str:
    """The name of the file at ``release_path`` as typed (quotes and spaces removed)."""
    return Path(typed_path(release_path)).name


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
    **more: Any,
) -> Outcome:
    """A run of ``page`` (a ``request_type`` of ``values``) on the table and the release
    file ``release_path``, paired in the engine by position or by the key column
    ``values["key"]`` (a file this session wrote shuffled is refused by position),
    through :func:`privcore.runs.run` (recorded), which computes it on the engine's
    frequency sets; the table's confirmed schema gives the hierarchies, ``more`` other
    inputs (a control set)."""
    table = wb.table(key)
    if not typed_path(release_path):
        copies = st.session_state.get(COPIES, {}).get(key) or {}
        written = copies.get("assessed") or table.last_release  # the file to enter here
        written = {"path": written} if written else {}
        raise ParameterError(
            "Enter the path of the release file to measure against the table.",
            code="engines.release_missing",
            **written,
        )
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
        schema=wb.schema(key),
        names={"engine": table.engine_name},
        **more,
    )
    return run_heavy(request, inputs, label="", page=page, progress=progress)
