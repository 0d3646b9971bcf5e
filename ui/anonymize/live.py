"""Runs of the Anonymize page: one anonymization recorded (:func:`make`), the release
the controls ask for put on the shelf (:func:`make_release`), and the live updates that
follow the controls — one history row per settled parameter set, not one per slider
step (:func:`record_live`)."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

from privcore import history
from privcore.data import Dataset, Schema
from privcore.errors import PrivcoreError
from privcore.runs import AnonymizeRequest, Inputs, Outcome
from ui.anonymize.duration import note_timing
from ui.common.heavy import new_request, run_heavy
from ui.common.shared import shared_run_inputs
from ui.common.state import ShelfRelease, Workbench, is_bundled, session_owner
from ui.common.workspace.names import algorithm_title
from ui.common.workspace.results import history_note
from ui.common.workspace.shelf import note_dropped, shelve_made


def make(
    dataset: Dataset,
    schema: Schema,
    request: AnonymizeRequest,
    *,
    label: str,
    page: str = "anonymize",
    slot: Any = None,
) -> Outcome:
    """Run one anonymization through :func:`privcore.runs.run` (recorded in the
    history: ok, error or cancelled), with a progress bar. The schema is restricted to
    the request's QIs and SAs (an empty choice is refused by the library, and recorded).
    A release of a bundled sample is computed once per process for all visitors
    (the inputs' ``share_key``, :mod:`ui.common.shared`); each visitor's run is
    recorded all the same — a run served from that cache with ``cached: true`` in its
    results and without the release's compute time (``seconds``), which it did not spend
    (its parameters are a computed run's).
    A click on Cancel reruns the page, which stops the algorithm at its next progress
    report. ``slot``: where the bar goes (see :func:`ui.common.progress.progress_bar`)."""
    inputs = Inputs(original=dataset, schema=schema.restricted(request.qi, request.sa))
    inputs = shared_run_inputs(request, inputs, public=is_bundled(dataset))
    return run_heavy(request, inputs, label=label, page=page, slot=slot)


def served_from_cache(outcome: Outcome) -> bool:
    """Was this run's result taken from the process-wide cache of bundled samples?"""
    return bool(outcome.summary.get("cached"))


def make_release(
    wb: Workbench,
    scope: str,
    dataset: Dataset,
    schema: Schema,
    values: Mapping[str, Any],
    *,
    live: bool,
    slot: Any = None,
) -> ShelfRelease:
    """The release these controls ask for: on the shelf already (the same request made
    before), else made now (recorded) and put on the shelf. Becomes the page's. A
    ``live`` run (a control changed, live update on) that continues a burst of them
    replaces the burst's previous step in the history and on the shelf
    (:func:`record_live`)."""
    request = new_request(AnonymizeRequest, values, Inputs(original=dataset), page="anonymize")
    made = next(
        (r for r in wb.releases(scope) if r.source == "made" and r.request == request.to_dict()),
        None,
    )
    if made is None:
        outcome = make(
            dataset, schema, request, label=algorithm_title(request.algorithm), slot=slot
        )
        history_note(outcome)
        cached = served_from_cache(outcome)
        # the time this algorithm takes here: the release's own, not a cache lookup's
        seconds = outcome.result.timings.get("total", outcome.seconds)
        note_timing(dataset, values, seconds if cached else outcome.seconds)
        made, dropped = shelve_made(wb, scope, outcome)
        if cached:
            st.session_state.setdefault(CACHED, {})[made.id] = outcome.seconds
        if live:
            dropped += record_live(wb, scope, outcome, made)
        note_dropped(dropped)
    wb.made[scope] = made.id
    return made


#: A live run (a control changed, live update on) this soon after the previous live run
#: finished, with nothing else done in between and the same algorithm and columns,
#: continues its burst: the history keeps one row per settled parameter set — the last
#: of a burst — not one per slider step. Another algorithm or other columns is another
#: release: it starts a burst of its own and the previous one stays on the shelf.
BURST_SECONDS = 10.0


LIVE = "an_live_runs"  # per data set: {"burst": _Burst | None, "settled": newest run id}


CACHED = "an_cached"  # release id → seconds of the run that took it from the cache


@dataclass
class _Burst:
    """Live runs of one burst: history ids and the shelf releases they made, oldest
    first; when the last one finished (monotonic)."""

    runs: list[int] = field(default_factory=list)
    releases: list[str] = field(default_factory=list)
    at: float = 0.0
    what: tuple = ()  # the algorithm and the columns the burst's steps share


def _burst_kind(made: ShelfRelease) -> tuple:
    """What the steps of one burst share: the algorithm and the columns it was run on."""
    request = made.request or {}
    return (
        request.get("algorithm"),
        tuple(request.get("qi") or ()),
        tuple(request.get("sa") or ()),
    )


def _newest_run(owner: str) -> int:
    """The id of this session's newest run in the history (0: none, or no history)."""
    try:
        newest = history.list_runs(owner=owner, limit=1)
    except PrivcoreError:
        return 0
    return int(newest[0]["id"]) if newest else 0


def _live(scope: str) -> dict[str, Any]:
    return st.session_state.setdefault(LIVE, {}).setdefault(scope, {"burst": None, "settled": 0})


def settle_live(scope: str, owner: str) -> None:
    """The parameters have settled: a run of the workspace that is no live update (the
    page opened, Run or Cancel pressed, a verdict's action, a release renamed) ends the
    burst — its last run stays — and marks the history as it stands now: rows written
    until then (an explicit Cancel included) are never dropped as intermediate steps."""
    state = _live(scope)
    state["burst"] = None
    state["settled"] = _newest_run(owner)


def record_live(wb: Workbench, scope: str, outcome: Outcome, made: ShelfRelease) -> list[str]:
    """A live run finished and put ``made`` on the shelf. When it continues a burst
    (within :data:`BURST_SECONDS` of the previous live run), the burst's earlier runs
    are intermediate steps: their history rows, the runs cancelled by the next step
    since the parameters last settled, and their releases on the shelf are dropped
    (renaming or reviewing a release reruns the page without a live step, which settles
    it first). Returns the names dropped from the shelf."""
    owner = session_owner()
    state = _live(scope)
    burst: _Burst | None = state["burst"]
    now = time.monotonic()
    dropped: list[str] = []
    superseded: list[int] = []
    if burst is not None and now - burst.at <= BURST_SECONDS and burst.what == _burst_kind(made):
        for release_id, run_id in zip(burst.releases, burst.runs, strict=True):
            entry = wb.find_release(release_id)
            if entry is made:
                continue
            if entry is not None:
                wb.remove_release(release_id)
                dropped.append(entry.name)
            superseded.append(run_id)
    else:  # a pause: the previous burst's last run has settled
        if burst is not None:
            state["settled"] = max([state["settled"], *burst.runs])
        state["burst"] = burst = _Burst()
    superseded += _interrupted_runs(owner, after=state["settled"], before=outcome.run_id)
    for run_id in superseded:
        try:
            history.delete_run(run_id, owner=owner)
        except PrivcoreError:
            break  # the history is unavailable now: the rows stay
    if outcome.run_id is not None:
        burst.runs = [outcome.run_id]
        burst.releases = [made.id]
    burst.at = now
    burst.what = _burst_kind(made)
    return dropped


def _interrupted_runs(owner: str, *, after: int, before: int | None) -> list[int]:
    """Anonymize runs of this page that a later live step interrupted (recorded as
    cancelled) since the parameters last settled (ids between ``after`` and
    ``before``)."""
    if before is None:
        return []
    try:
        runs = history.list_runs(kind="anonymize", owner=owner, limit=200)
    except PrivcoreError:
        return []
    return [
        int(r["id"])
        for r in runs
        if after < int(r["id"]) < before and r["status"] == "cancelled" and r["page"] == "anonymize"
    ]
