"""Release report: one document that decides whether the release picked at the top may
be published."""

import functools

import streamlit as st

from privcore.data import to_csv_bytes
from privcore.runs import ReportRequest
from ui import report_view
from ui.heavy import heavy_button, new_request, run_heavy
from ui.i18n import current_language, t
from ui.shared import share_release_run
from ui.shell import require_app
from ui.state import workbench
from ui.workspace import (
    alignment_controls,
    assessing_page,
    file_stem,
    guard_run,
    keep_result,
    note_release_columns,
    release_inputs,
    result_header,
    result_of,
    shelve_frame,
    try_action,
)

require_app()

PAGE = "report"

if workbench().is_table():  # a table opened in an engine: a release file reported on there
    st.title(t("rp.title"))
    st.write(t("rp.lead"))
    report_view.table_page(workbench())
    st.stop()

wb, original, schema, entry = assessing_page(title="rp.title", lead="rp.lead", key="rp_release")
qi, sa = schema.quasi_identifiers, schema.sensitive
note_release_columns(entry, qi, sa)

left, right = st.columns([1, 1], gap="large")
with left:
    # the report judges figures that pair each released row with its original row
    pairing, key_column = alignment_controls(entry, original, qi, sa, key="rp", allow_none=False)
with right:
    thresholds = report_view.threshold_controls()

values = {"qi": qi, "sa": sa, "key": key_column, "thresholds": thresholds}
params = {
    "key": key_column,
    "pairing": pairing,
    "shuffled": entry.shuffled,
    **thresholds,
}


def generate():
    algorithm = (
        {"algorithm": entry.release.algorithm, **entry.release.params} if entry.made_here else None
    )
    inputs = release_inputs(entry, original, schema, pairing, qi=qi, sa=sa, algorithm=algorithm)
    request = new_request(ReportRequest, values, inputs, page=PAGE)
    inputs = share_release_run(request, inputs, entry, pairing=pairing)
    return run_heavy(request, inputs, label=t("rp.working"), page=PAGE, slot=bar_slot)


go_column, cancel_column = st.columns([1, 3])
go = heavy_button(
    t("rp.generate"),
    key="rp_go",
    where=go_column,
    cancel_where=cancel_column,
    cancel_key="rp_cancel",
)
bar_slot = st.empty()  # on every run: the layout below keeps its state
if go:
    outcome = guard_run(generate)
    if outcome is None:
        if pairing == "auto":
            st.info(t("rp.pairing_hint"), icon=":material/swap_vert:")
    else:
        report = outcome.result.recorded(outcome.summary, outcome.run_id)
        keep_result(PAGE, entry, params, {"report": report, "seconds": outcome.seconds})

stored = result_of(PAGE, entry)
if stored is not None:
    report = stored["value"]["report"]
    current = result_header(
        stored,
        entry,
        params,
        run_id=report.run_ids[-1] if report.run_ids else None,
        shown=("key", "pairing", "min_k", "min_l", "max_pl", "max_t"),
    )
    st.caption(
        t(
            "rp.recorded",
            ids=", ".join(f"#{i}" for i in report.run_ids) or "—",
            seconds=f"{stored['value']['seconds']:.1f}",
        )
    )
    chosen = report_view.show_report(report, key="rp", actions=current)
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
            wb.under_review[wb.active] = copy.id
            st.rerun()
        else:
            try_action(wb, entry, chosen)
    stem = file_stem(stored["name"])
    st.download_button(
        t("rp.download_html"),
        data=functools.partial(report_view.html_bytes, report, current_language()),  # on click
        file_name=f"{stem}_readiness_report.html",
        mime="text/html",
        on_click="ignore",
        type="primary",
        key="rp_download",
        disabled=not current,
    )
    st.caption(t("rp.print_hint"))
    st.download_button(
        t("rp.download_release", order=t("rp.shuffled") if entry.shuffled else t("rp.in_order")),
        # built on click, on its own thread
        data=lambda: to_csv_bytes(
            entry.release.export(shuffle=entry.shuffled)
            if entry.made_here
            else (entry.frame.sample(frac=1.0, random_state=0) if entry.shuffled else entry.frame)
        ),
        file_name=f"{stem}.csv",
        mime="text/csv",
        on_click="ignore",
        key="rp_download_release",
    )
