"""Queries on a table and their noisy answers (SPEC §10).

Each query function computes the true answer on a pandas table together with its
sensitivity, derived from the query and the neighbouring relation, never guessed:

- ``relation="add_remove"`` (the default, unbounded DP): neighbouring tables differ by
  adding or removing one person's record;
- ``relation="replace"`` (bounded DP): they differ by changing one record.

=================  =========================  ==========================
query              add/remove: L1 (L2)        replace one record: L1 (L2)
=================  =========================  ==========================
count              1 (1)                      1 (1)
histogram          1 (1)                      2 (√2)
sum clamped [a,b]  max(|a|, |b|)              b − a
mean               noisy sum / noisy count, ε (and δ) split in two halves
=================  =========================  ==========================

(An unconditional count cannot change when one record is replaced; 1 is then an upper
bound.) :func:`answer` adds the noise of a mechanism and reports the noise scale and a 95 %
interval. Counts and other integer queries default to the discrete Laplace (geometric)
mechanism, which has no floating-point leak (Mironov 2012); real-valued queries default
to the Laplace mechanism.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypedDict, Unpack

import numpy as np
import pandas as pd

from privcore.classes import code_counts, factorize, value_codes
from privcore.core.jsonsafe import plain
from privcore.core.privacy_parameters import as_float
from privcore.dp.mechanisms import NoiseMechanism, noise_mechanism
from privcore.dp.parameters import check_delta, check_epsilon
from privcore.dp.sampling import generator
from privcore.errors import ParameterError

__all__ = [
    "MECHANISMS",
    "RELATIONS",
    "NoisyAnswer",
    "Query",
    "answer",
    "clamped_sum",
    "count",
    "histogram",
    "mean",
    "where_mask",
]

RELATIONS = ("add_remove", "replace")
MECHANISMS = ("laplace", "geometric", "gaussian")
CONFIDENCE = 0.95
MAX_HISTOGRAM_CELLS = 1_000_000
MAX_DRAWS = 100_000
#: Most noisy values (draws × cells) one answer draws: 2·10⁷ values, with the noise and
#: the two interval ends about 0.8 GB. A larger request is refused before any is drawn.
MAX_DRAWN_VALUES = 20_000_000


@dataclass(frozen=True)
class Query:
    """A query with its true answer and sensitivities.

    ``true_answer`` is a number, or for a histogram a :class:`pandas.Series` of counts
    indexed by the cells. A mean is composite: its ``parts`` are the clamped sum and the
    count it divides, and its own sensitivities are ``None``.
    """

    name: str
    true_answer: Any
    sensitivity_l1: float | None
    sensitivity_l2: float | None
    kind: str  # "int" or "real"
    relation: str
    params: Mapping[str, Any] = field(default_factory=dict)
    parts: tuple[Query, ...] = ()

    @property
    def label(self) -> str:
        """A short formula for ledgers: ``count(sex=F)``, ``sum(age in [0, 90])``, …"""
        if self.name == "count":
            where = self.params.get("where") or {}
            return "count(" + ", ".join(f"{k}={v}" for k, v in where.items()) + ")"
        if self.name == "histogram":
            return "histogram(" + ", ".join(map(str, self.params["columns"])) + ")"
        return (
            f"{self.name}({self.params['column']} in "
            f"[{self.params['lower']}, {self.params['upper']}])"
        )

    def to_dict(self) -> dict[str, Any]:
        true_answer = self.true_answer
        if isinstance(true_answer, pd.Series):
            true_answer = _cell_records(true_answer.index, true_answer.to_numpy())
        return plain(
            {
                "name": self.name,
                "true_answer": true_answer,
                "sensitivity_l1": self.sensitivity_l1,
                "sensitivity_l2": self.sensitivity_l2,
                "kind": self.kind,
                "relation": self.relation,
                "params": dict(self.params),
                "parts": [part.to_dict() for part in self.parts],
            }
        )


@dataclass(frozen=True)
class NoisyAnswer:
    """The noisy answer to a query.

    ``answers`` holds ``draws`` independent noisy answers (one row per draw; a histogram's
    row has one value per cell) and ``answer`` is the first. Releasing all of them would
    cost ``draws``·ε: the draws show the spread of the noise (error bands), ``epsilon`` and
    ``delta`` are those of one answer. ``intervals`` gives, per draw, a 95 % interval
    (lower, upper) around the noisy answer that holds the true answer with probability
    ≥ 95 %; ``interval`` is the first. For a mean, ``scale``, ``sensitivity`` and
    ``mechanism`` are dicts with keys ``sum`` and ``count``.
    """

    query: Query
    answer: Any
    answers: np.ndarray
    scale: Any
    sensitivity: Any
    epsilon: float
    delta: float
    interval: Any
    intervals: np.ndarray
    mechanism: Any

    def to_dict(self) -> dict[str, Any]:
        """Exactly: ``answer``, ``answers``, ``scale``, ``sensitivity``, ``epsilon``,
        ``delta``, ``interval``, ``mechanism``. A histogram's ``answer`` is a list of
        ``{"cell": {column: value}, "answer": n}``, its ``interval`` one [lower, upper] per
        cell in the same order."""
        answer_value = self.answer
        if isinstance(answer_value, pd.Series):
            answer_value = _cell_records(answer_value.index, answer_value.to_numpy())
        return plain(
            {
                "answer": answer_value,
                "answers": self.answers,
                "scale": self.scale,
                "sensitivity": self.sensitivity,
                "epsilon": self.epsilon,
                "delta": self.delta,
                "interval": np.asarray(self.interval),
                "mechanism": self.mechanism,
            }
        )


# --------------------------------------------------------------------------- validation


def _check_relation(relation: str) -> str:
    return ParameterError.unless_one_of(
        relation,
        RELATIONS,
        "The neighbouring relation must be one of {choices}, got {value!r}.",
        code="dp.bad_relation",
        relation=relation,
    )


def _check_columns(
    frame: pd.DataFrame, columns: Iterable[Any], *, table: str | None = None
) -> list[Any]:
    """``columns`` as a list when ``frame`` has every one, else ParameterError
    ``dp.unknown_column`` naming the missing ones (and the ``table``, when named)."""
    columns = list(columns)
    missing = [column for column in columns if column not in frame.columns]
    if not missing:
        return columns
    listed = ", ".join(map(str, missing))
    if table is None:
        raise ParameterError(
            f"Unknown column(s): {listed}.", code="dp.unknown_column", columns=missing
        )
    raise ParameterError(
        f"The {table} has no column(s) {listed}.",
        code="dp.unknown_column",
        columns=missing,
        table=table,
    )


def _check_draws(draws: Any) -> int:
    if (
        isinstance(draws, bool)
        or not isinstance(draws, (int, np.integer))
        or not 1 <= draws <= MAX_DRAWS
    ):
        raise ParameterError(
            f"The number of draws must be an integer from 1 to {MAX_DRAWS:,}, got {draws!r}.",
            code="dp.bad_draws",
            draws=draws,
        )
    return int(draws)


def _check_clamp(lower: Any, upper: Any) -> tuple[float, float]:
    low, high = as_float(lower), as_float(upper)
    if not (math.isfinite(low) and math.isfinite(high) and low < high):
        raise ParameterError(
            f"The clamping bounds must be finite numbers with lower < upper, "
            f"got [{lower!r}, {upper!r}].",
            code="dp.bad_clamp",
            lower=lower,
            upper=upper,
        )
    return low, high


# --------------------------------------------------------------------------- queries


def _matches(series: pd.Series, value: Any) -> pd.Series:
    """Rows of ``series`` equal to ``value`` (or to any of a list of values); a value
    given as text is compared as a number when the column is numeric."""
    values = list(value) if isinstance(value, (list, tuple, set, frozenset)) else [value]
    if pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series):
        converted = []
        for item in values:
            if isinstance(item, str):
                with contextlib.suppress(ValueError):
                    item = float(item)
            converted.append(item)
        values = converted
    return series.isin(values)


def where_mask(frame: pd.DataFrame, where: Mapping[Any, Any] | None) -> np.ndarray:
    """Boolean mask of the rows meeting every condition ``column == value`` of ``where``
    (a list of values means any of them); all rows when ``where`` is empty."""
    mask = np.ones(len(frame), dtype=bool)
    if not where:
        return mask
    for column in _check_columns(frame, where.keys()):
        mask &= _matches(frame[column], where[column]).to_numpy(dtype=bool)
    return mask


def count(
    frame: pd.DataFrame,
    where: Mapping[Any, Any] | None = None,
    *,
    relation: str = "add_remove",
) -> Query:
    """The number of rows meeting ``where``. Adding or removing one record changes it by at
    most 1, and so does replacing one: Δ₁ = Δ₂ = 1."""
    relation = _check_relation(relation)
    true_count = int(where_mask(frame, where).sum())
    return Query(
        "count",
        true_count,
        1.0,
        1.0,
        "int",
        relation,
        {"where": dict(where or {})},
    )


def histogram(
    frame: pd.DataFrame,
    columns: Iterable[Any],
    *,
    relation: str = "add_remove",
    domain: Mapping[Any, Iterable[Any]] | None = None,
) -> Query:
    """Counts of every combination of the columns' values (the cross product of the
    values present in each column, empty cells included, so that the set of released cells
    does not reveal which combinations occur).

    The cells are disjoint, so one added or removed record changes one count by 1:
    Δ₁ = Δ₂ = 1; replacing a record moves it between two cells: Δ₁ = 2, Δ₂ = √2.
    ``domain`` fixes a column's values publicly (rows outside it are not counted): use it
    when the values present in the data are themselves sensitive.
    """
    relation = _check_relation(relation)
    columns = _check_columns(frame, columns)
    if not columns:
        raise ParameterError(
            "A histogram needs at least one column.", code="dp.no_columns", columns=[]
        )
    domain = dict(domain or {})
    levels, codes = [], []
    for column in columns:
        values = frame[column]
        if column in domain:
            categories = pd.Index(list(domain[column]))
            # each distinct value looked up once (missing is a value: a NaN of the
            # domain counts the missing rows)
            row_codes, uniques = factorize(values)
            column_codes = categories.get_indexer(pd.Index(uniques))[row_codes]
        else:
            column_codes, present = value_codes(values, sort=True)
            categories = pd.Index(present)
            if (column_codes < 0).any():  # missing is a value of its own, the last cell
                categories = categories.append(pd.Index([np.nan]))
                column_codes = np.where(column_codes < 0, len(present), column_codes)
        levels.append(categories)
        codes.append(np.asarray(column_codes, dtype=np.int64))
    shape = tuple(len(level) for level in levels)
    cells = math.prod(shape)
    if cells > MAX_HISTOGRAM_CELLS:
        raise ParameterError(
            f"A histogram over {', '.join(map(str, columns))} would have {cells:,} cells "
            f"(at most {MAX_HISTOGRAM_CELLS:,}); choose fewer or coarser columns.",
            code="dp.histogram_too_large",
            cells=cells,
            limit=MAX_HISTOGRAM_CELLS,
        )
    inside = np.logical_and.reduce([column_codes >= 0 for column_codes in codes])
    flat = np.ravel_multi_index([column_codes[inside] for column_codes in codes], shape)
    counts = code_counts(flat, cells).astype(np.int64)
    if len(columns) == 1:
        index = pd.Index(levels[0], name=columns[0])
    else:
        index = pd.MultiIndex.from_product(levels, names=columns)
    double = relation == "replace"
    return Query(
        "histogram",
        pd.Series(counts, index=index, name="count"),
        2.0 if double else 1.0,
        math.sqrt(2.0) if double else 1.0,
        "int",
        relation,
        {"columns": columns},
    )


def _clamped_total(
    frame: pd.DataFrame, column: Any, low: float, high: float, where: Mapping[Any, Any] | None
) -> float | int:
    """Σ clamp(x, a, b) over the rows meeting ``where``, a missing value counting as a (any
    fixed value inside [a, b] keeps the sensitivity of the clamped sum). One pass over
    the column and one copy: integers with integer bounds are clamped and summed exactly
    as integers; other numbers as floats, clipped to [a, b] and summed, a second pass
    (``fmax``) taking a missing value (NaN) to a only when the total shows one; without
    ``where`` no mask is applied."""
    series = frame[_check_columns(frame, [column])[0]]
    if not (pd.api.types.is_numeric_dtype(series) or pd.api.types.is_bool_dtype(series)):
        raise ParameterError(
            f"Column {column} is not numeric; a sum or mean needs numbers.",
            code="dp.not_numeric",
            column=column,
        )
    rows = where_mask(frame, where) if where else None
    if (
        pd.api.types.is_integer_dtype(series.dtype)
        and isinstance(series.dtype, np.dtype)  # not a nullable Int64 with missing cells
        and low == math.floor(low)
        and high == math.floor(high)
        and max(abs(low), abs(high)) * max(len(series), 1) < 2.0**62  # no overflow
    ):
        values = series.to_numpy()
        if rows is not None:
            values = values[rows]
        return int(np.clip(values, int(low), int(high)).sum(dtype=np.int64))
    values = series.to_numpy(dtype=np.float64, na_value=np.nan)
    if rows is not None:
        values = values[rows]
    clamped = np.clip(values, low, high)  # a NaN stays NaN, and so does the total
    total = float(clamped.sum())
    if math.isnan(total):  # a missing value: fmax takes it to a
        np.fmax(clamped, low, out=clamped)
        total = float(clamped.sum())
    return total


def _sum_kind(frame: pd.DataFrame, column: Any, low: float, high: float) -> str:
    series = frame[column]
    integral = (
        (pd.api.types.is_integer_dtype(series) or pd.api.types.is_bool_dtype(series))
        and low == math.floor(low)
        and high == math.floor(high)
    )
    return "int" if integral else "real"


def clamped_sum(
    frame: pd.DataFrame,
    column: Any,
    lower: float,
    upper: float,
    *,
    where: Mapping[Any, Any] | None = None,
    relation: str = "add_remove",
) -> Query:
    """Σ clamp(x, a, b) over the column, on the rows meeting ``where`` (all rows by
    default; a missing value counts as a).

    Adding or removing one record changes the sum by its clamped value: Δ = max(|a|, |b|);
    replacing one record changes it by at most b − a (SPEC §10), whether or not the record
    meets ``where``. Integer columns with integer bounds give an integer query (the
    geometric mechanism applies).
    """
    relation = _check_relation(relation)
    low, high = _check_clamp(lower, upper)
    total = _clamped_total(frame, column, low, high, where)
    kind = _sum_kind(frame, column, low, high)
    sensitivity = (high - low) if relation == "replace" else max(abs(low), abs(high))
    return Query(
        "sum",
        round(total) if kind == "int" else total,
        sensitivity,
        sensitivity,
        kind,
        relation,
        {"column": column, "lower": lower, "upper": upper, "where": dict(where or {})},
    )


class RowScope(TypedDict, total=False):
    """The keyword options :func:`mean` passes on to its two queries, as
    :func:`clamped_sum` and :func:`count` take them: the rows meeting ``where`` (all
    rows by default) and the neighbouring ``relation`` (``"add_remove"`` by default)."""

    where: Mapping[Any, Any] | None
    relation: str


def mean(
    frame: pd.DataFrame, column: Any, lower: float, upper: float, **scope: Unpack[RowScope]
) -> Query:
    """The mean of the clamped column over the rows meeting ``where``, released as
    noisy sum / noisy count.

    Two queries: :func:`clamped_sum` and :func:`count` (``where`` and ``relation``
    passed to both), each answered with half of the budget (ε/2, and δ/2 for the
    Gaussian mechanism), so by sequential composition the mean costs ε (and δ). The
    ratio is clipped to [a, b] (post-processing costs nothing).
    """
    total = clamped_sum(frame, column, lower, upper, **scope)
    rows = count(frame, **scope)
    true_mean = total.true_answer / rows.true_answer if rows.true_answer else math.nan
    return Query(
        "mean", true_mean, None, None, "real", total.relation, dict(total.params), (total, rows)
    )


# --------------------------------------------------------------------------- answers


def _cell_records(index: pd.Index, values: np.ndarray) -> list[dict[str, Any]]:
    names = list(index.names)
    records = []
    for cell, value in zip(index.tolist(), values.tolist(), strict=True):
        cell = cell if isinstance(cell, tuple) else (cell,)
        records.append({"cell": dict(zip(names, cell, strict=True)), "answer": value})
    return records


def _mechanism_for(query: Query, mechanism: str | None) -> str:
    if mechanism is None:
        return "geometric" if query.kind == "int" else "laplace"
    if mechanism not in MECHANISMS:
        raise ParameterError(
            f"Unknown mechanism {mechanism!r}; choose one of {', '.join(MECHANISMS)}.",
            code="dp.bad_mechanism",
            mechanism=mechanism,
        )
    if mechanism == "geometric" and (
        query.kind != "int" or query.sensitivity_l1 != math.floor(query.sensitivity_l1)
    ):
        raise ParameterError(
            f"The geometric mechanism needs an integer query with an integer sensitivity; "
            f"{query.label} is real-valued: use laplace or gaussian.",
            code="dp.not_integer",
            query=query.label,
        )
    return mechanism


def _delta_for(mechanism: str, delta: Any) -> float:
    if mechanism == "gaussian":
        if delta is None:
            raise ParameterError(
                "The Gaussian mechanism needs δ (for example 1e-6).",
                code="dp.bad_delta",
                delta=delta,
            )
        return check_delta(delta)
    if delta not in (None, 0, 0.0):
        raise ParameterError(
            f"The {mechanism} mechanism is pure ε-DP and takes no δ; δ is for gaussian.",
            code="dp.bad_delta",
            delta=delta,
        )
    return 0.0


@dataclass(frozen=True)
class _Noise:
    answers: np.ndarray  # (draws, *shape)
    mechanism: NoiseMechanism


def _add_noise(
    query: Query, mechanism: str, epsilon: float, delta: float, draws: int, rng: Any
) -> _Noise:
    """``draws`` noisy answers of ``query`` by ``mechanism`` at (ε, δ): the Gaussian with
    the L2 sensitivity, the others with the L1 one."""
    truth = query.true_answer
    value = truth.to_numpy() if isinstance(truth, pd.Series) else np.asarray(truth)
    size = (draws, *value.shape)
    if draws * value.size > MAX_DRAWN_VALUES:
        raise ParameterError(
            f"{draws:,} draws of {value.size:,} cells would be {draws * value.size:,} noisy "
            f"values, above the limit of {MAX_DRAWN_VALUES:,}: ask for at most "
            f"{max(MAX_DRAWN_VALUES // max(value.size, 1), 1):,} draws, or fewer or coarser "
            "columns.",
            code="dp.too_many_draws",
            draws=draws,
            cells=int(value.size),
            limit=MAX_DRAWN_VALUES,
        )
    l2 = mechanism == "gaussian"
    sensitivity = float(query.sensitivity_l2 if l2 else query.sensitivity_l1)
    noise = noise_mechanism(mechanism, sensitivity, epsilon, delta)
    return _Noise(np.asarray(noise.release(value, size=size, rng=rng)), noise)


def _first(query: Query, row: np.ndarray) -> Any:
    if isinstance(query.true_answer, pd.Series):
        return pd.Series(row, index=query.true_answer.index, name="answer")
    return row.item()


def answer(
    query: Query,
    mechanism: str | None = None,
    *,
    epsilon: float,
    delta: float | None = None,
    draws: int = 1,
    seed: Any = None,
) -> NoisyAnswer:
    """Answer ``query`` with ``mechanism`` ("laplace", "geometric" or "gaussian"; by
    default geometric for integer queries, laplace otherwise) at privacy ε (and δ for
    the Gaussian mechanism), ``draws`` independent times.

    Scales: Laplace and geometric b = Δ₁/ε (the geometric noise has
    P(z) ∝ exp(−|z|/b)); Gaussian σ from the analytic Gaussian mechanism with Δ₂.
    The 95 % interval is answer ± (Δ₁/ε)·ln(20) for Laplace, ± the smallest integer k with
    P(|Z| > k) ≤ 5 % for geometric, ± 1.96σ for Gaussian.
    """
    epsilon = check_epsilon(epsilon)
    draws = _check_draws(draws)
    rng = generator(seed)
    if query.parts:
        return _answer_mean(query, mechanism, epsilon, delta, draws, rng)
    mechanism = _mechanism_for(query, mechanism)
    delta = _delta_for(mechanism, delta)
    noise = _add_noise(query, mechanism, epsilon, delta, draws, rng)
    half_width = noise.mechanism.half_width(1 - CONFIDENCE)
    intervals = np.stack([noise.answers - half_width, noise.answers + half_width], axis=-1)
    return NoisyAnswer(
        query=query,
        answer=_first(query, noise.answers[0]),
        answers=noise.answers,
        scale=noise.mechanism.scale,
        sensitivity=noise.mechanism.sensitivity,
        epsilon=epsilon,
        delta=delta,
        interval=intervals[0],
        intervals=intervals,
        mechanism=mechanism,
    )


def _answer_mean(
    query: Query, mechanism: str | None, epsilon: float, delta: Any, draws: int, rng: Any
) -> NoisyAnswer:
    """Noisy sum / noisy count, each at ε/2 (δ/2). The 95 % interval combines a 97.5 %
    interval of each part (union bound): with S ∈ [S_lo, S_hi] and C ∈ [C_lo, C_hi],
    C_lo ≥ 1, the mean S/C lies between the extreme ratios of those corners; when C_lo < 1
    it is only known to lie in [a, b]."""
    total_query, count_query = query.parts
    sum_mechanism = _mechanism_for(total_query, mechanism)
    count_mechanism = _mechanism_for(count_query, mechanism)
    uses_gaussian = "gaussian" in (sum_mechanism, count_mechanism)
    delta = _delta_for("gaussian" if uses_gaussian else sum_mechanism, delta)
    half_epsilon, half_delta = epsilon / 2.0, delta / 2.0
    beta = (1 - CONFIDENCE) / 2.0
    parts, scales, sensitivities = [], {}, {}
    for name, part, part_mechanism in (
        ("sum", total_query, sum_mechanism),
        ("count", count_query, count_mechanism),
    ):
        part_delta = half_delta if part_mechanism == "gaussian" else 0.0
        # each part's interval at 97.5 % so that both hold together with probability ≥ 95 %
        noise = _add_noise(part, part_mechanism, half_epsilon, part_delta, draws, rng)
        scales[name], sensitivities[name] = noise.mechanism.scale, noise.mechanism.sensitivity
        parts.append((noise.answers.astype(float), noise.mechanism.half_width(beta)))
    (sums, sum_width), (counts, count_width) = parts
    low, high = _check_clamp(query.params["lower"], query.params["upper"])
    means = np.clip(sums / np.maximum(counts, 1.0), low, high)
    sum_lo, sum_hi = sums - sum_width, sums + sum_width
    count_lo, count_hi = counts - count_width, counts + count_width
    known = count_lo >= 1.0
    safe_lo = np.where(known, count_lo, 1.0)
    corners = np.stack([sum_lo / safe_lo, sum_lo / count_hi, sum_hi / safe_lo, sum_hi / count_hi])
    lower_bound = np.where(known, np.clip(corners.min(axis=0), low, high), low)
    upper_bound = np.where(known, np.clip(corners.max(axis=0), low, high), high)
    intervals = np.stack([lower_bound, upper_bound], axis=-1)
    return NoisyAnswer(
        query=query,
        answer=float(means[0]),
        answers=means,
        scale=scales,
        sensitivity=sensitivities,
        epsilon=epsilon,
        delta=delta,
        interval=intervals[0],
        intervals=intervals,
        mechanism={"sum": sum_mechanism, "count": count_mechanism},
    )
