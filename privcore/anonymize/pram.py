"""Invariant PRAM on the categorical quasi-identifiers (Gouweleeuw, Kooiman, Willenborg &
de Wolf 1998; sdcMicro ``pram``).

The post-randomization method changes each record's category c of a column to c' with
probability R[c, c'] from a transition matrix R published with the data. *Invariant*
PRAM chooses R with the observed frequencies as its stationary distribution (π·R = π),
so the expected frequencies of the released column equal the original ones and
frequency tables need no correction. Per categorical QI, with its L categories (the
present values; a missing cell stays missing) and their observed shares π (sdcMicro's
construction, ``pd`` and ``alpha``):

1. P: each category i keeps itself with probability d_i, drawn uniformly in [pd, 1]
   (``pram_retain`` = pd), and moves to each other category with (1 − d_i)/(L − 1);
2. Q, the backward matrix: Q[k, j] = P[j, k]·π_j / Σ_l π_l·P[l, k] — the probability
   that a record released as k had category j;
3. R = P·Q, invariant: (π·P·Q)_j = Σ_k (πP)_k·P[j, k]·π_j/(πP)_k = π_j·Σ_k P[j, k] = π_j;
4. R_α = α·R + (1 − α)·I (``pram_alpha`` = α; α = 0: nothing changes), still invariant.

Example: L = 2, π = (0.75, 0.25), d = (0.8, 0.8): P = [[0.8, 0.2], [0.2, 0.8]],
πP = (0.65, 0.35), Q = [[12/13, 1/13], [3/7, 4/7]], R = [[0.8242, 0.1758],
[0.5275, 0.4725]] (π·R = π), and with α = 0.5: R_α = [[0.9121, 0.0879], [0.2637,
0.7363]]. (:func:`invariant_matrix` computes R_α as a dense matrix.)

Sampling without the L × L matrix (any number of categories, O(n log L)): a record with
category i keeps it with probability 1 − α; otherwise it draws k from row i of P (i with
probability d_i, else a uniform other category), then its released category j from row
k of Q (k itself with probability π_k·d_k / (πP)_k, else a category j ≠ k with
probability ∝ π_j·t_j, t_j = (1 − d_j)/(L − 1), by the inverse of the cumulative sums
with k's own share left out). Drawing k from P then j from Q draws j from R = P·Q
exactly. Each column is randomized on its own, with the seeded numpy Generator.

PRAM is for categories: it randomizes the categorical QIs and releases the numeric ones
unchanged (a note says so). When every QI holds numbers — categories coded as numbers,
a sex as 1/2, a ZIP code read as a number — their values are the categories. Nothing is
suppressed; PRAM does
not aim at a class size (:mod:`.perturbative`): the release reports the k it has — and
a class of it can hold records that were not alike (that is PRAM's protection: a
released category may be a changed one, with a known probability).
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from privcore.anonymize.base import Release
from privcore.anonymize.perturbative import (
    categorical_qis,
    checked_option,
    columns_in_turn,
    release_changed,
)
from privcore.anonymize.problem import Call, shared_signature
from privcore.classes import code_counts, value_codes
from privcore.core.notes import Note

TITLE = "PRAM"


def transition_diagonal(n_categories: int, retain: float, rng: np.random.Generator) -> np.ndarray:
    """d_i: each category's probability of keeping itself in P, uniform in [retain, 1]
    (sdcMicro's ``pd``); 1 for a column with a single category."""
    if n_categories <= 1:
        return np.ones(n_categories)
    return rng.uniform(retain, 1.0, n_categories)


def invariant_matrix(shares: np.ndarray, diagonal: np.ndarray, alpha: float) -> np.ndarray:
    """R_α = α·P·Q + (1 − α)·I for category shares π and P's diagonal d (dense, L × L;
    module docstring, steps 1–4). π·R_α = π up to rounding."""
    shares = np.asarray(shares, dtype=np.float64)
    diagonal = np.asarray(diagonal, dtype=np.float64)
    size = len(shares)
    if size <= 1:
        return np.ones((size, size))
    off = (1.0 - diagonal) / (size - 1)
    forward = np.repeat(off[:, None], size, axis=1)
    np.fill_diagonal(forward, diagonal)
    released_shares = shares @ forward  # (πP)_k
    backward = (forward * shares[:, None]).T / released_shares[:, None]  # Q[k, j]
    return alpha * (forward @ backward) + (1.0 - alpha) * np.eye(size)


def pram_codes(
    codes: np.ndarray,
    shares: np.ndarray,
    diagonal: np.ndarray,
    alpha: float,
    rng: np.random.Generator,
) -> np.ndarray:
    """Released category codes for ``codes`` (0..L-1, -1 = missing, kept): one draw per
    record from row ``codes[r]`` of R_α (module docstring, "Sampling"), vectorized."""
    size = len(shares)
    out = codes.copy()
    rows = np.flatnonzero(codes >= 0)
    if size <= 1 or not len(rows):
        return out
    i = codes[rows]
    moving = rng.random(len(rows)) < alpha
    i = i[moving]
    m = len(i)
    off = (1.0 - diagonal) / (size - 1)
    # stage 1: k from row i of P
    stay = rng.random(m) < diagonal[i]
    other = rng.integers(0, size - 1, m)
    k = np.where(stay, i, other + (other >= i))
    # stage 2: j from row k of Q
    released_shares = shares * diagonal + (shares @ off - shares * off)  # (πP)_k
    keep = rng.random(m) < shares[k] * diagonal[k] / released_shares[k]
    mass = shares * off  # π_j·t_j, drawn from with k's own share left out
    cumulative = np.cumsum(mass)
    before = cumulative[k] - mass[k]  # where k's share starts
    u = rng.random(m) * (cumulative[-1] - mass[k])
    u = np.where(u >= before, u + mass[k], u)
    j = np.minimum(np.searchsorted(cumulative, u, side="right"), size - 1)
    j = np.where(j == k, np.minimum(j + 1, size - 1), j)  # rounding at k's edge only
    out[rows[moving]] = np.where(keep, k, j)
    return out


@shared_signature
def pram(call: Call, *, pram_retain: float = 0.8, pram_alpha: float = 0.5) -> Release:
    """Invariant PRAM of each categorical QI (module docstring).

    ``pram_retain`` (sdcMicro ``pd``) in [0, 1]: the least probability of a category
    keeping itself in P; ``pram_alpha`` (sdcMicro ``alpha``) in [0, 1]: the share of the
    invariant matrix mixed with the identity. Deterministic for a given ``seed``.
    ``params`` gain both, ``perturbed`` (the columns) and ``changed`` (records whose
    category changed, per column).
    """
    started = time.perf_counter()
    call = call.records(TITLE)
    retain = checked_option("pram_retain", pram_retain, low=0.0, high=1.0)
    alpha = checked_option("pram_alpha", pram_alpha, low=0.0, high=1.0)
    problem = call.prepare(need_hierarchies=False)
    columns = categorical_qis(problem) or list(problem.qi)
    rng = np.random.default_rng(problem.seed)
    released = problem.frame.copy()
    changed: dict[str, int] = {}
    for column, original in columns_in_turn(call, problem, columns, TITLE):
        codes, categories = value_codes(original)
        size = len(categories)
        counts = code_counts(codes[codes >= 0], size)
        shares = counts / max(int(counts.sum()), 1)
        diagonal = transition_diagonal(size, retain, rng)
        new = pram_codes(codes, shares, diagonal, alpha, rng)
        moved = new != codes
        changed[column] = int(moved.sum())
        if moved.any():
            values = pd.Series(np.asarray(categories, dtype=object)[np.maximum(new, 0)])
            released[column] = original.mask(moved, values.set_axis(original.index))
    kept = [c for c in problem.qi if c not in set(columns)]
    notes = [
        Note(
            "pram.randomized",
            f"Categories of {', '.join(columns)} were randomized by invariant PRAM "
            f"(pd = {retain:g}, alpha = {alpha:g}): the expected frequencies are the "
            "original ones.",
            columns=", ".join(columns),
            retain=f"{retain:g}",
            alpha=f"{alpha:g}",
        )
    ]
    if not categorical_qis(problem):
        notes.append(
            Note(
                "pram.numbers_as_categories",
                f"Every quasi-identifier holds numbers: the values of {', '.join(columns)} "
                "were randomized as categories (another value of the column, not a nearby "
                "number).",
                columns=", ".join(columns),
            )
        )
    if kept:
        notes.append(
            Note(
                "pram.numeric_kept",
                f"PRAM changes categories only: {', '.join(kept)} released unchanged.",
                columns=", ".join(kept),
            )
        )
    return release_changed(
        call,
        problem,
        released,
        algorithm="pram",
        title=TITLE,
        started=started,
        numeric=False,
        params={
            "pram_retain": retain,
            "pram_alpha": alpha,
            "perturbed": columns,
            "changed": changed,
        },
        notes=notes,
    )
