"""What the tabs of the Differential privacy page share: the active data set as they see
it (:class:`Context`), their recorded runs, fresh noise, and the results they keep."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

import streamlit as st

from privcore.errors import PrivcoreError
from privcore.runs import Inputs, Outcome
from ui.common.errors import show_error
from ui.common.heavy import new_request, run_heavy
from ui.common.i18n import t
from ui.common.sources import active_source
from ui.common.state import keep
from ui.common.workspace.results import result_header

PAGE = "dp"
BUDGETS = "dp_budgets"  # data set → {"budget": Accountant, "answers": [...]}
DINNER, PERSON, ACCURACY, RELEASE, AUDIT = (
    "dp_dinner_result",
    "dp_person_result",
    "dp_accuracy_result",
    "dp_release_result",
    "dp_audit_result",
)


def recorded(cls, values: dict, inputs: Inputs, *, label: str) -> Outcome:
    """One recorded run of this page: the request ``cls(**values)`` on ``inputs``."""
    return run_heavy(new_request(cls, values, inputs, page=PAGE), inputs, label=label, page=PAGE)


def fresh_seed() -> int:
    """Every released answer draws fresh noise: two answers sharing a seed would share
    their noise, and their difference would be exact."""
    return secrets.randbelow(2**31)


@dataclass(frozen=True, eq=False)
class Context:
    """The active data set as the tabs see it: its rows and roles as its source
    (:func:`ui.common.sources.active_source`) gives them, None when they are not in
    memory (a table opened in an engine)."""

    wb: Any
    dataset: Any
    schema: Any
    columns: list[str]
    data_title: str

    @classmethod
    def of(cls, wb: Any) -> Context:
        source = active_source(wb)
        dataset = schema = None
        try:
            dataset = source.dataset()
            schema = None if dataset is None else source.schema()
        except PrivcoreError as exc:
            show_error(exc)
        frame = None if dataset is None else dataset.frame
        columns = [] if frame is None else [str(c) for c in frame.columns]
        return cls(wb, dataset, schema, columns, wb.title(wb.active))

    @property
    def frame(self) -> Any:
        return None if self.dataset is None else self.dataset.frame

    def within(self, chosen: Any) -> bool:
        return isinstance(chosen, list) and set(chosen) <= set(self.columns)

    def sensitive_choice(
        self, label: str, choices: list[str], key: str, *, where: Any = None
    ) -> str:
        """A select box of the columns ``choices`` (in ``where``; the page by default),
        kept per data set under ``key``, that starts at the first of them the schema
        marks sensitive."""
        sensitive = [c for c in (self.schema.sensitive if self.schema else []) if c in choices]
        return (st if where is None else where).selectbox(
            label,
            choices,
            index=choices.index(sensitive[0]) if sensitive else 0,
            key=keep(key, scope=self.wb.active, valid=lambda v: v in choices),
        )

    def needs_data(self) -> bool:
        """Say so when the active data set is not in memory (a table opened in an engine)."""
        if self.dataset is None:
            st.info(t("dp.needs_data"), icon=":material/table_view:")
            return True
        return False


def keep_outcome(
    key: str, outcome: Outcome | None, params: dict, ctx: Context | None = None
) -> None:
    """Keep ``outcome`` (when a run made one) as the tab's result under ``key``, with the
    parameters it was computed with — and, with ``ctx``, the data set it is about."""
    if outcome is None:
        return
    about = {} if ctx is None else {"data": ctx.wb.active, "name": ctx.data_title}
    st.session_state[key] = {"outcome": outcome, "params": params, **about}


def kept_outcome(key: str, params: dict, ctx: Context | None = None) -> dict | None:
    """The tab's result under ``key`` (with ``ctx``: only when it is about the active
    data set), its header said (its parameters, "out of date" when ``params`` differ);
    None when there is none."""
    stored = st.session_state.get(key)
    if stored is None or (ctx is not None and stored["data"] != ctx.wb.active):
        return None
    result_header(stored, None, params, run_id=stored["outcome"].run_id)
    return stored
