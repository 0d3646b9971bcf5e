"""``privcore report``: release readiness — measure and attack a release, check it
against the thresholds (:class:`privcore.report.Thresholds`) and write one
self-contained HTML report; or, with ``--from-run``, write the report of a recorded
report run again from the history alone. Exit code 0 when ready (also ready with
conditions), 1 when not ready, 2 on bad input. ``--json`` prints the whole report
(README "`report`")."""

from __future__ import annotations

import argparse
import datetime as dt
import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from privcore.cli.toolkit import (
    EXIT_OK,
    EXIT_VERDICT,
    add_option,
    check_outputs,
    chosen_engine,
    columns,
    command,
    emit,
    engine_options,
    hierarchy_inputs,
    hierarchy_option,
    limit_option,
    load_table,
    paired_engine_inputs,
    positive_int,
    read_json_file,
    release_inputs,
    run_options,
    run_request,
    write_bytes,
    write_text,
)
from privcore.errors import ParameterError
from privcore.runs import ReportRequest

#: Threshold options (``--min-k`` …) and the fields of :class:`privcore.report.Thresholds`
#: they set.
_REPORT_THRESHOLDS = {
    "min_k": "min_k",
    "min_l": "min_l",
    "max_t": "max_t",
    "max_pl": "max_pl",
    "max_prosecutor": "max_prosecutor",
    "max_journalist": "max_journalist",
    "max_reidentified": "max_reidentified_share",
    "max_disclosed": "max_disclosed_share",
    "max_suppressed": "max_suppressed_share",
    "min_ul": "min_ul",
    "max_singling_out": "max_singling_out",
    "max_linkability": "max_linkability",
    "max_inference": "max_inference",
    "max_reconstructed": "max_reconstructed_share",
}

#: What each threshold option but ``--min-k`` limits, for its help, in the order
#: ``privcore report --help`` lists them.
_THRESHOLD_WORDS = {
    "min_l": "distinct l per sensitive attribute",
    "max_t": "t-closeness, auto distance",
    "max_pl": "privacy level PL(all)",
    "max_prosecutor": "highest prosecutor risk",
    "max_journalist": "highest journalist risk",
    "max_reidentified": "share re-identified by linkage",
    "max_disclosed": "share with a sensitive value disclosed",
    "max_suppressed": "share of suppressed rows",
    "min_ul": "utility floor UL",
    "max_singling_out": "singling-out risk (Article 29)",
    "max_linkability": "linkability risk (Article 29)",
    "max_inference": "inference risk, per sensitive attribute",
    "max_reconstructed": "share of records rebuilt exactly from the tables published "
    "beside the release (not checked unless given)",
}

# Thresholds every report checks (the others accept "none": not required)
_REQUIRED_THRESHOLDS = (
    "min_k",
    "max_prosecutor",
    "max_reidentified_share",
    "max_disclosed_share",
    "max_suppressed_share",
)


def _thresholds(args: argparse.Namespace) -> dict[str, Any]:
    """The thresholds given, by field ("none": not required), checked before anything
    is read; a threshold every report checks cannot be "none"."""
    from privcore.report import Thresholds

    given = {
        field: (None if getattr(args, option) == "none" else getattr(args, option))
        for option, field in _REPORT_THRESHOLDS.items()
        if getattr(args, option) is not None
    }
    required = [f for f in given if given[f] is None and f in _REQUIRED_THRESHOLDS]
    if required:
        options = {field: option for option, field in _REPORT_THRESHOLDS.items()}
        names = ", ".join(_flag(options[f]) for f in required)
        raise ParameterError(
            f"{names} cannot be 'none': the release is always checked against it; give a "
            "number (only --min-l, --max-t, --max-pl, --max-journalist, --min-ul, "
            "--max-singling-out, --max-linkability, --max-inference and "
            "--max-reconstructed can be waived).",
            code="cli.threshold_required",
        )
    Thresholds(**given)  # a bad value is refused before anything is read
    return given


def _flag(option: str) -> str:
    """The flag of a threshold option: ``max_singling_out`` → ``--max-singling-out``."""
    return "--" + option.replace("_", "-")


