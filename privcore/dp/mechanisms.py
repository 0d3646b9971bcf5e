"""Central differential-privacy mechanisms (SPEC §10): Laplace, discrete Laplace, Gaussian
(analytic and ρ-zCDP) and the exponential mechanism.

One function per family, each adding noise to a true answer ``value`` computed on the whole
data set (a scalar or an array of cells, e.g. a histogram). Every sampler takes ``rng``: a
:class:`numpy.random.Generator`, or a seed (int) from which one is made, or ``None`` for
fresh entropy. Parameters are validated in one place (:func:`check_epsilon`,
:func:`check_delta`, :func:`check_sensitivity`, :func:`check_rho`); a user's mistake raises
:class:`~privcore.errors.ParameterError` with codes ``dp.bad_epsilon``, ``dp.bad_delta``,
``dp.bad_sensitivity``, ``dp.bad_rho``; ε above :data:`MAX_EPSILON` raises
``dp.epsilon_too_large`` (below :data:`MIN_EPSILON`, asked for by a user,
``dp.epsilon_too_small``) and a noise scale above :data:`MAX_NOISE_SCALE`
``dp.noise_too_large``: outside these bounds the samplers' arithmetic is not exact.

Neighbouring data sets differ by adding or removing one person's record (SPEC §10); the
sensitivities passed here are derived from the query by :mod:`privcore.dp.queries`.

**Floating point.** A textbook sampler, value + Lap(b) or value + N(0, σ²) computed in
doubles, leaks through the low-order bits of its output: the set of doubles it can return
depends on the true value (Mironov 2012, "On significance of the least significant bits
for differential privacy", CCS). With a true answer 0 the outputs near 0 are arbitrary
tiny doubles; with a true answer 1 they are 1 + Y rounded, always multiples of 2⁻⁵³, so
one output can tell the two apart. Every sampler here therefore returns values on a grid
that does not depend on the input: integers (:func:`discrete_laplace`), or multiples of a
power of two γ (:func:`laplace`, :func:`gaussian`, :func:`gaussian_zcdp`), as OpenDP
does. The true value is rounded to the grid and an integer noise, drawn exactly on the
integers, is added in units of γ; every step is exact in double precision.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy.special import log_ndtr, ndtr, ndtri

from privcore.errors import ParameterError

__all__ = [
    "GRID_BITS",
    "MAX_EPSILON",
    "MAX_NOISE_SCALE",
    "MIN_EPSILON",
    "analytic_gaussian_sigma",
    "check_delta",
    "check_epsilon",
    "check_request_epsilon",
    "check_rho",
    "check_sensitivity",
    "discrete_laplace",
    "discrete_laplace_half_width",
    "discrete_laplace_pmf",
    "discrete_laplace_variance",
    "exponential",
    "exponential_probabilities",
    "gaussian",
    "gaussian_half_width",
    "gaussian_zcdp",
    "generator",
    "grid_step",
    "laplace",
    "laplace_half_width",
    "laplace_scale",
    "zcdp_sigma",
    "zcdp_to_approx",
]

RngLike = np.random.Generator | int | None

GRID_BITS = 12
"""The output grid of :func:`laplace` and :func:`gaussian` is at least 2^GRID_BITS times
finer than the noise scale and than the sensitivity (:func:`grid_step`)."""

MAX_EPSILON = 1000
"""The largest ε :func:`check_epsilon` accepts. Above it an answer protects nothing (e^ε
> 10^434: any prior above 10^-300 becomes a posterior of 1 in double precision), and the
arithmetic of the samplers stops being exact: the Laplace grid γ is about b/2^13 with
b = Δ/ε, so the true answer in units of γ, |v|/γ ≤ n·Δ/γ ≈ n·2^13·ε for a query on n
rows (|v| ≤ n·Δ), stays below 2^53 — every integer exact in a double — for tables of up
to 2^30 rows only while ε ≤ 1000. (At ε ≈ 709.8 e^ε itself overflows a double.)"""

MIN_EPSILON = 1e-6
"""The smallest ε a request accepts (:func:`check_request_epsilon`): below it the noise
is more than a million times the sensitivity, every answer is noise, and ε near the
double's smallest numbers (5e-324) makes Δ/ε infinite and 1 − e^(−ε/Δ) zero. The library
functions take smaller ε (a mean or a release splits a request's ε in parts) as long as
the noise scale stays below :data:`MAX_NOISE_SCALE`."""

MAX_NOISE_SCALE = 2**40
"""The largest noise scale (b = Δ/ε of the Laplace and geometric mechanisms, σ of the
Gaussian ones) that is sampled: at b = 2^40 an integer noise reaches 2^53, where doubles
stop holding every integer (answers, intervals and means are doubles), with probability
e^(−2^13) — never — and the 64-bit integers of the geometric sampler cannot overflow.
A larger scale raises ``dp.noise_too_large``."""


# --------------------------------------------------------------------------- validation


def _as_float(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def check_epsilon(epsilon: Any) -> float:
    """ε as a float: finite and > 0, else ParameterError ``dp.bad_epsilon``; at most
    :data:`MAX_EPSILON`, else ``dp.epsilon_too_large``."""
    value = _as_float(epsilon)
    if not math.isfinite(value) or value <= 0:
        raise ParameterError(
            f"ε must be a finite number > 0 (ε ≤ 0 gives no privacy guarantee), got {epsilon!r}.",
            code="dp.bad_epsilon",
            epsilon=epsilon,
        )
    if value > MAX_EPSILON:
        raise ParameterError(
            f"ε = {value:g} is above {MAX_EPSILON:g}, the largest ε accepted: such an ε "
            "protects nothing, and the noise could not be sampled exactly.",
            code="dp.epsilon_too_large",
            epsilon=value,
            limit=MAX_EPSILON,
        )
    return value


def check_request_epsilon(epsilon: Any) -> float:
    """ε asked for by a user (a request, a page): :func:`check_epsilon`, and at least
    :data:`MIN_EPSILON`, else ParameterError ``dp.epsilon_too_small``."""
    value = check_epsilon(epsilon)
    if value < MIN_EPSILON:
        raise ParameterError(
            f"ε = {value:g} is below {MIN_EPSILON:g}, the smallest ε accepted: the noise "
            "would be more than a million times the sensitivity, every answer only noise.",
            code="dp.epsilon_too_small",
            epsilon=value,
            limit=MIN_EPSILON,
        )
    return value


def _check_scale(scale: float) -> float:
    """``scale`` (b = Δ/ε or σ) when it is at most :data:`MAX_NOISE_SCALE`, else
    ParameterError ``dp.noise_too_large``."""
    if not scale <= MAX_NOISE_SCALE:  # also catches inf and nan
        raise ParameterError(
            f"The noise scale {scale:g} (the sensitivity divided by ε) is above "
            f"{MAX_NOISE_SCALE:g}, the largest that is sampled exactly: use a larger ε or a "
            "smaller sensitivity (a narrower clamping range).",
            code="dp.noise_too_large",
            scale=scale,
            limit=MAX_NOISE_SCALE,
        )
    return scale


def check_delta(delta: Any) -> float:
    """δ as a float strictly between 0 and 1, else ParameterError ``dp.bad_delta``."""
    value = _as_float(delta)
    if not (0.0 < value < 1.0):
        raise ParameterError(
            f"δ must be a number strictly between 0 and 1 (for example 1e-6), got {delta!r}.",
            code="dp.bad_delta",
            delta=delta,
        )
    return value


def check_rho(rho: Any) -> float:
    """ρ (zero-concentrated DP) as a float: finite and > 0, else ParameterError ``dp.bad_rho``."""
    value = _as_float(rho)
    if not math.isfinite(value) or value <= 0:
        raise ParameterError(
            f"ρ (zero-concentrated DP) must be a finite number > 0, got {rho!r}.",
            code="dp.bad_rho",
            rho=rho,
        )
    return value


def check_sensitivity(sensitivity: Any, *, integer: bool = False) -> float:
    """Δ as a float: finite and > 0 (a positive integer when ``integer``), else
    ParameterError ``dp.bad_sensitivity``."""
    value = _as_float(sensitivity)
    if not math.isfinite(value) or value <= 0:
        raise ParameterError(
            f"The sensitivity must be a finite number > 0, got {sensitivity!r}.",
            code="dp.bad_sensitivity",
            sensitivity=sensitivity,
        )
    if integer and value != math.floor(value):
        raise ParameterError(
            "The discrete (geometric) mechanism needs an integer sensitivity, "
            f"got {sensitivity!r}.",
            code="dp.bad_sensitivity",
            sensitivity=sensitivity,
        )
    return value


def generator(rng: RngLike) -> np.random.Generator:
    """``rng`` itself when it is a Generator, else ``numpy.random.default_rng(rng)``."""
    if isinstance(rng, np.random.Generator):
        return rng
    return np.random.default_rng(rng)


def _noise_shape(value: Any, size: int | Sequence[int] | None) -> tuple[int, ...]:
    if size is None:
        return np.shape(value)
    return (size,) if isinstance(size, (int, np.integer)) else tuple(size)


def _scalar_if_0d(result: np.ndarray) -> Any:
    return result.item() if result.ndim == 0 else result


def _confidence(beta: float) -> float:
    value = _as_float(beta)
    if not (0.0 < value < 1.0):
        raise ParameterError(
            f"The error probability β must be strictly between 0 and 1, got {beta!r}.",
            code="dp.bad_beta",
            beta=beta,
        )
    return value


# --------------------------------------------------------------------------- output grid


def grid_step(scale: float, sensitivity: float) -> float:
    """γ = 2^(⌊log₂ min(scale, Δ)⌋ − 12): the spacing of the outputs of :func:`laplace`
    (scale b = Δ₁/ε) and of the Gaussian samplers (scale σ).

    A power of two, so that multiplying an integer by γ and adding two multiples of γ are
    exact in double precision (below 2⁵³·γ). γ ≤ 2⁻¹²·scale: the noise on the grid is
    2¹² steps or more per scale unit, as in OpenDP's samplers (OpenDP takes
    2^(⌊log₂ scale⌋ − 12)). γ ≤ 2⁻¹²·Δ as well: rounding a real-valued answer to the grid
    adds γ to the sensitivity (see :func:`laplace`), which then costs at most a factor
    1 + 2⁻¹² of noise; and for Δ < 2¹² every integer is on the grid (γ ≤ 1 divides it).
    ``math.frexp`` gives ⌊log₂ x⌋ exactly (x = m·2^e with m in [½, 1), so ⌊log₂ x⌋ = e − 1).
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


