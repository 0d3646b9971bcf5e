"""A privacy budget spent by sequential composition (SPEC §10).

Answering queries with (ε₁, δ₁), …, (ε_k, δ_k)-DP mechanisms on the same data is
(Σε_i, Σδ_i)-DP (Dwork & Roth 2014, Theorem 3.16). :class:`Budget` adds up what is spent,
keeps a ledger of the queries, and refuses a spend that would go over the total with
:class:`~privcore.errors.InfeasibleError` ``dp.budget_exceeded`` — before any noise is
drawn, so a refused query reveals nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from privcore.core import privacy_parameters
from privcore.core.jsonsafe import plain
from privcore.dp.parameters import check_epsilon
from privcore.dp.queries import NoisyAnswer, Query, answer
from privcore.errors import InfeasibleError

__all__ = ["Budget", "Spend"]

_TOLERANCE = 1e-9
"""Relative slack so that splitting ε into parts (10 × 0.1) can spend it all exactly."""


@dataclass(frozen=True)
class Spend:
    """One line of the ledger: what a query cost."""

    label: str
    epsilon: float
    delta: float

    def to_dict(self) -> dict[str, Any]:
        return {"label": self.label, "epsilon": self.epsilon, "delta": self.delta}


def _budget_delta(delta: Any) -> float:
    """δ of a budget or a spend: from 0 (pure ε-DP) up to but not including 1, else
    ParameterError ``dp.bad_delta``."""
    return privacy_parameters.check_delta(
        delta,
        allow_zero=True,
        message="δ must be a number from 0 (pure ε-DP) to less than 1, got {value!r}.",
    )


class Budget:
    """A total (ε, δ) spent query by query; ``spent`` and ``remaining`` are (ε, δ) pairs."""

    def __init__(self, epsilon: float, delta: float = 0.0) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.delta = _budget_delta(delta)
        self._ledger: list[Spend] = []

    @property
    def ledger(self) -> tuple[Spend, ...]:
        return tuple(self._ledger)

    @property
    def spent(self) -> tuple[float, float]:
        """(Σε_i, Σδ_i) over the ledger (sequential composition)."""
        return (
            math.fsum(item.epsilon for item in self._ledger),
            math.fsum(item.delta for item in self._ledger),
        )

    @property
    def remaining(self) -> tuple[float, float]:
        spent_epsilon, spent_delta = self.spent
        return max(0.0, self.epsilon - spent_epsilon), max(0.0, self.delta - spent_delta)

    def spend(self, epsilon: float, delta: float = 0.0, *, label: str = "") -> Spend:
        """Record a query costing (ε, δ); InfeasibleError ``dp.budget_exceeded`` (nothing
        recorded) when the totals would exceed the budget."""
        epsilon = check_epsilon(epsilon)
        delta = _budget_delta(delta)
        self._refuse_if_over(epsilon, delta)
        item = Spend(label, epsilon, delta)
        self._ledger.append(item)
        return item

    def answer(
        self,
        query: Query,
        mechanism: str | None = None,
        *,
        epsilon: float,
        delta: float | None = None,
        seed: Any = None,
    ) -> NoisyAnswer:
        """Spend (ε, δ) on ``query`` and answer it once (see :func:`queries.answer`).
        The budget is checked before any noise is drawn."""
        self._refuse_if_over(check_epsilon(epsilon), _budget_delta(delta or 0.0))
        result = answer(query, mechanism, epsilon=epsilon, delta=delta, draws=1, seed=seed)
        self.spend(result.epsilon, result.delta, label=query.label)
        return result

    def _refuse_if_over(self, epsilon: float, delta: float) -> None:
        spent_epsilon, spent_delta = self.spent
        over_epsilon = spent_epsilon + epsilon > self.epsilon * (1 + _TOLERANCE)
        over_delta = spent_delta + delta > self.delta * (1 + _TOLERANCE)
        if not (over_epsilon or over_delta):
            return
        remaining_epsilon, remaining_delta = self.remaining
        raise InfeasibleError(
            f"This query needs ε = {epsilon:g}, δ = {delta:g} but only ε = "
            f"{remaining_epsilon:g}, δ = {remaining_delta:g} of the budget "
            f"(ε = {self.epsilon:g}, δ = {self.delta:g}) remain.",
            code="dp.budget_exceeded",
            epsilon=epsilon,
            delta=delta,
            remaining_epsilon=remaining_epsilon,
            remaining_delta=remaining_delta,
            budget_epsilon=self.epsilon,
            budget_delta=self.delta,
        )

    def to_dict(self) -> dict[str, Any]:
        spent_epsilon, spent_delta = self.spent
        remaining_epsilon, remaining_delta = self.remaining
        return plain(
            {
                "epsilon": self.epsilon,
                "delta": self.delta,
                "spent_epsilon": spent_epsilon,
                "spent_delta": spent_delta,
                "remaining_epsilon": remaining_epsilon,
                "remaining_delta": remaining_delta,
                "ledger": [item.to_dict() for item in self._ledger],
            }
        )
