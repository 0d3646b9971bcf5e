"""Controls, runs and result views of the Anonymize page.

The controls are kept per session and per data set (:func:`ui.state.keep`); their
choices, ranges and defaults come from :mod:`privcore.runs.registry` and the
:class:`~privcore.runs.AnonymizeRequest` they build. :func:`expected_seconds` says whether
an algorithm is quick enough on this table to run as the controls change.
"""

from __future__ import annotations

import json
import math
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import altair as alt
import numpy as np
import pandas as pd
import streamlit as st

from privcore import history
from privcore.anonymize import Release
from privcore.data import Dataset, Schema, to_csv_bytes
from privcore.errors import PrivcoreError
from privcore.models import model_from_dict
from privcore.runs import AnonymizeRequest, Inputs, Outcome, compute, run
from privcore.runs.registry import ALGORITHMS, OPTIONS
from ui.charts import ACCENT, FAIL, MUTED, PASS, WARN
from ui.components import escape_md, explained_metric, verdict_row
from ui.ec_table import class_size_histogram, render_class_table
from ui.i18n import current_language, labels, t, t_plain
from ui.progress import progress_bar
from ui.state import ShelfRelease, Workbench, is_bundled, keep, session_owner
from ui.words import figure_label, model_title, note_text, requirement
from ui.workspace import algorithm_title, choice_title, file_stem

DEFAULTS = AnonymizeRequest()
LIVE_LIMIT_S = 1.0  # live update only for runs expected to take about a second at most
K_SLIDER_TOP = 100  # the slider's range (the registry sets no upper bound on k)
SUPPRESSION_STEP = 0.5  # the suppression slider's step, in percent

# --------------------------------------------------------------------------- controls


def _choices(option: str) -> list[str]:
    return list(OPTIONS[option].allowed() or ())


