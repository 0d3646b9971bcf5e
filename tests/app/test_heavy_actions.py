"""Every button of every page that computes is one registered heavy run.

The code of ``ui/`` and ``pages/`` is read: each button is either drawn by
:func:`ui.common.heavy.heavy_button` (a computing action, its key registered) or listed below
with the reason it computes nothing worth a second; only ``ui/common/heavy.py`` (and the
cache of shared results, which runs inside it) reaches :func:`privcore.runs.run` or
:func:`privcore.runs.compute`. Then the pages are driven: each computing button found in
the code is pressed, and the run it starts is seen going through ``compute`` — the one
path where the cost is checked before any work, a heavy slot is held, and a worker
process (killed by Cancel) computes when the setting asks.
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from privcore.runs import execute
from tests.app.conftest import ROOT, new_app, no_exceptions
from ui.common.heavy import computing_keys, declared_buttons

#: Buttons that compute nothing heavy: (file, key as written) → why.
LIGHT = {
    ("pages/data_roles.py", "f'remove::{key}'"): "removes an upload from the session",
    ("ui/anonymize/workspace.py", "f'an_review_{current.id}'"): "marks a release for review",
    ("ui/attack/roll.py", "f'{key}_use'"): "keeps an uploaded roll with its columns mapped",
    ("ui/common/hierarchy_suggestions.py", "f'an_use_suggested::{key}'"): (
        "adopts suggestions already made"
    ),
    ("ui/common/workspace/actions.py", "key"): "sets the Anonymize page's controls and opens it",
    ("ui/common/workspace/shelf.py", "f'{key}_rename'"): "renames a release",
    ("ui/common/workspace/shelf.py", "f'{key}_review'"): "marks a release for review",
    ("ui/common/workspace/shelf.py", "f'{key}_show'"): "shows a release on the Anonymize page",
    ("ui/common/workspace/shelf.py", "f'{key}_remove'"): "removes a release from the shelf",
    ("ui/report/dossier.py", "f'{built_key}_go'"): (
        "writes the dossier of a report already made (its population figures and "
        "background attack, under two seconds on 30,000 rows: bench/bench_dossier.py)"
    ),
    ("ui/data/hierarchy_editor.py", "f'use_suggested::{key}'"): "adopts suggestions already made",
    (
        "ui/data/hierarchy_editor.py",
        "f'b::{column}'",
    ): "one column's levels from its distinct values",
    ("ui/data/hierarchy_editor.py", "f'use::{column}'"): "keeps a hierarchy already built",
    ("ui/data/hierarchy_editor.py", "f'discard::{column}'"): "drops a hierarchy being edited",
    (
        "ui/data/hierarchy_editor.py",
        "f'use_suggestion::{column}'",
    ): "keeps a suggestion already made",
    ("ui/data/hierarchy_editor.py", "f'{prefix}rm::{column}'"): "removes a hierarchy",
    ("ui/data/roles_editor.py", "f'unnamed_drop::{key}'"): "drops an index column",
    ("ui/data/roles_editor.py", "f'unnamed_keep::{key}'"): "keeps an index column",
    ("ui/data/roles_editor.py", "f'role_form_apply::{key}'"): "sets one column's role",
    ("ui/data/schema_file.py", "apply_key"): "applies a schema file's roles (a few names)",
    ("ui/data/table_page.py", "f'remove::{key}'"): "closes a table opened in an engine",
    ("ui/data/table_page.py", "f'lt_use_all::{key}'"): "adopts suggestions already made",
    ("ui/data/table_page.py", "f'lt_import::{column}'"): "reads an uploaded hierarchy file",
    ("ui/data/table_page.py", "f'lt_use::{column}'"): "keeps a suggestion already made",
    ("ui/dp/queries.py", "'dp_new_budget'"): "starts a new budget: two numbers",
    ("ui/dp/release.py", "'dp_release_shelve'"): (
        "puts records already synthesized on the shelf (their fingerprint)"
    ),
    ("ui/history/page.py", "f'delete::{run_id}'"): "deletes one history row",
    ("ui/learn/common.py", "f'{key}::check'"): "checks an exercise's answer",
    ("ui/learn/differencing.py", "'learn_l7_draw'"): "one noisy count of a ten-row lesson table",
    ("ui/learn/local_dp.py", "'learn_l5_flip'"): "a new seed for a 1,000-coin toy",
    ("ui/report/view.py", "key"): "sets the Anonymize page's controls and opens it",
}
#: Only these modules reach privcore.runs.run / compute (the heavy path itself).
RUNNERS = {"ui/common/heavy.py", "ui/common/shared.py"}
#: Computing buttons that need an upload or a release made on the page: pressed in their own tests
#: below rather than in the walk of the pages.
NEEDS_MORE = {
    "dp_audit_outputs",
    "ldp_run_samples",
    "an_replay_run",
    "at_run_ordering",
    "at_two",
    "lt_open",
}


def _sources() -> list[Path]:
    return sorted([*ROOT.joinpath("ui").rglob("*.py"), *ROOT.joinpath("pages").rglob("*.py")])


def _buttons() -> list[tuple[str, str, str | None]]:
    return declared_buttons(ROOT)


def heavy_keys() -> set[str]:
    return computing_keys(ROOT)


def test_every_button_is_heavy_or_known_to_be_light():
    unexplained = []
    for rel, kind, key in _buttons():
        if rel == "ui/common/heavy.py" or kind == "heavy_button":
            continue
        if (rel, key) not in LIGHT:
            unexplained.append((rel, key))
    assert not unexplained, f"buttons neither heavy nor explained as light: {unexplained}"
    # every explanation still names a button of the code
    drawn = {(rel, key) for rel, kind, key in _buttons() if kind != "heavy_button"}
    assert set(LIGHT) <= drawn, set(LIGHT) - drawn


def test_only_the_heavy_path_reaches_the_runner():
    for path in _sources():
        rel = path.relative_to(ROOT).as_posix()
        if rel in RUNNERS:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("privcore.runs"):
                names = {alias.name for alias in node.names}
                assert not names & {"run", "compute", "make_request"}, (rel, names)


def _pressed(at, key: str) -> list[str]:
    """The kinds of the runs that pressing ``key`` started through compute()."""
    before = execute.runs_started()
    at.button(key=key).click().run()
    no_exceptions(at)
    return execute.started_runs(since=before)


def _page(page: str, active: str = "hospital"):
    at = new_app()
    at.session_state["workbench"].active = active
    at.switch_page(str(ROOT / "pages" / page))
    return at.run()


def test_every_computing_button_goes_through_compute():
    from ui.common.heavy import BUTTONS

    pressed: dict[str, list[str]] = {}
    at = _page("data_roles.py")
    confirm = next(b.key for b in at.button if b.key.startswith("confirm::"))
    pressed["confirm::"] = _pressed(at, confirm)

    at = _page("anonymize.py")
    for key in ("an_run", "an_compare_run"):
        pressed[key] = _pressed(at, key)
    at = _page("privacy_level.py")
    for key in ("pl_measure", "pl_risk_assess"):
        pressed[key] = _pressed(at, key)
    at = _page("report.py")
    pressed["rp_go"] = _pressed(at, "rp_go")
    at = _page("attack.py")
    for key in ("at_build", "at_run", "at_run_background", "at_rec_run"):
        pressed[key] = _pressed(at, key)
    at = _page("differential_privacy.py")
    for key in (
        "dp_play",
        "dp_attack_person",
        "dp_answer",
        "dp_acc_run",
        "dp_release_run",
        "dp_audit_run",
    ):
        pressed[key] = _pressed(at, key)
    at = _page("ldp_auditor.py")
    at.number_input(key="ldp_n_ab").set_value(10_000)
    at.number_input(key="ldp_n_ob").set_value(10_000)
    at.number_input(key="ldp_n_lb").set_value(10_000).run()
    for key in ("ldp_run", "ldp_run_sweep", "ldp_rc_run"):
        pressed[key] = _pressed(at, key)
    at = _page("learn.py")
    lessons = at.radio(key="learn_lesson")
    pressed["learn_l5_audit"] = _pressed(
        lessons.set_value(lessons.options[4]).run(), "learn_l5_audit"
    )

    assert all(pressed.values()), {k: v for k, v in pressed.items() if not v}
    # every computing button of the code was pressed here, or is in NEEDS_MORE
    assert heavy_keys() - set(pressed) - NEEDS_MORE == set()
    assert set(pressed) - {"confirm::"} <= set(BUTTONS)


def _csv(frame: pd.DataFrame) -> bytes:
    return frame.to_csv(index=False).encode("utf-8")


def test_buttons_after_an_upload_or_a_second_release_go_through_compute(tmp_path):
    pressed: dict[str, list[str]] = {}
    rng = np.random.default_rng(0)
    at = _page("differential_privacy.py")
    outputs = pd.DataFrame({"d": rng.laplace(0, 1, 500), "d_prime": rng.laplace(1, 1, 500)})
    at.file_uploader(key="dp_outputs").upload("outputs.csv", _csv(outputs), "text/csv").run()
    pressed["dp_audit_outputs"] = _pressed(at, "dp_audit_outputs")

    at = _page("ldp_auditor.py")
    x = rng.integers(0, 4, 2_000)
    samples = pd.DataFrame({"x": x, "y": (x + (rng.random(2_000) < 0.3)) % 4})
    at.file_uploader(key="ldp_samples").upload("samples.csv", _csv(samples), "text/csv").run()
    at.selectbox(key="ldp_in").set_value("x")
    at.selectbox(key="ldp_out").set_value("y").run()
    pressed["ldp_run_samples"] = _pressed(at, "ldp_run_samples")

    at = _page("anonymize.py")
    at.slider(key="an_k").set_value(3)
    at.button(key="an_run").click().run()  # a second release of the sample, k = 3
    spec = at.session_state["workbench"].last_release.spec_json().encode("utf-8")
    at.file_uploader(key="an_replay_file").upload("spec.json", spec, "application/json").run()
    pressed["an_replay_run"] = _pressed(at, "an_replay_run")

    at.switch_page(str(ROOT / "pages" / "attack.py"))
    at.run()
    at.button(key="at_build").click().run()
    pressed["at_run_ordering"] = _pressed(at, "at_run_ordering")  # a release made here
    for second in at.selectbox(key="at_second").options:  # one whose rows differ
        if not at.selectbox(key="at_second").set_value(second).run().button(key="at_two").disabled:
            break
    else:
        pytest.fail("the releases of the sample should differ")
    pressed["at_two"] = _pressed(at, "at_two")

    at = _page("data_roles.py")
    path = tmp_path / "small.parquet"
    pd.DataFrame({"age": rng.integers(20, 60, 300), "zip": rng.integers(1, 9, 300)}).to_parquet(
        path, index=False
    )
    at.text_input(key="lt_path").input(str(path))
    pressed["lt_open"] = _pressed(at, "lt_open")

    assert set(pressed) == NEEDS_MORE
    assert all(pressed.values()), {k: v for k, v in pressed.items() if not v}
