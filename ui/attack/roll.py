"""The voter roll of the Attack simulator page: a synthetic one built from the data set
(once per server for a bundled sample) or a real register uploaded, and the attacker's
optional prior."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from privcore.attacks import VoterRoll
from privcore.attacks.roll import max_roll
from privcore.data import Dataset
from privcore.errors import PrivcoreError
from privcore.runs import Inputs, RollRequest
from privcore.runs.registry import OPTIONS
from ui.common.components import bounded_slider, choice_radio
from ui.common.errors import show_error
from ui.common.heavy import compute_heavy, heavy_button, run_heavy
from ui.common.i18n import labels, t
from ui.common.progress import progress_bar
from ui.common.shared import shared_compute
from ui.common.state import Workbench, is_bundled, keep, load_upload
from ui.common.workspace.names import choice_title
from ui.common.workspace.shelf import RELEASE_TYPES


def shared_roll(
    name: str, original: Dataset, qi: tuple[str, ...], progress: Any, **options: Any
) -> VoterRoll:
    """The voter roll of a bundled sample for these options, built once per server and
    shared by every session (:func:`ui.common.shared.shared_compute`: the same public
    table, columns, size, seed and names give the same roll; Adult's default holds
    301,620 people). Never used for a visitor's own data, which stays in their session."""
    key = json.dumps(["roll", name, original.fingerprint.sha256, qi, options], sort_keys=True)
    request, inputs = _roll_run(original, qi, options)
    roll, _cached = shared_compute(
        key, lambda: compute_heavy(request, inputs, progress)[0], progress
    )
    return roll


def _roll_run(original: Dataset, qi: Sequence[str], options: dict) -> tuple:
    """The run that builds a voter roll (a :class:`privcore.runs.RollRequest`, so that it
    is costed, holds a heavy slot and can go to a worker like every computation)."""
    request = RollRequest(
        qi=tuple(qi),
        roll_size=options["size"],
        seed=options["seed"],
        locale=options["locale"],
        joint=options["joint"],
    )
    return request, Inputs(original=original)


def roll_controls(wb: Workbench, original: Dataset, qi: list[str], *, key: str) -> None:
    """Build a synthetic voter roll, or upload a real one and map its columns to the QIs.

    The roll is kept in the session under ``key`` with the data set it belongs to.
    """
    source = choice_radio(
        t("at.roll_source"), ["synthetic", "upload"], "at.roll_", key=keep(f"{key}_source")
    )
    if source == "synthetic":
        _synthetic_roll(wb, original, qi, key=key)
    else:
        _uploaded_roll(wb, qi, key=key)


def seed_input(where: Any = st) -> int:
    """The seed a roll is drawn with (in ``where``: a column, or the page)."""
    seed_top = int(min(OPTIONS["seed"].maximum or 2**31 - 1, 2**53 - 1))
    return int(where.number_input(t("an.seed"), 0, seed_top, 0, key=keep("at_seed")))


def _synthetic_roll(wb: Workbench, original: Dataset, qi: list[str], *, key: str) -> None:
    """A synthetic voter roll: its size (from the data set's rows to 50 times as many, at
    most this installation's limit), names' locale, seed and whether the QIs are drawn
    jointly; built (once per server for a bundled sample) when asked."""
    n = original.n_rows
    limit = max_roll()
    if n > limit:
        st.error(t("at.too_big", rows=f"{n:,}", limit=f"{limit:,}"))
        return
    upper = min(limit, max(n * 50, n + 10))
    # a table of exactly the limit's rows: its own people only, no slider to move
    size = bounded_slider(
        t("at.roll_size"),
        n,
        upper,
        n * 10,
        help=t("at.roll_size_help"),
        key=keep("at_roll_size", scope=wb.active, valid=lambda v: n <= v <= upper),
        fixed=t("at.roll_size_fixed", size=f"{n:,}", limit=f"{limit:,}"),
    )
    c1, c2, c3 = st.columns(3)
    locales = list(OPTIONS["locale"].allowed() or ())
    locale = c1.selectbox(
        t("at.locale"),
        locales,
        format_func=labels(locales, lambda x: choice_title(f"at.locale_{x}", x)),
        key=keep("at_locale"),
    )
    seed = seed_input(c2)
    joint = c3.toggle(t("at.joint"), help=t("at.joint_help"), key=keep("at_joint"))
    if not heavy_button(t("at.build_roll"), key="at_build", primary=False):
        return
    try:
        options = {"size": size, "seed": seed, "locale": locale, "joint": joint}
        if is_bundled(original):
            with progress_bar(t("at.building")) as bar:
                roll = shared_roll(wb.active, original, tuple(qi), bar, **options)
        else:
            request, inputs = _roll_run(original, qi, options)
            roll = run_heavy(
                request, inputs, label=t("at.building"), page="attack", record=False
            ).result
        st.session_state[key] = {
            "data": wb.active,
            "roll": roll,
            "public": is_bundled(original),
        }
    except PrivcoreError as exc:
        show_error(exc)


def _uploaded_roll(wb: Workbench, qi: list[str], *, key: str) -> None:
    """A real register uploaded, its columns mapped to the QIs (who in it is in the data
    set is unknown)."""
    upload = st.file_uploader(
        t("at.roll_file"),
        type=RELEASE_TYPES,
        help=t("at.roll_file_help"),
        key=f"{key}_file",
    )
    if upload is None:
        return
    try:
        frame = load_upload(upload.getvalue(), upload.name).frame
    except PrivcoreError as exc:
        show_error(exc)
        return
    columns = [str(c) for c in frame.columns]
    mapping = {}
    for column in qi:
        default = columns.index(column) if column in columns else 0
        mapping[column] = st.selectbox(
            t("at.map_column", qi=column), columns, index=default, key=f"{key}_map_{column}"
        )
    if st.button(t("at.use_roll"), key=f"{key}_use"):
        mapped = pd.DataFrame({q: frame[c].to_numpy() for q, c in mapping.items()})
        mapped.insert(0, "person_id", np.arange(len(frame)))
        mapped["name"] = (
            frame[columns[0]].astype(str).to_numpy()
            if "name" not in frame
            else (frame["name"].astype(str).to_numpy())
        )
        mapped["record"] = -1  # who in the register is in the data set is unknown
        mapped["in_dataset"] = False
        roll = VoterRoll(
            mapped, tuple(qi), {c: q for q, c in mapping.items()}, 0, "uploaded", False
        )
        st.session_state[key] = {"data": wb.active, "roll": roll, "public": False}
        st.caption(t("at.uploaded_roll_note"))


def prior_controls(values: pd.Series, *, key: str) -> dict | None:
    """An optional prior of the attacker: one value believed n times as likely."""
    if not st.toggle(t("at.use_prior"), help=t("at.prior_help"), key=keep(f"{key}_on")):
        return None
    options = values.dropna().astype(str).value_counts().index.tolist()[:200]
    c1, c2 = st.columns(2)
    value = c1.selectbox(
        t("at.prior_value"), options, key=keep(f"{key}_value", valid=lambda v: v in options)
    )
    weight = c2.number_input(t("at.prior_weight"), 0.01, 100.0, 3.0, 0.5, key=keep(f"{key}_weight"))
    return {value: float(weight)}
