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

from collections.abc import Callable, Sequence
from typing import Any

import pandas as pd

from privcore.core.progress import Progress

__all__ = [
    "background_task",
    "complementary_task",
    "dp_outputs_task",
    "ordering_task",
    "sweep_task",
]


def background_task(
    original: pd.DataFrame,
    release: pd.DataFrame,
    qi: Sequence[str],
    sa: str,
    m: int,
    tau: float,
    prior: Any,
    progress: Progress | None = None,
) -> tuple:
    """The background-knowledge attack on the original and on the release (before and
    after), :func:`privcore.attacks.background_attack` on each."""
    from privcore.attacks import background_attack

    reports = {}
    for step, (when, frame) in enumerate((("before", original), ("after", release))):
        if progress is not None:
            progress(step / 2, when)
        reports[when] = background_attack(frame, list(qi), sa, m=m, tau=tau, prior=prior)
    return reports, {when: r.summary for when, r in reports.items()}


def ordering_task(
    original: pd.DataFrame, release: pd.DataFrame, qi: Sequence[str], progress=None
) -> tuple:
    """The unsorted-matching attack, and the same on the release's rows shuffled."""
    from privcore.attacks import unsorted_matching_attack

    report = unsorted_matching_attack(original, release, qi=list(qi), compare_shuffled=True)
    return report, report.summary


def complementary_task(
    first: pd.DataFrame,
    second: pd.DataFrame,
    qi: Sequence[str],
    sa: Sequence[str],
    progress: Progress | None = None,
) -> tuple:
    """Two releases of the same records, paired row by row, intersected."""
    from privcore.attacks import complementary_attack

    report = complementary_attack(first, second, list(qi), sa=list(sa))
    return report, report.to_dict()["summary"]


def sweep_task(mechanism: str, epsilons: Sequence[float], d: int | None, progress=None) -> tuple:
    """An LDP mechanism audited at each ε of ``epsilons``
    (:func:`privcore.ldp.audit.sweep`)."""
    from privcore.ldp import audit as ldp_audit
    from privcore.ldp.mechanisms import make

    frame = ldp_audit.sweep(_maker(make, mechanism, d), list(epsilons), progress=progress)
    return frame, {"rows": frame.to_dict("records")}


def _maker(make: Callable[..., Any], mechanism: str, d: int | None) -> Callable[[float], Any]:
    return lambda epsilon: make(mechanism, epsilon, d=d)


def dp_outputs_task(
    outputs_d: Any, outputs_d_prime: Any, claimed: float, delta: float, progress=None
) -> tuple:
    """The central-DP audit of uploaded outputs on two neighbouring data sets
    (:func:`privcore.dp.audit_outputs`)."""
    from privcore.dp import audit_outputs

    report = audit_outputs(outputs_d, outputs_d_prime, claimed, delta=delta)
    return report, report.to_dict()


def reconstruction_task(
    kind: str, scale: float, n: int, method: str, progress: Progress | None = None
) -> tuple:
    """The randomization-and-reconstruction demonstration: ``n`` values of a bimodal
    truth on [0, 100] (two normal bumps, 40 % around 25 and 60 % around 70, seed 0),
    perturbed with ``kind`` noise of ``scale`` and the distribution rebuilt on 20 bins
    (:func:`privcore.ldp.reconstruction.reconstruct`, Bayes or EM). Returns the result,
    the true histogram's shares, and a summary of both distances."""
    import numpy as np

    from privcore.ldp.reconstruction import Noise, randomize, reconstruct, total_variation

    rng = np.random.default_rng(0)
    values = np.where(rng.random(n) < 0.4, rng.normal(25, 7, n), rng.normal(70, 10, n))
    values = values.clip(0, 100)
    noise = Noise(kind, float(scale))
    perturbed = randomize(values, noise, seed=1)
    result = reconstruct(perturbed, noise, bins=20, lower=0.0, upper=100.0, method=method)
    truth = np.histogram(values, bins=result.edges)[0] / len(values)  # not rows: simulated
    summary = {
        "tv": total_variation(result.estimate, truth),
        "tv_perturbed": total_variation(result.perturbed, truth),
        "iterations": result.iterations,
    }
    return (result, truth), summary


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
