"""Properties of the perturbative methods (hypothesis; SPEC §11).

- MDAV's batched, part-wise grouping equals MDAV written plainly from its definition
  (Domingo-Ferrer & Torra 2005), part by part, on continuous data;
- invariant PRAM: π·R_α = π and R_α is a transition matrix, for any shares, diagonal
  and α;
- rank swapping: a permutation made of pairs, within the rank window;
- top/bottom coding: every coded cell contains its original value (the released-cell
  grammar's reading of ``>=m`` / ``<=M``);
- every perturbative method keeps the rows, in place, and is deterministic for a seed;
  MDAV and local suppression reach the k they are asked for (or raise InfeasibleError).
"""

from __future__ import annotations

import importlib

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from privcore.anonymize import ALGORITHMS, PERTURBATIVE, anonymize
from privcore.data.cells import parse_column
from privcore.data.schema import Schema
from privcore.errors import InfeasibleError
from privcore.models import DistinctLDiversity, KAnonymity

mdav_module = importlib.import_module("privcore.anonymize.mdav")
pram_module = importlib.import_module("privcore.anonymize.pram")
swap_module = importlib.import_module("privcore.anonymize.rank_swap")

FAST = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def plain_mdav(z: np.ndarray, k: int) -> np.ndarray:
    """MDAV as the paper states it, one record list and full scans (reference)."""
    remaining = list(range(len(z)))
    group = np.full(len(z), -1)
    count = 0

    def farthest(point):
        d = ((z[remaining] - point) ** 2).sum(axis=1)
        return remaining[int(np.argmax(d))]

    def take(point):
        nonlocal remaining, count
        d = ((z[remaining] - point) ** 2).sum(axis=1)
        chosen = {remaining[i] for i in np.lexsort((np.array(remaining), d))[:k]}
        group[list(chosen)] = count
        count += 1
        remaining = [i for i in remaining if i not in chosen]

    while len(remaining) >= 3 * k:
        r = farthest(z[remaining].sum(axis=0) / len(remaining))
        s = farthest(z[r])
        take(z[r])
        take(z[s])
    if len(remaining) >= 2 * k:
        take(z[farthest(z[remaining].sum(axis=0) / len(remaining))])
    group[remaining] = count
    return group


@FAST
@given(
    seed=st.integers(0, 2**32 - 1),
    k=st.integers(2, 5),
    d=st.integers(1, 3),
    sizes=st.lists(st.integers(0, 60), min_size=1, max_size=5),
)
def test_mdav_groups_equal_the_plain_algorithm_part_by_part(seed, k, d, sizes):
    rng = np.random.default_rng(seed)
    sizes = [s + k for s in sizes]  # every part can hold a group
    part = rng.permutation(np.repeat(np.arange(len(sizes)), sizes))
    z = rng.normal(size=(len(part), d))
    groups = mdav_module.mdav_groups(z, part, k)
    offset = 0
    for p, size in enumerate(sizes):
        rows = np.flatnonzero(part == p)
        np.testing.assert_array_equal(groups[rows], plain_mdav(z[rows], k) + offset)
        offset += size // k
    counts = np.bincount(groups)
    assert counts.min() >= k and counts.max() <= 2 * k - 1


@FAST
@given(
    counts=st.lists(st.integers(1, 50), min_size=1, max_size=8),
    retain=st.floats(0.0, 1.0),
    alpha=st.floats(0.0, 1.0),
    seed=st.integers(0, 2**32 - 1),
)
def test_pram_matrix_is_invariant_for_any_parameters(counts, retain, alpha, seed):
    shares = np.array(counts, dtype=float) / sum(counts)
    diagonal = pram_module.transition_diagonal(len(counts), retain, np.random.default_rng(seed))
    matrix = pram_module.invariant_matrix(shares, diagonal, alpha)
    np.testing.assert_allclose(shares @ matrix, shares, atol=1e-12)
    np.testing.assert_allclose(matrix.sum(axis=1), 1.0, atol=1e-12)
    assert (matrix >= -1e-15).all()
    if alpha == 0.0 or len(counts) == 1:
        np.testing.assert_allclose(matrix, np.eye(len(counts)), atol=1e-15)


