"""DP synthetic data against the other methods on one workload
(privcore.report.method_comparison): the reading of generalized and perturbed releases by
hand, and every method measured or its reason given."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from privcore.data import Role, Schema, load_sample
from privcore.report.method_comparison import (
    DP_METHODS,
    OTHER_METHODS,
    compare_methods,
    uninformative_majority,
    workload_figures,
)

ORIGINAL = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": [0, 1, 1, 1]})


def test_the_same_table_is_at_distance_zero():
    found = workload_figures(ORIGINAL, ORIGINAL, ["a", "b"], ["a"], "b")
    assert found["tvd2"] == 0.0 and found["tvd3"] is None  # no set of 3 columns
    assert found["regression"]["accuracy"] == found["regression"]["baseline"] == 0.75


def test_a_suppressed_column_spreads_each_record_uniformly():
    released = ORIGINAL.assign(a="*")
    # each record counts ½ to x and ½ to y: p̂ = (.125, .375, .125, .375) against
    # p = (.25, .25, 0, .5) over (x,0), (x,1), (y,0), (y,1): ½·(4 × .125) = .25
    assert workload_figures(ORIGINAL, released, ["a", "b"], ["a"], "b")["tvd2"] == 0.25


def test_a_perturbed_number_counts_on_the_nearest_value():
    original = pd.DataFrame({"n": [1, 2, 5, 5], "s": ["p", "q", "p", "q"]})
    released = original.assign(n=[1.2, 2.4, 4.1, 9.0])  # → 1, 2, 5, 5
    assert workload_figures(original, released, ["n", "s"], ["n"], "s")["tvd2"] == 0.0


@pytest.fixture(scope="module")
def adult():
    dataset, schema = load_sample("adult")[:2]
    frame = dataset.frame.head(1_500)
    qi, sa = ["age", "sex", "race"], "salary-class"
    roles = {c: Role.INSENSITIVE for c in frame.columns}
    roles.update(dict.fromkeys(qi, Role.QUASI_IDENTIFIER))
    roles[sa] = Role.SENSITIVE
    hierarchies = {c: h for c, h in schema.hierarchies.items() if c in qi}
    return frame, qi, sa, Schema(roles, hierarchies)


def test_every_method_is_measured_or_says_why(adult):
    frame, qi, sa, schema = adult
    found = compare_methods(frame, qi, sa, schema, epsilon=2.0, k=5, max_suppression=0.0)
    assert [m.method for m in found.methods] == [*DP_METHODS, *OTHER_METHODS]
    assert found.binnings[0]["column"] == "age"  # the same intervals for every method
    for method in found.methods:
        if method.not_measured is not None:
            assert method.tvd2 is None and method.not_measured["error"]  # never a blank
            assert method.not_measured["message"]
            continue
        assert 0.0 <= method.tvd2 <= 1.0 and 0.0 <= method.tvd3 <= 1.0
        assert 0.0 <= method.regression["accuracy"] <= 1.0
        rebuilt = method.reconstruction
        assert ("exact" in rebuilt) != ("not_measured" in rebuilt)
    kinds = {m.method: m.kind for m in found.methods}
    assert kinds["aim"] == "dp_synthetic" and kinds["k_anon"] == "generalized"
    assert kinds["pram"] == "perturbed" and kinds["condensation"] == "synthetic"
    # MDAV with no suppression allowed cannot release this table: its reason is kept
    mdav = next(m for m in found.methods if m.method == "mdav")
    assert "suppress" in mdav.not_measured["message"]
    # the reconstruction lab on the published marginals: not on generalized labels
    by_method = {m.method: m.reconstruction for m in found.methods if m.reconstruction}
    assert by_method["k_anon"]["not_measured"]["error"] == "compare.generalized_cells"
    assert "generalized" in by_method["k_anon"]["not_measured"]["message"]
    assert 0.0 <= by_method["aim"]["exact"] <= 1.0 and 0.0 <= by_method["pram"]["exact"] <= 1.0


def test_the_risks_of_each_method_on_held_out_records(adult):
    frame, qi, sa, schema = adult
    found = compare_methods(
        frame, qi, sa, schema, methods=("mst", "k_anon"), epsilon=2.0, gdpr=True
    )
    for method in found.methods:
        risks = method.risks
        assert risks is not None and ("singling_out" in risks or "not_measured" in risks)
    assert np.isfinite(found.methods[0].seconds)


def test_perturbed_numbers_fall_in_their_interval_or_on_the_nearest_value_all_at_once():
    original = pd.DataFrame({"n": [1, 2, 5, 5, 8], "s": list("pqpqp")})
    # 3.5 is as near 2 as 5: the lower one; 100 and 7 are nearest 8
    released = original.assign(n=[0.2, 3.5, 4.9, 100.0, 7.0])
    found = workload_figures(original, released, ["n", "s"], ["n"], "s")
    # read as (1,p) (2,q) (5,p) (8,q) (8,p) against (1,p) (2,q) (5,p) (5,q) (8,p): one
    # record of five moved
    assert found["tvd2"] == pytest.approx(0.2)


def test_a_regression_that_tells_nothing_apart_is_named():
    # the model trained on the original at 75.1 % against a majority guess of 75.1 %
    flat = {"accuracy": 0.70, "baseline": 0.7511, "majority": 0.7511}
    useful = {"accuracy": 0.70, "baseline": 0.82, "majority": 0.7511}
    assert uninformative_majority([flat, None, flat]) == 0.7511
    assert uninformative_majority([{**flat, "baseline": 0.755}]) == 0.7511  # within ½ point
    assert uninformative_majority([useful, None]) is None
    assert uninformative_majority([None, None]) is None  # nothing measured: nothing to say
