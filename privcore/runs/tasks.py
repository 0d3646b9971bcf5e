"""The computations of :class:`~privcore.runs.requests.TaskRequest` runs, as functions
of their data.

A front end runs one as ``Inputs(work=functools.partial(fn, data…))`` (``progress``
comes last, by position or by name): a partial of a
module-level function over tables and numbers pickles, so :func:`privcore.runs.compute`
can send it to a worker process like any other heavy run (where a cancel kills it and
frees its memory at once), which a closure defined in a page could not. Each returns
``(result, summary)``, the summary being what the history keeps (numbers and names).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from privcore.core.progress import Progress

__all__ = ["dp_outputs_task", "roll_task"]


def dp_outputs_task(
    outputs_d: Any, outputs_d_prime: Any, claimed: float, delta: float, progress=None
) -> tuple:
    """The central-DP audit of uploaded outputs on two neighbouring data sets
    (:func:`privcore.dp.audit_outputs`)."""
    from privcore.dp import audit_outputs

    report = audit_outputs(outputs_d, outputs_d_prime, claimed, delta=delta)
    return report, report.to_dict()


def roll_task(
    dataset: pd.DataFrame,
    qi: Sequence[str],
    size: int | None,
    seed: int,
    locale: str,
    joint: bool,
    progress: Progress | None = None,
) -> tuple:
    """A synthetic voter roll around ``dataset`` (:func:`privcore.attacks.build_roll`)."""
    from privcore.attacks import build_roll

    roll = build_roll(
        dataset, list(qi), size=size, seed=seed, locale=locale, joint=joint, progress=progress
    )
    return roll, {"size": len(roll.frame)}
