"""The DP release made by MST or AIM (privcore.dp.synthesis, DpReleaseRequest.method):
binning by hand, DP bounds that land on the grid around the data, the release's ledger
adding up to its budget, the accountant charging (ε, δ) and refusing an over-budget run
before any noise, error bounds beside every released marginal, and public bounds."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from privcore.data import load, load_sample
from privcore.dp import synthesis
from privcore.dp.synthesis import Binning, bound_candidates, dp_bounds
from privcore.dp.zcdp import rho_for
from privcore.errors import InfeasibleError, ParameterError
from privcore.runs import Accountant, DpReleaseRequest, Inputs, cost_of, run


def test_a_binning_by_hand():
    binning = Binning("x", 0.0, 10.0, 5, "public")
    assert binning.labels() == ["[0, 2)", "[2, 4)", "[4, 6)", "[6, 8)", "[8, 10)"]
    codes = binning.codes(pd.Series([-1.0, 0.0, 3.9, 9.99, 10.0, 11.0, np.nan]))
    assert codes.tolist() == [0, 0, 1, 4, 4, 4, 0]


def test_narrow_bounds_get_as_many_digits_as_their_edges_need():
    # 1000 to 1001 in 10: 4 significant digits would write 1000 for the first six edges
    assert Binning("x", 1000.0, 1001.0, 10, "public").labels()[:2] == [
        "[1000, 1000.1)",
        "[1000.1, 1000.2)",
    ]
    labels = Binning("x", 1721.3, 1721.9, 10, "dp").labels()
    assert len(set(labels)) == 10 and labels[0] == "[1721.3, 1721.36)"
    assert Binning("x", 0.0, 10.0, 5, "public").labels()[0] == "[0, 2)"  # 4 digits suffice


def test_a_release_between_narrow_public_bounds_is_made(adult):
    request = DpReleaseRequest(
        qi=("age", "sex"),
        sa=("salary-class",),
        epsilon=1.0,
        method="mst",
        bounds=(("age", 1000, 1001),),
    )
    dp = run(request, Inputs(original=load(adult))).result.dp
    assert set(dp.records["age"]) <= set(Binning(**dp.binnings[0]).labels())


@pytest.mark.parametrize("method", ["marginals", "mst", "aim"])
def test_a_tiny_epsilon_draws_no_more_records_than_the_row_limit(adult, monkeypatch, method):
    # at ε = 10⁻⁶ the noisy total of 3,000 rows is in the hundreds of thousands or more
    monkeypatch.setenv("PRIVCORE_MAX_ROWS", "4000")
    request = DpReleaseRequest(qi=("sex", "race"), sa=("salary-class",), epsilon=1e-6,
                               method=method)  # fmt: skip
    dp = run(request, Inputs(original=load(adult))).result.dp
    assert 1 <= len(dp.records) <= 4000 and dp.total <= 4000
    if method != "marginals":
        assert dp.rho > 0  # a ρ of about 6.5e-14, not 0


def test_the_grid_is_fixed_and_increasing():
    grid = bound_candidates()
    assert grid.size == 2 * 641 + 1 and np.all(np.diff(grid) > 0)
    assert grid[641] == 0.0 and grid[642] == 1.0 and grid[643] == 2.0 ** (1 / 16)
    assert grid[-1] == 2.0**40


def test_dp_bounds_land_around_the_data_and_hug_it_when_ties_allow():
    values = np.random.default_rng(0).uniform(20, 80, 20_000)
    found = [dp_bounds(values, 1.0, np.random.default_rng(s)) for s in range(50)]
    # the median lands near 50 (on the grid, 4.4 % apart); the bounds are the median ∓ a
    # span: the narrowest span past the data among tied ones is preferred
    for lower, upper in found:
        assert -100 <= lower <= 22 and 78 <= upper <= 200
    # the base measure e^(−k) makes the narrowest tied span the likeliest
    assert np.median([lo for lo, _ in found]) >= 0 and np.median([hi for _, hi in found]) <= 110
    years = np.random.default_rng(1).uniform(1950, 2020, 20_000)
    lower, upper = dp_bounds(years, 1.0, np.random.default_rng(2))
    assert 1400 <= lower <= 1951 and 2019 <= upper <= 2600  # an offset far from 0


@pytest.fixture(scope="module")
def adult():
    frame = load_sample("adult")[0].frame.head(3_000).copy()
    return frame[["age", "sex", "race", "salary-class"]]


@pytest.mark.parametrize("method", ["mst", "aim"])
def test_a_release_by_a_synthesizer_spends_its_budget_step_by_step(adult, method):
    request = DpReleaseRequest(
        qi=("age", "sex", "race"), sa=("salary-class",), epsilon=2.0, method=method
    )
    outcome = run(request, Inputs(original=load(adult)))
    dp = outcome.result.dp
    assert dp.method == method and dp.delta == synthesis.DEFAULT_DELTA
    assert dp.rho == pytest.approx(rho_for(2.0, synthesis.DEFAULT_DELTA))
    assert math.fsum(step["rho"] for step in dp.ledger) == pytest.approx(dp.rho, rel=1e-9)
    assert dp.ledger[0]["label"] == "median of age"  # age has 70 values: binned under DP
    assert [b["column"] for b in dp.binnings] == ["age"] and dp.binnings[0]["source"] == "dp"
    assert set(dp.records["age"]) <= set(Binning(**dp.binnings[0]).labels())
    # a bound beside every released marginal, the SA's first
    assert [tuple(b["clique"]) for b in dp.bounds] == [
        ("salary-class",),
        ("age", "salary-class"),
        ("sex", "salary-class"),
        ("race", "salary-class"),
    ]
    for bound in dp.bounds:
        assert (bound["l1"] is None) == (bound["source"] == "none")
    summary = outcome.summary
    assert summary["method"] == method and summary["binnings"][0]["column"] == "age"
    assert summary["comparison"]["queries"] > 0  # compared on the binned table


def test_each_query_of_the_comparison_carries_its_marginals_bound(adult):
    request = DpReleaseRequest(qi=("sex", "race"), sa=("salary-class",), epsilon=1.0, method="mst")
    result = run(request, Inputs(original=load(adult))).result
    per_query, figures = result.comparison.per_query, result.comparison.summary["dp"]
    l1 = {frozenset(b["clique"]): b["l1"] for b in result.dp.bounds}
    for columns, bound in zip(per_query["columns"], per_query["dp_bound"], strict=True):
        assert bound == l1[frozenset(columns)]  # None where the marginal has no bound
    known = per_query["dp_bound"].notna().to_numpy()
    assert figures["bounded"] == int(known.sum()) > 0
    errors = per_query["dp_error"].to_numpy()[known]
    limits = per_query["dp_bound"].to_numpy(dtype=float)[known]
    assert figures["within_bound"] == pytest.approx(np.mean(errors <= limits))
    assert figures["within_bound"] == 1.0  # a 95 % bound of a whole marginal, per count
    marginals = DpReleaseRequest(qi=("sex", "race"), sa=("salary-class",), epsilon=1.0)
    plain = run(marginals, Inputs(original=load(adult))).result.comparison
    assert "dp_bound" not in plain.per_query and "bounded" not in plain.summary["dp"]


def test_public_bounds_are_used_as_given_and_spend_nothing(adult):
    request = DpReleaseRequest(
        qi=("age", "sex"),
        sa=("salary-class",),
        epsilon=1.0,
        method="mst",
        bounds=(("age", 15, 95),),
        bins=8,
    )
    dp = run(request, Inputs(original=load(adult))).result.dp
    assert dp.binnings == (
        {"column": "age", "lower": 15.0, "upper": 95.0, "bins": 8, "source": "public"},
    )
    assert not any("bound of" in step["label"] for step in dp.ledger)


def test_the_accountant_charges_epsilon_and_delta_and_refuses_before_any_noise(adult, monkeypatch):
    aim_release = DpReleaseRequest(
        qi=("sex",), sa=("salary-class",), epsilon=0.5, method="aim", delta=1e-8
    )
    assert cost_of(aim_release) == (0.5, 1e-8)
    assert cost_of(DpReleaseRequest(qi=("sex",), sa=("salary-class",), epsilon=0.5)) == (0.5, 0.0)
    drawn = []
    from privcore.dp import aim as aim_module

    real = aim_module.gaussian_zcdp
    monkeypatch.setattr(
        aim_module, "gaussian_zcdp", lambda *a, **k: drawn.append(1) or real(*a, **k)
    )
    budget = Accountant("census", epsilon=0.4, delta=1e-6)
    with pytest.raises(InfeasibleError) as refused:
        run(aim_release, Inputs(original=load(adult)), budget=budget)
    assert refused.value.code == "dp.budget_exceeded"
    assert drawn == [] and budget.spent == (0.0, 0.0)


def test_bad_methods_bins_and_bounds_are_refused_in_words(adult):
    with pytest.raises(ParameterError):
        DpReleaseRequest(qi=("sex",), sa=("salary-class",), method="gan")
    with pytest.raises(ParameterError):
        DpReleaseRequest(qi=("sex",), sa=("salary-class",), method="mst", bins=1)
    with pytest.raises(ParameterError) as raised:
        run(
            DpReleaseRequest(
                qi=("age",), sa=("salary-class",), method="mst", bounds=(("age", 50, 20),)
            ),
            Inputs(original=load(adult)),
        )
    assert raised.value.code == "dp.bad_bounds"


def test_a_release_compares_the_methods_asked_for_on_one_workload(adult):
    request = DpReleaseRequest(
        qi=("age", "sex"), sa=("salary-class",), epsilon=2.0, compare=("mst", "k_anon"), k=5
    )
    schema = load_sample("adult")[1]  # the hierarchies the k-anonymous release needs
    summary = run(request, Inputs(original=load(adult), schema=schema)).summary
    methods = summary["methods"]
    assert [m["method"] for m in methods["methods"]] == ["mst", "k_anon"]
    assert methods["columns"] == ["age", "sex", "salary-class"]
    assert all(m["tvd2"] is not None for m in methods["methods"])
    with pytest.raises(ParameterError) as raised:
        DpReleaseRequest(qi=("sex",), sa=("salary-class",), compare=("gan",))
    assert raised.value.code == "dp.bad_compare"


def test_a_binned_column_gets_a_hierarchy_of_its_intervals_for_the_k_anonymous_release(adult):
    binning = Binning("age", 0.0, 80.0, 4, "public")
    hierarchy = binning.hierarchy()
    assert hierarchy.height == 2  # interval → pair of intervals → *
    request = DpReleaseRequest(
        qi=("age", "sex"), sa=("salary-class",), epsilon=2.0, method="mst", k=5
    )  # the default optimal search, which needs a hierarchy of every QI
    outcome = run(request, Inputs(original=load(adult), schema=load_sample("adult")[1]))
    assert outcome.result.k_anon is not None and outcome.summary["k_anon"]["node"] is not None


def test_the_risk_of_a_release_without_a_chosen_column_is_refused_in_words(adult):
    from privcore.report.risk import assess_risk

    released = adult[["sex", "salary-class"]]  # DP synthetic records of two columns
    with pytest.raises(ParameterError) as raised:
        assess_risk(adult, released, ["age", "sex"], ["salary-class"])
    assert raised.value.code == "risk.release_columns"
    assert "age" in str(raised.value)
