"""Suggested hierarchies of the quasi-identifiers (:mod:`privcore.data.hierarchy_suggestions`):
computed once per data set and column (once per server for a bundled sample), shown as a
table with their kind, levels, an example and why, and put into the schema with one
click — on the Data & roles page, and on the Anonymize page when an algorithm stops for
want of a hierarchy (:func:`offer_suggested`)."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import streamlit as st

from privcore.data import Dataset, Hierarchy, value_keys
from privcore.data.hierarchy_suggestions import HierarchySuggestion, suggest_hierarchy
from privcore.errors import PrivcoreError
from ui.common.i18n import t, t_plain
from ui.common.state import Workbench, is_bundled
from ui.common.workspace.actions import REQUESTED

_MAX_PREVIEW = 500


def _suggest(values: pd.Series, column: str) -> HierarchySuggestion | None:
    try:
        return suggest_hierarchy(values, column)
    except PrivcoreError:  # a column without any value: nothing to suggest
        return None


@st.cache_data(scope="session", max_entries=256, show_spinner=False)
def _suggestion(_values: pd.Series, sha256: str, column: str) -> HierarchySuggestion | None:
    return _suggest(_values, column)


@st.cache_data(max_entries=64, show_spinner=False)
def _public_suggestion(_values: pd.Series, sha256: str, column: str) -> HierarchySuggestion | None:
    """A bundled sample's suggestions: the same for every visitor, computed once."""
    return _suggest(_values, column)


def suggestion_for(dataset: Dataset, column: str) -> HierarchySuggestion | None:
    """The hierarchy suggested for ``column`` of ``dataset`` (None for a column with no
    value), computed once per data set and column (once per server for a bundled one)."""
    cached = _public_suggestion if is_bundled(dataset) else _suggestion
    return cached(dataset.frame[column], dataset.fingerprint.sha256, column)


def kind_text(suggestion: HierarchySuggestion) -> str:
    return t_plain(f"hsug.kind.{suggestion.kind}")


def reason_text(suggestion: HierarchySuggestion) -> str:
    return t_plain(f"hsug.reason.{suggestion.reason}", **suggestion.reason_params())


def _example(suggestion: HierarchySuggestion, values: pd.Series) -> str:
    """One value's way up the suggested hierarchy: ``17 → [15-20) → … → *``."""
    rows = preview_frame(suggestion.hierarchy, values)
    if rows.empty:
        return ""
    return " → ".join(dict.fromkeys(str(v) for v in rows.iloc[0]))


def suggestion_table(suggestions: dict[str, HierarchySuggestion], frame: pd.DataFrame) -> None:
    """The suggestions as a table: column, kind, levels, an example, why."""
    st.dataframe(
        pd.DataFrame(
            {
                t_plain("hsug.col.column"): list(suggestions),
                t_plain("hsug.col.kind"): [kind_text(s) for s in suggestions.values()],
                t_plain("hsug.col.levels"): [s.hierarchy.height for s in suggestions.values()],
                t_plain("hsug.col.example"): [
                    _example(s, frame[c]) for c, s in suggestions.items()
                ],
                t_plain("hsug.col.reason"): [reason_text(s) for s in suggestions.values()],
            }
        ),
        hide_index=True,
    )


def use_suggested(
    wb: Workbench, key: str, dataset: Dataset, columns: Sequence[str], *, confirmed: bool = False
) -> list[str]:
    """Put the suggested hierarchy of each of ``columns`` into the schema under edit
    (and into the confirmed schema with ``confirmed``); returns the columns given one."""
    suggestions = {c: s for c in columns if (s := suggestion_for(dataset, c)) is not None}
    stores = [wb.drafts] + ([wb.confirmed] if confirmed else [])
    for store in stores:
        schema = wb.draft(key) if store is wb.drafts else wb.schema(key)
        if schema is None:
            continue
        for column, suggestion in suggestions.items():
            schema = schema.with_hierarchy(column, suggestion.hierarchy)
        store[key] = schema
    return list(suggestions)


def offer_suggested(wb: Workbench, key: str, dataset: Dataset, error: Exception) -> None:
    """Under an algorithm's "needs a hierarchy for …" error (``hierarchy.missing_qi``):
    the suggestions for those columns and one click that puts them into the confirmed
    schema (and the one under edit) and asks the Anonymize page to run again."""
    if not isinstance(error, PrivcoreError) or error.code != "hierarchy.missing_qi":
        return
    columns = [str(c) for c in error.params.get("columns", []) if c in dataset.frame.columns]
    suggestions = {c: s for c in columns if (s := suggestion_for(dataset, c)) is not None}
    if not suggestions:
        return
    st.caption(t("hsug.offer"))
    suggestion_table(suggestions, dataset.frame)
    if st.button(t("hsug.use_all"), type="primary", key=f"an_use_suggested::{key}"):
        use_suggested(wb, key, dataset, list(suggestions), confirmed=True)
        st.session_state[REQUESTED] = True
        st.rerun(scope="app")


def preview_frame(hierarchy: Hierarchy, values: pd.Series) -> pd.DataFrame:
    """The hierarchy's rows for the values present in the data (at most 500)."""
    table = hierarchy.to_frame()
    present = set(value_keys(values.dropna()).unique())
    table = table[table.iloc[:, 0].isin(present)]
    return level_headings(table.head(_MAX_PREVIEW))


def level_headings(table: pd.DataFrame) -> pd.DataFrame:
    """A hierarchy table with its level columns ("level 0", …) headed in words."""
    return table.rename(
        columns={
            c: t_plain("hierarchy.level_n", n=c.split()[-1])
            for c in table.columns
            if str(c).startswith("level ")
        }
    )
