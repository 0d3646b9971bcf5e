"""Command line: ``python -m privcore COMMAND …`` for batch use and scripts.

Commands mirror the app's pages and run the same requests: ``measure``, ``anonymize``,
``attack`` and ``audit`` turn their options into a request of :mod:`privcore.runs` and
call :func:`privcore.runs.run`, and those options are generated from the registry
(:data:`privcore.runs.registry.OPTIONS`: kind, choices, help) and the request's defaults,
so a default or a choice is the pages' one. Output is a readable summary, or with
``--json`` one JSON object whose keys are a documented contract (README). Exit codes: 0
success, 2 bad input or impossible parameters (one line on stderr), 1 reserved for
verdicts (``report``: not ready). ``--record`` (measure, anonymize, attack, audit,
report) writes the run to the history with the pages' policy (page ``cli``); a history
that cannot be written is one warning on stderr and changes neither the output nor the
exit code.

Numbers are checked by the request they belong to (:func:`privcore.runs.check_value`:
no NaN, infinity, negative count or seed, nothing out of range), with the message a page
would give; no command writes over one of its input files; readable output
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
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import MISSING, fields, replace
from pathlib import Path
from typing import Any

from privcore import __version__, history
from privcore.data import Dataset, Hierarchy, Schema, load, profile, suggest_roles
from privcore.errors import HierarchyError, ParameterError, PrivcoreError
from privcore.runs import (
    OPTIONS,
    AnonymizeRequest,
    AttackRequest,
    AuditRequest,
    Inputs,
    MeasureRequest,
    Outcome,
    ReplayRequest,
    ReportRequest,
    Request,
    make_request,
    run,
)

EXIT_OK = 0
EXIT_VERDICT = 1
EXIT_BAD_INPUT = 2


#: A value that starts like a negative number: ``-70,30``, ``-1e-3``, ``-.5``, ``-inf``,
#: ``-nan``. No option of this command line starts so (every one is ``--`` and a letter).
_NEGATIVE_VALUE = re.compile(r"-(?:\.?\d|inf|nan)", re.IGNORECASE)


class _Parser(argparse.ArgumentParser):
    """argparse that exits with 2 and one line, like every other input error, and reads
    a value that starts with a minus sign as the value of the option before it."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {terminal_safe(message, one_line=True)}\n")

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        given = sys.argv[1:] if args is None else list(args)
        return super().parse_known_args(self._join_negative_values(given), namespace)

    def _join_negative_values(self, args: list[str]) -> list[str]:
        """``--clamp -70,30`` as ``--clamp=-70,30``. argparse takes a word that starts
        with ``-`` for an option unless it is a plain negative number (``-3``, ``-0.5``),
        so ``-70,30`` or ``-1e-3`` after an option that takes a value would be refused
        ("expected one argument"); joined to its option, it is that option's value. Only
        this parser's options that take one value (or an unambiguous abbreviation of
        one) are joined, and nothing after ``--``. Each subcommand's parser joins its
        own options."""
        out: list[str] = []
        index = 0
        while index < len(args):
            word = args[index]
            if word == "--":
                out.extend(args[index:])
                break
            value = args[index + 1] if index + 1 < len(args) else None
            if value is not None and _NEGATIVE_VALUE.match(value) and self._takes_one_value(word):
                out.append(f"{word}={value}")
                index += 2
                continue
            out.append(word)
            index += 1
        return out

    def _takes_one_value(self, word: str) -> bool:
        """Is ``word`` an option of this parser that takes exactly one value?"""
        if not word.startswith("--") or "=" in word:
            return False
        actions = self._option_string_actions
        if word in actions:
            chosen = {actions[word]}
        elif self.allow_abbrev:
            chosen = {action for name, action in actions.items() if name.startswith(word)}
        else:
            chosen = set()
        return len(chosen) == 1 and next(iter(chosen)).nargs is None


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


def _request(
    cls: type[Request], args: argparse.Namespace, inputs: Inputs | None = None, **values: Any
) -> Request:
    """The command's request: the values of its generated options
    (:func:`_add_request_options`) that are fields of ``cls``, then ``values``. A value
    the request refuses is the command's one-line error and, with ``--record``, a failed
    run in the history (:func:`privcore.runs.make_request`)."""
    names = {f.name for f in fields(cls)}
    given = {name: getattr(args, name) for name in args.request_options if name in names}
    return make_request(cls, {**given, **values}, inputs, page="cli", record=args.record)


def _run(request: Request, inputs: Inputs, args: argparse.Namespace) -> Outcome:
    """``request`` run on ``inputs`` by :func:`privcore.runs.run` (recorded with
    ``--record``, page ``cli``), with a progress bar on a terminal; a history that
    cannot be written costs one warning on stderr, never the result."""
    with _terminal_progress(args) as progress:
        outcome = run(request, inputs, progress=progress, page="cli", record=args.record)
    if outcome.history_error is not None:
        message = " ".join(outcome.history_error.message.split())
        _say(f"warning: run not recorded in the history: {message}")
    return outcome


def _history_lines(outcome: Outcome) -> list[str]:
    """The line naming the recorded run, for the readable output."""
    return [f"history run: #{outcome.run_id}"] if outcome.run_id is not None else []


