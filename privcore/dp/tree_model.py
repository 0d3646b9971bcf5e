"""A distribution over discrete columns that factors along a tree, fitted to noisy
marginals: the estimation step of MST (:mod:`privcore.dp.mst`).

The model is P(x) ∝ exp(Σ_e θ_e(x_a, x_b)) over the edges e = (a, b) of a spanning tree
of the columns. Its marginals come exactly from belief propagation on the tree
(sum-product in log space). It is fitted as Private-PGM fits a graphical model
(McKenna, Sheldon & Miklau 2019, "Graphical-model based estimation and inference for
differential privacy", Algorithm 1): mirror descent on the potentials θ minimizing

    L(μ) = Σ_m ‖N·μ_m − y_m‖² / (2σ_m²)

over the measurements m (a column's or an edge's noisy counts y_m with noise σ_m), μ_m
the model's marginal and N the total, estimated from the measurements. The step is
halved when the loss does not fall and grows by a tenth when it does. Rows are then
drawn from the fitted model column by column along the tree: the root's values shared
out over the rows in proportion to its marginal, then each child's within each group of
rows with one parent value, in proportion to the conditional, the counts rounded
(:func:`rounded_draw`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import logsumexp

from privcore.classes import code_counts

__all__ = [
    "Measurement",
    "TreeModel",
    "estimate_total",
    "fit_tree",
    "mirror_descent",
    "rounded_draw",
    "synthetic_rows",
]


@dataclass(frozen=True)
class Measurement:
    """Noisy counts ``counts`` of the marginal of ``clique`` (one column, or the two
    columns of a tree edge, in that order: counts of shape (|a|, |b|) flattened), with
    Gaussian noise of standard deviation ``sigma``."""

    clique: tuple[str, ...]
    counts: np.ndarray
    sigma: float


def synthetic_rows(total: float, rows: int | None = None) -> int:
    """How many records to draw: ``rows`` when given, else the model's noisy total N
    rounded; at least 1 and at most the installation's row limit (``PRIVCORE_MAX_ROWS``).
    At a tiny ε the noisy total can be far above the data's size (ε = 10⁻⁶ on 2,000
    rows gave 696,090); drawing fewer is post-processing and costs no privacy."""
    from privcore.config import limits

    wanted = int(rows) if rows else round(total)
    return max(1, min(wanted, limits().max_rows))


def estimate_total(measurements: Sequence[Measurement]) -> float:
    """N, the number of records: the measurements' sums averaged with weights 1/(k·σ²),
    k the cells summed (the variance of a sum of k noisy cells is k·σ²); at least 1."""
    weights = np.array([1.0 / (m.counts.size * m.sigma**2) for m in measurements])
    sums = np.array([float(np.sum(m.counts)) for m in measurements])
    return max(1.0, float(np.sum(weights * sums) / np.sum(weights)))


class TreeModel:
    """The potentials θ of a tree over ``columns`` (sizes ``sizes``) with ``edges``
    (parent, child) in the order of a walk from the first column; its marginals by
    belief propagation."""

    def __init__(
        self, sizes: Mapping[str, int], edges: Sequence[tuple[str, str]], total: float
    ) -> None:
        self.sizes = dict(sizes)
        self.edges = _oriented(list(self.sizes), edges)
        self.total = float(total)
        self.theta = {e: np.zeros((self.sizes[e[0]], self.sizes[e[1]])) for e in self.edges}

    # ----------------------------------------------------------------- inference

    def edge_marginals(self, theta: Mapping | None = None) -> dict[tuple[str, str], np.ndarray]:
        """P(x_a, x_b) of every edge (each sums to 1), by sum-product on the tree."""
        theta = self.theta if theta is None else theta
        up: dict[str, np.ndarray] = {}  # child's message to its parent, over the parent
        below: dict[str, np.ndarray] = {c: np.zeros(self.sizes[c]) for c in self.sizes}
        for parent, child in reversed(self.edges):  # leaves first
            up[child] = logsumexp(theta[(parent, child)] + below[child][None, :], axis=1)
            below[parent] = below[parent] + up[child]
        down: dict[str, np.ndarray] = {}  # everything outside the child's subtree
        out = {}
        for parent, child in self.edges:  # root first
            outside = below[parent] - up[child] + down.get(parent, 0.0)
            joint = theta[(parent, child)] + outside[:, None] + below[child][None, :]
            out[(parent, child)] = np.exp(joint - logsumexp(joint))
            down[child] = logsumexp(theta[(parent, child)] + outside[:, None], axis=0)
        return out

    def marginal(self, clique: tuple[str, ...], edges: Mapping | None = None) -> np.ndarray:
        """The model's marginal of one column or of a tree edge (in the clique's order)."""
        edges = self.edge_marginals() if edges is None else edges
        if len(clique) == 1:
            column = clique[0]
            for (a, b), table in edges.items():
                if column == a:
                    return table.sum(axis=1)
                if column == b:
                    return table.sum(axis=0)
            return np.full(self.sizes[column], 1.0 / self.sizes[column])  # a lone column
        a, b = clique
        if (a, b) in edges:
            return edges[(a, b)]
        return edges[(b, a)].T

    # ----------------------------------------------------------------- fitting

    def _loss_and_gradient(self, measurements, theta):
        edges = self.edge_marginals(theta)
        loss, gradient = 0.0, {e: np.zeros_like(t) for e, t in theta.items()}
        n = self.total
        for m in measurements:
            mu = self.marginal(m.clique, edges).ravel()
            diff = n * mu - m.counts
            loss += float(diff @ diff) / (2.0 * m.sigma**2)
            g = (n * diff / m.sigma**2).reshape(self.marginal(m.clique, edges).shape)
            _add_gradient(gradient, m.clique, g)
        return loss, gradient

    def fit(self, measurements: Sequence[Measurement], iterations: int = 1000) -> float:
        """Mirror descent on θ (the module's loss), ``iterations`` steps; the final loss."""
        sigma_min = min(m.sigma for m in measurements)
        step = sigma_min**2 / self.total**2  # 1 / the loss's curvature in probabilities
        self.theta, loss = mirror_descent(
            self.theta,
            lambda theta: self._loss_and_gradient(measurements, theta),
            lambda theta, gradient, size: {e: t - size * gradient[e] for e, t in theta.items()},
            step,
            iterations,
        )
        return loss

    # ----------------------------------------------------------------- sampling

    def sample(self, rows: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        """``rows`` records drawn from the model: codes per column (rounded, ancestral
        along the tree: the root's marginal, then each child given its parent)."""
        edges = self.edge_marginals()
        columns = list(self.sizes)
        root = self.edges[0][0] if self.edges else columns[0]
        codes = {
            root: rounded_draw(self.marginal((root,), edges)[None, :], np.zeros(rows, int), rng)
        }
        for parent, child in self.edges:
            joint = edges[(parent, child)]
            conditional = joint / np.maximum(joint.sum(axis=1, keepdims=True), 1e-300)
            codes[child] = rounded_draw(conditional, codes[parent], rng)
        for column in columns:  # a column in no edge: its own marginal
            if column not in codes:
                codes[column] = rounded_draw(
                    self.marginal((column,), edges)[None, :], np.zeros(rows, int), rng
                )
        return codes


def _oriented(columns: list[str], edges: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """The edges as (parent, child) in the order of a breadth-first walk of the tree from
    the first column that has an edge."""
    neighbours: dict[str, list[str]] = {c: [] for c in columns}
    for a, b in edges:
        neighbours[a].append(b)
        neighbours[b].append(a)
    return breadth_first(neighbours, columns)


def breadth_first(neighbours: Mapping[Any, Sequence[Any]], starts: Sequence[Any]) -> list:
    """The edges of a forest as (parent, child), walked breadth-first from each of
    ``starts`` in turn that is not reached yet and has a neighbour."""
    oriented, seen = [], set()
    for start in starts:
        if start in seen or not neighbours[start]:
            continue
        seen.add(start)
        queue = [start]
        while queue:
            node = queue.pop(0)
            for other in neighbours[node]:
                if other not in seen:
                    seen.add(other)
                    oriented.append((node, other))
                    queue.append(other)
    return oriented


def _add_gradient(gradient, clique, g) -> None:
    """Add a measurement's gradient (over its clique's cells) to the edge that holds it."""
    if len(clique) == 2:
        a, b = clique
        if (a, b) in gradient:
            gradient[(a, b)] += g
        else:
            gradient[(b, a)] += g.T
        return
    for (a, b), table in gradient.items():  # a column's: on one edge holding it
        if clique[0] == a:
            table += g[:, None]
            return
        if clique[0] == b:
            table += g[None, :]
            return


def mirror_descent(
    theta: Any,
    loss_and_gradient: Callable[[Any], tuple[float, Any]],
    shift: Callable[[Any, Any, float], Any],
    step: float,
    iterations: int,
) -> tuple[Any, float]:
    """``iterations`` steps of mirror descent on potentials ``theta``: each tries
    ``shift(theta, gradient, step)`` (θ − step·∇L over the marginals), kept when the loss
    does not rise (the step then grows by a tenth), else dropped (the step halved).
    The potentials reached and their loss."""
    loss, gradient = loss_and_gradient(theta)
    for _ in range(iterations):
        trial = shift(theta, gradient, step)
        trial_loss, trial_gradient = loss_and_gradient(trial)
        if trial_loss <= loss:
            theta, loss, gradient = trial, trial_loss, trial_gradient
            step *= 1.1
        else:
            step *= 0.5
    return theta, loss


def rounded_draw(table: np.ndarray, given: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One cell per row, the rows of each ``given`` group shared out in proportion to
    that group's row of ``table`` and rounded (largest remainders), in a random order
    within the group — the counts of a group of n rows are n·p rounded rather than a
    multinomial draw (Private-PGM's "round" synthesis), so the records keep the model's
    marginals without the sampling noise. All rows at once: no loop over groups."""
    table = np.asarray(table, dtype=float)
    groups, cells = table.shape
    mass = table.sum(axis=1, keepdims=True)
    shares = np.where(mass > 0, table / np.where(mass > 0, mass, 1.0), 1.0 / cells)
    sizes = code_counts(given, groups)
    wanted = sizes[:, None] * shares
    counts = np.floor(wanted).astype(np.int64)
    short = sizes - counts.sum(axis=1)  # units each group still has to place
    order = np.argsort(-(wanted - counts) + rng.random(wanted.shape) * 1e-9, axis=1)
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.arange(cells)[None, :].repeat(groups, axis=0), axis=1)
    counts += (rank < short[:, None]).astype(np.int64)
    values = np.repeat(np.tile(np.arange(cells), groups), counts.ravel())  # group-major
    placed = np.lexsort((rng.random(given.size), given))  # rows by group, shuffled within
    out = np.empty(given.size, dtype=np.int64)
    out[placed] = values
    return out


def fit_tree(
    sizes: Mapping[str, int],
    edges: Sequence[tuple[str, str]],
    measurements: Sequence[Measurement],
    iterations: int = 1000,
) -> TreeModel:
    """The :class:`TreeModel` on ``edges`` fitted to ``measurements`` (N estimated from
    them: :func:`estimate_total`)."""
    model = TreeModel(sizes, edges, estimate_total(measurements))
    model.fit(measurements, iterations)
    return model
