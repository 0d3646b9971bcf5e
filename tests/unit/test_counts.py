"""Counts drawn without the reports (privcore.ldp.counts) against the reports themselves.

The audit's counts must have the same law on both paths: each test draws the same
statistic over many seeds from the counts and from the reports (counts.ENABLED off) and
checks both against its hand-derived mean and variance, and identities that hold on
every draw. The fast samplers' bits are checked against their probabilities."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from scipy import stats

from privcore.core.progress import Stage
from privcore.ldp import audit, counts
from privcore.ldp import mechanisms as mech
from privcore.ldp.audit import joint, passes, sampling
from privcore.ldp.device import generator
from privcore.ldp.mechanisms import draws, make

N, ROWS = 2_000, 700  # chunks of 700, 700, 600 rows: halves of 350 + 350 + 300 = 1,000
HALF = 1_000
SHARED = 350**2 / 700 * 2 + 300**2 / 600  # E|A ∩ A'| = Σ ⌊r/2⌋²/r = 500
SEEDS = 300


def moments_agree(values, mean: float, variance: float, seeds: int = SEEDS) -> None:
    """The sample mean within 5 standard errors of ``mean``; the sample variance within
    5 standard deviations of ``variance`` (sd of a sample variance ≈ σ²·√(2/(R−1)))."""
    values = np.asarray(values, dtype=float)
    assert abs(values.mean() - mean) < 5 * math.sqrt(variance / seeds), (values.mean(), mean)
    ratio = values.var(ddof=1) / variance
    assert abs(ratio - 1) < 5 * math.sqrt(2 / (seeds - 1)), ratio


def count_pass(name: str, d: int, seed: int, counted: bool, inputs: int | None = None):
    """OB's counting pass over the first ``inputs`` inputs (all by default) of ``name``
    (ε = 1), from counts or reports."""
    mechanism = make(name, 1.0, d=d)
    inputs = list(range(inputs or d))
    gen, split = generator(seed, "cpu"), generator(seed + 1_000_003, "cpu")
    if counted:
        source = counts.CountedReports(mechanism, inputs, ROWS, gen, "cpu")
    else:
        source = sampling._Reports(mechanism, inputs, ROWS, gen, "cpu", vectors=True)
    values = d if mechanism.output_kind == "category" else 2
    source.mark()
    halves = passes._count_pass(
        source,
        [N] * len(inputs),
        grid=None,
        values=values,
        split_gen=split,
        progress=Stage(None),
        message="",
    )
    return mechanism, source, split, halves


def one_probabilities(mechanism) -> tuple[float, float]:
    """P[a report of input 0 has value 1 at coordinate 0 (its own), and at coordinate 1]
    (GRR: the category is 0, or 1)."""
    if mechanism.name == "ss":
        return mechanism.p_include, mechanism.q_star
    return mechanism.p_star, mechanism.q_star


# --------------------------------------------------------------------------- counting pass


@pytest.mark.parametrize(
    ("name", "d"), [("grr", 5), ("sue", 5), ("oue", 5), ("broken_oue", 5), ("the", 5), ("ss", 6)]
)
def test_counting_pass_has_the_law_of_the_reports(name, d):
    """Half A of input 0 holds 1,000 reports: the count of value 1 at its own coordinate
    is Binomial(1000, p*), at another Binomial(1000, q*) (GRR: categories 0 and 1), on
    both paths; half B is the rest; subset selection's sets always hold ω members."""
    for counted in (True, False):
        own, other = [], []
        for seed in range(SEEDS):
            mechanism, _, _, (half_a, half_b) = count_pass(name, d, seed, counted)
            assert half_a.n.tolist() == [HALF] * d and half_b.n.tolist() == [N - HALF] * d
            table = half_a.counts[0]  # coordinates × values
            if mechanism.output_kind == "category":
                own.append(float(table[0, 0])), other.append(float(table[0, 1]))
            else:
                own.append(float(table[0, 1])), other.append(float(table[1, 1]))
                assert torch.equal(table.sum(-1), torch.full((d,), float(HALF)))
            if name == "ss":
                ones = half_a.counts[:, :, 1].sum(-1)
                assert torch.equal(ones, torch.full((d,), float(mechanism.omega * HALF)))
        p, q = one_probabilities(mechanism)
        moments_agree(own, HALF * p, HALF * p * (1 - p))
        moments_agree(other, HALF * q, HALF * q * (1 - q))


