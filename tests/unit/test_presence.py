"""δ-presence and k-map against a population table (privcore.measure.presence;
SPEC §11), hand-computed on the 9-patient hospital table with small hand-written
populations."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from privcore.classes import SUPPRESSED
from privcore.data.samples import load_sample
from privcore.errors import ParameterError, RoleError
from privcore.measure.presence import delta_presence, k_map, presence

QI = ["ZIP", "Age"]


@pytest.fixture(scope="module")
def hospital() -> pd.DataFrame:
    dataset, _ = load_sample("hospital")
    return dataset.frame


def k3_release(frame: pd.DataFrame) -> pd.DataFrame:
    """ZIP masked to 4 digits, Age as <40 / >=40: classes in order of first row
    4767*/<40 (patients 1, 3, 8), 4760*/<40 (2, 7, 9), 4790*/>=40 (4, 5, 6)."""
    release = frame.copy()
    release["ZIP"] = frame["ZIP"].astype(str).str[:4] + "*"
    release["Age"] = np.where(frame["Age"] < 40, "<40", ">=40")
    return release


def people(frame: pd.DataFrame, patients=range(1, 10), extra=()) -> pd.DataFrame:
    """A population: the given patients (1-based) with their QI values, then ``extra``
    (ZIP, Age) people who are not in the data set."""
    rows = frame.iloc[[p - 1 for p in patients]][QI]
    others = pd.DataFrame(list(extra), columns=QI)
    return pd.concat([rows, others], ignore_index=True)


EXTRA = [
    (47671, 25),  # 4767*, <40
    (47672, 39),  # 4767*, <40
    (47601, 45),  # 4760* but >=40: no class
    (47909, 52),  # 4790*, >=40 (patient 5's twin)
    (10001, 30),  # no class
]


def test_hospital_hand_computed(hospital):
    """F = (3 + 2, 3, 3 + 1) = (5, 3, 4); f = 3 each; delta = (3/5, 3/3, 3/4)."""
    result = presence(k3_release(hospital), QI, people(hospital, extra=EXTRA))
    assert result.classes["ZIP"].tolist() == ["4767*", "4760*", "4790*"]
    assert result.classes["population"].tolist() == [5, 3, 4]
    assert result.classes["delta"].tolist() == pytest.approx([0.6, 1.0, 0.75])
    d = result.delta_presence
    assert d.minimum == pytest.approx(0.6) and d.maximum == pytest.approx(1.0)
    assert d.holds is None  # no bounds asked
    assert result.k_map.k == 3 and result.k_map.holds is None
    assert result.population_size == 14 and result.records == 9
    assert result.short_classes == 0 and result.unmatched_classes == 0
    assert result.notes == ()
    data = result.to_dict()
    json.dumps(data)
    assert data["delta_presence"]["min"] == pytest.approx(0.6)
    assert data["delta_presence"]["max"] == pytest.approx(1.0)
    assert data["k_map"]["k"] == 3


def test_bounds_and_k_are_checked(hospital):
    release, population = k3_release(hospital), people(hospital, extra=EXTRA)
    d = delta_presence(release, QI, population, delta_min=0.5, delta_max=0.8)
    # 4760*/<40 has delta 1 > 0.8: one class of 3 records outside
    assert (d.holds, d.classes_outside, d.records_outside) == (False, 1, 3)
    assert delta_presence(release, QI, population, delta_max=1.0).holds is True
    low = delta_presence(release, QI, population, delta_min=0.7)  # 0.6 < 0.7
    assert (low.holds, low.classes_outside) == (False, 1)
    assert k_map(release, QI, population, k=3).holds is True
    four = k_map(release, QI, population, k=4)  # 4760*/<40 matches only 3 people
    assert (four.k, four.holds, four.classes_below, four.records_below) == (3, False, 1, 3)
    assert four.to_dict() == {
        "k": 3,
        "requested": 4,
        "holds": False,
        "classes_below": 1,
        "records_below": 3,
    }


def test_a_short_population_counts_each_class_at_its_own_size(hospital):
    """Patients 2, 7, 9 missing: 4760*/<40 matches nobody (F = 0), read as F = f = 3,
    delta = 1; 4767*/<40: patients 1, 3, 8 and two voters, F = 5."""
    population = people(hospital, [1, 3, 4, 5, 6, 8], EXTRA[:2])
    result = presence(k3_release(hospital), QI, population)
    assert result.classes["population"].tolist() == [5, 0, 3]
    assert result.classes["population_used"].tolist() == [5, 3, 3]
    assert result.classes["delta"].tolist() == pytest.approx([0.6, 1.0, 1.0])
    assert result.short_classes == 1 and result.unmatched_classes == 1
    assert result.k_map.k == 3
    assert [n.code for n in result.notes] == ["presence.population_short"]
    # A class matched by fewer people than it holds (patient 8 missing: F = 2 + 0).
    fewer = presence(k3_release(hospital), QI, people(hospital, [1, 2, 3, 4, 5, 6, 7, 9]))
    assert fewer.classes["population"].tolist() == [2, 3, 3]
    assert fewer.delta_presence.maximum == 1.0 and fewer.k_map.k == 3
    assert (fewer.short_classes, fewer.unmatched_classes) == (1, 0)


def test_suppressed_rows_form_no_class(hospital):
    """Patient 9 all '*': 4760*/<40 holds patients 2 and 7 (f = 2) and still matches
    patients 2, 7, 9 (F = 3): delta 2/3."""
    release = k3_release(hospital)
    release.loc[8, QI] = SUPPRESSED
    result = presence(release, QI, people(hospital))
    assert result.classes["records"].tolist() == [3, 2, 3]
    assert result.classes["delta"].tolist() == pytest.approx([1.0, 2 / 3, 1.0])
    assert result.suppressed_records == 1 and result.records == 9
    every = release.copy()
    every[QI] = SUPPRESSED
    none = presence(every, QI, people(hospital), delta_max=0.5, k=2)
    assert none.delta_presence.minimum is None and none.delta_presence.holds is True
    assert none.k_map.k is None and none.k_map.holds is True


def test_local_recoding_with_overlapping_cells(hospital):
    """Classes D {1,5,8} 47***/(28,52], B {2,4} 47***/[22-43], A {3,9} 476**/{27,32},
    C {6,7} 47***/[30,47] (order of first row: D, B, A, C). The patients match:
    D: 1, 4, 5, 6, 7, 8, 9 (7); B: 1, 2, 3, 4, 7, 8, 9 (7); A: 3, 9 (2);
    C: 4, 6, 7, 8, 9 (5). delta = 3/7, 2/7, 2/2, 2/5; k-map = 2."""
    cells = {
        "A": ("476**", "{27,32}"),
        "B": ("47***", "[22-43]"),
        "C": ("47***", "[30,47]"),
        "D": ("47***", "(28,52]"),
    }
    group = ["D", "B", "A", "B", "D", "C", "C", "D", "A"]
    release = hospital.copy()
    release["ZIP"] = [cells[g][0] for g in group]
    release["Age"] = [cells[g][1] for g in group]
    result = presence(release, QI, people(hospital))
    assert result.method == "bitset"
    assert result.classes["population"].tolist() == [7, 7, 2, 5]
    assert result.classes["delta"].tolist() == pytest.approx([3 / 7, 2 / 7, 1.0, 2 / 5])
    assert result.delta_presence.minimum == pytest.approx(2 / 7)
    assert result.k_map.k == 2


def test_hierarchy_labels_are_read_through_the_hierarchy(hospital):
    """Age released at level 2 of its hierarchy ('<40' / '>=40' labels) and ZIP at
    level 2 ('476**' / '479**'): classes 476**/<40 (1, 2, 3, 7, 8, 9) and
    479**/>=40 (4, 5, 6); the extra voters add 47671/25, 47672/39 to the first and the
    twin 47909/52 to the second: F = 8, 4; delta = 6/8, 3/4."""
    _, schema = load_sample("hospital")
    release = hospital.copy()
    for q in QI:
        release[q] = schema.hierarchies[q].generalize_values(hospital[q], 2)
    result = presence(release, QI, people(hospital, extra=EXTRA), hierarchies=schema.hierarchies)
    assert result.classes["population"].tolist() == [8, 4]
    assert result.classes["delta"].tolist() == pytest.approx([0.75, 0.75])


def test_frequency_sets_give_the_expanded_figures(hospital):
    release = k3_release(hospital)[QI]
    population = people(hospital, extra=EXTRA)
    release_set = release.drop_duplicates().reset_index(drop=True)  # 3 rows of 3 records
    population_set = population.iloc[[0, 1, 3, 11, 13]].reset_index(drop=True)
    # 4767*: 5 people, 4760*: 3, 4790*: 4 — one roll row per class standing for them;
    # 47601/45 and 10001/30 are in no class
    counts = [5, 3, 4, 1, 1]
    weighted = presence(release_set, QI, population_set, weights=[3, 3, 3], counts=counts)
    plain_ = presence(release, QI, population)
    assert weighted.classes["delta"].tolist() == pytest.approx(plain_.classes["delta"].tolist())
    assert weighted.population_size == 14 and weighted.records == 9
    assert weighted.k_map.k == plain_.k_map.k


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"delta_min": -0.1}, "presence.bad_delta"),
        ({"delta_max": 1.5}, "presence.bad_delta"),
        ({"delta_max": "x"}, "presence.bad_delta"),
        ({"delta_max": True}, "presence.bad_delta"),
        ({"delta_min": 0.8, "delta_max": 0.5}, "presence.bad_delta_order"),
        ({"k": 0}, "presence.bad_k"),
        ({"k": 2.5}, "presence.bad_k"),
        ({"k": True}, "presence.bad_k"),
        ({"weights": [1, 2]}, "linkage.bad_weights"),
        ({"counts": [0] * 14}, "linkage.bad_counts"),
    ],
)
def test_bad_parameters(hospital, kwargs, code):
    with pytest.raises(ParameterError) as caught:
        presence(k3_release(hospital), QI, people(hospital, extra=EXTRA), **kwargs)
    assert caught.value.code == code


def test_bad_tables(hospital):
    with pytest.raises(ParameterError) as caught:
        presence(k3_release(hospital), QI, people(hospital).iloc[:0])
    assert caught.value.code == "presence.empty_population"
    with pytest.raises(RoleError) as missing:
        presence(k3_release(hospital), QI, people(hospital)[["ZIP"]])
    assert missing.value.code == "linkage.missing_columns"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    zips=st.lists(st.integers(47600, 47619), min_size=1, max_size=12),
    extra=st.lists(st.integers(47600, 47629), max_size=12),
    digits=st.integers(3, 5),
)
def test_delta_is_records_over_matching_people(zips, extra, digits):
    """A ZIP masked to ``digits`` digits against a population holding the data set's
    people and others: delta_j = f_j / F_j counted by hand, within (0, 1]; k-map is the
    smallest F_j."""
    frame = pd.DataFrame({"ZIP": zips})
    release = pd.DataFrame({"ZIP": [str(z)[:digits] + "*" * (5 - digits) for z in zips]})
    population = pd.DataFrame({"ZIP": zips + extra})
    result = presence(release, ["ZIP"], population)
    prefixes = [str(z)[:digits] for z in population["ZIP"]]
    for cell, f, delta in zip(
        result.classes["ZIP"], result.classes["records"], result.classes["delta"], strict=True
    ):
        big_f = sum(p == cell[:digits] for p in prefixes)
        assert f == sum(r == cell for r in release["ZIP"])
        assert delta == pytest.approx(f / big_f)
        assert 0 < delta <= 1
    assert result.short_classes == 0
    assert result.k_map.k == min(
        sum(p == c[:digits] for p in prefixes) for c in result.classes["ZIP"]
    )
    assert len(frame) == result.records
