"""What a release is, and which measures and attacks fit each kind of release.

A release is one of four kinds, declared by the method that made it, never guessed from
its cells:

- ``generalized``: every released cell is the original value or a coarser label that
  covers it (a range, a hierarchy level, ``*``) — full-domain and local recoding, local
  suppression;
- ``perturbed``: one record per original record, with values changed — averaged
  (microaggregation), randomized (PRAM, noise), swapped, top/bottom coded;
- ``synthetic``: new records drawn from a model of groups of records (condensation);
- ``dp_synthetic``: records drawn from a differentially private model of the data
  (MST, AIM).

Each figure a page, the command line or the report shows of a release is a
:class:`Consumer` of :data:`CONSUMERS`: the kinds it applies to, and for each other kind
the consumer that stands in for it (information loss of a perturbed release is its
distortion, not GCP) or ``None`` with the code of the words that say why nothing can be
computed. :func:`plan` reads that table for one kind; the registry test walks every
algorithm × every consumer and fails on one that skips a kind in silence.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

__all__ = ["CONSUMERS", "Consumer", "ReleaseKind", "plan", "stand_in"]


class ReleaseKind(StrEnum):
    """The kind of a release (see the module's text)."""

    GENERALIZED = "generalized"
    PERTURBED = "perturbed"
    SYNTHETIC = "synthetic"
    DP_SYNTHETIC = "dp_synthetic"


ALL_KINDS = frozenset(ReleaseKind)
_G, _P, _S, _D = (
    ReleaseKind.GENERALIZED,
    ReleaseKind.PERTURBED,
    ReleaseKind.SYNTHETIC,
    ReleaseKind.DP_SYNTHETIC,
)


@dataclass(frozen=True)
class Consumer:
    """A figure (a measure, a loss metric, an attack) and the release kinds it fits.

    ``applies_to``: the kinds it is computed for. ``instead``: for every other kind,
    the name of the consumer computed in its place, or ``None`` when nothing stands in
    (then ``why`` is the code of the words that say so, ``kinds.<why>``)."""

    name: str
    applies_to: frozenset[ReleaseKind]
    instead: Mapping[ReleaseKind, str | None] = field(default_factory=dict)
    why: str = ""

    def __post_init__(self) -> None:
        uncovered = ALL_KINDS - self.applies_to - set(self.instead)
        if uncovered:  # a kind neither served nor stood in for: the silent skip
            raise ValueError(f"{self.name}: no plan for {sorted(uncovered)}")
        if any(v is None for v in self.instead.values()) and not self.why:
            raise ValueError(f"{self.name}: a kind without a stand-in needs words (why)")


def _c(name: str, applies: set, instead: dict | None = None, why: str = "") -> Consumer:
    return Consumer(name, frozenset(applies), instead or {}, why)


_LOSS_INSTEAD = {_P: "distortion", _S: "marginal_distance", _D: "marginal_distance"}

#: Every figure shown of a release, with the kinds it fits.
CONSUMERS: dict[str, Consumer] = {
    c.name: c
    for c in (
        # Information loss (SPEC §5): the generalization metrics read how coarse a cell
        # became; a perturbed release is judged by its distortion, a synthetic one by
        # the distance of its marginals (privcore.measure.kind_loss).
        _c("gcp", {_G}, _LOSS_INSTEAD),
        _c("precision", {_G}, _LOSS_INSTEAD),
        _c("whd", {_G}, _LOSS_INSTEAD),
        _c("distortion", {_P}, {_G: "gcp", _S: "marginal_distance", _D: "marginal_distance"}),
        _c("marginal_distance", {_S, _D, _P}, {_G: "gcp"}),
        # Privacy models on the release's classes (a synthetic release: its groups).
        _c("k_anonymity", {_G, _P, _S}, {_D: "dp_guarantee"}),
        _c("l_diversity", {_G, _P, _S}, {_D: "dp_guarantee"}),
        _c("t_closeness", {_G, _P, _S}, {_D: "dp_guarantee"}),
        _c("dp_guarantee", {_D}, {_G: "k_anonymity", _P: "k_anonymity", _S: "k_anonymity"}),
        # Paired figures: each released record against its own original.
        # A condensation release keeps row i as the record drawn for record i's group;
        # a DP synthetic release has no such pairing.
        _c("privacy_level", {_G, _P, _S}, {_D: None}, why="no_own_record"),
        _c("utility_loss", {_G, _P, _S}, {_D: "marginal_distance"}),
        _c("real_records", ALL_KINDS),
        _c("suppressed_rows", ALL_KINDS),
        # Attacks (SPEC §6).
        _c(
            "linkage_exact",
            {_G},
            {_P: "linkage_distance", _S: "linkage_distance", _D: "linkage_distance"},
        ),
        _c("linkage_distance", {_P, _S, _D}, {_G: "linkage_exact"}),
        _c("homogeneity", {_G, _P, _S}, {_D: None}, why="no_classes"),
        _c("gdpr_risks", ALL_KINDS),
    )
}


def plan(kind: ReleaseKind | str) -> dict[str, str | None]:
    """For a release of ``kind``: each consumer's name → the consumer computed for it
    (itself, its stand-in, or None when nothing can be computed)."""
    kind = ReleaseKind(kind)
    return {name: stand_in(name, kind) for name in CONSUMERS}


def stand_in(name: str, kind: ReleaseKind | str) -> str | None:
    """The consumer computed in place of ``name`` for a release of ``kind``: ``name``
    itself when it applies, else its declared stand-in (None: nothing fits)."""
    consumer = CONSUMERS[name]
    kind = ReleaseKind(kind)
    return name if kind in consumer.applies_to else consumer.instead[kind]
