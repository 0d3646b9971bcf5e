"""OB's estimate from counted halves (seed 001 §3.4, with sample splitting).

Per input and output coordinate, an empirical pmf (discrete outputs) or a density on
the common fine grid (Gaussian KDE or histogram); coordinates whose distributions are
"the same" (JS ≤ τ_d, or sup |f − f'| ≤ τ_c) add 0, the others their largest log-ratio
over the support where both densities exceed a floor, summed per direction. Half A
decides (which coordinates, the direction, the support point, the worst pair), half B
measures; a Poisson bootstrap of half B gives the interval (:func:`_ob_from`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd
from scipy import special

from privcore.core.progress import Stage
from privcore.ldp.audit.memory import _FINE_BINS, _HIST_GROUP, CHUNK_ELEMENTS
from privcore.ldp.audit.passes import _Distributions
from privcore.ldp.device import torch_module


def _no_beat() -> None:
    return None


_CHART_COORDINATES = 12  # densities kept in a report for its charts


@dataclass(frozen=True)
class ObSettings:
    """The choices of an OB-measure (:func:`~privcore.ldp.audit.audit_ob`): the "same
    distribution" thresholds τ_d (JS) and τ_c (sup |f − f'|), the floor as a share of a
    density's peak, the density of continuous outputs ("kde" or "histogram"), the
    bootstrap rounds and the confidence of the interval."""

    tau_d: float
    tau_c: float
    floor_share: float
    density: str
    bootstrap: int
    confidence: float


def _densities(dist: _Distributions, counts: Any, mode: str, beat: Callable = _no_beat) -> Any:
    """pmfs (discrete) or densities on the fine grid (KDE or histogram), with a leading
    batch dimension kept as it is. KDE runs over blocks of coordinates (``beat``
    between blocks)."""
    torch = torch_module()
    n = dist.n.reshape(*([1] * (counts.dim() - 3)), -1, 1, 1)
    if dist.kind == "discrete":
        return counts / n
    width = (dist.edges[:, 1] - dist.edges[:, 0]).reshape(1, -1, 1)
    if mode == "histogram":
        grouped = counts.reshape(*counts.shape[:-1], _FINE_BINS // _HIST_GROUP, _HIST_GROUP)
        coarse = grouped.sum(-1, keepdim=True).expand_as(grouped).reshape(counts.shape)
        return coarse / (n * width * _HIST_GROUP)
    # Gaussian KDE of the binned sample: FFT convolution with a kernel per coordinate.
    size = 2 * _FINE_BINS
    offsets = torch.arange(size, device=counts.device, dtype=torch.float64)
    offsets = torch.where(offsets < _FINE_BINS, offsets, offsets - size)
    coordinates = counts.shape[-2]
    cells = max(1, math.prod(counts.shape[:-2]))
    block = max(1, CHUNK_ELEMENTS // (cells * _FINE_BINS))
    parts = []
    for start in range(0, coordinates, block):
        h = dist.bandwidth[start : start + block].reshape(-1, 1)
        kernel = torch.exp(-0.5 * (offsets.unsqueeze(0) / h) ** 2)
        kernel = kernel / kernel.sum(dim=1, keepdim=True)
        smoothed = torch.fft.irfft(
            torch.fft.rfft(counts[..., start : start + block, :], n=size)
            * torch.fft.rfft(kernel, n=size),
            n=size,
        )[..., :_FINE_BINS]
        parts.append(torch.clamp(smoothed, min=0.0))
        beat()
    return torch.cat(parts, dim=-2) / (n * width)


def _log_ratios(f: Any, i: int, j: int, floor: Any) -> tuple[Any, Any]:
    """Log-ratio ln(f_i/f_j) at every support point, and where both are ≥ floor."""
    torch = torch_module()
    a, b = f[..., i, :, :], f[..., j, :, :]
    support = (a >= floor) & (b >= floor)
    ratio = torch.log(torch.where(support, a, 1.0) / torch.where(support, b, 1.0))
    return ratio, support


def _differs(f: Any, i: int, j: int, kind: str, tau_d: float, tau_c: float) -> Any:
    """Per coordinate: are the two inputs' distributions different (JS > τ_d for pmfs,
    sup |f − f'| > τ_c for densities)?"""
    torch = torch_module()
    a, b = f[..., i, :, :], f[..., j, :, :]
    if kind != "discrete":
        return (a - b).abs().amax(-1) > tau_c
    mid = 0.5 * (a + b)

    def kl(p: Any) -> Any:
        safe = torch.where(p > 0, p / torch.where(mid > 0, mid, 1.0), 1.0)
        return (p * torch.log(safe)).sum(-1)

    return 0.5 * (kl(a) + kl(b)) > tau_d


