"""Progress of long work, the one type every part of privcore takes.

Long work accepts ``progress=None`` or a callable ``progress(fraction, message)`` with a
fraction in [0, 1]. Pages wire it to a progress bar, the command line to a terminal bar.
A callback may raise (:class:`~privcore.errors.CancelledError`, or a front end's own
stop signal): that is how work is cancelled between two steps, so long loops report
often — several times a second.
"""

from __future__ import annotations

from collections.abc import Callable

Progress = Callable[[float, str], None]
"""``progress(fraction, message)``: how far the work is, in [0, 1], and what it does."""


def report(progress: Progress | None, fraction: float, message: str) -> None:
    """Call ``progress`` (when given) with ``fraction`` clamped to [0, 1]."""
    if progress is not None:
        progress(min(max(float(fraction), 0.0), 1.0), message)


class Stage:
    """A caller's progress over the part [start, stop] of its bar, never moving back.

    ``Stage(progress)(0.5, "…")`` reports half way; :meth:`part` gives a sub-stage (the
    second half of a job, one of several inputs) sharing the same monotone bar;
    :meth:`beat` repeats the last report, for loops that have no natural fraction but
    must still let a cancel through.
    """

    def __init__(self, callback: Progress | None, start: float = 0.0, stop: float = 1.0):
        self.callback = callback
        self.start, self.stop = start, stop
        self._last: list = [start, ""]  # shared with sub-stages: one monotone bar

    def __call__(self, fraction: float, message: str) -> None:
        if self.callback is None:
            return
        value = self.start + (self.stop - self.start) * min(max(float(fraction), 0.0), 1.0)
        value = max(value, self._last[0])
        self._last[0], self._last[1] = value, message
        self.callback(min(value, 1.0), message)

    def beat(self) -> None:
        if self.callback is not None:
            self.callback(min(self._last[0], 1.0), str(self._last[1]))

    def part(self, start: float, stop: float) -> Stage:
        span = self.stop - self.start
        child = Stage(self.callback, self.start + span * start, self.start + span * stop)
        child._last = self._last
        return child
