"""Population uniqueness (Zayatz, Pitman, SNB, Dankar et al.'s rule) and Benedetti–Franconi
individual risk (SPEC §11), against hand-computed values, brute-force sums of the models'
definitions, and the figures ARX's and sdcMicro's own test suites give."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from scipy import stats

from privcore.classes import equivalence_classes
from privcore.errors import ParameterError
from privcore.measure.population import (
    FrequencyOfFrequencies,
    dankar_choice,
    haas_shlosser_classes,
    individual_risk,
    pitman_uniques,
    population_size,
    population_uniqueness,
    record_posterior_risk,
    snb_expected_small_classes,
    snb_uniques,
    uniqueness_of_frequencies,
    zayatz_uniques,
)
from privcore.measure.population.models import _snb_parameters as snb_parameters


def _table(frequencies: dict[int, int]) -> pd.DataFrame:
    """One QI column whose classes have the given frequencies of frequencies."""
    values, label = [], 0
    for size, count in frequencies.items():
        for _ in range(count):
            values += [f"v{label}"] * size
            label += 1
    return pd.DataFrame({"q": values})


# --------------------------------------------------------------------------- inputs


def test_frequencies_of_frequencies_from_class_sizes():
    freq = FrequencyOfFrequencies.of_class_sizes([3, 1, 2, 1, 1])
    assert freq.sizes.tolist() == [1, 2, 3] and freq.counts.tolist() == [3, 1, 1]
    assert freq.records == 8 and freq.classes == 5
    assert freq.of_size(1) == 3 and freq.of_size(4) == 0
    mapped = FrequencyOfFrequencies.from_mapping({3: 1, 1: 3, 2: 1, 7: 0})
    assert mapped.sizes.tolist() == [1, 2, 3] and mapped.counts.tolist() == [3, 1, 1]


@pytest.mark.parametrize("fraction", [0, -0.1, 1.5, math.nan, math.inf, True, "x", [0.1]])
def test_a_bad_sampling_fraction_is_refused(fraction):
    with pytest.raises(ParameterError) as error:
        population_size(100, sampling_fraction=fraction)
    assert error.value.code == "population.bad_sampling_fraction"


def test_population_size_from_fraction_size_table_or_roll():
    from privcore.attacks.roll import build_roll

    assert population_size(30162, sampling_fraction=0.1) == 301620
    assert population_size(3, sampling_fraction=0.4) == 8  # 7.5 rounds half up
    assert population_size(10, sampling_fraction=1) == 10
    assert population_size(10, population=250) == 250
    assert population_size(2, population=pd.DataFrame({"a": range(5)})) == 5
    frame = _table({1: 3, 2: 1})
    roll = build_roll(frame, ["q"], size=50, seed=1)
    assert population_size(len(frame), population=roll) == 50
    result = population_uniqueness(frame, ["q"], population=roll)
    assert result.population_size == 50 and result.sampling_fraction == pytest.approx(5 / 50)


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({}, "population.no_sampling_fraction"),
        ({"sampling_fraction": 0.5, "population": 40}, "population.fraction_and_population"),
        ({"population": 9}, "population.bad_sampling_fraction"),  # N < n: π > 1
        ({"population": 20.5}, "population.bad_population"),
        ({"population": 0}, "population.bad_population"),
        ({"population": "many"}, "population.bad_population"),
        ({"population": True}, "population.bad_population"),
    ],
)
def test_population_errors_have_codes(kwargs, code):
    with pytest.raises(ParameterError) as error:
        population_size(10, **kwargs)
    assert error.value.code == code


# --------------------------------------------------------------------------- Zayatz


def _h(i: int, population: int, records: int) -> Fraction:
    """i·C(N−i, n−1)/C(N, n), exactly."""
    return Fraction(i * math.comb(population - i, records - 1), math.comb(population, records))


def test_zayatz_by_hand_small_population():
    # c1 = 2, c2 = 1, c3 = 2: n = 10, N = 20 (π = 1/2). h(1) = 10/20 = 1/2,
    # h(2) = 2·C(18,9)/C(20,10) = 2·48620/184756 = 10/19, h(3) = 3·C(17,9)/C(20,10) = 15/38;
    # Σ c_i h(i) = 1 + 10/19 + 15/19 = 44/19, U = c1²/Σ = 4·19/44 = 19/11.
    freq = FrequencyOfFrequencies.from_mapping({1: 2, 2: 1, 3: 2})
    assert _h(2, 20, 10) == Fraction(10, 19) and _h(3, 20, 10) == Fraction(15, 38)
    assert zayatz_uniques(freq, 20) == pytest.approx(19 / 11, rel=1e-12)


def test_zayatz_by_hand_one_in_ten():
    # c1 = 3, c2 = 1, c3 = 1: n = 8, N = 80. h(1) = 1/10, h(2) = 2·8·72/(80·79),
    # h(3) = 3·8·72·71/(80·79·78); U = 9 / (3/10 + h(2) + h(3)) ≈ 12.309.
    h2 = Fraction(2 * 8 * 72, 80 * 79)
    h3 = Fraction(3 * 8 * 72 * 71, 80 * 79 * 78)
    assert (h2, h3) == (_h(2, 80, 8), _h(3, 80, 8))
    expected = 9 / (Fraction(3, 10) + h2 + h3)
    freq = FrequencyOfFrequencies.from_mapping({1: 3, 2: 1, 3: 1})
    assert zayatz_uniques(freq, 80) == pytest.approx(float(expected), rel=1e-12)
    assert float(expected) == pytest.approx(12.3092289, rel=1e-7)


def test_zayatz_at_fraction_one_is_the_sample_uniques():
    freq = FrequencyOfFrequencies.from_mapping({1: 4, 2: 2, 4: 1})
    assert zayatz_uniques(freq, freq.records) == pytest.approx(4.0, rel=1e-12)


# --------------------------------------------------------------------------- Pitman


def _pitman_log_likelihood(theta: float, alpha: float, frequencies: dict[int, int]) -> float:
    """Pitman's sampling formula, term by term (Hoshino 2001)."""
    n = sum(i * c for i, c in frequencies.items())
    u = sum(frequencies.values())
    value = sum(math.log(theta + i * alpha) for i in range(1, u))
    value -= sum(math.log(theta + i) for i in range(1, n))
    for j, c in frequencies.items():
        value += c * sum(math.log(i - alpha) for i in range(1, j))
    return value


