"""AppTest: the "Choose ε" tab of the Differential privacy page — the ε that meets a
count's error, a posterior or a membership advantage, the sentence that says it, the
trade-off chart with its data, the library call that gives the figure, a target no ε
meets in words (never a traceback), and the tab in Chinese."""

from __future__ import annotations

import math
import re
import subprocess
import sys

import pytest

from privcore.dp import planning
from privcore.words.catalog import catalogue, format_text
from tests.app.conftest import ROOT, new_app, no_exceptions

PAGE = str(ROOT / "pages" / "differential_privacy.py")
CHINESE = re.compile(r"[\u4e00-\u9fff]")


def open_page(lang: str = "en"):
    at = new_app()
    at.session_state["lang"] = lang
    at.run()
    at.switch_page(PAGE)
    at.run()
    no_exceptions(at)
    return at


def words(key: str, lang: str = "en") -> str:
    return catalogue(lang)[key]


def plan_metric(at, lang: str = "en") -> str | None:
    labels = {words(f"dp.plan_epsilon_{b}", lang) for b in ("smallest", "largest")}
    found = [m.value for m in at.metric if m.label in labels]
    assert len(found) <= 1, found
    return found[0] if found else None


def goal(at, name: str):
    at.radio(key="dp_plan_goal").set_value(name).run()
    no_exceptions(at)
    return at


def said(at) -> str:
    return " ".join(m.value.replace("\\", "") for m in at.markdown)


def code_of(at) -> str:
    return next(c.value for c in at.code if "planning.epsilon_for_" in c.value)


