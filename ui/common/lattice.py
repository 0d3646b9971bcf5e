"""The lattice a full-domain search walked, as a chart, its caption and the table of its
minimal satisfying nodes (the Anonymize page's Lattice tab, and lesson 2 of the Learn
page): one dot per node, one row per height, coloured by how the search met it; the
nodes' words are worked out once per release and language."""

from __future__ import annotations

import math
import threading
import weakref

import altair as alt
import numpy as np
import pandas as pd

from privcore.anonymize import Release
from ui.common.charts import ACCENT, FAIL, MUTED, PASS, WARN
from ui.common.i18n import current_language, t, t_plain

_STATUS_COLOURS = {
    "satisfied": PASS,
    "not satisfied": FAIL,
    "tagged satisfied": "#8fd19e",
    "tagged not satisfied": "#f3a6ac",
    "not visited": MUTED,
}
#: The shape of each status: met (circle), not met (cross), not visited (square).
_STATUS_SHAPES = {
    "satisfied": "circle",
    "not satisfied": "cross",
    "tagged satisfied": "circle",
    "tagged not satisfied": "cross",
    "not visited": "square",
}


#: By default the lattice chart shows the heights within this many levels of the chosen
#: node; a lattice of at most :data:`LATTICE_WHOLE_NODES` nodes is shown whole.
LATTICE_ZOOM_HEIGHTS = 2


LATTICE_WHOLE_NODES = 200


def lattice_zoomed(release: Release) -> bool:
    """Whether the lattice chart of ``release`` shows, by default, only the heights near
    the chosen node: the lattice is larger than :data:`LATTICE_WHOLE_NODES` nodes and
    a node was chosen."""
    trace = release.lattice
    return trace is not None and trace.chosen is not None and len(trace.nodes) > LATTICE_WHOLE_NODES


def _level_words(release: Release, column: str, height: int) -> dict[int, str]:
    """What each level of ``column`` means, from the hierarchy the run used: "level 2 of
    4: 10 groups, e.g. 0-9, 10-19, 20-29, …" (only the level numbers without it)."""
    hierarchy = release.schema.hierarchies.get(column) if release.schema else None
    if hierarchy is not None:
        height = hierarchy.height
    words = {}
    for level in range(height + 1):
        if hierarchy is None:
            meaning = ""
        else:
            labels = [str(label) for label in hierarchy.labels(level)]
            if level == 0:
                meaning = t_plain("layout.level_original", count=len(labels))
            elif len(labels) == 1:
                meaning = t_plain("layout.level_one", label=labels[0])
            else:
                examples = ", ".join(labels[:3]) + (", …" if len(labels) > 3 else "")
                meaning = t_plain("layout.level_groups", count=len(labels), examples=examples)
        words[level] = t_plain(
            "layout.level_of" if meaning else "layout.level_plain",
            level=level,
            height=height,
            meaning=meaning,
        )
    return words


def _status_words(status: str) -> str:
    """How the search met a node ("satisfied", "tagged not satisfied", …), in words."""
    return t_plain("layout.status." + status.replace(" ", "_"))


_NODES: weakref.WeakKeyDictionary[Release, dict[str, pd.DataFrame]] = weakref.WeakKeyDictionary()


_NODES_LOCK = threading.Lock()


def lattice_nodes(release: Release) -> pd.DataFrame:
    """:func:`worded_nodes` of ``release``, worked out once per release and language
    while the release lives (the chart, its caption and its table read them on every
    run of the page); a copy."""
    lang = current_language()
    try:
        with _NODES_LOCK:
            known = _NODES.setdefault(release, {}).get(lang)
    except TypeError:  # not weakly referable (a stand-in for a release)
        return worded_nodes(release)
    if known is None:
        known = worded_nodes(release)
        with _NODES_LOCK:
            _NODES.setdefault(release, {})[lang] = known
    return known.copy()