def controls(schema: Schema, *, scope: str) -> dict[str, Any]:
    """The parameter widgets (kept per data set ``scope``); returns the values of an
    :class:`~privcore.runs.AnonymizeRequest` (JSON-able).

    ``qi`` and ``sa`` are the quasi-identifiers and sensitive attributes of the
    confirmed schema chosen for this run (all of them by default), in schema order.
    """

    def within(options: list[str]) -> Callable[[Any], bool]:
        return lambda chosen: isinstance(chosen, list) and set(chosen) <= set(options)

    def among(options: list[str]) -> Callable[[Any], bool]:
        return lambda chosen: chosen in options

    qi = st.multiselect(
        t("an.qi"),
        schema.quasi_identifiers,
        default=schema.quasi_identifiers,
        help=t("an.qi_help"),
        placeholder=t("an.choose_columns"),
        key=keep("an_qi", scope=scope, valid=within(schema.quasi_identifiers)),
    )
    sa = st.multiselect(
        t("an.sa"),
        schema.sensitive,
        default=schema.sensitive,
        help=t("an.sa_help"),
        placeholder=t("an.choose_columns"),
        key=keep("an_sa", scope=scope, valid=within(schema.sensitive)),
    )
    algorithms = list(ALGORITHMS)
    algorithm = st.selectbox(
        t("an.algorithm"),
        algorithms,
        index=algorithms.index(DEFAULTS.algorithm),
        format_func=labels(algorithms, algorithm_title),
        help=t("an.algorithm_help"),
        key=keep("an_algorithm", scope=scope, valid=among(algorithms)),
    )
    st.caption(choice_title(f"alg.{algorithm}.about", ALGORITHMS[algorithm].source))
    k_low = int(OPTIONS["k"].minimum or 1)
    k = st.slider(
        "k", k_low, K_SLIDER_TOP, DEFAULTS.k, help=t("help.k"), key=keep("an_k", scope=scope)
    )
    use_l = st.checkbox(t("an.use_l"), key=keep("an_use_l", scope=scope))
    l_kind, l_value, c = DEFAULTS.l_kind, 2.0, DEFAULTS.c
    if use_l:
        kinds = _choices("l_kind")
        l_kind = st.selectbox(
            t("pl.l_kind"),
            kinds,
            format_func=labels(kinds, lambda x: choice_title(f"pl.l_kind_{x}", x)),
            key=keep("an_l_kind", scope=scope, valid=among(kinds)),
        )
        l_value = st.number_input(
            "l", float(OPTIONS["l"].minimum or 1.0), 50.0, 2.0, 1.0, key=keep("an_l", scope=scope)
        )
        if l_kind == "recursive":
            c = st.number_input("c", 0.1, 100.0, DEFAULTS.c, 0.5, key=keep("an_c", scope=scope))
    use_t = st.checkbox(t("an.use_t"), key=keep("an_use_t", scope=scope))
    t_value, distance = 0.3, DEFAULTS.t_distance
    if use_t:
        t_value = st.number_input(
            "t", float(OPTIONS["t"].minimum or 0.0), 5.0, 0.3, 0.05, key=keep("an_t", scope=scope)
        )
        distances = _choices("t_distance")
        distance = st.selectbox(
            t("pl.t_distance"),
            distances,
            format_func=labels(distances, lambda d: choice_title(f"distance.{d}", d)),
            key=keep("an_distance", scope=scope, valid=among(distances)),
        )
    top = float(OPTIONS["max_suppression"].maximum or 1.0)
    suppression = st.slider(
        t("an.max_suppression"),
        0.0,
        min(50.0, 100.0 * top),
        100.0 * DEFAULTS.max_suppression,
        SUPPRESSION_STEP,
        format="%.1f %%",
        help=t("an.max_suppression_help"),
        key=keep("an_sup", scope=scope),
    )
    values: dict[str, Any] = {
        # schema order, not click order: the same choice is the same request
        "qi": [c for c in schema.quasi_identifiers if c in qi],
        "sa": [c for c in schema.sensitive if c in sa],
        "algorithm": algorithm,
        "k": int(k),
        "l": float(l_value) if use_l else None,
        "l_kind": l_kind,
        "c": float(c),
        "t": float(t_value) if use_t else None,
        "t_distance": distance,
        "max_suppression": round(float(suppression) / 100.0, 6),
    }
    options = ALGORITHMS[algorithm].options
    if "loss_metric" in options:
        metrics = _choices("loss_metric")
        values["loss_metric"] = st.selectbox(
            t("an.loss_metric"),
            metrics,
            index=metrics.index(DEFAULTS.loss_metric),
            format_func=labels(metrics, lambda m: choice_title(f"metric.{m}", m)),
            key=keep("an_metric", scope=scope, valid=among(metrics)),
        )
    if "summary" in options:
        summaries = _choices("summary")
        values["summary"] = st.radio(
            t("an.summary"),
            summaries,
            horizontal=True,
            format_func=labels(summaries, lambda s: choice_title(f"an.summary_{s}", s)),
            key=keep("an_summary", scope=scope, valid=among(summaries)),
        )
    seed_top = int(min(OPTIONS["seed"].maximum or 2**31 - 1, 2**53 - 1))
    values["seed"] = int(
        st.number_input(t("an.seed"), 0, seed_top, DEFAULTS.seed, key=keep("an_seed", scope=scope))
    )
    return values


def controls_for(request: Mapping[str, Any]) -> dict[str, Any]:
    """The widget values that ask for ``request`` (an AnonymizeRequest's values): what a
    verdict's action sets before it opens the Anonymize page."""
    values = {**DEFAULTS.to_dict(), **{k: v for k, v in request.items() if v is not None}}
    out: dict[str, Any] = {
        "an_algorithm": values["algorithm"],
        "an_k": int(values["k"]),
        "an_use_l": request.get("l") is not None,
        "an_use_t": request.get("t") is not None,
        "an_sup": round(100.0 * float(values["max_suppression"]), 6),
        "an_seed": int(values["seed"]),
        "an_metric": values["loss_metric"],
        "an_summary": values["summary"],
    }
    if request.get("qi"):
        out["an_qi"] = list(request["qi"])
    if request.get("sa"):
        out["an_sa"] = list(request["sa"])
    if request.get("l") is not None:
        out.update(an_l=float(values["l"]), an_l_kind=values["l_kind"], an_c=float(values["c"]))
    if request.get("t") is not None:
        out.update(an_t=float(values["t"]), an_distance=values["t_distance"])
    return out


