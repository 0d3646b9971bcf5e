"""Tests of privcore.dp.dinner: the differencing attack of the dinner story (seed 000) with
exact answers and with ε-DP answers, and the posterior bound p·e^ε/(p·e^ε + 1 − p)
(SPEC §10)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from privcore.dp import differencing, dinner_story, dinner_table, posterior_bound
from privcore.errors import ParameterError


def test_posterior_bound_by_hand():
    # p = 1/2, ε = ln 3: (3/2)/(3/2 + 1/2) = 0.75
    assert posterior_bound(math.log(3), 0.5) == pytest.approx(0.75)
    # p = 1/4, ε = ln 2: (1/2)/(1/2 + 3/4) = 0.4
    assert posterior_bound(math.log(2), 0.25) == pytest.approx(0.4)
    assert posterior_bound(1.0, 0.0) == 0.0
    assert posterior_bound(1.0, 1.0) == 1.0
    assert posterior_bound(1000.0, 0.5) == pytest.approx(1.0)


def test_the_dinner_table():
    table = dinner_table()
    assert len(table) == 10
    assert table["status"].value_counts().to_dict() == {"couple": 8, "single": 2}


def test_exact_answers_reveal_the_leaver():
    story = dinner_story(math.log(3), seed=1)
    assert (story.diners_before, story.diners_after) == (10, 9)
    assert (story.singles_before, story.singles_after) == (2, 1)
    assert story.leaver_status == "single"
    assert story.posterior_exact_answers == 1.0
    assert story.posterior_max == pytest.approx(0.75)
    record = story.to_dict()
    assert record["posterior_exact_answers"] == 1.0
    assert record["posterior_max"] == pytest.approx(0.75)


def test_a_leaver_in_a_couple_is_revealed_too():
    story = dinner_story(1.0, leaver="Li Si", seed=1)
    assert (story.singles_before, story.singles_after) == (2, 2)
    assert story.attack.exact_difference == 0
    assert story.posterior_exact_answers == 1.0


@pytest.mark.parametrize("mechanism", ["geometric", "laplace"])
def test_dp_posteriors_stay_within_the_bound(mechanism):
    epsilon = math.log(3)
    story = dinner_story(epsilon, prior=0.5, mechanism=mechanism, draws=500, seed=3)
    posteriors = story.attack.posteriors
    assert posteriors.shape == (500,)
    assert posteriors.max() <= 0.75 + 1e-12
    assert posteriors.min() >= 0.25 - 1e-12
    # the bound is reached: a noisy count of 2 or more is e^ε times likelier if he is single
    assert np.isclose(posteriors, 0.75).any()


def test_differencing_any_person_of_a_table():
    frame = pd.DataFrame(
        {"zip": ["100", "100", "200", "200", "100"], "disease": ["flu", "hiv", "hiv", "flu", "hiv"]}
    )
    attack = differencing(frame, 1, {"disease": "hiv"}, epsilon=0.5, prior=0.2, draws=50, seed=4)
    assert (attack.count_with, attack.count_without) == (3, 2)
    assert attack.target_has_value
    assert attack.posterior_exact_answers == 1.0
    # prior 0.2, ε = 0.5: max = 0.2e^0.5/(0.2e^0.5 + 0.8), min = 0.2e^−0.5/(0.2e^−0.5 + 0.8)
    high = 0.2 * math.exp(0.5) / (0.2 * math.exp(0.5) + 0.8)
    low = 0.2 * math.exp(-0.5) / (0.2 * math.exp(-0.5) + 0.8)
    assert (attack.posterior_max, attack.posterior_min) == pytest.approx((high, low))
    assert np.all((attack.posteriors >= low - 1e-12) & (attack.posteriors <= high + 1e-12))
    clean = differencing(frame, 0, {"disease": "hiv"}, epsilon=0.5)
    assert (clean.count_with, clean.count_without, clean.target_has_value) == (3, 3, False)
    assert clean.posterior_exact_answers == 1.0


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"target_row": 9}, "dp.bad_target"),
        ({"where": {}}, "dp.no_condition"),
        ({"mechanism": "gaussian"}, "dp.bad_mechanism"),
        ({"prior": 1.5}, "dp.bad_prior"),
        ({"epsilon": -1}, "dp.bad_epsilon"),
    ],
)
def test_bad_attack_parameters(kwargs, code):
    frame = pd.DataFrame({"a": ["x", "y"]})
    arguments = {"target_row": 0, "where": {"a": "x"}, "epsilon": 1.0} | kwargs
    with pytest.raises(ParameterError) as caught:
        differencing(frame, **arguments)
    assert caught.value.code == code


def test_unknown_leaver_is_refused():
    with pytest.raises(ParameterError) as caught:
        dinner_story(1.0, leaver="Nobody")
    assert caught.value.code == "dp.bad_target"
