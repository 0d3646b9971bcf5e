"""Lesson 2 of the Learn page: k-anonymity — the hierarchies, Datafly's steps and
Samarati's search on the hospital table, what each costs, and the node to choose."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from privcore.anonymize import Release, anonymize
from privcore.anonymize.base import prepare
from privcore.anonymize.lattice import Lattice
from privcore.measure import precision
from privcore.models import KAnonymity
from ui.common.charts import show_chart
from ui.common.components import fmt
from ui.common.i18n import t, t_plain
from ui.common.lattice import lattice_chart
from ui.common.state import keep, sample
from ui.learn.common import QI, exercise, hospital


@st.cache_resource(show_spinner=False, max_entries=32)
def _release(algorithm: str, k: int, suppress_rows: int) -> Release:
    """Datafly or Samarati on the hospital table (shared, read-only)."""
    dataset, schema = sample("hospital")
    return anonymize(
        dataset.frame,
        schema,
        [KAnonymity(k)],
        algorithm=algorithm,
        max_suppression=suppress_rows / dataset.n_rows,
    )


def _generalized(node: tuple[int, ...]) -> pd.DataFrame:
    """The hospital table with each QI at the given hierarchy level (nothing suppressed)."""
    schema = sample("hospital")[1]
    frame = hospital().copy()
    for column, level in zip(QI, node, strict=True):
        labels = schema.hierarchies[column].generalize_values(frame[column], level)
        frame[column] = labels.astype(str)
    return frame


def _datafly_steps(release: Release, k: int) -> pd.DataFrame:
    """One row per node Datafly visited: distinct values per QI, smallest class, action."""
    node = [0] * len(QI)
    path = [tuple(node)]
    for step in release.params["steps"]:
        node[QI.index(step["qi"])] += 1
        path.append(tuple(node))
    lattice = _lattice(k)
    rows = []
    for i, visited in enumerate(path):
        frame = _generalized(visited)
        smallest = int(lattice.evaluate(visited).classes.sizes.min())
        distinct = {q: frame[q].nunique() for q in QI}
        if i < len(release.params["steps"]):
            chosen = release.params["steps"][i]["qi"]
            action = t_plain("learn.l2.action_generalize", qi=chosen, distinct=distinct[chosen])
        elif release.n_suppressed:
            action = t("learn.l2.action_suppress", rows=release.n_suppressed)
        else:
            action = t("learn.l2.action_stop", k=k)
        rows.append(
            {
                t("learn.col.step"): i,
                t("learn.col.node"): "(" + ", ".join(map(str, visited)) + ")",
                t("learn.col.distinct", qi="ZIP"): distinct["ZIP"],
                t("learn.col.distinct", qi="Age"): distinct["Age"],
                t("learn.col.smallest"): smallest,
                t("learn.col.action"): action,
            }
        )
    return pd.DataFrame(rows)


def _lattice(k: int) -> Lattice:
    """The full-domain lattice of the hospital table under k-anonymity, no suppression
    (nine rows: cheap enough to build per call, and a Lattice caches as it goes)."""
    dataset, schema = sample("hospital")
    problem = prepare(
        dataset.frame, schema, [KAnonymity(k)], max_suppression=0.0, seed=0, need_hierarchies=True
    )
    return Lattice(problem)


def _node_loss(node: tuple[int, ...]) -> tuple[float, float]:
    """(GCP, precision) of a full-domain node on the hospital table, nothing suppressed."""
    dataset, schema = sample("hospital")
    gcp = _lattice(1).loss(node, "ncp")
    levels = {q: np.full(dataset.n_rows, level) for q, level in zip(QI, node, strict=True)}
    return gcp, precision(levels, {q: schema.hierarchies[q] for q in QI})


#: The feedback on a 3-anonymous answer of lesson 2, by :func:`judge_node`'s verdict.
L2_FEEDBACK = {
    "optimal": "learn.l2.right_optimal",
    "same_height": "learn.l2.right_same_height",
    "higher": "learn.l2.right_higher",
}


def satisfying_nodes(k: int) -> dict[tuple[int, ...], float]:
    """Every full-domain node of the hospital table that is k-anonymous without
    suppression, with its GCP (the lattice is small: 6 × 4 nodes)."""
    schema = sample("hospital")[1]
    heights = [schema.hierarchies[q].height for q in QI]
    lattice = _lattice(k)
    return {
        node: _node_loss(node)[0]
        for node in itertools.product(*(range(h + 1) for h in heights))
        if KAnonymity(k).satisfied(lattice.evaluate(node).classes)
    }


def judge_node(
    node: tuple[int, ...], satisfying: dict[tuple[int, ...], float]
) -> tuple[str, tuple[int, ...]]:
    """The exercise's verdict on ``node`` and the best node to compare it with: the
    satisfying node of lowest height, and of least GCP among those.

    "wrong": ``node`` is not k-anonymous; "optimal": it is the best node (no node of
    lower height works, none of its height loses less); "same_height": it is of the
    lowest height that works but another node of that height loses less; "higher": a
    node of lower height works too."""
    best = min(satisfying, key=lambda n: (sum(n), satisfying[n], n))
    if node not in satisfying:
        return "wrong", best
    if sum(node) > sum(best):
        return "higher", best
    if satisfying[node] > satisfying[best] + 1e-12:
        return "same_height", best
    return "optimal", node


def lesson_k_anonymity() -> None:
    st.header(t("learn.l2.title"))
    st.markdown(t("learn.l2.intro"))
    schema = sample("hospital")[1]
    data = hospital()
    ladder = {
        q: [
            str(schema.hierarchies[q].generalize_values(data[q].head(1), level).iloc[0])
            for level in range(schema.hierarchies[q].height + 1)
        ]
        for q in QI
    }
    st.subheader(t("learn.l2.hierarchies_title"))
    ladder_rows = [
        {t("learn.col.qi"): q, **{t("learn.col.level", level=i): v for i, v in enumerate(labels)}}
        for q, labels in ladder.items()
    ]
    st.dataframe(pd.DataFrame(ladder_rows).fillna(""), hide_index=True)
    st.caption(t("learn.l2.hierarchies_caption"))

    st.subheader(t("learn.l2.datafly_title"))
    st.markdown(t("learn.l2.datafly_text"))
    left, right = st.columns(2)
    k = left.slider("k", 2, 4, 3, key=keep("learn_l2_k"))
    rows = right.slider(t("learn.l2.max_sup"), 0, 3, 0, key=keep("learn_l2_sup"))
    datafly = _release("datafly", int(k), int(rows))
    st.dataframe(_datafly_steps(datafly, int(k)), hide_index=True)
    st.markdown(t("learn.l2.released", node=_fmt_node(datafly.node)))
    st.dataframe(datafly.frame, hide_index=True)

    st.subheader(t("learn.l2.samarati_title"))
    samarati = _release("samarati", int(k), int(rows))
    st.markdown(
        t(
            "learn.l2.samarati_text",
            height=samarati.params["height"],
            candidates=", ".join(_fmt_node(c) for c in samarati.params["candidates"]),
            node=_fmt_node(samarati.node),
            evaluated=samarati.params["evaluated_nodes"],
            size=samarati.params["lattice_size"],
        )
    )
    show_chart(lattice_chart(samarati), key="learn_l2_chart_data")

    st.subheader(t("learn.l2.cost_title"))
    st.markdown(t("learn.l2.cost_text"))
    cols = st.columns(4)
    for column, (name, release) in zip(
        cols[::2], (("Datafly", datafly), ("Samarati", samarati)), strict=True
    ):
        column.metric(f"GCP · {name}", fmt(release.loss["gcp"]), help=t("learn.l2.gcp_help"))
    for column, (name, release) in zip(
        cols[1::2], (("Datafly", datafly), ("Samarati", samarati)), strict=True
    ):
        column.metric(
            t("learn.l2.precision", name=name),
            fmt(release.loss["precision"]),
            help=t("learn.l2.precision_help"),
        )

    heights = {q: schema.hierarchies[q].height for q in QI}

    def ask() -> tuple[int, int]:
        a, b = st.columns(2)
        zip_level = a.number_input(
            t("learn.l2.level", qi="ZIP"), 0, heights["ZIP"], 0, key=keep("learn_l2_zip")
        )
        age_level = b.number_input(
            t("learn.l2.level", qi="Age"), 0, heights["Age"], 0, key=keep("learn_l2_age")
        )
        return int(zip_level), int(age_level)

    def check(node: tuple[int, int]) -> tuple[bool, str]:
        node = tuple(node)
        smallest = int(_lattice(3).evaluate(node).classes.sizes.min())
        verdict, best = judge_node(node, satisfying_nodes(3))
        if verdict == "wrong":
            return False, t("learn.l2.wrong", k=smallest)
        gcp, prec = _node_loss(node)
        best_gcp = _node_loss(best)[0]
        return True, t(
            L2_FEEDBACK[verdict],
            k=smallest,
            gcp=fmt(gcp),
            precision=fmt(prec),
            height=sum(node),
            best=_fmt_node(best),
            best_height=sum(best),
            best_gcp=fmt(best_gcp),
        )

    exercise(
        "learn_l2",
        t("learn.l2.question", zip_top=heights["ZIP"], age_top=heights["Age"]),
        ask,
        check,
        after=lambda node: st.dataframe(_generalized(tuple(node)), hide_index=True),
    )


def _fmt_node(node: Any) -> str:
    if node is None:
        return "—"
    return "(" + ", ".join(f"{q}={level}" for q, level in zip(QI, node, strict=True)) + ")"
