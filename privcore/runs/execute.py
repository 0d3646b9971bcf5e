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
import datetime as dt
import functools
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from privcore import history
from privcore.core.jsonsafe import plain
from privcore.core.progress import Progress
from privcore.data import Dataset, Schema
from privcore.errors import CancelledError, HistoryError, ParameterError, PrivcoreError
from privcore.runs.requests import (
    AnonymizeRequest,
    AttackRequest,
    AuditRequest,
    DinnerRequest,
    DpAccuracyRequest,
    DpAuditRequest,
    DpQueryRequest,
    DpReleaseRequest,
    MeasureRequest,
    ReplayRequest,
    ReportRequest,
    Request,
    RiskRequest,
    TaskRequest,
)

__all__ = ["Inputs", "Outcome", "error_record", "make_request", "run"]

#: Error parameters kept in the history when they are text: names, not values.
_NAMED_PARAMETERS = frozenset(
    {"column", "columns", "algorithm", "model", "mechanism", "option", "kind", "format", "key"}
)


@dataclass(frozen=True, eq=False)
class Inputs:
    """The data a run reads (what the request does not hold).

    ``original``: the table to anonymize, or the original of a release; ``schema``: its
    roles and hierarchies; ``release``: the released table and ``release_name``;
    ``aligned``: the release's rows are the original's, in order (a release made here),
    so nothing checks the order; ``shuffled``: the file to publish is the release with
    its rows shuffled (the download of a release made here); ``population``: a table of
    people for journalist risk; ``roll``: a voter roll already built; ``samples``:
    logged LDP samples; ``control``: records of the population never released (the
    control set of singling out, linkability and inference); ``algorithm``: how a
    release under report was made; ``blanked``: the rows of ``release`` the method that
    made it blanked in every QI (a boolean per row: ``Release.suppressed`` of a release
    made here), so that its measurement, report and attack count the release's own
    suppressed rows (:func:`privcore.classes.release_classes`); ``names``: extra names
    of what the run read or wrote (file names), recorded with its parameters;
    ``work``: a callable ``work(progress) -> (result, summary)`` that computes the run
    instead of the library call its request names (a
    :class:`~privcore.runs.requests.TaskRequest`, or a result shared between the sessions
    of a server) — recorded all the same.
    """

    original: Dataset | None = None
    schema: Schema | None = None
    release: pd.DataFrame | None = None
    release_name: str | None = None
    aligned: bool = False
    shuffled: bool = False
    population: pd.DataFrame | None = None
    roll: Any = None
    samples: Dataset | None = None
    control: pd.DataFrame | None = None
    algorithm: Mapping[str, Any] | None = None
    blanked: Any = None
    names: Mapping[str, Any] = field(default_factory=dict)
    work: Callable[[Progress | None], tuple] | None = None

    def describe(self) -> dict[str, Any]:
        """What the history keeps of the inputs besides the fingerprint: names only."""
        out: dict[str, Any] = {}
        if self.release_name is not None:
            out["release"] = self.release_name
        if self.population is not None:
            out["population_rows"] = len(self.population)
        if self.control is not None:
            out["control_rows"] = len(self.control)
        if self.schema is not None and self.schema.hierarchies:
            out["hierarchies"] = sorted(self.schema.hierarchies)
        out.update(self.names)
        return out

    def need(self, *what: str) -> None:
        missing = [w for w in what if getattr(self, w) is None]
        if missing:
            raise ParameterError(
                f"This run needs {', '.join(missing)}.", code="runs.missing_input", missing=missing
            )


@dataclass(frozen=True)
class Part:
    """A run made inside another one (the readiness report's measurement and attack):
    recorded first, as a run of its own ``kind`` with these ``params`` and ``results``;
    the main run's results then name its id (``<kind>_run``)."""

    kind: str
    params: Mapping[str, Any]
    results: Mapping[str, Any]


