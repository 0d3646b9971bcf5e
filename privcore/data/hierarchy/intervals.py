"""Numeric intervals of doubling width (:func:`interval_hierarchy`): ``[20-30)`` →
``[20-40)`` → ... → ``*``, for any finite numbers up to the largest float."""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from privcore.data.hierarchy.builders import (
    _check_positive,
    _column_name,
    _distinct,
    _finish,
    _fmt_num,
    _fmt_nums,
    _numeric,
)
from privcore.data.hierarchy.keys import _MAX_NAMED, _quote_list
from privcore.data.hierarchy.table import Hierarchy
from privcore.errors import HierarchyError, ParameterError


def interval_hierarchy(
    values: Any, *, width: float, levels: int | None = None, origin: float | None = None
) -> Hierarchy:
    """Numeric intervals of doubling width: ``[20-30)`` → ``[20-40)`` → ... → ``*``.

    Level 1 bins have width ``width`` and start at ``origin`` (default
    ``floor(min / width) * width``); level j has width ``width * 2**(j-1)`` with the same
    origin, so bins are nested (bin index at level j+1 = floor(bin index at j / 2)).
    Levels are added until one bin holds every value (that level is kept) or ``levels``
    interval levels exist; then the top ``*``. Labels are ``[lo-hi)`` with integral
    bounds written without ``.0``. Leaves are the value keys, sorted by value.

    Any finite numbers work, up to ±1.8·10³⁰⁸: a bin whose bound lies beyond the
    largest float is written as a comparison (``>=1e+308``, ``<-1e+308``), and a level
    whose one bin would reach beyond both ends is left out (the top ``*`` says the
    same). Infinite values (``inf``, ``-inf``) stay values of their own up to the top,
    as a missing value does. A width so small that the values span more than 2⁵²
    intervals is refused (:class:`ParameterError`, ``hierarchy.width_too_small``).
    """
    w = _check_positive(width, "interval width", "hierarchy.bad_width")
    if levels is not None and (
        isinstance(levels, bool) or not isinstance(levels, numbers.Integral) or levels < 1
    ):
        raise ParameterError(
            f"The number of interval levels must be a whole number ≥ 1, got {levels!r}.",
            code="hierarchy.bad_levels",
            value=str(levels),
        )
    keys, uniques = _distinct(values)
    x_all = _numeric(keys, uniques, infinite=True)
    finite = np.isfinite(x_all)
    if not finite.any():
        raise HierarchyError(
            "This builder needs numbers, but the column holds only infinite values: "
            f"{_quote_list(keys.tolist()[:_MAX_NAMED])}.",
            code="hierarchy.not_numeric",
            count=len(keys),
            values=keys.tolist()[:_MAX_NAMED],
        )
    out = _interval_levels(x_all[finite], w, origin, levels)
    if not finite.all():  # inf, -inf: values of their own up to the top
        labels = [np.empty(len(keys), dtype=object) for _ in out]
        for full, part in zip(labels, out, strict=True):
            full[finite], full[~finite] = part, keys[~finite]
        out = labels
    order = np.lexsort((keys.astype(str), x_all))
    return _finish(keys, out, order, name=_column_name(values), kind="intervals")


def _interval_origin(x: np.ndarray, w: float, origin: Any) -> tuple[float, float]:
    """``(o, ko)``: the origin of the bins and the origin counted in widths
    (``ko = o / w``; every bound is ``(ko + m) * w`` for a whole m). Refuses an origin
    that is not a finite number (``hierarchy.bad_origin``) and a width that would put the
    values ``x`` into more than 2⁵² intervals (``hierarchy.width_too_small``)."""
    low, high = float(x.min()), float(x.max())
    if origin is None:
        start = low / w  # finite or +-inf (a tiny width), never NaN
        ko = float(math.floor(start)) if math.isfinite(start) else start
    else:
        try:
            o = float(origin)
        except (TypeError, ValueError):
            o = math.nan
        if not math.isfinite(o):
            raise ParameterError(
                f"The interval origin must be a finite number, got {origin!r}.",
                code="hierarchy.bad_origin",
                value=str(origin),
            )
        ko = o / w
    with np.errstate(over="ignore", invalid="ignore"):
        o = ko * w if origin is None else o
        reach = max(abs(high / w - ko), abs(low / w - ko))
    if not reach < 2.0**52:
        least = max(abs(high / 2.0**52 - low / 2.0**52), math.ulp(0.0))
        raise ParameterError(
            f"An interval width of {w:g} is too small for this column: its values "
            f"(from {low:g} to {high:g}) would fall into more than 2^52 intervals. "
            f"Choose a width of at least {least:.3g}.",
            code="hierarchy.width_too_small",
            width=f"{w:g}",
            low=f"{low:g}",
            high=f"{high:g}",
            least=f"{least:.3g}",
        )
    return o, ko