def _hierarchy_files(pairs: Sequence[str] | None) -> dict[str, str]:
    """``--hierarchy COL=FILE`` options as {column: file name}, for the history."""
    files = {}
    for pair in pairs or ():
        column, _, path = pair.partition("=")
        files[column.strip()] = Path(path).name
    return files


def _file_names(args: argparse.Namespace, **more: Any) -> dict[str, Any]:
    """What the history keeps of a command's files besides the data set's fingerprint:
    the hierarchy files by column (``hierarchy_files``) and ``more`` (names, flags and
    fingerprints — never rows)."""
    return {"hierarchy_files": _hierarchy_files(getattr(args, "hierarchy", None)), **more}


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
            f"{cells:,} {'cell' if cells == 1 else 'cells'} starting with =, +, -, @, tab or CR, "
            f"or with one of them after a line break, {'was' if cells == 1 else 'were'} "
            "guarded with ' (formula guard; --no-formula-guard writes them as they are)"
        )


def _load_table(path: str) -> Dataset:
    """The table at ``path`` (:func:`privcore.data.load`), without the unnamed running
    index that a table written with its index carries (pandas' ``to_csv()``, R's row
    names: a first column with no name holding 0, 1, 2, …), dropped with a note on
    stderr; an unnamed first column holding anything else is kept as the loader named
    it, also with a note."""
    dataset = load(path)
    unnamed = dataset.unnamed_first
    if unnamed is None:
        return dataset
    if unnamed.running_index:
        start = unnamed.start or 0
        _say(
            f"{path}: dropped the unnamed first column (its values are the row numbers "
            f"{start}, {start + 1}, {start + 2}, …: an index written with the table)"
        )
        return dataset.drop_column(unnamed.name)
    _say(f"{path}: the unnamed first column is read as '{unnamed.name}'")
    return dataset


def cmd_profile(args: argparse.Namespace) -> int:
    dataset = _load_table(args.file)
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


def _release_inputs(args: argparse.Namespace) -> Inputs:
    """``--original`` and ``--release`` (read with the ``--hierarchy`` files) as a run's
    inputs; the history keeps the release's name and fingerprint, never its rows."""
    original = _load_table(args.original)
    release = _load_table(args.release)
    names = _file_names(args)
    if args.record:  # hashed only when kept
        names["release_sha256"] = release.fingerprint.sha256
    return Inputs(
        original=original,
        schema=Schema({}, _hierarchies(args.hierarchy)),
        release=release.frame,
        release_name=release.name,
        names=names,
    )


def cmd_measure(args: argparse.Namespace) -> int:
    request = _request(MeasureRequest, args)
    engine_name = _chosen_engine(args, args.original, args.release)
    if engine_name is not None:
        inputs = _engine_measure_inputs(args, request, engine_name)
    else:
        inputs = _release_inputs(args)
    if args.population:
        inputs = replace(inputs, population=_load_table(args.population).frame)
    outcome = _run(request, inputs, args)
    payload = outcome.result.to_dict()
    payload["engine"] = engine_name or "pandas"
    lines = [
        f"k = {payload['k']}  ({payload['classes']} classes, {payload['rows']} rows, "
        f"{payload['suppressed_rows']} suppressed)",
        *(
            f"{sa}: distinct l = {payload['l_distinct'][sa]}, entropy l = "
            f"{payload['l_entropy'][sa]:.3f}, t = {payload['t_closeness'][sa]['t']:.4f} "
            f"({payload['t_closeness'][sa]['distance']})"
            for sa in payload["sa"]
        ),
        *_paired_lines(payload),
        f"risk: prosecutor max {payload['risk']['prosecutor_max']:.3f}, average "
        f"{payload['risk']['prosecutor_avg']:.3f} (record-weighted), marketer "
        f"{payload['risk']['marketer']:.3f}",
        *(
            f"{'PASS' if v['passed'] else 'FAIL'} {v['requirement']}: achieved {v['achieved']}"
            for v in payload["verdicts"]
        ),
        *(f"note: {n}" for n in payload["notes"]),
        *_history_lines(outcome),
    ]
    _emit(payload, args.json, lines)
    return EXIT_OK


@contextmanager
def _terminal_progress(args: argparse.Namespace) -> Iterator[Callable[[float, str], None] | None]:
    """A tqdm bar on stderr fed by the library's progress callback, closed at the end
    of the block; nothing with --quiet, for a command without it, or when stderr is not a
    terminal."""
    if getattr(args, "quiet", True) or not sys.stderr.isatty():
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


