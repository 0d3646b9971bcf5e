"""The options commands share, and every option that is a parameter of a request built
from the registry (:data:`privcore.runs.registry.OPTIONS`: its flag, kind, choices,
range and help) with the request's default, so a default or a choice is the pages' one.

:func:`add_option` builds one such option; :func:`add_request_options` the options of a
whole request. A number is read as written (:mod:`privcore.cli.toolkit.arguments`) and
checked by the request, so a value is refused once, with the message a page would give.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import MISSING, fields
from typing import Any

from privcore.cli.toolkit.arguments import (
    column_list,
    number,
    number_list,
    whole_number,
    whole_number_in,
)
from privcore.cli.toolkit.engines import ENGINE_ROWS
from privcore.runs import Request
from privcore.runs.registry import REQUEST_OPTIONS, Option


class LazyChoices:
    """The choices of an option whose list the registry reads on first use (algorithms,
    loss metrics, voter-roll names, LDP mechanisms): argparse reads them only to check a
    value or print help, so a command imports only the parts of privcore it runs."""

    def __init__(self, option: Option) -> None:
        self._option = option

    def _values(self) -> tuple[str, ...]:
        return tuple(self._option.allowed() or ())

    def __contains__(self, value: object) -> bool:
        return value in self._values()

    def __iter__(self) -> Iterator[str]:
        return iter(self._values())

    def __len__(self) -> int:
        return len(self._values())


def default_words(default: Any) -> str:
    """`` (default X)`` for a help text; nothing when there is no single default."""
    if default is None or isinstance(default, (tuple, list)):
        return ""
    if isinstance(default, float):
        return f" (default {default:g})"
    return f" (default {default})"


def _reading(option: Option, checked: bool) -> dict[str, Any]:
    """How argparse reads a value of ``option`` (keyword arguments of
    ``add_argument``): a number as written, or with ``checked`` a whole number in the
    registry's range at once; a list of columns; a choice among the registry's (read on
    first use when the registry computes them); a flag."""
    more: dict[str, Any] = {}
    if option.kind == "int":
        more["type"] = (
            whole_number_in(int(option.minimum or 0), _whole(option.maximum))
            if checked
            else whole_number
        )
    elif option.kind == "float":
        more["type"] = number
    elif option.kind == "columns":
        more["type"] = column_list
    elif option.kind == "numbers":
        more["type"] = number_list
    elif option.kind == "choice":
        if callable(option.choices):  # read when a value is checked or help printed
            more["choices"] = LazyChoices(option)
            more["metavar"] = option.name.upper()
        else:
            more["choices"] = option.allowed()
    elif option.kind == "flag":
        more["action"] = "store_true"
    if option.metavar:
        more["metavar"] = option.metavar
    return more


def _whole(value: float | None) -> int | None:
    return None if value is None else int(value)


def add_option(
    parser: argparse.ArgumentParser,
    name: str,
    *,
    flags: Sequence[str] | None = None,
    default: Any = None,
    required: bool = False,
    help: str | None = None,
    note: str | None = None,
    checked: bool = False,
    parameter: Option | None = None,
    **more: Any,
) -> argparse.Action:
    """The option of the registry's parameter ``name``: its flag (``flags`` gives
    others), its destination ``name``, how its kind is read (``checked``: a whole number
    refused outside the registry's range at once), its choices and its help — the
    registry's, or ``help`` where the command's meaning is narrower — followed by
    ``note`` and ``(default …)``. ``more`` goes to ``add_argument`` as it is (``type`` for
    an option the command reads as text, ``choices`` it checks later, ``dest`` for a
    request's field checked by an option of another name). ``parameter``: a parameter
    declared by its owner (an algorithm's own option) rather than the registry's."""
    option = parameter or REQUEST_OPTIONS[name]
    settings = {"dest": name, "default": default, "required": required}
    settings.update(_reading(option, checked))
    if isinstance(settings.get("choices"), LazyChoices) and "choices" not in more:
        note = f"{note}; one of %(choices)s" if note else "one of %(choices)s"
    settings.update(more)
    words = (help or option.help) + (f"; {note}" if note else "") + default_words(default)
    return parser.add_argument(*(flags or (option.flag,)), help=words, **settings)


def add_request_options(
    parser: argparse.ArgumentParser,
    request_class: type[Request],
    names: Sequence[str] | None = None,
    *,
    flags: Mapping[str, Sequence[str]] | None = None,
    defaults: Mapping[str, Any] | None = None,
    required: Sequence[str] = (),
    notes: Mapping[str, str] | None = None,
) -> None:
    """One option per parameter of ``request_class`` (:func:`add_option`) — ``names``,
    else every field of it that :data:`~privcore.runs.registry.OPTIONS` describes (under
    the option the request names in ``option_names``) and every parameter its owner
    declares (:meth:`~privcore.runs.requests.Request.parameters`), in field order — with
    the request's (or the declared) default (``defaults`` overrides it: ``None`` where
    the command checks that the option is given). ``flags`` gives other flags, ``notes``
    a few words the command adds to the help. The names are kept in
    ``request_options``, which :func:`privcore.cli.toolkit.running.request` reads."""
    initial = {f.name: f.default for f in fields(request_class) if f.default is not MISSING}
    own = request_class.parameters()  # an algorithm's options, declared by the algorithm
    initial.update({name: parameter.default for name, parameter in own.items()})
    initial.update(defaults or {})
    option_names = request_class.option_names
    chosen = list(names or _request_option_names(request_class, own))
    for name in chosen:
        add_option(
            parser,
            option_names.get(name, name),
            flags=(flags or {}).get(name),
            default=initial.get(name),
            required=name in required,
            note=(notes or {}).get(name),
            parameter=own.get(name),
            dest=name,
        )
    parser.set_defaults(request_options=tuple(chosen))


def _request_option_names(request_class: type[Request], own: Mapping[str, Option]) -> Iterator[str]:
    """The options of ``request_class`` in field order: each field the registry
    describes or the request's owner declares (an algorithm's own options)."""
    for f in fields(request_class):
        if f.name in own or request_class.option_names.get(f.name, f.name) in REQUEST_OPTIONS:
            yield f.name


def command(
    sub: Any, func: Callable[[argparse.Namespace], int], help: str, description: str | None = None
) -> argparse.ArgumentParser:
    """The subcommand named after ``func`` (``cmd_measure``: ``measure``) that runs it."""
    parser = sub.add_parser(func.__name__.removeprefix("cmd_"), help=help, description=description)
    parser.set_defaults(func=func)
    return parser


def table_options(parser: argparse.ArgumentParser, release_help: str) -> None:
    """``--original`` and ``--release``: the tables a release is assessed from."""
    parser.add_argument("--original", required=True, help="the original table")
    parser.add_argument("--release", required=True, help=release_help)


def hierarchy_option(
    parser: argparse.ArgumentParser, help: str = "ARX hierarchy file of a column (repeatable)"
) -> None:
    """``--hierarchy COL=FILE`` (repeatable)."""
    parser.add_argument("--hierarchy", action="append", metavar="COL=FILE", help=help)


def json_option(parser: argparse.ArgumentParser, help: str = "print one JSON object") -> None:
    """``--json``."""
    parser.add_argument("--json", action="store_true", help=help)


def run_options(
    parser: argparse.ArgumentParser,
    *,
    quiet: bool = True,
    json_help: str = "print one JSON object",
    record_help: str = "record the run in the history (page 'cli'; a fingerprint, never the data)",
) -> None:
    """``--record``, ``--quiet`` (where the run draws a progress bar) and ``--json``."""
    parser.add_argument("--record", action="store_true", help=record_help)
    if quiet:
        parser.add_argument("--quiet", action="store_true", help="no progress bar")
    json_option(parser, json_help)


def engine_options(parser: argparse.ArgumentParser) -> None:
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


def formula_guard_option(parser: argparse.ArgumentParser, what: str) -> None:
    """``--no-formula-guard`` for an output that holds ``what``."""
    parser.add_argument(
        "--no-formula-guard",
        dest="formula_guard",
        action="store_false",
        help=f"write cells of {what} that start with =, +, -, @, tab or CR (or hold one "
        "after a line break) as they are (by default a ' goes before it so that "
        "spreadsheets do not run them as formulas; numbers are never changed). For "
        "pipelines that read the file as data",
    )


def budget_options(parser: argparse.ArgumentParser) -> None:
    """``--budget-file`` and the totals that start it: the privacy budget the steps of a
    pipeline spend from (:class:`privcore.runs.Accountant`)."""
    parser.add_argument(
        "--budget-file",
        metavar="FILE",
        help="spend from the privacy budget kept in this JSON file (sequential "
        "composition: its ledger lists every run that spent from it); a run that would go "
        "over it is refused before any noise is drawn (exit 2)",
    )
    parser.add_argument(
        "--budget-epsilon",
        type=number,
        help="with --budget-file: the budget's total ε, to start the file (an existing "
        "file keeps its own totals)",
    )
    parser.add_argument(
        "--budget-delta",
        type=number,
        help="with --budget-file: the budget's total δ when starting it (default 0)",
    )
