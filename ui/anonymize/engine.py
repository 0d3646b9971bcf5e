"""The Anonymize page on a table opened in an engine: the controls (the algorithms that
run on a frequency set), the release file's path, Run and Cancel; the run goes through
:func:`anonymize` (recorded) and its release is written to the file, not put on the
shelf, then shown with its report's figures (:func:`render_table_release`)."""

from __future__ import annotations

import glob
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import streamlit as st

from privcore.anonymize import Release
from privcore.core.progress import Progress
from privcore.data import Schema
from privcore.engines.opening import typed_path
from privcore.errors import ParameterError
from privcore.runs import AnonymizeRequest, Inputs, Outcome
from privcore.runs.registry import ALGORITHMS
from privcore.runs.tables import NEEDS_RECORDS
from ui.anonymize.controls import controls
from ui.anonymize.release_view import (
    chart,
    charts_tab,
    classes_tab,
    columns_and_notes,
    report_download,
    verdict_cards,
)
from ui.common.charts import show_chart
from ui.common.components import explained_metric, verdict_row
from ui.common.ec_table import counted_rows, size_counts_histogram, worst_classes
from ui.common.engine_tables import COPIES, engine_table, kept_order_copy
from ui.common.heavy import cancel_pressed, heavy_button, new_request, run_heavy
from ui.common.i18n import t, t_plain
from ui.common.lattice import lattice_caption, lattice_chart
from ui.common.layout import controls_and_results, lazy_tabs
from ui.common.progress import progress_bar
from ui.common.state import LargeTable, Workbench, keep
from ui.common.workspace.names import algorithm_title, file_stem
from ui.common.workspace.results import changes, guard_run

TABLE_MADE = "an_table_made"  # engine table → the controls, the file and the outcome of its run
TABLE_CANCELLED = "an_table_cancelled"
MAX_FREQUENCY_ROWS = 1000  # rows of a release's frequency set shown
RELEASE_SUFFIXES = (".parquet", ".csv")
RELEASE_FOLDER = Path("data") / "releases"
#: Algorithms that run on an engine table: those that work on a weighted frequency set.
ENGINE_ALGORITHMS = tuple(a for a in ALGORITHMS if a not in NEEDS_RECORDS)


def table_workspace(wb: Workbench, key: str, schema: Schema) -> None:
    """The Anonymize page on a table opened in an engine: the controls (the algorithms
    that run on a frequency set), the release file's path, Run and Cancel; the run goes
    through :func:`anonymize` (recorded) and its release is written to the file, not
    put on the shelf — shuffled (the file to publish) unless the order is kept, and then
    by the same run with a copy in the table's order next to it for the other pages
    (:func:`_record_copy`)."""
    table = wb.table(key)
    left, right = controls_and_results()
    with left:
        values = controls(schema, scope=key, algorithms=ENGINE_ALGORITHMS)
        st.caption(algorithm_note())
        out = st.text_input(
            t("lt.out"),
            value=default_output(table, values["algorithm"]),
            key=f"an_out::{key}::{values['algorithm']}",
            help=t("lt.out_help"),
        )
        keep_order = st.checkbox(
            t("lt.keep_order"), key=keep(f"an_keep_order::{key}"), help=t("lt.keep_order_help")
        )
        st.caption(t("lt.order_kept" if keep_order else "lt.order_shuffled"))
        clicked = heavy_button(t("an.run"), key="an_run", cancel_key="an_cancel")
        cancel = cancel_pressed("an_cancel")
    asked = {**values, "out": out, "keep_order": keep_order}
    signature = json.dumps({"data": key, **asked}, sort_keys=True)
    made = st.session_state.setdefault(TABLE_MADE, {})
    with right:
        bar_slot = st.empty()
        if cancel:
            st.session_state[TABLE_CANCELLED] = signature
        if st.session_state.get(TABLE_CANCELLED) == signature and not clicked:
            st.warning(t("an.cancelled"), icon=":material/cancel:")
        if clicked:
            st.session_state.pop(TABLE_CANCELLED, None)
            with progress_bar(algorithm_title(values["algorithm"]), slot=bar_slot) as bar:
                outcome = guard_run(
                    lambda: anonymize(
                        wb, key, schema, values, out, keep_order=keep_order, progress=bar
                    )
                )
            if outcome is None:
                return
            made[key] = {"values": values, "asked": asked, "outcome": outcome}
            _record_copy(key, outcome)
        kept = made.get(key)
        if kept is None:
            st.info(t("lt.press_run"), icon=":material/play_arrow:")
            return
        differ = changes(kept["asked"], asked)
        if differ:
            st.info(t("an.stale", changes="; ".join(differ)), icon=":material/update:")
        copy = st.session_state.get(COPIES, {}).get(key)
        if copy and copy["published"] == str(kept["outcome"].result.out):
            st.caption(t("lt.copy_written"))
            st.text(str(Path(copy["assessed"]).resolve()))
        render_table_release(kept["outcome"])


