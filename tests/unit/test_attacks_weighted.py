"""The attack simulator on a weighted frequency set (SPEC §6, §9).

An engine hands privcore the distinct rows of a table with their counts; the linkage
attack (with a roll frequency set: rows of people with a ``count``), the homogeneity
attack and ``simulate`` must then give the figures of the same attacks on the expanded
tables — the release's rows repeated by weight, the roll's people by count.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from privcore.anonymize import anonymize
from privcore.attacks import (
    RollFrequencySet,
    VoterRoll,
    build_roll,
    homogeneity_attack,
    linkage_attack,
    roll_frequency_set,
    simulate,
)
from privcore.data.hierarchy import Hierarchy
from privcore.data.schema import Schema
from privcore.errors import InfeasibleError, ParameterError, RoleError
from privcore.matching import match_roll
from privcore.models import KAnonymity

Q, S = "quasi_identifier", "sensitive"
REL = 1e-9
DISEASES = ["flu", "ulcer", "asthma", "cancer"]


# --------------------------------------------------------------------------- helpers


def assert_close(a, b, path: str = "") -> None:
    """Equal, floats to 1e-9 relative (1e-12 absolute near 0), recursively."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), path
        for key in a:
            assert_close(a[key], b[key], f"{path}.{key}")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            assert_close(x, y, f"{path}[{i}]")
    elif isinstance(a, float) or isinstance(b, float):
        if math.isnan(a):
            assert math.isnan(b), path
        else:
            assert b == pytest.approx(a, rel=REL, abs=1e-12), path
    else:
        assert a == b, path


def interval_hierarchy(name: str, domain: int, height: int) -> Hierarchy:
    """Leaves 0..domain-1; level j groups 2**j neighbours (``[0-3]``); the top ``*``."""
    rows = []
    for value in range(domain):
        row = [str(value)]
        for level in range(1, height):
            width = 2**level
            low = value // width * width
            row.append(f"[{low}-{low + width - 1}]")
        rows.append([*row, "*"])
    return Hierarchy(rows, name=name)


