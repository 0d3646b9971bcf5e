"""One way to show errors: privcore errors as their message; anything else as a short
apology with a run id — the error is recorded in the history (kind "error") and the
traceback goes to the server log only, never to the visitor."""

from __future__ import annotations

import logging
import traceback
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import streamlit as st

from privcore import history
from privcore.errors import PrivcoreError
from ui.common.components import escape_md
from ui.common.i18n import error_text, t
from ui.common.state import session_owner

log = logging.getLogger("privacy_workbench")


def _reference(exc: BaseException) -> str:
    """A run id for an unexpected error: its history row, or a random reference when
    the history itself is unavailable."""
    try:
        run_id = history.record_run(
            "error",
            params={"page": st.session_state.get("_page", "")},
            results={},
            status="error",
            # the type only: a message may quote the visitor's data (the log has it all)
            error=type(exc).__name__,
            owner=session_owner(),
        )
        return f"#{run_id}"
    except Exception:  # noqa: BLE001 - the history may be the problem; never fail here
        return uuid.uuid4().hex[:8]


def show_error(exc: BaseException) -> None:
    """Render ``exc`` for the visitor (never a traceback)."""
    if isinstance(exc, PrivcoreError):
        st.error(escape_md(error_text(exc)), icon=":material/error:")
        return
    ref = _reference(exc)
    log.error(
        "unexpected error, run %s\n%s",
        ref,
        "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)),
    )
    st.error(t("error.unexpected", ref=ref), icon=":material/error:")


@contextmanager
def guard() -> Iterator[None]:
    """``with guard(): ...`` shows any error of the block and lets the page go on."""
    try:
        yield
    except Exception as exc:  # noqa: BLE001 - shown to the user, logged if unexpected
        show_error(exc)
