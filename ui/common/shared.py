"""Results shared by every session of one server: work on the bundled (public) samples.

A bundled sample is the same table for every visitor, so a result computed from it with
the same request (a release, a voter roll, a measurement, an attack, a report) is the
same for every visitor too. One process-wide cache keeps the newest few; the first
session to ask computes, the others wait for it and take its result. Nothing derived
from a visitor's upload ever goes here: :func:`shared_run_inputs` shares a run only
when the original is a bundled sample and the release was made from it in the app.

Every visitor's run is still recorded in the history as their own, marked
``cached: true`` and without the compute time (``seconds``) it did not spend.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import json
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from privcore.core import workers
from privcore.runs import Inputs
from privcore.runs.requests import Request
from ui.common.i18n import t_plain
from ui.common.state import is_bundled

__all__ = [
    "SHARED_SIZE",
    "ObjectMemo",
    "clear",
    "serve",
    "share_release_run",
    "shared_compute",
    "shared_run_inputs",
    "size",
]

#: The name Streamlit gives the thread of every page run (one thread per run).
_PAGE_THREAD = "ScriptRunner.scriptThread"


def other_pages_running() -> bool:
    """Is another page running in this server right now (another visitor's, or another
    tab's)? Heavy work goes to a worker process only then (``PRIVCORE_WORKERS``): alone,
    a visitor waits less for work done in place."""
    return sum(1 for thread in threading.enumerate() if thread.name == _PAGE_THREAD) > 1


workers.use_when(other_pages_running)

#: How many results the cache keeps (least recently used dropped first).
SHARED_SIZE = 32
_shared: OrderedDict[str, tuple] = OrderedDict()
_shared_lock = threading.Lock()
_computing: dict[str, threading.Lock] = {}


def shared_compute(key: str, work: Callable[[], Any], progress) -> tuple[Any, bool]:
    """``work()`` once per ``key`` in this process: the first session computes it while
    the others wait (their progress says so, and Cancel still stops them). Returns the
    result and whether it came from the cache."""
    with _shared_lock:
        lock = _computing.setdefault(key, threading.Lock())
    # Poll rather than block, so that this session's own reruns (a slider moved, Cancel)
    # still interrupt it at the progress call.
    while not lock.acquire(timeout=0.2):
        if progress is not None:
            progress(0.0, t_plain("an.waiting_shared"))
    try:
        with _shared_lock:
            if key in _shared:
                _shared.move_to_end(key)
                return _shared[key], True
        result = work()
        with _shared_lock:
            _shared[key] = result
            while len(_shared) > SHARED_SIZE:
                _shared.popitem(last=False)
        return result, False
    finally:
        lock.release()
        with _shared_lock:
            _computing.pop(key, None)


def size() -> int:
    """How many results the cache holds now."""
    with _shared_lock:
        return len(_shared)


def clear() -> None:
    """Forget every shared result (tests; a server keeps them until they are pushed out)."""
    with _shared_lock:
        _shared.clear()


def _fresh(result: Any) -> Any:
    """A cached result as this visitor's: a report's creation time is now."""
    if dataclasses.is_dataclass(result) and any(
        f.name == "created" for f in dataclasses.fields(result)
    ):
        return replace(result, created=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"))
    return result


def serve(key: str, work: Callable[[], tuple], progress) -> tuple:
    """The run computed by ``work()`` — ``(result, summary, ...)`` — for the key
    ``key`` of :func:`shared_run_inputs`, once per server (:func:`shared_compute`): the
    cache of shared results :func:`ui.common.heavy.run_heavy` gives
    :func:`privcore.runs.run`. A result served from the cache is this visitor's (a
    report's creation time is now) and its summary says ``cached: true``, without the
    compute time (``seconds``) this visitor did not spend."""
    (result, summary, *more), cached = shared_compute(key, work, progress)
    if cached:
        result = _fresh(result)
        summary = {k: v for k, v in summary.items() if k != "seconds"}
        summary["cached"] = True
    return (result, summary, *more)


def shared_run_inputs(request: Request, inputs: Inputs, *, public: bool, **what: Any) -> Inputs:
    """``inputs`` whose run of ``request`` is shared between sessions when ``public``
    (the original is a bundled sample and the release was made from it here): they carry
    the run's ``share_key``, which :func:`serve` computes its result once for; else
    ``inputs`` unchanged. ``what``: everything else the result depends on that the
    request and the inputs' description do not name (the release's fingerprint, how its
    rows pair, the roll's description), as JSON-able values."""
    if not public:
        return inputs
    original = inputs.original
    key = json.dumps(
        [
            type(request).__name__,
            request.to_dict(),
            None if original is None else original.fingerprint.sha256,
            None if inputs.schema is None else inputs.schema.to_dict(),
            inputs.describe(),
            inputs.aligned,
            inputs.shuffled,
            dict(inputs.algorithm) if inputs.algorithm else None,
            what,
        ],
        sort_keys=True,
        default=str,
    )
    return replace(inputs, share_key=key)


def share_release_run(
    request: Request, inputs: Inputs, entry: Any, *, public_inputs: bool = True, **what: Any
) -> Inputs:
    """:func:`shared_run_inputs` for a run on a shelf release ``entry``: shared when its
    original is a bundled sample, the release was made from it here (``entry.made_here``)
    and every other input is public too (``public_inputs``: no uploaded population or
    roll). ``what``: what else the result depends on (pairing, the roll's description)."""
    public = (
        public_inputs
        and entry is not None
        and entry.made_here
        and inputs.original is not None
        and is_bundled(inputs.original)
    )
    return shared_run_inputs(request, inputs, public=public, release=entry.fingerprint, **what)


class ObjectMemo:
    """Values computed from an object, kept as long as the object lives, by identity
    (tables and results are not hashable, and are never changed in place).

    A result of a bundled sample is one object shared by every session, so what is
    derived from it alone (its SHA-256, its PL matrix) is computed once per server; a
    visitor's own objects are only ever reached from their session.
    """

    def __init__(self) -> None:
        self._values: dict[int, tuple[weakref.ref, Any, Any]] = {}
        self._lock = threading.Lock()

    def get(self, obj: Any, key: Any, compute: Callable[[], Any]) -> Any:
        """The value for ``(obj, key)``: the kept one, else ``compute()`` (kept, one
        value per object: a new ``key`` replaces the old)."""
        with self._lock:
            ref, known_key, value = self._values.get(id(obj), (None, None, None))
        if ref is not None and ref() is obj and known_key == key:
            return value
        value = compute()
        with self._lock:
            self._values[id(obj)] = (
                weakref.ref(obj, functools.partial(self._forget, id(obj))),
                key,
                value,
            )
        return value

    def _forget(self, ident: int, _ref: weakref.ref) -> None:
        with self._lock:
            kept = self._values.get(ident)
            if kept is not None and kept[0] is _ref:
                del self._values[ident]

    def __len__(self) -> int:
        with self._lock:
            return len(self._values)
