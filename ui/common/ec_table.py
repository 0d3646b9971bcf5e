"""The equivalence-class table with drill-down, and the class-size histogram.

Shared by the Privacy level and Anonymize pages, on a table in memory and on a table
opened in an engine: one row per class (size, per-SA distinct values, entropy l, top
share, t distance, violated models), violating classes highlighted, a filter, and a click
on a class shows its rows and SA distribution. A release of a frequency set (an engine's)
counts a class's size in records: its drill-down shows the rows with the records each
stands for (:func:`counted_rows`), and shares counted in records.
"""

from __future__ import annotations

from typing import Any

import altair as alt
import numpy as np
import pandas as pd
import streamlit as st

from privcore.classes import EquivalenceClasses
from privcore.words import labels as words
from ui.common.charts import ACCENT, FAIL, MUTED, show_chart
from ui.common.components import choice_radio
from ui.common.i18n import current_language, t, t_plain

MAX_SHOWN = 5000


#: Largest table whose violating rows are shaded (a styled table costs about 0.05 ms a
#: row on every rerun; above this the "violates" column and the filter say the same).
MAX_SHADED = 300


_SHADE = "background-color: rgba(207, 34, 46, 0.12)"


def shaded(frame: pd.DataFrame, column: str):
    """``frame`` with the rows whose ``column`` (the violated models) is not empty
    shaded, styles built in one vectorized step."""
    marked = frame[column].astype(str).ne("").to_numpy()
    cells = np.full(frame.shape, "", dtype=object)
    cells[marked, :] = _SHADE
    styles = pd.DataFrame(cells, index=frame.index, columns=frame.columns)
    return frame.style.apply(lambda _: styles, axis=None)


def render_class_table(
    class_table: pd.DataFrame,
    classes: EquivalenceClasses,
    release: pd.DataFrame,
    *,
    key: str,
    weights: np.ndarray | None = None,
) -> None:
    """The EC table (sortable, filterable, violations highlighted) and a class drill-down.
    With ``weights`` (``release`` is a frequency set, a class's size counted in records)
    the drill-down shows the class's rows of the frequency set with their counts
    (labelled so) and its sensitive values' shares counted in records."""
    class_id = _picked_class(class_table, key)
    if class_id is None:
        st.caption(t("ec.click_hint"))
        return
    members = np.flatnonzero(classes.ids == class_id)
    if weights is None:
        st.markdown(f"**{t('ec.class_title', id=class_id, size=len(members))}**")
        st.dataframe(release.iloc[members[:1000]], hide_index=True)
    else:
        records = int(weights[members].sum())
        title = t("lt.class_title", id=class_id, size=f"{records:,}", rows=f"{len(members):,}")
        st.markdown(f"**{title}**")
        st.dataframe(counted_rows(release, weights, members[:1000]), hide_index=True)
    for sa in classes.sensitive:
        show_chart(
            sa_distribution_chart(release[sa], members, sa, weights=weights),
            key=f"ec_{class_id}_{sa}_chart_data",
        )


def _picked_class(class_table: pd.DataFrame, key: str) -> int | None:
    """The class table with its filter and order (widgets keyed by ``key``), at most
    :data:`MAX_SHOWN` rows; returns the id of the class clicked, or None."""
    only_bad = st.toggle(t("ec.only_violating"), key=f"{key}::bad")
    order = choice_radio(
        t("ec.sort"), ["size_asc", "size_desc", "class"], "ec.sort_", key=f"{key}::order"
    )
    table = class_table
    if only_bad:
        table = table[table["violates"] != ""]
    if order != "class":
        table = table.sort_values(["size", "class"], ascending=[order == "size_asc", True])
    shown = table.head(MAX_SHOWN)
    st.caption(
        t(
            "ec.count",
            shown=f"{len(shown):,}",
            total=f"{len(table):,}",
            bad=f"{int((class_table['violates'] != '').sum()):,}",
        )
    )
    worded = words.class_table(shown, current_language())
    violates = t_plain("ec.col.violates")
    event = st.dataframe(
        shaded(worded, violates) if len(worded) <= MAX_SHADED and not only_bad else worded,
        hide_index=True,
        on_select="rerun",
        selection_mode="single-row",
        key=f"{key}::table",
        column_config={violates: st.column_config.TextColumn(t("ec.violates"))},
    )
    rows = [i for i in (event.selection.rows if event else []) if i < len(shown)]
    return int(shown.iloc[rows[0]]["class"]) if rows else None