@dataclass(frozen=True, eq=False)
class Outcome:
    """A run's result, the summary the history kept, its run id (``None`` when not
    recorded), why the history could not keep it, and its duration."""

    request: Request
    result: Any
    summary: Mapping[str, Any]
    run_id: int | None
    history_error: HistoryError | None
    seconds: float


def error_record(exc: PrivcoreError) -> dict[str, Any]:
    """What the history keeps of a user error: its code and the parameters that are
    numbers, flags or names of columns and options — not values of the data."""
    kept = {}
    for name, value in exc.params.items():
        if isinstance(value, (bool, int, float)) or value is None or name in _NAMED_PARAMETERS:
            kept[name] = value
    return {"code": exc.code, "params": plain(kept)}


# --------------------------------------------------------------------------- the runs


def _anonymize(request: AnonymizeRequest, inputs: Inputs, progress: Progress | None):
    from privcore.anonymize import anonymize

    inputs.need("original", "schema")
    schema = inputs.schema.restricted(request.qi or None, request.sa or None)
    release = anonymize(
        inputs.original.frame,
        schema,
        request.constraints(),
        algorithm=request.algorithm,
        max_suppression=request.max_suppression,
        seed=request.seed,
        progress=progress,
        **request.options(),
    )
    release.fingerprint  # noqa: B018 - the release's identity, computed with it (and cached)
    return release, release.history_summary()


def _replay(request: ReplayRequest, inputs: Inputs, progress: Progress | None):
    from privcore.anonymize.spec import reproduce

    inputs.need("original")
    release = reproduce(inputs.original.frame, request.spec, progress=progress)
    return release, release.history_summary()


def _measure(request: MeasureRequest, inputs: Inputs, progress: Progress | None):
    from privcore.measure.report import measure_release

    inputs.need("original", "release")
    result = measure_release(
        inputs.original.frame,
        inputs.release,
        qi=request.qi,
        sa=request.sa,
        models=request.constraints(),
        hierarchies=inputs.schema.hierarchies if inputs.schema else None,
        key=request.key,
        risk_threshold=request.risk_threshold,
        population=inputs.population,
        t_distance=request.t_distance,
        check_order=not inputs.aligned,
        alignment=request.alignment,
        blanked=inputs.blanked,
    )
    return result, result.history_summary()


def _task(request: TaskRequest, inputs: Inputs, progress: Progress | None):
    inputs.need("work")
    return inputs.work(progress)


def _attack(request: AttackRequest, inputs: Inputs, progress: Progress | None):
    from privcore.attacks import simulate
    from privcore.measure.report import aligned_blanked

    inputs.need("original", "release")
    hierarchies = inputs.schema.hierarchies if inputs.schema else {}
    original, release, blanked = aligned_blanked(
        inputs.original.frame,
        inputs.release,
        inputs.blanked,
        request.key,
        qi=request.qi,
        hierarchies=hierarchies,
    )
    result = simulate(
        original,
        release,
        list(request.qi),
        list(request.sa),
        roll=inputs.roll,
        roll_size=request.roll_size,
        seed=request.seed,
        locale=request.locale,
        hierarchies=hierarchies,
        tau=request.tau,
        risk_threshold=request.risk_threshold,
        tolerance=request.tolerance,
        progress=progress,
        blanked=blanked,
    )
    return result, result.to_dict()


