"""Every loader path and every loader error (privcore.data.loading)."""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest

from privcore.data import MISSING_MARKERS, Dataset, detect_encoding, fingerprint, load
from privcore.errors import DataFormatError

ROWS = [("张三", "男", 34, "100081", "流感"), ("李四", "女", 29, "200030", "胃炎")]
CHINESE_HEADER = "姓名,性别,年龄,邮编,疾病\n" + "".join(",".join(map(str, r)) + "\n" for r in ROWS)


def error_of(source, **kw) -> DataFormatError:
    with pytest.raises(DataFormatError) as info:
        load(source, **kw)
    return info.value


# --- formats -----------------------------------------------------------------------


def test_adult_reads_with_semicolons_and_types(adult_path):
    ds = load(adult_path)
    assert ds.frame.shape == (30162, 9)
    assert ds.delimiter == ";"
    assert ds.encoding == "utf-8"
    assert ds.frame["age"].dtype == np.int64
    assert ds.frame["sex"].iloc[0] == "Male"
    assert ds.source_format == "csv"


@pytest.mark.parametrize("delimiter", [",", ";", "\t", "|"])
def test_delimiter_is_sniffed(delimiter):
    text = delimiter.join(["a", "b", "c"]) + "\n" + delimiter.join(["1", "x y", "3"]) + "\n"
    ds = load(text.encode(), filename="t.txt")
    assert list(ds.frame.columns) == ["a", "b", "c"]
    assert ds.delimiter == delimiter
    assert ds.frame.loc[0, "b"] == "x y"


def test_quoted_delimiters_do_not_split():
    ds = load(b'name,city\n"Smith, J",Lafayette\n"Li, Q",Beijing\n', filename="q.csv")
    assert ds.frame["name"].tolist() == ["Smith, J", "Li, Q"]


@pytest.mark.parametrize(
    ("encoding", "expected"),
    [("utf-8", "utf-8"), ("utf-8-sig", "utf-8-sig"), ("gbk", "gb18030"), ("gb18030", "gb18030")],
)
def test_chinese_file_in_each_encoding(encoding, expected):
    ds = load(CHINESE_HEADER.encode(encoding), filename="病人.csv")
    assert ds.encoding == expected
    assert list(ds.frame.columns) == ["姓名", "性别", "年龄", "邮编", "疾病"]
    assert ds.frame["疾病"].tolist() == ["流感", "胃炎"]
    assert ds.frame["年龄"].tolist() == [34, 29]


def test_utf16_with_bom():
    ds = load(CHINESE_HEADER.encode("utf-16"), filename="u16.csv")
    assert ds.encoding == "utf-16"
    assert ds.frame["姓名"].tolist() == ["张三", "李四"]


def test_latin1_file_is_not_mistaken_for_chinese():
    text = "name,city\nMüller,Köln\nGarçon,Besançon\nJosé,São Paulo\n"
    ds = load(text.encode("latin-1"), filename="l1.csv")
    assert ds.encoding in ("cp1252", "latin-1")
    assert ds.frame["name"].tolist() == ["Müller", "Garçon", "José"]


def test_detect_encoding_on_bytes():
    assert detect_encoding("Zürich".encode()) == "utf-8"
    assert detect_encoding("北京市海淀区".encode("gbk")) == "gb18030"
    assert detect_encoding("Zürich".encode("latin-1")) in ("cp1252", "latin-1")


def test_encoding_change_after_the_sample_is_handled(monkeypatch):
    import privcore.data.loading.sources as sources

    monkeypatch.setattr(sources, "_SAMPLE_BYTES", 64)
    text = "a,b\n" + "x,y\n" * 30 + "Müller,Köln\n"
    ds = load(text.encode("latin-1"), filename="late.csv")
    assert ds.frame["a"].iloc[-1] == "Müller"


