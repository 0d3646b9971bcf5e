"""Tests of privcore.risk (SPEC §6; El Emam 2008, ARX) against hand-computed values."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from privcore.classes import equivalence_classes
from privcore.errors import ParameterError
from privcore.measure import RiskSummary, record_risk, risk_summary


def _classes(values: list[str]):
    return equivalence_classes(pd.DataFrame({"q": values}), ["q"])


@pytest.fixture
def sizes_2_3_5():
    """n = 10 rows in classes of sizes 2, 3, 5 (in that order)."""
    classes = _classes(["a"] * 2 + ["b"] * 3 + ["c"] * 5)
    assert classes.sizes.tolist() == [2, 3, 5]
    return classes


def test_prosecutor_and_marketer_without_population(sizes_2_3_5):
    risk = risk_summary(sizes_2_3_5, threshold=0.25)
    # max 1/f = 1/2
    assert risk.prosecutor_max == pytest.approx(0.5)
    # record-weighted: (2·1/2 + 3·1/3 + 5·1/5)/10 = 3 classes / 10 rows
    assert risk.prosecutor_avg == pytest.approx(3 / 10)
    # class-averaged: (1/2 + 1/3 + 1/5)/3 = 31/90
    assert risk.prosecutor_avg_classes == pytest.approx((1 / 2 + 1 / 3 + 1 / 5) / 3)
    # 1/f > 0.25 for f = 2 (0.5) and f = 3 (0.333…): 2 + 3 = 5 of 10 records
    assert risk.records_at_risk == pytest.approx(5 / 10)
    # marketer from the release alone: #classes / n = 3/10
    assert risk.marketer == pytest.approx(0.3)
    assert risk.journalist_max is None and risk.journalist_avg is None
    assert risk.suppressed_rows == 0
    assert risk.threshold == 0.25


def test_records_at_risk_threshold_is_strict(sizes_2_3_5):
    # threshold 0.4: only the class of 2 (1/2 > 0.4) → 2/10
    assert risk_summary(sizes_2_3_5, threshold=0.4).records_at_risk == pytest.approx(2 / 10)
    # threshold exactly 1/3: 1/3 is not > 1/3 → only the class of 2 → 2/10
    assert risk_summary(sizes_2_3_5, threshold=1 / 3).records_at_risk == pytest.approx(2 / 10)
    # threshold 1: no record has risk > 1
    assert risk_summary(sizes_2_3_5, threshold=1.0).records_at_risk == 0.0
    # default 0.2: 1/5 is not > 0.2 → 5/10
    assert risk_summary(sizes_2_3_5).records_at_risk == pytest.approx(5 / 10)


def test_journalist_and_marketer_with_population(sizes_2_3_5):
    risk = risk_summary(sizes_2_3_5, population_sizes=np.array([4, 3, 10]))
    # max 1/F = 1/3
    assert risk.journalist_max == pytest.approx(1 / 3)
    # marketer = (2/4 + 3/3 + 5/10)/10 = 2/10
    assert risk.marketer == pytest.approx((2 / 4 + 3 / 3 + 5 / 10) / 10)
    # record-weighted mean of 1/F = (2·1/4 + 3·1/3 + 5·1/10)/10 = the same 2/10
    assert risk.journalist_avg == pytest.approx(0.2)
    # the prosecutor figures do not depend on the population
    assert risk.prosecutor_max == pytest.approx(0.5)


def test_suppressed_rows_lower_the_averages():
    classes = _classes(["a"] * 2 + ["b"] * 3 + ["c"] * 5 + ["*", "*"])
    risk = risk_summary(classes, threshold=0.25)
    # n = 12 with 2 suppressed rows of risk 0
    assert risk.suppressed_rows == 2
    assert risk.prosecutor_max == pytest.approx(0.5)  # unchanged
    assert risk.prosecutor_avg == pytest.approx(3 / 12)  # was 3/10
    assert risk.prosecutor_avg_classes == pytest.approx((1 / 2 + 1 / 3 + 1 / 5) / 3)
    assert risk.records_at_risk == pytest.approx(5 / 12)  # was 5/10
    assert risk.marketer == pytest.approx(3 / 12)
    with_population = risk_summary(classes, population_sizes=[4, 3, 10])
    assert with_population.marketer == pytest.approx(2 / 12)


def test_record_risk_per_row():
    classes = _classes(["a", "b", "b", "*", "c", "c", "c"])
    # 1/1, 1/2, 1/2, suppressed 0, 1/3 ×3
    assert record_risk(classes) == pytest.approx([1, 0.5, 0.5, 0, 1 / 3, 1 / 3, 1 / 3])


def test_everything_suppressed():
    risk = risk_summary(_classes(["*", "*"]))
    assert risk.prosecutor_max == 0.0 and risk.prosecutor_avg == 0.0
    assert risk.records_at_risk == 0.0 and risk.suppressed_rows == 2


def test_to_dict(sizes_2_3_5):
    d = risk_summary(sizes_2_3_5).to_dict()
    assert set(d) == {f.name for f in RiskSummary.__dataclass_fields__.values()}
    assert d["prosecutor_avg"] == pytest.approx(0.3)


@pytest.mark.parametrize("threshold", [0, -0.1, 1.5, float("nan"), "x"])
def test_threshold_must_be_a_probability(sizes_2_3_5, threshold):
    with pytest.raises(ParameterError) as info:
        risk_summary(sizes_2_3_5, threshold=threshold)
    assert info.value.code == "risk.bad_threshold"


@pytest.mark.parametrize("population", [[4, 3], [4, 3, 10, 1], [1, 3, 10], [4, np.nan, 10]])
def test_population_sizes_are_validated(sizes_2_3_5, population):
    with pytest.raises(ParameterError) as info:
        risk_summary(sizes_2_3_5, population_sizes=np.array(population, dtype=float))
    assert info.value.code == "risk.bad_population"


def test_journalist_risk_from_a_population_table():
    """Journalist risk from a population table: the hospital table generalized to ZIP
    level 2 and Age level 2; the population holds the 9 patients plus 6 look-alikes
    (one with a ZIP outside the hierarchy). F_j counts the population records each
    class's cells contain, worked out here with the hierarchy's labels."""
    import pandas as pd

    from privcore.classes import equivalence_classes
    from privcore.data import load_sample
    from privcore.measure.report import measure_release

    dataset, schema = load_sample("hospital")
    original = dataset.frame
    release = original.copy()
    for column in ("ZIP", "Age"):
        release[column] = schema.hierarchies[column].generalize_values(original[column], 2)
    extra = pd.DataFrame(
        {"ZIP": [47677, 47602, 47605, 47607, 47906, 99999], "Age": [25, 21, 35, 38, 44, 49]}
    )
    population = pd.concat([original[["ZIP", "Age"]], extra], ignore_index=True)
    classes = equivalence_classes(release, ["ZIP", "Age"], ["Disease"])
    known = population[population["ZIP"] != 99999]
    expected = []
    for zip_label, age_label in classes.class_keys(release).itertuples(index=False):
        expected.append(
            int(
                (
                    (schema.hierarchies["ZIP"].generalize_values(known["ZIP"], 2) == zip_label)
                    & (schema.hierarchies["Age"].generalize_values(known["Age"], 2) == age_label)
                ).sum()
            )
        )
    out = measure_release(
        original,
        release,
        qi=["ZIP", "Age"],
        sa=["Disease"],
        hierarchies=schema.hierarchies,
        population=population,
    ).to_dict()
    assert out["risk"]["journalist_max"] == pytest.approx(1 / min(expected))
    sizes = classes.sizes
    assert out["risk"]["marketer"] == pytest.approx(float((sizes / expected).sum()) / 9)
