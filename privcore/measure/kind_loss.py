"""Information loss of releases that are not generalizations: perturbed and synthetic.

GCP, NCP, precision and WHD (:mod:`privcore.measure.loss`) read how coarse a released
cell is against the original value it covers. A perturbed release (microaggregation,
noise, swapping, PRAM, coding) covers nothing — its cells are other values — and a
synthetic one has no own record per row, so each kind of release gets the loss that
fits it (:data:`privcore.core.kinds.CONSUMERS`):

**Perturbed** (rows paired: row i of the release is record i of the original), for the
quasi-identifiers ``columns`` of which ``numeric`` are measurements:

- ``il1s`` (Yancey, Winkler & Creecy 2002; sdcMicro ``dUtility(..., type = "IL1")``),
  over the numeric columns:

      IL1s = 1/(p·n) · Σ_j Σ_i |x_ij − x'_ij| / (√2 · S_j)

  with S_j the standard deviation (n − 1) of original column j; a pair in which either
  cell is no number (``*``, a range) is left out of the sums and counted in
  ``not_compared``; a column with S_j = 0 is left out (it has no scale);
- ``distortion``, the **headline**, over every quasi-identifier (no changed column is
  left out): the mean over all cells of d_ij, with d_ij = min(1, |x_ij − x'_ij| /
  (√2·S_j)) for a numeric pair (IL1s's term, capped at 1 so that the columns share one
  scale), 1 for a numeric cell that is no number in the release (blanked or coded),
  and 1[x_ij ≠ x'_ij] for a categorical cell (the 0/1 distance of categorical IL1,
  Domingo-Ferrer & Torra 2001; values compared as values: 42 = "42.0");
- per numeric column: mean absolute deviation (1/m)·Σ|x − x'|, mean relative deviation
  (1/m')·Σ_{x≠0}|x − x'|/|x|, and the variance distortion |Var(x') − Var(x)| / Var(x)
  (Domingo-Ferrer & Torra 2001; None when Var(x) = 0);
- per categorical column the share of changed cells, and for all the categorical
  quasi-identifiers together the distortion of their joint distribution, the total
  variation distance TVD = ½·Σ_v |p(v) − p'(v)| over the value combinations v;
- the correlations kept: mean and largest |R'_jl − R_jl| over the pairs of numeric
  columns (:func:`privcore.measure.utility.perturbation_utility`).

**Synthetic** (no pairing): the distance of each column's marginal distribution, for a
numeric column the Kolmogorov–Smirnov distance sup_x |F(x) − F'(x)| of the empirical
distribution functions, for a categorical column the TVD of the value frequencies; the
**headline** ``marginal_distance`` is their mean over the columns (0: the same
marginals, 1: disjoint). Both distances lie in [0, 1].
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from privcore.classes import code_counts, combine_codes, factorize
from privcore.core.jsonsafe import plain
from privcore.core.kinds import ReleaseKind
from privcore.data.cells import comparable_keys, require_paired_rows
from privcore.measure.utility import numeric_cells, perturbation_utility

__all__ = ["distortion", "kind_loss", "marginal_distance", "total_variation"]


def total_variation(original: pd.DataFrame, release: pd.DataFrame) -> float:
    """TVD = ½·Σ_v |p(v) − p'(v)| between the distributions of the rows (value
    combinations of all the columns, compared as values) of two tables."""
    if original.shape[1] == 0:
        return 0.0
    n, m = len(original), len(release)
    if n == 0 or m == 0:
        return 0.0 if n == m else 1.0
    both = pd.concat(
        [original.apply(comparable_keys), release.apply(comparable_keys)], ignore_index=True
    )
    codes = [factorize(both[c])[0] for c in both.columns]
    key = factorize(combine_codes(codes, [int(c.max()) + 1 for c in codes]))[0]
    size = int(key.max()) + 1
    p = code_counts(key[:n], size) / n
    q = code_counts(key[n:], size) / m
    return float(0.5 * np.abs(p - q).sum())


def _ks(a: np.ndarray, b: np.ndarray) -> float:
    """sup_x |F_a(x) − F_b(x)| of the two empirical distribution functions."""
    a, b = np.sort(a), np.sort(b)
    grid = np.concatenate([a, b])
    fa = np.searchsorted(a, grid, side="right") / len(a)
    fb = np.searchsorted(b, grid, side="right") / len(b)
    return float(np.abs(fa - fb).max())


def marginal_distance(
    original: pd.DataFrame, release: pd.DataFrame, columns: Sequence[str], numeric: Sequence[str]
) -> dict[str, Any]:
    """Per column the distance of its marginal distribution (KS for a numeric column,
    TVD for a categorical one) and their mean (module docstring); no pairing."""
    per: dict[str, dict[str, Any]] = {}
    for column in columns:
        if column in numeric:
            a, b = numeric_cells(original[column]), numeric_cells(release[column])
            a, b = a[np.isfinite(a)], b[np.isfinite(b)]
            if len(a) and len(b):
                per[column] = {"distance": _ks(a, b), "measure": "ks"}
                continue
            if len(a) != len(b) or len(a):  # one side has no number at all
                per[column] = {"distance": 1.0, "measure": "ks"}
                continue
        per[column] = {
            "distance": total_variation(original[[column]], release[[column]]),
            "measure": "tvd",
        }
    values = [v["distance"] for v in per.values()]
    return plain(
        {
            "marginal_distance": float(np.mean(values)) if values else 0.0,
            "columns": per,
        }
    )


def distortion(
    original: pd.DataFrame, release: pd.DataFrame, columns: Sequence[str], numeric: Sequence[str]
) -> dict[str, Any]:
    """IL1s, the headline ``distortion`` over every column, deviations and variance
    distortion per numeric column, changed shares and the joint TVD of the categorical
    columns (module docstring); rows paired by position."""
    require_paired_rows(original, release, "distortion")
    n = len(original)
    columns = list(columns)
    numeric = [c for c in columns if c in numeric]
    categorical = [c for c in columns if c not in numeric]
    cell_sum = 0.0
    il1_terms, il1_columns, not_compared = 0.0, [], 0
    per_numeric: dict[str, dict[str, Any]] = {}
    for column in numeric:
        x, y = numeric_cells(original[column]), numeric_cells(release[column])
        x_ok, y_ok = np.isfinite(x), np.isfinite(y)
        both = x_ok & y_ok
        xs = x[x_ok]
        spread = float(np.std(xs, ddof=1)) if len(xs) > 1 else 0.0
        change = np.abs(y[both] - x[both])
        blanked = int((x_ok & ~y_ok).sum())
        not_compared += int((~both).sum())
        if spread > 0 and np.isfinite(spread):
            scaled = change / (np.sqrt(2.0) * spread)
            il1_terms += float(scaled.sum()) / n
            il1_columns.append(column)
            cell_sum += float(np.minimum(scaled, 1.0).sum())
        else:  # no scale: a changed cell is a whole unit of change
            cell_sum += float((change > 0).sum())
        cell_sum += blanked
        var_x = float(np.var(xs, ddof=1)) if len(xs) > 1 else 0.0
        ys = y[y_ok]
        var_y = float(np.var(ys, ddof=1)) if len(ys) > 1 else 0.0
        nonzero = x[both] != 0
        per_numeric[column] = {
            "mean_absolute_deviation": float(change.mean()) if len(change) else None,
            "mean_relative_deviation": float((change[nonzero] / np.abs(x[both][nonzero])).mean())
            if nonzero.any()
            else None,
            "variance_distortion": abs(var_y - var_x) / var_x if var_x > 0 else None,
            "changed_share": float(((both & (x != y)) | (x_ok & ~y_ok)).sum() / max(n, 1)),
        }
    per_categorical: dict[str, dict[str, Any]] = {}
    for column in categorical:
        a = comparable_keys(original[column]).to_numpy(dtype=object, na_value=None)
        b = comparable_keys(release[column]).to_numpy(dtype=object, na_value=None)
        changed = a != b
        cell_sum += float(changed.sum())
        per_categorical[column] = {"changed_share": float(changed.mean()) if n else 0.0}
    cells = n * len(columns)
    correlation = None
    if len(numeric) >= 2:
        kept = perturbation_utility(original, release, numeric)["correlation"]
        if kept is not None:
            correlation = {
                "mean_abs_difference": kept["mean_abs_difference"],
                "max_abs_difference": kept["max_abs_difference"],
            }
    return plain(
        {
            "distortion": cell_sum / cells if cells else 0.0,
            "il1s": il1_terms / len(il1_columns) if il1_columns else None,
            "il1s_columns": il1_columns,
            "not_compared": not_compared,
            "numeric": per_numeric,
            "categorical": per_categorical,
            "joint_tvd": total_variation(original[categorical], release[categorical])
            if categorical
            else None,
            "correlation": correlation,
        }
    )


def kind_loss(
    kind: ReleaseKind | str,
    original: pd.DataFrame,
    release: pd.DataFrame,
    columns: Sequence[str],
    numeric: Sequence[str],
) -> dict[str, Any]:
    """The loss that fits a release of ``kind`` (None for a generalized release, whose
    loss is GCP and the other generalization metrics): ``headline`` names the figure
    that sums it up, over every column of ``columns``."""
    kind = ReleaseKind(kind)
    if kind is ReleaseKind.GENERALIZED:
        return {}
    if kind is ReleaseKind.PERTURBED:
        return {
            "headline": "distortion",
            **distortion(original, release, columns, numeric),
            "marginals": marginal_distance(original, release, columns, numeric),
        }
    return {
        "headline": "marginal_distance",
        **marginal_distance(original, release, columns, numeric),
    }
