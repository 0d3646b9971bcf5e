"""Anonymize page: make a release again from its generalization spec (JSON)."""

from __future__ import annotations

import streamlit as st

from privcore.anonymize.spec import read_spec
from privcore.data import Dataset
from privcore.runs import Inputs, ReplayRequest
from ui.common.components import fmt
from ui.common.heavy import heavy_button, new_request, run_heavy
from ui.common.i18n import t
from ui.common.state import Workbench
from ui.common.workspace import algorithm_title, guard_run, note_dropped, shelve_made


def replay(wb: Workbench, dataset: Dataset) -> None:
    """Upload a spec, check it against the active table, reproduce the release (a
    :class:`~privcore.runs.ReplayRequest`, recorded as an anonymize run) and put it on
    the shelf as the release the Anonymize page shows. The spec is read, never rendered
    as HTML."""
    st.caption(t("an.replay_help"))
    upload = st.file_uploader(t("an.replay_upload"), type=["json"], key="an_replay_file")
    if upload is None:
        return
    if not heavy_button(t("an.replay_run"), key="an_replay_run", primary=False):
        return
    inputs = Inputs(original=dataset, names={"spec": upload.name})

    def reproduce():
        spec = read_spec(upload.getvalue())
        request = new_request(ReplayRequest, {"spec": spec}, inputs, page="anonymize")
        return run_heavy(request, inputs, label=t("an.replay_run"), page="anonymize")

    outcome = guard_run(reproduce)
    if outcome is None:
        return
    release = outcome.result
    entry, dropped = shelve_made(wb, wb.active, outcome, source="replay")
    note_dropped(dropped)
    wb.made[wb.active] = entry.id
    measured = release.to_dict()
    st.success(
        t(
            "an.replayed",
            algorithm=algorithm_title(release.algorithm),
            k=measured["k"],
            suppressed=measured["suppressed_rows"],
            pl=fmt(measured["pl"], 3),
            ul=fmt(measured["ul"], 3),
        ),
        icon=":material/check_circle:",
    )
    st.caption(t("an.replayed_as", name=entry.name))
    st.dataframe(release.frame.head(50), width="stretch", hide_index=True)
