"""Releases whose rows are not paired with the original's, and the runs the pages make
through privcore.runs: the figures that need no pairing (hand-computed on the textbook's
nine-row release), the exact matching of small tables, task runs, shared results and
per-measure sample counts — every one recorded with the one policy of ``run``."""

from __future__ import annotations

import math

import pytest

from privcore import history
from privcore.data import load_sample
from privcore.errors import DataFormatError, ParameterError
from privcore.measure.report import NEEDS_ALIGNMENT, match_rows, measure_release
from privcore.models import KAnonymity
from privcore.runs import (
    AnonymizeRequest,
    AuditRequest,
    Inputs,
    MeasureRequest,
    TaskRequest,
    compute,
    run,
)

SHUFFLE = [4, 0, 8, 2, 6, 1, 7, 3, 5]


@pytest.fixture
def textbook():
    original, schema = load_sample("hospital")
    release, _ = load_sample("hospital_release")
    return original, schema, release.frame


def test_a_shuffled_release_is_measured_for_what_needs_no_pairing(textbook):
    original, schema, release = textbook
    shuffled = release.iloc[SHUFFLE]
    kwargs = dict(
        qi=schema.quasi_identifiers,
        sa=schema.sensitive,
        models=[KAnonymity(5)],
        hierarchies=schema.hierarchies,
        check_order=True,
    )
    with pytest.raises(DataFormatError) as refused:  # by position: refused, as before
        measure_release(original.frame, shuffled, **kwargs)
    assert refused.value.code == "measure.row_order"
    out = measure_release(original.frame, shuffled, alignment="none", **kwargs).to_dict()
    # three classes of 3 records: k = 3, prosecutor risk 1/3, marketer 3 classes / 9 rows
    assert (out["k"], out["classes"], out["rows"]) == (3, 3, 9)
    assert out["risk"]["prosecutor_max"] == pytest.approx(1 / 3)
    assert out["risk"]["marketer"] == pytest.approx(3 / 9)
    # DR = 1 − H(T|K)/H(T): nine distinct (Salary, Disease) values, three per class:
    # 1 − ln 3 / ln 9 = 1/2, from the release alone
    assert out["dr"] == pytest.approx(1 - math.log(3) / math.log(9))
    # discernibility Σ|E|² = 3 · 3² = 27; C_avg = (9 / 3) / 5 = 0.6
    assert out["loss"]["discernibility"] == 27 and out["loss"]["c_avg"] == pytest.approx(0.6)
    assert [v["passed"] for v in out["verdicts"]] == [False]  # k ≥ 5 fails at 3
    # what needs the pairing is left out, and said so
    assert out["pl"] is None and out["ul"] is None and out["loss"]["gcp"] is None
    assert out["real_records"] == {"any": 0}
    assert out["alignment"] == "none" and out["needs_alignment"] == list(NEEDS_ALIGNMENT)
    # "auto": the same, with the reason's code; in order, everything
    auto = measure_release(original.frame, shuffled, alignment="auto", **kwargs).to_dict()
    assert auto["alignment"] == "none" and auto["k"] == 3 and auto["pl"] is None
    assert auto["unpaired_because"] == "measure.row_order"
    assert out["unpaired_because"] is None  # "none" was asked for
    paired = measure_release(original.frame, release, alignment="auto", **kwargs).to_dict()
    assert paired["alignment"] == "position" and paired["needs_alignment"] == []
    assert (paired["pl"]["all"], paired["dr"], paired["ul"]) == (0.5, 0.5, 0.75)


def test_the_measure_request_carries_the_pairing_and_records_it(textbook):
    original, schema, release = textbook
    outcome = run(
        MeasureRequest(qi=schema.quasi_identifiers, sa=schema.sensitive, k=5, alignment="auto"),
        Inputs(original=original, schema=schema, release=release.iloc[SHUFFLE], release_name="x"),
        page="privacy_level",
    )
    assert outcome.result.alignment == "none" and not outcome.result.aligned
    row = history.get_run(outcome.run_id)
    assert row["params"]["alignment"] == "auto" and row["params"]["release"] == "x"
    assert row["results"]["k"] == 3 and row["results"]["pl"] is None
    with pytest.raises(ParameterError):
        MeasureRequest(alignment="sideways")


