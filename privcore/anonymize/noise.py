"""Noise with the covariance kept, on the numeric quasi-identifiers (SPEC §11).

**Additive** (``noise_kind="additive"``; sdcMicro ``addNoise(method="correlated")``,
Kim 1986, Brand 2002): with Σ the covariance matrix of the numeric QIs (sample
covariance, divisor n − 1, over the records with every one of them present) and α the
noise level (``noise_level``, a share),

    y = x + e,  e ~ N(0, α·Σ) independently per record.

The noise has the data's correlation structure, so the released covariance is
(1 + α)·Σ in expectation: every correlation is kept and every variance grows by the
share α (α = 0.1: noise with 10 % of each variance, about 32 % of each standard
deviation). Means are kept in expectation.

**Multiplicative** (``noise_kind="multiplicative"``): the same on the logarithms, for
positive values (Kim & Winkler 2003 use multiplicative noise for skewed amounts):
with Σ_log the covariance of log x,

    y = x · exp(e − α·diag(Σ_log)/2),  e ~ N(0, α·Σ_log),

so that E[y | x] = x (E[exp(e_j)] = exp(α·σ_j²/2)); the correlations of the logarithms
are kept, and a record's change is proportional to its value. A numeric QI with a zero
or negative value is refused (``anonymize.noise_not_positive``).

Draws: e = z·Lᵀ·√α with z standard normal (seeded numpy Generator) and L = V·√λ from the
eigen-decomposition Σ = V·diag(λ)·Vᵀ (negative rounding-error eigenvalues set to 0), so
a singular Σ — a constant column, two proportional columns — is no problem. A missing
cell stays missing (its record's other cells get their part of the noise). Values are
released as floats (integers too: rounding would bias the covariance). Nothing is
suppressed; the release does not aim at a class size (:mod:`.perturbative`): with
continuous noise nearly every record is unique.

Codes are not measurements: a numeric QI that holds codes is kept as it is, with a note
(:mod:`.perturbative`, "Columns").
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence

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
from privcore.errors import ParameterError

NOISE_KINDS = ("additive", "multiplicative")
TITLE = "Noise"


def complete_covariance(x: np.ndarray) -> np.ndarray:
    """Sample covariance (divisor m − 1) of the rows of ``x`` with no missing value; a
    d × d zero matrix when fewer than two rows are complete."""
    complete = x[~np.isnan(x).any(axis=1)]
    d = x.shape[1]
    if len(complete) < 2:
        return np.zeros((d, d))
    return np.atleast_2d(np.cov(complete, rowvar=False, ddof=1))


def correlated_normal(
    cov: np.ndarray, n: int, rng: np.random.Generator, level: float = 1.0
) -> np.ndarray:
    """n draws (n × d) from N(0, level·cov), through the eigen-decomposition of ``cov``
    (positive semi-definite: rounding-error negative eigenvalues count as 0)."""
    eigenvalues, eigenvectors = np.linalg.eigh(cov)
    root = eigenvectors * np.sqrt(np.clip(eigenvalues, 0.0, None))  # V·√λ, column-scaled
    z = rng.standard_normal((n, cov.shape[0]))
    return (z @ root.T) * np.sqrt(level)


def add_noise(
    x: np.ndarray, level: float, kind: str, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """The noisy matrix for ``x`` (n × d, NaN = missing) and the covariance Σ the noise
    was drawn from (of x, or of log x for multiplicative noise); see the module
    docstring."""
    if kind == "additive":
        cov = complete_covariance(x)
        return x + correlated_normal(cov, len(x), rng, level), cov
    logs = np.log(x)
    cov = complete_covariance(logs)
    e = correlated_normal(cov, len(x), rng, level)
    return x * np.exp(e - level * np.diag(cov) / 2.0), cov


def _check_finite(
    columns: Sequence[str], x: np.ndarray, noisy: np.ndarray, cov: np.ndarray
) -> None:
    """Refuse (``anonymize.noise_overflow``) columns whose covariance or noisy values are
    beyond the largest float: values near ±1e308 have a variance no float holds."""
    over = [
        c
        for j, c in enumerate(columns)
        if not np.isfinite(cov[j]).all() or (np.isfinite(x[:, j]) & ~np.isfinite(noisy[:, j])).any()
    ]
    if not over:
        return
    finite = x[:, [columns.index(c) for c in over]]
    finite = finite[np.isfinite(finite)]
    largest = float(np.abs(finite).max()) if finite.size else math.inf
    raise ParameterError(
        f"{TITLE} cannot be drawn for {', '.join(over)}: its values (up to {largest:g} in "
        f"absolute value) are too large for their variance or the noisy values to be "
        f"numbers (the largest is about 1.8e308). Divide the column by a power of ten "
        f"first, or choose another method.",
        code="anonymize.noise_overflow",
        columns=list(over),
        largest=f"{largest:g}",
    )


@shared_signature
def noise(call: Call, *, noise_level: float = 0.1, noise_kind: str = "additive") -> Release:
    """Correlated additive or multiplicative noise on the numeric QIs (module docstring).

    ``noise_level`` α > 0 (at most 10): the noise covariance as a share of the data's;
    ``noise_kind``: "additive" or "multiplicative". Deterministic for a given ``seed``.
    ``params`` gain the two options, ``perturbed`` (the columns) and ``covariance``
    (Σ, row by row, as the noise was drawn from it).
    """
    progress = call.progress
    started = time.perf_counter()
    call = call.records(TITLE)
    level = checked_option("noise_level", noise_level, low=0.0, high=10.0, open_low=True)
    if noise_kind not in NOISE_KINDS:
        raise ParameterError(
            f"noise_kind must be one of {', '.join(NOISE_KINDS)}, not {noise_kind!r}.",
            code="parameter.invalid",
            option="noise_kind",
            allowed=", ".join(NOISE_KINDS),
        )
    problem, columns, x = numeric_problem(call, TITLE)
    if noise_kind == "multiplicative":
        not_positive = [c for j, c in enumerate(columns) if (x[:, j] <= 0).any()]
        if not_positive:
            raise ParameterError(
                f"Multiplicative noise scales each value, so it needs positive values; "
                f"{', '.join(not_positive)} has zero or negative values. Use additive noise.",
                code="anonymize.noise_not_positive",
                columns=not_positive,
            )
    report_progress(progress, 0.1, f"Noise: {noise_kind} noise on {', '.join(columns)}")
    rng = np.random.default_rng(problem.seed)
    with np.errstate(over="ignore", invalid="ignore"):
        noisy, cov = add_noise(x, level, noise_kind, rng)
    _check_finite(columns, x, noisy, cov)
    released = problem.frame.copy()
    for j, column in enumerate(columns):
        released[column] = pd.Series(noisy[:, j], index=released.index, dtype=np.float64)
    notes = [
        Note(
            "noise.floats",
            f"Numeric quasi-identifiers ({', '.join(columns)}) are released as floats with "
            f"noise of covariance {level:g} × theirs ({noise_kind}).",
            columns=", ".join(columns),
            level=f"{level:g}",
            kind=noise_kind,
        ),
    ]
    return release_changed(
        call,
        problem,
        released,
        algorithm="noise",
        title=TITLE,
        started=started,
        params={
            "noise_level": level,
            "noise_kind": noise_kind,
            "perturbed": columns,
            "covariance": cov.tolist(),
        },
        notes=notes,
    )
