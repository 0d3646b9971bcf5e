"""AppTest: a table opened in an engine (DuckDB) — open, profile, roles, hierarchies,
anonymize to a file, measure, attack and report on that file."""

from __future__ import annotations

import pandas as pd
import pytest

from privcore import history
from privcore.config import local_tables_allowed
from privcore.data import Hierarchy, load_sample
from privcore.words.catalog import texts_of
from tests.app.conftest import ROOT, new_app, no_exceptions
from ui.common.i18n import escape_md

ROWS = 2000
QI = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass"]


@pytest.fixture(scope="module")
def adult_rows() -> pd.DataFrame:
    """The first 2,000 rows of the bundled Adult sample, 50 of its workclass cells missing."""
    frame = load_sample("adult")[0].frame.head(ROWS).reset_index(drop=True).copy()
    frame.loc[frame.index % 40 == 3, "workclass"] = None
    return frame


@pytest.fixture
def parquet_file(tmp_path, adult_rows) -> str:
    path = tmp_path / "adult_2000.parquet"
    adult_rows.to_parquet(path, index=False)
    return str(path)


def workbench(at):
    return at.session_state["workbench"]


def open_table(at, path: str):
    at.text_input(key="lt_path").input(path)
    at.button(key="lt_open").click().run()
    return at


def confirmed_on(path: str, page: str):
    """The table at ``path`` opened, the suggested roles and hierarchies confirmed, then
    ``page`` (a file of pages/) shown: the app and the table's key."""
    at = open_table(new_app("data_roles.py"), path)
    key = workbench(at).active
    at.button(key=f"lt_use_all::{key}").click().run()
    at.button(key=f"confirm::{key}").click().run()
    at.switch_page(str(ROOT / "pages" / page))
    at.run()
    return at, key


def errors(at) -> list[str]:
    return [e.value for e in at.error]


def assert_same_attack(attacked, original: str, release, schema, *, roll_size: int, seed: int):
    """The page's attack equals :func:`privcore.runs.tables.attack_tables` called directly
    on the same two files, paired by position, in an engine of its own."""
    from privcore.engines.duckdb_engine import DuckDBEngine
    from privcore.runs import AttackRequest
    from privcore.runs.tables import attack_tables

    engine = DuckDBEngine()
    defaults = AttackRequest()
    direct, _ = attack_tables(
        engine,
        engine.scan(original),
        engine.scan(str(release)),
        qi=schema.quasi_identifiers,
        sa=schema.sensitive,
        hierarchies=dict(schema.hierarchies),
        roll_size=roll_size,
        seed=seed,
        tau=defaults.tau,
        risk_threshold=defaults.risk_threshold,
        tolerance=defaults.tolerance,
    )
    mine, theirs = attacked.to_dict(), direct.to_dict()
    mine.pop("seconds"), theirs.pop("seconds")
    assert mine == theirs
    assert mine["roll"]["size"] == roll_size and mine["roll"]["seed"] == seed
    pd.testing.assert_frame_equal(attacked.roll.frame, direct.roll.frame)


def test_local_tables_follow_the_setting_and_the_demo_scope(monkeypatch):
    monkeypatch.delenv("PRIVCORE_LOCAL_TABLES", raising=False)
    monkeypatch.delenv("PRIVCORE_HISTORY_SCOPE", raising=False)
    assert local_tables_allowed()
    monkeypatch.setenv("PRIVCORE_HISTORY_SCOPE", "session")  # the hosted demo
    assert not local_tables_allowed()
    monkeypatch.setenv("PRIVCORE_LOCAL_TABLES", "1")
    assert local_tables_allowed()
    monkeypatch.setenv("PRIVCORE_LOCAL_TABLES", "0")
    monkeypatch.delenv("PRIVCORE_HISTORY_SCOPE")
    assert not local_tables_allowed()


