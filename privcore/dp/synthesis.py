"""A DP release made by a graphical-model synthesizer — MST (:mod:`privcore.dp.mst`) or
AIM (:mod:`privcore.dp.aim`) — over the quasi-identifiers and the sensitive attribute,
in the same form as the marginal release (:class:`privcore.dp.release.DpRelease`), so
that it is compared, assessed and shelved the same way.

Domains
-------
A column's values are its public domain, as in the marginal release (missing is a value
of its own). A numeric column with more than :data:`MAX_VALUES` distinct values is cut
into ``bins`` intervals of equal width between a lower and an upper bound, values
outside them counted in the first or last interval. The bounds are public when the user
gives them; otherwise they are chosen under DP from the data (:func:`dp_bounds`): the
median on a grid fixed in advance (0 and ±2^(k/16), k = 0 … 640), then the 1st and
99th percentiles at the median ∓ 2^(k/16), each by the exponential mechanism with utility
−|#{x < c} − q·n| (sensitivity 1 + q; Smith 2011, "Privacy-preserving statistical
estimation with optimal convergence rates") and a base measure preferring the narrower
of tied spans, at ε_b with ρ = ε_b²/8 each, :data:`BOUNDS_SHARE` of the budget in all —
the ledger says so, and the release lists every binning with its source. The median
needs about n·ε_b ≥ 2·1.5·ln(1281/β) records to land near the data with probability
1 − β (the exponential mechanism's utility gap; some 1,000 records at ε = 1): with
fewer, DP-chosen bounds can fall far from the data — give public bounds.

Errors
------
Each released QI × SA marginal gets the bound of :mod:`privcore.dp.uncertainty` at 95 %
(``bounds``), and so do all the two- and three-way marginals of the release's columns
that have one.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd

from privcore.classes import value_codes
from privcore.dp.mechanisms import Exponential
from privcore.dp.released import COUNT_COLUMN, DpRelease, coded_values
from privcore.dp.zcdp import ZcdpLedger, rho_for
from privcore.errors import ParameterError

__all__ = [
    "BOUNDS_SHARE",
    "DEFAULT_BINS",
    "DEFAULT_DELTA",
    "MAX_VALUES",
    "METHODS",
    "Binning",
    "bound_candidates",
    "dp_bounds",
    "needs_bins",
    "synthesize",
]

METHODS = ("marginals", "mst", "aim")
"""How a DP release is made: noisy QI × SA marginals (ε-DP), or MST / AIM ((ε, δ)-DP)."""
DEFAULT_DELTA = 1e-9
"""δ of MST and AIM when none is given."""
MAX_VALUES = 32
"""A numeric column with more distinct values than this is binned."""
DEFAULT_BINS = 10
BOUNDS_SHARE = 0.1
"""The share of ρ spent on DP-chosen bounds, when some column needs them."""
QUANTILE = 0.01
TIGHTNESS = 2.0
STEPS_PER_DOUBLING = 16

Progress = Callable[[float, str], None]


@dataclass(frozen=True)
class Binning:
    """How a numeric ``column`` was cut: ``bins`` intervals of equal width from
    ``lower`` to ``upper``; ``source`` "public" (given), "dp" (chosen under DP) or
    "data" (the data's own range, in a comparison of methods only: not private)."""

    column: str
    lower: float
    upper: float
    bins: int
    source: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def labels(self) -> list[str]:
        edges = _edge_texts(np.linspace(self.lower, self.upper, self.bins + 1))
        return [f"[{a}, {b})" for a, b in itertools.pairwise(edges)]

    def hierarchy(self) -> Any:
        """A generalization hierarchy of the intervals: each interval, then pairs of
        neighbours merged, then ``*`` — so that a k-anonymous release can generalize a
        binned column as it would any other."""
        from privcore.data.hierarchy.builders import mapping_hierarchy

        edges = _edge_texts(np.linspace(self.lower, self.upper, self.bins + 1))
        pairs = np.arange(self.bins) // 2 * 2
        merged = [f"[{edges[i]}, {edges[min(i + 2, self.bins)]})" for i in pairs]
        return mapping_hierarchy(pd.DataFrame({"interval": self.labels(), "pair": merged}))

    def codes(self, values: pd.Series) -> np.ndarray:
        """Each value's interval (outside values in the first or last)."""
        width = (self.upper - self.lower) / self.bins
        raw = np.floor((values.to_numpy(dtype=float) - self.lower) / width)
        return np.clip(np.nan_to_num(raw, nan=0.0), 0, self.bins - 1).astype(np.int64)


def _edge_texts(edges: np.ndarray) -> list[str]:
    """The edges written with 4 significant digits, or as many more as it takes for
    neighbours to read differently (bounds 1000 and 1001 cut in 10 need 6)."""
    for digits in range(4, 18):
        texts = [f"{value:.{digits}g}" for value in edges]
        if len(set(texts)) == len(texts):
            return texts
    return texts


def bound_candidates() -> np.ndarray:
    """The grid the DP median is chosen from, fixed before seeing any data: 0 and
    ±2^(k/16), k = 0 … 640 (up to 2^40, neighbours 4.4 % apart), increasing."""
    powers = _spans()
    return np.concatenate([-powers[::-1], [0.0], powers])


def _spans() -> np.ndarray:
    return 2.0 ** (np.arange(0, 40 * STEPS_PER_DOUBLING + 1) / STEPS_PER_DOUBLING)


def dp_bounds(values: np.ndarray, epsilon: float, rng) -> tuple[float, float]:
    """A DP lower and upper bound of ``values``, three exponential mechanisms at
    ``epsilon`` each (the module's steps): the median m among :func:`bound_candidates`
    (utility −|#{x < c} − n/2|), then the lower bound m − s and the upper bound m + s
    among the spans s = 2^(k/16) (utility −|#{x < c} − q·n| and −|#{x > c} − q·n|,
    q = :data:`QUANTILE`). Spans of equal utility — every one past all the data — are
    told apart by a base measure fixed in advance, e^(−γ·k/16) (γ = :data:`TIGHTNESS`), that
    prefers the narrower: it does not depend on the data, so the privacy is as it is,
    and with little data the bounds err towards the median rather than far out."""
    data = np.sort(values[np.isfinite(values)])
    n = data.size

    def below(c):
        return np.searchsorted(data, c, side="left")  # #{x < c}

    def above(c):
        return n - np.searchsorted(data, c, side="right")  # #{x > c}

    grid = bound_candidates()
    middle = Exponential(1.0 + 0.5, epsilon)
    median = grid[int(middle.release(-np.abs(below(grid) - 0.5 * n), rng=rng))]
    spans = _spans()
    tails = Exponential(1.0 + QUANTILE, epsilon)
    steps = np.arange(spans.size) / STEPS_PER_DOUBLING
    lean = 2.0 * tails.sensitivity / epsilon * TIGHTNESS * steps
    lows, highs = median - spans, median + spans
    lower = lows[int(tails.release(-lean - np.abs(below(lows) - QUANTILE * n), rng=rng))]
    upper = highs[int(tails.release(-lean - np.abs(above(highs) - QUANTILE * n), rng=rng))]
    return float(lower), float(upper)


def needs_bins(series: pd.Series) -> bool:
    """Is ``series`` numeric (not boolean) with more than :data:`MAX_VALUES` values —
    a column MST and AIM cut into intervals?"""
    if not pd.api.types.is_numeric_dtype(series) or pd.api.types.is_bool_dtype(series):
        return False
    return len(value_codes(series)[1]) > MAX_VALUES


def _public_bounds(column: str, given: Any) -> tuple[float, float]:
    try:
        lower, upper = (float(v) for v in given)
    except (TypeError, ValueError):
        lower = upper = math.nan
    if not (math.isfinite(lower) and math.isfinite(upper) and lower < upper):
        raise ParameterError(
            f"The bounds of {column} must be two numbers, the lower below the upper.",
            code="dp.bad_bounds",
            column=column,
        )
    return lower, upper


def _coded(frame: pd.DataFrame, columns: Sequence[str], binnings: Mapping[str, Binning]):
    """Each column's codes and the values its codes stand for (interval labels for a
    binned column; missing a value of its own, last)."""
    codes, values = {}, {}
    for name in columns:
        if name in binnings:
            codes[name] = binnings[name].codes(frame[name])
            values[name] = pd.Index(binnings[name].labels())
            continue
        codes[name], values[name] = coded_values(frame[name])
    return codes, values


def synthesize(
    frame: pd.DataFrame,
    columns: Sequence[str],
    *,
    method: str,
    epsilon: float,
    delta: float = DEFAULT_DELTA,
    seed: int | None = 0,
    replace: bool = False,
    bounds: Mapping[str, Any] | None = None,
    bins: int = DEFAULT_BINS,
    progress: Progress | None = None,
) -> tuple[Any, dict[str, pd.Index], tuple[Binning, ...], ZcdpLedger]:
    """MST or AIM (``method``) on ``columns`` of ``frame`` at (ε, δ): the synthesizer's
    result (records as codes mapped back to values), each column's values, the binnings
    and the ledger (bounds first, when chosen under DP)."""
    from privcore.dp.aim import aim
    from privcore.dp.mst import mst

    if method not in ("mst", "aim"):
        raise ParameterError(
            f"Unknown synthesis method {method!r}: choose one of {', '.join(METHODS)}.",
            code="dp.bad_method",
            method=method,
            choices=list(METHODS),
        )
    bins = int(bins)
    if not 2 <= bins <= 100:
        raise ParameterError(
            "Numeric columns are cut into 2 to 100 intervals.", code="dp.bad_bins", bins=bins
        )
    bounds = dict(bounds or {})
    rng = np.random.default_rng(seed)
    ledger = ZcdpLedger(rho_for(epsilon, delta))
    binned = [c for c in columns if needs_bins(frame[c]) or c in bounds]
    chosen = [c for c in binned if c not in bounds]
    binnings = {}
    for name in binned:
        if name in bounds:
            if not pd.api.types.is_numeric_dtype(frame[name]):
                raise ParameterError(
                    f"Bounds were given to {name}, whose values are not numbers: only a "
                    "numeric column is cut into intervals.",
                    code="dp.bounds_not_numeric",
                    column=name,
                )
            lower, upper = _public_bounds(name, bounds[name])
            binnings[name] = Binning(name, lower, upper, bins, "public")
    if chosen:
        rho_each = BOUNDS_SHARE * ledger.rho / (3 * len(chosen))
        for name in chosen:
            ledger.spend(f"median of {name}", rho_each)
            ledger.spend(f"lower bound of {name}", rho_each)
            ledger.spend(f"upper bound of {name}", rho_each)
            lower, upper = dp_bounds(
                frame[name].to_numpy(dtype=float), math.sqrt(8 * rho_each), rng
            )
            binnings[name] = Binning(name, lower, upper, bins, "dp")
    codes, values = _coded(frame, columns, binnings)
    coded = pd.DataFrame(codes)
    domain = {c: list(range(len(values[c]))) for c in columns}
    left, seed_left = ledger.remaining, int(rng.integers(2**31))  # the synthesizer: the rest
    if method == "mst":
        result = mst(coded, domain, epsilon, delta, seed=seed_left, replace=replace, rho=left)
    else:
        result = aim(
            coded,
            domain,
            epsilon,
            delta,
            seed=seed_left,
            replace=replace,
            rho=left,
            progress=progress,
        )
    for step in result.ledger.steps:
        ledger.spend(step.label, step.rho)
    return result, values, tuple(binnings[c] for c in binned), ledger


def graphical_release(
    frame: pd.DataFrame,
    qi: Sequence[str],
    sa: str,
    *,
    method: str,
    epsilon: float,
    delta: float,
    seed: Any,
    relation: str,
    bounds: Mapping[str, Any] | None = None,
    bins: int = DEFAULT_BINS,
    progress: Progress | None = None,
) -> Any:
    """The :class:`~privcore.dp.release.DpRelease` of MST or AIM on ``qi`` and ``sa``:
    the records, their QI × SA marginals, the ρ ledger step by step, the binnings and
    each released marginal's error bound (:mod:`privcore.dp.uncertainty`, 95 %)."""
    from privcore.classes import code_counts
    from privcore.dp.uncertainty import marginal_bounds

    columns = [*qi, sa]
    result, values, binnings, ledger = synthesize(
        frame,
        columns,
        method=method,
        epsilon=epsilon,
        delta=delta,
        seed=seed if isinstance(seed, int) else 0,
        replace=relation == "replace",
        bounds=bounds,
        bins=bins,
        progress=progress,
    )
    codes = {c: result.records[c].to_numpy(dtype=np.int64) for c in columns}
    records = pd.DataFrame({c: values[c].take(codes[c]) for c in columns}, columns=columns)
    n_sa = len(values[sa])
    qi_counts = {
        name: (values[name], code_counts(codes[name] * n_sa + codes[sa], len(values[name]) * n_sa))
        for name in qi
    }
    released = [(sa,)] + [(name, sa) for name in qi]
    spent = np.cumsum([step.rho for step in ledger.steps])
    steps = [
        {"label": step.label, "rho": step.rho, "spent_rho": float(total)}
        for step, total in zip(ledger.steps, spent, strict=True)
    ]
    return release_of_records(
        records,
        sa,
        (values[sa], code_counts(codes[sa], n_sa)),
        qi_counts,
        epsilon=float(epsilon),
        ledger=steps,
        relation=relation,
        method=method,
        delta=float(delta),
        rho=ledger.rho,
        bounds=tuple(b.to_dict() for b in marginal_bounds(result, released)),
        binnings=tuple(b.to_dict() for b in binnings),
    )


def release_of_records(
    records: pd.DataFrame,
    sa: str,
    sa_counts: tuple[pd.Index, np.ndarray],
    qi_counts: Mapping[str, tuple[pd.Index, np.ndarray]],
    **fields: Any,
) -> DpRelease:
    """The :class:`~privcore.dp.released.DpRelease` of ``records`` (N̂: their number), the
    marginal release's and MST's or AIM's alike. ``sa_counts``: the SA's values and the
    count of each, its marginal [SA, count]; ``qi_counts[q]``: QI q's values and the
    counts of each (value of q, value of SA) pair, q's value major (a table q × SA or
    its flattening), its marginal [q, SA, count]. ``fields``: the rest of the release
    (``epsilon``, ``ledger``, ``relation`` and a synthesizer's own)."""
    sa_values, counts = sa_counts
    n_sa = len(sa_values)
    marginals = {sa: pd.DataFrame({sa: sa_values, COUNT_COLUMN: counts})}
    for name, (values, table) in qi_counts.items():
        marginals[name] = pd.DataFrame(
            {
                name: values.repeat(n_sa),
                sa: sa_values.take(np.tile(np.arange(n_sa), len(values))),
                COUNT_COLUMN: np.ravel(table),
            }
        )
    return DpRelease(
        qi=tuple(qi_counts),
        sa=sa,
        total=len(records),
        marginals=marginals,
        records=records,
        **fields,
    )


def binned_frame(frame: pd.DataFrame, binnings: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """``frame`` with each binned column replaced by its intervals' labels: the table a
    graphical release is compared against."""
    if not binnings:
        return frame
    out = frame.copy()
    for item in binnings:
        binning = Binning(**item)
        labels = pd.Index(binning.labels())
        out[binning.column] = labels.take(binning.codes(frame[binning.column]))
    return out
