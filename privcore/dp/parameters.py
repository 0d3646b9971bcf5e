"""The parameters of the central DP mechanisms and the range in which they are sampled
exactly (SPEC §10).

ε and δ follow the rules shared with local DP (:mod:`privcore.core.privacy_parameters`),
with the bounds of the samplers here: ε above :data:`MAX_EPSILON` raises
``dp.epsilon_too_large``, ε below :data:`MIN_EPSILON` asked for by a user
``dp.epsilon_too_small``, and a noise scale above :data:`MAX_NOISE_SCALE`
``dp.noise_too_large``: outside these bounds the samplers' arithmetic is not exact. The
sensitivity Δ, ρ of zero-concentrated DP and the error probability β of an interval have
their own codes (``dp.bad_sensitivity``, ``dp.bad_rho``, ``dp.bad_beta``). Every error
is a :class:`~privcore.errors.ParameterError`.
"""

from __future__ import annotations

import math
from typing import Any

from privcore.core import privacy_parameters as shared
from privcore.core.privacy_parameters import Limit, as_float
from privcore.errors import ParameterError

__all__ = [
    "EPSILON_CEILING",
    "EPSILON_FLOOR",
    "MAX_EPSILON",
    "MAX_NOISE_SCALE",
    "MIN_EPSILON",
    "check_beta",
    "check_delta",
    "check_epsilon",
    "check_request_epsilon",
    "check_rho",
    "check_scale",
    "check_sensitivity",
]

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

EPSILON_CEILING = Limit(
    MAX_EPSILON,
    "dp.epsilon_too_large",
    "ε = {number:g} is above {limit:g}, the largest ε accepted: such an ε protects "
    "nothing, and the noise could not be sampled exactly.",
)
"""ε ≤ :data:`MAX_EPSILON`, for every central mechanism."""

EPSILON_FLOOR = Limit(
    MIN_EPSILON,
    "dp.epsilon_too_small",
    "ε = {number:g} is below {limit:g}, the smallest ε accepted: the noise would be more "
    "than a million times the sensitivity, every answer only noise.",
)
"""ε ≥ :data:`MIN_EPSILON`, for the ε a user asks for."""


def check_epsilon(epsilon: Any) -> float:
    """ε as a float: finite and > 0, else ParameterError ``dp.bad_epsilon``; at most
    :data:`MAX_EPSILON`, else ``dp.epsilon_too_large``."""
    return shared.check_epsilon(epsilon, at_most=EPSILON_CEILING)


def check_request_epsilon(epsilon: Any) -> float:
    """ε asked for by a user (a request, a page): :func:`check_epsilon`, and at least
    :data:`MIN_EPSILON`, else ParameterError ``dp.epsilon_too_small``."""
    return shared.check_epsilon(epsilon, at_most=EPSILON_CEILING, at_least=EPSILON_FLOOR)


def check_delta(delta: Any, *, allow_zero: bool = False) -> float:
    """δ as a float strictly between 0 and 1 (from 0 up to but not including 1 with
    ``allow_zero``: a pure ε-DP claim), else ParameterError ``dp.bad_delta``."""
    return shared.check_delta(delta, allow_zero=allow_zero)


def check_scale(scale: float) -> float:
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


def _finite_positive(value: Any, name: str, code: str, words: str) -> float:
    """``value`` as a float when it is finite and > 0, else ParameterError ``code`` with
    the ``words`` "… must be a finite number > 0" and ``params = {name: value}``."""
    number = as_float(value)
    if not math.isfinite(number) or number <= 0:
        raise ParameterError(
            f"{words} must be a finite number > 0, got {value!r}.", code=code, **{name: value}
        )
    return number


def check_rho(rho: Any) -> float:
    """ρ (zero-concentrated DP) as a float: finite and > 0, else ParameterError ``dp.bad_rho``."""
    return _finite_positive(rho, "rho", "dp.bad_rho", "ρ (zero-concentrated DP)")


def check_sensitivity(sensitivity: Any, *, integer: bool = False) -> float:
    """Δ as a float: finite and > 0 (a positive integer when ``integer``), else
    ParameterError ``dp.bad_sensitivity``."""
    value = _finite_positive(sensitivity, "sensitivity", "dp.bad_sensitivity", "The sensitivity")
    if integer and value != math.floor(value):
        raise ParameterError(
            "The discrete (geometric) mechanism needs an integer sensitivity, "
            f"got {sensitivity!r}.",
            code="dp.bad_sensitivity",
            sensitivity=sensitivity,
        )
    return value


def check_beta(beta: Any) -> float:
    """β, the probability that the noise leaves an interval, strictly between 0 and 1,
    else ParameterError ``dp.bad_beta``."""
    value = as_float(beta)
    if not (0.0 < value < 1.0):
        raise ParameterError(
            f"The error probability β must be strictly between 0 and 1, got {beta!r}.",
            code="dp.bad_beta",
            beta=beta,
        )
    return value
