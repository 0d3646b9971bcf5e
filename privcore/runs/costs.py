"""What a run will cost, estimated before any work, and the one check of that estimate.

Every run goes through :func:`privcore.runs.compute`, which first asks :func:`estimate`
for the run's :class:`Cost` and refuses it (:class:`~privcore.errors.ParameterError`,
code ``runs.too_costly``) when its peak memory would exceed this installation's budget
for one run (``PRIVCORE_MAX_RUN_MB``), naming what to lower. Only then does any work
start, and a run whose cost is *heavy* (more than about a second of work, or a kind of
run that always is: a search, an audit, an attack, a report) takes one of the process's
heavy-work slots (:func:`privcore.core.slots.heavy_slot`) for as long as it runs.

The model counts 8-byte values. ``peak_values`` is the most the run holds at once (its
tables, the noisy answers of every draw, the release being built); ``work_values`` what
it reads and writes in all (a run of less than :data:`HEAVY_WORK` values, about a second
in numpy, is light). The factors are measured orders of magnitude (a generalized release
holds each QI cell as a code and as text; a histogram's draws hold answers, noise and two
interval ends), deliberately on the safe side: the estimate only has to be right to a
small factor for the refusal to protect the server.

LDP audits are checked by their own finer memory plan
(:func:`privcore.ldp.audit.memory_plan`, ``PRIVCORE_AUDIT_MEMORY_MB``), from here.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from privcore.config import limits
from privcore.data.codes import n_distinct
from privcore.errors import ParameterError

__all__ = ["HEAVY_KINDS", "HEAVY_WORK", "Cost", "check", "estimate", "histogram_cells"]

#: A run that reads and writes fewer values than this is light (well under a second).
HEAVY_WORK = 2_000_000
#: Kinds of run that are heavy whatever the table's size (searches, audits, attacks,
#: reports, releases: their work grows faster than the table).
HEAVY_KINDS = frozenset(
    {"anonymize", "attack", "audit", "dp_audit", "dp_release", "dp_accuracy", "report", "risk"}
    | {"roll", "open_table"}
)
#: Bytes of one value of the model.
VALUE_BYTES = 8
#: What a user can lower to make a run cheaper (``Cost.lower`` holds these keys; the
#: pages word them in their language as ``cost.lower.<key>``).
LOWER_WORDS = {
    "rows": "the number of rows",
    "qi": "the number of quasi-identifiers",
    "roll": "the size of the voter roll",
    "draws": "the number of draws",
    "histogram_columns": "the columns of the histogram (fewer or coarser)",
    "wide_qi": "the QIs with many values",
    "samples": "the number of samples",
    "values": "the number of simulated values",
}


@dataclass(frozen=True)
class Cost:
    """A run's estimated cost: ``peak_values`` held at once, ``work_values`` in all,
    ``lower`` what the user can lower to make it cheaper (keys of :data:`LOWER_WORDS`),
    ``what`` the run in words (for messages), ``heavy`` whether it takes a heavy slot."""

    peak_values: int
    work_values: int
    lower: tuple[str, ...]
    what: str
    heavy: bool

    @property
    def peak_mb(self) -> int:
        return math.ceil(self.peak_values * VALUE_BYTES / 2**20)


def _table_size(inputs: Any) -> tuple[int, int]:
    """(rows, columns) of the run's original table (0, 0 when it has none in memory)."""
    original = getattr(inputs, "original", None)
    frame = getattr(original, "frame", None)
    if frame is None:
        return 0, 0
    return int(frame.shape[0]), int(frame.shape[1])


def _release_rows(inputs: Any) -> int:
    """Rows of the release in memory (a table an engine reads takes no memory here)."""
    release = getattr(inputs, "release", None)
    return 0 if release is None or not hasattr(release, "__len__") else len(release)


def histogram_cells(frame: Any, columns: Any) -> int:
    """Cells of a histogram over ``columns`` of ``frame``: the product of each column's
    number of distinct values, missing counted as one (``privcore.dp.queries.histogram``'s
    cross product), without building it. Columns not in the frame count 1 (the query
    refuses them with its own words)."""
    cells = 1
    for column in columns or ():
        if column in getattr(frame, "columns", ()):
            values = frame[column]
            cells *= max(n_distinct(values) + int(values.isna().any()), 1)
    return cells


