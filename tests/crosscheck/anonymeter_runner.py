"""Run Anonymeter's three evaluators and print their figures as JSON (one line).

Runs in an interpreter where ``anonymeter`` 1.1 is installed — not privcore's own
environment, whose numpy Anonymeter cannot use (it pins numpy < 1.27): the oracle test
(tests/crosscheck/test_anonymeter_oracle.py) and the bench (bench/bench_anonymeter.py)
start it with that interpreter as ``python anonymeter_runner.py SPEC.json``. SPEC names
CSV files (``train``, ``control``, ``release``) and the attacks:

    {"train": "...csv", "control": "...csv", "release": "...csv", "seed": 0,
     "n_attacks": 500, "n_jobs": 2,
     "singling_out": {"modes": ["multivariate"], "n_cols": 3},
     "linkability": {"aux_columns": [[...], [...]]},
     "inference": {"aux_columns": [...], "secrets": [...]}}

Anonymeter draws the linkability and inference targets with pandas' ``sample`` and no
seed of its own; numpy's global generator is seeded with ``seed`` first so that a run
is repeatable. Each figure: ``risk``, ``ci``, ``baseline``, ``baseline_ci``,
``attack_rate``, ``control_rate``, ``n_success``, ``n_control``, ``n_baseline`` and
``seconds`` (the evaluator's ``evaluate`` and ``risk`` calls; with ``"repeat": r`` in
SPEC each evaluator runs r times and ``runs`` lists every run's seconds, the first one
compiling Anonymeter's numba code, the figures being the last run's); singling out also
``control_correction`` (the factor of Anonymeter's control-size correction, recorded
from the model it fits; None when the sizes are equal), ``n_control_uncorrected`` and
the numbers of distinct ``training_records`` and ``control_records``.
"""

from __future__ import annotations

import json
import logging
import sys
import time
import warnings

import numpy as np
import pandas as pd
from anonymeter.evaluators import (
    InferenceEvaluator,
    LinkabilityEvaluator,
    SinglingOutEvaluator,
    singling_out_evaluator,
)

_fitted: list = []  # the control-size models Anonymeter fits, in order
_fit_correction_term = singling_out_evaluator.fit_correction_term


def _recording_fit(df, queries):
    model = _fit_correction_term(df=df, queries=queries)
    _fitted.append(model)
    return model


singling_out_evaluator.fit_correction_term = _recording_fit


def figures(evaluator, runs: list[float]) -> dict:
    results = evaluator.results()
    risk = evaluator.risk()
    baseline = evaluator.risk(baseline=True)
    return {
        "risk": risk.value,
        "ci": list(risk.ci),
        "baseline": baseline.value,
        "baseline_ci": list(baseline.ci),
        "attack_rate": results.attack_rate.value,
        "control_rate": results.control_rate.value,
        "n_success": float(results.n_success),
        "n_control": float(results.n_control),
        "n_baseline": float(results.n_baseline),
        "seconds": runs[-1],
        "runs": runs,
    }


def main(spec_path: str) -> None:
    warnings.filterwarnings("ignore")
    logging.disable(logging.WARNING)
    with open(spec_path, encoding="utf-8") as handle:
        spec = json.load(handle)
    train = pd.read_csv(spec["train"])
    control = pd.read_csv(spec["control"])
    release = pd.read_csv(spec["release"])
    seed = int(spec.get("seed", 0))
    n_attacks = int(spec.get("n_attacks", 500))
    n_jobs = int(spec.get("n_jobs", 2))
    repeat = max(1, int(spec.get("repeat", 1)))
    np.random.seed(seed)
    out: dict = {}

    def timed(make):
        """Run ``make`` ``repeat`` times: (its last evaluator, the seconds of each run)."""
        runs = []
        for _ in range(repeat):
            started = time.perf_counter()
            evaluator = make()
            evaluator.risk()
            runs.append(time.perf_counter() - started)
        return evaluator, runs

    singling = spec.get("singling_out")
    if singling:
        for mode in singling.get("modes", ["multivariate"]):
            _fitted.clear()
            evaluator, runs = timed(
                lambda mode=mode: SinglingOutEvaluator(
                    ori=train,
                    syn=release,
                    control=control,
                    n_attacks=n_attacks,
                    n_cols=int(singling.get("n_cols", 3)),
                    seed=seed,
                ).evaluate(mode=mode)
            )
            result = figures(evaluator, runs)
            n_train, n_control = len(evaluator._ori), len(evaluator._control)
            factor = float(_fitted[-1](n_train) / _fitted[-1](n_control)) if _fitted else None
            result["control_correction"] = factor
            result["n_control_uncorrected"] = result["n_control"] / (factor or 1.0)
            result["training_records"] = n_train
            result["control_records"] = n_control
            out[f"singling_out_{mode}"] = result
    linking = spec.get("linkability")
    if linking:
        evaluator, runs = timed(
            lambda: LinkabilityEvaluator(
                ori=train,
                syn=release,
                control=control,
                aux_cols=tuple(linking["aux_columns"]),
                n_attacks=n_attacks,
            ).evaluate(n_jobs=n_jobs)
        )
        out["linkability"] = figures(evaluator, runs)
    inferring = spec.get("inference")
    if inferring:
        for secret in inferring["secrets"]:
            evaluator, runs = timed(
                lambda secret=secret: InferenceEvaluator(
                    ori=train,
                    syn=release,
                    control=control,
                    aux_cols=list(inferring["aux_columns"]),
                    secret=secret,
                    n_attacks=n_attacks,
                ).evaluate(n_jobs=n_jobs)
            )
            out[f"inference_{secret}"] = figures(evaluator, runs)
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1])
