"""Lesson 8 of the Learn page: database reconstruction — the census block of seven people
of Garfinkel, Abowd & Martindale ("Understanding database reconstruction attacks on public
data", ACM Queue 2018 / CACM 62(3), 2019), whose published table of counts, median ages
and mean ages leaves exactly one possible set of records, and the same tables published
with noise.

The block and its statistics are the article's; the attack is
:func:`privcore.attacks.reconstruction.reconstruct`, run on the statistics added in
stages so that the tables that fit shrink to one."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from privcore.attacks import reconstruction as rc
from privcore.dp.mechanisms import DiscreteLaplace
from ui.common.components import fmt
from ui.common.i18n import t, t_plain
from ui.common.state import keep
from ui.learn.common import answer_input, exercise, is_close

OLDEST = 115  # ages are whole numbers 0..OLDEST
COLUMNS = ("age", "sex", "race", "marital")
SCHEMA = rc.Schema(
    {"age": range(OLDEST + 1), "sex": ("F", "M"), "race": ("B", "W"), "marital": ("S", "M")}
)
ADULTS = rc.Between(18, OLDEST)
THRESHOLD = 3  # a cell of fewer people is withheld, shown as "(D)"
#: The census rule of the article: no one under 15 is married (a structural zero).
MARRIED_CHILDREN = {"marital": "M", "age": rc.Between(0, 14)}
MAX_SOLUTIONS = 10  # tables counted per solve; more than that reads "at least 11"
#: The noise section: the tables the counts belong to (each one's cells are disjoint, so
#: one person changes one count of each by one), ε split equally among them.
TABLES = ("total", "sex", "race", "marital", "race_sex")
BETA = 1e-6  # the attacker keeps each noisy count within the error it exceeds this rarely
#: The exercise: the group whose oldest member is asked.
L8_EXERCISE_GROUP = "2B"


@dataclass(frozen=True)
class Line:
    """One line of the published table: a group and its count, median and mean age
    (``None`` for a line withheld because the group has fewer than THRESHOLD people)."""

    id: str
    group: str
    table: str
    where: Mapping[str, Any] = field(default_factory=dict)
    count: int | None = None
    median: float | None = None
    mean: float | None = None
    rounded_to: float = 0.0

    @property
    def withheld(self) -> bool:
        return self.count is None


#: The article's Table 1.
PUBLISHED = (
    Line("1A", "all", "total", {}, 7, 30, 38),
    Line("2A", "female", "sex", {"sex": "F"}, 4, 30, 33.5),
    Line("2B", "male", "sex", {"sex": "M"}, 3, 30, 44),
    Line("2C", "black", "race", {"race": "B"}, 4, 51, 48.5),
    Line("2D", "white", "race", {"race": "W"}, 3, 24, 24),
    Line("3A", "single_adults", "marital", {"marital": "S", "age": ADULTS}),
    Line("3B", "married_adults", "marital", {"marital": "M", "age": ADULTS}, 4, 51, 54),
    Line("4A", "black_female", "race_sex", {"race": "B", "sex": "F"}, 3, 36, 36.7, 0.1),
    Line("4B", "black_male", "race_sex", {"race": "B", "sex": "M"}),
    Line("4C", "white_male", "race_sex", {"race": "W", "sex": "M"}),
    Line("4D", "white_female", "race_sex", {"race": "W", "sex": "F"}),
)
#: The article's Table 2: the seven people of the block.
BLOCK = pd.DataFrame(
    {
        "age": [8, 18, 24, 30, 36, 66, 84],
        "sex": ["F", "M", "F", "M", "F", "F", "M"],
        "race": ["B", "W", "W", "W", "B", "B", "B"],
        "marital": ["S", "S", "S", "M", "M", "M", "M"],
    }
)
#: The stages of the attack: the lines published so far, and whether the structural zero
#: is added.
STAGES = (
    (("1A",), False),
    (("1A", "2A", "2B"), False),
    (("1A", "2A", "2B", "2C", "2D", "4A", "4B", "4C", "4D"), False),
    (tuple(item.id for item in PUBLISHED), False),
    (tuple(item.id for item in PUBLISHED), True),
)


def line(line_id: str) -> Line:
    return next(candidate for candidate in PUBLISHED if candidate.id == line_id)


def statistics(line_ids, structural_zero: bool = False) -> list[rc.Statistic]:
    """The published statistics of the lines: each line's count, median and mean, or its
    count withheld below THRESHOLD; with the structural zero when asked."""
    out: list[rc.Statistic] = []
    for item in map(line, line_ids):
        if item.withheld:
            out.append(rc.Count(item.where, None, suppressed_below=THRESHOLD, name=item.id))
            continue
        out += [
            rc.Count(item.where, item.count, name=f"{item.id} count"),
            rc.Median("age", item.median, item.where, name=f"{item.id} median"),
            rc.Mean(
                "age", item.mean, item.where, rounded_to=item.rounded_to, name=f"{item.id} mean"
            ),
        ]
    if structural_zero:
        out.append(rc.Count(MARRIED_CHILDREN, 0, name="married under 15"))
    return out


def true_counts() -> np.ndarray:
    """The number of people of the block in each line's group (the withheld ones too)."""
    records = SCHEMA.codes()[SCHEMA.type_of(BLOCK)]
    return np.array([int(SCHEMA.mask(item.where, records).sum()) for item in PUBLISHED])


