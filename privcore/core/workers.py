"""Heavy work in a worker process, so that the caller's thread waits without the GIL.

A server that hosts many visitors in one process (the Streamlit demo) runs every page in
a thread of that process: a search, a measurement or an attack computed there holds the
interpreter while it runs in Python, and every other visitor's page waits for it. Run in
a worker process instead, the computation takes a core of its own and the page's thread
only waits on a socket, so the other visitors' pages run meanwhile.

:func:`call_in_worker` runs ``fn(*args, progress=…, **kwargs)`` in a worker process and
returns its result. Workers are fresh interpreters (``python -m privcore.core.workers``,
numpy, pandas and privcore imported once), kept for the next job once they answer: a job
costs the pickling of its inputs and result, not an interpreter's start. (Not
``multiprocessing``: its children re-run the parent's ``__main__``, which in a Streamlit
server is the page being run.) Progress reports come back over the socket and are passed
to the caller's ``progress``, which may raise to cancel: that worker is then killed at
once. A user's error (:class:`~privcore.errors.PrivcoreError`) raised in the worker is
raised again in the caller, with its code and parameters; a worker that dies without an
answer (killed, out of memory) raises :class:`WorkerError`.

Whether runs use workers is a setting (``PRIVCORE_WORKERS=1``: the hosted demo and
``make run`` set it; the command line and the library default to running in place), and
only tables of at least ``PRIVCORE_WORKER_MIN_ROWS`` rows (default 5,000) go to a worker:
below that, the pickling costs more than it saves. A front end may add a test of its own
(:func:`use_when`): the app sends work to a worker only while another visitor's page is
running, since a visitor alone waits less for work done in place. At most ``PRIVCORE_MAX_WORKERS``
workers (default: the number of cores) run at once; a further job waits for one to end
(its progress says so, and a cancel still ends the wait), so that memory and cores stay
bounded however many visitors start work together.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from privcore.errors import PrivcoreError

__all__ = [
    "WorkerError",
    "call_in_worker",
    "enabled",
    "max_idle_mb",
    "max_workers",
    "min_rows",
    "use_when",
    "wanted",
    "warm",
]

#: How often the waiting caller repeats the last progress report when the child sends
#: none, so that a cancel (raised by the caller's progress) still gets through.
BEAT_S = 0.25
#: The child sends at most this many progress reports a second (the last one always).
REPORTS_PER_S = 10


class WorkerError(PrivcoreError):
    """A worker process ended without an answer (killed, or out of memory)."""

    default_code = "runs.worker_died"


def enabled() -> bool:
    """``PRIVCORE_WORKERS`` is set to 1 (or yes/true/on)."""
    return os.environ.get("PRIVCORE_WORKERS", "").strip().lower() in {"1", "yes", "true", "on"}


def min_rows() -> int:
    """``PRIVCORE_WORKER_MIN_ROWS`` (default 5,000): smaller tables are computed in place."""
    raw = os.environ.get("PRIVCORE_WORKER_MIN_ROWS", "").strip()
    return int(raw) if raw.isdigit() else 5_000


_contended: Callable[[], bool] | None = None


def use_when(contended: Callable[[], bool] | None) -> None:
    """Send work to a worker only while ``contended()`` is true — a front end's test of
    whether anyone else is waiting for this process (the app's: another visitor's page is
    running now). Alone, a run in place is quicker: nothing to pickle. ``None``: always."""
    global _contended
    _contended = contended


def wanted(rows: int | None) -> bool:
    """Should work on a table of ``rows`` rows go to a worker (the setting is on, the
    table is large enough, and the front end's :func:`use_when` test, if any, says so)?"""
    if not (enabled() and rows is not None and rows >= min_rows()):
        return False
    return _contended is None or bool(_contended())


def max_workers() -> int:
    """``PRIVCORE_MAX_WORKERS`` (default: the number of cores)."""
    raw = os.environ.get("PRIVCORE_MAX_WORKERS", "").strip()
    return max(1, int(raw)) if raw.isdigit() else max(1, os.cpu_count() or 1)


_slots_lock = threading.Lock()
_slots: dict[int, threading.BoundedSemaphore] = {}


def _slot(limit: int) -> threading.BoundedSemaphore:
    with _slots_lock:
        if limit not in _slots:
            _slots[limit] = threading.BoundedSemaphore(limit)
        return _slots[limit]


#: Where privcore is imported from: the workers import the same code.
_ROOT = str(Path(__file__).resolve().parents[2])
_idle_lock = threading.Lock()
_idle: list[_Worker] = []


class _Worker:
    """One worker process and the caller's end of its socket."""

    def __init__(self, preload: tuple[str, ...] = ()) -> None:
        mine, theirs = socket.socketpair()
        path = os.pathsep.join(p for p in (_ROOT, os.environ.get("PYTHONPATH", "")) if p)
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "privcore.core.workers", str(theirs.fileno()), *preload],
                pass_fds=[theirs.fileno()],
                stdin=subprocess.DEVNULL,
                env={**os.environ, "PYTHONPATH": path},
                cwd=_ROOT,
            )
        finally:
            theirs.close()
        self.connection = Connection(mine.detach())

    def alive(self) -> bool:
        return self.process.poll() is None

    def kill(self) -> None:
        with contextlib.suppress(OSError):
            self.connection.close()
        if self.alive():
            self.process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(2.0)


