"""t-closeness (Li, Li, Venkatasubramanian 2007), its distances in
:mod:`privcore.models.distances`."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from privcore.classes import EquivalenceClasses
from privcore.models.base import _fmt, _PerAttribute
from privcore.models.checks import _TOLERANCE, _attribute_names, _covered, _distance_name, _real
from privcore.models.distances import resolve_distance, t_distance


@dataclass(frozen=True)
class TCloseness(_PerAttribute):
    """t-closeness (Li, Li, Venkatasubramanian 2007): in every class, the distance
    between the class's distribution of each sensitive attribute and the whole table's
    is at most t. Distances: see :func:`t_distance` (``"auto"``: ordered for numeric
    SAs, equal otherwise).

    Achieved: t = the largest class distance, per SA.
    """

    t: float
    distance: str = "auto"
    attributes: tuple[str, ...] | None = None
    name: ClassVar[str] = "t-closeness"
    code: ClassVar[str] = "t"
    monotone_under_generalization: ClassVar[bool] = True  # EMD of a merge ≤ the worst part

    def __post_init__(self) -> None:
        distance = _distance_name(self.distance)
        top = math.inf if distance == "kl" else 1.0
        object.__setattr__(self, "t", _real(self.t, "t", minimum=0.0, maximum=top))
        object.__setattr__(self, "attributes", _attribute_names(self.attributes))

    def _attribute_pass(self, classes: EquivalenceClasses, sa: str) -> np.ndarray:
        return t_distance(classes, sa, self.distance) <= self.t + _TOLERANCE

    def achieved(self, classes: EquivalenceClasses) -> dict[str, Any]:
        return {
            "t": self._per_attribute(
                classes, lambda sa: t_distance(classes, sa, self.distance), np.max
            ),
            "distance": self.reported_distances(classes),
        }

    def requirement(self) -> str:
        return f"t ≤ {_fmt(self.t)} ({self.distance})"

    def reported_distances(self, classes: EquivalenceClasses) -> dict[str, str]:
        return {
            sa: resolve_distance(classes, sa, self.distance)
            for sa in _covered(classes, self.attributes)
        }
