"""AppTest: the History page in words, not keys (English and Chinese).

Runs of the Privacy level (a measurement and a risk assessment), Anonymize, Attack, LDP
auditor and Differential privacy pages (every DP kind: queries, the dinner story, a release
compared with k-anonymity, audits of a mechanism and of uploaded outputs, the differencing
attack on a person; and a readiness report and a refused request) are recorded through the
application layer; selected on the History page, their list, details and comparison show
no key (``risk_threshold``), no Python or JSON text (``None``, ``["Age", "ZIP"]``) and no
raw JSON element, in either language. The formatting rules of :mod:`ui.history_view` are
checked by hand-computed examples.
"""

from __future__ import annotations

import re

import pandas as pd
import pytest

from privcore.data import load_sample
from privcore.dp import differencing
from privcore.dp.audit import audit_outputs
from privcore.errors import ParameterError
from privcore.runs import (
    AnonymizeRequest,
    AttackRequest,
    AuditRequest,
    DinnerRequest,
    DpAuditRequest,
    DpQueryRequest,
    DpReleaseRequest,
    Inputs,
    MeasureRequest,
    ReportRequest,
    RiskRequest,
    TaskRequest,
    make_request,
    run,
)
from privcore.runs.analysis_runners import differencing_summary
from tests.app.conftest import ROOT, new_app, no_exceptions, shown_tables
from ui import history as view

KEY = re.compile(r"^[a-z]+(_[a-z0-9]+)+$")
REPR = re.compile(r"^([\[\{]|None$|True$|False$|nan$|NaN$)")
CHINESE = re.compile(r"[\u4e00-\u9fff]")

QI, SA = ("ZIP", "Age"), ("Salary", "Disease")


def record_dp_runs(dataset, schema) -> list:
    """One run of each kind the Differential privacy page records (as the page records
    them): queries (a count drawn five times, a mean, a Gaussian histogram), the dinner
    story, a DP release compared with a k-anonymous one, audits of a correct and a broken
    mechanism and of uploaded outputs, and the differencing attack on a person."""
    inputs = Inputs(original=dataset, schema=schema)
    disease = dataset.frame["Disease"].iloc[0]
    outcomes = [
        run(DpQueryRequest(where={"Disease": disease}, epsilon=0.5, draws=5), inputs, page="dp"),
        run(
            DpQueryRequest(query="mean", column="Age", clamp=(0, 100), relation="replace"),
            inputs,
            page="dp",
        ),
        run(
            DpQueryRequest(query="histogram", columns=("ZIP",), noise="gaussian", delta=1e-6),
            inputs,
            page="dp",
        ),
        run(DinnerRequest(epsilon=1.0, leaver="Li Si"), Inputs(), page="dp"),
        run(
            DpReleaseRequest(qi=QI, sa=("Disease",), epsilon=1.0, k=3, gdpr=True),
            inputs,
            page="dp",
        ),
        run(DpAuditRequest(audited="laplace_count", samples=2000), Inputs(), page="dp"),
        run(DpAuditRequest(audited="broken_float_laplace", samples=2000), Inputs(), page="dp"),
    ]

    def audit_upload(progress):
        report = audit_outputs([0.0] * 300 + [1.0] * 300, [1.0] * 400 + [2.0] * 200, 1.0)
        return report, report.to_dict()

    def attack_person(progress):
        attack = differencing(dataset.frame, 0, {"Disease": disease}, epsilon=1.0, seed=3)
        return attack, differencing_summary(attack)

    uploaded = {"audited": "uploaded", "epsilon": 1.0, "delta": 0.0, "output_columns": ["a", "b"]}
    outcomes.append(
        run(TaskRequest(task="dp_audit", params=uploaded), Inputs(work=audit_upload), page="dp")
    )
    person = {"epsilon": 1.0, "prior": 0.5, "noise": "geometric", "where": ["Disease"], "seed": 3}
    outcomes.append(
        run(
            TaskRequest(task="dp_differencing", params=person),
            Inputs(original=dataset, work=attack_person),
            page="dp",
        )
    )
    return outcomes


