"""Tests of the central-DP auditor (privcore.dp.audit, SPEC §10 "Audit") and of the
Clopper–Pearson helpers it shares with the LDP auditor (privcore.core.binomial):
hand-computed bounds, the verdicts of every correct and broken mechanism, audits of
uploaded outputs, and the errors a user can cause."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from privcore.core import binomial
from privcore.dp import audit
from privcore.errors import CancelledError, ParameterError

CORRECT = ("laplace_count", "geometric_count", "gaussian_count", "laplace_sum")
BROKEN = ("broken_scale_eps", "broken_no_clamp", "broken_float_laplace")
EPSILONS = (0.5, 1.0, 2.0)


# --------------------------------------------------------------------------- Clopper–Pearson


def test_clopper_pearson_by_hand():
    # k = 0 of n = 100: the one-sided 95 % upper bound solves (1 − p)¹⁰⁰ = 0.05
    assert binomial.clopper_pearson(0, 100, 0.95, side="upper")[1] == pytest.approx(
        1 - 0.05 ** (1 / 100), rel=1e-12
    )
    # k = n = 100: the lower bound solves p¹⁰⁰ = 0.05
    assert binomial.clopper_pearson(100, 100, 0.95, side="lower")[0] == pytest.approx(
        0.05 ** (1 / 100), rel=1e-12
    )
    # two-sided at 95 %: 2.5 % on each side
    assert binomial.clopper_pearson(0, 10, 0.95) == pytest.approx((0.0, 1 - 0.025**0.1))
    # k = 1 of n = 1, one-sided lower at 90 %: p¹ = 0.1
    assert binomial.clopper_pearson(1, 1, 0.90, side="lower")[0] == pytest.approx(0.1)
    assert binomial.clopper_pearson(3, 0) == (0.0, 1.0)


def test_vectorized_bounds_agree_with_the_scalar_interval():
    k = np.array([0, 1, 30, 99, 100])
    lower = binomial.cp_lower(k, 100, 0.05)
    upper = binomial.cp_upper(k, 100, 0.05)
    for i, count in enumerate(k):
        assert lower[i] == pytest.approx(
            binomial.clopper_pearson(int(count), 100, 0.95, side="lower")[0]
        )
        assert upper[i] == pytest.approx(
            binomial.clopper_pearson(int(count), 100, 0.95, side="upper")[1]
        )
    assert lower[0] == 0.0 and upper[-1] == 1.0


def test_log_ratio_bound_by_hand():
    """100 of 100 in the event under D, 0 of 100 under D′, α = 10⁻³ (α/2 per side):
    lower = 0.0005^(1/100) = 0.926808, upper = 1 − lower = 0.073192:
    ln(0.926808/0.073192) = 2.53866; with δ = 0.5: ln(0.426808/0.073192) = 1.76325."""
    lower = 0.0005 ** (1 / 100)
    assert binomial.log_ratio_lower(100, 100, 0, 100, 1e-3) == pytest.approx(2.53866, abs=1e-5)
    assert binomial.log_ratio_lower(100, 100, 0, 100, 1e-3, delta=0.5) == pytest.approx(
        math.log((lower - 0.5) / (1 - lower)), rel=1e-9
    )
    assert binomial.log_ratio_lower(100, 100, 0, 100, 1e-3, delta=0.5) == pytest.approx(
        1.76325, abs=1e-5
    )
    # δ above the lower bound, or no event at all: −∞
    assert binomial.log_ratio_lower(100, 100, 0, 100, 1e-3, delta=0.95) == -math.inf
    assert binomial.log_ratio_lower(0, 100, 0, 100, 1e-3) == -math.inf
    # vectorized
    many = binomial.log_ratio_lower(np.array([100, 0]), 100, np.array([0, 0]), 100, 1e-3)
    assert many[0] == pytest.approx(2.53866, abs=1e-5) and many[1] == -math.inf
    assert binomial.log_ratio_upper(0, 100, 100, 100, 1e-3) == pytest.approx(-2.53866, abs=1e-5)


def test_the_ldp_auditor_uses_the_shared_helpers():
    from privcore.ldp import audit as ldp_audit

    assert ldp_audit.clopper_pearson is binomial.clopper_pearson
    assert ldp_audit._bound(100, 100, 0, 100, 1e-3) == pytest.approx(2.53866, abs=1e-5)


# --------------------------------------------------------------------------- events


def test_fraction_bits_by_hand():
    values = [0.75, 1.0, 0.0, 3.5, 2.0**-53, -0.75, 1e300, 2.0**-1074, 1.5 * 2.0**-60]
    # 0.75 = 0.11₂ (2 bits), 3.5 = 11.1₂ (1), 1.5·2⁻⁶⁰ = 1.1₂·2⁻⁶⁰ (61)
    assert audit.fraction_bits(np.array(values)).tolist() == [2, 0, 0, 1, 53, 2, 0, 1074, 61]
    # 0.1 is stored as 0x1999999999999A·2⁻⁵⁶: the significand ends in one zero bit
    assert audit.fraction_bits(np.array([0.1, np.inf, np.nan])).tolist() == [55, 0, 0]


def test_decide_by_hand():
    assert audit.decide(1.0, 1.0002) == ("violation", "bound_above_claim")
    assert audit.decide(1.0, 1.00005) == ("consistent", "bound_near_claim")  # tolerance 10⁻⁴
    assert audit.decide(1.0, 0.5) == ("consistent", "bound_near_claim")
    assert audit.decide(1.0, 0.4999) == ("inconclusive", "bound_below_claim")
    assert audit.decide(2.0, 0.0) == ("inconclusive", "bound_below_claim")


# --------------------------------------------------------------------------- mechanisms


def test_the_command_line_lists_every_audited_mechanism():
    from privcore.cli_dp import AUDITED

    assert tuple(audit.AUDIT_MECHANISMS) == AUDITED
    assert {n for n, m in audit.AUDIT_MECHANISMS.items() if m.broken} == set(BROKEN)


@pytest.mark.parametrize("name", CORRECT)
def test_correct_mechanisms_are_never_violations(name):
    for epsilon in EPSILONS:
        for seed in (0, 1, 2):
            result = audit.audit_mechanism(name, epsilon, seed=seed)
            assert result.verdict != "violation", (epsilon, seed, result.epsilon_lb)
            assert result.epsilon_lb <= epsilon + audit.DECISION_TOLERANCE
            assert result.verdict == "consistent", (epsilon, seed, result.epsilon_lb)
            if name != "gaussian_count":  # pure ε-DP: the threshold x ≥ 1 loses exactly ε
                assert result.epsilon_lb > 0.9 * epsilon


def test_gaussian_audit_needs_many_draws_to_find_half_its_budget():
    # at ε = 0.5, δ = 10⁻⁵ (σ ≈ 7.4) the loss lies in the tails: 10⁶ draws per data set
    # certify more than ε/2, 10⁵ do not
    assert audit.audit_mechanism("gaussian_count", 0.5).verdict == "consistent"
    few = audit.audit_mechanism("gaussian_count", 0.5, samples=100_000)
    assert few.verdict == "inconclusive" and few.reason == "bound_below_claim"


@pytest.mark.parametrize(
    ("name", "epsilons"),
    [
        ("broken_scale_eps", (0.5,)),
        ("broken_no_clamp", EPSILONS),
        ("broken_float_laplace", EPSILONS),
    ],
)
def test_broken_mechanisms_are_violations(name, epsilons):
    for epsilon in epsilons:
        for seed in (0, 1):
            result = audit.audit_mechanism(name, epsilon, seed=seed)
            assert result.verdict == "violation", (epsilon, seed, result.epsilon_lb)
            assert result.reason == "bound_above_claim"


def test_float_laplace_is_caught_by_its_low_order_bits():
    result = audit.audit_mechanism("broken_float_laplace", 1.0)
    assert result.event["kind"] == "low_bits"
    assert result.event["params"]["bits"] == 53
    # count 1 never lands in the event, count 0 often does
    assert result.event["counts"]["D′"][0] == 0
    assert result.p_d[0] > 0.1
    # the same noise on the grid is not caught
    assert audit.audit_mechanism("laplace_count", 1.0).event["kind"] != "low_bits"


def test_broken_scale_is_harmless_above_one_and_the_audit_says_so():
    # scale ε·Δ at ε = 2 is 2 > Δ/ε = 0.5: the real loss is 1/ε = 0.5
    result = audit.audit_mechanism("broken_scale_eps", 2.0)
    assert result.verdict == "inconclusive"
    assert result.epsilon_lb <= 0.5


def test_broken_no_clamp_bound_by_hand():
    """The outlier moves the sum by 1,000 = 100 noise scales at ε = 1: the learned
    threshold separates all 10,000 test draws, so ε_LB = ln(l/(1 − l)) with
    l = (2.5·10⁻⁴)^(1/10,000) (α = 10⁻³ over two orders and two sides): 7.0944."""
    result = audit.audit_mechanism("broken_no_clamp", 1.0, samples=20_000)
    lower = 2.5e-4 ** (1 / 10_000)
    assert result.epsilon_lb == pytest.approx(7.0944, abs=1e-4)
    assert result.epsilon_lb == pytest.approx(math.log(lower / (1 - lower)), rel=1e-9)


def test_report_is_json_safe_and_reproducible():
    first = audit.audit_mechanism("laplace_sum", 1.0, seed=4, samples=20_000)
    again = audit.audit_mechanism("laplace_sum", 1.0, seed=4, samples=20_000)
    other = audit.audit_mechanism("laplace_sum", 1.0, seed=5, samples=20_000)
    payload = json.loads(json.dumps(first.to_dict()))
    for key in (
        "mechanism",
        "epsilon",
        "delta",
        "samples",
        "epsilon_lb",
        "verdict",
        "reason",
        "event",
        "p_d",
        "p_d_prime",
        "neighbours",
    ):
        assert key in payload
    assert payload["samples"] == 20_000 and payload["delta"] == 0.0
    assert set(payload["event"]) >= {"kind", "params", "text"}
    assert first.epsilon_lb == again.epsilon_lb and first.event == again.event
    assert other.event["counts"] != first.event["counts"]
    # the Gaussian's default δ
    assert audit.audit_mechanism("gaussian_count", 1.0, samples=1_000).delta == 1e-5


def test_progress_is_reported_and_a_raising_callback_stops_the_audit():
    seen: list[float] = []
    audit.audit_mechanism("laplace_count", 1.0, samples=1_000, progress=lambda f, m: seen.append(f))
    assert seen[0] == 0.0 and seen[-1] == 1.0 and seen == sorted(seen)

    def cancel(fraction: float, message: str) -> None:
        if fraction > 0.5:
            raise CancelledError("stopped")

    with pytest.raises(CancelledError):
        audit.audit_mechanism("laplace_count", 1.0, samples=1_000, progress=cancel)


# --------------------------------------------------------------------------- uploaded outputs


def test_disjoint_outputs_are_a_violation_with_the_hand_computed_bound():
    """1,000 outputs 0 on D, 1,000 outputs 1 on D′: the event x ≤ 0 holds for all 500 test
    outputs of D and none of D′: ε_LB = ln(l/(1 − l)), l = (2.5·10⁻⁴)^(1/500) = 0.983549,
    ε_LB = ln(59.786) = 4.0908."""
    result = audit.audit_outputs(np.zeros(1_000), np.ones(1_000), 1.0)
    lower = 2.5e-4 ** (1 / 500)
    assert result.epsilon_lb == pytest.approx(math.log(lower / (1 - lower)), rel=1e-9)
    assert result.epsilon_lb == pytest.approx(4.0908, abs=1e-4)
    assert result.verdict == "violation" and result.mechanism == "uploaded"
    # a claim above the bound is not convicted
    assert audit.audit_outputs(np.zeros(1_000), np.ones(1_000), 5.0).verdict != "violation"


def test_identical_distributions_are_not_a_violation():
    rng = np.random.default_rng(3)
    for seed in (0, 1):
        d, d_prime = rng.laplace(size=5_000), rng.laplace(size=5_000)
        # listed in sorted order: the shuffle before the split keeps the bound valid
        result = audit.audit_outputs(np.sort(d), np.sort(d_prime), 0.1, seed=seed)
        assert result.verdict != "violation"
        assert result.epsilon_lb < 0.1


def test_uploaded_outputs_with_delta_subtract_it():
    # with δ = 0.99 no event of 500 draws can certify anything
    result = audit.audit_outputs(np.zeros(1_000), np.ones(1_000), 1.0, delta=0.99)
    assert result.epsilon_lb == 0.0 and result.verdict == "inconclusive"


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("call", "code"),
    [
        (lambda: audit.audit_mechanism("laplace", 1.0), "dp.unknown_audit_mechanism"),
        (lambda: audit.audit_mechanism(None, 1.0), "dp.unknown_audit_mechanism"),
        (lambda: audit.audit_mechanism("laplace_count", 0), "dp.bad_epsilon"),
        (lambda: audit.audit_mechanism("laplace_count", -1.0), "dp.bad_epsilon"),
        (lambda: audit.audit_mechanism("laplace_count", 1.0, samples=99), "dp.bad_samples"),
        (
            lambda: audit.audit_mechanism("laplace_count", 1.0, samples=audit.MAX_SAMPLES + 1),
            "dp.bad_samples",
        ),
        (lambda: audit.audit_mechanism("laplace_count", 1.0, samples=1e4), "dp.bad_samples"),
        (lambda: audit.audit_mechanism("laplace_count", 1.0, samples=True), "dp.bad_samples"),
        (lambda: audit.audit_mechanism("laplace_count", 1.0, delta=1.0), "dp.bad_delta"),
        (lambda: audit.audit_mechanism("laplace_count", 1.0, delta=-0.1), "dp.bad_delta"),
        (lambda: audit.audit_mechanism("gaussian_count", 1.0, delta=0.0), "dp.bad_delta"),
        (lambda: audit.audit_mechanism("laplace_count", 1.0, seed="x"), "dp.bad_seed"),
        (lambda: audit.audit_outputs([], np.ones(200), 1.0), "dp.bad_outputs"),
        (lambda: audit.audit_outputs(["a"] * 200, np.ones(200), 1.0), "dp.bad_outputs"),
        (lambda: audit.audit_outputs(np.ones(200), np.ones((20, 10)), 1.0), "dp.bad_outputs"),
        (lambda: audit.audit_outputs(np.ones(99), np.ones(200), 1.0), "dp.bad_outputs"),
        (
            lambda: audit.audit_outputs(np.r_[np.ones(199), np.nan], np.ones(200), 1.0),
            "dp.bad_outputs",
        ),
        (lambda: audit.audit_outputs(np.ones(200), np.ones(200), math.inf), "dp.bad_epsilon"),
        (lambda: audit.audit_outputs(np.ones(200), np.ones(200), 1.0, delta=2), "dp.bad_delta"),
    ],
)
def test_bad_input_is_refused_with_a_code(call, code):
    with pytest.raises(ParameterError) as caught:
        call()
    assert caught.value.code == code
    assert str(caught.value)  # a message for the user
