"""Controls, cached runs and result views of the Anonymize page."""

from __future__ import annotations

import json
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import altair as alt
import numpy as np
import pandas as pd
import streamlit as st

from privcore.anonymize import ALGORITHMS, FULL_DOMAIN, Release, anonymize
from privcore.data import Dataset, Role, Schema, to_csv_bytes
from privcore.errors import PrivcoreError
from privcore.models import (
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    PrivacyModel,
    RecursiveCLDiversity,
    TCloseness,
    model_from_dict,
)
from ui.charts import ACCENT, FAIL, MUTED, PASS, WARN
from ui.components import escape_md, explained_metric, fmt, verdict_row
from ui.ec_table import class_size_histogram, render_class_table
from ui.history import record
from ui.i18n import current_language, t, t_plain
from ui.state import is_bundled

LOSS_METRICS = ["ncp", "whd", "discernibility", "ul"]
DISTANCES = ["auto", "equal", "ordered", "hierarchical", "kl"]
DEFAULT_PARAMS: dict[str, Any] = {
    "algorithm": "optimal",
    "k": 5,
    "l": None,
    "l_kind": "distinct",
    "c": 3.0,
    "t": None,
    "t_distance": "auto",
    "max_suppression": 0.0,
    "seed": 0,
}


def controls(schema: Schema) -> dict[str, Any]:
    """The parameter widgets; returns the chosen parameters (JSON-able).

    ``qi`` and ``sa`` are the quasi-identifiers and sensitive attributes of the
    confirmed schema chosen for this run (all of them by default), in schema order.
    """
    qi = st.multiselect(
        t("an.qi"),
        schema.quasi_identifiers,
        default=schema.quasi_identifiers,
        help=t("an.qi_help"),
        placeholder=t("an.choose_columns"),
        key="an_qi",
    )
    sa = st.multiselect(
        t("an.sa"),
        schema.sensitive,
        default=schema.sensitive,
        help=t("an.sa_help"),
        placeholder=t("an.choose_columns"),
        key="an_sa",
    )
    algorithm = st.selectbox(
        t("an.algorithm"),
        list(ALGORITHMS),
        index=list(ALGORITHMS).index("optimal"),
        format_func=lambda a: t(f"alg.{a}"),
        help=t("an.algorithm_help"),
        key="an_algorithm",
    )
    st.caption(t(f"alg.{algorithm}.about"))
    k = st.slider("k", 1, 100, 5, help=t("help.k"), key="an_k")
    use_l = st.checkbox(t("an.use_l"), key="an_use_l")
    l_kind, l_value, c = "distinct", 2.0, 3.0
    if use_l:
        l_kind = st.selectbox(
            t("pl.l_kind"),
            ["distinct", "entropy", "recursive"],
            format_func=lambda x: t(f"pl.l_kind_{x}"),
            key="an_l_kind",
        )
        l_value = st.number_input("l", 1.0, 50.0, 2.0, 1.0, key="an_l")
        if l_kind == "recursive":
            c = st.number_input("c", 0.1, 100.0, 3.0, 0.5, key="an_c")
    use_t = st.checkbox(t("an.use_t"), key="an_use_t")
    t_value, distance = 0.3, "auto"
    if use_t:
        t_value = st.number_input("t", 0.0, 5.0, 0.3, 0.05, key="an_t")
        distance = st.selectbox(
            t("pl.t_distance"),
            DISTANCES,
            format_func=lambda d: t(f"distance.{d}"),
            key="an_distance",
        )
    suppression = st.slider(
        t("an.max_suppression"),
        0.0,
        50.0,
        0.0,
        0.5,
        format="%.1f %%",
        help=t("an.max_suppression_help"),
        key="an_sup",
    )
    params: dict[str, Any] = {
        # schema order, not click order: the same choice is the same cache key
        "qi": [c for c in schema.quasi_identifiers if c in qi],
        "sa": [c for c in schema.sensitive if c in sa],
        "algorithm": algorithm,
        "k": int(k),
        "l": float(l_value) if use_l else None,
        "l_kind": l_kind,
        "c": float(c),
        "t": float(t_value) if use_t else None,
        "t_distance": distance,
        "max_suppression": suppression / 100.0,
    }
    if algorithm in ("samarati", "incognito", "optimal"):
        params["loss_metric"] = st.selectbox(
            t("an.loss_metric"),
            LOSS_METRICS,
            format_func=lambda m: t(f"metric.{m}"),
            key="an_metric",
        )
    if algorithm == "mondrian":
        params["summary"] = st.radio(
            t("an.summary"),
            ["range", "mean"],
            horizontal=True,
            format_func=lambda s: t(f"an.summary_{s}"),
            key="an_summary",
        )
    params["seed"] = int(st.number_input(t("an.seed"), 0, 2**31 - 1, 0, key="an_seed"))
    return params


