"""The Schema file tab of the Data & roles page: the schema under edit as a JSON file to
download, and a schema file applied (checked and confirmed as the roles editor's
Confirm would) — for a data set in memory and for a table opened in an engine alike."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from privcore.data import Schema
from ui.common.errors import guard
from ui.common.i18n import t
from ui.common.state import Workbench
from ui.data.roles_editor import editor_key


def render(
    wb: Workbench,
    key: str,
    *,
    file_name: str,
    confirm: Callable[[Schema], bool],
    apply_key: str | None = None,
) -> None:
    """The download of data set ``key``'s schema under edit (as ``file_name``) and the
    upload of a schema file: applied with its button (``apply_key``), it is checked and
    confirmed by ``confirm(schema)`` (True when confirmed), then becomes the schema
    under edit."""
    st.write(t("data.schema_lead"))
    st.download_button(
        t("data.schema_download"),
        data=wb.draft(key).to_json().encode("utf-8"),
        file_name=file_name,
        mime="application/json",
        on_click="ignore",
    )
    schema_file = st.file_uploader(t("data.schema_upload"), type=["json"], key=f"schema::{key}")
    if schema_file is not None and st.button(t("data.schema_apply"), key=apply_key):
        with guard():
            schema = Schema.from_json(schema_file.getvalue())
            if confirm(schema):
                wb.drafts[key] = schema
                st.session_state.pop(editor_key(key), None)
                st.rerun()
