"""Central differential-privacy mechanisms (SPEC §10): Laplace, discrete Laplace, Gaussian
(analytic and ρ-zCDP) and the exponential mechanism.

One class per mechanism, on a common base (:class:`Mechanism`: ε, δ and the sensitivity
Δ of the query; ``release`` runs it on a true answer ``value`` computed on the whole data
set, a scalar or an array of cells such as a histogram). The mechanisms that add noise
(:class:`NoiseMechanism`) also give the noise ``scale`` and ``half_width(β)``, the
half-width of an interval the noise leaves with probability β. The functions below
(:func:`laplace`, :func:`discrete_laplace`, :func:`gaussian`, …) are the same mechanisms
called in one go. Every sampler takes ``rng``: a :class:`numpy.random.Generator`, or a
seed (int) from which one is made, or ``None`` for fresh entropy.

Parameters are checked by :mod:`privcore.dp.parameters` (codes ``dp.bad_epsilon``,
``dp.bad_delta``, ``dp.bad_sensitivity``, ``dp.bad_rho``, ``dp.epsilon_too_large``,
``dp.noise_too_large``). Neighbouring data sets differ by adding or removing one
person's record (SPEC §10); the sensitivities passed here are derived from the query by
:mod:`privcore.dp.queries`.

Every output lies on a grid that does not depend on the true value — integers for the
discrete Laplace, multiples of a power of two γ for the Laplace and Gaussian mechanisms —
so that its low-order bits reveal nothing (Mironov 2012; :mod:`privcore.dp.sampling`).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
from scipy.special import log_ndtr, ndtr, ndtri

from privcore.dp.parameters import (
    MAX_EPSILON,
    MAX_NOISE_SCALE,
    MIN_EPSILON,
    check_beta,
    check_delta,
    check_epsilon,
    check_request_epsilon,
    check_rho,
    check_scale,
    check_sensitivity,
)
from privcore.dp.sampling import (
    GRID_BITS,
    RngLike,
    discrete_gaussian,
    generator,
    grid_sensitivity,
    grid_step,
    noise_shape,
    on_grid,
    scalar_if_0d,
    two_sided_geometric,
)
from privcore.errors import ParameterError

__all__ = [
    "GRID_BITS",
    "MAX_EPSILON",
    "MAX_NOISE_SCALE",
    "MIN_EPSILON",
    "NOISE_MECHANISMS",
    "DiscreteLaplace",
    "Exponential",
    "Gaussian",
    "Laplace",
    "Mechanism",
    "NoiseMechanism",
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
    "noise_mechanism",
    "zcdp_sigma",
    "zcdp_to_approx",
]

Size = int | Sequence[int] | None


# --------------------------------------------------------------------------- the base


class Mechanism(ABC):
    """A central mechanism M for a query of sensitivity Δ (the most one person's record
    changes the true answer), (ε, δ)-DP: P[M(D) ∈ E] ≤ e^ε·P[M(D′) ∈ E] + δ for all
    neighbouring D, D′ and every event E (Dwork & Roth 2014, Definition 2.4); δ = 0 for
    the pure ε-DP ones."""

    name: ClassVar[str]
    sensitivity: float
    epsilon: float
    delta: float = 0.0

    @abstractmethod
    def release(self, value: Any, *, size: Size = None, rng: RngLike = None) -> Any:
        """M run on the true answer ``value``; ``size`` draws that many independent
        answers."""

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(sensitivity={self.sensitivity!r}, "
            f"epsilon={self.epsilon!r}, delta={self.delta!r})"
        )


class NoiseMechanism(Mechanism):
    """value + noise: ``scale`` (b = Δ/ε of the Laplace noises, σ of the Gaussian) and
    :meth:`half_width`."""

    scale: float

    @abstractmethod
    def half_width(self, beta: float = 0.05) -> float:
        """w with P(|noise| > w) ≤ β: answer ± w is an interval of confidence 1 − β."""


# --------------------------------------------------------------------------- Laplace


class Laplace(NoiseMechanism):
    """value + Lap(Δ₁/ε) on a grid: ε-DP for a query of L1 sensitivity Δ₁ (Dwork,
    McSherry, Nissim & Smith 2006), with outputs whose bits do not depend on the true
    value (Mironov 2012).

    The output is v̄ + γ·Z, with γ = :func:`~privcore.dp.sampling.grid_step` (b, Δ₁),
    b = Δ₁/ε, v̄ the true value rounded to the nearest multiple of γ, and Z discrete
    Laplace on the integers, P(Z = z) ∝ exp(−ε·γ·|z|/Δ'), drawn as a difference of two
    geometric variables (as :class:`DiscreteLaplace`). Its density per unit is that of
    Lap(b) sampled every γ (γ ≤ b/4096). Δ' is the sensitivity of the gridded query: Δ₁
    when the query is integer-valued (integer ``value``) and γ ≤ 1, so that rounding is
    exact; otherwise Δ₁ + γ (the rounding moves each of two neighbouring answers by up to
    γ/2, and γ ≤ Δ₁/4096, so the noise grows by a factor of at most 1 + 2⁻¹²). Then
    P(v̄ + γZ = o)/P(v̄' + γZ = o) ≤ exp(ε·|v̄ − v̄'|/Δ') ≤ e^ε. Every output is an exact
    multiple of γ, the same set for every input (OpenDP's Laplace works the same way).
    The scale b is at most :data:`MAX_NOISE_SCALE`, else ParameterError
    ``dp.noise_too_large``.
    """

    name = "laplace"

    def __init__(self, sensitivity: float, epsilon: float) -> None:
        self.sensitivity = check_sensitivity(sensitivity)
        self.epsilon = check_epsilon(epsilon)
        self.scale = check_scale(self.sensitivity / self.epsilon)

    def half_width(self, beta: float = 0.05) -> float:
        """(Δ₁/ε)·ln(1/β): |noise| exceeds it with probability exactly β, since
        P(|Lap(b)| > t) = e^(−t/b)."""
        return self.scale * math.log(1.0 / check_beta(beta))

    def release(self, value: Any, *, size: Size = None, rng: RngLike = None) -> Any:
        step = grid_step(self.scale, self.sensitivity)
        units, exact = on_grid(value, step)
        effective = grid_sensitivity(self.sensitivity, step, exact)
        p = -math.expm1(-self.epsilon * step / effective)
        noise = two_sided_geometric(p, noise_shape(value, size), generator(rng))
        return scalar_if_0d((units + noise) * step)


# --------------------------------------------------------------------------- discrete Laplace


def _check_integers(value: Any) -> None:
    if not np.all(np.equal(np.mod(value, 1), 0)):
        raise ParameterError(
            "The discrete (geometric) mechanism adds noise to integers; "
            "use the Laplace mechanism for real-valued answers.",
            code="dp.not_integer",
        )


class DiscreteLaplace(NoiseMechanism):
    """value + Z with P(Z = z) ∝ exp(−ε|z|/Δ₁): the discrete Laplace (two-sided geometric)
    mechanism, ε-DP for an integer query of integer L1 sensitivity Δ₁ (Ghosh, Roughgarden
    & Sundararajan 2009).

    Z is drawn as the difference of two independent geometric variables with success
    probability p = 1 − exp(−ε/Δ₁) (Inusah & Kozubowski 2006), so the output is an exact
    integer (NumPy's geometric sampler inverts in floating point, so the probabilities
    are those of the formula to float precision; what matters is that the set of possible
    outputs, the integers, is the same for every input). Counts use this mechanism because
    floating-point Laplace leaks: Mironov 2012 shows that the set of doubles a textbook
    Laplace sampler can return depends on the true answer, so the low-order bits of one
    output can reveal it. An integer output has no such bits. The scale Δ₁/ε is at most
    :data:`MAX_NOISE_SCALE` (so q = exp(−ε/Δ₁) < 1).
    """

    name = "geometric"

    def __init__(self, sensitivity: int, epsilon: float) -> None:
        self.sensitivity = check_sensitivity(sensitivity, integer=True)
        self.epsilon = check_epsilon(epsilon)
        self.scale = check_scale(self.sensitivity / self.epsilon)

    @property
    def q(self) -> float:
        """q = exp(−ε/Δ₁)."""
        return math.exp(-self.epsilon / self.sensitivity)

    def pmf(self, z: Any) -> Any:
        """P(Z = z) = (1 − q)/(1 + q)·q^|z| (two-sided geometric)."""
        q = self.q
        z = np.abs(np.asarray(z, dtype=float))
        return scalar_if_0d((1.0 - q) / (1.0 + q) * np.power(q, z))

    def variance(self) -> float:
        """Var Z = 2q/(1 − q)²."""
        q = self.q
        return 2.0 * q / (1.0 - q) ** 2

    def half_width(self, beta: float = 0.05) -> int:
        """The smallest integer k with P(|Z| > k) ≤ β.

        P(|Z| ≥ m) = 2q^m/(1 + q) for m ≥ 1, so k = max(0, ⌈ln(β(1+q)/2)/ln q⌉ − 1).
        """
        q = self.q
        beta = check_beta(beta)
        if q == 0.0:
            return 0
        k = max(0, math.ceil(math.log(beta * (1.0 + q) / 2.0) / math.log(q)) - 1)
        # guard the ceiling against rounding at an exact boundary
        while 2.0 * q ** (k + 1) / (1.0 + q) > beta:
            k += 1
        while k > 0 and 2.0 * q**k / (1.0 + q) <= beta:
            k -= 1
        return k

    def release(self, value: Any, *, size: Size = None, rng: RngLike = None) -> Any:
        _check_integers(value)
        p = -math.expm1(-self.epsilon / self.sensitivity)
        noise = two_sided_geometric(p, noise_shape(value, size), generator(rng))
        return scalar_if_0d(np.asarray(value, dtype=np.int64) + noise)


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
    return float(sigma) * float(ndtri(1.0 - check_beta(beta) / 2.0))


def _gridded_gaussian(
    value: Any, sensitivity: float, sigma: float, size: Size, rng: RngLike
) -> Any:
    """v̄ + γ·Z with Z discrete Gaussian of σ'/γ (see :class:`Gaussian`)."""
    step = grid_step(check_scale(sigma), sensitivity)
    units, exact = on_grid(value, step)
    sigma_on_grid = sigma * grid_sensitivity(sensitivity, step, exact) / sensitivity
    noise = discrete_gaussian(sigma_on_grid / step, noise_shape(value, size), generator(rng))
    return scalar_if_0d((units + noise) * step)


class Gaussian(NoiseMechanism):
    """value + N(0, σ²) on a grid, σ = :func:`analytic_gaussian_sigma` (Δ₂, ε, δ):
    (ε, δ)-DP for a query of L2 sensitivity Δ₂ (Balle & Wang 2018), with outputs whose
    bits do not depend on the true value (Mironov 2012).

    As :class:`Laplace`: the output is v̄ + γ·Z with γ =
    :func:`~privcore.dp.sampling.grid_step` (σ, Δ₂), v̄ the value rounded to the grid,
    and Z a discrete Gaussian on the integers, P(Z = z) ∝ exp(−z²/(2(σ'/γ)²)) (Canonne,
    Kamath & Steinke 2020, sampled by their Algorithm 3). σ' is σ computed for the
    sensitivity of the gridded query, Δ₂ (integer query, γ ≤ 1) or Δ₂ + γ (σ is
    proportional to Δ₂, so σ' = σ·(Δ₂ + γ)/Δ₂ ≤ σ·(1 + 2⁻¹²)). The discrete Gaussian keeps
    the continuous one's ρ-zCDP exactly (ibid., Theorem 4) and, at σ'/γ ≥ 2¹², its
    (ε, δ) curve (Theorem 7) agrees with the continuous one's to within rounding. σ above
    :data:`MAX_NOISE_SCALE` raises ``dp.noise_too_large`` when sampled.
    """

    name = "gaussian"

    def __init__(self, l2_sensitivity: float, epsilon: float, delta: float) -> None:
        self.sensitivity = check_sensitivity(l2_sensitivity)
        self.epsilon = check_epsilon(epsilon)
        self.delta = check_delta(delta)
        self.scale = analytic_gaussian_sigma(self.sensitivity, self.epsilon, self.delta)

    def half_width(self, beta: float = 0.05) -> float:
        """σ·Φ⁻¹(1 − β/2) (:func:`gaussian_half_width`)."""
        return gaussian_half_width(self.scale, beta)

    def release(self, value: Any, *, size: Size = None, rng: RngLike = None) -> Any:
        return _gridded_gaussian(value, self.sensitivity, self.scale, size, rng)


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
    value: Any, l2_sensitivity: float, rho: float, *, size: Size = None, rng: RngLike = None
) -> Any:
    """value + N(0, σ²) on a grid with σ = Δ₂/√(2ρ): ρ-zCDP (Bun & Steinke 2016), the
    discrete Gaussian keeping it exactly (Canonne, Kamath & Steinke 2020, Theorem 4).
    Sampled as :class:`Gaussian` (grid γ, σ for Δ₂ + γ when the query is real-valued).
    Its guarantee is ρ, not (ε, δ) (:func:`zcdp_to_approx` converts), so it is a
    function of its own rather than a :class:`Mechanism`."""
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


class Exponential(Mechanism):
    """The index of one candidate r, chosen with P(r) ∝ exp(ε·u(r)/(2Δu)): ε-DP when every
    utility changes by at most Δu (the sensitivity) between neighbouring data sets
    (McSherry & Talwar 2007)."""

    name = "exponential"

    def __init__(self, sensitivity: float, epsilon: float) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.sensitivity = check_sensitivity(sensitivity)

    def probabilities(self, utilities: Any) -> np.ndarray:
        """P(r) = exp(ε·u(r)/(2Δu)) / Σ_r' exp(ε·u(r')/(2Δu)), computed after subtracting
        the largest exponent so that no term overflows."""
        exponents = self.epsilon * _utilities(utilities) / (2.0 * self.sensitivity)
        weights = np.exp(exponents - exponents.max())
        return weights / weights.sum()

    def release(self, value: Any, *, size: Size = None, rng: RngLike = None) -> Any:
        """The chosen index for the utilities ``value``; ``size`` draws that many
        independent choices."""
        probabilities = self.probabilities(value)
        return generator(rng).choice(probabilities.size, size=size, p=probabilities)


# --------------------------------------------------------------------------- by name

NOISE_MECHANISMS: dict[str, type[NoiseMechanism]] = {
    mechanism.name: mechanism for mechanism in (Laplace, DiscreteLaplace, Gaussian)
}


def noise_mechanism(
    name: str, sensitivity: float, epsilon: float, delta: float = 0.0
) -> NoiseMechanism:
    """The mechanism of :data:`NOISE_MECHANISMS` called ``name`` ("laplace", "geometric",
    "gaussian") for a query of sensitivity Δ (L1, or L2 for the Gaussian) at ε, and δ for
    the Gaussian (the others take none)."""
    if name == Gaussian.name:
        return Gaussian(sensitivity, epsilon, delta)
    return NOISE_MECHANISMS[name](sensitivity, epsilon)


# --------------------------------------------------------------------------- in one go


def laplace_scale(sensitivity: float, epsilon: float) -> float:
    """b = Δ₁/ε: the scale of the Laplace noise that makes a query of L1 sensitivity Δ₁ ε-DP
    (Dwork, McSherry, Nissim & Smith 2006). At most :data:`MAX_NOISE_SCALE`, else
    ParameterError ``dp.noise_too_large``."""
    return Laplace(sensitivity, epsilon).scale


def laplace_half_width(sensitivity: float, epsilon: float, beta: float = 0.05) -> float:
    """(Δ₁/ε)·ln(1/β) (:meth:`Laplace.half_width`)."""
    return Laplace(sensitivity, epsilon).half_width(beta)


def laplace(
    value: Any, sensitivity: float, epsilon: float, *, size: Size = None, rng: RngLike = None
) -> Any:
    """value + Lap(Δ₁/ε) on a grid (:class:`Laplace`). ``value`` may be an array (one
    independent noise per cell); ``size`` draws that many independent noisy answers. For
    integer queries :func:`discrete_laplace` gives integer answers directly."""
    return Laplace(sensitivity, epsilon).release(value, size=size, rng=rng)


def discrete_laplace_pmf(z: Any, sensitivity: int, epsilon: float) -> Any:
    """P(Z = z) = (1 − q)/(1 + q)·q^|z| with q = exp(−ε/Δ₁) (:meth:`DiscreteLaplace.pmf`)."""
    return DiscreteLaplace(sensitivity, epsilon).pmf(z)


def discrete_laplace_variance(sensitivity: int, epsilon: float) -> float:
    """Var Z = 2q/(1 − q)² with q = exp(−ε/Δ₁)."""
    return DiscreteLaplace(sensitivity, epsilon).variance()


def discrete_laplace_half_width(sensitivity: int, epsilon: float, beta: float = 0.05) -> int:
    """The smallest integer k with P(|Z| > k) ≤ β (:meth:`DiscreteLaplace.half_width`)."""
    return DiscreteLaplace(sensitivity, epsilon).half_width(beta)


def discrete_laplace(
    value: Any, sensitivity: int, epsilon: float, *, size: Size = None, rng: RngLike = None
) -> Any:
    """value + Z, P(Z = z) ∝ exp(−ε|z|/Δ₁) (:class:`DiscreteLaplace`); the value and the
    sensitivity must be integers (``dp.not_integer``, ``dp.bad_sensitivity``, checked
    before ε)."""
    check_sensitivity(sensitivity, integer=True)
    _check_integers(value)
    return DiscreteLaplace(sensitivity, epsilon).release(value, size=size, rng=rng)


def gaussian(
    value: Any,
    l2_sensitivity: float,
    epsilon: float,
    delta: float,
    *,
    size: Size = None,
    rng: RngLike = None,
) -> Any:
    """value + N(0, σ²) on a grid, σ = :func:`analytic_gaussian_sigma` (Δ₂, ε, δ)
    (:class:`Gaussian`)."""
    return Gaussian(l2_sensitivity, epsilon, delta).release(value, size=size, rng=rng)


def exponential_probabilities(utilities: Any, sensitivity: float, epsilon: float) -> np.ndarray:
    """P(r) = exp(ε·u(r)/(2Δu)) / Σ_r' exp(ε·u(r')/(2Δu)) (McSherry & Talwar 2007;
    :meth:`Exponential.probabilities`)."""
    scores = _utilities(utilities)
    return Exponential(sensitivity, epsilon).probabilities(scores)


def exponential(
    utilities: Any, sensitivity: float, epsilon: float, *, size: Size = None, rng: RngLike = None
) -> Any:
    """The index of one candidate, chosen with P(r) ∝ exp(ε·u(r)/(2Δu))
    (:class:`Exponential`). ``size`` draws that many independent choices."""
    scores = _utilities(utilities)
    return Exponential(sensitivity, epsilon).release(scores, size=size, rng=rng)
