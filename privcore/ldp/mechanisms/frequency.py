"""Frequency oracles (inputs 0..d−1, Wang et al. 2017): their common base, generalized
randomized response and subset selection, and the base of the oracles whose reports are
independent bits (the unary encodings, THE).

Each estimates f̂_v = (C_v/n − q*)/(p* − q*), where C_v counts the reports that
*support* v, p* is the probability that a report supports its own input and q* that it
supports another value.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cached_property
from itertools import combinations
from typing import Any, ClassVar

import numpy as np

from privcore.errors import ParameterError
from privcore.ldp.base import Mechanism, Outputs
from privcore.ldp.device import torch_module
from privcore.ldp.mechanisms.draws import _randomized_response, _rows_per_block, _unary_bits
from privcore.ldp.mechanisms.validation import (
    _bad_inputs,
    _batch,
    _check_domain,
    _check_epsilon,
    _integer_or_none,
)

_SYMBOL_CELLS = 1 << 20
"""Subset selection lists its C(d, ω) possible outputs (for counts drawn without the
reports) when they hold at most this many bits in all (1 MB as int8)."""


def _one_without_other(v: int, w: int) -> Callable[[Outputs], Any]:
    """The event {bit_v = 1, bit_w = 0} of bit-vector reports (a checked pair v ≠ w)."""
    return lambda outputs: outputs.values[:, v] & ~outputs.values[:, w]


class _FrequencyOracle(Mechanism):
    """Inputs 0..d−1; estimate f̂_v = (C_v/n − q*)/(p* − q*) from support counts C_v."""

    family = "frequency"
    extra_params: ClassVar[tuple[str, ...]] = ()  # keyword parameters beyond ε and d

    p_star: float  # P(a report supports its own input)
    q_star: float  # P(a report supports a given other value)

    def __init__(self, epsilon: float, *, d: int) -> None:
        self.epsilon = _check_epsilon(epsilon)
        self.d = _check_domain(d)

    # -- validation
    def _values(self, inputs: Any, generator: Any) -> Any:
        torch = torch_module()
        values = _batch(inputs, generator)
        if values.dtype == torch.bool or values.is_floating_point() or values.is_complex():
            raise _bad_inputs(
                f"{self.title} takes integer values 0..{self.d - 1}, got {values.dtype}.",
                dtype=str(values.dtype),
            )
        values = values.to(torch.int64)
        if values.numel() and bool(((values < 0) | (values >= self.d)).any()):
            raise _bad_inputs(f"Inputs must lie in 0..{self.d - 1} (d = {self.d}).", d=self.d)
        return values

    def _pair(self, v: Any, w: Any) -> tuple[int, int]:
        pair = []
        for x in map(_integer_or_none, (v, w)):
            if x is None or not 0 <= x < self.d:
                raise ParameterError(
                    f"An input pair needs two values in 0..{self.d - 1}, got {v!r}, {w!r}.",
                    code="ldp.bad_pair",
                    v=v,
                    w=w,
                )
            pair.append(x)
        if pair[0] == pair[1]:
            raise ParameterError(
                "The two inputs of a pair must differ.", code="ldp.bad_pair", v=v, w=w
            )
        return pair[0], pair[1]

    # -- aggregation
    def _support_counts(self, outputs: Outputs) -> Any:
        """Per value u, the number of reports supporting u (float64 tensor of length d)."""
        return outputs.values.sum(dim=0).double()

    def estimate(self, outputs: Outputs) -> Any:
        """Unbiased frequencies f̂ (float64 tensor of length d on the reports' device)."""
        n = self._check_outputs(outputs)
        counts = self._support_counts(outputs)
        return (counts / n - self.q_star) / (self.p_star - self.q_star)

    def true_epsilon(self) -> float:
        p, q = self.event_probabilities(*self.worst_pair())
        return math.log(p / q)

    def vectors(self, outputs: Outputs) -> Any:
        """bits as float32 0/1 columns (unary encodings, SS, THE)."""
        self._check_outputs(outputs)
        return outputs.values.to(torch_module().float32)

    def _parameters(self) -> dict[str, Any]:
        return {"p_star": self.p_star, "q_star": self.q_star}

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), **self._parameters(), "source": self.source}


