"""Choose ε on the Differential privacy page: the ε that meets what a person cares about
— a count's error at a confidence, what an attacker can come to believe about one person,
or a membership-inference attacker's advantage — with :mod:`privcore.dp.planning`, the
trade-off curve around it and the library call that gives the figure. A calculator: it
reads no data, releases nothing and is not recorded."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import altair as alt
import numpy as np
import pandas as pd
import streamlit as st

from privcore.dp import planning
from privcore.dp.parameters import MAX_EPSILON, check_epsilon
from privcore.errors import PrivcoreError
from ui.common.charts import ACCENT, FAIL, MUTED, WARN, show_chart
from ui.common.errors import show_error
from ui.common.i18n import labels, t, t_plain
from ui.common.reproduce import reproduce_call
from ui.common.state import keep
from ui.dp.story_view import noise_label

#: What a person cares about: a count's error, a posterior, a membership advantage.
GOALS = ("error", "posterior", "advantage")
#: The mechanisms of a count's noise, the discrete Laplace first (a count's default).
MECHANISMS = ("geometric", "laplace", "gaussian")
#: Points of the trade-off curve, log-spaced from ε/10 to 10·ε.
GRID_POINTS = 25
#: The curve's figures that a target does not set: the error of a count (Δ = 1) with
#: discrete Laplace noise at 95 %, the posterior of an attacker with an even prior.
CURVE_COUNT = {"confidence": 0.95, "mechanism": "geometric", "sensitivity": 1.0, "delta": 0.0}
CURVE_PRIOR = 0.5


@dataclass(frozen=True)
class Plan:
    """A target and the ε that meets it: ``call`` is the library call that gives
    ``epsilon`` (Python source, numbers only); ``curve`` the parameters of
    :func:`privcore.dp.planning.tradeoff` for the figures around it."""

    goal: str
    epsilon: float
    call: str
    target: dict = field(default_factory=dict)
    curve: dict = field(default_factory=dict)


# --------------------------------------------------------------------------- figures


def epsilon_text(value: float) -> str:
    """ε as the tab shows it: five significant digits ("1.0986")."""
    return f"{float(value):.5g}"


def figure_text(value: float) -> str:
    """An error or a probability: four significant digits, thousands without exponent."""
    value = float(value)
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.4g}"


def confidence_text(confidence: float) -> str:
    return f"{100 * float(confidence):.4g} %"


def plan_of(goal: str, **values: float | str) -> Plan:
    """The ε that meets the target ``goal`` with ``values`` (the tab's fields): its
    planning call, and the curve's parameters. Raises the library's worded errors."""
    if goal == "error":
        error, confidence = float(values["error"]), float(values["confidence"])
        mechanism = str(values["mechanism"])
        sensitivity = float(values["sensitivity"])
        delta = float(values["delta"]) if mechanism == "gaussian" else 0.0
        epsilon = planning.epsilon_for_error(
            error, confidence, mechanism=mechanism, sensitivity=sensitivity, delta=delta
        )
        call = (
            f"planning.epsilon_for_error({error!r}, {confidence!r}, mechanism={mechanism!r}, "
            f"sensitivity={sensitivity!r}, delta={delta!r})"
        )
        count = {
            "confidence": confidence,
            "mechanism": mechanism,
            "sensitivity": sensitivity,
            "delta": delta,
        }
        curve = {**count, "prior": CURVE_PRIOR}
        target = {"error": error}
    elif goal == "posterior":
        posterior, prior = float(values["posterior"]), float(values["prior"])
        epsilon = planning.epsilon_for_posterior(posterior, prior)
        call = f"planning.epsilon_for_posterior({posterior!r}, {prior!r})"
        curve = {**CURVE_COUNT, "prior": prior}
        target = {"posterior": posterior, "prior": prior}
    elif goal == "advantage":
        advantage = float(values["advantage"])
        epsilon = planning.epsilon_for_advantage(advantage)
        call = f"planning.epsilon_for_advantage({advantage!r})"
        curve = {**CURVE_COUNT, "prior": CURVE_PRIOR}
        target = {"advantage": advantage}
    else:
        raise ValueError(f"unknown goal {goal!r}")
    if epsilon > MAX_EPSILON:
        check_epsilon(epsilon)  # ParameterError dp.epsilon_too_large, in words
    return Plan(goal, float(epsilon), call, target, curve)


def plan_grid(epsilon: float) -> list[float]:
    """:data:`GRID_POINTS` ε log-spaced from ε/10 to 10·ε, kept within the ε the
    planner searches (from :data:`~privcore.dp.planning.SMALLEST_EPSILON` to
    :data:`~privcore.dp.parameters.MAX_EPSILON`), with ε itself among them."""
    low = max(epsilon / 10, min(epsilon, planning.SMALLEST_EPSILON))
    high = min(epsilon * 10, max(epsilon, MAX_EPSILON))
    grid = np.geomspace(low, high, GRID_POINTS) if high > low else np.array([epsilon])
    # ε itself, in place of a grid point that is ε but for rounding
    apart = [float(e) for e in grid if not np.isclose(e, epsilon, rtol=1e-9, atol=0.0)]
    return sorted({*apart, float(epsilon)})


def tradeoff_frame(plan: Plan) -> pd.DataFrame:
    """The curve around ``plan``'s ε: error at the confidence, posterior and
    advantage bounds by ε, the chosen ε flagged."""
    rows = planning.tradeoff(plan_grid(plan.epsilon), **plan.curve)
    frame = pd.DataFrame(rows, columns=["epsilon", "error", "posterior", "advantage"])
    frame["chosen"] = frame["epsilon"] == plan.epsilon
    return frame


def at_chosen(frame: pd.DataFrame) -> pd.Series:
    return frame.loc[frame["chosen"]].iloc[0]


def mechanism_text(mechanism: str, delta: float) -> str:
    name = noise_label(mechanism)
    if mechanism == "gaussian":
        return t_plain("dp.plan_gaussian_delta", mechanism=name, delta=f"{delta:g}")
    return name


def tradeoff_chart(frame: pd.DataFrame) -> alt.LayerChart:
    """Error at the confidence (left axis, symlog) and the posterior and advantage
    bounds (right axis, 0 to 1) against ε (log), a rule at the chosen ε."""
    error_name = t_plain("dp.plan_chart_error")
    posterior_name = t_plain("dp.plan_chart_posterior")
    advantage_name = t_plain("dp.plan_chart_advantage")
    colours = alt.Scale(
        domain=[error_name, posterior_name, advantage_name], range=[ACCENT, FAIL, WARN]
    )
    x = alt.X("epsilon:Q", title="ε", scale=alt.Scale(type="log", nice=False))
    tooltip = [
        alt.Tooltip("epsilon:Q", title="ε", format=".4g"),
        alt.Tooltip("error:Q", title=error_name, format=",.4g"),
        alt.Tooltip("posterior:Q", title=posterior_name, format=".4f"),
        alt.Tooltip("advantage:Q", title=advantage_name, format=".4f"),
    ]
    base = alt.Chart(frame)
    legend = alt.Legend(orient="bottom", labelLimit=0)

    def line(name: str, dash: list[int], axis: alt.Y) -> alt.Chart:
        return (
            base.transform_calculate(
                series=json.dumps(name, ensure_ascii=False)
            )  # the legend's words
            .mark_line(point=True, strokeDash=dash)
            .encode(
                x=x,
                y=axis,
                color=alt.Color("series:N", scale=colours, title=None, legend=legend),
                tooltip=tooltip,
            )
        )

    error = line(
        error_name,
        [1, 0],
        alt.Y(
            "error:Q",
            title=error_name,
            scale=alt.Scale(type="symlog"),
            axis=alt.Axis(orient="left", titleColor=ACCENT),
        ),
    )
    bounds_axis = alt.Scale(domain=[0, 1])
    right = alt.Axis(orient="right", title=t_plain("dp.plan_chart_bounds"))
    posterior = line(
        posterior_name,
        [6, 3],
        alt.Y("posterior:Q", title=posterior_name, scale=bounds_axis, axis=right),
    )
    advantage = line(
        advantage_name,
        [2, 2],
        alt.Y("advantage:Q", title=advantage_name, scale=bounds_axis, axis=right),
    )
    chosen = (
        base.transform_filter(alt.datum.chosen)
        .mark_rule(color=MUTED, strokeWidth=2)
        .encode(x=x, tooltip=tooltip)
    )
    # the rule goes with the error's line: a layer without a y of its own, beside layers
    # of independent y, draws no chart at all
    bounds = alt.layer(posterior, advantage).resolve_axis(y="shared")
    return (
        alt.layer(alt.layer(error, chosen), bounds)
        .resolve_scale(y="independent")
        .properties(title=t_plain("dp.plan_chart_title"))
    )


def says(plan: Plan, chosen: pd.Series) -> str:
    """The sentence that explains ``plan``'s ε in words, with the curve's figures at
    that ε (Markdown: :func:`t` escapes the figures)."""
    curve = plan.curve
    common = {
        "epsilon": epsilon_text(plan.epsilon),
        "confidence": confidence_text(curve["confidence"]),
        "mechanism": mechanism_text(curve["mechanism"], curve["delta"]),
        "sensitivity": f"{curve['sensitivity']:g}",
        "error": figure_text(chosen["error"]),
        "prior": f"{curve['prior']:g}",
        "posterior": figure_text(chosen["posterior"]),
        "advantage": figure_text(chosen["advantage"]),
    }
    if plan.goal == "error":
        common["error"] = f"{plan.target['error']:g}"
    return t(f"dp.plan_says_{plan.goal}", **common)


def reproduction(plan: Plan) -> str:
    """The Python that prints ``plan``'s ε, then the curve's figures at that ε."""
    curve = ", ".join(f"{name}={value!r}" for name, value in plan.curve.items())
    return (
        "from privcore.dp import planning\n\n"
        f"epsilon = {plan.call}\n"
        "print(epsilon)\n"
        f"print(planning.tradeoff([epsilon], {curve}))"
    )


# --------------------------------------------------------------------------- the tab


def _number(label: str, low: float, high: float, value: float, step: float, key: str, **kw):
    return st.number_input(
        t(f"dp.plan_{label}"),
        low,
        high,
        value,
        step,
        format=kw.pop("format", "%g"),
        help=t(f"dp.plan_{label}_help"),
        key=keep(key),
        **kw,
    )


def _fields(goal: str) -> dict:
    """The target's fields of ``goal``, drawn in columns; their values."""
    if goal == "error":
        c1, c2, c3 = st.columns(3)
        with c1:
            error = _number("error", 0.0, 1e9, 10.0, 1.0, "dp_plan_error")
        with c2:
            confidence = _number("confidence", 0.5, 0.9999, 0.95, 0.01, "dp_plan_confidence")
        mechanism = c3.selectbox(
            t("dp.mechanism"),
            MECHANISMS,
            format_func=labels(MECHANISMS, noise_label),
            help=t("dp.plan_mechanism_help"),
            key=keep("dp_plan_mechanism"),
        )
        c4, c5, _ = st.columns(3)
        with c4:
            sensitivity = _number("sensitivity", 0.001, 1e6, 1.0, 1.0, "dp_plan_sensitivity")
        delta = 0.0
        if mechanism == "gaussian":
            with c5:
                delta = _number("delta", 1e-12, 0.1, 1e-6, 1e-6, "dp_plan_delta", format="%.1e")
        return {
            "error": error,
            "confidence": confidence,
            "mechanism": mechanism,
            "sensitivity": sensitivity,
            "delta": delta,
        }
    if goal == "posterior":
        c1, c2 = st.columns(2)
        with c1:
            posterior = _number("posterior", 0.0, 1.0, 0.75, 0.01, "dp_plan_posterior")
        with c2:
            prior = _number("prior", 0.0, 1.0, 0.5, 0.01, "dp_plan_prior")
        return {"posterior": posterior, "prior": prior}
    c1, _ = st.columns(2)
    with c1:
        advantage = _number("advantage", 0.0, 1.0, 0.2, 0.01, "dp_plan_advantage")
    return {"advantage": advantage}


def plan_tab() -> None:
    """The ε that meets a target the visitor picks, its curve and its call."""
    st.caption(t("dp.plan_help"))
    goal = st.radio(
        t("dp.plan_goal"),
        GOALS,
        horizontal=True,
        format_func=labels(GOALS, lambda g: t(f"dp.plan_goal_{g}")),
        help=t("dp.plan_goal_help"),
        key=keep("dp_plan_goal"),
    )
    values = _fields(goal)
    try:
        plan = plan_of(goal, **values)
        frame = tradeoff_frame(plan)
    except PrivcoreError as exc:
        show_error(exc)
        return
    bound = "smallest" if goal == "error" else "largest"
    st.metric(
        t(f"dp.plan_epsilon_{bound}"),
        epsilon_text(plan.epsilon),
        help=t(f"dp.plan_epsilon_{bound}_help"),
    )
    st.markdown(says(plan, at_chosen(frame)))
    show_chart(tradeoff_chart(frame), key="dp_plan_chart_data")
    curve = plan.curve
    st.caption(
        t(
            "dp.plan_chart_help",
            epsilon=epsilon_text(plan.epsilon),
            mechanism=mechanism_text(curve["mechanism"], curve["delta"]),
            sensitivity=f"{curve['sensitivity']:g}",
            confidence=confidence_text(curve["confidence"]),
            prior=f"{curve['prior']:g}",
        )
    )
    reproduce_call(reproduction(plan))


__all__ = ["GOALS", "MECHANISMS", "Plan", "plan_grid", "plan_of", "plan_tab", "tradeoff_frame"]
