"""Risk beyond class sizes on a joint frequency set and on a table read by an engine
(:func:`privcore.report.risk.assess_risk` with ``weights``,
:func:`privcore.runs.tables.risk_tables`): the figures of the records the set stands for."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from privcore.data import load, load_sample
from privcore.engines import engine
from privcore.report import risk as risk_module
from privcore.report.risk import assess_risk, pairs_as_records
from privcore.runs.tables import risk_tables

QI = ["age", "sex", "race"]
SA = ["occupation"]
ROWS = 400


def as_json(value):
    return json.loads(json.dumps(value))


@pytest.fixture(scope="module")
def tables():
    """400 rows of Adult and a release with age in decades (row-aligned)."""
    frame = load_sample("adult")[0].frame.head(ROWS).reset_index(drop=True)[[*QI, *SA]]
    release = frame.copy()
    decade = (release["age"] // 10 * 10).astype(int)
    release["age"] = decade.astype(str) + "-" + (decade + 9).astype(str)
    return frame, release


def joint(original: pd.DataFrame, release: pd.DataFrame):
    """The joint frequency set of two row-aligned tables: their pairs and counts."""
    columns = [*QI, *SA]
    both = pd.concat(
        [original[columns].add_prefix("o:"), release[columns].add_prefix("r:")], axis=1
    ).astype(str)
    counted = both.value_counts(sort=False).reset_index()  # not rows: the test's oracle
    left = counted[[f"o:{c}" for c in columns]].set_axis(columns, axis=1)
    right = counted[[f"r:{c}" for c in columns]].set_axis(columns, axis=1)
    left["age"] = left["age"].astype(int)
    return left, right, counted["count"].to_numpy()


def test_a_frequency_set_gives_the_figures_of_its_records(tables):
    """With weights, the class-based estimates equal those of the table the set stands
    for (the records in memory), and the three attacks are those of the expanded pairs."""
    original, release = tables
    left, right, weights = joint(original, release)
    assert weights.sum() == ROWS and len(weights) < ROWS
    weighted = assess_risk(left, right, QI, SA, sampling_fraction=0.1, weights=weights, seed=3)
    rows = assess_risk(original, release, QI, SA, sampling_fraction=0.1, seed=3)
    a, b = weighted.to_dict(), rows.to_dict()
    for name in ("population_uniqueness", "individual_risk"):
        for field, value in b[name].items():
            if isinstance(value, float):
                assert a[name][field] == pytest.approx(value, rel=1e-9, abs=1e-12), field
            else:
                assert a[name][field] == value, field
    assert a["suda2"]["special_uniques"] == b["suda2"]["special_uniques"]
    expanded_left, expanded_right, sampled = pairs_as_records(left, right, weights)
    assert not sampled
    direct = assess_risk(expanded_left, expanded_right, QI, SA, sampling_fraction=0.1, seed=3)
    for name in ("singling_out", "linkability", "inference", "control"):
        assert a[name] == direct.to_dict()[name], name
    assert "sample" not in a["control"]


def test_above_the_limit_the_attacks_run_on_a_sample(tables, monkeypatch):
    original, release = tables
    left, right, weights = joint(original, release)
    monkeypatch.setattr(risk_module, "GDPR_RECORDS", 150)
    found = assess_risk(left, right, QI, SA, sampling_fraction=0.1, weights=weights).to_dict()
    assert found["control"]["sample"] == {"rows": 150, "records": ROWS}
    assert found["control"]["training_rows"] + found["control"]["control_rows"] == 150
    # the class-based figures still read every record
    full = assess_risk(original, release, QI, SA, sampling_fraction=0.1, gdpr=False).to_dict()
    assert found["suda2"]["special_uniques"] == full["suda2"]["special_uniques"]


@pytest.mark.parametrize("name", ["pandas", "duckdb"])
def test_risk_on_an_engine_is_the_frequency_set_assessment(name, tables, tmp_path):
    original, release = tables
    original.to_parquet(tmp_path / "original.parquet", index=False)
    release.to_parquet(tmp_path / "release.parquet", index=False)
    run_on = engine(name)
    assessment, dataset = risk_tables(
        run_on,
        run_on.scan(str(tmp_path / "original.parquet")),
        run_on.scan(str(tmp_path / "release.parquet")),
        qi=QI,
        sa=SA,
        sampling_fraction=0.1,
        seed=2,
        name="original.parquet",
    )
    assert dataset.records == ROWS
    found = assessment.to_dict()
    memory = assess_risk(
        load(tmp_path / "original.parquet").frame,
        load(tmp_path / "release.parquet").frame,
        QI,
        SA,
        sampling_fraction=0.1,
        seed=2,
    ).to_dict()
    assert found["population_uniqueness"]["model"] == memory["population_uniqueness"]["model"]
    assert found["population_uniqueness"]["share"] == pytest.approx(
        memory["population_uniqueness"]["share"], rel=1e-9
    )
    assert found["individual_risk"]["expected_reidentifications"] == pytest.approx(
        memory["individual_risk"]["expected_reidentifications"], rel=1e-9
    )
    assert found["suda2"]["special_uniques"] == memory["suda2"]["special_uniques"]
    # the attacks: another row order, so another held-out set; within the intervals
    for attack in ("singling_out", "linkability"):
        ours, theirs = found[attack]["ci"], memory[attack]["ci"]
        assert ours[0] <= theirs[1] and theirs[0] <= ours[1], attack
    assert np.isfinite(found["inference"]["occupation"]["risk"])
    assert as_json(found) == found


def test_a_shuffled_release_cannot_have_a_control_share_held_out(tables):
    """Holding out drops the control rows of the release by position: a release whose
    rows are shuffled is refused with words that say what to do; with a control set
    given, or without the three attacks, it is assessed."""
    from privcore.errors import DataFormatError

    original, release = tables
    shuffled = release.sample(frac=1.0, random_state=5).reset_index(drop=True)
    with pytest.raises(DataFormatError) as caught:
        assess_risk(original, shuffled, QI, SA, sampling_fraction=0.1)
    assert caught.value.code == "risk.row_order" and "control set" in caught.value.message
    assert caught.value.params["column"] in QI
    training, control = original.iloc[:300], original.iloc[300:]
    given = assess_risk(training, shuffled.iloc[:300], QI, SA, control=control)
    assert given.to_dict()["control"]["source"] == "given"
    assert assess_risk(original, shuffled, QI, SA, gdpr=False).gdpr is None
    # in order, nothing is refused
    assert assess_risk(original, release, QI, SA).to_dict()["control"]["source"] == "held_out"


def test_record_risks_by_hand():
    """Release classes on (a, b): {x,1} × 2, {x,2} × 1, {y,1} × 1, at π = 1/2. A class of
    f records has F̂ = f/π = 2f, p = f/F̂ = 1/2, and sdcMicro's approximation for f = 1
    gives E[1/F] = p/(1 − p)·ln(1/p) = ln 2 = 0.6931…; the class of two is the
    estimator's own figure. SUDA2: row 2 ({x,2}) has the MSU {b = 2}, row 3 ({y,1}) the
    MSU {a = y}; rows 0 and 1 none."""
    from privcore.measure.population import individual_risk

    frame = pd.DataFrame({"a": ["x", "x", "x", "y"], "b": [1, 1, 2, 1], "s": list("pqrs")})
    found = assess_risk(frame, frame, ["a", "b"], ["s"], sampling_fraction=0.5, gdpr=False)
    table = found.record_risks()
    figures = ["individual_risk", "suda_score", "dis_score", "msus"]
    assert list(table.columns) == ["row", "a", "b", *figures]
    assert table["a"].tolist() == ["x", "x", "x", "y"] and table["b"].tolist() == [1, 1, 2, 1]
    assert table["row"].tolist() == [0, 1, 2, 3]
    assert table["individual_risk"].iloc[2] == pytest.approx(np.log(2.0))
    assert table["individual_risk"].iloc[3] == pytest.approx(np.log(2.0))
    direct = individual_risk(frame, ["a", "b"], sampling_fraction=0.5).per_record
    assert table["individual_risk"].tolist() == pytest.approx(direct.tolist())
    assert table["msus"].tolist() == [0, 0, 1, 1]
    assert (table["suda_score"].iloc[[2, 3]] > 0).all() and (
        table["suda_score"].iloc[:2] == 0
    ).all()
