"""The Attack page on a table opened in an engine: a release file (by default the last
one the Anonymize page wrote from it in this session; a file written shuffled is not
paired by position), its rows paired with the table's by position or by a key column, a
voter roll of the size and seed chosen — a roll frequency set drawn from the table — and
Run: linkage and homogeneity before vs after, computed in the engine
(:func:`ui.common.engine_tables.on_release`, recorded), shown with this page's views."""

from __future__ import annotations

import streamlit as st

from privcore.attacks import Simulation
from privcore.runs import AttackRequest
from ui.attack.roll import seed_input
from ui.attack.view import linkage_result, roll_rows, tolerance_input
from ui.common.components import bounded_slider
from ui.common.engine_tables import release_file_input, run_and_keep, table_and_schema
from ui.common.i18n import t
from ui.common.reproduce import reproduce_in_python
from ui.common.state import Workbench, keep
from ui.common.workspace.results import result_header

TABLE_ATTACKED = "at_table_attacked"  # engine table → its last attack and its parameters
ROLL_ROWS_SHOWN = 50


def table_roll_controls(wb: Workbench, records: int) -> tuple[int, int]:
    """The roll's size in people — from the table's records to 50 times as many, 10
    times by default, as for a table in memory — and the seed it is drawn with."""
    upper = max(records * 50, records + 10)
    size = bounded_slider(
        t("at.roll_size"),
        records,
        upper,
        records * 10,
        help=t("at.roll_size_help"),
        key=keep("at_roll_size", scope=wb.active, valid=lambda v: records <= v <= upper),
    )
    return int(size), seed_input()


def table_page(wb: Workbench) -> None:
    """The Attack page on a table opened in an engine (see the module docstring)."""
    key, table, qi, sa = table_and_schema(wb)
    left, right = st.columns(2, gap="large")
    with left:
        release_path, key_column = release_file_input(table, key, page="at")
    with right:
        roll_size, seed = table_roll_controls(wb, table.rows)
        st.caption(t("at.engine_roll"))
    tolerance = tolerance_input(table.preview, sa)
    values = {
        "qi": qi,
        "sa": sa,
        "key": key_column,
        "roll_size": roll_size,
        "seed": seed,
        "tolerance": tolerance,
    }
    params = {**values, "release_file": str(release_path or "").strip()}
    # linkage and homogeneity before and after, on the joint frequency set, with a
    # roll frequency set (privcore.runs.tables.attack_tables), recorded
    stored = run_and_keep(
        wb, TABLE_ATTACKED, AttackRequest, values, release_path, "attack", params=params
    )
    if stored is None:
        return
    outcome = stored["value"]
    result_header(
        stored,
        None,
        params,
        run_id=outcome.run_id,
        shown=("release_file", "key", "roll_size", "seed"),
    )
    render_table_attack(outcome.result, sa)
    reproduce_in_python(outcome, key="at_engine")


def render_table_attack(sim: Simulation, sa: list[str]) -> None:
    """An attack made on an engine (a roll frequency set against the joint frequency
    set): the roll, the figures before vs after, the targets with the people each row
    stands for, and the homogeneous classes."""
    roll = sim.roll
    with st.expander(
        t(
            "at.engine_roll_preview",
            size=f"{roll.size:,}",
            rows=f"{roll.rows:,}",
            embedded=f"{roll.embedded:,}",
        )
    ):
        st.caption(t("at.engine_roll_rows", shown=f"{min(roll.rows, ROLL_ROWS_SHOWN):,}"))
        st.dataframe(roll_rows(roll, ROLL_ROWS_SHOWN), hide_index=True)
    linkage_result(sim, sa)
