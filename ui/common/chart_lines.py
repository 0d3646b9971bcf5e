"""Reference lines the pages draw under their charts' points."""

from __future__ import annotations

import altair as alt
import pandas as pd

from ui.common.charts import MUTED


def identity_line(top: float) -> alt.Chart:
    """The dashed line y = x from 0 to ``top``: a point on it has the value it is compared
    with (a measured ε equal to the claimed one, a DP error equal to the k-anonymous
    release's); layer the points over it."""
    return (
        alt.Chart(pd.DataFrame({"x": [0.0, top], "y": [0.0, top]}))
        .mark_line(color=MUTED, strokeDash=[4, 4])
        .encode(x="x:Q", y="y:Q")
    )
