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
from privcore.dp.audit import certify, events
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
    from privcore.ldp.audit import whitebox

    assert ldp_audit.clopper_pearson is binomial.clopper_pearson
    assert whitebox._bound(100, 100, 0, 100, 1e-3) == pytest.approx(2.53866, abs=1e-5)


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
    # uploaded outputs: a violation, or no violation found — never consistent
    assert audit.decide(1.0, 1.0002, uploaded=True) == ("violation", "bound_above_claim")
    for bound in (1.00005, 0.97, 0.5, 0.0):
        assert audit.decide(1.0, bound, uploaded=True) == ("inconclusive", "no_violation_found")


# --------------------------------------------------------------------------- mechanisms


def test_the_command_line_lists_every_audited_mechanism():
    from privcore.cli.dp import AUDITED

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
    # the event is never seen on D′: its loss has no finite upper end
    assert result.loss_interval == (result.epsilon_lb, math.inf)
    # a claim above the bound is not convicted, nor cleared
    above = audit.audit_outputs(np.zeros(1_000), np.ones(1_000), 5.0)
    assert (above.verdict, above.reason) == ("inconclusive", "no_violation_found")


def test_identical_distributions_are_not_a_violation():
    rng = np.random.default_rng(3)
    for seed in (0, 1):
        d, d_prime = rng.laplace(size=5_000), rng.laplace(size=5_000)
        # listed in sorted order: the shuffle before the split keeps the bound valid
        result = audit.audit_outputs(np.sort(d), np.sort(d_prime), 0.1, seed=seed)
        assert (result.verdict, result.reason) == ("inconclusive", "no_violation_found")
        assert result.epsilon_lb < 0.1


def test_uploaded_outputs_with_delta_subtract_it():
    # with δ = 0.99 no event of 500 draws can certify anything
    result = audit.audit_outputs(np.zeros(1_000), np.ones(1_000), 1.0, delta=0.99)
    assert result.epsilon_lb == 0.0 and result.verdict == "inconclusive"
    assert result.reason == "no_violation_found"


# --------------------------------------------------------------------------- point and bin events

GRID = 2.0**-12
"""The test mechanisms' output grid: noise rounded to multiples of 2⁻¹², so that the
outputs' low-order bits do not depend on the count (no Mironov leak)."""
UPLOAD_ROWS = 200_000
"""Outputs per data set, the largest upload of the hosted page."""


def grid_laplace(rng: np.random.Generator, count: float, epsilon: float) -> np.ndarray:
    """count + Lap(1/ε) rounded to the grid: ε-DP for a count (rounding is
    post-processing, and a count is on the grid)."""
    return count + np.round(rng.laplace(0.0, 1.0 / epsilon, UPLOAD_ROWS) / GRID) * GRID


