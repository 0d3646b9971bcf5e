"""Measure a release against its original: every number of SPEC §2, §3, §5 in one call.

:func:`measure_release` aligns the two tables, builds the release's equivalence
classes (:func:`~privcore.classes.release_classes`: rows whose QIs are all ``*`` are a
real class when, as one class, they meet every requested model, and suppression
otherwise — with no model requested they are a class), evaluates the privacy models,
and computes PL / DR / UL, per-attribute PL, re-identification risk, information loss
and the released rows that are real records (:func:`real_records`). The result's
:meth:`to_dict` is the JSON contract of ``python -m privcore measure --json``.

A release may also be given as a weighted frequency set (SPEC §9, ``weights``): the
distinct (original row, released row) pairs of a table too large for memory, with the
records each stands for, as an engine counts them. Every figure then counts records —
class sizes, value and pair counts, entropies, sums of losses, real records — and equals
the figure of the two tables with row i repeated ``weights[i]`` times.

The rows are paired by :mod:`privcore.measure.pairing`; the released rows that are real
records are counted by :mod:`privcore.measure.records`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from privcore.classes import (
    EquivalenceClasses,
    TableCodes,
    compact_codes,
    release_classes,
    top_rows,
)
from privcore.core.jsonsafe import plain
from privcore.core.notes import Note
from privcore.data.hierarchy import Hierarchy
from privcore.errors import RoleError
from privcore.measure.entropy import (
    NOTE_CONSTANT,
    NOTE_NOT_MEANINGFUL,
    InformationMeasures,
    PrivacyLevel,
)
from privcore.measure.loss import (
    CodedColumn,
    ColumnLoss,
    ColumnPairs,
    average_class_size,
    column_loss,
    column_pairs,
    discernibility,
    gcp_of_sums,
    precision_of_counts,
    whd_distortion,
)
from privcore.measure.pairing import PairedTables, aligned_blanked, match_rows, pair_tables
from privcore.measure.records import real_records
from privcore.models import ModelReport, PrivacyModel, evaluate
from privcore.risk import RiskSummary, risk_summary

__all__ = [
    "NEEDS_ALIGNMENT",
    "ReleaseMeasurement",
    "aligned_blanked",
    "information_loss",
    "match_rows",
    "measure_release",
    "real_records",
]


@dataclass(frozen=True, eq=False)
class ReleaseMeasurement:
    """Everything measured on one release (see :func:`measure_release`)."""

    qi: tuple[str, ...]
    sa: tuple[str, ...]
    key: str | None
    models: ModelReport
    privacy: PrivacyLevel | None  # None: the rows were not paired (``alignment`` "none")
    pl_by_attribute: dict[str, PrivacyLevel]
    dr: float
    ul: float | None
    risk: RiskSummary
    loss: dict[str, Any]
    # None when the classes were measured inside an engine (too many to list them):
    classes: EquivalenceClasses | None
    release: pd.DataFrame | None  # aligned with the original, row for row
    seconds: float
    notes: tuple[str, ...] = field(default_factory=tuple)
    real_records: dict[str, int] = field(default_factory=dict)  # see :func:`real_records`
    alignment: str = "position"  # how rows were paired: "key", "position" or "none"
    unpaired_because: str | None = None  # "auto" found no pairing: the error's code
    weights: np.ndarray | None = None  # records per row pair (a weighted frequency set)
    # classes of each size (index: size), when ``classes`` is None
    size_counts: pd.Series | None = None

    @property
    def aligned(self) -> bool:
        """Were the release's rows paired with the original's (by key or position)?"""
        return self.alignment != "none"

    def history_summary(self) -> dict[str, Any]:
        """The figures the history keeps of a measurement (pages and CLI alike; no data)."""
        summary = self.to_dict()
        keep = (
            "k",
            "classes",
            "rows",
            "suppressed_rows",
            "real_records",
            "l_distinct",
            "l_entropy",
            "t_closeness",
            "pl",
            "dr",
            "ul",
            "satisfied",
        )
        out = {k: summary[k] for k in keep if k in summary}
        out["risk"] = {
            k: summary["risk"].get(k)
            for k in ("prosecutor_max", "prosecutor_avg", "marketer", "records_at_risk")
        }
        out["loss"] = {k: v for k, v in summary["loss"].items() if isinstance(v, (int, float))}
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe summary; the keys are the documented CLI contract."""
        summary = self.models.summary
        return plain(
            {
                "k": summary["k"],
                "classes": summary["classes"],
                "rows": summary["rows"],
                "suppressed_rows": summary["suppressed_rows"],
                "l_distinct": summary["l_distinct"],
                "l_entropy": summary["l_entropy"],
                "recursive_c": summary.get("recursive_c", {}),
                "t_closeness": summary["t_closeness"],
                "pl": None
                if self.privacy is None
                else {"all": self.privacy.value}
                | {a: p.value for a, p in self.pl_by_attribute.items()},
                "pl_notes": {
                    a: p.note
                    for a, p in {"all": self.privacy, **self.pl_by_attribute}.items()
                    if p is not None and p.note
                },
                "dr": self.dr,
                "ul": self.ul,
                "risk": self.risk.to_dict(),
                "loss": self.loss,
                "real_records": dict(self.real_records),
                "verdicts": self.models.verdicts,
                "satisfied": self.models.satisfied,
                "qi": list(self.qi),
                "sa": list(self.sa),
                "key": self.key,
                "notes": list(self.notes),
                "seconds": self.seconds,
                "alignment": self.alignment,
                "needs_alignment": [] if self.aligned else list(NEEDS_ALIGNMENT),
                "unpaired_because": self.unpaired_because,
            }
        )


