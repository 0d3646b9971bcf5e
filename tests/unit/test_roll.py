"""The synthetic voter roll (SPEC §6): who is on it, with which QI values and names."""

from __future__ import annotations

import json
import re
import time
from datetime import date

import numpy as np
import pandas as pd
import pytest
from faker.providers.person.en_US import Provider as EnNames
from faker.providers.person.zh_CN import Provider as ZhNames

from privcore.attacks.roll import (
    VoterRoll,
    age_column,
    build_roll,
    is_age_like,
    is_sex_like,
    is_zip_like,
    sex_column,
)
from privcore.data.samples import load_sample
from privcore.errors import CancelledError, ParameterError, RoleError

CJK = re.compile(r"^[\u4e00-\u9fff]+$")


@pytest.fixture(scope="module")
def hospital() -> tuple[pd.DataFrame, list[str]]:
    dataset, schema = load_sample("hospital")
    return dataset.frame, list(schema.quasi_identifiers)


@pytest.fixture(scope="module")
def adult() -> tuple[pd.DataFrame, list[str]]:
    dataset, schema = load_sample("adult")
    return dataset.frame, list(schema.quasi_identifiers)


@pytest.fixture(scope="module")
def adult_roll(adult) -> VoterRoll:
    frame, qi = adult
    return build_roll(frame, qi, seed=7)


def ages_on(birth_dates: pd.Series, as_of: str) -> np.ndarray:
    """Completed years on ``as_of`` of people born on ``birth_dates`` (ISO text)."""
    born = pd.to_datetime(birth_dates, format="%Y-%m-%d")
    day = date.fromisoformat(as_of)
    before_birthday = (born.dt.month > day.month) | (
        (born.dt.month == day.month) & (born.dt.day > day.day)
    )
    return (day.year - born.dt.year - before_birthday.astype(int)).to_numpy()


def embedded_rows(roll: VoterRoll) -> pd.DataFrame:
    return roll.frame[roll.frame["in_dataset"]].sort_values("record")


# --- size and layout ------------------------------------------------------------------


def test_default_size_is_ten_times_the_dataset(hospital, adult_roll, adult):
    frame, qi = hospital
    roll = build_roll(frame, qi)
    assert roll.size == 10 * len(frame) == 90
    assert roll.embedded == len(frame)
    assert adult_roll.size == 10 * len(adult[0])
    assert adult_roll.embedded == len(adult[0])


def test_columns_and_mapping(hospital, adult_roll):
    frame, qi = hospital
    roll = build_roll(frame, qi)
    assert list(roll.frame.columns) == [
        "person_id",
        "name",
        "birth_date",
        "ZIP",
        "Age",
        "record",
        "in_dataset",
    ]
    assert roll.mapping == {"birth_date": "Age", "ZIP": "ZIP", "Age": "Age"}
    assert roll.qi == ("ZIP", "Age")
    assert list(adult_roll.frame.columns[:4]) == ["person_id", "name", "birth_date", "sex"]
    assert adult_roll.mapping["birth_date"] == "age"
    assert adult_roll.mapping["sex"] == "sex"
    assert set(adult_roll.qi) <= set(adult_roll.frame.columns)
    assert adult_roll.frame["record"].dtype == np.int64
    assert adult_roll.frame["person_id"].dtype == np.int64


def test_person_ids_are_in_a_shuffled_order(adult_roll, adult):
    roll = adult_roll.frame
    assert roll["person_id"].tolist() == list(range(len(roll)))
    n = len(adult[0])
    positions = np.flatnonzero(roll["in_dataset"].to_numpy())
    assert positions.max() > n  # the embedded people are not simply the first n
    assert (roll.loc[~roll["in_dataset"], "record"] == -1).all()
    assert sorted(roll.loc[roll["in_dataset"], "record"]) == list(range(n))


# --- embedded people ------------------------------------------------------------------