def test_subset_selection_outputs_by_hand():
    """d = 10, ε = 1, ω = 3, p = 3e/(3e+7): a set holding the input has probability
    p/C(9, 2) = p/36, another (1 − p)/C(9, 3) = (1 − p)/84; the marginal of another
    value is 8p/36 + 28(1 − p)/84 = (2p + 3(1 − p))/9 = q*."""
    mechanism = make("ss", 1.0, d=10)
    codes, probabilities = mechanism.symbol_pmf(4)
    p = 3 * math.e / (3 * math.e + 7)
    assert codes.shape == (120, 10) and bool((codes.sum(1) == 3).all())
    assert probabilities[codes[:, 4] == 1] == pytest.approx(np.full(36, p / 36))
    assert probabilities[codes[:, 4] == 0] == pytest.approx(np.full(84, (1 - p) / 84))
    marginal = probabilities @ codes
    assert marginal[4] == pytest.approx(p)
    assert np.delete(marginal, 4) == pytest.approx(np.full(9, (2 * p + 3 * (1 - p)) / 9))
    # too many subsets to list: the reports are drawn
    assert make("ss", 1.0, d=100).symbol_pmf(0) is None
    assert counts.counted_reports(make("ss", 1.0, d=100), [0, 1], 100, None, "cpu") is None


# --------------------------------------------------------------------------- joint pass


