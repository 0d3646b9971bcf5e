"""Views of a DP release made by MST or AIM (:mod:`privcore.dp.synthesis`): its method
and (ε, δ) with the zCDP budget ρ, the budget step by step, the numeric columns cut into
intervals, and each released marginal's error bound at 95 % — the words the command
line prints (:mod:`privcore.cli.dp_release`), in the page's language."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd
import streamlit as st

from privcore.dp.synthesis import METHODS
from ui.common.i18n import t, t_plain
from ui.dp.story_view import number

__all__ = [
    "METHODS",
    "bound_text",
    "bounds_by_marginal",
    "bounds_frame",
    "method_label",
    "method_name",
    "rho_ledger_frame",
    "step_text",
    "synthesis_details",
    "synthesis_header",
]

#: The steps of an MST or AIM ledger as the library labels them, and their words.
_STEPS = (
    (re.compile(r"^median of (?P<column>.+)$"), "dp.step_median"),
    (re.compile(r"^lower bound of (?P<column>.+)$"), "dp.step_lower"),
    (re.compile(r"^upper bound of (?P<column>.+)$"), "dp.step_upper"),
    (re.compile(r"^one-way marginal of (?P<column>.+)$"), "dp.step_one_way"),
    (re.compile(r"^selection of pair (?P<index>\d+) of (?P<pairs>\d+)$"), "dp.step_pair"),
    (re.compile(r"^two-way marginal of (?P<marginal>.+)$"), "dp.step_two_way"),
    (re.compile(r"^round (?P<round>\d+): selection$"), "dp.step_round_selection"),
    (re.compile(r"^round (?P<round>\d+): marginal of (?P<marginal>.+)$"), "dp.step_round"),
)


def method_label(method: str) -> str:
    """A method of the DP release as the method choice shows it: "AIM (ε, δ)-DP"."""
    return t_plain(f"dp.release_method_{method}")


def method_name(method: str) -> str:
    """A method's short name: "noisy marginals", "MST", "AIM"."""
    return t_plain(f"dp.method_{method}")


def step_text(label: str) -> str:
    """A step of the ρ ledger in the page's language ("round 3: marginal of age ×
    occupation"); a label of another form as the library wrote it."""
    for pattern, key in _STEPS:
        found = pattern.match(str(label))
        if found:
            return t_plain(key, **found.groupdict())
    return str(label)


def rho_ledger_frame(ledger: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """What each step of an MST or AIM release cost in ρ (zero-concentrated DP, which
    adds up), and the ρ spent up to and including it."""
    return pd.DataFrame(
        {
            t_plain("dp.step"): [step_text(item["label"]) for item in ledger],
            "ρ": [number(item["rho"]) for item in ledger],
            t_plain("dp.rho_spent"): [number(item["spent_rho"]) for item in ledger],
        }
    )


def bound_text(bound: Mapping[str, Any]) -> str:
    """A released marginal's error bound: "TVD ≤ 0.0784 (L1 ≤ 311.4)", or why there is
    none (plain text)."""
    if bound.get("source") == "none" or bound.get("tvd") is None:
        return t_plain("dp.bound_none")
    return t_plain("dp.bound", tvd=number(bound["tvd"]), l1=number(bound["l1"]))


def _bound_how(bound: Mapping[str, Any]) -> str:
    source = bound.get("source")
    return t_plain(f"dp.bound_source_{source if source in ('measured', 'selection') else 'none'}")


def bounds_by_marginal(bounds: Sequence[Mapping[str, Any]]) -> dict[tuple[str, ...], str]:
    """Each released marginal's columns → its error bound in words."""
    return {tuple(map(str, b["clique"])): bound_text(b) for b in bounds}


def bounds_frame(bounds: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """One row per released marginal (the SA's first, then each QI × SA): its error
    bound at 95 % and how it was found."""
    return pd.DataFrame(
        {
            t_plain("dp.marginal"): [" × ".join(map(str, b["clique"])) for b in bounds],
            t_plain("dp.bound_col"): [bound_text(b) for b in bounds],
            t_plain("dp.bound_how"): [_bound_how(b) for b in bounds],
        }
    )


def synthesis_header(dp: Any) -> None:
    """The title and facts of an MST or AIM release (in the DP release's box): its method,
    (ε, δ), ρ and the records synthesized."""
    said = {"method": method_name(dp.method), "epsilon": number(dp.epsilon)}
    st.markdown(f"**{t('dp.release_by', delta=number(dp.delta), **said)}**")
    st.caption(
        t(
            "dp.release_syn_facts",
            records=f"{len(dp.records):,}",
            marginals=len(dp.marginals),
            rho=number(dp.rho),
            delta=number(dp.delta),
            **said,
        )
    )


def _binning_text(binning: Mapping[str, Any]) -> str:
    return t(
        "dp.release_binning",
        column=str(binning["column"]),
        bins=int(binning["bins"]),
        lower=number(binning["lower"]),
        upper=number(binning["upper"]),
        source=t_plain(f"dp.binning_{'dp' if binning['source'] == 'dp' else 'public'}"),
    )


def synthesis_details(dp: Any) -> None:
    """The budget of an MST or AIM release step by step, the columns cut into intervals
    and the error bound of each released marginal."""
    st.markdown(f"**{t('dp.release_rho_ledger')}**")
    st.caption(
        t(
            "dp.release_rho_caption",
            steps=len(dp.ledger),
            rho=number(dp.rho),
            epsilon=number(dp.epsilon),
            delta=number(dp.delta),
        )
    )
    st.dataframe(rho_ledger_frame(dp.ledger), hide_index=True)
    st.markdown(f"**{t('dp.release_binnings')}**")
    if not dp.binnings:
        st.caption(t("dp.release_no_binning"))
    for binning in dp.binnings:
        st.caption(_binning_text(binning))
    st.markdown(f"**{t('dp.release_bounds_title')}**")
    st.caption(t("dp.release_bounds_caption"))
    st.dataframe(bounds_frame(dp.bounds), hide_index=True)
