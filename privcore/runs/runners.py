"""One runner per kind of request: ``runner(request, inputs, progress)`` computes what
the request asks for from the request and its :class:`~privcore.runs.inputs.Inputs`, and
returns ``(result, summary)`` — plus, for a composite run, the :class:`Part` runs made
inside it. :data:`RUNNERS` maps each request class to its runner;
:func:`privcore.runs.execute.compute` looks it up, and :func:`privcore.runs.run` records
the outcome. Library modules are imported inside the runners, so that building a request
(the command line's parser, a page) loads none of them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from privcore.core.jsonsafe import plain
from privcore.core.progress import Progress
from privcore.data import Schema
from privcore.errors import PrivcoreError
from privcore.runs.analysis_runners import ANALYSIS_RUNNERS
from privcore.runs.inputs import Inputs, Part
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
    RiskRequest,
    TaskRequest,
)

__all__ = [
    "RUNNERS",
    "DpReleaseRun",
    "anonymize_settings",
    "dp_query_summary",
    "fields_of",
    "report_parts",
]


def fields_of(request: Any, *names: str) -> dict[str, Any]:
    """The request's fields ``names`` as keyword arguments of the same names: what a
    runner hands on to the library as the request holds it."""
    return {name: getattr(request, name) for name in names}


def anonymize_settings(request: AnonymizeRequest) -> dict[str, Any]:
    """How an anonymize request asks for its release, in memory or on an engine: the
    algorithm, the suppression limit, the seed and the algorithm's own options."""
    return {**fields_of(request, "algorithm", "max_suppression", "seed"), **request.options()}


def _in_memory(request: Any, inputs: Inputs) -> dict[str, Any]:
    """What a library function that pairs a release with its original in memory reads,
    as its keyword arguments: the ``original`` and the ``release`` (both needed), the
    request's QIs and SAs, the schema's hierarchies (None without a schema)."""
    inputs.need("original", "release")
    hierarchies = inputs.schema.hierarchies if inputs.schema else None
    return {
        "original": inputs.original.frame,
        "release": inputs.release,
        "qi": request.qi,
        "sa": request.sa,
        "hierarchies": hierarchies,
    }