def _audit(request: AuditRequest, inputs: Inputs, progress: Progress | None):
    from privcore.ldp import audit as ldp_audit
    from privcore.ldp.mechanisms import make

    if request.on_samples:
        inputs.need("samples")
        report = ldp_audit.audit_samples(
            inputs.samples.frame,
            request.input_column,
            list(request.output_columns),
            claimed_epsilon=request.epsilon,
            method=request.methods[0],
            seed=request.seed,
            density=request.density,
            progress=progress,
        )
        return {request.methods[0]: report}, report.to_dict()
    mechanism = make(request.mechanism, request.epsilon, d=request.domain)
    calls: dict[str, Callable[..., Any]] = {
        "ab": lambda **kw: ldp_audit.audit_ab(mechanism, **kw),
        "ob": lambda **kw: ldp_audit.audit_ob(
            mechanism, inputs=request.inputs, density=request.density, **kw
        ),
        "lb": lambda **kw: ldp_audit.lower_bound(mechanism, **kw),
    }
    reports = {}
    share = len(request.methods)
    for index, method in enumerate(request.methods):

        def part(fraction: float, message: str, index: int = index) -> None:
            if progress is not None:
                progress((index + fraction) / share, message)

        kwargs: dict[str, Any] = {"seed": request.seed, "progress": part}
        if request.samples_of(method) is not None:
            kwargs["n"] = request.samples_of(method)
        reports[method] = calls[method](**kwargs)
    return reports, {m: r.to_dict() for m, r in reports.items()}


def _report(request: ReportRequest, inputs: Inputs, progress: Progress | None):
    """The readiness report (pure: :func:`privcore.report.readiness`). Its measurement
    and attack are recorded as runs of their own before it (:class:`Part`), with the
    parameters a :class:`MeasureRequest` and an :class:`AttackRequest` of the same
    columns and thresholds record; the report's results name their run ids."""
    from privcore.report import Thresholds, readiness

    inputs.need("original", "release")
    thresholds = Thresholds.from_dict(request.thresholds)
    result = readiness(
        inputs.original.frame,
        inputs.release,
        qi=request.qi,
        sa=request.sa,
        thresholds=thresholds,
        hierarchies=inputs.schema.hierarchies if inputs.schema else None,
        key=request.key,
        algorithm=dict(inputs.algorithm) if inputs.algorithm else None,
        roll_size=request.roll_size,
        seed=request.seed,
        aligned=inputs.aligned,
        shuffled=inputs.shuffled,
        progress=progress,
        original_name=inputs.original.name,
        release_name=inputs.release_name,
        blanked=inputs.blanked,
    )
    parts = report_parts(request, result, inputs.describe())
    return result, result.history_summary(), parts


def report_parts(request: ReportRequest, report: Any, described: Mapping[str, Any]) -> list[Part]:
    """The measure and attack runs a readiness report is recorded with before it: the
    parameters a :class:`MeasureRequest` and an :class:`AttackRequest` of the same
    columns and thresholds record (plus ``described``: the inputs' names), the report's
    measurement and attacks as their results."""
    thresholds = report.thresholds
    columns = {"qi": request.qi, "sa": request.sa, "key": request.key}
    measured = MeasureRequest(
        **columns,
        k=thresholds.min_k,
        l=thresholds.min_l,
        t=thresholds.max_t,
        risk_threshold=thresholds.max_prosecutor,
    )
    attacked = AttackRequest(
        **columns,
        roll_size=request.roll_size,
        seed=request.seed,
        risk_threshold=thresholds.max_prosecutor,
    )
    return [
        Part("measure", {**measured.to_dict(), **described}, report.measurement),
        Part("attack", {**attacked.to_dict(), **described}, report.attacks),
    ]


# --------------------------------------------------------------------------- central DP


def _dp_query_of(request: DpQueryRequest, frame: pd.DataFrame) -> Any:
    """The query (true answer and sensitivities) a DP query request asks of ``frame``."""
    from privcore.dp import queries

    relation = request.relation
    if request.query == "count":
        return queries.count(frame, request.where, relation=relation)
    if request.query == "histogram":
        return queries.histogram(frame, list(request.columns), relation=relation)
    make = queries.clamped_sum if request.query == "sum" else queries.mean
    low, high = request.clamp
    return make(frame, request.column, low, high, where=request.where, relation=relation)


def _dp_query(request: DpQueryRequest, inputs: Inputs, progress: Progress | None):
    from privcore.dp import queries

    inputs.need("original")
    answer = queries.answer(
        _dp_query_of(request, inputs.original.frame),
        request.noise,
        epsilon=request.epsilon,
        delta=request.delta,
        draws=request.draws,
        seed=request.seed,
    )
    return answer, dp_query_summary(answer)


