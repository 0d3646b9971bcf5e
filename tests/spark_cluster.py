"""A Spark standalone cluster on the loopback for tests and benches: a master and
workers started from PySpark's own jars (``bin/spark-class``), each in its own process
group (a worker's executors are its children), ended on exit."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path


def stop_active_spark() -> None:
    """Stop this process's active Spark session, if any (a module that needs a session
    of its own, or is done with its one)."""
    from pyspark.sql import SparkSession

    session = SparkSession.getActiveSession()
    if session is not None:
        session.stop()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def standalone_cluster(
    folder: Path, *, workers: int = 2, cores: int = 1, memory: str = "1g"
) -> Iterator[tuple[str, list[subprocess.Popen]]]:
    """A master and ``workers`` workers (``cores`` and ``memory`` each) on 127.0.0.1,
    their logs and work in ``folder``; yields the master's URL and the workers'
    processes once every worker has registered."""
    import pyspark

    home = Path(pyspark.__file__).parent
    env = {**os.environ, "SPARK_HOME": str(home), "SPARK_LOCAL_IP": "127.0.0.1"}
    env.update(SPARK_WORKER_DIR=str(folder / "work"), SPARK_NO_DAEMONIZE="1")
    port = free_port()
    url = f"spark://127.0.0.1:{port}"
    deploy = "org.apache.spark.deploy"

    def start(name: str, *args: str) -> subprocess.Popen:
        return subprocess.Popen(
            [str(home / "bin" / "spark-class"), *args],
            env=env,
            stdout=(folder / f"{name}.log").open("w"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    master = start(
        "master", f"{deploy}.master.Master", "--host", "127.0.0.1", "--port", str(port),
        "--webui-port", str(free_port()),
    )  # fmt: skip
    worker = [f"{deploy}.worker.Worker", "--host", "127.0.0.1", "--cores", str(cores)]
    started = [
        start(f"worker{i}", *worker, "--memory", memory, "--webui-port", str(free_port()), url)
        for i in range(workers)
    ]
    try:
        log = folder / "master.log"
        deadline = time.monotonic() + 120
        while log.read_text(errors="replace").count("Registering worker") < workers:
            if time.monotonic() > deadline:
                raise RuntimeError("the cluster did not start: " + log.read_text()[-2000:])
            time.sleep(0.5)
        yield url, started
    finally:
        for process in [*started, master]:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)