def _algorithm(path: str | None) -> dict[str, Any] | None:
    """What ``--algorithm-report`` (a report of ``privcore anonymize --report``) says of
    the algorithm used."""
    if not path:
        return None
    made = read_json_file(path, "the anonymize report", "cli.algorithm_report")
    if not isinstance(made, dict):
        raise ParameterError(
            f"{path} is not a report of 'privcore anonymize --report'.",
            code="cli.algorithm_report",
        )
    return {k: made.get(k) for k in ("algorithm", "params", "node", "synthetic")}


def cmd_report(args: argparse.Namespace) -> int:
    given = _thresholds(args)
    check_outputs(
        {
            "--out": args.out,
            "--pdf": args.pdf,
            "--dossier-json": args.dossier_json,
            "--script": args.script,
            "--notebook": args.notebook,
        },
        {
            "--original": args.original,
            "--release": args.release,
            "--algorithm-report": args.algorithm_report,
            "--context": args.context,
            "--spec": args.spec,
            "--intruder-register": args.intruder_register,
            **hierarchy_inputs(args),
        },
    )
    dossier = dossier_request(args, given)
    if dossier is not None:
        given = dossier.thresholds
    if args.from_run is not None:
        from privcore.report import readiness_from_history

        if dossier is not None:
            raise ParameterError(
                "--from-run writes a recorded report again; a dossier (--context) needs the "
                "tables: give --original and --release instead.",
                code="cli.dossier_from_run",
            )
        return _write_report(readiness_from_history(args.from_run), args)
    missing = [o for o in ("original", "release", "qi", "sa") if getattr(args, o) is None]
    if missing:
        raise ParameterError(
            "report needs " + ", ".join(f"--{o}" for o in missing) + " (or --from-run ID).",
            code="cli.missing_options",
        )
    algorithm = _algorithm(args.algorithm_report)
    report = ReportRequest(
        qi=columns(args.qi, "--qi"),
        sa=columns(args.sa, "--sa"),
        key=args.key,
        thresholds=given or None,
        roll_size=args.roll_size,
        seed=args.seed,
        published_tables=() if dossier is None else dossier.context.published_tables,
    )
    engine_name = chosen_engine(args, args.original, args.release)
    if engine_name is not None:  # paired and assessed in the engine, as measure does
        inputs = paired_engine_inputs(args, engine_name, algorithm=algorithm)
    else:
        inputs = replace(release_inputs(args), algorithm=algorithm)
    outcome = run_request(report, inputs, args)
    made = outcome.result.recorded(outcome.summary, outcome.run_id)
    if dossier is None:
        return _write_report(made, args)
    return write_dossier(made, dossier, inputs, args, _write_documents, _lines)


def _write_report(report: Any, args: argparse.Namespace) -> int:
    """The HTML document (``--out``, in ``--lang``; ``--pdf`` too), then the verdict,
    reasons and conditions in words, or with ``--json`` the report with an English
    ``message`` on every reason, condition, check and note (:mod:`privcore.words.catalog`,
    Streamlit-free)."""
    from privcore.words.catalog import report_json
    from privcore.words.report_html import render_html

    document = render_html(report, args.lang)
    _write_documents(document, args)
    emit(report_json(report), args.json, _lines(report, args))
    return EXIT_OK if report.ready else EXIT_VERDICT


def _lines(report: Any, args: argparse.Namespace) -> list[str]:
    from privcore.words.catalog import report_lines

    lines = report_lines(report, args.lang)
    written = [args.out, args.pdf, args.dossier_json, args.script, args.notebook]
    lines.append("wrote " + ", ".join(str(w) for w in written if w))
    if report.run_ids:
        lines.append("history runs: " + ", ".join(f"#{i}" for i in report.run_ids))
    return lines


def _write_documents(document: str, args: argparse.Namespace) -> None:
    """The HTML (``--out``) and, with ``--pdf``, the same document as a PDF."""
    write_text(args.out, document, "--out")
    if args.pdf:
        from privcore.words.pdf import html_to_pdf

        write_bytes(args.pdf, html_to_pdf(document), "--pdf")