class GeneralizedRandomizedResponse(_FrequencyOracle):
    """Generalized randomized response (direct encoding, k-RR).

    Report the true value with probability p = e^ε/(e^ε+d−1), each other value with
    probability q = 1/(e^ε+d−1). Since p/q = e^ε, it satisfies ε-LDP, tightly: the event
    {y = v} has probability p under input v and q under any w ≠ v. Estimator: p* = p, q* = q.

    Wang et al. 2017, "Locally differentially private protocols for frequency estimation"
    (USENIX Security); Kairouz et al. 2014.
    """

    name = "grr"
    title = "Generalized randomized response"
    output_kind = "category"
    report_bytes = 48
    source = "Wang et al. 2017 (USENIX Security); Kairouz et al. 2014"

    def __init__(self, epsilon: float, *, d: int) -> None:
        super().__init__(epsilon, d=d)
        e = math.exp(self._keep_epsilon())
        self.p = self.p_star = e / (e + self.d - 1)
        self.q = self.q_star = 1.0 / (e + self.d - 1)

    def _keep_epsilon(self) -> float:
        """The ε the keep probability is computed from."""
        return self.epsilon

    def perturb(self, inputs: Any, generator: Any) -> Outputs:
        values = self._values(inputs, generator)
        return Outputs("category", _randomized_response(values, self.d, self.p, generator))

    def _support_counts(self, outputs: Outputs) -> Any:
        return torch_module().bincount(outputs.values, minlength=self.d).double()

    def coordinate_pmf(self, value: Any) -> Any:
        """One coordinate, the category: p at ``value``, q = (1 − p)/(d − 1) elsewhere."""
        pmf = np.full((1, self.d), self.q)
        pmf[0, int(value)] = self.p
        return pmf

    def event(self, v: Any, w: Any) -> Callable[[Outputs], Any]:
        v, _ = self._pair(v, w)
        return lambda outputs: outputs.values == v

    def event_probabilities(self, v: Any, w: Any) -> tuple[float, float]:
        self._pair(v, w)
        return self.p, self.q

    def vectors(self, outputs: Outputs) -> Any:
        """One column: the reported category."""
        self._check_outputs(outputs)
        return outputs.values.to(torch_module().float32).unsqueeze(1)


class BrokenGRR(GeneralizedRandomizedResponse):
    """BROKEN on purpose: GRR whose keep probability uses ε + 1.

    p = e^{ε+1}/(e^{ε+1}+d−1), q = 1/(e^{ε+1}+d−1) while ε is claimed: p/q = e^{ε+1}, so the
    true ε is ε + 1. The estimator uses the p and q actually sampled, so it stays unbiased
    (and looks better than it should).
    """

    name = "broken_grr"
    title = "GRR with p from ε + 1 (broken)"
    broken = True

    def _keep_epsilon(self) -> float:
        return self.epsilon + 1.0


