"""The Data & roles page of a table opened in an engine: "Open a large table" under the
uploader, then the table's facts and its Roles · Profile · Preview · Hierarchies ·
Schema file tabs. Roles are suggested from the engine's profile
(:mod:`privcore.engines.table_profile`) and confirmed as for an upload
(:func:`ui.data.roles_editor.confirm_checked`)."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from privcore.config import local_tables_allowed
from privcore.data import Hierarchy, Schema
from privcore.engines.opening import checked_schema, present_values, suggested_hierarchy
from privcore.engines.spark_engine import spark_available
from privcore.runs import Inputs, OpenTableRequest
from ui.common.components import escape_md
from ui.common.engine_tables import RESULTS
from ui.common.errors import guard, show_error
from ui.common.heavy import heavy_button, run_heavy
from ui.common.hierarchy_suggestions import (
    kind_text,
    level_headings,
    preview_frame,
    reason_text,
    suggestion_table,
)
from ui.common.i18n import labels, t, t_plain
from ui.common.state import ENGINE_TITLES, LargeTable, Workbench, engine_title
from ui.common.workspace.names import file_stem
from ui.data import dataset_view, schema_file, table_open
from ui.data import hierarchy_editor as editor
from ui.data.roles_editor import confirm_checked, edit_roles


def confirm(wb: Workbench, key: str, table: LargeTable, schema: Schema) -> bool:
    """Check and confirm ``schema`` for the table, recorded as a profile run (as for an
    upload, :func:`ui.data.roles_editor.confirm_checked`)."""
    return confirm_checked(
        wb,
        key,
        schema,
        [s.to_dict() for s in table.suggestions],
        check=lambda: checked_schema(table, schema),
        original=table,
    )


def open_expander(wb: Workbench) -> None:
    """ "Open a large table", under the uploader: a path, the engine and its settings,
    and the button that opens it (off on the hosted demo, which says why)."""
    with st.expander(t("lt.open_title"), expanded=False):
        if not local_tables_allowed():
            st.info(t("lt.disabled"), icon=":material/lock:")
            return
        st.caption(t("lt.open_lead"))
        path = st.text_input(t("lt.path"), key="lt_path", help=t("lt.path_help"))
        table_name = st.text_input(t("lt.table"), key="lt_table", help=t("lt.table_help"))
        spark_missing = spark_available()
        engines = ["duckdb", "spark"]
        if spark_missing is not None:
            st.session_state["lt_engine"] = "duckdb"
        engine = st.radio(
            t("lt.engine"),
            engines,
            horizontal=True,
            format_func=labels(engines, lambda e: ENGINE_TITLES[e]),
            key="lt_engine",
            disabled=spark_missing is not None,
            help=t("lt.engine_help"),
        )
        if spark_missing is not None:
            st.caption(t("lt.spark_missing", reason=spark_missing))
        settings = _engine_settings(engine)
        if not heavy_button(t("lt.open"), key="lt_open"):
            return
        try:
            request = OpenTableRequest(
                path=path,
                table=table_name,
                engine=engine,
                profile_limit=table_open.PROFILE_LIMIT,
                **settings,
            )
            opened = run_heavy(
                request, Inputs(), label=t("lt.opening"), page="data", record=False
            ).result
            wb.add_table(opened)
        except Exception as exc:  # noqa: BLE001 - shown to the user; nothing else changes
            show_error(exc)
            return
    st.rerun()


def _engine_settings(engine: str) -> dict[str, str]:
    """The settings of ``engine`` the user types in (the fields of
    :class:`~privcore.runs.analysis_requests.OpenTableRequest`): DuckDB's memory limit
    and spill folder, or Spark's master."""
    if engine == "duckdb":
        c1, c2 = st.columns(2)
        return {
            "memory_limit": c1.text_input(
                t("lt.memory_limit"), key="lt_memory", placeholder="4GB", help=t("lt.memory_help")
            ),
            "temp_dir": c2.text_input(t("lt.temp_dir"), key="lt_temp", help=t("lt.temp_help")),
        }
    return {
        "master": st.text_input(
            t("lt.master"), key="lt_master", placeholder="local[2]", help=t("lt.master_help")
        )
    }


