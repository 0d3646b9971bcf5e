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

The package's modules: :mod:`~privcore.history.store` (the file, its table, connections
and errors), :mod:`~privcore.history.pending` (runs set aside), :mod:`~privcore.history.writing`
(recording runs), :mod:`~privcore.history.reading` (listing, exporting, deleting),
:mod:`~privcore.history.display` (how a run reads to people) and
:mod:`~privcore.history.register` (the register of releases, table ``releases``: who
received which release, by fingerprint, never the data).
"""

from privcore.history.display import assessed_release, display_time
from privcore.history.pending import RETRY_SECONDS, flush_pending, pending_runs
from privcore.history.pending import _pending_dir as _pending_dir
from privcore.history.reading import delete_run, export_csv, get_run, list_runs, runs_frame
from privcore.history.register import (
    DECISIONS,
    RELEASE_ACCESS,
    RELEASE_COLUMNS,
    RELEASES_TABLE,
    register_release,
    registered_releases,
)
from privcore.history.store import (
    BUSY_TIMEOUT_MS,
    COLUMNS,
    DEFAULT_PATH,
    ENV_VAR,
    KINDS,
    SECRET_COLUMNS,
    STATUSES,
    TABLE,
    history_path,
    set_aside_files,
)
from privcore.history.writing import RunRecorder, record_run, recording, to_json

__all__ = [
    "BUSY_TIMEOUT_MS",
    "COLUMNS",
    "DECISIONS",
    "DEFAULT_PATH",
    "ENV_VAR",
    "KINDS",
    "RELEASES_TABLE",
    "RELEASE_ACCESS",
    "RELEASE_COLUMNS",
    "RETRY_SECONDS",
    "SECRET_COLUMNS",
    "STATUSES",
    "TABLE",
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
    "register_release",
    "registered_releases",
    "runs_frame",
    "set_aside_files",
    "to_json",
]
