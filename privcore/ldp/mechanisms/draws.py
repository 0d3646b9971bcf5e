"""Random draws shared by the mechanisms: randomized response, independent bits and
Laplace noise, in row blocks so that memory stays bounded at any n.

On the CPU the bits and the noise come from a NumPy generator seeded by the torch one
(:func:`~privcore.ldp.device.numpy_generator`): raw random bytes at a tenth of the cost
of torch's CPU uniforms, so that a bit costs about one byte instead of one float. On
CUDA everything is drawn by torch on the generator's device.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from privcore.ldp.device import numpy_generator, torch_module

_CHUNK_ELEMENTS = 1 << 22
"""n×d work (unary bits, comb, histogram noise) is done in row blocks of about this many
elements: a 16 MB float32 block stays in cache and memory stays bounded at any n."""

_SMALL_PROBABILITY = 2.0**-8
"""float32 uniforms are multiples of 2⁻²⁴; a Bernoulli(q) drawn as U < q is then off by up
to 2⁻²⁴/q relatively. Below this q (or 1 − p) the draws use float64."""


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
