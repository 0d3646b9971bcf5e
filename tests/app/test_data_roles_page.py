"""AppTest: the Data & roles page — upload, edit roles, confirm, hierarchies, schema file."""

from __future__ import annotations

import json

from privcore import history
from tests.app.conftest import ROOT, new_app, no_exceptions

GBK_CSV = (
    "姓名,性别,年龄,邮编,疾病\n张三,男,34,47677,流感\n李四,女,29,47602,胃炎\n王五,男,41,47905,流感\n"
).encode("gbk")


def upload(at, name: str, content: bytes):
    at.file_uploader[0].upload(name, content, "text/csv")
    at.run()
    return at


def workbench(at):
    return at.session_state["workbench"]


def test_page_renders_with_adult_ready():
    at = new_app("data_roles.py")
    no_exceptions(at)
    assert at.title[0].value == "Data & roles"
    assert workbench(at).active == "adult"
    editor = at.data_editor[0].value
    assert list(editor["column"])[:3] == ["sex", "age", "race"]
    assert editor.set_index("column").loc["occupation", "role"] == "sensitive"


def test_upload_chinese_file_edit_a_role_and_confirm():
    at = upload(new_app("data_roles.py"), "病人.csv", GBK_CSV)
    no_exceptions(at)
    wb = workbench(at)
    assert wb.active == "病人.csv"
    assert any("gb18030" in c.value for c in at.caption)
    editor = at.data_editor[0].value.set_index("column")
    assert editor.loc["姓名", "role"] == "identifier"
    assert editor.loc["疾病", "role"] == "sensitive"

    # change 邮编 (row 3) from quasi-identifier to insensitive, as a user edit of the grid
    at.session_state["roles::病人.csv"] = {
        "edited_rows": {3: {"role": "insensitive"}},
        "added_rows": [],
        "deleted_rows": [],
    }
    at.run()
    assert workbench(at).drafts["病人.csv"].roles["邮编"] == "insensitive"
    at.button(key="confirm::病人.csv").click().run()
    no_exceptions(at)
    confirmed = workbench(at).confirmed["病人.csv"]
    assert confirmed.roles["邮编"] == "insensitive"
    assert confirmed.quasi_identifiers == ["性别", "年龄"]

    runs = history.list_runs()
    assert len(runs) == 1 and runs[0]["kind"] == "profile"
    assert runs[0]["params"]["roles"]["邮编"] == "insensitive"
    assert runs[0]["results"]["rows"] == 3
    # only a fingerprint, never the data
    assert "张三" not in json.dumps(runs[0], ensure_ascii=False, default=str)
    assert runs[0]["dataset_sha256"] == wb_sha(at)

    # switch page: the confirmed schema is there for the others, the run on History
    at.switch_page(str(ROOT / "pages" / "history.py"))
    at.run()
    no_exceptions(at)
    shown = at.dataframe[0].value
    assert shown["kind"].tolist() == ["profile"]
    assert shown["dataset_name"].tolist() == ["病人.csv"]
    assert workbench(at).confirmed["病人.csv"].quasi_identifiers == ["性别", "年龄"]


def test_the_role_form_sets_a_role_and_keeps_the_grid_edits():
    """The keyboard's way: two lists and a button. A role set there shows in the grid,
    and an edit made in the grid before is kept."""
    at = upload(new_app("data_roles.py"), "p.csv", b"zip,age,disease\n47677,29,flu\n47602,22,flu\n")
    assert workbench(at).drafts["p.csv"].roles["age"] == "quasi_identifier"
    at.session_state["roles::p.csv"] = {
        "edited_rows": {0: {"role": "insensitive"}},  # zip, in the grid
        "added_rows": [],
        "deleted_rows": [],
    }
    at.run()
    at.selectbox(key="role_form::p.csv").set_value("age").run()
    at.selectbox(key="role_form_role::p.csv::age").set_value("sensitive").run()
    at.button(key="role_form_apply::p.csv").click().run()
    no_exceptions(at)
    roles = workbench(at).drafts["p.csv"].roles
    assert (roles["zip"], roles["age"], roles["disease"]) == (
        "insensitive",
        "sensitive",
        "sensitive",
    )
    grid = at.data_editor[0].value.set_index("column")["role"]
    assert grid.to_dict() == {"zip": "insensitive", "age": "sensitive", "disease": "sensitive"}
    at.button(key="confirm::p.csv").click().run()
    assert workbench(at).confirmed["p.csv"].roles["age"] == "sensitive"
    assert history.list_runs()[0]["params"]["roles"]["zip"] == "insensitive"


