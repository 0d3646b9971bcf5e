"""Adding a numeric option to an algorithm touches three files (docs/ARCHITECTURE.md,
"Adding an option"): the algorithm's module and its line in the table, where the option
is declared once (default, range, step, help); and its words in the English and Chinese
catalogues. The request, the command line's ``--help``, the Anonymize page's widget, the
release's spec and the History's label all follow with nothing else to change.

Below, the three files are written out as a toy algorithm ``widest`` with an option
``spread``, registered at run time (as tests/unit/test_adding_an_algorithm.py does)."""

from __future__ import annotations

import json
import time

import numpy as np
import pandas as pd
import pytest

from privcore import history
from privcore.anonymize import ALGORITHMS, Algorithm
from privcore.anonymize.base import Progress, Release, finish, prepare
from privcore.anonymize.spec import reproduce
from privcore.cli import build_parser, main
from privcore.core.parameters import Parameter
from privcore.data import Schema, load_sample
from privcore.data.codes import SUPPRESSED
from privcore.errors import ParameterError
from privcore.models import PrivacyModel
from privcore.runs import AnonymizeRequest, Inputs, run
from privcore.words.catalog import catalogue
from tests.app.conftest import ROOT, new_app, no_exceptions
from ui.history.words import field_label


# --- file 1: privcore/anonymize/widest.py and its line in ALGORITHMS ---------------------
def widest(
    df: pd.DataFrame,
    schema: Schema,
    constraints: list[PrivacyModel],
    *,
    max_suppression: float = 0.0,
    seed: int = 0,
    progress: Progress | None = None,
    spread: float = 2.0,
) -> Release:
    """Every quasi-identifier at the top of its hierarchy; ``spread`` is recorded."""
    started = time.perf_counter()
    problem = prepare(
        df, schema, constraints, max_suppression=max_suppression, seed=seed, need_hierarchies=False
    )
    released = df.copy()
    released[list(problem.qi)] = SUPPRESSED
    return finish(
        problem,
        released,
        suppressed=np.zeros(len(df), dtype=bool),
        algorithm="widest",
        params={"spread": spread},
        started=started,
    )


TOY = Algorithm(
    "widest",
    widest,
    "Everything at the top, widened",
    "local",
    "a test",
    (
        Parameter(
            "spread",
            "float",
            "widest: how far the toy spreads, above 0, at most 10",
            minimum=0.0,
            maximum=10.0,
            open_minimum=True,
            default=2.0,
            step=0.5,
        ),
    ),
)

# --- files 2 and 3: the option's words in privcore/words/locales/{en,zh}.json ----------
WORDS = {"en": {"param.spread": "Spread of the toy"}, "zh": {"param.spread": "玩具的展开度"}}


@pytest.fixture
def registered(monkeypatch):
    monkeypatch.setitem(ALGORITHMS, TOY.name, TOY)
    for lang, words in WORDS.items():
        for key, text in words.items():
            monkeypatch.setitem(catalogue(lang), key, text)
    return TOY.name


HOSPITAL = "assets/hospital/hospital.csv"


def test_the_request_takes_it_with_its_default_and_range(registered):
    assert AnonymizeRequest(algorithm=registered).options() == {"spread": 2.0}
    request = AnonymizeRequest(algorithm=registered, spread=3.5)
    assert request.spread == 3.5 and request.to_dict()["spread"] == 3.5
    assert AnonymizeRequest.from_dict(request.to_dict()) == request
    with pytest.raises(ParameterError, match="--spread must be a number above 0"):
        AnonymizeRequest(algorithm=registered, spread=0)


def test_a_request_made_before_the_algorithm_was_added_holds_its_default(monkeypatch):
    before = AnonymizeRequest()
    monkeypatch.setitem(ALGORITHMS, TOY.name, TOY)
    assert before.spread == 2.0 and before.to_dict()["spread"] == 2.0


def test_the_command_line_offers_it(registered, tmp_path, capsys):
    parser = build_parser()
    [commands] = [a for a in parser._actions if a.dest == "command"]
    words = " ".join(commands.choices["anonymize"].format_help().split())
    assert "--spread SPREAD widest: how far the toy spreads, above 0, at most 10 (default 2)" in (
        words
    )
    spec_file = tmp_path / "spec.json"
    code = main(
        ["anonymize", HOSPITAL, "--qi", "ZIP,Age", "--sa", "Disease", "--algorithm",
         registered, "--k", "9", "--spread", "3.5", "--out", str(tmp_path / "r.csv"),
         "--spec-out", str(spec_file), "--json"]
    )  # fmt: skip
    assert code == 0, capsys.readouterr().err
    assert json.loads(spec_file.read_text())["options"] == {"spread": 3.5}
    code = main(
        ["anonymize", HOSPITAL, "--qi", "ZIP,Age", "--sa", "Disease", "--algorithm",
         registered, "--spread", "11", "--out", str(tmp_path / "r2.csv")]
    )  # fmt: skip
    assert code == 2
    assert "--spread must be a number above 0 and at most 10" in capsys.readouterr().err


def test_the_spec_replays_it(registered):
    dataset, schema = load_sample("hospital")
    outcome = run(
        AnonymizeRequest(algorithm=registered, k=9, qi=["ZIP", "Age"], sa=["Disease"], spread=4),
        Inputs(original=dataset, schema=schema),
    )
    spec = outcome.result.spec()
    assert spec["options"] == {"spread": 4.0}
    again = reproduce(dataset.frame, spec)
    assert again.params["spread"] == 4.0
    assert history.get_run(outcome.run_id)["params"]["spread"] == 4.0


def test_the_history_labels_it_in_both_languages(registered):
    assert field_label("spread", None, "en") == "Spread of the toy"
    assert field_label("spread", None, "zh") == "玩具的展开度"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_anonymize_page_shows_its_widget_and_runs_with_it(registered, lang):
    at = new_app()
    at.session_state["lang"] = lang
    at.session_state["workbench"].active = "hospital"
    at.switch_page(str(ROOT / "pages" / "anonymize.py"))
    at.run()
    at.selectbox(key="an_algorithm").set_value(registered).run()
    no_exceptions(at)
    [widget] = [w for w in at.number_input if w.label == WORDS[lang]["param.spread"]]
    assert widget.value == 2.0
    assert (widget.min, widget.max, widget.step) == (0.5, 10.0, 0.5)
    widget.set_value(6.5).run()
    at.slider(key="an_k").set_value(9).run()
    at.button(key="an_run").click().run()
    no_exceptions(at)
    runs = history.list_runs(kind="anonymize")
    assert runs and runs[0]["params"]["algorithm"] == registered
    assert runs[0]["params"]["spread"] == 6.5
