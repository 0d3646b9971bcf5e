"""Where an audit's reports come from: its own seeded random stream (:func:`stream_seed`),
a mechanism's reports generated in chunks (:class:`_Reports`) or logged samples read in
chunks (:class:`_Logged`), the number of samples asked for (:func:`_check_n`), and the
counts of one event over an input's reports (:func:`_count_event`, :func:`_event_counts`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from privcore.core.progress import Stage
from privcore.errors import ParameterError
from privcore.ldp import counts as sufficient
from privcore.ldp.base import Mechanism
from privcore.ldp.device import torch_module


def stream_seed(seed: int, *parts: Any) -> int:
    """The generator seed of one audit: a stable hash (SHA-256) of the user's seed and
    what is audited — e.g. (mechanism, ε, domain, measure) — so audits with the same
    user seed draw independent noise, and a repeated request draws the same."""
    payload = json.dumps([int(seed), *[_plain_part(p) for p in parts]], ensure_ascii=True)
    digest = hashlib.sha256(payload.encode("ascii")).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def _plain_part(part: Any) -> Any:
    if isinstance(part, float):
        return repr(part)
    if isinstance(part, (int, str, bool, type(None))):
        return part
    return str(part)


def _mechanism_seed(seed: int, mechanism: Mechanism, method: str) -> int:
    return stream_seed(seed, mechanism.name, float(mechanism.epsilon), mechanism.d, method)


def _inputs_tensor(mechanism: Mechanism, value: Any, n: int, dev: str) -> Any:
    torch = torch_module()
    if mechanism.family == "frequency":
        return torch.full((n,), int(value), dtype=torch.int64, device=dev)
    return torch.full((n,), float(value), dtype=torch.float64, device=dev)


class _Reports:
    """Reports of a mechanism for given inputs, generated on demand in chunks from one
    seeded generator; :meth:`mark` and :meth:`rewind` replay the same reports (a pass
    that needs what a first pass learned, e.g. a grid, reads the same samples again
    instead of keeping them)."""

    def __init__(
        self,
        mechanism: Mechanism,
        values: Sequence[Any],
        rows: int,
        gen: Any,
        dev: str,
        *,
        vectors: bool,
    ) -> None:
        self.mechanism, self.values, self.rows = mechanism, list(values), rows
        self.gen, self.dev, self.vectors = gen, dev, vectors
        self._saved = gen.get_state()

    def chunks(self, index: int, count: int) -> Iterator[Any]:
        """The next ``count`` reports of input ``index``, in chunks."""
        done = 0
        while done < count:
            size = min(self.rows, count - done)
            batch = _inputs_tensor(self.mechanism, self.values[index], size, self.dev)
            outputs = self.mechanism.perturb(batch, self.gen)
            yield self.mechanism.vectors(outputs) if self.vectors else outputs
            done += size

    def mark(self) -> None:
        self._saved = self.gen.get_state()

    def rewind(self) -> None:
        self.gen.set_state(self._saved)


class _Logged:
    """Logged samples (one (n_i, c) tensor per input), read in order in chunks; the same
    interface as :class:`_Reports`."""

    def __init__(self, columns: list[Any], rows: int) -> None:
        self.columns, self.rows = columns, rows
        self.cursor = [0] * len(columns)
        self._saved = list(self.cursor)

    def chunks(self, index: int, count: int) -> Iterator[Any]:
        column = self.columns[index]
        stop = min(self.cursor[index] + count, int(column.shape[0]))
        while self.cursor[index] < stop:
            start = self.cursor[index]
            self.cursor[index] = min(start + self.rows, stop)
            yield column[start : self.cursor[index]]

    def mark(self) -> None:
        self._saved = list(self.cursor)

    def rewind(self) -> None:
        self.cursor = list(self._saved)


def _check_n(n: int, what: str = "samples") -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 100:
        raise ParameterError(
            f"The number of {what} must be an integer ≥ 100 (got {n}).",
            code="ldp.bad_samples",
            value=str(n),
        )
    cap = _max_samples()
    if n > cap:
        raise ParameterError(
            f"{n:,} {what} per input is above this installation's limit of {cap:,} "
            "(PRIVCORE_MAX_AUDIT_SAMPLES).",
            code="ldp.too_many_samples",
            value=n,
            limit=cap,
        )
    return int(n)


def _max_samples() -> int:
    import os

    raw = os.environ.get("PRIVCORE_MAX_AUDIT_SAMPLES", "").replace("_", "").strip()
    return int(raw) if raw.isdigit() and int(raw) > 0 else 5_000_000


def max_samples() -> int:
    """The most samples per input an audit draws on this installation
    (``PRIVCORE_MAX_AUDIT_SAMPLES``, default 5,000,000): the top of a page's inputs."""
    return _max_samples()


def _count_event(
    reports: _Reports, index: int, event: Callable, n: int, progress: Stage, message: str
) -> int:
    """Reports of input ``index`` falling in ``event``, counted chunk by chunk; for a
    frequency oracle (whose ``event`` is its own event for ``reports.values``) drawn at
    once, Binomial(n, P[S | input]) (:mod:`privcore.ldp.counts`)."""
    if sufficient.counts_events(reports.mechanism):
        v, w = reports.values
        total = sufficient.event_count(reports.mechanism, v, w, index, n, reports.gen)
        progress(1.0, message)
        return total
    total = 0
    done = 0
    for outputs in reports.chunks(index, n):
        total += int(event(outputs).sum().item())
        done += len(outputs)
        progress(done / n, message)
    return total


def _event_counts(
    mechanism: Mechanism,
    v: Any,
    w: Any,
    n: int,
    rows: int,
    gen: Any,
    dev: str,
    progress: Stage,
    label: str,
) -> tuple[int, int]:
    """(k_v, k_w): of n reports of input v, then n of input w (chunks of ``rows``), those
    falling in the mechanism's own event S(v, w) — the white-box measures' counts
    (:func:`_count_event`); ``label`` starts the progress messages."""
    event = mechanism.event(v, w)
    reports = _Reports(mechanism, [v, w], rows, gen, dev, vectors=False)
    k_v = _count_event(reports, 0, event, n, progress.part(0.0, 0.5), f"{label}: first input")
    k_w = _count_event(reports, 1, event, n, progress.part(0.5, 1.0), f"{label}: second input")
    return k_v, k_w
