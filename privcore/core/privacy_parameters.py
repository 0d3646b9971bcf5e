"""The privacy parameters ε and δ, checked one way for central and local DP.

ε bounds the privacy loss: a mechanism M is (ε, δ)-DP when P[M(D) ∈ E] ≤ e^ε·P[M(D′) ∈ E]
+ δ for every event E and neighbouring data sets D, D′ (Dwork, McSherry, Nissim & Smith
2006; with δ, Dwork, Kenthapadi, McSherry, Mironov & Naor 2006). Hence the rules:

- ε is a number > 0 (ε ≤ 0 would claim that no output tells anything, which no useful
  mechanism can keep), finite unless the caller accepts ε = ∞ (no privacy, no noise);
- δ is a probability: strictly between 0 and 1 for a mechanism that needs one (the
  Gaussian: at δ = 0 no noise scale is enough, at δ ≥ 1 the bound says nothing), or from
  0 (pure ε-DP) up to but not including 1 for a budget or a claim.

A bool is not a number here (``True`` would otherwise be ε = 1); text that reads as a
number ("0.5") is, as ``float`` reads it. Each caller keeps its error code (``dp.…``,
``ldp.…``) and may add a bound of its own (:class:`Limit`): the largest ε its samplers
handle exactly, the smallest a user may ask for. Every error is a
:class:`~privcore.errors.ParameterError` whose ``params`` carry the value under the
parameter's ``name`` (and the bound as ``limit``), for the interface's words.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from privcore.errors import ParameterError

__all__ = ["Limit", "as_float", "check_delta", "check_epsilon"]

_EPSILON_WORDS = "ε must be a finite number > 0 (ε ≤ 0 gives no privacy guarantee), got {value!r}."
_INFINITE_EPSILON_WORDS = (
    "ε must be a number > 0 (ε ≤ 0 gives no privacy guarantee) or ∞ (no noise), got {value!r}."
)
_DELTA_WORDS = "δ must be a number strictly between 0 and 1 (for example 1e-6), got {value!r}."
_DELTA_OR_ZERO_WORDS = (
    "δ must be a number from 0 (pure ε-DP) up to but not including 1, got {value!r}."
)


@dataclass(frozen=True)
class Limit:
    """A bound a caller adds to ε: ``value``, the ``code`` of the error past it, and its
    ``message``, a template filled with ``number`` (ε as a float) and ``limit``
    (``value``): "ε = {number:g} is above {limit:g} …"."""

    value: float
    code: str
    message: str

    def error(self, name: str, number: float) -> ParameterError:
        return ParameterError(
            self.message.format(number=number, limit=self.value),
            code=self.code,
            **{name: number, "limit": self.value},
        )


def as_float(value: Any) -> float:
    """``float(value)``, or NaN when it is not a number (None, a list, "abc")."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def _number(value: Any) -> float:
    """:func:`as_float`, with a bool (numpy's too) as NaN: ``True`` is not a parameter."""
    if isinstance(value, (bool, np.bool_)):
        return math.nan
    return as_float(value)


def check_epsilon(
    value: Any,
    *,
    name: str = "epsilon",
    allow_infinite: bool = False,
    code: str = "dp.bad_epsilon",
    at_most: Limit | None = None,
    at_least: Limit | None = None,
) -> float:
    """ε as a float: a number > 0, finite unless ``allow_infinite``, else ParameterError
    ``code`` with ``params = {name: value}``; then at most ``at_most.value`` and at least
    ``at_least.value`` when given, else that limit's error (``params = {name: ε,
    "limit": bound}``).

    Examples: 0.5 → 0.5; "2" → 2.0; 0, −1, NaN, ∞, "x", None, True → ``code``;
    1e-9 → 1e-9 (unless ``at_least`` is above it).
    """
    number = _number(value)
    infinite_ok = allow_infinite and number == math.inf
    if not (number > 0 and (math.isfinite(number) or infinite_ok)):
        words = _INFINITE_EPSILON_WORDS if allow_infinite else _EPSILON_WORDS
        raise ParameterError(words.format(value=value), code=code, **{name: value})
    if at_most is not None and number > at_most.value:
        raise at_most.error(name, number)
    if at_least is not None and number < at_least.value:
        raise at_least.error(name, number)
    return number


def check_delta(
    value: Any,
    *,
    name: str = "delta",
    allow_zero: bool = False,
    code: str = "dp.bad_delta",
    message: str | None = None,
) -> float:
    """δ as a float: strictly between 0 and 1, or from 0 up to but not including 1 with
    ``allow_zero``; else ParameterError ``code`` with ``params = {name: value}``.
    ``message`` (a template filled with ``value``) replaces the default words.

    Examples: 1e-6 → 1e-6; 0 → ``code`` (0.0 with ``allow_zero``); 1, −0.1, NaN,
    "x", True → ``code``.
    """
    number = _number(value)
    valid = (0.0 <= number < 1.0) if allow_zero else (0.0 < number < 1.0)
    if not valid:
        words = message or (_DELTA_OR_ZERO_WORDS if allow_zero else _DELTA_WORDS)
        raise ParameterError(words.format(value=value), code=code, **{name: value})
    return number
