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

from privcore.cli.toolkit.engines import paired_inputs
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


def request_and_run(
    cls: type[Request], args: argparse.Namespace, inputs: Inputs | None = None, **values: Any
) -> tuple[Any, Outcome]:
    """The command's request (:func:`request`) run on ``inputs`` (:func:`run_request`;
    none: a run that reads no table): the request and the run's outcome."""
    asked = request(cls, args, inputs, **values)
    return asked, run_request(asked, Inputs() if inputs is None else inputs, args)


def run_paired(
    cls: type[Request],
    args: argparse.Namespace,
    more_inputs: Callable[[Inputs], Inputs] | None = None,
) -> tuple[Outcome, dict[str, Any]]:
    """The command's request, checked before any table is read, run on ``--original`` and
    ``--release`` (:func:`~privcore.cli.toolkit.engines.paired_inputs`; ``more_inputs``
    adds what is read after them): the outcome and its JSON object (:func:`engine_payload`)."""
    asked = request(cls, args)
    inputs, engine_name = paired_inputs(args)
    if more_inputs is not None:
        inputs = more_inputs(inputs)
    outcome = run_request(asked, inputs, args)
    return outcome, engine_payload(outcome, engine_name)


def engine_payload(outcome: Outcome, engine_name: str | None) -> dict[str, Any]:
    """The JSON object of a run's result, with the ``engine`` that read its tables
    ("pandas": read into memory)."""
    payload = outcome.result.to_dict()
    payload["engine"] = engine_name or "pandas"
    return payload


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
