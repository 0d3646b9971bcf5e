"""The linkage attack (SPEC §6, seed 003 §20.3) on hand-computed cases and properties."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from privcore import matching as matching_module
from privcore.anonymize import anonymize
from privcore.attacks.linkage import linkage_attack, match_roll
from privcore.classes import SUPPRESSED
from privcore.data.cells import parse_column
from privcore.data.hierarchy import Hierarchy
from privcore.data.samples import load_sample
from privcore.data.schema import Schema
from privcore.errors import InfeasibleError, ParameterError, RoleError
from privcore.models import KAnonymity

QI = ["ZIP", "Age"]
MATCH_FIELDS = (
    "candidate_classes",
    "candidate_records",
    "single_class",
    "matched_record",
    "population",
)


@pytest.fixture(scope="module")
def hospital() -> pd.DataFrame:
    dataset, _ = load_sample("hospital")
    return dataset.frame


def make_roll(frame: pd.DataFrame, qi, extra: list[tuple] = ()) -> pd.DataFrame:
    """Every row of ``frame`` as a person (record = its row), then ``extra`` people
    (QI values, not in the data set)."""
    roll = frame[list(qi)].copy().reset_index(drop=True)
    roll["record"] = np.arange(len(frame))
    roll["name"] = [f"Patient {i + 1}" for i in range(len(frame))]
    if extra:
        others = pd.DataFrame([list(e) for e in extra], columns=list(qi))
        others["record"] = -1
        others["name"] = [f"Voter {i + 1}" for i in range(len(extra))]
        roll = pd.concat([roll, others], ignore_index=True)
    roll.insert(0, "person_id", np.arange(len(roll)))
    return roll


def k3_release(frame: pd.DataFrame) -> pd.DataFrame:
    """The 9 patients with ZIP masked to 4 digits and Age as <40 / >=40: classes
    {1,3,8} 4767*, {2,7,9} 4760*, {4,5,6} 4790* (1-based rows)."""
    release = frame.copy()
    release["ZIP"] = frame["ZIP"].astype(str).str[:4] + "*"
    release["Age"] = np.where(frame["Age"] < 40, "<40", ">=40")
    return release


def naive_matches(release, qi, roll, hierarchies=None):
    """Reference: per person, test every class cell by cell (loop over people)."""
    hierarchies = hierarchies or {}
    from privcore.classes import equivalence_classes

    classes = equivalence_classes(release, qi)
    per_qi = []
    for q in qi:
        cells = parse_column(release[q], hierarchy=hierarchies.get(q))
        matrix = cells.contains(roll[q].astype(object).reset_index(drop=True))
        per_qi.append(matrix[cells.codes[classes.first_row]])  # classes × people
    n_classes = classes.n_classes
    counts, records = [], []
    population = np.zeros(n_classes, dtype=np.int64)
    for person in range(len(roll)):
        hit = np.ones(n_classes, dtype=bool)
        for matrix in per_qi:
            hit &= matrix[:, person]
        counts.append(int(hit.sum()))
        records.append(int(classes.sizes[hit].sum()))
        population += hit
    return np.array(counts), np.array(records), population


# --------------------------------------------------------------------------- hand cases


def test_hospital_k3_release_hand_computed(hospital):
    release = k3_release(hospital)
    extra = [(47671, 25), (10001, 30), (47909, 52)]  # 4767*/<40, nowhere, patient 5's twin
    roll = make_roll(hospital, QI, extra)
    report = linkage_attack(release, roll, QI, ["Disease", "Salary"], truth=hospital)
    s = report.summary
    assert s["roll_size"] == 12
    assert s["targets"] == 9
    assert s["classes"] == 3
    assert s["unique_matches"] == 0
    assert s["reidentified"] == 0
    assert s["false_matches"] == 0
    assert s["precision"] is None
    # Every class holds 3 different diseases and 3 different salaries.
    assert s["attribute_disclosed"] == {"Disease": 0, "Salary": 0}
    assert s["baseline"] == pytest.approx(1 / 3)
    assert s["suppressed_targets"] == 0
    assert s["targets_outside_own_class"] == 0
    assert s["unparsed_cells"] == {}
    assert s["method"] == "join"
    # Classes in order of first row: 4767* (rows 1,3,8), 4760* (2,7,9), 4790* (4,5,6);
    # F_j: 3 patients each, plus the voter at 47671/25 and the twin of patient 5.
    assert report.details["classes"]["population"].tolist() == [4, 3, 4]
    risk = s["risk"]
    assert risk["prosecutor_max"] == pytest.approx(1 / 3)
    assert risk["prosecutor_avg"] == pytest.approx(3 / 9)
    assert risk["journalist_max"] == pytest.approx(1 / 3)
    assert risk["journalist_avg"] == pytest.approx((3 / 4 + 3 / 3 + 3 / 4) / 9)
    assert risk["marketer"] == pytest.approx((3 / 4 + 3 / 3 + 3 / 4) / 9)

    targets = report.targets
    assert len(targets) == 9
    assert targets["candidate_records"].tolist() == [3] * 9
    assert targets["matched_record"].tolist() == [-1] * 9
    assert not targets["correct"].any()
    assert targets["Disease values"].iloc[0] == "gastric ulcer / pneumonia / stomach cancer"
    assert targets["Disease values"].iloc[3] == "bronchitis / flu / gastritis"
    assert targets["Salary values"].iloc[1] == "4000 / 7000 / 10000"  # numbers in order
    assert not targets["Disease disclosed"].any()

    matches = match_roll(release, QI, roll)
    assert matches.candidate_records.tolist() == [3] * 10 + [0, 3]
    assert matches.single_class.tolist() == [0, 1, 0, 2, 2, 2, 1, 0, 1, 0, -1, 2]


def local_release(frame: pd.DataFrame) -> pd.DataFrame:
    """A hand-made locally recoded release with overlapping cells (1-based rows):
    A {3,9} 476** / {27,32}; B {2,4} 47*** / [22-43]; C {6,7} 47*** / [30,47];
    D {1,5,8} 47*** / (28,52]. Classes in order of first row: D, B, A, C."""
    cells = {
        "A": ("476**", "{27,32}"),
        "B": ("47***", "[22-43]"),
        "C": ("47***", "[30,47]"),
        "D": ("47***", "(28,52]"),
    }
    group = ["D", "B", "A", "B", "D", "C", "C", "D", "A"]
    release = frame.copy()
    release["ZIP"] = [cells[g][0] for g in group]
    release["Age"] = [cells[g][1] for g in group]
    return release


def test_local_release_with_overlapping_cells_hand_computed(hospital):
    release = local_release(hospital)
    roll = make_roll(hospital, QI)
    matches = match_roll(release, QI, roll)
    assert matches.method == "bitset"
    assert matches.classes.sizes.tolist() == [3, 2, 2, 2]  # D, B, A, C
    # Patient 1 (47677, 29): B and D; 2 (47602, 22): B; 3 (47678, 27): A and B;
    # 4 (47905, 43): B, C, D; 5 (47909, 52): D; 6 (47906, 47): C, D;
    # 7 (47605, 30), 8 (47673, 36): B, C, D; 9 (47607, 32): all four.
    assert matches.candidate_classes.tolist() == [2, 1, 2, 3, 1, 2, 3, 3, 4]
    assert matches.candidate_records.tolist() == [5, 2, 4, 7, 3, 5, 7, 7, 9]
    assert matches.single_class.tolist() == [-1, 1, -1, -1, 0, -1, -1, -1, -1]
    assert matches.population.tolist() == [7, 7, 2, 5]
    i, cls = matches.candidate_pairs(np.array([8, 1, 2]))
    assert list(zip(i.tolist(), cls.tolist(), strict=True)) == [
        (0, 0),
        (0, 1),
        (0, 2),
        (0, 3),
        (1, 1),
        (2, 1),
        (2, 2),
    ]
    with pytest.raises(ParameterError) as err:
        match_roll(release, QI, roll, method="join")
    assert err.value.code == "linkage.not_joinable"

    report = linkage_attack(release, roll, QI, ["Disease", "Salary"], truth=hospital)
    s = report.summary
    assert s["unique_matches"] == 0 and s["reidentified"] == 0
    # Patient 2's only candidates are B = {2, 4}: both gastritis, which is theirs.
    assert s["attribute_disclosed"] == {"Disease": 1, "Salary": 0}
    assert s["attribute_wrong"] == {"Disease": 0, "Salary": 0}
    assert report.targets["Disease disclosed"].tolist() == [False, True] + [False] * 7
    assert report.targets["Disease values"].iloc[1] == "gastritis"
    assert report.targets["Disease values"].iloc[2] == "gastritis / stomach cancer"
    assert s["baseline"] == pytest.approx(
        np.mean([1 / 5, 1 / 2, 1 / 4, 1 / 7, 1 / 3, 1 / 5, 1 / 7, 1 / 7, 1 / 9])
    )
    risk = s["risk"]
    assert risk["prosecutor_max"] == pytest.approx(1 / 2)
    assert risk["prosecutor_avg"] == pytest.approx(4 / 9)
    assert risk["journalist_max"] == pytest.approx(1 / 2)
    assert risk["marketer"] == pytest.approx((3 / 7 + 2 / 7 + 2 / 2 + 2 / 5) / 9)
    assert s["targets_outside_own_class"] == 0
    assert s["population_clipped"] == 0
    reference = naive_matches(release, QI, roll)
    assert matches.candidate_classes.tolist() == reference[0].tolist()
    assert matches.candidate_records.tolist() == reference[1].tolist()
    assert matches.population.tolist() == reference[2].tolist()


def test_raw_table_as_release_reidentifies_every_patient(hospital):
    roll = make_roll(hospital, QI, [(47909, 52), (12345, 40)])  # patient 5's twin
    report = linkage_attack(hospital, roll, QI, ["Disease"], truth=hospital)
    s = report.summary
    assert s["classes"] == 9
    assert s["unique_matches"] == 9
    assert s["reidentified"] == 9
    assert s["false_matches"] == 1  # the twin, matched to patient 5's record
    assert s["precision"] == pytest.approx(0.9)
    assert s["attribute_disclosed"] == {"Disease": 9}
    assert s["baseline"] == pytest.approx(1.0)
    assert s["risk"]["prosecutor_max"] == pytest.approx(1.0)
    assert s["risk"]["journalist_max"] == pytest.approx(1.0)
    # Patient 5's class is matched by two people: 1/2; the others by one each.
    assert s["risk"]["journalist_avg"] == pytest.approx((8 + 1 / 2) / 9)
    targets = report.targets
    assert targets["matched_record"].tolist() == list(range(9))
    assert targets["correct"].all()
    assert targets["Disease values"].tolist() == hospital["Disease"].tolist()
    chain = report.details["chain"]
    assert 1 <= len(chain) <= 10
    assert chain[0].startswith("Voter Patient 1, ZIP 47677, Age 29 → release class 47677, 29")
    assert "the right person" in chain[0] and "gastric ulcer: disclosed" in chain[0]


def test_seed_release_does_not_contain_two_patients(hospital):
    dataset, _ = load_sample("hospital_release")
    roll = make_roll(hospital, QI)
    report = linkage_attack(dataset.frame, roll, QI, ["Disease"], truth=hospital)
    s = report.summary
    # Patient 2 (47602) is released as 4767*, patient 8 (47673) as 4760*: each matches
    # the other's class, not their own.
    assert s["targets_outside_own_class"] == 2
    assert s["reidentified"] == 0
    assert any("do not match their own" in e for e in report.explanations)


def test_population_below_class_size_is_clipped_and_noted(hospital):
    release = k3_release(hospital)
    roll = make_roll(hospital, QI).iloc[:3]  # only patients 1-3 in the roll
    report = linkage_attack(release, roll, QI, ["Disease"])
    s = report.summary
    # F = 2 (patients 1, 3), 1 (patient 2), 0 for classes of size 3: all clipped to 3.
    assert report.details["classes"]["population"].tolist() == [2, 1, 0]
    assert s["population_clipped"] == 3
    assert s["risk"]["journalist_max"] == pytest.approx(1 / 3)
    assert any("population count was raised" in e for e in report.explanations)


def test_suppressed_rows_form_no_class_and_match_nobody(hospital):
    release = k3_release(hospital)
    release.loc[8, QI] = SUPPRESSED  # patient 9 suppressed
    roll = make_roll(hospital, QI, [("99999", 99)])
    report = linkage_attack(release, roll, QI, ["Disease"])
    s = report.summary
    assert s["classes"] == 3 and s["suppressed_rows"] == 1
    assert s["suppressed_targets"] == 1
    assert s["targets_outside_own_class"] == 0
    matches = match_roll(release, QI, roll)
    # Patient 9 (47607, 32) still falls in 4760*/<40, now {2, 7}: two records, not theirs.
    assert matches.candidate_records[8] == 2
    # The voter at 99999/99 matches no class, although '*' would contain anything.
    assert matches.candidate_records[9] == 0
    assert matches.population.sum() == 9
    assert s["risk"]["prosecutor_max"] == pytest.approx(1 / 2)


def test_uploaded_release_strings_match_as_written():
    release = pd.DataFrame(
        {
            "age": ["[20,30)", "[20,30)", ">=30", ">=30", "30~39", "30~39", "*"],
            "zip": ["476**", "476**", "479**", "479**", "47***", "47***", "*"],
            "sex": ["{M, F}", "{M, F}", "*", "*", "M", "M", "*"],
            "disease": ["flu", "flu", "ulcer", "cancer", "flu", "asthma", "flu"],
        }
    )
    qi = ["age", "zip", "sex"]
    roll = pd.DataFrame(
        {
            "age": [25, 35, 35, 45, 35, "25", 30, 29.5],
            "zip": ["47601", "47901", "47901", "47901", "47601", "47601", "47601", "47699"],
            "sex": ["M", "F", "M", "M", "M", "F", "F", None],
            "record": [0, 2, 4, -1, -1, -1, -1, -1],
        }
    )
    matches = match_roll(release, qi, roll)
    assert matches.method == "bitset"
    assert matches.classes.n_classes == 3  # the all-'*' row is suppressed
    # 25/47601/M: X; 35/47901/F: Y; 35/47901/M: Y and Z; 45/47901/M: Y; 35/47601/M: Z;
    # "25"/47601/F: X (number as text); 30/47601/F: none ([20,30) excludes 30, Z wants M);
    # 29.5/47699/missing sex: none (a set of M, F holds no missing value).
    assert matches.candidate_classes.tolist() == [1, 1, 2, 1, 1, 1, 0, 0]
    assert matches.candidate_records.tolist() == [2, 2, 4, 2, 2, 2, 0, 0]
    assert matches.population.tolist() == [2, 3, 2]
    report = linkage_attack(release, roll, qi, ["disease"])
    s = report.summary
    assert s["targets"] == 3
    # Person 0 sees X = {flu, flu}: disclosed; person 1 sees Y = {ulcer, cancer}.
    assert s["attribute_disclosed"] == {"disease": 1}
    assert report.targets["disease values"].tolist() == [
        "flu",
        "cancer / ulcer",
        "asthma / cancer / flu / ulcer",
    ]


def test_unparsed_cells_are_reported_and_match_nobody(hospital):
    release = k3_release(hospital)
    release.loc[[0, 2, 7], "ZIP"] = "47*7*"
    roll = make_roll(hospital, QI)
    report = linkage_attack(release, roll, QI, ["Disease"])
    s = report.summary
    assert s["unparsed_cells"] == {"ZIP": ["47*7*"]}
    assert s["unmatched_targets"] == 3
    assert s["population_clipped"] == 1
    assert any("could not be read" in e for e in report.explanations)


# --------------------------------------------------------------------------- report shape


def test_report_shape_and_json(hospital):
    release = k3_release(hospital)
    roll = make_roll(hospital, QI, [(47671, 25)])
    calls = []
    report = linkage_attack(
        release,
        roll,
        QI,
        ["Disease"],
        truth=hospital,
        progress=lambda f, m: calls.append((f, m)),
    )
    assert report.attack == "linkage"
    assert 3 <= len(report.explanations) <= 5
    assert len(report.details["explanation_codes"]) == len(report.explanations)
    assert report.explanations[0].startswith("9 of the 10 people in the voter roll")
    assert list(report.targets.columns) == [
        "person_id",
        "name",
        "ZIP",
        "Age",
        "record",
        "candidate_classes",
        "candidate_records",
        "matched_record",
        "correct",
        "Disease values",
        "Disease disclosed",
    ]
    assert len(report.details["chain"]) == 9
    assert report.details["chain"][3] == (
        "Voter Patient 4, ZIP 47905, Age 43 → release class 4790*, >=40 → 3 candidates "
        "→ Disease bronchitis / flu / gastritis: not disclosed"
    )
    json.dumps(report.to_dict())
    fractions = [f for f, _ in calls]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0


def test_many_values_are_cut_with_an_ellipsis():
    release = pd.DataFrame({"q": ["*"] * 7 + ["x"], "p": [1] * 8, "sa": list("gfedcbaz")})
    roll = pd.DataFrame({"q": ["y"], "p": [1], "record": [0]})
    report = linkage_attack(release, roll, ["q", "p"], ["sa"])
    assert report.targets["sa values"].iloc[0] == "a / b / c / d / e / …"


def test_input_errors(hospital):
    release = k3_release(hospital)
    roll = make_roll(hospital, QI)
    with pytest.raises(RoleError):
        linkage_attack(release, roll.drop(columns="record"), QI, ["Disease"])
    bad = roll.copy()
    bad.loc[0, "record"] = 9
    with pytest.raises(ParameterError):
        linkage_attack(release, bad, QI, ["Disease"])
    with pytest.raises(RoleError):
        linkage_attack(release, roll.drop(columns="Age"), QI, ["Disease"])
    with pytest.raises(RoleError):
        linkage_attack(release, roll, QI, ["Nope"])
    with pytest.raises(ParameterError):
        linkage_attack(release, roll, QI, ["Disease"], truth=hospital.iloc[:5])
    with pytest.raises(ParameterError):
        match_roll(release, QI, roll, method="guess")
    with pytest.raises(ParameterError):
        linkage_attack(release, roll, QI, ["Disease"], risk_threshold=0)


# --------------------------------------------------------------------------- Adult


@pytest.fixture(scope="module")
def adult():
    dataset, schema = load_sample("adult")
    return dataset.frame, schema


def adult_roll(frame: pd.DataFrame, qi, n_embedded: int, n_others: int, seed: int = 0):
    """Some data set rows as themselves, plus people drawn from the QI marginals."""
    rng = np.random.default_rng(seed)
    rows = rng.choice(len(frame), size=n_embedded, replace=False)
    roll = frame.iloc[rows][list(qi)].reset_index(drop=True)
    roll["record"] = rows
    others = pd.DataFrame(
        {q: frame[q].to_numpy()[rng.integers(0, len(frame), n_others)] for q in qi}
    )
    others["record"] = -1
    return pd.concat([roll, others], ignore_index=True)


def full_domain(frame, schema, node, suppress_every=0):
    release = frame.copy()
    for q, level in node.items():
        release[q] = schema.hierarchies[q].generalize_values(frame[q], level).astype(object)
    if suppress_every:
        release.loc[release.index[::suppress_every], list(node)] = SUPPRESSED
    return release


def assert_same_matches(a, b):
    for name in MATCH_FIELDS:
        assert np.array_equal(getattr(a, name), getattr(b, name)), name


def test_join_and_bitset_agree_on_a_full_domain_adult_release(adult):
    frame, schema = adult
    qi = list(schema.quasi_identifiers)
    node = {q: 1 for q in qi}
    node["age"] = 2
    node["sex"] = 0
    release = full_domain(frame, schema, node, suppress_every=97)
    roll = adult_roll(frame, qi, 3000, 5000)
    joined = match_roll(release, qi, roll, hierarchies=schema.hierarchies)
    assert joined.method == "join"
    bits = match_roll(release, qi, roll, hierarchies=schema.hierarchies, method="bitset")
    assert bits.method == "bitset"
    assert_same_matches(joined, bits)
    people = np.arange(0, len(roll), 7)
    for a, b in zip(joined.candidate_pairs(people), bits.candidate_pairs(people), strict=True):
        assert np.array_equal(a, b)
    # Every embedded person matches their own class (full-domain cells contain them).
    own = joined.classes.ids[roll["record"].to_numpy()[:3000]]
    kept = own >= 0
    assert np.array_equal(joined.single_class[:3000][kept], own[kept])
    assert (joined.candidate_records[:3000][~kept] >= 0).all()


def test_join_and_bitset_agree_on_an_optimal_release(adult):
    frame, schema = adult
    subset = frame.iloc[:3000].reset_index(drop=True)
    release = anonymize(subset, schema, [KAnonymity(5)], algorithm="optimal", max_suppression=0.02)
    qi = list(release.qi)
    roll = adult_roll(subset, qi, 1500, 3000, seed=1)
    joined = match_roll(release.frame, qi, roll, hierarchies=schema.hierarchies)
    bits = match_roll(release.frame, qi, roll, hierarchies=schema.hierarchies, method="bitset")
    assert joined.method == "join"
    assert_same_matches(joined, bits)
    report = linkage_attack(
        release.frame, roll, qi, list(release.sa), truth=subset, hierarchies=schema.hierarchies
    )
    assert report.summary["reidentified"] == 0
    assert report.summary["risk"]["prosecutor_max"] <= 1 / 5
    assert report.summary["targets_outside_own_class"] == 0


@pytest.mark.parametrize("algorithm", ["mondrian", "kaca"])
def test_local_recoding_matches_the_naive_reference(adult, algorithm, monkeypatch):
    frame, schema = adult
    subset = frame.iloc[:1200].reset_index(drop=True)
    release = anonymize(subset, schema, [KAnonymity(3)], algorithm=algorithm)
    qi = list(release.qi)
    roll = adult_roll(subset, qi, 300, 300, seed=2)
    # Small chunks, so that the chunked loops run several times.
    monkeypatch.setattr(matching_module, "_WORD_BUDGET", 64)
    monkeypatch.setattr(matching_module, "_BYTE_SLICE", 50)
    matches = match_roll(release.frame, qi, roll, hierarchies=schema.hierarchies)
    counts, records, population = naive_matches(release.frame, qi, roll, schema.hierarchies)
    assert np.array_equal(matches.candidate_classes, counts)
    assert np.array_equal(matches.candidate_records, records)
    assert np.array_equal(matches.population, population)
    report = linkage_attack(
        release.frame, roll, qi, list(release.sa), truth=subset, hierarchies=schema.hierarchies
    )
    s = report.summary
    assert s["unparsed_cells"] == {}
    assert s["targets_outside_own_class"] == 0
    assert s["reidentified"] == 0
    assert s["risk"]["prosecutor_max"] <= 1 / 3


# --------------------------------------------------------------------------- properties

DISEASES = ["flu", "asthma", "ulcer", "cancer", "gastritis"]


def _grouping(draw, name: str, keys: list[str]) -> Hierarchy:
    groups = draw(st.lists(st.integers(0, 2), min_size=len(keys), max_size=len(keys)))
    return Hierarchy([[k, f"{name}.g{g}", "*"] for k, g in zip(keys, groups, strict=True)])


@st.composite
def releases(draw):
    n = draw(st.integers(6, 24))
    domain_a, domain_b = draw(st.integers(2, 6)), draw(st.integers(2, 5))
    a = draw(st.lists(st.integers(0, domain_a - 1), min_size=n, max_size=n))
    b = draw(st.lists(st.integers(0, domain_b - 1), min_size=n, max_size=n))
    frame = pd.DataFrame(
        {
            "a": a,
            "b": [f"c{v}" for v in b],
            "disease": draw(st.lists(st.sampled_from(DISEASES), min_size=n, max_size=n)),
        }
    )
    hierarchies = {
        "a": _grouping(draw, "a", [str(v) for v in range(domain_a)]),
        "b": _grouping(draw, "b", [f"c{v}" for v in range(domain_b)]),
    }
    schema = Schema(
        {"a": "quasi_identifier", "b": "quasi_identifier", "disease": "sensitive"}, hierarchies
    )
    k = draw(st.integers(2, 4))
    algorithm = draw(st.sampled_from(["optimal", "datafly", "mondrian", "kaca"]))
    suppression = draw(st.sampled_from([0.0, 0.1, 0.3]))
    try:
        release = anonymize(
            frame, schema, [KAnonymity(k)], algorithm=algorithm, max_suppression=suppression
        )
    except InfeasibleError:
        assume(False)
    others = draw(
        st.lists(st.tuples(st.integers(0, domain_a - 1), st.integers(0, domain_b - 1)), max_size=10)
    )
    roll = frame[["a", "b"]].copy()
    roll["record"] = np.arange(n)
    extra = pd.DataFrame({"a": [o[0] for o in others], "b": [f"c{o[1]}" for o in others]})
    extra["record"] = -1
    roll = pd.concat([roll, extra], ignore_index=True)
    return frame, hierarchies, release, roll, k


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(releases())
def test_k_anonymous_releases_reidentify_nobody(case):
    """Under prosecutor assumptions every embedded person matches their own class of
    ≥ k ≥ 2 records, so no one has a single candidate; prosecutor risk ≤ 1/k."""
    frame, hierarchies, release, roll, k = case
    assume(release.satisfied)
    report = linkage_attack(
        release.frame, roll, ["a", "b"], ["disease"], truth=frame, hierarchies=hierarchies
    )
    s = report.summary
    event(f"{release.algorithm}: {'no class' if s['classes'] == 0 else 'classes'}, {s['method']}")
    assert s["reidentified"] == 0
    assert s["unique_matches"] == 0
    assert s["targets_outside_own_class"] == 0
    assert s["unparsed_cells"] == {}
    assert s["risk"]["prosecutor_max"] <= 1 / k + 1e-12
    assert s["risk"]["journalist_max"] <= s["risk"]["prosecutor_max"] + 1e-12
    assert s["population_clipped"] == 0
    reference = naive_matches(release.frame, ["a", "b"], roll, hierarchies)
    matches = match_roll(release.frame, ["a", "b"], roll, hierarchies=hierarchies)
    assert matches.candidate_records.tolist() == reference[1].tolist()
    assert matches.population.tolist() == reference[2].tolist()
    if matches.method == "join":
        forced = match_roll(
            release.frame, ["a", "b"], roll, hierarchies=hierarchies, method="bitset"
        )
        assert_same_matches(matches, forced)
