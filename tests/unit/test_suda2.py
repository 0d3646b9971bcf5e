"""SUDA2 (privcore.measure.suda2; SPEC §11): minimal sample uniques, SUDA and DIS scores,
special uniques and attribute contributions, on tables whose MSUs are enumerated by hand
(sdcMicro's documented examples among them) and against a brute-force enumeration of
every QI subset."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from privcore.errors import CancelledError, ParameterError, RoleError
from privcore.measure.suda2 import Suda2Result, dis_scores, suda2


@pytest.fixture
def book():
    """The 8-record example of Templ's *Statistical Disclosure Control for Microdata*
    (2017), also in sdcMicro's tests: SUDA scores of records 5–8 are 4, 2, 6, 8."""
    return pd.DataFrame(
        {
            "age": ["20s"] * 7 + ["60s"],
            "gender": ["male"] * 4 + ["female"] * 3 + ["male"],
            "income": ["50k+"] * 2 + ["50k-"] * 6,
            "education": ["high"] * 4 + ["univ", "high", "middle", "univ"],
        }
    )


def test_book_example_msus_and_scores(book):
    result = suda2(book, list(book.columns))
    # Records 1-4 come in two identical pairs: no MSU. By hand (M = 4, (M-k)! per MSU):
    # 5 (20s, female, 50k-, univ): {age, education}, {gender, education} -> 2 + 2 = 4
    # 6 (20s, female, 50k-, high): {gender, education} -> 2
    # 7 (20s, female, 50k-, middle): {education} -> 3! = 6
    # 8 (60s, male, 50k-, univ): {age}, {gender, education} -> 6 + 2 = 8
    assert [result.msus(i) for i in range(4)] == [[], [], [], []]
    assert result.msus(4) == [("age", "education"), ("gender", "education")]
    assert result.msus(5) == [("gender", "education")]
    assert result.msus(6) == [("education",)]
    assert result.msus(7) == [("age",), ("gender", "education")]
    assert result.scores.tolist() == [0, 0, 0, 0, 4, 2, 6, 8]
    assert result.msu_counts == {1: 2, 2: 4, 3: 0, 4: 0}
    assert result.record_msu_counts[7].tolist() == [1, 1, 0, 0]
    assert result.sample_uniques == 4 and result.special_uniques == 4
    # contributions: age 2 (rec 5) + 6 (rec 8) = 8; gender 2 + 2 + 2 = 6;
    # education 2 + 2 + 2 + 6 + 2 = 14; income 0; over the total score 20
    assert result.attribute_contributions == pytest.approx(
        {"age": 40.0, "gender": 30.0, "income": 0.0, "education": 70.0}
    )
    # record 8: age 6/8, gender 2/8, education 2/8
    assert result.record_contributions[7].tolist() == pytest.approx([0.75, 0.25, 0, 0.25])


def test_book_example_dis_scores(book):
    """DIS by hand: U = 4 sample uniques, P = 4 records in pairs, pi = 0.01, M = 4 so
    Q = 1 + 4/20 = 1.2; U/DIS - U = P(1 - pi)/pi = 396;
    A = 4^-1.2 + 2^-1.2 + 6^-1.2 + 8^-1.2 = 0.189465 + 0.435275 + 0.116471 + 0.082469
      = 0.823680;
    score 8: 1/(1 + 396/(8^1.2 A)) = 1/(1 + 396/(12.12573 * 0.823680)) = 0.0246011,
    score 4: 1/(1 + 396/(5.27803 * 0.823680)) = 0.0108591,
    score 2: 1/(1 + 396/(2.29740 * 0.823680)) = 0.0047559,
    score 6: 1/(1 + 396/(8.58581 * 0.823680)) = 0.0175452."""
    result = suda2(book, list(book.columns))
    assert result.dis_scores[:4].tolist() == [0, 0, 0, 0]
    assert result.dis_scores[4:].tolist() == pytest.approx(
        [0.0108591, 0.0047559, 0.0175452, 0.0246011], rel=1e-4
    )
    # With no pairs (P = 0) every scored record has DIS 1; pi = 1 gives the same.
    assert dis_scores(np.array([0.0, 2.0, 6.0]), 4, 2, 0, 0.01).tolist() == [0, 1, 1]
    assert dis_scores(np.array([2.0, 6.0]), 4, 2, 4, 1.0).tolist() == [1, 1]
    # pi = 0.5: U/DIS - U = 4; scores 2 and 6 with Q = 1.2: A = 0.435275 + 0.116471
    # -> 1/(1 + 4/(2.29740 * 0.551746)) = 0.240629
    assert dis_scores(np.array([2.0, 6.0]), 4, 2, 4, 0.5)[0] == pytest.approx(0.240629, rel=1e-4)


