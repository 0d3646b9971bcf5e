"""Command line: ``python -m privcore COMMAND …`` for batch use and scripts.

Commands mirror the app's pages. Output is a readable summary, or with ``--json`` one
JSON object whose keys are a documented contract (README). Exit codes: 0 success,
2 bad input or impossible parameters (one line on stderr), 1 reserved for verdicts
(``report``: not ready). ``--record`` (measure, anonymize, attack, audit, report) writes
the run to the history like the pages do; a history that cannot be written is one warning
on stderr and changes neither the output nor the exit code.

Numbers on the command line are checked where they are read (no NaN, infinity or
negative count or seed); no command writes over one of its input files; readable output
is printed without control characters or terminal escape sequences (a column name can
hold them), and JSON output escapes them. Release CSV/TSV files and the history export
are formula-guarded (:mod:`privcore.data.writing`) unless ``--no-formula-guard``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any

from privcore import __version__, history
from privcore.data import Dataset, Hierarchy, load, profile, suggest_roles
from privcore.errors import CancelledError, HistoryError, ParameterError, PrivcoreError
from privcore.measure.report import measure_release
from privcore.models import (
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    RecursiveCLDiversity,
    TCloseness,
)

EXIT_OK = 0
EXIT_VERDICT = 1
EXIT_BAD_INPUT = 2


class _Parser(argparse.ArgumentParser):
    """argparse that exits with 2 and one line, like every other input error."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {terminal_safe(message, one_line=True)}\n")


# Terminal escape sequences: CSI (colours, cursor), OSC (window title, links; ended by
# BEL or ST), DCS/SOS/PM/APC strings, other two-byte sequences, and their 8-bit forms.
_ESCAPE_SEQUENCES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b\][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[PX^_][^\x1b\x9c]*(?:\x1b\\|\x9c)?"
    r"|\x1b[ -/]*[0-~]?"
    r"|\x9b[0-?]*[ -/]*[@-~]"
    r"|[\x90\x98\x9d\x9e\x9f][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
)
# C0 controls but tab and line feed, DEL, C1 controls
_CONTROL_CHARACTERS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# What JSON output escapes beyond what json.dumps does (it escapes C0 controls only)
_JSON_ESCAPES = {code: f"\\u{code:04x}" for code in range(0x7F, 0xA0)}


def terminal_safe(text: str, *, one_line: bool = False) -> str:
    """``text`` without terminal escape sequences (ESC … as in ECMA-48, and the 8-bit
    C1 forms) and control characters other than tab and line feed (line feeds too with
    ``one_line``, as spaces): what a table's names and values may hold, printed raw, can
    retitle or rewrite the terminal."""
    text = _CONTROL_CHARACTERS.sub("", _ESCAPE_SEQUENCES.sub("", text))
    return text.replace("\n", " ") if one_line else text


def _say(text: str) -> None:
    """One line on stderr (a warning or a note), safe for the terminal."""
    print(terminal_safe(text, one_line=True), file=sys.stderr)


def _emit(payload: dict[str, Any], as_json: bool, lines: Sequence[str]) -> None:
    if as_json:
        print(history.to_json(payload).translate(_JSON_ESCAPES))
    else:
        print(terminal_safe("\n".join(lines)))


class _Recording:
    """``--record``: the ``with`` block (the computation, after the inputs are read) as
    one history run of ``kind`` on page ``cli``, like the pages record theirs.

    Set :attr:`results` inside the block (:attr:`params` may be updated too). On exit
    the run is written with its duration and status ``ok``; a :class:`PrivcoreError`
    is written as ``error`` with its message (``cancelled`` for Ctrl-C) and propagates.
    ``dataset`` is the fingerprint of :meth:`Dataset.summary` - never the rows. A
    history that cannot be written costs one warning on stderr, never the result.
    Without ``--record`` nothing is written.
    """

    def __init__(
        self,
        args: argparse.Namespace,
        kind: str,
        params: dict[str, Any],
        dataset: Dataset | None = None,
    ) -> None:
        self.enabled = bool(getattr(args, "record", False))
        self.kind = kind
        self.params = params
        self.dataset = dataset
        self.results: dict[str, Any] = {}
        self.id: int | None = None
        self._started = 0.0

    def __enter__(self) -> _Recording:
        self._started = time.perf_counter()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if not self.enabled:
            return
        duration = time.perf_counter() - self._started
        if exc is None:
            status, error = "ok", None
        elif isinstance(exc, (CancelledError, KeyboardInterrupt)):
            status, error = "cancelled", None
        elif isinstance(exc, PrivcoreError):
            status, error = "error", exc.message
        else:  # a bug: not a run of the user's to keep
            return
        try:
            self.id = history.record_run(
                self.kind,
                params=self.params,
                results=self.results if status == "ok" else {},
                dataset=None if self.dataset is None else self.dataset.summary(),
                page="cli",
                duration_s=duration,
                status=status,
                error=error,
            )
        except HistoryError as history_error:
            message = " ".join(history_error.message.split())
            _say(f"warning: run not recorded in the history: {message}")

    def lines(self) -> list[str]:
        """The line naming the recorded run, for the readable output."""
        return [f"history run: #{self.id}"] if self.id is not None else []


def _hierarchy_files(pairs: Sequence[str] | None) -> dict[str, str]:
    """``--hierarchy COL=FILE`` options as {column: file name}, for the history."""
    files = {}
    for pair in pairs or ():
        column, _, path = pair.partition("=")
        files[column.strip()] = Path(path).name
    return files