def test_pitman_fit_is_the_maximum_likelihood_and_gives_hoshinos_count():
    frequencies = {1: 6, 2: 3, 3: 2, 5: 1}
    freq = FrequencyOfFrequencies.from_mapping(frequencies)
    fit = pitman_uniques(freq, 92)
    assert fit is not None and fit.uniques is not None
    theta, alpha = fit.theta, fit.alpha
    # the score vanishes: central differences of the likelihood written out term by term
    eps = 1e-6
    d_theta = (
        _pitman_log_likelihood(theta + eps, alpha, frequencies)
        - _pitman_log_likelihood(theta - eps, alpha, frequencies)
    ) / (2 * eps)
    d_alpha = (
        _pitman_log_likelihood(theta, alpha + eps, frequencies)
        - _pitman_log_likelihood(theta, alpha - eps, frequencies)
    ) / (2 * eps)
    assert abs(d_theta) < 1e-5 and abs(d_alpha) < 1e-5
    # and it is a maximum: every nearby point is less likely
    best = _pitman_log_likelihood(theta, alpha, frequencies)
    for dt, da in [(1e-3, 0), (-1e-3, 0), (0, 1e-3), (0, -1e-3), (1e-3, 1e-3)]:
        assert _pitman_log_likelihood(theta + dt, alpha + da, frequencies) < best
    # U = Γ(θ+1)/Γ(θ+α)·N^α
    count = math.exp(math.lgamma(theta + 1) - math.lgamma(theta + alpha)) * 92**alpha
    assert fit.uniques == pytest.approx(count, rel=1e-12)


