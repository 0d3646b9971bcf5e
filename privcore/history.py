"""Run history: one SQLite row per analysis run (SPEC §8).

Every run of an analysis (profile, anonymize, measure, attack, audit, report) is written
to the ``runs`` table of a SQLite database through sqlite-utils: when it started and
finished, what kind of run it was and on which page, its status, a fingerprint of the
data set (name, SHA-256, row and column counts), its parameters and a summary of its
results as JSON. The user's data itself is stored only when the caller passes ``data=``,
that is when the user opted in.

The database lives at ``$PRIVCORE_HISTORY`` (default ``data/history.db``); its folder is
created on first write. Each call opens its own connection in WAL mode with a short busy
timeout (:data:`BUSY_TIMEOUT_MS`) and closes it again, so several sessions and processes
can write at once.

A run that cannot be written because another program holds the file longer than that is
never dropped: it is set aside as one JSON file in ``<history>.pending/`` and added by the
next write that gets through, or by a background retry (:func:`flush_pending`); the call
raises ``history.deferred`` so that the caller can say so. Every run carries a random
``uid`` with a unique index, so a run set aside is added once even when two processes
flush at the same time.

A history file found empty (0 bytes: truncated by another program, a full disk, a bad
copy) is not silently reused as a new history: it is moved aside as
``<history>.empty-<UTC time>`` (:func:`set_aside_files` lists such files, so that the app
can say that earlier runs were lost) and a new history is started.

A database that cannot be used raises :class:`~privcore.errors.HistoryError` with one of
the codes ``history.corrupt``, ``history.locked`` or ``history.unwritable``; the app is
expected to show the message and carry on without history.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

import pandas as pd

from privcore import __version__
from privcore.core.jsonsafe import dumps
from privcore.errors import CancelledError, HistoryError, ParameterError

if TYPE_CHECKING:  # sqlite-utils is imported when the history is opened
    from sqlite_utils import Database

__all__ = [
    "COLUMNS",
    "DEFAULT_PATH",
    "ENV_VAR",
    "KINDS",
    "SECRET_COLUMNS",
    "STATUSES",
    "RunRecorder",
    "assessed_release",
    "delete_run",
    "display_time",
    "export_csv",
    "flush_pending",
    "get_run",
    "history_path",
    "list_runs",
    "pending_runs",
    "record_run",
    "recording",
    "runs_frame",
    "set_aside_files",
    "to_json",
]

log = logging.getLogger(__name__)

ENV_VAR = "PRIVCORE_HISTORY"
DEFAULT_PATH = "data/history.db"
TABLE = "runs"

#: Kinds of run the app records. Other non-empty kinds are accepted too.
KINDS = ("profile", "anonymize", "measure", "attack", "audit", "report")
#: Allowed values of the ``status`` column.
STATUSES = ("ok", "error", "cancelled")

#: How long a connection waits for another writer before giving up (milliseconds). A
#: write that gives up sets its run aside (see the module docstring), so a page never
#: waits longer than this for the history.
BUSY_TIMEOUT_MS = 2_000
#: An empty history file younger than this may be one that another process has just
#: created and is about to write; only an older one counts as truncated (seconds).
_EMPTY_GRACE_S = 5.0
#: Pause between background attempts to add runs set aside (seconds; doubles up to 60).
RETRY_SECONDS = 1.0

#: Columns of the ``runs`` table, in table order.
COLUMNS = (
    "id",
    "started_at",
    "finished_at",
    "duration_s",
    "kind",
    "page",
    "status",
    "error",
    "dataset_name",
    "dataset_sha256",
    "dataset_rows",
    "dataset_columns",
    "params",
    "results",
    "data",
    "app_version",
    "owner",
)
#: Columns that hold a secret token (whose browser session recorded the run, the run's
#: own random id): never exported (:func:`export_csv`, ``privcore history``).
SECRET_COLUMNS = ("owner", "uid")
_JSON_COLUMNS = ("params", "results")
_SEARCH_COLUMNS = ("kind", "page", "dataset_name", "status", "error", "params", "results")
_INT_COLUMNS = ("id", "dataset_rows", "dataset_columns")
_FLOAT_COLUMNS = ("duration_s",)
_TEXT_COLUMNS = tuple(c for c in COLUMNS if c not in (*_INT_COLUMNS, *_FLOAT_COLUMNS, "data"))

_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS {TABLE} (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    started_at TEXT,
    finished_at TEXT,
    duration_s REAL,
    kind TEXT,
    page TEXT,
    status TEXT,
    error TEXT,
    dataset_name TEXT,
    dataset_sha256 TEXT,
    dataset_rows INTEGER,
    dataset_columns INTEGER,
    params TEXT,
    results TEXT,
    data TEXT,
    app_version TEXT,
    owner TEXT,
    uid TEXT
)
"""
_INDEXES = (
    f"CREATE INDEX IF NOT EXISTS idx_{TABLE}_kind ON {TABLE} (kind)",
    f"CREATE INDEX IF NOT EXISTS idx_{TABLE}_started_at ON {TABLE} (started_at)",
    f"CREATE INDEX IF NOT EXISTS idx_{TABLE}_owner ON {TABLE} (owner)",
    f"CREATE UNIQUE INDEX IF NOT EXISTS idx_{TABLE}_uid ON {TABLE} (uid)",
)