def _suggested_identifiers(frame, chosen: set[str]) -> list[str]:
    """Columns the role suggestions call identifiers (names, e-mails, IDs, unique
    columns), other than the ``chosen`` QIs and SAs; each is named on stderr with its
    reason, so a release never carries a direct identifier by default."""
    from privcore.data import Role

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
    from privcore.data import Role

    if args.from_spec:
        return _anonymize_from_spec(args)
    missing = [o for o in ("qi", "sa") if not getattr(args, o)]
    if missing:
        raise ParameterError(
            "anonymize needs " + ", ".join(f"--{o}" for o in missing) + " (or --from-spec FILE).",
            code="cli.missing_options",
        )
    request = _request(AnonymizeRequest, args)
    _check_anonymize_outputs(args)
    engine_name = _chosen_engine(args, args.input)
    if engine_name is not None:
        return _anonymize_on_engine(args, request, engine_name)
    dataset = _load_table(args.input)
    frame = dataset.frame
    if args.identifiers is None:  # not given: the columns suggested as identifiers
        identifiers = _suggested_identifiers(frame, {*request.qi, *request.sa})
    else:
        identifiers = _columns(args.identifiers, "--identifiers") if args.identifiers else []
    roles = dict.fromkeys(map(str, frame.columns), Role.INSENSITIVE)
    roles.update(dict.fromkeys(identifiers, Role.IDENTIFIER))
    roles.update(dict.fromkeys(request.qi, Role.QUASI_IDENTIFIER))
    roles.update(dict.fromkeys(request.sa, Role.SENSITIVE))
    unknown = [c for c in roles if c not in frame.columns]
    if unknown:
        raise ParameterError(
            f"{args.input} has no column {', '.join(unknown)}.", code="cli.unknown_columns"
        )
    hierarchies = _hierarchies(args.hierarchy)
    suggested: dict[str, Hierarchy] = {}
    if args.auto_hierarchies:
        suggested = _suggested_hierarchies(frame, request.qi, hierarchies)
    inputs = Inputs(
        original=dataset,
        schema=Schema(roles, {**hierarchies, **suggested}),
        names=_file_names(
            args,
            identifiers=identifiers,
            **_release_files(args),
            **({"suggested_hierarchies": list(suggested)} if args.auto_hierarchies else {}),
        ),
    )
    try:
        outcome = _run(request, inputs, args)
    except HierarchyError as exc:
        if exc.code != "hierarchy.missing_qi":
            raise
        columns = exc.params.get("columns", [])
        raise HierarchyError(
            f"{request.algorithm} generalizes along hierarchies and {', '.join(columns)} "
            f"{'has' if len(columns) == 1 else 'have'} none: give --hierarchy COLUMN=FILE, "
            "or --auto-hierarchies to build the suggested ones.",
            code=exc.code,
            **exc.params,
        ) from exc
    report = _write_release(outcome.result, args, request.seed)
    report["engine"] = {
        "name": "pandas",
        "rows_written": report["rows"],
        "written_satisfied": bool(outcome.result.measurement.models.satisfied),
        "written_k": report["k"],
    }
    _emit(report, args.json, _release_lines(request.algorithm, report, args, outcome))
    return EXIT_OK


# --------------------------------------------------------------------------- engines

#: The default of PRIVCORE_ENGINE_ROWS: above this many rows ``--engine auto`` reads
#: with DuckDB.
ENGINE_ROWS = 2_000_000


def engine_rows() -> int:
    """``PRIVCORE_ENGINE_ROWS`` (default :data:`ENGINE_ROWS`)."""
    from privcore.config import _env_int

    return _env_int("PRIVCORE_ENGINE_ROWS", ENGINE_ROWS)


_DATABASE_SUFFIXES = (".duckdb", ".ddb", ".db")


def _estimated_rows(path: str) -> int:
    """Rows of the table at ``path`` without reading it: a Parquet file's (or glob's)
    metadata; a text file's size over the mean length of its first 1,000 lines; other
    files 0 (the loader reads them)."""
    import glob as globbing

    parts = sorted(globbing.glob(path)) if globbing.has_magic(path) else [path]
    if Path(path).is_dir():
        parts = sorted(str(p) for p in Path(path).glob("*.parquet"))
    total = 0
    for part in parts:
        suffix = Path(part).suffix.lower()
        if suffix == ".parquet":
            import pyarrow.parquet as pq

            try:
                total += pq.ParquetFile(part).metadata.num_rows
            except Exception:  # noqa: BLE001 - not Parquet after all: the loader will say
                return 0
        elif suffix in (".csv", ".tsv", ".txt") and Path(part).is_file():
            with open(part, "rb") as handle:
                head = handle.read(1 << 20)
            lines = head.count(b"\n")
            if lines:
                total += int(Path(part).stat().st_size / (len(head) / lines))
    return total


def _chosen_engine(args: argparse.Namespace, *paths: str) -> str | None:
    """The engine ``--engine`` names, which reads the tables and groups them into
    frequency sets; ``auto``: duckdb for a DuckDB database file or a table of more than
    :func:`engine_rows` rows, else None: the table is read into memory and the rows are
    worked on directly (the same figures, to the last bits of floating point)."""
    if args.engine != "auto":
        return args.engine
    for path in paths:
        if Path(path).suffix.lower() in _DATABASE_SUFFIXES:
            return "duckdb"
        if _estimated_rows(path) > engine_rows():
            _say(f"{path}: more than {engine_rows():,} rows, read with DuckDB (--engine)")
            return "duckdb"
    return None


def _open_engine(args: argparse.Namespace, name: str) -> Any:
    from privcore.engines import engine

    if name == "duckdb":
        from privcore.engines.duckdb_engine import DuckDBEngine

        return DuckDBEngine(memory_limit=args.memory_limit, temp_dir=args.temp_dir)
    if name == "spark":
        from privcore.engines.spark_engine import SparkEngine

        return SparkEngine(master=args.spark_master)
    return engine(name)


def _scan(engine: Any, path: str, table: str | None) -> Any:
    if table is not None and Path(path).suffix.lower() in _DATABASE_SUFFIXES:
        return engine.scan(path, table=table)
    return engine.scan(path)


