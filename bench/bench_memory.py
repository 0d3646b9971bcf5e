"""Memory per row: the peak resident memory of loading, anonymizing and measuring, per
million rows, and the time of `measure_release` against the models alone.

Adult (9 columns: 8 QIs, SA occupation) tiled to 1,000,000 and 2,000,000 rows, written
once to `bench/out/` as CSV and read back with `privcore.data.load`, so the table holds
what a user's upload holds. Each figure comes from a fresh process: the inputs are made
first (the table; for the measurements also a release of it: age at level 2, education,
marital status, country and workclass at level 1, as `bench_measure.py` generalizes
it), the peak resident set is reset (`/proc/self/clear_refs`), and the step runs. A
step's figure is its peak resident-set increase over its inputs; "per 10⁶ rows" divides
it by the millions of rows, and the slope is the increase from 10⁶ to 2·10⁶ rows (the
fixed costs — imports, hierarchies, tables per distinct value — left out). The steps:
`load`; `optimal` and `mondrian` with k = 5 (every figure of the release measured, as
the algorithms always do); `measure_release` of the release with k = 5; and the models
alone, `release_classes` + `evaluate` of the same release, which `measure_release`
includes. Target (issue 16): ≤ 250 MB per 10⁶ rows for measuring and anonymizing, and
`measure_release` within 3× the time of the models alone. Median of 3 rounds (each round
runs every step once; the time ratio is the median of the rounds' ratios, with their
range).
`python bench/bench_memory.py 10000000` measures `measure_release` and the models alone
at that size only.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys

from _util import OUT, ROOT, table

SIZES = (1_000_000, 2_000_000)
TARGET_MB = 250  # per 10⁶ rows (issue 16)
TIME_RATIO_TARGET = 3.0
REPEAT = 3

# A fresh interpreter: builds the inputs, resets the peak resident set, runs the step,
# and reports its seconds, its peak increase over the inputs and the inputs' size.
_PROBE = r"""
import gc, json, sys, time, warnings
warnings.filterwarnings("ignore")
sys.path.insert(0, {root!r})
def rss_mb():
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * 4096 / 2**20
def peak_mb():
    with open("/proc/self/status") as fh:
        return next(int(l.split()[1]) for l in fh if l.startswith("VmHWM")) / 1024
interpreter = rss_mb()
{setup}
gc.collect()
before = rss_mb()
try:
    with open("/proc/self/clear_refs", "w") as fh:  # the peak so far: the inputs'
        fh.write("5")
    reset = True
except OSError:
    reset = False
t0 = time.perf_counter()
{statement}
seconds = time.perf_counter() - t0
print(json.dumps({{"seconds": seconds, "peak_mb": peak_mb() - before,
                   "inputs_mb": before - interpreter, "reset": reset}}))
"""

_IMPORTS = """
from privcore.data import load, load_sample
from privcore.anonymize import ALGORITHMS
from privcore.classes import release_classes
from privcore.measure.report import measure_release
from privcore.models import KAnonymity, evaluate
_, schema = load_sample("adult")
qi, sa, hierarchies = list(schema.quasi_identifiers), list(schema.sensitive), schema.hierarchies
models = [KAnonymity(5)]
"""
_TABLE = "frame = load({path!r}, max_rows=100_000_000).frame"  # above the upload limit
_RELEASE = """
release = frame.copy()
for column, level in {{"age": 2, "education": 1, "marital-status": 1,
                      "native-country": 1, "workclass": 1}}.items():
    release[column] = hierarchies[column].generalize_values(frame[column], level).astype("str")
