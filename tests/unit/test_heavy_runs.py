"""The one path of every run (privcore.runs.compute): the cost is estimated and checked
before any work, a heavy run holds a heavy-work slot (DP audits included), a task over
its data goes to a worker that a cancel kills, and the accuracy view is a request."""

from __future__ import annotations

import json
import math
import threading

import numpy as np
import pandas as pd
import pytest

from privcore import history
from privcore.cli import main
from privcore.core import slots, workers
from privcore.data import Dataset
from privcore.dp import queries
from privcore.errors import CancelledError, ParameterError
from privcore.runs import (
    DinnerRequest,
    DpAccuracyRequest,
    DpAuditRequest,
    DpQueryRequest,
    Inputs,
    ReconstructionRequest,
    TaskRequest,
    compute,
    costs,
    execute,
    run,
)
from privcore.runs.execute import runs_started, started_runs


def dataset(frame: pd.DataFrame) -> Dataset:
    return Dataset(frame=frame, name="t", source_format="csv")


@pytest.fixture
def table() -> Dataset:
    """30 rows: a with 3 values, b with 3 values and a missing one (4 cells), c numeric."""
    frame = pd.DataFrame(
        {
            "a": ["x", "y", "z"] * 10,
            "b": (["p", "q", "r", None, "p"] * 6),
            "c": np.arange(30, dtype=float),
        }
    )
    return dataset(frame)


# --------------------------------------------------------------------------- the estimate


def test_histogram_cells_is_the_product_of_distinct_values(table):
    assert costs.histogram_cells(table.frame, ["a", "b"]) == 3 * 4  # missing is a value
    assert costs.histogram_cells(table.frame, ["a"]) == 3
    assert costs.histogram_cells(table.frame, []) == 1


def test_dp_query_estimate_by_hand(table):
    request = DpQueryRequest(query="histogram", columns=("a", "b"), draws=10)
    cost = costs.estimate(request, Inputs(original=table))
    # 30 rows × 2 + 10 draws × 12 cells × 5 (answer, noise, two interval ends, spare)
    assert cost.peak_values == 30 * 2 + 10 * 12 * 5
    assert cost.work_values == 30 * 3 + 10 * 12 * 5
    assert cost.lower == ("draws", "histogram_columns")
    assert not cost.heavy  # far below a second of work


def test_accuracy_estimate_is_one_epsilon_at_a_time(table):
    request = DpAccuracyRequest(query="histogram", columns=("a",), draws=200)
    cost = costs.estimate(request, Inputs(original=table))
    assert cost.peak_values == 30 * 2 + 200 * 3 * 5
    assert cost.work_values == 30 * 3 + 200 * 3 * 5 * 12
    assert cost.heavy  # the accuracy view is a heavy kind


def test_a_run_above_the_budget_is_refused_before_any_work(table, monkeypatch):
    monkeypatch.setenv("PRIVCORE_MAX_RUN_MB", "1")
    drawn = []
    monkeypatch.setattr(queries, "answer", lambda *a, **k: drawn.append(1))
    # 100,000 draws × 12 cells × 5 values × 8 bytes = 45.8 MB > 1 MB
    request = DpQueryRequest(query="histogram", columns=("a", "b"), draws=100_000)
    with pytest.raises(ParameterError) as caught:
        run(request, Inputs(original=table), record=True)
    assert caught.value.code == "runs.too_costly"
    assert caught.value.params["need_mb"] == math.ceil((60 + 100_000 * 60) * 8 / 2**20)
    assert caught.value.params["limit_mb"] == 1
    assert "Lower the number of draws or the columns of the histogram" in str(caught.value)
    assert drawn == []  # nothing was drawn
    recorded = history.list_runs(kind="dp_query", limit=1)[0]
    assert recorded["status"] == "error" and recorded["error"] == "runs.too_costly"


def test_the_error_is_worded_in_both_languages():
    words = {}
    for lang in ("en", "zh"):
        with open(f"privcore/words/locales/{lang}.json", encoding="utf-8") as handle:
            words[lang] = json.load(handle)
        assert "{need_mb}" in words[lang]["error.runs.too_costly"]
        for key in costs.LOWER_WORDS:
            assert words[lang][f"cost.lower.{key}"]


