"""Auditing an LDP mechanism: how much privacy does it really lose? (SPEC §7)

Three measures, each with its uncertainty:

- :func:`audit_ab` (white-box, seed 001 Alg. 1–4): run the mechanism on known inputs and
  map a counted proportion through the mechanism's formula — direct encoding by its
  disagreement rate, ε̂ = ln((k−1)(n−D)/D) (**seed erratum**: seed 001's Algorithm 2
  counts agreements, which its formula cannot take); Duchi by the frequency of +B at
  x = 1; every other mechanism by the frequencies of its own most distinguishing event
  under two inputs. Clopper–Pearson intervals are mapped through the (monotone) formula.
- :func:`audit_ob` (black-box, seed 001 §3.4): only outputs are used. Per input and per
  output coordinate, an empirical pmf (discrete outputs) or a density on a common grid
  (Gaussian KDE, or histogram bins — continuous outputs with atoms or jumps bias a
  KDE's log-ratio downwards, so both are offered); coordinates whose distributions are
  "the same" (JS ≤ τ_d, or sup |f − f'| ≤ τ_c) add 0; the others add their largest
  log-ratio over the support where both densities exceed a floor. ε̂(v, v') sums the
  coordinates; ε̂_max and ε̂_avg over input pairs, with bootstrap intervals.
  *Correction to seed 001*: the log-ratios are summed per direction (signed, v over v'
  and v' over v) and the larger sum is kept; summing absolute values lets each
  coordinate be at its worst in its own direction, which one output cannot be (it
  overstates optimized unary encoding by 2 ln((e^ε+1)/2) − ε).
  *Dependent coordinates*: summing coordinates is exact only when they are independent
  given the input (unary encodings). A discrete vector output is therefore measured as
  one joint symbol when that takes few distinct values (≤ 256, and at least 50 samples
  per value for the smallest input): the vector restricted to the coordinates whose pmf
  differs between some pair of inputs (those the sum would count), or else the whole
  vector. Subset selection's ω-hot vector: per-coordinate sums give ln(p/q*) +
  ln((1−q*)/(1−p)) ≈ 1.13 at ε = 1, d = 10 (≈ 1.065 at d = 20), the joint pmf gives ε.
  The joint symbol is used only when a G-test rejects that the coordinates are
  independent given the input (level 10⁻³, split over the inputs): for independent
  coordinates the sum is exact and the per-coordinate pmfs, with more samples per
  cell, are less noisy. Larger output spaces, and the support bits of hashed outputs
  (``comb``, exact per coordinate), are summed per coordinate (``details["joint"]`` is
  None; otherwise ``{"symbols", "coordinates", "p_value"}``).
- :func:`lower_bound` (beyond the seed): a distinguishing attack certifies
  ε_LB = ln(P_lower[A(v)∈S] / P_upper[A(v')∈S]) with one-sided Clopper–Pearson bounds
  (α/2 each, so the statement holds with confidence 1 − α). White-box, S is the
  mechanism's likelihood-ratio event; black-box, S is learned on half the samples
  (naive-Bayes log-likelihood-ratio score over the output coordinates estimated on one
  quarter, threshold chosen on the other quarter) and counted on the other half. A
  bound above the claimed ε is a proven **violation**.

:func:`audit_samples` audits logged (input, output) pairs of any implementation from
the samples alone; :func:`sweep` audits one mechanism over a list of ε;
:func:`sample_size` is the planner n > z²_{α/2} p(1−p)/l².
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from statistics import NormalDist
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from privcore.errors import ParameterError
from privcore.ldp.base import Mechanism, Outputs
from privcore.ldp.device import device, generator, torch_module

Progress = Callable[[float, str], None]
VERDICTS = ("consistent", "violation", "inconclusive")
_CONSISTENT_SHARE = 0.8  # a bound this close to the claim shows the test had power


# --------------------------------------------------------------------------- statistics


def clopper_pearson(
    k: int, n: int, confidence: float = 0.95, side: str = "two"
) -> tuple[float, float]:
    """Exact binomial interval for k successes in n trials (Clopper & Pearson 1934).

    ``side`` "two": central interval at ``confidence``; "lower"/"upper": one-sided bound
    at ``confidence`` (the other end is 0 or 1).
    """
    if n <= 0:
        return 0.0, 1.0
    alpha = 1.0 - confidence
    if side == "two":
        a = alpha / 2
        lo = 0.0 if k <= 0 else float(stats.beta.ppf(a, k, n - k + 1))
        hi = 1.0 if k >= n else float(stats.beta.ppf(1 - a, k + 1, n - k))
        return lo, hi
    if side == "lower":
        return (0.0 if k <= 0 else float(stats.beta.ppf(alpha, k, n - k + 1))), 1.0
    return 0.0, (1.0 if k >= n else float(stats.beta.ppf(1 - alpha, k + 1, n - k)))


def sample_size(p: float, margin: float, confidence: float = 0.95) -> int:
    """Samples needed to estimate a probability p within ±margin at ``confidence``:
    n > z²_{α/2} · p(1−p) / l² (seed 001 §3.4)."""
    if not 0 < p < 1 or not 0 < margin < 1 or not 0 < confidence < 1:
        raise ParameterError(
            "The planner needs 0 < p < 1, 0 < margin < 1 and 0 < confidence < 1.",
            code="ldp.bad_planner",
        )
    z = float(stats.norm.ppf(1 - (1 - confidence) / 2))
    return math.floor(z * z * p * (1 - p) / (margin * margin)) + 1


def _log_ratio(a: float, b: float) -> float:
    if a <= 0:
        return -math.inf
    if b <= 0:
        return math.inf
    return math.log(a / b)


# --------------------------------------------------------------------------- report


@dataclass(frozen=True)
class AuditReport:
    """One audit: the estimate or bound, its interval, and the verdict in plain words.

    ``epsilon_hat``: the AB estimate, or OB's ε̂_max; ``ci``: its interval (AB:
    Clopper–Pearson mapped; OB: bootstrap percentiles); ``epsilon_lb``: the certified
    lower bound (LB); ``verdict``: "violation" when the certified bound (or the whole AB
    interval) exceeds the claimed ε — OB, an estimate, never decides a violation;
    "consistent" when nothing exceeds the claim and the audit had the power to see it
    (the bound or the interval reaches 80 % of the claim); otherwise "inconclusive".
    """

    method: str
    mechanism: dict[str, Any]
    epsilon_claimed: float | None
    epsilon_hat: float | None
    ci: tuple[float, float] | None
    epsilon_lb: float | None
    verdict: str
    confidence: float
    samples: int
    device: str
    seconds: float
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe summary (the CLI contract: epsilon_hat, ci, epsilon_lb, verdict,
        device, seconds)."""
        return _clean(
            {
                "method": self.method,
                "mechanism": self.mechanism,
                "epsilon_claimed": self.epsilon_claimed,
                "epsilon_hat": self.epsilon_hat,
                "ci": list(self.ci) if self.ci is not None else None,
                "epsilon_lb": self.epsilon_lb,
                "verdict": self.verdict,
                "confidence": self.confidence,
                "samples": self.samples,
                "device": self.device,
                "seconds": round(self.seconds, 4),
                **{k: v for k, v in self.details.items() if _scalar_like(v)},
            }
        )


