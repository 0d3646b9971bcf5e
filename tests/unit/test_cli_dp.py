"""``privcore dp query|dinner|release|audit``: the documented JSON keys, hand-computed
values, the history record and bad input (exit 2, one line)."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from privcore import history
from privcore.cli import main

QUERY_KEYS = {
    "answer",
    "answers",
    "scale",
    "sensitivity",
    "epsilon",
    "delta",
    "interval",
    "mechanism",
    "query",
}


@pytest.fixture
def people(tmp_path):
    """12 rows: 5 women, 7 men; ages 20..75 by 5."""
    frame = pd.DataFrame(
        {
            "sex": ["F"] * 5 + ["M"] * 7,
            "age": list(range(20, 80, 5)),
            "city": ["A", "B", "A", "B", "A", "B", "A", "B", "A", "B", "A", "B"],
        }
    )
    path = tmp_path / "people.csv"
    frame.to_csv(path, index=False)
    return path


def run_json(capsys, *argv: str) -> dict:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_count_keys_scale_and_interval(capsys, people):
    out = run_json(capsys, "dp", "query", str(people), "--count", "--where", "sex=F",
                   "--epsilon", "0.5", "--seed", "3")  # fmt: skip
    assert set(out) == QUERY_KEYS
    # a count: Δ = 1, geometric noise of scale Δ/ε = 2 by default
    assert (out["sensitivity"], out["scale"], out["epsilon"], out["delta"]) == (1.0, 2.0, 0.5, 0.0)
    assert out["mechanism"] == "geometric" and out["query"] == "count(sex=F)"
    assert isinstance(out["answer"], int) and out["answers"] == [out["answer"]]
    low, high = out["interval"]
    # the smallest k with P(|Z| > k) ≤ 5 %: P(|Z| ≥ m) = 2q^m/(1+q), q = e^(−1/2)
    q = math.exp(-0.5)
    k = next(k for k in range(100) if 2 * q ** (k + 1) / (1 + q) <= 0.05)
    assert (low, high) == (out["answer"] - k, out["answer"] + k)


def test_draws_are_independent_answers_around_the_truth(capsys, people):
    out = run_json(capsys, "dp", "query", str(people), "--count", "--where", "sex=M",
                   "--epsilon", "1", "--draws", "2000", "--seed", "1")  # fmt: skip
    answers = out["answers"]
    assert len(answers) == 2000 and answers[0] == out["answer"]
    assert abs(sum(answers) / len(answers) - 7) < 0.15  # true count 7, noise mean 0
    assert len(set(answers)) > 5


def test_clamped_sum_sensitivity_and_where(capsys, people):
    out = run_json(capsys, "dp", "query", str(people), "--sum", "age", "--clamp", "0,50",
                   "--where", "sex=F", "--epsilon", "2", "--mechanism", "laplace")  # fmt: skip
    # add/remove one record changes the clamped sum by at most max(|0|, |50|) = 50
    assert (out["sensitivity"], out["scale"], out["mechanism"]) == (50.0, 25.0, "laplace")
    low, high = out["interval"]
    assert high - low == pytest.approx(2 * 25.0 * math.log(20))


def test_mean_splits_the_budget(capsys, people):
    out = run_json(capsys, "dp", "query", str(people), "--mean", "age", "--clamp", "0,100",
                   "--epsilon", "1")  # fmt: skip
    assert out["scale"] == {"sum": 200.0, "count": 2.0}  # each half at ε/2
    assert 0 <= out["interval"][0] <= out["answer"] <= out["interval"][1] <= 100


def test_histogram_cells(capsys, people):
    out = run_json(capsys, "dp", "query", str(people), "--histogram", "sex,city",
                   "--epsilon", "1")  # fmt: skip
    cells = [tuple(sorted(c["cell"].items())) for c in out["answer"]]
    assert len(cells) == 4 and len(out["interval"]) == 4


def test_gaussian_needs_delta_and_uses_it(capsys, people):
    assert main(["dp", "query", str(people), "--count", "--epsilon", "1",
                 "--mechanism", "gaussian"]) == 2  # fmt: skip
    assert "δ" in capsys.readouterr().err
    out = run_json(capsys, "dp", "query", str(people), "--count", "--epsilon", "1",
                   "--mechanism", "gaussian", "--delta", "1e-5")  # fmt: skip
    assert out["delta"] == 1e-5 and out["scale"] == pytest.approx(3.7306, abs=1e-3)


@pytest.mark.parametrize(
    "argv, words",
    [
        (["--count", "--sum", "age", "--clamp", "0,1"], "exactly one of"),
        (["--sum", "age"], "clamp"),
        (["--sum", "age", "--clamp", "5"], "--clamp takes A,B"),
        (["--count", "--clamp", "0,1"], "--clamp belongs"),
        (["--count", "--where", "sex"], "--where takes COLUMN=VALUE"),
        (["--count", "--where", "nope=1"], "nope"),
        (["--sum", "sex", "--clamp", "0,1"], "not numeric"),
        (["--count", "--epsilon", "-1"], "epsilon"),
    ],
)
def test_bad_queries_exit_2_with_one_line(capsys, people, argv, words):
    if "--epsilon" not in argv:
        argv = [*argv, "--epsilon", "1"]
    code = main(["dp", "query", str(people), *argv])
    err = capsys.readouterr().err.strip()
    assert code == 2 and words in err and "\n" not in err and "Traceback" not in err


@pytest.mark.parametrize(
    "clamp",
    [["--clamp", "-70,30"], ["--clamp=-70,30"], ["--clamp", "-7e1,3e1"], ["--cla", "-70,30"]],
)
def test_a_negative_clamp_bound_is_the_options_value(capsys, people, clamp):
    out = run_json(capsys, "dp", "query", str(people), "--sum", "age", *clamp,
                   "--epsilon", "2", "--mechanism", "laplace")  # fmt: skip
    # clamped to [-70, 30]: Δ = max(|-70|, |30|) = 70, scale Δ/ε = 35
    assert (out["sensitivity"], out["scale"]) == (70.0, 35.0)
    assert out["query"] == "sum(age in [-70.0, 30.0])"


@pytest.mark.parametrize(
    "argv, words",
    [
        # values that start like a negative number reach the request's own check
        (["--count", "--epsilon", "-1e-3"], "--epsilon must be a number above 0, not -0.001"),
        (["--count", "--epsilon", "-inf"], "--epsilon must be a finite number above 0"),
        (["--count", "--draws", "-2"], "--draws"),
        # an option after an option is still a missing value
        (["--count", "--epsilon", "--draws", "2"], "--epsilon: expected one argument"),
    ],
)
def test_negative_values_are_values_and_missing_ones_are_refused(capsys, people, argv, words):
    try:
        code = main(["dp", "query", str(people), *argv])
    except SystemExit as stop:  # refused by the parser
        code = stop.code
    err = capsys.readouterr().err.strip()
    assert code == 2 and words in err and "\n" not in err


def test_a_negative_threshold_of_the_report_reaches_its_check(capsys, tmp_path):
    from pathlib import Path

    hospital = Path(__file__).resolve().parents[2] / "assets" / "hospital"
    tables = ["--original", str(hospital / "hospital.csv"),
              "--release", str(hospital / "hospital_release.csv")]  # fmt: skip
    code = main(["report", *tables, "--qi", "ZIP,Age", "--sa", "Disease",
                 "--max-t", "-1e-1", "--out", str(tmp_path / "r.html")])  # fmt: skip
    err = capsys.readouterr().err.strip()
    assert code == 2 and "max_t must be a number in [0, 1], not -0.1" in err


def test_dinner_story(capsys):
    out = run_json(capsys, "dp", "dinner", "--epsilon", str(math.log(3)))
    assert out["posterior_max"] == pytest.approx(0.75)
    assert out["posterior_exact_answers"] == 1.0
    assert (out["singles_before"], out["singles_after"]) == (2, 1)
    out = run_json(capsys, "dp", "dinner", "--epsilon", "1", "--prior", "0.1")
    expected = 0.1 * math.e / (0.1 * math.e + 0.9)
    assert out["posterior_max"] == pytest.approx(expected)


def test_dinner_bad_input(capsys):
    assert main(["dp", "dinner", "--epsilon", "1", "--prior", "1.5"]) == 2
    assert main(["dp", "dinner", "--epsilon", "1", "--leaver", "Nobody"]) == 2
    err = capsys.readouterr().err
    assert "not at the dinner" in err


def test_recorded_query_keeps_no_value_of_the_data(capsys, people):
    out = run_json(capsys, "dp", "query", str(people), "--count", "--where", "city=B",
                   "--epsilon", "1", "--record")  # fmt: skip
    runs = history.list_runs()
    assert [r["kind"] for r in runs] == ["dp_query"]
    run = history.get_run(runs[0]["id"])
    assert run["params"]["where"] == ["city"] and run["params"]["epsilon"] == 1.0
    assert run["results"]["answer"] == out["answer"]
    assert '"B"' not in json.dumps(run["params"]) and run["dataset_sha256"]


def test_refused_query_is_recorded_as_an_error(capsys, people):
    assert main(["dp", "query", str(people), "--sum", "sex", "--clamp", "0,1",
                 "--epsilon", "1", "--record"]) == 2  # fmt: skip
    runs = history.list_runs()
    assert [(r["status"], r["kind"]) for r in runs] == [("error", "dp_query")]


def hierarchy_options(root, columns):
    return [
        option
        for column in columns
        for option in ("--hierarchy", f"{column}={root}/adult_hierarchy_{column}.csv")
    ]


def test_release_writes_records_that_reproduce_the_marginals(capsys, adult_path, tmp_path):
    out_file = tmp_path / "synthetic.csv"
    out = run_json(capsys, "dp", "release", str(adult_path), "--qi", "sex,race",
                   "--sa", "salary-class", "--epsilon", "1", "--out", str(out_file))  # fmt: skip
    assert {"epsilon", "total", "marginals", "ledger", "records", "comparison"} <= set(out)
    assert [entry["epsilon"] for entry in out["ledger"]] == [0.5, 0.5]  # ε split over 2
    records = pd.read_csv(out_file)
    assert len(records) == out["total"] == out["records"]
    by_columns = {tuple(m["columns"]): m["cells"] for m in out["marginals"]}
    released = {
        (c["sex"], c["salary-class"]): c["count"] for c in by_columns[("sex", "salary-class")]
    }
    synthesized = records.value_counts(["sex", "salary-class"]).to_dict()
    assert {cell: n for cell, n in released.items() if n} == synthesized
    per_query = out["comparison"]["per_query"]
    assert len(per_query) == out["comparison"]["summary"]["queries"] == 2 + 2 * 2 + 5 * 2
    assert out["comparison"]["summary"]["k_anon"] is None and "k_anon" not in out


def test_release_compared_with_a_k_anonymous_release(capsys, adult_path, tmp_path):
    qi = ["age", "sex", "race", "education"]
    out = run_json(capsys, "dp", "release", str(adult_path), "--qi", ",".join(qi),
                   "--sa", "occupation", "--epsilon", "1", "--k", "10",
                   "--out", str(tmp_path / "s.parquet"),
                   *hierarchy_options(adult_path.parent, qi), "--record")  # fmt: skip
    summary = out["comparison"]["summary"]
    assert summary["k_anon"]["k"] == 10 and out["k_anon"]["k"] == 10
    # on Adult at ε = 1 the DP marginals answer these counts far better than 10-anonymity
    assert summary["dp"]["mean_abs_error"] < summary["k_anon"]["mean_abs_error"]
    first = out["comparison"]["per_query"][0]
    assert set(first) >= {"query", "true", "dp", "k_anon", "dp_error", "k_anon_error"}
    run = history.get_run(history.list_runs()[0]["id"])
    assert run["kind"] == "dp_release" and run["results"]["comparison"]["k_anon"]["k"] == 10
    assert "marginals" not in json.dumps(run["results"]["ledger"])
    assert "Prof-specialty" not in json.dumps(run["results"])  # no value of the data
    assert "gdpr_risks" not in out  # only with --gdpr


def test_release_with_the_three_risks_of_each_method(capsys, adult_path, tmp_path):
    qi = ["age", "sex", "race", "education"]
    out = run_json(capsys, "dp", "release", str(adult_path), "--qi", ",".join(qi),
                   "--sa", "occupation", "--epsilon", "1", "--k", "10", "--gdpr",
                   "--out", str(tmp_path / "s.csv"),
                   *hierarchy_options(adult_path.parent, qi))  # fmt: skip
    risks = out["gdpr_risks"]
    assert set(risks) == {"dp", "k_anon"}
    for figures in risks.values():
        assert {"singling_out", "linkability", "inference", "control"} <= set(figures)
        assert {"risk", "ci", "baseline"} <= set(figures["inference"]["occupation"])
        assert figures["control"] == "given"
        assert figures["training_rows"] + figures["control_rows"] == 30162
    # the lines say it too
    main(["dp", "release", str(adult_path), "--qi", ",".join(qi), "--sa", "occupation",
          "--epsilon", "1", "--gdpr", "--out", str(tmp_path / "t.csv")])  # fmt: skip
    said = capsys.readouterr().out
    assert "DP release (made from 80 %, 20 % held out): singling out" in said


def test_release_bad_input(capsys, adult_path, tmp_path):
    out = str(tmp_path / "s.csv")
    assert main(["dp", "release", str(adult_path), "--qi", "sex", "--sa", "race,sex",
                 "--epsilon", "1", "--out", out]) == 2  # fmt: skip
    assert "exactly one" in capsys.readouterr().err
    assert main(["dp", "release", str(adult_path), "--qi", "sex", "--sa", "sex",
                 "--epsilon", "1", "--out", out]) == 2  # fmt: skip
    assert main(["dp", "release", str(adult_path), "--qi", "sex", "--sa", "race",
                 "--epsilon", "1", "--out", str(adult_path)]) == 2  # fmt: skip
    assert (
        main(
            [
                "dp",
                "release",
                str(adult_path),
                "--qi",
                "sex",
                "--sa",
                "race",
                "--k",
                "5",
                "--epsilon",
                "1",
                "--out",
                out,
            ]
        )
        == 2
    )  # no hierarchy for the k-anonymous side
    assert not (tmp_path / "s.csv").exists()


def test_audit_names_are_the_auditors():
    from privcore.cli.dp import AUDITED
    from privcore.dp.audit import AUDIT_MECHANISMS

    assert tuple(AUDIT_MECHANISMS) == AUDITED


@pytest.mark.parametrize(
    "mechanism, epsilon, verdict",
    [
        ("geometric_count", "1", "consistent"),
        ("broken_no_clamp", "1", "violation"),
        ("broken_scale_eps", "0.5", "violation"),  # scale ε·Δ = 0.5 instead of Δ/ε = 2
    ],
)
def test_audit_keys_and_verdicts(capsys, mechanism, epsilon, verdict):
    out = run_json(capsys, "dp", "audit", "--mechanism", mechanism, "--epsilon", epsilon,
                   "--samples", "200000", "--seed", "1")  # fmt: skip
    assert {"epsilon_lb", "verdict", "mechanism", "samples", "epsilon"} <= set(out)
    assert out["verdict"] == verdict and out["samples"] == 200000
    if verdict == "violation":
        assert out["epsilon_lb"] > float(epsilon)
    else:
        assert out["epsilon_lb"] <= float(epsilon)


def test_audit_exits_0_on_a_violation_and_2_on_bad_input(capsys):
    assert main(["dp", "audit", "--mechanism", "broken_float_laplace", "--epsilon", "1"]) == 0
    assert "violation" in capsys.readouterr().out
    assert main(["dp", "audit", "--mechanism", "laplace_count", "--epsilon", "1",
                 "--samples", "10"]) == 2  # fmt: skip
    assert main(["dp", "audit", "--mechanism", "gaussian_count", "--epsilon", "1",
                 "--delta", "2"]) == 2  # fmt: skip