@pytest.mark.parametrize(("name", "d"), [("sue", 4), ("ss", 6)])
def test_joint_pass_has_the_law_of_the_reports(name, d):
    """Replaying the reports of inputs 0 and 1 as one symbol over every coordinate with a
    fresh split A': on every draw the symbols' counts add up to the counting pass's
    per-coordinate counts, and A' holds 1,000 of each input's reports; over seeds, the
    count in A' of the vector with bits 0 and 1 set (and no other) is Binomial(1000, π)
    — SUE: π = p·q·(1 − q)^(d−2); SS (ω = 2): the set {0, 1}, p/C(5, 1) — and A' shares
    E|A ∩ A'| = 500 rows with the counting pass's half A, so the two halves' counts of
    bit 0 have covariance 500·p(1 − p)."""
    coordinates = list(range(d))
    limit = min(joint._JOINT_LIMIT, N // joint._JOINT_SAMPLES)
    for counted in (True, False):
        symbol_a, bit_a, bit_new = [], [], []
        for seed in range(SEEDS):
            mechanism, source, split, (half_a, half_b) = count_pass(name, d, seed, counted, 2)
            source.rewind()
            found = joint._joint_pass(source, [N] * 2, coordinates, 2, split, Stage(None))
            keys, new, everything = found
            bits = (keys.unsqueeze(1) >> torch.arange(d)) & 1  # symbols × coordinates
            for index in range(2):
                whole = half_a.counts[index, :, 1] + half_b.counts[index, :, 1]
                assert torch.equal(everything[index] @ bits.double(), whole)
                assert float(new[index].sum()) == HALF
            assert len(keys) <= limit
            symbol_a.append(float(new[0][keys == 3].sum()))
            bit_a.append(float(half_a.counts[0, 0, 1]))
            bit_new.append(float(new[0] @ bits[:, 0].double()))
        if name == "sue":
            p, q = mechanism.p, mechanism.q
            pi = p * q * (1 - q) ** (d - 2)
        else:
            p = mechanism.p_include
            pi = p / 5
        moments_agree(symbol_a, HALF * pi, HALF * pi * (1 - pi))
        shared = np.cov(bit_a, bit_new)[0, 1] / (p * (1 - p))
        # sd of a sample covariance ≈ √((Var X Var Y + Cov²)/R) = σ²·√((1000² + 500²)/R)
        assert abs(shared - SHARED) < 5 * math.sqrt((HALF**2 + SHARED**2) / SEEDS), shared


def test_a_superset_of_coordinates_with_too_many_vectors_gives_too_many_again():
    """A pass that finds more distinct vectors than the limit returns None; a later pass
    over more coordinates of the same reports must too (it has at least as many)."""
    _, source, split, _ = count_pass("sue", 8, 0, True)
    assert source.joint([N] * 8, [0, 1, 2, 3, 4, 5], 2, split, limit=40) is None
    assert source.joint([N] * 8, list(range(8)), 2, split, limit=10**6) is None
    assert source.joint([N] * 8, [0, 1], 2, split, limit=40) is not None


# --------------------------------------------------------------------------- event counts


@pytest.mark.parametrize("name", ["grr", "sue", "blh", "she", "broken_oue"])
def test_event_counts_have_the_law_of_the_reports(name, monkeypatch):
    """AB and the white-box bound count the mechanism's own event among n reports of v
    and of w: Binomial(n, P[S | v]) and Binomial(n, P[S | w]) on both paths."""
    mechanism = make(name, 1.0, d=5)
    v, w = mechanism.worst_pair()
    event = mechanism.event(v, w)
    p_v, p_w = mechanism.event_probabilities(v, w)
    for counted in (True, False):
        monkeypatch.setattr(counts, "ENABLED", counted)
        found = {0: [], 1: []}
        for seed in range(SEEDS):
            reports = sampling._Reports(
                mechanism, [v, w], ROWS, generator(seed, "cpu"), "cpu", vectors=False
            )
            for index in (0, 1):
                found[index].append(
                    sampling._count_event(reports, index, event, N, Stage(None), "")
                )
        moments_agree(found[0], N * p_v, N * p_v * (1 - p_v))
        moments_agree(found[1], N * p_w, N * p_w * (1 - p_w))


def test_grr_disagreements_have_the_law_of_the_reports(monkeypatch):
    """AB of GRR (d = 10, ε = 1): D of n = 2,000 users with random inputs differ from
    their input, Binomial(2000, 1 − p), p = e/(e + 9) = 0.23198, on both paths."""
    mechanism = make("grr", 1.0, d=10)
    p = math.e / (math.e + 9)
    assert mechanism.p == pytest.approx(p)
    for counted in (True, False):
        monkeypatch.setattr(counts, "ENABLED", counted)
        found = [
            audit.audit_ab(mechanism, n=N, seed=seed).details["disagreements"]
            for seed in range(SEEDS)
        ]
        moments_agree(found, N * (1 - p), N * p * (1 - p))


# --------------------------------------------------------------------------- whole audits


@pytest.mark.parametrize(("name", "d"), [("grr", 5), ("sue", 5), ("ss", 6)])
def test_ob_estimates_have_the_same_distribution_on_both_paths(name, d, monkeypatch):
    """OB's ε̂_max over 60 seeds (n = 4,000, every input, no bootstrap) from counts and
    from reports: a two-sample Kolmogorov–Smirnov test does not tell them apart, and the
    joint-symbol decision is the same (SUE: per coordinate; SS: one symbol)."""
    mechanism = make(name, 1.0, d=d)
    found = {}
    for counted in (True, False):
        monkeypatch.setattr(counts, "ENABLED", counted)
        reports = [audit.audit_ob(mechanism, n=4_000, seed=s, bootstrap=0) for s in range(60)]
        found[counted] = [r.epsilon_hat for r in reports]
        joints = {
            None if r.details["joint"] is None else r.details["joint"]["symbols"] for r in reports
        }
        assert joints == ({15} if name == "ss" else {None}), joints
    assert stats.ks_2samp(found[True], found[False]).pvalue > 1e-3
    spread = np.std(found[False], ddof=1)
    assert abs(np.mean(found[True]) - np.mean(found[False])) < 4 * spread * math.sqrt(2 / 60)


def test_counts_are_drawn_without_the_reports_where_the_audit_allows(monkeypatch):
    """With counts on, AB, OB and the white-box bound of a unary encoding never generate
    a report; OB of local hashing (support bits sharing one hash) and the black-box bound
    still do."""

    def no_reports(*args, **kwargs):
        raise AssertionError("reports drawn")

    monkeypatch.setattr(sampling._Reports, "chunks", no_reports)
    monkeypatch.setattr(mech.OptimizedUnaryEncoding, "perturb", no_reports)
    oue = make("oue", 1.0, d=1024)
    assert audit.audit_ab(oue, n=10**6).verdict == "consistent"
    assert audit.lower_bound(oue, n=10**6).verdict == "consistent"
    assert audit.audit_ob(oue, n=10**6, bootstrap=0).details["joint"] is None
    with pytest.raises(AssertionError, match="reports drawn"):
        audit.audit_ob(make("olh", 1.0, d=10), n=1_000, bootstrap=0)
    with pytest.raises(AssertionError, match="reports drawn"):
        audit.lower_bound(oue, n=1_000, mode="black")


# --------------------------------------------------------------------------- fast bits


@pytest.mark.parametrize("q", [0.3, 0.5, 0.001, 0.2689414213699951])
def test_bernoulli_bits_have_probability_q_and_are_independent(q):
    """q = 0.3: ⌊256q⌋ = 76 bytes below, plus a sparse set at (76.8 − 76)/(256 − 76) =
    0.8/180: P = (76 + 0.8)/256 = 0.3. Over 2²² bits the ones are Binomial(2²², q) and
    neighbours are independent (pairs 11 at q²)."""
    size = 1 << 22
    out = np.empty(size, dtype=bool)
    draws._bernoulli_fill(out, q, np.random.Generator(np.random.PCG64(5)))
    ones = int(out.sum())
    assert abs(ones - size * q) < 5 * math.sqrt(size * q * (1 - q)), (ones, size * q)
    pairs = int((out[0::2] & out[1::2]).sum())
    half = size // 2
    assert abs(pairs - half * q * q) < 5 * math.sqrt(half * q * q * (1 - q * q)), pairs


def test_bernoulli_positions_are_geometric_gaps():
    """Successes of Bernoulli(0.01) over 10⁶ trials: about 10⁴ of them, sorted, in
    range; the gaps have mean 1/0.01 = 100."""
    rng = np.random.Generator(np.random.PCG64(3))
    positions = draws._bernoulli_positions(10**6, 0.01, rng)
    assert abs(len(positions) - 10**4) < 5 * math.sqrt(10**4 * 0.99)
    assert positions.min() >= 0 and positions.max() < 10**6
    assert bool((np.diff(positions) > 0).all())
    assert np.diff(positions).mean() == pytest.approx(100, rel=0.05)


def test_laplace_noise_is_laplace():
    """SHE's CPU noise: 2²⁰ draws of Lap(0, 2) pass a Kolmogorov–Smirnov test, half of
    them are negative, and E|L| = scale = 2."""
    out = np.empty(1 << 20, dtype=np.float32)
    draws._laplace_fill(out, 2.0, np.random.Generator(np.random.PCG64(8)))
    assert stats.kstest(out, stats.laplace(scale=2.0).cdf).pvalue > 1e-3
    negative = int((out < 0).sum())
    assert abs(negative - out.size / 2) < 5 * math.sqrt(out.size / 4)
    assert float(np.abs(out).mean()) == pytest.approx(2.0, rel=0.01)
