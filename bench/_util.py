"""Shared helpers for the benchmark scripts: subprocess timing with peak memory, tables,
the workloads several benches use, and a Streamlit server to drive with Chromium."""

from __future__ import annotations

import json
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"

if str(ROOT) not in sys.path:  # the benches read privcore from this checkout
    sys.path.insert(0, str(ROOT))

from privcore.data.roles import Role  # noqa: E402
from privcore.data.samples import SAMPLES  # noqa: E402

#: Adult's 8 quasi-identifiers as ARX's examples choose them: the bundled schema's
#: (``load_sample("adult")``), in its order; occupation is the sensitive attribute.
ADULT_QI = [c for c, role in SAMPLES["adult"].roles.items() if role is Role.QUASI_IDENTIFIER]

#: Setup code for :func:`probe`: ``frame``, 1,000,000 synthetic rows × 8 QIs (``qi``,
#: every column), most records unique; ``rng`` and ``n`` are left for more columns.
MILLION_QI_SETUP = r"""
import numpy as np, pandas as pd
rng = np.random.default_rng(1)
n = 1_000_000
frame = pd.DataFrame({
    "age": rng.integers(17, 91, n), "zip": rng.integers(10000, 10400, n),
    "sex": rng.choice(["F", "M"], n), "race": rng.choice(list("ABCDE"), n),
    "edu": rng.choice([f"e{i}" for i in range(16)], n), "hours": rng.integers(1, 99, n),
    "country": rng.choice([f"c{i}" for i in range(40)], n),
    "work": rng.choice(list("abcdefgh"), n),
})
qi = list(frame.columns)
"""

T = TypeVar("T")


def best_of(fn: Callable[[], T], repeat: int = 3) -> tuple[float, T]:
    """The shortest wall time of ``repeat`` calls of ``fn``, and the last call's value."""
    best, value = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        value = fn()
        best = min(best, time.perf_counter() - start)
    return best, value


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


def tree_rss_kb(root: int) -> int:
    """Resident memory of ``root`` and every process under it, in kB (a JVM included)."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            status = (entry / "status").read_text()
        except OSError:
            continue
        pid = int(entry.name)
        children.setdefault(int(stat[1]), []).append(pid)
        rss[pid] = next(
            (int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS")),
            0,
        )
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += rss.get(pid, 0)
        todo.extend(children.get(pid, []))
    return total


def run_measured(code: str, env: dict, *, interval: float = 0.02) -> dict:
    """Run ``code`` in a fresh interpreter, sampling the process tree's memory every
    ``interval`` seconds: the JSON it prints after ``RESULT ``, with ``peak_mb``."""
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )
    peak = 0
    while proc.poll() is None:
        peak = max(peak, tree_rss_kb(proc.pid))
        time.sleep(interval)
    out, err = proc.communicate()
    if proc.returncode != 0:
        raise RuntimeError(err.decode()[-3000:])
    line = next(x for x in out.decode().splitlines() if x.startswith("RESULT "))
    result = json.loads(line.removeprefix("RESULT "))
    result["peak_mb"] = peak / 1024
    return result


def diffprivlib_module(name: str):
    """A module of diffprivlib (e.g. ``diffprivlib.tools.utils``); when the package
    ``__init__`` fails (its scikit-learn models on a scikit-learn it does not know), the
    module is loaded without it."""
    import importlib
    import importlib.util

    try:
        return importlib.import_module(name)
    except ImportError:
        for loaded in [n for n in sys.modules if n.startswith("diffprivlib")]:
            del sys.modules[loaded]
        package = importlib.util.module_from_spec(importlib.util.find_spec("diffprivlib"))
        sys.modules["diffprivlib"] = package  # its __init__ is not run
        return importlib.import_module(name)


# --------------------------------------------------------------------------- a served app

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def streamlit_run(script: str, port: int, *options: str) -> list[str]:
    """The command serving ``script`` with ``streamlit run``, headless, on
    127.0.0.1:``port``, with the further ``options``."""
    return [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        script,
        "--server.headless",
        "true",
        "--server.port",
        str(port),
        "--server.address",
        "127.0.0.1",
        *options,
    ]


def wait_healthy(
    base: str,
    *,
    within_s: float = 90.0,
    poll_s: float = 0.2,
    timeout_s: float = 2.0,
    proc: subprocess.Popen | None = None,
) -> bool:
    """Ask the Streamlit server at ``base`` (its ``/_stcore/health``) every ``poll_s``
    seconds until it answers: True; False when ``within_s`` seconds pass first or the
    server's process ``proc`` (when given) has ended."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            return False
        try:
            with urllib.request.urlopen(f"{base}/_stcore/health", timeout=timeout_s):
                return True
        except OSError:
            time.sleep(poll_s)
    return False
