"""SUDA2: minimal sample uniques and special uniques (SPEC §11).

A record's values on a set S of quasi-identifiers are a *sample unique* on S when no
other record of the table shares them. S is a *minimal sample unique* (MSU) of the
record when the record is unique on S and on no proper subset of S (Elliot et al.,
"SUDA: A program for detecting special uniques", 2002). A record unique on the full QI
set is a *sample unique*; a *special unique* is a sample unique with at least one MSU
smaller than the full QI set — it stands out on a few attributes, not only on the
combination of all of them (Elliot et al. 2002). Only sample uniques have MSUs: a record
that another record repeats on every QI is repeated on every subset too.

Missing values, and the suppression marker ``*`` of a released cell, are no value here,
as in sdcMicro's ``suda2`` (its ``missing`` code, which R's ``NA`` becomes): a record's
missing cell is never part of one of its MSUs, and it equals no other record's value
(another record's missing cell included), so it never makes another record less unique.

The search (Manning, Haglin & Keane 2008, "A recursive search algorithm for statistical
disclosure assessment", the algorithm sdcMicro implements) goes through QI subsets by
size and prunes by minimality: a record unique on S is no candidate on any superset of
S, and a subset is only visited when every one of its immediate subsets still has
candidates. Here the search runs level by level over the distinct QI tuples of the
table, each subset vectorized over the tuples it still needs:

- C_S, the candidates of S: the sample uniques that are present (not missing) on S and
  not unique on any immediate subset S∖{v} — the intersection of the parents'
  surviving candidates;
- a candidate of C_S unique on S has the MSU S; the others survive into S's supersets;
- R_S, the tuples kept for counting: those that share S-values with a surviving
  candidate. Any record matching a candidate on a superset of S matches it on S, so
  counts on the supersets are exact from R_S alone: each subset groups the R of the
  parent that keeps fewest tuples by its own QIs (one integer key per tuple, counted
  directly when the key space is small, else hashed).

Its cost is that of the MSUs and of the subsets that keep candidates: a table whose
records stay candidates on most subsets (Adult: 510 of the 511 subsets of 9 QIs) costs
about one group-by per subset, and ``max_size`` bounds the search on wide tables.

Scores (sdcMicro ≥ 5.0.3, ``original_scores = TRUE``, after Elliot et al. 2002): with M
quasi-identifiers, an MSU of size k adds ∏_{i=k}^{M−1} (M − i) = (M − k)! to its
record's SUDA score; records without an MSU score 0. MSUs larger than ``max_size`` are
not searched and add nothing. (sdcMicro pads a table of fewer than 3 key variables with
constant columns, which raises M to 3; here M is the number of QIs given.)

DIS score (sdcMicro's ``dis_suda_score``, Skinner & Elliot 2002's data intrusion
simulation): with U the sample uniques, P the records in classes of exactly two, the
sampling fraction π (``dis_fraction``, sdcMicro's ``DisFraction``, default 0.01),
DIS = Uπ / (Uπ + P(1 − π)), Q = 1 + (8 − M)/20 and A = Σ over records with a score > 0 of
score^(−Q), a record with score s > 0 gets 1 / (1 + (U/DIS − U)/(s^Q · A)) =
1 / (1 + P(1 − π)/(π · s^Q · A)); a record scoring 0 gets 0. U cancels: it matters only
in that without sample uniques no record scores.

Attribute contributions (sdcMicro's ``attribute_contributions``): an MSU of size k adds
(M − k)! to the contribution of each of its k QIs to its record; a QI's contribution is
100 · Σ over records of those amounts / Σ over records of the scores (so the
percentages add up to more than 100 when MSUs have several QIs). A record's
contribution shares (sdcMicro's ``contributionPercent``) are its amounts over its score.

Weights: a table given as a weighted frequency set (SPEC §9: row i stands for
``weights[i]`` identical records) gives every figure of the expanded table; a row
standing for two or more records is no sample unique.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from privcore.classes import (
    SUPPRESSED,
    code_counts,
    combine_codes,
    compact_codes,
    group_keys,
    group_rows,
    require_known_columns,
    value_codes,
)
from privcore.core.jsonsafe import plain
from privcore.core.progress import Progress
from privcore.core.progress import report as _report
from privcore.errors import ParameterError, RoleError
from privcore.matching import checked_counts

__all__ = ["DEFAULT_DIS_FRACTION", "Suda2Result", "dis_scores", "suda2"]

#: sdcMicro's default sampling fraction for the DIS score (``DisFraction``).
DEFAULT_DIS_FRACTION = 0.01


@dataclass(frozen=True, eq=False)
class Suda2Result:
    """SUDA2 of a table over its quasi-identifiers ``qi`` (see the module docstring).

    Per record (arrays in row order): ``scores`` (SUDA score), ``dis_scores`` (DIS
    score), ``record_msu_counts`` (n × ``max_size``: column k−1 counts the record's
    MSUs of size k) and ``record_contributions`` (n × len(qi): each QI's share of the
    record's score; 0 for a record scoring 0). Per MSU: ``msu_records`` (the row it
    belongs to) and ``msu_masks`` (bit i set when ``qi[i]`` is in it), sorted by row,
    size and mask. Totals: ``msu_counts`` (size → MSUs of that size found),
    ``sample_uniques`` (records unique on every QI together), ``special_uniques``
    (records with an MSU found — of size ≤ ``max_size`` — smaller than the full QI set),
    ``attribute_contributions`` (QI → percent), ``n_records``. ``max_size`` is the
    largest MSU size searched, ``dis_fraction`` the sampling fraction of the DIS score.
    """

    qi: tuple[str, ...]
    max_size: int
    dis_fraction: float
    n_records: int
    scores: np.ndarray = field(repr=False)
    dis_scores: np.ndarray = field(repr=False)
    record_msu_counts: np.ndarray = field(repr=False)
    record_contributions: np.ndarray = field(repr=False)
    msu_records: np.ndarray = field(repr=False)
    msu_masks: np.ndarray = field(repr=False)
    msu_counts: dict[int, int]
    sample_uniques: int
    special_uniques: int
    attribute_contributions: dict[str, float]

    @property
    def n_msus(self) -> int:
        return len(self.msu_records)

    def msus(self, row: int) -> list[tuple[str, ...]]:
        """The MSUs of the record at position ``row``, each as its QI names (in the
        order of :attr:`qi`), smallest first."""
        lo, hi = np.searchsorted(self.msu_records, [row, row + 1])
        return [self.qi_of(int(mask)) for mask in self.msu_masks[lo:hi]]

    def qi_of(self, mask: int) -> tuple[str, ...]:
        """The QI names of a subset given as a bit mask (bit i: ``qi[i]``)."""
        return tuple(q for i, q in enumerate(self.qi) if mask >> i & 1)

    def to_dict(self) -> dict[str, Any]:
        scored = self.scores > 0
        return plain(
            {
                "qi": list(self.qi),
                "max_size": self.max_size,
                "dis_fraction": self.dis_fraction,
                "records": self.n_records,
                "sample_uniques": self.sample_uniques,
                "special_uniques": self.special_uniques,
                "records_with_msu": int(scored.sum()),
                "msus": self.n_msus,
                "msu_counts": {str(k): v for k, v in self.msu_counts.items()},
                "max_score": float(self.scores.max()) if len(self.scores) else 0.0,
                "max_dis_score": float(self.dis_scores.max()) if len(self.dis_scores) else 0.0,
                "attribute_contributions": self.attribute_contributions,
            }
        )


def suda2(
    frame: pd.DataFrame,
    qi: Sequence[str],
    *,
    max_size: int | None = None,
    dis_fraction: float = DEFAULT_DIS_FRACTION,
    weights: Any = None,
    progress: Progress | None = None,
) -> Suda2Result:
    """Minimal sample uniques, SUDA and DIS scores of every record of ``frame``.

    ``qi``: the quasi-identifiers (M of them); ``max_size``: the largest MSU searched
    (1..M, default M: every MSU, as sdcMicro); ``dis_fraction``: the sampling fraction
    π of the DIS score, in (0, 1]; ``weights``: whole numbers ≥ 1, one per row, making
    ``frame`` a weighted frequency set. ``progress(fraction, message)`` is called after
    each subset size and may raise :class:`~privcore.errors.CancelledError`. Raises
    :class:`RoleError` for no or unknown QIs and :class:`ParameterError` for a
    ``max_size``, ``dis_fraction`` or ``weights`` out of range.
    """
    qi = _checked_qi(frame, qi)
    m = len(qi)
    max_size = _checked_max_size(max_size, m)
    dis_fraction = _checked_fraction(dis_fraction)
    n = len(frame)
    if weights is not None:
        weights = checked_counts(weights, n, what="row weights", code="suda2.bad_weights")

    # Codes per QI: 0 = no value (missing or '*'), 1..c = the values.
    codes: list[np.ndarray] = []
    cards: list[int] = []
    for column in qi:
        raw, uniques = value_codes(frame[column])
        star = pd.Index(uniques, dtype=object).get_indexer([SUPPRESSED])[0]
        if star >= 0:
            raw = np.where(raw == star, -1, raw)
        codes.append(compact_codes(raw + 1, len(uniques) + 1))
        cards.append(len(uniques) + 1)

    # Distinct QI tuples (the classes on the full QI set) and the records of each.
    tuples = group_rows(codes, cards, weights=weights) if n else None
    tuple_sizes = tuples.counts if tuples is not None else np.zeros(0, dtype=np.int64)
    tuple_codes = [c[tuples.first] for c in codes] if tuples is not None else []
    uniques_mask = tuple_sizes == 1
    sample_uniques = int(uniques_mask.sum())
    pair_records = int(tuple_sizes[tuple_sizes == 2].sum())

    msu_tuples, msu_masks = _search(
        tuple_codes, cards, tuple_sizes, uniques_mask, max_size, progress
    )
    # A unique tuple is one row of weight 1: its MSUs are that row's.
    msu_records = tuples.first[msu_tuples] if tuples is not None else msu_tuples
    order = np.lexsort((msu_masks, _popcount(msu_masks), msu_records))
    msu_records, msu_masks = msu_records[order], msu_masks[order]
    sizes = _popcount(msu_masks)

    factorials = np.array([float(math.factorial(m - k)) for k in range(m + 1)])
    amount = factorials[sizes] if len(sizes) else np.zeros(0)
    scores = code_counts(msu_records, n, weights=amount).astype(np.float64)
    record_msu_counts = code_counts(msu_records * max_size + (sizes - 1), n * max_size).reshape(
        n, max_size
    )
    raw = np.zeros((n, m), dtype=np.float64)
    for i in range(m):
        raw[:, i] = code_counts(msu_records, n, weights=amount * ((msu_masks >> i) & 1))
    total_score = float(scores.sum())
    shares = np.divide(raw, scores[:, None], out=np.zeros_like(raw), where=scores[:, None] > 0)
    attribute_contributions = {
        q: (100.0 * float(raw[:, i].sum()) / total_score if total_score > 0 else 0.0)
        for i, q in enumerate(qi)
    }
    msu_counts = {
        k: int(c)
        for k, c in enumerate(code_counts(sizes, max_size + 1)[1:], start=1)  # per MSU
    }
    special = np.zeros(n, dtype=bool)
    special[msu_records[sizes < m]] = True

    return Suda2Result(
        qi=tuple(qi),
        max_size=max_size,
        dis_fraction=dis_fraction,
        n_records=int(tuple_sizes.sum()),
        scores=scores,
        dis_scores=dis_scores(scores, m, sample_uniques, pair_records, dis_fraction),
        record_msu_counts=record_msu_counts,
        record_contributions=shares,
        msu_records=msu_records,
        msu_masks=msu_masks,
        msu_counts=msu_counts,
        sample_uniques=sample_uniques,
        special_uniques=int(special.sum()),
        attribute_contributions=attribute_contributions,
    )


def dis_scores(
    scores: np.ndarray, m: int, uniques: int, pair_records: int, dis_fraction: float
) -> np.ndarray:
    """sdcMicro's DIS-SUDA score of each record (module docstring): 0 for a score of
    0, else 1 / (1 + (U/DIS − U)/(s^Q · A)) with DIS = Uπ / (Uπ + P(1 − π)),
    Q = 1 + (8 − M)/20 and A = Σ_{s>0} s^(−Q); U/DIS − U = P(1 − π)/π."""
    scores = np.asarray(scores, dtype=np.float64)
    out = np.zeros(len(scores), dtype=np.float64)
    scored = scores > 0
    if not scored.any() or uniques == 0:
        return out
    q = 1.0 + (8.0 - m) / 20.0
    powered = scores[scored] ** q
    adjust = float(np.sum(1.0 / powered))
    excess = pair_records * (1.0 - dis_fraction) / dis_fraction  # U/DIS − U
    out[scored] = 1.0 / (1.0 + excess / (powered * adjust))
    return out


@dataclass(frozen=True, eq=False)
class _Subset:
    """What a visited subset S passes on to its supersets, as boolean masks over the
    distinct tuples: ``kept`` (R_S: tuples sharing S-values with a surviving
    candidate), ``candidates`` (C_S minus the tuples unique on S), and the size of R_S."""

    kept: np.ndarray
    candidates: np.ndarray
    n_kept: int


def _search(
    tuple_codes: Sequence[np.ndarray],
    cards: Sequence[int],
    tuple_sizes: np.ndarray,
    sample_uniques: np.ndarray,
    max_size: int,
    progress: Progress | None,
) -> tuple[np.ndarray, np.ndarray]:
    """Every MSU of size ≤ ``max_size`` over the distinct tuples: (tuple, subset mask)
    pairs, found level by level with the pruning of the module docstring.

    A level maps each subset S (a bit mask over the QIs) that still has candidates to
    its :class:`_Subset`. Level 0 is the empty set: every tuple kept, every sample unique
    (``sample_uniques``: a boolean mask) a candidate."""
    m = len(tuple_codes)
    n_tuples = len(tuple_sizes)
    found_tuples: list[np.ndarray] = []
    found_masks: list[np.ndarray] = []
    if not sample_uniques.any():
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    present = [codes != 0 for codes in tuple_codes]
    weights = tuple_sizes.astype(np.float64)
    level = {0: _Subset(np.ones(n_tuples, dtype=bool), sample_uniques, n_tuples)}
    for size in range(1, max_size + 1):
        following: dict[int, _Subset] = {}
        for parent in level:
            top = parent.bit_length()  # children add a QI above the parent's highest
            for added in range(top, m):
                child = parent | (1 << added)
                visited = _visit(
                    child, level, tuple_codes, cards, present, weights, size < max_size
                )
                if visited is None:
                    continue
                msu, survivors = visited
                if len(msu):
                    found_tuples.append(msu)
                    found_masks.append(np.full(len(msu), child, dtype=np.int64))
                if survivors is not None:
                    following[child] = survivors
        _report(progress, size / max_size, f"SUDA2: MSUs of {size} quasi-identifier(s)")
        level = following
        if not level:
            break
    if not found_tuples:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return np.concatenate(found_tuples), np.concatenate(found_masks)


def _visit(
    child: int,
    level: dict[int, _Subset],
    tuple_codes: Sequence[np.ndarray],
    cards: Sequence[int],
    present: Sequence[np.ndarray],
    weights: np.ndarray,
    keep: bool,
) -> tuple[np.ndarray, _Subset | None] | None:
    """Subset ``child``: its MSUs (tuple indices) and, when ``keep`` and some candidate
    survives, what it passes on to the next level; None when it has no candidate."""
    parents = [child & ~(1 << i) for i in range(child.bit_length()) if child >> i & 1]
    if any(p not in level for p in parents):
        return None  # a parent without candidates: none here either
    # Counted from the parent that keeps the fewest tuples; the QI it lacks is added.
    parent = min(parents, key=lambda p: level[p].n_kept)
    added = (child & ~parent).bit_length() - 1
    candidates = level[parent].candidates & present[added]  # a missing cell is in no MSU
    for p in parents:
        if p != parent:
            candidates &= level[p].candidates
    kept = np.flatnonzero(level[parent].kept)
    of_kept = candidates[kept]
    if not of_kept.any():
        return None
    members = [i for i in range(len(cards)) if child >> i & 1]
    columns, cardinalities = [tuple_codes[i] for i in members], [cards[i] for i in members]
    if 2 * len(kept) > len(candidates):  # most tuples kept: one gather of the key
        key = combine_codes(columns, cardinalities)[kept]
    else:
        key = combine_codes([c[kept] for c in columns], cardinalities)
    span = math.prod(cards[i] for i in members)
    if span <= 4 * len(kept) + 1024:  # dense keys: count by key directly
        classes, n_classes = key, span
        counts = code_counts(key, span, weights=weights[kept])
    else:
        groups = group_keys(key, weights=weights[kept])
        classes, n_classes, counts = groups.ids, groups.n_groups, groups.counts
    unique = counts[classes] == 1
    msu = kept[of_kept & unique]
    survive = of_kept & ~unique
    if not keep or not survive.any():
        return msu, None
    marked = np.zeros(n_classes, dtype=bool)  # classes holding a surviving candidate
    marked[classes[survive]] = True
    rows = kept[marked[classes]]
    next_kept = np.zeros(len(candidates), dtype=bool)
    next_kept[rows] = True
    next_candidates = np.zeros(len(candidates), dtype=bool)
    next_candidates[kept[survive]] = True
    return msu, _Subset(next_kept, next_candidates, len(rows))


def _popcount(masks: np.ndarray) -> np.ndarray:
    """Bits set in each mask (the size of each subset)."""
    masks = np.asarray(masks, dtype=np.int64)
    out = np.zeros(len(masks), dtype=np.int64)
    rest = masks.copy()
    while rest.any():
        out += rest & 1
        rest >>= 1
    return out


def _checked_qi(frame: pd.DataFrame, qi: Sequence[str]) -> list[str]:
    qi = list(dict.fromkeys(str(c) for c in qi))  # a QI named twice counts once
    if not qi:
        raise RoleError("Choose at least one quasi-identifier.", code="roles.no_qi")
    require_known_columns(frame, qi)
    if len(qi) > 62:
        raise ParameterError(
            f"SUDA2 handles at most 62 quasi-identifiers, not {len(qi)}.",
            code="suda2.too_many_qi",
            count=len(qi),
        )
    return qi


def _checked_max_size(max_size: int | None, m: int) -> int:
    if max_size is None:
        return m
    if isinstance(max_size, bool) or not isinstance(max_size, (int, np.integer)):
        raise ParameterError(
            f"The largest MSU size must be a whole number from 1 to {m}.",
            code="suda2.bad_max_size",
            value=str(max_size),
            qi=m,
        )
    if not 1 <= int(max_size) <= m:
        raise ParameterError(
            f"The largest MSU size must be from 1 to {m} (the number of "
            f"quasi-identifiers), not {max_size}.",
            code="suda2.bad_max_size",
            value=str(max_size),
            qi=m,
        )
    return int(max_size)


def _checked_fraction(value: float) -> float:
    try:
        fraction = float(value)
    except (TypeError, ValueError):
        fraction = math.nan
    if not (0.0 < fraction <= 1.0):
        raise ParameterError(
            f"The sampling fraction of the DIS score must be in (0, 1], not {value}.",
            code="suda2.bad_dis_fraction",
            value=str(value),
        )
    return fraction
