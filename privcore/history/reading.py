"""Reading runs back: :func:`list_runs`, :func:`get_run`, :func:`runs_frame`,
:func:`export_csv`, and :func:`delete_run`.

Reading never writes: a missing history file is an empty history. ``params`` and
``results`` come back parsed from JSON; ``owner=`` keeps the runs of one owner only.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import pandas as pd

from privcore.errors import ParameterError
from privcore.history.store import (
    _FLOAT_COLUMNS,
    _INT_COLUMNS,
    _JSON_COLUMNS,
    _SEARCH_COLUMNS,
    _TEXT_COLUMNS,
    COLUMNS,
    SECRET_COLUMNS,
    TABLE,
    _connect,
    _resolve,
)

if TYPE_CHECKING:  # sqlite-utils is imported when the history is opened
    from sqlite_utils import Database

T = TypeVar("T")


def _parse_json(text: Any) -> Any:
    if text is None or not isinstance(text, str):
        return text
    try:
        return json.loads(text)
    except ValueError:
        return text


def _parsed(row: dict[str, Any]) -> dict[str, Any]:
    """A row as read: ``params`` and ``results`` parsed from JSON, ``has_data`` a bool."""
    for column in _JSON_COLUMNS:
        row[column] = _parse_json(row[column])
    if "has_data" in row:
        row["has_data"] = bool(row["has_data"])
    return row


def _on_history(path: str | os.PathLike[str] | None, use: Callable[[Database], T], missing: T) -> T:
    """``use(db)`` on the history at ``path`` (opened for this call alone), or ``missing``
    when the history has no file (reading creates nothing)."""
    with _connect(_resolve(path), create=False) as db:
        return missing if db is None else use(db)


def _where(
    kind: str | Sequence[str] | None, search: str | None, owner: str | None = None
) -> tuple[str, list[Any]]:
    clauses: list[str] = []
    args: list[Any] = []
    if owner is not None:
        clauses.append("owner = ?")
        args.append(str(owner))
    if kind is not None:
        kinds = [kind] if isinstance(kind, str) else list(kind)
        if not kinds:
            clauses.append("0")
        else:
            clauses.append(f"kind IN ({', '.join('?' * len(kinds))})")
            args.extend(kinds)
    if search:
        needle = search.strip().lower()
        if needle:
            haystack = " OR ".join(
                f"instr(lower(coalesce({c}, '')), ?) > 0" for c in _SEARCH_COLUMNS
            )
            clauses.append(f"({haystack})")
            args.extend([needle] * len(_SEARCH_COLUMNS))
    return (" WHERE " + " AND ".join(clauses)) if clauses else "", args


def _select(
    kind: str | Sequence[str] | None,
    search: str | None,
    limit: int | None,
    include_data: bool,
    owner: str | None = None,
) -> tuple[str, list[Any]]:
    if limit is not None and (isinstance(limit, bool) or int(limit) < 1):
        raise ParameterError(
            f"The number of runs to list must be at least 1, not {limit!r}.",
            code="history.limit",
            value=repr(limit),
        )
    columns = [c for c in COLUMNS if include_data or c != "data"]
    if not include_data:
        columns.append("data IS NOT NULL AS has_data")
    where, args = _where(kind, search, owner)
    sql = f"SELECT {', '.join(columns)} FROM {TABLE}{where} ORDER BY started_at DESC, id DESC"
    if limit is not None:
        sql += " LIMIT ?"
        args.append(int(limit))
    return sql, args


def _empty_row_keys(include_data: bool) -> list[str]:
    keys = [c for c in COLUMNS if include_data or c != "data"]
    return keys if include_data else [*keys, "has_data"]


def list_runs(
    *,
    kind: str | Sequence[str] | None = None,
    search: str | None = None,
    limit: int | None = 1000,
    include_data: bool = False,
    owner: str | None = None,
    path: str | os.PathLike[str] | None = None,
) -> list[dict[str, Any]]:
    """Return recorded runs as dicts, newest first: the latest start first, and of runs
    that started at the same moment (a report and the measurement and attack recorded
    with it share their start) the one recorded last.

    ``kind`` keeps one kind or any of a sequence of kinds (an empty sequence matches
    nothing); ``search`` keeps runs whose kind, page, data set name, status, error,
    parameters or results contain the text (case-insensitive substring). At most
    ``limit`` runs are returned (``None`` for all).

    ``params`` and ``results`` are parsed back from JSON. The stored ``data`` column is
    left out unless ``include_data`` is true - a ``has_data`` flag says whether it is
    there; :func:`get_run` always includes it. ``owner`` keeps only the runs recorded
    with that token (see :func:`record_run`). A missing database file is an empty
    history (nothing is created).
    """
    sql, args = _select(kind, search, limit, include_data, owner)
    return [_parsed(row) for row in _on_history(path, lambda db: list(db.query(sql, args)), [])]


def get_run(
    run_id: int, *, owner: str | None = None, path: str | os.PathLike[str] | None = None
) -> dict[str, Any] | None:
    """Return one run (all columns, ``params``/``results`` parsed) or ``None`` (also
    when ``owner`` is given and the run was recorded by another)."""
    where, args = _owned(run_id, owner)
    sql = f"SELECT * FROM {TABLE} WHERE {where}"
    rows = _on_history(path, lambda db: list(db.query(sql, args)), [])
    return _parsed(rows[0]) if rows else None


def _owned(run_id: int, owner: str | None) -> tuple[str, list[Any]]:
    if owner is None:
        return "id = ?", [int(run_id)]
    return "id = ? AND owner = ?", [int(run_id), str(owner)]


def delete_run(
    run_id: int, *, owner: str | None = None, path: str | os.PathLike[str] | None = None
) -> bool:
    """Delete one run; return ``True`` if it existed (and, with ``owner``, was theirs)."""
    where, args = _owned(run_id, owner)
    sql = f"DELETE FROM {TABLE} WHERE {where}"
    return _on_history(path, lambda db: db.execute(sql, args).rowcount > 0, False)


def runs_frame(
    *,
    kind: str | Sequence[str] | None = None,
    search: str | None = None,
    limit: int | None = 1000,
    include_data: bool = False,
    owner: str | None = None,
    path: str | os.PathLike[str] | None = None,
) -> pd.DataFrame:
    """Return the runs selected as in :func:`list_runs` as a DataFrame, newest first.

    One row per run with the same dtypes whatever the content: ``params``,
    ``results``, the times (ISO 8601) and the other text columns are pandas
    ``string`` (missing = ``<NA>``); ``id`` and the data set counts are nullable
    ``Int64``; ``duration_s`` is float; ``has_data`` is bool (or ``data`` is object
    when ``include_data``). Made for tables and export.
    """
    sql, args = _select(kind, search, limit, include_data, owner)
    frame = _on_history(path, lambda db: pd.read_sql_query(sql, db.conn, params=args), None)
    if frame is None:
        frame = pd.DataFrame(columns=_empty_row_keys(include_data))
    # The same dtypes whatever the content (pandas infers per column otherwise).
    frame = frame.astype(
        {
            **dict.fromkeys(_INT_COLUMNS, "Int64"),
            **dict.fromkeys(_FLOAT_COLUMNS, "float64"),
            **dict.fromkeys(_TEXT_COLUMNS, "string"),
        }
    )
    if "has_data" in frame:
        frame["has_data"] = frame["has_data"].astype(bool)
    return frame


def export_csv(
    *,
    kind: str | Sequence[str] | None = None,
    search: str | None = None,
    limit: int | None = None,
    include_data: bool = False,
    owner: str | None = None,
    path: str | os.PathLike[str] | None = None,
    formula_guard: bool = True,
) -> str:
    """Return the CSV text (header plus one line per run) of :func:`runs_frame`: every
    run selected, newest first (at most ``limit``), without the :data:`SECRET_COLUMNS`.

    Text cells a spreadsheet would run as a formula (a data set named ``=HYPERLINK(…)``)
    are prefixed with ``'`` (:func:`privcore.data.writing.guard_formulas`) unless
    ``formula_guard`` is False; cells holding a line break are quoted
    (:func:`privcore.data.writing.csv_text`, the writer of every CSV privcore writes).
    """
    from privcore.data.writing import csv_text

    frame = runs_frame(
        kind=kind,
        search=search,
        limit=limit,
        include_data=include_data,
        owner=owner,
        path=path,
    ).drop(columns=list(SECRET_COLUMNS), errors="ignore")
    return csv_text(frame, formula_guard=formula_guard)[0]
