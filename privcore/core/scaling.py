"""Arithmetic on numbers of any finite size, up to ±1.8·10³⁰⁸.

A column may hold ``1e308`` and ``-1e308``: their difference, their sum and their
squares are beyond the largest float (``inf``), and a range, a mean, a variance or a
distance computed from them becomes ``inf`` or ``NaN``. :func:`unit_of` gives the power
of two that brings such values down to at most 1 in absolute value (1 for ordinary
values, which are left exactly as they are): multiplied by it, differences, sums of up
to 2¹⁰⁰⁰ values and products of two stay finite, and since the factor is a power of two
no digit is lost (short of subnormal numbers, which are below any precision that such
a column's figures could show anyway).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["LARGE", "column_units", "scaled_span", "unit_of"]

#: Values up to this size (in absolute value) are computed on as they are.
LARGE = 2.0**500


def unit_of(values: Any) -> float:
    """1.0, or the power of two ``2⁻ᵉ`` with ``max |finite value| ≤ 2ᵉ`` when that
    largest value exceeds :data:`LARGE` (non-finite values are ignored)."""
    array = np.asarray(values, dtype=np.float64).ravel()
    finite = array[np.isfinite(array)]
    if not finite.size:
        return 1.0
    largest = float(np.abs(finite).max())
    if largest <= LARGE:
        return 1.0
    return 2.0 ** -math.frexp(largest)[1]


def scaled_span(values: Any) -> tuple[np.ndarray, float]:
    """``(values × unit, span)``: the values in the unit of :func:`unit_of` (infinite
    ones stay infinite) and the range of their finite ones in that unit (0.0 when there
    are none), which is finite whatever the values."""
    array = np.asarray(values, dtype=np.float64)
    scaled = array * unit_of(array)
    finite = scaled[np.isfinite(scaled)]
    return scaled, float(finite.max() - finite.min()) if finite.size else 0.0


def column_units(x: np.ndarray) -> np.ndarray:
    """:func:`unit_of` of each column of the matrix ``x`` (n × d): ``x * column_units(x)``
    has finite column means, variances and covariances, and dividing a result by the
    same units gives it back in the data's terms."""
    x = np.asarray(x, dtype=np.float64)
    return np.array([unit_of(x[:, j]) for j in range(x.shape[1])], dtype=np.float64)
