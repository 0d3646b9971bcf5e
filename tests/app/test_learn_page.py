"""AppTest: the Learn page — eight lessons in both languages, their exercises, the deep
link ``?lesson=N``, the LDP audit of lesson 5, the differencing attack of lesson 7, the
database reconstruction of lesson 8, and the lesson catalogues."""

from __future__ import annotations

import json
import math
import re

import pytest
from streamlit.testing.v1 import AppTest

from privcore.attacks import build_roll, linkage_attack
from privcore.data import load_sample
from tests.app.conftest import ROOT, no_exceptions

PAGE = ROOT / "pages" / "learn.py"
LOCALES = ROOT / "privcore" / "words" / "locales"


def strings(lang: str) -> dict[str, str]:
    return json.loads((LOCALES / f"learn_{lang}.json").read_text(encoding="utf-8"))


def open_learn(lesson: int | str | None = None, lang: str = "en") -> AppTest:
    """The app in ``lang``, switched to Learn (with ``?lesson=`` when given)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.session_state["lang"] = lang
    at.run()
    if lesson is not None:
        at.query_params["lesson"] = str(lesson)
    at.switch_page(str(PAGE))
    at.run()
    return at


def shown_lesson(at: AppTest) -> int:
    """The lesson the selector shows (its options read "4 · t-closeness")."""
    return int(at.radio(key="learn_lesson").value.split(" · ")[0])


def choose(at: AppTest, lesson: int) -> AppTest:
    radio = at.radio(key="learn_lesson")
    return radio.set_value(radio.options[lesson - 1]).run()


def texts(elements) -> list[str]:
    return [e.value for e in elements]


def check(at: AppTest, lesson: int) -> AppTest:
    return at.button(key=f"learn_l{lesson}::check").click().run()


# --------------------------------------------------------------------------- rendering


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("lesson", [1, 2, 3, 4, 5, 6, 7, 8])
def test_each_lesson_renders_in_both_languages(lesson, lang):
    at = open_learn(lesson, lang)
    no_exceptions(at)
    assert not at.error, texts(at.error)
    assert shown_lesson(at) == lesson
    assert strings(lang)[f"learn.l{lesson}.title"] in texts(at.header)
    assert at.button(key=f"learn_l{lesson}::check") is not None


def test_deep_link_opens_lesson_four():
    at = open_learn(4)
    no_exceptions(at)
    assert shown_lesson(at) == 4
    assert texts(at.header) == [strings("en")["learn.l4.title"]]
    assert at.query_params["lesson"] == "4"


def test_the_selector_updates_the_query_parameter():
    at = open_learn()
    assert shown_lesson(at) == 1
    choose(at, 6)
    no_exceptions(at)
    assert at.query_params["lesson"] == "6"
    assert texts(at.header) == [strings("en")["learn.l6.title"]]


@pytest.mark.parametrize("bad", ["9", "abc"])
def test_an_unknown_lesson_warns_and_opens_the_first(bad):
    at = open_learn(bad)
    no_exceptions(at)
    assert shown_lesson(at) == 1
    assert any("There is no lesson" in w for w in texts(at.warning))


# --------------------------------------------------------------------------- worked values


def test_lesson_two_walks_datafly_and_samarati():
    at = open_learn(2)
    steps = at.dataframe[1].value  # hierarchies, then Datafly's steps
    assert list(steps["Node (ZIP, Age)"]) == ["(0, 0)", "(1, 0)", "(1, 1)", "(1, 2)"]
    assert any("(ZIP=1, Age=2)" in m for m in texts(at.markdown))
    assert len(at.get("vega_lite_chart")) == 1  # the lattice chart


def test_lesson_four_shows_t_salary_0375():
    at = open_learn(4)
    shown = {m.label: m.value for m in at.metric}
    assert shown["t (Salary, ordered)"] == "0.375"


def test_lesson_six_shows_the_worked_values():
    at = open_learn(6)
    shown = {m.label: m.value for m in at.metric}
    assert shown["PL(D)"] == "0.500"
    assert shown["PL(Salary)"] == "0.500"
    assert shown["PL(Disease)"] == "0.367"
    assert shown["PL_ZIP(Age)"] == "0.290"
    assert shown["UL"] == "0.750"


# --------------------------------------------------------------------------- exercises


def reidentified() -> int:
    """The linkage answer from privcore itself, for the lesson's default roll."""
    data = load_sample("hospital")[0].frame
    roll = build_roll(data, ["ZIP", "Age"], size=27, seed=0, locale="en")
    return linkage_attack(data, roll.frame, ["ZIP", "Age"], ["Disease"], truth=data).summary[
        "reidentified"
    ]


