"""Singling out, linkability and inference (privcore.attacks.gdpr_risks; SPEC §11).

Hand-computed values: the Wilson rate and the risk formula at z = 2 (confidence
erf(√2) = 95.45 %, so that z² = 4 and the arithmetic is exact), the control-size
correction where the counts grow linearly, the closed form of the singling-out integral
against numerical integration, and small tables whose attacks are traced by hand
(generalized cells included). Then the behaviour: a release equal to the training set
gives a high risk, a release drawn independently of it a risk whose interval covers 0;
the seed decides everything; bad inputs raise errors with codes.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate

from privcore.anonymize import anonymize
from privcore.attacks.gdpr_risks import (
    OP_GE,
    OP_IN,
    OP_LE,
    OP_NOT_IN,
    Rate,
    gdpr_risks,
    inference,
    linkability,
    residual_rate,
    singling_out,
    success_rate,
)
from privcore.attacks.gdpr_risks.columns import _prepare
from privcore.attacks.gdpr_risks.neighbours import _Neighbours
from privcore.attacks.gdpr_risks.predicates import _match_counts, _Queries
from privcore.attacks.gdpr_risks.singling_out_risk import _random_queries
from privcore.attacks.gdpr_risks.statistics import _result, _singling_out_integral, _size_correction
from privcore.data.samples import load_sample
from privcore.errors import PrivcoreError
from privcore.models import KAnonymity

Z2 = math.erf(2 / math.sqrt(2))  # the confidence level whose z is exactly 2


def people(n: int, seed: int) -> pd.DataFrame:
    """A synthetic population: three categorical columns, an integer age, two continuous
    columns (nearly every value distinct) and a disease that depends on the first column."""
    rng = np.random.default_rng(seed)
    a = rng.choice(["p", "q", "r", "s"], n)
    disease = np.where(
        rng.random(n) < 0.6,
        np.select([a == "p", a == "q"], ["flu", "cold"], "asthma"),
        rng.choice(["flu", "cold", "asthma", "hiv", "ulcer"], n),
    )
    return pd.DataFrame(
        {
            "a": a,
            "b": rng.choice([f"b{i}" for i in range(6)], n),
            "c": rng.choice([f"c{i}" for i in range(10)], n),
            "age": rng.integers(18, 91, n),
            "income": np.round(rng.lognormal(10, 0.5, n), 2),
            "score": rng.normal(0, 1, n),
            "disease": disease,
        }
    )


@pytest.fixture(scope="module")
def tables() -> dict[str, pd.DataFrame]:
    everyone = people(4500, seed=7)
    train = everyone.iloc[:1500]
    control = everyone.iloc[1500:3000]
    independent = everyone.iloc[3000:].reset_index(drop=True)
    return {"train": train, "control": control, "independent": independent}


AUX = (["a", "age", "income"], ["b", "c", "score"])
KNOWN = ["a", "b", "c", "age", "income"]


# --------------------------------------------------------------------------- formulas


def test_wilson_rate_by_hand():
    # z = 2: centre (s + 2)/(n + 4); error 2/(n + 4)·√(s(n − s)/n + 1).
    rate = success_rate(24, 96, Z2)
    assert rate.value == pytest.approx(26 / 100, abs=1e-12)  # 0.26
    assert rate.error == pytest.approx(0.02 * math.sqrt(24 * 72 / 96 + 1), abs=1e-12)
    assert rate.error == pytest.approx(0.0871779789, abs=1e-9)  # 0.02·√19
    # At 95 %: z = 1.959964, z² = 3.841459; 10 of 100 → (10 + 1.920729)/103.841459.
    assert success_rate(10, 100).value == pytest.approx(0.1147974, abs=1e-6)
    # error 1.959964/103.841459 · √(10·90/100 + 0.960365) = 0.0188746 · 3.156004
    assert success_rate(10, 100).error == pytest.approx(0.0595683, abs=1e-6)


def test_risk_formula_by_hand():
    attack = success_rate(24, 96, Z2)  # 0.26 ± 0.02·√19
    control = success_rate(6, 96, Z2)  # 8/100 = 0.08 ± 0.02·√6.625
    assert control.value == pytest.approx(0.08, abs=1e-12)
    assert control.error == pytest.approx(0.0514781507, abs=1e-9)
    risk = residual_rate(attack, control)
    # (0.26 − 0.08)/(1 − 0.08) = 0.18/0.92
    assert risk.value == pytest.approx(0.1956521739, abs=1e-9)
    # √((0.0871780/0.92)² + (0.0514782·(0.26 − 1)/0.92²)²) = √(0.0947587² + 0.0450066²)
    assert risk.error == pytest.approx(0.1049044, abs=1e-6)
    result = _result(
        "test",
        n_attacks=96,
        n_success=24,
        n_control=6,
        n_baseline=2,
        n_baseline_attacks=96,
        confidence=Z2,
        parameters={},
    )
    assert result.risk == pytest.approx(0.1956521739, abs=1e-9)
    assert result.ci == pytest.approx((0.1956522 - 0.1049044, 0.1956522 + 0.1049044), abs=1e-6)
    assert result.attack_rate == pytest.approx(0.26)
    assert result.control_rate == pytest.approx(0.08)
    # baseline: 2 of 96 → 4/100
    assert result.baseline == pytest.approx(0.04)
    assert result.warnings == ()


def test_risk_is_clipped_to_zero_and_warns_when_no_better_than_baseline():
    result = _result(
        "test",
        n_attacks=100,
        n_success=15,
        n_control=20,
        n_baseline=16,
        n_baseline_attacks=100,
        confidence=0.95,
        parameters={},
    )
    assert result.risk == 0.0
    assert result.ci[0] == 0.0 and 0.0 < result.ci[1] < 1.0
    assert "attack_not_better_than_baseline" in result.warnings


@settings(max_examples=200, deadline=None)
@given(
    n=st.integers(1, 2000),
    shares=st.tuples(*[st.floats(0, 1)] * 3),
    confidence=st.floats(0.5, 0.999),
)
def test_risks_and_intervals_lie_in_the_unit_interval(n, shares, confidence):
    s, c, b = (round(x * n) for x in shares)
    result = _result(
        "test",
        n_attacks=n,
        n_success=s,
        n_control=c,
        n_baseline=b,
        n_baseline_attacks=n,
        confidence=confidence,
        parameters={},
    )
    assert 0.0 <= result.ci[0] <= result.risk <= result.ci[1] <= 1.0
    assert 0.0 <= result.baseline_ci[0] <= result.baseline <= result.baseline_ci[1] <= 1.0
    assert 0.0 < result.attack_rate < 1.0 and 0.0 < result.control_rate < 1.0


def test_rate_bounds_clip_both_ends():
    assert Rate(1.2, 0.5).bounded() == (1.0, (0.7, 1.0))
    assert Rate(-0.1, 0.05).bounded() == (0.0, (0.0, 0.0))


def test_singling_out_integral_closed_form():
    for n, w in [(10, 0.3), (1000, 1e-3), (5000, 2e-4), (3, 1.0)]:
        numeric, _ = integrate.quad(lambda x, n=n: n * x * (1 - x) ** (n - 1), 0, w, epsabs=1e-14)
        assert float(_singling_out_integral(n, w)) == pytest.approx(numeric, rel=1e-9)
    # Tiny n·w: ≈ n·w²/2 (no cancellation)
    assert float(_singling_out_integral(2000, 1e-9)) == pytest.approx(2000 * 1e-18 / 2, rel=1e-6)
    # w = 1: every predicate matches everyone: 1/(n + 1)
    assert float(_singling_out_integral(9, 1.0)) == pytest.approx(0.1)


def test_size_correction_where_the_counts_grow_linearly():
    # 5 predicates match one control row each, 5 match none: the expected count in a
    # sample of n of N rows is 5·n/N — linear, so f(n) ∝ n (I ≈ n·w²/2 as w → 0) and
    # the factor is n_train/n_control = 8000/2000 = 4. (Anonymeter's fit gives
    # (2000 + 1)/(8000 + 1) ≈ 0.25 here: see tests/crosscheck/test_anonymeter_oracle.py.)
    matches = np.array([1] * 5 + [0] * 5)
    assert _size_correction(matches, 2000, 8000) == pytest.approx(4.0, rel=1e-3)
    assert _size_correction(matches, 2000, 500) == pytest.approx(0.25, rel=1e-3)
    # The same size: no change
    assert _size_correction(np.array([1, 2, 3, 0]), 2000, 2000) == pytest.approx(1.0)


# --------------------------------------------------------------------------- released cells


def cells_example():
    train = pd.DataFrame({"age": [23, 37, 45, 61], "disease": ["flu", "cold", "flu", "hiv"]})
    control = pd.DataFrame(
        {"age": [25, 33, 48, 80], "disease": ["cold", "cold", "flu", "hiv"]}, index=[10, 11, 12, 13]
    )
    release = pd.DataFrame(
        {
            "age": ["[20-30)", "[30-40)", "[40-50)", "[60-70)"],
            "disease": ["flu", "cold", "*", "hiv"],
        }
    )
    return train, control, release


def test_generalized_cells_as_intervals_and_sets():
    train, control, release = cells_example()
    tables = _prepare(train, control, release, ["age", "disease"], None)
    age, disease = tables["age"], tables["disease"]
    assert age.numeric and not disease.numeric
    # Each range is the hull of the original ages it contains (23, 25 | 37, 33 | 45, 48 | 61).
    by_cell = {release["age"][r]: (age.low[c], age.high[c]) for r, c in enumerate(age.cells)}
    assert by_cell == {
        "[20-30)": (23, 25),
        "[30-40)": (33, 37),
        "[40-50)": (45, 48),
        "[60-70)": (61, 61),
    }
    # Distance: 0 inside, else the gap to the interval over the range (23 … 80: 57):
    # 23 → 0, 33 − 23, 45 − 23, 61 − 23; 80 → 80 − 25, 80 − 37, 80 − 48, 80 − 61.
    values = np.array([age.train[0], age.control[3]])  # 23, 80
    np.testing.assert_allclose(
        age.distance(values, age.cells[:4]),
        [[0, 10 / 57, 22 / 57, 38 / 57], [55 / 57, 43 / 57, 32 / 57, 19 / 57]],
    )
    # "*" contains every disease; distance 0 to all, and never a right guess.
    star = disease.cells[2]
    flu = disease.train[0]
    assert disease.distance(np.array([flu]), np.array([star])).tolist() == [[0.0]]
    assert not disease.correct(np.array([star]), np.array([flu]), False)[0]
    assert disease.correct(disease.cells[[0]], np.array([flu]), False)[0]


def test_predicates_match_records_by_value_and_released_rows_by_overlap():
    train, control, release = cells_example()
    tables = _prepare(train, control, release, ["age", "disease"], None)
    age_cells = tables["age"].cells
    released = tables.codes("release", ["age", "disease"])
    trained = tables.codes("train", ["age", "disease"])

    def one(op, row):
        return _Queries(np.array([[0]]), np.array([[op]], np.int8), np.array([[age_cells[row]]]))

    # "age ≤ [30-40)" = age ≤ 37: the records 23, 37; the released rows [20-30), [30-40).
    assert _match_counts(tables, one(OP_LE, 1), trained, released=False).tolist() == [2]
    assert _match_counts(tables, one(OP_LE, 1), released, released=True).tolist() == [2]
    # "age ≥ [40-50)" = age ≥ 45: records 45, 61; released [40-50), [60-70).
    assert _match_counts(tables, one(OP_GE, 2), trained, released=False).tolist() == [2]
    # "age ∉ [60-70)": every record but 61; every released row but that one.
    assert _match_counts(tables, one(OP_NOT_IN, 3), trained, released=False).tolist() == [3]
    assert _match_counts(tables, one(OP_NOT_IN, 3), released, released=True).tolist() == [3]
    # Two columns: age ∈ [20-30) and disease ∈ "*": the record 23; released row 0 only.
    star = tables["disease"].cells[2]
    both = _Queries(
        np.array([[0, 1]]), np.array([[OP_IN, OP_IN]], np.int8), np.array([[age_cells[0], star]])
    )
    assert _match_counts(tables, both, trained, released=False).tolist() == [1]
    assert _match_counts(tables, both, released, released=True).tolist() == [1]
    # disease ∈ {flu} may hold for the released "*" row too: flu and "*" rows overlap.
    flu = _Queries(
        np.array([[1]]), np.array([[OP_IN]], np.int8), np.array([[tables["disease"].cells[0]]])
    )
    assert _match_counts(tables, flu, released, released=True).tolist() == [2]
    assert _match_counts(tables, flu, trained, released=False).tolist() == [2]


def test_inference_on_a_generalized_release_traced_by_hand():
    train, control, release = cells_example()
    result = inference(
        train, control, release, aux_columns=["age"], secret="disease", n_attacks=4, seed=3
    )
    # Training: 23 → [20-30) flu ✓, 37 → [30-40) cold ✓, 45 → [40-50) "*" ✗, 61 → hiv ✓.
    # Control: 25 → flu ✗ (cold), 33 → cold ✓, 48 → "*" ✗, 80 → nearest [60-70) hiv ✓.
    assert (result.n_success, result.n_control) == (3, 2)
    expected = residual_rate(success_rate(3, 4), success_rate(2, 4))
    assert result.risk == pytest.approx(max(expected.value, 0.0))
    assert result.n_attacks == 4 and result.n_baseline_attacks == 4
    assert 0 <= result.n_baseline <= 4


def test_numeric_secret_exact_and_within_five_percent():
    train = pd.DataFrame({"k": ["x", "y", "z"], "salary": [100.0, 200.0, 300.0]})
    control = pd.DataFrame({"k": ["x", "y", "z"], "salary": [104.0, 250.0, 300.0]}, index=[5, 6, 7])
    release = pd.DataFrame({"k": ["x", "y", "z"], "salary": [100.0, 200.0, "[290-310]"]})
    exact = inference(train, control, release, aux_columns=["k"], secret="salary", n_attacks=3)
    # Exact: 100 ✓, 200 ✓, [290-310] holds only 300 of the originals ✓ | control: 300 ✓.
    assert (exact.n_success, exact.n_control) == (3, 1)
    near = inference(
        train, control, release, aux_columns=["k"], secret="salary", n_attacks=3, regression=True
    )
    # |104 − 100| = 4 ≤ 5 ✓; |250 − 200| = 50 > 10 ✗; midpoint 300 ✓.
    assert (near.n_success, near.n_control) == (3, 2)


def test_comparisons_never_hold_for_a_missing_value():
    train = pd.DataFrame({"k": ["x", None, "y", "y"], "n": [1.0, np.nan, 2.0, 3.0]})
    control = pd.DataFrame({"k": ["x"], "n": [1.0]}, index=[9])
    tables = _prepare(train, control, train, ["k", "n"], None)
    trained = tables.codes("train", ["k", "n"])
    released = tables.codes("release", ["k", "n"])

    def count(column, op, row, codes, released_rows=False):
        cell = tables[["k", "n"][column]].cells[row]
        query = _Queries(np.array([[column]]), np.array([[op]], np.int8), np.array([[cell]]))
        return int(_match_counts(tables, query, codes, released=released_rows)[0])

    assert count(0, OP_NOT_IN, 0, trained) == 2  # k ≠ x: y, y (not the missing one)
    assert count(0, OP_IN, 1, trained) == 1  # k is missing
    assert count(0, OP_NOT_IN, 1, trained) == 3  # k is not missing
    assert count(1, OP_NOT_IN, 0, trained) == 2  # n ≠ 1: 2, 3
    assert count(1, OP_LE, 2, trained) == 2  # n ≤ 2: 1, 2
    assert count(1, OP_IN, 1, trained) == 1  # n is missing
    assert count(1, OP_GE, 1, trained) == 3  # any operator but "=" on missing: not missing
    assert count(0, OP_NOT_IN, 0, released, released_rows=True) == 2


NUMBER_CELLS = ["[0-5)", "[5-10)", "*", "3", "NA", "{1,7}", "4*", "[20-30)"]
LABEL_CELLS = ["a", "b", "z", "*", "{a,b}", None]


@settings(max_examples=60, deadline=None)
@given(
    x=st.lists(st.one_of(st.none(), st.integers(0, 9)), min_size=2, max_size=14),
    k=st.lists(st.sampled_from(["a", "b", "c", None]), min_size=14, max_size=14),
    released_x=st.one_of(
        st.lists(st.sampled_from(NUMBER_CELLS), min_size=1, max_size=10),
        st.lists(st.one_of(st.none(), st.integers(0, 12)), min_size=1, max_size=10),
    ),
    released_k=st.lists(st.sampled_from(LABEL_CELLS), min_size=10, max_size=10),
)
def test_counts_from_values_agree_with_counts_over_rows(x, k, released_x, released_k):
    n = len(x)
    original = pd.DataFrame({"x": pd.array(x, dtype="Float64"), "k": k[:n]})
    train, control = original.iloc[: max(1, n // 2)], original.iloc[max(1, n // 2) :]
    if control.empty:
        control = original.iloc[:1].set_axis([99])
    release = pd.DataFrame({"x": released_x, "k": released_k[: len(released_x)]})
    if all(v is None or isinstance(v, int) for v in released_x):
        release["x"] = pd.array(released_x, dtype="Float64")
    tables = _prepare(train, control, release, ["x", "k"], None)
    for column in (tables["x"], tables["k"]):
        ops = np.repeat(column.operators(), column.n_cells)
        cells = np.tile(np.arange(column.n_cells), len(column.operators()))
        for released, codes, size in (
            (True, column.cells, column.n_cells),
            (False, column.train, column.domain_size),
        ):
            by_rows = column.holds(ops, cells, codes, released).sum(axis=1)
            weights = np.bincount(codes, minlength=size)
            by_values = column.tally(ops, cells, weights, released)
            np.testing.assert_allclose(by_values, by_rows, err_msg=f"{column.name} {released}")


def test_counting_in_chunks_with_an_early_stop_agrees_with_row_by_row(tables, monkeypatch):
    import privcore.attacks.gdpr_risks.predicates as module

    monkeypatch.setattr(module, "_FIRST_CHUNK", 64)  # several chunks over 1,500 rows
    train, control = tables["train"], tables["control"]
    names = ["a", "b", "age", "income"]
    prepared = _prepare(train, control, tables["independent"], names, None)
    released = prepared.codes("release", names)
    trained = prepared.codes("train", names)
    rng = np.random.default_rng(0)
    queries = _random_queries(prepared, released, 400, 2, rng)

    def by_rows(codes, released_rows):
        match = np.ones((len(queries), len(codes)), dtype=bool)
        for q in range(len(queries)):
            for j in range(2):
                c = queries.columns[q, j]
                column = prepared[names[c]]
                match[q] &= column.holds(
                    queries.ops[q, j : j + 1],
                    queries.cells[q, j : j + 1],
                    codes[:, c],
                    released_rows,
                )[0]
        return match.sum(axis=1)

    for codes, released_rows in ((trained, False), (released, True)):
        exact = _match_counts(prepared, queries, codes, released=released_rows)
        np.testing.assert_array_equal(exact, by_rows(codes, released_rows))
        capped = _match_counts(prepared, queries, codes, released=released_rows, at_most=2)
        np.testing.assert_array_equal(capped == 1, exact == 1)
        assert (capped <= exact).all() and ((capped >= 2) == (exact >= 2)).all()
        assert (exact == 1).any() and (exact >= 2).any()


def test_missing_values_match_only_missing():
    train = pd.DataFrame({"k": ["x", None, "z"], "s": ["a", None, "c"]})
    control = pd.DataFrame({"k": ["x", None, "z"], "s": ["b", "b", None]}, index=[3, 4, 5])
    release = train.copy()
    result = inference(train, control, release, aux_columns=["k"], secret="s", n_attacks=3)
    # Training: each record's own row (missing k is nearest to missing k): a, missing, c ✓.
    # Control: x → a ✗, missing → missing ✗ (b), z → c ✗ (missing).
    assert (result.n_success, result.n_control) == (3, 0)


def test_nearest_neighbours_break_ties_alike_for_one_and_several():
    frame = pd.DataFrame({"g": np.repeat(["u", "v", "w"], 40), "x": np.tile(np.arange(4), 30)})
    tables = _prepare(frame, frame.iloc[:5], frame, ["g", "x"], None)
    near = _Neighbours.build(tables, ["g", "x"], np.random.default_rng(1))
    targets = tables.codes("train", ["g", "x"])[:60]
    one = near.nearest(targets, 1)[:, 0]
    three = near.nearest(targets, 3)
    assert np.array_equal(one, three[:, 0])
    # Every neighbour found is at distance 0 (ten identical rows per (g, x)).
    same = (frame.to_numpy()[three] == frame.to_numpy()[:60][:, None, :]).all(axis=2)
    assert same.all()
    assert all(len(set(row)) == 3 for row in three.tolist())
    # Ties are broken at random: with other seeds, record 0 ("u", 0) is matched to any of
    # the ten rows equal to it (rows 0, 4, …, 36), not always to the first.
    picks = {
        int(
            _Neighbours.build(tables, ["g", "x"], np.random.default_rng(s)).nearest(targets[:1], 1)[
                0, 0
            ]
        )
        for s in range(40)
    }
    assert picks <= set(range(0, 40, 4)) and len(picks) >= 7


# --------------------------------------------------------------------------- behaviour


def test_a_release_equal_to_the_training_set_is_high_risk(tables):
    train, control = tables["train"], tables["control"]
    release = train.reset_index(drop=True)
    so = singling_out(train, control, release, n_attacks=300, seed=1)
    assert so.ci[0] > 0.5, so
    link = linkability(train, control, release, aux_columns=AUX, n_attacks=300, seed=1)
    assert link.ci[0] > 0.9, link
    inf = inference(train, control, release, aux_columns=KNOWN, secret="disease", seed=1)
    assert inf.ci[0] > 0.5, inf
    for result in (so, link, inf):
        assert result.attack_rate > result.control_rate
        assert result.attack_rate > result.baseline


def test_an_independent_release_is_no_risk(tables):
    train, control, independent = tables["train"], tables["control"], tables["independent"]
    for mode in ("multivariate", "univariate"):
        so = singling_out(train, control, independent, n_attacks=300, mode=mode, seed=2)
        assert so.ci[0] == 0.0 and so.risk < 0.1, so
    link = linkability(train, control, independent, aux_columns=AUX, n_attacks=300, seed=2)
    assert link.ci[0] == 0.0 and link.risk < 0.05, link
    inf = inference(train, control, independent, aux_columns=KNOWN, secret="disease", seed=2)
    assert inf.ci[0] == 0.0 and inf.risk < 0.1, inf


def test_the_seed_decides_everything(tables):
    train, control, release = tables["train"], tables["control"], tables["independent"]
    first = gdpr_risks(train, release, ["a", "b", "age"], ["disease"], control=control, seed=4)
    again = gdpr_risks(train, release, ["a", "b", "age"], ["disease"], control=control, seed=4)
    other = gdpr_risks(train, release, ["a", "b", "age"], ["disease"], control=control, seed=5)
    assert first.to_dict() == again.to_dict()
    assert first.to_dict() != other.to_dict()


def test_gdpr_risks_holds_out_control_rows_of_an_aligned_release(tables):
    original = tables["train"]
    report = gdpr_risks(
        original, original, ["income", "a", "score", "age"], "disease", n_attacks=150, seed=0
    )
    assert report.control_source == "held_out"
    assert (report.training_rows, report.control_rows) == (1200, 300)
    # The held-out records were dropped from the release, so they are real controls.
    assert report.singling_out.ci[0] > 0.5
    assert report.linkability.ci[0] > 0.9
    assert report.inference["disease"].ci[0] > 0.3
    data = report.to_dict()
    json.dumps(data, allow_nan=False)
    for key in ("risk", "ci", "baseline"):
        assert key in data["singling_out"] and key in data["linkability"]
        assert key in data["inference"]["disease"]
    assert data["control"] == "held_out" and data["warnings"] == []
    assert data["linkability"]["parameters"]["aux_columns"] == [["income", "a"], ["score", "age"]]


def test_gdpr_risks_warns_when_it_cannot_align_or_link(tables):
    original, release = tables["train"], tables["independent"]
    report = gdpr_risks(original, release.iloc[:1000], ["a"], ["disease", "b"], seed=0)
    assert report.linkability is None
    assert set(report.warnings) == {"control_may_be_released", "linkability_needs_two_qi"}
    assert set(report.inference) == {"disease", "b"}
    assert report.to_dict()["linkability"] is None


def test_a_generalized_release_object_is_attacked_through_its_cells():
    dataset, schema = load_sample("adult")
    original = dataset.frame.iloc[:400].reset_index(drop=True)
    release = anonymize(original, schema, [KAnonymity(3)], algorithm="mondrian")
    qi, sa = list(schema.quasi_identifiers), list(schema.sensitive)
    report = gdpr_risks(
        original, release, qi, sa, n_attacks=60, hierarchies=schema.hierarchies, seed=0
    )
    assert (report.training_rows, report.control_rows) == (320, 80)
    assert report.warnings == ()  # same row count: aligned, the controls' rows dropped
    for result in (report.singling_out, report.linkability, *report.inference.values()):
        assert 0.0 <= result.ci[0] <= result.risk <= result.ci[1] <= 1.0
    assert report.singling_out.parameters["columns"] == [*qi, *sa]
    assert report.linkability.parameters["aux_columns"] == [qi[:4], qi[4:]]


def test_a_frequency_set_release_is_refused(tables):
    class WeightedRelease:
        frame = tables["independent"]
        weights = np.full(len(tables["independent"]), 2)

    def attack():
        singling_out(tables["train"], tables["control"], WeightedRelease())

    assert code_of(attack) == "gdpr_risk.needs_records"


# --------------------------------------------------------------------------- bad inputs


def code_of(call) -> str:
    with pytest.raises(PrivcoreError) as caught:
        call()
    return caught.value.code


def test_bad_inputs_raise_errors_with_codes(tables):
    train, control, release = tables["train"], tables["control"], tables["independent"]
    missing = release.drop(columns=["c"])
    assert code_of(lambda: singling_out(train, control, missing, columns=["a", "c"])) == (
        "gdpr_risk.missing_columns"
    )
    assert code_of(
        lambda: linkability(train, control.drop(columns=["b"]), release, aux_columns=AUX)
    ) == ("gdpr_risk.missing_columns")
    # The control set is (part of) the training set.
    assert code_of(lambda: singling_out(train, train, release)) == (
        "gdpr_risk.control_overlaps_training"
    )
    assert code_of(lambda: singling_out(train, train.iloc[:200], release)) == (
        "gdpr_risk.control_overlaps_training"
    )
    assert code_of(
        lambda: inference(train, control, release, aux_columns=["a"], secret="b", n_attacks=2000)
    ) == ("gdpr_risk.too_many_attacks")
    assert code_of(
        lambda: linkability(train, control.iloc[:100], release, aux_columns=AUX, n_attacks=200)
    ) == ("gdpr_risk.too_many_attacks")
    assert code_of(lambda: singling_out(train, control, release, n_attacks=0)) == (
        "gdpr_risk.bad_n_attacks"
    )
    assert code_of(lambda: singling_out(train, control, release, mode="bivariate")) == (
        "gdpr_risk.bad_mode"
    )
    assert code_of(lambda: singling_out(train, control, release, columns=["a"], n_cols=2)) == (
        "gdpr_risk.too_many_columns"
    )
    assert code_of(
        lambda: inference(train, control, release, aux_columns=["a", "b"], secret="b")
    ) == ("gdpr_risk.secret_in_aux")
    assert code_of(
        lambda: inference(train, control, release, aux_columns=["a"], secret="b", regression=True)
    ) == ("gdpr_risk.regression_needs_numbers")
    assert code_of(lambda: linkability(train, control, release, aux_columns=(["a"],))) == (
        "gdpr_risk.bad_aux_columns"
    )
    assert code_of(lambda: linkability(train, control, release, aux_columns=(["a"], []))) == (
        "gdpr_risk.no_columns"
    )
    assert code_of(
        lambda: linkability(train, control, release, aux_columns=AUX, n_neighbors=0)
    ) == ("gdpr_risk.bad_n_neighbors")
    assert code_of(lambda: singling_out(train, control, release.iloc[:0])) == (
        "gdpr_risk.empty_table"
    )
    assert code_of(lambda: singling_out(train, control, release, confidence=1.0)) == (
        "gdpr_risk.bad_confidence"
    )
    assert code_of(lambda: singling_out(train, control, release, seed=-1)) == "gdpr_risk.bad_seed"
    assert code_of(lambda: gdpr_risks(train, release, ["a"], "b", control_fraction=1.5)) == (
        "gdpr_risk.bad_control_fraction"
    )
    assert code_of(lambda: gdpr_risks(train.iloc[:1], release, ["a"], "b")) == (
        "gdpr_risk.too_few_rows"
    )
    assert code_of(lambda: gdpr_risks(train, release, ["a", "zzz"], "b")) == (
        "gdpr_risk.missing_columns"
    )


def test_separate_tables_numbered_alike_are_not_overlapping(tables):
    # Two tables read from separate files share index labels 0…n−1; rows equal at the
    # same label by chance are few, so they pass.
    train = tables["train"].reset_index(drop=True)
    control = tables["control"].reset_index(drop=True).copy()
    control.iloc[:3] = train.iloc[:3].to_numpy()
    result = inference(train, control, tables["independent"], aux_columns=["a"], secret="b")
    assert 0.0 <= result.risk <= 1.0


def test_the_three_risks_read_each_column_once_and_give_the_same_figures(tables, monkeypatch):
    """``gdpr_risks`` shares the columns its three evaluators read alike
    (:func:`~privcore.attacks.gdpr_risks.columns.shared_columns`): each column is coded
    once, and every figure is the one of the three evaluators run apart."""
    from privcore.attacks.gdpr_risks import columns as gdpr_columns

    train, control, release = tables["train"], tables["control"], tables["independent"]
    qi, sa = ["a", "b", "age"], ["disease"]
    reads: list[str] = []
    for kind in (gdpr_columns._CategoricalColumn, gdpr_columns._NumericColumn):
        original_read = kind._read

        def counted(self, *args, _read=original_read, **kwargs):
            reads.append(self.name)
            return _read(self, *args, **kwargs)

        monkeypatch.setattr(kind, "_read", counted)
    together = gdpr_risks(train, release, qi, sa, control=control, seed=4)
    assert sorted(reads) == sorted(qi + sa)  # once each, though three evaluators read them
    reads.clear()
    seeds = np.random.SeedSequence(4).generate_state(4)
    apart = singling_out(
        train, control, release, n_attacks=together.singling_out.n_attacks,
        mode="multivariate", n_cols=3, columns=qi + sa, seed=int(seeds[1]),
    )  # fmt: skip
    assert apart.to_dict() == together.singling_out.to_dict()
    assert len(reads) == len(qi + sa)  # outside the block, each evaluator reads its own
