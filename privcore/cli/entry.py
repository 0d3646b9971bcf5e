"""The command line's entry point: the parser, assembled from every command module's
``add_…_command``, and :func:`main`, which runs the chosen command and turns a
:class:`~privcore.errors.PrivcoreError` into one line on stderr and exit code 2."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence

from privcore import __version__
from privcore.cli.toolkit import EXIT_BAD_INPUT, EXIT_OK, Parser, terminal_safe
from privcore.errors import PrivcoreError


def _added_by(module: str, function: str) -> Callable[[argparse._SubParsersAction], None]:
    """The ``add_…`` function of a command module, imported when it is called: a command
    not run is not imported (``privcore measure`` does not load ``dp``'s modules)."""

    def add(sub: argparse._SubParsersAction) -> None:
        getattr(importlib.import_module(f"privcore.cli.{module}"), function)(sub)

    return add


#: Every command module's ``add_…`` function with the names of the commands it adds, in
#: the order ``privcore --help`` lists them.
_COMMANDS = (
    (("profile",), _added_by("profile", "add_profile_command")),
    (("measure",), _added_by("measure", "add_measure_command")),
    (("anonymize",), _added_by("anonymize", "add_anonymize_command")),
    (("attack",), _added_by("attack", "add_attack_command")),
    (
        ("background", "ordering", "complementary", "sweep", "reconstruct"),
        _added_by("analyses", "add_analysis_commands"),
    ),
    (("audit",), _added_by("audit", "add_audit_command")),
    (("report",), _added_by("report", "add_report_command")),
    (("dp",), _added_by("dp", "add_dp_commands")),
    (("risk",), _added_by("risk", "add_risk_command")),
    (("history",), _added_by("history", "add_history_command")),
)
_HELP_FLAGS = ("-h", "--help")


def _command_in(argv: Sequence[str]) -> str | None:
    """The command ``argv`` names (its first word that is not an option: ``privcore``
    itself has only flags), or None."""
    for word in argv:
        if not word.startswith("-"):
            return word if any(word in names for names, _ in _COMMANDS) else None
    return None


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """``privcore`` and its commands. With ``argv`` (the words to be parsed), only the
    command they name is built in full and every other one is a name only — building a
    command's options reads what it offers (the algorithms' own options import the
    algorithms), so ``privcore measure`` does not pay for ``anonymize``; without a
    command, only ``--help`` needs the commands' words, and ``--version`` needs none."""
    parser = Parser(
        prog="privcore",
        description="Privacy Workbench from the command line: profile, anonymize, measure, "
        "attack, background, ordering, complementary, risk, audit, sweep, reconstruct, "
        "report, dp, history. Exit codes: 0 ok, 1 a 'not ready' report, 2 bad "
        "input. `privcore COMMAND --help` describes each command.",
    )
    parser.add_argument("--version", action="version", version=f"privcore {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    chosen = None if argv is None else _command_in(argv)
    build_all = argv is None or (chosen is None and any(w in _HELP_FLAGS for w in argv))
    for names, add_command in _COMMANDS:
        if build_all or chosen in names:
            add_command(sub)
        else:
            for name in names:
                sub.add_parser(name)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``privcore ARGV`` and return its exit code."""
    words = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(words)
    args = parser.parse_args(words)
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