def _engine_measure_inputs(
    args: argparse.Namespace, request: MeasureRequest, engine_name: str
) -> Inputs:
    """``measure`` on an engine: the two tables paired and measured from their joint
    frequency set (:func:`privcore.runs.tables.measure_tables`)."""
    from privcore.runs.tables import engine_inputs, measure_tables

    engine = _open_engine(args, engine_name)
    original = _scan(engine, args.original, args.table)
    release = _scan(engine, args.release, None)
    population = _load_table(args.population).frame if args.population else None
    return engine_inputs(
        lambda progress: measure_tables(
            engine,
            original,
            release,
            qi=request.qi,
            sa=request.sa,
            models=request.constraints(),
            hierarchies=_hierarchies(args.hierarchy),
            key=request.key,
            name=Path(args.original).name,
            progress=progress,
            risk_threshold=request.risk_threshold,
            t_distance=request.t_distance,
            population=population,
        ),
        lambda measurement, _: (measurement.history_summary(),),
        release_name=Path(args.release).name,
        names={**_file_names(args), "engine": engine_name},
    )


def _engine_attack_inputs(
    args: argparse.Namespace, request: AttackRequest, engine_name: str
) -> Inputs:
    """``attack`` on an engine: the two tables paired and attacked from their joint
    frequency set, with a roll frequency set (:func:`privcore.runs.tables.attack_tables`)."""
    from privcore.runs.tables import attack_tables, engine_inputs

    engine = _open_engine(args, engine_name)
    original = _scan(engine, args.original, args.table)
    release = _scan(engine, args.release, None)
    return engine_inputs(
        lambda progress: attack_tables(
            engine,
            original,
            release,
            qi=request.qi,
            sa=request.sa,
            hierarchies=_hierarchies(args.hierarchy),
            key=request.key,
            name=Path(args.original).name,
            progress=progress,
            roll_size=request.roll_size,
            seed=request.seed,
            tau=request.tau,
            risk_threshold=request.risk_threshold,
            tolerance=request.tolerance,
        ),
        lambda simulation, _: (simulation.to_dict(),),
        release_name=Path(args.release).name,
        names={**_file_names(args), "engine": engine_name},
    )


def _anonymize_on_engine(
    args: argparse.Namespace, request: AnonymizeRequest, engine_name: str
) -> int:
    """``anonymize`` on an engine: the frequency set anonymized, the release written by
    the engine (:func:`privcore.runs.tables.anonymize_table`)."""
    from privcore.data import Role
    from privcore.runs.tables import anonymize_table, engine_inputs

    if args.auto_hierarchies:
        raise ParameterError(
            "--auto-hierarchies reads the whole column in memory: give --hierarchy files "
            "with --engine duckdb or spark.",
            code="cli.engine_option",
            option="--auto-hierarchies",
        )
    if Path(args.out).suffix.lower() not in (".parquet", ".csv"):
        raise ParameterError(
            "On an engine the release is written as .parquet or .csv.",
            code="cli.engine_option",
            option="--out",
        )
    engine = _open_engine(args, engine_name)
    table = _scan(engine, args.input, args.table)
    columns = engine.columns(table)
    identifiers = (
        _columns(args.identifiers, "--identifiers")
        if args.identifiers
        else []
        if args.identifiers is not None
        else _suggested_identifiers(engine.head(table, 10_000), {*request.qi, *request.sa})
    )
    unknown = [c for c in (*request.qi, *request.sa, *identifiers) if c not in columns]
    if unknown:
        raise ParameterError(
            f"{args.input} has no column {', '.join(unknown)}.", code="cli.unknown_columns"
        )
    roles = dict.fromkeys(columns, Role.INSENSITIVE)
    roles.update(dict.fromkeys(identifiers, Role.IDENTIFIER))
    roles.update(dict.fromkeys(request.qi, Role.QUASI_IDENTIFIER))
    roles.update(dict.fromkeys(request.sa, Role.SENSITIVE))
    schema = Schema(roles, _hierarchies(args.hierarchy))

    def call(progress):
        made = anonymize_table(
            engine,
            table,
            schema,
            request.constraints(),
            args.out,
            algorithm=request.algorithm,
            max_suppression=request.max_suppression,
            seed=request.seed,
            name=Path(args.input).name,
            progress=progress,
            shuffle=not args.keep_order,
            **request.options(),
        )
        return made, made.dataset

    inputs = engine_inputs(
        call,
        lambda made, _: (made.history_summary(),),
        names=_file_names(
            args, identifiers=identifiers, engine=engine_name, **_release_files(args)
        ),
    )
    outcome = _run(request, inputs, args)
    report = outcome.result.to_dict()
    if args.report:
        _write_text(args.report, history.to_json(report), "--report")
    if args.spec_out:
        _write_text(args.spec_out, outcome.result.release.spec_json(), "--spec-out")
    _emit(report, args.json, _release_lines(request.algorithm, report, args, outcome))
    return EXIT_OK