def wb_sha(at) -> str:
    wb = workbench(at)
    return wb.dataset(wb.active).fingerprint.sha256


def test_bad_upload_shows_error_and_keeps_the_active_dataset():
    at = upload(new_app("data_roles.py"), "ragged.csv", b"a,b,c\n1,2,3\n4,5\n")
    no_exceptions(at)
    assert any("Line 3 has 2 fields" in e.value for e in at.error)
    assert workbench(at).active == "adult"
    assert "ragged.csv" not in workbench(at).uploads


def test_empty_and_binary_uploads_explain_themselves():
    at = upload(new_app("data_roles.py"), "empty.csv", b"")
    assert any("empty" in e.value for e in at.error)
    at = upload(new_app("data_roles.py"), "photo.csv", b"\x89PNG\r\n\x1a\n" + bytes(64))
    assert any("PNG" in e.value for e in at.error)
    no_exceptions(at)


def test_build_and_use_a_masking_hierarchy():
    at = upload(
        new_app("data_roles.py"),
        "p.csv",
        b"zip,age,disease\n47677,29,flu\n47602,22,flu\n47905,43,cold\n",
    )
    at.selectbox(key="hcol::p.csv").set_value("zip").run()
    at.radio(key="hm::p.csv::zip").set_value("masking").run()
    at.button(key="b::zip").click().run()
    no_exceptions(at)
    assert any("Covers every value" in s.value for s in at.success)
    at.button(key="use::zip").click().run()
    no_exceptions(at)
    hierarchy = workbench(at).drafts["p.csv"].hierarchies["zip"]
    assert hierarchy.height == 5
    assert list(hierarchy.generalize_values(["47677"], 2)) == ["476**"]


def test_interval_builder_error_is_shown_inline():
    at = upload(new_app("data_roles.py"), "p.csv", b"zip,age\n47677,29\n47602,22\n")
    at.selectbox(key="hcol::p.csv").set_value("age").run()
    at.radio(key="hm::p.csv::age").set_value("intervals").run()
    at.number_input(key="w::age").set_value(0.0).run()
    at.button(key="b::age").click().run()
    no_exceptions(at)
    assert at.error, "a zero width must be refused with a message"


def test_schema_json_round_trip_through_the_page():
    at = upload(new_app("data_roles.py"), "p.csv", b"zip,age,disease\n47677,29,flu\n47602,22,flu\n")
    schema = workbench(at).draft("p.csv").with_role("age", "insensitive")
    at.file_uploader(key="schema::p.csv").upload(
        "schema.json", schema.to_json().encode(), "application/json"
    )
    at.run()
    at.button[[b.label for b in at.button].index("Apply and confirm this schema")].click().run()
    no_exceptions(at)
    assert workbench(at).confirmed["p.csv"].roles["age"] == "insensitive"


def test_bad_schema_file_is_refused():
    at = upload(new_app("data_roles.py"), "p.csv", b"zip,age\n47677,29\n47602,22\n")
    at.file_uploader(key="schema::p.csv").upload("schema.json", b"{not json", "application/json")
    at.run()
    at.button[[b.label for b in at.button].index("Apply and confirm this schema")].click().run()
    no_exceptions(at)
    assert any("not valid JSON" in e.value or "schema" in e.value for e in at.error)
    assert "p.csv" not in workbench(at).confirmed


def test_language_switch_to_chinese():
    at = new_app("data_roles.py")
    at.radio(key="lang").set_value("zh").run()
    no_exceptions(at)
    assert at.title[0].value == "数据与角色"