def _take() -> _Worker:
    with _idle_lock:
        while _idle:
            worker = _idle.pop()
            if worker.alive():
                return worker
            worker.kill()
    return _Worker()


def max_idle_mb() -> int:
    """``PRIVCORE_WORKER_MAX_IDLE_MB`` (default 250): a worker whose resident memory is
    above this after a job is ended rather than kept idle — a job that imported torch or
    grew the heap leaves memory that ``malloc_trim`` does not give back (a fresh worker
    holds about 150 MB)."""
    raw = os.environ.get("PRIVCORE_WORKER_MAX_IDLE_MB", "").strip()
    return max(1, int(raw)) if raw.isdigit() else 250


def _resident_mb(pid: int) -> float:
    """The resident memory of process ``pid`` in MB (0 when it cannot be read)."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0.0


def _give_back(worker: _Worker) -> None:
    with _idle_lock:
        small = _resident_mb(worker.process.pid) <= max_idle_mb()
        if small and len(_idle) < max_workers():
            _idle.append(worker)
            return
    worker.kill()


def warm(preload: tuple[str, ...] = ()) -> int:
    """Start idle workers up to :func:`max_workers`, each importing the modules named in
    ``preload`` (a server calls this at start-up, so that the first visitor's run does not
    wait for an interpreter to start). Returns how many are idle."""
    if not enabled():
        return 0
    with _idle_lock:
        missing = max_workers() - len(_idle)
    started = [_Worker(preload) for _ in range(max(0, missing))]
    with _idle_lock:
        _idle.extend(started)
        return len(_idle)


def call_in_worker(
    fn: Callable[..., Any],
    *args: Any,
    progress: Callable[[float, str], None] | None = None,
    **kwargs: Any,
) -> Any:
    """``fn(*args, progress=…, **kwargs)`` computed in a worker process (see the module
    docstring). ``fn`` and its arguments must pickle (module-level functions, data)."""
    slot = _slot(max_workers())
    while not slot.acquire(timeout=BEAT_S):
        if progress is not None:
            progress(0.0, "Waiting for a free worker: other work is running on this server")
    try:
        return _call(fn, args, kwargs, progress)
    finally:
        slot.release()


def _call(fn: Callable[..., Any], args: tuple, kwargs: dict, progress) -> Any:
    worker = _take()
    answered = False
    try:
        try:
            worker.connection.send((fn, args, kwargs))
        except (OSError, EOFError):
            raise _died(worker) from None
        last: tuple[float, str] = (0.0, "")
        while True:
            if worker.connection.poll(BEAT_S):
                try:
                    kind, payload = worker.connection.recv()
                except (OSError, EOFError):
                    raise _died(worker) from None
                if kind == "progress":
                    last = payload
                    if progress is not None:
                        progress(*payload)
                    continue
                answered = True
                if kind == "done":
                    return payload
                raise payload
            if not worker.alive():
                raise _died(worker)
            if progress is not None:
                progress(*last)  # no news: let a cancel through
    finally:
        if answered:
            _give_back(worker)
        else:  # cancelled, or the worker is gone: never reuse it mid-job
            worker.kill()


def _died(worker: _Worker) -> WorkerError:
    with contextlib.suppress(subprocess.TimeoutExpired):
        worker.process.wait(1.0)
    return WorkerError(
        "The computation stopped without an answer (its process ended, perhaps out of "
        "memory). Try a smaller table or fewer columns.",
        exitcode=worker.process.returncode,
    )


# --------------------------------------------------------------------------- the worker


def _serve(fd: int) -> None:
    """A worker's loop: read a job, run it, send ("progress", (fraction, message))
    reports, then ("done", result) or ("error", exception); free memory; repeat until the
    caller closes the socket."""
    connection = Connection(fd)
    while True:
        try:
            fn, args, kwargs = connection.recv()
        except EOFError:
            return
        _run(connection, fn, args, kwargs)
        del fn, args, kwargs
        gc.collect()
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL("libc.so.6").malloc_trim(0)


def _run(connection: Connection, fn: Callable[..., Any], args: tuple, kwargs: dict) -> None:
    last = [0.0]

    def progress(fraction: float, message: str = "") -> None:
        now = time.monotonic()
        if now - last[0] >= 1 / REPORTS_PER_S or fraction >= 1.0:
            last[0] = now
            connection.send(("progress", (float(fraction), str(message))))

    try:
        result = fn(*args, progress=progress, **kwargs)
    except Exception as exc:  # noqa: BLE001 - every failure goes back to the caller
        _send_error(connection, exc)
        return
    try:
        connection.send(("done", result))
    except Exception as exc:  # noqa: BLE001 - a result that does not pickle
        _send_error(connection, exc)


def _send_error(connection: Connection, exc: Exception) -> None:
    try:
        connection.send(("error", exc))
    except Exception:  # noqa: BLE001 - an exception that does not pickle
        connection.send(("error", RuntimeError(f"{type(exc).__name__} in a worker")))


if __name__ == "__main__":
    import importlib

    for name in ("numpy", "pandas", *sys.argv[2:]):  # imported once per worker, not per job
        importlib.import_module(name)
    _serve(int(sys.argv[1]))
