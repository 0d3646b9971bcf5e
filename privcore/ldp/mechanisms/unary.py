"""Unary encodings: symmetric (basic RAPPOR), optimized, and a broken mix of the two
(Wang et al. 2017; Erlingsson et al. 2014). Their reports are d independent bits
(:class:`~privcore.ldp.mechanisms.frequency._IndependentBits`)."""

from __future__ import annotations

import math
from abc import abstractmethod
from typing import Any

from privcore.ldp.mechanisms.frequency import _IndependentBits


class _UnaryEncoding(_IndependentBits):
    """One-hot encode, then keep each 1 with probability p and turn each 0 into 1 with
    probability q. The event {bit_v = 1, bit_w = 0} has probabilities p(1−q) (input v) and
    q(1−p) (input w); true ε = ln(p(1−q)/(q(1−p))). Estimator: p* = p, q* = q."""

    report_bytes = 64
    coordinate_bytes = 16  # random bytes (CUDA: float32/64 uniforms), bits, float32 vectors

    def __init__(self, epsilon: float, *, d: int) -> None:
        super().__init__(epsilon, d=d)
        self.p, self.q = self._probabilities()
        self.p_star, self.q_star = self.p, self.q

    @abstractmethod
    def _probabilities(self) -> tuple[float, float]:
        """(p, q): keep a 1, and turn a 0 into a 1 (each encoding's own choice)."""

    def _parameters(self) -> dict[str, Any]:
        return {"p": self.p, "q": self.q}


class SymmetricUnaryEncoding(_UnaryEncoding):
    """Symmetric unary encoding (basic one-time RAPPOR).

    p = e^{ε/2}/(e^{ε/2}+1), q = 1/(e^{ε/2}+1): two bits differ between neighbouring
    one-hot vectors, each flipped with ε/2, so p(1−q)/(q(1−p)) = e^ε: ε-LDP, tight.

    Erlingsson et al. 2014 (CCS), "RAPPOR"; Wang et al. 2017 (USENIX Security).
    """

    name = "sue"
    title = "Symmetric unary encoding (basic RAPPOR)"
    source = "Erlingsson et al. 2014 (CCS); Wang et al. 2017 (USENIX Security)"

    def _probabilities(self) -> tuple[float, float]:
        h = self.epsilon / 2.0
        return 1.0 / (1.0 + math.exp(-h)), 1.0 / (math.exp(h) + 1.0)


class OptimizedUnaryEncoding(_UnaryEncoding):
    """Optimized unary encoding.

    p = ½, q = 1/(e^ε+1): p(1−q)/(q(1−p)) = (1−q)/q = e^ε, ε-LDP, tight; the q minimizing
    the estimator's variance for this budget.

    Wang et al. 2017, "Locally differentially private protocols for frequency estimation"
    (USENIX Security).
    """

    name = "oue"
    title = "Optimized unary encoding"
    source = "Wang et al. 2017 (USENIX Security)"

    def _probabilities(self) -> tuple[float, float]:
        return 0.5, 1.0 / (math.exp(self.epsilon) + 1.0)


class BrokenOUE(_UnaryEncoding):
    """BROKEN on purpose: OUE that took SUE's keep probability.

    p = e^{ε/2}/(e^{ε/2}+1) (SUE's p) instead of ½, with OUE's q = 1/(e^ε+1). Then
    p/(1−p) = e^{ε/2} and (1−q)/q = e^ε, so the true ε = ln(p(1−q)/(q(1−p))) = 3ε/2.

    (The SPEC's literal example, p = ½ with SUE's q = 1/(e^{ε/2}+1), has true ε = ε/2: it
    is over-noised, not a leak, so it cannot serve to test a violation detector. This is
    the same SUE/OUE mix-up in the other probability.)
    """

    name = "broken_oue"
    title = "OUE with SUE's p (broken)"
    broken = True
    source = "Wang et al. 2017 (USENIX Security), mis-parametrized"

    def _probabilities(self) -> tuple[float, float]:
        return 1.0 / (1.0 + math.exp(-self.epsilon / 2.0)), 1.0 / (math.exp(self.epsilon) + 1.0)