#: The figures that compare each released row with its own original row, so they need
#: the rows paired (by a key, or in the original's order); every other figure is computed
#: on the release's classes (and a population) alone.
NEEDS_ALIGNMENT = ("pl", "ul", "whd", "gcp", "precision", "real_records.own")


def _check_columns(original: pd.DataFrame, release: pd.DataFrame, qi, sa, key) -> None:
    if not qi:
        raise RoleError("Choose at least one quasi-identifier.", code="roles.no_qi")
    if not sa:
        raise RoleError("Choose at least one sensitive attribute.", code="roles.no_sa")
    overlap = sorted(set(qi) & set(sa))
    if overlap:
        raise RoleError(
            f"A column cannot be both quasi-identifier and sensitive here: {', '.join(overlap)}.",
            code="roles.overlap",
            columns=overlap,
        )
    for name, table in (("original", original), ("release", release)):
        missing = [c for c in [*qi, *sa] if c not in table.columns]
        if missing:
            raise RoleError(
                f"The {name} table has no column {', '.join(missing)}.",
                code="roles.missing_in_table",
                table=name,
                columns=missing,
            )
    if key is not None and key in (*qi, *sa):
        raise RoleError(
            f"The key column '{key}' cannot also be a quasi-identifier or sensitive.",
            code="roles.key_overlap",
            column=key,
        )


def _pl_note(attribute: str, note: str) -> Note:
    """ "PL of <attribute>: <note>" with a code per kind of note (constant column, not
    meaningful, both); ``attribute`` "all" is every sensitive attribute together."""
    parts = set(note.split("; "))
    kind = "_".join(
        k
        for k, text in (("constant", NOTE_CONSTANT), ("not_meaningful", NOTE_NOT_MEANINGFUL))
        if text in parts
    )
    return Note(f"measure.pl.{kind or 'other'}", f"PL of {attribute}: {note}", attribute=attribute)


