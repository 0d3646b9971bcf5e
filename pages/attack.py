"""Attack simulator: would the release picked at the top resist an attacker?"""

import streamlit as st

from ui.attack import engine, reconstruction, runs, view
from ui.attack import roll as roll_inputs
from ui.common.charts import show_chart
from ui.common.components import fmt
from ui.common.heavy import heavy_button
from ui.common.i18n import t, t_plain
from ui.common.reproduce import reproduce_in_python
from ui.common.shell import require_app
from ui.common.sources import ENGINE, page_view
from ui.common.state import keep, workbench
from ui.common.workspace import (
    alignment_controls,
    assessing_page,
    guard_run,
    latest_result,
    note_release_columns,
    rows_line_up,
)

require_app()

ROLL, PAGE = "at_roll", "attack"

# a table opened in an engine: a release file attacked there
page_view(workbench(), {ENGINE: engine.table_page}, title="at.title", lead="at.lead")

wb, original, schema, entry = assessing_page(title="at.title", lead="at.lead", key="at_release")
qi, sa = schema.quasi_identifiers, schema.sensitive
note_release_columns(entry, qi, sa)
left, right = st.columns(2, gap="large")
with left:
    pairing, key_column = alignment_controls(entry, original, qi, sa, key="at")
with right:
    roll_inputs.roll_controls(wb, original, qi, key=ROLL)

stored_roll = st.session_state.get(ROLL)
roll = stored_roll["roll"] if stored_roll and stored_roll["data"] == wb.active else None
if roll is not None:
    embedded = int(roll.frame["in_dataset"].sum()) if "in_dataset" in roll.frame else 0
    with st.expander(t("at.roll_preview", size=f"{len(roll.frame):,}", embedded=f"{embedded:,}")):
        # the roll's own columns in words; the data set's QI columns keep their names
        own = ("person_id", "name", "birth_date", "record", "in_dataset")
        shown = roll.frame.head(50).rename(columns={c: t_plain(f"at.col.{c}") for c in own})
        st.dataframe(shown, hide_index=True)
    roll_facts = roll.to_dict()
    roll_public = bool(stored_roll.get("public"))  # built from a bundled sample


def rolled() -> bool:
    """Is the voter roll built? The attacks of the first tabs start from it; until then
    they say so (the reconstruction builds its own roll of the table's people)."""
    if roll is None:
        st.info(t("at.build_first"), icon=":material/person_search:")
    return roll is not None


tabs = st.tabs(
    [
        t("at.tab_linkage"),
        t("at.tab_background"),
        t("at.tab_ordering"),
        t("at.tab_two"),
        t("at.tab_reconstruction"),
    ]
)

with tabs[0]:
    if rolled():
        # the roll is built already (its description is recorded with the run's inputs)
        tolerance = view.tolerance_input(original.frame, sa)
        values = {"qi": qi, "sa": sa, "key": key_column, "tolerance": tolerance}
        params = {**values, "pairing": pairing, "roll": roll_facts}

        def linkage():
            return runs.linkage(
                entry,
                original,
                schema,
                pairing,
                values,
                roll,
                roll_facts=roll_facts,
                roll_public=roll_public,
            )

        def unpaired():
            """What needs no pairing: the release's classes against the roll."""
            return runs.unpaired(
                entry, original, schema, roll, roll_facts=roll_facts, roll_public=roll_public
            )

        go = heavy_button(t("at.run_linkage"), key="at_run", cancel_key="at_cancel", row=True)
        outcome = None
        if go:
            # "auto": by position when the rows line up, else what needs no pairing
            paired = pairing != "none" and (
                pairing != "auto" or rows_line_up(entry, original, schema, qi)
            )
            outcome = guard_run(linkage if paired else unpaired)
        stored = latest_result(PAGE, entry, params, outcome, shown=("key", "pairing"))
        if stored is not None:
            outcome = stored["value"]
            if outcome.request.kind == "measure":
                view.unpaired_linkage(outcome.result)
            else:
                view.linkage_result(outcome.result, sa)
            reproduce_in_python(outcome, key="at_linkage")

