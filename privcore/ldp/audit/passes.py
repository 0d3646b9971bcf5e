"""OB's streaming passes: reports → per-half counts.

A pass reads each input's reports in chunks and reduces every chunk to counts at once:
:func:`_range_pass` finds the grid of continuous outputs (pooled range and Silverman
bandwidths) without keeping the samples; :func:`_count_pass` splits every chunk at
random into halves A and B and counts each output coordinate's values (0/1, codes, or
fine grid bins) per half (:class:`_Distributions`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from privcore.core.progress import Stage
from privcore.ldp import counts as sufficient
from privcore.ldp.audit.memory import _FINE_BINS
from privcore.ldp.device import torch_module


@dataclass(frozen=True, eq=False)
class _Distributions:
    """Per input and output coordinate: counts (discrete) or fine-binned counts
    (continuous), plus what is needed to turn them into pmfs / densities."""

    kind: str  # "discrete" | "continuous"
    counts: Any  # tensor (inputs, coordinates, values or fine bins), float64
    n: Any  # tensor (inputs,) samples per input
    edges: Any = None  # continuous: tensor (coordinates, fine bins + 1)
    bandwidth: Any = None  # continuous: tensor (coordinates,) in fine-bin units


def _half_mask(rows: int, gen: Any, dev: Any) -> Any:
    """A random half of a chunk's rows (exactly ⌊rows/2⌋ of them) for half A."""
    torch = torch_module()
    order = torch.randperm(rows, generator=gen, device=dev)
    mask = torch.zeros(rows, dtype=torch.bool, device=dev)
    mask[order[: rows // 2]] = True
    return mask


def _binary_counts(chunk: Any, in_a: Any) -> tuple[Any, Any]:
    """(coordinates, 2) counts of 0s and 1s in half A and in the whole chunk (0/1 floats):
    column sums in the chunk's own precision (exact while a chunk has fewer than 2²⁴
    rows), the half's as one matrix-vector product."""
    torch = torch_module()
    values = chunk if chunk.is_floating_point() else chunk.float()
    ones = values.sum(0).double()
    ones_a = (in_a.to(values.dtype) @ values).double()
    rows, rows_a = float(values.shape[0]), float(in_a.sum())
    return torch.stack([rows_a - ones_a, ones_a], -1), torch.stack([rows - ones, ones], -1)


def _code_counts(codes: Any, m: int, in_a: Any | None) -> tuple[Any, Any]:
    """(coordinates, m) counts of integer codes 0..m−1 in half A (None: no halves) and in
    the whole chunk."""
    torch = torch_module()
    c = codes.shape[1]
    flat = codes + torch.arange(c, device=codes.device).unsqueeze(0) * m
    whole = torch.bincount(flat.reshape(-1), minlength=c * m).reshape(c, m).double()
    if in_a is None:
        return whole, whole
    half = torch.bincount(flat[in_a].reshape(-1), minlength=c * m).reshape(c, m).double()
    return half, whole


def _grid_codes(chunk: Any, lo: Any, width: Any, bins: int) -> Any:
    """Bin index per number on a grid (lo, width per coordinate); outside values go to
    the end bins."""
    return ((chunk.double() - lo) / width).floor().long().clamp(0, bins - 1)


@dataclass(frozen=True, eq=False)
class _Grid:
    """Fine-bin edges per coordinate over the pooled range (2 % wider on each side) and
    Silverman bandwidths in fine-bin units, 1.06 σ (n/inputs)^(−1/5)."""

    edges: Any
    bandwidth: Any

    @property
    def lo(self) -> Any:
        return self.edges[:, 0]

    @property
    def width(self) -> Any:
        return self.edges[:, 1] - self.edges[:, 0]


def _range_pass(source: Any, sizes: list[int], progress: Stage, message: str) -> _Grid:
    """One pass over the samples for the grid: extremes (in the samples' own precision)
    and the pooled mean and spread (float64), without keeping the samples."""
    torch = torch_module()
    lo = hi = total = squares = None
    count = 0
    seen, goal = 0, sum(sizes)
    for index, size in enumerate(sizes):
        for chunk in source.chunks(index, size):
            low, high = chunk.amin(dim=0).double(), chunk.amax(dim=0).double()
            values = chunk.double()
            s1, s2 = values.sum(0), (values * values).sum(0)
            if lo is None:
                lo, hi, total, squares = low, high, s1, s2
            else:
                lo, hi = torch.minimum(lo, low), torch.maximum(hi, high)
                total, squares = total + s1, squares + s2
            count += int(chunk.shape[0])
            seen += int(chunk.shape[0])
            progress(seen / goal, message)
    span = torch.clamp(hi - lo, min=1e-9)
    lo, hi = lo - 0.02 * span, hi + 0.02 * span
    width = (hi - lo) / _FINE_BINS
    edges = lo.unsqueeze(1) + width.unsqueeze(1) * torch.arange(
        _FINE_BINS + 1, device=lo.device, dtype=torch.float64
    )
    mean = total / count
    variance = torch.clamp(squares - count * mean * mean, min=0.0) / max(count - 1, 1)
    bandwidth = 1.06 * variance.sqrt() * (count / len(sizes)) ** (-0.2) / width
    return _Grid(edges, torch.clamp(bandwidth, min=0.5))


def _count_pass(
    source: Any,
    sizes: list[int],
    *,
    grid: _Grid | None,
    values: int,
    split_gen: Any,
    progress: Stage,
    message: str,
) -> tuple[_Distributions, _Distributions]:
    """One pass: each chunk's reports split at random into halves A and B and reduced to
    per-coordinate counts (of 0/1, of codes 0..values−1, or of fine grid bins); counts
    drawn without the reports (:class:`privcore.ldp.counts.CountedReports`) come whole."""
    torch = torch_module()
    per_a, per_b, n_a, n_b = [], [], [], []
    seen, goal = 0, sum(sizes)
    for index, size in enumerate(sizes):
        acc_a = acc_all = None
        rows_a = rows_all = 0
        if isinstance(source, sufficient.CountedReports):
            acc_a, acc_all, rows_a, rows_all = source.halves(index, size)
            seen += size
            progress(seen / goal, message)
        else:
            for chunk in source.chunks(index, size):
                rows = int(chunk.shape[0])
                in_a = _half_mask(rows, split_gen, chunk.device)
                if grid is not None:
                    half, whole = _code_counts(
                        _grid_codes(chunk, grid.lo, grid.width, _FINE_BINS), _FINE_BINS, in_a
                    )
                elif values == 2:
                    half, whole = _binary_counts(chunk, in_a)
                else:
                    half, whole = _code_counts(chunk.long(), values, in_a)
                acc_a = half if acc_a is None else acc_a + half
                acc_all = whole if acc_all is None else acc_all + whole
                rows_a += rows // 2
                rows_all += rows
                seen += rows
                progress(seen / goal, message)
        per_a.append(acc_a)
        per_b.append(acc_all - acc_a)
        n_a.append(rows_a)
        n_b.append(rows_all - rows_a)
    dev = per_a[0].device
    kind = "continuous" if grid is not None else "discrete"
    edges = None if grid is None else grid.edges
    bandwidth = None if grid is None else grid.bandwidth

    def distributions(counts: list[Any], n: list[int]) -> _Distributions:
        sizes_ = torch.tensor(n, dtype=torch.float64, device=dev)
        return _Distributions(kind, torch.stack(counts), sizes_, edges, bandwidth)

    return distributions(per_a, n_a), distributions(per_b, n_b)