def restricted_schema(schema: Schema, params: dict[str, Any]) -> Schema:
    """The confirmed schema restricted to the run's choice of ``params["qi"]`` and
    ``params["sa"]`` (all QIs/SAs when absent).

    A QI or SA column left out is insensitive for this run (kept as it is in the
    release) and its hierarchy is dropped; the chosen columns keep theirs, and every
    other role and hierarchy is unchanged. An empty choice gives a schema without QI
    (or SA), which the library refuses with RoleError ``roles.no_qi`` / ``roles.no_sa``.
    """
    qi = set(params.get("qi", schema.quasi_identifiers))
    sa = set(params.get("sa", schema.sensitive))
    left_out = {c for c in schema.quasi_identifiers if c not in qi} | {
        c for c in schema.sensitive if c not in sa
    }
    if not left_out:
        return schema
    return Schema(
        {c: Role.INSENSITIVE if c in left_out else r for c, r in schema.roles.items()},
        {c: h for c, h in schema.hierarchies.items() if c not in left_out},
    )


def models_of(params: dict[str, Any]) -> list[PrivacyModel]:
    models: list[PrivacyModel] = [KAnonymity(params["k"])]
    if params.get("l") is not None:
        if params["l_kind"] == "entropy":
            models.append(EntropyLDiversity(params["l"]))
        elif params["l_kind"] == "recursive":
            models.append(RecursiveCLDiversity(params["c"], int(params["l"])))
        else:
            models.append(DistinctLDiversity(int(params["l"])))
    if params.get("t") is not None:
        models.append(TCloseness(params["t"], params["t_distance"]))
    return models


def options_of(params: dict[str, Any]) -> dict[str, Any]:
    return {k: params[k] for k in ("loss_metric", "summary") if k in params}


_CACHE = "an_release_cache"
_CACHE_SIZE = 12
# Releases of the bundled (public) samples are the same for every visitor: one process-
# wide cache, filled by one session per parameter set while the others wait for it.
# Nothing derived from an upload ever goes here.
_SHARED_SIZE = 16
_shared: OrderedDict[str, Release] = OrderedDict()
_shared_lock = threading.Lock()
_computing: dict[str, threading.Lock] = {}


def run(dataset: Dataset, schema: Schema, params: dict[str, Any], *, label: str) -> Release:
    """Run (or reuse) one anonymization, with a progress bar.

    The schema is first restricted to the QIs and SAs chosen in ``params``
    (:func:`restricted_schema`). Releases are cached in this session by data
    fingerprint, that schema and the parameters (a changed slider or column choice back
    to a value seen before costs nothing); releases of a bundled
    sample are also shared by all sessions of the process. A click on Cancel reruns
    the page, which interrupts the algorithm at its next progress report. Failures are
    recorded in the history and re-raised.
    """
    schema = restricted_schema(schema, params)
    key = json.dumps(
        [dataset.fingerprint.sha256, schema.to_dict(), params], sort_keys=True, default=str
    )
    cache: OrderedDict[str, Release] = st.session_state.setdefault(_CACHE, OrderedDict())
    if key in cache:
        cache.move_to_end(key)
        return cache[key]
    if is_bundled(dataset):
        release = _shared_run(dataset, schema, params, key, label)
    else:
        release = _compute(dataset, schema, params, label)
    cache[key] = release
    while len(cache) > _CACHE_SIZE:
        cache.popitem(last=False)
    return release


