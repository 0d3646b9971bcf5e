"""Codes written with digits (ZIP and postal codes, identifiers) are categories, not
measurements: one decision (privcore.data.roles.code_column) that MDAV, noise, rank
swapping and top/bottom coding read — MDAV groups within each code, the others keep
codes as they are, and a table whose numbers are all codes is refused."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from privcore.anonymize import anonymize
from privcore.data.hierarchy import Hierarchy, interval_hierarchy, masking_hierarchy
from privcore.data.roles import code_column, code_name, is_measurement, masks_digits
from privcore.data.schema import Schema
from privcore.errors import ParameterError
from privcore.models import KAnonymity

Q, S = "quasi_identifier", "sensitive"

# ZIP codes of two cities: Guangzhou 5106xx, Beijing 1000xx; three ZIPs, 12 records.
ZIPS = [510630] * 3 + [100080] * 3 + [510640] * 6
AGES = [30, 31, 32, 40, 42, 44, 50, 51, 53, 54, 56, 58]


def zip_table(name: str = "zip") -> tuple[pd.DataFrame, Schema]:
    frame = pd.DataFrame({name: ZIPS, "age": AGES, "disease": list("abcabcabcabc")})
    return frame, Schema({name: Q, "age": Q, "disease": S})


# --------------------------------------------------------------------------- the rule


@pytest.mark.parametrize(
    ("name", "word"),
    [
        ("zip", "zip"),
        ("ZIP5", "zip5"),
        ("zipCode", "zip"),
        ("Postcode", "postcode"),
        ("postal_code", "postal"),
        ("邮编", "邮编"),
        ("邮政编码", "邮政编码"),
        ("patient_id", "id"),
        ("客户编号", "编号"),
        ("icd code", "code"),
    ],
)
def test_a_name_that_says_code(name, word):
    assert code_name(name) == word
    column = code_column(pd.Series([510630, 100080]), name)
    assert column is not None and (column.rule, column.detail) == ("name", word)


@pytest.mark.parametrize(
    "name", ["age", "income", "salary", "count", "valid", "width", "education-num", "hotel"]
)
def test_measurements_stay_numbers(name):
    values = pd.Series([50000, 64000, 99999])  # five digits throughout, like a ZIP
    assert code_name(name) is None and code_column(values, name) is None
    assert is_measurement(values, name)


def test_a_digit_masking_hierarchy_makes_codes_and_intervals_do_not():
    values = pd.Series([510630, 100080, 510640], name="area")
    built = masking_hierarchy(values)
    by_hand = Hierarchy(  # a custom hierarchy whose first level masks the last digit
        [["510630", "51063*", "*"], ["100080", "10008*", "*"], ["510640", "51064*", "*"]]
    )
    mapped = Hierarchy(
        [["510630", "South", "*"], ["100080", "North", "*"], ["510640", "South", "*"]]
    )
    assert masks_digits(built) and masks_digits(by_hand) and not masks_digits(mapped)
    assert not masks_digits(interval_hierarchy(values, width=100000))
    assert code_column(values, "area", built).rule == "hierarchy"
    assert code_column(values, "area", by_hand).detail == "custom"
    assert code_column(values, "area", mapped) is None and is_measurement(values, "area")
    # text and booleans are no numbers: categories already, not "codes" of numbers
    assert code_column(pd.Series(["02139", "10001"]), "zip") is None
    assert not is_measurement(pd.Series([True, False]), "flag")


# --------------------------------------------------------------------------- MDAV


@pytest.mark.parametrize("name", ["zip", "邮编", "postcode"])
def test_mdav_groups_within_each_zip_and_releases_only_original_zips(name):
    """k = 3. ZIP is a code: MDAV runs within each ZIP. 510630: ages 30, 31, 32 → one
    group, 31. 100080: 40, 42, 44 → 42. 510640 (six records, 2k ≤ 6 < 3k): the record
    farthest from the mean 53.67 is 58; it and its two nearest (56, 54) average 56, the
    rest (50, 51, 53) 154/3. No group mixes two ZIPs, and every released ZIP is one of
    the original's (averaged as a number, 510630 and 100080 would give 305355)."""
    frame, schema = zip_table(name)
    release = anonymize(frame, schema, [KAnonymity(3)], algorithm="mdav")
    released = release.frame
    assert released[name].tolist() == ZIPS
    expected = [31.0] * 3 + [42.0] * 3 + [154 / 3] * 3 + [56.0] * 3
    np.testing.assert_allclose(released["age"].to_numpy(dtype=float), expected, rtol=1e-12)
    for _, group in released.groupby("age"):  # each averaged group: one ZIP
        assert frame.loc[group.index, name].nunique() == 1
    assert release.params["aggregated"] == ["age"] and release.params["strata"] == 3
    codes = [note for note in release.notes if note.code == "perturbation.codes_kept"]
    assert len(codes) == 1 and codes[0].params["columns"] == name
    assert release.n_suppressed == 0 and release.to_dict()["k"] == 3


