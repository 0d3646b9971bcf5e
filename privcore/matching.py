"""Which people of a population (a voter roll, a register) match which equivalence
classes of a release (SPEC §6): the join at the heart of the linkage attack, of the
journalist risk of a measurement, and of population risk.

A roll person *matches* a class when, for every QI, the class's released cell contains
the person's value (range containment, mask prefix, hierarchy ancestry:
:mod:`privcore.data.cells`); the person's candidate records are all the records of all
the classes they match. Rows whose QIs are all ``*`` are suppressed and form no class.

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

Frequency sets (SPEC §9). A release given as a weighted frequency set (``weights``: row i
stands for ``weights[i]`` identical records) has the same classes, sized in records, so
a person's candidate records are Σ of those records; a roll given as a frequency set
(``counts``: roll row i stands for ``counts[i]`` people with its QI values) is matched
row by row, each row's answer holding for every person it stands for, and F_j sums the
counts. Every figure is then that of the expanded tables (rows repeated by weight and
count).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from privcore.classes import (
    EquivalenceClasses,
    code_counts,
    combine_codes,
    distinct,
    equivalence_classes,
    factorize,
    group_rows,
)
from privcore.core.progress import Progress
from privcore.core.progress import report as _report
from privcore.data.cells import ColumnCells, parse_column
from privcore.data.codes import checked_counts
from privcore.data.hierarchy import Hierarchy
from privcore.errors import ParameterError, RoleError

__all__ = [
    "METHODS",
    "Matches",
    "RollCodes",
    "checked_counts",
    "match_roll",
    "read_roll",
    "require_columns",
    "weighted_classes",
]

#: Matching strategies: "auto" picks "join" whenever it is exact, else "bitset".
METHODS = ("auto", "join", "bitset")

_WORD_BUDGET = 1 << 20  # uint64 words of class bitsets per chunk of roll tuples (8 MB)
_BYTE_SLICE = 1 << 20  # non-zero bitset bytes unpacked at once when listing pairs
_DENSE_CELLS = 16_000_000  # booleans per block when building the bitsets


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

    With a roll frequency set the per-person arrays are per roll row, ``people`` says
    how many people each row stands for (None: one each) and ``population`` counts
    people; with a weighted release the class sizes and candidate records count records.
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
    people: np.ndarray | None = field(default=None, repr=False)

    @property
    def n_people(self) -> int:
        if self.people is None:
            return len(self.candidate_classes)
        return int(self.people.sum())

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
        tuples, inverse = distinct(self.tuple_of_person[people], return_inverse=True)
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
    weights: np.ndarray | None = None,
    counts: np.ndarray | None = None,
    blanked: np.ndarray | None = None,
    roll_codes: RollCodes | None = None,
) -> Matches:
    """Match every person of ``roll`` to the equivalence classes of ``release``.

    ``blanked`` (a boolean per release row, or None): the rows the method that made the
    release blanked — then only those of the rows at ``*`` in every QI are suppressed,
    and rows generalized to ``*`` are a class that every person matches
    (:func:`~privcore.classes.equivalence_classes`).

    ``release`` and ``roll`` both hold the QI columns ``qi`` (released cells, original
    values); ``hierarchies`` gives QIs their hierarchy, whose labels then mean what the
    hierarchy says. ``method`` "auto" uses the exact join when every roll value lies in
    at most one released cell per QI, else the bitsets; "join" insists (raising
    :class:`ParameterError` when it would not be exact), "bitset" forces the general
    path. ``weights`` (whole numbers ≥ 1, one per release row) make the release a
    weighted frequency set and ``counts`` (one per roll row) the roll one: class sizes
    and candidate records then count records, F_j counts people, and the per-person
    arrays hold one answer per roll row, true of each of its ``counts[i]`` people
    (:attr:`Matches.people`). ``roll_codes``: the roll's QI columns already read
    (:func:`read_roll` of this roll), so that several releases matched against one roll
    read it once. See the module docstring.
    """
    qi = tuple(str(q) for q in qi)
    weights, counts = _checked_arguments(release, roll, qi, method, weights, counts)
    _report(progress, 0.0, "Linkage: reading the release")
    classes = equivalence_classes(release, qi, blanked=blanked)
    if weights is not None:
        classes = weighted_classes(classes, weights)
    cells, class_cells = _read_cells(release, qi, classes, hierarchies or {})
    if roll_codes is None or roll_codes.qi != qi or roll_codes.rows != len(roll):
        roll_codes = read_roll(roll, qi)
    roll_values = roll_codes.values
    # Distinct roll tuples: people sharing all QI values share every answer.
    tuple_codes, tuple_of_person = roll_codes.tuple_codes, roll_codes.tuple_ids
    tuple_people = roll_codes.people(counts)
    _report(progress, 0.1, "Linkage: evaluating released cells")
    value_cell = None
    if method != "bitset":
        value_cell = _value_cells(cells, qi, class_cells, roll_values, insist=method == "join")
    bitsets = None
    if value_cell is not None:
        result = _join(classes, class_cells, value_cell, tuple_codes, tuple_people)
    else:
        bitsets = _Bitsets.build(classes, cells, qi, class_cells, tuple_codes, roll_values)
        result = _bitset_match(classes, bitsets, tuple_people, progress)
    n_candidates, records, single, population = result
    candidate_records = records[tuple_of_person]
    single_class = single[tuple_of_person]
    _report(progress, 1.0, "Linkage: matched")
    return Matches(
        qi=qi,
        classes=classes,
        candidate_classes=n_candidates[tuple_of_person],
        candidate_records=candidate_records,
        single_class=single_class,
        matched_record=_matched_records(classes, candidate_records, single_class),
        population=population,
        cells=cells,
        method="bitset" if bitsets is not None else "join",
        tuple_of_person=tuple_of_person,
        _bitsets=bitsets,
        people=counts,
    )


def _checked_arguments(
    release: pd.DataFrame,
    roll: pd.DataFrame,
    qi: Sequence[str],
    method: str,
    weights: np.ndarray | None,
    counts: np.ndarray | None,
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The arguments of :func:`match_roll`, checked: the QI columns of both tables, the
    method, and the release's row weights and the roll's people counts as int64."""
    _check_columns(release, roll, qi)
    if weights is not None:
        weights = checked_counts(
            weights, len(release), what="row weights of the release", code="linkage.bad_weights"
        )
    if counts is not None:
        counts = checked_counts(
            counts, len(roll), what="people counts of the voter roll", code="linkage.bad_counts"
        )
    if method not in METHODS:
        raise ParameterError(
            f"Unknown matching method '{method}'; use one of {', '.join(METHODS)}.",
            code="linkage.bad_method",
            method=str(method),
        )
    return weights, counts


