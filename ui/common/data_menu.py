"""The sidebar's list of data sets, known without importing the session's state.

The session's state (:mod:`ui.common.state`) imports pandas and the data layer, most of a
process's first run. The select box of data sets is drawn before the page, so that its
place never moves; a session that holds no workbench yet holds no data of its own
either, and its list is the bundled samples, the first active, so the page's heading is
drawn before pandas is imported.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from ui.common.i18n import t_plain

#: The bundled samples in the order of :data:`privcore.data.SAMPLES` (a test holds the
#: two equal); the first is the data set a new session starts on.
SAMPLE_KEYS = ("adult", "hospital", "hospital_release")
DEFAULT_SAMPLE = SAMPLE_KEYS[0]
#: Where a session keeps its :class:`~ui.common.state.Workbench`.
STATE_KEY = "workbench"


def data_menu() -> tuple[list[str], str, Callable[[str], str]]:
    """The session's data sets (keys), the active one and a function giving each its
    name in the page's language."""
    if STATE_KEY not in st.session_state:  # a new session: only the samples exist
        return list(SAMPLE_KEYS), DEFAULT_SAMPLE, lambda key: t_plain(f"sample.{key}")
    wb = st.session_state[STATE_KEY]  # the session's Workbench (ui.common.state)
    keys = wb.data_keys()
    if wb.active not in keys:
        wb.active = keys[0]
    return keys, wb.active, wb.title
