"""What the command line prints: its exit codes, text made safe for a terminal, one-line
notes on stderr, and a command's result as readable lines or one JSON object.

Readable output is printed without control characters or terminal escape sequences (a
column name can hold them: ECMA-48 escape sequences and their 8-bit C1 forms); JSON
output escapes them (``\\u0080``–``\\u009f`` beyond what :func:`json.dumps` escapes).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from typing import Any

from privcore.core.jsonsafe import dumps
from privcore.runs import Outcome

EXIT_OK = 0
EXIT_VERDICT = 1
EXIT_BAD_INPUT = 2

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


def say(text: str) -> None:
    """One line on stderr (a warning or a note), safe for the terminal."""
    print(terminal_safe(text, one_line=True), file=sys.stderr)


def emit(payload: dict[str, Any], as_json: bool, lines: Sequence[str]) -> None:
    """A command's result: ``payload`` as one JSON object with ``--json``, else
    ``lines``."""
    if as_json:
        print(dumps(payload).translate(_JSON_ESCAPES))
    else:
        print(terminal_safe("\n".join(lines)))


def num(value: Any) -> str:
    """A figure to 4 decimals, "—" for none."""
    return "—" if value is None else f"{value:.4f}"


def reading(value: Any) -> str:
    """A number for reading: whole numbers without decimals, others to 6 significant
    digits (4 below 1); "—" for none."""
    if value is None:
        return "—"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    if isinstance(value, float):
        return f"{value:.6g}" if abs(value) >= 1 else f"{value:.4g}"
    return str(value)


def history_lines(outcome: Outcome) -> list[str]:
    """The line naming the recorded run, for the readable output."""
    return [f"history run: #{outcome.run_id}"] if outcome.run_id is not None else []


def emit_run(args: Any, payload: dict[str, Any], lines: Sequence[str], outcome: Outcome) -> int:
    """A run's result (:func:`emit`) and exit code 0: ``payload`` as one JSON object with
    ``--json``, else ``lines`` followed by the line naming the recorded run
    (:func:`history_lines`)."""
    emit(payload, args.json, [*lines, *history_lines(outcome)])
    return EXIT_OK


def real_records_line(real: dict[str, Any]) -> str:
    """How many released rows equal an original record (their own, or any)."""
    return (
        f"real records: {real['own']:,} released row(s) equal their own original, "
        f"{real['any']:,} equal some original (quasi-identifiers and sensitive attributes)"
    )
