"""Privacy Workbench: entry point. Page config, sidebar (data set, language), navigation."""

from __future__ import annotations

import logging
from pathlib import Path

import streamlit as st

from ui.common import charts, language, layout
from ui.common.data_menu import data_menu
from ui.common.i18n import LANGUAGES, current_language, labels, t
from ui.common.shell import VIA_APP, dataset_status

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")

# The icon is a local file: a Material icon as favicon would be fetched from Google's
# font servers, which an offline installation cannot reach and a hosted demo must not tell.
st.set_page_config(
    page_title="Privacy Workbench",
    page_icon=str(Path(__file__).resolve().parent / "assets" / "icon.png"),
    layout="wide",
)
# The style sheet is the first element of the page, drawn before the session's state is
# imported: on a process's first element Streamlit inspects the call stack, which walks
# every module loaded by then.
layout.apply()

# The language: from the URL's ?lang= or the browser's preference on a session's first
# run (a visit, a reload, a deep link), the session's own afterwards.
language.start_language()
# Streamlit (1.67, with a pages/ folder next to this script) drops the first change of a
# radio in a new session: the change reaches the callback, then the radio falls back to
# its default. The callback keeps the choice; it is restored before the radio is drawn.
LANG_CHOSEN = "_lang_chosen"
chosen_language = st.session_state.pop(LANG_CHOSEN, None)
if chosen_language in LANGUAGES:
    st.session_state["lang"] = chosen_language


def _keep_language() -> None:
    st.session_state[LANG_CHOSEN] = st.session_state["lang"]


def _choose_dataset() -> None:
    from ui.common.state import workbench

    workbench().active = st.session_state["active_dataset"]


def _sidebar():
    """The sidebar: language, data set; returns the container the data set's status goes
    to once the page has run. The session's data sets are only ever locals here: a global
    of this script would outlive the session (Streamlit keeps the last run's module)."""
    with st.sidebar:
        st.radio(
            t("sidebar.language"),
            options=list(LANGUAGES),
            format_func=LANGUAGES.get,
            key="lang",
            horizontal=True,
            on_change=_keep_language,
        )
        # kept in the URL (a reload, a bookmark, a copied link) and declared on the page
        language.keep_in_url(current_language())
        language.announce(current_language())
        # (the session's state, with pandas, is imported after the page's heading)
        keys, active, title = data_menu()
        # The widget mirrors the active data set (a page may change it, e.g. after an
        # upload) and writes back through its callback.
        if st.session_state.get("active_dataset") != active:
            st.session_state["active_dataset"] = active
        st.selectbox(
            t("sidebar.dataset"),
            options=keys,
            format_func=labels(keys, title),
            help=t("sidebar.dataset_help"),
            key="active_dataset",
            on_change=_choose_dataset,
        )
        # Filled after the page has run, so it shows what the page changed (an upload, a
        # confirmed schema) without another rerun.
        return st.container()


def _page(script: str, title: str, icon: str, url_path: str) -> st.Page:
    """A page of the navigation, at ``/url_path``."""
    return st.Page(script, title=title, icon=icon, url_path=url_path)


home = st.Page("pages/home.py", title=t("nav.home"), icon=":material/home:", default=True)
pages = [
    home,
    _page("pages/learn.py", t("nav.learn"), ":material/school:", "learn"),
    _page("pages/data_roles.py", t("nav.data"), ":material/table_view:", "data"),
    _page("pages/anonymize.py", t("nav.anonymize"), ":material/blur_on:", "anonymize"),
    _page("pages/privacy_level.py", t("nav.privacy"), ":material/verified_user:", "privacy"),
    _page("pages/attack.py", t("nav.attack"), ":material/person_search:", "attack"),
    _page("pages/ldp_auditor.py", t("nav.ldp"), ":material/policy:", "ldp"),
    _page("pages/differential_privacy.py", t("nav.dp"), ":material/shield_lock:", "dp"),
    _page("pages/report.py", t("nav.report"), ":material/fact_check:", "report"),
    _page("pages/history.py", t("nav.history"), ":material/history:", "history"),
]
page = st.navigation(pages)
# each page has its own document title, in the page's language (WCAG 2.1, 2.4.2)
st.set_page_config(
    page_title="Privacy Workbench" if page is home else f"{page.title} · Privacy Workbench"
)
# The navigation, the style sheet and the language choice are drawn before the session's
# state is imported (with pandas and the data layer, most of a first run): the browser
# lays them out meanwhile.
status_slot = _sidebar()
if page is not home:  # Home draws no chart: it does not wait for Altair to be imported
    charts.enable()
st.session_state["_page"] = page.title
st.session_state[VIA_APP] = True
try:
    page.run()
except Exception as exc:  # noqa: BLE001 - last line of defence: no traceback for visitors
    from ui.common.errors import show_error

    show_error(exc)
finally:
    st.session_state[VIA_APP] = False

dataset_status(status_slot)
