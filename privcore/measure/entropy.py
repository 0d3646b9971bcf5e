"""Entropy, discrimination rate, privacy level and utility loss (SPEC §3, seed 001 §4).

Every quantity is a Shannon entropy in bits of an *empirical* distribution: the share
of rows holding each value of a column, or each combination of values of a tuple of
columns (a tuple is one random variable). A missing value is one value of its own.

How it is computed: each column is factorized to integer codes once
(:func:`privcore.classes.factorize`), a tuple of columns is combined into one key
(:func:`privcore.classes.combine_codes`), and the counts come from one count per code
(:func:`privcore.classes.code_counts`, or :func:`privcore.classes.group_keys` for a key
of large span). No Python loop runs over rows. (Integer columns of small
range skip the hash table: their code is value − min.) Codes are held in the smallest
integer type that fits (:func:`privcore.classes.compact_codes`); a measurement passes
each table's :class:`~privcore.classes.TableCodes`, so that the columns factorized for
its equivalence classes serve every entropy too (:class:`InformationMeasures`), and an
entropy of a set of columns is computed once however often it is asked. With c_v the
count of value v among n rows,

    H = −Σ_v (c_v/n) log2(c_v/n) = log2 n − (1/n) Σ_v c_v log2 c_v.

On a weighted frequency set (SPEC §9; :class:`InformationMeasures` ``weights``), where
row i stands for w_i records, c_v = Σ of w_i over the rows holding v and n = Σ w_i: the
entropy of the records, as on the table with each row repeated w_i times.

The measures of seed 001 §4 (the LDP/PL textbook chapter) built on it, with X the
original and X̄ the released version of the same rows (aligned one to one):

- conditional entropy H(T|G) = H(T,G) − H(G);
- mutual information I(X;Y) = H(X) + H(Y) − H(X,Y);
- discrimination rate DR = 1 − H(X̄_prv | X̄_qd) / H(X̄_prv): the share of the
  uncertainty about the sensitive tuple that the released QIs remove;
- privacy level PL = DR · I(X_prv; X̄_prv) / H(X_prv), in [0, 1]: near 0 strong
  protection, near 1 weak; the local version PL_Y(X̄) does the same for any column
  set X against any column set Y the adversary knows;
- utility loss UL = (I(X_qd; X̄_qd) + I(X_prv; X̄_prv)) / (H(X_qd) + H(X_prv)), the
  share of the information kept (1 = nothing lost, despite its name; SPEC §3 keeps the
  seed's name, and its erratum the mutual-information form, which equals the seed's
  (H(X̄_qd) + H(X̄_prv)) / (H(X_qd) + H(X_prv)) when the release is a function of the
  original).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from privcore.classes import (
    Groups,
    TableCodes,
    code_counts,
    code_dtype,
    combine_codes,
    compact_codes,
    distinct_tuples,
    duplicated,
    factorize,
    group_keys,
)
from privcore.core.bipartite import maximum_matching
from privcore.errors import DataFormatError, RoleError

if TYPE_CHECKING:
    from privcore.measure.loss import ColumnPairs

__all__ = [
    "NOTE_CONSTANT",
    "NOTE_NOT_MEANINGFUL",
    "InformationMeasures",
    "PrivacyLevel",
    "align",
    "conditional_entropy",
    "discrimination_rate",
    "entropy",
    "local_privacy_level",
    "mutual_information",
    "pl_matrix",
    "privacy_level",
    "utility_loss",
]

#: Note of a privacy level whose denominator entropy is 0 (its value is then 0).
NOTE_CONSTANT = "constant column"
#: Note of a privacy level computed on a release with more entropy than the original.
NOTE_NOT_MEANINGFUL = (
    "not meaningful: the released column holds nearly one distinct value per row (noise "
    "or synthetic values), and counting equal values no longer measures what was kept"
)
#: A released target with at least this share of distinct values per row, and more
#: distinct values than the original's, makes plug-in mutual information degenerate.
DEGENERATE_SHARE = 0.9

_ZERO = 1e-12  # entropies at or below this are 0 (a single value)
_DENSE_FACTOR = 4  # a combined key is counted densely when its span ≤ 4·n + 1024


# --------------------------------------------------------------------------- codes


def _as_list(columns: Sequence[str] | str) -> list[str]:
    """Column names as a list (a bare string is one column, not its characters)."""
    if isinstance(columns, str):
        return [columns]
    return [str(c) for c in columns]


def _check_columns(frame: pd.DataFrame, columns: Sequence[str], what: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise RoleError(
            f"The {what} has no column {', '.join(repr(c) for c in missing)}.",
            code="roles.unknown_columns",
            columns=missing,
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


# --------------------------------------------------------------------------- entropy


def entropy(frame: pd.DataFrame | pd.Series, columns: Sequence[str] | None = None) -> float:
    """Shannon entropy in bits of a column, or of a tuple of columns as one variable.

    H(X) = −Σ_x p(x) log2 p(x) over the empirical distribution (seed 001 §4; Shannon
    1948). ``frame`` is a Series (its values) or a DataFrame with ``columns`` (default:
    all of its columns, as one tuple). Missing is one value. ``H(a,a,b,b) = 1``.
    """
    table = _Columns(frame, "table")
    return table.entropy(table.frame.columns if columns is None else columns)


def conditional_entropy(frame: pd.DataFrame, target: Sequence[str], given: Sequence[str]) -> float:
    """H(T|G) = H(T,G) − H(G) in bits: what is left unknown about the tuple T once the
    tuple G is known (seed 001 §4). ``given = []`` gives H(T)."""
    return _h_given(_Columns(frame, "table"), target, given)[1]


def mutual_information(x: pd.DataFrame | pd.Series, y: pd.DataFrame | pd.Series) -> float:
    """I(X;Y) = H(X) + H(Y) − H(X,Y) in bits (seed 001 §4).

    ``x`` and ``y`` are a column or a table each (all their columns form one tuple),
    with rows aligned one to one (same number of rows; see :func:`align`). Symmetric,
    0 ≤ I ≤ min(H(X), H(Y)).
    """
    a, b = _Columns(x, "first table"), _Columns(y, "second table")
    _check_rows(a, b)
    return _mutual(a.joint(a.frame.columns), b.joint(b.frame.columns))[2]


def discrimination_rate(
    release: pd.DataFrame, known: Sequence[str], target: Sequence[str]
) -> float:
    """DR(K, T) = 1 − H(T|K) / H(T) on the released table (seed 001 §4).

    The share of the uncertainty about the tuple ``target`` that knowing the tuple
    ``known`` removes: 0 when K says nothing about T, 1 when K determines T. A constant
    target (H(T) = 0) has nothing to discriminate: DR = 0.
    """
    return _discrimination(_Columns(release, "release"), known, target)


def _discrimination(release: _Columns, known: Sequence[str], target: Sequence[str]) -> float:
    h_t, h_t_given_k = _h_given(release, target, known)
    if h_t <= _ZERO:
        return 0.0
    return min(max(1.0 - h_t_given_k / h_t, 0.0), 1.0)


# --------------------------------------------------------------------------- privacy level


@dataclass(frozen=True)
class PrivacyLevel:
    """A privacy level PL = DR · information (seed 001 §4), with its two factors.

    ``value`` in [0, 1]: near 0 strong protection, near 1 weak. ``dr`` is the
    discrimination rate of the target given the known columns in the release;
    ``information`` = I(X; X̄)/H(X), the share of the original target's information the
    release keeps. ``meaningful`` is False only where the plug-in mutual information is
    degenerate (SPEC §3 erratum): the released target has nearly one distinct value per
    row (≥ :data:`DEGENERATE_SHARE` of the rows) and more distinct values than the
    original — noise-added or synthetic numbers. A release with more entropy than the
    original is not flagged for that alone: local recoding (Mondrian, KACA) may map one
    value to several labels, and I(X; X̄)/H(X) still measures what it keeps. ``note`` is
    :data:`NOTE_CONSTANT` when a denominator entropy is 0 (then PL = 0), or
    :data:`NOTE_NOT_MEANINGFUL`, or both joined by "; ", else None.
    """

    value: float
    dr: float
    information: float
    meaningful: bool
    note: str | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _degenerate(x: _Var, x_bar: _Var, n: int) -> bool:
    """Nearly one released value per row, more than the original has: see PrivacyLevel."""
    released = int(np.count_nonzero(x_bar.counts))  # not rows: per distinct value
    return released >= DEGENERATE_SHARE * n and released > int(np.count_nonzero(x.counts))


def _level(
    original: _Columns,
    release: _Columns,
    target: Sequence[str],
    known: Sequence[str],
    pair_counts: Callable[[str], ColumnPairs] | None = None,
) -> PrivacyLevel:
    target = _as_list(target)
    if not target:
        raise RoleError("A privacy level needs at least one target column.", code="roles.no_target")
    _check_rows(original, release)
    x, x_bar = original.joint(target), release.joint(target)
    single = list(dict.fromkeys(target))
    joint_counts = None
    if pair_counts is not None and len(single) == 1:
        pairs = pair_counts(single[0])
        for var, codes in ((x, pairs.original), (x_bar, pairs.released)):
            var.count_from(codes, pairs.counts)
        joint_counts = pairs.counts
    h_x, h_x_bar, mi = _mutual(x, x_bar, joint_counts)
    _, h_cond = _h_given(release, target, known)
    dr = 0.0 if h_x_bar <= _ZERO else min(max(1.0 - h_cond / h_x_bar, 0.0), 1.0)
    information = 0.0 if h_x <= _ZERO else min(max(mi / h_x, 0.0), 1.0)
    meaningful = not _degenerate(x, x_bar, original.n)
    notes = []
    if h_x <= _ZERO or h_x_bar <= _ZERO:
        notes.append(NOTE_CONSTANT)
    if not meaningful:
        notes.append(NOTE_NOT_MEANINGFUL)
    return PrivacyLevel(
        value=dr * information,
        dr=dr,
        information=information,
        meaningful=meaningful,
        note="; ".join(notes) or None,
    )


def local_privacy_level(
    original: pd.DataFrame,
    release: pd.DataFrame,
    target: Sequence[str],
    known: Sequence[str],
) -> PrivacyLevel:
    """Local privacy level PL_Y(X̄) = (1 − H(X̄|Ȳ)/H(X̄)) · I(X; X̄)/H(X) (seed 001 §4).

    X is the tuple ``target`` in the original, X̄ the same columns in the release, Ȳ
    the tuple ``known`` in the release (what the adversary holds). Rows must be aligned
    one to one (:func:`align`). On the SPEC §3 example PL_ZIP(Age) = 0.290.
    """
    return _level(_Columns(original, "original"), _Columns(release, "release"), target, known)


def privacy_level(
    original: pd.DataFrame, release: pd.DataFrame, qi: Sequence[str], sa: Sequence[str]
) -> PrivacyLevel:
    """PL(D̄) = DR(X̄_qd, X̄_prv) · I(X_prv; X̄_prv) / H(X_prv) (seed 001 §4, SPEC §3).

    X_prv is the tuple of all sensitive attributes ``sa``, X̄_qd the tuple of all
    released quasi-identifiers ``qi``. On the SPEC §3 example PL(D) = 0.500.
    """
    return local_privacy_level(original, release, sa, qi)


def pl_matrix(
    original: pd.DataFrame,
    releases: Mapping[str, pd.DataFrame],
    qi: Sequence[str],
    sa: Sequence[str],
) -> pd.DataFrame:
    """The matrix of local privacy levels shown by seed 001: one row per release.

    Columns: every QI, then every SA (each once), then ``"all"``. Column A holds
    PL_Y(A) with Y = every QI other than A (for a sensitive attribute: all QIs; for a
    QI: the other QIs); ``"all"`` holds :func:`privacy_level`. Notes (constant column,
    not meaningful) are kept in ``result.attrs["notes"]`` as {release: {column: note}},
    so a caller can show every warning.
    """
    qi, sa = _as_list(qi), _as_list(sa)
    attributes = list(dict.fromkeys(qi + sa))
    orig = _Columns(original, "original")
    rows: dict[str, list[float]] = {}
    notes: dict[str, dict[str, str]] = {}
    for name, frame in releases.items():
        rel = _Columns(frame, f"release '{name}'")
        values = []
        for column in [*attributes, "all"]:
            if column == "all":
                level = _level(orig, rel, sa, qi)
            else:
                level = _level(orig, rel, [column], [q for q in qi if q != column])
            values.append(level.value)
            if level.note:
                notes.setdefault(str(name), {})[column] = level.note
        rows[str(name)] = values
    result = pd.DataFrame.from_dict(rows, orient="index", columns=[*attributes, "all"], dtype=float)
    result.index.name = "release"
    result.attrs["notes"] = notes
    return result


def utility_loss(
    original: pd.DataFrame, release: pd.DataFrame, qi: Sequence[str], sa: Sequence[str]
) -> float:
    """UL(D̄) = (I(X_qd; X̄_qd) + I(X_prv; X̄_prv)) / (H(X_qd) + H(X_prv)) (SPEC §3).

    The share of the QI and SA information the release keeps: 1 when nothing was
    changed, lower the more was generalized, suppressed or synthesized. It equals seed
    001's (H(X̄_qd) + H(X̄_prv)) / (H(X_qd) + H(X_prv)) whenever the release is a
    function of the original (full-domain recoding, suppression); with local recoding
    or synthesis one original value can become several released ones, H(X̄) can exceed
    H(X), and only the mutual-information form stays in [0, 1] (SPEC §3 erratum).
    0/0 (everything constant) gives 1.0. SPEC §3 example: 0.750.
    """
    return _utility(_Columns(original, "original"), _Columns(release, "release"), qi, sa)


def _utility(orig: _Columns, rel: _Columns, qi: Sequence[str], sa: Sequence[str]) -> float:
    _check_rows(orig, rel)
    qi, sa = _as_list(qi), _as_list(sa)
    h_qd, _, kept_qd = _mutual(orig.joint(qi), rel.joint(qi))
    h_prv, _, kept_prv = _mutual(orig.joint(sa), rel.joint(sa))
    total = h_qd + h_prv
    if total <= _ZERO:
        return 1.0
    return min(max((kept_qd + kept_prv) / total, 0.0), 1.0)


class InformationMeasures:
    """PL, DR and UL of one release against its original, on shared codes.

    ``release`` and ``original`` are tables or their :class:`~privcore.classes.TableCodes`
    (the same codes the equivalence classes were built from); ``original`` may be None
    when the rows are not paired (then only :meth:`discrimination_rate`, which reads the
    release alone). Every column is factorized once and every entropy of a set of
    columns computed once for all the figures asked of one object: the per-attribute
    privacy levels share H of the whole released QI tuple, and PL, DR and UL share the
    released QIs' and SAs' entropies. ``pair_counts(column)``, when given, returns the
    (original value, released value) pairs of a column and the rows holding each, as
    :func:`~privcore.measure.loss.column_pairs` counts them for the information loss;
    the entropies and the mutual information of a single column read them. Each figure
    equals the function of the same name.

    ``weights`` (int64, one whole number ≥ 1 per row, or None) make the two tables one
    weighted, row-paired frequency set (SPEC §9): row i of each stands for ``weights[i]``
    records. Every count is then a sum of weights and n the number of records, so each
    figure equals that of the tables with row i repeated ``weights[i]`` times (the pair
    counts, when given, must count records too).
    """

    def __init__(
        self,
        release: pd.DataFrame | TableCodes,
        original: pd.DataFrame | TableCodes | None = None,
        *,
        pair_counts: Callable[[str], ColumnPairs] | None = None,
        weights: np.ndarray | None = None,
    ) -> None:
        self._release = _Columns(release, "release", weights)
        self._original = None if original is None else _Columns(original, "original", weights)
        self._pair_counts = pair_counts

    def release_partition(self, columns: Sequence[str], codes: np.ndarray, card: int) -> None:
        """The release's rows grouped by ``columns`` already: ``codes`` (0..card-1, every
        code held by some row) per row — e.g. its equivalence classes by the QIs, with the
        rows set aside as suppressed (all ``*``) as one more group."""
        self._release.adopt(columns, codes, card)

    def _paired(self) -> _Columns:
        if self._original is None:
            raise DataFormatError(
                "This figure compares each released row with its original row; the rows "
                "are not paired.",
                code="measure.alignment",
            )
        return self._original

    def privacy_level(self, target: Sequence[str], known: Sequence[str]) -> PrivacyLevel:
        """:func:`local_privacy_level` of ``target`` given ``known``."""
        return _level(self._paired(), self._release, target, known, self._pair_counts)

    def utility_loss(self, qi: Sequence[str], sa: Sequence[str]) -> float:
        """:func:`utility_loss`."""
        return _utility(self._paired(), self._release, qi, sa)

    def discrimination_rate(self, known: Sequence[str], target: Sequence[str]) -> float:
        """:func:`discrimination_rate` on the release."""
        return _discrimination(self._release, known, target)


# --------------------------------------------------------------------------- alignment


def align(
    original: pd.DataFrame,
    release: pd.DataFrame,
    key: str | None = None,
    *,
    qi: Sequence[str] = (),
    hierarchies: Mapping[str, Any] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Put the rows of ``original`` and ``release`` one to one (SPEC §3).

    With ``key``: the key column must be in both tables, unique in each, and hold the
    same set of keys; the release is reordered to the original's row order. Without a
    key: rows are matched by position and both tables need the same number of rows;
    given the quasi-identifiers ``qi`` (and their ``hierarchies``), the order itself is
    checked too (:func:`check_row_order`), so a shuffled release is refused instead of
    being measured against the wrong rows. Both results have a fresh 0..n-1 index.
    Anything else raises :class:`DataFormatError` (code ``measure.alignment``, or
    ``measure.row_order``) saying what is wrong.
    """
    if key is None:
        if len(original) != len(release):
            raise DataFormatError(
                f"The original has {len(original)} rows but the release has {len(release)}; "
                f"without a key column rows are matched by position, so both need the same "
                f"number of rows.",
                code="measure.alignment",
                rows=[len(original), len(release)],
            )
        original, release = original.reset_index(drop=True), release.reset_index(drop=True)
        if qi:
            check_row_order(original, release, qi, hierarchies)
        return original, release
    absent = [
        what for what, f in (("original", original), ("release", release)) if key not in f.columns
    ]
    if absent:
        raise DataFormatError(
            f"The key column '{key}' is missing from the {' and the '.join(absent)}.",
            code="measure.alignment",
            key=key,
            tables=absent,
        )
    indexes = {}
    for what, frame in (("original", original), ("release", release)):
        index = pd.Index(frame[key])
        repeated = duplicated(index)
        if repeated.any():
            example = index[repeated][0]
            count = int((~duplicated(index[repeated])).sum())  # distinct repeated keys
            raise DataFormatError(
                f"The key column '{key}' of the {what} is not unique: '{example}' appears "
                f"more than once ({count} key{'s are' if count > 1 else ' is'} repeated).",
                code="measure.alignment",
                key=key,
                table=what,
                value=str(example),
                count=count,
            )
        indexes[what] = index
    position = indexes["release"].get_indexer(indexes["original"])
    only_original = int((position < 0).sum())
    if only_original or len(original) != len(release):
        only_release = len(release) - (len(original) - only_original)
        raise DataFormatError(
            f"The key sets differ: {only_original} key(s) of the original are not in the "
            f"release and {only_release} key(s) of the release are not in the original.",
            code="measure.alignment",
            key=key,
            only_original=only_original,
            only_release=only_release,
        )
    return original.reset_index(drop=True), release.iloc[position].reset_index(drop=True)


