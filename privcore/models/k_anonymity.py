"""k-anonymity (Sweeney 2002)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from privcore.classes import EquivalenceClasses
from privcore.models.base import PrivacyModel
from privcore.models.checks import _whole


@dataclass(frozen=True)
class KAnonymity(PrivacyModel):
    """k-anonymity (Sweeney 2002): every equivalence class holds at least k rows.

    Achieved: k = the smallest class size.
    """

    k: int
    name: ClassVar[str] = "k-anonymity"
    monotone_under_generalization: ClassVar[bool] = True
    monotone_under_suppression: ClassVar[bool] = True
    size_only: ClassVar[bool] = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", _whole(self.k, "k", minimum=1))

    @property
    def minimal_class_size(self) -> int:
        return self.k

    def class_pass(self, classes: EquivalenceClasses) -> np.ndarray:
        return classes.sizes >= self.k

    def achieved(self, classes: EquivalenceClasses) -> dict[str, Any]:
        return {"k": int(classes.sizes.min()) if classes.n_classes else None}

    def requirement(self) -> str:
        return f"k ≥ {self.k}"

    def to_dict(self) -> dict[str, Any]:
        return {"model": "k", "k": self.k}
