"""A command's run: its options as a request of :mod:`privcore.runs`, run by
:func:`privcore.runs.run` with a progress bar on a terminal, recorded in the history with
``--record`` (page ``cli``). A history that cannot be written is one warning on stderr
and changes neither the output nor the exit code."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import fields
from typing import Any

from privcore.cli.toolkit.output import say, terminal_safe
from privcore.runs import Inputs, Outcome, Request, make_request, run


def request(
    cls: type[Request], args: argparse.Namespace, inputs: Inputs | None = None, **values: Any
) -> Any:
    """The command's request: the values of its generated options
    (:func:`privcore.cli.toolkit.options.add_request_options`) that are fields of
    ``cls``, then ``values``. A value the request refuses is the command's one-line
    error and, with ``--record``, a failed run in the history
    (:func:`privcore.runs.make_request`)."""
    names = {f.name for f in fields(cls)}
    chosen = getattr(args, "request_options", ())
    given = {name: getattr(args, name) for name in chosen if name in names}
    return make_request(cls, {**given, **values}, inputs, page="cli", record=args.record)


def run_request(request: Request, inputs: Inputs, args: argparse.Namespace) -> Outcome:
    """``request`` run on ``inputs`` by :func:`privcore.runs.run` (recorded with
    ``--record``, page ``cli``), with a progress bar on a terminal; a history that
    cannot be written costs one warning on stderr, never the result. With
    ``--budget-file`` a DP run spends from the budget kept in that file."""
    budget = budget_of(args)
    with _terminal_progress(args) as progress:
        outcome = run(
            request, inputs, progress=progress, page="cli", record=args.record, budget=budget
        )
    if outcome.history_error is not None:
        message = " ".join(outcome.history_error.message.split())
        say(f"warning: run not recorded in the history: {message}")
    return outcome


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


def budget_of(args: argparse.Namespace) -> Any:
    """``--budget-file`` (with ``--budget-epsilon``/``--budget-delta`` to start it) as
    a privacy accountant (:class:`privcore.runs.Accountant`), else ``None``."""
    path = getattr(args, "budget_file", None)
    if path is None:
        return None
    from privcore.runs import Accountant

    return Accountant.open(path, epsilon=args.budget_epsilon, delta=args.budget_delta)