def page(wb: Workbench) -> None:
    """The Data & roles page of the active table, opened in an engine (:func:`render`;
    an error is shown in its place)."""
    with guard():
        render(wb, wb.active)


def render(wb: Workbench, key: str) -> None:
    """The Data & roles page of a table opened in an engine: its facts, removal, and the
    Roles · Profile · Preview · Hierarchies · Schema file tabs."""
    table = wb.table(key)
    st.header(escape_md(key))
    st.caption(
        t(
            "lt.facts",
            rows=f"{table.rows:,}",
            columns=table.n_columns,
            engine=engine_title(table),
        )
    )
    st.text(table.source if table.table is None else f"{table.source} · {table.table}")
    if st.button(t("data.remove"), key=f"remove::{key}", help=t("lt.remove_help")):
        wb.remove_table(key)
        for results in RESULTS:  # the runs' results on the page: not for a table opened later
            st.session_state.get(results, {}).pop(key, None)
        st.rerun()
    tab_roles, tab_profile, tab_preview, tab_hier, tab_schema = dataset_view.tabs()
    with tab_roles:
        render_roles(wb, key, table)
    with tab_profile:
        render_profile(table)
    with tab_preview:
        st.dataframe(table.preview, hide_index=True)
        st.caption(t("lt.preview_caption", n=len(table.preview), total=f"{table.rows:,}"))
    with tab_hier, guard():
        render_hierarchies(wb, key, table)
    with tab_schema:
        schema_file.render(
            wb,
            key,
            file_name=f"schema_{file_stem(table.name)}.json",
            confirm=lambda schema: confirm(wb, key, table, schema),
            apply_key=f"lt_schema::{key}",
        )


def render_roles(wb: Workbench, key: str, table: LargeTable) -> None:
    st.caption(t("lt.roles_from", limit=f"{table.profile_limit:,}", preview=len(table.preview)))
    edit_roles(
        wb,
        key,
        [s.to_dict() for s in table.suggestions],
        lambda schema: confirm(wb, key, table, schema),
    )


def profile_shown(table: LargeTable) -> pd.DataFrame:
    """The profile as shown: counts as text ("more than 100,000" above the limit, "—"
    where not counted), types in words, headings in the page's language."""
    profile = table.profile
    more = t_plain("lt.more_than", n=f"{table.profile_limit:,}")

    def count(value: Any, fallback: str) -> str:
        return fallback if pd.isna(value) else f"{int(value):,}"

    return pd.DataFrame(
        {
            t_plain("profile.column"): profile["column"],
            t_plain("profile.type"): profile["type"].map(
                lambda kind: (
                    t_plain(f"lt.kind.{kind}")
                    if kind == "many"
                    else t_plain(f"profile.kind.{kind}")
                )
            ),
            t_plain("profile.distinct"): [count(v, more) for v in profile["distinct"]],
            t_plain("profile.missing"): [count(v, "—") for v in profile["missing"]],
            t_plain("profile.missing_share"): profile["missing_share"],
            t_plain("profile.uniqueness"): profile["uniqueness"],
            t_plain("lt.min"): profile["min"],
            t_plain("lt.max"): profile["max"],
            t_plain("lt.top"): profile["top"],
        }
    )


def render_profile(table: LargeTable) -> None:
    st.dataframe(
        profile_shown(table),
        hide_index=True,
        column_config={
            t_plain("profile.missing_share"): st.column_config.NumberColumn(format="percent"),
            t_plain("profile.uniqueness"): st.column_config.ProgressColumn(
                min_value=0.0, max_value=1.0, format="percent", help=t("profile.uniqueness_help")
            ),
        },
    )
    many = table.profile.loc[table.profile["distinct"].isna(), "column"].tolist()
    st.caption(t("lt.profile_caption", engine=engine_title(table)))
    if many:
        st.caption(t("lt.profile_many", columns=", ".join(many), limit=f"{table.profile_limit:,}"))


