"""``privcore dp release --method mst|aim``: the (ε, δ), ρ and ledger step by step, the
binnings and the error bounds in words and as JSON; public bounds with ``--bounds`` and
``--bins``; ``--delta``, ``--bins`` and ``--bounds`` refused with the marginal release and
a malformed ``--bounds`` refused (exit 2, one line, no traceback); the marginal release
unchanged by ``--method marginals``; and a budget file charged the release's δ."""

from __future__ import annotations

import contextlib
import io
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from privcore import history
from privcore.cli import build_parser, main
from privcore.cli.dp_release import DEFAULT_DELTA_WORDS
from privcore.data import load_sample
from privcore.dp.synthesis import DEFAULT_DELTA
from privcore.dp.zcdp import rho_for
from privcore.runs import OPTIONS

ROOT = Path(__file__).resolve().parents[2]
QI, SA = "age,sex,race", "salary-class"
#: The JSON keys of an MST or AIM release without --k or --gdpr (README "Command line").
SYNTHESIS_KEYS = {
    "epsilon",
    "total",
    "marginals",
    "ledger",
    "records",
    "relation",
    "out",
    "comparison",
    "method",
    "delta",
    "rho",
    "bounds",
    "binnings",
}
RELEASED = [("salary-class",), ("age", "salary-class"), ("sex", "salary-class")]
RELEASED += [("race", "salary-class")]


@pytest.fixture(scope="module")
def table(tmp_path_factory) -> Path:
    """2,000 rows of the adult sample: age (70 values, binned), sex, race, salary-class."""
    path = tmp_path_factory.mktemp("dp_release") / "adult.csv"
    frame = load_sample("adult")[0].frame.head(2000)
    frame[["age", "sex", "race", "salary-class"]].to_csv(path, index=False)
    return path


def _release(table: Path, *more: str) -> list[str]:
    out = table.parent / f"records-{abs(hash(more))}.csv"
    return ["dp", "release", str(table), "--qi", QI, "--sa", SA, "--epsilon", "2",
            "--out", str(out), *more]  # fmt: skip


def _quietly(argv: list[str]) -> str:
    """stdout of ``privcore ARGV`` run in a module fixture (no capsys there); the run must
    succeed. The history is a file of its own, never data/history.db."""
    out = io.StringIO()
    with pytest.MonkeyPatch.context() as patch, contextlib.redirect_stdout(out):
        patch.setenv("PRIVCORE_HISTORY", str(Path(argv[2]).parent / "history.db"))
        assert main(argv) == 0
    return out.getvalue()


@pytest.fixture(scope="module", params=["mst", "aim"])
def released(request, table) -> tuple[str, str, dict]:
    """(method, its text output, its JSON object): the same seeded release twice."""
    argv = _release(table, "--method", request.param)
    return request.param, _quietly(argv), json.loads(_quietly([*argv, "--json"]))


def refused(capsys, argv: list[str]) -> str:
    """The one line on stderr of a refused command; nothing on stdout."""
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err and "\n" not in err.strip(), err
    return err.strip()


# --------------------------------------------------------------------------- MST and AIM


def test_the_json_has_the_budget_step_by_step_the_binnings_and_the_bounds(released):
    method, _, out = released
    assert set(out) == SYNTHESIS_KEYS
    assert out["method"] == method and out["delta"] == DEFAULT_DELTA
    assert out["rho"] == pytest.approx(rho_for(2.0, DEFAULT_DELTA), rel=1e-12)
    ledger = out["ledger"]
    assert all(set(step) == {"label", "rho", "spent_rho"} for step in ledger)
    assert math.fsum(step["rho"] for step in ledger) == pytest.approx(out["rho"], rel=1e-9)
    assert ledger[-1]["spent_rho"] == pytest.approx(out["rho"], rel=1e-9)
    spent = [step["spent_rho"] for step in ledger]
    assert spent == sorted(spent)
    # age has 70 values: binned, its bounds chosen under DP and paid for first
    assert [b["column"] for b in out["binnings"]] == ["age"]
    assert out["binnings"][0]["source"] == "dp" and out["binnings"][0]["bins"] == 10
    assert [s["label"] for s in ledger[:3]] == [
        "median of age",
        "lower bound of age",
        "upper bound of age",
    ]
    assert [tuple(b["clique"]) for b in out["bounds"]] == RELEASED
    for bound in out["bounds"]:
        assert bound["confidence"] == 0.95
        assert bound["source"] in ("measured", "selection", "none")
        assert (bound["tvd"] is None) == (bound["source"] == "none")
    assert out["records"] == out["total"] > 0


