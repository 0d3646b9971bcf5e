"""Numeric quasi-identifiers of any magnitude through the whole pipeline (hypothesis).

A numeric column drawn from every kind of float — ordinary ages, ±1e308 and the
largest float (whose differences, sums and squares are beyond the floats), subnormal
numbers, ±inf, NaN, and any float hypothesis finds — goes through the hierarchy
suggestion, one anonymization (an algorithm drawn from each family), the measurement
of the release and its risk assessment (population risk, SUDA2, singling out,
linkability's nearest neighbours, inference). Nothing raises but a
:class:`~privcore.errors.PrivcoreError` (a refusal in words), and every share that is
reported lies in [0, 1].
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from privcore.anonymize import anonymize
from privcore.data.hierarchy_suggestions import suggest_hierarchy
from privcore.data.schema import Schema
from privcore.errors import PrivcoreError
from privcore.measure.report import measure_release
from privcore.models import KAnonymity
from privcore.report.risk import assess_risk

MAX = float(np.finfo(np.float64).max)
EDGES = [1e308, -1e308, MAX, -MAX, 5e-324, -5e-324, 2.2250738585072014e-308, 0.0, -0.0]

number = st.one_of(
    st.integers(18, 90).map(float),  # an ordinary age, most often
    st.integers(18, 90).map(float),
    st.sampled_from(EDGES),
    st.sampled_from([math.inf, -math.inf, math.nan]),
    st.floats(allow_nan=True, allow_infinity=True),
)
ALGORITHMS = ["datafly", "optimal", "mondrian", "kaca", "mdav", "condensation", "top_bottom"]

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))


def _shares(value, path=""):
    """Every (path, number) of a report whose name says it is a share or a risk."""
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from _shares(inner, f"{path}.{key}")
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        name = path.rsplit(".", 1)[-1]
        if name in {"risk", "baseline", "pl", "ul", "gcp", "ncp", "precision", "all"}:
            yield path, float(value)


@SETTINGS
@given(
    values=st.lists(number, min_size=12, max_size=40),
    algorithm=st.sampled_from(ALGORITHMS),
    seed=st.integers(0, 2**16),
)
def test_any_numbers_go_through_suggestion_anonymization_measure_and_risk(values, algorithm, seed):
    rng = np.random.default_rng(seed)
    n = len(values)
    frame = pd.DataFrame(
        {
            "age": np.array(values, dtype=np.float64),
            "city": rng.choice(["A", "B", "C"], n),
            "disease": rng.choice(["flu", "cold", "hiv"], n),
        }
    )
    schema = Schema({"age": "quasi_identifier", "city": "quasi_identifier", "disease": "sensitive"})
    try:
        for column in ("age", "city"):
            suggestion = suggest_hierarchy(frame[column], column)
            schema = schema.with_hierarchy(column, suggestion.hierarchy)
        release = anonymize(
            frame, schema, [KAnonymity(2)], algorithm=algorithm, max_suppression=0.5, seed=seed
        )
    except PrivcoreError:
        return  # refused in words (a column of missing values only, infinite values, …)
    report = release.to_dict()
    for path, share in _shares(report.get("loss") or {}):
        assert 0.0 <= share <= 1.0 + 1e-9, (path, share)
    released = release.frame
    try:
        measured = measure_release(
            frame, released, qi=["age", "city"], sa=["disease"], hierarchies=schema.hierarchies
        )
    except PrivcoreError:
        measured = None
    if measured is not None:
        figures = measured.to_dict()
        for path, share in _shares({"pl": figures["pl"], "ul": figures["ul"]}):
            assert 0.0 <= share <= 1.0 + 1e-9, (path, share)
    try:
        risk = assess_risk(
            frame, released, ["age", "city"], ["disease"], hierarchies=schema.hierarchies, seed=seed
        )
    except PrivcoreError:
        return
    for path, share in _shares(risk.to_dict()):
        assert 0.0 <= share <= 1.0 + 1e-9, (path, share)
