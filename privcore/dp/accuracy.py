"""Accuracy against ε: how far a query's noisy answers fall from the true answer.

For each ε of a grid, ``draws`` independent noisy answers of one query (a count, a
clamped sum or mean, a histogram) are compared with the true answer: the 5 %, 50 % and
95 % quantiles of the error |noisy − true| (a histogram's error is the mean over its
cells), beside the 95 % interval's half-width that the mechanism states (its median over
the draws: a mean's interval varies with the noisy count), and the **coverage**: the share
of answers (of cells, for a histogram) whose error is within the half-width stated with
that answer, with its exact 95 % interval (Clopper & Pearson 1934). A stated 95 %
interval is honest when the coverage's interval reaches 0.95 or above; the 95 % quantile
of a few hundred draws scatters around the half-width (the share of draws beyond it is
binomial), so the coverage, not that quantile, is what checks the statement. The noise
is drawn in chunks
of at most :data:`CHUNK_VALUES` values, each reduced to its errors and freed before the
next, so the working memory is one chunk whatever the number of draws, and a cancel
(a progress callback that raises) is honoured between two chunks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from privcore.core.binomial import clopper_pearson
from privcore.core.progress import Progress
from privcore.dp import queries
from privcore.errors import ParameterError

__all__ = ["CHUNK_VALUES", "MAX_CELLS", "accuracy_curve"]

#: Most values (draws × cells) drawn at once.
CHUNK_VALUES = 1_000_000
#: Most cells of a histogram the view draws for (its table shows one error per ε).
MAX_CELLS = 20_000


def accuracy_curve(
    query: queries.Query,
    grid: Sequence[float],
    *,
    mechanism: str | None = None,
    delta: float | None = None,
    draws: int = 200,
    seed: Any = 0,
    progress: Progress | None = None,
) -> pd.DataFrame:
    """One row per ε of ``grid``: ``epsilon``, ``p5``, ``median``, ``p95`` of the error,
    the stated ``half_width``, the ``coverage`` and its interval ``coverage_low`` …
    ``coverage_high`` (see the module docstring). Raises ParameterError
    (``dp.accuracy_too_large``) before drawing anything when a histogram has more than
    :data:`MAX_CELLS` cells."""
    truth = query.true_answer
    cells = int(truth.size) if isinstance(truth, pd.Series) else 1
    if cells > MAX_CELLS:
        raise ParameterError(
            f"The accuracy view draws {draws} answers per ε; a histogram of {cells:,} cells "
            f"is too large for it (at most {MAX_CELLS:,}). Choose fewer or coarser columns.",
            code="dp.accuracy_too_large",
            draws=draws,
            cells=cells,
            limit=MAX_CELLS,
        )
    true_values = truth.to_numpy(dtype=float) if isinstance(truth, pd.Series) else float(truth)
    per_chunk = max(1, min(draws, CHUNK_VALUES // cells))
    chunks = -(-draws // per_chunk)
    rng = np.random.default_rng(seed)
    rows = []
    for step, epsilon in enumerate(grid):
        errors, widths, covered, counted = [], [], 0, 0
        for chunk in range(chunks):
            if progress is not None:
                progress((step * chunks + chunk) / (len(grid) * chunks), f"ε = {epsilon:g}")
            size = min(per_chunk, draws - chunk * per_chunk)
            noisy = queries.answer(
                query,
                mechanism,
                epsilon=float(epsilon),
                delta=delta,
                draws=size,
                seed=int(rng.integers(2**63 - 1)),
            )
            error = np.abs(np.asarray(noisy.answers, dtype=float) - true_values)
            intervals = np.asarray(noisy.intervals, dtype=float)
            half = (intervals[..., 1] - intervals[..., 0]) / 2
            within = error <= half.reshape(error.shape)
            covered, counted = covered + int(within.sum()), counted + int(within.size)
            if error.ndim > 1:
                error = error.mean(axis=tuple(range(1, error.ndim)))
            widths.append(half.ravel())
            errors.append(error)
            del noisy, intervals
        error = np.concatenate(errors)
        finite = error[np.isfinite(error)]
        low, median, high = np.quantile(finite, [0.05, 0.5, 0.95]) if finite.size else (np.nan,) * 3
        rows.append(
            {
                "epsilon": float(epsilon),
                "p5": float(low),
                "median": float(median),
                "p95": float(high),
                "half_width": float(np.median(np.concatenate(widths))),
                "coverage": covered / counted if counted else np.nan,
                "coverage_low": clopper_pearson(covered, counted)[0],
                "coverage_high": clopper_pearson(covered, counted)[1],
            }
        )
    if progress is not None:
        progress(1.0, "done")
    return pd.DataFrame(rows)
