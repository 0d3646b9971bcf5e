"""The one Altair theme of the app, and verdict colours shared by every page.

Altair (with jsonschema and its Vega-Lite schema classes) takes about a third of a second
to import: :func:`enable` imports it when a page that may draw a chart is about to run,
so a page without charts (Home, the first page a visitor sees) does not wait for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

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


def enable() -> None:
    """Register the app's theme with Altair (once per process) and make it the active
    one. Call before a page draws a chart: Altair applies the active theme when a chart
    is turned into its Vega-Lite spec."""
    import altair as alt

    if THEME_NAME not in alt.theme.names():
        alt.theme.register(THEME_NAME, enable=False)(_theme)
    alt.theme.enable(THEME_NAME)
