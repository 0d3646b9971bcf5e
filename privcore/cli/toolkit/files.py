"""The command line's files: reading a table, hierarchy files and JSON options; checking
that no output file is an input (or another output) before any work; writing outputs;
and what the history keeps of them (names and fingerprints, never rows)."""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from privcore.cli.toolkit.output import say
from privcore.data import Dataset, Hierarchy, Schema, load
from privcore.errors import ParameterError, PrivcoreError
from privcore.runs import Inputs


def load_table(path: str) -> Dataset:
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
        say(
            f"{path}: dropped the unnamed first column (its values are the row numbers "
            f"{start}, {start + 1}, {start + 2}, …: an index written with the table)"
        )
        return dataset.drop_column(unnamed.name)
    say(f"{path}: the unnamed first column is read as '{unnamed.name}'")
    return dataset


def hierarchies(pairs: Sequence[str] | None) -> dict[str, Hierarchy]:
    """``--hierarchy COL=FILE`` options, each ARX hierarchy file read for its column."""
    result = {}
    for pair in pairs or ():
        column, sep, path = pair.partition("=")
        if not sep or not column or not path:
            raise ParameterError(
                f"--hierarchy takes COLUMN=FILE, not '{pair}'.", code="cli.hierarchy_option"
            )
        result[column.strip()] = Hierarchy.read_arx(Path(path), name=column.strip())
    return result


def hierarchy_inputs(args: argparse.Namespace) -> dict[str, str]:
    """The ``--hierarchy`` files as inputs no output may overwrite
    (:func:`check_outputs`): {"--hierarchy COL=FILE": FILE}."""
    return {f"--hierarchy {p}": p.partition("=")[2] for p in args.hierarchy or ()}


def _hierarchy_files(pairs: Sequence[str] | None) -> dict[str, str]:
    """``--hierarchy COL=FILE`` options as {column: file name}, for the history."""
    files = {}
    for pair in pairs or ():
        column, _, path = pair.partition("=")
        files[column.strip()] = Path(path).name
    return files


def file_names(args: argparse.Namespace, **more: Any) -> dict[str, Any]:
    """What the history keeps of a command's files besides the data set's fingerprint:
    the hierarchy files by column (``hierarchy_files``) and ``more`` (names, flags and
    fingerprints — never rows)."""
    return {"hierarchy_files": _hierarchy_files(getattr(args, "hierarchy", None)), **more}


def release_inputs(args: argparse.Namespace) -> Inputs:
    """``--original`` and ``--release`` (read with the ``--hierarchy`` files) as a run's
    inputs; the history keeps the release's name and fingerprint, never its rows."""
    original = load_table(args.original)
    release = load_table(args.release)
    names = file_names(args)
    if args.record:  # hashed only when kept
        names["release_sha256"] = release.fingerprint.sha256
    return Inputs(
        original=original,
        schema=Schema({}, hierarchies(args.hierarchy)),
        release=release.frame,
        release_name=release.name,
        names=names,
    )


def suggested_hierarchies(
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
            say(f"no hierarchy suggested for '{column}': {exc.message}")
            continue
        out[column] = suggestion.hierarchy
        kind = text(f"hsug.kind.{suggestion.kind}")
        reason = text(f"hsug.reason.{suggestion.reason}", **suggestion.reason_params())
        height = suggestion.hierarchy.height
        say(f"suggested hierarchy for '{column}' ({kind}, height {height}): {reason}")
    return out


def chosen_hierarchies(
    args: argparse.Namespace, frame: Any, qi: Sequence[str], *, suggest: bool
) -> dict[str, Hierarchy]:
    """The ``--hierarchy`` files by column and, with ``suggest`` (``--auto-hierarchies``),
    the suggested hierarchy of every other quasi-identifier of ``frame``
    (:func:`suggested_hierarchies`)."""
    given = hierarchies(args.hierarchy)
    if suggest:
        given.update(suggested_hierarchies(frame, qi, given))
    return given


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


def check_outputs(outputs: dict[str, Any], inputs: dict[str, Any]) -> None:
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
        _check_writable(option, path)


def _check_writable(option: str, path: Any) -> None:
    """``path`` is not a folder and its folder exists (``cli.unwritable``)."""
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


def write_text(path: str | os.PathLike[str], text: str, option: str) -> None:
    """Write an output file; a failure (disk full, no permission) is one line, exit 2."""
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise _os_error("write", option, path, exc, "cli.unwritable") from exc


def write_bytes(path: str | os.PathLike[str], data: bytes, option: str) -> None:
    """Write a binary output file; a failure (disk full, no permission) is one line, exit 2."""
    try:
        Path(path).write_bytes(data)
    except OSError as exc:
        raise _os_error("write", option, path, exc, "cli.unwritable") from exc


def read_bytes(path: str, what: str, code: str) -> bytes:
    """The bytes of a file given as an option; unreadable is one ``code`` error naming
    ``what``."""
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise _os_error("read", what, path, exc, code) from exc


def _os_error(
    verb: str, what: str, path: str | os.PathLike[str], exc: OSError, code: str
) -> ParameterError:
    """The one-line error (``code``) of a file the system would not read or write:
    "Cannot ``verb`` ``what`` ``path``: why."."""
    return ParameterError(
        f"Cannot {verb} {what} {path}: {exc.strerror or exc}.", code=code, path=str(path)
    )


def read_json_file(path: str, what: str, code: str) -> Any:
    """A JSON file given as an option; unreadable, not JSON or nested beyond Python's
    recursion limit is one ``code`` error naming ``what``."""
    text = read_bytes(path, what, code)
    try:
        return json.loads(text)
    except RecursionError as exc:
        raise ParameterError(
            f"{what.capitalize()} {path} is nested too deeply to be one.", code=code, path=str(path)
        ) from exc
    except (ValueError, UnicodeDecodeError) as exc:
        raise ParameterError(f"{what.capitalize()} {path} is not valid JSON.", code=code) from exc


def guard_note(cells: int) -> None:
    """The one line saying how many cells the formula guard changed (none: no line)."""
    if cells:
        say(
            f"{cells:,} {'cell' if cells == 1 else 'cells'} starting with =, +, -, @, tab or CR, "
            f"or with one of them after a line break, {'was' if cells == 1 else 'were'} "
            "guarded with ' (formula guard; --no-formula-guard writes them as they are)"
        )


def save_guarded(frame: Any, path: str, *, formula_guard: bool) -> Any:
    """``frame`` written to ``path`` (:func:`privcore.data.save`: cells that spreadsheets
    would run as formulas guarded unless ``formula_guard`` is off), with the note saying
    how many cells the guard changed (:func:`guard_note`); what ``save`` returns."""
    from privcore.data import save

    saved = save(frame, path, formula_guard=formula_guard)
    guard_note(saved.guarded_cells)
    return saved
