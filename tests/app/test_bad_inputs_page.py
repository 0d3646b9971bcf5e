"""AppTest: bad input on the pages shows st.error with words a user understands, never an
exception element or the "something went wrong" apology (tests/data/bad/README.md)."""

from __future__ import annotations

import pytest

from tests.app.conftest import ROOT, new_app, no_exceptions

BAD = ROOT / "tests" / "data" / "bad"

# file → words the page's st.error must contain (the English catalogue's text)
FAILING = {
    "empty.csv": ["The file is empty"],
    "binary.csv": ["binary", "not a table"],
    "ragged.csv": ["Line 3 has 4 fields", "header has 3"],
    "wrong_encoding.csv": ["encoding", "could not be recognized", "UTF-8"],
    "duplicate_headers.csv": ["'age' appears twice", "unique"],
}
LOADING = ["huge_field.csv", "all_missing_column.csv", "one_row.csv", "nan_numeric_qi.csv"]


def plain(text: str) -> str:
    """An st.error's text without the Markdown escapes the page adds."""
    return text.replace("\\", "")


def errors(at) -> list[str]:
    return [plain(e.value) for e in at.error]


def no_apology(at) -> None:
    assert not any("went wrong" in e for e in errors(at)), errors(at)


def upload(name: str, content: bytes | None = None):
    at = new_app("data_roles.py")
    data = (BAD / name).read_bytes() if content is None else content
    at.file_uploader[0].upload(name, data, "text/csv")
    at.run()
    return at


@pytest.mark.parametrize("name", sorted(FAILING))
def test_bad_file_shows_an_error_and_keeps_the_active_dataset(name):
    at = upload(name)
    no_exceptions(at)
    no_apology(at)
    shown = errors(at)
    assert len(shown) == 1, shown
    for word in FAILING[name]:
        assert word in shown[0], (word, shown[0])
    assert "Traceback" not in shown[0]
    wb = at.session_state["workbench"]
    assert wb.active == "adult"
    assert name not in wb.uploads


@pytest.mark.parametrize("name", LOADING)
def test_loadable_bad_file_becomes_the_active_dataset(monkeypatch, name):
    monkeypatch.setenv("PRIVCORE_MAX_CELL_CHARS", "3000000")  # huge_field.csv's cell
    at = upload(name)
    no_exceptions(at)
    assert not at.error, errors(at)
    assert at.session_state["workbench"].active == name


def test_all_missing_column_is_suggested_insensitive_on_the_page():
    at = upload("all_missing_column.csv")
    editor = at.data_editor[0].value.set_index("column")
    assert editor.loc["comment", "role"] == "insensitive"
    assert editor.loc["age", "role"] == "quasi_identifier"


def test_row_limit_on_the_page_names_the_cap(monkeypatch):
    monkeypatch.setenv("PRIVCORE_MAX_ROWS", "5")
    at = upload("nan_numeric_qi.csv")
    no_exceptions(at)
    no_apology(at)
    assert any("more than 5 rows" in e for e in errors(at)), errors(at)
    assert at.session_state["workbench"].active == "adult"


def test_column_limit_on_the_page_names_the_cap(monkeypatch):
    monkeypatch.setenv("PRIVCORE_MAX_COLUMNS", "2")
    at = upload("one_row.csv")
    no_exceptions(at)
    assert any("3 columns" in e and "at most 2" in e for e in errors(at)), errors(at)


def test_file_size_limit_on_the_page_names_the_cap(monkeypatch):
    monkeypatch.setenv("PRIVCORE_MAX_FILE_MB", "1")
    at = upload("huge_field.csv")
    no_exceptions(at)
    assert any("2.0 MB" in e and "at most 1 MB" in e for e in errors(at)), errors(at)


# --------------------------------------------------------------------------- Anonymize


def open_anonymize(active: str = "hospital"):
    at = new_app()
    at.session_state["workbench"].active = active
    at.switch_page(str(ROOT / "pages" / "anonymize.py"))
    at.run()
    return at


def test_k_larger_than_the_table_shows_the_error():
    at = open_anonymize()
    no_exceptions(at)
    at.slider(key="an_k").set_value(20)
    at.button(key="an_run").click().run()
    no_exceptions(at)
    no_apology(at)
    assert any("k = 20 is larger than the table (9 rows)" in e for e in errors(at)), errors(at)


def test_l_larger_than_the_distinct_values_shows_the_error():
    at = open_anonymize()
    at.slider(key="an_k").set_value(2)
    at.button(key="an_run").click().run()
    at.checkbox(key="an_use_l").check().run()
    no_exceptions(at)
    assert not at.error, errors(at)  # l = 2 is feasible
    at.number_input(key="an_l").set_value(7.0).run()
    no_exceptions(at)
    no_apology(at)
    assert any(
        "larger than the number of distinct values" in e and "'Disease' (6)" in e
        for e in errors(at)
    ), errors(at)


# --------------------------------------------------------------------------- LDP auditor


def open_ldp():
    at = new_app()
    at.switch_page(str(ROOT / "pages" / "ldp_auditor.py"))
    at.run()
    return at


def test_epsilon_at_or_below_zero_cannot_be_entered():
    at = open_ldp()
    no_exceptions(at)
    epsilon = at.number_input(key="ldp_epsilon")
    assert epsilon.min > 0
    assert epsilon.min == 0.05


def test_epsilon_zero_in_the_sweep_list_shows_the_error():
    at = open_ldp()
    at.text_input(key="ldp_sweep_list").set_value("0, 1").run()
    at.button(key="ldp_run_sweep").click().run()
    no_exceptions(at)
    no_apology(at)
    assert any("ε must be a finite number > 0" in e for e in errors(at)), errors(at)
