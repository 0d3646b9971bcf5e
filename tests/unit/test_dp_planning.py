"""ε chosen from a target (privcore.dp.planning): the closed forms by hand, and over 200
draws the chosen ε meets its target — the noise within the error at the confidence,
the differencing attack's posterior within the bound."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest

from privcore.dp.dinner import differencing
from privcore.dp.mechanisms import noise_mechanism
from privcore.dp.planning import epsilon_for_error, epsilon_for_posterior, tradeoff
from privcore.errors import ParameterError

DRAWS = 200


def test_the_laplace_epsilon_by_hand():
    # ε = Δ·ln(1/β)/error = ln(20)/10 for ± 10 at 95 %
    assert epsilon_for_error(10, 0.95, mechanism="laplace") == pytest.approx(math.log(20) / 10)


def test_the_posterior_epsilon_by_hand():
    # prior ½, posterior ¾: ε = ln(0.75·0.5 / (0.5·0.25)) = ln 3
    assert epsilon_for_posterior(0.75, 0.5) == pytest.approx(math.log(3))
    # prior 0.1, posterior 0.5: ln(0.5·0.9 / (0.1·0.5)) = ln 9
    assert epsilon_for_posterior(0.5, 0.1) == pytest.approx(math.log(9))


@pytest.mark.parametrize("mechanism", ["laplace", "geometric", "gaussian"])
def test_the_chosen_epsilon_keeps_200_answers_within_the_error(mechanism):
    delta = 1e-6 if mechanism == "gaussian" else 0.0
    epsilon = epsilon_for_error(5, 0.9, mechanism=mechanism, delta=delta)
    noise = noise_mechanism(mechanism, 1.0, epsilon, delta)
    answers = noise.release(np.full(DRAWS, 100.0), rng=np.random.default_rng(7))
    within = int(np.sum(np.abs(np.asarray(answers) - 100.0) <= 5))
    # the share within ± 5 is not below 90 %: a one-sided binomial test at 1 %
    assert binomtest(within, DRAWS, 0.9, alternative="less").pvalue > 0.01, within
    # and it is the smallest: a tenth less ε gives a wider interval than ± 5
    assert noise_mechanism(mechanism, 1.0, epsilon * 0.9, delta).half_width(0.1) > 5


def test_the_chosen_epsilon_keeps_the_attackers_posterior_within_the_target():
    epsilon = epsilon_for_posterior(0.7, 0.5)
    frame = pd.DataFrame(
        {"name": [f"p{i}" for i in range(40)], "ill": [i % 3 == 0 for i in range(40)]}
    )
    attack = differencing(frame, 0, {"ill": True}, epsilon=epsilon, prior=0.5, draws=DRAWS, seed=3)
    assert max(attack.posteriors) <= 0.7 + 1e-12  # every one of 200 draws
    assert attack.posterior_max == pytest.approx(0.7)


def test_the_curve_trades_error_for_posterior():
    curve = tradeoff([0.1, 1.0, 5.0], confidence=0.95, prior=0.5)
    errors = [p["error"] for p in curve]
    posteriors = [p["posterior"] for p in curve]
    assert errors == sorted(errors, reverse=True) and posteriors == sorted(posteriors)


def test_impossible_targets_are_refused_in_words():
    with pytest.raises(ParameterError) as low:
        epsilon_for_posterior(0.4, 0.5)  # below the prior: no ε gives it
    assert low.value.code == "dp.bad_target_posterior"
    for certain in (0.0, 1.0):  # a prior of 0 or 1 is a certainty: refused as such
        with pytest.raises(ParameterError) as prior:
            epsilon_for_posterior(0.9, certain)
        assert prior.value.code == "dp.bad_plan_prior" and "strictly between" in str(prior.value)
    with pytest.raises(ParameterError) as zero:
        epsilon_for_error(0, 0.95)
    assert zero.value.code == "dp.bad_target_error"


def test_the_advantage_epsilon_by_hand():
    from privcore.dp.planning import advantage_bound, epsilon_for_advantage

    # a = ½: ε = ln(1.5/0.5) = ln 3, and back: (3 − 1)/(3 + 1) = ½
    assert epsilon_for_advantage(0.5) == pytest.approx(math.log(3))
    assert advantage_bound(math.log(3)) == pytest.approx(0.5)
    with pytest.raises(ParameterError) as raised:
        epsilon_for_advantage(1.0)
    assert raised.value.code == "dp.bad_target_advantage"


def test_a_membership_attacker_at_the_chosen_epsilon_stays_within_the_advantage():
    """Randomized response on one membership bit at ε (the mechanism that reaches the
    bound): over 200 draws per world, TPR − FPR stays within the target (binomial 99 %)."""
    from privcore.dp.planning import epsilon_for_advantage

    epsilon = epsilon_for_advantage(0.3)
    keep = math.exp(epsilon) / (1 + math.exp(epsilon))
    rng = np.random.default_rng(11)
    said_in_when_in = int(np.sum(rng.random(DRAWS) < keep))
    said_in_when_out = int(np.sum(rng.random(DRAWS) >= keep))
    tpr = binomtest(said_in_when_in, DRAWS).proportion_ci(0.99).low
    fpr = binomtest(said_in_when_out, DRAWS).proportion_ci(0.99).high
    assert tpr - fpr <= 0.3
    assert abs((said_in_when_in - said_in_when_out) / DRAWS - 0.3) < 0.15
