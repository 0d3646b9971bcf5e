"""Differential privacy: what noise protects against, what each answer costs, how accurate
it is, which ε meets a target, how it compares with k-anonymity, and whether a mechanism
keeps its promise."""

import streamlit as st

from ui import dp as dp_page
from ui.common.i18n import t
from ui.common.shell import require_app
from ui.common.state import workbench

require_app()

st.title(t("dp.title"))
st.write(t("dp.lead"))
ctx = dp_page.Context.of(workbench())

tabs = st.tabs(
    [
        t("dp.tab_dinner"),
        t("dp.tab_queries"),
        t("dp.tab_accuracy"),
        t("dp.tab_plan"),
        t("dp.tab_release"),
        t("dp.tab_audit"),
    ]
)
with tabs[0]:
    dp_page.dinner_tab(ctx)
with tabs[1]:
    query_spec = dp_page.queries_tab(ctx)
with tabs[2]:
    dp_page.accuracy_tab(ctx, query_spec)
with tabs[3]:
    dp_page.plan_tab()
with tabs[4]:
    dp_page.release_tab(ctx)
with tabs[5]:
    dp_page.audit_tab(ctx)