# --------------------------------------------------------------------------- paths


def history_path() -> Path:
    """Return the history database path: ``$PRIVCORE_HISTORY`` or ``data/history.db``.

    The path is read from the environment on every call, so changing the variable
    takes effect immediately. Relative paths are relative to the working directory.
    """
    return Path(os.environ.get(ENV_VAR, DEFAULT_PATH))


def _resolve(path: str | os.PathLike[str] | None) -> Path:
    return history_path() if path is None else Path(path)


# --------------------------------------------------------------------------- errors


def _corrupt(path: Path) -> HistoryError:
    return HistoryError(
        f"The run history file {path} is damaged or is not a SQLite database; move it "
        f"away or set {ENV_VAR} to another file. The app keeps working without history.",
        code="history.corrupt",
        path=str(path),
    )


def _locked(path: Path) -> HistoryError:
    seconds = BUSY_TIMEOUT_MS / 1000
    return HistoryError(
        f"The run history file {path} stayed locked by another process for more than "
        f"{seconds:g} seconds; try again later or set {ENV_VAR} to another file. "
        "The app keeps working without history.",
        code="history.locked",
        path=str(path),
        seconds=seconds,
    )


def _unwritable(path: Path) -> HistoryError:
    return HistoryError(
        f"The run history file {path} cannot be created or written (read-only location "
        f"or missing permission); make its folder writable or set {ENV_VAR} to another "
        "file. The app keeps working without history.",
        code="history.unwritable",
        path=str(path),
    )


_LOCKED_NAMES = ("SQLITE_BUSY", "SQLITE_LOCKED")
_UNWRITABLE_NAMES = (
    "SQLITE_READONLY",
    "SQLITE_CANTOPEN",
    "SQLITE_IOERR",
    "SQLITE_FULL",
    "SQLITE_PERM",
    "SQLITE_AUTH",
)
_LOCKED_TEXT = ("database is locked", "database table is locked")
_UNWRITABLE_TEXT = ("readonly", "read-only", "unable to open", "disk i/o", "disk is full")


def _is_locked(exc: BaseException) -> bool:
    name = getattr(exc, "sqlite_errorname", "") or ""
    return name.startswith(_LOCKED_NAMES) or any(t in str(exc).lower() for t in _LOCKED_TEXT)


def _translate(exc: sqlite3.Error, path: Path) -> HistoryError:
    """Map a sqlite3 error to the HistoryError a user can act on."""
    if _is_locked(exc):
        return _locked(path)
    name = getattr(exc, "sqlite_errorname", "") or ""
    text = str(exc).lower()
    if name.startswith(_UNWRITABLE_NAMES) or any(t in text for t in _UNWRITABLE_TEXT):
        return _unwritable(path)
    # SQLITE_NOTADB, SQLITE_CORRUPT, or a file whose "runs" table is not ours.
    return _corrupt(path)