def _on_grid(value: Any, step: float) -> tuple[np.ndarray, bool]:
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


def _grid_sensitivity(sensitivity: float, step: float, exact: bool) -> float:
    """Δ' = Δ on an exact grid, else Δ + γ: rounding each of two neighbouring answers to
    the nearest multiple of γ moves each by at most γ/2."""
    return sensitivity if exact else sensitivity + step


def _two_sided_geometric(p: float, shape: tuple[int, ...], gen: np.random.Generator) -> Any:
    """Z = G₁ − G₂ with G₁, G₂ independent geometric of success probability p: the
    discrete Laplace law P(Z = z) = (1 − q)/(1 + q)·q^|z| with q = 1 − p (Inusah &
    Kozubowski 2006)."""
    return gen.geometric(p, size=shape) - gen.geometric(p, size=shape)


# --------------------------------------------------------------------------- Laplace


def laplace_scale(sensitivity: float, epsilon: float) -> float:
    """b = Δ₁/ε: the scale of the Laplace noise that makes a query of L1 sensitivity Δ₁ ε-DP
    (Dwork, McSherry, Nissim & Smith 2006). At most :data:`MAX_NOISE_SCALE`, else
    ParameterError ``dp.noise_too_large``."""
    return _check_scale(check_sensitivity(sensitivity) / check_epsilon(epsilon))