def _interval_levels(x: np.ndarray, w: float, origin: Any, levels: int | None) -> list[np.ndarray]:
    """The labels of the finite values ``x`` at each interval level (level 1: bins of
    width ``w``; each next level merges pairs of bins), up to one bin holding every
    value or ``levels`` levels."""
    o, ko = _interval_origin(x, w, origin)
    decimals = max(10, 6 - math.floor(math.log10(w)))
    with np.errstate(over="ignore", invalid="ignore"):
        quotient = (x - o) / w
        if not np.isfinite(quotient).all():  # x - o beyond the floats: count in widths
            quotient = x / w - ko
    # Bin index at level 1; rounding the quotient first absorbs float noise (0.3/0.1),
    # then a value below its bin's written low end (-5e-324 for [0-1e-13)) or at its
    # high end moves one bin down or up, so that every label holds its values.
    bins = np.floor(np.round(quotient, 9)).astype(np.int64)
    bins -= x < _written(_bound(o, ko, w, bins.astype(np.float64)), decimals)
    bins += x >= _written(_bound(o, ko, w, bins.astype(np.float64) + 1), decimals)
    out: list[np.ndarray] = []
    j = 1
    while True:
        ub, inv = np.unique(bins, return_inverse=True)  # not rows: values
        ubf = ub.astype(np.float64)
        step = 2.0 ** (j - 1)
        lo, hi = _bound(o, ko, w, ubf * step), _bound(o, ko, w, (ubf + 1) * step)
        lo_ok, hi_ok = np.isfinite(lo), np.isfinite(hi)
        if len(ub) == 1 and not lo_ok[0] and not hi_ok[0]:
            break  # one bin holding every float: the top "*" says as much
        names = "[" + _fmt_nums(np.where(lo_ok, lo, 0.0), decimals) + "-"
        names = names + _fmt_nums(np.where(hi_ok, hi, 0.0), decimals) + ")"
        for i in np.flatnonzero(~(lo_ok & hi_ok)).tolist():  # a bound beyond the floats
            names[i] = (
                f">={_fmt_num(lo[i], decimals)}" if lo_ok[i] else f"<{_fmt_num(hi[i], decimals)}"
            )
        out.append(names[inv])
        if len(ub) == 1 or (levels is not None and j >= levels):
            break
        halved = np.floor_divide(bins, 2)
        if np.array_equal(halved, bins):  # bins -1 and 0 (an origin amid the values)
            break
        bins = halved
        j += 1
    return out


def _bound(o: float, ko: float, w: float, m: np.ndarray) -> np.ndarray:
    """The bin bounds ``o + m * w`` (``m`` whole numbers of widths), counted in widths
    from the origin (``ko = o / w``) where ``o + m * w`` is beyond the floats; ±inf
    where the bound itself is."""
    with np.errstate(over="ignore", invalid="ignore"):
        out = o + m * w
        return np.where(np.isfinite(out), out, (ko + m) * w)


def _written(bound: np.ndarray, decimals: int) -> np.ndarray:
    """The bounds as their labels write them (:func:`_fmt_num`: noise rounded off)."""
    with np.errstate(over="ignore", invalid="ignore"):
        r = np.round(bound, decimals)
    return np.where(np.isfinite(r) & (np.abs(bound) < 1e16), r, bound)
