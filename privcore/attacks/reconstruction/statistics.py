"""Published statistics as data: the schema of a block's records and what was published.

A :class:`Schema` names each column and its finite domain (``sex`` ∈ {F, M}, ``age`` ∈
0..115). A record *type* is one combination of domain values; the schema enumerates the
types in mixed radix (the last column varies fastest), so type ``t`` has one domain
index per column.

A *group* is a condition per column (``{"sex": "F", "age": Between(0, 17)}``): a value,
a collection of values or an inclusive :class:`Between` range of a numeric column; the
columns not named are free. The statistics over a group:

- :class:`Count` — the number of records of the group. Exact; or *suppressed* below a
  threshold τ (the cell is known to hold < τ records, or 0 < count < τ when the agency
  says that an empty cell is shown as 0); or *noisy* (:class:`Noise`).
- :class:`Mean` — the mean of a numeric column over the group, exact or rounded to a
  published precision (36.7 for 110/3), or noisy.
- :class:`Median` — the median of a numeric column over the group of ``count`` records:
  with an odd count ``2k + 1`` the ``(k + 1)``-th smallest value; with an even count
  ``2k`` the mean of the ``k``-th and ``(k + 1)``-th smallest values (the convention of
  the census tables and of :func:`numpy.median`).

A statistic whose value is ``None`` (and that is not a suppressed count) was not
published: it constrains nothing.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from numbers import Real
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import norm

from privcore.errors import ParameterError

NOISE_LAWS = ("laplace", "gaussian", "discrete_laplace", "bounded")


@dataclass(frozen=True)
class Between:
    """The values ``low ≤ v ≤ high`` of a numeric column (both ends included)."""

    low: float
    high: float


@dataclass(frozen=True)
class Noise:
    """The law of the noise added to a published value, and the error it is fitted within.

    ``law`` is one of ``laplace`` (scale b: density ∝ exp(−|z|/b)), ``discrete_laplace``
    (P(z) ∝ exp(−|z|/b) on the integers), ``gaussian`` (standard deviation σ = scale) or
    ``bounded`` (|z| ≤ scale for sure). :attr:`bound` is the half-width w with
    P(|z| > w) ≤ ``beta``: the published value lies within ± w of the truth with
    probability ≥ 1 − β, and the attack keeps its model of the statistic there.
    """

    law: str
    scale: float
    beta: float = 0.05

    def __post_init__(self) -> None:
        ParameterError.unless_one_of(
            self.law,
            NOISE_LAWS,
            "Unknown noise law {law!r}: use one of {choices}.",
            code="reconstruction.noise_law",
            law=self.law,
        )
        if not (self.scale > 0 and 0 < self.beta < 1):
            raise ParameterError(
                "A noise law needs a scale > 0 and a β in (0, 1).",
                code="reconstruction.noise_scale",
                scale=self.scale,
                beta=self.beta,
            )

    @property
    def bound(self) -> float:
        """w with P(|z| > w) ≤ β: Laplace b·ln(1/β); Gaussian σ·Φ⁻¹(1 − β/2); discrete
        Laplace the least integer k with 2·e^(−(k+1)/b) / (1 + e^(−1/b)) ≤ β; bounded b."""
        b, beta = float(self.scale), float(self.beta)
        if self.law == "laplace":
            return b * math.log(1.0 / beta)
        if self.law == "gaussian":
            return b * float(norm.ppf(1.0 - beta / 2.0))
        if self.law == "discrete_laplace":
            tail = b * math.log(2.0 / (beta * (1.0 + math.exp(-1.0 / b))))
            return float(max(0, math.ceil(tail - 1.0)))
        return b


@dataclass(frozen=True)
class Count:
    """The number of records of a group (see the module's docstring)."""

    where: Mapping[str, Any] = field(default_factory=dict)
    value: float | None = None
    suppressed_below: int | None = None
    nonzero_if_suppressed: bool = False
    noise: Noise | None = None
    name: str | None = None


@dataclass(frozen=True)
class Mean:
    """The mean of ``column`` over a group; ``rounded_to`` is the published precision
    (0.1: the true mean lies within ± 0.05 of the value)."""

    column: str
    value: float | None
    where: Mapping[str, Any] = field(default_factory=dict)
    rounded_to: float = 0.0
    noise: Noise | None = None
    name: str | None = None


@dataclass(frozen=True)
class Median:
    """The median of ``column`` over a group of ``count`` records (odd: the middle value;
    even: the mean of the two middle values). ``count`` may be left out when an exact
    :class:`Count` of the same group is published."""

    column: str
    value: float | None
    where: Mapping[str, Any] = field(default_factory=dict)
    count: int | None = None
    rounded_to: float = 0.0
    noise: Noise | None = None
    name: str | None = None


Statistic = Count | Mean | Median


def label(statistic: Statistic) -> str:
    """The statistic's name, or one written from its kind and group
    (``mean age [sex=F, race=B]``)."""
    if statistic.name:
        return statistic.name
    group = ", ".join(f"{c}={_condition_text(v)}" for c, v in statistic.where.items())
    kind = "count" if isinstance(statistic, Count) else type(statistic).__name__.lower()
    column = "" if isinstance(statistic, Count) else f" {statistic.column}"
    return f"{kind}{column} [{group or 'all'}]"


def _condition_text(condition: Any) -> str:
    if isinstance(condition, Between):
        return f"{condition.low:g}..{condition.high:g}"
    if isinstance(condition, (list, tuple, set, frozenset, range)):
        return "{" + ", ".join(str(v) for v in condition) + "}"
    return str(condition)


def contingency(
    columns: Sequence[str],
    cells: Mapping[Any, float | None],
    *,
    suppressed_below: int | None = None,
    nonzero_if_suppressed: bool = False,
    noise: Noise | None = None,
    prefix: str = "",
) -> list[Count]:
    """The counts of a contingency table over ``columns``: ``cells`` maps each cell (a
    tuple of values, one per column; a bare value for one column) to its published
    count, ``None`` for a suppressed cell. Cells not given are not published."""
    counts = []
    for cell, value in cells.items():
        key = cell if isinstance(cell, tuple) else (cell,)
        if len(key) != len(columns):
            raise ParameterError(
                f"The cell {key!r} does not give one value per column of {list(columns)}.",
                code="reconstruction.cell",
                cell=str(key),
            )
        where = dict(zip(columns, key, strict=True))
        text = ", ".join(f"{c}={v}" for c, v in where.items())
        counts.append(
            Count(
                where=where,
                value=value,
                suppressed_below=suppressed_below if value is None else None,
                nonzero_if_suppressed=nonzero_if_suppressed,
                noise=None if value is None else noise,
                name=f"{prefix}count [{text}]",
            )
        )
    return counts


class Schema:
    """Columns and their finite domains; the record types are their combinations."""

    def __init__(self, columns: Mapping[str, Iterable[Any]]) -> None:
        if not columns:
            raise ParameterError(
                "A schema needs at least one column.", code="reconstruction.schema"
            )
        self.columns: tuple[str, ...] = tuple(columns)
        self.domains: dict[str, tuple[Any, ...]] = {}
        for name, values in columns.items():
            domain = tuple(values)
            if not domain or len(set(domain)) != len(domain):
                raise ParameterError(
                    f"The domain of column {name!r} must hold distinct values, at least one.",
                    code="reconstruction.domain",
                    column=name,
                )
            self.domains[name] = domain
        self.sizes = np.array([len(self.domains[c]) for c in self.columns], dtype=np.int64)
        self.n_types = int(np.prod(self.sizes))
        self._allowed: dict[tuple[str, Any], np.ndarray] = {}

    def is_numeric(self, column: str) -> bool:
        return all(isinstance(v, Real) and not isinstance(v, bool) for v in self.domain(column))

    def domain(self, column: str) -> tuple[Any, ...]:
        ParameterError.unless_one_of(
            column,
            self.domains,
            "Unknown column {column!r}: the schema has {choices}.",
            code="reconstruction.column",
            column=column,
        )
        return self.domains[column]

    def numbers(self, column: str) -> np.ndarray:
        """The numeric domain of ``column`` as float64 (a ParameterError if not numeric)."""
        if not self.is_numeric(column):
            raise ParameterError(
                f"Column {column!r} is not numeric: a mean or a median needs numbers.",
                code="reconstruction.not_numeric",
                column=column,
            )
        return np.asarray(self.domain(column), dtype=np.float64)

    def codes(self) -> np.ndarray:
        """(types × columns) domain indices of every record type, mixed radix."""
        grid = np.indices(tuple(self.sizes), dtype=np.int64)
        return grid.reshape(len(self.columns), -1).T

    def allowed(self, column: str, condition: Any) -> np.ndarray:
        """Which values of ``column``'s domain the condition admits (bool per value;
        remembered for a hashable condition: a block's tables name each value many
        times). The array returned is shared: do not change it."""
        try:
            return self._allowed[column, condition]
        except KeyError:
            allowed = self._admitted(column, condition)
            allowed.flags.writeable = False
            self._allowed[column, condition] = allowed
            return allowed
        except TypeError:  # a list or a set of values: not remembered
            return self._admitted(column, condition)

    def _admitted(self, column: str, condition: Any) -> np.ndarray:
        domain = self.domain(column)
        if isinstance(condition, Between):
            values = self.numbers(column)
            return (values >= condition.low) & (values <= condition.high)
        wanted = (
            list(condition)
            if isinstance(condition, (list, tuple, set, frozenset, range))
            else [condition]
        )
        unknown = [v for v in wanted if v not in domain]
        if unknown:
            raise ParameterError(
                f"Value {unknown[0]!r} is not in the domain of column {column!r}.",
                code="reconstruction.value",
                column=column,
                value=str(unknown[0]),
            )
        return np.isin(np.arange(len(domain)), [domain.index(v) for v in wanted])

    def mask(self, where: Mapping[str, Any], codes: np.ndarray) -> np.ndarray:
        """Which record types (rows of :meth:`codes`) belong to the group ``where``."""
        inside = np.ones(len(codes), dtype=bool)
        for column, condition in where.items():
            self.domain(column)
            j = self.columns.index(column)
            inside &= self.allowed(column, condition)[codes[:, j]]
        return inside

    def type_of(self, frame: pd.DataFrame) -> np.ndarray:
        """The record type of each row of ``frame`` (a ParameterError for a value outside
        its column's domain)."""
        missing = [c for c in self.columns if c not in frame.columns]
        if missing:
            raise ParameterError(
                f"The table lacks the column(s) {', '.join(missing)} of the schema.",
                code="reconstruction.table_columns",
                columns=missing,
            )
        index = np.zeros(len(frame), dtype=np.int64)
        for j, column in enumerate(self.columns):
            position = pd.Index(self.domains[column]).get_indexer(frame[column])
            if (position < 0).any():
                bad = frame[column].to_numpy()[np.flatnonzero(position < 0)[0]]
                raise ParameterError(
                    f"Value {bad!r} of column {column!r} is not in the schema's domain.",
                    code="reconstruction.value",
                    column=column,
                    value=str(bad),
                )
            index = index * self.sizes[j] + position
        return index

    def records(self, counts: np.ndarray) -> pd.DataFrame:
        """The records of a vector of counts per type, one row per record, in type order."""
        types = np.repeat(np.arange(self.n_types), np.asarray(counts, dtype=np.int64))
        codes = self.codes()[types]
        return pd.DataFrame(
            {
                column: np.asarray(self.domains[column], dtype=object)[codes[:, j]]
                for j, column in enumerate(self.columns)
            }
        ).infer_objects()


@dataclass(frozen=True)
class Publication:
    """What was published about one block: its schema and its statistics."""

    schema: Schema
    statistics: tuple[Statistic, ...]
    name: str = "block"

    def __post_init__(self) -> None:
        object.__setattr__(self, "statistics", tuple(self.statistics))
        names = [label(s) for s in self.statistics]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ParameterError(
                f"Two statistics share the name {twice[0]!r}: name each one.",
                code="reconstruction.names",
                name=twice[0],
            )