def record_runs() -> list[int]:
    """One run per page that records runs (every kind of the Differential privacy page),
    plus a readiness report and a refused request (an error run); their ids, in the order
    recorded."""
    dataset, schema = load_sample("hospital")
    made = run(
        AnonymizeRequest(qi=QI, sa=SA, k=3),
        Inputs(original=dataset, schema=schema),
        page="anonymize",
    )
    release = made.result.export(shuffle=False)
    paired = Inputs(
        original=dataset, schema=schema, release=release, aligned=True, release_name="k3"
    )
    measured = run(MeasureRequest(qi=QI, sa=SA, k=3, l=2), paired, page="privacy_level")
    attacked = run(AttackRequest(qi=QI, sa=SA), paired, page="attack")
    audited = run(
        AuditRequest(mechanism="grr", epsilon=1.0, domain=4, methods=("ab", "ob", "lb")),
        page="ldp",
    )
    reported = run(ReportRequest(qi=QI, sa=SA), paired, page="report")
    assessed = run(RiskRequest(qi=QI, sa=SA, sampling_fraction=0.1), paired, page="privacy_level")
    perturbed = run(
        AnonymizeRequest(qi=("Age",), sa=SA, k=3, algorithm="mdav"),  # ZIP: a code
        Inputs(original=dataset, schema=schema),
        page="anonymize",
    )
    dp_runs = record_dp_runs(dataset, schema)
    with pytest.raises(ParameterError):
        make_request(AuditRequest, {"mechanism": "grr", "epsilon": -1.0}, page="ldp")
    ids = [
        o.run_id
        for o in (made, measured, attacked, audited, reported, assessed, perturbed, *dp_runs)
    ]
    assert all(ids), ids
    return ids


def raw_forms(at) -> list[tuple[str, str]]:
    """Column names and cells that look like a key or a repr, and raw JSON elements."""
    found = []
    for number, frame in enumerate(shown_tables(at, static=False)):
        found += [(f"table {number} column", c) for c in map(str, frame.columns) if KEY.match(c)]
        for column in frame.columns:
            cells = frame[column]
            if cells.dtype.kind in "biufcmM":
                continue
            for cell in cells.dropna().astype(str).unique():
                if KEY.match(cell) or REPR.match(cell):
                    found.append((f"table {number} cell of {column}", cell))
    found += [("raw JSON", str(e.value)[:60]) for e in at.json]
    return found


def history_page(lang: str, rows: int):
    at = new_app()
    at.session_state["lang"] = lang
    at.run()
    at.switch_page(str(ROOT / "pages" / "history.py"))
    at.run()
    at.session_state["history_table"] = {
        "selection": {"rows": list(range(rows)), "columns": [], "cells": []}
    }
    at.run()
    no_exceptions(at)
    return at


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_history_shows_words_not_keys(lang):
    ids = record_runs()
    at = history_page(lang, rows=len(ids) + 3)  # every run: the report's parts, the error
    assert not raw_forms(at), raw_forms(at)
    tables = shown_tables(at, static=False)
    listing = tables[0]
    pages = set(listing.iloc[:, 3])
    statuses = set(listing.iloc[:, 4])
    kinds = set(listing.iloc[:, 2])
    if lang == "en":
        assert {"Privacy level", "Anonymize", "Attack simulator", "LDP auditor"} <= pages
        assert "Differential privacy" in pages
        assert {"done", "error"} <= statuses
        assert {"DP query", "dinner story", "DP release", "DP audit", "differencing attack"} <= (
            kinds
        ), kinds
        assert "risk" in kinds, kinds
    else:
        assert {"隐私水平", "匿名化", "攻击模拟", "LDP 审计", "差分隐私"} <= pages, pages
        assert {"完成", "出错"} <= statuses
        assert {"DP 查询", "晚餐故事", "DP 发布", "DP 审计", "差分攻击"} <= kinds, kinds
        assert "风险评估" in kinds, kinds
    details = [f for f in tables[1:] if len(f.columns) == 2]
    assert details, "no details table"
    labels = {label for frame in details for label in frame.iloc[:, 0]}
    values = {value for frame in details for value in frame.iloc[:, 1]}
    if lang == "en":
        assert {"Quasi-identifiers", "Risk threshold", "Algorithm", "Mechanism"} <= labels
        assert "ZIP, Age" in values  # a list joined
        assert "Optimal full-domain search" in values  # a code by its title
        risk_labels = {
            "Population uniqueness · Model chosen",
            "Individual risk · Expected re-identifications",
            "Singling out · Naive attacker's baseline",
            "Inference (Disease) · Risk",
            "Control set · Source",
        }
        assert risk_labels <= labels, risk_labels - labels
        assert "a seeded share of the original held out" in values
        assert "Population-level risk · Individual risk · Expected re-identifications" in labels
        chosen = {
            frame.iloc[i, 1]
            for frame in details
            for i in range(len(frame))
            if frame.iloc[i, 0] == "Population uniqueness · Model chosen"
        }
        model_words = {
            "Pitman's model",
            "Zayatz's model",
            "the SNB model (slide negative binomial)",
        }
        model_words.add("none (the release has no sample uniques, so every model estimates 0)")
        assert chosen and chosen <= model_words, chosen
        dp_labels = {"Noisy answer", "Who leaves", "Mechanism to audit", "Event found · Kind"}
        assert dp_labels <= labels, dp_labels - labels
        dp_values = {
            "Li Si",
            "Replace one record",
            "Broken: textbook floating-point Laplace",
            "Uploaded outputs",
            "Geometric (discrete Laplace)",
        }
        assert dp_values <= values, dp_values - values
        assert any(
            re.match(r"k-anonymity: k ≥ 5 — achieved k = \d+ — (passed|failed)$", v) for v in values
        )
    else:
        assert {"准标识符", "风险阈值", "算法", "机制"} <= labels, labels
        assert {"带噪回答", "谁离席", "要审计的机制", "找到的事件 · 类型"} <= labels, labels
        assert {"李四", "有伴侣", "替换一条记录", "上传的输出"} <= values, values
        assert all(CHINESE.search(label) or len(label) < 4 for label in labels), [
            label for label in labels if not CHINESE.search(label) and len(label) >= 4
        ]
    compared = [f for f in tables[1:] if any(str(c).startswith("#") for c in f.columns)]
    assert len(compared) == 2  # parameters and results side by side
    assert len(compared[0].columns) == 1 + 6  # the field, then the six newest runs
    assert f"#{ids[-1]}" in compared[0].columns and f"#{ids[0]}" not in compared[0].columns
    downloads = list(at.download_button)
    expected = "Parameters and results (JSON)" if lang == "en" else "参数与结果（JSON）"
    assert sum(b.proto.label == expected for b in downloads) == len(ids) + 3


