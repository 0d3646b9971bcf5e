"""Condensation (Aggarwal & Yu 2004; SPEC §4): groups of ≥ k, exact group means,
covariance preserved within its sampling error, synthetic release."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import pytest

from privcore.anonymize.condensation import condensation, synthesize_group
from privcore.data.samples import load_sample
from privcore.data.schema import Schema
from privcore.errors import CancelledError, InfeasibleError, ParameterError
from privcore.models import (
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    RecursiveCLDiversity,
    TCloseness,
)

Q, S, ID, N = "quasi_identifier", "sensitive", "identifier", "insensitive"
NUMERIC = ["age", "income", "height"]


def table(n: int = 1000, d: int = 2, seed: int = 0):
    """d correlated numeric QIs (one integer), a categorical QI, an identifier, two
    sensitive and one insensitive column."""
    rng = np.random.default_rng(seed)
    cov = np.full((d, d), 0.6) + 0.4 * np.eye(d)
    x = rng.multivariate_normal(np.zeros(d), cov, size=n) * [12, 9000, 8][:d] + [40, 30000, 170][:d]
    frame = pd.DataFrame({NUMERIC[j]: x[:, j] for j in range(d)})
    frame["age"] = np.rint(frame["age"]).astype(np.int64)
    frame["sex"] = rng.choice(["F", "M"], n)
    frame["name"] = [f"person {i}" for i in range(n)]
    frame["disease"] = rng.choice(["flu", "ulcer", "asthma", "cancer"], n)
    frame["salary"] = rng.integers(1, 20, n) * 1000
    frame["note"] = rng.choice(["x", "y", "z"], n)
    roles = {**{c: Q for c in NUMERIC[:d]}, "sex": Q, "name": ID, "disease": S, "salary": S}
    roles["note"] = N
    return frame, Schema(roles)


def groups(release) -> list[np.ndarray]:
    ids = release.class_ids
    return [np.flatnonzero(ids == g) for g in range(int(ids.max()) + 1)]


# --------------------------------------------------------------------------- guarantees


@pytest.mark.parametrize(("n", "k"), [(1000, 5), (1003, 7), (50, 50), (20, 1)])
def test_groups_rows_and_means(n, k):
    frame, schema = table(n)
    release = condensation(frame, schema, [KAnonymity(k)], seed=3)
    assert len(release.frame) == n
    assert list(release.frame.index) == list(frame.index)
    sizes = np.bincount(release.class_ids)
    assert sizes.min() >= k
    assert sizes.sum() == n
    assert release.params["groups"] == len(sizes)
    numeric = ["age", "income"]
    for rows in groups(release):
        original = frame[numeric].to_numpy(float)[rows].mean(axis=0)
        synthetic = release.frame[numeric].to_numpy(float)[rows].mean(axis=0)
        np.testing.assert_allclose(synthetic, original, rtol=0, atol=1e-9)


def test_k1_returns_every_record_as_it_is():
    frame, schema = table(30)
    release = condensation(frame, schema, [KAnonymity(1)])
    np.testing.assert_allclose(release.frame["income"], frame["income"])
    np.testing.assert_allclose(release.frame["age"], frame["age"])


def test_other_columns_are_permuted_within_groups():
    frame, schema = table(600)
    release = condensation(frame, schema, [KAnonymity(10)], seed=5)
    assert "name" not in release.frame.columns
    assert release.removed == ("name",)
    for rows in groups(release):
        for column in ("sex", "disease", "salary", "note"):
            assert sorted(release.frame[column].iloc[rows]) == sorted(frame[column].iloc[rows])
        # SAs and insensitive columns move together: their combinations are kept.
        before = frame[["disease", "note"]].iloc[rows].itertuples(index=False)
        after = release.frame[["disease", "note"]].iloc[rows].itertuples(index=False)
        assert sorted(after) == sorted(before)
    # ... and a record's sensitive value is no longer tied to it (most rows move).
    assert (release.frame["disease"] != frame["disease"]).mean() > 0.3


def test_covariance_preserved_within_sampling_error():
    """Relative Frobenius error ‖S − C‖_F/‖C‖_F of each group (S, C: sample covariances
    of the synthetic and original records). For g records drawn uniformly along the
    eigenvectors (variance λ_i), its root mean square is about
    √(((Σλ)² − 0.2·Σλ²)/((g − 1)·Σλ²)) ≤ √((d − 0.2)/(g − 1)) (uniform coordinates have
    kurtosis 1.8: Var S_ii ≈ 0.8·λ_i²/g, Var S_ij ≈ λ_iλ_j/g); its mean is below
    that. We check the mean over groups of error/bound < 1.5 (about 0.9 is observed;
    its standard error over 80 groups is about 0.05), and the mean error against the
    worst-case bound, also times 1.5: 0.29 for d = 2, g = 50; 0.09 for g = 500."""
    for d, k in ((2, 50), (3, 50), (2, 500)):
        frame, schema = table(4000, d=d, seed=d)
        release = condensation(frame, schema, [KAnonymity(k)], seed=11)
        numeric = NUMERIC[:d]
        original = frame[numeric].to_numpy(float)
        synthetic = release.frame[numeric].to_numpy(float)
        errors, ratios = [], []
        for rows in groups(release):
            c = np.cov(original[rows], rowvar=False)
            s = np.cov(synthetic[rows], rowvar=False)
            lam = np.linalg.eigvalsh(c)
            g = len(rows)
            bound = np.sqrt((lam.sum() ** 2 - 0.2 * (lam**2).sum()) / ((g - 1) * (lam**2).sum()))
            error = np.linalg.norm(s - c) / np.linalg.norm(c)
            errors.append(error)
            ratios.append(error / bound)
        assert np.mean(ratios) < 1.5, (d, k, np.mean(ratios))
        assert np.mean(errors) < 1.5 * np.sqrt((d - 0.2) / (k - 1)), (d, k, np.mean(errors))


def test_synthesize_group_statistics():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(20_000, 2)) @ np.array([[2.0, 0.0], [1.5, 0.5]]) + [3.0, -1.0]
    y = synthesize_group(x, np.random.default_rng(1))
    np.testing.assert_allclose(y.mean(axis=0), x.mean(axis=0), atol=1e-12)
    np.testing.assert_allclose(np.cov(y, rowvar=False), np.cov(x, rowvar=False), rtol=0.05)
    # Along each eigenvector the coordinates are uniform on ±√(3λ).
    lam, vectors = np.linalg.eigh(np.cov(x, rowvar=False))
    coordinates = (y - y.mean(axis=0)) @ vectors
    assert np.all(np.abs(coordinates) <= np.sqrt(3 * lam) * 1.01)


def test_release_is_marked_synthetic():
    frame, schema = table(200)
    release = condensation(frame, schema, [KAnonymity(5)])
    assert release.synthetic
    assert release.algorithm == "condensation"
    assert release.node is None
    assert not release.suppressed.any()
    assert any("synthetic" in note and "condensation groups" in note for note in release.notes)
    assert release.frame["age"].dtype == np.float64  # an integer QI stays float
    assert release.to_dict()["synthetic"] is True


def test_deterministic_per_seed():
    frame, schema = table(300)
    a = condensation(frame, schema, [KAnonymity(6)], seed=4)
    b = condensation(frame, schema, [KAnonymity(6)], seed=4)
    c = condensation(frame, schema, [KAnonymity(6)], seed=5)
    pd.testing.assert_frame_equal(a.frame, b.frame)
    assert np.array_equal(a.class_ids, b.class_ids)
    assert not a.frame["income"].equals(c.frame["income"])


def test_hospital():
    dataset, schema = load_sample("hospital")
    release = condensation(dataset.frame, schema, [KAnonymity(3)])
    assert np.bincount(release.class_ids).tolist() == [3, 3, 3]


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    "model",
    [
        DistinctLDiversity(3),
        EntropyLDiversity(3.0),
        RecursiveCLDiversity(2.0, 2),
        TCloseness(0.15),
        TCloseness(0.2, "ordered", ("salary",)),
    ],
)
def test_l_diversity_and_t_closeness_hold_for_the_groups(model):
    """Failing groups join their nearest group until every group meets the model; the
    sensitive values of each group are its original rows' values, permuted."""
    frame, schema = table(400)
    k_only = condensation(frame, schema, [KAnonymity(5)], seed=2)
    release = condensation(frame, schema, [KAnonymity(5), model], seed=2)
    assert release.satisfied and release.params["groups_satisfy"]
    assert release.params["merges"] > 0
    assert release.params["groups"] == k_only.params["groups"] - release.params["merges"]
    assert np.bincount(release.class_ids).min() >= 5
    for rows in groups(release):
        for column in ("disease", "salary"):
            released = sorted(release.frame[column].to_numpy()[rows])
            assert released == sorted(frame[column].to_numpy()[rows])
        group = frame.iloc[rows]
        if isinstance(model, DistinctLDiversity):
            assert group["disease"].nunique() >= 3 and group["salary"].nunique() >= 3
        if isinstance(model, TCloseness) and model.distance == "equal":
            for column in ("disease", "salary"):
                p = group[column].value_counts(normalize=True)
                q = frame[column].value_counts(normalize=True)
                gap = 0.5 * p.reindex(q.index, fill_value=0.0).sub(q).abs().sum()
                assert gap <= 0.15 + 1e-12