@dataclass(frozen=True, eq=False)
class _Plan:
    """What half A of the samples decided: for each input pair, which coordinates
    differ, the direction, and the support point where the log-ratio peaks."""

    pairs: list[tuple[int, int]]
    differs: list[Any]  # per pair: bool (coordinates,)
    forward: list[bool]  # per pair: is ln(f_i/f_j) the larger direction
    argmax: list[Any]  # per pair: int (coordinates,) support point in that direction
    disjoint: list[int]  # per pair: coordinates that differ with no common support


def _plan(
    dist: _Distributions, f: Any, floor: Any, tau_d: float, tau_c: float, beat: Callable
) -> _Plan:
    torch = torch_module()
    pairs = list(combinations(range(f.shape[0]), 2))
    differs, forward, argmax, disjoint = [], [], [], []
    for i, j in pairs:
        ratio, support = _log_ratios(f, i, j, floor)
        different = _differs(f, i, j, dist.kind, tau_d, tau_c)
        neg = torch.tensor(-torch.inf, dtype=ratio.dtype, device=ratio.device)
        best_f = torch.where(support, ratio, neg).max(-1)
        best_b = torch.where(support, -ratio, neg).max(-1)
        sum_f = torch.where(different & torch.isfinite(best_f.values), best_f.values, 0.0).sum()
        sum_b = torch.where(different & torch.isfinite(best_b.values), best_b.values, 0.0).sum()
        use_forward = bool(sum_f >= sum_b)
        # differ, yet no point where both are above the floor: the outputs of the two
        # inputs do not overlap, and the log-ratio has nothing finite to measure
        no_support = ~torch.isfinite(best_f.values) & ~torch.isfinite(best_b.values)
        disjoint.append(int((different & no_support).sum()))
        differs.append(different & torch.isfinite((best_f if use_forward else best_b).values))
        forward.append(use_forward)
        argmax.append((best_f if use_forward else best_b).indices)
        beat()
    return _Plan(pairs, differs, forward, argmax, disjoint)


def _apply(
    plan: _Plan, f: Any, floor: Any | None = None, beat: Callable = _no_beat
) -> tuple[Any, Any]:
    """ε̂ per pair (batch × pairs) at half A's choices; and the per-coordinate
    contributions (batch × pairs × coordinates). On half A the floor applies; on the
    measuring half (floor None) a chosen point only needs both densities positive, so a
    resample that dips under a floor near the tails does not drop the point to 0."""
    torch = torch_module()
    if floor is None:
        floor = torch.tensor(torch.finfo(f.dtype).tiny, dtype=f.dtype, device=f.device)
    values, contributions = [], []
    for (i, j), different, forward, argmax in zip(
        plan.pairs, plan.differs, plan.forward, plan.argmax, strict=True
    ):
        ratio, support = _log_ratios(f, i, j, floor)
        index = argmax.reshape(*([1] * (ratio.dim() - 2)), -1, 1).expand(*ratio.shape[:-1], 1)
        at = ratio.gather(-1, index).squeeze(-1)
        ok = support.gather(-1, index).squeeze(-1) & different
        part = torch.where(ok, at if forward else -at, 0.0)
        values.append(part.sum(-1))
        contributions.append(part)
        beat()
    return torch.stack(values, dim=-1), torch.stack(contributions, dim=-2)


def _floor(dist: _Distributions, f: Any, floor_share: float) -> Any:
    torch = torch_module()
    if dist.kind == "discrete":
        return torch.tensor(5.0, dtype=torch.float64, device=f.device) / dist.n.min()
    return floor_share * f.amax(dim=(0, 2)).reshape(-1, 1)


