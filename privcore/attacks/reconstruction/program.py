"""The integer program of a publication: variables, constraints, and one HiGHS solve.

Variables. One integer ``x_t ≥ 0`` per record type ``t`` (a combination of domain
values): the number of records of that type in the block. A table is a multiset of
records, and a vector of counts is exactly a multiset: no two variable assignments
describe the same table, so there is no symmetry to break, and the no-good cuts and
certainty checks speak of multisets directly. N ordered record slots with one-hot
attributes instead have N! copies of each table and need lexicographic ordering
constraints to remove them. Measured on the block of seven people of Garfinkel, Abowd &
Martindale (928 types, HiGHS 1.12, a busy 2-core machine): the counts solve in 0.65 s
and prove that no second table exists in 0.7 s; 7 slots with one-hot types in
lexicographic order (the same statistics on ``x_t = Σ_i y_it``, 8,384 variables) take
2.1 s and 2.2 s. The counts grow with the product of the domains, the slots with N:
blocks over large domains (many races × ages) are where slots may pay.

Constraints, for a group G (its types) and a numeric column with value ``v_t``:

- count: ``lo ≤ Σ_{t∈G} x_t ≤ hi`` (exact: lo = hi; suppressed below τ: [0, τ − 1],
  or [1, τ − 1]; noisy: the published value ± the noise's bound);
- mean m (rounded to ± h): ``Σ_{t∈G} (v_t − (m − h)) x_t ≥ 0`` and
  ``Σ_{t∈G} (v_t − (m + h)) x_t ≤ 0`` (one equality when h = 0), and ``Σ_{t∈G} x_t ≥ 1``;
- median of a group of c records: cumulative counts ``C_j = #{records of G with value
  ≤ the j-th smallest domain value}`` (integer variables, ``C_j = C_{j−1} + Σ_{t∈G,
  v_t = value j} x_t``, ``C_last = c``); the r-th smallest value is chosen by binaries
  ``s_j`` (Σ s_j = 1) with ``C_{j−1} ≤ r − 1 + c(1 − s_j)`` and ``C_j ≥ r − c(1 − s_j)``
  — value j is the r-th smallest exactly when fewer than r records lie below it and at
  least r at or below it. The median is ``Σ_j value_j s_j`` for r = k + 1 when
  c = 2k + 1, and the half sum of the selections for r = k and r = k + 1 when c = 2k;
  it must lie within the published value ± (rounding + noise bound).
  An exact median m of an even count chooses instead one pair (v, 2m − v) of the
  k-th and (k + 1)-th smallest values per binary: half the binaries, a tighter program.

A noisy statistic is also fitted by least absolute deviation: ``d ≥ |published −
model|`` with ``d ≥ 0``, and the objective is ``Σ d / scale`` (the Laplace
log-likelihood). Exact statistics are hard constraints. Each statistic's rows carry its
index, so that a solve can leave statistics out (to find the conflicting ones); the
no-good cuts that exclude found tables carry the tag ``CUTS``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import coo_matrix

from privcore.attacks.reconstruction.statistics import (
    Count,
    Mean,
    Median,
    Publication,
    Statistic,
    label,
)
from privcore.errors import ParameterError

CUTS = -1  # the tag of the no-good cuts
_EPS = 1e-9


@dataclass
class Outcome:
    """One solve: ``optimal``, ``infeasible``, ``time`` (limit reached; ``x`` is the
    best table found, if any) or ``error``; ``x`` all variables, ``counts`` the types'."""

    status: str
    x: np.ndarray | None = None
    counts: np.ndarray | None = None


@dataclass(frozen=True)
class Deviation:
    """A noisy statistic: its model value ``offset + Σ coefs · x[cols]``, its published
    value and the error it is kept within."""

    statistic: int
    cols: np.ndarray
    coefs: np.ndarray
    published: float
    bound: float
    offset: float = 0.0

    def model(self, x: np.ndarray) -> float:
        return float(self.offset + self.coefs @ x[self.cols])


