"""zCDP accounting (privcore.dp.zcdp): the conversion to (ε, δ) against a brute-force
search over the Rényi order, the budget a synthesizer spends, the exponential
mechanism's ρ and the ledger that refuses a step over the budget."""

from __future__ import annotations

import math

import numpy as np
import pytest

from privcore.dp.mechanisms import zcdp_to_approx
from privcore.dp.zcdp import ZcdpLedger, approx_delta, exponential_rho, rho_for
from privcore.errors import InfeasibleError, ParameterError


def _brute_force_delta(rho: float, epsilon: float) -> float:
    """The conversion's infimum over α on a fine grid (10⁶ orders, log-spaced)."""
    alpha = 1.0 + np.logspace(-8, 4, 1_000_000)
    log_delta = (
        (alpha - 1) * (alpha * rho - epsilon) + alpha * np.log1p(-1 / alpha) - np.log(alpha - 1)
    )
    return float(min(1.0, np.exp(log_delta.min())))


@pytest.mark.parametrize(("rho", "epsilon"), [(0.01, 1.0), (0.1, 2.0), (0.5, 3.0), (1.0, 1.0)])
def test_the_conversion_is_its_infimum_over_the_renyi_order(rho, epsilon):
    assert approx_delta(rho, epsilon) == pytest.approx(_brute_force_delta(rho, epsilon), rel=1e-6)


def test_the_budget_for_epsilon_1_and_delta_1e_9_beats_the_simpler_conversion():
    # Bun & Steinke: ε = ρ + 2√(ρ·ln(1/δ)); with s = √ρ, s² + 2s√L − ε = 0, L = ln 10⁹
    L = math.log(1e9)  # 20.7232658…
    loose = (-math.sqrt(L) + math.sqrt(L + 1.0)) ** 2  # 0.0117812…
    assert loose == pytest.approx(0.0117812, abs=1e-7)
    assert zcdp_to_approx(loose, 1e-9) == pytest.approx(1.0)
    rho = rho_for(1.0, 1e-9)
    assert rho > loose  # the tighter conversion leaves more to spend
    assert approx_delta(rho, 1.0) == pytest.approx(1e-9, rel=1e-6)  # exactly at δ
    assert approx_delta(rho * 1.01, 1.0) > 1e-9  # a little more is over


def test_more_epsilon_or_more_delta_is_more_budget():
    assert rho_for(2.0, 1e-9) > rho_for(1.0, 1e-9)
    assert rho_for(1.0, 1e-6) > rho_for(1.0, 1e-9)


@pytest.mark.parametrize("epsilon", [1e-10, 1e-6, 1e-5, 1e-3])
def test_a_tiny_epsilon_still_has_its_budget(epsilon):
    # below ε ≈ 1e-5 the answer is under the old bracket's floor of 1e-12
    rho = rho_for(epsilon, 1e-9)
    L = math.log(1e9)
    classic = (epsilon / (math.sqrt(L + epsilon) + math.sqrt(L))) ** 2
    assert rho >= classic > 0  # at least the looser conversion's ρ
    assert approx_delta(rho, epsilon) == pytest.approx(1e-9, rel=1e-6)


def test_zcdp_needs_a_delta_above_zero():
    with pytest.raises(ParameterError) as refused:
        rho_for(1.0, 0.0)
    assert refused.value.code == "dp.bad_delta"


def test_the_exponential_mechanism_spends_epsilon_squared_over_8():
    assert exponential_rho(1.0) == 0.125
    assert exponential_rho(0.2) == pytest.approx(0.005)


def test_the_steps_add_up_to_the_budget_and_one_more_is_refused_before_it_runs():
    ledger = ZcdpLedger(0.3)
    for label in ("one-way marginals", "selection", "two-way marginals"):
        ledger.spend(label, 0.1)  # three equal thirds: spent exactly, within 10⁻⁹
    assert ledger.spent == pytest.approx(0.3)
    assert [s.label for s in ledger.steps] == [
        "one-way marginals",
        "selection",
        "two-way marginals",
    ]
    with pytest.raises(InfeasibleError) as refused:
        ledger.spend("one more round", 0.001)
    assert refused.value.code == "dp.budget_exceeded"
    assert len(ledger.steps) == 3  # nothing recorded for the refused step
    assert ledger.to_dict()["remaining_rho"] == pytest.approx(0.0, abs=1e-15)
