"""Lesson 6 of the Learn page: measuring privacy with entropy — the discrimination rate,
the privacy level and the utility loss of the hospital release."""

from __future__ import annotations

import streamlit as st

from privcore.measure import (
    conditional_entropy,
    discrimination_rate,
    entropy,
    local_privacy_level,
    privacy_level,
    utility_loss,
)
from ui.common.components import fmt
from ui.common.i18n import t
from ui.common.state import keep
from ui.learn.common import QI, SA, hospital, hospital_release, number_exercise


def lesson_measuring() -> None:
    st.header(t("learn.l6.title"))
    st.markdown(t("learn.l6.intro"))
    original, release = hospital(), hospital_release()
    left, right = st.columns(2)
    left.markdown(f"**{t('learn.l6.original')}**")
    left.dataframe(original, hide_index=True)
    right.markdown(f"**{t('learn.l6.release')}**")
    right.dataframe(release, hide_index=True)

    st.subheader(t("learn.l6.formulas_title"))
    st.latex(r"H(X) = -\sum_x p(x)\log_2 p(x)")
    st.latex(
        r"DR(\overline{X}_{qd}, \overline{X}_{prv}) = "
        r"1 - \frac{H(\overline{X}_{prv}\mid \overline{X}_{qd})}{H(\overline{X}_{prv})}"
    )
    st.latex(
        r"PL(\overline{D}) = DR(\overline{X}_{qd}, \overline{X}_{prv})"
        r"\cdot\frac{I(X_{prv};\overline{X}_{prv})}{H(X_{prv})}"
    )
    st.latex(
        r"UL(\overline{D}) = "
        r"\frac{H(\overline{X}_{qd}) + H(\overline{X}_{prv})}{H(X_{qd}) + H(X_{prv})}"
    )
    st.markdown(t("learn.l6.formulas_text"))

    st.subheader(t("learn.l6.values_title"))
    figures = {
        "PL(D)": privacy_level(original, release, QI, SA).value,
        "PL(Salary)": local_privacy_level(original, release, ["Salary"], QI).value,
        "PL(Disease)": local_privacy_level(original, release, ["Disease"], QI).value,
        "PL_ZIP(Age)": local_privacy_level(original, release, ["Age"], ["ZIP"]).value,
        "UL": utility_loss(original, release, QI, SA),
    }
    for column, (label, value) in zip(st.columns(len(figures)), figures.items(), strict=True):
        column.metric(label, fmt(value))
    st.markdown(t("learn.l6.values_text"))

    st.subheader(t("learn.l6.explore_title"))
    columns = [*QI, *SA]
    left, right = st.columns(2)
    target = left.multiselect(
        t("learn.l6.target"), columns, default=["Age"], key=keep("learn_l6_target")
    )
    known = right.multiselect(
        t("learn.l6.known"),
        [c for c in columns if c not in target],
        default=["ZIP"] if "ZIP" not in target else [],
        key=keep("learn_l6_known", valid=lambda v: not set(v) & set(target)),
    )
    if target and known:
        level = local_privacy_level(original, release, target, known)
        cols = st.columns(3)
        cols[0].metric("DR", fmt(level.dr))
        cols[1].metric(t("learn.l6.information"), fmt(level.information))
        cols[2].metric("PL", fmt(level.value))
        st.caption(
            t(
                "learn.l6.explore_caption",
                h=fmt(entropy(release, target)),
                h_given=fmt(conditional_entropy(release, target, known)),
            )
        )
    else:
        st.info(t("learn.l6.explore_empty"), icon=":material/info:")

    truth = discrimination_rate(release, QI, ["Salary"])

    number_exercise("l6", truth, min_value=0.0, max_value=1.0)
