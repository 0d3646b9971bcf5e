"""LDP audits in bounded memory: streaming, the cost model checked before any work, and
a cancel honoured between chunks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from privcore.cli import main
from privcore.errors import CancelledError, ParameterError
from privcore.ldp import audit, counts
from privcore.ldp.mechanisms import make

ROOT = Path(__file__).resolve().parents[2]

# Peak resident memory of each measure at two n, in one fresh process: the kernel's
# high-water mark (VmHWM) is reset before each run (/proc/self/clear_refs) and the C
# heap trimmed, so each figure is what that run added to the process.
PROBE = r"""
import ctypes, json, re, sys, threading
from privcore.errors import CancelledError
from privcore.ldp import audit, counts
from privcore.ldp.mechanisms import make

counts.ENABLED = False  # every report drawn: the streaming is what is measured
trim = ctypes.CDLL("libc.so.6").malloc_trim

def status(field):
    text = open("/proc/self/status").read()
    return int(re.search(field + r":\s+(\d+)", text).group(1)) * 1024

def added(run):
    trim(0)
    open("/proc/self/clear_refs", "w").write("5")
    before = status("VmRSS")
    run()
    return (status("VmHWM") - before) / 2**20

wide, narrow = make("sue", 1.0, d=200), make("blh", 1.0, d=4)
runs = {
    # n from one full chunk up, so that every run streams the same chunks
    "ab": (lambda n: audit.audit_ab(narrow, n=n), (300_000, 4_000_000)),
    "lb-white": (lambda n: audit.lower_bound(narrow, n=n), (300_000, 4_000_000)),
    "lb-black": (lambda n: audit.lower_bound(wide, n=n, mode="black"), (24_000, 120_000)),
    "ob": (lambda n: audit.audit_ob(wide, n=n, bootstrap=2), (10_000, 60_000)),
}
for run, _ in runs.values():
    run(2_000)
out = {name: [added(lambda: run(n)) for n in sizes] for name, (run, sizes) in runs.items()}

# a cancelled audit gives its memory back
stop = threading.Event()
def progress(fraction, message):
    if stop.is_set():
        raise CancelledError("stopped")
before = status("VmRSS")
threading.Timer(0.5, stop.set).start()
try:
    audit.audit_ob(wide, n=1_000_000, progress=progress)
except CancelledError:
    pass
