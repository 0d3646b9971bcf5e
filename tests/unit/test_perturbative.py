"""The perturbative methods (SPEC §11): MDAV, invariant PRAM, correlated noise, rank
swapping, top/bottom coding, local suppression — hand-traced values — and the utility
of a perturbed release (privcore.measure.utility)."""

from __future__ import annotations

import importlib
import json

import numpy as np
import pandas as pd
import pytest

from privcore.anonymize import ALGORITHMS, PERTURBATIVE, anonymize
from privcore.anonymize.spec import reproduce
from privcore.data.samples import load_sample
from privcore.data.schema import Schema
from privcore.errors import InfeasibleError, ParameterError
from privcore.measure.utility import interval_overlap, numeric_cells, perturbation_utility
from privcore.models import DistinctLDiversity, KAnonymity
from privcore.runs import AnonymizeRequest

# the modules (privcore.anonymize's attributes of these names are the functions)
mdav_module = importlib.import_module("privcore.anonymize.mdav")
pram_module = importlib.import_module("privcore.anonymize.pram")
noise_module = importlib.import_module("privcore.anonymize.noise")
swap_module = importlib.import_module("privcore.anonymize.rank_swap")
coding_module = importlib.import_module("privcore.anonymize.top_bottom")

Q, S = "quasi_identifier", "sensitive"

# Ten points whose x and y hold the same multiset of values (so the z-scores of both
# columns are one affine map, and MDAV on them decides as on the raw points).
POINTS = np.array(
    [(0, 1), (1, 2), (2, 0), (10, 12), (11, 10), (12, 11), (5, 6), (6, 7), (7, 5), (20, 20)],
    dtype=float,
)


def one_part(n: int) -> np.ndarray:
    return np.zeros(n, dtype=np.int64)


# --------------------------------------------------------------------------- MDAV


def test_mdav_groups_traced_by_hand():
    """k = 3 on the ten points. The mean is (7.4, 7.4); the farthest point from it is
    r = 9 (20,20) (d² 317.52); the farthest from r is s = 0 (0,1) (d² 761, then 2 at
    724). Group 0: r and its 2 nearest, 5 (12,11) d² 145 and 3 (10,12) d² 164 — not 4
    (11,10) at 181. Group 1: the 3 nearest to s among the rest: 0, 1 (d² 2), 2 (d² 5).
    Four records remain (< 2k = 6): group 2 = {4, 6, 7, 8}."""
    groups = mdav_module.mdav_groups(POINTS, one_part(10), 3)
    assert groups.tolist() == [1, 1, 1, 0, 2, 0, 2, 2, 2, 0]


def test_mdav_groups_traced_by_hand_k2_two_rounds():
    """k = 2: round 1 as for k = 3 gives {9, 5} and {0, 1}; six records remain (≥ 3k):
    their mean (41/6, 40/6) is farthest from 2 (2,0) (d² 67.8); the farthest from 2 is
    3 (10,12) (d² 208). Group {2, 6} (6 at d² 45 before 8 at 50), group {3, 4} (4 at
    d² 5), and the last two, {7, 8}."""
    groups = mdav_module.mdav_groups(POINTS, one_part(10), 2)
    assert groups.tolist() == [1, 1, 2, 3, 3, 0, 2, 4, 4, 0]


def test_mdav_groups_the_branch_between_2k_and_3k():
    """Seven points (rows 0–6), k = 3: 7 < 3k but ≥ 2k, so one group around the point
    farthest from the mean (41/7, 6): 5 (12,11) at d² 62.7 (0 is at 59.3), with 4 (d² 2)
    and 3 (d² 5); the other four are the last group."""
    groups = mdav_module.mdav_groups(POINTS[:7], one_part(7), 3)
    assert groups.tolist() == [1, 1, 1, 0, 0, 0, 1]


def test_mdav_releases_the_group_means_and_is_k_anonymous():
    frame = pd.DataFrame(
        {"x": POINTS[:, 0].astype(int), "y": POINTS[:, 1].astype(int), "d": list("abcabcabca")}
    )
    schema = Schema({"x": Q, "y": Q, "d": S})
    release = anonymize(frame, schema, [KAnonymity(3)], algorithm="mdav")
    x = np.where(np.isin(np.arange(10), [3, 5, 9]), 14.0, np.where(np.arange(10) < 3, 1.0, 7.25))
    y = np.where(np.isin(np.arange(10), [3, 5, 9]), 43 / 3, np.where(np.arange(10) < 3, 1.0, 7.0))
    np.testing.assert_allclose(release.frame["x"], x, rtol=1e-12)
    np.testing.assert_allclose(release.frame["y"], y, rtol=1e-12)
    report = release.to_dict()
    assert (report["k"], report["classes"], report["suppressed_rows"]) == (3, 3, 0)
    assert release.satisfied and report["params"]["groups"] == 3
    assert release.frame["d"].tolist() == frame["d"].tolist()
    assert ALGORITHMS["mdav"].family == "perturbative" and ALGORITHMS["mdav"].enforces_models


