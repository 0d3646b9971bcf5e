"""The clamped sum Σ clamp(x, a, b), a missing value counting as a, on every storage of a
column: integers summed exactly as integers, floats with NaN, nullable integers with
missing cells, booleans, a ``where`` mask, and bounds so large that integers could
overflow (then summed as floats)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from privcore.dp.queries import clamped_sum


def test_integers_are_clamped_and_summed_exactly():
    frame = pd.DataFrame({"age": [-5, 0, 17, 95, 120], "sex": list("FMFMF")})
    # clamp to [0, 100]: 0 + 0 + 17 + 95 + 100 = 212
    query = clamped_sum(frame, "age", 0, 100)
    assert query.true_answer == 212 and isinstance(query.true_answer, int)
    assert query.kind == "int" and query.sensitivity_l1 == 100
    # only the women: -5 → 0, 17, 120 → 100: 117
    assert clamped_sum(frame, "age", 0, 100, where={"sex": "F"}).true_answer == 117
    # beyond 2⁵³ a float sum would lose the last units; integers do not
    big = pd.DataFrame({"x": np.array([2**53, 1], dtype=np.int64)})
    assert clamped_sum(big, "x", 0, 2**53).true_answer == 2**53 + 1


def test_missing_values_count_as_the_lower_bound():
    floats = pd.DataFrame({"x": [1.5, np.nan, 7.25, -3.0]})
    # [1.5, 2 (missing → a), 5 (clamped), 2 (clamped)] with a = 2, b = 5: 1.5 → 2
    assert clamped_sum(floats, "x", 2, 5).true_answer == pytest.approx(2 + 2 + 5 + 2)
    nullable = pd.DataFrame({"x": pd.array([3, None, 9], dtype="Int64")})
    # 3, a = 1, clamp(9) = 8: 12
    assert clamped_sum(nullable, "x", 1, 8).true_answer == 12
    flags = pd.DataFrame({"x": [True, False, True]})
    assert clamped_sum(flags, "x", 0, 1).true_answer == 2


def test_infinities_clamp_and_a_missing_value_among_them_counts_as_a():
    # clip, then a NaN found in the total taken to a: 1.5 + 0 + 100 + 0 (−∞ → a) = 101.5
    frame = pd.DataFrame({"x": [1.5, np.nan, np.inf, -np.inf]})
    assert clamped_sum(frame, "x", 0, 100).true_answer == 101.5
    # no missing value: one clip and one sum, 100 + 0 + 40.5 = 140.5
    finite = pd.DataFrame({"x": [np.inf, -7.0, 40.5]})
    assert clamped_sum(finite, "x", 0, 100).true_answer == 140.5


def test_fractional_or_huge_bounds_sum_as_floats():
    frame = pd.DataFrame({"x": [1, 2, 3]})
    # bounds [0.5, 2.5]: 1 + 2 + 2.5 = 5.5, a real query
    query = clamped_sum(frame, "x", 0.5, 2.5)
    assert query.true_answer == pytest.approx(5.5) and query.kind == "real"
    # |b| · rows ≥ 2⁶²: an integer sum could overflow; the float sum is exact here
    huge = clamped_sum(frame, "x", -1e300, 1e300)
    assert huge.true_answer == 6
