"""Lesson 5 of the Learn page: local differential privacy — randomized response, the
generalized randomized response (GRR) and its ratio, and an audit that catches a broken
GRR."""

from __future__ import annotations

import math
from typing import Any

import altair as alt
import numpy as np
import pandas as pd
import streamlit as st

from privcore.ldp.device import device, generator
from privcore.ldp.mechanisms import make
from privcore.runs import AuditRequest, Inputs
from ui.common.charts import ACCENT, PASS, show_chart
from ui.common.components import fmt, verdict_card
from ui.common.heavy import compute_heavy, heavy_button
from ui.common.i18n import t, t_plain
from ui.common.progress import progress_bar
from ui.common.shared import shared_compute
from ui.common.state import keep
from ui.learn.common import LN3, number_exercise


def _coin_flips(share: float, n: int, seed: int) -> tuple[np.ndarray, np.ndarray, float]:
    """(true answers, reported answers, unbiased estimate of the share of yes):
    randomized response with a fair coin is GRR with d = 2 and ε = ln 3."""
    mechanism = make("grr", LN3, d=2)
    truth = np.zeros(n, dtype=np.int64)
    truth[: round(share * n)] = 1
    np.random.default_rng(seed).shuffle(truth)
    outputs = mechanism.perturb(truth, generator(seed, device()))
    reported = outputs.values.cpu().numpy()
    return truth, reported, float(mechanism.estimate(outputs)[1].item())


def _audit(name: str, progress=None) -> dict[str, Any]:
    """The certified lower bound of a GRR (ε = 1, d = 10) at n = 200,000 per input, the
    same for every visitor (seed 0): computed once per server
    (:func:`ui.common.shared.shared_compute`; not ``st.cache_data``, which cannot replay the
    progress bar that the computation reports to)."""

    def work() -> dict[str, Any]:
        mechanism = make(name, 1.0, d=10)
        request = AuditRequest(
            mechanism=name, epsilon=1.0, domain=10, methods=("lb",), samples=200_000, seed=0
        )
        report = compute_heavy(request, Inputs(), progress)[0]["lb"]
        return {
            "verdict": report.verdict,
            "epsilon_lb": report.epsilon_lb,
            "claimed": report.epsilon_claimed,
            "true": mechanism.true_epsilon(),
            "seconds": report.seconds,
        }

    result, _cached = shared_compute(f"learn.l5.audit.{name}", work, progress)
    return result


def lesson_local_dp() -> None:
    st.header(t("learn.l5.title"))
    st.markdown(t("learn.l5.intro"))

    st.subheader(t("learn.l5.coin_title"))
    st.markdown(t("learn.l5.coin_text"))
    left, right = st.columns(2)
    share = left.slider(t("learn.l5.share"), 0.0, 1.0, 0.3, 0.05, key=keep("learn_l5_share"))
    n = right.slider(t("learn.l5.n"), 20, 1000, 100, 10, key=keep("learn_l5_n"))
    if st.button(t("learn.l5.flip"), key="learn_l5_flip", icon=":material/casino:"):
        st.session_state["learn_l5_seed"] = st.session_state.get("learn_l5_seed", 0) + 1
    seed = st.session_state.get("learn_l5_seed", 0)
    truth, reported, estimate = _coin_flips(float(share), int(n), int(seed))
    cols = st.columns(3)
    cols[0].metric(t("learn.l5.true_share"), f"{truth.mean():.1%}")
    cols[1].metric(t("learn.l5.yes_share"), f"{reported.mean():.1%}")
    cols[2].metric(t("learn.l5.estimate"), f"{estimate:.1%}", help=t("learn.l5.estimate_help"))
    st.latex(r"\hat\pi = \frac{\lambda - \tfrac14}{\tfrac12} = 2\lambda - \tfrac12")
    yes, no = t("learn.l5.yes"), t("learn.l5.no")
    st.dataframe(
        pd.DataFrame(
            {
                t("learn.col.respondent"): np.arange(1, 11),
                t("learn.col.truth"): np.where(truth[:10] == 1, yes, no),
                t("learn.col.reported"): np.where(reported[:10] == 1, yes, no),
            }
        ),
        hide_index=True,
    )

    st.subheader(t("learn.l5.grr_title"))
    st.markdown(t("learn.l5.grr_text"))
    st.latex(
        r"p = \frac{e^\varepsilon}{e^\varepsilon + d - 1},\qquad"
        r" q = \frac{1}{e^\varepsilon + d - 1}"
    )
    left, right = st.columns(2)
    epsilon = left.slider("ε", 0.1, 5.0, 1.0, 0.1, key=keep("learn_l5_eps"))
    d = right.slider("d", 2, 10, 4, key=keep("learn_l5_d"))
    grr = make("grr", float(epsilon), d=int(d))
    p, q = grr.event_probabilities(0, 1)
    show_chart(_grr_chart(grr.p, grr.q, int(d)), key="learn_l5_chart_data")
    st.markdown(
        t(
            "learn.l5.ratio",
            p=fmt(p),
            q=fmt(q),
            ratio=fmt(p / q, 2),
            bound=fmt(math.exp(float(epsilon)), 2),
        )
    )

    st.subheader(t("learn.l5.audit_title"))
    st.markdown(t("learn.l5.audit_text"))
    if heavy_button(t("learn.l5.audit_run"), key="learn_l5_audit"):
        names = ("broken_grr", "grr")
        with progress_bar(t("learn.l5.audit_running"), steps=len(names)) as bar:
            st.session_state["learn_l5_audits"] = {
                name: _audit(name, bar.step(index)) for index, name in enumerate(names)
            }
    audits = st.session_state.get("learn_l5_audits")
    if audits:
        cols = st.columns(2)
        for column, (name, result) in zip(cols, audits.items(), strict=True):
            with column:
                verdict_card(
                    t_plain(f"learn.l5.mech_{name}"),
                    t_plain(f"learn.l5.verdict_{result['verdict']}"),
                    {"violation": "fail", "consistent": "pass"}.get(result["verdict"], "warn"),
                    t_plain(
                        "learn.l5.audit_detail",
                        lb=fmt(result["epsilon_lb"]),
                        claimed=fmt(result["claimed"], 1),
                        true=fmt(result["true"], 1),
                    ),
                )
        st.caption(t("learn.l5.audit_caption"))

    truth_p = make("grr", LN3, d=2).p

    number_exercise("l5", truth_p, min_value=0.0, max_value=1.0)


def _grr_chart(p: float, q: float, d: int) -> alt.Chart:
    rows = [
        {"output": str(y), "input": t("learn.l5.input", v=v), "probability": p if y == v else q}
        for v in (0, 1)
        for y in range(d)
    ]
    return (
        alt.Chart(pd.DataFrame(rows), title=t("learn.l5.chart_title"))
        .mark_bar()
        .encode(
            x=alt.X("output:N", title=t("learn.l5.chart_x")),
            xOffset="input:N",
            y=alt.Y("probability:Q", title=t("learn.l5.chart_y"), scale=alt.Scale(domain=[0, 1])),
            color=alt.Color("input:N", title=None, scale=alt.Scale(range=[ACCENT, PASS])),
            tooltip=[
                alt.Tooltip("input:N"),
                alt.Tooltip("output:N", title=t("learn.l5.chart_x")),
                alt.Tooltip("probability:Q", format=".3f", title=t("learn.l5.chart_y")),
            ],
        )
        .properties(height=240)
    )