def test_sdc_guideline_example():
    """The sdcMicro guideline's 10-record example: scores 0,0,6,0,12,0,6,10,0,0."""
    frame = pd.DataFrame(
        {
            "residence": ["U", "U", "U", "U", "R", "U", "U", "U", "U", "U"],
            "gender": ["F", "F", "F", "M", "F", "M", "F", "M", "F", "F"],
            "education": ["S-", "S-", "P-", "S+", "S+", "S+", "P+", "post", "S-", "S-"],
            "labor": ["emp", "emp", "non", "emp", "unemp", "emp", "non", "unemp", "non", "non"],
        }
    )
    result = suda2(frame, list(frame.columns))
    assert result.scores.tolist() == [0, 0, 6, 0, 12, 0, 6, 10, 0, 0]
    # record 5 (R, F, S+, unemp): {residence} 3! plus {gender, education},
    # {gender, labor}, {education, labor} at 2! each = 6 + 2 + 2 + 2
    assert result.msus(4) == [
        ("residence",),
        ("gender", "education"),
        ("gender", "labor"),
        ("education", "labor"),
    ]


def test_sdcmicro_contribution_example():
    """sdcMicro's test: a = (2,1,1), b = (0,3,0), c = (0,6,0) -> contributions 50, 37.5,
    37.5 %. By hand (M = 3): record 1 {a} 2!; record 2 {b}, {c} 2! each; record 3
    {a,b}, {a,c} 1! each; total 8; a: 2 + 1 + 1 = 4, b: 2 + 1 = 3, c: 3."""
    frame = pd.DataFrame({"a": [2, 1, 1], "b": [0, 3, 0], "c": [0, 6, 0]})
    result = suda2(frame, ["a", "b", "c"])
    assert result.scores.tolist() == [2, 4, 2]
    assert result.attribute_contributions == pytest.approx({"a": 50.0, "b": 37.5, "c": 37.5})
    np.testing.assert_allclose(
        result.record_contributions, [[1, 0, 0], [0, 0.5, 0.5], [1, 0.5, 0.5]]
    )


@pytest.mark.parametrize("blank", [None, "*"])
def test_a_missing_or_suppressed_cell_is_in_no_msu_and_equals_nothing(blank):
    """By hand, M = 3, rows (a,x,-), (a,y,p), (b,x,p), (b,-,q):
    row 0: {A,B} ((a,x) once) -> 1! = 1;
    row 1: {B} (y once) -> 2!, {A,C} ((a,p) once) -> 1! ; score 3;
    row 2: {A,B}, {A,C}, {B,C} (row 0's blank C and row 3's blank B equal nothing) -> 3;
    row 3: {C} (q once) -> 2; its blank B (alone on B as a value) is no MSU."""
    frame = pd.DataFrame(
        {"A": ["a", "a", "b", "b"], "B": ["x", "y", "x", blank], "C": [blank, "p", "p", "q"]}
    )
    result = suda2(frame, ["A", "B", "C"])
    assert [result.msus(i) for i in range(4)] == [
        [("A", "B")],
        [("B",), ("A", "C")],
        [("A", "B"), ("A", "C"), ("B", "C")],
        [("C",)],
    ]
    assert result.scores.tolist() == [1, 3, 3, 2]
    assert result.sample_uniques == 4 and result.special_uniques == 4


