"""Column codes shared by every step (privcore.data.codes, re-exported by privcore.classes):
the smallest integer type, each column of a table factorized once, a column left as it
was taken from the release, keys of several columns, and the group of all-'*' rows read
from the classes."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from privcore.anonymize.base import suppress
from privcore.classes import (
    SensitiveAttribute,
    TableCodes,
    code_dtype,
    combine_codes,
    compact_codes,
    factorize,
    release_classes,
    top_rows,
)
from privcore.models import KAnonymity


@pytest.mark.parametrize(
    ("size", "dtype"),
    [
        (1, np.int8),
        (127, np.int8),  # codes -1..126
        (128, np.int16),
        (32_767, np.int16),
        (32_768, np.int32),
        (2**31 - 1, np.int32),
        (2**31, np.int64),
    ],
)
def test_code_dtype_is_the_smallest_signed_type_holding_minus_one_to_size_minus_one(size, dtype):
    assert code_dtype(size) == np.dtype(dtype)


def test_compact_codes_keep_the_values_and_do_not_copy_what_fits():
    codes = np.array([-1, 0, 126])
    small = compact_codes(codes, 127)
    assert small.dtype == np.int8 and small.tolist() == [-1, 0, 126]
    already = np.array([1, 2], dtype=np.int8)
    assert compact_codes(already, 3) is already


def test_table_codes_are_factorize_codes_in_the_smallest_type():
    frame = pd.DataFrame({"a": ["x", "y", None, "x"], "n": [3, 1, 3, 2]})
    table = TableCodes(frame)
    # a: x (row 0), y (row 1), missing (row 2) in order of first appearance; x again.
    assert table.codes("a").tolist() == [0, 1, 2, 0]
    assert table.codes("a").dtype == np.int8
    assert table.cardinality("a") == 3
    assert table.uniques("a")[:2].tolist() == ["x", "y"] and pd.isna(table.uniques("a")[2])
    assert table.codes("n").tolist() == [0, 1, 0, 2]
    assert table.values("n").tolist() == [3, 1, 2] and table.values("n").dtype == np.int64
    codes, _ = factorize(frame["a"])  # the same codes as factorize's, smaller
    assert table.codes("a").tolist() == codes.tolist()
    assert "a" in table and "z" not in table and len(table) == 4


def test_table_codes_factorize_a_column_once():
    table = TableCodes(pd.DataFrame({"a": ["x", "y", "x"]}))
    assert table.codes("a") is table.codes("a")
    assert table.uniques("a") is table.uniques("a")


def test_a_column_the_release_left_as_it_was_takes_the_release_codes():
    original = pd.DataFrame(
        {"kept": pd.array(["a", "b", "a"], dtype="str"), "changed": ["p", "q", "p"]}
    )
    release = original.assign(changed=["*", "*", "*"])
    release_codes = TableCodes(release)
    original_codes = TableCodes(original, same_as=release_codes)
    assert original_codes.codes("kept") is release_codes.codes("kept")  # one array
    assert original_codes.codes("changed").tolist() == [0, 1, 0]  # factorized on its own
    assert release_codes.codes("changed").tolist() == [0, 0, 0]
    # Equal values in another array are not taken for the same data.
    copied = pd.DataFrame({"kept": pd.array(["b", "a", "a"], dtype="str")})
    assert TableCodes(copied, same_as=release_codes).codes("kept").tolist() == [0, 1, 1]


def test_combine_codes_of_small_codes_and_the_columns_stay_as_they_were():
    first = np.array([0, 1, 1])  # int64: the key must not be built inside it
    second = np.array([2, 0, 2], dtype=np.int8)
    # key = c0 · 3 + c1 = [0·3 + 2, 1·3 + 0, 1·3 + 2] = [2, 3, 5]
    assert combine_codes([first, second], [2, 3]).tolist() == [2, 3, 5]
    assert first.tolist() == [0, 1, 1] and second.tolist() == [2, 0, 2]
    assert combine_codes([first], [2]) is not first


def test_sensitive_attribute_codes_are_small_and_from_codes_is_from_series():
    series = pd.Series(["flu", "cold", "flu", None], name="disease")
    attribute = SensitiveAttribute.from_series(series)
    assert attribute.codes.dtype == np.int8 and attribute.codes.tolist() == [0, 1, 0, 2]
    # Text order: cold < flu, missing last.
    assert attribute.rank.tolist() == [1, 0, 2]
    table = TableCodes(series.to_frame())
    again = SensitiveAttribute.from_codes(
        "disease", table.codes("disease"), table.uniques("disease"), series.dtype
    )
    assert again.codes.tolist() == attribute.codes.tolist()
    assert again.rank.tolist() == attribute.rank.tolist()
    assert again.distribution.tolist() == pytest.approx([0.5, 0.25, 0.25])


def test_release_classes_from_shared_codes_equal_those_from_the_frame():
    frame = pd.DataFrame({"q": ["a", "a", "*", "*", "b"], "s": ["x", "y", "x", "y", "x"]})
    codes = TableCodes(frame)
    for models in ([], [KAnonymity(2)], [KAnonymity(3)]):
        ours = release_classes(frame, ["q"], ["s"], models=models, codes=codes)
        plain = release_classes(frame, ["q"], ["s"], models=models)
        assert ours.ids.tolist() == plain.ids.tolist()
        assert ours.sizes.tolist() == plain.sizes.tolist()
    # k = 3: the '*' rows (2 of them) fail as one class and are suppressed; k = 2: a class.
    assert release_classes(frame, ["q"], ["s"], models=[KAnonymity(3)]).ids.tolist() == [
        0,
        0,
        -1,
        -1,
        1,
    ]


def test_top_rows_read_from_the_classes():
    frame = pd.DataFrame({"a": ["x", "x", "*", "*", "y", "y"], "b": ["1", "1", "*", "*", "2", "2"]})
    expected = [False, False, True, True, False, False]
    for models in ([KAnonymity(2)], [KAnonymity(3)]):  # the '*' rows a class, then suppressed
        classes = release_classes(frame, ["a", "b"], models=models)
        assert top_rows(frame, ["a", "b"], classes=classes).tolist() == expected
        assert top_rows(frame, ["a", "b"]).tolist() == expected
    numbers = frame.assign(a=[1, 1, 2, 2, 3, 3])  # no row is '*' in every QI
    classes = release_classes(numbers, ["a", "b"])
    assert not top_rows(numbers, ["a", "b"], classes=classes).any()


def test_suppress_masks_text_columns_and_turns_others_into_text():
    frame = pd.DataFrame(
        {"q": pd.array(["a", None, "b"], dtype="str"), "n": [1, 2, 3], "s": ["x", "y", "z"]}
    )
    out = suppress(frame, ["q", "n"], np.array([True, False, True]))
    assert out["q"].dtype == "str" and out["n"].dtype == "str"
    assert out["q"].tolist()[0] == "*" and pd.isna(out["q"][1]) and out["q"][2] == "*"
    assert out["n"].tolist() == ["*", "2", "*"]
    assert out["s"].tolist() == ["x", "y", "z"]
    assert frame["q"].tolist()[0] == "a"  # the input is left as it was
