"""Missing quasi-identifier values have one rendering in every algorithm's release
(privcore/anonymize/base.py): a missing value its class shows alone is a missing cell
(empty in the written file), a class that mixes it with other values names it ``NA``
inside its set or after its range, and at the top it is ``*``. The written release, read
back, has the classes it was made with, and every released cell still contains its row's
original value as the released-cell grammar (privcore.data.cells) reads it."""

from __future__ import annotations

import csv
import io
import re

import numpy as np
import pandas as pd
import pytest

from privcore.anonymize import ALGORITHMS, anonymize
from privcore.classes import release_classes
from privcore.data import Schema, load, to_csv_bytes
from privcore.data.cells import MISSING_TEXT, parse_column
from privcore.data.hierarchy_suggestions import suggest_hierarchies
from privcore.models import KAnonymity

N = 300
MODELS = [KAnonymity(3)]
# (algorithm, options, with hierarchies)
CASES = [(name, {}, True) for name in ALGORITHMS] + [
    ("mondrian", {}, False),  # categorical QIs released as sets {a,b}
    ("mondrian", {"summary": "mean"}, True),
]


def _table() -> pd.DataFrame:
    rng = np.random.default_rng(11)
    age = rng.integers(18, 90, N).astype(float)
    age[rng.random(N) < 0.12] = np.nan
    city = pd.Series(rng.choice(["Other", "Gary", "Lafayette", "Muncie", "Marion"], N))
    city[rng.random(N) < 0.12] = None
    zips = pd.Series([f"{z:05d}" for z in rng.integers(1000, 99999, N)])
    zips[rng.random(N) < 0.12] = None
    table = pd.DataFrame(
        {
            "age": age,
            "city": city,
            "zip": zips,
            "weight": np.round(rng.normal(70, 12, N), 1),  # complete: condensation's QI
            "disease": rng.choice(["flu", "cold", "asthma"], N),
        }
    )
    return load(table).frame  # missing cells as the loader gives them


def _qi(algorithm: str) -> list[str]:
    # condensation synthesizes numeric QIs and MDAV averages them: both refuse missing ones
    if algorithm in ("condensation", "mdav"):
        return ["weight", "city"]
    return ["age", "city", "zip"]


# perturbative methods whose released values are other values, not generalizations
CHANGED_VALUES = ("mdav", "pram", "noise", "rank_swap")


def _release(algorithm: str, options: dict, with_hierarchies: bool):
    frame = _table()
    qi = _qi(algorithm)
    hierarchies = {c: s.hierarchy for c, s in suggest_hierarchies(frame, qi).items()}
    schema = Schema(
        {**dict.fromkeys(qi, "quasi_identifier"), "disease": "sensitive"},
        hierarchies if with_hierarchies else {},
    )
    release = anonymize(frame, schema, MODELS, algorithm=algorithm, max_suppression=0.05, **options)
    return frame, qi, hierarchies, release


def _same_partition(a: np.ndarray, b: np.ndarray) -> bool:
    pairs = pd.DataFrame({"a": a, "b": b}).drop_duplicates()
    return not pairs["a"].duplicated().any() and not pairs["b"].duplicated().any()


_NAMES_MISSING = re.compile(rf"(^\{{.*\b{MISSING_TEXT}\b.*\}}$)|(,{MISSING_TEXT}$)")


@pytest.mark.parametrize(("algorithm", "options", "with_hierarchies"), CASES)
def test_missing_values_have_one_rendering_and_read_back_the_same(
    algorithm, options, with_hierarchies
):
    original, qi, hierarchies, release = _release(algorithm, options, with_hierarchies)
    released = release.frame
    seen: set[str] = set()
    for column in qi:
        cells = released[column]
        text = cells.dropna().astype(str)
        # a missing value is a real missing cell, never the text of one
        assert not text.isin(["nan", "NaN", "None", "<NA>", MISSING_TEXT, ""]).any(), column
        # NA appears only where a cell names several values, one of them missing
        named = text[text.str.contains(rf"\b{MISSING_TEXT}\b")]
        assert named.str.match(_NAMES_MISSING).all(), named.unique()[:5]
        if not release.synthetic:  # synthetic rows are permuted within their groups
            shown = cells[original[column].isna().to_numpy()]
            forms = np.where(
                shown.isna(),
                "missing",
                np.where(
                    shown.astype(str) == "*",
                    "top",
                    np.where(shown.astype(str).str.match(_NAMES_MISSING), "named", "other"),
                ),
            )
            assert "other" not in forms, shown[forms == "other"].unique()[:5]
            seen.update(forms.tolist())
    if not release.synthetic:  # the table makes each algorithm show its forms
        sets = algorithm == "mondrian" and not with_hierarchies  # {a,NA}
        expected = {"missing", "named"} if sets else {"missing"}
        assert expected <= seen, seen

    # the file: a lone missing value is an empty field
    written = to_csv_bytes(release.frame)
    rows = list(csv.reader(io.StringIO(written.decode("utf-8"))))
    header, body = rows[0], rows[1:]
    for column in qi:
        position = header.index(column)
        fields = np.array([row[position] for row in body], dtype=object)
        assert (fields[released[column].isna().to_numpy()] == "").all()

    # read back: the same equivalence classes
    back = load(written, filename="release.csv").frame
    made = release_classes(released, qi, models=MODELS)
    read = release_classes(back, qi, models=MODELS)
    assert _same_partition(made.ids, read.ids)
    assert (made.ids < 0).sum() == (read.ids < 0).sum()
    if not release.synthetic:
        assert _same_partition(made.ids, release.class_ids)

    # every released cell contains its row's original value (missing included)
    if release.synthetic or options.get("summary") == "mean" or algorithm in CHANGED_VALUES:
        return  # synthetic, averaged or perturbed values are no generalization of the original
    for column in qi:
        cells = parse_column(back[column], hierarchy=hierarchies.get(column), column=column)
        inside = cells.contains(original[column].reset_index(drop=True))
        assert inside[cells.codes, np.arange(len(back))].all(), column


def test_the_gcp_of_a_column_with_every_value_missing_is_zero():
    """A numeric QI whose every original value is missing (one row, Mondrian's release
    shows the missing cell): no value to cover, so NCP 0 — not an error."""
    import pandas as pd

    from privcore.measure.loss import cell_ncp

    original = pd.Series([None], dtype="Float64", name="age")
    released = pd.Series([None], dtype=object, name="age")
    penalty, outside = cell_ncp(original, released)
    assert outside == 0 and penalty.tolist() == [0.0]
