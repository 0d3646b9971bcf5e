""" "Reproduce in Python" under a result: the privcore code that computes the result's
figures again from the same tables, and a ZIP with that code as a notebook and a
script, the tables and the run's parameters (:mod:`privcore.runs.reproduction`). The
notebook's last step compares every figure with the one the page recorded."""

from __future__ import annotations

from typing import Any

import streamlit as st

from privcore.runs.reproduction import NotReproducible, reproduction
from ui.common.i18n import error_text, t
from ui.common.shared import ObjectMemo

__all__ = ["SHOWN", "reproduce_call", "reproduce_in_python", "reproduction_of"]

#: The session's results that show a reproduction, by the key of their download (what
#: a test reads to run the same files the page offers).
SHOWN = "repro_shown"

#: A result's reproduction, written once per result (its tables as Parquet).
_MADE = ObjectMemo()


def reproduction_of(outcome: Any) -> Any:
    """The :class:`~privcore.runs.reproduction.Reproduction` of ``outcome`` (a
    :class:`privcore.runs.Outcome`), or the :class:`NotReproducible` error that says
    why there is none; made once per result."""

    def make() -> Any:
        try:
            kind = outcome.request.kind
            title = t(f"kind.{kind}")
            return reproduction(
                outcome.request,
                outcome.inputs,
                outcome.summary,
                result=outcome.result,
                title=title,
            )
        except NotReproducible as exc:
            return exc

    return _MADE.get(outcome, "reproduction", make)


def reproduce_in_python(outcome: Any, *, key: str) -> None:
    """The "Reproduce in Python" expander of ``outcome`` (nothing when it is None or
    carries no inputs); ``key`` names its download button."""
    if outcome is None or getattr(outcome, "inputs", None) is None:
        return
    st.session_state.setdefault(SHOWN, {})[key] = outcome
    with st.expander(t("repro.title"), icon=":material/code:"):
        made = reproduction_of(outcome)
        if isinstance(made, NotReproducible):
            st.info(error_text(made))
            return
        st.caption(t("repro.lead"))
        # plain: the highlighter's colours fall below 4.5:1 on its grey background
        st.code(made.code(), language=None, wrap_lines=True)
        st.download_button(
            t("repro.download"),
            data=made.bundle,  # built on click
            file_name=f"reproduce_{outcome.request.kind}.zip",
            mime="application/zip",
            key=f"repro_{key}",
            on_click="ignore",
        )


def reproduce_call(code: str) -> None:
    """The "Reproduce in Python" expander of a figure a page computes with one call of
    the library on the values of its fields (a calculator, no table read): ``code``,
    the call with those values, written by the page from numbers only."""
    with st.expander(t("repro.title"), icon=":material/code:"):
        st.caption(t("repro.call_lead"))
        st.code(code, language=None, wrap_lines=True)
