"""Tests of privcore.measure.loss (SPEC §5) against hand-computed values."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from privcore.classes import equivalence_classes
from privcore.data.hierarchy import Hierarchy, date_hierarchy
from privcore.data.samples import load_sample
from privcore.errors import ParameterError
from privcore.measure import (
    average_class_size,
    discernibility,
    gcp,
    generalization_height,
    generalization_levels,
    ncp,
    precision,
    whd,
    whd_distortion,
)


@pytest.fixture(scope="module")
def hospital():
    dataset, schema = load_sample("hospital")
    release = load_sample("hospital_release")[0].frame
    return dataset.frame, release, schema.hierarchies


# --------------------------------------------------------------------------- WHD


def test_whd_birth_date_figures():
    # D/M/Y → M/Y → Y → *: levels 4 (original) … 1 (*), h = 4, β = 1.
    # Weights w_{2,1} = 1, w_{3,2} = 1/2, w_{4,3} = 1/3; total = 11/6.
    # WHD(4,3) = (1/3)/(11/6) = 2/11 ≈ 0.18; WHD(2,1) = 1/(11/6) = 6/11 ≈ 0.55
    assert whd(4, 3, 4) == pytest.approx(2 / 11)
    assert round(whd(4, 3, 4), 2) == 0.18
    assert whd(2, 1, 4) == pytest.approx(6 / 11)
    assert round(whd(2, 1, 4), 2) == 0.55
    # WHD(4,1) = 1 (all the way to *), WHD(p,p) = 0
    assert whd(4, 1, 4) == pytest.approx(1.0)
    assert whd(3, 3, 4) == 0.0
    # WHD(4,2) = (1/3 + 1/2)/(11/6) = 5/11
    assert whd(4, 2, 4) == pytest.approx(5 / 11)


def test_whd_beta():
    # β = 2: weights 1, 1/4, 1/9; total 49/36; WHD(4,3) = (1/9)/(49/36) = 4/49
    assert whd(4, 3, 4, beta=2) == pytest.approx(4 / 49)
    # β = 0: every step weighs 1: WHD(4,3) = 1/3
    assert whd(4, 3, 4, beta=0) == pytest.approx(1 / 3)


def test_whd_rejects_bad_levels():
    for p, q, h in [(3, 4, 4), (5, 1, 4), (2, 0, 4), (1, 1, 0)]:
        with pytest.raises(ParameterError):
            whd(p, q, h)
    with pytest.raises(ParameterError):
        whd(2, 1, 3, beta=float("nan"))
    assert whd(1, 1, 1) == 0.0  # a one-level hierarchy has no distance


def test_whd_distortion_of_three_rows():
    birth = date_hierarchy(pd.Series(["05/03/1990", "17/08/1985", "01/01/1970"]))
    assert birth.height == 3  # D/M/Y (0) → M/Y (1) → Y (2) → * (3); SPEC h = 4
    sex = Hierarchy([["M", "*"], ["F", "*"]])  # height 1; SPEC h = 2
    levels = {"birth": np.array([0, 1, 3]), "sex": np.array([0, 1, 1])}
    per_row, total = whd_distortion(levels, {"birth": birth, "sex": sex})
    # row 1: nothing generalized → 0
    # row 2: birth at level 1 = SPEC 3: WHD(4,3) = 2/11; sex to * = WHD(2,1) = 1 → 13/11
    # row 3: birth to * = WHD(4,1) = 1; sex to * = 1 → 2
    assert per_row == pytest.approx([0.0, 13 / 11, 2.0])
    # table: 0 + 13/11 + 2 = 35/11
    assert total == pytest.approx(35 / 11)


def test_whd_distortion_needs_known_levels():
    sex = Hierarchy([["M", "*"], ["F", "*"]])
    with pytest.raises(ParameterError) as info:
        whd_distortion({"sex": np.array([0, -1, -1])}, {"sex": sex})
    assert info.value.code == "measure.level_unknown"
    assert info.value.params["count"] == 2
    with pytest.raises(ParameterError):
        whd_distortion({"sex": np.array([0, 2])}, {"sex": sex})  # above the top
    with pytest.raises(ParameterError):
        whd_distortion({"age": np.array([0])}, {"sex": sex})  # no hierarchy


# --------------------------------------------------------------------------- levels


def test_generalization_levels_of_the_hospital_zip(hospital):
    original, release, hierarchies = hospital
    zip_h = hierarchies["ZIP"]  # 47677 → 4767* → 476** → 47*** → 4**** → *  (height 5)
    levels = generalization_levels(original["ZIP"], release["ZIP"], zip_h)
    # Released 4767*, 4767*, 4767*, 4790*×3, 4760*×3. One masked digit is level 1, except
    # rows 2 (47602 released 4767*) and 8 (47673 released 4760*): not from masking → -1.
    assert levels.tolist() == [1, -1, 1, 1, 1, 1, 1, -1, 1]


def test_generalization_levels_every_level_and_star(hospital):
    original, _, hierarchies = hospital
    zip_h = hierarchies["ZIP"]
    released = pd.Series(["*", "476**", "47678", "4****", None, "4760*", "47***", "99999", "4760*"])
    levels = generalization_levels(original["ZIP"], released, zip_h)
    # 47677→* top (5); 47602→476** (2); 47678 unchanged (0); 47905→4**** (4);
    # 47909→missing (-1); 47906→4760* not a masking of it (-1); 47605→47*** (3);
    # 47673→99999 (-1); 47607→4760* (1)
    assert levels.tolist() == [5, 2, 0, 4, -1, -1, 3, -1, 1]


def test_generalization_levels_match_values_as_keys(hospital):
    original, _, hierarchies = hospital
    # ages 29, 22, 27, 43, 52, 47, 30, 36, 32 released as text: "29" is the original 29
    # (level 0), "[20-30)" level 1, "<40" level 2, "*" level 3; ">=40" for 30 is wrong (-1)
    released = pd.Series(["29", "[20-30)", "<40", "*", "52", "[40-50)", ">=40", "36", "[30-40)"])
    levels = generalization_levels(original["Age"], released, hierarchies["Age"])
    assert levels.tolist() == [0, 1, 2, 3, 0, 1, -1, 0, 1]


def test_generalization_levels_with_missing_values():
    h = Hierarchy([["a", "x", "*"], ["b", "x", "*"]])
    original = pd.Series(["a", None, None, "b"])
    released = pd.Series(["x", None, "*", None])
    # a→x level 1; missing→missing level 0; missing→* top (2); b→missing: not produced
    assert generalization_levels(original, released, h).tolist() == [1, 0, 2, -1]


# --------------------------------------------------------------------------- DM, C_avg


def _classes(values: list[str]):
    return equivalence_classes(pd.DataFrame({"q": values}), ["q"])


def test_discernibility():
    classes = _classes(["a"] * 3 + ["b"] * 3 + ["c"] * 3)
    # 3² + 3² + 3² = 27
    assert discernibility(classes) == 27
    # the same 9 rows plus 2 suppressed (n = 11): 27 + 2 · 11 = 49
    suppressed = _classes(["a"] * 3 + ["b"] * 3 + ["c"] * 3 + ["*", "*"])
    assert suppressed.n_suppressed == 2
    assert discernibility(suppressed) == 27 + 22


def test_average_class_size(hospital):
    _, release, _ = hospital
    classes = equivalence_classes(release, ["ZIP", "Age"])
    # 9 rows in 3 classes: (9/3)/3 = 1 for k = 3, (9/3)/2 = 1.5 for k = 2
    assert average_class_size(classes, 3) == pytest.approx(1.0)
    assert average_class_size(classes, 2) == pytest.approx(1.5)
    # suppressed rows are not counted: (9/3)/3 = 1 with 2 extra suppressed rows
    suppressed = _classes(["a"] * 3 + ["b"] * 3 + ["c"] * 3 + ["*", "*"])
    assert average_class_size(suppressed, 3) == pytest.approx(1.0)
    # sizes 1 and 3: (4/2)/1 = 2
    assert average_class_size(_classes(["a", "b", "b", "b"]), 1) == pytest.approx(2.0)
    with pytest.raises(ParameterError):
        average_class_size(classes, 0)
    assert np.isnan(average_class_size(_classes(["*", "*"]), 2))


# --------------------------------------------------------------------------- NCP, GCP


def test_ncp_numeric_by_hand(hospital):
    original, _, hierarchies = hospital
    # ages 29, 22, 27, 43, 52, 47, 30, 36, 32; column range 52 − 22 = 30
    levels = np.array([1, 1, 1, 2, 2, 2, 0, 3, 1])
    got = ncp(original["Age"], levels, hierarchies["Age"])
    # level 1 [20-30) holds 29, 22, 27 → (29 − 22)/30 = 7/30
    # level 2 >=40 holds 43, 52, 47 → (52 − 43)/30 = 9/30
    # level 0 → 0; top (3) → 1
    # level 1 [30-40) holds 30, 36, 32 → (36 − 30)/30 = 6/30
    expected = [7 / 30] * 3 + [9 / 30] * 3 + [0.0, 1.0, 6 / 30]
    assert got == pytest.approx(expected)
    # level 2 "<40" holds 29, 22, 27, 30, 36, 32 → (36 − 22)/30 = 14/30
    assert ncp(original["Age"], np.full(9, 2), hierarchies["Age"])[0] == pytest.approx(14 / 30)


def test_ncp_categorical_by_hand(hospital):
    original, _, hierarchies = hospital
    # 6 distinct diseases. "stomach diseases" and "respiratory infections" (level 1) hold
    # 3 each → 3/6; "digestive …" / "respiratory system …" (level 2) hold 3 each → 3/6;
    # level 0 → 0; top → 1
    levels = np.array([0, 1, 2, 3, 1, 1, 1, 2, 0])
    got = ncp(original["Disease"], levels, hierarchies["Disease"])
    assert got == pytest.approx([0, 0.5, 0.5, 1, 0.5, 0.5, 0.5, 0.5, 0])


def test_ncp_categorical_label_with_one_value_is_zero():
    # Xu et al.: card(u) = 1 → 0. "x" covers a and b (2 of 3 values) → 2/3; "y" covers c only.
    h = Hierarchy([["a", "x", "*"], ["b", "x", "*"], ["c", "y", "*"]])
    got = ncp(pd.Series(["a", "b", "c", "c"]), np.array([1, 1, 1, 2]), h)
    assert got == pytest.approx([2 / 3, 2 / 3, 0.0, 1.0])


def test_ncp_rejects_unknown_levels(hospital):
    original, _, hierarchies = hospital
    with pytest.raises(ParameterError) as info:
        ncp(original["Age"], np.array([0, -1, 0, 0, 0, 0, 0, 0, 0]), hierarchies["Age"])
    assert info.value.code == "measure.level_unknown"


def test_gcp_is_the_mean_cell_penalty():
    # cells 0, 0.5, 1, 0.5 → 2/4 = 0.5
    assert gcp({"a": np.array([0.0, 0.5]), "b": np.array([1.0, 0.5])}) == pytest.approx(0.5)
    assert gcp({"a": np.ones(3)}) == pytest.approx(1.0)
    with pytest.raises(ParameterError):
        gcp({})


def test_gcp_of_the_hospital_ncps(hospital):
    original, _, hierarchies = hospital
    age = ncp(original["Age"], np.array([1, 1, 1, 2, 2, 2, 0, 3, 1]), hierarchies["Age"])
    disease = ncp(
        original["Disease"], np.array([0, 1, 2, 3, 1, 1, 1, 2, 0]), hierarchies["Disease"]
    )
    # Age: 3·7/30 + 3·9/30 + 0 + 1 + 6/30 = 84/30 = 2.8; Disease: 8 · 0.5 = 4 − ... = 4.0
    # (0 + .5 + .5 + 1 + .5 + .5 + .5 + .5 + 0 = 4.0); GCP = 6.8 / 18
    assert gcp({"Age": age, "Disease": disease}) == pytest.approx(6.8 / 18)


# --------------------------------------------------------------------------- precision, height


def test_precision(hospital):
    _, _, hierarchies = hospital
    levels = {"ZIP": np.ones(9, dtype=int), "Age": np.full(9, 2)}
    # Σ level/height per row = 1/5 + 2/3 = 13/15; over 9 rows and 2 QIs:
    # Prec = 1 − 9 · 13/15 / (9 · 2) = 1 − 13/30 = 17/30
    assert precision(levels, hierarchies) == pytest.approx(17 / 30)
    zeros = {"ZIP": np.zeros(9, dtype=int)}
    assert precision(zeros, hierarchies) == 1.0
    top = {"ZIP": np.full(9, 5), "Age": np.full(9, 3)}
    assert precision(top, hierarchies) == pytest.approx(0.0)


def test_generalization_height():
    assert generalization_height([1, 2, 0]) == 3
    assert generalization_height(()) == 0
    with pytest.raises(ParameterError):
        generalization_height([1, -1])


def test_cell_ncp_of_released_numbers_is_equality_per_row():
    """A released numeric column (microaggregated, noisy) names points: a cell holds its
    original only when equal to it; equal everywhere gives NCP 0, else None with the
    count of rows that differ (a missing original and a missing release are equal)."""
    from privcore.measure.loss import cell_ncp

    original = pd.Series([1.0, 2.0, np.nan, 4.0, 4.0], name="x")
    same, outside = cell_ncp(original, original.copy())
    assert outside == 0 and same.tolist() == [0.0] * 5
    moved = pd.Series([1.0, 2.5, np.nan, 4.0, 3.0], name="x")
    assert cell_ncp(original, moved) == (None, 2)
    as_floats = cell_ncp(pd.Series([1, 2, 3], name="n"), pd.Series([1.0, 2.0, 3.0], name="n"))
    assert as_floats[1] == 0 and as_floats[0].tolist() == [0.0, 0.0, 0.0]
