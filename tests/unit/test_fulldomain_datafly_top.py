"""Datafly's greedy path can end at the top while a less generalized node meets the
constraints within the suppression budget; its error must not say that no
generalization does (the case hypothesis found in
tests/property/test_anonymize_properties.py)."""

from __future__ import annotations

import pandas as pd
import pytest

from privcore.anonymize import anonymize
from privcore.data.hierarchy import Hierarchy
from privcore.data.schema import Role, Schema
from privcore.errors import InfeasibleError
from privcore.models import KAnonymity, RecursiveCLDiversity

# 11 people. Recursive (3,3)-diversity: r1 < 3 · (r3 + …).
#   q0 kept, q1 at '*' (node (0, 1)): class q0=0 holds flu 3, asthma 2, cancer 5:
#   5 < 3 · 2 = 6 passes; class q0=1 (1 row, cancer) fails and is suppressed (budget
#   10 % of 11 = 1 row): the node meets the constraints.
#   Datafly: q0 and q1 both have 2 values, the tie goes to q0 → (1, 0): class q1=0
#   (10 rows: flu 3, asthma 1, cancer 6: 6 < 3 · 1 fails) → (1, 1): one class of 11
#   (cancer 6, flu 3, asthma 2: 6 < 3 · 2 fails) → the top fails.
FRAME = pd.DataFrame(
    {
        "q0": [0] * 10 + [1],
        "q1": [0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0],
        "disease": ["flu"] * 3 + ["asthma"] * 2 + ["cancer"] * 6,
    }
)


def _schema() -> Schema:
    binary = {c: Hierarchy([["0", "*"], ["1", "*"]], name=c) for c in ("q0", "q1")}
    roles = {"q0": Role.QUASI_IDENTIFIER, "q1": Role.QUASI_IDENTIFIER, "disease": Role.SENSITIVE}
    return Schema(roles, binary)


def test_datafly_says_only_what_its_path_shows():
    models = [KAnonymity(k=1), RecursiveCLDiversity(c=3.0, l=3)]
    with pytest.raises(InfeasibleError) as err:
        anonymize(FRAME, _schema(), models, algorithm="datafly", max_suppression=0.1)
    assert err.value.code == "anonymize.datafly_top"
    assert "Samarati" in err.value.message and "No generalization" not in err.value.message
    found = anonymize(FRAME, _schema(), models, algorithm="optimal", max_suppression=0.1)
    assert tuple(found.node) == (0, 1) and found.n_suppressed == 1
