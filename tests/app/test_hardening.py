"""Hosted-demo hardening: sessions isolated, unexpected errors without tracebacks."""

from __future__ import annotations

from privcore import history
from tests.app.conftest import ROOT, new_app, no_exceptions

SECRET = b"name,age,zip,disease\nAlice Secret,34,47677,flu\nBob Secret,29,47602,cold\n"


def test_two_sessions_never_see_each_others_data():
    visitor_a = new_app("data_roles.py")
    visitor_b = new_app("data_roles.py")
    visitor_a.file_uploader[0].upload("mine.csv", SECRET, "text/csv")
    visitor_a.run()
    no_exceptions(visitor_a)
    assert visitor_a.session_state["workbench"].active == "mine.csv"
    visitor_b.run()
    wb_b = visitor_b.session_state["workbench"]
    assert "mine.csv" not in wb_b.uploads and wb_b.active == "adult"
    assert not any("Secret" in str(d.value) for d in visitor_b.dataframe)
    # roles confirmed by A stay A's
    visitor_a.button(key="confirm::mine.csv").click().run()
    assert "mine.csv" in visitor_a.session_state["workbench"].confirmed
    assert "mine.csv" not in visitor_b.session_state["workbench"].confirmed


def test_unexpected_error_shows_a_run_id_and_no_traceback(monkeypatch):
    import ui.data.roles_editor

    def broken(*_args, **_kwargs):
        raise RuntimeError("secret value Alice Secret leaked in a message")

    monkeypatch.setattr(ui.data.roles_editor, "profile", broken)
    at = new_app("data_roles.py")
    no_exceptions(at)
    messages = [e.value for e in at.error]
    assert any("Something went wrong on our side (run #" in m for m in messages), messages
    assert not any("Traceback" in m or "RuntimeError" in m for m in messages)
    [run] = history.list_runs(kind="error")
    assert run["error"] == "RuntimeError"  # the type only, never the message
    assert "Alice" not in str(run)


def test_every_page_renders_without_exception():
    for page in (
        "home.py",
        "data_roles.py",
        "anonymize.py",
        "privacy_level.py",
        "attack.py",
        "ldp_auditor.py",
        "differential_privacy.py",
        "report.py",
        "history.py",
    ):
        at = new_app()
        at.switch_page(str(ROOT / "pages" / page))
        at.run()
        no_exceptions(at)
        assert at.title, page


def test_releases_of_bundled_samples_are_shared_but_uploads_never():
    import ui.common.shared as shared

    shared.clear()
    first = new_app()
    first.switch_page(str(ROOT / "pages" / "anonymize.py"))
    first.run()
    first.button(key="an_run").click().run()
    no_exceptions(first)
    assert shared.size() == 1  # the default search on Adult, now public to all
    second = new_app()
    second.switch_page(str(ROOT / "pages" / "anonymize.py"))
    second.run()
    second.button(key="an_run").click().run()
    no_exceptions(second)
    assert second.session_state["workbench"].last_release is (
        first.session_state["workbench"].last_release
    )
    # each visitor's run is recorded all the same, under their own session
    owners = {r["owner"] for r in history.list_runs(kind="anonymize")}
    assert owners == {first.session_state["_owner"], second.session_state["_owner"]}
    # the same rows uploaded by a visitor: computed in that session only, never shared
    third = new_app("data_roles.py")
    adult = (ROOT / "assets" / "adult" / "adult.csv").read_bytes()
    third.file_uploader[0].upload("adult_copy.csv", adult, "text/csv")
    third.run()
    third.button(key="confirm::adult_copy.csv").click().run()
    third.switch_page(str(ROOT / "pages" / "anonymize.py"))
    third.run()
    third.selectbox(key="an_algorithm").set_value("mondrian")
    third.button(key="an_run").click().run()
    no_exceptions(third)
    release = third.session_state["workbench"].last_release
    assert release is not None and release.algorithm == "mondrian"
    assert shared.size() == 1


def _runs_shown(at) -> list[str]:
    """Data set names in the History page's runs table ([] when it shows none)."""
    tables = [d.value for d in at.dataframe if "dataset_name" in getattr(d.value, "columns", [])]
    return [str(v) for t in tables for v in t["dataset_name"].tolist()]


def test_on_a_demo_the_history_page_shows_each_visitor_only_their_runs(monkeypatch):
    monkeypatch.setenv("PRIVCORE_HISTORY_SCOPE", "session")
    alice = new_app("data_roles.py")
    alice.file_uploader[0].upload("alice_patients.csv", SECRET, "text/csv")
    alice.run()
    alice.button(key="confirm::alice_patients.csv").click().run()
    no_exceptions(alice)
    [run] = [r for r in history.list_runs() if r["dataset_name"] == "alice_patients.csv"]
    assert run["owner"] == alice.session_state["_owner"]

    bob = new_app("history.py")
    no_exceptions(bob)
    assert "alice_patients.csv" not in _runs_shown(bob)
    assert any("only the runs of your own session" in c.value for c in bob.caption)
    bob_owner = bob.session_state["_owner"]
    assert history.get_run(run["id"], owner=bob_owner) is None
    assert not history.delete_run(run["id"], owner=bob_owner)
    assert history.get_run(run["id"]) is not None  # still there for its owner

    alice.switch_page(str(ROOT / "pages" / "history.py"))
    alice.run()
    no_exceptions(alice)
    assert "alice_patients.csv" in _runs_shown(alice)


def test_on_a_workstation_the_history_page_shows_every_run(monkeypatch):
    monkeypatch.delenv("PRIVCORE_HISTORY_SCOPE", raising=False)
    first = new_app("data_roles.py")
    first.file_uploader[0].upload("study.csv", SECRET, "text/csv")
    first.run()
    first.button(key="confirm::study.csv").click().run()
    later = new_app("history.py")  # the same user, in a new browser tab
    no_exceptions(later)
    assert "study.csv" in _runs_shown(later)


def test_two_sessions_running_at_the_same_time_stay_apart():
    """Both scripts run concurrently (two threads), not one after the other."""
    import threading

    visitor_a = new_app("data_roles.py")
    visitor_b = new_app("data_roles.py")
    visitor_a.file_uploader[0].upload("mine.csv", SECRET, "text/csv")
    errors: list[BaseException] = []

    def run(at) -> None:
        try:
            at.run()
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(at,)) for at in (visitor_a, visitor_b)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors, errors
    no_exceptions(visitor_a)
    no_exceptions(visitor_b)
    assert visitor_a.session_state["workbench"].active == "mine.csv"
    wb_b = visitor_b.session_state["workbench"]
    assert "mine.csv" not in wb_b.uploads and wb_b.active == "adult"
    assert not any("Secret" in str(d.value) for d in visitor_b.dataframe)
