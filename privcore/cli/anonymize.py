"""``privcore anonymize``: anonymize a table under k / l / t constraints with one of the
registry's algorithms (:class:`privcore.runs.AnonymizeRequest`), write the release
(shuffled unless ``--keep-order``), its JSON report and its generalization spec; or,
with ``--from-spec``, make the release a spec describes again from the same input
(:class:`privcore.runs.ReplayRequest`). On an engine (``--engine``) the table's frequency
set is anonymized and the engine writes the release. ``--order-copy`` writes the same
release again in the table's order, from the same run, next to the shuffled file to
publish. Report keys: README "`anonymize`".
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from privcore import history
from privcore.cli.toolkit import (
    EXIT_OK,
    MAX_SEED,
    add_request_options,
    check_outputs,
    chosen_engine,
    columns,
    command,
    emit,
    engine_options,
    file_names,
    formula_guard_option,
    guard_note,
    hierarchies,
    hierarchy_inputs,
    hierarchy_option,
    history_lines,
    load_table,
    open_engine,
    read_bytes,
    read_json_file,
    real_records_line,
    request,
    run_options,
    run_request,
    say,
    scan,
    suggested_hierarchies,
    write_text,
)
from privcore.data import Hierarchy, Schema, suggest_roles
from privcore.errors import HierarchyError, ParameterError
from privcore.runs import AnonymizeRequest, Inputs, Outcome, ReplayRequest


def cmd_anonymize(args: argparse.Namespace) -> int:
    _check_order_copy(args)
    args.release_context = _release_context(args)
    if args.from_spec:
        return _anonymize_from_spec(args)
    missing = [o for o in ("qi", "sa") if not getattr(args, o)]
    if missing:
        raise ParameterError(
            "anonymize needs " + ", ".join(f"--{o}" for o in missing) + " (or --from-spec FILE).",
            code="cli.missing_options",
        )
    anonymize = request(AnonymizeRequest, args)
    _check_anonymize_outputs(args)
    engine_name = chosen_engine(args, args.input)
    if engine_name is not None:
        return _anonymize_on_engine(args, anonymize, engine_name)
    dataset = load_table(args.input)
    frame = dataset.frame
    identifiers = _identifiers(args, anonymize, lambda: frame)
    roles = _roles(map(str, frame.columns), identifiers, anonymize)
    unknown = [c for c in roles if c not in frame.columns]
    if unknown:
        raise ParameterError(
            f"{args.input} has no column {', '.join(unknown)}.", code="cli.unknown_columns"
        )
    given = hierarchies(args.hierarchy)
    suggested: dict[str, Hierarchy] = {}
    if args.auto_hierarchies:
        suggested = suggested_hierarchies(frame, anonymize.qi, given)
    inputs = Inputs(
        original=dataset,
        schema=Schema(roles, {**given, **suggested}),
        names=file_names(
            args,
            identifiers=identifiers,
            **_release_files(args),
            **({"suggested_hierarchies": list(suggested)} if args.auto_hierarchies else {}),
        ),
    )
    outcome = _run_anonymize(anonymize, inputs, args)
    report = _write_release(outcome.result, args, anonymize.seed)
    report["engine"] = {
        "name": "pandas",
        "rows_written": report["rows"],
        "written_satisfied": bool(outcome.result.measurement.models.satisfied),
        "written_k": report["k"],
    }
    if args.order_copy:  # as on an engine (TableRelease.to_dict)
        copy = {"path": str(Path(args.order_copy)), "rows_written": report["rows"]}
        report["engine"]["order_copy"] = copy
    emit(report, args.json, _release_lines(anonymize.algorithm, report, args, outcome))
    return EXIT_OK


def _run_anonymize(anonymize: AnonymizeRequest, inputs: Inputs, args: argparse.Namespace):
    """The run; a quasi-identifier without a hierarchy, for an algorithm that
    generalizes along them, is an error that names the options that give one."""
    try:
        return run_request(anonymize, inputs, args)
    except HierarchyError as exc:
        if exc.code != "hierarchy.missing_qi":
            raise
        missing = exc.params.get("columns", [])
        raise HierarchyError(
            f"{anonymize.algorithm} generalizes along hierarchies and {', '.join(missing)} "
            f"{'has' if len(missing) == 1 else 'have'} none: give --hierarchy COLUMN=FILE, "
            "or --auto-hierarchies to build the suggested ones.",
            code=exc.code,
            **exc.params,
        ) from exc


def _identifiers(
    args: argparse.Namespace, anonymize: AnonymizeRequest, sample: Callable[[], Any]
) -> list[str]:
    """``--identifiers``: the columns it names ('' none); not given, the columns the
    role suggestions call identifiers in the rows ``sample()`` returns."""
    if args.identifiers is None:
        return _suggested_identifiers(sample(), {*anonymize.qi, *anonymize.sa})
    return columns(args.identifiers, "--identifiers") if args.identifiers else []


def _suggested_identifiers(frame: Any, chosen: set[str]) -> list[str]:
    """Columns the role suggestions call identifiers (names, e-mails, IDs, unique
    columns), other than the ``chosen`` QIs and SAs; each is named on stderr with its
    reason, so a release never carries a direct identifier by default."""
    from privcore.data import Role

    found = [
        s for s in suggest_roles(frame) if s.role == Role.IDENTIFIER and s.column not in chosen
    ]
    for suggestion in found:
        say(
            f"removed identifier column '{suggestion.column}': {suggestion.reason} "
            "(--identifiers '' keeps every column)"
        )
    return [s.column for s in found]


def _roles(names: Any, identifiers: list[str], anonymize: AnonymizeRequest) -> dict[str, Any]:
    """Every column's role: insensitive, but the identifiers, QIs and SAs."""
    from privcore.data import Role

    roles = dict.fromkeys(names, Role.INSENSITIVE)
    roles.update(dict.fromkeys(identifiers, Role.IDENTIFIER))
    roles.update(dict.fromkeys(anonymize.qi, Role.QUASI_IDENTIFIER))
    roles.update(dict.fromkeys(anonymize.sa, Role.SENSITIVE))
    return roles