def render_hierarchies(wb: Workbench, key: str, table: LargeTable) -> None:
    """Per quasi-identifier: its hierarchy (imported from an ARX CSV file, or the one
    suggested from its distinct values), checked against those values."""
    draft = wb.draft(key)
    qis = draft.quasi_identifiers
    if not qis:
        st.info(t("lt.no_qi"), icon=":material/info:")
        return
    without = [c for c in qis if c not in draft.hierarchies]
    suggestions = {c: s for c in without if (s := suggested_hierarchy(table, c)) is not None}
    if suggestions:
        _offer_suggestions(wb, key, table, suggestions)
    must_import = [c for c in without if c not in suggestions]
    if must_import:
        st.warning(
            t("lt.must_import", columns=", ".join(must_import), limit=f"{table.profile_limit:,}"),
            icon=":material/warning:",
        )
    column = st.selectbox(t("hierarchy.column"), qis, key=f"lt_hcol::{key}")
    values = present_values(table, column)
    left, right = st.columns([2, 3])
    with left:
        _import_hierarchy(wb, key, column, values)
    with right:
        _column_hierarchy(wb, key, table, column, values, suggestions.get(column))


def _offer_suggestions(
    wb: Workbench, key: str, table: LargeTable, suggestions: dict[str, Any]
) -> None:
    """The hierarchies suggested for the QIs without one, and the button that uses them
    all."""
    st.markdown(f"**{t('hsug.title')}**")
    st.caption(t("lt.hierarchy_lead"))
    suggestion_table(suggestions, table.preview)
    if st.button(t("hsug.use_all"), type="primary", key=f"lt_use_all::{key}"):
        schema = wb.draft(key)
        for column, suggestion in suggestions.items():
            schema = schema.with_hierarchy(column, suggestion.hierarchy)
        wb.drafts[key] = schema
        st.rerun()


def _import_hierarchy(wb: Workbench, key: str, column: str, values: pd.Series | None) -> None:
    """An ARX hierarchy file for ``column``, kept when it covers the column's values."""
    st.markdown(f"**{t('lt.import_title')}**")
    upload = st.file_uploader(
        t("hierarchy.arx_file"), type=["csv", "txt"], key=f"lt_arx::{key}::{column}"
    )
    if upload is not None and st.button(t("hierarchy.import"), key=f"lt_import::{column}"):
        imported = Hierarchy.read_arx(upload.getvalue(), name=column)
        uncovered = [] if values is None else imported.uncovered_values(values)
        if uncovered:
            editor.uncovered_error(uncovered)
        else:
            wb.drafts[key] = wb.draft(key).with_hierarchy(column, imported)
            st.rerun()


def _column_hierarchy(
    wb: Workbench,
    key: str,
    table: LargeTable,
    column: str,
    values: pd.Series | None,
    suggestion: Any,
) -> None:
    """The hierarchy of ``column`` (or else its suggestion) checked against its values,
    with its export and removal (or the button that keeps the suggestion)."""
    current = wb.draft(key).hierarchies.get(column)
    shown = current if current is not None else None
    if shown is not None:
        st.markdown(f"**{t('hierarchy.current_title')}**")
    elif suggestion is not None:
        st.markdown(f"**{t('hsug.suggested_title')}**")
        st.caption(
            t(
                "lt.suggested_caption",
                kind=kind_text(suggestion),
                reason=reason_text(suggestion),
            )
        )
        shown = suggestion.hierarchy
    if shown is None:
        st.info(t("lt.import_needed"), icon=":material/info:")
        return
    if values is None:
        st.caption(t("lt.coverage_later", limit=f"{table.profile_limit:,}"))
        st.dataframe(level_headings(shown.to_frame().head(500)), hide_index=True)
    else:
        editor.coverage(shown, values)
        st.dataframe(preview_frame(shown, values), hide_index=True)
    if current is not None:
        editor.export_or_remove(
            wb, key, column, current, file_name=f"hierarchy_{file_stem(column)}.csv", prefix="lt_"
        )
    elif st.button(t("hierarchy.use"), type="primary", key=f"lt_use::{column}"):
        wb.drafts[key] = wb.draft(key).with_hierarchy(column, shown)
        st.rerun()
