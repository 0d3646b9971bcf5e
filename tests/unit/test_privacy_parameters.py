"""Tests of privcore.core.privacy_parameters: the one check of ε and δ shared by central
and local DP, by hand (every case's value, code, message and params), and the words of
the codes it raises for central DP in both languages."""

from __future__ import annotations

import math
import string

import numpy as np
import pytest

from privcore.core.privacy_parameters import Limit, as_float, check_delta, check_epsilon
from privcore.dp import Budget
from privcore.dp import mechanisms as mech
from privcore.dp import parameters as dp_parameters
from privcore.errors import ParameterError
from privcore.words.catalog import catalogue, format_text

EPSILON_WORDS = "ε must be a finite number > 0 (ε ≤ 0 gives no privacy guarantee), got {}."


def _refused(call) -> ParameterError:
    with pytest.raises(ParameterError) as caught:
        call()
    return caught.value


# --------------------------------------------------------------------------- ε


@pytest.mark.parametrize(
    ("value", "expected"),
    [(0.5, 0.5), (1, 1.0), ("2", 2.0), (1e-9, 1e-9), (1e308, 1e308), (np.float32(0.25), 0.25)],
)
def test_epsilon_accepted_as_a_float(value, expected):
    number = check_epsilon(value)
    assert number == expected and type(number) is float


@pytest.mark.parametrize(
    "value",
    [0, -1.0, math.nan, math.inf, -math.inf, "abc", None, True, np.bool_(True), [1.0]],
)
def test_epsilon_refused_with_code_message_and_params(value):
    error = _refused(lambda: check_epsilon(value))
    assert error.code == "dp.bad_epsilon"
    assert str(error) == EPSILON_WORDS.format(repr(value))
    assert list(error.params) == ["epsilon"]
    assert error.params["epsilon"] is value


def test_a_bool_is_not_an_epsilon_anywhere_in_central_dp():
    """float(True) is 1.0: a bool once passed as ε = 1."""
    assert _refused(lambda: mech.check_epsilon(True)).code == "dp.bad_epsilon"
    assert _refused(lambda: mech.laplace(0, 1, True)).code == "dp.bad_epsilon"
    assert _refused(lambda: Budget(True)).code == "dp.bad_epsilon"
    assert _refused(lambda: Budget(1.0).spend(False)).code == "dp.bad_epsilon"


def test_epsilon_name_and_code_are_the_caller_s():
    error = _refused(lambda: check_epsilon(-2, name="epsilon_total", code="ldp.bad_epsilon"))
    assert error.code == "ldp.bad_epsilon"
    assert error.params == {"epsilon_total": -2}


def test_infinite_epsilon_only_when_allowed():
    assert check_epsilon(math.inf, allow_infinite=True) == math.inf
    assert check_epsilon(3, allow_infinite=True) == 3.0
    for value in (math.nan, -math.inf, 0):
        error = _refused(lambda value=value: check_epsilon(value, allow_infinite=True))
        assert error.code == "dp.bad_epsilon"
        assert str(error) == (
            "ε must be a number > 0 (ε ≤ 0 gives no privacy guarantee) or ∞ (no noise), "
            f"got {value!r}."
        )


def test_limits_by_hand():
    ceiling = Limit(20.0, "x.too_large", "ε = {number:g} is above {limit:g}.")
    floor = Limit(0.5, "x.too_small", "ε = {number:g} is below {limit:g}.")
    assert check_epsilon(20, at_most=ceiling, at_least=floor) == 20.0  # the ends are in
    assert check_epsilon(0.5, at_most=ceiling, at_least=floor) == 0.5
    high = _refused(lambda: check_epsilon("25", at_most=ceiling))
    assert (high.code, str(high), high.params) == (
        "x.too_large",
        "ε = 25 is above 20.",
        {"epsilon": 25.0, "limit": 20.0},
    )
    low = _refused(lambda: check_epsilon(0.25, at_least=floor, name="eps"))
    assert (low.code, str(low), low.params) == (
        "x.too_small",
        "ε = 0.25 is below 0.5.",
        {"eps": 0.25, "limit": 0.5},
    )
    # the rule of every ε comes first: 0 is bad, not merely below the floor
    assert _refused(lambda: check_epsilon(0, at_least=floor)).code == "dp.bad_epsilon"


