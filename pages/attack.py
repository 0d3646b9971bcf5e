"""Attack simulator: would this release resist an attacker with a voter roll?"""

import time

import streamlit as st

from privcore.attacks import (
    background_attack,
    complementary_attack,
    simulate,
    unsorted_matching_attack,
)
from privcore.errors import PrivcoreError
from privcore.measure.entropy import align
from ui import attack_view as view
from ui.components import escape_md
from ui.errors import show_error
from ui.history import record
from ui.i18n import t
from ui.release_picker import note_release_columns, pick_release
from ui.shell import require_app
from ui.state import workbench

require_app()

ROLL, SIM = "at_roll", "at_sim"

st.title(t("at.title"))
st.write(t("at.lead"))
wb = workbench()
original = wb.dataset()
schema = wb.schema()
if schema is None or not schema.quasi_identifiers or not schema.sensitive:
    st.warning(t("an.schema_first"), icon=":material/warning:")
    st.page_link("pages/data_roles.py", label=t("nav.data"), icon=":material/table_view:")
    st.stop()
qi, sa = schema.quasi_identifiers, schema.sensitive

left, right = st.columns(2, gap="large")
with left:
    st.markdown(f"**{t('pl.original')}**: {escape_md(wb.title(wb.active))}")
    release_name, release_frame, release_obj = pick_release(wb, original, schema, key="at")
    note_release_columns(release_obj, qi, sa)
    columns = [str(c) for c in original.frame.columns]
    shared = [c for c in columns if release_frame is not None and c in release_frame.columns]
    key_column = st.selectbox(
        t("pl.key"),
        [None, *[c for c in shared if c not in qi + sa]],
        format_func=lambda c: t("pl.key_row_order") if c is None else c,
        help=t("pl.key_help"),
        key="at_key",
    )
with right:
    view.roll_controls(wb, original, qi, key=ROLL)

stored_roll = st.session_state.get(ROLL)
roll = stored_roll["roll"] if stored_roll and stored_roll["data"] == wb.active else None
if roll is None:
    st.info(t("at.build_first"), icon=":material/person_search:")
    st.stop()
embedded = int(roll.frame["in_dataset"].sum()) if "in_dataset" in roll.frame else 0
with st.expander(t("at.roll_preview", size=f"{len(roll.frame):,}", embedded=f"{embedded:,}")):
    st.dataframe(roll.frame.head(50), hide_index=True)
if release_frame is None:
    st.stop()
try:
    aligned_original, release = align(  # a release made here is in order; a file is checked
        original.frame,
        release_frame,
        key_column,
        qi=qi if release_obj is None else (),
        hierarchies=schema.hierarchies,
    )
except PrivcoreError as exc:
    show_error(exc)
    st.stop()


def record_once(name: str, params: dict, results: dict) -> None:
    """Record a live view's attack in the history once per set of parameters (these
    tabs recompute as a control moves; the same figures are not recorded twice)."""
    seen = st.session_state.setdefault("at_recorded", {})
    signature = repr((wb.active, sorted(params.items())))
    if seen.get(name) != signature:
        seen[name] = signature
        record("attack", params=params, results=results, dataset=original, page="attack")


tabs = st.tabs([t("at.tab_linkage"), t("at.tab_background"), t("at.tab_ordering"), t("at.tab_two")])
with tabs[0]:
    go_column, cancel_column = st.columns([1, 3])
    go = go_column.button(t("at.run_linkage"), type="primary", key="at_run")
    # pressing it stops the running script (Streamlit reruns at the next progress update)
    cancel_column.button(t("an.cancel"), key="at_cancel", help=t("an.cancel_help"))
    if go:
        bar = st.progress(0.0)
        started = time.perf_counter()
        params = {
            "attack": "linkage+homogeneity",
            "release": release_name,
            "key": key_column,
            "roll": roll.to_dict(),
        }
        try:
            sim = simulate(
                aligned_original,
                release,
                qi,
                sa,
                roll=roll,
                hierarchies=schema.hierarchies,
                progress=lambda f, m: bar.progress(f, text=m),
            )
        except PrivcoreError as exc:
            show_error(exc)
            record(
                "attack",
                params=params,
                results={},
                dataset=original,
                page="attack",
                duration_s=time.perf_counter() - started,
                status="error",
                error=exc.message,
            )
        except BaseException:  # Cancel (or any rerun) stopped it: keep a trace
            record(
                "attack",
                params=params,
                results={},
                dataset=original,
                page="attack",
                duration_s=time.perf_counter() - started,
                status="cancelled",
            )
            raise
        else:
            run_id = record(
                "attack",
                params=params,
                results=sim.to_dict(),
                dataset=original,
                page="attack",
                duration_s=sim.seconds,
            )
            st.session_state[SIM] = {
                "data": wb.active,
                "release": release_name,
                "sim": sim,
                "run_id": run_id,
            }
        finally:
            bar.empty()
    stored = st.session_state.get(SIM)
    if stored and stored["data"] == wb.active and stored["release"] == release_name:
        sim = stored["sim"]
        st.caption(t("at.recorded", id=stored["run_id"], seconds=f"{sim.seconds:.2f}"))
        view.unparsed_warning(sim.linkage["after"])
        view.headline(sim)
        st.altair_chart(view.before_after_chart(sim), width="stretch")
        view.explanations(sim.linkage["after"])
        st.subheader(t("at.victims"))
        view.victims(sim.linkage["after"], sa)
        st.subheader(t("at.homogeneous"))
        view.explanations(sim.homogeneity["after"])
        view.homogeneous_classes(sim.homogeneity["after"])

