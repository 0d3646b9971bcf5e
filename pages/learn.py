"""Learn: eight short interactive lessons on anonymization and differential privacy.

An instructor can link one lesson with ``?lesson=3``: the selector follows the query
parameter, and choosing another lesson updates it, so the address bar always names the
lesson on screen. Under each lesson, the same lesson can be downloaded as a Jupyter
notebook in the page's language (:mod:`ui.learn.notebook`).
"""

import streamlit as st

from ui.common.errors import guard
from ui.common.i18n import t, t_plain
from ui.common.shell import require_app
from ui.common.state import workbench
from ui.learn import LESSONS, notebook

require_app()

SELECTED = "learn_lesson"
PARAM = "lesson"

st.title(t("learn.title"))
st.write(t("learn.lead"))
workbench()


def lesson_from_query() -> int | None:
    """The lesson named by ``?lesson=``; None when absent, with a warning when invalid."""
    raw = st.query_params.get(PARAM)
    if raw is None:
        return None
    try:
        number = int(raw)
    except ValueError:
        number = None
    if number not in LESSONS:
        st.warning(
            t("learn.bad_lesson", value=str(raw), count=len(LESSONS)),
            icon=":material/warning:",
        )
        return None
    return number


def label(number: int) -> str:
    return t_plain("learn.option", number=number, title=t_plain(f"learn.l{number}.short"))


# The options are the labels themselves (not numbers with a format function), so the
# widget state is plain text in the current language; the query parameter is the
# language-independent truth and sets the state on every run.
labels = {number: label(number) for number in LESSONS}
wanted = lesson_from_query()
if wanted is not None:
    st.session_state[SELECTED] = labels[wanted]
elif st.session_state.get(SELECTED) not in labels.values():
    st.session_state[SELECTED] = labels[1]


def follow_selector() -> None:
    chosen = st.session_state[SELECTED]
    number = next(n for n, text in labels.items() if text == chosen)
    st.query_params[PARAM] = str(number)


choice = st.radio(
    t("learn.choose"),
    list(labels.values()),
    horizontal=True,
    key=SELECTED,
    on_change=follow_selector,
)
lesson = next(n for n, text in labels.items() if text == choice)
if st.query_params.get(PARAM) != str(lesson):
    st.query_params[PARAM] = str(lesson)
st.divider()

with guard():
    LESSONS[lesson]()
with guard():
    notebook.notebook_download(lesson)
