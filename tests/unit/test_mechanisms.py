"""Tests of privcore.ldp.mechanisms (SPEC §7): sampled distributions against the papers'
formulas, unbiased estimators, exact white-box events, true ε of the broken variants,
determinism and parameter validation. Every statistical test runs at a fixed seed."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from scipy import stats

from privcore.errors import ParameterError
from privcore.ldp import mechanisms as mech
from privcore.ldp.base import Mechanism, Outputs
from privcore.ldp.device import generator
from privcore.ldp.mechanisms import MECHANISMS, hashing, make

FREQUENCY = [name for name, cls in MECHANISMS.items() if cls.family == "frequency"]
MEAN = [name for name, cls in MECHANISMS.items() if cls.family == "mean"]
EPSILONS = [0.5, 1.0, 2.0, 4.0]
ALPHA = 0.001  # goodness-of-fit p-values must exceed this
D = 5


def build(name: str, epsilon: float = 1.0, d: int = D) -> Mechanism:
    return make(name, epsilon, d=d)


def constant_inputs(m: Mechanism, value: float, n: int) -> torch.Tensor:
    if m.family == "frequency":
        return torch.full((n,), int(value), dtype=torch.int64)
    return torch.full((n,), float(value), dtype=torch.float64)


def sliced(outputs: Outputs, rows: slice) -> Outputs:
    hashes = None if outputs.hashes is None else outputs.hashes[rows]
    return Outputs(outputs.kind, outputs.values[rows], hashes)


def column_rates_pvalue(bits: torch.Tensor, expected: np.ndarray) -> float:
    """Independent Bernoulli columns: Σ_j (c_j − nπ_j)²/(nπ_j(1−π_j)) ~ χ²_d."""
    n = bits.shape[0]
    counts = bits.sum(dim=0).cpu().numpy().astype(float)
    stat = float(np.sum((counts - n * expected) ** 2 / (n * expected * (1 - expected))))
    return float(stats.chi2.sf(stat, df=len(expected)))


# --------------------------------------------------------------------------- distributions


@pytest.mark.parametrize("name", ["grr", "broken_grr"])
def test_grr_category_frequencies(name: str) -> None:
    eps, v, n = 1.0, 2, 500_000
    m = build(name, eps)
    e = math.exp(eps + (1.0 if name == "broken_grr" else 0.0))
    expected = np.full(D, 1.0 / (e + D - 1))
    expected[v] = e / (e + D - 1)
    y = m.perturb(constant_inputs(m, v, n), generator(11)).values.cpu()
    counts = np.bincount(y.numpy(), minlength=D)
    assert stats.chisquare(counts, n * expected).pvalue > ALPHA


@pytest.mark.parametrize("name", ["sue", "oue", "broken_oue"])
def test_unary_bit_rates(name: str) -> None:
    eps, v, n = 1.0, 1, 500_000
    h = math.exp(eps / 2)
    p, q = {
        "sue": (h / (h + 1), 1 / (h + 1)),
        "oue": (0.5, 1 / (math.exp(eps) + 1)),
        "broken_oue": (h / (h + 1), 1 / (math.exp(eps) + 1)),
    }[name]
    m = build(name, eps)
    bits = m.perturb(constant_inputs(m, v, n), generator(12)).values
    assert bits.dtype == torch.bool and bits.shape == (n, D)
    expected = np.full(D, q)
    expected[v] = p
    assert column_rates_pvalue(bits, expected) > ALPHA


def test_subset_selection_inclusion() -> None:
    eps, d, v, n = 1.0, 10, 3, 500_000
    m = build("ss", eps, d)
    omega = max(1, math.floor(d / (math.e + 1) + 0.5))
    assert m.omega == omega == 3
    bits = m.perturb(constant_inputs(m, v, n), generator(13)).values
    assert bool((bits.sum(dim=1) == omega).all())
    p_in = omega * math.e / (omega * math.e + d - omega)
    q = (p_in * (omega - 1) + (1 - p_in) * omega) / (d - 1)
    expected = np.full(d, q)
    expected[v] = p_in
    # columns of a fixed-size set are not independent: test the true value's inclusion,
    # then the others' rates given it (uniform, as a multinomial over the other d − 1)
    included = bits[:, v].cpu().numpy()
    assert stats.binomtest(int(included.sum()), n, p_in).pvalue > ALPHA
    others = np.delete(bits.cpu().numpy(), v, axis=1).sum(axis=0)
    assert stats.chisquare(others).pvalue > ALPHA
    assert math.isclose(m.q_star, q) and math.isclose(m.p_star, p_in)


def test_threshold_bit_rates() -> None:
    eps, v, n = 1.0, 0, 500_000
    m = build("the", eps)
    lap = stats.laplace(scale=2 / eps)
    p, q = lap.sf(m.threshold - 1), lap.sf(m.threshold)
    assert math.isclose(m.p_star, p) and math.isclose(m.q_star, q)
    bits = m.perturb(constant_inputs(m, v, n), generator(14)).values
    expected = np.full(D, q)
    expected[v] = p
    assert column_rates_pvalue(bits, expected) > ALPHA


@pytest.mark.parametrize(("name", "eps"), [("blh", 1.0), ("olh", 1.0), ("olh", 2.0)])
def test_local_hashing_rates(name: str, eps: float) -> None:
    v, n = 2, 500_000
    m = build(name, eps)
    g = 2 if name == "blh" else math.ceil(math.exp(eps) + 1)
    assert m.g == g
    out = m.perturb(constant_inputs(m, v, n), generator(15))
    a, b = out.hashes[:, 0].cpu().numpy(), out.hashes[:, 1].cpu().numpy()
    assert a.min() >= 1 and b.min() >= 0 and max(a.max(), b.max()) < mech.HASH_PRIME
    hashed = ((a * v + b) % mech.HASH_PRIME) % g
    offsets = (out.values.cpu().numpy() - hashed) % g  # GRR over g values on H(v)
    p = math.exp(eps) / (math.exp(eps) + g - 1)
    expected = np.array([p] + [(1 - p) / (g - 1)] * (g - 1))
    assert stats.chisquare(np.bincount(offsets, minlength=g), n * expected).pvalue > ALPHA
    # support rates through comb: p* for v, ≈ 1/g for every other value
    support = m.vectors(out).sum(dim=0).cpu().numpy().astype(int)
    for u in range(D):
        rate = m.p_star if u == v else m.q_star
        assert stats.binomtest(int(support[u]), n, rate).pvalue > ALPHA / D
    assert math.isclose(m.q_star, 1 / g, rel_tol=1e-6)


def test_she_coordinates_are_laplace() -> None:
    eps, v, n = 1.0, 1, 300_000
    m = build("she", eps)
    y = m.perturb(constant_inputs(m, v, n), generator(16)).values.cpu().double().numpy()
    assert stats.kstest(y[:, v], stats.laplace(loc=1, scale=2 / eps).cdf).pvalue > ALPHA
    assert stats.kstest(y[:, 3], stats.laplace(loc=0, scale=2 / eps).cdf).pvalue > ALPHA


def test_duchi_atoms() -> None:
    eps, x, n = 1.0, 0.3, 500_000
    m = build("duchi", eps)
    big = (math.exp(eps) + 1) / (math.exp(eps) - 1)
    y = m.perturb(constant_inputs(m, x, n), generator(17)).values.cpu().numpy()
    assert set(np.unique(y)) == {big, -big}
    plus = 0.5 + x * (math.exp(eps) - 1) / (2 * (math.exp(eps) + 1))
    assert stats.binomtest(int((y > 0).sum()), n, plus).pvalue > ALPHA


def piecewise_cdf(y: np.ndarray, c: float, left: float, inner: float, outer: float) -> np.ndarray:
    right = left + c - 1
    return (
        outer * np.clip(y + c, 0, left + c)
        + inner * np.clip(y - left, 0, c - 1)
        + outer * np.clip(y - right, 0, c - right)
    )


def pm_shape(eps: float) -> tuple[float, float, float]:
    """SPEC §7: C, inner density p, outer density p/e^ε."""
    h = math.exp(eps / 2)
    p = (math.exp(eps) - h) / (2 * h + 2)
    return (h + 1) / (h - 1), p, p / math.exp(eps)


@pytest.mark.parametrize("x", [-1.0, 0.4])
@pytest.mark.parametrize("eps", [1.0, 3.0])
def test_piecewise_density(eps: float, x: float) -> None:
    n = 300_000
    m = build("piecewise", eps)
    c, inner, outer = pm_shape(eps)
    assert math.isclose(inner * (c - 1) + outer * (c + 1), 1.0)
    left = (c + 1) * x / 2 - (c - 1) / 2
    y = m.perturb(constant_inputs(m, x, n), generator(18)).values.cpu().numpy()
    assert y.min() >= -c and y.max() <= c
    cdf = lambda t: piecewise_cdf(t, c, left, inner, outer)  # noqa: E731
    assert stats.kstest(y, cdf).pvalue > ALPHA


def test_broken_piecewise_density() -> None:
    eps, x, n = 1.0, 0.5, 300_000
    m = build("broken_piecewise", eps)
    t = math.exp(eps / 2)
    c = (t * t + 1) / (t * t - 1)  # C from ε
    mass = t / (t + 1)  # the correct PM's inner mass
    assert math.isclose(m.C, c) and math.isclose(m.inner_mass, mass)
    left = (c + 1) * x / 2 - (c - 1) / 2
    y = m.perturb(constant_inputs(m, x, n), generator(19)).values.cpu().numpy()
    cdf = lambda u: piecewise_cdf(u, c, left, mass / (c - 1), (1 - mass) / (c + 1))  # noqa: E731
    assert stats.kstest(y, cdf).pvalue > ALPHA


@pytest.mark.parametrize(("name", "scale"), [("laplace", 2.0), ("broken_laplace", 1.0)])
def test_laplace_noise(name: str, scale: float) -> None:
    eps, x, n = 1.0, -0.25, 300_000
    m = build(name, eps)
    y = m.perturb(constant_inputs(m, x, n), generator(20)).values.cpu().numpy()
    assert stats.kstest(y, stats.laplace(loc=x, scale=scale / eps).cdf).pvalue > ALPHA


def test_hybrid_mixture() -> None:
    eps, x, n = 2.0, 0.2, 500_000
    m = build("hybrid", eps)
    alpha = 1 - math.exp(-eps / 2)
    big = (math.exp(eps) + 1) / (math.exp(eps) - 1)
    plus = 0.5 + x / (2 * big)
    y = m.perturb(constant_inputs(m, x, n), generator(21)).values.cpu().numpy()
    at_plus, at_minus = y == big, y == -big
    counts = [at_plus.sum(), at_minus.sum(), n - at_plus.sum() - at_minus.sum()]
    expected = n * np.array([(1 - alpha) * plus, (1 - alpha) * (1 - plus), alpha])
    assert stats.chisquare(counts, expected).pvalue > ALPHA
    c, inner, outer = pm_shape(eps)
    left = (c + 1) * x / 2 - (c - 1) / 2
    rest = y[~(at_plus | at_minus)]
    assert stats.kstest(rest, lambda t: piecewise_cdf(t, c, left, inner, outer)).pvalue > ALPHA
    # below ε* = 0.61 only Duchi's atoms
    low = build("hybrid", 0.5)
    y = low.perturb(constant_inputs(low, x, 1000), generator(22)).values
    assert bool((y.abs() == low.duchi.bound).all())


@pytest.mark.parametrize("v", [0.0, 0.7])
@pytest.mark.parametrize("eps", [1.0, 4.0])
def test_square_wave_density(eps: float, v: float) -> None:
    n = 300_000
    m = build("square_wave", eps)
    e = math.exp(eps)
    b = (eps * e - e + 1) / (2 * e * (e - 1 - eps))
    high, low = e / (2 * b * e + 1), 1 / (2 * b * e + 1)
    assert math.isclose(m.b, b) and m.input_range() == (0.0, 1.0)
    y = m.perturb(constant_inputs(m, v, n), generator(23)).values.cpu().numpy()
    assert y.min() >= -b and y.max() <= 1 + b

    def cdf(t: np.ndarray) -> np.ndarray:
        return (
            low * np.clip(t + b, 0, v)
            + high * np.clip(t - (v - b), 0, 2 * b)
            + low * np.clip(t - (v + b), 0, 1 - v)
        )

    assert stats.kstest(y, cdf).pvalue > ALPHA


# --------------------------------------------------------------------------- estimators

BATCHES, BATCH = 40, 20_000


@pytest.mark.parametrize("name", FREQUENCY)
def test_frequency_estimator_unbiased(name: str) -> None:
    d = 6
    m = build(name, 1.0, d)
    counts = np.array([0.35, 0.25, 0.15, 0.1, 0.1, 0.05]) * BATCH
    one_batch = np.repeat(np.arange(d), counts.astype(int))
    truth = np.bincount(one_batch, minlength=d) / BATCH
    inputs = torch.as_tensor(np.tile(one_batch, BATCHES))
    out = m.perturb(inputs, generator(31))
    estimates = np.stack(
        [
            m.estimate(sliced(out, slice(i * BATCH, (i + 1) * BATCH))).cpu().numpy()
            for i in range(BATCHES)
        ]
    )
    mean = estimates.mean(axis=0)
    se = estimates.std(axis=0, ddof=1) / math.sqrt(BATCHES)
    assert np.all(np.abs(mean - truth) <= 4 * se), (mean, truth, se)
    whole = m.estimate(out)
    assert whole.shape == (d,) and whole.dtype == torch.float64


@pytest.mark.parametrize("name", MEAN)
def test_mean_estimator_unbiased(name: str) -> None:
    m = build(name, 1.0)
    lo, hi = m.input_range()
    one_batch = lo + (hi - lo) * np.linspace(0, 1, BATCH) ** 3  # skewed towards lo
    truth = one_batch.mean()
    out = m.perturb(torch.as_tensor(np.tile(one_batch, BATCHES)), generator(32))
    estimates = np.array(
        [float(m.estimate(sliced(out, slice(i * BATCH, (i + 1) * BATCH)))) for i in range(BATCHES)]
    )
    se = estimates.std(ddof=1) / math.sqrt(BATCHES)
    assert abs(estimates.mean() - truth) <= 4 * se, (estimates.mean(), truth, se)
    assert m.estimate(out).dim() == 0


def test_square_wave_mean_is_affine() -> None:
    """E[y | v] = 2bλ(e^ε−1)·v + λ(½ + b), λ = 1/(2be^ε+1), against numerical integration."""
    m = build("square_wave", 2.0)
    for v in (0.0, 0.3, 1.0):
        ys = np.linspace(-m.b, 1 + m.b, 400_001)
        density = np.where(np.abs(ys - v) <= m.b, m.high, m.low)
        mean = np.trapezoid(ys * density, ys)
        assert math.isclose(mean, m.slope * v + m.intercept, rel_tol=1e-5, abs_tol=1e-5)


# --------------------------------------------------------------------------- true ε and events

BROKEN_TRUE_EPSILON = {
    "broken_grr": lambda eps: eps + 1,
    "broken_oue": lambda eps: 1.5 * eps,
    "broken_laplace": lambda eps: 2 * eps,
    "broken_piecewise": lambda eps: 1.5 * eps,
}


def the_true_epsilon(eps: float, theta: float) -> float:
    lap = stats.laplace(scale=2 / eps)
    p, q = lap.sf(theta - 1), lap.sf(theta)
    return math.log(p * (1 - q) / (q * (1 - p)))


@pytest.mark.parametrize("eps", EPSILONS)
@pytest.mark.parametrize("name", list(MECHANISMS))
def test_true_epsilon_and_event_ratio(name: str, eps: float) -> None:
    m = build(name, eps)
    true = m.true_epsilon()
    if m.broken:
        assert math.isclose(true, BROKEN_TRUE_EPSILON[name](eps), rel_tol=1e-9)
        assert true > eps
    elif name == "the":  # post-processing of SHE with information lost: below ε
        assert math.isclose(true, the_true_epsilon(eps, m.threshold), rel_tol=1e-9)
        assert true < eps
    else:
        assert math.isclose(true, eps, rel_tol=1e-9)
    p_v, p_w = m.event_probabilities(*m.worst_pair())
    assert 0 < p_w < p_v <= 1
    assert math.isclose(p_v / p_w, math.exp(true), rel_tol=1e-9)
    assert m.describe()["true_epsilon"] == true


def empirical_check(m: Mechanism, v: float, w: float, n: int, seed: int) -> None:
    event = m.event(v, w)
    for x, prob in zip((v, w), m.event_probabilities(v, w), strict=True):
        hits = event(m.perturb(constant_inputs(m, x, n), generator(seed)))
        assert hits.dtype == torch.bool and hits.shape == (n,)
        rate = float(hits.double().mean())
        assert abs(rate - prob) <= 4 * math.sqrt(prob * (1 - prob) / n), (x, rate, prob)
        seed += 1


@pytest.mark.parametrize("eps", [1.0, 4.0])
@pytest.mark.parametrize("name", list(MECHANISMS))
def test_event_frequency_matches(name: str, eps: float) -> None:
    m = build(name, eps)
    empirical_check(m, *m.worst_pair(), n=300_000, seed=41)


@pytest.mark.parametrize("name", [*MEAN, "olh", "ss"])
def test_event_inner_pair(name: str) -> None:
    """A pair that is not the worst: general interval / atom / collision formulas."""
    m = build(name, 2.0, d=7)
    v, w = (
        (4, 6) if m.family == "frequency" else (0.3, 0.1) if name == "square_wave" else (-0.2, 0.5)
    )
    p_v, p_w = m.event_probabilities(v, w)
    assert p_v / p_w <= math.exp(m.true_epsilon()) * (1 + 1e-9)
    empirical_check(m, v, w, n=300_000, seed=43)


def test_hybrid_event_parts() -> None:
    m = build("hybrid", 2.0)
    assert m._parts(1.0, -1.0) == (True, True)  # both pieces tie at e^ε
    assert m._parts(-0.2, 0.5) == (True, False)  # Duchi's atom is weaker inside
    low = build("hybrid", 0.5)
    assert low._parts(1.0, -1.0) == (False, True)


def test_the_threshold_minimizes_variance() -> None:
    for eps in EPSILONS:
        theta = mech.optimal_threshold(eps)
        lap = stats.laplace(scale=2 / eps)
        grid = np.linspace(0.5, 1.0, 2001)
        p, q = lap.sf(grid - 1), lap.sf(grid)
        best = grid[np.argmin(q * (1 - q) / (p - q) ** 2)]
        assert abs(theta - best) < 1e-3
    assert build("the", 1.0).threshold == mech.optimal_threshold(1.0)
    assert make("the", 1.0, d=4, threshold=1.0).q_star == pytest.approx(0.5 * math.exp(-0.5))


# --------------------------------------------------------------------------- interface

SAMPLE_INPUTS = {"frequency": [0, 4, 2, 2, 1, 3], "mean": [-1.0, 0.5, 0.0, 1.0, 0.25, -0.3]}


def sample_inputs(m: Mechanism) -> list:
    if m.input_range() == (0.0, 1.0):
        return [0.0, 0.5, 1.0, 0.25, 0.75, 0.1]
    return SAMPLE_INPUTS[m.family]


@pytest.mark.parametrize("name", list(MECHANISMS))
def test_same_seed_same_outputs(name: str) -> None:
    m = build(name)
    x = sample_inputs(m) * 50
    a, b = m.perturb(x, generator(5)), m.perturb(x, generator(5))
    c = m.perturb(x, generator(6))
    assert torch.equal(a.values, b.values) and not torch.equal(a.values, c.values)
    if a.hashes is not None:
        assert torch.equal(a.hashes, b.hashes)
    assert a.kind == m.output_kind and len(a) == len(x)


VECTOR_WIDTH = {"category": 1, "bits": D, "hash": D, "reals": D, "real": 1}


@pytest.mark.parametrize("name", list(MECHANISMS))
def test_vectors_shape(name: str) -> None:
    m = build(name)
    out = m.perturb(sample_inputs(m), generator(7))
    vec = m.vectors(out)
    assert vec.shape == (6, VECTOR_WIDTH[m.output_kind]) and vec.is_floating_point()
    info = m.describe()
    assert info["mechanism"] == name and info["broken"] == name.startswith("broken_")


def test_comb_by_hand() -> None:
    m = make("olh", 0.5, d=4)
    assert m.g == 3  # ⌈e^0.5 + 1⌉
    prime = mech.HASH_PRIME  # ≡ 1 (mod 3)
    out = Outputs(
        "hash",
        torch.tensor([2, 1]),
        torch.tensor([[5, 7], [prime - 1, prime - 2]]),
    )
    # user 1: H(u) = (5u + 7) mod 3 → 1, 0, 2, 1; reported 2 supports u = 2
    # user 2: H(u) = (−u − 2) mod P mod 3 → 2, 1, 0, 2; reported 1 supports u = 1
    expected = torch.tensor([[0.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 0.0]])
    assert torch.equal(m.vectors(out).cpu(), expected)
    support = (m.estimate(out) * (m.p_star - m.q_star) + m.q_star) * 2
    assert torch.allclose(support.cpu(), torch.tensor([0.0, 1.0, 1.0, 0.0], dtype=torch.float64))


def test_collision_probability_by_enumeration(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hashing, "HASH_PRIME", 11)
    for g in (2, 3, 4):
        for u, v in ((0, 1), (2, 9)):
            same = sum(
                ((a * u + b) % 11) % g == ((a * v + b) % 11) % g
                for a in range(1, 11)
                for b in range(11)
            )
            assert math.isclose(hashing._LocalHashing._collision_probability(g), same / 110)


def test_large_domain_hash_does_not_overflow() -> None:
    m = make("olh", 2.0, d=100_000)
    out = m.perturb(torch.tensor([99_999, 0]), generator(8))
    vec = m.vectors(out)
    a, b = (int(t) for t in out.hashes[0])
    h = ((a * 99_999 + b) % mech.HASH_PRIME) % m.g
    assert vec.shape == (2, 100_000)
    assert bool(vec[0, 99_999]) == (h == int(out.values[0]))


# --------------------------------------------------------------------------- validation


@pytest.mark.parametrize("eps", [0, -1.0, math.nan, math.inf, "one", None, 25.0])
@pytest.mark.parametrize("name", ["grr", "duchi"])
def test_bad_epsilon(name: str, eps: object) -> None:
    with pytest.raises(ParameterError) as err:
        make(name, eps, d=4)
    assert err.value.code == "ldp.bad_epsilon"


@pytest.mark.parametrize("d", [1, 0, 2.5, True, 100_001, "4", None])
def test_bad_domain(d: object) -> None:
    with pytest.raises(ParameterError) as err:
        make("oue", 1.0, d=d)
    assert err.value.code == "ldp.bad_domain"


@pytest.mark.parametrize(
    ("name", "inputs"),
    [
        ("grr", [0, 5]),
        ("olh", [-1]),
        ("oue", [0.0, 1.0]),
        ("ss", [[0, 1]]),
        ("duchi", [1.5]),
        ("piecewise", [math.nan]),
        ("laplace", [True]),
        ("square_wave", [-0.1]),
    ],
)
def test_inputs_outside_domain(name: str, inputs: list) -> None:
    m = build(name)
    with pytest.raises(ParameterError) as err:
        m.perturb(inputs, generator(0))
    assert err.value.code == "ldp.bad_inputs"


def test_other_errors() -> None:
    with pytest.raises(ParameterError, match="Unknown"):
        make("rappor2", 1.0, d=4)
    with pytest.raises(ParameterError) as err:
        make("grr", 1.0, d=4, threshold=0.5)
    assert err.value.code == "ldp.bad_parameter"
    with pytest.raises(ParameterError):
        make("grr", 1.0)
    with pytest.raises(ParameterError):
        make("the", 1.0, d=4, threshold=2.0)
    with pytest.raises(ParameterError) as err:
        build("grr").event(1, 1)
    assert err.value.code == "ldp.bad_pair"
    with pytest.raises(ParameterError):
        build("duchi").event_probabilities(0.5, 2.0)
    with pytest.raises(ParameterError):
        build("oue").estimate(build("grr").perturb([1], generator(0)))
    with pytest.raises(ParameterError):
        build("duchi").estimate(Outputs("real", torch.zeros(0, dtype=torch.float64)))
    assert make("duchi", 1.0, d=4).d is None  # mean mechanisms ignore d
    assert len(build("sue").perturb(torch.zeros(0, dtype=torch.int64), generator(0))) == 0


def test_torch_runs_on_one_thread_unless_told_otherwise(monkeypatch: pytest.MonkeyPatch) -> None:
    """One thread by default (measured: see privcore.ldp.device); PRIVCORE_TORCH_THREADS
    overrides with a whole number > 0, anything else keeps the default."""
    import os

    from privcore.ldp import device

    monkeypatch.delenv("PRIVCORE_TORCH_THREADS", raising=False)
    assert device.torch_threads() == device.DEFAULT_THREADS == 1
    for raw, threads in (("2", 2), (" 3 ", 3), ("0", 1), ("two", 1), ("-2", 1)):
        monkeypatch.setenv("PRIVCORE_TORCH_THREADS", raw)
        assert device.torch_threads() == threads, raw
    monkeypatch.setenv("PRIVCORE_TORCH_THREADS", "2")
    monkeypatch.delenv("THP_MEM_ALLOC_ENABLE", raising=False)
    device.torch_module.cache_clear()
    try:
        assert device.torch_module().get_num_threads() == 2
        # large CPU tensors on transparent huge pages, unless the environment says
        assert os.environ["THP_MEM_ALLOC_ENABLE"] == "1"
    finally:
        monkeypatch.delenv("PRIVCORE_TORCH_THREADS")
        device.torch_module.cache_clear()
    assert device.torch_module().get_num_threads() == 1