def test_a_refused_request_is_shown_in_words():
    record_runs()
    at = history_page("en", rows=1)  # the newest: the refused audit
    assert not at.json
    params, results = shown_tables(at, static=False)[1:3]
    assert params.columns.tolist() == ["Field", "Value"]
    assert ["Claimed ε", "-1"] in params.values.tolist()
    ((label, message),) = results.values.tolist()
    assert label == "Error" and "Claimed ε" in message, message
    assert "parameter.invalid" not in message and "epsilon" not in message


# --------------------------------------------------------------------------- formatting


def test_values_are_formatted_for_people():
    assert view.value_text("qi", ["Age", "ZIP"], "en") == "Age, ZIP"
    assert view.value_text("keep_order", True, "en") == "yes"
    assert view.value_text("keep_order", False, "zh") == "否"
    assert view.value_text("key", None, "en") == "—"
    assert view.value_text("max_suppression", 0.05, "en") == "5%"
    assert view.value_text("ci", [0.99208, 1.02948], "en") == "0.9921 – 1.029"
    assert view.value_text("epsilon_hat", 1.010814975, "en") == "1.011"
    assert view.value_text("samples", 100000, "en") == "100,000"
    assert view.value_text("event_counts", [24899, 9100], "en") == "24899, 9100"
    assert view.value_text("t", 1.249e-16, "en") == "0"
    assert view.value_text("algorithm", "optimal", "en") == "Optimal full-domain search"
    assert view.value_text("reason", "within_margin", "en") == "within the margin of the claim"
    assert view.value_text("measure_run", 4, "en") == "#4"


def test_nested_results_become_labelled_paths():
    lines = view.describe(
        {
            "l_distinct": {"Salary": 9, "Disease": 6},
            "risk": {"prosecutor_max": 0.1111111, "records_at_risk": 0.0},
            "risk_appetite_score": 3,
        },
        "en",
        "measure",
    )
    shown = [(line.label, line.value) for line in lines]
    assert shown == [
        ("Distinct l (Salary)", "9"),
        ("Distinct l (Disease)", "6"),
        ("Re-identification risk · Highest record risk", "0.1111"),
        ("Re-identification risk · Records at risk", "0%"),
        ("Risk appetite score", "3"),  # a key nobody labelled, humanized
    ]
    zh = view.describe({"l_distinct": {"Salary": 9}}, "zh", "measure")
    assert zh[0].label == "可区分 l（Salary）"


