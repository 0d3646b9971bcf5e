"""``privcore measure --engine duckdb`` on a near-unique table: seconds and peak RSS of
the whole command (one process: Python with DuckDB in it), beside DuckDB's bare
GROUP BY of the same columns, in one run.

Usage: python bench/bench_measure_near_unique.py [rows] [memory_limit]
(default 10⁷ rows, 2GB). The table: age (18–97), birth date (30,000 days), ZIP (10⁵
codes), sex, disease (5 values); its QI tuples are almost all distinct. The release
measured is the table itself (raw data released as it is), against itself; the models:
k = 2, entropy l = 2 and t = 0.3 with the ordered distance.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

from bench_near_unique_anonymize import run


def write_table(path: Path, rows: int) -> None:
    """The near-unique table (module docstring) as Parquet at ``path``."""
    import duckdb

    duckdb.sql(
        "COPY (SELECT (18 + random() * 79)::INT AS age, "
        "DATE '1930-01-01' + (random() * 29999)::INT AS birth, "
        "lpad(((random() * 99999)::INT)::VARCHAR, 5, '0') AS zip, "
        "['F', 'M'][1 + (random() * 1.999)::INT] AS sex, "
        "['flu', 'cold', 'cancer', 'asthma', 'none'][1 + (random() * 4.999)::INT] AS disease "
        f"FROM range({rows})) TO '{path}' (FORMAT parquet)"
    )


def main() -> None:
    import duckdb

    rows = int(float(sys.argv[1])) if len(sys.argv) > 1 else 10_000_000
    limit = sys.argv[2] if len(sys.argv) > 2 else "2GB"
    folder = Path(tempfile.mkdtemp())
    path = folder / "near_unique.parquet"
    started = time.perf_counter()
    write_table(path, rows)
    print(f"table written in {time.perf_counter() - started:.0f} s")
    bare_started = time.perf_counter()
    connection = duckdb.connect()
    connection.execute(f"SET memory_limit = '{limit}'")
    connection.execute(f"SET temp_directory = '{folder / 'spill_bare'}'")
    bare = connection.execute(
        f"SELECT count(*) FROM (SELECT 1 FROM read_parquet('{path}') "
        "GROUP BY age, birth, zip, sex, disease)"
    ).fetchall()[0][0]
    bare_seconds = time.perf_counter() - bare_started
    connection.close()
    command = [
        sys.executable, "-m", "privcore", "measure",
        "--original", str(path), "--release", str(path),
        "--qi", "age,birth,zip,sex", "--sa", "disease",
        "--k", "2", "--l", "2", "--l-kind", "entropy", "--t", "0.3", "--t-distance", "ordered",
        "--engine", "duckdb", "--memory-limit", limit, "--temp-dir", str(folder / "spill"),
        "--json",
    ]  # fmt: skip
    seconds, peak, result = run(command)
    print(f"rows {rows:,}; combinations {bare:,}; classes {result['classes']:,}")
    print(
        f"bare GROUP BY {bare_seconds:.1f} s; measure {seconds:.1f} s "
        f"({seconds / bare_seconds:.1f}×); peak RSS of the command {peak:.2f} GB; "
        f"memory limit {limit}"
    )
    shown = {key: result[key] for key in ("k", "suppressed_rows", "l_entropy", "t_closeness")}
    print(json.dumps(shown), json.dumps(result["risk"]))
    print(
        "verdicts:", [(v["model"], v["passed"], v["violating_classes"]) for v in result["verdicts"]]
    )
    print("notes:", result["notes"])


if __name__ == "__main__":
    main()
