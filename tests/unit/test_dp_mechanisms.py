"""Tests of privcore.dp.mechanisms (SPEC §10): hand-computed scales and conversions, the
analytic Gaussian σ against its defining equation, each sampler's noise against its exact
distribution (fixed seeds, 20,000 draws), the output grid that keeps the low-order bits
independent of the true value (Mironov 2012), and parameter validation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from scipy.special import ndtr

from privcore.dp import mechanisms as mech
from privcore.dp import sampling
from privcore.errors import ParameterError

ALPHA = 0.001  # goodness-of-fit p-values must exceed this
DRAWS = 20_000


# --------------------------------------------------------------------------- hand-computed


def test_laplace_scale_is_sensitivity_over_epsilon():
    assert mech.laplace_scale(2, 0.5) == 4.0
    assert mech.laplace_scale(1, 1) == 1.0


def test_laplace_half_width_is_scale_times_log_one_over_beta():
    # b = 4, β = 0.05: 4·ln 20
    assert mech.laplace_half_width(2, 0.5, 0.05) == pytest.approx(4 * math.log(20))


def test_discrete_laplace_pmf_variance_and_half_width_by_hand():
    # ε = ln 2, Δ = 1: q = 1/2, P(0) = (1 − q)/(1 + q) = 1/3, P(±1) = 1/6, Var = 2q/(1−q)² = 4
    epsilon = math.log(2)
    assert mech.discrete_laplace_pmf(0, 1, epsilon) == pytest.approx(1 / 3)
    assert mech.discrete_laplace_pmf(-1, 1, epsilon) == pytest.approx(1 / 6)
    assert mech.discrete_laplace_variance(1, epsilon) == pytest.approx(4.0)
    # P(|Z| ≥ m) = (4/3)·2^−m: P(|Z| > 3) = 1/12 > 5 %, P(|Z| > 4) = 1/24 ≤ 5 %, so k = 4
    assert mech.discrete_laplace_half_width(1, epsilon, 0.05) == 4
    # Δ = 2 at ε = 2 ln 2 is the same q
    assert mech.discrete_laplace_variance(2, 2 * epsilon) == pytest.approx(4.0)


def test_zcdp_sigma_and_conversion_by_hand():
    # σ = Δ₂/√(2ρ): Δ₂ = 2, ρ = 0.5 → 2
    assert mech.zcdp_sigma(2, 0.5) == pytest.approx(2.0)
    # ε = ρ + 2√(ρ ln(1/δ)): ρ = 1/8, δ = e^−8 → 1/8 + 2·√1 = 2.125
    assert mech.zcdp_to_approx(0.125, math.exp(-8)) == pytest.approx(2.125)


def _gaussian_delta(sigma: float, sensitivity: float, epsilon: float) -> float:
    """δ(σ) = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ) (Balle & Wang 2018, Theorem 8)."""
    a = sensitivity / (2 * sigma)
    b = epsilon * sigma / sensitivity
    return float(ndtr(a - b) - math.exp(epsilon) * ndtr(-a - b))


@pytest.mark.parametrize(
    ("sensitivity", "epsilon", "delta"),
    [
        (1.0, 1.0, 1e-5),  # δ < δ₀: the B⁻ branch
        (1.0, 0.1, 1e-6),
        (3.0, 4.0, 1e-9),
        (1.0, 0.05, 0.3),  # δ ≥ δ₀ = Φ(0) − e^ε Φ(−√(2ε)) ≈ 0.112: the B⁺ branch
        (2.0, 8.0, 1e-3),
    ],
)
def test_analytic_gaussian_sigma_solves_its_defining_equation(sensitivity, epsilon, delta):
    sigma = mech.analytic_gaussian_sigma(sensitivity, epsilon, delta)
    assert _gaussian_delta(sigma, sensitivity, epsilon) == pytest.approx(delta, rel=1e-6)
    # the smallest such σ: 0.1 % less noise breaks (ε, δ)
    assert _gaussian_delta(sigma * 0.999, sensitivity, epsilon) > delta


def test_analytic_gaussian_sigma_beats_the_classical_bound():
    # for ε < 1 the classical σ = Δ √(2 ln(1.25/δ))/ε is also (ε, δ)-DP, but larger
    classical = math.sqrt(2 * math.log(1.25 / 1e-5)) / 0.5
    analytic = mech.analytic_gaussian_sigma(1.0, 0.5, 1e-5)
    assert analytic < classical
    assert _gaussian_delta(classical, 1.0, 0.5) < 1e-5


def test_analytic_gaussian_sigma_scales_with_sensitivity():
    assert mech.analytic_gaussian_sigma(5.0, 1.0, 1e-6) == pytest.approx(
        5 * mech.analytic_gaussian_sigma(1.0, 1.0, 1e-6)
    )


def test_exponential_probabilities_by_hand_and_stable():
    # ε = 2 ln 3, Δu = 1: P ∝ exp(ln 3 · u) = (1, 3) → (1/4, 3/4)
    expected = [0.25, 0.75]
    assert mech.exponential_probabilities([0, 1], 1, 2 * math.log(3)) == pytest.approx(expected)
    # shifting every utility changes nothing and huge utilities do not overflow
    assert mech.exponential_probabilities([1e6, 1e6 + 1], 1, 2 * math.log(3)) == pytest.approx(
        expected
    )
    extreme = mech.exponential_probabilities([0.0, 1e6], 1e-3, 50.0)
    assert np.all(np.isfinite(extreme)) and extreme[1] == pytest.approx(1.0)


# --------------------------------------------------------------------------- statistical


def test_laplace_noise_matches_its_cdf():
    noisy = mech.laplace(10.0, 2.0, 0.5, size=DRAWS, rng=11)
    assert stats.kstest(noisy - 10.0, stats.laplace(scale=4.0).cdf).pvalue > ALPHA
    # the test has power: noise at the scale ε·Δ = 1 instead of Δ/ε = 4 is rejected
    assert stats.kstest(noisy - 10.0, stats.laplace(scale=1.0).cdf).pvalue < ALPHA
    assert stats.kstest(noisy - 10.0, stats.laplace(scale=4.4).cdf).pvalue < ALPHA


def test_gaussian_noise_matches_its_cdf():
    sigma = mech.analytic_gaussian_sigma(1.0, 1.0, 1e-5)
    noisy = mech.gaussian(0.0, 1.0, 1.0, 1e-5, size=DRAWS, rng=12)
    assert stats.kstest(noisy, stats.norm(scale=sigma).cdf).pvalue > ALPHA
    assert stats.kstest(noisy, stats.norm(scale=1.1 * sigma).cdf).pvalue < ALPHA


def test_gaussian_zcdp_noise_matches_its_cdf():
    noisy = mech.gaussian_zcdp(3.0, 2.0, 0.5, size=DRAWS, rng=13)
    assert stats.kstest(noisy - 3.0, stats.norm(scale=2.0).cdf).pvalue > ALPHA


@pytest.mark.parametrize(("sensitivity", "epsilon"), [(1, 0.5), (3, 1.0)])
def test_discrete_laplace_noise_matches_its_pmf(sensitivity, epsilon):
    noisy = mech.discrete_laplace(7, sensitivity, epsilon, size=DRAWS, rng=14)
    assert noisy.dtype.kind == "i"
    noise = noisy - 7
    limit = 12 * sensitivity
    inner = np.arange(-limit, limit + 1)
    observed = np.concatenate(
        [
            [np.sum(noise < -limit)],
            np.bincount(noise[np.abs(noise) <= limit] + limit, minlength=inner.size),
            [np.sum(noise > limit)],
        ]
    )
    pmf = mech.discrete_laplace_pmf(inner, sensitivity, epsilon)
    tail = (1.0 - pmf.sum()) / 2.0
    expected = DRAWS * np.concatenate([[tail], pmf, [tail]])
    assert stats.chisquare(observed, expected).pvalue > ALPHA
    assert noise.var() == pytest.approx(
        mech.discrete_laplace_variance(sensitivity, epsilon), rel=0.05
    )


def test_discrete_laplace_chi_square_has_power():
    # noise drawn at ε = 0.6 is rejected against the pmf at ε = 0.5
    noise = mech.discrete_laplace(0, 1, 0.6, size=DRAWS, rng=15)
    inner = np.arange(-12, 13)
    observed = np.concatenate(
        [
            [np.sum(noise < -12)],
            np.bincount(noise[np.abs(noise) <= 12] + 12, minlength=25),
            [np.sum(noise > 12)],
        ]
    )
    pmf = mech.discrete_laplace_pmf(inner, 1, 0.5)
    tail = (1.0 - pmf.sum()) / 2.0
    assert stats.chisquare(observed, DRAWS * np.concatenate([[tail], pmf, [tail]])).pvalue < ALPHA


def test_exponential_choices_match_their_probabilities():
    utilities = [0.0, 1.0, 2.0, 5.0]
    probabilities = mech.exponential_probabilities(utilities, 2.0, 1.5)
    choices = mech.exponential(utilities, 2.0, 1.5, size=DRAWS, rng=16)
    observed = np.bincount(choices, minlength=len(utilities))
    assert stats.chisquare(observed, DRAWS * probabilities).pvalue > ALPHA


def test_samplers_are_deterministic_for_a_seed_and_keep_shapes():
    assert mech.laplace(1.0, 1, 1, rng=5) == mech.laplace(1.0, 1, 1, rng=5)
    assert isinstance(mech.discrete_laplace(3, 1, 1.0, rng=5), int)
    cells = mech.discrete_laplace(np.array([1, 2, 3]), 1, 1.0, size=(4, 3), rng=5)
    assert cells.shape == (4, 3)
    generator = np.random.default_rng(9)
    assert mech.laplace(np.zeros(5), 1, 1, rng=generator).shape == (5,)


# --------------------------------------------------------------------------- output grid


def test_grid_step_by_hand():
    # γ = 2^(⌊log₂ min(scale, Δ)⌋ − 12)
    assert mech.grid_step(1.0, 1.0) == 2.0**-12
    assert mech.grid_step(2.0, 1.0) == 2.0**-12  # Laplace at ε = 0.5: min(2, 1) = 1
    assert mech.grid_step(4.0, 10.0) == 2.0**-10  # ⌊log₂ 4⌋ = 2
    assert mech.grid_step(3.0, 100.0) == 2.0**-11  # ⌊log₂ 3⌋ = 1
    assert mech.grid_step(0.3, 1.0) == 2.0**-14  # ⌊log₂ 0.3⌋ = −2
    assert mech.grid_step(2.0**13, 2.0**13) == 2.0  # an exact power of two: ⌊log₂⌋ = 13


def test_rounding_to_the_grid_and_its_sensitivity_by_hand():
    # 0.3 / 0.25 = 1.2 → 1 unit, not exact: the gridded sum has sensitivity Δ + γ
    units, exact = sampling.on_grid(np.array([0.3, -0.2]), 0.25)
    assert units.tolist() == [1.0, -1.0] and not exact
    assert sampling.grid_sensitivity(1.0, 0.25, exact) == 1.25
    # integers on a grid γ ≤ 1 are exact, whatever their value
    units, exact = sampling.on_grid(np.array([3, 7]), 0.5)
    assert units.tolist() == [6.0, 14.0] and exact
    assert sampling.grid_sensitivity(1.0, 0.5, exact) == 1.0
    # a float that happens to be an integer is still a real-valued query (decided by type,
    # never by the value); and integers on a grid γ > 1 are rounded
    assert not sampling.on_grid(3.0, 0.5)[1]
    units, exact = sampling.on_grid(np.array([3]), 2.0)
    assert units.tolist() == [2.0] and not exact  # 3/2 = 1.5 rounds half to even → 2


def _off_grid_share(outputs: np.ndarray, step: float, radius: float = 0.5) -> float:
    """Share of the outputs in (−radius, radius) that are not multiples of ``step``."""
    near = outputs[np.abs(outputs) < radius]
    assert near.size > 100
    return float(np.mean(np.modf(near / step)[0] != 0.0))


@pytest.mark.parametrize(
    ("sampler", "step"),
    [
        (lambda value, n: mech.laplace(value, 1, 0.5, size=n, rng=21), 2.0**-12),
        (lambda value, n: mech.laplace(value, 1, 2.0, size=n, rng=22), 2.0**-13),
        (lambda value, n: mech.gaussian(value, 1, 1.0, 1e-5, size=n, rng=23), 2.0**-12),
        (lambda value, n: mech.gaussian_zcdp(value, 1, 0.5, size=n, rng=24), 2.0**-12),
    ],
)
def test_low_order_bits_do_not_depend_on_the_true_value(sampler, step):
    """Mironov 2012: textbook float Laplace returns arbitrary tiny doubles near 0 for a true
    count 0, and multiples of 2⁻⁵³ for a true count 1. On the grid both counts give only
    multiples of γ, in particular of 2⁻⁵³."""
    for value in (0, 1):
        outputs = sampler(value, 20_000)
        assert _off_grid_share(outputs, step) == 0.0
        assert _off_grid_share(outputs, 2.0**-53) == 0.0
    # the textbook sampler fails the same check for the count 0
    textbook = 0 + np.random.default_rng(25).laplace(0.0, 2.0, size=20_000)
    assert _off_grid_share(textbook, 2.0**-53) > 0.3


def test_real_valued_answers_are_multiples_of_the_grid():
    # a sum in [0, 10]: Δ = 10, ε = 1, b = 10: γ = 2^(⌊log₂ 10⌋ − 12) = 2⁻⁹
    outputs = mech.laplace(37.3, 10.0, 1.0, size=DRAWS, rng=26)
    assert np.all(np.modf(outputs / 2.0**-9)[0] == 0.0)
    assert stats.kstest(outputs - 37.3, stats.laplace(scale=10.0).cdf).pvalue > ALPHA
    sigma = mech.analytic_gaussian_sigma(10.0, 1.0, 1e-5)
    step = mech.grid_step(sigma, 10.0)
    outputs = mech.gaussian(37.3, 10.0, 1.0, 1e-5, size=DRAWS, rng=27)
    assert np.all(np.modf(outputs / step)[0] == 0.0)
    assert stats.kstest(outputs - 37.3, stats.norm(scale=sigma).cdf).pvalue > ALPHA


def test_discrete_gaussian_matches_its_pmf():
    """Canonne, Kamath & Steinke 2020, Algorithm 3, at a small σ where the law is visibly
    discrete: P(Z = z) ∝ exp(−z²/(2σ²)), σ = 1.5."""
    sigma = 1.5
    noise = sampling.discrete_gaussian(sigma, (DRAWS,), np.random.default_rng(28))
    assert noise.dtype.kind == "i"
    support = np.arange(-8, 9)
    weights = np.exp(-(support**2) / (2 * sigma**2))
    pmf = weights / weights.sum()  # mass beyond ±8 is below 10⁻⁶
    observed = np.bincount(np.clip(noise, -8, 8) + 8, minlength=support.size)
    assert stats.chisquare(observed, DRAWS * pmf).pvalue > ALPHA
    # the test has power: the same check at σ = 1.65 fails
    wider = np.exp(-(support**2) / (2 * 1.65**2))
    assert stats.chisquare(observed, DRAWS * wider / wider.sum()).pvalue < ALPHA


def test_gaussian_samplers_keep_shapes_and_seeds():
    cells = mech.gaussian(np.array([1, 2, 3]), 1.0, 1.0, 1e-5, size=(4, 3), rng=5)
    assert cells.shape == (4, 3)
    assert mech.gaussian(0.0, 1.0, 1.0, 1e-5, rng=5) == mech.gaussian(0.0, 1.0, 1.0, 1e-5, rng=5)
    assert isinstance(mech.gaussian_zcdp(2, 1.0, 0.5, rng=5), float)


# --------------------------------------------------------------------------- validation


@pytest.mark.parametrize("epsilon", [0, -1, math.inf, math.nan, "x", None])
def test_bad_epsilon_is_refused(epsilon):
    with pytest.raises(ParameterError) as caught:
        mech.laplace(0.0, 1.0, epsilon)
    assert caught.value.code == "dp.bad_epsilon"


@pytest.mark.parametrize("delta", [0, 1, -0.1, 1.5, math.nan])
def test_bad_delta_is_refused(delta):
    with pytest.raises(ParameterError) as caught:
        mech.gaussian(0.0, 1.0, 1.0, delta)
    assert caught.value.code == "dp.bad_delta"
    with pytest.raises(ParameterError) as caught:
        mech.zcdp_to_approx(0.5, delta)
    assert caught.value.code == "dp.bad_delta"


@pytest.mark.parametrize(
    ("call", "code"),
    [
        (lambda: mech.laplace(0.0, 0, 1.0), "dp.bad_sensitivity"),
        (lambda: mech.laplace(0.0, -2, 1.0), "dp.bad_sensitivity"),
        (lambda: mech.gaussian(0.0, math.inf, 1.0, 1e-5), "dp.bad_sensitivity"),
        (lambda: mech.discrete_laplace(0, 1.5, 1.0), "dp.bad_sensitivity"),
        (lambda: mech.discrete_laplace(0.5, 1, 1.0), "dp.not_integer"),
        (lambda: mech.exponential([1.0], 0, 1.0), "dp.bad_sensitivity"),
        (lambda: mech.exponential([], 1, 1.0), "dp.bad_utilities"),
        (lambda: mech.gaussian_zcdp(0.0, 1.0, 0), "dp.bad_rho"),
        (lambda: mech.laplace_half_width(1, 1, 0), "dp.bad_beta"),
    ],
)
def test_bad_parameters_are_refused_with_a_code(call, code):
    with pytest.raises(ParameterError) as caught:
        call()
    assert caught.value.code == code
