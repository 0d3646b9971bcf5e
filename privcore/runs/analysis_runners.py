"""The runners of the analyses around a release that are requests of their own
(:mod:`privcore.runs.analysis_requests`): the background-knowledge, row-order and
complementary-release attacks, a voter roll, the differencing attack on one person, an
ε sweep of an LDP mechanism, randomization with reconstruction, the database
reconstruction from a table's published counts, the profile of a table's columns with
the roles confirmed for it, and the opening of a table in an engine."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

import pandas as pd

from privcore.core.jsonsafe import plain
from privcore.core.progress import Progress
from privcore.errors import ParameterError
from privcore.runs.analysis_requests import (
    BackgroundRequest,
    ComplementaryRequest,
    DatabaseReconstructionRequest,
    DifferencingRequest,
    OpenTableRequest,
    OrderingRequest,
    ProfileRequest,
    ReconstructionRequest,
    RollRequest,
    SweepRequest,
)
from privcore.runs.inputs import Inputs

__all__ = ["ANALYSIS_RUNNERS", "ColumnProfile", "column_profile", "differencing_summary"]


def _background(request: BackgroundRequest, inputs: Inputs, progress: Progress | None):
    """The background-knowledge attack on the original (before) and on the release
    (after): the attacker reads each table on its own, so no pairing of rows is needed."""
    from privcore.attacks import background_attack

    inputs.need("original", "release")
    reports = {}
    tables = (("before", inputs.original.frame), ("after", inputs.release))
    for step, (when, frame) in enumerate(tables):
        if progress is not None:
            progress(step / 2, when)
        reports[when] = background_attack(
            frame,
            list(request.qi),
            request.sa[0],
            m=request.m,
            tau=request.tau,
            prior=None if request.prior is None else dict(request.prior),
        )
    return reports, {when: report.summary for when, report in reports.items()}


def _ordering(request: OrderingRequest, inputs: Inputs, progress: Progress | None):
    """The unsorted-matching attack on the order the release's rows are published in: a
    release made here (``inputs.aligned``) is in the original's order unless shuffled;
    a file's order is known only through a key column present in both tables."""
    from privcore.attacks import unsorted_matching_attack

    inputs.need("original", "release")
    order = None
    if request.key is not None:
        order = _key_order(inputs.original.frame, inputs.release, request.key)
    elif not inputs.aligned:
        raise ParameterError(
            "The row order of a release file can be attacked only when its rows can be "
            "traced to the original's: give a key column present in both tables.",
            code="attack.order_unknown",
        )
    report = unsorted_matching_attack(
        inputs.original.frame,
        inputs.release,
        order=order,
        qi=list(request.qi) or None,
        seed=request.seed,
        compare_shuffled=True,
    )
    return report, report.summary


def _key_order(
    original: pd.DataFrame,
    release: pd.DataFrame,
    key: str,
    names: tuple[str, str] = ("original", "release"),
) -> Any:
    """For each row of ``release``, the position in ``original`` of the record with the
    same ``key`` (unique in both tables, and the same set of keys); ``names`` are the
    tables' names in an error."""
    import numpy as np

    for name, frame in zip(names, (original, release), strict=True):
        if key not in frame.columns:
            raise ParameterError(
                f"The key column {key!r} is not in the {name}.",
                code="attack.key_missing",
                key=key,
                table=name,
            )
        if frame[key].duplicated().any():  # not rows: a key's values, checked unique
            raise ParameterError(
                f"The key column {key!r} repeats values in the {name}: it cannot trace rows.",
                code="attack.key_not_unique",
                key=key,
                table=name,
            )
    positions = pd.Index(original[key]).get_indexer(release[key])
    if len(release) != len(original) or (positions < 0).any():
        raise ParameterError(
            f"The values of {key!r} in the {names[1]} are not those of the {names[0]}: "
            "each record must stand once in both tables.",
            code="attack.key_mismatch",
            key=key,
            table=names[1],
            other=names[0],
        )
    return np.asarray(positions)


