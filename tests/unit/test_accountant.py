"""The privacy accountant of privcore.runs: DP runs spend from a named budget (sequential
composition), refused before any noise is drawn, kept in a file for pipelines, and the
ledger in the history."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from privcore import history
from privcore.data import load
from privcore.errors import InfeasibleError, ParameterError
from privcore.runs import (
    Accountant,
    DpAccuracyRequest,
    DpQueryRequest,
    DpReleaseRequest,
    Inputs,
    cost_of,
    run,
)


@pytest.fixture
def people():
    frame = pd.DataFrame({"age": [23, 35, 41, 52, 67, 30], "city": list("ABABAB")})
    return Inputs(original=load(frame))


def test_what_each_request_costs():
    # a query: draws × ε; δ only with Gaussian noise (Laplace and geometric are pure ε-DP)
    assert cost_of(DpQueryRequest(query="count", epsilon=0.5, draws=2)) == (1.0, 0.0)
    gaussian = DpQueryRequest(query="count", epsilon=0.5, delta=1e-6, noise="gaussian", draws=3)
    assert cost_of(gaussian) == pytest.approx((1.5, 3e-6))
    release = DpReleaseRequest(qi=("age",), sa=("city",), epsilon=2.0)
    assert cost_of(release) == (2.0, 0.0)
    # a view of the noise releases nothing about the table
    assert cost_of(DpAccuracyRequest(query="count")) is None


def test_runs_spend_until_the_budget_is_gone_then_are_refused_and_recorded(people):
    budget = Accountant("survey", epsilon=1.0)
    for _ in range(2):
        outcome = run(DpQueryRequest(query="count", epsilon=0.4), people, budget=budget)
        assert outcome.summary["budget"]["name"] == "survey"
    assert budget.spent == pytest.approx((0.8, 0.0))
    assert budget.remaining[0] == pytest.approx(0.2)
    with pytest.raises(InfeasibleError) as caught:
        run(DpQueryRequest(query="count", epsilon=0.4), people, budget=budget)
    assert caught.value.code == "dp.budget_exceeded"
    assert caught.value.params["remaining_epsilon"] == pytest.approx(0.2)
    assert len(budget.ledger) == 2  # the refused run spent nothing
    runs = history.list_runs(kind="dp_query")
    assert [r["status"] for r in runs] == ["ok", "ok"]  # the refused run never started
    second = runs[0]["results"]["budget"]
    assert second["spent_epsilon"] == pytest.approx(0.8)
    assert second["remaining_epsilon"] == pytest.approx(0.2)
    assert second["epsilon"] == pytest.approx(0.4)


def test_ten_tenths_spend_a_budget_of_one_exactly(people):
    budget = Accountant("tenths", epsilon=1.0)
    for _ in range(10):
        run(DpQueryRequest(query="count", epsilon=0.1), people, budget=budget, record=False)
    assert budget.remaining[0] == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(InfeasibleError):
        run(DpQueryRequest(query="count", epsilon=0.01), people, budget=budget, record=False)


def test_a_run_that_fails_spends_nothing(people):
    budget = Accountant("survey", epsilon=1.0)
    request = DpQueryRequest(query="count", where={"no_such_column": 1}, epsilon=0.5)
    with pytest.raises(ParameterError):
        run(request, people, budget=budget, record=False)
    assert budget.ledger == ()
    # a run that costs nothing leaves the ledger alone
    run(DpAccuracyRequest(query="count", draws=5), people, budget=budget, record=False)
    assert budget.ledger == ()


def test_a_budget_file_is_shared_by_the_steps_of_a_pipeline(tmp_path, people):
    path = tmp_path / "budget.json"
    with pytest.raises(ParameterError) as caught:
        Accountant.open(path)
    assert caught.value.code == "dp.budget_file_new"
    first = Accountant.open(path, epsilon=1.0)
    run(DpQueryRequest(query="count", epsilon=0.3), people, budget=first, budget_label="step 1")
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert saved["name"] == "budget"
    assert saved["spent_epsilon"] == pytest.approx(0.3)
    assert [line["label"] for line in saved["ledger"]] == ["step 1"]
    # a later step opens the same budget: what is spent stays spent
    second = Accountant.open(path)
    assert second.spent == pytest.approx((0.3, 0.0))
    run(DpQueryRequest(query="count", column=None, epsilon=0.7), people, budget=second)
    with pytest.raises(InfeasibleError):
        run(DpQueryRequest(query="count", epsilon=0.1), people, budget=Accountant.open(path))
    with pytest.raises(ParameterError) as caught:
        Accountant.open(path, epsilon=5.0)  # a pipeline cannot enlarge its budget
    assert caught.value.code == "dp.budget_file_totals"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(ParameterError) as caught:
        Accountant.open(path)
    assert caught.value.code == "dp.budget_file_bad"


def test_a_budget_checks_its_own_totals():
    with pytest.raises(ParameterError):
        Accountant("bad", epsilon=0.0)
    with pytest.raises(ParameterError):
        Accountant("bad", epsilon=1.0, delta=1.0)
    with pytest.raises(ParameterError) as caught:
        Accountant("  ", epsilon=1.0)
    assert caught.value.code == "dp.budget_name"


def test_the_command_line_spends_from_a_budget_file(tmp_path, capsys):
    from pathlib import Path

    from privcore.cli import main

    hospital = Path(__file__).resolve().parents[2] / "assets" / "hospital" / "hospital.csv"
    budget = tmp_path / "pipeline.json"
    argv = ["dp", "query", str(hospital), "--count", "--epsilon", "0.4"]
    argv += ["--budget-file", str(budget)]
    assert main(argv) == 2  # a new file needs its total
    assert "give the budget's total ε to start it" in capsys.readouterr().err
    assert main([*argv, "--budget-epsilon", "1", "--json"]) == 0
    assert main([*argv, "--json", "--record"]) == 0
    capsys.readouterr()
    assert main(argv) == 2  # 0.8 spent of 1: a third 0.4 goes over
    assert "only ε = 0.2" in capsys.readouterr().err
    saved = json.loads(budget.read_text(encoding="utf-8"))
    assert saved["spent_epsilon"] == pytest.approx(0.8)
    assert [line["label"] for line in saved["ledger"]] == ["count(*)", "count(*)"]
    (recorded,) = history.list_runs(kind="dp_query")
    assert recorded["results"]["budget"]["name"] == "pipeline"
    assert recorded["results"]["budget"]["remaining_epsilon"] == pytest.approx(0.2)
