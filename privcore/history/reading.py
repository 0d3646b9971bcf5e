"""Reading runs back: :func:`list_runs`, :func:`get_run`, :func:`runs_frame`,
:func:`export_csv`, and :func:`delete_run`.

Reading never writes: a missing history file is an empty history. ``params`` and
``results`` come back parsed from JSON; ``owner=`` keeps the runs of one owner only.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypedDict, TypeVar, Unpack

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


class RunFilters(TypedDict, total=False):
    """Which runs :func:`list_runs`, :func:`runs_frame` and :func:`export_csv` read,
    newest first (every key may be left out).

    ``kind`` keeps one kind or any of a sequence of kinds (an empty sequence matches
    nothing); ``search`` keeps runs whose kind, page, data set name, status, error,
    parameters or results contain the text (case-insensitive substring). At most
    ``limit`` runs are read (``None`` for all; default 1000, :func:`export_csv`: all).
    ``include_data``: the stored ``data`` column too (default: left out, a ``has_data``
    flag says whether it is there). ``owner`` keeps only the runs recorded with that
    token (see :func:`record_run`). ``path``: the history file (default: the
    configured one)."""

    kind: str | Sequence[str] | None
    search: str | None
    limit: int | None
    include_data: bool
    owner: str | None
    path: str | os.PathLike[str] | None


def _selected(read: Callable[[Database, str, list[Any]], T], missing: T, filters: RunFilters) -> T:
    """``read(db, sql, args)`` with the query of the runs ``filters`` select, or
    ``missing`` when the history has no file."""
    selection = dict(filters)
    path = selection.pop("path", None)
    sql, args = _select(**selection)
    return _on_history(path, lambda db: read(db, sql, args), missing)


def _select(
    *,
    kind: str | Sequence[str] | None = None,
    search: str | None = None,
    limit: int | None = 1000,
    include_data: bool = False,
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


def list_runs(**filters: Unpack[RunFilters]) -> list[dict[str, Any]]:
    """Return the runs ``filters`` select (:class:`RunFilters`) as dicts, newest first:
    the latest start first, and of runs that started at the same moment (a report and
    the measurement and attack recorded with it share their start) the one recorded
    last.

    ``params`` and ``results`` are parsed back from JSON. The stored ``data`` column is
    left out unless ``include_data`` is true - a ``has_data`` flag says whether it is
    there; :func:`get_run` always includes it. A missing database file is an empty
    history (nothing is created).
    """
    rows = _selected(lambda db, sql, args: list(db.query(sql, args)), [], filters)
    return [_parsed(row) for row in rows]


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


def runs_frame(**filters: Unpack[RunFilters]) -> pd.DataFrame:
    """Return the runs ``filters`` select (:class:`RunFilters`, as in :func:`list_runs`)
    as a DataFrame, newest first.

    One row per run with the same dtypes whatever the content: ``params``,
    ``results``, the times (ISO 8601) and the other text columns are pandas
    ``string`` (missing = ``<NA>``); ``id`` and the data set counts are nullable
    ``Int64``; ``duration_s`` is float; ``has_data`` is bool (or ``data`` is object
    when ``include_data``). Made for tables and export.
    """
    frame = _selected(
        lambda db, sql, args: pd.read_sql_query(sql, db.conn, params=args), None, filters
    )
    if frame is None:
        frame = pd.DataFrame(columns=_empty_row_keys(filters.get("include_data", False)))
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


def export_csv(*, formula_guard: bool = True, **filters: Unpack[RunFilters]) -> str:
    """Return the CSV text (header plus one line per run) of :func:`runs_frame`: every
    run ``filters`` select (:class:`RunFilters`; ``limit`` here defaults to all), newest
    first, without the :data:`SECRET_COLUMNS`.

    Text cells a spreadsheet would run as a formula (a data set named ``=HYPERLINK(…)``)
    are prefixed with ``'`` (:func:`privcore.data.writing.guard_formulas`) unless
    ``formula_guard`` is False; cells holding a line break are quoted
    (:func:`privcore.data.writing.csv_text`, the writer of every CSV privcore writes).
    """
    from privcore.data.writing import csv_text

    frame = runs_frame(**({"limit": None} | filters)).drop(
        columns=list(SECRET_COLUMNS), errors="ignore"
    )
    return csv_text(frame, formula_guard=formula_guard)[0]
