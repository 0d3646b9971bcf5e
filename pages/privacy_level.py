"""Privacy level: how private is the release picked at the top?"""

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
    guard_run,
    latest_result,
    note_release_columns,
    request_alignment,
)
from ui.measure import engine, risk, runs, thresholds, view

require_app()

PAGE = "privacy_level"
RISK = "privacy_level.risk"  # the risk section's results, kept apart from the measure's

# a table opened in an engine: a release file measured there
page_view(workbench(), {ENGINE: engine.table_view}, title="pl.title", lead="pl.lead")

wb, original, schema, entry = assessing_page(
    title="pl.title", lead="pl.lead", key="pl_release", needs_columns=False
)

left, right = st.columns([1, 1])
with left:
    qi, sa = thresholds.column_inputs(
        [str(c) for c in original.frame.columns], schema, scope=wb.active
    )
    note_release_columns(entry, qi, sa)
with right:
    pairing, key_column = alignment_controls(entry, original, qi, sa, key="pl")

chosen_thresholds = thresholds.threshold_inputs(sa, entry)
population = thresholds.population_input(wb.active)
values = {
    "qi": qi,
    "sa": sa,
    "key": key_column,
    **chosen_thresholds,
    "alignment": request_alignment(pairing),
}
# what a result depends on besides the release: compared to say "out of date"
params = {
    **values,
    "pairing": pairing,
    "population_rows": None if population is None else len(population),
}

on_release = runs.OnRelease(entry, original, schema, pairing, population)
measure_clicked = heavy_button(t("pl.measure"), key="pl_measure")
bar_slot = st.empty()  # on every run: the layout below keeps its tabs' state
measured = None
if measure_clicked:
    measured = guard_run(lambda: runs.measure_release(on_release, values, slot=bar_slot))
stored = latest_result(PAGE, entry, params, measured)
if stored is not None:
    view.render(stored["value"], original.frame, wb, entry)
    reproduce_in_python(stored["value"], key="pl_measure")

# --------------------------------------------------------------------------- risk
st.divider()
st.header(t("risk.title"))
st.caption(t("risk.lead"))
risk_fraction, control = risk.inputs(population)
risk_values = {"qi": qi, "sa": sa, "sampling_fraction": risk_fraction}
risk_params = {
    **risk_values,
    "pairing": pairing,
    "population_rows": None if population is None else len(population),
    "control_rows": None if control is None else len(control),
}

risk_clicked = heavy_button(t("risk.assess"), key="pl_risk_assess", primary=False)
risk_bar_slot = st.empty()
assessed = None
if risk_clicked:
    assessed = guard_run(
        lambda: runs.assess_release(on_release, risk_values, control=control, slot=risk_bar_slot)
    )
stored = latest_result(RISK, entry, risk_params, assessed)
if stored is not None:
    risk.render(stored["value"].result.to_dict())
    risk.records(stored["value"].result)
    reproduce_in_python(stored["value"], key="pl_risk")