def _complementary(request: ComplementaryRequest, inputs: Inputs, progress: Progress | None):
    """Two releases of the same records, paired row by row, intersected class by class
    (:func:`privcore.attacks.complementary_attack`)."""
    from privcore.attacks import complementary_attack

    inputs.need("release", "second_release")
    first, second = inputs.release, inputs.second_release
    if request.key is not None:  # row i of the second release: the first's record i
        positions = _key_order(second, first, request.key, ("second release", "first release"))
        second = second.iloc[positions].reset_index(drop=True)
        first = first.reset_index(drop=True)
    report = complementary_attack(first, second, list(request.qi), sa=list(request.sa))
    return report, report.to_dict()["summary"]


def _mechanism_at(name: str, domain: int | None, epsilon: float) -> Any:
    from privcore.ldp.mechanisms import make

    return make(name, epsilon, d=domain)


def _sweep(request: SweepRequest, inputs: Inputs, progress: Progress | None):
    """The mechanism audited at each claimed ε (:func:`privcore.ldp.audit.sweep`): one row
    per ε, every measure with its interval or bound."""
    import functools

    from privcore.ldp import audit as ldp_audit

    make = functools.partial(_mechanism_at, request.mechanism, request.domain)
    make(request.epsilons[0])  # an unknown mechanism or a missing domain, in words, first
    frame = ldp_audit.sweep(make, list(request.epsilons), progress=progress)
    return frame, {"rows": plain(frame.to_dict("records"))}


def _reconstruction(request: ReconstructionRequest, inputs: Inputs, progress: Progress | None):
    """Randomization and reconstruction on a simulated truth: ``values`` draws of a
    bimodal distribution on [0, 100] (40 % around 25 with σ = 7, 60 % around 70 with
    σ = 10, clipped; seed 0), perturbed with the request's noise (seed 1), rebuilt on 20
    intervals. Returns ``(result, truth)`` (truth: the true shares of the intervals) and
    the total-variation distances to the truth of the estimate and of the perturbed
    values (Agrawal & Srikant 2000)."""
    import numpy as np

    from privcore.ldp.reconstruction import Noise, randomize, reconstruct, total_variation

    n = request.values
    rng = np.random.default_rng(0)
    values = np.where(rng.random(n) < 0.4, rng.normal(25, 7, n), rng.normal(70, 10, n))
    values = values.clip(0, 100)
    noise = Noise(request.noise, float(request.noise_scale))
    perturbed = randomize(values, noise, seed=1)
    result = reconstruct(
        perturbed, noise, bins=20, lower=0.0, upper=100.0, method=request.reconstruction
    )
    truth = np.histogram(values, bins=result.edges)[0] / n  # not rows: simulated values
    summary = {
        "tv": total_variation(result.estimate, truth),
        "tv_perturbed": total_variation(result.perturbed, truth),
        "iterations": result.iterations,
    }
    return (result, truth), summary


def _database_reconstruction(
    request: DatabaseReconstructionRequest, inputs: Inputs, progress: Progress | None
):
    """The database-reconstruction attack on the original's own counts
    (:func:`privcore.attacks.reconstruction.published.attack_table`): the
    :class:`~privcore.attacks.reconstruction.published.Attack` and what the history keeps of it —
    counts, shares and the curve, never a record nor a block's value."""
    from privcore.attacks.reconstruction.published import LinkInput, ReleaseInput, attack_table

    inputs.need("original")
    frame = inputs.original.frame
    tables = request.tables_for(frame)
    release = None
    if inputs.release is not None:
        hierarchies = {} if inputs.schema is None else dict(inputs.schema.hierarchies)
        release = ReleaseInput(inputs.release, hierarchies, inputs.release_kind or "generalized")
    attack = attack_table(
        frame,
        tables,
        block=request.block,
        suppress_below=request.suppress_below,
        epsilons=request.noise_epsilons or (),
        seed=request.seed,
        seeds=request.seeds,
        tolerance=request.tolerance,
        max_solutions=request.max_solutions,
        time_limit=request.time_limit,
        release=release,
        link=LinkInput(request.link_on, request.roll_size),
        round_to=request.round_to,
        noise_law=request.noise_law,
        delta=request.noise_delta,
        progress=progress,
    )
    return attack, {"tables": [list(t) for t in tables], **attack.summary()}


def _roll(request: RollRequest, inputs: Inputs, progress: Progress | None):
    """A synthetic voter roll around the original (:func:`privcore.attacks.build_roll`):
    its people, and others drawn around them."""
    from privcore.attacks import build_roll

    inputs.need("original")
    roll = build_roll(
        inputs.original.frame,
        list(request.qi),
        size=request.roll_size,
        seed=request.seed,
        locale=request.locale,
        joint=request.joint,
        progress=progress,
    )
    return roll, {"size": len(roll.frame)}


