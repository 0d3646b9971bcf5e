"""The checks of what the three attacks are given, each failing with a
:class:`~privcore.errors.ParameterError` or :class:`~privcore.errors.RoleError` and its
``gdpr_risk.*`` code: the tables (records one by one, not empty, holding the attacked
columns), a control set that is not the training set, whole-number counts and seeds,
levels and fractions strictly between 0 and 1, and the lists of columns."""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from privcore.data.hierarchy import value_keys
from privcore.errors import ParameterError, RoleError

_OVERLAP_SHARE = 0.01  # control rows identical to a training row at the same label


def _open_unit(value: Any, what: str, code: str, param: str) -> float:
    """``value`` as a float strictly between 0 and 1, else ParameterError ``code`` (the
    value given as ``param``)."""
    if (
        not isinstance(value, numbers.Real)
        or isinstance(value, bool)
        or not 0.0 < float(value) < 1.0
    ):
        raise ParameterError(
            f"The {what} must lie strictly between 0 and 1, not {value!r}.",
            code=code,
            **{param: str(value)},
        )
    return float(value)


def _check_confidence(confidence: Any) -> float:
    return _open_unit(confidence, "confidence level", "gdpr_risk.bad_confidence", "confidence")


def _frame(table: Any, what: str) -> pd.DataFrame:
    """The table itself, or a Release's ``frame`` (the released records)."""
    weights = getattr(table, "weights", None) if what == "release" else None
    if weights is not None and np.any(np.asarray(weights) > 1):
        raise ParameterError(
            "These attacks need the released records one by one; this release is a "
            "frequency set (rows standing for several records).",
            code="gdpr_risk.needs_records",
        )
    frame = getattr(table, "frame", table) if what == "release" else table
    if not isinstance(frame, pd.DataFrame):
        raise ParameterError(
            f"The {what} table must be a table of records.",
            code="gdpr_risk.bad_table",
            table=what,
        )
    if len(frame) == 0:
        raise ParameterError(
            f"The {what} table has no rows.", code="gdpr_risk.empty_table", table=what
        )
    return frame


def _check_columns(frames: Mapping[str, pd.DataFrame], columns: Sequence[str]) -> None:
    if not columns:
        raise RoleError(
            "Choose at least one column to attack.", code="gdpr_risk.no_columns", what="attack"
        )
    for what, frame in frames.items():
        RoleError.unless_present(
            columns,
            frame.columns,
            f"The {what} table has no column {{names}}.",
            code="gdpr_risk.missing_columns",
            table=what,
        )


def _check_control(train: pd.DataFrame, control: pd.DataFrame) -> None:
    """The control set must not be (part of) the training set: rows of the control table
    that carry a training row's index label and equal that row in every column shared
    by both tables. A few such rows can happen by chance between two tables read from
    separate files (both numbered from 0, records repeated in the data); more than 1 %
    of the control set (and at least 5 rows) cannot."""
    if control is train:
        raise ParameterError(
            "The control set is the training set; it must hold records that were not "
            "used to make the release.",
            code="gdpr_risk.control_overlaps_training",
            rows=len(control),
        )
    shared_labels = control.index.intersection(train.index)
    if not len(shared_labels) or control.index.has_duplicates or train.index.has_duplicates:
        return
    columns = [c for c in control.columns if c in train.columns]
    left = control.loc[shared_labels, columns].reset_index(drop=True)
    right = train.loc[shared_labels, columns].reset_index(drop=True)
    same = np.ones(len(shared_labels), dtype=bool)
    for c in columns:  # compared as value keys: 39 = 39.0 = "39", missing = missing
        a, b = value_keys(left[c]), value_keys(right[c])
        same &= ((a == b).fillna(False) | (a.isna() & b.isna())).to_numpy(dtype=bool)
    overlapping = int(same.sum())
    if overlapping >= max(5, _OVERLAP_SHARE * len(control)):
        raise ParameterError(
            f"{overlapping} records of the control set are records of the training set; "
            "the control set must hold records that were not used to make the release.",
            code="gdpr_risk.control_overlaps_training",
            rows=overlapping,
        )


def _whole(value: Any, what: str, *, low: int = 1) -> int:
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or int(value) < low:
        raise ParameterError(
            f"The {what.replace('_', ' ')} must be a whole number ≥ {low}, not {value!r}.",
            code=f"gdpr_risk.bad_{what}",
            value=str(value),
            minimum=low,
        )
    return int(value)


def _check_attacks(n_attacks: Any, available: Mapping[str, int]) -> int:
    n_attacks = _whole(n_attacks, "n_attacks")
    for what, rows in available.items():
        if n_attacks > rows:
            raise ParameterError(
                f"{n_attacks} attacks need {n_attacks} target records, but the {what} set "
                f"has {rows}; ask for at most {min(available.values())}.",
                code="gdpr_risk.too_many_attacks",
                n_attacks=n_attacks,
                table=what,
                rows=rows,
            )
    return n_attacks


#: What a list of columns is for (the ``what`` parameter of ``gdpr_risk.no_columns``).
_COLUMN_LISTS = {
    "attack": "the attack",
    "singling_out": "the singling-out predicates",
    "aux_first": "the first auxiliary table",
    "aux_second": "the second auxiliary table",
    "aux": "the attacker's knowledge",
    "qi": "the quasi-identifiers",
    "sa": "the sensitive attributes",
}


def _columns_arg(columns: Any, what: str) -> list[str]:
    names = [columns] if isinstance(columns, str) else list(columns or ())
    if not names:
        raise RoleError(
            f"Choose at least one column for {_COLUMN_LISTS[what]}.",
            code="gdpr_risk.no_columns",
            what=what,
        )
    return names


def _inputs(
    original_train: Any, control: Any, release: Any, columns: Sequence[str]
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    train = _frame(original_train, "training")
    control_frame = _frame(control, "control")
    released = _frame(release, "release")
    _check_columns(
        {"training": train, "control": control_frame, "release": released}, list(columns)
    )
    _check_control(train, control_frame)
    return train, control_frame, released


def _target_inputs(
    original_train: Any, control: Any, release: Any, columns: Sequence[str], n_attacks: Any
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, int]:
    """The tables (:func:`_inputs`) and ``n_attacks``, one target record each of the
    training set and of the control set (:func:`_check_attacks`)."""
    train, control_frame, released = _inputs(original_train, control, release, columns)
    n_attacks = _check_attacks(n_attacks, {"training": len(train), "control": len(control_frame)})
    return train, control_frame, released, n_attacks
