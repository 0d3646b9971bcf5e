"""Pairing the rows of a release with its original's (SPEC §3): by a key column, or by
position with a check that the order is not evidently wrong (:func:`check_row_order`:
a shuffled release is refused instead of being measured against the wrong rows)."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from privcore.classes import distinct_tuples, duplicated, factorize
from privcore.core.bipartite import maximum_matching
from privcore.errors import DataFormatError


def align(
    original: pd.DataFrame,
    release: pd.DataFrame,
    key: str | None = None,
    *,
    qi: Sequence[str] = (),
    hierarchies: Mapping[str, Any] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Put the rows of ``original`` and ``release`` one to one (SPEC §3).

    With ``key``: the key column must be in both tables, unique in each, and hold the
    same set of keys; the release is reordered to the original's row order. Without a
    key: rows are matched by position and both tables need the same number of rows;
    given the quasi-identifiers ``qi`` (and their ``hierarchies``), the order itself is
    checked too (:func:`check_row_order`), so a shuffled release is refused instead of
    being measured against the wrong rows. Both results have a fresh 0..n-1 index.
    Anything else raises :class:`DataFormatError` (code ``measure.alignment``, or
    ``measure.row_order``) saying what is wrong.
    """
    if key is None:
        if len(original) != len(release):
            raise DataFormatError(
                f"The original has {len(original)} rows but the release has {len(release)}; "
                f"without a key column rows are matched by position, so both need the same "
                f"number of rows.",
                code="measure.alignment",
                rows=[len(original), len(release)],
            )
        original, release = original.reset_index(drop=True), release.reset_index(drop=True)
        if qi:
            check_row_order(original, release, qi, hierarchies)
        return original, release
    absent = [
        what for what, f in (("original", original), ("release", release)) if key not in f.columns
    ]
    if absent:
        raise DataFormatError(
            f"The key column '{key}' is missing from the {' and the '.join(absent)}.",
            code="measure.alignment",
            key=key,
            tables=absent,
        )
    indexes = {}
    for what, frame in (("original", original), ("release", release)):
        index = pd.Index(frame[key])
        repeated = duplicated(index)
        if repeated.any():
            example = index[repeated][0]
            count = int((~duplicated(index[repeated])).sum())  # distinct repeated keys
            raise DataFormatError(
                f"The key column '{key}' of the {what} is not unique: '{example}' appears "
                f"more than once ({count} key{'s are' if count > 1 else ' is'} repeated).",
                code="measure.alignment",
                key=key,
                table=what,
                value=str(example),
                count=count,
            )
        indexes[what] = index
    position = indexes["release"].get_indexer(indexes["original"])
    only_original = int((position < 0).sum())
    if only_original or len(original) != len(release):
        only_release = len(release) - (len(original) - only_original)
        raise DataFormatError(
            f"The key sets differ: {only_original} key(s) of the original are not in the "
            f"release and {only_release} key(s) of the release are not in the original.",
            code="measure.alignment",
            key=key,
            only_original=only_original,
            only_release=only_release,
        )
    return original.reset_index(drop=True), release.iloc[position].reset_index(drop=True)


ROW_ORDER_SAMPLE = 5_000  # rows checked (seeded sample) when rows are matched by position
ROW_ORDER_PERMUTATIONS = 20  # random pairings that give the chance level
ROW_ORDER_COVER_ROWS = 300  # released rows whose cover by some original row is checked
ROW_ORDER_COVER_TUPLES = 20_000  # distinct original QI tuples they are checked against
ROW_ORDER_EXACT_ROWS = 200  # up to this many rows the order is checked exactly