def test_mdav_groups_within_the_categorical_combinations():
    """sex is categorical: groups form among the F records and among the M records; the
    three records of the 'X' stratum cannot form a group of 4: they are suppressed
    ('*' in every QI), counted against the limit. With no suppression allowed the run is
    refused, naming the limit that allows them: ⌈1000 · 3/23⌉ / 10 = 13.1 %."""
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(
        {
            "age": rng.integers(20, 70, 23),
            "sex": ["F"] * 12 + ["M"] * 8 + ["X"] * 3,
            "d": rng.choice(["a", "b"], 23),
        }
    )
    schema = Schema({"age": Q, "sex": Q, "d": S})
    with pytest.raises(InfeasibleError) as info:
        anonymize(frame, schema, [KAnonymity(4)], algorithm="mdav")
    assert info.value.code == "anonymize.suppression_over_limit"
    assert (info.value.params["suppressed"], info.value.params["budget"]) == (3, 0)
    assert info.value.params["needed"] == "13.1"
    release = anonymize(frame, schema, [KAnonymity(4)], algorithm="mdav", max_suppression=0.131)
    released = release.frame
    top = (released[["age", "sex"]] == "*").all(axis=1)
    assert top.tolist() == [False] * 20 + [True] * 3
    assert release.n_suppressed == 3 and release.to_dict()["suppressed_rows"] == 3
    assert release.to_dict()["k"] >= 4
    kept = released[~top]
    assert set(kept["sex"]) == {"F", "M"}
    assert kept.groupby(["age", "sex"]).size().min() >= 4


def test_mdav_merges_groups_for_l_diversity():
    """Six records in two natural groups of 3, each with one disease; 2-diversity joins
    them (the only merge possible)."""
    frame = pd.DataFrame({"age": [20, 21, 22, 60, 61, 62], "d": ["flu"] * 3 + ["cold"] * 3})
    schema = Schema({"age": Q, "d": S})
    release = anonymize(frame, schema, [KAnonymity(3), DistinctLDiversity(2)], algorithm="mdav")
    assert release.frame["age"].tolist() == [41.0] * 6
    assert release.params["merges"] == 1 and release.satisfied


def test_mdav_with_k_1_merges_for_l_diversity_within_each_stratum():
    """k = 1 makes every record its group; 2-diversity then merges groups, each with the
    nearest group of its own stratum (the F rows and the M rows are interleaved)."""
    frame = pd.DataFrame(
        {
            "age": [20, 60, 22, 62, 40, 41],
            "sex": list("FMFMFM"),
            "d": ["flu", "flu", "cold", "cold", "flu", "cold"],
        }
    )
    schema = Schema({"age": Q, "sex": Q, "d": S})
    release = anonymize(frame, schema, [KAnonymity(1), DistinctLDiversity(2)], algorithm="mdav")
    assert release.satisfied and release.params["merges"] == 4
    # F: 20 (flu) + 22 (cold) → 21, then 40 (flu) alone joins them → 27.33…
    # M: 60 (flu) + 62 (cold) → 61; 41 (cold) fails and joins its nearest, 61 → 54.33…
    np.testing.assert_allclose(
        release.frame["age"], [82 / 3, 163 / 3, 82 / 3, 163 / 3, 82 / 3, 163 / 3]
    )
    assert release.frame["sex"].tolist() == list("FMFMFM")


def test_mdav_refuses_missing_numbers_and_tables_without_numbers():
    schema = Schema({"age": Q, "sex": Q, "d": S})
    frame = pd.DataFrame({"age": [1.0, np.nan, 3.0, 4.0], "sex": list("FFMM"), "d": list("abab")})
    with pytest.raises(ParameterError) as info:
        anonymize(frame, schema, [KAnonymity(2)], algorithm="mdav")
    assert info.value.code == "anonymize.numeric_qi_incomplete"
    assert info.value.params["columns"] == ["age"]
    text = Schema({"sex": Q, "d": S})
    with pytest.raises(ParameterError) as info:
        anonymize(frame, text, [KAnonymity(2)], algorithm="mdav")
    assert info.value.code == "anonymize.needs_numeric_qi"
    assert "numeric" in info.value.message