def _threshold_options(r: argparse.ArgumentParser) -> None:
    """``--min-k`` and the thresholds that accept "none", each with its default."""
    from privcore.report import Thresholds
    from privcore.report.thresholds import FOLLOWS_PROSECUTOR

    defaults = Thresholds()
    r.add_argument("--min-k", type=int, help=f"smallest class size (default {defaults.min_k})")
    for option, what in _THRESHOLD_WORDS.items():
        field = _REPORT_THRESHOLDS[option]
        default = getattr(Thresholds.__dataclass_fields__[field], "default", None)
        if default == FOLLOWS_PROSECUTOR:
            default_words = "the prosecutor limit, 1/k"
        else:
            default_words = "none" if default is None else f"{getattr(defaults, field):g}"
        r.add_argument(
            _flag(option), type=limit_option, metavar="X", help=f"{what} (default {default_words})"
        )


# --------------------------------------------------------------------------- the dossier
# ``--context FILE``: the release dossier (:mod:`privcore.report.dossier`). With a context
# the thresholds follow its access model (``--threshold-reason`` explains a limit given
# instead) and ``--out``/``--pdf`` hold the dossier; ``--dossier-json``, ``--script`` and
# ``--notebook`` write it as JSON and what redoes the release from ``--spec``.

_NEEDS_CONTEXT = ("dossier_json", "script", "notebook", "decision", "sharing_condition")
_NEEDS_CONTEXT += ("intruder_register", "intruder_column")


@dataclass(frozen=True)
class DossierRequest:
    """What the dossier options asked, read and checked before any work: the context,
    the thresholds it chose (``thresholds``: the report's, by field), the sign-off and
    the register columns of the quasi-identifiers (``--intruder-column``)."""

    context: Any
    chosen: Any
    thresholds: dict[str, Any]
    sign_off: Any
    intruder_columns: dict[str, str]


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


def _context_given(args: argparse.Namespace) -> Any:
    """The release's context: ``--context FILE``, else the one its spec keeps
    (``anonymize --context --spec-out``; the Report page's spec), else None."""
    if args.context:
        return read_json_file(args.context, "the release context", "cli.context_file")
    if args.spec:
        spec = read_json_file(args.spec, "the release spec", "cli.spec_file")
        if isinstance(spec, dict) and spec.get("context") is not None:
            return spec["context"]
    return None


def dossier_request(args: argparse.Namespace, given: dict[str, Any]) -> DossierRequest | None:
    """The dossier ``args`` ask for (None without a context — ``--context``, or the one
    ``--spec`` keeps; the options that only a dossier has are then refused in words),
    its thresholds the context's with ``given`` over them (a reason needed to override
    the context's own limit)."""
    found = _context_given(args)
    if found is None:
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

    context = ReleaseContext.from_mapping(found)
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
    columns = _intruder_columns(args.intruder_column)
    return DossierRequest(context, chosen, thresholds, sign_off, columns)


def _sha256(path: str, what: str) -> str:
    from privcore.report.redo import file_record

    return file_record(path, what)["sha256"]


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
        hierarchies=list(args.hierarchy or ()),
        # for a spec that does not record how its file was written: without a key the
        # report matched rows by position, so the file kept the order
        keep_order=args.key is None,
    )
    out = {}
    if args.script:
        write_text(args.script, redo_script(plan), "--script")
        out["script"] = Path(args.script).name
    if args.notebook:
        write_text(args.notebook, redo_notebook(plan), "--notebook")
        out["notebook"] = Path(args.notebook).name
    return out


def _register_findings(report: Any, request: DossierRequest, release: Any) -> dict:
    """The register's findings: this release combined with every earlier one its
    recipient can hold (:func:`privcore.report.register.report_against_register`)."""
    from privcore.history import registered_releases
    from privcore.report.register import report_against_register

    if release is None:
        return {"status": "not_checked", "reason": "not_in_memory", "checked": []}
    return report_against_register(
        report,
        release,
        recipient=request.context.recipient,
        access=request.context.access,
        earlier=registered_releases(),
        read=lambda path: load_table(path).frame,
    )


def _intruder_columns(pairs: list[str] | None) -> dict[str, str]:
    out = {}
    for pair in pairs or ():
        qi, sep, column = pair.partition("=")
        if not sep or not qi.strip() or not column.strip():
            raise ParameterError(
                f"--intruder-column takes QI=COLUMN (age=Age), not {pair!r}.",
                code="cli.intruder_column",
            )
        out[qi.strip()] = column.strip()
    return out


