"""The row-level seam (privcore.classes): every group-by over rows goes through its named
operations, each checked here on a hand-computed example, and no numpy/pandas group-by
call over rows is left in another module (a grep over privcore)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from privcore.classes import (
    bin_counts,
    code_counts,
    distinct,
    distinct_rows,
    distinct_tuples,
    duplicated,
    equivalence_classes,
    group_keys,
    group_rows,
    group_sums,
    members,
    n_distinct,
    present_codes,
    reduce_runs,
    value_codes,
    value_counts,
)

PRIVCORE = Path(__file__).resolve().parents[2] / "privcore"

# numpy/pandas group-by, count and distinct calls. ``classes.value_counts(sa)`` is the
# seam's own per-class distribution, not pandas' method.
GROUP_BY = re.compile(
    r"pd\.factorize\(|\.factorize\(|np\.unique\(|pd\.unique\(|\.unique\(\)|np\.bincount\("
    r"|\.groupby\(|(?<!classes)\.value_counts\(|\.drop_duplicates\(|\.duplicated\("
    r"|\.nunique\(|crosstab\(|pivot_table\(|np\.histogram\(|\.(?:at|reduceat)\("
)
MARKER = re.compile(r"# not rows: \S")
# The seam itself (the package privcore.classes and privcore.data.codes), and the LDP
# audits, which work on tensors of mechanism samples.
SEAM = ("classes/", "data/codes.py")
LDP_IN_SCOPE = {"ldp/reconstruction.py"}


def unmarked_group_bys(text: str) -> list[tuple[int, str]]:
    """(line number, line) of every group-by call without a ``# not rows: …`` comment."""
    return [
        (number, line.strip())
        for number, line in enumerate(text.splitlines(), 1)
        if GROUP_BY.search(line) and not MARKER.search(line)
    ]


def test_the_scan_finds_a_group_by_over_rows_and_accepts_a_marked_one():
    assert unmarked_group_bys("sizes = np.bincount(ids)\n") == [(1, "sizes = np.bincount(ids)")]
    assert unmarked_group_bys("c = series.value_counts(dropna=True)") != []
    assert unmarked_group_bys("t = frame[qi].drop_duplicates()") != []
    assert unmarked_group_bys("low = np.minimum.reduceat(codes, starts)") != []
    assert unmarked_group_bys("np.add.at(sums, group, z)") != []
    assert unmarked_group_bys("x = np.unique(labels)  # not rows") != []  # says not what
    assert unmarked_group_bys("x = np.unique(labels)  # not rows: hierarchy labels") == []
    assert unmarked_group_bys("counts = classes.value_counts(sa)") == []  # the seam's own


def test_no_group_by_over_rows_outside_the_seam():
    found = []
    for path in sorted(PRIVCORE.rglob("*.py")):
        name = path.relative_to(PRIVCORE).as_posix()
        if name.startswith(SEAM) or (name.startswith("ldp/") and name not in LDP_IN_SCOPE):
            continue
        found += [f"{name}:{n}: {line}" for n, line in unmarked_group_bys(path.read_text())]
    assert not found, "group-bys outside privcore.classes:\n" + "\n".join(found)


# --------------------------------------------------------------------------- operations


def test_group_rows_is_the_frequency_set():
    a = np.array([0, 1, 0, 1, 0])
    b = np.array([1, 0, 1, 1, 1])
    groups = group_rows([a, b], [2, 2])  # keys 1, 2, 1, 3, 1
    assert groups.ids.tolist() == [0, 1, 0, 2, 0]  # numbered in order of first appearance
    assert groups.first.tolist() == [0, 1, 3]
    assert groups.counts.tolist() == [3, 1, 1]
    assert groups.n_groups == 3


def test_weighted_rows_roll_a_frequency_set_up_without_the_table():
    rows = pd.DataFrame({"zip": [0, 0, 1, 1, 1, 2], "age": [5, 5, 5, 7, 7, 7]})
    fine = group_rows([rows["zip"].to_numpy(), rows["age"].to_numpy()], [3, 8])
    zips = rows["zip"].to_numpy()[fine.first]
    ages = rows["age"].to_numpy()[fine.first]
    assert fine.counts.tolist() == [2, 1, 2, 1]  # (0,5) (1,5) (1,7) (2,7)
    # Generalize zip 1 and 2 to one label, then roll the groups up with their counts.
    coarse = group_rows([np.minimum(zips, 1), ages], [2, 8], weights=fine.counts)
    assert coarse.counts.tolist() == [2, 1, 3]  # (0,5) (1,5) (1,7)
    assert coarse.counts.dtype == np.int64
    direct = group_rows([np.minimum(rows["zip"].to_numpy(), 1), rows["age"].to_numpy()], [2, 8])
    assert coarse.counts.tolist() == direct.counts.tolist()


def test_group_keys_on_empty_rows():
    groups = group_keys(np.zeros(0, dtype=np.int64))
    assert groups.n_groups == 0 and groups.first.tolist() == [] and groups.ids.tolist() == []


