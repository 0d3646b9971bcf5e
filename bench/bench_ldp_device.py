"""LDP samplers and audits on CUDA against the CPU, in one run on a machine with a GPU.

For every mechanism (13 correct, 4 broken) the same code runs on both devices
(``PRIVCORE_DEVICE``), so the figures are comparable:

- **per report**: users perturbed per second, a batch of min(10⁷, 2²⁸/d) users on CUDA and
  min(10⁶, 2²⁵/d) on the CPU (one torch thread, the product's default), best of 3;
- **OB audit**: ε̂ and its 95 % bootstrap interval at n = 200,000 per input (bootstrap 50),
  and the seconds, on each device (each interval holds the true ε 95 % of the time);
- **certified bound**: the white-box lower bound with 10⁶ samples per input; it must stay
  at or below the true ε of a correct mechanism and exceed the claimed ε of a broken one,
  on both devices.

With ``--coverage N``, OB is run again on seeds 1 … N for every correct mechanism on each
device (the CPU's runs in a pool of processes): how many of its 95 % intervals hold the
true ε (about 0.95·N expected; a bootstrap interval's coverage is approximate).

Frequency mechanisms run at d = 100 for the audits. Without a GPU only the CPU columns
are filled ("GPU: none"). ``--quick`` shrinks every size 10× (a smoke run). Prints the
Markdown tables (each audit's JSON line on standard error) and writes
``bench/out/ldp_device.json`` (or ``--json PATH``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

EPSILON, D_AUDIT = 1.0, 100
DOMAINS = (8, 100, 1024)


def _best(run, repeats: int, sync) -> float:
    run()
    sync()
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        sync()
        best = min(best, time.perf_counter() - start)
    return best


def _on(where: str) -> None:
    os.environ["PRIVCORE_DEVICE"] = where


def _sync(where: str):
    import torch

    return torch.cuda.synchronize if where.startswith("cuda") else (lambda: None)


def per_report_rate(name: str, d: int | None, where: str, scale: float) -> float:
    """Users perturbed per second on ``where``."""
    import torch

    from privcore.ldp.device import generator
    from privcore.ldp.mechanisms import make

    _on(where)
    mechanism = make(name, EPSILON, d=d)
    cap, cells = (10**7, 2**28) if where.startswith("cuda") else (10**6, 2**25)
    n = int(max(1000, min(cap, cells // (d or 1)) * scale))
    gen = generator(0, where)
    if d is None:
        lo, hi = mechanism.input_range()
        inputs = lo + (hi - lo) * torch.rand(n, generator=gen, device=where, dtype=torch.float64)
    else:
        inputs = torch.randint(0, d, (n,), generator=gen, device=where)
    return n / _best(lambda: mechanism.perturb(inputs, gen), 3, _sync(where))


def audits(name: str, d: int | None, where: str, scale: float) -> dict:
    """OB's ε̂ with its interval and the white-box certified bound, with their seconds."""
    from privcore.ldp.audit import audit_ob, lower_bound
    from privcore.ldp.mechanisms import make

    _on(where)
    mechanism = make(name, EPSILON, d=d)
    start = time.perf_counter()
    ob = audit_ob(mechanism, n=int(200_000 * scale), seed=0, bootstrap=50)
    ob_s = time.perf_counter() - start
    start = time.perf_counter()
    bound = lower_bound(mechanism, n=int(1_000_000 * scale), seed=0, mode="white")
    bound_s = time.perf_counter() - start
    return {
        "ob_epsilon": ob.epsilon_hat,
        "ob_ci": list(ob.ci),
        "ob_seconds": ob_s,
        "bound": bound.epsilon_lb,
        "bound_seconds": bound_s,
    }


def _covers(job: tuple[str, str, int, float]) -> bool:
    """Whether OB's interval on ``seed`` holds the true ε (one job of ``--coverage``)."""
    from privcore.ldp.audit import audit_ob
    from privcore.ldp.mechanisms import MECHANISMS, make

    name, where, seed, scale = job
    _on(where)
    d = D_AUDIT if MECHANISMS[name].family == "frequency" else None
    mechanism = make(name, EPSILON, d=d)
    low, high = audit_ob(mechanism, n=int(200_000 * scale), seed=seed, bootstrap=50).ci
    true = mechanism.true_epsilon()
    return low <= true * 1.0001 and high >= true * 0.9999


