"""The application layer: requests check themselves, and run() records every outcome
with one policy (codes and parameters, never the data)."""

from __future__ import annotations

import pytest

from privcore import history
from privcore.data import load_sample
from privcore.errors import CancelledError, ParameterError, RoleError
from privcore.runs import (
    OPTIONS,
    AnonymizeRequest,
    Inputs,
    MeasureRequest,
    request_from_dict,
    run,
)
from privcore.runs.registry import ALGORITHMS


@pytest.fixture
def hospital():
    return load_sample("hospital")


def test_requests_share_defaults_and_reject_bad_values():
    request = AnonymizeRequest(qi=["ZIP", "Age"], sa="Disease")
    assert request.qi == ("ZIP", "Age") and request.sa == ("Disease",)
    assert (request.k, request.c, request.algorithm) == (5, 3.0, "optimal")
    assert MeasureRequest().k is None  # measuring asks for no verdict unless told
    for bad in (
        {"k": 0},
        {"k": 2.5},
        {"l": float("nan")},
        {"algorithm": "magic"},
        {"max_suppression": 1.5},
        {"seed": -1},
        {"t_distance": "cosine"},
    ):
        with pytest.raises(ParameterError) as info:
            AnonymizeRequest(**bad)
        assert info.value.params["option"] in bad


def test_a_request_builds_its_models_and_its_algorithm_options():
    request = AnonymizeRequest(algorithm="mondrian", k=3, l=2, t=0.3, summary="mean")
    names = [type(m).__name__ for m in request.constraints()]
    assert names == ["KAnonymity", "DistinctLDiversity", "TCloseness"]
    assert request.options() == {"summary": "mean"}
    assert AnonymizeRequest(algorithm="samarati").options() == {"loss_metric": "ncp"}
    with pytest.raises(ParameterError):  # distinct l must be whole
        AnonymizeRequest(l=2.5).constraints()


def test_to_dict_reads_back_and_lists_every_option():
    request = AnonymizeRequest(qi=["a"], sa=["b"], k=4, l=2.0, l_kind="entropy")
    data = request.to_dict()
    assert request_from_dict("anonymize", data) == request
    assert set(data) <= set(OPTIONS) | {"qi", "sa"}
    assert set(OPTIONS["algorithm"].allowed()) == set(ALGORITHMS)


def test_a_successful_run_is_recorded_with_its_request(hospital):
    dataset, schema = hospital
    request = AnonymizeRequest(algorithm="datafly", k=3, qi=["ZIP", "Age"], sa=["Disease"])
    outcome = run(request, Inputs(original=dataset, schema=schema), owner="me", page="anonymize")
    assert outcome.result.measurement.to_dict()["k"] >= 3
    row = history.get_run(outcome.run_id)
    assert row["kind"] == "anonymize" and row["status"] == "ok" and row["page"] == "anonymize"
    assert row["params"]["k"] == 3 and row["params"]["algorithm"] == "datafly"
    assert row["results"] == outcome.summary
    assert row["dataset_sha256"] == dataset.fingerprint.sha256 and row["owner"] == "me"


def test_a_user_error_is_recorded_by_its_code_not_its_message(hospital):
    dataset, schema = hospital
    request = AnonymizeRequest(qi=["nope"], sa=["Disease"])
    with pytest.raises(RoleError):
        run(request, Inputs(original=dataset, schema=schema))
    [row] = history.list_runs()
    assert row["status"] == "error" and row["error"] == row["results"]["error"]["code"]
    assert row["error"].startswith("roles.")
    assert "nope" not in (row["error"] or "")  # the code, not a sentence quoting the input


def test_cancel_is_recorded_as_cancelled_and_a_bug_is_not_a_users_run(hospital):
    dataset, schema = hospital

    def stop(fraction, message):
        raise CancelledError("stopped")

    with pytest.raises(CancelledError):
        run(AnonymizeRequest(k=2), Inputs(original=dataset, schema=schema), progress=stop)
    assert [r["status"] for r in history.list_runs()] == ["cancelled"]

    def broken(fraction, message):
        raise ZeroDivisionError

    with pytest.raises(ZeroDivisionError):
        run(AnonymizeRequest(k=2), Inputs(original=dataset, schema=schema), progress=broken)
    assert len(history.list_runs()) == 1


def test_nothing_is_written_without_record(hospital, isolated_history):
    dataset, schema = hospital
    outcome = run(AnonymizeRequest(k=2), Inputs(original=dataset, schema=schema), record=False)
    assert outcome.run_id is None and not isolated_history.exists()


def test_a_measurement_of_a_release_made_here_needs_no_order_check(hospital):
    dataset, schema = hospital
    made = run(AnonymizeRequest(k=3), Inputs(original=dataset, schema=schema), record=False)
    release = made.result.export(shuffle=False)
    measured = run(
        MeasureRequest(qi=("ZIP", "Age"), sa=("Disease",), k=3),
        Inputs(original=dataset, schema=schema, release=release, aligned=True, release_name="r"),
    )
    assert measured.result.to_dict()["k"] >= 3
    row = history.get_run(measured.run_id)
    assert row["params"]["release"] == "r" and row["params"]["k"] == 3


def test_a_report_and_its_parts_share_one_start_and_list_newest_first(hospital, capsys):
    import datetime as dt
    import re

    from privcore.cli import main
    from privcore.runs import ReportRequest

    dataset, schema = hospital
    qi, sa = ["ZIP", "Age"], ["Disease"]
    made = run(AnonymizeRequest(qi=qi, sa=sa, k=3), Inputs(original=dataset, schema=schema))
    paired = Inputs(
        original=dataset,
        schema=schema,
        release=made.result.export(shuffle=False),
        aligned=True,
        release_name="k3",
    )
    reported = run(ReportRequest(qi=qi, sa=sa), paired)
    measured, attacked = reported.summary["measure_run"], reported.summary["attack_run"]
    # recorded in this order: the release, the report's measurement, its attack, itself
    assert made.run_id < measured < attacked < reported.run_id
    runs = history.list_runs()
    assert [r["id"] for r in runs] == [reported.run_id, attacked, measured, made.run_id]
    # the report and its parts started at the same moment (the report's), to the
    # microsecond; each lasts until it was recorded
    assert len({r["started_at"] for r in runs[:3]}) == 1
    for row in runs[:3]:
        started = dt.datetime.fromisoformat(row["started_at"])
        finished = dt.datetime.fromisoformat(row["finished_at"])
        assert (finished - started).total_seconds() == pytest.approx(row["duration_s"], abs=1e-6)
    assert runs[0]["duration_s"] >= runs[1]["duration_s"] >= runs[2]["duration_s"]
    # the command line lists them in the same order, in UTC to the second
    assert main(["history", "list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [int(line.split()[0][1:]) for line in lines] == [r["id"] for r in runs]
    shown = history.display_time(runs[0]["started_at"])
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", shown)
    assert lines[0].startswith(f"#{reported.run_id:<5} {shown} UTC  report ")