def laplace_half_width(sensitivity: float, epsilon: float, beta: float = 0.05) -> float:
    """(Δ₁/ε)·ln(1/β): |noise| exceeds it with probability exactly β, since
    P(|Lap(b)| > t) = e^(−t/b)."""
    return laplace_scale(sensitivity, epsilon) * math.log(1.0 / _confidence(beta))


def laplace(
    value: Any,
    sensitivity: float,
    epsilon: float,
    *,
    size: int | Sequence[int] | None = None,
    rng: RngLike = None,
) -> Any:
    """value + Lap(Δ₁/ε) on a grid: ε-DP for a query of L1 sensitivity Δ₁ (Dwork et al.
    2006), with outputs whose bits do not depend on the true value (Mironov 2012).

    The output is v̄ + γ·Z, with γ = :func:`grid_step` (b, Δ₁), b = Δ₁/ε, v̄ the true value
    rounded to the nearest multiple of γ, and Z discrete Laplace on the integers,
    P(Z = z) ∝ exp(−ε·γ·|z|/Δ'), drawn as a difference of two geometric variables (as
    :func:`discrete_laplace`). Its density per unit is that of Lap(b) sampled every γ
    (γ ≤ b/4096). Δ' is the sensitivity of the gridded query: Δ₁ when the query is
    integer-valued (integer ``value``) and γ ≤ 1, so that rounding is exact; otherwise
    Δ₁ + γ (the rounding moves each of two neighbouring answers by up to γ/2, and
    γ ≤ Δ₁/4096, so the noise grows by a factor of at most 1 + 2⁻¹²). Then
    P(v̄ + γZ = o)/P(v̄' + γZ = o) ≤ exp(ε·|v̄ − v̄'|/Δ') ≤ e^ε. Every output is an exact
    multiple of γ, the same set for every input (OpenDP's Laplace works the same way).

    ``value`` may be an array (one independent noise per cell); ``size`` draws that many
    independent noisy answers. For integer queries :func:`discrete_laplace` gives integer
    answers directly.
    """
    sensitivity = check_sensitivity(sensitivity)
    scale = laplace_scale(sensitivity, epsilon)
    step = grid_step(scale, sensitivity)
    units, exact = _on_grid(value, step)
    effective = _grid_sensitivity(sensitivity, step, exact)
    p = -math.expm1(-check_epsilon(epsilon) * step / effective)
    noise = _two_sided_geometric(p, _noise_shape(value, size), generator(rng))
    return _scalar_if_0d((units + noise) * step)


