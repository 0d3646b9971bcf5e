"""A suggested one-step hierarchy (value → ``*``) covers a numeric column's own values.

Hierarchy leaves are value keys (:func:`privcore.data.hierarchy.value_keys`: ``18.0`` is
``"18"``), so a suggestion must be built from the values' keys, not from their text
(``str(18.0)`` is ``"18.0"``, which no value of the column matches).
"""

from __future__ import annotations

import pandas as pd
import pytest

from privcore.anonymize import ALGORITHMS, anonymize
from privcore.data import load
from privcore.data.hierarchy_suggestions import suggest_hierarchy
from privcore.data.schema import Schema
from privcore.models import KAnonymity


@pytest.mark.parametrize(
    ("values", "name", "leaves"),
    [
        ([18.0] * 8, "age", ["18"]),  # one whole-number float value
        ([18.0] * 4 + [19.0] * 4, "age", ["18", "19"]),  # two: few values
        ([1.0, 2.0, 1.0, 2.0, 1.0, 2.0, 2.0, None], "sex", ["1", "2"]),  # sex codes, missing
        ([18.5] * 4 + [19.0] * 4, "age", ["18.5", "19"]),
    ],
)
def test_one_step_suggestion_covers_the_column(values, name, leaves):
    column = load(pd.DataFrame({name: values})).frame[name]
    suggestion = suggest_hierarchy(column, name)
    assert suggestion.kind == "suppress"
    assert sorted(suggestion.hierarchy.leaves) == leaves
    present = column.dropna()
    assert sorted(suggestion.hierarchy.generalize_values(present, 0).unique()) == leaves
    assert (suggestion.hierarchy.generalize_values(present, 1) == "*").all()


@pytest.mark.parametrize("algorithm", list(ALGORITHMS))
def test_every_algorithm_runs_with_it(algorithm):
    table = load(
        pd.DataFrame(
            {
                "age": [18.0] * 4 + [19.0] * 4,
                "weight": [60.5, 61.0, 70.2, 71.9, 80.0, 82.4, 90.1, 95.0],
                "salary": [1000, 2000, 3000, 1000, 2000, 3000, 1000, 2000],
            }
        )
    ).frame
    qi = ["age", "weight"]
    hierarchies = {c: suggest_hierarchy(table[c], c).hierarchy for c in qi}
    roles = {"age": "quasi_identifier", "weight": "quasi_identifier", "salary": "sensitive"}
    release = anonymize(table, Schema(roles, hierarchies), [KAnonymity(2)], algorithm=algorithm)
    assert len(release.frame) == 8
