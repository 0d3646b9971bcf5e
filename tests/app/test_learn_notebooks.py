"""AppTest: under each lesson the Learn page offers the lesson as a notebook in the page's
language — the file of docs/notebooks/lessons/, byte for byte, under its own name — and
says so plainly when the notebooks were not shipped with the app."""

from __future__ import annotations

import json

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from tests.app.conftest import ROOT, no_exceptions
from ui.learn import notebook

LOCALES = ROOT / "privcore" / "words" / "locales"
FOLDER = ROOT / "docs" / "notebooks" / "lessons"
EXPECTED = {
    (1, "en"): "lesson-1-linkage.en.ipynb",
    (1, "zh"): "lesson-1-linkage.zh.ipynb",
    (7, "en"): "lesson-7-differencing.en.ipynb",
    (7, "zh"): "lesson-7-differencing.zh.ipynb",
}


def strings(lang: str) -> dict[str, str]:
    return json.loads((LOCALES / f"learn_{lang}.json").read_text(encoding="utf-8"))


def open_lesson(lesson: int, lang: str) -> AppTest:
    """The app in ``lang`` (set before the first run), switched to Learn at ``lesson``."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.session_state["lang"] = lang
    at.run()
    at.query_params["lesson"] = str(lesson)
    at.switch_page(str(ROOT / "pages" / "learn.py"))
    at.run()
    return at


@pytest.fixture
def offered(monkeypatch) -> list[dict]:
    """Every st.download_button the runs draw, with its arguments (the file's name and
    bytes are not in the element AppTest shows)."""
    calls: list[dict] = []
    draw = st.download_button

    def recording(label, data=None, *args, **kwargs):
        calls.append({"label": label, "data": data, **kwargs})
        return draw(label, data, *args, **kwargs)

    monkeypatch.setattr(st, "download_button", recording)
    return calls


@pytest.mark.parametrize(("lesson", "lang"), sorted(EXPECTED))
def test_the_lesson_offers_its_notebook_in_the_pages_language(lesson, lang, offered):
    words = strings(lang)
    at = open_lesson(lesson, lang)
    no_exceptions(at)
    assert not at.error, [e.value for e in at.error]
    label = words["learn.notebook_download"]
    assert [b.proto.label for b in at.download_button].count(label) == 1
    (drawn,) = [call for call in offered if call["label"] == label]
    name = EXPECTED[lesson, lang]
    assert drawn["file_name"] == name
    assert drawn["on_click"] == "ignore"
    assert drawn["data"] == (FOLDER / name).read_bytes()
    first = "".join(json.loads(drawn["data"])["cells"][0]["source"])
    assert first.startswith(f"# {words[f'learn.l{lesson}.title']}")
    assert any(name in caption.value for caption in at.caption)


def test_a_missing_notebook_is_said_not_raised(monkeypatch, tmp_path, offered):
    monkeypatch.setattr(notebook, "NOTEBOOKS", tmp_path / "absent")
    at = open_lesson(1, "en")
    no_exceptions(at)
    assert not at.error
    missing = strings("en")["learn.notebook_missing"].format(number=1)
    assert missing in [info.value for info in at.info]
    assert not [
        call for call in offered if call["label"] == strings("en")["learn.notebook_download"]
    ]