# --------------------------------------------------------------------------- connections


def _prepare(db: Database) -> None:
    """Set the pragmas and create the table and indexes if they are missing."""
    db.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    # Switching to WAL needs a moment of exclusive access. SQLite does not always call
    # the busy handler for it, so retry while another process holds the file.
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            if db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                db.execute("PRAGMA journal_mode=WAL")
            break
        except sqlite3.OperationalError as exc:
            if not _is_locked(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)
    # In WAL mode, NORMAL never corrupts the file; a commit is not flushed to disk until
    # the next checkpoint, so a power cut may lose the last runs, not the history. It
    # saves a disk flush on every run recorded (about 4 ms, more on a busy disk).
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute(_SCHEMA)
    present = {row[1] for row in db.execute(f"PRAGMA table_info({TABLE})").fetchall()}
    for column in ("owner", "uid"):  # a history written before runs had them
        if column not in present:
            db.execute(f"ALTER TABLE {TABLE} ADD COLUMN {column} TEXT")
    for sql in _INDEXES:
        db.execute(sql)


@contextmanager
def _connect(path: Path, *, create: bool = True) -> Iterator[Database | None]:
    """Open the history database for one call and close it afterwards.

    With ``create=False`` a missing file yields ``None`` instead of being created, so
    that reading an empty history never writes anything. Every sqlite3 or file system
    failure leaves as a :class:`HistoryError`.
    """
    if path.exists() and _truncated(path):
        _set_aside_empty(path)  # reading too: the loss is reported, never papered over
    if not path.exists():
        if not create:
            yield None
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise _unwritable(path) from exc
    conn: sqlite3.Connection | None = None
    try:
        try:
            conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000)
            from sqlite_utils import Database

            db = Database(conn, execute_plugins=False)
            _prepare(db)
            yield db
        finally:
            if conn is not None:
                conn.close()
    except (sqlite3.ProgrammingError, sqlite3.InterfaceError):
        raise  # misuse of the API is a bug, not a property of the file
    except sqlite3.Error as exc:
        raise _translate(exc, path) from exc
    except OSError as exc:
        raise _unwritable(path) from exc


def _truncated(path: Path) -> bool:
    """A history file of 0 bytes that nobody is about to write (older than the grace
    period, no write-ahead log with content): its runs are gone."""
    try:
        stat = path.stat()
        if stat.st_size != 0 or time.time() - stat.st_mtime < _EMPTY_GRACE_S:
            return False
        wal = path.with_name(path.name + "-wal")
        return not (wal.exists() and wal.stat().st_size > 0)
    except OSError:
        return False


def _set_aside_empty(path: Path) -> None:
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    target = path.with_name(f"{path.name}.empty-{stamp}")
    try:
        os.replace(path, target)
    except OSError as exc:
        raise _unwritable(path) from exc
    log.warning(
        "The run history %s was empty (0 bytes): earlier runs were lost. The empty file "
        "was kept as %s and a new history started.",
        path,
        target,
    )


def set_aside_files(path: str | os.PathLike[str] | None = None) -> list[Path]:
    """History files found empty and moved aside (``<history>.empty-<UTC time>``),
    oldest first: each one means that the runs recorded before it were lost."""
    target = _resolve(path)
    try:
        return sorted(target.parent.glob(f"{target.name}.empty-*"))
    except OSError:
        return []


# --------------------------------------------------------------------------- runs set aside


def _pending_dir(path: Path) -> Path:
    return path.with_name(path.name + ".pending")


def pending_runs(path: str | os.PathLike[str] | None = None) -> int:
    """How many runs are set aside, waiting for the history file to be free."""
    folder = _pending_dir(_resolve(path))
    try:
        return sum(1 for _ in folder.glob("*.json"))
    except OSError:
        return 0


