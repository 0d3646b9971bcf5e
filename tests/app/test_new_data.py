"""AppTest: a table nobody prepared, from upload to every algorithm with no hierarchy
work ("Use suggested hierarchies" on Data & roles, or the same click on the Anonymize
page when an algorithm stops for want of one), and the rendering of missing values."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from privcore.anonymize import ALGORITHMS
from tests.app.conftest import ROOT, new_app, no_exceptions
from tests.unit.test_hierarchy_suggestions import _generated_tables


def _upload(frame: pd.DataFrame, name: str):
    at = new_app("data_roles.py")
    at.file_uploader[0].upload(name, frame.to_csv(index=False).encode(), "text/csv")
    at.run()
    no_exceptions(at)
    return at


def _set_roles(at, name: str, frame: pd.DataFrame, roles: dict[str, str]) -> None:
    """Edit the role grid as a user would (rows by position)."""
    columns = list(frame.columns)
    at.session_state[f"roles::{name}"] = {
        "edited_rows": {columns.index(c): {"role": r} for c, r in roles.items()},
        "added_rows": [],
        "deleted_rows": [],
    }
    at.run()
    no_exceptions(at)


def _to_anonymize(at):
    at.switch_page(str(ROOT / "pages" / "anonymize.py"))
    at.run()
    no_exceptions(at)
    return at


def _errors(at) -> list[str]:
    return [e.value.replace("\\", "") for e in at.error]


@pytest.mark.parametrize("table", range(3))
def test_generated_tables_run_every_algorithm_after_using_suggested_hierarchies(table):
    frame = _generated_tables()[table]
    name = f"generated_{table}.csv"
    at = _upload(frame, name)
    wb = at.session_state["workbench"]
    # the generator's roles: the last column sensitive, the others quasi-identifiers
    sa = frame.columns[-1]
    qi = [c for c in frame.columns if c != sa]
    draft = wb.drafts[name]
    wanted = {c: "quasi_identifier" for c in qi if draft.roles[c] != "quasi_identifier"}
    if draft.roles[sa] != "sensitive":
        wanted[sa] = "sensitive"
    if wanted:
        _set_roles(at, name, frame, wanted)

    # no hierarchy yet: each QI's suggestion is listed with its kind and why
    infos = [i.value.replace("\\", "") for i in at.info]
    assert any(f"without a hierarchy: {', '.join(qi)}." in i for i in infos), infos
    listed = next(d.value for d in at.dataframe if "Kind" in d.value.columns)
    assert listed["Column"].tolist() == qi
    assert listed["Why"].str.len().gt(20).all() and listed["Levels"].ge(1).all()
    at.button(key=f"use_suggested::{name}").click().run()
    no_exceptions(at)
    assert sorted(wb.drafts[name].hierarchies) == sorted(qi)
    assert any("Suggested hierarchies added" in s.value for s in at.success)
    at.button(key=f"confirm::{name}").click().run()
    no_exceptions(at)
    assert sorted(wb.confirmed[name].hierarchies) == sorted(qi)

    at = _to_anonymize(at)
    for algorithm in ALGORITHMS:
        at.selectbox(key="an_algorithm").set_value(algorithm).run()  # live: quick ones run
        release = at.session_state["workbench"].last_release
        if release is None or release.algorithm != algorithm:
            at.button(key="an_run").click().run()
        no_exceptions(at)
        refused = _errors(at)
        if algorithm in ("mdav", "local_suppression") and refused:
            # groups smaller than k are blanked: above the suppression limit the method
            # refuses, in words that say which limit would do
            assert "suppression limit" in refused[0], refused
            continue
        assert not refused, (algorithm, refused)
        release = at.session_state["workbench"].last_release
        assert release is not None and release.algorithm == algorithm
        assert len(release.frame) == len(frame), algorithm
        if ALGORITHMS[algorithm].enforces_models:  # the others report the k they have
            assert release.satisfied, algorithm
            assert int(next(m.value for m in at.metric if m.label == "k achieved")) >= 5


def test_the_anonymize_page_offers_the_suggested_hierarchies_in_one_click():
    frame = _generated_tables()[0].head(120)
    at = _upload(frame, "clinic.csv")
    at.button(key="confirm::clinic.csv").click().run()  # roles only, no hierarchy
    at = _to_anonymize(at)
    at.button(key="an_run").click().run()  # the optimal search needs hierarchies
    no_exceptions(at)
    assert any("needs a hierarchy for age, zip, sex" in e for e in _errors(at)), _errors(at)
    offered = next(d.value for d in at.dataframe if "Kind" in d.value.columns)
    assert offered["Column"].tolist() == ["age", "zip", "sex"]
    assert offered["Kind"].tolist() == [
        "Numeric intervals",
        "Masking from the right",
        "Value, then *",
    ]

    at.button(key="an_use_suggested::clinic.csv").click().run()
    no_exceptions(at)
    assert not _errors(at)
    wb = at.session_state["workbench"]
    assert sorted(wb.confirmed["clinic.csv"].hierarchies) == ["age", "sex", "zip"]
    assert sorted(wb.drafts["clinic.csv"].hierarchies) == ["age", "sex", "zip"]
    release = wb.last_release  # the run asked for again, now with the hierarchies
    assert release is not None and release.algorithm == "optimal" and release.satisfied


def test_the_anonymize_page_states_how_missing_values_are_released():
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(
        {
            "age": rng.integers(20, 70, 80).astype(float),
            "city": rng.choice(["Gary", "Muncie", "Marion"], 80),
            "disease": rng.choice(["flu", "cold"], 80),
        }
    )
    frame.loc[::9, "age"] = np.nan
    at = _upload(frame, "gaps.csv")
    at.button(key="use_suggested::gaps.csv").click().run()
    at.button(key="confirm::gaps.csv").click().run()
    at = _to_anonymize(at)
    at.selectbox(key="an_algorithm").set_value("mondrian").run()
    if at.session_state["workbench"].last_release is None:
        at.button(key="an_run").click().run()
    no_exceptions(at)
    captions = [c.value for c in at.caption]
    assert any("Missing quasi-identifier values" in c and "empty cell" in c for c in captions)

    # a table without missing values does not need the sentence
    at = _upload(frame.fillna(30.0), "complete.csv")
    at.button(key="use_suggested::complete.csv").click().run()
    at.button(key="confirm::complete.csv").click().run()
    at = _to_anonymize(at)
    at.button(key="an_run").click().run()
    no_exceptions(at)
    assert not any("Missing quasi-identifier values" in c.value for c in at.caption)