def test_open_a_parquet_file_facts_preview_and_profile(parquet_file, adult_rows):
    at = open_table(new_app("data_roles.py"), parquet_file)
    no_exceptions(at)
    assert errors(at) == []
    wb = workbench(at)
    assert wb.active == "adult_2000.parquet · DuckDB"
    table = wb.table()
    assert table.rows == ROWS and table.columns == list(adult_rows.columns)
    assert len(table.preview) == 200  # nothing of the rows in memory but the preview
    assert any("2,000 rows (counted by DuckDB) · 9 columns" in c.value for c in at.caption)
    assert at.sidebar.selectbox[0].value == wb.active  # selectable like an upload
    # the preview tab shows the first 200 rows, as read
    preview = next(d.value for d in at.dataframe if len(d.value) == 200)
    assert preview["age"].tolist() == adult_rows["age"].head(200).tolist()
    # the profile: distinct values counted by the engine, as pandas counts them
    profile = table.profile.set_index("column")
    for column in adult_rows.columns:
        assert profile.loc[column, "distinct"] == adult_rows[column].nunique(), column
        assert profile.loc[column, "missing"] == adult_rows[column].isna().sum(), column
    assert profile.loc["workclass", "missing"] == 50
    assert profile.loc["age", "min"] == adult_rows["age"].min()
    assert profile.loc["age", "max"] == adult_rows["age"].max()
    assert profile.loc["sex", "top"].startswith("Male (")
    # the roles suggested from that profile and the column names
    roles = {s.column: s.role.value for s in table.suggestions}
    assert roles["age"] == "quasi_identifier" and roles["occupation"] == "sensitive"
    assert any("engine's profile of the whole table" in c.value for c in at.caption)


def test_a_column_with_more_values_than_the_profile_holds(tmp_path, adult_rows, monkeypatch):
    from ui.data import table_open as large_table

    monkeypatch.setattr(large_table, "PROFILE_LIMIT", 500)
    frame = adult_rows.assign(code=range(ROWS))  # 2,000 distinct values, above 500
    frame.to_parquet(tmp_path / "coded.parquet", index=False)
    at = open_table(new_app("data_roles.py"), str(tmp_path / "coded.parquet"))
    no_exceptions(at)
    table = workbench(at).table()
    profile = table.profile.set_index("column")
    assert pd.isna(profile.loc["code", "distinct"]) and table.distinct["code"] is None
    assert profile.loc["age", "distinct"] == adult_rows["age"].nunique()
    shown = next(d.value for d in at.dataframe if "Distinct" in d.value.columns)
    assert shown.set_index("Column").loc["code", "Distinct"] == "more than 500"
    code = next(s for s in table.suggestions if s.column == "code")
    assert code.role.value == "quasi_identifier" and code.confidence == "low"  # to review
    assert any("code: no hierarchy can be suggested" in w.value for w in at.warning)


def test_open_a_csv_file_and_a_missing_path(tmp_path, adult_rows):
    at = open_table(new_app("data_roles.py"), str(tmp_path / "no_such_table.parquet"))
    no_exceptions(at)
    assert any("No file matches" in e for e in errors(at))
    assert not workbench(at).tables

    csv = tmp_path / "adult_2000.csv"
    adult_rows.to_csv(csv, index=False)
    at = open_table(at, str(csv))
    no_exceptions(at)
    table = workbench(at).table()
    assert table.rows == ROWS
    read = pd.read_csv(csv)
    profile = table.profile.set_index("column")
    assert [profile.loc[c, "distinct"] for c in read.columns] == read.nunique().tolist()


def test_the_hosted_demo_offers_no_local_tables(monkeypatch):
    monkeypatch.setenv("PRIVCORE_LOCAL_TABLES", "0")
    at = new_app("data_roles.py")
    no_exceptions(at)
    assert not [w for w in at.text_input if w.key == "lt_path"]
    assert any("off in this installation" in i.value for i in at.info)