def _record_copy(key: str, made: Outcome) -> None:
    """The session's record (:data:`~ui.common.engine_tables.COPIES`) of the copy in the
    table's order the run ``made`` wrote next to its shuffled file to publish — the copy
    the Privacy level, Attack and Report pages pair with the table by position — or of
    none (the order kept)."""
    copies = st.session_state.setdefault(COPIES, {})
    copies.pop(key, None)
    copy = getattr(made.result, "order_copy", None)
    if copy is not None:
        copies[key] = {"published": str(made.result.out), "assessed": str(copy)}


def render_table_release(outcome: Outcome) -> None:
    """A release made on an engine (:class:`privcore.runs.tables.TableRelease`): the
    figures of its report, the file written and the engine's check of it, then its
    classes (sizes in records), the rows of its frequency set with their counts,
    charts, the lattice and the report to download."""
    made = outcome.result
    release: Release = made.release
    report = made.to_dict()
    columns_and_notes(release)
    verdict_row([*verdict_cards(report["verdicts"]), _written_card(release, report["engine"])])
    _table_figures(report)
    st.markdown(f"**{t('lt.written_title')}**")
    st.text(str(made.out.resolve()))
    st.caption(t("lt.written_rows", rows=f"{made.rows_written:,}", run=_run_label(outcome.run_id)))
    st.info(t("lt.not_shelved"), icon=":material/inventory_2:")
    if release.engine_records is not None:  # its rows stay in the engine
        _kept_tabs(made, report, release)
        return
    weights = np.asarray(release.weights, dtype=np.int64)
    lazy_tabs(
        [
            (
                t("tab.classes"),
                lambda: classes_tab(release, key="an_table_classes", weights=weights),
            ),
            (t("lt.tab_frequency_set"), lambda: _frequency_set(release, weights)),
            (t("tab.charts"), lambda: charts_tab(release, report["k"])),
            (t("an.tab_lattice"), lambda: _lattice(release)),
            (t("tab.download"), lambda: _report_download(made, report, release)),
        ],
        key="an_table_view",
    )


def _kept_tabs(made: Any, report: Mapping[str, Any], release: Release) -> None:
    """A release whose rows stay in the engine (Mondrian's fragments kept there): its
    worst classes and the classes of each size, measured inside the engine, and the
    report to download."""
    measured = release.measurement
    lazy_tabs(
        [
            (t("tab.classes"), lambda: worst_classes(measured.models.class_table)),
            (
                t("tab.charts"),
                lambda: show_chart(
                    size_counts_histogram(measured.size_counts, report["k"]),
                    key="an_engine_sizes_chart_data",
                ),
            ),
            (t("tab.download"), lambda: _report_download(made, report, release)),
        ],
        key="an_table_view",
    )


def _lattice(release: Release) -> None:
    """The lattice the search walked and its caption (none for a local recoding)."""
    if release.lattice is None:
        st.info(t("an.no_lattice"), icon=":material/info:")
    else:
        chart(release, "lattice", lambda: lattice_chart(release))
        st.caption(lattice_caption(release))


def _written_card(release: Release, written: Mapping[str, Any]) -> tuple[str, str, str, str]:
    """The engine's check of the file it wrote: the k of its rows against the k asked."""
    k_needed = next((int(m["k"]) for m in release.params.get("constraints", []) if "k" in m), None)
    return (
        t_plain("lt.written_check"),
        f"k = {written['written_k']}"
        + (f" ≥ {k_needed}" if k_needed and written["written_satisfied"] else "")
        + (f" < {k_needed}" if k_needed and not written["written_satisfied"] else ""),
        "pass" if written["written_satisfied"] else "fail",
        t_plain("lt.written_detail", rows=f"{written['rows_written']:,}"),
    )