# --------------------------------------------------------------------------- discrete Laplace


def _discrete_q(sensitivity: float, epsilon: float) -> float:
    """q = exp(−ε/Δ₁), for a scale Δ₁/ε of at most :data:`MAX_NOISE_SCALE` (so q < 1)."""
    sensitivity = check_sensitivity(sensitivity, integer=True)
    epsilon = check_epsilon(epsilon)
    _check_scale(sensitivity / epsilon)
    return math.exp(-epsilon / sensitivity)


def discrete_laplace_pmf(z: Any, sensitivity: int, epsilon: float) -> Any:
    """P(Z = z) = (1 − q)/(1 + q)·q^|z| with q = exp(−ε/Δ₁) (two-sided geometric)."""
    q = _discrete_q(sensitivity, epsilon)
    z = np.abs(np.asarray(z, dtype=float))
    return _scalar_if_0d((1.0 - q) / (1.0 + q) * np.power(q, z))


def discrete_laplace_variance(sensitivity: int, epsilon: float) -> float:
    """Var Z = 2q/(1 − q)² with q = exp(−ε/Δ₁)."""
    q = _discrete_q(sensitivity, epsilon)
    return 2.0 * q / (1.0 - q) ** 2


def discrete_laplace_half_width(sensitivity: int, epsilon: float, beta: float = 0.05) -> int:
    """The smallest integer k with P(|Z| > k) ≤ β.

    P(|Z| ≥ m) = 2q^m/(1 + q) for m ≥ 1, so k = max(0, ⌈ln(β(1+q)/2)/ln q⌉ − 1).
    """
    q = _discrete_q(sensitivity, epsilon)
    beta = _confidence(beta)
    if q == 0.0:
        return 0
    k = max(0, math.ceil(math.log(beta * (1.0 + q) / 2.0) / math.log(q)) - 1)
    # guard the ceiling against rounding at an exact boundary
    while 2.0 * q ** (k + 1) / (1.0 + q) > beta:
        k += 1
    while k > 0 and 2.0 * q**k / (1.0 + q) <= beta:
        k -= 1
    return k