# --------------------------------------------------------------------------- estimate

#: Cost model of one run on this machine (seconds per row and per quasi-identifier),
#: measured on Adult (30,162 rows, 8 QIs, a lattice of 4,320 nodes): the release's own
#: measurement costs ``_FIXED``; a full-domain search ``_PER_NODE`` more for every lattice
#: node it checks; local recoding and condensation grow with n log n.
_FIXED = 6e-7
_PER_NODE = 5.4e-9
_PER_LOG_ROW = {"mondrian": 7.8e-8, "condensation": 2.1e-7}
_PER_ROW = {"kaca": 4.5e-6}


def lattice_shape(schema: Schema, qi: list[str]) -> tuple[int, int]:
    """(lattice size, total height) of the full-domain lattice over ``qi``: the product
    of (levels) and the sum of (levels − 1) of their hierarchies (a QI without one has two
    levels: the value, or ``*``)."""
    heights = [getattr(schema.hierarchies.get(q), "height", 1) for q in qi]
    return math.prod(h + 1 for h in heights), sum(heights)


def expected_nodes(algorithm: str, size: int, height: int, n_qi: int) -> int:
    """Lattice nodes a full-domain search is expected to check: Datafly one per level it
    climbs (height + 1); Samarati whole levels of its binary search (0.4 of the lattice);
    Incognito and the optimal search prune by monotonicity (3 × (height + 1) per QI, at
    most the lattice)."""
    if algorithm == "datafly":
        return height + 1
    if algorithm == "samarati":
        return max(1, math.ceil(0.4 * size))
    return min(size, 3 * (height + 1) * max(n_qi, 1))


def expected_seconds(algorithm: str, rows: int, n_qi: int, size: int, height: int) -> float:
    """Expected duration of one run: rows × QIs × (``_FIXED`` + ``_PER_NODE`` × expected
    nodes) for a full-domain search; rows × log2(rows) × QIs × a constant for Mondrian
    and condensation; rows × QIs × a constant for KACA."""
    rows, n_qi = max(int(rows), 1), max(int(n_qi), 1)
    if algorithm in _PER_LOG_ROW:
        return rows * math.log2(rows + 1) * n_qi * _PER_LOG_ROW[algorithm]
    if algorithm in _PER_ROW:
        return rows * n_qi * _PER_ROW[algorithm]
    nodes = expected_nodes(algorithm, size, height, n_qi)
    return rows * n_qi * (_FIXED + _PER_NODE * nodes)


TIMINGS = "an_timings"


def estimate(dataset: Dataset, schema: Schema, values: Mapping[str, Any]) -> tuple[float, bool]:
    """(seconds, measured): the last duration of this algorithm on this table and these
    columns in this session, else :func:`expected_seconds`."""
    qi = list(values["qi"])
    measured = st.session_state.get(TIMINGS, {}).get(_timing_key(dataset, values))
    if measured is not None:
        return float(measured), True
    size, height = lattice_shape(schema, qi)
    return expected_seconds(values["algorithm"], dataset.n_rows, len(qi), size, height), False


def _timing_key(dataset: Dataset, values: Mapping[str, Any]) -> tuple:
    return (dataset.fingerprint.sha256, values["algorithm"], tuple(values["qi"]))


def note_timing(dataset: Dataset, values: Mapping[str, Any], seconds: float) -> None:
    st.session_state.setdefault(TIMINGS, {})[_timing_key(dataset, values)] = float(seconds)


# --------------------------------------------------------------------------- runs

# Releases of the bundled (public) samples are the same for every visitor: one process-
# wide cache, filled by one session per request while the others wait for it. Nothing
# derived from an upload ever goes here.
_SHARED_SIZE = 16
_shared: OrderedDict[str, tuple] = OrderedDict()
_shared_lock = threading.Lock()
_computing: dict[str, threading.Lock] = {}


