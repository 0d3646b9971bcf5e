"""The analyses around a release as requests of their own (background knowledge, row
order, two releases, ε sweeps, randomization and reconstruction): checked on creation,
computed by their runner from the request and the inputs, the same figures as the
library called directly."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from privcore.data import load
from privcore.errors import ParameterError
from privcore.runs import (
    BackgroundRequest,
    ComplementaryRequest,
    Inputs,
    OrderingRequest,
    ReconstructionRequest,
    SweepRequest,
    check_value,
    run,
)

HOSPITAL = Path(__file__).resolve().parents[2] / "assets" / "hospital"


@pytest.fixture
def hospital():
    return load(HOSPITAL / "hospital.csv"), load(HOSPITAL / "hospital_release.csv").frame


def test_a_list_of_numbers_is_checked_number_by_number():
    assert check_value("epsilons", [0.5, 1, 2]) == (0.5, 1.0, 2.0)
    assert check_value("epsilons", 3) == (3.0,)
    for bad in ([], "1, 2", [1.0, 0.0], [1.0, float("nan")], [True]):
        with pytest.raises(ParameterError) as caught:
            check_value("epsilons", bad)
        assert caught.value.code == "parameter.invalid"
    with pytest.raises(ParameterError, match=r"--epsilons must be a number above 0, not -1"):
        check_value("epsilons", [2, -1])
    with pytest.raises(ParameterError, match="a list of numbers, each a number above 0"):
        check_value("epsilons", [])


def test_a_field_can_be_checked_by_an_option_of_its_own_meaning():
    # tau of the background attack is a posterior confidence, checked as posterior_tau
    assert BackgroundRequest(qi=("Age",), sa=("Disease",), tau=1.0).tau == 1.0
    with pytest.raises(ParameterError, match="--posterior-tau"):
        BackgroundRequest(qi=("Age",), sa=("Disease",), tau=0.0)
    with pytest.raises(ParameterError) as caught:
        BackgroundRequest(qi=("Age",), sa=("Disease", "Salary"))
    assert caught.value.code == "runs.one_sensitive"
    assert caught.value.params["count"] == 2


def test_background_knowledge_before_and_after_as_the_library_says(hospital):
    from privcore.attacks import background_attack

    original, release = hospital
    request = BackgroundRequest(qi=("ZIP", "Age"), sa=("Disease",), m=1, tau=0.5)
    outcome = run(request, Inputs(original=original, release=release), record=False)
    before = background_attack(original.frame, ["ZIP", "Age"], "Disease", m=1, tau=0.5)
    after = background_attack(release, ["ZIP", "Age"], "Disease", m=1, tau=0.5)
    assert outcome.summary == {"before": before.summary, "after": after.summary}
    # the original's classes are single records: every one is at risk before
    assert outcome.summary["before"]["records_at_risk"] == len(original.frame)
    assert request.to_dict() == {
        "attack": "background knowledge",
        "qi": ["ZIP", "Age"],
        "sa": "Disease",
        "m": 1,
        "tau": 0.5,
        "prior": False,
    }


def test_the_row_order_of_a_file_is_traced_through_a_key():
    original = load(pd.DataFrame({"id": [1, 2, 3, 4], "age": [30, 40, 50, 60]})).frame
    released = original.iloc[::-1].reset_index(drop=True)  # published in reverse
    outcome = run(
        OrderingRequest(key="id"), Inputs(original=load(original), release=released), record=False
    )
    # order = [3, 2, 1, 0]: no row in place, Spearman's ρ = 1 − 6 Σd² / (n(n²−1))
    # = 1 − 6·(9+1+1+9) / (4·15) = −1
    assert outcome.summary["rows_in_place"] == 0.0
    assert outcome.summary["spearman"] == pytest.approx(-1.0)
    in_order = run(
        OrderingRequest(),
        Inputs(original=load(original), release=original, aligned=True),
        record=False,
    )
    assert in_order.summary["rows_in_place"] == 1.0
    assert in_order.summary["spearman"] == pytest.approx(1.0)


def test_the_row_order_of_a_file_without_a_key_is_refused_in_words():
    original = pd.DataFrame({"id": [1, 2, 3], "age": [30, 40, 50]})
    inputs = Inputs(original=load(original), release=original)
    with pytest.raises(ParameterError) as caught:
        run(OrderingRequest(), inputs, record=False)
    assert caught.value.code == "attack.order_unknown"
    repeated = original.assign(id=[1, 1, 2])
    with pytest.raises(ParameterError) as caught:
        run(
            OrderingRequest(key="id"),
            Inputs(original=load(original), release=repeated),
            record=False,
        )
    assert caught.value.code == "attack.key_not_unique"
    assert caught.value.params["table"] == "release"
    other = original.assign(id=[1, 2, 9])
    with pytest.raises(ParameterError) as caught:
        run(OrderingRequest(key="id"), Inputs(original=load(original), release=other), record=False)
    assert caught.value.code == "attack.key_mismatch"


def test_two_releases_intersected_as_the_library_says():
    from privcore.attacks import complementary_attack

    first = pd.DataFrame({"age": ["<40", "<40", "≥40", "≥40"], "zip": ["1*", "1*", "1*", "1*"]})
    second = pd.DataFrame({"age": ["*", "*", "*", "*"], "zip": ["10", "11", "10", "11"]})
    second["disease"] = ["flu", "flu", "cold", "hiv"]
    first["disease"] = second["disease"]
    inputs = Inputs(release=first, second_release=second, second_release_name="b.csv")
    outcome = run(ComplementaryRequest(qi=("age", "zip"), sa=("disease",)), inputs, record=False)
    expected = complementary_attack(first, second, ["age", "zip"], sa=["disease"])
    assert outcome.summary == expected.to_dict()["summary"]
    # classes of 2 in each; every intersection (age band × zip) is one record
    assert outcome.summary["min_effective_k"] == 1
    assert outcome.summary["records_effective_k_1"] == 4
    assert inputs.describe()["second_release"] == "b.csv"


def test_a_sweep_needs_a_mechanism_and_checks_each_epsilon():
    with pytest.raises(ParameterError) as caught:
        SweepRequest()
    assert caught.value.code == "runs.audit_target"
    with pytest.raises(ParameterError) as caught:
        SweepRequest(mechanism="grr", epsilons=(1.0, -2.0))
    assert caught.value.code == "ldp.bad_epsilon"  # each ε checked as a mechanism's claim
    with pytest.raises(ParameterError) as caught:
        SweepRequest(mechanism="grr", epsilons=(1.0, 25.0))
    assert caught.value.code == "ldp.bad_epsilon"  # above 20: beyond float64 precision
    with pytest.raises(ParameterError) as caught:
        run(SweepRequest(mechanism="grr", epsilons=(1.0,)), record=False)
    assert caught.value.code == "ldp.bad_domain"  # a frequency oracle needs its domain
    assert SweepRequest(mechanism="grr", epsilons=[1, 2], domain=4).to_dict() == {
        "sweep": "grr",
        "epsilons": [1.0, 2.0],
        "domain": 4,
    }


def test_a_sweep_audits_each_epsilon_with_every_measure():
    from privcore.ldp import audit as ldp_audit
    from privcore.ldp.mechanisms import make

    outcome = run(SweepRequest(mechanism="grr", epsilons=(1.0,), domain=2), record=False)
    direct = ldp_audit.sweep(lambda e: make("grr", e, d=2), [1.0])
    pd.testing.assert_frame_equal(outcome.result, direct)
    assert len(outcome.summary["rows"]) == 1


def test_reconstruction_rebuilds_the_simulated_truth():
    outcome = run(
        ReconstructionRequest(noise="uniform", noise_scale=25.0, values=20_000), record=False
    )
    (result, truth), summary = outcome.result, outcome.summary
    assert truth.sum() == pytest.approx(1.0)
    assert len(truth) == 20
    # the rebuilt shares are closer to the truth than the perturbed values' shares
    assert summary["tv"] < summary["tv_perturbed"]
    assert summary["tv"] == pytest.approx(0.5 * np.abs(result.estimate - truth).sum())
    with pytest.raises(ParameterError):
        ReconstructionRequest(noise="laplace")
    with pytest.raises(ParameterError):
        ReconstructionRequest(values=10)