class Program:
    """The integer program of one :class:`Publication` (see the module's docstring).

    With ``presolve`` the record types inside a count whose interval is [0, 0] (an
    empty cell) get no variable: they hold no record in any table that fits, and a
    block's tables leave most of the product of the domains empty (12,000 types, about
    170 left in a block of 100 people). The conflicting statistics are named on the
    program without presolve, where every statistic can be left out.
    """

    def __init__(self, publication: Publication, *, presolve: bool = True) -> None:
        self.schema = publication.schema
        self.statistics: tuple[Statistic, ...] = publication.statistics
        self.names = [label(s) for s in self.statistics]
        every = self.schema.codes()
        empty = self._empty_types(every) if presolve else np.zeros(len(every), dtype=bool)
        self.types = np.flatnonzero(~empty)  # the type of each type variable
        if not len(self.types):  # a solve needs one variable: keep one, held 0 times
            self.types = np.zeros(1, dtype=np.int64)
        self.codes = every[self.types]
        self.n_types = len(self.types)
        self.total = self._population_bound()
        high = np.where(empty[self.types], 0.0, float(self.total))
        self._lb: list[np.ndarray] = [np.zeros(self.n_types)]
        self._ub: list[np.ndarray] = [high]
        self._integer: list[np.ndarray] = [np.ones(self.n_types, dtype=np.uint8)]
        self.n_vars = self.n_types
        self._rows: list[tuple[np.ndarray, np.ndarray, float, float, int]] = []
        self.cost: dict[int, float] = {}
        self.deviations: list[Deviation] = []
        for index, statistic in enumerate(self.statistics):
            if isinstance(statistic, Count):
                self._count(index, statistic)
            elif isinstance(statistic, Mean):
                self._mean(index, statistic)
            else:
                self._median(index, statistic)

    def variable(self, types: np.ndarray) -> np.ndarray:
        """The variables of record types (each must have one)."""
        return np.searchsorted(self.types, types)

    def counts(self, x: np.ndarray) -> np.ndarray:
        """The count of every record type of the schema from a solution ``x``."""
        counts = np.zeros(self.schema.n_types, dtype=np.int64)
        counts[self.types] = np.rint(x[: self.n_types]).astype(np.int64)
        return counts

    # ------------------------------------------------------------------ building

    def add_vars(self, n: int, low: float, high: float, integer: bool) -> np.ndarray:
        first = self.n_vars
        self._lb.append(np.full(n, float(low)))
        self._ub.append(np.full(n, float(high)))
        self._integer.append(np.full(n, 1 if integer else 0, dtype=np.uint8))
        self.n_vars += n
        return np.arange(first, first + n)

    def add_row(self, cols, coefs, low: float, high: float, tag: int) -> None:
        cols = np.asarray(cols, dtype=np.int64)
        self._rows.append((cols, np.asarray(coefs, dtype=np.float64), low, high, tag))

    def tagged(self) -> list[int]:
        """The statistics that have rows, in order."""
        return sorted({row[4] for row in self._rows if row[4] != CUTS})

    def mask(self, where) -> np.ndarray:
        """Which type variables belong to the group ``where``."""
        return self.schema.mask(where, self.codes)

    def _empty_types(self, codes: np.ndarray) -> np.ndarray:
        """The types inside a count whose interval is [0, 0], by the cells of each set of
        named columns at once (a group is the product of its columns' allowed values)."""
        grids: dict[tuple[int, ...], np.ndarray] = {}
        for s in self.statistics:
            interval = count_interval(s) if isinstance(s, Count) else None
            if interval is None or interval[1] >= 1:
                continue
            named = tuple(sorted(self.schema.columns.index(c) for c in s.where))
            shape = tuple(int(self.schema.sizes[j]) for j in named)
            grid = grids.setdefault(named, np.zeros(shape, dtype=bool))
            columns = [self.schema.columns[j] for j in named]
            grid[np.ix_(*(self.schema.allowed(c, s.where[c]) for c in columns))] = True
        empty = np.zeros(len(codes), dtype=bool)
        for named, grid in grids.items():
            empty |= grid[tuple(codes[:, j] for j in named)]
        return empty

    def _population_bound(self) -> int:
        """The most records the block can hold: the upper end of a count over every type
        that may hold a record."""
        ends = [
            interval[1]
            for s in self.statistics
            if isinstance(s, Count)
            and (interval := count_interval(s)) is not None
            and self.mask(s.where).all()
        ]
        if not ends:
            raise ParameterError(
                "The statistics give no count of the whole block (exact, noisy or "
                "suppressed): publish the block's total count to bound its records.",
                code="reconstruction.no_total",
            )
        return int(min(ends))

    def known_count(self, where) -> int | None:
        """The exact published count of the group ``where``, if any."""
        inside = self.mask(where)
        for s in self.statistics:
            exact = isinstance(s, Count) and s.noise is None and s.value is not None
            if exact and np.array_equal(self.mask(s.where), inside):
                return int(s.value)
        return None

    def _count(self, index: int, statistic: Count) -> None:
        interval = count_interval(statistic)
        if interval is None:
            return
        cols = np.flatnonzero(self.mask(statistic.where))
        ones = np.ones(len(cols))
        if len(cols) or interval[0] > 0:  # an empty group's row says nothing unless > 0
            self.add_row(cols, ones, interval[0], interval[1], index)
        if statistic.noise is not None:
            self._deviation(index, cols, ones, float(statistic.value), statistic.noise)

    def _mean(self, index: int, statistic: Mean) -> None:
        if statistic.value is None:
            return
        j = self.schema.columns.index(statistic.column)
        values = self.schema.numbers(statistic.column)
        cols = np.flatnonzero(self.mask(statistic.where))
        v = values[self.codes[cols, j]]
        m = float(statistic.value)
        half = _half_width(statistic)
        if half <= 0:
            self.add_row(cols, v - m, 0.0, 0.0, index)
        else:
            self.add_row(cols, v - (m - half), 0.0, np.inf, index)
            self.add_row(cols, v - (m + half), -np.inf, 0.0, index)
        self.add_row(cols, np.ones(len(cols)), 1.0, np.inf, index)
        if statistic.noise is not None:
            reference = self.known_count(statistic.where) or 1
            self._deviation(index, cols, (v - m) / reference, 0.0, statistic.noise, offset=m)

    def _median(self, index: int, statistic: Median) -> None:
        if statistic.value is None:
            return
        count = statistic.count
        if count is None:
            count = self.known_count(statistic.where)
        if count is None or count < 1:
            raise ParameterError(
                f"The median {self.names[index]!r} needs the exact number of records of its "
                "group (≥ 1): give it as count=, or publish the group's exact count.",
                code="reconstruction.median_count",
                statistic=self.names[index],
            )
        values = self.schema.numbers(statistic.column)
        order = np.argsort(values, kind="stable")
        ordered = values[order]
        cumulative = self._cumulative(index, statistic, order, count)
        m, half = float(statistic.value), _half_width(statistic)
        low, high = m - half, m + half
        k, odd = divmod(count, 2)
        if odd:
            chosen = (ordered >= low - _EPS) & (ordered <= high + _EPS)
            cols, vals = self._order_statistic(index, cumulative, ordered, count, k + 1, chosen)
            coefs = vals
        elif half <= 0:
            cols, coefs = self._middle_pair(index, cumulative, ordered, count, m)
        else:
            lower = self._order_statistic(
                index, cumulative, ordered, count, k, ordered <= high + _EPS
            )
            upper = self._order_statistic(
                index, cumulative, ordered, count, k + 1, ordered >= low - _EPS
            )
            cols = np.concatenate([lower[0], upper[0]])
            coefs = np.concatenate([lower[1], upper[1]]) / 2.0
        self.add_row(cols, coefs, low - _EPS, high + _EPS, index)
        if statistic.noise is not None:
            self._deviation(index, cols, coefs, m, statistic.noise)

    def _cumulative(self, index: int, statistic: Median, order, count: int) -> np.ndarray:
        """C_j = records of the group with a value at or below the j-th smallest."""
        j = self.schema.columns.index(statistic.column)
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order))
        cols = np.flatnonzero(self.mask(statistic.where))
        position = rank[self.codes[cols, j]]
        cumulative = self.add_vars(len(order), 0, count, integer=True)
        for p, variable in enumerate(cumulative):
            members = cols[position == p]
            previous = [cumulative[p - 1]] if p else []
            self.add_row(
                np.concatenate([[variable], previous, members]).astype(np.int64),
                np.concatenate([[1.0], -np.ones(len(previous)), -np.ones(len(members))]),
                0.0,
                0.0,
                index,
            )
        self.add_row([cumulative[-1]], [1.0], count, count, index)
        return cumulative

    def _order_statistic(self, index, cumulative, ordered, count, r, chosen):
        """Binaries choosing the r-th smallest value among the ``chosen`` candidates:
        (their variables, their values)."""
        candidates = np.flatnonzero(chosen)
        picks = self.add_vars(len(candidates), 0, 1, integer=True)
        self.add_row(picks, np.ones(len(picks)), 1.0, 1.0, index)
        for pick, p in zip(picks, candidates, strict=True):
            if p > 0:  # fewer than r records below the value: C_{p-1} ≤ r − 1 + c(1 − s)
                self.add_row([cumulative[p - 1], pick], [1.0, count], -np.inf, r - 1 + count, index)
            # at least r records at or below it: C_p ≥ r − c(1 − s)
            self.add_row([cumulative[p], pick], [1.0, -count], r - count, np.inf, index)
        return picks, ordered[candidates]

    def _middle_pair(self, index, cumulative, ordered, count, m):
        """An exact median m of an even count 2k: binaries choosing the pair (v, 2m − v)
        of the k-th and (k+1)-th smallest values, both ranks written for each pair."""
        k = count // 2
        position = {float(v): p for p, v in enumerate(ordered)}
        pairs = [
            (p, position[2 * m - v])
            for p, v in enumerate(ordered)
            if v <= m and float(2 * m - v) in position
        ]
        picks = self.add_vars(len(pairs), 0, 1, integer=True)
        self.add_row(picks, np.ones(len(picks)), 1.0, 1.0, index)
        for pick, (low, high) in zip(picks, pairs, strict=True):
            for p, r in ((low, k), (high, k + 1)):
                if p > 0:
                    self.add_row(
                        [cumulative[p - 1], pick], [1.0, count], -np.inf, r - 1 + count, index
                    )
                self.add_row([cumulative[p], pick], [1.0, -count], r - count, np.inf, index)
        values = np.array([ordered[a] + ordered[b] for a, b in pairs]) / 2.0
        return picks, values

    def _deviation(self, index, cols, coefs, published, noise, offset=0.0) -> None:
        """d ≥ |published − Σ coefs·x| and d / scale in the objective (the statistic's
        model value is ``offset + Σ coefs·x``)."""
        d = int(self.add_vars(1, 0, np.inf, integer=False)[0])
        cols = np.asarray(cols, dtype=np.int64)
        self.add_row(np.append(cols, d), np.append(-coefs, 1.0), -published, np.inf, index)
        self.add_row(np.append(cols, d), np.append(coefs, 1.0), published, np.inf, index)
        self.cost[d] = 1.0 / noise.scale
        self.deviations.append(
            Deviation(index, cols, np.asarray(coefs), published + offset, noise.bound, offset)
        )

    def add_cut(self, counts: np.ndarray) -> None:
        """A no-good cut: the next table differs from ``counts`` (per type of the schema)
        — some type held fewer times, or a different number of records (binaries δ,
        Σ δ ≥ 1, big-M rows)."""
        n, big = int(counts.sum()), float(self.total + 1)
        deltas = self.add_vars(int(np.count_nonzero(counts)) + 2, 0, 1, integer=True)
        self.add_row(deltas, np.ones(len(deltas)), 1.0, np.inf, CUTS)
        for row in self._fewer_rows(counts, deltas[:-2]):
            self.add_row(*row, CUTS)
        everyone = np.arange(self.n_types)
        ones = np.ones(self.n_types)
        self.add_row(
            np.append(everyone, deltas[-2]), np.append(ones, big), -np.inf, n - 1 + big, CUTS
        )
        self.add_row(
            np.append(everyone, deltas[-1]), np.append(ones, -big), n + 1 - big, np.inf, CUTS
        )

    def _fewer_rows(self, counts: np.ndarray, deltas: np.ndarray) -> list[tuple]:
        """``x_t ≤ counts_t − 1 + M(1 − δ_t)`` for each type held in ``counts`` (one
        binary δ each, M = the block's most records + 1): δ_t = 1 asks for fewer."""
        support = np.flatnonzero(counts)
        big = float(self.total + 1)
        return [
            ([v, delta], [1.0, big], -np.inf, counts[t] - 1 + big)
            for t, v, delta in zip(support, self.variable(support), deltas, strict=True)
        ]

    # ------------------------------------------------------------------ solving

    def solve(
        self,
        *,
        seconds: float,
        objective: bool = False,
        cuts: bool = False,
        dropped: frozenset[int] | set[int] = frozenset(),
        fewer: np.ndarray | None = None,
    ) -> Outcome:
        """One HiGHS solve (``scipy.optimize.milp``) within ``seconds``: the rows of the
        statistics not ``dropped``, the cuts when asked; the LAD objective when
        ``objective``. ``fewer`` (counts per type of the schema) asks for a table that
        holds some type fewer times than it says (binaries for this solve only)."""
        if seconds <= 0:
            return Outcome("time")
        rows = [
            r
            for r in self._rows
            if (r[4] == CUTS and cuts) or (r[4] != CUTS and r[4] not in dropped)
        ]
        lb, ub, integer = list(self._lb), list(self._ub), list(self._integer)
        n_vars = self.n_vars
        if fewer is not None:
            deltas = np.arange(n_vars, n_vars + np.count_nonzero(fewer))
            n_vars += len(deltas)
            lb.append(np.zeros(len(deltas)))
            ub.append(np.ones(len(deltas)))
            integer.append(np.ones(len(deltas), dtype=np.uint8))
            below = [(deltas, np.ones(len(deltas)), 1.0, np.inf)]
            below += self._fewer_rows(fewer, deltas)
            rows += [
                (np.asarray(c, dtype=np.int64), np.asarray(v, float), lo, hi, 0)
                for c, v, lo, hi in below
            ]
        cost = np.zeros(n_vars)
        if objective:
            cost[list(self.cost)] = list(self.cost.values())
        bounds = Bounds(np.concatenate(lb), np.concatenate(ub))
        constraints = ()
        if rows:
            sizes = np.array([len(r[0]) for r in rows])
            matrix = coo_matrix(
                (
                    np.concatenate([r[1] for r in rows]),
                    (np.repeat(np.arange(len(rows)), sizes), np.concatenate([r[0] for r in rows])),
                ),
                shape=(len(rows), n_vars),
            ).tocsr()
            constraints = LinearConstraint(
                matrix, np.array([r[2] for r in rows]), np.array([r[3] for r in rows])
            )
        result = milp(
            cost,
            integrality=np.concatenate(integer),
            bounds=bounds,
            constraints=constraints,
            options={"time_limit": float(seconds), "disp": False},
        )
        return self._outcome(result)

    def _outcome(self, result) -> Outcome:
        if result.status == 2:
            return Outcome("infeasible")
        x = None if result.x is None else np.asarray(result.x)
        counts = None if x is None else self.counts(x)
        return Outcome({0: "optimal", 1: "time"}.get(result.status, "error"), x, counts)


