"""An audit's memory: the plan that checks, before any work, that it fits the budget of
one audit (``PRIVCORE_AUDIT_MEMORY_MB``) and sizes its chunks (:func:`memory_plan`), and
the release of its memory afterwards (:func:`release_memory`), with the heavy-work slot
every audit runs in.

The cost model: one chunk needs reports × (the mechanism's bytes per report and per
output coordinate, measured, plus the auditor's per-number work); a measure keeps
across chunks only its tables (OB's per-input × coordinate × value/bin counts, the
black-box bound's per-coordinate counts and score histograms).
"""

from __future__ import annotations

import ctypes
import functools
import gc
import math
import sys
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from privcore.config import limits
from privcore.core.slots import heavy_slot
from privcore.errors import ParameterError
from privcore.ldp.base import Mechanism

CHUNK_ELEMENTS = 1 << 19
CHUNK_BYTES = 32 << 20
"""A chunk of reports holds at most CHUNK_ELEMENTS numbers and CHUNK_BYTES of working
memory (fewer when the budget demands): tens of milliseconds of sampling, so progress
(and a cancel request) is seen several times a second."""
MIN_CHUNK_ELEMENTS = 1 << 14
"""The smallest useful chunk (or one report, when a report is wider): below it the
fixed cost of a step dominates."""

_FINE_BINS = 512  # grid points per coordinate for continuous outputs
_HIST_GROUP = 8  # fine bins per histogram bin (64 histogram bins)
_SCORE_BINS = 4096  # resolution of the black-box bound's score thresholds

# Bytes per table cell kept by OB (two halves, two density sets, the whole pmf, the
# bootstrap's resample and densities, per-pair log-ratio temporaries; KDE adds its FFT
# buffers and the second estimator's densities) and by the black-box bound.
_OB_CELL_BYTES = {"discrete": 96, "continuous": 176}
_LEARN_CELL_BYTES = 64
# Bytes per output number the auditor adds to a chunk (vectors as float32 are counted
# by the mechanism): value codes, bin indices and their halves; the learned score.
_AUDIT_NUMBER_BYTES = {"ob-discrete": 24, "ob-continuous": 48, "lb-black": 48, "event": 0}
_AUDIT_REPORT_BYTES = 64  # inputs, half masks, events, scores per report
_BASE_BYTES = 32 << 20  # allocator and library working space of any audit (measured ≤ 30 MB)
_SAMPLE_NUMBER_BYTES = 24  # uploaded samples: float64 matrix, per-input and split copies


def memory_budget_mb() -> int:
    """The working memory one audit may use, in MB (``PRIVCORE_AUDIT_MEMORY_MB``)."""
    return limits().audit_memory_mb


@dataclass(frozen=True)
class MemoryPlan:
    """How an audit fits its memory budget: reports per chunk, the bytes one chunk
    needs while it is processed, and the bytes kept across chunks (plus a fixed base)."""

    budget: int
    chunk_rows: int
    chunk_bytes: int
    kept_bytes: int

    @property
    def peak(self) -> int:
        return _BASE_BYTES + self.chunk_bytes + self.kept_bytes


def _ob_input_count(mechanism: Mechanism, inputs: Any, d: int | None = None) -> int:
    """How many inputs OB compares (see :func:`~privcore.ldp.audit.blackbox._ob_inputs`),
    without drawing them."""
    if inputs is not None and inputs != "sample":
        return max(len(dict.fromkeys(inputs)), 2)
    if mechanism.family == "frequency":
        d = int(d if d is not None else mechanism.d)
        if inputs is None and d <= 10:
            return d
        return min(max(math.ceil(math.log(d)), 2), d)
    return 5


