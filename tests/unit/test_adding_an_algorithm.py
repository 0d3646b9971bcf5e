"""Adding an algorithm is one module and one line in privcore.anonymize.ALGORITHMS
(docs/ARCHITECTURE.md, "Adding an algorithm"): the request, run(), the history, the
command line and the Anonymize page all offer it with nothing else to change."""

from __future__ import annotations

import json
import time

import pandas as pd
import pytest

from privcore import history
from privcore.anonymize import ALGORITHMS, Algorithm
from privcore.anonymize.base import Progress, Release, finish, prepare
from privcore.cli import main
from privcore.data import Schema, load_sample
from privcore.data.codes import SUPPRESSED
from privcore.models import PrivacyModel
from privcore.runs import OPTIONS, AnonymizeRequest, Inputs, run
from privcore.runs.registry import ALGORITHMS as ENTRIES


# --- the module: privcore/anonymize/everything_at_top.py --------------------------------
def everything_at_top(
    df: pd.DataFrame,
    schema: Schema,
    constraints: list[PrivacyModel],
    *,
    max_suppression: float = 0.0,
    seed: int = 0,
    progress: Progress | None = None,
) -> Release:
    """Every quasi-identifier at the top of its hierarchy: one class of all the rows
    (valid when the whole table meets the constraints)."""
    started = time.perf_counter()
    problem = prepare(
        df, schema, constraints, max_suppression=max_suppression, seed=seed, need_hierarchies=False
    )
    released = df.copy()
    released[list(problem.qi)] = SUPPRESSED
    return finish(
        problem,
        released,
        suppressed=pd.Series(False, index=df.index).to_numpy(),
        algorithm="everything_at_top",
        started=started,
    )


# --- the registry line: in privcore/anonymize/__init__.py's ALGORITHMS ------------------
TOY = Algorithm("everything_at_top", everything_at_top, "Everything at the top", "local", "a test")


@pytest.fixture
def registered(monkeypatch):
    monkeypatch.setitem(ALGORITHMS, TOY.name, TOY)
    return TOY.name


def test_the_registry_the_request_and_run_offer_it(registered):
    assert registered in ENTRIES and ENTRIES[registered].title == "Everything at the top"
    assert registered in OPTIONS["algorithm"].allowed()
    dataset, schema = load_sample("hospital")
    outcome = run(
        AnonymizeRequest(algorithm=registered, k=9, qi=["ZIP", "Age"], sa=["Disease"]),
        Inputs(original=dataset, schema=schema),
    )
    assert outcome.result.to_dict()["k"] == 9  # one class of the nine patients
    assert history.get_run(outcome.run_id)["params"]["algorithm"] == registered


def test_the_command_line_offers_it(registered, tmp_path, capsys):
    hospital = "assets/hospital/hospital.csv"
    code = main(
        ["anonymize", hospital, "--qi", "ZIP,Age", "--sa", "Disease", "--algorithm",
         registered, "--k", "9", "--out", str(tmp_path / "r.csv"), "--json"]
    )  # fmt: skip
    assert code == 0
    assert json.loads(capsys.readouterr().out)["k"] == 9


def test_without_the_line_it_is_unknown():
    assert "everything_at_top" not in OPTIONS["algorithm"].allowed()
    with pytest.raises(Exception) as info:
        AnonymizeRequest(algorithm="everything_at_top")
    assert "everything_at_top" in str(info.value)
