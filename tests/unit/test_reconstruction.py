"""Randomization and distribution reconstruction (Agrawal & Srikant 2000, Agrawal &
Aggarwal 2001; SPEC §7, seed 003 §20.2)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import norm

from privcore.errors import ParameterError
from privcore.ldp.reconstruction import (
    Noise,
    Reconstruction,
    default_range,
    randomize,
    reconstruct,
    total_variation,
    transition_matrix,
)

N = 100_000
EDGES = np.linspace(0.0, 100.0, 21)
UNIFORM = Noise("uniform", 25.0)
GAUSSIAN = Noise("gaussian", 15.0)


def blocks(n: int, rng: np.random.Generator) -> np.ndarray:
    """0.4 · U[10, 30] + 0.6 · U[60, 90]: two flat blocks with sharp edges."""
    first = rng.random(n) < 0.4
    return np.where(first, rng.uniform(10, 30, n), rng.uniform(60, 90, n))


BLOCKS_TRUTH = np.zeros(20)
BLOCKS_TRUTH[2:6] = 0.4 / 4
BLOCKS_TRUTH[12:18] = 0.6 / 6

MEANS, SD = (30.0, 70.0), 12.0


def normals(n: int, rng: np.random.Generator) -> np.ndarray:
    """½ N(30, 12²) + ½ N(70, 12²) restricted to [0, 100] (by rejection)."""
    kept: list[np.ndarray] = []
    while sum(part.size for part in kept) < n:
        x = np.where(rng.random(n) < 0.5, rng.normal(MEANS[0], SD, n), rng.normal(MEANS[1], SD, n))
        kept.append(x[(x >= 0) & (x <= 100)])
    return np.concatenate(kept)[:n]


_cdf = 0.5 * norm.cdf(EDGES, MEANS[0], SD) + 0.5 * norm.cdf(EDGES, MEANS[1], SD)
NORMALS_TRUTH = np.diff(_cdf) / (_cdf[-1] - _cdf[0])

TRUTHS = {"blocks": (blocks, BLOCKS_TRUTH), "normals": (normals, NORMALS_TRUTH)}


@pytest.fixture(scope="module")
def perturbed():
    """Perturbed samples of both truths under both noises (data seed 0, noise seed 1)."""
    out = {}
    for name, (generate, _) in TRUTHS.items():
        x = generate(N, np.random.default_rng(0))
        for noise in (UNIFORM, GAUSSIAN):
            out[name, noise.kind] = randomize(x, noise, seed=1)
    return out


def _noise(kind: str) -> Noise:
    return UNIFORM if kind == "uniform" else GAUSSIAN


# --- SPEC: a known bimodal distribution is recovered --------------------------------


@pytest.mark.parametrize("method", ["bayes", "em"])
@pytest.mark.parametrize(
    ("truth", "kind"),
    # Uniform noise (a = 25) resolves the sharp blocks; Gaussian noise (σ = 15) cannot
    # resolve a sharp edge at 5-wide intervals (see the next test), so it gets the smooth
    # bimodal mixture.
    [("blocks", "uniform"), ("normals", "gaussian")],
)
def test_recovers_bimodal_distribution(perturbed, truth, kind, method):
    result = reconstruct(
        perturbed[truth, kind], _noise(kind), bins=20, lower=0, upper=100, method=method
    )
    true_shares = TRUTHS[truth][1]
    np.testing.assert_allclose(result.edges, EDGES)
    assert total_variation(result.estimate, true_shares) < 0.05
    # much closer to the truth than the perturbed histogram
    assert total_variation(result.perturbed, true_shares) > 2 * total_variation(
        result.estimate, true_shares
    )
    # both modes and the valley between them are back, about as deep as in the truth
    assert _valley_depth(result.estimate) < _valley_depth(true_shares) + 0.1
    assert _valley_depth(result.estimate) < _valley_depth(result.perturbed) - 0.2


def _valley_depth(shares: np.ndarray) -> float:
    """Lowest share between the two modes (one in each half) over the lower mode."""
    first, second = shares[:10].argmax(), 10 + shares[10:].argmax()
    return float(shares[first : second + 1].min() / min(shares[first], shares[second]))


@pytest.mark.parametrize("method", ["bayes", "em"])
@pytest.mark.parametrize(("truth", "kind"), [("blocks", "gaussian"), ("normals", "uniform")])
def test_reconstruction_beats_the_perturbed_histogram(perturbed, truth, kind, method):
    """The other two pairings: still far better than the perturbed histogram (Gaussian
    noise on the sharp blocks is the hard case, TV ≈ 0.2)."""
    result = reconstruct(perturbed[truth, kind], _noise(kind), lower=0, upper=100, method=method)
    true_shares = TRUTHS[truth][1]
    tv = total_variation(result.estimate, true_shares)
    assert tv < 0.25
    assert total_variation(result.perturbed, true_shares) > 2 * tv


def test_bayes_and_em_coincide_on_binned_data(perturbed):
    bayes = reconstruct(perturbed["normals", "gaussian"], GAUSSIAN, method="bayes", max_iter=50)
    em = reconstruct(perturbed["normals", "gaussian"], GAUSSIAN, method="em", max_iter=50)
    assert (bayes.method, em.method) == ("bayes", "em")
    np.testing.assert_allclose(bayes.estimate, em.estimate, atol=1e-12)
    np.testing.assert_allclose(bayes.history, em.history, atol=1e-12)


# --- result invariants ------------------------------------------------------------------


@pytest.mark.parametrize("method", ["bayes", "em"])
@pytest.mark.parametrize("kind", ["uniform", "gaussian"])
def test_result_is_a_distribution_with_decreasing_changes(perturbed, kind, method):
    result = reconstruct(perturbed["normals", kind], _noise(kind), bins=20, method=method)
    assert isinstance(result, Reconstruction)
    assert result.edges.shape == (21,)
    assert result.estimate.shape == result.perturbed.shape == (20,)
    assert np.all(result.estimate >= 0)
    assert result.estimate.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.all(result.perturbed >= 0)
    assert result.perturbed.sum() == pytest.approx(1.0, abs=1e-12)
    assert result.iterations == len(result.history) <= 500
    assert result.converged == (result.history[-1] < 1e-6)
    changes = np.asarray(result.history[5:])
    assert np.all(np.diff(changes) <= 1e-12)
    assert math.isfinite(result.log_likelihood)
    summary = result.to_dict()
    assert summary["method"] == method
    assert summary["noise"] == {"kind": kind, "scale": _noise(kind).scale}
    assert len(summary["estimate"]) == 20


def test_em_never_lowers_the_likelihood(perturbed):
    y = perturbed["blocks", "uniform"]
    likelihoods = [
        reconstruct(y, UNIFORM, lower=0, upper=100, method="em", max_iter=m, tol=0).log_likelihood
        for m in (1, 2, 5, 20, 100)
    ]
    assert np.all(np.diff(likelihoods) >= -1e-12)


def test_converges_and_stops_on_tolerance(perturbed):
    loose = reconstruct(perturbed["normals", "uniform"], UNIFORM, tol=1e-3)
    assert loose.converged
    assert loose.history[-1] < 1e-3 <= loose.history[-2]
    capped = reconstruct(perturbed["normals", "uniform"], UNIFORM, max_iter=3, tol=0)
    assert capped.iterations == 3
    assert not capped.converged


def test_point_mass_is_found():
    x = np.full(20_000, 42.0)
    y = randomize(x, UNIFORM, seed=3)
    result = reconstruct(y, UNIFORM, bins=10, lower=0, upper=100, max_iter=2000)
    assert result.estimate.argmax() == 4  # [40, 50)
    assert result.estimate[4] > 0.9


def test_default_range_shrinks_the_perturbed_range(perturbed):
    y = perturbed["blocks", "uniform"]
    lo, hi = default_range(y, UNIFORM)
    assert lo == pytest.approx(y.min() + 25)
    assert hi == pytest.approx(y.max() - 25)
    assert 9 < lo < 11 and 89 < hi < 91  # the blocks span [10, 90]
    result = reconstruct(y, UNIFORM)
    assert result.edges[0] == pytest.approx(lo) and result.edges[-1] == pytest.approx(hi)
    # only one bound given: the other is the default
    assert reconstruct(y, UNIFORM, lower=0).edges[-1] == pytest.approx(hi)

    y = perturbed["normals", "gaussian"]
    lo, hi = default_range(y, GAUSSIAN)
    q = np.quantile(y, [0.001, 0.999])
    assert (lo, hi) == pytest.approx((q[0] + 15, q[1] - 15))
    assert lo < 5 and hi > 95  # wide enough for the mixture on [0, 100]


def test_default_range_falls_back_when_the_noise_is_wider_than_the_data():
    y = np.array([0.0, 1.0, 2.0])
    assert default_range(y, UNIFORM) == (0.0, 2.0)
    assert default_range(np.array([5.0, 5.0]), UNIFORM) == (-20.0, 30.0)
    result = reconstruct(np.array([5.0]), GAUSSIAN, bins=4)
    assert result.edges[0] == pytest.approx(-10.0) and result.edges[-1] == pytest.approx(20.0)
    assert result.estimate.sum() == pytest.approx(1.0)


def test_values_outside_the_range_are_clipped_in_the_perturbed_shares():
    y = np.array([-100.0, 10.0, 30.0, 500.0])
    result = reconstruct(y, UNIFORM, bins=2, lower=0, upper=40, max_iter=5)
    np.testing.assert_allclose(result.perturbed, [0.5, 0.5])


# --- noise by hand --------------------------------------------------------------------


def test_uniform_noise_by_hand():
    noise = Noise("uniform", 2.0)
    np.testing.assert_allclose(noise.cdf([-3, -2, -1, 0, 1, 2, 3]), [0, 0, 0.25, 0.5, 0.75, 1, 1])
    np.testing.assert_allclose(noise.pdf([-3, -2, 0, 1.9, 2.5]), [0, 0.25, 0.25, 0.25, 0])
    # G(t) = ∫ F: 0 below −a, (t + a)²/(4a) inside, t above a
    np.testing.assert_allclose(noise.integrated_cdf([-5, -2, 0, 2, 5]), [0, 0, 0.5, 2, 5])
    assert noise.reach == 2.0
    assert noise.variance == pytest.approx(4 / 3)
    assert float(noise.cdf(0.5)) == pytest.approx(0.625)


def test_gaussian_noise_by_hand():
    noise = Noise("gaussian", 2.0)
    np.testing.assert_allclose(
        noise.cdf([0, 2, -2, 3.92]), [0.5, 0.8413447, 0.1586553, 0.9750021], rtol=1e-6
    )
    assert float(noise.pdf(0)) == pytest.approx(1 / (2 * math.sqrt(2 * math.pi)))
    # G(0) = σ φ(0) = σ / √(2π); G(t) − G(−t) = t
    assert float(noise.integrated_cdf(0)) == pytest.approx(2 / math.sqrt(2 * math.pi))
    t = np.array([0.5, 3.0, 40.0])
    np.testing.assert_allclose(noise.integrated_cdf(t) - noise.integrated_cdf(-t), t)
    assert noise.reach == 8.0
    assert noise.variance == 4.0


@pytest.mark.parametrize("noise", [Noise("uniform", 3.0), Noise("gaussian", 1.5)])
def test_integrated_cdf_is_the_integral_of_the_cdf(noise):
    grid = np.linspace(-12, 12, 240_001)
    numeric = np.concatenate(
        [[0.0], np.cumsum(0.5 * (noise.cdf(grid[1:]) + noise.cdf(grid[:-1]))) * (grid[1] - grid[0])]
    )
    np.testing.assert_allclose(noise.integrated_cdf(grid)[::4000], numeric[::4000], atol=1e-6)


def test_sampling_matches_the_distribution():
    rng = np.random.default_rng(5)
    u = Noise("uniform", 3.0).sample(200_000, rng)
    assert u.shape == (200_000,) and u.min() >= -3 and u.max() <= 3
    assert u.mean() == pytest.approx(0, abs=0.02)
    assert u.var() == pytest.approx(3.0, rel=0.02)  # a²/3
    g = Noise("gaussian", 2.0).sample(200_000, rng)
    assert g.mean() == pytest.approx(0, abs=0.02)
    assert g.std() == pytest.approx(2.0, rel=0.01)
    assert np.mean(np.abs(g) < 2.0) == pytest.approx(0.6827, abs=0.005)
    np.testing.assert_array_equal(
        Noise("gaussian", 1.0).sample(4, 9), Noise("gaussian", 1.0).sample(4, 9)
    )


def test_transition_matrix_columns_are_distributions():
    edges = np.linspace(0, 10, 6)
    fine = np.linspace(-3, 13, 81)
    for noise in (Noise("uniform", 3.0), Noise("gaussian", 1.0)):
        matrix = transition_matrix(edges, fine, noise)
        assert matrix.shape == (80, 5)
        assert np.all(matrix >= 0)
        np.testing.assert_allclose(matrix.sum(axis=0), 1.0, atol=1e-12)
    # uniform noise a = 3 from X uniform on [0, 2]: Y ∈ [−3, 5], so nothing reaches [5, 13)
    matrix = transition_matrix(edges, fine, Noise("uniform", 3.0))
    assert matrix[40:, 0].sum() == pytest.approx(0.0, abs=1e-15)
    # the fine bin [−0.2, 0) gets P(Y ∈ [−0.2, 0)) = 0.2 · 1/6 (the density is flat there)
    assert matrix[14, 0] == pytest.approx(0.2 / 6)


# --- randomize -------------------------------------------------------------------------


def test_randomize_is_deterministic_per_seed():
    x = np.linspace(0, 100, 1000)
    a = randomize(x, GAUSSIAN, seed=7)
    np.testing.assert_array_equal(a, randomize(x, GAUSSIAN, seed=7))
    assert not np.array_equal(a, randomize(x, GAUSSIAN, seed=8))
    np.testing.assert_allclose(a - x, GAUSSIAN.sample(1000, np.random.default_rng(7)), atol=1e-12)
    u = randomize(x, UNIFORM, seed=7)
    assert np.all(np.abs(u - x) <= 25)
    assert randomize(np.ones((3, 4)), UNIFORM).shape == (3, 4)
    assert randomize([1, 2, 3], UNIFORM, seed=0).dtype == np.float64


def test_total_variation_by_hand():
    assert total_variation([0.5, 0.5, 0], [0, 0.5, 0.5]) == pytest.approx(0.5)
    assert total_variation([1, 0], [0, 1]) == 1.0
    assert total_variation([0.2, 0.8], [0.2, 0.8]) == 0.0


# --- errors ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "scale", "code"),
    [
        ("laplace", 1.0, "ldp.noise_kind"),
        ("Uniform", 1.0, "ldp.noise_kind"),
        ("uniform", 0.0, "ldp.noise_scale"),
        ("gaussian", -1.0, "ldp.noise_scale"),
        ("gaussian", math.inf, "ldp.noise_scale"),
        ("gaussian", math.nan, "ldp.noise_scale"),
        ("uniform", "wide", "ldp.not_a_number"),
    ],
)
def test_bad_noise_is_a_parameter_error(kind, scale, code):
    with pytest.raises(ParameterError) as caught:
        Noise(kind, scale)
    assert caught.value.code == code


@pytest.mark.parametrize(
    ("values", "kwargs", "code"),
    [
        ([], {}, "ldp.empty_input"),
        (np.array([]), {}, "ldp.empty_input"),
        ([1.0, np.nan], {}, "ldp.nonfinite_values"),
        ([1.0, np.inf], {}, "ldp.nonfinite_values"),
        ([1.0, 2.0], {"bins": 1}, "ldp.bins"),
        ([1.0, 2.0], {"bins": 0}, "ldp.bins"),
        ([1.0, 2.0], {"bins": 501}, "ldp.bins"),
        ([1.0, 2.0], {"bins": 2.5}, "ldp.not_an_integer"),
        ([1.0, 2.0], {"method": "mle"}, "ldp.reconstruction_method"),
        ([1.0, 2.0], {"max_iter": 0}, "ldp.max_iter"),
        ([1.0, 2.0], {"tol": -1.0}, "ldp.tol"),
        ([1.0, 2.0], {"lower": 5.0, "upper": 5.0}, "ldp.range"),
        ([1.0, 2.0], {"lower": 6.0, "upper": 5.0}, "ldp.range"),
        ([1.0, 2.0], {"lower": -math.inf}, "ldp.range"),
        ([1.0, 2.0], {"upper": "top"}, "ldp.not_a_number"),
    ],
)
def test_bad_reconstruction_input_is_a_parameter_error(values, kwargs, code):
    with pytest.raises(ParameterError) as caught:
        reconstruct(values, UNIFORM, **kwargs)
    assert caught.value.code == code


def test_bad_randomize_input_and_mismatched_distributions():
    with pytest.raises(ParameterError) as caught:
        randomize([1.0, math.nan], UNIFORM)
    assert caught.value.code == "ldp.nonfinite_values"
    with pytest.raises(ParameterError) as caught:
        total_variation([0.5, 0.5], [1.0])
    assert caught.value.code == "ldp.shape_mismatch"