def records_case(seed: int) -> tuple[pd.DataFrame, Schema]:
    """100–400 records, 2–3 integer QIs with domains of 2–6 values (hierarchies of
    height 1–3), about 10 % of the QI cells missing in odd seeds, a categorical SA
    (2–4 values) and a numeric one (salaries of 3–6 distinct values)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(100, 401))
    data, roles, hierarchies = {}, {}, {}
    for q in range(int(rng.integers(2, 4))):
        name, domain = f"q{q}", int(rng.integers(2, 7))
        data[name] = rng.integers(0, domain, n)
        hierarchies[name] = interval_hierarchy(name, domain, int(rng.integers(1, 4)))
        roles[name] = Q
    data["disease"] = np.array(DISEASES)[rng.integers(0, int(rng.integers(2, 5)), n)]
    data["salary"] = 1000 * (20 + rng.integers(0, int(rng.integers(3, 7)), n))
    roles["disease"] = roles["salary"] = S
    frame = pd.DataFrame(data)
    if seed % 2:
        for name in hierarchies:
            frame[name] = frame[name].astype(float).mask(rng.random(n) < 0.1)
    return frame, Schema(roles, hierarchies)


def frequency_set(records: pd.DataFrame, seed: int) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """(the distinct rows of ``records`` in a shuffled order, their counts, each
    record's row in it)."""
    columns = list(records.columns)
    grouped = records.groupby(columns, dropna=False, sort=False)
    source = grouped.ngroup().to_numpy()
    table = records.loc[grouped.head(1).index, columns].reset_index(drop=True)
    weights = np.bincount(source, minlength=len(table)).astype(np.int64)
    shuffle = np.random.default_rng(seed).permutation(len(table))
    position = np.empty_like(shuffle)
    position[shuffle] = np.arange(len(shuffle))
    table = table.iloc[shuffle].reset_index(drop=True)
    expanded = table.iloc[position[source]].reset_index(drop=True)
    pd.testing.assert_frame_equal(expanded, records.reset_index(drop=True))
    return table, weights[shuffle], position[source]


def collapsed_roll(roll: VoterRoll, qi: list[str], source: np.ndarray) -> pd.DataFrame:
    """A row-level roll as a roll frequency set: people grouped by QI values and the
    frequency-set row of their record (-1 for the others), with their count."""
    frame = roll.frame[qi].copy()
    record = roll.frame["record"].to_numpy()
    frame["record"] = np.where(record >= 0, source[np.maximum(record, 0)], -1)
    grouped = frame.groupby([*qi, "record"], dropna=False, sort=False)
    out = frame.loc[grouped.head(1).index].reset_index(drop=True)
    out["count"] = grouped.size().to_numpy()
    return out.sample(frac=1.0, random_state=7).reset_index(drop=True)  # any order


def linkage_figures(report) -> dict:
    """The summary and the candidate histogram (no timings, no named examples)."""
    summary = dict(report.summary)
    summary["unparsed_cells"] = {k: sorted(v) for k, v in summary["unparsed_cells"].items()}
    return {"summary": summary, "histogram": report.details["candidate_records"]}


def simulation_figures(sim) -> dict:
    out = sim.to_dict()
    out.pop("seconds")
    roll = out.pop("roll")
    out["people"] = roll["size"]
    out["embedded"] = roll["embedded"]
    return out


# --------------------------------------------------------------------------- by hand


def hand_case() -> tuple[pd.DataFrame, np.ndarray, pd.DataFrame, pd.DataFrame]:
    """A frequency set of 4 rows standing for 1, 2, 1 and 3 records (7), its release
    and a roll frequency set of 7 rows (18 people)."""
    original = pd.DataFrame(
        {
            "zip": [1000, 1000, 2000, 2000],
            "age": [20, 25, 30, 35],
            "disease": ["flu", "cold", "cold", "flu"],
            "salary": [100, 200, 300, 340],
        }
    )
    weights = np.array([1, 2, 1, 3], dtype=np.int64)
    release = original.copy()
    release["zip"] = release["zip"].astype(str)
    release["age"] = ["20", "25", "[30-39]", "[30-39]"]
    roll = pd.DataFrame(
        {
            "zip": [1000, 1000, 2000, 2000, 1000, 2000, 3000],
            "age": [20, 25, 30, 35, 20, 33, 40],
            "record": [0, 1, 2, 3, -1, -1, -1],
            "count": [1, 2, 1, 3, 2, 5, 4],
        }
    )
    return original, weights, release, roll


def expand(frame: pd.DataFrame, counts: np.ndarray) -> pd.DataFrame:
    return frame.loc[frame.index.repeat(counts)].reset_index(drop=True)


def test_linkage_on_a_hand_counted_frequency_set():
    """Classes of the release (records): A = (1000, 20) holds row 0 (1 record),
    B = (1000, 25) row 1 (2 records), C = (2000, [30-39]) rows 2 and 3 (1 + 3 = 4).
    Roll rows (people): r0 → A (1 candidate record, their own: re-identified, 1 person);
    r1 → B (2 candidates, 2 people); r2, r3 → C (4 candidates, 1 + 3 people); r4 → A,
    not in the data set: 2 false matches; r5 → C, 5 others; r6 (3000, 40) → nothing.
    targets = 1 + 2 + 1 + 3 = 7; unique matches = 1 (r0); reidentified = 1;
    false matches = 2; precision = 1 / 3; roll size = 18.
    disease disclosed: A {flu} r0 1, B {cold} r1 2, C {cold, flu} no: 3, wrong 0.
    salary disclosed: r0 1 + r1 2 = 3; within ±10 %: C holds 300 and 340, so r2 (300:
    270–330) and r3 (340: 306–374) learn nothing; r0, r1 do: 3.
    baseline = (1·1 + 2·½ + 1·¼ + 3·¼) / 7 = 3/7.
    F: A = 1 + 2 = 3, B = 2, C = 1 + 3 + 5 = 9; n = 7 records, f = 1, 2, 4:
    prosecutor max 1, avg 3/7; journalist max ½, avg = marketer = (1/3 + 1 + 4/9)/7
    = 16/63; at risk (1/f > 0.3): f = 1, 2: 3/7.
    Histogram of candidate records over the 7 targets: 1: 1, 2: 2, 3–5: 4."""
    original, weights, release, roll = hand_case()
    qi, sa = ["zip", "age"], ["disease", "salary"]
    report = linkage_attack(
        release, roll, qi, sa, truth=original, weights=weights, risk_threshold=0.3
    )
    s = report.summary
    assert (s["targets"], s["unique_matches"], s["reidentified"], s["false_matches"]) == (
        7,
        1,
        1,
        2,
    )
    assert s["precision"] == pytest.approx(1 / 3)
    assert s["roll_size"] == 18
    assert s["attribute_disclosed"] == {"disease": 3, "salary": 3}
    assert s["attribute_wrong"] == {"disease": 0, "salary": 0}
    assert s["attribute_within_tolerance"] == {"salary": 3}
    assert s["baseline"] == pytest.approx(3 / 7)
    assert (s["suppressed_targets"], s["targets_outside_own_class"]) == (0, 0)
    assert (s["unmatched_targets"], s["population_clipped"], s["suppressed_rows"]) == (0, 0, 0)
    risk = s["risk"]
    assert risk["prosecutor_max"] == 1.0
    assert risk["prosecutor_avg"] == pytest.approx(3 / 7)
    assert risk["journalist_max"] == pytest.approx(1 / 2)
    assert risk["journalist_avg"] == pytest.approx(16 / 63)
    assert risk["marketer"] == pytest.approx(16 / 63)
    assert risk["records_at_risk"] == pytest.approx(3 / 7)
    assert report.details["candidate_records"] == {
        "0": 0,
        "1": 1,
        "2": 2,
        "3-5": 4,
        "6-10": 0,
        "11-100": 0,
        ">100": 0,
    }
    assert report.details["classes"]["size"].tolist() == [1, 2, 4]
    assert report.details["classes"]["population"].tolist() == [3, 2, 9]
    # One row per target roll row, with its people; a frequency set names nobody.
    assert report.targets["people"].tolist() == [1, 2, 1, 3]
    assert report.targets["name"].isna().all() and report.targets["person_id"].isna().all()
    assert report.details["chain"] == [] and report.details["chain_steps"] == []

    # The expanded tables give the same figures: row i's records are first[i] onwards,
    # the k-th person of a roll row with record i is record first[i] + k.
    counts = roll["count"].to_numpy()
    people = expand(roll, counts).drop(columns="count")
    k = np.arange(len(people)) - np.repeat(np.cumsum(counts) - counts, counts)
    first = np.cumsum(weights) - weights
    own = people["record"].to_numpy()
    people["record"] = np.where(own >= 0, first[np.maximum(own, 0)] + k, -1)
    rows = linkage_attack(
        expand(release, weights),
        people,
        qi,
        sa,
        truth=expand(original, weights),
        risk_threshold=0.3,
    )
    assert_close(linkage_figures(rows), linkage_figures(report))


def test_homogeneity_on_a_hand_counted_frequency_set():
    """Classes A {flu: 1}, B {cold: 2}, C {cold: 1, flu: 3} (records).
    τ = 1: A and B exposed, 1 + 2 = 3 of 7 records; C's top share is 3/4.
    τ = 0.75: all three, 7 records; row counts would give C a share of 1/2."""
    _, weights, release, _ = hand_case()
    single = homogeneity_attack(release, ["zip", "age"], ["disease"], weights=weights)
    s = single.summary
    assert (s["classes_exposed"], s["records_exposed"], s["records"], s["classes"]) == (2, 3, 7, 3)
    assert s["records_exposed_share"] == pytest.approx(3 / 7)
    assert single.targets["size"].tolist() == [1, 2]
    np.testing.assert_allclose(single.details["top_share"]["disease"], [1, 1, 0.75])
    top = homogeneity_attack(release, ["zip", "age"], ["disease"], weights=weights, tau=0.75)
    assert (top.summary["classes_exposed"], top.summary["records_exposed"]) == (3, 7)
    assert top.targets["count"].tolist() == [1, 2, 3]
    plain = homogeneity_attack(release, ["zip", "age"], ["disease"], tau=0.75)
    assert plain.summary["classes_exposed"] == 2  # rows, not records: C is 1 of 2


def test_match_roll_counts_records_and_people():
    """Candidate records count records (C: 4), F_j counts people (C: 9)."""
    _, weights, release, roll = hand_case()
    matches = match_roll(release, ["zip", "age"], roll, weights=weights, counts=roll["count"])
    assert matches.candidate_records.tolist() == [1, 2, 4, 4, 1, 4, 0]
    assert matches.matched_record.tolist() == [0, -1, -1, -1, 0, -1, -1]
    assert matches.population.tolist() == [3, 2, 9]
    assert matches.classes.sizes.tolist() == [1, 2, 4]
    assert matches.n_people == 18
    plain = match_roll(release, ["zip", "age"], roll)
    assert plain.candidate_records.tolist() == [1, 1, 2, 2, 1, 2, 0]
    assert plain.population.tolist() == [2, 1, 3] and plain.n_people == 7  # rows


def test_simulate_on_a_hand_counted_frequency_set():
    """The original's classes are its 4 rows (1, 2, 1, 3 records); with the hand roll,
    before: r0 and r4 match row 0 (1 record): 1 re-identified, 2 false matches; r1 → 2
    candidates, r3 → 3; r2 → row 2 (1 record, theirs): re-identified. So 2 of 7 targets
    are re-identified before, 1 after."""
    original, weights, release, roll = hand_case()
    sim = simulate(original, release, ["zip", "age"], ["disease"], weights=weights, roll=roll)
    out = sim.to_dict()
    assert out["before"]["linkage"]["reidentified"] == 2
    assert out["before"]["linkage"]["unique_matches"] == 2
    assert out["before"]["linkage"]["false_matches"] == 2
    assert out["linkage"]["reidentified"] == 1
    assert out["homogeneity"]["records_exposed"] == 3
    assert out["roll"]["size"] == 18 and out["roll"]["seed"] is None
    assert out["roll"]["embedded"] == 7 and out["roll"]["rows"] == 7
    for key in ("linkage", "homogeneity", "risk", "before", "roll", "seconds"):
        assert key in out


# --------------------------------------------------------------------------- equivalence

CASES = [(seed, algorithm) for seed in range(5) for algorithm in ("optimal", "mondrian")]


@pytest.mark.parametrize(("seed", "algorithm"), CASES)
def test_weighted_attacks_equal_the_expanded_tables(seed, algorithm):
    """Generated records and their frequency set (shuffled); a release of the frequency
    set; a row-level roll of the records collapsed into a roll frequency set. Every
    figure of the weighted attacks equals that of the expanded tables."""
    records, schema = records_case(seed)
    qi, sa = list(schema.quasi_identifiers), list(schema.sensitive)
    table, weights, source = frequency_set(records, seed)
    try:
        made = anonymize(
            table,
            schema,
            [KAnonymity(3)],
            algorithm=algorithm,
            max_suppression=0.1 if seed % 2 == 0 else 0.0,
            weights=weights,
        )
    except InfeasibleError:
        pytest.skip("no release under these constraints")
    release = made.frame
    expanded_release = release.iloc[source].reset_index(drop=True)
    hierarchies = dict(schema.hierarchies)

    # Rolls of 1× (the data set's people alone: many unique matches) to 6.5× the records.
    factor = (1.0, 1.5, 3.0, 1.2, 6.5)[seed % 5]
    voters = build_roll(records, qi, joint=True, seed=seed, size=int(len(records) * factor))
    roll = collapsed_roll(voters, qi, source)
    assert roll["count"].sum() == len(voters.frame)

    # The release, then the original table as its own "release" (the attack before).
    for attacked, known in ((release, hierarchies), (table, None)):
        rows = linkage_attack(
            attacked.iloc[source].reset_index(drop=True),
            voters.frame,
            qi,
            sa,
            truth=records,
            hierarchies=known,
            tolerance=0.05,
        )
        weighted = linkage_attack(
            attacked,
            roll,
            qi,
            sa,
            truth=table,
            hierarchies=known,
            tolerance=0.05,
            weights=weights,
        )
        assert_close(linkage_figures(rows), linkage_figures(weighted))
        assert weighted.summary["targets"] == len(records)

    for tau in (1.0, 0.6):
        rows = homogeneity_attack(expanded_release, qi, sa, tau=tau)
        weighted = homogeneity_attack(release, qi, sa, tau=tau, weights=weights)
        assert_close(rows.summary, weighted.summary)
        assert sorted(rows.targets["size"]) == sorted(weighted.targets["size"])
    # A Release made from a frequency set is attacked with its own weights.
    assert_close(
        homogeneity_attack(made).summary, homogeneity_attack(expanded_release, qi, sa).summary
    )

    rows = simulate(records, expanded_release, qi, sa, roll=voters, hierarchies=hierarchies)
    weighted = simulate(table, release, qi, sa, weights=weights, roll=roll, hierarchies=hierarchies)
    assert_close(simulation_figures(rows), simulation_figures(weighted))


# --------------------------------------------------------------------------- the roll


def small_frequency_set() -> tuple[pd.DataFrame, np.ndarray]:
    """Five rows, four distinct QI tuples (rows 0 and 4 share one, with other SAs), a
    missing value; 1 + 4 + 2 + 3 + 5 = 15 records; tuple shares 6, 4, 2, 3 of 15."""
    frame = pd.DataFrame(
        {
            "zip": ["4767", "4790", "4790", None, "4767"],
            "age": [29.0, 43.0, np.nan, 30.0, 29.0],
            "disease": ["flu", "flu", "cold", "ulcer", "cold"],
        }
    )
    return frame, np.array([1, 4, 2, 3, 5], dtype=np.int64)


def test_roll_frequency_set_holds_each_record_once_and_size_people():
    frame, weights = small_frequency_set()
    roll = roll_frequency_set(frame, ["zip", "age"], weights=weights, size=100, seed=3)
    assert isinstance(roll, RollFrequencySet)
    out = roll.frame
    assert list(out.columns) == ["zip", "age", "record", "count"]
    assert out["count"].sum() == 100 and roll.size == 100 and roll.embedded == 15
    ours = out[out["record"] >= 0]
    assert ours["record"].tolist() == [0, 1, 2, 3, 4]
    assert ours["count"].tolist() == weights.tolist()
    pd.testing.assert_frame_equal(
        ours[["zip", "age"]].reset_index(drop=True), frame[["zip", "age"]]
    )
    others = out[out["record"] < 0]
    assert (others["count"] >= 1).all()
    tuples = set(map(tuple, frame[["zip", "age"]].astype(str).to_numpy()))
    assert set(map(tuple, others[["zip", "age"]].astype(str).to_numpy())) <= tuples
    assert not others[["zip", "age"]].astype(str).duplicated().any()  # one row per tuple
    assert roll.to_dict() == {
        "size": 100,
        "embedded": 15,
        "qi": ["zip", "age"],
        "locale": None,
        "seed": 3,
        "joint": True,
        "as_of": None,
        "rows": len(out),
    }


def test_roll_frequency_set_default_size_and_seed():
    frame, weights = small_frequency_set()
    default = roll_frequency_set(frame, ["zip", "age"], weights=weights)
    assert default.size == 150  # 10 × 15 records
    again = roll_frequency_set(frame, ["zip", "age"], weights=weights)
    pd.testing.assert_frame_equal(default.frame, again.frame)
    other = roll_frequency_set(frame, ["zip", "age"], weights=weights, seed=1)
    assert not default.frame["count"].equals(other.frame["count"])


def test_roll_frequency_set_draws_tuples_in_proportion():
    """10⁶ − 15 other people over tuple shares 6/15, 4/15, 2/15, 3/15: each count within
    6 standard deviations of its expectation (a loose check)."""
    frame, weights = small_frequency_set()
    size = 1_000_000
    roll = roll_frequency_set(frame, ["zip", "age"], weights=weights, size=size, seed=11)
    others = roll.frame[roll.frame["record"] < 0]
    assert len(others) == 4
    key = others["zip"].fillna("-") + "|" + others["age"].fillna(-1).astype(str)
    observed = dict(zip(key, others["count"], strict=True))
    shares = {"4767|29.0": 6, "4790|43.0": 4, "4790|-1.0": 2, "-|30.0": 3}
    m = size - 15
    for tuple_key, share in shares.items():
        p = share / 15
        assert abs(observed[tuple_key] - m * p) < 6 * math.sqrt(m * p * (1 - p)), tuple_key


def test_roll_frequency_set_limit_counts_rows_not_people(monkeypatch):
    frame, weights = small_frequency_set()
    monkeypatch.setenv("PRIVCORE_MAX_ROLL", "9")
    roll = roll_frequency_set(frame, ["zip", "age"], weights=weights, size=10**9)
    assert roll.size == 10**9 and roll.rows == 9  # 5 data set rows + 4 tuples
    monkeypatch.setenv("PRIVCORE_MAX_ROLL", "8")
    with pytest.raises(ParameterError) as error:
        roll_frequency_set(frame, ["zip", "age"], weights=weights, size=10**9)
    assert error.value.code == "roll.rows_too_large"
    assert error.value.params["rows"] == 9


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"size": 14}, "roll.size_too_small"),
        ({"size": 20.5}, "roll.size_type"),
        ({"seed": -1}, "roll.seed"),
        ({"weights": [1, 2, 0, 1, 1]}, "roll.bad_weights"),
        ({"weights": [1, 2, 1]}, "roll.bad_weights"),
        ({"weights": [1.5, 2, 1, 1, 1]}, "roll.bad_weights"),
    ],
)
def test_roll_frequency_set_bad_parameters(kwargs, code):
    frame, weights = small_frequency_set()
    arguments = {"weights": weights, **kwargs}
    with pytest.raises(ParameterError) as error:
        roll_frequency_set(frame, ["zip", "age"], **arguments)
    assert error.value.code == code


