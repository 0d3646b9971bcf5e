"""Write the command line's reference (docs/reference/cli.md) from its parser.

Every command and option comes from ``privcore.cli.entry.build_parser`` — the same
parser ``privcore --help`` prints — so the reference cannot say what the command line
does not do. ``make docs`` runs it before building the site; a test fails when the
committed page differs from what this script writes.

Usage: python docs/cli_reference.py [--check]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "reference" / "cli.md"
sys.path.insert(0, str(ROOT))


def _cell(text: object) -> str:
    """Text for a Markdown table cell: one line, pipes and angle brackets escaped."""
    return " ".join(str(text).split()).replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")


def _flags(action: argparse.Action) -> str:
    if not action.option_strings:
        return f"`{action.metavar or action.dest}`"
    shown = ", ".join(f"`{flag}`" for flag in action.option_strings)
    takes = action.nargs != 0
    if takes:
        metavar = action.metavar or action.dest.upper()
        if isinstance(metavar, tuple):
            metavar = " ".join(metavar)
        shown += f" `{metavar}`"
    return shown


def _expanded(action: argparse.Action) -> str:
    """The help with its ``%(default)s``-style fields filled, as ``--help`` fills them."""
    if "%(" not in action.help:
        return action.help
    params = {k: v for k, v in vars(action).items() if v is not argparse.SUPPRESS}
    if params.get("choices") is not None:
        params["choices"] = ", ".join(map(str, params["choices"]))
    return action.help % params


def _details(action: argparse.Action) -> str:
    parts = []
    if action.help and action.help != argparse.SUPPRESS:
        parts.append(_cell(_expanded(action)))
    if action.choices is not None and not isinstance(action.choices, dict):
        parts.append("choices: " + ", ".join(f"`{c}`" for c in action.choices))
    if action.required:
        parts.append("required")
    return "; ".join(parts)


def _command(name: str, parser: argparse.ArgumentParser, level: int) -> list[str]:
    lines = [f"{'#' * level} `{name}`", ""]
    if parser.description:
        lines += [_cell(parser.description), ""]
    usage = " ".join(parser.format_usage().split())
    lines += ["```text", usage.removeprefix("usage: "), "```", ""]
    rows = [
        action
        for action in parser._actions
        if not isinstance(action, (argparse._HelpAction, argparse._SubParsersAction))
        and action.help != argparse.SUPPRESS
    ]
    if rows:
        lines += ["| option | what it does |", "|---|---|"]
        lines += [f"| {_flags(a)} | {_details(a) or '—'} |" for a in rows]
        lines.append("")
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub_name, sub in action.choices.items():
                lines += _command(f"{name} {sub_name}", sub, level + 1)
    return lines


def reference() -> str:
    """The whole page, as Markdown."""
    from privcore.cli.entry import build_parser

    parser = build_parser()
    lines = [
        "# Command line reference",
        "",
        "Generated from the command line's own parser by `docs/cli_reference.py` (run by",
        "`make docs`): every command and option of `python -m privcore`, as `--help` gives",
        "them. Exit codes: 0 ok, 1 a release found not ready (or a reviewer's rejection),",
        "2 bad input, said in one line on stderr.",
        "",
    ]
    [commands] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    for name, sub in commands.choices.items():
        lines += _command(f"privcore {name}", sub, 2)
    return "\n".join(lines).rstrip() + "\n"


def main() -> int:
    text = reference()
    if "--check" in sys.argv[1:]:
        if PAGE.read_text(encoding="utf-8") != text:
            print(f"{PAGE} is out of date: run python docs/cli_reference.py", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(text, encoding="utf-8")
    print(f"wrote {PAGE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
