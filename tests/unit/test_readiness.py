"""Release readiness (privcore.report): checks, conditions, verdicts, HTML, history, CLI."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from privcore import history
from privcore.anonymize import anonymize
from privcore.cli import main
from privcore.data import Role, Schema, load, load_sample
from privcore.errors import DataFormatError, ParameterError, PrivcoreError, RoleError
from privcore.models import DistinctLDiversity, KAnonymity
from privcore.report import (
    CONDITION_TEXTS,
    CONDITIONS,
    LABELS,
    ReadinessReport,
    Thresholds,
    readiness,
    report_from_history,
)

ROOT = Path(__file__).resolve().parents[2]
HOSPITAL = ROOT / "assets" / "hospital" / "hospital.csv"
HOSPITAL_RELEASE = ROOT / "assets" / "hospital" / "hospital_release.csv"
QI, SA = ["ZIP", "Age"], ["Salary", "Disease"]
XSS = "<img src=x onerror=alert(1)>"


@pytest.fixture(scope="module")
def hospital() -> tuple[pd.DataFrame, pd.DataFrame]:
    return load(HOSPITAL).frame, load(HOSPITAL_RELEASE).frame


def statuses(report: ReadinessReport) -> dict[str, str]:
    return {
        c["check"] + (f":{c['attribute']}" if c["attribute"] else ""): c["status"]
        for c in report.checks
    }


def codes(report: ReadinessReport) -> list[str]:
    return [c["condition"] for c in report.conditions]


# --------------------------------------------------------------------------- thresholds


def test_thresholds_defaults_round_trip():
    t = Thresholds()
    assert (t.min_k, t.min_l, t.max_t, t.max_pl, t.max_prosecutor) == (5, 2, None, 0.3, 0.2)
    assert Thresholds.from_dict(t.to_dict()) == t
    assert Thresholds.from_dict({"min_k": 3}) == Thresholds(min_k=3)
    assert Thresholds.from_dict(json.loads(json.dumps(t.to_dict()))) == t


@pytest.mark.parametrize(
    "bad",
    [
        {"min_k": 0},
        {"min_k": 2.5},
        {"min_k": True},
        {"min_k": "5"},
        {"min_l": 0.5},
        {"max_t": 1.5},
        {"max_pl": -0.1},
        {"max_pl": float("nan")},
        {"max_prosecutor": 0},
        {"max_prosecutor": None},
        {"max_journalist": 2},
        {"max_reidentified_share": -1},
        {"max_disclosed_share": 1.01},
        {"max_suppressed_share": float("inf")},
        {"min_ul": 2},
    ],
)
def test_thresholds_out_of_range(bad):
    with pytest.raises(ParameterError) as info:
        Thresholds(**bad)
    assert info.value.code == "report.bad_threshold"
    assert next(iter(bad)) in info.value.message


def test_thresholds_unknown_key():
    with pytest.raises(ParameterError, match="min_kk"):
        Thresholds.from_dict({"min_kk": 5})


# --------------------------------------------------------------------------- hospital


def test_hospital_min_k_3_by_hand(hospital):
    """Worked by hand (SPEC §2, §3): classes {1,2,3},{4,5,6},{7,8,9} of 3 rows, each with
    3 distinct salaries and 3 distinct diseases. k = 3 ≥ 3 and l = 3 ≥ 2 pass; PL(all) =
    0.5 > 0.3 and prosecutor 1/3 > 0.2 fail. The released ZIP cells (4767*, 4790*, 4760*)
    and ages (<=40, >=40) are disjoint, so a roll person matches at most one class of 3
    records: nobody is matched uniquely (0 re-identified) and no candidate set holds a
    single SA value (0 disclosed); nothing is suppressed."""
    original, release = hospital
    report = readiness(
        original, release, qi=QI, sa=SA, thresholds=Thresholds(min_k=3, max_journalist=None)
    )
    assert report.verdict == "not_ready"
    assert statuses(report) == {
        "k": "pass",
        "l_distinct:Salary": "pass",
        "l_distinct:Disease": "pass",
        "pl": "fail",
        "prosecutor": "fail",
        "reidentified_share": "pass",
        "disclosed_share": "pass",
        "suppressed_share": "pass",
    }
    assert [r["message"] for r in report.reasons] == [
        "PL = 0.5 > 0.3",
        "prosecutor risk = 0.333 > 0.2",
    ]
    by_check = {c["check"]: c for c in report.checks}
    assert by_check["pl"]["value"] == pytest.approx(0.5)
    assert by_check["prosecutor"]["value"] == pytest.approx(1 / 3)
    assert by_check["reidentified_share"]["value"] == 0.0
    assert by_check["disclosed_share"]["value"] == 0.0
    # Conditions are listed even when not ready: the file is in the original order.
    assert codes(report) == ["row_order_unverified"]


def test_hospital_min_k_3_with_looser_limits_is_ready_with_conditions(hospital):
    """Prosecutor ≤ 1/3 and PL ≤ 0.6 pass; PL = 0.5 ≥ 0.8 × 0.6 = 0.48 is near its limit."""
    original, release = hospital
    thresholds = Thresholds(min_k=3, max_prosecutor=1 / 3, max_pl=0.6, max_journalist=None)
    report = readiness(original, release, qi=QI, sa=SA, thresholds=thresholds)
    assert report.verdict == "ready_with_conditions"
    assert report.reasons == []
    assert statuses(report)["pl"] == "warn"
    assert codes(report) == ["near_limit", "row_order_unverified"]
    assert report.conditions[0]["params"]["check"] == "PL"
    assert report.ready


def test_hospital_journalist_from_the_roll(hospital):
    """Journalist risk = 1 / (roll people matching the class), max over classes: with the
    seed-0 roll of 90 people one class matches 11 of them → 1/11, which passes 0.1 but
    lies within 20 % of it (a warning and a condition)."""
    original, release = hospital
    report = readiness(original, release, qi=QI, sa=SA, thresholds=Thresholds(min_k=3), seed=0)
    journalist = next(c for c in report.checks if c["check"] == "journalist")
    assert journalist["value"] == pytest.approx(report.attacks["risk"]["journalist_max"])
    assert journalist["value"] == pytest.approx(1 / 11)
    assert journalist["status"] == "warn"
    assert "near_limit" in codes(report)
    assert report.attacks["roll"]["size"] == 90  # 10 × rows by default


def test_hospital_min_k_5_not_ready_with_k_reason(hospital):
    original, release = hospital
    report = readiness(original, release, qi=QI, sa=SA, thresholds=Thresholds(min_k=5))
    assert report.verdict == "not_ready"
    assert report.reasons[0]["message"] == "k = 3 < 5"
    assert report.reasons[0] | {"message": None} == {
        "check": "k",
        "attribute": None,
        "value": 3,
        "threshold": 5,
        "message": None,
    }


def test_raw_table_as_release_not_ready(hospital):
    original, _ = hospital
    report = readiness(original, original, qi=QI, sa=SA)
    assert report.verdict == "not_ready"
    assert report.attacks["linkage"]["reidentified"] == 9
    reasons = {r["check"]: r["message"] for r in report.reasons}
    assert reasons["reidentified_share"] == "re-identified share = 1 > 0 (9 of 9 people)"
    assert reasons["k"] == "k = 1 < 5"
    assert reasons["disclosed_share"].startswith("disclosed share = 1 > 0.05")
    assert "homogeneous_classes" in codes(report)


def test_columns_key_and_order_conditions(hospital):
    """A release with a sequential key in the original order, a name column and an
    unanalysed QI-like column: every one of them is a condition."""
    original, release = hospital
    original = original.assign(record_no=np.arange(1, 10), sex=["F", "M"] * 4 + ["F"])
    release = release.assign(
        record_no=np.arange(1, 10),
        patient_name=[f"Person {i}" for i in range(9)],
        sex=original["sex"],
    )
    thresholds = Thresholds(min_k=3, max_prosecutor=0.34, max_pl=None, max_journalist=None)
    report = readiness(original, release, qi=QI, sa=SA, key="record_no", thresholds=thresholds)
    assert report.verdict == "ready_with_conditions"
    assert codes(report) == [
        "row_order",
        "key_sequential",
        "identifiers_present",
        "unanalysed_columns",
    ]
    assert report.findings["identifiers"] == ["patient_name"]
    assert report.findings["qi_like"] == ["sex"]

    # Shuffled rows and a random surrogate key: no order or key condition.
    rng = np.random.default_rng(3)
    token = rng.permutation(9) + 100
    shuffled = release.drop(columns=["patient_name", "sex"]).assign(token=token)
    shuffled = shuffled.drop(columns="record_no").iloc[[4, 7, 1, 8, 0, 3, 6, 2, 5]]
    report = readiness(
        original.drop(columns=["record_no", "sex"]).assign(token=token),
        shuffled,
        qi=QI,
        sa=SA,
        key="token",
        thresholds=thresholds,
    )
    assert report.verdict == "ready", report.conditions
    assert report.findings["order"]["kept"] is False
    assert any("surrogate" in note for note in report.notes)


def test_key_named_like_an_identifier(hospital):
    original, release = hospital
    ids = [f"P{i:03d}" for i in (5, 2, 9, 1, 7, 3, 8, 4, 6)]
    report = readiness(
        original.assign(patient_id=ids),
        release.assign(patient_id=ids),
        qi=QI,
        sa=SA,
        key="patient_id",
        thresholds=Thresholds(min_k=3),
    )
    assert "key_identifier" in codes(report)


def test_suppressed_rows_within_limit_are_a_condition(hospital):
    original, release = hospital
    release = release.copy()
    # Two rows at '*' in every QI fail k = 3 as one class: they are suppressed (three
    # would be a 3-anonymous class of their own); the third row of their class joins
    # the class of rows 7-9.
    release.loc[[0, 1], QI] = "*"
    release.loc[2, QI] = release.loc[6, QI]
    thresholds = Thresholds(
        min_k=3, max_prosecutor=0.34, max_pl=None, max_journalist=None, max_suppressed_share=0.4
    )
    report = readiness(original, release, qi=QI, sa=SA, thresholds=thresholds)
    assert report.measurement["suppressed_rows"] == 2
    assert "suppressed_rows" in codes(report)
    assert statuses(report)["suppressed_share"] == "pass"
    strict = readiness(original, release, qi=QI, sa=SA, thresholds=Thresholds(min_k=3))
    assert "suppressed share = 0.222 > 0.05 (2 of 9 rows)" in [r["message"] for r in strict.reasons]


# --------------------------------------------------------------------------- bad input


def test_bad_input_errors(hospital):
    original, release = hospital
    with pytest.raises(RoleError):
        readiness(original, release, qi=["ZIP", "Nope"], sa=SA)
    with pytest.raises(DataFormatError) as info:
        readiness(original, release.iloc[:8], qi=QI, sa=SA)
    assert info.value.code == "measure.alignment"
    with pytest.raises(ParameterError):
        readiness(original, release, qi=QI, sa=SA, thresholds=Thresholds.from_dict({"max_t": 3}))
    with pytest.raises(ParameterError):
        readiness(original.to_dict(), release, qi=QI, sa=SA)
    with pytest.raises(PrivcoreError):
        readiness(original, release, qi=QI, sa=SA, roll_size=3)  # smaller than the data set


def test_progress_is_reported(hospital):
    original, release = hospital
    seen: list[float] = []
    readiness(original, release, qi=QI, sa=SA, progress=lambda f, _m: seen.append(f))
    assert seen[0] == 0.0 and seen[-1] == 1.0
    assert all(0.0 <= f <= 1.0 for f in seen)
    assert seen == sorted(seen)


# --------------------------------------------------------------------------- Adult


@pytest.fixture(scope="module")
def adult():
    """Adult with a random surrogate key, and two Mondrian releases: k = 10, and
    k = 10 with distinct 2-diversity."""
    dataset, schema = load_sample("adult")
    frame = dataset.frame.assign(
        token=np.random.default_rng(1).permutation(len(dataset.frame)).astype(str)
    )
    schema = Schema({**schema.roles, "token": Role.INSENSITIVE}, schema.hierarchies)
    k10 = anonymize(frame, schema, [KAnonymity(10)], algorithm="mondrian")
    k10_l2 = anonymize(frame, schema, [KAnonymity(10), DistinctLDiversity(2)], algorithm="mondrian")
    return frame, schema, k10, k10_l2


LOOSE = Thresholds(
    min_k=10,
    min_l=None,
    max_pl=0.5,
    max_prosecutor=0.1,
    max_journalist=0.2,
    max_disclosed_share=0.01,
)


def test_adult_k10_mondrian_ready_with_expected_conditions(adult):
    """Mondrian k = 10 without l: a few classes hold a single occupation (homogeneity),
    and ``Release.frame`` is in the original order (rows matched by position)."""
    frame, schema, k10, _ = adult
    qi = list(schema.quasi_identifiers)
    report = readiness(
        frame.drop(columns="token"),
        k10.frame.drop(columns="token"),
        qi=qi,
        sa=["occupation"],
        thresholds=LOOSE,
        hierarchies=schema.hierarchies,
        algorithm={"algorithm": k10.algorithm, "params": k10.params},
    )
    assert report.verdict == "ready_with_conditions"
    assert report.reasons == []
    assert codes(report) == ["homogeneous_classes", "row_order_unverified"]
    assert report.measurement["k"] == 10
    assert report.attacks["linkage"]["reidentified"] == 0
    assert report.attacks["before"]["linkage"]["reidentified"] > 0
    assert report.findings["homogeneity"]["classes_exposed"] > 0
    # The exported (shuffled) release, matched by the surrogate key: order is no issue.
    shuffled = readiness(
        frame,
        k10.export(seed=7),
        qi=qi,
        sa=["occupation"],
        key="token",
        thresholds=LOOSE,
        hierarchies=schema.hierarchies,
    )
    assert codes(shuffled) == ["homogeneous_classes"]
    assert shuffled.findings["key"]["leaks"] is False


def test_adult_k10_l2_shuffled_is_ready(adult):
    frame, schema, _, k10_l2 = adult
    report = readiness(
        frame,
        k10_l2.export(seed=7),
        qi=list(schema.quasi_identifiers),
        sa=["occupation"],
        key="token",
        thresholds=Thresholds.from_dict({**LOOSE.to_dict(), "min_l": 2}),
        hierarchies=schema.hierarchies,
    )
    assert report.verdict == "ready", report.conditions
    assert report.conditions == [] and report.reasons == []
    assert {c["status"] for c in report.checks} == {"pass"}
    # QIs flagged "PL not meaningful" after local recoding are notes, not conditions.
    assert any("not meaningful" in note for note in report.notes)


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
    page = report.to_html()
    _assert_self_contained(page)
    assert "verdict-not_ready" in page and "Not ready" in page
    assert "PL = 0.5 &gt; 0.3" in page
    for name, value in thresholds.to_dict().items():
        assert f"<code>{name}</code>" in page
        shown = "not required" if value is None else f"{value:g}"
        assert re.search(rf"<code>{name}</code></td><td>{re.escape(shown)}</td>", page), name
    for figure in ("k-anonymity", "t-closeness", "DR", "UL", "discernibility", "Salary"):
        assert figure in page
    assert report.fingerprint["sha256"] in page
    zh = report.to_html("zh")
    _assert_self_contained(zh)
    assert "不可发布" in zh and 'lang="zh-CN"' in zh
    with pytest.raises(ParameterError):
        report.to_html("fr")


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
    for lang in ("en", "zh"):
        page = report.to_html(lang)
        _assert_self_contained(page)
        assert "&lt;img src=x onerror=alert(1)&gt;" in page
        assert "&lt;script&gt;alert(1)&lt;/script&gt;.csv" in page
        assert "&lt;b&gt;datafly&lt;/b&gt;" in page and "<b>" not in page
        assert "x&amp;y.csv" in page
        assert page.count("</style>") == 1


def test_ready_html_has_green_box(adult):
    frame, schema, _, k10_l2 = adult
    report = readiness(
        frame,
        k10_l2.export(seed=7),
        qi=list(schema.quasi_identifiers),
        sa=["occupation"],
        key="token",
        thresholds=Thresholds.from_dict({**LOOSE.to_dict(), "min_l": 2}),
        hierarchies=schema.hierarchies,
    )
    page = report.to_html()
    assert "verdict-ready" in page and "Verdict: Ready" in page
    assert "可以发布" in report.to_html("zh")


def test_labels_and_condition_texts_in_both_languages():
    assert LABELS["en"].keys() == LABELS["zh"].keys()
    english, chinese = CONDITION_TEXTS["en"], CONDITION_TEXTS["zh"]
    assert set(CONDITIONS) == english.keys() == chinese.keys()
    for code in CONDITIONS:
        fields = set(re.findall(r"{(\w+)}", english[code]))
        assert fields == set(re.findall(r"{(\w+)}", chinese[code])), code


def test_to_dict_is_json(hospital):
    original, release = hospital
    report = readiness(original, release, qi=QI, sa=SA)
    text = json.dumps(report.to_dict(), allow_nan=False, ensure_ascii=False)
    data = json.loads(text)
    assert data["verdict"] == "not_ready"
    assert data["thresholds"] == Thresholds().to_dict()
    assert data["roles"] == {"qi": QI, "sa": SA, "key": None}
    assert set(data["fingerprint"]) == {"sha256", "rows", "columns"}
    assert "47677" not in text  # aggregates only, never a row of the data


# --------------------------------------------------------------------------- history


def test_record_writes_three_runs_and_reproduces(hospital, isolated_history):
    original, release = hospital
    thresholds = Thresholds(min_k=3, max_prosecutor=0.34, max_pl=0.6)
    report = readiness(
        original,
        release,
        qi=QI,
        sa=SA,
        thresholds=thresholds,
        algorithm={"algorithm": "datafly", "params": {"k": 3}},
        record=True,
    )
    assert isolated_history.exists()
    runs = history.list_runs()
    assert sorted(r["kind"] for r in runs) == ["attack", "measure", "report"]
    assert sorted(report.run_ids) == sorted(r["id"] for r in runs)
    measure_id, attack_id, report_id = report.run_ids
    stored = history.get_run(report_id)
    assert stored["results"]["measure_run"] == measure_id
    assert stored["results"]["attack_run"] == attack_id
    assert stored["params"]["thresholds"] == thresholds.to_dict()
    assert stored["dataset_sha256"] == report.fingerprint["sha256"]
    assert stored["data"] is None  # never the data itself

    again = report_from_history(report_id)
    assert again["verdict"] == report.verdict == "ready_with_conditions"
    assert Thresholds.from_dict(again["thresholds"]) == thresholds
    assert again["measurement"] == report.measurement
    assert again["attacks"] == report.attacks
    assert again["recomputed_verdict"] == report.verdict and again["consistent"] is True
    assert again["algorithm"] == {"algorithm": "datafly", "params": {"k": 3}}
    assert again["run_ids"] == report.run_ids

    with pytest.raises(ParameterError):
        report_from_history(measure_id)
    with pytest.raises(PrivcoreError):
        report_from_history(999)


def test_no_record_by_default(hospital, isolated_history):
    original, release = hospital
    report = readiness(original, release, qi=QI, sa=SA)
    assert report.run_ids == [] and not isolated_history.exists()


# --------------------------------------------------------------------------- CLI


def _cli(*extra: str) -> list[str]:
    return [
        "report",
        "--original",
        str(HOSPITAL),
        "--release",
        str(HOSPITAL_RELEASE),
        "--qi",
        "ZIP,Age",
        "--sa",
        "Salary,Disease",
        "--quiet",
        *extra,
    ]


def test_cli_ready_with_conditions_exits_0(tmp_path, capsys):
    out = tmp_path / "report.html"
    code = main(
        _cli("--min-k", "3", "--max-prosecutor", "0.34", "--max-pl", "0.6", "--out", str(out))
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert printed.startswith("verdict: ready with conditions")
    assert "conditions:" in printed and "shuffle the rows" in printed
    _assert_self_contained(out.read_text(encoding="utf-8"))


def test_cli_not_ready_exits_1_and_json(tmp_path, capsys):
    out = tmp_path / "report.html"
    assert main(_cli("--out", str(out))) == 1
    printed = capsys.readouterr().out
    assert "FAIL k = 3 < 5" in printed
    assert main(_cli("--out", str(out), "--json", "--lang", "zh", "--max-journalist", "none")) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"] == "not_ready"
    assert data["thresholds"]["max_journalist"] is None
    assert data["fingerprint"]["name"] == "hospital.csv"
    assert "不可发布" in out.read_text(encoding="utf-8")


def test_cli_record(tmp_path, capsys):
    out = tmp_path / "report.html"
    assert main(_cli("--min-k", "3", "--out", str(out), "--record")) == 1
    assert "history runs: #1, #2, #3" in capsys.readouterr().out
    assert report_from_history(3)["verdict"] == "not_ready"


@pytest.mark.parametrize(
    "extra",
    [
        ("--qi", "ZIP,Nope"),
        ("--max-suppressed", "1.5"),
        ("--min-k", "0"),
        ("--max-prosecutor", "none"),
        ("--hierarchy", "ZIP"),
        ("--algorithm-report", "/nonexistent/report.json"),
    ],
)
def test_cli_bad_input_exits_2_with_one_line(tmp_path, capsys, extra):
    out = tmp_path / "report.html"
    assert main([*_cli("--out", str(out)), *extra]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and "\n" not in err
    assert not out.exists()


def test_cli_unwritable_out_exits_2(capsys):
    assert main(_cli("--out", "/nonexistent/folder/report.html")) == 2
    assert "folder does not exist" in capsys.readouterr().err


def test_cli_bad_option_value_exits_2(tmp_path):
    with pytest.raises(SystemExit) as info:
        main(_cli("--out", str(tmp_path / "r.html"), "--max-pl", "abc"))
    assert info.value.code == 2


def test_cli_algorithm_report(tmp_path, capsys):
    made = tmp_path / "anon.json"
    made.write_text(json.dumps({"algorithm": "datafly", "params": {"seed": 0}, "node": None}))
    out = tmp_path / "report.html"
    main(_cli("--min-k", "3", "--out", str(out), "--algorithm-report", str(made), "--json"))
    data = json.loads(capsys.readouterr().out)
    assert data["algorithm"]["algorithm"] == "datafly"
    assert "datafly" in out.read_text(encoding="utf-8")


# --------------------------------------------------------------------------- rebuilt


def test_a_recorded_report_is_rebuilt_from_the_history_alone(hospital, tmp_path, capsys):
    from privcore.report import readiness_from_history

    original, release = hospital
    made = readiness(original, release, qi=QI, sa=SA, record=True, owner="o" * 32)
    report_id = made.run_ids[-1]
    rebuilt = readiness_from_history(report_id)
    assert rebuilt.verdict == made.verdict == "not_ready"
    assert rebuilt.checks == made.checks and rebuilt.reasons == made.reasons
    # the HTML is the same document, with one note saying where it came from
    note = f"<li>Rebuilt from history run #{report_id}.</li>"
    assert rebuilt.to_html().replace(note + "\n", "") == made.to_html()
    # the command line writes it again, with the verdict as exit code
    out = tmp_path / "again.html"
    assert main(["report", "--from-run", str(report_id), "--out", str(out)]) == 1
    assert out.read_text(encoding="utf-8") == rebuilt.to_html()
    capsys.readouterr()
    # another visitor's lookup and a report whose measure run is gone
    with pytest.raises(PrivcoreError) as info:
        readiness_from_history(report_id, owner="x" * 32)
    assert info.value.code == "history.no_run"
    history.delete_run(made.run_ids[0])
    with pytest.raises(PrivcoreError) as info:
        readiness_from_history(report_id)
    assert info.value.code == "report.missing_runs"
    assert main(["report", "--from-run", str(report_id), "--out", str(out)]) == 2


def test_report_command_without_tables_or_a_run_exits_2(tmp_path, capsys):
    assert main(["report", "--out", str(tmp_path / "r.html")]) == 2
    assert "--original, --release, --qi, --sa (or --from-run ID)" in capsys.readouterr().err


def test_a_threshold_that_cannot_be_waived_says_so(tmp_path, capsys):
    args = ["report", "--original", str(HOSPITAL), "--release", str(HOSPITAL_RELEASE)]
    args += ["--qi", "ZIP,Age", "--sa", "Disease", "--out", str(tmp_path / "r.html")]
    assert main([*args, "--max-disclosed", "none"]) == 2
    err = capsys.readouterr().err
    assert "--max-disclosed cannot be 'none'" in err and "--max-t" in err
    assert main([*args, "--max-t", "none", "--quiet"]) in (0, 1)  # waivable
