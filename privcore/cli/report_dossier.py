"""``privcore report --context FILE``: the release dossier (:mod:`privcore.report.dossier`).

With a context (a JSON object: recipient, access, purpose, attacker_knowledge,
jurisdiction, review_date, expiry_date, reviewers), the report's thresholds follow the
context's access model (``--threshold-reason`` explains a limit given instead), and
``--out`` (and ``--pdf``) hold the dossier: the context, the evidence per criterion,
the motivated intruder record, the register's findings (``--register``), the sign-off
(``--decision``, ``--sharing-condition``) and the fingerprints. ``--dossier-json`` writes
the dossier as JSON; ``--script`` and ``--notebook`` write what redoes the release from
its spec (``--spec``) and checks the fingerprints and verdicts.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from privcore.cli.toolkit import (
    EXIT_OK,
    EXIT_VERDICT,
    emit,
    load_table,
    read_bytes,
    read_json_file,
    write_text,
)
from privcore.errors import ParameterError

__all__ = ["DossierRequest", "dossier_options", "dossier_request", "write_dossier"]

_NEEDS_CONTEXT = ("dossier_json", "script", "notebook", "decision", "sharing_condition")


@dataclass(frozen=True)
class DossierRequest:
    """What the dossier options asked, read and checked before any work: the context,
    the thresholds it chose (``thresholds``: the report's, by field) and the sign-off."""

    context: Any
    chosen: Any
    thresholds: dict[str, Any]
    sign_off: Any


def _reasons(pairs: list[str] | None) -> dict[str, str]:
    out = {}
    for pair in pairs or ():
        name, sep, reason = pair.partition("=")
        name = name.strip().lstrip("-").replace("-", "_")
        if not sep or not reason.strip():
            raise ParameterError(
                f"--threshold-reason takes NAME=REASON (max-prosecutor=…), not {pair!r}.",
                code="cli.threshold_reason",
            )
        out[{"max_reidentified": "max_reidentified_share"}.get(name, name)] = reason.strip()
    return out


def dossier_request(args: argparse.Namespace, given: dict[str, Any]) -> DossierRequest | None:
    """The dossier ``args`` ask for (None without ``--context``; the options that only a
    dossier has are then refused in words), its thresholds the context's with ``given``
    over them (a reason needed to override the context's own limit)."""
    if not args.context:
        asked = [o for o in (*_NEEDS_CONTEXT, "register") if getattr(args, o)]
        if asked:
            flags = ", ".join("--" + o.replace("_", "-") for o in asked)
            raise ParameterError(
                f"{flags} belong to a release dossier: give the release's context with "
                "--context FILE (a JSON object with at least recipient and access).",
                code="cli.dossier_needs_context",
            )
        return None
    from privcore.report.context import ReleaseContext, context_thresholds
    from privcore.report.dossier import SignOff

    context = ReleaseContext.from_mapping(
        read_json_file(args.context, "the release context", "cli.context_file")
    )
    chosen = context_thresholds(context, given, _reasons(args.threshold_reason))
    thresholds = dict(given)
    thresholds.update({c.name: c.value for c in chosen.choices})
    decision = args.decision
    sign_off = SignOff(
        reviewers=context.reviewers,
        decision=decision,
        conditions=tuple(c.strip() for c in args.sharing_condition or () if c.strip()),
        signed=dt.date.today() if decision else None,
    )
    if (args.script or args.notebook) and not args.spec:
        raise ParameterError(
            "--script and --notebook redo the release from its spec: give --spec FILE "
            "(written by 'privcore anonymize --spec-out').",
            code="cli.script_needs_spec",
        )
    return DossierRequest(context, chosen, thresholds, sign_off)


def _sha256(path: str, what: str) -> str:
    return hashlib.sha256(read_bytes(path, what, "cli.unreadable")).hexdigest()


def _files(args: argparse.Namespace) -> dict[str, str]:
    """SHA-256 of the files the dossier rests on besides the two tables: the spec and
    each hierarchy (``hierarchy COL``)."""
    out = {}
    if args.spec:
        out["spec"] = _sha256(args.spec, "the release spec")
    for pair in args.hierarchy or ():
        column, _, path = pair.partition("=")
        out[f"hierarchy {column.strip()}"] = _sha256(path, "the hierarchy file")
    return out


def _frames(inputs: Any) -> tuple[Any, Any]:
    """The two tables in memory, or (None, None) when they stayed in their engine."""
    import pandas as pd

    original = getattr(inputs.original, "frame", None)
    release = inputs.release
    if isinstance(original, pd.DataFrame) and isinstance(release, pd.DataFrame):
        return original, release
    return None, None


def _reproduction(report: Any, request: DossierRequest, args: argparse.Namespace) -> dict:
    """Write ``--script`` and ``--notebook`` (what redoes the release from ``--spec``);
    their names, as the dossier records them."""
    if not (args.script or args.notebook):
        return {}
    from privcore.report.redo import redo_notebook, redo_plan, redo_script

    spec = read_json_file(args.spec, "the release spec", "cli.spec_file")
    plan = redo_plan(
        input_path=args.original,
        release_path=args.release,
        spec=spec,
        report=report,
        context=request.context.to_dict(),
        hierarchies={
            p.partition("=")[0].strip(): p.partition("=")[2] for p in args.hierarchy or ()
        },
    )
    out = {}
    if args.script:
        write_text(args.script, redo_script(plan), "--script")
        out["script"] = Path(args.script).name
    if args.notebook:
        write_text(args.notebook, redo_notebook(plan), "--notebook")
        out["notebook"] = Path(args.notebook).name
    return out


def _register_findings(report: Any, request: DossierRequest, release: Any, args: Any) -> dict:
    """The register's findings: this release combined with every earlier one its
    recipient can hold (:func:`privcore.report.register.combined_with_earlier`)."""
    from privcore.history import registered_releases
    from privcore.report.register import combined_with_earlier, summary

    if release is None:
        return {"status": "not_checked", "reason": "not_in_memory", "checked": []}
    data = report.to_dict()
    roles = data.get("roles") or {}
    findings = combined_with_earlier(
        release,
        qi=list(roles.get("qi") or []),
        key=roles.get("key"),
        input_sha256=(data.get("fingerprint") or {}).get("sha256"),
        recipient=request.context.recipient,
        access=request.context.access,
        min_k=int(data["thresholds"]["min_k"]),
        earlier=registered_releases(),
        read=lambda path: load_table(path).frame,
    )
    return {**summary(findings), "checked": findings}


def _register_entry(report: Any, request: DossierRequest, args: Any, dossier: dict) -> int:
    from privcore.history import register_release

    data = report.to_dict()
    roles = data.get("roles") or {}
    return register_release(
        {
            "recipient": request.context.recipient,
            "access": request.context.access,
            "qi": list(roles.get("qi") or []),
            "sa": list(roles.get("sa") or []),
            "key": roles.get("key"),
            "input_sha256": (data.get("fingerprint") or {}).get("sha256"),
            "release_sha256": (data.get("release_fingerprint") or {}).get("sha256"),
            "release_path": str(Path(args.release).resolve()),
            "release_name": Path(args.release).name,
            "verdict": data.get("verdict"),
            "decision": request.sign_off.decision,
            "report_run": data["run_ids"][-1] if data.get("run_ids") else None,
        }
    )


def write_dossier(
    report: Any,
    request: DossierRequest,
    inputs: Any,
    args: argparse.Namespace,
    write_documents: Any,
    lines: Any,
) -> int:
    """Build the dossier of ``report`` and write what was asked: the document (``--out``,
    ``--pdf``), ``--dossier-json``, the script and notebook; record the release in the
    register with ``--register``. Exit 0 when the release is ready, no earlier release
    combined with it breaks k and the reviewers did not reject it; else 1."""
    from privcore.report.dossier import dossier_of
    from privcore.words.catalog import report_json
    from privcore.words.dossier_html import render_dossier_html

    original, release = _frames(inputs)
    register = _register_findings(report, request, release, args) if args.register else None
    dossier = dossier_of(
        report,
        request.context,
        request.chosen,
        original=original,
        release=release,
        sign_off=request.sign_off,
        register=register,
        files=_files(args),
        reproduction=_reproduction(report, request, args),
    )
    write_documents(render_dossier_html(dossier, args.lang), args)
    if args.dossier_json:
        write_text(
            args.dossier_json, json.dumps(dossier, ensure_ascii=False, indent=1), "--dossier-json"
        )
    said = lines(report, args)
    if args.register:
        entry = _register_entry(report, request, args, dossier)
        said.append(f"register: entry #{entry}; earlier releases: {register['status']}")
    said.append(f"dossier sha256: {dossier['dossier_sha256']}")
    payload = report_json(report)
    payload["dossier"] = {k: v for k, v in dossier.items() if k != "report"}
    emit(payload, args.json, said)
    broken = register is not None and register.get("status") == "breaks_k"
    rejected = request.sign_off.decision == "reject"
    return EXIT_OK if report.ready and not broken and not rejected else EXIT_VERDICT


def dossier_options(r: argparse.ArgumentParser) -> None:
    """The options of the dossier (and ``--pdf``, which a plain report has too)."""
    from privcore.report.dossier import DECISIONS

    r.add_argument(
        "--context",
        metavar="FILE",
        help="JSON object: recipient, access (public|licensed|enclave), purpose, "
        "attacker_knowledge, jurisdiction (gdpr|uk_gdpr|hipaa_expert_determination|pipl), "
        "review_date, expiry_date, reviewers; makes --out a release dossier",
    )
    r.add_argument(
        "--threshold-reason",
        action="append",
        metavar="NAME=REASON",
        help="why --min-k or --max-prosecutor overrides the context's limit (printed in "
        "the dossier; repeatable)",
    )
    r.add_argument("--decision", choices=DECISIONS, help="the reviewers' decision (sign-off)")
    r.add_argument(
        "--sharing-condition",
        action="append",
        metavar="TEXT",
        help="a condition of sharing (repeatable; needed to approve with conditions)",
    )
    r.add_argument("--spec", metavar="FILE", help="the release spec (anonymize --spec-out)")
    r.add_argument("--pdf", metavar="FILE", help="also write the document as a PDF")
    r.add_argument("--dossier-json", metavar="FILE", help="write the dossier as JSON")
    r.add_argument("--script", metavar="FILE", help="write a Python script that redoes it")
    r.add_argument("--notebook", metavar="FILE", help="write the same as a Jupyter notebook")
    r.add_argument(
        "--register",
        action="store_true",
        help="check the release against the earlier ones in the register (same recipient, "
        "or public) and record it there",
    )