class SubsetSelection(_FrequencyOracle):
    """ω-subset selection.

    Report a set of ω = max(1, round(d/(e^ε+1))) values as a d-bit vector: it contains the
    true value with probability p = ωe^ε/(ωe^ε+d−ω), and the remaining ω−1 (or ω) values
    are drawn uniformly without replacement from the other d−1. Any output set S has
    P[S | v]/P[S | w] ≤ e^ε, with equality when v ∈ S, w ∉ S, so the event
    {bit_v = 1, bit_w = 0} has ratio exactly e^ε. Estimator: p* = p,
    q* = p(ω−1)/(d−1) + (1−p)ω/(d−1). (round halves up.)

    Wang et al. 2016, "Mutual information optimally local private discrete distribution
    estimation" (arXiv:1607.08025); Ye & Barg 2018 (IEEE Trans. Inf. Theory).
    """

    name = "ss"
    title = "Subset selection"
    output_kind = "bits"
    report_bytes = 64
    coordinate_bytes = 24  # float64 keys, top-k, bits and float32 vectors
    source = "Wang et al. 2016 (arXiv:1607.08025); Ye & Barg 2018 (IEEE Trans. Inf. Theory)"

    def __init__(self, epsilon: float, *, d: int) -> None:
        super().__init__(epsilon, d=d)
        e = math.exp(self.epsilon)
        self.omega = max(1, math.floor(self.d / (e + 1.0) + 0.5))
        w, d = self.omega, self.d
        self.p_include = w * e / (w * e + d - w)
        self.p_star = self.p_include
        self.q_star = (self.p_include * (w - 1) + (1.0 - self.p_include) * w) / (d - 1)

    def perturb(self, inputs: Any, generator: Any) -> Outputs:
        """Random keys per value; the true value's key is forced to 2 (kept) or −1
        (dropped); the ω largest keys form the set."""
        torch = torch_module()
        values = self._values(inputs, generator)
        n, dev = values.shape[0], values.device
        include = torch.rand(n, generator=generator, device=dev, dtype=torch.float64)
        forced = (include < self.p_include).to(torch.float64) * 3.0 - 1.0  # 2 or −1
        bits = torch.zeros((n, self.d), dtype=torch.bool, device=dev)
        rows = _rows_per_block(self.d)
        for start in range(0, n, rows):
            block = values[start : start + rows, None]
            keys = torch.rand(
                (block.shape[0], self.d), generator=generator, device=dev, dtype=torch.float64
            )
            keys.scatter_(1, block, forced[start : start + rows, None])
            chosen = keys.topk(self.omega, dim=1, sorted=False).indices
            bits[start : start + rows].scatter_(1, chosen, True)
        return Outputs("bits", bits)

    @cached_property
    def _subsets(self) -> Any:
        """Every ω-subset of 0..d−1 as a row of d bits (int8), when there are at most
        _SYMBOL_CELLS bits in all; None otherwise."""
        if math.comb(self.d, self.omega) * self.d > _SYMBOL_CELLS:
            return None
        members = np.array(list(combinations(range(self.d), self.omega)), dtype=np.int64)
        codes = np.zeros((len(members), self.d), dtype=np.int8)
        np.put_along_axis(codes, members, 1, axis=1)
        return codes

    def symbol_pmf(self, value: Any) -> Any:
        """The C(d, ω) possible sets: one holding ``value`` has probability
        p/C(d−1, ω−1) (the value kept, its ω−1 companions uniform), any other
        (1 − p)/C(d−1, ω) (dropped, ω uniform others). None when there are too many."""
        codes = self._subsets
        if codes is None:
            return None
        d, omega = self.d, self.omega
        held = codes[:, int(value)] == 1
        inside = self.p_include / math.comb(d - 1, omega - 1)
        outside = (1.0 - self.p_include) / math.comb(d - 1, omega)
        return codes, np.where(held, inside, outside)

    def event(self, v: Any, w: Any) -> Callable[[Outputs], Any]:
        return _one_without_other(*self._pair(v, w))

    def event_probabilities(self, v: Any, w: Any) -> tuple[float, float]:
        self._pair(v, w)
        d, om, p = self.d, self.omega, self.p_include
        # input v: v kept and w not among the ω−1 others; input w: w dropped, v among ω others
        return p * (d - om) / (d - 1), (1.0 - p) * om / (d - 1)

    def _parameters(self) -> dict[str, Any]:
        return {"omega": self.omega, **super()._parameters()}


class _IndependentBits(_FrequencyOracle):
    """Reports of d independent bits: bit u is 1 with probability p* at the user's own
    value and q* elsewhere (the unary encodings; THE's thresholded bits). The event
    {bit_v = 1, bit_w = 0} has probabilities p*(1−q*) (input v) and q*(1−p*) (input w),
    so the true ε is ln(p*(1−q*)/(q*(1−p*)))."""

    output_kind = "bits"

    def perturb(self, inputs: Any, generator: Any) -> Outputs:
        """Independent bits, p* at the user's value and q* elsewhere (:func:`_unary_bits`)."""
        values = self._values(inputs, generator)
        return Outputs("bits", _unary_bits(values, self.d, self.p_star, self.q_star, generator))

    def coordinate_pmf(self, value: Any) -> Any:
        """Bit u is 1 with probability p* (u = value) or q*, independently of the others."""
        pmf = np.empty((self.d, 2))
        pmf[:, 1] = self.q_star
        pmf[int(value), 1] = self.p_star
        pmf[:, 0] = 1.0 - pmf[:, 1]
        return pmf

    def event(self, v: Any, w: Any) -> Callable[[Outputs], Any]:
        return _one_without_other(*self._pair(v, w))

    def event_probabilities(self, v: Any, w: Any) -> tuple[float, float]:
        self._pair(v, w)
        p, q = self.p_star, self.q_star
        return p * (1.0 - q), q * (1.0 - p)
