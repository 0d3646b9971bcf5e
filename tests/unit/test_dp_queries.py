"""Tests of privcore.dp.queries (SPEC §10): true answers and sensitivities derived from the
query and the neighbouring relation, noisy answers (default mechanisms, the exact
``to_dict`` contract) and the coverage of the 95 % intervals over 200 draws."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from privcore.dp import queries
from privcore.dp.queries import answer, clamped_sum, count, histogram, mean
from privcore.errors import ParameterError

COVERAGE_DRAWS = 200


@pytest.fixture
def table() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "age": [23, 35, 47, 52, 61, 38, 29, 44, 70, 19],
            "sex": ["F", "M", "F", "F", "M", "M", "F", "M", "F", "F"],
            "city": ["A", "A", "B", "B", "A", "C", "C", "A", "B", "A"],
            "score": [-7.5, 2.0, 3.5, -1.0, 0.5, 9.0, -2.5, 1.0, np.nan, 4.0],
        }
    )


# --------------------------------------------------------------------------- true answers


def test_count_and_its_sensitivity(table):
    query = count(table, {"sex": "F"})
    assert (query.true_answer, query.sensitivity_l1, query.sensitivity_l2) == (6, 1.0, 1.0)
    assert query.kind == "int"
    assert count(table).true_answer == 10
    assert count(table, {"sex": "F", "city": ["A", "C"]}).true_answer == 3
    # a value typed as text matches a numeric column
    assert count(table, {"age": "52"}).true_answer == 1
    assert count(table, {"sex": "F"}, relation="replace").sensitivity_l1 == 1.0


def test_histogram_counts_every_combination_of_present_values(table):
    query = histogram(table, ["sex", "city"])
    # 2 sexes × 3 cities, the empty cell (M, B) included
    assert len(query.true_answer) == 6
    assert query.true_answer.loc[("F", "A")] == 2  # rows 0 and 9
    assert query.true_answer.loc[("M", "B")] == 0
    assert query.true_answer.sum() == 10
    assert (query.sensitivity_l1, query.sensitivity_l2) == (1.0, 1.0)
    replaced = histogram(table, ["sex", "city"], relation="replace")
    assert replaced.sensitivity_l1 == 2.0
    assert replaced.sensitivity_l2 == pytest.approx(math.sqrt(2))


def test_histogram_on_a_public_domain(table):
    query = histogram(table, ["city"], domain={"city": ["A", "B", "D"]})
    assert query.true_answer.to_dict() == {"A": 5, "B": 3, "D": 0}


def test_clamped_sum_sensitivity_by_hand(table):
    # [−5, 3]: add/remove max(|−5|, |3|) = 5; replace 3 − (−5) = 8
    query = clamped_sum(table, "score", -5, 3)
    assert (query.sensitivity_l1, query.sensitivity_l2) == (5.0, 5.0)
    assert clamped_sum(table, "score", -5, 3, relation="replace").sensitivity_l1 == 8.0
    # clamped: −5, 2, 3, −1, 0.5, 3, −2.5, 1, (missing → −5), 3 = −1.0
    assert query.true_answer == pytest.approx(-1.0)
    assert query.kind == "real"
    ages = clamped_sum(table, "age", 0, 50)
    assert ages.kind == "int"
    assert ages.true_answer == 23 + 35 + 47 + 50 + 50 + 38 + 29 + 44 + 50 + 19


def test_mean_is_two_queries(table):
    query = mean(table, "age", 0, 100)
    assert query.true_answer == pytest.approx(np.mean(table["age"]))
    total, rows = query.parts
    assert (total.name, total.sensitivity_l1) == ("sum", 100.0)
    assert (rows.name, rows.true_answer) == ("count", 10)


# --------------------------------------------------------------------------- noisy answers


def test_to_dict_has_exactly_the_contract_keys(table):
    result = answer(count(table, {"sex": "F"}), epsilon=1.0, draws=5, seed=1)
    record = result.to_dict()
    assert list(record) == [
        "answer",
        "answers",
        "scale",
        "sensitivity",
        "epsilon",
        "delta",
        "interval",
        "mechanism",
    ]
    assert record["answer"] == record["answers"][0]
    assert len(record["answers"]) == 5
    assert (record["scale"], record["sensitivity"], record["epsilon"]) == (1.0, 1.0, 1.0)
    assert record["delta"] == 0.0


def test_counts_default_to_the_geometric_mechanism(table):
    result = answer(count(table), epsilon=0.5, seed=2)
    assert result.mechanism == "geometric"
    assert isinstance(result.answer, int)
    assert result.scale == 2.0
    real = answer(clamped_sum(table, "score", -5, 3), epsilon=0.5, seed=2)
    assert real.mechanism == "laplace"
    assert real.scale == 10.0  # Δ/ε = 5/0.5


def test_gaussian_uses_l2_sensitivity_and_delta(table):
    replaced = histogram(table, ["sex"], relation="replace")
    result = answer(replaced, "gaussian", epsilon=1.0, delta=1e-6, seed=3)
    assert result.sensitivity == pytest.approx(math.sqrt(2))
    assert result.delta == 1e-6
    from privcore.dp.mechanisms import analytic_gaussian_sigma

    assert result.scale == pytest.approx(analytic_gaussian_sigma(math.sqrt(2), 1.0, 1e-6))


def test_histogram_answer_is_one_value_per_cell(table):
    result = answer(histogram(table, ["sex", "city"]), epsilon=1.0, draws=3, seed=4)
    assert result.answers.shape == (3, 6)
    record = result.to_dict()
    assert record["answer"][0]["cell"] == {"sex": "F", "city": "A"}
    assert len(record["interval"]) == 6


def test_mean_spends_half_the_budget_on_each_part(table):
    result = answer(mean(table, "age", 0, 100), epsilon=1.0, seed=5)
    # each half at ε/2: sum Δ = 100 → scale 200; count Δ = 1 → scale 2
    assert result.scale == {"sum": 200.0, "count": 2.0}
    assert result.mechanism == {"sum": "geometric", "count": "geometric"}
    assert 0 <= result.answer <= 100
    assert result.interval[0] <= result.answer <= result.interval[1]


def test_same_seed_same_answers(table):
    query = clamped_sum(table, "score", -5, 3)
    first = answer(query, epsilon=1.0, draws=4, seed=7).answers
    assert np.array_equal(first, answer(query, epsilon=1.0, draws=4, seed=7).answers)


@pytest.mark.parametrize(
    ("mechanism", "delta"), [("laplace", None), ("geometric", None), ("gaussian", 1e-5)]
)
def test_intervals_cover_the_truth(table, mechanism, delta):
    query = count(table, {"sex": "F"})
    result = answer(query, mechanism, epsilon=0.5, delta=delta, draws=COVERAGE_DRAWS, seed=21)
    covered = (result.intervals[:, 0] <= 6) & (result.intervals[:, 1] >= 6)
    assert covered.mean() >= 0.90
    # the check has power: the half-width of ε = 2 (a quarter of the scale) is too narrow
    # for noise at ε = 0.5
    narrow = answer(query, mechanism, epsilon=2.0, delta=delta)
    half = (narrow.interval[1] - narrow.interval[0]) / 2
    assert (np.abs(result.answers - 6) <= half).mean() < 0.90


def test_sum_and_mean_intervals_cover_the_truth(table):
    total = clamped_sum(table, "score", -5, 3)
    result = answer(total, epsilon=1.0, draws=COVERAGE_DRAWS, seed=22)
    truth = total.true_answer
    assert ((result.intervals[:, 0] <= truth) & (truth <= result.intervals[:, 1])).mean() >= 0.9
    average = mean(table, "age", 0, 100)
    result = answer(average, epsilon=5.0, draws=COVERAGE_DRAWS, seed=23)
    truth = average.true_answer
    assert ((result.intervals[:, 0] <= truth) & (truth <= result.intervals[:, 1])).mean() >= 0.9


def test_histogram_intervals_cover_every_cell(table):
    query = histogram(table, ["sex", "city"])
    result = answer(query, epsilon=1.0, draws=COVERAGE_DRAWS, seed=24)
    truth = query.true_answer.to_numpy()
    covered = (result.intervals[..., 0] <= truth) & (truth <= result.intervals[..., 1])
    assert covered.mean(axis=0).min() >= 0.90


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("call", "code"),
    [
        (lambda t: count(t, {"nope": 1}), "dp.unknown_column"),
        (lambda t: count(t, relation="swap"), "dp.bad_relation"),
        (lambda t: histogram(t, []), "dp.no_columns"),
        (lambda t: clamped_sum(t, "score", 3, -5), "dp.bad_clamp"),
        (lambda t: clamped_sum(t, "sex", 0, 1), "dp.not_numeric"),
        (lambda t: answer(count(t), "fourier", epsilon=1.0), "dp.bad_mechanism"),
        (lambda t: answer(count(t), "gaussian", epsilon=1.0), "dp.bad_delta"),
        (lambda t: answer(count(t), "laplace", epsilon=1.0, delta=0.1), "dp.bad_delta"),
        (lambda t: answer(count(t), epsilon=0), "dp.bad_epsilon"),
        (lambda t: answer(count(t), epsilon=1.0, draws=0), "dp.bad_draws"),
        (
            lambda t: answer(clamped_sum(t, "score", -5, 3), "geometric", epsilon=1.0),
            "dp.not_integer",
        ),
    ],
)
def test_bad_input_raises_a_coded_error(table, call, code):
    with pytest.raises(ParameterError) as caught:
        call(table)
    assert caught.value.code == code


def test_huge_histograms_are_refused():
    frame = pd.DataFrame({"a": np.arange(2000), "b": np.arange(2000)})
    with pytest.raises(ParameterError) as caught:
        histogram(frame, ["a", "b"])
    assert caught.value.code == "dp.histogram_too_large"
    assert caught.value.params["cells"] == 4_000_000 > queries.MAX_HISTOGRAM_CELLS


@pytest.mark.parametrize("dtype", [object, "string[pyarrow]"])
def test_histogram_with_a_public_domain_counts_missing_and_skips_values_outside(dtype):
    values = pd.Series(["a", "b", None, "a", "c", None, None], dtype=dtype)
    query = histogram(pd.DataFrame({"x": values}), ["x"], domain={"x": ["b", "a", np.nan]})
    # b: 1, a: 2, missing: 3; "c" lies outside the public domain and is not counted
    assert query.true_answer.tolist() == [1, 2, 3]