ROW_ORDER_SAMPLE = 5_000  # rows checked (seeded sample) when rows are matched by position
ROW_ORDER_PERMUTATIONS = 20  # random pairings that give the chance level
ROW_ORDER_COVER_ROWS = 300  # released rows whose cover by some original row is checked
ROW_ORDER_COVER_TUPLES = 20_000  # distinct original QI tuples they are checked against
ROW_ORDER_EXACT_ROWS = 200  # up to this many rows the order is checked exactly


def check_row_order(
    original: pd.DataFrame,
    release: pd.DataFrame,
    qi: Sequence[str],
    hierarchies: Mapping[str, Any] | None = None,
    *,
    seed: int = 0,
) -> dict[str, tuple[float, float]]:
    """Do the rows of a release (matched by position) hold generalizations of the
    original rows at the same positions? Raises when the order is evidently wrong.

    For each quasi-identifier, on a seeded sample of rows: the share *s* of rows whose
    released cell contains the original value at the same position (a mask, range,
    set, hierarchy label, ``*`` or the value itself — the cell forms of the linkage
    attack), and the share *b* for rows paired at random (mean over
    ``ROW_ORDER_PERMUTATIONS`` permutations). A release in the original order has
    s = 1 for every generalized column. A column looks misaligned when s < 0.9 while
    its cells do contain original values (b ≥ 0.1), s is nearer to chance than to 1
    (s ≤ (b + 1)/2), and position does no better than chance: s < b + max(0.02,
    4·√(b(1−b)/m)) for m sampled rows (a random pairing scatters around b by about
    √(b(1−b)/m)). That alone cannot tell a shuffled generalization from records that
    are not generalizations at all (synthetic records, class means), so the error is
    raised only when the release *is* a generalization of the original in some order:
    at least 90 % of a sample of released rows are covered, on every QI at once, by
    some row of the original. Tables of at most ``ROW_ORDER_EXACT_ROWS`` rows are
    checked exactly instead: refused when fewer than half of the rows are covered at
    their own position although a one-to-one pairing covering every row exists (a
    maximum bipartite matching). Returns {column: (s, b)}; raises
    :class:`DataFormatError` (code ``measure.row_order``) naming the column.
    """
    from privcore.data.cells import parse_column  # the cell grammar of SPEC §6

    n = len(release)
    if n < 2 or not qi:
        return {}
    rng = np.random.default_rng(seed)
    if n <= ROW_ORDER_EXACT_ROWS:
        shares = _check_small_table(original, release, qi, hierarchies)
        _check_closeness(original, release, qi, None, rng)
        return shares
    rows = np.sort(rng.choice(n, ROW_ORDER_SAMPLE, replace=False)) if n > ROW_ORDER_SAMPLE else None
    shares: dict[str, tuple[float, float]] = {}
    suspects: list[str] = []
    for column in qi:
        released = release[column] if rows is None else release[column].iloc[rows]
        originals = original[column] if rows is None else original[column].iloc[rows]
        cells = parse_column(
            released.reset_index(drop=True),
            hierarchy=(hierarchies or {}).get(column),
            column=str(column),
        )
        value_codes, values = factorize(originals.reset_index(drop=True))
        contains = cells.contains(pd.Series(values, dtype=object))  # labels × values
        same = float(contains[cells.codes, value_codes].mean())
        chance = float(
            np.mean(
                [
                    contains[cells.codes, value_codes[rng.permutation(len(value_codes))]].mean()
                    for _ in range(ROW_ORDER_PERMUTATIONS)
                ]
            )
        )
        shares[str(column)] = (same, chance)
        margin = max(0.02, 4.0 * math.sqrt(chance * (1.0 - chance) / len(value_codes)))
        nearer_chance = same <= (chance + 1.0) / 2.0
        if same < 0.9 and chance >= 0.1 and nearer_chance and same < chance + margin:
            suspects.append(str(column))
    if not (suspects and _covered_share(original, release, qi, hierarchies, rng) >= 0.9):
        # no shuffled generalization: are the released values nearer the original at
        # their own position than at random (a perturbation, a synthesis, a shuffle)?
        _check_closeness(original, release, qi, rows, rng)
        return shares
    if suspects:
        column = suspects[0]
        same, chance = shares[column]
        raise DataFormatError(
            f"The rows of the release do not line up with the original's: in column "
            f"'{column}' only {same:.0%} of the released cells contain the original "
            f"value at the same position ({chance:.0%} for rows paired at random). The "
            f"release looks shuffled: give a key column present in both tables, or "
            f"export the release in the original order.",
            code="measure.row_order",
            column=column,
            same=round(same, 3),
            chance=round(chance, 3),
        )
    return shares