def _multisets_by_sum(size: int, low: int, high: int) -> np.ndarray:
    """ways[s]: how many multisets of ``size`` whole numbers in low..high add up to s."""
    top = size * high
    ways = np.zeros((size + 1, top + 1), dtype=np.int64)
    ways[0, 0] = 1
    for value in range(low, high + 1):
        # ascending sizes reuse the row just updated: a value may repeat
        for j in range(1, size + 1):
            ways[j, value:] += ways[j - 1, : top + 1 - value]
    return ways[size]


def age_combinations(
    people: int, median: float, mean: float, oldest: int = OLDEST
) -> tuple[int, int]:
    """(all, fitting): the multisets of ``people`` whole-number ages in 0..oldest (order
    does not matter, an age may repeat), and those whose median and mean are the given
    ones. ``people`` is odd: the median is the middle age, with ``people // 2`` ages at
    or below it and as many at or above it, the ages adding up to people × mean."""
    if people % 2 == 0:
        raise ValueError("age_combinations counts groups of an odd number of people")
    half, middle = people // 2, int(median)
    rest = round(people * mean) - middle
    below = _multisets_by_sum(half, 0, middle)
    above = _multisets_by_sum(half, middle, oldest)
    sums = np.arange(len(below))
    other = rest - sums
    fits = (other >= 0) & (other < len(above))
    fitting = int(np.sum(below[fits] * above[other[fits]]))
    return math.comb(oldest + people, people), fitting


@st.cache_data(show_spinner=False, max_entries=len(STAGES))
def solve_stage(number: int) -> rc.Reconstruction:
    """The attack on the statistics of stage ``number`` (1-based), against the block."""
    line_ids, structural_zero = STAGES[number - 1]
    publication = rc.Publication(SCHEMA, statistics(line_ids, structural_zero))
    return rc.reconstruct(publication, truth=BLOCK, max_solutions=MAX_SOLUTIONS)


def noisy_release(epsilon: float, seed: int) -> tuple[np.ndarray, DiscreteLaplace]:
    """Every line's count with discrete Laplace noise at ε / len(TABLES): one person
    changes one cell of each table by at most one, so each table is ε / len(TABLES)-DP and
    the release ε-DP (sequential composition); returns the counts and the mechanism."""
    mechanism = DiscreteLaplace(1, epsilon / len(TABLES))
    noisy = mechanism.release(true_counts(), rng=np.random.default_rng(seed))
    return np.asarray(noisy, dtype=np.int64), mechanism


@st.cache_data(show_spinner=False, max_entries=32)
def solve_noisy(epsilon: float, seed: int) -> tuple[np.ndarray, rc.Reconstruction]:
    """The noisy counts and the attack on them (told the noise law), against the block."""
    noisy, mechanism = noisy_release(epsilon, seed)
    noise = rc.Noise("discrete_laplace", mechanism.scale, BETA)
    counts = [
        rc.Count(item.where, int(value), noise=noise, name=item.id)
        for item, value in zip(PUBLISHED, noisy, strict=True)
    ]
    counts.append(rc.Count(MARRIED_CHILDREN, 0, name="married under 15"))
    result = rc.reconstruct(
        rc.Publication(SCHEMA, counts), truth=BLOCK, max_solutions=MAX_SOLUTIONS
    )
    return noisy, result


# --------------------------------------------------------------------------- words


def _number(value: float | None) -> str:
    return t_plain("learn.l8.withheld") if value is None else f"{value:g}"


def _group(item: Line) -> str:
    return t_plain(f"learn.l8.group.{item.group}")


def tables_text(result: rc.Reconstruction) -> str:
    """How many tables fit, in words: one, exactly N, at least N or none found."""
    if result.unique:
        return t_plain("learn.l8.tables_unique")
    if not result.solutions:
        return t_plain("learn.l8.tables_none")
    if result.complete:
        return t_plain("learn.l8.tables_exactly", count=len(result.solutions))
    return t_plain("learn.l8.tables_at_least", count=result.at_least)