def _dp_accuracy(request: DpAccuracyRequest, inputs: Inputs, progress: Progress | None):
    from privcore.dp.accuracy import accuracy_curve

    inputs.need("original")
    curve = accuracy_curve(
        _dp_query_of(request, inputs.original.frame),
        request.grid,
        mechanism=request.noise,
        delta=request.delta,
        draws=request.draws,
        seed=request.seed,
        progress=progress,
    )
    return curve, {"epsilons": len(request.grid), "draws": request.draws}


def dp_query_summary(answer: Any) -> dict[str, Any]:
    """What the history keeps of a noisy answer: the answer (a histogram's cells are
    values of the data: only their number), its noise and interval, and with several
    draws their spread."""
    import numpy as np

    out = answer.to_dict()
    out.pop("answers", None)
    if isinstance(answer.answer, pd.Series):
        out.pop("answer", None)
        out.pop("interval", None)
        out["cells"] = int(answer.answer.size)
    out["query"] = answer.query.name
    out["draws"] = int(answer.answers.shape[0])
    if out["draws"] > 1:
        out["draws_std"] = float(np.std(np.asarray(answer.answers, dtype=float), axis=0).mean())
    return plain(out)


def _dp_dinner(request: DinnerRequest, inputs: Inputs, progress: Progress | None):
    from privcore.dp import dinner_story

    story = dinner_story(
        request.epsilon,
        prior=request.prior,
        leaver=request.leaver,
        mechanism=request.noise,
        seed=request.seed,
    )
    return story, story.to_dict()


@dataclass(frozen=True)
class DpReleaseRun:
    """A DP release, its error on each query (``comparison``) and, when a k was asked
    for, the k-anonymous release of the same data compared on the same queries."""

    dp: Any
    k_anon: Any = None
    comparison: Any = None
    #: {"dp": ..., "k_anon": ...}: ``GdprRisks.to_dict()`` of each method, when asked for
    gdpr_risks: dict[str, Any] | None = None

    def summary(self) -> dict[str, Any]:
        """Names and figures only: the marginals hold values of the data."""
        dp = self.dp
        out: dict[str, Any] = {
            "epsilon": dp.epsilon,
            "total": dp.total,
            "records": len(dp.records),
            "marginals": len(dp.marginals),
            "ledger": dp.ledger,
        }
        if self.comparison is not None:
            out["comparison"] = self.comparison.summary
        if self.k_anon is not None:
            out["k_anon"] = {
                "algorithm": self.k_anon.algorithm,
                "node": self.k_anon.node,
                "suppressed": self.k_anon.n_suppressed,
            }
        if self.gdpr_risks is not None:
            out["gdpr_risks"] = self.gdpr_risks
        return plain(out)


def _compared_schema(inputs: Inputs, qi: tuple[str, ...], sa: str) -> Schema:
    """The roles of the k-anonymous release a DP release is compared with: the chosen QIs
    and SA (whatever their roles in the data's schema), every other column insensitive
    (released as it is), identifiers kept (dropped), the chosen columns' hierarchies. The
    k-anonymous release then generalizes exactly the QIs both are compared on."""
    from privcore.data import Role

    schema = inputs.schema
    roles = {str(column): Role.INSENSITIVE for column in inputs.original.frame.columns}
    if schema is not None:
        roles.update({c: r for c, r in schema.roles.items() if r is Role.IDENTIFIER})
    roles.update(dict.fromkeys(qi, Role.QUASI_IDENTIFIER))
    roles[sa] = Role.SENSITIVE
    hierarchies = {} if schema is None else schema.hierarchies
    chosen = {*qi, sa}
    return Schema(roles, {c: h for c, h in hierarchies.items() if c in chosen})