out["kept_after_cancel"] = (status("VmRSS") - before) / 2**20
print(json.dumps(out))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc (Linux)")
def test_peak_memory_does_not_grow_with_n():
    """From n to 5–13 × n, each measure's peak stays within allocator noise (≤ 48 MB;
    measured ≤ 25 MB). Keeping every report, as the auditor once did, adds 120 MB (AB
    and the white-box bound on BLH), ~1 GB (OB, the black-box bound on SUE d = 200)."""
    env = {**os.environ, "PRIVCORE_DEVICE": "cpu", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    peaks = json.loads(done.stdout.strip().splitlines()[-1])
    for name in ("ab", "lb-white", "lb-black", "ob"):
        small, large = peaks[name]
        assert large - small < 48, (name, peaks)
        assert large < 160, (name, peaks)  # one chunk and the tables, not the samples
    assert peaks["kept_after_cancel"] < 48, peaks


# --------------------------------------------------------------------------- cost model


def test_the_cost_model_refuses_before_any_work_and_says_what_to_lower():
    """OB on SHE (d = 2000, ε = 1) compares t = ⌈ln 2000⌉ = 8 inputs and keeps, per input
    and coordinate, 512 grid cells of 176 bytes: 8 × 2000 × 512 × 176 = 1,441,792,000
    bytes (1,375 MB), plus the smallest useful chunk, ⌊16384/2000⌋ = 8 reports of
    128 + 2000 × 76 bytes (1,217,024), plus the 32 MB base: 1,476,563,456 bytes =
    1,409 MB > 1,024 MB. The largest domain that fits: d = 1441 (8 × 1441 × 90,112 +
    11 × (128 + 76 × 1441) + 2²⁵ = 1,073,571,652 ≤ 2³⁰; d = 1442 needs 1,074,293,384);
    the most inputs at d = 2000: 5 (935,891,456 bytes; 6 need 1,116,115,456)."""
    called = []
    started = time.perf_counter()
    with pytest.raises(ParameterError) as caught:
        audit.audit_ob(make("she", 1.0, d=2000), progress=lambda f, m: called.append(f))
    assert time.perf_counter() - started < 5 and called == []
    error = caught.value
    assert error.code == "ldp.memory_budget"
    assert error.params == {
        "need_mb": 1409,
        "budget_mb": 1024,
        "tables_mb": 1375,  # 1,441,792,000 bytes = 1375 × 2²⁰
        "max_domain": 1441,
        "max_inputs": 5,
    }
    assert "PRIVCORE_AUDIT_MEMORY_MB" in error.message
    assert "lower the domain size d to at most 1,441, compare at most 5 inputs" in error.message
    assert "white-box lower bound" in error.message
    # within those limits it fits; AB and the white-box bound keep only counts
    assert audit.memory_plan("ob", make("she", 1.0, d=1441), n=40_000).peak <= 2**30
    assert audit.memory_plan("ob", make("she", 1.0, d=2000), n=40_000, inputs=range(5))
    assert audit.memory_plan("lb", make("she", 1.0, d=10_000), n=5_000_000).kept_bytes == 0


def test_the_budget_comes_from_the_configuration(monkeypatch):
    """SUE, d = 10,000: a chunk holds ⌊2¹⁹/10,000⌋ = 52 reports; OB keeps 10 inputs ×
    10,000 coordinates × 2 values × 96 bytes = 19.2 MB, which with the 32 MB base and one
    report (400,128 bytes) is 53,154,560 bytes, more than a 48 MB budget."""
    mechanism = make("sue", 1.0, d=10_000)
    assert audit.memory_plan("lb", mechanism, n=1_000_000).chunk_rows == 52
    assert audit.memory_plan("ob", mechanism, n=40_000).kept_bytes == 19_200_000
    monkeypatch.setenv("PRIVCORE_AUDIT_MEMORY_MB", "48")
    with pytest.raises(ParameterError, match="budget of 48 MB per audit") as caught:
        audit.memory_plan("ob", mechanism, n=40_000)
    assert 2 <= caught.value.params["max_domain"] < 10_000


def test_the_cli_refuses_with_exit_2_and_one_line(capsys):
    code = main(
        ["audit", "--mechanism", "she", "--epsilon", "1", "--domain", "2000", "--method", "ob"]
    )
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: This audit would need about 1,409 MB") and "\n" not in err


# --------------------------------------------------------------------------- cancel


def stopped_within(run, request_after: float = 0.3) -> float:
    """Seconds from a stop request (set by another thread, as Streamlit's is) to the
    audit raising CancelledError from its progress callback (inf if it finished)."""
    stop = threading.Event()
    requested: list[float] = []

    def request() -> None:
        requested.append(time.perf_counter())
        stop.set()

    def progress(fraction: float, message: str) -> None:
        if stop.is_set():
            raise CancelledError("stopped")

    timer = threading.Timer(request_after, request)
    timer.start()
    try:
        run(progress)
    except CancelledError:
        return time.perf_counter() - requested[0]
    finally:
        timer.cancel()
    return float("inf")


def test_a_cancel_stops_every_measure_within_a_second(monkeypatch):
    """Audits of minutes: each stops soon after the request (measured 0.1–0.4 s on 2
    busy cores, ~0.2 s of it the garbage collection after a cancel). Every report is
    drawn (counts drawn without the reports take milliseconds, nothing to cancel)."""
    monkeypatch.setattr(counts, "ENABLED", False)
    audit.audit_ab(make("ss", 1.0, d=1000), n=1_000)  # torch loaded and warm
    rng = np.random.default_rng(0)
    x = rng.integers(0, 20, 2_000_000)
    frame = pd.DataFrame({"x": x, "y": x + rng.laplace(0, 2, x.shape)})
    runs = {
        "ab": lambda p: audit.audit_ab(make("ss", 1.0, d=1000), n=5_000_000, progress=p),
        "ob": lambda p: audit.audit_ob(make("she", 1.0, d=300), n=1_000_000, progress=p),
        "lb": lambda p: audit.lower_bound(make("sue", 1.0, d=2000), n=5_000_000, progress=p),
        "lb-black": lambda p: audit.lower_bound(
            make("sue", 1.0, d=2000), n=5_000_000, mode="black", progress=p
        ),
        "sweep": lambda p: audit.sweep(
            lambda e: make("oue", e, d=2000), [1.0, 2.0], n_ab=5_000_000, progress=p
        ),
        "samples": lambda p: audit.audit_samples(
            frame, "x", ["y"], claimed_epsilon=1.0, method="ob", bootstrap=1000, progress=p
        ),
    }
    latencies = {name: stopped_within(run) for name, run in runs.items()}
    assert max(latencies.values()) < 1.5, latencies


def test_every_measure_gives_its_memory_back_when_it_returns(monkeypatch):
    """audit_ab, audit_ob and lower_bound each release the process's freed heap once,
    at the end of the outermost call."""
    from privcore.ldp import audit as ldp_audit
    from privcore.ldp.audit import memory
    from privcore.ldp.mechanisms import make

    calls = []
    monkeypatch.setattr(memory, "release_memory", lambda *, collect=True: calls.append(collect))
    mechanism = make("grr", 1.0, d=2)
    ldp_audit.audit_ab(mechanism, n=2_000)
    ldp_audit.audit_ob(mechanism, n=2_000)
    ldp_audit.lower_bound(mechanism, n=2_000)
    assert calls == [False, False, False]
