"""LDP auditor: does a local-DP mechanism lose no more privacy than it claims?"""

import streamlit as st

from ui.common.i18n import t
from ui.common.shell import require_app
from ui.ldp import mechanism, samples, tools, view

require_app()

st.title(t("ldp.title"))
st.write(t("ldp.lead"))
if not view.device_badge():
    st.stop()

tabs = st.tabs(
    [
        t("ldp.tab_mechanism"),
        t("ldp.tab_samples"),
        t("ldp.tab_sweep"),
        t("ldp.tab_planner"),
        t("ldp.tab_reconstruction"),
    ]
)

with tabs[0]:
    mechanism.mechanism_tab()
with tabs[1]:
    samples.samples_tab()
with tabs[2]:
    tools.sweep_tab()
with tabs[3]:
    tools.planner_tab()
with tabs[4]:
    tools.reconstruction_tab()