def _scalar_like(value: Any) -> bool:
    return isinstance(value, (int, float, str, bool, type(None))) or (
        isinstance(value, (list, tuple, dict)) and len(str(value)) < 2000
    )


def _clean(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def verdict(
    claimed: float | None,
    *,
    lower: float | None = None,
    interval: tuple[float, float] | None = None,
    certified: bool = True,
) -> str:
    """The plain-language verdict (see :class:`AuditReport`). ``certified=False`` (the
    black-box OB estimate, which can overstate outputs with dependent coordinates)
    never says "violation": an interval above the claim is "inconclusive" and calls
    for the certified lower bound."""
    if claimed is None:
        return "inconclusive"
    if lower is not None:
        if lower > claimed:
            return "violation"
        return "consistent" if lower >= _CONSISTENT_SHARE * claimed else "inconclusive"
    if interval is not None:
        lo, hi = interval
        if lo > claimed:
            return "violation" if certified else "inconclusive"
        return "consistent" if hi >= _CONSISTENT_SHARE * claimed else "inconclusive"
    return "inconclusive"


def _report(progress: Progress | None, fraction: float, message: str) -> None:
    if progress is not None:
        progress(min(max(fraction, 0.0), 1.0), message)


def _check_n(n: int, what: str = "samples") -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 100:
        raise ParameterError(
            f"The number of {what} must be an integer ≥ 100 (got {n}).",
            code="ldp.bad_samples",
            value=str(n),
        )
    cap = _max_samples()
    if n > cap:
        raise ParameterError(
            f"{n:,} {what} per input is above this installation's limit of {cap:,} "
            "(PRIVCORE_MAX_AUDIT_SAMPLES).",
            code="ldp.too_many_samples",
            value=n,
            limit=cap,
        )
    return int(n)


def _max_samples() -> int:
    import os

    raw = os.environ.get("PRIVCORE_MAX_AUDIT_SAMPLES", "").replace("_", "").strip()
    return int(raw) if raw.isdigit() and int(raw) > 0 else 5_000_000


def _inputs_tensor(mechanism: Mechanism, value: Any, n: int, dev: str) -> Any:
    torch = torch_module()
    if mechanism.family == "frequency":
        return torch.full((n,), int(value), dtype=torch.int64, device=dev)
    return torch.full((n,), float(value), dtype=torch.float64, device=dev)


def _run(
    mechanism: Mechanism, value: Any, n: int, gen: Any, dev: str, chunk: int = 250_000
) -> list[Outputs]:
    """Reports for n users holding ``value`` (in chunks, to bound memory)."""
    out = []
    done = 0
    while done < n:
        size = min(chunk, n - done)
        out.append(mechanism.perturb(_inputs_tensor(mechanism, value, size, dev), gen))
        done += size
    return out


def _count_event(
    mechanism: Mechanism, value: Any, event: Callable, n: int, gen: Any, dev: str
) -> int:
    return int(sum(int(event(o).sum().item()) for o in _run(mechanism, value, n, gen, dev)))


# --------------------------------------------------------------------------- AB (white-box)


def _per_proportion_level(k_a: int, k_b: int, n: int, confidence: float) -> float:
    """Level of each proportion's Clopper–Pearson interval so that the interval of
    ln(p_a/p_b) built from their ends covers with about ``confidence``.

    By the delta method ln p̂_i has standard deviation s_i = √((1 − p_i)/(n p_i)); the
    ends of the mapped interval lie z_c (s_a + s_b) from the estimate, and the estimate's
    own standard deviation is √(s_a² + s_b²). Hence z_c = z · √(s_a² + s_b²)/(s_a + s_b)
    (z_c = z/√2 when s_a = s_b; z_c → z when one proportion dominates). With a count of
    0 or n the delta method does not apply and ``confidence`` is used for each.
    """
    if min(k_a, k_b) <= 0 or max(k_a, k_b) >= n:
        return confidence
    normal = NormalDist()
    z = normal.inv_cdf((1 + confidence) / 2)
    s_a, s_b = (math.sqrt((1 - k / n) / k) for k in (k_a, k_b))
    z_c = z * math.hypot(s_a, s_b) / (s_a + s_b)
    return 2 * normal.cdf(z_c) - 1


def audit_ab(
    mechanism: Mechanism,
    *,
    n: int = 200_000,
    seed: int = 0,
    confidence: float = 0.95,
    progress: Progress | None = None,
) -> AuditReport:
    """White-box AB-measure with a Clopper–Pearson interval mapped through the formula.

    Direct encoding: n users with random inputs; D = outputs differing from their input;
    ε̂ = ln((k−1)(n−D)/D), decreasing in D/n. Duchi: n users at x = 1; the share of +B is
    e^ε/(e^ε+1), so ε̂ = logit(share). Others: n users at each of the worst pair (v, w);
    ε̂ = ln(P̂[S|v] / P̂[S|w]) for the mechanism's own event S; the interval combines the
    two proportions' Clopper–Pearson intervals, each at the level that makes the
    combined interval cover with about ``confidence`` (:func:`_per_proportion_level`;
    two 95 % intervals would cover 99–100 % of the time: too wide).
    """
    started = time.perf_counter()
    n = _check_n(n)
    dev = device()
    gen = generator(seed, dev)
    torch = torch_module()
    details: dict[str, Any] = {}
    _report(progress, 0.1, "AB: perturbing")
    if mechanism.name in ("grr", "broken_grr"):
        k = mechanism.d
        inputs = torch.randint(0, k, (n,), generator=gen, device=dev)
        outputs = mechanism.perturb(inputs, gen)
        disagreements = int((outputs.values != inputs).sum().item())
        rate_lo, rate_hi = clopper_pearson(disagreements, n, confidence)

        def formula(rate: float) -> float:
            return _log_ratio((k - 1) * (1 - rate), rate)

        estimate = formula(disagreements / n)
        ci = (formula(rate_hi), formula(rate_lo))
        details.update({"disagreements": disagreements, "formula": "ln((k−1)(n−D)/D)"})
    elif mechanism.name in ("duchi", "broken_duchi"):
        hi_input = mechanism.input_range()[1]
        outputs = _run(mechanism, hi_input, n, gen, dev)
        plus = int(sum(int((o.values > 0).sum().item()) for o in outputs))
        magnitude = float(outputs[0].values.abs().max().item())
        share_lo, share_hi = clopper_pearson(plus, n, confidence)

        def formula(share: float) -> float:
            return _log_ratio(share, 1 - share)

        estimate = formula(plus / n)
        ci = (formula(share_lo), formula(share_hi))
        details.update(
            {
                "plus": plus,
                "formula": "ln(P(+B)/(1−P(+B))) at x = 1",
                "epsilon_from_magnitude": _log_ratio(magnitude + 1, magnitude - 1),
            }
        )
    else:
        v, w = mechanism.worst_pair()
        event = mechanism.event(v, w)
        k_v = _count_event(mechanism, v, event, n, gen, dev)
        _report(progress, 0.5, "AB: second input")
        k_w = _count_event(mechanism, w, event, n, gen, dev)
        level = _per_proportion_level(k_v, k_w, n, confidence)
        v_lo, v_hi = clopper_pearson(k_v, n, level)
        w_lo, w_hi = clopper_pearson(k_w, n, level)
        estimate = _log_ratio(k_v / n, k_w / n)
        ci = (_log_ratio(v_lo, w_hi), _log_ratio(v_hi, w_lo))
        details.update(
            {
                "event_counts": [k_v, k_w],
                "inputs": [v, w],
                "formula": "ln(P[S|v] / P[S|w])",
                "per_proportion_level": level,
            }
        )
    _report(progress, 1.0, "AB: done")
    return AuditReport(
        method="ab",
        mechanism=mechanism.describe(),
        epsilon_claimed=mechanism.epsilon,
        epsilon_hat=estimate,
        ci=ci,
        epsilon_lb=None,
        verdict=verdict(mechanism.epsilon, interval=ci),
        confidence=confidence,
        samples=n,
        device=dev,
        seconds=time.perf_counter() - started,
        details=details,
    )


# --------------------------------------------------------------------------- OB (black-box)

_FINE_BINS = 512  # grid points per coordinate for continuous outputs
_HIST_GROUP = 8  # fine bins per histogram bin (64 histogram bins)


@dataclass(frozen=True, eq=False)
class _Distributions:
    """Per input and output coordinate: counts (discrete) or fine-binned counts
    (continuous), plus what is needed to turn them into pmfs / densities."""

    kind: str  # "discrete" | "continuous"
    counts: Any  # tensor (inputs, coordinates, values or fine bins), float64
    n: Any  # tensor (inputs,) samples per input
    edges: Any = None  # continuous: tensor (coordinates, fine bins + 1)
    bandwidth: Any = None  # continuous: tensor (coordinates,) in fine-bin units
    labels: list | None = None  # discrete: the value of each code (uploaded samples)


def _discrete_counts(columns: list[Any], m: int) -> Any:
    """(inputs, coordinates, m) counts from per-input (n, c) int tensors of codes."""
    torch = torch_module()
    rows = []
    for codes in columns:
        c = codes.shape[1]
        flat = codes.long() + torch.arange(c, device=codes.device).unsqueeze(0) * m
        rows.append(torch.bincount(flat.reshape(-1), minlength=c * m).reshape(c, m))
    return torch.stack(rows).double()


def _continuous_counts(columns: list[Any]) -> tuple[Any, Any, Any]:
    """Fine histograms on a common grid per coordinate, and Silverman bandwidths."""
    edges, bandwidth = _grid(columns)
    return _binned(columns, edges), edges, bandwidth


def _grid(columns: list[Any]) -> tuple[Any, Any]:
    """The common grid per coordinate (fine-bin edges over the pooled range, 2 % wider
    on each side) and Silverman bandwidths in fine-bin units."""
    torch = torch_module()
    # extremes in the samples' own precision (exact), the spread in float64
    lo = torch.stack([c.amin(dim=0) for c in columns]).amin(dim=0).double()
    hi = torch.stack([c.amax(dim=0) for c in columns]).amax(dim=0).double()
    pooled = torch.cat(columns, dim=0).double()
    span = torch.clamp(hi - lo, min=1e-9)
    lo, hi = lo - 0.02 * span, hi + 0.02 * span
    width = (hi - lo) / _FINE_BINS
    edges = lo.unsqueeze(1) + width.unsqueeze(1) * torch.arange(
        _FINE_BINS + 1, device=pooled.device, dtype=torch.float64
    )
    sigma = pooled.std(dim=0)
    bandwidth = 1.06 * sigma * (pooled.shape[0] / len(columns)) ** (-0.2) / width
    return edges, torch.clamp(bandwidth, min=0.5)


def _binned(columns: list[Any], edges: Any) -> Any:
    """(inputs, coordinates, fine bins) counts on given edges (outside values clamp to
    the end bins)."""
    torch = torch_module()
    lo = edges[:, 0]
    width = edges[:, 1] - edges[:, 0]
    counts = []
    for values in columns:
        c = values.shape[1]
        index = ((values.double() - lo) / width).floor().long().clamp(0, _FINE_BINS - 1)
        flat = index + torch.arange(c, device=values.device).unsqueeze(0) * _FINE_BINS
        counts.append(
            torch.bincount(flat.reshape(-1), minlength=c * _FINE_BINS).reshape(c, _FINE_BINS)
        )
    return torch.stack(counts).double()


def _densities(dist: _Distributions, counts: Any, mode: str) -> Any:
    """pmfs (discrete) or densities on the fine grid (KDE or histogram), with a leading
    batch dimension kept as it is."""
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
    h = dist.bandwidth.reshape(-1, 1)
    kernel = torch.exp(-0.5 * (offsets.unsqueeze(0) / h) ** 2)
    kernel = kernel / kernel.sum(dim=1, keepdim=True)
    smoothed = torch.fft.irfft(
        torch.fft.rfft(counts, n=size) * torch.fft.rfft(kernel, n=size), n=size
    )[..., :_FINE_BINS]
    return torch.clamp(smoothed, min=0.0) / (n * width)


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


def _plan(dist: _Distributions, f: Any, floor: Any, tau_d: float, tau_c: float) -> _Plan:
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
    return _Plan(pairs, differs, forward, argmax, disjoint)


def _apply(plan: _Plan, f: Any, floor: Any | None = None) -> tuple[Any, Any]:
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
    return torch.stack(values, dim=-1), torch.stack(contributions, dim=-2)


def _floor(dist: _Distributions, f: Any, floor_share: float) -> Any:
    torch = torch_module()
    if dist.kind == "discrete":
        return torch.tensor(5.0, dtype=torch.float64, device=f.device) / dist.n.min()
    return floor_share * f.amax(dim=(0, 2)).reshape(-1, 1)


def _ob_from(
    halves: tuple[_Distributions, _Distributions],
    *,
    tau_d: float,
    tau_c: float,
    floor_share: float,
    density: str,
    bootstrap: int,
    confidence: float,
    gen: Any,
    inputs: Sequence[Any],
) -> dict[str, Any]:
    """OB-measure with sample splitting: half A decides (coordinates that differ, the
    direction, the support point of each log-ratio peak, and the worst pair); half B
    measures at those choices. Taking maxima and measuring on the same noisy
    estimates would bias ε̂ upwards (a maximum of noise); split, ε̂_avg is unbiased up
    to the log of a ratio and ε̂_max nearly so. Bootstrap: half B's counts resampled
    (Poisson), half A's choices held fixed."""
    torch = torch_module()
    first, second = halves
    f_a = _densities(first, first.counts, density)
    floor_a = _floor(first, f_a, floor_share)
    plan = _plan(first, f_a, floor_a, tau_d, tau_c)
    values_a, _ = _apply(plan, f_a, floor_a)
    worst = int(values_a.argmax())
    f_b = _densities(second, second.counts, density)
    floor_b = _floor(second, f_b, floor_share)
    per_pair, contributions = _apply(plan, f_b)
    eps_max, eps_avg = float(per_pair[worst]), float(per_pair.mean())
    draws_max, draws_avg = [], []
    for _ in range(max(bootstrap, 0)):
        resampled = torch.poisson(second.counts, generator=gen)
        boot = _Distributions(
            second.kind,
            resampled,
            resampled.sum(-1)[:, 0].clamp(min=1),
            second.edges,
            second.bandwidth,
        )
        values, _ = _apply(plan, _densities(boot, resampled, density))
        draws_max.append(float(values[worst]))
        draws_avg.append(float(values.mean()))
    alpha = 1 - confidence
    ci_max = ci_avg = None
    if draws_max:
        ci_max = (
            float(np.quantile(draws_max, alpha / 2)),
            float(np.quantile(draws_max, 1 - alpha / 2)),
        )
        ci_avg = (
            float(np.quantile(draws_avg, alpha / 2)),
            float(np.quantile(draws_avg, 1 - alpha / 2)),
        )
    pairs = plan.pairs
    pair_table = pd.DataFrame(
        {
            "input_a": [inputs[i] for i, _ in pairs],
            "input_b": [inputs[j] for _, j in pairs],
            "epsilon_hat": per_pair.cpu().numpy(),
        }
    )
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
        "densities": f_b.cpu().numpy(),
        "grid": None
        if second.edges is None
        else (0.5 * (second.edges[:, 1:] + second.edges[:, :-1])).cpu().numpy(),
    }


