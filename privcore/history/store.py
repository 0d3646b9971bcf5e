"""The history file: where it lives, how it is opened, and what its failures mean.

The ``runs`` table (:data:`COLUMNS`) is created on first write. Each call opens its own
connection in WAL mode with a short busy timeout (:data:`BUSY_TIMEOUT_MS`) and closes it
again, so several sessions and processes can write at once. A history file found empty
(0 bytes: truncated by another program, a full disk, a bad copy) is moved aside as
``<history>.empty-<UTC time>`` (:func:`set_aside_files`) and a new history is started.
Every sqlite3 or file system failure leaves as a :class:`~privcore.errors.HistoryError`
with the code ``history.corrupt``, ``history.locked`` or ``history.unwritable``;
``history.deferred`` says that a run was set aside (:mod:`privcore.history.pending`).
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from privcore.errors import HistoryError

if TYPE_CHECKING:  # sqlite-utils is imported when the history is opened
    from sqlite_utils import Database

log = logging.getLogger(__name__)

ENV_VAR = "PRIVCORE_HISTORY"
DEFAULT_PATH = "data/history.db"
TABLE = "runs"

#: Kinds of run the app records. Other non-empty kinds are accepted too.
KINDS = ("profile", "anonymize", "measure", "attack", "audit", "report")
#: Allowed values of the ``status`` column.
STATUSES = ("ok", "error", "cancelled")

#: How long a connection waits for another writer before giving up (milliseconds). A
#: write that gives up sets its run aside (:mod:`privcore.history.pending`), so a page never
#: waits longer than this for the history.
BUSY_TIMEOUT_MS = 2_000
#: An empty history file younger than this may be one that another process has just
#: created and is about to write; only an older one counts as truncated (seconds).
_EMPTY_GRACE_S = 5.0

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