@pytest.mark.parametrize(("theta", "alpha"), [(3.0, 0.5), (0.01, 0.9), (40.0, 0.4), (7.0, 0.7)])
def test_pitman_closed_form_sums_equal_the_sums_term_by_term(theta, alpha):
    from privcore.measure.population.models import _PitmanLikelihood

    likelihood = _PitmanLikelihood(FrequencyOfFrequencies.from_mapping({1: 60, 2: 30, 5: 10}))
    assert theta <= alpha * likelihood.u  # the closed forms apply
    i = np.arange(1, 100, dtype=float)  # u − 1 = 99 terms
    v = theta + i * alpha
    direct = [(1 / v).sum(), (i / v).sum(), (1 / v**2).sum(), (i / v**2).sum(), (i**2 / v**2).sum()]
    assert likelihood.class_sums(theta, alpha) == pytest.approx(direct, rel=1e-11)


def test_pitman_has_no_estimate_when_every_record_is_unique():
    # u = n: the likelihood grows without bound as θ → ∞ (no finite maximum)
    fit = pitman_uniques(FrequencyOfFrequencies.from_mapping({1: 5}), 50)
    assert fit is None or fit.uniques is None


# --------------------------------------------------------------------------- SNB


def test_snb_moments_equal_the_model_summed_term_by_term():
    classes, alpha, beta, fraction = 1000.0, 0.7, 0.3, 0.15
    x = np.arange(0, 20000)
    population_sizes = 1 + x  # F = 1 + X, X ~ NegBin(α, β)
    weights = stats.nbinom.pmf(x, alpha, beta)
    uniques = classes * (weights * stats.binom.pmf(1, population_sizes, fraction)).sum()
    doubles = classes * (weights * stats.binom.pmf(2, population_sizes, fraction)).sum()
    e1, e2 = snb_expected_small_classes(classes, alpha, beta, fraction)
    assert e1 == pytest.approx(uniques, rel=1e-10)
    assert e2 == pytest.approx(doubles, rel=1e-10)


def test_snb_solver_recovers_the_parameters_from_exact_moments():
    classes, alpha, beta, fraction = 500.0, 0.4, 0.2, 0.3
    c1, c2 = snb_expected_small_classes(classes, alpha, beta, fraction)
    found = snb_parameters(classes, fraction, c1, c2)
    assert found is not None
    assert found == pytest.approx((alpha, beta), rel=1e-8)


def test_haas_shlosser_classes_by_hand():
    # c1 = 3, c2 = 1, c3 = 1, q = 0.1:
    # Σ i q²(1−q²)^(i−1) c_i = 0.03 + 0.0198 + 0.029403 = 0.079203
    # Σ ((1−q²)^i − (1−q)^i) c_i = 0.27 + 0.1701 + 0.241299 = 0.681399
    # Σ (1−q)^i c_i = 2.7 + 0.81 + 0.729 = 4.239;  Σ i q (1−q)^(i−1) c_i = 0.3+0.18+0.243 = 0.723
    # K = 5 + 3 · (0.079203/0.681399) · (4.239/0.723)²
    expected = 5 + 3 * (0.079203 / 0.681399) * (4.239 / 0.723) ** 2
    freq = FrequencyOfFrequencies.from_mapping({1: 3, 2: 1, 3: 1})
    assert haas_shlosser_classes(freq, 0.1) == pytest.approx(expected, rel=1e-12)
    assert expected == pytest.approx(16.98703, rel=1e-6)
    assert haas_shlosser_classes(freq, 1.0) == 5  # everything seen: K = u


def test_snb_fit_reproduces_c1_and_c2():
    freq = FrequencyOfFrequencies.from_mapping({1: 3, 2: 1, 3: 1})
    fit = snb_uniques(freq, 32, 8 / 32)
    assert fit is not None and fit.uniques is not None
    e1, e2 = snb_expected_small_classes(fit.classes, fit.alpha, fit.beta, 8 / 32)
    assert (e1, e2) == pytest.approx((3, 1), rel=1e-8)
    assert fit.uniques == pytest.approx(fit.classes * fit.beta**fit.alpha, rel=1e-12)


