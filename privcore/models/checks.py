"""The parameter checks every model runs in ``__post_init__`` (whole numbers, reals in a
range, distance names, sensitive-attribute names), and the sensitive attributes a model
covers on a partition."""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any

from privcore.classes import EquivalenceClasses
from privcore.errors import ParameterError, RoleError

#: The t-closeness distances; ``"auto"`` is ordered for numeric SAs, equal otherwise.
DISTANCES = ("auto", "equal", "ordered", "hierarchical", "kl")
#: The three forms of l-diversity (:func:`l_diversity`).
L_KINDS = ("distinct", "entropy", "recursive")

_TOLERANCE = 1e-12  # slack of floating comparisons against a threshold


def _whole(value: Any, what: str, *, minimum: int) -> int:
    """``value`` as an int ≥ ``minimum`` (an integral float such as 5.0 is accepted)."""
    ok = not isinstance(value, bool) and (
        isinstance(value, numbers.Integral)
        or (isinstance(value, numbers.Real) and math.isfinite(value) and float(value).is_integer())
    )
    if not ok or int(value) < minimum:
        raise _bad_parameter(what, value, f"a whole number ≥ {minimum}")
    return int(value)


def _real(
    value: Any,
    what: str,
    *,
    minimum: float,
    maximum: float = math.inf,
    strict: bool = False,
) -> float:
    """``value`` as a finite float in [minimum, maximum] (or (minimum, maximum])."""
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)
    if ok:
        v = float(value)
        ok = (v > minimum if strict else v >= minimum) and v <= maximum
    if not ok:
        low = f"> {minimum:g}" if strict else f"≥ {minimum:g}"
        rule = f"{low} and ≤ {maximum:g}" if math.isfinite(maximum) else low
        raise _bad_parameter(what, value, f"a number {rule}")
    return float(value)


def _bad_parameter(what: str, value: Any, rule: str) -> ParameterError:
    """``models.bad_parameter``: the parameter ``what`` must be ``rule``."""
    return ParameterError(
        f"{what} must be {rule}, got {value!r}.",
        code="models.bad_parameter",
        parameter=what,
        value=str(value),
    )


def _distance_name(distance: Any) -> str:
    if not isinstance(distance, str) or distance not in DISTANCES:
        raise ParameterError(
            f"Unknown t-closeness distance {distance!r}; choose one of {', '.join(DISTANCES)}.",
            code="models.unknown_distance",
            distance=str(distance),
        )
    return distance


def _attribute_names(attributes: Any) -> tuple[str, ...] | None:
    if attributes is None:
        return None
    if isinstance(attributes, str):
        attributes = (attributes,)
    if not isinstance(attributes, Sequence | set | frozenset) or not all(
        isinstance(a, str) for a in attributes
    ):
        raise ParameterError(
            f"Sensitive attributes must be a list of column names, got {attributes!r}.",
            code="models.bad_attributes",
        )
    names = tuple(dict.fromkeys(attributes))
    if not names:
        raise ParameterError(
            "Name at least one sensitive attribute (or none at all to check every one).",
            code="models.bad_attributes",
        )
    return names


def _covered(classes: EquivalenceClasses, attributes: tuple[str, ...] | None) -> list[str]:
    """The SAs a model checks on ``classes``; RoleError when there is none or one is
    unknown to the partition."""
    if attributes is None:
        names = list(classes.sensitive)
        if not names:
            raise RoleError(
                "This privacy model needs a sensitive attribute: choose a sensitive attribute.",
                code="roles.no_sensitive",
            )
        return names
    for name in attributes:
        classes.attribute(name)  # RoleError when the partition does not have it
    return list(attributes)
