"""Rank swapping of the numeric quasi-identifiers (Moore 1996; sdcMicro ``rankSwap``).

Each numeric QI is swapped on its own. Its present values are ranked (ties in a random
order), and values are exchanged in pairs between records whose ranks differ by at most
w = max(1, ⌊p/100 · m⌋), with p the swap percentage (``swap_percent``) and m the number
of present values: every value of the column is released — each column keeps its
multiset of values exactly, so its mean, variance and distribution are unchanged — but
a value moves to a record of nearby rank. The link between columns (a record's
combination of values, their correlations) is what changes.

Pairs. Moore's algorithm walks the ranks in order and swaps each unswapped value with a
random unswapped value among the next p % of ranks; that walk is sequential. Here the
ranks are cut into consecutive blocks of w + 1 (the cut shifted by a random offset in
0…w, so that no rank is always at a block's edge), and each block is paired at random (a
random permutation of the block, taken two by two; in a block of odd size one value
stays): one vectorized pass per column, the same guarantee — a swapped value moves at
most w ranks, values move in pairs — and nearly every value swapped (Moore leaves a
value unswapped when its window holds no unswapped partner; here only the odd one out
of a block). Missing cells stay missing and take no part. Nothing is suppressed; the
release does not aim at a class size (:mod:`.perturbative`).

Codes are not measurements: a numeric QI that holds codes is kept as it is, with a note
(:mod:`.perturbative`, "Columns").
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from privcore.anonymize.base import Release
from privcore.anonymize.perturbative import (
    checked_option,
    columns_in_turn,
    numeric_problem,
    release_changed,
)
from privcore.anonymize.problem import Call, shared_signature
from privcore.core.notes import Note

TITLE = "Rank swapping"


def swap_partners(values: np.ndarray, percent: float, rng: np.random.Generator) -> np.ndarray:
    """For ``values`` (1-D, no missing), the index each position takes its new value
    from: a permutation made of pairs (and fixed points) whose ranks differ by at most
    w = max(1, ⌊percent/100 · m⌋) (module docstring)."""
    m = len(values)
    source = np.arange(m)
    if m < 2:
        return source
    window = max(1, int(np.floor(percent / 100.0 * m)))
    by_rank = np.lexsort((rng.random(m), values))  # position of rank r: by_rank[r]
    size = window + 1
    offset = int(rng.integers(0, size))
    block = (np.arange(m) + offset) // size  # block of each rank, non-decreasing
    # ranks sorted by block, in random order within it; pairs: places (0,1), (2,3), …
    shuffled = np.lexsort((rng.random(m), block))
    block_sorted = block[shuffled]
    place = np.arange(m) - np.searchsorted(block_sorted, block_sorted, side="left")
    partner = np.where(place % 2 == 0, np.arange(m) + 1, np.arange(m) - 1)
    partner_ok = partner < m
    partner_ok[partner_ok] &= block_sorted[partner[partner_ok]] == block_sorted[partner_ok]
    partner = np.where(partner_ok, partner, np.arange(m))
    # the rank at each place swaps with the rank at its partner place
    rank_from = np.empty(m, dtype=np.int64)
    rank_from[shuffled] = shuffled[partner]
    source[by_rank] = by_rank[rank_from]
    return source


@shared_signature
def rank_swap(call: Call, *, swap_percent: float = 5.0) -> Release:
    """Rank swapping of each numeric QI (module docstring).

    ``swap_percent`` p in (0, 100]: the largest rank distance of a swap as a share of
    the column's present values. Deterministic for a given ``seed``. ``params`` gain
    ``swap_percent``, ``perturbed`` (the columns) and ``swapped`` (records whose value
    changed, per column).
    """
    started = time.perf_counter()
    call = call.records(TITLE)
    percent = checked_option("swap_percent", swap_percent, low=0.0, high=100.0, open_low=True)
    problem, columns, _ = numeric_problem(call, TITLE)  # refuses infinite values
    rng = np.random.default_rng(problem.seed)
    released = problem.frame.copy()
    changed: dict[str, int] = {}
    for column, original in columns_in_turn(call, problem, columns, TITLE):
        present = np.flatnonzero(original.notna().to_numpy())
        values = original.to_numpy()[present]
        source = swap_partners(values.astype(np.float64), percent, rng)
        taken = original.to_numpy(copy=True)
        taken[present] = values[source]
        released[column] = pd.Series(taken, index=original.index, dtype=original.dtype)
        changed[column] = int((values[source] != values).sum())
    notes = [
        Note(
            "rank_swap.swapped",
            f"Values of {', '.join(columns)} were swapped between records at most "
            f"{percent:g} % of the ranks apart; each column keeps its values.",
            columns=", ".join(columns),
            percent=f"{percent:g}",
        ),
    ]
    return release_changed(
        call,
        problem,
        released,
        algorithm="rank_swap",
        title=TITLE,
        started=started,
        params={"swap_percent": percent, "perturbed": columns, "swapped": changed},
        notes=notes,
    )
