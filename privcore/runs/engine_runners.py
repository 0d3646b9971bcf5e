"""The runners of requests whose tables an engine reads (:class:`EngineTable` inputs):
the same request kinds as in memory — anonymize, measure, attack, risk, report — computed
on the engine's frequency sets (:mod:`privcore.runs.tables`) from the request and the
inputs alone. :mod:`privcore.runs.runners` hands a run to these when
``inputs.on_engine``; a front end only scans the tables and builds the inputs.

Each records the frequency set it read on the original's :class:`EngineTable`
(``read``), which the history keeps as the run's data set (its fingerprint, never its
rows)."""

from __future__ import annotations

from typing import Any

from privcore.core.progress import Progress
from privcore.errors import ParameterError
from privcore.runs.inputs import EngineTable, Inputs
from privcore.runs.requests import (
    AnonymizeRequest,
    AttackRequest,
    MeasureRequest,
    ReportRequest,
    RiskRequest,
)
from privcore.runs.runners import anonymize_settings, fields_of, report_parts

__all__ = ["ENGINE_RUNNERS"]


def _pair(inputs: Inputs) -> tuple[EngineTable, Any]:
    """The original and the release's handle on the same engine."""
    inputs.need("original", "release")
    original, release = inputs.original, inputs.release
    if not isinstance(release, EngineTable) or release.engine is not original.engine:
        raise ParameterError(
            "A release is paired with a table an engine reads on that engine: open the "
            "release with the same engine.",
            code="engines.release_elsewhere",
        )
    return original, release.handle


def _hierarchies(inputs: Inputs) -> dict[str, Any]:
    return dict(inputs.schema.hierarchies) if inputs.schema is not None else {}


#: The fields of each request that its function of :mod:`privcore.runs.tables` reads as
#: the request holds them (besides the columns).
_FIELDS: dict[type, tuple[str, ...]] = {
    MeasureRequest: ("key", "risk_threshold", "t_distance", "alignment"),
    AttackRequest: ("key", "roll_size", "seed", "tau", "risk_threshold", "tolerance"),
    RiskRequest: ("sampling_fraction", "seed", "gdpr"),
    ReportRequest: ("thresholds", "key", "roll_size", "seed", "published_tables"),
}


def _on_pair(assess: Any, request: Any, inputs: Inputs, progress: Any, **options: Any) -> Any:
    """``assess`` (a function of :mod:`privcore.runs.tables`) on the original and the
    release, paired on their engine, with the request's columns and its fields named in
    :data:`_FIELDS`, the inputs' hierarchies and ``options``; the frequency set it read
    is kept on the original for the history."""
    original, release = _pair(inputs)
    result, dataset = assess(
        original.engine,
        original.handle,
        release,
        qi=request.qi,
        sa=request.sa,
        hierarchies=_hierarchies(inputs),
        progress=progress,
        **fields_of(request, *_FIELDS[type(request)]),
        **options,
    )
    original.read = dataset
    return result


def _measure(request: MeasureRequest, inputs: Inputs, progress: Progress | None):
    from privcore.runs.tables import measure_tables

    options = {"models": request.constraints(), "population": inputs.population}
    measurement = _on_pair(
        measure_tables, request, inputs, progress, name=inputs.original.name, **options
    )
    return measurement, measurement.history_summary()


def _attack(request: AttackRequest, inputs: Inputs, progress: Progress | None):
    from privcore.runs.tables import attack_tables

    simulation = _on_pair(attack_tables, request, inputs, progress, name=inputs.original.name)
    return simulation, simulation.to_dict()


def _risk(request: RiskRequest, inputs: Inputs, progress: Progress | None):
    from privcore.runs.tables import risk_tables

    options = {"population": inputs.population, "control": inputs.control}
    assessment = _on_pair(
        risk_tables, request, inputs, progress, name=inputs.original.name, **options
    )
    return assessment, assessment.history_summary()


def _report(request: ReportRequest, inputs: Inputs, progress: Progress | None):
    from privcore.runs.tables import readiness_tables

    names = {
        "original_name": inputs.original.name,
        "release_name": inputs.release_name or inputs.release.name,
    }
    report = _on_pair(
        readiness_tables, request, inputs, progress, shuffled=inputs.shuffled, **names
    )
    return report, report.history_summary(), report_parts(request, report, inputs.describe())


def _anonymize(request: AnonymizeRequest, inputs: Inputs, progress: Progress | None):
    """The table's frequency set anonymized and the release written by the engine to
    ``inputs.out`` (its rows shuffled with the seed when ``inputs.shuffled``), and to
    ``request.order_copy`` in the table's order when asked, from the same search; the
    schema names every column's role (identifiers are left out of the release)."""
    from privcore.runs.tables import anonymize_table

    inputs.need("original", "schema", "out")
    original = inputs.original
    made = anonymize_table(
        original.engine,
        original.handle,
        inputs.schema,
        request.constraints(),
        inputs.out,
        name=original.name,
        progress=progress,
        shuffle=inputs.shuffled,
        order_copy=request.order_copy,
        **anonymize_settings(request),
    )
    original.read = made.dataset
    return made, made.history_summary()


ENGINE_RUNNERS = {
    AnonymizeRequest: _anonymize,
    MeasureRequest: _measure,
    AttackRequest: _attack,
    RiskRequest: _risk,
    ReportRequest: _report,
}