def make(
    dataset: Dataset,
    schema: Schema,
    request: AnonymizeRequest,
    *,
    label: str,
    page: str = "anonymize",
) -> Outcome:
    """Run one anonymization through :func:`privcore.runs.run` (recorded in the
    history: ok, error or cancelled), with a progress bar. The schema is restricted to
    the request's QIs and SAs (an empty choice is refused by the library, and recorded).
    A release of a bundled sample is computed once per process for all visitors
    (``Inputs.work``); each visitor's run is recorded all the same — a run served from
    that cache with ``cached: true`` in its results and without the release's compute
    time (``seconds``), which it did not spend (its parameters are a computed run's).
    A click on Cancel reruns the page, which stops the algorithm at its next progress
    report."""
    inputs = Inputs(original=dataset, schema=schema.restricted(request.qi, request.sa))
    if is_bundled(dataset):
        key = json.dumps(
            [dataset.fingerprint.sha256, inputs.schema.to_dict(), request.to_dict()],
            sort_keys=True,
            default=str,
        )
        plain_inputs = inputs

        def served(progress) -> tuple:
            (result, summary, *more), cached = _shared_compute(
                key, lambda: compute(request, plain_inputs, progress), progress
            )
            if cached:
                summary = {k: v for k, v in summary.items() if k != "seconds"}
                summary["cached"] = True
            return (result, summary, *more)

        inputs = replace(inputs, work=served)
    with progress_bar(label) as bar:
        return run(request, inputs, progress=bar, owner=session_owner(), page=page)


def served_from_cache(outcome: Outcome) -> bool:
    """Was this run's result taken from the process-wide cache of bundled samples?"""
    return bool(outcome.summary.get("cached"))


def _shared_compute(key: str, work: Callable[[], tuple], progress) -> tuple[tuple, bool]:
    """``work()`` once per ``key`` in this process: the first session computes it while
    the others wait (their progress says so, and Cancel still stops them). Returns the
    result and whether it came from the cache."""
    with _shared_lock:
        lock = _computing.setdefault(key, threading.Lock())
    # Poll rather than block, so that this session's own reruns (a slider moved, Cancel)
    # still interrupt it at the progress call.
    while not lock.acquire(timeout=0.2):
        progress(0.0, t_plain("an.waiting_shared"))
    try:
        with _shared_lock:
            if key in _shared:
                _shared.move_to_end(key)
                return _shared[key], True
        result = work()
        with _shared_lock:
            _shared[key] = result
            while len(_shared) > _SHARED_SIZE:
                _shared.popitem(last=False)
        return result, False
    finally:
        lock.release()
        with _shared_lock:
            _computing.pop(key, None)


# --------------------------------------------------------------------------- live runs

#: A live run (a control changed, live update on) this soon after the previous live run
#: finished, with nothing else done in between, continues its burst: the history keeps
#: one row per settled parameter set — the last of a burst — not one per slider step.
BURST_SECONDS = 10.0
LIVE = "an_live_runs"  # per data set: {"burst": _Burst | None, "settled": newest run id}
CACHED = "an_cached"  # release id → seconds of the run that took it from the cache


@dataclass
class _Burst:
    """Live runs of one burst: history ids and the shelf releases they made, oldest
    first; when the last one finished (monotonic)."""

    runs: list[int] = field(default_factory=list)
    releases: list[str] = field(default_factory=list)
    at: float = 0.0


def _newest_run(owner: str) -> int:
    """The id of this session's newest run in the history (0: none, or no history)."""
    try:
        newest = history.list_runs(owner=owner, limit=1)
    except PrivcoreError:
        return 0
    return int(newest[0]["id"]) if newest else 0


def _live(scope: str) -> dict[str, Any]:
    return st.session_state.setdefault(LIVE, {}).setdefault(scope, {"burst": None, "settled": 0})