@dataclass(frozen=True, eq=False)
class RollCodes:
    """The QI columns of a roll read once (:func:`read_roll`): per QI the value code of
    each person and the distinct values; the distinct QI tuples, numbered in order of
    first appearance (``tuple_ids`` per person, ``tuple_codes`` per QI the value code of
    each tuple) and the people holding each."""

    qi: tuple[str, ...]
    codes: tuple[np.ndarray, ...]
    values: tuple[np.ndarray, ...]
    tuple_ids: np.ndarray
    tuple_codes: tuple[np.ndarray, ...]
    tuple_people: np.ndarray

    @property
    def rows(self) -> int:
        return len(self.tuple_ids)

    def people(self, counts: np.ndarray | None = None) -> np.ndarray:
        """The people of each distinct tuple: one per roll row, or ``counts[i]`` for
        roll row i (a roll frequency set)."""
        if counts is None:
            return self.tuple_people
        people = code_counts(self.tuple_ids, len(self.tuple_people), weights=counts)
        return np.rint(people).astype(np.int64)


def read_roll(roll: pd.DataFrame, qi: Sequence[str]) -> RollCodes:
    """The QI columns ``qi`` of ``roll`` as :class:`RollCodes`: each column factorized
    once, the distinct tuples grouped once."""
    qi = tuple(str(q) for q in qi)
    codes, values = zip(*(factorize(roll[q]) for q in qi), strict=True)
    groups = group_rows(list(codes), [len(v) for v in values])
    first = groups.first
    return RollCodes(
        qi,
        tuple(codes),
        tuple(values),
        groups.ids,
        tuple(c[first] for c in codes),
        groups.counts,
    )


