"""A differentially private release of a table, and its comparison with a k-anonymous
release of the same data on the same queries (SPEC §10).

What is released
----------------
For quasi-identifiers QI_1 … QI_m and one sensitive attribute SA: the m two-way marginals
QI_i × SA — the number of records with each (value of QI_i, value of SA), the combinations
that are zero in truth included — and the SA marginal made consistent with them.

The domain of each column (the values present in the data; a missing value is a value of
its own, listed last) is taken as public, as in the usual DP-release setting: the noise
protects the counts, not the list of values that exist. A column whose values are
themselves sensitive (rare free-text values, exact incomes) should be generalized or
binned to a public list of values first.

Privacy
-------
Each marginal is a histogram over disjoint cells: one added or removed record changes one
count by 1 (L1 sensitivity Δ₁ = 1); replacing a record moves it between two cells
(Δ₁ = 2) — :func:`privcore.dp.queries.histogram`. Each of the m marginals is answered
with the discrete Laplace mechanism at ε/m (noise P(Z = z) ∝ exp(−(ε/m)|z|/Δ₁), every
cell an exact integer, so no floating-point leak: Mironov 2012); by sequential composition
the release is ε-DP (Dwork & Roth 2014, Theorem 3.16). The ledger says what each
marginal cost. A table with more than :data:`MAX_MARGINAL_CELLS` cells is refused before
any noise is drawn (``dp.too_many_cells``).

Consistent post-processing
--------------------------
Everything below reads only the noisy counts, so it costs no privacy (post-processing,
Dwork & Roth 2014, Proposition 2.1):

1. SA marginal: the column sums y_i of noisy table i estimate the SA counts, each cell
   with variance |QI_i|·Var(Z_i), Var(Z) = 2q/(1 − q)², q = exp(−ε_i/Δ₁). They are combined
   by their inverse-variance weighted mean ŝ = Σ w_i·y_i / Σ w_i, w_i = 1/(|QI_i|·Var Z_i);
   every table has the same ε_i, so Var Z_i cancels and w_i = 1/|QI_i| (at a large ε,
   Var Z underflows to 0); the estimated number of records is N̂ = max(0, round(Σ_s ŝ_s)).
2. ŝ is projected on the non-negative integers summing to N̂: the Euclidean projection on
   the simplex {x ≥ 0, Σx = N̂} (Duchi, Shalev-Shwartz, Singer & Chandra 2008, "Efficient
   projections onto the l1-ball", Fig. 1), then largest-remainder rounding (the floors,
   plus one for the cells with the largest fractional parts, ties to the first cell, until
   the total is N̂). This gives n_s, the released SA marginal.
3. Each two-way table, column by column (for each SA value s): its noisy column projected
   the same way on the non-negative integers summing to n_s.

Every released table is then non-negative and integer, the SA margin of every two-way
table is the SA marginal, and every table's total is N̂.

Synthesized records
-------------------
For each SA value s, n_s records; within them, the values of QI_i are a random (seeded)
permutation of the multiset that column s of table i gives (value v repeated as often as
its count). The records reproduce every released marginal exactly. What they do not keep:
any relation between two QIs given the SA — QI_i and QI_j are independent given SA in the
records, whatever they were in the data — since no marginal of two QIs was released.

Comparison with a k-anonymous release
-------------------------------------
:func:`compare_releases` asks the same queries of three tables: the count of SA = s, and
of QI_i = v and SA = s, for every cell of the released marginals. True answers come from
the original, DP answers from the released marginals, k-anonymous answers from the
k-anonymous release under the uniform-spread assumption: a released cell that contains c
of the column's domain values (:func:`privcore.data.cells.parse_column`, hierarchy labels
included; a suppressed ``*`` contains the whole domain) counts 1/c for each of them.
Errors: |estimate − true|, and the relative error |estimate − true| / max(true, s) with
floor s = :data:`RELATIVE_ERROR_FLOOR` = 1, so that a cell empty in truth has its absolute
error as relative error instead of an infinite one. For the queries that are zero in truth
(which a release should not make appear populated), the summary counts those each release
answers with more than :data:`ZERO_ANSWER_THRESHOLD` (0.5, i.e. at least one record once
rounded) and their mean absolute error.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from privcore.classes import code_counts
from privcore.config import limits
from privcore.core.jsonsafe import plain
from privcore.data.cells import ColumnCells, parse_column
from privcore.data.hierarchy import Hierarchy
from privcore.dp.budget import Budget
from privcore.dp.mechanisms import DiscreteLaplace
from privcore.dp.parameters import check_epsilon
from privcore.dp.queries import _check_columns, _check_relation
from privcore.dp.released import COUNT_COLUMN, DpRelease, coded_values
from privcore.dp.sampling import generator
from privcore.errors import ParameterError

__all__ = [
    "COUNT_COLUMN",
    "MAX_MARGINAL_CELLS",
    "RELATIVE_ERROR_FLOOR",
    "ZERO_ANSWER_THRESHOLD",
    "Comparison",
    "DpRelease",
    "compare_releases",
    "dp_release",
    "nonnegative_integer_projection",
    "simplex_projection",
]

MAX_MARGINAL_CELLS = 10_000
"""Cells allowed in one two-way marginal (values of the QI × values of the SA). Past it
most cells hold a handful of records, which noise of scale m·Δ₁/ε drowns: generalize or
bin the column first."""
RELATIVE_ERROR_FLOOR = 1.0
"""s in the relative error |estimate − true| / max(true, s)."""
ZERO_ANSWER_THRESHOLD = 0.5
"""A query that is zero in truth counts as answered populated above this estimate."""
_HISTOGRAM_L1 = {"add_remove": 1, "replace": 2}  # L1 sensitivity of a histogram (queries.py)

Progress = Callable[[float, str], None]


# --------------------------------------------------------------------------- projections


def simplex_projection(values: Any, totals: Any) -> np.ndarray:
    """The Euclidean projection of each column of ``values`` (n × c) on
    {x ≥ 0, Σx = t} with t the column's entry of ``totals`` (c,).

    Duchi et al. 2008, Fig. 1: sort the column decreasingly (u), ρ = the largest j with
    u_j − (Σ_{r≤j} u_r − t)/j > 0, θ = (Σ_{r≤ρ} u_r − t)/ρ, x = max(v − θ, 0).
    A column whose total is 0 projects on zeros. All columns at once.
    """
    values = np.asarray(values, dtype=float)
    totals = np.asarray(totals, dtype=float)
    rows, columns = values.shape
    if rows == 0:
        return values.copy()
    ordered = -np.sort(-values, axis=0)
    excess = np.cumsum(ordered, axis=0) - totals
    rank = np.arange(1, rows + 1, dtype=float)[:, None]
    active = ordered - excess / rank > 0
    # the active set is a prefix: ρ = the position of its last True
    rho = rows - np.argmax(active[::-1], axis=0)
    theta = excess[rho - 1, np.arange(columns)] / rho
    projected = np.maximum(values - theta, 0.0)
    projected[:, totals <= 0] = 0.0
    return projected


def largest_remainder(values: Any, totals: Any) -> np.ndarray:
    """Non-negative reals (n × c) whose columns sum to the integers ``totals`` rounded to
    integers with the same sums: the floors, plus one for the ``t − Σ floor`` cells with
    the largest fractional parts (Hamilton's method; ties to the first cell)."""
    values = np.asarray(values, dtype=float)
    totals = np.asarray(totals, dtype=np.int64)
    floors = np.floor(values)
    remainders = values - floors
    short = np.rint(totals - floors.sum(axis=0)).astype(np.int64)
    short = np.clip(short, 0, values.shape[0])  # Σx = t up to rounding: 0 ≤ short ≤ n
    order = np.argsort(-remainders, axis=0, kind="stable")
    ranks = np.empty_like(order)
    positions = np.broadcast_to(np.arange(values.shape[0])[:, None], order.shape)
    np.put_along_axis(ranks, order, positions, axis=0)
    return floors.astype(np.int64) + (ranks < short).astype(np.int64)


def nonnegative_integer_projection(values: Any, totals: Any) -> np.ndarray:
    """Each column of ``values`` projected on the non-negative integers summing to its
    total: :func:`simplex_projection`, then :func:`largest_remainder`."""
    totals = np.asarray(totals, dtype=np.int64)
    return largest_remainder(simplex_projection(values, totals), totals)


# --------------------------------------------------------------------------- the release


@dataclass(frozen=True)
class _CodedColumn:
    """A column's public domain (values present, missing last) and each row's code."""

    name: str
    values: pd.Index
    codes: np.ndarray


def _coded(frame: pd.DataFrame, name: str) -> _CodedColumn:
    codes, values = coded_values(frame[name])
    return _CodedColumn(name, values, codes)


def _roles(frame: pd.DataFrame, qi: Any, sa: Any) -> tuple[tuple[str, ...], str]:
    qi = (qi,) if isinstance(qi, str) else tuple(qi)
    if isinstance(sa, (list, tuple)):
        if len(sa) != 1:
            raise ParameterError(
                "A DP release synthesizes one sensitive attribute; name exactly one.",
                code="dp.one_sa",
                columns=list(sa),
            )
        sa = sa[0]
    if not qi:
        raise ParameterError(
            "A DP release needs at least one quasi-identifier.", code="dp.no_columns", columns=[]
        )
    _check_columns(frame, [*qi, sa])
    if sa in qi:
        raise ParameterError(
            f"{sa} is the sensitive attribute and cannot also be a quasi-identifier.",
            code="dp.sa_in_qi",
            column=sa,
        )
    repeated = sorted({str(c) for c in qi if qi.count(c) > 1})
    if repeated:
        raise ParameterError(
            f"Quasi-identifier(s) named twice: {', '.join(repeated)}; each marginal is "
            "released once.",
            code="dp.repeated_column",
            columns=repeated,
        )
    if COUNT_COLUMN in (*qi, sa):
        raise ParameterError(
            f"A column named '{COUNT_COLUMN}' would clash with the released counts; "
            "rename it first.",
            code="dp.reserved_column",
            column=COUNT_COLUMN,
        )
    return qi, sa


def _check_cells(columns: Mapping[str, _CodedColumn], qi: Sequence[str], sa: str) -> None:
    n_sa = len(columns[sa].values)
    for name in qi:
        n_qi = len(columns[name].values)
        if n_qi * n_sa > MAX_MARGINAL_CELLS:
            raise ParameterError(
                f"The marginal of {name} with {sa} would have {n_qi * n_sa:,} cells "
                f"({n_qi:,} × {n_sa:,} values; at most {MAX_MARGINAL_CELLS:,}): generalize or "
                f"bin {name if n_qi >= n_sa else sa} first (a hierarchy level or ranges), so "
                "that each released count covers enough records to stand out of the noise.",
                code="dp.too_many_cells",
                column=name if n_qi >= n_sa else sa,
                qi=name,
                sa=sa,
                cells=n_qi * n_sa,
                limit=MAX_MARGINAL_CELLS,
            )


def _synthesize(
    columns: Mapping[str, _CodedColumn],
    qi: Sequence[str],
    sa: str,
    tables: Sequence[np.ndarray],
    sa_counts: np.ndarray,
    rng: np.random.Generator,
) -> pd.DataFrame:
    """n_s records per SA value s; each QI's values within them a random permutation of
    the multiset its table's column s gives. Rows shuffled at the end."""
    n_sa = len(sa_counts)
    sa_codes = np.repeat(np.arange(n_sa), sa_counts)  # sorted by SA: block s holds n_s rows
    total = len(sa_codes)
    codes: dict[str, np.ndarray] = {}
    for name, table in zip(qi, tables, strict=True):
        n_qi = table.shape[0]
        # column by column (s-major): value v of QI repeated table[v, s] times in block s
        by_block = np.repeat(np.tile(np.arange(n_qi), n_sa), table.T.ravel())
        within = np.lexsort((rng.random(total), sa_codes))  # shuffled inside each block
        codes[name] = by_block[within]
    order = rng.permutation(total)
    out = {name: columns[name].values.take(codes[name][order]) for name in qi}
    out[sa] = columns[sa].values.take(sa_codes[order])
    return pd.DataFrame(out, columns=[*qi, sa])


def dp_release(
    frame: pd.DataFrame,
    qi: Sequence[str],
    sa: str,
    *,
    epsilon: float,
    seed: Any = 0,
    relation: str = "add_remove",
    progress: Progress | None = None,
    method: str = "marginals",
    delta: float | None = None,
    bounds: Mapping[str, Any] | None = None,
    bins: int | None = None,
) -> DpRelease:
    """Release the two-way marginals QI_i × SA of ``frame`` under ε-DP, made consistent,
    with records synthesized from them (see the module docs for every step) — or, with
    ``method`` "mst" or "aim", records synthesized by that mechanism at (ε, δ) (δ by
    default :data:`privcore.dp.synthesis.DEFAULT_DELTA`; ``bounds`` and ``bins`` for the
    numeric columns: :func:`privcore.dp.synthesis.graphical_release`).

    ``seed`` seeds the noise and the synthesis (the same seed gives the same release).
    Bad input raises :class:`~privcore.errors.ParameterError`: ``dp.bad_epsilon``,
    ``dp.bad_relation``, ``dp.unknown_column``, ``dp.no_columns``, ``dp.one_sa``,
    ``dp.sa_in_qi``, ``dp.repeated_column``, ``dp.reserved_column``, ``dp.empty_table``,
    ``dp.too_many_cells`` — all before any noise is drawn.
    """
    epsilon = check_epsilon(epsilon)
    relation = _check_relation(relation)
    qi, sa = _roles(frame, qi, sa)
    if len(frame) == 0:
        raise ParameterError(
            "The table has no rows: there is nothing to release.", code="dp.empty_table"
        )
    if method != "marginals":
        return _graphical(
            frame, qi, sa, epsilon, seed, relation, progress, method, delta, bounds, bins
        )
    columns = {name: _coded(frame, name) for name in (*qi, sa)}
    _check_cells(columns, qi, sa)
    target = columns[sa]
    n_sa = len(target.values)
    sensitivity = _HISTOGRAM_L1[relation]
    share = epsilon / len(qi)
    budget = Budget(epsilon)
    geometric = DiscreteLaplace(sensitivity, share)
    rng = generator(seed)
    steps = len(qi) + 2
    noisy: list[np.ndarray] = []
    ledger: list[dict[str, Any]] = []
    for step, name in enumerate(qi, 1):
        coded = columns[name]
        n_qi = len(coded.values)
        truth = code_counts(coded.codes * n_sa + target.codes, n_qi * n_sa).reshape(n_qi, n_sa)
        spend = budget.spend(share, label=f"histogram({name}, {sa})")
        noisy.append(np.asarray(geometric.release(truth, rng=rng)))
        spent = budget.spent[0]
        ledger.append(
            {
                **spend.to_dict(),
                "columns": [name, sa],
                "mechanism": "geometric",
                "sensitivity": sensitivity,
                "scale": geometric.scale,
                "cells": n_qi * n_sa,
                "spent": spent,
            }
        )
        if progress is not None:
            progress(
                step / steps,
                f"noisy marginal {name} × {sa}: ε = {share:g} (spent {spent:g} of {epsilon:g})",
            )
    # 1-2: the SA marginal, inverse-variance weighted, on the integers summing to N̂
    # w_i = 1/(|QI_i|·Var Z): every table has the same share of ε, so Var Z cancels (and
    # at a large ε it underflows to 0)
    weights = np.array([1.0 / table.shape[0] for table in noisy])
    margins = np.stack([table.sum(axis=0) for table in noisy]).astype(float)
    sa_estimate = weights @ margins / weights.sum()
    # N̂ at most the installation's row limit: at ε near 10⁻⁶ the noise alone can sum to
    # millions of records (post-processing, no privacy spent)
    total = min(max(0, round(float(sa_estimate.sum()))), limits().max_rows)
    sa_counts = nonnegative_integer_projection(sa_estimate[:, None], [total])[:, 0]
    # 3: each two-way table, column s on the integers summing to n_s
    tables = [nonnegative_integer_projection(table, sa_counts) for table in noisy]
    if progress is not None:
        progress((steps - 1) / steps, "made the marginals consistent; synthesizing records")
    records = _synthesize(columns, qi, sa, tables, sa_counts, rng)
    if progress is not None:
        progress(1.0, f"{total:,} records synthesized")
    from privcore.dp import synthesis  # imports scipy.optimize: when a release is made

    return synthesis.release_of_records(
        records,
        sa,
        (target.values, sa_counts),
        {name: (columns[name].values, table) for name, table in zip(qi, tables, strict=True)},
        epsilon=epsilon,
        ledger=ledger,
        relation=relation,
    )


def _graphical(frame, qi, sa, epsilon, seed, relation, progress, method, delta, bounds, bins):
    from privcore.dp import synthesis  # imports scipy.optimize: when a release is made

    if method not in synthesis.METHODS:
        raise ParameterError(
            f"Unknown release method {method!r}: choose one of {', '.join(synthesis.METHODS)}.",
            code="dp.bad_method",
            method=method,
            choices=list(synthesis.METHODS),
        )
    return synthesis.graphical_release(
        frame,
        qi,
        sa,
        method=method,
        epsilon=epsilon,
        delta=synthesis.DEFAULT_DELTA if delta is None else delta,
        seed=seed,
        relation=relation,
        bounds=bounds,
        bins=synthesis.DEFAULT_BINS if bins is None else bins,
        progress=progress,
    )


# --------------------------------------------------------------------------- comparison


@dataclass(frozen=True)
class Comparison:
    """The same queries answered by the original, a DP release and a k-anonymous release.

    ``per_query``: one row per query — ``query`` (``count(age=39, occupation=Sales)``),
    ``columns`` (tuple), ``cell`` (dict column → value), ``true``, ``dp``, ``k_anon``
    (estimates), ``dp_error``, ``k_anon_error`` (absolute errors), ``dp_relative``,
    ``k_anon_relative`` (|estimate − true| / max(true, 1)) and ``zero_in_truth``; for a
    release by MST or AIM also ``dp_bound`` (its marginal's L1 error bound, or None).
    ``summary``: ``queries``, ``zero_in_truth`` (queries whose true answer is 0),
    ``relative_error_floor``, and per release (``dp``, ``k_anon``): ``mean_abs_error``,
    ``median_abs_error``, ``max_abs_error``, ``mean_relative_error``,
    ``zero_answered_positive`` (zero-in-truth queries answered > 0.5),
    ``zero_mean_error`` (their mean absolute error over the zero-in-truth queries; None
    when there are none); ``dp`` adds ``epsilon`` (and, for MST or AIM, ``bounded`` and
    ``within_bound``: queries with an error bound, the share within it), ``k_anon`` adds
    ``k`` and
    ``rows_outside_domain`` (per column, rows of the k-anonymous release whose cell
    contains no value of the domain: they count in no query).
    """

    per_query: pd.DataFrame
    summary: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """``per_query`` (a list of one dict per query, keys as the columns) and
        ``summary``."""
        return plain({"per_query": self.per_query.to_dict("records"), "summary": self.summary})


def _spread(cells: ColumnCells, domain: pd.Index) -> tuple[np.ndarray, np.ndarray]:
    """Labels × domain weights: 1/c for each of the c domain values a released label
    contains (uniform spread), and which labels contain none."""
    cover = cells.contains(pd.Series(domain)).astype(float)
    size = cover.sum(axis=1)
    empty = size == 0
    weights = np.divide(cover, size[:, None], out=np.zeros_like(cover), where=~empty[:, None])
    return weights, empty


def _error_figures(estimate: np.ndarray, truth: np.ndarray, zero: np.ndarray) -> dict[str, Any]:
    error = np.abs(estimate - truth)
    relative = error / np.maximum(truth, RELATIVE_ERROR_FLOOR)
    return {
        "mean_abs_error": float(error.mean()) if len(error) else 0.0,
        "median_abs_error": float(np.median(error)) if len(error) else 0.0,
        "max_abs_error": float(error.max()) if len(error) else 0.0,
        "mean_relative_error": float(relative.mean()) if len(error) else 0.0,
        "zero_answered_positive": int((estimate[zero] > ZERO_ANSWER_THRESHOLD).sum()),
        "zero_mean_error": float(error[zero].mean()) if zero.any() else None,
    }


def _text(value: Any) -> str:
    return "NA" if value is None or (isinstance(value, float) and math.isnan(value)) else str(value)


@dataclass(frozen=True)
class _Block:
    """The queries on one released marginal: its ``columns``, one ``cells`` entry per
    query (column → value), and the true, DP and k-anonymous answers in the same order."""

    columns: tuple[str, ...]
    cells: list[dict[str, Any]]
    truth: np.ndarray
    dp: np.ndarray
    k_anon: np.ndarray


def _stacked(blocks: Sequence[_Block]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The true, DP and k-anonymous answers of every query, block after block."""
    return (
        np.concatenate([block.truth for block in blocks]),
        np.concatenate([block.dp for block in blocks]),
        np.concatenate([block.k_anon for block in blocks]),
    )


class _UniformSpread:
    """The k-anonymous release's answers under uniform spread (module docs): each released
    label of a column counts 1/c for each of the c domain values it contains. Holds the
    SA labels' weights and answers; :meth:`joint` answers a QI × SA marginal. ``outside``
    counts, per column, the rows whose label contains no value of the domain."""

    def __init__(
        self, k_anon: pd.DataFrame, sa: str, sa_domain: pd.Index, hierarchies: Mapping[str, Any]
    ) -> None:
        self.k_anon, self.hierarchies = k_anon, hierarchies
        self.sa_cells = parse_column(k_anon[sa], hierarchy=hierarchies.get(sa), column=sa)
        self.sa_weights, empty = _spread(self.sa_cells, sa_domain)
        label_rows = code_counts(self.sa_cells.codes, len(self.sa_cells))
        self.outside = {sa: int(label_rows[empty].sum())}
        self.sa_answer = label_rows.astype(float) @ self.sa_weights

    def joint(self, name: str, domain: pd.Index) -> np.ndarray:
        """Wᵀ·L·V: L the rows of each (QI label, SA label) pair, W and V the labels'
        spread weights over the QI's and the SA's domain."""
        cells = parse_column(self.k_anon[name], hierarchy=self.hierarchies.get(name), column=name)
        weights, empty = _spread(cells, domain)
        n_sa_labels = len(self.sa_cells)
        pairs = code_counts(
            cells.codes * n_sa_labels + self.sa_cells.codes, len(cells) * n_sa_labels
        ).reshape(len(cells), n_sa_labels)
        self.outside[name] = int(pairs.sum(axis=1)[empty].sum())
        return weights.T @ pairs.astype(float) @ self.sa_weights


def _check_comparable(
    original: pd.DataFrame, qi: Any, sa: str, dp: DpRelease, k_anon: pd.DataFrame | None
) -> tuple[str, ...]:
    """``qi`` as a tuple, once the QIs and the SA are those of ``dp``
    (``dp.release_mismatch``) and every table has them (``dp.unknown_column``)."""
    qi = (qi,) if isinstance(qi, str) else tuple(qi)
    if qi != tuple(dp.qi) or sa != dp.sa:
        raise ParameterError(
            f"The DP release was made for QIs {', '.join(dp.qi)} and SA {dp.sa}; compare it "
            "on the same columns.",
            code="dp.release_mismatch",
            qi=list(qi),
            sa=sa,
            release_qi=list(dp.qi),
            release_sa=dp.sa,
        )
    _check_columns(original, (*qi, sa), table="original table")
    if k_anon is not None:
        _check_columns(k_anon, (*qi, sa), table="k-anonymous release")
    return qi


def _sa_block(
    dp: DpRelease, sa_domain: pd.Index, sa_true: np.ndarray, spread: _UniformSpread | None
) -> _Block:
    """The count of SA = s for every SA value s."""
    table = dp.marginals[dp.sa]
    n_sa = len(sa_domain)
    released = np.zeros(n_sa, dtype=float)
    released[sa_domain.get_indexer(table[dp.sa])] = table[COUNT_COLUMN].to_numpy()
    return _Block(
        (dp.sa,),
        [{dp.sa: s} for s in sa_domain.tolist()],
        code_counts(sa_true[sa_true >= 0], n_sa).astype(float),
        released,
        np.full(n_sa, np.nan) if spread is None else spread.sa_answer,
    )


def _qi_block(
    original: pd.DataFrame,
    name: str,
    dp: DpRelease,
    sa_domain: pd.Index,
    sa_true: np.ndarray,
    spread: _UniformSpread | None,
) -> _Block:
    """The count of QI = v and SA = s for every cell of the QI's released marginal."""
    sa = dp.sa
    table = dp.marginals[name]
    domain = pd.Index(table[name]).unique()  # not rows: the cells of a released marginal
    n_qi, n_sa = len(domain), len(sa_domain)
    released = np.zeros((n_qi, n_sa), dtype=float)
    released[domain.get_indexer(table[name]), sa_domain.get_indexer(table[sa])] = table[
        COUNT_COLUMN
    ].to_numpy()
    qi_true = domain.get_indexer(original[name])
    inside = (qi_true >= 0) & (sa_true >= 0)
    truth = code_counts(qi_true[inside] * n_sa + sa_true[inside], n_qi * n_sa)
    k_answer = np.full((n_qi, n_sa), np.nan) if spread is None else spread.joint(name, domain)
    return _Block(
        (name, sa),
        [{name: v, sa: s} for v in domain.tolist() for s in sa_domain.tolist()],
        truth.astype(float),
        released.ravel(),
        k_answer.ravel(),
    )


def _per_query(blocks: Sequence[_Block]) -> pd.DataFrame:
    """One row per query of every block (the columns of :class:`Comparison`)."""
    cells = [cell for block in blocks for cell in block.cells]
    truth, dp_estimate, k_estimate = _stacked(blocks)
    floor = np.maximum(truth, RELATIVE_ERROR_FLOOR)
    return pd.DataFrame(
        {
            "query": [
                "count(" + ", ".join(f"{c}={_text(v)}" for c, v in cell.items()) + ")"
                for cell in cells
            ],
            "columns": [block.columns for block in blocks for _ in block.cells],
            "cell": cells,
            "true": truth.astype(np.int64),
            "dp": dp_estimate.astype(np.int64),
            "k_anon": k_estimate,
            "dp_error": np.abs(dp_estimate - truth),
            "k_anon_error": np.abs(k_estimate - truth),
            "dp_relative": np.abs(dp_estimate - truth) / floor,
            "k_anon_relative": np.abs(k_estimate - truth) / floor,
            "zero_in_truth": truth == 0,
        }
    )


def _summary(
    blocks: Sequence[_Block], dp: DpRelease, spread: _UniformSpread | None, k: int | None
) -> dict[str, Any]:
    """The figures of :class:`Comparison`'s ``summary``."""
    truth, dp_estimate, k_estimate = _stacked(blocks)
    zero = truth == 0
    return {
        "queries": len(truth),
        "zero_in_truth": int(zero.sum()),
        "relative_error_floor": RELATIVE_ERROR_FLOOR,
        "dp": {"epsilon": dp.epsilon, **_error_figures(dp_estimate, truth, zero)},
        "k_anon": None
        if spread is None
        else {
            "k": k,
            **_error_figures(k_estimate, truth, zero),
            "rows_outside_domain": {c: n for c, n in spread.outside.items() if n},
        },
    }


def compare_releases(
    original: pd.DataFrame,
    qi: Sequence[str],
    sa: str,
    dp: DpRelease,
    k_anon: pd.DataFrame | None,
    hierarchies: Mapping[str, Hierarchy] | None = None,
    *,
    k: int | None = None,
) -> Comparison:
    """Answer every cell of ``dp``'s marginals from the original (truth), from ``dp`` and
    from the k-anonymous release ``k_anon`` (uniform spread over each generalized cell,
    read with ``hierarchies`` where given), and compare (see the module docs). Without
    ``k_anon`` (None) only the DP release's errors are reported (its columns are NaN and
    its summary None).

    ``qi`` and ``sa`` must be those of ``dp`` (``dp.release_mismatch``); ``k`` is only
    reported. No loop over rows: the k-anonymous answers of a table are Wᵀ·L·V, with L
    the counts of each (QI label, SA label) pair of the release and W, V the spread
    weights of the labels.
    """
    qi = _check_comparable(original, qi, sa, dp, k_anon)
    sa_domain = pd.Index(dp.marginals[sa][sa])
    sa_true = sa_domain.get_indexer(original[sa])
    hierarchies = dict(hierarchies or {})
    spread = None if k_anon is None else _UniformSpread(k_anon, sa, sa_domain, hierarchies)
    blocks = [_sa_block(dp, sa_domain, sa_true, spread)]
    blocks += [_qi_block(original, name, dp, sa_domain, sa_true, spread) for name in qi]
    summary = _summary(blocks, dp, spread, k)
    per_query = _per_query(blocks)
    if dp.bounds:
        _add_bounds(per_query, summary["dp"], dp.bounds)
    return Comparison(per_query=per_query, summary=plain(summary))


def _add_bounds(
    per_query: pd.DataFrame, figures: dict[str, Any], bounds: Sequence[Mapping[str, Any]]
) -> None:
    """MST and AIM: beside each query, ``dp_bound``, the L1 error bound of its marginal
    at its confidence (one count's error is at most the marginal's L1 error,
    |x̂_c − x_c| ≤ ‖x̂ − x‖₁; None where the marginal has no bound); in the summary,
    ``bounded`` (queries with a bound) and ``within_bound`` (the share of them whose
    error is within it)."""
    by_columns = {frozenset(map(str, b["clique"])): b.get("l1") for b in bounds}
    bound = [by_columns.get(frozenset(map(str, c))) for c in per_query["columns"]]
    per_query["dp_bound"] = bound
    known = np.array([b is not None for b in bound], dtype=bool)
    limit = np.array([np.inf if b is None else float(b) for b in bound])
    figures["bounded"] = int(known.sum())
    within = per_query["dp_error"].to_numpy(dtype=float) <= limit
    figures["within_bound"] = float(within[known].mean()) if known.any() else None
