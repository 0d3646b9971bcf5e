"""Run every benchmark and print its table (copy reviewed figures to bench/RESULTS.md)."""

from __future__ import annotations

import importlib
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

SCRIPTS = [
    "bench_load",
    "bench_app_start",
    "bench_cli_start",
    "bench_measure",
    "bench_memory",
    "bench_anonymize",
    "bench_mdav",
    "bench_release_kinds",
    "bench_defaults",
    "bench_speed",
    "bench_attacks",
    "bench_ldp",
    "bench_ldp_device",
    "bench_dp",
    "bench_dp_sum",
    "bench_dp_release",
    "bench_population",
    "bench_suda2",
    "bench_presence",
    "bench_anonymeter",
    "bench_sessions",
    "bench_page_rerun",
    "bench_resource_attacks",
    "bench_reproduce",
    "bench_engines",
    "bench_engines_mondrian",
    "bench_engines_large",
]

if __name__ == "__main__":
    chosen = sys.argv[1:] or SCRIPTS
    for name in chosen:
        started = time.perf_counter()
        module = importlib.import_module(name)
        print(f"## {name}\n\n{(module.__doc__ or '').strip()}\n")
        print(module.main())
        print(f"\n({time.perf_counter() - started:.0f} s)\n", flush=True)
