"""Top and bottom coding of the numeric quasi-identifiers (sdcMicro ``topBotCoding``).

The extreme values of a numeric QI are the ones that single a record out (the one
105-year-old, the one millionaire). Top coding releases every value above a threshold
as one cell; bottom coding does the same below another. For each numeric QI, over its
present values x:

- top: with q_top the ``top_percentile``-th percentile of x (numpy's linear
  interpolation), the values x > q_top are released as ``>=m``, m the smallest of them;
- bottom: with q_bot the ``bottom_percentile``-th percentile, the values x < q_bot are
  released as ``<=M``, M the largest of them.

Example: x = 1, 2, …, 20 with percentiles 95 and 5: q_top = 19.05, so 20 becomes
``>=20``; q_bot = 1.95, so 1 becomes ``<=1``. A percentile of 100 (top) or 0 (bottom)
codes nothing on that side.

The coded cells are comparisons of the released-cell grammar (:mod:`privcore.data.cells`),
which the linkage attack reads as "any value ≥ m" — as an attacker who knows the coding
would. sdcMicro replaces the values by a number (the threshold, typically); a utility
measure that needs numbers reads ``>=m`` as m and ``<=M`` as M, the same figure
(:func:`privcore.measure.utility.numeric_cells`). A coded column is released as text
(the other cells as their values' text: ``39``, ``39.5``), an uncoded one unchanged;
missing cells stay missing. Nothing is suppressed; the release does not aim at a class
size (:mod:`.perturbative`).

Codes are not measurements: a numeric QI that holds codes is kept as it is, with a note
(:mod:`.perturbative`, "Columns").
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from privcore.anonymize.base import Release, report_progress
from privcore.anonymize.perturbative import (
    checked_option,
    numeric_problem,
    release_changed,
)
from privcore.anonymize.problem import Call, shared_signature
from privcore.core.notes import Note
from privcore.data.hierarchy import value_keys
from privcore.errors import ParameterError

TITLE = "Top and bottom coding"


def coded_masks(
    values: np.ndarray, top_percentile: float, bottom_percentile: float
) -> tuple[np.ndarray, np.ndarray]:
    """(top, bottom): boolean masks of the ``values`` (1-D, NaN = missing) coded at the
    top (x > q_top) and at the bottom (x < q_bot); see the module docstring."""
    present = ~np.isnan(values)
    top = np.zeros(len(values), dtype=bool)
    bottom = np.zeros(len(values), dtype=bool)
    if not present.any():
        return top, bottom
    observed = values[present]
    if top_percentile < 100:
        top[present] = observed > np.percentile(observed, top_percentile)
    if bottom_percentile > 0:
        bottom[present] = observed < np.percentile(observed, bottom_percentile)
    return top, bottom


@shared_signature
def top_bottom(
    call: Call, *, top_percentile: float = 95.0, bottom_percentile: float = 5.0
) -> Release:
    """Top/bottom coding of each numeric QI (module docstring).

    ``top_percentile`` in (0, 100] and ``bottom_percentile`` in [0, 100), the bottom
    below the top. Deterministic (``seed`` is recorded, not used). ``params`` gain the
    two percentiles, ``perturbed`` (the columns) and ``coded`` (per column: the top and
    bottom labels and how many records each holds).
    """
    progress = call.progress
    started = time.perf_counter()
    call = call.records(TITLE)
    top_p = checked_option("top_percentile", top_percentile, low=0.0, high=100.0, open_low=True)
    bottom_p = checked_option(
        "bottom_percentile", bottom_percentile, low=0.0, high=100.0, open_high=True
    )
    if bottom_p >= top_p:
        raise ParameterError(
            f"The bottom percentile ({bottom_p:g}) must lie below the top percentile ({top_p:g}).",
            code="anonymize.coding_overlap",
            top=top_p,
            bottom=bottom_p,
        )
    problem, columns, x = numeric_problem(call, TITLE)
    report_progress(progress, 0.1, f"Top and bottom coding: {', '.join(columns)}")
    released = problem.frame.copy()
    coded: dict[str, dict[str, object]] = {}
    for j, column in enumerate(columns):
        top, bottom = coded_masks(x[:, j], top_p, bottom_p)
        if not (top.any() or bottom.any()):
            coded[column] = {"top": None, "top_records": 0, "bottom": None, "bottom_records": 0}
            continue
        text = value_keys(problem.frame[column]).astype(object).to_numpy(copy=True)
        labels = {}
        for side, mask, pick, sign in (
            ("top", top, np.min, ">="),
            ("bottom", bottom, np.max, "<="),
        ):
            if mask.any():
                bound = value_keys(pd.Series([pick(x[mask, j])])).iloc[0]
                labels[side] = f"{sign}{bound}"
                text[mask] = labels[side]
        released[column] = pd.Series(text, index=released.index, dtype="str")
        coded[column] = {
            "top": labels.get("top"),
            "top_records": int(top.sum()),
            "bottom": labels.get("bottom"),
            "bottom_records": int(bottom.sum()),
        }
    notes = [
        Note(
            "top_bottom.coded",
            f"Values of {', '.join(columns)} above their {top_p:g}th percentile are "
            f"released as '>=' the smallest of them, values below their {bottom_p:g}th "
            "percentile as '<=' the largest of them.",
            columns=", ".join(columns),
            top=f"{top_p:g}",
            bottom=f"{bottom_p:g}",
        ),
    ]
    return release_changed(
        call,
        problem,
        released,
        algorithm="top_bottom",
        title=TITLE,
        started=started,
        params={
            "top_percentile": top_p,
            "bottom_percentile": bottom_p,
            "perturbed": columns,
            "coded": coded,
        },
        notes=notes,
    )
