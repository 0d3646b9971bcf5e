"""ε chosen from what a person cares about: an answer's error, or what an attacker can
learn about one person.

- :func:`epsilon_for_error` — the smallest ε at which a query's noise stays within
  ± ``error`` with probability ``confidence`` (the mechanism's own interval,
  :meth:`~privcore.dp.mechanisms.NoiseMechanism.half_width`, which shrinks as ε grows):
  for the Laplace mechanism in closed form, ε = Δ₁·ln(1/β)/error with β = 1 −
  confidence; for the discrete Laplace and the Gaussian by bisection on ε;
- :func:`epsilon_for_posterior` — the largest ε at which an attacker with prior p who
  sees an ε-DP answer believes any fact about one person at most ``posterior``: the
  bound p·e^ε/(p·e^ε + 1 − p) (:func:`privcore.dp.dinner.posterior_bound`) solved for ε,
  ε = ln(posterior·(1 − p) / (p·(1 − posterior)));
- :func:`epsilon_for_advantage` — the largest ε at which a membership-inference attacker's
  advantage (true-positive rate minus false-positive rate) is at most ``advantage``:
  an ε-DP mechanism allows at most (e^ε − 1)/(e^ε + 1) (Humphries et al. 2023,
  "Investigating membership inference attacks under data dependencies", Theorem 1;
  tighter than Yeom et al. 2018's e^ε − 1), solved for ε, ε = ln((1 + a)/(1 − a));
- :func:`tradeoff` — the curve between them: for each ε, the error at the confidence,
  the posterior bound and the advantage bound, to show what one buys with the other.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from privcore.dp.dinner import posterior_bound
from privcore.dp.mechanisms import noise_mechanism
from privcore.dp.parameters import MAX_EPSILON, check_beta
from privcore.errors import InfeasibleError, ParameterError

__all__ = [
    "advantage_bound",
    "epsilon_for_advantage",
    "epsilon_for_error",
    "epsilon_for_posterior",
    "tradeoff",
]

#: The smallest ε searched: below it every mechanism's noise is too wide to sample.
SMALLEST_EPSILON = 1e-4


def _half_width(mechanism: str, sensitivity: float, epsilon: float, delta: float, beta: float):
    return noise_mechanism(mechanism, sensitivity, epsilon, delta).half_width(beta)


def epsilon_for_error(
    error: float,
    confidence: float = 0.95,
    *,
    mechanism: str = "geometric",
    sensitivity: float = 1.0,
    delta: float = 0.0,
) -> float:
    """The smallest ε at which ``mechanism`` ("laplace", "geometric" — the discrete
    Laplace — or "gaussian" with ``delta``) on a query of ``sensitivity`` keeps its
    noise within ± ``error`` with probability at least ``confidence``. Refused in words
    when no ε up to the ceiling is enough."""
    if not (isinstance(error, (int, float)) and math.isfinite(error) and error > 0):
        raise ParameterError(
            f"The target error must be a number > 0, got {error!r}.",
            code="dp.bad_target_error",
            error=error,
        )
    beta = check_beta(1.0 - float(confidence))

    def over(epsilon: float) -> float:
        return _half_width(mechanism, sensitivity, epsilon, delta, beta) - error

    if mechanism == "laplace":
        return max(SMALLEST_EPSILON, sensitivity * math.log(1.0 / beta) / error)
    if over(MAX_EPSILON) > 0:
        raise InfeasibleError(
            f"No ε up to {MAX_EPSILON:g} keeps the error within ± {error:g}.",
            code="dp.target_unreachable",
            error=error,
            ceiling=MAX_EPSILON,
        )
    if over(SMALLEST_EPSILON) <= 0:
        return SMALLEST_EPSILON
    low, high = SMALLEST_EPSILON, MAX_EPSILON
    for _ in range(200):  # the discrete half-width is a step function: bisect to the step
        middle = math.sqrt(low * high)
        if over(middle) <= 0:
            high = middle
        else:
            low = middle
        if high / low < 1 + 1e-12:
            break
    return high


def epsilon_for_posterior(posterior: float, prior: float) -> float:
    """The largest ε whose answers leave an attacker with ``prior`` p at most
    ``posterior`` on any fact about one person (the module's formula); the posterior
    must lie above the prior and below 1."""
    if not 0.0 < prior < 1.0:
        raise ParameterError(
            f"The attacker's prior must lie strictly between 0 and 1, got {prior!r}: a prior "
            "of 0 or 1 is a certainty that no answer changes.",
            code="dp.bad_plan_prior",
            prior=prior,
        )
    if not prior < posterior < 1.0:
        raise ParameterError(
            f"The target posterior must lie between the prior {prior!r} and 1, got {posterior!r}.",
            code="dp.bad_target_posterior",
            posterior=posterior,
            prior=prior,
        )
    return math.log(posterior * (1.0 - prior) / (prior * (1.0 - posterior)))


def advantage_bound(epsilon: float) -> float:
    """The most a membership-inference attacker can gain over guessing against an ε-DP
    release: TPR − FPR ≤ (e^ε − 1)/(e^ε + 1) = tanh(ε/2)."""
    return math.tanh(float(epsilon) / 2.0)


def epsilon_for_advantage(advantage: float) -> float:
    """The largest ε whose membership advantage bound is at most ``advantage`` (in (0,
    1)): ε = ln((1 + a)/(1 − a)) = 2·artanh(a)."""
    if not (isinstance(advantage, (int, float)) and 0.0 < advantage < 1.0):
        raise ParameterError(
            f"The target advantage must lie strictly between 0 and 1, got {advantage!r}.",
            code="dp.bad_target_advantage",
            advantage=advantage,
        )
    return math.log((1.0 + advantage) / (1.0 - advantage))


def tradeoff(
    epsilons: Sequence[float],
    *,
    confidence: float = 0.95,
    prior: float = 0.5,
    mechanism: str = "geometric",
    sensitivity: float = 1.0,
    delta: float = 0.0,
) -> list[dict[str, Any]]:
    """For each ε: the error at ``confidence``, the posterior bound from ``prior`` and
    the membership advantage bound."""
    beta = check_beta(1.0 - float(confidence))
    return [
        {
            "epsilon": float(epsilon),
            "error": float(_half_width(mechanism, sensitivity, epsilon, delta, beta)),
            "posterior": posterior_bound(epsilon, prior),
            "advantage": advantage_bound(epsilon),
        }
        for epsilon in epsilons
    ]
