"""AppTest: every page with a table of 1 row, of 2 rows, and of exactly the configured
maximums a table's size can reach — the voter roll's (``PRIVCORE_MAX_ROLL``: the roll
holds the table's people and no others, so there is no roll size to choose), the rows'
(``PRIVCORE_MAX_ROWS``), the columns' (``PRIVCORE_MAX_COLUMNS``), local recoding's
(``PRIVCORE_MAX_LOCAL_RECODING_ROWS``) and an LDP audit's samples
(``PRIVCORE_MAX_AUDIT_SAMPLES``). No page raises, none apologizes ("Something went
wrong"), and every slider and number input drawn holds min ≤ value ≤ max (a slider:
min < max, its step within the range)."""

from __future__ import annotations

import pandas as pd
import pytest

from privcore.anonymize import ALGORITHMS
from tests.app.conftest import ROOT, new_app, no_exceptions

#: The limits a table of ``rows`` rows reaches exactly in the cases ``at_limits`` (the
#: bundled samples are read whatever the rows' limit: they are shipped, not uploaded).
ROW_LIMITS = ("PRIVCORE_MAX_ROWS", "PRIVCORE_MAX_ROLL", "PRIVCORE_MAX_LOCAL_RECODING_ROWS")
AUDIT_SAMPLES = 1_000  # PRIVCORE_MAX_AUDIT_SAMPLES at the limits: below the inputs' defaults
QI = ["age", "zip", "sex"]
PAGES = ("home.py", "history.py", "learn.py")  # the pages left: no table-sized widgets


def table(rows: int) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "age": [20 + (i * 7) % 50 for i in range(rows)],
            "zip": [f"4760{i % 5}" for i in range(rows)],
            "sex": ["female" if i % 2 else "male" for i in range(rows)],
            "disease": [("flu", "cold", "cancer")[i % 3] for i in range(rows)],
        }
    )


def bounds_hold(at, where: str) -> None:
    """No exception, no apology, and every slider and number input within its bounds."""
    no_exceptions(at)
    apologies = [e.value for e in at.error if "went wrong" in e.value]
    assert not apologies, (where, apologies)
    for slider in at.slider:
        low, high, step = slider.min, slider.max, slider.step
        assert low < high, (where, slider.key, low, high)
        assert step <= high - low, (where, slider.key, step, low, high)
        value = slider.value
        for v in value if isinstance(value, (tuple, list)) else (value,):
            assert low <= v <= high, (where, slider.key, low, v, high)
    for box in at.number_input:
        low = float("-inf") if box.min is None else box.min
        high = float("inf") if box.max is None else box.max
        assert low <= high, (where, box.key, low, high)
        if box.value is not None:
            assert low <= box.value <= high, (where, box.key, low, box.value, high)


def go(at, page: str):
    at.switch_page(str(ROOT / "pages" / page))
    at.run()
    bounds_hold(at, page)
    return at


def click(at, key: str, where: str) -> None:
    at.button(key=key).click().run()
    bounds_hold(at, f"{where}: {key}")


@pytest.mark.parametrize(
    ("rows", "at_limits"),
    [
        pytest.param(1, False, id="1-row"),
        pytest.param(2, False, id="2-rows"),
        pytest.param(2, True, id="2-rows-at-the-limits"),
        pytest.param(50, True, id="50-rows-at-the-limits"),
    ],
)
def test_every_page_holds_its_widget_bounds(rows, at_limits, monkeypatch):
    frame = table(rows)
    name = f"table_{rows}.csv"
    at = new_app("data_roles.py")  # the bundled default first, read under the default limits
    if at_limits:
        for variable in ROW_LIMITS:
            monkeypatch.setenv(variable, str(rows))
        monkeypatch.setenv("PRIVCORE_MAX_COLUMNS", str(frame.shape[1]))
        monkeypatch.setenv("PRIVCORE_MAX_AUDIT_SAMPLES", str(AUDIT_SAMPLES))

    # Data & roles: the upload, its roles and hierarchies (each QI's builder drawn)
    at.file_uploader[0].upload(name, frame.to_csv(index=False).encode(), "text/csv")
    at.run()
    bounds_hold(at, "upload")
    wb = at.session_state["workbench"]
    assert wb.active == name and wb.dataset().n_rows == rows
    assert wb.draft(name).quasi_identifiers == QI and wb.draft(name).sensitive == ["disease"]
    for column in QI:
        at.selectbox(key=f"hcol::{name}").set_value(column).run()
        bounds_hold(at, f"hierarchy of {column}")
    at.selectbox(key=f"hcol::{name}").set_value("age").run()
    at.radio(key=f"hm::{name}::age").set_value("intervals").run()  # its width from the span
    bounds_hold(at, "intervals of age")
    assert at.number_input(key="w::age").value >= 1
    click(at, f"use_suggested::{name}", "data_roles")
    click(at, f"confirm::{name}", "data_roles")
    assert name in wb.confirmed

    # Anonymize: k ≤ rows; every algorithm (KACA and condensation at the local recoding limit)
    go(at, "anonymize.py")
    at.slider(key="an_k").set_value(min(rows, 5)).run()
    bounds_hold(at, "k")
    for algorithm in ALGORITHMS:
        at.selectbox(key="an_algorithm").set_value(algorithm).run()
        release = wb.last_release
        if release is None or release.algorithm != algorithm:
            click(at, "an_run", algorithm)
        bounds_hold(at, algorithm)
        refused = [e.value for e in at.error]
        if algorithm in ("mdav", "local_suppression") and refused:
            # strata smaller than k are blanked: above the suppression limit (0 % here)
            # the method refuses in words that say which limit would do
            assert "suppression limit" in refused[0], refused
            continue
        assert wb.last_release is not None and wb.last_release.algorithm == algorithm

    go(at, "privacy_level.py")
    click(at, "pl_measure", "privacy_level")
    click(at, "pl_risk_assess", "privacy_level")

    # Attack: the roll's size from the table's rows to the limit; at the limit, no slider
    go(at, "attack.py")
    if at_limits:
        assert not [s for s in at.slider if s.key == "at_roll_size"]
        assert any("PRIVCORE_MAX_ROLL" in c.value for c in at.caption)
    else:
        assert at.slider(key="at_roll_size").min == rows
    click(at, "at_build", "attack")
    roll = at.session_state["at_roll"]["roll"]
    assert len(roll.frame) == (rows if at_limits else 10 * rows)
    for key in ("at_run", "at_run_background", "at_run_ordering"):
        click(at, key, "attack")
    if not at.button(key="at_two").disabled:  # disabled: the second release has the same rows
        click(at, "at_two", "attack")

    go(at, "differential_privacy.py")
    assert at.number_input(key="dp_target_row").max == rows - 1
    for key in ("dp_attack_person", "dp_answer", "dp_release_run"):
        click(at, key, "differential_privacy")

    go(at, "report.py")
    click(at, "rp_go", "report")

    # LDP auditor: the samples per input within the audit limit; the table as samples
    go(at, "ldp_auditor.py")
    if at_limits:
        for key in ("ldp_n_ab", "ldp_n_ob", "ldp_n_lb"):
            assert at.number_input(key=key).max == AUDIT_SAMPLES
    at.file_uploader(key="ldp_samples").upload(name, frame.to_csv(index=False).encode())
    at.run()
    bounds_hold(at, "ldp samples")
    click(at, "ldp_run_samples", "ldp_auditor")

    for page in PAGES:
        go(at, page)
