"""What the attacks read once and share gives the answers of reading it each time: the
comparable keys as codes, a roll read once for several releases, the distinct values of
integers, the singling-out candidates counted a few batches at a time."""

import numpy as np
import pandas as pd
import pytest

from privcore.attacks import build_roll, linkage_attack, simulate
from privcore.attacks.distance_linkage import distance_linkage
from privcore.attacks.gdpr_risks.singling_out_risk import singling_out
from privcore.attacks.keys import comparable_codes, comparable_codes_of_both
from privcore.classes import distinct, factorize
from privcore.data.cells import comparable_keys
from privcore.data.roles import is_measurement
from privcore.matching import match_roll, read_roll

COLUMNS = [
    pd.Series(["a", "b", None, "a", "39", "39.0", None]),
    pd.Series(["a", "b", None, "a", "39", "39.0", None], dtype="str"),
    pd.Series([None, "x", "y"]),
    pd.Series([1, 2, 3, 2, 1]),
    pd.Series([1.0, np.nan, 39.0, 2.5, 1.0]),
    pd.Series([39, "39.0", "39", np.nan, "a", None, 4.0, "04"], dtype=object),
    pd.Series(["*", "20-39", "*"], dtype="str"),
    pd.Series([], dtype="str"),
    pd.Series([np.nan, np.nan]),
    pd.Series(pd.Categorical(["a", "b", None, "a"])),
    pd.Series([True, False, None]),
    pd.Series(pd.to_datetime(["2020-01-01", None, "2020-01-02"])),
    pd.Series([1, 1.0, 2**60, 2**60 + 1], dtype=object),
]


def _keys_as_codes(values):
    """The codes and keys of the comparable keys spelt out per row (None: missing)."""
    codes, keys = factorize(comparable_keys(values))
    return codes, [None if pd.isna(k) else k for k in keys]


@pytest.mark.parametrize("values", COLUMNS)
def test_comparable_codes_number_the_keys_as_keying_every_row_does(values):
    codes, keys = comparable_codes(values)
    expected_codes, expected_keys = _keys_as_codes(values)
    assert codes.tolist() == expected_codes.tolist()
    assert keys.tolist() == expected_keys


@pytest.mark.parametrize("first", COLUMNS)
@pytest.mark.parametrize("second", COLUMNS[:8])
def test_codes_of_two_columns_from_the_first_ones_codes(first, second):
    head, tail = comparable_codes_of_both(first, factorize(first)[0], second)
    expected = comparable_codes(pd.concat([first, second], ignore_index=True))[0]
    assert np.concatenate([head, tail]).tolist() == expected.tolist()


def test_distinct_integers_are_those_numpy_finds():
    rng = np.random.default_rng(7)
    for values in (
        rng.integers(-50, 50, 1000),
        rng.integers(0, 2**40, 500).astype(np.uint64),
        np.array([], dtype=np.int64),
        np.array([3], dtype=np.int8),
        rng.random(20) > 0.5,
    ):
        found = distinct(values)
        assert found.dtype == np.unique(values).dtype
        assert found.tolist() == np.unique(values).tolist()


ORIGINAL = pd.DataFrame(
    {
        "zip": ["13053", "13068", "13068", "13053", "14850", "14853", "13053", "14850"],
        "age": [28, 29, 21, 23, 50, 55, 47, 49],
        "disease": ["flu", "cold", "flu", "cancer", "flu", "cold", "cancer", "flu"],
    }
)
RELEASE = pd.DataFrame(
    {
        "zip": ["130**", "130**", "130**", "130**", "148**", "148**", "130**", "148**"],
        "age": ["<30", "<30", "<30", "<30", ">=40", ">=40", ">=40", ">=40"],
        "disease": ORIGINAL["disease"],
    }
)
QI = ["zip", "age"]


def _as_plain(report):
    return (
        report.summary,
        report.targets,
        {k: v for k, v in report.details.items() if k != "timings"},
    )


@pytest.mark.parametrize("release", [ORIGINAL, RELEASE])
def test_a_roll_read_once_matches_and_attacks_as_read_each_time(release):
    roll = build_roll(ORIGINAL, QI, size=40, seed=3).frame
    codes = read_roll(roll, QI)
    for method in ("join", "bitset"):
        if method == "join" and release is RELEASE:
            continue
        once = match_roll(release, QI, roll, method=method, roll_codes=codes)
        again = match_roll(release, QI, roll, method=method)
        for name in ("candidate_classes", "candidate_records", "single_class", "population"):
            assert getattr(once, name).tolist() == getattr(again, name).tolist()
    shared = linkage_attack(release, roll, QI, ["disease"], truth=ORIGINAL, roll_codes=codes)
    alone = linkage_attack(release, roll, QI, ["disease"], truth=ORIGINAL)
    (s1, t1, d1), (s2, t2, d2) = _as_plain(shared), _as_plain(alone)
    assert s1 == s2
    pd.testing.assert_frame_equal(t1, t2)
    assert d1["chain"] == d2["chain"] and d1["candidate_records"] == d2["candidate_records"]


def test_distance_linkage_with_the_roll_read_once_is_the_same():
    roll = build_roll(ORIGINAL, QI, size=40, seed=5).frame
    records = roll["record"].to_numpy()
    codes = read_roll(roll, QI)
    args = (RELEASE.assign(age=ORIGINAL["age"]), roll, records, QI, ["age"])
    shared = distance_linkage(*args, original=ORIGINAL, target_codes=codes)
    assert shared == distance_linkage(*args, original=ORIGINAL)


def test_simulate_reads_the_roll_once_and_its_figures_stay():
    simulation = simulate(ORIGINAL, RELEASE, QI, ["disease"], roll_size=60, seed=2)
    roll = simulation.roll.frame
    for when, release in (("before", ORIGINAL), ("after", RELEASE)):
        alone = linkage_attack(release, roll, QI, ["disease"], truth=ORIGINAL)
        assert simulation.linkage[when].summary == alone.summary
        pd.testing.assert_frame_equal(simulation.linkage[when].targets, alone.targets)
    numeric = [q for q in QI if is_measurement(ORIGINAL[q], q, None)]
    records = roll["record"].to_numpy()
    alone = distance_linkage(RELEASE, roll, records, QI, numeric, original=ORIGINAL)
    assert simulation.distance == alone


@pytest.mark.parametrize(
    ("n_attacks", "max_attempts"), [(3, None), (40, 2500), (200, None), (1000, 999)]
)
def test_singling_out_counts_its_candidates_in_batches_as_one_at_a_time(
    n_attacks, max_attempts, monkeypatch
):
    import privcore.attacks.gdpr_risks.singling_out_risk as risk

    rng = np.random.default_rng(11)
    table = pd.DataFrame(
        {
            "a": rng.integers(0, 6, 400),
            "b": rng.choice(list("pqrstu"), 400),
            "c": rng.integers(0, 90, 400),
        }
    )
    train, control = table.iloc[:300], table.iloc[300:]

    def run():
        return singling_out(
            train, control, train, n_attacks=n_attacks, max_attempts=max_attempts, seed=4
        )

    batched = run()
    assert batched.parameters["queries"] > 0
    monkeypatch.setattr(risk, "_BATCHES_AT_ONCE", 1)
    assert run().to_dict() == batched.to_dict()
