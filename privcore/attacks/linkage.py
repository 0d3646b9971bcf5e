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

Frequency sets (SPEC §9): with ``weights`` the release is a weighted frequency set and
the roll a roll frequency set (:func:`~privcore.attacks.roll.roll_frequency_set`): each
roll row stands for ``count`` people with the same QI values and the same data set row.
Every answer of a roll row holds for each of its people, so each figure is a sum (or
mean) weighted by the counts — the figure of the same attack on the expanded tables.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from privcore.attacks.report import AttackReport
from privcore.classes import (
    EquivalenceClasses,
    code_counts,
    distinct,
    factorize,
    reduce_runs,
    value_codes,
)
from privcore.core.progress import Progress
from privcore.core.progress import report as _report
from privcore.data.cells import comparable_keys
from privcore.data.codes import is_number
from privcore.data.hierarchy import Hierarchy
from privcore.errors import ParameterError, RoleError
from privcore.matching import METHODS, Matches, checked_counts, match_roll
from privcore.risk import risk_summary

__all__ = ["DEFAULT_TOLERANCE", "METHODS", "Matches", "linkage_attack", "match_roll"]


_SHOWN_VALUES = 5  # sensitive values listed per target before "…"
#: Default tolerance of the numeric disclosure: ±10 % of the target's true value.
DEFAULT_TOLERANCE = 0.1
_CHAINS = 10  # example victims explained step by step


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

    ``weights`` (whole numbers ≥ 1, one per release row) make ``release`` (and
    ``truth``, aligned) a weighted frequency set: row i stands for ``weights[i]``
    records identical in every column. ``roll`` is then a roll frequency set: the QI
    columns, ``record`` (the release row its people belong to, -1 for people not in the
    data set) and ``count`` (the people the row stands for, ≥ 1; the people of release
    row i number at most ``weights[i]``, one record each). Every figure of the summary
    is that of the attack on the expanded tables (release rows repeated by weight, roll
    people by count): ``targets``, ``roll_size`` and every other count count people,
    ``baseline`` is their mean, ``suppressed_rows`` and the risk count records, and
    ``details["candidate_records"]`` counts people. Which of row i's identical records
    a person is does not change any figure (a unique match is a class of one record).
    A frequency set names nobody: ``targets`` has one row per target roll row, with its
    ``people`` and ``person_id`` / ``name`` left empty (None), and the example chains
    (``details["chain"]``, ``details["chain_steps"]``) are empty lists.

    ``blanked`` (a boolean per release row: the rows the method that made the release
    blanked, ``Release.suppressed`` of a release made here) makes ``suppressed_rows``
    the release's own suppressed rows: rows generalized to ``*`` in every QI are then a
    class every person matches (:func:`~privcore.matching.match_roll`).
    """
    started = time.perf_counter()
    qi = tuple(str(q) for q in qi)
    sa = tuple(str(s) for s in sa)
    unknown = [s for s in sa if s not in release.columns]
    if unknown:
        raise RoleError(
            f"The release has no sensitive column {', '.join(unknown)}.",
            code="linkage.missing_columns",
            table="release",
            columns=unknown,
        )
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
        absent = [s for s in sa if s not in truth.columns]
        if absent:
            raise RoleError(
                f"The original table has no column {', '.join(absent)}.",
                code="linkage.missing_columns",
                table="original",
                columns=absent,
            )

    def sub_progress(fraction: float, message: str) -> None:
        _report(progress, 0.8 * fraction, message)

    matches = match_roll(
        release,
        qi,
        roll,
        hierarchies=hierarchies,
        progress=sub_progress,
        weights=weights,
        counts=people,
        blanked=blanked,
    )
    matched_at = time.perf_counter()
    classes = matches.classes
    _report(progress, 0.8, "Linkage: who was re-identified")

    targets = np.flatnonzero(record >= 0)
    target_record = record[targets]
    # People each target row stands for (None: one each, a roll of people).
    target_people = None if people is None else people[targets]
    own_class = classes.ids[target_record] if len(targets) else np.zeros(0, dtype=np.int64)
    n_targets = len(targets)
    targets_total = n_targets if people is None else int(target_people.sum())
    unique = matches.unique
    correct_all = unique & (matches.matched_record == record) & (record >= 0)
    false_all = unique & (matches.matched_record != record)
    reidentified = _total(correct_all, people)
    false_matches = _total(false_all, people)
    unique_targets = _total(unique[targets], target_people)
    found = reidentified + false_matches
    precision = reidentified / found if found else None
    cand_records = matches.candidate_records[targets]
    inverse = np.zeros(n_targets, dtype=np.float64)
    has = cand_records > 0
    inverse[has] = 1.0 / cand_records[has]
    if not n_targets:
        baseline = 0.0
    elif people is None:
        baseline = float(inverse.mean())
    else:
        baseline = float((inverse * target_people).sum() / targets_total)

    pair_i, pair_cls = matches.candidate_pairs(targets)
    own_hit = np.zeros(n_targets, dtype=bool)
    hit = pair_cls == own_class[pair_i]
    own_hit[pair_i[hit]] = True
    outside_own = _total((own_class >= 0) & ~own_hit, target_people)
    suppressed_targets = _total(own_class < 0, target_people)

    # Sensitive values the attacker reads off each target's candidate records.
    sa_columns: dict[str, Any] = {}
    disclosed: dict[str, int] = {}
    wrong: dict[str, int] = {}
    for s in sa:
        shown, is_disclosed, is_wrong = _sensitive_reading(
            release[s],
            (truth[s] if truth is not None else release[s]),
            classes,
            target_record,
            pair_i,
            pair_cls,
        )
        sa_columns[f"{s} values"] = shown
        sa_columns[f"{s} disclosed"] = is_disclosed
        disclosed[s] = _total(is_disclosed, target_people)
        wrong[s] = _total(is_wrong, target_people)
    within: dict[str, int] = {}
    for s in sa:
        true = truth[s] if truth is not None else release[s]
        if not is_number(true.dtype):
            continue
        is_within = _within_tolerance(
            release[s], true, classes, target_record, pair_i, pair_cls, tolerance
        )
        sa_columns[f"{s} within tolerance"] = is_within
        within[s] = _total(is_within, target_people)

    # Risk with F_j from the roll (clipped up to f_j where the roll holds fewer).
    population = matches.population.astype(np.int64)
    clipped = int((population < classes.sizes).sum())
    risk = risk_summary(
        classes, threshold=risk_threshold, population_sizes=np.maximum(population, classes.sizes)
    )
    risk_dict = {
        "prosecutor_max": risk.prosecutor_max,
        "prosecutor_avg": risk.prosecutor_avg,
        "journalist_max": risk.journalist_max,
        "journalist_avg": risk.journalist_avg,
        "marketer": risk.marketer,
        "records_at_risk": risk.records_at_risk,
        "threshold": risk.threshold,
    }

    if people is not None:  # a row of a frequency set names nobody
        person_id = names = np.full(n_targets, None, dtype=object)
    else:
        person_id = (
            roll["person_id"].iloc[targets].to_numpy()
            if "person_id" in roll.columns
            else targets.astype(np.int64)
        )
        names = (
            roll["name"].iloc[targets].astype(object).to_numpy()
            if "name" in roll.columns
            else np.array([f"person {p}" for p in person_id], dtype=object)
        )
    table = pd.DataFrame({"person_id": person_id, "name": names})
    for q in qi:
        table[q] = roll[q].iloc[targets].to_numpy()
    table["record"] = target_record
    if target_people is not None:
        table["people"] = target_people
    table["candidate_classes"] = matches.candidate_classes[targets]
    table["candidate_records"] = cand_records
    table["matched_record"] = matches.matched_record[targets]
    table["correct"] = correct_all[targets]
    for name, column in sa_columns.items():
        table[name] = column

    summary: dict[str, Any] = {
        "roll_size": len(roll) if people is None else int(people.sum()),
        "targets": targets_total,
        "classes": int(classes.n_classes),
        "suppressed_rows": int(classes.n_suppressed),
        "unique_matches": unique_targets,
        "reidentified": reidentified,
        "false_matches": false_matches,
        "precision": precision,
        "attribute_disclosed": disclosed,
        "attribute_wrong": wrong,
        "attribute_within_tolerance": within,
        "tolerance": float(tolerance),
        "baseline": baseline,
        "suppressed_targets": suppressed_targets,
        "targets_outside_own_class": outside_own,
        "unmatched_targets": _total(cand_records == 0, target_people),
        "risk": risk_dict,
        "population_clipped": clipped,
        "unparsed_cells": matches.unparsed,
        "method": matches.method,
    }
    explanations, codes = _explain(summary, sa)
    steps = (
        _chain_steps(table, release, classes, qi, sa, pair_i, pair_cls) if people is None else []
    )
    chains = [chain_text(step) for step in steps]
    class_table = release.iloc[classes.first_row][list(qi)].reset_index(drop=True)
    class_table["size"] = classes.sizes
    class_table["population"] = matches.population
    finished = time.perf_counter()
    _report(progress, 1.0, "Linkage: done")
    return AttackReport(
        attack="linkage",
        summary=summary,
        targets=table,
        explanations=tuple(explanations),
        details={
            "explanation_codes": codes,
            "chain": chains,
            "chain_steps": steps,
            "classes": class_table,
            "method": matches.method,
            "candidate_records": _histogram(cand_records, target_people),
            "timings": {
                "match": matched_at - started,
                "report": finished - matched_at,
                "total": finished - started,
            },
        },
    )


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
    released: pd.Series,
    true: pd.Series,
    classes: EquivalenceClasses,
    target_record: np.ndarray,
    pair_i: np.ndarray,
    pair_cls: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per target: the distinct SA values of its candidate records (text, at most five
    then "…"), whether they are one value equal to the target's own, and whether they
    are one value that is not.

    Only each class's first six values (in display order) are joined to the targets:
    the first six of a union are among the first six of its parts, and one value in
    the union means one value in every part — so the answer is exact and the work is
    bounded by six per (target, class) pair.
    """
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
    union = distinct(i * m + ranked)
    who, what = union // m, union % m
    count = code_counts(who, n_targets)
    first = np.searchsorted(who, np.arange(n_targets))
    position = np.arange(len(who)) - first[who]

    columns = np.full((_SHOWN_VALUES, n_targets), "", dtype=object)
    keep = position < _SHOWN_VALUES
    columns[position[keep], who[keep]] = by_rank[what[keep]]
    string = np.dtypes.StringDType()
    shown = columns[0].astype(string)
    for j in range(1, _SHOWN_VALUES):
        part = columns[j].astype(string)
        shown = np.where(part != "", np.strings.add(np.strings.add(shown, " / "), part), shown)
    shown = np.where(count > _SHOWN_VALUES, np.strings.add(shown, " / …"), shown)

    true_text = comparable_keys(true).fillna("NA").to_numpy(dtype=object)[target_record]
    single = np.full(n_targets, None, dtype=object)
    one = np.flatnonzero(count == 1)
    single[one] = by_rank[what[first[one]]]
    is_single = count == 1
    same = np.zeros(n_targets, dtype=bool)
    same[one] = single[one] == true_text[one]
    return shown.astype(object), is_single & same, is_single & ~same


