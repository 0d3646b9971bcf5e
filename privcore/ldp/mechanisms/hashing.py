"""Local hashing (binary and optimized; Bassily & Smith 2015, Wang et al. 2017): a
report is a user's hash function and the randomized response of its input's hash."""

from __future__ import annotations

import math
from abc import abstractmethod
from collections.abc import Callable, Iterator
from typing import Any

from privcore.errors import ParameterError
from privcore.ldp.base import Outputs
from privcore.ldp.device import torch_module
from privcore.ldp.mechanisms.draws import _randomized_response, _rows_per_block
from privcore.ldp.mechanisms.frequency import _FrequencyOracle

HASH_PRIME = 2**31 - 1
"""P of the universal family H(v) = ((a·v + b) mod P) mod g (a Mersenne prime > d)."""


class _LocalHashing(_FrequencyOracle):
    """Local hashing: each user draws H(v) = ((a·v + b) mod P) mod g from a universal
    family (a ∈ [1, P), b ∈ [0, P), P = 2³¹−1), reports (a, b) and y = GRR_g(H(v)) with
    p = e^ε/(e^ε+g−1). The hash is independent of v, so the likelihood ratio is that of
    GRR over g values, p/q' with q' = (1−p)/(g−1): ε-LDP, tight on the event
    {y = H(v), H(w) ≠ H(v)}.

    A report supports u when H(u) = y (``comb``). p* = p; q* = c·p + (1−c)·q' where
    c = P[H(u) = H(v)] for u ≠ v is computed exactly for this family (≈ 1/g, which makes
    q* ≈ 1/g as in the paper; using the exact c keeps the estimator exactly unbiased).
    """

    output_kind = "hash"
    report_bytes = 128
    coordinate_bytes = 24  # comb: int64 hashes of every value, bits, float32 vectors

    def __init__(self, epsilon: float, *, d: int) -> None:
        super().__init__(epsilon, d=d)
        self.g = self._buckets()
        e = math.exp(self.epsilon)
        self.p = e / (e + self.g - 1)
        self.q_other = 1.0 / (e + self.g - 1)
        self.collision = self._collision_probability(self.g)
        self.p_star = self.p
        self.q_star = self.collision * self.p + (1.0 - self.collision) * self.q_other

    @abstractmethod
    def _buckets(self) -> int:
        """g, the number of hash buckets (binary or optimized local hashing)."""

    @staticmethod
    def _collision_probability(g: int) -> float:
        """P[H(u) = H(v)] for fixed u ≠ v: (a·u+b, a·v+b) mod P is uniform over ordered
        pairs of distinct residues, so c = Σ_r c_r(c_r − 1)/(P(P−1)), c_r = #{z < P: z ≡ r}."""
        k, extra = divmod(HASH_PRIME, g)
        same = extra * (k + 1) * k + (g - extra) * k * (k - 1)
        return same / (HASH_PRIME * (HASH_PRIME - 1))

    def perturb(self, inputs: Any, generator: Any) -> Outputs:
        torch = torch_module()
        values = self._values(inputs, generator)
        n, dev = values.shape[0], values.device
        a = torch.randint(1, HASH_PRIME, (n,), generator=generator, device=dev, dtype=torch.int64)
        b = torch.randint(0, HASH_PRIME, (n,), generator=generator, device=dev, dtype=torch.int64)
        hashed = (a * values + b).remainder_(HASH_PRIME).remainder_(self.g)  # a·v < 2⁴⁸
        reported = _randomized_response(hashed, self.g, self.p, generator)
        return Outputs("hash", reported, torch.stack((a, b), dim=1))

    @staticmethod
    def _hash(hashes: Any, u: Any, g: int) -> Any:
        return (hashes[:, 0:1] * u + hashes[:, 1:2]).remainder_(HASH_PRIME).remainder_(g)

    def _comb_blocks(self, outputs: Outputs) -> Iterator[Any]:
        """``comb`` in row blocks: bool (rows, d), bit u = [H_user(u) = y_user]."""
        torch = torch_module()
        values, hashes = outputs.values, outputs.hashes
        domain = torch.arange(self.d, device=values.device, dtype=torch.int64)
        rows = _rows_per_block(self.d)
        for start in range(0, values.shape[0], rows):
            block = hashes[start : start + rows]
            yield self._hash(block, domain, self.g) == values[start : start + rows, None]

    def _check_outputs(self, outputs: Outputs) -> int:
        n = super()._check_outputs(outputs)
        if outputs.hashes is None or tuple(outputs.hashes.shape) != (n, 2):
            raise ParameterError(
                "Local hashing reports need an (n, 2) tensor of hash parameters (a, b).",
                code="ldp.bad_outputs",
                kind=outputs.kind,
            )
        return n

    def _support_counts(self, outputs: Outputs) -> Any:
        total = None
        for block in self._comb_blocks(outputs):
            counts = block.sum(dim=0)
            total = counts if total is None else total + counts
        return total.double()

    def vectors(self, outputs: Outputs) -> Any:
        """``comb``: float32 (n, d), bit u = [H_user(u) = y_user]."""
        self._check_outputs(outputs)
        torch = torch_module()
        return torch.cat([block.to(torch.float32) for block in self._comb_blocks(outputs)])

    def event(self, v: Any, w: Any) -> Callable[[Outputs], Any]:
        v, w = self._pair(v, w)

        def happened(outputs: Outputs) -> Any:
            hv = self._hash(outputs.hashes, v, self.g)[:, 0]
            hw = self._hash(outputs.hashes, w, self.g)[:, 0]
            return (outputs.values == hv) & (hw != hv)

        return happened

    def event_probabilities(self, v: Any, w: Any) -> tuple[float, float]:
        self._pair(v, w)
        apart = 1.0 - self.collision
        return apart * self.p, apart * self.q_other

    def _parameters(self) -> dict[str, Any]:
        return {"g": self.g, "p": self.p, "collision": self.collision, **super()._parameters()}


class BinaryLocalHashing(_LocalHashing):
    """Binary local hashing (g = 2); see :class:`_LocalHashing`. ε-LDP, tight.

    Bassily & Smith 2015 (STOC); Wang et al. 2017 (USENIX Security).
    """

    name = "blh"
    title = "Binary local hashing"
    source = "Bassily & Smith 2015 (STOC); Wang et al. 2017 (USENIX Security)"

    def _buckets(self) -> int:
        return 2


class OptimizedLocalHashing(_LocalHashing):
    """Optimized local hashing, g = ⌈e^ε + 1⌉; see :class:`_LocalHashing`. ε-LDP, tight.

    Wang et al. 2017, "Locally differentially private protocols for frequency estimation"
    (USENIX Security).
    """

    name = "olh"
    title = "Optimized local hashing"
    source = "Wang et al. 2017 (USENIX Security)"

    def _buckets(self) -> int:
        return math.ceil(math.exp(self.epsilon) + 1.0)
