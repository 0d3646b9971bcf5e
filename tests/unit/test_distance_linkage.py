"""Distance-based record linkage and interval disclosure, against hand-computed values."""

import numpy as np
import pandas as pd
import pytest

from privcore.attacks.distance_linkage import distance_linkage, interval_disclosure, wilson

ORIGINAL = pd.DataFrame({"x": [0, 1, 2, 10], "c": ["a", "a", "b", "b"]})
OWN = np.arange(4)


def _link(release, targets=ORIGINAL, records=OWN):
    return distance_linkage(release, targets, records, ["x", "c"], ["x"], original=ORIGINAL)


def test_group_means_tie_every_member_so_nobody_is_certain():
    release = pd.DataFrame({"x": [0.5, 0.5, 6.0, 6.0], "c": ["a", "a", "b", "b"]})
    out = _link(release)
    assert out["reidentified"] == 0 and out["share"] == 0.0
    assert out["linked_to_own"] == 4  # each finds the group holding their own record
    assert out["expected"] == pytest.approx(2.0)  # a guess among two: ½ each
    assert out["expected_share"] == pytest.approx(0.5)
    low, high = out["linked_interval"]
    assert low == pytest.approx(0.51010, abs=1e-4) and high == pytest.approx(1.0)
    low, high = wilson(2, 4)
    assert (low, high) == (pytest.approx(0.15003, abs=1e-4), pytest.approx(0.84997, abs=1e-4))


def test_small_noise_leaves_every_record_nearest_to_its_own():
    release = pd.DataFrame({"x": [0.4, 0.6, 5.0, 9.0], "c": ["a", "a", "b", "b"]})
    out = _link(release)
    assert out["reidentified"] == 4 and out["share"] == 1.0


def test_categories_must_be_equal_and_a_changed_category_is_out_of_reach():
    release = pd.DataFrame({"x": [0.4, 0.6, 5.0, 9.0], "c": ["a", "a", "b", "b"]})
    targets = pd.DataFrame({"x": [6], "c": ["a"]})  # nearest number is row 2, but it is "b"
    out = distance_linkage(release, targets, np.array([1]), ["x", "c"], ["x"], original=ORIGINAL)
    assert out["reidentified"] == 1  # row 1 (0.6) is the nearest "a"
    swapped = release.assign(c=["b", "a", "b", "b"])  # record 0's category changed
    out = _link(swapped)
    assert out["unreachable"] == 0
    # target 0 (a, 0) reaches only row 1 (a, 0.6): not their own; target 2 (b, 2) is now
    # nearest to row 0 (b, 0.4), not to its own row 2 (b, 5); targets 1 and 3 stay linked
    assert out["reidentified"] == 2


def test_people_outside_the_data_set_are_never_reidentified():
    release = pd.DataFrame({"x": [0.4, 0.6, 5.0, 9.0], "c": ["a", "a", "b", "b"]})
    out = _link(release, records=np.array([0, -1, 2, -1]))
    assert out["targets"] == 2
    assert out["reidentified"] == 2


def test_a_frequency_set_gives_the_figures_of_the_expanded_tables():
    release = pd.DataFrame({"x": [0.5, 6.0, 9.0], "c": ["a", "b", "b"]})
    original = pd.DataFrame({"x": [0, 2, 10], "c": ["a", "b", "b"]})
    weights = np.array([2, 1, 1])  # row 0 stands for two records
    targets = pd.DataFrame({"x": [0, 2, 10], "c": ["a", "b", "b"]})
    counts = np.array([2, 1, 1])
    weighted = distance_linkage(
        release,
        targets,
        np.arange(3),
        ["x", "c"],
        ["x"],
        original=original,
        weights=weights,
        counts=counts,
    )
    expanded_release = release.iloc[[0, 0, 1, 2]].reset_index(drop=True)
    expanded_original = original.iloc[[0, 0, 1, 2]].reset_index(drop=True)
    expanded = distance_linkage(
        expanded_release,
        expanded_original,
        np.arange(4),
        ["x", "c"],
        ["x"],
        original=expanded_original,
    )
    for name in ("targets", "reidentified", "linked_to_own", "expected", "unreachable"):
        assert weighted[name] == pytest.approx(expanded[name]), name
    assert weighted["reidentified"] == 2 and weighted["expected"] == pytest.approx(3.0)


def test_interval_disclosure_by_hand():
    release = pd.DataFrame({"x": [0.4, 0.6, 5.0, 9.0]})
    # S = √(62.75/3) = 4.5735; 0.1·S = 0.457: |0−0.4|, |1−0.6| within; 3 and 1 not
    out = interval_disclosure(ORIGINAL, release, ["x"], within=0.1)
    assert out["disclosed"] == 2
    assert out["share"] == pytest.approx(0.5)
    assert interval_disclosure(ORIGINAL, release, ["x"], within=0.05)["disclosed"] == 0


def test_wilson_interval():
    assert wilson(0, 0) == (0.0, 1.0)
    low, high = wilson(10, 10)
    assert high == pytest.approx(1.0) and low == pytest.approx(0.72246, abs=1e-4)


def test_tied_records_count_every_tie_beyond_the_first_neighbours_read():
    """Ties counted in records: ten distinct points at distance 1 from the origin (more
    than are read at once, so the ball query counts them), weights summed; a query with
    one nearest point and the duplicates of a joint frequency set merged first."""
    from scipy.spatial import cKDTree

    from privcore.attacks.distance_linkage import _TIES_AT_ONCE, _nearest_own, _tied_records

    axes = np.vstack([np.eye(5), -np.eye(5)])  # ±e_i: 10 points at distance 1
    points = np.vstack([axes, [[3.0, 0, 0, 0, 0]]])
    counts = np.arange(1.0, len(points) + 1)
    tree = cKDTree(points)
    queries = np.array([[0.0] * 5, [3.1, 0, 0, 0, 0]])
    radius = np.array([1.0 + 1e-9, 0.1 + 1e-9])
    assert len(axes) > _TIES_AT_ONCE
    tied = _tied_records(tree, queries, radius, counts)
    assert tied.tolist() == [counts[:10].sum(), counts[10]]  # 55 and 11, by hand
    # the same released point twice (two original rows paired with it): one tie, 2 records
    doubled = np.array([[0.0, 0.0], [0.0, 0.0], [5.0, 5.0]])
    chance, linked, unique_own = _nearest_own(
        doubled, np.array([[0.0, 0.0]]), np.array([True]), np.array([0]), None
    )
    assert chance.tolist() == [0.5] and linked.tolist() == [True]
    assert unique_own.tolist() == [False]
