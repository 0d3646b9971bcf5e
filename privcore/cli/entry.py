"""The command line's entry point: the parser, assembled from every command module's
``add_…_command``, and :func:`main`, which runs the chosen command and turns a
:class:`~privcore.errors.PrivcoreError` into one line on stderr and exit code 2."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from privcore import __version__
from privcore.cli.analyses import add_analysis_commands
from privcore.cli.anonymize import add_anonymize_command
from privcore.cli.attack import add_attack_command
from privcore.cli.audit import add_audit_command
from privcore.cli.dp import add_dp_commands
from privcore.cli.history import add_history_command
from privcore.cli.measure import add_measure_command
from privcore.cli.profile import add_profile_command
from privcore.cli.report import add_report_command
from privcore.cli.risk import add_risk_command
from privcore.cli.toolkit import EXIT_BAD_INPUT, EXIT_OK, Parser, terminal_safe
from privcore.errors import PrivcoreError

#: Every command, in the order ``privcore --help`` lists them.
_COMMANDS = (
    add_profile_command,
    add_measure_command,
    add_anonymize_command,
    add_attack_command,
    add_analysis_commands,
    add_audit_command,
    add_report_command,
    add_dp_commands,
    add_risk_command,
    add_history_command,
)


def build_parser() -> argparse.ArgumentParser:
    """``privcore`` and its commands."""
    parser = Parser(
        prog="privcore",
        description="Privacy Workbench from the command line: profile, anonymize, measure, "
        "attack, background, ordering, complementary, risk, audit, sweep, reconstruct, "
        "report, dp, history. Exit codes: 0 ok, 1 a 'not ready' report, 2 bad "
        "input. `privcore COMMAND --help` describes each command.",
    )
    parser.add_argument("--version", action="version", version=f"privcore {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    for add_command in _COMMANDS:
        add_command(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``privcore ARGV`` and return its exit code."""
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
