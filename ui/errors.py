"""One way to show errors: privcore errors as their message, anything else as a short
apology with a reference; the traceback goes to the server log only."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import streamlit as st

from privcore.errors import PrivcoreError
from ui.components import escape_md
from ui.i18n import error_text, t

log = logging.getLogger("privacy_workbench")


def show_error(exc: BaseException) -> None:
    """Render ``exc`` for the visitor (never a traceback)."""
    if isinstance(exc, PrivcoreError):
        st.error(escape_md(error_text(exc)), icon=":material/error:")
        return
    ref = uuid.uuid4().hex[:8]
    log.error("unexpected error ref=%s", ref, exc_info=exc)
    st.error(t("error.unexpected", ref=ref), icon=":material/error:")


@contextmanager
def guard() -> Iterator[None]:
    """``with guard(): ...`` shows any error of the block and lets the page go on."""
    try:
        yield
    except Exception as exc:  # noqa: BLE001 - shown to the user, logged when unexpected
        show_error(exc)
