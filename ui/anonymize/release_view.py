"""The release the Anonymize page made: its verdicts and figures, then the Tables ·
Classes · Charts · Lattice · Download tabs (only the tab on screen is drawn), and a
perturbative release's utility and population risk. Charts are built once per release
and language (:func:`chart`)."""

from __future__ import annotations

import json
import threading
import weakref
from collections.abc import Callable, Mapping
from typing import Any

import altair as alt
import numpy as np
import pandas as pd
import streamlit as st

from privcore.anonymize import Release
from privcore.data import to_csv_bytes
from privcore.models import model_from_dict
from privcore.words.labels import figure_label, model_title, note_text, requirement
from ui.anonymize import risk_utility
from ui.common.charts import chart_data, show_spec
from ui.common.components import (
    escape_md,
    explained_metric,
    loss_headline_metric,
    verdict_row,
)
from ui.common.ec_table import class_size_histogram, render_class_table
from ui.common.i18n import current_language, t, t_plain
from ui.common.lattice import (
    lattice_caption,
    lattice_chart,
    lattice_minimal_table,
    lattice_zoomed,
)
from ui.common.layout import lazy_tabs
from ui.common.population_risk import population_metrics
from ui.common.reproduce import reproduce_in_python
from ui.common.state import ShelfRelease
from ui.common.workspace.names import file_stem


def render(entry: ShelfRelease, original: pd.DataFrame) -> None:
    """The release ``entry`` made here: verdicts, figures, tables, charts, lattice and
    downloads."""
    release: Release = entry.release
    measured = release.measurement.to_dict()
    columns_and_notes(release)
    verdict_row(_cards(release, measured))
    _figures(release, measured)
    lazy_tabs(
        [
            (t("an.tab_tables"), lambda: side_by_side(release, original)),
            (t("tab.classes"), lambda: classes_tab(release, key="an_classes")),
            (t("tab.charts"), lambda: charts_tab(release, measured["k"])),
            (t("an.tab_lattice"), lambda: _lattice_tab(entry)),
            (t("tab.download"), lambda: downloads(entry)),
        ],
        key="an_view",
    )
    reproduce_in_python(entry.outcome, key="an_release")


def columns_and_notes(release: Release) -> None:
    """The columns a release was made on, and the algorithm's notes."""
    st.caption(t("an.columns_used", qi=", ".join(release.qi), sa=", ".join(release.sa)))
    for note in release.notes:
        st.info(escape_md(note_text(note, current_language())), icon=":material/info:")


def verdict_cards(verdicts: list[Mapping[str, Any]]) -> list[tuple[str, str, str, str]]:
    """A card per model verdict: the model, its requirement, passed or failed, and the
    rows violating it."""
    lang = current_language()
    return [
        (
            model_title(v.get("parameters"), v["model"], lang),
            requirement(v.get("parameters"), v["requirement"], lang),
            "pass" if v["passed"] else "fail",
            t_plain("an.verdict_detail", rows=v["violating_rows"]),
        )
        for v in verdicts
    ]


def _cards(release: Release, measured: Mapping[str, Any]) -> list[tuple[str, str, str, str]]:
    """The verdict cards: one per model, or for synthetic records (all distinct) one for
    the condensation groups, which the models hold for."""
    if not release.synthetic:
        return verdict_cards(measured["verdicts"])
    return [
        (
            t_plain("an.groups"),
            " · ".join(
                requirement(m, model_from_dict(m).requirement(), current_language())
                for m in release.params["constraints"]
            ),
            "pass" if release.satisfied else "fail",
            t_plain("an.groups_detail", groups=len(_group_sizes(release))),
        )
    ]


def _group_sizes(release: Release) -> np.ndarray:
    """The sizes of a synthetic release's condensation groups."""
    sizes = np.bincount(release.class_ids[release.class_ids >= 0])
    return sizes[sizes > 0]