def _same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Whether two paths name one file: the same resolved path, or (hard links, bind
    mounts) the same device and inode."""
    first, second = Path(a), Path(b)
    if first.resolve() == second.resolve():
        return True
    try:
        return os.path.samefile(first, second)
    except OSError:  # one of them does not exist (yet)
        return False


def _check_outputs(outputs: dict[str, Any], inputs: dict[str, Any]) -> None:
    """Before any work: every output file (``{option: path}``, None when not given) can
    be written - it is not a folder, its folder exists - and none is an input file or
    another output (``cli.same_file``, ``cli.unwritable``)."""
    given_outputs = [(option, path) for option, path in outputs.items() if path]
    given_inputs = {option: path for option, path in inputs.items() if path}
    for index, (option, path) in enumerate(given_outputs):
        for source_option, source in given_inputs.items():
            if _same_file(path, source):
                raise ParameterError(
                    f"{option} {path} is the input file given by {source_option}: writing "
                    "there would destroy it. Choose another output file.",
                    code="cli.same_file",
                    option=option,
                    path=str(path),
                )
        for other_option, other in given_outputs[:index]:
            if _same_file(path, other):
                raise ParameterError(
                    f"{other_option} and {option} name the same file ({path}); give each "
                    "output its own file.",
                    code="cli.same_file",
                    option=option,
                    path=str(path),
                )
        target = Path(path)
        if target.is_dir():
            raise ParameterError(
                f"Cannot write {option} {path}: it is a folder. Give a file name.",
                code="cli.unwritable",
                path=str(path),
            )
        if not target.resolve().parent.is_dir():
            raise ParameterError(
                f"Cannot write {option} {path}: its folder does not exist.",
                code="cli.unwritable",
                path=str(path),
            )


def _write_text(path: str | os.PathLike[str], text: str, option: str) -> None:
    """Write an output file; a failure (disk full, no permission) is one line, exit 2."""
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ParameterError(
            f"Cannot write {option} {path}: {exc.strerror or exc}.",
            code="cli.unwritable",
            path=str(path),
        ) from exc


def _read_json_file(path: str, what: str, code: str) -> Any:
    """A JSON file given as an option; unreadable, not JSON or nested beyond Python's
    recursion limit is one ``code`` error naming ``what``."""
    try:
        text = Path(path).read_bytes()
    except OSError as exc:
        raise ParameterError(
            f"Cannot read {what} {path}: {exc.strerror or exc}.", code=code, path=str(path)
        ) from exc
    try:
        return json.loads(text)
    except RecursionError as exc:
        raise ParameterError(
            f"{what.capitalize()} {path} is nested too deeply to be one.", code=code, path=str(path)
        ) from exc
    except (ValueError, UnicodeDecodeError) as exc:
        raise ParameterError(f"{what.capitalize()} {path} is not valid JSON.", code=code) from exc


def _guard_note(cells: int) -> None:
    """The one line saying how many cells the formula guard changed (none: no line)."""
    if cells:
        _say(
            f"{cells:,} {'cell' if cells == 1 else 'cells'} starting with =, +, -, @, tab or CR "
            f"{'was' if cells == 1 else 'were'} prefixed with ' (formula guard; "
            "--no-formula-guard writes them as they are)"
        )


def cmd_profile(args: argparse.Namespace) -> int:
    dataset = load(args.file)
    table = profile(dataset.frame)
    suggestions = {s.column: s for s in suggest_roles(dataset.frame)}
    columns = []
    for row in table.to_dict("records"):
        s = suggestions[row["column"]]
        columns.append(
            {**row, "suggested_role": s.role.value, "reason": s.reason, "confidence": s.confidence}
        )
    payload = {
        "file": args.file,
        "rows": dataset.n_rows,
        "columns": dataset.n_columns,
        "format": dataset.source_format,
        "encoding": dataset.encoding,
        "delimiter": dataset.delimiter,
        "sha256": dataset.fingerprint.sha256,
        "profile": columns,
    }
    lines = [
        f"{args.file}: {dataset.n_rows:,} {'row' if dataset.n_rows == 1 else 'rows'} × "
        f"{dataset.n_columns} {'column' if dataset.n_columns == 1 else 'columns'} "
        f"({dataset.source_format}, {dataset.encoding or 'binary'})",
        *(
            f"  {c['column']:<24} {c['type']:<8} distinct={c['distinct']:<7} "
            f"missing={c['missing']:<6} → {c['suggested_role']} ({c['reason']})"
            for c in columns
        ),
    ]
    _emit(payload, args.json, lines)
    return EXIT_OK


def _columns(text: str, option: str) -> list[str]:
    columns = [c.strip() for c in text.split(",") if c.strip()]
    if not columns:
        raise ParameterError(f"{option} needs at least one column name.", code="cli.empty_list")
    return columns


def _hierarchies(pairs: Sequence[str]) -> dict[str, Hierarchy]:
    result = {}
    for pair in pairs or ():
        column, sep, path = pair.partition("=")
        if not sep or not column or not path:
            raise ParameterError(
                f"--hierarchy takes COLUMN=FILE, not '{pair}'.", code="cli.hierarchy_option"
            )
        result[column.strip()] = Hierarchy.read_arx(Path(path), name=column.strip())
    return result


def _models(args: argparse.Namespace) -> list:
    models: list = []
    if args.k is not None:
        models.append(KAnonymity(args.k))
    if args.l is not None:
        if args.l_kind == "entropy":
            models.append(EntropyLDiversity(args.l))
        else:
            if not float(args.l).is_integer():
                raise ParameterError(
                    f"--l must be a whole number for {args.l_kind} l-diversity, not {args.l:g}"
                    " (only entropy l-diversity takes a fractional l).",
                    code="cli.fractional_l",
                )
            if args.l_kind == "recursive":
                models.append(RecursiveCLDiversity(args.c, int(args.l)))
            else:
                models.append(DistinctLDiversity(int(args.l)))
    if args.t is not None:
        models.append(TCloseness(args.t, args.t_distance))
    return models


def cmd_measure(args: argparse.Namespace) -> int:
    original = load(args.original)
    release = load(args.release)
    qi, sa = _columns(args.qi, "--qi"), _columns(args.sa, "--sa")
    models = _models(args)
    hierarchies = _hierarchies(args.hierarchy)
    population = load(args.population).frame if args.population else None
    params = {
        "release": release.name,
        "release_sha256": release.fingerprint.sha256 if args.record else None,  # hashed if kept
        "qi": qi,
        "sa": sa,
        "key": args.key,
        "population_rows": None if population is None else len(population),
        "k": args.k,
        "l": args.l,
        "l_kind": args.l_kind,
        "c": args.c,
        "t": args.t,
        "t_distance": args.t_distance,
        "risk_threshold": args.risk_threshold,
        "hierarchies": _hierarchy_files(args.hierarchy),
    }
    with _Recording(args, "measure", params, original) as run:
        result = measure_release(
            original.frame,
            release.frame,
            qi=qi,
            sa=sa,
            models=models,
            hierarchies=hierarchies,
            key=args.key,
            risk_threshold=args.risk_threshold,
            population=population,
            t_distance=args.t_distance,
            check_order=True,
        )
        payload = result.to_dict()
        run.results = result.history_summary()
    lines = [
        f"k = {payload['k']}  ({payload['classes']} classes, {payload['rows']} rows, "
        f"{payload['suppressed_rows']} suppressed)",
        *(
            f"{sa}: distinct l = {payload['l_distinct'][sa]}, entropy l = "
            f"{payload['l_entropy'][sa]:.3f}, t = {payload['t_closeness'][sa]['t']:.4f} "
            f"({payload['t_closeness'][sa]['distance']})"
            for sa in payload["sa"]
        ),
        "PL: " + ", ".join(f"{a} = {v:.3f}" for a, v in payload["pl"].items() if v is not None),
        f"DR = {payload['dr']:.3f}   UL = {payload['ul']:.3f}",
        _real_records_line(payload["real_records"]),
        f"risk: prosecutor max {payload['risk']['prosecutor_max']:.3f}, average "
        f"{payload['risk']['prosecutor_avg']:.3f} (record-weighted), marketer "
        f"{payload['risk']['marketer']:.3f}",
        *(
            f"{'PASS' if v['passed'] else 'FAIL'} {v['requirement']}: achieved {v['achieved']}"
            for v in payload["verdicts"]
        ),
        *(f"note: {n}" for n in payload["notes"]),
        *run.lines(),
    ]
    _emit(payload, args.json, lines)
    return EXIT_OK


@contextmanager
def _terminal_progress(args: argparse.Namespace) -> Iterator[Callable[[float, str], None] | None]:
    """A tqdm bar on stderr fed by the library's progress callback, closed at the end
    of the block; nothing with --quiet or when stderr is not a terminal."""
    if args.quiet or not sys.stderr.isatty():
        yield None
        return
    from tqdm import tqdm

    bar = tqdm(total=100, unit="%", file=sys.stderr, leave=False, dynamic_ncols=True)

    def progress(fraction: float, message: str) -> None:
        bar.n = round(100 * fraction)
        bar.set_description(terminal_safe(message[:60], one_line=True))
        bar.refresh()

    try:
        yield progress
    finally:
        bar.close()


def _suggested_identifiers(frame, args: argparse.Namespace) -> list[str]:
    """Columns the role suggestions call identifiers (names, e-mails, IDs, unique
    columns), other than the chosen QIs and SAs; each is named on stderr with its
    reason, so a release never carries a direct identifier by default."""
    from privcore.data import Role, suggest_roles

    chosen = set(_columns(args.qi, "--qi")) | set(_columns(args.sa, "--sa"))
    found = [
        s for s in suggest_roles(frame) if s.role == Role.IDENTIFIER and s.column not in chosen
    ]
    for suggestion in found:
        _say(
            f"removed identifier column '{suggestion.column}': {suggestion.reason} "
            "(--identifiers '' keeps every column)"
        )
    return [s.column for s in found]


def cmd_anonymize(args: argparse.Namespace) -> int:
    from privcore.anonymize import anonymize
    from privcore.data import Role, Schema

    if args.from_spec:
        return _anonymize_from_spec(args)
    missing = [o for o in ("qi", "sa") if getattr(args, o) is None]
    if missing:
        raise ParameterError(
            "anonymize needs " + ", ".join(f"--{o}" for o in missing) + " (or --from-spec FILE).",
            code="cli.missing_options",
        )
    _check_anonymize_outputs(args)
    dataset = load(args.input)
    frame = dataset.frame
    qi, sa = _columns(args.qi, "--qi"), _columns(args.sa, "--sa")
    if args.identifiers is None:  # not given: the columns suggested as identifiers
        identifiers = _suggested_identifiers(frame, args)
    else:
        identifiers = _columns(args.identifiers, "--identifiers") if args.identifiers else []
    roles = dict.fromkeys(map(str, frame.columns), Role.INSENSITIVE)
    roles.update(dict.fromkeys(identifiers, Role.IDENTIFIER))
    roles.update(dict.fromkeys(qi, Role.QUASI_IDENTIFIER))
    roles.update(dict.fromkeys(sa, Role.SENSITIVE))
    unknown = [c for c in roles if c not in frame.columns]
    if unknown:
        raise ParameterError(
            f"{args.input} has no column {', '.join(unknown)}.", code="cli.unknown_columns"
        )
    schema = Schema(roles, _hierarchies(args.hierarchy))
    models = _models(args)
    options = {}
    if args.algorithm in ("samarati", "incognito", "optimal"):
        options["loss_metric"] = args.loss_metric
    if args.algorithm == "mondrian":
        options["summary"] = args.summary
    params = {  # the Anonymize page's parameters, plus the roles and files of the command
        "algorithm": args.algorithm,
        "k": args.k,
        "l": args.l,
        "l_kind": args.l_kind,
        "c": args.c,
        "t": args.t,
        "t_distance": args.t_distance,
        "max_suppression": args.max_suppression,
        **options,
        "seed": args.seed,
        "qi": qi,
        "sa": sa,
        "identifiers": identifiers,
        "hierarchies": _hierarchy_files(args.hierarchy),
        "keep_order": args.keep_order,
        "out": Path(args.out).name,
    }
    with _Recording(args, "anonymize", params, dataset) as run:
        with _terminal_progress(args) as progress:
            release = anonymize(
                frame,
                schema,
                models,
                algorithm=args.algorithm,
                max_suppression=args.max_suppression,
                seed=args.seed,
                progress=progress,
                **options,
            )
        report = _write_release(release, args)
        run.results = release.history_summary()
    _emit(report, args.json, _release_lines(args.algorithm, report, args, run))
    return EXIT_OK


def _check_anonymize_outputs(args: argparse.Namespace) -> None:
    _check_outputs(
        {"--out": args.out, "--report": args.report, "--spec-out": args.spec_out},
        {
            "INPUT": args.input,
            "--from-spec": args.from_spec,
            **{f"--hierarchy {p}": p.partition("=")[2] for p in args.hierarchy or ()},
        },
    )


def _write_release(release: Any, args: argparse.Namespace) -> dict[str, Any]:
    """Write the release (shuffled unless --keep-order; CSV/TSV formula-guarded unless
    --no-formula-guard), the report and the spec. Cells the guard changed are counted
    in the report (``formula_guarded_cells``, only when there are any) and on stderr."""
    from privcore.data import save

    saved = save(
        release.export(shuffle=not args.keep_order, seed=args.seed),
        args.out,
        formula_guard=args.formula_guard,
    )
    report = release.to_dict()
    if saved.guarded_cells:
        report["formula_guarded_cells"] = saved.guarded_cells
    _guard_note(saved.guarded_cells)
    if args.report:
        _write_text(args.report, history.to_json(report), "--report")
    if args.spec_out:
        _write_text(args.spec_out, release.spec_json(), "--spec-out")
    return report


def _real_records_line(real: dict[str, Any]) -> str:
    return (
        f"real records: {real['own']:,} released row(s) equal their own original, "
        f"{real['any']:,} equal some original (quasi-identifiers and sensitive attributes)"
    )


def _release_lines(
    algorithm: str, report: dict[str, Any], args: argparse.Namespace, run: _Recording
) -> list[str]:
    written = [f for f in (args.out, args.report, args.spec_out) if f]
    return [
        f"{algorithm}: k = {report['k']}, {report['suppressed_rows']} row(s) suppressed, "
        f"{report['classes']} classes, {report['seconds']:.3f} s",
        "loss: " + ", ".join(f"{k} = {v:.4g}" for k, v in report["loss"].items()),
        f"PL = {report['pl']:.3f}   UL = {report['ul']:.3f}",
        _real_records_line(report["real_records"]),
        *([f"node: {report['node']}"] if report["node"] else []),
        "wrote " + ", ".join(written),
        *run.lines(),
    ]


def _anonymize_from_spec(args: argparse.Namespace) -> int:
    """``anonymize INPUT --from-spec SPEC``: the release a spec describes, made again
    from the same input (checked by fingerprint) without choosing anything."""
    from privcore.anonymize.spec import read_spec, reproduce

    try:
        text = Path(args.from_spec).read_bytes()
    except OSError as exc:
        raise ParameterError(
            f"Cannot read the spec {args.from_spec}: {exc.strerror or exc}.",
            code="cli.unreadable",
            path=str(args.from_spec),
        ) from exc
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
    args.seed = seed  # the export is shuffled as the original was
    _check_anonymize_outputs(args)
    dataset = load(args.input)
    params = {
        "algorithm": spec["algorithm"],
        "from_spec": Path(args.from_spec).name,
        "seed": spec.get("seed"),
        "max_suppression": spec.get("max_suppression"),
        "qi": spec.get("qi"),
        "sa": spec.get("sa"),
        "keep_order": args.keep_order,
        "out": Path(args.out).name,
    }
    with _Recording(args, "anonymize", params, dataset) as run:
        with _terminal_progress(args) as progress:
            release = reproduce(dataset.frame, spec, progress=progress)
        report = _write_release(release, args)
        run.results = release.history_summary()
    lines = _release_lines(spec["algorithm"], report, args, run)
    _emit(report, args.json, ["reproduced from " + str(args.from_spec), *lines])
    return EXIT_OK


def cmd_attack(args: argparse.Namespace) -> int:
    from privcore.attacks import simulate
    from privcore.measure.entropy import align

    dataset = load(args.original)
    released = load(args.release)
    qi, sa = _columns(args.qi, "--qi"), _columns(args.sa, "--sa")
    hierarchies = _hierarchies(args.hierarchy)
    original, release = align(
        dataset.frame, released.frame, args.key, qi=qi, hierarchies=hierarchies
    )
    params = {  # the Attack page's parameters of its linkage run, plus the command's
        "attack": "linkage+homogeneity",
        "release": released.name,
        "release_sha256": released.fingerprint.sha256 if args.record else None,  # hashed if kept
        "key": args.key,
        "qi": qi,
        "sa": sa,
        "roll": {"size": args.roll_size, "seed": args.seed, "locale": args.locale},
        "tau": args.tau,
        "hierarchies": _hierarchy_files(args.hierarchy),
    }
    with _Recording(args, "attack", params, dataset) as run:
        with _terminal_progress(args) as progress:
            result = simulate(
                original,
                release,
                qi,
                sa,
                roll_size=args.roll_size,
                seed=args.seed,
                locale=args.locale,
                hierarchies=hierarchies,
                tau=args.tau,
                progress=progress,
            )
        payload = result.to_dict()
        params["roll"] = payload["roll"]  # the roll built (its size when not given)
        run.results = payload
    lines = []
    for label, figures in (("original", payload["before"]), ("release", payload)):
        link, hom, risk = figures["linkage"], figures["homogeneity"], figures["risk"]
        disclosed = ", ".join(f"{k} {v}" for k, v in link["attribute_disclosed"].items())
        lines += [
            f"{label}: {link['reidentified']} of {link['targets']} people re-identified "
            f"({link['unique_matches']} unique matches); attribute disclosed: {disclosed}",
            f"  homogeneous classes {hom['classes_exposed']} ({hom['records_exposed']} records);"
            f" risk: prosecutor max {risk['prosecutor_max']:.3f}, journalist max "
            f"{risk['journalist_max']:.3f}, marketer {risk['marketer']:.3f}",
        ]
    lines.append(f"roll: {payload['roll']['size']:,} people, seed {payload['roll']['seed']}")
    lines += run.lines()
    _emit(payload, args.json, lines)
    return EXIT_OK


def cmd_audit(args: argparse.Namespace) -> int:
    from privcore.ldp import audit as ldp_audit

    samples: Dataset | None = None
    if args.samples_file:
        if not args.input_col or not (args.output_col or args.output_prefix):
            raise ParameterError(
                "--samples-file needs --input-col and --output-col or --output-prefix.",
                code="cli.samples_options",
            )
        if args.claimed_epsilon is None:
            raise ParameterError(
                "--samples-file needs --claimed-epsilon.", code="cli.samples_options"
            )
        samples = load(args.samples_file)
        outputs = (
            [args.output_col]
            if args.output_col
            else [c for c in map(str, samples.frame.columns) if c.startswith(args.output_prefix)]
        )
        if args.method == "ab":
            raise ParameterError(
                "Uploaded samples are audited black-box: use --method ob or lb.",
                code="cli.samples_method",
            )
        params = {  # the LDP auditor page's parameters of an audit of uploaded samples
            "samples": samples.name,
            "input": args.input_col,
            "outputs": outputs,
            "claimed": args.claimed_epsilon,
            "method": args.method,
            "seed": args.seed,
        }
    else:
        if not args.mechanism or args.epsilon is None:
            raise ParameterError(
                "Give --mechanism and --epsilon, or --samples-file.", code="cli.audit_options"
            )
        params = {  # the LDP auditor page's parameters of a mechanism audit
            "mechanism": args.mechanism,
            "epsilon": args.epsilon,
            "d": args.domain,
            "methods": [args.method],
            f"n_{args.method}": args.samples,
            "seed": args.seed,
        }
    with _Recording(args, "audit", params, samples) as run:
        with _terminal_progress(args) as progress:
            if samples is not None:
                report = ldp_audit.audit_samples(
                    samples.frame,
                    args.input_col,
                    outputs,
                    claimed_epsilon=args.claimed_epsilon,
                    method=args.method,
                    seed=args.seed,
                    progress=progress,
                )
            else:
                from privcore.ldp.mechanisms import make

                mechanism = make(args.mechanism, args.epsilon, d=args.domain)
                runner = {
                    "ab": ldp_audit.audit_ab,
                    "ob": ldp_audit.audit_ob,
                    "lb": ldp_audit.lower_bound,
                }[args.method]
                kwargs = {"seed": args.seed, "progress": progress}
                if args.samples:
                    kwargs["n"] = args.samples
                report = runner(mechanism, **kwargs)
        payload = report.to_dict()
        # as the page: an uploaded-samples audit is one report, a mechanism's per method
        run.results = payload if samples is not None else {args.method: payload}
    claimed = payload["epsilon_claimed"]
    lines = [
        f"{payload['mechanism'].get('mechanism')}: method {payload['method']}, "
        f"claimed ε = {claimed}, device {payload['device']}, {payload['seconds']:.2f} s"
    ]
    if payload["epsilon_hat"] is not None:
        ci = payload["ci"] or [None, None]
        lines.append(f"ε̂ = {payload['epsilon_hat']:.4f}  interval [{_num(ci[0])}, {_num(ci[1])}]")
    if payload["epsilon_lb"] is not None:
        lines.append(
            f"certified lower bound ε_LB = {payload['epsilon_lb']:.4f} "
            f"(confidence {payload['confidence']:.0%})"
        )
    reasons = {  # details["reason"] of the report, in plain words
        "bound_above_claim": "the 99.9 % lower bound exceeds the claim",
        "within_margin": "the mechanism's own worst-case event leaks at most 1.1 × the claim "
        "(99.9 % upper bound)",
        "interval_too_wide": "cannot yet rule out a loss more than 10 % above the claim: "
        "use more samples",
        "weak_evidence": "above the claim at the shown confidence, not at the 99.9 % a "
        "violation needs: use more samples",
        "lower_bound_only": "no violation shown; a learned lower bound cannot clear a mechanism",
        "no_evidence_at_resolution": "no evidence above the claim at this resolution; "
        "run the certified lower bound",
        "estimate_above_claim": "the estimate lies above the claim; run the certified lower "
        "bound to decide",
        "disjoint_outputs": "some inputs' outputs never overlap (unbounded loss); run the "
        "certified lower bound",
    }
    reason = reasons.get(payload.get("reason"), "")
    lines.append(f"verdict: {payload['verdict']}" + (f" — {reason}" if reason else ""))
    lines.append(
        "rule: a violation needs a 99.9 % bound above the claim (false-alarm rate ≤ "
        f"{payload.get('false_alarm_rate', 0.001):.1%} per audit)"
    )
    lines += run.lines()
    _emit(payload, args.json, lines)
    return EXIT_OK


def _num(value: Any) -> str:
    return "—" if value is None else f"{value:.4f}"


def _limit_option(text: str) -> float | str:
    """A threshold on the command line: a finite number, or "none" (not required)."""
    if text.strip().lower() in ("none", "off"):
        return "none"
    try:
        value = float(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"expected a number or 'none', not {text!r}") from exc
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number or 'none', not {text!r}")
    return value


def _finite_float(text: str) -> float:
    """A number option: finite (NaN and infinities are refused here; ranges are checked
    by the library, which names the parameter)."""
    try:
        value = float(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"expected a number, not {text!r}") from exc
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, not {text!r}")
    return value


def _positive_int(text: str) -> int:
    """A count option: a whole number ≥ 1."""
    try:
        value = int(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"expected a whole number ≥ 1, not {text!r}") from exc
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number ≥ 1, not {text!r}")
    return value


#: Largest seed: every random generator privcore seeds (NumPy, PyTorch) takes it.
MAX_SEED = 2**63 - 1


def _seed(text: str) -> int:
    """A seed option: a whole number from 0 to :data:`MAX_SEED`."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(
            f"expected a whole number from 0 to {MAX_SEED}, not {text!r}"
        )
    return value


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
}