def worded_nodes(release: Release) -> pd.DataFrame:
    """The nodes of the release's lattice, worded for the chart: ``name`` ("sex 0 · age 4
    · …", levels in QI order), ``level_<i>`` (what the level of the i-th QI means),
    ``status_label`` (how the search met the node, in words), ``chosen``, ``minimal``
    and ``mark`` (the text shown next to the node: "chosen", or the number of a minimal
    node).

    A node is *minimal* when it satisfies the constraints (checked or tagged) and no node
    one level lower in one QI does: each of those is in the trace and fails. A lattice
    traced only at its evaluated nodes (above 5,000 nodes) marks no node whose lower
    neighbours were not all evaluated. Minimal nodes are numbered by height, then by
    loss, then in lattice order.
    """
    trace = release.lattice
    nodes = trace.nodes.copy()
    qi = list(trace.qi)
    levels = nodes[qi].to_numpy(dtype=np.int64)
    heights = [int(levels[:, q].max(initial=0)) for q in range(len(qi))]
    if release.schema is not None:
        heights = [
            release.schema.hierarchies[c].height if c in release.schema.hierarchies else h
            for c, h in zip(qi, heights, strict=True)
        ]
    radix = np.array(
        [math.prod(h + 1 for h in heights[q + 1 :]) for q in range(len(qi))], dtype=np.int64
    )
    index = levels @ radix
    satisfies = nodes["status"].isin(["satisfied", "tagged satisfied"]).to_numpy()
    lower_known = np.ones(len(nodes), dtype=bool)
    lower_satisfies = np.zeros(len(nodes), dtype=bool)
    for q in range(len(qi)):
        has_lower = levels[:, q] > 0
        lower = index - radix[q]
        lower_known &= ~has_lower | np.isin(lower, index)
        lower_satisfies |= has_lower & np.isin(lower, index[satisfies])
    nodes["minimal"] = satisfies & lower_known & ~lower_satisfies

    name = pd.Series("", index=nodes.index, dtype=object)
    for q, column in enumerate(qi):
        before, after = t_plain("layout.node_part", qi=column, level="\x00").split("\x00")
        part = before + nodes[column].astype(str) + after
        name = part if q == 0 else name + " · " + part
        nodes[f"level_{q}"] = nodes[column].map(_level_words(release, column, heights[q]))
    nodes["name"] = name
    chosen = tuple(trace.chosen) if trace.chosen is not None else None
    nodes["chosen"] = (levels == np.array(chosen)).all(axis=1) if chosen is not None else False
    nodes["status_label"] = nodes["status"].map(
        {status: _status_words(status) for status in _STATUS_COLOURS}
    )
    ranked = nodes[nodes["minimal"]].sort_values(["height", "loss"], kind="stable")
    nodes["number"] = 0
    nodes.loc[ranked.index, "number"] = np.arange(1, len(ranked) + 1)
    nodes["mark"] = np.where(nodes["number"] > 0, nodes["number"].astype(str), "")
    if nodes["chosen"].any():
        number = int(nodes.loc[nodes["chosen"], "number"].iloc[0])
        nodes.loc[nodes["chosen"], "mark"] = (
            t_plain("layout.chosen_mark", number=number) if number else t_plain("layout.chosen")
        )
    return nodes


def _lines(text: str, width: int = 56) -> list[str]:
    """``text`` cut at its " · " separators into lines of about ``width`` characters."""
    lines: list[str] = []
    for part in text.split(" · "):
        if lines and len(lines[-1]) + 3 + len(part) <= width:
            lines[-1] += " · " + part
        else:
            lines.append(part)
    return lines


def _spread(nodes: pd.DataFrame) -> pd.Series:
    """The x position (0 to 1) of every node in its height's row: the labelled nodes
    (chosen, minimal) evenly apart so that their labels do not overlap, the others
    evenly apart in lattice order."""
    labelled = nodes["mark"] != ""
    x = pd.Series(0.5, index=nodes.index)
    for subset in (nodes[labelled], nodes[~labelled]):
        rank = subset.groupby("height").cumcount()
        count = subset.groupby("height")["height"].transform("size")
        x.loc[subset.index] = (rank + 0.5) / count
    return x


def _placed(nodes: pd.DataFrame) -> pd.DataFrame:
    """The nodes with their place across their row (``x``, :func:`_spread`) and whether
    their label goes above them (``above``: labels alternate along a row)."""
    nodes = nodes.assign(x=_spread(nodes))
    labelled = nodes["mark"] != ""
    nodes["above"] = False
    nodes.loc[labelled, "above"] = (
        nodes[labelled].sort_values("x").groupby("height").cumcount() % 2 == 0
    )
    return nodes


def _tooltip(qi: list[str]) -> list[alt.Tooltip]:
    """A node's tooltip: its name, every QI's level in words, its height, how the search
    met it, and its figures."""
    return [
        alt.Tooltip("name:N", title=t_plain("layout.tip_node")),
        *(alt.Tooltip(f"level_{q}:N", title=column) for q, column in enumerate(qi)),
        alt.Tooltip("height:Q", title=t_plain("an.height")),
        alt.Tooltip("status_label:N", title=t_plain("layout.tip_status")),
        alt.Tooltip("order:Q", title=t_plain("layout.tip_order")),
        alt.Tooltip("suppressed:Q", title=t_plain("layout.tip_rows")),
        alt.Tooltip("loss:Q", title=t_plain("layout.tip_loss"), format=".4f"),
    ]


