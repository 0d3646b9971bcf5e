"""Numbers at the ends of the floats in a numeric quasi-identifier: ±1e308 (whose
difference, sum and square are beyond the largest float), the largest float, subnormal
numbers (5e-324), ±inf, NaN and mixed magnitudes. Every numeric path either works — its
figures finite and right — or refuses the table with a :class:`PrivcoreError` in words:
hierarchy suggestions and builders, every algorithm (``anonymize --auto-hierarchies``),
measure, risk (linkability's nearest neighbours), the readiness report, the attacks
and the utility of a perturbed release."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from privcore.anonymize import ALGORITHMS, anonymize
from privcore.attacks.gdpr_risks import linkability
from privcore.cli import main
from privcore.core.scaling import column_units, scaled_span, unit_of
from privcore.data.cells import parse_column
from privcore.data.hierarchy import cut_hierarchy, interval_hierarchy, rounding_hierarchy
from privcore.data.hierarchy_suggestions import suggest_hierarchy
from privcore.data.schema import Schema
from privcore.errors import HierarchyError, ParameterError, PrivcoreError
from privcore.measure.utility import perturbation_utility
from privcore.models import KAnonymity

ROOT = Path(__file__).resolve().parents[2]
BIG = 1e308
MAX = float(np.finfo(np.float64).max)
TINY = 5e-324  # the smallest subnormal
Q, S = "quasi_identifier", "sensitive"


def extreme_table(n: int = 60, *, infinite: bool = True, seed: int = 0) -> pd.DataFrame:
    """``n`` rows: an age-like QI holding ±1e308, the largest float, subnormals,
    ±inf (``infinite``) and a missing value among ordinary ages; a second QI; a
    sensitive attribute; an income holding ±1e308."""
    rng = np.random.default_rng(seed)
    age = rng.integers(18, 90, n).astype(float)
    special = [BIG, -BIG, TINY, -TINY, MAX, np.nan]
    special += [np.inf, -np.inf] if infinite else [31.0, 47.0]
    age[: len(special)] = special
    income = rng.normal(50_000, 10_000, n)
    income[[8, 9]] = [BIG, -BIG]
    return pd.DataFrame(
        {
            "age": age,
            "city": rng.choice(["A", "B", "C", "D"], n),
            "disease": rng.choice(["flu", "cold", "hiv", "cancer"], n),
            "income": income,
        }
    )


def labels_hold_their_leaves(hierarchy) -> None:
    """Every interval label, read by the released-cell grammar without the hierarchy,
    contains each finite leaf it generalizes (so an attack on the release text finds
    the value where the hierarchy put it)."""
    table = hierarchy.to_frame()
    leaves = pd.to_numeric(table["level 0"]).astype(np.float64)
    finite = np.isfinite(leaves.to_numpy())
    for level in table.columns[1:-1]:
        labels = table[level][finite].astype(str)
        cells = parse_column(labels.reset_index(drop=True))
        assert not len(cells.unparsed), (level, list(cells.unparsed))
        inside = cells.contains(leaves[finite].reset_index(drop=True))
        rows = np.arange(len(labels))
        assert inside[cells.codes, rows].all(), (level, labels[~inside[cells.codes, rows]])


# --------------------------------------------------------------------------- scaling


def test_units_are_one_for_ordinary_numbers_and_a_power_of_two_for_huge_ones():
    assert unit_of([1.0, -3.5, 1e150, np.nan, np.inf]) == 1.0  # up to 2**500 as they are
    assert unit_of([]) == 1.0
    unit = unit_of([BIG, -BIG, 1.0])
    assert math.frexp(unit)[0] == 0.5 and BIG * unit <= 1.0  # a power of two
    scaled, span = scaled_span([MAX, -MAX, np.inf, np.nan])
    assert math.isfinite(span) and span > 0 and np.isinf(scaled[2])
    assert list(column_units(np.array([[1.0, BIG], [2.0, -BIG]]))) == [1.0, unit]


# --------------------------------------------------------------------------- hierarchies


@pytest.mark.parametrize(
    "values",
    [
        [BIG, -BIG, 30, 40, 50],
        [MAX, -MAX, 1, 2, 3],
        [BIG, 1.7e308, 30.0, 40],
        [TINY, -TINY, 1e-320, 0.0],
        [TINY, 1, 2, 3],
        [2.0**62, -(2.0**62), 5, 7],
        [1e20, 1, 2, 3.5],
        [0.1, 0.2, 0.3, 0.7, 2.9999999999],
    ],
)
def test_suggested_intervals_cover_any_finite_numbers(values):
    suggestion = suggest_hierarchy(pd.Series(values, name="age"))
    assert suggestion.kind == "intervals"
    assert math.isfinite(suggestion.params["width"]) and suggestion.params["width"] > 0
    hierarchy = suggestion.hierarchy
    assert 2 <= hierarchy.height <= 60
    labels_hold_their_leaves(hierarchy)
    assert "inf" not in " ".join(hierarchy.to_frame().iloc[:, 1:-1].to_numpy().ravel())


def test_bounds_beyond_the_floats_are_written_as_comparisons():
    hierarchy = interval_hierarchy(pd.Series([MAX, -MAX, 1.0]), width=5e307)
    labels = set(hierarchy.to_frame().iloc[:, 1:-1].to_numpy().ravel())
    assert any(label.startswith(">=") for label in labels)
    assert any(label.startswith("<") for label in labels)
    labels_hold_their_leaves(hierarchy)


def test_a_subnormal_value_is_in_the_interval_its_label_names():
    hierarchy = interval_hierarchy(pd.Series([TINY, -TINY, 0.0]), width=1e-13)
    first = hierarchy.to_frame().set_index("level 0")["level 1"]
    assert first["-5e-324"] == "[-1e-13-0)"  # not "[0-0)" (10 decimals) nor "[0-1e-13)"
    assert first["0"] == first["5e-324"] == "[0-1e-13)"
    labels_hold_their_leaves(hierarchy)


def test_infinite_values_stay_values_of_their_own_up_to_the_top():
    suggestion = suggest_hierarchy(pd.Series([np.inf, -np.inf, BIG, 30.0, 40.0, np.nan]), "age")
    table = suggestion.hierarchy.to_frame().set_index("level 0")
    assert suggestion.kind == "intervals"
    assert table.loc["inf"].tolist()[:-1] == ["inf"] * (suggestion.hierarchy.height - 1)
    assert table.loc["-inf"].iloc[-1] == "*"
    assert "30" in table.index and "nan" not in table.index  # missing stays out


def test_a_width_too_small_for_the_range_is_refused_in_words():
    with pytest.raises(ParameterError) as caught:
        interval_hierarchy(pd.Series([BIG, -BIG, 1.0]), width=1)
    assert caught.value.code == "hierarchy.width_too_small"
    assert "too small" in caught.value.message and "at least" in caught.value.message
    assert set(caught.value.params) == {"width", "low", "high", "least"}


def test_an_origin_amid_the_values_ends_the_levels():
    hierarchy = interval_hierarchy(pd.Series([30.0, 70.0]), width=10, origin=50)
    assert hierarchy.height == 4  # it used to double the width until it overflowed


def test_rounding_and_cuts_at_the_largest_float():
    rounded = rounding_hierarchy(pd.Series([MAX, -MAX, 1.0, 2.0]))
    assert rounded.height > 1
    cuts = cut_hierarchy(pd.Series([np.inf, -np.inf, BIG, 3.0]), [0, BIG])
    table = cuts.to_frame().set_index("level 0")["level 1"]
    assert (table["-inf"], table["3"], table["inf"]) == ("<0", "[0-1e+308)", ">=1e+308")
    with pytest.raises(HierarchyError) as caught:
        rounding_hierarchy(pd.Series([np.inf, 3.0, 4.0]))
    assert caught.value.code == "hierarchy.not_numeric"


# --------------------------------------------------------------------------- algorithms


@pytest.mark.parametrize("name", sorted(ALGORITHMS))
@pytest.mark.parametrize("infinite", [False, True])
def test_every_algorithm_works_or_refuses_in_words(name, infinite):
    frame = extreme_table(infinite=infinite)
    schema = Schema({"age": Q, "city": Q, "disease": S, "income": "insensitive"})
    for column in ("age", "city"):
        schema = schema.with_hierarchy(column, suggest_hierarchy(frame[column], column).hierarchy)
    try:
        release = anonymize(frame, schema, [KAnonymity(3)], algorithm=name, max_suppression=0.2)
    except PrivcoreError as exc:
        assert exc.code and exc.message and "Traceback" not in exc.message
        return
    report = json.loads(json.dumps(release.to_dict(), default=str))
    loss = report.get("loss") or {}
    for key in ("ncp", "gcp", "precision", "whd_mean"):
        if loss.get(key) is not None:
            assert 0.0 <= loss[key] <= 1.0 + 1e-9, (key, loss[key])
    released = release.frame["age"]
    if pd.api.types.is_numeric_dtype(released.dtype):  # numbers released: none lost
        assert not np.isinf(released[np.isfinite(frame["age"])]).any()
        assert released.notna().sum() >= frame["age"].notna().sum()


def test_mondrian_ranges_and_ncp_over_the_whole_float_range():
    frame = extreme_table(infinite=False)
    schema = Schema({"age": Q, "city": Q, "disease": S, "income": "insensitive"})
    release = anonymize(frame, schema, [KAnonymity(3)], algorithm="mondrian")
    ncp = release.to_dict()["loss"]["ncp"]
    assert 0.0 < ncp < 1.0  # was 0: every span divided by an infinite range
    means = anonymize(frame, schema, [KAnonymity(3)], algorithm="mondrian", summary="mean")
    numbers = pd.to_numeric(means.frame["age"].str.split(",").str[0], errors="coerce")
    assert np.isfinite(numbers.dropna()).all()


def test_mondrian_fragment_spans_against_a_whole_table_beyond_the_floats():
    """A fragment of ordinary numbers whose whole table spans ±1.8e308 (the span
    domain given as its ends): its spans and NCP are finite shares of that range."""
    frame = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], "d": list("abcabc")})
    schema = Schema({"x": Q, "d": S})
    release = anonymize(
        frame, schema, [KAnonymity(3)], algorithm="mondrian", span_domains={"x": (-MAX, MAX)}
    )
    ncp = release.to_dict()["loss"]["ncp"]
    assert 0.0 <= ncp < 1e-300  # [1-3] of a range of 3.6e308
    assert release.to_dict()["classes"] == 2


def test_mondrian_on_an_engine_cuts_fragments_of_extreme_numbers(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PRIVCORE_ENGINE_MAX_GROUPS", "20")  # fragments: Mondrian's axes
    rng = np.random.default_rng(0)
    values = np.array([BIG, -BIG, MAX, TINY, 1, 2, 3, 4, 5, 6.0])
    table = tmp_path / "fragments.csv"
    pd.DataFrame(
        {
            "income": rng.choice(values, 300),
            "city": rng.choice(list("ABCD"), 300),
            "disease": rng.choice(["flu", "cold", "hiv"], 300),
        }
    ).to_csv(table, index=False)
    code, out, err = _cli(
        capsys, "anonymize", table, "--qi", "income,city", "--sa", "disease", "--algorithm",
        "mondrian", "--engine", "duckdb", "--k", "3", "--identifiers", "", "--out",
        tmp_path / "r.csv", "--json", "--quiet",
    )  # fmt: skip
    assert code == 0, err
    report = json.loads(out)
    assert report["k"] >= 3 and 0.0 <= report["loss"]["gcp"] <= 1.0


def test_mdav_and_condensation_keep_means_of_huge_numbers_finite():
    frame = pd.DataFrame({"x": [MAX, MAX, MAX, 1.0, 2.0, 3.0], "d": list("abcabc")})
    schema = Schema({"x": Q, "d": S})
    release = anonymize(frame, schema, [KAnonymity(3)], algorithm="mdav")
    assert sorted(release.frame["x"].tolist()) == [2.0, 2.0, 2.0, MAX, MAX, MAX]
    synthetic = anonymize(frame, schema, [KAnonymity(3)], algorithm="condensation")
    assert np.isfinite(synthetic.frame["x"].to_numpy(dtype=float)).all()


def test_noise_on_values_whose_variance_is_no_float_is_refused_in_words():
    frame = extreme_table(infinite=False).dropna()
    schema = Schema({"age": Q, "city": "insensitive", "disease": S, "income": "insensitive"})
    with pytest.raises(ParameterError) as caught:
        anonymize(frame, schema, [KAnonymity(2)], algorithm="noise")
    assert caught.value.code == "anonymize.noise_overflow"
    assert caught.value.params["columns"] == ["age"]


# --------------------------------------------------------------------------- measures


def test_linkability_finds_neighbours_across_the_whole_float_range():
    frame = extreme_table(infinite=True)
    train, control = frame.iloc[:40], frame.iloc[40:]
    result = linkability(
        train, control, train, aux_columns=(["age"], ["income", "city"]), n_attacks=15
    )
    assert 0.0 <= result.risk <= 1.0 and result.n_success >= 1  # each finds itself


def test_utility_of_a_perturbed_release_in_the_data_terms():
    original = extreme_table(infinite=True)
    release = original.copy()
    release["age"] = original["age"].sample(frac=1, random_state=1).to_numpy()
    release["income"] = original["income"] * 1.01
    out = perturbation_utility(original, release, ["age", "income"], target="income")
    assert out["numeric"]["age"]["compared"] == 54  # inf, -inf and NaN compared with nothing
    assert out["numeric"]["income"]["mean_relative_change"] == pytest.approx(0.01)
    change = out["numeric"]["age"]["mean_absolute_change"]
    assert change is not None and math.isfinite(change)
    assert out["correlation"]["max_abs_difference"] is not None
    regression = out["regression"]
    assert 0.0 <= regression["original"]["r2"] <= 1.0
    assert math.isfinite(regression["original"]["coefficients"]["intercept"])


# --------------------------------------------------------------------------- command line


@pytest.fixture
def tables(tmp_path):
    paths = {}
    for name, infinite in (("extreme", True), ("huge", False)):
        path = tmp_path / f"{name}.csv"
        extreme_table(infinite=infinite).to_csv(path, index=False)
        paths[name] = path
    return paths


def _cli(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("name", sorted(ALGORITHMS))
def test_anonymize_auto_hierarchies_exits_0_or_2_with_words(name, tables, tmp_path, capsys):
    for table in tables.values():
        out = tmp_path / f"{name}.csv"
        code, stdout, err = _cli(
            capsys, "anonymize", table, "--qi", "age,city", "--sa", "disease",
            "--algorithm", name, "--auto-hierarchies", "--k", "3", "--max-suppression", "0.2",
            "--identifiers", "", "--keep-order", "--out", out, "--json", "--quiet",
        )  # fmt: skip
        assert code in (0, 2), err
        if code == 2:  # the hierarchy suggested (stderr), then the refusal in words
            assert err.splitlines()[-1].startswith("error: ") and "Traceback" not in err
        else:
            json.loads(stdout)


def test_measure_risk_report_and_attack_of_a_release_of_extreme_numbers(tables, tmp_path, capsys):
    for table in tables.values():
        release = tmp_path / "release.csv"
        code, _, err = _cli(
            capsys, "anonymize", table, "--qi", "age,city", "--sa", "disease",
            "--algorithm", "datafly", "--auto-hierarchies", "--k", "3", "--max-suppression",
            "0.2", "--identifiers", "", "--keep-order", "--out", release, "--quiet",
        )  # fmt: skip
        assert code == 0, err
        for original, released in ((table, release), (table, table)):
            common = ["--original", original, "--release", released, "--qi", "age,income"]
            code, out, err = _cli(capsys, "measure", *common, "--sa", "disease", "--json")
            assert code == 0, err
            measured = json.loads(out)
            assert 0.0 <= measured["pl"]["all"] <= 1.0 and 0.0 <= measured["ul"] <= 1.0
            assert 0.0 <= measured["loss"]["gcp"] <= 1.0
            code, out, err = _cli(capsys, "risk", *common, "--sa", "disease", "--json", "--quiet")
            assert code == 0, err
            risks = json.loads(out)
            assert risks["linkability"] is not None
            code, out, err = _cli(
                capsys, "report", *common, "--sa", "disease", "--out", tmp_path / "r.html",
                "--json", "--quiet",
            )  # fmt: skip
            assert code in (0, 1), err
            code, out, err = _cli(
                capsys, "attack", *common, "--sa", "income", "--tolerance", "0.1", "--json",
                "--quiet",
            )  # fmt: skip
            assert code == 0, err


def test_no_traceback_from_a_separate_process(tables, tmp_path):
    """The command as a user runs it: exit 0 (or 2 with words), never a traceback."""
    done = subprocess.run(
        [sys.executable, "-m", "privcore", "anonymize", str(tables["extreme"]), "--qi",
         "age,city", "--sa", "disease", "--algorithm", "optimal", "--auto-hierarchies",
         "--k", "3", "--max-suppression", "0.2", "--identifiers", "", "--out",
         str(tmp_path / "r.csv"), "--quiet"],
        capture_output=True, text=True, cwd=ROOT, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert "suggested hierarchy for 'age'" in done.stderr