def _set_aside(path: Path, record: Mapping[str, Any]) -> None:
    """Write one run to the waiting folder (atomically: a reader never sees half)."""
    folder = _pending_dir(path)
    row = dict(record)
    if isinstance(row.get("data"), (bytes, bytearray)):
        row["data"] = {"hex": bytes(row["data"]).hex()}
    try:
        folder.mkdir(parents=True, exist_ok=True)
        name = f"{row['started_at']}-{row['uid']}".replace(":", "")
        temporary = folder / f".{name}.tmp"
        temporary.write_text(json.dumps(row), encoding="utf-8")
        os.replace(temporary, folder / f"{name}.json")
    except OSError as exc:
        raise _unwritable(path) from exc


def _add_pending(db: Database, path: Path) -> int:
    """Add the runs set aside, oldest first; each file is removed once its run is in.
    The unique ``uid`` makes a second add of the same run (another process flushing at
    the same time, a crash between insert and removal) a no-op."""
    folder = _pending_dir(path)
    if not folder.is_dir():
        return 0
    added = 0
    for file in sorted(folder.glob("*.json")):
        try:
            row = json.loads(file.read_text(encoding="utf-8"))
        except FileNotFoundError:
            continue  # another process added it
        except (OSError, ValueError):
            log.warning("A run set aside in %s cannot be read; it is left there.", file)
            continue
        if isinstance(row.get("data"), dict) and "hex" in row["data"]:
            row["data"] = bytes.fromhex(row["data"]["hex"])
        db.table(TABLE).insert(row, ignore=True)
        file.unlink(missing_ok=True)
        added += 1
    return added


def flush_pending(path: str | os.PathLike[str] | None = None) -> int:
    """Add every run set aside to the history now; return how many were added.
    Raises :class:`HistoryError` (e.g. ``history.locked``) when the file is still busy."""
    target = _resolve(path)
    if not pending_runs(target):
        return 0
    with _connect(target) as db:
        assert db is not None
        return _add_pending(db, target)


_retrying: set[Path] = set()
_retrying_lock = threading.Lock()


def _retry_in_background(path: Path) -> None:
    """One daemon thread per history file adds the runs set aside once it is free."""
    key = path.resolve()
    with _retrying_lock:
        if key in _retrying:
            return
        _retrying.add(key)

    def retry() -> None:
        pause = RETRY_SECONDS
        try:
            while pending_runs(path):
                time.sleep(pause)
                try:
                    flush_pending(path)
                except HistoryError as exc:
                    if exc.code != "history.locked":
                        log.warning("Runs set aside in %s not added: %s", path, exc)
                        return
                    pause = min(pause * 2, 60.0)
        finally:
            with _retrying_lock:
                _retrying.discard(key)

    threading.Thread(target=retry, name=f"history-retry:{path.name}", daemon=True).start()


def _deferred(path: Path, waiting: int) -> HistoryError:
    seconds = BUSY_TIMEOUT_MS / 1000
    return HistoryError(
        f"The run history file {path} is locked by another program (for more than "
        f"{seconds:g} s). This run was kept aside and will be added as soon as the file "
        f"is free ({waiting} waiting).",
        code="history.deferred",
        path=str(path),
        seconds=seconds,
        waiting=waiting,
    )


# --------------------------------------------------------------------------- JSON


def to_json(obj: Any) -> str:
    """JSON text of a run's parameters or results (:func:`privcore.core.jsonsafe.dumps`:
    numpy, pandas, dates, paths, sets, enums and ``to_dict()`` objects accepted; NaN and
    infinities become ``null``; anything else its ``str()``, so recording never fails)."""
    return dumps(obj)


def _json_or_none(obj: Mapping[str, Any] | None) -> str | None:
    return None if obj is None else to_json(obj)


def _parse_json(text: Any) -> Any:
    if text is None or not isinstance(text, str):
        return text
    try:
        return json.loads(text)
    except ValueError:
        return text


# --------------------------------------------------------------------------- writing