def discrete_laplace(
    value: Any,
    sensitivity: int,
    epsilon: float,
    *,
    size: int | Sequence[int] | None = None,
    rng: RngLike = None,
) -> Any:
    """value + Z with P(Z = z) ∝ exp(−ε|z|/Δ₁): the discrete Laplace (two-sided geometric)
    mechanism, ε-DP for an integer query of integer L1 sensitivity Δ₁ (Ghosh, Roughgarden &
    Sundararajan 2009).

    Z is drawn as the difference of two independent geometric variables with success
    probability p = 1 − exp(−ε/Δ₁) (Inusah & Kozubowski 2006), so the output is an exact
    integer (NumPy's geometric sampler inverts in floating point, so the probabilities are
    those of the formula to float precision; what matters below is that the set of possible
    outputs, the integers, is the same for every input). Counts use this mechanism because
    floating-point Laplace leaks: Mironov 2012
    ("On significance of the least significant bits for differential privacy", CCS) shows
    that the set of doubles a textbook Laplace sampler can return depends on the true
    answer, so the low-order bits of one output can reveal it. An integer output has no
    such bits.
    """
    check_sensitivity(sensitivity, integer=True)
    if not np.all(np.equal(np.mod(value, 1), 0)):
        raise ParameterError(
            "The discrete (geometric) mechanism adds noise to integers; "
            "use the Laplace mechanism for real-valued answers.",
            code="dp.not_integer",
        )
    epsilon = check_epsilon(epsilon)
    _check_scale(float(sensitivity) / epsilon)
    p = -math.expm1(-epsilon / float(sensitivity))
    noise = _two_sided_geometric(p, _noise_shape(value, size), generator(rng))
    return _scalar_if_0d(np.asarray(value, dtype=np.int64) + noise)


# --------------------------------------------------------------------------- Gaussian


def _e_eps_phi(epsilon: float, x: float) -> float:
    """e^ε·Φ(x), computed in log space so that large ε does not overflow."""
    return math.exp(epsilon + float(log_ndtr(x)))


