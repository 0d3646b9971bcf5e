"""Cross-check of privcore.attacks.gdpr_risks against Anonymeter 1.1 on Adult.

Anonymeter pins numpy < 1.27 and cannot share privcore's environment, so it runs in an
interpreter of its own: ``$ANONYMETER_PYTHON``, else ``.venv-anonymeter/bin/python`` at
the repository's root (``make anonymeter`` makes it), else this interpreter if it can
import ``anonymeter``. The test starts tests/crosscheck/anonymeter_runner.py there and
reads Anonymeter's figures as JSON; without such an interpreter it is skipped.

Data: Adult (30,162 rows) shuffled (seed 0); 5,000 training and 5,000 control records;
two releases of the training records: privcore's condensation (k = 5, a synthetic
release) and the training records themselves. Attacks with Anonymeter's defaults
(500 attacks): multivariate singling out (3 columns), linkability (the 8 columns other
than occupation, the first 4 against the last 4), inference of occupation from the other
8. Agreement: for each attack the risk intervals overlap, and so do the Wilson intervals
of the attack and control success rates (and of the naive baselines of singling out and
linkability, privcore's pooled over four seeds: Anonymeter's baseline varies from run to
run whatever its seed); both sides draw their own random targets and predicates, so the
figures agree as estimates, not digit for digit.

Where the two differ on purpose (each checked below):

1. Control-size correction of singling out. Anonymeter 1.1 fits its model to the number
   of predicates evaluated at each sample size instead of the number that single out
   (``len`` of the per-predicate counts), so its factor is (n_control + 1)/(n_train + 1)
   whatever the predicates. privcore fits the model to the expected number that single
   out. With equal-sized sets (as above) both factors are ≈ 1 and the risks agree; with
   a control set of 1,500 records Anonymeter's factor is exactly that ratio (≈ 0.35)
   while privcore's exceeds 1 (the counts grow with the table).
2. Inference baseline. Anonymeter samples the naive guesses from the release and then
   aligns them with the targets by index label (``reindex_like``): only targets whose
   label was drawn get a guess, the others a missing one, so its baseline is far below
   a random guess's success. privcore guesses the secret of a random released row; its
   interval covers the expected rate Σ_v p_release(v)·p_training(v).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from privcore.anonymize import anonymize
from privcore.attacks.gdpr_risks import inference, linkability, singling_out, success_rate
from privcore.data.samples import load_sample
from privcore.models import KAnonymity

ROOT = Path(__file__).resolve().parents[2]
RUNNER = Path(__file__).with_name("anonymeter_runner.py")
SECRET = "occupation"
TRAIN_ROWS = CONTROL_ROWS = 5000
SMALL_CONTROL = 1500
N_ATTACKS = 500

pytestmark = pytest.mark.slow


def anonymeter_python() -> str | None:
    """An interpreter that imports anonymeter, or None."""
    given = os.environ.get("ANONYMETER_PYTHON")
    for candidate in (given, ROOT / ".venv-anonymeter" / "bin" / "python"):
        if candidate and Path(candidate).is_file():
            probe = subprocess.run(
                [str(candidate), "-c", "import anonymeter.evaluators"],
                capture_output=True,
                check=False,
            )
            if probe.returncode == 0:
                return str(candidate)
    if importlib.util.find_spec("anonymeter") is not None:
        return sys.executable
    return None


@pytest.fixture(scope="module")
def oracle_python() -> str:
    python = anonymeter_python()
    if python is None:
        pytest.skip(
            "Anonymeter is not installed: set ANONYMETER_PYTHON or run `make anonymeter` "
            "(a separate environment, .venv-anonymeter, with anonymeter==1.1.0)"
        )
    return python


@pytest.fixture(scope="module")
def adult(tmp_path_factory) -> dict:
    dataset, schema = load_sample("adult")
    frame = dataset.frame
    order = np.random.default_rng(0).permutation(len(frame))
    train = frame.iloc[order[:TRAIN_ROWS]].reset_index(drop=True)
    control = frame.iloc[order[TRAIN_ROWS : TRAIN_ROWS + CONTROL_ROWS]].reset_index(drop=True)
    condensed = anonymize(train, schema, [KAnonymity(5)], algorithm="condensation", seed=0)
    folder = tmp_path_factory.mktemp("anonymeter")
    paths = {}
    tables = {
        "train": train,
        "control": control,
        "small_control": control.iloc[:SMALL_CONTROL],
        "condensation": condensed.frame,
        "itself": train,
    }
    for name, table in tables.items():
        paths[name] = str(folder / f"{name}.csv")
        table.to_csv(paths[name], index=False)
    known = [c for c in frame.columns if c != SECRET]
    return {"tables": tables, "paths": paths, "known": known, "folder": folder}


@pytest.fixture(scope="module")
def oracle_on(oracle_python, adult):
    """Anonymeter's figures for every attack on a release, each release run once."""
    runs: dict[str, dict] = {}

    def figures(release: str) -> dict:
        if release not in runs:
            runs[release] = run_oracle(oracle_python, adult, release, **every_attack(adult))
        return runs[release]

    return figures


