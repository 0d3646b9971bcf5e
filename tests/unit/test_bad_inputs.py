"""Bad input, file by file (tests/data/bad/), through the library and the CLI.

Each file either raises a DataFormatError whose code is stable and whose message a user
understands (one or two sentences, no traceback), or loads with the documented
behaviour (tests/data/bad/README.md). Parameter cases: k larger than the table, l larger
than the distinct values, ε ≤ 0, missing values in a numeric QI through every algorithm,
and the installation limits.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from privcore.anonymize import ALGORITHMS, anonymize
from privcore.cli import main
from privcore.data import (
    Schema,
    interval_hierarchy,
    load,
    load_sample,
    masking_hierarchy,
    profile,
    suggest_roles,
)
from privcore.errors import (
    DataFormatError,
    InfeasibleError,
    ParameterError,
    PrivcoreError,
)
from privcore.ldp.mechanisms import make
from privcore.models import DistinctLDiversity, KAnonymity, RecursiveCLDiversity

ROOT = Path(__file__).resolve().parents[2]
BAD = ROOT / "tests" / "data" / "bad"
HOSPITAL = ROOT / "assets" / "hospital"

# file → (code, words the message must contain)
FAILING = {
    "empty.csv": ("data.empty_file", ["empty"]),
    "binary.csv": ("data.binary", ["binary", "not a text table"]),
    "ragged.csv": ("data.ragged", ["Line 3", "4 fields", "header has 3"]),
    "wrong_encoding.csv": ("data.unknown_encoding", ["encoding", "UTF-8"]),
    "duplicate_headers.csv": ("data.duplicate_column", ["'age'", "twice", "unique"]),
}
LOADING = ["huge_field.csv", "all_missing_column.csv", "one_row.csv", "nan_numeric_qi.csv"]

_TRACEBACK_WORDS = ("Traceback", 'File "', "_csv", "pandas", "Exception", "Error:", "line 1,")


def assert_user_message(message: str, *words: str) -> None:
    """One line, one or two sentences, the key words, nothing from a traceback."""
    assert "\n" not in message, message
    assert len(message) < 300, message
    sentences = re.findall(r"[.!?](?=\s|$)", message)
    assert 1 <= len(sentences) <= 2, message
    for word in _TRACEBACK_WORDS:
        assert word not in message, message
    for word in words:
        assert word in message, (word, message)


def load_error(source, **kw) -> DataFormatError:
    with pytest.raises(DataFormatError) as info:
        load(source, **kw)
    return info.value


def argv(*parts: object) -> list[str]:
    """Command-line words: paths as they are, strings split on spaces."""
    words: list[str] = []
    for part in parts:
        words += [str(part)] if isinstance(part, Path) else str(part).split()
    return words


def cli_error(capsys, *parts: object) -> str:
    """Run the CLI; it must exit 2 with exactly one line on stderr starting "error:"."""
    code = main(argv(*parts))
    captured = capsys.readouterr()
    assert code == 2, (code, captured.out, captured.err)
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("error: "), lines[0]
    assert captured.out == ""
    return lines[0].removeprefix("error: ")


# --------------------------------------------------------------------------- the corpus


def test_the_corpus_is_complete_and_small():
    names = {p.name for p in BAD.glob("*.csv")}
    assert names == set(FAILING) | set(LOADING)
    assert (BAD / "README.md").is_file()
    assert (BAD / "empty.csv").stat().st_size == 0
    for path in BAD.glob("*.csv"):
        limit = 2_100_000 if path.name == "huge_field.csv" else 100_000
        assert path.stat().st_size < limit, path.name
    readme = (BAD / "README.md").read_text(encoding="utf-8")
    for name in names:
        assert f"`{name}`" in readme, name


def test_the_broken_files_are_broken_as_described():
    assert b"\x00" in (BAD / "binary.csv").read_bytes()[:100]
    raw = (BAD / "wrong_encoding.csv").read_bytes()
    with pytest.raises(UnicodeDecodeError):
        raw.decode("utf-8")
    assert "年齢" in raw.decode("shift_jis")
    huge = (BAD / "huge_field.csv").read_text(encoding="utf-8")
    assert max(len(line) for line in huge.splitlines()) > 2_000_000


# --------------------------------------------------------------------------- library


@pytest.mark.parametrize("name", sorted(FAILING))
def test_library_refuses_the_file_with_a_clear_message(name):
    code, words = FAILING[name]
    err = load_error(BAD / name)
    assert err.code == code
    assert_user_message(err.message, *words)
    # an upload (bytes and a file name) gives the same error as the path
    again = load_error((BAD / name).read_bytes(), filename=name)
    assert (again.code, again.message) == (err.code, err.message)


def test_ragged_names_the_short_row_once_the_long_one_is_fixed():
    lines = (BAD / "ragged.csv").read_text().splitlines(keepends=True)
    assert len(lines[2].split(",")) == 4 and len(lines[3].split(",")) == 2
    fixed = "".join([*lines[:2], ",".join(lines[2].split(",")[:3]) + "\n", *lines[3:]])
    err = load_error(fixed.encode(), filename="ragged.csv")
    assert err.code == "data.ragged"
    assert err.params == {"line": 4, "expected": 3, "found": 2}
    assert_user_message(err.message, "Line 4", "2 fields", "header has 3")


def test_duplicate_header_error_carries_the_columns():
    err = load_error(BAD / "duplicate_headers.csv")
    assert err.params == {"column": "age", "first": 2, "second": 4}


def test_huge_field_loads_intact(monkeypatch):
    # above the default cell limit (PRIVCORE_MAX_CELL_CHARS, 100,000): raised to read it
    monkeypatch.setenv("PRIVCORE_MAX_CELL_CHARS", "3000000")
    ds = load(BAD / "huge_field.csv")
    assert ds.frame.shape == (3, 4)
    notes = ds.frame["notes"]
    assert notes.str.len().iloc[0] == 2_000_000
    assert notes.iloc[0].startswith("lorem ipsum, dolor")
    assert notes.isna().tolist() == [False, True, False]
    assert ds.frame["age"].tolist() == [29, 22, 27]
    table = profile(ds.frame).set_index("column")
    assert table.loc["notes", "missing"] == 1


def test_huge_field_with_a_short_row_is_still_ragged(monkeypatch):
    # The check for short rows re-reads quoted files with the csv module, whose default
    # field limit (131,072 characters) used to raise a raw _csv.Error here.
    monkeypatch.setenv("PRIVCORE_MAX_CELL_CHARS", "3000000")
    raw = (BAD / "huge_field.csv").read_bytes() + b"47679,33\n"
    err = load_error(raw, filename="huge_field.csv")
    assert err.code == "data.ragged"
    assert err.params == {"line": 5, "expected": 4, "found": 2}


def test_wrong_encoding_is_refused_not_garbled():
    # Read as Latin-1, Shift-JIS used to load silently as mojibake column names.
    err = load_error(BAD / "wrong_encoding.csv")
    assert_user_message(err.message, "could not be recognized", "Save it as UTF-8")


@pytest.mark.parametrize(("encoding", "label"), [("utf-16-le", "LE"), ("utf-16-be", "BE")])
def test_utf16_without_bom_is_named(encoding, label):
    text = "name,age,zip\nAnn,34,02139\nBob,29,02140\n"
    err = load_error(text.encode(encoding), filename="u16.csv")
    assert err.code == "data.utf16_no_bom"
    assert err.params == {"encoding": f"UTF-16-{label}"}
    assert_user_message(err.message, f"UTF-16-{label}", "byte-order mark", "UTF-8")
    chinese = "姓名,年龄\n张三,34\n李四,29\n".encode(encoding)
    assert load_error(chinese, filename="u16.csv").code == "data.utf16_no_bom"


def test_latin1_and_windows1252_text_still_load():
    text = "name,city\nMüller,Köln\nGarçon,Besançon\nJosé,São Paulo\n"
    for encoding in ("latin-1", "cp1252"):
        ds = load(text.encode(encoding), filename="l1.csv")
        assert ds.frame["city"].tolist() == ["Köln", "Besançon", "São Paulo"]
    ds = load("name,price\nA,€5\nB,“7”\n".encode("cp1252"), filename="w.csv")
    assert ds.frame["price"].tolist() == ["€5", "“7”"]


def test_random_bytes_without_nul_are_refused():
    rng = np.random.default_rng(7)
    noise = rng.integers(1, 256, size=4096, dtype=np.uint8).tobytes()
    err = load_error(noise, filename="noise.csv")
    assert err.code in ("data.unknown_encoding", "data.binary", "data.ragged", "data.no_header")
    assert_user_message(err.message)


def test_all_missing_column_is_profiled_empty_and_suggested_insensitive():
    ds = load(BAD / "all_missing_column.csv")
    assert ds.frame.shape == (4, 4)
    assert ds.frame["comment"].isna().all()
    table = profile(ds.frame).set_index("column")
    assert table.loc["comment", "type"] == "empty"
    assert table.loc["comment", "missing"] == 4
    assert table.loc["comment", "distinct"] == 0
    assert table.loc["comment", "uniqueness"] == 0.0
    suggestion = {s.column: s for s in suggest_roles(ds.frame)}["comment"]
    assert (suggestion.role.value, suggestion.rule) == ("insensitive", "constant")


def test_one_row_loads():
    ds = load(BAD / "one_row.csv")
    assert ds.n_rows == 1
    assert ds.frame.iloc[0].tolist() == [47677, 29, "flu"]
    assert profile(ds.frame)["distinct"].tolist() == [1, 1, 1]
    assert len(suggest_roles(ds.frame)) == 3


def test_nan_numeric_qi_loads_with_missing_counted():
    ds = load(BAD / "nan_numeric_qi.csv")
    age = ds.frame["age"]
    assert pd.api.types.is_float_dtype(age.dtype)
    assert age.isna().tolist() == [False, True, False, True, False, True, False, False]
    row = profile(ds.frame).set_index("column").loc["age"]
    assert (row["type"], row["missing"], row["distinct"]) == ("integer", 3, 5)


# --------------------------------------------------------------------------- CLI


@pytest.mark.parametrize("name", sorted(FAILING))
def test_cli_profile_exits_2_with_one_line(capsys, name):
    _, words = FAILING[name]
    message = cli_error(capsys, "profile", BAD / name)
    assert_user_message(message, *words)


@pytest.mark.parametrize("name", LOADING)
def test_cli_profile_reads_the_loadable_files(capsys, monkeypatch, name):
    monkeypatch.setenv("PRIVCORE_MAX_CELL_CHARS", "3000000")  # huge_field.csv's cell
    assert main(argv("profile", BAD / name)) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    assert f"{name}:" in captured.out


@pytest.mark.parametrize("name", sorted(FAILING))
def test_cli_anonymize_measure_and_audit_refuse_the_file(capsys, tmp_path, name):
    out = tmp_path / "release.csv"
    anonymize_options = "--qi zip,age --sa disease --algorithm mondrian --quiet --out"
    cli_error(capsys, "anonymize", BAD / name, anonymize_options, out)
    assert not out.exists()
    release = HOSPITAL / "hospital_release.csv"
    cli_error(
        capsys, "measure --original", BAD / name, "--release", release, "--qi ZIP,Age --sa Disease"
    )
    cli_error(
        capsys,
        "audit --samples-file",
        BAD / name,
        "--input-col zip --output-col age --claimed-epsilon 1 --quiet",
    )


def test_cli_anonymize_k_larger_than_one_row(capsys, tmp_path):
    message = cli_error(
        capsys,
        "anonymize",
        BAD / "one_row.csv",
        "--qi zip,age --sa disease --algorithm mondrian --k 20 --quiet --out",
        tmp_path / "r.csv",
    )
    assert_user_message(message, "k = 20", "larger than the table")


def test_cli_anonymize_nan_qi_with_condensation(capsys, tmp_path):
    message = cli_error(
        capsys,
        "anonymize",
        BAD / "nan_numeric_qi.csv",
        "--qi zip,age --sa disease --algorithm condensation --quiet --out",
        tmp_path / "r.csv",
    )
    assert_user_message(message, "Condensation", "age", "missing")


def test_cli_anonymize_nan_qi_with_mondrian_writes_a_release(capsys, tmp_path):
    out = tmp_path / "r.csv"
    options = "--qi zip,age --sa disease --algorithm mondrian --quiet --out"
    assert main(argv("anonymize", BAD / "nan_numeric_qi.csv", options, out)) == 0
    capsys.readouterr()
    assert len(load(out).frame) == 8


@pytest.mark.parametrize("epsilon", ["0", "-1", "nan"])
def test_cli_audit_epsilon_not_positive(capsys, epsilon):
    message = cli_error(capsys, f"audit --mechanism grr --epsilon={epsilon} --domain 5")
    assert_user_message(message, "--epsilon", "above 0")


# --------------------------------------------------------------------------- parameters


def hospital():
    dataset, schema = load_sample("hospital")
    return dataset.frame, schema


def test_k_larger_than_the_table():
    frame = load(BAD / "one_row.csv").frame
    schema = Schema({"zip": "quasi_identifier", "age": "quasi_identifier", "disease": "sensitive"})
    for name in ("mondrian", "condensation"):
        with pytest.raises(InfeasibleError, match="larger than the table") as info:
            anonymize(frame, schema, [KAnonymity(20)], algorithm=name)
        assert info.value.code == "anonymize.k_too_large"
        assert info.value.params == {"k": 20, "rows": 1}
        assert_user_message(info.value.message, "k = 20", "(1 row)")
    frame, schema = hospital()
    for name in ALGORITHMS:
        with pytest.raises(InfeasibleError, match="larger than the table") as info:
            anonymize(frame, schema, [KAnonymity(20)], algorithm=name)
        assert info.value.params == {"k": 20, "rows": 9}


@pytest.mark.parametrize("model", [DistinctLDiversity(7), RecursiveCLDiversity(3.0, 7)])
def test_l_larger_than_the_distinct_values(model):
    frame, schema = hospital()
    assert frame["Disease"].nunique() == 6
    with pytest.raises(InfeasibleError) as info:
        anonymize(frame, schema, [KAnonymity(2), model], algorithm="optimal")
    assert info.value.code == "anonymize.l_too_large"
    assert info.value.params == {"l": 7, "column": "Disease", "distinct": 6}
    assert_user_message(info.value.message, "l = 7", "distinct values", "'Disease'", "(6)")


def test_l_on_an_all_missing_sensitive_column():
    frame = load(BAD / "all_missing_column.csv").frame
    schema = Schema({"zip": "quasi_identifier", "age": "quasi_identifier", "comment": "sensitive"})
    with pytest.raises(InfeasibleError) as info:
        anonymize(frame, schema, [KAnonymity(2), DistinctLDiversity(2)], algorithm="mondrian")
    assert info.value.code == "anonymize.l_too_large"


@pytest.mark.parametrize("epsilon", [0, 0.0, -1, -1e-9, float("nan"), float("-inf")])
def test_epsilon_not_positive(epsilon):
    with pytest.raises(ParameterError) as info:
        make("grr", epsilon, d=5)
    assert info.value.code == "ldp.bad_epsilon"
    assert_user_message(info.value.message, "ε", "> 0")


# --------------------------------------------------------------- missing values in a QI


def nan_problem(with_hierarchies: bool = True) -> tuple[pd.DataFrame, Schema]:
    frame = load(BAD / "nan_numeric_qi.csv").frame
    schema = Schema({"zip": "quasi_identifier", "age": "quasi_identifier", "disease": "sensitive"})
    if with_hierarchies:
        schema = schema.with_hierarchy(
            "age", interval_hierarchy(frame["age"], width=10)
        ).with_hierarchy("zip", masking_hierarchy(frame["zip"]))
    return frame, schema


def smallest_class(release_frame: pd.DataFrame, qi: list[str]) -> int:
    """Rows sharing every QI value (missing counts as one value of its own)."""
    keys = release_frame[qi].astype("string").fillna("<NA>")
    return int(keys.value_counts().min())


@pytest.mark.parametrize("algorithm", list(ALGORITHMS))
@pytest.mark.parametrize("with_hierarchies", [True, False])
def test_missing_numeric_qi_through_every_algorithm(algorithm, with_hierarchies):
    frame, schema = nan_problem(with_hierarchies)
    try:
        release = anonymize(frame, schema, [KAnonymity(2)], algorithm=algorithm, seed=1)
    except PrivcoreError as exc:
        assert_user_message(exc.message)
        if algorithm == "condensation":
            assert exc.code == "anonymize.condensation_missing"
            assert_user_message(exc.message, "Condensation", "age", "missing")
        elif algorithm == "mdav":  # averages need every value
            assert exc.code == "anonymize.numeric_qi_incomplete"
            assert_user_message(exc.message, "MDAV", "age", "missing")
        elif algorithm == "local_suppression":  # rows blanked in every QI, limit 0
            assert exc.code == "anonymize.suppression_over_limit"
            assert_user_message(exc.message, "Local suppression", "suppression limit")
        else:  # without hierarchies a lattice algorithm asks for them
            assert not with_hierarchies and exc.code == "hierarchy.missing_qi"
        return
    assert algorithm not in ("condensation", "mdav")
    assert len(release.frame) == len(frame)
    assert release.n_suppressed == 0
    if ALGORITHMS[algorithm].enforces_models:  # perturbation reports the k it has
        assert smallest_class(release.frame, ["zip", "age"]) >= 2
        assert release.measurement.to_dict()["k"] >= 2
    # no label made of a missing value ("nan", "[nan-nan]")
    assert release.frame["age"].astype("string").str.contains("nan", case=False).sum() == 0


@pytest.mark.parametrize("algorithm", list(ALGORITHMS))
def test_missing_numeric_qi_with_l_diversity(algorithm):
    frame, schema = nan_problem()
    try:
        release = anonymize(
            frame, schema, [KAnonymity(2), DistinctLDiversity(2)], algorithm=algorithm
        )
    except PrivcoreError as exc:
        assert algorithm in ("condensation", "mdav", "local_suppression"), exc
        if algorithm == "local_suppression":  # rows blanked in every QI, limit 0
            assert exc.code == "anonymize.suppression_over_limit"
        assert_user_message(exc.message)
        return
    if ALGORITHMS[algorithm].enforces_models:
        assert smallest_class(release.frame, ["zip", "age"]) >= 2


def test_infinite_numeric_qi_is_refused_by_condensation_and_mondrian():
    # pandas reads "inf" in a CSV as infinity: condensation used to release NaN records
    # and Mondrian NaN information loss, both without a word.
    frame = load(b"zip,age,disease\n1,inf,flu\n2,3,flu\n3,4,cold\n4,5,cold\n", filename="i.csv")
    schema = Schema({"zip": "quasi_identifier", "age": "quasi_identifier", "disease": "sensitive"})
    with pytest.raises(ParameterError) as info:
        anonymize(frame.frame, schema, [KAnonymity(2)], algorithm="condensation")
    assert info.value.code == "anonymize.condensation_missing"
    assert_user_message(info.value.message, "age", "infinite")
    with pytest.raises(ParameterError) as info:
        anonymize(frame.frame, schema, [KAnonymity(2)], algorithm="mondrian")
    assert info.value.code == "anonymize.infinite_values"
    assert_user_message(info.value.message, "'age'", "infinite", "Mondrian")


# --------------------------------------------------------------------------- limits


def test_row_limit_names_the_cap_and_the_variable(monkeypatch, capsys):
    monkeypatch.setenv("PRIVCORE_MAX_ROWS", "5")
    err = load_error(BAD / "nan_numeric_qi.csv")
    assert err.code == "data.too_many_rows" and err.params == {"limit": 5}
    assert_user_message(err.message, "more than 5 rows", "PRIVCORE_MAX_ROWS")
    message = cli_error(capsys, "profile", BAD / "nan_numeric_qi.csv")
    assert "PRIVCORE_MAX_ROWS" in message
    # a DataFrame source and other formats honour the same limit
    frame = pd.DataFrame({"a": range(6), "b": range(6)})
    assert load_error(frame).code == "data.too_many_rows"
    assert load(frame.head(5)).n_rows == 5


def test_column_limit_names_the_cap_and_the_variable(monkeypatch, capsys):
    monkeypatch.setenv("PRIVCORE_MAX_COLUMNS", "2")
    err = load_error(BAD / "one_row.csv")
    assert err.code == "data.too_many_columns"
    assert err.params == {"columns": 3, "limit": 2}
    assert_user_message(err.message, "3 columns", "at most 2", "PRIVCORE_MAX_COLUMNS")
    assert "PRIVCORE_MAX_COLUMNS" in cli_error(capsys, "profile", BAD / "one_row.csv")


def test_file_size_limit_names_the_cap_and_the_variable(monkeypatch, capsys):
    monkeypatch.setenv("PRIVCORE_MAX_FILE_MB", "1")
    for source in (BAD / "huge_field.csv", (BAD / "huge_field.csv").read_bytes()):
        err = load_error(source, filename="huge_field.csv")
        assert err.code == "data.too_large"
        assert err.params == {"size_mb": 2.0, "limit_mb": 1}
        assert_user_message(err.message, "2.0 MB", "at most 1 MB", "PRIVCORE_MAX_FILE_MB")
    assert "PRIVCORE_MAX_FILE_MB" in cli_error(capsys, "profile", BAD / "huge_field.csv")
    assert load(BAD / "one_row.csv").n_rows == 1  # small files still load


@pytest.mark.parametrize("raw", ["", "abc", "0", "-3"])
def test_unusable_limit_values_fall_back_to_the_default(monkeypatch, raw):
    monkeypatch.setenv("PRIVCORE_MAX_ROWS", raw)
    assert load(BAD / "nan_numeric_qi.csv").n_rows == 8


def test_roll_and_audit_sample_limits_name_the_variable(monkeypatch, capsys):
    monkeypatch.setenv("PRIVCORE_MAX_ROLL", "50")
    message = cli_error(
        capsys,
        "attack --original",
        HOSPITAL / "hospital.csv",
        "--release",
        HOSPITAL / "hospital_release.csv",
        "--qi ZIP,Age --sa Disease --roll-size 100 --quiet",
    )
    assert_user_message(message, "100", "50", "PRIVCORE_MAX_ROLL")
    monkeypatch.setenv("PRIVCORE_MAX_AUDIT_SAMPLES", "1000")
    message = cli_error(
        capsys, "audit --mechanism grr --epsilon 1 --domain 5 --samples 5000 --quiet"
    )
    assert_user_message(message, "5,000", "1,000", "PRIVCORE_MAX_AUDIT_SAMPLES")


def test_an_unreadable_file_keeps_its_path_as_given_in_the_message():
    """The system's reason fills the message's own place for it, never text inside the
    path (a path holding "{reason}" is written as it is)."""
    import pytest

    from privcore.data.hierarchy.arx import _read_source
    from privcore.errors import HierarchyError, ParameterError
    from privcore.report.redo import file_record

    path = "/nonexistent/{reason}.csv"
    with pytest.raises(ParameterError) as caught:
        file_record(path, "original")
    assert str(caught.value) == f"Cannot read the original file {path}: No such file or directory."
    with pytest.raises(HierarchyError) as caught:
        _read_source(path)
    assert str(caught.value) == (
        f"The hierarchy file '{path}' could not be read: No such file or directory."
    )
    assert caught.value.params == {"path": path}


def test_limit_errors_name_the_figure_then_the_limit_then_where():
    """The params of a limit error, as the history keeps them: the figure measured, the
    installation's limit, then where it was found."""
    from privcore.data.budget import ReadBudget

    budget = ReadBudget(10, 20, 1, 5)
    assert list(budget.cell_too_long(24, line=2).params) == ["chars", "limit", "line"]
    assert list(budget.cell_too_long(24, column="a").params) == ["chars", "limit", "column"]
    assert budget.too_many_columns(50).params == {"columns": 50, "limit": 20}