"""
STEPS = {
    "load": ("", _TABLE),
    "optimal": (_TABLE, "r = ALGORITHMS['optimal'].function(frame, schema, models)"),
    "mondrian": (_TABLE, "r = ALGORITHMS['mondrian'].function(frame, schema, models)"),
    "measure_release": (
        _TABLE + "\n" + _RELEASE,
        "m = measure_release(frame, release, qi=qi, sa=sa, hierarchies=hierarchies, models=models)",
    ),
    "models alone": (
        _TABLE + "\n" + _RELEASE,
        "c = release_classes(release, qi, sa, models=models, hierarchies=hierarchies)\n"
        "report = evaluate(c, models, frame=release)",
    ),
}


def csv_of(rows: int):
    """Adult tiled to ``rows`` rows, as a CSV file under bench/out (written once)."""
    path = OUT / f"adult_{rows}.csv"
    if not path.exists():
        import pandas as pd

        sys.path.insert(0, str(ROOT))
        from privcore.data import load_sample

        dataset, _ = load_sample("adult")
        frame = dataset.frame
        tiled = pd.concat([frame] * (rows // len(frame) + 1), ignore_index=True).iloc[:rows]
        path.parent.mkdir(parents=True, exist_ok=True)
        tiled.to_csv(path, index=False)
    return path


def probe(step: str, rows: int) -> dict:
    """One fresh process measuring ``step`` on ``rows`` rows."""
    setup, statement = STEPS[step]
    path = str(csv_of(rows))
    code = _PROBE.format(
        root=str(ROOT),
        setup=_IMPORTS + setup.format(path=path),
        statement=statement.format(path=path),
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-2000:])
    return json.loads(proc.stdout.strip().splitlines()[-1])


def measure_all(steps, sizes, repeat: int = REPEAT) -> dict:
    """Every step at every size, ``repeat`` rounds: each round runs every step once, so
    that the machine's load moves the steps of one round alike. Per (step, size): the
    medians, and the runs themselves."""
    runs: dict = {}
    for _ in range(repeat):
        for size in sizes:
            for step in steps:
                runs.setdefault((step, size), []).append(probe(step, size))
    return {
        key: {
            name: statistics.median(r[name] for r in found)
            for name in ("seconds", "peak_mb", "inputs_mb")
        }
        | {"reset": all(r["reset"] for r in found), "runs": found}
        for key, found in runs.items()
    }


def memory_rows(results: dict) -> list[list]:
    small, large = SIZES
    rows = []
    for step in STEPS:
        one, two = results[(step, small)], results[(step, large)]
        slope = (two["peak_mb"] - one["peak_mb"]) / ((large - small) / 1e6)
        per_million = one["peak_mb"] / (small / 1e6)
        target = step in ("optimal", "mondrian", "measure_release")
        rows.append(
            [
                step,
                f"{one['inputs_mb']:.0f}",
                f"{one['peak_mb']:.0f}",
                f"{two['peak_mb']:.0f}",
                f"{per_million:.0f}",
                f"{slope:.0f}",
                f"{max(per_million, slope) / TARGET_MB:.2f}×" if target else "",
                f"{one['seconds']:.2f}",
                f"{two['seconds']:.2f}",
            ]
        )
    return rows


def time_rows(results: dict, sizes=SIZES) -> list[list]:
    """measure_release against the models alone: medians, and the median of the ratios
    of the runs of one round."""
    rows = []
    for size in sizes:
        measured, alone = results[("measure_release", size)], results[("models alone", size)]
        ratios = [
            m["seconds"] / a["seconds"]
            for m, a in zip(measured["runs"], alone["runs"], strict=True)
        ]
        rows.append(
            [
                f"{size:,}",
                f"{measured['seconds']:.2f}",
                f"{alone['seconds']:.2f}",
                f"{statistics.median(ratios):.2f}× ({min(ratios):.2f}–{max(ratios):.2f})",
                f"≤ {TIME_RATIO_TARGET:.0f}×",
            ]
        )
    return rows


def main(sizes=SIZES) -> str:
    if tuple(sizes) != SIZES:  # one size: the measurement and the models alone only
        results = measure_all(("measure_release", "models alone"), sizes)
        out = table(
            ["rows", "step", "inputs MB", "peak MB over inputs", "MB per 10⁶ rows", "s"],
            [
                [
                    f"{n:,}",
                    s,
                    f"{results[(s, n)]['inputs_mb']:.0f}",
                    f"{results[(s, n)]['peak_mb']:.0f}",
                    f"{results[(s, n)]['peak_mb'] / (n / 1e6):.0f}",
                    f"{results[(s, n)]['seconds']:.2f}",
                ]
                for n in sizes
                for s in ("measure_release", "models alone")
            ],
        )
        return (
            out
            + "\n\n"
            + table(
                ["rows", "measure_release s", "models alone s", "ratio", "target"],
                time_rows(results, sizes),
            )
        )
    results = measure_all(tuple(STEPS), SIZES)
    headers = [
        "step",
        "inputs MB (10⁶)",
        "peak MB over inputs, 10⁶ rows",
        "2·10⁶ rows",
        "MB per 10⁶ rows",
        "slope MB per 10⁶",
        "÷ 250 MB target",
        "s (10⁶)",
        "s (2·10⁶)",
    ]
    out = table(headers, memory_rows(results))
    out += "\n\n" + table(
        ["rows", "measure_release s", "models alone s", "ratio", "target"], time_rows(results)
    )
    if not all(r["reset"] for r in results.values()):
        out += "\n\n(the peak could not be reset: figures include the inputs' own peak)"
    return out


if __name__ == "__main__":
    print(main(tuple(int(a) for a in sys.argv[1:]) or SIZES))