def answer(at: AppTest, lesson: int, value) -> None:
    if lesson == 2:
        at.number_input(key="learn_l2_zip").set_value(value[0])
        at.number_input(key="learn_l2_age").set_value(value[1])
    else:
        at.number_input(key=f"learn_l{lesson}_answer").set_value(value)


EXERCISES = [
    (1, None, 8),  # None: computed by privcore
    (2, (1, 2), (0, 0)),
    (3, 2.59, 2.83),
    (4, 0.30, 0.25),
    (5, 0.75, 0.5),
    (6, 0.5, 0.37),
    (7, 4.0, 2.0),  # b = Δ/ε = 1/0.25; 2.0 would be the scale at ε = 0.5
    (8, 84, 132),  # 3 × 44 − 30 − 18; 132 is the sum of the three ages
]


@pytest.mark.parametrize(("lesson", "right", "wrong"), EXERCISES)
def test_each_exercise_accepts_the_right_answer_and_rejects_a_wrong_one(lesson, right, wrong):
    if right is None:
        right = reidentified()
        assert right == 9  # every patient's (ZIP, age) is unique in the raw table
    at = open_learn(lesson)
    assert not at.success and not at.error  # nothing to judge before an answer
    answer(at, lesson, right)
    check(at, lesson)
    no_exceptions(at)
    assert at.success and not at.error, (texts(at.success), texts(at.error))
    answer(at, lesson, wrong)
    check(at, lesson)
    no_exceptions(at)
    assert at.error and not at.success, (texts(at.success), texts(at.error))


def test_a_verdict_does_not_outlive_a_visit_to_another_lesson():
    at = open_learn(6)
    answer(at, 6, 0.5)
    check(at, 6)
    assert at.success
    choose(at, 5)
    choose(at, 6)
    no_exceptions(at)
    assert not at.success and not at.error
    assert at.number_input(key="learn_l6_answer").value is None


def test_lesson_two_rejects_a_node_one_step_short():
    at = open_learn(2)
    answer(at, 2, (2, 1))
    check(at, 2)
    assert at.error and "smallest class has only 1" in at.error[0].value
    answer(at, 2, (5, 3))  # everything generalized away: one class of 9, still 3-anonymous
    check(at, 2)
    assert at.success and "Height 8" in at.success[0].value


def test_lesson_two_feedback_matches_the_answer():
    """On the nine patients, (ZIP 1, Age 2) is the only 3-anonymous node of the lowest
    height, 3; (2, 2) works at height 4; (2, 1) does not work. The feedback says which:
    "a lower height keeps more information" only after an answer that is not the best."""
    at = open_learn(2)
    answer(at, 2, (1, 2))
    check(at, 2)
    best = at.success[0].value
    assert "the best answer" in best and "Height 3" in best
    assert "lower height works too" not in best
    answer(at, 2, (2, 2))
    check(at, 2)
    higher = at.success[0].value
    assert "Height 4" in higher and "a lower height works too: (ZIP=1, Age=2)" in higher
    assert "best answer" not in higher
    answer(at, 2, (2, 1))
    check(at, 2)
    assert at.error and not at.success
    # and in Chinese, the best answer is called the best one
    at = open_learn(2, "zh")
    answer(at, 2, (1, 2))
    check(at, 2)
    assert "最佳答案" in at.success[0].value and "更低的高度也可行" not in at.success[0].value


