"""The loss of perturbed and synthetic releases, against hand-computed values."""

import math

import pandas as pd
import pytest

from privcore.core.kinds import CONSUMERS, Consumer, ReleaseKind, plan, stand_in
from privcore.measure.kind_loss import distortion, kind_loss, marginal_distance, total_variation

ORIGINAL = pd.DataFrame({"x": [1, 2, 3, 4], "c": ["a", "a", "b", "b"]})
RELEASE = pd.DataFrame({"x": [2.0, 2.0, 3.0, 2.0], "c": ["a", "b", "b", "a"]})


def test_il1s_and_distortion_by_hand():
    out = distortion(ORIGINAL, RELEASE, ["x", "c"], ["x"])
    unit = 1 / math.sqrt(10 / 3)  # 1 / (√2 · S), S = √(5/3)
    assert out["il1s"] == pytest.approx((unit + 2 * unit) / 4)  # 0.410792
    assert out["il1s"] == pytest.approx(0.410792, abs=1e-6)
    # capped terms: 0.5477, 0, 0, min(1.0954, 1) = 1; categorical: 0, 1, 0, 1
    assert out["distortion"] == pytest.approx((unit + 1 + 2) / 8)
    numeric = out["numeric"]["x"]
    assert numeric["mean_absolute_deviation"] == pytest.approx(0.75)
    assert numeric["mean_relative_deviation"] == pytest.approx(0.375)
    assert numeric["variance_distortion"] == pytest.approx(abs(0.25 - 5 / 3) / (5 / 3))
    assert numeric["changed_share"] == pytest.approx(0.5)
    assert out["categorical"]["c"]["changed_share"] == pytest.approx(0.5)
    assert out["joint_tvd"] == pytest.approx(0.0)  # the swap kept the frequencies


def test_a_blanked_numeric_cell_counts_one_and_values_compare_as_values():
    original = pd.DataFrame({"x": [10, 20, 30], "c": [1, 2, 3]})
    release = pd.DataFrame({"x": ["10.0", "*", "30"], "c": ["1.0", "2", "4"]})
    out = distortion(original, release, ["x", "c"], ["x"])
    # x: 0, 1 (blanked), 0; c: 0, 0, 1 (3 → 4)
    assert out["distortion"] == pytest.approx(2 / 6)
    assert out["not_compared"] == 1
    assert out["il1s"] == pytest.approx(0.0)


def test_marginal_distance_ks_and_tvd():
    out = marginal_distance(ORIGINAL, RELEASE, ["x", "c"], ["x"])
    assert out["columns"]["x"] == {"distance": pytest.approx(0.25), "measure": "ks"}
    assert out["columns"]["c"]["distance"] == pytest.approx(0.0)
    assert out["marginal_distance"] == pytest.approx(0.125)


def test_total_variation_of_disjoint_and_partly_shared_tables():
    a = pd.DataFrame({"c": ["a", "a", "b", "c"]})
    b = pd.DataFrame({"c": ["a", "b", "b", "b", "d"]})
    # p: a .5 b .25 c .25; q: a .2 b .6 d .2 → ½(.3 + .35 + .25 + .2) = 0.55
    assert total_variation(a, b) == pytest.approx(0.55)
    assert total_variation(a, pd.DataFrame({"c": ["z"]})) == pytest.approx(1.0)


def test_kind_loss_headlines():
    assert kind_loss("generalized", ORIGINAL, RELEASE, ["x", "c"], ["x"]) == {}
    perturbed = kind_loss("perturbed", ORIGINAL, RELEASE, ["x", "c"], ["x"])
    assert perturbed["headline"] == "distortion"
    assert perturbed["marginals"]["marginal_distance"] == pytest.approx(0.125)
    synthetic = kind_loss(ReleaseKind.SYNTHETIC, ORIGINAL, RELEASE, ["x", "c"], ["x"])
    assert synthetic["headline"] == "marginal_distance"
    assert synthetic["marginal_distance"] == pytest.approx(0.125)


def test_every_consumer_has_a_plan_for_every_kind():
    for kind in ReleaseKind:
        chosen = plan(kind)
        for name, used in chosen.items():
            if used is None:
                assert CONSUMERS[name].why, name
            else:
                assert kind in CONSUMERS[used].applies_to, (name, kind, used)
    assert stand_in("gcp", "perturbed") == "distortion"
    assert stand_in("gcp", "generalized") == "gcp"
    with pytest.raises(ValueError, match="no plan"):
        Consumer("broken", frozenset({ReleaseKind.GENERALIZED}))
