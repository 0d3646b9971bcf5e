"""``privcore history list|show|export``: the recorded runs (:mod:`privcore.history`) —
the newest first, one run's record (never an owner token), or every run as CSV
(formula-guarded unless ``--no-formula-guard``)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from privcore import history
from privcore.cli.toolkit import (
    EXIT_OK,
    command,
    emit,
    formula_guard_option,
    json_option,
    positive_int,
)
from privcore.errors import PrivcoreError


def cmd_history(args: argparse.Namespace) -> int:
    if args.action == "list":
        _list(args)
    elif args.action == "show":
        run = history.get_run(args.id)
        if run is None:
            raise PrivcoreError(f"There is no run #{args.id}.", code="history.no_run", id=args.id)
        emit({k: v for k, v in run.items() if k not in history.SECRET_COLUMNS}, True, [])
    elif args.action == "export":  # every run unless --limit, never an owner token
        sys.stdout.write(
            history.export_csv(
                kind=args.kind,
                search=args.search,
                limit=args.limit,
                formula_guard=args.formula_guard,
            )
        )
    return EXIT_OK


def _list(args: argparse.Namespace) -> None:
    """``history list``: the newest runs, and on stderr what the history lost or has
    still to add."""
    runs = history.list_runs(kind=args.kind, search=args.search, limit=args.limit or 50)
    slim = [
        {k: r.get(k) for k in ("id", "started_at", "kind", "status", "dataset_name", "duration_s")}
        for r in runs
    ]
    # newest first (history.list_runs decides the order); the start in UTC, to the
    # second (the JSON keeps the recorded ISO 8601 time)
    lines = [
        f"#{r['id']:<5} {history.display_time(r['started_at'])} UTC  {r['kind']:<10} "
        f"{r['status']:<9} {r['dataset_name'] or '-'}"
        for r in slim
    ] or ["(no runs)"]
    lost = [str(p) for p in history.set_aside_files()]
    waiting = history.pending_runs()
    for file in lost:
        print(
            f"warning: the history file was found empty, so the runs recorded before "
            f"were lost; the empty file was kept as {file}",
            file=sys.stderr,
        )
    if waiting:
        print(
            f"note: {waiting} run(s) wait to be added (the history file was busy)",
            file=sys.stderr,
        )
    emit({"runs": slim, "lost_history_files": lost, "pending_runs": waiting}, args.json, lines)


def add_history_command(sub: Any) -> None:
    """``privcore history``."""
    h = command(sub, cmd_history, "list, show or export recorded runs")
    h.add_argument("action", choices=["list", "show", "export"])
    h.add_argument("id", nargs="?", type=positive_int, help="run id (for show)")
    h.add_argument("--kind", help="only runs of this kind")
    h.add_argument("--search", help="substring to look for")
    h.add_argument(
        "--limit",
        type=positive_int,
        help="the newest runs to list (default 50) or export (default: all)",
    )
    json_option(h)
    formula_guard_option(h, "the CSV export")
