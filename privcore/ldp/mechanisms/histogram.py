"""Histogram encodings (Wang et al. 2017): one-hot plus Laplace noise, reported whole
(SHE) or thresholded into bits (THE)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import Any

from privcore.core.privacy_parameters import as_float
from privcore.errors import ParameterError
from privcore.ldp.base import Outputs
from privcore.ldp.device import numpy_generator, torch_module
from privcore.ldp.mechanisms.draws import (
    _CHUNK_ELEMENTS,
    _laplace,
    _laplace_fill,
    _laplace_sf,
    _on_cpu,
    _rows_per_block,
)
from privcore.ldp.mechanisms.frequency import _FrequencyOracle, _IndependentBits
from privcore.ldp.mechanisms.validation import _check_epsilon


class _HistogramEncoding(_FrequencyOracle):
    """One-hot encode and add Lap(2/ε) to every coordinate (the L1 distance between two
    one-hot vectors is 2, so the vector is ε-LDP). Noise is float32 (memory: n×d)."""

    report_bytes = 64
    coordinate_bytes = 28  # float32 uniforms, noise and its temporaries

    def __init__(self, epsilon: float, *, d: int) -> None:
        super().__init__(epsilon, d=d)
        self.scale = 2.0 / self.epsilon

    def _noisy_blocks(self, values: Any, generator: Any) -> Iterator[tuple[int, Any]]:
        """(first row, float32 block of one-hot + Laplace noise), in row blocks."""
        torch = torch_module()
        rows = _rows_per_block(self.d)
        for start in range(0, values.shape[0], rows):
            block = values[start : start + rows, None]
            noisy = _laplace(
                (block.shape[0], self.d), self.scale, generator, torch.float32, values.device
            )
            noisy.scatter_add_(1, block, torch.ones_like(block, dtype=torch.float32))
            yield start, noisy


class SummationHistogramEncoding(_HistogramEncoding):
    """Summation with histogram encoding (SHE).

    Report y = one-hot(v) + Lap(2/ε)^d (float32). ε-LDP: the density ratio is
    exp((|y_v| − |y_v − 1| + |y_w − 1| − |y_w|)ε/2) ≤ e^ε, with equality exactly on
    {y_v ≥ 1, y_w ≤ 0} (probability ¼ under v, ¼e^{−ε} under w). Estimator: the mean of
    each coordinate (E[y_u] = 1[u = v]).

    Wang et al. 2017 (USENIX Security); Dwork et al. 2006 (Laplace mechanism).
    """

    name = "she"
    title = "Summation with histogram encoding"
    output_kind = "reals"
    source = "Wang et al. 2017 (USENIX Security)"

    def perturb(self, inputs: Any, generator: Any) -> Outputs:
        """CPU: the noise from NumPy (:func:`_laplace_fill`, in blocks), then the one-hot
        added; CUDA: torch's uniforms mapped to Laplace noise (:func:`_laplace`)."""
        torch = torch_module()
        values = self._values(inputs, generator)
        out = torch.empty((values.shape[0], self.d), dtype=torch.float32, device=values.device)
        if _on_cpu(generator):
            rng = numpy_generator(generator)
            flat = out.numpy().reshape(-1)
            for start in range(0, flat.size, _CHUNK_ELEMENTS):
                _laplace_fill(flat[start : start + _CHUNK_ELEMENTS], self.scale, rng)
            out.scatter_add_(1, values[:, None], torch.ones((len(values), 1)))
            return Outputs("reals", out)
        for start, noisy in self._noisy_blocks(values, generator):
            out[start : start + noisy.shape[0]] = noisy
        return Outputs("reals", out)

    def estimate(self, outputs: Outputs) -> Any:
        """Unbiased frequencies: the column means (float64)."""
        n = self._check_outputs(outputs)
        return outputs.values.sum(dim=0, dtype=torch_module().float64) / n

    def true_epsilon(self) -> float:
        return 2.0 / self.scale

    def event(self, v: Any, w: Any) -> Callable[[Outputs], Any]:
        v, w = self._pair(v, w)
        return lambda outputs: (outputs.values[:, v] >= 1.0) & (outputs.values[:, w] <= 0.0)

    def event_probabilities(self, v: Any, w: Any) -> tuple[float, float]:
        self._pair(v, w)
        tail = _laplace_sf(1.0, self.scale)  # P(Lap ≥ 1) = P(Lap ≤ −1)
        return 0.25, tail * tail

    def vectors(self, outputs: Outputs) -> Any:
        self._check_outputs(outputs)
        return outputs.values

    def _parameters(self) -> dict[str, Any]:
        return {"scale": self.scale}


