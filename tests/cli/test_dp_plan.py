"""``privcore dp plan``: the ε of a target by hand, its JSON keys, errors in words (exit 2,
one line, no traceback), and over 200 seeded draws the ε it gives meets its target — the
noise within the error at the confidence, the differencing attack within the posterior
bound."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest

from privcore.cli import main
from privcore.dp.dinner import differencing
from privcore.dp.mechanisms import noise_mechanism
from privcore.dp.planning import advantage_bound

ROOT = Path(__file__).resolve().parents[2]
DRAWS = 200
ROW_KEYS = {"epsilon", "error", "posterior", "advantage"}


def plan(capsys, *argv: str) -> dict:
    assert main(["dp", "plan", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def refused(capsys, *argv: str) -> str:
    """The one line on stderr of a refused ``dp plan``; nothing on stdout."""
    assert main(["dp", "plan", *argv]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err and "\n" not in err.strip(), err
    return err.strip()


# --------------------------------------------------------------------------- by hand


def test_posterior_three_quarters_from_an_even_prior_is_ln_3(capsys):
    out = plan(capsys, "--target-posterior", "0.75")
    # ε = ln(0.75·0.5 / (0.5·0.25)) = ln 3
    assert out["epsilon"] == pytest.approx(math.log(3))
    assert out["target"] == {"kind": "posterior", "value": 0.75, "prior": 0.5}


def test_posterior_with_another_prior(capsys):
    # prior 0.1, posterior 0.5: ln(0.5·0.9 / (0.1·0.5)) = ln 9
    out = plan(capsys, "--target-posterior", "0.5", "--prior", "0.1")
    assert out["epsilon"] == pytest.approx(math.log(9))


def test_advantage_one_half_is_ln_3(capsys):
    out = plan(capsys, "--target-advantage", "0.5")
    # ε = ln((1 + ½)/(1 − ½)) = ln 3, and back: (3 − 1)/(3 + 1) = ½
    assert out["epsilon"] == pytest.approx(math.log(3))
    assert out["target"] == {"kind": "advantage", "value": 0.5}
    [found] = [row for row in out["tradeoff"] if row["epsilon"] == out["epsilon"]]
    assert found["advantage"] == pytest.approx(0.5)
    assert found["posterior"] == pytest.approx(0.75)  # the same ε, prior ½


def test_laplace_error_ten_at_95_percent(capsys):
    out = plan(capsys, "--target-error", "10", "--mechanism", "laplace")
    # ε = Δ·ln(1/β)/error = ln(20)/10
    assert out["epsilon"] == pytest.approx(math.log(20) / 10)
    [found] = [row for row in out["tradeoff"] if row["epsilon"] == out["epsilon"]]
    assert found["error"] == pytest.approx(10)  # b·ln(1/β) with b = 10/ln 20


def test_geometric_error_is_the_smallest_epsilon_within_the_error(capsys):
    out = plan(capsys, "--target-error", "5", "--confidence", "0.95")
    epsilon = out["epsilon"]
    # the discrete Laplace's 95 % half-width: the smallest k with 2q^(k+1)/(1+q) ≤ 5 %
    q = math.exp(-epsilon)
    assert 2 * q**6 / (1 + q) <= 0.05 + 1e-12
    # a little less ε, and ± 5 is no longer enough
    q_less = math.exp(-epsilon * 0.999)
    assert 2 * q_less**6 / (1 + q_less) > 0.05


# --------------------------------------------------------------------------- JSON


def test_the_json_keys(capsys):
    out = plan(capsys, "--target-error", "5", "--mechanism", "gaussian", "--delta", "1e-6",
               "--sensitivity", "2", "--confidence", "0.9", "--prior", "0.2")  # fmt: skip
    assert set(out) == {"epsilon", "target", "parameters", "tradeoff"}
    assert out["target"] == {
        "kind": "error",
        "value": 5.0,
        "confidence": 0.9,
        "mechanism": "gaussian",
        "sensitivity": 2.0,
        "delta": 1e-6,
    }
    assert out["parameters"] == {
        "confidence": 0.9,
        "prior": 0.2,
        "mechanism": "gaussian",
        "sensitivity": 2.0,
        "delta": 1e-6,
    }
    assert all(set(row) == ROW_KEYS for row in out["tradeoff"])


def test_the_default_curve_is_nine_points_from_an_eighth_to_eight_times(capsys):
    out = plan(capsys, "--target-posterior", "0.75")
    epsilons = [row["epsilon"] for row in out["tradeoff"]]
    assert len(epsilons) == 9 and epsilons[4] == out["epsilon"]
    assert epsilons[0] == pytest.approx(math.log(3) / 8)
    assert epsilons[-1] == pytest.approx(8 * math.log(3))
    ratios = np.diff(np.log(epsilons))
    assert np.allclose(ratios, ratios[0])  # evenly on a log scale
    # more ε: less error, a larger posterior and advantage
    for key, order in (("error", -1), ("posterior", 1), ("advantage", 1)):
        values = [row[key] for row in out["tradeoff"]]
        assert values == sorted(values, reverse=order < 0), key
    for row in out["tradeoff"]:
        e = math.exp(row["epsilon"])
        assert row["posterior"] == pytest.approx(0.5 * e / (0.5 * e + 0.5))
        assert row["advantage"] == pytest.approx(advantage_bound(row["epsilon"]))


def test_curve_as_a_count_or_as_epsilons(capsys):
    counted = plan(capsys, "--target-advantage", "0.5", "--curve", "5")
    assert len(counted["tradeoff"]) == 5 and counted["tradeoff"][2]["epsilon"] == counted["epsilon"]
    listed = plan(capsys, "--target-advantage", "0.5", "--curve", "0.5, 1,2")
    assert [row["epsilon"] for row in listed["tradeoff"]] == [0.5, 1.0, 2.0]
    alone = plan(capsys, "--target-advantage", "0.5", "--curve", "2.0")
    assert [row["epsilon"] for row in alone["tradeoff"]] == [2.0]


def test_the_readable_output_says_what_the_epsilon_means(capsys):
    assert main(["dp", "plan", "--target-posterior", "0.75"]) == 0
    text = capsys.readouterr().out
    # ln 3 = 1.0986…, shown rounded down: the ε shown still meets the target
    assert text.startswith("ε = 1.098: the largest ε at which an attacker with prior 0.5 ")
    assert "believes any fact about one person at most 0.75" in text
    assert "is within ± 3 of the truth 95 % of the time" in text
    assert "advantage (true-positive rate − false-positive rate) is at most 0.5." in text
    assert text.count("\n→ ") == 1  # the ε found, marked in the trade-off
    assert main(["dp", "plan", "--target-error", "10", "--mechanism", "laplace"]) == 0
    text = capsys.readouterr().out
    # ln(20)/10 = 0.29957…, shown rounded up: the error shown still holds
    assert text.startswith("ε = 0.2996: the smallest ε at which a count with laplace noise ")
    assert "At ε = 0.2996 a count with laplace noise is within ± 10 of the truth 95 % " in text


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--target-error", "0"], "The target error must be a number > 0, got 0.0."),
        (["--target-error", "nan"], "The target error must be a number > 0"),
        (["--target-error", "1e-9", "--mechanism", "laplace"], "The target needs ε = 3e+09"),
        (["--target-error", "5", "--sensitivity", "1e13"], "No ε up to 1000 keeps the error"),
        (["--target-posterior", "0.4"], "The target posterior must lie between the prior 0.5"),
        (["--target-posterior", "1"], "The target posterior must lie between the prior 0.5"),
        (["--target-advantage", "1"], "The target advantage must lie strictly between 0 and 1"),
        (["--target-advantage", "-0.1"], "The target advantage must lie strictly between 0"),
        (["--target-error", "5", "--confidence", "1"], "--confidence must lie strictly between"),
        (["--target-error", "5", "--prior", "1.5"], "--prior must be a probability from 0 to 1"),
        (["--target-posterior", "0.9", "--prior", "0"], "from 0 to 1, both excluded"),
        (["--target-error", "5", "--prior", "1"], "from 0 to 1, both excluded"),
        (["--target-error", "5", "--mechanism", "gaussian"], "--mechanism gaussian needs --delta"),
        (["--target-error", "5", "--delta", "1e-6"], "--delta belongs to --mechanism gaussian."),
        (["--target-error", "5", "--sensitivity", "1.5"], "needs an integer sensitivity"),
        (["--target-error", "5", "--curve", "2000,1"], "ε = 2000 is above 1000"),
    ],
)
def test_impossible_targets_are_refused_in_words(capsys, argv, words):
    err = refused(capsys, *argv)
    assert err.startswith("error: ") and words in err, err


def test_two_targets_or_none_are_refused_in_words(capsys):
    both = refused(capsys, "--target-error", "5", "--target-posterior", "0.7")
    assert both == (
        "error: dp plan needs exactly one target: --target-error E, --target-posterior P or "
        "--target-advantage A (2 given)."
    )
    assert refused(capsys).endswith("(none given).")
    assert refused(capsys, "--target-error", "5", "--target-posterior", "0.7",
                   "--target-advantage", "0.1").endswith("(3 given).")  # fmt: skip


def test_a_bad_curve_is_a_usage_error(capsys):
    for text in ("abc", "0", "1,x"):
        with pytest.raises(SystemExit) as exit_:  # argparse's usage error
            main(["dp", "plan", "--target-error", "5", "--curve", text])
        err = capsys.readouterr().err.strip()
        assert exit_.value.code == 2 and "\n" not in err and "Traceback" not in err
        assert err == (
            "privcore dp plan: error: argument --curve: expected a number of points from 1 "
            f"to 1000 or a list of ε values, not {text!r}"
        )


def test_from_the_shell_an_error_is_one_line_and_exit_2():
    done = subprocess.run(
        [sys.executable, "-m", "privcore", "dp", "plan", "--target-posterior", "0.4"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        "error: The target posterior must lie between the prior 0.5 and 1, got 0.4.\n"
    )


# --------------------------------------------------------------------------- in use


@pytest.mark.parametrize(
    ("mechanism", "more"),
    [("geometric", []), ("laplace", []), ("gaussian", ["--delta", "1e-6"])],
)
def test_the_epsilon_given_keeps_200_answers_within_the_error(capsys, mechanism, more):
    out = plan(capsys, "--target-error", "5", "--confidence", "0.95", "--mechanism",
               mechanism, *more)  # fmt: skip
    delta = 1e-6 if more else 0.0
    noise = noise_mechanism(mechanism, 1.0, out["epsilon"], delta)
    answers = noise.release(np.full(DRAWS, 100), rng=np.random.default_rng(7))
    within = int(np.sum(np.abs(np.asarray(answers) - 100) <= 5))
    # the share within ± 5 is not below 95 %: a one-sided binomial test at 1 %
    assert binomtest(within, DRAWS, 0.95, alternative="less").pvalue > 0.01, within
    # and it is the smallest: a tenth less ε needs a wider interval than ± 5
    assert noise_mechanism(mechanism, 1.0, out["epsilon"] * 0.9, delta).half_width(0.05) > 5


def test_the_epsilon_given_keeps_the_differencing_attack_within_the_posterior(capsys):
    """200 differencing attacks at the ε of ``--target-posterior 0.75`` (prior ½): the
    target has the value or not, a fair coin each time; the attacker sees the noisy count
    with the target and guesses the value its posterior favours. No posterior goes above
    0.75, and the share of right guesses is not above 0.75 (binomial, 1 %) — while above
    ½: the bound is reached, not merely respected."""
    epsilon = plan(capsys, "--target-posterior", "0.75")["epsilon"]
    rng = np.random.default_rng(5)
    has_value = int(np.sum(rng.random(DRAWS) < 0.5))
    right, posteriors = 0, []
    for value, draws, seed in ((True, has_value, 11), (False, DRAWS - has_value, 12)):
        frame = pd.DataFrame(
            {"name": [f"p{i}" for i in range(40)], "ill": [value] + [i % 3 == 0 for i in range(39)]}
        )
        attack = differencing(frame, 0, {"ill": True}, epsilon=epsilon, prior=0.5, draws=draws,
                              seed=seed)  # fmt: skip
        guesses = attack.posteriors > 0.5
        right += int(np.sum(guesses == value))
        posteriors += list(attack.posteriors)
    assert len(posteriors) == DRAWS
    assert max(posteriors) <= 0.75 + 1e-12
    assert binomtest(right, DRAWS, 0.75, alternative="greater").pvalue > 0.01, right
    assert binomtest(right, DRAWS, 0.5, alternative="greater").pvalue < 0.01, right
