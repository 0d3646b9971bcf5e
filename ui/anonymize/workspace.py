"""The workspace of the Anonymize page: its controls and the release they make, side by
side, rerun on their own (a fragment) when a control changes, and the shelf below them.

A run starts only when asked: the button, a verdict's action, or — once a release is
shown, with live update on, for an algorithm expected to take about a second at most on
this table — a control the user changed. Before the first release a changed control runs
nothing; after it, a change that is not run live leaves the release shown, marked as
made with other parameters. Coming back to the page runs nothing: controls and release
are kept. A release made for a verdict's "Try …" action becomes the one the Privacy
level, Attack and Report pages assess.
"""

from __future__ import annotations

import json
from typing import Any

import streamlit as st

from privcore.data import Dataset, Schema
from privcore.errors import PrivcoreError
from ui.anonymize import duration
from ui.anonymize.controls import controls
from ui.anonymize.live import CACHED, make_release, settle_live
from ui.anonymize.release_view import render
from ui.common.errors import show_error
from ui.common.heavy import cancel_pressed, heavy_button
from ui.common.hierarchy_suggestions import offer_suggested
from ui.common.i18n import t
from ui.common.layout import controls_and_results
from ui.common.state import ShelfRelease, Workbench, keep, session_owner
from ui.common.workspace.actions import DEFAULTS, REQUESTED, REVIEW
from ui.common.workspace.names import algorithm_title
from ui.common.workspace.results import changes
from ui.common.workspace.shelf import describe_release, shelf_view

CANCELLED = "an_cancelled"
FAILED = "an_failed"  # per data set: (the controls, the error) of the last run refused
SEEN = "an_seen"  # per data set: the controls as the page's previous run saw them
VALUES = "an_values"


@st.fragment
def workspace(wb: Workbench, scope: str, dataset: Dataset, schema: Schema) -> None:
    """Controls and results of data set ``scope``, rerun on their own when a control
    changes (see the module docstring)."""
    left, right = controls_and_results()
    # below the controls and results, filled last (also after an early return): a
    # release made by this run is counted and listed at once
    shelf = st.container()
    try:
        with left:
            values, live, quick, clicked, cancel = _controls(dataset, schema, scope)
        # A verdict's action (Privacy level, Report) set the controls and asked for a run.
        requested = st.session_state.pop(REQUESTED, False)
        seen = st.session_state.setdefault(SEEN, {})
        changed = scope in seen and seen[scope] != values
        seen[scope] = values
        current = wb.find_release(wb.made.get(scope))
        signature = json.dumps({"data": scope, **values}, sort_keys=True)
        with right:
            # the progress bar's place, drawn on every run: the release's tabs below keep
            # their place, and the tab open, on the run after the one that made it
            bar_slot = st.empty()
            if cancel:
                st.session_state[CANCELLED] = signature
            # live updates follow a release on screen, never start the first one
            wanted = clicked or requested or (live and quick and changed and current is not None)
            if st.session_state.get(CANCELLED) == signature and not (clicked or requested):
                st.warning(t("an.cancelled"), icon=":material/cancel:")
                wanted = False
            asked = (wanted, clicked or requested, requested, bar_slot)
            current = _run(wb, scope, dataset, schema, values, signature, current, asked)
            refused = st.session_state[FAILED].get(scope)
            if refused is not None and refused[0] == signature:
                show_error(refused[1])
                offer_suggested(wb, scope, dataset, refused[1])
                return
            if current is None:
                st.info(
                    t("an.press_run") if not live or not quick else t("an.press_run_live"),
                    icon=":material/play_arrow:",
                )
                return
            _release(wb, scope, dataset, values, current)
    finally:
        with shelf, st.expander(t("ws.shelf_title", n=len(wb.releases(scope)))):
            shelf_view(wb, key="an_shelf")