_AWAY = {"note": "not_in_memory"}


def _intruder_linkage(
    report: Any, request: DossierRequest, inputs: Any, release: Any, args: Any
) -> dict | None:
    """``--intruder-register``: the release linked with the register the intruder holds
    (:func:`privcore.report.intruder.register_linkage`), or a note when the release
    stayed in its engine; None when no register was given."""
    if not args.intruder_register:
        return None
    from privcore.report.intruder import register_linkage

    name = Path(args.intruder_register).name
    qi = list(report.roles.get("qi") or [])
    if release is None:
        return {"attack": "linkage_register", "register": name, "knowledge": qi, **_AWAY}
    return register_linkage(
        release,
        load_table(args.intruder_register).frame,
        qi,
        columns=request.intruder_columns,
        key=args.key,
        hierarchies=dict(getattr(inputs.schema, "hierarchies", None) or {}),
        name=name,
    )


def _register_entry(report: Any, request: DossierRequest, args: Any) -> int:
    from privcore.history import register_release
    from privcore.report.register import register_entry

    return register_release(
        register_entry(
            report,
            recipient=request.context.recipient,
            access=request.context.access,
            release_path=str(Path(args.release).resolve()),
            release_name=Path(args.release).name,
            decision=request.sign_off.decision,
        )
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
    register = _register_findings(report, request, release) if args.register else None
    dossier = dossier_of(
        report,
        request.context,
        request.chosen,
        original=original,
        release=release,
        sign_off=request.sign_off,
        register=register,
        intruder_register=_intruder_linkage(report, request, inputs, release, args),
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
        entry = _register_entry(report, request, args)
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
        "review_date, expiry_date, reviewers, published_tables (lists of columns: the "
        "records are rebuilt from them); makes --out a release dossier (default: the "
        "context --spec keeps)",
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
    r.add_argument(
        "--intruder-register",
        metavar="FILE",
        help="a register the intruder holds (electoral roll, customer file): linked with "
        "the release in the motivated intruder test; matches are checked with --key when "
        "the register holds it",
    )
    r.add_argument(
        "--intruder-column",
        action="append",
        metavar="QI=COLUMN",
        help="the register's column holding a quasi-identifier (repeatable; default: the "
        "column of the same name)",
    )


def add_report_command(sub: Any) -> None:
    """``privcore report``."""
    r = command(
        sub,
        cmd_report,
        "release readiness: measure and attack a release, check it against thresholds, "
        "write an HTML report (exit 0 ready, 1 not ready)",
        "Decide whether a release may be published: measure it (k, l, t, PL, "
        "UL, risk), attack it with a synthetic voter roll, check the thresholds, and write "
        "one self-contained HTML report (--out). Prints the verdict and its reasons or "
        "conditions, or with --json the whole report (verdict, reasons, conditions, checks, "
        "fingerprints, thresholds, measurement, attacks). Exit code 0 when ready (also ready "
        "with conditions), 1 when not ready, 2 on bad input. Thresholds that may be waived "
        "accept 'none'.",
    )
    r.add_argument("--original", help="the original table (required unless --from-run)")
    r.add_argument("--release", help="the release (rows aligned, or --key)")
    # read as text and split by the command (cli.empty_list), required unless --from-run
    add_option(r, "qi", type=None)
    add_option(r, "sa", type=None)
    r.add_argument(
        "--from-run",
        type=positive_int,
        metavar="ID",
        help="write the report of a recorded report run again, from the history alone",
    )
    add_option(r, "key")
    hierarchy_option(r)
    _threshold_options(r)
    add_option(r, "roll_size", checked=True)
    add_option(r, "seed", default=0, checked=True, help="seed of the voter roll")
    r.add_argument("--lang", choices=["en", "zh"], default="en", help="language of the report")
    r.add_argument("--out", required=True, help="the HTML report to write")
    r.add_argument(
        "--algorithm-report",
        metavar="FILE",
        help="JSON report of 'privcore anonymize --report', shown as the algorithm used",
    )
    dossier_options(r)
    engine_options(r)
    run_options(
        r,
        record_help="record the runs in the history",
        json_help="print the report as one JSON object",
    )
