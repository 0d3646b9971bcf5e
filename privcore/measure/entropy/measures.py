"""The information measures of seed 001 §4: entropy, conditional entropy, mutual
information, discrimination rate DR, privacy level PL (and its matrix) and utility loss
UL, and :class:`InformationMeasures`, which computes them for one release on shared
codes. The formulas are in :mod:`privcore.measure.entropy`."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from privcore.classes import TableCodes
from privcore.errors import DataFormatError, RoleError
from privcore.measure.entropy.counting import (
    _ZERO,
    _as_list,
    _check_rows,
    _Columns,
    _h_given,
    _mutual,
    _Var,
)

if TYPE_CHECKING:
    from privcore.measure.loss import ColumnPairs

#: Note of a privacy level whose denominator entropy is 0 (its value is then 0).
NOTE_CONSTANT = "constant column"
#: Note of a privacy level computed on a release with more entropy than the original.
NOTE_NOT_MEANINGFUL = (
    "not meaningful: the released column holds nearly one distinct value per row (noise "
    "or synthetic values), and counting equal values no longer measures what was kept"
)
#: A released target with at least this share of distinct values per row, and more
#: distinct values than the original's, makes plug-in mutual information degenerate.
DEGENERATE_SHARE = 0.9


# --------------------------------------------------------------------------- entropy


def entropy(frame: pd.DataFrame | pd.Series, columns: Sequence[str] | None = None) -> float:
    """Shannon entropy in bits of a column, or of a tuple of columns as one variable.

    H(X) = −Σ_x p(x) log2 p(x) over the empirical distribution (seed 001 §4; Shannon
    1948). ``frame`` is a Series (its values) or a DataFrame with ``columns`` (default:
    all of its columns, as one tuple). Missing is one value. ``H(a,a,b,b) = 1``.
    """
    table = _Columns(frame, "table")
    return table.entropy(table.frame.columns if columns is None else columns)


def conditional_entropy(frame: pd.DataFrame, target: Sequence[str], given: Sequence[str]) -> float:
    """H(T|G) = H(T,G) − H(G) in bits: what is left unknown about the tuple T once the
    tuple G is known (seed 001 §4). ``given = []`` gives H(T)."""
    return _h_given(_Columns(frame, "table"), target, given)[1]


def mutual_information(x: pd.DataFrame | pd.Series, y: pd.DataFrame | pd.Series) -> float:
    """I(X;Y) = H(X) + H(Y) − H(X,Y) in bits (seed 001 §4).

    ``x`` and ``y`` are a column or a table each (all their columns form one tuple),
    with rows aligned one to one (same number of rows; see :func:`align`). Symmetric,
    0 ≤ I ≤ min(H(X), H(Y)).
    """
    a, b = _Columns(x, "first table"), _Columns(y, "second table")
    _check_rows(a, b)
    return _mutual(a.joint(a.frame.columns), b.joint(b.frame.columns))[2]


def discrimination_rate(
    release: pd.DataFrame, known: Sequence[str], target: Sequence[str]
) -> float:
    """DR(K, T) = 1 − H(T|K) / H(T) on the released table (seed 001 §4).

    The share of the uncertainty about the tuple ``target`` that knowing the tuple
    ``known`` removes: 0 when K says nothing about T, 1 when K determines T. A constant
    target (H(T) = 0) has nothing to discriminate: DR = 0.
    """
    return _discrimination(_Columns(release, "release"), known, target)


def _discrimination(release: _Columns, known: Sequence[str], target: Sequence[str]) -> float:
    h_t, h_t_given_k = _h_given(release, target, known)
    if h_t <= _ZERO:
        return 0.0
    return min(max(1.0 - h_t_given_k / h_t, 0.0), 1.0)


# --------------------------------------------------------------------------- privacy level


@dataclass(frozen=True)
class PrivacyLevel:
    """A privacy level PL = DR · information (seed 001 §4), with its two factors.

    ``value`` in [0, 1]: near 0 strong protection, near 1 weak. ``dr`` is the
    discrimination rate of the target given the known columns in the release;
    ``information`` = I(X; X̄)/H(X), the share of the original target's information the
    release keeps. ``meaningful`` is False only where the plug-in mutual information is
    degenerate (SPEC §3 erratum): the released target has nearly one distinct value per
    row (≥ :data:`DEGENERATE_SHARE` of the rows) and more distinct values than the
    original — noise-added or synthetic numbers. A release with more entropy than the
    original is not flagged for that alone: local recoding (Mondrian, KACA) may map one
    value to several labels, and I(X; X̄)/H(X) still measures what it keeps. ``note`` is
    :data:`NOTE_CONSTANT` when a denominator entropy is 0 (then PL = 0), or
    :data:`NOTE_NOT_MEANINGFUL`, or both joined by "; ", else None.
    """

    value: float
    dr: float
    information: float
    meaningful: bool
    note: str | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _degenerate(x: _Var, x_bar: _Var, n: int) -> bool:
    """Nearly one released value per row, more than the original has: see PrivacyLevel."""
    released = int(np.count_nonzero(x_bar.counts))  # not rows: per distinct value
    return released >= DEGENERATE_SHARE * n and released > int(np.count_nonzero(x.counts))


def _level(
    original: _Columns,
    release: _Columns,
    target: Sequence[str],
    known: Sequence[str],
    pair_counts: Callable[[str], ColumnPairs] | None = None,
) -> PrivacyLevel:
    target = _as_list(target)
    if not target:
        raise RoleError("A privacy level needs at least one target column.", code="roles.no_target")
    _check_rows(original, release)
    x, x_bar = original.joint(target), release.joint(target)
    single = list(dict.fromkeys(target))
    joint_counts = None
    if pair_counts is not None and len(single) == 1:
        pairs = pair_counts(single[0])
        for var, codes in ((x, pairs.original), (x_bar, pairs.released)):
            var.count_from(codes, pairs.counts)
        joint_counts = pairs.counts
    h_x, h_x_bar, mi = _mutual(x, x_bar, joint_counts)
    _, h_cond = _h_given(release, target, known)
    dr = 0.0 if h_x_bar <= _ZERO else min(max(1.0 - h_cond / h_x_bar, 0.0), 1.0)
    information = 0.0 if h_x <= _ZERO else min(max(mi / h_x, 0.0), 1.0)
    meaningful = not _degenerate(x, x_bar, original.n)
    notes = []
    if h_x <= _ZERO or h_x_bar <= _ZERO:
        notes.append(NOTE_CONSTANT)
    if not meaningful:
        notes.append(NOTE_NOT_MEANINGFUL)
    return PrivacyLevel(
        value=dr * information,
        dr=dr,
        information=information,
        meaningful=meaningful,
        note="; ".join(notes) or None,
    )


def local_privacy_level(
    original: pd.DataFrame,
    release: pd.DataFrame,
    target: Sequence[str],
    known: Sequence[str],
) -> PrivacyLevel:
    """Local privacy level PL_Y(X̄) = (1 − H(X̄|Ȳ)/H(X̄)) · I(X; X̄)/H(X) (seed 001 §4).

    X is the tuple ``target`` in the original, X̄ the same columns in the release, Ȳ
    the tuple ``known`` in the release (what the adversary holds). Rows must be aligned
    one to one (:func:`align`). On the SPEC §3 example PL_ZIP(Age) = 0.290.
    """
    return _level(_Columns(original, "original"), _Columns(release, "release"), target, known)


def privacy_level(
    original: pd.DataFrame, release: pd.DataFrame, qi: Sequence[str], sa: Sequence[str]
) -> PrivacyLevel:
    """PL(D̄) = DR(X̄_qd, X̄_prv) · I(X_prv; X̄_prv) / H(X_prv) (seed 001 §4, SPEC §3).

    X_prv is the tuple of all sensitive attributes ``sa``, X̄_qd the tuple of all
    released quasi-identifiers ``qi``. On the SPEC §3 example PL(D) = 0.500.
    """
    return local_privacy_level(original, release, sa, qi)


def pl_matrix(
    original: pd.DataFrame,
    releases: Mapping[str, pd.DataFrame],
    qi: Sequence[str],
    sa: Sequence[str],
) -> pd.DataFrame:
    """The matrix of local privacy levels shown by seed 001: one row per release.

    Columns: every QI, then every SA (each once), then ``"all"``. Column A holds
    PL_Y(A) with Y = every QI other than A (for a sensitive attribute: all QIs; for a
    QI: the other QIs); ``"all"`` holds :func:`privacy_level`. Notes (constant column,
    not meaningful) are kept in ``result.attrs["notes"]`` as {release: {column: note}},
    so a caller can show every warning.
    """
    qi, sa = _as_list(qi), _as_list(sa)
    attributes = list(dict.fromkeys(qi + sa))
    orig = _Columns(original, "original")
    rows: dict[str, list[float]] = {}
    notes: dict[str, dict[str, str]] = {}
    for name, frame in releases.items():
        rel = _Columns(frame, f"release '{name}'")
        values = []
        for column in [*attributes, "all"]:
            if column == "all":
                level = _level(orig, rel, sa, qi)
            else:
                level = _level(orig, rel, [column], [q for q in qi if q != column])
            values.append(level.value)
            if level.note:
                notes.setdefault(str(name), {})[column] = level.note
        rows[str(name)] = values
    result = pd.DataFrame.from_dict(rows, orient="index", columns=[*attributes, "all"], dtype=float)
    result.index.name = "release"
    result.attrs["notes"] = notes
    return result


def utility_loss(
    original: pd.DataFrame, release: pd.DataFrame, qi: Sequence[str], sa: Sequence[str]
) -> float:
    """UL(D̄) = (I(X_qd; X̄_qd) + I(X_prv; X̄_prv)) / (H(X_qd) + H(X_prv)) (SPEC §3).

    The share of the QI and SA information the release keeps: 1 when nothing was
    changed, lower the more was generalized, suppressed or synthesized. It equals seed
    001's (H(X̄_qd) + H(X̄_prv)) / (H(X_qd) + H(X_prv)) whenever the release is a
    function of the original (full-domain recoding, suppression); with local recoding
    or synthesis one original value can become several released ones, H(X̄) can exceed
    H(X), and only the mutual-information form stays in [0, 1] (SPEC §3 erratum).
    0/0 (everything constant) gives 1.0. SPEC §3 example: 0.750.
    """
    return _utility(_Columns(original, "original"), _Columns(release, "release"), qi, sa)


def _utility(orig: _Columns, rel: _Columns, qi: Sequence[str], sa: Sequence[str]) -> float:
    _check_rows(orig, rel)
    qi, sa = _as_list(qi), _as_list(sa)
    h_qd, _, kept_qd = _mutual(orig.joint(qi), rel.joint(qi))
    h_prv, _, kept_prv = _mutual(orig.joint(sa), rel.joint(sa))
    total = h_qd + h_prv
    if total <= _ZERO:
        return 1.0
    return min(max((kept_qd + kept_prv) / total, 0.0), 1.0)


class InformationMeasures:
    """PL, DR and UL of one release against its original, on shared codes.

    ``release`` and ``original`` are tables or their :class:`~privcore.classes.TableCodes`
    (the same codes the equivalence classes were built from); ``original`` may be None
    when the rows are not paired (then only :meth:`discrimination_rate`, which reads the
    release alone). Every column is factorized once and every entropy of a set of
    columns computed once for all the figures asked of one object: the per-attribute
    privacy levels share H of the whole released QI tuple, and PL, DR and UL share the
    released QIs' and SAs' entropies. ``pair_counts(column)``, when given, returns the
    (original value, released value) pairs of a column and the rows holding each, as
    :func:`~privcore.measure.loss.column_pairs` counts them for the information loss;
    the entropies and the mutual information of a single column read them. Each figure
    equals the function of the same name.

    ``weights`` (int64, one whole number ≥ 1 per row, or None) make the two tables one
    weighted, row-paired frequency set (SPEC §9): row i of each stands for ``weights[i]``
    records. Every count is then a sum of weights and n the number of records, so each
    figure equals that of the tables with row i repeated ``weights[i]`` times (the pair
    counts, when given, must count records too).
    """

    def __init__(
        self,
        release: pd.DataFrame | TableCodes,
        original: pd.DataFrame | TableCodes | None = None,
        *,
        pair_counts: Callable[[str], ColumnPairs] | None = None,
        weights: np.ndarray | None = None,
    ) -> None:
        self._release = _Columns(release, "release", weights)
        self._original = None if original is None else _Columns(original, "original", weights)
        self._pair_counts = pair_counts

    def release_partition(self, columns: Sequence[str], codes: np.ndarray, card: int) -> None:
        """The release's rows grouped by ``columns`` already: ``codes`` (0..card-1, every
        code held by some row) per row — e.g. its equivalence classes by the QIs, with the
        rows set aside as suppressed (all ``*``) as one more group."""
        self._release.adopt(columns, codes, card)

    def _paired(self) -> _Columns:
        if self._original is None:
            raise DataFormatError(
                "This figure compares each released row with its original row; the rows "
                "are not paired.",
                code="measure.alignment",
            )
        return self._original

    def privacy_level(self, target: Sequence[str], known: Sequence[str]) -> PrivacyLevel:
        """:func:`local_privacy_level` of ``target`` given ``known``."""
        return _level(self._paired(), self._release, target, known, self._pair_counts)

    def utility_loss(self, qi: Sequence[str], sa: Sequence[str]) -> float:
        """:func:`utility_loss`."""
        return _utility(self._paired(), self._release, qi, sa)

    def discrimination_rate(self, known: Sequence[str], target: Sequence[str]) -> float:
        """:func:`discrimination_rate` on the release."""
        return _discrimination(self._release, known, target)