def test_roles_hierarchies_anonymize_measure_on_the_engine(parquet_file, tmp_path):
    at = open_table(new_app("data_roles.py"), parquet_file)
    wb = workbench(at)
    key = wb.active
    editor = at.data_editor[0].value.reset_index(drop=True)
    row = int(editor.index[editor["column"] == "salary-class"][0])
    at.session_state[f"roles::{key}"] = {
        "edited_rows": {row: {"role": "insensitive"}},
        "added_rows": [],
        "deleted_rows": [],
    }
    at.run()
    assert wb.draft(key).sensitive == ["occupation"]

    # an ARX hierarchy imported for age, the suggested ones for the other QIs
    arx = (ROOT / "assets" / "adult" / "adult_hierarchy_age.csv").read_bytes()
    at.selectbox(key=f"lt_hcol::{key}").set_value("age").run()
    at.file_uploader(key=f"lt_arx::{key}::age").upload("age.csv", arx, "text/csv").run()
    at.button(key="lt_import::age").click().run()
    no_exceptions(at)
    assert wb.draft(key).hierarchies["age"] == Hierarchy.read_arx(arx, name="age")
    at.button(key=f"lt_use_all::{key}").click().run()
    at.button(key=f"confirm::{key}").click().run()
    no_exceptions(at)
    schema = wb.confirmed[key]
    assert schema.quasi_identifiers == QI and sorted(schema.hierarchies) == sorted(QI)
    assert schema.hierarchies["age"] == Hierarchy.read_arx(arx, name="age")

    # Anonymize: the four full-domain algorithms and Mondrian; KACA and condensation not
    at.switch_page(str(ROOT / "pages" / "anonymize.py"))
    at.run()
    no_exceptions(at)
    offered = at.selectbox(key="an_algorithm").options
    assert "KACA" not in offered and "Condensation" not in offered and "Mondrian" in offered
    assert any("KACA, Condensation" in c.value for c in at.caption)
    out_box = at.text_input(key=f"an_out::{key}::optimal")
    assert out_box.value == "data/releases/adult_2000_optimal.parquet"
    out = tmp_path / "releases" / "adult_k5.parquet"
    out_box.input(str(out))
    at.checkbox(key=f"an_keep_order::{key}").check()
    at.slider(key="an_k").set_value(5)
    at.button(key="an_run").click().run()
    no_exceptions(at)
    assert errors(at) == []
    written = pd.read_parquet(out)
    assert len(written) == ROWS
    k_written = int(written.groupby(QI, dropna=False).size().min())
    assert k_written >= 5
    made = at.session_state["an_table_made"][key]["outcome"]
    assert made.result.to_dict()["k"] == k_written
    runs = history.list_runs(kind="anonymize")
    assert len(runs) == 1 and runs[0]["status"] == "ok" and runs[0]["page"] == "anonymize"
    assert runs[0]["dataset_rows"] == ROWS
    assert any(str(out) in element.value for element in at.text)
    assert any("not added to the releases of the session" in i.value for i in at.info)
    assert not wb.shelf
    at.session_state["an_table_view"] = "Frequency set"
    at.run()
    no_exceptions(at)
    counted = at.dataframe[-1].value  # the frequency set's rows, their counts labelled
    release = made.result.release
    assert len(counted) == min(len(release.frame), 1000) < ROWS
    assert counted["records (count)"].tolist() == release.weights[: len(counted)].tolist()
    assert int(release.weights.sum()) == ROWS

    # Privacy level: the file just written, offered by default, paired by position
    at.switch_page(str(ROOT / "pages" / "privacy_level.py"))
    at.run()
    no_exceptions(at)
    assert at.text_input(key=f"pl_release_file::{key}").value == str(out)
    at.button(key="pl_measure").click().run()
    no_exceptions(at)
    assert errors(at) == []
    measured = at.session_state["pl_table_measured"][key]["value"]
    assert measured.result.to_dict()["k"] == k_written
    assert any(m.label == "k achieved" and m.value == str(k_written) for m in at.metric)
    assert [r["page"] for r in history.list_runs(kind="measure")] == ["privacy_level"]

    # Privacy level, risk beyond class sizes: the same file, from the joint frequency set
    at.number_input(key="pl_risk_fraction").set_value(0.05)
    at.button(key="pl_risk_assess").click().run()
    no_exceptions(at)
    assert errors(at) == []
    assessed = at.session_state["pl_table_risk"][key]["value"].result.to_dict()
    assert assessed["sampling_fraction"] == 0.05
    assert assessed["suda2"]["special_uniques"] == 0  # k = 5: no sample unique
    assert assessed["control"]["training_rows"] + assessed["control"]["control_rows"] == ROWS
    assert any(m.label == "SUDA2 special uniques" and m.value == "0" for m in at.metric)
    shown = at.dataframe[-1].value
    assert "Singling out" in set(shown.iloc[:, 0])
    risk_runs = history.list_runs(kind="risk")
    assert [r["page"] for r in risk_runs] == ["privacy_level"]
    assert risk_runs[0]["params"]["engine"] == "duckdb"

    # Attack: the same file, paired by position, with the roll size and seed chosen
    at.switch_page(str(ROOT / "pages" / "attack.py"))
    at.run()
    no_exceptions(at)
    assert errors(at) == []
    assert at.text_input(key=f"at_release_file::{key}").value == str(out)
    assert any("whole quasi-identifier tuples" in c.value for c in at.caption)
    at.slider(key="at_roll_size").set_value(3 * ROWS)
    at.number_input(key="at_seed").set_value(7)
    at.button(key="at_run").click().run()
    no_exceptions(at)
    assert errors(at) == []
    attacked = at.session_state["at_table_attacked"][key]["value"].result
    assert_same_attack(attacked, parquet_file, out, schema, roll_size=3 * ROWS, seed=7)
    after, before = attacked.linkage["after"].summary, attacked.linkage["before"].summary
    shown = {m.label: m.value for m in at.metric}
    assert shown["People of the data set in the roll"] == f"{ROWS:,}"
    assert shown["Re-identified"] == f"{after['reidentified']:,}"
    assert before["reidentified"] > after["reidentified"]  # k = 5 hides who is who
    # the roll names nobody: its rows and the targets' rows carry counts of people
    assert any("it names nobody" in i.value for i in at.info)
    roll_shown = next(d.value for d in at.dataframe if "in the data set" in d.value.columns)
    roll = attacked.roll.frame
    assert roll_shown["people (count)"].tolist() == roll["count"].head(50).tolist()
    targets_shown = next(d.value for d in at.dataframe if "Candidate records" in d.value.columns)
    assert "Name" not in targets_shown.columns
    targets = attacked.linkage["after"].targets
    first = targets.sort_values("candidate_records", kind="stable").head(200)
    assert targets_shown["people (count)"].tolist() == first["people"].tolist()
    assert int(targets["people"].sum()) == ROWS
    [attack_run] = history.list_runs(kind="attack")
    assert attack_run["status"] == "ok" and attack_run["page"] == "attack"
    assert attack_run["params"]["roll_size"] == 3 * ROWS and attack_run["params"]["seed"] == 7
    assert attack_run["results"]["linkage"]["reidentified"] == after["reidentified"]
    assert attack_run["dataset_rows"] == ROWS
    at.session_state["lang"] = "zh"
    at.run()
    no_exceptions(at)
    assert any("它不含任何姓名" in i.value for i in at.info)
    at.session_state["lang"] = "en"

    # Report: the same file, paired by position, with the thresholds set; recorded as its
    # measure, attack and report runs
    at.switch_page(str(ROOT / "pages" / "report.py"))
    at.run()
    no_exceptions(at)
    assert errors(at) == [] and not at.info
    assert at.text_input(key=f"rp_release_file::{key}").value == str(out)
    at.number_input(key="rp_min_k").set_value(5)
    at.button(key="rp_go").click().run()
    no_exceptions(at)
    report = at.session_state["rp_table_reported"][key]["value"]["report"]
    assert report.measurement["k"] == k_written and report.thresholds.min_k == 5
    assert report.findings["order"]["matched_by"] == "position"
    said = texts_of(report, "en")
    assert any(said.verdict in m.value for m in at.markdown)
    # the errors shown are the report's reasons, each once
    shown = [e.split("  \n")[0] for e in errors(at)]
    assert shown == [escape_md(reason.sentence) for reason in said.reasons]
    [report_run] = history.list_runs(kind="report")
    assert report_run["status"] == "ok" and report_run["page"] == "report"
    assert report_run["results"]["verdict"] == report.verdict
    assert report_run["dataset_rows"] == ROWS
    measure_run = history.list_runs(kind="measure")[0]  # newest first
    attack_run = history.list_runs(kind="attack")[0]
    assert report.run_ids == [measure_run["id"], attack_run["id"], report_run["id"]]
    assert measure_run["page"] == attack_run["page"] == "report"
    assert measure_run["results"]["k"] == k_written and measure_run["params"]["k"] == 5
    assert any(f"#{report_run['id']}" in c.value for c in at.caption)

    # removed: the session lets the engine and the table's results go
    at.switch_page(str(ROOT / "pages" / "data_roles.py"))
    at.run()
    at.button(key=f"remove::{key}").click().run()
    no_exceptions(at)
    assert not wb.tables and wb.active == "adult"
    assert key not in at.session_state["an_table_made"]


