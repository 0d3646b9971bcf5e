"""Sequential composition of differentially private runs on the same data.

Runs with (ε₁, δ₁), …, (ε_k, δ_k)-DP mechanisms on one data set are (Σε_i, Σδ_i)-DP
(Dwork & Roth 2014, Theorem 3.16). :class:`Composition` holds a total (ε, δ) and a
ledger of what was spent, adds it up (``math.fsum``), and refuses a spend that would go
over the total with :class:`~privcore.errors.InfeasibleError` ``dp.budget_exceeded``, so
that a caller can refuse before any noise is drawn. :class:`privcore.dp.Budget` (queries
answered one by one) and :class:`privcore.runs.Accountant` (runs of any front end) are
its two budgets.
"""

from __future__ import annotations

import math
from typing import Any

from privcore.errors import InfeasibleError

__all__ = ["TOLERANCE", "Composition"]

TOLERANCE = 1e-9
"""Relative slack so that ε split into parts (10 × 0.1) can be spent exactly."""


class Composition:
    """A total (``epsilon``, ``delta``), already checked by the budget that holds it,
    and its ledger: items with ``epsilon`` and ``delta`` attributes."""

    def __init__(self, epsilon: float, delta: float) -> None:
        self.epsilon = epsilon
        self.delta = delta
        self._ledger: list[Any] = []

    @property
    def ledger(self) -> tuple[Any, ...]:
        return tuple(self._ledger)

    @property
    def spent(self) -> tuple[float, float]:
        """(Σε_i, Σδ_i) over the ledger."""
        return (
            math.fsum(item.epsilon for item in self._ledger),
            math.fsum(item.delta for item in self._ledger),
        )

    @property
    def remaining(self) -> tuple[float, float]:
        spent_epsilon, spent_delta = self.spent
        return max(0.0, self.epsilon - spent_epsilon), max(0.0, self.delta - spent_delta)

    def _refuse_if_over(self, epsilon: float, delta: float) -> None:
        """InfeasibleError ``dp.budget_exceeded`` when spending (ε, δ) more would go over
        the total (beyond :data:`TOLERANCE`)."""
        spent_epsilon, spent_delta = self.spent
        over_epsilon = spent_epsilon + epsilon > self.epsilon * (1 + TOLERANCE)
        over_delta = spent_delta + delta > self.delta * (1 + TOLERANCE)
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

    def totals(self) -> dict[str, float]:
        """The total, what is spent and what remains, as numbers."""
        spent_epsilon, spent_delta = self.spent
        remaining_epsilon, remaining_delta = self.remaining
        return {
            "epsilon": self.epsilon,
            "delta": self.delta,
            "spent_epsilon": spent_epsilon,
            "spent_delta": spent_delta,
            "remaining_epsilon": remaining_epsilon,
            "remaining_delta": remaining_delta,
        }
