"""A distribution over discrete columns that factors along a junction tree, fitted to
noisy marginals of any sets of columns: the estimation step of AIM (:mod:`privcore.dp.aim`).

Structure
---------
The measured sets of columns (cliques) define a graph: two columns are joined when some
clique holds both. It is made chordal by eliminating the columns one by one, each time
the one whose elimination adds the fewest edges (greedy min-fill; Koller & Friedman 2009,
"Probabilistic graphical models", §9.4.3); the maximal cliques C_1 … C_k of the chordal
graph are joined by a maximum spanning tree on the sizes of their intersections, which is
a junction tree (ibid., Theorem 10.4): every set of columns measured lies in one C_i.

Model and inference
-------------------
P(x) ∝ exp(Σ_i θ_i(x_{C_i})), one log-potential table per maximal clique. Its clique
marginals μ_i come exactly from two passes of sum-product messages on the tree, in log
space (ibid., §10.2). The marginal of a set of columns inside one C_i sums μ_i; of any
other set r, P = Π_i μ_i / Π_(i,j) μ_(C_i ∩ C_j) summed over the columns outside r
(:func:`numpy.einsum` chooses the order of the sums).

Fitting
-------
As Private-PGM (McKenna, Sheldon & Miklau 2019, "Graphical-model based estimation and
inference for differential privacy", Algorithm 1): mirror descent on θ minimizing

    L(μ) = Σ_m ‖N·μ_m − y_m‖² / (2σ_m²)

over the measurements m (noisy counts y_m of clique r_m with noise σ_m), μ_m the model's
marginal of r_m and N the total (:func:`privcore.dp.tree_model.estimate_total`). The
gradient over r_m's cells is added, broadcast, to the potential of a C_i holding r_m.
The step is halved when the loss does not fall and grows by a tenth when it does. With
cliques of two columns along a tree this is :class:`privcore.dp.tree_model.TreeModel`.

Sampling
--------
Records are drawn along the tree from its first clique: that clique's columns from μ_1,
then each next clique's new columns given the separator it shares with its parent —
each group of rows with the same separator values shared out in proportion to the
conditional and rounded (:func:`privcore.dp.tree_model.rounded_draw`), on all rows at
once.
"""

from __future__ import annotations

import itertools
import string
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
from scipy.special import logsumexp

from privcore.dp.tree_model import (
    Measurement,
    breadth_first,
    estimate_total,
    mirror_descent,
    rounded_draw,
)

__all__ = [
    "JunctionTreeModel",
    "fit_graphical",
    "junction_cliques",
    "model_megabytes",
    "summed_onto",
]


# --------------------------------------------------------------------------- structure


def junction_cliques(
    columns: Sequence[str], cliques: Iterable[Sequence[str]]
) -> list[tuple[str, ...]]:
    """The maximal cliques of the triangulated graph of ``cliques`` over ``columns``
    (greedy min-fill elimination), each in the order of ``columns``."""
    order = {c: i for i, c in enumerate(columns)}
    neighbours: dict[str, set[str]] = {c: set() for c in columns}
    for clique in cliques:
        for a, b in itertools.combinations(clique, 2):
            neighbours[a].add(b)
            neighbours[b].add(a)
    left = set(columns)
    found: list[frozenset[str]] = []
    while left:

        def fill(column: str) -> tuple[int, int]:
            near = neighbours[column] & left
            missing = sum(1 for a, b in itertools.combinations(near, 2) if b not in neighbours[a])
            return missing, order[column]

        column = min(left, key=fill)
        near = neighbours[column] & left
        for a, b in itertools.combinations(near, 2):
            neighbours[a].add(b)
            neighbours[b].add(a)
        found.append(frozenset({column, *near}))
        left.remove(column)
    maximal = [c for c in found if not any(c < other for other in found)]
    unique = list(dict.fromkeys(maximal))
    return [tuple(sorted(c, key=order.__getitem__)) for c in unique]


def _tree(cliques: Sequence[tuple[str, ...]]) -> list[tuple[int, int]]:
    """The junction tree's edges (parent, child) between clique indices: a maximum
    spanning tree on the intersections' sizes (Kruskal), walked breadth-first from 0."""
    pairs = sorted(
        itertools.combinations(range(len(cliques)), 2),
        key=lambda p: -len(set(cliques[p[0]]) & set(cliques[p[1]])),
    )
    part = list(range(len(cliques)))

    def root(i: int) -> int:
        while part[i] != i:
            i = part[i]
        return i

    joined: dict[int, list[int]] = {i: [] for i in range(len(cliques))}
    for a, b in pairs:
        if root(a) != root(b):
            part[root(a)] = root(b)
            joined[a].append(b)
            joined[b].append(a)
    return breadth_first(joined, [0])


