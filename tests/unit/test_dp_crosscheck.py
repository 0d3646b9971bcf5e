"""Cross-checks of privcore.dp.mechanisms against OpenDP and IBM diffprivlib (test
dependencies, requirements-dev.txt): the same query at the same ε must get the same noise
scale, variance and accuracy. Skipped, with the reason, when a peer cannot be imported."""

from __future__ import annotations

import importlib
import importlib.util
import math
import sys
from types import ModuleType

import numpy as np
import pandas as pd
import pytest

from privcore.dp import mechanisms as mech
from privcore.dp.queries import answer, count

SAMPLES = 20_000


@pytest.fixture(scope="module")
def opendp() -> ModuleType:
    prelude = pytest.importorskip(
        "opendp.prelude", reason="OpenDP is not installed (pip install -r requirements-dev.txt)"
    )
    prelude.enable_features("contrib")
    return prelude


@pytest.fixture(scope="module")
def diffprivlib_mechanisms():
    """diffprivlib.mechanisms. diffprivlib's package ``__init__`` also imports its
    scikit-learn models, which fail on scikit-learn releases newer than it knows
    (``sklearn.tree._tree.DOUBLE`` is gone); the mechanisms need none of that, so when the
    package import fails they are loaded without it, and the modules are removed again
    after these tests."""
    if importlib.util.find_spec("diffprivlib") is None:
        pytest.skip("diffprivlib is not installed (pip install -r requirements-dev.txt)")
    before = {name for name in sys.modules if name.startswith("diffprivlib")}
    try:
        module = importlib.import_module("diffprivlib.mechanisms")
    except ImportError:
        for name in [n for n in sys.modules if n.startswith("diffprivlib")]:
            del sys.modules[name]
        spec = importlib.util.find_spec("diffprivlib")
        package = importlib.util.module_from_spec(spec)  # its __init__ is not run
        sys.modules["diffprivlib"] = package
        try:
            module = importlib.import_module("diffprivlib.mechanisms")
        except ImportError as error:
            pytest.skip(f"diffprivlib.mechanisms cannot be imported: {error}")
    yield module
    for name in [n for n in sys.modules if n.startswith("diffprivlib") and n not in before]:
        del sys.modules[name]


# --------------------------------------------------------------------------- OpenDP


@pytest.mark.parametrize(("sensitivity", "epsilon"), [(1.0, 0.5), (5.0, 2.0)])
def test_laplace_scale_gives_opendps_epsilon(opendp, sensitivity, epsilon):
    scale = mech.laplace_scale(sensitivity, epsilon)
    measurement = opendp.m.make_laplace(
        opendp.atom_domain(T=float, nan=False), opendp.absolute_distance(T=float), scale=scale
    )
    assert measurement.map(sensitivity) == pytest.approx(epsilon)
    assert opendp.laplacian_scale_to_accuracy(scale, 0.05) == pytest.approx(
        mech.laplace_half_width(sensitivity, epsilon, 0.05)
    )


def test_geometric_count_matches_opendps_discrete_laplace(opendp):
    # a count (Δ = 1) at ε = 0.5: scale 2, the same ε by OpenDP's own accounting
    result = answer(count(pd.DataFrame({"x": range(7)})), epsilon=0.5)
    assert (result.mechanism, result.scale) == ("geometric", 2.0)
    measurement = opendp.m.make_laplace(
        opendp.vector_domain(opendp.atom_domain(T=int)), opendp.l1_distance(T=int), scale=2.0
    )
    assert measurement.map(1) == pytest.approx(0.5)
    # the variance 2q/(1 − q)², q = e^−ε, against OpenDP's samples and ours
    variance = mech.discrete_laplace_variance(1, 0.5)
    theirs = np.asarray(measurement([0] * SAMPLES), dtype=float)
    ours = mech.discrete_laplace(0, 1, 0.5, size=SAMPLES, rng=31).astype(float)
    # the sample variance of Laplace-shaped noise (kurtosis 6) has standard error
    # ≈ Var·√(5/n)
    standard_error = variance * math.sqrt(5.0 / SAMPLES)
    assert theirs.var() == pytest.approx(variance, abs=4 * standard_error)
    assert ours.var() == pytest.approx(variance, abs=4 * standard_error)
    # OpenDP's accuracy a solves P(|Z| ≥ a) = β over the reals; our integer half-width k
    # is the largest integer below it (P(|Z| > k) = P(|Z| ≥ k + 1) ≤ β)
    accuracy = opendp.discrete_laplacian_scale_to_accuracy(2.0, 0.05)
    assert mech.discrete_laplace_half_width(1, 0.5, 0.05) == math.ceil(accuracy) - 1


