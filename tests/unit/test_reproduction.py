"""privcore.runs.reproduction: the figures compared, the parameters that come back the
same, the tables kept exactly, and the runs no script can redo refused in words."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import zipfile

import numpy as np
import pandas as pd
import pytest

from privcore.data import load_sample
from privcore.runs import (
    AnonymizeRequest,
    BackgroundRequest,
    EngineTable,
    Inputs,
    MeasureRequest,
    SweepRequest,
    TaskRequest,
    compute,
)
from privcore.runs.reproduction import (
    NotReproducible,
    differing_figures,
    reproduction,
)
from tests.app.test_reproduce_in_python import RUNNER
from tests.conftest import ROOT


def test_the_same_figures_differ_nowhere_and_a_changed_one_is_named():
    recorded = {"k": 3, "pl": {"all": 0.5, "Age": 0.25}, "seconds": 1.2, "cached": True}
    computed = {"k": 3, "pl": {"all": 0.5 + 1e-15, "Age": 0.25}, "seconds": 9.9}
    assert differing_figures(computed, recorded) == []  # how the run went is left out
    assert differing_figures({**computed, "k": 4}, recorded) == ["k"]
    changed = {**computed, "pl": {"all": 0.5, "Age": 0.3}}
    assert differing_figures(changed, recorded) == ["pl.Age"]
    assert differing_figures({"k": 3}, {"k": 3, "l": 2}) == ["l"]  # a figure missing
    assert differing_figures({"x": [1, 2]}, {"x": [1, 3]}) == ["x[1]"]
    assert differing_figures({"x": float("nan")}, {"x": float("nan")}) == []
    assert differing_figures({"x": True}, {"x": 1}) == ["x"]  # a flag is not a number
    assert differing_figures({"report_run": 7}, {"report_run": 9}) == []  # history ids


@pytest.mark.parametrize(
    "request_",
    [
        MeasureRequest(qi=("ZIP", "Age"), sa=("Disease",), k=3, t=0.2),
        AnonymizeRequest(qi=("ZIP", "Age"), sa=("Disease",), k=3, algorithm="samarati"),
        BackgroundRequest(qi=("ZIP",), sa=("Disease",), m=2, tau=0.7, prior={"flu": 2.0}),
        SweepRequest(mechanism="grr", epsilons=(1.0, 2.0), domain=4),
    ],
    ids=lambda r: type(r).__name__,
)
def test_the_parameters_come_back_as_the_same_request(request_):
    made = reproduction(request_, Inputs(), {})
    from privcore import runs

    again = getattr(runs, made.request_class).from_dict(made.run["params"])
    assert again == request_
    assert again.to_dict() == request_.to_dict()


def test_a_page_own_work_and_an_engine_table_are_refused_in_words():
    with pytest.raises(NotReproducible) as own:
        reproduction(TaskRequest(task="profile"), Inputs(), {})
    assert own.value.code == "reproduce.page_work"
    engine_table = EngineTable(engine=object(), handle=None, name="t")
    with pytest.raises(NotReproducible) as engine:
        reproduction(MeasureRequest(qi=("a",)), Inputs(original=engine_table), {})
    assert engine.value.code == "reproduce.engine"


def test_a_column_parquet_cannot_keep_is_refused_not_changed():
    original, _ = load_sample("hospital")
    mixed = original.frame.copy()
    mixed["ZIP"] = mixed["ZIP"].astype(object)
    mixed.loc[0, "ZIP"] = "4760*"  # text among numbers
    with pytest.raises(NotReproducible) as refused:
        reproduction(MeasureRequest(qi=("ZIP",)), Inputs(release=mixed), {})
    assert refused.value.code == "reproduce.table_types"


def test_the_script_redoes_an_anonymization_row_for_row(tmp_path):
    original, schema = load_sample("hospital")
    request = AnonymizeRequest(qi=("ZIP", "Age"), sa=("Disease",), k=3)
    inputs = Inputs(original=original, schema=schema)
    release, summary = compute(request, inputs)[:2]
    made = reproduction(request, inputs, summary, result=release, title="anonymize")
    assert made.run["result_sha256"] == release.fingerprint.sha256
    names = zipfile.ZipFile(io.BytesIO(made.bundle())).namelist()
    assert sorted(names) == [
        "reproduce/original.parquet",
        "reproduce/reproduce.ipynb",
        "reproduce/reproduce.py",
        "reproduce/run.json",
    ]
    zipfile.ZipFile(io.BytesIO(made.bundle())).extractall(tmp_path)
    folder = tmp_path / "reproduce"
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "reproduce.py"], cwd=folder, capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Every figure is the same as the page's." in done.stdout
    # the notebook is the same code; a release whose rows differ is caught
    run = json.loads((folder / "run.json").read_text(encoding="utf-8"))
    run["result_sha256"] = "0" * 64
    (folder / "run.json").write_text(json.dumps(run), encoding="utf-8")
    again = subprocess.run(
        [sys.executable, *RUNNER], cwd=folder, capture_output=True, text=True, env=env
    )
    assert again.returncode != 0 and "the rows of the result" in again.stderr


def test_blanked_rows_and_a_second_release_travel_with_the_run():
    original, schema = load_sample("hospital")
    blanked = np.zeros(len(original.frame), dtype=bool)
    blanked[2] = True
    inputs = Inputs(
        original=original,
        schema=schema,
        release=original.frame,
        second_release=original.frame,
        blanked=blanked,
        aligned=True,
    )
    made = reproduction(MeasureRequest(qi=("ZIP",)), inputs, {"k": 1})
    assert set(made.files) == {
        "original.parquet",
        "release.parquet",
        "second_release.parquet",
        "blanked.parquet",
    }
    back = pd.read_parquet(io.BytesIO(made.files["blanked.parquet"]))["blanked"]
    assert back.tolist() == blanked.tolist()
    assert made.run["inputs"]["aligned"] is True
    code = made.code()
    assert "blanked=blanked" in code and "second_release=second_release" in code


def test_a_release_replayed_from_its_spec_keeps_the_whole_spec():
    """A replay's history record keeps five of its spec's keys; its reproduction keeps
    the spec whole, so that the script makes the same request."""
    from privcore.runs import ReplayRequest

    original, schema = load_sample("hospital")
    request = AnonymizeRequest(qi=("ZIP", "Age"), sa=("Disease",), k=3)
    release = compute(request, Inputs(original=original, schema=schema))[0]
    spec = release.spec(release.written(shuffled=False), None)
    replay = ReplayRequest(spec=spec)
    made = reproduction(replay, Inputs(original=original, schema=schema), {})
    assert made.run["params"] == {"spec": json.loads(json.dumps(spec))}
    assert ReplayRequest.from_dict(made.run["params"]) == replay
