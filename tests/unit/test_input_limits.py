"""Files built to exhaust the reader: workbook and gzip bombs, huge sheets, deep JSON,
broken headers; compressed inputs; row limits enforced before the whole file is read.

Every file is generated here, small on disk: a workbook whose directory claims a
3 GB sheet, a million-row sheet compressed to ~30 KB, a gzip file expanding 250-fold.
Each must be refused fast with a clear DataFormatError (or, for a compressed table,
read like the table itself).
"""

from __future__ import annotations

import gzip
import io
import struct
import time
import zipfile
from collections.abc import Iterable

import numpy as np
import pandas as pd
import pytest

from privcore.cli import main
from privcore.data import Schema, load
from privcore.data import budget as budget_module
from privcore.errors import DataFormatError, RoleError

# --------------------------------------------------------------------------- helpers

_CONTENT_TYPES = (
    b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    b'<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    b'<Default Extension="rels" '
    b'ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    b'<Default Extension="xml" ContentType="application/xml"/>'
    b'<Override PartName="/xl/workbook.xml" ContentType="application/'
    b'vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
    b'<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/'
    b'vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>'
)
_ROOT_RELS = (
    b'<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    b'<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
    b'relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>'
)
_WORKBOOK = (
    b'<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
    b'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
    b'<sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>'
)
_WORKBOOK_RELS = (
    b'<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    b'<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
    b'relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>'
)


