"""The head of the Data & roles page for a data set in memory: its name, its facts and
the loader's notes on it; and the page's tabs, the same for a table in an engine."""

from __future__ import annotations

import streamlit as st

from privcore.data import Dataset
from privcore.words.labels import note_text
from ui.common.components import escape_md
from ui.common.i18n import current_language, t
from ui.common.state import Workbench


def render_facts(wb: Workbench, key: str, dataset: Dataset) -> None:
    """The data set's name, its size, format and encoding, and the loader's notes."""
    st.header(escape_md(wb.title(key)))
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


def tabs() -> list:
    """The page's tabs for a table, in memory or in an engine: Roles · Profile · Preview ·
    Hierarchies · Schema."""
    return st.tabs(
        [
            t("data.tab_roles"),
            t("data.tab_profile"),
            t("data.tab_preview"),
            t("data.tab_hierarchies"),
            t("data.tab_schema"),
        ]
    )
