"""Reproduce in Python: every result a page shows offers the privcore code and a ZIP
(a notebook, a script, the tables, the run's parameters) that compute its figures
again; the notebook, run from top to bottom where it was unzipped, gets every figure the
page recorded — and fails when one differs."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import zipfile
from pathlib import Path

from tests.app.conftest import ROOT, new_app, no_exceptions
from ui.common.reproduce import SHOWN, reproduction_of

#: The notebook's code cells run as a reader runs them (privcore.core.notebooks).
RUNNER = ["-m", "privcore.core.notebooks", "reproduce.ipynb"]


def run_in(folder: Path) -> subprocess.CompletedProcess:
    """Run the notebook of an unzipped reproduction's ``folder``: its code cells in
    order, in a fresh Python process started there."""
    return subprocess.run(
        [sys.executable, *RUNNER],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=600,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )


def run_notebook(bundle: bytes, where: Path) -> subprocess.CompletedProcess:
    """Unzip ``bundle`` in ``where`` and run its notebook (:func:`run_in`)."""
    zipfile.ZipFile(io.BytesIO(bundle)).extractall(where)
    return run_in(where / "reproduce")


def reproduced(at, key: str, tmp_path: Path) -> subprocess.CompletedProcess:
    outcome = at.session_state[SHOWN][key]
    made = reproduction_of(outcome)
    assert not isinstance(made, Exception), made
    return run_notebook(made.bundle(), tmp_path / key)


def _hospital_page(page: str):
    at = new_app()
    at.session_state["workbench"].active = "hospital"
    at.run()
    at.switch_page(str(ROOT / "pages" / page))
    at.run()
    return at


def _click(at, key: str) -> None:
    next(b for b in at.button if b.key == key).click().run()
    no_exceptions(at)


def test_the_privacy_level_is_reproduced_and_a_changed_figure_is_caught(tmp_path):
    at = _hospital_page("privacy_level.py")
    _click(at, "pl_measure")
    assert any(e.label == "Reproduce in Python" for e in at.expander)
    assert any("MeasureRequest.from_dict" in c.value for c in at.code)
    done = reproduced(at, "pl_measure", tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Every figure is the same as the page's." in done.stdout
    # the check can fail: a recorded figure changed in run.json is named
    run_file = tmp_path / "pl_measure" / "reproduce" / "run.json"
    run = json.loads(run_file.read_text(encoding="utf-8"))
    shown = next(m.value for m in at.metric if m.label == "PL")
    assert f"{run['expected']['pl']['all']:.3f}" == shown  # the figure the page shows
    run["expected"]["pl"]["all"] += 0.25
    run_file.write_text(json.dumps(run), encoding="utf-8")
    again = run_in(run_file.parent)
    assert again.returncode != 0 and "['pl.all']" in again.stderr


#: The pages and their computing buttons, in the order a visitor meets them; each result
#: they show offers its reproduction under the key named.
WALK = [
    ("anonymize.py", ["an_run", "an_compare_run"], ["an_release", "an_compare"]),
    ("privacy_level.py", ["pl_measure", "pl_risk_assess"], ["pl_measure", "pl_risk"]),
    (
        "attack.py",
        ["at_build", "at_run", "at_run_background", "at_run_ordering", "at_rec_run"],
        ["at_linkage", "at_background", "at_ordering", "at_reconstruction"],
    ),
    (
        "ldp_auditor.py",
        ["ldp_run", "ldp_run_sweep", "ldp_rc_run"],
        ["ldp_audit", "ldp_sweep", "ldp_rc"],
    ),
    ("report.py", ["rp_go"], ["rp_report"]),
    (
        "differential_privacy.py",
        [
            "dp_play",
            "dp_attack_person",
            "dp_answer",
            "dp_acc_run",
            "dp_release_run",
            "dp_audit_run",
        ],
        ["dp_dinner", "dp_person", "dp_query", "dp_accuracy", "dp_release", "dp_audit"],
    ),
]


def test_every_result_of_the_main_pages_is_reproduced(tmp_path):
    at = _hospital_page("anonymize.py")
    seen = {}
    for page, buttons, keys in WALK:
        at.switch_page(str(ROOT / "pages" / page))
        at.run()
        for box in at.number_input:
            if box.key and box.key.endswith("dp_release_k"):
                box.set_value(3).run()  # the DP release beside a 3-anonymous one (9 rows)
        for key in buttons:
            button = next((b for b in at.button if b.key == key), None)
            assert button is not None, (page, key, sorted(b.key for b in at.button))
            button.click().run()
            no_exceptions(at)
        try:
            shown = at.session_state[SHOWN]
        except KeyError:  # no result offers its reproduction yet
            shown = {}
        missing = [key for key in keys if key not in shown]
        assert not missing, (page, missing, sorted(shown))
        seen.update({key: shown[key] for key in keys})
    failed = {}
    for key, outcome in seen.items():
        made = reproduction_of(outcome)
        if isinstance(made, Exception):
            failed[key] = repr(made)
            continue
        done = run_notebook(made.bundle(), tmp_path / key)
        if done.returncode != 0 or "Every figure is the same" not in done.stdout:
            failed[key] = done.stderr[-1500:]
    for key, why in failed.items():
        print("FAILED", key, why)
    assert not failed, sorted(failed)


def test_the_sample_size_planner_gives_the_call_that_computes_its_figure():
    at = _hospital_page("ldp_auditor.py")
    shown = next(m.value for m in at.metric if m.label == "Samples needed")
    code = next(c.value for c in at.code if "sample_size" in c.value)
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"{int(done.stdout.strip()):,}" == shown