def count_interval(statistic: Count) -> tuple[float, float] | None:
    """What a count tells of its group's size: [lo, hi], or None when nothing."""
    if statistic.value is None:
        if statistic.suppressed_below is None:
            return None
        return (
            1.0 if statistic.nonzero_if_suppressed else 0.0,
            float(statistic.suppressed_below - 1),
        )
    value = float(statistic.value)
    if statistic.noise is not None:
        bound = statistic.noise.bound
        return (max(0.0, math.ceil(value - bound - _EPS)), math.floor(value + bound + _EPS))
    if value < 0 or value != int(value):
        raise ParameterError(
            f"The exact count {label(statistic)!r} must be a whole number ≥ 0, not {value:g}.",
            code="reconstruction.count_value",
            statistic=label(statistic),
        )
    return (value, value)


def _half_width(statistic: Mean | Median) -> float:
    half = max(float(statistic.rounded_to), 0.0) / 2.0
    return half + (statistic.noise.bound if statistic.noise is not None else 0.0)


class Clock:
    """The seconds left before a deadline."""

    def __init__(self, seconds: float | None) -> None:
        self.limit = seconds
        self.deadline = None if seconds is None else time.perf_counter() + float(seconds)

    def left(self) -> float:
        if self.deadline is None:
            return 1e9
        return self.deadline - time.perf_counter()
