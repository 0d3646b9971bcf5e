"""What a compliance officer requires of a release: :class:`Thresholds`.

The class size and the prosecutor risk are one requirement seen twice: a record of a
class of size s is re-identified with probability 1/s by someone who knows it is in the
release (SPEC §6), so "highest prosecutor risk ≤ r" holds exactly when every class has
at least ⌈1/r⌉ records. Giving one derives the other (:func:`k_for_risk`): a risk limit
of 0.1 asks for k ≥ 10, k = 5 for a risk limit of 0.2. The journalist risk counts the
people of the population matching a class, at least the class itself, so k ≥ ⌈1/r⌉
guarantees a journalist risk limit r too (0.1 → k = 10); smaller classes pass it only
when the population holds enough people like them.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from privcore.errors import ParameterError
from privcore.models import DistinctLDiversity, KAnonymity, PrivacyModel, TCloseness

__all__ = ["FOLLOWS_PROSECUTOR", "GDPR_THRESHOLDS", "TOLERANCE", "Thresholds", "k_for_risk"]

#: Slack of the comparisons (a risk of exactly 1/3 meets a limit of 1/3).
TOLERANCE = 1e-9

#: The check of each Article 29 risk and the threshold it is compared with.
GDPR_THRESHOLDS = {
    "singling_out": "max_singling_out",
    "linkability": "max_linkability",
    "inference": "max_inference",
}

#: The defaults when neither the class size nor the prosecutor risk is given.
_DEFAULT_K = 5

#: The default of every other risk limit (journalist, singling out, linkability,
#: inference): the prosecutor limit 1/k, the most an attacker may gain (see Thresholds).
FOLLOWS_PROSECUTOR = "max_prosecutor"

#: The limits that take the prosecutor limit unless given.
_FOLLOWERS = ("max_journalist", *GDPR_THRESHOLDS.values())


def k_for_risk(risk: float) -> int:
    """The smallest class size whose re-identification risk 1/k is at most ``risk``:
    ⌈1/risk⌉ (0.2 → 5, 0.1 → 10, 1/3 → 3)."""
    return max(1, math.ceil(1.0 / float(risk) - TOLERANCE))


def _bad(name: str, value: Any, allowed: str) -> ParameterError:
    return ParameterError(
        f"The threshold {name} must be {allowed}, not {value!r}.",
        code="report.bad_threshold",
        threshold=name,
        value=repr(value),
        allowed=allowed,
    )


def _real(name: str, value: Any, lo: float, hi: float, *, open_lo: bool = False) -> float:
    allowed = f"a number in {'(' if open_lo else '['}{lo:g}, {hi:g}]"
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise _bad(name, value, allowed)
    number = float(value)
    if not math.isfinite(number) or number < lo or number > hi or (open_lo and number <= lo):
        raise _bad(name, value, allowed)
    return number


def _whole(name: str, value: Any) -> int:
    allowed = "a whole number ≥ 1"
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise _bad(name, value, allowed)
    if not math.isfinite(float(value)) or float(value) != int(value) or int(value) < 1:
        raise _bad(name, value, allowed)
    return int(value)


@dataclass(frozen=True)
class Thresholds:
    """What the compliance officer requires of a release (None: not required).

    The defaults are what a careful reviewer of a release to the public signs, and
    they agree with one another: one risk limit, 1/k, for every way of being found.

    - ``min_k`` and ``max_prosecutor``: one requirement (see the module docstring).
      Neither given: k = 5 and 0.2 (every person hides among at least 5 records, common
      guidance for public health data); one given: the other follows (``max_prosecutor
      = 0.1`` → ``min_k = 10``; ``min_k = 3`` → ``max_prosecutor = 1/3``); both given:
      both are checked as given;
    - ``min_l = 2``: distinct 2-diversity per sensitive attribute, so that no class
      gives its value away;
    - ``max_t = None``: t-closeness not required (auto distance when set);
    - ``max_pl = 0.3``: the privacy level PL(all) of SPEC §3 (0 = nothing learned, 1 =
      everything);
    - ``max_journalist``: highest re-identification probability for someone known only
      to be in the population (the synthetic roll); default the prosecutor limit (0.2
      with k = 5), which k-anonymity guarantees — a smaller journalist limit asks for
      more than the class size does (0.1 needs k = 10), so it is never the default;
    - ``max_reidentified_share = 0``: nobody may be re-identified by the linkage attack;
    - ``max_disclosed_share = 0.05``: at most 5 % of the people may have a sensitive
      value disclosed by the linkage attack (any sensitive attribute);
    - ``max_suppressed_share = 0.05``: at most 5 % of the rows suppressed (the default
      suppression limit of the Anonymize page and ``privcore anonymize``);
    - ``min_ul = None``: no utility floor;
    - ``max_singling_out``, ``max_linkability``, ``max_inference``: the three risks of
      the Article 29 Working Party (opinion 05/2014) as Anonymeter measures them
      (:func:`~privcore.attacks.gdpr_risks.gdpr_risks`: excess success of an attacker on
      released records over held-out control records, 0 = none, 1 = always); default
      the prosecutor limit, so an attacker singling out, linking or inferring may gain
      no more than a class of k records allows; the inference limit applies to every
      sensitive attribute. ``None``: not required;
    - ``max_reconstructed_share = None``: the share of the records an integer program
      rebuilds exactly from the tables an agency would publish beside the release (and
      from its cells) (:mod:`privcore.report.reconstructed`); not required by default,
      since the attack takes up to a minute of solving.

    A limit left at its default (:data:`FOLLOWS_PROSECUTOR`) takes the prosecutor
    limit once that is known.
    Out-of-range values raise :class:`~privcore.errors.ParameterError`.
    """

    min_k: int | None = None
    min_l: float | None = 2
    max_t: float | None = None
    max_pl: float | None = 0.3
    max_prosecutor: float | None = None
    max_journalist: float | str | None = FOLLOWS_PROSECUTOR
    max_reidentified_share: float = 0.0
    max_disclosed_share: float = 0.05
    max_suppressed_share: float = 0.05
    min_ul: float | None = None
    max_singling_out: float | str | None = FOLLOWS_PROSECUTOR
    max_linkability: float | str | None = FOLLOWS_PROSECUTOR
    max_inference: float | str | None = FOLLOWS_PROSECUTOR
    max_reconstructed_share: float | None = None

    def __post_init__(self) -> None:
        k, risk = self.min_k, self.max_prosecutor
        if k is not None:
            k = _whole("min_k", k)
        if risk is not None:
            risk = _real("max_prosecutor", risk, 0.0, 1.0, open_lo=True)
        if k is None and risk is None:
            k = _DEFAULT_K
        if risk is None:
            risk = 1.0 / k
        if k is None:
            k = k_for_risk(risk)
        object.__setattr__(self, "min_k", k)
        object.__setattr__(self, "max_prosecutor", risk)
        for name in _FOLLOWERS:
            if getattr(self, name) == FOLLOWS_PROSECUTOR:
                object.__setattr__(self, name, risk)
        if self.min_l is not None:
            object.__setattr__(self, "min_l", _real("min_l", self.min_l, 1.0, 1e9))
        optional = {
            "max_t": self.max_t,
            "max_pl": self.max_pl,
            "min_ul": self.min_ul,
            "max_reconstructed_share": self.max_reconstructed_share,
            **{name: getattr(self, name) for name in GDPR_THRESHOLDS.values()},
        }
        for name, value in optional.items():
            if value is not None:
                object.__setattr__(self, name, _real(name, value, 0.0, 1.0))
        if self.max_journalist is not None:
            object.__setattr__(
                self,
                "max_journalist",
                _real("max_journalist", self.max_journalist, 0.0, 1.0, open_lo=True),
            )
        for name in ("max_reidentified_share", "max_disclosed_share", "max_suppressed_share"):
            object.__setattr__(self, name, _real(name, getattr(self, name), 0.0, 1.0))

    @property
    def needs_gdpr_risks(self) -> bool:
        """Whether any of the three Article 29 risks is required (then the report
        measures them)."""
        return any(getattr(self, name) is not None for name in GDPR_THRESHOLDS.values())

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> Thresholds:
        """Rebuild from :meth:`to_dict` output; missing keys take their defaults."""
        if data is None:
            return cls()
        if not isinstance(data, Mapping):
            raise ParameterError(
                f"Thresholds must be a mapping of names to values, not {type(data).__name__}.",
                code="report.bad_threshold",
            )
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(str(k) for k in data if k not in known)
        if unknown:
            raise ParameterError(
                f"Unknown threshold(s): {', '.join(unknown)}; known: {', '.join(sorted(known))}.",
                code="report.unknown_threshold",
                names=unknown,
            )
        return cls(**dict(data))

    def models(self) -> list[PrivacyModel]:
        """The privacy models these thresholds require (k, distinct l, t auto)."""
        models: list[PrivacyModel] = [KAnonymity(self.min_k)]
        if self.min_l is not None:
            models.append(DistinctLDiversity(math.ceil(self.min_l - TOLERANCE)))
        if self.max_t is not None:
            models.append(TCloseness(self.max_t, "auto"))
        return models
