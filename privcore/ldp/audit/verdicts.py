"""What an audit concludes: the verdicts and their reasons (:func:`decide`, :func:`ob_reason`),
the decision rule stated in a report's ``details``, the report itself
(:class:`AuditReport`), and the sample-size planner.

The rules are those of the package docstring (:mod:`privcore.ldp.audit`, "Verdicts").
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

from scipy import special  # quantiles and tails (scipy.stats costs twice the import)

from privcore.core.jsonsafe import plain
from privcore.errors import ParameterError

VERDICTS = ("consistent", "violation", "inconclusive")

FALSE_ALARM_RATE = 1e-3
"""Largest probability that one audit of a mechanism keeping its claim says "violation"."""
DECISION_TOLERANCE = 1e-4
"""A violation needs the decision bound above the claim by more than this (in ε)."""
CONSISTENT_MARGIN = 0.10
""""Consistent" needs the upper decision bound within this share above the claim."""

REASONS = (
    "bound_above_claim",  # violation: the decision bound exceeds the claim
    "within_margin",  # consistent
    "weak_evidence",  # the shown bound/interval is above the claim, the decision bound not
    "interval_too_wide",  # white-box: cannot rule out a loss > 1.1 × the claim
    "lower_bound_only",  # a learned (black-box) bound: no violation shown, nothing cleared
    "no_evidence_at_resolution",  # OB: nothing above the claim at this resolution
    "estimate_above_claim",  # OB: the estimate's interval is above the claim
    "disjoint_outputs",  # OB: some inputs' outputs never overlap (unbounded loss)
)


def sample_size(p: float, margin: float, confidence: float = 0.95) -> int:
    """Samples needed to estimate a probability p within ±margin at ``confidence``:
    n > z²_{α/2} · p(1−p) / l² (seed 001 §3.4)."""
    if not 0 < p < 1 or not 0 < margin < 1 or not 0 < confidence < 1:
        raise ParameterError(
            "The planner needs 0 < p < 1, 0 < margin < 1 and 0 < confidence < 1.",
            code="ldp.bad_planner",
        )
    z = float(special.ndtri(1 - (1 - confidence) / 2))
    return math.floor(z * z * p * (1 - p) / (margin * margin)) + 1


def decide(
    claimed: float | None,
    *,
    lower: float | None,
    upper: float | None = None,
    shown_lower: float | None = None,
) -> tuple[str, str]:
    """(verdict, reason) of a measure (rules in the package docstring).

    ``lower``: a lower confidence bound on the privacy loss at level 1 − FALSE_ALARM_RATE;
    ``upper``: the upper confidence bound at that level of the loss on the mechanism's
    own worst-case event (white-box measures only; None for a pure lower bound);
    ``shown_lower``: the lower end the report shows (95 % interval, ε_LB at 1 − α).

    - violation (``bound_above_claim``) when lower > claimed + DECISION_TOLERANCE;
    - inconclusive (``weak_evidence``) when only ``shown_lower`` is above the claim;
    - inconclusive (``lower_bound_only``) when there is no upper bound;
    - consistent (``within_margin``) when upper ≤ (1 + CONSISTENT_MARGIN) · claimed;
    - else inconclusive (``interval_too_wide``).
    """
    if claimed is None or lower is None:
        return "inconclusive", "lower_bound_only"
    if lower > claimed + DECISION_TOLERANCE:
        return "violation", "bound_above_claim"
    if shown_lower is not None and shown_lower > claimed + DECISION_TOLERANCE:
        return "inconclusive", "weak_evidence"
    if upper is None:
        return "inconclusive", "lower_bound_only"
    if upper <= claimed * (1 + CONSISTENT_MARGIN):
        return "consistent", "within_margin"
    return "inconclusive", "interval_too_wide"


def ob_reason(claimed: float | None, ci: tuple[float, float] | None, disjoint: bool) -> str:
    """Why an OB audit is inconclusive (it always is: an estimate that can underestimate
    never clears a mechanism, and is not certified to convict one)."""
    if disjoint:
        return "disjoint_outputs"
    if ci is not None and claimed is not None and ci[0] > claimed:
        return "estimate_above_claim"
    return "no_evidence_at_resolution"


def _decision(rule: str, lower: float | None, upper: float | None) -> dict[str, Any]:
    """What ``details`` says about the decision (JSON-safe)."""
    return {
        "decision_rule": rule,
        "false_alarm_rate": FALSE_ALARM_RATE,
        "decision_lower": lower,
        "decision_upper": upper,
        "tolerance": DECISION_TOLERANCE,
        "consistent_margin": CONSISTENT_MARGIN,
    }


# The decision rule of a measure, as a code (README: "Verdicts"): white-box bounds on the
# mechanism's own event (violation or consistent), a learned lower bound (violation
# only), an estimate (neither).
_RULE_WHITE = "white_box_bounds"
_RULE_LEARNED = "lower_bound_only"
_RULE_OB = "estimate_only"


@dataclass(frozen=True)
class AuditReport:
    """One audit: the estimate or bound, its interval, and the verdict in plain words.

    ``epsilon_hat``: the AB estimate, or OB's ε̂_max; ``ci``: its interval (AB:
    Clopper–Pearson mapped; OB: bootstrap percentiles); ``epsilon_lb``: the certified
    lower bound (LB) at ``confidence``; ``verdict``: see :func:`decide`, with
    ``details["reason"]`` and the rule, bounds and false-alarm rate in ``details``.
    """

    method: str
    mechanism: dict[str, Any]
    epsilon_claimed: float | None
    epsilon_hat: float | None
    ci: tuple[float, float] | None
    epsilon_lb: float | None
    verdict: str
    confidence: float
    samples: int
    device: str
    seconds: float
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe summary (the CLI contract: epsilon_hat, ci, epsilon_lb, verdict,
        device, seconds; plus reason, false_alarm_rate and the decision bounds)."""
        return plain(
            {
                "method": self.method,
                "mechanism": self.mechanism,
                "epsilon_claimed": self.epsilon_claimed,
                "epsilon_hat": self.epsilon_hat,
                "ci": list(self.ci) if self.ci is not None else None,
                "epsilon_lb": self.epsilon_lb,
                "verdict": self.verdict,
                "confidence": self.confidence,
                "samples": self.samples,
                "device": self.device,
                "seconds": round(self.seconds, 4),
                **{k: v for k, v in self.details.items() if _scalar_like(v)},
            }
        )


