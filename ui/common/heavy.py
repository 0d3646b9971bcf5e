"""The one way a page starts a computation: a registered button and a heavy run.

Every action of a page that computes (a search, a measurement, an attack, an audit, a
report, a DP answer or release, the accuracy view, an ε sweep, a reconstruction) is

- drawn with :func:`heavy_button`: the action's button and, beside it, Cancel (pressing
  it reruns the page, which stops the run at its next progress report: within a second,
  since a run in a worker process reports every quarter of a second and a cancel kills
  that process, freeing its memory at once); the button's key is registered in
  :data:`BUTTONS`, so a test can tell every computing button of every page;
- run with :func:`run_heavy`: :func:`privcore.runs.run` under a progress bar, which
  checks the run's estimated cost before any work (``PRIVCORE_MAX_RUN_MB``: refused
  with words that say what to lower), holds one of the process's heavy-work slots
  (``PRIVCORE_MAX_HEAVY_JOBS``) while a heavy run computes, sends it to a worker process
  where the setting asks (``PRIVCORE_WORKERS``), serves a run on a bundled sample from
  the results shared between sessions (:mod:`ui.common.shared`), and records it in the
  history.

The end of a visitor's session stops a run the same way as Cancel: Streamlit stops the
session's script at its next progress report. Nothing else in ``ui/`` or ``pages/``
calls :func:`privcore.runs.run` or :func:`privcore.runs.compute` (a test reads the code
to check it).
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import streamlit as st

from privcore.core.progress import Progress
from privcore.runs import Inputs, Outcome, compute, make_request, run
from privcore.runs.requests import Request
from ui.common.i18n import t
from ui.common.progress import progress_bar
from ui.common.shared import serve
from ui.common.state import session_owner

__all__ = [
    "BUTTONS",
    "cancel_pressed",
    "compute_heavy",
    "computing_keys",
    "declared_buttons",
    "heavy_button",
    "new_request",
    "run_heavy",
]

#: The key of every computing button drawn in this process → the label it was drawn
#: with (filled as pages draw them; a test compares it with the buttons on the pages).
BUTTONS: dict[str, str] = {}


def declared_buttons(root: Path | None = None) -> list[tuple[str, str, str | None]]:
    """Every button the code of ``ui/`` and ``pages/`` draws, read from its source:
    (file relative to ``root``, ``"heavy_button"`` or Streamlit's ``"button"`` /
    ``"form_submit_button"``, the ``key=`` as written or None). The enumeration that the
    tests and ``bench/bench_resource_attacks.py`` walk: not a hand-kept list."""
    root = root or Path(__file__).resolve().parents[2]
    found = []
    for path in sorted([*(root / "ui").rglob("*.py"), *(root / "pages").rglob("*.py")]):
        rel = path.relative_to(root).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if name in ("button", "form_submit_button", "heavy_button"):
                key = next((ast.unparse(k.value) for k in node.keywords if k.arg == "key"), None)
                found.append((rel, name, key))
    return found


def computing_keys(root: Path | None = None) -> set[str]:
    """The keys of the computing buttons (:func:`heavy_button` calls) written as plain
    strings, e.g. ``"dp_acc_run"`` (a key built from data, such as ``confirm::<table>``,
    is left out)."""
    keys = set()
    for _, kind, key in declared_buttons(root):
        if kind == "heavy_button" and key and key[0] in "'\"" and "{" not in key:
            keys.add(ast.literal_eval(key))
    return keys


def heavy_button(
    label: str,
    *,
    key: str,
    primary: bool = True,
    cancel: bool = True,
    help: str | None = None,
    disabled: bool = False,
    where: Any = None,
    cancel_where: Any = None,
    cancel_key: str | None = None,
    row: bool = False,
) -> bool:
    """The button of a computing action (registered under ``key``), and with ``cancel``
    its Cancel button (``cancel_key``, by default ``<key>_cancel``) beside it;
    ``where``/``cancel_where``: the containers they go in (default: the page, one below
    the other); with ``row``, side by side in a row of their own, the button in its first
    quarter. True when clicked."""
    if row:
        where, cancel_where = st.columns([1, 3])
    BUTTONS[key] = label
    clicked = (where or st).button(
        label, type="primary" if primary else "secondary", key=key, help=help, disabled=disabled
    )
    if cancel:
        (cancel_where or where or st).button(
            t("an.cancel"), key=cancel_key or f"{key}_cancel", help=t("an.cancel_help")
        )
    return clicked


def cancel_pressed(key: str) -> bool:
    """Was the Cancel button ``key`` (drawn by :func:`heavy_button`) pressed for this
    run of the page?"""
    return bool(st.session_state.get(key))


def new_request(cls: type[Request], values: Mapping[str, Any], inputs: Inputs, *, page: str):
    """``cls(**values)`` for this visitor's run on ``page`` (a refused value is recorded
    as a failed run, then raised: :func:`privcore.runs.make_request`)."""
    return make_request(cls, values, inputs, owner=session_owner(), page=page)


def run_heavy(
    request: Request,
    inputs: Inputs,
    *,
    label: str,
    page: str,
    slot: Any = None,
    steps: int = 1,
    progress: Progress | None = None,
    record: bool = True,
    budget: Any = None,
    budget_label: str | None = None,
) -> Outcome:
    """``request`` on ``inputs`` through :func:`privcore.runs.run` (see the module
    docstring), recorded as this visitor's run on ``page``, under a progress bar
    labelled ``label`` (in ``slot``, see :func:`ui.common.progress.progress_bar`) — or
    reporting to ``progress`` when the caller draws its own. ``budget``: the privacy
    accountant a DP run spends from (:class:`privcore.runs.Accountant`). A run on a
    bundled sample (its inputs carry a ``share_key``: :func:`ui.common.shared.shared_run_inputs`)
    is served from the results shared between sessions (:func:`ui.common.shared.serve`)."""
    settings = {
        "owner": session_owner(),
        "page": page,
        "record": record,
        "budget": budget,
        "budget_label": budget_label,
        "shared": serve,
    }
    if progress is not None:
        return run(request, inputs, progress=progress, **settings)
    with progress_bar(label, steps, slot=slot) as bar:
        return run(request, inputs, progress=bar, **settings)


def compute_heavy(request: Request, inputs: Inputs, progress: Progress | None) -> tuple:
    """:func:`privcore.runs.compute` (the same checks, slot and worker as
    :func:`run_heavy`, not recorded): for a run computed inside another recorded one."""
    return compute(request, inputs, progress, worker=None, shared=serve)
