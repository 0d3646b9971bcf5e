"""The seven lessons of the Learn page, one function each.

Every lesson runs the real privcore functions on a small bundled table (the 9-patient
table, a table built here from it, or the ten diners of the differencing attack) and ends
with a small exercise whose answer is computed by privcore too, so the page can never
disagree with the rest of the workbench. Strings come from
``privcore/words/locales/learn_{lang}.json``; data values are shown in tables or escaped.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any

import altair as alt
import numpy as np
import pandas as pd
import streamlit as st

from privcore.anonymize import Release, anonymize
from privcore.anonymize.base import prepare
from privcore.anonymize.lattice import Lattice
from privcore.attacks import background_attack, build_roll, homogeneity_attack, linkage_attack
from privcore.classes import equivalence_classes
from privcore.dp import count, dinner_story, dinner_table, posterior_bound
from privcore.dp.mechanisms import (
    discrete_laplace_half_width,
    discrete_laplace_pmf,
    laplace_half_width,
    laplace_scale,
)
from privcore.ldp.device import device, generator
from privcore.ldp.mechanisms import make
from privcore.measure import (
    conditional_entropy,
    discrimination_rate,
    entropy,
    local_privacy_level,
    precision,
    privacy_level,
    utility_loss,
)
from privcore.models import (
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    RecursiveCLDiversity,
    distinct_values,
    entropy_l,
    recursive_c,
    t_distance,
)
from privcore.runs import AuditRequest, Inputs
from ui.anonymize_view import lattice_chart
from ui.charts import ACCENT, FAIL, MUTED, PASS
from ui.components import fmt, verdict_card
from ui.heavy import compute_heavy, heavy_button
from ui.i18n import current_language, t, t_plain
from ui.progress import progress_bar
from ui.shared import shared_compute
from ui.state import keep, sample

QI = ["ZIP", "Age"]
SA = ["Salary", "Disease"]
TOLERANCE = 0.005  # answers are checked to two decimals


# --------------------------------------------------------------------------- shared pieces


def _hospital() -> pd.DataFrame:
    return sample("hospital")[0].frame


def _hospital_release() -> pd.DataFrame:
    return sample("hospital_release")[0].frame


def _close(answer: float, truth: float) -> bool:
    return abs(float(answer) - float(truth)) <= TOLERANCE + 1e-9


def exercise(
    key: str,
    question: str,
    ask: Callable[[], Any],
    check: Callable[[Any], tuple[bool, str]],
    *,
    after: Callable[[Any], None] | None = None,
) -> None:
    """A question in a form; the submitted answer is kept, checked and answered with
    st.success or st.error (``after`` may show more, e.g. the table the answer gives)."""
    st.subheader(t("learn.exercise"), divider="gray")
    st.markdown(question)
    stored = f"{key}::answer"
    with st.form(f"{key}::form"):
        answer = ask()
        if st.form_submit_button(t("learn.check"), type="primary", key=f"{key}::check"):
            st.session_state[stored] = answer
    submitted = st.session_state.get(stored)
    # Judge only the answer still in the form (after a visit to another lesson the
    # inputs start empty again, and an old verdict would not match them).
    if submitted is None or submitted != answer:
        return
    correct, message = check(submitted)
    if correct:
        st.success(message, icon=":material/check_circle:")
    else:
        st.error(message, icon=":material/cancel:")
    if after is not None:
        after(submitted)


def _number(key: str, label: str, **kwargs: Any) -> float | None:
    return st.number_input(label, value=None, key=key, **kwargs)


# --------------------------------------------------------------------------- 1. linkage


@st.cache_data(show_spinner=False, max_entries=16)
def _linkage(size: int, seed: int, locale: str) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """(roll, targets, summary) of the linkage attack on the raw hospital table."""
    data = _hospital()
    roll = build_roll(data, QI, size=size, seed=seed, locale=locale)
    report = linkage_attack(data, roll.frame, QI, ["Disease"], truth=data)
    return roll.frame, report.targets, report.summary


def lesson_linkage() -> None:
    st.header(t("learn.l1.title"))
    st.markdown(t("learn.l1.story"))
    data = _hospital()
    st.subheader(t("learn.l1.hospital_title"))
    st.caption(t("learn.l1.hospital_caption"))
    st.dataframe(data, hide_index=True)

    st.subheader(t("learn.l1.roll_title"))
    left, right = st.columns(2)
    size = left.slider(t("learn.l1.roll_size"), 18, 90, 27, 9, key=keep("learn_l1_size"))
    seed = right.number_input(t("learn.l1.seed"), 0, 999, 0, key=keep("learn_l1_seed"))
    locale = "zh" if current_language() == "zh" else "en"
    roll, targets, summary = _linkage(int(size), int(seed), locale)
    st.caption(t("learn.l1.roll_caption", size=len(roll)))
    shown = ["name", "birth_date", *QI]
    st.dataframe(
        roll[[c for c in shown if c in roll.columns]],
        hide_index=True,
        height=250,
        column_config={
            "name": t("learn.col.name"),
            "birth_date": t("learn.col.birth_date"),
        },
    )

    st.subheader(t("learn.l1.join_title"))
    st.markdown(t("learn.l1.join_text"))
    join = pd.DataFrame(
        {
            t("learn.col.name"): targets["name"],
            "ZIP": targets["ZIP"],
            "Age": targets["Age"],
            t("learn.col.candidates"): targets["candidate_records"],
            t("learn.col.diagnosis"): targets["Disease values"],
            t("learn.col.correct"): targets["correct"],
        }
    )
    st.dataframe(join, hide_index=True)
    st.info(t("learn.l1.false_matches", count=summary["false_matches"]), icon=":material/info:")

    truth = int(summary["reidentified"])

    def check(answer: float) -> tuple[bool, str]:
        if int(answer) == answer and int(answer) == truth:
            return True, t("learn.l1.right", count=truth)
        return False, t("learn.l1.wrong", answer=fmt(answer, 0))

    exercise(
        "learn_l1",
        t("learn.l1.question"),
        lambda: _number("learn_l1_answer", t("learn.l1.answer_label"), min_value=0, step=1),
        check,
    )


# --------------------------------------------------------------------------- 2. k-anonymity


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
    frame = _hospital().copy()
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
    data = _hospital()
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
    st.altair_chart(lattice_chart(samarati), width="stretch")

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


# --------------------------------------------------------------------------- 3. l-diversity


def diverse_release() -> pd.DataFrame:
    """A 3-anonymous release of ten patients in which one class is homogeneous."""
    return pd.DataFrame(
        {
            "ZIP": ["476**"] * 3 + ["4790*"] * 3 + ["476**"] * 4,
            "Age": ["2*"] * 3 + [">=40"] * 3 + ["3*"] * 4,
            "Disease": [
                "gastric ulcer",
                "gastritis",
                "stomach cancer",
                "stomach cancer",
                "stomach cancer",
                "stomach cancer",
                "bronchitis",
                "bronchitis",
                "pneumonia",
                "flu",
            ],
        }
    )


def _class_names(frame: pd.DataFrame, classes: Any) -> list[str]:
    keys = classes.class_keys(frame)
    return ["(" + ", ".join(map(str, row)) + ")" for row in keys.itertuples(index=False)]


def lesson_l_diversity() -> None:
    st.header(t("learn.l3.title"))
    st.markdown(t("learn.l3.intro"))
    release = diverse_release()
    st.dataframe(release, hide_index=True)
    classes = equivalence_classes(release, QI, ["Disease"])
    names = _class_names(release, classes)

    st.subheader(t("learn.l3.homogeneity_title"))
    attack = homogeneity_attack(release, QI, "Disease")
    for _, row in attack.targets.iterrows():
        st.warning(
            t(
                "learn.l3.homogeneous",
                zip=str(row["ZIP"]),
                age=str(row["Age"]),
                size=int(row["size"]),
                value=str(row["value"]),
            ),
            icon=":material/warning:",
        )
    st.markdown(t("learn.l3.homogeneity_text", records=attack.summary["records_exposed"]))

    st.subheader(t("learn.l3.background_title"))
    st.markdown(t("learn.l3.background_text"))
    st.latex(r"P(v) = \frac{c(v)}{n - \sum_{u \in R} c(u)}")
    m = st.slider(t("learn.l3.m"), 0, 3, 1, key=keep("learn_l3_m"))
    background = background_attack(release, QI, "Disease", m=int(m), tau=0.8)
    posterior = background.targets.assign(
        record=background.targets["row"] + 1,
        klass=[names[c] for c in background.targets["class"]],
    )
    st.altair_chart(_posterior_chart(posterior), width="stretch")
    st.caption(
        t(
            "learn.l3.background_caption",
            m=int(m),
            at_risk=background.summary["records_at_risk"],
            records=background.summary["records"],
            mean=fmt(background.summary["mean_posterior"], 2),
        )
    )

    st.subheader(t("learn.l3.forms_title"))
    st.markdown(t("learn.l3.forms_text"))
    st.latex(r"\text{distinct: } |\{s\}| \ge l")
    st.latex(r"\text{entropy: } -\sum_s p(s)\ln p(s) \ge \ln l")
    st.latex(r"\text{recursive: } r_1 < c\,(r_l + r_{l+1} + \dots + r_m)")
    left, right = st.columns(2)
    l_value = left.slider("l", 2, 3, 2, key=keep("learn_l3_l"))
    c_value = right.slider("c", 0.5, 4.0, 2.0, 0.5, key=keep("learn_l3_c"))
    models = {
        t("learn.l3.distinct"): DistinctLDiversity(int(l_value)),
        t("learn.l3.entropy"): EntropyLDiversity(float(l_value)),
        t("learn.l3.recursive"): RecursiveCLDiversity(float(c_value), int(l_value)),
    }
    table = pd.DataFrame(
        {
            t("learn.col.class"): names,
            t("learn.col.distinct_l"): distinct_values(classes, "Disease"),
            t("learn.col.entropy_l"): np.round(entropy_l(classes, "Disease"), 3),
            t("learn.col.recursive_c", l=int(l_value)): np.round(
                recursive_c(classes, "Disease", int(l_value)), 3
            ),
        }
    )
    for label, model in models.items():
        table[label] = np.where(model.class_pass(classes), "✓", "✗")
    st.dataframe(table, hide_index=True)
    cards = st.columns(3)
    for column, (label, model) in zip(cards, models.items(), strict=True):
        with column:
            passed = model.satisfied(classes)
            verdict_card(
                label,
                model.requirement(),
                "pass" if passed else "fail",
                t_plain("learn.l3.card_pass") if passed else t_plain("learn.l3.card_fail"),
            )

    # The exercise class is not in the table above, whose entropy l column shows answers.
    quiz = pd.DataFrame({"Class": "X", "Disease": ["flu", "flu", "flu", "cold", "covid"]})
    truth = float(entropy_l(equivalence_classes(quiz, ["Class"], ["Disease"]), "Disease")[0])

    def check(answer: float) -> tuple[bool, str]:
        if _close(answer, truth):
            return True, t("learn.l3.right", value=f"{truth:.2f}")
        return False, t("learn.l3.wrong", answer=fmt(float(answer), 2))

    exercise(
        "learn_l3",
        t("learn.l3.question"),
        lambda: _number(
            "learn_l3_answer", t("learn.l3.answer_label"), min_value=0.0, step=0.01, format="%.2f"
        ),
        check,
    )


def _posterior_chart(targets: pd.DataFrame) -> alt.Chart:
    bars = (
        alt.Chart(targets, title=t("learn.l3.chart_title"))
        .mark_bar()
        .encode(
            x=alt.X("record:O", title=t("learn.col.record")),
            y=alt.Y(
                "posterior:Q",
                title=t("learn.l3.chart_y"),
                scale=alt.Scale(domain=[0, 1]),
                axis=alt.Axis(format="%"),
            ),
            color=alt.Color("klass:N", title=t("learn.col.class")),
            tooltip=[
                alt.Tooltip("record:O", title=t("learn.col.record")),
                alt.Tooltip("value:N", title="Disease"),
                alt.Tooltip("posterior:Q", format=".0%", title=t("learn.l3.chart_y")),
                alt.Tooltip("values_left:Q", title=t("learn.l3.values_left")),
            ],
        )
    )
    rule = (
        alt.Chart(pd.DataFrame({"tau": [0.8]}))
        .mark_rule(color=FAIL, strokeDash=[4, 4])
        .encode(y="tau:Q")
    )
    return (bars + rule).properties(height=260)


# --------------------------------------------------------------------------- 4. t-closeness


def _salary_steps(frame: pd.DataFrame, classes: Any, class_id: int) -> pd.DataFrame:
    """Per salary in rank order: the class's and the table's shares and the running
    difference Σ_{j≤i} (p_j − q_j) the ordered distance adds up."""
    values = np.sort(frame["Salary"].unique())
    q = frame["Salary"].value_counts(normalize=True).reindex(values, fill_value=0.0)
    members = frame["Salary"][classes.ids == class_id]
    p = members.value_counts(normalize=True).reindex(values, fill_value=0.0)
    return pd.DataFrame(
        {
            "salary": [f"{v / 1000:g}K" for v in values],
            "p": p.to_numpy(),
            "q": q.to_numpy(),
            "cumulative": np.cumsum(p.to_numpy() - q.to_numpy()),
        }
    )


def _cumulative_chart(steps: pd.DataFrame) -> alt.Chart:
    return (
        alt.Chart(steps, title=t("learn.l4.chart_title"))
        .mark_bar()
        .encode(
            x=alt.X("salary:O", sort=None, title=t("learn.l4.chart_x")),
            y=alt.Y("cumulative:Q", title=t("learn.l4.chart_y")),
            color=alt.condition("datum.cumulative >= 0", alt.value(ACCENT), alt.value(MUTED)),
            tooltip=[
                alt.Tooltip("salary:O", title=t("learn.l4.chart_x")),
                alt.Tooltip("p:Q", format=".3f", title="p"),
                alt.Tooltip("q:Q", format=".3f", title="q"),
                alt.Tooltip("cumulative:Q", format=".3f", title=t("learn.l4.chart_y")),
            ],
        )
        .properties(height=240)
    )


def tiny_table() -> pd.DataFrame:
    """The exercise table: ten patients in two classes."""
    return pd.DataFrame(
        {
            "Class": ["A"] * 6 + ["B"] * 4,
            "Disease": ["flu"] * 4 + ["cold"] * 2 + ["cold", "covid", "covid", "flu"],
        }
    )


def lesson_t_closeness() -> None:
    st.header(t("learn.l4.title"))
    st.markdown(t("learn.l4.intro"))
    release = _hospital_release()
    hierarchy = sample("hospital")[1].hierarchies["Disease"]
    classes = equivalence_classes(release, QI, SA, hierarchies={"Disease": hierarchy})
    names = _class_names(release, classes)
    st.dataframe(release, hide_index=True)

    st.subheader(t("learn.l4.ordered_title"))
    st.latex(
        r"D_{\text{ordered}}(P,Q) = \frac{1}{m-1}\sum_{i=1}^{m}"
        r"\Bigl|\sum_{j\le i}(p_j-q_j)\Bigr|"
    )
    salary_t = t_distance(classes, "Salary", "ordered")
    worst = int(np.argmax(salary_t))
    chosen = st.selectbox(
        t("learn.col.class"),
        range(classes.n_classes),
        index=worst,
        format_func=lambda c: names[c],
        key=keep("learn_l4_class"),
    )
    steps = _salary_steps(release, classes, int(chosen))
    st.altair_chart(_cumulative_chart(steps), width="stretch")
    total = float(np.abs(steps["cumulative"]).sum())
    st.markdown(
        t(
            "learn.l4.ordered_sum",
            total=fmt(total),
            m=len(steps),
            value=fmt(float(salary_t[int(chosen)])),
        )
    )
    st.metric(t("learn.l4.t_salary"), fmt(float(salary_t.max())), help=t("learn.l4.t_salary_help"))
    st.caption(t("learn.l4.erratum", other=fmt(_other_grouping_t(), 4)))

    st.subheader(t("learn.l4.disease_title"))
    st.markdown(t("learn.l4.disease_text"))
    st.latex(r"D_{\text{equal}}(P,Q) = \tfrac12\sum_i |p_i-q_i|")
    levels = hierarchy.to_frame()
    levels.columns = [t("learn.col.level", level=i) for i in range(len(levels.columns))]
    st.dataframe(levels, hide_index=True)
    st.dataframe(
        pd.DataFrame(
            {
                t("learn.col.class"): names,
                t("learn.col.t_ordered"): np.round(salary_t, 3),
                t("learn.col.t_equal"): np.round(t_distance(classes, "Disease", "equal"), 3),
                t("learn.col.t_hier"): np.round(t_distance(classes, "Disease", "hierarchical"), 3),
            }
        ),
        hide_index=True,
    )
    st.markdown(t("learn.l4.disease_after"))

    tiny = tiny_table()
    tiny_classes = equivalence_classes(tiny, ["Class"], ["Disease"])
    truth = float(t_distance(tiny_classes, "Disease", "equal")[1])

    def check(answer: float) -> tuple[bool, str]:
        if _close(answer, truth):
            return True, t("learn.l4.right", value=f"{truth:.2f}")
        return False, t("learn.l4.wrong", answer=fmt(float(answer), 2))

    exercise(
        "learn_l4",
        t("learn.l4.question"),
        lambda: _tiny_question(tiny),
        check,
    )


def _tiny_question(tiny: pd.DataFrame) -> float | None:
    st.dataframe(tiny, hide_index=True)
    return _number(
        "learn_l4_answer", t("learn.l4.answer_label"), min_value=0.0, step=0.01, format="%.2f"
    )


def _other_grouping_t() -> float:
    """Salary t of the grouping {1,3,8}, {4,5,6}, {2,7,9} of Li et al.'s paper."""
    frame = _hospital().assign(group=[1, 2, 1, 3, 3, 3, 2, 1, 2])
    classes = equivalence_classes(frame, ["group"], ["Salary"])
    return float(t_distance(classes, "Salary", "ordered").max())


