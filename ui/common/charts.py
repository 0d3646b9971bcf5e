"""The one Altair theme of the app, and verdict colours shared by every page."""

from __future__ import annotations

import altair as alt

PASS = "#1a7f37"
FAIL = "#cf222e"
WARN = "#b45309"
ACCENT = "#0969da"
MUTED = "#8c959f"


@alt.theme.register("privacy_workbench", enable=True)
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
    """Make sure the theme is active (importing this module registers and enables it)."""
    alt.theme.enable("privacy_workbench")