def information_loss(
    original: pd.DataFrame,
    release: pd.DataFrame,
    classes: EquivalenceClasses,
    qi: Sequence[str],
    hierarchies: Mapping[str, Hierarchy],
    k: int,
    *,
    codes: tuple[TableCodes, TableCodes] | None = None,
    pairs: Callable[[str], ColumnPairs] | None = None,
    weights: np.ndarray | None = None,
) -> tuple[dict[str, Any], list[str]]:
    """Discernibility, C_avg, and — for QIs whose released cells are labels of their
    hierarchy — WHD distortion and precision (SPEC §5). GCP (from NCP) covers those QIs
    and also the ones whose cells are no labels but contain their original values
    (ranges, sets, masks: :func:`~privcore.measure.loss.cell_ncp`), so that Mondrian's
    release and the same release read from a file have one GCP; ``gcp_columns`` names
    the QIs it covers. ``codes``: both tables' columns already factorized (original,
    release); each QI is read by :func:`~privcore.measure.loss.column_loss`, on its
    distinct (original, released) pairs (``pairs(column)``, when counted already, with
    records as counts when ``weights`` are given). ``weights``: row i of both tables
    stands for ``weights[i]`` records (a weighted frequency set): WHD, GCP and precision
    are sums and means over records."""
    original_codes, release_codes = codes or (TableCodes(original), TableCodes(release))
    loss = _class_loss(classes, k)
    notes: list[str] = []
    levels: dict[str, np.ndarray] = {}
    level_counts: dict[str, np.ndarray] = {}
    usable: dict[str, Hierarchy] = {}
    penalties: dict[str, float] = {}  # Σ over rows of each QI's NCP
    for column in qi:
        hierarchy = hierarchies.get(column)
        read = column_loss(
            original_codes,
            release_codes,
            column,
            hierarchy,
            pairs=None if pairs is None else pairs(column),
            weights=weights,
        )
        if read.levels is not None:
            levels[column] = read.levels
            level_counts[column] = read.level_counts
            usable[column] = hierarchy
        if read.penalty is not None:
            penalties[column] = read.penalty
        if read.levels is None:
            notes.append(_loss_note(column, read))
    records = classes.n_rows
    if levels:
        per_record, total = whd_distortion(levels, usable, weights=weights)
        loss["whd_total"] = total
        if weights is None:
            loss["whd_mean"] = float(per_record.mean()) if len(per_record) else 0.0
        else:
            loss["whd_mean"] = total / records if records else 0.0
        del per_record
        loss["precision"] = precision_of_counts(level_counts, usable)
        loss["levels"] = {c: int(v.argmax()) for c, v in level_counts.items()}  # most common
        loss["loss_columns"] = sorted(levels)
    else:
        loss.update({"whd_total": None, "whd_mean": None, "precision": None})
    loss["gcp"] = gcp_of_sums(list(penalties.values()), records) if penalties else None
    loss["gcp_columns"] = sorted(penalties)
    return loss, notes


def _class_loss(classes: EquivalenceClasses, k: int) -> dict[str, Any]:
    """The information loss the classes alone give: discernibility and C_avg for the
    requested ``k`` (None without classes)."""
    return {
        "discernibility": discernibility(classes),
        "c_avg": average_class_size(classes, max(int(k), 1)) if classes.n_classes else None,
    }


def _loss_note(column: str, read: ColumnLoss) -> Note:
    """Why a QI's released cells give no hierarchy levels, and which figures leave it out:
    WHD and precision always, GCP unless it reads the released cells (a penalty)."""
    reason, detail = read.failure, read.detail
    why = {
        "no_hierarchy": f"No hierarchy for '{column}'",
        "hierarchy_error": f"'{column}': {detail.rstrip('.')}",
        "not_labels": f"{detail} released value(s) of '{column}' are not labels of its hierarchy",
    }[reason]
    if read.penalty is None:
        return Note(
            f"measure.loss.{reason}.left_out",
            f"{why}: WHD, GCP and precision leave it out.",
            column=column,
            detail=detail,
        )
    return Note(
        f"measure.loss.{reason}.cells_read",
        f"{why}: WHD and precision leave it out; its GCP reads the released cells.",
        column=column,
        detail=detail,
    )


