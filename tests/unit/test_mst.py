"""MST (privcore.dp.mst) and its tree-structured model (privcore.dp.tree_model): exact
marginals by belief propagation against a brute-force sum, a fit that recovers exact
counts, the budget spent step by step to the last ρ, and records that keep a strong
relation between two columns."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from privcore.dp.mst import mst
from privcore.dp.tree_model import Measurement, TreeModel, fit_tree
from privcore.dp.zcdp import rho_for
from privcore.errors import ParameterError

SIZES = {"a": 2, "b": 3, "c": 4, "d": 2}
EDGES = [("a", "b"), ("b", "c"), ("c", "d")]


def _random_model(seed: int) -> TreeModel:
    model = TreeModel(SIZES, EDGES, 1.0)
    rng = np.random.default_rng(seed)
    for edge in model.theta:
        model.theta[edge] = rng.normal(size=model.theta[edge].shape)
    return model


def test_belief_propagation_gives_the_marginals_of_the_whole_joint():
    model = _random_model(1)
    columns = list(SIZES)
    joint = np.zeros([SIZES[c] for c in columns])
    for cell in itertools.product(*(range(SIZES[c]) for c in columns)):
        value = dict(zip(columns, cell, strict=True))
        joint[cell] = np.exp(sum(t[value[a], value[b]] for (a, b), t in model.theta.items()))
    joint /= joint.sum()
    for a, b in EDGES:
        others = tuple(i for i, c in enumerate(columns) if c not in (a, b))
        assert np.allclose(model.marginal((a, b)), joint.sum(axis=others), atol=1e-12)
    assert np.allclose(model.marginal(("c",)), joint.sum(axis=(0, 1, 3)), atol=1e-12)


def _counts(codes, clique):
    shape = [SIZES[c] for c in clique]
    flat = np.ravel_multi_index([codes[c] for c in clique], shape)
    return np.bincount(flat, minlength=int(np.prod(shape))).astype(float)


def test_the_fit_recovers_exact_counts_of_a_tree():
    codes = _random_model(2).sample(50_000, np.random.default_rng(3))
    measurements = [Measurement((c,), _counts(codes, (c,)), 1.0) for c in SIZES]
    measurements += [Measurement(edge, _counts(codes, edge), 1.0) for edge in EDGES]
    fitted = fit_tree(SIZES, EDGES, measurements, iterations=400)
    assert fitted.total == pytest.approx(50_000)
    for edge in EDGES:  # within a few records of 50,000
        assert np.abs(fitted.total * fitted.marginal(edge).ravel() - _counts(codes, edge)).max() < 5


def _table(rows: int = 2_000, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    sex = rng.choice(["F", "M"], rows)
    return pd.DataFrame(
        {
            "sex": sex,
            "title": np.where(sex == "F", "Ms", "Mr"),  # follows sex exactly
            "city": rng.choice(["A", "B", "C"], rows),
            "band": rng.choice(["low", "mid", "high"], rows),
        }
    )


DOMAIN = {
    "sex": ["F", "M"],
    "title": ["Mr", "Ms"],
    "city": ["A", "B", "C"],
    "band": ["high", "low", "mid"],
}


def test_the_budget_is_spent_step_by_step_to_the_last_rho():
    result = mst(_table(), DOMAIN, 1.0, 1e-6, seed=0)
    steps = result.ledger.steps
    d = len(DOMAIN)
    assert len(steps) == d + 2 * (d - 1)  # one-way, selections, two-way
    assert sum(s.rho for s in steps) == pytest.approx(rho_for(1.0, 1e-6), rel=1e-12)
    assert result.ledger.remaining == pytest.approx(0.0, abs=1e-15)
    assert [s.label.split(" ")[0] for s in steps[: d + 1]] == ["one-way"] * d + ["selection"]
    assert result.to_dict()["budget"]["spent_rho"] == pytest.approx(result.ledger.rho)


def test_the_records_keep_what_the_tree_measured_and_only_public_values():
    table = _table()
    result = mst(table, DOMAIN, 20.0, 1e-6, seed=1)
    assert ("sex", "title") in result.edges or ("title", "sex") in result.edges
    records = result.records
    assert set(records.columns) == set(DOMAIN)
    assert len(records) == pytest.approx(len(table), rel=0.02)  # the noisy total
    for column, values in DOMAIN.items():
        assert set(records[column]) <= set(values)
    same = ((records["sex"] == "F") == (records["title"] == "Ms")).mean()
    assert same > 0.97  # the pair's relation kept
    again = mst(table, DOMAIN, 20.0, 1e-6, seed=1)
    pd.testing.assert_frame_equal(again.records, records)  # seeded


def test_a_value_outside_the_public_domain_and_one_column_are_refused():
    with pytest.raises(ParameterError) as outside:
        mst(_table(), {**DOMAIN, "city": ["A", "B"]}, 1.0, 1e-6, seed=0)
    assert outside.value.code == "dp.value_outside_domain"
    with pytest.raises(ParameterError) as alone:
        mst(_table(), {"sex": ["F", "M"]}, 1.0, 1e-6, seed=0)
    assert alone.value.code == "dp.mst_columns"