@pytest.mark.parametrize("sample", ["hospital", "adult"])
def test_embedded_people_carry_their_rows_qi_values(sample, request):
    frame, qi = request.getfixturevalue(sample)
    roll = build_roll(frame, qi, seed=3)
    mine = embedded_rows(roll)
    expected = frame.iloc[mine["record"].to_numpy()][qi].reset_index(drop=True)
    pd.testing.assert_frame_equal(mine[qi].reset_index(drop=True), expected)
    if "sex" in roll.frame.columns:
        assert (mine["sex"].to_numpy() == frame["sex"].iloc[mine["record"]].to_numpy()).all()


def test_zip_of_an_embedded_person_is_their_records_zip(hospital):
    frame, qi = hospital
    roll = build_roll(frame, qi, size=200, seed=5)
    mine = embedded_rows(roll)
    assert mine["ZIP"].tolist() == frame["ZIP"].tolist()
    assert roll.frame["ZIP"].dtype == frame["ZIP"].dtype


def test_missing_qi_values_stay_missing():
    frame = pd.DataFrame(
        {
            "zip": ["47677", None, "47602", "47905"],
            "age": pd.array([29, 22, pd.NA, 43], dtype="Int64"),
            "disease": ["flu", "flu", "ulcer", "cancer"],
        }
    )
    roll = build_roll(frame, ["zip", "age"], size=40, seed=1)
    mine = embedded_rows(roll).reset_index(drop=True)
    assert mine["zip"].isna().tolist() == [False, True, False, False]
    assert mine["age"].isna().tolist() == [False, False, True, False]
    assert mine["birth_date"].isna().tolist() == [False, False, True, False]
    known = roll.frame["age"].notna()
    assert (roll.frame["birth_date"].isna() == ~known).all()
    got = ages_on(roll.frame.loc[known, "birth_date"], roll.as_of)
    assert (got == roll.frame.loc[known, "age"].to_numpy(dtype=int)).all()


# --- birth dates ----------------------------------------------------------------------


@pytest.mark.parametrize("as_of", ["2026-01-01", "2024-02-29", "2025-02-28", "2023-12-31"])
def test_birth_dates_give_the_age_on_the_reference_day(hospital, as_of):
    frame, qi = hospital
    roll = build_roll(frame, qi, size=5000, seed=2, as_of=as_of)
    assert roll.as_of == as_of
    assert (ages_on(roll.frame["birth_date"], as_of) == roll.frame["Age"].to_numpy()).all()
    # birthdays spread over the year, not one fixed day per age
    assert roll.frame.groupby("Age")["birth_date"].nunique().min() > 100


def test_adult_birth_dates_match_ages(adult_roll):
    roll = adult_roll.frame
    assert roll["birth_date"].str.fullmatch(r"\d{4}-\d{2}-\d{2}").all()
    assert (ages_on(roll["birth_date"], adult_roll.as_of) == roll["age"].to_numpy()).all()


def test_no_birth_date_without_a_usable_age():
    generalized = pd.DataFrame({"age": ["[20-30)", "[30-40)", "[20-30)"], "zip": ["476**"] * 3})
    roll = build_roll(generalized, ["age", "zip"], size=6)
    assert "birth_date" not in roll.frame.columns
    assert "birth_date" not in roll.mapping
    no_age = pd.DataFrame({"wage": [1, 2, 3], "stage": [1, 2, 2]})
    assert "birth_date" not in build_roll(no_age, ["wage", "stage"]).frame.columns


def test_column_kinds_are_recognized():
    assert all(map(is_age_like, ["age", "Age", "年龄", "patient_age", "Age at visit", "AGE"]))
    assert not any(map(is_age_like, ["wage", "stage", "average", "page_views", "agent"]))
    assert all(map(is_sex_like, ["sex", "Sex", "gender", "性别", "patient-gender"]))
    assert not any(map(is_sex_like, ["sextant", "engendered"]))
    assert all(map(is_zip_like, ["ZIP", "zipcode", "postcode", "邮编"]))
    assert age_column(["ZIP", "Age"]) == "Age"
    assert age_column(["ZIP"]) is None
    assert sex_column(["gender", "sex"]) == "sex"
    assert sex_column(["Gender", "age"]) == "Gender"


# --- names ----------------------------------------------------------------------------


