"""Risk beyond class sizes, for any release (SPEC §11): one assessment with every estimate.

:func:`assess_risk` measures the *released* table (what is published) against its
original:

- **population uniqueness** (Zayatz, Pitman, SNB and Dankar et al.'s rule) and the
  **individual risk** of Benedetti & Franconi (expected re-identifications, the largest
  record risk), both from the release's equivalence classes on the QIs and the sampling
  fraction π: given, or n / |population| when a population table is given, or else that of
  the attack simulator's default voter roll, whose population holds the data set's people
  among ten times as many (π = 1/10; ``sampling_fraction_source`` says which);
- **SUDA2** special uniques of the release;
- **δ-presence and k-map** against the population table, when one is given;
- **singling out, linkability and inference** (Anonymeter's definitions) against a control
  set: given, or a seeded share of the original held out
  (:func:`privcore.attacks.gdpr_risks.gdpr_risks`), which needs the release's rows in the
  original's order (a release evidently shuffled is refused: ``risk.row_order``).

A joint frequency set (an engine's pairs of original and released tuples, ``weights``
their counts) gives the figures of the records it stands for: the class-based estimates
read the counts; the three attacks run on the records (:func:`pairs_as_records`), all of
them up to :data:`GDPR_RECORDS`, else a uniform sample of that many (the result's
``control.sample``).

:meth:`RiskAssessment.to_dict` has the command line's keys (``privcore risk``);
:meth:`RiskAssessment.history_summary` the same without released cells.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from privcore.attacks.gdpr_risks import GdprRisks, gdpr_risks
from privcore.core.jsonsafe import plain
from privcore.core.progress import Progress
from privcore.data.hierarchy import Hierarchy
from privcore.errors import DataFormatError, ParameterError, PrivcoreError
from privcore.measure.entropy import check_row_order
from privcore.measure.population import (
    IndividualRisk,
    PopulationUniqueness,
    individual_risk,
    population_uniqueness,
)
from privcore.measure.presence import PopulationPresence, presence
from privcore.measure.suda2 import Suda2Result, suda2

__all__ = [
    "DEFAULT_ROLL_FACTOR",
    "GDPR_RECORDS",
    "RiskAssessment",
    "assess_risk",
    "held_out_risks",
    "not_measured",
    "pairs_as_records",
]

#: The attack simulator's voter roll holds this many people per record by default; its
#: sampling fraction is the default of the population estimates.
DEFAULT_ROLL_FACTOR = 10
#: The most record pairs of a frequency set read into memory to measure singling out,
#: linkability and inference (10⁶ pairs: about 3 s and 0.5 GB); a larger set is measured
#: on a uniform sample of this many.
GDPR_RECORDS = 1_000_000


def pairs_as_records(
    original_part: pd.DataFrame,
    release_part: pd.DataFrame,
    weights: Any,
    *,
    limit: int = GDPR_RECORDS,
    seed: int = 0,
) -> tuple[pd.DataFrame, pd.DataFrame, bool]:
    """The record pairs a joint frequency set stands for (``original_part`` and
    ``release_part`` aligned, ``weights`` their counts), as two row-aligned tables: every
    pair, each tuple repeated by its count, when there are at most ``limit``; else
    ``limit`` pairs drawn uniformly without replacement (seeded), and True."""
    weights = np.asarray(weights, dtype=np.int64)
    total = int(weights.sum())
    sampled = total > limit
    if sampled:
        picked = np.sort(np.random.default_rng(seed).choice(total, size=limit, replace=False))
        index = np.searchsorted(np.cumsum(weights), picked, side="right")
    else:
        index = np.repeat(np.arange(len(weights)), weights)
    return (
        original_part.iloc[index].reset_index(drop=True),
        release_part.iloc[index].reset_index(drop=True),
        sampled,
    )


@dataclass(frozen=True, eq=False)
class RiskAssessment:
    """Every population-level and Anonymeter-style risk of one release."""

    population_uniqueness: PopulationUniqueness
    individual_risk: IndividualRisk
    suda2: Suda2Result
    presence: PopulationPresence | None
    gdpr: GdprRisks | None
    sampling_fraction: float
    sampling_fraction_source: str  # "given", "population" or "roll"
    #: {rows, records}: the attacks ran on a sample of ``rows`` of the ``records``
    gdpr_sample: Mapping[str, int] | None = None
    #: the released QI cells assessed (row i of the per-record arrays), never recorded
    released: pd.DataFrame | None = field(default=None, repr=False)

    def to_dict(self) -> dict[str, Any]:
        """``population_uniqueness`` {model, share, …}, ``individual_risk``
        {expected_reidentifications, max, …}, ``suda2`` {special_uniques, …},
        ``delta_presence`` {min, max, …} and ``k_map`` (with a population, else None),
        ``singling_out``, ``linkability`` {risk, ci, baseline, …}, ``inference``
        {sa: {risk, ci, baseline, …}}, ``control`` (the sizes of the training and control
        sets, the control set's source and, when the attacks ran on a sample of a
        frequency set's records, ``sample`` {rows, records}), ``sampling_fraction`` and
        its source."""
        out: dict[str, Any] = {
            "population_uniqueness": self.population_uniqueness.to_dict(),
            "individual_risk": self.individual_risk.to_dict(),
            "suda2": self.suda2.to_dict(),
            "delta_presence": None,
            "k_map": None,
            "sampling_fraction": self.sampling_fraction,
            "sampling_fraction_source": self.sampling_fraction_source,
        }
        if self.presence is not None:
            found = self.presence.to_dict()
            out["delta_presence"] = found["delta_presence"]
            out["k_map"] = found["k_map"]
            out["population"] = {
                key: found[key]
                for key in ("population", "classes", "short_classes", "unmatched_classes")
            }
        if self.gdpr is not None:
            risks = self.gdpr.to_dict()
            out["singling_out"] = risks["singling_out"]
            out["linkability"] = risks["linkability"]
            out["inference"] = risks["inference"]
            out["control"] = {
                "source": risks["control"],
                "training_rows": risks["training_rows"],
                "control_rows": risks["control_rows"],
                "warnings": risks["warnings"],
            }
            if self.gdpr_sample is not None:
                out["control"]["sample"] = dict(self.gdpr_sample)
        return plain(out)

    def history_summary(self) -> dict[str, Any]:
        """:meth:`to_dict` — figures, names and parameters, no released cell."""
        return self.to_dict()

    def record_risks(self) -> pd.DataFrame:
        """One row per released row, in the order assessed (``row`` its position): its
        QI cells, the Benedetti–Franconi ``individual_risk`` E[1/F | f], SUDA2's
        ``suda_score`` and ``dis_score``, and ``msus``, the minimal sample uniques the
        row holds (sdcMicro's per-record view). On a frequency set a row stands for each
        of its records."""
        scores = self.suda2
        figures = pd.DataFrame(
            {
                "individual_risk": self.individual_risk.per_record,
                "suda_score": scores.scores,
                "dis_score": scores.dis_scores,
                "msus": scores.record_msu_counts.sum(axis=1).astype(np.int64),
            }
        )
        cells = [] if self.released is None else [self.released.reset_index(drop=True)]
        rows = pd.DataFrame({"row": np.arange(len(figures))})
        return pd.concat([rows, *cells, figures], axis=1)


def _sampling_fraction(
    records: int, sampling_fraction: float | None, population: pd.DataFrame | None
) -> tuple[float, str]:
    if sampling_fraction is not None and population is not None:
        raise ParameterError(
            "Give either the sampling fraction or the population table, not both.",
            code="population.fraction_and_population",
        )
    if sampling_fraction is not None:
        return float(sampling_fraction), "given"
    if population is not None:
        if len(population) < records:
            raise ParameterError(
                f"The population table has {len(population):,} people, fewer than the "
                f"{records:,} records of the data set it should contain.",
                code="population.smaller_than_sample",
                population=len(population),
                records=records,
            )
        return records / len(population), "population"
    return 1.0 / DEFAULT_ROLL_FACTOR, "roll"


def not_measured(exc: PrivcoreError) -> dict[str, Any]:
    """What kept a risk from being measured, as results keep it: the error's ``error``
    code and ``error_params`` (words for the interface, never rows)."""
    return {"error": exc.code, "error_params": plain(dict(exc.params))}


def held_out_risks(
    original: pd.DataFrame,
    make: Any,
    qi: Sequence[str],
    sa: Sequence[str],
    *,
    control_fraction: float = 0.2,
    seed: int = 0,
    hierarchies: Mapping[str, Hierarchy] | None = None,
) -> GdprRisks:
    """Singling out, linkability and inference of a release method rather than of one
    release: a seeded ``control_fraction`` of ``original``'s records is held out, the
    release is made again from the rest (``make(training)`` returns the released table,
    of any size and order: synthesized records, a DP release…), and the three risks are
    measured against the held-out records, which that release never saw (SPEC §11)."""
    n = len(original)
    held = round(float(control_fraction) * n)
    if not 0.0 < float(control_fraction) < 1.0 or held < 1 or held > n - 1:
        raise ParameterError(
            f"A table of {n} rows cannot be split into training and control sets at "
            f"{control_fraction:g}.",
            code="gdpr_risk.too_few_rows",
            rows=n,
            fraction=float(control_fraction),
        )
    order = np.random.default_rng(seed).permutation(n)
    control = original.iloc[np.sort(order[:held])].reset_index(drop=True)
    training = original.iloc[np.sort(order[held:])].reset_index(drop=True)
    return gdpr_risks(
        training, make(training), qi, sa, control=control, seed=seed, hierarchies=hierarchies
    )


def _check_aligned(
    original: pd.DataFrame,
    release: pd.DataFrame,
    qi: Sequence[str],
    hierarchies: Mapping[str, Hierarchy] | None,
) -> None:
    """Holding a control share of the original out drops its rows from the release by
    position, which needs the release's rows in the original's order: a release that is
    evidently a shuffled generalization of the original
    (:func:`~privcore.measure.entropy.check_row_order`) is refused (``risk.row_order``:
    give a control set instead)."""
    try:
        check_row_order(original, release, qi, hierarchies)
    except DataFormatError as exc:
        if exc.code != "measure.row_order":
            raise
        raise DataFormatError(
            "The release's rows are not in the original's order (column "
            f"'{exc.params['column']}'), so a control share of the original cannot be held "
            "out of it: give a control set (records of the population never released) to "
            "measure singling out, linkability and inference, or leave them out.",
            code="risk.row_order",
            column=exc.params["column"],
        ) from exc


def assess_risk(
    original: pd.DataFrame,
    release: pd.DataFrame,
    qi: Sequence[str],
    sa: Sequence[str],
    *,
    hierarchies: Mapping[str, Hierarchy] | None = None,
    sampling_fraction: float | None = None,
    population: pd.DataFrame | None = None,
    control: pd.DataFrame | None = None,
    seed: int = 0,
    gdpr: bool = True,
    weights: Any = None,
    progress: Progress | None = None,
) -> RiskAssessment:
    """Assess ``release`` (made from ``original``) on ``qi``/``sa``: see the module
    docstring. ``gdpr=False`` leaves out singling out, linkability and inference.
    ``weights``: ``original`` and ``release`` are a joint frequency set, row i of each
    standing for ``weights[i]`` record pairs."""
    qi, sa = list(qi), list(sa)
    missing = [c for c in (*qi, *sa) if c not in release.columns]
    if missing:
        raise ParameterError(
            f"The release has no column {', '.join(missing)}: its risk is assessed on the "
            "quasi-identifiers and sensitive attributes it publishes — choose those.",
            code="risk.release_columns",
            columns=", ".join(missing),
        )

    def step(fraction: float, message: str) -> None:
        if progress is not None:
            progress(fraction, message)

    records = len(original) if weights is None else int(np.asarray(weights).sum())
    released = release[qi].reset_index(drop=True)
    fraction, source = _sampling_fraction(records, sampling_fraction, population)
    step(0.0, "population uniqueness")
    uniqueness = population_uniqueness(release, qi, sampling_fraction=fraction, weights=weights)
    individual = individual_risk(release, qi, sampling_fraction=fraction, weights=weights)
    step(0.15, "SUDA2 special uniques")
    uniques = suda2(release, qi, weights=weights)
    found = None
    if population is not None:
        step(0.3, "δ-presence and k-map")
        found = presence(release, qi, population, hierarchies=hierarchies, weights=weights)
    risks, sample = None, None
    if gdpr:
        step(0.45, "singling out, linkability, inference")
        if weights is not None:
            original, release, sampled = pairs_as_records(
                original, release, weights, limit=GDPR_RECORDS, seed=seed
            )
            if sampled:
                sample = {"rows": len(original), "records": records}
        if control is None and len(release) == len(original):
            _check_aligned(original, release, qi, hierarchies)
        risks = gdpr_risks(
            original, release, qi, sa, control=control, seed=seed, hierarchies=hierarchies
        )
    step(1.0, "done")
    return RiskAssessment(
        uniqueness,
        individual,
        uniques,
        found,
        risks,
        fraction,
        source,
        gdpr_sample=sample,
        released=released,
    )