def _utc_iso(moment: dt.datetime) -> str:
    # Naive datetimes are taken as local time, like datetime.astimezone() does.
    return moment.astimezone(dt.UTC).isoformat(timespec="microseconds")


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def _optional_int(value: Any, name: str) -> int | None:
    if value is None:
        return None
    try:
        return int(value)
    except (TypeError, ValueError) as exc:
        raise ParameterError(
            f"The data set {name} must be a whole number, not {value!r}.",
            code="history.dataset",
            key=name,
            value=repr(value),
        ) from exc


def record_run(
    kind: str,
    *,
    params: Mapping[str, Any] | None = None,
    results: Mapping[str, Any] | None = None,
    status: str = "ok",
    error: str | None = None,
    started_at: dt.datetime | None = None,
    finished_at: dt.datetime | None = None,
    duration_s: float | None = None,
    dataset: Mapping[str, Any] | None = None,
    page: str | None = None,
    data: str | bytes | None = None,
    owner: str | None = None,
    path: str | os.PathLike[str] | None = None,
) -> int:
    """Write one run to the history and return its id.

    ``owner`` (optional) is an opaque token of who recorded the run - the app passes
    its browser session's - so that a hosted demo can show each visitor only their
    own runs (``owner=`` of :func:`list_runs`, :func:`get_run`, :func:`delete_run`).

    ``kind`` is the analysis (see :data:`KINDS`); ``status`` is ``"ok"``, ``"error"`` or
    ``"cancelled"``; ``params`` and ``results`` are stored as JSON through
    :func:`to_json`. ``dataset`` is the fingerprint of the input with the keys
    ``name``, ``sha256``, ``rows`` and ``columns`` (all optional). ``data`` - the
    user's data itself - is stored only when given, i.e. when the user opted in;
    bytes are stored as a BLOB.

    Times are stored as ISO 8601 in UTC (naive datetimes count as local time).
    ``finished_at`` defaults to now, ``started_at`` to ``finished_at`` minus
    ``duration_s`` (or ``finished_at``), and ``duration_s`` to the difference of the two.

    Raises :class:`ParameterError` for an unknown status or an empty kind, and
    :class:`HistoryError` when the database cannot be written: ``history.deferred``
    when another program held it longer than :data:`BUSY_TIMEOUT_MS` (the run is kept
    aside and added later, see :func:`flush_pending`), else ``history.corrupt``,
    ``history.locked`` or ``history.unwritable``.
    """
    if status not in STATUSES:
        raise ParameterError(
            f"A run status must be one of {', '.join(STATUSES)}, not {status!r}.",
            code="history.status",
            value=str(status),
            allowed=", ".join(STATUSES),
        )
    if not isinstance(kind, str) or not kind.strip():
        raise ParameterError(
            f"A run needs a kind such as {', '.join(KINDS)}; got {kind!r}.",
            code="history.kind",
            value=repr(kind),
        )
    finished = finished_at or _now()
    if started_at is not None:
        started = started_at
    elif duration_s is not None:
        started = finished - dt.timedelta(seconds=float(duration_s))
    else:
        started = finished
    if duration_s is None:
        duration = (finished.astimezone(dt.UTC) - started.astimezone(dt.UTC)).total_seconds()
    else:
        duration = float(duration_s)
    ds = dataset or {}
    record = {
        "started_at": _utc_iso(started),
        "finished_at": _utc_iso(finished),
        "duration_s": duration,
        "kind": kind,
        "page": page,
        "status": status,
        "error": error,
        "dataset_name": None if ds.get("name") is None else str(ds["name"]),
        "dataset_sha256": None if ds.get("sha256") is None else str(ds["sha256"]),
        "dataset_rows": _optional_int(ds.get("rows"), "rows"),
        "dataset_columns": _optional_int(ds.get("columns"), "columns"),
        "params": _json_or_none(params),
        "results": _json_or_none(results),
        "data": bytes(data) if isinstance(data, (bytes, bytearray)) else data,
        "app_version": __version__,
        "owner": None if owner is None else str(owner),
        "uid": uuid.uuid4().hex,
    }
    target = _resolve(path)
    try:
        with _connect(target) as db:
            assert db is not None
            _add_pending(db, target)  # runs set aside earlier go first
            table = db.table(TABLE)
            table.insert(record)
            run_id = table.last_rowid
    except HistoryError as exc:
        if exc.code != "history.locked":
            raise
        _set_aside(target, record)
        _retry_in_background(target)
        raise _deferred(target, pending_runs(target)) from exc
    assert run_id is not None
    return int(run_id)


