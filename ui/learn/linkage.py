"""Lesson 1 of the Learn page: the linkage attack — a voter roll joined with the raw
hospital table on ZIP and age names the patients."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from privcore.attacks import build_roll, linkage_attack
from ui.common.components import fmt
from ui.common.i18n import current_language, t
from ui.common.state import keep
from ui.learn.common import QI, answer_input, exercise, hospital


@st.cache_data(show_spinner=False, max_entries=16)
def _linkage(size: int, seed: int, locale: str) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """(roll, targets, summary) of the linkage attack on the raw hospital table."""
    data = hospital()
    roll = build_roll(data, QI, size=size, seed=seed, locale=locale)
    report = linkage_attack(data, roll.frame, QI, ["Disease"], truth=data)
    return roll.frame, report.targets, report.summary


def lesson_linkage() -> None:
    st.header(t("learn.l1.title"))
    st.markdown(t("learn.l1.story"))
    data = hospital()
    st.subheader(t("learn.l1.hospital_title"))
    st.caption(t("learn.l1.hospital_caption"))
    st.dataframe(data, hide_index=True)

    st.subheader(t("learn.l1.roll_title"))
    left, right = st.columns(2)
    size = left.slider(t("learn.l1.roll_size"), 18, 90, 27, 9, key=keep("learn_l1_size"))
    seed = right.number_input(t("learn.l1.seed"), 0, 999, 0, key=keep("learn_l1_seed"))
    locale = "zh" if current_language() == "zh" else "en"
    roll, targets, summary = _linkage(int(size), int(seed), locale)
    st.caption(t("learn.l1.roll_caption", size=len(roll)))
    shown = ["name", "birth_date", *QI]
    st.dataframe(
        roll[[c for c in shown if c in roll.columns]],
        hide_index=True,
        height=250,
        column_config={
            "name": t("learn.col.name"),
            "birth_date": t("learn.col.birth_date"),
        },
    )

    st.subheader(t("learn.l1.join_title"))
    st.markdown(t("learn.l1.join_text"))
    join = pd.DataFrame(
        {
            t("learn.col.name"): targets["name"],
            "ZIP": targets["ZIP"],
            "Age": targets["Age"],
            t("learn.col.candidates"): targets["candidate_records"],
            t("learn.col.diagnosis"): targets["Disease values"],
            t("learn.col.correct"): targets["correct"],
        }
    )
    st.dataframe(join, hide_index=True)
    st.info(t("learn.l1.false_matches", count=summary["false_matches"]), icon=":material/info:")

    truth = int(summary["reidentified"])

    def check(answer: float) -> tuple[bool, str]:
        if int(answer) == answer and int(answer) == truth:
            return True, t("learn.l1.right", count=truth)
        return False, t("learn.l1.wrong", answer=fmt(answer, 0))

    exercise(
        "learn_l1",
        t("learn.l1.question"),
        lambda: answer_input("learn_l1_answer", t("learn.l1.answer_label"), min_value=0, step=1),
        check,
    )
