"""The last step of every algorithm: measure the released table and wrap it up.

:func:`finish` removes the identifiers, measures the release independently
(:func:`~privcore.measure.report.measure_release`), refuses more suppression than the
limit allows, words what the rows at '*' are, and returns the
:class:`~privcore.anonymize.release.Release`. Suppressed rows show ``*`` in every QI
(:func:`suppress`); coded (categorical) columns become text only once measured
(:func:`categorical_text`).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from privcore.anonymize.problem import Problem, suppression_over_limit
from privcore.anonymize.release import LatticeTrace, Release
from privcore.classes import (
    SUPPRESSED,
    EquivalenceClasses,
    classes_from_codes,
    compact_codes,
    top_rows,
)
from privcore.core.kinds import ReleaseKind
from privcore.core.notes import Note
from privcore.data.schema import Schema
from privcore.measure.kind_loss import kind_loss
from privcore.measure.report import ReleaseMeasurement, measure_release
from privcore.models import evaluate


def suppress(frame: pd.DataFrame, qi: Sequence[str], rows: np.ndarray) -> pd.DataFrame:
    """Show every QI of ``rows`` (bool mask) as ``*``; the rows stay in place. A text
    column is masked as it is (no Python string per row); another becomes text."""
    out = frame.copy()
    if rows.any():
        for column in qi:
            if out[column].dtype == "str":
                out[column] = out[column].mask(rows, SUPPRESSED)
                continue
            values = out[column].astype(object).to_numpy(copy=True)
            values[rows] = SUPPRESSED
            out[column] = pd.Series(values, index=out.index).astype("str")
    return out


def _small_levels(
    record_levels: Mapping[str, np.ndarray] | None,
) -> dict[str, np.ndarray] | None:
    """Per-row hierarchy levels in the smallest integer type (a level is at most a
    hierarchy's height)."""
    if record_levels is None:
        return None
    small = {}
    for column, levels in record_levels.items():
        levels = np.asarray(levels)
        small[column] = compact_codes(levels, int(levels.max()) + 1 if len(levels) else 1)
    return small


def _run_params(problem: Problem, algorithm: str) -> dict[str, Any]:
    """What every release records of its run: the algorithm, the constraints, the
    suppression limit and the seed."""
    return {
        "algorithm": algorithm,
        "constraints": [m.to_dict() for m in problem.constraints],
        "max_suppression": problem.max_suppression,
        "seed": problem.seed,
    }


def finish(
    problem: Problem,
    released: pd.DataFrame,
    suppressed: np.ndarray,
    *,
    algorithm: str,
    node: tuple[int, ...] | None = None,
    lattice: LatticeTrace | None = None,
    params: Mapping[str, Any] | None = None,
    started: float,
    search_seconds: float | None = None,
    synthetic: bool = False,
    record_levels: Mapping[str, np.ndarray] | None = None,
    extra_loss: Mapping[str, float] | None = None,
    notes: Sequence[str] = (),
    class_override: np.ndarray | None = None,
    coded: Sequence[str] = (),
    kind: ReleaseKind | None = None,
    numeric: Sequence[str] = (),
) -> Release:
    """Remove identifiers, measure the release independently, and wrap it up.

    ``kind`` is what the release is (default: synthetic when ``synthetic``, else a
    generalization); a release of another kind than a generalization also gets the loss
    that fits it (:func:`~privcore.measure.kind_loss.kind_loss`), with ``numeric`` the
    quasi-identifiers that hold measurements.

    ``suppressed`` (a boolean per row) are the rows the algorithm blanked — ``*`` in
    every QI. They are the release's suppressed rows (SPEC §13), whatever they would be
    as one class: the measurement leaves them out of the classes
    (:func:`~privcore.classes.release_classes` with ``blanked``), while rows at ``*``
    because their values were generalized to the top of every hierarchy form a class.
    More suppressed records than the limit allows raise
    :class:`~privcore.errors.InfeasibleError` ``anonymize.suppression_over_limit``
    (:func:`suppression_over_limit`). ``class_override`` gives a synthetic release's
    groups (its ``class_ids``).

    ``coded`` names the columns of ``released`` that the algorithm gives as pandas
    categoricals of their released text (1–2 bytes per row): the release is measured
    in that form — the measurement reads only which cells are equal and the text of
    the distinct cells, the same for a categorical as for its text — and only then are
    those columns turned into the text the release holds (:func:`categorical_text`),
    so that the text (the largest part of a release) and the measurement's row-sized
    arrays are never in memory together.

    For a frequency set (``problem.weights``) ``released`` has one row per row of the
    input, aligned with it — the mapping from each frequency-set row to its released
    values — and is measured with the weights, so that classes, suppression, loss and
    every figure count records; the release keeps the weights.
    """
    released = released.drop(columns=[c for c in problem.identifiers if c in released.columns])
    measure_started = time.perf_counter()
    released, measurement = _measured(problem, released, suppressed, coded)
    classes = measurement.classes
    if classes.n_suppressed > problem.budget:
        raise suppression_over_limit(problem, classes.n_suppressed, algorithm)
    notes = [*notes, *_top_notes(released, problem, classes)]
    if synthetic:
        notes += _real_record_notes(measurement)
    class_ids = class_override if synthetic and class_override is not None else classes.ids
    groups_satisfy, group_verdicts = _group_verdicts(problem, class_override, synthetic)
    timings = {
        "search": search_seconds if search_seconds is not None else measure_started - started,
        "measure": time.perf_counter() - measure_started,
        "total": time.perf_counter() - started,
    }
    if kind is None:
        kind = ReleaseKind.SYNTHETIC if synthetic else ReleaseKind.GENERALIZED
    fitting_loss = _fitting_loss(problem, released, kind, numeric)
    all_params = {**_run_params(problem, algorithm), **(params or {})}
    if groups_satisfy is not None:
        all_params["groups_satisfy"] = groups_satisfy
    return Release(
        frame=released,
        algorithm=algorithm,
        qi=problem.qi,
        sa=problem.sa,
        removed=tuple(c for c in problem.identifiers if c in problem.frame.columns),
        class_ids=class_ids,
        suppressed=classes.suppressed.copy(),
        node=node,
        measurement=measurement,
        params=all_params,
        timings=timings,
        lattice=lattice,
        synthetic=synthetic,
        kind=kind,
        kind_loss=fitting_loss,
        record_levels=_small_levels(record_levels),
        extra_loss=dict(extra_loss or {}),
        notes=tuple(notes),
        schema=_used_schema(problem),
        source=problem.frame,
        weights=problem.weights,
        group_verdicts=group_verdicts,
    )


def _measured(
    problem: Problem, released: pd.DataFrame, suppressed: np.ndarray, coded: Sequence[str]
) -> tuple[pd.DataFrame, ReleaseMeasurement]:
    """The release measured against the input (identifiers left out), with the rows
    the algorithm blanked as its suppressed rows; the ``coded`` columns then as text."""
    weighted = {} if problem.weights is None else {"weights": problem.weights}
    measurement = measure_release(
        problem.frame.drop(columns=list(problem.identifiers), errors="ignore"),
        released,
        qi=problem.qi,
        sa=problem.sa,
        models=problem.constraints,
        hierarchies=problem.hierarchies,
        blanked=np.asarray(suppressed, dtype=bool),
        **weighted,
    )
    if coded:
        released, measurement = _as_text(released, measurement, coded)
    return released, measurement


def _real_record_notes(measurement: ReleaseMeasurement) -> list[Note]:
    """A synthetic release's rows equal to a real record of the input, in words."""
    real = measurement.real_records
    if not real.get("any"):
        return []
    return [
        Note(
            "anonymize.real_records",
            f"{real['any']} released row(s) equal a real record of the input in every "
            f"quasi-identifier and sensitive attribute ({real['own']} of them their own "
            "record): synthesis returns the real values of a group whose numeric values "
            "are all equal.",
            any=real["any"],
            own=real["own"],
        )
    ]


def _fitting_loss(
    problem: Problem, released: pd.DataFrame, kind: ReleaseKind, numeric: Sequence[str]
) -> Mapping[str, Any]:
    """The loss that fits a release of another kind than a generalization (none for a
    generalization, whose loss the measurement gives)."""
    if kind is ReleaseKind.GENERALIZED:
        return {}
    return kind_loss(kind, problem.frame, released, problem.qi, numeric)


def _group_verdicts(
    problem: Problem, class_override: np.ndarray | None, synthetic: bool
) -> tuple[bool | None, list | None]:
    """Whether a synthetic release's groups (``class_override``) meet every
    constraint, and each model's verdict on them (None, None for another release)."""
    if not synthetic or class_override is None:
        return None, None
    groups = classes_from_codes(
        [np.asarray(class_override) + 1],
        [int(np.max(class_override)) + 2],
        qi=problem.qi,
        sensitive=problem.sensitive,
    )
    verdicts = evaluate(groups, problem.constraints).verdicts
    return all(v["passed"] for v in verdicts), verdicts


def categorical_text(series: pd.Series) -> pd.Series:
    """A categorical column as the text column it stands for: each cell the text of its
    category, a missing cell (code -1) missing; the pandas ``str`` type, built in Arrow
    from the codes and the categories (no Python string per row). Its buffers come from
    the system allocator, which reuses the memory the measurement has just freed;
    Arrow's default pool would add them on top of it."""
    values = series.array
    codes = np.asarray(values.codes)
    categories = np.asarray(values.categories, dtype=object)
    dictionary = pa.array(categories, type=pa.large_string())
    indices = pa.array(codes, mask=codes < 0) if (codes < 0).any() else pa.array(codes)
    text = pc.cast(
        pa.DictionaryArray.from_arrays(indices, dictionary),
        pa.large_string(),
        memory_pool=pa.system_memory_pool(),
    )
    return pd.Series(pd.array(text, dtype="str"), index=series.index, name=series.name)


def _as_text(
    released: pd.DataFrame, measurement: ReleaseMeasurement, coded: Sequence[str]
) -> tuple[pd.DataFrame, ReleaseMeasurement]:
    """The release with its ``coded`` (categorical) columns as text, and its measurement
    holding that text: the aligned release (the release's rows, renumbered 0..n-1 as
    :func:`~privcore.measure.report.measure_release` pairs them by position) and the
    class table of the models' report."""
    released = released.copy(deep=False)
    for column in coded:
        released[column] = categorical_text(released[column])
    models = measurement.models
    table = models.class_table
    if table is not None and any(c in table.columns for c in coded):
        table = table.copy(deep=False)
        for column in coded:
            if column in table.columns and isinstance(table[column].dtype, pd.CategoricalDtype):
                table[column] = categorical_text(table[column])
        models = dataclasses.replace(models, class_table=table)
    measurement = dataclasses.replace(
        measurement, release=released.reset_index(drop=True), models=models
    )
    return released, measurement


def _top_notes(released: pd.DataFrame, problem: Problem, classes: EquivalenceClasses) -> list[str]:
    """What the rows showing ``*`` in every QI are in the release, in words: the
    suppressed ones (blanked by the algorithm), and those generalized to the top."""
    top = top_rows(released, problem.qi, classes=classes)
    suppressed = classes.n_suppressed
    generalized = problem.records(top & ~classes.suppressed)
    notes = []
    if suppressed:
        notes.append(
            Note(
                "anonymize.top_suppressed",
                f"{suppressed} row(s) were suppressed by the algorithm ('*' in every "
                f"quasi-identifier): counted against the limit, which allows "
                f"{problem.budget}, and left out of the classes.",
                size=suppressed,
                budget=problem.budget,
            )
        )
    if generalized:
        notes.append(
            Note(
                "anonymize.top_class",
                f"{generalized} row(s) show '*' in every quasi-identifier because their "
                "values were generalized to the top of every hierarchy: they are one "
                "equivalence class (the top of the lattice), not suppressed rows.",
                size=generalized,
            )
        )
    return notes


def _used_schema(problem: Problem) -> Schema:
    """The roles an algorithm ran with (QIs, SAs, identifiers) and their hierarchies."""
    roles = {
        **{c: "identifier" for c in problem.identifiers if c in problem.frame.columns},
        **{c: "quasi_identifier" for c in problem.qi},
        **{c: "sensitive" for c in problem.sa},
    }
    return Schema(roles, {c: h for c, h in problem.hierarchies.items() if c in roles})
