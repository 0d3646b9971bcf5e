"""The register of releases: one row per release assessed, in the ``releases`` table of
the history database.

A release combined with an earlier one can break k even when each is k-anonymous on its
own (Sweeney 2002, §4.3; :mod:`privcore.report.register`). To check a new release
against what went out before, the history keeps a register: who received each release
and how (``recipient``, ``access``), the roles it was assessed with (``qi``, ``sa``,
``key``), the fingerprints of its input and of the released table (``input_sha256``,
``release_sha256``), where the released file lies (``release_path``) and its name, the
verdict of the report, the decision taken and the report's run id.

The user's data is never written here: only fingerprints, names, column names and
figures. An entry with any other key is refused, so a caller cannot slip rows in.

The register lives in the same file as the runs (:func:`~privcore.history.history_path`:
``$PRIVCORE_HISTORY``, default ``data/history.db``, or the ``path`` argument), opened for
each call through :func:`~privcore.history.store._connect` (WAL mode, busy timeout,
failures as :class:`~privcore.errors.HistoryError`). Unlike a run, a release that meets a
locked file is not set aside: the call raises ``history.locked`` and the caller says so,
because a release decided without its register entry must be registered again knowingly.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from privcore.errors import ParameterError
from privcore.history.store import _connect, _resolve

__all__ = [
    "DECISIONS",
    "RELEASES_TABLE",
    "RELEASE_ACCESS",
    "RELEASE_COLUMNS",
    "register_release",
    "registered_releases",
]

RELEASES_TABLE = "releases"
#: How a recipient reaches a release (the same words as the report's context).
RELEASE_ACCESS = ("public", "licensed", "enclave")
#: The decisions a reviewer may take on a release.
DECISIONS = ("approve", "approve_with_conditions", "reject")
#: Columns of the ``releases`` table, in table order.
RELEASE_COLUMNS = (
    "id",
    "created",
    "recipient",
    "access",
    "qi",
    "sa",
    "key",
    "input_sha256",
    "release_sha256",
    "release_path",
    "release_name",
    "verdict",
    "decision",
    "report_run",
    "owner",
)
_REQUIRED = ("recipient", "access", "input_sha256", "release_sha256")
_KEYS = RELEASE_COLUMNS[1:]
_JSON_COLUMNS = ("qi", "sa")

_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS {RELEASES_TABLE} (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created TEXT NOT NULL,
    recipient TEXT NOT NULL,
    access TEXT NOT NULL,
    qi TEXT NOT NULL,
    sa TEXT NOT NULL,
    key TEXT,
    input_sha256 TEXT NOT NULL,
    release_sha256 TEXT NOT NULL,
    release_path TEXT,
    release_name TEXT,
    verdict TEXT,
    decision TEXT,
    report_run INTEGER,
    owner TEXT
)
"""


def _refuse(message: str, code: str, **params: Any) -> ParameterError:
    return ParameterError(message, code=code, **params)


def _text(entry: Mapping[str, Any], name: str) -> str | None:
    value = entry.get(name)
    if value is None:
        return None
    if not isinstance(value, str):
        raise _refuse(
            f"The release's {name} must be a text, not {type(value).__name__}.",
            "register.not_text",
            key=name,
        )
    return value.strip() or None


def _names(entry: Mapping[str, Any], name: str) -> list[str]:
    value = entry.get(name)
    if value is None:
        return []
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise _refuse(
            f"The release's {name} must be a list of column names.",
            "register.not_names",
            key=name,
        )
    if not all(isinstance(v, str) and v for v in value):
        raise _refuse(
            f"Every column name in the release's {name} must be a non-empty text.",
            "register.not_names",
            key=name,
        )
    return list(value)


def _choice(entry: Mapping[str, Any], name: str, allowed: Sequence[str]) -> str | None:
    value = _text(entry, name)
    if value is not None and value not in allowed:
        raise _refuse(
            f"The release's {name} must be one of {', '.join(allowed)}, not {value!r}.",
            "register.choice",
            key=name,
            value=value,
            allowed=", ".join(allowed),
        )
    return value


def _created(value: Any) -> str:
    """UTC ISO time of registration: now, or the datetime given (naive = local time)."""
    if value is None:
        moment = dt.datetime.now(dt.UTC)
    elif isinstance(value, dt.datetime):
        moment = value
    else:
        raise _refuse(
            "The release's created time must be a datetime (or left out for now).",
            "register.created",
        )
    return moment.astimezone(dt.UTC).isoformat(timespec="microseconds")


def _report_run(value: Any) -> int | None:
    if value is None:
        return None
    if not isinstance(value, bool):
        try:
            number = int(value)
        except (TypeError, ValueError):
            number = None
        if number is not None and number == value:
            return number
    raise _refuse(
        f"The release's report_run must be a run id (a whole number), not {value!r}.",
        "register.report_run",
        value=repr(value),
    )