def settle_live(scope: str, owner: str) -> None:
    """The parameters have settled: a run of the workspace that is no live update (the
    page opened, Run or Cancel pressed, a verdict's action, a release renamed) ends the
    burst — its last run stays — and marks the history as it stands now: rows written
    until then (an explicit Cancel included) are never dropped as intermediate steps."""
    state = _live(scope)
    state["burst"] = None
    state["settled"] = _newest_run(owner)


def record_live(wb: Workbench, scope: str, outcome: Outcome, made: ShelfRelease) -> list[str]:
    """A live run finished and put ``made`` on the shelf. When it continues a burst
    (within :data:`BURST_SECONDS` of the previous live run), the burst's earlier runs
    are intermediate steps: their history rows, the runs cancelled by the next step
    since the parameters last settled, and their releases on the shelf are dropped
    (renaming or reviewing a release reruns the page without a live step, which settles
    it first). Returns the names dropped from the shelf."""
    owner = session_owner()
    state = _live(scope)
    burst: _Burst | None = state["burst"]
    now = time.monotonic()
    dropped: list[str] = []
    superseded: list[int] = []
    if burst is not None and now - burst.at <= BURST_SECONDS:
        for release_id, run_id in zip(burst.releases, burst.runs, strict=True):
            entry = wb.find_release(release_id)
            if entry is made:
                continue
            if entry is not None:
                wb.remove_release(release_id)
                dropped.append(entry.name)
            superseded.append(run_id)
    else:  # a pause: the previous burst's last run has settled
        if burst is not None:
            state["settled"] = max([state["settled"], *burst.runs])
        state["burst"] = burst = _Burst()
    superseded += _interrupted_runs(owner, after=state["settled"], before=outcome.run_id)
    for run_id in superseded:
        try:
            history.delete_run(run_id, owner=owner)
        except PrivcoreError:
            break  # the history is unavailable now: the rows stay
    if outcome.run_id is not None:
        burst.runs = [outcome.run_id]
        burst.releases = [made.id]
    burst.at = now
    return dropped


def _interrupted_runs(owner: str, *, after: int, before: int | None) -> list[int]:
    """Anonymize runs of this page that a later live step interrupted (recorded as
    cancelled) since the parameters last settled (ids between ``after`` and
    ``before``)."""
    if before is None:
        return []
    try:
        runs = history.list_runs(kind="anonymize", owner=owner, limit=200)
    except PrivcoreError:
        return []
    return [
        int(r["id"])
        for r in runs
        if after < int(r["id"]) < before and r["status"] == "cancelled" and r["page"] == "anonymize"
    ]


# --------------------------------------------------------------------------- views