def test_a_shuffled_release_is_not_paired_by_position(parquet_file, tmp_path):
    at, key = confirmed_on(parquet_file, "anonymize.py")
    at.selectbox(key="an_algorithm").set_value("datafly").run()
    at.text_input(key=f"an_out::{key}::datafly").input(str(tmp_path / "shuffled.csv"))
    at.button(key="an_run").click().run()
    no_exceptions(at)
    assert len(pd.read_csv(tmp_path / "shuffled.csv")) == ROWS
    at.switch_page(str(ROOT / "pages" / "privacy_level.py"))
    at.run()
    assert any("shuffled order" in c.value for c in at.caption)
    at.button(key="pl_measure").click().run()
    no_exceptions(at)
    assert any("cannot be paired with the table's rows by position" in e for e in errors(at))
    # the Attack page refuses it too, and attacks it paired by a key column
    at.switch_page(str(ROOT / "pages" / "attack.py"))
    at.run()
    assert at.text_input(key=f"at_release_file::{key}").value == str(tmp_path / "shuffled.csv")
    assert any("shuffled order" in c.value for c in at.caption)
    at.button(key="at_run").click().run()
    no_exceptions(at)
    assert any("cannot be paired with the table's rows by position" in e for e in errors(at))
    assert not history.list_runs(kind="attack")
    assert "at_table_attacked" not in at.session_state or not at.session_state["at_table_attacked"]
    # and the Report page
    at.switch_page(str(ROOT / "pages" / "report.py"))
    at.run()
    assert any("shuffled order" in c.value for c in at.caption)
    at.button(key="rp_go").click().run()
    no_exceptions(at)
    assert any("cannot be paired with the table's rows by position" in e for e in errors(at))
    assert not history.list_runs(kind="report") and not history.list_runs(kind="measure")