def _cost(kind: str, peak: float, work: float, lower: tuple[str, ...], what: str) -> Cost:
    peak, work = int(min(peak, 2**62)), int(min(work, 2**62))
    return Cost(peak, work, lower, what, kind in HEAVY_KINDS or work >= HEAVY_WORK)


def _on_table(request: Any, inputs: Any) -> Cost:
    """A run over the original (and a release): the table and a few working copies of
    the columns it reads (codes, generalized text, class sizes)."""
    rows, columns = _table_size(inputs)
    qi = len(getattr(request, "qi", ()) or ())
    sa = len(getattr(request, "sa", ()) or ())
    used = qi + sa if qi + sa else columns
    released = _release_rows(inputs)
    peak = rows * columns + (rows + released) * used * 12
    lower = ("rows", "qi")
    return _cost(request.kind, peak, peak * 4, lower, f"this {request.kind} run")


def _attack(request: Any, inputs: Any) -> Cost:
    base = _on_table(request, inputs)
    roll = getattr(inputs, "roll", None)
    roll_rows = getattr(getattr(roll, "frame", None), "shape", (0,))[0]
    roll_rows = roll_rows or (getattr(request, "roll_size", None) or 0)
    extra = roll_rows * (len(request.qi) + 2) * 4
    lower = (*base.lower, "roll")
    return _cost(
        request.kind, base.peak_values + extra, base.work_values + 4 * extra, lower, base.what
    )


def _cells(request: Any, frame: Any, most: int) -> int:
    """A histogram's cells, at most ``most``: above it the query refuses the histogram
    itself, before drawing, in words that name its own limit."""
    if request.query != "histogram":
        return 1
    return min(histogram_cells(frame, request.columns), most)


def _dp_query(request: Any, inputs: Any) -> Cost:
    from privcore.dp.queries import MAX_HISTOGRAM_CELLS

    rows, columns = _table_size(inputs)
    frame = inputs.original.frame if rows else None
    cells = _cells(request, frame, MAX_HISTOGRAM_CELLS)
    # answers, the noise drawn and two interval ends for every draw of every cell
    drawn = request.draws * cells * 5
    lower = ("draws", "histogram_columns") if request.draws > 1 else ("histogram_columns",)
    return _cost(request.kind, rows * 2 + drawn, rows * columns + drawn, lower, "this DP query")


def _dp_accuracy(request: Any, inputs: Any) -> Cost:
    from privcore.dp.accuracy import MAX_CELLS

    rows, columns = _table_size(inputs)
    frame = inputs.original.frame if rows else None
    cells = _cells(request, frame, MAX_CELLS)
    per_epsilon = request.draws * cells * 5  # one ε's draws at a time
    lower = ("histogram_columns",)
    work = rows * columns + per_epsilon * len(request.grid)
    return _cost(request.kind, rows * 2 + per_epsilon, work, lower, "the accuracy view")


def _dp_release(request: Any, inputs: Any) -> Cost:
    rows, _ = _table_size(inputs)
    frame = inputs.original.frame if rows else None
    sa_cells = histogram_cells(frame, request.sa)
    marginals = sum(histogram_cells(frame, [q]) for q in request.qi) * sa_cells
    base = _on_table(request, inputs)
    peak = base.peak_values + marginals * 8
    lower = (*base.lower, "wide_qi")
    return _cost(request.kind, peak, base.work_values + marginals * 8, lower, "this DP release")


def _dp_audit(request: Any, inputs: Any) -> Cost:
    samples = request.samples or 1_000_000
    peak = samples * 4  # two neighbouring data sets' outputs, and their events
    return _cost(request.kind, peak, peak * 4, ("samples",), "this DP audit")


def _default_samples(method: str) -> int:
    """The samples per input an LDP audit method draws when a request leaves them to it
    (the default ``n`` of :func:`privcore.ldp.audit.audit_ab`, ``audit_ob`` or
    ``lower_bound``)."""
    import inspect

    from privcore.ldp import audit

    measure = {"ab": audit.audit_ab, "ob": audit.audit_ob, "lb": audit.lower_bound}[method]
    return int(inspect.signature(measure).parameters["n"].default)


