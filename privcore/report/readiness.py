"""The readiness report of one release: :func:`readiness` and :class:`ReadinessReport`."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from privcore import __version__
from privcore.attacks import simulate
from privcore.core.jsonsafe import plain
from privcore.core.progress import Progress, Stage
from privcore.data import Hierarchy, fingerprint
from privcore.errors import ParameterError, PrivcoreError
from privcore.measure.report import aligned_blanked, measure_release
from privcore.report.checks import anonymize_actions, evaluate_checks, merge_actions, notes_of
from privcore.report.findings import findings as find
from privcore.report.thresholds import Thresholds

__all__ = ["ReadinessReport", "readiness", "report_of_figures", "report_options"]


@dataclass(frozen=True)
class ReadinessReport:
    """The verdict on one release and everything it rests on: codes, parameters and
    aggregate figures, never rows and never sentences (the interface words them).

    ``checks``, ``reasons``, ``conditions`` and ``notes`` are as described in
    :mod:`privcore.report.checks`; ``measurement`` is ``measure_release(...).to_dict()``,
    ``attacks`` is ``simulate(...).to_dict()``; ``findings`` holds the row order, the key,
    the other columns and which table has the single value behind a privacy level of 0
    (``constant``); ``gdpr_risks`` is ``gdpr_risks(...).to_dict()`` (singling
    out, linkability, inference: measured for every report unless left out, checked
    only against the limits set), or None when they were not measured (a note says
    why when they could not be); ``run_ids``
    the history runs it was recorded as (measure, attack, report), empty until recorded.
    """

    verdict: str
    reasons: list[dict]
    conditions: list[dict]
    checks: list[dict]
    fingerprint: dict
    release_fingerprint: dict
    roles: dict
    algorithm: dict | None
    measurement: dict
    attacks: dict
    thresholds: Thresholds
    run_ids: list[int]
    created: str
    findings: dict = field(default_factory=dict)
    notes: list[dict] = field(default_factory=list)
    gdpr_risks: dict | None = None

    @property
    def ready(self) -> bool:
        """True for "ready" and "ready_with_conditions" (the CLI's exit code 0)."""
        return self.verdict != "not_ready"

    @property
    def fix(self) -> dict[str, Any] | None:
        """One anonymize action trying every reason's fix at once (the largest k and l,
        the smallest t and suppression limit), or None when no reason has one."""
        return merge_actions(anonymize_actions(self.reasons))

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dictionary (the CLI's ``--json`` output)."""
        return plain(
            {
                "verdict": self.verdict,
                "reasons": self.reasons,
                "conditions": self.conditions,
                "checks": self.checks,
                "fingerprint": self.fingerprint,
                "release_fingerprint": self.release_fingerprint,
                "roles": self.roles,
                "algorithm": self.algorithm,
                "thresholds": self.thresholds.to_dict(),
                "measurement": self.measurement,
                "attacks": self.attacks,
                "findings": self.findings,
                "notes": self.notes,
                "gdpr_risks": self.gdpr_risks,
                "run_ids": self.run_ids,
                "created": self.created,
                "privcore_version": __version__,
            }
        )

    def history_summary(self) -> dict[str, Any]:
        """What the history keeps as the report run's results: everything but the
        measurement and the attacks, which are runs of their own (their ids are added
        as ``measure_run`` and ``attack_run`` by :func:`privcore.runs.run`)."""
        out = self.to_dict()
        for name in ("measurement", "attacks", "run_ids"):
            out.pop(name)
        return out

    def recorded(self, summary: Mapping[str, Any], run_id: int | None) -> ReadinessReport:
        """This report with the ids of the runs it was recorded as: the ``measure_run``
        and ``attack_run`` of ``summary`` (an :class:`~privcore.runs.Outcome`'s) and the
        report's own ``run_id``; ids that were not written are left out."""
        ids = [summary.get("measure_run"), summary.get("attack_run"), run_id]
        return dataclasses.replace(self, run_ids=[int(i) for i in ids if i is not None])


def _names(columns: Any, what: str) -> list[str]:
    if isinstance(columns, str):
        return [columns]
    if columns is None:
        return []
    try:
        return [str(c) for c in columns]
    except TypeError as exc:
        raise ParameterError(
            f"{what} must be a column name or a list of column names.", code="report.columns"
        ) from exc


def _fingerprint(frame: pd.DataFrame, name: str | None) -> dict[str, Any]:
    out = fingerprint(frame).to_dict()
    if name:
        out["name"] = str(name)
    return out


def article29_risks(
    original: pd.DataFrame,
    release: pd.DataFrame,
    qi: Sequence[str],
    sa: Sequence[str],
    *,
    seed: int,
    hierarchies: Mapping[str, Hierarchy],
) -> tuple[dict | None, dict | None]:
    """Singling out, linkability and inference of a row-matched release as the report
    keeps them: measured by :func:`~privcore.attacks.gdpr_risks.gdpr_risks` (a held-out
    control share of the original, drawn with ``seed``; the hierarchies given) and kept
    with their intervals and baselines, ``(gdpr_risks(...).to_dict(), None)``; or
    ``(None, note)`` when they cannot be measured (a table too small to hold a control
    set out), the note ``gdpr_not_measured`` carrying the error's code and parameters
    (words, never rows). A limit set on them is then a "not measured" condition."""
    # imported here: their statistics (scipy.stats) cost every command line half a second
    from privcore.attacks.gdpr_risks import gdpr_risks as measure_gdpr_risks
    from privcore.report.risk import not_measured

    try:
        risks = measure_gdpr_risks(original, release, qi, sa, seed=seed, hierarchies=hierarchies)
    except PrivcoreError as exc:
        return None, {"note": "gdpr_not_measured", "params": not_measured(exc)}
    return plain(risks.to_dict()), None


def readiness(
    original: pd.DataFrame,
    release: pd.DataFrame,
    *,
    qi: Sequence[str],
    sa: Sequence[str],
    thresholds: Thresholds | Mapping[str, Any] | None = None,
    hierarchies: Mapping[str, Hierarchy] | None = None,
    key: str | None = None,
    algorithm: Mapping[str, Any] | None = None,
    roll_size: int | None = None,
    seed: int = 0,
    aligned: bool = False,
    shuffled: bool = False,
    progress: Progress | None = None,
    original_name: str | None = None,
    release_name: str | None = None,
    gdpr: bool = True,
    blanked: Any = None,
    release_kind: str | None = None,
    published_tables: Sequence[Sequence[str]] | None = None,
) -> ReadinessReport:
    """Decide whether ``release`` (an anonymized version of ``original``) may be published.

    Rows are matched by ``key`` (a column of both tables) or by position; without a key
    and unless ``aligned`` (the release was made here from this original, its rows the
    original's in order) the row order is checked against the quasi-identifiers first.
    The release is measured with the models the thresholds require, attacked with a
    synthetic voter roll of ``roll_size`` people (default 10 × rows, capped by
    ``PRIVCORE_MAX_ROLL``) built with ``seed``, and every check of
    :mod:`privcore.report.checks` is evaluated. ``shuffled``: the file to publish is
    this release with its rows shuffled (the download of a release made here), so its
    row order gives nothing away and asks for no condition. ``algorithm`` (how the
    release was made: name and parameters) is reported as given. ``blanked`` (a boolean
    per row of ``release``: the rows its method blanked, ``Release.suppressed`` of a
    release made here) makes the measurement and the attacks count the release's own
    suppressed rows (:func:`~privcore.classes.release_classes`): the suppressed share
    checked is then the release's.

    Singling out, linkability and inference (:func:`article29_risks`) are checks against
    their limits, by default the prosecutor limit 1/k (a limit of None waives one);
    ``gdpr=False`` leaves them out unless a limit asks for them. A limit on the share
    of records rebuilt from the tables published beside the release
    (``max_reconstructed_share``) runs that attack (:mod:`privcore.report.reconstructed`;
    ``release_kind``: what the release is, None for a generalization) on the tables it
    suggests; ``published_tables`` (each a list of the original's columns: the tables
    published with the release) run it on those tables, with or without a limit.

    Pure: nothing is written; :func:`privcore.runs.run` records a
    :class:`~privcore.runs.ReportRequest` as its measure, attack and report runs. Bad
    input raises the :class:`~privcore.errors.PrivcoreError` of the step that meets it
    (missing columns and misaligned rows: those of ``measure_release``).
    """
    thresholds, algorithm = _checked_inputs(original, release, thresholds, algorithm)
    qi, sa = _names(qi, "qi"), _names(sa, "sa")
    published_tables = checked_tables(published_tables, original.columns)
    hierarchies = dict(hierarchies or {})
    stage = Stage(progress)

    stage(0.0, "Measuring the release")
    measurement, paired = _measured(
        original, release, qi, sa, thresholds, hierarchies, key, aligned, blanked
    )
    stage(0.15, "Attacking the release")
    simulation, gdpr_figures, gdpr_notes = _attacked(
        paired,
        qi,
        sa,
        thresholds,
        hierarchies,
        roll_size=roll_size,
        seed=seed,
        gdpr=gdpr,
        stage=stage,
        progress=progress is not None,
    )
    stage(0.9, "Checking row order and columns")
    found = find(
        original,
        release,
        qi,
        sa,
        key,
        simulation,
        aligned=aligned,
        shuffled=shuffled,
        measurement=measurement,
    )
    if thresholds.max_reconstructed_share is not None or published_tables:
        from privcore.report.reconstructed import reconstruction_figures

        stage(0.92, "Rebuilding the records from the tables published beside the release")
        found["reconstruction"] = reconstruction_figures(
            original,
            release,
            qi,
            sa,
            hierarchies=hierarchies,
            release_kind=release_kind,
            seed=seed,
            tables=published_tables or None,
        )
    report = report_of_figures(
        measurement,
        plain(simulation.to_dict()),
        found,
        thresholds,
        roles={"qi": qi, "sa": sa, "key": key},
        algorithm=algorithm,
        gdpr_risks=gdpr_figures,
        fingerprint=_fingerprint(original, original_name),
        release_fingerprint=_fingerprint(release, release_name),
        notes=gdpr_notes,
    )
    stage(1.0, "Done")
    return report


def report_options(
    qi: Sequence[str],
    sa: Sequence[str],
    thresholds: Thresholds,
    hierarchies: Mapping[str, Hierarchy],
) -> dict[str, Any]:
    """The keyword arguments a readiness report measures (:func:`measure_release`) and
    attacks (:func:`~privcore.attacks.simulate`) a release with, on tables in memory or on
    an engine's joint frequency set: the columns, the hierarchies, and the thresholds'
    prosecutor limit as the record risk threshold."""
    return {
        "qi": qi,
        "sa": sa,
        "hierarchies": hierarchies,
        "risk_threshold": thresholds.max_prosecutor,
    }


def _measured(
    original: pd.DataFrame,
    release: pd.DataFrame,
    qi: list[str],
    sa: list[str],
    thresholds: Thresholds,
    hierarchies: Mapping[str, Hierarchy],
    key: str | None,
    aligned: bool,
    blanked: Any,
) -> tuple[dict[str, Any], tuple[pd.DataFrame, pd.DataFrame, Any]]:
    """The measurement of the release as the report keeps it (:func:`measure_release`
    with the models the thresholds require; the row order checked unless ``aligned``),
    and the two tables paired by ``key`` or position with ``blanked`` taken along
    (:func:`aligned_blanked`), as the attacks read them."""
    measured = measure_release(
        original,
        release,
        models=thresholds.models(),
        key=key,
        check_order=not aligned,
        blanked=blanked,
        **report_options(qi, sa, thresholds, hierarchies),
    )
    # the measurement has checked the pairing
    return plain(measured.to_dict()), aligned_blanked(original, release, blanked, key)


def _attacked(
    paired: tuple[pd.DataFrame, pd.DataFrame, Any],
    qi: list[str],
    sa: list[str],
    thresholds: Thresholds,
    hierarchies: Mapping[str, Hierarchy],
    *,
    roll_size: int | None,
    seed: int,
    gdpr: bool,
    stage: Stage,
    progress: bool,
) -> tuple[Any, dict[str, Any] | None, list[dict[str, Any]]]:
    """The attacks on the row-paired tables (``paired``: original, release, and the rows
    the release's method blanked, as :func:`_measured` gives them): the linkage and
    homogeneity attacks with a synthetic voter roll (:func:`~privcore.attacks.simulate`),
    and singling out, linkability and inference (:func:`article29_risks`) when ``gdpr``
    or a limit asks for them. Returns (the simulation, the Article 29 figures or None,
    the notes on them); ``progress``: whether the simulation reports its own progress
    (from 0.15 to 0.9)."""
    original, release, blanked = paired
    simulation = simulate(
        original,
        release,
        roll_size=roll_size,
        seed=seed,
        progress=stage.part(0.15, 0.9) if progress else None,
        blanked=blanked,
        explain=False,  # the report reads the figures alone
        **report_options(qi, sa, thresholds, hierarchies),
    )
    if not (gdpr or thresholds.needs_gdpr_risks):
        return simulation, None, []
    stage(0.9, "Measuring singling out, linkability and inference")
    figures, note = article29_risks(original, release, qi, sa, seed=seed, hierarchies=hierarchies)
    return simulation, figures, [] if note is None else [note]


def checked_tables(tables: Any, columns: Sequence[Any]) -> list[list[str]]:
    """The tables published with a release (:func:`privcore.report.context.published_tables`),
    every column one of the original's: a column it lacks is
    :class:`~privcore.errors.ParameterError` ``report.published_tables_columns``."""
    from privcore.report.context import published_tables

    given = [list(t) for t in published_tables(tables)]
    names = {str(c) for c in columns}
    missing = sorted({c for t in given for c in t if c not in names})
    if missing:
        raise ParameterError(
            f"The tables published with the release name {', '.join(missing)}, which the "
            "original table does not have.",
            code="report.published_tables_columns",
            columns=", ".join(missing),
        )
    return given


def _checked_inputs(
    original: Any, release: Any, thresholds: Any, algorithm: Any
) -> tuple[Thresholds, dict[str, Any] | None]:
    """The thresholds (a :class:`Thresholds`, a mapping of them, or None for the
    defaults) and the algorithm (a mapping, or None) of a report, checked with its two
    tables; the algorithm JSON-safe."""
    if not isinstance(thresholds, Thresholds):
        thresholds = Thresholds.from_dict(thresholds)
    for name, table in (("original", original), ("release", release)):
        if not isinstance(table, pd.DataFrame):
            raise ParameterError(
                f"The {name} must be a table (DataFrame), not {type(table).__name__}.",
                code="report.bad_table",
                table=name,
            )
    if algorithm is not None and not isinstance(algorithm, Mapping):
        raise ParameterError(
            "The algorithm must be a mapping (name and parameters), or None.",
            code="report.bad_algorithm",
        )
    return thresholds, plain(dict(algorithm)) if algorithm is not None else None


def report_of_figures(
    measurement: dict[str, Any],
    attacks: dict[str, Any],
    findings: dict[str, Any],
    thresholds: Thresholds,
    *,
    roles: dict[str, Any],
    algorithm: dict[str, Any] | None,
    gdpr_risks: dict[str, Any] | None,
    fingerprint: dict[str, Any],
    release_fingerprint: dict[str, Any],
    notes: Sequence[dict[str, Any]] = (),
    run_ids: Sequence[int] = (),
    created: str | None = None,
) -> ReadinessReport:
    """The readiness report of figures just measured or read back from the history: every
    check of :mod:`privcore.report.checks` evaluated on them
    (:func:`~privcore.report.checks.evaluate_checks`), the notes of the measurement and
    the findings (:func:`~privcore.report.checks.notes_of`) followed by ``notes``;
    ``created`` defaults to now (UTC, to the second)."""
    checks, reasons, conditions, verdict = evaluate_checks(
        measurement, attacks, findings, thresholds, algorithm=algorithm, gdpr_risks=gdpr_risks
    )
    return ReadinessReport(
        verdict=verdict,
        reasons=reasons,
        conditions=conditions,
        checks=checks,
        fingerprint=fingerprint,
        release_fingerprint=release_fingerprint,
        roles=roles,
        algorithm=algorithm,
        measurement=measurement,
        attacks=attacks,
        thresholds=thresholds,
        run_ids=list(run_ids),
        created=dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        if created is None
        else created,
        findings=findings,
        notes=[*notes_of(measurement, findings, roles.get("key")), *notes],
        gdpr_risks=gdpr_risks,
    )
