"""The linkage attack: join a release with a voter roll (SPEC §6; seed 003 §20.3).

Sweeney (2002) re-identified a governor's hospital record by joining an "anonymized"
release with the town's voter list on ZIP, birth date and sex. The attacker here holds
a voter roll (names and QI values of a population) and the release. The release's
equivalence classes are the groups of identical released QI tuples; rows whose QIs are
all ``*`` are suppressed and form no class. A roll person *matches* a class when, for
every QI, the class's released cell contains the person's value (range containment,
mask prefix, hierarchy ancestry: :mod:`privcore.attacks.cells`). The person's candidate
records are all the records of all the classes they match.

Matching never loops over people or classes in Python. Each QI of the roll is factorized
once, and each distinct released cell is evaluated once against the distinct roll
values (:meth:`ColumnCells.contains`). Then one of two exact strategies runs:

- ``join`` (full-domain releases, and any release whose cells of each QI are disjoint
  on the roll's values): every roll value lies in at most one cell per QI, so a person
  matches at most one class — the one whose cell tuple is the tuple of cells holding
  the person's values. One combined integer key per person and per class and a
  ``searchsorted`` do the join: O(roll + release).
- ``bitset`` (local recoding such as Mondrian or KACA, uploaded releases): per QI and
  distinct roll value, the set of classes whose cell contains it, as a bitset of uint64
  words. The distinct roll tuples (a million people have far fewer) are processed in
  chunks of bounded memory: the bitsets of their values are ANDed over the QIs, and the
  set bits give candidate classes, candidate records (Σ class sizes), the single class,
  and F_j, the number of roll people matching class j.

Both give the same answer whenever ``join`` applies (a test checks it).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from privcore.attacks.cells import ColumnCells, parse_column
from privcore.attacks.report import AttackReport
from privcore.classes import EquivalenceClasses, combine_codes, equivalence_classes, factorize
from privcore.data.hierarchy import Hierarchy, value_keys
from privcore.errors import ParameterError, RoleError
from privcore.measure.risk import risk_summary

__all__ = ["METHODS", "Matches", "linkage_attack", "match_roll"]

Progress = Callable[[float, str], None]

#: Matching strategies: "auto" picks "join" whenever it is exact, else "bitset".
METHODS = ("auto", "join", "bitset")

_WORD_BUDGET = 1 << 20  # uint64 words of class bitsets per chunk of roll tuples (8 MB)
_BYTE_SLICE = 1 << 20  # non-zero bitset bytes unpacked at once when listing pairs
_DENSE_CELLS = 16_000_000  # booleans per block when building the bitsets
_SHOWN_VALUES = 5  # sensitive values listed per target before "…"
_CHAINS = 10  # example victims explained step by step


def _report(progress: Progress | None, fraction: float, message: str) -> None:
    if progress is not None:
        progress(min(max(float(fraction), 0.0), 1.0), message)


# --------------------------------------------------------------------------- matching


@dataclass(frozen=True, eq=False)
class _Bitsets:
    """What the bitset strategy needs to list the candidate classes of any person."""

    n_classes: int
    words: int
    tuple_codes: tuple[np.ndarray, ...]  # per QI, the value code of each distinct tuple
    bits: tuple[np.ndarray, ...]  # per QI, (distinct roll values × words) uint64

    @classmethod
    def build(
        cls,
        classes: EquivalenceClasses,
        cells: Mapping[str, ColumnCells],
        qi: Sequence[str],
        class_cells: Sequence[np.ndarray],
        tuple_codes: Sequence[np.ndarray],
        roll_values: Sequence[np.ndarray],
    ) -> _Bitsets:
        """Per QI and distinct roll value, the classes whose cell contains it (bit j of
        byte j // 8, little-endian bit order), padded to whole uint64 words."""
        n_classes = classes.n_classes
        words = max(1, -(-n_classes // 64))
        bits: list[np.ndarray] = []
        for q, of_class, values in zip(qi, class_cells, roll_values, strict=True):
            matrix = np.zeros((len(values), words * 8), dtype=np.uint8)
            for lo, block in _blocks(cells[q], values, n_classes):
                packed = np.packbits(block[of_class].T, axis=1, bitorder="little")
                matrix[lo : lo + block.shape[1], : packed.shape[1]] = packed
            bits.append(matrix.view(np.uint64))
        return cls(n_classes, words, tuple(tuple_codes), tuple(bits))

    def chunks(self, tuples: np.ndarray) -> Any:
        """Yield (start, ANDed bitsets) for consecutive chunks of ``tuples``."""
        size = max(1, _WORD_BUDGET // max(self.words, 1))
        for start in range(0, len(tuples), size):
            part = tuples[start : start + size]
            acc = self.bits[0][self.tuple_codes[0][part]]
            for codes, bits in zip(self.tuple_codes[1:], self.bits[1:], strict=True):
                np.bitwise_and(acc, bits[codes[part]], out=acc)
            yield start, acc

    def pairs(self, tuples: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(position in ``tuples``, candidate class) for every candidate of each tuple."""
        rows: list[np.ndarray] = []
        classes: list[np.ndarray] = []
        for start, acc in self.chunks(tuples):
            for r, c in _set_bits(acc):
                rows.append(r + start)
                classes.append(c)
        if not rows:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        return np.concatenate(rows), np.concatenate(classes)


def _set_bits(acc: np.ndarray) -> Any:
    """Yield (row, class) arrays of the set bits of a (rows × words) bitset matrix, in
    slices of bounded size. Bit i of byte b of a row is class 8·b + i."""
    as_bytes = acc.view(np.uint8)
    row, byte = np.nonzero(as_bytes)
    for lo in range(0, len(row), _BYTE_SLICE):
        r, b = row[lo : lo + _BYTE_SLICE], byte[lo : lo + _BYTE_SLICE]
        bits = np.unpackbits(as_bytes[r, b][:, None], axis=1, bitorder="little")
        k, i = np.nonzero(bits)
        yield r[k].astype(np.int64), b[k].astype(np.int64) * 8 + i


@dataclass(frozen=True, eq=False)
class Matches:
    """Who in the roll matches what in the release.

    Per roll person (arrays in roll order): ``candidate_classes`` (how many classes the
    person matches), ``candidate_records`` (Σ sizes of those classes), ``single_class``
    (the class when exactly one, else -1), ``matched_record`` (the record when exactly
    one candidate record, else -1). Per class: ``population`` = F_j, the number of roll
    people matching class j (raw, not clipped). ``classes`` are the release's
    equivalence classes, ``cells`` the parsed QI columns, ``method`` "join" or
    "bitset"; ``tuple_of_person`` numbers the distinct roll QI tuples.
    :meth:`candidate_pairs` lists the candidate classes of some people.
    """

    qi: tuple[str, ...]
    classes: EquivalenceClasses
    candidate_classes: np.ndarray
    candidate_records: np.ndarray
    single_class: np.ndarray
    matched_record: np.ndarray
    population: np.ndarray
    cells: Mapping[str, ColumnCells]
    method: str
    tuple_of_person: np.ndarray = field(repr=False)
    _bitsets: _Bitsets | None = field(default=None, repr=False)

    @property
    def n_people(self) -> int:
        return len(self.candidate_classes)

    @property
    def unique(self) -> np.ndarray:
        """People with exactly one candidate record."""
        return self.candidate_records == 1

    @property
    def unparsed(self) -> dict[str, list[str]]:
        """Released values no form fits, per QI column (they match nobody)."""
        return {q: list(c.unparsed) for q, c in self.cells.items() if c.unparsed}

    def candidate_pairs(self, people: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(i, class) for every candidate class of person ``people[i]`` (positions in
        the roll), sorted by i."""
        people = np.asarray(people, dtype=np.int64)
        if self._bitsets is None:
            single = self.single_class[people]
            i = np.flatnonzero(single >= 0)
            return i, single[i]
        tuples, inverse = np.unique(self.tuple_of_person[people], return_inverse=True)
        row, cls = self._bitsets.pairs(tuples)
        order = np.argsort(row, kind="stable")
        row, cls = row[order], cls[order]
        starts = np.searchsorted(row, np.arange(len(tuples) + 1))
        counts = np.diff(starts)[inverse]
        i = np.repeat(np.arange(len(people)), counts)
        offsets = np.arange(len(i)) - np.repeat(np.cumsum(counts) - counts, counts)
        return i, cls[np.repeat(starts[:-1][inverse], counts) + offsets]


def match_roll(
    release: pd.DataFrame,
    qi: Sequence[str],
    roll: pd.DataFrame,
    *,
    hierarchies: Mapping[str, Hierarchy] | None = None,
    method: str = "auto",
    progress: Progress | None = None,
) -> Matches:
    """Match every person of ``roll`` to the equivalence classes of ``release``.

    ``release`` and ``roll`` both hold the QI columns ``qi`` (released cells, original
    values); ``hierarchies`` gives QIs their hierarchy, whose labels then mean what the
    hierarchy says. ``method`` "auto" uses the exact join when every roll value lies in
    at most one released cell per QI, else the bitsets; "join" insists (raising
    :class:`ParameterError` when it would not be exact), "bitset" forces the general
    path. See the module docstring.
    """
    qi = tuple(str(q) for q in qi)
    _check_columns(release, roll, qi)
    if method not in METHODS:
        raise ParameterError(
            f"Unknown matching method '{method}'; use one of {', '.join(METHODS)}.",
            code="linkage.bad_method",
            method=str(method),
        )
    hierarchies = hierarchies or {}
    _report(progress, 0.0, "Linkage: reading the release")
    classes = equivalence_classes(release, qi)
    n_classes = classes.n_classes
    cells: dict[str, ColumnCells] = {}
    class_cells: list[np.ndarray] = []
    roll_codes: list[np.ndarray] = []
    roll_values: list[np.ndarray] = []
    for q in qi:
        parsed = parse_column(release[q], hierarchy=hierarchies.get(q), column=q)
        cells[q] = parsed
        class_cells.append(parsed.codes[classes.first_row])
        codes, values = factorize(roll[q])
        roll_codes.append(codes)
        roll_values.append(values)
    # Distinct roll tuples: people sharing all QI values share every answer.
    key = combine_codes(roll_codes, [len(v) for v in roll_values])
    tuple_of_person, first = _factorize_first(key)
    tuple_codes = [codes[first] for codes in roll_codes]
    tuple_counts = np.bincount(tuple_of_person, minlength=len(first))
    _report(progress, 0.1, "Linkage: evaluating released cells")

    joinable = method != "bitset"
    value_cell: list[np.ndarray] = []  # per QI: the single used cell holding each value
    if joinable:
        for q, used_of_class, values in zip(qi, class_cells, roll_values, strict=True):
            used = np.unique(used_of_class)
            hits = np.zeros(len(values), dtype=np.int64)
            cell = np.full(len(values), -1, dtype=np.int64)
            for lo, block in _blocks(cells[q], values, len(used)) if len(used) else ():
                inside = block[used]
                hits[lo : lo + inside.shape[1]] = inside.sum(axis=0)
                cell[lo : lo + inside.shape[1]] = np.where(
                    inside.any(axis=0), inside.argmax(axis=0), -1
                )
            if len(hits) and hits.max() > 1:
                joinable = False
                break
            value_cell.append(cell)
        if not joinable and method == "join":
            raise ParameterError(
                "The released cells overlap (a value lies in several cells of one "
                "column), so an exact join cannot match this release; use the bitset "
                "method.",
                code="linkage.not_joinable",
            )
    bitsets = None
    if joinable:
        result = _join(classes, class_cells, value_cell, tuple_codes, tuple_counts)
        used_method = "join"
    else:
        bitsets = _Bitsets.build(classes, cells, qi, class_cells, tuple_codes, roll_values)
        result = _bitset_match(classes, bitsets, tuple_counts, progress)
        used_method = "bitset"
    n_candidates, records, single, population = result
    candidate_classes = n_candidates[tuple_of_person]
    candidate_records = records[tuple_of_person]
    single_class = single[tuple_of_person]
    matched_record = np.full(len(roll), -1, dtype=np.int64)
    unique = candidate_records == 1
    if n_classes:
        matched_record[unique] = classes.first_row[single_class[unique]]
    _report(progress, 1.0, "Linkage: matched")
    return Matches(
        qi=qi,
        classes=classes,
        candidate_classes=candidate_classes,
        candidate_records=candidate_records,
        single_class=single_class,
        matched_record=matched_record,
        population=population,
        cells=cells,
        method=used_method,
        tuple_of_person=tuple_of_person,
        _bitsets=bitsets,
    )


def _check_columns(release: pd.DataFrame, roll: pd.DataFrame, qi: Sequence[str]) -> None:
    if not qi:
        raise RoleError("Choose at least one quasi-identifier.", code="roles.no_qi")
    for frame, what in ((release, "release"), (roll, "voter roll")):
        missing = [q for q in qi if q not in frame.columns]
        if missing:
            raise RoleError(
                f"The {what} has no column {', '.join(missing)}.",
                code="linkage.missing_columns",
                table=what,
                columns=missing,
            )


def _blocks(cells: ColumnCells, values: np.ndarray, rows: int) -> Any:
    """Yield (start, contains matrix) over blocks of ``values`` of bounded size."""
    size = max(1, _DENSE_CELLS // max(len(cells), rows, 1))
    for lo in range(0, len(values), size):
        # infer_objects: numbers become a numeric column, read without a Python loop.
        yield lo, cells.contains(pd.Series(values[lo : lo + size], dtype=object).infer_objects())


def _join(
    classes: EquivalenceClasses,
    class_cells: Sequence[np.ndarray],
    value_cell: Sequence[np.ndarray],
    tuple_codes: Sequence[np.ndarray],
    tuple_counts: np.ndarray,
) -> tuple[np.ndarray, ...]:
    """Exact join when each roll value lies in at most one cell per QI: per distinct
    roll tuple, (candidate classes, candidate records, the class or -1), and F_j."""
    n_tuples = len(tuple_counts)
    n_classes = classes.n_classes
    columns, cards = [], []
    for of_class, cell_of_value, codes in zip(class_cells, value_cell, tuple_codes, strict=True):
        used = np.unique(of_class)
        # Code 0 = "in no cell" (never a class's code), cells 1..len(used).
        class_code = np.searchsorted(used, of_class) + 1
        tuple_code = cell_of_value[codes] + 1
        columns.append(np.concatenate([class_code, tuple_code]))
        cards.append(len(used) + 1)
    single = np.full(n_tuples, -1, dtype=np.int64)
    if n_classes:
        key = combine_codes(columns, cards)
        class_key, tuple_key = key[:n_classes], key[n_classes:]
        order = np.argsort(class_key, kind="stable")
        sorted_keys = class_key[order]
        position = np.minimum(np.searchsorted(sorted_keys, tuple_key), n_classes - 1)
        found = sorted_keys[position] == tuple_key
        single[found] = order[position[found]]
    matched = single >= 0
    records = np.zeros(n_tuples, dtype=np.int64)
    records[matched] = classes.sizes[single[matched]]
    population = np.bincount(single[matched], weights=tuple_counts[matched], minlength=n_classes)
    return matched.astype(np.int64), records, single, np.rint(population).astype(np.int64)


def _bitset_match(
    classes: EquivalenceClasses,
    bitsets: _Bitsets,
    tuple_counts: np.ndarray,
    progress: Progress | None,
) -> tuple[np.ndarray, ...]:
    """General matching: per distinct roll tuple, AND the class bitsets of its values
    over the QIs; the set bits are its candidate classes."""
    n_classes = classes.n_classes
    n_tuples = len(tuple_counts)
    n_candidates = np.zeros(n_tuples, dtype=np.int64)
    records = np.zeros(n_tuples, dtype=np.float64)
    single = np.full(n_tuples, -1, dtype=np.int64)
    population = np.zeros(n_classes, dtype=np.float64)
    sizes = classes.sizes.astype(np.float64)
    counts = tuple_counts.astype(np.float64)
    every = np.arange(n_tuples, dtype=np.int64)
    for start, acc in bitsets.chunks(every):
        for row, cls in _set_bits(acc):
            row += start
            n_candidates += np.bincount(row, minlength=n_tuples)
            records += np.bincount(row, weights=sizes[cls], minlength=n_tuples)
            single[row] = cls  # kept only where a tuple has exactly one candidate
            population += np.bincount(cls, weights=counts[row], minlength=n_classes)
        done = min(start + len(acc), n_tuples)
        _report(
            progress,
            0.2 + 0.8 * done / max(n_tuples, 1),
            f"Linkage: matched {done:,} of {n_tuples:,} distinct QI tuples",
        )
    single[n_candidates != 1] = -1
    return (
        n_candidates,
        np.rint(records).astype(np.int64),
        single,
        np.rint(population).astype(np.int64),
    )


def _factorize_first(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Dense ids 0..m-1 of ``key`` (order of first appearance) and each id's first row."""
    ids, uniques = pd.factorize(key)
    ids = ids.astype(np.int64, copy=False)
    first = np.full(len(uniques), len(key), dtype=np.int64)
    np.minimum.at(first, ids, np.arange(len(key), dtype=np.int64))
    return ids, first


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
    progress: Progress | None = None,
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
    ``baseline`` = mean over targets of 1/|candidate records| (0 with none),
    ``suppressed_targets``, ``targets_outside_own_class`` (targets who do not match
    their own record's class: the release does not contain their values), ``risk``
    from :func:`~privcore.measure.risk.risk_summary` with F_j = roll people matching
    class j (clipped up to f_j when smaller: ``population_clipped``),
    ``unparsed_cells`` and ``roll_size``.
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
    record = _records(roll, len(release))
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

    matches = match_roll(release, qi, roll, hierarchies=hierarchies, progress=sub_progress)
    matched_at = time.perf_counter()
    classes = matches.classes
    _report(progress, 0.8, "Linkage: who was re-identified")

    targets = np.flatnonzero(record >= 0)
    target_record = record[targets]
    own_class = classes.ids[target_record] if len(targets) else np.zeros(0, dtype=np.int64)
    n_targets = len(targets)
    unique = matches.unique
    correct_all = unique & (matches.matched_record == record) & (record >= 0)
    false_all = unique & (matches.matched_record != record)
    reidentified = int(correct_all.sum())
    false_matches = int(false_all.sum())
    unique_targets = int(unique[targets].sum())
    found = reidentified + false_matches
    precision = reidentified / found if found else None
    cand_records = matches.candidate_records[targets]
    inverse = np.zeros(n_targets, dtype=np.float64)
    has = cand_records > 0
    inverse[has] = 1.0 / cand_records[has]
    baseline = float(inverse.mean()) if n_targets else 0.0

    pair_i, pair_cls = matches.candidate_pairs(targets)
    own_hit = np.zeros(n_targets, dtype=bool)
    hit = pair_cls == own_class[pair_i]
    own_hit[pair_i[hit]] = True
    outside_own = int(((own_class >= 0) & ~own_hit).sum())
    suppressed_targets = int((own_class < 0).sum())

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
        disclosed[s] = int(is_disclosed.sum())
        wrong[s] = int(is_wrong.sum())

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
    table["candidate_classes"] = matches.candidate_classes[targets]
    table["candidate_records"] = cand_records
    table["matched_record"] = matches.matched_record[targets]
    table["correct"] = correct_all[targets]
    for name, column in sa_columns.items():
        table[name] = column

    summary: dict[str, Any] = {
        "roll_size": len(roll),
        "targets": n_targets,
        "classes": int(classes.n_classes),
        "suppressed_rows": int(classes.n_suppressed),
        "unique_matches": unique_targets,
        "reidentified": reidentified,
        "false_matches": false_matches,
        "precision": precision,
        "attribute_disclosed": disclosed,
        "attribute_wrong": wrong,
        "baseline": baseline,
        "suppressed_targets": suppressed_targets,
        "targets_outside_own_class": outside_own,
        "unmatched_targets": int((cand_records == 0).sum()),
        "risk": risk_dict,
        "population_clipped": clipped,
        "unparsed_cells": matches.unparsed,
        "method": matches.method,
    }
    explanations, codes = _explain(summary, sa)
    steps = _chain_steps(table, release, classes, qi, sa, pair_i, pair_cls)
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
            "candidate_records": _histogram(cand_records),
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
    keys = value_keys(pd.Series(values, dtype=object))
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

    kept = classes.ids >= 0
    pairs = np.unique(classes.ids[kept] * m + rank[codes[kept]])
    cls_of, rank_of = pairs // m, pairs % m
    starts = np.searchsorted(cls_of, np.arange(classes.n_classes + 1))
    lengths = np.minimum(np.diff(starts), _SHOWN_VALUES + 1)[pair_cls]
    i = np.repeat(pair_i, lengths)
    offsets = np.arange(len(i)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    ranked = rank_of[np.repeat(starts[:-1][pair_cls], lengths) + offsets]
    union = np.unique(i * m + ranked)
    who, what = union // m, union % m
    count = np.bincount(who, minlength=n_targets)
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

    true_text = value_keys(true).fillna("NA").to_numpy(dtype=object)[target_record]
    single = np.full(n_targets, None, dtype=object)
    one = np.flatnonzero(count == 1)
    single[one] = by_rank[what[first[one]]]
    is_single = count == 1
    same = np.zeros(n_targets, dtype=bool)
    same[one] = single[one] == true_text[one]
    return shown.astype(object), is_single & same, is_single & ~same


def _histogram(candidate_records: np.ndarray) -> dict[str, int]:
    """Targets by number of candidate records (0, 1, 2, 3–5, 6–10, 11–100, >100)."""
    edges = [(0, 0), (1, 1), (2, 2), (3, 5), (6, 10), (11, 100)]
    out = {
        (str(lo) if lo == hi else f"{lo}-{hi}"): int(
            ((candidate_records >= lo) & (candidate_records <= hi)).sum()
        )
        for lo, hi in edges
    }
    out[">100"] = int((candidate_records > 100).sum())
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
    chosen = np.unique(chosen)[:_CHAINS]
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
