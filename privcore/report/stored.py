"""A readiness report read back from the history.

:func:`privcore.runs.run` records a :class:`~privcore.runs.ReportRequest` as three runs:
``measure`` (results: the whole measurement), ``attack`` (results: the simulation) and
``report`` (results: :meth:`ReadinessReport.history_summary` — with the singling-out,
linkability and inference figures when they were measured — plus the ids of the other
two as ``measure_run`` and ``attack_run``; the data set's fingerprint in its row). The
checks, reasons, conditions and notes are evaluated again from those stored figures by
the same pure rules (:func:`~privcore.report.checks.evaluate_checks`), so a report
recorded by an earlier version is rebuilt with today's codes; a verdict that comes out
differently from the recorded one is said in a note.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from privcore import history
from privcore.errors import ParameterError, PrivcoreError
from privcore.report.checks import evaluate_checks
from privcore.report.readiness import ReadinessReport, report_of_figures
from privcore.report.thresholds import Thresholds

__all__ = ["readiness_from_history", "report_from_history"]


def _report_run(run_id: int, owner: str | None) -> dict[str, Any]:
    run = history.get_run(run_id, owner=owner)
    if run is None:
        raise PrivcoreError(f"There is no run #{run_id}.", code="history.no_run", id=run_id)
    if run.get("kind") != "report":
        raise ParameterError(
            f"Run #{run_id} is a {run.get('kind')} run, not a readiness report.",
            code="report.not_a_report",
            id=run_id,
        )
    if run.get("status", "ok") != "ok":
        raise PrivcoreError(
            f"Run #{run_id} did not finish (it is {run.get('status')}), so it has no report.",
            code="report.not_finished",
            id=run_id,
            status=run.get("status"),
        )
    return run


def _stored(run_id: int, owner: str | None) -> dict[str, Any]:
    """The report run's parts: thresholds, roles, figures, findings; ``missing`` lists
    the measure/attack runs no longer in the history."""
    run = _report_run(run_id, owner)
    params = run.get("params") or {}
    results = run.get("results") or {}
    parts: dict[str, Any] = {}
    missing: list[int | None] = []
    for name, key in (("measurement", "measure_run"), ("attacks", "attack_run")):
        child_id = results.get(key)
        child = history.get_run(child_id, owner=owner) if child_id is not None else None
        if child is None:
            missing.append(child_id)
        parts[name] = None if child is None else child.get("results")
    roles = results.get("roles") or params.get("roles")
    if roles is None:
        roles = {"qi": params.get("qi"), "sa": params.get("sa"), "key": params.get("key")}
    fingerprint = results.get("fingerprint") or {
        "name": run.get("dataset_name"),
        "sha256": run.get("dataset_sha256"),
        "rows": run.get("dataset_rows"),
        "columns": run.get("dataset_columns"),
    }
    return {
        "run": run,
        "thresholds": Thresholds.from_dict(results.get("thresholds") or params.get("thresholds")),
        "roles": roles,
        "algorithm": results["algorithm"] if "algorithm" in results else params.get("algorithm"),
        "findings": results.get("findings") or {},
        "gdpr_risks": results.get("gdpr_risks"),
        "fingerprint": {k: v for k, v in fingerprint.items() if v is not None},
        "release_fingerprint": results.get("release_fingerprint") or {},
        "created": results.get("created") or run.get("finished_at") or "",
        "verdict": results.get("verdict"),
        "run_ids": [results.get("measure_run"), results.get("attack_run"), int(run_id)],
        "missing": missing,
        **parts,
    }


def _checked(stored: dict[str, Any]) -> list[Any]:
    """The measurement, attacks, findings and thresholds of a run's stored parts
    (:func:`_stored`): what :func:`evaluate_checks` and :func:`report_of_figures` check,
    in the order of their arguments."""
    return [stored[part] for part in ("measurement", "attacks", "findings", "thresholds")]


def report_from_history(run_id: int, *, owner: str | None = None) -> dict[str, Any]:
    """The recorded verdict of a report run, its thresholds, roles and figures, and the
    verdict evaluated again from the stored figures (``recomputed_verdict``;
    ``consistent`` says whether both agree). A measure/attack run deleted since is
    listed under ``missing_runs`` (and nothing is recomputed)."""
    stored = _stored(run_id, owner)
    recomputed = None
    if not stored["missing"]:
        *_, recomputed = evaluate_checks(
            *_checked(stored),
            algorithm=stored["algorithm"],
            gdpr_risks=stored["gdpr_risks"],
        )
    results = stored["run"].get("results") or {}
    return {
        "run_id": int(run_id),
        "verdict": stored["verdict"],
        "reasons": results.get("reasons", []),
        "conditions": results.get("conditions", []),
        "thresholds": stored["thresholds"].to_dict(),
        "roles": stored["roles"],
        "algorithm": stored["algorithm"],
        "fingerprint": stored["fingerprint"],
        "release_fingerprint": stored["release_fingerprint"],
        "created": stored["created"],
        "run_ids": stored["run_ids"],
        "measurement": stored["measurement"],
        "attacks": stored["attacks"],
        "gdpr_risks": stored["gdpr_risks"],
        "missing_runs": stored["missing"],
        "recomputed_verdict": recomputed,
        "consistent": recomputed == stored["verdict"] if recomputed else None,
    }


def readiness_from_history(run_id: int, *, owner: str | None = None) -> ReadinessReport:
    """The report of a recorded run, rebuilt from the history alone (its own run and
    the measure and attack runs it names), so that it can be shown and written again.

    ``owner`` restricts the lookup to that owner's runs (a hosted demo). Raises when the
    run is not a finished report or its measure/attack runs were deleted since.
    """
    stored = _stored(run_id, owner)
    if stored["missing"]:
        missing = ", ".join(f"#{i}" for i in stored["missing"] if i is not None)
        raise PrivcoreError(
            f"Run #{run_id} cannot be rebuilt: the runs it rests on ({missing or 'unknown'}) "
            f"are no longer in the history.",
            code="report.missing_runs",
            id=run_id,
            runs=missing,
        )
    report = _rebuilt(stored)
    notes = list(report.notes)
    if stored["verdict"] is not None and stored["verdict"] != report.verdict:
        notes.append({"note": "rules_changed", "params": {"verdict": stored["verdict"]}})
    notes.append({"note": "rebuilt", "params": {"run": int(run_id)}})
    return dataclasses.replace(report, notes=notes)


def _rebuilt(stored: dict[str, Any]) -> ReadinessReport:
    """The report of a run's stored parts (:func:`_stored`), its checks, verdict and
    notes evaluated again by today's rules."""
    return report_of_figures(
        *_checked(stored),
        roles=stored["roles"],
        algorithm=stored["algorithm"],
        gdpr_risks=stored["gdpr_risks"],
        fingerprint=stored["fingerprint"],
        release_fingerprint=stored["release_fingerprint"],
        run_ids=[int(i) for i in stored["run_ids"] if i is not None],
        created=stored["created"],
    )