def test_every_hierarchy_method_renders_for_numbers_and_text():
    at = upload(
        new_app("data_roles.py"), "p.csv", b"zip,age,city\n47677,29,Lafayette\n47602,72,Gary\n"
    )
    for column in ("age", "city"):
        at.selectbox(key="hcol::p.csv").set_value(column).run()
        for method in ("intervals", "cuts", "rounding", "masking", "dates", "mapping", "arx"):
            at.radio(key=f"hm::p.csv::{column}").set_value(method).run()
            no_exceptions(at)
            assert not any("went wrong" in e.value for e in at.error), (column, method)


def test_a_session_keeps_at_most_its_limit_of_uploads_and_can_remove_one(monkeypatch):
    monkeypatch.setenv("PRIVCORE_MAX_SESSION_DATASETS", "1")
    at = upload(new_app("data_roles.py"), "first.csv", b"a,b\n1,2\n3,4\n")
    assert list(workbench(at).uploads) == ["first.csv"]
    at = upload(at, "second.csv", b"a,b\n5,6\n7,8\n")
    no_exceptions(at)
    assert list(workbench(at).uploads) == ["first.csv"]  # nothing else changed
    assert any("limit of this installation" in e.value for e in at.error), at.error
    at.button(key="remove::first.csv").click().run()
    no_exceptions(at)
    # first.csv is gone for good; second.csv, still chosen in the uploader, now fits
    assert list(workbench(at).uploads) == ["second.csv"]
    at.run()
    assert list(workbench(at).uploads) == ["second.csv"]
    assert "first.csv" not in workbench(at).drafts


def test_a_session_cannot_hold_more_upload_memory_than_its_limit(monkeypatch):
    monkeypatch.setenv("PRIVCORE_MAX_SESSION_MB", "1")
    rows = "\n".join(f"{i},{'x' * 40}{i}" for i in range(30_000))
    at = upload(new_app("data_roles.py"), "big.csv", f"id,text\n{rows}\n".encode())
    no_exceptions(at)
    assert workbench(at).uploads == {}
    assert any("MB" in e.value for e in at.error), at.error


def _columns_config(at) -> dict:
    return json.loads(at.data_editor[0].proto.columns)


def test_a_confirmed_role_other_than_the_suggestion_is_said_per_column():
    at = new_app("data_roles.py")
    no_exceptions(at)
    editor = at.data_editor[0].value.set_index("column")
    # Adult's salary-class: suggested sensitive (its name), confirmed quasi-identifier
    assert editor.loc["salary-class", "suggested"] == "sensitive"
    assert editor.loc["salary-class", "role"] == "quasi_identifier"
    assert editor.loc["salary-class", "note"] == (
        "Suggested sensitive; confirmed as quasi-identifier."
    )
    assert editor.loc["age", "note"] == ""  # the same role: nothing to say
    assert any("salary-class" in c.value and "differs" in c.value for c in at.caption)
    config = _columns_config(at)
    assert config["note"]["label"] == "Note"
    # the Review column says what its tick means and what to do
    assert "no rule" in config["review"]["help"] and "only a guess" in config["review"]["help"]

    at.radio(key="lang").set_value("zh").run()
    editor = at.data_editor[0].value.set_index("column")
    assert editor.loc["salary-class", "note"] == "建议为敏感属性；已确认为准标识符。"


def test_the_builder_starts_with_the_kind_that_fits_the_column():
    at = upload(
        new_app("data_roles.py"),
        "p.csv",
        b"zip,age,city,visit\n47677,29,Lafayette,2020-01-05\n47602,72,Gary,2021-03-09\n"
        b"47905,43,Gary,2019-12-31\n",
    )
    for column, method in (
        ("zip", "masking"),
        ("age", "intervals"),
        ("city", "mapping"),
        ("visit", "dates"),
    ):
        at.selectbox(key="hcol::p.csv").set_value(column).run()
        no_exceptions(at)
        assert at.radio(key=f"hm::p.csv::{column}").value == method, column