def _table_figures(report: Mapping[str, Any]) -> None:
    """k, classes, records and suppressed rows; GCP, PL, DR and UL; the node chosen."""
    c1, c2, c3, c4 = st.columns(4)
    explained_metric(c1, t("pl.k_achieved"), report["k"], "explain.k")
    explained_metric(c2, t("lt.classes"), report["classes"], "lt.explain_classes", 0)
    explained_metric(c3, t("lt.records"), report["rows"], "lt.explain_records", 0)
    explained_metric(c4, t("an.suppressed"), report["suppressed_rows"], "explain.suppressed", 0)
    c1, c2, c3, c4 = st.columns(4)
    explained_metric(c1, "GCP", report["loss"].get("gcp", report["loss"].get("ncp")), "explain.gcp")
    explained_metric(c2, "PL", report["pl"], "explain.pl")
    explained_metric(c3, "DR", report["dr"], "explain.dr")
    explained_metric(c4, "UL", report["ul"], "explain.ul")
    if report.get("node"):
        node = " · ".join(f"{c} {level}" for c, level in report["node"].items())
        st.caption(t("lt.node", node=node))


def _frequency_set(release: Release, weights: np.ndarray) -> None:
    """The first rows of the release's frequency set with the records each stands for."""
    st.caption(
        t(
            "lt.frequency_caption",
            rows=f"{len(release.frame):,}",
            records=f"{int(weights.sum()):,}",
            shown=f"{min(len(release.frame), MAX_FREQUENCY_ROWS):,}",
        )
    )
    shown = np.arange(min(len(release.frame), MAX_FREQUENCY_ROWS))
    st.dataframe(counted_rows(release.frame, weights, shown), hide_index=True)


def _report_download(made: Any, report: Mapping[str, Any], release: Release) -> None:
    """The release's report as JSON, named after the file written."""
    report_download(made.out.name, report, release, file_stem(made.out.stem))
    st.caption(t("lt.download_note"))


def _run_label(run_id: int | None) -> str:
    return f"#{run_id}" if run_id is not None else "—"


def algorithm_note() -> str:
    """Why KACA and condensation are not offered on an engine table."""
    left_out = [a for a in ALGORITHMS if a not in ENGINE_ALGORITHMS]
    return t("lt.needs_records", algorithms=", ".join(algorithm_title(a) for a in left_out))


def default_output(table: LargeTable, algorithm: str) -> str:
    """``data/releases/<table stem>_<algorithm>.parquet``."""
    stem = file_stem(Path(table.name).stem or table.name)
    return str(RELEASE_FOLDER / f"{stem}_{algorithm}.parquet")


def output_path(text: str, table: LargeTable) -> Path:
    """Where the release goes: a .parquet or .csv path (its folder made when missing),
    never the table itself."""
    raw = typed_path(text)
    if not raw:
        raise ParameterError("Give the path of the release file.", code="engines.out_path")
    path = Path(raw).expanduser()
    if path.suffix.lower() not in RELEASE_SUFFIXES:
        raise ParameterError(
            "The release is written as a .parquet or .csv file.",
            code="engines.out_format",
            option="out",
        )
    sources = {Path(p).resolve() for p in glob.glob(table.source)} | {Path(table.source).resolve()}
    if path.resolve() in sources:
        raise ParameterError(
            "The release would overwrite the table it is made from: give another path.",
            code="engines.out_is_input",
        )
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ParameterError(
            f"The folder {path.parent} cannot be made: {exc.strerror or exc}.",
            code="engines.out_folder",
        ) from exc
    return path


def anonymize(
    wb: Workbench,
    key: str,
    schema: Schema,
    values: Mapping[str, Any],
    out: str,
    *,
    keep_order: bool = False,
    progress: Progress | None = None,
) -> Outcome:
    """Anonymize the table with the controls' ``values`` and write the release to
    ``out``, through :func:`privcore.runs.run` (recorded, page "anonymize"): the engine
    groups the table, the frequency set is anonymized with its counts as weights, and
    the engine writes and checks the release (:func:`privcore.runs.tables.anonymize_table`,
    by the run's engine runner). The file's rows are shuffled (in an order drawn from the
    seed) unless ``keep_order``: the table's order; shuffled, the same run writes them
    also in the table's order next to the file
    (:func:`~ui.common.engine_tables.kept_order_copy`: the request's ``order_copy``)."""
    table = wb.table(key)
    original = engine_table(table)
    request = new_request(AnonymizeRequest, values, Inputs(original=original), page="anonymize")
    target = output_path(out, table)
    if not keep_order:  # the copy the other pages pair with the table by position
        copy = output_path(str(kept_order_copy(target)), table)
        request = request.replace(order_copy=str(copy))
    inputs = Inputs(
        original=original,
        schema=schema.restricted(request.qi, request.sa),
        out=str(target),
        shuffled=not keep_order,
        names={"engine": table.engine_name, "release_file": target.name, "keep_order": keep_order},
    )
    outcome = run_heavy(request, inputs, label="", page="anonymize", progress=progress)
    table.last_release, table.last_release_shuffled = str(target), not keep_order
    return outcome
