"""How the rows of a release are paired with its original's for a measurement: by a key
or by position (:func:`~privcore.measure.entropy.align`, with the row-order check), not
at all, as a weighted frequency set of row pairs (SPEC §9), or, for a small table
without a key, by a maximum matching of each released row to an original row whose
values it contains (:func:`match_rows`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from privcore.classes import checked_blanked
from privcore.core.bipartite import maximum_matching
from privcore.data.hierarchy import Hierarchy
from privcore.errors import DataFormatError, ParameterError
from privcore.measure.entropy import ROW_ORDER_EXACT_ROWS, align
from privcore.measure.entropy.alignment import _joint_cover
from privcore.measure.records import _shared_codes

_BLANKED = "\x00blanked"  # the column that carries ``blanked`` through the alignment


def aligned_blanked(
    original: pd.DataFrame,
    release: pd.DataFrame,
    blanked: np.ndarray | None,
    key: str | None = None,
    *,
    qi: Sequence[str] = (),
    hierarchies: Mapping[str, Hierarchy] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame, np.ndarray | None]:
    """:func:`~privcore.measure.entropy.align` of the two tables, with ``blanked`` (a
    boolean per row of ``release`` as given: the rows its method blanked, or None)
    taken along to the aligned release's rows."""
    carried = _carry_blanked(release, blanked)
    original, carried = align(original, carried, key, qi=qi, hierarchies=hierarchies)
    return (original, *_take_blanked(carried, blanked is not None))


def _carry_blanked(release: pd.DataFrame, blanked: Any) -> pd.DataFrame:
    """``release`` with ``blanked`` (checked: a boolean per row, or None) as a column of
    its own, so that any reordering of the rows takes it along."""
    if blanked is None:
        return release
    return release.assign(**{_BLANKED: checked_blanked(blanked, len(release))})


def _take_blanked(release: pd.DataFrame, carried: bool) -> tuple[pd.DataFrame, np.ndarray | None]:
    """(the release without the column of :func:`_carry_blanked`, that column as booleans);
    ``carried`` False: (``release``, None)."""
    if not carried:
        return release, None
    return release.drop(columns=[_BLANKED]), release[_BLANKED].to_numpy(dtype=bool)


@dataclass(frozen=True, eq=False)
class PairedTables:
    """The two tables of a measurement, their rows paired (see :func:`pair_tables`).

    ``alignment``: how the rows were paired, "key", "position" or "none";
    ``unpaired_because``: the code of the error that left them unpaired ("auto");
    ``weights``: the checked records per row pair of a frequency set, or None;
    ``blanked``: the rows the method blanked, in the paired release's order, or None.
    """

    original: pd.DataFrame
    release: pd.DataFrame
    alignment: str
    unpaired_because: str | None
    weights: np.ndarray | None
    blanked: np.ndarray | None

    @property
    def paired(self) -> bool:
        """Are the release's rows paired with the original's (by key or position)?"""
        return self.alignment != "none"


def pair_tables(
    original: pd.DataFrame,
    release: pd.DataFrame,
    *,
    qi: Sequence[str],
    key: str | None,
    alignment: str,
    check_order: bool,
    hierarchies: Mapping[str, Hierarchy],
    weights: Any = None,
    blanked: Any = None,
) -> PairedTables:
    """Pair the rows of ``release`` with the original's as
    :func:`~privcore.measure.report.measure_release` describes: row pairs of a weighted
    frequency set (``weights``: by position, checked by :func:`_checked_weights`), none
    (``alignment`` "none" without a key), or by ``key`` or position
    (:func:`~privcore.measure.entropy.align`, the row order checked on ``qi`` when
    ``check_order``), where "auto" measures unpaired rows that do not line up.
    ``blanked`` is taken along to the paired rows. Raises ``data.no_rows`` for a release
    without rows."""
    release = _carry_blanked(release, blanked)
    unpaired_because = None
    if weights is not None:
        weights = _checked_weights(weights, original, release, key, alignment)
        original, release = align(original, release)
    elif key is None and alignment == "none":
        release = release.reset_index(drop=True)
    else:
        try:
            original, release = align(
                original, release, key, qi=qi if check_order else (), hierarchies=hierarchies
            )
        except DataFormatError as exc:
            unpaired = exc.code in ("measure.row_order", "measure.alignment")
            if key is not None or alignment != "auto" or not unpaired:
                raise
            release, alignment = release.reset_index(drop=True), "none"
            unpaired_because = exc.code
    if key is not None:
        alignment = "key"
    elif alignment == "auto":
        alignment = "position"
    if len(release) == 0:
        raise DataFormatError("The release has no rows.", code="data.no_rows")
    release, blanked = _take_blanked(release, blanked is not None)
    return PairedTables(original, release, alignment, unpaired_because, weights, blanked)


