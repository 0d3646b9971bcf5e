"""How wrong a released marginal can be: a bound on its L1 error ‖x_r − x̂_r‖₁ (x the
data's counts, x̂ the release's) that holds with a stated confidence 1 − β, computed
from the release alone (its noisy measurements, its rounds and its model) — AIM's
uncertainty quantification (McKenna et al. 2022, §5), applied to MST and AIM alike.

- **A marginal held by a measurement** (r ⊆ s, s measured with Gaussian noise σ): the
  measurement summed onto r, ȳ_r, has n_s/n_r noisy cells in each of its n_r cells, so
  noise of τ = σ·√(n_s/n_r) per cell. By the triangle inequality
  ‖x_r − x̂_r‖₁ ≤ ‖x̂_r − ȳ_r‖₁ + ‖z‖₁, and for n Gaussian cells of τ,
  ‖z‖₁ ≤ n·τ·√(2/π) + τ·√(2·n·ln(1/β)) with probability 1 − β (its mean, plus the
  concentration of a √n-Lipschitz function of Gaussians: Boucheron, Lugosi & Massart
  2013, "Concentration inequalities", Theorem 5.6). The discrete Gaussian the release
  draws is taken as the continuous one of the same σ (its variance is at most σ²:
  Canonne, Kamath & Steinke 2020). Of several measurements holding r, the one with the
  smallest noise term (chosen before looking at the counts) is used.
- **A marginal AIM could have chosen but did not measure**: in the last round t that
  had r among its C_t candidates, the exponential mechanism (ε_t, sensitivity Δ_t)
  chose s. With probability 1 − β/2 its quality is within (2Δ_t/ε_t)·ln(2|C_t|/β) of the
  best (McSherry & Talwar 2007), so q_r ≤ q_s + that; q_s ≤ w_s·(‖y_s − x̃_s‖₁ + ‖z‖₁ −
  √(2/π)·σ_t·n_s), ‖z‖₁ bounded as above at β/2 (x̃ the model's counts at round t);
  then ‖x_r − x̃_r‖₁ = q_r/w_r + √(2/π)·σ_t·n_r, and ‖x_r − x̂_r‖₁ ≤ that + ‖x̃_r − x̂_r‖₁.
- Any other marginal has no bound: said in words, never a number.

Each bound holds with probability 1 − β on its own (not all at once). The TVD form is
the bound / (2·N̂), at most 1.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from privcore.dp.graphical_model import summed_onto
from privcore.dp.parameters import check_beta

__all__ = ["MarginalBound", "gaussian_l1_bound", "marginal_bounds"]


@dataclass(frozen=True)
class MarginalBound:
    """The bound on one marginal's error: ``l1`` (counts) and ``tvd`` at ``confidence``,
    and how it was found (``source``: "measured", "selection" or "none", with the
    ``reason`` when there is none)."""

    clique: tuple[str, ...]
    l1: float | None
    tvd: float | None
    confidence: float
    source: str
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["clique"] = list(self.clique)
        return out


def gaussian_l1_bound(tau: float, cells: int, beta: float) -> float:
    """‖z‖₁ of ``cells`` Gaussian cells of standard deviation τ stays below
    n·τ·√(2/π) + τ·√(2·n·ln(1/β)) with probability 1 − β (the module's formula)."""
    beta = check_beta(beta)
    mean = cells * tau * math.sqrt(2.0 / math.pi)
    return mean + tau * math.sqrt(2.0 * cells * math.log(1.0 / beta))


def _measured(clique, released, measurements, sizes, beta: float) -> float:
    cells = int(np.prod([sizes[c] for c in clique]))
    holding = [m for m in measurements if set(clique) <= set(m.clique)]

    def noise(m) -> float:
        tau = m.sigma * math.sqrt(m.counts.size / cells)
        return gaussian_l1_bound(tau, cells, beta)

    best = min(holding, key=noise)
    table = np.asarray(best.counts, dtype=float).reshape([sizes[c] for c in best.clique])
    summed = summed_onto(table, best.clique, clique).ravel()
    return float(np.abs(released - summed).sum()) + noise(best)


def _selected(clique, released, result, sizes, weights, beta: float) -> float:
    index, before_r = result.last_chance[tuple(clique)]
    round_ = result.rounds[index]
    n_s = round_.noisy.size
    n_r = int(np.prod([sizes[c] for c in clique]))
    bias = math.sqrt(2.0 / math.pi) * round_.sigma
    seen = float(np.abs(round_.noisy - round_.before).sum())
    error_s = seen + gaussian_l1_bound(round_.sigma, n_s, beta / 2.0)
    q_s = weights[round_.chosen] * (error_s - bias * n_s)
    slack = 2.0 * round_.sensitivity / round_.epsilon * math.log(2.0 * round_.candidates / beta)
    at_round = (q_s + slack) / weights[tuple(clique)] + bias * n_r
    return at_round + float(np.abs(before_r - released).sum())


def marginal_bounds(
    result: Any, cliques: Sequence[Sequence[str]], confidence: float = 0.95
) -> list[MarginalBound]:
    """The bound of each of ``cliques`` for an MST or AIM ``result``
    (:class:`~privcore.dp.mst.MstResult`, :class:`~privcore.dp.aim.AimResult`): from a
    measurement holding it, else (AIM) from the last round that could choose it, else
    none (the module's formulas)."""
    beta = check_beta(1.0 - float(confidence))
    model = result.model
    sizes = model.sizes
    weights: dict[tuple[str, ...], float] = {}
    if hasattr(result, "workload"):
        from privcore.dp.aim import workload_candidates

        weights = workload_candidates(result.workload)
    chances = getattr(result, "last_chance", {})
    total = max(float(model.total), 1.0)
    out = []
    for clique in (tuple(c) for c in cliques):
        held = any(set(clique) <= set(m.clique) for m in result.measurements)
        if not held and not (clique in weights and clique in chances):
            reason = "neither measured nor a candidate of any round"
            out.append(MarginalBound(clique, None, None, confidence, "none", reason))
            continue
        released = model.total * np.asarray(model.marginal(clique)).ravel()
        if held:
            l1, source = _measured(clique, released, result.measurements, sizes, beta), "measured"
        else:
            l1, source = _selected(clique, released, result, sizes, weights, beta), "selection"
        out.append(MarginalBound(clique, l1, min(1.0, l1 / (2.0 * total)), confidence, source))
    return out
