"""Every chart's text alternative: the data behind it under the chart's own words, and a
caption that says what it draws (WCAG 2.1, 1.1.1)."""

from __future__ import annotations

import altair as alt
import pandas as pd

from privcore.words.catalog import text
from ui.common.charts import chart_data, chart_summary


def _say(key: str, **params) -> str:
    return text(key, "en", **params)


def test_a_layered_chart_reads_as_a_table_of_its_titled_fields():
    data = pd.DataFrame({"epsilon": [0.1, 1.0, 5.0], "p95": [30.0, 3.0, 1.0], "kind": list("abc")})
    band = (
        alt.Chart(data, title="Error against ε")
        .mark_area()
        .encode(x=alt.X("epsilon:Q", title="ε"), y=alt.Y("p95:Q", title="95 % of the errors"))
    )
    dots = alt.Chart(data).mark_point().encode(x=alt.X("epsilon:Q", title="ε"), color="kind:N")
    title, table = chart_data(band + dots)
    assert title == "Error against ε"
    assert list(table.columns) == ["ε", "95 % of the errors"]  # untitled fields left out
    assert len(table) == 3  # one data set, shared by the layers
    caption = chart_summary(title, table, _say)
    assert caption == (
        "Chart «Error against ε»: 3 values drawn. ε from 0.1 to 5; 95 % of the errors from 1 to 30"
    )


def test_a_chart_without_a_title_or_numbers_still_says_what_it_is():
    data = pd.DataFrame({"column": ["a", "b"]})
    chart = alt.Chart(data).mark_bar().encode(x=alt.X("column:N", title="Column"))
    title, table = chart_data(chart)
    assert (title, list(table.columns)) == ("", ["Column"])
    assert chart_summary(title, table, _say) == "Chart «untitled»: 2 values drawn. "


def test_every_chart_of_the_pages_is_drawn_with_its_text_alternative():
    """Only ui/common/charts.py calls Streamlit's chart elements: every other chart goes
    through show_chart or show_spec, which add the caption and the data table."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    drawing = {
        "altair_chart", "vega_lite_chart", "line_chart", "bar_chart", "area_chart",
        "scatter_chart", "pyplot", "plotly_chart", "bokeh_chart", "graphviz_chart", "pydeck_chart",
    }  # fmt: skip
    found = []
    for path in [*(root / "ui").rglob("*.py"), *(root / "pages").rglob("*.py")]:
        if path.name == "charts.py" and path.parent.name == "common":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr in drawing:
                found.append(f"{path.relative_to(root)}:{node.lineno} {node.attr}")
    assert not found, found
