"""Risk against utility of releases made on one table, and a perturbative release's utility.

The Anonymize page's comparison places every algorithm — generalizations and
perturbations alike — on the same two axes, with figures defined for both:

- **utility loss**, x: the share of quasi-identifier cells the release changed,
  (1/(n·q)) Σ_j Σ_i [x'_ij ≠ x_ij] over the n records and q quasi-identifiers, cells
  compared as text (39 = 39.0; missing equals missing; a generalized, suppressed, noised,
  swapped or recoded cell is a changed one) — the categorical distortion of
  :func:`privcore.measure.utility.perturbation_utility` averaged over the QIs;
- **risk**, y: the share of records re-identified when the attacker holds every
  record's true quasi-identifiers (record i is person i), by the stronger of two
  linkage attacks: the exact join (:func:`privcore.attacks.linkage.linkage_attack`,
  Sweeney 2002: the people whose values match exactly one released record, and that
  record is theirs) and distance-based record linkage
  (:func:`privcore.attacks.distance_linkage.distance_linkage`: the nearest released
  record is theirs and no other is as near), which a perturbed release cannot defeat by
  changing every value.

A release that does not meet the constraints is drawn apart (a hollow grey mark,
"constraints not met") and is never a candidate; labels of points that lie close are
moved apart so that none hides another.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import altair as alt
import numpy as np
import pandas as pd

from privcore.anonymize import Release
from privcore.attacks.distance_linkage import distance_linkage
from privcore.attacks.linkage import linkage_attack
from privcore.data.hierarchy import Hierarchy
from privcore.data.roles import is_measurement
from privcore.measure.utility import perturbation_utility
from ui.common.charts import ACCENT
from ui.common.i18n import t_plain

__all__ = [
    "POINT_COLUMNS",
    "correlation_summary",
    "label_offsets",
    "qi_cells_changed",
    "regression_table",
    "reidentified_share",
    "risk_utility_chart",
    "risk_utility_point",
    "utility_table",
]

#: the columns of a comparison row the chart reads
POINT_COLUMNS = ("algorithm", "changed", "reidentified", "satisfied")
#: how close (on the 0–1 axes) two points are for their labels to be moved apart
_NEAR = 0.06
#: how far (pixels) each further label of a crowd of near points is moved down
_LABEL_STEP = 13


def label_offsets(points: pd.DataFrame) -> list[int]:
    """A vertical offset (pixels) per point's label: 0 for the first of a crowd of
    points within :data:`_NEAR` of each other on both axes, one :data:`_LABEL_STEP`
    more for each earlier point of the crowd, so that no label is drawn over another."""
    x = points["changed"].to_numpy(dtype=float)
    y = points["reidentified"].to_numpy(dtype=float)
    near = (np.abs(x[:, None] - x[None, :]) < _NEAR) & (np.abs(y[:, None] - y[None, :]) < _NEAR)
    earlier = np.tril(near, k=-1).sum(axis=1)
    return [int(e) * _LABEL_STEP for e in earlier]


def qi_cells_changed(original: pd.DataFrame, released: pd.DataFrame, qi: Sequence[str]) -> float:
    """Share of the quasi-identifier cells of ``released`` that differ from ``original``
    (rows paired by position): the mean over the QIs of each one's share of changed cells
    (module docstring); 0 for no QI or no row."""
    qi = list(qi)
    if not qi or not len(original):
        return 0.0
    shares = perturbation_utility(original, released, [], categorical_columns=qi)["categorical"]
    return float(np.mean([shares[q]["changed_share"] for q in qi]))


def reidentified_share(
    original: pd.DataFrame,
    released: pd.DataFrame,
    qi: Sequence[str],
    sa: Sequence[str],
    hierarchies: Mapping[str, Hierarchy] | None = None,
) -> float:
    """Re-identified people / people of the linkage attack whose voter roll is
    ``original``'s quasi-identifiers, person i being record i (module docstring)."""
    qi = list(qi)
    if not len(original):
        return 0.0
    roll = original[qi].copy()
    roll["record"] = np.arange(len(original))
    summary = linkage_attack(
        released, roll, qi, list(sa), truth=original, hierarchies=hierarchies
    ).summary
    exact = float(summary["reidentified"]) / max(int(summary["targets"]), 1)
    hierarchies = hierarchies or {}
    numeric = [q for q in qi if is_measurement(original[q], q, hierarchies.get(q))]
    by_distance = distance_linkage(
        released, original[qi], np.arange(len(original)), qi, numeric, original=original
    )["share"]
    return max(exact, float(by_distance))