def analytic_gaussian_sigma(l2_sensitivity: float, epsilon: float, delta: float) -> float:
    """The smallest σ for which value + N(0, σ²) is (ε, δ)-DP: the analytic Gaussian mechanism
    (Balle & Wang 2018, "Improving the Gaussian mechanism for differential privacy", ICML,
    Algorithm 1).

    σ solves Φ(Δ/(2σ) − εσ/Δ) − e^ε·Φ(−Δ/(2σ) − εσ/Δ) = δ (their Theorem 8). Algorithm 1
    solves it through v: with δ₀ = Φ(0) − e^ε·Φ(−√(2ε)),
    if δ ≥ δ₀, v* = sup{v ≥ 0 : B⁺(v) ≤ δ} with B⁺(v) = Φ(√(εv)) − e^ε·Φ(−√(ε(v+2))) and
    α = √(1 + v*/2) − √(v*/2); otherwise v* = inf{v ≥ 0 : B⁻(v) ≤ δ} with
    B⁻(v) = Φ(−√(εv)) − e^ε·Φ(−√(ε(v+2))) and α = √(1 + v*/2) + √(v*/2); then
    σ = α·Δ/√(2ε). B⁺ increases and B⁻ decreases in v, so v* is found by bisection.
    Valid for every ε > 0 (the classical σ = Δ·√(2 ln(1.25/δ))/ε needs ε < 1).
    """
    sensitivity = check_sensitivity(l2_sensitivity)
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    delta_0 = 0.5 - _e_eps_phi(epsilon, -math.sqrt(2.0 * epsilon))
    if delta >= delta_0:

        def excess(v: float) -> float:  # increasing in v
            return (
                float(ndtr(math.sqrt(epsilon * v)))
                - _e_eps_phi(epsilon, -math.sqrt(epsilon * (v + 2.0)))
                - delta
            )

        sign = -1.0
    else:

        def excess(v: float) -> float:  # decreasing in v, negated to increase
            return -(
                float(ndtr(-math.sqrt(epsilon * v)))
                - _e_eps_phi(epsilon, -math.sqrt(epsilon * (v + 2.0)))
                - delta
            )

        sign = 1.0
    low, high = 0.0, 1.0
    while excess(high) < 0.0:
        low, high = high, 2.0 * high
        if high > 1e300:  # pragma: no cover - B± reach every δ in (0, 1) long before
            raise ParameterError(
                "No Gaussian noise scale reaches this (ε, δ).", code="dp.bad_delta", delta=delta
            )
    for _ in range(200):
        middle = 0.5 * (low + high)
        if middle in (low, high):
            break
        if excess(middle) < 0.0:
            low = middle
        else:
            high = middle
    v_star = 0.5 * (low + high)
    if sign < 0:
        # √(1 + v/2) − √(v/2), written without the cancellation that makes it 0 at a
        # tiny ε (v* near 1/ε)
        alpha = 1.0 / (math.sqrt(1.0 + v_star / 2.0) + math.sqrt(v_star / 2.0))
    else:
        alpha = math.sqrt(1.0 + v_star / 2.0) + math.sqrt(v_star / 2.0)
    return alpha * sensitivity / math.sqrt(2.0 * epsilon)


def gaussian_half_width(sigma: float, beta: float = 0.05) -> float:
    """σ·Φ⁻¹(1 − β/2): |N(0, σ²)| exceeds it with probability exactly β."""
    return float(sigma) * float(ndtri(1.0 - _confidence(beta) / 2.0))


def gaussian(
    value: Any,
    l2_sensitivity: float,
    epsilon: float,
    delta: float,
    *,
    size: int | Sequence[int] | None = None,
    rng: RngLike = None,
) -> Any:
    """value + N(0, σ²) on a grid, σ = :func:`analytic_gaussian_sigma` (Δ₂, ε, δ):
    (ε, δ)-DP for a query of L2 sensitivity Δ₂ (Balle & Wang 2018), with outputs whose
    bits do not depend on the true value (Mironov 2012).

    As :func:`laplace`: the output is v̄ + γ·Z with γ = :func:`grid_step` (σ, Δ₂), v̄ the
    value rounded to the grid, and Z a discrete Gaussian on the integers,
    P(Z = z) ∝ exp(−z²/(2(σ'/γ)²)) (Canonne, Kamath & Steinke 2020, sampled by their
    Algorithm 3: :func:`_discrete_gaussian`). σ' is σ computed for the sensitivity of the
    gridded query, Δ₂ (integer query, γ ≤ 1) or Δ₂ + γ (σ is proportional to Δ₂, so
    σ' = σ·(Δ₂ + γ)/Δ₂ ≤ σ·(1 + 2⁻¹²)). The discrete Gaussian keeps the continuous one's
    ρ-zCDP exactly (ibid., Theorem 4) and, at σ'/γ ≥ 2¹², its (ε, δ) curve (Theorem 7)
    agrees with the continuous one's to within rounding.
    """
    sensitivity = check_sensitivity(l2_sensitivity)
    sigma = analytic_gaussian_sigma(sensitivity, epsilon, delta)
    return _gridded_gaussian(value, sensitivity, sigma, size, rng)


