"""Data & roles: upload a table, profile it, tag column roles, build hierarchies."""

import streamlit as st

from privcore.data import Schema
from privcore.words.labels import note_text
from ui import hierarchy_editor, large_table, roles_editor
from ui.components import escape_md
from ui.errors import guard, show_error
from ui.i18n import current_language, t
from ui.shell import require_app
from ui.state import load_upload, workbench

require_app()

UPLOAD_TYPES = ["csv", "tsv", "txt", "xlsx", "parquet", "jsonl", "ndjson", "gz", "zip"]

st.title(t("data.title"))
st.write(t("data.lead"))
wb = workbench()

upload = st.file_uploader(t("data.upload"), type=UPLOAD_TYPES, help=t("data.upload_help"))
if upload is not None and upload.file_id not in wb.seen_uploads:
    try:
        dataset = load_upload(upload.getvalue(), upload.name)
        added = wb.add_upload(upload.name, dataset)
    except Exception as exc:  # noqa: BLE001 - shown to the user; nothing else changes
        show_error(exc)
    else:
        wb.seen_uploads[upload.file_id] = added
        st.rerun()
large_table.open_expander(wb)

key = wb.active
if wb.is_table(key):  # a table opened in an engine
    with guard():
        large_table.render(wb, key)
    st.stop()
with guard():
    dataset = wb.dataset(key)
    st.subheader(escape_md(wb.title(key)))
    st.caption(
        t(
            "data.facts",
            rows=f"{dataset.n_rows:,}",
            columns=dataset.n_columns,
            format=dataset.source_format,
            encoding=dataset.encoding or "—",
        )
    )
    for note in dataset.notes:
        st.caption(escape_md(note_text(note, current_language())))
    roles_editor.render_unnamed_column(wb, key, dataset)
    if key in wb.uploads and st.button(
        t("data.remove"), key=f"remove::{key}", help=t("data.remove_help")
    ):
        wb.remove_upload(key)
        st.rerun()

    tab_roles, tab_profile, tab_preview, tab_hier, tab_schema = st.tabs(
        [
            t("data.tab_roles"),
            t("data.tab_profile"),
            t("data.tab_preview"),
            t("data.tab_hierarchies"),
            t("data.tab_schema"),
        ]
    )
    with tab_roles:
        roles_editor.render_roles(wb, key, dataset)
    with tab_profile:
        roles_editor.render_profile(dataset)
    with tab_preview:
        st.dataframe(dataset.frame.head(200), hide_index=True)
        st.caption(
            t("data.preview_caption", n=min(200, dataset.n_rows), total=f"{dataset.n_rows:,}")
        )
    with tab_hier:
        hierarchy_editor.render(wb, key, dataset)
    with tab_schema:
        st.write(t("data.schema_lead"))
        st.download_button(
            t("data.schema_download"),
            data=wb.draft(key).to_json().encode("utf-8"),
            file_name=f"schema_{key}.json",
            mime="application/json",
            on_click="ignore",
        )
        schema_file = st.file_uploader(t("data.schema_upload"), type=["json"], key=f"schema::{key}")
        if schema_file is not None and st.button(t("data.schema_apply")):
            with guard():
                schema = Schema.from_json(schema_file.getvalue())
                suggestions = roles_editor.suggestions_for(dataset)
                if roles_editor.confirm(wb, key, dataset, schema, suggestions):
                    wb.drafts[key] = schema
                    st.session_state.pop(roles_editor.editor_key(key), None)
                    st.rerun()
