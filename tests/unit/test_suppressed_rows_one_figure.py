"""One figure of suppressed rows (SPEC §13): a row the method blanked in every QI is a
suppressed row, whatever its rows would be as one class — counted against the limit
(a method that would blank more refuses), and the same number in the release, its
measurement, its readiness report and the attack on it."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from privcore.anonymize import anonymize
from privcore.attacks import simulate
from privcore.classes import release_classes, suppressed_rows
from privcore.data import Dataset
from privcore.data.schema import Schema
from privcore.errors import InfeasibleError, ParameterError
from privcore.measure.report import measure_release
from privcore.models import KAnonymity
from privcore.report import readiness
from privcore.runs import AttackRequest, Inputs, MeasureRequest, ReportRequest, run

Q, S = "quasi_identifier", "sensitive"


def small_strata() -> tuple[pd.DataFrame, Schema]:
    """Ten records: sex F (4), M (4), and X, Y one each. With k = 2 the X and Y records
    cannot form a group: MDAV suppresses both — two rows which, as one class at '*',
    would be 2-anonymous (the reading that once called them no suppression at all)."""
    frame = pd.DataFrame(
        {
            "age": [30, 31, 32, 33, 40, 41, 42, 43, 50, 60],
            "sex": ["F"] * 4 + ["M"] * 4 + ["X", "Y"],
            "disease": list("abababcdab"),
        }
    )
    return frame, Schema({"age": Q, "sex": Q, "disease": S})


def test_mdav_refuses_to_suppress_above_the_limit():
    """Two records of ten blanked: at a limit of 0 (or 10 %: ⌊0.1 · 10⌋ = 1 record) MDAV
    refuses and says that 20 % would allow it."""
    frame, schema = small_strata()
    for limit in (0.0, 0.1):
        with pytest.raises(InfeasibleError) as info:
            anonymize(frame, schema, [KAnonymity(2)], algorithm="mdav", max_suppression=limit)
        assert info.value.code == "anonymize.suppression_over_limit"
        assert info.value.params == {
            "algorithm": "MDAV",
            "suppressed": 2,
            "budget": int(limit * 10),
            "needed": "20",
        }


def test_the_release_the_report_and_the_attack_count_the_same_suppressed_rows():
    """At 20 % MDAV releases the two rows at '*': the release says 2 (k = 2 on the other
    eight), and so do its measurement, its readiness report (suppressed share 2/10 =
    0.2, failing the default 0.05) and the linkage and homogeneity attacks on it —
    through the library and through the recorded runs of the pages."""
    frame, schema = small_strata()
    release = anonymize(frame, schema, [KAnonymity(2)], algorithm="mdav", max_suppression=0.2)
    assert release.suppressed.tolist() == [False] * 8 + [True] * 2
    assert release.n_suppressed == 2 and release.to_dict()["suppressed_rows"] == 2
    assert release.to_dict()["k"] == 2 and release.to_dict()["classes"] == 4
    blanked = release.suppressed
    qi, sa = list(release.qi), list(release.sa)

    measured = measure_release(frame, release.frame, qi=qi, sa=sa, blanked=blanked)
    assert measured.to_dict()["suppressed_rows"] == 2

    report = readiness(frame, release.frame, qi=qi, sa=sa, aligned=True, blanked=blanked)
    assert report.measurement["suppressed_rows"] == 2
    share = next(c for c in report.checks if c["check"] == "suppressed_share")
    assert share["value"] == pytest.approx(0.2) and share["detail"]["count"] == 2
    assert share["status"] == "fail"

    attacked = simulate(frame, release.frame, qi, sa, roll_size=40, seed=1, blanked=blanked)
    assert attacked.linkage["after"].summary["suppressed_rows"] == 2
    assert attacked.homogeneity["after"].summary["suppressed"] == 2

    inputs = Inputs(
        original=Dataset(frame, "t.csv", "csv"),
        schema=schema,
        release=release.frame,
        aligned=True,
        blanked=blanked,
    )
    columns = {"qi": tuple(qi), "sa": tuple(sa)}
    for request, figure in (
        (MeasureRequest(**columns), lambda r: r.to_dict()["suppressed_rows"]),
        (
            AttackRequest(**columns, roll_size=40),
            lambda r: r.linkage["after"].summary["suppressed_rows"],
        ),
        (ReportRequest(**columns), lambda r: r.measurement["suppressed_rows"]),
    ):
        assert figure(run(request, inputs, record=False).result) == 2, request.kind


def test_rows_generalized_to_the_top_are_a_class_not_suppressed_rows():
    """Four released rows at '*' in every QI: rows 0–1 blanked by the method, rows 2–3
    generalized there. With the method's record, 2 suppressed rows and one class of
    the other two; without it (a file), the four as one class meet k = 2: a class."""
    released = pd.DataFrame(
        {
            "a": ["*", "*", "*", "*", "1", "1"],
            "b": ["*", "*", "*", "*", "2", "2"],
            "s": list("xyxyxy"),
        }
    )
    blanked = np.array([True, True, False, False, False, False])
    classes = release_classes(released, ["a", "b"], ["s"], models=[KAnonymity(2)], blanked=blanked)
    assert classes.ids.tolist() == [-1, -1, 0, 0, 1, 1] and classes.n_suppressed == 2
    read_from_file = release_classes(released, ["a", "b"], ["s"], models=[KAnonymity(2)])
    assert read_from_file.n_suppressed == 0 and read_from_file.sizes.tolist() == [4, 2]
    assert suppressed_rows(released, ["a", "b"], blanked).tolist() == blanked.tolist()
    assert suppressed_rows(released, ["a", "b"]).tolist() == [True] * 4 + [False] * 2
    with pytest.raises(ParameterError) as info:
        release_classes(released, ["a", "b"], blanked=np.ones(5, dtype=bool))
    assert info.value.code == "release.bad_blanked"