def _check_engine_options(args: argparse.Namespace) -> None:
    """What an engine cannot do: read whole columns for suggestions, or write other
    formats than Parquet and CSV."""
    if args.auto_hierarchies:
        raise ParameterError(
            "--auto-hierarchies reads the whole column in memory: give --hierarchy files "
            "with --engine duckdb or spark.",
            code="cli.engine_option",
            option="--auto-hierarchies",
        )
    for option, path in (("--out", args.out), ("--order-copy", args.order_copy)):
        if path and Path(path).suffix.lower() not in (".parquet", ".csv"):
            raise ParameterError(
                "On an engine the release is written as .parquet or .csv.",
                code="cli.engine_option",
                option=option,
            )


def _anonymize_on_engine(
    args: argparse.Namespace, anonymize: AnonymizeRequest, engine_name: str
) -> int:
    """``anonymize`` on an engine: the frequency set anonymized, the release written by
    the engine (:func:`privcore.runs.tables.anonymize_table`)."""
    from privcore.runs import EngineTable

    _check_engine_options(args)
    engine = open_engine(args, engine_name)
    table = scan(engine, args.input, args.table)
    names = engine.columns(table)
    identifiers = _identifiers(args, anonymize, lambda: engine.head(table, 10_000))
    unknown = [c for c in (*anonymize.qi, *anonymize.sa, *identifiers) if c not in names]
    if unknown:
        raise ParameterError(
            f"{args.input} has no column {', '.join(unknown)}.", code="cli.unknown_columns"
        )
    schema = Schema(_roles(names, identifiers, anonymize), hierarchies(args.hierarchy))
    inputs = Inputs(
        original=EngineTable(engine, table, Path(args.input).name),
        schema=schema,
        out=args.out,
        shuffled=not args.keep_order,
        names=file_names(args, identifiers=identifiers, engine=engine_name, **_release_files(args)),
    )
    outcome = run_request(anonymize, inputs, args)
    report = outcome.result.to_dict()
    if args.report:
        write_text(args.report, history.to_json(report), "--report")
    if args.spec_out:
        spec = outcome.result.release.spec_json(None, args.release_context)
        write_text(args.spec_out, spec, "--spec-out")
    emit(report, args.json, _release_lines(anonymize.algorithm, report, args, outcome))
    return EXIT_OK


