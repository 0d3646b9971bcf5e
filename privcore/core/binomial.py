"""Exact binomial confidence bounds and the privacy-loss bound built on them, shared by the
local (:mod:`privcore.ldp.audit`) and central (:mod:`privcore.dp.audit`) auditors.

- :func:`clopper_pearson`: the exact interval for a proportion (Clopper & Pearson 1934),
  central or one-sided; :func:`cp_lower` / :func:`cp_upper` are the one-sided bounds,
  vectorized over arrays of counts.
- :func:`log_ratio_lower`: ln((P_lower[S | v] − δ) / P_upper[S | w]), a lower confidence
  bound on the privacy loss of an event S between two inputs (or neighbouring data sets):
  if a mechanism is (ε, δ)-DP then P[M(v) ∈ S] ≤ e^ε·P[M(w) ∈ S] + δ, so
  ε ≥ ln((P[M(v) ∈ S] − δ)/P[M(w) ∈ S]); replacing the two probabilities by one-sided
  Clopper–Pearson bounds at α/2 each gives a bound that exceeds the true loss of S with
  probability at most α (the auditing method of Jagielski, Ullman & Oprea 2020 and
  Nasr et al. 2021). :func:`log_ratio_upper` is the mirror-image upper bound.

The Clopper–Pearson bounds are quantiles of Beta distributions: the lower bound for k
successes in n trials at level 1 − α is the α-quantile of Beta(k, n − k + 1) (0 when
k = 0), the upper bound the (1 − α)-quantile of Beta(k + 1, n − k) (1 when k = n). For
k = 0 the upper bound has the closed form 1 − α^(1/n).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import special  # quantiles (scipy.stats costs twice the import)

__all__ = [
    "beta_ppf",
    "clopper_pearson",
    "cp_lower",
    "cp_upper",
    "log_ratio",
    "log_ratio_lower",
    "log_ratio_upper",
]


def beta_ppf(q: Any, a: Any, b: Any) -> Any:
    """Quantile q of the Beta(a, b) distribution (the inverse regularized incomplete beta
    function, as scipy.stats.beta.ppf); vectorized."""
    return special.betaincinv(a, b, q)


def clopper_pearson(
    k: int, n: int, confidence: float = 0.95, side: str = "two"
) -> tuple[float, float]:
    """Exact binomial interval for k successes in n trials (Clopper & Pearson 1934).

    ``side`` "two": central interval at ``confidence``; "lower"/"upper": one-sided bound
    at ``confidence`` (the other end is 0 or 1). No trials (n ≤ 0) give (0, 1).
    """
    if n <= 0:
        return 0.0, 1.0
    alpha = 1.0 - confidence
    if side == "two":
        a = alpha / 2
        lo = 0.0 if k <= 0 else float(beta_ppf(a, k, n - k + 1))
        hi = 1.0 if k >= n else float(beta_ppf(1 - a, k + 1, n - k))
        return lo, hi
    if side == "lower":
        return (0.0 if k <= 0 else float(beta_ppf(alpha, k, n - k + 1))), 1.0
    return 0.0, (1.0 if k >= n else float(beta_ppf(1 - alpha, k + 1, n - k)))


def cp_lower(k: Any, n: Any, alpha: float) -> np.ndarray:
    """One-sided Clopper–Pearson lower bounds at level 1 − α, vectorized (0 where k = 0)."""
    k, n = np.asarray(k, dtype=float), np.asarray(n, dtype=float)
    safe = np.where(k > 0, k, 1.0)
    return np.where(k > 0, beta_ppf(alpha, safe, n - safe + 1), 0.0)


def cp_upper(k: Any, n: Any, alpha: float) -> np.ndarray:
    """One-sided Clopper–Pearson upper bounds at level 1 − α, vectorized (1 where k = n)."""
    k, n = np.asarray(k, dtype=float), np.asarray(n, dtype=float)
    safe = np.where(k < n, k, n - 1.0)
    return np.where(k < n, beta_ppf(1 - alpha, safe + 1, n - safe), 1.0)


def log_ratio(a: float, b: float) -> float:
    """ln(a/b) for probabilities, with ln(0/b) = −∞ and ln(a/0) = +∞ (a > 0)."""
    if a <= 0:
        return -math.inf
    if b <= 0:
        return math.inf
    return math.log(a / b)


def log_ratio_lower(
    k_v: Any, n_v: Any, k_w: Any, n_w: Any, alpha: float, delta: float = 0.0
) -> Any:
    """ln((P_lower[S|v] − δ) / P_upper[S|w]) with one-sided Clopper–Pearson bounds at α/2
    each: a lower bound on the event's privacy loss that fails with probability ≤ α.

    Vectorized over the counts (an array in, an array out; −∞ where the lower bound does
    not exceed δ). Example: k_v = n_v = 100, k_w = 0, n_w = 100, α = 10⁻³:
    lower = (5·10⁻⁴)^(1/100), upper = 1 − (5·10⁻⁴)^(1/100), ε_LB = 2.53866.
    """
    lower = cp_lower(k_v, n_v, alpha / 2) - delta
    upper = cp_upper(k_w, n_w, alpha / 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        bound = np.where(lower > 0, np.log(np.where(lower > 0, lower, 1.0) / upper), -np.inf)
    return bound.item() if bound.ndim == 0 else bound


def log_ratio_upper(k_v: int, n_v: int, k_w: int, n_w: int, alpha: float) -> float:
    """ln(P_upper[S|v] / P_lower[S|w]) with one-sided bounds at α/2 each: an upper bound
    on the event's log-ratio that fails with probability ≤ α."""
    upper = float(cp_upper(k_v, n_v, alpha / 2))
    lower = float(cp_lower(k_w, n_w, alpha / 2))
    return log_ratio(upper, lower)
