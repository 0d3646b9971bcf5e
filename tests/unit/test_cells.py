"""Released cells read as predicates over original values (privcore.data.cells)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from privcore.data import cells as cells_module
from privcore.data.cells import parse_cell, parse_column
from privcore.data.hierarchy import Hierarchy
from privcore.data.samples import load_sample


def contains(cell, value, hierarchy=None) -> bool:
    parsed = parse_column(pd.Series([cell], dtype=object), hierarchy=hierarchy)
    matrix = parsed.contains(pd.Series([value], dtype=object))
    assert matrix.shape == (1, 1)
    return bool(matrix[0, 0])


# (released cell, original value, contained?)
CASES = [
    # exact values; numbers compare numerically
    ("39", 39, True),
    ("39", 39.0, True),
    ("39", "39", True),
    ("39", "39.0", True),
    ("39", 40, False),
    ("39.5", 39, False),
    ("39.5", 39.5, True),
    ("Male", "Male", True),
    ("Male", "male", False),
    ("Male", None, False),
    (39, "39", True),
    (39, 39.0, True),
    ("047", 47, True),
    ("047", "047", True),
    ("<=50K", "<=50K", True),  # a category, not a comparison
    ("<=50K", ">50K", False),
    # * matches anything, missing included
    ("*", 47677, True),
    ("*", "anything", True),
    ("*", None, True),
    # masks: same length, same prefix, compared as text
    ("476**", 47677, True),
    ("476**", "47602", True),
    ("476**", 47977, False),
    ("476**", 4760, False),
    ("476**", 476000, False),
    ("4767*", 47677, True),
    ("4767*", 47667, False),
    ("04*", "047", True),
    ("04*", 47, False),
    ("**", "ab", True),
    ("**", "abc", False),
    ("476**", None, False),
    # ranges, ends as written
    ("20-29", 20, True),
    ("20-29", 29, True),
    ("20-29", 29.5, False),
    ("20-29", 19, False),
    ("20-29", "25", True),
    ("20-29", "abc", False),
    ("20-29", None, False),
    ("[20-30)", 20, True),
    ("[20-30)", 29.99, True),
    ("[20-30)", 30, False),
    ("[20,30]", 30, True),
    ("(20,30]", 20, False),
    ("(20,30]", 20.5, True),
    ("(20,30]", 30, True),
    ("[20-29]", 29, True),
    ("[20-29]", 30, False),
    ("20~29", 25, True),
    ("20~29", 30, False),
    ("-5--1", -3, True),
    ("-5--1", 0, False),
    ("[-2.5,3.5)", -2.5, True),
    ("[-2.5,3.5)", 3.5, False),
    ("[-2.5,3.5)", 0, True),
    ("[0.5-1.5]", 1, True),
    # comparisons
    ("<=40", 40, True),
    ("<=40", 41, False),
    ("<40", 40, False),
    ("<40", -100, True),
    (">=40", 40, True),
    (">=40", 39.9, False),
    (">40", 40, False),
    (">40", 40.1, True),
    ("≤40", 40, True),
    ("≥40", 40, True),
    ("≥40", 39, False),
    ("<=40", "Male", False),
    ("<=40", None, False),
    # sets
    ("{a,b}", "a", True),
    ("{a,b}", "b", True),
    ("{a,b}", "c", False),
    ("{a, b}", "b", True),
    ("{a,NA}", None, True),
    ("{a,NA}", "b", False),
    ("{a,b}", None, False),
    ("{1,2}", 2.0, True),
    ("{Married-civ-spouse,Divorced}", "Divorced", True),
    # Mondrian's range plus missing, and missing on its own
    ("[20-29],NA", None, True),
    ("[20-29],NA", 25, True),
    ("[20-29],NA", 30, False),
    ("20,NA", 20, True),
    ("20,NA", None, True),
    ("Male,NA", "Male", True),
    ("Male,NA", None, True),
    ("Male,NA", "Female", False),
    ("NA", None, True),
    ("NA", "x", False),
    (None, None, True),
    (None, "x", False),
    # unparsed cells contain nothing
    ("4*7*", "4*7*", False),
    ("4*7*", 4177, False),
    ("[a-b]", "a", False),
    ("{}", "x", False),
    ("30-20", 25, False),
]


@pytest.mark.parametrize(("cell", "value", "expected"), CASES)
def test_cell_contains_value(cell, value, expected):
    assert contains(cell, value) is expected


KINDS = [
    ("39", "exact"),
    ("Male", "exact"),
    ("*", "any"),
    ("476**", "mask"),
    ("<=40", "comparison"),
    ("≥40", "comparison"),
    ("20-29", "range"),
    ("[20-30)", "range"),
    ("(20,30]", "range"),
    ("20~29", "range"),
    ("{a,b}", "set"),
    ("[20-29],NA", "range"),
    ("NA", "missing"),
    ("4*7*", "unparsed"),
    ("[a-b]", "unparsed"),
    ("{}", "unparsed"),
    ("{a,}", "unparsed"),
    ("30-20", "unparsed"),
    ("<=50K", "exact"),
    ("Self-emp-not-inc", "exact"),
]


@pytest.mark.parametrize(("cell", "kind"), KINDS)
def test_kind_of_each_rendering(cell, kind):
    assert parse_cell(cell).kind == kind
    assert parse_column(pd.Series([cell])).kinds.tolist() == [kind]


def test_unparsed_values_are_reported_and_match_nothing():
    parsed = parse_column(
        pd.Series(["4767*", "4*7*", "[a-b]", "4767*", "{}", "ok"], name="ZIP"), hierarchy=None
    )
    assert parsed.column == "ZIP"
    assert parsed.unparsed == ["4*7*", "[a-b]", "{}"]
    assert parsed.labels.tolist() == ["4767*", "4*7*", "[a-b]", "{}", "ok"]
    matrix = parsed.contains(pd.Series(["47671", "4*7*", "a", "ok"]))
    assert matrix[1].sum() == matrix[2].sum() == matrix[3].sum() == 0
    assert matrix[0].tolist() == [True, False, False, False]
    assert matrix[4].tolist() == [False, False, False, True]


def test_distinct_labels_codes_and_matrix_shape():
    released = pd.Series(["<40", ">=40", "<40", None, "*"], dtype=object)
    parsed = parse_column(released)
    assert parsed.labels.tolist() == ["<40", ">=40", None, "*"]
    assert parsed.codes.tolist() == [0, 1, 0, 2, 3]
    assert parsed.kinds.tolist() == ["comparison", "comparison", "missing", "any"]
    assert parsed.kind_counts() == {"any": 1, "comparison": 2, "missing": 1}
    matrix = parsed.contains(np.array([39, 40, None], dtype=object))
    assert matrix.tolist() == [
        [True, False, False],
        [False, True, False],
        [False, False, True],
        [True, True, True],
    ]


def test_numeric_release_column_matches_text_and_numbers():
    parsed = parse_column(pd.Series([29, 30, 29]))
    assert parsed.kinds.tolist() == ["exact", "exact"]
    matrix = parsed.contains(pd.Series(["29", "29.0", "30", "31"]))
    assert matrix.tolist() == [[True, True, False, False], [False, False, True, False]]
    floats = parsed.contains(pd.Series([29.0, 30.5, np.nan, np.inf]))
    assert floats.tolist() == [[True, False, False, False], [False, False, False, False]]


def test_masks_sharing_a_prefix():
    parsed = parse_column(pd.Series(["4767*", " 4767*", "4760*", "47***"]))
    matrix = parsed.contains(pd.Series(["47671", "47601", "47999", "4767"]))
    assert matrix.tolist() == [
        [True, False, False, False],
        [True, False, False, False],
        [False, True, False, False],
        [True, True, True, False],
    ]


def test_numbers_versus_text_masks():
    # A mask is about the text: "04*" is any three-character value starting "04".
    mask = parse_column(pd.Series(["04*"]))
    assert mask.contains(pd.Series(["047", "47", "0475"], dtype=object)).tolist() == [
        [True, False, False]
    ]
    assert mask.contains(pd.Series([47])).tolist() == [[False]]
    # An exact number-like cell is a number: "047" is 47.
    exact = parse_column(pd.Series(["047"]))
    assert exact.contains(pd.Series([47, 47.0, 470], dtype=object)).tolist() == [
        [True, True, False]
    ]


# --------------------------------------------------------------------------- hierarchies


@pytest.fixture(scope="module")
def hospital_hierarchies():
    _, schema = load_sample("hospital")
    return schema.hierarchies


def test_hierarchy_labels_contain_their_leaves(hospital_hierarchies):
    age = hospital_hierarchies["Age"]
    parsed = parse_column(pd.Series(["<40", "[20-30)", ">=40", "*", "29"]), hierarchy=age)
    assert parsed.kinds.tolist() == ["hierarchy"] * 5
    matrix = parsed.contains(pd.Series([29, 39, 40, 52, None], dtype=object))
    assert matrix.tolist() == [
        [True, True, False, False, False],  # <40 at level 2
        [True, False, False, False, False],  # [20-30) at level 1
        [False, False, True, True, False],  # >=40
        [True, True, True, True, True],  # the top contains everything, missing too
        [True, False, False, False, False],  # a leaf is itself
    ]
    disease = hospital_hierarchies["Disease"]
    parsed = parse_column(
        pd.Series(["stomach diseases", "respiratory system diseases"]), hierarchy=disease
    )
    matrix = parsed.contains(pd.Series(["gastritis", "flu", "stomach cancer", "pneumonia"]))
    assert matrix.tolist() == [[True, False, True, False], [False, True, False, True]]


def test_values_unknown_to_the_hierarchy_are_judged_by_the_text(hospital_hierarchies):
    zip_hierarchy = hospital_hierarchies["ZIP"]
    parsed = parse_column(pd.Series(["4767*", "476**", "Foo"]), hierarchy=zip_hierarchy)
    assert parsed.kinds.tolist() == ["hierarchy", "hierarchy", "exact"]
    # 47671 is no leaf of the 9-patient hierarchy, but "4767*" still covers it.
    matrix = parsed.contains(pd.Series([47677, 47671, 47602, 48000]))
    assert matrix.tolist() == [
        [True, True, False, False],
        [True, True, True, False],
        [False, False, False, False],
    ]


def test_hierarchy_label_takes_precedence_over_the_text():
    # A label that reads like a range but groups other values.
    hierarchy = Hierarchy([["5", "1-2", "*"], ["7", "1-2", "*"], ["1", "other", "*"]], name="x")
    parsed = parse_column(pd.Series(["1-2"]), hierarchy=hierarchy)
    assert parsed.kinds.tolist() == ["hierarchy"]
    assert parsed.contains(pd.Series([5, 7, 1])).tolist() == [[True, True, False]]
    # Without the hierarchy, it is the range 1..2.
    assert parse_column(pd.Series(["1-2"])).contains(pd.Series([5, 7, 1])).tolist() == [
        [False, False, True]
    ]


def test_adult_hierarchy_labels_of_several_levels():
    _, schema = load_sample("adult")
    marital = schema.hierarchies["marital-status"]
    leaves = pd.Series(list(marital.leaves))
    for level in range(marital.height + 1):
        labels = pd.Series(marital.labels(level))
        parsed = parse_column(labels, hierarchy=marital)
        matrix = parsed.contains(leaves)
        # Each leaf lies under exactly one label of each level: its own.
        assert matrix.sum(axis=0).tolist() == [1] * len(leaves)
        expected = marital.codes(level)
        assert np.argmax(matrix, axis=0).tolist() == expected.tolist()


def test_large_inputs_are_evaluated_in_blocks(monkeypatch):
    released = pd.Series(["[0-49]", "[50-99]", "*", "1**", "{3,4}"])
    values = pd.Series(np.arange(200))
    whole = parse_column(released).contains(values)
    monkeypatch.setattr(cells_module, "_DENSE_CELLS", 7)
    blocked = parse_column(released).contains(values)
    assert np.array_equal(whole, blocked)
    assert whole.sum(axis=1).tolist() == [50, 50, 200, 100, 2]
