"""Singling out, linkability, inference: privcore against Anonymeter 1.1, same run.

Adult (30,162 rows) shuffled (seed 0) and cut in halves: 15,081 training and 15,081
control records; the release is privcore's condensation of the training half (k = 5).
Anonymeter's evaluators with their defaults (500 attacks; multivariate singling out on
3 columns; linkability on the 8 columns other than occupation, 4 against 4; inference of
occupation from those 8; 2 jobs) run in Anonymeter's own environment
(``$ANONYMETER_PYTHON`` or ``.venv-anonymeter``, made by ``make anonymeter``: it pins
numpy < 1.27) through tests/crosscheck/anonymeter_runner.py; privcore's three functions
run in a fresh interpreter of this environment. Each side runs every attack twice in
one process: "first" includes one-time work (numba compiling Anonymeter's distance
code, imports), "again" is the same call repeated. Seconds exclude reading the CSV files
and starting the interpreter. Target: privcore ≥ 10× faster in all, and every risk's
interval overlapping Anonymeter's.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from _util import ADULT_QI, ROOT, table

RUNNER = ROOT / "tests" / "crosscheck" / "anonymeter_runner.py"
SECRET = "occupation"
ATTACKS = ("singling_out_multivariate", "linkability", f"inference_{SECRET}")

PREPARE = r"""
import sys
sys.path.insert(0, {root!r})
import numpy as np
from privcore.anonymize import anonymize
from privcore.data.samples import load_sample
from privcore.models import KAnonymity
dataset, schema = load_sample("adult")
frame = dataset.frame
order = np.random.default_rng(0).permutation(len(frame))
half = len(frame) // 2
train = frame.iloc[order[:half]].reset_index(drop=True)
control = frame.iloc[order[half : 2 * half]].reset_index(drop=True)
release = anonymize(train, schema, [KAnonymity(5)], algorithm="condensation", seed=0).frame
train.to_csv({folder!r} + "/train.csv", index=False)
control.to_csv({folder!r} + "/control.csv", index=False)
release.to_csv({folder!r} + "/release.csv", index=False)
"""

OURS = r"""
import json, sys, time
sys.path.insert(0, {root!r})
import pandas as pd
from privcore.attacks.gdpr_risks import inference, linkability, singling_out
train = pd.read_csv({folder!r} + "/train.csv")
control = pd.read_csv({folder!r} + "/control.csv")
release = pd.read_csv({folder!r} + "/release.csv")
known = [c for c in train.columns if c != {secret!r}]
calls = {{
    "singling_out_multivariate": lambda: singling_out(train, control, release, seed=0),
    "linkability": lambda: linkability(
        train, control, release, aux_columns=(known[:4], known[4:]), seed=0
    ),
    "inference_{secret}": lambda: inference(
        train, control, release, aux_columns=known, secret={secret!r}, seed=0
    ),
}}
out = {{}}
for name, call in calls.items():
    runs = []
    for _ in range(2):
        started = time.perf_counter()
        result = call()
        runs.append(time.perf_counter() - started)
    out[name] = {{"risk": result.risk, "ci": list(result.ci), "baseline": result.baseline,
                  "runs": runs}}
print("RESULT " + json.dumps(out))
"""


def anonymeter_python() -> str | None:
    for candidate in (os.environ.get("ANONYMETER_PYTHON"), ROOT / ".venv-anonymeter/bin/python"):
        if candidate and Path(candidate).is_file():
            return str(candidate)
    return None


def run(command: list[str]) -> str:
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-3000:])
    return done.stdout


def main() -> str:
    python = anonymeter_python()
    if python is None:
        return "Anonymeter is not installed (run `make anonymeter` or set ANONYMETER_PYTHON)."
    with tempfile.TemporaryDirectory() as folder:
        run([sys.executable, "-c", PREPARE.format(root=str(ROOT), folder=folder)])
        known = ADULT_QI  # every column but occupation
        spec = {
            "train": f"{folder}/train.csv",
            "control": f"{folder}/control.csv",
            "release": f"{folder}/release.csv",
            "seed": 0,
            "n_attacks": 500,
            "n_jobs": 2,
            "repeat": 2,
            "singling_out": {"modes": ["multivariate"], "n_cols": 3},
            "linkability": {"aux_columns": [known[:4], known[4:]]},
            "inference": {"aux_columns": known, "secrets": [SECRET]},
        }
        spec_path = Path(folder) / "spec.json"
        spec_path.write_text(json.dumps(spec))
        theirs = json.loads(run([python, str(RUNNER), str(spec_path)]).strip().splitlines()[-1])
        code = OURS.format(root=str(ROOT), folder=folder, secret=SECRET)
        line = next(x for x in run([sys.executable, "-c", code]).splitlines() if "RESULT " in x)
        mine = json.loads(line.removeprefix("RESULT "))
    rows = []
    totals = [0.0, 0.0, 0.0, 0.0]
    for name in ATTACKS:
        a, p = theirs[name], mine[name]
        agree = max(a["ci"][0], p["ci"][0]) <= min(a["ci"][1], p["ci"][1]) + 1e-12
        for i, value in enumerate((a["runs"][0], p["runs"][0], a["runs"][1], p["runs"][1])):
            totals[i] += value
        rows.append(
            [
                name.replace("_", " "),
                f"{a['runs'][0]:.2f} / {a['runs'][1]:.2f}",
                f"{p['runs'][0]:.2f} / {p['runs'][1]:.2f}",
                f"{a['runs'][0] / p['runs'][0]:.0f}× / {a['runs'][1] / p['runs'][1]:.0f}×",
                f"{a['risk']:.3f} [{a['ci'][0]:.3f}, {a['ci'][1]:.3f}]",
                f"{p['risk']:.3f} [{p['ci'][0]:.3f}, {p['ci'][1]:.3f}]",
                "yes" if agree else "NO",
            ]
        )
    rows.append(
        [
            "all three",
            f"{totals[0]:.2f} / {totals[2]:.2f}",
            f"{totals[1]:.2f} / {totals[3]:.2f}",
            f"{totals[0] / totals[1]:.0f}× / {totals[2] / totals[3]:.0f}×",
            "",
            "",
            "",
        ]
    )
    return table(
        [
            "attack (Adult, 15,081 + 15,081, condensation k=5)",
            "Anonymeter s (first / again)",
            "privcore s (first / again)",
            "ratio",
            "Anonymeter risk [95 % CI]",
            "privcore risk [95 % CI]",
            "intervals overlap",
        ],
        rows,
    )


if __name__ == "__main__":
    print(main())