def _shared_run(
    dataset: Dataset, schema: Schema, params: dict[str, Any], key: str, label: str
) -> Release:
    with _shared_lock:
        lock = _computing.setdefault(key, threading.Lock())
    waiting = None
    # Poll rather than block, so that this session's own reruns (a slider moved, Cancel)
    # still interrupt it at the progress call.
    while not lock.acquire(timeout=0.2):
        if waiting is None:
            waiting = st.progress(0.0, text=f"{label}: {t('an.waiting_shared')}")
        waiting.progress(0.0, text=f"{label}: {t('an.waiting_shared')}")
    try:
        if waiting is not None:
            waiting.empty()
        with _shared_lock:
            if key in _shared:
                _shared.move_to_end(key)
                return _shared[key]
        release = _compute(dataset, schema, params, label)
        with _shared_lock:
            _shared[key] = release
            while len(_shared) > _SHARED_SIZE:
                _shared.popitem(last=False)
        return release
    finally:
        lock.release()
        with _shared_lock:
            _computing.pop(key, None)


def _compute(dataset: Dataset, schema: Schema, params: dict[str, Any], label: str) -> Release:
    bar = st.progress(0.0, text=label)

    def progress(fraction: float, message: str) -> None:
        bar.progress(fraction, text=f"{label}: {message}")

    started = time.perf_counter()
    try:
        return anonymize(
            dataset.frame,
            schema,
            models_of(params),
            algorithm=params["algorithm"],
            max_suppression=params["max_suppression"],
            seed=params["seed"],
            progress=progress,
            **options_of(params),
        )
    except PrivcoreError as exc:
        record(
            "anonymize",
            params=params,
            results={},
            dataset=dataset,
            page="anonymize",
            duration_s=time.perf_counter() - started,
            status="error",
            error=exc.message,
        )
        raise
    finally:
        bar.empty()


# --------------------------------------------------------------------------- views


def render(release: Release, original: pd.DataFrame, *, run_id: int | None) -> None:
    measured = release.measurement.to_dict()
    if run_id is not None:
        st.caption(t("an.recorded", id=run_id, seconds=f"{release.timings['total']:.2f}"))
    st.caption(
        t(
            "an.columns_used",
            qi=", ".join(release.qi),
            sa=", ".join(release.sa),
        )
    )
    for note in release.notes:
        st.info(escape_md(note), icon=":material/info:")
    if release.synthetic:
        # Synthetic records are all distinct: the models hold for the condensation groups.
        group_sizes = np.bincount(release.class_ids[release.class_ids >= 0])
        k_achieved = int(group_sizes[group_sizes > 0].min())
        cards = [
            (
                t_plain("an.groups"),
                " · ".join(model_from_dict(m).requirement() for m in release.params["constraints"]),
                "pass" if release.satisfied else "fail",
                t_plain("an.groups_detail", groups=int((group_sizes > 0).sum())),
            )
        ]
    else:
        k_achieved = measured["k"]
        cards = [
            (
                v["model"],
                v["requirement"],
                "pass" if v["passed"] else "fail",
                t_plain("an.verdict_detail", rows=v["violating_rows"]),
            )
            for v in measured["verdicts"]
        ]
    verdict_row(cards)
    c1, c2, c3, c4, c5, c6 = st.columns(6)
    explained_metric(c1, t("pl.k_achieved"), k_achieved, "explain.k")
    explained_metric(c2, t("an.suppressed"), release.n_suppressed, "explain.suppressed", 0)
    explained_metric(c3, "GCP", release.loss.get("gcp", release.loss.get("ncp")), "explain.gcp")
    explained_metric(c4, "PL", measured["pl"]["all"], "explain.pl")
    explained_metric(c5, "UL", measured["ul"], "explain.ul")
    real = measured["real_records"]
    explained_metric(c6, t("an.real_records"), real["any"], "explain.real_records", 0)
    if real["any"]:
        st.caption(t("an.real_records_detail", any=real["any"], own=real["own"]))

    tabs = st.tabs(
        [
            t("an.tab_tables"),
            t("tab.classes"),
            t("tab.charts"),
            t("an.tab_lattice"),
            t("tab.download"),
        ]
    )
    with tabs[0]:
        side_by_side(release, original)
    with tabs[1]:
        render_class_table(
            release.measurement.models.class_table,
            release.measurement.classes,
            release.frame,
            key="an_classes",
        )
    with tabs[2]:
        chart(
            release,
            "sizes",
            lambda: class_size_histogram(release.measurement.classes.sizes, measured["k"]),
        )
        if release.record_levels:
            chart(release, "levels", lambda: level_chart(release))
        else:  # local recoding (Mondrian) and synthetic records have no hierarchy levels
            st.info(t("an.no_levels"), icon=":material/info:")
        loss = {k: v for k, v in release.loss.items() if isinstance(v, (int, float))}
        st.dataframe(
            pd.DataFrame({"metric": list(loss), "value": list(loss.values())}), hide_index=True
        )
    with tabs[3]:
        if release.lattice is None:
            st.info(t("an.no_lattice"), icon=":material/info:")
        else:
            chart(release, "lattice", lambda: lattice_chart(release))
            caption = (
                "an.lattice_caption_tagged"
                if release.algorithm == "optimal"
                else ("an.lattice_caption")
            )
            st.caption(
                t(
                    caption,
                    evaluated=release.params.get("evaluated_nodes"),
                    size=release.params.get("lattice_size"),
                )
            )
    with tabs[4]:
        downloads(release)