def test_snb_needs_classes_of_size_two():
    assert snb_uniques(FrequencyOfFrequencies.from_mapping({1: 5, 3: 1}), 80, 0.1) is None


# --------------------------------------------------------------------------- Dankar's rule


@pytest.mark.parametrize(
    ("fraction", "zayatz", "pitman", "snb", "chosen"),
    [
        (0.05, 10.0, 8.0, 5.0, ("pitman", 8.0)),  # small π: Pitman, whatever the others
        (0.1, 10.0, 12.0, 5.0, ("pitman", 12.0)),  # π = 0.1 still counts as small
        (0.05, 10.0, None, 5.0, ("zayatz", 10.0)),  # Pitman did not converge
        (0.05, 10.0, 0.0, 5.0, ("zayatz", 10.0)),  # 0 counts as no estimate (ARX)
        (0.2, 10.0, 8.0, 12.0, ("zayatz", 10.0)),  # large π: the smaller of Zayatz, SNB
        (0.2, 10.0, 8.0, 7.0, ("snb", 7.0)),
        (0.2, 10.0, 8.0, 10.0, ("snb", 10.0)),  # a tie goes to SNB
        (0.2, 10.0, 8.0, None, ("zayatz", 10.0)),  # SNB did not converge
    ],
)
def test_dankar_rule_branches(fraction, zayatz, pitman, snb, chosen):
    assert dankar_choice(fraction, zayatz, pitman, snb) == chosen


def test_dankar_rule_on_samples():
    # π = 8/32 > 0.1: SNB converges below Zayatz
    small = FrequencyOfFrequencies.from_mapping({1: 3, 2: 1, 3: 1})
    result = uniqueness_of_frequencies(small, 32)
    assert result.model == "snb"
    assert result.models["snb"] < result.models["zayatz"]
    assert result.count == pytest.approx(result.models["snb"] * 32)
    # π = 1/2: SNB above Zayatz (19/11) → Zayatz
    result = uniqueness_of_frequencies(FrequencyOfFrequencies.from_mapping({1: 2, 2: 1, 3: 2}), 20)
    assert result.model == "zayatz" and result.count == pytest.approx(19 / 11)
    assert result.models["snb"] * 20 > 19 / 11
    # π = 1/10, Pitman has no finite fit → Zayatz
    result = uniqueness_of_frequencies(small, 80)
    assert result.models["pitman"] is None and result.model == "zayatz"
    assert result.count == pytest.approx(12.3092289, rel=1e-7)
    assert result.share == pytest.approx(12.3092289 / 80, rel=1e-7)
    # π = 1/4, no class of size 2 → SNB has no fit → Zayatz
    result = uniqueness_of_frequencies(FrequencyOfFrequencies.from_mapping({1: 5}), 20)
    assert result.models["snb"] is None and result.model == "zayatz"


def test_fraction_one_each_model():
    """π = 1: the sample is the population. Zayatz and SNB give the sample uniques
    exactly (h(i) = [i = 1]; K̂ = u and the moment equations pin K·β^α = c_1); Pitman is
    a fitted model and gives its own figure; the rule (π > 0.1) gives c_1."""
    freq = FrequencyOfFrequencies.from_mapping({1: 4, 2: 2, 4: 1})
    result = uniqueness_of_frequencies(freq, freq.records)
    assert result.sampling_fraction == 1.0
    assert result.models["zayatz"] * 12 == pytest.approx(4.0, rel=1e-12)
    assert result.models["snb"] * 12 == pytest.approx(4.0, rel=1e-9)
    assert result.model in ("zayatz", "snb")
    assert result.count == pytest.approx(4.0, rel=1e-9)
    assert result.share == pytest.approx(4 / 12, rel=1e-9)


def test_no_sample_uniques_means_no_population_uniques():
    result = population_uniqueness(_table({2: 3, 3: 1}), ["q"], sampling_fraction=0.01)
    assert result.model == "none" and result.share == 0 and result.count == 0
    assert result.models == {"zayatz": 0.0, "pitman": 0.0, "snb": 0.0}


