"""Spark on a real cluster: a standalone master and two workers on the loopback (PySpark's
own jars, 1 core and 1 GB each). ``anonymize``, ``measure``, ``attack``, ``risk`` and
``report`` with ``--spark-master`` give the JSON DuckDB gives on the same files; a worker
killed in the middle of a job costs the job nothing but time (Spark runs its tasks again
on the other worker), or the command ends with exit 2 and one line — never a hang."""

from __future__ import annotations

import json
import os
import signal
import threading
import time

import pytest

from privcore.cli import main
from privcore.data import load
from tests.conftest import ASSETS
from tests.spark_cluster import standalone_cluster, stop_active_spark
from tests.unit.test_engines import SPARK_MISSING

pytestmark = pytest.mark.skipif(SPARK_MISSING is not None, reason=str(SPARK_MISSING))

QI = "age,sex,race,education"
SA = "occupation"
#: Keys that differ between two runs of the same work: timings, history ids, the engine.
VARYING = {"seconds", "run_ids", "run_id", "created", "engine", "out", "path"}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A standalone master and two workers (1 core, 1 GB each) on 127.0.0.1; yields the
    master's URL and the workers' processes; this module's Spark session is stopped at
    its end."""
    stop_active_spark()  # another module's local session: this module needs its own
    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"  # the driver (this process) on the loopback
    with standalone_cluster(tmp_path_factory.mktemp("cluster")) as (url, workers):
        try:
            yield url, workers
        finally:
            stop_active_spark()


@pytest.fixture(scope="module")
def adult_table(tmp_path_factory):
    path = tmp_path_factory.mktemp("cluster_data") / "adult.parquet"
    load(ASSETS / "adult" / "adult.csv").frame.head(4000).to_parquet(path, index=False)
    return path


def cli_json(capsys, args: list[str]) -> tuple[int, dict]:
    code = main([*args, "--json"])
    printed = capsys.readouterr().out
    return code, json.loads(printed)


def steady(value):
    """``value`` without the keys that differ between two runs of the same work."""
    if isinstance(value, dict):
        return {k: steady(v) for k, v in value.items() if k not in VARYING}
    if isinstance(value, list):
        return [steady(v) for v in value]
    return value


def on_engines(capsys, args: list[str], url: str) -> dict[str, tuple[int, dict]]:
    return {
        "duckdb": cli_json(capsys, [*args, "--engine", "duckdb"]),
        "cluster": cli_json(capsys, [*args, "--engine", "spark", "--spark-master", url]),
    }


def test_every_command_on_the_cluster_gives_duckdbs_json(
    cluster, adult_table, tmp_path, capsys, monkeypatch
):
    url, _ = cluster
    monkeypatch.setenv("PRIVCORE_HISTORY", str(tmp_path / "history.db"))
    monkeypatch.setenv("PRIVCORE_SPARK_TIMEOUT", "300")
    hierarchies = []
    for column in QI.split(","):
        hierarchies += [
            "--hierarchy",
            f"{column}={ASSETS / 'adult' / f'adult_hierarchy_{column}.csv'}",
        ]
    made = {}
    for engine, extra in (("duckdb", []), ("spark", ["--spark-master", url])):
        out = tmp_path / f"release_{engine}.parquet"
        code, result = cli_json(
            capsys,
            [
                "anonymize", str(adult_table), "--qi", QI, "--sa", SA, "--k", "5",
                "--algorithm", "optimal", *hierarchies, "--keep-order", "--out", str(out),
                "--engine", engine, *extra,
            ],
        )  # fmt: skip
        assert code == 0, result
        made[engine] = (out, result)
    assert steady(made["spark"][1]) == steady(made["duckdb"][1])
    assert made["spark"][0].is_dir()  # Spark's folder of parts, read below by both engines
    release = str(made["spark"][0])
    paired = ["--original", str(adult_table), "--release", release, "--qi", QI, "--sa", SA]
    commands = {
        "measure": ["measure", *paired, *hierarchies],
        "attack": ["attack", *paired, *hierarchies],
        "risk": ["risk", *paired, *hierarchies],
        "report": ["report", *paired, *hierarchies, "--out", str(tmp_path / "report.html")],
    }
    for name, args in commands.items():
        results = on_engines(capsys, args, url)
        (duck_code, duck), (spark_code, spark) = results["duckdb"], results["cluster"]
        assert spark_code == duck_code, name
        assert steady(spark) == steady(duck), name


def test_a_worker_lost_in_the_middle_of_a_job_never_hangs(
    cluster, adult_table, tmp_path, capsys, monkeypatch
):
    """The second worker is killed (with its executor) while ``measure`` runs: the
    command completes with the figures DuckDB gives, or exits 2 with one line, well
    within the time limit."""
    url, workers = cluster
    monkeypatch.setenv("PRIVCORE_HISTORY", str(tmp_path / "history.db"))
    monkeypatch.setenv("PRIVCORE_SPARK_TIMEOUT", "240")
    args = ["measure", "--original", str(adult_table), "--release", str(adult_table)]
    args += ["--qi", QI, "--sa", SA]
    _, expected = cli_json(capsys, [*args, "--engine", "duckdb"])
    killed, ended = threading.Event(), threading.Event()

    def kill_when_a_job_runs() -> None:
        """Kill the second worker (and its executor) once a Spark job is running."""
        from pyspark import SparkContext

        while not ended.is_set():
            context = SparkContext._active_spark_context
            try:
                running = context is not None and context.statusTracker().getActiveJobsIds()
            except Exception:  # noqa: BLE001 - the context is still starting: look again
                running = False
            if running:
                os.killpg(workers[1].pid, signal.SIGKILL)
                killed.set()
                return
            time.sleep(0.01)

    killer = threading.Thread(target=kill_when_a_job_runs, daemon=True)
    started = time.monotonic()
    killer.start()
    code = main([*args, "--engine", "spark", "--spark-master", url, "--json"])
    elapsed = time.monotonic() - started
    ended.set()
    killer.join(timeout=10)
    captured = capsys.readouterr()
    assert killed.is_set(), "no Spark job was seen running: the worker was not killed"
    assert elapsed < 240
    assert workers[1].wait(timeout=30) is not None  # the worker is gone
    if code == 0:
        assert steady(json.loads(captured.out)) == steady(expected)
    else:
        assert code == 2
        said = [line for line in captured.err.splitlines() if line.startswith("error:")]
        assert len(said) == 1, captured.err[-2000:]
