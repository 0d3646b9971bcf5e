"""A limit on how many heavy computations one process runs at once.

A server that hosts many visitors in one process (the Streamlit demo) gives each page
run its own thread. Two visitors who each start an audit that keeps both cores busy
would slow every other visitor's page several-fold; with ``PRIVCORE_MAX_HEAVY_JOBS=1``
the second audit waits for the first one (its progress says so, and Cancel still stops
it while it waits), so one core stays free for everyone else. Unset (the default on a
workstation, and for the command line) means no limit.

Slots are re-entrant in one thread: an audit that calls other audits (a sweep) holds one
slot, not several.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

WAIT_STEP_S = 0.25  # how often a waiting job reports (and can be cancelled)

_lock = threading.Lock()
_semaphores: dict[int, threading.BoundedSemaphore] = {}
_held = threading.local()


def max_heavy_jobs() -> int:
    """``PRIVCORE_MAX_HEAVY_JOBS`` (0 or unset: no limit)."""
    raw = os.environ.get("PRIVCORE_MAX_HEAVY_JOBS", "").strip()
    return int(raw) if raw.isdigit() else 0


def _semaphore(limit: int) -> threading.BoundedSemaphore:
    with _lock:
        if limit not in _semaphores:
            _semaphores[limit] = threading.BoundedSemaphore(limit)
        return _semaphores[limit]


@contextmanager
def heavy_slot(
    progress: Callable[[float, str], None] | None = None, what: str = "work"
) -> Iterator[None]:
    """Hold one of the process's heavy-work slots for the ``with`` block, waiting for
    one if all are taken (reporting through ``progress`` every :data:`WAIT_STEP_S`, so
    that a progress callback that raises — a cancel — ends the wait)."""
    limit = max_heavy_jobs()
    depth = getattr(_held, "depth", 0)
    if limit <= 0 or depth > 0:
        _held.depth = depth + 1
        try:
            yield
        finally:
            _held.depth = depth
        return
    semaphore = _semaphore(limit)
    while not semaphore.acquire(timeout=WAIT_STEP_S):
        if progress is not None:
            progress(0.0, f"Waiting for a free slot: other {what} is running on this server")
    _held.depth = 1
    try:
        yield
    finally:
        _held.depth = 0
        semaphore.release()
