"""The engines' memory by default: ``anonymize`` on DuckDB with DuckDB's own default
limit (80 % of the machine) against privcore's (a quarter of the machine, at most 4 GiB;
:func:`privcore.engines.duckdb_engine.default_memory_limit`), side by side in one run.

The table is the one of ``bench_engines.py`` (Adult resampled with perturbed cells, as
Parquet) at ``ROWS`` rows; the run is :func:`privcore.runs.tables.anonymize_table` —
group the 8 QIs and the SA, search the lattice for k = 10 (optimal, 1 % suppression),
write the shuffled release, check k on the written file — in a fresh process whose
tree's peak memory is sampled every 50 ms. `python bench/bench_engine_memory.py [rows]`.
"""

from __future__ import annotations

import os
import sys

from _util import OUT, ROOT, run_measured, table
from bench_engines import QI, SA, make_table

ROWS = 10_000_000

_RUN = r"""
import json, sys, time
sys.path.insert(0, {root!r})
from privcore.data import Role, Schema, load_sample
from privcore.engines.duckdb_engine import DuckDBEngine
from privcore.models import KAnonymity
from privcore.runs.tables import anonymize_table
qi, sa = {qi!r}, {sa!r}
_, schema = load_sample("adult")
hierarchies = {{c: schema.hierarchies[c] for c in [*qi, *sa] if c in schema.hierarchies}}
roles = {{**{{c: Role.QUASI_IDENTIFIER for c in qi}}, **{{c: Role.SENSITIVE for c in sa}}}}
started = time.perf_counter()
engine = DuckDBEngine(memory_limit={memory!r}, temp_dir={temp!r})
limit = engine.connection.execute("SELECT current_setting('memory_limit')").fetchone()[0]
made = anonymize_table(
    engine, engine.scan({path!r}), Schema(roles, hierarchies), [KAnonymity(10)], {out!r},
    algorithm="optimal", max_suppression=0.01, shuffle=True,
)
print("RESULT " + json.dumps({{"limit": limit, "k": made.to_dict()["k"],
      "written": made.rows_written, "seconds": time.perf_counter() - started}}))
"""


def run(memory: str | None, path, out) -> dict:
    code = _RUN.format(
        root=str(ROOT), qi=QI, sa=SA, memory=memory, temp=str(OUT / "duckdb_spill"),
        path=str(path), out=str(out),
    )  # fmt: skip
    return run_measured(code, {**os.environ}, interval=0.05)


def main(rows: int = ROWS) -> str:
    from privcore.engines.duckdb_engine import machine_memory

    path = make_table(rows)
    out = OUT / f"memory_release_{rows}.parquet"
    duckdb_own = f"{int(machine_memory() * 0.8) // 2**20}MiB"  # DuckDB's default, 80 %
    results = {
        "DuckDB's own default (80 % of the machine)": run(duckdb_own, path, out),
        "privcore's default (¼ of the machine, ≤ 4 GiB)": run(None, path, out),
    }
    lines = [
        [name, r["limit"], f"{r['seconds']:.1f}", f"{r['peak_mb']:,.0f}", r["k"], r["written"]]
        for name, r in results.items()
    ]
    return table(
        [
            "memory limit",
            "DuckDB reports",
            "seconds",
            "peak MB (process tree)",
            "k",
            "rows written",
        ],
        lines,
    )


if __name__ == "__main__":
    print(main(int(sys.argv[1]) if len(sys.argv) > 1 else ROWS))