def _split(columns: list[Any], gen: Any) -> tuple[list[Any], list[Any]]:
    """Each input's samples cut in two random halves."""
    torch = torch_module()
    first, second = [], []
    for c in columns:
        order = torch.randperm(c.shape[0], generator=gen, device=c.device)
        half = c.shape[0] // 2
        first.append(c[order[:half]])
        second.append(c[order[half:]])
    return first, second


_JOINT_LIMIT = 256  # distinct output vectors measured as one symbol
_JOINT_SAMPLES = 50  # samples per distinct vector needed, for the smallest input
_DEPENDENCE_ALPHA = 1e-3  # G-test level (split over inputs) for "dependent coordinates"


def _joint_symbols(
    columns: list[Any], continuous: bool, tau_d: float
) -> tuple[list[Any], dict[str, Any] | None]:
    """Discrete vector outputs as one joint symbol per output (n, 1), when few enough:
    first the coordinates whose pmf differs between some pair of inputs (JS > τ_d; the
    others would add 0 to the sum), then the whole vector. Otherwise the columns
    unchanged and None; else ``{"symbols": distinct values, "coordinates": [...]}``."""
    if continuous or columns[0].dim() != 2 or columns[0].shape[1] < 2:
        return columns, None
    torch = torch_module()
    d = int(columns[0].shape[1])
    whole = _distributions(columns, False)
    f = _densities(whole, whole.counts, "pmf")
    differ = torch.zeros(d, dtype=torch.bool, device=f.device)
    for i, j in combinations(range(f.shape[0]), 2):
        differ |= _differs(f, i, j, "discrete", tau_d, 0.0)
    chosen = torch.nonzero(differ.reshape(-1)).reshape(-1).tolist()
    smallest = min(int(c.shape[0]) for c in columns)
    candidates = [chosen] if 2 <= len(chosen) < d else []
    for coordinates in [*candidates, list(range(d))]:
        stacked = torch.cat([c[:, coordinates] for c in columns], dim=0)
        vectors, codes = torch.unique(stacked, dim=0, return_inverse=True)
        distinct = int(vectors.shape[0])
        if distinct > _JOINT_LIMIT or distinct * _JOINT_SAMPLES > smallest:
            continue
        sizes = [int(c.shape[0]) for c in columns]
        parts = list(torch.split(codes.reshape(-1), sizes))
        p_value = _independence_p_value(vectors, parts)
        if p_value >= _DEPENDENCE_ALPHA / len(columns):
            return columns, None  # independent given the input: the sum is exact
        symbols = [part.to(torch.float32).reshape(-1, 1) for part in parts]
        return symbols, {"symbols": distinct, "coordinates": coordinates, "p_value": p_value}
    return columns, None


