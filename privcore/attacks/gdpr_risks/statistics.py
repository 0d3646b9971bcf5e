"""The statistics of the three attacks: success rates, the residual risk and its
interval, the baseline, and the singling-out control-size correction.

Each success rate is the centre of the Wilson (1927) score interval of s successes in n
attacks, with z = Φ⁻¹((1 + confidence)/2) (1.96 at 95 %):

    r = (s + z²/2) / (n + z²),    e = z / (n + z²) · √(s·(n − s)/n + z²/4).

Only the attack's excess success on training records over control records is a privacy
risk (Giomi, Boenisch, Wehmeyer & Tasnádi, PoPETs 2023(2), eq. 1):

    risk = (r_train − r_control) / (1 − r_control),

its error propagated to first order:

    e_risk = √( (e_train / (1 − r_control))² + (e_control · (r_train − 1) / (1 − r_control)²)² ).

The risk and its interval [risk − e_risk, risk + e_risk] are clipped to [0, 1]. The
**baseline** is the success rate of a naive attacker who guesses at random (its own
interval likewise); an attack that does no better than it measures nothing (warning
``attack_not_better_than_baseline``).

Control-size correction (singling out): whether a predicate singles out depends on the
size of the table, so when the control set has another size than the training set (after
duplicates are dropped) the control count is scaled by f(n_train)/f(n_control), f the
model of Anonymeter (after Cohen & Nissim 2020): a predicate of weight x singles out one
of n records with chance n·x·(1 − x)^(n−1); weights uniform on [0, w] give
f(n) = a·I(n, w), I(n, w) = (1 − (n·w + 1)(1 − w)^n)/(n + 1). It is fitted by least
squares to the expected number of the predicates that single out in a sample of n control
rows, at 10 sizes from 1,000 rows (half the control set when that is smaller) to the
whole set. Anonymeter counts each size on five random samples; here the expectation is
exact — a predicate matching m of N control rows matches exactly one of n rows drawn
without replacement with the hypergeometric chance P(1; N, m, n). The corrected count is
kept within [0, n_attacks]. (Anonymeter 1.1's own fit counts the wrong thing and scales by
(n_control + 1)/(n_train + 1) whatever the predicates: see :func:`_size_correction`.)

This is the only module of the attacks that imports scipy (the command line imports it
when a command needs these figures).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import optimize, stats

from privcore.attacks.gdpr_risks.inputs import _check_confidence
from privcore.attacks.gdpr_risks.results import RiskResult
from privcore.errors import ParameterError

_FIT_SIZES = 10  # control sample sizes of the size correction, as Anonymeter
_FIT_SMALLEST = 1000
_LOG_W_LOW, _LOG_W_STEPS = -12.0, 1201  # grid of log10 w for the size correction


@dataclass(frozen=True)
class Rate:
    """A success rate (the Wilson score centre) and the half-width of its interval."""

    value: float
    error: float

    def bounded(self) -> tuple[float, tuple[float, float]]:
        """(value, (value − error, value + error)), each clipped to [0, 1]."""

        def clip(x: float) -> float:
            return min(max(x, 0.0), 1.0)

        return clip(self.value), (clip(self.value - self.error), clip(self.value + self.error))


def _z(confidence: float) -> float:
    return float(stats.norm.ppf(0.5 * (1.0 + confidence)))


def success_rate(n_success: float, n_total: int, confidence: float = 0.95) -> Rate:
    """Wilson (1927) score estimate of a success rate from ``n_success`` of ``n_total``
    trials: centre (s + z²/2)/(n + z²), half-width z/(n + z²)·√(s(n − s)/n + z²/4), with
    z = Φ⁻¹((1 + confidence)/2). ``n_success`` may be fractional (a corrected count)."""
    _check_confidence(confidence)
    if n_total < 1:
        raise ParameterError(
            f"The number of attacks must be a whole number ≥ 1, not {n_total!r}.",
            code="gdpr_risk.bad_n_attacks",
            value=str(n_total),
            minimum=1,
        )
    z = _z(confidence)
    s = min(max(float(n_success), 0.0), float(n_total))
    denominator = n_total + z * z
    centre = (s + 0.5 * z * z) / denominator
    error = z / denominator * math.sqrt(s * (n_total - s) / n_total + 0.25 * z * z)
    return Rate(centre, error)


def residual_rate(attack: Rate, control: Rate) -> Rate:
    """Excess success on training records over control records, normalized by what the
    control attack left to gain: (a − c)/(1 − c), its error propagated to first order
    (√((e_a/(1 − c))² + (e_c·(a − 1)/(1 − c)²)²)); Giomi et al. 2023, eq. 1."""
    gap = 1.0 - control.value  # the Wilson centre is < 1: never zero
    value = (attack.value - control.value) / gap
    error = math.hypot(attack.error / abs(gap), control.error * (attack.value - 1.0) / gap**2)
    return Rate(value, error)


def _result(
    attack: str,
    *,
    n_attacks: int,
    n_success: int,
    n_control: float,
    n_baseline: int,
    n_baseline_attacks: int | None = None,
    confidence: float,
    parameters: Mapping[str, Any],
    warnings: Sequence[str] = (),
) -> RiskResult:
    """One attack's outcome from its counts: the Wilson rates of ``n_success`` and
    ``n_control`` of ``n_attacks`` and of ``n_baseline`` of ``n_baseline_attacks`` (by
    default ``n_attacks``: the naive attacker tries as often as the attack), the
    residual risk of the first two, each clipped to [0, 1] (module docs); the warning
    ``attack_not_better_than_baseline`` joins ``warnings`` when the naive attacker's rate
    is at least the attack's."""
    on_training = success_rate(n_success, n_attacks, confidence)
    on_control = success_rate(n_control, n_attacks, confidence)
    if n_baseline_attacks is None:
        n_baseline_attacks = n_attacks
    naive = success_rate(n_baseline, n_baseline_attacks, confidence)
    risk, ci = residual_rate(on_training, on_control).bounded()
    baseline, baseline_ci = naive.bounded()
    notes = list(warnings)
    if naive.value >= on_training.value:
        notes.append("attack_not_better_than_baseline")
    return RiskResult(
        attack=attack,
        risk=risk,
        ci=ci,
        baseline=baseline,
        baseline_ci=baseline_ci,
        attack_rate=on_training.value,
        control_rate=on_control.value,
        n_attacks=int(n_attacks),
        n_success=int(n_success),
        n_control=float(min(max(n_control, 0.0), n_attacks)),
        n_baseline=int(n_baseline),
        n_baseline_attacks=int(n_baseline_attacks),
        confidence=confidence,
        parameters=dict(parameters),
        warnings=tuple(notes),
    )


