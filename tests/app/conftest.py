"""AppTest helpers: the app from app.py, switched to a page, with a long timeout."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]


def new_app(page: str | None = None) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    if page:
        at.switch_page(str(ROOT / "pages" / page))
        at.run()
    return at


def no_exceptions(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


@pytest.fixture
def app():
    return new_app


@pytest.fixture(autouse=True)
def fresh_session_caches():
    """AppTest sessions share one session id, so session-scoped caches would carry one
    test's data into the next; start each test with empty data caches."""
    import streamlit as st

    st.cache_data.clear()
    yield
