"""What the perturbative methods share (SPEC §11): their columns, options and release.

The statistical offices' methods (sdcMicro, μ-Argus) change values instead of
generalizing them: MDAV microaggregation (:mod:`~privcore.anonymize.mdav`), invariant PRAM
(:mod:`~privcore.anonymize.pram`), correlated noise (:mod:`~privcore.anonymize.noise`),
rank swapping (:mod:`~privcore.anonymize.rank_swap`), top/bottom coding
(:mod:`~privcore.anonymize.top_bottom`) and local suppression
(:mod:`~privcore.anonymize.local_suppression`). Each has the shared signature
``(df, schema, constraints, *, max_suppression, seed, progress, weights, <options>)``,
keeps every row in its place, changes only quasi-identifiers (QIs), and returns a
:class:`~privcore.anonymize.base.Release` measured like every other release.

Which constraints a release meets. MDAV and local suppression build classes that meet
the constraints (k, l, t), or raise :class:`~privcore.errors.InfeasibleError`. PRAM,
noise, rank swapping and top/bottom coding do not aim at a class size: they release
what the perturbation gives and report the k, l and t it has (their ``satisfied`` is
the measurement's, often False), with a note saying so (:func:`finish_perturbed`).

Columns. A *numeric* QI holds measurements: numbers (not booleans) that are not codes.
A column of codes written with digits — a ZIP or postal code, an identifier, any column
whose name or digit-masking hierarchy says so — is *categorical* like text, by the one
decision of :func:`privcore.data.roles.code_column`: the mean, the noise, the rank or
the percentile of ZIP codes names no place (510630 and 100080 average to a ZIP of
neither city). Noise, rank swapping, top/bottom coding and MDAV change numeric QIs and
keep the categorical ones (MDAV forms its groups within each combination of them; the
others leave codes as they are, with a note ``perturbation.codes_kept``); a table with
no numeric QI is refused (:class:`~privcore.errors.ParameterError`
``anonymize.needs_numeric_qi``, or ``anonymize.codes_not_measurements`` when its
numbers are all codes). PRAM changes categorical ones (all QIs, as categories, when
every one is numeric); local suppression blanks cells of any QI.

Suppressed rows. A row that a method blanks in every QI (``*``) is a suppressed row
(SPEC §13), whatever its rows would be as a class: it counts against the suppression
limit, and a method that would blank more records than the limit allows refuses
(:class:`~privcore.errors.InfeasibleError` ``anonymize.suppression_over_limit``, with the
limit that would allow it) instead of releasing them.

Records. Each method treats records one by one (a random draw per record, a group
mean per record), so a frequency set whose rows stand for several records is refused
(``anonymize.needs_records``), as KACA and condensation refuse it.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Iterator, Sequence
from typing import Any, TypedDict, Unpack

import numpy as np
import pandas as pd

from privcore.anonymize.base import (
    Problem,
    Release,
    finish,
    report_progress,
    suppression_over_limit,
)
from privcore.anonymize.problem import Call
from privcore.core.jsonsafe import plain
from privcore.core.kinds import ReleaseKind
from privcore.core.notes import Note
from privcore.core.privacy_parameters import as_float
from privcore.data.codes import SUPPRESSED, is_number
from privcore.data.roles import CodeColumn, code_column
from privcore.errors import ParameterError
from privcore.measure.population import individual_risk, population_uniqueness
from privcore.measure.suda2 import suda2
from privcore.measure.utility import perturbation_utility

__all__ = [
    "categorical_qis",
    "checked_option",
    "code_qis",
    "codes_note",
    "columns_in_turn",
    "finish_perturbed",
    "numeric_matrix",
    "numeric_qis",
    "refuse_over_limit",
    "star_cells",
]


def code_qis(problem: Problem) -> list[CodeColumn]:
    """The QIs that hold numbers which are codes (:func:`~privcore.data.roles.code_column`:
    by their name or their hierarchy), in the schema's order, each with its reason."""
    found = (code_column(problem.frame[c], c, problem.hierarchies.get(c)) for c in problem.qi)
    return [code for code in found if code is not None]