def records_frame(records: pd.DataFrame) -> pd.DataFrame:
    """A table of the block's records, by age, with worded headings and values."""
    ordered = records.sort_values(list(COLUMNS), kind="stable").reset_index(drop=True)
    shown = {t_plain("learn.l8.col_age"): ordered["age"].astype(int)}
    for column in COLUMNS[1:]:
        words = {code: t_plain(f"learn.l8.{column}.{code}") for code in SCHEMA.domain(column)}
        shown[t_plain(f"learn.l8.col_{column}")] = ordered[column].map(words)
    return pd.DataFrame(shown)


def _sorted_records(frame: pd.DataFrame) -> list[tuple]:
    return sorted(frame[list(COLUMNS)].itertuples(index=False, name=None))


def _published_frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            t_plain("learn.l8.col_statistic"): [item.id for item in PUBLISHED],
            t_plain("learn.l8.col_group"): [_group(item) for item in PUBLISHED],
            t_plain("learn.l8.col_count"): [_number(item.count) for item in PUBLISHED],
            t_plain("learn.l8.col_median"): [_number(item.median) for item in PUBLISHED],
            t_plain("learn.l8.col_mean"): [_number(item.mean) for item in PUBLISHED],
        }
    )


# --------------------------------------------------------------------------- the lesson


def lesson_reconstruction() -> None:
    st.header(t("learn.l8.title"))
    st.markdown(t("learn.l8.intro"))
    # 1. the published table
    st.subheader(t("learn.l8.block_title"))
    st.markdown(t("learn.l8.block_text", people=len(BLOCK), threshold=THRESHOLD))
    st.dataframe(_published_frame(), hide_index=True)
    # 2. how many tables there could be
    _combinations()
    # 3. the attack, stage by stage
    final = _stages()
    # 4. the rebuilt table beside the true one
    _rebuilt(final)
    # 5. the same tables with noise
    _noise(final)
    _exercise()


def _combinations() -> None:
    """The age combinations of the men (2B) and of everyone (1A), before and after their
    median and mean."""
    st.subheader(t("learn.l8.combos_title"))
    counted = {
        line_id: age_combinations(line(line_id).count, line(line_id).median, line(line_id).mean)
        for line_id in ("2B", "1A")
    }
    men = line("2B")
    st.markdown(
        t(
            "learn.l8.combos_text",
            oldest=OLDEST,
            people=men.count,
            median=_number(men.median),
            mean=_number(men.mean),
            every=fmt(counted["2B"][0]),
            fitting=fmt(counted["2B"][1]),
        )
    )
    st.dataframe(
        pd.DataFrame(
            {
                t_plain("learn.l8.col_statistic"): list(counted),
                t_plain("learn.l8.col_group"): [_group(line(i)) for i in counted],
                t_plain("learn.l8.col_people"): [line(i).count for i in counted],
                t_plain("learn.l8.col_combinations", oldest=OLDEST): [
                    every for every, _ in counted.values()
                ],
                t_plain("learn.l8.col_fitting"): [fitting for _, fitting in counted.values()],
            }
        ),
        hide_index=True,
    )
    st.caption(t("learn.l8.combos_article"))


def _stages() -> rc.Reconstruction:
    """Each stage solved and shown as one row; returns the last stage's result."""
    st.subheader(t("learn.l8.stages_title"))
    st.markdown(
        t(
            "learn.l8.stages_text",
            threshold=THRESHOLD,
            cap=MAX_SOLUTIONS,
            more=MAX_SOLUTIONS + 1,
        )
    )
    results = []
    with st.spinner(t("learn.l8.solving")):
        for number in range(1, len(STAGES) + 1):
            results.append(solve_stage(number))
    frame = pd.DataFrame(
        {
            t_plain("learn.l8.col_stage"): range(1, len(STAGES) + 1),
            t_plain("learn.l8.col_added"): [
                t_plain(f"learn.l8.stage{n}") for n in range(1, len(STAGES) + 1)
            ],
            t_plain("learn.l8.col_tables"): [tables_text(r) for r in results],
            t_plain("learn.l8.col_certain"): [
                0 if r.certain is None else len(r.certain) for r in results
            ],
        }
    )
    st.dataframe(frame, hide_index=True)
    before = results[-2]
    if before.complete and before.certain is not None and len(before.solutions) > 1:
        certain = set(_sorted_records(before.certain))
        ages = sorted(
            {int(r[0]) for s in before.solutions for r in _sorted_records(s) if r not in certain}
        )
        st.markdown(
            t(
                "learn.l8.open_records",
                stage=len(STAGES) - 1,
                tables=len(before.solutions),
                ages=", ".join(map(str, ages)),
                last=len(STAGES),
            )
        )
    return results[-1]


