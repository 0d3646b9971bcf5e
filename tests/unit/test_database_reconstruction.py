"""The reconstruction attack (privcore.attacks.reconstruction): the block of seven people of
Garfinkel, Abowd & Martindale rebuilt to its unique table, two tables and the records
common to both, contradictory statistics named, suppressed cells and noisy statistics,
time limits and Cancel. Every expected value is worked out by hand in a comment."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from privcore.attacks.reconstruction import (
    Between,
    Count,
    Mean,
    Median,
    Noise,
    Publication,
    Schema,
    compare,
    contingency,
    pooled,
    reconstruct,
    reconstruct_blocks,
)
from privcore.attacks.reconstruction.program import Clock, Program
from privcore.errors import CancelledError, InfeasibleError, ParameterError

# ----------------------------------------------------------------- the CACM block

CACM_SCHEMA = Schema(
    {"age": range(116), "sex": ["F", "M"], "race": ["B", "W"], "marital": ["S", "M"]}
)
ADULT = Between(18, 115)


def _count_median_mean(where, count, median, mean, name, rounded_to=0.0):
    return [
        Count(where, count, name=f"{name} count"),
        Median("age", median, where, name=f"{name} median"),
        Mean("age", mean, where, rounded_to=rounded_to, name=f"{name} mean"),
    ]


def _suppressed(where, name):
    # "(D)": withheld because the cell holds fewer than 3 people
    return Count(where, None, suppressed_below=3, name=f"{name} count")


def cacm_statistics(structural_zero: bool = True):
    """Table 1 of the article: count, median age and mean age of a fictional block.

    1A everyone 7 / 30 / 38; 2A female 4 / 30 / 33.5; 2B male 3 / 30 / 44; 2C black 4 /
    51 / 48.5; 2D white 3 / 24 / 24; 3A single adults (D); 3B married adults 4 / 51 / 54;
    4A black female 3 / 36 / 36.7; 4B black male, 4C white male, 4D white female (D).
    With the authors' structural zero: no one under 15 is married."""
    statistics = [
        *_count_median_mean({}, 7, 30, 38, "1A"),
        *_count_median_mean({"sex": "F"}, 4, 30, 33.5, "2A"),
        *_count_median_mean({"sex": "M"}, 3, 30, 44, "2B"),
        *_count_median_mean({"race": "B"}, 4, 51, 48.5, "2C"),
        *_count_median_mean({"race": "W"}, 3, 24, 24, "2D"),
        _suppressed({"marital": "S", "age": ADULT}, "3A"),
        *_count_median_mean({"marital": "M", "age": ADULT}, 4, 51, 54, "3B"),
        *_count_median_mean({"race": "B", "sex": "F"}, 3, 36, 36.7, "4A", rounded_to=0.1),
        _suppressed({"race": "B", "sex": "M"}, "4B"),
        _suppressed({"race": "W", "sex": "M"}, "4C"),
        _suppressed({"race": "W", "sex": "F"}, "4D"),
    ]
    if structural_zero:
        statistics.append(Count({"marital": "M", "age": Between(0, 14)}, 0, name="married < 15"))
    return statistics


# The article's solution (its Table 2). Each statistic checked by hand:
# everyone 8 18 24 30 36 66 84: median 30, sum 266 = 7 × 38;
# F 8 24 36 66: median (24 + 36) / 2 = 30, sum 134 = 4 × 33.5;
# M 18 30 84: median 30, sum 132 = 3 × 44;
# B 8 36 66 84: median (36 + 66) / 2 = 51, sum 194 = 4 × 48.5;
# W 18 24 30: median 24, sum 72 = 3 × 24;
# married adults 30 36 66 84: median 51, sum 216 = 4 × 54; single adults 18 24: 2 < 3;
# B F 8 36 66: median 36, mean 110 / 3 = 36.67 → 36.7; B M 84, W M 18 30, W F 24: < 3.
CACM_TABLE = pd.DataFrame(
    [
        (8, "F", "B", "S"),
        (18, "M", "W", "S"),
        (24, "F", "W", "S"),
        (30, "M", "W", "M"),
        (36, "F", "B", "M"),
        (66, "F", "B", "M"),
        (84, "M", "B", "M"),
    ],
    columns=["age", "sex", "race", "marital"],
)


def _sorted(frame: pd.DataFrame) -> list[tuple]:
    return sorted(frame.itertuples(index=False, name=None))