def test_lesson_two_judges_each_branch():
    """judge_node on a made-up set of satisfying nodes with their GCPs: the lowest height
    (2) holds two nodes, (1, 1) losing less than (2, 0)."""
    from ui.learn import judge_node

    satisfying = {(1, 1): 0.2, (2, 0): 0.3, (2, 1): 0.4, (3, 3): 1.0}
    assert judge_node((1, 1), satisfying) == ("optimal", (1, 1))
    assert judge_node((2, 0), satisfying) == ("same_height", (1, 1))
    assert judge_node((3, 3), satisfying) == ("higher", (1, 1))
    assert judge_node((0, 1), satisfying) == ("wrong", (1, 1))


def test_an_exercise_in_chinese():
    at = open_learn(5, "zh")
    answer(at, 5, 0.75)
    check(at, 5)
    assert at.success and "正确" in at.success[0].value
    answer(at, 5, 0.6)
    check(at, 5)
    assert at.error and "不对" in at.error[0].value


# --------------------------------------------------------------------------- lesson 5 audit


def test_lesson_five_audit_finds_the_broken_mechanism():
    at = open_learn(5)
    at.button(key="learn_l5_audit").click().run()
    no_exceptions(at)
    audits = at.session_state["learn_l5_audits"]
    assert audits["broken_grr"]["verdict"] == "violation"
    assert audits["broken_grr"]["epsilon_lb"] > 1.0
    assert audits["grr"]["verdict"] == "consistent"
    assert 0.8 <= audits["grr"]["epsilon_lb"] <= 1.0
    shown = " ".join(texts(at.markdown))
    assert "violation" in shown and "consistent" in shown


def test_lesson_five_coin_flips_change_with_the_button():
    at = open_learn(5)
    before = {m.label: m.value for m in at.metric}
    at.button(key="learn_l5_flip").click().run()
    no_exceptions(at)
    after = {m.label: m.value for m in at.metric}
    assert before["True share"] == after["True share"] == "30.0%"
    assert at.session_state["learn_l5_seed"] == 1


# --------------------------------------------------------------------------- lesson 7


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def test_lesson_seven_differencing_with_exact_counts():
    """The dinner (seed 000): the first single guest, Zhang San, leaves; the singles drop
    from 2 to 1 and the exact answers make the attacker certain. A guest in a couple
    leaves the count at 2."""
    en = strings("en")
    at = open_learn(7)
    no_exceptions(at)
    assert at.selectbox(key="learn_l7_leaver").value == "Zhang San"
    shown = metrics(at)
    assert shown[en["learn.l7.count_with"]] == "2"
    assert shown[en["learn.l7.count_without"].format(name="Zhang San")] == "1"
    assert shown[en["learn.l7.exact_posterior"]] == "1.000"
    story = at.warning[0].value
    assert "singles 2 → 1" in story and "Zhang San is single" in story and "100%" in story

    at.selectbox(key="learn_l7_leaver").set_value("Li Si").run()
    no_exceptions(at)
    shown = metrics(at)
    assert shown[en["learn.l7.count_with"]] == "2"
    assert shown[en["learn.l7.count_without"].format(name="Li Si")] == "2"
    assert shown[en["learn.l7.exact_posterior"]] == "1.000"
    assert "Li Si is in a couple" in at.warning[0].value


