"""Anonymizing a near-unique table on DuckDB: Mondrian in fragments and the optimal
full-domain search started from the first generalization that fits, each a whole
``python -m privcore anonymize`` process (seconds, peak RSS of the command), beside
DuckDB's bare GROUP BY of the same columns, in one run.

Usage: python bench/bench_near_unique_anonymize.py [rows] [memory_limit]
(default 10⁷ rows, 2GB). The table: age (18–97), ZIP (10⁵ codes, text), day (30,000
days, a number), sex, disease (5 values) — its QI tuples almost all distinct — with
hierarchies: age and day intervals of doubling width, ZIP masked a digit at a time, sex
to ``*``. k = 10, 1 % suppression, the release written in the table's order.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

QI = ["age", "zip", "day", "sex"]


def hierarchy_files(folder: Path) -> list[str]:
    import numpy as np

    from privcore.data.hierarchy import masking_hierarchy
    from privcore.data.hierarchy.intervals import interval_hierarchy

    built = {
        "age": interval_hierarchy(np.arange(18, 98), width=5),
        "zip": masking_hierarchy([f"{z:05d}" for z in range(100_000)]),
        "day": interval_hierarchy(np.arange(0, 30_000), width=30),
        "sex": masking_hierarchy(["F", "M"]),
    }
    args = []
    for column, hierarchy in built.items():
        path = folder / f"{column}.csv"
        path.write_text(hierarchy.to_arx_csv(), encoding="utf-8")
        args += ["--hierarchy", f"{column}={path}"]
    return args


def run(command: list[str]) -> tuple[float, float, dict]:
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 2**20
    if done.returncode:
        print(done.stderr[-3000:])
        raise SystemExit(done.returncode)
    return seconds, peak, json.loads(done.stdout)


def main() -> None:
    import duckdb

    rows = int(float(sys.argv[1])) if len(sys.argv) > 1 else 10_000_000
    limit = sys.argv[2] if len(sys.argv) > 2 else "2GB"
    algorithms = sys.argv[3].split(",") if len(sys.argv) > 3 else ["optimal", "mondrian"]
    folder = Path(tempfile.mkdtemp())
    path = folder / "near_unique.parquet"
    duckdb.sql(
        "COPY (SELECT (18 + random() * 79)::INT AS age, "
        "lpad(((random() * 99999)::INT)::VARCHAR, 5, '0') AS zip, "
        "(random() * 29999)::INT AS day, "
        "['F', 'M'][1 + (random() * 1.999)::INT] AS sex, "
        "['flu', 'cold', 'cancer', 'asthma', 'none'][1 + (random() * 4.999)::INT] AS disease "
        f"FROM range({rows})) TO '{path}' (FORMAT parquet)"
    )
    started = time.perf_counter()
    combinations = duckdb.sql(
        f"SELECT count(*) FROM (SELECT 1 FROM read_parquet('{path}') "
        "GROUP BY age, zip, day, sex, disease)"
    ).fetchall()[0][0]
    bare = time.perf_counter() - started
    print(f"rows {rows:,}; combinations {combinations:,}; bare GROUP BY {bare:.1f} s")
    hierarchies = hierarchy_files(folder)
    for algorithm in algorithms:
        out = folder / f"{algorithm}.parquet"
        command = [
            sys.executable, "-m", "privcore", "anonymize", str(path),
            "--qi", ",".join(QI), "--sa", "disease", "--k", "10",
            "--max-suppression", "0.01", "--algorithm", algorithm, *hierarchies,
            "--engine", "duckdb", "--memory-limit", limit,
            "--temp-dir", str(folder / "spill"), "--keep-order", "--out", str(out), "--json",
        ]  # fmt: skip
        seconds, peak, result = run(command)
        params = result.get("params", {})
        print(
            f"{algorithm}: {seconds:.0f} s ({seconds / bare:.1f}× the bare GROUP BY); peak "
            f"RSS {peak:.2f} GB (the largest command so far); k {result.get('k')}; "
            f"node {result.get('node')}; start {params.get('start_levels')}; fragments "
            f"{params.get('fragments')}; suppressed {result.get('suppressed_rows')}; "
            f"written k {result['engine']['written_k']}"
        )


if __name__ == "__main__":
    main()