def test_english_first_names_follow_sex(adult_roll):
    roll = adult_roll.frame
    first = roll["name"].str.split(" ").str[0]
    last = roll["name"].str.split(" ").str[1]
    female = roll["sex"] == "Female"
    assert first[female].isin(set(EnNames.first_names_female)).all()
    assert first[~female].isin(set(EnNames.first_names_male)).all()
    assert last.isin(set(EnNames.last_names)).all()
    assert roll["name"].str.count(" ").eq(1).all()
    # a pool's common names are drawn more often than its rare ones (Faker's weights)
    counts = first[female].value_counts()
    assert counts.get("Jennifer", 0) > counts.get("Adriana", 0)


def chinese_given_names(name: str) -> set[str]:
    """Given names ``name`` can end with after a family name (欧阳 or 欧 + 阳...)."""
    return {name[cut:] for cut in (1, 2) if name[:cut] in ZhNames.last_names}


def test_chinese_names_follow_sex(adult):
    frame, qi = adult
    roll = build_roll(frame, qi, size=60_000, seed=4, locale="zh").frame
    assert roll["name"].str.fullmatch(CJK.pattern).all()
    for sex, pool in (("Female", ZhNames.first_names_female), ("Male", ZhNames.first_names_male)):
        for name in roll.loc[roll["sex"] == sex, "name"].unique():
            assert chinese_given_names(name) & set(pool), name


def test_mixed_names_are_half_each(hospital):
    frame, qi = hospital
    roll = build_roll(frame, qi, size=1000, locale="mixed", seed=9).frame
    chinese = roll["name"].str.fullmatch(CJK.pattern)
    assert chinese.sum() == 500
    english = roll.loc[~chinese, "name"].str.fullmatch(r"[A-Za-z'\-]+ [A-Za-z'\-]+")
    assert english.all()


def test_chinese_sex_column_and_unknown_encodings():
    frame = pd.DataFrame({"性别": ["女", "男", "女", "未知"], "年龄": [30, 40, 50, 60]})
    roll = build_roll(frame, ["性别", "年龄"], size=400, locale="en", seed=1)
    assert roll.mapping["sex"] == "性别"
    assert roll.mapping["birth_date"] == "年龄"
    data = roll.frame
    assert (data["sex"] == data["性别"]).all()
    first = data["name"].str.split(" ").str[0]
    assert first[data["sex"] == "女"].isin(set(EnNames.first_names_female)).all()
    assert first[data["sex"] == "男"].isin(set(EnNames.first_names_male)).all()
    assert first[data["sex"] == "未知"].isin(set(EnNames.first_names)).all()
    assert (ages_on(data["birth_date"], roll.as_of) == data["年龄"].to_numpy()).all()


# --- the other people -----------------------------------------------------------------


def test_marginal_sampling_stays_within_each_qis_values(adult_roll, adult):
    frame, qi = adult
    roll = adult_roll.frame
    for column in qi:
        assert set(roll[column].unique()) <= set(frame[column].unique()), column
    # independent marginals make QI combinations that no row of the data set has
    tuples = set(frame[qi].itertuples(index=False, name=None))
    others = roll.loc[~roll["in_dataset"], qi].itertuples(index=False, name=None)
    new = sum(t not in tuples for t in others)
    assert new > 0.5 * (len(roll) - len(frame))


def test_marginal_sampling_follows_the_empirical_distribution(adult_roll, adult):
    frame, _ = adult
    others = adult_roll.frame.loc[~adult_roll.frame["in_dataset"], "sex"]
    expected = (frame["sex"] == "Female").mean()
    assert abs((others == "Female").mean() - expected) < 0.01


def test_joint_sampling_draws_existing_tuples_only(adult):
    frame, qi = adult
    roll = build_roll(frame, qi, seed=11, joint=True)
    assert roll.joint
    tuples = set(frame[qi].itertuples(index=False, name=None))
    drawn = roll.frame.loc[~roll.frame["in_dataset"], qi].itertuples(index=False, name=None)
    assert all(t in tuples for t in drawn)


# --- determinism ----------------------------------------------------------------------


