"""The attacked columns of the training, control and released tables, read once: each
original value as a code into the column's domain of distinct values, each released value
as a code into its distinct cells, and what the attacks ask of a column — whether a
predicate holds for a row, how many rows it holds for, the distance from a value to a
cell, whether a guessed cell names a value.

Generalized releases
    A released cell may stand for several values (``[20-30)``, ``4767*``, ``{a,b}``, a
    hierarchy label, ``*``). Each distinct cell is read once by
    :func:`privcore.data.cells.parse_column` as the set of original values it contains
    (with ``hierarchies``, their labels are known). A categorical cell is that set; a
    numeric cell is the interval from the least to the greatest original number it
    contains (a number is the interval [v, v]; a cell containing nothing is missing
    nowhere and matches nothing). Then

    - distance: 0 when the cell contains the target's value, else 1 (categorical); the
      gap from the value to the interval (0 inside) over the range (numeric);
    - predicates are built on cells: "c ∈ cell" for a categorical column, "c ≥ low" or
      "c ≤ high" of the cell's interval for a numeric one (by the interval's midpoint
      against the median of the midpoints); a predicate matches an original record when
      its value satisfies it, and a released row when the row's cell *may* satisfy it
      (the cell and the predicate's values overlap), so that a predicate counted as
      singling out in the release matches at most one released row whatever the rows
      really hold;
    - inference: a guess is right only when the guessed cell holds exactly one original
      value, the target's (a generalized label reveals no exact value); with
      ``regression`` the interval's midpoint is the guess.

    Without generalized cells every rule is Anonymeter's.

Missing values follow Anonymeter's table engine: a comparison never holds for a missing
value; "is missing" and "not missing" are predicates of their own, and a missing secret
guessed as missing is a right guess.
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

import numpy as np
import pandas as pd

from privcore.attacks.keys import comparable_codes
from privcore.classes import code_counts, factorize
from privcore.core.scaling import unit_of
from privcore.data.cells import comparable_keys, parse_column
from privcore.data.codes import _same_data, is_number
from privcore.data.hierarchy import Hierarchy

REGRESSION_TOLERANCE = 0.05  # Anonymeter's relative tolerance for numeric guesses
_CELLS = 8_000_000  # matrix cells per block (bounded memory)

# Predicate operators; a predicate is (column, operator, released cell).
OPERATORS = ("in", "not_in", "le", "ge", "lt", "gt")
OP_IN, OP_NOT_IN, OP_LE, OP_GE, OP_LT, OP_GT = range(len(OPERATORS))
_CATEGORICAL_OPS = np.array([OP_IN, OP_NOT_IN], dtype=np.int8)
_NUMERIC_OPS = np.array([OP_IN, OP_NOT_IN, OP_GT, OP_LT, OP_GE, OP_LE], dtype=np.int8)


class _Column(ABC):
    """One attacked column: original values as codes into a domain of distinct values
    (training and control rows), released values as codes into distinct cells."""

    name: str
    numeric: bool
    domain_size: int
    train: np.ndarray  # domain code per training row
    control: np.ndarray  # domain code per control row
    cells: np.ndarray  # cell code per released row
    n_cells: int
    missing_only: np.ndarray  # per cell: the cell is the missing value and nothing else

    def __init__(
        self,
        name: str,
        train: pd.Series,
        control: pd.Series,
        release: pd.Series,
        hierarchy: Hierarchy | None,
    ):
        self.name = name
        original = pd.concat([train, control], ignore_index=True)
        self._read(original, len(train), release, hierarchy)

    @abstractmethod
    def _read(
        self, original: pd.Series, n_train: int, release: pd.Series, hierarchy: Hierarchy | None
    ) -> None:
        """Code the ``original`` values (the training rows, the first ``n_train``, then
        the control rows) and the released cells."""

    @abstractmethod
    def holds(
        self, ops: np.ndarray, cells: np.ndarray, codes: np.ndarray, released: bool
    ) -> np.ndarray:
        """(q × rows) bool: the predicate (operator, cell) holds for each row — given by
        its domain code, or when ``released`` by its cell code (then: the row's cell
        may satisfy it)."""

    @abstractmethod
    def tally(
        self, ops: np.ndarray, cells: np.ndarray, weights: np.ndarray, released: bool
    ) -> np.ndarray:
        """Per predicate: the rows it holds for (as :meth:`holds`), from ``weights``, the
        rows per domain value (or per cell when ``released``), without a row matrix."""

    @abstractmethod
    def distance(self, values: np.ndarray, cells: np.ndarray) -> np.ndarray:
        """(len(values) × len(cells)) distances in [0, 1] from domain values to cells."""

    @abstractmethod
    def correct(self, cells: np.ndarray, values: np.ndarray, regression: bool) -> np.ndarray:
        """Per pair: the guessed cell names the domain value (inference success)."""

    def operators(self) -> np.ndarray:
        return _NUMERIC_OPS if self.numeric else _CATEGORICAL_OPS


def _column_values(frame: pd.DataFrame, name: str) -> pd.Series:
    return frame[name].reset_index(drop=True)


def _finite_numbers(values: pd.Series) -> np.ndarray:
    """``values`` as a writable float array (pandas may hand out read-only views), NaN
    where a value is no number or not finite."""
    out = np.array(
        pd.to_numeric(values, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    )
    out[~np.isfinite(out)] = np.nan
    return out


class _CategoricalColumn(_Column):
    """Values compared as keys (:func:`comparable_keys`: ``39`` = ``39.0`` = ``"39.0"``;
    missing is a value). A released cell is one domain value (an exact cell; released
    values the originals lack join the domain) or a set of them (a generalized cell,
    one row of ``sets``)."""

    numeric = False

    def _read(self, original, n_train, release, hierarchy):
        name = self.name
        parsed = parse_column(release, hierarchy=hierarchy, column=name)
        label_keys = comparable_keys(pd.Series(parsed.labels, dtype=object)).astype(object)
        label_keys = label_keys.where(label_keys.notna(), None).to_numpy(dtype=object)
        exact = np.isin(parsed.kinds, ["exact", "missing"])
        # the distinct keys of the originals in order of first appearance, then the
        # exact labels: numbered as the original rows followed by the labels would be
        key_of_row, keys = comparable_codes(original)
        codes, domain = factorize(np.concatenate([keys, label_keys[exact]]))
        n_keys = len(keys)
        self.train, self.control = codes[key_of_row[:n_train]], codes[key_of_row[n_train:]]
        self.domain_size = len(domain)
        self.missing_value = pd.isna(pd.Series(domain, dtype=object)).to_numpy(dtype=bool)
        self.cells = parsed.codes
        self.n_cells = len(parsed.labels)
        self.exact = np.full(self.n_cells, -1, dtype=np.int64)
        self.exact[exact] = codes[n_keys:]
        self.set_row = np.full(self.n_cells, -1, dtype=np.int64)
        general = np.flatnonzero(~exact)
        self.set_row[general] = np.arange(len(general))
        if len(general):
            sub = parse_column(
                pd.Series(parsed.labels[general], dtype=object), hierarchy=hierarchy, column=name
            )
            probe = pd.Series(domain, dtype=object)
            sets = sub.contains(probe)[sub.codes]  # rows in the order of `general`
        else:
            sets = np.zeros((0, self.domain_size), dtype=bool)
        self.sets = sets
        self.size = np.ones(self.n_cells, dtype=np.int64)
        self.size[general] = sets.sum(axis=1)
        self.missing_only = np.zeros(self.n_cells, dtype=bool)
        self.missing_only[exact] = self.missing_value[self.exact[exact]]

    def _member(self, cells: np.ndarray, values: np.ndarray) -> np.ndarray:
        """(q × len(values)) bool: the domain value lies in the predicate's cell."""
        exact = self.exact[cells]
        out = values[None, :] == exact[:, None]  # a generalized cell's -1 equals nothing
        many = np.flatnonzero(exact < 0)
        if len(many):
            out[many] = self.sets[self.set_row[cells[many]]][:, values]
        return out

    def _satisfied(self, ops: np.ndarray, cells: np.ndarray, values: np.ndarray) -> np.ndarray:
        out = self._member(cells, values)
        negate = np.flatnonzero(ops == OP_NOT_IN)
        if len(negate):  # "≠": any present value outside the cell
            out[negate] = ~out[negate] & ~self.missing_value[values][None, :]
        return out

    def _general_overlap(self, ops: np.ndarray, cells: np.ndarray) -> np.ndarray:
        """(q × generalized cells) bool: the predicate and the cell share a value."""
        out = np.zeros((len(cells), len(self.sets)), dtype=bool)
        domain = np.arange(self.domain_size)
        sets = self.sets.T.astype(np.float32)
        step = max(1, _CELLS // max(self.domain_size, 1))
        for at in range(0, len(cells), step):
            part = slice(at, at + step)
            allowed = self._satisfied(ops[part], cells[part], domain).astype(np.float32)
            out[part] = allowed @ sets > 0
        return out

    def holds(self, ops, cells, codes, released):
        if not released:
            return self._satisfied(ops, cells, codes)
        value = self.exact[codes]  # a released exact cell is its domain value
        out = np.zeros((len(cells), len(codes)), dtype=bool)
        plain = np.flatnonzero(value >= 0)
        if len(plain):
            out[:, plain] = self._satisfied(ops, cells, value[plain])
        general = np.flatnonzero(value < 0)
        if len(general):
            out[:, general] = self._general_overlap(ops, cells)[:, self.set_row[codes[general]]]
        return out

    def tally(self, ops, cells, weights, released):
        weights = np.asarray(weights, dtype=np.float64)
        if released:
            plain = np.flatnonzero(self.exact >= 0)
            on_domain = code_counts(self.exact[plain], self.domain_size, weights=weights[plain])
            general = np.flatnonzero(self.exact < 0)
            on_sets = np.zeros(len(self.sets))
            on_sets[self.set_row[general]] = weights[general]
        else:
            on_domain, on_sets = weights, np.zeros(0)
        present = float(on_domain[~self.missing_value].sum())
        exact = self.exact[cells]
        one = exact >= 0
        member = np.zeros(len(cells))
        member_present = np.zeros(len(cells))
        member[one] = on_domain[exact[one]]
        member_present[one] = np.where(self.missing_value[exact[one]], 0.0, member[one])
        if (~one).any():
            rows = self.set_row[cells[~one]]
            member[~one] = self.sets[rows].astype(np.float64) @ on_domain
            kept = (self.sets & ~self.missing_value[None, :]).astype(np.float64)
            member_present[~one] = kept[rows] @ on_domain
        count = np.where(ops == OP_NOT_IN, present - member_present, member)
        if on_sets.any():
            count += self._general_overlap(ops, cells).astype(np.float64) @ on_sets
        return count

    def differs(self, cells: np.ndarray, values: np.ndarray) -> np.ndarray:
        """(len(values) × len(cells)) bool: the cell does not contain the value."""
        exact = self.exact[cells]
        narrow = np.int32 if self.domain_size < 2**31 else np.int64
        out = values.astype(narrow)[:, None] != exact.astype(narrow)[None, :]
        many = np.flatnonzero(exact < 0)
        if len(many):
            out[:, many] = ~self.sets[self.set_row[cells[many]]][:, values].T
        return out

    def distance(self, values, cells):
        return self.differs(cells, values).astype(np.float64)

    def correct(self, cells, values, regression):
        hit = self.exact[cells] == values
        many = np.flatnonzero(self.exact[cells] < 0)
        if len(many):
            rows = self.set_row[cells[many]]
            hit[many] = self.sets[rows, values[many]] & (self.size[cells[many]] == 1)
        return hit


class _NumericColumn(_Column):
    """Values compared as numbers (missing: NaN, one domain value). A released cell is
    the interval [low, high] of the original numbers it contains (a number: [v, v]),
    and may contain the missing value too (``*``, ``[20-29],NA``)."""

    numeric = True

    def _read(self, original, n_train, release, hierarchy):
        codes, domain = factorize(_finite_numbers(original))
        self.values = np.asarray(domain, dtype=np.float64)
        self.domain_size = len(self.values)
        self.train, self.control = codes[:n_train], codes[n_train:]
        if is_number(release.dtype):
            self.cells, cells = factorize(_finite_numbers(release))
            low = high = np.asarray(cells, dtype=np.float64)
            has_missing = np.isnan(low)
        else:
            parsed = parse_column(release, hierarchy=hierarchy, column=self.name)
            self.cells = parsed.codes
            low, high, has_missing = self._intervals(parsed)
        self.n_cells = len(low)
        self.low, self.high = np.asarray(low, dtype=np.float64), np.asarray(high, np.float64)
        self.has_missing = has_missing
        self.missing_only = has_missing & np.isnan(self.low)
        # halves first: the midpoint of [1e308, 1.5e308] is a float, their sum is not
        self.midpoint = np.where(self.low == self.high, self.low, 0.5 * self.low + 0.5 * self.high)
        self.plain = bool(
            np.isfinite(self.low).all()
            and np.array_equal(self.low, self.high)
            and np.isfinite(self.values).all()
        )
        known = np.concatenate([self.values, self.low, self.high])
        known = known[np.isfinite(known)]
        # distances in a unit whose range is a float (values near ±1e308: unit_of)
        self.unit = unit_of(known)
        known = known * self.unit
        span = float(known.max() - known.min()) if len(known) else 0.0
        self.span = span if span > 0 else 1.0

    def _intervals(self, parsed) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        as_number = _finite_numbers(pd.Series(parsed.labels, dtype=object))
        present = self.values[np.isfinite(self.values)]
        probe = pd.Series(np.append(present, np.nan), dtype=np.float64)
        contained = parsed.contains(probe)  # labels × (present numbers, missing)
        inside = contained[:, :-1]
        with np.errstate(invalid="ignore"):
            low = np.where(inside, present[None, :], np.inf).min(axis=1, initial=np.inf)
            high = np.where(inside, present[None, :], -np.inf).max(axis=1, initial=-np.inf)
        empty = ~inside.any(axis=1)
        low[empty], high[empty] = np.nan, np.nan
        number = np.isfinite(as_number)
        low[number], high[number] = as_number[number], as_number[number]
        missing_label = np.array([v is None for v in parsed.labels], dtype=bool)
        has_missing = (contained[:, -1] & ~number) | missing_label
        return low, high, has_missing

    def _bounds(self, ops: np.ndarray, cells: np.ndarray):
        """Each predicate as a closed interval [a, b] of numbers, whether it is negated,
        and whether it holds for a missing value. "= missing" is "is missing"; any other
        operator on a missing cell is "not missing"; a cell that holds no number (and is
        not missing) makes "≠" hold for every number and the others for none."""
        low, high = self.low[cells], self.high[cells]
        a = np.full(len(cells), -np.inf)
        b = np.full(len(cells), np.inf)
        inside = (ops == OP_IN) | (ops == OP_NOT_IN)
        a[inside], b[inside] = low[inside], high[inside]
        b[ops == OP_LE] = high[ops == OP_LE]
        a[ops == OP_GE] = low[ops == OP_GE]
        with np.errstate(over="ignore"):  # "> the largest float" holds for no number
            b[ops == OP_LT] = np.nextafter(low[ops == OP_LT], -np.inf)
            a[ops == OP_GT] = np.nextafter(high[ops == OP_GT], np.inf)
        negate = ops == OP_NOT_IN
        with_missing = (ops == OP_IN) & self.has_missing[cells]
        no_number = np.isnan(low)
        everything = no_number & ((ops == OP_NOT_IN) | (self.missing_only[cells] & (ops != OP_IN)))
        nothing = no_number & ~everything
        a[everything], b[everything], negate[everything] = -np.inf, np.inf, False
        a[nothing], b[nothing], negate[nothing] = np.inf, -np.inf, False
        return a, b, negate, with_missing

    def holds(self, ops, cells, codes, released):
        a, b, negate, with_missing = (v[:, None] for v in self._bounds(ops, cells))
        if not released:
            x = self.values[codes][None, :]
            with np.errstate(invalid="ignore"):
                out = ((x >= a) & (x <= b)) ^ negate
            missing = np.isnan(self.values[codes])
            out[:, missing] = with_missing[:, 0:1]
            return out
        low, high = self.low[codes][None, :], self.high[codes][None, :]
        with np.errstate(invalid="ignore"):
            out = np.where(negate, (low < a) | (high > b), (low <= b) & (high >= a))
        return out | (with_missing & self.has_missing[codes][None, :])

    def tally(self, ops, cells, weights, released):
        a, b, negate, with_missing = self._bounds(ops, cells)
        weights = np.asarray(weights, dtype=np.float64)
        if not released:
            finite = np.isfinite(self.values)
            inside = _weight_between(self.values[finite], weights[finite], a, b)
            count = np.where(negate, weights[finite].sum() - inside, inside)
            return count + with_missing * weights[~finite].sum()
        finite = np.isfinite(self.low)
        low, high, w = self.low[finite], self.high[finite], weights[finite]
        total = w.sum()
        above = total - _weight_at_most(low, w, b)  # cells starting above b
        below = _weight_below(high, w, a)  # cells ending below a
        meets = np.maximum(total - above - below, 0.0)
        spans = np.flatnonzero(low < high)  # intervals: may stick out on both sides
        both = np.zeros(len(cells))
        if len(spans):
            out_both = (low[spans][None, :] < a[:, None]) & (high[spans][None, :] > b[:, None])
            both = out_both.astype(np.float64) @ w[spans]
        sticks_out = _weight_below(low, w, a) + (total - _weight_at_most(high, w, b)) - both
        count = np.where(negate, sticks_out, meets)
        # A cell holding numbers and the missing value ("*", "[20-29],NA") counts once.
        mixed = np.flatnonzero(self.has_missing & np.isfinite(self.low))
        counted = np.zeros(len(cells))
        if len(mixed):
            lo, hi = self.low[mixed][None, :], self.high[mixed][None, :]
            met = (lo <= b[:, None]) & (hi >= a[:, None]) & ~negate[:, None]
            counted = met.astype(np.float64) @ weights[mixed]
        return count + with_missing * (weights[self.has_missing].sum() - counted)

    def distance(self, values, cells):
        x = self.values[values][:, None] * self.unit
        low, high = self.low[cells][None, :] * self.unit, self.high[cells][None, :] * self.unit
        if self.plain:  # numbers only, each cell one number: Anonymeter's |x − y|/range
            return np.minimum(np.abs(x - low) / self.span, 1.0)
        with np.errstate(invalid="ignore"):
            gap = np.maximum(np.maximum(low - x, x - high), 0.0) / self.span
        out = np.minimum(gap, 1.0)
        missing = np.isnan(x)
        no_number = np.isnan(low)
        out = np.where(no_number, 1.0, out)
        out = np.where(missing, np.where(self.has_missing[cells][None, :], 0.0, 1.0), out)
        return out

    def correct(self, cells, values, regression):
        x = self.values[values]
        missing = np.isnan(x)
        both_missing = missing & self.missing_only[cells]
        with np.errstate(invalid="ignore"):
            if regression:
                guess = self.midpoint[cells]
                hit = np.abs(guess - x) <= REGRESSION_TOLERANCE * np.abs(guess)
            else:
                hit = (self.low[cells] == x) & (self.high[cells] == x)
        return (hit & ~missing) | both_missing


def _weight_up_to(
    values: np.ndarray, weights: np.ndarray, bound: np.ndarray, side: str
) -> np.ndarray:
    """Σ of ``weights`` where ``values`` ≤ each bound (``side`` "right") or < it ("left"):
    sorted once, then binary search."""
    order = np.argsort(values, kind="stable")
    cumulative = np.concatenate([[0.0], np.cumsum(weights[order])])
    return cumulative[np.searchsorted(values[order], bound, side=side)]


def _weight_at_most(values: np.ndarray, weights: np.ndarray, bound: np.ndarray) -> np.ndarray:
    """Σ of ``weights`` where ``values`` ≤ each bound."""
    return _weight_up_to(values, weights, bound, "right")


def _weight_below(values: np.ndarray, weights: np.ndarray, bound: np.ndarray) -> np.ndarray:
    """Σ of ``weights`` where ``values`` < each bound."""
    return _weight_up_to(values, weights, bound, "left")


def _weight_between(
    values: np.ndarray, weights: np.ndarray, low: np.ndarray, high: np.ndarray
) -> np.ndarray:
    """Σ of ``weights`` where low ≤ ``values`` ≤ high (0 for an empty interval)."""
    return np.maximum(
        _weight_at_most(values, weights, high) - _weight_below(values, weights, low), 0.0
    )


@dataclass(frozen=True, eq=False)
class _Tables:
    """The attacked columns of the three tables, read once."""

    columns: tuple[str, ...]
    by_name: Mapping[str, _Column]
    n_train: int
    n_control: int
    n_release: int

    def __getitem__(self, name: str) -> _Column:
        return self.by_name[name]

    def codes(self, which: str, columns: Sequence[str]) -> np.ndarray:
        """(rows × columns) codes of ``which`` table: domain codes for ``train`` and
        ``control``, cell codes for ``release``."""
        if not columns:
            n = {"train": self.n_train, "control": self.n_control}.get(which, self.n_release)
            return np.zeros((n, 0), dtype=np.int64)
        return np.column_stack(
            [np.asarray(getattr(self.by_name[c], _FIELD[which]), np.int64) for c in columns]
        )

    def sizes(self, which: str, columns: Sequence[str]) -> list[int]:
        if which == "release":
            return [self.by_name[c].n_cells for c in columns]
        return [self.by_name[c].domain_size for c in columns]


_FIELD = {"train": "train", "control": "control", "release": "cells"}


#: Within :func:`shared_columns`: the columns read so far, by name, kind and hierarchy,
#: each with the training, control and released values it was read from.
_SHARED: ContextVar[dict | None] = ContextVar("gdpr_shared_columns", default=None)


@contextmanager
def shared_columns() -> Iterator[None]:
    """Within the block, a column is read (coded, its released cells parsed) once for
    every evaluator that reads the same values of it with the same hierarchy:
    :func:`~privcore.attacks.gdpr_risks.combined.gdpr_risks` runs three on one release.
    A column is never changed once read, so sharing it changes no figure."""
    token = _SHARED.set({})
    try:
        yield
    finally:
        _SHARED.reset(token)


def _digest(values: pd.Series) -> bytes:
    """A digest of a column's values, in order, with its type (rows hashed by pandas)."""
    rows = pd.util.hash_pandas_object(values, index=False).to_numpy()
    return hashlib.blake2b(rows.tobytes() + str(values.dtype).encode(), digest_size=16).digest()


@dataclass(eq=False)
class _Read:
    """A column read within :func:`shared_columns`, the values it was read from (kept, so
    that no other array takes the place of one in memory) and their digests (worked out
    when first compared with other values)."""

    values: tuple[pd.Series, ...]
    column: _Column
    digests: tuple[bytes, ...] | None = None

    def digested(self) -> tuple[bytes, ...]:
        if self.digests is None:
            self.digests = tuple(_digest(v) for v in self.values)
        return self.digests


def _shared_read(
    reads: list[_Read],
    kind: type[_Column],
    name: str,
    values: tuple[pd.Series, ...],
    hierarchy: Hierarchy | None,
) -> _Column:
    """The column ``name`` of ``values``: one read before from the same arrays, or from
    equal values (their digests agree), else read now and kept in ``reads``."""
    for done in reads:
        if all(_same_data(a, b) for a, b in zip(done.values, values, strict=True)):
            return done.column
    digests = None
    for done in reads:
        digests = digests or tuple(_digest(v) for v in values)
        if done.digested() == digests:
            return done.column
    column = kind(name, *values, hierarchy)
    reads.append(_Read(values, column, digests))
    return column


def _prepare(
    train: pd.DataFrame,
    control: pd.DataFrame,
    release: pd.DataFrame,
    columns: Sequence[str],
    hierarchies: Mapping[str, Hierarchy] | None,
) -> _Tables:
    hierarchies = hierarchies or {}
    shared = _SHARED.get()
    by_name: dict[str, _Column] = {}
    for name in columns:
        kind = (
            _NumericColumn
            if is_number(train[name].dtype) and is_number(control[name].dtype)
            else _CategoricalColumn
        )
        values = tuple(_column_values(frame, name) for frame in (train, control, release))
        hierarchy = hierarchies.get(name)
        if shared is None:
            by_name[name] = kind(name, *values, hierarchy)
            continue
        # the hierarchies outlive the block: their ids stay theirs
        reads = shared.setdefault((name, kind, id(hierarchy)), [])
        by_name[name] = _shared_read(reads, kind, name, values, hierarchy)
    return _Tables(tuple(columns), by_name, len(train), len(control), len(release))
