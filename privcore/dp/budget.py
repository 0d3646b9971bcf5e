"""A privacy budget spent by sequential composition (SPEC §10).

Answering queries with (ε₁, δ₁), …, (ε_k, δ_k)-DP mechanisms on the same data is
(Σε_i, Σδ_i)-DP (Dwork & Roth 2014, Theorem 3.16). :class:`Budget` adds up what is spent,
keeps a ledger of the queries, and refuses a spend that would go over the total with
:class:`~privcore.errors.InfeasibleError` ``dp.budget_exceeded`` — before any noise is
drawn, so a refused query reveals nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from privcore.core import privacy_parameters
from privcore.core.composition import Composition
from privcore.core.jsonsafe import plain
from privcore.core.records import PlainFields
from privcore.dp.parameters import check_epsilon
from privcore.dp.queries import NoisyAnswer, Query, answer

__all__ = ["Budget", "Spend"]


@dataclass(frozen=True)
class Spend(PlainFields):
    """One line of the ledger: what a query cost."""

    label: str
    epsilon: float
    delta: float


def _budget_delta(delta: Any) -> float:
    """δ of a budget or a spend: from 0 (pure ε-DP) up to but not including 1, else
    ParameterError ``dp.bad_delta``."""
    return privacy_parameters.check_delta(
        delta,
        allow_zero=True,
        message="δ must be a number from 0 (pure ε-DP) to less than 1, got {value!r}.",
    )


class Budget(Composition):
    """A total (ε, δ) spent query by query; ``spent`` and ``remaining`` are (ε, δ) pairs
    (:class:`~privcore.core.composition.Composition`)."""

    def __init__(self, epsilon: float, delta: float = 0.0) -> None:
        super().__init__(check_epsilon(epsilon), _budget_delta(delta))

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

    def to_dict(self) -> dict[str, Any]:
        return plain({**self.totals(), "ledger": [item.to_dict() for item in self._ledger]})