def test_a_record_unique_only_on_every_qi_is_no_special_unique():
    """(a,x), (a,y), (b,x), (b,y): each record is unique on {A,B} only -- an MSU of the
    full size M = 2, scoring (2-2)! = 1 -- so 4 sample uniques, no special unique."""
    frame = pd.DataFrame({"A": ["a", "a", "b", "b"], "B": ["x", "y", "x", "y"]})
    result = suda2(frame, ["A", "B"])
    assert result.scores.tolist() == [1, 1, 1, 1]
    assert result.msu_counts == {1: 0, 2: 4}
    assert result.sample_uniques == 4 and result.special_uniques == 0


def test_max_size_limits_the_search(book):
    result = suda2(book, list(book.columns), max_size=1)
    # only the 1-MSUs: record 7 {education}, record 8 {age}, at 3! each
    assert result.scores.tolist() == [0, 0, 0, 0, 0, 0, 6, 6]
    assert result.msu_counts == {1: 2}
    assert result.record_msu_counts.shape == (8, 1)
    assert result.special_uniques == 2 and result.sample_uniques == 4
    assert result.to_dict()["max_size"] == 1


def test_a_weighted_frequency_set_gives_the_expanded_figures(book):
    """The book example as a frequency set: the two pairs become rows of weight 2."""
    frequency_set = book.drop_duplicates().reset_index(drop=True)
    weights = [2, 2, 1, 1, 1, 1]
    result = suda2(frequency_set, list(book.columns), weights=weights)
    assert result.scores.tolist() == [0, 0, 4, 2, 6, 8]
    full = suda2(book, list(book.columns))
    assert result.dis_scores.tolist() == pytest.approx(full.dis_scores[2:].tolist())
    assert result.n_records == 8 and result.sample_uniques == 4
    assert result.attribute_contributions == pytest.approx(full.attribute_contributions)


def test_edge_tables():
    empty = suda2(pd.DataFrame({"A": [], "B": []}), ["A", "B"])
    assert empty.scores.tolist() == [] and empty.special_uniques == 0
    assert empty.to_dict()["max_score"] == 0.0
    # one record: unique on each QI alone (no MSU is empty), as sdcMicro counts it
    one = suda2(pd.DataFrame({"A": [1], "B": [2]}), ["A", "B"])
    assert one.msus(0) == [("A",), ("B",)] and one.scores.tolist() == [2]
    # no sample unique at all
    same = suda2(pd.DataFrame({"A": [1, 1], "B": [2, 2]}), ["A", "B"])
    assert same.scores.tolist() == [0, 0] and same.dis_scores.tolist() == [0, 0]
    assert same.attribute_contributions == {"A": 0.0, "B": 0.0}


def test_progress_is_reported_and_can_cancel(book):
    seen = []
    suda2(book, list(book.columns), progress=lambda f, m: seen.append(f))
    assert seen and seen[-1] == 1.0 and seen == sorted(seen)

    def stop(fraction, message):
        raise CancelledError("stopped")

    with pytest.raises(CancelledError):
        suda2(book, list(book.columns), progress=stop)


def test_to_dict_is_plain_json(book):
    data = suda2(book, list(book.columns)).to_dict()
    assert data["special_uniques"] == 4
    assert data["msu_counts"] == {"1": 2, "2": 4, "3": 0, "4": 0}
    assert data["max_score"] == 8.0
    import json

    json.dumps(data)