def test_merging_by_hand():
    """Six records, k = 2: condensation groups {40, 41}, {50, 51}, {60, 61} (nearest
    neighbours); the first two hold only flu. Distinct 2-diversity: the smallest
    failing group {40, 41} joins the nearest group by mean (45.5 vs 50.5: {50, 51},
    also all flu), and the merged {40, 41, 50, 51} still fails; it then joins {60, 61}:
    one group of six. With the SA of row 2 changed to asthma only one merge is needed."""
    frame = pd.DataFrame(
        {
            "age": [40, 41, 50, 51, 60, 61],
            "disease": ["flu", "flu", "flu", "flu", "ulcer", "cancer"],
        }
    )
    schema = Schema({"age": Q, "disease": S})
    release = condensation(frame, schema, [KAnonymity(2), DistinctLDiversity(2)], seed=0)
    assert release.params["merges"] == 2 and release.params["groups"] == 1
    frame.loc[2, "disease"] = "asthma"
    release = condensation(frame, schema, [KAnonymity(2), DistinctLDiversity(2)], seed=0)
    assert release.params["merges"] == 1 and release.params["groups"] == 2
    assert sorted(r.tolist() for r in groups(release)) == [[0, 1, 2, 3], [4, 5]]


def test_infeasible_when_the_whole_table_fails():
    frame, schema = table(60)
    with pytest.raises(InfeasibleError) as info:
        condensation(frame, schema, [KAnonymity(5), EntropyLDiversity(3.99)], seed=0)
    assert "whole table" in info.value.message and "Condensation" in info.value.message