def render(entry: ShelfRelease, original: pd.DataFrame) -> None:
    """The release ``entry`` made here: verdicts, figures, tables, charts, lattice and
    downloads."""
    release: Release = entry.release
    measured = release.measurement.to_dict()
    st.caption(
        t(
            "an.columns_used",
            qi=", ".join(release.qi),
            sa=", ".join(release.sa),
        )
    )
    for note in release.notes:
        st.info(escape_md(note_text(note, current_language())), icon=":material/info:")
    if release.synthetic:
        # Synthetic records are all distinct: the models hold for the condensation groups.
        group_sizes = np.bincount(release.class_ids[release.class_ids >= 0])
        k_achieved = int(group_sizes[group_sizes > 0].min())
        cards = [
            (
                t_plain("an.groups"),
                " · ".join(
                    requirement(m, model_from_dict(m).requirement(), current_language())
                    for m in release.params["constraints"]
                ),
                "pass" if release.satisfied else "fail",
                t_plain("an.groups_detail", groups=int((group_sizes > 0).sum())),
            )
        ]
    else:
        k_achieved = measured["k"]
        cards = [
            (
                model_title(v.get("parameters"), v["model"], current_language()),
                requirement(v.get("parameters"), v["requirement"], current_language()),
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
        lang = current_language()
        loss = {
            figure_label(k, lang): v
            for k, v in release.loss.items()
            if isinstance(v, (int, float)) and not isinstance(v, bool)
        }
        st.dataframe(
            pd.DataFrame(
                {t_plain("figure.name"): list(loss), t_plain("figure.value"): list(loss.values())}
            ),
            hide_index=True,
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
        downloads(entry)


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
    if original[[c for c in release.qi if c in original.columns]].isna().to_numpy().any():
        st.caption(t("an.missing_caption"))


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
        data=lambda: release.spec_json().encode("utf-8"),  # fingerprints: built on click
        file_name=f"{stem}_spec.json",
        mime="application/json",
        on_click="ignore",
        help=t("an.download_spec_help"),
    )
    st.download_button(
        t("an.download_report"),
        data=json.dumps(
            {"release": entry.name, **report_of(release)},
            ensure_ascii=False,
            indent=2,
            default=str,
        ).encode("utf-8"),
        file_name=f"{stem}_report.json",
        mime="application/json",
        on_click="ignore",
    )


def report_of(release: Release) -> dict[str, Any]:
    """The downloadable report: the release summary with the QIs and SAs of the run."""
    return {**release.to_dict(), "qi": list(release.qi), "sa": list(release.sa)}


def compare(dataset: Dataset, schema: Schema, values: Mapping[str, Any]) -> None:
    """Run several algorithms on the same models and column choice (``values``, the
    page's controls) when asked, and table their results; each run is recorded."""
    algorithms = list(ALGORITHMS)
    chosen = st.multiselect(
        t("an.compare_algorithms"),
        algorithms,
        default=[a for a in ("datafly", "optimal", "mondrian") if a in algorithms],
        format_func=labels(algorithms, algorithm_title),
        key=keep("an_compare"),
    )
    if not st.button(t("an.compare_run"), key="an_compare_run"):
        return
    rows = []
    for algorithm in chosen:
        own = ALGORITHMS[algorithm].options
        common = {k: v for k, v in values.items() if k not in ("loss_metric", "summary")}
        request_values = {
            **common,
            **{k: values.get(k, getattr(DEFAULTS, k)) for k in own},
            "algorithm": algorithm,
        }
        try:
            outcome = make(
                dataset,
                schema,
                AnonymizeRequest(**request_values),
                label=algorithm_title(algorithm),
            )
        except PrivcoreError as exc:
            from ui.i18n import error_text

            rows.append(
                {"algorithm": algorithm_title(algorithm), "k": None, "error": error_text(exc)}
            )
            continue
        out = outcome.result.to_dict()
        rows.append(
            {
                "algorithm": algorithm_title(algorithm),
                "k": out["k"],
                "satisfied": out["satisfied"],
                "suppressed": out["suppressed_rows"],
                "classes": out["classes"],
                "GCP": out["loss"].get("gcp", out["loss"].get("ncp")),
                "discernibility": out["loss"].get("discernibility"),
                "precision": out["loss"].get("precision"),
                "PL": out["pl"],
                "UL": out["ul"],
                # a run served from the cache spent no compute time of its own
                "seconds": None if served_from_cache(outcome) else out["seconds"],
                "cached": served_from_cache(outcome),
                "run": outcome.run_id,
                "error": "",
            }
        )
    st.dataframe(
        pd.DataFrame(rows),
        hide_index=True,
        column_config={
            **{
                name: st.column_config.Column(t_plain(f"an.cmp.{name}"))
                for name in (
                    "algorithm",
                    "k",
                    "satisfied",
                    "suppressed",
                    "classes",
                    "discernibility",
                    "cached",
                    "run",
                    "error",
                )
            },
            "GCP": st.column_config.NumberColumn(format="%.4f"),
            "PL": st.column_config.NumberColumn(format="%.3f"),
            "UL": st.column_config.NumberColumn(format="%.3f"),
            "precision": st.column_config.NumberColumn(t_plain("an.cmp.precision"), format="%.3f"),
            "seconds": st.column_config.NumberColumn(t_plain("an.cmp.seconds"), format="%.3f"),
        },
    )


__all__ = [
    "compare",
    "controls",
    "controls_for",
    "estimate",
    "expected_seconds",
    "make",
    "render",
]