def numeric_qis(problem: Problem) -> list[str]:
    """The QIs holding measurements: numbers (booleans are categories) that are not
    codes (:func:`code_qis`), in the schema's order."""
    codes = {code.column for code in code_qis(problem)}
    return [c for c in problem.qi if is_number(problem.frame[c].dtype) and c not in codes]


def categorical_qis(problem: Problem) -> list[str]:
    """The QIs that are not numeric (text, booleans, categories, dates, codes), in order."""
    numeric = set(numeric_qis(problem))
    return [c for c in problem.qi if c not in numeric]


def require_numeric(problem: Problem, title: str) -> list[str]:
    """The numeric QIs, or the error saying that ``title`` (the method) needs one: the
    QIs hold no number (``anonymize.needs_numeric_qi``), or only codes
    (``anonymize.codes_not_measurements``, naming them)."""
    columns = numeric_qis(problem)
    if columns:
        return columns
    codes = code_qis(problem)
    if codes:
        raise ParameterError(
            f"{title} changes measured numbers (ages, amounts); "
            f"{', '.join(c.column for c in codes)} hold codes (a ZIP, an identifier), "
            "whose mean, noise or rank names nothing. Mark a measured column as "
            "quasi-identifier, or use PRAM, local suppression or a generalization.",
            code="anonymize.codes_not_measurements",
            algorithm=title,
            columns=[c.column for c in codes],
        )
    raise ParameterError(
        f"{title} changes numeric quasi-identifiers, and none of "
        f"{', '.join(problem.qi)} holds numbers. Mark a numeric column as "
        "quasi-identifier or choose another method.",
        code="anonymize.needs_numeric_qi",
        algorithm=title,
        columns=list(problem.qi),
    )


def codes_note(problem: Problem, title: str) -> list[Note]:
    """The note that ``title`` kept the QIs holding codes as they are (none without)."""
    codes = code_qis(problem)
    if not codes:
        return []
    names = ", ".join(c.column for c in codes)
    return [
        Note(
            "perturbation.codes_kept",
            f"{names} hold codes (a ZIP, an identifier: by their name or their "
            f"hierarchy), not measurements: {title} treats them as categories and "
            "releases only values of the original.",
            columns=names,
            algorithm=title,
        )
    ]


def numeric_matrix(
    problem: Problem, columns: Sequence[str], title: str, *, allow_missing: bool
) -> np.ndarray:
    """The ``columns`` as an n × d float64 matrix (NaN where a value is missing).

    Infinite values ("inf" in a file) are refused: no mean, covariance or rank of them
    is a number (:class:`~privcore.errors.ParameterError`
    ``anonymize.numeric_qi_infinite``); missing values too unless ``allow_missing``
    (``anonymize.numeric_qi_incomplete``)."""
    x = np.column_stack(
        [problem.frame[c].to_numpy(dtype=np.float64, na_value=np.nan) for c in columns]
    )
    bad = ~np.isfinite(x) if not allow_missing else np.isinf(x)
    if bad.any():
        named = [c for j, c in enumerate(columns) if bad[:, j].any()]
        what = "infinite" if allow_missing else "missing or infinite"
        raise ParameterError(
            f"{title} needs {'finite' if allow_missing else 'complete'} numeric "
            f"quasi-identifiers; {', '.join(named)} has {what} values. Fill or remove them "
            "first.",
            code="anonymize.numeric_qi_infinite"
            if allow_missing
            else "anonymize.numeric_qi_incomplete",
            algorithm=title,
            columns=named,
        )
    return x


def checked_option(
    name: str,
    value: Any,
    *,
    low: float,
    high: float,
    open_low: bool = False,
    open_high: bool = False,
) -> float:
    """``value`` of the algorithm option ``name`` as a float in its range (a library
    call does not pass through the request's checks); anything else is a
    :class:`~privcore.errors.ParameterError` ``parameter.invalid`` naming the range."""
    number = math.nan if isinstance(value, bool) else as_float(value)
    below = number < low or (open_low and number == low)
    above = number > high or (open_high and number == high)
    if not math.isfinite(number) or below or above:
        left, right = "(" if open_low else "[", ")" if open_high else "]"
        raise ParameterError(
            f"{name} must be a number in {left}{low:g}, {high:g}{right}, not {value!r}.",
            code="parameter.invalid",
            option=name,
            allowed=f"{left}{low:g}, {high:g}{right}",
        )
    return number


