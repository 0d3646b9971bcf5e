"""Release report: one document that decides whether a release may be published."""

import time

import streamlit as st

from privcore.errors import PrivcoreError
from privcore.report import Thresholds, readiness
from ui.components import escape_md
from ui.errors import show_error
from ui.history import record
from ui.i18n import current_language, t
from ui.release_picker import note_release_columns, pick_release
from ui.shell import require_app
from ui.state import session_owner, workbench

require_app()

RESULT = "report_result"
_STYLE = {
    "ready": ("green", ":material/verified:"),
    "ready_with_conditions": ("orange", ":material/rule:"),
    "not_ready": ("red", ":material/block:"),
}

st.title(t("rp.title"))
st.write(t("rp.lead"))
wb = workbench()
original = wb.dataset()
schema = wb.schema()
if schema is None or not schema.quasi_identifiers or not schema.sensitive:
    st.warning(t("an.schema_first"), icon=":material/warning:")
    st.page_link("pages/data_roles.py", label=t("nav.data"), icon=":material/table_view:")
    st.stop()

left, right = st.columns([1, 1], gap="large")
with left:
    st.markdown(f"**{t('pl.original')}**: {escape_md(wb.title(wb.active))}")
    release_name, release_frame, release_obj = pick_release(wb, original, schema, key="rp")
    note_release_columns(release_obj, schema.quasi_identifiers, schema.sensitive)
with right:
    st.markdown(f"**{t('rp.thresholds')}**")
    defaults = Thresholds()
    c1, c2 = st.columns(2)
    min_k = c1.number_input(t("rp.min_k"), 1, 1000, defaults.min_k, key="rp_min_k")
    min_l = c2.number_input(t("rp.min_l"), 1.0, 50.0, float(defaults.min_l), 1.0, key="rp_min_l")
    max_pl = c1.number_input(
        t("rp.max_pl"), 0.0, 1.0, float(defaults.max_pl), 0.05, key="rp_max_pl"
    )
    max_prosecutor = c2.number_input(
        t("rp.max_prosecutor"), 0.001, 1.0, float(defaults.max_prosecutor), 0.05, key="rp_max_pros"
    )
    max_journalist = c1.number_input(
        t("rp.max_journalist"), 0.001, 1.0, float(defaults.max_journalist), 0.05, key="rp_max_jour"
    )
    max_reid = c2.number_input(
        t("rp.max_reidentified"),
        0.0,
        1.0,
        float(defaults.max_reidentified_share),
        0.01,
        key="rp_max_reid",
    )
    max_disclosed = c1.number_input(
        t("rp.max_disclosed"),
        0.0,
        1.0,
        float(defaults.max_disclosed_share),
        0.01,
        key="rp_max_disc",
    )
    max_suppressed = c2.number_input(
        t("rp.max_suppressed"),
        0.0,
        1.0,
        float(defaults.max_suppressed_share),
        0.01,
        key="rp_max_sup",
    )
    use_t = c1.toggle(t("rp.use_t"), key="rp_use_t")
    max_t = c2.number_input("t", 0.0, 1.0, 0.3, 0.05, key="rp_max_t", disabled=not use_t)

go_column, cancel_column = st.columns([1, 3])
go = go_column.button(t("rp.generate"), type="primary", disabled=release_frame is None, key="rp_go")
# pressing it stops the running script (Streamlit reruns at the next progress update)
cancel_column.button(t("an.cancel"), key="rp_cancel", help=t("an.cancel_help"))
if go:
    started = time.perf_counter()
    bar = st.progress(0.0, text=t("rp.working"))
    try:
        thresholds = Thresholds(
            min_k=int(min_k),
            min_l=float(min_l),
            max_t=float(max_t) if use_t else None,
            max_pl=float(max_pl),
            max_prosecutor=float(max_prosecutor),
            max_journalist=float(max_journalist),
            max_reidentified_share=float(max_reid),
            max_disclosed_share=float(max_disclosed),
            max_suppressed_share=float(max_suppressed),
        )
        algorithm = (
            None
            if release_obj is None
            else {"algorithm": release_obj.algorithm, **release_obj.params}
        )
        report = readiness(
            original.frame,
            release_frame,
            qi=schema.quasi_identifiers,
            sa=schema.sensitive,
            thresholds=thresholds,
            hierarchies=schema.hierarchies,
            algorithm=algorithm,
            record=True,
            owner=session_owner(),
            check_order=release_obj is None,  # a release made here is in order
            original_name=wb.title(wb.active),
            release_name=release_name,
            progress=lambda f, m: bar.progress(f, text=m),
        )
        st.session_state[RESULT] = {
            "report": report,
            "data": wb.active,
            "seconds": time.perf_counter() - started,
        }
    except PrivcoreError as exc:
        show_error(exc)
    except BaseException:  # Cancel (or any rerun) stopped it: keep a trace in the history
        record(
            "report",
            params={"release": release_name},
            results={},
            dataset=original,
            page="report",
            duration_s=time.perf_counter() - started,
            status="cancelled",
        )
        raise
    finally:
        bar.empty()

stored = st.session_state.get(RESULT)
if stored and stored["data"] == wb.active:
    report = stored["report"]
    colour, icon = _STYLE[report.verdict]
    st.markdown(f"## :{colour}[{icon} {t('rp.verdict_' + report.verdict)}]")
    st.caption(
        t(
            "rp.recorded",
            ids=", ".join(f"#{i}" for i in report.run_ids) or "—",
            seconds=f"{stored['seconds']:.1f}",
        )
    )
    for reason in report.reasons:
        st.error(escape_md(reason["message"]), icon=":material/block:")
    for condition in report.conditions:
        st.warning(escape_md(condition["message"]), icon=":material/rule:")
    with st.expander(t("rp.checks")):
        st.dataframe(
            [{k: str(v) for k, v in check.items()} for check in report.checks], hide_index=True
        )
    lang = current_language()
    st.download_button(
        t("rp.download_html"),
        data=report.to_html(lang=lang).encode("utf-8"),
        file_name="release_readiness_report.html",
        mime="text/html",
        on_click="ignore",
        type="primary",
        key="rp_download",
    )
    st.caption(t("rp.print_hint"))
