"""The mechanisms the central audit runs (:data:`AUDIT_MECHANISMS`): the library's own
(Laplace, discrete Laplace and Gaussian on a count, Laplace on a clamped sum) and three
deliberately broken ones, each with its two neighbouring data sets D and D′.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from privcore.dp.mechanisms import DiscreteLaplace, Gaussian, Laplace, Mechanism
from privcore.dp.queries import clamped_sum
from privcore.dp.sampling import RngLike, generator

__all__ = [
    "AUDIT_MECHANISMS",
    "DEFAULT_GAUSSIAN_DELTA",
    "SUM_CLAMP",
    "SUM_COLUMN",
    "SUM_RECORDS",
    "UNCLAMPED_OUTLIER",
    "AuditedMechanism",
    "Sampler",
]

DEFAULT_GAUSSIAN_DELTA = 1e-5
"""δ of ``gaussian_count`` when none is given."""

# The data sets of the sums: weekly overtime hours of seven people, clamped to [0, 10]
# by the correct sum; D′ adds one person (at the clamp's end, or an outlier of 1,000
# for the sum that forgets to clamp).
SUM_COLUMN = "overtime_hours"
SUM_CLAMP = (0.0, 10.0)
SUM_RECORDS = (2.3, 7.25, 0.0, 12.0, 3.7, 9.5, -1.5)
UNCLAMPED_OUTLIER = 1_000.0

Sampler = Callable[[float, float, int, np.random.Generator], tuple[np.ndarray, np.ndarray]]
"""``sampler(epsilon, delta, n, rng)`` → (n outputs of M on D, n outputs of M on D′)."""


class _TextbookLaplace(Laplace):
    """value + Lap(Δ/ε) in textbook floating point (numpy's sampler, then a double
    addition): the right noise scale, but outputs whose low-order bits depend on the
    value (Mironov 2012). Only for the broken variant ``broken_float_laplace``."""

    def release(self, value: Any, *, size: Any = None, rng: RngLike = None) -> Any:
        return value + generator(rng).laplace(0.0, self.scale, size=size)


def _on_both(
    mechanism: Mechanism, values: tuple[Any, Any], n: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """n outputs of ``mechanism`` on the true answer of D, then n on that of D′."""
    first, second = values
    return mechanism.release(first, size=n, rng=rng), mechanism.release(second, size=n, rng=rng)


def _sum_frame(extra: float | None) -> pd.DataFrame:
    values = list(SUM_RECORDS) + ([] if extra is None else [extra])
    return pd.DataFrame({SUM_COLUMN: np.asarray(values, dtype=float)})


def _laplace_count(epsilon: float, delta: float, n: int, rng: np.random.Generator):
    return _on_both(Laplace(1, epsilon), (0, 1), n, rng)


def _geometric_count(epsilon: float, delta: float, n: int, rng: np.random.Generator):
    return _on_both(DiscreteLaplace(1, epsilon), (0, 1), n, rng)


def _gaussian_count(epsilon: float, delta: float, n: int, rng: np.random.Generator):
    return _on_both(Gaussian(1, epsilon, delta), (0, 1), n, rng)


def _laplace_sum(epsilon: float, delta: float, n: int, rng: np.random.Generator):
    low, high = SUM_CLAMP
    sums = [clamped_sum(_sum_frame(extra), SUM_COLUMN, low, high) for extra in (None, high)]
    mechanism = Laplace(sums[0].sensitivity_l1, epsilon)
    return _on_both(mechanism, (sums[0].true_answer, sums[1].true_answer), n, rng)


def _broken_scale_eps(epsilon: float, delta: float, n: int, rng: np.random.Generator):
    # Laplace at "ε" = 1/ε: scale Δ/(1/ε) = ε·Δ instead of Δ/ε
    return _on_both(Laplace(1, 1.0 / epsilon), (0, 1), n, rng)


def _broken_no_clamp(epsilon: float, delta: float, n: int, rng: np.random.Generator):
    declared = max(abs(SUM_CLAMP[0]), abs(SUM_CLAMP[1]))  # Δ of the declared clamp
    totals = (float(np.sum(SUM_RECORDS)), float(np.sum(SUM_RECORDS)) + UNCLAMPED_OUTLIER)
    return _on_both(Laplace(declared, epsilon), totals, n, rng)


def _broken_float_laplace(epsilon: float, delta: float, n: int, rng: np.random.Generator):
    return _on_both(_TextbookLaplace(1.0, epsilon), (0.0, 1.0), n, rng)


class AuditedMechanism(NamedTuple):
    """A mechanism the audit can run: its title, whether it is deliberately broken, what
    it does, its two neighbouring data sets, and ``sampler(epsilon, delta, n, rng)``."""

    title: str
    broken: bool
    description: str
    neighbours: str
    sampler: Sampler


_COUNT_NEIGHBOURS = (
    "D: a table in which no one meets the condition (count 0); D′: the same table plus "
    "one person who does (count 1)."
)
_SUM_NEIGHBOURS = (
    f"D: seven people's weekly overtime hours ({', '.join(map(str, SUM_RECORDS))}); "
    "D′: the same plus one person with 10 hours, the upper end of the clamp [0, 10]."
)

AUDIT_MECHANISMS: dict[str, AuditedMechanism] = {
    "laplace_count": AuditedMechanism(
        "Laplace mechanism on a count",
        False,
        "The library's Laplace mechanism on a count (Δ = 1): the count plus Laplace noise "
        "of scale 1/ε, drawn on a grid of multiples of a power of two so that the "
        "low-order bits of an output reveal nothing (Mironov 2012). Threshold events "
        "x ≥ t with t ≥ 1 have a loss of exactly ε.",
        _COUNT_NEIGHBOURS,
        _laplace_count,
    ),
    "geometric_count": AuditedMechanism(
        "Discrete Laplace (geometric) mechanism on a count",
        False,
        "The discrete Laplace (two-sided geometric) mechanism on a count: integer noise "
        "with P(Z = z) ∝ exp(−ε|z|) (Ghosh, Roughgarden & Sundararajan 2009).",
        _COUNT_NEIGHBOURS,
        _geometric_count,
    ),
    "gaussian_count": AuditedMechanism(
        "Gaussian mechanism on a count",
        False,
        "The library's Gaussian mechanism on a count (Δ₂ = 1) claiming (ε, δ), "
        f"δ = {DEFAULT_GAUSSIAN_DELTA:g} unless given: σ from the analytic Gaussian "
        "mechanism (Balle & Wang 2018), discrete Gaussian noise on a grid (Canonne, "
        "Kamath & Steinke 2020). Most of its privacy loss lies in the tails, where few "
        "draws land: with the default 10⁶ draws per data set the audit certifies a "
        "little over half of ε at ε = 0.5 to 2; with fewer draws, or smaller ε or δ, "
        "it certifies less, and “inconclusive” is then the honest verdict, not a fault.",
        _COUNT_NEIGHBOURS,
        _gaussian_count,
    ),
    "laplace_sum": AuditedMechanism(
        "Laplace mechanism on a clamped sum",
        False,
        "A sum of values clamped to [0, 10] (sensitivity max(|0|, |10|) = 10 under adding "
        "or removing a person) with the library's Laplace mechanism of scale "
        "10/ε. The sum is real-valued, so rounding it to the output grid adds the grid "
        "step γ to its sensitivity, which the mechanism accounts for.",
        _SUM_NEIGHBOURS,
        _laplace_sum,
    ),
    "broken_scale_eps": AuditedMechanism(
        "Broken: noise scale ε·Δ instead of Δ/ε",
        True,
        "Laplace noise of scale ε·Δ instead of Δ/ε, so the real loss is 1/ε whatever ε "
        "is claimed. Below ε = 1 that is too little noise (at ε = 0.5 the real loss is "
        "2) and the audit must report a violation. At ε = 1 the scale happens to be "
        "right, and above ε = 1 the mechanism adds more noise than its claim needs (a "
        "loss of 1/ε < ε): the audit then, correctly, finds no violation — a mistake "
        "that does not harm privacy at the ε audited is not one an audit can see.",
        _COUNT_NEIGHBOURS,
        _broken_scale_eps,
    ),
    "broken_no_clamp": AuditedMechanism(
        "Broken: a sum that forgets to clamp",
        True,
        "A sum whose noise is calibrated to the declared clamp [0, 10] (scale 10/ε) but "
        "whose values are not clamped: one person with the value 1,000 moves the sum by "
        "1,000, a privacy loss of 100·ε.",
        "D: seven people's weekly overtime hours, not clamped "
        f"({', '.join(map(str, SUM_RECORDS))}); D′: the same plus one person with the "
        "value 1,000.",
        _broken_no_clamp,
    ),
    "broken_float_laplace": AuditedMechanism(
        "Broken: textbook floating-point Laplace",
        True,
        "The count plus numpy's floating-point Laplace sample, added in double "
        "precision. The noise has the right scale, but the doubles it can return depend "
        "on the true count (Mironov 2012): with count 1, every output between −1 and 1 "
        "is a multiple of 2⁻⁵³; with count 0 most outputs there are not. An event on "
        "the outputs' low-order bits tells the two data sets apart.",
        _COUNT_NEIGHBOURS,
        _broken_float_laplace,
    ),
}
