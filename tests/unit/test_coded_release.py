"""Releases measured as categoricals, then turned into text (base.finish ``coded``).

The full-domain algorithms and Mondrian give ``finish`` their released QIs as pandas
categoricals of the released text; ``finish`` measures them in that form and only then
turns them into the ``str`` columns of ``Release.frame``. The release, its measurement
and its class table must be exactly those of the text.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from privcore.anonymize import anonymize
from privcore.anonymize.base import categorical_text, prepare
from privcore.anonymize.lattice import Lattice
from privcore.anonymize.mondrian import _partition_categorical
from privcore.data.hierarchy import Hierarchy
from privcore.data.schema import Schema
from privcore.measure.report import measure_release
from privcore.models import KAnonymity

Q, S = "quasi_identifier", "sensitive"


def _case():
    """Six rows; ``a`` missing in rows 4 and 5. At node (1, 0) — a → A, b as is —
    the classes (A,0), (A,1) hold two rows each and (NA,0), (NA,1) one: rows 4 and 5
    are suppressed ('*' in a and b). At node (0, 1) every class holds two rows and the
    missing cells stay missing."""
    df = pd.DataFrame({"a": [0, 0, 1, 1, None, None], "b": [0, 1, 0, 1, 0, 1], "s": list("xyxyxy")})
    schema = Schema(
        {"a": Q, "b": Q, "s": S},
        {
            "a": Hierarchy([["0", "A", "*"], ["1", "A", "*"]], name="a"),
            "b": Hierarchy([["0", "B", "*"], ["1", "B", "*"]], name="b"),
        },
    )
    return df, schema


def _lattice(max_suppression: float = 2 / 6) -> Lattice:
    df, schema = _case()
    problem = prepare(
        df,
        schema,
        [KAnonymity(2)],
        max_suppression=max_suppression,
        seed=0,
        need_hierarchies=True,
    )
    return Lattice(problem)


def test_categorical_text_by_hand():
    codes = np.array([1, 0, -1, 1], dtype=np.int8)
    series = pd.Series(
        pd.Categorical.from_codes(codes, categories=["b*", "a"]), index=[10, 11, 12, 13], name="q"
    )
    text = categorical_text(series)
    assert str(text.dtype) == "str"
    assert text.name == "q"
    assert text.index.tolist() == [10, 11, 12, 13]
    assert text.tolist()[:2] == ["a", "b*"] and text.tolist()[3] == "a"
    assert text.isna().tolist() == [False, False, True, False]
    assert text.equals(pd.Series(["a", "b*", None, "a"], index=[10, 11, 12, 13], dtype="str"))


def test_coded_release_by_hand_suppressed_rows():
    lattice = _lattice()
    frame, suppressed = lattice.coded_release((1, 0))
    assert suppressed.tolist() == [False, False, False, False, True, True]
    a, b = frame["a"].array, frame["b"].array
    assert list(a.categories) == ["A", "*"] and a.codes.tolist() == [0, 0, 0, 0, 1, 1]
    assert list(b.categories) == ["0", "1", "*"] and b.codes.tolist() == [0, 1, 0, 1, 2, 2]
    assert frame["s"].tolist() == list("xyxyxy")  # not a QI: untouched
    text, same = lattice.release((1, 0))
    assert same.tolist() == suppressed.tolist()
    assert text["a"].tolist() == ["A", "A", "A", "A", "*", "*"]
    assert text["b"].tolist() == ["0", "1", "0", "1", "*", "*"]
    assert str(text["a"].dtype) == "str" and str(text["b"].dtype) == "str"


def test_coded_release_by_hand_missing_stays_missing():
    frame, suppressed = _lattice(0.0).coded_release((0, 1))
    assert not suppressed.any()
    a = frame["a"].array
    assert list(a.categories) == ["0", "1", "*"]
    assert a.codes.tolist() == [0, 0, 1, 1, -1, -1]  # missing: code -1
    assert list(frame["b"].array.categories) == ["B", "*"]
    text = categorical_text(frame["a"])
    assert text.tolist()[:4] == ["0", "0", "1", "1"] and text.isna().tolist()[4:] == [True, True]


def test_mondrian_partition_categorical_by_hand():
    text = np.array(["[1-2]", None, "x"], dtype=object)  # per partition; None: missing
    slot = np.array([2, 0, 0, 1])  # each row's partition
    column = _partition_categorical(text, slot)
    assert list(column.categories) == ["[1-2]", "x"]
    assert column.codes.tolist() == [1, 0, 0, -1]
    released = categorical_text(pd.Series(column))
    assert released.tolist()[:3] == ["x", "[1-2]", "[1-2]"] and math.isnan(released.tolist()[3])


def _without_seconds(measurement) -> str:
    data = measurement.to_dict()
    data.pop("seconds", None)
    return json.dumps(data, sort_keys=True, default=str)


@pytest.mark.parametrize("algorithm", ["optimal", "datafly", "mondrian"])
def test_release_and_measurement_are_those_of_the_text(algorithm):
    """Release.frame holds text; its measurement — figures, aligned release and class
    table — equals the measurement of that text with the rows the algorithm blanked."""
    df, schema = _case()
    release = anonymize(df, schema, [KAnonymity(2)], algorithm=algorithm, max_suppression=2 / 6)
    frame = release.frame
    for column in ("a", "b"):
        assert str(frame[column].dtype) == "str"
    measurement = release.measurement
    assert measurement.release.equals(frame.reset_index(drop=True))
    assert (measurement.release.dtypes == frame.dtypes).all()
    direct = measure_release(
        df,
        frame,
        qi=release.qi,
        sa=release.sa,
        models=[KAnonymity(2)],
        hierarchies=schema.hierarchies,
        blanked=release.suppressed,
    )
    assert _without_seconds(measurement) == _without_seconds(direct)
    table, expected = measurement.models.class_table, direct.models.class_table
    assert table.equals(expected)
    assert (table.dtypes == expected.dtypes).all()