#: a numeric cell is "near" its original within this many standard deviations
ROW_ORDER_NEAR_SD = 0.5
#: fewer rows than this do not tell a pairing by position from chance
ROW_ORDER_CLOSE_MIN_ROWS = 50


def _check_closeness(
    original: pd.DataFrame,
    release: pd.DataFrame,
    qi: Sequence[str],
    rows: np.ndarray | None,
    rng: np.random.Generator,
) -> None:
    """Refuse a pairing by position in which no quasi-identifier is nearer its original
    at the same position than at random: a perturbed or synthetic release keeps each
    record near its own (a category unchanged, a number within
    :data:`ROW_ORDER_NEAR_SD` standard deviations of the original column), a shuffled
    one does not.

    Per QI on the sampled rows: the share *s* of rows whose released cell is near the
    original at the same position, and *b*, the mean share over
    ``ROW_ORDER_PERMUTATIONS`` random pairings. A QI tells something when 0.02 ≤ b ≤
    0.98 or s > b; the pairing is refused (``measure.row_order``) when at least one QI
    tells something and for every such QI s < b + max(0.02, 4·√(b(1−b)/m)).
    """
    from privcore.data.cells import comparable_keys, numeric_cells

    if (len(release) if rows is None else len(rows)) < ROW_ORDER_CLOSE_MIN_ROWS:
        return  # too few rows to tell a pairing from chance
    telling, gains = [], []
    for column in qi:
        released = release[column] if rows is None else release[column].iloc[rows]
        originals = original[column] if rows is None else original[column].iloc[rows]
        x = numeric_cells(originals.reset_index(drop=True))
        y = numeric_cells(released.reset_index(drop=True))
        if np.isfinite(x).mean() > 0.9 and np.isfinite(y).mean() > 0.5:
            finite = x[np.isfinite(x)]
            spread = float(np.std(finite, ddof=1)) if len(finite) > 1 else 0.0
            if not (spread > 0 and math.isfinite(spread)):
                continue

            def near(order: np.ndarray | None, x=x, y=y, spread=spread) -> float:
                paired = x if order is None else x[order]
                with np.errstate(invalid="ignore"):
                    return float((np.abs(paired - y) <= ROW_ORDER_NEAR_SD * spread).mean())

        else:
            a_codes, b_codes = factorize(
                pd.concat(
                    [
                        comparable_keys(originals.reset_index(drop=True)),
                        comparable_keys(released.reset_index(drop=True)),
                    ],
                    ignore_index=True,
                )
            )[0].reshape(2, -1)

            def near(order: np.ndarray | None, a=a_codes, b=b_codes) -> float:
                paired = a if order is None else a[order]
                return float((paired == b).mean())

        m = len(x)
        same = near(None)
        chance = float(np.mean([near(rng.permutation(m)) for _ in range(ROW_ORDER_PERMUTATIONS)]))
        if not (0.02 <= chance <= 0.98 or same > chance):
            continue
        margin = max(0.02, 4.0 * math.sqrt(chance * (1.0 - chance) / max(m, 1)))
        telling.append((str(column), same, chance))
        gains.append(same >= chance + margin)
    if telling and not any(gains):
        column, same, chance = telling[0]
        raise DataFormatError(
            f"The rows of the release do not line up with the original's: in column "
            f"'{column}' {same:.0%} of the released values lie near the original value at "
            f"the same position, no more than for rows paired at random ({chance:.0%}). "
            f"The release looks shuffled: give a key column present in both tables, or "
            f"export the release in the original order.",
            code="measure.row_order",
            column=column,
            same=round(same, 3),
            chance=round(chance, 3),
        )