def _population_sizes(
    classes: EquivalenceClasses,
    release: pd.DataFrame,
    population: pd.DataFrame,
    qi: Sequence[str],
    hierarchies: Mapping[str, Hierarchy],
    notes: list[str],
) -> np.ndarray:
    """F_j: population records whose values each class's cells contain (the linkage
    attack's matching: ranges, masks, sets, hierarchy labels). A class matched by fewer
    population records than it holds (the population misses some of its people) is
    counted at its own size, with a note. The matching sets the rows at ``*`` in every
    QI aside; where the measurement counts them as a class (the lattice top), every
    population record matches it: F_j = the population's size."""
    from privcore.matching import match_roll

    matches = match_roll(release, qi, population, hierarchies=hierarchies)
    matched = matches.classes.ids[classes.first_row]  # -1: the top class
    found = matches.population[np.maximum(matched, 0)] if len(matches.population) else 0
    sizes = np.where(matched >= 0, found, len(population))
    short = sizes < classes.sizes
    if short.any():
        notes.append(
            Note(
                "measure.population_short",
                f"{int(short.sum())} class(es) match fewer population records than they "
                "hold; their journalist risk uses the class size.",
                count=int(short.sum()),
            )
        )
    return np.maximum(sizes, classes.sizes)


class _PairCounts:
    """The (original value, released value) pairs of each column of two aligned tables,
    counted once (:func:`~privcore.measure.loss.column_pairs`) and shared by the
    information loss and the mutual information of each column; with ``weights`` (a
    weighted frequency set) each pair counts its records."""

    def __init__(
        self, original: TableCodes, release: TableCodes, weights: np.ndarray | None = None
    ) -> None:
        self.original, self.release, self.weights = original, release, weights
        self._counted: dict[str, ColumnPairs] = {}  # kept without the pair of each row

    def of(self, column: str) -> ColumnPairs:
        """The pairs of ``column`` with each row's pair (counted again if asked again)."""
        pairs = column_pairs(
            CodedColumn.of_table(self.original, column),
            CodedColumn.of_table(self.release, column),
            weights=self.weights,
        )
        self._counted[column] = pairs.counted()
        return pairs

    def counts(self, column: str) -> ColumnPairs:
        """The pairs of ``column`` and the rows holding each (not each row's pair)."""
        if column not in self._counted:
            self.of(column)
        return self._counted[column]


def _qi_groups(classes: EquivalenceClasses, release: pd.DataFrame) -> tuple[np.ndarray, int]:
    """The released rows grouped by their QI values, from the classes: each class, and
    the suppressed rows (every QI ``*``) as one group more — or in the class at ``*`` in
    every QI when there is one (rows generalized to the top show the same cells).
    (codes per row, groups)"""
    ids = classes.ids
    if not classes.n_suppressed:
        return compact_codes(ids, classes.n_classes), classes.n_classes
    at_top = top_rows(release, classes.qi, classes=classes) & ~classes.suppressed
    if at_top.any():
        top_class = int(ids[np.flatnonzero(at_top)[0]])
        return compact_codes(np.where(ids < 0, top_class, ids), classes.n_classes), (
            classes.n_classes
        )
    groups = classes.n_classes + 1
    return compact_codes(np.where(ids < 0, classes.n_classes, ids), groups), groups


