"""How the rows of a release are paired with the original's: the controls that choose
it, and the inputs, frames and checks that follow from the choice."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from privcore.data import Dataset, Schema
from privcore.errors import DataFormatError
from privcore.measure.entropy import ROW_ORDER_EXACT_ROWS, align, check_row_order
from privcore.measure.report import match_rows
from privcore.runs import Inputs
from ui.common.i18n import labels, t
from ui.common.state import ShelfRelease

PAIRINGS = ("auto", "key", "matching", "none")


def alignment_controls(
    entry: ShelfRelease,
    original: Dataset,
    qi: list[str],
    sa: list[str],
    *,
    key: str,
    allow_none: bool = True,
) -> tuple[str, str | None]:
    """How the rows of ``entry`` are paired with the original's: ("made", None) for a
    release made here (its rows are the original's, in order), else the user's choice —
    "auto" (by position when the rows line up; otherwise only what needs no pairing),
    "key" (with the key column), "matching" (small tables) or "none"."""
    if entry.aligned:
        st.caption(t("ws.aligned_made_here"))
        return "made", None
    shared = [
        str(c)
        for c in original.frame.columns
        if c in entry.frame.columns and str(c) not in (*qi, *sa)
    ]
    choices = [p for p in PAIRINGS if allow_none or p != "none"]
    if not shared:
        choices.remove("key")
    if len(entry.frame) > ROW_ORDER_EXACT_ROWS or len(entry.frame) != original.n_rows:
        choices.remove("matching")
    if st.session_state.get(f"{key}_pairing") not in choices:
        st.session_state.pop(f"{key}_pairing", None)
    pairing = st.radio(
        t("ws.pairing"),
        choices,
        format_func=labels(choices, lambda p: t(f"ws.pairing_{p}", limit=ROW_ORDER_EXACT_ROWS)),
        help=t("ws.pairing_help"),
        key=f"{key}_pairing",
    )
    column = None
    if pairing == "key":
        column = st.selectbox(t("pl.key"), shared, help=t("pl.key_help"), key=f"{key}_key")
    return pairing, column


def release_inputs(
    entry: ShelfRelease,
    original: Dataset,
    schema: Schema,
    pairing: str,
    *,
    qi: list[str],
    sa: list[str],
    **more: Any,
) -> Inputs:
    """The inputs of a run on ``entry``: a release made here is paired row for row, with
    the rows its method blanked (its suppressed rows, the figure every page shows); a
    file by its key or position (the request says), or by the exact matching of small
    tables (:func:`privcore.measure.report.match_rows`, which raises when none exists)."""
    frame, aligned, names, blanked = entry.frame, entry.aligned, {}, entry.blanked
    if pairing == "matching":
        frame = match_rows(
            original.frame, entry.frame, qi=qi, sa=sa, hierarchies=schema.hierarchies
        )
        aligned, names, blanked = True, {"pairing": "matching"}, None
    return shelf_inputs(
        entry,
        original,
        schema,
        release=frame,
        aligned=aligned,
        shuffled=entry.shuffled,
        blanked=blanked,
        names={**names, **more.pop("names", {})},
        **more,
    )


def shelf_inputs(entry: ShelfRelease, original: Dataset, schema: Schema, **more: Any) -> Inputs:
    """The inputs of a run on ``entry`` beside the original, its rows as they stand on
    the shelf unless ``more`` gives its ``release`` frame (paired first), the kind of
    release its maker declared (a release made here: its method's; the synthetic records
    of a DP release: DP synthetic); ``more``: the run's other inputs."""
    release = more.pop("release", entry.frame)
    kind = entry.release_kind  # declared, never guessed from the cells
    if kind is not None:
        more.setdefault("release_kind", kind)
    return Inputs(
        original=original, schema=schema, release=release, release_name=entry.name, **more
    )


def paired_frame(
    entry: ShelfRelease,
    original: Dataset,
    schema: Schema,
    pairing: str,
    key_column: str | None,
    *,
    qi: list[str],
    sa: list[str],
) -> pd.DataFrame:
    """The rows of ``entry`` in the original's order (row i is record i): as made here,
    by the key column, by the exact matching of small tables, or by position with the
    order checked (:func:`privcore.measure.entropy.align`, which raises when the rows
    do not line up)."""
    if entry.aligned:
        return entry.frame.reset_index(drop=True)
    if pairing == "matching":
        return match_rows(original.frame, entry.frame, qi=qi, sa=sa, hierarchies=schema.hierarchies)
    _, frame = align(
        original.frame,
        entry.frame,
        key_column if pairing == "key" else None,
        qi=qi,
        hierarchies=schema.hierarchies,
    )
    return frame


def rows_line_up(entry: ShelfRelease, original: Dataset, schema: Schema, qi: list[str]) -> bool:
    """Can the rows of ``entry`` be paired by position (made here, or the same number of
    rows whose order is not evidently wrong: :func:`privcore.measure.entropy.check_row_order`)?"""
    if entry.aligned:
        return True
    if len(entry.frame) != original.n_rows:
        return False
    try:
        check_row_order(
            original.frame.reset_index(drop=True),
            entry.frame.reset_index(drop=True),
            qi,
            schema.hierarchies,
        )
    except DataFormatError:
        return False
    return True


def request_alignment(pairing: str) -> str:
    """The request's ``alignment`` for a pairing choice (see registry ALIGNMENTS)."""
    return {"auto": "auto", "none": "none"}.get(pairing, "position")