def test_xlsx_round_trip(tmp_path):
    frame = pd.DataFrame(
        {"年龄": [30, 41, None], "city": ["A", "?", "C"], "note": ["x", "y", "NA"]}
    )
    path = tmp_path / "t.xlsx"
    frame.to_excel(path, index=False)
    ds = load(path)
    assert ds.source_format == "xlsx"
    assert ds.frame["年龄"].tolist()[:2] == [30, 41]
    assert ds.frame["年龄"].isna().tolist() == [False, False, True]
    assert ds.frame["city"].isna().tolist() == [False, True, False]
    assert ds.frame["note"].isna().tolist() == [False, False, True]


def test_parquet_round_trip(tmp_path):
    frame = pd.DataFrame({"age": [30, 41], "zip": ["47677", "47602"]})
    path = tmp_path / "t.parquet"
    frame.to_parquet(path)
    ds = load(path)
    assert ds.source_format == "parquet"
    assert ds.frame["zip"].tolist() == ["47677", "47602"]
    # the same table from another format has the same fingerprint
    csv_ds = load(b"age,zip\n30,47677\n41,47602\n", filename="t.csv")
    assert csv_ds.frame["zip"].tolist() == [47677, 47602]  # CSV reads ZIP as numbers
    assert fingerprint(ds.frame) == fingerprint(ds.frame.copy())


def test_leading_zeros_are_kept():
    ds = load(b"zip,age\n02139,30\n10001,41\n", filename="z.csv")
    assert ds.frame["zip"].tolist() == ["02139", "10001"]
    assert ds.frame["age"].tolist() == [30, 41]
    assert any("leading zeros" in note for note in ds.notes)


def test_jsonl_with_missing_markers():
    raw = b'{"age": 30, "disease": "flu"}\n{"age": null, "disease": "?"}\n'
    ds = load(raw, filename="r.jsonl")
    assert ds.source_format == "jsonl"
    assert ds.frame["age"].isna().tolist() == [False, True]
    assert ds.frame["disease"].isna().tolist() == [False, True]


def test_jsonl_bad_line_is_named():
    err = error_of(b'{"a": 1}\n{"a": \n', filename="r.jsonl")
    assert err.code == "data.bad_jsonl"
    assert err.params["line"] == 2


def test_dataframe_source():
    ds = load(pd.DataFrame({"a": ["x", "null", None]}), filename="mem")
    assert ds.frame["a"].isna().tolist() == [False, True, True]


def test_binary_file_object_and_path(tmp_path, adult_path):
    with open(adult_path, "rb") as handle:
        from_handle = load(handle, filename="adult.csv")
    assert from_handle.frame.shape == (30162, 9)


# --- missing markers ---------------------------------------------------------------


def test_every_missing_marker_becomes_na():
    markers = [m for m in MISSING_MARKERS if m]
    lines = ["v,w"] + [f"{m},1" for m in markers] + ["real,2", ",3"]
    ds = load(("\n".join(lines) + "\n").encode(), filename="m.csv")
    assert ds.frame["v"].isna().sum() == len(markers) + 1
    assert ds.frame["v"].dropna().tolist() == ["real"]


def test_numeric_column_with_question_marks_is_numeric():
    ds = load(b"age,sex\n39,M\n?,F\n50,M\n", filename="a.csv")
    assert pd.api.types.is_numeric_dtype(ds.frame["age"].dtype)
    assert ds.frame["age"].isna().tolist() == [False, True, False]


def test_spaces_after_delimiters_are_removed():
    ds = load(b"age, sex, race\n39, Male, White\n50, Female, ?\n", filename="s.csv")
    assert ds.frame["sex"].tolist() == ["Male", "Female"]
    assert ds.frame["race"].isna().tolist() == [False, True]
    assert any("Spaces" in note for note in ds.notes)


# --- errors --------------------------------------------------------------------------


def test_empty_file():
    assert error_of(b"", filename="e.csv").code == "data.empty_file"
    assert error_of(b"  \n\n", filename="e.csv").code == "data.empty_file"


def test_header_only():
    assert error_of(b"a,b,c\n", filename="h.csv").code == "data.no_rows"


def test_binary_renamed_csv():
    err = error_of(bytes(range(256)) * 4, filename="b.csv")
    assert err.code == "data.binary"
    err = error_of(b"\x89PNG\r\n\x1a\n" + b"\x00" * 20, filename="img.csv")
    assert "PNG" in err.message