def _singling_out_integral(n: np.ndarray | float, w: np.ndarray | float) -> np.ndarray:
    """∫₀^w n·x·(1 − x)^(n−1) dx = (1 − (n·w + 1)(1 − w)^n)/(n + 1): the chance that a
    predicate whose weight is uniform on [0, w] singles out one of n records (computed
    as −expm1(log1p(n·w) + n·log1p(−w))/(n + 1), exact also for tiny n·w)."""
    n = np.asarray(n, dtype=np.float64)
    with np.errstate(divide="ignore"):  # w = 1: log1p(−1) = −∞, the limit 1/(n + 1)
        return -np.expm1(np.log1p(n * w) + n * np.log1p(-w)) / (n + 1.0)


def _size_correction(matches: np.ndarray, n_control: int, n_train: int) -> float:
    """f(n_train)/f(n_control) for the least-squares fit f(n) = a·I(n, w) of the expected
    number of predicates that single out in samples of n control rows (module docs).

    The scale a is linear: for each w its best value is Σ y·I / Σ I², so the fit is a
    search over w alone — on a grid of log₁₀ w from −12 to 0 (step 0.01), refined by a
    bounded scalar minimization around the best grid point. When the best w is the grid's
    least, the counts grow linearly and the factor is that of I at w → 0 (n_train/n_control).

    Anonymeter 1.1 means to fit the same model, but at each sample size it records the
    number of predicates it evaluated (``len`` of the per-predicate counts), not the
    number that single out: it fits a constant, its fit ends at w = 1 where
    I = 1/(n + 1), and its factor is (n_control + 1)/(n_train + 1) whatever the
    predicates — about 0.24 for 2,000 control and 8,500 training records, where the
    counts really grow with n (factor ≈ 1.7). It so shrinks the control successes and
    overstates the risk whenever the control set is the smaller."""
    smallest = _FIT_SMALLEST if n_control > _FIT_SMALLEST else max(1, n_control // 2)
    sizes = np.linspace(smallest, n_control, _FIT_SIZES).astype(np.int64).astype(np.float64)
    expected = stats.hypergeom.pmf(1, n_control, matches[None, :], sizes[:, None]).sum(axis=1)

    def misfits(log_w: np.ndarray) -> np.ndarray:
        shapes = _singling_out_integral(sizes[None, :], 10.0 ** np.atleast_1d(log_w)[:, None])
        norms = (shapes * shapes).sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            scales = np.where(norms > 0, shapes @ expected / norms, 0.0)
        return ((expected[None, :] - scales[:, None] * shapes) ** 2).sum(axis=1)

    def misfit(log_w: float) -> float:
        return float(misfits(np.array([log_w]))[0])

    grid = np.linspace(_LOG_W_LOW, 0.0, _LOG_W_STEPS)
    on_grid = misfits(grid)
    best = int(np.argmin(on_grid))
    low, high = grid[max(best - 1, 0)], grid[min(best + 1, len(grid) - 1)]
    log_w = grid[best]
    if high > low:
        refined = optimize.minimize_scalar(misfit, bounds=(low, high), method="bounded")
        if refined.success and refined.fun <= on_grid[best]:
            log_w = float(refined.x)
    w = 10.0**log_w
    return float(_singling_out_integral(n_train, w) / _singling_out_integral(n_control, w))