def optimal_threshold(epsilon: float) -> float:
    """THE's θ ∈ [½, 1] minimizing the estimator's variance q*(1−q*)/(p*−q*)² (Wang et al.
    2017, §4.2), with p* = 1 − ½e^{−(1−θ)ε/2}, q* = ½e^{−θε/2}; golden-section search
    (the objective is unimodal on this interval)."""
    scale = 2.0 / _check_epsilon(epsilon)

    def variance(theta: float) -> float:
        p, q = _laplace_sf(theta - 1.0, scale), _laplace_sf(theta, scale)
        return q * (1.0 - q) / (p - q) ** 2

    lo, hi = 0.5, 1.0
    ratio = (math.sqrt(5.0) - 1.0) / 2.0
    for _ in range(80):
        a, b = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
        if variance(a) <= variance(b):
            hi = b
        else:
            lo = a
    return (lo + hi) / 2.0


class ThresholdHistogramEncoding(_IndependentBits, _HistogramEncoding):
    """Thresholding with histogram encoding (THE).

    Report the bits [one-hot(v)_u + Lap(2/ε) > θ]. Post-processing of SHE, hence ε-LDP;
    but thresholding discards information, so the true ε is *below* ε:
    p* = P(Lap(1, 2/ε) > θ), q* = P(Lap(0, 2/ε) > θ) and, on the tight event
    {bit_v = 1, bit_w = 0}, true ε = ln(p*(1−q*)/(q*(1−p*))) (e.g. 0.90 at ε = 1).
    ``threshold`` θ ∈ [0, 1] defaults to :func:`optimal_threshold` (0.56 at ε = 0.5, 0.62 at
    ε = 1, 0.82 at ε = 4).

    The thresholded bits are drawn directly: each coordinate's noise is independent, so
    bit u is an independent Bernoulli(p*) at the user's value and Bernoulli(q*)
    elsewhere — the law of [one-hot + Lap(2/ε) > θ], without the noise
    (:class:`~privcore.ldp.mechanisms.frequency._IndependentBits`).

    Wang et al. 2017, "Locally differentially private protocols for frequency estimation"
    (USENIX Security).
    """

    name = "the"
    title = "Thresholding with histogram encoding"
    output_kind = "bits"
    source = "Wang et al. 2017 (USENIX Security)"
    extra_params = ("threshold",)

    def __init__(self, epsilon: float, *, d: int, threshold: float | None = None) -> None:
        super().__init__(epsilon, d=d)
        if threshold is None:
            theta = optimal_threshold(self.epsilon)
        else:
            theta = ParameterError.unless_within(
                as_float(threshold),
                0.0,
                1.0,
                "THE's threshold θ must be a number in [{low:g}, {high:g}], got {threshold!r}.",
                code="ldp.bad_threshold",
                threshold=threshold,
            )
        self.threshold = theta
        self.p_star = _laplace_sf(theta - 1.0, self.scale)
        self.q_star = _laplace_sf(theta, self.scale)

    def _parameters(self) -> dict[str, Any]:
        return {"threshold": self.threshold, "scale": self.scale, **super()._parameters()}