def test_no_header():
    err = error_of(b"1,2,3\n4,5,6\n", filename="n.csv")
    assert err.code == "data.no_header"
    assert "looks like data" in err.message


def test_duplicate_and_blank_column_names():
    err = error_of(b"age,zip,age\n1,2,3\n", filename="d.csv")
    assert err.code == "data.duplicate_column"
    assert err.params == {"column": "age", "first": 1, "second": 3}
    err = error_of(b"age,,zip\n1,2,3\n", filename="d.csv")
    assert err.code == "data.blank_column_name"
    assert err.params["column"] == 2


def test_ragged_rows_name_their_line():
    err = error_of(b"a,b,c\n1,2,3\n4,5,6\n7,8,9,10\n", filename="r.csv")
    assert (err.code, err.params["line"], err.params["found"]) == ("data.ragged", 4, 4)
    err = error_of(b"a,b,c\n1,2,3\n4,5\n7,8,9\n", filename="r.csv")
    assert (err.code, err.params["line"], err.params["found"]) == ("data.ragged", 3, 2)
    assert "Line 3" in err.message


def test_extra_field_on_the_first_row_is_not_taken_as_an_index():
    err = error_of(b"a,b\n1,2,3\n4,5,6\n", filename="r.csv")
    assert (err.code, err.params["line"], err.params["found"]) == ("data.ragged", 2, 3)


def test_short_row_in_quoted_file_is_found():
    err = error_of(b'a,b,c\n"x",2,3\n"y",5\n', filename="r.csv")
    assert err.params["line"] == 3


def test_trailing_empty_cell_is_not_ragged():
    ds = load(b"a,b,c\n1,2,\n4,5,6\n", filename="ok.csv")
    assert ds.frame["c"].isna().tolist() == [True, False]


def test_too_many_rows(monkeypatch):
    monkeypatch.setenv("PRIVCORE_MAX_ROWS", "3")
    err = error_of(b"a\n1\n2\n3\n4\n", filename="big.csv")
    assert err.code == "data.too_many_rows"
    assert "3" in err.message
    assert load(b"a\n1\n2\n3\n", filename="ok.csv").n_rows == 3


def test_too_many_columns(monkeypatch):
    monkeypatch.setenv("PRIVCORE_MAX_COLUMNS", "2")
    assert error_of(b"a,b,c\n1,2,3\n", filename="w.csv").code == "data.too_many_columns"


def test_file_size_limit(monkeypatch):
    monkeypatch.setenv("PRIVCORE_MAX_FILE_MB", "1")
    big = b"a\n" + b"1\n" * (600 * 1024)
    assert error_of(big, filename="big.csv").code == "data.too_large"


def test_wrong_extension_and_old_excel():
    assert error_of(b"a,b\n1,2\n", filename="x.xlsx").code == "data.wrong_extension"
    assert error_of(b"\xd0\xcf\x11\xe0" + b"\x00" * 100, filename="x.xls").code == "data.binary"


def test_damaged_xlsx():
    assert error_of(b"PK\x03\x04garbage" * 10, filename="x.xlsx").code == "data.bad_excel"


def test_missing_path(tmp_path):
    assert error_of(tmp_path / "nope.csv").code == "data.not_found"


# --- the Dataset ---------------------------------------------------------------------


def test_fingerprint_depends_on_content_only():
    a = load(b"x,y\n1,a\n2,b\n", filename="a.csv")
    b = load(b"x;y\n1;a\n2;b\n", filename="b.txt")
    c = load(b"x,y\n1,a\n2,c\n", filename="c.csv")
    assert a.fingerprint == b.fingerprint
    assert a.fingerprint != c.fingerprint
    assert (a.fingerprint.rows, a.fingerprint.columns) == (2, 2)
    assert len(a.fingerprint.sha256) == 64


def test_summary_has_no_data():
    ds = load(b"name,disease\nAlice,flu\n", filename="p.csv")
    summary = ds.summary()
    assert "Alice" not in json.dumps(summary)
    assert summary["rows"] == 1 and summary["sha256"] == ds.fingerprint.sha256
    assert isinstance(ds, Dataset)