def _controls(
    dataset: Dataset, schema: Schema, scope: str
) -> tuple[dict[str, Any], bool, bool, bool, bool]:
    """The controls, the live-update toggle with what it will do, Run and Cancel.
    Returns the controls' values, whether live update is on, whether the algorithm is
    quick enough to follow it, and whether Run and Cancel were pressed."""
    values = controls(schema, scope=scope)
    st.session_state[VALUES] = values
    seconds, measured = duration.estimate(dataset, schema, values)
    quick = duration.is_quick(seconds)
    live = st.toggle(t("an.live"), value=True, help=t("an.live_help"), key=keep("an_live"))
    st.caption(
        t(
            "an.live_quick" if quick else "an.live_slow",
            algorithm=algorithm_title(values["algorithm"]),
            seconds=f"{seconds:.1f}",
            how=t("an.time_measured") if measured else t("an.time_estimated"),
        )
    )
    clicked = heavy_button(t("an.run"), key="an_run", cancel_key="an_cancel")
    cancel = cancel_pressed("an_cancel")
    return values, live, quick, clicked, cancel


def _run(
    wb: Workbench,
    scope: str,
    dataset: Dataset,
    schema: Schema,
    values: dict[str, Any],
    signature: str,
    current: ShelfRelease | None,
    asked: tuple[Any, Any, Any, Any],
) -> ShelfRelease | None:
    """Make the release when it is ``wanted`` (``asked``: wanted, asked by the button or a
    verdict's action, that action, the progress bar's slot); a run that is not a live
    step settles the parameters (:func:`ui.anonymize.live.settle_live`). A refused run
    is kept with the controls' ``signature`` (shown while they stand). Returns the
    release on screen."""
    wanted, pressed, requested, bar_slot = asked
    # a live step, or else the parameters have settled (see live.record_live)
    live_step = wanted and not pressed
    if not live_step:
        settle_live(scope, session_owner())
    failed = st.session_state.setdefault(FAILED, {})
    if not wanted:
        return current
    st.session_state.pop(CANCELLED, None)
    failed.pop(scope, None)
    try:
        current = make_release(wb, scope, dataset, schema, values, live=live_step, slot=bar_slot)
    except PrivcoreError as exc:  # recorded by the run; shown while the controls stand
        failed[scope] = (signature, exc)
    else:
        if requested == REVIEW:  # "Try …": what the assessing pages assess
            wb.under_review[scope] = current.id
    return current


def _rename(wb: Workbench, release_id: str, key: str) -> None:
    wb.rename_release(release_id, st.session_state[key])


def _release(
    wb: Workbench, scope: str, dataset: Dataset, values: dict[str, Any], current: ShelfRelease
) -> None:
    """The release on screen: its name (to edit), where it comes from, whether it was
    made with other parameters than the controls', whether it is the one under review,
    and the release itself."""
    name_key = "an_name"
    if st.session_state.get(name_key) != current.name:  # renamed on the shelf
        st.session_state[name_key] = current.name
    st.text_input(
        t("ws.name"),
        key=name_key,
        on_change=_rename,
        args=(wb, current.id, name_key),
        help=t("ws.name_help"),
    )
    st.caption(describe_release(current))
    if current.id in st.session_state.get(CACHED, {}):
        served = st.session_state[CACHED][current.id]
        st.caption(t("an.served_from_cache", seconds=f"{served:.2f}"))
    wanted_request = {**DEFAULTS.to_dict(), **values}
    differ = changes(
        {k: v for k, v in (current.request or {}).items() if k in wanted_request},
        {k: v for k, v in wanted_request.items() if k in (current.request or {})},
    )
    if differ:
        st.info(t("an.stale", changes="; ".join(differ)), icon=":material/update:")
    reviewed = wb.reviewed(scope)
    if reviewed is not None and reviewed.id != current.id:
        c1, c2 = st.columns([3, 1])
        c1.caption(t("an.under_review", name=reviewed.name))
        if c2.button(t("an.review_this"), key=f"an_review_{current.id}"):
            wb.under_review[scope] = current.id
            st.rerun(scope="fragment")
    else:
        st.caption(t("an.is_under_review"))
    render(current, dataset.frame)
