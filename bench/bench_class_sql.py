"""The class summary of a near-unique table computed in DuckDB (privcore.engines.class_report):
seconds and peak RSS (the Python process with DuckDB in it), against DuckDB's bare
GROUP BY of the same columns in the same process.

Usage: python bench/bench_class_sql.py [rows] [memory_limit]  (default 10⁷ rows, 1GB)
The table: age (18–97), birth date (30,000 days), ZIP (10⁵ codes), sex, disease (5
values); its QI tuples are almost all distinct.
"""

from __future__ import annotations

import resource
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:

    from bench_measure_near_unique import write_table

    from privcore.engines.class_report import engine_class_report
    from privcore.engines.duckdb_engine import DuckDBEngine

    rows = int(float(sys.argv[1])) if len(sys.argv) > 1 else 10_000_000
    limit = sys.argv[2] if len(sys.argv) > 2 else "1GB"
    folder = Path(tempfile.mkdtemp())
    path = folder / "near_unique.parquet"
    write_table(path, rows)
    engine = DuckDBEngine(memory_limit=limit, temp_dir=folder / "spill")
    table = engine.scan(path)
    qi = ["age", "birth", "zip", "sex"]
    started = time.perf_counter()
    bare = table.connection.execute(
        f"SELECT count(*) FROM (SELECT 1 FROM ({table.sql}) GROUP BY age, birth, zip, sex, disease)"
    ).fetchall()[0][0]
    bare_seconds = time.perf_counter() - started
    started = time.perf_counter()
    summary = engine_class_report(engine, table, qi, ["disease"]).summary
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    print(f"rows {rows:,}; combinations {bare:,}; classes {summary['classes']:,}")
    print(
        f"bare GROUP BY {bare_seconds:.1f} s; summary {seconds:.1f} s "
        f"({seconds / bare_seconds:.1f}×); peak RSS {peak:.2f} GB; memory limit {limit}"
    )
    print(summary)


if __name__ == "__main__":
    main()
