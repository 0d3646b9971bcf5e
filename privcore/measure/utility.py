"""Utility of a perturbed release: what the statistics of the data still say (SPEC §11).

A generalized release loses detail (information loss, :mod:`privcore.measure.loss`); a
perturbed one — noise, swapping, microaggregation, PRAM, coding — keeps the detail and
changes the values, so its utility is judged by the analyses it still supports (as
sdcMicro's ``dUtility`` and Karr et al. 2006 do). :func:`perturbation_utility` compares a
release with its original, row by row (row i of the release is record i of the
original, as a :class:`~privcore.anonymize.base.Release`'s ``frame`` keeps them):

**Distortion, numeric column j** (the rows where both cells are numbers, m_j of them):

- mean absolute change (1/m_j)·Σ_i |x'_ij − x_ij|;
- mean relative change (1/m'_j)·Σ_{i: x_ij ≠ 0} |x'_ij − x_ij| / |x_ij|;
- ``changed_share``: the share of all rows whose released cell is not the original
  number (a changed number, or a cell that is no number: ``*``, a range).

Released cells are read as numbers by :func:`numeric_cells`: numbers as they are, a
top/bottom-coded ``>=m`` / ``<=M`` as m / M (the value sdcMicro's coding puts there),
anything else (``*``, ranges, missing) as no number; so are infinite values (``inf``,
``-inf``) in either table, with which no change, correlation or fit is a number.
Finite numbers of any size (up to ±1e308) are compared in a unit that keeps their sums
and products finite (:func:`privcore.core.scaling.column_units`), and every figure is
given back in the data's terms (a figure beyond the largest float is ``None``).

**Distortion, categorical column**: the share of rows whose released cell differs from
the original (compared as text, 39 = 39.0; missing equals missing).

**Correlations kept**: the Pearson correlation matrices R (original) and R' (release) of
the numeric columns, over the rows where every one is a number in both tables; over the
pairs j < l: max |R'_jl − R_jl| and mean |R'_jl − R_jl| (a pair with a constant column
has no correlation and is left out).

**A regression fitted before and after** (``target`` given): ordinary least squares of
the target on the other numeric columns with an intercept, on the rows where every one
is a number in both tables (n rows, p coefficients, n > p): β = (XᵀX)⁻¹Xᵀy,
R² = 1 − RSS/TSS, standard errors √(σ̂²·diag((XᵀX)⁻¹)) with σ̂² = RSS/(n − p), and the
95 % interval β ± t_{0.975, n−p}·se (a residual sum of squares of rounding size,
RSS ≤ n·(64·ε·max(1, max|y|))², is a perfect fit: RSS = 0). Karr, Kohnen, Oganian,
Reiter & Sanil (2006) measure how much the two intervals of a coefficient agree by their overlap

    J = ½·(U − L)/(U_o − L_o) + ½·(U − L)/(U_r − L_r),  L = max(L_o, L_r), U = min(U_o, U_r)

(o: original, r: release): 1 for the same interval, 0 for intervals that just touch,
negative for disjoint ones (its magnitude says how far apart they are); a coefficient
with an interval of zero width (a perfect fit) has none.

The result is a plain dict (JSON-safe, :func:`privcore.core.jsonsafe.plain`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from privcore.core.jsonsafe import plain
from privcore.core.scaling import column_units
from privcore.data.cells import comparable_keys, numeric_cells, require_paired_rows
from privcore.errors import ParameterError, RoleError

__all__ = ["numeric_cells", "ols", "perturbation_utility"]


def ols(y: np.ndarray, x: np.ndarray, names: Sequence[str]) -> dict[str, Any]:
    """OLS of ``y`` on ``x`` (n × q) with an intercept (module docstring): coefficients,
    standard errors and 95 % intervals by name ("intercept" first), R², rows."""
    from scipy import stats

    n = len(y)
    design = np.column_stack([np.ones(n), x])
    p = design.shape[1]
    beta, *_ = np.linalg.lstsq(design, y, rcond=None)
    residual = y - design @ beta
    rss = float(residual @ residual)
    # a perfect fit leaves residuals of rounding size only: its intervals have no width
    if rss <= n * (64.0 * np.finfo(np.float64).eps * max(1.0, float(np.abs(y).max()))) ** 2:
        rss = 0.0
    tss = float(((y - y.mean()) ** 2).sum())
    sigma2 = rss / (n - p)
    covariance = sigma2 * np.linalg.pinv(design.T @ design)
    se = np.sqrt(np.clip(np.diag(covariance), 0.0, None))
    half = stats.t.ppf(0.975, n - p) * se
    labels = ["intercept", *names]
    return {
        "rows": n,
        "r2": (1.0 - rss / tss) if tss > 0 else None,
        "coefficients": dict(zip(labels, beta.tolist(), strict=True)),
        "standard_errors": dict(zip(labels, se.tolist(), strict=True)),
        "intervals": {
            name: [float(b - h), float(b + h)]
            for name, b, h in zip(labels, beta, half, strict=True)
        },
    }


def interval_overlap(original: Sequence[float], released: Sequence[float]) -> float | None:
    """Karr et al.'s overlap J of two intervals (module docstring); None when either has
    zero width."""
    lo_o, hi_o = original
    lo_r, hi_r = released
    if not (hi_o > lo_o and hi_r > lo_r):
        return None
    shared = min(hi_o, hi_r) - max(lo_o, lo_r)
    return 0.5 * shared / (hi_o - lo_o) + 0.5 * shared / (hi_r - lo_r)


def _correlations(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.atleast_2d(np.corrcoef(a, rowvar=False)), np.atleast_2d(
            np.corrcoef(b, rowvar=False)
        )


def perturbation_utility(
    original: pd.DataFrame,
    release: pd.DataFrame,
    numeric_columns: Sequence[str],
    target: str | None = None,
    *,
    categorical_columns: Sequence[str] = (),
) -> dict[str, Any]:
    """Distortion, correlations kept and a regression before vs after (module
    docstring) of ``release`` (a released table, e.g. ``Release.frame``) against
    ``original``, rows paired by position.

    ``numeric_columns``: the numeric columns compared (and the regression's variables);
    ``target``: one of them, the regression's dependent variable (None: no regression);
    ``categorical_columns``: columns compared by their share of changed cells.
    """
    numeric = list(numeric_columns)
    categorical = list(categorical_columns)
    missing = [c for c in (*numeric, *categorical) if c not in original or c not in release]
    if missing:
        raise RoleError(
            f"Both tables need the column(s) {', '.join(missing)}.",
            code="utility.unknown_columns",
            columns=missing,
        )
    require_paired_rows(original, release, "utility")
    if target is not None and target not in numeric:
        raise ParameterError(
            f"The regression's target '{target}' must be one of the numeric columns "
            f"({', '.join(numeric)}).",
            code="utility.bad_target",
            target=target,
        )
    before = np.column_stack([numeric_cells(original[c]) for c in numeric]) if numeric else None
    after = np.column_stack([numeric_cells(release[c]) for c in numeric]) if numeric else None
    units = np.ones(len(numeric))
    if numeric:
        before[~np.isfinite(before)] = np.nan  # inf, -inf: no number to compute with
        after[~np.isfinite(after)] = np.nan
        units = column_units(np.vstack([before, after]))  # ±1e308: sums that stay finite
        before, after = before * units, after * units
    out: dict[str, Any] = {"rows": len(original), "numeric": {}, "categorical": {}}
    for j, column in enumerate(numeric):
        a, b = before[:, j], after[:, j]
        both = ~np.isnan(a) & ~np.isnan(b)
        change = np.abs(b[both] - a[both])
        nonzero = a[both] != 0
        with np.errstate(over="ignore"):
            mean_change = float(change.mean() / units[j]) if both.any() else None
        out["numeric"][column] = {
            "compared": int(both.sum()),
            "mean_absolute_change": mean_change,
            "mean_relative_change": float((change[nonzero] / np.abs(a[both][nonzero])).mean())
            if nonzero.any()
            else None,
            "changed_share": float(
                ((both & (a != b)) | (~np.isnan(a) & np.isnan(b))).sum() / max(len(a), 1)
            ),
        }
    for column in categorical:
        a = comparable_keys(original[column]).to_numpy(dtype=object, na_value=None)
        b = comparable_keys(release[column]).to_numpy(dtype=object, na_value=None)
        out["categorical"][column] = {"changed_share": float((a != b).mean()) if len(a) else 0.0}
    out["correlation"] = None
    out["regression"] = None
    if len(numeric) >= 2:
        complete = ~(np.isnan(before).any(axis=1) | np.isnan(after).any(axis=1))
        if complete.sum() >= 3:
            r_before, r_after = _correlations(before[complete], after[complete])
            upper = np.triu_indices(len(numeric), 1)
            difference = np.abs(r_after[upper] - r_before[upper])
            difference = difference[~np.isnan(difference)]
            out["correlation"] = {
                "columns": numeric,
                "rows": int(complete.sum()),
                "original": r_before.tolist(),
                "released": r_after.tolist(),
                "max_abs_difference": float(difference.max()) if len(difference) else None,
                "mean_abs_difference": float(difference.mean()) if len(difference) else None,
            }
        if target is not None:
            out["regression"] = _regression(before, after, numeric, target, complete, units)
    return plain(out)


def _regression(
    before: np.ndarray,
    after: np.ndarray,
    numeric: list[str],
    target: str,
    complete: np.ndarray,
    units: np.ndarray | None = None,
) -> dict[str, Any] | None:
    """OLS of ``target`` on the other numeric columns, before and after, with each
    coefficient's interval overlap; None when the rows do not exceed the coefficients.
    ``units``: what each column was multiplied by (:func:`column_units`); the fits are
    made in those units and given back in the data's (the overlaps do not change)."""
    t = numeric.index(target)
    predictors = [c for c in numeric if c != target]
    columns = [numeric.index(c) for c in predictors]
    if complete.sum() <= len(predictors) + 1:
        return None
    fits = {
        side: ols(matrix[complete, t], matrix[complete][:, columns], predictors)
        for side, matrix in (("original", before), ("released", after))
    }
    overlap = {
        name: interval_overlap(fits["original"]["intervals"][name], interval)
        for name, interval in fits["released"]["intervals"].items()
    }
    present = [v for v in overlap.values() if v is not None]
    if units is not None:  # coefficients back in the data's units: β_j·u_j/u_target
        # the units are powers of two: scale by exponents (1/u_target may exceed the floats)
        power = np.frexp(units)[1] - 1
        shift = {
            "intercept": -power[t],
            **{c: power[numeric.index(c)] - power[t] for c in predictors},
        }

        def back(name: str, value: float) -> float:
            with np.errstate(over="ignore"):
                return float(np.ldexp(value, shift[name]))

        for fit in fits.values():
            for key in ("coefficients", "standard_errors"):
                fit[key] = {n: back(n, v) for n, v in fit[key].items()}
            fit["intervals"] = {
                n: [back(n, lo), back(n, hi)] for n, (lo, hi) in fit["intervals"].items()
            }
    return {
        "target": target,
        "predictors": predictors,
        **fits,
        "interval_overlap": overlap,
        "mean_interval_overlap": float(np.mean(present)) if present else None,
    }