def test_the_cacm_block_of_seven_people_is_rebuilt_to_its_unique_table():
    steps = []
    result = reconstruct(
        Publication(CACM_SCHEMA, cacm_statistics()),
        truth=CACM_TABLE,
        progress=lambda fraction, message: steps.append(fraction),
    )
    # the article: the statistics leave a single table, the true one
    assert result.unique and result.solutions_text == "unique"
    assert _sorted(result.table) == _sorted(CACM_TABLE)
    # a unique table: all seven records are in every table
    assert _sorted(result.certain) == _sorted(CACM_TABLE)
    assert result.accuracy.exact_share == 1.0 and result.accuracy.within_tolerance_share == 1.0
    assert not result.timed_out and result.solves == 2  # the table, then "no other"
    assert steps and steps == sorted(steps) and steps[-1] == 1.0


# ----------------------------------------------------------------- small blocks by hand

SMALL = Schema({"sex": ["F", "M"], "age": range(4)})
TRUTH = pd.DataFrame({"sex": ["F", "M", "M"], "age": [1, 2, 3]})


def two_tables():
    """Three people: one F, two M whose ages sum to 5 (2.5 × 2), the F aged 0 or 1.

    By hand: two ages in 0..3 summing to 5 are {2, 3}; nothing more is said of the F's
    age than that it is ≤ 1, so the tables are {F0, M2, M3} and {F1, M2, M3}."""
    return [
        Count({}, 3, name="total"),
        *contingency(["sex"], {"F": 1, "M": 2}),
        Mean("age", 2.5, {"sex": "M"}, name="mean age M"),
        Count({"sex": "F", "age": Between(0, 1)}, 1, name="F aged 0-1"),
    ]


def test_two_tables_are_both_found_and_the_certain_records_are_those_in_both():
    result = reconstruct(Publication(SMALL, two_tables()), truth=TRUTH)
    assert result.complete and len(result.solutions) == 2
    assert result.solutions_text == "exactly 2" and not result.unique
    assert {tuple(_sorted(s)) for s in result.solutions} == {
        (("F", 0), ("M", 2), ("M", 3)),
        (("F", 1), ("M", 2), ("M", 3)),
    }
    # common to both tables: M 2 and M 3
    assert _sorted(result.certain) == [("M", 2), ("M", 3)]
    # the rebuilt F is 0 or 1 against a true 1: 2 or 3 of 3 exact, all 3 within ± 1
    assert result.accuracy.exact_share in (2 / 3, 1.0)
    assert result.accuracy.within_tolerance_share == 1.0


def test_a_cap_on_the_tables_counted_says_at_least_and_verifies_the_certain_records():
    # two tables, cap 1: the second is found as a witness → "at least 2"; the certain
    # records are then verified by re-solving: still M 2 and M 3
    result = reconstruct(Publication(SMALL, two_tables()), max_solutions=1)
    assert not result.complete and result.solutions_text == "at least 2"
    assert len(result.solutions) == 1
    assert _sorted(result.certain) == [("M", 2), ("M", 3)]


def test_the_cacm_block_without_its_structural_zero_has_two_tables():
    # without "no one under 15 is married" the 8-year-old's marital status is free: no
    # statistic counts a married or single child, so S and M both fit; the other six
    # records are certain
    result = reconstruct(Publication(CACM_SCHEMA, cacm_statistics(structural_zero=False)))
    assert result.solutions_text == "exactly 2"
    children = {tuple(s.query("age == 8").iloc[0]) for s in result.solutions}
    assert children == {(8, "F", "B", "S"), (8, "F", "B", "M")}
    assert _sorted(result.certain) == _sorted(CACM_TABLE.query("age != 8"))


def test_contradictory_statistics_are_named():
    # F + M is everyone: 1 + 1 ≠ 3. The mean age of F (1) is consistent with any of them
    # and is not named; dropping any of the three named counts leaves a table.
    statistics = [
        Count({}, 3, name="total"),
        Count({"sex": "F"}, 1, name="count F"),
        Count({"sex": "M"}, 1, name="count M"),
        Mean("age", 1, {"sex": "F"}, name="mean age F"),
    ]
    with pytest.raises(InfeasibleError) as caught:
        reconstruct(Publication(SMALL, statistics))
    error = caught.value
    assert error.code == "reconstruction.inconsistent"
    assert error.params["statistics"] == ["total", "count F", "count M"]
    assert "'total', 'count F' and 'count M'" in error.message


def test_a_suppressed_cell_is_below_its_threshold():
    # total 4, F 3, M suppressed (< 3): M = 4 − 3 = 1, which is < 3
    cells = contingency(["sex"], {"F": 3, "M": None}, suppressed_below=3)
    result = reconstruct(Publication(SMALL, [Count({}, 4, name="total"), *cells]))
    assert (result.table["sex"] == "M").sum() == 1
    # total 6 would need M = 3, not below 3: the suppressed cell is named in the conflict
    with pytest.raises(InfeasibleError) as caught:
        reconstruct(Publication(SMALL, [Count({}, 6, name="total"), *cells]))
    assert caught.value.params["statistics"] == ["total", "count [sex=F]", "count [sex=M]"]