def test_large_file_loads(tmp_path):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {"age": rng.integers(17, 90, 200_000), "zip": rng.integers(10000, 99999, 200_000)}
    )
    path = tmp_path / "big.csv"
    frame.to_csv(path, index=False)
    ds = load(path)
    assert ds.n_rows == 200_000
    assert (ds.frame["age"].to_numpy() == frame["age"].to_numpy()).all()


def test_bytes_io_upload():
    ds = load(io.BytesIO(CHINESE_HEADER.encode("gbk")), filename="upload.csv")
    assert ds.frame.shape == (2, 5)


# --- a table written with its index (first header cell empty) ----------------------


def test_a_csv_written_by_pandas_with_its_index_is_read_with_the_facts():
    frame = pd.DataFrame({"zip": ["02139", "47677", "12345"], "age": [29, 41, 35]})
    ds = load(frame.to_csv().encode(), filename="with_index.csv")  # header ",zip,age"
    assert list(ds.frame.columns) == ["index", "zip", "age"]
    assert ds.frame["index"].tolist() == [0, 1, 2]
    assert ds.frame["zip"].tolist() == ["02139", "47677", "12345"]  # leading zero kept
    facts = ds.unnamed_first
    assert (facts.name, facts.running_index, facts.start) == ("index", True, 0)

    dropped = ds.drop_column("index")
    assert list(dropped.frame.columns) == ["zip", "age"] and dropped.unnamed_first is None
    assert (
        dropped.fingerprint
        == load(frame.to_csv(index=False).encode(), filename="x.csv").fingerprint
    )
    named = ds.rename_column("index", " row ")
    assert list(named.frame.columns) == ["row", "zip", "age"] and named.unnamed_first is None


def test_row_names_from_one_and_other_unnamed_columns():
    # R's write.csv: "" as the first name, row names 1..n
    ds = load(b'"","a","b"\n"1",5,x\n"2",6,y\n', filename="r.csv")
    assert (ds.unnamed_first.running_index, ds.unnamed_first.start) == (True, 1)
    # an index left by a filter (3, 7) is no running number; kept, named, not dropped
    ds = load(b",a\n3,x\n7,y\n", filename="f.csv")
    assert ds.unnamed_first.running_index is False and ds.frame["index"].tolist() == [3, 7]
    # a column already called "index": the unnamed one becomes index_2
    ds = load(b",index,a\n0,5,x\n1,6,y\n", filename="i.csv")
    assert list(ds.frame.columns) == ["index_2", "index", "a"]
    assert ds.unnamed_first.name == "index_2"
    # a table with every column named has no such facts
    assert load(b"a,b\n1,2\n", filename="n.csv").unnamed_first is None


def test_an_excel_file_written_with_its_index(tmp_path):
    path = tmp_path / "with_index.xlsx"
    pd.DataFrame({"age": [29, 41], "sex": ["F", "M"]}).to_excel(path)
    ds = load(path)
    assert list(ds.frame.columns) == ["index", "age", "sex"]
    assert ds.unnamed_first.running_index and ds.unnamed_first.start == 0


def test_a_blank_name_elsewhere_is_still_refused():
    assert error_of(b"a,,b\n1,2,3\n", filename="d.csv").code == "data.blank_column_name"
    assert error_of(b",,b\n1,2,3\n", filename="d.csv").code == "data.blank_column_name"


def test_renaming_or_dropping_a_column_checks_the_name():
    ds = load(b",a\n0,x\n1,y\n", filename="f.csv")
    for new, code in (("  ", "data.blank_new_name"), ("a", "data.new_name_taken")):
        with pytest.raises(DataFormatError) as info:
            ds.rename_column("index", new)
        assert info.value.code == code
    with pytest.raises(DataFormatError) as info:
        ds.drop_column("nope")
    assert info.value.code == "data.no_such_column"
    with pytest.raises(DataFormatError) as info:
        ds.drop_column("index").drop_column("a")
    assert info.value.code == "data.last_column"
