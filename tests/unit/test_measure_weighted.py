"""measure_release on a weighted frequency set (SPEC §9): the distinct (original row,
released row) pairs of a table with the records each stands for give every figure the
table itself gives — by hand on three rows, and against the expanded table for releases
of generated tables (full-domain and Mondrian, every model, a population) and of Adult."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest

from privcore.anonymize import anonymize
from privcore.attacks import build_roll
from privcore.classes import factorize, group_rows
from privcore.data import load, load_sample
from privcore.data.hierarchy import Hierarchy
from privcore.data.hierarchy_suggestions import suggest_hierarchies
from privcore.data.schema import Schema
from privcore.errors import DataFormatError, ParameterError
from privcore.measure.loss import CodedColumn, column_pairs
from privcore.measure.report import measure_release
from privcore.models import (
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    PrivacyModel,
    RecursiveCLDiversity,
    TCloseness,
)

LOG3 = math.log2(3)


# --------------------------------------------------------------------------- helpers


def frequency_set(
    original: pd.DataFrame, release: pd.DataFrame, columns: list[str]
) -> tuple[pd.DataFrame, pd.DataFrame, np.ndarray]:
    """The joint frequency set of two row-paired tables over ``columns``: one row pair per
    distinct (original values, released values) combination, and the rows holding it."""
    codes, cardinalities = [], []
    for frame in (original, release):
        for column in columns:
            column_codes, uniques = factorize(frame[column])
            codes.append(column_codes)
            cardinalities.append(len(uniques))
    groups = group_rows(codes, cardinalities)
    first = groups.first
    return (
        original.iloc[first][columns].reset_index(drop=True),
        release.iloc[first][columns].reset_index(drop=True),
        groups.counts.astype(np.int64),
    )


def expanded(frame: pd.DataFrame, weights: np.ndarray) -> pd.DataFrame:
    """Each row repeated ``weights[i]`` times."""
    return frame.loc[frame.index.repeat(weights)].reset_index(drop=True)


def assert_close(ours: Any, theirs: Any, path: str = "") -> None:
    """Equal JSON-like values: the same keys, lengths and non-float leaves; floats equal
    to 1e-9 relative (1e-12 absolute near 0), NaN equal to NaN."""
    if isinstance(ours, dict):
        assert isinstance(theirs, dict) and ours.keys() == theirs.keys(), (path, ours, theirs)
        for key in ours:
            assert_close(ours[key], theirs[key], f"{path}.{key}")
    elif isinstance(ours, list | tuple):
        assert isinstance(theirs, list | tuple) and len(ours) == len(theirs), (path, ours, theirs)
        for i, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            assert_close(a, b, f"{path}[{i}]")
    elif isinstance(ours, float) or isinstance(theirs, float):
        assert isinstance(ours, int | float) and isinstance(theirs, int | float), (path, ours)
        both_nan = math.isnan(ours) and math.isnan(theirs)
        assert both_nan or math.isclose(ours, theirs, rel_tol=1e-9, abs_tol=1e-12), (
            path,
            ours,
            theirs,
        )
    else:
        assert ours == theirs, (path, ours, theirs)


def assert_same_measurement(by_rows, by_pairs) -> None:
    ours, theirs = by_pairs.to_dict(), by_rows.to_dict()
    ours.pop("seconds")
    theirs.pop("seconds")
    assert_close(ours, theirs)
    assert_close(by_pairs.history_summary(), by_rows.history_summary())


# --------------------------------------------------------------------------- by hand


@pytest.fixture
def three_rows():
    original = pd.DataFrame({"A": ["a1", "a2", "a3"], "S": ["x", "y", "y"]})
    release = pd.DataFrame({"A": ["g1", "g1", "a3"], "S": ["x", "y", "y"]})
    hierarchy = Hierarchy([["a1", "g1", "*"], ["a2", "g1", "*"], ["a3", "g2", "*"]])
    return original, release, {"A": hierarchy}, np.array([2, 1, 3], dtype=np.int64)


def test_hand_counted_three_row_frequency_set(three_rows):
    original, release, hierarchies, weights = three_rows
    result = measure_release(
        original,
        release,
        qi=["A"],
        sa=["S"],
        models=[KAnonymity(3)],
        hierarchies=hierarchies,
        weights=weights,
    )
    out = result.to_dict()
    # Records: (a1→g1, x) ×2, (a2→g1, y) ×1, (a3→a3, y) ×3 — n = 6.
    # Classes: g1 = 2 + 1 = 3 records, a3 = 3 records → k = 3, 2 classes, none suppressed.
    assert (out["k"], out["classes"], out["rows"], out["suppressed_rows"]) == (3, 2, 6, 0)
    assert out["l_distinct"] == {"S": 1}  # class a3 holds y only
    assert out["l_entropy"]["S"] == pytest.approx(1.0)
    # H(S̄) = H(2/6, 4/6) = log2 3 − 2/3; H(S̄ | Ā) = 3/6 · H(2/3, 1/3) + 3/6 · 0
    # = ½ (log2 3 − 2/3); DR = 1 − ½ = 0.5. S is released as is: I(S; S̄)/H(S) = 1, so
    # PL(all) = PL(S) = 0.5. PL(A): no other QI is known, DR = 0 → 0.
    assert out["dr"] == pytest.approx(0.5)
    assert out["pl"] == {"all": pytest.approx(0.5), "S": pytest.approx(0.5), "A": 0.0}
    # H(A) = H(2/6, 1/6, 3/6) = 2/3 + ½ log2 3; Ā (g1 ×3, a3 ×3) is a function of A:
    # I(A; Ā) = H(Ā) = 1. UL = (1 + log2 3 − 2/3) / (2/3 + ½ log2 3 + log2 3 − 2/3)
    # = (1/3 + log2 3) / (1.5 log2 3) ≈ 0.8069.
    assert out["ul"] == pytest.approx((1 / 3 + LOG3) / (1.5 * LOG3))
    # Risk: 1/f = 1/3 for every record; 2 classes over 6 records.
    risk = out["risk"]
    assert risk["prosecutor_max"] == pytest.approx(1 / 3)
    assert risk["prosecutor_avg"] == pytest.approx(2 / 6)
    assert risk["marketer"] == pytest.approx(2 / 6)
    assert risk["records_at_risk"] == pytest.approx(1.0)  # 1/3 > 0.2 for all 6
    # Loss: 3 records at level 1 (g1), 3 at level 0. Height 2: WHD of level 1 =
    # (1/2) / (1 + 1/2) = 1/3 → total 3 · 1/3 = 1, mean 1/6. Precision = 1 − (3 · ½)/6
    # = 0.75. NCP of g1 = 2 of the 3 values present = 2/3 → GCP = 3 · 2/3 / 6 = 1/3.
    # Discernibility = 3² + 3² = 18; C_avg = (6 / 2) / 3 = 1.
    loss = out["loss"]
    assert loss["whd_total"] == pytest.approx(1.0)
    assert loss["whd_mean"] == pytest.approx(1 / 6)
    assert loss["precision"] == pytest.approx(0.75)
    assert loss["gcp"] == pytest.approx(1 / 3)
    assert (loss["discernibility"], loss["c_avg"]) == (18, pytest.approx(1.0))
    assert loss["levels"] == {"A": 0}  # 3 records each at 0 and 1: the first most common
    # Real records: the 3 records (a3, y) are released unchanged.
    assert out["real_records"] == {"own": 3, "any": 3}
    assert result.history_summary()["rows"] == 6
    assert len(result.release) == 3 and result.weights.tolist() == [2, 1, 3]


def test_records_equal_to_another_original_row_count_their_weights():
    # Released row 0 equals original row 1 (weight 5), released row 1 equals original
    # row 0 (weight 2), released row 2 is original row 2 itself (weight 4): every
    # released record is an original record (any = 11), only row 2's its own (own = 4).
    original = pd.DataFrame({"A": ["p", "q", "r"], "S": [1, 2, 3]})
    release = pd.DataFrame({"A": ["q", "p", "r"], "S": [2, 1, 3]})
    weights = np.array([2, 5, 4])
    result = measure_release(original, release, qi=["A"], sa=["S"], weights=weights)
    assert result.real_records == {"own": 4, "any": 11}
    # The pairing is given: the row-order check (which refuses these rows when matched by
    # position without weights) does not apply.
    checked = measure_release(
        original, release, qi=["A"], sa=["S"], weights=weights, check_order=True
    )
    assert checked.real_records == result.real_records
    with pytest.raises(DataFormatError) as info:
        measure_release(original, release, qi=["A"], sa=["S"], check_order=True)
    assert info.value.code == "measure.row_order"
    by_rows = measure_release(
        expanded(original, weights), expanded(release, weights), qi=["A"], sa=["S"]
    )
    assert_same_measurement(by_rows, result)


def test_weighted_pair_counts_by_hand():
    # Pairs (a, x) in rows 0 and 1 (weights 2 + 1), (b, x) in row 2 (weight 4).
    pairs = column_pairs(
        CodedColumn.of(pd.Series(["a", "a", "b"])),
        CodedColumn.of(pd.Series(["x", "x", "x"])),
        weights=np.array([2, 1, 4]),
    )
    assert sorted(zip(pairs.original.tolist(), pairs.counts.tolist(), strict=True)) == [
        (0, 3),
        (1, 4),
    ]
    assert pairs.counts.dtype == np.int64


def test_weighted_pair_counts_of_many_values_are_grouped_by_hash():
    # 1,200 rows, each its own pair: more possible pairs than 4 per row (+ 1,024), so the
    # pairs are grouped by hash; each pair counts its row's weight.
    n = 1_200
    weights = np.arange(n) % 3 + 1
    pairs = column_pairs(
        CodedColumn.of(pd.Series(np.arange(n))),
        CodedColumn.of(pd.Series(np.arange(n)[::-1].astype(str))),
        weights=weights,
    )
    assert pairs.original.tolist() == list(range(n))
    assert pairs.counts.tolist() == weights.tolist()


# --------------------------------------------------------------------------- errors


def test_weights_pair_rows_by_position_only(three_rows):
    original, release, _, weights = three_rows
    keyed = dict(original=original.assign(id=[1, 2, 3]), release=release.assign(id=[1, 2, 3]))
    with pytest.raises(ParameterError) as info:
        measure_release(**keyed, qi=["A"], sa=["S"], key="id", weights=weights)
    assert info.value.code == "measure.weights_pairing"
    for alignment in ("none", "auto"):
        with pytest.raises(ParameterError) as info:
            measure_release(
                original, release, qi=["A"], sa=["S"], alignment=alignment, weights=weights
            )
        assert info.value.code == "measure.weights_pairing"
        assert alignment in info.value.message


def test_weights_need_one_per_row_pair(three_rows):
    original, release, _, weights = three_rows
    with pytest.raises(DataFormatError) as info:
        measure_release(original, release.iloc[:2], qi=["A"], sa=["S"], weights=weights)
    assert info.value.code == "measure.alignment"
    with pytest.raises(DataFormatError) as info:
        measure_release(original, release, qi=["A"], sa=["S"], weights=weights[:2])
    assert info.value.code == "measure.weights_rows"
    assert info.value.params == {"rows": 3, "weights": 2}


@pytest.mark.parametrize("weights", [[2, 0, 3], [2, -1, 3], [2, 1.5, 3], ["2", "1", "3"]])
def test_weights_must_be_whole_numbers_of_at_least_one(three_rows, weights):
    original, release, _, _ = three_rows
    with pytest.raises(ParameterError) as info:
        measure_release(original, release, qi=["A"], sa=["S"], weights=np.array(weights))
    assert info.value.code == "measure.bad_weights"


def test_whole_float_weights_are_accepted(three_rows):
    original, release, _, weights = three_rows
    as_floats = measure_release(
        original, release, qi=["A"], sa=["S"], weights=weights.astype(float)
    )
    assert as_floats.to_dict()["rows"] == 6 and as_floats.weights.dtype == np.int64


# --------------------------------------------------------------------------- generated tables

DISEASE = Hierarchy(
    [
        ["flu", "respiratory", "*"],
        ["cold", "respiratory", "*"],
        ["asthma", "respiratory", "*"],
        ["ulcer", "stomach", "*"],
        ["cancer", "stomach", "*"],
    ]
)


def generated_table(
    seed: int, rows: int, n_qi: int, with_disease: bool
) -> tuple[pd.DataFrame, Schema, list[str], list[str]]:
    """A small table of few distinct values (so that row pairs repeat): 2–4 QIs (age,
    ZIP, sex, city) with suggested hierarchies, a numeric SA (salary) and maybe a text
    SA with a hierarchy (disease), and a few missing cells in two columns."""
    rng = np.random.default_rng(seed)
    values = {
        "age": rng.integers(20, 26, rows),
        "zip": rng.choice(["47677", "47602", "47905"], rows),
        "sex": rng.choice(["F", "M"], rows),
        "city": rng.choice(["Lyon", "Nice", "Metz"], rows),
    }
    qi = list(values)[:n_qi]
    frame = pd.DataFrame({q: values[q] for q in qi})
    frame["salary"] = rng.integers(1, 4, rows) * 1000
    sa = ["salary"]
    if with_disease:
        frame["disease"] = rng.choice(["flu", "asthma", "ulcer", "cancer"], rows)
        sa.append("disease")
    for column in rng.choice([*qi, "salary"], size=2, replace=False):
        frame[column] = frame[column].astype(object)
        frame.loc[rng.choice(rows, size=3, replace=False), column] = None
    frame = load(frame).frame  # as an upload reads it: missing cells are missing values
    hierarchies = {c: s.hierarchy for c, s in suggest_hierarchies(frame, qi).items()}
    if with_disease:
        hierarchies["disease"] = DISEASE
    roles = {**dict.fromkeys(qi, "quasi_identifier"), **dict.fromkeys(sa, "sensitive")}
    return frame, Schema(roles, hierarchies), qi, sa


CASES = [
    # seed, rows, QIs, disease, algorithm, models, population
    (1, 300, 2, False, "optimal", [], False),
    (2, 250, 3, True, "optimal", [KAnonymity(3)], True),
    (3, 200, 2, True, "mondrian", [KAnonymity(2), DistinctLDiversity(2)], False),
    (4, 300, 3, True, "mondrian", [EntropyLDiversity(1.5)], True),
    (5, 150, 4, False, "optimal", [RecursiveCLDiversity(3, 2)], False),
    (6, 120, 2, True, "mondrian", [TCloseness(0.5, "equal")], True),
    (7, 250, 3, False, "optimal", [TCloseness(0.5, "ordered", ("salary",))], True),
    (
        8,
        60,
        2,
        True,
        "mondrian",
        [KAnonymity(2), TCloseness(0.6, "hierarchical", ("disease",))],
        False,
    ),
]


@pytest.mark.parametrize(
    ("seed", "rows", "n_qi", "with_disease", "algorithm", "models", "population"),
    CASES,
    ids=[f"{c[4]}-{c[0]}" for c in CASES],
)
def test_a_frequency_set_measures_as_its_table(
    seed: int,
    rows: int,
    n_qi: int,
    with_disease: bool,
    algorithm: str,
    models: list[PrivacyModel],
    population: bool,
):
    frame, schema, qi, sa = generated_table(seed, rows, n_qi, with_disease)
    made = anonymize(
        frame, schema, models or [KAnonymity(2)], algorithm=algorithm, max_suppression=0.1
    )
    release = made.frame.copy()
    # A few rows more at '*' in every QI: a class or suppression, as the models decide.
    starred = np.random.default_rng(seed).choice(len(release), size=4, replace=False)
    for column in qi:
        release[column] = release[column].astype(object)
        release.loc[starred, column] = "*"
    options = {
        "qi": qi,
        "sa": sa,
        "models": models,
        "hierarchies": schema.hierarchies,
        "population": build_roll(frame, qi, seed=0).frame if population else None,
    }
    fs_original, fs_release, counts = frequency_set(frame, release, [*qi, *sa])
    assert counts.max() > 1 and len(counts) < len(frame)  # rows do repeat
    by_rows = measure_release(frame, release, **options)
    by_pairs = measure_release(fs_original, fs_release, weights=counts, **options)
    assert_same_measurement(by_rows, by_pairs)
    assert by_pairs.to_dict()["rows"] == len(frame)


def test_adult_optimal_k5_release_as_a_frequency_set():
    dataset, schema = load_sample("adult")
    original = dataset.frame
    made = anonymize(original, schema, [KAnonymity(5)], algorithm="optimal")
    qi, sa = list(made.qi), list(made.sa)
    options = {"qi": qi, "sa": sa, "models": [KAnonymity(5)], "hierarchies": schema.hierarchies}
    fs_original, fs_release, counts = frequency_set(original, made.frame, [*qi, *sa])
    assert len(counts) < len(original)
    by_rows = measure_release(original, made.frame, **options)
    by_pairs = measure_release(fs_original, fs_release, weights=counts, **options)
    assert_same_measurement(by_rows, by_pairs)
    assert by_pairs.to_dict()["k"] == 5