def test_an_attack_on_the_engine_stopped_by_cancel_is_recorded_as_cancelled(
    parquet_file, adult_rows, tmp_path, monkeypatch
):
    from streamlit.runtime.scriptrunner_utils.exceptions import StopException

    import privcore.attacks  # attack_tables imports simulate from it on every run

    def stopped(*_args, **_kwargs):
        raise StopException()

    monkeypatch.setattr(privcore.attacks, "simulate", stopped)
    release = tmp_path / "same_rows.parquet"
    adult_rows.to_parquet(release, index=False)
    at = open_table(new_app("data_roles.py"), parquet_file)
    key = workbench(at).active
    at.button(key=f"lt_use_all::{key}").click().run()
    at.button(key=f"confirm::{key}").click().run()
    at.switch_page(str(ROOT / "pages" / "attack.py"))
    at.run()
    assert at.text_input(key=f"at_release_file::{key}").value == ""  # nothing written here
    at.text_input(key=f"at_release_file::{key}").input(str(release))
    assert at.button(key="at_cancel")
    at.button(key="at_run").click().run()
    [run] = history.list_runs(kind="attack")
    assert run["status"] == "cancelled" and run["page"] == "attack"


def test_a_release_with_too_many_classes_is_measured_inside_the_engine(parquet_file, monkeypatch):
    """Above PRIVCORE_ENGINE_MAX_GROUPS combinations the Privacy level page shows the
    measurement made by the classes inside DuckDB: the verdicts, the note on what it
    leaves out, the worst classes and the chart of class sizes."""
    monkeypatch.setenv("PRIVCORE_ENGINE_MAX_GROUPS", "100")
    at, key = confirmed_on(parquet_file, "privacy_level.py")
    at.text_input(key=f"pl_release_file::{key}").input(parquet_file)  # the table itself
    at.run()
    at.button(key="pl_measure").click().run()
    no_exceptions(at)
    assert errors(at) == []
    measured = at.session_state["pl_table_measured"][key]["value"].result
    assert measured.classes is None and measured.unpaired_because == "engines.too_many_groups"
    assert measured.models.summary["rows"] == ROWS
    shown = " ".join(e.value for e in [*at.info, *at.warning, *at.caption, *at.markdown])
    assert "measured inside the engine" in shown
    for tab, check in (("Classes", "worst classes"), ("Charts", None)):
        at.session_state["pl_table_view"] = tab
        at.run()
        no_exceptions(at)
        if check:
            assert any(check in c.value for c in at.caption)
            assert len(at.dataframe[-1].value) == min(measured.models.summary["classes"], 1000)


