"""Property tests of privcore.measure (hypothesis): bounds and identities that must hold
for every small table and every generalization of it (SPEC §3, ARCHITECTURE testing
layer 2)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from privcore.measure import (
    align,
    conditional_entropy,
    discrimination_rate,
    entropy,
    local_privacy_level,
    mutual_information,
    pl_matrix,
    privacy_level,
    utility_loss,
)

COLUMNS = ["q1", "q2", "s1", "s2"]
QI, SA = ["q1", "q2"], ["s1", "s2"]
DOMAIN = 5  # values 0..4 per column
TOL = 1e-9


@st.composite
def tables(draw, min_rows: int = 1, max_rows: int = 30) -> pd.DataFrame:
    n = draw(st.integers(min_rows, max_rows))
    column = st.lists(st.integers(0, DOMAIN - 1), min_size=n, max_size=n)
    return pd.DataFrame({c: draw(column) for c in COLUMNS})


@st.composite
def generalized(draw) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A table and a generalization of it: each column goes through its own map from
    values to groups (a coarsening; mapping everything to one group is suppression),
    rendered as text labels like a release would."""
    original = draw(tables())
    release = pd.DataFrame(index=original.index)
    for c in COLUMNS:
        groups = draw(st.lists(st.integers(0, DOMAIN - 1), min_size=DOMAIN, max_size=DOMAIN))
        labels = np.array([f"g{g}" for g in groups], dtype=object)
        release[c] = labels[original[c].to_numpy()]
    return original, release


def _between_0_and_1(x: float) -> bool:
    return -TOL <= x <= 1 + TOL


@settings(max_examples=150, deadline=None)
@given(generalized())
def test_pl_dr_ul_in_unit_interval_for_any_generalization(pair):
    original, release = pair
    pl = privacy_level(original, release, QI, SA)
    assert _between_0_and_1(pl.value)
    assert _between_0_and_1(pl.dr) and _between_0_and_1(pl.information)
    assert pl.meaningful  # a generalization never adds entropy
    assert math.isclose(pl.value, pl.dr * pl.information, abs_tol=1e-12)
    assert _between_0_and_1(discrimination_rate(release, QI, SA))
    assert _between_0_and_1(utility_loss(original, release, QI, SA))
    for target, known in [(["q1"], ["q2"]), (["s1"], QI), (["s2", "q1"], ["s1"])]:
        local = local_privacy_level(original, release, target, known)
        assert _between_0_and_1(local.value)
        assert math.isclose(local.value, local.dr * local.information, abs_tol=1e-12)
    matrix = pl_matrix(original, {"r": release}, QI, SA)
    assert ((matrix.to_numpy() >= -TOL) & (matrix.to_numpy() <= 1 + TOL)).all()


@settings(max_examples=100, deadline=None)
@given(tables(), tables())
def test_pl_is_dr_times_information_for_any_release(original, other):
    # Any table of the same length, even one with more entropy, keeps PL = DR · information.
    n = min(len(original), len(other))
    original, release = original.iloc[:n], other.iloc[:n]
    pl = privacy_level(original, release, QI, SA)
    assert math.isclose(pl.value, pl.dr * pl.information, abs_tol=1e-12)
    assert _between_0_and_1(pl.value)
    # flagged only where one value per row (and more than the original's) is released
    distinct = original[SA].drop_duplicates().shape[0]
    released = release[SA].drop_duplicates().shape[0]
    degenerate = released >= 0.9 * n and released > distinct
    assert pl.meaningful == (not degenerate)


@settings(max_examples=150, deadline=None)
@given(tables())
def test_mutual_information_symmetric_and_bounded(table):
    x, y = table[["q1", "s1"]], table["q2"]
    i_xy, i_yx = mutual_information(x, y), mutual_information(y, x)
    assert math.isclose(i_xy, i_yx, abs_tol=1e-9)
    assert -TOL <= i_xy <= min(entropy(x), entropy(y)) + TOL
    # identities: I(X;X) = H(X) and H(X|Y) = H(X) − I(X;Y)
    assert math.isclose(mutual_information(x, x), entropy(x), abs_tol=1e-9)
    h_cond = conditional_entropy(table, ["q1", "s1"], ["q2"])
    assert math.isclose(h_cond, entropy(x) - i_xy, abs_tol=1e-9)


@settings(max_examples=100, deadline=None)
@given(tables())
def test_entropy_matches_a_direct_count(table):
    # −Σ p log2 p from pandas' own group counts
    counts = table.groupby(["q1", "s2"]).size().to_numpy(dtype=float)
    p = counts / counts.sum()
    assert math.isclose(entropy(table, ["q1", "s2"]), float(-(p * np.log2(p)).sum()), abs_tol=1e-9)
    assert -TOL <= entropy(table, ["q1"]) <= math.log2(len(table)) + TOL


@settings(max_examples=50, deadline=None)
@given(generalized(), st.randoms(use_true_random=False))
def test_align_by_key_undoes_a_shuffle(pair, rnd):
    original, release = pair
    original = original.assign(key=range(len(original)))
    release = release.assign(key=range(len(release)))
    order = list(range(len(release)))
    rnd.shuffle(order)
    a, b = align(original, release.iloc[order], key="key")
    pd.testing.assert_frame_equal(b, release.reset_index(drop=True))
    assert math.isclose(
        privacy_level(a, b, QI, SA).value, privacy_level(original, release, QI, SA).value
    )