def point_mass_laplace(seed: int, share: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """Outputs on D (count 0) and D′ (count 1) of a Laplace count at ε = 1 that returns
    the exact count with probability ``share`` (0 for the correct mechanism)."""
    rng = np.random.default_rng(seed)
    return tuple(  # type: ignore[return-value]
        np.where(rng.random(UPLOAD_ROWS) < share, count, grid_laplace(rng, count, 1.0))
        for count in (0.0, 1.0)
    )


def test_point_and_bin_helpers_by_hand():
    ordered = np.array([0.0, 0.0, 0.5, 1.0, 1.0, 1.0, 2.0])
    values, counts = events._runs(ordered)
    assert values.tolist() == [0.0, 0.5, 1.0, 2.0] and counts.tolist() == [2, 1, 3, 1]
    # values seen twice or more on either side: 0 and 1 here, 3 on the other
    assert events._repeated_values(ordered, np.array([3.0, 3.0, 4.0])).tolist() == [0, 1, 3]
    assert events._point_counts(ordered, np.array([0.0, 1.0, 7.0])).tolist() == [2, 3, 0]
    # bins (−∞, 0.5), [0.5, 1.5), [1.5, ∞)
    assert events._bin_counts(ordered, np.array([0.5, 1.5])).tolist() == [2, 4, 1]
    assert events._bin_bounds(0, np.array([0.5, 1.5])) == (-math.inf, 0.5)
    assert events._bin_bounds(2, np.array([0.5, 1.5])) == (1.5, math.inf)
    # adjacent bins join: bins 0, 1 and 3 of edges 1, 2, 3 → (−∞, 2) ∪ [3, ∞)
    assert events._merged(np.array([3, 0, 1]), np.array([1.0, 2.0, 3.0])) == [
        [-math.inf, 2.0],
        [3.0, math.inf],
    ]
    # ((k₁ + ½)/n₁)/((k₂ + ½)/n₂) of 1,000 each: (99, 0) → 199, (3, 1) → 2.333, (0, 5) → 0.09
    ranked = events._ranked(np.array([3, 0, 99]), 1_000, np.array([1, 5, 0]), 1_000)
    assert ranked.tolist() == [2, 0, 1]


def test_loss_upper_by_hand():
    """100 of 100 on both data sets, α = 5·10⁻⁴ (α/2 per side): upper = 1,
    lower = (2.5·10⁻⁴)^(1/100), so ε_UB = ln(4000)/100 = 0.0829405."""
    assert certify._loss_upper(100, 100, 100, 100, 5e-4, 0.0) == pytest.approx(0.0829405, abs=1e-7)
    assert certify._loss_upper(100, 100, 0, 100, 5e-4, 0.0) == math.inf  # never seen on D′
    assert certify._loss_upper(0, 100, 50, 100, 5e-4, 0.999) == 0.0  # δ above the bound


def point_mass_epsilon(share: float) -> float:
    """The true ε of :func:`point_mass_laplace`: the loss of the point x = 0 (the largest
    ratio of two probabilities on the grid), with q₀ = 1 − e^(−γ/2) the chance that the
    gridded noise is 0 and q₁ = e^(−1)·sinh(γ/2) that it is −1 (γ = 2⁻¹², ε = 1):
    ln((share + (1 − share)·q₀)/((1 − share)·q₁))."""
    q0, q1 = -math.expm1(-GRID / 2), math.exp(-1) * math.sinh(GRID / 2)
    return math.log((share + (1 - share) * q0) / ((1 - share) * q1))


def test_a_point_mass_on_the_exact_count_is_caught_in_every_seed():
    """A Laplace count (ε = 1 claimed) that returns the exact count 5 % of the time: true
    ε = ln(1174.73) = 7.0688. Thresholds see only ln((0.05 + 0.475)/(0.475·e^(−1))) = 1.10
    of it (ε_LB 1.05 to 1.08); the point event x = 0 (or x = 1) certifies 5.48 to 6.11,
    median 5.78, on 20 seeds of 200,000 outputs per data set."""
    true_epsilon = point_mass_epsilon(0.05)
    assert true_epsilon == pytest.approx(7.0688, abs=1e-4)
    bounds = []
    for seed in range(20):
        result = audit.audit_outputs(*point_mass_laplace(seed), 1.0, seed=seed)
        assert (result.verdict, result.reason) == ("violation", "bound_above_claim"), seed
        assert result.event["kind"] in ("point", "points"), (seed, result.event)
        low, high = result.loss_interval
        assert low == result.epsilon_lb and high >= low
        bounds.append(result.epsilon_lb)
    assert min(bounds) >= 5.0
    assert float(np.median(bounds)) >= 5.5  # 5.5 × the claim
    assert max(bounds) <= true_epsilon  # a lower bound, never above the truth


def test_a_rarer_point_mass_that_thresholds_call_consistent_is_caught():
    """The exact count 1 % of the time (true ε = ln(227.65) = 5.4278): thresholds see
    ln((0.01 + 0.495)/(0.495·e^(−1))) = 1.02, and certified 0.975 to 0.998 — "consistent"
    on all 20 seeds; the point events certify 3.83 to 4.45 (median 4.12)."""
    assert point_mass_epsilon(0.01) == pytest.approx(5.4278, abs=1e-4)
    bounds = []
    for seed in range(20):
        result = audit.audit_outputs(*point_mass_laplace(seed, share=0.01), 1.0, seed=seed)
        assert result.verdict == "violation", (seed, result.epsilon_lb)
        bounds.append(result.epsilon_lb)
    assert min(bounds) >= 3.0 and float(np.median(bounds)) >= 3.5
    assert max(bounds) <= point_mass_epsilon(0.01)


def test_a_correct_laplace_is_neither_flagged_nor_cleared():
    """The same noise without the point mass (true ε = 1), 20 seeds: no violation, ε_LB
    at most the claim (the thresholds still certify 0.952 to 0.976 of it), and the
    verdict says that no violation was found — never "consistent"."""
    for seed in range(20):
        result = audit.audit_outputs(*point_mass_laplace(seed, share=0.0), 1.0, seed=seed)
        assert (result.verdict, result.reason) == ("inconclusive", "no_violation_found")
        assert 0.9 <= result.epsilon_lb <= 1.0, (seed, result.epsilon_lb)
        assert "consistent" not in json.dumps(result.to_dict(), ensure_ascii=False)


def test_a_narrow_band_of_outputs_is_found_by_the_histogram():
    """D′ puts 5 % of its outputs in [4, 4.05] (on the grid), where D has probability
    about 0.5·e⁻⁴·0.05 = 4.6·10⁻⁴: a loss of ln(0.0512/0.00046) ≈ 4.7 that the best
    threshold x ≥ 4 sees only as ln(0.0736/0.00916) = 2.08 (ε_LB 1.85 to 1.94). The bins
    certify 4.06 to 4.38 on these five seeds."""
    for seed in range(5):
        rng = np.random.default_rng(seed)
        d, d_prime = grid_laplace(rng, 0.0, 1.0), grid_laplace(rng, 1.0, 1.0)
        band = np.round(rng.uniform(4.0, 4.05, UPLOAD_ROWS) / GRID) * GRID
        d_prime = np.where(rng.random(UPLOAD_ROWS) < 0.05, band, d_prime)
        result = audit.audit_outputs(d, d_prime, 1.0, seed=seed)
        assert result.event["kind"] in ("bin", "bins"), (seed, result.event)
        assert result.epsilon_lb >= 3.5, (seed, result.epsilon_lb)


def test_point_and_bin_events_in_the_report():
    """Three outputs repeat on D only: the point event x = 2.5 is learned and described
    exactly, with its interval (about 300 of 2,000 test outputs on D, none on D′)."""
    rng = np.random.default_rng(0)
    d = np.r_[np.full(600, 2.5), rng.uniform(0, 10, 3_400)]
    d_prime = rng.uniform(0, 10, 4_000)
    result = audit.audit_outputs(d, d_prime, 1.0)
    assert result.event["kind"] in ("point", "points")
    assert 2.5 in (result.event["params"].get("values") or [result.event["params"]["value"]])
    payload = json.loads(json.dumps(result.to_dict()))
    assert payload["loss_interval"][1] is None  # ∞: the event never seen on D′
    assert "consistent_share" not in payload
    assert (
        "consistent_share" in audit.audit_mechanism("laplace_count", 1.0, samples=1_000).to_dict()
    )


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
