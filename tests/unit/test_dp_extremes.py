"""ε at the ends of the doubles: huge (1e308, inf), not a number, subnormal (5e-324),
zero and negative, on every DP request and every ``privcore dp`` command — each one
answered or refused with words, never a traceback. ``dp release --epsilon 1e308`` once
ended in a ZeroDivisionError (the geometric noise's variance underflowed to 0), a
subnormal ε in a division by zero or a ``p <= 0`` of numpy's sampler, and a Gaussian
at a huge ε never returned."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from privcore.cli import main
from privcore.dp import mechanisms as mech
from privcore.dp.release import dp_release
from privcore.errors import ParameterError
from privcore.runs import DinnerRequest, DpAuditRequest, DpQueryRequest, DpReleaseRequest

EXTREMES = ("1e308", "inf", "nan", "5e-324", "0", "-1")
#: The code refusing each: the option's rule (finite, above 0), else the DP range.
CODES = {
    "1e308": "dp.epsilon_too_large",
    "inf": "parameter.invalid",
    "nan": "parameter.invalid",
    "5e-324": "dp.epsilon_too_small",
    "0": "parameter.invalid",
    "-1": "parameter.invalid",
}
REQUESTS = {
    "query": lambda epsilon: DpQueryRequest(query="count", epsilon=epsilon),
    "release": lambda epsilon: DpReleaseRequest(qi=("sex",), sa=("city",), epsilon=epsilon),
    "dinner": lambda epsilon: DinnerRequest(epsilon=epsilon),
    "audit": lambda epsilon: DpAuditRequest(audited="laplace_count", epsilon=epsilon),
}


@pytest.fixture
def people(tmp_path):
    frame = pd.DataFrame(
        {
            "sex": ["F"] * 5 + ["M"] * 7,
            "age": list(range(20, 80, 5)),
            "city": ["A", "B"] * 6,
        }
    )
    path = tmp_path / "people.csv"
    frame.to_csv(path, index=False)
    return path


#: Every DP command, ``{table}`` and ``{out}`` the input and output files.
COMMANDS = {
    "query count": "dp query {table} --count",
    "query mean": "dp query {table} --mean age --clamp 0,100",
    "query gaussian": "dp query {table} --histogram sex --mechanism gaussian --delta 1e-6",
    "dinner": "dp dinner",
    "dinner laplace": "dp dinner --mechanism laplace",
    "release": "dp release {table} --qi sex --sa city --out {out}",
    "audit": "dp audit --mechanism laplace_count --samples 1000",
    "audit gaussian": "dp audit --mechanism gaussian_count --delta 1e-5 --samples 1000",
}


def commands(people, tmp_path) -> dict[str, list[str]]:
    files = {"table": str(people), "out": str(tmp_path / "out.csv")}
    return {
        name: [part.format(**files) for part in command.split()]
        for name, command in COMMANDS.items()
    }


# --------------------------------------------------------------------------- requests


@pytest.mark.parametrize("kind", sorted(REQUESTS))
@pytest.mark.parametrize("epsilon", EXTREMES)
def test_every_request_refuses_an_extreme_epsilon_with_words(kind, epsilon):
    with pytest.raises(ParameterError) as info:
        REQUESTS[kind](float(epsilon))
    assert info.value.code == CODES[epsilon]
    assert "ε" in str(info.value) or "--epsilon" in str(info.value)


@pytest.mark.parametrize("kind", sorted(REQUESTS))
def test_the_ends_of_the_range_are_accepted(kind):
    for epsilon in (mech.MIN_EPSILON, mech.MAX_EPSILON):
        assert REQUESTS[kind](epsilon).epsilon == epsilon
    with pytest.raises(ParameterError, match="above 1000"):
        REQUESTS[kind](math.nextafter(mech.MAX_EPSILON, math.inf))
    with pytest.raises(ParameterError, match="below 1e-06"):
        REQUESTS[kind](math.nextafter(mech.MIN_EPSILON, 0.0))


# --------------------------------------------------------------------------- command line


@pytest.mark.parametrize("epsilon", EXTREMES)
def test_every_dp_command_exits_2_with_one_line(capsys, people, tmp_path, epsilon):
    for name, argv in commands(people, tmp_path).items():
        try:
            code = main([*argv, "--epsilon", epsilon])
        except SystemExit as exit_:  # argparse
            code = exit_.code
        captured = capsys.readouterr()
        assert code == 2, (name, captured.err)
        assert captured.out == "", name
        assert captured.err.count("\n") == 1 and "Traceback" not in captured.err, name
        assert "ε" in captured.err or "--epsilon" in captured.err, (name, captured.err)


@pytest.mark.parametrize("epsilon", ["1000", "1e-6"])
def test_every_dp_command_answers_at_the_ends_of_the_range(capsys, people, tmp_path, epsilon):
    for name, argv in commands(people, tmp_path).items():
        assert main([*argv, "--epsilon", epsilon, "--json"]) == 0, name
        captured = capsys.readouterr()
        assert "Traceback" not in captured.err and "nan" not in captured.out.lower(), name


def test_a_release_at_the_largest_epsilon_is_the_truth(people, tmp_path):
    """ε = 1000 on one marginal: no noise at all (e^(−1000) underflows to 0), where the
    inverse-variance weights once divided by that zero variance."""
    frame = pd.read_csv(people)
    release = dp_release(frame, ["sex"], "city", epsilon=mech.MAX_EPSILON, seed=1)
    assert release.total == len(frame)
    counts = release.marginals["sex"].set_index(["sex", "city"])["count"]
    truth = frame.groupby(["sex", "city"]).size()
    assert counts.sort_index().tolist() == truth.sort_index().tolist()


# --------------------------------------------------------------------------- library


def test_the_library_names_epsilon_and_scales_it_cannot_sample():
    with pytest.raises(ParameterError) as info:
        mech.check_epsilon(1e308)
    assert info.value.code == "dp.epsilon_too_large"
    assert info.value.params == {"epsilon": 1e308, "limit": mech.MAX_EPSILON}
    # a split of a request's ε (a mean, a release) may go below MIN_EPSILON
    assert mech.check_epsilon(mech.MIN_EPSILON / 10) == mech.MIN_EPSILON / 10
    for sample in (
        lambda: mech.laplace(1.0, 1.0, 1e-300),
        lambda: mech.discrete_laplace(1, 1, 5e-324),
        lambda: mech.discrete_laplace_half_width(1, 1e-300),
        lambda: mech.discrete_laplace(1, 10**13, 1.0),
        lambda: mech.gaussian_zcdp(1.0, 1.0, 1e-300),
    ):
        with pytest.raises(ParameterError) as info:
            sample()
        assert info.value.code == "dp.noise_too_large"
        assert info.value.params["limit"] == mech.MAX_NOISE_SCALE


@pytest.mark.parametrize("epsilon", [1e-300, 1e-30, 1e-17, 1e-12])
def test_the_analytic_gaussian_at_a_tiny_epsilon_is_limited_by_delta(epsilon):
    """As ε → 0, δ = Φ(Δ/2σ) − Φ(−Δ/2σ) ≈ Δ/(σ√(2π)): σ → Δ/(δ√(2π)), not 0 (the
    cancellation in √(1 + v/2) − √(v/2) once gave 0, and the sampler then never ended)."""
    sigma = mech.analytic_gaussian_sigma(1.0, epsilon, 1e-6)
    assert sigma == pytest.approx(1.0 / (1e-6 * math.sqrt(2 * math.pi)), rel=1e-5)
    noisy = mech.gaussian(np.zeros(1000), 1.0, epsilon, 1e-6, rng=0)
    assert np.all(np.isfinite(noisy)) and 0.5 * sigma < np.std(noisy) < 1.5 * sigma
