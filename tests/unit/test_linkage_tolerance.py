"""Disclosure of a numeric sensitive value within a tolerance (linkage attack, SPEC §6):
what an attacker learns is a range, not only an exact value."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from privcore.attacks import simulate
from privcore.attacks.linkage import linkage_attack
from privcore.data import Dataset, Schema
from privcore.errors import ParameterError
from privcore.runs import AttackRequest, Inputs, run


def salaries() -> pd.DataFrame:
    """Eight people in three released classes (the QI ``zone`` is already coarse):
    A {50,000, 52,000, 54,000}, B {30,000, 45,000, 60,000}, C {7,000, 7,000} and a
    person in D whose class holds a missing salary."""
    return pd.DataFrame(
        {
            "zone": ["A", "A", "A", "B", "B", "B", "C", "C", "D", "D"],
            "salary": [50000, 52000, 54000, 30000, 45000, 60000, 7000, 7000, 20000, None],
            "disease": ["flu"] * 10,
        }
    )


def roll_of(frame: pd.DataFrame) -> pd.DataFrame:
    roll = frame[["zone"]].copy()
    roll["record"] = np.arange(len(frame))
    roll["name"] = [f"person {i}" for i in range(len(frame))]
    return roll


def test_within_ten_percent_hand_computed():
    """Tolerance 0.1, relative to the target's own salary x: |v − x| ≤ 0.1·|x| for every
    candidate value v (the class's three or two salaries).

    A: x = 50,000 → [45,000, 55,000] holds 50/52/54k ✓; x = 52,000 → [46,800, 57,200] ✓;
       x = 54,000 → [48,600, 59,400] ✓.
    B: x = 30,000 → [27,000, 33,000] ✗ (45k, 60k); 45,000 → ✗; 60,000 → [54k, 66k] ✗.
    C: both 7,000: ✓ ✓ (and exactly disclosed).
    D: a candidate salary is missing: ✗ (the attacker cannot bound it); the person with a
       missing salary: ✗.
    → 5 of 10 within ±10 %; exactly disclosed: 2 (class C; "flu" for everyone: 10)."""
    frame = salaries()
    report = linkage_attack(frame, roll_of(frame), ["zone"], ["salary", "disease"], truth=frame)
    s = report.summary
    assert s["tolerance"] == 0.1
    assert s["attribute_within_tolerance"] == {"salary": 5}  # numeric attributes only
    assert s["attribute_disclosed"] == {"salary": 2, "disease": 10}
    within = report.targets["salary within tolerance"].tolist()
    assert within == [True, True, True, False, False, False, True, True, False, False]
    assert "linkage.tolerance" in report.details["explanation_codes"]


def test_the_tolerance_is_a_parameter():
    """±5 %: A's 50,000 → [47,500, 52,500] misses 54,000 ✗; 52,000 → [49,400, 54,600] ✓;
    54,000 → [51,300, 56,700] misses 50,000 ✗. With C: 3. At 0 only exact values: C's 2.
    At 1 (±100 %): A ✓✓✓; B: 30,000 → [0, 60,000] ✓, 45,000 → [0, 90,000] ✓, 60,000 →
    [0, 120,000] ✓; C ✓✓ → 8."""
    frame = salaries()
    roll = roll_of(frame)

    def within(tolerance: float) -> int:
        report = linkage_attack(frame, roll, ["zone"], ["salary"], truth=frame, tolerance=tolerance)
        return report.summary["attribute_within_tolerance"]["salary"]

    assert within(0.05) == 3
    assert within(0.0) == 2
    assert within(1.0) == 8
    with pytest.raises(ParameterError):
        within(-0.1)


def test_the_request_and_the_simulation_carry_the_tolerance():
    frame = salaries()
    roles = {"zone": "quasi_identifier", "salary": "sensitive", "disease": "sensitive"}
    dataset = Dataset(frame, "salaries.csv", "csv", "utf-8", ",", ())
    request = AttackRequest(qi=("zone",), sa=("salary",), tolerance=0.05, roll_size=20)
    assert request.to_dict()["tolerance"] == 0.05
    with pytest.raises(ParameterError):
        AttackRequest(qi=("zone",), sa=("salary",), tolerance=-1.0)
    outcome = run(
        request,
        Inputs(original=dataset, schema=Schema(roles, {}), release=frame, aligned=True),
        record=False,
    )
    after = outcome.summary["linkage"]
    assert after["tolerance"] == 0.05 and after["attribute_within_tolerance"] == {"salary": 3}
    # the original table itself, before anonymization: every salary is its own class
    before = simulate(frame, frame, ["zone"], ["salary"], roll=outcome.result.roll)
    assert before.figures("after")["linkage"]["tolerance"] == 0.1