def test_a_suppressed_cell_stated_non_empty_is_at_least_one():
    # total 3, F 3 leaves M = 0; the agency says a suppressed cell is 0 < M < 3: conflict
    cells = contingency(
        ["sex"], {"F": 3, "M": None}, suppressed_below=3, nonzero_if_suppressed=True
    )
    with pytest.raises(InfeasibleError):
        reconstruct(Publication(SMALL, [Count({}, 3, name="total"), *cells]))
    # read as "< 3" only, M = 0 fits
    cells = contingency(["sex"], {"F": 3, "M": None}, suppressed_below=3)
    result = reconstruct(Publication(SMALL, [Count({}, 3, name="total"), *cells]))
    assert (result.table["sex"] == "F").sum() == 3


def test_noisy_statistics_are_fitted_within_their_error():
    # The two tables of two_tables() without "F aged 0-1", and instead:
    # - count of age ≤ 1 published 1.6 with Laplace noise b = 0.5: bound 0.5·ln 20 = 1.498,
    #   so the true count is an integer in [1.6 − 1.498, 1.6 + 1.498] = [1, 3]; the M are
    #   2 and 3, so only the F can be ≤ 1: the count is 1, |1.6 − 1| = 0.6 ≤ 1.498;
    # - mean age of F published 0.8 with Laplace noise b = 1 (bound ln 20 ≈ 3.0, so it
    #   excludes nothing): least absolute deviation prefers age 1 (|0.8 − 1| = 0.2) to
    #   age 0 (0.8): the rebuilt table is the true one, though both still fit.
    statistics = [
        Count({}, 3, name="total"),
        *contingency(["sex"], {"F": 1, "M": 2}),
        Mean("age", 2.5, {"sex": "M"}, name="mean age M"),
        Count({"age": Between(0, 1)}, 1.6, noise=Noise("laplace", 0.5), name="aged 0-1"),
        Mean("age", 0.8, {"sex": "F"}, noise=Noise("laplace", 1.0), name="mean age F"),
    ]
    result = reconstruct(Publication(SMALL, statistics), truth=TRUTH)
    assert _sorted(result.table) == [("F", 1), ("M", 2), ("M", 3)]
    fits = {f.statistic: f for f in result.fit}
    assert fits["aged 0-1"].model == pytest.approx(1.0)
    assert fits["aged 0-1"].bound == pytest.approx(0.5 * 2.995732, abs=1e-5)
    assert fits["aged 0-1"].deviation == pytest.approx(0.6)
    assert fits["aged 0-1"].deviation <= fits["aged 0-1"].bound
    assert fits["mean age F"].model == pytest.approx(1.0)
    assert fits["mean age F"].deviation == pytest.approx(0.2)
    assert result.solutions_text == "exactly 2"  # F 0 and F 1 both within the errors
    assert result.accuracy.exact_share == 1.0


def test_an_even_median_is_the_mean_of_the_two_middle_values():
    # two people, median 1.5: the pairs {0, 3} and {1, 2}; mean 1.5 says the same.
    # With "no one aged 0" only {1, 2} is left.
    statistics = [
        Count({}, 2, name="total"),
        Median("age", 1.5, name="median age"),
        Count({"age": 0}, 0, name="none aged 0"),
    ]
    result = reconstruct(Publication(Schema({"age": range(4)}), statistics))
    assert result.unique and sorted(result.table["age"]) == [1, 2]
    assert reconstruct(Publication(Schema({"age": range(4)}), statistics[:2])).solutions_text == (
        "exactly 2"
    )


def test_a_median_without_its_count_is_refused_in_words():
    with pytest.raises(ParameterError) as caught:
        reconstruct(Publication(SMALL, [Count({}, 3), Median("age", 2, {"sex": "F"})]))
    assert caught.value.code == "reconstruction.median_count"


def test_a_block_without_a_total_is_refused_in_words():
    with pytest.raises(ParameterError) as caught:
        reconstruct(Publication(SMALL, [Count({"sex": "F"}, 1)]))
    assert caught.value.code == "reconstruction.no_total"


# ----------------------------------------------------------------- time and Cancel


def test_a_time_limit_that_is_hit_says_so():
    # the CACM program takes HiGHS's presolve well over a microsecond
    result = reconstruct(Publication(CACM_SCHEMA, cacm_statistics()), time_limit=1e-6)
    assert result.timed_out and result.table is None
    assert result.solutions_text == "none found"
    assert "time limit" in result.message


