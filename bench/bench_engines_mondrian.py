"""Mondrian k = 10 on 10⁷ rows: in memory vs in fragments cut by an engine (SPEC §9).

The table of ``bench_engines.py`` (Adult resampled with perturbed cells, 8 QIs with
ARX's hierarchies + occupation) at ``ROWS`` rows. Each run in a fresh process, peak
memory of the process tree sampled every 50 ms:

- **rows**: the table read into memory (pandas) and Mondrian on its rows;
- **frequency set**: DuckDB groups the table, Mondrian runs on the frequency set with its
  counts as weights (the same release as on the rows), the release is written;
- **fragments**: ``PRIVCORE_ENGINE_MAX_GROUPS`` set below the frequency set's size, so
  the table is cut by DuckDB into fragments by quantiles of one QI and Mondrian runs on
  each (with the whole table's domains), the release is written.

GCP is the measured GCP of the release (every QI has a hierarchy); the target: the
fragments' within 5 % of the in-memory Mondrian's. `python bench/bench_engines_mondrian.py [rows]`.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from _util import OUT, ROOT, run_measured, table
from bench_engines import QI, SA, make_table

ROWS = 10_000_000
FRAGMENT_GROUPS = 100_000

_STEP = r"""
import json, sys, time
sys.path.insert(0, {root!r})
step, path, out = {step!r}, {path!r}, {out!r}
qi, sa = {qi!r}, {sa!r}
started = time.perf_counter()
from privcore.data import Role, Schema, load_sample
from privcore.models import KAnonymity
_, sample = load_sample("adult")
hierarchies = {{c: sample.hierarchies[c] for c in qi}}
roles = {{**{{c: Role.QUASI_IDENTIFIER for c in qi}}, **{{c: Role.SENSITIVE for c in sa}}}}
schema = Schema(roles, hierarchies)
if step == "rows":
    from privcore.anonymize import anonymize
    from privcore.data import load
    frame = load(path).frame[[*qi, *sa]]
    release = anonymize(frame, schema, [KAnonymity(10)], algorithm="mondrian")
    result = {{"gcp": release.loss["gcp"], "k": release.to_dict()["k"], "fragments": 1}}
else:
    from privcore.engines.duckdb_engine import DuckDBEngine
    from privcore.runs.tables import anonymize_table
    engine = DuckDBEngine(memory_limit="1.5GB")
    made = anonymize_table(
        engine, engine.scan(path), schema, [KAnonymity(10)], out, algorithm="mondrian"
    )
    result = {{
        "gcp": made.release.loss["gcp"], "k": made.written_check.summary["k"],
        "fragments": made.release.params.get("fragments", 1),
    }}
result["seconds"] = time.perf_counter() - started
print("RESULT " + json.dumps(result))
"""


def run_step(step: str, path: Path) -> dict:
    code = _STEP.format(
        root=str(ROOT),
        step=step,
        path=str(path),
        out=str(OUT / f"mondrian_{step.replace(' ', '_')}.parquet"),
        qi=QI,
        sa=SA,
    )
    env = {**os.environ, "PRIVCORE_MAX_ROWS": str(10 * ROWS), "PRIVCORE_MAX_FILE_MB": "100000"}
    if step == "fragments":
        env["PRIVCORE_ENGINE_MAX_GROUPS"] = str(FRAGMENT_GROUPS)
    return run_measured(code, env, interval=0.05)


def main(rows: int = ROWS) -> str:
    global ROWS
    ROWS = rows
    path = make_table(rows)
    results = {step: run_step(step, path) for step in ("rows", "frequency set", "fragments")}
    reference = results["rows"]["gcp"]
    lines = [
        [
            step,
            str(r["fragments"]),
            f"{r['gcp']:.5f}",
            f"{100 * (r['gcp'] / reference - 1):+.1f} %",
            str(r["k"]),
            f"{r['seconds']:.1f}",
            f"{r['peak_mb']:,.0f}",
        ]
        for step, r in results.items()
    ]
    return (
        table(
            ["Mondrian k = 10 on", "fragments", "GCP", "vs rows", "k", "seconds", "peak MB"],
            lines,
        )
        + f"\n\n{rows:,} rows; fragments below {FRAGMENT_GROUPS:,} combinations each."
    )


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    print(main(int(sys.argv[1]) if len(sys.argv) > 1 else ROWS))
