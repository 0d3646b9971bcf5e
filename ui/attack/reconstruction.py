"""The Reconstruction tab of the Attack simulator page: the database-reconstruction
attack (Garfinkel, Abowd & Martindale 2019) on the original's own counts.

The tables an agency would publish of the original — suggested from the roles, or
chosen — and, when the release under review is generalized, the release's cells: an
integer program rebuilds the records from them. The tab shows how many tables fit, the
share rebuilt, the records certain to be right, the rebuilt records beside the true
ones, the people re-identified by name through a voter roll the attack builds itself
(no roll from the page is needed), and with ε values the share rebuilt from the same
tables published with noise. Data values reach the page only through tables and
charts; every text goes through :func:`ui.common.i18n.t`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import altair as alt
import numpy as np
import pandas as pd
import streamlit as st

from privcore.attacks.reconstruction.published import MAX_RECORD_TYPES, Attack, domains
from privcore.attacks.reconstruction.release_cells import Suggestion, suggest_tables
from privcore.data import Dataset, Schema
from privcore.errors import PrivcoreError
from privcore.runs import Outcome
from ui.attack import runs
from ui.common.charts import ACCENT, FAIL, show_chart
from ui.common.heavy import heavy_button
from ui.common.i18n import error_text, escape_md, labels, t, t_plain
from ui.common.reproduce import reproduce_in_python
from ui.common.state import ShelfRelease, keep
from ui.common.workspace import guard_run, latest_result

#: The page's result of this tab, kept per release (:func:`latest_result`).
PAGE_KEY = "attack_reconstruction"
#: Where the tables published come from: suggested from the roles, or chosen.
MODES = ("suggest", "chosen")
#: The optional number fields (:func:`optional_number`): their words are built from
#: these names (``at.rec_<name>``, ``at.rec_<name>_help``).
OPTIONAL_NUMBERS = ("suppress", "round", "tolerance")
#: The laws of the noise of the curve (discrete Laplace: ε-DP; Gaussian: (ε, δ)-DP).
NOISE_LAWS = ("discrete_laplace", "gaussian")
#: The ε values offered for the curve of the noisy tables.
EPSILONS = (0.1, 0.5, 1.0, 2.0, 4.0)
#: The most records (and people) shown in a table.
SHOWN = 1_000
#: Records certain to be right are shaded in the rebuilt table (a styled table costs a
#: little on every rerun; the "certain" column says the same above this).
MAX_SHADED = 1_000
_SHADE = "background-color: rgba(207, 34, 46, 0.14)"


@dataclass(frozen=True)
class Choice:
    """What the controls ask for: the request's ``values``, whether the release's cells
    are published too, the tables as the result's header names them and whether a run
    can start."""

    values: dict[str, Any]
    release_cells: bool
    tables: str
    ready: bool

    @property
    def params(self) -> dict[str, Any]:
        """The parameters the result is computed for (its header and "out of date")."""
        v = self.values
        return {
            "publish": self.tables,
            "release_cells": self.release_cells,
            "block": v["block"],
            "suppress_below": v["suppress_below"],
            "epsilons": list(v["noise_epsilons"] or ()),
            "seeds": v["seeds"] if v["noise_epsilons"] else None,  # draws of the noise only
            "time_limit": v["time_limit"],
            "round_to": v["round_to"],
            "noise_law": v["noise_law"] if v["noise_epsilons"] else None,
            "within": v["within"],
        }


def tab(entry: ShelfRelease, original: Dataset, schema: Schema, *, scope: str) -> None:
    """The Reconstruction tab: its controls, the heavy run, and the result kept for
    ``entry`` (``scope``: the data set the controls' choices belong to)."""
    st.caption(t("at.rec_help"))
    choice = controls(entry, original, schema, scope=scope)
    outcome = None
    clicked = heavy_button(
        t("at.rec_run"),
        key="at_rec_run",
        cancel_key="at_rec_cancel",
        row=True,
        disabled=not choice.ready,
    )
    if clicked:
        outcome = guard_run(
            lambda: runs.reconstruction(
                entry, original, schema, choice.values, release_cells=choice.release_cells
            )
        )
    stored = latest_result(PAGE_KEY, entry, choice.params, outcome)
    if stored is not None:
        show(stored["value"])
        reproduce_in_python(stored["value"], key="at_reconstruction")


# --------------------------------------------------------------------------- controls


def controls(entry: ShelfRelease, original: Dataset, schema: Schema, *, scope: str) -> Choice:
    """The tables published (suggested or chosen), the release's cells, the block, the
    suppression, the ε values of the curve, the seeds and the time limit."""
    frame = original.frame
    columns = [str(c) for c in frame.columns]
    left, right = st.columns(2, gap="large")
    with right:
        block = st.selectbox(
            t("at.rec_block"),
            [None, *columns],
            format_func=labels(
                [None, *columns], lambda c: t_plain("at.rec_no_block") if c is None else c
            ),
            help=t("at.rec_block_help"),
            key=keep("at_rec_block", scope=scope, valid=lambda v: v is None or v in columns),
        )
        release_cells = release_checkbox(entry)
    with left:
        mode = st.radio(
            t("at.rec_tables"),
            MODES,
            format_func=labels(MODES, lambda m: t(f"at.rec_tables_{m}")),
            help=t("at.rec_tables_help", limit=f"{MAX_RECORD_TYPES:,}"),
            horizontal=True,
            key=keep("at_rec_tables"),
        )
        qi = [q for q in schema.quasi_identifiers if q != block]
        sa = [s for s in schema.sensitive if s != block]
        suggestion = suggested(frame, qi, sa, shown=mode == "suggest")
        if mode == "suggest":
            publish, tables = "suggest", "" if suggestion is None else suggestion.publish
        else:
            publish = tables = chosen_tables(columns, suggestion, qi, scope=scope)
    c1, c2, c3, c4 = st.columns(4)
    suppress = optional_number(c1, "suppress", 1, 1)
    epsilons = c2.multiselect(
        t("at.rec_epsilons"),
        list(EPSILONS),
        format_func=lambda e: f"{e:g}",
        help=t("at.rec_epsilons_help"),
        key=keep("at_rec_eps", valid=lambda v: set(v) <= set(EPSILONS)),
    )
    seeds = c3.number_input(
        t("at.rec_seeds"), 1, 10, 3, 1, help=t("at.rec_seeds_help"), key=keep("at_rec_seeds")
    )
    time_limit = c4.number_input(
        t("at.rec_time_limit"),
        min_value=1.0,
        max_value=3600.0,
        value=60.0,
        step=10.0,
        format="%g",
        help=t("at.rec_time_limit_help"),
        key=keep("at_rec_time"),
    )
    round_to, law, within = defences()
    values = {
        "publish": publish,
        "qi": tuple(qi),
        "sa": tuple(sa),
        "block": block,
        "suppress_below": None if suppress is None else int(suppress),
        "noise_epsilons": tuple(sorted(epsilons)) or None,
        "seeds": int(seeds),
        "time_limit": float(time_limit),
        "round_to": round_to,
        "noise_law": law,
        "within": within,
    }
    ready = mode == "chosen" or suggestion is not None
    return Choice(values, release_cells, tables, ready)


def defences() -> tuple:
    """The rounding of the cells, the law of the noise of the curve and the tolerance
    of every numeric column published (None: the attack's default, age ± 1)."""
    c1, c2, c3, _ = st.columns(4)
    round_to = optional_number(c1, "round", 2, 1)
    law = c2.selectbox(
        t("at.rec_noise_law"),
        NOISE_LAWS,
        format_func=labels(NOISE_LAWS, lambda law: t_plain(f"dp.noise_{law}")),
        help=t("at.rec_noise_law_help"),
        key=keep("at_rec_law", valid=lambda v: v in NOISE_LAWS),
    )
    width = optional_number(c3, "tolerance", 0.0, 1.0, format="%g")
    within = None if width is None else f"{float(width):g}"
    return None if round_to is None else int(round_to), law, within


def optional_number(where: Any, name: str, minimum: float, step: float, **more: Any) -> Any:
    """The number typed in the optional field ``name`` (one of :data:`OPTIONAL_NUMBERS`;
    its words ``at.rec_<name>`` and ``at.rec_<name>_help``, its kept key
    ``at_rec_<name>``), at least ``minimum``; None while empty. ``where``: the column it
    goes in; ``more``: the widget's other options (its ``format``)."""
    return where.number_input(
        t(f"at.rec_{name}"),
        min_value=minimum,
        value=None,
        step=step,
        help=t(f"at.rec_{name}_help"),
        key=keep(f"at_rec_{name}"),
        **more,
    )


def suggested(
    frame: pd.DataFrame, qi: Sequence[str], sa: Sequence[str], *, shown: bool
) -> Suggestion | None:
    """The tables suggested from the roles (None: none can be), with ``shown`` the
    tables and the columns left out with their reasons, or why none is suggested."""
    try:
        suggestion = suggest_tables(frame, qi, sa)
    except PrivcoreError as exc:
        if shown:
            st.warning(escape_md(error_text(exc)), icon=":material/warning:")
        return None
    if shown:
        st.caption(t("at.rec_suggested", tables=tables_text(suggestion.tables)))
        for column in suggestion.left_out:
            st.caption(
                t_plain(
                    "at.rec_left_out",
                    column=escape_md(column),
                    reason=left_out_reason(frame, column),
                )
            )
    return suggestion


def left_out_reason(frame: pd.DataFrame, column: str) -> str:
    """Why a column is left out of the suggested tables, in the page's language (escaped
    for Markdown): its missing values or its domain, or too many values alone or with
    the columns already published."""
    try:
        size = len(domains(frame, [column])[column])
    except PrivcoreError as exc:
        return escape_md(error_text(exc))
    return t("at.rec_left_out_size", values=f"{size:,}", limit=f"{MAX_RECORD_TYPES:,}")


def chosen_tables(
    columns: Sequence[str], suggestion: Suggestion | None, qi: Sequence[str], *, scope: str
) -> str:
    """The tables typed in the ``sex,age;race,age`` form (the suggestion, or the first
    two quasi-identifiers, to start from)."""
    start = suggestion.publish if suggestion is not None else ",".join(qi[:2])
    key = keep("at_rec_publish", scope=scope)
    if key not in st.session_state:
        st.session_state[key] = start
    return st.text_input(
        t("at.rec_chosen"),
        help=t("at.rec_chosen_help", columns=", ".join(columns)),
        key=key,
    ).strip()


def release_checkbox(entry: ShelfRelease) -> bool:
    """ "The release's cells are published too": on by default for a release made here
    by a generalization; a release read from a file is read as generalized (off by
    default: nothing declares it so); off and disabled for any other kind declared (by
    its method, or by the page that shelved it: DP synthetic records), with why."""
    kind = entry.release_kind
    if kind is not None and kind != "generalized":
        st.checkbox(t("at.rec_release"), value=False, disabled=True, key="at_rec_release_off")
        st.caption(
            t("at.rec_release_not_generalized", name=entry.name, kind=t_plain(f"kind.{kind}"))
        )
        return False
    key = f"at_rec_release::{entry.id}"  # one choice per release: its default is its own
    checked = st.checkbox(
        t("at.rec_release"),
        value=kind == "generalized",
        help=t("at.rec_release_help"),
        key=key,
    )
    if kind is None:
        st.caption(t("at.rec_release_file", name=entry.name))
    return bool(checked)


def tables_text(tables: Sequence[Sequence[str]]) -> str:
    """``(("ZIP", "Age"), ("Age", "Disease"))`` → ``ZIP × Age; Age × Disease``."""
    return "; ".join(" × ".join(map(str, table)) for table in tables)


# --------------------------------------------------------------------------- the result


def show(outcome: Outcome) -> None:
    """The result of a run: its figures, the rebuilt records beside the true ones, the
    people re-identified and the curve of the noisy tables."""
    attack: Attack = outcome.result
    summary = outcome.summary
    block = outcome.request.block
    headline(attack, summary)
    notes(summary)
    if summary["blocks"] > 1:
        with st.expander(t("at.rec_by_block", blocks=f"{summary['blocks']:,}")):
            st.dataframe(blocks_table(attack).head(SHOWN), hide_index=True)
            if summary["blocks"] > SHOWN:
                st.caption(
                    t("at.rec_blocks_shown", shown=f"{SHOWN:,}", total=f"{summary['blocks']:,}")
                )
    st.header(t("at.rec_records"))
    records(attack, block)
    st.header(t("at.rec_people"))
    people(attack)
    if summary.get("curve"):
        show_chart(curve_chart(summary), key="at_rec_chart_data")
        st.caption(t("at.rec_curve_caption", seeds=outcome.request.seeds))


def solutions_words(result: Any) -> str:
    """How many tables fit one block's counts, in words."""
    if not result.solutions:
        return t_plain("at.rec_none_found")
    if result.unique:
        return t_plain("at.rec_unique")
    if result.complete:
        return t_plain("at.rec_exactly", n=f"{len(result.solutions):,}")
    return t_plain("at.rec_at_least", n=f"{result.at_least:,}")


def share_text(value: Any) -> str:
    return "—" if value is None else f"{float(value):.1%}"


def tolerance_text(tolerance: Mapping[str, float]) -> str:
    """``{"Age": 1.0}`` → ``Age ± 1``; none: exact."""
    if not tolerance:
        return t_plain("at.rec_no_tolerance")
    return ", ".join(f"{c} ± {w:g}" for c, w in tolerance.items())


def headline(attack: Attack, summary: Mapping[str, Any]) -> None:
    """Metric cards: the tables that fit, the shares rebuilt, the certain records and
    the people re-identified by name."""
    cols = st.columns(5)
    if summary["blocks"] == 1:
        solutions = solutions_words(next(iter(attack.results.values())))
    else:
        solutions = t_plain(
            "at.rec_unique_blocks",
            unique=f"{summary['unique_blocks']:,}",
            blocks=f"{summary['blocks']:,}",
        )
    cols[0].metric(t("at.rec_solutions"), solutions, help=t("at.rec_solutions_help"))
    cols[1].metric(
        t("at.rec_exact"), share_text(summary["exact_share"]), help=t("at.rec_exact_help")
    )
    cols[2].metric(
        t("at.rec_within", tolerance=tolerance_text(summary["tolerance"])),
        share_text(summary["within_tolerance_share"]),
        help=t("at.rec_within_help"),
    )
    cols[3].metric(t("at.rec_certain"), f"{summary['certain']:,}", help=t("at.rec_certain_help"))
    reidentified = summary.get("reidentified")
    cols[4].metric(
        t("at.rec_reidentified"),
        "—" if reidentified is None else f"{reidentified:,}",
        help=t("at.rec_reidentified_help"),
    )
    if reidentified is None:
        st.info(t("at.rec_not_linked"), icon=":material/link_off:")
    else:
        st.caption(
            t(
                "at.rec_linked",
                roll=f"{summary['roll_size']:,}",
                columns=", ".join(summary["link_on"]),
                putative=f"{summary['putative']:,}",
                reidentified=f"{reidentified:,}",
                share=share_text(summary["reidentified_share"]),
            )
        )


def notes(summary: Mapping[str, Any]) -> None:
    """What was published, and what the time limit cut short."""
    st.caption(
        t(
            "at.rec_published",
            people=f"{summary['people']:,}",
            blocks=f"{summary['blocks']:,}",
            types=f"{summary['record_types']:,}",
            tables=tables_text(summary.get("tables") or []),
        )
    )
    if summary["release_cells"]:
        st.caption(t("at.rec_release_cells", cells=f"{summary['release_cells']:,}"))
    if summary["timed_out_blocks"]:
        st.warning(
            t("at.rec_timed_out", blocks=f"{summary['timed_out_blocks']:,}"),
            icon=":material/timer:",
        )
    if summary["certain_unverified_blocks"]:
        st.caption(t("at.rec_unverified", blocks=f"{summary['certain_unverified_blocks']:,}"))


def blocks_table(attack: Attack) -> pd.DataFrame:
    """One row per block: its name, the tables that fit, its records and the share
    rebuilt exactly (headed in words)."""
    rows = []
    for name, result in attack.results.items():
        accuracy = result.accuracy
        rows.append(
            {
                t_plain("at.rec_col_block"): name,
                t_plain("at.rec_col_solutions"): solutions_words(result),
                t_plain("at.rec_col_records"): len(attack.truth[name]),
                t_plain("at.rec_col_exact"): None if accuracy is None else accuracy.exact_share,
            }
        )
    return pd.DataFrame(rows)


def certain_flags(table: pd.DataFrame, certain: pd.DataFrame | None) -> np.ndarray:
    """Per rebuilt record, is it one of the records in every fitting table (each certain
    record marks one rebuilt record: they count with multiplicity)? None (not verified):
    none is marked."""
    if certain is None or not len(table) or not len(certain):
        return np.zeros(len(table), dtype=bool)
    columns = list(table.columns)
    held = certain.groupby(columns, dropna=False, sort=False).size().rename("_held")
    held = held.reset_index()
    rank = table.groupby(columns, dropna=False, sort=False).cumcount().to_numpy()
    merged = table.reset_index(drop=True).merge(held, on=columns, how="left")
    return rank < merged["_held"].fillna(0).to_numpy()


def rebuilt_frame(attack: Attack, block: str | None) -> pd.DataFrame:
    """The rebuilt records of every block (with the block column when there is one) and
    whether each is certain, under a header in words."""
    flags = [
        np.zeros(0, dtype=bool) if r.table is None else certain_flags(r.table, r.certain)
        for r in attack.results.values()
    ]  # in the order of :meth:`Attack.records`, a block not rebuilt in time holding none
    out = attack.records(block).reset_index(drop=True)
    out[t_plain("at.rec_col_certain")] = np.concatenate(flags) if flags else False
    return out


def truth_frame(attack: Attack, block: str | None) -> pd.DataFrame:
    """The true records of every block, sorted within it like the rebuilt ones (with
    the block column when there is one)."""
    frames = []
    for name, frame in attack.truth.items():
        columns = list(frame.columns)
        # values of several types in a column: left in the table's order
        with contextlib.suppress(TypeError):
            frame = frame.sort_values(columns, kind="stable")
        if block is not None:
            frame = frame.assign(**{block: name})[[block, *columns]]
        frames.append(frame)
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def shaded(frame: pd.DataFrame, column: str):
    """``frame`` with the rows whose boolean ``column`` is true shaded (up to
    :data:`MAX_SHADED` rows; the column says the same beyond)."""
    marked = frame[column].to_numpy(dtype=bool)
    if len(frame) > MAX_SHADED or not marked.any():
        return frame
    cells = np.full(frame.shape, "", dtype=object)
    cells[marked, :] = _SHADE
    styles = pd.DataFrame(cells, index=frame.index, columns=frame.columns)
    return frame.style.apply(lambda _: styles, axis=None)


def records(attack: Attack, block: str | None) -> None:
    """The rebuilt records beside the true ones (the first :data:`SHOWN` of each), the
    certain ones marked and shaded."""
    rebuilt, truth = rebuilt_frame(attack, block), truth_frame(attack, block)
    st.caption(t("at.rec_records_caption"))
    left, right = st.columns(2)
    left.markdown(f"**{t('at.rec_rebuilt')}**")
    left.dataframe(shaded(rebuilt.head(SHOWN), t_plain("at.rec_col_certain")), hide_index=True)
    right.markdown(f"**{t('at.rec_truth')}**")
    right.dataframe(truth.head(SHOWN), hide_index=True)
    total = max(len(rebuilt), len(truth))
    if total > SHOWN:
        st.caption(t("at.rec_shown", shown=f"{SHOWN:,}", total=f"{total:,}"))


def people(attack: Attack) -> None:
    """The people re-identified: each synthetic name beside the rebuilt record."""
    found = attack.reidentification
    if found is None:
        st.caption(t("at.rec_not_linked"))
        return
    if not len(found.named):
        st.info(t("at.rec_nobody"), icon=":material/check_circle:")
        return
    st.caption(t("at.rec_synthetic_names"))
    named = found.named.rename(columns={"name": t_plain("at.rec_col_name")})
    st.dataframe(named.head(SHOWN), hide_index=True)
    if len(named) > SHOWN:
        st.caption(t("at.rec_shown", shown=f"{SHOWN:,}", total=f"{len(named):,}"))


def curve_frame(summary: Mapping[str, Any]) -> tuple[pd.DataFrame, list[str]]:
    """The curve as rows (ε as text, measure in words, mean share and 95 % interval),
    ε = ∞ (the exact tables) last; and the order of ε on the axis."""
    measures = (
        ("exact", "exact_share", t_plain("at.rec_measure_exact")),
        ("within_tolerance", "within_tolerance_share", t_plain("at.rec_measure_within")),
    )
    rows = []
    points = sorted(summary["curve"], key=lambda p: p["epsilon"])
    for point in points:
        for key, _, label in measures:
            figure = point[key]
            rows.append(
                {
                    "epsilon": f"{point['epsilon']:g}",
                    "measure": label,
                    "share": figure["mean"],
                    "low": figure["low"],
                    "high": figure["high"],
                }
            )
    for _, exact_key, label in measures:
        value = summary.get(exact_key)
        rows.append(
            {
                "epsilon": "∞",
                "measure": label,
                "share": 0.0 if value is None else float(value),
                "low": None,
                "high": None,
            }
        )
    order = [*dict.fromkeys(f"{p['epsilon']:g}" for p in points), "∞"]
    return pd.DataFrame(rows), order


def curve_chart(summary: Mapping[str, Any]) -> alt.LayerChart:
    """The share rebuilt exactly and within tolerance against ε, with the 95 % interval
    of each mean as a bar, and ε = ∞ (the exact tables) as its own point."""
    data, order = curve_frame(summary)
    measure_names = [t_plain("at.rec_measure_exact"), t_plain("at.rec_measure_within")]
    base = alt.Chart(data, title=t_plain("at.rec_curve_title")).encode(
        x=alt.X(
            "epsilon:O", sort=order, title=t_plain("at.rec_curve_x"), axis=alt.Axis(labelAngle=0)
        ),
        color=alt.Color(
            "measure:N", title=None, scale=alt.Scale(domain=measure_names, range=[FAIL, ACCENT])
        ),
    )
    y = alt.Y(
        "share:Q",
        title=t_plain("at.rec_curve_y"),
        axis=alt.Axis(format="%"),
        scale=alt.Scale(domain=[0, 1]),
    )
    tooltip = [
        alt.Tooltip("epsilon:O", title="ε"),
        alt.Tooltip("measure:N", title=t_plain("at.rec_curve_measure")),
        alt.Tooltip("share:Q", format=".1%", title=t_plain("at.rec_curve_y")),
        alt.Tooltip("low:Q", format=".1%", title=t_plain("at.rec_curve_low")),
        alt.Tooltip("high:Q", format=".1%", title=t_plain("at.rec_curve_high")),
    ]
    line = base.transform_filter(alt.datum.epsilon != "∞").mark_line().encode(y=y)
    dots = base.mark_point(filled=True, size=70).encode(y=y, tooltip=tooltip)
    bars = (
        base.transform_filter("isValid(datum.low)")
        .mark_rule(strokeWidth=2)
        .encode(y=alt.Y("low:Q"), y2="high:Q")
    )
    return alt.layer(line, bars, dots)
