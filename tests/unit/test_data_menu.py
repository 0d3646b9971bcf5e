"""The sidebar's list of data sets before the session's state is imported."""

from __future__ import annotations

import pytest

from privcore.data import SAMPLES
from privcore.words.catalog import text
from ui.common import data_menu
from ui.common.state import Workbench


def test_the_light_list_names_the_bundled_samples_in_order():
    assert tuple(SAMPLES) == data_menu.SAMPLE_KEYS
    assert Workbench().active == data_menu.DEFAULT_SAMPLE


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_new_sessions_menu_needs_no_workbench(monkeypatch, language):
    import streamlit as st

    monkeypatch.setitem(st.session_state, "lang", language)
    monkeypatch.delitem(st.session_state, data_menu.STATE_KEY, raising=False)
    keys, active, title = data_menu.data_menu()
    assert data_menu.STATE_KEY not in st.session_state  # nothing made, nothing imported
    fresh = Workbench()
    assert keys == fresh.data_keys()
    assert active == fresh.active
    assert [title(k) for k in keys] == [fresh.title(k) for k in keys]
    assert title("hospital") == text("sample.hospital", language)  # worded, in the language


def test_a_sessions_menu_follows_its_workbench(monkeypatch):
    import pandas as pd
    import streamlit as st

    from privcore.data import load

    wb = Workbench()
    wb.uploads["mine.csv"] = load(pd.DataFrame({"a": [1, 2]}))
    wb.active = "mine.csv"
    monkeypatch.setitem(st.session_state, data_menu.STATE_KEY, wb)
    keys, active, title = data_menu.data_menu()
    assert keys == [*data_menu.SAMPLE_KEYS, "mine.csv"] and active == "mine.csv"
    assert title("mine.csv") == "mine.csv"
    wb.active = "gone"  # a data set no longer there: the first one instead
    assert data_menu.data_menu()[1] == data_menu.DEFAULT_SAMPLE
