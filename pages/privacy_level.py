"""Privacy level: how private is a release of the active data set?"""

import time

import streamlit as st

from privcore.measure.report import measure_release
from ui import measure_view
from ui.components import escape_md
from ui.errors import show_error
from ui.history import record
from ui.i18n import t
from ui.release_picker import note_release_columns, pick_release
from ui.shell import require_app
from ui.state import workbench

require_app()

RESULT = "measure_result"

st.title(t("pl.title"))
st.write(t("pl.lead"))
wb = workbench()
original = wb.dataset()
schema = wb.schema()
if schema is None:
    st.warning(t("pl.confirm_first"), icon=":material/warning:")
    st.page_link("pages/data_roles.py", label=t("nav.data"), icon=":material/table_view:")
    st.stop()

left, right = st.columns([1, 1])
with left:
    st.markdown(f"**{t('pl.original')}**: {escape_md(wb.title(wb.active))}")
    release_name, release_frame, release_obj = pick_release(wb, original, schema, key="pl")
with right:
    columns = [str(c) for c in original.frame.columns]
    qi = st.multiselect(t("pl.qi"), columns, default=schema.quasi_identifiers, key="pl_qi")
    sa = st.multiselect(t("pl.sa"), columns, default=schema.sensitive, key="pl_sa")
    note_release_columns(release_obj, qi, sa)
    shared = [c for c in columns if release_frame is not None and c in release_frame.columns]
    key_column = st.selectbox(
        t("pl.key"),
        [None, *[c for c in shared if c not in qi + sa]],
        format_func=lambda c: t("pl.key_row_order") if c is None else c,
        help=t("pl.key_help"),
        key="pl_key",
    )

models, thresholds = measure_view.threshold_inputs(sa)
population = measure_view.population_input(wb.active)

if st.button(t("pl.measure"), type="primary", disabled=release_frame is None):
    started = time.perf_counter()
    params = {
        "release": release_name,
        "qi": qi,
        "sa": sa,
        "key": key_column,
        "population_rows": None if population is None else len(population),
        **thresholds,
    }
    try:
        with st.spinner(t("pl.measuring")):
            result = measure_release(
                original.frame,
                release_frame,
                qi=qi,
                sa=sa,
                models=models,
                hierarchies=schema.hierarchies,
                key=key_column,
                risk_threshold=thresholds["risk_threshold"],
                population=population,
                # a release made here is in order; a file is checked
                check_order=release_obj is None,
            )
    except Exception as exc:  # noqa: BLE001 - shown and recorded
        show_error(exc)
        record(
            "measure",
            params=params,
            results={},
            dataset=original,
            page="privacy_level",
            duration_s=time.perf_counter() - started,
            status="error",
            error=str(exc),
        )
    else:
        run_id = record(
            "measure",
            params=params,
            results=result.history_summary(),
            dataset=original,
            page="privacy_level",
            duration_s=result.seconds,
        )
        st.session_state[RESULT] = {
            "result": result,
            "release": release_frame,
            "release_name": release_name,
            "run_id": run_id,
            "original_key": wb.active,
        }

stored = st.session_state.get(RESULT)
if stored is not None and stored["original_key"] == wb.active:
    measure_view.render(stored, original.frame, wb)