def _independence_p_value(vectors: Any, parts: list[Any]) -> float:
    """Smallest p-value over inputs of the G-test that the coordinates are independent
    given the input: G = 2 Σ O ln(O/E) over the observed vectors, E = n·Π marginals,
    with Π L_c − 1 − Σ (L_c − 1) degrees of freedom (L_c values of coordinate c)."""
    torch = torch_module()
    levels = [torch.unique(vectors[:, c]) for c in range(vectors.shape[1])]
    cells = math.prod(len(v) for v in levels)
    dof = cells - 1 - sum(len(v) - 1 for v in levels)
    if dof <= 0:
        return 1.0
    smallest = 1.0
    for codes in parts:
        n = codes.shape[0]
        observed = torch.bincount(codes, minlength=vectors.shape[0]).double()
        expected = torch.full_like(observed, float(n))
        for c, values in enumerate(levels):
            column = vectors[:, c]
            index = torch.searchsorted(values, column.contiguous())
            marginal = torch.zeros(len(values), dtype=torch.float64, device=observed.device)
            marginal.index_add_(0, index, observed)
            expected = expected * marginal[index] / n
        seen = observed > 0
        g = 2.0 * float((observed[seen] * torch.log(observed[seen] / expected[seen])).sum())
        smallest = min(smallest, float(stats.chi2.sf(g, dof)))
    return smallest