# --------------------------------------------------------------------------- 5. local DP

LN3 = math.log(3)


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
    (:func:`ui.shared.shared_compute`; not ``st.cache_data``, which cannot replay the
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
    st.altair_chart(_grr_chart(grr.p, grr.q, int(d)), width="stretch")
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

    def check(answer: float) -> tuple[bool, str]:
        if _close(answer, truth_p):
            return True, t("learn.l5.right", value=f"{truth_p:.2f}")
        return False, t("learn.l5.wrong", answer=fmt(float(answer), 2))

    exercise(
        "learn_l5",
        t("learn.l5.question"),
        lambda: _number(
            "learn_l5_answer",
            t("learn.l5.answer_label"),
            min_value=0.0,
            max_value=1.0,
            step=0.01,
            format="%.2f",
        ),
        check,
    )


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


# --------------------------------------------------------------------------- 6. measuring


def lesson_measuring() -> None:
    st.header(t("learn.l6.title"))
    st.markdown(t("learn.l6.intro"))
    original, release = _hospital(), _hospital_release()
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

    def check(answer: float) -> tuple[bool, str]:
        if _close(answer, truth):
            return True, t("learn.l6.right", value=f"{truth:.2f}")
        return False, t("learn.l6.wrong", answer=fmt(float(answer), 2))

    exercise(
        "learn_l6",
        t("learn.l6.question"),
        lambda: _number(
            "learn_l6_answer",
            t("learn.l6.answer_label"),
            min_value=0.0,
            max_value=1.0,
            step=0.01,
            format="%.2f",
        ),
        check,
    )


# --------------------------------------------------------------------------- 7. central DP

#: The exercise of lesson 7: the Laplace scale of a count at this ε (not a value of the
#: lesson's ε slider, whose metrics would show the answer).
L7_EXERCISE_EPSILON = 0.25
SINGLE = "single"


def output_probabilities(count_with: int, count_without: int, epsilon: float) -> pd.DataFrame:
    """P(output = y) of the discrete Laplace mechanism (sensitivity 1) on two true counts,
    over every y within the 99 % range of both: columns ``output``, ``with``, ``without``.

    The rows cover the outputs where the ratio of the two probabilities is decided; beyond
    them it stays at its value on the nearest edge (both tails fall by the same factor q per
    step), so the largest ratio over the rows is the largest over all outputs."""
    reach = discrete_laplace_half_width(1, epsilon, beta=0.01) + 1
    low, high = min(count_with, count_without) - reach, max(count_with, count_without) + reach
    outputs = np.arange(low, high + 1)
    return pd.DataFrame(
        {
            "output": outputs,
            "with": discrete_laplace_pmf(outputs - count_with, 1, epsilon),
            "without": discrete_laplace_pmf(outputs - count_without, 1, epsilon),
        }
    )


def largest_ratio(probabilities: pd.DataFrame) -> float:
    """max over outputs y of max(P_with(y)/P_without(y), P_without(y)/P_with(y)): ε-DP
    requires it to be at most e^ε."""
    ratio = probabilities["with"].to_numpy() / probabilities["without"].to_numpy()
    return float(np.max(np.maximum(ratio, 1.0 / ratio)))


def _distributions_chart(probabilities: pd.DataFrame, leaver: str) -> alt.Chart:
    series = {
        "with": t_plain("learn.l7.series_with"),
        "without": t_plain("learn.l7.series_without", name=leaver),
    }
    rows = probabilities.melt("output", ["with", "without"], "series", "probability")
    rows["series"] = rows["series"].map(series)
    return (
        alt.Chart(rows, title=t_plain("learn.l7.chart_title"))
        .mark_bar()
        .encode(
            x=alt.X("output:O", title=t_plain("learn.l7.chart_x")),
            xOffset=alt.XOffset("series:N", sort=list(series.values())),
            y=alt.Y("probability:Q", title=t_plain("learn.l7.chart_y")),
            color=alt.Color(
                "series:N",
                title=None,
                sort=list(series.values()),
                scale=alt.Scale(range=[ACCENT, PASS]),
            ),
            tooltip=[
                alt.Tooltip("series:N", title=t_plain("learn.l7.chart_series")),
                alt.Tooltip("output:O", title=t_plain("learn.l7.chart_x")),
                alt.Tooltip("probability:Q", format=".4f", title=t_plain("learn.l7.chart_y")),
            ],
        )
        .properties(height=260)
    )


def _dinner_guests(table: pd.DataFrame) -> pd.DataFrame:
    statuses = {status: t_plain(f"learn.l7.{status}") for status in table["status"].unique()}
    return pd.DataFrame(
        {
            t_plain("learn.col.name"): table["name"],
            t_plain("learn.l7.col_status"): table["status"].map(statuses),
        }
    )


def lesson_differencing() -> None:
    st.header(t("learn.l7.title"))
    st.markdown(t("learn.l7.intro"))

    # 1. exact counts: the widgets of every section come first, the results are placed
    # in their sections once the one dinner_story call has run
    st.subheader(t("learn.l7.story_title"))
    table = dinner_table()
    names = table["name"].tolist()
    st.markdown(
        t(
            "learn.l7.story_text",
            diners=len(table),
            couples=int((table["status"] != SINGLE).sum()),
            singles=int((table["status"] == SINGLE).sum()),
        )
    )
    st.dataframe(_dinner_guests(table), hide_index=True)
    first_single = names[int(np.flatnonzero(table["status"].to_numpy() == SINGLE)[0])]
    leaver = st.selectbox(
        t("learn.l7.leaver"),
        names,
        index=names.index(first_single),
        key=keep("learn_l7_leaver", valid=lambda v: v in names),
    )
    exact_box = st.container()

    # 2. noisy counts
    st.subheader(t("learn.l7.noise_title"))
    st.markdown(t("learn.l7.noise_text"))
    left, right = st.columns([3, 1], vertical_alignment="bottom")
    epsilon = float(left.slider("ε", 0.1, 3.0, 1.0, 0.1, key=keep("learn_l7_eps")))
    if right.button(t("learn.l7.draw"), key="learn_l7_draw", icon=":material/casino:"):
        st.session_state["learn_l7_seed"] = st.session_state.get("learn_l7_seed", 0) + 1
    seed = int(st.session_state.get("learn_l7_seed", 0))
    noisy_box = st.container()

    # 3. the bound on the attacker's belief
    st.subheader(t("learn.l7.bound_title"))
    st.markdown(t("learn.l7.bound_text"))
    st.latex(
        r"\Pr[\text{single} \mid \text{answers}] \le "
        r"\frac{p\,e^{\varepsilon}}{p\,e^{\varepsilon} + 1 - p}"
    )
    prior = float(st.slider(t("learn.l7.prior"), 0.01, 0.99, 0.5, 0.01, key=keep("learn_l7_prior")))
    story = dinner_story(epsilon, prior=prior, leaver=leaver, mechanism="geometric", seed=seed)
    attack = story.attack

    with exact_box:
        cols = st.columns(2)
        cols[0].metric(t("learn.l7.count_with"), fmt(story.singles_before))
        cols[1].metric(t("learn.l7.count_without", name=leaver), fmt(story.singles_after))
        conclusion = (
            "learn.l7.exact_single"
            if story.singles_before - story.singles_after == 1
            else "learn.l7.exact_couple"
        )
        st.warning(
            t(
                conclusion,
                name=leaver,
                before=story.singles_before,
                after=story.singles_after,
                diners_before=story.diners_before,
                diners_after=story.diners_after,
                posterior=f"{story.posterior_exact_answers:.0%}",
            ),
            icon=":material/visibility:",
        )

    with noisy_box:
        noisy_with, noisy_without = int(attack.noisy_with[0]), int(attack.noisy_without[0])
        cols = st.columns(3)
        cols[0].metric(t("learn.l7.noisy_with"), fmt(noisy_with))
        cols[1].metric(t("learn.l7.noisy_without", name=leaver), fmt(noisy_without))
        cols[2].metric(t("learn.l7.noisy_difference"), fmt(noisy_with - noisy_without))
        probabilities = output_probabilities(story.singles_before, story.singles_after, epsilon)
        st.altair_chart(_distributions_chart(probabilities, leaver), width="stretch")
        key = "learn.l7.ratio" if story.leaver_status == SINGLE else "learn.l7.ratio_couple"
        st.markdown(
            t(
                key,
                name=leaver,
                ratio=fmt(largest_ratio(probabilities), 3),
                bound=fmt(math.exp(epsilon), 3),
                epsilon=fmt(epsilon, 1),
            )
        )

    cols = st.columns(3)
    cols[0].metric(
        t("learn.l7.bound_metric"),
        fmt(posterior_bound(epsilon, prior)),
        help=t("learn.l7.bound_help"),
    )
    cols[1].metric(t("learn.l7.draw_posterior", name=leaver), fmt(float(attack.posteriors[0])))
    cols[2].metric(t("learn.l7.exact_posterior"), fmt(story.posterior_exact_answers))
    st.caption(
        t(
            "learn.l7.bound_caption",
            low=fmt(attack.posterior_min),
            high=fmt(attack.posterior_max),
            prior=fmt(prior, 2),
            epsilon=fmt(epsilon, 1),
        )
    )
    st.info(t("learn.l7.worked", value=fmt(posterior_bound(LN3, 0.5), 2)), icon=":material/info:")

    # 4. accuracy
    st.subheader(t("learn.l7.accuracy_title"))
    sensitivity = count(table, {"status": SINGLE}).sensitivity_l1
    st.markdown(t("learn.l7.accuracy_text", sensitivity=fmt(sensitivity, 0)))
    st.latex(
        r"b = \frac{\Delta}{\varepsilon},\qquad \Pr\bigl[|Z| > t\bigr] = e^{-t/b}"
        r"\;\Rightarrow\; t_{95\%} = \frac{\Delta}{\varepsilon}\,\ln 20"
    )
    scale = laplace_scale(sensitivity, epsilon)
    half_width = laplace_half_width(sensitivity, epsilon, beta=0.05)
    discrete_half_width = discrete_laplace_half_width(int(sensitivity), epsilon, beta=0.05)
    cols = st.columns(4)
    cols[0].metric(t("learn.l7.sensitivity"), fmt(sensitivity, 0))
    cols[1].metric(t("learn.l7.scale"), fmt(scale, 2))
    cols[2].metric(t("learn.l7.half_width"), fmt(half_width, 2))
    cols[3].metric(t("learn.l7.discrete_half_width"), fmt(discrete_half_width))
    st.caption(
        t(
            "learn.l7.accuracy_caption",
            epsilon=fmt(epsilon, 1),
            half=fmt(half_width, 2),
            discrete=fmt(discrete_half_width),
            singles=story.singles_before,
        )
    )

    truth = laplace_scale(sensitivity, L7_EXERCISE_EPSILON)
    asked = fmt(L7_EXERCISE_EPSILON, 2)

    def check(answer: float) -> tuple[bool, str]:
        if _close(answer, truth):
            return True, t(
                "learn.l7.right",
                sensitivity=fmt(sensitivity, 0),
                epsilon=asked,
                value=f"{truth:.2f}",
                half=fmt(laplace_half_width(sensitivity, L7_EXERCISE_EPSILON), 2),
            )
        if _close(answer, L7_EXERCISE_EPSILON * sensitivity):
            return False, t("learn.l7.wrong_inverted", answer=fmt(float(answer), 2))
        return False, t(
            "learn.l7.wrong", answer=fmt(float(answer), 2), sensitivity=fmt(sensitivity, 0)
        )

    exercise(
        "learn_l7",
        t("learn.l7.question", epsilon=asked),
        lambda: _number(
            "learn_l7_answer", t("learn.l7.answer_label"), min_value=0.0, step=0.01, format="%.2f"
        ),
        check,
    )


# --------------------------------------------------------------------------- the catalogue

LESSONS: dict[int, Callable[[], None]] = {
    1: lesson_linkage,
    2: lesson_k_anonymity,
    3: lesson_l_diversity,
    4: lesson_t_closeness,
    5: lesson_local_dp,
    6: lesson_measuring,
    7: lesson_differencing,
}

__all__ = [
    "LESSONS",
    "diverse_release",
    "exercise",
    "largest_ratio",
    "output_probabilities",
    "tiny_table",
]
