"""Counting for the information measures: each column factorized once, tuples of columns
combined into one key, and the entropy of a set of columns computed once.

A column of a table is a random variable over its rows (:class:`_Var`: a code per row);
a tuple of columns is one variable too (:func:`_joint`). With c_v the count of value v
among n rows (or records, on a weighted frequency set),

    H = −Σ_v (c_v/n) log2(c_v/n) = log2 n − (1/n) Σ_v c_v log2 c_v

(:func:`_entropy_of_counts`). :class:`_Columns` holds one table's variables and the
entropies already computed; :func:`_h_given` and :func:`_mutual` give the conditional
entropy and the mutual information the measures of :mod:`privcore.measure.entropy` are
built on.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from privcore.classes import (
    Groups,
    TableCodes,
    code_counts,
    code_dtype,
    combine_codes,
    compact_codes,
    factorize,
    group_keys,
)
from privcore.errors import DataFormatError, RoleError

_ZERO = 1e-12  # entropies at or below this are 0 (a single value)
_DENSE_FACTOR = 4  # a combined key is counted densely when its span ≤ 4·n + 1024


# --------------------------------------------------------------------------- codes


def _as_list(columns: Sequence[str] | str) -> list[str]:
    """Column names as a list (a bare string is one column, not its characters)."""
    if isinstance(columns, str):
        return [columns]
    return [str(c) for c in columns]


def _check_columns(frame: pd.DataFrame, columns: Sequence[str], what: str) -> None:
    RoleError.unless_present(
        columns,
        frame.columns,
        f"The {what} has no column {{names}}.",
        code="roles.unknown_columns",
        quoted=True,
    )


def _counted(codes: np.ndarray, size: int, weights: np.ndarray | None) -> np.ndarray:
    """Rows holding each code 0..size-1 — records, when ``weights`` (one whole number per
    row) make each row stand for that many — as int64."""
    if weights is None:
        return code_counts(codes, size)
    return np.rint(code_counts(codes, size, weights=weights)).astype(np.int64)


class _Var:
    """One random variable over the rows: a code in 0..card-1 per row (codes that no
    row holds have count 0 and are ignored), with its value counts computed at most
    once. ``weights`` (one whole number ≥ 1 per row, or None) make each row stand for
    that many records of a frequency set: the counts are then sums of weights and ``n``
    the number of records."""

    __slots__ = ("_counts", "card", "codes", "n", "weights")

    def __init__(
        self,
        codes: np.ndarray,
        card: int,
        counts: np.ndarray | None = None,
        weights: np.ndarray | None = None,
        n: int | None = None,
    ) -> None:
        self.codes = codes
        self.card = card
        self._counts = counts
        self.weights = weights
        if weights is None:
            self.n = len(codes)
        else:
            self.n = int(weights.sum()) if n is None else n

    def like(self, codes: np.ndarray, card: int, counts: np.ndarray | None = None) -> _Var:
        """Another variable over the same rows (the same weights)."""
        return _Var(codes, card, counts, self.weights, self.n)

    @property
    def counts(self) -> np.ndarray:
        if self._counts is None:
            self._counts = _counted(self.codes, self.card, self.weights)
        return self._counts

    def count_from(self, codes: np.ndarray, weights: np.ndarray) -> None:
        """Take the value counts from groups of rows counted already (``codes`` of each
        group, ``weights`` its rows — or records), unless counted: the same integers as
        from the rows."""
        if self._counts is None:
            summed = code_counts(codes, self.card, weights=weights)
            self._counts = np.rint(summed).astype(np.int64)

    @property
    def entropy(self) -> float:
        return _entropy_of_counts(self.counts, self.n)


def _entropy_of_counts(counts: np.ndarray, n: int) -> float:
    """H = log2 n − (1/n) Σ c log2 c over the non-zero counts c (bits)."""
    counts = counts[counts > 0].astype(np.float64)
    if n == 0 or len(counts) <= 1:
        return 0.0
    return max(math.log2(n) - float(np.dot(counts, np.log2(counts))) / n, 0.0)


def _key(variables: Sequence[_Var]) -> tuple[np.ndarray, int | None]:
    """One int64 key per row for a tuple of variables, and its span when the key is
    known to lie in [0, span) (combine_codes re-factorizes internally only when the
    span nears 2**62; below that the key is exactly the mixed-radix number)."""
    cards = [max(v.card, 1) for v in variables]
    span = math.prod(cards)
    key = combine_codes([v.codes for v in variables], cards)
    return key, (span if span < 2**62 else None)


def _small(span: int | None, n: int) -> bool:
    return span is not None and span <= _DENSE_FACTOR * n + 1024


def _joint(variables: Sequence[_Var]) -> _Var:
    """The tuple of several variables (over the same rows) as one variable.

    A key of small span is renumbered by one count per code and a cumulative sum (no
    hashing); a larger one is grouped.
    """
    first = variables[0]
    if len(variables) == 1:
        return first
    key, span = _key(variables)
    if _small(span, len(key)):
        counts = _counted(key, span, first.weights)
        present = counts > 0
        card = int(present.sum())
        rank = compact_codes(np.cumsum(present) - 1, card)
        return first.like(rank[key], card, counts[present])
    groups = group_keys(key, weights=first.weights)
    return first.like(compact_codes(groups.ids, groups.n_groups), groups.n_groups, groups.counts)


def _joint_entropy(variables: Sequence[_Var]) -> float:
    """H of a tuple of variables (over the same rows), without building its dense codes."""
    if len(variables) <= 1:
        return variables[0].entropy if variables else 0.0
    first = variables[0]
    key, span = _key(variables)
    if _small(span, len(key)):
        return _entropy_of_counts(_counted(key, span, first.weights), first.n)
    return _entropy_of_counts(group_keys(key, weights=first.weights).counts, first.n)


def _small_int_codes(series: pd.Series) -> tuple[np.ndarray, int] | None:
    """Codes of an integer column of small range without hashing: value − min, and
    their number.

    Codes need not be dense here (unused codes have count 0, and entropy skips zero
    counts); this saves the hash table of :func:`factorize` on the common case of
    integer columns (ages, codes, counts). None when the column is not plain integers
    or its range is large.
    """
    dtype = series.dtype
    if not isinstance(dtype, np.dtype) or dtype.kind not in "iu" or len(series) == 0:
        return None
    values = series.to_numpy()
    lo, hi = int(values.min()), int(values.max())
    if not _small(hi - lo + 1, len(values)):
        return None
    return (values - values.min()).astype(code_dtype(hi - lo + 1)), hi - lo + 1


class _Columns:
    """Factorizes the columns of one table lazily, each at most once (or reads them from
    the table's :class:`~privcore.classes.TableCodes`), and remembers the entropy of every
    set of columns it computed. ``weights`` (one whole number ≥ 1 per row, or None) make
    the table a weighted frequency set: row i stands for ``weights[i]`` records, and every
    entropy is that of the records (``n``: their number; ``rows``: the table's rows)."""

    def __init__(
        self,
        frame: pd.DataFrame | pd.Series | TableCodes,
        what: str,
        weights: np.ndarray | None = None,
    ) -> None:
        self.codes: TableCodes | None = None
        if isinstance(frame, TableCodes):
            self.codes, frame = frame, frame.frame
        if isinstance(frame, pd.Series):
            name = frame.name if frame.name is not None else 0
            frame = frame.to_frame(name=name)
        if not isinstance(frame, pd.DataFrame):
            raise DataFormatError(
                f"The {what} must be a table (DataFrame) or a column (Series).",
                code="measure.bad_table",
            )
        if not all(isinstance(c, str) for c in frame.columns):
            frame = frame.set_axis([str(c) for c in frame.columns], axis=1)
        self.frame = frame
        self.what = what
        self.rows = len(frame)
        self.weights = weights
        self.n = self.rows if weights is None else int(weights.sum())
        self._cache: dict[str, _Var] = {}
        self._joint_cache: dict[frozenset[str], _Var] = {}
        self._entropies: dict[frozenset[str], float] = {}
        self._representatives: dict[frozenset[str], np.ndarray] = {}  # a row per tuple

    def _var(self, codes: np.ndarray, card: int) -> _Var:
        return _Var(codes, card, None, self.weights, self.n)

    def var(self, column: str) -> _Var:
        if column not in self._cache:
            if self.codes is not None:
                _check_columns(self.frame, [column], self.what)
                codes = self.codes.codes(column)
                self._cache[column] = self._var(codes, self.codes.cardinality(column))
                return self._cache[column]
            series = self.frame[column]
            small = _small_int_codes(series)
            if small is not None:
                self._cache[column] = self._var(*small)
            else:
                codes, uniques = factorize(series)
                self._cache[column] = self._var(codes, len(uniques))
        return self._cache[column]

    def joint(self, columns: Sequence[str]) -> _Var:
        """The tuple of ``columns`` as one variable, built once per set of columns (the
        order and repetition of the columns do not change which rows are equal)."""
        names = tuple(dict.fromkeys(_as_list(columns)))
        key = frozenset(names)
        if key not in self._joint_cache:
            _check_columns(self.frame, names, self.what)
            self._joint_cache[key] = (
                _joint([self.var(c) for c in names])
                if names
                else self._var(np.zeros(self.rows, dtype=np.int64), 1 if self.rows else 0)
            )
        return self._joint_cache[key]

    def entropy(self, columns: Sequence[str]) -> float:
        """H of a tuple of columns, computed once per set of columns: from a joint
        variable of the same columns when one was built, on the distinct tuples of a
        joint variable of more columns (each weighted by its records) when one with at
        most a quarter as many distinct tuples as rows was built, else from the rows."""
        names = tuple(dict.fromkeys(_as_list(columns)))
        key = frozenset(names)
        if key in self._joint_cache or len(names) <= 1:
            return self.joint(names).entropy
        if key not in self._entropies:
            _check_columns(self.frame, names, self.what)
            wider = next(
                (
                    (wide, var)
                    for wide, var in self._joint_cache.items()
                    if key < wide and 4 * var.card <= self.rows and var.counts.all()
                ),
                None,
            )
            if wider is None:
                self._entropies[key] = _joint_entropy([self.var(c) for c in names])
            else:
                self._entropies[key] = self._entropy_within(names, *wider)
        return self._entropies[key]

    def adopt(self, columns: Sequence[str], codes: np.ndarray, card: int) -> None:
        """Take ``codes`` (0..card-1 per row) as the joint variable of ``columns``: the
        rows already grouped by those columns elsewhere (a release's equivalence classes
        by its QIs)."""
        names = tuple(dict.fromkeys(_as_list(columns)))
        _check_columns(self.frame, names, self.what)
        if len(codes) != self.rows:
            raise DataFormatError(
                f"The {self.what} has {self.rows} rows but {len(codes)} codes were given.",
                code="measure.alignment",
                rows=[self.rows, len(codes)],
            )
        self._joint_cache[frozenset(names)] = self._var(codes, int(card))
        self._representatives.pop(frozenset(names), None)

    def _entropy_within(self, names: Sequence[str], columns: frozenset[str], joint: _Var) -> float:
        """H of ``names`` from a joint variable of more ``columns``: the columns' codes at
        one row of each of its tuples, the tuples' counts (rows or records) as weights."""
        if columns not in self._representatives:
            self._representatives[columns] = Groups(joint.codes, joint.counts).first
        rows = self._representatives[columns]
        tuples = [_Var(self.var(c).codes[rows], self.var(c).card) for c in names]
        key, _ = _key(tuples)
        return _entropy_of_counts(group_keys(key, weights=joint.counts).counts, self.n)


def _check_rows(a: _Columns, b: _Columns) -> None:
    if a.rows != b.rows:
        raise DataFormatError(
            f"The {a.what} has {a.rows} rows but the {b.what} has {b.rows}; the measures "
            f"compare them row by row, so both need the same rows in the same order (see "
            f"align()).",
            code="measure.alignment",
            rows=[a.rows, b.rows],
        )


def _h_given(table: _Columns, target: Sequence[str], given: Sequence[str]) -> tuple[float, float]:
    """(H(T), H(T|G)) on one table; G = [] gives H(T|G) = H(T). H(T|G) = H(T ∪ G) − H(G),
    each entropy counted once per set of columns."""
    target, given = _as_list(target), _as_list(given)
    h_t = table.entropy(target)
    if not given:
        return h_t, h_t
    h_g = table.entropy(given)
    h_tg = table.entropy([*target, *given])
    return h_t, max(h_tg - h_g, 0.0)


def _mutual(x: _Var, y: _Var, joint_counts: np.ndarray | None = None) -> tuple[float, float, float]:
    """(H(X), H(Y), I(X;Y)) of two variables over the same rows; ``joint_counts``: the
    rows (or records) holding each (x, y) pair, when counted already."""
    hx, hy = x.entropy, y.entropy
    hxy = _joint_entropy([x, y]) if joint_counts is None else _entropy_of_counts(joint_counts, x.n)
    mi = min(max(hx + hy - hxy, 0.0), hx, hy)  # clip float noise to the true bounds
    return hx, hy, mi
