"""Learning an event and certifying its privacy loss, and the verdict (the method of
:mod:`privcore.dp.audit`, steps 1–3, and its "Verdicts").

:func:`certify` takes the outputs of a mechanism on two neighbouring data sets and
returns the certified lower bound ε_LB with the event it comes from; :func:`decide` turns
ε_LB and the claim into a verdict; :class:`CentralAudit` is one audit's result.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from privcore.core.binomial import clopper_pearson, cp_lower, cp_upper, log_ratio_lower
from privcore.core.jsonsafe import plain
from privcore.core.progress import Progress, report
from privcore.dp.audit.events import learn_candidates, learned_counts

__all__ = [
    "CONSISTENT_SHARE",
    "DECISION_TOLERANCE",
    "FALSE_ALARM_RATE",
    "REASONS",
    "VERDICTS",
    "CentralAudit",
    "certify",
    "decide",
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
    found (:mod:`privcore.dp.audit`, step 3); ``neighbours``: the two data sets in words;
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


def certify(
    outputs_d: np.ndarray,
    outputs_d_prime: np.ndarray,
    delta: float,
    progress: Progress | None,
) -> dict[str, Any]:
    """Learn on the first half of each sample, certify on the second (:mod:`privcore.dp.audit`)."""
    half_d, half_d_prime = outputs_d.size // 2, outputs_d_prime.size // 2
    train_d, test_d = outputs_d[:half_d], outputs_d[half_d:]
    train_dp, test_dp = outputs_d_prime[:half_d_prime], outputs_d_prime[half_d_prime:]
    rank_d, score_d = train_d[: half_d // 2], train_d[half_d // 2 :]
    rank_dp, score_dp = train_dp[: half_d_prime // 2], train_dp[half_d_prime // 2 :]
    report(progress, 0.6, "learning the event")
    candidates = learn_candidates(train_d, train_dp, rank_d, rank_dp)
    learn_d, n_d = learned_counts(candidates, train_d, score_d)
    learn_dp, n_dp = learned_counts(candidates, train_dp, score_dp)
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
