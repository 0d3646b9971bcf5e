"""History: every recorded run; filter, inspect, compare, delete, export."""

import streamlit as st

from ui.common.errors import guard
from ui.common.i18n import labels, t
from ui.common.shell import require_app
from ui.common.state import keep, workbench
from ui.history import page

require_app()

KINDS = ["profile", "measure", "anonymize", "attack", "audit", "report", "error"]
# On a hosted demo each visitor sees only their own runs (PRIVCORE_HISTORY_SCOPE=session)
OWNER = page.history_owner()

st.title(t("history.title"))
st.write(t("history.lead"))
if OWNER is not None:
    st.caption(t("history.session_only"))

left, right = st.columns([1, 2])
kinds = left.multiselect(
    t("history.kind"),
    KINDS,
    format_func=labels(KINDS, lambda k: t(f"kind.{k}")),
    key=keep("history_kinds"),
)
search = right.text_input(
    t("history.search"), placeholder=t("history.search_placeholder"), key=keep("history_search")
)

runs = page.load_runs(kinds, search, OWNER)
event, table = page.run_table(runs)
page.export_button(kinds, search, OWNER)

# A selection can outlive the rows it pointed to (after a delete or a new filter).
rows = [i for i in (event.selection.rows if event else []) if i < len(table)]
selected = [int(table.iloc[i]["id"]) for i in rows]
if not selected:
    st.caption(t("history.select_hint"))
    st.stop()

# the run that made each release of this session's shelf, by the release's fingerprint
made_by = {r.fingerprint: r.run_id for r in workbench().shelf if r.run_id is not None}

tab_details, tab_compare = st.tabs([t("history.tab_details"), t("history.tab_compare")])
with tab_details:
    for run_id in selected:
        with guard():
            page.run_details(run_id, OWNER, made_by)

with tab_compare:
    if len(selected) < 2:
        st.caption(t("history.compare_hint"))
    else:
        page.comparison(selected, OWNER)
