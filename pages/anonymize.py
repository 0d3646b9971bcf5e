"""Anonymize: choose an algorithm and its models; every release made joins the shelf."""

import json

import streamlit as st

from privcore.errors import PrivcoreError
from privcore.runs import AnonymizeRequest, Inputs
from ui import anonymize_view as view
from ui import hierarchy_editor, layout, replay_view
from ui.errors import show_error
from ui.heavy import cancel_pressed, heavy_button, new_request
from ui.i18n import t
from ui.shell import require_app
from ui.state import ShelfRelease, keep, session_owner, workbench
from ui.workspace import (
    REQUESTED,
    REVIEW,
    algorithm_title,
    changes,
    describe_release,
    history_note,
    note_dropped,
    shelf_view,
    shelve_made,
)

require_app()

CANCELLED = "an_cancelled"
FAILED = "an_failed"  # per data set: (the controls, the error) of the last run refused
SEEN = "an_seen"  # per data set: the controls as the page's previous run saw them
VALUES = "an_values"

st.title(t("an.title"))
st.write(t("an.lead"))
wb = workbench()
schema = wb.schema()
if schema is None or not schema.quasi_identifiers or not schema.sensitive:
    st.warning(t("an.schema_first"), icon=":material/warning:")
    st.page_link("pages/data_roles.py", label=t("nav.data"), icon=":material/table_view:")
    st.stop()
scope = wb.active
if wb.is_table(scope):  # a table opened in an engine: its release is written to a file
    view.table_workspace(wb, scope, schema)
    st.stop()
dataset = wb.dataset()


def _rename(release_id: str, key: str) -> None:
    wb.rename_release(release_id, st.session_state[key])


def make_release(values: dict, *, live: bool, slot=None) -> ShelfRelease:
    """The release these controls ask for: on the shelf already (the same request made
    before), else made now (recorded) and put on the shelf. Becomes the page's. A
    ``live`` run (a control changed, live update on) that continues a burst of them
    replaces the burst's previous step in the history and on the shelf
    (:func:`ui.anonymize_view.record_live`)."""
    request = new_request(AnonymizeRequest, values, Inputs(original=dataset), page="anonymize")
    made = next(
        (r for r in wb.releases(scope) if r.source == "made" and r.request == request.to_dict()),
        None,
    )
    if made is None:
        outcome = view.make(
            dataset, schema, request, label=algorithm_title(request.algorithm), slot=slot
        )
        history_note(outcome)
        cached = view.served_from_cache(outcome)
        # the time this algorithm takes here: the release's own, not a cache lookup's
        seconds = outcome.result.timings.get("total", outcome.seconds)
        view.note_timing(dataset, values, seconds if cached else outcome.seconds)
        made, dropped = shelve_made(wb, scope, outcome)
        if cached:
            st.session_state.setdefault(view.CACHED, {})[made.id] = outcome.seconds
        if live:
            dropped += view.record_live(wb, scope, outcome, made)
        note_dropped(dropped)
    wb.made[scope] = made.id
    return made


@st.fragment
def workspace() -> None:
    """Controls and results rerun on their own when a control changes. A run starts
    only when asked: the button, a verdict's action, or — once a release is shown, with
    live update on, for an algorithm expected to take about a second at most on this
    table — a control the user changed. Before the first release a changed control runs
    nothing; after it, a change that is not run live leaves the release shown, marked
    as made with other parameters. Coming back to the page runs nothing: controls and
    release are kept. A release made for a verdict's "Try …" action becomes the one
    the Privacy level, Attack and Report pages assess."""
    left, right = layout.controls_and_results()
    # below the controls and results, filled last (also after an early return): a
    # release made by this run is counted and listed at once
    shelf = st.container()
    try:
        with left:
            values = view.controls(schema, scope=scope)
            st.session_state[VALUES] = values
            seconds, measured = view.estimate(dataset, schema, values)
            quick = seconds <= view.LIVE_LIMIT_S
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
            # a live step, or else the parameters have settled (see view.record_live)
            live_step = wanted and not (clicked or requested)
            if not live_step:
                view.settle_live(scope, session_owner())
            failed = st.session_state.setdefault(FAILED, {})
            if wanted:
                st.session_state.pop(CANCELLED, None)
                failed.pop(scope, None)
                try:
                    current = make_release(values, live=live_step, slot=bar_slot)
                except PrivcoreError as exc:  # recorded by the run; shown while the controls stand
                    failed[scope] = (signature, exc)
                else:
                    if requested == REVIEW:  # "Try …": what the assessing pages assess
                        wb.under_review[scope] = current.id
            refused = failed.get(scope)
            if refused is not None and refused[0] == signature:
                show_error(refused[1])
                hierarchy_editor.offer_suggested(wb, scope, dataset, refused[1])
                return
            if current is None:
                st.info(
                    t("an.press_run") if not live or not quick else t("an.press_run_live"),
                    icon=":material/play_arrow:",
                )
                return
            name_key = "an_name"
            if st.session_state.get(name_key) != current.name:  # renamed on the shelf
                st.session_state[name_key] = current.name
            st.text_input(
                t("ws.name"),
                key=name_key,
                on_change=_rename,
                args=(current.id, name_key),
                help=t("ws.name_help"),
            )
            st.caption(describe_release(current))
            if current.id in st.session_state.get(view.CACHED, {}):
                served = st.session_state[view.CACHED][current.id]
                st.caption(t("an.served_from_cache", seconds=f"{served:.2f}"))
            wanted_request = {**view.DEFAULTS.to_dict(), **values}
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
            view.render(current, dataset.frame)
    finally:
        with shelf, st.expander(t("ws.shelf_title", n=len(wb.releases(scope)))):
            shelf_view(wb, key="an_shelf")


workspace()

with st.expander(t("an.compare_title")):
    st.caption(t("an.compare_help"))
    view.compare(dataset, schema, st.session_state.get(VALUES) or view.DEFAULTS.to_dict())

with st.expander(t("an.replay_title")):
    replay_view.replay(wb, dataset)