def _figures(release: Release, measured: Mapping[str, Any]) -> None:
    """k achieved, rows suppressed, the headline loss, PL, UL and real records; a
    perturbative release's utility and population risk."""
    # Synthetic records are all distinct: the models hold for the condensation groups.
    k_achieved = int(_group_sizes(release).min()) if release.synthetic else measured["k"]
    c1, c2, c3, c4, c5, c6 = st.columns(6)
    explained_metric(c1, t("pl.k_achieved"), k_achieved, "explain.k")
    explained_metric(c2, t("an.suppressed"), release.n_suppressed, "explain.suppressed", 0)
    loss_headline_metric(c3, release.loss_headline)
    explained_metric(c4, "PL", measured["pl"]["all"], "explain.pl")
    explained_metric(c5, "UL", measured["ul"], "explain.ul")
    real = measured["real_records"]
    explained_metric(c6, t("an.real_records"), real["any"], "explain.real_records", 0)
    if real["any"]:
        st.caption(t("an.real_records_detail", any=real["any"], own=real["own"]))
    if release.utility is not None:
        perturbation_utility_view(release)
    if release.population_risk is not None:
        perturbation_risk_view(release.population_risk)


def classes_tab(release: Release, *, key: str, weights: np.ndarray | None = None) -> None:
    """The release's equivalence classes (:func:`render_class_table`; ``weights``: the
    records each row of a frequency set stands for), its widgets keyed by ``key``."""
    render_class_table(
        release.measurement.models.class_table,
        release.measurement.classes,
        release.frame,
        key=key,
        weights=weights,
    )


def charts_tab(release: Release, k: Any) -> None:
    """The class sizes (k marked), the generalization levels of the QIs, and every loss
    figure of the release."""
    chart(release, "sizes", lambda: class_size_histogram(release.measurement.classes.sizes, k))
    if release.record_levels:
        chart(release, "levels", lambda: level_chart(release))
    else:  # local recoding (Mondrian) and synthetic records have no hierarchy levels
        st.info(t("an.no_levels"), icon=":material/info:")
    lang = current_language()
    loss = {
        figure_label(name, lang): value
        for name, value in release.loss.items()
        if isinstance(value, (int, float)) and not isinstance(value, bool)
    }
    st.dataframe(
        pd.DataFrame(
            {
                t_plain("figure.name"): list(loss),
                t_plain("figure.value"): list(loss.values()),
            }
        ),
        hide_index=True,
    )


def _lattice_tab(entry: ShelfRelease) -> None:
    """The lattice the search walked (zoomed near the chosen node unless asked for whole),
    its caption and its minimal satisfying nodes."""
    release: Release = entry.release
    if release.lattice is None:
        st.info(t("an.no_lattice"), icon=":material/info:")
        return
    whole = lattice_zoomed(release) and st.checkbox(
        t("layout.whole_lattice"),
        help=t("layout.whole_lattice_help"),
        key=f"an_lattice_whole_{entry.id}",
    )
    chart(
        release,
        "lattice_whole" if whole else "lattice",
        lambda: lattice_chart(release, whole=whole),
    )
    st.caption(lattice_caption(release, whole=whole))
    minimal = lattice_minimal_table(release)
    if len(minimal):
        with st.expander(t("layout.minimal_title", count=len(minimal))):
            st.dataframe(minimal, hide_index=True)


def perturbation_risk_view(figures: Mapping[str, Any]) -> None:
    """A perturbed release's population-level risk
    (:func:`privcore.anonymize.perturbative.population_risk`): population uniqueness,
    expected re-identifications, the largest record risk and SUDA2's special uniques at
    the voter roll's sampling fraction."""
    st.markdown(f"**{t('an.pr.title')}**")
    st.caption(t("an.pr.help", fraction=f"{float(figures['sampling_fraction']):.4g}"))
    population_metrics(figures)