# Thresholds every report checks (the others accept "none": not required)
_REQUIRED_THRESHOLDS = (
    "min_k",
    "max_prosecutor",
    "max_reidentified_share",
    "max_disclosed_share",
    "max_suppressed_share",
)


def cmd_report(args: argparse.Namespace) -> int:
    from privcore.report import Thresholds, readiness

    given = {
        field: (None if getattr(args, option) == "none" else getattr(args, option))
        for option, field in _REPORT_THRESHOLDS.items()
        if getattr(args, option) is not None
    }
    required = [f for f in given if given[f] is None and f in _REQUIRED_THRESHOLDS]
    if required:
        options = {field: option for option, field in _REPORT_THRESHOLDS.items()}
        names = ", ".join("--" + options[f].replace("_", "-") for f in required)
        raise ParameterError(
            f"{names} cannot be 'none': the release is always checked against it; give a "
            "number (only --min-l, --max-t, --max-pl, --max-journalist and --min-ul can be "
            "waived).",
            code="cli.threshold_required",
        )
    thresholds = Thresholds(**given)
    _check_outputs(
        {"--out": args.out},
        {
            "--original": args.original,
            "--release": args.release,
            "--algorithm-report": args.algorithm_report,
            **{f"--hierarchy {p}": p.partition("=")[2] for p in args.hierarchy or ()},
        },
    )
    if args.from_run is not None:
        from privcore.report import readiness_from_history

        result = readiness_from_history(args.from_run)
        return _write_report(result, args)
    missing = [o for o in ("original", "release", "qi", "sa") if getattr(args, o) is None]
    if missing:
        raise ParameterError(
            "report needs " + ", ".join(f"--{o}" for o in missing) + " (or --from-run ID).",
            code="cli.missing_options",
        )
    algorithm = None
    if args.algorithm_report:
        made = _read_json_file(
            args.algorithm_report, "the anonymize report", "cli.algorithm_report"
        )
        if not isinstance(made, dict):
            raise ParameterError(
                f"{args.algorithm_report} is not a report of 'privcore anonymize --report'.",
                code="cli.algorithm_report",
            )
        algorithm = {k: made.get(k) for k in ("algorithm", "params", "node", "synthetic")}
    original = load(args.original).frame
    release = load(args.release).frame
    with _terminal_progress(args) as progress:
        result = readiness(
            original,
            release,
            qi=_columns(args.qi, "--qi"),
            sa=_columns(args.sa, "--sa"),
            thresholds=thresholds,
            hierarchies=_hierarchies(args.hierarchy),
            key=args.key,
            algorithm=algorithm,
            roll_size=args.roll_size,
            seed=args.seed,
            record=args.record,
            check_order=True,
            progress=progress,
            original_name=Path(args.original).name,
            release_name=Path(args.release).name,
        )
    return _write_report(result, args)