def _record(entry: Mapping[str, Any]) -> dict[str, Any]:
    """The row to insert, every key checked; unknown keys (data) refused."""
    if not isinstance(entry, Mapping):
        raise _refuse(
            f"A release entry must be a mapping with the keys {', '.join(_KEYS)}.",
            "register.not_mapping",
        )
    unknown = sorted(str(k) for k in entry if k not in _KEYS)
    if unknown:
        raise _refuse(
            f"Unknown key(s) in the release entry: {', '.join(unknown)}. The register "
            f"keeps only {', '.join(_KEYS)} (never the data).",
            "register.unknown_keys",
            keys=unknown,
        )
    record: dict[str, Any] = {
        "created": _created(entry.get("created")),
        "recipient": _text(entry, "recipient"),
        "access": _choice(entry, "access", RELEASE_ACCESS),
        "qi": json.dumps(_names(entry, "qi")),
        "sa": json.dumps(_names(entry, "sa")),
        "key": _text(entry, "key"),
        "input_sha256": _text(entry, "input_sha256"),
        "release_sha256": _text(entry, "release_sha256"),
        "release_path": None,
        "release_name": _text(entry, "release_name"),
        "verdict": _text(entry, "verdict"),
        "decision": _choice(entry, "decision", DECISIONS),
        "report_run": _report_run(entry.get("report_run")),
        "owner": _text(entry, "owner"),
    }
    missing = [k for k in _REQUIRED if record[k] is None]
    if missing:
        raise _refuse(
            f"A release entry needs {', '.join(missing)}: who received it, how, and the "
            "fingerprints of its input and of the released table.",
            "register.missing",
            keys=missing,
        )
    path = entry.get("release_path")
    if path is not None:
        if not isinstance(path, (str, os.PathLike)) or not str(path).strip():
            raise _refuse(
                "The release's release_path must be the path of the released file.",
                "register.release_path",
            )
        record["release_path"] = str(Path(path).expanduser().resolve())
    return record


def register_release(entry: Mapping[str, Any], path: str | os.PathLike[str] | None = None) -> int:
    """Add one release to the register and return its id.

    ``entry`` holds ``recipient`` and ``access`` (``public``, ``licensed`` or
    ``enclave``), ``input_sha256`` and ``release_sha256`` (the ``sha256`` of
    :func:`privcore.data.fingerprint` of the input and of the released table, as read
    back from its file), and optionally ``qi`` and ``sa`` (lists of column names),
    ``key`` (the matching key column), ``release_path`` (stored absolute),
    ``release_name``, ``verdict``, ``decision`` (``approve``,
    ``approve_with_conditions`` or ``reject``), ``report_run`` (the report's run id),
    ``owner`` (an opaque token of the session that registered it, on a hosted demo: each
    visitor's register is their own) and ``created`` (a datetime; default now, stored as
    UTC ISO). Any other key is refused
    (``register.unknown_keys``): the register never holds the data.

    ``path`` is the history database (default :func:`~privcore.history.history_path`).
    Raises :class:`~privcore.errors.ParameterError` for an entry that is not right and
    :class:`~privcore.errors.HistoryError` when the database cannot be written.
    """
    record = _record(entry)
    with _connect(_resolve(path)) as db:
        assert db is not None
        db.execute(_SCHEMA)
        table = db.table(RELEASES_TABLE)
        table.insert(record)
        release_id = table.last_rowid
    assert release_id is not None
    return int(release_id)


def registered_releases(
    path: str | os.PathLike[str] | None = None, *, owner: str | None = None
) -> list[dict[str, Any]]:
    """Every registered release, oldest first (by ``created``, then id), ``qi`` and ``sa``
    as lists; with ``owner``, only those that owner registered (a hosted demo's session).
    A history without a file or without a register is an empty register (reading creates
    nothing)."""
    with _connect(_resolve(path), create=False) as db:
        if db is None or RELEASES_TABLE not in db.table_names():
            return []
        columns = ", ".join(RELEASE_COLUMNS)
        where, params = ("WHERE owner = ?", [str(owner)]) if owner is not None else ("", [])
        cursor = db.execute(
            f"SELECT {columns} FROM {RELEASES_TABLE} {where} ORDER BY created, id", params
        )
        rows = [dict(zip(RELEASE_COLUMNS, row, strict=True)) for row in cursor.fetchall()]
    for row in rows:  # per entry of the register, not per row of data
        for column in _JSON_COLUMNS:
            row[column] = json.loads(row[column]) if row[column] else []
    return rows
