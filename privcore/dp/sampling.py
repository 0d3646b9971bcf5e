"""Exact sampling for the central mechanisms: the output grid and integer noise.

**Floating point.** A textbook sampler, value + Lap(b) or value + N(0, σ²) computed in
doubles, leaks through the low-order bits of its output: the set of doubles it can return
depends on the true value (Mironov 2012, "On significance of the least significant bits
for differential privacy", CCS). With a true answer 0 the outputs near 0 are arbitrary
tiny doubles; with a true answer 1 they are 1 + Y rounded, always multiples of 2⁻⁵³, so
one output can tell the two apart. The mechanisms (:mod:`privcore.dp.mechanisms`)
therefore return values on a grid that does not depend on the input: integers, or
multiples of a power of two γ (:func:`grid_step`), as OpenDP does. The true value is
rounded to the grid (:func:`on_grid`) and an integer noise, drawn exactly on the integers
(:func:`two_sided_geometric`, :func:`discrete_gaussian`), is added in units of γ; every
step is exact in double precision.

Every sampler takes ``rng``: a :class:`numpy.random.Generator`, or a seed (int) from
which one is made, or ``None`` for fresh entropy (:func:`generator`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from privcore.errors import ParameterError

__all__ = [
    "GRID_BITS",
    "RngLike",
    "discrete_gaussian",
    "generator",
    "grid_sensitivity",
    "grid_step",
    "noise_shape",
    "on_grid",
    "scalar_if_0d",
    "two_sided_geometric",
]

RngLike = np.random.Generator | int | None

GRID_BITS = 12
"""The output grid of the Laplace and Gaussian mechanisms is at least 2^GRID_BITS times
finer than the noise scale and than the sensitivity (:func:`grid_step`)."""


def generator(rng: RngLike) -> np.random.Generator:
    """``rng`` itself when it is a Generator, else ``numpy.random.default_rng(rng)``."""
    if isinstance(rng, np.random.Generator):
        return rng
    return np.random.default_rng(rng)


def noise_shape(value: Any, size: int | Sequence[int] | None) -> tuple[int, ...]:
    """The shape of the noise: ``value``'s (one noise per cell) unless ``size`` asks for
    that many independent answers."""
    if size is None:
        return np.shape(value)
    return (size,) if isinstance(size, (int, np.integer)) else tuple(size)


def scalar_if_0d(result: np.ndarray) -> Any:
    """A Python number for a 0-d array, else the array."""
    return result.item() if result.ndim == 0 else result


def grid_step(scale: float, sensitivity: float) -> float:
    """γ = 2^(⌊log₂ min(scale, Δ)⌋ − 12): the spacing of the outputs of the Laplace
    mechanism (scale b = Δ₁/ε) and of the Gaussian ones (scale σ).

    A power of two, so that multiplying an integer by γ and adding two multiples of γ are
    exact in double precision (below 2⁵³·γ). γ ≤ 2⁻¹²·scale: the noise on the grid is
    2¹² steps or more per scale unit, as in OpenDP's samplers (OpenDP takes
    2^(⌊log₂ scale⌋ − 12)). γ ≤ 2⁻¹²·Δ as well: rounding a real-valued answer to the grid
    adds γ to the sensitivity (:func:`grid_sensitivity`), which then costs at most a
    factor 1 + 2⁻¹² of noise; and for Δ < 2¹² every integer is on the grid (γ ≤ 1 divides
    it). ``math.frexp`` gives ⌊log₂ x⌋ exactly (x = m·2^e with m in [½, 1), so
    ⌊log₂ x⌋ = e − 1).
    """
    exponent = math.frexp(min(float(scale), float(sensitivity)))[1] - 1
    step = math.ldexp(1.0, exponent - GRID_BITS)
    if step == 0.0 or not math.isfinite(step):
        raise ParameterError(
            f"The noise scale {scale!r} is too small or too large to sample in double "
            "precision; use a sensitivity and ε of ordinary magnitude.",
            code="dp.bad_sensitivity",
            sensitivity=sensitivity,
        )
    return step


def on_grid(value: Any, step: float) -> tuple[np.ndarray, bool]:
    """(value / γ rounded to the nearest integer, as floats; whether that is exact).

    Exact when the query is integer-valued (an integer or boolean array: counts,
    histograms, sums of integer columns with integer bounds) and γ ≤ 1, since γ is then
    1/2^k and divides every integer. Whether the rounding is exact is decided from the
    query's type, never from the value itself: a choice that depended on the data would
    itself change with one person's record.
    """
    values = np.asarray(value)
    exact = values.dtype.kind in "biu" and step <= 1.0
    with np.errstate(invalid="ignore"):
        units = np.rint(values.astype(float) / step)
    return units, exact


def grid_sensitivity(sensitivity: float, step: float, exact: bool) -> float:
    """Δ' = Δ on an exact grid, else Δ + γ: rounding each of two neighbouring answers to
    the nearest multiple of γ moves each by at most γ/2."""
    return sensitivity if exact else sensitivity + step


def two_sided_geometric(p: float, shape: tuple[int, ...], gen: np.random.Generator) -> Any:
    """Z = G₁ − G₂ with G₁, G₂ independent geometric of success probability p: the
    discrete Laplace law P(Z = z) = (1 − q)/(1 + q)·q^|z| with q = 1 − p (Inusah &
    Kozubowski 2006)."""
    return gen.geometric(p, size=shape) - gen.geometric(p, size=shape)


def discrete_gaussian(sigma: float, shape: tuple[int, ...], gen: np.random.Generator) -> np.ndarray:
    """Integers Z with P(Z = z) ∝ exp(−z²/(2σ²)): the discrete Gaussian, by Canonne, Kamath
    & Steinke 2020 ("The discrete Gaussian for differential privacy", NeurIPS),
    Algorithm 3: with t = ⌊σ⌋ + 1, draw Y discrete Laplace, P(Y = y) ∝ exp(−|y|/t), and
    accept it with probability exp(−(|Y| − σ²/t)²/(2σ²)); an accepted Y has the discrete
    Gaussian law. Vectorized: candidates are drawn in batches sized by the acceptance
    rate seen so far, and the first accepted ones fill the output in order.
    """
    total = math.prod(shape)
    out = np.empty(total, dtype=np.int64)
    t = math.floor(sigma) + 1
    p = -math.expm1(-1.0 / t)
    variance = sigma * sigma
    centre = variance / t
    filled, accepted_share = 0, 0.5  # the rate is ≈ 0.6–0.8 for σ ≥ 1; 0.5 is cautious
    while filled < total:
        need = total - filled
        batch = int(need / accepted_share * 1.05) + 64
        candidates = two_sided_geometric(p, (batch,), gen)
        keep = gen.random(batch) < np.exp(
            -np.square(np.abs(candidates) - centre) / (2.0 * variance)
        )
        accepted = candidates[keep]
        accepted_share = max(accepted.size / batch, 0.05)
        take = accepted[:need]
        out[filled : filled + take.size] = take
        filled += take.size
    return out.reshape(shape)