def _ldp_audit(request: Any, inputs: Any) -> Cost:
    """An LDP audit of a mechanism must fit the audit memory budget by each method's own
    plan (:func:`privcore.ldp.audit.memory_plan`, which refuses it with words naming the
    largest domain that fits); an audit of logged samples checks its plan as it reads
    them. Either is heavy."""
    samples = getattr(inputs, "samples", None)
    rows = 0 if samples is None else int(samples.frame.shape[0])
    if not request.on_samples:
        from privcore.ldp.audit import memory_plan
        from privcore.ldp.mechanisms import make

        mechanism = make(request.mechanism, request.epsilon, d=request.domain)
        for method in request.methods:
            memory_plan(
                method,
                mechanism,
                n=request.samples_of(method) or _default_samples(method),
                inputs=request.inputs if method == "ob" else None,
            )
    return _cost(request.kind, rows * 4, rows * 8, ("samples",), "this audit")


def _task(request: Any, inputs: Any) -> Cost:
    """A task over the original and what it makes: a roll of ``size`` people (each with
    its QIs, a name and a few working columns), ``n`` simulated values."""
    base = _on_table(request, inputs)
    params = request.params or {}
    made = int(params.get("size") or 0) * (len(params.get("qi") or ()) + 4) * 4
    made += int(params.get("n") or 0) * 6
    lower = (*base.lower, "roll") if params.get("size") else base.lower
    return _cost(
        request.kind, base.peak_values + made, base.work_values + 4 * made, lower, base.what
    )


def _reconstruction(request: Any, inputs: Any) -> Cost:
    """Randomization and reconstruction: the simulated values, their noisy copies and
    fine-bin codes (a few numbers each), read once per iteration of the estimate."""
    values = request.values * 6
    return _cost(request.kind, values, values * 20, ("values",), "this reconstruction")


def _roll(request: Any, inputs: Any) -> Cost:
    """A voter roll of ``roll_size`` people (default 10 × rows), each with its QIs, a
    name and a few working columns."""
    base = _on_table(request, inputs)
    rows, _ = _table_size(inputs)
    size = request.roll_size or 10 * rows
    made = size * (len(request.qi) + 4) * 4
    lower = (*base.lower, "roll")
    return _cost(
        request.kind, base.peak_values + made, base.work_values + 4 * made, lower, base.what
    )


def _light(request: Any, inputs: Any) -> Cost:
    return _cost(request.kind, 0, 0, (), f"this {request.kind} run")


_ESTIMATORS: dict[str, Callable[[Any, Any], Cost]] = {
    "AttackRequest": _attack,
    "AuditRequest": _ldp_audit,
    "DinnerRequest": _light,
    "DpAccuracyRequest": _dp_accuracy,
    "DpAuditRequest": _dp_audit,
    "DpQueryRequest": _dp_query,
    "DpReleaseRequest": _dp_release,
    "ReconstructionRequest": _reconstruction,
    "RollRequest": _roll,
    "TaskRequest": _task,
}


def estimate(request: Any, inputs: Any) -> Cost:
    """The cost of running ``request`` on ``inputs`` (see the module docstring), from the
    sizes of the inputs and the request's parameters alone: nothing is computed but, for
    a histogram, the number of distinct values of its columns."""
    estimator = _ESTIMATORS.get(type(request).__name__, _on_table)
    return estimator(request, inputs)


def check(request: Any, inputs: Any) -> Cost:
    """:func:`estimate`, refused with words (``runs.too_costly``) when its peak memory is
    above this installation's budget for one run (``PRIVCORE_MAX_RUN_MB``)."""
    cost = estimate(request, inputs)
    budget = limits().max_run_mb
    if cost.peak_mb > budget:
        raise ParameterError(
            f"{cost.what[0].upper()}{cost.what[1:]} would need about {cost.peak_mb:,} MB of "
            f"memory, above this installation's limit of {budget:,} MB for one run "
            f"(PRIVCORE_MAX_RUN_MB). Lower {' or '.join(LOWER_WORDS[k] for k in cost.lower)}.",
            code="runs.too_costly",
            need_mb=cost.peak_mb,
            limit_mb=budget,
            lower=list(cost.lower),
        )
    return cost