def _bootstrap_interval(
    estimate: float, draws: Sequence[float], confidence: float
) -> tuple[float, float]:
    """The normal bootstrap interval, estimate ± t · sd(draws) (Student's t with one
    fewer degree of freedom than draws).

    With the few draws an audit can afford (50), the percentile interval's ends are
    order statistics near the extremes of the sample, which fall short of the true
    quantiles on average: over 200 GRR audits (ε = 1, d = 20) it held the true ε in
    86.5 % of them for a nominal 95 %. The standard deviation of 50 draws is a far
    steadier statistic, and the log-ratios are close to normal, so the normal interval
    covers as stated. Where a draw is infinite (outputs that never overlap) the
    percentiles are kept: they say "unbounded" correctly.
    """
    values = np.asarray(draws, dtype=float)
    alpha = 1 - confidence
    if not np.all(np.isfinite(values)) or not math.isfinite(estimate) or len(values) < 2:
        return (float(np.quantile(values, alpha / 2)), float(np.quantile(values, 1 - alpha / 2)))
    z = float(special.stdtrit(len(values) - 1, 1 - alpha / 2))  # the sd is itself estimated
    spread = z * float(values.std(ddof=1))
    return (estimate - spread, estimate + spread)


def _ob_from(
    halves: tuple[_Distributions, _Distributions],
    settings: ObSettings,
    *,
    gen: Any,
    inputs: Sequence[Any],
    progress: Stage | None = None,
) -> dict[str, Any]:
    """OB-measure with sample splitting: half A decides (coordinates that differ, the
    direction, the support point of each log-ratio peak, and the worst pair); half B
    measures at those choices. Taking maxima and measuring on the same noisy
    estimates would bias ε̂ upwards (a maximum of noise); split, ε̂_avg is unbiased up
    to the log of a ratio and ε̂_max nearly so. Bootstrap: half B's counts resampled
    (Poisson), half A's choices held fixed."""
    torch = torch_module()
    progress = progress or Stage(None)
    beat = progress.beat
    first, second = halves
    density = settings.density
    f_a = _densities(first, first.counts, density, beat)
    floor_a = _floor(first, f_a, settings.floor_share)
    plan = _plan(first, f_a, floor_a, settings.tau_d, settings.tau_c, beat)
    values_a, _ = _apply(plan, f_a, floor_a, beat)
    del f_a
    worst = int(values_a.argmax())
    f_b = _densities(second, second.counts, density, beat)
    floor_b = _floor(second, f_b, settings.floor_share)
    per_pair, contributions = _apply(plan, f_b, beat=beat)
    eps_max, eps_avg = float(per_pair[worst]), float(per_pair.mean())
    draws_max, draws_avg = [], []
    rounds = max(settings.bootstrap, 0)
    for round_ in range(rounds):
        # Poisson counts over the half's own sizes (not renormalized to the resampled
        # totals): var(ln ĉ) = 1/c, a little above the binomial (1 − p)/(np), so the
        # interval errs on the side of width.
        resampled = torch.poisson(second.counts, generator=gen)
        boot = _Distributions(second.kind, resampled, second.n, second.edges, second.bandwidth)
        values, _ = _apply(plan, _densities(boot, resampled, density, beat), beat=beat)
        draws_max.append(float(values[worst]))
        draws_avg.append(float(values.mean()))
        progress((round_ + 1) / rounds, "OB: bootstrap")
    ci_max = ci_avg = None
    if draws_max:
        ci_max = _bootstrap_interval(eps_max, draws_max, settings.confidence)
        ci_avg = _bootstrap_interval(eps_avg, draws_avg, settings.confidence)
    pairs = plan.pairs
    pair_table = pd.DataFrame(
        {
            "input_a": [inputs[i] for i, _ in pairs],
            "input_b": [inputs[j] for _, j in pairs],
            "epsilon_hat": per_pair.cpu().numpy(),
        }
    )
    shown = slice(0, _CHART_COORDINATES)
    return {
        "inputs": list(inputs),
        "epsilon_max": eps_max,
        "epsilon_avg": eps_avg,
        "ci_max": ci_max,
        "ci_avg": ci_avg,
        "pairs": pair_table,
        "worst_pair": [inputs[pairs[worst][0]], inputs[pairs[worst][1]]],
        "disjoint_pairs": [
            [inputs[i], inputs[j]]
            for (i, j), count in zip(pairs, plan.disjoint, strict=True)
            if count
        ],
        "coordinate_leakage": contributions[worst].cpu().numpy(),
        "floor": float(floor_b.max()),
        # the charts show a few coordinates: keep only those (a copy, not a view)
        "densities": f_b[:, shown].cpu().numpy().copy(),
        "grid": None
        if second.edges is None
        else (0.5 * (second.edges[shown, 1:] + second.edges[shown, :-1])).cpu().numpy(),
    }
