"""The sidebar's list of data sets, known without importing the session's state.

The session's state (:mod:`ui.common.state`) imports pandas and the data layer, most of a
process's first run. The select box of data sets is drawn before the page, so that its
place never moves; when no session of the process has imported the state yet, no session
holds data of its own either, and the list is the bundled samples, the first active.
The page's heading is then drawn before pandas is imported.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from ui.common.i18n import t_plain

#: The bundled samples in the order of :data:`privcore.data.SAMPLES` (a test holds the
#: two equal); the first is the data set a new session starts on.
SAMPLE_KEYS = ("adult", "hospital", "hospital_release")
DEFAULT_SAMPLE = SAMPLE_KEYS[0]


def data_menu() -> tuple[list[str], str, Callable[[str], str]]:
    """The session's data sets (keys), the active one and a function giving each its
    name in the page's language."""
    state = sys.modules.get("ui.common.state")
    if state is None:  # the process's first run: only the samples exist
        return list(SAMPLE_KEYS), DEFAULT_SAMPLE, lambda key: t_plain(f"sample.{key}")
    wb = state.workbench()
    keys = wb.data_keys()
    if wb.active not in keys:
        wb.active = keys[0]
    return keys, wb.active, wb.title
