"""Mondrian's ``span_domains``: spans and NCP as shares of a larger table's domain (the
fragments of a table too large for memory are cut as the whole table would be)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from privcore.anonymize import anonymize
from privcore.data import Role, Schema
from privcore.models import KAnonymity


def test_ncp_is_a_share_of_the_given_domain():
    """Ages 10 and 20, twice each, k = 4: one class [10-20]. Its NCP is the range over
    the domain: 10/10 = 1 of the table's own range, 10/100 = 0.1 of a domain of 100."""
    frame = pd.DataFrame({"age": [10, 10, 20, 20], "d": ["a", "b", "a", "b"]})
    schema = Schema({"age": Role.QUASI_IDENTIFIER, "d": Role.SENSITIVE}, {})
    own = anonymize(frame, schema, [KAnonymity(4)], algorithm="mondrian")
    wide = anonymize(
        frame, schema, [KAnonymity(4)], algorithm="mondrian", span_domains={"age": 100.0}
    )
    assert own.loss["ncp"] == 1.0
    assert wide.loss["ncp"] == 0.1


def test_the_widest_qi_in_the_whole_tables_terms_is_cut():
    """x spans 0–1 and y spans 0–10 here; k = 2 allows one cut. On the table's own
    domains both spans are 1 and the first QI (x) is cut; with a whole-table domain of
    100 for x its span is 0.01, so y is cut instead."""
    frame = pd.DataFrame({"x": [0, 0, 1, 1], "y": [0, 10, 0, 10], "d": ["a", "b", "c", "d"]})
    roles = {"x": Role.QUASI_IDENTIFIER, "y": Role.QUASI_IDENTIFIER, "d": Role.SENSITIVE}
    schema = Schema(roles, {})
    own = anonymize(frame, schema, [KAnonymity(2)], algorithm="mondrian")
    wide = anonymize(
        frame, schema, [KAnonymity(2)], algorithm="mondrian", span_domains={"x": 100.0}
    )
    assert sorted(own.frame["x"]) == ["0", "0", "1", "1"]
    assert set(own.frame["y"]) == {"[0-10]"}
    assert set(wide.frame["x"]) == {"[0-1]"}
    assert sorted(wide.frame["y"]) == ["0", "0", "10", "10"]


def test_a_fragment_is_cut_as_mondrian_cuts_first():
    """Hand-checked cuts of a fragment from one QI's distinct values and counts.
    Numbers 1, 2, 3, 4 with 1, 1, 1, 5 records (size 8): the lower median is the first
    value with ⌈8/2⌉ = 4 records at or below it, 4 (3 records below it, 8 with it); the
    cut below it (1–3 | 4: 3 against 5) is the more balanced one of the two Mondrian
    tries; span (4 − 1) / range 10 = 0.3. A hierarchy a, b | c, d under x and y (4
    leaves, all present): values a, b, c with 2, 1, 1 records: their common ancestor is
    the root, its children x (a, b: 3 records) and y (c: 1): the cut is x | y, span 4/4.
    Missing values mixed with others go to a side of their own, span 1."""
    from privcore.data import Hierarchy
    from privcore.runs.mondrian_fragments import _Axis, _span_and_cut

    axis = _Axis("n", "numeric", 10.0)
    span, mask = _span_and_cut(axis, pd.Series([1.0, 2.0, 3.0, 4.0]), np.array([1, 1, 1, 5]))
    assert span == 0.3 and mask.tolist() == [True, True, True, False]

    tree = Hierarchy([["a", "x", "*"], ["b", "x", "*"], ["c", "y", "*"], ["d", "y", "*"]])
    axis = _Axis("h", "hierarchy", 4.0, tree, tree.encode(pd.Series(["a", "b", "c", "d"])))
    span, mask = _span_and_cut(axis, pd.Series(["a", "b", "c"]), np.array([2, 1, 1]))
    assert span == 1.0 and mask.tolist() == [True, True, False]

    span, mask = _span_and_cut(axis, pd.Series(["a", None]), np.array([2, 1]))
    assert span == 1.0 and mask.tolist() == [True, False]