def _release_files(args: argparse.Namespace) -> dict[str, Any]:
    """How ``anonymize`` writes its release, for the history: the file's name and
    whether its rows keep their order."""
    return {"keep_order": args.keep_order, "out": Path(args.out).name}


def _check_anonymize_outputs(args: argparse.Namespace) -> None:
    check_outputs(
        {
            "--out": args.out,
            "--order-copy": args.order_copy,
            "--report": args.report,
            "--spec-out": args.spec_out,
        },
        {
            "INPUT": args.input,
            "--from-spec": args.from_spec,
            "--context": args.context,
            **hierarchy_inputs(args),
        },
    )


def _check_order_copy(args: argparse.Namespace) -> None:
    """``--order-copy``: a copy in the table's order of a shuffled release made here."""
    if args.order_copy is None:
        return
    if args.keep_order:
        raise ParameterError(
            "--order-copy writes a copy of the shuffled release in the table's order; "
            "with --keep-order the release itself is in that order: give one of the two.",
            code="cli.order_copy",
            option="--order-copy",
        )
    if args.from_spec:
        raise ParameterError(
            "--order-copy goes with a new anonymization, not --from-spec: make the copy "
            "with the run that makes the release.",
            code="cli.order_copy",
            option="--order-copy",
        )
    if not args.order_copy.strip():
        raise ParameterError(
            "--order-copy needs the path of the file to write.",
            code="cli.order_copy",
            option="--order-copy",
        )


def _write_release(release: Any, args: argparse.Namespace, seed: int) -> dict[str, Any]:
    """Write the release (shuffled with ``seed`` unless --keep-order; CSV/TSV
    formula-guarded unless --no-formula-guard), the report and the spec. Cells the guard
    changed are counted in the report (``formula_guarded_cells``, only when there are
    any) and on stderr."""
    from privcore.data import save

    saved = save(
        release.export(shuffle=not args.keep_order, seed=seed),
        args.out,
        formula_guard=args.formula_guard,
    )
    if args.order_copy:  # the same release, in the table's order
        copy = release.export(shuffle=False, seed=seed)
        save(copy, args.order_copy, formula_guard=args.formula_guard)
    report = release.to_dict()
    if saved.guarded_cells:
        report["formula_guarded_cells"] = saved.guarded_cells
    guard_note(saved.guarded_cells)
    if args.report:
        write_text(args.report, history.to_json(report), "--report")
    if args.spec_out:
        written = {"shuffled": not args.keep_order, "seed": seed}
        written["formula_guard"] = bool(args.formula_guard)
        context = args.release_context
        write_text(args.spec_out, release.spec_json(written, context), "--spec-out")
    return report


def _release_context(args: argparse.Namespace) -> dict[str, Any] | None:
    """``--context FILE``: the release's context, checked, for the spec."""
    if not args.context:
        return None
    if not args.spec_out:
        raise ParameterError(
            "--context is kept in the release's spec: give --spec-out FILE too.",
            code="cli.context_needs_spec",
        )
    from privcore.report.context import ReleaseContext

    found = read_json_file(args.context, "the release context", "cli.context_file")
    return ReleaseContext.from_mapping(found).to_dict()


def _release_lines(
    algorithm: str, report: dict[str, Any], args: argparse.Namespace, outcome: Outcome
) -> list[str]:
    written = [f for f in (args.out, args.order_copy, args.report, args.spec_out) if f]
    return [
        f"{algorithm}: k = {report['k']}, {report['suppressed_rows']} row(s) suppressed, "
        f"{report['classes']} classes, {report['seconds']:.3f} s",
        "loss: " + ", ".join(f"{k} = {v:.4g}" for k, v in report["loss"].items()),
        _pl_ul_line(report),
        *([real_records_line(report["real_records"])] if report["real_records"] else []),
        *([f"node: {report['node']}"] if report["node"] else []),
        "wrote " + ", ".join(written),
        *history_lines(outcome),
    ]


def _pl_ul_line(report: dict[str, Any]) -> str:
    """PL and UL — or, for a release measured by its classes inside the engine (they
    are None), DR and why PL and UL are not there."""
    if report["pl"] is None or report["ul"] is None:
        return (
            f"DR = {report['dr']:.3f}; PL and UL compare each row with its original: not "
            "computed for a release measured by its classes inside the engine"
        )
    return f"PL = {report['pl']:.3f}   UL = {report['ul']:.3f}"