def run_code(code: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip().splitlines()


def test_the_tab_is_on_the_page_and_its_default_is_a_count_s_error():
    at = open_page()
    assert words("dp.tab_plan") in [tab.label for tab in at.tabs]
    assert at.radio(key="dp_plan_goal").value == "error"
    assert at.number_input(key="dp_plan_confidence").value == 0.95
    assert at.selectbox(key="dp_plan_mechanism").value == "geometric"
    expected = planning.epsilon_for_error(10.0, 0.95)  # discrete Laplace, Δ = 1
    assert plan_metric(at) == f"{expected:.5g}"
    text = said(at)
    assert "Geometric (discrete Laplace)" in text and "± 10" in text and "95 %" in text
    # every control of the tab says what it is for
    for key in ("dp_plan_error", "dp_plan_confidence", "dp_plan_sensitivity"):
        assert at.number_input(key=key).help
    assert at.selectbox(key="dp_plan_mechanism").help and at.radio(key="dp_plan_goal").help


def test_the_trade_off_chart_comes_with_its_data_and_the_chosen_epsilon():
    at = open_page()
    goal(at, "posterior")
    captions = " ".join(c.value.replace("\\", "") for c in at.caption)
    assert "What each ε buys and costs" in captions and "25 values drawn" in captions
    assert "ε = 1.0986" in captions  # the vertical line at the chosen ε, in words
    at.toggle(key="dp_plan_chart_data").set_value(True).run()
    no_exceptions(at)
    table = next(
        d.value for d in at.dataframe if words("dp.plan_chart_posterior") in d.value.columns
    )
    assert list(table.columns) == [
        "ε",
        words("dp.plan_chart_error"),
        words("dp.plan_chart_posterior"),
        words("dp.plan_chart_advantage"),
    ]
    assert len(table) == 25
    assert table["ε"].min() == pytest.approx(math.log(3) / 10)
    assert table["ε"].max() == pytest.approx(10 * math.log(3))
    chosen = table.loc[(table["ε"] - math.log(3)).abs() < 1e-12]
    assert chosen[words("dp.plan_chart_posterior")].iloc[0] == pytest.approx(0.75)


def test_a_posterior_of_three_quarters_from_an_even_prior_is_ln3():
    at = open_page()
    goal(at, "posterior")
    assert at.number_input(key="dp_plan_posterior").value == 0.75
    assert at.number_input(key="dp_plan_prior").value == 0.5
    assert plan_metric(at) == "1.0986"  # ln 3
    text = said(at)
    assert "ε = 1.0986 or less" in text and "probability 0.5" in text and "at most 0.75" in text
    # the call shown prints the figure shown, and the sentence's figures at that ε
    lines = run_code(code_of(at))
    assert float(lines[0]) == pytest.approx(math.log(3), rel=1e-15)
    assert f"{float(lines[0]):.5g}" == plan_metric(at)
    assert "'posterior': 0.75" in lines[1]


def test_a_membership_advantage_gives_its_epsilon():
    at = open_page()
    goal(at, "advantage")
    assert plan_metric(at) == f"{math.log(1.2 / 0.8):.5g}"  # default advantage 0.2
    at.number_input(key="dp_plan_advantage").set_value(0.5).run()
    no_exceptions(at)
    assert plan_metric(at) == "1.0986"  # ln((1 + 0.5)/(1 − 0.5)) = ln 3
    assert "TPR − FPR" in said(at)
    assert float(run_code(code_of(at))[0]) == pytest.approx(math.log(3))


@pytest.mark.parametrize(
    ("mechanism", "delta"), [("geometric", None), ("laplace", None), ("gaussian", 1e-5)]
)
def test_each_mechanism_of_a_count_s_error(mechanism, delta):
    at = open_page()
    at.number_input(key="dp_plan_error").set_value(5.0)
    at.number_input(key="dp_plan_confidence").set_value(0.99)
    at.selectbox(key="dp_plan_mechanism").set_value(mechanism).run()
    no_exceptions(at)
    assert (delta is not None) == any(n.key == "dp_plan_delta" for n in at.number_input)
    if delta is not None:
        at.number_input(key="dp_plan_delta").set_value(delta).run()
        no_exceptions(at)
    expected = planning.epsilon_for_error(
        5.0, 0.99, mechanism=mechanism, sensitivity=1.0, delta=delta or 0.0
    )
    if mechanism == "laplace":
        assert expected == pytest.approx(math.log(100) / 5)  # Δ·ln(1/β)/E
    assert plan_metric(at) == f"{expected:.5g}"
    assert float(run_code(code_of(at))[0]) == pytest.approx(expected, rel=1e-12)
    if delta is not None:
        assert "δ = 1e-05" in said(at)


@pytest.mark.parametrize(
    ("target", "code", "params"),
    [
        ("posterior", "dp.bad_target_posterior", {"posterior": "0.4", "prior": "0.5"}),
        ("unreachable", "dp.target_unreachable", {"error": "0.01", "ceiling": "1000"}),
        ("zero_error", "dp.bad_target_error", {"error": "0.0"}),
        ("advantage", "dp.bad_target_advantage", {"advantage": "1.0"}),
    ],
)
def test_a_target_no_epsilon_meets_is_said_in_words(target, code, params):
    at = open_page()
    if target == "posterior":
        goal(at, "posterior")
        at.number_input(key="dp_plan_posterior").set_value(0.4).run()
    elif target == "unreachable":
        at.selectbox(key="dp_plan_mechanism").set_value("gaussian").run()
        at.number_input(key="dp_plan_error").set_value(0.01).run()
    elif target == "zero_error":
        at.number_input(key="dp_plan_error").set_value(0.0).run()
    else:
        goal(at, "advantage")
        at.number_input(key="dp_plan_advantage").set_value(1.0).run()
    no_exceptions(at)
    shown = [e.value.replace("\\", "") for e in at.error]
    assert format_text(words(f"error.{code}"), params) in shown, shown
    assert not any("Traceback" in s or "Error:" in s for s in shown)
    assert plan_metric(at) is None  # no ε, no chart, no call
    assert not any("planning.epsilon_for_" in c.value for c in at.code)


def test_the_tab_speaks_chinese():
    at = open_page("zh")
    assert "选择 ε" in [tab.label for tab in at.tabs]
    goal(at, "posterior")
    assert plan_metric(at, "zh") == "1.0986"
    radio = at.radio(key="dp_plan_goal")
    assert radio.label == words("dp.plan_goal", "zh") and CHINESE.search(radio.help)
    text = said(at)
    assert "当 ε 不超过 1.0986 时" in text and "0.75" in text
    captions = " ".join(c.value for c in at.caption)
    assert words("dp.plan_chart_title", "zh") in captions
    for key in ("dp_plan_posterior", "dp_plan_prior"):
        field = at.number_input(key=key)
        assert CHINESE.search(field.label) and CHINESE.search(field.help)
    at.number_input(key="dp_plan_posterior").set_value(0.25).run()
    no_exceptions(at)
    expected = format_text(
        words("error.dp.bad_target_posterior", "zh"), {"posterior": "0.25", "prior": "0.5"}
    )
    assert expected in [e.value.replace("\\", "") for e in at.error]


def test_every_goal_speaks_only_chinese():
    """The check of the Chinese walk (tests/app/test_words_not_keys.py), on each of the
    tab's goals and on a target no ε meets: no English word but names, no pinyin."""
    from privcore.data import load_sample
    from tests.app.test_words_not_keys import (
        ENGLISH,
        NAMES,
        NOT_WORDS,
        _data_words,
        _texts,
        pinyin_names,
    )

    hospital, _ = load_sample("hospital")
    allowed = {w.lower() for w in NAMES} | {w.lower() for w in _data_words(hospital.frame)}
    at = new_app()
    at.session_state["lang"] = "zh"
    at.session_state["workbench"].active = "hospital"
    at.run()
    at.switch_page(PAGE)
    at.run()
    found = []
    for name in ("error", "posterior", "advantage", "bad"):
        if name == "bad":
            at.number_input(key="dp_plan_advantage").set_value(1.0).run()
        else:
            goal(at, name)
        if name == "error":
            at.selectbox(key="dp_plan_mechanism").set_value("gaussian").run()
        no_exceptions(at)
        for where, text in _texts(at):
            words_here = NOT_WORDS.sub(" ", text)
            for word in ENGLISH.findall(words_here):
                word = word.strip("-'’")
                if word.lower() in allowed or word.isupper():
                    continue
                found.append((name, where, word, text[:80]))
            found += [(name, where, p, text[:80]) for p in pinyin_names(words_here)]
    assert not found, found[:20]


def test_each_layer_of_independent_y_has_a_y_of_its_own():
    """Vega-Lite draws nothing (a 25-pixel blank in the browser) when a layer without a
    y, such as the rule at the chosen ε, stands beside layers of independent y: the rule
    goes inside the error's layer."""
    from ui.dp.plan import plan_of, tradeoff_chart, tradeoff_frame

    spec = tradeoff_chart(tradeoff_frame(plan_of("advantage", advantage=0.5))).to_dict()
    assert spec["resolve"]["scale"]["y"] == "independent"

    def has_y(view: dict) -> bool:
        return "y" in view.get("encoding", {}) or any(map(has_y, view.get("layer", [])))

    assert [has_y(view) for view in spec["layer"]] == [True, True]
    marks = [v["mark"] for v in spec["layer"][0]["layer"]]
    assert [m if isinstance(m, str) else m["type"] for m in marks] == ["line", "rule"]
