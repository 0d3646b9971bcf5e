"""Runs set aside while the history file is busy, and their later addition.

A run that cannot be written because another program holds the file longer than
:data:`~privcore.history.store.BUSY_TIMEOUT_MS` is never dropped: it is set aside as one
JSON file in ``<history>.pending/`` and added by the next write that gets through, or by
a background retry (:func:`flush_pending`). Every run carries a random ``uid`` with a
unique index, so a run set aside is added once even when two processes flush at the
same time.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from privcore.errors import HistoryError
from privcore.history.store import TABLE, _connect, _resolve, _unwritable

if TYPE_CHECKING:  # sqlite-utils is imported when the history is opened
    from sqlite_utils import Database

log = logging.getLogger(__name__)

#: Pause between background attempts to add runs set aside (seconds; doubles up to 60).
RETRY_SECONDS = 1.0


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