def counted_rows(frame: pd.DataFrame, weights: np.ndarray, rows: Any = None) -> pd.DataFrame:
    """Rows of a frequency set with the records each stands for, in a last column
    headed in words."""
    picked = frame if rows is None else frame.iloc[rows]
    out = picked.reset_index(drop=True).copy()
    counts = weights if rows is None else weights[rows]
    out[t_plain("lt.count_column")] = np.asarray(counts, dtype=np.int64)
    return out


def _shares(text: pd.Series, weights: np.ndarray | None) -> pd.Series:
    """Share of the records holding each value (a row counted ``weights`` times), most
    common first."""
    if weights is None:
        return text.value_counts(normalize=True)
    sums = pd.Series(weights, dtype=float, index=text.index).groupby(text).sum()
    return (sums / sums.sum()).sort_values(ascending=False)


def sa_distribution_chart(
    values: pd.Series, members: np.ndarray, sa: str, weights: np.ndarray | None = None
) -> alt.Chart:
    """Share of each SA value in the class next to its share in the whole table (with
    ``weights``, a frequency set: shares of the records its rows stand for)."""
    text = values.astype("str").reset_index(drop=True)
    w = None if weights is None else np.asarray(weights)
    overall = _shares(text, w)
    inside = _shares(text.iloc[members], None if w is None else w[members])
    top = overall.index[:30].union(inside.index)
    data = pd.concat(
        [
            pd.DataFrame(
                {
                    "value": top,
                    "share": inside.reindex(top).fillna(0).to_numpy(),
                    "where": t("ec.in_class"),
                }
            ),
            pd.DataFrame(
                {
                    "value": top,
                    "share": overall.reindex(top).fillna(0).to_numpy(),
                    "where": t("ec.in_table"),
                }
            ),
        ]
    )
    return (
        alt.Chart(data, title=t_plain("ec.sa_chart_title", sa=sa))
        .mark_bar()
        .encode(
            x=alt.X("share:Q", title=t("ec.share_axis"), axis=alt.Axis(format="%")),
            y=alt.Y("value:N", title=sa, sort="-x"),
            yOffset="where:N",
            color=alt.Color("where:N", title=None, scale=alt.Scale(range=[ACCENT, MUTED])),
            tooltip=[
                alt.Tooltip("value:N", title=sa),
                "where:N",
                alt.Tooltip("share:Q", format=".1%", title=t("ec.share_axis")),
            ],
        )
    )


def class_size_histogram(sizes: np.ndarray, k: int | None = None) -> alt.Chart:
    """Histogram of class sizes (log-binned counts when sizes spread widely), k as a rule."""
    return size_counts_histogram(pd.Series(sizes).value_counts(), k)


def worst_classes(table: pd.DataFrame) -> None:
    """The worst classes of a release measured inside the engine (those failing a model
    first, then the smallest): a table, without drill-down (the rows stay in the file)."""
    st.caption(t("pl.worst_classes", n=f"{len(table):,}"))
    st.dataframe(table, hide_index=True, width="stretch")


def size_counts_histogram(size_counts: pd.Series, k: int | None = None) -> alt.Chart:
    """:func:`class_size_histogram` from the number of classes of each size
    (``size_counts``: index size, values classes) — classes counted by an engine."""
    counts = pd.DataFrame({"size": size_counts.index.to_numpy(), "classes": size_counts.to_numpy()})
    counts["records"] = counts["size"] * counts["classes"]
    bars = (
        alt.Chart(counts, title=t("ec.hist_title"))
        .mark_bar()
        .encode(
            x=alt.X("size:Q", title=t("ec.hist_x"), bin=alt.Bin(maxbins=40)),
            y=alt.Y("sum(classes):Q", title=t("ec.hist_y")),
            tooltip=[
                alt.Tooltip("size:Q", bin=alt.Bin(maxbins=40), title=t("ec.hist_x")),
                alt.Tooltip("sum(classes):Q", title=t("ec.hist_y")),
                alt.Tooltip("sum(records):Q", title=t("ec.hist_records")),
            ],
        )
    )
    if k:
        rule = (
            alt.Chart(pd.DataFrame({"k": [k]}))
            .mark_rule(color=FAIL, strokeDash=[4, 4])
            .encode(x="k:Q", tooltip=[alt.Tooltip("k:Q", title="k")])
        )
        return bars + rule
    return bars
