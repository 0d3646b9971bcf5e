"""Anonymize: choose an algorithm and constraints; the release updates as they change."""

import json

import streamlit as st

from privcore.errors import PrivcoreError
from ui import anonymize_view as view
from ui import replay_view
from ui.errors import show_error
from ui.history import record
from ui.i18n import t
from ui.shell import require_app
from ui.state import workbench

require_app()

RESULT = "an_result"
CANCELLED = "an_cancelled"
PARAMS = "an_params"

st.title(t("an.title"))
st.write(t("an.lead"))
wb = workbench()
dataset = wb.dataset()
schema = wb.schema()
if schema is None or not schema.quasi_identifiers or not schema.sensitive:
    st.warning(t("an.schema_first"), icon=":material/warning:")
    st.page_link("pages/data_roles.py", label=t("nav.data"), icon=":material/table_view:")
    st.stop()


@st.fragment
def workspace() -> None:
    """Controls and results rerun on their own when a parameter changes."""
    left, right = st.columns([1, 3], gap="large")
    with left:
        params = view.controls(schema)
        st.session_state[PARAMS] = params
        live = st.toggle(t("an.live"), value=True, help=t("an.live_help"), key="an_live")
        clicked = st.button(t("an.run"), type="primary", key="an_run")
        cancel = st.button(t("an.cancel"), key="an_cancel", help=t("an.cancel_help"))
    key = json.dumps({"data": wb.active, **params}, sort_keys=True)
    stored = st.session_state.get(RESULT)
    with right:
        if cancel:
            st.session_state[CANCELLED] = key
        wanted = clicked or (live and (stored is None or stored["key"] != key))
        if st.session_state.get(CANCELLED) == key and not clicked:
            st.warning(t("an.cancelled"), icon=":material/cancel:")
            wanted = False
        if wanted:
            st.session_state.pop(CANCELLED, None)
            try:
                release = view.run(dataset, schema, params, label=t(f"alg.{params['algorithm']}"))
            except PrivcoreError as exc:
                show_error(exc)
                st.session_state.pop(RESULT, None)
                return
            run_id = None
            if stored is None or stored["key"] != key:
                run_id = record(
                    "anonymize",
                    params=params,
                    results=release.history_summary(),
                    dataset=dataset,
                    page="anonymize",
                    duration_s=release.timings["total"],
                )
            stored = {"key": key, "release": release, "run_id": run_id, "data": wb.active}
            st.session_state[RESULT] = stored
            wb.last_release = release
        if stored is not None and stored["data"] == wb.active:
            if stored["key"] != key:
                st.info(t("an.stale"), icon=":material/update:")
            view.render(stored["release"], dataset.frame, run_id=stored["run_id"])
        elif not wanted:
            st.info(t("an.press_run"), icon=":material/play_arrow:")


workspace()

with st.expander(t("an.compare_title")):
    st.caption(t("an.compare_help"))
    try:
        view.compare(dataset, schema, st.session_state.get(PARAMS) or view.DEFAULT_PARAMS)
    except PrivcoreError as exc:
        show_error(exc)

with st.expander(t("an.replay_title")):
    replay_view.replay(wb, dataset)
