"""Release report: one document that decides whether the release picked at the top may
be published."""

import streamlit as st

from ui.common.heavy import heavy_button
from ui.common.i18n import t
from ui.common.reproduce import reproduce_in_python
from ui.common.shell import require_app
from ui.common.sources import ENGINE, page_view
from ui.common.state import workbench
from ui.common.workspace import (
    alignment_controls,
    assessing_page,
    file_stem,
    guard_run,
    keep_result,
    note_release_columns,
    result_of,
    shelve_frame,
    try_action,
)
from ui.report import dossier, engine, runs, thresholds, view

require_app()

PAGE = "report"

# a table opened in an engine: a release file reported on there
page_view(workbench(), {ENGINE: engine.table_page}, title="rp.title", lead="rp.lead")

wb, original, schema, entry = assessing_page(title="rp.title", lead="rp.lead", key="rp_release")
qi, sa = schema.quasi_identifiers, schema.sensitive
note_release_columns(entry, qi, sa)

left, right = st.columns([1, 1], gap="large")
with left:
    # the report judges figures that pair each released row with its original row
    pairing, key_column = alignment_controls(entry, original, qi, sa, key="rp", allow_none=False)
with right:
    chosen_thresholds = thresholds.threshold_controls()

with st.expander(t("dossier.section.context"), icon=":material/policy:"):
    context = dossier.context_form(entry, list(original.frame.columns))
    context_choice = (
        None if context is None else dossier.chosen_thresholds(entry, context, chosen_thresholds)
    )
if context_choice is not None:  # the context's thresholds: the report is checked against them
    chosen_thresholds = dossier.report_thresholds(context_choice, chosen_thresholds)

published = [] if context is None else [list(t) for t in context.published_tables]
values = {"qi": qi, "sa": sa, "key": key_column, "thresholds": chosen_thresholds}
values["published_tables"] = published
params = {
    "key": key_column,
    "pairing": pairing,
    "shuffled": entry.shuffled,
    **chosen_thresholds,
    "published_tables": published,
}


go = heavy_button(t("rp.generate"), key="rp_go", cancel_key="rp_cancel", row=True)
bar_slot = st.empty()  # on every run: the layout below keeps its state
if go:
    outcome = guard_run(
        lambda: runs.generate(entry, original, schema, pairing, values, slot=bar_slot)
    )
    if outcome is None:
        if pairing == "auto":
            st.info(t("rp.pairing_hint"), icon=":material/swap_vert:")
    else:
        report = outcome.result.recorded(outcome.summary, outcome.run_id)
        kept = {"report": report, "seconds": outcome.seconds, "outcome": outcome}
        keep_result(PAGE, entry, params, kept)

stored = result_of(PAGE, entry)
if stored is not None:
    report, current, chosen = view.show_kept(
        stored,
        entry,
        params,
        shown=("key", "pairing", "min_k", "min_l", "max_pl", "max_t"),
        actions=True,
    )
    if chosen is not None:
        if chosen.get("action") == "shuffle":
            entry.shuffled = True
            st.rerun()
        elif chosen.get("action") == "drop_columns":
            kept = [c for c in entry.frame.columns if c not in set(chosen.get("columns") or [])]
            copy, _ = shelve_frame(
                wb,
                wb.active,
                t("rp.without_columns", name=entry.name, columns=", ".join(chosen["columns"])),
                entry.frame[kept],
                source=entry.source if entry.source in ("file", "dataset") else "file",
                origin=entry.origin or entry.name,
            )
            copy.aligned, copy.shuffled = entry.aligned, entry.shuffled
            copy.kind = entry.kind  # DP synthetic records stay DP synthetic
            wb.under_review[wb.active] = copy.id
            st.rerun()
        else:
            try_action(wb, entry, chosen)
    stem = file_stem(stored["name"])
    view.html_download(report, stem, current=current)
    reproduce_in_python(stored["value"].get("outcome"), key="rp_report")
    if context_choice is not None and current:
        held = dossier.held_releases(wb.releases())
        dossier.dossier_downloads(
            report, entry, original, context, context_choice, stem, held, schema, pairing
        )
    st.download_button(
        t("rp.download_release", order=t("rp.shuffled") if entry.shuffled else t("rp.in_order")),
        data=lambda: runs.release_csv(entry),  # built on click, on its own thread
        file_name=f"{stem}.csv",
        mime="text/csv",
        on_click="ignore",
        key="rp_download_release",
    )
