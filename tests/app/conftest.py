"""AppTest helpers: the app from app.py, switched to a page, with a long timeout."""

from __future__ import annotations

import json
import types
from pathlib import Path

import pandas as pd
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


def _through_main_script(main_script_path: str) -> None:
    """Run app.py itself, as a server does once the app has called st.navigation.

    AppTest forgets the navigation mode before every run; with a ``pages/`` folder next
    to app.py, Streamlit would then run a switched-to page on its own (its older
    pages-folder mode), without app.py's sidebar and navigation, and ui.shell would
    rerun it, dropping the click that started the run.
    """
    from streamlit.runtime.pages_manager import PagesManager

    PagesManager.uses_pages_directory = False
    source = Path(main_script_path).read_text(encoding="utf-8")
    module = types.ModuleType("__main__")
    module.__file__ = main_script_path
    exec(compile(source, main_script_path, "exec"), module.__dict__)


@pytest.fixture(autouse=True)
def app_as_served(monkeypatch):
    from streamlit.runtime.scriptrunner import script_runner

    monkeypatch.setattr(script_runner, "_mpa_v1", _through_main_script)


@pytest.fixture(autouse=True)
def fresh_session_caches():
    """AppTest sessions share one session id, so session-scoped caches would carry one
    test's data into the next; start each test with empty data caches."""
    import streamlit as st

    st.cache_data.clear()
    yield


@pytest.fixture(autouse=True)
def fresh_shared_results():
    """The process-wide results of bundled samples (``ui.shared``) are a server's; each
    test starts without the previous tests' results."""
    from ui.common import shared

    shared.clear()
    yield


#: The result views' tabs (drawn only when open): widget key, then each tab's label.
RESULT_TABS = {
    "an_view": ("Release", "Classes", "Charts", "Lattice", "Download"),
    "pl_view": ("Summary", "Classes", "Charts", "Download"),
}


def open_tab(at: AppTest, key: str, label: str) -> AppTest:
    """Open the result tab ``label`` of the tabs ``key`` (a click on it: the page reruns
    and draws that tab's content; tabs not on screen are not drawn)."""
    assert label in RESULT_TABS[key], label
    at.session_state[key] = label
    return at.run()


def shown_tables(at, *, static: bool = True) -> list[pd.DataFrame]:
    """The tables as shown: in their configured column order, under the labels their
    column configuration gives them, columns it hides left out, a select box column's
    options by their labels; ``static``: ``st.table`` too, after the data frames."""
    frames = []
    for element in [*at.dataframe, *(getattr(at, "table", []) if static else [])]:
        value = element.value
        if not isinstance(value, pd.DataFrame):
            continue
        config = json.loads(getattr(element.proto, "columns", "") or "{}")
        hidden = [c for c, v in config.items() if isinstance(v, dict) and v.get("hidden")]
        labels = {
            c: v["label"] for c, v in config.items() if isinstance(v, dict) and v.get("label")
        }
        order = list(getattr(element.proto, "column_order", []) or [])
        shown = value.drop(columns=[c for c in hidden if c in value.columns])
        if order:
            shown = shown[[c for c in order if c in shown.columns]]
        shown = shown.rename(columns=labels)
        for column, v in config.items():  # a select box column shows its options' labels
            options = (
                ((v or {}).get("type_config") or {}).get("options") if isinstance(v, dict) else None
            )
            name = labels.get(column, column)
            if options and name in shown.columns:
                words = {o["value"]: o.get("label", o["value"]) for o in options}
                shown[name] = shown[name].map(lambda x, w=words: w.get(x, x))
        frames.append(shown)
    return frames
