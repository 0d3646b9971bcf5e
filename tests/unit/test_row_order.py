"""Rows matched by position are checked: a shuffled release is refused with a clear
error instead of being measured or attacked against the wrong rows (SPEC §3)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from privcore.anonymize import anonymize
from privcore.cli import main
from privcore.data import load_sample
from privcore.errors import DataFormatError
from privcore.measure.entropy import align, check_row_order
from privcore.measure.report import measure_release
from privcore.models import KAnonymity

ROOT = Path(__file__).resolve().parents[2]
HOSPITAL = ROOT / "assets" / "hospital"


@pytest.fixture(scope="module")
def hospital():
    return load_sample("hospital")


def _shuffled(frame: pd.DataFrame, seed: int = 3) -> pd.DataFrame:
    order = np.random.default_rng(seed).permutation(len(frame))
    return frame.iloc[order].reset_index(drop=True)


def test_the_bundled_release_is_in_order(hospital):
    dataset, schema = hospital
    release = pd.read_csv(HOSPITAL / "hospital_release.csv", dtype=str)
    shares = check_row_order(dataset.frame, release, ["ZIP", "Age"], schema.hierarchies)
    # The textbook's table puts 47602 (row 2) under 4767* and 47673 (row 8) under
    # 4760*: 7 of 9 released rows contain their own original row (ZIP and age), far
    # more than half, so the release is accepted as in order.
    assert shares["all"][0] == pytest.approx(7 / 9)


def test_a_large_shuffled_release_is_judged_per_column():
    dataset, schema = load_sample("adult")
    qi = schema.quasi_identifiers
    release = anonymize(dataset.frame, schema, [KAnonymity(5)], algorithm="optimal")
    shares = check_row_order(dataset.frame, release.frame, qi, schema.hierarchies)
    assert all(same == 1.0 for same, _ in shares.values()), shares
    # sex is kept: a random pairing matches it about half the time (Adult is 2/3 male)
    assert 0.5 < shares["sex"][1] < 0.6
    with pytest.raises(DataFormatError) as info:
        check_row_order(dataset.frame, release.export(seed=1), qi, schema.hierarchies)
    assert info.value.params["column"] == "sex"


def test_releases_that_are_not_generalizations_are_paired_by_closeness():
    """Class means (Mondrian's mean summary) and synthetic records contain no original
    row, so cover cannot judge their order: their values lie near their own records in
    order and no nearer than chance when shuffled, which refuses the shuffled ones."""
    dataset, schema = load_sample("adult")
    qi = schema.quasi_identifiers
    made = anonymize(dataset.frame, schema, [KAnonymity(10)], algorithm="mondrian", summary="mean")
    check_row_order(dataset.frame, made.frame, qi, schema.hierarchies)
    with pytest.raises(DataFormatError) as info:
        check_row_order(dataset.frame, made.export(shuffle=True), qi, schema.hierarchies)
    assert info.value.code == "measure.row_order"
    frame = dataset.frame.head(3000).reset_index(drop=True)
    for algorithm in ("condensation", "mdav", "noise", "pram"):
        made = anonymize(frame, schema, [KAnonymity(5)], algorithm=algorithm, max_suppression=0.9)
        check_row_order(frame, made.export(shuffle=False), qi, schema.hierarchies)
        with pytest.raises(DataFormatError) as info:
            check_row_order(frame, made.export(shuffle=True), qi, schema.hierarchies)
        assert info.value.code == "measure.row_order", algorithm
    # nine rows are too few to tell a pairing from chance: not refused
    hospital, hospital_schema = load_sample("hospital")
    made = anonymize(hospital.frame, hospital_schema, [KAnonymity(3)], algorithm="condensation")
    check_row_order(hospital.frame, made.export(shuffle=True), ["ZIP", "Age"])


@pytest.mark.parametrize("algorithm", ["datafly", "optimal", "kaca"])
def test_releases_in_order_pass_and_shuffled_ones_are_refused(hospital, algorithm):
    """Nine rows are checked exactly: every released row matches its own original row
    when in order; shuffled, fewer than half do although a full matching exists."""
    dataset, schema = hospital
    release = anonymize(dataset.frame, schema, [KAnonymity(3)], algorithm=algorithm)
    qi = schema.quasi_identifiers
    shares = check_row_order(dataset.frame, release.frame, qi, schema.hierarchies)
    assert shares["all"][0] == 1.0, shares
    shuffled = release.export(shuffle=True, seed=3)
    with pytest.raises(DataFormatError) as info:
        check_row_order(dataset.frame, shuffled, qi, schema.hierarchies)
    assert info.value.code == "measure.row_order"
    assert set(info.value.params["column"].split(", ")) <= set(qi)
    assert "key column" in info.value.message


def test_align_without_quasi_identifiers_matches_by_position_only(hospital):
    dataset, _ = hospital
    shuffled = _shuffled(dataset.frame)
    original, release = align(dataset.frame, shuffled)
    assert len(original) == len(release) == 9


def test_measure_release_refuses_a_shuffled_release_and_accepts_a_key(hospital):
    dataset, _ = hospital
    release = pd.read_csv(HOSPITAL / "hospital_release.csv", dtype=str)
    original = dataset.frame.assign(rid=range(len(dataset.frame)))
    shuffled = _shuffled(release.assign(rid=range(len(release))))
    with pytest.raises(DataFormatError, match="looks shuffled"):
        measure_release(original, shuffled, qi=["ZIP", "Age"], sa=["Disease"], check_order=True)
    keyed = measure_release(original, shuffled, qi=["ZIP", "Age"], sa=["Disease"], key="rid")
    in_order = measure_release(dataset.frame, release, qi=["ZIP", "Age"], sa=["Disease"])
    assert keyed.to_dict()["pl"] == in_order.to_dict()["pl"]


def test_cli_measure_and_attack_exit_2_on_a_shuffled_release(tmp_path, capsys):
    shuffled = tmp_path / "shuffled.csv"
    _shuffled(pd.read_csv(HOSPITAL / "hospital_release.csv", dtype=str)).to_csv(
        shuffled, index=False
    )
    common = ["--original", str(HOSPITAL / "hospital.csv"), "--release", str(shuffled)]
    common += ["--qi", "ZIP,Age", "--sa", "Disease"]
    assert main(["measure", *common, "--json"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: The rows of the release do not line up") and "\n" not in err
    assert main(["attack", *common, "--roll-size", "100", "--json", "--quiet"]) == 2
    assert "do not line up" in capsys.readouterr().err
    in_order = ["--release", str(HOSPITAL / "hospital_release.csv")]
    assert main(["measure", *common[:2], *in_order, *common[4:], "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["k"] == 3
