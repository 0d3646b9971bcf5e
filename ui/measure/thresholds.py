"""The inputs of the Privacy level page: the columns measured, the models the verdicts
judge and their thresholds (by default those of the release's own request), and an
optional population for journalist risk."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd
import streamlit as st

from privcore.data import Schema
from privcore.errors import PrivcoreError
from privcore.runs import MeasureRequest
from privcore.runs.registry import OPTIONS
from ui.common.errors import show_error
from ui.common.i18n import labels, t
from ui.common.state import ShelfRelease, keep, load_upload
from ui.common.workspace.names import choice_title
from ui.common.workspace.shelf import RELEASE_TYPES

#: Threshold values offered when the release under review says none of its own.
DEFAULT_THRESHOLDS = {"k": 5, "l": 2.0, "t": 0.2}


def chosen_by_default(
    entry: ShelfRelease | None, request: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The models judged by default and their thresholds: those a release made here was
    made with (its request — or ``request``, the values of an anonymize run: k always, l
    and t when it asked for them), else k-anonymity alone at k = 5. Every other model is
    shown as information (its achieved value)."""
    if request is None:
        request = (entry.request if entry is not None else None) or {}
    request = dict(request)
    out: dict[str, Any] = {
        "use_k": True,
        "use_l": request.get("l") is not None,
        "use_t": request.get("t") is not None,
        **DEFAULT_THRESHOLDS,
        "l_kind": "distinct",
        "c": MeasureRequest().c,
        "t_distance": "auto",
    }
    for name in ("k", "l", "t", "l_kind", "c", "t_distance"):
        if request.get(name) is not None:
            out[name] = request[name]
    return out


def column_inputs(columns: list[str], schema: Schema, *, scope: str) -> tuple[list, list]:
    """The quasi-identifiers and the sensitive attributes measured, by default the
    schema's (kept per session and per ``scope``; a kept choice of columns the table
    does not have is dropped)."""

    def within(chosen: Any) -> bool:
        return isinstance(chosen, list) and set(chosen) <= set(columns)

    qi = st.multiselect(
        t("pl.qi"),
        columns,
        default=schema.quasi_identifiers,
        key=keep("pl_qi", scope=scope, valid=within),
    )
    sa = st.multiselect(
        t("pl.sa"),
        columns,
        default=schema.sensitive,
        key=keep("pl_sa", scope=scope, valid=within),
    )
    return qi, sa


def threshold_inputs(
    sa: list[str],
    entry: ShelfRelease | None = None,
    *,
    request: Mapping[str, Any] | None = None,
    scope: str | None = None,
) -> dict[str, Any]:
    """The models the verdicts judge and their thresholds (an expander, kept per session
    and per release — or per ``scope``): the threshold values of a
    :class:`~privcore.runs.MeasureRequest`, by default those of the release's request
    (or of ``request``). A model whose box is not ticked gets no threshold (``None``):
    the page shows what the release achieves for it, as information, never as a
    failure."""
    defaults = chosen_by_default(entry, request)
    if scope is None:
        scope = "" if entry is None else entry.id
    with st.expander(t("pl.thresholds"), expanded=False):
        st.caption(t("pl.thresholds_help"))
        c1, c2, c3, c4 = st.columns(4)
        k = _k_threshold(c1, defaults, scope)
        l_value, l_kind, c = _l_threshold(c2, defaults, sa, scope)
        t_value, distance = _t_threshold(c3, defaults, sa, scope)
        risk_threshold = c4.number_input(
            t("pl.risk_threshold"),
            min_value=0.01,
            max_value=float(OPTIONS["risk_threshold"].maximum or 1.0),
            value=MeasureRequest().risk_threshold,
            step=0.05,
            help=t("help.risk_threshold"),
            key=keep("pl_risk_threshold"),
        )
    return {
        "k": k,
        # l- and t-verdicts need a sensitive attribute to judge
        "l": l_value,
        "l_kind": l_kind,
        "c": float(c),
        "t": t_value,
        "t_distance": distance,
        "risk_threshold": float(risk_threshold),
    }


def _k_threshold(column: Any, defaults: Mapping[str, Any], scope: str) -> int | None:
    """Whether k-anonymity is judged, and its k (None: not judged)."""
    use_k = column.checkbox(
        t("pl.judge_k"), value=defaults["use_k"], key=keep("pl_use_k", scope=scope)
    )
    k = column.number_input(
        "k",
        min_value=int(OPTIONS["k"].minimum or 1),
        value=int(defaults["k"]),
        step=1,
        help=t("help.k"),
        key=keep("pl_k", scope=scope),
        disabled=not use_k,
    )
    return int(k) if use_k else None


