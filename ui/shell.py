"""Pages run inside app.py (page config, sidebar, navigation).

On a freshly started server, Streamlit's older pages-folder mode can serve the very
first request for a deep link (``/attack``, ``/learn?lesson=3``) by running that page
script on its own, without app.py. :func:`require_app` notices, switches that mode off
for the process, and reruns — this time through app.py, which resolves the same URL.
"""

from __future__ import annotations

import streamlit as st

VIA_APP = "_via_app"


def require_app() -> None:
    """Call first in every page script."""
    if st.session_state.get(VIA_APP):
        return
    from streamlit.runtime.pages_manager import PagesManager

    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()
