"""The generalization spec (JSON) reproduces its release (issue: Anonymize — export)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from privcore.anonymize import ALGORITHMS, FULL_DOMAIN, anonymize
from privcore.anonymize.spec import read_spec, reproduce
from privcore.data.samples import load_sample
from privcore.errors import ParameterError
from privcore.models import DistinctLDiversity, KAnonymity, TCloseness


@pytest.fixture(scope="module")
def hospital():
    dataset, schema = load_sample("hospital")
    return dataset.frame, schema


@pytest.mark.parametrize("algorithm", list(ALGORITHMS))
def test_every_algorithm_is_reproduced_from_its_spec(hospital, algorithm):
    frame, schema = hospital
    # MDAV (ZIP is a code: nine strata of one record) and local suppression blank every
    # row of these nine: suppressed rows, which only a limit of 100 % allows
    blanks_all = algorithm in ("mdav", "local_suppression")
    made = anonymize(
        frame,
        schema,
        [KAnonymity(3), DistinctLDiversity(2)],
        algorithm=algorithm,
        max_suppression=1.0 if blanks_all else 0.34,
        seed=5,
    )
    if blanks_all:
        assert made.n_suppressed == 9
    spec = read_spec(made.spec_json())
    assert spec["format"] == "privcore-release-spec/1"
    assert spec["algorithm"] == algorithm and spec["seed"] == 5
    assert spec["schema"]["roles"] == {
        **{c: "quasi_identifier" for c in made.qi},
        **{c: "sensitive" for c in made.sa},
    }
    assert set(spec["schema"]["hierarchies"]) >= set(made.qi)
    again = reproduce(frame, spec)
    pd.testing.assert_frame_equal(again.frame, made.frame)
    np.testing.assert_array_equal(again.suppressed, made.suppressed)
    np.testing.assert_array_equal(again.class_ids, made.class_ids)
    assert again.node == made.node
    if algorithm in FULL_DOMAIN:  # the node is applied, no search
        assert again.params["reproduced"] is True and again.lattice is None


def test_options_are_replayed(hospital):
    frame, schema = hospital
    made = anonymize(frame, schema, [KAnonymity(3)], algorithm="mondrian", summary="mean")
    spec = made.spec()
    assert spec["options"] == {"summary": "mean"}
    assert reproduce(frame, spec).frame.equals(made.frame)
    made = anonymize(
        frame, schema, [KAnonymity(2)], algorithm="optimal", loss_metric="discernibility"
    )
    assert made.spec()["options"] == {"loss_metric": "discernibility"}


def test_spec_holds_fingerprints_not_the_data(hospital):
    frame, schema = hospital
    made = anonymize(frame, schema, [KAnonymity(3)], algorithm="optimal")
    text = made.spec_json()
    spec = json.loads(text)
    assert len(spec["input"]["sha256"]) == 64 and spec["input"]["rows"] == len(frame)
    assert len(spec["release"]["sha256"]) == 64
    # no cell of the table: values appear only as leaves of the hierarchies the user
    # built (Salary has none, so none of its values is written)
    for value in frame["Salary"].unique():
        assert str(value) not in text
    assert "records" not in spec and "rows" not in spec


def test_a_different_table_or_a_tampered_spec_is_refused(hospital):
    frame, schema = hospital
    made = anonymize(frame, schema, [KAnonymity(3), TCloseness(0.5)], algorithm="samarati")
    spec = made.spec()
    other = frame.copy()
    other.loc[0, "Age"] = 99
    with pytest.raises(ParameterError) as info:
        reproduce(other, spec)
    assert info.value.code == "anonymize.spec_other_table"
    tampered = {**spec, "release": {**spec["release"], "sha256": "0" * 64}}
    with pytest.raises(ParameterError) as info:
        reproduce(frame, tampered)
    assert info.value.code == "anonymize.spec_mismatch"
    outside = {**spec, "node": {c: 99 for c in spec["node"]}}
    with pytest.raises(ParameterError) as info:
        reproduce(frame, outside)
    assert info.value.code == "anonymize.bad_spec"


@pytest.mark.parametrize(
    "text",
    ["not json", "[]", '{"format": "something else"}', '{"format": "privcore-release-spec/1"}'],
)
def test_what_is_not_a_spec_is_a_clear_error(text):
    with pytest.raises(ParameterError) as info:
        read_spec(text)
    assert info.value.code == "anonymize.bad_spec"
    assert "spec" in info.value.message


@pytest.mark.parametrize(
    "change",
    [
        {"seed": "NaN"},
        {"seed": -1},
        {"seed": 1.5},
        {"max_suppression": None},
        {"max_suppression": 2},
    ],
)
def test_a_spec_with_a_bad_number_is_a_clear_error(change):
    from privcore.anonymize.base import SPEC_FORMAT

    dataset, schema = load_sample("hospital")
    spec = {
        "format": SPEC_FORMAT,
        "algorithm": "datafly",
        "constraints": [{"model": "k", "k": 2}],
        "schema": schema.to_dict(),
        "release": {"sha256": "x"},
        **change,
    }
    with pytest.raises(ParameterError) as info:
        reproduce(dataset.frame, spec, check_input=False)
    assert info.value.code == "anonymize.bad_spec"


def test_a_deeply_nested_spec_is_a_clear_error():
    with pytest.raises(ParameterError) as info:
        read_spec("[" * 100_000 + "]" * 100_000)
    assert info.value.code == "anonymize.bad_spec"


def test_a_spec_records_how_its_file_was_written(hospital):
    """``written`` (shuffled, seed, formula guard) is kept when given, checked, and a
    reproduction reads the spec with it."""
    frame, schema = hospital
    made = anonymize(frame, schema, [KAnonymity(3)], algorithm="optimal")
    assert "written" not in made.spec()
    written = {"shuffled": True, "seed": 4, "formula_guard": False}
    spec = json.loads(made.spec_json(written))
    assert spec["written"] == written
    assert reproduce(frame, read_spec(json.dumps(spec))).fingerprint == made.fingerprint
    for bad in (
        {**written, "seed": -1},
        {**written, "seed": True},
        {**written, "shuffled": 1},
        {"shuffled": True, "seed": 4},
        {**written, "order": "kept"},
    ):
        with pytest.raises(ParameterError) as caught:
            made.spec(bad)
        assert caught.value.code == "anonymize.bad_written"