def _split_distributions(
    columns: list[Any], continuous: bool, gen: Any
) -> tuple[_Distributions, _Distributions]:
    """Distributions of the two halves on a common support (grid or value codes)."""
    first, second = _split(columns, gen)
    whole = _common_support(columns, continuous)
    return (
        _distributions(first, continuous, like=whole),
        _distributions(second, continuous, like=whole),
    )


def _common_support(columns: list[Any], continuous: bool) -> _Distributions:
    """What parts of one sample share (``like`` of :func:`_distributions`): the grid
    and bandwidths of all samples (continuous; nothing is binned), or their counts
    (discrete, for the value range)."""
    if continuous:
        edges, bandwidth = _grid(columns)
        return _Distributions("continuous", None, None, edges, bandwidth)
    return _distributions(columns, continuous)


def _ob_inputs(mechanism: Mechanism, inputs: Any, gen_seed: int) -> list[Any]:
    if inputs is not None and inputs != "sample":
        return _checked_inputs(mechanism, inputs)
    if mechanism.family == "frequency":
        d = int(mechanism.d)
        if inputs is None and d <= 10:
            return list(range(d))
        t = max(math.ceil(math.log(d)), 2)
        rng = np.random.default_rng(gen_seed)
        return sorted(int(v) for v in rng.choice(d, size=min(t, d), replace=False))
    lo, hi = mechanism.input_range()
    return [float(v) for v in np.linspace(lo, hi, 5)]


def _checked_inputs(mechanism: Mechanism, inputs: Any) -> list[Any]:
    """Inputs chosen by the user: at least two distinct values of the mechanism's
    domain (0..d−1) or range ([lo, hi])."""
    values = list(dict.fromkeys(inputs))
    if mechanism.family == "frequency":
        d = int(mechanism.d)
        bad = [v for v in values if not (float(v).is_integer() and 0 <= int(v) < d)]
        where = f"whole numbers from 0 to {d - 1}"
        values = [int(v) for v in values if v not in bad]
    else:
        lo, hi = mechanism.input_range()
        bad = [v for v in values if not (math.isfinite(float(v)) and lo <= float(v) <= hi)]
        where = f"numbers from {lo:g} to {hi:g}"
        values = [float(v) for v in values if v not in bad]
    if bad or len(values) < 2:
        shown = ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in bad)
        raise ParameterError(
            f"The inputs to compare must be at least two different {where}"
            + (f"; not {shown}." if bad else "."),
            code="ldp.bad_inputs",
            allowed=where,
        )
    return values