def test_the_text_says_the_method_the_budget_each_step_the_binnings_and_the_bounds(released):
    method, text, out = released
    lines = text.splitlines()
    assert lines[0].startswith(
        f"DP release by {method.upper()} at ε = 2, δ = 1e-09 (ρ = {out['rho']:.4g} in "
        "zero-concentrated DP): "
    )
    assert lines[1] == (
        f"budget step by step ({len(out['ledger'])} steps: ρ of the step, ρ spent so far):"
    )
    # every step, one line each, in order
    steps = lines[2 : 2 + len(out["ledger"])]
    assert steps == [
        f"  {s['label']}: ρ = {s['rho']:.4g}, spent {s['spent_rho']:.4g}" for s in out["ledger"]
    ]
    rest = lines[2 + len(out["ledger"]) :]
    binning = out["binnings"][0]
    assert rest[:2] == [
        "numeric columns cut into intervals:",
        f"  age: 10 intervals from {binning['lower']:.4g} to {binning['upper']:.4g}, "
        "bounds chosen under DP",
    ]
    assert rest[2] == "error bound of each released marginal (total variation distance):"
    for line, bound in zip(rest[3:7], out["bounds"], strict=True):
        assert line.startswith(f"  {' × '.join(bound['clique'])}: ")
        if bound["source"] == "none":
            assert "no bound: not measured" in line
        else:
            assert f"TVD ≤ {bound['tvd']:.3g}, L1 ≤ " in line and "(95 %, from " in line
    assert rest[7] == ("error on each marginal's counts (--k compares with a k-anonymous release):")


def test_public_bounds_and_bins_are_used_as_given_and_spend_nothing(capsys, table, tmp_path):
    report = tmp_path / "report.json"
    argv = _release(table, "--method", "mst", "--bounds", "age=15:95", "--bins", "8")
    assert main([*argv, "--report", str(report)]) == 0
    text = capsys.readouterr().out
    out = json.loads(report.read_text(encoding="utf-8"))
    assert out["binnings"] == [
        {"column": "age", "lower": 15.0, "upper": 95.0, "bins": 8, "source": "public"}
    ]
    assert not any("bound of" in step["label"] for step in out["ledger"])
    assert math.fsum(step["rho"] for step in out["ledger"]) == pytest.approx(out["rho"], rel=1e-9)
    assert "  age: 8 intervals from 15 to 95, public bounds" in text.splitlines()
    age = next(m for m in out["marginals"] if m["columns"] == ["age", "salary-class"])
    assert {cell["age"] for cell in age["cells"]} == {
        "[15, 25)", "[25, 35)", "[35, 45)", "[45, 55)", "[55, 65)", "[65, 75)", "[75, 85)",
        "[85, 95)",
    }  # fmt: skip


def test_bounds_given_with_commas_and_a_delta_of_ones_own(capsys, table):
    argv = ["dp", "release", str(table), "--qi", "age,sex", "--sa", "race", "--epsilon", "2",
            "--out", str(table.parent / "by-race.csv"), "--method", "mst",
            "--bounds", "age=10:90,", "--delta", "1e-6", "--json"]  # fmt: skip
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["delta"] == 1e-6 and out["rho"] == pytest.approx(rho_for(2.0, 1e-6))
    assert [(b["column"], b["lower"], b["upper"]) for b in out["binnings"]] == [("age", 10, 90)]


# --------------------------------------------------------------------------- refused


@pytest.mark.parametrize(
    ("given", "options"),
    [
        (["--delta", "1e-6"], "--delta"),
        (["--method", "marginals", "--bins", "5"], "--bins"),
        (["--bounds", "age=15:95"], "--bounds"),
        (["--delta", "1e-6", "--bins", "5"], "--delta, --bins"),
    ],
)
def test_the_options_of_mst_and_aim_are_refused_with_the_marginal_release(
    capsys, table, given, options
):
    said = refused(capsys, _release(table, *given))
    assert said == (
        f"error: {options}: only with --method mst or aim. The marginal release is ε-DP "
        "(δ = 0) and keeps every value of its columns, cutting none into intervals."
    )


