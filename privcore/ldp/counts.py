"""Counts of a mechanism's reports drawn directly from their law, without the reports.

Where an audit needs only counts — AB and the white-box bound count one event per input,
OB counts each output coordinate's values per input and half — a frequency oracle's
counts are drawn at once from their exact joint distribution (with NumPy: binomial,
multinomial and hypergeometric draws), in time independent of the number of reports n
and of order d instead of n·d:

- an event S of input x: the count is Binomial(n, P[A(x) ∈ S]), with the mechanism's
  exact :meth:`~privcore.ldp.base.Mechanism.event_probabilities`; GRR's disagreements
  among users with uniformly random inputs: Binomial(n, 1 − p);
- OB, coordinates independent given the input (:meth:`coordinate_pmf`: GRR's category,
  the unary encodings' and THE's bits): per half, each coordinate's value counts are
  Multinomial(half size, that coordinate's pmf), independently — for unary bits,
  Binomial(n, p) at the input's position and Binomial(n, q) elsewhere;
- OB, few possible outputs (:meth:`symbol_pmf`: subset selection while C(d, ω)·d ≤ 2²²):
  per half, Multinomial(half size, the outputs' probabilities), and every coordinate's
  counts are sums of those.

OB's joint-symbol check replays the same reports with a new random split (see
:mod:`privcore.ldp.audit`). Drawn from counts it is exact as well: with users i.i.d. and
the splits independent of the outputs, only the sizes of the split groups matter. Per
chunk of r rows the new half A' shares Hypergeometric(r, ⌊r/2⌋, ⌊r/2⌋) rows with the
counting pass's half A; within a half, A' is a uniformly random subset, so its vectors
are a multivariate hypergeometric draw from the half's vectors. The half's vectors over
the chosen coordinates are its outputs' counts projected (few outputs), or, for
independent coordinates, an arrangement drawn given each coordinate's counts in the half:
given its counts a coordinate's values are a uniformly random arrangement over the
half's users, independent of the other coordinates, so each coordinate splits the
vectors so far by multivariate hypergeometric draws. The same samples give a
superset of coordinates at least as many distinct vectors, so a pass over a superset of
coordinates that gave too many gives too many again (the audit's second candidate).

Everything else draws the reports (:class:`privcore.ldp.audit.sampling._Reports`):
hashed outputs (the support bits of one report share its hash), continuous outputs (the
grid needs their range), subset selection with many subsets, the black-box bound (its
score sums log-ratios over one report's coordinates). Setting :data:`ENABLED` to False
makes every audit draw every report (the tests compare the two paths).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from privcore.ldp.base import Mechanism
from privcore.ldp.device import numpy_generator, torch_module

ENABLED = True
"""Draw counts instead of reports where the audit allows it."""


def counts_events(mechanism: Mechanism) -> bool:
    """Are ``mechanism``'s event counts drawn from their law (every frequency oracle)?"""
    return ENABLED and mechanism.family == "frequency"


def event_count(mechanism: Mechanism, v: Any, w: Any, index: int, n: int, gen: Any) -> int:
    """Reports of input (v, w)[index] among n falling in ``mechanism.event(v, w)``:
    Binomial(n, P[A(input) ∈ S])."""
    probability = mechanism.event_probabilities(v, w)[index]
    return int(numpy_generator(gen).binomial(n, probability))


def disagreement_count(mechanism: Mechanism, n: int, gen: Any) -> int:
    """GRR reports differing from their input, among n users with uniformly random
    inputs: each differs with probability 1 − p whatever its input, Binomial(n, 1 − p)."""
    return int(numpy_generator(gen).binomial(n, 1.0 - mechanism.p))


def _law(mechanism: Mechanism, value: Any) -> tuple[str, Any]:
    pmf = mechanism.coordinate_pmf(value)
    if pmf is not None:
        return "independent", np.asarray(pmf, dtype=np.float64)
    symbols = mechanism.symbol_pmf(value)
    if symbols is not None:
        codes, probabilities = symbols
        return "symbols", (np.asarray(codes, dtype=np.int64), np.asarray(probabilities))
    return "", None


