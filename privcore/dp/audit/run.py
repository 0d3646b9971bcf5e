"""Running an audit: :func:`audit_mechanism` (a mechanism of the catalogue, drawn here)
and :func:`audit_outputs` (uploaded outputs of any implementation), with the checks of
their parameters (``dp.bad_epsilon``, ``dp.bad_delta``, ``dp.bad_samples``,
``dp.bad_seed``, ``dp.bad_outputs``, ``dp.unknown_audit_mechanism``).
"""

from __future__ import annotations

import hashlib
import time
from typing import Any

import numpy as np

from privcore.core.progress import Progress, report
from privcore.dp.audit.catalogue import AUDIT_MECHANISMS, DEFAULT_GAUSSIAN_DELTA, AuditedMechanism
from privcore.dp.audit.certify import CentralAudit, certify, decide
from privcore.dp.parameters import check_delta, check_epsilon
from privcore.errors import ParameterError

__all__ = ["DEFAULT_SAMPLES", "MAX_SAMPLES", "MIN_SAMPLES", "audit_mechanism", "audit_outputs"]

DEFAULT_SAMPLES = 1_000_000
"""Draws of the mechanism on each of the two data sets: half learn the event, half
certify it. About 0.2 s and 80 MB per audit; at ε = 1 the Laplace count then gets
ε_LB ≈ 0.98, the Gaussian count (δ = 10⁻⁵) ε_LB ≈ 0.6 (99.9 % bounds)."""
MIN_SAMPLES = 100
MAX_SAMPLES = 5_000_000
"""Draws per data set allowed (memory: 2 × 8 bytes per draw plus sorting copies)."""


def _check_samples(samples: Any) -> int:
    valid = (
        isinstance(samples, (int, np.integer))
        and not isinstance(samples, bool)
        and MIN_SAMPLES <= samples <= MAX_SAMPLES
    )
    if not valid:
        raise ParameterError(
            f"The number of draws per data set must be a whole number from {MIN_SAMPLES:,} "
            f"to {MAX_SAMPLES:,}, got {samples!r}.",
            code="dp.bad_samples",
            samples=samples,
            minimum=MIN_SAMPLES,
            maximum=MAX_SAMPLES,
        )
    return int(samples)


def _check_audit_delta(delta: Any, *, gaussian: bool) -> float:
    """δ of the claim: the Gaussian's strictly between 0 and 1 (DEFAULT_GAUSSIAN_DELTA
    when None), the others' from 0 (None) up to but not including 1."""
    if gaussian:
        return check_delta(DEFAULT_GAUSSIAN_DELTA if delta is None else delta)
    return 0.0 if delta is None else check_delta(delta, allow_zero=True)


def _mechanism(name: Any) -> AuditedMechanism:
    try:
        return AUDIT_MECHANISMS[name]
    except (KeyError, TypeError):
        raise ParameterError(
            f"No mechanism named {name!r} to audit; choose one of {', '.join(AUDIT_MECHANISMS)}.",
            code="dp.unknown_audit_mechanism",
            mechanism=str(name),
            choices=list(AUDIT_MECHANISMS),
        ) from None


def _check_seed(seed: Any) -> int:
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
        raise ParameterError(
            f"The seed must be a whole number, got {seed!r}.", code="dp.bad_seed", seed=str(seed)
        )
    return int(seed)


def _outputs(values: Any, which: str) -> np.ndarray:
    """Uploaded outputs as a 1-D float array, or ParameterError ``dp.bad_outputs``."""
    try:
        array = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise ParameterError(
            f"The outputs of {which} must be numbers; some are not.",
            code="dp.bad_outputs",
            data_set=which,
        ) from None
    if array.ndim != 1 or not (MIN_SAMPLES <= array.size <= MAX_SAMPLES):
        raise ParameterError(
            f"The outputs of {which} must be one list of {MIN_SAMPLES:,} to {MAX_SAMPLES:,} "
            f"numbers, got {array.size:,} value(s) in {max(array.ndim, 1)} dimension(s).",
            code="dp.bad_outputs",
            data_set=which,
            count=int(array.size),
            minimum=MIN_SAMPLES,
            maximum=MAX_SAMPLES,
        )
    if not np.all(np.isfinite(array)):
        raise ParameterError(
            f"The outputs of {which} contain missing or infinite values.",
            code="dp.bad_outputs",
            data_set=which,
        )
    return array


