"""Reading the command line: the argument parser every command and subcommand uses, and
how an option's text becomes a value.

Numbers are read as written (``nan`` and ``inf`` included) and checked by the request
they belong to (:func:`privcore.runs.check_value`), so the command line refuses what a
page refuses, with the same message; counts outside any request (``--limit``,
``--draws``) and whole numbers whose range a command checks before any work
(:func:`whole_number_in`) are refused here, by argparse.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from collections.abc import Callable, Sequence

from privcore.cli.toolkit.output import EXIT_BAD_INPUT, terminal_safe
from privcore.errors import ParameterError
from privcore.runs import OPTIONS

#: A value that starts like a negative number: ``-70,30``, ``-1e-3``, ``-.5``, ``-inf``,
#: ``-nan``. No option of this command line starts so (every one is ``--`` and a letter).
_NEGATIVE_VALUE = re.compile(r"-(?:\.?\d|inf|nan)", re.IGNORECASE)

#: Largest seed: every random generator privcore seeds (NumPy, PyTorch) takes it; the
#: registry's range of ``seed``.
MAX_SEED = int(OPTIONS["seed"].maximum or 0)


class Parser(argparse.ArgumentParser):
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


def number(text: str) -> float:
    """A number option as written (``nan`` and ``inf`` included): whether it is finite
    and in range is the request's check (:func:`privcore.runs.check_value`), so the
    command line refuses what a page refuses, with the same message."""
    try:
        return float(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"expected a number, not {text!r}") from exc


def whole_number(text: str) -> int | float:
    """A whole-number option as written: exact when it is an integer (a seed near
    2**63), else the number, which the request refuses unless it is whole."""
    try:
        return int(text)
    except ValueError:
        return number(text)


def whole_number_in(minimum: int, maximum: int | None = None) -> Callable[[str], int]:
    """A reader of whole numbers from ``minimum`` to ``maximum`` (no upper end when
    None) that refuses anything else at once: "expected a whole number ≥ 1", "expected a
    whole number from 0 to 9223372036854775807"."""
    if maximum is None:
        words = f"a whole number ≥ {minimum}"
    else:
        words = f"a whole number from {minimum} to {maximum}"

    def read(text: str) -> int:
        try:
            value = int(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(f"expected {words}, not {text!r}") from exc
        if value < minimum or (maximum is not None and value > maximum):
            raise argparse.ArgumentTypeError(f"expected {words}, not {text!r}")
        return value

    return read


#: A count option: a whole number ≥ 1.
positive_int = whole_number_in(1)


def number_list(text: str) -> tuple[float, ...]:
    """A comma-separated list of numbers (``0.5, 1, 2``), each read as :func:`number`
    reads one; the request checks their range."""
    parts = [part.strip() for part in text.replace(";", ",").split(",") if part.strip()]
    if not parts:
        raise argparse.ArgumentTypeError("expected at least one number")
    return tuple(number(part) for part in parts)


def column_list(text: str) -> tuple[str, ...]:
    """A comma-separated list of column names."""
    columns = tuple(c.strip() for c in text.split(",") if c.strip())
    if not columns:
        raise argparse.ArgumentTypeError("expected at least one column name")
    return columns


def columns(text: str, option: str) -> list[str]:
    """The column names of an option read as text (``--qi A,B``); none is the
    ``cli.empty_list`` error naming ``option``."""
    names = [c.strip() for c in text.split(",") if c.strip()]
    if not names:
        raise ParameterError(f"{option} needs at least one column name.", code="cli.empty_list")
    return names


def limit_option(text: str) -> float | str:
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