def measure_release(
    original: pd.DataFrame,
    release: pd.DataFrame,
    *,
    qi: Sequence[str],
    sa: Sequence[str],
    models: Sequence[PrivacyModel] = (),
    hierarchies: Mapping[str, Hierarchy] | None = None,
    key: str | None = None,
    risk_threshold: float = 0.2,
    population: pd.DataFrame | None = None,
    t_distance: str = "auto",
    check_order: bool = False,
    alignment: str = "position",
    weights: np.ndarray | None = None,
    blanked: np.ndarray | None = None,
) -> ReleaseMeasurement:
    """Measure ``release`` (an anonymized version of ``original``).

    ``blanked`` (a boolean per row of ``release`` as given, or None): the rows the method
    that made the release blanked in every QI — a release made here. They are its
    suppressed rows, and rows generalized to ``*`` are a class
    (:func:`~privcore.classes.release_classes`); without it (a file) the rows at ``*``
    in every QI are read by the models as below.

    ``t_distance`` is the distance t is reported with where no t-closeness model in
    ``models`` sets one. ``check_order`` (for a release read from a file, matched by
    position): refuse rows that evidently do not line up
    (:func:`~privcore.measure.entropy.check_row_order`).

    Rows are aligned by ``key`` or by order (:func:`~privcore.measure.entropy.align`);
    ``models`` give the verdicts (k, l, t thresholds) and decide whether the rows whose
    QIs are all ``*`` are a class or suppressed (:func:`~privcore.classes.release_classes`;
    with no model they are a class); ``hierarchies`` serve the
    hierarchical t distance (SA hierarchies) and the information-loss metrics (QI
    hierarchies). ``population`` (a table with the QI columns, e.g. a voter roll that
    contains the data set's people) adds journalist risk and the population-based
    marketer risk.

    ``alignment`` (without a ``key``): "position" pairs rows by position; "none" pairs no
    rows and computes only what the release's classes give — k, l, t and the verdicts,
    class sizes, DR, prosecutor, journalist and marketer risk, discernibility, C_avg and
    the released rows equal to some original row — leaving PL, UL, WHD, GCP, precision
    and ``real_records["own"]`` out (:data:`NEEDS_ALIGNMENT`); "auto" pairs by position
    when the rows line up (same count, order not evidently wrong) and otherwise measures
    as "none", with the code of the reason in ``unpaired_because``.

    ``weights`` (whole numbers ≥ 1, one per row) make the two tables one weighted,
    row-paired frequency set (SPEC §9): row i of ``original`` and row i of ``release``
    stand for ``weights[i]`` records each — the distinct (original, released) row pairs
    of a table with their counts, as an engine computes them for a table larger than
    memory. The pairing is then given: rows are paired by position (a ``key`` or an
    ``alignment`` other than "position" is a :class:`ParameterError`
    ``measure.weights_pairing``), both tables need the same number of rows, and
    ``check_order`` is not applied. Every figure counts records and equals the one
    measured on the tables with row i repeated ``weights[i]`` times; ``rows`` in the
    summary is the number of records (Σ weights), and ``release`` in the result stays
    the weighted rows. ``population`` stays a table of people, one row each.
    """
    started = time.perf_counter()
    qi, sa = tuple(str(c) for c in qi), tuple(str(c) for c in sa)
    hierarchies = dict(hierarchies or {})
    _check_columns(original, release, qi, sa, key)
    tables = pair_tables(
        original,
        release,
        qi=qi,
        key=key,
        alignment=alignment,
        check_order=check_order,
        hierarchies=hierarchies,
        weights=weights,
        blanked=blanked,
    )
    return _measure_paired(
        tables,
        qi,
        sa,
        list(models),
        hierarchies,
        key=key,
        t_distance=t_distance,
        risk_threshold=risk_threshold,
        population=population,
        started=started,
    )


