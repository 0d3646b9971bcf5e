"""Tests of the central mechanisms as classes (privcore.dp.mechanisms): hand-computed
scales, probabilities, variances and half-widths, the common base, the mechanisms by
name, and seeded outputs pinned to the values the one-call functions have always drawn
(the same random stream)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from privcore.dp import mechanisms as mech
from privcore.dp.mechanisms import (
    NOISE_MECHANISMS,
    DiscreteLaplace,
    Exponential,
    Gaussian,
    Laplace,
    Mechanism,
    NoiseMechanism,
    noise_mechanism,
)
from privcore.errors import ParameterError


def test_laplace_by_hand():
    laplace = Laplace(2, 0.5)
    assert (laplace.sensitivity, laplace.epsilon, laplace.delta) == (2.0, 0.5, 0.0)
    assert laplace.scale == 4.0  # b = Δ/ε
    # b·ln(1/β) = 4·ln 20
    assert laplace.half_width(0.05) == pytest.approx(11.982929094215963, rel=1e-15)
    assert laplace.half_width(math.exp(-1)) == pytest.approx(4.0, rel=1e-15)
    assert repr(laplace) == "Laplace(sensitivity=2.0, epsilon=0.5, delta=0.0)"


def test_discrete_laplace_by_hand():
    """ε = ln 2, Δ = 1: q = 1/2, P(0) = (1 − q)/(1 + q) = 1/3, P(±1) = 1/6, P(±2) = 1/12,
    Var = 2q/(1 − q)² = 4; P(|Z| ≥ m) = (4/3)·2^−m, ≤ 5 % first at m = 5 (1/24), so the
    95 % half-width is 4 (P(|Z| > 3) = 1/12 > 5 %)."""
    geometric = DiscreteLaplace(1, math.log(2))
    assert geometric.q == pytest.approx(0.5, rel=1e-15)
    assert geometric.scale == pytest.approx(1 / math.log(2), rel=1e-15)
    np.testing.assert_allclose(geometric.pmf([0, 1, -1, 2]), [1 / 3, 1 / 6, 1 / 6, 1 / 12])
    assert geometric.variance() == pytest.approx(4.0, rel=1e-12)
    assert geometric.half_width(0.05) == 4
    assert geometric.half_width(0.1) == 3  # (4/3)·2^−4 = 1/12 ≤ 0.1 < (4/3)·2^−3


def test_gaussian_and_its_interval():
    gaussian = Gaussian(1, 1.0, 1e-5)
    assert (gaussian.epsilon, gaussian.delta) == (1.0, 1e-5)
    assert gaussian.scale == mech.analytic_gaussian_sigma(1, 1.0, 1e-5)
    assert gaussian.scale == pytest.approx(3.7306316348159427, rel=1e-12)
    # σ·Φ⁻¹(0.975) = σ·1.959963984540054
    assert gaussian.half_width(0.05) == pytest.approx(gaussian.scale * 1.959963984540054)


def test_exponential_by_hand():
    """ε = 2·ln 2, Δu = 1: weights exp(ε·u/2) = 2^u, so utilities (0, 1, 2) give 1:2:4."""
    exponential = Exponential(1, 2 * math.log(2))
    np.testing.assert_allclose(exponential.probabilities([0, 1, 2]), [1 / 7, 2 / 7, 4 / 7])
    assert exponential.release([0, 1, 2], size=6, rng=7).shape == (6,)


def test_the_common_base():
    for mechanism in (Laplace(1, 1), DiscreteLaplace(1, 1), Gaussian(1, 1, 1e-6)):
        assert isinstance(mechanism, NoiseMechanism) and isinstance(mechanism, Mechanism)
    assert isinstance(Exponential(1, 1), Mechanism)
    assert not isinstance(Exponential(1, 1), NoiseMechanism)
    with pytest.raises(TypeError):
        Mechanism()  # abstract


def test_mechanisms_by_name():
    assert dict(NOISE_MECHANISMS) == {
        "laplace": Laplace,
        "geometric": DiscreteLaplace,
        "gaussian": Gaussian,
    }
    assert type(noise_mechanism("geometric", 2, 0.5)) is DiscreteLaplace
    gaussian = noise_mechanism("gaussian", 1, 1.0, 1e-5)
    assert (type(gaussian), gaussian.delta) == (Gaussian, 1e-5)


@pytest.mark.parametrize(
    ("make", "code"),
    [
        (lambda: Laplace(0, 1.0), "dp.bad_sensitivity"),
        (lambda: Laplace(1, -1), "dp.bad_epsilon"),
        (lambda: DiscreteLaplace(1.5, 1), "dp.bad_sensitivity"),
        (lambda: Gaussian(1, 1, 0), "dp.bad_delta"),
        (lambda: Laplace(1, 1e-300), "dp.noise_too_large"),
        (lambda: DiscreteLaplace(1, 1).release(1.5), "dp.not_integer"),
    ],
)
def test_parameters_are_checked(make, code):
    with pytest.raises(ParameterError) as caught:
        make()
    assert caught.value.code == code


# --------------------------------------------------------------------------- same streams
# Outputs of the one-call functions at these seeds, as drawn before the classes existed.


def test_laplace_stream_is_pinned():
    expected = [[4.395751953125, 1.431884765625], [2.986328125, 6.189208984375]]
    expected += [[2.330810546875, 11.142822265625]]
    drawn = Laplace(1, 0.5).release(np.array([3, 5]), size=(3, 2), rng=7)
    assert drawn.tolist() == expected
    assert mech.laplace(np.array([3, 5]), 1, 0.5, size=(3, 2), rng=7).tolist() == expected
    real = Laplace(1.5, 0.7).release(2.5, size=4, rng=1)
    assert real.tolist() == [4.552490234375, -0.6962890625, 12.951904296875, 2.103515625]


def test_discrete_laplace_stream_is_pinned():
    drawn = DiscreteLaplace(2, 0.7).release(np.array([3, 5]), size=(3, 2), rng=0)
    assert drawn.tolist() == [[3, 5], [-5, -12], [-5, 9]]
    assert drawn.dtype == np.int64


def test_gaussian_stream_is_pinned():
    drawn = Gaussian(1.5, 0.7, 1e-5).release(np.array([0.3, 5]), size=(2, 2), rng=1)
    assert drawn.tolist() == [[8.05810546875, -3.239013671875], [-2.67333984375, 0.939697265625]]


def test_exponential_stream_is_pinned():
    drawn = Exponential(1, 0.9).release([1, 2, 3.5], size=6, rng=7)
    assert drawn.tolist() == [2, 2, 2, 1, 1, 2]
    assert mech.exponential([1, 2, 3.5], 1, 0.9, size=6, rng=7).tolist() == drawn.tolist()