def _write_report(result, args: argparse.Namespace) -> int:
    _write_text(args.out, result.to_html(args.lang), "--out")
    verdict = result.verdict.replace("_", " ")
    lines = [f"verdict: {verdict}"]
    lines += [f"  FAIL {r['message']}" for r in result.reasons]
    if result.conditions:
        lines.append("conditions:")
        lines += [f"  - {c['message']}" for c in result.conditions]
    lines.append(f"wrote {args.out}")
    if result.run_ids:
        lines.append("history runs: " + ", ".join(f"#{i}" for i in result.run_ids))
    _emit(result.to_dict(), args.json, lines)
    return EXIT_OK if result.ready else EXIT_VERDICT


def cmd_history(args: argparse.Namespace) -> int:
    if args.action == "list":
        runs = history.list_runs(kind=args.kind, search=args.search, limit=args.limit)
        slim = [
            {
                k: r.get(k)
                for k in ("id", "started_at", "kind", "status", "dataset_name", "duration_s")
            }
            for r in runs
        ]
        lines = [
            f"#{r['id']:<5} {r['started_at']}  {r['kind']:<10} {r['status']:<9} "
            f"{r['dataset_name'] or '-'}"
            for r in slim
        ] or ["(no runs)"]
        lost = [str(p) for p in history.set_aside_files()]
        waiting = history.pending_runs()
        for file in lost:
            print(
                f"warning: the history file was found empty, so the runs recorded before "
                f"were lost; the empty file was kept as {file}",
                file=sys.stderr,
            )
        if waiting:
            print(
                f"note: {waiting} run(s) wait to be added (the history file was busy)",
                file=sys.stderr,
            )
        _emit({"runs": slim, "lost_history_files": lost, "pending_runs": waiting}, args.json, lines)
    elif args.action == "show":
        run = history.get_run(args.id)
        if run is None:
            raise PrivcoreError(f"There is no run #{args.id}.", code="history.no_run", id=args.id)
        _emit(run, True, [])
    elif args.action == "export":
        sys.stdout.write(
            history.export_csv(kind=args.kind, search=args.search, formula_guard=args.formula_guard)
        )
    return EXIT_OK


