"""Tests of privcore.dp.release (SPEC §10): the DP release of a table's QI × SA marginals
(budget ledger, consistent post-processing, synthesized records) and its comparison with
a k-anonymous release on the same queries, by hand on a six-row table and as properties."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privcore.data import load_sample
from privcore.data.hierarchy import Hierarchy
from privcore.dp import release as release_module
from privcore.dp.release import (
    MAX_MARGINAL_CELLS,
    Comparison,
    DpRelease,
    compare_releases,
    dp_release,
    largest_remainder,
    nonnegative_integer_projection,
    simplex_projection,
)
from privcore.errors import ParameterError

QI, SA = ("sex", "age"), "flu"


@pytest.fixture
def tiny() -> pd.DataFrame:
    """Six people: sex × flu = F (no 2, yes 1), M (no 2, yes 1); age × flu = 30 (no 1,
    yes 2), 40 (no 1, yes 0), 50 (no 2, yes 0); flu: no 4, yes 2."""
    return pd.DataFrame(
        {
            "sex": ["F", "F", "M", "M", "F", "M"],
            "age": [30, 30, 30, 50, 50, 40],
            "flu": ["yes", "no", "yes", "no", "no", "no"],
        }
    )


@pytest.fixture
def fixed_noise(monkeypatch):
    """The discrete Laplace replaced by known offsets, one array per call in order, so
    that the post-processing can be followed by hand. Records the calls."""
    calls = []

    def install(*offsets):
        queue = list(offsets)

        def noise(self, value, *, size=None, rng=None):
            calls.append((np.asarray(value).copy(), self.sensitivity, self.epsilon))
            return np.asarray(value, dtype=np.int64) + np.asarray(queue.pop(0), dtype=np.int64)

        monkeypatch.setattr(release_module.DiscreteLaplace, "release", noise)
        return calls

    return install


def _key(cell) -> tuple:
    """A cell as a dict key; missing values (NaN ≠ NaN) as one marker."""
    cell = cell if isinstance(cell, tuple) else (cell,)
    return tuple("<NA>" if pd.isna(v) else v for v in cell)


def counts_of(frame: pd.DataFrame, columns: list[str]) -> dict:
    """{cell tuple: count} of the non-empty cells (the test's own group-by)."""
    sizes = frame.groupby(columns, dropna=False).size()
    return {_key(k): int(v) for k, v in sizes.items() if v}


def released(table: pd.DataFrame) -> dict:
    columns = [c for c in table.columns if c != "count"]
    return {
        _key(tuple(row[:-1])): int(row[-1])
        for row in table[[*columns, "count"]].itertuples(index=False)
        if row[-1]
    }


# --------------------------------------------------------------------------- projections


def test_simplex_projection_by_hand():
    # u = (3, 1, -1), t = 2: ρ = 1 (1 − (4 − 2)/2 = 0 is not > 0), θ = 1 → (2, 0, 0)
    assert simplex_projection([[3.0], [1.0], [-1.0]], [2]).ravel().tolist() == [2.0, 0.0, 0.0]
    # u = (2, 2, 0), t = 3: ρ = 2, θ = (4 − 3)/2 = 0.5 → (1.5, 1.5, 0)
    assert simplex_projection([[2.0], [2.0], [0.0]], [3]).ravel().tolist() == [1.5, 1.5, 0.0]
    # a column with total 0 projects on zeros; columns are independent
    both = simplex_projection([[5.0, 1.0], [-2.0, 4.0]], [0, 3])
    assert both.tolist() == [[0.0, 0.0], [0.0, 3.0]]


def test_largest_remainder_by_hand():
    # floors (1, 1, 0) sum 2, one short: the largest remainder (0.5, first of the tie)
    assert largest_remainder([[1.5], [1.5], [0.0]], [3]).ravel().tolist() == [2, 1, 0]
    # (0.4, 0.35, 0.25) of 1: floors 0, one short → the 0.4 cell
    assert largest_remainder([[0.4], [0.35], [0.25]], [1]).ravel().tolist() == [1, 0, 0]
    assert nonnegative_integer_projection([[2.0], [2.0], [0.0]], [3]).ravel().tolist() == [2, 1, 0]


def _projection_by_bisection(column: np.ndarray, total: float) -> np.ndarray:
    """max(v − θ, 0) with Σ = t, θ found by bisection (an independent route)."""
    if total <= 0:
        return np.zeros_like(column)
    low, high = column.min() - total - 1.0, column.max()
    for _ in range(200):
        theta = (low + high) / 2
        if np.maximum(column - theta, 0).sum() > total:
            low = theta
        else:
            high = theta
    return np.maximum(column - (low + high) / 2, 0)


@settings(max_examples=80, deadline=None)
@given(
    st.integers(1, 6).flatmap(
        lambda n: st.tuples(
            st.lists(
                st.lists(st.integers(-30, 30), min_size=n, max_size=n), min_size=1, max_size=4
            ),
            st.lists(st.integers(0, 40), min_size=4, max_size=4),
        )
    )
)
def test_projection_properties(case):
    columns, totals = case
    values = np.array(columns, dtype=float).T  # n × c
    totals = np.array(totals[: values.shape[1]])
    real = simplex_projection(values, totals)
    for j in range(values.shape[1]):
        assert real[:, j] == pytest.approx(_projection_by_bisection(values[:, j], totals[j]))
    result = nonnegative_integer_projection(values, totals)
    assert result.dtype == np.int64
    assert (result >= 0).all()
    assert result.sum(axis=0).tolist() == totals.tolist()
    # rounding moves no cell by a whole unit or more
    assert (np.abs(result - real) < 1.0 + 1e-9).all()
    # a table that already is non-negative integers with those totals is left as it is
    assert nonnegative_integer_projection(result, totals).tolist() == result.tolist()


# --------------------------------------------------------------------------- the release


def test_the_tiny_release_by_hand(tiny, fixed_noise):
    # sex table (rows F, M; columns no, yes): +3 on (F, no), +1 on (M, no);
    # age table (rows 30, 40, 50): −3 on (30, no), +1 on (50, no).
    calls = fixed_noise([[3, 0], [1, 0]], [[-3, 0], [0, 0], [1, 0]])
    release = dp_release(tiny, list(QI), SA, epsilon=1.0, seed=0)
    # one noisy table per QI, true counts in, sensitivity 1, ε/2 each
    assert [c[0].tolist() for c in calls] == [[[2, 1], [2, 1]], [[1, 2], [1, 0], [2, 0]]]
    assert [(c[1], c[2]) for c in calls] == [(1, 0.5), (1, 0.5)]
    # SA margins of the noisy tables: y_sex = (8, 2), y_age = (2, 2); variances 2v and 3v,
    # so ŝ = (3·y_sex + 2·y_age)/5 = (5.6, 2) (equal weights would give (5, 2));
    # N̂ = round(7.6) = 8; projected on the integers summing to 8: θ = −0.2 → (5.8, 2.2)
    # → floors (5, 2), one short → (6, 2).
    assert release.total == 8
    assert released(release.marginals[SA]) == {("no",): 6, ("yes",): 2}
    # sex, column no: (5, 3) → sum 6: θ = 1 → (4, 2); column yes (1, 1) is already 2
    assert released(release.marginals["sex"]) == {
        ("F", "no"): 4,
        ("F", "yes"): 1,
        ("M", "no"): 2,
        ("M", "yes"): 1,
    }
    # age, column no: (−2, 1, 3) → sum 6: ρ = 2, θ = −1 → (0, 2, 4); column yes (2, 0, 0)
    assert released(release.marginals["age"]) == {(30, "yes"): 2, (40, "no"): 2, (50, "no"): 4}
    # shapes: every cell of the domain, zeros included, in the order of the values
    assert release.marginals[SA].columns.tolist() == [SA, "count"]
    assert release.marginals["age"].columns.tolist() == ["age", SA, "count"]
    assert release.marginals["age"][["age", SA]].values.tolist() == [
        [30, "no"],
        [30, "yes"],
        [40, "no"],
        [40, "yes"],
        [50, "no"],
        [50, "yes"],
    ]
    assert len(release.marginals["sex"]) == 4
    # the ledger: sequential composition, ε/2 per marginal
    assert [(e["label"], e["epsilon"], e["spent"]) for e in release.ledger] == [
        ("histogram(sex, flu)", 0.5, 0.5),
        ("histogram(age, flu)", 0.5, 1.0),
    ]
    assert [e["scale"] for e in release.ledger] == [2.0, 2.0]  # Δ₁/ε_i = 1/0.5
    assert [e["cells"] for e in release.ledger] == [4, 6]
    # the records reproduce every marginal
    assert len(release.records) == 8
    assert release.records.columns.tolist() == ["sex", "age", "flu"]
    assert counts_of(release.records, ["sex", "flu"]) == released(release.marginals["sex"])
    assert counts_of(release.records, ["age", "flu"]) == released(release.marginals["age"])


def test_to_dict_contract(tiny):
    release = dp_release(tiny, list(QI), SA, epsilon=2.0, seed=1)
    out = release.to_dict()
    assert set(out) == {"epsilon", "total", "marginals", "ledger", "records", "relation"}
    assert out["epsilon"] == 2.0 and out["relation"] == "add_remove"
    assert out["records"] == release.total == len(release.records)
    assert [m["columns"] for m in out["marginals"]] == [["flu"], ["sex", "flu"], ["age", "flu"]]
    first = out["marginals"][2]["cells"][0]
    assert set(first) == {"age", "flu", "count"} and isinstance(first["age"], int)
    assert sum(c["count"] for c in out["marginals"][0]["cells"]) == out["total"]


def test_replace_one_doubles_the_sensitivity(tiny, fixed_noise):
    calls = fixed_noise(np.zeros((2, 2)), np.zeros((3, 2)))
    release = dp_release(tiny, list(QI), SA, epsilon=1.0, relation="replace")
    assert [c[1] for c in calls] == [2, 2]
    assert [e["scale"] for e in release.ledger] == [4.0, 4.0]
    assert release.relation == "replace"
    # no noise: the release is the truth
    assert released(release.marginals["age"]) == counts_of(tiny, ["age", "flu"])


def _check_consistent(frame: pd.DataFrame, qi, sa, release: DpRelease) -> None:
    sa_counts = release.marginals[sa].set_index(sa)["count"]
    assert sa_counts.sum() == release.total == len(release.records)
    for name in qi:
        table = release.marginals[name]
        counts = table["count"].to_numpy()
        assert counts.dtype.kind == "i" and (counts >= 0).all()
        assert counts.sum() == release.total
        margin = table.groupby(sa, sort=False, dropna=False)["count"].sum()
        assert margin.reindex(sa_counts.index).tolist() == sa_counts.tolist()
        # every value of the domain × every SA value
        assert len(table) == frame[name].nunique(dropna=False) * frame[sa].nunique(dropna=False)
        assert counts_of(release.records, [name, sa]) == released(table)
    assert counts_of(release.records, [sa]) == released(release.marginals[sa])


@settings(max_examples=25, deadline=None)
@given(
    st.integers(1, 40).flatmap(
        lambda n: st.tuples(
            st.lists(st.sampled_from(["a", "b", "c"]), min_size=n, max_size=n),
            st.lists(st.integers(0, 6), min_size=n, max_size=n),
            st.lists(st.sampled_from(["x", "y", None]), min_size=n, max_size=n),
        )
    ),
    st.floats(0.05, 5.0),
    st.integers(0, 2**31),
)
def test_every_release_is_consistent(columns, epsilon, seed):
    zone, age, sick = columns
    frame = pd.DataFrame({"zone": zone, "age": age, "sick": pd.Series(sick, dtype=object)})
    release = dp_release(frame, ["zone", "age"], "sick", epsilon=epsilon, seed=seed)
    _check_consistent(frame, ["zone", "age"], "sick", release)


def test_same_seed_same_release_and_missing_is_a_value(tiny):
    frame = tiny.assign(age=tiny["age"].astype(float).where(tiny.index != 2))
    one = dp_release(frame, list(QI), SA, epsilon=0.5, seed=7)
    two = dp_release(frame, list(QI), SA, epsilon=0.5, seed=7)
    pd.testing.assert_frame_equal(one.records, two.records)
    assert one.ledger == two.ledger
    ages = one.marginals["age"]["age"]
    assert ages.iloc[-1] != ages.iloc[-1]  # NaN: the missing value, the last of the domain
    _check_consistent(frame, QI, SA, one)
    other = dp_release(frame, list(QI), SA, epsilon=0.5, seed=8)
    assert not other.records.equals(one.records) or other.total != one.total


def test_progress_reports_the_spent_budget(tiny):
    seen = []
    dp_release(tiny, list(QI), SA, epsilon=1.0, progress=lambda f, m: seen.append((f, m)))
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert "spent 0.5 of 1" in seen[0][1] and "spent 1 of 1" in seen[1][1]


@pytest.mark.parametrize(
    ("qi", "sa", "kwargs", "code"),
    [
        (["sex", "zip"], "flu", {}, "dp.unknown_column"),
        (["sex"], "nope", {}, "dp.unknown_column"),
        (["sex", "flu"], "flu", {}, "dp.sa_in_qi"),
        (["sex", "sex"], "flu", {}, "dp.repeated_column"),
        ([], "flu", {}, "dp.no_columns"),
        (["sex"], ["flu", "age"], {}, "dp.one_sa"),
        (["sex"], "flu", {"epsilon": 0}, "dp.bad_epsilon"),
        (["sex"], "flu", {"epsilon": -1.0}, "dp.bad_epsilon"),
        (["sex"], "flu", {"epsilon": math.inf}, "dp.bad_epsilon"),
        (["sex"], "flu", {"relation": "swap"}, "dp.bad_relation"),
    ],
)
def test_bad_input_is_refused_with_a_code(tiny, qi, sa, kwargs, code):
    with pytest.raises(ParameterError) as caught:
        dp_release(tiny, qi, sa, **{"epsilon": 1.0, **kwargs})
    assert caught.value.code == code


def test_refused_before_any_noise(tiny, fixed_noise):
    calls = fixed_noise()
    wide = pd.DataFrame({"id": np.arange(MAX_MARGINAL_CELLS // 2 + 1), "flu": "no"})
    wide.loc[0, "flu"] = "yes"  # (5,001 values) × (2 values) = 10,002 cells
    with pytest.raises(ParameterError) as caught:
        dp_release(wide.assign(sex="F"), ["sex", "id"], "flu", epsilon=1.0)
    assert caught.value.code == "dp.too_many_cells"
    assert caught.value.params["column"] == "id"
    assert caught.value.params["cells"] == 10_002
    assert "generalize or bin id" in str(caught.value)
    assert calls == []  # the first marginal was small, but nothing was drawn
    with pytest.raises(ParameterError) as caught:
        dp_release(tiny.iloc[:0], list(QI), SA, epsilon=1.0)
    assert caught.value.code == "dp.empty_table"
    with pytest.raises(ParameterError) as caught:
        dp_release(tiny.rename(columns={"sex": "count"}), ["count"], SA, epsilon=1.0)
    assert caught.value.code == "dp.reserved_column"


# --------------------------------------------------------------------------- comparison


@pytest.fixture
def hand_release(tiny, fixed_noise) -> DpRelease:
    fixed_noise([[3, 0], [1, 0]], [[-3, 0], [0, 0], [1, 0]])
    return dp_release(tiny, list(QI), SA, epsilon=1.0)


def test_the_comparison_by_hand(tiny, hand_release):
    # A hand-generalized release: sex as the hierarchy's top label (row 6 suppressed to
    # "*"), age as [30-40] (30 and 40: each counts 1/2) or >=45 (50 only).
    k_anon = pd.DataFrame(
        {
            "sex": ["person"] * 5 + ["*"],
            "age": ["[30-40]", "[30-40]", "[30-40]", ">=45", ">=45", "[30-40]"],
            "flu": tiny["flu"],
        }
    )
    sexes = Hierarchy([["F", "person"], ["M", "person"]], name="sex")
    result = compare_releases(tiny, list(QI), SA, hand_release, k_anon, {"sex": sexes}, k=2)
    assert isinstance(result, Comparison)
    table = result.per_query.set_index("query")
    assert len(table) == 2 + 4 + 6
    assert table.columns.tolist() == [
        "columns",
        "cell",
        "true",
        "dp",
        "k_anon",
        "dp_error",
        "k_anon_error",
        "dp_relative",
        "k_anon_relative",
        "zero_in_truth",
    ]
    row = table.loc["count(age=30, flu=yes)"]
    assert (row["true"], row["dp"], row["k_anon"]) == (2, 2, 1.0)  # [30-40] ∧ yes: 2 rows / 2
    assert row["k_anon_relative"] == 0.5  # |1 − 2| / max(2, 1)
    assert row["columns"] == ("age", "flu") and row["cell"] == {"age": 30, "flu": "yes"}
    row = table.loc["count(age=40, flu=yes)"]
    assert (row["true"], row["k_anon"], row["k_anon_relative"]) == (0, 1.0, 1.0)  # floor 1
    assert bool(row["zero_in_truth"])
    row = table.loc["count(age=50, flu=no)"]
    assert (row["true"], row["dp"], row["k_anon"]) == (2, 4, 2.0)
    assert (row["dp_error"], row["dp_relative"]) == (2.0, 1.0)
    # person ∧ no: rows 2, 4, 5 → 1.5 each of F, M; "*" ∧ no: row 6 → 0.5 each
    assert table.loc["count(sex=F, flu=no)", "k_anon"] == 2.0
    assert table.loc["count(flu=no)", "dp"] == 6
    summary = result.summary
    assert (summary["queries"], summary["zero_in_truth"]) == (12, 2)
    # DP errors: flu=no 2 (of 4), (F, no) 2 (of 2), (30, no) 1 (of 1), (40, no) 1 (of 1),
    # (50, no) 2 (of 2), the rest 0
    assert summary["dp"]["mean_abs_error"] == pytest.approx(8 / 12)
    assert summary["dp"]["median_abs_error"] == 0.0
    assert summary["dp"]["max_abs_error"] == 2.0
    assert summary["dp"]["mean_relative_error"] == pytest.approx((0.5 + 1 + 1 + 1 + 1) / 12)
    assert summary["dp"]["zero_answered_positive"] == 0
    assert summary["dp"]["zero_mean_error"] == 0.0
    assert summary["dp"]["epsilon"] == 1.0
    # k-anonymous errors: (30, yes) 1 and (40, yes) 1, the rest 0
    assert summary["k_anon"]["mean_abs_error"] == pytest.approx(2 / 12)
    assert summary["k_anon"]["mean_relative_error"] == pytest.approx(1.5 / 12)
    assert summary["k_anon"]["zero_answered_positive"] == 1  # (40, yes) answered 1
    assert summary["k_anon"]["zero_mean_error"] == 0.5
    assert summary["k_anon"]["k"] == 2
    assert summary["k_anon"]["rows_outside_domain"] == {}
    out = result.to_dict()
    assert set(out) == {"per_query", "summary"}
    assert out["per_query"][0]["cell"] == {"flu": "no"} and out["per_query"][0]["columns"] == [
        "flu"
    ]


def test_a_release_that_generalizes_nothing_answers_exactly(tiny, hand_release):
    result = compare_releases(tiny, list(QI), SA, hand_release, tiny)
    assert result.per_query["k_anon_error"].max() == 0.0
    assert result.summary["k_anon"]["zero_answered_positive"] == 0


def test_a_cell_outside_the_domain_counts_nowhere(tiny, hand_release):
    k_anon = tiny.assign(age=tiny["age"].astype(str).where(tiny.index != 0, "[60-70]"))
    result = compare_releases(tiny, list(QI), SA, hand_release, k_anon)
    assert result.summary["k_anon"]["rows_outside_domain"] == {"age": 1}
    assert result.per_query.set_index("query").loc["count(age=30, flu=yes)", "k_anon"] == 1.0


def test_comparison_refuses_other_columns(tiny, hand_release):
    with pytest.raises(ParameterError) as caught:
        compare_releases(tiny, ["sex"], SA, hand_release, tiny)
    assert caught.value.code == "dp.release_mismatch"
    with pytest.raises(ParameterError) as caught:
        compare_releases(tiny, list(QI), SA, hand_release, tiny.drop(columns="age"))
    assert caught.value.code == "dp.unknown_column"


def test_dp_error_shrinks_as_epsilon_grows():
    dataset, schema = load_sample("adult")
    frame, qi, sa = dataset.frame, schema.quasi_identifiers, schema.sensitive[0]
    errors = {}
    for epsilon in (0.1, 10.0):
        release = dp_release(frame, qi, sa, epsilon=epsilon, seed=3)
        _check_consistent(frame, qi, sa, release)
        result = compare_releases(frame, qi, sa, release, frame)
        errors[epsilon] = result.summary["dp"]["mean_abs_error"]
    # noise scale m/ε = 80 vs 0.8 per cell
    assert errors[10.0] < errors[0.1]
    assert errors[10.0] < 2.0 < 20.0 < errors[0.1]