def test_the_cli_refuses_draws_times_cells_before_drawing(tmp_path, capsys):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({c: rng.integers(0, 100, 2_000) for c in "abc"})  # ~10⁶ cells
    path = tmp_path / "wide.csv"
    frame.to_csv(path, index=False)
    code = main(
        ["dp", "query", str(path), "--histogram", "a,b,c", "--draws", "100000", "--epsilon", "1"]
    )
    assert code == 2
    err = capsys.readouterr().err
    assert "PRIVCORE_MAX_RUN_MB" in err and "Traceback" not in err


def test_the_library_caps_draws_times_cells():
    query = queries.histogram(pd.DataFrame({"a": np.arange(1_000)}), ["a"])
    with pytest.raises(ParameterError) as caught:
        queries.answer(query, epsilon=1.0, draws=queries.MAX_DRAWN_VALUES // 1_000 + 1)
    assert caught.value.code == "dp.too_many_draws"
    assert caught.value.params["cells"] == 1_000


# --------------------------------------------------------------------------- the slot


def _hold_the_slot(monkeypatch):
    """PRIVCORE_MAX_HEAVY_JOBS=1 and another thread holding the one slot; returns the
    event that lets it go."""
    monkeypatch.setenv("PRIVCORE_MAX_HEAVY_JOBS", "1")
    monkeypatch.setattr(slots, "WAIT_STEP_S", 0.02)
    holding, release = threading.Event(), threading.Event()

    def holder() -> None:
        with slots.heavy_slot():
            holding.set()
            release.wait(10)

    threading.Thread(target=holder, daemon=True).start()
    assert holding.wait(5)
    return release


def test_a_dp_audit_waits_for_the_slot_and_can_be_cancelled_while_waiting(monkeypatch):
    release = _hold_the_slot(monkeypatch)
    messages = []

    def progress(fraction, message):
        messages.append(message)
        raise CancelledError("stopped")

    try:
        with pytest.raises(CancelledError):
            compute(DpAuditRequest(samples=10_000), Inputs(), progress)
    finally:
        release.set()
    assert messages and messages[0].startswith("Waiting for a free slot")


def test_a_light_run_does_not_wait_for_the_slot(monkeypatch):
    release = _hold_the_slot(monkeypatch)
    try:
        result, _ = compute(DinnerRequest(seed=1), Inputs(), lambda f, m: None)
    finally:
        release.set()
    assert result is not None


def test_a_shared_result_served_from_the_cache_takes_no_slot(monkeypatch, table):
    release = _hold_the_slot(monkeypatch)

    def served(progress):
        return "kept", {}

    served.shared = True
    try:
        request = DpAccuracyRequest(query="count")
        assert compute(request, Inputs(original=table, work=served))[0] == "kept"
    finally:
        release.set()


def test_every_run_is_counted_by_compute(table):
    before = runs_started()
    compute(DpQueryRequest(query="count"), Inputs(original=table))
    assert started_runs(since=before) == ["dp_query"]


# --------------------------------------------------------------------------- the worker


def test_a_task_over_its_data_goes_to_a_worker(monkeypatch):
    monkeypatch.setenv("PRIVCORE_WORKERS", "1")
    sent = []

    def fake_call(fn, *args, progress=None, **kwargs):
        sent.append(fn)
        return fn(*args, progress=progress, **kwargs)

    monkeypatch.setattr(workers, "call_in_worker", fake_call)
    # a request computed by its runner pickles: a heavy one goes to a worker
    heavy = ReconstructionRequest(values=200_000)
    _, summary = compute(heavy, Inputs(), worker=None)
    assert sent == [execute._call_runner] and 0 <= summary["tv"] <= 1
    sent.clear()
    compute(ReconstructionRequest(values=1_000), Inputs(), worker=None)  # light: in place
    assert sent == []
    # a front end's own work (a closure) cannot be pickled: it stays in place
    request = TaskRequest(task="audit", params={"n": 2_000})  # a heavy kind
    compute(request, Inputs(work=lambda progress: ("x", {})), worker=None)
    assert sent == []


class _PageStopped(BaseException):
    """What Streamlit raises at a progress report when Cancel is pressed, the page is
    rerun, or the visitor's session ends (its StopException is a BaseException)."""


@pytest.mark.parametrize("stop", [CancelledError, _PageStopped])
def test_cancel_kills_the_worker(monkeypatch, table, stop):
    monkeypatch.setenv("PRIVCORE_WORKERS", "1")
    monkeypatch.setattr(workers, "BEAT_S", 0.05)
    made = []
    original_init = workers._Worker.__init__

    def spy(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        made.append(self)

    monkeypatch.setattr(workers._Worker, "__init__", spy)
    monkeypatch.setattr(workers, "_idle", [])  # a fresh worker, not one another test left
    calls = []

    def progress(fraction, message):
        calls.append(message)
        if len(calls) >= 2:
            raise stop("stopped")

    request = DpAccuracyRequest(query="count", draws=100_000, grid=(0.5,) * 12)
    with pytest.raises(stop):
        compute(request, Inputs(original=table), progress, worker=True)
    assert made and all(not w.alive() for w in made)  # killed: its memory is freed


# --------------------------------------------------------------------------- accuracy


def test_accuracy_of_a_laplace_count_by_hand(table):
    request = DpAccuracyRequest(query="count", noise="laplace", draws=2_000, grid=(0.5, 2.0))
    curve, summary = compute(request, Inputs(original=table))
    assert list(curve["epsilon"]) == [0.5, 2.0] and summary == {"epsilons": 2, "draws": 2_000}
    # the stated 95 % half-width of Laplace(Δ/ε) is (Δ/ε)·ln 20; the median |noise| is
    # b·ln 2, the 95th percentile b·ln 20 (within sampling error of 2,000 draws)
    for epsilon, row in zip((0.5, 2.0), curve.itertuples(), strict=True):
        b = 1 / epsilon
        assert row.half_width == pytest.approx(b * math.log(20), rel=1e-6)
        assert row.median == pytest.approx(b * math.log(2), rel=0.1)
        assert row.p95 == pytest.approx(b * math.log(20), rel=0.15)


def test_accuracy_of_a_large_histogram_is_refused_before_drawing(monkeypatch):
    frame = pd.DataFrame({"a": np.arange(30_000)})
    monkeypatch.setattr(queries, "answer", lambda *a, **k: pytest.fail("drew"))
    with pytest.raises(ParameterError) as caught:
        compute(
            DpAccuracyRequest(query="histogram", columns=("a",)), Inputs(original=dataset(frame))
        )
    assert caught.value.code == "dp.accuracy_too_large"


def test_accuracy_grid_is_checked():
    with pytest.raises(ParameterError):
        DpAccuracyRequest(query="count", grid=(1.0, -1.0))


def test_a_histogram_too_large_for_the_query_is_refused_in_the_querys_words(monkeypatch):
    """Above the query's own cell limit the estimate defers to the query, whose words
    name that limit (and no draw is asked to be lowered when there is one)."""
    monkeypatch.setenv("PRIVCORE_MAX_RUN_MB", "256")
    frame = pd.DataFrame({c: np.arange(2_000) for c in "ab"})  # 4·10⁶ cells
    request = DpQueryRequest(query="histogram", columns=("a", "b"))
    assert costs.estimate(request, Inputs(original=dataset(frame))).lower == ("histogram_columns",)
    with pytest.raises(ParameterError) as caught:
        compute(request, Inputs(original=dataset(frame)))
    assert caught.value.code == "dp.histogram_too_large"
    accuracy = DpAccuracyRequest(query="histogram", columns=("a", "b"))
    with pytest.raises(ParameterError) as caught:
        compute(accuracy, Inputs(original=dataset(frame)))
    assert caught.value.code == "dp.histogram_too_large"
