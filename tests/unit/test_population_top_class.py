"""Journalist risk of a release whose rows at '*' in every QI are a class (SPEC §2, §6).

The rows whose quasi-identifiers are all ``*`` are a real class (the lattice top) when,
taken as one class, they meet every model (:func:`privcore.classes.release_classes`);
every person of a population matches that class. Its population count F_j is then the
whole population, and the measurement has one F_j per class, the top class included.
"""

from __future__ import annotations

import pandas as pd
import pytest

from privcore.measure.report import measure_release
from privcore.models import KAnonymity

ORIGINAL = pd.DataFrame({"q": ["a", "a", "b", "c"], "s": ["x", "y", "x", "y"]})
RELEASE = pd.DataFrame({"q": ["a", "a", "*", "*"], "s": ["x", "y", "x", "y"]})
POPULATION = pd.DataFrame({"q": ["a", "a", "a", "b", "c"]})


def test_the_top_class_is_matched_by_the_whole_population():
    # Classes: {a} with f = 2 rows, matched by F = 3 people; the top {*} with f = 2,
    # matched by all F = 5. journalist_max = max(1/3, 1/5) = 1/3;
    # journalist_avg = marketer = (1/n) Σ f_j/F_j = (2/3 + 2/5) / 4 = 4/15.
    measured = measure_release(
        ORIGINAL, RELEASE, qi=["q"], sa=["s"], models=[KAnonymity(2)], population=POPULATION
    )
    assert measured.classes.n_classes == 2 and measured.classes.n_suppressed == 0
    risk = measured.risk
    assert risk.journalist_max == pytest.approx(1 / 3)
    assert risk.journalist_avg == pytest.approx(4 / 15)
    assert risk.marketer == pytest.approx(4 / 15)


def test_a_release_that_is_only_the_top_class():
    # One class of 4 rows at '*', matched by all 5 people: 1/5 and (4/5)/4 = 1/5.
    release = RELEASE.assign(q=["*"] * 4)
    measured = measure_release(
        ORIGINAL, release, qi=["q"], sa=["s"], models=[KAnonymity(2)], population=POPULATION
    )
    assert measured.classes.n_classes == 1
    assert measured.risk.journalist_max == pytest.approx(1 / 5)
    assert measured.risk.journalist_avg == pytest.approx(1 / 5)


def test_suppressed_rows_stay_out_of_the_population_counts():
    # k = 3: the two '*' rows fail as one class and are suppressed; {a} (f = 2) fails
    # too but stays a class (the verdict says so): F = 3 → 1/3, and (2/3)/4 = 1/6.
    measured = measure_release(
        ORIGINAL, RELEASE, qi=["q"], sa=["s"], models=[KAnonymity(3)], population=POPULATION
    )
    assert measured.classes.n_suppressed == 2 and measured.classes.n_classes == 1
    assert measured.risk.journalist_max == pytest.approx(1 / 3)
    assert measured.risk.journalist_avg == pytest.approx(1 / 6)
