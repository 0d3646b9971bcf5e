"""DP synthetic data on Adult: AIM and MST (privcore's own, and the reference
implementation's when given), the marginal release and an independent no-privacy
baseline, on the same workload — every 2-way and 3-way marginal of the 9 columns.

Adult (``assets/adult``, 30,162 rows, its 9 columns, age in 5-year bins; the columns'
values taken as their public domain) at ε = 1, δ = 10⁻⁹, seeds 0 … ``--seeds`` − 1:

- ``aim``: :func:`privcore.dp.aim.aim` (workload: every 3-way marginal; model size up to
  80 MB; 1,000 mirror-descent steps for the final fit, ``--round-iterations`` per round);
- ``mst``: :func:`privcore.dp.mst.mst`;
- ``marginals``: :func:`privcore.dp.release.dp_release`, the marginal release, with
  salary-class as its sensitive attribute and the 8 other columns as QIs (ε-DP);
- ``independent``: each column drawn from its true marginal (no privacy) — the error
  of keeping no relation at all;
- ``reference-aim`` / ``reference-mst``: the mechanisms of the Private-PGM repository
  (``mechanisms/aim.py``, ``mechanisms/mst.py``) on the mbi 2.0 wheel, run when
  ``--reference DIR`` holds those files (with ``mechanism.py`` and ``cdp2adp.py``) and
  ``--mbi DIR`` holds mbi and JAX (neither is a dependency). Adapters bridge the
  repository's mechanisms to the wheel's interface: ``estimation.mirror_descent`` calls
  ``MirrorDescent().estimate`` (warm start from the given potentials), a model's
  ``cliques`` are a list, a ``Dataset``'s table is its ``df`` (its columns of codes
  held as objects made whole numbers), a ``Domain``'s attributes its ``attrs``. Their
  error is read from the model's marginals (AIM) or the records (MST, which returns
  records). JAX compiles a program per round: on Linux the
  reference AIM needs ``vm.max_map_count`` above its default 65,530 (``sysctl -w
  vm.max_map_count=1048576``), or LLVM fails with "Cannot allocate memory".

Each method and seed runs in a fresh process, so that seconds and peak memory are its
own. Figures: seconds, peak memory (MB) and the mean total-variation distance of all 36
two-way and 84 three-way marginals to the data's; then mean ± standard deviation over
the seeds.

Usage: python bench/bench_aim.py [--seeds N] [--methods aim,mst,...] [--reference DIR
--mbi DIR] [--reference-seeds N]
"""

from __future__ import annotations

import argparse
import itertools
import json
import resource
import subprocess
import sys
import time
import types
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

EPSILON, DELTA = 1.0, 1e-9
OURS = ("aim", "mst", "marginals", "independent")
REFERENCE = ("reference-aim", "reference-mst")


