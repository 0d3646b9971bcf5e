"""MST on Adult: privcore's own tree-structured estimation against Private-PGM's (the
`mbi` package) on the same measurements' design — the decision of how to estimate.

Adult (``assets/adult``, 30,162 rows, its 9 columns, age in 5-year bins; the columns'
values taken as their public domain) at ε = 1, δ = 10⁻⁹, seeds 0 … ``--seeds`` − 1:

- ``privcore``: :func:`privcore.dp.mst.mst` — measurements, selection and the budget as
  its docstring says, the model fitted by :mod:`privcore.dp.tree_model` (numpy), then
  1,000,000 records drawn from it;
- ``mbi``: the same MST — for a seed, the same noise and the same pairs — fitted by
  ``mbi.estimation.MirrorDescent`` (JAX, float64) through ``mst``'s ``fit``, its
  marginals read from the model — run only when ``mbi`` imports
  (it is not a dependency: give its folder with ``--mbi PATH``, e.g. a ``pip install
  --target`` of mbi 2.0 and JAX).

Figures per seed: seconds (the first mbi run includes JAX's compilation), peak memory of
the process, and the mean total-variation distance of all 36 two-way and 84 three-way
marginals to the data's.

Usage: python bench/bench_mst.py [--seeds N] [--mbi PATH]
"""

from __future__ import annotations

import argparse
import itertools
import resource
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from privcore.data import load_sample  # noqa: E402
from privcore.dp.mst import mst  # noqa: E402

EPSILON, DELTA = 1.0, 1e-9


def _adult() -> pd.DataFrame:
    frame = load_sample("adult")[0].frame.copy()
    frame["age"] = (frame["age"] // 5).astype(int)
    return frame.astype(str)


def _tvd(frame: pd.DataFrame, marginal, k: int) -> float:
    """Mean total-variation distance over every k-way marginal; ``marginal(clique)``
    gives the synthetic one as probabilities indexed like the data's groupby."""
    out = []
    for clique in itertools.combinations(frame.columns, k):
        true = frame.groupby(list(clique)).size() / len(frame)
        mine = marginal(clique)
        true, mine = true.align(mine, fill_value=0.0)
        out.append(0.5 * float((true - mine).abs().sum()))
    return float(np.mean(out))


def _peak_mb() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024


def ours(frame: pd.DataFrame, seed: int) -> dict:
    domain = {c: sorted(frame[c].unique()) for c in frame.columns}
    started = time.perf_counter()
    made = mst(frame, domain, EPSILON, DELTA, seed=seed, rows=1_000_000)
    seconds = time.perf_counter() - started
    records = made.records

    def marginal(clique):
        return records.groupby(list(clique)).size() / len(records)

    return {
        "seconds": seconds,
        "tvd2": _tvd(frame, marginal, 2),
        "tvd3": _tvd(frame, marginal, 3),
        "peak_mb": _peak_mb(),
    }


class MbiModel:
    """mbi's estimation behind the face :func:`privcore.dp.mst.mst` asks of a fit: the
    total, a clique's marginal and drawn records."""

    def __init__(self, sizes, edges, measurements, iterations):
        import jax

        jax.config.update("jax_enable_x64", True)
        from mbi import Domain, LinearMeasurement
        from mbi.estimation import MirrorDescent

        self.columns = list(sizes)
        domain = Domain(self.columns, [sizes[c] for c in self.columns])
        measured = [LinearMeasurement(m.counts, m.clique, m.sigma) for m in measurements]
        self.model = MirrorDescent().estimate(domain, measured, iters=iterations)
        self.total = float(self.model.total)

    def marginal(self, clique):
        table = np.clip(np.asarray(self.model.project(clique).datavector(flatten=False)), 0, None)
        return table / table.sum()

    def sample(self, rows, rng):
        """Records drawn by mbi (its own generator, not ``rng``): codes per column."""
        drawn = self.model.synthetic_data(rows=rows, method="sample").to_dict()
        return {c: np.asarray(drawn[c]) for c in self.columns}


def theirs(frame: pd.DataFrame, seed: int) -> dict:
    """The same MST — the same noise and pairs, for the same seed — fitted by mbi; its
    model's marginals read directly (no sampling)."""
    domain = {c: sorted(frame[c].unique()) for c in frame.columns}
    kept = {}

    def fit(sizes, edges, measurements, iterations):
        kept["model"] = MbiModel(sizes, edges, measurements, iterations)
        return kept["model"]

    started = time.perf_counter()
    mst(frame, domain, EPSILON, DELTA, seed=seed, rows=1, fit=fit)  # marginals read below
    model = kept["model"]
    model.marginal(tuple(frame.columns[:2]))  # JAX dispatches asynchronously
    seconds = time.perf_counter() - started

    def marginal(clique):
        index = pd.MultiIndex.from_product([domain[c] for c in clique], names=list(clique))
        if len(clique) == 1:
            index = pd.Index(domain[clique[0]], name=clique[0])
        return pd.Series(model.marginal(tuple(clique)).ravel(), index=index)

    return {
        "seconds": seconds,
        "tvd2": _tvd(frame, marginal, 2),
        "tvd3": _tvd(frame, marginal, 3),
        "peak_mb": _peak_mb(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--mbi", help="a folder holding mbi and JAX (not a dependency)")
    args = parser.parse_args()
    frame = _adult()
    rows = [("privcore", seed, ours(frame, seed)) for seed in range(args.seeds)]
    if args.mbi:
        sys.path.insert(0, args.mbi)
        rows += [("mbi", seed, theirs(frame, seed)) for seed in range(args.seeds)]
    print("| estimation | seed | seconds | peak MB | TVD 2-way | TVD 3-way |")
    print("|---|---|---|---|---|---|")
    for name, seed, r in rows:
        print(
            f"| {name} | {seed} | {r['seconds']:.1f} | {r['peak_mb']} "
            f"| {r['tvd2']:.4f} | {r['tvd3']:.4f} |"
        )


if __name__ == "__main__":
    main()
