"""A table larger than memory on DuckDB: 10⁸ rows × 8 QIs + 1 SA (SPEC §9).

The table is the one of ``bench_engines.py`` (Adult resampled with perturbed cells, as
Parquet, made once by the bench) at ``ROWS`` rows. Each step runs in a fresh process;
its peak memory is the process tree's, sampled every 50 ms:

- **floor**: DuckDB's own ``SELECT count(*) … GROUP BY`` of the 8 QIs on the file;
- **models**: the frequency set of the 8 QIs and the SA on the DuckDB engine and every
  privacy model on it (k = 10, distinct, entropy and recursive (3, 2) l-diversity,
  t-closeness with the equal and the hierarchical distance);
- **optimal k = 10**: the whole run of ``anonymize --engine duckdb`` —
  :func:`privcore.runs.tables.anonymize_table`: group, search the lattice on the
  frequency set, write the release as Parquet (shuffled, the default), check k on the
  written file; and again with the release in the table's order (``--keep-order``: a
  sort of the table more), which the measurement pairs by position;
- **measure**: :func:`privcore.runs.tables.measure_tables` of that release against the
  table, paired by position: PL/DR/UL, risks, loss and the models from the joint
  frequency set.

DuckDB runs with ``memory_limit`` = ``MEMORY_LIMIT`` and spills to ``bench/out``.
`python bench/bench_engines_large.py [rows]`.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from _util import OUT, ROOT, run_measured, table
from bench_engines import QI, SA, make_table

ROWS = 100_000_000
MEMORY_LIMIT = "1.5GB"

_STEP = r"""
import json, sys, time
sys.path.insert(0, {root!r})
step, path, out = {step!r}, {path!r}, {out!r}
qi, sa = {qi!r}, {sa!r}
started = time.perf_counter()
result = {{}}
if step == "floor":
    import duckdb
    listed = ", ".join('"' + c + '"' for c in qi)
    con = duckdb.connect()
    con.execute("SET memory_limit = '{memory}'")
    groups = con.execute(
        f"SELECT count(*) FROM (SELECT {{listed}}, count(*) FROM read_parquet('{{path}}') "
        f"GROUP BY {{listed}})"
    ).fetchone()[0]
    result["groups"] = int(groups)
else:
    from privcore.data import load_sample
    from privcore.engines.duckdb_engine import DuckDBEngine
    from privcore.models import (
        DistinctLDiversity, EntropyLDiversity, KAnonymity, RecursiveCLDiversity, TCloseness,
    )
    _, schema = load_sample("adult")
    hierarchies = {{c: schema.hierarchies[c] for c in [*qi, *sa] if c in schema.hierarchies}}
    engine = DuckDBEngine(memory_limit="{memory}", temp_dir={temp!r})
    table = engine.scan(path)
    if step == "models":
        from privcore.engines.models import release_models
        models = [
            KAnonymity(10), DistinctLDiversity(2), EntropyLDiversity(2),
            RecursiveCLDiversity(3, 2), TCloseness(0.4, distance="equal"),
            TCloseness(0.4, distance="hierarchical"),
        ]
        report = release_models(engine, table, qi, sa, models, hierarchies=hierarchies)
        result.update(k=report.summary["k"], classes=report.summary["classes"],
                      satisfied=bool(report.satisfied))
    elif step in ("optimal", "optimal_kept"):
        from privcore.data import Role, Schema
        from privcore.runs.tables import anonymize_table
        roles = {{**{{c: Role.QUASI_IDENTIFIER for c in qi}}, **{{c: Role.SENSITIVE for c in sa}}}}
        made = anonymize_table(
            engine, table, Schema(roles, hierarchies), [KAnonymity(10)],
            out if step == "optimal_kept" else out.replace(".parquet", "_shuffled.parquet"),
            algorithm="optimal", max_suppression=0.01, shuffle=step == "optimal",
        )
        summary = made.to_dict()
        result.update(node=summary["node"], k=summary["k"],
                      suppressed=summary["suppressed_rows"],
                      written=made.rows_written,
                      written_k=made.written_check.summary["k"],
                      groups=len(made.release.frame))
    elif step == "measure":
        from privcore.runs.tables import measure_tables
        measurement, _ = measure_tables(
            engine, table, engine.scan(out), qi=qi, sa=sa, models=[KAnonymity(10)],
            hierarchies=hierarchies,
        )
        summary = measurement.to_dict()
        result.update(k=summary["k"], pl=summary["pl"]["all"], ul=summary["ul"],
                      dr=summary["dr"], gcp=summary["loss"].get("gcp"))
result["seconds"] = time.perf_counter() - started
print("RESULT " + json.dumps(result, default=str))
"""


def run_step(step: str, path: Path, out: Path) -> dict:
    code = _STEP.format(
        root=str(ROOT),
        step=step,
        path=str(path),
        out=str(out),
        qi=QI,
        sa=SA,
        memory=MEMORY_LIMIT,
        temp=str(OUT / "duckdb_spill"),
    )
    return run_measured(code, {**os.environ}, interval=0.05)


def main(rows: int = ROWS) -> str:
    started = time.perf_counter()
    path = make_table(rows)
    made = time.perf_counter() - started
    out = OUT / f"adult_{rows}_k10.parquet"
    steps = ("floor", "models", "optimal", "optimal_kept", "measure")
    results = {step: run_step(step, path, out) for step in steps}
    floor = results["floor"]["seconds"]
    what = {
        "floor": "DuckDB's own GROUP BY of the 8 QIs",
        "models": "frequency set + k, l (3 kinds), t (2 distances)",
        "optimal": "optimal k = 10 (1 % suppression), release written shuffled + checked",
        "optimal_kept": "the same, release written in the table's order (a sort more)",
        "measure": "measure the release against the table (paired by position)",
    }
    lines = [
        [
            step,
            what[step],
            f"{r['seconds']:.1f}",
            f"{r['seconds'] / floor:.1f}×",
            f"{r['peak_mb']:,.0f}",
        ]
        for step, r in results.items()
    ]
    size = path.stat().st_size / 2**20
    details = json.dumps(
        {k: {x: y for x, y in v.items() if x != "peak_mb"} for k, v in results.items()}
    )
    return (
        table(["step", "work", "seconds", "÷ floor", "peak MB (process tree)"], lines)
        + f"\n\n{rows:,} rows × 9 columns ({size:,.0f} MB of Parquet, made in {made:.0f} s "
        + f"when absent); DuckDB memory_limit {MEMORY_LIMIT}.\n\nDetails: {details}"
    )


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    print(main(int(sys.argv[1]) if len(sys.argv) > 1 else ROWS))
