"""Distance-based record linkage: the linkage attack on perturbed and synthetic releases.

Exact linkage (:mod:`privcore.attacks.linkage`) joins a person with the released classes
whose cells contain the person's values. A perturbed release changes the values —
microaggregation publishes means, noise moves every number — so no released cell
contains a true value, and exact linkage finds nobody: "0 re-identified" says nothing
about the release. The attacker of distance-based record linkage (DBRL; Pagliuca &
Seri 1999, Domingo-Ferrer & Torra 2001, as sdcMicro and μ-Argus measure it) links each
person to the **nearest** released record instead:

- the categorical quasi-identifiers must be equal (a perturbed category is a different
  category: the person's record is then out of reach);
- among those records, the distance is Euclidean on the numeric quasi-identifiers,
  each standardized by the original column's mean and standard deviation
  (z = (x − μ_j)/S_j, S_j with n − 1; a column with S_j = 0 is left out);
- the person is **re-identified** when the nearest released record is theirs and no
  other lies as near: the link is certain, as a unique match is in the exact join. With
  t records tied at the least distance (a group of k identical class means) the
  attacker who picks one at random is right with probability 1/t: the mean of these
  chances is the ``expected`` share, the counterpart of the exact join's baseline. The
  re-identified share comes with its 95 % Wilson interval (Wilson 1927), and so does the
  share of people whose own record is among the nearest (``linked_to_own``).

Frequency sets (SPEC §9): with ``weights`` row i of the release stands for
``weights[i]`` records identical in every column and target row j for ``counts[j]``
people; a tie then counts records (the sum of the weights of the tied rows), and every
count counts people — the figures of the expanded tables.

**Interval disclosure** (sdcMicro's ``dRisk``, Templ, Kowarik & Meindl 2015): a
record's numeric values are disclosed when each original value x_ij lies within
``p`` standard deviations of its released value, |x_ij − x'_ij| ≤ p·S_j (p = 0.05 by
default); the share of records whose every numeric quasi-identifier is disclosed, with
its Wilson interval. It needs the rows paired (record i is released row i).

The nearest records are found with a k-d tree (:class:`scipy.spatial.cKDTree`) over the
standardized numbers plus one coordinate per categorical combination spaced further
apart than any two records of one combination can be, so no neighbour crosses
combinations; ties are counted by a second query within the least distance.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from privcore.attacks.keys import comparable_codes, comparable_codes_of_both
from privcore.classes import code_counts, combine_codes, distinct_rows, factorize, reduce_runs
from privcore.core.jsonsafe import plain
from privcore.data.cells import numeric_cells, require_paired_rows
from privcore.errors import ParameterError, RoleError
from privcore.matching import RollCodes

__all__ = ["DEFAULT_INTERVAL", "distance_linkage", "interval_disclosure", "wilson"]

#: Interval disclosure: a value is disclosed within this many standard deviations.
DEFAULT_INTERVAL = 0.05
_Z95 = 1.959963984540054


def wilson(successes: float, trials: int) -> tuple[float, float]:
    """The 95 % Wilson score interval of a proportion ``successes``/``trials``:
    (p̂ + z²/2n ± z·√(p̂(1−p̂)/n + z²/4n²)) / (1 + z²/n), z = 1.96; (0, 1) for no trial."""
    if trials <= 0:
        return 0.0, 1.0
    p = min(max(successes / trials, 0.0), 1.0)
    z2 = _Z95 * _Z95
    centre = p + z2 / (2 * trials)
    half = _Z95 * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials))
    scale = 1 + z2 / trials
    return max(0.0, (centre - half) / scale), min(1.0, (centre + half) / scale)


def _numbers(values: pd.Series) -> np.ndarray:
    return numeric_cells(values)  # a top/bottom code ">=90" read as 90


def _scales(
    original: pd.DataFrame, numeric: Sequence[str], weights: np.ndarray | None = None
) -> list[tuple[str, float, float]]:
    """(column, mean, standard deviation with n − 1) of each numeric QI of ``original``
    (its rows standing for ``weights`` records each, when given) that has a finite,
    positive spread; the others (constant, or beyond the largest float) are left out."""
    out = []
    for column in numeric:
        x = _numbers(original[column])
        finite = np.isfinite(x)
        w = np.ones(len(x)) if weights is None else np.asarray(weights, dtype=np.float64)
        x, w = x[finite], w[finite]
        n = float(w.sum())
        if n < 2:
            continue
        with np.errstate(over="ignore", invalid="ignore"):  # ±1e308: no finite spread
            mean = float((w * x).sum() / n)
            spread = math.sqrt(float((w * (x - mean) ** 2).sum()) / (n - 1))
        if spread > 0 and math.isfinite(spread):
            out.append((column, mean, spread))
    return out


def _z(table: pd.DataFrame, scales: Sequence[tuple[str, float, float]]) -> np.ndarray:
    """``table``'s scaled columns as z-scores (NaN where a cell is no number)."""
    if not scales:
        return np.zeros((len(table), 0))
    return np.column_stack([(_numbers(table[c]) - mu) / sd for c, mu, sd in scales])


