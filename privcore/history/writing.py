"""Writing runs: :func:`record_run`, and :data:`recording` around a block of work.

Times are stored as ISO 8601 in UTC; parameters and results as JSON (:func:`to_json`).
The user's data itself is stored only when the caller passes ``data=``, that is when
the user opted in. A run that meets a locked file is set aside
(:mod:`privcore.history.pending`) and the call raises ``history.deferred``.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import time
import uuid
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

from privcore import __version__
from privcore.core.jsonsafe import dumps
from privcore.errors import CancelledError, HistoryError, ParameterError
from privcore.history.pending import (
    _add_pending,
    _retry_in_background,
    _set_aside,
    pending_runs,
)
from privcore.history.store import KINDS, STATUSES, TABLE, _connect, _deferred, _resolve

log = logging.getLogger(__name__)


def to_json(obj: Any) -> str:
    """JSON text of a run's parameters or results (:func:`privcore.core.jsonsafe.dumps`:
    numpy, pandas, dates, paths, sets, enums and ``to_dict()`` objects accepted; NaN and
    infinities become ``null``; anything else its ``str()``, so recording never fails)."""
    return dumps(obj)


def _json_or_none(obj: Mapping[str, Any] | None) -> str | None:
    return None if obj is None else to_json(obj)


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


def _check_run(kind: Any, status: Any) -> None:
    """A run's status is one of :data:`STATUSES` and its kind a non-empty text."""
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


def _times(
    started_at: dt.datetime | None, finished_at: dt.datetime | None, duration_s: float | None
) -> tuple[dt.datetime, dt.datetime, float]:
    """(start, end, seconds) of a run: the end defaults to now, the start to the end
    minus ``duration_s`` (or the end), the duration to end − start."""
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
    return started, finished, duration


def _insert(target: Path, record: Mapping[str, Any]) -> int:
    """Insert one run after the runs set aside earlier; return its id. A file locked for
    longer than the busy timeout sets the run aside and raises ``history.deferred``."""
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
    _check_run(kind, status)
    started, finished, duration = _times(started_at, finished_at, duration_s)
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
    return _insert(_resolve(path), record)


class RunRecorder:
    """Context manager that times a block of work and records it as one run.

    Made by :data:`recording`. Inside the block, set :attr:`results` (and, if the
    user opted in, :attr:`data`); :attr:`params` may also be updated. On exit the run
    is written with status ``"ok"``, ``"error"`` (with ``str(exc)``) or
    ``"cancelled"`` (:class:`~privcore.errors.CancelledError`, or a ``BaseException``
    such as ``KeyboardInterrupt`` or Streamlit's rerun/stop signals), and the
    exception, if any, propagates unchanged.

    A history that cannot be written never breaks the analysis: the
    :class:`HistoryError` is logged and kept in :attr:`history_error`, and
    :attr:`id` stays ``None``.

    Example::

        with recording("measure", params=p, dataset=d, page="measure") as run:
            report = measure(table, **p)
            run.results = report.summary()
        run.id  # the new run id (None if the history could not be written)
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


#: ``recording(kind, params=..., dataset=..., page=..., path=...)``: a :class:`RunRecorder`
#: that records the ``with`` block as one run (the name reads as what the block does).
recording = RunRecorder