def check_row_order(
    original: pd.DataFrame,
    release: pd.DataFrame,
    qi: Sequence[str],
    hierarchies: Mapping[str, Any] | None = None,
    *,
    seed: int = 0,
) -> dict[str, tuple[float, float]]:
    """Do the rows of a release (matched by position) hold generalizations of the
    original rows at the same positions? Raises when the order is evidently wrong.

    For each quasi-identifier, on a seeded sample of rows: the share *s* of rows whose
    released cell contains the original value at the same position (a mask, range,
    set, hierarchy label, ``*`` or the value itself — the cell forms of the linkage
    attack), and the share *b* for rows paired at random (mean over
    ``ROW_ORDER_PERMUTATIONS`` permutations). A release in the original order has
    s = 1 for every generalized column. A column looks misaligned when s < 0.9 while
    its cells do contain original values (b ≥ 0.1), s is nearer to chance than to 1
    (s ≤ (b + 1)/2), and position does no better than chance: s < b + max(0.02,
    4·√(b(1−b)/m)) for m sampled rows (a random pairing scatters around b by about
    √(b(1−b)/m)). That alone cannot tell a shuffled generalization from records that
    are not generalizations at all (synthetic records, class means), so the error is
    raised only when the release *is* a generalization of the original in some order:
    at least 90 % of a sample of released rows are covered, on every QI at once, by
    some row of the original. Tables of at most ``ROW_ORDER_EXACT_ROWS`` rows are
    checked exactly instead: refused when fewer than half of the rows are covered at
    their own position although a one-to-one pairing covering every row exists (a
    maximum bipartite matching). Returns {column: (s, b)}; raises
    :class:`DataFormatError` (code ``measure.row_order``) naming the column.
    """
    n = len(release)
    if n < 2 or not qi:
        return {}
    rng = np.random.default_rng(seed)
    if n <= ROW_ORDER_EXACT_ROWS:
        shares = _check_small_table(original, release, qi, hierarchies)
        _check_closeness(original, release, qi, None, rng)
        return shares
    rows = np.sort(rng.choice(n, ROW_ORDER_SAMPLE, replace=False)) if n > ROW_ORDER_SAMPLE else None
    shares: dict[str, tuple[float, float]] = {}
    suspects: list[str] = []
    for column in qi:
        contains, labels, value_codes = _containment(original, release, column, rows, hierarchies)

        def contained(
            order: np.ndarray | None, contains=contains, labels=labels, values=value_codes
        ) -> float:
            return float(contains[labels, values if order is None else values[order]].mean())

        same, chance = _same_and_chance(contained, len(value_codes), rng)
        shares[str(column)] = (same, chance)
        nearer_chance = same <= (chance + 1.0) / 2.0
        if (
            same < 0.9
            and chance >= 0.1
            and nearer_chance
            and same < chance + _margin(chance, len(value_codes))
        ):
            suspects.append(str(column))
    if not (suspects and _covered_share(original, release, qi, hierarchies, rng) >= 0.9):
        # no shuffled generalization: are the released values nearer the original at
        # their own position than at random (a perturbation, a synthesis, a shuffle)?
        _check_closeness(original, release, qi, rows, rng)
        return shares
    column = suspects[0]
    same, chance = shares[column]
    raise _shuffled(
        f"in column '{column}' only {same:.0%} of the released cells contain the original "
        f"value at the same position ({chance:.0%} for rows paired at random).",
        column,
        same,
        chance,
    )


def _column_sample(frame: pd.DataFrame, column: str, rows: np.ndarray | None) -> pd.Series:
    """``frame[column]`` at the sampled ``rows`` (every row when None), indexed 0..m−1."""
    values = frame[column] if rows is None else frame[column].iloc[rows]
    return values.reset_index(drop=True)


