"""Individual risk (Benedetti & Franconi 1998; sdcMicro's ``measure_risk``): the
posterior expectation of 1/F of each record, and the file's expected number of
re-identifications."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from privcore.classes import EquivalenceClasses, group_sums
from privcore.core.records import PlainFields
from privcore.errors import ParameterError
from privcore.measure.population.sample import _fraction, _sample_classes, population_size

METHODS = ("approx", "exact")


def record_posterior_risk(sizes: Any, fractions: Any, *, method: str = "approx") -> np.ndarray:
    """r = E[1/F | f] for classes of f sample records and p = f/F̂ (Benedetti & Franconi
    1998; sdcMicro ``indivRisk``), F − f ~ NegBin(f, p):

    r = Σ_{h≥f} (1/h)·C(h−1, f−1)·p^f (1−p)^(h−f) = p ∫₀¹ s^(f−1)/(p + (1−p)s) ds,

    which gives, with q = 1 − p,

    - f = 1: (p/q)·log(1/p);
    - f = 2: p/q − (p/q)²·log(1/p);
    - f = 3: p/(2q) − p²/q² + (p³/q³)·log(1/p);
    - f ≥ 3, ``method="approx"`` (sdcMicro's default; Franconi & Polettini 2004):
      p/(f − q);
    - f ≥ 3, ``method="exact"``: the integral I_f = ∫₀¹ s^(f−1)/(p+qs) ds by the
      recursion I_(f+1) = (1/f − p·I_f)/q from I_1 = log(1/p)/q when p ≤ 1/2 (errors
      shrink by p/q per step), and by the series r = (p/f) Σ_m m!/(f+1)_m q^m (terms
      shrink at least by q ≤ 1/2) when p > 1/2;
    - p = 1 (the class is its whole population): 1/f.

    Every r lies in (0, 1/f] ⊂ (0, 1].
    """
    if method not in METHODS:
        raise ParameterError(
            f"The individual-risk method must be one of {', '.join(METHODS)}, got {method!r}.",
            code="population.bad_method",
            method=str(method),
            choices=list(METHODS),
        )
    f = np.asarray(sizes, dtype=np.float64)
    p = np.clip(np.asarray(fractions, dtype=np.float64), 0.0, 1.0)
    f, p = np.broadcast_arrays(f, p)
    out = np.zeros(f.shape)
    whole = p >= 1.0
    out[whole] = 1.0 / f[whole]
    rest = ~whole & (p > 0)
    pr, fr = p[rest], f[rest]
    q = 1.0 - pr
    odds = pr / q
    log_inverse = -np.log(pr)
    risk = np.empty(len(pr))
    one, two = fr == 1, fr == 2
    risk[one] = odds[one] * log_inverse[one]
    risk[two] = odds[two] - odds[two] ** 2 * log_inverse[two]
    more = fr >= 3
    if method == "approx":
        risk[more] = pr[more] / (fr[more] - q[more])
    else:
        risk[more] = _exact_risk(fr[more], pr[more])
    out[rest] = risk
    return out


def _exact_risk(f: np.ndarray, p: np.ndarray) -> np.ndarray:
    """p·I_f for f ≥ 3 (see :func:`record_posterior_risk`), vectorized over classes."""
    out = np.empty(len(f))
    low = p <= 0.5
    if low.any():  # forward recursion, classes sorted by f so the active ones are a suffix
        fl, pl = f[low], p[low]
        order = np.argsort(fl, kind="stable")
        fs, ps = fl[order], pl[order]
        qs = 1.0 - ps
        integral = -np.log(ps) / qs  # I_1
        start = 0
        for j in range(1, int(fs[-1])):  # a loop over class sizes, not rows
            start = int(np.searchsorted(fs, j, side="right"))  # classes with f > j
            integral[start:] = (1.0 / j - ps[start:] * integral[start:]) / qs[start:]
        values = np.empty(len(fl))
        values[order] = ps * integral
        out[low] = values
    high = ~low
    if high.any():
        fh, qh = f[high], 1.0 - p[high]
        term = np.ones(len(fh))
        total = np.ones(len(fh))
        for m in range(200):  # terms shrink by q·(m+1)/(f+1+m) ≤ 1/2
            term = term * qh * (m + 1) / (fh + 1 + m)
            total += term
            if term.max() < 1e-17 * total.min():
                break
        out[high] = p[high] / fh * total
    return out


@dataclass(frozen=True, eq=False)
class IndividualRisk(PlainFields):
    """Benedetti–Franconi individual risk of every record (sdcMicro ``measure_risk``).

    ``per_record[i]``: E[1/F | f] of row i (each of its records when rows stand for
    several, 0 for a suppressed row); ``expected_reidentifications`` = Σ over records of
    the risk (sdcMicro's global risk ``global_risk_ER``); ``max`` the largest record risk;
    ``mean`` = expected / records (sdcMicro's ``global_risk``); ``method`` "approx" or
    "exact"; ``sampling_fraction`` π when uniform weights 1/π were used (None with
    sampling weights); ``records`` in the file.
    """

    per_record: np.ndarray
    expected_reidentifications: float
    max: float
    mean: float
    method: str
    sampling_fraction: float | None
    records: int
    summary_leaves_out: ClassVar[tuple[str, ...]] = ("per_record",)


def individual_risk_of_classes(
    classes: EquivalenceClasses,
    population_counts: Any,
    *,
    method: str = "approx",
    sampling_fraction: float | None = None,
) -> IndividualRisk:
    """Individual risk from a partition and F̂_k, the estimated population count of each
    class (Σ of its records' sampling weights), p_k = f_k/F̂_k
    (:func:`record_posterior_risk`)."""
    sizes = classes.sizes.astype(np.float64)
    estimated = np.asarray(population_counts, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        fractions = np.where(estimated > 0, sizes / estimated, 1.0)
    class_risk = record_posterior_risk(sizes, fractions, method=method)
    per_record = np.zeros(len(classes.ids))
    kept = ~classes.suppressed
    per_record[kept] = class_risk[classes.ids[kept]]
    records = classes.n_rows
    expected = float((sizes * class_risk).sum())
    return IndividualRisk(
        per_record=per_record,
        expected_reidentifications=expected,
        max=float(class_risk.max()) if len(class_risk) else 0.0,
        mean=expected / records if records else 0.0,
        method=method,
        sampling_fraction=sampling_fraction,
        records=records,
    )


def individual_risk(
    frame: pd.DataFrame,
    qi: Sequence[str],
    *,
    sampling_fraction: Any = None,
    population: Any = None,
    sampling_weights: Any = None,
    weights: Any = None,
    method: str = "approx",
    classes: EquivalenceClasses | None = None,
) -> IndividualRisk:
    """Benedetti–Franconi individual risk of every record of ``frame`` on ``qi`` and the
    file's expected number of re-identifications (sdcMicro ``measure_risk``).

    F̂_k, the population count of class k, is the sum of its records' sampling weights:
    ``sampling_weights`` (a column of ``frame`` or one number ≥ 1 per row), or else the
    uniform weight 1/π for every record, π from ``sampling_fraction`` or ``population``
    (:func:`population_size`; then F̂_k = f_k/π). ``weights``: records per row (a
    frequency set; each row's records share its sampling weight); ``classes``: the
    partition already built (its own weights count, ``weights`` is then not read).
    ``method``: see :func:`record_posterior_risk`.
    """
    if method not in METHODS:
        record_posterior_risk([], [], method=method)  # raises the method error
    classes = _sample_classes(frame, qi, weights, classes)
    records_per_row = (
        np.ones(len(classes.ids)) if classes.weights is None else classes.weights.astype(float)
    )
    fraction = None
    if sampling_weights is None:
        size = population_size(
            classes.n_rows, sampling_fraction=sampling_fraction, population=population
        )
        fraction = _fraction(classes.n_rows, size, sampling_fraction)
        row_weights = np.full(len(classes.ids), 1.0 / fraction)
    else:
        if sampling_fraction is not None or population is not None:
            raise ParameterError(
                "Give either sampling weights or a sampling fraction / population, not both.",
                code="population.weights_and_fraction",
            )
        row_weights = _checked_sampling_weights(frame, sampling_weights, len(classes.ids))
    kept = ~classes.suppressed
    estimated = group_sums(
        classes.ids[kept], classes.n_classes, (records_per_row * row_weights)[kept]
    )
    return individual_risk_of_classes(classes, estimated, method=method, sampling_fraction=fraction)


def _checked_sampling_weights(frame: pd.DataFrame, sampling_weights: Any, rows: int) -> np.ndarray:
    """One sampling weight ≥ 1 per row (the population records each sampled record
    stands for), from a column name or a sequence."""
    if isinstance(sampling_weights, str):
        if sampling_weights not in frame.columns:
            raise ParameterError(
                f"The table has no sampling-weight column '{sampling_weights}'.",
                code="population.bad_sampling_weights",
                column=sampling_weights,
            )
        values = pd.to_numeric(frame[sampling_weights], errors="coerce").to_numpy(float)
    else:
        try:
            values = np.asarray(sampling_weights, dtype=np.float64)
        except (TypeError, ValueError):
            values = np.full(0, np.nan)
    if values.ndim != 1 or len(values) != rows:
        raise ParameterError(
            f"Sampling weights need one number per row ({rows}), got {values.size}.",
            code="population.bad_sampling_weights",
            rows=rows,
            found=int(values.size),
        )
    bad = ~np.isfinite(values) | (values < 1)
    if bad.any():
        raise ParameterError(
            "Sampling weights must be numbers of at least 1 (the population records each "
            f"sampled record stands for); {int(bad.sum())} row(s) are not.",
            code="population.bad_sampling_weights",
            count=int(bad.sum()),
        )
    return values