def test_to_dict_keys():
    result = population_uniqueness(_table({1: 3, 2: 1, 3: 1}), ["q"], sampling_fraction=0.25)
    out = result.to_dict()
    assert {"model", "share", "count", "models", "sampling_fraction"} <= set(out)
    assert out["model"] == "snb" and isinstance(out["share"], float)
    assert out["sampling_fraction"] == 0.25 and out["population_size"] == 32


# --------------------------------------------------------------------------- ARX on Adult


@pytest.fixture(scope="module")
def adult():
    from privcore.data import load_sample

    dataset, _ = load_sample("adult")
    return dataset.frame


@pytest.mark.parametrize(
    ("fraction", "model", "share"),
    [
        (0.01, "pitman", 0.1446083531167384),
        (0.1, "pitman", 0.27684993883653597),
        (0.1, "zayatz", 0.3207402393466189),
        (0.2, "zayatz", 0.3577099234829125),
        (1.0, "zayatz", 0.5142895033485844),
    ],
)
def test_adult_models_agree_with_arx(adult, fraction, model, share):
    """ARX's TestRiskMetrics.testDecisionRule2: Adult, all nine attributes as QIs. ARX's
    own rule picks Pitman at 0.01 and 0.1 and Zayatz at 0.2 and 1 (ARX's SNB, whose second
    moment equation multiplies where the model divides, does not converge there); this
    module's SNB converges at 0.2 below Zayatz and Dankar's rule then takes SNB."""
    result = population_uniqueness(adult, list(adult.columns), sampling_fraction=fraction)
    assert result.models[model] == pytest.approx(share, abs=1e-8)
    if fraction <= 0.1:
        assert result.model == "pitman" and result.share == pytest.approx(result.models["pitman"])
    if fraction == 0.2:
        assert result.model == "snb" and result.share < result.models["zayatz"]
    if fraction == 1.0:
        assert result.share == pytest.approx(share, abs=1e-10)  # c1/n


# --------------------------------------------------------------------------- individual risk


def test_individual_risk_closed_forms_with_uniform_weights():
    """Classes of 1, 2, 3, 4 records, π = 0.1: F̂ = 10·f, p = 0.1, q = 0.9 for all."""
    frame = _table({1: 1, 2: 1, 3: 1, 4: 1})
    p, q, log_inverse = 0.1, 0.9, math.log(10)
    r1 = p / q * log_inverse  # 0.25584…
    r2 = p / q - (p / q) ** 2 * log_inverse  # 0.08268…
    r3_approx, r4_approx = p / (3 - q), p / (4 - q)
    r3_exact = p / (2 * q) - p**2 / q**2 + p**3 / q**3 * log_inverse  # 0.04637…
    assert (r1, r2, r3_exact) == pytest.approx((0.2558428, 0.0826841, 0.0463684), abs=1e-7)

    risk = individual_risk(frame, ["q"], sampling_fraction=0.1)
    assert risk.method == "approx" and risk.sampling_fraction == 0.1 and risk.records == 10
    expected = [r1] + [r2] * 2 + [r3_approx] * 3 + [r4_approx] * 4
    assert risk.per_record == pytest.approx(expected, rel=1e-12)
    total = r1 + 2 * r2 + 3 * r3_approx + 4 * r4_approx
    assert risk.expected_reidentifications == pytest.approx(total, rel=1e-12)
    assert risk.max == pytest.approx(r1) and risk.mean == pytest.approx(total / 10)
    out = risk.to_dict()
    assert out["expected_reidentifications"] == pytest.approx(total) and out["max"] == risk.max

    exact = individual_risk(frame, ["q"], population=100, method="exact")
    assert exact.per_record[3] == pytest.approx(r3_exact, rel=1e-12)


