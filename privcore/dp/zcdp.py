"""Zero-concentrated differential privacy (zCDP): the accounting of the marginal-based
synthesizers, whose steps (measuring marginals with Gaussian noise, choosing them with
the exponential mechanism) compose by adding their ρ.

- :func:`approx_delta` — the δ at which a ρ-zCDP mechanism is (ε, δ)-DP, by the
  conversion of Canonne, Kamath & Steinke (2020, "The discrete Gaussian for differential
  privacy", Corollary 13)::

      δ = inf over α > 1 of  exp((α − 1)(αρ − ε)) / (α − 1) · (1 − 1/α)^α

  tighter than Bun & Steinke's ε = ρ + 2·√(ρ·ln(1/δ))
  (:func:`privcore.dp.mechanisms.zcdp_to_approx`);
- :func:`rho_for` — the largest ρ whose guarantee is (ε, δ)-DP by that conversion: the
  budget a synthesizer given (ε, δ) spends;
- :func:`exponential_rho` — the exponential mechanism with ε (a score of sensitivity 1)
  is ε²/8-zCDP (Cesar & Rogers 2021, "Bounding, concentrating, and truncating: unifying
  privacy loss composition for data analytics", bounded-range mechanisms);
- :class:`ZcdpLedger` — a ρ budget and the ledger of the steps that spend it, refusing a
  step that would go over the total before the step draws anything.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

from scipy.optimize import brentq, minimize_scalar

from privcore.core.composition import TOLERANCE
from privcore.core.privacy_parameters import check_delta
from privcore.dp.parameters import check_epsilon, check_rho
from privcore.errors import InfeasibleError

__all__ = ["ZcdpLedger", "ZcdpStep", "approx_delta", "exponential_rho", "rho_for"]


def _log_delta_at(alpha: float, rho: float, epsilon: float) -> float:
    """ln of the bound at order α: (α − 1)(αρ − ε) + α·ln(1 − 1/α) − ln(α − 1)."""
    return (
        (alpha - 1.0) * (alpha * rho - epsilon)
        + alpha * math.log1p(-1.0 / alpha)
        - math.log(alpha - 1.0)
    )


def approx_delta(rho: float, epsilon: float) -> float:
    """The smallest δ for which a ρ-zCDP mechanism is (ε, δ)-DP by Canonne, Kamath &
    Steinke's conversion (the module's formula), at most 1. The infimum over α is
    found numerically on α ∈ (1, (ε + 1)/(2ρ) + 2]: beyond it the bound grows."""
    return math.exp(_log_approx_delta(check_rho(rho), check_epsilon(epsilon)))


def _log_approx_delta(rho: float, epsilon: float) -> float:
    """ln of :func:`approx_delta` (finite where δ itself would underflow to 0)."""
    upper = (epsilon + 1.0) / (2.0 * rho) + 2.0
    found = minimize_scalar(
        lambda a: _log_delta_at(a, rho, epsilon),
        bounds=(1.0 + 1e-12, upper),
        method="bounded",
        options={"xatol": 1e-12 * upper, "maxiter": 500},
    )
    return min(0.0, float(found.fun))


def rho_for(epsilon: float, delta: float) -> float:
    """The largest ρ with :func:`approx_delta` (ρ, ε) ≤ δ: a ρ-zCDP run is then
    (ε, δ)-DP. δ must be > 0 (zCDP gives no pure ε-DP). Found by bracketing: the δ of
    the conversion grows with ρ."""
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False, code="dp.bad_delta")
    target = math.log(delta)

    def gap(rho: float) -> float:
        return _log_approx_delta(rho, epsilon) - target

    # The classic conversion ε = ρ + 2√(ρ ln 1/δ) (Bun & Steinke 2016, Prop. 1.3) is looser
    # than approx_delta's, so its ρ is within δ: half of it brackets the answer from below
    # at any ε (1e-12 alone did not for ε ≲ 1e-5, where ρ is ~1e-14).
    log_inverse = -target
    classic = (epsilon / (math.sqrt(log_inverse + epsilon) + math.sqrt(log_inverse))) ** 2
    low, high = min(1e-12, 0.5 * classic), epsilon + 1.0
    if gap(low) > 0:  # even the smallest ρ is over δ: no budget to spend
        return 0.0
    xtol = 1e-15 if low == 1e-12 else 1e-12 * low
    return brentq(gap, low, high, xtol=xtol, rtol=1e-12, maxiter=500)


def exponential_rho(epsilon: float) -> float:
    """ρ = ε²/8 of the exponential mechanism run with ε on a score of sensitivity 1 (a
    bounded-range mechanism: Cesar & Rogers 2021)."""
    epsilon = check_epsilon(epsilon)
    return epsilon * epsilon / 8.0


@dataclass(frozen=True)
class ZcdpStep:
    """One step of a zCDP run: what it is (``label``) and the ρ it spends."""

    label: str
    rho: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class ZcdpLedger:
    """A budget of ``rho`` (ρ-zCDP) and the steps that spend it, in order. Steps add
    up (zCDP composes by adding ρ: Bun & Steinke 2016, Lemma 2.3); :meth:`spend` refuses
    a step that would go over the total with InfeasibleError ``dp.budget_exceeded``,
    before the step draws any noise."""

    def __init__(self, rho: float) -> None:
        self.rho = check_rho(rho)
        self._steps: list[ZcdpStep] = []

    @property
    def steps(self) -> tuple[ZcdpStep, ...]:
        return tuple(self._steps)

    @property
    def spent(self) -> float:
        return math.fsum(step.rho for step in self._steps)

    @property
    def remaining(self) -> float:
        return max(0.0, self.rho - self.spent)

    def spend(self, label: str, rho: float) -> ZcdpStep:
        """Record a step spending ``rho``, or refuse it (nothing recorded) when the
        total would go over the budget (beyond a relative 10⁻⁹, so that equal parts of
        the budget can all be spent)."""
        rho = check_rho(rho)
        if self.spent + rho > self.rho * (1 + TOLERANCE):
            raise InfeasibleError(
                f"The step {label!r} needs ρ = {rho:g} but only ρ = {self.remaining:g} of "
                f"the budget (ρ = {self.rho:g}) remains.",
                code="dp.budget_exceeded",
                rho=rho,
                remaining_rho=self.remaining,
                budget_rho=self.rho,
            )
        step = ZcdpStep(str(label), rho)
        self._steps.append(step)
        return step

    def to_dict(self) -> dict[str, Any]:
        """The budget, what is spent and every step, as numbers and labels."""
        return {
            "rho": self.rho,
            "spent_rho": self.spent,
            "remaining_rho": self.remaining,
            "steps": [step.to_dict() for step in self._steps],
        }
