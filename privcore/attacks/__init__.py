"""Attacks on a release (SPEC §6): a synthetic voter roll, linkage, homogeneity,
background knowledge, unsorted matching, complementary releases.

Each attack returns an :class:`~privcore.attacks.report.AttackReport`;
:func:`simulate` runs the linkage and homogeneity attacks before (on the original
table, its QIs as they are) and after anonymization (on the release), as the Attack
page and ``python -m privcore attack`` show them. Singling out, linkability and
inference against a control set (Anonymeter's definitions, SPEC §11) are in
:mod:`privcore.attacks.gdpr_risks`, imported from there when used.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from privcore.attacks.background import background_attack
from privcore.attacks.composition import complementary_attack, effective_k
from privcore.attacks.distance_linkage import distance_linkage, wilson
from privcore.attacks.homogeneity import homogeneity_attack
from privcore.attacks.linkage import DEFAULT_TOLERANCE, linkage_attack, match_roll
from privcore.attacks.ordering import export_order, unsorted_matching_attack
from privcore.attacks.report import AttackReport
from privcore.attacks.roll import RollFrequencySet, VoterRoll, build_roll, roll_frequency_set
from privcore.core.progress import Progress
from privcore.data.hierarchy import Hierarchy
from privcore.data.roles import is_measurement
from privcore.errors import ParameterError
from privcore.matching import checked_counts, read_roll

LINKAGE_KEYS = (
    "targets",
    "unique_matches",
    "reidentified",
    "false_matches",
    "precision",
    "attribute_disclosed",
    "attribute_within_tolerance",
    "tolerance",
    "baseline",
    "suppressed_targets",
)
HOMOGENEITY_KEYS = ("classes_exposed", "records_exposed", "records_exposed_share", "classes")
RISK_KEYS = (
    "prosecutor_max",
    "prosecutor_avg",
    "journalist_max",
    "journalist_avg",
    "marketer",
    "records_at_risk",
)


@dataclass(frozen=True, eq=False)
class Simulation:
    """Linkage and homogeneity before and after anonymization, against one roll (a
    :class:`RollFrequencySet` when the data set is a weighted frequency set)."""

    roll: VoterRoll | RollFrequencySet
    linkage: dict[str, AttackReport]  # "before", "after"
    homogeneity: dict[str, AttackReport]
    seconds: float
    #: distance-based record linkage of the roll's people against the release
    #: (:func:`~privcore.attacks.distance_linkage.distance_linkage`)
    distance: dict[str, Any] | None = None

    def strongest(self) -> dict[str, Any]:
        """The linkage attack that re-identifies more of the release's people, exact
        (Sweeney's join) or by distance (DBRL): ``method``, ``reidentified``,
        ``targets``, ``share`` and its 95 % Wilson ``interval``. A perturbed release
        defeats the exact join by construction, so a report judges on this one."""
        exact = self.linkage["after"].summary
        targets = int(exact.get("targets") or 0)
        found = float(exact.get("reidentified") or 0)
        best = {
            "method": "exact",
            "reidentified": found,
            "targets": targets,
            "share": found / targets if targets else 0.0,
            "interval": list(wilson(found, targets)),
        }
        if self.distance is not None and self.distance["share"] > best["share"]:
            best = {k: self.distance[k] for k in ("reidentified", "targets", "share", "interval")}
            best["method"] = "distance"
        return best

    def figures(self, when: str) -> dict[str, Any]:
        linkage = self.linkage[when].summary
        homogeneity = self.homogeneity[when].summary
        return {
            "linkage": {k: linkage.get(k) for k in LINKAGE_KEYS},
            "homogeneity": {k: homogeneity.get(k) for k in HOMOGENEITY_KEYS},
            "risk": {k: linkage.get("risk", {}).get(k) for k in RISK_KEYS},
        }

    def to_dict(self) -> dict[str, Any]:
        """The documented JSON of ``python -m privcore attack``: the release's figures at
        the top level, the original table's under ``before``."""
        after = AttackReport("", self.figures("after"), pd.DataFrame()).to_dict()["summary"]
        before = AttackReport("", self.figures("before"), pd.DataFrame()).to_dict()["summary"]
        return {
            **after,
            "linkage_distance": self.distance,
            "linkage_strongest": self.strongest(),
            "before": before,
            "roll": self.roll.to_dict(),
            "seconds": round(self.seconds, 3),
        }


def simulate(
    original: pd.DataFrame,
    release: pd.DataFrame,
    qi: Sequence[str],
    sa: Sequence[str],
    *,
    weights: np.ndarray | None = None,
    roll: VoterRoll | RollFrequencySet | pd.DataFrame | None = None,
    roll_size: int | None = None,
    seed: int = 0,
    locale: str = "en",
    hierarchies: Mapping[str, Hierarchy] | None = None,
    tau: float = 1.0,
    risk_threshold: float = 0.2,
    tolerance: float = DEFAULT_TOLERANCE,
    progress: Progress | None = None,
    blanked: np.ndarray | None = None,
    explain: bool = True,
) -> Simulation:
    """Build (or reuse) a voter roll holding the data set's people and attack the
    original table and the release with it. ``release`` rows are aligned with
    ``original`` (row i is record i). ``tolerance``: a numeric sensitive value counts as
    learnt within ± ``tolerance`` of the true value, relative to it
    (:func:`~privcore.attacks.linkage.linkage_attack`).

    ``weights`` (whole numbers ≥ 1, one per row) make ``original`` and ``release``
    (aligned) a weighted frequency set (SPEC §9): row i stands for ``weights[i]``
    records. The roll is then a roll frequency set: :func:`roll_frequency_set` of
    ``roll_size`` people drawn with ``seed`` when none is given, or the given one (a
    :class:`RollFrequencySet`, or a DataFrame with the QI columns, ``record`` and
    ``count``); every figure is that of the expanded tables, and ``roll`` in
    :meth:`Simulation.to_dict` gives its size in people and its seed (None for a
    given table). ``locale`` is unused then: a frequency set names nobody.

    ``blanked`` (a boolean per release row: the rows the method that made the release
    blanked, ``Release.suppressed`` of a release made here) makes the attacks on the
    release count its own suppressed rows, the figure of its report and measurement
    (:func:`~privcore.classes.equivalence_classes`).

    ``explain=False``: the linkage attacks keep their figures only, for a caller that
    reads nothing else (:func:`~privcore.attacks.linkage.linkage_attack`).
    """
    started = time.perf_counter()

    def part(lo: float, hi: float) -> Progress | None:
        if progress is None:
            return None
        return lambda fraction, message: progress(lo + (hi - lo) * fraction, message)

    if weights is not None:
        weights = checked_counts(
            weights, len(original), what="row weights of the data set", code="attack.bad_weights"
        )
    roll = _attack_roll(roll, original, qi, weights, roll_size, seed, locale, part(0.0, 0.2))
    qi, sa = list(qi), list(sa)
    # one roll for both attacks, read once (a roll lacking a QI is refused by the attacks)
    named = {str(q) for q in qi}
    roll_codes = read_roll(roll.frame, qi) if named and named <= set(roll.frame.columns) else None
    # both attacks read the same roll, truth and settings; the release's also its
    # hierarchies and its own suppressed rows
    shared: dict[str, Any] = {
        "truth": original,
        "risk_threshold": risk_threshold,
        "tolerance": tolerance,
        "weights": weights,
        "roll_codes": roll_codes,
        "explain": explain,
    }
    linkage = {
        "before": linkage_attack(original, roll.frame, qi, sa, progress=part(0.2, 0.5), **shared),
        "after": linkage_attack(
            release,
            roll.frame,
            qi,
            sa,
            hierarchies=hierarchies,
            blanked=blanked,
            progress=part(0.5, 0.9),
            **shared,
        ),
    }
    people = roll.frame
    distance = distance_linkage(
        release,
        people,
        people["record"].to_numpy(),
        qi,
        [q for q in qi if is_measurement(original[q], q, (hierarchies or {}).get(q))],
        original=original,
        weights=weights,
        counts=None if weights is None else people["count"].to_numpy(),
        target_codes=roll_codes,
    )
    homogeneity = {
        "before": homogeneity_attack(original, qi, sa, tau=tau, weights=weights),
        "after": homogeneity_attack(release, qi, sa, tau=tau, weights=weights, blanked=blanked),
    }
    if progress is not None:
        progress(1.0, "Done")
    return Simulation(roll, linkage, homogeneity, time.perf_counter() - started, distance)


def _attack_roll(
    roll: Any,
    original: pd.DataFrame,
    qi: Sequence[str],
    weights: np.ndarray | None,
    size: int | None,
    seed: int,
    locale: str,
    progress: Progress | None,
) -> VoterRoll | RollFrequencySet:
    """The roll of :func:`simulate`: the given one, else one drawn (:func:`build_roll`,
    or with ``weights`` :func:`roll_frequency_set`); a roll frequency set needs
    ``weights``."""
    if weights is not None:
        return _frequency_roll(roll, original, qi, weights, size, seed, progress)
    if isinstance(roll, (RollFrequencySet, pd.DataFrame)):
        raise ParameterError(
            "A voter roll given as a frequency set (rows with a count) needs the data set as "
            "a frequency set too: give the row weights.",
            code="attack.roll_needs_weights",
        )
    if roll is None:
        return build_roll(original, qi, size=size, seed=seed, locale=locale, progress=progress)
    return roll


def _frequency_roll(
    roll: Any,
    original: pd.DataFrame,
    qi: Sequence[str],
    weights: np.ndarray,
    size: int | None,
    seed: int,
    progress: Progress | None,
) -> RollFrequencySet:
    """The roll of a weighted frequency set: drawn when not given, else the given roll
    frequency set (a table with ``record`` and ``count`` is taken as one)."""
    if roll is None:
        return roll_frequency_set(
            original, qi, weights=weights, size=size, seed=seed, progress=progress
        )
    if isinstance(roll, RollFrequencySet):
        return roll
    if isinstance(roll, pd.DataFrame) and {"record", "count"} <= set(roll.columns):
        return RollFrequencySet(roll, tuple(str(q) for q in qi))
    raise ParameterError(
        "With a data set given as a frequency set, the voter roll must be one too: a table "
        "with the quasi-identifiers, 'record' and 'count' (how many people each row stands "
        "for).",
        code="attack.roll_not_frequency_set",
    )


__all__ = [
    "AttackReport",
    "RollFrequencySet",
    "Simulation",
    "VoterRoll",
    "background_attack",
    "build_roll",
    "complementary_attack",
    "effective_k",
    "export_order",
    "homogeneity_attack",
    "linkage_attack",
    "match_roll",
    "roll_frequency_set",
    "simulate",
    "unsorted_matching_attack",
]
