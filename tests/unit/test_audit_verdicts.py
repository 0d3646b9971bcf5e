"""LDP audit verdicts: a stated false-alarm rate, nothing cleared by a measure that can
underestimate, and one random stream per audited mechanism."""

from __future__ import annotations

import math

import pytest

from privcore.ldp import audit
from privcore.ldp.audit import whitebox
from privcore.ldp.mechanisms import MECHANISMS, make

CORRECT = [name for name, cls in MECHANISMS.items() if not cls.broken]
BROKEN = [name for name, cls in MECHANISMS.items() if cls.broken]


def build(name: str, epsilon: float, d: int = 10):
    return make(name, epsilon, d=d if MECHANISMS[name].family == "frequency" else None)


def test_the_registry_has_thirteen_correct_mechanisms_and_four_broken_ones():
    assert CORRECT == [
        "grr",
        "ss",
        "sue",
        "oue",
        "blh",
        "olh",
        "she",
        "the",
        "duchi",
        "piecewise",
        "laplace",
        "hybrid",
        "square_wave",
    ]
    assert BROKEN == ["broken_grr", "broken_oue", "broken_laplace", "broken_piecewise"]


# --------------------------------------------------------------------------- decision bounds


def test_decision_bounds_by_hand():
    """All 100 of 100 in the event under v, none under w, at α = 10⁻³ (5·10⁻⁴ per side):
    P_lower[S|v] solves p¹⁰⁰ = 5·10⁻⁴ → p = 0.0005^0.01 = 0.926808, and P_upper[S|w] =
    1 − 0.926808 = 0.073192: ln(0.926808 / 0.073192) = ln 12.6627 = 2.53866. The upper
    bound of the reversed counts is its negative."""
    assert whitebox._bound(100, 100, 0, 100, 1e-3) == pytest.approx(2.53866, abs=1e-5)
    assert whitebox._event_upper(0, 100, 100, 100, 1e-3) == pytest.approx(-2.53866, abs=1e-5)
    # vectorized one-sided bounds agree with the scalar Clopper–Pearson
    assert float(whitebox._cp_lower(30, 100, 0.05)) == pytest.approx(
        audit.clopper_pearson(30, 100, 0.95, side="lower")[0]
    )
    assert float(whitebox._cp_upper(30, 100, 0.05)) == pytest.approx(
        audit.clopper_pearson(30, 100, 0.95, side="upper")[1]
    )


def test_ab_decides_on_the_stricter_bound_and_says_so():
    """GRR (d = 10): the decision bound maps the one-sided upper bound of the
    disagreement rate at 1 − 10⁻³ through ε = ln((k−1)(1−r)/r). With D = 0 of n = 1000
    that rate is 1 − 0.001^(1/1000) = 0.0068840: ln(9 · 0.993116 / 0.006884) = 7.16888."""
    mechanism = make("grr", 20.0, d=10)  # keeps the true value with p ≈ 1 − 4·10⁻⁸
    report = audit.audit_ab(mechanism, n=1_000)
    assert report.details["disagreements"] == 0
    assert report.details["decision_lower"] == pytest.approx(7.16888, abs=1e-4)
    assert math.isinf(report.details["decision_upper"])
    assert (report.verdict, report.details["reason"]) == ("inconclusive", "interval_too_wide")
    out = report.to_dict()
    assert out["false_alarm_rate"] == audit.FALSE_ALARM_RATE == 1e-3
    assert out["reason"] == "interval_too_wide" and "decision_rule" in out


def test_every_measure_reports_its_rule_and_reason():
    mechanism = make("grr", 1.0, d=5)
    for report in (
        audit.audit_ab(mechanism, n=20_000),
        audit.audit_ob(mechanism, n=4_000, bootstrap=0),
        audit.lower_bound(mechanism, n=20_000),
        audit.lower_bound(mechanism, n=20_000, mode="black"),
    ):
        assert report.details["false_alarm_rate"] == 1e-3
        assert report.details["reason"] in audit.REASONS
        assert report.verdict in audit.VERDICTS


