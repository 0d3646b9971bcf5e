"""Tests of privcore.data.hierarchy (SPEC §1): hand-computed expectations."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from privcore.data.hierarchy import (
    Hierarchy,
    cut_hierarchy,
    date_hierarchy,
    interval_hierarchy,
    mapping_hierarchy,
    masking_hierarchy,
    rounding_hierarchy,
    value_keys,
)
from privcore.errors import HierarchyError, ParameterError

ADULT = Path(__file__).resolve().parents[2] / "assets" / "adult"

AGE_ROWS = [
    ["1", "0-4", "0-9", "*"],
    ["3", "0-4", "0-9", "*"],
    ["7", "5-9", "0-9", "*"],
    ["12", "10-14", "10-19", "*"],
]


def chain(h: Hierarchy, leaf: str) -> list[str]:
    """The labels of ``leaf`` from level 0 to the top."""
    i = h.leaves.index(leaf)
    return [h.labels(lvl)[h.codes(lvl)[i]] for lvl in range(h.height + 1)]


# ----------------------------------------------------------------------------- basics


def test_structure_labels_and_codes():
    h = Hierarchy(AGE_ROWS, name="age")
    assert h.height == 3
    assert h.leaves == ("1", "3", "7", "12")
    assert h.labels(1).tolist() == ["0-4", "5-9", "10-14"]
    assert h.labels(1).dtype == object
    assert h.codes(1).tolist() == [0, 0, 1, 2]
    assert h.codes(1).dtype == np.int64
    assert h.labels(2).tolist() == ["0-9", "10-19"]
    assert h.codes(2).tolist() == [0, 0, 0, 1]
    assert h.labels(3).tolist() == ["*"]
    assert h.codes(3).tolist() == [0, 0, 0, 0]
    assert list(h.to_frame().columns) == ["level 0", "level 1", "level 2", "level 3"]
    assert h.to_frame().iloc[2].tolist() == ["7", "5-9", "0-9", "*"]
    with pytest.raises(ParameterError):
        h.labels(4)


def test_cells_are_stored_as_strings():
    h = Hierarchy([[39, "30-39", "*"], [40.0, "40-49", "*"]])
    assert h.leaves == ("39", "40")
    h2 = Hierarchy(pd.DataFrame({"v": [39, 40], "g": ["30-39", "40-49"], "t": ["*", "*"]}))
    assert h2.leaves == ("39", "40")
    assert h == h2


def test_equality_ignores_name_and_kind():
    assert Hierarchy(AGE_ROWS, name="a", kind="arx") == Hierarchy(AGE_ROWS, name="b")
    assert Hierarchy(AGE_ROWS) != Hierarchy(AGE_ROWS[:3])
    assert Hierarchy(AGE_ROWS) != "not a hierarchy"


def test_value_keys():
    s = pd.Series([39.0, 39.5, None, "abc", 7, np.nan], index=list("abcdef"), dtype=object)
    keys = value_keys(s)
    assert list(keys.index) == list("abcdef")
    assert keys.tolist()[:2] == ["39", "39.5"]
    assert keys.tolist()[3:5] == ["abc", "7"]
    assert keys.isna().tolist() == [False, False, True, False, False, True]
    assert value_keys(pd.Series([39.0, 40.0, np.nan])).tolist()[:2] == ["39", "40"]
    assert value_keys(np.array([1, 2, 3])).tolist() == ["1", "2", "3"]
    assert value_keys(pd.Series([1, None], dtype="Int64")).isna().tolist() == [False, True]
    assert value_keys(pd.Series([1, None], dtype="Int64"))[0] == "1"


# ----------------------------------------------------------------------------- validation


def raises(code: str, fn, *args, **kwargs) -> HierarchyError:
    with pytest.raises(HierarchyError) as info:
        fn(*args, **kwargs)
    assert info.value.code == code, info.value.message
    return info.value


def test_empty_and_too_short():
    raises("hierarchy.empty", Hierarchy, [])
    raises("hierarchy.empty", Hierarchy, pd.DataFrame())
    err = raises("hierarchy.too_short", Hierarchy, [["a"], ["b"]])
    assert "two" in err.message


def test_ragged_rows_name_the_row():
    err = raises("hierarchy.ragged", Hierarchy, [["a", "x", "*"], ["b", "x", "*"], ["c", "*"]])
    assert err.params["row"] == 3
    assert "Row 3" in err.message


def test_ragged_arx_names_the_line():
    text = "a;x;*\nb;x;*\n\nc;*\n"
    err = raises("hierarchy.ragged", Hierarchy.read_arx, text.encode())
    assert err.params["line"] == 4  # the blank line 3 still counts
    assert "Line 4" in err.message


def test_duplicate_leaf():
    err = raises("hierarchy.duplicate_leaf", Hierarchy, [["a", "*"], ["b", "*"], ["a", "*"]])
    assert err.params["value"] == "a"
    assert err.params["rows"] == [1, 3]
    assert "'a'" in err.message


def test_blank_label():
    err = raises("hierarchy.blank_label", Hierarchy, [["a", "x", "*"], ["b", " ", "*"]])
    assert err.params == {"row": 2, "level": 1}
    raises("hierarchy.blank_label", Hierarchy, [["a", None, "*"], ["b", "x", "*"]])
    err = raises("hierarchy.blank_label", Hierarchy.read_arx, b"a;x;*\nb;;*\n")
    assert err.params["line"] == 2


def test_not_monotone_names_an_example():
    rows = [
        ["1", "0-4", "0-9", "*"],
        ["2", "0-4", "0-19", "*"],
        ["12", "10-14", "0-19", "*"],
    ]
    err = raises("hierarchy.not_monotone", Hierarchy, rows)
    assert "'0-4' at level 1 maps to both '0-9' and '0-19' at level 2" in err.message
    assert err.params["label"] == "0-4"
    assert err.params["parents"] == ["0-9", "0-19"]


def test_top_not_single():
    err = raises("hierarchy.top_not_single", Hierarchy, [["a", "x"], ["b", "y"]])
    assert err.params["count"] == 2
    assert "'x'" in err.message and "'y'" in err.message


def test_validate_false_defers_checks():
    h = Hierarchy([["a", "x"], ["b", "y"]], validate=False)
    raises("hierarchy.top_not_single", h.validate)


def test_unknown_kind():
    with pytest.raises(ParameterError):
        Hierarchy(AGE_ROWS, kind="nonsense")


# ----------------------------------------------------------------------------- encode


def test_encode_generalize_with_missing():
    h = Hierarchy(AGE_ROWS)
    values = pd.Series([12, 1.0, None, "7", np.nan, 3])
    codes = h.encode(values)
    assert codes.dtype == np.int64
    assert codes.tolist() == [3, 0, -1, 2, -1, 1]
    assert h.generalize(codes, 0).tolist() == [3, 0, -1, 2, -1, 1]
    assert h.generalize(codes, 1).tolist() == [2, 0, -1, 1, -1, 0]
    assert h.generalize(codes, 2).tolist() == [1, 0, -1, 0, -1, 0]
    # Top level: missing values get the top label as well.
    assert h.generalize(codes, 3).tolist() == [0, 0, 0, 0, 0, 0]
    g = h.generalize_values(values, 1)
    assert g.dtype == "string"
    assert g.tolist()[:2] == ["10-14", "0-4"]
    assert g.isna().tolist() == [False, False, True, False, True, False]
    assert h.generalize_values(values, 3).tolist() == ["*"] * 6
    with pytest.raises(ParameterError):
        h.generalize(codes, 4)
    with pytest.raises(ParameterError):
        h.generalize(np.array([7]), 1)


def test_generalize_agrees_with_generalize_values():
    h = Hierarchy(AGE_ROWS)
    rng = np.random.default_rng(0)
    values = pd.Series(rng.choice(["1", "3", "7", "12", None], size=1000), dtype=object)
    codes = h.encode(values)
    for level in range(h.height + 1):
        g = h.generalize(codes, level)
        labels = pd.Series(h.labels(level)[np.where(g >= 0, g, 0)], dtype="string")
        labels[g < 0] = pd.NA
        pd.testing.assert_series_equal(h.generalize_values(values, level), labels)


def test_uncovered_values():
    h = Hierarchy(AGE_ROWS, name="age")
    values = [1, 99, 100, None, 99, 101, 102, 103, 104]
    assert h.uncovered_values(values) == ["99", "100", "101", "102", "103", "104"]
    err = raises("hierarchy.uncovered", h.encode, values)
    assert err.params["count"] == 6
    assert err.params["values"] == ["99", "100", "101", "102", "103"]
    assert "'99'" in err.message and "'104'" not in err.message and "6 values" in err.message
    assert h.uncovered_values([1, 3, None]) == []


def test_encode_million_rows():
    h = Hierarchy([[str(i), str(i // 10), "*"] for i in range(100)])
    values = np.tile(np.arange(100, dtype=np.int64), 10_000)
    codes = h.encode(values)
    assert codes.shape == (1_000_000,)
    assert codes[:3].tolist() == [0, 1, 2]
    assert h.generalize(codes, 1)[-1] == 9
    floats = pd.Series(values.astype(float))
    floats.iloc[5] = np.nan
    fc = h.encode(floats)
    assert fc[5] == -1 and fc[6] == 6


# ----------------------------------------------------------------------------- builders


def test_masking_zip():
    h = masking_hierarchy(pd.Series([47677, 47602, 47905]))
    assert h.kind == "masking"
    assert h.height == 5
    assert chain(h, "47677") == ["47677", "4767*", "476**", "47***", "4****", "*"]


def test_masking_shorter_values():
    h = masking_hierarchy(["123", "12", "12345"], mask_char="#")
    assert chain(h, "12") == ["12", "1#", "##", "##", "##", "*"]
    assert chain(h, "123") == ["123", "12#", "1##", "###", "###", "*"]


def test_interval_ages():
    h = interval_hierarchy(pd.Series([22, 29, 43, None], name="age"), width=10)
    assert h.name == "age" and h.kind == "intervals"
    assert h.leaves == ("22", "29", "43")
    assert chain(h, "22") == ["22", "[20-30)", "[20-40)", "[20-60)", "*"]
    assert chain(h, "29") == ["29", "[20-30)", "[20-40)", "[20-60)", "*"]
    assert chain(h, "43") == ["43", "[40-50)", "[40-60)", "[20-60)", "*"]
    h2 = interval_hierarchy([22, 29, 43], width=10, levels=1, origin=0)
    assert chain(h2, "43") == ["43", "[40-50)", "*"]


def test_interval_float_width():
    h = interval_hierarchy([0.3, 0.25, 1.0], width=0.1, levels=2)
    assert chain(h, "0.3") == ["0.3", "[0.3-0.4)", "[0.2-0.4)", "*"]
    assert chain(h, "1") == ["1", "[1-1.1)", "[1-1.2)", "*"]


def test_interval_errors():
    with pytest.raises(ParameterError):
        interval_hierarchy([1, 2], width=0)
    with pytest.raises(ParameterError):
        interval_hierarchy([1, 2], width=-5)
    err = raises("hierarchy.not_numeric", interval_hierarchy, ["1", "abc", "x"], width=5)
    assert "'abc'" in err.message and err.params["count"] == 2


def test_cut_hierarchy():
    h = cut_hierarchy(pd.Series([5, 20, 35, 70]), [[18, 30, 65], [18, 65]])
    assert chain(h, "5") == ["5", "<18", "<18", "*"]
    assert chain(h, "20") == ["20", "[18-30)", "[18-65)", "*"]
    assert chain(h, "35") == ["35", "[30-65)", "[18-65)", "*"]
    assert chain(h, "70") == ["70", ">=65", ">=65", "*"]
    h1 = cut_hierarchy([17, 18], [18])
    assert chain(h1, "18") == ["18", ">=18", "*"]
    err = raises("hierarchy.cuts_not_nested", cut_hierarchy, [1, 2], [[18, 30], [18, 40]])
    assert err.params["level"] == 2 and "40" in err.message


def test_rounding():
    h = rounding_hierarchy([1234, 99], digits=[1, 2])
    assert chain(h, "1234") == ["1234", "1230", "1200", "*"]
    assert chain(h, "99") == ["99", "90", "0", "*"]
    # Default digits 1, 2, ... until a single value; truncation toward zero.
    h2 = rounding_hierarchy(pd.Series([1234.0, -1234.0]))
    assert chain(h2, "-1234") == ["-1234", "-1230", "-1200", "-1000", "0", "*"]
    assert chain(h2, "1234") == ["1234", "1230", "1200", "1000", "0", "*"]
    with pytest.raises(ParameterError):
        rounding_hierarchy([1, 2], digits=[2, 1])


def test_dates():
    h = date_hierarchy(pd.Series(["05/03/1990", "1990-03-06", "17/11/2001", None]))
    assert chain(h, "05/03/1990") == ["05/03/1990", "03/1990", "1990", "*"]
    assert chain(h, "1990-03-06") == ["1990-03-06", "03/1990", "1990", "*"]
    assert chain(h, "17/11/2001") == ["17/11/2001", "11/2001", "2001", "*"]
    assert h.leaves == ("05/03/1990", "1990-03-06", "17/11/2001")
    us = date_hierarchy(["03/05/1990"], dayfirst=False)
    assert chain(us, "03/05/1990")[1] == "03/1990"
    fmt = date_hierarchy(["1990.03.05"], format="%Y.%m.%d")
    assert chain(fmt, "1990.03.05")[1:] == ["03/1990", "1990", "*"]
    err = raises("hierarchy.bad_dates", date_hierarchy, ["05/03/1990", "soon", "later"])
    assert "'soon'" in err.message and err.params["count"] == 2


def test_dates_from_datetime_column():
    s = pd.Series(pd.to_datetime(["1990-03-05", "2001-11-17"]))
    h = date_hierarchy(s)
    assert chain(h, "1990-03-05") == ["1990-03-05", "03/1990", "1990", "*"]
    assert h.encode(s).tolist() == [0, 1]


def test_mapping_hierarchy():
    table = pd.DataFrame(
        {
            "disease": ["flu", "bronchitis", "gastritis", None],
            "group": ["respiratory", "respiratory", "digestive", None],
        }
    )
    h = mapping_hierarchy(table)
    assert h.kind == "mapping" and h.height == 2
    assert chain(h, "flu") == ["flu", "respiratory", "*"]
    # Last column already single-valued: no extra top column.
    h2 = mapping_hierarchy(pd.DataFrame({"v": ["a", "b"], "top": ["any", "any"]}))
    assert h2.height == 1 and h2.labels(1).tolist() == ["any"]
    bad = pd.DataFrame({"v": ["a", "b", "c"], "g": ["x", "x", ""]})
    err = raises("hierarchy.blank_label", mapping_hierarchy, bad)
    assert err.params["row"] == 3 and "Row 3" in err.message
    not_mono = pd.DataFrame({"v": ["a", "b", "c"], "g": ["x", "x", "y"], "g2": ["P", "Q", "Q"]})
    err = raises("hierarchy.not_monotone", mapping_hierarchy, not_mono)
    assert "'x' at level 1 maps to both 'P' and 'Q' at level 2" in err.message


def test_builders_return_valid_covering_hierarchies():
    rng = np.random.default_rng(1)
    ages = pd.Series(rng.integers(17, 91, size=5000))
    for h in (
        interval_hierarchy(ages, width=5),
        cut_hierarchy(ages, [[20, 30, 40, 50, 60], [30, 50]]),
        rounding_hierarchy(ages),
        masking_hierarchy(ages),
    ):
        h.validate()
        assert h.uncovered_values(ages) == []
        assert h.labels(h.height).tolist() == ["*"]
        assert (h.encode(ages) >= 0).all()


# ----------------------------------------------------------------------------- ARX / dict


def test_arx_round_trip():
    h = Hierarchy([*AGE_ROWS, ["a;b", 'x"y', "10-19", "*"]], name="age")
    text = h.to_arx_csv()
    assert text.startswith("1;0-4;0-9;*\n3;0-4;0-9;*\n")
    assert text.endswith("\n") and "\r" not in text
    back = Hierarchy.read_arx(io.StringIO(text))
    assert back == h
    assert back.kind == "arx"
    assert Hierarchy.read_arx(text.encode("utf-8")) == h
    assert Hierarchy.read_arx(io.BytesIO(("\ufeff" + text).encode("utf-8"))) == h
    tabbed = Hierarchy.read_arx(h.to_arx_csv(sep="\t").encode(), sep="\t")
    assert tabbed == h


def test_read_arx_from_path(tmp_path):
    p = tmp_path / "data_hierarchy_age.csv"
    p.write_bytes(b"1;0-4;*\r\n2;0-4;*")  # CRLF and no final newline
    h = Hierarchy.read_arx(p)
    assert h.name == "age" and h.leaves == ("1", "2")
    assert Hierarchy.read_arx(str(p), name="x").name == "x"
    raises("hierarchy.unreadable", Hierarchy.read_arx, tmp_path / "missing.csv")
    raises("hierarchy.empty", Hierarchy.read_arx, b"\n\n")


def test_read_arx_gbk_bytes():
    text = "北京;华北;*\n上海;华东;*\n"
    h = Hierarchy.read_arx(text.encode("gb18030"))
    assert h.leaves == ("北京", "上海")


def test_dict_round_trip():
    h = Hierarchy(AGE_ROWS, name="age", kind="intervals")
    d = json.loads(json.dumps(h.to_dict()))
    assert d["name"] == "age" and d["kind"] == "intervals"
    assert d["rows"][0] == ["1", "0-4", "0-9", "*"]
    back = Hierarchy.from_dict(d)
    assert back == h and back.name == "age" and back.kind == "intervals"
    raises("hierarchy.bad_dict", Hierarchy.from_dict, {"name": "x"})


ADULT_HEIGHTS = {
    "age": 4,
    "education": 3,
    "marital-status": 2,
    "native-country": 2,
    "occupation": 2,
    "race": 1,
    "salary-class": 1,
    "sex": 1,
    "workclass": 2,
}


@pytest.fixture(scope="module")
def adult() -> pd.DataFrame:
    return pd.read_csv(ADULT / "adult.csv", sep=";")


def test_adult_hierarchy_files_are_all_listed():
    found = {p.stem.removeprefix("adult_hierarchy_") for p in ADULT.glob("adult_hierarchy_*.csv")}
    assert found == set(ADULT_HEIGHTS)


@pytest.mark.parametrize("column", sorted(ADULT_HEIGHTS))
def test_adult_arx_hierarchies(adult, column):
    path = ADULT / f"adult_hierarchy_{column}.csv"
    h = Hierarchy.read_arx(path)
    h.validate()
    assert h.name == column and h.kind == "arx"
    assert h.height == ADULT_HEIGHTS[column]
    keys = value_keys(adult[column])
    assert not set(keys.dropna()) - set(h.leaves)
    assert h.uncovered_values(adult[column]) == []
    codes = h.encode(adult[column])
    assert (codes >= 0).all()
    top = h.generalize_values(adult[column], h.height)
    assert (top == "*").all()
    # ARX export/import keeps the hierarchy.
    assert Hierarchy.read_arx(h.to_arx_csv().encode()) == h


def test_adult_age_example(adult):
    h = Hierarchy.read_arx(ADULT / "adult_hierarchy_age.csv")
    assert chain(h, "39")[0] == "39"
    assert h.generalize_values(pd.Series([39]), 0).tolist() == ["39"]
    assert h.generalize_values(adult["age"], 0).tolist() == value_keys(adult["age"]).tolist()


def test_read_arx_line_of_separators_is_not_skipped():
    err = raises("hierarchy.blank_label", Hierarchy.read_arx, b"a;x;*\n;;\nb;x;*\n")
    assert err.params["line"] == 2


def test_builders_merge_equal_keys_and_pickle():
    import pickle

    h = masking_hierarchy(pd.Series([39, "39", 39.0, None, 41], dtype=object))
    assert h.leaves == ("39", "41")
    back = pickle.loads(pickle.dumps(h))
    assert back == h and back.kind == "masking"
    assert back.encode([41, 39.0]).tolist() == [1, 0]