def test_roll_frequency_set_bad_qis():
    frame, weights = small_frequency_set()
    with pytest.raises(RoleError) as error:
        roll_frequency_set(frame.rename(columns={"zip": "count"}), ["count"], weights=weights)
    assert error.value.code == "roll.reserved_column"
    with pytest.raises(RoleError):
        roll_frequency_set(frame, ["town"], weights=weights)
    with pytest.raises(ParameterError) as error:
        roll_frequency_set(frame.iloc[:0], ["zip"], weights=[])
    assert error.value.code == "roll.empty_dataset"


def test_simulate_draws_a_roll_frequency_set():
    original, weights, release, _ = hand_case()
    sim = simulate(
        original, release, ["zip", "age"], ["disease"], weights=weights, roll_size=70, seed=4
    )
    assert isinstance(sim.roll, RollFrequencySet)
    expected = roll_frequency_set(original, ["zip", "age"], weights=weights, size=70, seed=4)
    pd.testing.assert_frame_equal(sim.roll.frame, expected.frame)
    out = sim.to_dict()
    assert out["roll"]["size"] == 70 and out["roll"]["seed"] == 4
    assert out["linkage"]["targets"] == 7


# --------------------------------------------------------------------------- errors


def test_bad_weighted_inputs():
    original, weights, release, roll = hand_case()
    qi = ["zip", "age"]
    with pytest.raises(RoleError) as error:
        linkage_attack(release, roll.drop(columns="count"), qi, ["disease"], weights=weights)
    assert error.value.code == "linkage.no_count"
    too_many = roll.assign(count=[1, 3, 1, 3, 2, 5, 4])  # 3 people, 2 records in row 1
    with pytest.raises(ParameterError) as error:
        linkage_attack(release, too_many, qi, ["disease"], weights=weights)
    assert error.value.code == "linkage.roll_counts"
    assert error.value.params["row"] == 1
    with pytest.raises(ParameterError) as error:
        linkage_attack(release, roll.assign(count=0), qi, ["disease"], weights=weights)
    assert error.value.code == "linkage.bad_counts"
    with pytest.raises(ParameterError) as error:
        linkage_attack(release, roll, qi, ["disease"], weights=[1, 2, 1])
    assert error.value.code == "linkage.bad_weights"
    with pytest.raises(ParameterError) as error:
        homogeneity_attack(release, qi, ["disease"], weights=[1, 2, -1, 3])
    assert error.value.code == "homogeneity.bad_weights"
    voters = build_roll(expand(original, weights), qi, seed=0)
    with pytest.raises(ParameterError) as error:
        simulate(original, release, qi, ["disease"], weights=weights, roll=voters)
    assert error.value.code == "attack.roll_not_frequency_set"
    with pytest.raises(ParameterError) as error:
        simulate(original, release, qi, ["disease"], roll=roll)
    assert error.value.code == "attack.roll_needs_weights"
    with pytest.raises(ParameterError) as error:
        simulate(original, release, qi, ["disease"], weights=[1, 1, 1, 1.5])
    assert error.value.code == "attack.bad_weights"