_SPECS: weakref.WeakKeyDictionary[Release, dict[tuple[str, str], dict]] = (
    weakref.WeakKeyDictionary()
)
_SPECS_LOCK = threading.Lock()


def chart(release: Release, name: str, build: Callable[[], alt.TopLevelMixin]) -> None:
    """Show a chart of ``release``. Its Vega-Lite spec is built once per release and
    language and kept while the release lives: a rerun (a widget elsewhere on the page)
    and the sessions sharing a bundled sample's release reuse it."""
    key = (name, current_language())
    with _SPECS_LOCK:
        spec = _SPECS.setdefault(release, {}).get(key)
    if spec is None:
        with alt.data_transformers.disable_max_rows():
            spec = build().to_dict()
        with _SPECS_LOCK:
            _SPECS.setdefault(release, {})[key] = spec
    st.vega_lite_chart(spec=spec, width="stretch")


def side_by_side(release: Release, original: pd.DataFrame, rows: int = 200) -> None:
    """The first rows of the original and of the release; changed cells highlighted."""
    left, right = st.columns(2)
    shown_original = original.head(rows)
    shown_release = release.frame.head(rows)
    left.markdown(f"**{t('an.original')}**")
    left.dataframe(shown_original, hide_index=True)
    right.markdown(f"**{t('an.release')}**")
    changed = pd.DataFrame(False, index=shown_release.index, columns=shown_release.columns)
    for column in release.qi:
        if column in shown_original.columns:
            changed[column] = (
                shown_release[column].astype(str).to_numpy()
                != shown_original[column].astype(str).to_numpy()
            )
    styled = shown_release.style.apply(
        lambda col: [
            "background-color: rgba(191, 135, 0, 0.18)" if c else "" for c in changed[col.name]
        ],
        axis=0,
    )
    right.dataframe(styled, hide_index=True)
    st.caption(t("an.tables_caption", rows=min(rows, len(original))))


def level_chart(release: Release) -> alt.Chart:
    """Generalization level of each QI (share of records at each level)."""
    rows = []
    for column in release.qi:
        hierarchy_levels = (release.record_levels or {}).get(column)
        if hierarchy_levels is None:
            continue
        levels, counts = np.unique(hierarchy_levels, return_counts=True)
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


_STATUS_COLOURS = {
    "satisfied": PASS,
    "not satisfied": FAIL,
    "tagged satisfied": "#8fd19e",
    "tagged not satisfied": "#f3a6ac",
    "not visited": MUTED,
}


def lattice_chart(release: Release) -> alt.Chart:
    """Lattice nodes by height, coloured by how the search met them; the chosen node
    is ringed. A teaching view of how Samarati, Incognito and the optimal search walk."""
    nodes = release.lattice.nodes.copy()
    nodes["position"] = nodes.groupby("height").cumcount()
    width = nodes.groupby("height")["position"].transform("max").replace(0, 1)
    nodes["x"] = nodes["position"] / width
    chosen = "(" + ", ".join(map(str, release.lattice.chosen or ())) + ")"
    nodes["chosen"] = nodes["node"] == chosen
    tooltip = [
        "node:N",
        "height:Q",
        "status:N",
        "order:Q",
        "suppressed:Q",
        alt.Tooltip("loss:Q", format=".4f"),
    ]
    base = alt.Chart(nodes, title=t("an.lattice_title")).encode(
        x=alt.X("x:Q", axis=None),
        y=alt.Y("height:Q", title=t("an.height")),
    )
    points = base.mark_circle(size=60).encode(
        color=alt.Color(
            "status:N",
            title=t("an.status"),
            scale=alt.Scale(domain=list(_STATUS_COLOURS), range=list(_STATUS_COLOURS.values())),
        ),
        tooltip=tooltip,
    )
    ring = base.transform_filter("datum.chosen").mark_point(
        size=400, color=ACCENT, strokeWidth=3, filled=False
    )
    label = (
        base.transform_filter("datum.chosen").mark_text(dy=-18, color=WARN).encode(text="node:N")
    )
    return (points + ring + label).properties(height=420)


