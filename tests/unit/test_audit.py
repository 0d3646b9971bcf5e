"""The LDP auditors: AB, OB, the certified lower bound, uploaded samples, the planner."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import torch

from privcore.errors import ParameterError
from privcore.ldp import audit
from privcore.ldp.audit import joint, whitebox
from privcore.ldp.device import device, generator
from privcore.ldp.mechanisms import MECHANISMS, make

CORRECT = [name for name, cls in MECHANISMS.items() if not cls.broken]
BROKEN = [name for name, cls in MECHANISMS.items() if cls.broken]


def build(name: str, epsilon: float, d: int = 10):
    return make(name, epsilon, d=d if MECHANISMS[name].family == "frequency" else None)


# --------------------------------------------------------------------------- statistics


def test_clopper_pearson_hand_values():
    # k = 0 of 10: the upper end solves (1 − p)^10 = α/2 → 1 − 0.025^(1/10)
    lo, hi = audit.clopper_pearson(0, 10, 0.95)
    assert lo == 0.0 and hi == pytest.approx(1 - 0.025**0.1)
    # k = n: the lower end solves p^n = α/2
    lo, hi = audit.clopper_pearson(10, 10, 0.95)
    assert hi == 1.0 and lo == pytest.approx(0.025**0.1)
    # one-sided lower bound at 95 %: p^n = 0.05
    assert audit.clopper_pearson(10, 10, 0.95, side="lower")[0] == pytest.approx(0.05**0.1)


def test_sample_size_planner():
    # n > z² p(1−p)/l² = 1.959964² · 0.25 / 0.0001 = 9603.6 → 9604
    assert audit.sample_size(0.5, 0.01, 0.95) == 9604
    assert audit.sample_size(0.1, 0.01, 0.95) == math.floor(1.959964**2 * 0.09 / 1e-4) + 1
    with pytest.raises(ParameterError):
        audit.sample_size(0.0, 0.01)


def test_verdict_rules():
    """decide(claimed, lower, upper, shown_lower): violation needs the 1 − 10⁻³ bound
    above the claim by more than 10⁻⁴; consistent needs the upper bound ≤ 1.1 × claim
    and nothing shown above the claim; a pure lower bound never clears."""
    assert audit.decide(1.0, lower=1.2, upper=1.3) == ("violation", "bound_above_claim")
    assert audit.decide(1.0, lower=1.00011, upper=1.05) == ("violation", "bound_above_claim")
    # within the tolerance: not a violation
    assert audit.decide(1.0, lower=1.00009, upper=1.05)[0] == "consistent"
    assert audit.decide(1.0, lower=0.9, upper=1.1) == ("consistent", "within_margin")
    assert audit.decide(4.0, lower=3.9, upper=4.4) == ("consistent", "within_margin")
    assert audit.decide(4.0, lower=3.9, upper=4.41) == ("inconclusive", "interval_too_wide")
    assert audit.decide(1.0, lower=0.3, upper=1.6) == ("inconclusive", "interval_too_wide")
    # the shown 95 % interval above the claim, the 99.9 % bound not: weak evidence
    assert audit.decide(1.0, lower=0.99, upper=1.05, shown_lower=1.01) == (
        "inconclusive",
        "weak_evidence",
    )
    # a learned (black-box) bound: no upper bound, never "consistent"
    assert audit.decide(1.0, lower=0.97, upper=None) == ("inconclusive", "lower_bound_only")
    assert audit.decide(1.0, lower=1.3, upper=None)[0] == "violation"
    # OB: always inconclusive, with the reason
    assert audit.ob_reason(1.0, (0.8, 1.05), False) == "no_evidence_at_resolution"
    assert audit.ob_reason(1.0, (1.1, 1.3), False) == "estimate_above_claim"
    assert audit.ob_reason(1.0, (0.8, 1.05), True) == "disjoint_outputs"


# --------------------------------------------------------------------------- AB


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0, 4.0])
@pytest.mark.parametrize("name", list(MECHANISMS))
def test_ab_recovers_the_true_epsilon(name, epsilon):
    mechanism = build(name, epsilon)
    report = audit.audit_ab(mechanism, n=200_000, seed=3)
    lo, hi = report.ci
    assert lo <= report.epsilon_hat <= hi
    assert abs(report.epsilon_hat - mechanism.true_epsilon()) < 0.15 * max(1.0, epsilon)
    # a 95 % interval misses now and then: within twice its half-width, always
    half = (hi - lo) / 2
    assert abs(report.epsilon_hat - mechanism.true_epsilon()) <= 2 * half + 1e-9, report.ci


def test_ab_intervals_hold_the_true_epsilon_across_mechanisms_and_budgets():
    """One audit per mechanism and ε ∈ {0.5, 1, 2, 4} (68 intervals): at least 90 %
    hold the true ε (the per-mechanism rate is the 200-audit test below)."""
    held = []
    for name in MECHANISMS:
        for epsilon in (0.5, 1.0, 2.0, 4.0):
            mechanism = build(name, epsilon)
            lo, hi = audit.audit_ab(mechanism, n=200_000, seed=3).ci
            held.append(lo <= mechanism.true_epsilon() <= hi)
    assert sum(held) >= 0.9 * len(held), f"{sum(held)} of {len(held)}"


@pytest.mark.slow
@pytest.mark.parametrize("name", list(MECHANISMS))
def test_ab_interval_coverage_over_200_audits(name):
    """The 95 % interval covers the true ε in 90–99 % of 200 independent audits, for
    every mechanism (measured 187–196 of 200)."""
    mechanism = build(name, 1.0)
    covered = 0
    for seed in range(200):
        lo, hi = audit.audit_ab(mechanism, n=5_000, seed=10_000 + seed).ci
        covered += lo <= mechanism.true_epsilon() <= hi
    assert 180 <= covered <= 198, covered


def test_per_proportion_level_by_hand():
    # equal spreads: z_c = z/√2 = 1.386, a 83.4 % interval for each proportion
    assert whitebox._per_proportion_level(500, 500, 1_000, 0.95) == pytest.approx(0.834, abs=1e-3)
    # a count of 0: no delta method, each interval at the confidence itself
    assert whitebox._per_proportion_level(0, 500, 1_000, 0.95) == 0.95


def test_ab_of_broken_grr_is_a_violation():
    report = audit.audit_ab(make("broken_grr", 1.0, d=10), n=200_000)
    assert report.verdict == "violation"
    assert report.ci[0] > 1.0
    assert report.to_dict()["epsilon_hat"] == pytest.approx(2.0, abs=0.05)


# --------------------------------------------------------------------------- lower bound


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0, 4.0])
@pytest.mark.parametrize("name", CORRECT)
def test_lower_bound_never_exceeds_the_true_epsilon(name, epsilon):
    mechanism = build(name, epsilon)
    for mode in ("white", "black"):
        report = audit.lower_bound(mechanism, n=100_000, seed=5, alpha=0.01, mode=mode)
        assert report.epsilon_lb <= mechanism.true_epsilon() + 1e-9, (mode, report.epsilon_lb)
        assert report.verdict != "violation"


@pytest.mark.parametrize("name", BROKEN)
def test_lower_bound_flags_every_broken_variant(name):
    for mode in ("white", "black"):
        report = audit.lower_bound(build(name, 1.0), n=200_000, seed=7, mode=mode)
        assert report.verdict == "violation", (name, mode, report.epsilon_lb)
        assert report.epsilon_lb > 1.0


def test_white_box_bound_is_tight_with_many_samples():
    mechanism = make("sue", 4.0, d=20)
    report = audit.lower_bound(mechanism, n=1_000_000, seed=1)
    assert report.epsilon_lb >= 0.95 * 4.0
    assert report.details["event_counts"][0] > report.details["event_counts"][1]


# --------------------------------------------------------------------------- OB


@pytest.mark.parametrize("name", CORRECT)
def test_ob_on_correct_mechanisms_is_at_most_the_claim_plus_its_interval(name):
    mechanism = build(name, 1.0)
    report = audit.audit_ob(mechanism, n=40_000, seed=2, bootstrap=30)
    lo, hi = report.ci
    assert report.epsilon_hat <= mechanism.epsilon + (hi - lo), (
        report.epsilon_hat,
        lo,
        hi,
    )
    assert report.verdict in ("consistent", "inconclusive")
    # ε̂_max is measured for the pair half A found worst, so ε̂_avg may exceed it slightly
    assert report.details["epsilon_avg"] <= report.epsilon_hat + (hi - lo)


@pytest.mark.parametrize("name", ["broken_grr", "broken_oue", "broken_piecewise", "broken_laplace"])
def test_ob_sees_broken_variants_above_their_claim(name):
    mechanism = build(name, 1.0)
    report = audit.audit_ob(mechanism, n=40_000, seed=2, bootstrap=20)
    assert report.epsilon_hat > 1.2
    assert report.verdict == "inconclusive"  # OB estimates; only the bound decides


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ob_interval_of_a_tail_leak_stays_above_the_claim(seed):
    """broken_laplace leaks in the tails, near the planning floor; a resample whose
    density dips under that floor at the chosen point must not count as no leakage."""
    report = audit.audit_ob(build("broken_laplace", 1.0), n=40_000, seed=seed, bootstrap=50)
    assert report.ci[0] > 1.0, report.ci


def test_ob_reports_both_density_estimators_for_continuous_outputs():
    report = audit.audit_ob(make("piecewise", 1.0), n=40_000, bootstrap=0)
    assert report.details["output"] == "continuous"
    assert "epsilon_max_histogram" in report.details
    assert report.details["densities"].shape[0] == 5  # five inputs spread over [−1, 1]


def test_ob_measures_dependent_bits_jointly():
    """Subset selection (d = 10, ε = 1, ω = 3): summing its coordinates would give
    ln(p/q*) + ln((1−q*)/(1−p)) with p = 3e/(3e+7) = 0.5381, q* = (2p + 3(1−p))/9 =
    0.2735: 0.6766 + 0.4528 = 1.129 > ε. Its C(10, 3) = 120 subsets are measured as
    one symbol, whose largest ratio (v in the set, w not) is exactly e^ε."""
    mechanism = make("ss", 1.0, d=10)
    p = 3 * math.e / (3 * math.e + 7)
    q = (2 * p + 3 * (1 - p)) / 9
    assert mechanism.q_star == pytest.approx(q)
    assert math.log(p / q) + math.log((1 - q) / (1 - p)) == pytest.approx(1.1294, abs=1e-4)
    report = audit.audit_ob(mechanism, n=40_000, seed=3, bootstrap=100)
    assert report.details["joint"]["symbols"] == 120
    assert report.details["joint"]["coordinates"] == list(range(10))
    assert report.details["joint"]["p_value"] < 1e-6
    lo, hi = report.ci
    assert lo <= 1.0 <= hi
    lo_avg, hi_avg = report.details["ci_avg"]
    assert lo_avg <= 1.0 <= hi_avg and hi_avg < 1.129
    # unary encodings (independent bits, 2^10 outputs) and hashed support bits stay
    # per coordinate
    assert audit.audit_ob(make("sue", 1.0, d=10), n=4_000, bootstrap=0).details["joint"] is None
    assert audit.audit_ob(make("olh", 1.0, d=10), n=4_000, bootstrap=0).details["joint"] is None


def test_ob_joint_symbol_only_for_dependent_coordinates():
    """d = 20: three random inputs; the coordinates that differ are theirs. Subset
    selection's bits are dependent (exactly ω = 5 ones): measured jointly over those
    three (8 vectors). Unary encodings' bits are independent given the input: the
    G-test does not reject, the per-coordinate sum is kept."""
    ss = audit.audit_ob(make("ss", 1.0, d=20), n=40_000, seed=0, bootstrap=50)
    joint = ss.details["joint"]
    assert joint["symbols"] == 8 and joint["coordinates"] == ss.details["inputs"]
    lo, hi = ss.ci
    assert lo <= 1.0 <= hi
    for name in ("sue", "oue", "the"):
        report = audit.audit_ob(make(name, 1.0, d=20), n=40_000, seed=0, bootstrap=0)
        assert report.details["joint"] is None, name


def test_independence_g_test_by_hand():
    """Two fair bits: independent (counts 25 each) → G = 0, p = 1; copies of each other
    (50 × 00, 50 × 11) → E = 25 per cell, G = 2·(50 ln 2 + 50 ln 2) = 138.6 on 1 dof."""
    vectors = torch.tensor([[0, 0], [0, 1], [1, 0], [1, 1]])
    independent = torch.tensor([25.0, 25.0, 25.0, 25.0])
    assert joint._independence_p_value(vectors, [independent]) == pytest.approx(1.0)
    copies = torch.tensor([50.0, 0.0, 0.0, 50.0])
    g = 2 * (100 * math.log(2))
    p = joint._independence_p_value(vectors, [copies])
    assert p == pytest.approx(float(__import__("scipy").stats.chi2.sf(g, 1)))
    assert p < 1e-30


def test_uploaded_dependent_bits_are_measured_jointly():
    frame = logged("ss", 1.0, n=100_000, d=5)
    outputs = [c for c in frame if c.startswith("y")]
    report = audit.audit_samples(frame, "x", outputs, claimed_epsilon=1.0, method="ob")
    # d = 5, ε = 1: ω = round(5/(e+1)) = 1, so the output is one-hot: 5 distinct vectors
    assert report.details["joint"]["symbols"] == 5
    lo, hi = report.ci
    assert lo <= 1.0 <= hi
    # an estimate never clears an implementation: inconclusive, with the reason
    assert report.verdict == "inconclusive"
    assert report.details["reason"] == "no_evidence_at_resolution"


def test_ob_validates_parameters():
    with pytest.raises(ParameterError):
        audit.audit_ob(make("grr", 1.0, d=5), n=10)
    with pytest.raises(ParameterError):
        audit.audit_ob(make("grr", 1.0, d=5), density="violin")


# --------------------------------------------------------------------------- uploaded samples


def logged(name: str, epsilon: float, n: int = 60_000, d: int = 5, seed: int = 0) -> pd.DataFrame:
    """Samples the project generates itself, as a vendor would log them."""
    mechanism = make(name, epsilon, d=d if MECHANISMS[name].family == "frequency" else None)
    gen = generator(seed, device())
    if mechanism.family == "frequency":
        inputs = torch.randint(0, d, (n,), generator=gen, device=gen.device)
    else:
        values = np.random.default_rng(seed).choice([-1.0, 0.0, 1.0], n)
        inputs = torch.tensor(values, device=gen.device)
    vectors = mechanism.vectors(mechanism.perturb(inputs, gen)).cpu().numpy()
    frame = pd.DataFrame({"x": inputs.cpu().numpy()})
    if vectors.shape[1] == 1:
        frame["y"] = vectors[:, 0]
    else:
        for c in range(vectors.shape[1]):
            frame[f"y{c}"] = vectors[:, c]
    return frame


@pytest.mark.parametrize("name", ["grr", "sue", "olh", "duchi", "broken_grr", "broken_oue"])
def test_uploaded_samples_give_the_built_in_answer(name):
    """20,000 logged reports per input, audited from the file alone, against the
    built-in audits at the same size: the same verdicts, overlapping OB intervals."""
    frame = logged(name, 1.0, n=100_000)
    outputs = ["y"] if "y" in frame else [c for c in frame if c.startswith("y")]
    mechanism = build(name, 1.0, d=5)
    ob = audit.audit_samples(frame, "x", outputs, claimed_epsilon=1.0, method="ob", bootstrap=20)
    built_in = audit.audit_ob(mechanism, n=20_000, bootstrap=20)
    assert ob.verdict == built_in.verdict
    assert ob.ci[0] <= built_in.ci[1] and built_in.ci[0] <= ob.ci[1], (ob.ci, built_in.ci)
    lb = audit.audit_samples(frame, "x", outputs, claimed_epsilon=1.0, method="lb")
    built_in_lb = audit.lower_bound(mechanism, n=20_000, mode="black")
    assert lb.verdict == built_in_lb.verdict
    assert lb.epsilon_lb <= mechanism.true_epsilon()


def test_uploaded_samples_of_a_broken_implementation_are_caught():
    frame = logged("broken_grr", 1.0, n=120_000)
    report = audit.audit_samples(frame, "x", ["y"], claimed_epsilon=1.0, method="lb")
    assert report.verdict == "violation"


def test_uploaded_samples_errors():
    frame = logged("grr", 1.0, n=2_000)
    with pytest.raises(ParameterError):
        audit.audit_samples(frame, "nope", ["y"], claimed_epsilon=1.0)
    with pytest.raises(ParameterError):
        audit.audit_samples(frame, "x", ["y"], claimed_epsilon=0.0)
    with pytest.raises(ParameterError):
        audit.audit_samples(frame.head(150), "x", ["y"], claimed_epsilon=1.0)


# --------------------------------------------------------------------------- sweep and device


def test_sweep_rows():
    frame = audit.sweep(
        lambda e: make("grr", e, d=5), [0.5, 2.0], n_ab=20_000, n_ob=10_000, n_lb=20_000
    )
    assert list(frame["epsilon"]) == [0.5, 2.0]
    assert {"ab", "ab_lo", "ab_hi", "ob", "lb", "verdict"} <= set(frame.columns)


def test_device_choice_and_override(monkeypatch):
    monkeypatch.delenv("PRIVCORE_DEVICE", raising=False)
    assert device() == ("cuda" if torch.cuda.is_available() else "cpu")
    monkeypatch.setenv("PRIVCORE_DEVICE", "cpu")
    assert device() == "cpu"
    monkeypatch.setenv("PRIVCORE_DEVICE", "tpu")
    with pytest.raises(ParameterError):
        device()
    if not torch.cuda.is_available():
        monkeypatch.setenv("PRIVCORE_DEVICE", "cuda")
        with pytest.raises(ParameterError, match="no CUDA"):
            device()


def test_report_json_contract():
    report = audit.lower_bound(make("grr", 1.0, d=5), n=20_000)
    out = report.to_dict()
    for key in ("epsilon_lb", "verdict", "device", "seconds"):
        assert key in out
    ab = audit.audit_ab(make("grr", 1.0, d=5), n=20_000).to_dict()
    assert len(ab["ci"]) == 2 and ab["epsilon_hat"] is not None


def test_ob_flags_inputs_whose_outputs_never_overlap_and_the_bound_catches_them():
    """An identity 'mechanism' leaks everything; OB's log-ratio has no common support
    to measure, so it must say so, and the certified bound must call it a violation."""
    x = np.arange(6_000) % 3
    samples = pd.DataFrame({"x": x, "y": x})
    ob = audit.audit_samples(samples, "x", ["y"], claimed_epsilon=1.0, method="ob")
    assert sorted(map(tuple, ob.details["disjoint_pairs"])) == [(0, 1), (0, 2), (1, 2)]
    lb = audit.audit_samples(samples, "x", ["y"], claimed_epsilon=1.0, method="lb")
    assert lb.verdict == "violation" and lb.epsilon_lb > 4
    # a correct mechanism's outputs overlap everywhere
    assert audit.audit_ob(make("grr", 1.0, d=5), n=20_000).details["disjoint_pairs"] == []


@pytest.mark.parametrize("method", ["ob", "lb"])
def test_uploaded_sample_audits_report_progress(method):
    x = np.arange(3_000) % 3
    rng = np.random.default_rng(0)
    y = np.where(rng.random(3_000) < 0.6, x, rng.integers(0, 3, 3_000))
    seen: list[float] = []
    audit.audit_samples(
        pd.DataFrame({"x": x, "y": y}),
        "x",
        ["y"],
        claimed_epsilon=1.0,
        method=method,
        progress=lambda f, _m: seen.append(f),
    )
    assert seen == sorted(seen) and seen[0] > 0 and seen[-1] == 1.0


def test_ob_on_chosen_inputs_checks_them():
    report = audit.audit_ob(make("duchi", 1.0), n=20_000, inputs=[-1, 1], bootstrap=0)
    assert report.details["inputs"] == [-1.0, 1.0]
    with pytest.raises(ParameterError, match="from -1 to 1; not 2"):
        audit.audit_ob(make("duchi", 1.0), n=20_000, inputs=[0, 2])
    with pytest.raises(ParameterError, match="at least two different"):
        audit.audit_ob(make("grr", 1.0, d=5), n=20_000, inputs=[3, 3])
