"""The language in the URL: read on a session's first run, written back on every run,
the browser's preference on a first visit; the document told which language it is in."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.app.conftest import ROOT, no_exceptions
from ui.common.language import from_accept_language


@pytest.mark.parametrize(
    ("header", "chosen"),
    [
        ("zh-CN,zh;q=0.9,en;q=0.8", "zh"),
        ("en-GB,en;q=0.9,zh-CN;q=0.8", "en"),
        ("fr-FR,fr;q=0.9,zh-TW;q=0.5,en;q=0.4", "zh"),  # the first of ours, by quality
        ("en;q=0.2, zh-Hans;q=0.7", "zh"),
        ("de, fr;q=0.5", None),
        ("zh;q=0, en;q=0.1", "en"),  # q = 0: not acceptable
        ("zh;q=abc, en", "en"),  # a quality that is not a number counts as 0
        ("", None),
        (None, None),
    ],
)
def test_the_browsers_preferred_language(header, chosen):
    assert from_accept_language(header) == chosen


def _app(**params: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    for name, value in params.items():
        at.query_params[name] = value
    at.run()
    return at


def test_the_url_sets_the_language_of_a_new_session_and_keeps_it():
    at = _app(lang="zh")
    no_exceptions(at)
    assert at.session_state["lang"] == "zh"
    assert at.radio(key="lang").value == "zh"
    assert at.query_params["lang"] == "zh"
    assert any('setAttribute("lang", "zh-Hans")' in h.proto.body for h in at.get("html"))
    at.radio(key="lang").set_value("en").run()
    no_exceptions(at)
    assert at.session_state["lang"] == "en" and at.query_params["lang"] == "en"
    assert any('setAttribute("lang", "en")' in h.proto.body for h in at.get("html"))


def test_a_url_without_a_known_language_gets_english():
    for params in ({"lang": "fr"}, {"lang": "<b>zh</b>"}):
        at = _app(**params)
        no_exceptions(at)
        assert at.session_state["lang"] == "en" and at.query_params["lang"] == "en"
    at = _app()  # a plain URL in the language a new visit gets stays plain
    assert at.session_state["lang"] == "en" and "lang" not in at.query_params
    at.radio(key="lang").set_value("zh").run()
    assert at.query_params["lang"] == "zh"