def test_lesson_seven_noise_bound_and_accuracy():
    """At the default ε = 1 and prior ½: bound e/(e + 1) = 0.731; the ln 3 example 0.75;
    Laplace scale b = 1/1 = 1.00, 95 % half-width ln 20 = 2.996; discrete half-width 3
    (P(|Z| ≥ m) = 2q^m/(1 + q) with q = 1/e: 0.073 at m = 3, 0.027 at m = 4)."""
    en = strings("en")
    at = open_learn(7)
    shown = metrics(at)
    assert shown[en["learn.l7.bound_metric"]] == "0.731"
    assert shown[en["learn.l7.sensitivity"]] == "1"
    assert shown[en["learn.l7.scale"]] == "1.00"
    assert shown[en["learn.l7.half_width"]] == "3.00"
    assert shown[en["learn.l7.discrete_half_width"]] == "3"
    assert any("the bound is **0.75**" in i for i in texts(at.info))
    # this draw's belief lies within the DP bounds [e⁻¹/(e⁻¹ + 1), e/(e + 1)]
    drawn = float(shown[en["learn.l7.draw_posterior"].format(name="Zhang San")])
    assert 0.268 <= drawn <= 0.731
    ratio = " ".join(texts(at.markdown))
    assert "largest ratio of their probabilities is 2.718, exactly e^ε = 2.718" in ratio
    assert len(at.get("vega_lite_chart")) == 1

    noisy = en["learn.l7.noisy_with"]
    before = shown[noisy]
    at.button(key="learn_l7_draw").click().run()
    no_exceptions(at)
    assert at.session_state["learn_l7_seed"] == 1
    after = metrics(at)
    assert after[en["learn.l7.count_with"]] == "2"  # the exact counts stay
    assert re.fullmatch(r"-?\d+", after[noisy]) and re.fullmatch(r"-?\d+", before)

    at.slider(key="learn_l7_prior").set_value(0.25).run()
    at.slider(key="learn_l7_eps").set_value(2.0).run()
    no_exceptions(at)
    shown = metrics(at)
    # 0.25·e² / (0.25·e² + 0.75) = e²/(e² + 3) = 0.711
    assert shown[en["learn.l7.bound_metric"]] == "0.711"
    assert shown[en["learn.l7.scale"]] == "0.50"


def test_lesson_seven_names_the_inverted_formula():
    at = open_learn(7)
    answer(at, 7, 0.25)  # ε·Δ instead of Δ/ε
    check(at, 7)
    assert at.error and "formula upside down" in at.error[0].value
    answer(at, 7, 4.0)
    check(at, 7)
    assert at.success and "b = Δ/ε = 1/0.25 = 4.00" in at.success[0].value
    assert "b·ln 20 = 11.98" in at.success[0].value  # 4·ln 20 = 11.983


def test_lesson_seven_in_chinese():
    zh = strings("zh")
    at = open_learn(7, "zh")
    no_exceptions(at)
    shown = metrics(at)
    assert shown[zh["learn.l7.count_with"]] == "2"
    assert shown[zh["learn.l7.count_without"].format(name="张三")] == "1"
    assert "张三 是单身" in at.warning[0].value
    assert zh["learn.l7.single"] in set(at.dataframe[0].value[zh["learn.l7.col_status"]])
    assert "张三" in set(at.dataframe[0].value[zh["learn.col.name"]])
    assert at.selectbox(key="learn_l7_leaver").value == "Zhang San"  # the value, not words
    shown_texts = [m.value for m in (*at.markdown, *at.warning, *at.caption)]
    assert not [v for v in shown_texts if "Zhang" in v]  # no pinyin in the Chinese lesson
    assert any(r"\text{单身}" in x.value for x in at.latex)
    answer(at, 7, 4.0)
    check(at, 7)
    assert at.success and "正确" in at.success[0].value
    answer(at, 7, 3.0)
    check(at, 7)
    assert at.error and "不对" in at.error[0].value


