"""Schema: roles, views, validation against a table, JSON round-trip; bundled samples."""

from __future__ import annotations

import pandas as pd
import pytest

from privcore.data import Hierarchy, Role, Schema, load_sample, masking_hierarchy
from privcore.errors import DataFormatError, HierarchyError, RoleError

FRAME = pd.DataFrame(
    {"zip": ["47677", "47602"], "age": [29, 22], "disease": ["flu", "cold"], "name": ["a", "b"]}
)


def test_views_and_changes_keep_column_order():
    schema = Schema(
        {
            "zip": "quasi_identifier",
            "age": Role.QUASI_IDENTIFIER,
            "disease": "sensitive",
            "name": "identifier",
        }
    )
    assert schema.quasi_identifiers == ["zip", "age"]
    assert schema.sensitive == ["disease"]
    assert schema.identifiers == ["name"]
    changed = schema.with_role("age", "insensitive")
    assert changed.insensitive == ["age"] and schema.insensitive == []  # immutable


def test_unknown_role_is_refused():
    with pytest.raises(RoleError) as info:
        Schema({"zip": "quasi"})
    assert info.value.code == "roles.unknown"


def test_validate_against_a_table():
    roles = {
        "zip": "quasi_identifier",
        "age": "quasi_identifier",
        "disease": "sensitive",
        "name": "identifier",
    }
    Schema(roles).validate(FRAME)
    with pytest.raises(RoleError, match="no role yet: name"):
        Schema({k: v for k, v in roles.items() if k != "name"}).validate(FRAME)
    with pytest.raises(RoleError, match="does not have: height"):
        Schema({**roles, "height": "insensitive"}).validate(FRAME)
    partial = Hierarchy([["47677", "4767*", "*"]], name="zip")
    with pytest.raises(HierarchyError) as info:
        Schema(roles, {"zip": partial}).validate(FRAME)
    assert info.value.code == "hierarchy.uncovered" and info.value.params["values"] == ["47602"]


def test_json_round_trip_with_hierarchies():
    schema = Schema(
        {
            "zip": "quasi_identifier",
            "age": "quasi_identifier",
            "disease": "sensitive",
            "name": "identifier",
        },
        {"zip": masking_hierarchy(FRAME["zip"])},
    )
    again = Schema.from_json(schema.to_json())
    assert again == schema
    assert again.hierarchies["zip"].generalize_values(["47602"], 1).tolist() == ["4760*"]
    assert '"version": 1' in schema.to_json()


@pytest.mark.parametrize("text", ["{not json", "[]", '{"hierarchies": {}}', '{"roles": [1, 2]}'])
def test_bad_schema_files(text):
    with pytest.raises(RoleError) as info:
        Schema.from_json(text)
    assert info.value.code == "roles.bad_schema_file"


def test_adult_sample_has_arx_setup():
    dataset, schema = load_sample("adult")
    assert dataset.n_rows == 30162
    assert schema.quasi_identifiers == [
        "sex",
        "age",
        "race",
        "marital-status",
        "education",
        "native-country",
        "workclass",
        "salary-class",
    ]
    assert schema.sensitive == ["occupation"]
    assert set(schema.hierarchies) == set(dataset.frame.columns)
    schema.validate(dataset.frame)


def test_hospital_samples_are_the_worked_example():
    dataset, schema = load_sample("hospital")
    assert dataset.frame["ZIP"].tolist()[:3] == [47677, 47602, 47678]
    assert dataset.frame["Salary"].tolist() == [
        3000,
        4000,
        5000,
        6000,
        11000,
        8000,
        7000,
        9000,
        10000,
    ]
    schema.validate(dataset.frame)
    assert schema.hierarchies["ZIP"].height == 5
    assert schema.hierarchies["Disease"].generalize_values(["flu"], 1).tolist() == [
        "respiratory infections"
    ]
    release, _ = load_sample("hospital_release")
    assert release.frame["ZIP"].tolist()[:3] == ["4767*"] * 3
    assert release.frame["Age"].tolist()[3:6] == [">=40"] * 3


def test_unknown_sample():
    with pytest.raises(DataFormatError, match="no bundled data set"):
        load_sample("nope")
