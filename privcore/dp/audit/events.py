"""The candidate events of the central audit (:mod:`privcore.dp.audit`, "Events"):
thresholds, low-order-bit events, points and bins, and unions of points and bins ranked
by their likelihood ratio, all counted at once on sorted draws and bit counts.

:func:`learn_candidates` learns them from the training draws; :meth:`Candidates.counts` counts
how many draws fall in each, :meth:`Candidates.describe` says what one is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["Candidates", "fraction_bits", "learn_candidates", "learned_counts"]

# Candidate events: quantile levels of the pooled training draws for the thresholds (and
# the bin edges), of the pooled |x| for the radii of the low-order-bit events, the bit
# positions j, and how many repeated values of each data set's draws are point events.
_THRESHOLD_LEVELS = np.unique(  # not rows: a fixed grid of quantile levels
    np.concatenate(
        [
            np.geomspace(1e-4, 0.5, 40),
            1.0 - np.geomspace(1e-4, 0.5, 40),
            np.linspace(0.01, 0.99, 99),
        ]
    )
)
_RADIUS_LEVELS = (0.01, 0.05, 0.2, 0.5, 1.0)
_MAX_POINTS = 64
_UNIONS = ("points", "bins")  # the kinds ranked on one half of the learning draws
_MAX_BIT = 64
_BITS = np.arange(_MAX_BIT + 1)


def fraction_bits(x: np.ndarray) -> np.ndarray:
    """For each double x, the least j ≥ 0 such that x is a multiple of 2^−j (0 for
    integers and for non-finite values).

    With x = m·2^e (``numpy.frexp``, ½ ≤ |m| < 1), M = |m|·2⁵³ is an integer and
    x = ±M·2^(e−53); if M = M′·2^z with M′ odd, x needs max(0, 53 − e − z) binary
    digits after the point. Example: 0.75 = 0.75·2⁰ → M = 3·2⁵¹, z = 51, j = 2.
    """
    values = np.asarray(x, dtype=float)
    finite = np.isfinite(values)
    mantissa, exponent = np.frexp(np.where(finite, values, 0.0))
    integer = np.ldexp(np.abs(mantissa), 53).astype(np.int64)
    lowest = integer & -integer  # 2^z, or 0 when x = 0
    trailing = np.frexp(lowest.astype(float))[1] - 1
    bits = 53 - exponent.astype(np.int64) - trailing
    return np.where(integer == 0, 0, np.maximum(bits, 0))


def _runs(ordered: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of a sorted array and how often each occurs."""
    if ordered.size == 0:
        return ordered, np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    return ordered[starts], np.diff(np.r_[starts, ordered.size])


def _repeated_values(*ordered: np.ndarray) -> np.ndarray:
    """The candidate point values: on each sorted sample, the _MAX_POINTS values seen most
    often among those seen at least twice (ties to the smaller value); ascending."""
    chosen = []
    for sample in ordered:
        values, counts = _runs(sample)
        repeated = counts >= 2
        values, counts = values[repeated], counts[repeated]
        chosen.append(values[np.argsort(-counts, kind="stable")[:_MAX_POINTS]])
    return np.unique(np.concatenate(chosen))  # not rows: candidate output values


def _point_counts(ordered: np.ndarray, points: np.ndarray) -> np.ndarray:
    """How many of the sorted outputs equal each point."""
    return np.searchsorted(ordered, points, side="right") - np.searchsorted(
        ordered, points, side="left"
    )