def perturbation_utility_view(release: Release) -> None:
    """A perturbative release's utility (:mod:`privcore.measure.utility`): per
    quasi-identifier its mean absolute and relative change and its share of changed
    cells; the largest and mean change of the correlations; the regression's interval
    overlap, mean and per coefficient."""
    utility = release.utility
    st.markdown(f"**{t('an.ut.title')}**")
    st.caption(t("an.ut.help"))
    st.dataframe(
        risk_utility.utility_table(utility, release.qi),
        hide_index=True,
        column_config={
            t_plain("an.ut.mean_absolute"): st.column_config.NumberColumn(
                help=t_plain("an.ut.mean_absolute_help"), format="%.3f"
            ),
            t_plain("an.ut.mean_relative"): st.column_config.NumberColumn(
                help=t_plain("an.ut.mean_relative_help"), format="percent"
            ),
            t_plain("an.ut.changed_share"): st.column_config.NumberColumn(
                help=t_plain("an.ut.changed_share_help"), format="percent"
            ),
        },
    )
    c1, c2, c3 = st.columns(3)
    correlation = risk_utility.correlation_summary(utility)
    regression = utility.get("regression")
    if correlation is None:
        c1.caption(t("an.ut.no_correlation"))
    else:
        explained_metric(c1, t("an.ut.corr_max"), correlation[0], "an.ut.corr_max_help")
        explained_metric(c2, t("an.ut.corr_mean"), correlation[1], "an.ut.corr_mean_help")
    if regression is None:
        (c3 if correlation is not None else c2).caption(t("an.ut.no_regression"))
        return
    explained_metric(
        c3, t("an.ut.overlap_mean"), regression.get("mean_interval_overlap"), "an.ut.overlap_help"
    )
    st.caption(
        t(
            "an.ut.regression",
            target=regression["target"],
            predictors=", ".join(regression["predictors"]),
        )
    )
    st.dataframe(
        risk_utility.regression_table(utility),
        hide_index=True,
        column_config={
            t_plain("an.ut.overlap"): st.column_config.NumberColumn(
                help=t_plain("an.ut.overlap_help"), format="%.3f"
            ),
        },
    )


_SPECS: weakref.WeakKeyDictionary[Release, dict[tuple[str, str], tuple]] = (
    weakref.WeakKeyDictionary()
)


_SPECS_LOCK = threading.Lock()


def chart(release: Release, name: str, build: Callable[[], alt.TopLevelMixin]) -> None:
    """Show a chart of ``release`` with its text alternative
    (:func:`ui.common.charts.show_spec`). Its Vega-Lite spec, title and data are built
    once per release and language and kept while the release lives: a rerun (a widget
    elsewhere on the page) and the sessions sharing a bundled sample's release reuse it."""
    key = (name, current_language())
    with _SPECS_LOCK:
        kept = _SPECS.setdefault(release, {}).get(key)
    if kept is None:
        built = build()
        with alt.data_transformers.disable_max_rows():
            kept = (built.to_dict(), *chart_data(built))
        with _SPECS_LOCK:
            _SPECS.setdefault(release, {})[key] = kept
    spec, title, table = kept
    show_spec(spec, title, table, key=f"an_{name}_chart_data")


def side_by_side(release: Release, original: pd.DataFrame, rows: int = 50) -> None:
    """The first rows of the original and of the release, what changed marked: the
    columns whose shown cells all changed (full-domain recoding) named under the tables,
    cells that changed in only some rows (local recoding, suppression) shaded."""
    left, right = st.columns(2)
    shown_original = original.head(rows)
    shown_release = release.frame.head(rows)
    left.markdown(f"**{t('an.original')}**")
    left.dataframe(shown_original, hide_index=True)
    right.markdown(f"**{t('an.release')}**")
    changed = np.zeros(shown_release.shape, dtype=bool)
    for i, column in enumerate(shown_release.columns):
        if column in release.qi and column in shown_original.columns:
            changed[:, i] = (
                shown_release[column].astype(str).to_numpy()
                != shown_original[column].astype(str).to_numpy()
            )
    whole = changed.all(axis=0) & (len(shown_release) > 0)
    partly = changed.any(axis=0) & ~whole
    shown = shown_release
    if partly.any():  # a styled table costs ~0.1 ms a row on every run: only when needed
        cells = np.where(changed & partly, "background-color: rgba(191, 135, 0, 0.18)", "")
        styles = pd.DataFrame(
            cells.astype(object), index=shown_release.index, columns=shown_release.columns
        )
        shown = shown_release.style.apply(lambda _: styles, axis=None)
    right.dataframe(shown, hide_index=True)
    st.caption(t("an.tables_caption", rows=min(rows, len(original))))
    generalized = [str(c) for c, marked in zip(shown_release.columns, whole, strict=True) if marked]
    if generalized:
        st.caption(t("an.changed_columns", columns=", ".join(generalized)))
    if original[[c for c in release.qi if c in original.columns]].isna().to_numpy().any():
        st.caption(t("an.missing_caption"))


