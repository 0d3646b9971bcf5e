"""The result type shared by every attack (SPEC §6)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from privcore.core.jsonsafe import plain


@dataclass(frozen=True, eq=False)
class AttackReport:
    """What an attack achieved: summary numbers, one row per target, and why.

    ``summary`` holds JSON-safe numbers (counts, shares, risks); ``targets`` one row per
    target (victim) with the attacker's chain of reasoning in columns; ``explanations``
    plain-language sentences (English; each also has a stable ``code`` in
    ``details["explanation_codes"]`` so a UI can translate it); ``details`` holds extra
    tables or arrays for charts.
    """

    attack: str
    summary: dict[str, Any]
    targets: pd.DataFrame
    explanations: tuple[str, ...] = ()
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe summary (no per-target rows: those can hold personal data)."""
        return {
            "attack": self.attack,
            "summary": plain(self.summary),
            "explanations": list(self.explanations),
        }