def test_central_dp_limits():
    huge = _refused(lambda: mech.check_epsilon(1e308))
    assert huge.code == "dp.epsilon_too_large"
    assert str(huge) == (
        "ε = 1e+308 is above 1000, the largest ε accepted: such an ε protects nothing, and "
        "the noise could not be sampled exactly."
    )
    assert huge.params == {"epsilon": 1e308, "limit": 1000}
    assert mech.check_epsilon(1e-9) == 1e-9  # a part of a split ε may be tiny
    tiny = _refused(lambda: mech.check_request_epsilon(1e-9))
    assert tiny.code == "dp.epsilon_too_small"
    assert str(tiny) == (
        "ε = 1e-09 is below 1e-06, the smallest ε accepted: the noise would be more than a "
        "million times the sensitivity, every answer only noise."
    )
    assert tiny.params == {"epsilon": 1e-9, "limit": 1e-6}
    assert mech.check_request_epsilon(1000) == 1000.0


# --------------------------------------------------------------------------- δ


def test_delta_by_hand():
    assert check_delta(1e-6) == 1e-6
    assert check_delta("0.5") == 0.5
    assert check_delta(0, allow_zero=True) == 0.0
    assert check_delta(math.nextafter(1.0, 0.0)) == math.nextafter(1.0, 0.0)


@pytest.mark.parametrize("value", [0, 0.0, 1, 1.5, -0.1, math.nan, math.inf, "x", None, True])
def test_delta_refused_strictly_between_0_and_1(value):
    error = _refused(lambda: check_delta(value))
    assert error.code == "dp.bad_delta"
    assert str(error) == (
        f"δ must be a number strictly between 0 and 1 (for example 1e-6), got {value!r}."
    )
    assert list(error.params) == ["delta"]
    assert error.params["delta"] is value


@pytest.mark.parametrize("value", [1, -1e-12, math.nan, "x", False])
def test_delta_refused_from_0_up_to_1(value):
    error = _refused(lambda: check_delta(value, allow_zero=True))
    assert error.code == "dp.bad_delta"
    assert str(error) == (
        f"δ must be a number from 0 (pure ε-DP) up to but not including 1, got {value!r}."
    )


def test_delta_name_code_and_words_are_the_caller_s():
    error = _refused(
        lambda: check_delta(2, name="delta_total", code="ldp.bad_delta", message="δ? {value!r}")
    )
    assert (error.code, str(error), error.params) == ("ldp.bad_delta", "δ? 2", {"delta_total": 2})


def test_each_dp_caller_keeps_its_words_for_delta():
    budget = _refused(lambda: Budget(1.0, 1.0))
    assert str(budget) == "δ must be a number from 0 (pure ε-DP) to less than 1, got 1.0."
    assert _refused(lambda: mech.gaussian(0.0, 1.0, 1.0, 0)).code == "dp.bad_delta"
    assert Budget(1.0, 0).delta == 0.0


def test_as_float():
    assert as_float("2") == 2.0 and as_float(3) == 3.0 and as_float(True) == 1.0
    assert math.isnan(as_float(None)) and math.isnan(as_float("x")) and math.isnan(as_float([1]))


# --------------------------------------------------------------------------- words


def _placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(
    "call",
    [
        lambda: dp_parameters.check_epsilon(-1),
        lambda: dp_parameters.check_epsilon(5000),
        lambda: dp_parameters.check_request_epsilon(1e-8),
        lambda: dp_parameters.check_delta(2),
        lambda: Budget(1.0, -1),
    ],
)
def test_central_dp_errors_of_the_shared_check_have_filled_words(lang, call):
    """The shared check raises with the caller's code; the catalogue words that code with
    the params it carries, in both languages."""
    error = _refused(call)
    template = catalogue(lang)[f"error.{error.code}"]
    assert _placeholders(template) <= set(error.params), (error.code, template)
    shown = format_text(template, error.params)
    assert "{" not in shown
