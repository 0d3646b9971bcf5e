"""measure_release and `python -m privcore measure`: the SPEC worked example end to end."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from privcore.cli import main
from privcore.data import load_sample
from privcore.errors import DataFormatError, RoleError
from privcore.measure.report import measure_release
from privcore.models import DistinctLDiversity, KAnonymity, TCloseness
from tests.conftest import ASSETS

HOSPITAL = ASSETS / "hospital"


@pytest.fixture
def worked():
    original = load_sample("hospital")[0].frame
    release = load_sample("hospital_release")[0].frame
    return original, release


def test_worked_example(worked):
    original, release = worked
    result = measure_release(
        original,
        release,
        qi=["ZIP", "Age"],
        sa=["Salary", "Disease"],
        models=[KAnonymity(3), DistinctLDiversity(3), TCloseness(0.2, "ordered", ["Salary"])],
    )
    out = result.to_dict()
    assert (out["k"], out["classes"], out["suppressed_rows"]) == (3, 3, 0)
    assert out["l_distinct"] == {"Salary": 3, "Disease": 3}
    assert out["t_closeness"]["Salary"] == {"distance": "ordered", "t": pytest.approx(0.375)}
    assert out["pl"]["all"] == pytest.approx(0.5)
    assert out["pl"]["Salary"] == pytest.approx(0.5)
    assert round(out["pl"]["Disease"], 3) == 0.367
    assert out["ul"] == pytest.approx(0.75)
    assert out["dr"] == pytest.approx(0.5)
    assert out["risk"]["prosecutor_max"] == pytest.approx(1 / 3)
    assert out["risk"]["prosecutor_avg"] == pytest.approx(3 / 9)
    assert out["loss"]["discernibility"] == 27
    verdicts = {v["model"]: v["passed"] for v in out["verdicts"]}
    assert verdicts == {"k-anonymity": True, "distinct l-diversity": True, "t-closeness": False}
    json.dumps(out)  # JSON-safe


def test_local_pl_of_age_against_zip(worked):
    from privcore.measure import local_privacy_level

    original, release = worked
    assert round(local_privacy_level(original, release, ["Age"], ["ZIP"]).value, 3) == 0.290


def test_key_alignment_and_errors(worked):
    original, release = worked
    original = original.assign(id=range(9))
    shuffled = release.assign(id=range(9)).sample(frac=1, random_state=3)
    by_key = measure_release(original, shuffled, qi=["ZIP", "Age"], sa=["Disease"], key="id")
    in_order = measure_release(original, release, qi=["ZIP", "Age"], sa=["Disease"])
    assert round(by_key.privacy.value, 3) == 0.367  # PL(Disease), as without shuffling
    assert by_key.privacy.value == pytest.approx(in_order.privacy.value)
    assert by_key.release["Disease"].tolist() == release["Disease"].tolist()
    with pytest.raises(DataFormatError) as info:
        measure_release(original, release.iloc[:8], qi=["ZIP", "Age"], sa=["Disease"])
    assert info.value.code == "measure.alignment"
    with pytest.raises(RoleError):
        measure_release(original, release, qi=["ZIP", "Height"], sa=["Disease"])
    with pytest.raises(RoleError):
        measure_release(original, release, qi=["ZIP"], sa=["ZIP"])


def test_loss_uses_hierarchies_when_cells_are_labels():
    dataset, schema = load_sample("hospital")
    original = dataset.frame
    release = original.copy()
    release["ZIP"] = schema.hierarchies["ZIP"].generalize_values(original["ZIP"], 2)
    release["Age"] = schema.hierarchies["Age"].generalize_values(original["Age"], 2)
    result = measure_release(
        original, release, qi=["ZIP", "Age"], sa=["Disease"], hierarchies=schema.hierarchies
    )
    loss = result.loss
    assert loss["levels"] == {"ZIP": 2, "Age": 2}
    # precision = 1 − mean(level/height): (2/5 + 2/3)/2 per record
    assert loss["precision"] == pytest.approx(1 - (2 / 5 + 2 / 3) / 2)
    assert 0 < loss["gcp"] <= 1
    assert loss["whd_total"] > 0


def test_cli_json_contract(capsys):
    code = main(
        [
            "measure",
            "--original",
            str(HOSPITAL / "hospital.csv"),
            "--release",
            str(HOSPITAL / "hospital_release.csv"),
            "--qi",
            "ZIP,Age",
            "--sa",
            "Salary,Disease",
            "--k",
            "3",
            "--json",
        ]
    )
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    for key in (
        "k",
        "classes",
        "suppressed_rows",
        "l_distinct",
        "l_entropy",
        "t_closeness",
        "pl",
        "dr",
        "ul",
        "risk",
    ):
        assert key in out
    assert set(out["risk"]) >= {"prosecutor_max", "prosecutor_avg", "marketer"}
    assert out["pl"]["all"] == pytest.approx(0.5)
    assert out["t_closeness"]["Salary"]["distance"] == "ordered"


def test_cli_bad_input_exits_2(tmp_path, capsys):
    short = tmp_path / "short.csv"
    pd.read_csv(HOSPITAL / "hospital_release.csv").iloc[:5].to_csv(short, index=False)
    code = main(
        [
            "measure",
            "--original",
            str(HOSPITAL / "hospital.csv"),
            "--release",
            str(short),
            "--qi",
            "ZIP,Age",
            "--sa",
            "Disease",
        ]
    )
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error:") and "\n" not in err
    code = main(
        [
            "measure",
            "--original",
            str(HOSPITAL / "hospital.csv"),
            "--release",
            str(HOSPITAL / "hospital_release.csv"),
            "--qi",
            "ZIP",
            "--sa",
            "Disease",
            "--hierarchy",
            "nonsense",
        ]
    )
    assert code == 2
