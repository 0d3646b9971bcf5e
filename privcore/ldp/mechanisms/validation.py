"""Validation of an LDP mechanism's parameters, in one place: ε, the domain size d, the
shape of a batch of inputs, and the error bad inputs raise
(:class:`~privcore.errors.ParameterError`)."""

from __future__ import annotations

import operator
from typing import Any

from privcore.core.privacy_parameters import Limit, check_epsilon
from privcore.errors import ParameterError
from privcore.ldp.device import torch_module

MAX_EPSILON = 20.0
"""Beyond ε = 20 a report is the truth with probability ≥ 1 − 2·10⁻⁹, e^ε exceeds the hash
range of local hashing, and float64 can no longer tell B = (e^ε+1)/(e^ε−1) from 1."""

MAX_DOMAIN = 100_000


_TOO_LARGE = Limit(
    MAX_EPSILON,
    "ldp.bad_epsilon",
    "ε = {number:g} is above {limit:g}: such a mechanism reports the truth almost surely "
    "and its probabilities are beyond float64 precision.",
)


def _check_epsilon(epsilon: Any) -> float:
    """ε as a float; finite and in (0, MAX_EPSILON], else ParameterError ``ldp.bad_epsilon``
    (the check every DP and LDP parameter goes through:
    :func:`privcore.core.privacy_parameters.check_epsilon`)."""
    return check_epsilon(epsilon, code="ldp.bad_epsilon", at_most=_TOO_LARGE)


def _integer_or_none(value: Any) -> int | None:
    """``value`` as an int when it is an integer (``operator.index`` takes it: a Python or
    numpy integer, not a bool, a float or text), else None."""
    try:
        if isinstance(value, bool):
            raise TypeError
        return operator.index(value)
    except TypeError:
        return None


def _check_domain(d: Any) -> int:
    """d as an int in [2, MAX_DOMAIN], else ParameterError ``ldp.bad_domain``."""
    value = _integer_or_none(d)
    if value is None or not 2 <= value <= MAX_DOMAIN:
        raise ParameterError(
            f"The domain size d must be an integer from 2 to {MAX_DOMAIN:,}, got {d!r}.",
            code="ldp.bad_domain",
            d=d,
        )
    return value


def _bad_inputs(message: str, **params: Any) -> ParameterError:
    return ParameterError(message, code="ldp.bad_inputs", **params)


def _batch(inputs: Any, generator: Any) -> Any:
    """A batch of inputs as a 1-D tensor on the generator's device, else ParameterError
    ``ldp.bad_inputs`` (each mechanism family then checks its values)."""
    torch = torch_module()
    values = torch.as_tensor(inputs, device=generator.device)
    if values.dim() != 1:
        raise _bad_inputs(
            f"Inputs must be a 1-D batch of values, got shape {tuple(values.shape)}.",
            shape=tuple(values.shape),
        )
    return values
