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
Parameters are validated in one place (:func:`_check_epsilon`, :func:`_check_domain`,
``_FrequencyOracle._values``, ``_MeanMechanism._values``); user mistakes raise
:class:`~privcore.errors.ParameterError`.

Frequency oracles take int64 inputs in 0..d−1 and, following Wang et al. 2017 ("Locally
differentially private protocols for frequency estimation", USENIX Security), estimate
f̂_v = (C_v/n − q*)/(p* − q*), where C_v counts the reports that *support* v, p* is the
probability that a report supports its own input and q* that it supports another value.
Mean mechanisms take floats in [−1, 1] ([0, 1] for Square Wave) and estimate the mean.

The broken variants (``broken = True``) are what a plausible implementation slip gives;
each docstring says what is wrong and what ε the mechanism really has.

torch is imported lazily (:func:`privcore.ldp.device.torch_module`), never at import time.
"""

from __future__ import annotations

import math
import operator
from abc import abstractmethod
from collections.abc import Callable, Iterator
from functools import cached_property
from itertools import combinations
from typing import Any, ClassVar

import numpy as np

from privcore.errors import ParameterError
from privcore.ldp.base import Mechanism, Outputs
from privcore.ldp.device import numpy_generator, torch_module

MAX_EPSILON = 20.0
"""Beyond ε = 20 a report is the truth with probability ≥ 1 − 2·10⁻⁹, e^ε exceeds the hash
range of local hashing, and float64 can no longer tell B = (e^ε+1)/(e^ε−1) from 1."""

MAX_DOMAIN = 100_000

HASH_PRIME = 2**31 - 1
"""P of the universal family H(v) = ((a·v + b) mod P) mod g (a Mersenne prime > d)."""

_CHUNK_ELEMENTS = 1 << 22
"""n×d work (unary bits, comb, histogram noise) is done in row blocks of about this many
elements: a 16 MB float32 block stays in cache and memory stays bounded at any n."""

_SYMBOL_CELLS = 1 << 20
"""Subset selection lists its C(d, ω) possible outputs (for counts drawn without the
reports) when they hold at most this many bits in all (1 MB as int8)."""

_SMALL_PROBABILITY = 2.0**-8
"""float32 uniforms are multiples of 2⁻²⁴; a Bernoulli(q) drawn as U < q is then off by up
to 2⁻²⁴/q relatively. Below this q (or 1 − p) the draws use float64."""


# --------------------------------------------------------------------------- validation


def _check_epsilon(epsilon: Any) -> float:
    """ε as a float; finite and in (0, MAX_EPSILON], else ParameterError ``ldp.bad_epsilon``."""
    try:
        value = float(epsilon)
    except (TypeError, ValueError):
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise ParameterError(
            f"ε must be a finite number > 0 (ε ≤ 0 gives no privacy guarantee), got {epsilon!r}.",
            code="ldp.bad_epsilon",
            epsilon=epsilon,
        )
    if value > MAX_EPSILON:
        raise ParameterError(
            f"ε = {value:g} is above {MAX_EPSILON:g}: such a mechanism reports the truth "
            "almost surely and its probabilities are beyond float64 precision.",
            code="ldp.bad_epsilon",
            epsilon=epsilon,
        )
    return value


def _check_domain(d: Any) -> int:
    """d as an int in [2, MAX_DOMAIN], else ParameterError ``ldp.bad_domain``."""
    try:
        if isinstance(d, bool):
            raise TypeError
        value = operator.index(d)
    except TypeError:
        value = None
    if value is None or not 2 <= value <= MAX_DOMAIN:
        raise ParameterError(
            f"The domain size d must be an integer from 2 to {MAX_DOMAIN:,}, got {d!r}.",
            code="ldp.bad_domain",
            d=d,
        )
    return value


def _bad_inputs(message: str, **params: Any) -> ParameterError:
    return ParameterError(message, code="ldp.bad_inputs", **params)


# --------------------------------------------------------------------------- sampling helpers


def _uniform_dtype(*probabilities: float) -> Any:
    """float32 uniforms unless a Bernoulli probability (or its complement) is too small."""
    torch = torch_module()
    smallest = min(min(x, 1.0 - x) for x in probabilities)
    return torch.float32 if smallest >= _SMALL_PROBABILITY else torch.float64


def _rows_per_block(width: int) -> int:
    return max(1, _CHUNK_ELEMENTS // max(1, width))


def _on_cpu(generator: Any) -> bool:
    return generator.device.type == "cpu"


def _randomized_response(true: Any, m: int, p: float, generator: Any) -> Any:
    """k-ary randomized response over 0..m−1: keep ``true`` with probability p, else a
    uniformly random *other* value (r ~ U{0..m−2}, shifted past the true value).

    On the CPU both draws come from NumPy (seeded from ``generator``): a float64 uniform
    against p and an unbiased integer (Lemire's method); on CUDA from torch."""
    torch = torch_module()
    n, dev = true.shape[0], true.device
    if _on_cpu(generator):
        rng = numpy_generator(generator)
        keep = torch.from_numpy(rng.random(n) < p)
        other = torch.from_numpy(rng.integers(0, m - 1, n, dtype=np.int64))
    else:
        keep = torch.rand(n, generator=generator, device=dev, dtype=torch.float64) < p
        other = torch.randint(0, m - 1, (n,), generator=generator, device=dev, dtype=torch.int64)
    other += other >= true
    return torch.where(keep, true, other)


def _bernoulli_positions(size: int, rate: float, rng: Any) -> Any:
    """Where iid Bernoulli(rate) trials over 0..size−1 succeed (sorted int64 positions):
    the gaps between successes are Geometric(rate), drawn in batches until they pass
    ``size``. Gaps are capped at size + 1 before their running sum (a gap that long
    already ends past the last position), so the sum cannot overflow."""
    found = []
    last = -1
    while True:
        expected = (size - 1 - last) * rate
        batch = int(expected + 6.0 * math.sqrt(expected) + 16)
        gaps = np.minimum(rng.geometric(rate, batch), size + 1)
        positions = last + np.cumsum(gaps)
        if positions[-1] >= size:
            found.append(positions[positions < size])
            return np.concatenate(found)
        found.append(positions)
        last = int(positions[-1])


def _bernoulli_fill(out: Any, q: float, rng: Any) -> None:
    """Fill the bool array ``out`` with iid Bernoulli(q) bits, 0 ≤ q < 1, from one random
    byte per bit.

    With L = ⌊256q⌋, a uniform byte B gives B < L with probability L/256 ≤ q. The rest,
    r = (q − L/256)/(1 − L/256), is added as an independent sparse Bernoulli(r) set
    (r < 1/(256(1 − q))): P[bit] = L/256 + (1 − L/256)·r = q exactly, bits independent.
    The byte comparison is one vectorized pass; the sparse set costs one geometric draw
    per ~1/r bits."""
    scaled = q * 256.0  # exact in float64
    level = math.floor(scaled)
    size = out.size
    if level == 0:  # q < 1/256: only the sparse set
        out.fill(False)
        if q > 0:
            out.reshape(-1)[_bernoulli_positions(size, q, rng)] = True
        return
    raw = rng.bit_generator.random_raw((size + 7) // 8)
    np.less(raw.view(np.uint8)[:size].reshape(out.shape), level, out=out)
    if scaled > level:
        rest = (scaled - level) / (256.0 - level)
        out.reshape(-1)[_bernoulli_positions(size, rest, rng)] = True


def _unary_bits(values: Any, d: int, p: float, q: float, generator: Any) -> Any:
    """Bool (n, d) reports whose bits are independent: 1 with probability p at the
    user's own value, q elsewhere (unary encodings; THE's thresholded bits).

    CPU: all n·d bits Bernoulli(q) from random bytes (:func:`_bernoulli_fill`, in blocks
    of _CHUNK_ELEMENTS), then the own column replaced by a fresh Bernoulli(p) per user
    (a float64 uniform). CUDA: one uniform per bit (float32, float64 for small
    probabilities), U < q, the own column re-tested as U < p."""
    torch = torch_module()
    n, dev = values.shape[0], values.device
    bits = torch.empty((n, d), dtype=torch.bool, device=dev)
    if _on_cpu(generator):
        rng = numpy_generator(generator)
        flat = bits.numpy().reshape(-1)
        for start in range(0, flat.size, _CHUNK_ELEMENTS):
            _bernoulli_fill(flat[start : start + _CHUNK_ELEMENTS], q, rng)
        own = torch.from_numpy(rng.random(n) < p)
        bits.scatter_(1, values[:, None], own[:, None])
        return bits
    dtype = _uniform_dtype(p, q)
    rows = _rows_per_block(d)
    for start in range(0, n, rows):
        block = values[start : start + rows, None]
        u = torch.rand((block.shape[0], d), generator=generator, device=dev, dtype=dtype)
        out = bits[start : start + rows]
        torch.lt(u, q, out=out)
        out.scatter_(1, block, u.gather(1, block) < p)
    return bits


def _laplace(shape: tuple[int, ...], scale: float, generator: Any, dtype: Any, dev: Any) -> Any:
    """Lap(0, scale) from one uniform per value: the top half of U ∈ [0, 1) gives the sign,
    the rest V = 2U mod 1 an exponential −ln(1 − V) (finite: V < 1)."""
    torch = torch_module()
    u = torch.rand(shape, generator=generator, device=dev, dtype=dtype)
    upper = u >= 0.5
    magnitude = torch.log1p(-(2.0 * u - upper.to(dtype)))  # −Exp(1), exact remap of u
    return torch.where(upper, -scale * magnitude, scale * magnitude)


def _laplace_fill(out: Any, scale: float, rng: Any) -> None:
    """Fill the float32 array ``out`` with Lap(0, scale) noise: a standard exponential
    (NumPy's ziggurat, float32) with an independent random sign (one random bit per
    number set into the IEEE sign bit), times ``scale`` — |Lap| is Exp(1/scale) and its
    sign a fair coin, independent of it."""
    rng.standard_exponential(dtype=np.float32, out=out)
    raw = rng.bit_generator.random_raw((out.size + 63) // 64)
    signs = np.unpackbits(raw.view(np.uint8), count=out.size).astype(np.uint32)
    np.bitwise_or(out.view(np.uint32), signs << np.uint32(31), out=out.view(np.uint32))
    out *= np.float32(scale)


def _laplace_sf(t: float, scale: float) -> float:
    """P(Lap(0, scale) > t)."""
    if t >= 0:
        return 0.5 * math.exp(-t / scale)
    return 1.0 - 0.5 * math.exp(t / scale)


# --------------------------------------------------------------------------- frequency oracles


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
        values = torch.as_tensor(inputs, device=generator.device)
        if values.dim() != 1:
            raise _bad_inputs(
                f"Inputs must be a 1-D batch of values, got shape {tuple(values.shape)}.",
                shape=tuple(values.shape),
            )
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
        for x in (v, w):
            try:
                if isinstance(x, bool):
                    raise TypeError
                x = operator.index(x)
            except TypeError:
                x = None
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
        v, w = self._pair(v, w)
        return lambda outputs: outputs.values[:, v] & ~outputs.values[:, w]

    def event_probabilities(self, v: Any, w: Any) -> tuple[float, float]:
        self._pair(v, w)
        d, om, p = self.d, self.omega, self.p_include
        # input v: v kept and w not among the ω−1 others; input w: w dropped, v among ω others
        return p * (d - om) / (d - 1), (1.0 - p) * om / (d - 1)

    def _parameters(self) -> dict[str, Any]:
        return {"omega": self.omega, **super()._parameters()}


class _UnaryEncoding(_FrequencyOracle):
    """One-hot encode, then keep each 1 with probability p and turn each 0 into 1 with
    probability q. The event {bit_v = 1, bit_w = 0} has probabilities p(1−q) (input v) and
    q(1−p) (input w); true ε = ln(p(1−q)/(q(1−p))). Estimator: p* = p, q* = q."""

    output_kind = "bits"
    report_bytes = 64
    coordinate_bytes = 16  # random bytes (CUDA: float32/64 uniforms), bits, float32 vectors

    def __init__(self, epsilon: float, *, d: int) -> None:
        super().__init__(epsilon, d=d)
        self.p, self.q = self._probabilities()
        self.p_star, self.q_star = self.p, self.q

    @abstractmethod
    def _probabilities(self) -> tuple[float, float]:
        """(p, q): keep a 1, and turn a 0 into a 1 (each encoding's own choice)."""

    def perturb(self, inputs: Any, generator: Any) -> Outputs:
        """Independent bits, p at the user's value and q elsewhere (:func:`_unary_bits`)."""
        values = self._values(inputs, generator)
        return Outputs("bits", _unary_bits(values, self.d, self.p, self.q, generator))

    def coordinate_pmf(self, value: Any) -> Any:
        """Bit u is 1 with probability p (u = value) or q, independently of the others."""
        pmf = np.empty((self.d, 2))
        pmf[:, 1] = self.q
        pmf[int(value), 1] = self.p
        pmf[:, 0] = 1.0 - pmf[:, 1]
        return pmf

    def event(self, v: Any, w: Any) -> Callable[[Outputs], Any]:
        v, w = self._pair(v, w)
        return lambda outputs: outputs.values[:, v] & ~outputs.values[:, w]

    def event_probabilities(self, v: Any, w: Any) -> tuple[float, float]:
        self._pair(v, w)
        return self.p * (1.0 - self.q), self.q * (1.0 - self.p)

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


class ThresholdHistogramEncoding(_HistogramEncoding):
    """Thresholding with histogram encoding (THE).

    Report the bits [one-hot(v)_u + Lap(2/ε) > θ]. Post-processing of SHE, hence ε-LDP;
    but thresholding discards information, so the true ε is *below* ε:
    p* = P(Lap(1, 2/ε) > θ), q* = P(Lap(0, 2/ε) > θ) and, on the tight event
    {bit_v = 1, bit_w = 0}, true ε = ln(p*(1−q*)/(q*(1−p*))) (e.g. 0.90 at ε = 1).
    ``threshold`` θ ∈ [0, 1] defaults to :func:`optimal_threshold` (0.56 at ε = 0.5, 0.62 at
    ε = 1, 0.82 at ε = 4).

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
            try:
                theta = float(threshold)
            except (TypeError, ValueError):
                theta = math.nan
            if not 0.0 <= theta <= 1.0:
                raise ParameterError(
                    f"THE's threshold θ must be a number in [0, 1], got {threshold!r}.",
                    code="ldp.bad_threshold",
                    threshold=threshold,
                )
        self.threshold = theta
        self.p_star = _laplace_sf(theta - 1.0, self.scale)
        self.q_star = _laplace_sf(theta, self.scale)

    def perturb(self, inputs: Any, generator: Any) -> Outputs:
        """The thresholded bits drawn directly: each coordinate's noise is independent, so
        bit u is an independent Bernoulli(p*) at the user's value and Bernoulli(q*)
        elsewhere — the law of [one-hot + Lap(2/ε) > θ], without the noise
        (:func:`_unary_bits`)."""
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
        v, w = self._pair(v, w)
        return lambda outputs: outputs.values[:, v] & ~outputs.values[:, w]

    def event_probabilities(self, v: Any, w: Any) -> tuple[float, float]:
        self._pair(v, w)
        p, q = self.p_star, self.q_star
        return p * (1.0 - q), q * (1.0 - p)

    def _parameters(self) -> dict[str, Any]:
        return {"threshold": self.threshold, "scale": self.scale, **super()._parameters()}


# --------------------------------------------------------------------------- mean mechanisms


class _MeanMechanism(Mechanism):
    """Inputs: floats in :meth:`input_range`; one real report per user; estimate the mean."""

    family = "mean"
    output_kind = "real"
    extra_params: ClassVar[tuple[str, ...]] = ()
    report_bytes = 128  # a handful of float64 temporaries per report

    def __init__(self, epsilon: float) -> None:
        self.epsilon = _check_epsilon(epsilon)
        self.d = None

    def _values(self, inputs: Any, generator: Any) -> Any:
        torch = torch_module()
        values = torch.as_tensor(inputs, device=generator.device)
        if values.dim() != 1:
            raise _bad_inputs(
                f"Inputs must be a 1-D batch of values, got shape {tuple(values.shape)}.",
                shape=tuple(values.shape),
            )
        if values.dtype == torch.bool or values.is_complex():
            raise _bad_inputs(
                f"{self.title} takes real numbers, got {values.dtype}.", dtype=str(values.dtype)
            )
        values = values.to(torch.float64)
        lo, hi = self.input_range()
        if values.numel() and bool((~((values >= lo) & (values <= hi))).any()):
            raise _bad_inputs(
                f"{self.title} takes inputs in [{lo:g}, {hi:g}] (no NaN).", low=lo, high=hi
            )
        return values

    def _pair(self, v: Any, w: Any) -> tuple[float, float]:
        lo, hi = self.input_range()
        try:
            pair = (float(v), float(w))
        except (TypeError, ValueError):
            pair = (math.nan, math.nan)
        if not all(lo <= x <= hi for x in pair) or pair[0] == pair[1]:
            raise ParameterError(
                f"An input pair needs two different values in [{lo:g}, {hi:g}], got {v!r}, {w!r}.",
                code="ldp.bad_pair",
                v=v,
                w=w,
            )
        return pair

    def _report_mean(self, outputs: Outputs) -> Any:
        n = self._check_outputs(outputs)
        return outputs.values.sum(dtype=torch_module().float64) / n

    def estimate(self, outputs: Outputs) -> Any:
        """Unbiased mean of the inputs (0-dim float64 tensor on the reports' device)."""
        return self._report_mean(outputs)

    def vectors(self, outputs: Outputs) -> Any:
        """One column: the reported real."""
        self._check_outputs(outputs)
        return outputs.values.unsqueeze(1)

    def _parameters(self) -> dict[str, Any]:
        return {}

    def describe(self) -> dict[str, Any]:
        lo, hi = self.input_range()
        return {
            **super().describe(),
            "input_range": [lo, hi],
            **self._parameters(),
            "source": self.source,
        }


class Duchi(_MeanMechanism):
    """Duchi et al.'s one-dimensional mechanism.

    Report ±B with B = (e^ε+1)/(e^ε−1) and P(+B) = ½ + x/(2B) = ½ + x(e^ε−1)/(2(e^ε+1)), so
    E[y] = x. The likelihood ratio is (B + x)/(B + x') ≤ (B+1)/(B−1) = e^ε (x = 1, x' = −1,
    event {+B}): ε-LDP, tight.

    Duchi, Jordan & Wainwright 2013 (FOCS), 2018 (JASA), "Minimax optimal procedures for
    locally private estimation".
    """

    name = "duchi"
    title = "Duchi et al. (±B)"
    source = "Duchi, Jordan & Wainwright 2013 (FOCS), 2018 (JASA)"

    def __init__(self, epsilon: float) -> None:
        super().__init__(epsilon)
        m = math.expm1(self.epsilon)
        self.bound = (m + 2.0) / m

    def perturb(self, inputs: Any, generator: Any) -> Outputs:
        torch = torch_module()
        x = self._values(inputs, generator)
        u = torch.rand(x.shape, generator=generator, device=x.device, dtype=torch.float64)
        plus = u < 0.5 + x / (2.0 * self.bound)
        atoms = torch.full_like(x, self.bound)  # float64: B exactly, for the event y = B
        return Outputs("real", torch.where(plus, atoms, -atoms))

    def true_epsilon(self) -> float:
        return math.log1p(2.0 / (self.bound - 1.0))

    def _plus_probability(self, x: float) -> float:
        return 0.5 + x / (2.0 * self.bound)

    def event(self, v: Any, w: Any) -> Callable[[Outputs], Any]:
        v, w = self._pair(v, w)
        atom = self.bound if v > w else -self.bound
        return lambda outputs: outputs.values == atom

    def event_probabilities(self, v: Any, w: Any) -> tuple[float, float]:
        v, w = self._pair(v, w)
        if v > w:
            return self._plus_probability(v), self._plus_probability(w)
        return 1.0 - self._plus_probability(v), 1.0 - self._plus_probability(w)

    def _parameters(self) -> dict[str, Any]:
        return {"B": self.bound}


class Piecewise(_MeanMechanism):
    """Piecewise Mechanism (PM).

    C = (e^{ε/2}+1)/(e^{ε/2}−1), l(x) = (C+1)x/2 − (C−1)/2, r(x) = l(x) + C − 1. The report
    has density p = (e^ε − e^{ε/2})/(2e^{ε/2}+2) on [l(x), r(x)] and p/e^ε on the rest of
    [−C, C]; sampled as: with probability (inner mass) e^{ε/2}/(e^{ε/2}+1) uniform on
    [l, r], else uniform on the two outer pieces by length. E[y] = x. The density ratio is
    at most e^ε, reached on [l(v), r(v)] ∖ [l(w), r(w)] for every v ≠ w: ε-LDP, tight.

    Wang et al. 2019, "Collecting and analyzing multidimensional data with local
    differential privacy" (ICDE).
    """

    name = "piecewise"
    title = "Piecewise mechanism"
    source = "Wang et al. 2019 (ICDE)"

    def __init__(self, epsilon: float) -> None:
        super().__init__(epsilon)
        self.C, self.inner_mass = self._shape()
        c, pi = self.C, self.inner_mass
        self.inner_density = pi / (c - 1.0)
        self.outer_density = (1.0 - pi) / (c + 1.0)
        # E[y | x] = x·(πC − (C−1)/2): 1 for the correct PM, derived in the class docstring
        self.mean_scale = self._mean_scale()

    def _shape(self) -> tuple[float, float]:
        """(C, inner mass)."""
        half = self.epsilon / 2.0
        m = math.expm1(half)
        return (m + 2.0) / m, 1.0 / (1.0 + math.exp(-half))

    def _mean_scale(self) -> float:
        return 1.0

    def _ends(self, x: Any) -> tuple[Any, Any]:
        left = (self.C + 1.0) / 2.0 * x - (self.C - 1.0) / 2.0
        return left, left + (self.C - 1.0)

    def perturb(self, inputs: Any, generator: Any) -> Outputs:
        torch = torch_module()
        x = self._values(inputs, generator)
        c = self.C
        inner = (
            torch.rand(x.shape, generator=generator, device=x.device, dtype=torch.float64)
            < self.inner_mass
        )
        u = torch.rand(x.shape, generator=generator, device=x.device, dtype=torch.float64)
        left, _ = self._ends(x)
        in_piece = left + (c - 1.0) * u
        z = (c + 1.0) * u  # position along the outer pieces [−C, l) ∪ [r, C), length C + 1
        out_piece = z - c + (c - 1.0) * (z >= left + c).to(torch.float64)
        return Outputs("real", torch.where(inner, in_piece, out_piece))

    def estimate(self, outputs: Outputs) -> Any:
        return self._report_mean(outputs) / self.mean_scale

    def true_epsilon(self) -> float:
        return math.log(self.inner_density / self.outer_density)

    def _difference(self, v: float, w: float) -> tuple[float, float]:
        """[l(v), r(v)] ∖ [l(w), r(w)] as a closed interval (boundaries have measure 0)."""
        lv, rv = self._ends(v)
        lw, rw = self._ends(w)
        return (max(lv, rw), rv) if v > w else (lv, min(rv, lw))

    def event(self, v: Any, w: Any) -> Callable[[Outputs], Any]:
        lo, hi = self._difference(*self._pair(v, w))
        return lambda outputs: (outputs.values >= lo) & (outputs.values <= hi)

    def event_probabilities(self, v: Any, w: Any) -> tuple[float, float]:
        lo, hi = self._difference(*self._pair(v, w))
        return self.inner_density * (hi - lo), self.outer_density * (hi - lo)

    def _parameters(self) -> dict[str, Any]:
        return {
            "C": self.C,
            "inner_mass": self.inner_mass,
            "inner_density": self.inner_density,
            "outer_density": self.outer_density,
        }


class BrokenPiecewise(Piecewise):
    """BROKEN on purpose: PM whose C is computed from ε instead of ε/2.

    C' = (e^ε+1)/(e^ε−1) (narrower support), while the sampler keeps the correct PM's inner
    mass π = e^{ε/2}/(e^{ε/2}+1). With t = e^{ε/2}: the inner piece has length C'−1 =
    2/(t²−1) and density π/(C'−1); the outer pieces length C'+1 = 2t²/(t²−1) and density
    (1−π)/(C'+1). Both densities are constant in x, and for v = 1, w = −1 the inner pieces
    [1, C'] and [−C', −1] are disjoint, so the worst ratio over outputs and inputs is

        (π/(1−π)) · (C'+1)/(C'−1) = t · t² = e^{3ε/2}:  true ε = 3ε/2.

    It is also biased: E[y] = x(πC' − (C'−1)/2) = x(t²+t+1)/(t+1)²; the estimator divides
    by that factor, so it stays unbiased.
    """

    name = "broken_piecewise"
    title = "Piecewise mechanism with C from ε (broken)"
    broken = True
    source = "Wang et al. 2019 (ICDE), mis-parametrized"

    def _shape(self) -> tuple[float, float]:
        m = math.expm1(self.epsilon)
        return (m + 2.0) / m, 1.0 / (1.0 + math.exp(-self.epsilon / 2.0))

    def _mean_scale(self) -> float:
        return self.inner_mass * self.C - (self.C - 1.0) / 2.0


class LaplaceMean(_MeanMechanism):
    """Laplace mechanism on [−1, 1]: y = x + Lap(2/ε).

    The sensitivity of the identity on [−1, 1] is 2, so the density ratio
    exp((|y−x'| − |y−x|)ε/2) ≤ e^ε, reached on {y ≥ 1} for x = 1, x' = −1: ε-LDP, tight.

    Dwork, McSherry, Nissim & Smith 2006 (TCC), "Calibrating noise to sensitivity".
    """

    name = "laplace"
    title = "Laplace mechanism"
    source = "Dwork et al. 2006 (TCC)"

    def __init__(self, epsilon: float) -> None:
        super().__init__(epsilon)
        self.scale = self._scale()

    def _scale(self) -> float:
        return 2.0 / self.epsilon

    def perturb(self, inputs: Any, generator: Any) -> Outputs:
        torch = torch_module()
        x = self._values(inputs, generator)
        return Outputs(
            "real", x + _laplace(tuple(x.shape), self.scale, generator, torch.float64, x.device)
        )

    def true_epsilon(self) -> float:
        return 2.0 / self.scale

    def event(self, v: Any, w: Any) -> Callable[[Outputs], Any]:
        v, w = self._pair(v, w)
        if v > w:
            return lambda outputs: outputs.values >= v
        return lambda outputs: outputs.values <= v

    def event_probabilities(self, v: Any, w: Any) -> tuple[float, float]:
        v, w = self._pair(v, w)
        return 0.5, 0.5 * math.exp(-abs(v - w) / self.scale)

    def _parameters(self) -> dict[str, Any]:
        return {"scale": self.scale}


class BrokenLaplace(LaplaceMean):
    """BROKEN on purpose: Laplace on [−1, 1] with scale 1/ε, i.e. sensitivity taken as 1
    instead of 2. The density ratio reaches exp(2/(1/ε)) = e^{2ε}: true ε = 2ε."""

    name = "broken_laplace"
    title = "Laplace mechanism with scale 1/ε (broken)"
    broken = True
    source = "Dwork et al. 2006 (TCC), mis-calibrated"

    def _scale(self) -> float:
        return 1.0 / self.epsilon


class Hybrid(_MeanMechanism):
    """Hybrid Mechanism (HM).

    With probability α = 1 − e^{−ε/2} run the Piecewise mechanism, else Duchi et al.'s, both
    at ε, when ε > 0.61 (ε* of the paper); only Duchi's otherwise. Both are unbiased, so
    HM is. A mixture of ε-LDP mechanisms is ε-LDP; the tight event for v = 1, w = −1 is the
    union of PM's [l(v), r(v)] ∖ [l(w), r(w)] and Duchi's atom +B (PM puts no mass on the
    atom, Duchi none between atoms), both with ratio e^ε.

    Wang et al. 2019, "Collecting and analyzing multidimensional data with local
    differential privacy" (ICDE).
    """

    name = "hybrid"
    title = "Hybrid mechanism"
    source = "Wang et al. 2019 (ICDE)"

    THRESHOLD = 0.61

    def __init__(self, epsilon: float) -> None:
        super().__init__(epsilon)
        self.piecewise = Piecewise(self.epsilon)
        self.duchi = Duchi(self.epsilon)
        self.alpha = -math.expm1(-self.epsilon / 2.0) if self.epsilon > self.THRESHOLD else 0.0

    def perturb(self, inputs: Any, generator: Any) -> Outputs:
        torch = torch_module()
        x = self._values(inputs, generator)
        use_pm = (
            torch.rand(x.shape, generator=generator, device=x.device, dtype=torch.float64)
            < self.alpha
        )
        pm = self.piecewise.perturb(x, generator).values
        du = self.duchi.perturb(x, generator).values
        return Outputs("real", torch.where(use_pm, pm, du))

    def true_epsilon(self) -> float:
        if self.alpha == 0.0:
            return self.duchi.true_epsilon()
        return max(self.piecewise.true_epsilon(), self.duchi.true_epsilon())

    def _parts(self, v: float, w: float) -> tuple[bool, bool]:
        """Which pieces the maximizing event takes: PM's interval and/or Duchi's atom
        (whichever has the larger ratio for this pair; both when they tie, as at ±1)."""
        if self.alpha == 0.0:
            return False, True
        pm = self.piecewise.event_probabilities(v, w)
        du = self.duchi.event_probabilities(v, w)
        pm_ratio, du_ratio = pm[0] / pm[1], du[0] / du[1]
        return du_ratio <= pm_ratio * (1 + 1e-12), du_ratio >= pm_ratio * (1 - 1e-12)

    def event(self, v: Any, w: Any) -> Callable[[Outputs], Any]:
        v, w = self._pair(v, w)
        take_pm, take_atom = self._parts(v, w)
        in_pm = self.piecewise.event(v, w)
        at_atom = self.duchi.event(v, w)
        bound = self.duchi.bound

        def happened(outputs: Outputs) -> Any:
            hit = torch_module().zeros_like(outputs.values, dtype=torch_module().bool)
            if take_pm:  # Duchi's atoms never fall in PM's event, even inside its interval
                hit |= in_pm(outputs) & (outputs.values.abs() != bound)
            if take_atom:
                hit |= at_atom(outputs)
            return hit

        return happened

    def event_probabilities(self, v: Any, w: Any) -> tuple[float, float]:
        v, w = self._pair(v, w)
        take_pm, take_atom = self._parts(v, w)
        pv = pw = 0.0
        if take_pm:
            a, b = self.piecewise.event_probabilities(v, w)
            pv, pw = pv + self.alpha * a, pw + self.alpha * b
        if take_atom:
            a, b = self.duchi.event_probabilities(v, w)
            pv, pw = pv + (1.0 - self.alpha) * a, pw + (1.0 - self.alpha) * b
        return pv, pw

    def _parameters(self) -> dict[str, Any]:
        return {"alpha": self.alpha, "C": self.piecewise.C, "B": self.duchi.bound}


class SquareWave(_MeanMechanism):
    """Square Wave mechanism (SW) on [0, 1].

    b = (εe^ε − e^ε + 1)/(2e^ε(e^ε − 1 − ε)); the report has density e^ε/(2be^ε+1) on
    |y − v| ≤ b and 1/(2be^ε+1) elsewhere on [−b, 1+b]; sampled as: with probability
    2be^ε/(2be^ε+1) uniform on [v−b, v+b], else U ~ [0, 1) mapped to U − b (U < v) or
    U + b. Density ratio ≤ e^ε, reached on [v−b, v+b] ∖ [w−b, w+b]: ε-LDP, tight.

    The paper reconstructs the input distribution (EMS); here ``estimate`` is the mean:
    with λ = 1/(2be^ε+1), E[y | v] = 2bλ(e^ε−1)·v + λ(½ + b) (an affine map, derived from
    the two pieces), inverted on the mean report.

    Li et al. 2020, "Estimating numerical distributions under local differential privacy"
    (SIGMOD).
    """

    name = "square_wave"
    title = "Square wave"
    source = "Li et al. 2020 (SIGMOD)"

    def __init__(self, epsilon: float) -> None:
        super().__init__(epsilon)
        eps = self.epsilon
        m = math.expm1(eps)  # e^ε − 1, stable for small ε
        self.b = (eps * (m + 1.0) - m) / (2.0 * (m + 1.0) * (m - eps))
        scale = 2.0 * self.b * (m + 1.0) + 1.0
        self.high = (m + 1.0) / scale
        self.low = 1.0 / scale
        self.slope = 2.0 * self.b * self.low * m
        self.intercept = self.low * (0.5 + self.b)

    def input_range(self) -> tuple[float, float]:
        return (0.0, 1.0)

    def perturb(self, inputs: Any, generator: Any) -> Outputs:
        torch = torch_module()
        v = self._values(inputs, generator)
        b = self.b
        near = (
            torch.rand(v.shape, generator=generator, device=v.device, dtype=torch.float64)
            < 2.0 * b * self.high
        )
        u = torch.rand(v.shape, generator=generator, device=v.device, dtype=torch.float64)
        y_near = v - b + 2.0 * b * u
        y_far = u - b + 2.0 * b * (u >= v).to(torch.float64)
        return Outputs("real", torch.where(near, y_near, y_far))

    def estimate(self, outputs: Outputs) -> Any:
        return (self._report_mean(outputs) - self.intercept) / self.slope

    def true_epsilon(self) -> float:
        return math.log(self.high / self.low)

    def _difference(self, v: float, w: float) -> tuple[float, float]:
        b = self.b
        return (max(v - b, w + b), v + b) if v > w else (v - b, min(v + b, w - b))

    def event(self, v: Any, w: Any) -> Callable[[Outputs], Any]:
        lo, hi = self._difference(*self._pair(v, w))
        return lambda outputs: (outputs.values >= lo) & (outputs.values <= hi)

    def event_probabilities(self, v: Any, w: Any) -> tuple[float, float]:
        lo, hi = self._difference(*self._pair(v, w))
        return self.high * (hi - lo), self.low * (hi - lo)

    def _parameters(self) -> dict[str, Any]:
        return {"b": self.b, "high_density": self.high, "low_density": self.low}


# --------------------------------------------------------------------------- registry

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
