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

__all__ = ["ReadinessReport", "readiness"]


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
    keeps them: ``(gdpr_risks(...).to_dict(), None)``, or ``(None, note)`` when they
    cannot be measured, the note ``gdpr_not_measured`` carrying the error's code and
    parameters (words, never rows)."""
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

    Singling out, linkability and inference are measured by
    :func:`~privcore.attacks.gdpr_risks.gdpr_risks` on the row-matched tables (a
    held-out control share of the original, drawn with ``seed``; the hierarchies
    given) and reported with their intervals and baselines; they are checks against
    their limits, by default the prosecutor limit 1/k (a limit of None waives one).
    ``gdpr=False`` leaves them out unless a limit asks for them.
    When they cannot be measured (a table too small to hold a control set out), the
    report says so in a note, and a limit set on them is a "not measured" condition.

    Pure: nothing is written; :func:`privcore.runs.run` records a
    :class:`~privcore.runs.ReportRequest` as its measure, attack and report runs. Bad
    input raises the :class:`~privcore.errors.PrivcoreError` of the step that meets it
    (missing columns and misaligned rows: those of ``measure_release``).
    """
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
    qi, sa = _names(qi, "qi"), _names(sa, "sa")
    hierarchies = dict(hierarchies or {})
    algorithm = plain(dict(algorithm)) if algorithm is not None else None
    stage = Stage(progress)

    stage(0.0, "Measuring the release")
    measured = measure_release(
        original,
        release,
        qi=qi,
        sa=sa,
        models=thresholds.models(),
        hierarchies=hierarchies,
        key=key,
        risk_threshold=thresholds.max_prosecutor,
        check_order=not aligned,
        blanked=blanked,
    )
    measurement = plain(measured.to_dict())
    # checked above
    aligned_original, aligned_release, blanked = aligned_blanked(original, release, blanked, key)

    stage(0.15, "Attacking the release")
    simulation = simulate(
        aligned_original,
        aligned_release,
        qi,
        sa,
        roll_size=roll_size,
        seed=seed,
        hierarchies=hierarchies,
        risk_threshold=thresholds.max_prosecutor,
        progress=stage.part(0.15, 0.9) if progress is not None else None,
        blanked=blanked,
    )
    attacks = plain(simulation.to_dict())

    gdpr_figures, gdpr_note = None, None
    if gdpr or thresholds.needs_gdpr_risks:
        stage(0.9, "Measuring singling out, linkability and inference")
        gdpr_figures, gdpr_note = article29_risks(
            aligned_original, aligned_release, qi, sa, seed=seed, hierarchies=hierarchies
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
    checks, reasons, conditions, verdict = evaluate_checks(
        measurement, attacks, found, thresholds, algorithm=algorithm, gdpr_risks=gdpr_figures
    )
    notes = notes_of(measurement, found, key)
    if gdpr_note is not None:
        notes.append(gdpr_note)
    report = ReadinessReport(
        verdict=verdict,
        reasons=reasons,
        conditions=conditions,
        checks=checks,
        fingerprint=_fingerprint(original, original_name),
        release_fingerprint=_fingerprint(release, release_name),
        roles={"qi": qi, "sa": sa, "key": key},
        algorithm=algorithm,
        measurement=measurement,
        attacks=attacks,
        thresholds=thresholds,
        run_ids=[],
        created=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        findings=found,
        notes=notes,
        gdpr_risks=gdpr_figures,
    )
    stage(1.0, "Done")
    return report
