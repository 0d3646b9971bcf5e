"""A release's risk in its population as four metrics (the Privacy level page's risk
section, and a perturbed release on the Anonymize page): population uniqueness, expected
re-identifications, the largest record risk and SUDA2's special uniques."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import streamlit as st

from privcore.words.risks import share
from ui.common.components import fmt
from ui.common.i18n import t, t_plain


def metric(label: str, value: str, help_text: str) -> None:
    st.metric(label, value, help=help_text)


def model_words(model: str) -> str:
    return t_plain(f"risk.model_{model}")


def population_metrics(figures: Mapping[str, Any]) -> None:
    """Population uniqueness, expected re-identifications, the largest record risk and
    SUDA2's special uniques as four metrics, and the uniqueness model in words
    (``figures``: a ``RiskAssessment.to_dict()`` or a perturbed release's
    ``population_risk``)."""
    unique, individual = figures["population_uniqueness"], figures["individual_risk"]
    cols = st.columns(4)
    with cols[0]:
        metric(
            t_plain("risk.uniqueness"),
            share(unique["share"]),
            t_plain("risk.uniqueness_help", model=model_words(unique["model"])),
        )
    with cols[1]:
        metric(
            t_plain("risk.expected"),
            fmt(individual["expected_reidentifications"], 2),
            t_plain("risk.expected_help"),
        )
    with cols[2]:
        metric(t_plain("risk.largest"), fmt(individual["max"], 4), t_plain("risk.largest_help"))
    with cols[3]:
        metric(
            t_plain("risk.special_uniques"),
            str(int(figures["suda2"]["special_uniques"])),
            t_plain("risk.special_uniques_help"),
        )
    if unique["model"] == "none":
        st.caption(t("risk.uniqueness_none"))
    else:
        st.caption(
            t(
                "risk.uniqueness_words",
                model=model_words(unique["model"]),
                share=share(unique["share"]),
                count=fmt(unique.get("count", 0.0), 1),
            )
        )