def _adult() -> pd.DataFrame:
    from privcore.data import load_sample

    frame = load_sample("adult")[0].frame.copy()
    frame["age"] = (frame["age"] // 5).astype(int)
    return frame.astype(str)


def _tvd_of_records(frame: pd.DataFrame, records: pd.DataFrame, k: int) -> float:
    out = []
    for clique in itertools.combinations(frame.columns, k):
        true = frame.groupby(list(clique)).size() / len(frame)
        mine = records.groupby(list(clique)).size() / len(records)
        true, mine = true.align(mine, fill_value=0.0)
        out.append(0.5 * float((true - mine).abs().sum()))
    return float(np.mean(out))


def _peak_mb() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024


def _ours(method: str, seed: int, round_iterations: int) -> dict:
    frame = _adult()
    domain = {c: sorted(frame[c].unique()) for c in frame.columns}
    started = time.perf_counter()
    if method == "aim":
        from privcore.dp.aim import aim

        made = aim(frame, domain, EPSILON, DELTA, seed=seed, round_iterations=round_iterations)
        records, extra = made.records, {"rounds": len(made.rounds)}
    elif method == "mst":
        from privcore.dp.mst import mst

        records, extra = mst(frame, domain, EPSILON, DELTA, seed=seed).records, {}
    elif method == "marginals":
        from privcore.dp.release import dp_release

        qi = [c for c in frame.columns if c != "salary-class"]
        records = dp_release(frame, qi, "salary-class", epsilon=EPSILON, seed=seed).records
        extra = {}
    else:  # independent columns from the true marginals
        rng = np.random.default_rng(seed)
        records = pd.DataFrame(
            {c: rng.choice(frame[c].to_numpy(), size=len(frame)) for c in frame.columns}
        )
        extra = {}
    seconds = time.perf_counter() - started
    return {
        "seconds": seconds,
        "peak_mb": _peak_mb(),
        "tvd2": _tvd_of_records(frame, records.astype(str), 2),
        "tvd3": _tvd_of_records(frame, records.astype(str), 3),
        **extra,
    }


def _reference(method: str, seed: int, reference: str, mbi: str) -> dict:
    sys.path[:0] = [mbi, reference]
    plotting = types.ModuleType("matplotlib")  # cdp2adp imports pyplot; nothing is drawn
    plotting.pyplot = types.ModuleType("matplotlib.pyplot")
    sys.modules.update({"matplotlib": plotting, "matplotlib.pyplot": plotting.pyplot})
    import jax

    jax.config.update("jax_enable_x64", True)
    from mbi import Dataset, Domain, estimation

    class Listed:
        """A model whose ``cliques`` are a list, as the repository's AIM expects."""

        def __init__(self, model):
            self._model, self.cliques = model, list(model.cliques)

        def __getattr__(self, name):
            return getattr(self._model, name)

    def mirror_descent(domain, measurements, iters=1000, potentials=None, callback_fn=None):
        fitted = estimation.MirrorDescent().estimate(
            domain, measurements, iters=iters, warm_start=potentials
        )
        return Listed(fitted)

    estimation.mirror_descent = mirror_descent
    if not hasattr(Dataset, "df"):  # the repository's MST reads a Dataset's table as .df
        Dataset.df = property(
            lambda self: pd.DataFrame({k: np.asarray(v) for k, v in self.to_dict().items()})
        )
        checked = Dataset.__post_init__

        def whole_numbers(self):  # and maps codes through JAX scalars: object columns
            codes = {k: np.asarray(v) for k, v in dict(self.data.items()).items()}
            codes = {k: v.astype(np.int64) if v.dtype == object else v for k, v in codes.items()}
            object.__setattr__(self, "data", codes)
            checked(self)

        Dataset.__post_init__ = whole_numbers
    if not hasattr(Domain, "attrs"):  # and names a Domain's attributes .attrs
        Domain.attrs = property(lambda self: self.attributes)
    frame = _adult()
    domain = {c: sorted(frame[c].unique()) for c in frame.columns}
    codes = pd.DataFrame({c: pd.Index(domain[c]).get_indexer(frame[c]) for c in frame.columns})
    data = Dataset(codes, Domain(list(frame.columns), [len(domain[c]) for c in frame.columns]))
    np.random.seed(seed)
    started = time.perf_counter()
    if method == "reference-mst":  # it returns records (its domain compression undone)
        import mst as reference_mst

        synth = reference_mst.MST(data, EPSILON, DELTA)
        seconds = time.perf_counter() - started
        drawn = synth.to_dict()  # mbi 2.0's Dataset: codes per column
        records = pd.DataFrame(
            {c: np.asarray(domain[c])[np.asarray(drawn[c])] for c in frame.columns}
        )
        return {
            "seconds": seconds,
            "peak_mb": _peak_mb(),
            "tvd2": _tvd_of_records(frame, records, 2),
            "tvd3": _tvd_of_records(frame, records, 3),
        }
    from aim import AIM

    workload = [(c, 1.0) for c in itertools.combinations(frame.columns, 3)]
    model, _ = AIM(EPSILON, DELTA, prng=np.random.RandomState(seed)).run(data, workload)
    seconds = time.perf_counter() - started

    def tvd(k: int) -> float:
        out = []
        for clique in itertools.combinations(frame.columns, k):
            true = np.asarray(data.project(clique).datavector(flatten=False), dtype=float)
            mine = np.clip(np.asarray(model.project(clique).datavector(flatten=False)), 0, None)
            out.append(0.5 * float(np.abs(true / true.sum() - mine / mine.sum()).sum()))
        return float(np.mean(out))

    return {"seconds": seconds, "peak_mb": _peak_mb(), "tvd2": tvd(2), "tvd3": tvd(3)}


def _one(args: argparse.Namespace) -> None:
    method, seed = args.one[0], int(args.one[1])
    if method in REFERENCE:
        found = _reference(method, seed, args.reference, args.mbi)
    else:
        found = _ours(method, seed, args.round_iterations)
    print(json.dumps(found))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--methods", default=",".join(OURS))
    parser.add_argument("--round-iterations", type=int, default=100)
    parser.add_argument("--reference", help="a folder holding Private-PGM's mechanisms")
    parser.add_argument("--mbi", help="a folder holding mbi 2.0 and JAX")
    parser.add_argument("--reference-seeds", type=int)
    parser.add_argument("--one", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        _one(args)
        return
    plan = [(m, s) for m in args.methods.split(",") for s in range(args.seeds)]
    if args.reference and args.mbi:
        seeds = args.reference_seeds or args.seeds
        plan += [(m, s) for m in REFERENCE for s in range(seeds)]
    rows: dict[str, list[dict]] = {}
    print("| method | seed | seconds | peak MB | TVD 2-way | TVD 3-way |")
    print("|---|---|---|---|---|---|")
    for method, seed in plan:
        command = [sys.executable, __file__, "--one", method, str(seed)]
        command += ["--round-iterations", str(args.round_iterations)]
        if args.reference:
            command += ["--reference", args.reference, "--mbi", args.mbi]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            print(f"| {method} | {seed} | failed: {done.stderr.strip().splitlines()[-1]} |||| ")
            continue
        r = json.loads(done.stdout.strip().splitlines()[-1])
        rows.setdefault(method, []).append(r)
        print(
            f"| {method} | {seed} | {r['seconds']:.1f} | {r['peak_mb']} "
            f"| {r['tvd2']:.4f} | {r['tvd3']:.4f} |",
            flush=True,
        )
    print(
        "\n| method | seeds | seconds | peak MB | TVD 2-way (mean ± sd) | TVD 3-way (mean ± sd) |"
    )
    print("|---|---|---|---|---|---|")
    for method, found in rows.items():
        t2 = np.array([r["tvd2"] for r in found])
        t3 = np.array([r["tvd3"] for r in found])
        seconds = np.mean([r["seconds"] for r in found])
        peak = max(r["peak_mb"] for r in found)
        print(
            f"| {method} | {len(found)} | {seconds:.1f} | {peak} | {t2.mean():.4f} ± "
            f"{t2.std(ddof=1) if len(found) > 1 else 0:.4f} | {t3.mean():.4f} ± "
            f"{t3.std(ddof=1) if len(found) > 1 else 0:.4f} |"
        )


if __name__ == "__main__":
    main()
