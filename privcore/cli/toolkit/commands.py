"""Commands described as data: a group's subcommands as a table of :class:`Subcommand`
rows (name, handler, options, help) that :func:`add_subcommands` turns into parsers, and
the options of a command that assesses a release against its original
(:func:`paired_options`)."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from privcore.cli.toolkit.options import (
    add_request_options,
    engine_options,
    hierarchy_option,
    table_options,
)
from privcore.runs import Request


@dataclass(frozen=True)
class Subcommand:
    """One subcommand: its ``name``, the handler that ``run``\\ s it and returns the exit
    code, the function that adds its ``options`` to its parser, and the ``help`` (one line
    in the group's list) and ``description`` (its own ``--help``) argparse prints."""

    name: str
    run: Callable[[argparse.Namespace], int]
    options: Callable[[argparse.ArgumentParser], None]
    help: str
    description: str


def add_subcommands(sub: Any, subcommands: Iterable[Subcommand]) -> None:
    """A parser for each of ``subcommands`` under ``sub`` (an ``add_subparsers`` action),
    in their order, that runs its handler."""
    for subcommand in subcommands:
        parser = sub.add_parser(
            subcommand.name, help=subcommand.help, description=subcommand.description
        )
        subcommand.options(parser)
        parser.set_defaults(func=subcommand.run)


def paired_options(
    parser: argparse.ArgumentParser,
    request_class: type[Request],
    release_help: str,
    *,
    hierarchy_help: str | None = None,
    notes: Mapping[str, str] | None = None,
) -> None:
    """``--original`` and ``--release``, the options of ``request_class`` (``--qi`` and
    ``--sa`` required; ``notes`` as :func:`add_request_options` takes them), ``--hierarchy``
    (its help ``hierarchy_help`` where the command reads hierarchies for another purpose)
    and the engine options: what a command that assesses a release against its original
    reads."""
    table_options(parser, release_help)
    add_request_options(parser, request_class, required=("qi", "sa"), notes=notes)
    if hierarchy_help is None:
        hierarchy_option(parser)
    else:
        hierarchy_option(parser, hierarchy_help)
    engine_options(parser)