def _formula_guard_option(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "--no-formula-guard",
        dest="formula_guard",
        action="store_false",
        help=f"write cells of {what} that start with =, +, -, @, tab or CR as they are "
        "(by default they are prefixed with ' so that spreadsheets do not run them as "
        "formulas; numbers are never changed). For pipelines that read the file as data",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="privcore",
        description="Privacy Workbench from the command line: profile, anonymize, measure, "
        "attack, audit, report, history. Exit codes: 0 ok, 1 a 'not ready' report, 2 bad "
        "input. `privcore COMMAND --help` describes each command.",
    )
    parser.add_argument("--version", action="version", version=f"privcore {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("profile", help="read a table, profile its columns, suggest roles")
    p.add_argument("file", help="CSV/TSV/semicolon text, .xlsx, .parquet or .jsonl")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_profile)

    m = sub.add_parser(
        "measure",
        help="measure a release against its original: k, l, t, PL/DR/UL, risk, loss",
        description="Measure how private a release is. --json prints one object with k, "
        "classes, suppressed_rows, l_distinct, l_entropy, t_closeness, pl, dr, ul, risk, "
        "loss, verdicts.",
    )
    m.add_argument("--original", required=True, help="the original table")
    m.add_argument("--release", required=True, help="the released (anonymized) table")
    m.add_argument("--qi", required=True, help="quasi-identifiers, comma-separated")
    m.add_argument("--sa", required=True, help="sensitive attributes, comma-separated")
    m.add_argument("--key", help="row key present in both tables (default: row order)")
    m.add_argument(
        "--hierarchy",
        action="append",
        metavar="COL=FILE",
        help="ARX hierarchy file of a column (repeatable)",
    )
    m.add_argument("--k", type=int, help="verdict: k-anonymity with this k")
    m.add_argument("--l", type=_finite_float, help="verdict: l-diversity with this l")
    m.add_argument("--l-kind", choices=["distinct", "entropy", "recursive"], default="distinct")
    m.add_argument("--c", type=_finite_float, default=1.0, help="c of recursive (c,l)-diversity")
    m.add_argument("--t", type=_finite_float, help="verdict: t-closeness with this t")
    m.add_argument(
        "--t-distance", choices=["auto", "equal", "ordered", "hierarchical", "kl"], default="auto"
    )
    m.add_argument(
        "--risk-threshold",
        type=_finite_float,
        default=0.2,
        help="record risk above which a record counts as at risk",
    )
    m.add_argument(
        "--population",
        help="population table with the QI columns (adds "
        "journalist risk), e.g. a voter roll containing the data set's people",
    )
    m.add_argument(
        "--record",
        action="store_true",
        help="record the run in the history (page 'cli'; a fingerprint, never the data)",
    )
    m.add_argument("--json", action="store_true", help="print one JSON object")
    m.set_defaults(func=cmd_measure)

    a = sub.add_parser(
        "anonymize",
        help="anonymize a table under k / l / t constraints with one of seven algorithms",
        description="Anonymize INPUT and write the release to --out (shuffled unless "
        "--keep-order). --report writes a JSON report with k, suppressed_rows, seconds, "
        "loss, pl, ul and node (full-domain algorithms).",
    )
    a.add_argument("input", help="the table to anonymize")
    a.add_argument("--qi", help="quasi-identifiers, comma-separated (required)")
    a.add_argument("--sa", help="sensitive attributes, comma-separated (required)")
    a.add_argument(
        "--identifiers",
        help="identifier columns to remove, comma-separated (default: the columns the role "
        "suggestions call identifiers, each named on stderr; '' removes none)",
    )
    a.add_argument(
        "--algorithm",
        default="optimal",
        choices=["datafly", "samarati", "incognito", "optimal", "mondrian", "kaca", "condensation"],
    )
    a.add_argument("--k", type=int, default=2, help="k-anonymity (default 2)")
    a.add_argument("--l", type=_finite_float, help="l-diversity with this l")
    a.add_argument("--l-kind", choices=["distinct", "entropy", "recursive"], default="distinct")
    a.add_argument("--c", type=_finite_float, default=1.0, help="c of recursive (c,l)-diversity")
    a.add_argument("--t", type=_finite_float, help="t-closeness with this t")
    a.add_argument(
        "--t-distance", choices=["auto", "equal", "ordered", "hierarchical", "kl"], default="auto"
    )
    a.add_argument(
        "--hierarchy",
        action="append",
        metavar="COL=FILE",
        help="ARX hierarchy file of a column (repeatable)",
    )
    a.add_argument(
        "--max-suppression",
        type=_finite_float,
        default=0.0,
        help="share of rows that may be suppressed, 0–1 (default 0)",
    )
    a.add_argument(
        "--loss-metric",
        choices=["ncp", "whd", "discernibility", "ul"],
        default="ncp",
        help="loss minimized by samarati/incognito/optimal",
    )
    a.add_argument(
        "--summary",
        choices=["range", "mean"],
        default="range",
        help="how Mondrian shows numeric partitions",
    )
    a.add_argument("--seed", type=_seed, default=0, help="seed of the algorithm and shuffle")
    a.add_argument(
        "--keep-order",
        action="store_true",
        help="keep the original row order (shuffling is the default)",
    )
    a.add_argument(
        "--out", required=True, help="release file (.csv, .tsv, .xlsx, .parquet, .jsonl)"
    )
    a.add_argument("--report", help="write the JSON report here")
    _formula_guard_option(a, "a .csv/.tsv release")
    a.add_argument(
        "--spec-out",
        metavar="FILE.json",
        help="write the generalization spec here (algorithm, constraints, seed, roles, "
        "hierarchies, node; fingerprints of input and release, no data)",
    )
    a.add_argument(
        "--from-spec",
        metavar="FILE.json",
        help="make the release a spec describes again, from the same INPUT (checked by "
        "fingerprint); --qi, --sa, the algorithm and the constraints come from the spec",
    )
    a.add_argument(
        "--record",
        action="store_true",
        help="record the run in the history (page 'cli'; a fingerprint, never the data)",
    )
    a.add_argument("--quiet", action="store_true", help="no progress bar")
    a.add_argument("--json", action="store_true", help="print the report as JSON")
    a.set_defaults(func=cmd_anonymize)

    k = sub.add_parser(
        "attack",
        help="linkage and homogeneity attacks with a synthetic voter roll, before vs after",
        description="Attack the original table and its release with a synthetic voter roll "
        "that contains the data set's people. --json prints linkage {targets, "
        "unique_matches, reidentified, attribute_disclosed, …}, homogeneity "
        "{classes_exposed, records_exposed}, risk {prosecutor_max, journalist_max, "
        "marketer, …} for the release, the same under 'before' for the original.",
    )
    k.add_argument("--original", required=True, help="the original table")
    k.add_argument("--release", required=True, help="the release (rows aligned, or --key)")
    k.add_argument("--qi", required=True, help="quasi-identifiers, comma-separated")
    k.add_argument("--sa", required=True, help="sensitive attributes, comma-separated")
    k.add_argument("--key", help="row key present in both tables (default: row order)")
    k.add_argument(
        "--hierarchy",
        action="append",
        metavar="COL=FILE",
        help="ARX hierarchy of a column, to read its labels in the release",
    )
    k.add_argument("--roll-size", type=_positive_int, help="people in the roll (default 10 × rows)")
    k.add_argument("--seed", type=_seed, default=0, help="seed of the voter roll")
    k.add_argument(
        "--locale", choices=["en", "zh", "mixed"], default="en", help="names in the roll"
    )
    k.add_argument(
        "--tau",
        type=_finite_float,
        default=1.0,
        help="homogeneity: top-value share that exposes a class (default 1)",
    )
    k.add_argument(
        "--record",
        action="store_true",
        help="record the run in the history (page 'cli'; a fingerprint, never the data)",
    )
    k.add_argument("--quiet", action="store_true", help="no progress bar")
    k.add_argument("--json", action="store_true", help="print one JSON object")
    k.set_defaults(func=cmd_attack)

    u = sub.add_parser(
        "audit",
        help="audit an LDP mechanism (ab, ob, lb) or logged samples of any implementation",
        description="Audit a built-in LDP mechanism (--mechanism NAME --epsilon E) or "
        "uploaded samples (--samples-file). --json prints epsilon_hat, ci [lo, hi] (ab/ob), "
        "epsilon_lb (lb), verdict, device and seconds.",
    )
    u.add_argument(
        "--mechanism", help="e.g. grr, sue, oue, olh, duchi, piecewise, broken_grr (see the README)"
    )
    u.add_argument("--epsilon", type=float, help="the claimed ε of the mechanism")
    u.add_argument("--domain", type=int, default=None, help="domain size d (frequency oracles)")
    u.add_argument("--samples", type=_positive_int, help="samples per input")
    u.add_argument("--method", choices=["ab", "ob", "lb"], default="ob")
    u.add_argument("--samples-file", help="table of logged (input, output) rows")
    u.add_argument("--input-col", help="the input column of --samples-file")
    u.add_argument("--output-col", help="the output column (one value per row)")
    u.add_argument("--output-prefix", help="prefix of the output columns (vector outputs)")
    u.add_argument("--claimed-epsilon", type=float, help="the ε the implementation claims")
    u.add_argument("--seed", type=_seed, default=0, help="seed of the sampling")
    u.add_argument(
        "--record",
        action="store_true",
        help="record the run in the history (page 'cli'; a fingerprint, never the data)",
    )
    u.add_argument("--quiet", action="store_true", help="no progress bar")
    u.add_argument("--json", action="store_true", help="print one JSON object")
    u.set_defaults(func=cmd_audit)

    from privcore.report import Thresholds

    defaults = Thresholds()
    r = sub.add_parser(
        "report",
        help="release readiness: measure and attack a release, check it against thresholds, "
        "write an HTML report (exit 0 ready, 1 not ready)",
        description="Decide whether a release may be published: measure it (k, l, t, PL, "
        "UL, risk), attack it with a synthetic voter roll, check the thresholds, and write "
        "one self-contained HTML report (--out). Prints the verdict and its reasons or "
        "conditions, or with --json the whole report (verdict, reasons, conditions, checks, "
        "fingerprints, thresholds, measurement, attacks). Exit code 0 when ready (also ready "
        "with conditions), 1 when not ready, 2 on bad input. Thresholds that may be waived "
        "accept 'none'.",
    )
    r.add_argument("--original", help="the original table (required unless --from-run)")
    r.add_argument("--release", help="the release (rows aligned, or --key)")
    r.add_argument("--qi", help="quasi-identifiers, comma-separated")
    r.add_argument("--sa", help="sensitive attributes, comma-separated")
    r.add_argument(
        "--from-run",
        type=_positive_int,
        metavar="ID",
        help="write the report of a recorded report run again, from the history alone",
    )
    r.add_argument("--key", help="row key present in both tables (default: row order)")
    r.add_argument(
        "--hierarchy",
        action="append",
        metavar="COL=FILE",
        help="ARX hierarchy file of a column (repeatable)",
    )
    r.add_argument("--min-k", type=int, help=f"smallest class size (default {defaults.min_k})")
    for option, field, what in (
        ("--min-l", "min_l", "distinct l per sensitive attribute"),
        ("--max-t", "max_t", "t-closeness, auto distance"),
        ("--max-pl", "max_pl", "privacy level PL(all)"),
        ("--max-prosecutor", "max_prosecutor", "highest prosecutor risk"),
        ("--max-journalist", "max_journalist", "highest journalist risk"),
        ("--max-reidentified", "max_reidentified_share", "share re-identified by linkage"),
        ("--max-disclosed", "max_disclosed_share", "share with a sensitive value disclosed"),
        ("--max-suppressed", "max_suppressed_share", "share of suppressed rows"),
        ("--min-ul", "min_ul", "utility floor UL"),
    ):
        default = getattr(defaults, field)
        r.add_argument(
            option,
            type=_limit_option,
            metavar="X",
            help=f"{what} (default {'none' if default is None else f'{default:g}'})",
        )
    r.add_argument("--roll-size", type=_positive_int, help="people in the roll (default 10 × rows)")
    r.add_argument("--seed", type=_seed, default=0, help="seed of the voter roll")
    r.add_argument("--lang", choices=["en", "zh"], default="en", help="language of the report")
    r.add_argument("--out", required=True, help="the HTML report to write")
    r.add_argument(
        "--algorithm-report",
        metavar="FILE",
        help="JSON report of 'privcore anonymize --report', shown as the algorithm used",
    )
    r.add_argument("--record", action="store_true", help="record the runs in the history")
    r.add_argument("--quiet", action="store_true", help="no progress bar")
    r.add_argument("--json", action="store_true", help="print the report as one JSON object")
    r.set_defaults(func=cmd_report)

    h = sub.add_parser("history", help="list, show or export recorded runs")
    h.add_argument("action", choices=["list", "show", "export"])
    h.add_argument("id", nargs="?", type=_positive_int, help="run id (for show)")
    h.add_argument("--kind", help="only runs of this kind")
    h.add_argument("--search", help="substring to look for")
    h.add_argument("--limit", type=_positive_int, default=50, help="runs to list (default 50)")
    h.add_argument("--json", action="store_true")
    _formula_guard_option(h, "the CSV export")
    h.set_defaults(func=cmd_history)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "action", None) == "show" and args.id is None:
        parser.error("history show needs a run id")
    try:
        return args.func(args)
    except PrivcoreError as exc:
        print(f"error: {terminal_safe(exc.message, one_line=True)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:  # output piped into `head` and closed: not an error
        sys.stderr.close()
        return EXIT_OK
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