def _within_tolerance(
    released: pd.Series,
    true: pd.Series,
    classes: EquivalenceClasses,
    target_record: np.ndarray,
    pair_i: np.ndarray,
    pair_cls: np.ndarray,
    tolerance: float,
) -> np.ndarray:
    """Per target: do the numeric SA values of all its candidate records lie within
    ± ``tolerance`` · |x| of its true value x? (False with no candidate, a missing or
    non-numeric candidate value, or a missing true value.)

    Each class's smallest and largest value come from one count of (class, value rank)
    pairs (:meth:`~privcore.classes.EquivalenceClasses.count_values`); a target's range
    is the smallest and largest over its candidate classes (runs of ``pair_i``)."""
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


def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def _explain(summary: Mapping[str, Any], sa: Sequence[str]) -> tuple[list[str], list[str]]:
    """Three to five plain sentences, and a stable code for each."""
    n, roll = summary["targets"], summary["roll_size"]
    sentences = [
        (
            "linkage.population",
            f"{n:,} of the {roll:,} people in the voter roll are in the data set; the "
            f"release has {summary['classes']:,} equivalence classes"
            f" and {summary['suppressed_rows']:,} suppressed rows.",
        ),
        (
            "linkage.reidentified",
            f"{summary['unique_matches']:,} of them match exactly one released record and "
            f"{summary['reidentified']:,} are re-identified correctly; "
            f"{summary['false_matches']:,} people are matched to a single record that is not "
            f"theirs (precision {_percent(summary['precision'])}).",
        ),
        (
            "linkage.baseline",
            "Guessing one of a target's candidate records at random finds the right one "
            f"{_percent(summary['baseline'])} of the time on average; prosecutor risk is at "
            f"most {_percent(summary['risk']['prosecutor_max'])} and journalist risk at most "
            f"{_percent(summary['risk']['journalist_max'])}.",
        ),
    ]
    if sa:
        parts = ", ".join(f"{s} for {summary['attribute_disclosed'][s]:,}" for s in sa)
        sentences.append(
            (
                "linkage.attribute",
                "A sensitive value is disclosed when all of a target's candidate records "
                f"share it, re-identified or not: {parts} of the {n:,} targets.",
            )
        )
    if summary["attribute_within_tolerance"]:
        parts = ", ".join(
            f"{s} for {v:,}" for s, v in summary["attribute_within_tolerance"].items()
        )
        sentences.append(
            (
                "linkage.tolerance",
                "A numeric sensitive value is learnt within "
                f"±{100 * summary['tolerance']:g}% when all of a target's candidate records "
                f"lie that close to the target's own value: {parts} of the {n:,} targets.",
            )
        )
    problems = []
    if summary["unparsed_cells"]:
        count = sum(len(v) for v in summary["unparsed_cells"].values())
        problems.append(f"{count:,} released values could not be read and match nobody")
    if summary["targets_outside_own_class"]:
        problems.append(
            f"{summary['targets_outside_own_class']:,} targets do not match their own "
            "record's class (the release does not contain their values)"
        )
    if summary["population_clipped"]:
        problems.append(
            f"{summary['population_clipped']:,} classes match fewer roll people than they "
            "have records, so their population count was raised to their size"
        )
    if problems:
        sentences.append(("linkage.warnings", "Note: " + "; ".join(problems) + "."))
    return [s for _, s in sentences], [c for c, _ in sentences]


