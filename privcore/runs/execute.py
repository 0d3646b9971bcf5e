"""One path from a request to a recorded result: :func:`run`.

``run(request, inputs, *, progress=None, owner=None, page="cli", record=True)``
builds the privacy models of the request, calls the library, and writes the run to the
history with one policy, whatever front end asked for it:

- success: ``status`` ok, ``params`` = the request's :meth:`~Request.to_dict` plus the
  names of the inputs (file names, never their rows), ``results`` = the summary the
  result keeps for the history, the data set's fingerprint;
- a user error (:class:`~privcore.errors.PrivcoreError`): ``status`` error with the
  error's **code** and its non-textual parameters (numbers, column names) — never its
  message, which may quote the data — then the error is raised again;
- cancelled (:class:`~privcore.errors.CancelledError`, Ctrl-C, or a front end's stop
  signal, which is not an ``Exception``): ``status`` cancelled, then re-raised;
- anything else is a bug: not recorded as a run of the user's (the front end reports
  it), and re-raised.

A history that cannot be written never costs the result: :attr:`Outcome.history_error`
says why no run id came back (``history.deferred``: it was kept aside and will be added).
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import datetime as dt
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from privcore.core.jsonsafe import plain
from privcore.core.progress import Progress
from privcore.errors import CancelledError, HistoryError, ParameterError, PrivcoreError
from privcore.runs.accountant import Accountant
from privcore.runs.inputs import Inputs
from privcore.runs.requests import (
    AuditRequest,
    DpAuditRequest,
    Request,
)
from privcore.runs.runners import RUNNERS

__all__ = ["Inputs", "Outcome", "SharedResults", "error_record", "make_request", "run"]

#: The cache of results shared between sessions a front end gives :func:`run`:
#: ``shared(key, work, progress)`` is ``work()``'s ``(result, summary, ...)``, computed
#: once per ``key`` (a result served from the cache says so in its summary).
SharedResults = Callable[[str, Callable[[], tuple], Progress | None], tuple]

#: Error parameters kept in the history when they are text: names, not values.
_NAMED_PARAMETERS = frozenset(
    {"column", "columns", "algorithm", "model", "mechanism", "option", "kind", "format", "key"}
)


@dataclass(frozen=True, eq=False)
class Outcome:
    """A run's result, the summary the history kept, its run id (``None`` when not
    recorded), why the history could not keep it, its duration, and the inputs it read
    (what its reproduction in Python writes out: :mod:`privcore.runs.reproduction`)."""

    request: Request
    result: Any
    summary: Mapping[str, Any]
    run_id: int | None
    history_error: HistoryError | None
    seconds: float
    inputs: Inputs | None = None


def error_record(exc: PrivcoreError) -> dict[str, Any]:
    """What the history keeps of a user error: its code and the parameters that are
    numbers, flags or names of columns and options — not values of the data."""
    kept = {}
    for name, value in exc.params.items():
        if isinstance(value, (bool, int, float)) or value is None or name in _NAMED_PARAMETERS:
            kept[name] = value
    return {"code": exc.code, "params": plain(kept)}


def compute(
    request: Request,
    inputs: Inputs,
    progress: Progress | None = None,
    *,
    worker: bool | None = False,
    shared: SharedResults | None = None,
) -> tuple:
    """What :func:`run` computes, without recording it: ``(result, summary)``, plus the
    parts of a composite run. ``inputs.work`` (when given) replaces the library call.

    Every run takes this one path: its cost is estimated and checked first, before any
    work (:func:`privcore.runs.costs.check`: a run above ``PRIVCORE_MAX_RUN_MB`` is
    refused with words that say what to lower); a heavy run then holds one of the
    process's heavy-work slots (``PRIVCORE_MAX_HEAVY_JOBS``) while it computes — a result
    shared between sessions (``shared``, below) takes one only when it is computed, not
    when it is served from the cache.

    ``shared``: the cache of results shared between the sessions of a server (the front
    end's: :func:`ui.common.shared.serve`). A run whose inputs carry a ``share_key`` (the
    result is the same for every session that asks with that key) is served from it:
    computed once, by the first session that asks, the others waiting for its result.

    ``worker``: compute the library call in a worker process
    (:func:`privcore.core.workers.call_in_worker`), so that the calling thread waits
    without holding the interpreter, and a cancel kills the process and frees its memory
    at once; ``None``: when the setting asks for it (``PRIVCORE_WORKERS``) and the run is
    heavy or the table large enough (:func:`privcore.core.workers.wanted`). LDP audits
    (torch, their own memory plan and chunks), a kind of request that says so
    (``in_place``: a table an engine of this process holds) and a front end's own ``work``
    always run in place.
    """
    from privcore.core import workers
    from privcore.core.slots import heavy_slot
    from privcore.runs import costs

    cost = costs.check(request, inputs)
    global _started_total
    _started.append(request.kind)
    _started_total += 1
    if inputs.work is not None and getattr(inputs.work, "shared", False):
        return inputs.work(progress)  # the shared computation holds a slot if it computes
    if shared is not None and inputs.share_key is not None:
        alone = dataclasses.replace(inputs, share_key=None)
        return shared(  # the computation holds a slot if it computes, not when served
            inputs.share_key, lambda: compute(request, alone, progress, worker=worker), progress
        )
    with heavy_slot(progress, "work") if cost.heavy else contextlib.nullcontext():
        if inputs.work is not None:  # a front end's own work runs in place
            return inputs.work(progress)
        if inputs.on_engine:  # the engine's connection stays in this process
            from privcore.engines.failures import engine_errors

            with engine_errors(inputs.original.engine):
                return _engine_runner(request)(request, inputs, progress)
        runner = RUNNERS[type(request)]
        if worker is None:
            rows = None if inputs.original is None else inputs.original.n_rows
            in_place = isinstance(request, (AuditRequest, DpAuditRequest)) or getattr(
                request, "in_place", False
            )
            worker = not in_place and (workers.wanted(rows) or (cost.heavy and workers.enabled()))
        if worker:
            return workers.call_in_worker(_call_runner, runner, request, inputs, progress=progress)
        return runner(request, inputs, progress)


def _engine_runner(request: Request) -> Callable[..., tuple]:
    """The runner of ``request`` on tables an engine reads; a kind of run that needs
    the rows in memory is refused in words."""
    from privcore.runs.engine_runners import ENGINE_RUNNERS

    runner = ENGINE_RUNNERS.get(type(request))
    if runner is None:
        raise ParameterError(
            f"A {request.kind} run reads the table's rows in memory: it cannot run on a "
            "table an engine reads. Load the table (or a sample of it) instead.",
            code="runs.needs_memory",
            kind=request.kind,
        )
    return runner


#: The kinds of the runs started in this process, newest last (at most a few hundred):
#: how a test checks that an action of a page went through :func:`compute`.
_started: collections.deque[str] = collections.deque(maxlen=256)


_started_total = 0


def started_runs(since: int | None = None) -> list[str]:
    """The kinds of the runs :func:`compute` started in this process, oldest first (the
    newest 256); ``since``: only those started after :func:`runs_started` said so."""
    kinds = list(_started)
    if since is None:
        return kinds
    newer = _started_total - since
    return kinds[len(kinds) - newer :] if newer > 0 else []


def runs_started() -> int:
    """How many runs :func:`compute` has started in this process."""
    return _started_total


def _call_runner(runner: Callable[..., tuple], request: Request, inputs: Inputs, *, progress):
    """A runner called with its progress by keyword (the worker's calling convention)."""
    return runner(request, inputs, progress)


# --------------------------------------------------------------------------- run


@dataclass(frozen=True)
class _Start:
    """When a run started: the moment (UTC) each of its history rows is recorded with —
    its parts' rows too, so that a run and its parts share one start and the history,
    newest first by start then by id, lists them in the order they were recorded — and
    the monotonic clock its duration is measured on."""

    at: dt.datetime
    clock: float

    @classmethod
    def now(cls) -> _Start:
        return cls(dt.datetime.now(dt.UTC), time.perf_counter())

    def seconds(self) -> float:
        return time.perf_counter() - self.clock


def _write(
    kind: str,
    params: Mapping[str, Any],
    results: Mapping[str, Any],
    status: str,
    error: str | None,
    inputs: Inputs,
    page: str,
    owner: str | None,
    started: _Start,
) -> tuple[int | None, HistoryError | None]:
    """One history row (the data set's fingerprint, never its rows): its run id, or why
    the history could not keep it. It starts when the run started and lasts until now."""
    from privcore import history  # only a run recorded needs the history's modules

    dataset = inputs.original or inputs.samples
    seconds = started.seconds()
    try:
        run_id = history.record_run(
            kind,
            params=params,
            results=results,
            dataset=None if dataset is None else dataset.summary(),
            page=page,
            started_at=started.at,
            finished_at=started.at + dt.timedelta(seconds=seconds),
            duration_s=seconds,
            status=status,
            error=error,
            owner=owner,
        )
        return run_id, None
    except HistoryError as exc:
        return None, exc


def make_request(
    cls: type[Request],
    values: Mapping[str, Any],
    inputs: Inputs | None = None,
    *,
    owner: str | None = None,
    page: str = "cli",
    record: bool = True,
) -> Request:
    """``cls(**values)``: the request a front end's values ask for. A value it refuses
    (a :class:`~privcore.errors.PrivcoreError`, e.g. ε = -1) is a run that failed before
    it started: recorded with the policy of :func:`run` (status error, the error's code
    and parameters; ``params`` the values as given, plus the inputs' names), then raised
    again."""
    started = _Start.now()
    try:
        return cls(**values)
    except PrivcoreError as exc:
        if record:
            inputs = inputs or Inputs()
            details = error_record(exc)
            params = {**plain(dict(values)), **inputs.describe()}
            _write(
                cls.kind,
                params,
                {"error": details},
                "error",
                details["code"],
                inputs,
                page,
                owner,
                started,
            )
        raise


def run(
    request: Request,
    inputs: Inputs | None = None,
    *,
    progress: Progress | None = None,
    owner: str | None = None,
    page: str = "cli",
    record: bool = True,
    worker: bool | None = None,
    budget: Accountant | None = None,
    budget_label: str | None = None,
    shared: SharedResults | None = None,
) -> Outcome:
    """Execute ``request`` on ``inputs`` and record it (see the module docstring).

    ``page`` names the front end in the history ("cli", or the page); ``owner`` is the
    visitor's opaque token on a hosted demo; ``record=False`` writes nothing (the
    command line without ``--record``). ``worker``: see :func:`compute` (by default,
    a worker process when the ``PRIVCORE_WORKERS`` setting asks for it). ``budget``: the
    privacy accountant a DP run spends from (:mod:`privcore.runs.accountant`): checked
    before the run (a run over the budget is refused with ``dp.budget_exceeded``: it
    does not start, so nothing is drawn and no run is recorded), spent (``budget_label``
    on its ledger line) when it succeeds, and kept in the run's results under
    ``budget``. ``shared``: the cache that serves a run whose inputs carry a
    ``share_key`` (see :func:`compute`); the run is recorded as this caller's all the same.
    """
    inputs = inputs or Inputs()
    params = {**request.to_dict(), **inputs.describe()}
    started = _Start.now()

    def write(
        status: str,
        results: Mapping[str, Any],
        error: str | None,
        kind: str = request.kind,
        run_params: Mapping[str, Any] = params,
    ) -> tuple:
        if not record:
            return None, None
        return _write(kind, run_params, results, status, error, inputs, page, owner, started)

    if budget is not None:
        budget.check(request)  # refused before anything runs: no noise, no history row
    try:
        result, summary, *more = compute(request, inputs, progress, worker=worker, shared=shared)
    except CancelledError:
        write("cancelled", {}, None)
        raise
    except PrivcoreError as exc:
        details = error_record(exc)
        write("error", {"error": details}, details["code"])
        raise
    except Exception:
        raise  # a bug: the front end shows a reference and logs it
    except BaseException:  # Ctrl-C, a page's stop or rerun signal
        write("cancelled", {}, None)
        raise
    parts = more[0] if more else []
    summary = dict(summary)
    spent = None if budget is None else budget.charge(request, budget_label)
    if spent is not None:
        summary["budget"] = spent
    history_error = None
    for part in parts:
        part_id, history_error = write("ok", part.results, None, part.kind, part.params)
        if history_error is not None:
            break  # the history is unavailable: the main run says why
        summary[f"{part.kind}_run"] = part_id
    if history_error is None:
        run_id, history_error = write("ok", summary, None)
    else:
        run_id = None
    return Outcome(
        request=request,
        result=result,
        summary=summary,
        run_id=run_id,
        history_error=history_error,
        seconds=started.seconds(),
        inputs=inputs,
    )
