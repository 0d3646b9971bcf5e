"""What the lessons of the Learn page share: the 9-patient table and its release, the
exercise form and its checks (answers checked to two decimals)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pandas as pd
import streamlit as st

from ui.common.components import fmt
from ui.common.i18n import t
from ui.common.state import sample

QI = ["ZIP", "Age"]


SA = ["Salary", "Disease"]


TOLERANCE = 0.005  # answers are checked to two decimals
LN3 = math.log(3)  # randomized response with a fair coin: GRR with d = 2 and ε = ln 3


def hospital() -> pd.DataFrame:
    return sample("hospital")[0].frame


def hospital_release() -> pd.DataFrame:
    return sample("hospital_release")[0].frame


def is_close(answer: float, truth: float) -> bool:
    return abs(float(answer) - float(truth)) <= TOLERANCE + 1e-9


def class_names(frame: pd.DataFrame, classes: Any) -> list[str]:
    """Each class of ``frame`` named by its quasi-identifiers' values: "(476**, 2*)"."""
    keys = classes.class_keys(frame)
    return ["(" + ", ".join(map(str, row)) + ")" for row in keys.itertuples(index=False)]


def exercise(
    key: str,
    question: str,
    ask: Callable[[], Any],
    check: Callable[[Any], tuple[bool, str]],
    *,
    after: Callable[[Any], None] | None = None,
) -> None:
    """A question in a form; the submitted answer is kept, checked and answered with
    st.success or st.error (``after`` may show more, e.g. the table the answer gives)."""
    st.subheader(t("learn.exercise"), divider="gray")
    st.markdown(question)
    stored = f"{key}::answer"
    with st.form(f"{key}::form"):
        answer = ask()
        if st.form_submit_button(t("learn.check"), type="primary", key=f"{key}::check"):
            st.session_state[stored] = answer
    submitted = st.session_state.get(stored)
    # Judge only the answer still in the form (after a visit to another lesson the
    # inputs start empty again, and an old verdict would not match them).
    if submitted is None or submitted != answer:
        return
    correct, message = check(submitted)
    if correct:
        st.success(message, icon=":material/check_circle:")
    else:
        st.error(message, icon=":material/cancel:")
    if after is not None:
        after(submitted)


def answer_input(key: str, label: str, **kwargs: Any) -> float | None:
    return st.number_input(label, value=None, key=key, **kwargs)


def number_exercise(
    lesson: str,
    truth: float,
    *,
    ask: Callable[[], Any] | None = None,
    **bounds: Any,
) -> None:
    """The exercise of ``lesson`` (e.g. ``"l4"``; :func:`exercise` under the key
    ``learn_<lesson>``) whose answer is a number to two decimals, worded by the
    catalogue's ``learn.<lesson>.question``, ``.answer_label``, ``.right`` and ``.wrong``:
    right within :data:`TOLERANCE` of ``truth`` (``.right`` says ``truth``), else
    ``.wrong`` (which says the answer). The answer is asked by ``ask``, by default a
    number input labelled ``.answer_label`` within ``bounds``."""
    key = f"learn_{lesson}"

    def check(answer: float) -> tuple[bool, str]:
        if is_close(answer, truth):
            return True, t(f"learn.{lesson}.right", value=f"{truth:.2f}")
        return False, t(f"learn.{lesson}.wrong", answer=fmt(float(answer), 2))

    if ask is None:

        def ask() -> float | None:
            return answer_input(
                f"{key}_answer",
                t(f"learn.{lesson}.answer_label"),
                step=0.01,
                format="%.2f",
                **bounds,
            )

    exercise(key, t(f"learn.{lesson}.question"), ask, check)
