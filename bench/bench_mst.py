"""MST on Adult: privcore's own tree-structured estimation against Private-PGM's (the
`mbi` package) on the same measurements' design — the decision of how to estimate.

Adult (``assets/adult``, 30,162 rows, its 9 columns, age in 5-year bins; the columns'
values taken as their public domain) at ε = 1, δ = 10⁻⁹, seeds 0 … ``--seeds`` − 1:

- ``privcore``: :func:`privcore.dp.mst.mst` — measurements, selection and the budget as
  its docstring says, the model fitted by :mod:`privcore.dp.tree_model` (numpy), then
  1,000,000 records drawn from it;
- ``mbi``: the same three steps, the model fitted by ``mbi.estimation.MirrorDescent``
  (JAX, float64), its marginals read from the model — run only when ``mbi`` imports
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
import math
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
from privcore.dp.zcdp import rho_for  # noqa: E402

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


def theirs(frame: pd.DataFrame, seed: int) -> dict:
    """The same MST with mbi's estimation (its model's marginals, no sampling)."""
    import jax

    jax.config.update("jax_enable_x64", True)
    from mbi import Domain, LinearMeasurement
    from mbi.estimation import MirrorDescent

    from privcore.dp.mechanisms import Exponential, gaussian_zcdp

    columns = list(frame.columns)
    values = {c: sorted(frame[c].unique()) for c in columns}
    codes = np.column_stack([pd.Index(values[c]).get_indexer(frame[c]) for c in columns])
    sizes = {c: len(values[c]) for c in columns}
    domain = Domain(columns, [sizes[c] for c in columns])

    def counts(clique):
        idx = [columns.index(c) for c in clique]
        shape = [sizes[c] for c in clique]
        flat = np.ravel_multi_index(codes[:, idx].T, shape)
        return np.bincount(flat, minlength=int(np.prod(shape))).astype(float)

    rng = np.random.default_rng(seed)
    started = time.perf_counter()
    third, d = rho_for(EPSILON, DELTA) / 3, len(columns)

    def measure(clique, rho):
        noisy = np.asarray(gaussian_zcdp(counts(clique), 1.0, rho, rng=rng))
        return LinearMeasurement(noisy, tuple(clique), 1.0 / math.sqrt(2 * rho))

    measured = [measure((c,), third / d) for c in columns]
    one_way = {m.clique[0]: np.clip(np.asarray(m.noisy_measurement), 0, None) for m in measured}
    total = float(np.mean([v.sum() for v in one_way.values()]))
    score = {
        p: float(
            np.abs(
                counts(p)
                - total
                * np.outer(
                    one_way[p[0]] / one_way[p[0]].sum(), one_way[p[1]] / one_way[p[1]].sum()
                ).ravel()
            ).sum()
        )
        for p in itertools.combinations(columns, 2)
    }
    part = {c: c for c in columns}

    def root(c):
        while part[c] != c:
            c = part[c]
        return c

    pick = Exponential(1.0, math.sqrt(8 * third / (d - 1)))
    for _ in range(d - 1):
        candidates = [p for p in score if root(p[0]) != root(p[1])]
        a, b = candidates[int(pick.release([score[p] for p in candidates], rng=rng))]
        part[root(a)] = root(b)
        measured.append(measure((a, b), third / (d - 1)))
    model = MirrorDescent().estimate(domain, measured, iters=1000)
    np.asarray(model.project(columns[:2]).datavector())  # JAX dispatches asynchronously
    seconds = time.perf_counter() - started

    def marginal(clique):
        table = np.clip(np.asarray(model.project(clique).datavector(flatten=False)), 0, None)
        if len(clique) > 1:
            index = pd.MultiIndex.from_product([values[c] for c in clique], names=list(clique))
        else:
            index = pd.Index(values[clique[0]], name=clique[0])
        series = pd.Series(table.ravel() / table.sum(), index=index)
        return series

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