def test_zcdp_sigma_gives_opendps_rho(opendp):
    sigma = mech.zcdp_sigma(2.0, 0.5)
    measurement = opendp.m.make_gaussian(
        opendp.atom_domain(T=float, nan=False), opendp.absolute_distance(T=float), scale=sigma
    )
    assert measurement.map(2.0) == pytest.approx(0.5)


# --------------------------------------------------------------------------- diffprivlib


@pytest.mark.parametrize(("sensitivity", "epsilon"), [(1.0, 0.5), (2.0, 1.0), (3.0, 0.1)])
def test_laplace_variance_matches_diffprivlib(diffprivlib_mechanisms, sensitivity, epsilon):
    theirs = diffprivlib_mechanisms.Laplace(epsilon=epsilon, delta=0.0, sensitivity=sensitivity)
    assert theirs.variance(0.0) == pytest.approx(2 * mech.laplace_scale(sensitivity, epsilon) ** 2)


@pytest.mark.parametrize(("sensitivity", "epsilon"), [(1, 0.5), (1, 2.0), (3, 1.0)])
def test_geometric_variance_matches_diffprivlib(diffprivlib_mechanisms, sensitivity, epsilon):
    theirs = diffprivlib_mechanisms.Geometric(epsilon=epsilon, sensitivity=sensitivity)
    assert theirs.variance(0) == pytest.approx(
        mech.discrete_laplace_variance(sensitivity, epsilon), rel=1e-9
    )


@pytest.mark.parametrize(
    ("sensitivity", "epsilon", "delta"), [(1.0, 1.0, 1e-5), (1.0, 0.05, 0.3), (2.0, 3.0, 1e-8)]
)
def test_analytic_gaussian_sigma_matches_diffprivlib(
    diffprivlib_mechanisms, sensitivity, epsilon, delta
):
    theirs = diffprivlib_mechanisms.GaussianAnalytic(
        epsilon=epsilon, delta=delta, sensitivity=sensitivity
    )
    assert theirs._scale == pytest.approx(
        mech.analytic_gaussian_sigma(sensitivity, epsilon, delta), rel=1e-6
    )


def test_the_accuracy_view_checks_the_stated_half_width_by_its_coverage():
    """Over 2,000 answers per ε the share within the stated 95 % half-width has an exact
    interval that reaches 95 % (the interval is honest), its bounds hold the share, and
    a histogram's coverage counts its cells; other seeds give other draws."""
    import numpy as np
    import pandas as pd

    from privcore.dp import queries
    from privcore.dp.accuracy import accuracy_curve

    frame = pd.DataFrame({"a": np.arange(500) % 5})
    for query in (queries.count(frame), queries.histogram(frame, ["a"])):
        curve = accuracy_curve(query, [0.2, 1.0, 3.0], draws=2000, seed=5)
        assert (curve["coverage_low"] <= curve["coverage"]).all()
        assert (curve["coverage"] <= curve["coverage_high"]).all()
        assert (curve["coverage_high"] >= 0.95).all(), curve
    one = accuracy_curve(queries.count(frame), [1.0], draws=300, seed=1)
    other = accuracy_curve(queries.count(frame), [1.0], draws=300, seed=2)
    assert not one.equals(other)
