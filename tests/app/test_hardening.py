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
    import ui.roles_editor

    def broken(*_args, **_kwargs):
        raise RuntimeError("secret value Alice Secret leaked in a message")

    monkeypatch.setattr(ui.roles_editor, "profile", broken)
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
        "report.py",
        "history.py",
    ):
        at = new_app()
        at.switch_page(str(ROOT / "pages" / page))
        at.run()
        no_exceptions(at)
        assert at.title, page


def test_releases_of_bundled_samples_are_shared_but_uploads_never():
    import ui.anonymize_view as view

    view._shared.clear()
    first = new_app()
    first.switch_page(str(ROOT / "pages" / "anonymize.py"))
    first.run()
    no_exceptions(first)
    assert len(view._shared) == 1  # the default search on Adult, now public to all
    second = new_app()
    second.switch_page(str(ROOT / "pages" / "anonymize.py"))
    second.run()
    no_exceptions(second)
    assert second.session_state["workbench"].last_release is (
        first.session_state["workbench"].last_release
    )
    # the same rows uploaded by a visitor: computed in that session only, never shared
    third = new_app("data_roles.py")
    adult = (ROOT / "assets" / "adult" / "adult.csv").read_bytes()
    third.file_uploader[0].upload("adult_copy.csv", adult, "text/csv")
    third.run()
    third.button(key="confirm::adult_copy.csv").click().run()
    third.switch_page(str(ROOT / "pages" / "anonymize.py"))
    third.run()
    third.selectbox(key="an_algorithm").set_value("mondrian").run()
    no_exceptions(third)
    release = third.session_state["workbench"].last_release
    assert release is not None and release.algorithm == "mondrian"
    assert len(view._shared) == 1