def test_mondrian_fragments_kept_in_the_engine_show_their_classes(
    parquet_file, tmp_path, monkeypatch
):
    """Mondrian's fragments together above PRIVCORE_MAX_ROWS: the release is written from
    the fragments kept in DuckDB and measured there; the page shows its figures, the
    note, the worst classes and the class sizes, and no tab needs its rows."""
    at, key = confirmed_on(parquet_file, "anonymize.py")
    monkeypatch.setenv("PRIVCORE_ENGINE_MAX_GROUPS", "300")
    monkeypatch.setenv("PRIVCORE_MAX_ROWS", "500")
    at.selectbox(key="an_algorithm").set_value("mondrian").run()
    out = tmp_path / "kept.parquet"
    at.text_input(key=f"an_out::{key}::mondrian").input(str(out))
    at.checkbox(key=f"an_keep_order::{key}").check()
    at.button(key="an_run").click().run()
    no_exceptions(at)
    assert errors(at) == []
    made = at.session_state["an_table_made"][key]["outcome"].result
    assert made.release.engine_records == (ROWS, 0)
    assert made.release.params["fragments"] >= 2
    assert len(pd.read_parquet(out)) == ROWS
    shown = " ".join(e.value for e in [*at.info, *at.warning, *at.caption, *at.markdown])
    assert "kept inside the engine" in shown
    for tab in ("Classes", "Charts", "Download"):
        at.session_state["an_table_view"] = tab
        at.run()
        no_exceptions(at)
        assert errors(at) == []
    at.session_state["an_table_view"] = "Classes"
    at.run()
    assert any("worst classes" in c.value for c in at.caption)
