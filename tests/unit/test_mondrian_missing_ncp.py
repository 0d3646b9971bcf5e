"""One GCP for a Mondrian release with missing values: Mondrian's own NCP
(``extra_loss["ncp"]``) and the GCP the measurement reads from the released cells
(privcore.measure.loss.cell_ncp, and ncp for hierarchy labels) follow one rule (Xu et
al. 2006 over the values present in the column): a cell that names a missing value
among other values (``[11-12],NA``, ``{a,b,NA}``) costs what it costs for each of its
rows, the missing one too; a categorical NCP is a share of the present values."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from privcore.anonymize.mondrian import mondrian
from privcore.data.hierarchy import Hierarchy
from privcore.data.schema import Schema
from privcore.measure.loss import cell_ncp
from privcore.models import KAnonymity

Q, S = "quasi_identifier", "sensitive"


def test_a_cell_naming_a_missing_value_costs_its_range_for_the_missing_row_too():
    """Ages 20, 29, missing, 40 (span 40 − 20 = 20): "[20-29],NA" contains 20 and 29,
    NCP 9/20 = 0.45 for each of its three rows, the missing one too; "40" costs 0."""
    original = pd.Series([20, 29, math.nan, 40], name="age")
    released = pd.Series(["[20-29],NA", "[20-29],NA", "[20-29],NA", "40"], name="age")
    penalty, outside = cell_ncp(original, released)
    assert outside == 0
    assert penalty.tolist() == pytest.approx([0.45, 0.45, 0.45, 0.0], abs=1e-12)


def test_a_set_naming_a_missing_value_costs_its_present_values_for_every_row():
    """a, b, missing, c (3 present values): "{a,b,NA}" contains a and b, NCP 2/3 for
    each of its three rows; a missing cell of a missing original costs 0."""
    original = pd.Series(["a", "b", None, "c", None], name="city")
    released = pd.Series(["{a,b,NA}", "{a,b,NA}", "{a,b,NA}", "c", None], name="city")
    penalty, outside = cell_ncp(original, released)
    assert outside == 0
    assert penalty.tolist() == pytest.approx([2 / 3, 2 / 3, 2 / 3, 0.0, 0.0], abs=1e-12)


def _release(values, hierarchy=None, k=3):
    frame = pd.DataFrame({"q": values, "disease": ["flu"] * len(values)})
    schema = Schema({"q": Q, "disease": S}, {"q": hierarchy} if hierarchy else {})
    return mondrian(frame, schema, [KAnonymity(k)])


def test_a_numeric_range_with_a_missing_value_has_one_gcp():
    """Ages 1, 2, 10, 11, 12, missing at k = 3: the missing value (the highest code)
    stays with 11 and 12, so the partitions are [1-10] and [11-12],NA. Span 12 − 1 =
    11: 9/11 for three rows, 1/11 for three (the missing row among them), GCP =
    (27/11 + 3/11)/6 = 5/11, Mondrian's and the measurement's."""
    release = _release([1, 2, 10, 11, 12, math.nan])
    assert release.frame["q"].astype(str).tolist() == ["[1-10]"] * 3 + ["[11-12],NA"] * 3
    assert release.extra_loss["ncp"] == pytest.approx(5 / 11, abs=1e-12)
    assert release.measurement.loss["gcp"] == pytest.approx(5 / 11, abs=1e-12)


def test_a_hierarchy_label_is_a_share_of_the_present_values():
    """Cities a, b, c, d (a, b under x; c, d under y) and two missing ones at k = 2:
    classes {a,b} at x, {c,d} at y, the missing pair a missing cell. x and y each
    cover 2 of the 4 present values: NCP 1/2 for four rows, 0 for the missing ones,
    GCP = 2/6 = 1/3, Mondrian's and the measurement's (the missing value is no value
    of the column: not 2/5)."""
    hierarchy = Hierarchy(
        [["a", "x", "*"], ["b", "x", "*"], ["c", "y", "*"], ["d", "y", "*"]], name="q"
    )
    release = _release(["a", "b", "c", "d", None, None], hierarchy, k=2)
    cells = release.frame["q"].astype(object).where(release.frame["q"].notna(), None)
    assert cells.tolist() == ["x", "x", "y", "y", None, None]
    assert release.extra_loss["ncp"] == pytest.approx(1 / 3, abs=1e-12)
    assert release.measurement.loss["gcp"] == pytest.approx(1 / 3, abs=1e-12)


def test_a_set_of_one_present_value_and_a_missing_one_costs_nothing():
    """Cities a, a, b, missing at k = 2 (no hierarchy: sets): classes {a} and {b,NA}.
    {b,NA} holds one present value: NCP 0, as "a": GCP 0, Mondrian's and the
    measurement's (not 2/3 per row, the missing value counted as a value)."""
    release = _release(["a", "a", "b", None], k=2)
    assert release.frame["q"].astype(str).tolist() == ["a", "a", "{b,NA}", "{b,NA}"]
    assert release.extra_loss["ncp"] == 0.0
    assert release.measurement.loss["gcp"] == 0.0
    assert np.bincount(release.class_ids).tolist() == [2, 2]
