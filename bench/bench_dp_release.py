"""A DP release of Adult against a k-anonymous release of it, on the same queries.

Adult (30,162 rows) with the bundled schema: the 8 ARX quasi-identifiers (sex, age, race,
marital-status, education, native-country, workclass, salary-class) and the sensitive
attribute occupation. The DP release: the 8 marginals QI × occupation at ε = 1 (ε/8 each,
discrete Laplace), made consistent, 30,000-odd records synthesized from them
(:func:`privcore.dp.release.dp_release`). The k-anonymous release: k = 10, the default
algorithm (optimal full-domain search) with the bundled hierarchies. Then
:func:`~privcore.dp.release.compare_releases` answers the 2,142 cells of the marginals from
the truth, from both releases (uniform spread over generalized cells) and compares.

Each library figure is the median of 3 fresh processes (peak MB: the resident-set
increase during the timed statement); the command line figure is the wall time of
`privcore dp release … --k 10 --json` (interpreter start, loading the CSV and the
hierarchies, both releases, the comparison, writing the records and the history row),
median of 3. Target: the whole comparison, the k-anonymous release included, ≤ 5 s.
Then the error summary of one run (seed 0). `python bench/bench_dp_release.py [--json]`.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _util import ADULT_QI, ROOT, median_probe, table

EPSILON = 1.0
K = 10
ADULT = ROOT / "assets" / "adult"
QI = ADULT_QI
SA = "occupation"
SETUP = """
from privcore.anonymize import anonymize
from privcore.data import load_sample
from privcore.dp.release import compare_releases, dp_release
from privcore.models import KAnonymity
dataset, schema = load_sample("adult")
frame = dataset.frame
qi, sa = schema.quasi_identifiers, schema.sensitive[0]
"""
DP = f"dp = dp_release(frame, qi, sa, epsilon={EPSILON}, seed=0)"
K_ANON = f"k_anon = anonymize(frame, schema, [KAnonymity({K})]).frame"
COMPARE = f"result = compare_releases(frame, qi, sa, dp, k_anon, schema.hierarchies, k={K})"
TARGET = 5.0


def _library() -> list[dict]:
    steps = [
        ("dp_release, ε = 1 (8 marginals, consistency, synthesis)", SETUP, DP),
        (f"k-anonymous release, k = {K} (optimal, bundled hierarchies)", SETUP, K_ANON),
        ("compare_releases (2,142 queries)", SETUP + DP + "\n" + K_ANON, COMPARE),
        ("all three (the whole comparison, library)", SETUP, f"{DP}\n{K_ANON}\n{COMPARE}"),
    ]
    out = []
    for name, setup, statement in steps:
        result = median_probe(setup, statement)
        out.append({"workload": name, **result})
    return out


def _command() -> list[str]:
    hierarchies = []
    for column in QI:
        hierarchies += ["--hierarchy", f"{column}={ADULT / f'adult_hierarchy_{column}.csv'}"]
    return [
        sys.executable,
        "-m",
        "privcore",
        "dp",
        "release",
        str(ADULT / "adult.csv"),
        "--qi",
        ",".join(QI),
        "--sa",
        SA,
        "--epsilon",
        str(EPSILON),
        "--k",
        str(K),
        *hierarchies,
        "--json",
    ]


def _cli(repeat: int = 3) -> dict:
    """Wall time of the command (its own history database, records to a temporary file)."""
    seconds = []
    with tempfile.TemporaryDirectory(prefix="bench_dp_release_") as tmp:
        env = {**os.environ, "PRIVCORE_HISTORY": str(Path(tmp) / "history.db")}
        command = [*_command(), "--out", str(Path(tmp) / "records.csv")]
        for _ in range(repeat):
            started = time.perf_counter()
            proc = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=env)
            seconds.append(time.perf_counter() - started)
            if proc.returncode != 0:
                raise RuntimeError(proc.stderr[-2000:])
        payload = json.loads(proc.stdout)
    return {
        "workload": f"privcore dp release --k {K} --json (the command line, end to end)",
        "seconds": statistics.median(seconds),
        "peak_mb": None,
        "summary": payload["comparison"]["summary"],
    }


def measure() -> dict:
    timings = _library()
    cli = _cli()
    summary = cli.pop("summary")
    timings.append(cli)
    return {
        "epsilon": EPSILON,
        "k": K,
        "target_seconds": TARGET,
        "timings": timings,
        "summary": summary,
    }


def render(result: dict) -> str:
    rows = [
        [
            t["workload"],
            f"{t['seconds']:.2f}",
            "–" if t["peak_mb"] is None else f"{t['peak_mb']:.0f}",
            f"≤ {TARGET:g} s" if t["workload"].startswith(("all three", "privcore")) else "",
        ]
        for t in result["timings"]
    ]
    out = table(["workload", "seconds", "peak MB", "target"], rows)
    summary = result["summary"]
    figures = [
        ("mean absolute error", "mean_abs_error"),
        ("median absolute error", "median_abs_error"),
        ("max absolute error", "max_abs_error"),
        ("mean relative error (floor 1)", "mean_relative_error"),
        (
            f"zero-in-truth queries answered > 0.5 (of {summary['zero_in_truth']})",
            "zero_answered_positive",
        ),
        ("mean absolute error on zero-in-truth queries", "zero_mean_error"),
    ]
    errors = [
        [label, _figure(summary["dp"][key]), _figure(summary["k_anon"][key])]
        for label, key in figures
    ]
    out += f"\n\nErrors on the same {summary['queries']:,} queries (seed 0):\n\n" + table(
        ["", f"DP, ε = {result['epsilon']:g}", f"{result['k']}-anonymous"], errors
    )
    return out


def _figure(value: float | int | None) -> str:
    if value is None:
        return "–"
    return f"{value:,}" if isinstance(value, int) else f"{value:,.2f}"


def main() -> str:
    return render(measure())


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    result = measure()
    print(json.dumps(result, indent=2) if args.json else render(result))
