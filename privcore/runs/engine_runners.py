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


def _read(original: EngineTable, made: tuple) -> Any:
    """The result of a function of :mod:`privcore.runs.tables`, the frequency set it read
    kept on ``original`` for the history."""
    result, dataset = made
    original.read = dataset
    return result


def _measure(request: MeasureRequest, inputs: Inputs, progress: Progress | None):
    from privcore.runs.tables import measure_tables

    original, release = _pair(inputs)
    measurement = _read(
        original,
        measure_tables(
            original.engine,
            original.handle,
            release,
            qi=request.qi,
            sa=request.sa,
            models=request.constraints(),
            hierarchies=_hierarchies(inputs),
            key=request.key,
            name=original.name,
            progress=progress,
            risk_threshold=request.risk_threshold,
            t_distance=request.t_distance,
            population=inputs.population,
        ),
    )
    return measurement, measurement.history_summary()


def _attack(request: AttackRequest, inputs: Inputs, progress: Progress | None):
    from privcore.runs.tables import attack_tables

    original, release = _pair(inputs)
    simulation = _read(
        original,
        attack_tables(
            original.engine,
            original.handle,
            release,
            qi=request.qi,
            sa=request.sa,
            hierarchies=_hierarchies(inputs),
            key=request.key,
            name=original.name,
            progress=progress,
            roll_size=request.roll_size,
            seed=request.seed,
            tau=request.tau,
            risk_threshold=request.risk_threshold,
            tolerance=request.tolerance,
        ),
    )
    return simulation, simulation.to_dict()


def _risk(request: RiskRequest, inputs: Inputs, progress: Progress | None):
    from privcore.runs.tables import risk_tables

    original, release = _pair(inputs)
    assessment = _read(
        original,
        risk_tables(
            original.engine,
            original.handle,
            release,
            qi=request.qi,
            sa=request.sa,
            hierarchies=_hierarchies(inputs),
            name=original.name,
            progress=progress,
            sampling_fraction=request.sampling_fraction,
            population=inputs.population,
            control=inputs.control,
            seed=request.seed,
            gdpr=request.gdpr,
        ),
    )
    return assessment, assessment.history_summary()


def _report(request: ReportRequest, inputs: Inputs, progress: Progress | None):
    from privcore.runs.runners import report_parts
    from privcore.runs.tables import readiness_tables

    original, release = _pair(inputs)
    report = _read(
        original,
        readiness_tables(
            original.engine,
            original.handle,
            release,
            qi=request.qi,
            sa=request.sa,
            thresholds=request.thresholds,
            hierarchies=_hierarchies(inputs),
            key=request.key,
            roll_size=request.roll_size,
            seed=request.seed,
            shuffled=inputs.shuffled,
            progress=progress,
            original_name=original.name,
            release_name=inputs.release_name or inputs.release.name,
        ),
    )
    return report, report.history_summary(), report_parts(request, report, inputs.describe())


def _anonymize(request: AnonymizeRequest, inputs: Inputs, progress: Progress | None):
    """The table's frequency set anonymized and the release written by the engine to
    ``inputs.out`` (its rows shuffled with the seed when ``inputs.shuffled``); the
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
        algorithm=request.algorithm,
        max_suppression=request.max_suppression,
        seed=request.seed,
        name=original.name,
        progress=progress,
        shuffle=inputs.shuffled,
        **request.options(),
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
