"""The checks shared by the attacks' entry points: a missing column is one
``linkage.missing_columns`` error (the table and the columns named, the same words
wherever it is raised), a voter roll's size is checked alike for a roll of people and a
roll frequency set, and of the Article 29 attacks' modules only the statistics import scipy."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from privcore.attacks import build_roll, roll_frequency_set
from privcore.attacks.distance_linkage import distance_linkage
from privcore.attacks.linkage import linkage_attack
from privcore.errors import ParameterError, RoleError
from privcore.matching import match_roll, require_columns

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def tables():
    release = pd.DataFrame({"zip": ["130*", "130*", "148*"], "disease": ["flu", "flu", "ulcer"]})
    roll = pd.DataFrame({"zip": ["13053", "13068", "14853"], "record": [0, 1, 2]})
    return release, roll


def test_require_columns_names_the_table_and_every_missing_column():
    frame = pd.DataFrame({"a": [1]})
    require_columns(frame, ["a"], table="release", text="unused")  # nothing missing
    with pytest.raises(RoleError) as info:
        require_columns(frame, ["b", "a", "c"], table="release", text="The release has no column")
    assert str(info.value) == "The release has no column b, c."
    assert info.value.code == "linkage.missing_columns"
    assert info.value.params == {"table": "release", "columns": ["b", "c"]}


def test_linkage_names_a_missing_sensitive_column_of_the_release(tables):
    release, roll = tables
    with pytest.raises(RoleError) as info:
        linkage_attack(release, roll, ["zip"], ["salary", "disease", "age"])
    assert str(info.value) == "The release has no sensitive column salary, age."
    assert info.value.code == "linkage.missing_columns"
    assert info.value.params == {"table": "release", "columns": ["salary", "age"]}


def test_linkage_names_a_missing_column_of_the_original_table(tables):
    release, roll = tables
    truth = pd.DataFrame({"zip": ["13053", "13068", "14853"]})
    with pytest.raises(RoleError) as info:
        linkage_attack(release, roll, ["zip"], ["disease"], truth=truth)
    assert str(info.value) == "The original table has no column disease."
    assert info.value.params == {"table": "original", "columns": ["disease"]}


def test_matching_names_the_table_that_lacks_a_quasi_identifier(tables):
    release, roll = tables
    with pytest.raises(RoleError) as info:
        match_roll(release, ["zip", "age"], roll)
    assert str(info.value) == "The release has no column age."
    assert info.value.params == {"table": "release", "columns": ["age"]}
    with pytest.raises(RoleError) as info:
        match_roll(release, ["zip", "disease"], roll)
    assert str(info.value) == "The voter roll has no column disease."
    assert info.value.params == {"table": "voter roll", "columns": ["disease"]}


def test_distance_linkage_checks_the_targets_before_linking(tables):
    release, roll = tables
    with pytest.raises(RoleError) as info:
        distance_linkage(release, roll, [0, 1, 2], ["zip", "age"], [], original=release)
    assert info.value.code == "linkage.missing_columns"
    assert info.value.params["columns"] == ["age"]
    with pytest.raises(ParameterError) as info:
        distance_linkage(release, roll, [0, 1], ["zip"], [], original=release)
    assert info.value.code == "linkage.bad_records"


def test_a_roll_too_small_is_refused_alike_for_people_and_frequency_sets():
    frame = pd.DataFrame({"zip": ["13053", "13068", "14853"]})
    with pytest.raises(ParameterError) as people:
        build_roll(frame, ["zip"], size=2)
    # 3 rows standing for 2 + 1 + 3 = 6 records: a roll of 5 people cannot hold them
    with pytest.raises(ParameterError) as counted:
        roll_frequency_set(frame, ["zip"], weights=np.array([2, 1, 3]), size=5)
    assert str(people.value) == (
        "A voter roll of 2 people cannot hold the 3 people of the data set; "
        "choose a size of at least 3."
    )
    assert str(counted.value) == (
        "A voter roll of 5 people cannot hold the 6 people of the data set; "
        "choose a size of at least 6."
    )
    assert people.value.code == counted.value.code == "roll.size_too_small"
    assert people.value.params == {"size": 2, "rows": 3}
    assert counted.value.params == {"size": 5, "rows": 6}
    for size in (2.5, True):
        with pytest.raises(ParameterError) as info:
            roll_frequency_set(frame, ["zip"], weights=np.array([2, 1, 3]), size=size)
        assert info.value.code == "roll.size_type"


def test_only_the_statistics_of_the_article29_attacks_import_scipy():
    package = ROOT / "privcore" / "attacks" / "gdpr_risks"
    importers = set()
    for path in package.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            if any(name.split(".")[0] == "scipy" for name in names):
                importers.add(path.name)
    assert importers == {"statistics.py"}
