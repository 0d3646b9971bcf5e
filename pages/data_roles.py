"""Data & roles: upload a table, profile it, tag column roles, build hierarchies."""

import streamlit as st

from ui.common.errors import guard, show_error
from ui.common.i18n import t
from ui.common.shell import require_app
from ui.common.sources import ENGINE, page_view
from ui.common.state import load_upload, workbench
from ui.data import dataset_view, hierarchy_editor, roles_editor, schema_file, table_page

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
table_page.open_expander(wb)

page_view(wb, {ENGINE: table_page.page})  # a table opened in an engine
key = wb.active
with guard():
    dataset = wb.dataset(key)
    dataset_view.render_facts(wb, key, dataset)
    roles_editor.render_unnamed_column(wb, key, dataset)
    if key in wb.uploads and st.button(
        t("data.remove"), key=f"remove::{key}", help=t("data.remove_help")
    ):
        wb.remove_upload(key)
        st.rerun()

    tab_roles, tab_profile, tab_preview, tab_hier, tab_schema = dataset_view.tabs()
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
        schema_file.render(
            wb,
            key,
            file_name=f"schema_{key}.json",
            confirm=lambda schema: roles_editor.confirm(
                wb, key, dataset, schema, roles_editor.suggestions_for(dataset)
            ),
        )
