"""Tests of privcore.dp.budget: sequential composition totals, the ledger, and the refusal
past the budget (SPEC §10)."""

from __future__ import annotations

import pandas as pd
import pytest

from privcore.dp import Budget, count, mean
from privcore.errors import InfeasibleError, ParameterError


def test_sequential_composition_adds_epsilon_and_delta():
    budget = Budget(1.0, delta=1e-5)
    budget.spend(0.25, label="a")
    budget.spend(0.5, 4e-6, label="b")
    assert budget.spent == pytest.approx((0.75, 4e-6))
    assert budget.remaining == pytest.approx((0.25, 6e-6))
    assert [item.label for item in budget.ledger] == ["a", "b"]


def test_ten_tenths_spend_the_whole_budget():
    budget = Budget(1.0)
    for _ in range(10):
        budget.spend(0.1)
    assert budget.spent[0] == pytest.approx(1.0)
    with pytest.raises(InfeasibleError):
        budget.spend(0.01)


def test_spending_past_the_budget_is_refused_and_not_recorded():
    budget = Budget(1.0)
    budget.spend(0.7)
    with pytest.raises(InfeasibleError) as caught:
        budget.spend(0.4)
    assert caught.value.code == "dp.budget_exceeded"
    assert caught.value.params["remaining_epsilon"] == pytest.approx(0.3)
    assert budget.spent == pytest.approx((0.7, 0.0))
    assert len(budget.ledger) == 1
    # δ counts too: a pure budget refuses any δ
    with pytest.raises(InfeasibleError):
        budget.spend(0.1, 1e-9)


def test_answer_spends_the_query_cost_and_refuses_before_drawing():
    table = pd.DataFrame({"x": [1, 2, 3, 4]})
    budget = Budget(1.0, delta=1e-6)
    budget.answer(count(table), epsilon=0.5, seed=1)
    budget.answer(mean(table, "x", 0, 10), "gaussian", epsilon=0.25, delta=5e-7, seed=2)
    assert budget.spent == pytest.approx((0.75, 5e-7))
    assert [item.label for item in budget.ledger] == ["count()", "mean(x in [0, 10])"]
    with pytest.raises(InfeasibleError):
        budget.answer(count(table), epsilon=0.5)
    record = budget.to_dict()
    assert record["spent_epsilon"] == pytest.approx(0.75)
    assert len(record["ledger"]) == 2


@pytest.mark.parametrize(
    ("epsilon", "delta", "code"), [(0, 0, "dp.bad_epsilon"), (1, 1, "dp.bad_delta")]
)
def test_a_bad_budget_is_refused(epsilon, delta, code):
    with pytest.raises(ParameterError) as caught:
        Budget(epsilon, delta)
    assert caught.value.code == code