def test_a_risk_runs_attacks_are_labelled_under_their_attribute():
    lines = view.describe(
        {
            "inference": {
                "Salary": {
                    "risk": 0.25,
                    "baseline_ci": [0.1, 0.5],
                    "warnings": ["attack_not_better_than_baseline"],
                }
            },
            "control": {"source": "held_out"},
            "sampling_fraction_source": "roll",
        },
        "en",
        "risk",
    )
    assert [(line.label, line.value) for line in lines] == [
        ("Inference (Salary) · Risk", "0.25"),
        ("Inference (Salary) · Baseline's confidence interval", "0.1 – 0.5"),
        (
            "Inference (Salary) · Warnings",
            "The attack does no better than random guessing; its figures say nothing.",
        ),
        ("Control set · Source", "a seeded share of the original held out"),
        ("Sampling fraction from", "that of the default voter roll"),
    ]
    zh = view.describe({"inference": {"Salary": {"risk": 0.25}}}, "zh", "risk")
    assert zh[0].label == "推断（Salary） · 风险"


def test_a_model_report_is_one_line_per_model():
    verdicts = [
        {
            "model": "k-anonymity",
            "requirement": "k ≥ 5",
            "achieved": {"k": 9},
            "passed": True,
            "parameters": {"model": "k", "k": 5},
        },
        {
            "model": "distinct l-diversity",
            "requirement": "l ≥ 2 (distinct)",
            "achieved": {"l": {"Salary": 1}},
            "passed": False,
            "parameters": {"model": "distinct_l", "l": 2, "attributes": None},
        },
    ]
    lines = view.describe({"verdicts": verdicts}, "en", "measure")
    assert [(line.label, line.value) for line in lines] == [
        ("Privacy models · 1", "k-anonymity: k ≥ 5 — achieved k = 9 — passed"),
        (
            "Privacy models · 2",
            "distinct l-diversity: l ≥ 2 (distinct) — achieved l = 1 (Salary) — failed",
        ),
    ]
    zh = view.describe({"verdicts": verdicts[:1]}, "zh", "measure")
    assert zh[0].value == "k-匿名：k ≥ 5 — 达到 k = 9 — 通过"


def test_an_error_is_its_message_and_the_library_notes_stay_under_a_label():
    lines = view.describe(
        {
            "error": {"code": "hierarchy.missing_qi", "params": {"columns": ["ZIP", "Age"]}},
        },
        "en",
        "anonymize",
    )
    assert lines[0].label == "Error"
    assert lines[0].value.startswith("This needs a hierarchy for ZIP, Age")
    unworded = view.describe(
        {"error": {"code": "no.such_code", "params": {"option": "risk_threshold"}}}, "en"
    )
    assert unworded[0].value == "The run stopped with an error (Setting: Risk threshold)."
    assert view.describe({"error": {"code": "no.such_code"}}, "zh")[0].value == "运行因错误而停止。"
    notes = view.describe({"notes": ["PL of ZIP: constant column"]}, "en", "measure")
    assert [(n.label, n.value) for n in notes] == [("Notes · 1", "PL of ZIP: constant column")]


def test_the_comparison_lines_up_the_same_fields():
    runs = [
        {"id": 1, "kind": "measure", "params": {"k": 5, "qi": ["Age"]}},
        {"id": 2, "kind": "measure", "params": {"k": 3, "risk_threshold": 0.2}},
    ]
    table = view.compare(runs, "params", "en")
    assert table.columns.tolist() == ["Field", "#1", "#2"]
    assert table.values.tolist() == [
        ["k", "5", "3"],
        ["Quasi-identifiers", "Age", ""],
        ["Risk threshold", "", "0.2"],
    ]


def test_the_run_list_words_kind_page_and_status():
    runs = pd.DataFrame(
        {
            "kind": ["measure", "audit"],
            "page": ["privacy_level", "cli"],
            "status": ["ok", "cancelled"],
            "dataset_name": pd.array(["adult", None], dtype="string"),
        }
    )
    assert view.run_list(runs, "en").values.tolist() == [
        ["measure", "Privacy level", "done", "adult"],
        ["audit", "command line", "cancelled", "—"],
    ]
    assert view.run_list(runs, "zh").values.tolist() == [
        ["度量", "隐私水平", "完成", "adult"],
        ["审计", "命令行", "已取消", "—"],
    ]
    missing = pd.DataFrame({"kind": ["error"], "page": pd.array([None], dtype="string")})
    assert view.run_list(missing.assign(status="error"), "en")["page"].tolist() == ["—"]
