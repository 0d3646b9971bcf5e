"""Local suppression: blank single cells of the quasi-identifiers until the constraints hold
(sdcMicro ``localSuppression``; SPEC §11).

Where generalization coarsens a whole column and row suppression blanks a whole record,
local suppression blanks single cells: a record that is unique on (age, sex, ZIP) may
need only its ZIP blanked to share a class with others. A blanked cell is released as
``*``, the product's suppression marker (a record whose every QI is ``*`` is a
suppressed row, SPEC §2).

Classes. The product's classes are records with equal released cells, ``*`` being one
value: a record (``*``, 30, F) is in a class with the other records released as
(``*``, 30, F) — not, as in sdcMicro's frequency counts, with every record aged 30 and
female (sdcMicro reads a suppressed cell as matching any value, which can hide a record
behind records that do not share its released values). So here a class meets k on its
released values, as every release of the product is measured, and the linkage attack
still reads ``*`` as any value.

"The fewest cells" is a heuristic, not an optimum (finding the fewest cells is NP-hard:
Meyerson & Williams 2004). Each round, with V the records in classes that fail a
constraint (fewer than k records; l or t when asked for):

1. for each QI q that some record of V still shows, try blanking q in every record of
   V: the records of V whose trial class meets the constraints are the ones q *fixes*;
2. blank the QI that fixes the most records, in those records only (their trial
   classes are unchanged by leaving the others out: a class is a set of equal rows);
3. when no QI fixes any record, blank the *least important* QI still shown — the one
   with the most distinct values, sdcMicro's default importance — in every record of
   V, so that they can meet in the next round (ties: the later QI).

Every round blanks at least one cell, so the rounds end; they end when no class fails,
or when the failing records show ``*`` in every QI. Those records are suppressed rows
(SPEC §13: blanked in every QI), counted against the suppression limit whether or not
they would meet the constraints together; above the limit the run is refused
(:class:`~privcore.errors.InfeasibleError` ``anonymize.suppression_over_limit``, naming
the limit that would allow them).
``params`` report the cells blanked per QI (``suppressed_cells``) and the rounds.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np
import pandas as pd

from privcore.anonymize.base import (
    ClassChecker,
    ProgressClock,
    Release,
    report_progress,
    require_local_recoding,
)
from privcore.anonymize.perturbative import finish_perturbed, refuse_over_limit, star_cells
from privcore.anonymize.problem import Call, shared_signature
from privcore.classes import SUPPRESSED, combine_codes, factorize, group_keys
from privcore.core.kinds import ReleaseKind
from privcore.core.notes import Note

TITLE = "Local suppression"


class _Cells:
    """The QIs as integer codes (missing a value of its own), with a blanked cell coded
    as one more value of its column."""

    def __init__(self, frame: pd.DataFrame, qi: Sequence[str]) -> None:
        coded = [factorize(frame[c]) for c in qi]
        self.cards = [len(u) for _, u in coded]
        # a cell already '*' in the input equals a blanked one
        self.codes = [
            np.where(u[codes] == SUPPRESSED, len(u), codes) if (u == SUPPRESSED).any() else codes
            for codes, u in coded
        ]
        self.blank = np.zeros((len(frame), len(qi)), dtype=bool)

    def column(self, q: int, extra: np.ndarray | None = None) -> np.ndarray:
        """QI q's codes with its blanked cells (and ``extra`` rows) at the blank code."""
        blank = self.blank[:, q] if extra is None else self.blank[:, q] | extra
        return np.where(blank, self.cards[q], self.codes[q])

    def violating(
        self, checker: ClassChecker, q: int | None = None, extra: np.ndarray | None = None
    ) -> np.ndarray:
        """Boolean per row: its class fails a constraint — with QI q also blanked in the
        ``extra`` rows when given (a trial)."""
        columns = [self.column(j, extra if j == q else None) for j in range(len(self.codes))]
        ids = group_keys(combine_codes(columns, [c + 1 for c in self.cards])).ids
        return checker.violating_groups(ids)[ids]


@shared_signature
def local_suppression(call: Call) -> Release:
    """Local suppression of QI cells until every class meets the constraints (module
    docstring). Deterministic (``seed`` is recorded, not used). Every constraint holds
    on the release's classes, or :class:`~privcore.errors.InfeasibleError` is raised
    (more records at ``*`` in every QI than the suppression limit allows)."""
    progress = call.progress
    started = time.perf_counter()
    call = call.records(TITLE)
    problem = call.prepare(need_hierarchies=False)
    require_local_recoding(problem, TITLE)
    qi = list(problem.qi)
    cells = _Cells(problem.frame, qi)
    checker = ClassChecker(problem, TITLE)
    # least important first: most distinct values, then the later QI
    importance = sorted(range(len(qi)), key=lambda q: (-cells.cards[q], -q))
    report_progress(progress, 0.0, f"Local suppression: cells of {', '.join(qi)}")
    clock = ProgressClock(progress)
    rounds = 0
    failing = cells.violating(checker)
    first_failing = int(failing.sum())
    while failing.any():
        candidates = [q for q in importance if (failing & ~cells.blank[:, q]).any()]
        if not candidates:
            break  # the failing records show '*' in every QI: the top, or suppressed
        best, fixed_best = None, None
        for q in candidates:
            trial = failing & ~cells.blank[:, q]
            fixed = trial & ~cells.violating(checker, q, trial)
            if fixed.any() and (fixed_best is None or fixed.sum() > fixed_best.sum()):
                best, fixed_best = q, fixed
        if best is None:
            best = candidates[0]
            fixed_best = failing & ~cells.blank[:, best]
        cells.blank[:, best] |= fixed_best
        rounds += 1
        failing = cells.violating(checker)
        if clock.due():
            clock.report(
                0.8 * (1.0 - failing.sum() / max(first_failing, 1)),
                f"Local suppression: {int(cells.blank.sum()):,} cells blanked, "
                f"{int(failing.sum()):,} records to go",
            )
    # the records at '*' in every QI are suppressed: within the limit, or refused
    refuse_over_limit(problem, cells.blank.all(axis=1), TITLE)
    search_seconds = time.perf_counter() - started
    released = problem.frame.copy()
    for q, column in enumerate(qi):
        released[column] = star_cells(released[column], cells.blank[:, q])
    per_column = {column: int(cells.blank[:, q].sum()) for q, column in enumerate(qi)}
    whole = cells.blank.all(axis=1)
    report_progress(progress, 0.85, "Local suppression: measuring the release")
    notes = [
        Note(
            "local_suppression.cells",
            f"{int(cells.blank.sum())} cell(s) of {len(qi) * len(released)} blanked ('*') "
            f"so that every class meets the constraints; {int(whole.sum())} record(s) show "
            "'*' in every quasi-identifier.",
            cells=int(cells.blank.sum()),
            total=len(qi) * len(released),
            records=int(whole.sum()),
        )
    ]
    release = finish_perturbed(
        problem,
        released,
        algorithm="local_suppression",
        title=TITLE,
        started=started,
        search_seconds=search_seconds,
        suppressed=whole,
        params={
            "suppressed_cells": per_column,
            "cells": int(cells.blank.sum()),
            "rounds": rounds,
        },
        notes=notes,
        enforces_models=True,
        kind=ReleaseKind.GENERALIZED,  # every cell its original value or *
    )
    report_progress(progress, 1.0, "Done")
    return release
