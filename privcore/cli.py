"""Command line: ``python -m privcore COMMAND …`` for batch use and scripts.

Commands mirror the app's pages. Output is a readable summary, or with ``--json`` one
JSON object whose keys are a documented contract (README). Exit codes: 0 success,
2 bad input or impossible parameters (one line on stderr), 1 reserved for verdicts
(``report``: not ready).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from privcore import __version__, history
from privcore.data import load, profile, suggest_roles
from privcore.errors import PrivcoreError

EXIT_OK = 0
EXIT_VERDICT = 1
EXIT_BAD_INPUT = 2


class _Parser(argparse.ArgumentParser):
    """argparse that exits with 2 and one line, like every other input error."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message}\n")


def _emit(payload: dict[str, Any], as_json: bool, lines: Sequence[str]) -> None:
    if as_json:
        print(history.to_json(payload))
    else:
        print("\n".join(lines))


def cmd_profile(args: argparse.Namespace) -> int:
    dataset = load(args.file)
    table = profile(dataset.frame)
    suggestions = {s.column: s for s in suggest_roles(dataset.frame)}
    columns = []
    for row in table.to_dict("records"):
        s = suggestions[row["column"]]
        columns.append(
            {**row, "suggested_role": s.role.value, "reason": s.reason, "confidence": s.confidence}
        )
    payload = {
        "file": args.file,
        "rows": dataset.n_rows,
        "columns": dataset.n_columns,
        "format": dataset.source_format,
        "encoding": dataset.encoding,
        "delimiter": dataset.delimiter,
        "sha256": dataset.fingerprint.sha256,
        "profile": columns,
    }
    lines = [
        f"{args.file}: {dataset.n_rows:,} rows × {dataset.n_columns} columns "
        f"({dataset.source_format}, {dataset.encoding or 'binary'})",
        *(
            f"  {c['column']:<24} {c['type']:<8} distinct={c['distinct']:<7} "
            f"missing={c['missing']:<6} → {c['suggested_role']} ({c['reason']})"
            for c in columns
        ),
    ]
    _emit(payload, args.json, lines)
    return EXIT_OK


def cmd_history(args: argparse.Namespace) -> int:
    if args.action == "list":
        runs = history.list_runs(kind=args.kind, search=args.search, limit=args.limit)
        slim = [
            {
                k: r.get(k)
                for k in ("id", "started_at", "kind", "status", "dataset_name", "duration_s")
            }
            for r in runs
        ]
        lines = [
            f"#{r['id']:<5} {r['started_at']}  {r['kind']:<10} {r['status']:<9} "
            f"{r['dataset_name'] or '-'}"
            for r in slim
        ] or ["(no runs)"]
        _emit({"runs": slim}, args.json, lines)
    elif args.action == "show":
        run = history.get_run(args.id)
        if run is None:
            raise PrivcoreError(f"There is no run #{args.id}.", code="history.no_run", id=args.id)
        _emit(run, True, [])
    elif args.action == "export":
        sys.stdout.write(history.export_csv(kind=args.kind, search=args.search))
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="privcore",
        description="Privacy Workbench from the command line: profile data, inspect the run "
        "history. Exit codes: 0 ok, 2 bad input.",
    )
    parser.add_argument("--version", action="version", version=f"privcore {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("profile", help="read a table, profile its columns, suggest roles")
    p.add_argument("file", help="CSV/TSV/semicolon text, .xlsx, .parquet or .jsonl")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_profile)

    h = sub.add_parser("history", help="list, show or export recorded runs")
    h.add_argument("action", choices=["list", "show", "export"])
    h.add_argument("id", nargs="?", type=int, help="run id (for show)")
    h.add_argument("--kind", help="only runs of this kind")
    h.add_argument("--search", help="substring to look for")
    h.add_argument("--limit", type=int, default=50)
    h.add_argument("--json", action="store_true")
    h.set_defaults(func=cmd_history)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "action", None) == "show" and args.id is None:
        parser.error("history show needs a run id")
    try:
        return args.func(args)
    except PrivcoreError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        return EXIT_BAD_INPUT