def test_small_tables_are_paired_by_exact_matching(textbook):
    original, schema, textbook_release = textbook
    made = run(
        AnonymizeRequest(algorithm="mondrian", k=3),
        Inputs(original=original, schema=schema),
        record=False,
    ).result
    shuffled = made.export(shuffle=True)
    assert not shuffled.equals(made.frame)
    matched = match_rows(
        original.frame,
        shuffled,
        qi=schema.quasi_identifiers,
        sa=schema.sensitive,
        hierarchies=schema.hierarchies,
    )
    # every released row lands on an original row it generalizes, with its own SA values
    assert matched[schema.sensitive].equals(original.frame[schema.sensitive])
    again = measure_release(
        original.frame,
        matched,
        qi=made.qi,
        sa=made.sa,
        hierarchies=schema.hierarchies,
    ).to_dict()
    before = made.measurement.to_dict()
    assert (again["pl"], again["ul"]) == (before["pl"], before["ul"])
    # the textbook's release pairs 4000/gastritis and 9000/pneumonia with ZIPs their
    # original rows (47602, 47673) do not fall in: no pairing covers every row
    with pytest.raises(DataFormatError) as info:
        match_rows(
            original.frame,
            textbook_release.iloc[SHUFFLE],
            qi=schema.quasi_identifiers,
            sa=schema.sensitive,
            hierarchies=schema.hierarchies,
        )
    assert info.value.code == "measure.matching" and info.value.params["unmatched"] == 2


def test_a_task_run_is_recorded_with_its_kind_and_parameters(textbook):
    original, _, _ = textbook
    outcome = run(
        TaskRequest(task="profile", params={"roles": {"ZIP": "quasi_identifier"}}),
        Inputs(original=original, work=lambda progress: ("table", {"rows": 9})),
        page="data",
        owner="me",
    )
    assert outcome.result == "table"
    row = history.get_run(outcome.run_id)
    assert (row["kind"], row["page"], row["owner"]) == ("profile", "data", "me")
    assert row["params"] == {"roles": {"ZIP": "quasi_identifier"}}
    assert row["results"] == {"rows": 9}

    def refused(progress):
        raise ParameterError("No, 'secret value'.", code="attack.refused", column="ZIP")

    with pytest.raises(ParameterError):
        run(TaskRequest(task="attack", params={"attack": "x"}), Inputs(work=refused))
    latest = history.list_runs(kind="attack")[0]
    assert latest["status"] == "error" and latest["error"] == "attack.refused"
    assert "secret" not in str(latest)


def test_work_replaces_the_library_call_and_the_request_is_recorded(textbook):
    original, schema, _ = textbook
    request = AnonymizeRequest(algorithm="datafly", k=3)
    plain = Inputs(original=original, schema=schema)
    made = compute(request, plain)
    calls = []

    def shared(progress):
        calls.append(progress)
        return made

    outcome = run(request, Inputs(original=original, schema=schema, work=shared))
    assert outcome.result is made[0] and len(calls) == 1
    row = history.get_run(outcome.run_id)
    assert row["kind"] == "anonymize" and row["params"]["k"] == 3
    assert row["params"]["algorithm"] == "datafly"


def test_each_audit_measure_takes_its_own_number_of_samples():
    request = AuditRequest(
        mechanism="grr", domain=4, methods=["ab", "lb"], method_samples={"ab": 2_000}
    )
    assert (request.samples_of("ab"), request.samples_of("lb")) == (2_000, None)
    outcome = run(request, record=False)
    assert outcome.result["ab"].samples == 2_000
    with pytest.raises(ParameterError):  # below the registry's minimum of 100
        AuditRequest(mechanism="grr", domain=4, method_samples={"ab": 10})
    with pytest.raises(ParameterError):
        AuditRequest(mechanism="grr", domain=4, method_samples={"magic": 1_000})
