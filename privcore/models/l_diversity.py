"""l-diversity in its three forms (Machanavajjhala, Kifer, Gehrke, Venkitasubramaniam
2007): distinct, entropy and recursive (c,l), and :func:`l_diversity`, which makes the
one of a given form."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from privcore.classes import EquivalenceClasses
from privcore.errors import ParameterError
from privcore.models.base import PrivacyModel, _fmt, _PerAttribute
from privcore.models.checks import _TOLERANCE, L_KINDS, _attribute_names, _real, _whole
from privcore.models.measures import (
    _entropy,
    _recursive_parts,
    distinct_values,
    entropy_l,
    recursive_c,
)


class _LDistinctValues(_PerAttribute):
    """A model whose passing class holds at least l distinct values of each sensitive
    attribute it checks (distinct and recursive (c,l)-diversity: for the recursive form
    the tail r_l + … + r_m is empty with fewer than l distinct values), so at least l
    records."""

    l: int  # noqa: E741

    @property
    def minimal_class_size(self) -> int:
        return self.l

    @property
    def minimal_distinct_values(self) -> int:
        return self.l


@dataclass(frozen=True)
class DistinctLDiversity(_LDistinctValues):
    """Distinct l-diversity (Machanavajjhala et al. 2007): every class holds at least l
    distinct values of each sensitive attribute.

    Achieved: l = the smallest number of distinct values in a class, per SA.
    """

    l: int  # noqa: E741
    attributes: tuple[str, ...] | None = None
    name: ClassVar[str] = "distinct l-diversity"
    code: ClassVar[str] = "distinct_l"
    monotone_under_generalization: ClassVar[bool] = True
    monotone_under_suppression: ClassVar[bool] = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "l", _whole(self.l, "l", minimum=1))
        object.__setattr__(self, "attributes", _attribute_names(self.attributes))

    def _attribute_pass(self, classes: EquivalenceClasses, sa: str) -> np.ndarray:
        return distinct_values(classes, sa) >= self.l

    def achieved(self, classes: EquivalenceClasses) -> dict[str, Any]:
        return {"l": self._per_attribute(classes, lambda sa: distinct_values(classes, sa), np.min)}

    def requirement(self) -> str:
        return f"l ≥ {self.l} (distinct)"


@dataclass(frozen=True)
class EntropyLDiversity(_PerAttribute):
    """Entropy l-diversity (Machanavajjhala et al. 2007, Def. 4.1): in every class,
    −Σ_s p(s) ln p(s) ≥ ln l for each sensitive attribute.

    Achieved: l = min over classes of exp(entropy), per SA (not floored).
    """

    l: float  # noqa: E741
    attributes: tuple[str, ...] | None = None
    name: ClassVar[str] = "entropy l-diversity"
    code: ClassVar[str] = "entropy_l"
    monotone_under_generalization: ClassVar[bool] = True  # entropy is concave

    def __post_init__(self) -> None:
        object.__setattr__(self, "l", _real(self.l, "l", minimum=1.0))
        object.__setattr__(self, "attributes", _attribute_names(self.attributes))

    @property
    def minimal_class_size(self) -> int:
        """⌈l⌉: m distinct values give an entropy of at most ln m. (No bound on the
        table's distinct values is declared: a table that cannot reach entropy l is
        found by the search, which reports the whole table failing.)"""
        return math.ceil(self.l - 1e-9)

    def _attribute_pass(self, classes: EquivalenceClasses, sa: str) -> np.ndarray:
        return _entropy(classes, sa) >= math.log(self.l) - _TOLERANCE

    def achieved(self, classes: EquivalenceClasses) -> dict[str, Any]:
        return {"l": self._per_attribute(classes, lambda sa: entropy_l(classes, sa), np.min)}

    def requirement(self) -> str:
        return f"l ≥ {_fmt(self.l)} (entropy)"


@dataclass(frozen=True)
class RecursiveCLDiversity(_LDistinctValues):
    """Recursive (c,l)-diversity (Machanavajjhala et al. 2007, Def. 4.3): with the counts
    of the sensitive values of a class sorted r1 ≥ r2 ≥ … ≥ rm, every class has
    r1 < c·(r_l + r_{l+1} + … + r_m), for each sensitive attribute.

    Achieved: c = max over classes of r1 / (r_l + … + r_m), per SA (the partition is
    (c,l)-diverse for every c above it; ``None`` in JSON when infinite).
    """

    c: float
    l: int  # noqa: E741
    attributes: tuple[str, ...] | None = None
    name: ClassVar[str] = "recursive (c,l)-diversity"
    code: ClassVar[str] = "recursive_cl"
    monotone_under_generalization: ClassVar[bool] = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "c", _real(self.c, "c", minimum=0.0, strict=True))
        object.__setattr__(self, "l", _whole(self.l, "l", minimum=1))
        object.__setattr__(self, "attributes", _attribute_names(self.attributes))

    def _attribute_pass(self, classes: EquivalenceClasses, sa: str) -> np.ndarray:
        r1, tail = _recursive_parts(classes, sa, self.l)
        return r1 < self.c * tail

    def achieved(self, classes: EquivalenceClasses) -> dict[str, Any]:
        return {
            "c": self._per_attribute(classes, lambda sa: recursive_c(classes, sa, self.l), np.max)
        }

    def requirement(self) -> str:
        return f"r1 < {_fmt(self.c)}·(r{self.l} + … + rm) (recursive)"


def l_diversity(
    kind: str,
    l: float,  # noqa: E741 - the paper's letter
    c: float = 3.0,
    attributes: Any = None,
) -> PrivacyModel:
    """The l-diversity model of one of :data:`L_KINDS`: distinct and recursive take a
    whole l (recursive also c), entropy any l ≥ 1."""
    if kind not in L_KINDS:
        raise ParameterError(
            f"Unknown l-diversity form {kind!r}; choose one of {', '.join(L_KINDS)}.",
            code="models.bad_l_kind",
            kind=str(kind),
        )
    if kind == "entropy":
        return EntropyLDiversity(float(l), attributes)
    if not float(l).is_integer():
        raise ParameterError(
            f"l must be a whole number for {kind} l-diversity, not {l:g} (only entropy "
            "l-diversity takes a fractional l).",
            code="models.fractional_l",
            l=float(l),
            kind=kind,
        )
    if kind == "recursive":
        return RecursiveCLDiversity(float(c), int(l), attributes)
    return DistinctLDiversity(int(l), attributes)