@pytest.mark.parametrize("locale", ["en", "zh", "mixed"])
def test_same_seed_same_roll_other_seed_other_roll(hospital, locale):
    frame, qi = hospital
    first = build_roll(frame, qi, seed=21, locale=locale).frame
    again = build_roll(frame, qi, seed=21, locale=locale).frame
    other = build_roll(frame, qi, seed=22, locale=locale).frame
    pd.testing.assert_frame_equal(first, again)
    assert not first["name"].equals(other["name"])
    assert not first["record"].equals(other["record"])
    assert not first["birth_date"].equals(other["birth_date"])


# --- limits and bad input -------------------------------------------------------------


def test_size_smaller_than_the_dataset_is_refused(hospital):
    frame, qi = hospital
    with pytest.raises(ParameterError) as info:
        build_roll(frame, qi, size=5)
    assert "5" in str(info.value) and "9" in str(info.value)
    assert info.value.code == "roll.size_too_small"
    assert build_roll(frame, qi, size=9).size == 9


def test_size_above_the_limit_is_refused(hospital, monkeypatch):
    frame, qi = hospital
    monkeypatch.setenv("PRIVCORE_MAX_ROLL", "50")
    with pytest.raises(ParameterError) as info:
        build_roll(frame, qi, size=51)
    message = str(info.value)
    assert "51" in message and "50" in message and "PRIVCORE_MAX_ROLL" in message
    assert info.value.params == {"size": 51, "limit": 50}
    assert build_roll(frame, qi, size=50).size == 50
    # the default (10 × 9 = 90) is capped at the limit rather than refused
    assert build_roll(frame, qi).size == 50
    monkeypatch.setenv("PRIVCORE_MAX_ROLL", "5")
    with pytest.raises(ParameterError):
        build_roll(frame, qi)


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"locale": "fr"}, "roll.locale"),
        ({"as_of": "01/02/2026"}, "roll.as_of"),
        ({"seed": -1}, "roll.seed"),
        ({"size": 20.5}, "roll.size_type"),
    ],
)
def test_bad_parameters(hospital, kwargs, code):
    frame, qi = hospital
    with pytest.raises(ParameterError) as info:
        build_roll(frame, qi, **kwargs)
    assert info.value.code == code


def test_bad_qis(hospital):
    frame, _ = hospital
    with pytest.raises(RoleError):
        build_roll(frame, ["ZIP", "Height"])
    with pytest.raises(RoleError):
        build_roll(frame, [])
    with pytest.raises(RoleError):
        build_roll(frame.rename(columns={"ZIP": "name"}), ["name", "Age"])
    with pytest.raises(ParameterError):
        build_roll(frame.iloc[:0], ["ZIP", "Age"])


# --- progress, export, scale ----------------------------------------------------------


def test_progress_is_reported_and_cancellation_propagates(hospital):
    frame, qi = hospital
    seen: list[float] = []
    build_roll(frame, qi, progress=lambda fraction, message: seen.append(fraction))
    assert seen[0] == 0.0 and seen[-1] == 1.0 and seen == sorted(seen)

    def cancel(fraction: float, message: str) -> None:
        if fraction > 0.3:
            raise CancelledError("stop")

    with pytest.raises(CancelledError):
        build_roll(frame, qi, progress=cancel)


def test_to_dict_holds_no_names(adult_roll):
    summary = adult_roll.to_dict()
    assert summary["size"] == adult_roll.size
    assert summary["embedded"] == 30_162
    assert summary["locale"] == "en" and summary["seed"] == 7 and summary["joint"] is False
    text = json.dumps(summary)
    assert adult_roll.frame["name"].iloc[0] not in text


@pytest.mark.slow
def test_a_million_people_roll(adult):
    frame, qi = adult
    start = time.perf_counter()
    roll = build_roll(frame, qi, size=1_000_000, seed=1, locale="mixed")
    elapsed = time.perf_counter() - start
    print(f"\n1,000,000-person voter roll from Adult: {elapsed:.2f} s")
    assert roll.size == 1_000_000
    assert roll.embedded == len(frame)
    assert roll.frame["name"].notna().all()
