"""The certified lower bound (beyond seed 001): a distinguishing attack certifies
ε_LB = ln(P_lower[A(v)∈S] / P_upper[A(v')∈S]) with one-sided Clopper–Pearson bounds
(α/2 each, so the statement holds with confidence 1 − α). White-box, S is the
mechanism's likelihood-ratio event; black-box, S is learned on half the samples
(:func:`privcore.ldp.audit.learned._learned_bound`) and counted on the other half.
"""

from __future__ import annotations

import time
from typing import Any

from privcore.core.binomial import log_ratio as _log_ratio
from privcore.core.binomial import log_ratio_lower as _bound
from privcore.core.binomial import log_ratio_upper as _event_upper
from privcore.core.progress import Progress, Stage
from privcore.errors import ParameterError
from privcore.ldp.audit.learned import _learned_bound
from privcore.ldp.audit.memory import _one_at_a_time, _releasing, memory_plan
from privcore.ldp.audit.sampling import _check_n, _event_counts, _mechanism_seed, _Reports
from privcore.ldp.audit.verdicts import (
    _RULE_LEARNED,
    _RULE_WHITE,
    FALSE_ALARM_RATE,
    AuditReport,
    verdict_report,
)
from privcore.ldp.base import Mechanism
from privcore.ldp.device import device, generator


@_releasing
@_one_at_a_time
def lower_bound(
    mechanism: Mechanism,
    *,
    n: int = 1_000_000,
    seed: int = 0,
    alpha: float = 0.05,
    mode: str = "white",
    progress: Progress | None = None,
) -> AuditReport:
    """Certified ε_LB with confidence 1 − α (see the package docstring).

    ``mode`` "white": the mechanism's own likelihood-ratio event for its worst pair;
    "black": an event learned from half of the samples and counted on the other half.
    The verdict uses the same counts at level 1 − 10⁻³
    (:func:`~privcore.ldp.audit.verdicts.decide`); white-box, the event's upper bound can
    also show the mechanism consistent with its claim.
    """
    started = time.perf_counter()
    n = _check_n(n)
    if not 0 < alpha < 0.5:
        raise ParameterError("alpha must be in (0, 0.5).", code="ldp.bad_alpha")
    if mode not in ("white", "black"):
        raise ParameterError("mode must be 'white' or 'black'.", code="ldp.bad_mode")
    plan = memory_plan("lb", mechanism, n=n, mode=mode)
    dev = device()
    stream = _mechanism_seed(seed, mechanism, f"lb-{mode}")
    gen = generator(stream, dev)
    ticker = Stage(progress)
    v, w = mechanism.worst_pair()
    far = FALSE_ALARM_RATE
    if mode == "white":
        k_v, k_w = _event_counts(
            mechanism, v, w, n, plan.chunk_rows, gen, dev, ticker, "Lower bound"
        )
        bound = _bound(k_v, n, k_w, n, alpha)
        lower, upper = _bound(k_v, n, k_w, n, far), _event_upper(k_v, n, k_w, n, far)
        details: dict[str, Any] = {
            "mode": "white",
            "inputs": [v, w],
            "event_counts": [k_v, k_w],
            "point_estimate": _log_ratio(k_v / n, k_w / n),
        }
        rule = _RULE_WHITE
    else:
        reports = _Reports(mechanism, [v, w], plan.chunk_rows, gen, dev, vectors=True)
        kind = mechanism.output_kind
        bound, lower, details = _learned_bound(
            reports,
            [n, n],
            continuous=kind in ("real", "reals"),
            values=int(mechanism.d) if kind == "category" else 2,
            alpha=alpha,
            decision_alpha=far,
            labels=[v, w],
            progress=ticker,
        )
        upper, rule = None, _RULE_LEARNED
    ticker(1.0, "Lower bound: done")
    return verdict_report(
        "lb",
        mechanism.describe(),
        mechanism.epsilon,
        details,
        rule=rule,
        lower=lower,
        upper=upper,
        shown_lower=bound,
        confidence=1 - alpha,
        samples=n,
        device=dev,
        started=started,
        bound=bound,
    )