def run_oracle(python: str, adult: dict, release: str, control: str = "control", **attacks):
    spec = {
        "train": adult["paths"]["train"],
        "control": adult["paths"][control],
        "release": adult["paths"][release],
        "seed": 0,
        "n_attacks": N_ATTACKS,
        "n_jobs": 2,
        **attacks,
    }
    path = adult["folder"] / f"spec_{release}_{control}.json"
    path.write_text(json.dumps(spec))
    done = subprocess.run(
        [python, str(RUNNER), str(path)], capture_output=True, text=True, timeout=900, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def every_attack(adult: dict) -> dict:
    known = adult["known"]
    return {
        "singling_out": {"modes": ["multivariate"], "n_cols": 3},
        "linkability": {"aux_columns": [known[:4], known[4:]]},
        "inference": {"aux_columns": known, "secrets": [SECRET]},
    }


def ours(adult: dict, release: str) -> dict:
    tables, known = adult["tables"], adult["known"]
    train, control, released = tables["train"], tables["control"], tables[release]
    return {
        "singling_out_multivariate": singling_out(train, control, released, seed=0),
        "linkability": linkability(
            train, control, released, aux_columns=(known[:4], known[4:]), seed=0
        ),
        f"inference_{SECRET}": inference(
            train, control, released, aux_columns=known, secret=SECRET, seed=0
        ),
    }


#: Seeds whose naive baselines are pooled: Anonymeter's baseline changes from run to run
#: whatever its seed (its random predicates draw from unseeded generators: 16 to 46
#: successes in 500 on the same tables), so one seeded draw of privcore's own against one
#: of Anonymeter's fails the overlap now and then; privcore's rate over 4 × 500 attacks is
#: the steadier estimate to hold Anonymeter's interval against.
BASELINE_SEEDS = (0, 1, 2, 3)


def pooled_baseline(adult: dict, release: str, name: str) -> tuple[float, float]:
    """privcore's naive-baseline successes of attack ``name`` pooled over
    :data:`BASELINE_SEEDS`, as a Wilson interval."""
    tables, known = adult["tables"], adult["known"]
    train, control, released = tables["train"], tables["control"], tables[release]
    successes, attacks = 0.0, 0
    for seed in BASELINE_SEEDS:
        if name == "linkability":
            aux = (known[:4], known[4:])
            result = linkability(train, control, released, aux_columns=aux, seed=seed)
        else:
            result = singling_out(train, control, released, seed=seed)
        successes += result.n_baseline
        attacks += result.n_baseline_attacks
    return interval(successes, attacks, BASELINE_CONFIDENCE)


def overlap(a, b) -> bool:
    return max(a[0], b[0]) <= min(a[1], b[1]) + 1e-12


def interval(successes: float, n: int, confidence: float = 0.95) -> tuple[float, float]:
    rate = success_rate(successes, n, confidence)
    return rate.value - rate.error, rate.value + rate.error


#: Confidence of the baseline intervals compared. Anonymeter's baseline is drawn anew on
#: every run (one run counted 46 successes in 500 where privcore's pooled rate is 5.9 %):
#: at 95 % two agreeing estimates disagree now and then; at 99.9 % a baseline truly off
#: still fails (against privcore's 5.9 %: 13 % or 1.2 % in 500 attacks).
BASELINE_CONFIDENCE = 0.999


@pytest.mark.parametrize("release", ["condensation", "itself"])
def test_the_three_risks_agree_with_anonymeter(oracle_on, adult, release):
    theirs = oracle_on(release)
    mine = ours(adult, release)
    for name, result in mine.items():
        other = theirs[name]
        context = f"{release} {name}: privcore {result.to_dict()} anonymeter {other}"
        assert overlap(result.ci, other["ci"]), context
        assert overlap(
            interval(result.n_success, N_ATTACKS), interval(other["n_success"], N_ATTACKS)
        ), context
        assert overlap(
            interval(result.n_control, N_ATTACKS), interval(other["n_control"], N_ATTACKS)
        ), context
        if not name.startswith("inference"):
            pooled = pooled_baseline(adult, release, name)
            theirs_baseline = interval(other["n_baseline"], N_ATTACKS, BASELINE_CONFIDENCE)
            assert overlap(pooled, theirs_baseline), f"{context} pooled {pooled}"
    if release == "itself":  # the release is the training set: high singling-out risk
        assert mine["singling_out_multivariate"].ci[0] > 0.9
        assert theirs["singling_out_multivariate"]["ci"][0] > 0.9


def test_inference_baseline_is_a_random_guess(oracle_on, adult):
    theirs = oracle_on("condensation")[f"inference_{SECRET}"]
    tables = adult["tables"]
    released = tables["condensation"][SECRET].value_counts(normalize=True)
    trained = tables["train"][SECRET].value_counts(normalize=True)
    expected = float((released * trained.reindex(released.index, fill_value=0)).sum())
    mine = ours(adult, "condensation")[f"inference_{SECRET}"]
    assert mine.baseline_ci[0] <= expected <= mine.baseline_ci[1], (mine.baseline_ci, expected)
    assert theirs["baseline_ci"][1] < expected, (theirs, expected)


def test_control_size_correction_differs_from_anonymeter_as_documented(oracle_python, adult):
    theirs = run_oracle(
        oracle_python,
        adult,
        "condensation",
        control="small_control",
        singling_out={"modes": ["multivariate"], "n_cols": 3},
    )["singling_out_multivariate"]
    n_train, n_control = theirs["training_records"], theirs["control_records"]
    assert n_control < n_train
    assert theirs["control_correction"] == pytest.approx((n_control + 1) / (n_train + 1), rel=1e-4)
    tables = adult["tables"]
    mine = singling_out(tables["train"], tables["small_control"], tables["condensation"], seed=0)
    factor = mine.parameters["control_correction"]
    assert mine.parameters["control_records"] == n_control
    assert 1.0 < factor < n_train / n_control