def audit_ob(
    mechanism: Mechanism,
    *,
    n: int = 40_000,
    inputs: Any = None,
    seed: int = 0,
    tau_d: float = 1e-4,
    tau_c: float = 0.05,
    floor_share: float = 0.01,
    density: str = "kde",
    bootstrap: int = 50,
    confidence: float = 0.95,
    progress: Progress | None = None,
) -> AuditReport:
    """Black-box OB-measure (seed 001 §3.4; see the module docstring).

    ``inputs``: None (all values when d ≤ 10, else t = max(⌈ln d⌉, 2) at random; five
    points spread over the range for mean mechanisms), "sample", or a list. ``density``
    "kde" or "histogram" for continuous outputs (both are also returned in details).
    ``tau_d``/``tau_c``: the "same distribution" thresholds (seed 001's text says
    0.0001, its formula 0.1 — **seed erratum**; here a parameter).
    """
    started = time.perf_counter()
    n = _check_n(n)
    if density not in ("kde", "histogram"):
        raise ParameterError("density must be 'kde' or 'histogram'.", code="ldp.bad_density")
    dev = device()
    gen = generator(seed, dev)
    chosen = _ob_inputs(mechanism, inputs, seed)
    columns = []
    for index, value in enumerate(chosen):
        _report(progress, 0.7 * index / len(chosen), f"OB: input {value}")
        vectors = [mechanism.vectors(o) for o in _run(mechanism, value, n, gen, dev)]
        columns.append(torch_module().cat(vectors, dim=0))
    continuous = mechanism.output_kind in ("real", "reals")
    joint = None
    if mechanism.output_kind == "bits":  # hashed outputs' support bits stay per coordinate
        columns, joint = _joint_symbols(columns, continuous, tau_d)
    halves = _split_distributions(columns, continuous, gen)
    dist = halves[1]
    _report(progress, 0.75, "OB: comparing distributions")
    result = _ob_from(
        halves,
        tau_d=tau_d,
        tau_c=tau_c,
        floor_share=floor_share,
        density=density,
        bootstrap=bootstrap,
        confidence=confidence,
        gen=gen,
        inputs=chosen,
    )
    if dist.kind == "continuous":
        other = "histogram" if density == "kde" else "kde"
        alt = _ob_from(
            halves,
            tau_d=tau_d,
            tau_c=tau_c,
            floor_share=floor_share,
            density=other,
            bootstrap=0,
            confidence=confidence,
            gen=gen,
            inputs=chosen,
        )
        result[f"epsilon_max_{other}"] = alt["epsilon_max"]
        result[f"densities_{other}"] = alt["densities"]
    result["joint"] = joint
    _report(progress, 1.0, "OB: done")
    return _ob_report(
        mechanism.describe(),
        mechanism.epsilon,
        result,
        dist,
        n,
        dev,
        confidence,
        started,
        density,
        tau_d,
        tau_c,
    )


def _distributions(
    columns: list[Any], continuous: bool, like: _Distributions | None = None
) -> _Distributions:
    """Per-input counts; ``like`` reuses another set's grid and bandwidths (continuous)
    or value range (discrete), so halves of one sample are comparable."""
    torch = torch_module()
    n = torch.tensor([c.shape[0] for c in columns], dtype=torch.float64, device=columns[0].device)
    if continuous:
        if like is None:
            counts, edges, bandwidth = _continuous_counts(columns)
        else:
            edges, bandwidth = like.edges, like.bandwidth
            counts = _binned(columns, edges)
        return _Distributions("continuous", counts, n, edges, bandwidth)
    codes = [c.long() for c in columns]
    m = int(max(int(c.max().item()) for c in codes)) + 1
    if like is not None:
        m = max(m, int(like.counts.shape[-1]))
    return _Distributions("discrete", _discrete_counts(codes, max(m, 2)), n)


def _ob_report(
    described: dict,
    claimed: float | None,
    result: dict,
    dist: _Distributions,
    n: int,
    dev: str,
    confidence: float,
    started: float,
    density: str,
    tau_d: float,
    tau_c: float,
) -> AuditReport:
    ci = result["ci_max"]
    details = {
        "inputs": result["inputs"],
        "epsilon_avg": result["epsilon_avg"],
        "ci_avg": result["ci_avg"],
        "worst_pair": result["worst_pair"],
        "disjoint_pairs": result["disjoint_pairs"],
        "floor": result["floor"],
        "output": dist.kind,
        "density": density if dist.kind == "continuous" else "pmf",
        "tau_d": tau_d,
        "tau_c": tau_c,
        "pairs": result["pairs"],
        "coordinate_leakage": result["coordinate_leakage"],
        "densities": result["densities"],
        "grid": result["grid"],
        "joint": result.get("joint"),
    }
    for key in ("epsilon_max_kde", "epsilon_max_histogram", "densities_kde", "densities_histogram"):
        if key in result:
            details[key] = result[key]
    return AuditReport(
        method="ob",
        mechanism=described,
        epsilon_claimed=claimed,
        epsilon_hat=result["epsilon_max"],
        ci=ci,
        epsilon_lb=None,
        verdict=verdict(claimed, interval=ci, certified=False),
        confidence=confidence,
        samples=n,
        device=dev,
        seconds=time.perf_counter() - started,
        details=details,
    )


# --------------------------------------------------------------------------- lower bound


def _bound(k_v: int, n_v: int, k_w: int, n_w: int, alpha: float) -> float:
    """ln(P_lower[S|v] / P_upper[S|w]) with one-sided Clopper–Pearson at α/2 each."""
    lower, _ = clopper_pearson(k_v, n_v, 1 - alpha / 2, side="lower")
    _, upper = clopper_pearson(k_w, n_w, 1 - alpha / 2, side="upper")
    return _log_ratio(lower, upper)


def lower_bound(
    mechanism: Mechanism,
    *,
    n: int = 1_000_000,
    seed: int = 0,
    alpha: float = 0.05,
    mode: str = "white",
    progress: Progress | None = None,
) -> AuditReport:
    """Certified ε_LB with confidence 1 − α (see the module docstring).

    ``mode`` "white": the mechanism's own likelihood-ratio event for its worst pair;
    "black": an event learned from half of the samples and counted on the other half.
    """
    started = time.perf_counter()
    n = _check_n(n)
    if not 0 < alpha < 0.5:
        raise ParameterError("alpha must be in (0, 0.5).", code="ldp.bad_alpha")
    dev = device()
    gen = generator(seed, dev)
    v, w = mechanism.worst_pair()
    if mode == "white":
        event = mechanism.event(v, w)
        _report(progress, 0.1, "Lower bound: first input")
        k_v = _count_event(mechanism, v, event, n, gen, dev)
        _report(progress, 0.55, "Lower bound: second input")
        k_w = _count_event(mechanism, w, event, n, gen, dev)
        bound = _bound(k_v, n, k_w, n, alpha)
        details = {
            "mode": "white",
            "inputs": [v, w],
            "event_counts": [k_v, k_w],
            "point_estimate": _log_ratio(k_v / n, k_w / n),
        }
    elif mode == "black":
        torch = torch_module()
        columns = []
        for index, value in enumerate((v, w)):
            _report(progress, 0.45 * index, f"Lower bound: input {value}")
            columns.append(
                torch.cat(
                    [mechanism.vectors(o) for o in _run(mechanism, value, n, gen, dev)], dim=0
                )
            )
        bound, details = _learned_bound(
            columns, mechanism.output_kind in ("real", "reals"), alpha, gen, [v, w]
        )
    else:
        raise ParameterError("mode must be 'white' or 'black'.", code="ldp.bad_mode")
    _report(progress, 1.0, "Lower bound: done")
    return AuditReport(
        method="lb",
        mechanism=mechanism.describe(),
        epsilon_claimed=mechanism.epsilon,
        epsilon_hat=None,
        ci=None,
        epsilon_lb=bound,
        verdict=verdict(mechanism.epsilon, lower=bound),
        confidence=1 - alpha,
        samples=n,
        device=dev,
        seconds=time.perf_counter() - started,
        details=details,
    )