def test_cancel_between_two_solves():
    def cancel(fraction, message):
        if "table(s) found" in message:
            raise CancelledError("Cancelled.")

    with pytest.raises(CancelledError):
        reconstruct(Publication(SMALL, two_tables()), progress=cancel)


def test_the_shares_rebuilt_pair_records_one_to_one():
    # true F1 M2 M3 against rebuilt F0 M3 M3: exact pairs M3–M3 only (one M3 left over);
    # within ± 1: F0–F1, M3–M2, M3–M3 → 3 of 3
    rebuilt = pd.DataFrame({"sex": ["F", "M", "M"], "age": [0, 3, 3]})
    accuracy = compare(TRUTH, rebuilt, SMALL)
    assert accuracy.exact == 1 and accuracy.within_tolerance == 3
    assert accuracy.exact_share == pytest.approx(1 / 3)
    assert accuracy.within_tolerance_share == 1.0


def test_blocks_are_rebuilt_each_on_its_own_and_their_shares_pooled():
    # block a: the two tables of two_tables() (F 0 or 1); block b: one F, total 1, mean
    # age 2 → unique {F2}. Against truths {F1 M2 M3} and {F2}: b is exact; a has 2 or 3
    # exact, 3 within ± 1 → pooled within ± 1: 4 of 4
    b = [Count({}, 1, name="total"), Count({"sex": "F"}, 1), Mean("age", 2, name="mean age")]
    blocks = [Publication(SMALL, two_tables(), name="a"), Publication(SMALL, b, name="b")]
    truth = {"a": TRUTH, "b": pd.DataFrame({"sex": ["F"], "age": [2]})}
    steps = []
    results = reconstruct_blocks(blocks, truth=truth, progress=lambda f, m: steps.append(f))
    assert results["a"].solutions_text == "exactly 2" and results["b"].unique
    assert _sorted(results["b"].table) == [("F", 2)]
    together = pooled(r.accuracy for r in results.values())
    assert together.n_true == 4 and together.within_tolerance_share == 1.0
    assert together.exact in (3, 4)
    assert steps == sorted(steps) and steps[-1] == 1.0
    with pytest.raises(ParameterError):
        reconstruct_blocks([blocks[0], blocks[0]])


# ------------------------------------------------ presolve and verification, cross-checked


def _random_block(seed: int) -> Publication:
    """A block of 4–9 people over 3 × 4 × 2 types, published as its total and two or
    three of its two-way tables (empty cells included, so that presolve has work)."""
    rng = np.random.default_rng(seed)
    schema = Schema({"a": ["x", "y", "z"], "b": [0, 1, 2, 3], "c": ["p", "q"]})
    size = int(rng.integers(4, 10))
    people = pd.DataFrame(
        {
            "a": rng.choice(["x", "y", "z"], size=size),
            "b": rng.integers(0, 4, size=size),
            "c": rng.choice(["p", "q"], size=size),
        }
    )
    statistics = [Count({}, size, name="total")]
    for first, second in [("a", "b"), ("b", "c"), ("a", "c")][: 2 + seed % 2]:
        pairs = list(zip(people[first], people[second], strict=True))
        cells = {
            (u, v): pairs.count((u, v)) for u in schema.domain(first) for v in schema.domain(second)
        }
        statistics += contingency([first, second], cells, prefix=f"{first}×{second} ")
    return Publication(schema, statistics)


def _count_tables(program: Program) -> int:
    """Every table that fits, found one by one with no-good cuts."""
    clock, found = Clock(60), 0
    while (outcome := program.solve(seconds=clock.left(), cuts=found > 0)).status == "optimal":
        program.add_cut(outcome.counts)
        found += 1
    return found


@pytest.mark.parametrize("seed", range(12))
def test_verified_certain_records_are_the_least_over_every_table(seed):
    publication = _random_block(seed)
    # every table, counted to the end: the certain records are the least over them all
    every = reconstruct(publication, max_solutions=500)
    assert every.complete
    # cap 1: the certain records come from the verification's solves instead
    capped = reconstruct(publication, max_solutions=1)
    assert _sorted(capped.certain) == _sorted(every.certain)
    # presolve drops the types of empty cells, never a table: the same count without it
    whole, presolved = Program(publication, presolve=False), Program(publication)
    assert presolved.n_types < whole.n_types == 24
    assert _count_tables(whole) == _count_tables(presolved) == every.at_least


def test_the_random_blocks_have_several_tables_to_verify():
    # the cross-check above is only worth something when some blocks have more than one
    # table (so that capping at one leaves records to verify)
    counts = [reconstruct(_random_block(s), max_solutions=500).at_least for s in range(12)]
    assert sum(c > 1 for c in counts) >= 4