def _dp_release(request: DpReleaseRequest, inputs: Inputs, progress: Progress | None):
    from privcore.dp.release import compare_releases, dp_release

    inputs.need("original")
    frame = inputs.original.frame
    sa = request.sa[0]
    share = 0.5 if request.k is not None else 1.0

    def part(start: float, width: float) -> Progress | None:
        if progress is None:
            return None
        return lambda fraction, message: progress(start + width * fraction, message)

    dp = dp_release(
        frame,
        list(request.qi),
        sa,
        epsilon=request.epsilon,
        seed=request.seed,
        relation=request.relation,
        progress=part(0.0, share),
    )
    if request.k is None:  # the DP release's own error on each query
        comparison = compare_releases(frame, list(request.qi), sa, dp, None)
        result = DpReleaseRun(dp, None, comparison, _method_risks(request, inputs, progress))
        return result, result.summary()
    schema = _compared_schema(inputs, request.qi, sa)
    k_anon = _k_anonymous(frame, schema, request, part(share, 0.9 - share))
    if progress is not None:
        progress(0.9, "comparing the two releases")
    comparison = compare_releases(
        frame, list(request.qi), sa, dp, k_anon.frame, schema.hierarchies, k=request.k
    )
    risks = _method_risks(request, inputs, progress, schema)
    result = DpReleaseRun(dp, k_anon, comparison, risks)
    return result, result.summary()


def _k_anonymous(
    frame: pd.DataFrame, schema: Schema, request: DpReleaseRequest, progress: Progress | None = None
) -> Any:
    """The k-anonymous release a DP release is compared with (the request's k, algorithm,
    suppression limit and seed)."""
    from privcore.anonymize import anonymize
    from privcore.models import KAnonymity

    return anonymize(
        frame,
        schema,
        [KAnonymity(request.k)],
        algorithm=request.algorithm,
        max_suppression=request.max_suppression,
        seed=request.seed,
        progress=progress,
    )


def _method_risks(
    request: DpReleaseRequest,
    inputs: Inputs,
    progress: Progress | None,
    schema: Schema | None = None,
) -> dict[str, Any] | None:
    """Singling out, linkability and inference of the DP release's method (and of the
    k-anonymous one with ``schema``), each made again from a seeded 80 % of the records
    and attacked against the rest; None unless the request asks for them."""
    if not request.gdpr:
        return None
    from privcore.dp.release import dp_release
    from privcore.report.risk import held_out_risks, not_measured

    frame, qi, sa = inputs.original.frame, list(request.qi), request.sa[0]
    if progress is not None:
        progress(0.95, "singling out, linkability and inference")

    def dp_records(training: pd.DataFrame) -> pd.DataFrame:
        made = dp_release(
            training, qi, sa, epsilon=request.epsilon, seed=request.seed, relation=request.relation
        )
        return made.records

    def measured(make: Callable[[pd.DataFrame], pd.DataFrame], **options: Any) -> dict:
        """The figures, or what kept them from being measured (a table too small to
        hold records out, a release with no record)."""
        try:
            return held_out_risks(frame, make, qi, [sa], seed=request.seed, **options).to_dict()
        except PrivcoreError as exc:
            return {"not_measured": not_measured(exc)}

    hierarchies = schema.hierarchies if schema is not None else None
    out = {"dp": measured(dp_records)}
    if schema is not None:
        out["k_anon"] = measured(
            lambda training: _k_anonymous(training, schema, request).frame,
            hierarchies=hierarchies,
        )
    return out


def _dp_audit(request: DpAuditRequest, inputs: Inputs, progress: Progress | None):
    from privcore.dp.audit import audit_mechanism

    kwargs: dict[str, Any] = {"delta": request.delta, "seed": request.seed, "progress": progress}
    if request.samples is not None:
        kwargs["samples"] = request.samples
    report = audit_mechanism(request.audited, request.epsilon, **kwargs)
    return report, report.to_dict()