with tabs[1]:
    if rolled():
        st.caption(t("at.background_help"))
        c1, c2 = st.columns(2)
        target_sa = c1.selectbox(
            t("at.sa"), sa, key=keep("at_bg_sa", scope=wb.active, valid=lambda v: v in sa)
        )
        m = c2.slider(t("at.m"), 0, 10, 1, help=t("at.m_help"), key=keep("at_m"))
        tau = c2.slider(t("at.tau"), 0.5, 1.0, 0.8, 0.05, key=keep("at_tau"))
        prior = roll_inputs.prior_controls(original.frame[target_sa], key="at_prior")
        params = {
            "attack": "background knowledge",
            "sa": target_sa,
            "m": m,
            "tau": tau,
            "prior": prior is not None,
        }
        # the attacker reads each table on its own: no pairing of rows is needed
        outcome = None
        if heavy_button(t("at.run_background"), key="at_run_background", primary=False):
            outcome = guard_run(
                lambda: runs.background(
                    entry, original, schema, sa=target_sa, m=m, tau=tau, prior=prior
                )
            )
        stored = latest_result(f"{PAGE}_background", entry, params, outcome)
        if stored is not None:
            reports = stored["value"].result
            cols = st.columns(2)
            for col, when in zip(cols, view.WHEN, strict=True):
                s = reports[when].summary
                col.metric(
                    t("at.at_risk", when=view.when_label(when), tau=stored["params"]["tau"]),
                    f"{s['records_at_risk']:,}",
                    help=t("at.at_risk_help"),
                )
            show_chart(view.posterior_chart(reports), key="at_posterior_chart_data")
            reproduce_in_python(stored["value"], key="at_background")

with tabs[2]:
    if rolled():
        st.caption(t("at.ordering_help"))
        if not entry.made_here:
            st.info(t("at.ordering_needs_release"))
        else:
            params = {"attack": "unsorted matching"}
            outcome = None
            if heavy_button(t("at.run_ordering"), key="at_run_ordering", primary=False):
                outcome = guard_run(lambda: runs.ordering(entry, original, schema))
            stored = latest_result(f"{PAGE}_ordering", entry, params, outcome)
            if stored is not None:
                s = stored["value"].result.summary
                cols = st.columns(2)
                cols[0].metric(
                    t("at.in_order"), f"ρ = {fmt(s['spearman'])}", help=t("at.spearman_help")
                )
                cols[0].caption(t("at.in_place", share=f"{s['rows_in_place']:.0%}"))
                shuffled = s.get("shuffled") or {}
                cols[1].metric(t("at.shuffled"), f"ρ = {fmt(shuffled.get('spearman'))}")
                cols[1].caption(
                    t("at.in_place", share=f"{(shuffled.get('rows_in_place') or 0):.1%}")
                )
                reproduce_in_python(stored["value"], key="at_ordering")

with tabs[3]:
    if rolled():
        st.caption(t("at.two_help"))
        others = [r.id for r in wb.releases() if r.id != entry.id]
        if not others:
            st.info(t("at.two_needs_second"), icon=":material/info:")
        else:
            second_id = st.selectbox(
                t("at.second_release"),
                others,
                format_func=lambda i: wb.find_release(i).name,
                key=keep("at_second", scope=wb.active, valid=lambda v: v in others),
            )
            second = wb.find_release(second_id)
            params = {"attack": "complementary", "release_a": entry.name, "release_b": second.name}
            # the same rows twice: every intersection is a class of the release itself
            same = second.fingerprint == entry.fingerprint
            if same:
                st.warning(
                    t("at.two_same", first=entry.name, second=second.name), icon=":material/block:"
                )
            outcome = None
            if heavy_button(t("at.run_two"), key="at_two", primary=False, disabled=same):
                outcome = guard_run(
                    lambda: runs.complementary(
                        entry,
                        second,
                        original,
                        schema,
                        pairing=pairing,
                        key_column=key_column,
                    )
                )
            stored = latest_result(f"{PAGE}_two", entry, params, outcome)
            if stored is not None:
                report = stored["value"].result
                s = report.summary
                cols = st.columns(3)
                cols[0].metric(t("at.k_each"), f"{s['k_a']} / {s['k_b']}")
                cols[1].metric(t("at.min_effective_k"), s["min_effective_k"])
                cols[2].metric(t("at.effective_k_1"), f"{s['records_effective_k_1']:,}")
                if not s["records_narrowed"]:
                    st.info(t("at.two_nothing_narrowed"), icon=":material/info:")
                show_chart(view.effective_k_chart(report), key="at_effective_k_chart_data")
                reproduce_in_python(stored["value"], key="at_two")

with tabs[4]:
    reconstruction.tab(entry, original, schema, scope=wb.active)