def _read_spec(path: str) -> dict[str, Any]:
    """The generalization spec at ``path`` (``--from-spec``), its seed checked."""
    from privcore.anonymize.spec import read_spec

    text = read_bytes(path, "the spec", "cli.unreadable")
    try:
        spec = read_spec(text)
    except RecursionError as exc:
        raise ParameterError(
            "The generalization spec is nested too deeply to be a release spec.",
            code="anonymize.bad_spec",
        ) from exc
    seed = spec.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise ParameterError(
            f"The release spec's seed must be a whole number from 0 to {MAX_SEED}, not "
            f"{json.dumps(seed)[:40]}.",
            code="anonymize.bad_spec",
        )
    return spec


def _anonymize_from_spec(args: argparse.Namespace) -> int:
    """``anonymize INPUT --from-spec SPEC``: the release a spec describes, made again
    from the same input (checked by fingerprint) without choosing anything."""
    spec = _read_spec(args.from_spec)
    _check_anonymize_outputs(args)
    if args.release_context is None and isinstance(spec.get("context"), dict):
        args.release_context = spec["context"]  # the replayed release keeps its context
    inputs = Inputs(
        original=load_table(args.input),
        names={"from_spec": Path(args.from_spec).name, **_release_files(args)},
    )
    outcome = run_request(ReplayRequest(spec=spec), inputs, args)
    # shuffled as the original was
    report = _write_release(outcome.result, args, spec.get("seed", 0))
    lines = _release_lines(spec["algorithm"], report, args, outcome)
    emit(report, args.json, ["reproduced from " + str(args.from_spec), *lines])
    return EXIT_OK


def _output_options(a: argparse.ArgumentParser) -> None:
    """Where the release, its report and its spec are written, and how."""
    a.add_argument(
        "--keep-order",
        action="store_true",
        help="keep the original row order (shuffling is the default)",
    )
    a.add_argument(
        "--out", required=True, help="release file (.csv, .tsv, .xlsx, .parquet, .jsonl)"
    )
    a.add_argument("--report", help="write the JSON report here")
    formula_guard_option(a, "a .csv/.tsv release")
    a.add_argument(
        "--spec-out",
        metavar="FILE.json",
        help="write the generalization spec here (algorithm, constraints, seed, roles, "
        "hierarchies, node; fingerprints of input and release, no data)",
    )
    a.add_argument(
        "--context",
        metavar="FILE.json",
        help="the release's context (recipient, access, …: see 'report --context'), kept "
        "in the spec so that 'report --spec' finds it",
    )
    a.add_argument(
        "--from-spec",
        metavar="FILE.json",
        help="make the release a spec describes again, from the same INPUT (checked by "
        "fingerprint); --qi, --sa, the algorithm and the constraints come from the spec",
    )


def add_anonymize_command(sub: Any) -> None:
    """``privcore anonymize``."""
    a = command(
        sub,
        cmd_anonymize,
        "anonymize a table under k / l / t constraints: seven generalization and synthesis "
        "algorithms, six perturbative methods",
        "Anonymize INPUT and write the release to --out (shuffled unless "
        "--keep-order). --report writes a JSON report with k, suppressed_rows, seconds, "
        "loss, pl, ul and node (full-domain algorithms).",
    )
    a.add_argument("input", help="the table to anonymize")
    add_request_options(
        a,
        AnonymizeRequest,
        notes={
            "qi": "required unless --from-spec",
            "sa": "required unless --from-spec",
            "seed": "also shuffles the release's rows",
            "order_copy": "not with --keep-order or --from-spec",
        },
    )
    a.add_argument(
        "--identifiers",
        help="identifier columns to remove, comma-separated (default: the columns the role "
        "suggestions call identifiers, each named on stderr; '' removes none)",
    )
    hierarchy_option(a)
    a.add_argument(
        "--auto-hierarchies",
        action="store_true",
        help="build the suggested hierarchy (from the column's values and name: numeric "
        "intervals, dates, masking of digit codes, groups by frequency) of every "
        "quasi-identifier without --hierarchy, each named on stderr",
    )
    _output_options(a)
    engine_options(a)
    run_options(a, json_help="print the report as JSON")
