"""What the server adds around the app (``serve.py``): routes a visitor must not reach,
response headers, and housekeeping that gives a departed visitor's memory back.

- ``/_stcore/metrics`` answers 404: it would tell anyone how many sessions are open and
  what the caches hold (``PRIVCORE_EXPOSE_METRICS=1`` brings it back for an operator).
- Every HTTP response says ``Referrer-Policy: no-referrer`` and
  ``X-Content-Type-Options: nosniff``, and a Content-Security-Policy that lets images and
  fonts come only from this server: even a Markdown image that slipped through could not
  make the browser call another host (the pages escape user strings in the first place).
- Every ``PRIVCORE_HOUSEKEEPING_SECONDS`` (default 10) files no session refers to any
  more are dropped from the media store (downloads of visitors who left; Streamlit
  itself only does so when some script run ends, which on a quiet server can be never),
  and when sessions have ended, Python's garbage is collected and freed heap pages are
  handed back to the operating system (``malloc_trim``).
- When a session ends (its tab closed for ``server.disconnectedSessionTTL`` seconds),
  its state — the visitor's tables, releases and results — is emptied at once
  (:func:`forget_ended_sessions`). Streamlit's message loop keeps a reference to the
  last session it flushed until it flushes another one, so without this the data of
  the last visitor to leave a quiet server stayed in its memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import gc
import logging
import os
from collections.abc import AsyncIterator, Iterator
from typing import Any

log = logging.getLogger(__name__)

_BLOCKED = ("/_stcore/metrics",)
_HEADERS = (
    (b"referrer-policy", b"no-referrer"),
    (b"x-content-type-options", b"nosniff"),
    (
        b"content-security-policy",
        b"img-src 'self' data: blob:; font-src 'self' data:; object-src 'none'; "
        b"base-uri 'self'; frame-ancestors 'self'",
    ),
)


def _seconds() -> float:
    raw = os.environ.get("PRIVCORE_HOUSEKEEPING_SECONDS", "").strip()
    try:
        value = float(raw) if raw else 10.0
    except ValueError:
        value = 10.0
    return value if value > 0 else 10.0


class ServerGuard:
    """ASGI middleware: refuse the routes above, add the headers above."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "").rstrip("/")
        if os.environ.get("PRIVCORE_EXPOSE_METRICS") != "1" and path.endswith(_BLOCKED):
            await send(
                {
                    "type": "http.response.start",
                    "status": 404,
                    "headers": [(b"content-type", b"text/plain"), *_HEADERS],
                }
            )
            await send({"type": "http.response.body", "body": b"Not found"})
            return

        async def send_with_headers(message: dict) -> None:
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", [])}
                extra = [(n, v) for n, v in _HEADERS if n not in present]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_headers)


def _release_heap() -> None:
    gc.collect()
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    with contextlib.suppress(Exception):  # Arrow keeps freed buffers in its own pool
        import pyarrow

        pyarrow.default_memory_pool().release_unused()


def forget_ended_sessions() -> bool:
    """Make every session empty its state when it shuts down (installed once per
    process; True when installed by this call). A session's state holds the visitor's
    data: once the session has ended nothing may keep it, whatever still refers to the
    session object."""
    import functools

    from streamlit.runtime.app_session import AppSession

    original = AppSession.shutdown
    if getattr(original, "forgets_state", False):
        return False

    @functools.wraps(original)
    def shutdown(self: Any) -> None:
        original(self)
        state = getattr(self, "_session_state", None)
        if state is not None:
            with contextlib.suppress(Exception):  # a session mid-stop may race: best effort
                state.clear()
                # the widgets' metadata keeps their callbacks, and a callback the globals
                # of the page that drew it (its tables among them)
                widgets = getattr(state, "_new_widget_state", None)
                for part in ("states", "widget_metadata"):
                    held = getattr(widgets, part, None)
                    if isinstance(held, dict):
                        held.clear()

    shutdown.forgets_state = True  # type: ignore[attr-defined]
    AppSession.shutdown = shutdown
    return True


def end_expired_sessions(manager: Any, media: Any = None) -> int:
    """Shut down the departed sessions whose time to reconnect has passed; how many.

    Streamlit keeps a disconnected session for ``server.disconnectedSessionTTL`` seconds
    in case its tab comes back, then drops it from its store only when the store is next
    written to — without shutting it down, so its state stays wherever the session is
    still referred to. Here each such session is taken out of the store and shut down
    (its files dropped, its state emptied: :func:`forget_ended_sessions`).

    Each shutdown also asks the media store (``media``) to drop the files no session
    shows. A file made for a download on click belongs to no session, and the store
    drops such a file on its second pass: several shutdowns in a row would delete a
    download another visitor had just asked for before the browser fetched it. So the
    media store's pass is held off while the sessions end; the caller runs it once."""
    storage = getattr(manager, "_session_storage", None)
    expire = getattr(getattr(storage, "_cache", None), "expire", None)
    if not callable(expire):
        return 0
    ended = 0
    with _media_pass_held(media):
        for _, info in expire():
            with contextlib.suppress(Exception):  # one session that fails must not stop the rest
                info.session.shutdown()
                ended += 1
    return ended


@contextlib.contextmanager
def _media_pass_held(media: Any) -> Iterator[None]:
    """Within the block, ``media.remove_orphaned_files`` does nothing (see above)."""
    if media is None or not callable(getattr(media, "remove_orphaned_files", None)):
        yield
        return
    media.remove_orphaned_files = lambda: None  # an instance attribute hides the method
    try:
        yield
    finally:
        with contextlib.suppress(AttributeError):
            del media.remove_orphaned_files


def housekeeping_pass(previous_sessions: int | None) -> int | None:
    """One pass (see the module docstring); returns the number of sessions now."""
    from streamlit import runtime

    if not runtime.exists():
        return previous_sessions
    instance = runtime.get_instance()
    manager = getattr(instance, "_session_mgr", None)
    ended = end_expired_sessions(manager, instance.media_file_mgr)
    instance.media_file_mgr.remove_orphaned_files()
    sessions = manager.num_sessions() if manager is not None else None
    if ended:
        previous_sessions = None  # memory to give back
    if sessions is None or previous_sessions is None or sessions < previous_sessions:
        _release_heap()
    return sessions


@contextlib.asynccontextmanager
async def lifespan(_app: Any) -> AsyncIterator[None]:
    """Run :func:`housekeeping_pass` in the background while the server is up, and start
    the worker processes of heavy work (:func:`privcore.core.workers.warm`)."""

    async def loop() -> None:
        sessions: int | None = 0
        while True:
            await asyncio.sleep(_seconds())
            try:
                sessions = await asyncio.to_thread(housekeeping_pass, sessions)
            except Exception:  # housekeeping must never stop the server
                log.exception("Housekeeping pass failed")

    forget_ended_sessions()
    task = asyncio.create_task(loop())
    from privcore.core import workers

    try:  # worker processes started now, not on the first visitor's run
        await asyncio.to_thread(workers.warm, ("privcore.runs",))
    except Exception:  # a server without workers still serves: runs compute in place
        log.exception("Could not start the worker processes")
    try:
        yield
    finally:
        task.cancel()
