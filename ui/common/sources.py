"""The active data set as one source, in memory or opened in an engine, and the view of
it a page draws.

A session's data set is either held in memory (a bundled sample, an upload: a
:class:`~privcore.data.Dataset`) or a table opened in an engine (DuckDB, Spark: a
:class:`~ui.common.state.LargeTable`, its rows left in the engine). :func:`active_source`
says which, once, for every page: a page asks its source for its rows rather than
testing where they are, and draws the view it has for the source's kind through
:func:`page_view` — one table of views per page (``{ENGINE: table_page}``), its own
script being its view of a table in memory.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import streamlit as st

from privcore.data import Dataset, Schema
from ui.common.i18n import t, t_plain
from ui.common.state import Workbench

__all__ = ["ENGINE", "MEMORY", "Source", "active_source", "page_view"]

#: The kinds of source: rows held in memory, or a table opened in an engine.
MEMORY, ENGINE = "memory", "engine"


@dataclass(frozen=True, eq=False)
class Source:
    """The data set ``key`` of the session ``wb`` and where its rows are (``kind``:
    :data:`MEMORY` or :data:`ENGINE`)."""

    wb: Workbench
    key: str
    kind: str

    def dataset(self) -> Dataset | None:
        """The data set's rows in memory; None for a table opened in an engine (a data
        set that cannot be read raises its :class:`~privcore.errors.PrivcoreError`)."""
        return self.wb.dataset(self.key) if self.kind == MEMORY else None

    def schema(self) -> Schema | None:
        """The confirmed roles, else those under edit."""
        return self.wb.schema(self.key) or self.wb.draft(self.key)

    def require_memory(self, title: str) -> None:
        """On a page (titled by the key ``title``) that reads the rows in memory: when
        this source holds none, say so — the Privacy level, Attack and Report pages
        give a table opened in an engine its figures and its report — and stop."""
        if self.kind != MEMORY:
            message = t("lt.in_memory_only", page=t_plain(title), name=self.key)
            st.info(message, icon=":material/info:")
            st.stop()


def active_source(wb: Workbench) -> Source:
    """The session's active data set as a :class:`Source`."""
    key = wb.active
    return Source(wb, key, ENGINE if key in wb.tables else MEMORY)


def page_view(
    wb: Workbench,
    views: Mapping[str, Callable[[Workbench], Any]],
    *,
    title: str | None = None,
    lead: str | None = None,
) -> Source:
    """The active source of a page; when ``views`` holds the page's view of its kind
    (a page's view of a table opened in an engine), the page's ``title`` and ``lead``
    (keys, when the page has not drawn them already) and that view are drawn, and the
    page stops there. Otherwise the page goes on with its own view (of a table in
    memory)."""
    source = active_source(wb)
    view = views.get(source.kind)
    if view is not None:
        if title is not None:
            st.title(t(title))
        if lead is not None:
            st.write(t(lead))
        view(wb)
        st.stop()
    return source