def _blocks(
    targets: pd.DataFrame,
    release: pd.DataFrame,
    categorical: Sequence[str],
    target_codes: RollCodes | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """One code per row of each table for its combination of categorical QIs (values
    compared as values: 42 = "42.0"), the same code for the same combination; the
    targets' columns read already (``target_codes``) are keyed by their distinct values."""
    n = len(targets)
    if not categorical:
        return np.zeros(n, dtype=np.int64), np.zeros(len(release), dtype=np.int64)
    known = {}
    if target_codes is not None and target_codes.rows == n:
        known = dict(zip(target_codes.qi, target_codes.codes, strict=True))
    rest = [c for c in categorical if c not in known]
    both = pd.concat([targets[rest], release[rest]], ignore_index=True) if rest else None
    codes = [
        np.concatenate(comparable_codes_of_both(targets[c], known[c], release[c]))
        if c in known
        else comparable_codes(both[c])[0]
        for c in categorical
    ]
    key = factorize(combine_codes(codes, [int(c.max()) + 1 for c in codes]))[0]
    return key[:n], key[n:]


def distance_linkage(
    release: pd.DataFrame,
    targets: pd.DataFrame,
    target_records: np.ndarray,
    qi: Sequence[str],
    numeric: Sequence[str],
    *,
    original: pd.DataFrame,
    weights: np.ndarray | None = None,
    counts: np.ndarray | None = None,
    target_codes: RollCodes | None = None,
) -> dict[str, Any]:
    """DBRL of ``targets`` (the attacker's people: their true QI values) against
    ``release`` (module docstring).

    ``target_records``: for each target, the release row that is their own record (−1:
    not in the data set; such people are linked but never re-identified); ``numeric``:
    the QIs compared by distance (the others must be equal); ``original``: the table
    whose columns give the means and standard deviations (the data set; with
    ``weights``, the frequency set aligned with ``release``). ``weights`` (records per
    release row) and ``counts`` (people per target row) make both frequency sets.
    ``target_codes``: the targets' QI columns already read
    (:func:`~privcore.matching.read_roll` of a roll of targets).

    Returns ``targets`` (people in the data set), ``reidentified`` (their nearest
    released record unique and their own), ``share`` and its ``interval``,
    ``linked_to_own`` (their own record among the nearest) with ``linked_share`` and
    its interval, ``expected`` (Σ 1/t over the targets whose own record is among the t
    nearest records) and ``expected_share``, ``unreachable`` (targets with no released
    record of their categorical values), ``numeric_used`` and ``categorical_equal``.
    """
    qi = [str(q) for q in qi]
    records = _checked_targets(release, targets, target_records, qi)
    row_weights = None if weights is None else np.asarray(weights, dtype=np.float64)
    people = (
        np.ones(len(targets), dtype=np.float64)
        if counts is None
        else np.asarray(counts, dtype=np.float64)
    )
    numeric = [c for c in qi if c in set(numeric)]
    categorical = [c for c in qi if c not in numeric]
    scales = _scales(original, numeric, row_weights)
    points, queries, reachable = _embedding(release, targets, scales, categorical, target_codes)
    chance, linked, unique_own = _nearest_own(points, queries, reachable, records, row_weights)
    in_data = records >= 0
    n_targets = float(people[in_data].sum())
    found = float(people[in_data & unique_own].sum())
    own_linked = float(people[in_data & linked].sum())
    expected = float((people * chance)[in_data].sum())
    share = found / n_targets if n_targets else 0.0
    return plain(
        {
            "method": "dbrl",
            "targets": int(n_targets),
            "reidentified": int(found),
            "share": share,
            "interval": list(wilson(found, int(n_targets))),
            "linked_to_own": int(own_linked),
            "linked_share": own_linked / n_targets if n_targets else 0.0,
            "linked_interval": list(wilson(own_linked, int(n_targets))),
            "expected": expected,
            "expected_share": expected / n_targets if n_targets else 0.0,
            "unreachable": int(people[in_data & ~reachable].sum()),
            "numeric_used": [c for c, _, _ in scales],
            "categorical_equal": categorical,
        }
    )


def _checked_targets(
    release: pd.DataFrame, targets: pd.DataFrame, target_records: Any, qi: Sequence[str]
) -> np.ndarray:
    """The targets' own records as int64, one per target; both tables must hold the QIs."""
    missing = [q for q in qi if q not in release.columns or q not in targets.columns]
    if missing:
        raise RoleError(
            f"Both tables need the quasi-identifier(s) {', '.join(missing)}.",
            code="linkage.missing_columns",
            table="release",
            columns=missing,
        )
    records = np.asarray(target_records, dtype=np.int64)
    if len(records) != len(targets):
        raise ParameterError("One own record per target is needed.", code="linkage.bad_records")
    return records


def _embedding(
    release: pd.DataFrame,
    targets: pd.DataFrame,
    scales: Sequence[tuple[str, float, float]],
    categorical: Sequence[str],
    target_codes: RollCodes | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(released points, target points, whether a released record shares the target's
    categorical combination): the z-scores of the scaled columns (a released cell that
    is no number placed farther than any number) and one coordinate per categorical
    combination, spaced further apart than any two records of one combination can be, so
    no neighbour crosses combinations (module docstring)."""
    n_used = max(len(scales), 1)
    z_release, z_targets = _z(release, scales), _z(targets, scales)
    block_t, block_r = _blocks(targets, release, categorical, target_codes)
    # a released number that is no number (blanked) is as far as possible: its record is
    # reached only by the categorical block (distance to it: the block's largest)
    span = 1.0
    if scales:
        finite = np.concatenate(
            [z_release[np.isfinite(z_release)], z_targets[np.isfinite(z_targets)]]
        )
        span = max(float(finite.max() - finite.min()) if len(finite) else 1.0, 1.0)
    far = 2.0 * span * math.sqrt(n_used) + 1.0
    z_release = np.where(np.isfinite(z_release), z_release, far)
    z_targets = np.where(np.isfinite(z_targets), z_targets, 0.0)
    gap = 4.0 * far * math.sqrt(n_used) + 1.0
    points = np.column_stack([z_release, block_r.astype(np.float64) * gap])
    queries = np.column_stack([z_targets, block_t.astype(np.float64) * gap])
    size = int(max(block_t.max(initial=-1), block_r.max(initial=-1))) + 1
    reachable = code_counts(block_r, size)[block_t] > 0  # a released record shares it
    return points, queries, reachable


def _nearest_own(
    points: np.ndarray,
    queries: np.ndarray,
    reachable: np.ndarray,
    records: np.ndarray,
    weights: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per target: the chance 1/t of picking its own record among the t records tied
    nearest (0 when its own is not among them), whether its own is among them, and
    whether it is the only one (t = 1, in records: ``weights`` per released row)."""
    chance = np.zeros(len(queries))
    linked = np.zeros(len(queries), dtype=bool)
    unique_own = np.zeros(len(queries), dtype=bool)
    if not (len(points) and reachable.any()):
        return chance, linked, unique_own
    from scipy.spatial import cKDTree  # here: scipy.spatial costs every command 0.4 s

    # the tree holds each released point once, with the records it stands for (a joint
    # frequency set repeats a released row for each original row it pairs with)
    distinct, inverse = distinct_rows(points)
    counts = code_counts(inverse, len(distinct), weights=weights).astype(np.float64)
    tree = cKDTree(distinct)
    rows = np.flatnonzero(reachable)
    nearest, _ = tree.query(queries[rows], k=1)
    # ties: every released record within the least distance (a relative slack for
    # rounding); the own row's distance decides whether it is among them
    slack = 1e-9 * np.maximum(nearest, 1.0)
    tied = _tied_records(tree, queries[rows], nearest + slack, counts)
    own = records[rows]
    has_own = own >= 0
    own_distance = np.full(len(rows), np.inf)
    own_distance[has_own] = np.linalg.norm(points[own[has_own]] - queries[rows[has_own]], axis=1)
    hit = own_distance <= nearest + slack
    tied = np.maximum(tied, 1.0)
    chance[rows] = np.where(hit, 1.0 / tied, 0.0)
    linked[rows] = hit
    unique_own[rows] = hit & (tied <= 1.0)
    return chance, linked, unique_own


#: Neighbours read per query at once when counting ties; a query with this many within
#: its radius is counted again, alone, by a ball query.
_TIES_AT_ONCE = 8


def _tied_records(
    tree: Any, queries: np.ndarray, radius: np.ndarray, counts: np.ndarray
) -> np.ndarray:
    """Per query: the records within its ``radius`` (the sum of the ``counts`` of the
    tree's distinct points within it). The nearest :data:`_TIES_AT_ONCE` points of every
    query are read in one vectorized query; only a query all of whose nearest are within
    its radius (more ties may follow) is counted by a ball query of its own."""
    k = min(_TIES_AT_ONCE, tree.n)
    distance, index = tree.query(queries, k=k)
    distance, index = distance.reshape(len(queries), k), index.reshape(len(queries), k)
    within = distance <= radius[:, None]
    tied = np.where(within, counts[np.minimum(index, tree.n - 1)], 0.0).sum(axis=1)
    more = np.flatnonzero(within[:, -1]) if k < tree.n else np.empty(0, dtype=np.int64)
    if len(more):
        hits = tree.query_ball_point(queries[more], r=radius[more])
        lengths = np.fromiter((len(h) for h in hits), dtype=np.int64, count=len(hits))
        flat = np.fromiter((i for h in hits for i in h), dtype=np.int64, count=int(lengths.sum()))
        starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
        tied[more] = reduce_runs(counts[flat], starts, "sum")
    return tied


def interval_disclosure(
    original: pd.DataFrame,
    release: pd.DataFrame,
    numeric: Sequence[str],
    *,
    within: float = DEFAULT_INTERVAL,
) -> dict[str, Any] | None:
    """The share of records whose every numeric QI lies within ``within`` standard
    deviations of its released value (rows paired; module docstring), with its Wilson
    interval; None without a numeric QI that has a spread."""
    if not (isinstance(within, (int, float)) and 0 <= within <= 1e6):
        raise ParameterError(
            f"The interval must be a number of at least 0, not {within!r}.",
            code="linkage.bad_interval",
        )
    require_paired_rows(original, release, "interval disclosure")
    disclosed = np.ones(len(original), dtype=bool)
    used = []
    for column in numeric:
        x, y = _numbers(original[column]), _numbers(release[column])
        finite = x[np.isfinite(x)]
        spread = float(np.std(finite, ddof=1)) if len(finite) > 1 else 0.0
        if not (spread > 0 and math.isfinite(spread)):
            continue
        used.append(column)
        with np.errstate(invalid="ignore"):
            disclosed &= np.abs(x - y) <= within * spread  # NaN (no number): not disclosed
    if not used:
        return None
    count = int(disclosed.sum())
    n = len(original)
    low, high = wilson(count, n)
    return {
        "within_sd": within,
        "records": n,
        "disclosed": count,
        "share": count / n if n else 0.0,
        "interval": [low, high],
        "columns": used,
    }