def _generator(seed: int, *parts: Any) -> np.random.Generator:
    """A generator seeded by a stable hash of (seed, mechanism, ε, δ): two audits with the
    same seed share no noise, and the same request gives the same result."""
    text = "|".join(map(repr, (seed, *parts)))
    digest = hashlib.sha256(text.encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:16], "little"))


def _result(found: dict[str, Any], started: float, **fields: Any) -> CentralAudit:
    """The audit of ``fields`` (mechanism, ε, δ, samples, neighbours, broken) with what
    :func:`certify` ``found`` and its verdict (:func:`decide`; uploaded outputs, ``broken``
    None, are never called consistent), timed from ``started``."""
    uploaded = fields["broken"] is None
    verdict, reason = decide(fields["epsilon"], found["epsilon_lb"], uploaded=uploaded)
    return CentralAudit(
        verdict=verdict,
        reason=reason,
        seconds=time.perf_counter() - started,
        **fields,
        **found,
    )


# --------------------------------------------------------------------------- entry points


def audit_mechanism(
    name: str,
    epsilon: float,
    *,
    delta: float | None = None,
    samples: int = DEFAULT_SAMPLES,
    seed: int = 0,
    progress: Progress | None = None,
) -> CentralAudit:
    """Audit the mechanism ``name`` of :data:`AUDIT_MECHANISMS` claiming ε (and δ: 0 for
    the pure mechanisms unless given, DEFAULT_GAUSSIAN_DELTA for ``gaussian_count``)
    with ``samples`` draws on each of its two neighbouring data sets (:mod:`privcore.dp.audit`
    for the method and the verdicts). ``progress(fraction, message)`` is called between
    steps; a callback that raises stops the audit."""
    started = time.perf_counter()
    audited = _mechanism(name)
    epsilon = check_epsilon(epsilon)
    delta = _check_audit_delta(delta, gaussian=name == "gaussian_count")
    samples = _check_samples(samples)
    seed = _check_seed(seed)
    report(progress, 0.0, "running the mechanism on D and D′")
    outputs_d, outputs_d_prime = audited.sampler(
        epsilon, delta, samples, _generator(seed, name, epsilon, delta)
    )
    found = certify(
        np.asarray(outputs_d, dtype=float),
        np.asarray(outputs_d_prime, dtype=float),
        delta,
        progress,
    )
    report(progress, 1.0, "done")
    return _result(
        found,
        started,
        mechanism=name,
        epsilon=epsilon,
        delta=delta,
        samples=samples,
        neighbours=audited.neighbours,
        broken=audited.broken,
    )


def audit_outputs(
    outputs_d: Any,
    outputs_d_prime: Any,
    epsilon: float,
    *,
    delta: float = 0.0,
    seed: int = 0,
    mechanism: str = "uploaded",
) -> CentralAudit:
    """Audit the outputs of any implementation: ``outputs_d`` from runs on a data set D,
    ``outputs_d_prime`` from runs on a neighbour D′ (one person added or removed), each
    100 to MAX_SAMPLES finite numbers, for a claim of (ε, δ). The outputs are shuffled
    (seeded by ``seed``) before they are split into the learning and the certifying
    halves, so that outputs listed in any order give a valid bound. No violation is
    reported as inconclusive (``no_violation_found``), never as consistent."""
    started = time.perf_counter()
    epsilon = check_epsilon(epsilon)
    delta = _check_audit_delta(delta, gaussian=False)
    seed = _check_seed(seed)
    first = _outputs(outputs_d, "D")
    second = _outputs(outputs_d_prime, "D′")
    rng = _generator(seed, "uploaded", epsilon, delta)
    found = certify(rng.permutation(first), rng.permutation(second), delta, None)
    return _result(
        found,
        started,
        mechanism=str(mechanism),
        epsilon=epsilon,
        delta=delta,
        samples=int(min(first.size, second.size)),
        neighbours="D and D′ as uploaded: two data sets differing by one person's record.",
        broken=None,
    )
