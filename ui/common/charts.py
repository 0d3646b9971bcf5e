"""The one Altair theme of the app, and verdict colours shared by every page.

Altair (with jsonschema and its Vega-Lite schema classes) takes about a third of a second
to import: :func:`enable` imports it when a page that may draw a chart is about to run,
so a page without charts (Home, the first page a visitor sees) does not wait for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import altair as alt

PASS = "#1a7f37"
FAIL = "#cf222e"
WARN = "#b45309"
ACCENT = "#0969da"
MUTED = "#8c959f"

THEME_NAME = "privacy_workbench"


def _theme() -> alt.theme.ThemeConfig:
    return {
        "config": {
            "font": "sans-serif",
            "axis": {"labelFontSize": 12, "titleFontSize": 12, "grid": True, "gridOpacity": 0.4},
            "legend": {"labelFontSize": 12, "titleFontSize": 12},
            "title": {"fontSize": 14, "anchor": "start"},
            "range": {"category": [ACCENT, "#bf3989", "#1a7f37", "#b45309", "#8250df", MUTED]},
            "bar": {"color": ACCENT},
            "view": {"stroke": None},
        }
    }


def titled_axes(x: str, x_words: str, y: str, y_words: str) -> dict[str, Any]:
    """The ``x`` and ``y`` encodings of a chart (Altair shorthands such as ``"k:O"``),
    titled with the catalogue's words ``x_words`` and ``y_words`` in the page's language:
    ``chart.encode(**titled_axes(...), color=...)``."""
    import altair as alt

    from ui.common.i18n import t

    return {"x": alt.X(x, title=t(x_words)), "y": alt.Y(y, title=t(y_words))}


def enable() -> None:
    """Register the app's theme with Altair (once per process) and make it the active
    one. Call before a page draws a chart: Altair applies the active theme when a chart
    is turned into its Vega-Lite spec."""
    import altair as alt

    if THEME_NAME not in alt.theme.names():
        alt.theme.register(THEME_NAME, enable=False)(_theme)
    alt.theme.enable(THEME_NAME)


# --------------------------------------------------------------------------- text alternatives

#: The encoding channels a chart's text alternative reads, in the order it names them.
_CHANNELS = ("x", "x2", "y", "y2", "color", "column", "row", "size", "theta", "xOffset")


def _layers(spec: dict) -> list[dict]:
    """Every single view of a Vega-Lite spec (layers, concatenations, facets, repeats)."""
    views = [spec] if "encoding" in spec else []
    for key in ("layer", "hconcat", "vconcat", "concat"):
        for part in spec.get(key) or []:
            views += _layers(part)
    if isinstance(spec.get("spec"), dict):
        views += _layers(spec["spec"])
    return views


def _fields(spec: dict) -> dict[str, str]:
    """Field → title of every encoded field that has a title (the words on the chart)."""
    out: dict[str, str] = {}
    for view in _layers(spec):
        for channel in _CHANNELS:
            encoding = (view.get("encoding") or {}).get(channel)
            if not isinstance(encoding, dict) or not encoding.get("field"):
                continue
            title = encoding.get("title")
            if isinstance(title, list):
                title = " ".join(map(str, title))
            if title:
                out.setdefault(str(encoding["field"]), str(title))
    return out


def _title(spec: dict) -> str:
    for view in [spec, *_layers(spec)]:
        title = view.get("title")
        if isinstance(title, dict):
            title = title.get("text")
        if title:
            return " ".join(map(str, title)) if isinstance(title, list) else str(title)
    return ""


def chart_data(chart: alt.TopLevelMixin) -> tuple[str, object]:
    """A chart's title and the data behind it as a table whose columns are the chart's
    own words (each encoded field under its axis or legend title; fields without a title
    are left out, as the chart shows them only as marks)."""
    import pandas as pd

    spec = chart.to_dict()
    fields = _fields(spec)
    frames = []
    for view in [chart, *getattr(chart, "layer", [])]:
        data = getattr(view, "data", None)
        if isinstance(data, pd.DataFrame):
            kept = [c for c in data.columns if str(c) in fields]
            if kept:
                frames.append(data[kept].rename(columns=lambda c: fields[str(c)]))
    table = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    return _title(spec), table.loc[:, ~table.columns.duplicated()]


def chart_summary(title: str, table: object, say: object) -> str:
    """The caption that describes a chart in words: its title, how many values it draws
    and, for each numeric column, the range it spans (``say``: the page's ``t_plain``)."""
    import pandas as pd

    parts = []
    for column in table.columns:
        values = pd.to_numeric(table[column], errors="coerce").dropna()
        if len(values) and pd.api.types.is_numeric_dtype(table[column]):
            parts.append(
                say(
                    "chart.range",
                    column=column,
                    low=f"{values.min():,.4g}",
                    high=f"{values.max():,.4g}",
                )
            )
    ranges = "; ".join(parts)
    title = title or say("chart.untitled")
    return say("chart.summary", title=title, rows=len(table), ranges=ranges)


def show_chart(chart: alt.TopLevelMixin, key: str, where: object = None) -> None:
    """Draw ``chart`` with its text alternative (WCAG 2.1, 1.1.1): a caption that says
    what it shows, generated from its data, and the data itself as a table behind a
    toggle (``key``: the toggle's, unique on the page). ``where``: the container (the
    page by default)."""
    place = _place(where)
    place.altair_chart(chart, width="stretch")
    title, table = chart_data(chart)
    _text_alternative(place, title, table, key)


def show_spec(spec: dict, title: str, table: object, key: str, where: object = None) -> None:
    """:func:`show_chart` for a chart already written as its Vega-Lite ``spec`` (kept
    by a page that draws it again on every rerun), with the ``title`` and data ``table``
    :func:`chart_data` read from the chart when it was built."""
    place = _place(where)
    place.vega_lite_chart(spec=spec, width="stretch")
    _text_alternative(place, title, table, key)


def _place(where: object) -> object:
    import streamlit as st

    return st if where is None else where


def _text_alternative(place: object, title: str, table: object, key: str) -> None:
    """A chart's caption from its data, and its data behind a toggle ``key``."""
    from ui.common.i18n import escape_md, t_plain

    place.caption(escape_md(chart_summary(title, table, t_plain)))  # data words: text
    if len(table.columns) and place.toggle(t_plain("chart.show_data"), key=key):
        place.dataframe(table, hide_index=True)
