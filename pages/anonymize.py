"""Anonymize: choose an algorithm and its models; every release made joins the shelf."""

import streamlit as st

from ui.anonymize import engine, replay, workspace
from ui.anonymize.comparison import compare
from ui.common.i18n import t
from ui.common.shell import require_app
from ui.common.sources import ENGINE, page_view
from ui.common.state import workbench
from ui.common.workspace import DEFAULTS

require_app()

st.title(t("an.title"))
st.write(t("an.lead"))
wb = workbench()
schema = wb.schema()
if schema is None or not schema.quasi_identifiers or not schema.sensitive:
    st.warning(t("an.schema_first"), icon=":material/warning:")
    st.page_link("pages/data_roles.py", label=t("nav.data"), icon=":material/table_view:")
    st.stop()
scope = wb.active
# a table opened in an engine: its release is written to a file
page_view(wb, {ENGINE: lambda wb: engine.table_workspace(wb, scope, schema)})
dataset = wb.dataset()

workspace.workspace(wb, scope, dataset, schema)

with st.expander(t("an.compare_title")):
    st.caption(t("an.compare_help"))
    compare(dataset, schema, st.session_state.get(workspace.VALUES) or DEFAULTS.to_dict())

with st.expander(t("an.replay_title")):
    replay.replay(wb, dataset)
