"""One progress bar for every page, fed by privcore's ``progress(fraction, message)``.

Every callback is a point where Streamlit honours a stop (Cancel, a widget moved, a
closed tab): reading the session state is one, so long work stops between two steps.
The bar itself is redrawn at most every :data:`REPAINT_S` (and whenever its message
changes), so that work reporting many times a second does not flood the browser.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

import streamlit as st

from privcore.core.progress import Progress

REPAINT_S = 0.25  # the bar is redrawn at most this often (each redraw is a message)


class ProgressBar:
    """A bar over ``steps`` equal parts (one audit of several, one attack of two):
    :meth:`step` gives the library callback of one part; the bar itself is the
    callback of a single-step job."""

    def __init__(self, label: str, steps: int = 1, *, slot=None) -> None:
        self.label = label
        self.steps = max(int(steps), 1)
        self._bar = (slot or st).progress(0.0, text=label)
        self._painted_at = 0.0
        self._painted_text = ""

    def step(self, index: int) -> Progress:
        def callback(fraction: float, message: str) -> None:
            _ = "lang" in st.session_state  # a stop point: a pending stop raises here
            text = f"{self.label}: {message}" if message else self.label
            now = time.monotonic()
            if now - self._painted_at < REPAINT_S and text == self._painted_text:
                return
            overall = (index + min(max(float(fraction), 0.0), 1.0)) / self.steps
            self._bar.progress(min(overall, 1.0), text=text)
            self._painted_at, self._painted_text = now, text

        return callback

    def __call__(self, fraction: float, message: str) -> None:
        self.step(0)(fraction, message)

    def empty(self) -> None:
        self._bar.empty()


@contextmanager
def progress_bar(label: str, steps: int = 1, *, slot=None) -> Iterator[ProgressBar]:
    """``with progress_bar(label) as bar: run(..., progress=bar)``: the bar is removed
    when the block ends, however it ends (done, failed or stopped). ``slot`` (an
    ``st.empty()`` the page draws on every run) keeps the page's layout the same with and
    without a bar, so tabs and expanders below it keep their state."""
    bar = ProgressBar(label, steps, slot=slot)
    try:
        yield bar
    finally:
        bar.empty()