@pytest.mark.parametrize(
    "bounds",
    ["age", "age=15", "age=15-95", "age=a:b", "=15:95", "age=95:15", "age=15:15",
     "age=nan:95", "age=15:inf", ",", "age=15:95:99"],
)  # fmt: skip
def test_a_malformed_bounds_is_refused_in_words(capsys, table, bounds):
    said = refused(capsys, _release(table, "--method", "aim", "--bounds", bounds))
    assert said.startswith("error: --bounds takes COLUMN=LOW:HIGH, two numbers with LOW below ")


@pytest.mark.parametrize(
    ("bounds", "words"),
    [
        (["age=15:95,age=10:90"], "error: --bounds gives age twice."),
        (["age=15:95", "age=10:90"], "error: --bounds gives age twice."),
        (["hours=0:99"], "error: --bounds names hours, which is neither a --qi column nor "),
        (["sex=0:1"], "error: Bounds were given to sex, whose values are not numbers"),
    ],
)
def test_bounds_of_a_column_twice_outside_the_release_or_of_text_are_refused(
    capsys, table, bounds, words
):
    argv = _release(table, "--method", "mst")
    for given in bounds:
        argv += ["--bounds", given]
    assert refused(capsys, argv).startswith(words)


def test_an_unknown_method_or_a_bad_delta_or_bins_is_refused(capsys, table):
    with pytest.raises(SystemExit) as exit_:
        main(_release(table, "--method", "pgm"))
    assert exit_.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert "argument --method: invalid choice: 'pgm'" in err and "'aim'" in err
    with pytest.raises(SystemExit):
        main(_release(table, "--method", "mst", "--bins", "1"))
    assert "expected a whole number from 2 to 100, not '1'" in capsys.readouterr().err
    said = refused(capsys, _release(table, "--method", "aim", "--delta", "1"))
    assert said.startswith("error: δ must be a number strictly between 0 and 1")