def _l_threshold(
    column: Any, defaults: Mapping[str, Any], sa: list[str], scope: str
) -> tuple[float | None, str, float]:
    """Whether l-diversity is judged (only with a sensitive attribute), its l (None: not
    judged), its form and c."""
    use_l = _judged(column, t("pl.judge_l"), "use_l", defaults, sa, scope)
    l_value = _threshold(
        column, "l", defaults, scope, minimum=1.0, step=1.0, help=t("help.l"), disabled=not use_l
    )
    l_kind = _choice(column, "l_kind", defaults, "pl.l_kind_", keep_as="pl_l_kind", scope=scope)
    c = column.number_input(
        "c",
        min_value=0.01,
        value=float(defaults["c"]),
        step=0.5,
        help=t("help.c"),
        key=keep("pl_c", scope=scope),
        disabled=not use_l or l_kind != "recursive",
    )
    return (float(l_value) if use_l and sa else None), l_kind, c


def _t_threshold(
    column: Any, defaults: Mapping[str, Any], sa: list[str], scope: str
) -> tuple[float | None, str]:
    """Whether t-closeness is judged (only with a sensitive attribute), its t (None: not
    judged) and its distance."""
    use_t = _judged(column, t("pl.judge_t"), "use_t", defaults, sa, scope)
    t_value = _threshold(
        column,
        "t",
        defaults,
        scope,
        minimum=0.0,
        step=0.05,
        help=t("help.t"),
        disabled=not use_t,
        max_value=10.0,
    )
    distance = _choice(
        column, "t_distance", defaults, "distance.", keep_as="pl_distance", scope=scope
    )
    return (float(t_value) if use_t and sa else None), distance


def _judged(
    column: Any, label: str, name: str, defaults: Mapping[str, Any], sa: list[str], scope: str
) -> bool:
    """The box of a model judged only with a sensitive attribute (state ``pl_<name>``)."""
    return column.checkbox(
        label,
        value=defaults[name] and bool(sa),
        key=keep(f"pl_{name}", scope=scope),
        disabled=not sa,
    )


def _threshold(
    column: Any,
    name: str,
    defaults: Mapping[str, Any],
    scope: str,
    *,
    minimum: float,
    step: float,
    help: str,
    disabled: bool,
    max_value: float | None = None,
) -> float:
    """The threshold of the registry's option ``name`` (from its minimum, ``minimum``
    when it has none; state ``pl_<name>``)."""
    return column.number_input(
        name,
        min_value=float(OPTIONS[name].minimum or minimum),
        max_value=max_value,
        value=float(defaults[name]),
        step=step,
        help=help,
        key=keep(f"pl_{name}", scope=scope),
        disabled=disabled,
    )


def _choice(
    column: Any,
    name: str,
    defaults: Mapping[str, Any],
    titles: str,
    *,
    keep_as: str,
    scope: str,
) -> str:
    """One of the registry's choices of option ``name`` (labelled by the words
    ``pl.<name>``), by default ``defaults[name]`` (the first when that is not one), each
    choice x shown by the words ``<titles>x``."""
    allowed = list(OPTIONS[name].allowed() or ())
    return column.selectbox(
        t(f"pl.{name}"),
        allowed,
        index=allowed.index(defaults[name]) if defaults[name] in allowed else 0,
        format_func=labels(allowed, lambda x: choice_title(f"{titles}{x}", x)),
        key=keep(keep_as, scope=scope, valid=lambda v: v in allowed),
    )


def population_input(active: str) -> pd.DataFrame | None:
    """An optional population for journalist risk: the Attack simulator's voter roll of
    this data set, or an uploaded table (e.g. a real register)."""
    roll = st.session_state.get("at_roll")
    has_roll = roll is not None and roll["data"] == active
    with st.expander(t("pl.population")):
        st.caption(t("pl.population_help"))
        options = ["none", *(["roll"] if has_roll else []), "upload"]
        choice = st.radio(
            t("pl.population"),
            options,
            horizontal=True,
            format_func=labels(options, lambda o: t(f"pl.population_{o}")),
            label_visibility="collapsed",
            key=keep("pl_population_choice", valid=lambda o: o in options),
        )
        if choice == "roll":
            return roll["roll"].frame
        if choice == "upload":
            upload = st.file_uploader(
                t("pl.population_upload"),
                type=RELEASE_TYPES,
                key="pl_population",
            )
            if upload is None:
                return None
            try:
                return load_upload(upload.getvalue(), upload.name).frame
            except PrivcoreError as exc:
                show_error(exc)
        return None
