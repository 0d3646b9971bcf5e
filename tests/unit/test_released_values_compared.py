"""A released cell is compared with its original by value, not by storage type: a
numeric column that became text for a '*' ("30.0") still equals the original's 30
(privcore.data.cells.comparable_keys) — in the real records of a measurement and in
the changed share of a perturbed release."""

from __future__ import annotations

import pandas as pd
import pytest

from privcore.anonymize import anonymize
from privcore.data.cells import comparable_keys
from privcore.data.schema import Schema
from privcore.measure.report import measure_release, real_records
from privcore.measure.utility import perturbation_utility
from privcore.models import KAnonymity

Q, S = "quasi_identifier", "sensitive"


def test_comparable_keys_by_hand():
    text = pd.Series(
        ["42.0", "*", "35.666666666666664", "02139", "+5", "-0", "-3.50", "1e+20", None, "42"],
        dtype="str",
    )
    assert comparable_keys(text).tolist() == [
        "42",
        "*",
        "35.666666666666664",
        "02139",  # a leading zero: a code, equal only to itself
        "+5",
        "0",
        "-3.5",
        "100000000000000000000",
        pd.NA,
        "42",
    ]
    numbers = pd.Series([42.0, 35.666666666666664, None])
    assert comparable_keys(numbers).tolist() == ["42", "35.666666666666664", pd.NA]
    # an integer written as text keeps every digit (no float on the way)
    big = pd.Series(["12345678901234567890", "12345678901234567891"], dtype="str")
    assert comparable_keys(big).tolist() == big.tolist()


def test_real_records_of_an_mdav_release_with_suppressed_rows():
    """k = 3, limit 2/8. F (30, 30, 30) → 30.0; M (39, 40, 41) → 40.0; X and Y cannot
    form a group: '*' in every QI, so age is released as text ("30.0", "40.0", "*").
    Rows 0–2 (30, F, a/b/c) and row 4 (40, M, b) equal their own record; rows 3 and 5
    (40, M, a) and (40, M, c) equal no record, nor do the '*' rows: own = any = 4."""
    frame = pd.DataFrame(
        {
            "age": [30, 30, 30, 39, 40, 41, 50, 51],
            "sex": ["F"] * 3 + ["M"] * 3 + ["X", "Y"],
            "disease": list("abcabcab"),
        }
    )
    schema = Schema({"age": Q, "sex": Q, "disease": S})
    release = anonymize(frame, schema, [KAnonymity(3)], algorithm="mdav", max_suppression=0.25)
    assert release.frame["age"].tolist() == ["30.0"] * 3 + ["40.0"] * 3 + ["*"] * 2
    assert release.to_dict()["real_records"] == {"own": 4, "any": 4}
    columns = ["age", "sex", "disease"]
    assert real_records(frame, release.frame, columns) == {"own": 4, "any": 4}
    assert real_records(frame, release.frame, columns, aligned=False) == {"any": 4}
    measured = measure_release(frame, release.frame, qi=["age", "sex"], sa=["disease"])
    assert measured.to_dict()["real_records"] == {"own": 4, "any": 4}


@pytest.mark.parametrize("stored", ["510630.0", "510630"])
def test_a_code_stored_as_text_is_unchanged(stored):
    """A ZIP stored as the number 510630.0 and released as text is the same value: the
    changed share of the column is 0 of 2, then 1 of 2 when one cell is '*'."""
    original = pd.DataFrame({"zip": [510630.0, 510630.0], "age": [30.0, 40.0]})
    released = pd.DataFrame({"zip": [stored, stored], "age": [30.0, 40.0]}).astype({"zip": "str"})
    utility = perturbation_utility(original, released, ["age"], categorical_columns=["zip"])
    assert utility["categorical"]["zip"]["changed_share"] == 0.0
    released.loc[1, "zip"] = "*"
    utility = perturbation_utility(original, released, ["age"], categorical_columns=["zip"])
    assert utility["categorical"]["zip"]["changed_share"] == 0.5
