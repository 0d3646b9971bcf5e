"""Auditing a central DP mechanism: does it lose more privacy than it claims? (SPEC §10)

**Method** (black-box, from outputs only). Two neighbouring data sets D and D′ differ by
one person's record; the mechanism M is run n times on each. If M is (ε, δ)-DP then for
every event E, P[M(D) ∈ E] ≤ e^ε·P[M(D′) ∈ E] + δ, and the same with D and D′ swapped,
so any event gives ε ≥ ln((P[M(D) ∈ E] − δ)/P[M(D′) ∈ E]) (Ding, Wang, Wang, Zhang &
Kifer 2018, "Detecting violations of differential privacy", CCS). The audit

1. learns an event E on the first half of each sample: the candidate whose
   Clopper–Pearson bound (step 2) is largest on that half, separately for each order
   (D over D′, D′ over D);
2. counts E on the other half and bounds P[M(D) ∈ E] from below and P[M(D′) ∈ E] from
   above by one-sided Clopper–Pearson bounds (Clopper & Pearson 1934), giving
   ε_LB = ln((lower − δ)/upper) (:func:`privcore.core.binomial.log_ratio_lower`; the
   auditing recipe of Jagielski, Ullman & Oprea 2020 and Nasr, Song, Thakurta, Papernot
   & Carlini 2021);
3. reports the larger ε_LB of the two orders (a bound below 0 is reported as 0, since
   ε ≥ 0 always), and the interval [ε_LB, ε_UB] of the loss of the event found, with
   ε_UB = ln((upper on the first data set − δ)/lower on the second) from the same
   one-sided bounds (each end fails with probability at most FALSE_ALARM_RATE).

Because E is chosen on data the bound never sees, the bound of each order exceeds the
true privacy loss with probability at most FALSE_ALARM_RATE/2 (α/4 for each of the two
one-sided bounds); with Bonferroni over the two orders the reported ε_LB exceeds the
mechanism's true ε with probability at most FALSE_ALARM_RATE. Only one event per order
is ever certified, so the number of candidates costs no confidence: it only changes
which event step 1 picks.

**Events** (candidates, all evaluated at once on sorted draws and bit counts):

- thresholds x ≥ t and x ≤ t, t from quantiles of the pooled training draws (finely
  spaced in the tails, where the loss of Laplace and Gaussian noise concentrates);
- the low-order-bit events of Mironov's attack (Mironov 2012, "On significance of the
  least significant bits for differential privacy", CCS): "|x| ≤ r and x is not a
  multiple of 2^−j", r from quantiles of the pooled |x|, j = 0 … 64. A textbook
  floating-point Laplace sampler run on a count of 1 returns, between −1 and 1, only
  multiples of 2⁻⁵³ (1 + Y rounded), while on a count of 0 most of its outputs there
  are finer doubles: the event with j = 53 has probability 0 under one data set and a
  large one under the other, an unbounded loss;
- point events x = v, for the values v seen at least twice among one data set's draws
  (the _MAX_POINTS = 64 most frequent of each): a mechanism that now and then returns
  the exact answer puts a point mass on it that the other data set's output almost
  never hits; a threshold through that point sees only a loss near the claim;
- histogram events: the bins between consecutive thresholds, each alone, and unions of
  the bins (and of the points) — the first 1, 2, … of them ranked by their likelihood
  ratio ((k₁ + ½)/n₁)/((k₂ + ½)/n₂) in each order, an estimate of the best
  (Neyman–Pearson) event. The ranking and the point values are learned on the first
  half of the training draws and a union is scored on the second half, so that a
  ranking's luck on the draws it saw does not make its union look better than it is.

**Verdicts** (:func:`decide`):

- ``violation`` (reason ``bound_above_claim``): ε_LB > ε + DECISION_TOLERANCE; a
  mechanism that keeps its claim is called a violation in at most FALSE_ALARM_RATE of
  audits;
- ``consistent`` (``bound_near_claim``, the library's own mechanisms only): no
  violation, and ε_LB ≥ CONSISTENT_SHARE·ε — the audit found the mechanism spending at
  least half of its claimed budget and nothing above it. This is evidence for the claim
  at these data sets and events, not a proof that the mechanism is DP;
- ``inconclusive`` (``bound_below_claim``): no violation, but the events found certify
  less than half of ε (too few draws for the events where the loss sits, or a mechanism
  that adds more noise than its claim needs);
- ``inconclusive`` (``no_violation_found``) for uploaded outputs whenever there is no
  violation: outputs of an unknown implementation can prove a leak but not its
  absence (a leak on an event not searched, or too rare for the sample, stays unseen),
  so an upload is never called consistent.

The same machinery audits the outputs of any implementation (:func:`audit_outputs`).
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from privcore.core.binomial import clopper_pearson, cp_lower, cp_upper, log_ratio_lower
from privcore.core.jsonsafe import plain
from privcore.core.progress import Progress, report
from privcore.dp import mechanisms as mech
from privcore.dp.queries import clamped_sum
from privcore.errors import ParameterError

__all__ = [
    "AUDIT_MECHANISMS",
    "CONSISTENT_SHARE",
    "DECISION_TOLERANCE",
    "DEFAULT_GAUSSIAN_DELTA",
    "DEFAULT_SAMPLES",
    "FALSE_ALARM_RATE",
    "MAX_SAMPLES",
    "MIN_SAMPLES",
    "REASONS",
    "VERDICTS",
    "AuditedMechanism",
    "CentralAudit",
    "audit_mechanism",
    "audit_outputs",
    "decide",
    "fraction_bits",
]

VERDICTS = ("consistent", "violation", "inconclusive")
REASONS = (
    "bound_above_claim",  # violation: ε_LB exceeds the claim
    "bound_near_claim",  # consistent: CONSISTENT_SHARE·ε ≤ ε_LB ≤ ε (+ tolerance)
    "bound_below_claim",  # inconclusive: ε_LB below CONSISTENT_SHARE·ε
    "no_violation_found",  # inconclusive, uploaded outputs: ε_LB ≤ ε, nothing cleared
)

FALSE_ALARM_RATE = 1e-3
"""Largest probability that one audit of a mechanism keeping its claim says "violation"
(the LDP auditor's rate)."""
DECISION_TOLERANCE = 1e-4
"""A violation needs ε_LB above the claim by more than this (in ε): the samplers'
probabilities are those of their formulas to double precision, not exactly."""
CONSISTENT_SHARE = 0.5
""""Consistent" needs ε_LB ≥ this share of the claimed ε."""

DEFAULT_SAMPLES = 1_000_000
"""Draws of the mechanism on each of the two data sets: half learn the event, half
certify it. About 0.2 s and 80 MB per audit; at ε = 1 the Laplace count then gets
ε_LB ≈ 0.98, the Gaussian count (δ = 10⁻⁵) ε_LB ≈ 0.6 (99.9 % bounds)."""
MIN_SAMPLES = 100
MAX_SAMPLES = 5_000_000
"""Draws per data set allowed (memory: 2 × 8 bytes per draw plus sorting copies)."""
DEFAULT_GAUSSIAN_DELTA = 1e-5
"""δ of ``gaussian_count`` when none is given."""

# The data sets of the sums: weekly overtime hours of seven people, clamped to [0, 10]
# by the correct sum; D′ adds one person (at the clamp's end, or an outlier of 1,000
# for the sum that forgets to clamp).
SUM_COLUMN = "overtime_hours"
SUM_CLAMP = (0.0, 10.0)
SUM_RECORDS = (2.3, 7.25, 0.0, 12.0, 3.7, 9.5, -1.5)
UNCLAMPED_OUTLIER = 1_000.0

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

Sampler = Callable[[float, float, int, np.random.Generator], tuple[np.ndarray, np.ndarray]]
"""``sampler(epsilon, delta, n, rng)`` → (n outputs of M on D, n outputs of M on D′)."""


# --------------------------------------------------------------------------- mechanisms


def _float_laplace(
    value: float, sensitivity: float, epsilon: float, size: int, rng: np.random.Generator
) -> np.ndarray:
    """value + Lap(Δ/ε) in textbook floating point (numpy's sampler, then a double
    addition): the right noise scale, but outputs whose low-order bits depend on the
    value (Mironov 2012). Only for the broken variant ``broken_float_laplace``."""
    return value + rng.laplace(0.0, sensitivity / epsilon, size=size)


def _sum_frame(extra: float | None) -> pd.DataFrame:
    values = list(SUM_RECORDS) + ([] if extra is None else [extra])
    return pd.DataFrame({SUM_COLUMN: np.asarray(values, dtype=float)})


def _laplace_count(epsilon: float, delta: float, n: int, rng: np.random.Generator):
    return (
        mech.laplace(0, 1, epsilon, size=n, rng=rng),
        mech.laplace(1, 1, epsilon, size=n, rng=rng),
    )


def _geometric_count(epsilon: float, delta: float, n: int, rng: np.random.Generator):
    return (
        mech.discrete_laplace(0, 1, epsilon, size=n, rng=rng),
        mech.discrete_laplace(1, 1, epsilon, size=n, rng=rng),
    )


def _gaussian_count(epsilon: float, delta: float, n: int, rng: np.random.Generator):
    return (
        mech.gaussian(0, 1, epsilon, delta, size=n, rng=rng),
        mech.gaussian(1, 1, epsilon, delta, size=n, rng=rng),
    )


def _laplace_sum(epsilon: float, delta: float, n: int, rng: np.random.Generator):
    low, high = SUM_CLAMP
    outputs = []
    for extra in (None, high):
        query = clamped_sum(_sum_frame(extra), SUM_COLUMN, low, high)
        outputs.append(
            mech.laplace(query.true_answer, query.sensitivity_l1, epsilon, size=n, rng=rng)
        )
    return outputs[0], outputs[1]


def _broken_scale_eps(epsilon: float, delta: float, n: int, rng: np.random.Generator):
    # Laplace at "ε" = 1/ε: scale Δ/(1/ε) = ε·Δ instead of Δ/ε
    return (
        mech.laplace(0, 1, 1.0 / epsilon, size=n, rng=rng),
        mech.laplace(1, 1, 1.0 / epsilon, size=n, rng=rng),
    )


def _broken_no_clamp(epsilon: float, delta: float, n: int, rng: np.random.Generator):
    declared = max(abs(SUM_CLAMP[0]), abs(SUM_CLAMP[1]))  # Δ of the declared clamp
    totals = [float(np.sum(SUM_RECORDS)), float(np.sum(SUM_RECORDS)) + UNCLAMPED_OUTLIER]
    return tuple(mech.laplace(total, declared, epsilon, size=n, rng=rng) for total in totals)


def _broken_float_laplace(epsilon: float, delta: float, n: int, rng: np.random.Generator):
    return _float_laplace(0.0, 1.0, epsilon, n, rng), _float_laplace(1.0, 1.0, epsilon, n, rng)


class AuditedMechanism(NamedTuple):
    """A mechanism the audit can run: its title, whether it is deliberately broken, what
    it does, its two neighbouring data sets, and ``sampler(epsilon, delta, n, rng)``."""

    title: str
    broken: bool
    description: str
    neighbours: str
    sampler: Sampler


_COUNT_NEIGHBOURS = (
    "D: a table in which no one meets the condition (count 0); D′: the same table plus "
    "one person who does (count 1)."
)
_SUM_NEIGHBOURS = (
    f"D: seven people's weekly overtime hours ({', '.join(map(str, SUM_RECORDS))}); "
    "D′: the same plus one person with 10 hours, the upper end of the clamp [0, 10]."
)

AUDIT_MECHANISMS: dict[str, AuditedMechanism] = {
    "laplace_count": AuditedMechanism(
        "Laplace mechanism on a count",
        False,
        "The library's Laplace mechanism on a count (Δ = 1): the count plus Laplace noise "
        "of scale 1/ε, drawn on a grid of multiples of a power of two so that the "
        "low-order bits of an output reveal nothing (Mironov 2012). Threshold events "
        "x ≥ t with t ≥ 1 have a loss of exactly ε.",
        _COUNT_NEIGHBOURS,
        _laplace_count,
    ),
    "geometric_count": AuditedMechanism(
        "Discrete Laplace (geometric) mechanism on a count",
        False,
        "The discrete Laplace (two-sided geometric) mechanism on a count: integer noise "
        "with P(Z = z) ∝ exp(−ε|z|) (Ghosh, Roughgarden & Sundararajan 2009).",
        _COUNT_NEIGHBOURS,
        _geometric_count,
    ),
    "gaussian_count": AuditedMechanism(
        "Gaussian mechanism on a count",
        False,
        "The library's Gaussian mechanism on a count (Δ₂ = 1) claiming (ε, δ), "
        f"δ = {DEFAULT_GAUSSIAN_DELTA:g} unless given: σ from the analytic Gaussian "
        "mechanism (Balle & Wang 2018), discrete Gaussian noise on a grid (Canonne, "
        "Kamath & Steinke 2020). Most of its privacy loss lies in the tails, where few "
        "draws land: with the default 10⁶ draws per data set the audit certifies a "
        "little over half of ε at ε = 0.5 to 2; with fewer draws, or smaller ε or δ, "
        "it certifies less, and “inconclusive” is then the honest verdict, not a fault.",
        _COUNT_NEIGHBOURS,
        _gaussian_count,
    ),
    "laplace_sum": AuditedMechanism(
        "Laplace mechanism on a clamped sum",
        False,
        "A sum of values clamped to [0, 10] (sensitivity max(|0|, |10|) = 10 under adding "
        "or removing a person) with the library's Laplace mechanism of scale "
        "10/ε. The sum is real-valued, so rounding it to the output grid adds the grid "
        "step γ to its sensitivity, which the mechanism accounts for.",
        _SUM_NEIGHBOURS,
        _laplace_sum,
    ),
    "broken_scale_eps": AuditedMechanism(
        "Broken: noise scale ε·Δ instead of Δ/ε",
        True,
        "Laplace noise of scale ε·Δ instead of Δ/ε, so the real loss is 1/ε whatever ε "
        "is claimed. Below ε = 1 that is too little noise (at ε = 0.5 the real loss is "
        "2) and the audit must report a violation. At ε = 1 the scale happens to be "
        "right, and above ε = 1 the mechanism adds more noise than its claim needs (a "
        "loss of 1/ε < ε): the audit then, correctly, finds no violation — a mistake "
        "that does not harm privacy at the ε audited is not one an audit can see.",
        _COUNT_NEIGHBOURS,
        _broken_scale_eps,
    ),
    "broken_no_clamp": AuditedMechanism(
        "Broken: a sum that forgets to clamp",
        True,
        "A sum whose noise is calibrated to the declared clamp [0, 10] (scale 10/ε) but "
        "whose values are not clamped: one person with the value 1,000 moves the sum by "
        "1,000, a privacy loss of 100·ε.",
        "D: seven people's weekly overtime hours, not clamped "
        f"({', '.join(map(str, SUM_RECORDS))}); D′: the same plus one person with the "
        "value 1,000.",
        _broken_no_clamp,
    ),
    "broken_float_laplace": AuditedMechanism(
        "Broken: textbook floating-point Laplace",
        True,
        "The count plus numpy's floating-point Laplace sample, added in double "
        "precision. The noise has the right scale, but the doubles it can return depend "
        "on the true count (Mironov 2012): with count 1, every output between −1 and 1 "
        "is a multiple of 2⁻⁵³; with count 0 most outputs there are not. An event on "
        "the outputs' low-order bits tells the two data sets apart.",
        _COUNT_NEIGHBOURS,
        _broken_float_laplace,
    ),
}


# --------------------------------------------------------------------------- result


@dataclass(frozen=True)
class CentralAudit:
    """One audit of a central mechanism.

    ``epsilon_lb``: the certified lower bound on the privacy loss (at confidence
    1 − FALSE_ALARM_RATE over both orders; ≥ 0); ``verdict`` and ``reason``: see
    :func:`decide`; ``event``: the learned event (``kind`` "at_least", "at_most",
    "low_bits", "point", "points", "bin" or "bins", its ``params``, a ``text``, the
    ``order`` of the data sets the bound compares and the test-half ``counts``); ``p_d``
    and ``p_d_prime``: Clopper–Pearson intervals of P[M(D) ∈ E] and P[M(D′) ∈ E] whose
    ends are the one-sided bounds used; ``loss_interval``: [ε_LB, ε_UB] of the event
    found (module docstring, step 3); ``neighbours``: the two data sets in words;
    ``broken``: whether the audited mechanism is a deliberately broken one (None for
    uploaded outputs); ``seconds``: run time.
    """

    mechanism: str
    epsilon: float
    delta: float
    samples: int
    epsilon_lb: float
    verdict: str
    reason: str
    event: dict[str, Any]
    p_d: tuple[float, float]
    p_d_prime: tuple[float, float]
    neighbours: str
    broken: bool | None = None
    loss_interval: tuple[float, float] = (0.0, math.inf)
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe summary (the CLI's ``--json`` and the history row); uploaded outputs
        (``broken`` None) are never called consistent, so theirs has no
        ``consistent_share``."""
        summary = plain(
            {
                "mechanism": self.mechanism,
                "epsilon": self.epsilon,
                "delta": self.delta,
                "samples": self.samples,
                "epsilon_lb": self.epsilon_lb,
                "verdict": self.verdict,
                "reason": self.reason,
                "event": self.event,
                "p_d": list(self.p_d),
                "p_d_prime": list(self.p_d_prime),
                "loss_interval": list(self.loss_interval),
                "neighbours": self.neighbours,
                "broken": self.broken,
                "false_alarm_rate": FALSE_ALARM_RATE,
                "tolerance": DECISION_TOLERANCE,
                "consistent_share": CONSISTENT_SHARE,
                "seconds": round(self.seconds, 4),
            }
        )
        if self.broken is None:
            del summary["consistent_share"]
        return summary


def decide(epsilon: float, epsilon_lb: float, *, uploaded: bool = False) -> tuple[str, str]:
    """(verdict, reason): violation when ε_LB > ε + DECISION_TOLERANCE
    (``bound_above_claim``); else, for uploaded outputs, inconclusive
    (``no_violation_found``: no violation at this sample size, never "consistent");
    else consistent when ε_LB ≥ CONSISTENT_SHARE·ε (``bound_near_claim``), inconclusive
    below (``bound_below_claim``)."""
    if epsilon_lb > epsilon + DECISION_TOLERANCE:
        return "violation", "bound_above_claim"
    if uploaded:
        return "inconclusive", "no_violation_found"
    if epsilon_lb >= CONSISTENT_SHARE * epsilon:
        return "consistent", "bound_near_claim"
    return "inconclusive", "bound_below_claim"


# --------------------------------------------------------------------------- events


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
class _Candidates:
    """The candidate events, learned from the training draws only (module docstring):
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


def _candidates(
    train_d: np.ndarray, train_d_prime: np.ndarray, rank_d: np.ndarray, rank_d_prime: np.ndarray
) -> _Candidates:
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
    return _Candidates(thresholds, radii, points, point_ranks, edges, bin_ranks)


def _learned_counts(
    candidates: _Candidates, train: np.ndarray, score: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Each candidate's count and draws on the learning half: a union of points or bins
    on ``score`` (the half of the learning draws its ranking did not see, so that its
    count is not inflated by the ranking), every other event on all of ``train``."""
    union = np.concatenate(
        [np.full(size, kind in _UNIONS) for kind, size, _ in candidates.families()]
    )
    counts = np.where(union, candidates.counts(score), candidates.counts(train))
    return counts, np.where(union, score.size, train.size)


def _audit(
    outputs_d: np.ndarray,
    outputs_d_prime: np.ndarray,
    delta: float,
    progress: Progress | None,
) -> dict[str, Any]:
    """Learn on the first half of each sample, certify on the second (module docstring)."""
    half_d, half_d_prime = outputs_d.size // 2, outputs_d_prime.size // 2
    train_d, test_d = outputs_d[:half_d], outputs_d[half_d:]
    train_dp, test_dp = outputs_d_prime[:half_d_prime], outputs_d_prime[half_d_prime:]
    rank_d, score_d = train_d[: half_d // 2], train_d[half_d // 2 :]
    rank_dp, score_dp = train_dp[: half_d_prime // 2], train_dp[half_d_prime // 2 :]
    report(progress, 0.6, "learning the event")
    candidates = _candidates(train_d, train_dp, rank_d, rank_dp)
    learn_d, n_d = _learned_counts(candidates, train_d, score_d)
    learn_dp, n_dp = _learned_counts(candidates, train_dp, score_dp)
    report(progress, 0.8, "certifying the event")
    alpha = FALSE_ALARM_RATE / 2  # per order (Bonferroni); α/4 per one-sided bound
    test = {"D": candidates.counts(test_d), "D′": candidates.counts(test_dp)}
    sizes = {"D": test_d.size, "D′": test_dp.size}
    best: dict[str, Any] | None = None
    orders = (
        ("D", "D′", learn_d, n_d, learn_dp, n_dp),
        ("D′", "D", learn_dp, n_dp, learn_d, n_d),
    )
    for first, second, k_first, n_first, k_second, n_second in orders:
        learned = log_ratio_lower(k_first, n_first, k_second, n_second, alpha, delta)
        index = int(np.argmax(learned))
        bound = float(
            log_ratio_lower(
                test[first][index], sizes[first], test[second][index], sizes[second], alpha, delta
            )
        )
        if best is None or bound > best["bound"]:
            best = {"bound": bound, "index": index, "order": (first, second)}
    assert best is not None
    index = best["index"]
    first, second = best["order"]
    k_d, k_dp = int(test["D"][index]), int(test["D′"][index])
    event = candidates.describe(index)
    event["order"] = f"{first} over {second}"
    event["counts"] = {"D": [k_d, sizes["D"]], "D′": [k_dp, sizes["D′"]]}
    upper = _loss_upper(
        int(test[first][index]), sizes[first], int(test[second][index]), sizes[second], alpha, delta
    )
    lower = max(best["bound"], 0.0)
    return {
        "epsilon_lb": lower,
        "event": event,
        "p_d": clopper_pearson(k_d, sizes["D"], 1.0 - alpha),
        "p_d_prime": clopper_pearson(k_dp, sizes["D′"], 1.0 - alpha),
        "loss_interval": (lower, max(upper, lower)),
    }


def _loss_upper(
    k_first: int, n_first: int, k_second: int, n_second: int, alpha: float, delta: float
) -> float:
    """ln((P_upper[E | first] − δ) / P_lower[E | second]) with one-sided Clopper–Pearson
    bounds at α/2 each: the upper end of the learned event's privacy loss, the mirror of
    :func:`privcore.core.binomial.log_ratio_lower` (∞ when the event was never seen on the
    second data set, 0 when δ is not below the first bound). Example: 500 of 500 and 0
    of 500 → ∞; 0 of 500 on the first → 0."""
    upper = float(cp_upper(k_first, n_first, alpha / 2)) - delta
    lower = float(cp_lower(k_second, n_second, alpha / 2))
    if upper <= 0:
        return 0.0
    return math.inf if lower <= 0 else max(math.log(upper / lower), 0.0)


# --------------------------------------------------------------------------- validation


def _check_samples(samples: Any) -> int:
    valid = (
        isinstance(samples, (int, np.integer))
        and not isinstance(samples, bool)
        and MIN_SAMPLES <= samples <= MAX_SAMPLES
    )
    if not valid:
        raise ParameterError(
            f"The number of draws per data set must be a whole number from {MIN_SAMPLES:,} "
            f"to {MAX_SAMPLES:,}, got {samples!r}.",
            code="dp.bad_samples",
            samples=samples,
            minimum=MIN_SAMPLES,
            maximum=MAX_SAMPLES,
        )
    return int(samples)


def _check_audit_delta(delta: Any, *, gaussian: bool) -> float:
    if gaussian:
        return mech.check_delta(DEFAULT_GAUSSIAN_DELTA if delta is None else delta)
    if delta is None:
        return 0.0
    value = mech._as_float(delta)
    if not (0.0 <= value < 1.0):
        raise ParameterError(
            f"δ must be a number from 0 (pure ε-DP) up to but not including 1, got {delta!r}.",
            code="dp.bad_delta",
            delta=delta,
        )
    return value


def _mechanism(name: Any) -> AuditedMechanism:
    try:
        return AUDIT_MECHANISMS[name]
    except (KeyError, TypeError):
        raise ParameterError(
            f"No mechanism named {name!r} to audit; choose one of {', '.join(AUDIT_MECHANISMS)}.",
            code="dp.unknown_audit_mechanism",
            mechanism=str(name),
            choices=list(AUDIT_MECHANISMS),
        ) from None


def _check_seed(seed: Any) -> int:
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
        raise ParameterError(
            f"The seed must be a whole number, got {seed!r}.", code="dp.bad_seed", seed=str(seed)
        )
    return int(seed)


def _outputs(values: Any, which: str) -> np.ndarray:
    """Uploaded outputs as a 1-D float array, or ParameterError ``dp.bad_outputs``."""
    try:
        array = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise ParameterError(
            f"The outputs of {which} must be numbers; some are not.",
            code="dp.bad_outputs",
            data_set=which,
        ) from None
    if array.ndim != 1 or not (MIN_SAMPLES <= array.size <= MAX_SAMPLES):
        raise ParameterError(
            f"The outputs of {which} must be one list of {MIN_SAMPLES:,} to {MAX_SAMPLES:,} "
            f"numbers, got {array.size:,} value(s) in {max(array.ndim, 1)} dimension(s).",
            code="dp.bad_outputs",
            data_set=which,
            count=int(array.size),
            minimum=MIN_SAMPLES,
            maximum=MAX_SAMPLES,
        )
    if not np.all(np.isfinite(array)):
        raise ParameterError(
            f"The outputs of {which} contain missing or infinite values.",
            code="dp.bad_outputs",
            data_set=which,
        )
    return array


def _generator(seed: int, *parts: Any) -> np.random.Generator:
    """A generator seeded by a stable hash of (seed, mechanism, ε, δ): two audits with the
    same seed share no noise, and the same request gives the same result."""
    text = "|".join(map(repr, (seed, *parts)))
    digest = hashlib.sha256(text.encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:16], "little"))


# --------------------------------------------------------------------------- entry points


def audit_mechanism(
    name: str,
    epsilon: float,
    *,
    delta: float | None = None,
    samples: int = DEFAULT_SAMPLES,
    seed: int = 0,
    progress: Progress | None = None,
) -> CentralAudit:
    """Audit the mechanism ``name`` of :data:`AUDIT_MECHANISMS` claiming ε (and δ: 0 for
    the pure mechanisms unless given, DEFAULT_GAUSSIAN_DELTA for ``gaussian_count``)
    with ``samples`` draws on each of its two neighbouring data sets (module docstring
    for the method and the verdicts). ``progress(fraction, message)`` is called between
    steps; a callback that raises stops the audit."""
    started = time.perf_counter()
    audited = _mechanism(name)
    epsilon = mech.check_epsilon(epsilon)
    delta = _check_audit_delta(delta, gaussian=name == "gaussian_count")
    samples = _check_samples(samples)
    seed = _check_seed(seed)
    report(progress, 0.0, "running the mechanism on D and D′")
    outputs_d, outputs_d_prime = audited.sampler(
        epsilon, delta, samples, _generator(seed, name, epsilon, delta)
    )
    found = _audit(
        np.asarray(outputs_d, dtype=float),
        np.asarray(outputs_d_prime, dtype=float),
        delta,
        progress,
    )
    verdict, reason = decide(epsilon, found["epsilon_lb"])
    report(progress, 1.0, "done")
    return CentralAudit(
        mechanism=name,
        epsilon=epsilon,
        delta=delta,
        samples=samples,
        verdict=verdict,
        reason=reason,
        neighbours=audited.neighbours,
        broken=audited.broken,
        seconds=time.perf_counter() - started,
        **found,
    )


def audit_outputs(
    outputs_d: Any,
    outputs_d_prime: Any,
    epsilon: float,
    *,
    delta: float = 0.0,
    seed: int = 0,
    mechanism: str = "uploaded",
) -> CentralAudit:
    """Audit the outputs of any implementation: ``outputs_d`` from runs on a data set D,
    ``outputs_d_prime`` from runs on a neighbour D′ (one person added or removed), each
    100 to MAX_SAMPLES finite numbers, for a claim of (ε, δ). The outputs are shuffled
    (seeded by ``seed``) before they are split into the learning and the certifying
    halves, so that outputs listed in any order give a valid bound. No violation is
    reported as inconclusive (``no_violation_found``), never as consistent."""
    started = time.perf_counter()
    epsilon = mech.check_epsilon(epsilon)
    delta = _check_audit_delta(delta, gaussian=False)
    seed = _check_seed(seed)
    first = _outputs(outputs_d, "D")
    second = _outputs(outputs_d_prime, "D′")
    rng = _generator(seed, "uploaded", epsilon, delta)
    found = _audit(rng.permutation(first), rng.permutation(second), delta, None)
    verdict, reason = decide(epsilon, found["epsilon_lb"], uploaded=True)
    return CentralAudit(
        mechanism=str(mechanism),
        epsilon=epsilon,
        delta=delta,
        samples=int(min(first.size, second.size)),
        verdict=verdict,
        reason=reason,
        neighbours="D and D′ as uploaded: two data sets differing by one person's record.",
        broken=None,
        seconds=time.perf_counter() - started,
        **found,
    )