def _measure_paired(
    tables: PairedTables,
    qi: tuple[str, ...],
    sa: tuple[str, ...],
    models: list[PrivacyModel],
    hierarchies: Mapping[str, Hierarchy],
    *,
    key: str | None,
    t_distance: str,
    risk_threshold: float,
    population: pd.DataFrame | None,
    started: float,
) -> ReleaseMeasurement:
    """Every figure of :func:`measure_release` on the tables once their rows are paired
    (or left unpaired); ``started``: when the measurement began (``perf_counter``)."""
    original, release, weights = tables.original, tables.release, tables.weights
    # Each column of each table is factorized once, in the smallest integer type, and the
    # codes serve every step: the classes, the entropies, the information loss and the
    # real records (entropies depend only on which cells are equal).
    release_codes = TableCodes(release)
    original_codes = TableCodes(original, same_as=release_codes if tables.paired else None)
    codes = (original_codes, release_codes)
    classes = release_classes(
        release,
        qi,
        sa,
        models=models,
        hierarchies=hierarchies,
        codes=release_codes,
        weights=weights,
        blanked=tables.blanked,
    )
    report = evaluate(classes, models, frame=release, default_distance=t_distance)
    requested_k = next(  # the class size a size-only model (k-anonymity) asks for
        (m.minimal_class_size for m in models if m.size_only), report.summary["k"]
    )
    figures = _information_figures(tables, codes, classes, qi, sa, hierarchies, requested_k)
    records = real_records(
        original, release, (*qi, *sa), aligned=tables.paired, codes=codes, weights=weights
    )
    del original_codes, release_codes, codes
    notes = figures.notes
    risk = risk_summary(
        classes,
        threshold=risk_threshold,
        population_sizes=None
        if population is None
        else _population_sizes(classes, release, population, qi, hierarchies, notes),
    )
    return ReleaseMeasurement(
        qi=qi,
        sa=sa,
        key=key,
        models=report,
        privacy=figures.privacy,
        pl_by_attribute=figures.pl_by_attribute,
        dr=figures.dr,
        ul=figures.ul,
        risk=risk,
        loss=figures.loss,
        classes=classes,
        release=release,
        seconds=time.perf_counter() - started,
        notes=tuple(notes),
        real_records=records,
        alignment=tables.alignment,
        unpaired_because=tables.unpaired_because,
        weights=weights,
    )


@dataclass(frozen=True, eq=False)
class _InformationFigures:
    """What a measurement computes from the information of the release: PL (all SAs,
    and per attribute), UL and DR, the information loss, and the notes on them."""

    privacy: PrivacyLevel | None
    pl_by_attribute: dict[str, PrivacyLevel]
    ul: float | None
    dr: float
    loss: dict[str, Any]
    notes: list[str]


def _information_figures(
    tables: PairedTables,
    codes: tuple[TableCodes, TableCodes],
    classes: EquivalenceClasses,
    qi: tuple[str, ...],
    sa: tuple[str, ...],
    hierarchies: Mapping[str, Hierarchy],
    requested_k: int,
) -> _InformationFigures:
    """PL, UL, DR and the information loss of the paired tables, on their ``codes``
    (original, release) and the release's ``classes``: every column factorized once,
    each column's (original, released) pairs counted once for the loss and the mutual
    information. Unpaired rows give DR and the loss of the classes alone."""
    original_codes, release_codes = codes
    weights = tables.weights
    pairs = _PairCounts(original_codes, release_codes, weights)
    information = InformationMeasures(
        release_codes,
        original_codes if tables.paired else None,
        pair_counts=pairs.counts,
        weights=weights,
    )
    # The classes group the released rows by their QIs (the suppressed rows, all '*',
    # are one group more): the entropies read that grouping instead of building it, and
    # the entropy of some of the QIs is counted on the classes rather than on the rows.
    information.release_partition(qi, *_qi_groups(classes, tables.release))
    if not tables.paired:
        loss = _class_loss(classes, requested_k)
        loss.update(dict.fromkeys(("whd_total", "whd_mean", "gcp", "precision")))
        dr = information.discrimination_rate(qi, sa)
        return _InformationFigures(None, {}, None, dr, loss, [])
    loss, notes = information_loss(
        tables.original,
        tables.release,
        classes,
        qi,
        hierarchies,
        requested_k,
        codes=codes,
        pairs=pairs.of,
        weights=weights,
    )
    # PL of one attribute (SPEC §3, the columns of the PL matrix): an SA against all
    # QIs, a QI against the other QIs.
    pl_by_attribute = {
        column: information.privacy_level([column], [q for q in qi if q != column])
        for column in (*qi, *sa)
    }
    privacy = information.privacy_level(sa, qi)
    ul = information.utility_loss(qi, sa)
    notes += [_pl_note(a, p.note) for a, p in {"all": privacy, **pl_by_attribute}.items() if p.note]
    dr = information.discrimination_rate(qi, sa)
    return _InformationFigures(privacy, pl_by_attribute, ul, dr, loss, notes)