def lattice_chart(release: Release, *, whole: bool = False) -> alt.LayerChart:
    """The lattice the full-domain search walked: one dot per node, one row per height
    (the sum of the QI levels), coloured by how the search met it. The chosen node is
    ringed and labelled (its levels by name in the subtitle), the minimal satisfying
    nodes ringed and numbered (:func:`lattice_nodes`); the tooltip names every QI's
    level and the node's figures. Across a row the position carries no meaning: the
    labelled nodes are spread apart, the others follow in lattice order.

    Unless ``whole``, a lattice larger than :data:`LATTICE_WHOLE_NODES` nodes is zoomed
    to the heights within :data:`LATTICE_ZOOM_HEIGHTS` of the chosen node."""
    nodes = lattice_nodes(release)
    qi = list(release.lattice.qi)
    top = int(nodes["height"].max())
    low, high = 0, top
    if not whole and lattice_zoomed(release):
        centre = int(nodes.loc[nodes["chosen"], "height"].iloc[0])
        low = max(0, centre - LATTICE_ZOOM_HEIGHTS)
        high = min(top, centre + LATTICE_ZOOM_HEIGHTS)
        nodes = nodes[nodes["height"].between(low, high)]
    nodes = _placed(nodes)
    widest = int(nodes.groupby("height").size().max()) if len(nodes) else 1
    dot = float(np.clip(60 * 40 / widest, 14, 60))
    columns = [
        "name",
        "height",
        "status_label",
        "order",
        "suppressed",
        "loss",
        "chosen",
        "minimal",
        "mark",
        "above",
        "x",
        *(f"level_{q}" for q in range(len(qi))),
    ]
    nodes = nodes[columns]
    chosen = nodes[nodes["chosen"]]
    subtitle = (
        _lines(t_plain("layout.chosen_node", name=chosen["name"].iloc[0]))
        if len(chosen)
        else [t_plain("layout.no_chosen")]
    )
    if low > 0 or high < top:
        subtitle.append(t_plain("layout.zoomed", low=low, high=high, top=top))
    tooltip = _tooltip(qi)
    rows = high - low + 1
    plot = int(np.clip(64 * rows, 200, 560))
    base = alt.Chart(
        nodes,
        title=alt.TitleParams(t_plain("an.lattice_title"), subtitle=subtitle, subtitleFontSize=12),
    ).encode(
        x=alt.X("x:Q", axis=None, scale=alt.Scale(domain=[-0.02, 1.02], nice=False)),
        y=alt.Y(
            "height:Q",
            title=t_plain("an.height"),
            scale=alt.Scale(domain=[low - 0.6, high + 0.6], nice=False, zero=False),
            axis=alt.Axis(values=list(range(low, high + 1)), format="d", grid=False),
        ),
    )
    statuses = list(_STATUS_COLOURS)
    domain = [_status_words(s) for s in statuses]
    legend = alt.Legend(orient="bottom", direction="vertical", labelLimit=0, titleLimit=0)
    # the status by shape as well as by colour: a reader who cannot tell red from green
    # still tells a circle from a cross (WCAG 2.1, 1.4.1)
    points = base.mark_point(size=dot, opacity=0.8, filled=True).encode(
        color=alt.Color(
            "status_label:N",
            title=t_plain("layout.legend_status"),
            scale=alt.Scale(domain=domain, range=[_STATUS_COLOURS[s] for s in statuses]),
            legend=legend,
        ),
        shape=alt.Shape(
            "status_label:N",
            title=t_plain("layout.legend_status"),
            scale=alt.Scale(domain=domain, range=[_STATUS_SHAPES[s] for s in statuses]),
            legend=legend,
        ),
        tooltip=tooltip,
    )
    minimal = base.transform_filter("datum.minimal").mark_point(
        size=160, color=PASS, strokeWidth=2, filled=False
    )
    ring = base.transform_filter("datum.chosen").mark_point(
        size=420, color=ACCENT, strokeWidth=3, filled=False
    )
    label = {"fontSize": 12, "fontWeight": "bold", "color": WARN}
    above = base.transform_filter("datum.mark != '' && datum.above").mark_text(dy=-16, **label)
    below = base.transform_filter("datum.mark != '' && !datum.above").mark_text(dy=17, **label)
    marks = [layer.encode(text="mark:N", tooltip=tooltip) for layer in (above, below)]
    # the height holds the title, the plot and the legend (Streamlit fits the whole)
    return alt.layer(points, minimal, ring, *marks).properties(
        height=plot + 18 * len(subtitle) + 125
    )


def lattice_minimal_table(release: Release) -> pd.DataFrame:
    """The minimal satisfying nodes by their numbers on the chart: the level of every
    QI, the height and how the search met the node."""
    nodes = lattice_nodes(release)
    minimal = nodes[nodes["minimal"]].sort_values("number")
    qi = list(release.lattice.qi)
    table = minimal[["number", *qi, "height", "status_label"]].rename(
        columns={
            "number": t_plain("layout.col_number"),
            "height": t_plain("an.height"),
            "status_label": t_plain("layout.tip_status"),
        }
    )
    table.insert(
        1,
        t_plain("layout.col_chosen"),
        np.where(minimal["chosen"], t_plain("layout.chosen"), ""),
    )
    return table.reset_index(drop=True)


def lattice_caption(release: Release, *, whole: bool = False) -> str:
    """The words under the lattice chart (Markdown): how many nodes the search checked,
    what the marks mean, and how many minimal satisfying nodes there are."""
    nodes = lattice_nodes(release)
    checked = (
        "layout.lattice_tagged" if release.algorithm == "optimal" else "layout.lattice_checked"
    )
    parts = [
        t(
            checked,
            evaluated=release.params.get("evaluated_nodes"),
            size=release.params.get("lattice_size"),
        ),
        t("layout.lattice_marks", count=int(nodes["minimal"].sum())),
    ]
    if lattice_zoomed(release) and not whole:
        parts.append(t("layout.zoom_hint"))
    return " ".join(parts)
