"""What the singling-out, linkability and inference attacks return: one attack's
:class:`RiskResult` (its residual risk, the naive attacker's baseline, the counts behind
them) and the three of one release together (:class:`GdprRisks`), each with its JSON form
(``to_dict``, the keys of the command line's ``privcore risk`` and of a report's
``gdpr_risks``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from privcore.core.jsonsafe import plain

#: The three attacks, as named in results and in the command line's JSON.
ATTACKS = ("singling_out", "linkability", "inference")
DEFAULT_ATTACKS = 500  # Anonymeter's default number of attacks


@dataclass(frozen=True, eq=False)
class RiskResult:
    """One attack's outcome (Anonymeter's ``risk()``, ``results()`` and baseline).

    ``risk`` and ``ci`` (clipped to [0, 1]); ``baseline`` and ``baseline_ci`` (the naive
    attacker's success rate); ``attack_rate`` / ``control_rate`` (Wilson centres on
    training and control records); the counts behind them (``n_control`` may be
    fractional after the singling-out size correction); ``parameters`` of the attack;
    ``warnings`` as codes.
    """

    attack: str
    risk: float
    ci: tuple[float, float]
    baseline: float
    baseline_ci: tuple[float, float]
    attack_rate: float
    control_rate: float
    n_attacks: int
    n_success: int
    n_control: float
    n_baseline: int
    n_baseline_attacks: int
    confidence: float
    parameters: Mapping[str, Any] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return plain(
            {
                "risk": self.risk,
                "ci": list(self.ci),
                "baseline": self.baseline,
                "baseline_ci": list(self.baseline_ci),
                "attack_rate": self.attack_rate,
                "control_rate": self.control_rate,
                "n_attacks": self.n_attacks,
                "n_success": self.n_success,
                "n_control": self.n_control,
                "n_baseline": self.n_baseline,
                "n_baseline_attacks": self.n_baseline_attacks,
                "confidence": self.confidence,
                "attack": self.attack,
                "parameters": dict(self.parameters),
                "warnings": list(self.warnings),
            }
        )


@dataclass(frozen=True, eq=False)
class GdprRisks:
    """The three risks of one release (:func:`gdpr_risks`): ``singling_out``,
    ``linkability`` (None with fewer than two quasi-identifiers), ``inference`` per
    sensitive attribute; the sizes of the training and control sets and where the control
    set came from (``"given"`` or ``"held_out"``)."""

    singling_out: RiskResult
    linkability: RiskResult | None
    inference: Mapping[str, RiskResult]
    training_rows: int
    control_rows: int
    control_source: str
    warnings: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return plain(
            {
                "singling_out": self.singling_out.to_dict(),
                "linkability": None if self.linkability is None else self.linkability.to_dict(),
                "inference": {sa: r.to_dict() for sa, r in self.inference.items()},
                "training_rows": self.training_rows,
                "control_rows": self.control_rows,
                "control": self.control_source,
                "warnings": list(self.warnings),
            }
        )