def _codes_for(dist: _Distributions, columns: list[Any]) -> list[Any]:
    """Per sample and coordinate: the value code (discrete) or histogram bin."""
    if dist.kind == "discrete":
        return [c.long() for c in columns]
    lo = dist.edges[:, 0]
    width = (dist.edges[:, 1] - dist.edges[:, 0]) * _HIST_GROUP
    bins = _FINE_BINS // _HIST_GROUP
    return [((c.double() - lo) / width).floor().long().clamp(0, bins - 1) for c in columns]


def _differing_coordinates(a: Any, b: Any, p_value: float = 1e-3) -> Any:
    """Per coordinate: does a χ² test of homogeneity (2 × values table of counts)
    reject equal distributions at ``p_value``? All True when none does."""
    torch = torch_module()
    total = a + b
    n_a = a.sum(-1, keepdim=True)
    n_b = b.sum(-1, keepdim=True)
    share = total / torch.clamp(n_a + n_b, min=1)
    expected_a, expected_b = share * n_a, share * n_b
    used = total > 0
    statistic = torch.where(
        used,
        (a - expected_a) ** 2 / torch.clamp(expected_a, min=1e-12)
        + (b - expected_b) ** 2 / torch.clamp(expected_b, min=1e-12),
        0.0,
    )
    statistic = statistic.sum(-1)
    dof = torch.clamp(used.sum(-1) - 1, min=1)
    p = torch.as_tensor(stats.chi2.sf(statistic.cpu().numpy(), dof.cpu().numpy()), device=a.device)
    differs = p < p_value
    return differs if bool(differs.any()) else torch.ones_like(differs)


def _learned_bound(
    columns: list[Any], continuous: bool, alpha: float, gen: Any, labels: list[Any]
) -> tuple[float, dict[str, Any]]:
    """Learn a naive-Bayes log-likelihood-ratio event on half A, certify it on half B.

    Half A is cut in two again: the per-coordinate log-likelihood ratios are estimated
    on one quarter and the threshold is chosen on the other. Choosing the threshold on
    the scores the ratios were estimated from would favour cells whose estimates are
    high by chance — a rare event that looks better than it is (SHE at ε = 1: 2.6 % of
    the samples, certified 0.938, against 18 % and 0.971 with the extra split).

    Only output coordinates whose distributions differ between the two inputs on half A
    (χ² test of homogeneity, p < 0.001) enter the score: the others would only add
    estimation noise to it.
    """
    torch = torch_module()
    halves_a, halves_b = _split(columns, gen)
    learn, tune = _split(halves_a, gen)
    dist = _distributions(learn, continuous, like=_common_support(columns, continuous))
    if continuous:
        # learn on histogram bins: group the fine bins
        grouped = dist.counts.reshape(*dist.counts.shape[:2], -1, _HIST_GROUP).sum(-1)
        table_counts = grouped
    else:
        table_counts = dist.counts
    smoothed = (table_counts + 0.5) / (
        table_counts.sum(-1, keepdim=True) + 0.5 * table_counts.shape[-1]
    )
    llr = torch.log(smoothed[0] / smoothed[1])  # coordinates × values
    informative = _differing_coordinates(table_counts[0], table_counts[1])
    llr = torch.where(informative.unsqueeze(-1), llr, 0.0)

    def scores(samples: list[Any]) -> list[Any]:
        codes = _codes_for(dist, samples)
        out = []
        for code in codes:
            code = code.clamp(0, llr.shape[1] - 1)
            out.append(llr.gather(1, code.t()).sum(0))
        return out

    train_v, train_w = scores(tune)
    # thresholds at observed scores (interpolation "lower"), so {score ≥ t} is exact
    levels = torch.linspace(0.0, 0.999, 200, device=train_v.device, dtype=torch.float64)
    candidates = torch.quantile(train_v.double(), levels, interpolation="lower")
    best_t, best = None, -math.inf
    for t in torch.unique(candidates):
        k_v = int((train_v >= t).sum())
        k_w = int((train_w >= t).sum())
        value = _bound(k_v, len(train_v), k_w, len(train_w), alpha)
        if value > best:
            best, best_t = value, t
    test_v, test_w = scores(halves_b)
    k_v, k_w = int((test_v >= best_t).sum()), int((test_w >= best_t).sum())
    bound = _bound(k_v, len(test_v), k_w, len(test_w), alpha)
    return bound, {
        "mode": "black",
        "inputs": labels,
        "event_counts": [k_v, k_w],
        "training_bound": best,
        "threshold": float(best_t),
        "point_estimate": _log_ratio(k_v / len(test_v), k_w / len(test_w)),
    }


# --------------------------------------------------------------------------- uploaded samples


