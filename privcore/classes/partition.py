"""Partitions into equivalence classes (:class:`EquivalenceClasses`): the sensitive
attributes factorized once per table (:class:`SensitiveAttribute`), the per-class value
counts (:class:`ValueCounts`), and the partition of a table's rows
(:func:`equivalence_classes`) or of per-QI codes (:func:`classes_from_codes`)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from privcore.classes.rows import _first_occurrence, members
from privcore.data.codes import (
    SUPPRESSED,
    TableCodes,
    combine_codes,
    compact_codes,
    factorize,
    records_in,
)
from privcore.data.hierarchy import Hierarchy
from privcore.errors import ParameterError, RoleError

_DENSE_CELLS = 4_000_000  # cells per chunk when per-class distributions are made dense


@dataclass(frozen=True, eq=False)
class SensitiveAttribute:
    """A sensitive column factorized over the whole table.

    ``codes`` per row index ``values`` (in the smallest integer type that holds them);
    ``rank`` gives each code's position in the ordered domain (numeric order for numbers,
    text order otherwise) used by the ordered distance; ``hierarchy`` (optional) serves
    the hierarchical distance.
    """

    name: str
    codes: np.ndarray
    values: np.ndarray
    numeric: bool
    rank: np.ndarray
    hierarchy: Hierarchy | None = None
    weights: np.ndarray | None = None  # multiplicity of each row (frequency sets)

    @classmethod
    def from_series(
        cls, series: pd.Series, hierarchy: Hierarchy | None = None
    ) -> SensitiveAttribute:
        codes, values = factorize(series)
        codes = compact_codes(codes, len(values))
        return cls.from_codes(str(series.name), codes, values, series.dtype, hierarchy)

    @classmethod
    def from_codes(
        cls,
        name: str,
        codes: np.ndarray,
        values: np.ndarray,
        dtype: object,
        hierarchy: Hierarchy | None = None,
    ) -> SensitiveAttribute:
        """The attribute from a column already factorized (:func:`factorize`'s codes and
        distinct values; ``dtype``: the column's type, which decides numeric order)."""
        numeric = bool(pd.api.types.is_numeric_dtype(dtype))
        present = pd.Series(values)
        if numeric:
            order = np.argsort(
                pd.to_numeric(present, errors="coerce").to_numpy(float), kind="stable"
            )
        else:
            # Text order; a missing value sorts last (it has no text to compare).
            text = np.array(["\U0010ffff" if pd.isna(v) else str(v) for v in values], dtype=object)
            order = np.argsort(text, kind="stable")
        rank = np.empty(len(values), dtype=np.int64)
        rank[order] = np.arange(len(values))
        return cls(name, codes, values, numeric, rank, hierarchy)

    @property
    def n_values(self) -> int:
        return len(self.values)

    @cached_property
    def distribution(self) -> np.ndarray:
        """Q: the share of each value over every row of the table, suppressed rows
        included (their sensitive values are released too) — t-closeness's reference."""
        counts = np.bincount(self.codes, weights=self.weights, minlength=self.n_values)
        return counts.astype(float) / counts.sum()

    def regrouped(self, codes: np.ndarray, weights: np.ndarray | None) -> SensitiveAttribute:
        """The same attribute over other rows (e.g. the groups of a frequency set),
        keeping the table's values, order, hierarchy and — unless the new weights
        reproduce it — its distribution Q."""
        clone = SensitiveAttribute(
            self.name, codes, self.values, self.numeric, self.rank, self.hierarchy, weights
        )
        clone.__dict__["distribution"] = self.distribution
        return clone


def sensitive_attributes(
    frame: pd.DataFrame,
    columns: Sequence[str],
    hierarchies: Mapping[str, Hierarchy] | None = None,
    *,
    codes: TableCodes | None = None,
) -> dict[str, SensitiveAttribute]:
    """Factorize each sensitive column once (shared by every partition of the table);
    ``codes``: the table's columns already factorized (:class:`TableCodes`)."""
    hierarchies = hierarchies or {}
    require_known_columns(frame, columns)
    if codes is None:
        return {c: SensitiveAttribute.from_series(frame[c], hierarchies.get(c)) for c in columns}
    return {
        c: SensitiveAttribute.from_codes(
            str(c), codes.codes(c), codes.uniques(c), frame[c].dtype, hierarchies.get(c)
        )
        for c in columns
    }


@dataclass(frozen=True)
class ValueCounts:
    """Counts of each (class, sensitive value) pair present, sorted by class then value.

    ``starts[j]`` is the offset of class j's first pair; classes are 0..n_classes-1.
    """

    cls: np.ndarray
    value: np.ndarray
    count: np.ndarray
    starts: np.ndarray

    @property
    def n_classes(self) -> int:
        return len(self.starts)

    def per_class(self, values: np.ndarray | None = None) -> np.ndarray:
        """Σ of ``values`` (one per pair) over the pairs of each class; without
        ``values``, the number of pairs of each class (its distinct values)."""
        return np.bincount(self.cls, weights=values, minlength=self.n_classes)

    def class_max(self, values: np.ndarray | None = None) -> np.ndarray:
        """The largest of ``values`` (one per pair; default the counts) in each class."""
        values = self.count if values is None else values
        if self.n_classes == 0:
            return np.zeros(0, dtype=values.dtype)
        return np.maximum.reduceat(values, self.starts)


@dataclass(frozen=True, eq=False)
class EquivalenceClasses:
    """A partition of the rows into equivalence classes.

    ``ids[i]`` is the class of row i (-1: suppressed); ``sizes[j]`` the size of class j;
    ``first_row[j]`` a representative row of class j (its QI values name the class).
    """

    ids: np.ndarray
    sizes: np.ndarray
    first_row: np.ndarray
    qi: tuple[str, ...]
    sensitive: Mapping[str, SensitiveAttribute] = field(default_factory=dict)
    weights: np.ndarray | None = None  # rows standing for several records (frequency sets)

    @property
    def n_rows(self) -> int:
        """Records partitioned (the sum of the weights when rows are weighted)."""
        return len(self.ids) if self.weights is None else int(self.weights.sum())

    @property
    def n_classes(self) -> int:
        return len(self.sizes)

    @cached_property
    def suppressed(self) -> np.ndarray:
        return self.ids < 0

    @property
    def n_suppressed(self) -> int:
        return records_in(self.suppressed, self.weights)

    @property
    def row_sizes(self) -> np.ndarray:
        """Size of each row's class (0 for suppressed rows)."""
        out = np.zeros(len(self.ids), dtype=np.int64)
        kept = ~self.suppressed
        out[kept] = self.sizes[self.ids[kept]]
        return out

    def attribute(self, name: str) -> SensitiveAttribute:
        try:
            return self.sensitive[name]
        except KeyError as exc:
            raise RoleError(
                f"'{name}' is not a sensitive attribute of this partition.",
                code="roles.not_sensitive",
                column=name,
            ) from exc

    def value_counts(self, name: str) -> ValueCounts:
        """Per (class, value) counts of sensitive attribute ``name`` (cached)."""
        cache = self.__dict__.setdefault("_value_counts", {})
        if name not in cache:
            cache[name] = self._count_pairs(self.attribute(name))
        return cache[name]

    def _count_pairs(self, attribute: SensitiveAttribute) -> ValueCounts:
        return self.count_values(attribute.codes, attribute.n_values)

    def count_values(self, codes: np.ndarray, n_values: int) -> ValueCounts:
        """Per (class, value) counts of any per-row ``codes`` 0..n_values-1 (suppressed
        rows left out), sorted by class then code; the rows' weights count."""
        kept = ~self.suppressed
        m = max(int(n_values), 1)
        key = self.ids[kept] * m + np.asarray(codes)[kept]
        weights = None if self.weights is None else self.weights[kept]
        if self.n_classes * m <= 8 * max(len(key), 1) + 1024:
            dense = np.bincount(key, weights=weights, minlength=self.n_classes * m)
            pairs = np.flatnonzero(dense)
            counts = dense[pairs]
        elif weights is None:
            pairs, counts = np.unique(key, return_counts=True)
        else:
            pairs, inverse = np.unique(key, return_inverse=True)
            counts = np.bincount(inverse, weights=weights)
        cls = pairs // m
        starts = np.searchsorted(cls, np.arange(self.n_classes))
        return ValueCounts(cls, pairs % m, np.rint(counts).astype(np.int64), starts)

    def distributions(self, name: str, *, order: str = "code") -> Iterator[tuple[int, np.ndarray]]:
        """Per-class value distributions as dense row blocks: yields (first class, P).

        P[i, v] is the share of value v in class first+i. ``order="rank"`` puts columns
        in the ordered domain (for the ordered distance). Blocks hold at most about
        4 million cells, so memory stays bounded for large domains.
        """
        counts = self.value_counts(name)
        attribute = self.attribute(name)
        m = max(attribute.n_values, 1)
        column = attribute.rank[counts.value] if order == "rank" else counts.value
        block = max(1, _DENSE_CELLS // m)
        for first in range(0, self.n_classes, block):
            last = min(first + block, self.n_classes)
            lo, hi = (
                counts.starts[first],
                (counts.starts[last] if last < self.n_classes else len(counts.cls)),
            )
            matrix = np.zeros((last - first, m))
            np.add.at(matrix, (counts.cls[lo:hi] - first, column[lo:hi]), counts.count[lo:hi])
            matrix /= self.sizes[first:last, None]
            yield first, matrix

    def members(self) -> list[np.ndarray]:
        """The rows of each class, in row order (suppressed rows belong to none)."""
        return members(self.ids, self.n_classes)

    def class_keys(self, frame: pd.DataFrame) -> pd.DataFrame:
        """The QI values naming each class (from its representative row)."""
        return frame.iloc[self.first_row][list(self.qi)].reset_index(drop=True)


def classes_from_codes(
    codes: Sequence[np.ndarray],
    cardinalities: Sequence[int],
    *,
    qi: Sequence[str],
    suppressed: np.ndarray | None = None,
    sensitive: Mapping[str, SensitiveAttribute] | None = None,
    weights: np.ndarray | None = None,
) -> EquivalenceClasses:
    """Partition from per-QI integer codes (what the anonymization lattice produces).

    Rows flagged in ``suppressed`` get class -1 and do not form a class. ``weights``
    (int per row) makes each row stand for that many records: the rows of a frequency
    set, whose class sizes and value counts are then weighted.
    """
    key = combine_codes(codes, cardinalities)
    n = len(key)
    if suppressed is not None and suppressed.any():
        kept = np.flatnonzero(~suppressed)
        sub_ids, _ = pd.factorize(key[kept])
        ids = np.full(n, -1, dtype=np.int64)
        ids[kept] = sub_ids
        first_row = kept[_first_occurrence(sub_ids)]
    else:
        ids, _ = pd.factorize(key)
        ids = ids.astype(np.int64, copy=False)
        first_row = _first_occurrence(ids)
    n_classes = len(first_row)
    kept = ids >= 0
    sizes = np.bincount(
        ids[kept], weights=None if weights is None else weights[kept], minlength=n_classes
    )
    sizes = np.rint(sizes).astype(np.int64)
    return EquivalenceClasses(ids, sizes, first_row, tuple(qi), dict(sensitive or {}), weights)


def equivalence_classes(
    frame: pd.DataFrame,
    qi: Sequence[str],
    sensitive: Sequence[str] | Mapping[str, SensitiveAttribute] = (),
    *,
    hierarchies: Mapping[str, Hierarchy] | None = None,
    blanked: np.ndarray | None = None,
) -> EquivalenceClasses:
    """Equivalence classes of ``frame`` over the columns ``qi``.

    ``sensitive`` names the sensitive columns (or passes them already factorized);
    ``hierarchies`` gives sensitive attributes their hierarchy for the hierarchical
    t-closeness distance. Rows whose QIs are all ``*`` are set aside as suppressed,
    whatever they are — unless ``blanked`` (the rows the method that made the release
    blanked, a boolean per row) says which of them are: then only those
    (:func:`suppressed_rows`). A release's classes under the models, where those rows
    may be a real class, come from :func:`release_classes`.
    """
    qi, factorized, sensitive = _prepared(frame, qi, sensitive, hierarchies)
    codes = [c for c, _ in factorized]
    cards = [len(u) for _, u in factorized]
    top = _is_suppressed(factorized)
    if blanked is not None:
        top &= checked_blanked(blanked, len(top))
    return classes_from_codes(codes, cards, qi=qi, suppressed=top, sensitive=sensitive)


def checked_blanked(blanked: Any, n_rows: int) -> np.ndarray:
    """``blanked`` as a boolean per row of a table of ``n_rows`` rows, or a
    :class:`~privcore.errors.ParameterError` ``release.bad_blanked``."""
    array = np.asarray(blanked)
    if array.shape != (n_rows,) or array.dtype != bool:
        raise ParameterError(
            f"The rows a method blanked must be one true/false value per released row "
            f"({n_rows}), got {array.dtype} of shape {array.shape}.",
            code="release.bad_blanked",
            rows=n_rows,
        )
    return array


def _is_suppressed(factorized: Sequence[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """Rows whose every QI is ``*``, from the factorized QIs (one integer comparison
    per column: the code of ``*`` among that column's distinct values)."""
    n = len(factorized[0][0])
    mask = np.ones(n, dtype=bool)
    for codes, uniques in factorized:
        star = pd.Index(uniques, dtype=object).get_indexer([SUPPRESSED])[0]
        if star < 0:
            return np.zeros(n, dtype=bool)
        mask &= codes == star
    return mask


def _prepared(
    frame: pd.DataFrame,
    qi: Sequence[str],
    sensitive: Sequence[str] | Mapping[str, SensitiveAttribute],
    hierarchies: Mapping[str, Hierarchy] | None,
    codes: TableCodes | None = None,
) -> tuple[list[str], list[tuple[np.ndarray, np.ndarray]], Mapping[str, SensitiveAttribute]]:
    """Checked QI names, the factorized QIs, and the factorized sensitive attributes
    (read from ``codes`` when given, else factorized here)."""
    qi = [str(c) for c in qi]
    require_known_columns(frame, qi)
    if not qi:
        raise RoleError("Choose at least one quasi-identifier.", code="roles.no_qi")
    if codes is None:  # each column's codes in the smallest integer type, one at a time
        factorized = [(compact_codes(c, len(u)), u) for c, u in (factorize(frame[c]) for c in qi)]
    else:
        factorized = [(codes.codes(c), codes.uniques(c)) for c in qi]
    if not isinstance(sensitive, Mapping):
        sensitive = sensitive_attributes(frame, list(sensitive), hierarchies, codes=codes)
    return qi, factorized, sensitive


def require_known_columns(frame: pd.DataFrame, columns: Sequence[str]) -> None:
    """``roles.unknown_columns`` naming the ``columns`` the table does not have."""
    RoleError.unless_present(
        columns, frame.columns, "The table has no column {names}.", code="roles.unknown_columns"
    )