def test_individual_risk_sdcmicro_worked_example():
    """sdcMicro's tests/testthat/test_indivRisk.R: three key variables, sampling weights."""
    frame = pd.DataFrame(
        {
            "A": [2, 3, 2, 2, 3, 3, 1, 2],
            "B": [3, 3, 3, 3, 3, 3, 4, 3],
            "C": [1, 3, 1, 2, 1, 1, 1, 1],
            "weight": [18.0, 45.5, 39.0, 17.0, 92.0, 8.0, 123.5, 51],
        }
    )
    approx = individual_risk(frame, ["A", "B", "C"], sampling_weights="weight")
    assert approx.per_record == pytest.approx(
        [0.01369863, 0.08579129, 0.01369863, 0.17707583, 0.01877883, 0.01877883, 0.03931625,
         0.01369863],
        abs=5e-9,
    )  # fmt: skip
    exact = individual_risk(frame, ["A", "B", "C"], sampling_weights=frame["weight"].to_numpy(),
                            method="exact")  # fmt: skip
    assert exact.per_record[[0, 2, 7]] == pytest.approx([0.01355297] * 3, abs=5e-9)
    assert exact.sampling_fraction is None
    assert exact.expected_reidentifications == pytest.approx(exact.per_record.sum())


@pytest.mark.parametrize("method", ["approx", "exact"])
def test_posterior_risk_against_the_negative_binomial_sum(method):
    sizes = np.array([1, 2, 3, 5, 20, 3, 6])
    fractions = np.array([0.02, 0.3, 0.3, 0.5, 0.7, 0.95, 0.51])
    got = record_posterior_risk(sizes, fractions, method=method)
    for f, p, r in zip(sizes, fractions, got, strict=True):
        h = np.arange(f, f + 20000)
        truth = (stats.nbinom.pmf(h - f, f, p) / h).sum()  # E[1/F], F − f ~ NegBin(f, p)
        if method == "exact" or f <= 2:
            assert r == pytest.approx(truth, rel=1e-10)
        else:  # Franconi & Polettini's approximation: within a few per cent
            assert r == pytest.approx(truth, rel=0.05)
    assert record_posterior_risk([4], [1.0], method=method)[0] == 0.25  # F̂ = f: 1/f


def test_suppressed_rows_have_no_risk_but_count():
    frame = pd.DataFrame({"q": ["a", "b", "b", "*"]})
    classes = equivalence_classes(frame, ["q"])  # the all-* row set aside
    risk = individual_risk(frame, ["q"], sampling_fraction=0.5, classes=classes)
    p = 0.5
    r1, r2 = p / (1 - p) * math.log(2), 1 - math.log(2)
    assert risk.per_record == pytest.approx([r1, r2, r2, 0.0])
    assert risk.records == 4 and risk.mean == pytest.approx((r1 + 2 * r2) / 4)
    result = population_uniqueness(frame, ["q"], sampling_fraction=0.5, classes=classes)
    assert result.records == 4 and result.population_size == 8 and result.sample_uniques == 1


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"sampling_weights": "missing"}, "population.bad_sampling_weights"),
        ({"sampling_weights": [2.0, 0.5, 3.0]}, "population.bad_sampling_weights"),
        ({"sampling_weights": [2.0, 3.0]}, "population.bad_sampling_weights"),
        ({"sampling_weights": [2.0, np.nan, 3.0]}, "population.bad_sampling_weights"),
        (
            {"sampling_weights": [2.0, 2.0, 3.0], "sampling_fraction": 0.5},
            "population.weights_and_fraction",
        ),
        ({"sampling_fraction": 0.5, "method": "guess"}, "population.bad_method"),
        ({"sampling_fraction": 0.5, "weights": [1, 0, 2]}, "population.bad_weights"),
        ({"sampling_fraction": 0.5, "weights": [1, 1.5, 2]}, "population.bad_weights"),
        ({}, "population.no_sampling_fraction"),
    ],
)
def test_individual_risk_errors_have_codes(kwargs, code):
    with pytest.raises(ParameterError) as error:
        individual_risk(pd.DataFrame({"q": ["a", "b", "b"]}), ["q"], **kwargs)
    assert error.value.code == code


