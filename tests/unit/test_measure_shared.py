"""A measurement on shared codes: each column factorized once, its (original, released)
value pairs counted once, the entropies of sets of QIs read from the classes — and every
figure the one the per-row functions give (hand-computed values on the SPEC example)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from privcore.anonymize import ALGORITHMS
from privcore.classes import TableCodes, release_classes
from privcore.data.hierarchy import Hierarchy
from privcore.data.samples import load_sample
from privcore.measure import (
    discrimination_rate,
    generalization_levels,
    local_privacy_level,
    ncp,
    precision,
    utility_loss,
    whd_distortion,
)
from privcore.measure.entropy import InformationMeasures
from privcore.measure.loss import (
    CodedColumn,
    cell_ncp,
    column_loss,
    column_pairs,
    gcp,
    gcp_of_sums,
    precision_of_counts,
)
from privcore.measure.report import measure_release, real_records
from privcore.models import KAnonymity

QI = ["ZIP", "Age"]
SA = ["Salary", "Disease"]
LOG3 = math.log2(3)


@pytest.fixture(scope="module")
def hospital():
    dataset, schema = load_sample("hospital")
    release = load_sample("hospital_release")[0].frame
    return dataset.frame, release, schema.hierarchies


def _pairs(original: pd.Series, release: pd.Series):
    return column_pairs(CodedColumn.of(original), CodedColumn.of(release))


# --------------------------------------------------------------------------- value pairs


def test_column_pairs_by_hand():
    pairs = _pairs(pd.Series(["a", "a", "b", None]), pd.Series(["x", "x", "x", "*"]))
    # Pairs (a, x) ×2, (b, x) ×1, (missing, *) ×1; values numbered by first appearance:
    # original a 0, b 1, missing 2; released x 0, * 1.
    found = sorted(
        zip(pairs.original.tolist(), pairs.released.tolist(), pairs.counts.tolist(), strict=True)
    )
    assert found == [(0, 0, 2), (1, 0, 1), (2, 1, 1)]
    by_row = [(pairs.original[p], pairs.released[p]) for p in pairs.rows]
    assert by_row == [(0, 0), (0, 0), (1, 0), (2, 1)]
    kept = pairs.counted()
    assert kept.rows is None and kept.counts.tolist() == pairs.counts.tolist()


def test_column_pairs_of_many_values_are_grouped_by_hash():
    # 1,200 rows, each its own original and released value: 1,440,000 possible pairs, more
    # than 4 per row (+ 1,024), so they are grouped by hash; every row is a pair of its own.
    n = 1_200
    pairs = _pairs(pd.Series(np.arange(n)), pd.Series(np.arange(n)[::-1].astype(str)))
    assert len(pairs) == n and pairs.counts.tolist() == [1] * n
    assert pairs.original.tolist() == list(range(n)) and pairs.rows.tolist() == list(range(n))


# --------------------------------------------------------------------------- loss per column


def test_column_loss_of_labels_by_hand(hospital):
    original, _, hierarchies = hospital
    disease = hierarchies["Disease"]
    release = pd.DataFrame({"Disease": disease.generalize_values(original["Disease"], 1)})
    read = column_loss(TableCodes(original), TableCodes(release), "Disease", hierarchies["Disease"])
    # Every cell at level 1; each level-1 label holds 3 of the 6 diseases → NCP 3/6 per row.
    assert read.failure is None and read.levels.tolist() == [1] * 9
    assert read.levels.dtype == np.int8
    assert read.level_counts.tolist() == [0, 9, 0, 0]
    assert read.penalty == pytest.approx(9 * 0.5)


def test_column_loss_equals_the_per_row_functions(hospital):
    original, release, hierarchies = hospital
    for column, levels in (
        ("Age", [1, 1, 1, 2, 2, 2, 0, 3, 1]),
        ("Disease", [0, 1, 2, 3, 1, 1, 1, 2, 0]),
    ):
        hierarchy = hierarchies[column]
        cells = pd.Series(
            [
                hierarchy.labels(g)[hierarchy.generalize(hierarchy.encode(original[column]), g)[i]]
                for i, g in enumerate(levels)
            ]
        )
        frame = pd.DataFrame({column: cells})
        read = column_loss(TableCodes(original), TableCodes(frame), column, hierarchy)
        per_row = generalization_levels(original[column], cells, hierarchy)
        assert read.levels.tolist() == per_row.tolist() == levels
        assert read.penalty == pytest.approx(
            ncp(original[column], per_row, hierarchy).sum(), abs=1e-12
        )
    # ZIP: two released masks do not contain their original (rows 2 and 8), so the column
    # has no levels and its cells cannot be read either.
    read = column_loss(TableCodes(original), TableCodes(release), "ZIP", hierarchies["ZIP"])
    assert (read.levels, read.penalty, read.failure, read.detail) == (None, None, "not_labels", "2")
    assert cell_ncp(original["ZIP"], release["ZIP"], hierarchies["ZIP"]) == (None, 2)


def test_column_loss_reads_cells_that_are_no_labels():
    original = pd.DataFrame({"age": [20, 25, 30, 40]})
    release = pd.DataFrame({"age": ["[20-25]", "[20-25]", "[30-40]", "[30-40]"]})
    h = Hierarchy(
        [["20", "young", "*"], ["25", "young", "*"], ["30", "old", "*"], ["40", "old", "*"]]
    )
    read = column_loss(TableCodes(original), TableCodes(release), "age", h)
    # The ranges are no labels: NCP from the cells, (25 − 20)/20 twice and (40 − 30)/20 twice.
    assert read.levels is None and read.failure == "not_labels" and read.detail == "4"
    assert read.penalty == pytest.approx(2 * 5 / 20 + 2 * 10 / 20)
    per_row, outside = cell_ncp(original["age"], release["age"], h)
    assert outside == 0 and read.penalty == pytest.approx(per_row.sum(), abs=1e-12)
    missing = column_loss(TableCodes(original), TableCodes(release), "age", None)
    assert missing.failure == "no_hierarchy" and missing.penalty == pytest.approx(1.5)


def test_precision_and_gcp_from_sums_by_hand():
    # Levels 0, 1, 1, 2 of a height-2 hierarchy: Σ levels = 4 → Prec = 1 − (4/2)/(4·1) = 0.5
    h = Hierarchy([["a", "x", "*"], ["b", "x", "*"]])
    assert precision_of_counts({"q": np.array([1, 2, 1])}, {"q": h}) == pytest.approx(0.5)
    assert precision({"q": np.array([0, 1, 1, 2])}, {"q": h}) == pytest.approx(0.5)
    # Σ NCP 1.0 and 3.0 over 4 rows × 2 QIs → 4/8
    assert gcp_of_sums([1.0, 3.0], 4) == pytest.approx(0.5)
    assert gcp({"a": np.array([0.0, 0.5, 0.5, 0.0]), "b": np.array([1.0, 1.0, 0.5, 0.5])}) == 0.5


def test_whd_distortion_accepts_small_level_types(hospital):
    _, _, hierarchies = hospital
    levels = {"Age": np.array([1, 3], dtype=np.int8)}
    # Age height 3 (h = 4 levels): WHD to our level 1 = (1/3)/(11/6) = 2/11, to the top 1.
    per_row, total = whd_distortion(levels, {"Age": hierarchies["Age"]})
    assert per_row.tolist() == pytest.approx([2 / 11, 1.0])
    assert total == pytest.approx(13 / 11)


# --------------------------------------------------------------------------- entropies


def test_information_measures_give_the_spec_figures(hospital):
    original, release, _ = hospital
    original_codes, release_codes = TableCodes(original), TableCodes(release)

    def pair_counts(column):
        return column_pairs(
            CodedColumn.of_table(original_codes, column),
            CodedColumn.of_table(release_codes, column),
        )

    measures = InformationMeasures(release_codes, original_codes, pair_counts=pair_counts)
    classes = release_classes(release, QI)
    measures.release_partition(QI, classes.ids, classes.n_classes)
    # SPEC §3: PL(D) = 0.5, PL_ZIP(Age) = 1/2 − 1/(3 log2 3) ≈ 0.290, UL = 0.75, DR = 0.5
    assert measures.privacy_level(SA, QI).value == pytest.approx(0.5)
    assert measures.privacy_level(["Age"], ["ZIP"]).value == pytest.approx(0.5 - 1 / (3 * LOG3))
    assert measures.utility_loss(QI, SA) == pytest.approx(0.75)
    assert measures.discrimination_rate(QI, SA) == pytest.approx(0.5)
    for column in (*QI, *SA):
        known = [q for q in QI if q != column]
        assert measures.privacy_level([column], known).value == pytest.approx(
            local_privacy_level(original, release, [column], known).value, abs=1e-12
        )
    assert measures.utility_loss(QI, SA) == pytest.approx(
        utility_loss(original, release, QI, SA), abs=1e-12
    )


def _h(*counts: int) -> float:
    """Shannon entropy in bits of a distribution given by its counts."""
    n = sum(counts)
    return -sum(c / n * math.log2(c / n) for c in counts)


def test_entropy_of_some_columns_is_read_on_the_distinct_tuples_of_more():
    # 40 rows, 4 distinct (x, y, z): (a,1,p) ×10, (a,2,p) ×15, (b,1,q) ×5, (b,1,r) ×10.
    sizes = [10, 15, 5, 10]
    tuples = [("a", 1, "p"), ("a", 2, "p"), ("b", 1, "q"), ("b", 1, "r")]
    frame = pd.DataFrame([t for t, size in zip(tuples, sizes, strict=True) for _ in range(size)])
    frame.columns = ["x", "y", "z"]
    measures = InformationMeasures(TableCodes(frame))
    measures.release_partition(["x", "y", "z"], np.repeat(np.arange(4), sizes), 4)
    # H(x, y) is counted on the 4 tuples, each weighted by its rows: (a,1) 10, (a,2) 15,
    # (b,1) 15 (unweighted it would be 1, 1, 2). H(x): a 25, b 15; H(y): 1 25, 2 15.
    # DR(x → y) = 1 − (H(x, y) − H(x)) / H(y)
    expected = 1 - (_h(10, 15, 15) - _h(25, 15)) / _h(25, 15)
    assert expected == pytest.approx(0.3642, abs=1e-4)
    assert measures.discrimination_rate(["x"], ["y"]) == pytest.approx(expected)
    assert measures.discrimination_rate(["x"], ["y"]) == pytest.approx(
        discrimination_rate(frame, ["x"], ["y"]), abs=1e-12
    )
    # DR((x, y) → z) = 1 − (H(x, y, z) − H(x, y)) / H(z); z: p 25, q 5, r 10.
    expected = 1 - (_h(10, 15, 5, 10) - _h(10, 15, 15)) / _h(25, 5, 10)
    assert measures.discrimination_rate(["x", "y"], ["z"]) == pytest.approx(expected)


# --------------------------------------------------------------------------- one measurement


def test_measure_release_equals_the_per_row_functions_on_a_mondrian_release():
    dataset, schema = load_sample("adult")
    original = dataset.frame.iloc[:3_000].reset_index(drop=True)
    qi, sa, hierarchies = list(schema.quasi_identifiers), list(schema.sensitive), schema.hierarchies
    release = ALGORITHMS["mondrian"].function(original, schema, [KAnonymity(5)]).frame
    m = measure_release(original, release, qi=qi, sa=sa, hierarchies=hierarchies)
    # GCP: every QI of a Mondrian release read from its cells (ranges, sets, labels).
    penalties = {}
    for column in qi:
        per_row, outside = cell_ncp(original[column], release[column], hierarchies.get(column))
        assert outside == 0
        penalties[column] = per_row
    assert m.loss["gcp"] == pytest.approx(gcp(penalties), abs=1e-12)
    assert m.privacy.value == pytest.approx(
        local_privacy_level(original, release, sa, qi).value, abs=1e-12
    )
    assert m.ul == pytest.approx(utility_loss(original, release, qi, sa), abs=1e-12)
    assert m.dr == pytest.approx(discrimination_rate(release, qi, sa), abs=1e-12)
    for column, level in m.pl_by_attribute.items():
        known = [q for q in qi if q != column]
        assert level.value == pytest.approx(
            local_privacy_level(original, release, [column], known).value, abs=1e-12
        )
    # The columns whose cells are all hierarchy labels: WHD and precision from the levels.
    levels = {
        c: generalization_levels(original[c], release[c], hierarchies[c])
        for c in m.loss["loss_columns"]
    }
    used = {c: hierarchies[c] for c in levels}
    assert m.loss["whd_total"] == whd_distortion(levels, used)[1]
    assert m.loss["precision"] == precision(levels, used)


def test_measured_optimal_release_keeps_small_levels():
    dataset, schema = load_sample("hospital")
    release = ALGORITHMS["optimal"].function(dataset.frame, schema, [KAnonymity(3)])
    assert {v.dtype for v in release.record_levels.values()} == {np.dtype(np.int8)}
    assert release.measurement.release["ZIP"].tolist() == release.frame["ZIP"].tolist()


def test_real_records_stop_at_a_column_generalized_throughout():
    original = pd.DataFrame({"age": [30, 40, 50], "sex": ["M", "F", "M"]})
    everywhere = pd.DataFrame({"age": ["[30-50]"] * 3, "sex": ["M", "F", "M"]})
    # No released age is an original age: no released row is a real record.
    assert real_records(original, everywhere, ["age", "sex"]) == {"own": 0, "any": 0}
    assert real_records(original, everywhere, ["age", "sex"], aligned=False) == {"any": 0}
    partly = pd.DataFrame({"age": ["30", "[40-50]", "30"], "sex": ["M", "F", "M"]})
    # Row 0 is its own record ("30" is 30 as a key); row 2 (30, M) is original row 0.
    assert real_records(original, partly, ["age", "sex"]) == {"own": 1, "any": 2}
