"""The words of a readiness report: codes in privcore, sentences in privcore.words.catalog
(English and Chinese), and the page (ui.report_view), the HTML (privcore.words.report_html)
and the command line saying the same thing with the same numbers."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from privcore.data import load_sample
from privcore.errors import ParameterError
from privcore.report import (
    ACTIONS,
    CHECKS,
    CONDITIONS,
    NOTES,
    VERDICTS,
    ReadinessReport,
    Thresholds,
    readiness,
)
from privcore.report.checks import PL_NOTE_KINDS
from privcore.words.catalog import LANGUAGES, action_label, catalogue, report_json, texts_of
from privcore.words.report_html import render_html

ROOT = Path(__file__).resolve().parents[2]
QI, SA = ["ZIP", "Age"], ["Salary", "Disease"]
XSS = "<img src=x onerror=alert(1)>"
#: The three Article 29 risks waived, for reports about other checks and conditions.
WITHOUT_ARTICLE29 = {"max_singling_out": None, "max_linkability": None, "max_inference": None}


@pytest.fixture(scope="module")
def hospital() -> tuple[pd.DataFrame, pd.DataFrame]:
    return load_sample("hospital")[0].frame, load_sample("hospital_release")[0].frame


@pytest.fixture(scope="module")
def nine_rows(hospital) -> ReadinessReport:
    """The worked example at the default thresholds: not ready (k = 3 < 5, PL 0.5 > 0.3,
    prosecutor 1/3 > 0.2, inference on Salary 0.255 > 0.2), linkability 0 with an interval
    up to 1, rows in the original order."""
    original, release = hospital
    return readiness(original, release, qi=QI, sa=SA)


@pytest.fixture(scope="module")
def busy(hospital) -> ReadinessReport:
    """A report with many conditions and notes: a sequential key, a name column, an
    unanalysed QI-like column, a noisy sensitive attribute (PL not meaningful)."""
    original, release = hospital
    original = original.assign(record_no=range(1, 10), sex=["F", "M"] * 4 + ["F"])
    release = release.assign(
        record_no=range(1, 10),
        patient_name=[f"Person {i}" for i in range(9)],
        sex=original["sex"],
        Disease=[f"d{i}" for i in range(9)],  # more variety than the original: noise
    )
    thresholds = Thresholds(min_k=3, max_journalist=0.05, min_ul=0.99, **WITHOUT_ARTICLE29)
    return readiness(original, release, qi=QI, sa=SA, key="record_no", thresholds=thresholds)


def _keys(lang: str) -> set[str]:
    return {k for k in catalogue(lang) if k.startswith("report.")}


def _templates_fragments() -> set[str]:
    """The literal pieces (≥ 12 characters) of every report sentence in both languages."""
    pieces = set()
    for lang in LANGUAGES:
        for key, template in catalogue(lang).items():
            if key.startswith("report."):
                for piece in re.split(r"{\w+}", template):
                    if len(piece.strip()) >= 12:
                        pieces.add(piece.strip())
    return pieces


# --------------------------------------------------------------------------- codes only


def test_privcore_returns_codes_and_no_sentence_of_the_catalogue(nine_rows, busy):
    pieces = _templates_fragments()
    assert len(pieces) > 100  # the pattern finds the sentences
    for report in (nine_rows, busy):
        dumped = json.dumps(report.to_dict(), ensure_ascii=False)
        found = [p for p in pieces if p in dumped]
        assert found == []
        assert not re.search(r"[\u4e00-\u9fff]", dumped)  # no Chinese
        assert not re.search(r"<[a-zA-Z/!]", dumped)  # no markup
        for item in report.reasons + report.conditions + report.notes:
            assert "message" not in item
    assert [c["condition"] for c in busy.conditions] == [
        "row_order",
        "key_sequential",
        "identifiers_present",
        "unanalysed_columns",
        "pl_note",
    ]
    assert busy.conditions[-1]["params"] == {"attribute": "Disease", "note": "not_meaningful"}


def test_privcore_report_has_no_text_html_or_row_group_by():
    """The report modules hold no Chinese, no markup, no CSS, and count no rows
    themselves: every group-by goes through privcore.classes."""
    sources = sorted((ROOT / "privcore" / "report").glob("*.py"))
    assert [p.name for p in sources] == [
        "__init__.py",
        "checks.py",
        "context.py",
        "dossier.py",
        "findings.py",
        "intruder.py",
        "method_comparison.py",
        "readiness.py",
        "reconstructed.py",
        "redo.py",
        "redo_code.py",
        "register.py",
        "risk.py",
        "stored.py",
        "thresholds.py",
    ]
    forbidden = re.compile(
        r"groupby|np\.unique|bincount|value_counts|factorize|drop_duplicates|nunique|"
        r"\.unique\(|<html|<style|<table|font-family|[\u4e00-\u9fff]"
    )
    for path in sources:
        found = forbidden.findall(path.read_text(encoding="utf-8"))
        assert found == [], (path.name, found)


def test_every_code_has_words_in_both_languages():
    en, zh = _keys("en"), _keys("zh")
    assert en == zh
    needed = {f"report.verdict.{v}" for v in VERDICTS}
    needed |= {f"report.verdict.{v}.text" for v in VERDICTS}
    needed |= {f"report.check.{c}" for c in CHECKS}
    needed |= {f"report.status.{s}" for s in ("pass", "fail", "warn")}
    needed |= {f"report.advice.{c}" for c in CHECKS if c != "ul"} | {"report.advice.ul"}
    needed |= {f"report.condition.{c}" for c in CONDITIONS if c != "pl_note"}
    needed |= {f"report.condition.pl_note.{n}" for n in PL_NOTE_KINDS}
    needed |= {f"report.note.{n}" for n in NOTES if n != "pl_note"}
    needed |= {f"report.note.pl_note.{n}" for n in PL_NOTE_KINDS}
    needed |= {f"report.try.{a}" for a in ACTIONS}
    needed |= {f"report.threshold.{t}" for t in Thresholds().to_dict()}
    needed |= {f"report.threshold.{t}.help" for t in Thresholds().to_dict()}
    assert sorted(needed - en) == []


def test_no_internal_references_in_any_text(busy):
    """The measurement flags PL as "not meaningful"; no text — the measurement's note,
    the catalogue, the report in either language — cites an internal section."""
    assert "§" not in json.dumps(busy.measurement["pl_notes"], ensure_ascii=False)
    for lang in LANGUAGES:
        for key, value in catalogue(lang).items():
            assert not re.search(r"§|seed 00\d|SPEC", value), key
        words = texts_of(busy, lang)
        said = " ".join(
            [words.verdict, words.summary, *words.notes]
            + [c.sentence for c in words.conditions]
            + [r.sentence + (r.advice or "") for r in words.reasons]
        )
        assert "§" not in said and "§" not in render_html(busy, lang)
    assert "is not meaningful" in texts_of(busy, "en").conditions[-1].sentence


def test_thresholds_help_says_how_k_and_the_risks_relate():
    en = catalogue("en")
    assert "0.1 → 10" in en["report.threshold.min_k.help"]
    assert "k ≥ 10" in en["report.threshold.max_journalist.help"]
    assert "k ≥ 10" in catalogue("zh")["report.threshold.max_journalist.help"]


# --------------------------------------------------------------------------- sentences


def test_sentences_of_the_nine_row_table(nine_rows):
    words = texts_of(nine_rows, "en")
    assert words.verdict == "Not ready"
    # inference on Salary, 1 of 2 attacks right against 0 of 2 controls (Wilson centres
    # 0.5 and 1.92/5.84 = 0.329): (0.5 − 0.329)/(1 − 0.329) = 0.255 > the limit 1/5 = 0.2
    assert [r.sentence for r in words.reasons] == [
        "k = 3 < 5",
        "PL = 0.5 > 0.3",
        "prosecutor risk = 0.333 > 0.2",
        "inference risk on Salary = 0.255 > 0.2 (95% interval 0 to 0.961; a naive "
        "attacker's baseline 0.329)",
    ]
    assert words.reasons[0].advice == (
        "Every class needs at least 5 records: anonymize again with k = 5."
    )
    assert [r.button for r in words.reasons] == [
        "Try k = 5",
        "Try k = 6",
        "Try k = 5",
        "Try k = 6, distinct l = 2",
    ]
    assert words.fix is None  # "Try k = 6, distinct l = 2" already tries every fix
    # linkability, 1 of 2 attacks right against 1 of 2 controls: 0 ≤ 0.2, but its interval
    # reaches 1 (a condition); journalist 1/11 = 0.0909 is far below 0.8 × 0.2 = 0.16
    assert [c.sentence for c in words.conditions] == [
        "linkability risk = 0 passes its limit 0.2, but its 95% confidence interval reaches 1 "
        "(from 0): the measurement cannot rule out a risk above the limit. Publish with care, "
        "or anonymize further and measure again.",
        "Rows were matched by position, so this file is in the original row order: shuffle "
        "the rows before publishing (anyone who knows the original order could read row i "
        "as person i).",
    ]
    assert words.conditions[1].button == "Shuffle the rows"
    checks = {c.label: c.sentence for c in words.checks}
    assert checks["distinct l of Disease"] == "distinct l of Disease = 3 ≥ 2"
    assert checks["re-identified share"] == "re-identified share = 0 ≤ 0 (0 of 9 people)"
    zh = texts_of(nine_rows, "zh")
    assert zh.verdict == "不可发布"
    assert zh.reasons[2].sentence == "检察官风险 = 0.333 > 0.2"
    assert zh.reasons[0].button == "尝试 k = 5"
    assert {c.label: c.sentence for c in zh.checks}["被重新识别比例"] == (
        "被重新识别比例 = 0 ≤ 0（9 人中 0 人）"
    )
    with pytest.raises(ParameterError):
        texts_of(nine_rows, "fr")


def test_a_journalist_risk_near_a_stricter_limit_is_a_condition(hospital):
    # the seed-0 roll matches 11 people to one class: 1/11 = 0.0909 ≤ 0.1 but ≥ 0.8 × 0.1
    original, release = hospital
    thresholds = Thresholds(max_journalist=0.1)
    report = readiness(original, release, qi=QI, sa=SA, thresholds=thresholds)
    assert texts_of(report, "en").conditions[0].sentence == (
        "journalist risk = 0.0909 passes but lies within 20% of its limit 0.1: publish with "
        "care and measure again after any change to the data."
    )


def test_action_labels():
    assert action_label({"action": "anonymize", "k": 10}) == "Try k = 10"
    both = {"action": "anonymize", "k": 6, "l": 2, "l_kind": "distinct"}
    assert action_label(both) == "Try k = 6, distinct l = 2"
    assert action_label({"action": "anonymize", "max_suppression": 0.05}) == (
        "Try suppression limit 5%"
    )
    assert action_label({"action": "anonymize", "algorithm": "mondrian"}) == "Try Mondrian"
    assert action_label({"action": "drop_columns", "columns": ["name"]}) == "Remove 'name'"
    assert action_label({"action": "anonymize", "k": 10}, "zh") == "尝试 k = 10"
    assert action_label(None) is None


def test_the_words_of_a_report_and_of_its_json_are_the_same(nine_rows, busy):
    for report in (nine_rows, busy):
        for lang in LANGUAGES:
            assert texts_of(report.to_dict(), lang) == texts_of(report, lang)
    data = report_json(nine_rows)
    words = texts_of(nine_rows)
    assert [r["message"] for r in data["reasons"]] == [r.sentence for r in words.reasons]
    assert [r["advice"] for r in data["reasons"]] == [r.advice for r in words.reasons]
    assert [c["message"] for c in data["conditions"]] == [c.sentence for c in words.conditions]
    assert [c["message"] for c in data["checks"]] == [c.sentence for c in words.checks]
    assert "message" not in nine_rows.reasons[0]  # the report itself is left as it is


# --------------------------------------------------------------------------- HTML


def _assert_self_contained(page: str) -> None:
    lowered = page.lower()
    assert lowered.startswith("<!doctype html>")
    for forbidden in ("<script", "http://", "https://", "<link", "<img", "@import", "url("):
        assert forbidden not in lowered, forbidden
    assert "<style>" in page and "@media print" in page
    assert "break-before: page" in page


def test_html_self_contained_with_verdict_and_thresholds(hospital):
    original, release = hospital
    thresholds = Thresholds(min_k=3, max_t=0.45, min_ul=0.6, max_disclosed_share=0.07)
    report = readiness(original, release, qi=QI, sa=SA, thresholds=thresholds)
    page = render_html(report)
    _assert_self_contained(page)
    assert "verdict-not_ready" in page and "Not ready" in page
    assert "<li>PL = 0.5 &gt; 0.3" in page
    for name, value in thresholds.to_dict().items():
        label = html.escape(catalogue("en")[f"report.threshold.{name}"], quote=True)
        shown = "not required" if value is None else f"{value:g}"
        assert f"<td>{label}</td><td>{shown}</td>" in page, name
        assert name not in page  # the threshold's name in words, never its key
    for figure in ("k-anonymity", "t-closeness", "DR", "UL", "Discernibility", "Salary"):
        assert figure in page
    assert report.fingerprint["sha256"] in page
    zh = render_html(report, "zh")
    _assert_self_contained(zh)
    assert "不可发布" in zh and 'lang="zh-CN"' in zh
    with pytest.raises(ParameterError):
        render_html(report, "fr")


def test_html_escapes_user_strings(hospital):
    original, release = hospital
    original = original.rename(columns={"ZIP": XSS})
    release = release.rename(columns={"ZIP": XSS})
    report = readiness(
        original,
        release,
        qi=[XSS, "Age"],
        sa=SA,
        thresholds=Thresholds(min_k=3),
        algorithm={"algorithm": "<b>datafly</b>", "params": {"note": "</style><script>"}},
        original_name="<script>alert(1)</script>.csv",
        release_name="x&y.csv",
    )
    for lang in LANGUAGES:
        page = render_html(report, lang)
        _assert_self_contained(page)
        assert "&lt;img src=x onerror=alert(1)&gt;" in page
        assert "&lt;script&gt;alert(1)&lt;/script&gt;.csv" in page
        assert "&lt;b&gt;datafly&lt;/b&gt;" in page and "<b>" not in page
        assert "x&amp;y.csv" in page
        assert page.count("</style>") == 1


def test_the_html_says_every_sentence_of_the_report(nine_rows, busy):
    for report in (nine_rows, busy):
        for lang in LANGUAGES:
            page = render_html(report, lang)
            words = texts_of(report, lang)
            said = [words.verdict, words.summary, *words.notes]
            said += [c.sentence for c in words.conditions]
            said += [r.sentence for r in words.reasons] + [r.advice for r in words.reasons]
            said += [c.sentence for c in words.checks] + [c.label for c in words.checks]
            for sentence in said:
                assert html.escape(sentence, quote=True) in page, sentence


def test_chinese_html_has_no_english_reason_text(busy, nine_rows):
    for report in (nine_rows, busy):
        page = render_html(report, "zh")
        en, zh = texts_of(report, "en"), texts_of(report, "zh")
        english = [en.verdict, en.summary, *en.notes]
        english += [c.sentence for c in en.conditions] + [c.label for c in en.checks]
        english += [r.sentence for r in en.reasons] + [r.advice for r in en.reasons]
        chinese = [zh.verdict, zh.summary, *zh.notes]
        chinese += [c.sentence for c in zh.conditions] + [c.label for c in zh.checks]
        chinese += [r.sentence for r in zh.reasons] + [r.advice for r in zh.reasons]
        # "k = 3 < 5" and "PL = 0.5 > 0.3" read the same in both languages
        for sentence in set(english) - set(chinese):
            assert html.escape(sentence, quote=True) not in page, sentence
        assert any(re.search(r"[\u4e00-\u9fff]", s) for s in chinese)
        for word in ("prosecutor risk", "Reasons", "Conditions", "Every class needs", "Try "):
            assert word not in page


def test_ready_html_has_green_box(hospital):
    original, release = hospital
    thresholds = Thresholds(min_k=3, max_pl=None, max_journalist=None, **WITHOUT_ARTICLE29)
    report = readiness(
        original, release, qi=QI, sa=SA, thresholds=thresholds, aligned=True, shuffled=True
    )
    assert report.verdict == "ready"
    page = render_html(report)
    assert "verdict-ready" in page and "Verdict: Ready to publish" in page
    assert "可以发布" in render_html(report, "zh")


# --------------------------------------------------------------------------- the page


def _report_page():
    import streamlit as st

    from privcore.data import load_sample
    from privcore.report import readiness
    from ui.report.view import show_report

    original = load_sample("hospital")[0].frame
    release = load_sample("hospital_release")[0].frame
    report = readiness(original, release, qi=["ZIP", "Age"], sa=["Salary", "Disease"])
    st.session_state["report"] = report
    action = show_report(report, key="t")
    if action is not None:
        st.session_state["action"] = action


@pytest.mark.parametrize("lang", sorted(LANGUAGES))
def test_the_page_says_what_the_html_says(lang):
    """The page's verdict, reasons (with their advice), conditions and checks are the
    sentences of the HTML document, numbers included; a "Try" button returns its action."""
    at = AppTest.from_function(_report_page)
    at.session_state["lang"] = lang
    at.run(timeout=60)
    assert not at.exception
    report = at.session_state["report"]
    words = texts_of(report, lang)
    page = render_html(report, lang)

    def shown(elements) -> list[str]:
        return [e.value.replace("\\", "") for e in elements]

    assert any(words.verdict in m for m in shown(at.markdown))
    errors = shown(at.error)
    # k, PL, prosecutor and inference on Salary fail at the default thresholds
    assert len(errors) == len(words.reasons) == 4
    for reason, error in zip(words.reasons, errors, strict=True):
        assert error == f"{reason.sentence}  \n{reason.advice}"
        assert html.escape(reason.sentence) in page and html.escape(reason.advice) in page
    warnings = shown(at.warning)
    assert warnings == [c.sentence for c in words.conditions]
    assert all(html.escape(w) in page for w in warnings)
    table = at.dataframe[0].value
    assert list(table.iloc[:, -1]) == [c.sentence for c in words.checks]
    assert all(html.escape(c.sentence) in page for c in words.checks)

    buttons = {b.key: b.label for b in at.button}
    assert buttons["t_reason_0"] == words.reasons[0].button
    assert buttons["t_condition_1"] == words.conditions[1].button
    at.button(key="t_reason_1").click().run(timeout=60)
    assert at.session_state["action"] == {"action": "anonymize", "k": 6}


def test_sentences_of_unusual_checks():
    """No class at all (every row suppressed), a figure that could not be measured, a
    t and a UL that fail, from stored figures alone."""
    from privcore.report import evaluate_checks
    from tests.unit.test_readiness import _figures

    measurement, attacks = _figures(m__k=None, m__pl__all=None, m__ul=0.4)
    measurement["t_closeness"]["Disease"]["t"] = 0.3
    thresholds = Thresholds(max_t=0.2, min_ul=0.6, **WITHOUT_ARTICLE29)
    checks, reasons, conditions, verdict = evaluate_checks(measurement, attacks, {}, thresholds)
    report = {
        "verdict": verdict,
        "reasons": reasons,
        "conditions": conditions,
        "checks": checks,
        "notes": [],
    }
    words = texts_of(report, "en")
    said = [c.sentence for c in words.checks]
    assert said[0] == "k: no equivalence class (every row is suppressed)"
    assert "t of Disease = 0.3 > 0.2" in said and "PL: not measured" in said
    assert [r.button for r in words.reasons] == ["Try t = 0.2", "Try Mondrian"]
    assert words.fix == "Try t = 0.2, Mondrian"
    assert [c.sentence for c in words.conditions] == [
        "PL could not be measured: check it by other means before publishing."
    ]
    assert texts_of(report, "zh").checks[0].sentence == "k：没有等价类（所有行均被抑制）"
