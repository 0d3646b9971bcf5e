"""AIM (privcore.dp.aim), its junction-tree model (privcore.dp.graphical_model) and the
error bounds of released marginals (privcore.dp.uncertainty): exact inference against a
brute-force joint, the structure by hand, the budget spent step by step to the last ρ
with every draw after its step, bounds that hold, and the audit of the measurement
steps' noise."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from privcore.dp import aim as aim_module
from privcore.dp.aim import aim, workload_candidates
from privcore.dp.graphical_model import (
    JunctionTreeModel,
    fit_graphical,
    junction_cliques,
    model_megabytes,
)
from privcore.dp.tree_model import Measurement
from privcore.dp.uncertainty import gaussian_l1_bound, marginal_bounds
from privcore.dp.zcdp import rho_for
from privcore.errors import ParameterError

SIZES = {"a": 2, "b": 3, "c": 2, "d": 3}


def test_a_cycle_is_triangulated_into_two_triangles():
    # a–b–c–d–a: eliminating a (fill 1: b–d) leaves {a, b, d} and then {b, c, d}
    cliques = junction_cliques(list(SIZES), [("a", "b"), ("b", "c"), ("c", "d"), ("d", "a")])
    assert sorted(cliques) == [("a", "b", "d"), ("b", "c", "d")]
    # 2·3·3 + 3·2·3 = 36 cells of 8 bytes
    assert model_megabytes(SIZES, cliques) == pytest.approx(36 * 8 / 2**20)


def test_the_workload_candidates_and_their_weights_by_hand():
    weights = workload_candidates([("a", "b", "c"), ("b", "c", "d")])
    # ("b", "c") meets both sets in 2 columns: 2 + 2; ("a",) only the first, once
    assert weights[("b", "c")] == 4.0
    assert weights[("a",)] == 1.0
    assert weights[("a", "b", "c")] == 3.0 + 2.0
    assert len(weights) == 7 + 7 - 3  # the two sets' subsets, {b}, {c}, {b, c} shared


def _random_model(seed: int) -> JunctionTreeModel:
    cliques = [("a", "b", "d"), ("b", "c", "d")]
    model = JunctionTreeModel(SIZES, cliques, 1.0)
    rng = np.random.default_rng(seed)
    model.theta = [rng.normal(size=t.shape) for t in model.theta]
    return model


def _joint(model: JunctionTreeModel) -> np.ndarray:
    columns = list(SIZES)
    joint = np.zeros([SIZES[c] for c in columns])
    for cell in itertools.product(*(range(SIZES[c]) for c in columns)):
        value = dict(zip(columns, cell, strict=True))
        joint[cell] = np.exp(
            sum(
                t[tuple(value[c] for c in clique)]
                for t, clique in zip(model.theta, model.cliques, strict=True)
            )
        )
    return joint / joint.sum()


def _brute(joint: np.ndarray, clique) -> np.ndarray:
    columns = list(SIZES)
    others = tuple(i for i, c in enumerate(columns) if c not in clique)
    table = joint.sum(axis=others)
    kept = [c for c in columns if c in clique]
    return np.transpose(table, [kept.index(c) for c in clique])


def test_sum_product_and_joined_marginals_match_the_whole_joint():
    model = _random_model(1)
    joint = _joint(model)
    for clique in [("a", "b", "d"), ("d", "c"), ("a",), ("a", "c"), ("c", "a", "d")]:
        assert np.allclose(model.marginal(clique), _brute(joint, clique), atol=1e-12), clique


def test_records_are_drawn_from_the_model():
    model = _random_model(2)
    codes = model.sample(200_000, np.random.default_rng(0))
    joint = _joint(model)
    drawn = np.zeros_like(joint)
    np.add.at(drawn, tuple(codes[c] for c in SIZES), 1)
    assert np.abs(drawn / 200_000 - joint).max() < 0.006


def _counts(codes, clique):
    shape = [SIZES[c] for c in clique]
    flat = np.ravel_multi_index([codes[c] for c in clique], shape)
    return np.bincount(flat, minlength=int(np.prod(shape))).astype(float)


def test_the_fit_recovers_exact_counts_and_a_warm_start_keeps_the_distribution():
    codes = _random_model(3).sample(40_000, np.random.default_rng(4))
    measured = [("a", "b", "d"), ("b", "c", "d")]
    measurements = [Measurement(c, _counts(codes, c), 1.0) for c in measured]
    fitted = fit_graphical(SIZES, measurements, iterations=500)
    for clique in measured:
        assert (
            np.abs(fitted.total * fitted.marginal(clique).ravel() - _counts(codes, clique)).max()
            < 5
        )
    warm = JunctionTreeModel(SIZES, [("a", "b", "c", "d")], fitted.total)
    warm.warm_start(fitted)
    assert np.allclose(warm.marginal(("a", "c")), fitted.marginal(("a", "c")), atol=1e-12)


def _table(seed: int = 0, rows: int = 3_000) -> tuple[pd.DataFrame, dict]:
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, rows)
    b = (a + (rng.random(rows) < 0.2)) % 3  # b follows a
    c = rng.integers(0, 2, rows)
    d = np.where(rng.random(rows) < 0.9, c, 1 - c)  # d follows c
    frame = pd.DataFrame({"a": a, "b": b, "c": c, "d": d}).astype(str)
    return frame, {col: sorted(frame[col].unique()) for col in frame.columns}


def test_the_budget_is_spent_step_by_step_to_the_last_rho_each_step_before_its_draw(monkeypatch):
    frame, domain = _table()
    steps_at_draw = []
    real = aim_module.gaussian_zcdp

    def spy(value, l2, rho, **kwargs):
        steps_at_draw.append((len(ledger_seen[-1].steps), rho))
        return real(value, l2, rho, **kwargs)

    ledger_seen = []
    real_ledger = aim_module.ZcdpLedger

    class Watched(real_ledger):
        def __init__(self, rho):
            super().__init__(rho)
            ledger_seen.append(self)

    monkeypatch.setattr(aim_module, "gaussian_zcdp", spy)
    monkeypatch.setattr(aim_module, "ZcdpLedger", Watched)
    made = aim(frame, domain, 1.0, 1e-6, seed=0, rows=500, round_iterations=50)
    ledger = made.ledger
    assert ledger.rho == pytest.approx(rho_for(1.0, 1e-6))
    assert math.fsum(s.rho for s in ledger.steps) == pytest.approx(ledger.rho, rel=1e-12)
    # 4 one-way marginals, then a selection and a measurement per round
    assert len(ledger.steps) == 4 + 2 * len(made.rounds)
    assert [s.label for s in ledger.steps[4:6]] == [
        "round 1: selection",
        f"round 1: marginal of {' × '.join(made.rounds[0].chosen)}",
    ]
    # every draw comes after the step that pays for it, with that step's ρ
    for count, rho in steps_at_draw:
        assert ledger.steps[count - 1].rho == pytest.approx(rho)
    assert len(steps_at_draw) == len(made.measurements)
    assert set(made.records.columns) == set(domain) and len(made.records) == 500


def test_the_records_keep_the_relations_the_workload_asks_for():
    frame, domain = _table(1, 5_000)
    made = aim(frame, domain, 4.0, 1e-6, seed=1, round_iterations=100)
    records = made.records
    assert abs(len(records) - 5_000) < 100
    agree = (records["c"] == records["d"]).mean()
    assert agree == pytest.approx((frame["c"] == frame["d"]).mean(), abs=0.05)
    assert set(records["a"]) <= set(domain["a"])


def test_bad_inputs_are_refused_before_any_noise():
    frame, domain = _table()
    with pytest.raises(ParameterError) as raised:
        aim(frame, {"a": domain["a"]}, 1.0, 1e-6)
    assert raised.value.code == "dp.aim_columns"
    with pytest.raises(ParameterError) as raised:
        aim(frame, domain, 1.0, 1e-6, workload=[("a", "zz")])
    assert raised.value.code == "dp.unknown_column"
    with pytest.raises(ParameterError) as raised:
        aim(frame, {**domain, "a": ["0", "1"]}, 1.0, 1e-6)
    assert raised.value.code == "dp.value_outside_domain"


def test_the_l1_bound_of_gaussian_noise_by_hand_and_by_draws():
    # 4 cells of τ = 2 at β = 0.05: 4·2·√(2/π) + 2·√(8·ln 20)
    expected = 8 * math.sqrt(2 / math.pi) + 2 * math.sqrt(8 * math.log(20))
    assert gaussian_l1_bound(2.0, 4, 0.05) == pytest.approx(expected)
    draws = np.abs(np.random.default_rng(0).normal(0, 2.0, size=(20_000, 4))).sum(axis=1)
    assert np.mean(draws > expected) < 0.05


def test_the_bounds_of_aim_and_mst_hold_on_the_data():
    from privcore.dp.mst import mst

    frame, domain = _table(2, 4_000)
    pairs = list(itertools.combinations(domain, 2))
    for made in (
        aim(frame, domain, 1.0, 1e-6, seed=2, round_iterations=100),
        mst(frame, domain, 1.0, 1e-6, seed=2),
    ):
        bounds = marginal_bounds(made, [*pairs, ("a", "b", "c")])
        assert {b.source for b in bounds} <= {"measured", "selection", "none"}
        for bound in bounds:
            if bound.l1 is None:
                assert bound.reason and bound.tvd is None
                continue
            index = pd.MultiIndex.from_product([domain[c] for c in bound.clique])
            truth = frame.groupby(list(bound.clique)).size().reindex(index, fill_value=0)
            released = made.model.total * np.asarray(made.model.marginal(bound.clique)).ravel()
            assert np.abs(truth.to_numpy() - released).sum() <= bound.l1
            assert bound.tvd == pytest.approx(min(1.0, bound.l1 / (2 * made.model.total)))


@pytest.mark.parametrize("broken", [False, True])
def test_the_audit_of_the_gaussian_measurement_step(broken):
    """A count measured as MST and AIM measure (ρ of an (ε, δ) = (1, 10⁻⁶) budget, L2
    sensitivity 1) passes the audit of its claim; one that spends 16 times the ρ
    (a quarter of the noise) is caught."""
    from privcore.dp.audit import audit_outputs
    from privcore.dp.mechanisms import gaussian_zcdp

    rho = rho_for(1.0, 1e-6) * (16.0 if broken else 1.0)
    rng = np.random.default_rng(5)
    on_d = np.asarray(gaussian_zcdp(np.zeros(50_000), 1.0, rho, rng=rng))
    on_d_prime = np.asarray(gaussian_zcdp(np.ones(50_000), 1.0, rho, rng=rng))
    found = audit_outputs(on_d, on_d_prime, 1.0, delta=1e-6, seed=5)
    assert (found.verdict == "violation") is broken


@pytest.mark.parametrize("broken", [False, True])
def test_the_audit_of_the_marginal_release_laplace_step(broken):
    """A cell of a marginal as the marginal release measures it (discrete Laplace at its
    share ε/m = 0.5 of ε = 1 over two marginals) passes the audit of ε = 0.5; the same
    noise claimed at ε = 0.05 is caught."""
    from privcore.dp.audit import audit_outputs
    from privcore.dp.mechanisms import DiscreteLaplace

    noise = DiscreteLaplace(1, 0.5)
    rng = np.random.default_rng(6)
    on_d = np.asarray(noise.release(np.zeros(50_000), rng=rng))
    on_d_prime = np.asarray(noise.release(np.ones(50_000), rng=rng))
    found = audit_outputs(on_d, on_d_prime, 0.05 if broken else 0.5, seed=6)
    assert (found.verdict == "violation") is broken


def test_rounded_draws_share_each_group_out_by_its_conditional():
    from privcore.dp.tree_model import rounded_draw

    table = np.array([[0.5, 0.5], [0.2, 0.8], [0.0, 0.0]])
    given = np.array([1, 0, 1, 1, 0, 1, 0, 1])  # group 0: 3 rows, group 1: 5 rows
    drawn = rounded_draw(table, given, np.random.default_rng(0))
    # group 1: 5 × (0.2, 0.8) = (1, 4) exactly; group 0: 3 × (½, ½) = 1.5 each, one of
    # them rounded up
    assert np.bincount(drawn[given == 1], minlength=2).tolist() == [1, 4]
    assert sorted(np.bincount(drawn[given == 0], minlength=2).tolist()) == [1, 2]
    # an empty row of the table is uniform; every row gets a cell
    many = rounded_draw(table, np.full(10, 2), np.random.default_rng(1))
    assert np.bincount(many, minlength=2).tolist() == [5, 5]