def test_verdict_report_adds_the_rule_its_bounds_and_the_reason():
    """Claim 1.0: a decision bound of 1.5 > 1.0 + 10⁻⁴ convicts; bounds 0.9 and 1.05 ≤
    1.1 × 1.0 clear the claim; without an upper bound nothing is cleared."""
    details = {"event_counts": [7, 3]}
    report = audit.verdict_report(
        "lb",
        {"mechanism": "x"},
        1.0,
        details,
        rule="white_box_bounds",
        lower=1.5,
        upper=2.0,
        shown_lower=1.6,
        confidence=0.95,
        samples=10,
        device="cpu",
        started=0.0,
        bound=1.6,
    )
    assert (report.verdict, report.details["reason"]) == ("violation", "bound_above_claim")
    assert list(report.details) == [
        "event_counts",
        "decision_rule",
        "false_alarm_rate",
        "decision_lower",
        "decision_upper",
        "tolerance",
        "consistent_margin",
        "reason",
    ]
    assert report.details["decision_rule"] == "white_box_bounds"
    assert (report.epsilon_lb, report.epsilon_hat, report.ci) == (1.6, None, None)
    assert report.seconds > 0  # counted from started = 0.0
    cleared = audit.verdict_report(
        "ab",
        {},
        1.0,
        {},
        rule="white_box_bounds",
        lower=0.9,
        upper=1.05,
        shown_lower=0.95,
        confidence=0.95,
        samples=10,
        device="cpu",
        started=0.0,
        estimate=1.0,
        ci=(0.95, 1.05),
    )
    assert (cleared.verdict, cleared.details["reason"]) == ("consistent", "within_margin")
    learned = audit.verdict_report(
        "lb",
        {},
        1.0,
        {},
        rule="lower_bound_only",
        lower=0.9,
        upper=None,
        shown_lower=0.95,
        confidence=0.95,
        samples=10,
        device="cpu",
        started=0.0,
    )
    assert (learned.verdict, learned.details["reason"]) == ("inconclusive", "lower_bound_only")


# --------------------------------------------------------------------------- random streams


def test_each_mechanism_and_budget_draws_its_own_stream():
    seeds = {
        audit.stream_seed(7, name, eps, 10, method)
        for name in ("sue", "oue", "square_wave")
        for eps in (1.0, 4.0)
        for method in ("ab", "ob", "lb-white")
    }
    assert len(seeds) == 18
    assert audit.stream_seed(7, "sue", 1.0, 10, "ab") == audit.stream_seed(7, "sue", 1.0, 10, "ab")
    assert all(0 <= s < 2**63 for s in seeds)


def test_the_same_request_gives_the_same_result_and_other_requests_other_noise():
    first = audit.audit_ab(make("square_wave", 4.0), n=20_000, seed=7).to_dict()
    again = audit.audit_ab(make("square_wave", 4.0), n=20_000, seed=7).to_dict()
    first.pop("seconds"), again.pop("seconds")
    assert first == again
    # another ε at the same user seed, or another user seed: other draws (each audit
    # seeds its own generator from what it audits)
    one = audit.lower_bound(make("square_wave", 1.0), n=20_000, seed=7).details["event_counts"]
    two = audit.lower_bound(make("square_wave", 4.0), n=20_000, seed=7).details["event_counts"]
    three = audit.lower_bound(make("square_wave", 1.0), n=20_000, seed=8).details["event_counts"]
    assert len({tuple(one), tuple(two), tuple(three)}) == 3


# --------------------------------------------------------------------------- false alarms