def counted_reports(
    mechanism: Mechanism, values: Sequence[Any], rows: int, gen: Any, dev: str
) -> CountedReports | None:
    """OB's source of counts for ``mechanism``'s reports of ``values``, or None when its
    counts cannot be drawn without the reports."""
    if not counts_events(mechanism):
        return None
    kind, _ = _law(mechanism, values[0])
    if not kind:
        return None
    return CountedReports(mechanism, values, rows, gen, dev)


def _chunk_rows(count: int, rows: int) -> np.ndarray:
    """Rows of each chunk when ``count`` reports are read ``rows`` at a time."""
    full, rest = divmod(count, rows)
    return np.array([rows] * full + ([rest] if rest else []), dtype=np.int64)


def _vectors_keys(codes: np.ndarray, base: int) -> np.ndarray:
    """Mixed-radix keys Σ_j codes[:, j]·base^j (as the audit's joint pass builds them)."""
    radix = base ** np.arange(codes.shape[1], dtype=np.int64)
    return codes @ radix


def _grouped(keys: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct keys with a positive count, and their summed counts."""
    seen = counts > 0
    distinct, inverse = np.unique(keys[seen], return_inverse=True)
    return distinct, np.bincount(inverse, weights=counts[seen], minlength=len(distinct))


class CountedReports:
    """OB's counting and joint passes over a mechanism's reports, drawn as counts.

    The same interface to :func:`privcore.ldp.audit.passes._count_pass` and
    ``_joint_pass`` as the reports themselves: :meth:`halves` gives one input's counts
    in the counting pass's half A and in all its reports, :meth:`joint` the vectors of
    chosen coordinates as symbols for a fresh split. ``rows`` is the audit's chunk size,
    which fixes the sizes of the halves (⌊r/2⌋ of each chunk of r rows in half A).
    """

    def __init__(
        self, mechanism: Mechanism, values: Sequence[Any], rows: int, gen: Any, dev: str
    ) -> None:
        self.mechanism, self.values, self.rows, self.gen, self.dev = (
            mechanism,
            list(values),
            rows,
            gen,
            dev,
        )
        self._drawn: dict[int, dict[str, Any]] = {}  # per input: its law and half counts
        self._too_many: list[set[int]] = []  # coordinate sets that gave too many vectors
        self._arranged = False

    def mark(self) -> None:
        """Nothing to do: the drawn counts are kept, so a replay reads the same reports."""

    def rewind(self) -> None:
        """Nothing to do (see :meth:`mark`)."""

    # -- the counting pass
    def halves(self, index: int, count: int) -> tuple[Any, Any, int, int]:
        """(counts in half A, counts in all, rows in A, rows in all) of input ``index``'s
        ``count`` reports, each counts tensor (coordinates, values) float64."""
        torch = torch_module()
        rng = numpy_generator(self.gen)
        rows_a = int((_chunk_rows(count, self.rows) // 2).sum())
        sizes = (rows_a, count - rows_a)
        kind, law = _law(self.mechanism, self.values[index])
        if kind == "independent":
            drawn = [rng.multinomial(size, law) for size in sizes]  # (coordinates, values)
            tables = drawn
        else:
            codes, probabilities = law
            drawn = [rng.multinomial(size, probabilities) for size in sizes]  # per output
            tables = [
                self._coordinate_counts(codes, outputs, size)
                for outputs, size in zip(drawn, sizes, strict=True)
            ]
        self._drawn[index] = {"kind": kind, "law": law, "halves": drawn, "sizes": sizes}
        half, rest = (torch.as_tensor(t, dtype=torch.float64, device=self.dev) for t in tables)
        return half, half + rest, rows_a, count

    @staticmethod
    def _coordinate_counts(codes: np.ndarray, outputs: np.ndarray, size: int) -> np.ndarray:
        """(coordinates, values) counts from counts per possible output."""
        levels = int(codes.max()) + 1 if codes.size else 1
        table = np.empty((codes.shape[1], max(levels, 2)), dtype=np.int64)
        for level in range(table.shape[1]):
            table[:, level] = outputs @ (codes == level).astype(np.int64)
        return table

    # -- the joint pass
    def joint(
        self,
        sizes: list[int],
        coordinates: list[int],
        values: int,
        split_gen: Any,
        limit: int,
    ) -> tuple[Any, list[Any], list[Any]] | None:
        """As the audit's ``_joint_pass`` over the reports: sorted distinct keys of the
        vectors restricted to ``coordinates`` (mixed radix ``values``), and per input
        their counts in a fresh half A' and in all; None when more than ``limit``
        distinct vectors appear."""
        if any(before <= set(coordinates) for before in self._too_many):
            return None
        if self._arranged:
            raise RuntimeError("counted reports: one joint pass per audit")
        torch = torch_module()
        rng = numpy_generator(self.gen)
        split = numpy_generator(split_gen)
        per_input = []
        for index in range(len(sizes)):
            cells = self._cells(index, coordinates, values, limit, rng)
            if cells is None:
                self._too_many.append(set(coordinates))
                return None
            per_input.append(cells)
        keys = np.unique(np.concatenate([k for halves in per_input for k, _ in halves]))
        if len(keys) > limit:
            self._too_many.append(set(coordinates))
            return None
        self._arranged = True
        counts_a, counts_all = [], []
        for index, count in enumerate(sizes):
            shared = self._shared_rows(count, split)  # rows of half A that are also in A'
            rows_a = self._drawn[index]["sizes"][0]
            in_new = (shared, rows_a - shared)  # A' takes this many from half A, half B
            new = np.zeros(len(keys))
            everything = np.zeros(len(keys))
            for (half_keys, half_counts), take in zip(per_input[index], in_new, strict=True):
                where = np.searchsorted(keys, half_keys)
                everything[where] += half_counts
                chosen = split.multivariate_hypergeometric(half_counts.astype(np.int64), take)
                new[where] += chosen
            counts_a.append(torch.as_tensor(new, dtype=torch.float64, device=self.dev))
            counts_all.append(torch.as_tensor(everything, dtype=torch.float64, device=self.dev))
        return torch.as_tensor(keys, dtype=torch.int64, device=self.dev), counts_a, counts_all

    def _shared_rows(self, count: int, split: np.random.Generator) -> int:
        """Rows in both half A and the new half A': per chunk of r rows each takes ⌊r/2⌋
        at random, independently, so they share Hypergeometric(r, ⌊r/2⌋, ⌊r/2⌋)."""
        chunks = _chunk_rows(count, self.rows)
        half = chunks // 2
        return int(split.hypergeometric(half, chunks - half, half).sum())

    def _cells(
        self, index: int, coordinates: list[int], values: int, limit: int, rng: Any
    ) -> list[tuple[np.ndarray, np.ndarray]] | None:
        """Per half of input ``index``: the distinct vectors over ``coordinates`` (keys)
        and their counts; None when one half alone has more than ``limit``."""
        drawn = self._drawn[index]
        cells = []
        for half, size in zip(drawn["halves"], drawn["sizes"], strict=True):
            if drawn["kind"] == "symbols":
                codes, _ = drawn["law"]
                found = _grouped(_vectors_keys(codes[:, coordinates], values), half)
            else:
                found = self._arrange(half, size, coordinates, values, limit, rng)
            if found is None or len(found[0]) > limit:
                return None
            cells.append(found)
        return cells

    @staticmethod
    def _arrange(
        table: np.ndarray,
        size: int,
        coordinates: list[int],
        values: int,
        limit: int,
        rng: Any,
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """The vectors of a half whose coordinates are independent, given each
        coordinate's value counts (``table``, coordinates × values): coordinate by
        coordinate, its value ℓ goes to table[c, ℓ] users drawn uniformly from those not
        yet given a value, so the vectors so far split by multivariate hypergeometric
        draws. None as soon as more than ``limit`` distinct vectors appear."""
        keys = np.zeros(1, dtype=np.int64)
        counts = np.array([size], dtype=np.int64)
        for position, coordinate in enumerate(coordinates):
            weight = values**position
            left = counts.copy()
            parts_keys, parts_counts = [], []
            for level in range(values):
                wanted = int(table[coordinate, level]) if level < table.shape[1] else 0
                if level == values - 1:
                    taken = left
                else:
                    taken = rng.multivariate_hypergeometric(left, wanted)
                    left = left - taken
                parts_keys.append(keys + level * weight)
                parts_counts.append(taken)
            keys, counts = np.concatenate(parts_keys), np.concatenate(parts_counts)
            keep = counts > 0
            keys, counts = keys[keep], counts[keep]
            if len(keys) > limit:
                return None
        order = np.argsort(keys)
        return keys[order], counts[order]