def _suggested_hierarchies(
    frame: Any, qi: Sequence[str], given: Mapping[str, Hierarchy]
) -> dict[str, Hierarchy]:
    """``--auto-hierarchies``: the suggested hierarchy
    (:func:`privcore.data.hierarchy_suggestions.suggest_hierarchy`) of every
    quasi-identifier without a ``--hierarchy`` file, each named on stderr with its kind
    and why, in the words of the Data & roles page."""
    from privcore.data.hierarchy_suggestions import suggest_hierarchy
    from privcore.words.catalog import text

    out: dict[str, Hierarchy] = {}
    for column in qi:
        if column in given:
            continue
        try:
            suggestion = suggest_hierarchy(frame[column], column)
        except PrivcoreError as exc:
            _say(f"no hierarchy suggested for '{column}': {exc.message}")
            continue
        out[column] = suggestion.hierarchy
        kind = text(f"hsug.kind.{suggestion.kind}")
        reason = text(f"hsug.reason.{suggestion.reason}", **suggestion.reason_params())
        height = suggestion.hierarchy.height
        _say(f"suggested hierarchy for '{column}' ({kind}, height {height}): {reason}")
    return out


def _release_files(args: argparse.Namespace) -> dict[str, Any]:
    """How ``anonymize`` writes its release, for the history: the file's name and
    whether its rows keep their order."""
    return {"keep_order": args.keep_order, "out": Path(args.out).name}


def _check_anonymize_outputs(args: argparse.Namespace) -> None:
    _check_outputs(
        {"--out": args.out, "--report": args.report, "--spec-out": args.spec_out},
        {
            "INPUT": args.input,
            "--from-spec": args.from_spec,
            **{f"--hierarchy {p}": p.partition("=")[2] for p in args.hierarchy or ()},
        },
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
    report = release.to_dict()
    if saved.guarded_cells:
        report["formula_guarded_cells"] = saved.guarded_cells
    _guard_note(saved.guarded_cells)
    if args.report:
        _write_text(args.report, history.to_json(report), "--report")
    if args.spec_out:
        _write_text(args.spec_out, release.spec_json(), "--spec-out")
    return report


def _paired_lines(payload: dict[str, Any]) -> list[str]:
    """PL, DR, UL and real records — or, when the rows were not paired with the
    original's (``--alignment none``, or ``auto`` on rows that do not line up), DR and
    which figures need pairing."""
    pl = payload.get("pl") or {}
    if payload.get("ul") is None or not pl:
        needs = ", ".join(payload.get("needs_alignment") or [])
        why = payload.get("unpaired_because")
        return [
            f"DR = {_num(payload.get('dr'))}",
            f"not paired with the original's rows{f' ({why})' if why else ''}: {needs} "
            "need a key column or rows in the same order",
        ]
    return [
        "PL: " + ", ".join(f"{a} = {v:.3f}" for a, v in pl.items() if v is not None),
        f"DR = {_num(payload['dr'])}   UL = {_num(payload['ul'])}",
        _real_records_line(payload["real_records"]),
    ]


def _real_records_line(real: dict[str, Any]) -> str:
    return (
        f"real records: {real['own']:,} released row(s) equal their own original, "
        f"{real['any']:,} equal some original (quasi-identifiers and sensitive attributes)"
    )


def _release_lines(
    algorithm: str, report: dict[str, Any], args: argparse.Namespace, outcome: Outcome
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
        *_history_lines(outcome),
    ]


def _anonymize_from_spec(args: argparse.Namespace) -> int:
    """``anonymize INPUT --from-spec SPEC``: the release a spec describes, made again
    from the same input (checked by fingerprint) without choosing anything."""
    from privcore.anonymize.spec import read_spec

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
    _check_anonymize_outputs(args)
    inputs = Inputs(
        original=_load_table(args.input),
        names={"from_spec": Path(args.from_spec).name, **_release_files(args)},
    )
    outcome = _run(ReplayRequest(spec=spec), inputs, args)
    report = _write_release(outcome.result, args, seed)  # shuffled as the original was
    lines = _release_lines(spec["algorithm"], report, args, outcome)
    _emit(report, args.json, ["reproduced from " + str(args.from_spec), *lines])
    return EXIT_OK


def cmd_attack(args: argparse.Namespace) -> int:
    request = _request(AttackRequest, args)
    engine_name = _chosen_engine(args, args.original, args.release)
    if engine_name is not None:
        inputs = _engine_attack_inputs(args, request, engine_name)
    else:
        inputs = _release_inputs(args)
    outcome = _run(request, inputs, args)
    payload = outcome.result.to_dict()
    payload["engine"] = engine_name or "pandas"
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
    lines += _history_lines(outcome)
    _emit(payload, args.json, lines)
    return EXIT_OK


def cmd_audit(args: argparse.Namespace) -> int:
    samples = None
    values: dict[str, Any] = {"methods": (args.method,)}
    if args.samples_file:
        if not args.input_col or not (args.output_col or args.output_prefix):
            raise ParameterError(
                "--samples-file needs --input-col and --output-col or --output-prefix.",
                code="cli.samples_options",
            )
        if args.epsilon is None:
            raise ParameterError(
                "--samples-file needs --claimed-epsilon.", code="cli.samples_options"
            )
        if args.method == "ab":
            raise ParameterError(
                "Uploaded samples are audited black-box: use --method ob or lb.",
                code="cli.samples_method",
            )
        samples = _load_table(args.samples_file)
        outputs = (
            [args.output_col]
            if args.output_col
            else [c for c in map(str, samples.frame.columns) if c.startswith(args.output_prefix)]
        )
        values.update(mechanism=None, input_column=args.input_col, output_columns=outputs)
    elif not args.mechanism or args.epsilon is None:
        raise ParameterError(
            "Give --mechanism and --epsilon, or --samples-file.", code="cli.audit_options"
        )
    inputs = Inputs(samples=samples, names={"samples_file": samples.name} if samples else {})
    request = _request(AuditRequest, args, inputs, **values)
    outcome = _run(request, inputs, args)
    payload = outcome.result[args.method].to_dict()
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
    lines += _history_lines(outcome)
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


def _number(text: str) -> float:
    """A number option as written (``nan`` and ``inf`` included): whether it is finite
    and in range is the request's check (:func:`privcore.runs.check_value`), so the
    command line refuses what a page refuses, with the same message."""
    try:
        return float(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"expected a number, not {text!r}") from exc


def _whole_number(text: str) -> int | float:
    """A whole-number option as written: exact when it is an integer (a seed near
    2**63), else the number, which the request refuses unless it is whole."""
    try:
        return int(text)
    except ValueError:
        return _number(text)


def _column_list(text: str) -> tuple[str, ...]:
    """A comma-separated list of column names."""
    columns = tuple(c.strip() for c in text.split(",") if c.strip())
    if not columns:
        raise argparse.ArgumentTypeError("expected at least one column name")
    return columns


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
    "max_singling_out": "max_singling_out",
    "max_linkability": "max_linkability",
    "max_inference": "max_inference",
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
    from privcore.report import Thresholds

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
            "number (only --min-l, --max-t, --max-pl, --max-journalist, --min-ul, "
            "--max-singling-out, --max-linkability and --max-inference can be waived).",
            code="cli.threshold_required",
        )
    Thresholds(**given)  # a bad value is refused before anything is read
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

        return _write_report(readiness_from_history(args.from_run), args)
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
    request = ReportRequest(
        qi=_columns(args.qi, "--qi"),
        sa=_columns(args.sa, "--sa"),
        key=args.key,
        thresholds=given or None,
        roll_size=args.roll_size,
        seed=args.seed,
    )
    inputs = replace(_release_inputs(args), algorithm=algorithm)
    outcome = _run(request, inputs, args)
    return _write_report(outcome.result.recorded(outcome.summary, outcome.run_id), args)


