"""The linkage attack: join a release with a voter roll (SPEC §6; seed 003 §20.3).

Sweeney (2002) re-identified a governor's hospital record by joining an "anonymized"
release with the town's voter list on ZIP, birth date and sex. The attacker here holds
a voter roll (names and QI values of a population) and the release. The release's
equivalence classes are the groups of identical released QI tuples; rows whose QIs are
all ``*`` are suppressed and form no class. A roll person *matches* a class when, for
every QI, the class's released cell contains the person's value (range containment,
mask prefix, hierarchy ancestry: :mod:`privcore.data.cells`). The person's candidate
records are all the records of all the classes they match.

Matching is :func:`privcore.matching.match_roll` (shared with the journalist risk of a
measurement).

Frequency sets (SPEC §9): ``weights`` (whole numbers ≥ 1, one per release row) make the
release (and ``truth``, aligned) a weighted frequency set: row i stands for ``weights[i]``
records identical in every column. The roll is then a roll frequency set
(:func:`~privcore.attacks.roll.roll_frequency_set`): the QI columns, ``record`` (the
release row its people belong to, -1 for people not in the data set) and ``count`` (the
people the row stands for, ≥ 1; the people of release row i number at most
``weights[i]``, one record each). Every answer of a roll row holds for each of its
people, so each figure is a sum (or mean) weighted by the counts — the figure of the
attack on the expanded tables (release rows repeated by weight, roll people by count):
``targets``, ``roll_size`` and every other count count people, ``baseline`` is their
mean, ``suppressed_rows`` and the risk count records, and
``details["candidate_records"]`` counts people. Which of row i's identical records a
person is does not change any figure (a unique match is a class of one record). A
frequency set names nobody: ``targets`` has one row per target roll row, with its
``people`` and ``person_id`` / ``name`` left empty (None), and the example chains
(``details["chain"]``, ``details["chain_steps"]``) are empty lists.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from privcore.attacks.keys import comparable_codes
from privcore.attacks.linkage_explain import chain_steps, chain_text, explain
from privcore.attacks.report import AttackReport
from privcore.classes import (
    EquivalenceClasses,
    code_counts,
    distinct,
    factorize,
    group_rows,
    present_codes,
    reduce_runs,
    value_codes,
)
from privcore.core.progress import Progress
from privcore.core.progress import report as _report
from privcore.data.cells import comparable_keys
from privcore.data.codes import is_number
from privcore.data.hierarchy import Hierarchy
from privcore.errors import ParameterError, RoleError
from privcore.matching import (
    METHODS,
    Matches,
    RollCodes,
    checked_counts,
    match_roll,
    require_columns,
)
from privcore.risk import risk_summary

__all__ = ["DEFAULT_TOLERANCE", "METHODS", "Matches", "chain_text", "linkage_attack", "match_roll"]


_SHOWN_VALUES = 5  # sensitive values listed per target before "…"
#: Default tolerance of the numeric disclosure: ±10 % of the target's true value.
DEFAULT_TOLERANCE = 0.1


# --------------------------------------------------------------------------- the attack


def linkage_attack(
    release: pd.DataFrame,
    roll: pd.DataFrame,
    qi: Sequence[str],
    sa: Sequence[str],
    *,
    truth: pd.DataFrame | None = None,
    hierarchies: Mapping[str, Hierarchy] | None = None,
    risk_threshold: float = 0.2,
    tolerance: float = DEFAULT_TOLERANCE,
    progress: Progress | None = None,
    weights: np.ndarray | None = None,
    blanked: np.ndarray | None = None,
    roll_codes: RollCodes | None = None,
    explain: bool = True,
) -> AttackReport:
    """Simulate Sweeney's linkage attack of ``roll`` against ``release`` (SPEC §6).

    ``release`` rows are aligned with the data set (row i is record i; its SA columns
    are what the attacker reads); ``roll`` holds the QI columns, ``record`` (the data
    set row of the person, -1 for people not in it), optionally ``name`` and
    ``person_id``. ``truth`` (the original table, aligned with the release) says what
    each target's sensitive value really is; without it the release's SA columns are
    taken as true (they are unchanged by generalization and suppression).

    Summary: ``targets`` (roll people in the data set), ``unique_matches`` (targets with
    exactly one candidate record), ``reidentified`` (that record is theirs),
    ``false_matches`` (roll people, in the data set or not, whose single candidate
    record is not theirs), ``precision`` = reidentified / (reidentified + false
    matches), ``attribute_disclosed`` per SA (targets whose candidate records all hold
    one value, their true one; ``attribute_wrong``: one value, not theirs),
    ``attribute_within_tolerance`` per numeric SA (targets whose candidate records'
    values all lie within ± ``tolerance`` of their true value x, *relative* to it:
    |v − x| ≤ tolerance · |x| — the range an attacker learns; exact disclosure is the
    case tolerance = 0 with one value) and ``tolerance``,
    ``baseline`` = mean over targets of 1/|candidate records| (0 with none),
    ``suppressed_targets``, ``targets_outside_own_class`` (targets who do not match
    their own record's class: the release does not contain their values), ``risk``
    from :func:`~privcore.risk.risk_summary` with F_j = roll people matching
    class j (clipped up to f_j when smaller: ``population_clipped``),
    ``unparsed_cells`` and ``roll_size``.

    ``weights`` (whole numbers ≥ 1, one per release row) make ``release`` a weighted
    frequency set and ``roll`` a roll frequency set with a ``count`` column; every
    figure is then that of the attack on the expanded tables (module docstring).

    ``blanked`` (a boolean per release row: the rows the method that made the release
    blanked, ``Release.suppressed`` of a release made here) makes ``suppressed_rows``
    the release's own suppressed rows: rows generalized to ``*`` in every QI are then a
    class every person matches (:func:`~privcore.matching.match_roll`).

    ``roll_codes``: the roll's QI columns already read
    (:func:`~privcore.matching.read_roll`), for attacks of several releases with one roll.
    ``explain=False`` leaves out what only a reader of the attack's people needs: the
    report then has the summary, its sentences and the histogram of candidate records,
    an empty target table and class table and no example chain.
    """
    started = time.perf_counter()
    qi = tuple(str(q) for q in qi)
    sa = tuple(str(s) for s in sa)
    record, weights, people = _checked_inputs(release, roll, qi, sa, truth, tolerance, weights)
    matches = _match(release, roll, qi, hierarchies, progress, weights, people, blanked, roll_codes)
    matched_at = time.perf_counter()
    _report(progress, 0.8, "Linkage: who was re-identified")
    targets = _Targets.of(matches, record, people)
    pairs = matches.candidate_pairs(targets.rows)
    correct = matches.unique & (matches.matched_record == record) & (record >= 0)
    sa_columns, sensitive = _sensitive_findings(
        release, truth, sa, matches.classes, targets, pairs, tolerance, shown=explain
    )
    table = (
        _target_table(roll, qi, matches, targets, correct, sa_columns)
        if explain
        else pd.DataFrame()
    )
    summary = _summary(
        matches, record, targets, correct, pairs, sensitive, tolerance, risk_threshold
    )
    report = _attack_report(summary, table, release, qi, sa, matches, targets, pairs, explain)
    finished = time.perf_counter()
    report.details["timings"] = {
        "match": matched_at - started,
        "report": finished - matched_at,
        "total": finished - started,
    }
    _report(progress, 1.0, "Linkage: done")
    return report


def _match(
    release: pd.DataFrame,
    roll: pd.DataFrame,
    qi: Sequence[str],
    hierarchies: Mapping[str, Hierarchy] | None,
    progress: Progress | None,
    weights: np.ndarray | None,
    people: np.ndarray | None,
    blanked: np.ndarray | None,
    roll_codes: RollCodes | None = None,
) -> Matches:
    """:func:`~privcore.matching.match_roll` of the roll against the release, its
    progress the first 80 % of the attack's."""

    def sub_progress(fraction: float, message: str) -> None:
        _report(progress, 0.8 * fraction, message)

    return match_roll(
        release,
        qi,
        roll,
        hierarchies=hierarchies,
        progress=sub_progress,
        weights=weights,
        counts=people,
        blanked=blanked,
        roll_codes=roll_codes,
    )


def _attack_report(
    summary: dict[str, Any],
    table: pd.DataFrame,
    release: pd.DataFrame,
    qi: Sequence[str],
    sa: Sequence[str],
    matches: Matches,
    targets: _Targets,
    pairs: tuple[np.ndarray, np.ndarray],
    explained: bool = True,
) -> AttackReport:
    """The report of :func:`linkage_attack` but its timings: the summary in sentences, the
    example victims' chains (none for a frequency set, which names nobody, nor unless
    ``explained``), the classes (an empty table unless ``explained``) and the targets by
    number of candidate records."""
    explanations, codes = explain(summary, sa)
    steps = (
        chain_steps(table, release, matches.classes, qi, sa, *pairs)
        if targets.people is None and explained
        else []
    )
    return AttackReport(
        attack="linkage",
        summary=summary,
        targets=table,
        explanations=tuple(explanations),
        details={
            "explanation_codes": codes,
            "chain": [chain_text(step) for step in steps],
            "chain_steps": steps,
            "classes": _class_table(release, qi, matches) if explained else pd.DataFrame(),
            "method": matches.method,
            "candidate_records": _histogram(targets.candidate_records, targets.people),
        },
    )


def _checked_inputs(
    release: pd.DataFrame,
    roll: pd.DataFrame,
    qi: Sequence[str],
    sa: Sequence[str],
    truth: pd.DataFrame | None,
    tolerance: Any,
    weights: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """The arguments of :func:`linkage_attack`, checked: (the roll's ``record`` column,
    the release's row weights, the roll's people per row), the last two None without
    ``weights``."""
    require_columns(release, sa, table="release", text="The release has no sensitive column")
    if not (isinstance(tolerance, (int, float)) and 0.0 <= tolerance <= 1e6):
        raise ParameterError(
            f"The tolerance must be a number of at least 0, not {tolerance!r}.",
            code="linkage.bad_tolerance",
            tolerance=str(tolerance),
        )
    record = _records(roll, len(release))
    people = None
    if weights is not None:
        weights = checked_counts(
            weights, len(release), what="row weights of the release", code="linkage.bad_weights"
        )
        people = _people_counts(roll, record, weights, qi)
    if truth is not None:
        if len(truth) != len(release):
            raise ParameterError(
                f"The original table has {len(truth):,} rows but the release has "
                f"{len(release):,}; they must be aligned row by row.",
                code="linkage.truth_alignment",
                rows=[len(truth), len(release)],
            )
        require_columns(truth, sa, table="original", text="The original table has no column")
    return record, weights, people


@dataclass(frozen=True, eq=False)
class _Targets:
    """The roll's people who are in the data set: their positions in the roll
    (``rows``), their records, the people each row stands for (``people``; None: one
    each, a roll of people), the class of their own record (-1: suppressed) and their
    candidate records."""

    rows: np.ndarray
    record: np.ndarray
    people: np.ndarray | None
    own_class: np.ndarray
    candidate_records: np.ndarray

    @classmethod
    def of(cls, matches: Matches, record: np.ndarray, people: np.ndarray | None) -> _Targets:
        rows = np.flatnonzero(record >= 0)
        own = record[rows]
        own_class = matches.classes.ids[own] if len(rows) else np.zeros(0, dtype=np.int64)
        return cls(
            rows,
            own,
            None if people is None else people[rows],
            own_class,
            matches.candidate_records[rows],
        )

    def count(self, mask: np.ndarray) -> int:
        """The people of the targets ``mask`` selects (:func:`_total`)."""
        return _total(mask, self.people)

    @property
    def total(self) -> int:
        """How many people the targets are."""
        return len(self.rows) if self.people is None else int(self.people.sum())


def _summary(
    matches: Matches,
    record: np.ndarray,
    targets: _Targets,
    correct: np.ndarray,
    pairs: tuple[np.ndarray, np.ndarray],
    sensitive: Mapping[str, Any],
    tolerance: float,
    risk_threshold: float,
) -> dict[str, Any]:
    """The summary of :func:`linkage_attack`: who was re-identified or falsely matched,
    the ``sensitive`` findings, the baseline, targets suppressed or outside their own
    class, and the risk of the classes."""
    people = matches.people
    classes = matches.classes
    reidentified = _total(correct, people)
    false_matches = _total(matches.unique & (matches.matched_record != record), people)
    found = reidentified + false_matches
    pair_i, pair_cls = pairs
    own_hit = np.zeros(len(targets.rows), dtype=bool)
    own_hit[pair_i[pair_cls == targets.own_class[pair_i]]] = True
    risk, clipped = _roll_risk(matches, risk_threshold)
    return {
        "roll_size": len(record) if people is None else int(people.sum()),
        "targets": targets.total,
        "classes": int(classes.n_classes),
        "suppressed_rows": int(classes.n_suppressed),
        "unique_matches": targets.count(matches.unique[targets.rows]),
        "reidentified": reidentified,
        "false_matches": false_matches,
        "precision": reidentified / found if found else None,
        **sensitive,
        "tolerance": float(tolerance),
        "baseline": _baseline(targets),
        "suppressed_targets": targets.count(targets.own_class < 0),
        "targets_outside_own_class": targets.count((targets.own_class >= 0) & ~own_hit),
        "unmatched_targets": targets.count(targets.candidate_records == 0),
        "risk": risk,
        "population_clipped": clipped,
        "unparsed_cells": matches.unparsed,
        "method": matches.method,
    }


def _baseline(targets: _Targets) -> float:
    """The mean over the targets of 1/|candidate records| (0 with none): the chance of
    finding one's record by picking a candidate at random."""
    if not len(targets.rows):
        return 0.0
    inverse = np.zeros(len(targets.rows), dtype=np.float64)
    has = targets.candidate_records > 0
    inverse[has] = 1.0 / targets.candidate_records[has]
    if targets.people is None:
        return float(inverse.mean())
    return float((inverse * targets.people).sum() / targets.total)


class _Candidates(NamedTuple):
    """Where each target's candidate records lie: the release's ``classes``, the
    target's own record (``target_record``) and the (target, class) pairs ``pair_i``,
    ``pair_cls`` (sorted by target) of the classes holding its candidates."""

    classes: EquivalenceClasses
    target_record: np.ndarray
    pair_i: np.ndarray
    pair_cls: np.ndarray


def _sensitive_findings(
    release: pd.DataFrame,
    truth: pd.DataFrame | None,
    sa: Sequence[str],
    classes: EquivalenceClasses,
    targets: _Targets,
    pairs: tuple[np.ndarray, np.ndarray],
    tolerance: float,
    *,
    shown: bool = True,
) -> tuple[dict[str, np.ndarray | None], dict[str, dict[str, int]]]:
    """What the attacker reads off each target's candidate records: the columns of the
    target table (per SA its values — None unless ``shown`` — and whether it is
    disclosed; per numeric SA whether it lies within the tolerance) and the summary's
    ``attribute_disclosed``, ``attribute_wrong`` and ``attribute_within_tolerance``
    (people per SA)."""
    candidates = _Candidates(classes, targets.record, *pairs)
    columns: dict[str, np.ndarray | None] = {}
    disclosed: dict[str, int] = {}
    wrong: dict[str, int] = {}
    for s in sa:
        true = truth[s] if truth is not None else release[s]
        values, is_disclosed, is_wrong = _sensitive_reading(
            release[s], true, candidates, shown=shown
        )
        columns[f"{s} values"] = values
        columns[f"{s} disclosed"] = is_disclosed
        disclosed[s] = targets.count(is_disclosed)
        wrong[s] = targets.count(is_wrong)
    within: dict[str, int] = {}
    for s in sa:
        true = truth[s] if truth is not None else release[s]
        if not is_number(true.dtype):
            continue
        is_within = _within_tolerance(release[s], true, candidates, tolerance)
        columns[f"{s} within tolerance"] = is_within
        within[s] = targets.count(is_within)
    figures = {
        "attribute_disclosed": disclosed,
        "attribute_wrong": wrong,
        "attribute_within_tolerance": within,
    }
    return columns, figures


def _roll_risk(matches: Matches, threshold: float) -> tuple[dict[str, Any], int]:
    """The re-identification risks of :func:`~privcore.risk.risk_summary` with F_j the
    roll's people matching class j, clipped up to f_j where the roll holds fewer, and
    how many classes were clipped."""
    classes = matches.classes
    population = matches.population.astype(np.int64)
    clipped = int((population < classes.sizes).sum())
    risk = risk_summary(
        classes, threshold=threshold, population_sizes=np.maximum(population, classes.sizes)
    )
    figures = {
        "prosecutor_max": risk.prosecutor_max,
        "prosecutor_avg": risk.prosecutor_avg,
        "journalist_max": risk.journalist_max,
        "journalist_avg": risk.journalist_avg,
        "marketer": risk.marketer,
        "records_at_risk": risk.records_at_risk,
        "threshold": risk.threshold,
    }
    return figures, clipped


def _target_table(
    roll: pd.DataFrame,
    qi: Sequence[str],
    matches: Matches,
    targets: _Targets,
    correct: np.ndarray,
    sa_columns: Mapping[str, np.ndarray],
) -> pd.DataFrame:
    """One row per target: who (``person_id``, ``name``; empty for a frequency set,
    which names nobody), the QI values, the record (and ``people``), the candidates, the
    match and the sensitive findings."""
    rows = targets.rows
    if targets.people is not None:  # a row of a frequency set names nobody
        person_id = names = np.full(len(rows), None, dtype=object)
    else:
        person_id = (
            roll["person_id"].iloc[rows].to_numpy()
            if "person_id" in roll.columns
            else rows.astype(np.int64)
        )
        names = (
            _column_at(roll["name"], rows, as_object=True)
            if "name" in roll.columns
            else np.array([f"person {p}" for p in person_id], dtype=object)
        )
    columns: dict[str, Any] = {"person_id": person_id, "name": names}
    for q in qi:
        columns[q] = _column_at(roll[q], rows)
    columns["record"] = targets.record
    if targets.people is not None:
        columns["people"] = targets.people
    columns["candidate_classes"] = matches.candidate_classes[rows]
    columns["candidate_records"] = targets.candidate_records
    columns["matched_record"] = matches.matched_record[rows]
    columns["correct"] = correct[rows]
    columns.update(sa_columns)
    return pd.DataFrame(columns)


#: pandas' default type of text: the type it gives a column of text values.
_TEXT = pd.StringDtype(na_value=np.nan)


def _column_at(column: pd.Series, rows: np.ndarray, *, as_object: bool = False) -> Any:
    """The values of ``column`` at ``rows`` for a column of a new table: a NumPy array
    (of objects when ``as_object``), except text of pandas' default type holding some
    value, which keeps its own array — the type pandas gives that NumPy array anyway."""
    if column.dtype == _TEXT:
        taken = column.array.take(rows)
        if len(taken) and not taken.isna().all():
            return taken
    taken = column.iloc[rows]
    return (taken.astype(object) if as_object else taken).to_numpy()


def _class_table(release: pd.DataFrame, qi: Sequence[str], matches: Matches) -> pd.DataFrame:
    """The release's classes: their QI values, size and population (roll people)."""
    classes = matches.classes
    table = release.iloc[classes.first_row][list(qi)].reset_index(drop=True)
    table["size"] = classes.sizes
    table["population"] = matches.population
    return table


def _records(roll: pd.DataFrame, n_rows: int) -> np.ndarray:
    """The roll's ``record`` column as int64, checked against the release's rows."""
    if "record" not in roll.columns:
        raise RoleError(
            "The voter roll has no 'record' column saying which data set row each person "
            "is (-1 for people not in the data set).",
            code="linkage.no_record",
        )
    values = pd.to_numeric(roll["record"], errors="coerce")
    if values.isna().any():
        raise ParameterError(
            "The roll's 'record' column must hold whole numbers (-1 for people not in "
            "the data set).",
            code="linkage.bad_record",
        )
    record = values.to_numpy(dtype=np.float64)
    bad = (record != np.floor(record)) | (record < -1) | (record >= n_rows)
    if bad.any():
        raise ParameterError(
            f"{int(bad.sum()):,} roll entries name a record outside the release (rows 0 to "
            f"{n_rows - 1:,}, or -1).",
            code="linkage.bad_record",
            count=int(bad.sum()),
        )
    return record.astype(np.int64)


def _total(mask: np.ndarray, people: np.ndarray | None) -> int:
    """How many people ``mask`` selects: its True entries, or the sum of their counts
    when each entry stands for ``people[i]`` people (a roll frequency set)."""
    if people is None:
        return int(mask.sum())
    return int(people[mask].sum())


def _people_counts(
    roll: pd.DataFrame, record: np.ndarray, weights: np.ndarray, qi: Sequence[str]
) -> np.ndarray:
    """The ``count`` column of a roll frequency set, checked: whole numbers ≥ 1, and the
    people it places in release row i no more than the ``weights[i]`` records of that
    row (each person is one of them)."""
    if "count" not in roll.columns or "count" in qi:
        raise RoleError(
            "A voter roll of a frequency set needs a 'count' column (not a "
            "quasi-identifier) saying how many people each of its rows stands for.",
            code="linkage.no_count",
        )
    values = pd.to_numeric(roll["count"], errors="coerce").to_numpy(dtype=np.float64)
    people = checked_counts(
        values, len(roll), what="people counts of the voter roll", code="linkage.bad_counts"
    )
    inside = record >= 0
    placed = code_counts(record[inside], len(weights), weights=people[inside])
    over = placed > weights
    if over.any():
        row = int(np.flatnonzero(over)[0])
        raise ParameterError(
            f"The voter roll places more people in {int(over.sum()):,} data set rows than "
            f"those rows have records (row {row:,}: {int(placed[row]):,} people, "
            f"{int(weights[row]):,} records); each person of the data set is one record.",
            code="linkage.roll_counts",
            rows=int(over.sum()),
            row=row,
            people=int(placed[row]),
            records=int(weights[row]),
        )
    return people


def _sensitive_reading(
    released: pd.Series, true: pd.Series, candidates: _Candidates, *, shown: bool = True
) -> tuple[np.ndarray | None, np.ndarray, np.ndarray]:
    """Per target: the distinct SA values of its candidate records (text, at most five
    then "…"; None unless ``shown``), whether they are one value equal to the target's
    own, and whether they are one value that is not.

    Only each class's first six values (in display order) are joined to the targets:
    the first six of a union are among the first six of its parts, and one value in
    the union means one value in every part — so the answer is exact and the work is
    bounded by six per (target, class) pair.
    """
    classes, target_record, pair_i, pair_cls = candidates
    n_targets = len(target_record)
    codes, values = factorize(released)
    keys = comparable_keys(pd.Series(values, dtype=object))
    text = keys.fillna("NA").to_numpy(dtype=object)
    m = max(len(values), 1)
    # Display order: numbers by value (missing last), anything else by text.
    if pd.api.types.is_numeric_dtype(released.dtype):
        number = pd.to_numeric(pd.Series(values, dtype=object), errors="coerce").to_numpy(float)
        order = np.argsort(number, kind="stable")
    else:
        order = np.argsort(text.astype(str), kind="stable")
    rank = np.empty(len(values), dtype=np.int64)
    rank[order] = np.arange(len(values))
    by_rank = np.empty(len(values), dtype=object)
    by_rank[rank] = text

    present = classes.count_values(rank[codes], m)  # each class's values, in rank order
    cls_of, rank_of = present.cls, present.value
    starts = np.append(present.starts, len(cls_of))
    lengths = np.minimum(np.diff(starts), _SHOWN_VALUES + 1)[pair_cls]
    i = np.repeat(pair_i, lengths)
    offsets = np.arange(len(i)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    ranked = rank_of[np.repeat(starts[:-1][pair_cls], lengths) + offsets]
    key = i * m + ranked
    span = n_targets * m
    union = present_codes(key, span) if span <= 8 * len(key) + 1024 else distinct(key)
    who, what = union // m, union % m
    count = code_counts(who, n_targets)
    first = np.searchsorted(who, np.arange(n_targets))
    position = np.arange(len(who)) - first[who]
    values_shown = _shown(by_rank, who, what, position, count) if shown else None

    true_codes, true_keys = comparable_codes(true)
    true_keys[pd.isna(true_keys)] = "NA"
    true_text = true_keys[true_codes[target_record]]
    single = np.full(n_targets, None, dtype=object)
    one = np.flatnonzero(count == 1)
    single[one] = by_rank[what[first[one]]]
    is_single = count == 1
    same = np.zeros(n_targets, dtype=bool)
    same[one] = single[one] == true_text[one]
    return values_shown, is_single & same, is_single & ~same


def _shown(
    by_rank: np.ndarray, who: np.ndarray, what: np.ndarray, position: np.ndarray, count: np.ndarray
) -> np.ndarray:
    """Per target, its first values (``what[k]``, the rank of the ``position[k]``-th value
    of target ``who[k]``; ``count`` values in all) as text: the non-empty ones joined by
    " / ", then " / …" when there are more than five. Targets holding the same first
    values share one text, written once."""
    n_targets = len(count)
    top = np.zeros((_SHOWN_VALUES, n_targets), dtype=np.int64)  # rank + 1; 0: none
    keep = position < _SHOWN_VALUES
    top[position[keep], who[keep]] = what[keep] + 1
    more = (count > _SHOWN_VALUES).astype(np.int64)
    texts = group_rows([*top, more], [len(by_rank) + 1] * _SHOWN_VALUES + [2])
    rows = texts.first
    labels = np.concatenate([np.array([""], dtype=object), by_rank])
    columns = labels[top[:, rows]]
    string = np.dtypes.StringDType()
    shown = columns[0].astype(string)
    for j in range(1, _SHOWN_VALUES):
        part = columns[j].astype(string)
        shown = np.where(part != "", np.strings.add(np.strings.add(shown, " / "), part), shown)
    shown = np.where(more[rows] > 0, np.strings.add(shown, " / …"), shown)
    return shown.astype(object)[texts.ids]


def _within_tolerance(
    released: pd.Series, true: pd.Series, candidates: _Candidates, tolerance: float
) -> np.ndarray:
    """Per target: do the numeric SA values of all its candidate records lie within
    ± ``tolerance`` · |x| of its true value x? (False with no candidate, a missing or
    non-numeric candidate value, or a missing true value.)

    Each class's smallest and largest value come from one count of (class, value rank)
    pairs (:meth:`~privcore.classes.EquivalenceClasses.count_values`); a target's range
    is the smallest and largest over its candidate classes (runs of ``pair_i``)."""
    classes, target_record, pair_i, pair_cls = candidates
    n_targets = len(target_record)
    numbers = pd.to_numeric(released, errors="coerce").to_numpy(dtype=np.float64, copy=True)
    numbers[~np.isfinite(numbers)] = np.nan
    codes, uniques = value_codes(pd.Series(numbers), sort=True)
    m = len(uniques)
    codes = np.where(codes < 0, m, codes)  # missing: the code after every number
    present = classes.count_values(codes, m + 1)
    if not n_targets or not present.n_classes or not len(pair_i):
        return np.zeros(n_targets, dtype=bool)
    ends = np.append(present.starts[1:], len(present.cls))
    ranked = np.append(np.asarray(uniques, dtype=np.float64), np.nan)
    low_code, high_code = present.value[present.starts], present.value[ends - 1]
    class_low, class_high = ranked[low_code], ranked[high_code]
    class_missing = (high_code == m).astype(np.int64)
    runs = np.flatnonzero(np.r_[True, pair_i[1:] != pair_i[:-1]])  # pair_i is sorted
    who = pair_i[runs]
    low = np.full(n_targets, np.inf)
    high = np.full(n_targets, -np.inf)
    missing = np.ones(n_targets, dtype=bool)
    low[who] = reduce_runs(class_low[pair_cls], runs, "min")
    high[who] = reduce_runs(class_high[pair_cls], runs, "max")
    missing[who] = reduce_runs(class_missing[pair_cls], runs, "max") > 0
    x = pd.to_numeric(true, errors="coerce").to_numpy(dtype=np.float64)[target_record]
    band = tolerance * np.abs(x) * (1 + 1e-12)  # inclusive, up to rounding
    with np.errstate(invalid="ignore"):
        return ~missing & np.isfinite(x) & (low >= x - band) & (high <= x + band)


def _histogram(candidate_records: np.ndarray, people: np.ndarray | None) -> dict[str, int]:
    """Targets by number of candidate records (0, 1, 2, 3–5, 6–10, 11–100, >100);
    ``people``: the targets each entry stands for (None: one each)."""
    edges = [(0, 0), (1, 1), (2, 2), (3, 5), (6, 10), (11, 100)]
    out = {
        (str(lo) if lo == hi else f"{lo}-{hi}"): _total(
            (candidate_records >= lo) & (candidate_records <= hi), people
        )
        for lo, hi in edges
    }
    out[">100"] = _total(candidate_records > 100, people)
    return out