class RunRecorder:
    """Context manager that times a block of work and records it as one run.

    Returned by :func:`recording`. Inside the block, set :attr:`results` (and, if the
    user opted in, :attr:`data`); :attr:`params` may also be updated. On exit the run
    is written with status ``"ok"``, ``"error"`` (with ``str(exc)``) or
    ``"cancelled"`` (:class:`~privcore.errors.CancelledError`, or a ``BaseException``
    such as ``KeyboardInterrupt`` or Streamlit's rerun/stop signals), and the
    exception, if any, propagates unchanged.

    A history that cannot be written never breaks the analysis: the
    :class:`HistoryError` is logged and kept in :attr:`history_error`, and
    :attr:`id` stays ``None``.
    """

    def __init__(
        self,
        kind: str,
        *,
        params: Mapping[str, Any] | None = None,
        dataset: Mapping[str, Any] | None = None,
        page: str | None = None,
        path: str | os.PathLike[str] | None = None,
    ) -> None:
        self.kind = kind
        self.params: Mapping[str, Any] | None = params
        self.dataset = dataset
        self.page = page
        self.path = path
        self.results: dict[str, Any] = {}
        self.data: str | bytes | None = None
        self.id: int | None = None
        self.status: str | None = None
        self.error: str | None = None
        self.started_at: dt.datetime | None = None
        self.finished_at: dt.datetime | None = None
        self.duration_s: float | None = None
        self.history_error: HistoryError | None = None
        self._t0 = 0.0

    def __enter__(self) -> RunRecorder:
        self.started_at = _now()
        self._t0 = time.perf_counter()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.duration_s = time.perf_counter() - self._t0
        self.finished_at = _now()
        if exc is None:
            self.status, self.error = "ok", None
        elif isinstance(exc, CancelledError) or not isinstance(exc, Exception):
            self.status, self.error = "cancelled", str(exc) or exc_type.__name__
        else:
            self.status, self.error = "error", str(exc) or type(exc).__name__
        try:
            self.id = record_run(
                self.kind,
                params=self.params,
                results=self.results,
                status=self.status,
                error=self.error,
                started_at=self.started_at,
                finished_at=self.finished_at,
                duration_s=self.duration_s,
                dataset=self.dataset,
                page=self.page,
                data=self.data,
                path=self.path,
            )
        except HistoryError as history_exc:
            self.history_error = history_exc
            log.warning("Run not recorded: %s", history_exc)
        # Returning None lets the original exception propagate.


def recording(
    kind: str,
    *,
    params: Mapping[str, Any] | None = None,
    dataset: Mapping[str, Any] | None = None,
    page: str | None = None,
    path: str | os.PathLike[str] | None = None,
) -> RunRecorder:
    """Return a :class:`RunRecorder` that records the ``with`` block as one run.

    Example::

        with recording("measure", params=p, dataset=d, page="measure") as run:
            report = measure(table, **p)
            run.results = report.summary()
        run.id  # the new run id (None if the history could not be written)
    """
    return RunRecorder(kind, params=params, dataset=dataset, page=page, path=path)


# --------------------------------------------------------------------------- reading


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
    target = _resolve(path)
    sql, args = _select(kind, search, limit, include_data, owner)
    with _connect(target, create=False) as db:
        if db is None:
            return []
        rows = list(db.query(sql, args))
    for row in rows:
        for column in _JSON_COLUMNS:
            row[column] = _parse_json(row[column])
        if "has_data" in row:
            row["has_data"] = bool(row["has_data"])
    return rows


