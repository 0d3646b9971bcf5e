"""Anonymize page: make a release again from its generalization spec (JSON)."""

from __future__ import annotations

import streamlit as st

from privcore.anonymize.spec import read_spec, reproduce
from privcore.data import Dataset
from privcore.errors import PrivcoreError
from ui.components import fmt
from ui.errors import show_error
from ui.history import record
from ui.i18n import t
from ui.state import Workbench


def replay(wb: Workbench, dataset: Dataset) -> None:
    """Upload a spec, check it against the active table, reproduce the release and make
    it the last release of the session (for the Privacy level, Attack and Report
    pages). The spec is read, never rendered as HTML."""
    st.caption(t("an.replay_help"))
    upload = st.file_uploader(t("an.replay_upload"), type=["json"], key="an_replay_file")
    if upload is None:
        return
    if not st.button(t("an.replay_run"), key="an_replay_run"):
        return
    bar = st.progress(0.0, text=t("an.replay_run"))
    try:
        spec = read_spec(upload.getvalue())
        release = reproduce(
            dataset.frame,
            spec,
            progress=lambda fraction, message: bar.progress(fraction, text=message),
        )
    except PrivcoreError as exc:
        bar.empty()
        show_error(exc)
        return
    bar.empty()
    run_id = record(
        "anonymize",
        params={
            "algorithm": release.algorithm,
            "from_spec": True,
            "qi": list(release.qi),
            "sa": list(release.sa),
            "seed": spec.get("seed"),
            "max_suppression": spec.get("max_suppression"),
        },
        results=release.history_summary(),
        dataset=dataset,
        page="anonymize",
        duration_s=release.timings["total"],
    )
    wb.last_release = release
    measured = release.to_dict()
    st.success(
        t(
            "an.replayed",
            algorithm=t(f"alg.{release.algorithm}"),
            k=measured["k"],
            suppressed=measured["suppressed_rows"],
            pl=fmt(measured["pl"], 3),
            ul=fmt(measured["ul"], 3),
        ),
        icon=":material/check_circle:",
    )
    if run_id is not None:
        st.caption(t("an.recorded", id=run_id, seconds=f"{release.timings['total']:.2f}"))
    st.dataframe(release.frame.head(50), width="stretch", hide_index=True)