def downloads(release: Release) -> None:
    keep = st.checkbox(
        t("an.keep_order"), value=False, help=t("an.keep_order_help"), key="an_keep_order"
    )
    st.download_button(
        t("an.download_release"),
        # built on click, on its own thread: not on every rerun of the page
        data=lambda: to_csv_bytes(release.export(shuffle=not keep)),
        file_name=f"release_{release.algorithm}.csv",
        mime="text/csv",
        on_click="ignore",
    )
    st.download_button(
        t("an.download_spec"),
        data=lambda: release.spec_json().encode("utf-8"),  # fingerprints: built on click
        file_name=f"release_{release.algorithm}_spec.json",
        mime="application/json",
        on_click="ignore",
        help=t("an.download_spec_help"),
    )
    st.download_button(
        t("an.download_report"),
        data=json.dumps(report_of(release), ensure_ascii=False, indent=2, default=str).encode(
            "utf-8"
        ),
        file_name=f"release_{release.algorithm}_report.json",
        mime="application/json",
        on_click="ignore",
    )


def report_of(release: Release) -> dict[str, Any]:
    """The downloadable report: the release summary with the QIs and SAs of the run."""
    return {**release.to_dict(), "qi": list(release.qi), "sa": list(release.sa)}


def compare(dataset: Dataset, schema: Schema, params: dict[str, Any]) -> None:
    """Run several algorithms on the same constraints and column choice (``params``)
    and table their results."""
    chosen = st.multiselect(
        t("an.compare_algorithms"),
        list(ALGORITHMS),
        default=["datafly", "optimal", "mondrian"]
        if "mondrian" in ALGORITHMS
        else list(FULL_DOMAIN)[:2],
        format_func=lambda a: t(f"alg.{a}"),
        key="an_compare",
    )
    if not st.button(t("an.compare_run"), key="an_compare_run"):
        return
    rows = []
    common = {k: v for k, v in params.items() if k not in ("loss_metric", "summary")}
    for algorithm in chosen:
        run_params = {**common, "algorithm": algorithm}
        if algorithm in ("samarati", "incognito", "optimal"):
            run_params["loss_metric"] = params.get("loss_metric", "ncp")
        if algorithm == "mondrian":
            run_params["summary"] = params.get("summary", "range")
        try:
            release = run(dataset, schema, run_params, label=t(f"alg.{algorithm}"))
        except PrivcoreError as exc:
            rows.append({"algorithm": t(f"alg.{algorithm}"), "k": None, "error": exc.message})
            continue
        out = release.to_dict()
        record(
            "anonymize",
            params=run_params,
            results=release.history_summary(),
            dataset=dataset,
            page="anonymize",
            duration_s=release.timings["total"],
        )
        rows.append(
            {
                "algorithm": t(f"alg.{algorithm}"),
                "k": out["k"],
                "satisfied": out["satisfied"],
                "suppressed": out["suppressed_rows"],
                "classes": out["classes"],
                "GCP": out["loss"].get("gcp", out["loss"].get("ncp")),
                "discernibility": out["loss"].get("discernibility"),
                "precision": out["loss"].get("precision"),
                "PL": out["pl"],
                "UL": out["ul"],
                "seconds": out["seconds"],
                "error": "",
            }
        )
    st.dataframe(
        pd.DataFrame(rows),
        hide_index=True,
        column_config={
            "GCP": st.column_config.NumberColumn(format="%.4f"),
            "PL": st.column_config.NumberColumn(format="%.3f"),
            "UL": st.column_config.NumberColumn(format="%.3f"),
            "precision": st.column_config.NumberColumn(format="%.3f"),
            "seconds": st.column_config.NumberColumn(format="%.3f"),
        },
    )


def fmt_node(release: Release) -> str:
    if release.node is None:
        return "—"
    return ", ".join(f"{q}={lv}" for q, lv in zip(release.qi, release.node, strict=True))


__all__ = ["compare", "controls", "fmt", "render", "restricted_schema", "run"]