def _read_cells(
    release: pd.DataFrame,
    qi: Sequence[str],
    classes: EquivalenceClasses,
    hierarchies: Mapping[str, Hierarchy],
) -> tuple[dict[str, ColumnCells], list[np.ndarray]]:
    """Per QI: the released cells (parsed once) and the cell of each class."""
    cells: dict[str, ColumnCells] = {}
    class_cells: list[np.ndarray] = []
    for q in qi:
        parsed = parse_column(release[q], hierarchy=hierarchies.get(q), column=q)
        cells[q] = parsed
        class_cells.append(parsed.codes[classes.first_row])
    return cells, class_cells


def _value_cells(
    cells: Mapping[str, ColumnCells],
    qi: Sequence[str],
    class_cells: Sequence[np.ndarray],
    roll_values: Sequence[np.ndarray],
    *,
    insist: bool,
) -> list[np.ndarray] | None:
    """Per QI, the single used cell holding each distinct roll value (-1: none), or None
    when a value lies in several cells of one QI and the exact join cannot apply (then a
    :class:`ParameterError` ``linkage.not_joinable`` when ``insist``)."""
    value_cell: list[np.ndarray] = []
    for q, used_of_class, values in zip(qi, class_cells, roll_values, strict=True):
        used = np.unique(used_of_class)  # not rows: one cell per class
        hits = np.zeros(len(values), dtype=np.int64)
        cell = np.full(len(values), -1, dtype=np.int64)
        for lo, block in _blocks(cells[q], values, len(used)) if len(used) else ():
            inside = block[used]
            hits[lo : lo + inside.shape[1]] = inside.sum(axis=0)
            cell[lo : lo + inside.shape[1]] = np.where(
                inside.any(axis=0), inside.argmax(axis=0), -1
            )
        if len(hits) and hits.max() > 1:
            if insist:
                raise ParameterError(
                    "The released cells overlap (a value lies in several cells of one "
                    "column), so an exact join cannot match this release; use the bitset "
                    "method.",
                    code="linkage.not_joinable",
                )
            return None
        value_cell.append(cell)
    return value_cell


def _matched_records(
    classes: EquivalenceClasses, candidate_records: np.ndarray, single_class: np.ndarray
) -> np.ndarray:
    """Per person: the record of their single candidate record's class, -1 when they
    have not exactly one candidate record."""
    matched_record = np.full(len(candidate_records), -1, dtype=np.int64)
    unique = candidate_records == 1
    if classes.n_classes:
        matched_record[unique] = classes.first_row[single_class[unique]]
    return matched_record


def weighted_classes(classes: EquivalenceClasses, weights: np.ndarray) -> EquivalenceClasses:
    """The same partition with row i standing for ``weights[i]`` records (a weighted
    frequency set, SPEC §9): class sizes, suppressed records, value counts and the
    sensitive attributes' distributions count records."""
    weights = np.asarray(weights, dtype=np.int64)
    kept = ~classes.suppressed
    sizes = code_counts(classes.ids[kept], classes.n_classes, weights=weights[kept])
    sensitive = {n: replace(a, weights=weights) for n, a in classes.sensitive.items()}
    return EquivalenceClasses(
        classes.ids,
        np.rint(sizes).astype(np.int64),
        classes.first_row,
        classes.qi,
        sensitive,
        weights,
    )


def _check_columns(release: pd.DataFrame, roll: pd.DataFrame, qi: Sequence[str]) -> None:
    if not qi:
        raise RoleError("Choose at least one quasi-identifier.", code="roles.no_qi")
    for frame, what in ((release, "release"), (roll, "voter roll")):
        require_columns(frame, qi, table=what, text=f"The {what} has no column")


def require_columns(frame: pd.DataFrame, columns: Sequence[str], *, table: str, text: str) -> None:
    """A :class:`RoleError` ``linkage.missing_columns`` (``table``, the missing
    ``columns``) when ``frame`` lacks any of ``columns``: "``text`` a, b."."""
    RoleError.unless_present(
        columns, frame.columns, f"{text} {{names}}.", code="linkage.missing_columns", table=table
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
        used = np.unique(of_class)  # not rows: one cell per class
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
    population = code_counts(single[matched], n_classes, weights=tuple_counts[matched])
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
            n_candidates += code_counts(row, n_tuples)
            records += code_counts(row, n_tuples, weights=sizes[cls])
            single[row] = cls  # kept only where a tuple has exactly one candidate
            population += code_counts(cls, n_classes, weights=counts[row])
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