def test_counts_per_code():
    assert code_counts(np.array([2, 0, 2, 3]), 5).tolist() == [1, 0, 2, 1, 0]
    sums = code_counts(np.array([2, 0, 2, 3]), 5, weights=np.array([0.5, 1.0, 1.0, 2.0]))
    assert sums.tolist() == [1.0, 0.0, 1.5, 2.0, 0.0]
    assert present_codes(np.array([3, -1, 0, 3]), 5).tolist() == [0, 3]  # -1: missing


def test_bin_counts_close_the_last_bin():
    values = np.array([0.1, 0.5, 0.5, 1.0, 2.0, -0.1])
    assert bin_counts(values, np.array([0.0, 0.5, 1.0])).tolist() == [1, 3]


def test_sums_per_group_and_per_run():
    group = np.array([1, 0, 1])
    assert group_sums(group, 2, np.array([1.0, 2.0, 4.0])).tolist() == [2.0, 5.0]
    matrix = np.array([[1.0, 10.0], [2.0, 20.0], [4.0, 40.0]])
    assert group_sums(group, 3, matrix).tolist() == [[2.0, 20.0], [5.0, 50.0], [0.0, 0.0]]
    values = np.array([5, 3, 9, 1, 4])
    starts = np.array([0, 2, 3])  # runs [5, 3] [9] [1, 4]
    assert reduce_runs(values, starts, "min").tolist() == [3, 9, 1]
    assert reduce_runs(values, starts, "max").tolist() == [5, 9, 4]
    assert reduce_runs(values, starts, "sum").tolist() == [8, 9, 5]
    both = np.stack([values, 10 * values])
    assert reduce_runs(both, starts, "max", axis=1).tolist() == [[5, 9, 4], [50, 90, 40]]


def test_members_of_each_group_in_row_order():
    parts = members(np.array([1, -1, 0, 1, 0]), 3)  # row 1 is suppressed: in no group
    assert [p.tolist() for p in parts] == [[2, 4], [0, 3], []]
    assert [p.tolist() for p in members(np.array([0, 0, 1]), 2)] == [[0, 1], [2]]


def test_distinct_values_rows_and_tuples():
    values, inverse, counts = distinct(
        np.array([3, 1, 3, 2]), return_inverse=True, return_counts=True
    )
    assert values.tolist() == [1, 2, 3]
    assert inverse.tolist() == [2, 0, 2, 1]
    assert counts.tolist() == [1, 1, 2]
    rows, of_row = distinct_rows(np.array([[1.0, 2.0], [0.0, 5.0], [1.0, 2.0]]))
    assert rows.tolist() == [[0.0, 5.0], [1.0, 2.0]]
    assert of_row.tolist() == [1, 0, 1] and of_row.dtype == np.int64
    frame = pd.DataFrame({"a": [1, 2, 1, 1], "b": ["x", "y", "x", "z"], "c": [0, 0, 9, 9]})
    tuples = distinct_tuples(frame, ["a", "b"])
    assert tuples.index.tolist() == [0, 1, 3]
    assert tuples.to_numpy().tolist() == [[1, "x"], [2, "y"], [1, "z"]]
    assert duplicated(pd.Series(["a", "b", "a", None, None])).tolist() == [
        False,
        False,
        True,
        False,
        True,  # missing equals missing
    ]


def test_column_counts_and_codes():
    series = pd.Series(["y", "x", "x", None, "z", "x", "y"])
    counts = value_counts(series)
    assert counts.to_dict() == {"x": 3, "y": 2, "z": 1}
    assert list(counts.index) == ["x", "y", "z"]  # most frequent first
    assert list(value_counts(series, sort=False).index) == ["y", "x", "z"]  # first seen
    assert n_distinct(series) == 3  # missing is not a value here
    codes, uniques = value_codes(pd.Series(["b", None, "a", "b"]))
    assert codes.tolist() == [0, -1, 1, 0] and list(uniques) == ["b", "a"]
    codes, uniques = value_codes(pd.Series([30, None, 20, 30]), sort=True)
    assert codes.tolist() == [1, -1, 0, 1] and list(uniques) == [20.0, 30.0]


def test_per_class_distributions():
    frame = pd.DataFrame(
        {
            "zip": ["a", "a", "a", "b", "b", "*"],
            "disease": ["flu", "flu", "cold", "flu", "ulcer", "cold"],
        }
    )
    classes = equivalence_classes(frame, ["zip"], ["disease"])  # "*" is set aside
    counts = classes.value_counts("disease")  # codes: flu 0, cold 1, ulcer 2
    assert counts.cls.tolist() == [0, 0, 1, 1]
    assert counts.value.tolist() == [0, 1, 0, 2]
    assert counts.count.tolist() == [2, 1, 1, 1]
    assert counts.per_class().tolist() == [2, 2]  # distinct values per class
    assert counts.per_class(counts.count.astype(float)).tolist() == [3.0, 2.0]
    assert counts.class_max().tolist() == [2, 1]
    by_length = classes.count_values(np.array([3, 3, 4, 3, 5, 4]), 6)  # letters per word
    assert list(zip(by_length.cls, by_length.value, by_length.count, strict=True)) == [
        (0, 3, 2),
        (0, 4, 1),
        (1, 3, 1),
        (1, 5, 1),
    ]
    assert [m.tolist() for m in classes.members()] == [[0, 1, 2], [3, 4]]