def test_output_probabilities_of_the_two_counts():
    """ε = ln 2: q = ½, P(Z = 0) = (1 − q)/(1 + q) = 1/3 and P(Z = ±1) = 1/6; the largest
    ratio between the counts 2 and 1 is e^ε = 2, between 2 and 2 it is 1."""
    from ui.learn import largest_ratio, output_probabilities

    table = output_probabilities(2, 1, math.log(2)).set_index("output")
    assert table.loc[2, "with"] == pytest.approx(1 / 3)
    assert table.loc[1, "with"] == pytest.approx(1 / 6)
    assert table.loc[1, "without"] == pytest.approx(1 / 3)
    assert table.loc[2, "without"] == pytest.approx(1 / 6)
    assert largest_ratio(table) == pytest.approx(2.0)
    # beyond both counts the rows reach the 99 % range of the noise on each side
    assert table["with"].sum() >= 0.99 and table["without"].sum() >= 0.99
    assert largest_ratio(output_probabilities(2, 2, math.log(2))) == pytest.approx(1.0)


# --------------------------------------------------------------------------- lesson 8


RECORD_COLUMNS = ("col_age", "col_sex", "col_race", "col_marital")


def record_tables(at: AppTest, lang: str = "en") -> list:
    """The tables of records the lesson shows (rebuilt, true, rebuilt from noise), as
    sorted lists of rows."""
    words = strings(lang)
    columns = [words[f"learn.l8.{c}"] for c in RECORD_COLUMNS]
    return [
        sorted(frame.value.itertuples(index=False, name=None))
        for frame in at.dataframe
        if list(frame.value.columns) == columns
    ]


def table_with(at: AppTest, column: str):
    return next(frame.value for frame in at.dataframe if column in frame.value.columns)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_lesson_eight_rebuilds_the_block_to_its_one_true_table(lang):
    """The stages: the totals, then by sex, then by race leave more than ten tables each;
    adding the adults' marital status leaves two (the 8-year-old single or married, six
    records certain); the rule that no one under 15 is married leaves one, the true block
    of the article's Table 2, all seven records certain."""
    words = strings(lang)
    at = open_learn(8, lang)
    no_exceptions(at)
    stages = table_with(at, words["learn.l8.col_stage"])
    tables = list(stages[words["learn.l8.col_tables"]])
    at_least = words["learn.l8.tables_at_least"].format(count=11)
    assert tables == [
        at_least,
        at_least,
        at_least,
        words["learn.l8.tables_exactly"].format(count=2),
        words["learn.l8.tables_unique"],
    ]
    assert list(stages[words["learn.l8.col_certain"]]) == [0, 0, 0, 6, 7]
    rebuilt, true = record_tables(at, lang)[:2]
    assert rebuilt == true and len(true) == 7
    assert (
        8,
        words["learn.l8.sex.F"],
        words["learn.l8.race.B"],
        words["learn.l8.marital.S"],
    ) in true
    assert texts(at.warning) == [words["learn.l8.rebuilt_same"].format(people=7, certain=7)]
    assert not at.success and not at.error  # the exercise's verdicts only
    shown = [(m.label, m.value) for m in at.metric]  # the exact tables' before the noisy
    assert (words["learn.l8.certain_metric"], "7 / 7") in shown
    assert shown[0] == (words["learn.l8.tables_metric"], words["learn.l8.tables_unique"])


