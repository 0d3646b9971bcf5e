"""The sidebar's list of data sets before the session's state is imported."""

from __future__ import annotations

import sys

import pytest

from privcore.data import SAMPLES
from privcore.words.catalog import text
from ui.common import data_menu
from ui.common.state import Workbench


def test_the_light_list_names_the_bundled_samples_in_order():
    assert tuple(SAMPLES) == data_menu.SAMPLE_KEYS
    assert Workbench().active == data_menu.DEFAULT_SAMPLE


@pytest.mark.parametrize("language", ["en", "zh"])
def test_first_run_menu_equals_a_new_sessions_menu(monkeypatch, language):
    import streamlit as st

    monkeypatch.setitem(st.session_state, "lang", language)
    monkeypatch.delitem(sys.modules, "ui.common.state")
    keys, active, title = data_menu.data_menu()
    fresh = Workbench()
    assert keys == fresh.data_keys()
    assert active == fresh.active
    assert [title(k) for k in keys] == [fresh.title(k) for k in keys]
    assert title("hospital") == text("sample.hospital", language)  # worded, in the language