def test_needs_a_numeric_qi():
    frame, schema = table(100)
    schema = schema.with_role("age", N).with_role("income", N)
    with pytest.raises(ParameterError) as info:
        condensation(frame, schema, [KAnonymity(5)])
    assert "numeric quasi-identifier" in info.value.message


def test_missing_numeric_values_are_refused():
    frame, schema = table(100)
    frame.loc[3, "income"] = np.nan
    with pytest.raises(ParameterError):
        condensation(frame, schema, [KAnonymity(5)])


def test_cancel():
    frame, schema = table(3000)

    def cancel(fraction, message):
        if fraction > 0:
            raise CancelledError("stop")

    with pytest.raises(CancelledError):
        condensation(frame, schema, [KAnonymity(5)], progress=cancel)


def test_cancel_is_heard_within_a_fraction_of_a_second():
    """Progress comes several times a second, so a cancel stops a long run quickly
    (liveness, with a generous bound)."""
    frame, schema = table(60_000, d=2)
    started = time.perf_counter()
    heard = []

    def cancel(fraction, message):
        heard.append(time.perf_counter() - started)
        if heard[-1] > 0.2:
            raise CancelledError("stop")

    with pytest.raises(CancelledError):
        condensation(frame, schema, [KAnonymity(3)], progress=cancel)
    assert time.perf_counter() - started < 5.0


def test_merge_limit_of_the_installation(monkeypatch):
    """PRIVCORE_MAX_LOCAL_RECODING_ROWS = R caps the merge loop of l-diversity and
    t-closeness: groups × failing groups ≤ R², checked before the loop. Grouping alone
    (k only) is O(n log n) and never refused."""
    frame, schema = table(400)
    models = [KAnonymity(5), DistinctLDiversity(3)]
    monkeypatch.setenv("PRIVCORE_MAX_LOCAL_RECODING_ROWS", "2")
    with pytest.raises(ParameterError) as info:
        condensation(frame, schema, models, seed=2)
    assert info.value.code == "anonymize.local_recoding_limit"
    assert "PRIVCORE_MAX_LOCAL_RECODING_ROWS" in info.value.message
    params = info.value.params
    assert params["limit"] == 2 and params["classes"] == 80
    assert params["classes"] * params["violating"] > 4
    condensation(frame, schema, [KAnonymity(5)], seed=2)  # no merge loop: no limit
    monkeypatch.setenv("PRIVCORE_MAX_LOCAL_RECODING_ROWS", "1_000")
    condensation(frame, schema, models, seed=2)
    monkeypatch.setenv("PRIVCORE_MAX_LOCAL_RECODING_ROWS", "")  # unset: no limit
    condensation(frame, schema, models, seed=2)


def test_grouping_by_hand():
    """Ages 20, 21, 22 · 50, 51, 52 · 90, 91, 92 (k = 3): a group is a drawn record and its
    2 nearest remaining ones, so whichever record is drawn, the groups are the three
    clusters. Duplicates (40 × 4, 41 × 2; k = 3): the first group holds three 40s or,
    when a 41 is drawn first, both 41s and a 40; the last three rows follow."""
    from privcore.anonymize.condensation import condensation_groups

    z = np.array([[20.0], [21.0], [22.0], [50.0], [51.0], [52.0], [90.0], [91.0], [92.0]])
    ties = np.array([[40.0]] * 4 + [[41.0]] * 2)
    for seed in range(8):
        group = condensation_groups(z, 3, np.random.default_rng(seed))
        members = sorted(sorted(np.flatnonzero(group == g).tolist()) for g in set(group))
        assert members == [[0, 1, 2], [3, 4, 5], [6, 7, 8]]
        group = condensation_groups(ties, 3, np.random.default_rng(seed))
        assert np.bincount(group).tolist() == [3, 3]
        first = sorted(ties[group == 0, 0].tolist())
        assert first in ([40.0, 40.0, 40.0], [40.0, 41.0, 41.0])


def test_not_a_model_is_refused():
    frame, schema = table(50)
    with pytest.raises(ParameterError):
        condensation(frame, schema, [KAnonymity(5), "l=2"])