def _checked_weights(
    weights: Any,
    original: pd.DataFrame,
    release: pd.DataFrame,
    key: str | None,
    alignment: str,
) -> np.ndarray:
    """The weights of a weighted, row-paired frequency set as int64, checked: the rows
    are paired by position (no ``key``, ``alignment`` "position"), both tables have one
    row per weight, and every weight is a whole number ≥ 1."""
    if key is not None or alignment != "position":
        how = f"the key column '{key}'" if key is not None else f"alignment '{alignment}'"
        raise ParameterError(
            f"Row weights pair row i of the original with row i of the release (a "
            f"frequency set of paired rows); {how} cannot pair them otherwise. Leave out "
            "the key and the alignment when giving weights.",
            code="measure.weights_pairing",
            key=key,
            alignment=alignment,
        )
    if len(original) != len(release):
        raise DataFormatError(
            f"The original has {len(original)} rows but the release has {len(release)}; "
            "row weights pair row i of each, so both need the same number of rows.",
            code="measure.alignment",
            rows=[len(original), len(release)],
        )
    array = np.asarray(weights)
    if array.ndim != 1 or len(array) != len(release):
        raise DataFormatError(
            f"A weighted frequency set needs one weight per row pair: there are "
            f"{len(release)} row pairs and {array.size} weights.",
            code="measure.weights_rows",
            rows=len(release),
            weights=int(array.size),
        )
    whole = np.issubdtype(array.dtype, np.integer) or (
        np.issubdtype(array.dtype, np.floating)
        and bool(np.all(np.isfinite(array)))
        and bool(np.all(array == np.round(array)))
    )
    if not whole or (array.size and array.min() < 1):
        raise ParameterError(
            "Row weights must be whole numbers of at least 1 (the records each row pair "
            "stands for).",
            code="measure.bad_weights",
            smallest=str(array.min()) if array.size and whole else None,
        )
    return array.astype(np.int64, copy=False)


def match_rows(
    original: pd.DataFrame,
    release: pd.DataFrame,
    *,
    qi: Sequence[str],
    sa: Sequence[str],
    hierarchies: Mapping[str, Hierarchy] | None = None,
) -> pd.DataFrame:
    """``release`` reordered so that its row i pairs with original row i, for a small
    table without a key column (at most ``ROW_ORDER_EXACT_ROWS`` rows): the maximum
    bipartite matching (:func:`privcore.core.bipartite.maximum_matching`) of released rows to
    original rows where a released row may take an original row when each of its QI
    cells contains the original value (range, mask, set, hierarchy label, ``*``: the
    cell forms of the linkage attack) and its SA values equal the original's — the exact
    matching the row-order check uses for small tables. Rows that fit several originals
    (a class's rows) are paired in one of the equivalent ways, which leaves every class
    and its values unchanged. Raises :class:`DataFormatError` ``measure.matching`` when
    the table is too large or when no pairing covers every row."""
    n = len(release)
    if n != len(original) or n > ROW_ORDER_EXACT_ROWS:
        raise DataFormatError(
            f"Rows can be paired by matching only for tables of the same size of at most "
            f"{ROW_ORDER_EXACT_ROWS} rows (original {len(original)}, release {n}); give a "
            "key column present in both tables.",
            code="measure.matching",
            rows=[len(original), n],
            limit=ROW_ORDER_EXACT_ROWS,
        )
    original, release = original.reset_index(drop=True), release.reset_index(drop=True)
    fits = _joint_cover(original, release, qi, dict(hierarchies or {}))
    for column in sa:
        ours, theirs, _ = _shared_codes(original[column], release[column])
        fits &= theirs[:, None] == ours[None, :]
    match = maximum_matching(fits)  # released row i → original row match[i]
    unmatched = int((match < 0).sum())
    if unmatched:
        raise DataFormatError(
            f"{unmatched} released row(s) cannot be paired with an original row whose "
            "values they contain: the release is not a generalization of this table row "
            "for row. Give a key column present in both tables.",
            code="measure.matching",
            unmatched=unmatched,
        )
    order = np.empty(n, dtype=np.int64)
    order[match] = np.arange(n)  # original row j is paired with released row order[j]
    return release.iloc[order].reset_index(drop=True)
