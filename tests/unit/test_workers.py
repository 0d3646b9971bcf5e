"""privcore.core.workers: heavy work in a worker process — result, progress, errors with
their codes, cancel (the child ends at once), a child that dies, and run() giving the
same figures in a worker as in place."""

from __future__ import annotations

import os
import time

import pytest

from privcore.core import workers
from privcore.errors import CancelledError, ParameterError


def _square(x: int, *, progress) -> dict:
    for i in range(3):
        progress(i / 3, f"step {i}")
        time.sleep(0.15)  # reports further apart than the child's rate limit
    progress(1.0, "done")
    return {"square": x * x, "pid": os.getpid()}


def _refuse(*, progress) -> None:
    raise ParameterError("k = 40 is larger than the table (9 rows).", code="anonymize.k", k=40)


def _sleep_then_report(path: str, *, progress) -> None:
    with open(path, "w") as fh:
        fh.write(str(os.getpid()))
    for _ in range(600):
        progress(0.5, "working")
        time.sleep(0.1)


def _die(*, progress) -> None:
    os._exit(3)


def test_a_worker_returns_the_result_and_forwards_progress():
    seen = []
    result = workers.call_in_worker(_square, 7, progress=lambda f, m: seen.append((f, m)))
    assert result["square"] == 49
    assert result["pid"] != os.getpid()  # computed in another process
    assert (1.0, "done") in seen
    assert [m for _, m in seen if m.startswith("step")] == ["step 0", "step 1", "step 2"]


def test_a_users_error_comes_back_with_its_code_and_parameters():
    with pytest.raises(ParameterError) as raised:
        workers.call_in_worker(_refuse)
    assert raised.value.code == "anonymize.k"
    assert raised.value.params == {"k": 40}
    assert "larger than the table" in str(raised.value)


def test_a_cancel_ends_the_worker_at_once(tmp_path):
    marker = tmp_path / "pid"
    calls = []

    def progress(fraction, message):
        calls.append(fraction)
        if marker.exists() and len(calls) > 2:
            raise CancelledError("cancelled")

    started = time.monotonic()
    with pytest.raises(CancelledError):
        workers.call_in_worker(_sleep_then_report, str(marker), progress=progress)
    assert time.monotonic() - started < 30  # the job alone would take 60 s
    pid = int(marker.read_text())
    for _ in range(50):  # terminated: gone (reaped) within a few seconds
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        pytest.fail(f"worker {pid} still runs after the cancel")


def test_a_worker_that_dies_is_an_error_not_a_hang():
    with pytest.raises(workers.WorkerError) as raised:
        workers.call_in_worker(_die)
    assert raised.value.code == "runs.worker_died"


def test_the_setting_the_row_threshold_and_the_front_ends_test(monkeypatch):
    monkeypatch.setattr(workers, "_contended", None)
    monkeypatch.delenv("PRIVCORE_WORKERS", raising=False)
    assert not workers.wanted(10**6)  # off unless asked for
    monkeypatch.setenv("PRIVCORE_WORKERS", "1")
    monkeypatch.setenv("PRIVCORE_WORKER_MIN_ROWS", "100")
    assert workers.wanted(100) and not workers.wanted(99) and not workers.wanted(None)
    busy = [False]
    workers.use_when(lambda: busy[0])
    assert not workers.wanted(100)  # nobody else waits: in place
    busy[0] = True
    assert workers.wanted(100)


def test_a_run_in_a_worker_gives_the_figures_of_a_run_in_place():
    from privcore.data.samples import load_sample
    from privcore.runs import AnonymizeRequest, Inputs, MeasureRequest, run

    dataset, schema = load_sample("hospital")
    request = AnonymizeRequest(
        qi=schema.quasi_identifiers, sa=schema.sensitive, algorithm="mondrian", k=3
    )
    inputs = Inputs(original=dataset, schema=schema)
    here = run(request, inputs, record=False, worker=False)
    there = run(request, inputs, record=False, worker=True)
    assert there.summary == {**here.summary, "seconds": there.summary["seconds"]}
    assert there.result.frame.equals(here.result.frame)
    measured = MeasureRequest(qi=schema.quasi_identifiers, sa=schema.sensitive, k=3)
    release_inputs = Inputs(
        original=dataset, schema=schema, release=here.result.frame, aligned=True
    )
    a = run(measured, release_inputs, record=False, worker=False)
    b = run(measured, release_inputs, record=False, worker=True)
    assert a.result.to_dict() | {"seconds": 0} == b.result.to_dict() | {"seconds": 0}


def test_at_most_the_allowed_number_of_workers_run_at_once(monkeypatch, tmp_path):
    import threading

    monkeypatch.setenv("PRIVCORE_MAX_WORKERS", "1")
    waiting = []
    results = {}

    def job(name):
        def progress(fraction, message):
            if message.startswith("Waiting for a free worker"):
                waiting.append(name)

        results[name] = workers.call_in_worker(_square, 3, progress=progress)

    threads = [threading.Thread(target=job, args=(n,)) for n in ("a", "b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert results["a"]["square"] == results["b"]["square"] == 9
    assert waiting  # one job waited for the other's worker


def test_warm_starts_idle_workers_that_then_serve_jobs(monkeypatch):
    monkeypatch.setenv("PRIVCORE_WORKERS", "1")
    monkeypatch.setenv("PRIVCORE_MAX_WORKERS", "2")
    assert workers.warm() == 2
    pids = {w.process.pid for w in workers._idle}
    result = workers.call_in_worker(_square, 5)
    assert result["square"] == 25 and result["pid"] in pids  # an idle one served it
    monkeypatch.delenv("PRIVCORE_WORKERS")
    assert workers.warm() == 0  # off: nothing started


def _grow(megabytes: int, *, progress) -> int:
    """Hold ``megabytes`` of touched memory in the worker (a module-level list keeps it,
    as an import or a fragmented heap would) and return the pid."""
    _HELD.append(bytearray(megabytes * 2**20))
    return os.getpid()


_HELD: list = []


def test_a_worker_grown_past_the_idle_limit_is_ended_not_kept(monkeypatch):
    monkeypatch.setenv("PRIVCORE_WORKERS", "1")
    monkeypatch.setenv("PRIVCORE_MAX_WORKERS", "1")
    monkeypatch.setenv("PRIVCORE_WORKER_MAX_IDLE_MB", "10000")
    monkeypatch.setattr(workers, "_idle", [])  # no worker left idle by another test
    kept = workers.call_in_worker(_grow, 1)
    assert kept in {w.process.pid for w in workers._idle}  # small: kept for the next job
    monkeypatch.setenv("PRIVCORE_WORKER_MAX_IDLE_MB", "200")
    grown = workers.call_in_worker(_grow, 300)
    assert grown == kept  # the idle worker served it, then grew past 200 MB
    assert grown not in {w.process.pid for w in workers._idle}
    assert workers._resident_mb(grown) == 0.0  # ended: its memory is back