def _demand(method: str, mechanism: Mechanism, d: int | None, inputs: int) -> tuple[int, int, int]:
    """(numbers per report, bytes per report in a chunk, bytes kept) of ``method``
    ("ab", "lb", "ob", "lb-black") on ``mechanism`` with domain size d and ``inputs``
    inputs compared (OB)."""
    kind = mechanism.output_kind
    width = 1 if kind in ("category", "real") else int(d or 1)
    per_report = mechanism.report_bytes + width * mechanism.coordinate_bytes
    per_report += _AUDIT_REPORT_BYTES
    continuous = kind in ("real", "reals")
    if method == "ob":
        per_report += width * _AUDIT_NUMBER_BYTES["ob-continuous" if continuous else "ob-discrete"]
        values = _FINE_BINS if continuous else (int(d) if kind == "category" else 2)
        kept = inputs * width * values * _OB_CELL_BYTES["continuous" if continuous else "discrete"]
        return width, per_report, kept
    if method == "lb-black":
        per_report += width * _AUDIT_NUMBER_BYTES["lb-black"]
        values = _FINE_BINS // _HIST_GROUP if continuous else (int(d) if kind == "category" else 2)
        kept = 2 * width * values * _LEARN_CELL_BYTES + 4 * _SCORE_BINS * 8
        return width, per_report, kept
    return width, per_report, 0


