"""Engines side by side: pandas, DuckDB and Spark (local[2]) on the same 10⁷-row table.

The table: Adult (8 QIs, SA occupation) resampled to ``ROWS`` rows with perturbed cells
(each row drawn from Adult; its age moved by −2…+2 years; each other cell replaced, with
probability 1 %, by a value drawn from its column), written once to
``bench/out/adult_<rows>.parquet`` in row groups of 10⁶ rows. Each figure comes from a
fresh process: the engine scans the file, computes the frequency set of the 8 QIs and the
SA, and checks k = 5, distinct l = 2 and t = 0.4 on it
(:func:`privcore.engines.models.frequency_set_models`). Peak memory is that of the whole
process tree (Spark's JVM included), sampled every 20 ms. The floor is DuckDB's own
``SELECT count(*) … GROUP BY`` of the 8 QIs and the SA on the raw file, in the same run.
The pandas engine reads the table into memory with ``PRIVCORE_MAX_ROWS`` raised to hold
it. Median of ``REPEAT`` rounds. `python bench/bench_engines.py [rows]`.
"""

from __future__ import annotations

import os
import statistics
import sys
from pathlib import Path

from _util import ADULT_QI, OUT, ROOT, run_measured, table

ROWS = 10_000_000
REPEAT = 3
QI = ADULT_QI
SA = ["occupation"]


def make_table(rows: int) -> Path:
    """Adult resampled to ``rows`` rows with perturbed cells, as Parquet (made once)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    from privcore.data import load_sample

    path = OUT / f"adult_{rows}.parquet"
    if path.exists():
        return path
    OUT.mkdir(parents=True, exist_ok=True)
    adult = load_sample("adult")[0].frame[[*QI, *SA]]
    rng = np.random.default_rng(16)
    columns = {c: adult[c].to_numpy(dtype=object if c != "age" else np.int64) for c in adult}
    domains = {c: np.unique(adult[c].dropna().to_numpy(dtype=object)) for c in adult}
    chunk = 1_000_000
    writer = None
    try:
        for start in range(0, rows, chunk):
            n = min(chunk, rows - start)
            pick = rng.integers(0, len(adult), n)
            data = {}
            for name, values in columns.items():
                cell = values[pick]
                if name == "age":
                    cell = np.clip(cell + rng.integers(-2, 3, n), 17, 90)
                else:
                    swap = rng.random(n) < 0.01
                    cell = cell.copy()
                    cell[swap] = rng.choice(domains[name], int(swap.sum()))
                data[name] = cell
            batch = pa.table(
                {
                    n: pa.array(v, type=pa.int64() if n == "age" else pa.string())
                    for n, v in data.items()
                }
            )
            if writer is None:
                writer = pq.ParquetWriter(path, batch.schema)
            writer.write_table(batch, row_group_size=chunk)
    finally:
        if writer is not None:
            writer.close()
    return path


_STEP = r"""
import json, sys, time
sys.path.insert(0, {root!r})
name, path = {name!r}, {path!r}
started = time.perf_counter()
if name == "floor":
    import duckdb
    listed = ", ".join('"' + c + '"' for c in {columns!r})
    con = duckdb.connect()
    groups = con.execute(
        f"SELECT count(*) FROM (SELECT {{listed}}, count(*) FROM read_parquet('{{path}}') "
        f"GROUP BY {{listed}})"
    ).fetchone()[0]
    out = {{"groups": int(groups)}}
else:
    from privcore.engines import engine
    from privcore.engines.models import frequency_set_models
    from privcore.models import DistinctLDiversity, KAnonymity, TCloseness
    e = engine(name)
    scanned = e.scan(path)
    fs = e.frequency_set(scanned, {columns!r})
    report = frequency_set_models(
        fs, {qi!r}, {sa!r}, [KAnonymity(5), DistinctLDiversity(2), TCloseness(0.4)]
    )
    out = {{"groups": len(fs), "rows": int(fs["count"].sum()), "k": report.summary["k"]}}
out["seconds"] = time.perf_counter() - started
print("RESULT " + json.dumps(out))
"""


def run_step(name: str, path: Path) -> dict:
    code = _STEP.format(root=str(ROOT), name=name, path=str(path), columns=[*QI, *SA], qi=QI, sa=SA)
    env = {**os.environ, "PRIVCORE_MAX_ROWS": str(10 * ROWS), "PRIVCORE_MAX_FILE_MB": "100000"}
    return run_measured(code, env, interval=0.02)


def main(rows: int = ROWS) -> str:
    global ROWS
    ROWS = rows
    path = make_table(rows)
    names = ["floor", "pandas", "duckdb", "spark"]
    results: dict[str, list[dict]] = {n: [] for n in names}
    for _ in range(REPEAT):
        for name in names:
            results[name].append(run_step(name, path))
    floor = statistics.median(r["seconds"] for r in results["floor"])
    groups = {r["groups"] for rs in results.values() for r in rs}
    lines = []
    for name in names:
        seconds = statistics.median(r["seconds"] for r in results[name])
        peak = statistics.median(r["peak_mb"] for r in results[name])
        what = (
            "DuckDB's own GROUP BY of the raw file"
            if name == "floor"
            else f"frequency set + k, l, t (k = {results[name][0]['k']})"
        )
        lines.append([name, what, f"{seconds:.1f}", f"{seconds / floor:.1f}×", f"{peak:,.0f}"])
    size = path.stat().st_size / 2**20
    return (
        table(["engine", "work", "seconds", "÷ floor", "peak MB (process tree)"], lines)
        + f"\n\n{rows:,} rows × 9 columns ({size:,.0f} MB of Parquet); "
        + f"{', '.join(f'{g:,}' for g in sorted(groups))} distinct combinations (every "
        + "engine the same). Median of "
        + f"{REPEAT} rounds, each engine in a fresh process."
    )


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    print(main(int(sys.argv[1]) if len(sys.argv) > 1 else ROWS))