def _risk(request: RiskRequest, inputs: Inputs, progress: Progress | None):
    from privcore.report.risk import assess_risk

    inputs.need("original", "release")
    assessment = assess_risk(
        inputs.original.frame,
        inputs.release,
        request.qi,
        request.sa,
        hierarchies=inputs.schema.hierarchies if inputs.schema else None,
        sampling_fraction=request.sampling_fraction,
        population=inputs.population,
        control=inputs.control,
        seed=request.seed,
        gdpr=request.gdpr,
        progress=progress,
    )
    return assessment, assessment.history_summary()


_RUNNERS: dict[type, Callable[..., tuple]] = {
    AnonymizeRequest: _anonymize,
    ReplayRequest: _replay,
    MeasureRequest: _measure,
    AttackRequest: _attack,
    AuditRequest: _audit,
    ReportRequest: _report,
    TaskRequest: _task,
    DpQueryRequest: _dp_query,
    DpAccuracyRequest: _dp_accuracy,
    DinnerRequest: _dp_dinner,
    DpReleaseRequest: _dp_release,
    DpAuditRequest: _dp_audit,
    RiskRequest: _risk,
}


def compute(
    request: Request,
    inputs: Inputs,
    progress: Progress | None = None,
    *,
    worker: bool | None = False,
) -> tuple:
    """What :func:`run` computes, without recording it: ``(result, summary)``, plus the
    parts of a composite run. ``inputs.work`` (when given) replaces the library call.

    Every run takes this one path: its cost is estimated and checked first, before any
    work (:func:`privcore.runs.costs.check`: a run above ``PRIVCORE_MAX_RUN_MB`` is
    refused with words that say what to lower); a heavy run then holds one of the
    process's heavy-work slots (``PRIVCORE_MAX_HEAVY_JOBS``) while it computes — a result
    shared between sessions (:func:`ui.shared.shared_run_inputs`) takes one only when it
    is computed, not when it is served from the cache.

    ``worker``: compute the library call in a worker process
    (:func:`privcore.core.workers.call_in_worker`), so that the calling thread waits
    without holding the interpreter, and a cancel kills the process and frees its memory
    at once; ``None``: when the setting asks for it (``PRIVCORE_WORKERS``) and the run is
    heavy or the table large enough (:func:`privcore.core.workers.wanted`). LDP audits
    (torch, their own memory plan and chunks) and a front end's own ``work`` always run in
    place.
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
    with heavy_slot(progress, "work") if cost.heavy else contextlib.nullcontext():
        if inputs.work is not None:
            # a task of privcore.runs.tasks over its data pickles: a worker can run it
            offload = worker is not False and cost.heavy and workers.enabled()
            if offload and _picklable(inputs.work):
                return workers.call_in_worker(inputs.work, progress=progress)
            return inputs.work(progress)
        runner = _RUNNERS[type(request)]
        if worker is None:
            rows = None if inputs.original is None else inputs.original.n_rows
            in_place = isinstance(request, (AuditRequest, DpAuditRequest))
            worker = not in_place and (workers.wanted(rows) or (cost.heavy and workers.enabled()))
        if worker:
            return workers.call_in_worker(_call_runner, runner, request, inputs, progress=progress)
        return runner(request, inputs, progress)


def _picklable(work: Callable[..., Any]) -> bool:
    """Is ``work`` a partial of a function of :mod:`privcore.runs.tasks` (a worker
    process can import and run it)?"""
    return isinstance(work, functools.partial) and getattr(work.func, "__module__", "") == (
        "privcore.runs.tasks"
    )


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
) -> Outcome:
    """Execute ``request`` on ``inputs`` and record it (see the module docstring).

    ``page`` names the front end in the history ("cli", or the page); ``owner`` is the
    visitor's opaque token on a hosted demo; ``record=False`` writes nothing (the
    command line without ``--record``). ``worker``: see :func:`compute` (by default,
    a worker process when the ``PRIVCORE_WORKERS`` setting asks for it).
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

    try:
        result, summary, *more = compute(request, inputs, progress, worker=worker)
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
    )