# --------------------------------------------------------------------------- frequency sets


def test_a_frequency_set_gives_the_figures_of_the_expanded_table():
    compact = pd.DataFrame({"q": ["a", "b", "c", "b", "d", "e"], "s": [1, 2, 3, 4, 5, 6]})
    weights = np.array([1, 2, 3, 1, 1, 4])
    expanded = compact.loc[compact.index.repeat(weights)].reset_index(drop=True)
    for kwargs in ({"sampling_fraction": 0.05}, {"sampling_fraction": 0.5}, {"population": 30}):
        small = population_uniqueness(compact, ["q"], weights=weights, **kwargs)
        large = population_uniqueness(expanded, ["q"], **kwargs)
        assert small.to_dict() == large.to_dict()
    for method in ("approx", "exact"):
        small = individual_risk(compact, ["q"], weights=weights, population=40, method=method)
        large = individual_risk(expanded, ["q"], population=40, method=method)
        assert small.records == large.records == 12 and small.method == large.method
        assert small.expected_reidentifications == pytest.approx(large.expected_reidentifications)
        assert small.max == pytest.approx(large.max) and small.mean == pytest.approx(large.mean)
        assert np.repeat(small.per_record, weights) == pytest.approx(large.per_record, rel=1e-12)
    # sampling weights of a frequency set: each of a row's records has the row's weight
    sampling = np.array([10.0, 4.0, 2.0, 6.0, 20.0, 3.0])
    small = individual_risk(compact, ["q"], weights=weights, sampling_weights=sampling)
    large = individual_risk(expanded, ["q"], sampling_weights=np.repeat(sampling, weights))
    assert small.expected_reidentifications == pytest.approx(large.expected_reidentifications)
    assert small.max == pytest.approx(large.max)


# --------------------------------------------------------------------------- properties

_histograms = st.dictionaries(
    st.integers(min_value=1, max_value=12), st.integers(min_value=1, max_value=30), min_size=1
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_histograms, st.floats(min_value=0.001, max_value=1.0))
# a share times the population lands one rounding above the count it came from
@example({8: 6, 9: 13, 1: 19, 11: 13, 4: 7, 12: 14}, 1.0)
def test_every_estimate_is_a_share_of_the_population(frequencies, fraction):
    freq = FrequencyOfFrequencies.from_mapping(frequencies)
    population = population_size(freq.records, sampling_fraction=fraction)
    result = uniqueness_of_frequencies(freq, population)
    assert 0.0 <= result.share <= 1.0
    assert 0.0 <= result.count <= population
    for share in result.models.values():
        assert share is None or 0.0 <= share <= 1.0
    # at most as many population uniques as the population could hold beyond the sample
    bound = freq.of_size(1) / (freq.records / population)
    assert result.models["zayatz"] * population <= bound * (1 + 1e-12)  # float rounding
    assert result.model in ("zayatz", "pitman", "snb", "none")


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(min_value=1, max_value=60), min_size=1, max_size=20),
    st.lists(st.floats(min_value=1e-4, max_value=1.0), min_size=20, max_size=20),
    st.sampled_from(["approx", "exact"]),
)
def test_record_risks_lie_in_zero_to_one_over_f(sizes, fractions, method):
    sizes = np.array(sizes)
    risk = record_posterior_risk(sizes, np.array(fractions[: len(sizes)]), method=method)
    assert np.all(risk > 0) and np.all(risk <= 1.0 / sizes + 1e-12)


def test_an_empty_table_has_no_risk():
    empty = pd.DataFrame({"q": pd.Series([], dtype=object)})
    result = population_uniqueness(empty, ["q"], sampling_fraction=0.05)
    assert (result.model, result.share, result.records, result.sampling_fraction) == (
        "none",
        0.0,
        0,
        0.05,
    )
    risk = individual_risk(empty, ["q"], sampling_fraction=0.05)
    assert (risk.expected_reidentifications, risk.max, risk.records) == (0.0, 0.0, 0)
    assert risk.sampling_fraction == 0.05