def _scalar_like(value: Any) -> bool:
    return isinstance(value, (int, float, str, bool, type(None))) or (
        isinstance(value, (list, tuple, dict)) and len(str(value)) < 2000
    )


def verdict_report(
    method: str,
    described: dict[str, Any],
    claimed: float | None,
    details: dict[str, Any],
    *,
    rule: str,
    lower: float | None,
    upper: float | None,
    shown_lower: float | None,
    confidence: float,
    samples: int,
    device: str,
    started: float,
    estimate: float | None = None,
    ci: tuple[float, float] | None = None,
    bound: float | None = None,
) -> AuditReport:
    """The report of a measure judged by :func:`decide` (``lower``, ``upper``,
    ``shown_lower`` as there) under the decision rule ``rule``: ``details`` gains the
    rule and its bounds (:func:`_decision`) and the reason; ``seconds`` counts from
    ``started`` (a ``time.perf_counter()`` reading)."""
    verdict, reason = decide(claimed, lower=lower, upper=upper, shown_lower=shown_lower)
    details.update(_decision(rule, lower, upper))
    details["reason"] = reason
    return AuditReport(
        method=method,
        mechanism=described,
        epsilon_claimed=claimed,
        epsilon_hat=estimate,
        ci=ci,
        epsilon_lb=bound,
        verdict=verdict,
        confidence=confidence,
        samples=samples,
        device=device,
        seconds=time.perf_counter() - started,
        details=details,
    )
