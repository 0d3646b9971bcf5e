"""Tests of privcore.measure.entropy (SPEC §3, seed 001 §4) against hand-computed values."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from privcore.data.samples import load_sample
from privcore.errors import DataFormatError, RoleError
from privcore.measure import (
    NOTE_CONSTANT,
    NOTE_NOT_MEANINGFUL,
    PrivacyLevel,
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

QI = ["ZIP", "Age"]
SA = ["Salary", "Disease"]
LOG3 = math.log2(3)
LOG9 = math.log2(9)


@pytest.fixture(scope="module")
def hospital() -> tuple[pd.DataFrame, pd.DataFrame]:
    """The SPEC §2 9-row table and its release (same row order)."""
    return load_sample("hospital")[0].frame, load_sample("hospital_release")[0].frame


# --------------------------------------------------------------------------- entropy


def test_entropy_two_equal_halves_is_one_bit():
    # p = (1/2, 1/2): H = −2 · (1/2) log2(1/2) = 1
    assert entropy(pd.Series(["a", "a", "b", "b"])) == pytest.approx(1.0)


def test_entropy_skewed_column():
    # p = (3/4, 1/4): H = −(3/4) log2(3/4) − (1/4) log2(1/4) = 2 − (3/4) log2 3 ≈ 0.8113
    assert entropy(pd.Series(["a", "a", "a", "b"])) == pytest.approx(2 - 0.75 * LOG3)


def test_entropy_constant_and_empty_columns_are_zero():
    assert entropy(pd.Series([7, 7, 7])) == 0.0
    assert entropy(pd.Series([], dtype=object)) == 0.0


def test_entropy_of_a_tuple_is_one_variable():
    frame = pd.DataFrame({"x": ["a", "a", "b", "b"], "y": [1, 2, 1, 2], "z": [1, 1, 1, 2]})
    # (x, y) takes 4 distinct values once each: H = log2 4 = 2
    assert entropy(frame, ["x", "y"]) == pytest.approx(2.0)
    # (x, z) = (a1, a1, b1, b2): p = (1/2, 1/4, 1/4): H = 1/2 + 2 · (1/4) · 2 = 1.5
    assert entropy(frame, ["x", "z"]) == pytest.approx(1.5)
    # default: all columns, i.e. (x, y, z): 4 distinct rows → 2 bits
    assert entropy(frame) == pytest.approx(2.0)
    # a bare string is one column name
    assert entropy(frame, "x") == pytest.approx(1.0)
    # no column at all: a constant
    assert entropy(frame, []) == 0.0


def test_entropy_counts_missing_as_one_value():
    # (NA, NA, a, a): two values of 1/2 each → 1 bit
    assert entropy(pd.Series([None, None, "a", "a"])) == pytest.approx(1.0)
    # (NaN, 1, 2, 3): four values → 2 bits
    assert entropy(pd.Series([np.nan, 1.0, 2.0, 3.0])) == pytest.approx(2.0)


def test_entropy_of_integer_columns_of_any_range():
    # small ranges are coded as value − min, large ones factorized: same answer either way
    assert entropy(pd.Series([-3, -3, 2, 2])) == pytest.approx(1.0)
    assert entropy(pd.Series([-5, -5, 10**15, 10**15])) == pytest.approx(1.0)
    assert entropy(pd.Series(np.array([2**63, 2**63, 2**63 + 1, 5], dtype=np.uint64))) == (
        pytest.approx(1.5)
    )
    # nullable integers: NA is one value → (1, NA, NA, 1) has 1 bit
    assert entropy(pd.Series([1, None, None, 1], dtype="Int64")) == pytest.approx(1.0)
    # a tuple mixing a small-range integer column and a text column: 4 distinct rows
    frame = pd.DataFrame({"n": [0, 0, 100, 100], "t": ["a", "b", "a", "b"]})
    assert entropy(frame) == pytest.approx(2.0)


def test_entropy_unknown_column_raises_role_error():
    with pytest.raises(RoleError) as info:
        entropy(pd.DataFrame({"x": [1]}), ["nope"])
    assert info.value.code == "roles.unknown_columns"


def test_conditional_entropy_small_cases():
    frame = pd.DataFrame({"x": ["a", "a", "b", "b"], "y": [1, 2, 1, 2], "c": ["a", "a", "b", "b"]})
    # x and y independent: H(x|y) = H(x,y) − H(y) = 2 − 1 = 1
    assert conditional_entropy(frame, ["x"], ["y"]) == pytest.approx(1.0)
    # c is a copy of x: H(x|c) = H(x,c) − H(c) = 1 − 1 = 0
    assert conditional_entropy(frame, ["x"], ["c"]) == pytest.approx(0.0)
    # nothing given: H(x|∅) = H(x) = 1
    assert conditional_entropy(frame, ["x"], []) == pytest.approx(1.0)


def test_mutual_information_small_cases():
    x = pd.Series(["a", "a", "a", "b"])
    y = pd.Series([1, 1, 2, 2])
    # H(X) = 2 − (3/4) log2 3, H(Y) = 1, H(X,Y): (a1, a1, a2, b2) → p = (1/2, 1/4, 1/4) → 1.5
    # I = H(X) + H(Y) − H(X,Y) = 1.5 − (3/4) log2 3 ≈ 0.3113
    assert mutual_information(x, y) == pytest.approx(1.5 - 0.75 * LOG3)
    assert mutual_information(y, x) == pytest.approx(1.5 - 0.75 * LOG3)
    # I(X;X) = H(X)
    assert mutual_information(x, x) == pytest.approx(2 - 0.75 * LOG3)
    # independent columns: I = 1 + 1 − 2 = 0
    assert mutual_information(pd.Series([0, 0, 1, 1]), pd.Series([0, 1, 0, 1])) == pytest.approx(0)


def test_mutual_information_of_tables_and_row_mismatch():
    a = pd.DataFrame({"p": [0, 0, 1, 1], "q": [0, 1, 0, 1]})
    # I((p,q); p) = H(p) = 1 since p is a function of (p, q)
    assert mutual_information(a, a["p"]) == pytest.approx(1.0)
    with pytest.raises(DataFormatError) as info:
        mutual_information(a, pd.Series([1, 2, 3]))
    assert info.value.code == "measure.alignment"


def test_discrimination_rate_edge_cases():
    frame = pd.DataFrame({"k": [1, 1, 2, 2], "t": ["x", "y", "z", "z"], "c": [5, 5, 5, 5]})
    # constant target: H(T) = 0 → DR = 0 by definition
    assert discrimination_rate(frame, ["k"], ["c"]) == 0.0
    # T given itself: H(T|T) = 0 → DR = 1
    assert discrimination_rate(frame, ["t"], ["t"]) == pytest.approx(1.0)
    # H(t) = 1.5 (x, y, z, z); H(t|k) = (1/2)·1 + (1/2)·0 = 0.5 → DR = 1 − 0.5/1.5 = 2/3
    assert discrimination_rate(frame, ["k"], ["t"]) == pytest.approx(2 / 3)
    # nothing known → DR = 0
    assert discrimination_rate(frame, [], ["t"]) == pytest.approx(0.0)


# --------------------------------------------------------------------------- SPEC §3 worked values


def test_spec_privacy_level_of_the_release(hospital):
    original, release = hospital
    pl = privacy_level(original, release, QI, SA)
    # X_prv = (Salary, Disease): 9 distinct tuples (salaries differ) → H = log2 9.
    # Released QIs form 3 classes of 3 rows whose tuples are distinct: H(X̄_prv|X̄_qd) = log2 3.
    # DR = 1 − log2 3 / log2 9 = 1/2. SAs are released unchanged: I(X;X̄)/H(X) = 1.
    # PL(D) = 0.500
    assert pl.value == pytest.approx(0.5)
    assert pl.dr == pytest.approx(0.5)
    assert pl.information == pytest.approx(1.0)
    assert pl.meaningful and pl.note is None
    assert round(pl.value, 3) == 0.5


def test_spec_privacy_level_of_salary(hospital):
    original, release = hospital
    # H(Salary) = log2 9 (9 distinct), H(Salary|QI) = log2 3 (3 distinct per class)
    # PL = (1 − log2 3 / log2 9) · 1 = 0.500
    pl = local_privacy_level(original, release, ["Salary"], QI)
    assert pl.value == pytest.approx(0.5)


def test_spec_privacy_level_of_disease(hospital):
    original, release = hospital
    # Disease counts: gastric ulcer 1, gastritis 2, stomach cancer 2, flu 1, bronchitis 2,
    # pneumonia 1 → H = 3·(1/9) log2 9 + 3·(2/9) log2(9/2) = log2 9 − 2/3 ≈ 2.5033.
    # Each class holds 3 different diseases → H(Disease|QI) = log2 3.
    # PL = 1 − log2 3 / (log2 9 − 2/3) = 1 − 1.58496/2.50326 ≈ 0.367
    pl = local_privacy_level(original, release, ["Disease"], QI)
    assert pl.value == pytest.approx(1 - LOG3 / (LOG9 - 2 / 3))
    assert round(pl.value, 3) == 0.367


def test_spec_local_privacy_level_of_age_given_zip(hospital):
    original, release = hospital
    # X̄ = released Age: <=40 six times, >=40 three times → H(X̄) = log2 3 − 2/3 ≈ 0.9183.
    # Released ZIP determines released Age (4767*, 4760* → <=40; 4790* → >=40):
    # H(X̄|Ȳ) = 0 → DR = 1. X̄ is a function of X → I(X;X̄) = H(X̄); H(X) = log2 9 (9 ages).
    # PL_ZIP(Age) = (log2 3 − 2/3) / (2 log2 3) = 1/2 − 1/(3 log2 3) ≈ 0.290
    pl = local_privacy_level(original, release, ["Age"], ["ZIP"])
    assert pl.dr == pytest.approx(1.0)
    assert pl.value == pytest.approx(0.5 - 1 / (3 * LOG3))
    assert round(pl.value, 3) == 0.290


def test_spec_utility_loss(hospital):
    original, release = hospital
    # H(X̄_qd) = log2 3 (3 classes of 3), H(X̄_prv) = log2 9, H(X_qd) = H(X_prv) = log2 9.
    # UL = (log2 3 + 2 log2 3) / (2 log2 3 + 2 log2 3) = 3/4
    assert utility_loss(original, release, QI, SA) == pytest.approx(0.75)


def test_pl_matrix_of_two_releases(hospital):
    original, release = hospital
    matrix = pl_matrix(original, {"k=3": release, "identity": original}, QI, SA)
    assert list(matrix.columns) == ["ZIP", "Age", "Salary", "Disease", "all"]
    assert list(matrix.index) == ["k=3", "identity"]
    row = matrix.loc["k=3"]
    # ZIP against Age: H(ZIP̄) = log2 3; given Age̅ (<=40: 2 ZIPs × 3; >=40: one ZIP)
    # H(ZIP̄|Age̅) = (6/9)·1 = 2/3 → DR = 1 − 2/(3 log2 3); I/H(X) = log2 3 / log2 9 = 1/2
    # PL = 1/2 − 1/(3 log2 3) ≈ 0.290 (the same as PL_ZIP(Age))
    assert row["ZIP"] == pytest.approx(0.5 - 1 / (3 * LOG3))
    assert row["Age"] == pytest.approx(0.5 - 1 / (3 * LOG3))
    assert row["Salary"] == pytest.approx(0.5)
    assert row["Disease"] == pytest.approx(1 - LOG3 / (LOG9 - 2 / 3))
    assert row["all"] == pytest.approx(0.5)
    # Releasing the original: each QI is unique, so it determines everything: PL = 1
    assert np.allclose(matrix.loc["identity"].to_numpy(), 1.0)
    assert matrix.attrs["notes"] == {}


def test_pl_matrix_keeps_notes():
    original = pd.DataFrame({"q": [1, 2, 3, 4], "s": ["a", "a", "a", "a"]})
    release = pd.DataFrame({"q": ["*"] * 4, "s": ["a", "a", "a", "a"]})
    matrix = pl_matrix(original, {"r": release}, ["q"], ["s"])
    assert matrix.loc["r", "s"] == 0.0
    assert matrix.attrs["notes"]["r"]["s"] == NOTE_CONSTANT
    assert matrix.attrs["notes"]["r"]["all"] == NOTE_CONSTANT


# --------------------------------------------------------------------------- PL edge cases


def test_constant_column_gives_zero_with_a_note():
    original = pd.DataFrame({"q": [1, 2, 3, 4], "s": ["x", "x", "x", "x"]})
    # H(X) = H(X̄) = 0: both denominators are 0 → PL = 0, note "constant column"
    pl = local_privacy_level(original, original, ["s"], ["q"])
    assert pl == PrivacyLevel(0.0, 0.0, 0.0, True, NOTE_CONSTANT)
    # a release that suppresses a non-constant column: H(X̄) = 0 → PL = 0 too
    release = original.assign(q=["*"] * 4)
    pl = local_privacy_level(original, release, ["q"], ["s"])
    assert pl.value == 0.0 and pl.note == NOTE_CONSTANT and pl.meaningful


def test_entropy_increase_is_flagged_not_meaningful():
    original = pd.DataFrame({"k": [1, 1, 2, 2], "s": ["a", "a", "b", "b"]})
    noisy = pd.DataFrame({"k": [1, 1, 2, 2], "s": ["w", "x", "y", "z"]})  # noise added
    pl = local_privacy_level(original, noisy, ["s"], ["k"])
    # H(X) = 1 < H(X̄) = 2 → not meaningful. H(X̄|K) = 1 → DR = 1 − 1/2 = 1/2;
    # I(X;X̄) = 1 + 2 − 2 = 1 → information = 1/1; PL = 1/2, shown with the warning.
    assert not pl.meaningful
    assert pl.note == NOTE_NOT_MEANINGFUL
    assert pl.value == pytest.approx(0.5)
    assert pl.to_dict() == {
        "value": pl.value,
        "dr": pl.dr,
        "information": pl.information,
        "meaningful": False,
        "note": NOTE_NOT_MEANINGFUL,
    }


def test_constant_original_with_noise_has_both_notes():
    original = pd.DataFrame({"s": ["a"] * 10})
    noisy = pd.DataFrame({"s": [f"a{i}" for i in range(10)]})  # one value per row
    pl = local_privacy_level(original, noisy, ["s"], [])
    assert pl.value == 0.0 and not pl.meaningful
    assert pl.note == f"{NOTE_CONSTANT}; {NOTE_NOT_MEANINGFUL}"


def test_more_entropy_alone_is_not_flagged_only_one_value_per_row_is():
    """SPEC §3 erratum: local recoding may release more entropy than the original and
    stays meaningful; noise that leaves (nearly) one distinct value per row does not."""
    original = pd.DataFrame({"s": ["a"] * 10 + ["b"] * 10})
    recoded = pd.DataFrame({"s": ["a"] * 5 + ["{a,b}"] * 5 + ["b"] * 5 + ["{a,b}"] * 5})
    assert local_privacy_level(original, recoded, ["s"], []).meaningful
    noisy = pd.DataFrame({"s": [f"v{i}" for i in range(19)] + ["v0"]})  # 19 of 20 distinct
    assert not local_privacy_level(original, noisy, ["s"], []).meaningful
    unique = pd.DataFrame({"s": [f"v{i}" for i in range(20)]})  # an ID stays an ID
    assert local_privacy_level(unique, unique, ["s"], []).meaningful


def test_privacy_level_rejects_row_mismatch_and_missing_target(hospital):
    original, release = hospital
    with pytest.raises(DataFormatError) as info:
        privacy_level(original, release.iloc[:8], QI, SA)
    assert info.value.code == "measure.alignment"
    with pytest.raises(RoleError):
        local_privacy_level(original, release, [], QI)


def test_utility_loss_edge_cases():
    constant = pd.DataFrame({"q": [1, 1], "s": [2, 2]})
    # 0/0 → 1.0 (nothing to lose)
    assert utility_loss(constant, constant, ["q"], ["s"]) == 1.0
    # a constant original with a varying release: nothing to lose, nothing kept → 1.0
    assert utility_loss(constant, constant.assign(q=[1, 2]), ["q"], ["s"]) == 1.0
    # the original released as is: UL = 1
    table = pd.DataFrame({"q": [1, 2, 3], "s": [1, 1, 2]})
    assert utility_loss(table, table, ["q"], ["s"]) == pytest.approx(1.0)


def test_utility_loss_of_a_local_recoding_stays_at_most_one():
    """SPEC §3 erratum: UL = (I(X_qd; X̄_qd) + I(X_prv; X̄_prv)) / (H(X_qd) + H(X_prv)).

    q = 1, 1, 2, 2 released as a, b, c, c (one value split in two, as local recoding
    and synthesis can): H(q) = 1, H(q̄) = 1.5, H(q, q̄) = 1.5, so I = 1 + 1.5 − 1.5 = 1;
    s = 0, 0, 1, 1 released as is: I = H(s) = 1. UL = (1 + 1)/(1 + 1) = 1, where the
    seed's (H(q̄) + H(s̄))/(H(q) + H(s)) = 2.5/2 = 1.25 would exceed 1. Generalizing q to
    one value keeps I = 0: UL = (0 + 1)/(1 + 1) = 0.5."""
    original = pd.DataFrame({"q": [1, 1, 2, 2], "s": [0, 0, 1, 1]})
    split = original.assign(q=["a", "b", "c", "c"])
    assert utility_loss(original, split, ["q"], ["s"]) == pytest.approx(1.0)
    merged = original.assign(q=["*"] * 4)
    assert utility_loss(original, merged, ["q"], ["s"]) == pytest.approx(0.5)


# --------------------------------------------------------------------------- align


def test_align_by_key_reorders_a_shuffled_release(hospital):
    original, release = hospital
    original = original.assign(id=range(100, 109))
    release = release.assign(id=range(100, 109))
    shuffled = release.sample(frac=1.0, random_state=3)
    assert not shuffled["id"].is_monotonic_increasing
    a, b = align(original, shuffled, key="id")
    assert list(b["id"]) == list(range(100, 109))
    pd.testing.assert_frame_equal(b, release.reset_index(drop=True))
    pd.testing.assert_frame_equal(a, original)
    # the measures then see the worked example again
    assert privacy_level(a, b, QI, SA).value == pytest.approx(0.5)


def test_align_by_row_order(hospital):
    original, release = hospital
    a, b = align(original.set_index(original.index + 5), release)
    assert list(a.index) == list(range(9)) and list(b.index) == list(range(9))
    with pytest.raises(DataFormatError) as info:
        align(original, release.iloc[:7])
    assert info.value.code == "measure.alignment"
    assert "9 rows" in info.value.message and "7" in info.value.message


def test_align_key_missing():
    a = pd.DataFrame({"id": [1, 2]})
    b = pd.DataFrame({"other": [1, 2]})
    with pytest.raises(DataFormatError) as info:
        align(a, b, key="id")
    assert info.value.code == "measure.alignment"
    assert "'id'" in info.value.message and "release" in info.value.message
    with pytest.raises(DataFormatError) as info:
        align(b, b, key="id")
    assert "original and the release" in info.value.message


def test_align_duplicated_keys_names_one():
    a = pd.DataFrame({"id": [1, 2, 3]})
    b = pd.DataFrame({"id": [3, 7, 7]})
    with pytest.raises(DataFormatError) as info:
        align(a, b, key="id")
    assert info.value.code == "measure.alignment"
    assert "'7'" in info.value.message and "release" in info.value.message
    assert info.value.params["value"] == "7"


def test_align_key_sets_differ_says_how_many():
    a = pd.DataFrame({"id": [1, 2, 3, 4]})
    b = pd.DataFrame({"id": [1, 2, 9]})
    with pytest.raises(DataFormatError) as info:
        align(a, b, key="id")
    assert info.value.code == "measure.alignment"
    # 3 and 4 only in the original; 9 only in the release
    assert info.value.params["only_original"] == 2
    assert info.value.params["only_release"] == 1
    assert "2 key(s)" in info.value.message and "1 key(s)" in info.value.message
