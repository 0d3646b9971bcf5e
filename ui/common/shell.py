"""Pages run inside app.py (page config, sidebar, navigation).

On a freshly started server, Streamlit's older pages-folder mode can serve the very
first request for a deep link (``/attack``, ``/learn?lesson=3``) by running that page
script on its own, without app.py. :func:`require_app` notices, switches that mode off
for the process, and reruns — this time through app.py, which resolves the same URL.

:func:`dataset_status` is the sidebar's line on the active data set, drawn by app.py once
the page has run.

app.py imports this module before it draws the page's first element, so it keeps its
imports light: :mod:`ui.common.state` and :mod:`ui.common.errors` bring pandas and the
history with them, and are imported when the status is drawn. (On a process's first
element Streamlit inspects the call stack, which walks every module loaded so far.)
"""

from __future__ import annotations

import streamlit as st

from privcore.errors import PrivcoreError
from ui.common.i18n import t

VIA_APP = "_via_app"


def require_app() -> None:
    """Call first in every page script."""
    if st.session_state.get(VIA_APP):
        return
    from streamlit.runtime.pages_manager import PagesManager

    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()


def dataset_status(container) -> None:
    """The active data set's size and whether its roles are confirmed, in ``container``
    (the sidebar's place for it, filled after the page has run so that it shows what the
    page changed: an upload, a confirmed schema)."""
    from ui.common.errors import show_error
    from ui.common.state import workbench

    wb = workbench()
    with container:
        try:
            rows, columns = wb.size()
            st.caption(t("sidebar.dataset_size", rows=f"{rows:,}", columns=columns))
            st.caption(t("sidebar.schema_ok") if wb.schema() else t("sidebar.schema_missing"))
        except PrivcoreError as exc:
            show_error(exc)
