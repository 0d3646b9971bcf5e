"""The controls of the Anonymize page, kept per session and per data set
(:func:`ui.common.state.keep`); their choices, ranges and defaults come from
:mod:`privcore.runs.registry` and the :class:`~privcore.runs.AnonymizeRequest` they
build (the widgets' values for a given request: :func:`ui.common.workspace.controls_for`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import streamlit as st

from privcore.core.parameters import Parameter
from privcore.data import Schema
from privcore.runs.registry import ALGORITHMS, OPTIONS
from ui.common.i18n import labels, t
from ui.common.state import keep
from ui.common.workspace.actions import DEFAULTS, widget_key
from ui.common.workspace.names import algorithm_title, choice_title

K_SLIDER_TOP = 100  # the slider's range (the registry sets no upper bound on k)
SUPPRESSION_STEP = 0.5  # the suppression slider's step, in percent
RADIO_CHOICES = 3  # an option with at most this many choices is a row of radio buttons


def _choices(option: str) -> list[str]:
    return list(OPTIONS[option].allowed() or ())


def _within(options: list[str]) -> Callable[[Any], bool]:
    return lambda chosen: isinstance(chosen, list) and set(chosen) <= set(options)


def _among(options: list[str]) -> Callable[[Any], bool]:
    return lambda chosen: chosen in options


def controls(
    schema: Schema, *, scope: str, algorithms: Sequence[str] | None = None
) -> dict[str, Any]:
    """The parameter widgets (kept per data set ``scope``); returns the values of an
    :class:`~privcore.runs.AnonymizeRequest` (JSON-able).

    ``qi`` and ``sa`` are the quasi-identifiers and sensitive attributes of the
    confirmed schema chosen for this run (all of them by default), in schema order.
    ``algorithms``: the algorithms offered (all by default; an engine table offers those
    that run on a frequency set, and the page says why the others are not).
    """
    qi, sa = _columns(schema, scope)
    algorithm = _algorithm(scope, algorithms)
    k_low = int(OPTIONS["k"].minimum or 1)
    k = st.slider(
        "k", k_low, K_SLIDER_TOP, DEFAULTS.k, help=t("help.k"), key=keep("an_k", scope=scope)
    )
    use_l, l_kind, l_value, c = _l_diversity(scope)
    use_t, t_value, distance = _t_closeness(scope)
    top = float(OPTIONS["max_suppression"].maximum or 1.0)
    suppression = st.slider(
        t("an.max_suppression"),
        0.0,
        min(50.0, 100.0 * top),
        100.0 * DEFAULTS.max_suppression,
        SUPPRESSION_STEP,
        format="%.1f %%",
        help=t("an.max_suppression_help"),
        key=keep("an_sup", scope=scope),
    )
    values: dict[str, Any] = {
        # schema order, not click order: the same choice is the same request
        "qi": [c for c in schema.quasi_identifiers if c in qi],
        "sa": [c for c in schema.sensitive if c in sa],
        "algorithm": algorithm,
        "k": int(k),
        "l": float(l_value) if use_l else None,
        "l_kind": l_kind,
        "c": float(c),
        "t": float(t_value) if use_t else None,
        "t_distance": distance,
        "max_suppression": round(float(suppression) / 100.0, 6),
    }
    values.update(_algorithm_options(algorithm, scope))
    seed_top = int(min(OPTIONS["seed"].maximum or 2**31 - 1, 2**53 - 1))
    values["seed"] = int(
        st.number_input(t("an.seed"), 0, seed_top, DEFAULTS.seed, key=keep("an_seed", scope=scope))
    )
    return values


def _columns(schema: Schema, scope: str) -> tuple[list[str], list[str]]:
    """The quasi-identifiers and sensitive attributes chosen (all by default)."""
    qi = _some_of(schema.quasi_identifiers, t("an.qi"), t("an.qi_help"), "an_qi", scope)
    sa = _some_of(schema.sensitive, t("an.sa"), t("an.sa_help"), "an_sa", scope)
    return qi, sa


def _some_of(columns: list[str], label: str, help: str, name: str, scope: str) -> list[str]:
    """Some of ``columns`` (all by default), kept per session as ``name``."""
    return st.multiselect(
        label,
        columns,
        default=columns,
        help=help,
        placeholder=t("an.choose_columns"),
        key=keep(name, scope=scope, valid=_within(columns)),
    )


def _algorithm(scope: str, algorithms: Sequence[str] | None) -> str:
    """The algorithm chosen among ``algorithms`` (all by default), with its source."""
    algorithms = list(ALGORITHMS if algorithms is None else algorithms)
    algorithm = st.selectbox(
        t("an.algorithm"),
        algorithms,
        index=algorithms.index(DEFAULTS.algorithm) if DEFAULTS.algorithm in algorithms else 0,
        format_func=labels(algorithms, algorithm_title),
        help=t("an.algorithm_help"),
        key=keep("an_algorithm", scope=scope, valid=_among(algorithms)),
    )
    st.caption(choice_title(f"alg.{algorithm}.about", ALGORITHMS[algorithm].source))
    return algorithm


def _l_diversity(scope: str) -> tuple[bool, str, float, float]:
    """Whether l-diversity is asked for, and its form, l and c."""
    use_l = st.checkbox(t("an.use_l"), key=keep("an_use_l", scope=scope))
    l_kind, l_value, c = DEFAULTS.l_kind, 2.0, DEFAULTS.c
    if use_l:
        l_kind = _option_choice("l_kind", t("pl.l_kind"), "pl.l_kind_", "an_l_kind", scope)
        l_value = st.number_input(
            "l", float(OPTIONS["l"].minimum or 1.0), 50.0, 2.0, 1.0, key=keep("an_l", scope=scope)
        )
        if l_kind == "recursive":
            c = st.number_input("c", 0.1, 100.0, DEFAULTS.c, 0.5, key=keep("an_c", scope=scope))
    return use_l, l_kind, l_value, c


def _option_choice(option: str, label: str, title_prefix: str, key: str, scope: str) -> str:
    """A select box labelled ``label`` of the values the option ``option`` allows, each
    titled by the catalogue's ``<title_prefix><value>`` (else the value itself), kept
    per data set under ``key``."""
    choices = _choices(option)
    return st.selectbox(
        label,
        choices,
        format_func=labels(choices, lambda c: choice_title(f"{title_prefix}{c}", c)),
        key=keep(key, scope=scope, valid=_among(choices)),
    )


def _t_closeness(scope: str) -> tuple[bool, float, str]:
    """Whether t-closeness is asked for, and its t and distance."""
    use_t = st.checkbox(t("an.use_t"), key=keep("an_use_t", scope=scope))
    t_value, distance = 0.3, DEFAULTS.t_distance
    if use_t:
        t_value = st.number_input(
            "t", float(OPTIONS["t"].minimum or 0.0), 5.0, 0.3, 0.05, key=keep("an_t", scope=scope)
        )
        distance = _option_choice(
            "t_distance", t("pl.t_distance"), "distance.", "an_distance", scope
        )
    return use_t, t_value, distance


def _algorithm_options(algorithm: str, scope: str) -> dict[str, Any]:
    """The widgets of the options ``algorithm`` has of its own, each built from its
    declaration (:class:`~privcore.core.parameters.Parameter`: kind, range, step, default,
    words), and their values."""
    return {
        parameter.name: _parameter_widget(parameter, scope)
        for parameter in ALGORITHMS[algorithm].parameters
    }


def _parameter_widget(parameter: Parameter, scope: str) -> Any:
    """One algorithm option's widget, kept per data set: a choice as a radio (up to three
    choices) or a select box, a number as a number input within the declared range (an
    open lower bound starts one step above it), at the declared default."""
    key = widget_key(parameter.name)
    label = t(parameter.label_key)
    if parameter.kind == "choice":
        choices = list(parameter.allowed() or ())
        index = choices.index(parameter.default) if parameter.default in choices else 0
        words = labels(choices, lambda c: choice_title(f"{parameter.choice_key_prefix}{c}", str(c)))
        kept = keep(key, scope=scope, valid=_among(choices))
        if len(choices) <= RADIO_CHOICES:
            return st.radio(
                label, choices, horizontal=True, index=index, format_func=words, key=kept
            )
        return st.selectbox(label, choices, index=index, format_func=words, key=kept)
    whole = parameter.kind == "int"
    cast = int if whole else float
    step = cast(parameter.widget_step)
    low = cast(parameter.minimum) if parameter.minimum is not None else None
    if low is not None and parameter.open_minimum:
        low += step
    high = cast(parameter.maximum) if parameter.maximum is not None else None
    return cast(
        st.number_input(
            label,
            min_value=low,
            max_value=high,
            value=cast(parameter.default),
            step=step,
            key=keep(key, scope=scope),
        )
    )