def model_megabytes(
    sizes: Mapping[str, int], cliques: Iterable[Sequence[str]], columns: Sequence[str] | None = None
) -> float:
    """The size in MB (2²⁰ bytes, 8 per cell) of the potentials of the junction tree
    of ``cliques``: what a model holding them needs."""
    columns = list(sizes) if columns is None else list(columns)
    tables = junction_cliques(columns, cliques)
    cells = sum(int(np.prod([sizes[c] for c in clique])) for clique in tables)
    return cells * 8 / 2**20


# --------------------------------------------------------------------------- tables


def _aligned(table: np.ndarray, have: Sequence[str], want: Sequence[str]) -> np.ndarray:
    """``table`` over columns ``have`` (a subset of ``want``) transposed and reshaped to
    broadcast over ``want``."""
    present = [c for c in want if c in have]
    moved = np.transpose(table, [list(have).index(c) for c in present])
    shape = [moved.shape[present.index(c)] if c in present else 1 for c in want]
    return moved.reshape(shape)


def summed_onto(table: np.ndarray, have: Sequence[str], keep: Sequence[str]) -> np.ndarray:
    """The sum of ``table`` (over the columns ``have``) onto ``keep``, in ``keep``'s order."""
    axes = tuple(i for i, c in enumerate(have) if c not in keep)
    reduced = table.sum(axis=axes) if axes else table
    left = [c for c in have if c in keep]
    return np.transpose(reduced, [left.index(c) for c in keep])


def _log_summed_onto(table: np.ndarray, have: Sequence[str], keep: Sequence[str]) -> np.ndarray:
    axes = tuple(i for i, c in enumerate(have) if c not in keep)
    reduced = logsumexp(table, axis=axes) if axes else table
    left = [c for c in have if c in keep]
    return np.transpose(reduced, [left.index(c) for c in keep])


