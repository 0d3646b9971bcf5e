"""What every privacy model is (:class:`PrivacyModel`): the per-class check, what the
partition achieves, the requirement in words, plain parameters, and the capabilities
the algorithms read instead of a model's type."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import fields
from typing import Any, ClassVar

import numpy as np

from privcore.classes import EquivalenceClasses
from privcore.models.checks import _covered


class PrivacyModel(ABC):
    """A privacy constraint checked on an equivalence-class partition.

    Subclasses are frozen dataclasses; ``name`` is a class attribute. Suppressed rows
    are excluded from every check and never violate; a partition with no class satisfies
    every model.

    Every model declares what the algorithms may assume of it (the defaults assume
    nothing; the algorithms read these and never the model's type):

    - ``monotone_under_generalization``: a class made by merging classes that pass
      passes too, so a node of the generalization lattice that satisfies the model
      makes every more general node satisfy it (seed 003 lemmas 20.3.1–3). Lattice
      searches tag nodes by it, and Mondrian refuses early a table that fails as one
      class; without it every node is evaluated.
    - ``monotone_under_suppression``: a class that contains a passing class passes
      (whatever else is merged in), so with a suppression budget the violating rows
      never grow with generalization and lattice pruning stays sound (ARX: k-anonymity
      and distinct l-diversity only).
    - ``minimal_class_size``: the fewest records a passing class can hold (k for
      k-anonymity, l for distinct and recursive (c,l)-diversity, ⌈l⌉ for entropy
      l-diversity, 1 by default); a smaller class fails without being measured.
    - ``size_only``: a class passes exactly when it holds ``minimal_class_size``
      records, nothing else counts (k-anonymity); algorithms then check sizes only.
    - ``minimal_distinct_values``: the fewest distinct values of each sensitive
      attribute the model checks (:meth:`checked_attributes`) that a passing class
      holds (l for distinct and recursive (c,l)-diversity); a table with fewer is
      refused before any search.
    - ``local_recoding``: the model may be checked class by class on a locally recoded
      release (Mondrian, KACA, condensation); a model that needs one generalization for
      the whole table declares False and those algorithms refuse it.
    """

    name: ClassVar[str]
    monotone_under_generalization: ClassVar[bool] = False
    monotone_under_suppression: ClassVar[bool] = False
    size_only: ClassVar[bool] = False
    local_recoding: ClassVar[bool] = True

    @property
    def minimal_class_size(self) -> int:
        """The fewest records of a class that can pass (1: no bound known)."""
        return 1

    @property
    def minimal_distinct_values(self) -> int:
        """The fewest distinct values of each checked sensitive attribute a passing
        class holds (1: no bound)."""
        return 1

    def checked_attributes(self, sensitive: Sequence[str]) -> tuple[str, ...]:
        """The sensitive attributes among ``sensitive`` the model checks (none by
        default: a model of class sizes)."""
        return ()

    def reported_distances(self, classes: EquivalenceClasses) -> dict[str, str]:
        """The t-closeness distance the model measures each sensitive attribute with
        (resolved, e.g. ``"ordered"``), for the reports; empty for other models."""
        return {}

    @abstractmethod
    def class_pass(self, classes: EquivalenceClasses) -> np.ndarray:
        """Boolean per class: the class meets the model (for every SA it covers)."""

    @abstractmethod
    def achieved(self, classes: EquivalenceClasses) -> dict[str, Any]:
        """What the partition reaches (``None`` where there is no class)."""

    @abstractmethod
    def requirement(self) -> str:
        """The requirement in words, e.g. ``"k ≥ 5"``."""

    @abstractmethod
    def to_dict(self) -> dict[str, Any]:
        """Plain parameters; :func:`model_from_dict` rebuilds the model."""

    def satisfied(self, classes: EquivalenceClasses) -> bool:
        """True when every class passes (vacuously true with no class)."""
        return bool(self.class_pass(classes).all())

    def violating_rows(self, classes: EquivalenceClasses) -> np.ndarray:
        """Boolean per row: the row is in a failing class (suppressed rows: False)."""
        fails = np.append(~self.class_pass(classes), False)  # index -1 → suppressed
        return fails[classes.ids]


class _PerAttribute(PrivacyModel):
    """A model checked per sensitive attribute; a class passes when every SA passes."""

    attributes: tuple[str, ...] | None
    #: the model's name in its plain parameters (``{"model": "t", …}``)
    code: ClassVar[str]

    @abstractmethod
    def _attribute_pass(self, classes: EquivalenceClasses, sa: str) -> np.ndarray: ...

    def class_pass(self, classes: EquivalenceClasses) -> np.ndarray:
        passed = np.ones(classes.n_classes, dtype=bool)
        for sa in _covered(classes, self.attributes):
            passed &= self._attribute_pass(classes, sa)
        return passed

    def _per_attribute(
        self, classes: EquivalenceClasses, measure: Callable[[str], np.ndarray], worst
    ) -> dict[str, Any]:
        return {sa: _worst(measure(sa), worst) for sa in _covered(classes, self.attributes)}

    def _attributes_dict(self) -> list[str] | None:
        return None if self.attributes is None else list(self.attributes)

    def to_dict(self) -> dict[str, Any]:
        """``{"model": code}`` and the model's fields in their order, ``attributes`` as a
        list (None: every sensitive attribute)."""
        params = {f.name: getattr(self, f.name) for f in fields(self)}
        return {"model": self.code, **params, "attributes": self._attributes_dict()}

    def checked_attributes(self, sensitive: Sequence[str]) -> tuple[str, ...]:
        return tuple(sensitive) if self.attributes is None else self.attributes


def _fmt(x: float) -> str:
    return f"{x:g}"


def _worst(values: np.ndarray, reducer) -> Any:
    return reducer(values).item() if len(values) else None
