"""MST: synthetic records from noisy one- and two-way marginals chosen along a maximum
spanning tree (McKenna, Miklau & Sheldon 2021, "Winning the NIST contest: a scalable and
general approach to differentially private synthetic data", Algorithm 1), under
ρ-zero-concentrated DP.

Given (ε, δ), the budget is ρ = :func:`privcore.dp.zcdp.rho_for` (ε, δ), spent in three
equal parts, each step written to a :class:`~privcore.dp.zcdp.ZcdpLedger`:

1. **one-way marginals**: every column's counts with Gaussian noise, each ρ/(3d) — a
   record changes one cell by 1, so the L2 sensitivity is 1 and σ = √(3d/(2ρ));
2. **selection**: d − 1 pairs of columns, one at a time by the exponential mechanism
   among the pairs that join two parts of the forest so far (Kruskal's order), each with
   ρ/(3(d − 1)) = ε_sel²/8; a pair's score is the L1 distance between its true counts
   and what the one-way measurements predict (columns independent), which a record
   changes by at most 1;
3. **two-way marginals** of the d − 1 pairs chosen, each ρ/(3(d − 1)).

The measurements are fitted by a tree-structured graphical model
(:mod:`privcore.dp.tree_model`), and records are drawn from it. The noise is the
discrete Gaussian on a grid (:func:`privcore.dp.mechanisms.gaussian_zcdp`), exactly
ρ-zCDP. The columns' values must be public (``domain``): the values a column may take,
not read from the data, so that the set of values does not leak. Unlike the reference
implementation, rare values are not merged first.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from privcore.classes import code_counts
from privcore.dp.mechanisms import Exponential, gaussian_zcdp
from privcore.dp.tree_model import Measurement, TreeModel, fit_tree, synthetic_rows
from privcore.dp.zcdp import ZcdpLedger, rho_for
from privcore.errors import ParameterError

__all__ = ["MstResult", "coded_columns", "marginal_counts", "mst", "synthesis_summary"]


@dataclass(frozen=True)
class MstResult:
    """What :func:`mst` made: the ``records`` (the columns' values), the tree's ``edges``
    (the pairs chosen, in order), the ``ledger`` of ρ, the fitted ``model`` and the
    ``measurements`` (noisy counts; with the ledger, all it read of the data)."""

    records: pd.DataFrame
    edges: tuple[tuple[str, str], ...]
    ledger: ZcdpLedger
    model: TreeModel | Any
    measurements: tuple[Measurement, ...]
    epsilon: float
    delta: float

    def to_dict(self) -> dict[str, Any]:
        return synthesis_summary(self, "mst", edges=[list(edge) for edge in self.edges])


def synthesis_summary(result: Any, method: str, **own: Any) -> dict[str, Any]:
    """The summary of a synthesis result (MST's, AIM's): its ``method``, ε, δ, the rows
    made, the ``own`` figures of the method, and the ledger of ρ spent."""
    return {
        "method": method,
        "epsilon": result.epsilon,
        "delta": result.delta,
        "rows": len(result.records),
        **own,
        "budget": result.ledger.to_dict(),
    }


def coded_columns(
    frame: pd.DataFrame, domain: Mapping[str, Sequence[Any]]
) -> dict[str, np.ndarray]:
    """Each column as codes into its public values; a value outside them is refused."""
    codes = {}
    for column, values in domain.items():
        index = pd.Index(list(values))
        found = index.get_indexer(frame[column])
        if (found < 0).any():
            raise ParameterError(
                f"Column {column!r} holds values outside its public domain.",
                code="dp.value_outside_domain",
                column=column,
            )
        codes[column] = found
    return codes


def marginal_counts(
    codes: Mapping[str, np.ndarray], sizes: Mapping[str, int], clique
) -> np.ndarray:
    """The counts of every cell of ``clique``'s marginal (row-major over its columns)."""
    shape = [sizes[c] for c in clique]
    flat = np.ravel_multi_index([codes[c] for c in clique], shape)
    return code_counts(flat, int(np.prod(shape))).astype(float)


def _measure(codes, sizes, clique, rho: float, rng, l2: float = 1.0) -> Measurement:
    """The clique's counts with Gaussian noise of ρ (L2 sensitivity ``l2``)."""
    noisy = np.asarray(gaussian_zcdp(marginal_counts(codes, sizes, clique), l2, rho, rng=rng))
    return Measurement(tuple(clique), noisy, l2 / math.sqrt(2.0 * rho))


def _select(codes, sizes, one_way: Sequence[Measurement], rho_each: float, rng, l1: float = 1.0):
    """d − 1 pairs forming a spanning tree, each by the exponential mechanism (ε_sel =
    √(8ρ), score sensitivity 1) among the pairs joining two parts of the forest."""
    columns = list(sizes)
    total = max(1.0, float(np.mean([m.counts.sum() for m in one_way])))
    predicted = {
        m.clique[0]: np.clip(m.counts, 0, None) / max(np.clip(m.counts, 0, None).sum(), 1e-300)
        for m in one_way
    }
    score = {}
    for a, b in itertools.combinations(columns, 2):
        independent = total * np.outer(predicted[a], predicted[b]).ravel()
        score[(a, b)] = float(np.abs(marginal_counts(codes, sizes, (a, b)) - independent).sum())
    part = {c: c for c in columns}

    def root(c: str) -> str:
        while part[c] != c:
            c = part[c]
        return c

    chosen = []
    pick = Exponential(l1, math.sqrt(8.0 * rho_each))
    for _ in range(len(columns) - 1):
        candidates = [p for p in score if root(p[0]) != root(p[1])]
        index = int(pick.release([score[p] for p in candidates], rng=rng))
        a, b = candidates[index]
        chosen.append((a, b))
        part[root(a)] = root(b)
    return chosen


def mst(
    frame: pd.DataFrame,
    domain: Mapping[str, Sequence[Any]],
    epsilon: float,
    delta: float,
    *,
    rows: int | None = None,
    seed: int | None = None,
    iterations: int = 1000,
    fit: Callable[..., Any] = fit_tree,
    replace: bool = False,
    rho: float | None = None,
) -> MstResult:
    """Synthetic records of ``frame``'s columns named in ``domain`` (column → its public
    values) by MST at (ε, δ)-DP (the module's steps); ``rows``: how many (default the
    model's estimate of the number of records); ``seed``: the noise's and the draws'.
    ``fit(sizes, edges, measurements, iterations)``: the estimation — by default the
    tree model; another estimator (a benchmark's reference) returns an object with the
    same ``total``, ``marginal(clique)`` and ``sample(rows, rng)``. ``replace``:
    neighbours differ by a replaced record (L2 sensitivity √2, score sensitivity 2)
    rather than an added or removed one; ``rho``: spend this ρ instead of (ε, δ)'s."""
    columns = list(domain)
    if len(columns) < 2:
        raise ParameterError("MST needs at least two columns.", code="dp.mst_columns")
    rng = np.random.default_rng(seed)
    codes = coded_columns(frame, domain)
    sizes = {c: len(domain[c]) for c in columns}
    ledger = ZcdpLedger(rho_for(epsilon, delta) if rho is None else rho)
    l2, l1 = (math.sqrt(2.0), 2.0) if replace else (1.0, 1.0)
    third, d = ledger.rho / 3.0, len(columns)
    one_way = []
    for column in columns:
        ledger.spend(f"one-way marginal of {column}", third / d)
        one_way.append(_measure(codes, sizes, (column,), third / d, rng, l2))
    for k in range(d - 1):
        ledger.spend(f"selection of pair {k + 1} of {d - 1}", third / (d - 1))
    edges = _select(codes, sizes, one_way, third / (d - 1), rng, l1)
    two_way = []
    for edge in edges:
        ledger.spend(f"two-way marginal of {edge[0]} × {edge[1]}", third / (d - 1))
        two_way.append(_measure(codes, sizes, edge, third / (d - 1), rng, l2))
    measurements = (*one_way, *two_way)
    model = fit(sizes, edges, measurements, iterations)
    drawn = model.sample(synthetic_rows(model.total, rows), rng)
    records = pd.DataFrame({c: np.asarray(domain[c], dtype=object)[drawn[c]] for c in columns})
    return MstResult(records, tuple(edges), ledger, model, measurements, epsilon, delta)