def _anonymize(request: AnonymizeRequest, inputs: Inputs, progress: Progress | None):
    from privcore.anonymize import anonymize

    inputs.need("original", "schema")
    schema = inputs.schema.restricted(request.qi or None, request.sa or None)
    settings = anonymize_settings(request)
    release = anonymize(
        inputs.original.frame, schema, request.constraints(), progress=progress, **settings
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

    paired = _in_memory(request, inputs)
    result = measure_release(
        models=request.constraints(),
        population=inputs.population,
        check_order=not inputs.aligned,
        blanked=inputs.blanked,
        **paired,
        **fields_of(request, "key", "risk_threshold", "t_distance", "alignment"),
    )
    return result, result.history_summary()


def _task(request: TaskRequest, inputs: Inputs, progress: Progress | None):
    inputs.need("work")
    return inputs.work(progress)


def _attack(request: AttackRequest, inputs: Inputs, progress: Progress | None):
    from privcore.attacks import simulate
    from privcore.measure.report import aligned_blanked

    paired = _in_memory(request, inputs)
    hierarchies = inputs.schema.hierarchies if inputs.schema else {}
    original, release, blanked = aligned_blanked(
        paired["original"],
        paired["release"],
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
        hierarchies=hierarchies,
        progress=progress,
        blanked=blanked,
        **fields_of(request, "roll_size", "seed", "locale", "tau", "risk_threshold", "tolerance"),
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

    paired = _in_memory(request, inputs)
    result = readiness(
        thresholds=Thresholds.from_dict(request.thresholds),
        algorithm=dict(inputs.algorithm) if inputs.algorithm else None,
        aligned=inputs.aligned,
        shuffled=inputs.shuffled,
        progress=progress,
        original_name=inputs.original.name,
        release_name=inputs.release_name,
        blanked=inputs.blanked,
        release_kind=inputs.release_kind,
        published_tables=request.published_tables or None,
        **paired,
        **fields_of(request, "key", "roll_size", "seed"),
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
        **fields_of(request, "epsilon", "delta", "draws", "seed"),
    )
    return answer, dp_query_summary(answer)


def _dp_accuracy(request: DpAccuracyRequest, inputs: Inputs, progress: Progress | None):
    from privcore.dp.accuracy import accuracy_curve

    inputs.need("original")
    curve = accuracy_curve(
        _dp_query_of(request, inputs.original.frame),
        request.grid,
        mechanism=request.noise,
        progress=progress,
        **fields_of(request, "delta", "draws", "seed"),
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
    #: the methods compared on one workload (``MethodComparison``), when asked for
    methods: Any = None

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
        if dp.method != "marginals":
            out.update(
                method=dp.method,
                delta=dp.delta,
                rho=dp.rho,
                bounds=list(dp.bounds),
                binnings=list(dp.binnings),
            )
        if self.comparison is not None:
            out["comparison"] = self.comparison.summary
        out.update(self.compared())
        return plain(out)

    def compared(self, k: int | None = None) -> dict[str, Any]:
        """What the release was compared with, when asked for: the k-anonymous release
        (its ``k`` first when given), each method's GDPR risks, the methods on one
        workload."""
        out: dict[str, Any] = {}
        if self.k_anon is not None:
            out["k_anon"] = {} if k is None else {"k": k}
            out["k_anon"].update(
                algorithm=self.k_anon.algorithm,
                node=self.k_anon.node,
                suppressed=self.k_anon.n_suppressed,
            )
        if self.gdpr_risks is not None:
            out["gdpr_risks"] = self.gdpr_risks
        if self.methods is not None:
            out["methods"] = self.methods.to_dict()
        return out


def _compared_schema(
    inputs: Inputs, qi: tuple[str, ...], sa: str, binned: Mapping[str, Any] | None = None
) -> Schema:
    """The roles of the k-anonymous release a DP release is compared with: the chosen QIs
    and SA (whatever their roles in the data's schema), every other column insensitive
    (released as it is), identifiers kept (dropped), the chosen columns' hierarchies (a
    binned column's: the hierarchy of its intervals, ``binned``). The
    k-anonymous release then generalizes exactly the QIs both are compared on."""
    from privcore.data import Role

    schema = inputs.schema
    roles = {str(column): Role.INSENSITIVE for column in inputs.original.frame.columns}
    if schema is not None:
        roles.update({c: r for c, r in schema.roles.items() if r is Role.IDENTIFIER})
    roles.update(dict.fromkeys(qi, Role.QUASI_IDENTIFIER))
    roles[sa] = Role.SENSITIVE
    hierarchies = {} if schema is None else schema.hierarchies
    chosen = {*qi, sa} - set(binned or {})  # a binned column's hierarchy no longer fits:
    kept = {c: h for c, h in hierarchies.items() if c in chosen}
    return Schema(roles, {**kept, **(binned or {})})  # its intervals' own instead


def _dp_release(request: DpReleaseRequest, inputs: Inputs, progress: Progress | None):
    from privcore.dp.release import compare_releases, dp_release
    from privcore.dp.synthesis import Binning, binned_frame

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
        progress=part(0.0, share),
        bounds={column: (lower, upper) for column, lower, upper in request.bounds},
        **_release_options(request),
    )
    # binned columns are compared, and the other methods made, on the same intervals
    frame = binned_frame(frame, dp.binnings)
    binned = {item["column"]: Binning(**item).hierarchy() for item in dp.binnings}
    methods = _compared_methods(request, inputs, progress)
    if request.k is None:  # the DP release's own error on each query
        comparison = compare_releases(frame, list(request.qi), sa, dp, None)
        risks = _method_risks(request, frame, progress)
        result = DpReleaseRun(dp, None, comparison, risks, methods)
        return result, result.summary()
    schema = _compared_schema(inputs, request.qi, sa, binned)
    k_anon = _k_anonymous(frame, schema, request, part(share, 0.9 - share))
    if progress is not None:
        progress(0.9, "comparing the two releases")
    comparison = compare_releases(
        frame, list(request.qi), sa, dp, k_anon.frame, schema.hierarchies, k=request.k
    )
    risks = _method_risks(request, frame, progress, schema)
    result = DpReleaseRun(dp, k_anon, comparison, risks, methods)
    return result, result.summary()


def _compared_methods(request: DpReleaseRequest, inputs: Inputs, progress: Progress | None) -> Any:
    """The request's ``compare`` methods on one workload of the original's QIs and SA,
    or None when none is asked for."""
    if not request.compare:
        return None
    from privcore.report.method_comparison import compare_methods

    sa = request.sa[0]
    if progress is not None:
        progress(0.5, "comparing the methods on the workload")
    return compare_methods(
        inputs.original.frame,
        list(request.qi),
        sa,
        _compared_schema(inputs, request.qi, sa),
        methods=request.compare,
        epsilon=request.epsilon,
        delta=request.delta,
        relation=request.relation,
        k=request.k or 5,
        algorithm=request.algorithm,
        max_suppression=request.max_suppression,
        bounds={column: (lower, upper) for column, lower, upper in request.bounds},
        bins=request.bins,
        seed=request.seed,
        gdpr=request.gdpr,
    )


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


def _release_options(request: DpReleaseRequest) -> dict[str, Any]:
    """The keyword arguments of :func:`~privcore.dp.release.dp_release` that the request
    fixes for every release it makes: ε, the seed, the neighbouring relation, the method,
    δ and the number of intervals of a binned column."""
    return {
        "epsilon": request.epsilon,
        "seed": request.seed,
        "relation": request.relation,
        "method": request.method,
        "delta": request.delta,
        "bins": request.bins,
    }


def _method_risks(
    request: DpReleaseRequest,
    frame: pd.DataFrame,
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

    qi, sa = list(request.qi), request.sa[0]
    if progress is not None:
        progress(0.95, "singling out, linkability and inference")

    options = _release_options(request)

    def dp_records(training: pd.DataFrame) -> pd.DataFrame:
        # on the binned table (``frame``): the intervals are text, no bounds apply
        return dp_release(training, qi, sa, **options).records

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
    """A central DP mechanism audited on two neighbouring data sets; or, with
    ``output_columns``, outputs of any implementation uploaded as two columns of
    ``inputs.samples`` (one per data set; missing cells left out)."""
    from privcore.dp.audit import audit_mechanism, audit_outputs

    if request.output_columns:
        inputs.need("samples")
        frame = inputs.samples.frame
        first, second = (frame[c].dropna().to_numpy() for c in request.output_columns)
        report = audit_outputs(first, second, request.epsilon, delta=request.delta or 0.0)
        return report, report.to_dict()
    kwargs: dict[str, Any] = {"delta": request.delta, "seed": request.seed, "progress": progress}
    if request.samples is not None:
        kwargs["samples"] = request.samples
    report = audit_mechanism(request.audited, request.epsilon, **kwargs)
    return report, report.to_dict()


def _risk(request: RiskRequest, inputs: Inputs, progress: Progress | None):
    from privcore.report.risk import assess_risk

    paired = _in_memory(request, inputs)
    assessment = assess_risk(
        population=inputs.population,
        control=inputs.control,
        progress=progress,
        **paired,
        **fields_of(request, "sampling_fraction", "seed", "gdpr"),
    )
    return assessment, assessment.history_summary()


RUNNERS: dict[type, Callable[..., tuple]] = {
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
    **ANALYSIS_RUNNERS,
}
