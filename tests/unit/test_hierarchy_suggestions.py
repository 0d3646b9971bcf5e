"""Hierarchies suggested from the data (so that a new table needs no hand-built ones)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from privcore.anonymize import ALGORITHMS, anonymize
from privcore.data import Schema
from privcore.data.hierarchy_suggestions import (
    KINDS,
    REASONS,
    _nice_width,
    suggest_hierarchies,
    suggest_hierarchy,
)
from privcore.errors import HierarchyError, InfeasibleError
from privcore.models import KAnonymity


def test_nice_widths_by_hand():
    # range 73 (Adult's ages 17–90): 73/16 = 4.56 → 5
    assert _nice_width(73, whole=True) == 5
    assert _nice_width(30, whole=True) == 2  # 30/16 = 1.9 → 2
    assert _nice_width(1000, whole=True) == 100  # 62.5 → 100
    assert _nice_width(0.5, whole=False) == pytest.approx(0.05)  # 0.031 → 0.05
    assert _nice_width(3, whole=True) == 1  # never below 1 for whole numbers


def test_each_kind_of_column_gets_its_hierarchy():
    ages = pd.Series([17, 23, 45, 90, 31], name="age")
    s = suggest_hierarchy(ages)
    assert s.kind == "intervals" and s.params["width"] == 5
    # width 5 from 15 (= floor(17 / 5) · 5), doubling until one interval holds 17…90
    row = list(s.hierarchy.to_frame().iloc[0])
    assert row == ["17", "[15-20)", "[15-25)", "[15-35)", "[15-55)", "[15-95)", "*"]

    zips = pd.Series(["04321", "04399", "12345"], name="code")
    s = suggest_hierarchy(zips)
    assert s.kind == "masking"
    assert list(s.hierarchy.to_frame().iloc[0])[:3] == ["04321", "0432*", "043**"]

    numeric_zip = pd.Series([47677, 47602, 47905], name="ZIP")
    assert suggest_hierarchy(numeric_zip).kind == "masking"

    dates = pd.Series(["1980-02-01", "1975-07-15", "1990-12-31", None], name="birth")
    s = suggest_hierarchy(dates)
    assert s.kind == "dates" and s.hierarchy.height == 3

    sex = pd.Series(["男", "女", "男"], name="性别")
    s = suggest_hierarchy(sex)
    assert s.kind == "suppress" and s.hierarchy.height == 1
    assert suggest_hierarchy(pd.Series(["m", "f", "x"], name="Gender")).kind == "suppress"


def test_categories_are_grouped_by_frequency_into_sets():
    values = pd.Series(["a"] * 5 + ["b"] * 4 + ["c"] * 3 + ["d"] * 2 + ["e"], name="cat")
    s = suggest_hierarchy(values)
    assert s.kind == "frequency"
    table = s.hierarchy.to_frame().set_index("level 0")
    # order by frequency a, b, c, d, e; pairs, then fours, then *
    assert table.loc["a", "level 1"] == "{a, b}" and table.loc["c", "level 1"] == "{c, d}"
    assert table.loc["e", "level 1"] == "e"
    assert table.loc["a", "level 2"] == "{a, b, c, d}" and table.loc["e", "level 2"] == "e"
    assert set(table[f"level {s.hierarchy.height}"]) == {"*"}


def test_a_column_without_values_has_no_suggestion():
    with pytest.raises(HierarchyError):
        suggest_hierarchy(pd.Series([None, None], name="x", dtype=object))
    frame = pd.DataFrame({"x": [None, None], "y": [1, 2]})
    assert list(suggest_hierarchies(frame, ["x", "y"])) == ["y"]


def _generated_tables():
    rng = np.random.default_rng(7)
    n = 400
    return [
        pd.DataFrame(
            {
                "age": rng.integers(18, 90, n),
                "zip": [f"{z:05d}" for z in rng.integers(1000, 99999, n)],
                "sex": rng.choice(["F", "M"], n),
                "disease": rng.choice(["flu", "cold", "asthma", "ulcer"], n),
            }
        ),
        pd.DataFrame(
            {
                "birth": pd.date_range("1950-01-01", periods=n, freq="37D").strftime("%d/%m/%Y"),
                "salary": rng.integers(1000, 9000, n),
                "city": rng.choice(list("ABCDEFGHIJ"), n, p=np.linspace(0.2, 0.01, 10) / 1.05),
            }
        ),
        pd.DataFrame(
            {
                "height_m": np.round(rng.normal(1.7, 0.1, n), 2),
                "postcode": rng.integers(10000, 99999, n),
                "gender": rng.choice(["f", "m", "x"], n),
                "job": rng.choice([f"job{i}" for i in range(25)], n),
            }
        ),
    ]


@pytest.mark.parametrize("table", range(3))
@pytest.mark.parametrize("algorithm", list(ALGORITHMS))
def test_every_algorithm_runs_on_generated_tables_with_suggested_hierarchies(table, algorithm):
    frame = _generated_tables()[table]
    sa = frame.columns[-1]
    qi = [c for c in frame.columns if c != sa]
    hierarchies = {c: s.hierarchy for c, s in suggest_hierarchies(frame, qi).items()}
    schema = Schema({**dict.fromkeys(qi, "quasi_identifier"), sa: "sensitive"}, hierarchies)
    try:
        release = anonymize(
            frame, schema, [KAnonymity(3)], algorithm=algorithm, max_suppression=0.02
        )
    except InfeasibleError as refused:
        # a method that blanks the rows of groups smaller than k refuses above the
        # suppression limit, and says which limit would do
        assert algorithm in ("mdav", "local_suppression"), refused
        assert refused.code == "anonymize.suppression_over_limit"
        return
    # k holds (on the groups, for condensation's synthetic rows); a perturbative method
    # that does not enforce it reports the k it has
    assert release.satisfied or not ALGORITHMS[algorithm].enforces_models
    assert len(release.frame) == len(frame)


def test_every_kind_and_reason_is_worded_in_both_languages():
    from privcore.words.catalog import catalogue, text

    for lang in ("en", "zh"):
        words = catalogue(lang)
        assert all(f"hsug.kind.{kind}" in words for kind in KINDS)
        assert all(f"hsug.reason.{reason}" in words for reason in REASONS)
    made = [s for frame in _generated_tables() for s in suggest_hierarchies(frame, frame).values()]
    assert {s.kind for s in made} <= set(KINDS) and {s.reason for s in made} <= set(REASONS)
    ages = suggest_hierarchy(pd.Series([17, 23, 45, 90, 31], name="age"))
    assert ages.reason_params() == {"width": "5", "levels": 6}
    assert text("hsug.reason.numbers", "en", **ages.reason_params()) == (
        "Numbers: intervals of width 5 over the value range, doubling at each level up to *; "
        "6 levels."
    )
    assert "{" not in text(f"hsug.reason.{ages.reason}", "zh", **ages.reason_params())