def _covered_share(
    original: pd.DataFrame,
    release: pd.DataFrame,
    qi: Sequence[str],
    hierarchies: Mapping[str, Any] | None,
    rng: np.random.Generator,
) -> float:
    """Share of a sample of released rows whose every QI cell contains the value of
    one and the same original row (some row, any position)."""
    picked = rng.choice(len(release), min(len(release), ROW_ORDER_COVER_ROWS), replace=False)
    tuples = distinct_tuples(original, qi)  # distinct original QI tuples
    if len(tuples) > ROW_ORDER_COVER_TUPLES:
        tuples = tuples.iloc[rng.choice(len(tuples), ROW_ORDER_COVER_TUPLES, replace=False)]
    covered = _joint_cover(tuples, release.iloc[picked], qi, hierarchies)
    return float(covered.any(axis=1).mean())


def _joint_cover(
    original: pd.DataFrame,
    release: pd.DataFrame,
    qi: Sequence[str],
    hierarchies: Mapping[str, Any] | None,
) -> np.ndarray:
    """covered[i, j]: released row i contains original row j on every QI."""
    from privcore.data.cells import parse_column

    covered = np.ones((len(release), len(original)), dtype=bool)
    for column in qi:
        value_codes, values = factorize(original[column].reset_index(drop=True))
        cells = parse_column(
            release[column].reset_index(drop=True),
            hierarchy=(hierarchies or {}).get(column),
            column=str(column),
        )
        contains = cells.contains(pd.Series(values, dtype=object))
        covered &= contains[cells.codes][:, value_codes]
    return covered


def _check_small_table(
    original: pd.DataFrame,
    release: pd.DataFrame,
    qi: Sequence[str],
    hierarchies: Mapping[str, Any] | None,
) -> dict[str, tuple[float, float]]:
    covered = _joint_cover(original, release, qi, hierarchies)
    same = float(np.diag(covered).mean())
    matched = float((maximum_matching(covered) >= 0).mean())
    chance = float(covered.mean())
    shares = {"all": (same, chance)}
    if matched == 1.0 and same < 0.5:
        raise DataFormatError(
            f"The rows of the release do not line up with the original's: only {same:.0%} "
            f"of the released rows contain the original row at the same position, although "
            f"every released row matches some original row. The release looks shuffled: "
            f"give a key column present in both tables, or export the release in the "
            f"original order.",
            code="measure.row_order",
            column=", ".join(map(str, qi)),
            same=round(same, 3),
            chance=round(chance, 3),
        )
    return shares