@pytest.mark.slow
@pytest.mark.parametrize("name", CORRECT)
def test_no_false_violation_at_the_defaults(name):
    """AB at its default n = 200,000 (d = 10), ε ∈ {1, 4}, 30 user seeds: a correct
    mechanism is never called a violation (the rule's false-alarm rate is ≤ 10⁻³ per
    audit; 780 audits over the 13 mechanisms, none expected). Most are consistent."""
    verdicts = []
    for epsilon in (1.0, 4.0):
        mechanism = build(name, epsilon)
        for seed in range(30):
            report = audit.audit_ab(mechanism, seed=seed)
            assert report.verdict != "violation", (epsilon, seed, report.details)
            verdicts.append(report.verdict)
    assert verdicts.count("consistent") >= 50, verdicts


# --------------------------------------------------------------------------- never cleared


@pytest.mark.slow
@pytest.mark.parametrize("name", BROKEN)
def test_broken_variants_are_never_called_consistent(name):
    """Every broken variant × ε ∈ {1, 2, 4} × 10 seeds × every measure (AB, OB, the
    white- and black-box bounds) at small n: never "consistent". At the defaults (one
    seed per setting): AB and the bound call it a violation, OB inconclusive."""
    for epsilon in (1.0, 2.0, 4.0):
        mechanism = build(name, epsilon)
        for seed in range(10):
            reports = [
                audit.audit_ab(mechanism, n=5_000, seed=seed),
                audit.audit_ob(mechanism, n=1_000, seed=seed, bootstrap=0),
                audit.lower_bound(mechanism, n=5_000, seed=seed),
                audit.lower_bound(mechanism, n=5_000, seed=seed, mode="black"),
            ]
            for report in reports:
                assert report.verdict != "consistent", (epsilon, seed, report.method)
        ab = audit.audit_ab(mechanism, seed=100)
        ob = audit.audit_ob(mechanism, seed=100)
        lb = audit.lower_bound(mechanism, seed=100)
        assert ab.verdict == "violation" and lb.verdict == "violation", (epsilon, ab, lb)
        assert ob.verdict == "inconclusive"
        assert ob.details["reason"] in ("estimate_above_claim", "no_evidence_at_resolution")


def test_ob_never_clears_a_heavy_tailed_leak():
    """broken_laplace at ε = 4 leaks 8; OB's KDE may see less (seed 2 gave 3.93 before):
    whatever it sees, it only says "inconclusive", with the reason and the advice."""
    report = audit.audit_ob(make("broken_laplace", 4.0), seed=2, bootstrap=20)
    assert report.verdict == "inconclusive"
    assert report.details["reason"] in ("no_evidence_at_resolution", "estimate_above_claim")
    # the certified bound decides
    assert audit.lower_bound(make("broken_laplace", 4.0), n=200_000, seed=2).verdict == (
        "violation"
    )


def test_a_learned_bound_never_clears_a_correct_mechanism_either():
    report = audit.lower_bound(make("grr", 1.0, d=5), n=100_000, mode="black")
    assert (report.verdict, report.details["reason"]) == ("inconclusive", "lower_bound_only")
    white = audit.lower_bound(make("grr", 1.0, d=5), n=100_000)
    assert (white.verdict, white.details["reason"]) == ("consistent", "within_margin")
    assert white.details["decision_upper"] <= 1.1


@pytest.mark.slow
@pytest.mark.parametrize("name", ["grr", "ss", "piecewise", "square_wave"])
def test_ob_intervals_hold_the_true_epsilon_in_at_least_90_percent_of_200_audits(name):
    """OB's interval (the normal bootstrap interval of ε̂_max) at the page's defaults
    (ε = 1, d = 20, 40,000 samples per input) holds the true ε in ≥ 90 % of 200 audits.
    These four were the least covered with the percentile interval (GRR: 86.5 %); the
    other mechanisms are measured in bench/bench_ldp.py (all ≥ 90 %)."""
    mechanism = make(name, 1.0, d=20)
    true = mechanism.describe()["true_epsilon"]
    held = 0
    for seed in range(200):
        low, high = audit.audit_ob(mechanism, seed=seed).ci
        held += low <= true <= high
    assert held >= 180, f"{name}: {held}/200"