def refuse_over_limit(problem: Problem, blanked: np.ndarray, title: str) -> None:
    """Refuse (:class:`~privcore.errors.InfeasibleError`
    ``anonymize.suppression_over_limit``) when the rows ``blanked`` (a boolean mask: the
    rows a method shows with ``*`` in every QI) hold more records than the suppression
    limit allows: each of them is a suppressed row (SPEC §13), whether or not together
    they would meet the constraints."""
    records = problem.records(np.asarray(blanked, dtype=bool))
    if records > problem.budget:
        raise suppression_over_limit(problem, records, title)


def star_cells(column: pd.Series, rows: np.ndarray) -> pd.Series:
    """``column`` with the cells of ``rows`` (a boolean mask) shown as ``*``, the
    suppression marker every measure reads as "any value"; a column with a ``*`` is
    text (numbers written as their text), as :func:`~privcore.anonymize.base.suppress`
    makes it."""
    if not rows.any():
        return column
    if column.dtype == "str":
        return column.mask(rows, SUPPRESSED)
    values = column.astype(object).to_numpy(copy=True)
    values[rows] = SUPPRESSED
    return pd.Series(values, index=column.index, name=column.name).astype("str")


#: The sampling fraction of a perturbed release's population-level risk: that of the
#: attack simulator's default voter roll, ten people per record.
RISK_SAMPLING_FRACTION = 0.1


def population_risk(
    released: pd.DataFrame, qi: Sequence[str], sampling_fraction: float = RISK_SAMPLING_FRACTION
) -> dict[str, Any]:
    """The population-level risk of a released table on its QIs, as statistical offices
    judge a perturbed file (SPEC §11): the population uniqueness share U/N and the model
    Dankar et al.'s rule chose (:func:`~privcore.measure.population.population_uniqueness`),
    Benedetti–Franconi expected re-identifications Σ E[1/F | f] and the largest record
    risk (:func:`~privcore.measure.population.individual_risk`), and SUDA2's sample and
    special uniques (:func:`~privcore.measure.suda2.suda2`), at ``sampling_fraction``
    (default 1/10: the attack simulator's default voter roll)."""
    uniqueness = population_uniqueness(released, qi, sampling_fraction=sampling_fraction)
    individual = individual_risk(released, qi, sampling_fraction=sampling_fraction)
    uniques = suda2(released, qi)
    return plain(
        {
            "sampling_fraction": sampling_fraction,
            "population_uniqueness": {
                "model": uniqueness.model,
                "share": uniqueness.share,
                "count": uniqueness.count,
            },
            "individual_risk": {
                "expected_reidentifications": individual.expected_reidentifications,
                "max": individual.max,
            },
            "suda2": {
                "sample_uniques": uniques.sample_uniques,
                "special_uniques": uniques.special_uniques,
            },
        }
    )


def numeric_problem(call: Call, title: str) -> tuple[Problem, list[str], np.ndarray]:
    """The prepared problem of a method that changes numeric QIs, those QIs (refused when
    there are none, :func:`require_numeric`) and their values as a float matrix (missing
    cells NaN, infinite values refused, :func:`numeric_matrix`)."""
    problem = call.prepare(need_hierarchies=False)
    columns = require_numeric(problem, title)
    return problem, columns, numeric_matrix(problem, columns, title, allow_missing=True)


def columns_in_turn(
    call: Call, problem: Problem, columns: Sequence[str], title: str
) -> Iterator[tuple[str, pd.Series]]:
    """Each of ``columns`` with its original values, for a method that changes them one
    at a time: progress ``"<title>: <column>"`` over the first half of the run (the
    second measures the release, :func:`release_changed`)."""
    for j, column in enumerate(columns):
        report_progress(call.progress, 0.5 * j / len(columns), f"{title}: {column}")
        yield column, problem.frame[column]