def test_mdav_on_codes_alone_is_refused():
    frame, _ = zip_table()
    schema = Schema({"zip": Q, "age": "insensitive", "disease": S})
    with pytest.raises(ParameterError) as info:
        anonymize(frame, schema, [KAnonymity(3)], algorithm="mdav")
    assert info.value.code == "anonymize.codes_not_measurements"
    assert info.value.params["columns"] == ["zip"]


# --------------------------------------------------------------------------- the others


@pytest.mark.parametrize(
    ("algorithm", "options"),
    [("noise", {"noise_level": 0.5}), ("rank_swap", {"swap_percent": 50.0}), ("top_bottom", {})],
)
def test_noise_swapping_and_coding_keep_codes_and_refuse_codes_alone(algorithm, options):
    frame, schema = zip_table()
    release = anonymize(frame, schema, [KAnonymity(2)], algorithm=algorithm, seed=3, **options)
    assert release.frame["zip"].tolist() == ZIPS  # the codes as they were
    assert release.params["perturbed"] == ["age"]
    assert "perturbation.codes_kept" in [note.code for note in release.notes]
    assert release.frame["age"].astype(str).tolist() != [str(a) for a in AGES]
    only_codes = Schema({"zip": Q, "age": "insensitive", "disease": S})
    with pytest.raises(ParameterError) as info:
        anonymize(frame, only_codes, [KAnonymity(2)], algorithm=algorithm, **options)
    assert info.value.code == "anonymize.codes_not_measurements"
    assert info.value.params["columns"] == ["zip"]


def test_a_masking_hierarchy_makes_an_unnamed_column_codes():
    """The ZIPs in a column named "area": a number to MDAV (averaged with age, one
    stratum) until its hierarchy masks digits; then each area is a stratum of its own
    and is released as it was."""
    frame, _ = zip_table("area")
    plain = Schema({"area": Q, "age": Q, "disease": S})
    averaged = anonymize(frame, plain, [KAnonymity(3)], algorithm="mdav")
    assert averaged.params["aggregated"] == ["area", "age"] and averaged.params["strata"] == 1
    coded = plain.with_hierarchy("area", masking_hierarchy(frame["area"]))
    release = anonymize(frame, coded, [KAnonymity(3)], algorithm="mdav")
    assert release.params["aggregated"] == ["age"] and release.params["strata"] == 3
    assert release.frame["area"].tolist() == ZIPS


def test_condensation_permutes_zips_within_groups_and_synthesizes_only_ages():
    """Condensation's groups draw ages from a mean and covariance; a ZIP is a category:
    every released ZIP is one of its group's original ZIPs, never a synthesized number."""
    frame, schema = zip_table()
    release = anonymize(frame, schema, [KAnonymity(3)], algorithm="condensation", seed=4)
    out = release.frame
    assert sorted(out["zip"].tolist()) == sorted(ZIPS)  # the same ZIPs, permuted
    groups = pd.Series(release.class_ids, index=frame.index)
    for _, members in frame.groupby(groups):
        assert sorted(out.loc[members.index, "zip"]) == sorted(members["zip"])
    assert not set(out["age"]) <= set(AGES)  # ages are synthesized


def test_condensation_on_codes_alone_is_refused_naming_them():
    frame = pd.DataFrame({"zip": ZIPS, "disease": list("abcabcabcabc")})
    with pytest.raises(ParameterError) as error:
        anonymize(
            frame, Schema({"zip": Q, "disease": S}), [KAnonymity(3)], algorithm="condensation"
        )
    assert error.value.code == "anonymize.condensation_no_numeric"
    assert "zip" in str(error.value) and "codes" in str(error.value)