class JunctionTreeModel:
    """Log-potentials on the junction tree of ``cliques`` over ``sizes``' columns (see
    the module); ``total``: N, the number of records the model stands for."""

    def __init__(
        self, sizes: Mapping[str, int], cliques: Iterable[Sequence[str]], total: float
    ) -> None:
        self.sizes = dict(sizes)
        self.columns = list(self.sizes)
        measured = [tuple(c) for c in cliques] + [(c,) for c in self.columns]
        self.cliques = junction_cliques(self.columns, measured)
        self.edges = _tree(self.cliques)
        self.total = float(total)
        self.theta = [np.zeros([self.sizes[c] for c in clique]) for clique in self.cliques]

    def warm_start(self, previous: JunctionTreeModel) -> None:
        """Start from ``previous``'s potentials: each of its tables added to a clique of
        this tree holding its columns (the distribution stays the same)."""
        for table, clique in zip(previous.theta, previous.cliques, strict=True):
            home = self._home(clique)
            self.theta[home] = self.theta[home] + _aligned(table, clique, self.cliques[home])

    def _home(self, clique: Sequence[str]) -> int:
        """The index of a (smallest) maximal clique holding every column of ``clique``."""
        holding = [i for i, c in enumerate(self.cliques) if set(clique) <= set(c)]
        if not holding:
            raise ValueError(f"no clique of the model holds {tuple(clique)}")
        return min(holding, key=lambda i: self.theta[i].size)

    # ----------------------------------------------------------------- inference

    def beliefs(self, theta: Sequence[np.ndarray] | None = None) -> list[np.ndarray]:
        """μ_i, each maximal clique's marginal (summing to 1), by sum-product."""
        theta = self.theta if theta is None else theta
        cliques = self.cliques
        children: dict[int, list[int]] = {i: [] for i in range(len(cliques))}
        for parent, child in self.edges:
            children[parent].append(child)
        up: dict[int, np.ndarray] = {}  # child → parent, over their separator (parent's order)
        inside = [np.array(t, dtype=float) for t in theta]
        for parent, child in reversed(self.edges):
            separator = [c for c in cliques[parent] if c in cliques[child]]
            message = _log_summed_onto(inside[child], cliques[child], separator)
            up[child] = message
            inside[parent] = inside[parent] + _aligned(message, separator, cliques[parent])
        full = list(inside)
        for parent, child in self.edges:  # root first: parent's full belief is known
            separator = [c for c in cliques[parent] if c in cliques[child]]
            outside = _log_summed_onto(full[parent], cliques[parent], separator) - up[child]
            full[child] = inside[child] + _aligned(outside, separator, cliques[child])
        return [np.exp(table - logsumexp(table)) for table in full]

    def marginal(
        self, clique: Sequence[str], beliefs: Sequence[np.ndarray] | None = None
    ) -> np.ndarray:
        """The model's probabilities over ``clique``'s columns, in its order."""
        beliefs = self.beliefs() if beliefs is None else beliefs
        clique = list(clique)
        holding = [i for i, c in enumerate(self.cliques) if set(clique) <= set(c)]
        if holding:
            i = min(holding, key=lambda j: beliefs[j].size)
            return summed_onto(beliefs[i], self.cliques[i], clique)
        return self._joined_marginal(clique, beliefs)

    def _joined_marginal(self, clique: list[str], beliefs: Sequence[np.ndarray]) -> np.ndarray:
        """Π μ_i / Π μ_separator, summed onto ``clique`` (the module's formula)."""
        letter = {c: string.ascii_letters[i] for i, c in enumerate(self.columns)}
        operands: list = []
        for table, columns in zip(beliefs, self.cliques, strict=True):
            operands += [table, [letter[c] for c in columns]]
        for parent, child in self.edges:
            separator = [c for c in self.cliques[parent] if c in self.cliques[child]]
            if not separator:
                continue
            mass = summed_onto(beliefs[parent], self.cliques[parent], separator)
            inverse = np.divide(1.0, mass, out=np.zeros_like(mass), where=mass > 0)
            operands += [inverse, [letter[c] for c in separator]]
        inputs = ",".join("".join(o) for o in operands[1::2])
        spec = inputs + "->" + "".join(letter[c] for c in clique)
        return np.einsum(spec, *operands[0::2], optimize="greedy")

    # ----------------------------------------------------------------- fitting

    def _loss_and_gradient(self, measurements: Sequence[Measurement], homes, theta):
        beliefs = self.beliefs(theta)
        n = self.total
        loss, gradient = 0.0, [np.zeros_like(t) for t in theta]
        for m, home in zip(measurements, homes, strict=True):
            mu = summed_onto(beliefs[home], self.cliques[home], m.clique)
            diff = n * mu.ravel() - m.counts
            loss += float(diff @ diff) / (2.0 * m.sigma**2)
            g = (n * diff / m.sigma**2).reshape(mu.shape)
            gradient[home] += _aligned(g, m.clique, self.cliques[home])
        return loss, gradient

    def fit(self, measurements: Sequence[Measurement], iterations: int = 1000) -> float:
        """Mirror descent on θ (the module's loss), ``iterations`` steps; the final loss."""
        homes = [self._home(m.clique) for m in measurements]
        sigma_min = min(m.sigma for m in measurements)
        step = sigma_min**2 / self.total**2  # 1 / the loss's curvature in probabilities
        self.theta, loss = mirror_descent(
            self.theta,
            lambda theta: self._loss_and_gradient(measurements, homes, theta),
            lambda theta, gradient, size: [
                t - size * g for t, g in zip(theta, gradient, strict=True)
            ],
            step,
            iterations,
        )
        return loss

    # ----------------------------------------------------------------- sampling

    def sample(self, rows: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        """``rows`` records drawn from the model: codes per column (the module's order)."""
        beliefs = self.beliefs()
        first = self.cliques[0]
        joint = beliefs[0].ravel()
        drawn = rounded_draw(joint[None, :], np.zeros(rows, dtype=np.int64), rng)
        codes = dict(zip(first, np.unravel_index(drawn, beliefs[0].shape), strict=True))
        for parent, child in self.edges:
            columns = self.cliques[child]
            separator = [c for c in columns if c in self.cliques[parent]]
            new = [c for c in columns if c not in separator]
            table = summed_onto(beliefs[child], columns, [*separator, *new])
            sep_shape = [self.sizes[c] for c in separator]
            new_shape = [self.sizes[c] for c in new]
            table = table.reshape(int(np.prod(sep_shape, dtype=np.int64)), -1)
            given = (
                np.ravel_multi_index([codes[c] for c in separator], sep_shape)
                if separator
                else np.zeros(rows, dtype=np.int64)
            )
            picked = rounded_draw(table, given, rng)
            codes.update(zip(new, np.unravel_index(picked, new_shape), strict=True))
        return {c: np.asarray(codes[c], dtype=np.int64) for c in self.columns}


def fit_graphical(
    sizes: Mapping[str, int],
    measurements: Sequence[Measurement],
    iterations: int = 1000,
    warm: JunctionTreeModel | None = None,
) -> JunctionTreeModel:
    """The :class:`JunctionTreeModel` of the measured cliques fitted to
    ``measurements`` (N estimated from them), started from ``warm``'s potentials (its
    cliques then kept in the structure: a complete set of columns stays inside one
    maximal clique of any triangulation)."""
    cliques = [m.clique for m in measurements]
    if warm is not None:  # its cliques stay whole, so its potentials carry over
        cliques += list(warm.cliques)
    model = JunctionTreeModel(sizes, cliques, estimate_total(measurements))
    if warm is not None:
        model.warm_start(warm)
    model.fit(measurements, iterations)
    return model
