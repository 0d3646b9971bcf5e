"""The results a page keeps per release, with the parameters they were computed for,
and what a page says above a result (its release, its parameters, "out of date")."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import streamlit as st

from privcore.errors import PrivcoreError
from privcore.runs import Outcome
from privcore.words import labels as words
from privcore.words.labels import param_label, param_value
from ui.common.errors import show_error
from ui.common.i18n import current_language, error_text, escape_md, t, t_plain
from ui.common.state import ShelfRelease

RESULTS = "_results"


def keep_result(page: str, entry: ShelfRelease, params: Mapping[str, Any], value: Any) -> None:
    """Keep ``value`` as ``page``'s result for ``entry``, computed with ``params``."""
    st.session_state.setdefault(RESULTS, {})[(page, entry.id)] = {
        "params": dict(params),
        "name": entry.name,
        "fingerprint": entry.fingerprint,
        "value": value,
    }


def result_of(page: str, entry: ShelfRelease | None) -> dict[str, Any] | None:
    """``page``'s result for ``entry`` (never another release's), or None."""
    if entry is None:
        return None
    stored = st.session_state.get(RESULTS, {}).get((page, entry.id))
    if stored is None or stored["fingerprint"] != entry.fingerprint:
        return None
    return stored


def latest_result(
    page: str,
    entry: ShelfRelease,
    params: Mapping[str, Any],
    outcome: Outcome | None,
    *,
    shown: tuple[str, ...] | None = None,
) -> dict[str, Any] | None:
    """Keep ``outcome`` (a run made on this run of the page, None: none) as ``page``'s
    result for ``entry`` computed with ``params``; then the result kept for ``entry``
    under its header (:func:`result_header` naming its run, ``shown``: the parameters
    named). Returns that result (None: none yet)."""
    if outcome is not None:
        keep_result(page, entry, params, outcome)
    stored = result_of(page, entry)
    if stored is not None:
        result_header(stored, entry, params, run_id=stored["value"].run_id, shown=shown)
    return stored


def changes(before: Mapping[str, Any], now: Mapping[str, Any]) -> list[str]:
    """The parameters that differ, as "name: before → now", in the page's language."""
    lang = current_language()
    out = []
    for name in dict.fromkeys([*before, *now]):
        old, new = before.get(name), now.get(name)
        if old != new:
            out.append(
                f"{param_label(name, lang)}: {param_value(name, old, lang)} → "
                f"{param_value(name, new, lang)}"
            )
    return out


def describe_params(params: Mapping[str, Any], names: tuple[str, ...] | None = None) -> str:
    """The parameters of a result in the page's language, the ones set, in order."""
    return words.describe_params(params, current_language(), names)


def result_header(
    stored: Mapping[str, Any],
    entry: ShelfRelease | None,
    params: Mapping[str, Any],
    *,
    run_id: int | None = None,
    shown: tuple[str, ...] | None = None,
) -> bool:
    """Name the release (when the result is about one) and the parameters a result was
    computed for; say "out of date" when the release was renamed or the parameters
    changed since. Returns whether the result is current."""
    st.caption(
        t(
            "ws.computed_for" if entry is not None else "ws.computed_with",
            name=stored.get("name") or "",
            params=describe_params(stored["params"], shown) or "—",
            run=f"#{run_id}" if run_id is not None else "—",
        )
    )
    differ = changes(stored["params"], params)
    if entry is not None and stored["name"] != entry.name:
        differ.insert(0, f"{t_plain('ws.name')}: {stored['name']} → {entry.name}")
    if differ:
        st.warning(t("ws.out_of_date", changes="; ".join(differ)), icon=":material/update:")
    return not differ


def history_note(outcome: Outcome) -> None:
    """Say so when the history could not keep a run (the result is shown all the same)."""
    exc = outcome.history_error
    if exc is None:
        return
    if exc.code == "history.deferred":
        st.info(
            t("history.deferred_note") + " " + escape_md(error_text(exc)),
            icon=":material/schedule:",
        )
    else:
        st.warning(
            t("history.unavailable_note") + " " + escape_md(error_text(exc)),
            icon=":material/warning:",
        )


def guard_run(call: Callable[[], Outcome]) -> Outcome | None:
    """``call()`` (a :func:`privcore.runs.run`); a user's error is shown and None comes
    back (the run recorded it already)."""
    try:
        outcome = call()
    except PrivcoreError as exc:
        show_error(exc)
        return None
    history_note(outcome)
    return outcome