def test_suggested_hierarchies_are_shown_previewed_and_editable_before_use():
    rows = ["city,age,disease"] + [
        f"{c},{a},flu"
        for c, a in zip(
            ["A"] * 5 + ["B"] * 4 + ["C"] * 3 + ["D"] * 2 + ["E"], range(20, 35), strict=True
        )
    ]
    at = upload(new_app("data_roles.py"), "c.csv", ("\n".join(rows) + "\n").encode())
    listed = next(d.value for d in at.dataframe if "Kind" in d.value.columns)
    by_column = listed.set_index("Column")
    assert by_column.loc["city", "Kind"] == "Groups by frequency"
    assert by_column.loc["city", "Why"].startswith("5 text values")
    assert by_column.loc["city", "Example"] == "A → {A, B} → {A, B, C, D} → *"
    assert by_column.loc["age", "Kind"] == "Numeric intervals"

    # the city column: its suggestion previewed, the mapping table filled in from it
    at.selectbox(key="hcol::c.csv").set_value("city").run()
    assert any(m.value == "**Suggested hierarchy**" for m in at.markdown)
    assert at.number_input(key="ml::city").value == 2
    table = at.data_editor(key="mt::city::2").value.set_index("value")
    assert table.loc["E", "level 1"] == "E" and table.loc["C", "level 2"] == "{A, B, C, D}"
    # change it (E's own label at level 1) and use the edited one
    at.session_state["mt::city::2"] = {
        "edited_rows": {4: {"level 1": "rare"}},
        "added_rows": [],
        "deleted_rows": [],
    }
    at.run()
    at.button(key="b::city").click().run()
    no_exceptions(at)
    at.button(key="use::city").click().run()
    hierarchy = workbench(at).drafts["c.csv"].hierarchies["city"]
    assert list(hierarchy.generalize_values(["E", "C", "A"], 1)) == ["rare", "{C, D}", "{A, B}"]

    # the other suggestion in one click
    at.button(key="use_suggested::c.csv").click().run()
    no_exceptions(at)
    draft = workbench(at).drafts["c.csv"]
    assert draft.hierarchies["city"] == hierarchy  # the edited one is kept
    assert draft.hierarchies["age"].height >= 2
    assert not any("Kind" in d.value.columns for d in at.dataframe)  # nothing left to suggest


def test_a_csv_written_with_its_index_can_drop_or_name_that_column():
    import pandas as pd

    frame = pd.DataFrame({"zip": ["47677", "47602", "47905"], "age": [29, 22, 43]})
    at = upload(new_app("data_roles.py"), "indexed.csv", frame.to_csv().encode())
    no_exceptions(at)
    assert not at.error  # read, not refused
    assert any("row numbers 0, 1, 2" in i.value for i in at.info)
    assert list(workbench(at).uploads["indexed.csv"].frame.columns) == ["index", "zip", "age"]
    at.button(key="unnamed_drop::indexed.csv").click().run()
    no_exceptions(at)
    wb = workbench(at)
    assert list(wb.uploads["indexed.csv"].frame.columns) == ["zip", "age"]
    assert "index" not in wb.drafts["indexed.csv"].roles
    assert list(at.data_editor[0].value["column"]) == ["zip", "age"]
    assert not any("row numbers" in i.value for i in at.info)

    # or keep it under a name ("index" unless changed)
    at = upload(new_app("data_roles.py"), "named.csv", frame.to_csv().encode())
    at.text_input(key="unnamed_name::named.csv").set_value("visit").run()
    at.button(key="unnamed_keep::named.csv").click().run()
    no_exceptions(at)
    wb = workbench(at)
    assert list(wb.uploads["named.csv"].frame.columns) == ["visit", "zip", "age"]
    assert "visit" in wb.drafts["named.csv"].roles and "index" not in wb.drafts["named.csv"].roles
    # a name the table has already is refused inline
    at = upload(new_app("data_roles.py"), "taken.csv", frame.to_csv().encode())
    at.text_input(key="unnamed_name::taken.csv").set_value("zip").run()
    at.button(key="unnamed_keep::taken.csv").click().run()
    no_exceptions(at)
    assert any("already" in e.value for e in at.error)
    assert list(workbench(at).uploads["taken.csv"].frame.columns) == ["index", "zip", "age"]