def audit_samples(
    frame: pd.DataFrame,
    input_column: str,
    output_columns: Sequence[str],
    *,
    claimed_epsilon: float,
    method: str = "ob",
    seed: int = 0,
    alpha: float = 0.05,
    density: str = "kde",
    bootstrap: int = 50,
    tau_d: float = 1e-4,
    tau_c: float = 0.05,
    floor_share: float = 0.01,
    progress: Progress | None = None,
) -> AuditReport:
    """Audit logged (input, output) pairs of any implementation, black-box.

    ``output_columns``: one column, or several (a vector output). Outputs with more than
    50 distinct numeric values per column are treated as continuous, others as
    discrete. "ob": the OB-measure over every observed input (at most 20, the most
    frequent); "lb": the learned-event lower bound for the pair of inputs whose OB
    estimate on half the data is largest.
    """
    started = time.perf_counter()
    torch = torch_module()
    if input_column not in frame.columns or any(c not in frame.columns for c in output_columns):
        missing = [c for c in [input_column, *output_columns] if c not in frame.columns]
        raise ParameterError(
            f"The samples have no column {', '.join(missing)}.",
            code="ldp.samples_columns",
            columns=missing,
        )
    if not output_columns:
        raise ParameterError("Name at least one output column.", code="ldp.samples_columns")
    if not (
        isinstance(claimed_epsilon, (int, float))
        and math.isfinite(claimed_epsilon)
        and claimed_epsilon > 0
    ):
        raise ParameterError(
            f"The claimed ε must be a number > 0 (got {claimed_epsilon}).",
            code="ldp.bad_epsilon",
            value=str(claimed_epsilon),
        )
    data = frame[[input_column, *output_columns]].dropna()
    counts = data[input_column].value_counts()
    inputs = list(counts.index[:20])
    if len(inputs) < 2:
        raise ParameterError(
            "The samples need at least two different inputs.", code="ldp.samples_inputs"
        )
    outputs = data[list(output_columns)]
    continuous = all(
        pd.api.types.is_numeric_dtype(outputs[c]) and outputs[c].nunique() > 50
        for c in output_columns
    )
    dev = device()
    gen = generator(seed, dev)
    if continuous:
        matrix = outputs.to_numpy(dtype=np.float64)
    else:
        matrix = np.stack([pd.factorize(outputs[c])[0] for c in output_columns], axis=1)
    labels = data[input_column].to_numpy()
    columns = [torch.as_tensor(matrix[labels == value], device=dev) for value in inputs]
    smallest = min(int(c.shape[0]) for c in columns)
    if smallest < 100:
        raise ParameterError(
            f"Each input needs at least 100 samples; one has {smallest}.",
            code="ldp.samples_too_few",
            smallest=smallest,
        )
    described = {
        "mechanism": "uploaded samples",
        "inputs": [_plain(v) for v in inputs],
        "outputs": list(output_columns),
        "rows": len(data),
    }
    _report(progress, 0.2, "Samples read")
    if method == "ob":
        columns, joint = _joint_symbols(columns, continuous, tau_d)
        halves = _split_distributions(columns, continuous, gen)
        _report(progress, 0.4, "OB: distributions and bootstrap")
        result = _ob_from(
            halves,
            tau_d=tau_d,
            tau_c=tau_c,
            floor_share=floor_share,
            density=density,
            bootstrap=bootstrap,
            confidence=1 - alpha,
            gen=gen,
            inputs=[_plain(v) for v in inputs],
        )
        result["joint"] = joint
        _report(progress, 1.0, "OB: done")
        return _ob_report(
            described,
            float(claimed_epsilon),
            result,
            halves[1],
            smallest,
            dev,
            1 - alpha,
            started,
            density,
            tau_d,
            tau_c,
        )
    if method != "lb":
        raise ParameterError(
            "method must be 'ob' or 'lb' for uploaded samples.", code="ldp.bad_method"
        )
    # Half A picks the pair of inputs (an OB pass split once more); half B learns and
    # certifies the event (split again inside _learned_bound).
    part_a, part_b = _split(columns, gen)
    _report(progress, 0.3, "LB: choosing the pair of inputs")
    chosen = _ob_from(
        _split_distributions(part_a, continuous, gen),
        tau_d=tau_d,
        tau_c=tau_c,
        floor_share=floor_share,
        density="histogram",
        bootstrap=0,
        confidence=1 - alpha,
        gen=gen,
        inputs=list(range(len(inputs))),
    )
    i, j = chosen["worst_pair"]
    pair = [part_b[i], part_b[j]]
    _report(progress, 0.6, "LB: learning and certifying the event")
    forward, details = _learned_bound(
        pair, continuous, alpha / 2, gen, [_plain(inputs[i]), _plain(inputs[j])]
    )
    backward, details_b = _learned_bound(
        pair[::-1], continuous, alpha / 2, gen, [_plain(inputs[j]), _plain(inputs[i])]
    )
    bound, details = (forward, details) if forward >= backward else (backward, details_b)
    _report(progress, 1.0, "LB: done")
    return AuditReport(
        method="lb",
        mechanism=described,
        epsilon_claimed=float(claimed_epsilon),
        epsilon_hat=None,
        ci=None,
        epsilon_lb=bound,
        verdict=verdict(float(claimed_epsilon), lower=bound),
        confidence=1 - alpha,
        samples=smallest,
        device=dev,
        seconds=time.perf_counter() - started,
        details=details,
    )


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


# --------------------------------------------------------------------------- sweep


def sweep(
    make: Callable[[float], Mechanism],
    epsilons: Sequence[float],
    *,
    methods: Sequence[str] = ("ab", "ob", "lb"),
    n_ab: int = 100_000,
    n_ob: int = 40_000,
    n_lb: int = 200_000,
    seed: int = 0,
    progress: Progress | None = None,
) -> pd.DataFrame:
    """Audit one mechanism over a list of ε: one row per ε with the claimed value, the
    true ε, and each method's estimate (with interval) or bound."""
    rows = []
    for index, epsilon in enumerate(epsilons):
        _report(progress, index / max(len(epsilons), 1), f"Sweep: ε = {epsilon}")
        mechanism = make(float(epsilon))
        row: dict[str, Any] = {"epsilon": float(epsilon), "true_epsilon": mechanism.true_epsilon()}
        if "ab" in methods:
            ab = audit_ab(mechanism, n=n_ab, seed=seed)
            row.update({"ab": ab.epsilon_hat, "ab_lo": ab.ci[0], "ab_hi": ab.ci[1]})
        if "ob" in methods:
            ob = audit_ob(mechanism, n=n_ob, seed=seed, bootstrap=20)
            row.update(
                {
                    "ob": ob.epsilon_hat,
                    "ob_lo": (ob.ci or (None, None))[0],
                    "ob_hi": (ob.ci or (None, None))[1],
                }
            )
        if "lb" in methods:
            lb = lower_bound(mechanism, n=n_lb, seed=seed)
            row.update({"lb": lb.epsilon_lb, "verdict": lb.verdict})
        rows.append(row)
    _report(progress, 1.0, "Sweep: done")
    return pd.DataFrame(rows)