def _differencing(request: DifferencingRequest, inputs: Inputs, progress: Progress | None):
    """The differencing attack on the person of ``request.row``
    (:func:`privcore.dp.dinner.differencing`): the history keeps the privacy figures
    only — not the value tested, not whether the person has it, not the counts."""
    from privcore.dp.dinner import differencing

    inputs.need("original")
    attack = differencing(
        inputs.original.frame,
        request.row,
        dict(request.where),
        epsilon=request.epsilon,
        prior=request.prior,
        mechanism=request.noise,
        seed=request.seed,
    )
    return attack, differencing_summary(attack)


def differencing_summary(attack: Any) -> dict[str, Any]:
    """What the history keeps of an attack on a person: the privacy figures only — not
    the value tested, not whether the person has it, not the counts."""
    return {
        "epsilon": attack.epsilon,
        "prior": attack.prior,
        "mechanism": attack.mechanism,
        "posterior_exact_answers": attack.posterior_exact_answers,
        "posterior_max": attack.posterior_max,
        "posterior_min": attack.posterior_min,
    }


@dataclass(frozen=True)
class ColumnProfile:
    """A table's profile: ``table`` (one row per column: type, distinct, missing,
    missing share, uniqueness, examples) and the role ``suggestions`` made from the
    table (empty when the roles suggested were given)."""

    table: pd.DataFrame
    suggestions: list[Any]


def column_profile(original: Any, suggest: bool = True) -> ColumnProfile:
    """The profile of ``original``'s columns: the one an engine computed when the table
    was opened (an ``original`` with a ``profile`` table of its own), else
    :func:`privcore.data.profile` of its rows in memory; with ``suggest``, the roles
    :func:`privcore.data.suggest_roles` suggests from those rows. What ``privcore profile``
    prints and what a profile run (:class:`ProfileRequest`) records."""
    from privcore.data import profile, suggest_roles

    known = getattr(original, "profile", None)
    table = known if isinstance(known, pd.DataFrame) else profile(original.frame)
    suggestions = suggest_roles(original.frame) if suggest else []
    return ColumnProfile(table, suggestions)


def _profile(request: ProfileRequest, inputs: Inputs, progress: Progress | None):
    """The profile of the original's columns and what the history keeps of it with the
    confirmed roles: the table's size, how many columns hold each role, its missing
    cells, and how many roles differ from the ones suggested."""
    inputs.need("original")
    original = inputs.original
    figures = column_profile(original, suggest=request.suggested is None)
    suggested: Mapping[str, str] = (
        {str(s.column): s.role.value for s in figures.suggestions}
        if request.suggested is None
        else request.suggested
    )
    roles = list(request.roles.values())
    summary = {
        "rows": original.n_rows,
        "columns": original.n_columns,
        "quasi_identifiers": roles.count("quasi_identifier"),
        "sensitive": roles.count("sensitive"),
        "identifiers": roles.count("identifier"),
        "missing_cells": int(pd.to_numeric(figures.table["missing"], errors="coerce").sum()),
        "roles_changed_from_suggestion": sum(
            1 for column, role in suggested.items() if request.roles.get(column) != role
        ),
    }
    return figures, summary


def _open_table(request: OpenTableRequest, inputs: Inputs, progress: Progress | None):
    """The table opened in its engine (:func:`privcore.engines.opening.open_table`, whose
    parameters are the request's fields) and what the history keeps of it: its number
    of rows."""
    from privcore.engines.opening import open_table  # the engines load when a table opens

    opened = open_table(**asdict(request), progress=progress)
    return opened, {"rows": opened.rows}


ANALYSIS_RUNNERS: dict[type, Callable[..., tuple]] = {
    BackgroundRequest: _background,
    OrderingRequest: _ordering,
    ComplementaryRequest: _complementary,
    SweepRequest: _sweep,
    ReconstructionRequest: _reconstruction,
    DatabaseReconstructionRequest: _database_reconstruction,
    RollRequest: _roll,
    DifferencingRequest: _differencing,
    ProfileRequest: _profile,
    OpenTableRequest: _open_table,
}
