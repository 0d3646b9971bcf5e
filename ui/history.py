"""Recording runs from pages: a history failure warns once and never stops the page."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import streamlit as st

from privcore import history
from privcore.data import Dataset
from privcore.errors import HistoryError
from ui.components import escape_md
from ui.i18n import error_text, t
from ui.state import session_owner


def record(
    kind: str,
    *,
    params: Mapping[str, Any],
    results: Mapping[str, Any],
    dataset: Dataset | None,
    page: str,
    duration_s: float | None = None,
    status: str = "ok",
    error: str | None = None,
) -> int | None:
    """Write one history row; on a database problem show a warning and return None."""
    try:
        return history.record_run(
            kind,
            params=params,
            results=results,
            dataset=dataset.summary() if dataset is not None else None,
            page=page,
            duration_s=duration_s,
            status=status,
            error=error,
            owner=session_owner(),
        )
    except HistoryError as exc:
        if exc.code == "history.deferred":  # kept aside, added once the file is free
            st.info(
                t("history.deferred_note") + " " + escape_md(error_text(exc)),
                icon=":material/schedule:",
            )
        else:
            st.warning(
                t("history.unavailable_note") + " " + escape_md(error_text(exc)),
                icon=":material/warning:",
            )
        return None
