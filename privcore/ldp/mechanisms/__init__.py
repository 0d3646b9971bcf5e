"""Local randomizers for frequency and mean estimation, and deliberately broken ones (SPEC §7).

One small class per mechanism, each implementing :class:`~privcore.ldp.base.Mechanism`:
``perturb`` samples a whole batch at once with a seeded ``torch.Generator`` (every tensor
is created on the generator's device, so the same code runs on CUDA; on the CPU, GRR's
and local hashing's randomized response, the unary encodings' and THE's bits and SHE's
noise come from a NumPy generator seeded by it,
:func:`~privcore.ldp.device.numpy_generator`: raw random bytes at a tenth of the cost
of torch's CPU uniforms, so that a bit costs about one byte instead of one float),
``estimate`` is the unbiased aggregate, and ``true_epsilon``/``event``/
``event_probabilities`` state, white-box, how private the mechanism really is.
``coordinate_pmf``/``symbol_pmf`` give, where the outputs allow, the law of one report
from which :mod:`privcore.ldp.counts` draws an audit's counts without the reports.
Parameters are validated in one place (:mod:`.validation`; ``_FrequencyOracle._values``,
``_MeanMechanism._values``); user mistakes raise :class:`~privcore.errors.ParameterError`.

Frequency oracles take int64 inputs in 0..d−1 and, following Wang et al. 2017 ("Locally
differentially private protocols for frequency estimation", USENIX Security), estimate
f̂_v = (C_v/n − q*)/(p* − q*), where C_v counts the reports that *support* v, p* is the
probability that a report supports its own input and q* that it supports another value.
Mean mechanisms take floats in [−1, 1] ([0, 1] for Square Wave) and estimate the mean.

The broken variants (``broken = True``) are what a plausible implementation slip gives;
each docstring says what is wrong and what ε the mechanism really has.

Modules: :mod:`.validation` (ε, d, inputs), :mod:`.draws` (randomized response, bits,
Laplace noise), :mod:`.frequency` (the oracles' base, GRR, subset selection),
:mod:`.unary`, :mod:`.hashing`, :mod:`.histogram` and :mod:`.mean`; here, the registry
(:data:`MECHANISMS`) and :func:`make`.

torch is imported lazily (:func:`privcore.ldp.device.torch_module`), never at import time.
"""

from __future__ import annotations

from typing import Any

from privcore.errors import ParameterError
from privcore.ldp.base import Mechanism
from privcore.ldp.mechanisms.frequency import (
    BrokenGRR,
    GeneralizedRandomizedResponse,
    SubsetSelection,
)
from privcore.ldp.mechanisms.hashing import (
    HASH_PRIME,
    BinaryLocalHashing,
    OptimizedLocalHashing,
)
from privcore.ldp.mechanisms.histogram import (
    SummationHistogramEncoding,
    ThresholdHistogramEncoding,
    optimal_threshold,
)
from privcore.ldp.mechanisms.mean import (
    BrokenLaplace,
    BrokenPiecewise,
    Duchi,
    Hybrid,
    LaplaceMean,
    Piecewise,
    SquareWave,
)
from privcore.ldp.mechanisms.unary import (
    BrokenOUE,
    OptimizedUnaryEncoding,
    SymmetricUnaryEncoding,
)
from privcore.ldp.mechanisms.validation import MAX_DOMAIN, MAX_EPSILON

MECHANISMS: dict[str, type[Mechanism]] = {
    cls.name: cls
    for cls in (
        GeneralizedRandomizedResponse,
        SubsetSelection,
        SymmetricUnaryEncoding,
        OptimizedUnaryEncoding,
        BinaryLocalHashing,
        OptimizedLocalHashing,
        SummationHistogramEncoding,
        ThresholdHistogramEncoding,
        Duchi,
        Piecewise,
        LaplaceMean,
        Hybrid,
        SquareWave,
        BrokenGRR,
        BrokenOUE,
        BrokenLaplace,
        BrokenPiecewise,
    )
}
"""Registry key → class; correct mechanisms first, then the broken variants."""


def make(name: str, epsilon: float, *, d: int | None = None, **params: Any) -> Mechanism:
    """Build the mechanism registered as ``name`` for a claimed ε.

    Frequency oracles need the domain size ``d``; mean mechanisms ignore it (so a caller
    can pass the same arguments for every name). Extra keyword parameters are those the
    class lists in ``extra_params`` (THE: ``threshold``).
    """
    cls = MECHANISMS.get(name)
    if cls is None:
        raise ParameterError(
            f"Unknown LDP mechanism '{name}'; choose one of {', '.join(MECHANISMS)}.",
            code="ldp.unknown_mechanism",
            name=name,
        )
    unknown = sorted(set(params) - set(getattr(cls, "extra_params", ())))
    if unknown:
        raise ParameterError(
            f"{cls.title} has no parameter {', '.join(unknown)}.",
            code="ldp.bad_parameter",
            name=name,
            parameters=unknown,
        )
    if cls.family == "frequency":
        if d is None:
            raise ParameterError(
                f"{cls.title} needs the domain size d.", code="ldp.bad_domain", d=d
            )
        return cls(epsilon, d=d, **params)
    return cls(epsilon, **params)


__all__ = [
    "HASH_PRIME",
    "MAX_DOMAIN",
    "MAX_EPSILON",
    "MECHANISMS",
    "BinaryLocalHashing",
    "BrokenGRR",
    "BrokenLaplace",
    "BrokenOUE",
    "BrokenPiecewise",
    "Duchi",
    "GeneralizedRandomizedResponse",
    "Hybrid",
    "LaplaceMean",
    "OptimizedLocalHashing",
    "OptimizedUnaryEncoding",
    "Piecewise",
    "SquareWave",
    "SubsetSelection",
    "SummationHistogramEncoding",
    "SymmetricUnaryEncoding",
    "ThresholdHistogramEncoding",
    "make",
    "optimal_threshold",
]