def get_run(
    run_id: int, *, owner: str | None = None, path: str | os.PathLike[str] | None = None
) -> dict[str, Any] | None:
    """Return one run (all columns, ``params``/``results`` parsed) or ``None`` (also
    when ``owner`` is given and the run was recorded by another)."""
    target = _resolve(path)
    where, args = _owned(run_id, owner)
    with _connect(target, create=False) as db:
        if db is None:
            return None
        rows = list(db.query(f"SELECT * FROM {TABLE} WHERE {where}", args))
    if not rows:
        return None
    row = rows[0]
    for column in _JSON_COLUMNS:
        row[column] = _parse_json(row[column])
    return row


def _owned(run_id: int, owner: str | None) -> tuple[str, list[Any]]:
    if owner is None:
        return "id = ?", [int(run_id)]
    return "id = ? AND owner = ?", [int(run_id), str(owner)]


def delete_run(
    run_id: int, *, owner: str | None = None, path: str | os.PathLike[str] | None = None
) -> bool:
    """Delete one run; return ``True`` if it existed (and, with ``owner``, was theirs)."""
    target = _resolve(path)
    where, args = _owned(run_id, owner)
    with _connect(target, create=False) as db:
        if db is None:
            return False
        cursor = db.execute(f"DELETE FROM {TABLE} WHERE {where}", args)
        return cursor.rowcount > 0


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
    target = _resolve(path)
    sql, args = _select(kind, search, limit, include_data, owner)
    with _connect(target, create=False) as db:
        if db is None:
            frame = pd.DataFrame(columns=_empty_row_keys(include_data))
        else:
            frame = pd.read_sql_query(sql, db.conn, params=args)
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


# --------------------------------------------------------------------------- display


def display_time(value: Any) -> str:
    """A recorded time (ISO 8601, as :func:`record_run` writes it) as people read it, in
    UTC to the second: ``2026-11-29T04:31:05.194796+00:00`` → ``2026-11-29 04:31:05``.
    The fraction of a second is dropped (a clock shows the second it is in); a time with
    another offset is converted to UTC, one without an offset is taken as UTC (the
    history's own zone). ``None`` or an empty value is ``—``; text that is no such time
    is returned as it is."""
    if value is None or (isinstance(value, float) and value != value) or value is pd.NA:
        return "—"
    text = str(value).strip()
    if not text:
        return "—"
    try:
        moment = dt.datetime.fromisoformat(text)
    except ValueError:
        return text
    if moment.tzinfo is not None:
        moment = moment.astimezone(dt.UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S")


def assessed_release(run: Mapping[str, Any]) -> dict[str, Any] | None:
    """What a run recorded of the release it assessed, or None for a run of no release.

    ``name``: the release's name (on the page's shelf, or its file name); ``sha256``,
    ``rows``, ``columns``: its rows' fingerprint (:func:`privcore.data.fingerprint`),
    when the run kept it (a readiness report's ``release_fingerprint``, the command
    line's ``release_sha256``); ``algorithm`` and ``parameters``: how it was made, when
    the report knew it (a release made on the Anonymize page) — the algorithm's name and
    what it was made with (its ``constraints``, ``max_suppression``, ``seed`` and the
    algorithm's options, as :class:`privcore.anonymize.Release` ``params`` holds them).
    Absent facts are None.
    """
    params = run.get("params")
    results = run.get("results")
    params = params if isinstance(params, Mapping) else {}
    results = results if isinstance(results, Mapping) else {}
    kept = results.get("release_fingerprint")
    kept = kept if isinstance(kept, Mapping) else {}
    made = results.get("algorithm")
    made = made if isinstance(made, Mapping) else {}
    name = params.get("release") if isinstance(params.get("release"), str) else None
    name = name or (kept.get("name") if isinstance(kept.get("name"), str) else None)
    sha = kept.get("sha256") or params.get("release_sha256")
    if name is None and sha is None:
        return None
    algorithm = made.get("algorithm")
    return {
        "name": name,
        "sha256": str(sha) if sha else None,
        "rows": kept.get("rows"),
        "columns": kept.get("columns"),
        "algorithm": str(algorithm) if algorithm else None,
        "parameters": {k: v for k, v in made.items() if k != "algorithm"} if algorithm else {},
    }