@pytest.mark.parametrize(
    ("kwargs", "error", "code"),
    [
        ({"qi": []}, RoleError, "roles.no_qi"),
        ({"qi": ["age", "zip"]}, RoleError, "roles.unknown_columns"),
        ({"max_size": 0}, ParameterError, "suda2.bad_max_size"),
        ({"max_size": 5}, ParameterError, "suda2.bad_max_size"),
        ({"max_size": 1.5}, ParameterError, "suda2.bad_max_size"),
        ({"dis_fraction": 0}, ParameterError, "suda2.bad_dis_fraction"),
        ({"dis_fraction": 1.5}, ParameterError, "suda2.bad_dis_fraction"),
        ({"dis_fraction": "x"}, ParameterError, "suda2.bad_dis_fraction"),
        ({"weights": [1] * 7}, ParameterError, "suda2.bad_weights"),
        ({"weights": [0] * 8}, ParameterError, "suda2.bad_weights"),
    ],
)
def test_bad_input_raises_user_errors(book, kwargs, error, code):
    kwargs = {"qi": list(book.columns), **kwargs}
    with pytest.raises(error) as caught:
        suda2(book, **kwargs)
    assert caught.value.code == code


# --------------------------------------------------------------------------- brute force


def brute_force(frame: pd.DataFrame, qi, *, weights=None, max_size=None) -> set[tuple[int, int]]:
    """Every (row, subset mask) MSU by the definition, over every QI subset: the row is
    present on the subset (no missing or '*' cell), the records sharing its values there
    weigh 1, and on each immediate subset they weigh more."""
    n, m = len(frame), len(qi)
    weight = [1] * n if weights is None else list(weights)
    cells = [[None if pd.isna(v) or v == "*" else v for v in frame[q]] for q in qi]

    def unique(row: int, subset: tuple[int, ...]) -> bool:
        if any(cells[i][row] is None for i in subset):
            return False
        same = sum(
            weight[other]
            for other in range(n)
            if all(cells[i][other] is not None and cells[i][other] == cells[i][row] for i in subset)
        )
        return same == 1

    found = set()
    for size in range(1, (max_size or m) + 1):
        for subset in itertools.combinations(range(m), size):
            mask = sum(1 << i for i in subset)
            for row in range(n):
                if not unique(row, subset):
                    continue
                smaller = [tuple(j for j in subset if j != i) for i in subset] if size > 1 else []
                if not any(unique(row, s) for s in smaller):
                    found.add((row, mask))
    return found


def _check_against_brute_force(frame, qi, *, weights=None, max_size=None) -> Suda2Result:
    result = suda2(frame, qi, weights=weights, max_size=max_size)
    expected = brute_force(frame, qi, weights=weights, max_size=max_size)
    got = set(zip(result.msu_records.tolist(), result.msu_masks.tolist(), strict=True))
    assert got == expected
    m = len(qi)
    scores = np.zeros(len(frame))
    for row, mask in expected:
        scores[row] += math.factorial(m - bin(mask).count("1"))
    assert result.scores.tolist() == pytest.approx(scores.tolist())
    assert result.special_uniques == len({r for r, mask in expected if mask != (1 << m) - 1})
    assert ((result.dis_scores >= 0) & (result.dis_scores <= 1)).all()
    assert ((result.dis_scores > 0) == (result.scores > 0)).all()
    return result


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_equals_brute_force_on_random_small_tables(data):
    m = data.draw(st.integers(1, 4), label="qi")
    n = data.draw(st.integers(0, 10), label="rows")
    alphabet = st.sampled_from(["a", "b", "c", None, "*"])
    columns = {f"q{i}": data.draw(st.lists(alphabet, min_size=n, max_size=n)) for i in range(m)}
    frame = pd.DataFrame(columns, dtype=object)
    weights = data.draw(st.none() | st.lists(st.integers(1, 3), min_size=n, max_size=n))
    max_size = data.draw(st.none() | st.integers(1, m), label="max_size")
    _check_against_brute_force(frame, list(columns), weights=weights, max_size=max_size)


def test_equals_brute_force_on_a_random_table_of_six_qis():
    rng = np.random.default_rng(7)
    frame = pd.DataFrame({f"q{i}": rng.integers(0, 2 + i, size=60) for i in range(6)})
    frame.loc[rng.integers(0, 60, size=5), "q3"] = np.nan
    result = _check_against_brute_force(frame, list(frame.columns))
    assert result.n_msus > 50  # a table with MSUs of several sizes
    assert len([k for k, c in result.msu_counts.items() if c]) >= 3
