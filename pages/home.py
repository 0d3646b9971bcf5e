"""Home: what the workbench answers, and where to start."""

import streamlit as st

from ui.common.i18n import t
from ui.common.shell import require_app

require_app()

st.title(t("home.title"))
st.write(t("home.lead"))

# The session's state (pandas, the data layer) is imported once the heading is drawn.
from ui.common.state import workbench  # noqa: E402

wb = workbench()
rows, _ = wb.size()
# The data set's name is words, not a figure: a line of text that wraps, not a metric
# whose large digits would have a third of the width.
st.container(key="home_dataset").markdown(t("layout.home_dataset", name=wb.title(wb.active)))
cols = st.columns(2)
cols[0].metric(t("home.metric_rows"), f"{rows:,}")
schema = wb.schema()
cols[1].metric(
    t("home.metric_qis"), len(schema.quasi_identifiers) if schema else t("home.not_confirmed")
)

st.header(t("home.start"))
st.page_link("pages/learn.py", label=t("home.link_learn"), icon=":material/school:")
st.page_link("pages/data_roles.py", label=t("home.link_data"), icon=":material/table_view:")
st.page_link("pages/anonymize.py", label=t("home.link_anonymize"), icon=":material/blur_on:")
st.page_link(
    "pages/privacy_level.py", label=t("home.link_privacy"), icon=":material/verified_user:"
)
st.page_link("pages/attack.py", label=t("home.link_attack"), icon=":material/person_search:")
st.page_link("pages/ldp_auditor.py", label=t("home.link_ldp"), icon=":material/policy:")
st.page_link(
    "pages/differential_privacy.py", label=t("home.link_dp"), icon=":material/shield_lock:"
)
st.page_link("pages/report.py", label=t("home.link_report"), icon=":material/fact_check:")
st.page_link("pages/history.py", label=t("home.link_history"), icon=":material/history:")

with st.expander(t("home.about_title")):
    st.write(t("home.about"))
