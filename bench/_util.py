"""Shared helpers for the benchmark scripts: subprocess timing with peak memory, tables."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"

# Runs inside a fresh interpreter: imports, measures the resident set, runs the
# statement, reports wall time and the peak increase of memory (VmHWM − RSS before).
_PROBE = r"""
import json, resource, sys, time
sys.path.insert(0, {root!r})
{setup}
def rss_kb():
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * resource.getpagesize() // 1024
before = rss_kb()
t0 = time.perf_counter()
{statement}
seconds = time.perf_counter() - t0
with open("/proc/self/status") as fh:  # VmHWM: this process's peak RSS (ru_maxrss is
    peak = next(int(l.split()[1]) for l in fh if l.startswith("VmHWM"))  # inherited on fork)
print(json.dumps({{"seconds": seconds, "peak_mb": max(peak - before, 0) / 1024}}))
"""


def probe(setup: str, statement: str) -> dict:
    """Run ``statement`` after ``setup`` in a new Python process; seconds and peak MB."""
    code = _PROBE.format(root=str(ROOT), setup=setup, statement=statement)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-2000:])
    return json.loads(proc.stdout.strip().splitlines()[-1])


def median_probe(setup: str, statement: str, repeat: int = 3) -> dict:
    runs = [probe(setup, statement) for _ in range(repeat)]
    return {
        "seconds": statistics.median(r["seconds"] for r in runs),
        "peak_mb": statistics.median(r["peak_mb"] for r in runs),
    }


def table(headers: list[str], rows: list[list]) -> str:
    """A Markdown table."""
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)