def _containment(
    original: pd.DataFrame,
    release: pd.DataFrame,
    column: str,
    rows: np.ndarray | None,
    hierarchies: Mapping[str, Any] | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Which released cell of ``column`` contains which original value, on the sampled
    ``rows`` (every row when None), in the cell forms of the linkage attack
    (:func:`privcore.data.cells.parse_column`): (contains[label, value], the label of
    each released row, the value of each original row)."""
    from privcore.data.cells import parse_column  # the cell grammar of SPEC §6

    value_codes, values = factorize(_column_sample(original, column, rows))
    cells = parse_column(
        _column_sample(release, column, rows),
        hierarchy=(hierarchies or {}).get(column),
        column=str(column),
    )
    return cells.contains(pd.Series(values, dtype=object)), cells.codes, value_codes


def _same_and_chance(
    share: Callable[[np.ndarray | None], float], m: int, rng: np.random.Generator
) -> tuple[float, float]:
    """(s, b): ``share`` of m rows paired by position (``share(None)``), and its mean over
    ``ROW_ORDER_PERMUTATIONS`` random pairings (``share(permutation)``)."""
    same = share(None)
    chance = float(np.mean([share(rng.permutation(m)) for _ in range(ROW_ORDER_PERMUTATIONS)]))
    return same, chance


def _margin(chance: float, m: int) -> float:
    """max(0.02, 4·√(b(1−b)/m)): how far above the chance share b a share of m rows must
    lie for position to do better than chance (a random pairing scatters around b by
    about √(b(1−b)/m))."""
    return max(0.02, 4.0 * math.sqrt(chance * (1.0 - chance) / max(m, 1)))


def _shuffled(finding: str, column: str, same: float, chance: float) -> DataFormatError:
    """The error (``measure.row_order``) of a release whose rows do not line up with the
    original's: what was found, and what to do."""
    return DataFormatError(
        f"The rows of the release do not line up with the original's: {finding} The "
        f"release looks shuffled: give a key column present in both tables, or export "
        f"the release in the original order.",
        code="measure.row_order",
        column=column,
        same=round(same, 3),
        chance=round(chance, 3),
    )


#: a numeric cell is "near" its original within this many standard deviations
ROW_ORDER_NEAR_SD = 0.5
#: fewer rows than this do not tell a pairing by position from chance
ROW_ORDER_CLOSE_MIN_ROWS = 50


def _check_closeness(
    original: pd.DataFrame,
    release: pd.DataFrame,
    qi: Sequence[str],
    rows: np.ndarray | None,
    rng: np.random.Generator,
) -> None:
    """Refuse a pairing by position in which no quasi-identifier is nearer its original
    at the same position than at random: a perturbed or synthetic release keeps each
    record near its own (a category unchanged, a number within
    :data:`ROW_ORDER_NEAR_SD` standard deviations of the original column), a shuffled
    one does not.

    Per QI on the sampled rows: the share *s* of rows whose released cell is near the
    original at the same position, and *b*, the mean share over
    ``ROW_ORDER_PERMUTATIONS`` random pairings. A QI tells something when 0.02 ≤ b ≤
    0.98 or s > b; the pairing is refused (``measure.row_order``) when at least one QI
    tells something and for every such QI s < b + max(0.02, 4·√(b(1−b)/m)).
    """
    from privcore.data.cells import comparable_keys, numeric_cells

    if (len(release) if rows is None else len(rows)) < ROW_ORDER_CLOSE_MIN_ROWS:
        return  # too few rows to tell a pairing from chance
    telling, gains = [], []
    for column in qi:
        originals = _column_sample(original, column, rows)
        released = _column_sample(release, column, rows)
        x, y = numeric_cells(originals), numeric_cells(released)
        if np.isfinite(x).mean() > 0.9 and np.isfinite(y).mean() > 0.5:
            finite = x[np.isfinite(x)]
            spread = float(np.std(finite, ddof=1)) if len(finite) > 1 else 0.0
            if not (spread > 0 and math.isfinite(spread)):
                continue

            def near(order: np.ndarray | None, x=x, y=y, spread=spread) -> float:
                paired = x if order is None else x[order]
                with np.errstate(invalid="ignore"):
                    return float((np.abs(paired - y) <= ROW_ORDER_NEAR_SD * spread).mean())

        else:
            a_codes, b_codes = factorize(
                pd.concat(
                    [comparable_keys(originals), comparable_keys(released)], ignore_index=True
                )
            )[0].reshape(2, -1)

            def near(order: np.ndarray | None, a=a_codes, b=b_codes) -> float:
                paired = a if order is None else a[order]
                return float((paired == b).mean())

        same, chance = _same_and_chance(near, len(x), rng)
        if not (0.02 <= chance <= 0.98 or same > chance):
            continue
        telling.append((str(column), same, chance))
        gains.append(same >= chance + _margin(chance, len(x)))
    if telling and not any(gains):
        column, same, chance = telling[0]
        raise _shuffled(
            f"in column '{column}' {same:.0%} of the released values lie near the original "
            f"value at the same position, no more than for rows paired at random "
            f"({chance:.0%}).",
            column,
            same,
            chance,
        )


def _covered_share(
    original: pd.DataFrame,
    release: pd.DataFrame,
    qi: Sequence[str],
    hierarchies: Mapping[str, Any] | None,
    rng: np.random.Generator,
) -> float:
    """Share of a sample of released rows whose every QI cell contains the value of
    one and the same original row (some row, any position)."""
    picked = rng.choice(len(release), min(len(release), ROW_ORDER_COVER_ROWS), replace=False)
    tuples = distinct_tuples(original, qi)  # distinct original QI tuples
    if len(tuples) > ROW_ORDER_COVER_TUPLES:
        tuples = tuples.iloc[rng.choice(len(tuples), ROW_ORDER_COVER_TUPLES, replace=False)]
    covered = _joint_cover(tuples, release.iloc[picked], qi, hierarchies)
    return float(covered.any(axis=1).mean())


def _joint_cover(
    original: pd.DataFrame,
    release: pd.DataFrame,
    qi: Sequence[str],
    hierarchies: Mapping[str, Any] | None,
) -> np.ndarray:
    """covered[i, j]: released row i contains original row j on every QI."""
    covered = np.ones((len(release), len(original)), dtype=bool)
    for column in qi:
        contains, labels, value_codes = _containment(original, release, column, None, hierarchies)
        covered &= contains[labels][:, value_codes]
    return covered


def _check_small_table(
    original: pd.DataFrame,
    release: pd.DataFrame,
    qi: Sequence[str],
    hierarchies: Mapping[str, Any] | None,
) -> dict[str, tuple[float, float]]:
    covered = _joint_cover(original, release, qi, hierarchies)
    same = float(np.diag(covered).mean())
    matched = float((maximum_matching(covered) >= 0).mean())
    chance = float(covered.mean())
    shares = {"all": (same, chance)}
    if matched == 1.0 and same < 0.5:
        raise _shuffled(
            f"only {same:.0%} of the released rows contain the original row at the same "
            f"position, although every released row matches some original row.",
            ", ".join(map(str, qi)),
            same,
            chance,
        )
    return shares