@FAST
@given(
    values=st.lists(st.integers(-5, 5), min_size=0, max_size=80),
    percent=st.floats(0.5, 100.0),
    seed=st.integers(0, 2**32 - 1),
)
def test_rank_swap_pairs_stay_within_the_window(values, percent, seed):
    values = np.array(values, dtype=float)
    source = swap_module.swap_partners(values, percent, np.random.default_rng(seed))
    m = len(values)
    np.testing.assert_array_equal(np.sort(source), np.arange(m))  # a permutation
    np.testing.assert_array_equal(source[source], np.arange(m))  # of pairs
    if m:
        window = max(1, int(np.floor(percent / 100 * m)))
        ranks = np.argsort(np.argsort(values, kind="stable"), kind="stable")
        # equal values may take any of their ranks: compare the values' rank ranges
        low = np.searchsorted(np.sort(values), values, side="left")
        high = np.searchsorted(np.sort(values), values, side="right") - 1
        moved = source != np.arange(m)
        gap = np.maximum(low[source] - high, low - high[source])
        assert (gap[moved] <= window).all(), (ranks, source)


@FAST
@given(
    values=st.lists(
        st.one_of(st.none(), st.floats(-1e6, 1e6, allow_nan=False)), min_size=2, max_size=40
    ),
    top=st.floats(50.0, 100.0),
    bottom=st.floats(0.0, 49.0),
)
def test_top_bottom_cells_contain_their_originals(values, top, bottom):
    frame = pd.DataFrame({"x": pd.Series(values, dtype=float), "d": "a"})
    schema = Schema({"x": "quasi_identifier", "d": "sensitive"})
    release = anonymize(
        frame,
        schema,
        [KAnonymity(1)],
        algorithm="top_bottom",
        top_percentile=top,
        bottom_percentile=bottom,
    )
    cells = release.frame["x"]
    assert cells.isna().tolist() == frame["x"].isna().tolist()
    parsed = parse_column(cells.astype(object), column="x")
    inside = parsed.contains(frame["x"])
    assert inside[parsed.codes, np.arange(len(frame))].all()


@st.composite
def numeric_tables(draw):
    """20–60 rows: two continuous numeric QIs, a categorical QI with 1–3 values, a
    sensitive attribute with 2–3 values, an identifier."""
    n = draw(st.integers(20, 60))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    frame = pd.DataFrame(
        {
            "name": [f"p{i}" for i in range(n)],
            "height": np.round(rng.normal(170, 10, n), 1),
            "income": np.round(rng.lognormal(10, 0.5, n), 2),
            "region": rng.choice(["north", "south", "east"][: draw(st.integers(1, 3))], n),
            "disease": rng.choice(["flu", "cold", "ulcer"][: draw(st.integers(2, 3))], n),
        }
    )
    roles = {"name": "identifier", "disease": "sensitive"}
    roles.update(dict.fromkeys(["height", "income", "region"], "quasi_identifier"))
    return frame, Schema(roles)


@pytest.mark.parametrize("algorithm", PERTURBATIVE)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_perturbative_release_keeps_its_rows_and_its_promise(algorithm, data):
    frame, schema = data.draw(numeric_tables(), label="table")
    k = data.draw(st.integers(1, 5), label="k")
    models = [KAnonymity(k)]
    if data.draw(st.booleans(), label="with l"):
        models.append(DistinctLDiversity(2))
    seed = data.draw(st.integers(0, 2**16), label="seed")
    try:
        release = anonymize(frame, schema, models, algorithm=algorithm, seed=seed)
    except InfeasibleError as error:
        assert ALGORITHMS[algorithm].enforces_models
        whole_table_fails = frame["disease"].nunique() < 2 or len(frame) < k
        # MDAV (groups within each region) and local suppression blank the records they
        # cannot group: above the default suppression limit of 0 they refuse, in words
        over_limit = (
            algorithm in ("mdav", "local_suppression")
            and error.code == "anonymize.suppression_over_limit"
        )
        assert whole_table_fails or over_limit
        return
    assert len(release.frame) == len(frame)
    assert list(release.frame.index) == list(frame.index)
    assert "name" not in release.frame.columns
    assert release.frame["disease"].tolist() == frame["disease"].tolist()
    if ALGORITHMS[algorithm].enforces_models:
        assert release.satisfied and release.measurement.models.satisfied
        assert release.to_dict()["k"] >= k
    else:
        assert release.satisfied == release.measurement.models.satisfied
    again = anonymize(frame, schema, models, algorithm=algorithm, seed=seed)
    pd.testing.assert_frame_equal(release.frame, again.frame)