class MethodRun(TypedDict):
    """What the release of a perturbative method says of its run: the ``algorithm``
    (its name), its ``title``, when it ``started`` (:func:`time.perf_counter`) and its
    ``params``."""

    algorithm: str
    title: str
    started: float
    params: dict[str, Any]


def release_changed(
    call: Call,
    problem: Problem,
    released: pd.DataFrame,
    *,
    notes: Sequence[str],
    numeric: bool = True,
    **run: Unpack[MethodRun],
) -> Release:
    """The release of a method that changes values and does not aim at the constraints
    (PRAM, noise, rank swapping, top/bottom coding): the time of the change since
    ``started``, progress ``"<title>: measuring the release"``, the release measured with
    the method's ``params`` and ``notes`` — and, for a method that changes ``numeric``
    QIs, the note on the codes it kept (:func:`codes_note`) — (:func:`finish_perturbed`,
    ``enforces_models=False``), then ``Done``."""
    title = run["title"]
    if numeric:
        notes = [*notes, *codes_note(problem, title)]
    search_seconds = time.perf_counter() - run["started"]
    report_progress(call.progress, 0.5, f"{title}: measuring the release")
    release = finish_perturbed(
        problem,
        released,
        search_seconds=search_seconds,
        notes=notes,
        enforces_models=False,
        **run,
    )
    report_progress(call.progress, 1.0, "Done")
    return release


def finish_perturbed(
    problem: Problem,
    released: pd.DataFrame,
    *,
    notes: Sequence[str] = (),
    suppressed: np.ndarray | None = None,
    enforces_models: bool,
    search_seconds: float | None = None,
    kind: ReleaseKind = ReleaseKind.PERTURBED,
    **run: Unpack[MethodRun],
) -> Release:
    """Measure and wrap a perturbed release (:func:`~privcore.anonymize.base.finish`).

    ``run`` names the method (:class:`MethodRun`); its ``params`` gain
    ``enforces_models``. A method that does not enforce the constraints
    (``enforces_models=False``) gets a note with the k the release has and whether the
    constraints hold on its classes (``perturbation.not_enforced.holds`` / ``.fails``);
    with a suppression limit it also says that the limit was not used (such a method
    suppresses no rows: ``perturbation.no_suppression``). ``utility`` of the release:
    :func:`perturbation_utility` on the QIs (numeric ones compared as numbers, the first
    regressed on the others when there are two or more; categorical ones by the share of
    cells changed)."""
    n = problem.n_table_rows
    if not enforces_models and problem.max_suppression > 0:
        notes = [
            *notes,
            Note(
                "perturbation.no_suppression",
                "This method suppresses no rows; the suppression limit was not used.",
            ),
        ]
    release = finish(
        problem,
        released,
        np.zeros(n, dtype=bool) if suppressed is None else suppressed,
        algorithm=run["algorithm"],
        params={**run["params"], "enforces_models": enforces_models},
        started=run["started"],
        search_seconds=search_seconds,
        notes=notes,
        kind=kind,
        numeric=numeric_qis(problem),
    )
    numeric = numeric_qis(problem)
    release = dataclasses.replace(
        release,
        utility=perturbation_utility(
            problem.frame,
            release.frame,
            numeric,
            target=numeric[0] if len(numeric) >= 2 else None,
            categorical_columns=[c for c in problem.qi if c not in numeric],
        ),
        population_risk=population_risk(release.frame, list(problem.qi)),
    )
    if enforces_models:
        return release
    measured = release.measurement.to_dict()
    holds = bool(release.measurement.models.satisfied)
    title = run["title"]
    note = Note(
        f"perturbation.not_enforced.{'holds' if holds else 'fails'}",
        f"{title} perturbs values without aiming at a class size: the release has "
        f"k = {measured['k']} and the constraints "
        f"{'hold' if holds else 'do not hold'} on its classes (measured, not enforced).",
        algorithm=title,
        k=measured["k"],
    )
    return dataclasses.replace(release, notes=(*release.notes, note))
