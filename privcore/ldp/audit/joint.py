"""OB's joint symbols: a discrete vector output measured as one symbol per report when
it takes few distinct values and its coordinates are dependent given the input (a
G-test); see the package docstring ("Dependent coordinates")."""

from __future__ import annotations

import math
from itertools import combinations
from typing import Any

from scipy import special

from privcore.core.progress import Stage
from privcore.ldp import counts as sufficient
from privcore.ldp.audit.estimate import _densities, _differs
from privcore.ldp.audit.passes import _Distributions, _half_mask
from privcore.ldp.device import torch_module

_JOINT_LIMIT = 256  # distinct output vectors measured as one symbol
_JOINT_SAMPLES = 50  # samples per distinct vector needed, for the smallest input
_DEPENDENCE_ALPHA = 1e-3  # G-test level (split over inputs) for "dependent coordinates"


def _joint_pass(
    source: Any,
    sizes: list[int],
    coordinates: list[int],
    values: int,
    split_gen: Any,
    progress: Stage,
) -> tuple[Any, list[Any], list[Any]] | None:
    """The reports restricted to ``coordinates`` as one symbol each (a mixed-radix key
    of their codes), counted per input and half; None as soon as more than 256
    distinct vectors, or fewer than 50 samples per vector for the smallest input,
    appear (the joint pmf would be too thin)."""
    torch = torch_module()
    smallest = min(sizes)
    if isinstance(source, sufficient.CountedReports):
        limit = min(_JOINT_LIMIT, smallest // _JOINT_SAMPLES)
        found = source.joint(sizes, coordinates, values, split_gen, limit)
        progress(1.0, "OB: joint output vectors")
        return found
    keys = None  # sorted distinct keys seen so far
    counts_a: list[Any] = []
    counts_all: list[Any] = []
    seen, goal = 0, sum(sizes)
    for index, size in enumerate(sizes):
        half_acc = whole_acc = None
        for chunk in source.chunks(index, size):
            rows = int(chunk.shape[0])
            in_a = _half_mask(rows, split_gen, chunk.device)
            codes = chunk[:, coordinates].long()
            radix = values ** torch.arange(len(coordinates), device=codes.device)
            key = (codes * radix).sum(1)
            local, inverse = torch.unique(key, return_inverse=True)
            merged = local if keys is None else torch.unique(torch.cat([keys, local]))
            distinct = int(merged.shape[0])
            if distinct > _JOINT_LIMIT or distinct * _JOINT_SAMPLES > smallest:
                return None
            if keys is not None and distinct > int(keys.shape[0]):
                where = torch.searchsorted(merged, keys)
                counts_a = [_moved(c, where, distinct) for c in counts_a]
                counts_all = [_moved(c, where, distinct) for c in counts_all]
                if half_acc is not None:
                    half_acc = _moved(half_acc, where, distinct)
                    whole_acc = _moved(whole_acc, where, distinct)
            keys = merged
            position = torch.searchsorted(keys, local)[inverse]
            half = torch.bincount(position[in_a], minlength=distinct).double()
            whole = torch.bincount(position, minlength=distinct).double()
            half_acc = half if half_acc is None else half_acc + half
            whole_acc = whole if whole_acc is None else whole_acc + whole
            seen += rows
            progress(seen / goal, "OB: joint output vectors")
        counts_a.append(half_acc)
        counts_all.append(whole_acc)
    return keys, counts_a, counts_all


def _moved(counts: Any, where: Any, size: int) -> Any:
    """Counts over the old distinct keys placed at their positions among ``size``."""
    torch = torch_module()
    out = torch.zeros(size, dtype=counts.dtype, device=counts.device)
    out[where] = counts
    return out


def _joint_symbols(
    source: Any,
    sizes: list[int],
    halves: tuple[_Distributions, _Distributions],
    *,
    values: int,
    tau_d: float,
    split_gen: Any,
    progress: Stage,
) -> tuple[tuple[_Distributions, _Distributions], dict[str, Any] | None]:
    """Discrete vector outputs as one joint symbol per output, when few enough: first
    the coordinates whose pmf differs between some pair of inputs (JS > τ_d on all
    samples; the others would add 0 to the sum), then the whole vector. Each candidate
    replays the samples (:meth:`rewind`) and counts the vectors as symbols; the first
    with ≤ 256 distinct values is tested for dependence (G-test): independent
    coordinates keep the per-coordinate counts and None, dependent ones give the
    symbol halves and ``{"symbols", "coordinates", "p_value"}``."""
    torch = torch_module()
    first, second = halves
    d = int(first.counts.shape[1])
    if d < 2:
        return halves, None
    whole = _Distributions("discrete", first.counts + second.counts, first.n + second.n)
    f = _densities(whole, whole.counts, "pmf")
    differ = torch.zeros(d, dtype=torch.bool, device=f.device)
    for i, j in combinations(range(f.shape[0]), 2):
        differ |= _differs(f, i, j, "discrete", tau_d, 0.0)
    chosen = torch.nonzero(differ.reshape(-1)).reshape(-1).tolist()
    candidates = [chosen] if 2 <= len(chosen) < d else []
    for coordinates in [*candidates, list(range(d))]:
        if len(coordinates) * math.log2(values) > 62:  # the key must fit in 63 bits
            continue
        source.rewind()
        counted = _joint_pass(source, sizes, coordinates, values, split_gen, progress)
        if counted is None:
            continue
        keys, counts_a, counts_all = counted
        radix = values ** torch.arange(len(coordinates), device=keys.device)
        vectors = (keys.unsqueeze(1) // radix) % values
        p_value = _independence_p_value(vectors, counts_all)
        if p_value >= _DEPENDENCE_ALPHA / len(sizes):
            return halves, None  # independent given the input: the sum is exact
        n_a = torch.stack([c.sum() for c in counts_a]).double()
        n_all = torch.stack([c.sum() for c in counts_all]).double()
        symbols_a = torch.stack(counts_a).unsqueeze(1)  # inputs × 1 × symbols
        symbols_b = torch.stack(counts_all).unsqueeze(1) - symbols_a
        distinct = int(keys.shape[0])
        if distinct < 2:  # a pmf needs two values at least
            symbols_a = torch.nn.functional.pad(symbols_a, (0, 2 - distinct))
            symbols_b = torch.nn.functional.pad(symbols_b, (0, 2 - distinct))
        joint = (
            _Distributions("discrete", symbols_a, n_a),
            _Distributions("discrete", symbols_b, n_all - n_a),
        )
        return joint, {"symbols": distinct, "coordinates": coordinates, "p_value": p_value}
    return halves, None


def _independence_p_value(vectors: Any, observed: list[Any]) -> float:
    """Smallest p-value over inputs of the G-test that the coordinates are independent
    given the input: G = 2 Σ O ln(O/E) over the observed vectors, E = n·Π marginals,
    with Π L_c − 1 − Σ (L_c − 1) degrees of freedom (L_c values of coordinate c).
    ``observed``: per input, the count of each distinct vector (a row of ``vectors``)."""
    torch = torch_module()
    levels = [torch.unique(vectors[:, c]) for c in range(vectors.shape[1])]
    cells = math.prod(len(v) for v in levels)
    dof = cells - 1 - sum(len(v) - 1 for v in levels)
    if dof <= 0:
        return 1.0
    smallest = 1.0
    for counts in observed:
        counts = counts.double()
        n = float(counts.sum())
        if n <= 0:
            continue
        expected = torch.full_like(counts, n)
        for c, values in enumerate(levels):
            index = torch.searchsorted(values, vectors[:, c].contiguous())
            marginal = torch.zeros(len(values), dtype=torch.float64, device=counts.device)
            marginal.index_add_(0, index, counts)
            expected = expected * marginal[index] / n
        seen = counts > 0
        g = 2.0 * float((counts[seen] * torch.log(counts[seen] / expected[seen])).sum())
        smallest = min(smallest, float(special.chdtrc(dof, g)))
    return smallest