def test_lesson_eight_counts_the_age_combinations():
    """Three men, median 30, mean 44: the middle one is 30, the other two add up to
    132 − 30 = 102 with the youngest 0..30 (the oldest 102..72 ≤ 115): 31 multisets of
    the C(118, 3) = 266,916 of three ages in 0..115. Checked against every multiset."""
    import itertools

    from ui.learn import age_combinations

    assert age_combinations(3, 30, 44) == (266_916, 31)
    assert age_combinations(7, 30, 38)[0] == math.comb(122, 7)
    for people, median, mean in [(3, 10, 12), (3, 20, 15), (5, 12, 14.2), (1, 7, 7)]:
        every = list(itertools.combinations_with_replacement(range(41), people))
        fitting = [
            ages
            for ages in every
            if ages[people // 2] == median and sum(ages) == round(people * mean)
        ]
        assert age_combinations(people, median, mean, oldest=40) == (len(every), len(fitting))
    with pytest.raises(ValueError):
        age_combinations(4, 30, 33.5)


def test_lesson_eight_attacks_the_noisy_counts():
    """At ε and a seed, the lesson's noisy counts are those of the discrete Laplace
    mechanism at ε/5 per table; the attack on them is told the noise and rebuilds fewer
    of the seven records than the exact tables did."""
    from ui.learn.reconstruction import PUBLISHED, noisy_release

    en = strings("en")
    at = open_learn(8)
    at.slider(key="learn_l8_eps").set_value(8.0).run()
    at.number_input(key="learn_l8_seed").set_value(3).run()
    no_exceptions(at)
    noisy = table_with(at, en["learn.l8.col_noisy"])
    assert list(noisy[en["learn.l8.col_statistic"]]) == [line.id for line in PUBLISHED]
    assert list(noisy[en["learn.l8.col_noisy"]]) == list(noisy_release(8.0, 3)[0])
    exact = [m.value for m in at.metric if m.label == en["learn.l8.exact_metric"]]
    assert exact[0] == "7 / 7"  # the exact tables
    rebuilt = int(exact[1].split(" / ")[0])
    assert rebuilt < 7
    assert any(f"at ε = 8.0 it rebuilds {rebuilt} exactly" in m for m in texts(at.markdown))
    assert len(record_tables(at)) == 3  # rebuilt, true, rebuilt from the noisy counts


def test_lesson_eight_exercise_names_the_sum():
    at = open_learn(8)
    answer(at, 8, 132)
    check(at, 8)
    assert at.error and "the sum of all three ages" in at.error[0].value
    answer(at, 8, 84)
    check(at, 8)
    assert at.success and "132 − 30 − 18 = 84" in at.success[0].value
    at = open_learn(8, "zh")
    answer(at, 8, 84)
    check(at, 8)
    assert at.success and "正确" in at.success[0].value
    answer(at, 8, 90)
    check(at, 8)
    assert at.error and "不对" in at.error[0].value


# --------------------------------------------------------------------------- catalogues


def placeholders(text: str) -> set[str]:
    return set(re.findall(r"{(\w+)}", text))


def test_learn_catalogues_have_the_same_keys_and_placeholders():
    en, zh = strings("en"), strings("zh")
    assert sorted(set(en) ^ set(zh)) == []
    for key, text in en.items():
        assert text.strip() and zh[key].strip(), key
        assert placeholders(text) == placeholders(zh[key]), key
    assert {"nav.learn", "home.link_learn"} <= set(en)


def test_every_learn_key_used_in_the_code_exists():
    en = strings("en")
    used = set()
    for path in (PAGE, *sorted((ROOT / "ui" / "learn").glob("*.py"))):
        used |= set(re.findall(r"\bt\(\s*\"([a-z_][\w.-]*)\"", path.read_text(encoding="utf-8")))
    assert used and sorted(used - set(en)) == []
    for n in range(1, 9):
        assert f"learn.l{n}.short" in en and f"learn.l{n}.title" in en
    for verdict in ("violation", "consistent", "inconclusive"):
        assert f"learn.l5.verdict_{verdict}" in en


def test_lesson_five_audit_for_a_second_visitor_comes_from_the_first():
    """The audit is the same for everyone: computed once per server, and a second
    visitor's press shows it too (no error when the kept result is served)."""
    first = open_learn(5)
    first.button(key="learn_l5_audit").click().run()
    no_exceptions(first)
    second = open_learn(5)
    second.button(key="learn_l5_audit").click().run()
    no_exceptions(second)
    assert not [e.value for e in second.error]
    assert second.session_state["learn_l5_audits"] == first.session_state["learn_l5_audits"]