def test_kd_parts_cut_a_large_table_into_parts_of_half_to_full_size():
    rng = np.random.default_rng(0)
    z = rng.normal(size=(5000, 3))
    parts = mdav_module.kd_parts(z, 1000)
    sizes = np.bincount(parts)
    assert sizes.min() >= 500 and sizes.max() <= 1000 and sizes.sum() == 5000
    groups = mdav_module.mdav_groups(z, parts, 5)
    counts = np.bincount(groups)
    assert counts.min() == 5 and counts.max() <= 9
    assert len(counts) == (sizes // 5).sum()
    assert mdav_module.part_size(10_000, 5) == 8192
    assert mdav_module.part_size(1_000_000, 5) == 2048
    assert mdav_module.part_size(100, 3000) == 12000


# --------------------------------------------------------------------------- PRAM


def test_invariant_pram_matrix_worked_example():
    """π = (0.75, 0.25), d = (0.8, 0.8): P = [[0.8, 0.2], [0.2, 0.8]], πP = (0.65, 0.35),
    Q = [[12/13, 1/13], [3/7, 4/7]], R = PQ = [[0.8242, 0.1758], [0.5275, 0.4725]];
    α = 0.5: R_α = [[0.9121, 0.0879], [0.2637, 0.7363]]."""
    shares = np.array([0.75, 0.25])
    r = pram_module.invariant_matrix(shares, np.array([0.8, 0.8]), 1.0)
    q = np.array([[12 / 13, 1 / 13], [3 / 7, 4 / 7]])
    p = np.array([[0.8, 0.2], [0.2, 0.8]])
    np.testing.assert_allclose(r, p @ q, atol=1e-12)
    np.testing.assert_allclose(r, [[0.824176, 0.175824], [0.527473, 0.472527]], atol=1e-6)
    half = pram_module.invariant_matrix(shares, np.array([0.8, 0.8]), 0.5)
    np.testing.assert_allclose(half, [[0.912088, 0.087912], [0.263736, 0.736264]], atol=1e-6)
    np.testing.assert_allclose(shares @ half, shares, atol=1e-15)
    np.testing.assert_allclose(half.sum(axis=1), 1.0, atol=1e-15)


def test_pram_sampler_draws_from_the_invariant_matrix():
    """200,000 records of each of 4 categories: the observed transition shares match R_α
    within 4 standard errors."""
    rng = np.random.default_rng(7)
    shares = np.array([0.4, 0.3, 0.2, 0.1])
    diagonal = np.array([0.7, 0.9, 0.8, 0.75])
    matrix = pram_module.invariant_matrix(shares, diagonal, 0.6)
    n = 200_000
    codes = np.repeat(np.arange(4), n)
    out = pram_module.pram_codes(codes, shares, diagonal, 0.6, rng)
    observed = np.zeros((4, 4))
    for i in range(4):
        observed[i] = np.bincount(out[codes == i], minlength=4) / n
    error = np.sqrt(matrix * (1 - matrix) / n)
    assert (np.abs(observed - matrix) <= 4 * error + 1e-12).all()


def test_pram_keeps_the_expected_frequencies():
    """Mean released counts over 200 seeds equal the observed counts (π·R = π) within 4
    standard errors of the mean; missing stays missing."""
    values = pd.Series(["a"] * 50 + ["b"] * 30 + ["c"] * 15 + ["d"] * 5 + [None] * 4)
    frame = pd.DataFrame({"job": values, "d": ["x"] * 104})
    schema = Schema({"job": Q, "d": S})
    counts = []
    for seed in range(200):
        release = anonymize(frame, schema, [KAnonymity(1)], algorithm="pram", seed=seed)
        released = release.frame["job"]
        assert released.isna().sum() == 4 and released[frame["job"].isna()].isna().all()
        counts.append([int((released == c).sum()) for c in "abcd"])
    counts = np.array(counts)
    mean, sem = counts.mean(axis=0), counts.std(axis=0, ddof=1) / np.sqrt(len(counts))
    assert (np.abs(mean - [50, 30, 15, 5]) <= 4 * sem + 1e-9).all()
    assert counts.std(axis=0).min() > 0  # it did randomize


def test_pram_without_perturbation_and_with_numbers_only():
    frame = pd.DataFrame({"sex": list("FFMMF"), "age": [1, 2, 3, 4, 5], "d": list("xyxyx")})
    schema = Schema({"sex": Q, "age": Q, "d": S})
    for options in ({"pram_alpha": 0.0}, {"pram_retain": 1.0}):
        release = anonymize(frame, schema, [KAnonymity(1)], algorithm="pram", **options)
        assert release.frame["sex"].tolist() == frame["sex"].tolist()
    release = anonymize(frame, schema, [KAnonymity(1)], algorithm="pram", seed=3)
    assert release.frame["age"].tolist() == [1, 2, 3, 4, 5]  # numbers kept
    assert any(n.code == "pram.numeric_kept" for n in release.notes)
    numbers = Schema({"age": Q, "d": S})
    release = anonymize(frame, numbers, [KAnonymity(1)], algorithm="pram", pram_retain=0.0)
    assert any(n.code == "pram.numbers_as_categories" for n in release.notes)
    assert set(release.frame["age"]) <= {1, 2, 3, 4, 5}


# --------------------------------------------------------------------------- noise


def correlated_table(n: int = 20_000, seed: int = 0) -> tuple[pd.DataFrame, Schema]:
    rng = np.random.default_rng(seed)
    x = rng.multivariate_normal([50.0, 100.0], [[4.0, 3.0], [3.0, 9.0]], size=n)
    frame = pd.DataFrame({"a": x[:, 0], "b": x[:, 1], "d": rng.choice(["x", "y"], n)})
    return frame, Schema({"a": Q, "b": Q, "d": S})


def test_additive_noise_has_the_datas_covariance_times_the_level():
    """e = y − x ~ N(0, α·Σ): cov(e) ≈ 0.2·Σ (sampling error ≈ 1 % for 20,000 rows),
    cov(y) ≈ 1.2·Σ, the correlation (0.5) kept."""
    frame, schema = correlated_table()
    release = anonymize(frame, schema, [KAnonymity(2)], algorithm="noise", noise_level=0.2)
    x = frame[["a", "b"]].to_numpy()
    y = release.frame[["a", "b"]].to_numpy()
    sigma = np.cov(x, rowvar=False)
    np.testing.assert_allclose(np.cov(y - x, rowvar=False) / sigma, 0.2, rtol=0.05)
    np.testing.assert_allclose(np.cov(y, rowvar=False) / sigma, 1.2, rtol=0.03)
    assert abs(np.corrcoef(y, rowvar=False)[0, 1] - np.corrcoef(x, rowvar=False)[0, 1]) < 0.02
    np.testing.assert_allclose(release.params["covariance"], sigma, rtol=1e-12)
    assert not ALGORITHMS["noise"].enforces_models
    assert release.to_dict()["k"] == 1 and not release.satisfied
    assert any(n.code == "perturbation.not_enforced.fails" for n in release.notes)


def test_multiplicative_noise_keeps_means_and_refuses_non_positive_values():
    rng = np.random.default_rng(2)
    logs = rng.multivariate_normal([3.0, 5.0], [[0.25, 0.1], [0.1, 0.16]], size=20_000)
    frame = pd.DataFrame({"a": np.exp(logs[:, 0]), "b": np.exp(logs[:, 1]), "d": "x"})
    schema = Schema({"a": Q, "b": Q, "d": S})
    release = anonymize(
        frame, schema, [KAnonymity(1)], algorithm="noise", noise_kind="multiplicative"
    )
    ratio = release.frame[["a", "b"]].to_numpy() / frame[["a", "b"]].to_numpy()
    # E[y/x] = 1; the ratio's standard deviation is about √(e^{0.1σ²} − 1) ≈ 0.16
    assert np.abs(ratio.mean(axis=0) - 1.0).max() < 4 * 0.16 / np.sqrt(20_000)
    before = np.corrcoef(np.log(frame[["a", "b"]]), rowvar=False)[0, 1]
    after = np.corrcoef(np.log(release.frame[["a", "b"]]), rowvar=False)[0, 1]
    assert abs(before - after) < 0.02
    frame.loc[3, "a"] = 0.0
    with pytest.raises(ParameterError) as info:
        anonymize(frame, schema, [KAnonymity(1)], algorithm="noise", noise_kind="multiplicative")
    assert info.value.code == "anonymize.noise_not_positive" and info.value.params == {
        "columns": ["a"]
    }


def test_noise_leaves_missing_cells_missing():
    frame = pd.DataFrame({"a": [1.0, np.nan, 3.0, 4.0, 5.0], "b": [2, 1, 4, 3, 5], "d": "x"})
    schema = Schema({"a": Q, "b": Q, "d": S})
    release = anonymize(frame, schema, [KAnonymity(1)], algorithm="noise", seed=4)
    assert release.frame["a"].isna().tolist() == [False, True, False, False, False]
    assert release.frame["b"].notna().all() and (release.frame["b"] != frame["b"]).all()
    frame.loc[0, "a"] = np.inf
    for algorithm in ("noise", "rank_swap", "top_bottom"):
        with pytest.raises(ParameterError) as info:
            anonymize(frame, schema, [KAnonymity(1)], algorithm=algorithm)
        assert info.value.code == "anonymize.numeric_qi_infinite"
        assert info.value.params["columns"] == ["a"]


# --------------------------------------------------------------------------- rank swapping


def test_rank_swap_keeps_each_columns_values_and_moves_them_few_ranks():
    frame, schema = correlated_table(n=2000, seed=3)
    release = anonymize(frame, schema, [KAnonymity(1)], algorithm="rank_swap", swap_percent=5)
    for column in ("a", "b"):
        before, after = frame[column].to_numpy(), release.frame[column].to_numpy()
        np.testing.assert_array_equal(np.sort(before), np.sort(after))  # same multiset
        rank = np.argsort(np.argsort(before))
        source = np.searchsorted(np.sort(before), after)  # the rank each value came from
        assert np.abs(source - rank).max() <= 100  # w = ⌊5 % · 2000⌋
        assert (after != before).mean() > 0.9  # nearly every value swapped
    assert release.params["swapped"]["a"] > 1800


def test_swap_partners_are_pairs_within_the_window():
    rng = np.random.default_rng(5)
    values = rng.normal(size=101)
    source = swap_module.swap_partners(values, 10.0, rng)
    np.testing.assert_array_equal(source[source], np.arange(101))  # pairs (an involution)
    rank = np.argsort(np.argsort(values))
    assert np.abs(rank[source] - rank).max() <= 10  # w = ⌊10 % · 101⌋ = 10
    assert (source != np.arange(101)).sum() >= 90
    assert swap_module.swap_partners(np.array([1.0]), 50.0, rng).tolist() == [0]


# --------------------------------------------------------------------------- top/bottom


def test_top_bottom_coding_by_hand():
    """x = 1 … 20: the 95th percentile is 19.05, so 20 becomes '>=20'; the 5th is 1.95,
    so 1 becomes '<=1'. With percentiles 90 and 10: 18.1 and 2.9, so 19, 20 become
    '>=19' and 1, 2 '<=2'."""
    frame = pd.DataFrame({"x": np.arange(1, 21), "d": "a"})
    schema = Schema({"x": Q, "d": S})
    release = anonymize(frame, schema, [KAnonymity(1)], algorithm="top_bottom")
    assert release.frame["x"].tolist() == ["<=1", *[str(v) for v in range(2, 20)], ">=20"]
    release = anonymize(
        frame,
        schema,
        [KAnonymity(1)],
        algorithm="top_bottom",
        top_percentile=90,
        bottom_percentile=10,
    )
    expected = ["<=2", "<=2", *[str(v) for v in range(3, 19)], ">=19", ">=19"]
    assert release.frame["x"].tolist() == expected
    assert release.params["coded"]["x"] == {
        "top": ">=19",
        "top_records": 2,
        "bottom": "<=2",
        "bottom_records": 2,
    }
    assert release.to_dict()["k"] == 1
    none = anonymize(
        frame,
        schema,
        [KAnonymity(1)],
        algorithm="top_bottom",
        top_percentile=100,
        bottom_percentile=0,
    )
    assert none.frame["x"].tolist() == list(range(1, 21))  # nothing coded: numbers kept


def test_top_bottom_coding_with_decimals_missing_values_and_a_bad_range():
    frame = pd.DataFrame({"x": [0.5, 1.5, np.nan, 2.5, 99.25], "d": "a"})
    schema = Schema({"x": Q, "d": S})
    release = anonymize(
        frame,
        schema,
        [KAnonymity(1)],
        algorithm="top_bottom",
        top_percentile=80,
        bottom_percentile=20,
    )
    cells = release.frame["x"]
    assert cells.isna().tolist() == [False, False, True, False, False]
    assert cells.dropna().tolist() == ["<=0.5", "1.5", "2.5", ">=99.25"]
    with pytest.raises(ParameterError) as info:
        anonymize(frame, schema, [KAnonymity(1)], algorithm="top_bottom", bottom_percentile=96)
    assert info.value.code == "anonymize.coding_overlap"


# --------------------------------------------------------------------------- local suppression


def test_local_suppression_traced_by_hand():
    """k = 2. Unique: rows 2 (30,F,222), 3 (30,F,333), 6 (40,M,555). zip has the most
    values (least important); blanking it in rows 2, 3, 6 puts 2 and 3 together — they
    are fixed (age and sex fix nobody). Row 6 stays alone whatever is blanked: sex, then
    age follow, and it shows '*' everywhere: a suppressed row. With one row of
    suppression allowed: 2 + 3 = 5 cells. With none, the run is refused (1 record over a
    limit of 0; ⌈1000/7⌉ / 10 = 14.3 % would allow it)."""
    frame = pd.DataFrame(
        {
            "age": [30, 30, 30, 30, 40, 40, 40],
            "sex": list("FFFFMMM"),
            "zip": ["111", "111", "222", "333", "444", "444", "555"],
            "d": list("abcabca"),
        }
    )
    schema = Schema({"age": Q, "sex": Q, "zip": Q, "d": S})
    release = anonymize(
        frame, schema, [KAnonymity(2)], algorithm="local_suppression", max_suppression=1 / 7
    )
    shown = release.frame[["age", "sex", "zip"]].astype(str).agg(",".join, axis=1).tolist()
    assert shown == [
        "30,F,111",
        "30,F,111",
        "30,F,*",
        "30,F,*",
        "40,M,444",
        "40,M,444",
        "*,*,*",
    ]
    assert release.params["cells"] == 5 and release.params["suppressed_cells"] == {
        "age": 1,
        "sex": 1,
        "zip": 3,
    }
    assert release.n_suppressed == 1 and release.to_dict()["k"] == 2 and release.satisfied
    with pytest.raises(InfeasibleError) as info:
        anonymize(frame, schema, [KAnonymity(2)], algorithm="local_suppression")
    assert info.value.code == "anonymize.suppression_over_limit"
    assert (info.value.params["suppressed"], info.value.params["needed"]) == (1, "14.3")


def test_local_suppression_blanks_far_fewer_cells_than_rows_on_adult():
    """Adult, 4 QIs, k = 5: every class reaches 5 by blanking single cells but for three
    records, blanked in every QI — suppressed rows, so a limit of 0 refuses the run and
    one of 0.1 % (5 records) allows it; the cells blanked are fewer than the cells of
    the records that violate at first."""
    dataset, _ = load_sample("adult")
    frame = dataset.frame.head(5000)
    qi = ["age", "sex", "race", "marital-status"]
    schema = Schema({**dict.fromkeys(qi, Q), "occupation": S})
    with pytest.raises(InfeasibleError) as info:
        anonymize(frame, schema, [KAnonymity(5)], algorithm="local_suppression")
    assert (info.value.params["suppressed"], info.value.params["needed"]) == (3, "0.1")
    release = anonymize(
        frame, schema, [KAnonymity(5)], algorithm="local_suppression", max_suppression=0.001
    )
    assert release.to_dict()["k"] >= 5 and release.satisfied and release.n_suppressed == 3
    sizes = frame.groupby(qi).size()
    violating = int(sizes[sizes < 5].sum())
    assert 0 < release.params["cells"] < violating * len(qi) / 2


# --------------------------------------------------------------------------- shared


@pytest.mark.parametrize("algorithm", PERTURBATIVE)
def test_every_method_refuses_a_frequency_set_and_keeps_the_rows(algorithm):
    frame, schema = correlated_table(n=60, seed=1)
    frame["kind"] = np.where(frame["a"] > 50, "high", "low")
    schema = Schema({"a": Q, "b": Q, "kind": Q, "d": S})
    with pytest.raises(InfeasibleError) as info:
        anonymize(frame, schema, [KAnonymity(2)], algorithm=algorithm, weights=np.full(60, 2))
    assert info.value.code == "anonymize.needs_records"
    release = anonymize(frame, schema, [KAnonymity(2)], algorithm=algorithm, max_suppression=0.1)
    assert len(release.frame) == 60 and list(release.frame.index) == list(frame.index)
    assert release.frame["d"].tolist() == frame["d"].tolist()
    assert release.params["enforces_models"] == ALGORITHMS[algorithm].enforces_models
    json.dumps(release.to_dict())  # the report is JSON
    # a method that suppresses nothing says that the suppression limit went unused
    said = "perturbation.no_suppression" in [note.code for note in release.notes]
    assert said == (not ALGORITHMS[algorithm].enforces_models)


@pytest.mark.parametrize(
    ("algorithm", "option", "value"),
    [
        ("noise", "noise_level", 0.0),
        ("noise", "noise_level", "a lot"),
        ("noise", "noise_kind", "quadratic"),
        ("rank_swap", "swap_percent", 101),
        ("pram", "pram_retain", -0.1),
        ("pram", "pram_alpha", float("nan")),
        ("top_bottom", "top_percentile", 0),
        ("top_bottom", "bottom_percentile", 100),
    ],
)
def test_options_out_of_range_are_refused(algorithm, option, value):
    frame, schema = correlated_table(n=20)
    with pytest.raises(ParameterError) as info:
        anonymize(frame, schema, [KAnonymity(1)], algorithm=algorithm, **{option: value})
    assert info.value.code == "parameter.invalid" and info.value.params["option"] == option


def test_the_request_carries_the_options_and_a_spec_replays_them():
    request = AnonymizeRequest(algorithm="noise", qi=("a", "b"), sa=("d",), noise_level=0.3)
    assert request.options() == {"noise_level": 0.3, "noise_kind": "additive"}
    with pytest.raises(ParameterError):
        AnonymizeRequest(algorithm="rank_swap", swap_percent=0)
    frame, schema = correlated_table(n=200)
    for algorithm, options in (
        ("noise", {"noise_level": 0.3, "noise_kind": "additive"}),
        ("rank_swap", {"swap_percent": 20.0}),
        ("top_bottom", {"top_percentile": 80.0, "bottom_percentile": 0.0}),
    ):
        made = anonymize(frame, schema, [KAnonymity(1)], algorithm=algorithm, seed=9, **options)
        assert made.spec()["options"] == options
        again = reproduce(frame, json.loads(made.spec_json()))
        pd.testing.assert_frame_equal(again.frame, made.frame)


# --------------------------------------------------------------------------- utility


def test_utility_by_hand():
    """x = 0,1,2,3 → 0,1,3,3; y = 1,3,2,5 (one released as '>=2', read as 2). OLS of y on
    x before: slope Sxy/Sxx = 5.5/5 = 1.1, intercept 2.75 − 1.1·1.5 = 1.1, RSS 2.7,
    TSS 8.75, R² = 0.691429, se(slope) = √(1.35/5) = 0.519615, interval ±4.302653·se.
    After: slope 4.75/6.75 = 0.703704, intercept 1.518519."""
    original = pd.DataFrame({"x": [0, 1, 2, 3], "y": [1, 3, 2, 5], "c": list("abab")})
    release = pd.DataFrame({"x": [0, 1, 3, 3], "y": ["1", "3", ">=2", "5"], "c": list("aaab")})
    out = perturbation_utility(original, release, ["x", "y"], "y", categorical_columns=["c"])
    assert out["numeric"]["x"] == {
        "compared": 4,
        "mean_absolute_change": 0.25,
        "mean_relative_change": pytest.approx(1 / 6),  # |3 − 2|/2 over the 3 non-zero x
        "changed_share": 0.25,
    }
    assert out["numeric"]["y"]["mean_absolute_change"] == 0.0
    assert out["categorical"]["c"]["changed_share"] == 0.25
    before, after = out["regression"]["original"], out["regression"]["released"]
    assert before["coefficients"] == pytest.approx({"intercept": 1.1, "x": 1.1})
    assert before["r2"] == pytest.approx(1 - 2.7 / 8.75)
    assert before["standard_errors"]["x"] == pytest.approx(np.sqrt(0.27))
    assert before["intervals"]["x"] == pytest.approx(
        [1.1 - 4.302653 * np.sqrt(0.27), 1.1 + 4.302653 * np.sqrt(0.27)], abs=1e-5
    )
    assert after["coefficients"] == pytest.approx({"intercept": 41 / 27, "x": 19 / 27})
    lo_o, hi_o = before["intervals"]["x"]
    lo_r, hi_r = after["intervals"]["x"]
    shared = min(hi_o, hi_r) - max(lo_o, lo_r)
    expected = 0.5 * shared / (hi_o - lo_o) + 0.5 * shared / (hi_r - lo_r)
    assert out["regression"]["interval_overlap"]["x"] == pytest.approx(expected)
    r_before = np.corrcoef([0, 1, 2, 3], [1, 3, 2, 5])[0, 1]
    r_after = np.corrcoef([0, 1, 3, 3], [1, 3, 2, 5])[0, 1]
    assert out["correlation"]["max_abs_difference"] == pytest.approx(abs(r_after - r_before))


def test_interval_overlap_and_numeric_cells():
    assert interval_overlap([0, 2], [0, 2]) == 1.0
    assert interval_overlap([0, 2], [1, 3]) == 0.5
    assert interval_overlap([0, 1], [1, 2]) == 0.0
    assert interval_overlap([0, 1], [2, 3]) == -1.0  # disjoint: negative, the gap
    assert interval_overlap([1, 1], [0, 2]) is None
    cells = pd.Series([">=20", "<=1.5", "7", "*", None, "[20-30)", "-3e2"], dtype="str")
    read = numeric_cells(cells)
    np.testing.assert_array_equal(np.isnan(read), [0, 0, 0, 1, 1, 1, 0])
    assert read[[0, 1, 2, 6]].tolist() == [20.0, 1.5, 7.0, -300.0]


def test_utility_refuses_tables_that_do_not_pair():
    original = pd.DataFrame({"x": [1, 2, 3], "y": [1, 2, 4]})
    with pytest.raises(ParameterError) as info:
        perturbation_utility(original, original.head(2), ["x"])
    assert info.value.code == "utility.rows_differ"
    with pytest.raises(ParameterError) as info:
        perturbation_utility(original, original, ["x"], target="y")
    assert info.value.code == "utility.bad_target"


def test_utility_of_noise_on_a_correlated_table():
    """Additive noise at level 0.1 keeps the correlation (0.5) within sampling error
    and the regression's intervals overlap."""
    frame, schema = correlated_table(n=5000)
    release = anonymize(frame, schema, [KAnonymity(1)], algorithm="noise", noise_level=0.1)
    out = perturbation_utility(frame, release.frame, ["a", "b"], "b")
    assert out["correlation"]["max_abs_difference"] < 0.03
    assert out["regression"]["mean_interval_overlap"] > 0.0
    assert 0.0 < out["numeric"]["a"]["mean_absolute_change"] < 1.0  # sd of noise ≈ 0.63


@pytest.mark.parametrize("algorithm", PERTURBATIVE)
def test_every_perturbed_release_reports_its_utility(algorithm):
    frame, _ = correlated_table(n=60, seed=2)
    frame["kind"] = np.where(frame["a"] > 50, "high", "low")
    schema = Schema({"a": Q, "b": Q, "kind": Q, "d": S})
    release = anonymize(frame, schema, [KAnonymity(2)], algorithm=algorithm)
    utility = release.to_dict()["utility"]
    assert set(utility["numeric"]) == {"a", "b"} and set(utility["categorical"]) == {"kind"}
    # the figures are those of the function on the released table
    assert utility == perturbation_utility(
        frame, release.frame, ["a", "b"], target="a", categorical_columns=["kind"]
    )
    # local suppression may blank so many numeric cells that no regression can be fitted
    if algorithm != "local_suppression":
        assert utility["regression"]["target"] == "a"


def test_a_generalization_reports_no_perturbation_utility():
    frame, _ = correlated_table(n=60, seed=2)
    schema = Schema({"a": Q, "b": Q, "d": S})
    release = anonymize(frame, schema, [KAnonymity(2)], algorithm="mondrian")
    assert "utility" not in release.to_dict()


def test_a_perfect_fit_has_intervals_of_no_width():
    """y = 1000 on every row (a constant target) and y = 2 + 3x: both are fitted
    exactly, the residuals of rounding size count as none, so every interval is a point
    and has no overlap (None), instead of a width of 1e-13 that made J of order −10¹¹."""
    from privcore.measure.utility import ols

    x = np.array([[18.0, 40.0], [18.0, 40.0], [18.0, 41.0], [19.0, 45.0], [18.0, 40.0]])
    constant = ols(np.full(5, 1000.0), x, ["age", "weight"])
    assert all(low == high for low, high in constant["intervals"].values())
    line = ols(2.0 + 3.0 * x[:, 1], x[:, 1:], ["weight"])
    assert line["coefficients"]["weight"] == pytest.approx(3.0)
    assert all(low == high for low, high in line["intervals"].values())
    assert interval_overlap(constant["intervals"]["age"], [0.0, 1.0]) is None


def test_a_perturbed_release_carries_its_population_level_risk():
    """``population_risk`` is the estimators' own figures on the released QIs at the
    voter roll's sampling fraction (1/10); a generalization has none."""
    from privcore.anonymize import anonymize
    from privcore.data import load_sample
    from privcore.measure.population import individual_risk, population_uniqueness
    from privcore.measure.suda2 import suda2
    from privcore.models import KAnonymity

    dataset, schema = load_sample("adult")
    frame = dataset.frame.head(3000)
    release = anonymize(frame, schema, [KAnonymity(5)], algorithm="noise", noise_level=0.2)
    figures = release.to_dict()["population_risk"]
    qi = list(release.qi)
    released = release.frame
    assert figures["sampling_fraction"] == 0.1
    unique = population_uniqueness(released, qi, sampling_fraction=0.1)
    assert figures["population_uniqueness"] == {
        "model": unique.model,
        "share": unique.share,
        "count": unique.count,
    }
    expected = individual_risk(released, qi, sampling_fraction=0.1)
    assert figures["individual_risk"]["expected_reidentifications"] == pytest.approx(
        expected.expected_reidentifications
    )
    assert figures["individual_risk"]["max"] == pytest.approx(expected.max)
    assert figures["suda2"]["special_uniques"] == suda2(released, qi).special_uniques
    assert figures["suda2"]["sample_uniques"] > 0  # noise leaves records unique
    generalized = anonymize(frame, schema, [KAnonymity(5)], algorithm="samarati")
    assert "population_risk" not in generalized.to_dict()