def level_chart(release: Release) -> alt.Chart:
    """Generalization level of each QI (share of records at each level; a release of a
    frequency set counts each row as the records it stands for)."""
    rows = []
    for column in release.qi:
        hierarchy_levels = (release.record_levels or {}).get(column)
        if hierarchy_levels is None:
            continue
        levels, inverse = np.unique(np.asarray(hierarchy_levels), return_inverse=True)
        counts = np.bincount(inverse.ravel(), weights=release.weights, minlength=len(levels))
        rows += [
            {"QI": column, "level": int(lv), "records": int(c)}
            for lv, c in zip(levels, counts, strict=True)
        ]
    data = pd.DataFrame(rows or [{"QI": "", "level": 0, "records": 0}])
    return (
        alt.Chart(data, title=t("an.levels_title"))
        .mark_bar()
        .encode(
            y=alt.Y("QI:N", title=None),
            x=alt.X(
                "records:Q", stack="normalize", title=t("an.levels_x"), axis=alt.Axis(format="%")
            ),
            color=alt.Color("level:O", title=t("an.level"), scale=alt.Scale(scheme="oranges")),
            tooltip=["QI:N", "level:O", "records:Q"],
        )
    )


def downloads(entry: ShelfRelease) -> None:
    """The release's files, named after it: the table (rows shuffled unless asked —
    the shelf remembers which), its generalization spec and its summary."""
    release: Release = entry.release
    stem = file_stem(entry.name)
    keep_order = st.checkbox(
        t("an.keep_order"),
        value=not entry.shuffled,
        help=t("an.keep_order_help"),
        key=f"an_keep_order_{entry.id}",
    )
    entry.shuffled = not keep_order
    st.download_button(
        t("an.download_release"),
        # built on click, on its own thread: not on every rerun of the page
        data=lambda: to_csv_bytes(release.export(shuffle=not keep_order)),
        file_name=f"{stem}.csv",
        mime="text/csv",
        on_click="ignore",
    )
    st.download_button(
        t("an.download_spec"),
        # fingerprints: built on click; how the table above is written, for a redo
        data=lambda: release.spec_json(release.written(shuffled=not keep_order)).encode("utf-8"),
        file_name=f"{stem}_spec.json",
        mime="application/json",
        on_click="ignore",
        help=t("an.download_spec_help"),
    )
    report_download(entry.name, release.to_dict(), release, stem)


def report_of(release: Release) -> dict[str, Any]:
    """The downloadable report: the release summary with the QIs and SAs of the run."""
    return {**release.to_dict(), "qi": list(release.qi), "sa": list(release.sa)}


def report_download(name: str, report: Mapping[str, Any], release: Release, stem: str) -> None:
    """The release's report as JSON (``<stem>_report.json``, made now): the release's
    ``name``, its ``report`` and the QIs and SAs of the run."""
    st.download_button(
        t("an.download_report"),
        data=json.dumps(
            {"release": name, **report, "qi": list(release.qi), "sa": list(release.sa)},
            ensure_ascii=False,
            indent=2,
            default=str,
        ).encode("utf-8"),
        file_name=f"{stem}_report.json",
        mime="application/json",
        on_click="ignore",
    )
