"""Paired work at scale: ``measure``, ``attack`` and ``risk`` of a release against its
table, 10⁷ rows, on DuckDB, on Spark ``local[2]`` and on a Spark standalone cluster (a
master and two workers on the loopback, 1 core and 1 GB each), every engine with its
default settings, side by side in one run.

The table is the one of ``bench_engines.py`` (Adult resampled, 8 QIs + occupation); the
release is its optimal k = 10 anonymization written by ``anonymize --engine duckdb
--keep-order`` (made once), so the two are paired by position. Each command runs as a
whole process (``python -m privcore …``); its peak memory is the process tree's (the
driver's JVM included) and, on the cluster, the workers' trees with their executors,
sampled every 100 ms. The floor is DuckDB's own positional join of the two files grouped
by the QIs and the SA of both (what a paired measurement must at least read and group).
`python bench/bench_engines_paired.py [rows] [engine]` (``engine``: the start of an
engine's name, e.g. ``DuckDB``, for its rows alone).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from _util import OUT, ROOT, table, tree_rss_kb
from bench_engines import QI, SA, make_table

sys.path.insert(0, str(ROOT))
from tests.spark_cluster import standalone_cluster

ROWS = 10_000_000
TIME_LIMIT = 3600


def measured(cmd: list[str], env: dict, also: list[int] = ()) -> tuple[float, float, float, int]:
    """Seconds, peak MB of the command's tree, peak MB of the ``also`` trees (the
    cluster's workers), exit code."""
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = peak_also = 0
    while proc.poll() is None:
        peak = max(peak, tree_rss_kb(proc.pid))
        peak_also = max(peak_also, sum(tree_rss_kb(pid) for pid in also))
        time.sleep(0.1)
    err = proc.stderr.read().decode(errors="replace")
    if proc.returncode not in (0, 1):
        print(err[-2000:], file=sys.stderr)
    return time.perf_counter() - started, peak / 1024, peak_also / 1024, proc.returncode


def floor_seconds(original: Path, release: Path) -> float:
    """DuckDB's own positional join of the two files, grouped by the QIs and SA of both."""
    import duckdb

    from privcore.engines.duckdb_engine import default_memory_limit

    listed = ", ".join(f'o."{c}", r."{c}"' for c in [*QI, *SA])
    connection = duckdb.connect()
    connection.execute(f"SET memory_limit = '{default_memory_limit()}'")
    started = time.perf_counter()
    connection.execute(
        f"SELECT count(*) FROM (SELECT {listed}, count(*) FROM read_parquet('{original}') o "
        f"POSITIONAL JOIN read_parquet('{release}') r GROUP BY ALL)"
    ).fetchone()
    return time.perf_counter() - started


def main(rows: int = ROWS, only: str | None = None) -> str:
    original = make_table(rows)
    release = OUT / f"paired_release_{rows}.parquet"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PRIVCORE_HISTORY": str(OUT / "paired.db")}
    env.update(PRIVCORE_SPARK_TIMEOUT=str(TIME_LIMIT), SPARK_LOCAL_IP="127.0.0.1")
    env.update(PYSPARK_PYTHON=sys.executable, PRIVCORE_MAX_ROWS=str(rows + 1))
    columns = ["--qi", ",".join(QI), "--sa", ",".join(SA)]
    for column in [*QI, *SA]:  # ARX's hierarchies of Adult
        columns += [
            "--hierarchy",
            f"{column}={ROOT / 'assets' / 'adult'}/adult_hierarchy_{column}.csv",
        ]
    if not release.exists():
        cmd = [sys.executable, "-m", "privcore", "anonymize", str(original), *columns,
               "--k", "10", "--algorithm", "optimal", "--keep-order", "--out", str(release),
               "--engine", "duckdb", "--quiet"]  # fmt: skip
        assert measured(cmd, env)[3] == 0
    floor = floor_seconds(original, release)
    folder = OUT / "paired_cluster"
    folder.mkdir(parents=True, exist_ok=True)
    lines = []
    with standalone_cluster(folder) as (url, workers):
        engines = {
            "DuckDB": (["--engine", "duckdb"], []),
            "Spark local[2]": (["--engine", "spark"], []),
            "Spark cluster (2 workers × 1 core, 1 GB)": (
                ["--engine", "spark", "--spark-master", url],
                [p.pid for p in workers],
            ),
        }
        if only is not None:  # e.g. "DuckDB": that engine's rows alone
            engines = {name: value for name, value in engines.items() if name.startswith(only)}
        for command in ("measure", "attack", "risk"):
            for name, (flags, also) in engines.items():
                cmd = [sys.executable, "-m", "privcore", command, "--original", str(original),
                       "--release", str(release), *columns, *flags, "--json"]  # fmt: skip
                seconds, peak, executors, code = measured(cmd, env, also)
                lines.append(
                    [
                        command, name, f"{seconds:.0f}", f"{seconds / floor:.1f}×",
                        f"{peak:,.0f}", f"{executors:,.0f}" if also else "—",
                        "ok" if code in (0, 1) else f"exit {code}",
                    ]
                )  # fmt: skip
                print(lines[-1], flush=True)
    header = ["command", "engine", "seconds", "÷ floor", "peak MB (driver tree)",
              "peak MB (workers + executors)", "exit"]  # fmt: skip
    return (
        table(header, lines)
        + f"\n{rows:,} rows; floor (DuckDB's positional join + GROUP BY): {floor:.1f} s"
    )


if __name__ == "__main__":
    print(
        main(
            int(sys.argv[1]) if len(sys.argv) > 1 else ROWS,
            sys.argv[2] if len(sys.argv) > 2 else None,
        )
    )