def test_from_the_shell_a_refusal_is_one_line_and_exit_2(table):
    done = subprocess.run(
        [sys.executable, "-m", "privcore", *_release(table, "--method", "mst", "--bounds", "age")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        "error: --bounds takes COLUMN=LOW:HIGH, two numbers with LOW below HIGH (e.g. "
        "age=15:95), not 'age'.\n"
    )


# --------------------------------------------------------------------------- unchanged


def test_method_marginals_is_the_release_as_before(capsys, table):
    argv = _release(table)  # the same --out for both runs
    for more in ([], ["--json"]):
        assert main([*argv, *more]) == 0
        before = capsys.readouterr().out
        assert main([*argv, "--method", "marginals", *more]) == 0
        assert capsys.readouterr().out == before
    out = json.loads(before)
    assert "method" not in out and "rho" not in out and "binnings" not in out
    assert before and out["ledger"][0]["label"] == "histogram(age, salary-class)"


def test_the_method_option_is_the_registrys_release_method_under_the_flag_method():
    sub = build_parser(["dp", "release"])._subparsers._group_actions[0].choices["dp"]
    release = sub._subparsers._group_actions[0].choices["release"]
    actions = {a.dest: a for a in release._actions}
    method = actions["method"]
    assert method.option_strings == ["--method"] and method.default == "marginals"
    assert tuple(method.choices) == tuple(OPTIONS["release_method"].allowed())
    assert method.help.startswith(OPTIONS["release_method"].help)
    assert actions["bins"].option_strings == [OPTIONS["bins"].flag]
    assert actions["bins"].default is None and "default 10" in actions["bins"].help
    assert f"{DEFAULT_DELTA:g}" == DEFAULT_DELTA_WORDS
    assert f"default {DEFAULT_DELTA_WORDS}" in actions["delta"].help


# --------------------------------------------------------------------------- the budget


def test_a_budget_file_is_charged_the_releases_delta(capsys, table, tmp_path):
    budget = tmp_path / "pipeline.json"
    start = ["--budget-file", str(budget), "--budget-epsilon", "10", "--budget-delta", "1e-6"]
    assert main([*_release(table, "--method", "mst"), *start, "--record"]) == 0
    assert main([*_release(table, "--method", "aim", "--delta", "1e-7"), *start]) == 0
    assert main([*_release(table), *start]) == 0
    capsys.readouterr()
    saved = json.loads(budget.read_text(encoding="utf-8"))
    charged = [(line["epsilon"], line["delta"]) for line in saved["ledger"]]
    assert charged == [(2.0, DEFAULT_DELTA), (2.0, 1e-7), (2.0, 0.0)]
    assert saved["spent_delta"] == pytest.approx(DEFAULT_DELTA + 1e-7)
    (recorded,) = history.list_runs(kind="dp_release")
    assert recorded["results"]["budget"]["delta"] == DEFAULT_DELTA
    assert recorded["results"]["method"] == "mst"


def test_a_budget_without_delta_refuses_mst_before_any_noise(capsys, table, tmp_path):
    budget = tmp_path / "pure.json"
    argv = [*_release(table, "--method", "mst"), "--budget-file", str(budget)]
    said = refused(capsys, [*argv, "--budget-epsilon", "10"])
    assert said.startswith("error: ") and "δ = 1e-09" in said
    assert not budget.exists()  # nothing spent, no file started


def test_compare_lists_every_method_asked_for_in_text_and_json(tmp_path, capsys):
    """--compare: each method's workload figures, or why it could not be measured."""
    table = tmp_path / "small.csv"
    frame = load_sample("adult")[0].frame.head(1_500)[["age", "sex", "race", "salary-class"]]
    frame.to_csv(table, index=False)
    common = [
        "dp", "release", str(table), "--qi", "age,sex", "--sa", "salary-class",
        "--epsilon", "2", "--out", str(tmp_path / "o.csv"), "--compare", "mst,marginals,pram",
    ]  # fmt: skip
    assert main([*common, "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    methods = payload["methods"]["methods"]
    assert [m["method"] for m in methods] == ["mst", "marginals", "pram"]
    assert all(m["tvd2"] is not None for m in methods)
    assert main(common) == 0
    text = capsys.readouterr().out
    assert "methods compared on every 2- and 3-way marginal of age, sex, salary-class" in text
    assert "  pram (perturbed): TVD 2-way" in text
    assert main([*common[:-1], "mst,gan"]) == 2
    assert "gan" in capsys.readouterr().err


def test_the_methods_lines_give_all_three_risks_and_where_the_intervals_come_from():
    """--compare --gdpr in text: singling out, linkability and the inference of each
    sensitive column; intervals on the data's own range are said not to be private."""
    from types import SimpleNamespace

    from privcore.cli.dp_release import _methods_lines

    risk = {"risk": 0.1, "ci": [0.05, 0.15], "baseline": 0.02}
    method = SimpleNamespace(
        method="mst", kind="dp_synthetic", not_measured=None, tvd2=0.05, tvd3=0.1,
        regression=None, reconstruction=None, seconds=1.0,
        risks={"singling_out": risk, "linkability": risk, "inference": {"salary-class": risk}},
    )  # fmt: skip
    data = {"column": "age", "lower": 17.0, "upper": 90.0, "bins": 10, "source": "data"}
    public = {**data, "column": "hours", "source": "public"}
    compared = SimpleNamespace(columns=["age", "salary-class"], methods=[method],
                               binnings=[data, public])  # fmt: skip
    lines = _methods_lines(compared)
    said = "0.100 [0.050, 0.150] (naive 0.020)"
    assert lines[-1] == (
        f"  mst (dp_synthetic): TVD 2-way 0.05, 3-way 0.1; singling out {said}; "
        f"linkability {said}; inference of salary-class {said}, 1 s"
    )
    assert lines[1] == (
        "  age read in 10 intervals from 17 to 90 (the data's own range: not private, "
        "for this study only, not for a release)"
    )
    assert lines[2] == "  hours read in 10 intervals from 17 to 90 (public bounds)"
    method.regression = {"accuracy": 0.7, "baseline": 0.75, "majority": 0.75}
    assert _methods_lines(compared)[-1] == (
        "  the model trained on the original does no better than the majority guess "
        "(0.75): on these columns the accuracy cannot tell the methods apart"
    )