def _write_report(report, args: argparse.Namespace) -> int:
    """The HTML document (``--out``, in ``--lang``), then the verdict, reasons and
    conditions in words, or with ``--json`` the report with an English ``message`` on
    every reason, condition, check and note (:mod:`privcore.words.catalog`, Streamlit-free)."""
    from privcore.words.catalog import report_json, report_lines
    from privcore.words.report_html import render_html

    _write_text(args.out, render_html(report, args.lang), "--out")
    lines = report_lines(report, args.lang)
    lines.append(f"wrote {args.out}")
    if report.run_ids:
        lines.append("history runs: " + ", ".join(f"#{i}" for i in report.run_ids))
    _emit(report_json(report), args.json, lines)
    return EXIT_OK if report.ready else EXIT_VERDICT


def cmd_history(args: argparse.Namespace) -> int:
    if args.action == "list":
        runs = history.list_runs(kind=args.kind, search=args.search, limit=args.limit or 50)
        slim = [
            {
                k: r.get(k)
                for k in ("id", "started_at", "kind", "status", "dataset_name", "duration_s")
            }
            for r in runs
        ]
        # newest first (history.list_runs decides the order); the start in UTC, to the
        # second (the JSON keeps the recorded ISO 8601 time)
        lines = [
            f"#{r['id']:<5} {history.display_time(r['started_at'])} UTC  {r['kind']:<10} "
            f"{r['status']:<9} {r['dataset_name'] or '-'}"
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
        _emit({k: v for k, v in run.items() if k not in history.SECRET_COLUMNS}, True, [])
    elif args.action == "export":  # every run unless --limit, never an owner token
        sys.stdout.write(
            history.export_csv(
                kind=args.kind,
                search=args.search,
                limit=args.limit,
                formula_guard=args.formula_guard,
            )
        )
    return EXIT_OK


def _formula_guard_option(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "--no-formula-guard",
        dest="formula_guard",
        action="store_false",
        help=f"write cells of {what} that start with =, +, -, @, tab or CR (or hold one "
        "after a line break) as they are (by default a ' goes before it so that "
        "spreadsheets do not run them as formulas; numbers are never changed). For "
        "pipelines that read the file as data",
    )


def _default_words(default: Any) -> str:
    """`` (default X)`` for a help text; nothing when there is no single default."""
    if default is None or isinstance(default, (tuple, list)):
        return ""
    if isinstance(default, float):
        return f" (default {default:g})"
    return f" (default {default})"


def _add_request_options(
    parser: argparse.ArgumentParser,
    request_class: type[Request],
    names: Sequence[str] | None = None,
    *,
    flags: Mapping[str, Sequence[str]] | None = None,
    defaults: Mapping[str, Any] | None = None,
    required: Sequence[str] = (),
    notes: Mapping[str, str] | None = None,
) -> None:
    """One option per parameter of ``request_class`` — ``names``, else every field of it
    that :data:`~privcore.runs.registry.OPTIONS` describes, in field order — with the
    registry's flag, kind, choices and help, and the request's default (``defaults``
    overrides it: ``None`` where the command checks that the option is given). ``flags``
    gives other flags, ``notes`` a few words the command adds to the help. Numbers are
    read here and checked by the request (:func:`_request`), so a value is refused once,
    with the message a page would give. The names are kept in ``request_options``."""
    initial = {f.name: f.default for f in fields(request_class) if f.default is not MISSING}
    initial.update(defaults or {})
    chosen = names or [f.name for f in fields(request_class) if f.name in OPTIONS]
    for name in chosen:
        option = OPTIONS[name]
        default = initial.get(name)
        note = (notes or {}).get(name)
        more: dict[str, Any] = {}
        if option.kind == "int":
            more["type"] = _whole_number
        elif option.kind == "float":
            more["type"] = _number
        elif option.kind == "columns":
            more["type"] = _column_list
        elif option.kind == "choice":
            if callable(option.choices):  # read when a value is checked or help printed
                more["choices"] = _Choices(option)
                more.setdefault("metavar", option.name.upper())
                note = f"{note}; " if note else ""
                note += "one of %(choices)s"
            else:
                more["choices"] = option.allowed()
        elif option.kind == "flag":
            more["action"] = "store_true"
        if option.metavar:
            more["metavar"] = option.metavar
        parser.add_argument(
            *(flags or {}).get(name, (option.flag,)),
            dest=name,
            default=default,
            required=name in required,
            help=option.help + (f"; {note}" if note else "") + _default_words(default),
            **more,
        )
    parser.set_defaults(request_options=tuple(chosen))


class _Choices:
    """The choices of an option whose list the registry reads on first use (algorithms,
    loss metrics, voter-roll names, LDP mechanisms): argparse reads them only to check a
    value or print help, so a command imports only the parts of privcore it runs."""

    def __init__(self, option: Any) -> None:
        self._option = option

    def _values(self) -> tuple[str, ...]:
        return tuple(self._option.allowed() or ())

    def __contains__(self, value: object) -> bool:
        return value in self._values()

    def __iter__(self) -> Iterator[str]:
        return iter(self._values())

    def __len__(self) -> int:
        return len(self._values())


def _command(
    sub: Any, func: Callable[[argparse.Namespace], int], help: str, description: str | None = None
) -> argparse.ArgumentParser:
    """The subcommand named after ``func`` (``cmd_measure``: ``measure``) that runs it."""
    parser = sub.add_parser(func.__name__.removeprefix("cmd_"), help=help, description=description)
    parser.set_defaults(func=func)
    return parser


def _table_options(parser: argparse.ArgumentParser, release_help: str) -> None:
    """``--original`` and ``--release``: the tables a release is assessed from."""
    parser.add_argument("--original", required=True, help="the original table")
    parser.add_argument("--release", required=True, help=release_help)


def _hierarchy_option(
    parser: argparse.ArgumentParser, help: str = "ARX hierarchy file of a column (repeatable)"
) -> None:
    parser.add_argument("--hierarchy", action="append", metavar="COL=FILE", help=help)


def _json_option(parser: argparse.ArgumentParser, help: str = "print one JSON object") -> None:
    parser.add_argument("--json", action="store_true", help=help)


def _run_options(
    parser: argparse.ArgumentParser, *, quiet: bool = True, json_help: str = "print one JSON object"
) -> None:
    """``--record``, ``--quiet`` (where the run draws a progress bar) and ``--json``."""
    parser.add_argument(
        "--record",
        action="store_true",
        help="record the run in the history (page 'cli'; a fingerprint, never the data)",
    )
    if quiet:
        parser.add_argument("--quiet", action="store_true", help="no progress bar")
    _json_option(parser, json_help)


def _engine_options(parser: argparse.ArgumentParser) -> None:
    """``--engine`` and the engines' settings (SPEC §9)."""
    parser.add_argument(
        "--engine",
        choices=["auto", "pandas", "duckdb", "spark"],
        default="auto",
        help="the engine that reads the tables and groups them into frequency sets, on "
        "which the run works: pandas (in memory), duckdb (embedded, out of core), spark "
        "(PySpark; --spark-master); the same JSON on each. auto (default): duckdb when an "
        f"input has more than PRIVCORE_ENGINE_ROWS rows (default {ENGINE_ROWS:,}; Parquet "
        "counts from its metadata, text files are estimated from their size) or is a "
        "DuckDB database file, else the table in memory, row by row (pandas)",
    )
    parser.add_argument(
        "--table", help="the table to read when the input is a DuckDB database file"
    )
    parser.add_argument(
        "--memory-limit", help="DuckDB's memory limit, e.g. 4GB (it spills to disk above it)"
    )
    parser.add_argument("--temp-dir", help="where DuckDB spills and text copies are made")
    parser.add_argument(
        "--spark-master",
        default="local[2]",
        help="Spark master URL for --engine spark (default local[2])",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="privcore",
        description="Privacy Workbench from the command line: profile, anonymize, measure, "
        "attack, risk, audit, report, dp, history. Exit codes: 0 ok, 1 a 'not ready' report, 2 bad "
        "input. `privcore COMMAND --help` describes each command.",
    )
    parser.add_argument("--version", action="version", version=f"privcore {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = _command(sub, cmd_profile, "read a table, profile its columns, suggest roles")
    p.add_argument("file", help="CSV/TSV/semicolon text, .xlsx, .parquet or .jsonl")
    _json_option(p)

    m = _command(
        sub,
        cmd_measure,
        "measure a release against its original: k, l, t, PL/DR/UL, risk, loss",
        "Measure how private a release is. --json prints one object with k, "
        "classes, suppressed_rows, l_distinct, l_entropy, t_closeness, pl, dr, ul, risk, "
        "loss, verdicts.",
    )
    _table_options(m, "the released (anonymized) table")
    _add_request_options(
        m,
        MeasureRequest,
        required=("qi", "sa"),
        notes=dict.fromkeys(("k", "l", "t"), "a verdict, when given"),
    )
    _hierarchy_option(m)
    _engine_options(m)
    m.add_argument(
        "--population",
        help="population table with the QI columns (adds "
        "journalist risk), e.g. a voter roll containing the data set's people",
    )
    _run_options(m, quiet=False)

    a = _command(
        sub,
        cmd_anonymize,
        "anonymize a table under k / l / t constraints: seven generalization and synthesis "
        "algorithms, six perturbative methods",
        "Anonymize INPUT and write the release to --out (shuffled unless "
        "--keep-order). --report writes a JSON report with k, suppressed_rows, seconds, "
        "loss, pl, ul and node (full-domain algorithms).",
    )
    a.add_argument("input", help="the table to anonymize")
    _add_request_options(
        a,
        AnonymizeRequest,
        notes={
            "qi": "required unless --from-spec",
            "sa": "required unless --from-spec",
            "seed": "also shuffles the release's rows",
        },
    )
    a.add_argument(
        "--identifiers",
        help="identifier columns to remove, comma-separated (default: the columns the role "
        "suggestions call identifiers, each named on stderr; '' removes none)",
    )
    _hierarchy_option(a)
    a.add_argument(
        "--auto-hierarchies",
        action="store_true",
        help="build the suggested hierarchy (from the column's values and name: numeric "
        "intervals, dates, masking of digit codes, groups by frequency) of every "
        "quasi-identifier without --hierarchy, each named on stderr",
    )
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
    _engine_options(a)
    _run_options(a, json_help="print the report as JSON")

    k = _command(
        sub,
        cmd_attack,
        "linkage and homogeneity attacks with a synthetic voter roll, before vs after",
        "Attack the original table and its release with a synthetic voter roll "
        "that contains the data set's people. --json prints linkage {targets, "
        "unique_matches, reidentified, attribute_disclosed, …}, homogeneity "
        "{classes_exposed, records_exposed}, risk {prosecutor_max, journalist_max, "
        "marketer, …} for the release, the same under 'before' for the original.",
    )
    _table_options(k, "the release (rows aligned, or --key)")
    _add_request_options(k, AttackRequest, required=("qi", "sa"))
    _hierarchy_option(k, "ARX hierarchy of a column, to read its labels in the release")
    _engine_options(k)
    _run_options(k)

    u = _command(
        sub,
        cmd_audit,
        "audit an LDP mechanism (ab, ob, lb) or logged samples of any implementation",
        "Audit a built-in LDP mechanism (--mechanism NAME --epsilon E) or "
        "uploaded samples (--samples-file with --claimed-epsilon E). --json prints "
        "epsilon_hat, ci [lo, hi] (ab/ob), epsilon_lb (lb), verdict, device and seconds.",
    )
    _add_request_options(
        u,
        AuditRequest,
        ("mechanism", "epsilon", "domain", "method", "samples", "density", "seed"),
        flags={"epsilon": ("--epsilon", "--claimed-epsilon")},
        defaults={"epsilon": None, "method": AuditRequest.methods[0]},
        notes={"epsilon": "required (with --samples-file: the ε the implementation claims)"},
    )
    u.add_argument("--samples-file", help="table of logged (input, output) rows")
    u.add_argument("--input-col", help="the input column of --samples-file")
    u.add_argument("--output-col", help="the output column (one value per row)")
    u.add_argument("--output-prefix", help="prefix of the output columns (vector outputs)")
    _run_options(u)

    from privcore.report import Thresholds
    from privcore.report.thresholds import FOLLOWS_PROSECUTOR

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
        ("--max-singling-out", "max_singling_out", "singling-out risk (Article 29)"),
        ("--max-linkability", "max_linkability", "linkability risk (Article 29)"),
        ("--max-inference", "max_inference", "inference risk, per sensitive attribute"),
    ):
        default = getattr(Thresholds.__dataclass_fields__[field], "default", None)
        if default == FOLLOWS_PROSECUTOR:
            default_words = "the prosecutor limit, 1/k"
        else:
            default_words = "none" if default is None else f"{getattr(defaults, field):g}"
        r.add_argument(
            option,
            type=_limit_option,
            metavar="X",
            help=f"{what} (default {default_words})",
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

    from privcore.cli_dp import add_dp_commands
    from privcore.cli_risk import add_risk_command

    add_dp_commands(sub)
    add_risk_command(sub)

    h = _command(sub, cmd_history, "list, show or export recorded runs")
    h.add_argument("action", choices=["list", "show", "export"])
    h.add_argument("id", nargs="?", type=_positive_int, help="run id (for show)")
    h.add_argument("--kind", help="only runs of this kind")
    h.add_argument("--search", help="substring to look for")
    h.add_argument(
        "--limit",
        type=_positive_int,
        help="the newest runs to list (default 50) or export (default: all)",
    )
    _json_option(h)
    _formula_guard_option(h, "the CSV export")
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