def coverage(devices: list[str], seeds: int, scale: float) -> list[dict]:
    """Per correct mechanism and device: intervals holding the true ε out of ``seeds``."""
    import multiprocessing

    from privcore.ldp.mechanisms import MECHANISMS

    names = [n for n, c in MECHANISMS.items() if not c.broken]
    jobs = [(n, "cpu", s, scale) for n in names for s in range(1, seeds + 1)]
    with multiprocessing.get_context("spawn").Pool(max(1, (os.cpu_count() or 2) - 2)) as pool:
        on_cpu = pool.map(_covers, jobs)
    rows = []
    for i, name in enumerate(names):
        row = {"mechanism": name, "seeds": seeds, "cpu": sum(on_cpu[i * seeds : (i + 1) * seeds])}
        if "cuda" in devices:
            row["cuda"] = sum(_covers((name, "cuda", s, scale)) for s in range(1, seeds + 1))
        rows.append(row)
    return rows


def _verdict(cls, mechanism, row: dict) -> bool:
    """The audit is right on this device: the interval holds the true ε (correct
    mechanisms), and the certified bound is ≤ the true ε, or above the claim (broken)."""
    true = mechanism.true_epsilon()
    if cls.broken:
        return row["bound"] > EPSILON
    low, high = row["ob_ci"]
    return low <= true * 1.0001 and high >= true * 0.9999 and row["bound"] <= true * 1.0001


def main(argv: list[str] | tuple[str, ...] = ()) -> str:
    """The Markdown tables (``argv``: the options above; none from ``run_all.py``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="every size 10× smaller")
    parser.add_argument("--coverage", type=int, default=0, metavar="N", help="OB on N seeds")
    parser.add_argument("--skip-rates", action="store_true", help="audits and coverage only")
    parser.add_argument("--json", default=str(ROOT / "bench" / "out" / "ldp_device.json"))
    args = parser.parse_args(list(argv))
    scale = 0.1 if args.quick else 1.0

    import torch

    from privcore.ldp.mechanisms import MECHANISMS, make

    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    gpu = torch.cuda.get_device_name(0) if len(devices) > 1 else "none"
    result: dict = {"gpu": gpu, "torch": torch.__version__, "rates": [], "audits": []}
    for name, cls in MECHANISMS.items():
        domains = DOMAINS if cls.family == "frequency" else (None,)
        for d in () if args.skip_rates else domains:
            rates = {w: per_report_rate(name, d, w, scale) for w in devices}
            result["rates"].append({"mechanism": name, "d": d, **rates})
        d = D_AUDIT if cls.family == "frequency" else None
        mechanism = make(name, EPSILON, d=d)
        for where in devices:
            row = {"mechanism": name, "device": where, "broken": cls.broken}
            row.update(audits(name, d, where, scale))
            row["true_epsilon"] = mechanism.true_epsilon()
            row["right"] = _verdict(cls, mechanism, row)
            result["audits"].append(row)
            print(json.dumps(row), file=sys.stderr, flush=True)
    if args.coverage:
        result["coverage"] = coverage(devices, args.coverage, scale)
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(result, indent=1))
    return markdown(result)


def _speed(rate: float | None) -> str:
    if rate is None:
        return "–"
    if rate >= 1e9:
        return f"{rate / 1e9:,.2f} G/s"
    return f"{rate / 1e6:,.1f} M/s" if rate >= 1e6 else f"{rate / 1e3:,.0f} k/s"


def markdown(result: dict) -> str:
    """The two tables of RESULTS.md from the JSON this script writes."""
    lines = [f"GPU: {result['gpu']}, torch {result['torch']}", ""]
    lines += ["| mechanism | d | CPU (1 thread) | CUDA | CUDA ÷ CPU |", "|---|---|---|---|---|"]
    for r in result["rates"]:
        cuda = r.get("cuda")
        ratio = f"{cuda / r['cpu']:,.0f}×" if cuda else "–"
        d = "–" if r["d"] is None else f"{r['d']:,}"
        lines.append(f"| {r['mechanism']} | {d} | {_speed(r['cpu'])} | {_speed(cuda)} | {ratio} |")
    lines += [
        "",
        "| mechanism | device | true ε | OB ε̂ [95 %] | OB s | certified ε_LB | bound s | right |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for a in result["audits"]:
        lines.append(
            f"| {a['mechanism']} | {a['device']} | {a['true_epsilon']:.3f} | "
            f"{a['ob_epsilon']:.3f} [{a['ob_ci'][0]:.3f}, {a['ob_ci'][1]:.3f}] | "
            f"{a['ob_seconds']:.2f} | {a['bound']:.3f} | {a['bound_seconds']:.2f} | "
            f"{'yes' if a['right'] else '**no**'} |"
        )
    if result.get("coverage"):
        lines += [
            "",
            "| mechanism | seeds | CPU: intervals holding ε | CUDA |",
            "|---|---|---|---|",
        ]
        for c in result["coverage"]:
            lines.append(f"| {c['mechanism']} | {c['seeds']} | {c['cpu']} | {c.get('cuda', '–')} |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(main(sys.argv[1:]))
