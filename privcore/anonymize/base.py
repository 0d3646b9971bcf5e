"""What every anonymization algorithm shares: the prepared problem, the Release, progress.

The pieces live in :mod:`privcore.anonymize.problem` (:func:`prepare`, the checks),
:mod:`privcore.anonymize.release` (:class:`Release`) and
:mod:`privcore.anonymize.finish` (:func:`finish`); this module gathers them with the
progress clock, so that an algorithm imports from one place.

One signature for the whole family (ARCHITECTURE.md)::

    anonymize(df, schema, constraints, *, max_suppression, seed, progress=None) -> Release

``constraints`` are privacy-model objects of :mod:`privcore.models`; ``max_suppression``
is the share of rows (0–1) that may be suppressed — shown with every QI as ``*``,
counted, never dropped (SPEC §2); ``progress(fraction, message)`` is called between
steps and may raise :class:`~privcore.errors.CancelledError` to stop the work.

Frequency sets (SPEC §9). ``weights`` (int64 ≥ 1 per row; None: each row one record)
make ``df`` a frequency set, as an engine computes it from a table too large for
memory: row i stands for ``weights[i]`` records identical in every QI and SA. Every
count is then a count of records — the suppression budget, class sizes, the models,
the loss — and the release's frame, one row per row of ``df``, is the mapping the
engine joins with the table to write the records (:meth:`Release.export` refuses it).
The full-domain searches and Mondrian give the release of the expanded table; KACA
and condensation release records one by one and need them (weights > 1 refused).

Missing values, one rendering in every release. A missing quasi-identifier value is
one value of its own (SPEC §1, §9), in no hierarchy, so it is generalized only to the
top: where its class shows it alone it is released as itself, a missing cell (an empty
cell in a written file); where a class of Mondrian mixes it with other values its cell
names it ``NA`` (:data:`privcore.data.cells.MISSING_TEXT`) inside the set or after the
range or value (``{a,NA}``, ``[20-29],NA``, ``45.5,NA``); at the top it is ``*``. The
loader reads an empty cell and a lone ``NA`` as missing, and the released-cell grammar
(:mod:`privcore.data.cells`) reads the other forms, so a written release read back has
the classes it was made with (``tests/unit/test_missing_in_releases.py``).
"""

from __future__ import annotations

import time

from privcore.anonymize.finish import categorical_text, finish, suppress
from privcore.anonymize.problem import (
    LOCAL_RECODING_ROWS_ENV,
    ClassChecker,
    Problem,
    check_feasible,
    check_local_recoding_cost,
    checked_weights,
    local_recoding_row_limit,
    prepare,
    records_only,
    require_local_recoding,
    suppression_over_limit,
)
from privcore.anonymize.release import (
    GENERALIZATION_LOSS,
    SPEC_FORMAT,
    LatticeTrace,
    Release,
    weighted_fingerprint,
)
from privcore.core.progress import Progress
from privcore.core.progress import report as report_progress

__all__ = [
    "GENERALIZATION_LOSS",
    "LOCAL_RECODING_ROWS_ENV",
    "PROGRESS_INTERVAL",
    "SPEC_FORMAT",
    "ClassChecker",
    "LatticeTrace",
    "Problem",
    "Progress",
    "ProgressClock",
    "Release",
    "categorical_text",
    "check_feasible",
    "check_local_recoding_cost",
    "checked_weights",
    "finish",
    "local_recoding_row_limit",
    "prepare",
    "records_only",
    "report_progress",
    "require_local_recoding",
    "suppress",
    "suppression_over_limit",
    "weighted_fingerprint",
]

PROGRESS_INTERVAL = 0.1  # seconds between two progress reports of a long loop


class ProgressClock:
    """Progress reports from a loop, at most every ``interval`` seconds.

    ``due()`` is cheap (one clock read), so a loop asks it at every step and reports
    only when it is due: the caller hears from the work several times a second — and
    can cancel it then (its callback may raise CancelledError) — however long or short
    the steps are.
    """

    def __init__(self, progress: Progress | None, interval: float | None = None) -> None:
        self.progress = progress
        self.interval = PROGRESS_INTERVAL if interval is None else interval
        self._last = time.perf_counter()

    def due(self) -> bool:
        return self.progress is not None and time.perf_counter() - self._last >= self.interval

    def report(self, fraction: float, message: str) -> None:
        report_progress(self.progress, fraction, message)
        self._last = time.perf_counter()
