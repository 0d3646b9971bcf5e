"""``privcore profile FILE``: read a table, profile its columns and suggest their roles.
``--json`` keys: file, rows, columns, format, encoding, delimiter, sha256, profile (one
object per column with its figures, suggested_role, reason and confidence)."""

from __future__ import annotations

import argparse
from typing import Any

from privcore.cli.toolkit import EXIT_OK, command, emit, json_option, load_table
from privcore.runs.analysis_runners import column_profile


def cmd_profile(args: argparse.Namespace) -> int:
    dataset = load_table(args.file)
    figures = column_profile(dataset)
    suggestions = {s.column: s for s in figures.suggestions}
    columns = []
    for row in figures.table.to_dict("records"):
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
    emit(payload, args.json, _lines(args.file, dataset, columns))
    return EXIT_OK


def _lines(file: str, dataset: Any, columns: list[dict[str, Any]]) -> list[str]:
    """The table's size and format, then one line per column."""
    return [
        f"{file}: {dataset.n_rows:,} {'row' if dataset.n_rows == 1 else 'rows'} × "
        f"{dataset.n_columns} {'column' if dataset.n_columns == 1 else 'columns'} "
        f"({dataset.source_format}, {dataset.encoding or 'binary'})",
        *(
            f"  {c['column']:<24} {c['type']:<8} distinct={c['distinct']:<7} "
            f"missing={c['missing']:<6} → {c['suggested_role']} ({c['reason']})"
            for c in columns
        ),
    ]


def add_profile_command(sub: Any) -> None:
    """``privcore profile``."""
    p = command(sub, cmd_profile, "read a table, profile its columns, suggest roles")
    p.add_argument("file", help="CSV/TSV/semicolon text, .xlsx, .parquet or .jsonl")
    json_option(p)