def _chain_steps(
    table: pd.DataFrame,
    release: pd.DataFrame,
    classes: EquivalenceClasses,
    qi: Sequence[str],
    sa: Sequence[str],
    pair_i: np.ndarray,
    pair_cls: np.ndarray,
) -> list[dict[str, Any]]:
    """The attacker's reasoning for up to ten example victims, step by step (a dict
    each, so that the app can put it in words in either language; :func:`chain_text`
    says it in English)."""
    if table.empty:
        return []
    correct = table["correct"].to_numpy(dtype=bool)
    told = np.zeros(len(table), dtype=bool)
    for s in sa:
        told |= table[f"{s} disclosed"].to_numpy(dtype=bool)
    chosen = np.concatenate(
        [
            np.flatnonzero(correct)[:3],
            np.flatnonzero(told & ~correct)[:3],
            np.flatnonzero(~correct & ~told)[:_CHAINS],
        ]
    )
    chosen = distinct(chosen)[:_CHAINS]
    starts = np.searchsorted(pair_i, np.arange(len(table) + 1))
    keys = release.iloc[classes.first_row][list(qi)].astype(object)
    steps = []
    for t in chosen.tolist():  # at most ten victims
        row = table.iloc[t]
        mine = pair_cls[starts[t] : starts[t + 1]]
        n = int(row["candidate_records"])
        steps.append(
            {
                "name": str(row["name"]),
                "person": [[str(q), str(row[q])] for q in qi],
                "classes": len(mine),
                "first_class": ", ".join(str(v) for v in keys.iloc[int(mine[0])].tolist())
                if len(mine)
                else None,
                "suppressed": bool(len(mine) == 0 and classes.ids[int(row["record"])] < 0),
                "candidates": n,
                "matched_record": int(row["matched_record"]) if n == 1 else None,
                "correct": bool(row["correct"]),
                "sensitive": [
                    [str(s), str(row[f"{s} values"]), bool(row[f"{s} disclosed"])] for s in sa
                ]
                if n
                else [],
            }
        )
    return steps


def chain_text(step: dict[str, Any]) -> str:
    """One victim's chain of reasoning (:func:`_chain_steps`) in plain English."""
    person = ", ".join(f"{q} {v}" for q, v in step["person"])
    text = f"Voter {step['name']}, {person}"
    if step["classes"] == 0:
        text += " → no release class matches"
        if step["suppressed"]:
            text += " (their record was suppressed)"
    elif step["classes"] == 1:
        text += f" → release class {step['first_class']}"
    else:
        text += f" → {step['classes']} release classes ({step['first_class']}; …)"
    n = step["candidates"]
    if n == 1:
        who = "the right person" if step["correct"] else "someone else"
        text += f" → 1 candidate: record {step['matched_record']}, {who}"
    elif n:
        text += f" → {n:,} candidates"
    for s, values, disclosed in step["sensitive"]:
        text += f" → {s} {values}: {'disclosed' if disclosed else 'not disclosed'}"
    return text