with tabs[1]:
    st.caption(t("at.background_help"))
    c1, c2 = st.columns(2)
    target_sa = c1.selectbox(t("at.sa"), sa, key="at_bg_sa")
    m = c2.slider(t("at.m"), 0, 10, 1, help=t("at.m_help"), key="at_m")
    tau = c2.slider(t("at.tau"), 0.5, 1.0, 0.8, 0.05, key="at_tau")
    prior = view.prior_controls(original.frame[target_sa], key="at_prior")
    try:
        with st.spinner(t("at.working")):
            reports = {
                "before": background_attack(
                    aligned_original, qi, target_sa, m=m, tau=tau, prior=prior
                ),
                "after": background_attack(release, qi, target_sa, m=m, tau=tau, prior=prior),
            }
        record_once(
            "background",
            {
                "attack": "background knowledge",
                "release": release_name,
                "sa": target_sa,
                "m": m,
                "tau": tau,
                "prior": prior is not None,
            },
            {when: r.summary for when, r in reports.items()},
        )
        cols = st.columns(2)
        for col, when in zip(cols, view.WHEN, strict=True):
            s = reports[when].summary
            col.metric(
                t("at.at_risk", when=view.when_label(when), tau=tau),
                f"{s['records_at_risk']:,}",
                help=t("at.at_risk_help"),
            )
        st.altair_chart(view.posterior_chart(reports), width="stretch")
    except PrivcoreError as exc:
        show_error(exc)

with tabs[2]:
    st.caption(t("at.ordering_help"))
    if release_obj is None:
        st.info(t("at.ordering_needs_release"))
    else:
        with st.spinner(t("at.working")):
            report = unsorted_matching_attack(
                aligned_original, release_obj, qi=qi, compare_shuffled=True
            )
        s = report.summary
        record_once("ordering", {"attack": "unsorted matching", "release": release_name}, s)
        cols = st.columns(2)
        cols[0].metric(
            t("at.in_order"), f"ρ = {view.fmt(s['spearman'])}", help=t("at.spearman_help")
        )
        cols[0].caption(t("at.in_place", share=f"{s['rows_in_place']:.0%}"))
        shuffled = s.get("shuffled") or {}
        cols[1].metric(t("at.shuffled"), f"ρ = {view.fmt(shuffled.get('spearman'))}")
        cols[1].caption(t("at.in_place", share=f"{(shuffled.get('rows_in_place') or 0):.1%}"))

with tabs[3]:
    st.caption(t("at.two_help"))
    second_name, second_frame, second_obj = pick_release(wb, original, schema, key="at_b")
    if second_frame is not None and st.button(t("at.run_two"), key="at_two"):
        try:
            _, second = align(
                original.frame,
                second_frame,
                qi=qi if second_obj is None else (),
                hierarchies=schema.hierarchies,
            )
            report = complementary_attack(release, second, qi, sa=sa)
            s = report.summary
            cols = st.columns(3)
            cols[0].metric(t("at.k_each"), f"{s['k_a']} / {s['k_b']}")
            cols[1].metric(t("at.min_effective_k"), s["min_effective_k"])
            cols[2].metric(t("at.effective_k_1"), f"{s['records_effective_k_1']:,}")
            st.altair_chart(view.effective_k_chart(report), width="stretch")
            record(
                "attack",
                params={
                    "attack": "complementary",
                    "release_a": release_name,
                    "release_b": second_name,
                },
                results=report.to_dict()["summary"],
                dataset=original,
                page="attack",
            )
        except PrivcoreError as exc:
            show_error(exc)