def risk_utility_point(
    original: pd.DataFrame, release: Release, hierarchies: Mapping[str, Hierarchy] | None = None
) -> dict[str, float]:
    """(``changed``, ``reidentified``) of ``release`` against ``original``."""
    return {
        "changed": qi_cells_changed(original, release.frame, release.qi),
        "reidentified": reidentified_share(
            original, release.frame, release.qi, release.sa, hierarchies
        ),
    }


def risk_utility_chart(points: pd.DataFrame) -> alt.LayerChart:
    """One labelled point per algorithm: x the share of QI cells changed, y the share
    re-identified by the linkage attack (``points``: :data:`POINT_COLUMNS`), both 0–100 %."""
    x_title = t_plain("an.ru.x")
    y_title = t_plain("an.ru.y")
    name = t_plain("an.cmp.algorithm")
    met_words, failed_words = t_plain("an.ru.met"), t_plain("an.ru.not_met")
    satisfied = (
        points["satisfied"].fillna(False).astype(bool)
        if "satisfied" in points
        else pd.Series(True, index=points.index)
    )
    data = pd.DataFrame(
        {
            "algorithm": points["algorithm"].astype(str),
            "changed": points["changed"].astype(float),
            "reidentified": points["reidentified"].astype(float),
            "status": np.where(satisfied.to_numpy(), met_words, failed_words),
            "dy": [-7 + offset for offset in label_offsets(points)],
        }
    )
    scale = alt.Scale(domain=[0, 1])
    base = alt.Chart(data).encode(
        x=alt.X("changed:Q", title=x_title, scale=scale, axis=alt.Axis(format="%")),
        y=alt.Y("reidentified:Q", title=y_title, scale=scale, axis=alt.Axis(format="%")),
        tooltip=[
            alt.Tooltip("algorithm:N", title=name),
            alt.Tooltip("changed:Q", title=x_title, format=".1%"),
            alt.Tooltip("reidentified:Q", title=y_title, format=".1%"),
        ],
    )
    status = alt.Color(
        "status:N",
        title=t_plain("an.ru.status"),
        scale=alt.Scale(domain=[met_words, failed_words], range=[ACCENT, "#767676"]),
    )
    shape = alt.Shape(
        "status:N",
        title=t_plain("an.ru.status"),
        scale=alt.Scale(domain=[met_words, failed_words], range=["circle", "cross"]),
    )
    points_layer = base.mark_point(size=90, filled=True).encode(color=status, shape=shape)
    labels_layer = base.mark_text(align="left", dx=7).encode(
        text="algorithm:N", yOffset=alt.YOffset("dy:Q", scale=None)
    )
    return alt.layer(points_layer, labels_layer).properties(height=360)


def utility_table(utility: Mapping[str, Any], qi: Sequence[str]) -> pd.DataFrame:
    """One row per quasi-identifier of a perturbative release's utility
    (:func:`~privcore.measure.utility.perturbation_utility`): its mean absolute and
    relative change (numeric columns; None for a categorical one) and its share of
    changed cells, column titles in the current language."""
    numeric = utility.get("numeric") or {}
    categorical = utility.get("categorical") or {}
    rows = []
    for column in qi:
        if column in numeric:
            figures = numeric[column]
            rows.append(
                (
                    column,
                    figures.get("mean_absolute_change"),
                    figures.get("mean_relative_change"),
                    figures.get("changed_share"),
                )
            )
        elif column in categorical:
            rows.append((column, None, None, categorical[column].get("changed_share")))
    return pd.DataFrame(
        rows,
        columns=[
            t_plain("an.ut.column"),
            t_plain("an.ut.mean_absolute"),
            t_plain("an.ut.mean_relative"),
            t_plain("an.ut.changed_share"),
        ],
    )


def correlation_summary(utility: Mapping[str, Any]) -> tuple[float | None, float | None] | None:
    """(largest, mean) absolute change of the numeric columns' pairwise correlations;
    None when the release has no correlation figures (fewer than two numeric columns)."""
    correlation = utility.get("correlation")
    if not correlation:
        return None
    return correlation.get("max_abs_difference"), correlation.get("mean_abs_difference")


def regression_table(utility: Mapping[str, Any]) -> pd.DataFrame | None:
    """One row per coefficient of the regression fitted before and after: its estimate
    in each and the overlap of their 95 % intervals; None without a regression."""
    regression = utility.get("regression")
    if not regression:
        return None
    overlap = regression.get("interval_overlap") or {}
    before = regression["original"]["coefficients"]
    after = regression["released"]["coefficients"]
    return pd.DataFrame(
        {
            t_plain("an.ut.coefficient"): list(overlap),
            t_plain("an.ut.original"): [before.get(name) for name in overlap],
            t_plain("an.ut.released"): [after.get(name) for name in overlap],
            t_plain("an.ut.overlap"): list(overlap.values()),
        }
    )