def workbook(rows: Iterable[bytes], *, dimension: str | None = None) -> bytes:
    """A minimal .xlsx whose first sheet holds ``rows`` (``<row>`` elements), streamed
    into the archive so that a million rows never sit in memory as XML."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", _CONTENT_TYPES)
        archive.writestr("_rels/.rels", _ROOT_RELS)
        archive.writestr("xl/workbook.xml", _WORKBOOK)
        archive.writestr("xl/_rels/workbook.xml.rels", _WORKBOOK_RELS)
        with archive.open("xl/worksheets/sheet1.xml", "w") as sheet:
            sheet.write(
                b'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
            )
            if dimension:
                sheet.write(f'<dimension ref="{dimension}"/>'.encode())
            sheet.write(b"<sheetData>")
            batch: list[bytes] = []
            for row in rows:
                batch.append(row)
                if len(batch) == 10_000:
                    sheet.write(b"".join(batch))
                    batch.clear()
            sheet.write(b"".join(batch) + b"</sheetData></worksheet>")
    return buffer.getvalue()


def text_row(*cells: str) -> bytes:
    inline = "".join(f'<c t="inlineStr"><is><t>{c}</t></is></c>' for c in cells)
    return f"<row>{inline}</row>".encode()


def number_rows(n: int, *, seed: int = 0, bad_row: int | None = None) -> Iterable[bytes]:
    """``id``/``value`` rows of random numbers (they compress like real data, ~5-fold);
    row ``bad_row`` holds a number cell openpyxl cannot read, so reading that far fails."""
    values = np.random.default_rng(seed).integers(0, 10**9, size=n)
    yield text_row("id", "value")
    for i, value in enumerate(values, start=1):
        if i == bad_row:
            yield b"<row><c><v>1</v></c><c><v>not-a-number</v></c></row>"
        else:
            yield f"<row><c><v>{i}</v></c><c><v>{value}</v></c></row>".encode()


def claim_size(archive: bytes, member: str, size: int) -> bytes:
    """``archive`` with the central directory declaring ``size`` uncompressed bytes for
    ``member`` (the data itself unchanged)."""
    data = bytearray(archive)
    name = member.encode()
    at = data.find(b"PK\x01\x02")
    while at != -1:
        name_length = struct.unpack_from("<H", data, at + 28)[0]
        if bytes(data[at + 46 : at + 46 + name_length]) == name:
            struct.pack_into("<I", data, at + 24, size)
            return bytes(data)
        at = data.find(b"PK\x01\x02", at + 4)
    raise AssertionError(f"{member} not in the archive")


def error_of(source, **kw) -> DataFormatError:
    with pytest.raises(DataFormatError) as info:
        load(source, **kw)
    return info.value


def refused_quickly(source, filename: str, seconds: float = 30.0) -> DataFormatError:
    """The load fails with a DataFormatError well within ``seconds`` (a liveness check
    with a generous bound, not a timing)."""
    started = time.perf_counter()
    err = error_of(source, filename=filename)
    assert time.perf_counter() - started < seconds, err.code
    return err


SMALL = text_row("id", "value") + b"<row><c><v>1</v></c><c><v>2</v></c></row>"


# --------------------------------------------------------------------------- workbooks


def test_a_small_generated_workbook_loads():
    dataset = load(workbook([SMALL], dimension="A1:B2"), filename="small.xlsx")
    assert dataset.frame.to_dict("list") == {"id": [1], "value": [2]}


def test_a_workbook_whose_sheet_claims_3_gb_is_refused_by_its_ratio():
    bomb = claim_size(workbook([SMALL]), "xl/worksheets/sheet1.xml", 3_000_000_000)
    err = refused_quickly(bomb, "bomb.xlsx")
    assert err.code == "data.compression_ratio"
    assert err.params["member"] == "xl/worksheets/sheet1.xml" and err.params["limit"] == 100
    assert "decompression bomb" in err.message


def test_a_workbook_expanding_beyond_the_size_limit_is_refused(monkeypatch):
    monkeypatch.setenv("PRIVCORE_MAX_FILE_MB", "1")  # the parts may expand to 20 MB
    bomb = claim_size(workbook([SMALL]), "xl/worksheets/sheet1.xml", 50 * 2**20)
    err = refused_quickly(bomb, "bomb.xlsx")
    assert err.code == "data.expands_too_large" and err.params == {"limit_mb": 20}
    assert "20 × PRIVCORE_MAX_FILE_MB" in err.message


def test_a_million_tiny_rows_compressed_to_kilobytes_are_refused_fast():
    rows = (b"<row><c><v>1</v></c></row>" for _ in range(1_000_000))
    bomb = workbook([text_row("n"), *rows], dimension="A1:A1000001")
    assert len(bomb) < 200_000
    err = refused_quickly(bomb, "million.xlsx")
    assert err.code == "data.compression_ratio" and err.params["ratio"] > 100


def test_a_declared_dimension_above_the_row_limit_is_refused_before_any_row(monkeypatch):
    monkeypatch.setenv("PRIVCORE_MAX_ROWS", "100")
    # reading to row 1,500 would fail: the error shows the rows were never read
    book = workbook(number_rows(2000, bad_row=1500), dimension="A1:B2001")
    err = refused_quickly(book, "tall.xlsx")
    assert err.code == "data.too_many_rows" and err.params == {"limit": 100}


def test_a_declared_dimension_above_the_column_limit_is_refused(monkeypatch):
    monkeypatch.setenv("PRIVCORE_MAX_COLUMNS", "50")
    err = error_of(workbook([SMALL], dimension="A1:ZZ2"), filename="wide.xlsx")
    assert err.code == "data.too_many_columns" and err.params == {"columns": 702, "limit": 50}


def test_a_sheet_without_dimension_is_read_only_up_to_the_row_limit(monkeypatch):
    monkeypatch.setenv("PRIVCORE_MAX_ROWS", "100")
    book = workbook(number_rows(2000, bad_row=1500))
    err = refused_quickly(book, "tall.xlsx")
    assert err.code == "data.too_many_rows"
    monkeypatch.setenv("PRIVCORE_MAX_ROWS", "1000")
    assert load(workbook(number_rows(1000)), filename="ok.xlsx").n_rows == 1000
    assert error_of(workbook(number_rows(1001)), filename="no.xlsx").code == "data.too_many_rows"


def test_a_wrong_small_dimension_does_not_cut_the_rows():
    book = workbook(number_rows(30), dimension="A1:B2")
    assert load(book, filename="rows.xlsx").n_rows == 30


def test_stray_cells_far_to_the_right_cost_what_they_hold(monkeypatch):
    monkeypatch.setenv("PRIVCORE_MAX_COLUMNS", "5")
    header = (
        b'<row><c r="A1" t="inlineStr"><is><t>id</t></is></c>'
        b'<c r="XFD1" t="inlineStr"><is><t>note</t></is></c></row>'
    )
    stray = b'<row><c r="A2"><v>2</v></c><c r="XFD2" t="inlineStr"><is><t>far</t></is></c></row>'
    dataset = load(workbook([header, stray]), filename="stray.xlsx")
    assert dataset.frame.to_dict("list") == {"id": [2], "note": ["far"]}
    far = (
        f'<row><c r="A{r}"><v>{r}</v></c><c r="{col}{r}"><v>1</v></c></row>'.encode()
        for r, col in enumerate(["XFA", "XFB", "XFC", "XFD"], start=3)
    )
    err = error_of(workbook([SMALL, *far]), filename="wide.xlsx")
    assert err.code == "data.too_many_columns" and err.params == {"columns": 6, "limit": 5}


def test_reading_stops_at_the_time_limit(monkeypatch):
    monkeypatch.setenv("PRIVCORE_MAX_PARSE_SECONDS", "20")
    ticks = iter(range(0, 10**6, 7))  # every look at the clock: 7 s later
    monkeypatch.setattr(budget_module, "_clock", lambda: next(ticks))
    err = error_of(workbook(number_rows(5000)), filename="slow.xlsx")
    assert err.code == "data.parse_timeout" and err.params == {"limit": 20}
    assert "20 seconds" in err.message and "PRIVCORE_MAX_PARSE_SECONDS" in err.message


def test_the_time_limit_holds_for_text_and_compressed_files(monkeypatch):
    monkeypatch.setenv("PRIVCORE_MAX_PARSE_SECONDS", "20")
    ticks = iter(range(0, 10**6, 30))
    monkeypatch.setattr(budget_module, "_clock", lambda: next(ticks))
    assert error_of(b"a,b\n1,2\n", filename="t.csv").code == "data.parse_timeout"
    ticks = iter(range(0, 10**6, 30))
    assert error_of(gzip.compress(b"a,b\n1,2\n"), filename="t.csv.gz").code == (
        "data.parse_timeout"
    )


# --------------------------------------------------------------------------- JSON lines


def deep_line(depth: int) -> bytes:
    return b'{"a": ' + b"[" * depth + b"]" * depth + b"}\n"


def test_deeply_nested_json_lines_are_a_clear_error():
    data = b'{"a": 1}\n' + deep_line(100_000)
    err = error_of(data, filename="deep.jsonl")
    assert err.code == "data.jsonl_too_deep" and err.params == {"line": 2}
    assert "Line 2" in err.message and "nested too deeply" in err.message


def test_deeply_nested_json_lines_exit_2_in_the_cli(tmp_path, capsys):
    path = tmp_path / "deep.jsonl"
    path.write_bytes(deep_line(100_000))
    assert main(["profile", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: Line 1 of the JSON lines file")


def test_a_deeply_nested_schema_file_is_a_clear_error():
    with pytest.raises(RoleError) as info:
        Schema.from_json("[" * 100_000 + "]" * 100_000)
    assert info.value.code == "roles.bad_schema_file"


# --------------------------------------------------------------------------- headers


def test_a_line_break_in_a_quoted_column_name_is_named():
    err = error_of(b'id,"first\nname",age\n1,Ann,30\n2,Bob,40\n', filename="h.csv")
    assert err.code == "data.header_line_break" and err.params == {"column": 2}
    assert "line break" in err.message and "header has 1 columns" not in err.message


def test_an_unclosed_quote_in_the_header_is_named():
    err = error_of(b'id,"name,age\n1,Ann,30\n2,Bob,40\n', filename="h.csv")
    assert err.code == "data.header_line_break" and err.params == {"column": 2}


def test_a_column_name_longer_than_1000_characters_is_refused():
    long_name = "x" * 100_000
    err = error_of(f"id,{long_name}\n1,2\n".encode(), filename="h.csv")
    assert err.code == "data.column_name_too_long"
    assert err.params == {"column": 2, "limit": 1000}
    assert "longer than 1,000 characters" in err.message
    ok = load(f"id,{'y' * 1000}\n1,2\n".encode(), filename="h.csv")
    assert list(ok.frame.columns) == ["id", "y" * 1000]
    frame = pd.DataFrame({"id": [1], long_name: [2]})
    buffer = io.BytesIO()
    frame.to_parquet(buffer)
    assert error_of(buffer.getvalue(), filename="h.parquet").code == "data.column_name_too_long"


# --------------------------------------------------------------------------- compressed

HOSPITAL = b"ZIP,Age,Disease\n47677,29,gastric ulcer\n47602,22,gastritis\n47678,27,stomach cancer\n"


def zipped(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def test_a_gzip_csv_reads_like_the_csv(tmp_path):
    plain = load(HOSPITAL, filename="hospital.csv")
    packed = load(gzip.compress(HOSPITAL), filename="hospital.csv.gz")
    pd.testing.assert_frame_equal(packed.frame, plain.frame)
    assert packed.fingerprint == plain.fingerprint
    assert (packed.name, packed.source_format) == ("hospital.csv.gz", "csv")
    assert packed.notes[0] == "Decompressed from a gzip file (hospital.csv)."
    path = tmp_path / "samples.csv.gz"
    path.write_bytes(gzip.compress(HOSPITAL))
    assert load(path).fingerprint == plain.fingerprint


@pytest.mark.parametrize("inner", ["hospital.tsv", "hospital.jsonl", "hospital.parquet"])
def test_a_zip_with_one_table_of_any_format_reads_like_it(inner):
    plain = load(HOSPITAL, filename="hospital.csv").frame
    buffer = io.BytesIO()
    if inner.endswith(".tsv"):
        plain.to_csv(buffer, sep="\t", index=False)
    elif inner.endswith(".jsonl"):
        plain.to_json(buffer, orient="records", lines=True)
    else:
        plain.to_parquet(buffer, index=False)
    archive = zipped({f"export/{inner}": buffer.getvalue(), "__MACOSX/._x": b"x", "export/": b""})
    packed = load(archive, filename="export.zip")
    pd.testing.assert_frame_equal(packed.frame, plain, check_dtype=False)
    assert packed.source_format == inner.rsplit(".", 1)[1]


def test_a_zip_with_a_workbook_inside_reads_it():
    packed = load(zipped({"small.xlsx": workbook([SMALL])}), filename="small.zip")
    assert packed.frame.to_dict("list") == {"id": [1], "value": [2]}


def test_a_zip_with_several_files_names_them():
    err = error_of(zipped({"a.csv": HOSPITAL, "b.csv": HOSPITAL}), filename="two.zip")
    assert err.code == "data.archive_members"
    assert err.params == {"count": 2, "members": "a.csv, b.csv"}
    assert "a.csv, b.csv" in err.message


def test_empty_nested_and_damaged_archives_are_clear_errors():
    assert error_of(zipped({}), filename="e.zip").code == "data.archive_empty"
    nested = gzip.compress(gzip.compress(HOSPITAL))
    assert error_of(nested, filename="x.csv.gz.gz").code == "data.nested_archive"
    inner_gzip = zipped({"x.csv.gz": gzip.compress(HOSPITAL)})
    assert error_of(inner_gzip, filename="x.zip").code == "data.nested_archive"
    truncated = gzip.compress(HOSPITAL * 50)[:60]
    err = error_of(truncated, filename="x.csv.gz")
    assert err.code == "data.bad_archive" and err.params == {"kind": "gzip"}


def test_a_gzip_bomb_stops_at_the_size_limit(monkeypatch):
    monkeypatch.setenv("PRIVCORE_MAX_FILE_MB", "1")
    bomb = gzip.compress(b"a,b\n" + b"1,2\n" * 5_000_000)  # 20 MB in ~20 KB
    assert len(bomb) < 100_000
    err = refused_quickly(bomb, "bomb.csv.gz")
    assert err.code == "data.expands_too_large" and err.params == {"limit_mb": 1}
    assert "PRIVCORE_MAX_FILE_MB" in err.message
    zip_bomb = zipped({"bomb.csv": b"a,b\n" + b"1,2\n" * 5_000_000})
    assert refused_quickly(zip_bomb, "bomb.zip").code == "data.expands_too_large"


def test_limits_apply_to_the_decompressed_table(monkeypatch):
    monkeypatch.setenv("PRIVCORE_MAX_ROWS", "2")
    assert error_of(gzip.compress(HOSPITAL), filename="h.csv.gz").code == "data.too_many_rows"


def test_the_cli_profiles_a_gzip_file(tmp_path, capsys):
    path = tmp_path / "samples.csv.gz"
    path.write_bytes(gzip.compress(HOSPITAL))
    assert main(["profile", str(path)]) == 0
    assert "3 rows × 3 columns (csv, utf-8)" in capsys.readouterr().out


# --------------------------------------------------------------------------- row limits


def test_csv_reading_stops_at_the_row_limit(monkeypatch):
    monkeypatch.setenv("PRIVCORE_MAX_ROWS", "100")
    lines = [f"{i},{i % 7}" for i in range(1000)]
    lines[500] += ",extra"  # a ragged line far beyond the limit: never reached
    err = error_of(("id,group\n" + "\n".join(lines) + "\n").encode(), filename="t.csv")
    assert err.code == "data.too_many_rows" and err.params == {"limit": 100}


def test_parquet_row_count_is_read_from_the_footer_before_the_data(monkeypatch, tmp_path):
    monkeypatch.setenv("PRIVCORE_MAX_ROWS", "100")
    path = tmp_path / "tall.parquet"
    pd.DataFrame({"id": np.arange(1000), "group": np.arange(1000) % 7}).to_parquet(path)

    def must_not_read(*args, **kwargs):
        raise AssertionError("the rows were read")

    monkeypatch.setattr(pd, "read_parquet", must_not_read)
    err = error_of(path)
    assert err.code == "data.too_many_rows" and err.params == {"limit": 100}


def test_jsonl_reading_stops_at_the_row_limit(monkeypatch):
    monkeypatch.setenv("PRIVCORE_MAX_ROWS", "100")
    lines = [f'{{"id": {i}}}' for i in range(1000)]
    lines[500] = "not json"
    err = error_of("\n".join(lines).encode(), filename="t.jsonl")
    assert err.code == "data.too_many_rows"


# --------------------------------------------------------------------------- chunks


def chunk_table() -> pd.DataFrame:
    """Columns whose chunks of 4 rows differ: values only in later chunks, missing
    whole numbers only in a later chunk, text with spaces, a key only in the last."""
    return pd.DataFrame(
        {
            "id": range(12),
            "note": [None] * 8 + ["a ", " b", None, "c"],
            "count": [1, 2, 3, 4, 5, 6, 7, 8, None, None, None, None],
            "zip": ["02139"] * 12,
        }
    )


def test_a_csv_read_in_chunks_equals_one_read(monkeypatch):
    data = chunk_table().to_csv(index=False).encode()
    whole = load(data, filename="t.csv")
    monkeypatch.setattr("privcore.data.loading.text._CSV_CHUNK_ROWS", 4)
    chunked = load(data, filename="t.csv")
    pd.testing.assert_frame_equal(chunked.frame, whole.frame)
    assert whole.frame["note"].tolist()[8:10] == ["a ", "b"]  # trailing space kept


def test_json_lines_read_in_chunks_equal_one_read(monkeypatch):
    table = chunk_table()
    lines = [row.dropna().to_json() for _, row in table.iterrows()]
    lines[-1] = lines[-1][:-1] + ', "late": "x"}'
    data = "\n".join(lines).encode()
    whole = load(data, filename="t.jsonl")
    monkeypatch.setattr("privcore.data.loading.formats._JSON_CHUNK_ROWS", 4)
    chunked = load(data, filename="t.jsonl")
    pd.testing.assert_frame_equal(chunked.frame, whole.frame)
    assert list(whole.frame.columns) == ["id", "count", "zip", "note", "late"]


def test_bundled_samples_are_read_whatever_the_row_limit(monkeypatch):
    """A demo may set PRIVCORE_MAX_ROWS below a shipped sample's size: the limit is for
    visitors' files, and the samples still load (Adult has 30,162 rows)."""
    from privcore.data import load_sample

    monkeypatch.setenv("PRIVCORE_MAX_ROWS", "5")
    dataset, _ = load_sample("adult")
    assert dataset.n_rows == 30_162