def _fit(width: int, per_report: int, kept: int, n: int, budget: int) -> MemoryPlan | None:
    """The chunk size for a budget, or None when the smallest useful chunk does not fit."""
    smallest = max(1, min(n, MIN_CHUNK_ELEMENTS // width))
    free = budget - _BASE_BYTES - kept
    if smallest * per_report > free:
        return None
    rows = max(min(n, CHUNK_ELEMENTS // width, CHUNK_BYTES // per_report, free // per_report), 1)
    rows = max(rows, smallest)
    return MemoryPlan(budget, rows, rows * per_report, kept)


def memory_plan(
    method: str,
    mechanism: Mechanism,
    *,
    n: int,
    inputs: Any = None,
    mode: str = "white",
) -> MemoryPlan:
    """Check, before any work, that an audit fits the memory budget and size its chunks.

    The cost model: one chunk needs reports × (the mechanism's bytes per report and per
    output coordinate, measured, plus the auditor's per-number work), and a measure keeps
    across chunks only its tables — OB inputs × coordinates × values (or 512 grid
    points) cells, the black-box bound 2 × coordinates × values cells and its score
    histograms, AB and the white-box bound a few counts. Raises ParameterError
    (``ldp.memory_budget``) naming the largest domain size (and, for OB, number of
    inputs) that would fit.
    """
    name = "lb-black" if method == "lb" and mode == "black" else method
    budget = memory_budget_mb() * 2**20
    count = _ob_input_count(mechanism, inputs) if name == "ob" else 2
    plan = _fit(*_demand(name, mechanism, mechanism.d, count), n, budget)
    if plan is not None:
        return plan
    width, per_report, kept = _demand(name, mechanism, mechanism.d, count)
    need = _BASE_BYTES + kept + max(1, min(n, MIN_CHUNK_ELEMENTS // width)) * per_report
    params: dict[str, Any] = {"need_mb": _mb(need), "budget_mb": memory_budget_mb()}
    advice = []
    if kept:
        params["tables_mb"] = _mb(kept)
    if mechanism.family == "frequency":

        def fits_domain(d: int) -> bool:
            at = _ob_input_count(mechanism, inputs, d) if name == "ob" else 2
            return _fit(*_demand(name, mechanism, d, at), n, budget) is not None

        largest = _largest(2, int(mechanism.d) - 1, fits_domain)
        if largest is not None:
            params["max_domain"] = largest
            advice.append(f"lower the domain size d to at most {largest:,}")
    if name == "ob" and count > 2:
        largest = _largest(
            2,
            count - 1,
            lambda k: _fit(*_demand(name, mechanism, mechanism.d, k), n, budget) is not None,
        )
        if largest is not None and "max_domain" in params:
            params["max_inputs"] = largest
            advice.append(f"compare at most {largest} inputs")
    if kept and "max_domain" in params:
        advice.append("or use AB or the white-box lower bound, which keep only counts")
    tables = f" ({_mb(kept):,} MB of it for the tables this measure keeps)" if kept else ""
    text = (
        f"This audit would need about {_mb(need):,} MB of memory{tables}, above this "
        f"installation's budget of {memory_budget_mb():,} MB per audit "
        "(PRIVCORE_AUDIT_MEMORY_MB): "
        + (
            ", ".join(advice)
            if advice
            else f"no smaller audit of this kind fits; it needs a budget of {_mb(need):,} MB"
        )
        + "."
    )
    raise ParameterError(text, code="ldp.memory_budget", **params)


def _largest(lo: int, hi: int, fits: Callable[[int], bool]) -> int | None:
    """The largest k in [lo, hi] with fits(k), for a monotone (decreasing) predicate."""
    if hi < lo or not fits(lo):
        return None
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid - 1)
    return lo


def _mb(size: int) -> int:
    return max(1, math.ceil(size / 2**20))


def _samples_plan(rows: int, width: int, kept: int, budget: int) -> MemoryPlan:
    """Uploaded samples: the table (as float64, per input and split) plus the measure's
    tables must fit; chunks of the stored samples are read like generated ones."""
    data = rows * width * _SAMPLE_NUMBER_BYTES
    per_report = _AUDIT_REPORT_BYTES + width * _AUDIT_NUMBER_BYTES["lb-black"]
    plan = _fit(width, per_report, kept + data, rows, budget)
    if plan is None:
        fits = _largest(
            100,
            rows - 1,
            lambda r: (
                _fit(width, per_report, kept + r * width * _SAMPLE_NUMBER_BYTES, r, budget)
                is not None
            ),
        )
        need = (
            _BASE_BYTES + kept + data + max(1, min(rows, MIN_CHUNK_ELEMENTS // width)) * per_report
        )
        params: dict[str, Any] = {"need_mb": _mb(need), "budget_mb": memory_budget_mb()}
        advice = "use fewer output columns"
        if fits is not None:
            params["max_rows"] = fits
            advice = f"use at most {fits:,} rows"
        raise ParameterError(
            f"Auditing these samples would need about {_mb(need):,} MB of memory, above "
            f"this installation's budget of {memory_budget_mb():,} MB per audit "
            f"(PRIVCORE_AUDIT_MEMORY_MB): {advice}.",
            code="ldp.memory_budget",
            **params,
        )
    return plan


_scope = threading.local()


def _releasing(func: Callable) -> Callable:
    """Run an audit and give its memory back afterwards (outermost call only): glibc's
    ``malloc_trim`` returns the freed heap to the system. When the audit stops early (a
    cancel raised by the progress callback, an error), the frames of the unwound calls
    are cleared first, so their tensors are freed although the exception still holds
    its traceback, and ``gc`` collects what they left (a full collection costs ~0.2 s
    with torch loaded: not worth it after an audit that returned normally, whose
    tensors are freed by reference counting)."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        depth = getattr(_scope, "depth", 0)
        _scope.depth = depth + 1
        stopped = False
        try:
            return func(*args, **kwargs)
        except BaseException as exc:
            stopped = True
            traceback.clear_frames(exc.__traceback__)
            raise
        finally:
            _scope.depth = depth
            if depth == 0:
                release_memory(collect=stopped)

    return wrapper


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


def release_memory(*, collect: bool = True) -> None:
    """Return the C heap's free memory to the system (glibc), after collecting garbage
    when ``collect``."""
    if collect:
        gc.collect()
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


def _one_at_a_time(func: Callable[..., Any]) -> Callable[..., Any]:
    """Run ``func`` in one of the process's heavy-work slots
    (:func:`privcore.core.slots.heavy_slot`; unlimited unless
    ``PRIVCORE_MAX_HEAVY_JOBS`` is set, as on the hosted demo)."""

    @functools.wraps(func)
    def in_a_slot(*args: Any, **kwargs: Any) -> Any:
        with heavy_slot(kwargs.get("progress"), "audit"):
            return func(*args, **kwargs)

    return in_a_slot