def _rebuilt(final: rc.Reconstruction) -> None:
    """The rebuilt table beside the true one, and the records certain."""
    st.subheader(t("learn.l8.rebuilt_title"))
    left, right = st.columns(2)
    left.markdown(t("learn.l8.rebuilt_label"))
    left.dataframe(records_frame(final.table), hide_index=True)
    right.markdown(t("learn.l8.true_label"))
    right.dataframe(records_frame(BLOCK), hide_index=True)
    certain = 0 if final.certain is None else len(final.certain)
    cols = st.columns(3)
    cols[0].metric(t("learn.l8.tables_metric"), tables_text(final))
    cols[1].metric(
        t("learn.l8.certain_metric"), t("learn.l8.out_of", part=certain, whole=len(BLOCK))
    )
    exact = final.accuracy.exact if final.accuracy is not None else 0
    cols[2].metric(t("learn.l8.exact_metric"), t("learn.l8.out_of", part=exact, whole=len(BLOCK)))
    if final.unique and _sorted_records(final.table) == _sorted_records(BLOCK):
        st.warning(
            t("learn.l8.rebuilt_same", people=len(BLOCK), certain=certain),
            icon=":material/visibility:",
        )
    else:
        st.info(t("learn.l8.rebuilt_differs"), icon=":material/info:")


def _noise(final: rc.Reconstruction) -> None:
    """The counts with noise at ε, the attack on them, and what it still rebuilds."""
    st.subheader(t("learn.l8.noise_title"))
    st.markdown(t("learn.l8.noise_text", tables=len(TABLES)))
    left, right = st.columns([3, 1], vertical_alignment="bottom")
    epsilon = float(left.slider("ε", 0.5, 8.0, 4.0, 0.5, key=keep("learn_l8_eps")))
    seed = int(right.number_input(t("learn.l8.seed"), 0, 999, 0, step=1, key=keep("learn_l8_seed")))
    with st.spinner(t("learn.l8.solving")):
        noisy, result = solve_noisy(epsilon, seed)
    truth = true_counts()
    st.dataframe(
        pd.DataFrame(
            {
                t_plain("learn.l8.col_statistic"): [item.id for item in PUBLISHED],
                t_plain("learn.l8.col_group"): [_group(item) for item in PUBLISHED],
                t_plain("learn.l8.col_published"): [_number(item.count) for item in PUBLISHED],
                t_plain("learn.l8.col_noisy"): noisy,
            }
        ),
        hide_index=True,
    )
    exact = result.accuracy.exact if result.accuracy is not None else 0
    cols = st.columns(4)
    cols[0].metric(t("learn.l8.exact_metric"), t("learn.l8.out_of", part=exact, whole=len(BLOCK)))
    cols[1].metric(
        t("learn.l8.records_metric"), fmt(0 if result.table is None else len(result.table))
    )
    cols[2].metric(t("learn.l8.tables_metric"), tables_text(result))
    cols[3].metric(
        t("learn.l8.error_metric"),
        fmt(float(np.mean(np.abs(noisy - truth))), 1),
        help=t("learn.l8.error_help"),
    )
    if result.table is not None:
        with st.expander(t("learn.l8.noisy_table")):
            st.dataframe(records_frame(result.table), hide_index=True)
    before = final.accuracy.exact if final.accuracy is not None else 0
    st.markdown(
        t(
            "learn.l8.noise_result",
            epsilon=fmt(epsilon, 1),
            before=before,
            exact=exact,
            people=len(BLOCK),
            records=0 if result.table is None else len(result.table),
        )
    )
    st.info(t("learn.l8.noise_why"), icon=":material/info:")


def _exercise() -> None:
    """The oldest man's age from line 2B and the youngest man's age."""
    item = line(L8_EXERCISE_GROUP)
    youngest = int(BLOCK.loc[BLOCK["sex"] == "M", "age"].min())
    total = round(item.count * item.mean)
    truth = total - int(item.median) - youngest
    numbers = {
        "count": item.count,
        "median": _number(item.median),
        "mean": _number(item.mean),
        "youngest": youngest,
    }

    def check(answer: float) -> tuple[bool, str]:
        if is_close(answer, truth):
            return True, t("learn.l8.right", total=total, value=truth, **numbers)
        if is_close(answer, total):
            return False, t("learn.l8.wrong_sum", answer=fmt(float(answer), 0))
        return False, t("learn.l8.wrong", answer=fmt(float(answer), 0))

    exercise(
        "learn_l8",
        t("learn.l8.question", **numbers),
        lambda: answer_input(
            "learn_l8_answer", t("learn.l8.answer_label"), min_value=0, max_value=500, step=1
        ),
        check,
    )