def _gridded_gaussian(
    value: Any,
    sensitivity: float,
    sigma: float,
    size: int | Sequence[int] | None,
    rng: RngLike,
) -> Any:
    """v̄ + γ·Z with Z discrete Gaussian of σ'/γ (see :func:`gaussian`)."""
    step = grid_step(_check_scale(sigma), sensitivity)
    units, exact = _on_grid(value, step)
    sigma_on_grid = sigma * _grid_sensitivity(sensitivity, step, exact) / sensitivity
    noise = _discrete_gaussian(sigma_on_grid / step, _noise_shape(value, size), generator(rng))
    return _scalar_if_0d((units + noise) * step)


def _discrete_gaussian(
    sigma: float, shape: tuple[int, ...], gen: np.random.Generator
) -> np.ndarray:
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
        candidates = _two_sided_geometric(p, (batch,), gen)
        keep = gen.random(batch) < np.exp(
            -np.square(np.abs(candidates) - centre) / (2.0 * variance)
        )
        accepted = candidates[keep]
        accepted_share = max(accepted.size / batch, 0.05)
        take = accepted[:need]
        out[filled : filled + take.size] = take
        filled += take.size
    return out.reshape(shape)


def zcdp_sigma(l2_sensitivity: float, rho: float) -> float:
    """σ = Δ₂/√(2ρ): N(0, σ²) noise is ρ-zCDP with ρ = Δ₂²/(2σ²) (Bun & Steinke 2016,
    Proposition 1.6)."""
    return check_sensitivity(l2_sensitivity) / math.sqrt(2.0 * check_rho(rho))


def zcdp_to_approx(rho: float, delta: float) -> float:
    """ε = ρ + 2·√(ρ·ln(1/δ)): a ρ-zCDP mechanism is (ε, δ)-DP for every δ > 0
    (Bun & Steinke 2016, Proposition 1.3). zCDP composes by adding ρ."""
    rho = check_rho(rho)
    delta = check_delta(delta)
    return rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta))


def gaussian_zcdp(
    value: Any,
    l2_sensitivity: float,
    rho: float,
    *,
    size: int | Sequence[int] | None = None,
    rng: RngLike = None,
) -> Any:
    """value + N(0, σ²) on a grid with σ = Δ₂/√(2ρ): ρ-zCDP (Bun & Steinke 2016), the
    discrete Gaussian keeping it exactly (Canonne, Kamath & Steinke 2020, Theorem 4).
    Sampled as :func:`gaussian` (grid γ, σ for Δ₂ + γ when the query is real-valued)."""
    sensitivity = check_sensitivity(l2_sensitivity)
    sigma = zcdp_sigma(sensitivity, rho)
    return _gridded_gaussian(value, sensitivity, sigma, size, rng)


# --------------------------------------------------------------------------- exponential


def _utilities(utilities: Any) -> np.ndarray:
    scores = np.asarray(utilities, dtype=float)
    if scores.ndim != 1 or scores.size == 0 or not np.all(np.isfinite(scores)):
        raise ParameterError(
            "The exponential mechanism needs a non-empty list of finite utilities.",
            code="dp.bad_utilities",
        )
    return scores


def exponential_probabilities(utilities: Any, sensitivity: float, epsilon: float) -> np.ndarray:
    """P(r) = exp(ε·u(r)/(2Δu)) / Σ_r' exp(ε·u(r')/(2Δu)) (McSherry & Talwar 2007),
    computed after subtracting the largest exponent so that no term overflows."""
    scores = _utilities(utilities)
    exponents = check_epsilon(epsilon) * scores / (2.0 * check_sensitivity(sensitivity))
    weights = np.exp(exponents - exponents.max())
    return weights / weights.sum()


def exponential(
    utilities: Any,
    sensitivity: float,
    epsilon: float,
    *,
    size: int | Sequence[int] | None = None,
    rng: RngLike = None,
) -> Any:
    """The index of one candidate, chosen with P(r) ∝ exp(ε·u(r)/(2Δu)): ε-DP when every
    utility changes by at most Δu between neighbouring data sets (McSherry & Talwar 2007).
    ``size`` draws that many independent choices."""
    probabilities = exponential_probabilities(utilities, sensitivity, epsilon)
    return generator(rng).choice(probabilities.size, size=size, p=probabilities)