def _bin_counts(ordered: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """How many of the sorted outputs fall in each bin (−∞, e₀), [e₀, e₁), …, [e_last, ∞)."""
    below = np.searchsorted(ordered, edges, side="left")  # outputs < each edge
    return np.diff(np.concatenate([[0], below, [ordered.size]]))


def _ranked(k_first: np.ndarray, n_first: int, k_second: np.ndarray, n_second: int) -> np.ndarray:
    """Cells (points or bins) by their learned likelihood ratio, highest first:
    r = ((k₁ + ½)/n₁) / ((k₂ + ½)/n₂), counts smoothed by ½ so that a cell seen on one
    side only ranks by how often it was seen there (ties: the lower index first).
    Example: (k₁, k₂) = (99, 0) of 1,000 each gives r = 199, (3, 1) gives r = 2.33."""
    ratio = ((k_first + 0.5) / n_first) / ((k_second + 0.5) / n_second)
    return np.argsort(-ratio, kind="stable")


def _merged(bins: np.ndarray, edges: np.ndarray) -> list[list[float]]:
    """Bins (indices) as the fewest intervals [low, high): adjacent bins joined; ±∞ at
    the ends."""
    intervals: list[list[float]] = []
    for index in np.sort(bins):
        low, high = _bin_bounds(int(index), edges)
        if intervals and intervals[-1][1] == low:
            intervals[-1][1] = high
        else:
            intervals.append([low, high])
    return intervals


def _bin_bounds(index: int, edges: np.ndarray) -> tuple[float, float]:
    """Bin ``index`` as [low, high): bin 0 is (−∞, e₀), the last [e_last, ∞)."""
    low = float(edges[index - 1]) if index > 0 else -math.inf
    high = float(edges[index]) if index < edges.size else math.inf
    return low, high


def _interval_text(low: float, high: float) -> str:
    """[low, high) in words, ±∞ for the open ends."""
    left = "(−∞" if math.isinf(low) else f"[{low:.6g}"
    right = "∞)" if math.isinf(high) else f"{high:.6g})"
    return f"{left}, {right}"


@dataclass(frozen=True)
class Candidates:
    """The candidate events, learned from the training draws only (:mod:`privcore.dp.audit`):
    thresholds, radii of the low-order-bit events, point values, bin edges, and the
    order in which each data set's union events take points and bins (``point_ranks`` and
    ``bin_ranks``: [D over D′, D′ over D])."""

    thresholds: np.ndarray
    radii: np.ndarray
    points: np.ndarray
    point_ranks: tuple[np.ndarray, np.ndarray]
    edges: np.ndarray
    bin_ranks: tuple[np.ndarray, np.ndarray]

    def families(self) -> list[tuple[str, int, Any]]:
        """(kind, how many events, what defines them) in the order of :meth:`counts`."""
        t, p, b = self.thresholds.size, self.points.size, self.edges.size + 1
        return [
            ("at_least", t, None),
            ("at_most", t, None),
            ("low_bits", self.radii.size * _BITS.size, None),
            ("point", p, None),
            ("points", p, self.point_ranks[0]),
            ("points", p, self.point_ranks[1]),
            ("bin", b, None),
            ("bins", b, self.bin_ranks[0]),
            ("bins", b, self.bin_ranks[1]),
        ]

    def counts(self, outputs: np.ndarray) -> np.ndarray:
        """How many of ``outputs`` fall in each candidate event, in the order of
        :meth:`families`: x ≥ t and x ≤ t for every t; (|x| ≤ r and bits(x) > j) for every
        r, then every j; x = v for every point v; the unions of the first 1, 2, … points in
        each of the two rankings; every bin; the unions of the first 1, 2, … bins in each
        ranking."""
        ordered = np.sort(outputs)
        at_least = outputs.size - np.searchsorted(ordered, self.thresholds, side="left")
        at_most = np.searchsorted(ordered, self.thresholds, side="right")
        bits = np.minimum(fraction_bits(outputs), _MAX_BIT + 1)
        magnitude = np.abs(outputs)
        low_bits = []
        for radius in self.radii:  # a handful of radii; each pass is vectorized
            below = bits[magnitude <= radius]  # draws by their lowest set bit
            histogram = np.bincount(below, minlength=_MAX_BIT + 2)  # not rows: mechanism draws
            low_bits.append(histogram.sum() - np.cumsum(histogram)[: _BITS.size])
        points = _point_counts(ordered, self.points)
        bins = _bin_counts(ordered, self.edges)
        return np.concatenate(
            [
                at_least,
                at_most,
                *low_bits,
                points,
                *(np.cumsum(points[rank]) for rank in self.point_ranks),
                bins,
                *(np.cumsum(bins[rank]) for rank in self.bin_ranks),
            ]
        )

    def describe(self, index: int) -> dict[str, Any]:
        """The event at ``index`` of :meth:`counts` as kind, params and text."""
        kind, rank = "", None
        for family, size, ranking in self.families():
            if index < size:
                kind, rank = family, ranking
                break
            index -= size
        else:
            raise IndexError(index)
        if kind in ("at_least", "at_most"):
            value = float(self.thresholds[index])
            sign = "≥" if kind == "at_least" else "≤"
            return {"kind": kind, "params": {"threshold": value}, "text": f"x {sign} {value:.6g}"}
        if kind == "low_bits":
            radius_index, bit = divmod(index, _BITS.size)
            radius = float(self.radii[radius_index])
            return {
                "kind": kind,
                "params": {"radius": radius, "bits": int(bit)},
                "text": f"|x| ≤ {radius:.6g} and x is not a multiple of 2^-{int(bit)}",
            }
        if kind == "point":
            value = float(self.points[index])
            return {"kind": kind, "params": {"value": value}, "text": f"x = {value!r}"}
        if kind == "points":
            values = np.sort(self.points[rank[: index + 1]]).tolist()
            listed = ", ".join(repr(v) for v in values)
            return {"kind": kind, "params": {"values": values}, "text": f"x ∈ {{{listed}}}"}
        if kind == "bin":
            low, high = _bin_bounds(index, self.edges)
            return {
                "kind": kind,
                "params": {"interval": [low, high]},
                "text": f"x ∈ {_interval_text(low, high)}",
            }
        intervals = _merged(rank[: index + 1], self.edges)
        text = " ∪ ".join(_interval_text(low, high) for low, high in intervals)
        return {"kind": kind, "params": {"intervals": intervals}, "text": f"x ∈ {text}"}


def learn_candidates(
    train_d: np.ndarray, train_d_prime: np.ndarray, rank_d: np.ndarray, rank_d_prime: np.ndarray
) -> Candidates:
    """The candidate events of the learning draws ``train_*``: thresholds and bin edges at
    quantiles of the pooled draws, radii at quantiles of the pooled |x|; the point values
    and the rankings of points and bins by their likelihood ratio in each order are
    learned from ``rank_*`` alone, the first half of the learning draws."""
    pooled = np.concatenate([train_d, train_d_prime])
    thresholds = np.unique(np.quantile(pooled, _THRESHOLD_LEVELS))  # not rows: quantiles
    radii = np.unique(np.quantile(np.abs(pooled), _RADIUS_LEVELS))  # not rows: quantiles
    ordered_d, ordered_dp = np.sort(rank_d), np.sort(rank_d_prime)
    n_d, n_dp = rank_d.size, rank_d_prime.size
    points = _repeated_values(ordered_d, ordered_dp)
    k_d, k_dp = _point_counts(ordered_d, points), _point_counts(ordered_dp, points)
    point_ranks = (_ranked(k_d, n_d, k_dp, n_dp), _ranked(k_dp, n_dp, k_d, n_d))
    edges = thresholds  # the bins lie between consecutive thresholds
    b_d, b_dp = _bin_counts(ordered_d, edges), _bin_counts(ordered_dp, edges)
    bin_ranks = (_ranked(b_d, n_d, b_dp, n_dp), _ranked(b_dp, n_dp, b_d, n_d))
    return Candidates(thresholds, radii, points, point_ranks, edges, bin_ranks)


def learned_counts(
    candidates: Candidates, train: np.ndarray, score: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Each candidate's count and draws on the learning half: a union of points or bins
    on ``score`` (the half of the learning draws its ranking did not see, so that its
    count is not inflated by the ranking), every other event on all of ``train``."""
    union = np.concatenate(
        [np.full(size, kind in _UNIONS) for kind, size, _ in candidates.families()]
    )
    counts = np.where(union, candidates.counts(score), candidates.counts(train))
    return counts, np.where(union, score.size, train.size)
