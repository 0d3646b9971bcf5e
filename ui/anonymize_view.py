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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
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
from privcore.runs import AnonymizeRequest, Inputs, Outcome
from privcore.runs.registry import ALGORITHMS, OPTIONS
from privcore.words.labels import figure_label, model_title, note_text, requirement
from ui import risk_utility
from ui.charts import ACCENT, FAIL, MUTED, PASS, WARN
from ui.components import (
    escape_md,
    explained_metric,
    loss_headline_metric,
    loss_name,
    verdict_row,
)
from ui.ec_table import class_size_histogram, render_class_table
from ui.heavy import cancel_pressed, heavy_button, run_heavy
from ui.i18n import current_language, labels, t, t_plain
from ui.progress import progress_bar
from ui.shared import shared_run_inputs
from ui.state import ShelfRelease, Workbench, is_bundled, keep, session_owner
from ui.workspace import algorithm_title, choice_title, file_stem

DEFAULTS = AnonymizeRequest()
LIVE_LIMIT_S = 1.0  # live update only for runs expected to take about a second at most
K_SLIDER_TOP = 100  # the slider's range (the registry sets no upper bound on k)
SUPPRESSION_STEP = 0.5  # the suppression slider's step, in percent

# --------------------------------------------------------------------------- controls


def _choices(option: str) -> list[str]:
    return list(OPTIONS[option].allowed() or ())


def controls(
    schema: Schema, *, scope: str, algorithms: Sequence[str] | None = None
) -> dict[str, Any]:
    """The parameter widgets (kept per data set ``scope``); returns the values of an
    :class:`~privcore.runs.AnonymizeRequest` (JSON-able).

    ``qi`` and ``sa`` are the quasi-identifiers and sensitive attributes of the
    confirmed schema chosen for this run (all of them by default), in schema order.
    ``algorithms``: the algorithms offered (all by default; an engine table offers those
    that run on a frequency set, and the page says why the others are not).
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
    algorithms = list(ALGORITHMS if algorithms is None else algorithms)
    algorithm = st.selectbox(
        t("an.algorithm"),
        algorithms,
        index=algorithms.index(DEFAULTS.algorithm) if DEFAULTS.algorithm in algorithms else 0,
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
    for name in options:
        if name in NUMBER_STEPS:
            values[name] = _number_option(name, scope)
    if "noise_kind" in options:
        kinds = _choices("noise_kind")
        values["noise_kind"] = st.radio(
            t("an.noise_kind"),
            kinds,
            horizontal=True,
            index=kinds.index(DEFAULTS.noise_kind),
            format_func=labels(kinds, lambda s: choice_title(f"an.noise_kind_{s}", s)),
            key=keep("an_noise_kind", scope=scope, valid=among(kinds)),
        )
    seed_top = int(min(OPTIONS["seed"].maximum or 2**31 - 1, 2**53 - 1))
    values["seed"] = int(
        st.number_input(t("an.seed"), 0, seed_top, DEFAULTS.seed, key=keep("an_seed", scope=scope))
    )
    return values


#: The step of each perturbative method's number option; its range and default are the
#: registry's (:data:`~privcore.runs.registry.OPTIONS`) and the request's.
NUMBER_STEPS = {
    "pram_retain": 0.05,
    "pram_alpha": 0.05,
    "noise_level": 0.01,
    "swap_percent": 0.5,
    "top_percentile": 0.5,
    "bottom_percentile": 0.5,
}


def _number_option(name: str, scope: str) -> float:
    """A number input for the algorithm option ``name`` within the registry's range (an
    open lower bound starts one step above it), the request's default, kept per data set."""
    option, step = OPTIONS[name], NUMBER_STEPS[name]
    low = float(option.minimum) if option.minimum is not None else None
    if low is not None and option.open_minimum:
        low += step
    high = float(option.maximum) if option.maximum is not None else None
    return float(
        st.number_input(
            t(f"an.{name}"),
            min_value=low,
            max_value=high,
            value=float(getattr(DEFAULTS, name)),
            step=step,
            key=keep(f"an_{name}", scope=scope),
        )
    )


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
    for name in ALGORITHMS[values["algorithm"]].options:
        if name in NUMBER_STEPS:
            out[f"an_{name}"] = float(values[name])
        elif name == "noise_kind":
            out["an_noise_kind"] = values["noise_kind"]
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
_FIXED = 4e-7
_PER_NODE = 1.1e-9
_PER_LOG_ROW = {"mondrian": 7.8e-8, "condensation": 2.1e-7}
_PER_ROW = {"kaca": 2e-6}


def lattice_shape(schema: Schema, qi: list[str]) -> tuple[int, int]:
    """(lattice size, total height) of the full-domain lattice over ``qi``: the product
    of (levels) and the sum of (levels − 1) of their hierarchies (a QI without one has two
    levels: the value, or ``*``)."""
    heights = [getattr(schema.hierarchies.get(q), "height", 1) for q in qi]
    return math.prod(h + 1 for h in heights), sum(heights)


def expected_nodes(algorithm: str, size: int, height: int, n_qi: int) -> int:
    """Lattice nodes a full-domain search is expected to check: Datafly one per level it
    climbs (height + 1); Samarati, searching down from a satisfying height with
    monotonicity tags, about a tenth of the lattice (458 of Adult's 4,320 nodes);
    Incognito and the optimal search prune by monotonicity (3 × (height + 1) per QI, at
    most the lattice)."""
    if algorithm == "datafly":
        return height + 1
    if algorithm == "samarati":
        return max(1, math.ceil(0.11 * size))
    return min(size, 3 * (height + 1) * max(n_qi, 1))


#: How much longer a full-domain search takes with a suppression limit: a node whose
#: small classes fit in the limit satisfies, so monotonicity prunes less and every node
#: counts its outliers (Adult, k = 5 and 20: Samarati 2.4–3.1×, Incognito 2.6–3.4×, the
#: optimal search 4.6–5.7×, Datafly, which climbs one path, 1×).
_WITH_SUPPRESSION = {"samarati": 3.0, "incognito": 3.0, "optimal": 5.0}


def expected_seconds(
    algorithm: str, rows: int, n_qi: int, size: int, height: int, suppression: float = 0.0
) -> float:
    """Expected duration of one run: rows × QIs × (``_FIXED`` + ``_PER_NODE`` × expected
    nodes) for a full-domain search, × :data:`_WITH_SUPPRESSION` with a suppression
    limit above 0; rows × log2(rows) × QIs × a constant for Mondrian and condensation;
    rows × QIs × a constant for KACA."""
    rows, n_qi = max(int(rows), 1), max(int(n_qi), 1)
    if algorithm in _PER_LOG_ROW:
        return rows * math.log2(rows + 1) * n_qi * _PER_LOG_ROW[algorithm]
    if algorithm in _PER_ROW:
        return rows * n_qi * _PER_ROW[algorithm]
    nodes = expected_nodes(algorithm, size, height, n_qi)
    factor = _WITH_SUPPRESSION.get(algorithm, 1.0) if suppression > 0 else 1.0
    return rows * n_qi * (_FIXED + _PER_NODE * nodes) * factor


TIMINGS = "an_timings"


def estimate(dataset: Dataset, schema: Schema, values: Mapping[str, Any]) -> tuple[float, bool]:
    """(seconds, measured): the last duration of this algorithm on this table and these
    columns in this session, else :func:`expected_seconds`."""
    qi = list(values["qi"])
    measured = st.session_state.get(TIMINGS, {}).get(_timing_key(dataset, values))
    if measured is not None:
        return float(measured), True
    size, height = lattice_shape(schema, qi)
    suppression = float(values.get("max_suppression") or 0.0)
    seconds = expected_seconds(
        values["algorithm"], dataset.n_rows, len(qi), size, height, suppression
    )
    return seconds, False


def _timing_key(dataset: Dataset, values: Mapping[str, Any]) -> tuple:
    return (dataset.fingerprint.sha256, values["algorithm"], tuple(values["qi"]))


def note_timing(dataset: Dataset, values: Mapping[str, Any], seconds: float) -> None:
    st.session_state.setdefault(TIMINGS, {})[_timing_key(dataset, values)] = float(seconds)


# --------------------------------------------------------------------------- runs


def make(
    dataset: Dataset,
    schema: Schema,
    request: AnonymizeRequest,
    *,
    label: str,
    page: str = "anonymize",
    slot: Any = None,
) -> Outcome:
    """Run one anonymization through :func:`privcore.runs.run` (recorded in the
    history: ok, error or cancelled), with a progress bar. The schema is restricted to
    the request's QIs and SAs (an empty choice is refused by the library, and recorded).
    A release of a bundled sample is computed once per process for all visitors
    (``Inputs.work``); each visitor's run is recorded all the same — a run served from
    that cache with ``cached: true`` in its results and without the release's compute
    time (``seconds``), which it did not spend (its parameters are a computed run's).
    A click on Cancel reruns the page, which stops the algorithm at its next progress
    report. ``slot``: where the bar goes (see :func:`ui.progress.progress_bar`)."""
    inputs = Inputs(original=dataset, schema=schema.restricted(request.qi, request.sa))
    inputs = shared_run_inputs(request, inputs, public=is_bundled(dataset))
    return run_heavy(request, inputs, label=label, page=page, slot=slot)


def served_from_cache(outcome: Outcome) -> bool:
    """Was this run's result taken from the process-wide cache of bundled samples?"""
    return bool(outcome.summary.get("cached"))


# --------------------------------------------------------------------------- live runs

#: A live run (a control changed, live update on) this soon after the previous live run
#: finished, with nothing else done in between and the same algorithm and columns,
#: continues its burst: the history keeps one row per settled parameter set — the last
#: of a burst — not one per slider step. Another algorithm or other columns is another
#: release: it starts a burst of its own and the previous one stays on the shelf.
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
    what: tuple = ()  # the algorithm and the columns the burst's steps share


def _burst_kind(made: ShelfRelease) -> tuple:
    """What the steps of one burst share: the algorithm and the columns it was run on."""
    request = made.request or {}
    return (
        request.get("algorithm"),
        tuple(request.get("qi") or ()),
        tuple(request.get("sa") or ()),
    )


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
    if burst is not None and now - burst.at <= BURST_SECONDS and burst.what == _burst_kind(made):
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
    burst.what = _burst_kind(made)
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

    tabs = st.tabs(
        [
            t("an.tab_tables"),
            t("tab.classes"),
            t("tab.charts"),
            t("an.tab_lattice"),
            t("tab.download"),
        ],
        key="an_view",
        on_change="rerun",
    )
    with tabs[0]:
        if tabs[0].open:  # only the tab on screen is drawn
            side_by_side(release, original)
    with tabs[1]:
        if tabs[1].open:  # only the tab on screen is drawn
            render_class_table(
                release.measurement.models.class_table,
                release.measurement.classes,
                release.frame,
                key="an_classes",
            )
    with tabs[2]:
        if tabs[2].open:  # only the tab on screen is drawn
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
                    {
                        t_plain("figure.name"): list(loss),
                        t_plain("figure.value"): list(loss.values()),
                    }
                ),
                hide_index=True,
            )
    with tabs[3]:
        if tabs[3].open:  # only the tab on screen is drawn
            if release.lattice is None:
                st.info(t("an.no_lattice"), icon=":material/info:")
            else:
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
    with tabs[4]:
        if tabs[4].open:  # only the tab on screen is drawn
            downloads(entry)


def perturbation_risk_view(figures: Mapping[str, Any]) -> None:
    """A perturbed release's population-level risk
    (:func:`privcore.anonymize.perturbative.population_risk`): population uniqueness,
    expected re-identifications, the largest record risk and SUDA2's special uniques at
    the voter roll's sampling fraction."""
    from ui import risk_view

    st.markdown(f"**{t('an.pr.title')}**")
    st.caption(t("an.pr.help", fraction=f"{float(figures['sampling_fraction']):.4g}"))
    risk_view.population_metrics(figures)


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


_STATUS_COLOURS = {
    "satisfied": PASS,
    "not satisfied": FAIL,
    "tagged satisfied": "#8fd19e",
    "tagged not satisfied": "#f3a6ac",
    "not visited": MUTED,
}


#: By default the lattice chart shows the heights within this many levels of the chosen
#: node; a lattice of at most :data:`LATTICE_WHOLE_NODES` nodes is shown whole.
LATTICE_ZOOM_HEIGHTS = 2
LATTICE_WHOLE_NODES = 200


def lattice_zoomed(release: Release) -> bool:
    """Whether the lattice chart of ``release`` shows, by default, only the heights near
    the chosen node: the lattice is larger than :data:`LATTICE_WHOLE_NODES` nodes and
    a node was chosen."""
    trace = release.lattice
    return trace is not None and trace.chosen is not None and len(trace.nodes) > LATTICE_WHOLE_NODES


def _level_words(release: Release, column: str, height: int) -> dict[int, str]:
    """What each level of ``column`` means, from the hierarchy the run used: "level 2 of
    4: 10 groups, e.g. 0-9, 10-19, 20-29, …" (only the level numbers without it)."""
    hierarchy = release.schema.hierarchies.get(column) if release.schema else None
    if hierarchy is not None:
        height = hierarchy.height
    words = {}
    for level in range(height + 1):
        if hierarchy is None:
            meaning = ""
        else:
            labels = [str(label) for label in hierarchy.labels(level)]
            if level == 0:
                meaning = t_plain("layout.level_original", count=len(labels))
            elif len(labels) == 1:
                meaning = t_plain("layout.level_one", label=labels[0])
            else:
                examples = ", ".join(labels[:3]) + (", …" if len(labels) > 3 else "")
                meaning = t_plain("layout.level_groups", count=len(labels), examples=examples)
        words[level] = t_plain(
            "layout.level_of" if meaning else "layout.level_plain",
            level=level,
            height=height,
            meaning=meaning,
        )
    return words


def _status_words(status: str) -> str:
    """How the search met a node ("satisfied", "tagged not satisfied", …), in words."""
    return t_plain("layout.status." + status.replace(" ", "_"))


_NODES: weakref.WeakKeyDictionary[Release, dict[str, pd.DataFrame]] = weakref.WeakKeyDictionary()
_NODES_LOCK = threading.Lock()


def lattice_nodes(release: Release) -> pd.DataFrame:
    """:func:`worded_nodes` of ``release``, worked out once per release and language
    while the release lives (the chart, its caption and its table read them on every
    run of the page); a copy."""
    lang = current_language()
    try:
        with _NODES_LOCK:
            known = _NODES.setdefault(release, {}).get(lang)
    except TypeError:  # not weakly referable (a stand-in for a release)
        return worded_nodes(release)
    if known is None:
        known = worded_nodes(release)
        with _NODES_LOCK:
            _NODES.setdefault(release, {})[lang] = known
    return known.copy()


def worded_nodes(release: Release) -> pd.DataFrame:
    """The nodes of the release's lattice, worded for the chart: ``name`` ("sex 0 · age 4
    · …", levels in QI order), ``level_<i>`` (what the level of the i-th QI means),
    ``status_label`` (how the search met the node, in words), ``chosen``, ``minimal``
    and ``mark`` (the text shown next to the node: "chosen", or the number of a minimal
    node).

    A node is *minimal* when it satisfies the constraints (checked or tagged) and no node
    one level lower in one QI does: each of those is in the trace and fails. A lattice
    traced only at its evaluated nodes (above 5,000 nodes) marks no node whose lower
    neighbours were not all evaluated. Minimal nodes are numbered by height, then by
    loss, then in lattice order.
    """
    trace = release.lattice
    nodes = trace.nodes.copy()
    qi = list(trace.qi)
    levels = nodes[qi].to_numpy(dtype=np.int64)
    heights = [int(levels[:, q].max(initial=0)) for q in range(len(qi))]
    if release.schema is not None:
        heights = [
            release.schema.hierarchies[c].height if c in release.schema.hierarchies else h
            for c, h in zip(qi, heights, strict=True)
        ]
    radix = np.array(
        [math.prod(h + 1 for h in heights[q + 1 :]) for q in range(len(qi))], dtype=np.int64
    )
    index = levels @ radix
    satisfies = nodes["status"].isin(["satisfied", "tagged satisfied"]).to_numpy()
    lower_known = np.ones(len(nodes), dtype=bool)
    lower_satisfies = np.zeros(len(nodes), dtype=bool)
    for q in range(len(qi)):
        has_lower = levels[:, q] > 0
        lower = index - radix[q]
        lower_known &= ~has_lower | np.isin(lower, index)
        lower_satisfies |= has_lower & np.isin(lower, index[satisfies])
    nodes["minimal"] = satisfies & lower_known & ~lower_satisfies

    name = pd.Series("", index=nodes.index, dtype=object)
    for q, column in enumerate(qi):
        before, after = t_plain("layout.node_part", qi=column, level="\x00").split("\x00")
        part = before + nodes[column].astype(str) + after
        name = part if q == 0 else name + " · " + part
        nodes[f"level_{q}"] = nodes[column].map(_level_words(release, column, heights[q]))
    nodes["name"] = name
    chosen = tuple(trace.chosen) if trace.chosen is not None else None
    nodes["chosen"] = (levels == np.array(chosen)).all(axis=1) if chosen is not None else False
    nodes["status_label"] = nodes["status"].map(
        {status: _status_words(status) for status in _STATUS_COLOURS}
    )
    ranked = nodes[nodes["minimal"]].sort_values(["height", "loss"], kind="stable")
    nodes["number"] = 0
    nodes.loc[ranked.index, "number"] = np.arange(1, len(ranked) + 1)
    nodes["mark"] = np.where(nodes["number"] > 0, nodes["number"].astype(str), "")
    if nodes["chosen"].any():
        number = int(nodes.loc[nodes["chosen"], "number"].iloc[0])
        nodes.loc[nodes["chosen"], "mark"] = (
            t_plain("layout.chosen_mark", number=number) if number else t_plain("layout.chosen")
        )
    return nodes


def _lines(text: str, width: int = 56) -> list[str]:
    """``text`` cut at its " · " separators into lines of about ``width`` characters."""
    lines: list[str] = []
    for part in text.split(" · "):
        if lines and len(lines[-1]) + 3 + len(part) <= width:
            lines[-1] += " · " + part
        else:
            lines.append(part)
    return lines


def _spread(nodes: pd.DataFrame) -> pd.Series:
    """The x position (0 to 1) of every node in its height's row: the labelled nodes
    (chosen, minimal) evenly apart so that their labels do not overlap, the others
    evenly apart in lattice order."""
    labelled = nodes["mark"] != ""
    x = pd.Series(0.5, index=nodes.index)
    for subset in (nodes[labelled], nodes[~labelled]):
        rank = subset.groupby("height").cumcount()
        count = subset.groupby("height")["height"].transform("size")
        x.loc[subset.index] = (rank + 0.5) / count
    return x


def lattice_chart(release: Release, *, whole: bool = False) -> alt.LayerChart:
    """The lattice the full-domain search walked: one dot per node, one row per height
    (the sum of the QI levels), coloured by how the search met it. The chosen node is
    ringed and labelled (its levels by name in the subtitle), the minimal satisfying
    nodes ringed and numbered (:func:`lattice_nodes`); the tooltip names every QI's
    level and the node's figures. Across a row the position carries no meaning: the
    labelled nodes are spread apart, the others follow in lattice order.

    Unless ``whole``, a lattice larger than :data:`LATTICE_WHOLE_NODES` nodes is zoomed
    to the heights within :data:`LATTICE_ZOOM_HEIGHTS` of the chosen node."""
    nodes = lattice_nodes(release)
    qi = list(release.lattice.qi)
    top = int(nodes["height"].max())
    low, high = 0, top
    if not whole and lattice_zoomed(release):
        centre = int(nodes.loc[nodes["chosen"], "height"].iloc[0])
        low = max(0, centre - LATTICE_ZOOM_HEIGHTS)
        high = min(top, centre + LATTICE_ZOOM_HEIGHTS)
        nodes = nodes[nodes["height"].between(low, high)]
    nodes = nodes.assign(x=_spread(nodes))
    # labels alternate above and below their node along a row
    labelled = nodes["mark"] != ""
    nodes["above"] = False
    nodes.loc[labelled, "above"] = (
        nodes[labelled].sort_values("x").groupby("height").cumcount() % 2 == 0
    )
    widest = int(nodes.groupby("height").size().max()) if len(nodes) else 1
    dot = float(np.clip(60 * 40 / widest, 14, 60))
    columns = [
        "name",
        "height",
        "status_label",
        "order",
        "suppressed",
        "loss",
        "chosen",
        "minimal",
        "mark",
        "above",
        "x",
        *(f"level_{q}" for q in range(len(qi))),
    ]
    nodes = nodes[columns]
    chosen = nodes[nodes["chosen"]]
    subtitle = (
        _lines(t_plain("layout.chosen_node", name=chosen["name"].iloc[0]))
        if len(chosen)
        else [t_plain("layout.no_chosen")]
    )
    if low > 0 or high < top:
        subtitle.append(t_plain("layout.zoomed", low=low, high=high, top=top))
    tooltip = [
        alt.Tooltip("name:N", title=t_plain("layout.tip_node")),
        *(alt.Tooltip(f"level_{q}:N", title=column) for q, column in enumerate(qi)),
        alt.Tooltip("height:Q", title=t_plain("an.height")),
        alt.Tooltip("status_label:N", title=t_plain("layout.tip_status")),
        alt.Tooltip("order:Q", title=t_plain("layout.tip_order")),
        alt.Tooltip("suppressed:Q", title=t_plain("layout.tip_rows")),
        alt.Tooltip("loss:Q", title=t_plain("layout.tip_loss"), format=".4f"),
    ]
    rows = high - low + 1
    plot = int(np.clip(64 * rows, 200, 560))
    base = alt.Chart(
        nodes,
        title=alt.TitleParams(t_plain("an.lattice_title"), subtitle=subtitle, subtitleFontSize=12),
    ).encode(
        x=alt.X("x:Q", axis=None, scale=alt.Scale(domain=[-0.02, 1.02], nice=False)),
        y=alt.Y(
            "height:Q",
            title=t_plain("an.height"),
            scale=alt.Scale(domain=[low - 0.6, high + 0.6], nice=False, zero=False),
            axis=alt.Axis(values=list(range(low, high + 1)), format="d", grid=False),
        ),
    )
    statuses = list(_STATUS_COLOURS)
    points = base.mark_circle(size=dot, opacity=0.8).encode(
        color=alt.Color(
            "status_label:N",
            title=t_plain("layout.legend_status"),
            scale=alt.Scale(
                domain=[_status_words(s) for s in statuses],
                range=[_STATUS_COLOURS[s] for s in statuses],
            ),
            legend=alt.Legend(orient="bottom", direction="vertical", labelLimit=0, titleLimit=0),
        ),
        tooltip=tooltip,
    )
    minimal = base.transform_filter("datum.minimal").mark_point(
        size=160, color=PASS, strokeWidth=2, filled=False
    )
    ring = base.transform_filter("datum.chosen").mark_point(
        size=420, color=ACCENT, strokeWidth=3, filled=False
    )
    label = {"fontSize": 12, "fontWeight": "bold", "color": WARN}
    above = base.transform_filter("datum.mark != '' && datum.above").mark_text(dy=-16, **label)
    below = base.transform_filter("datum.mark != '' && !datum.above").mark_text(dy=17, **label)
    marks = [layer.encode(text="mark:N", tooltip=tooltip) for layer in (above, below)]
    # the height holds the title, the plot and the legend (Streamlit fits the whole)
    return alt.layer(points, minimal, ring, *marks).properties(
        height=plot + 18 * len(subtitle) + 125
    )


def lattice_minimal_table(release: Release) -> pd.DataFrame:
    """The minimal satisfying nodes by their numbers on the chart: the level of every
    QI, the height and how the search met the node."""
    nodes = lattice_nodes(release)
    minimal = nodes[nodes["minimal"]].sort_values("number")
    qi = list(release.lattice.qi)
    table = minimal[["number", *qi, "height", "status_label"]].rename(
        columns={
            "number": t_plain("layout.col_number"),
            "height": t_plain("an.height"),
            "status_label": t_plain("layout.tip_status"),
        }
    )
    table.insert(
        1,
        t_plain("layout.col_chosen"),
        np.where(minimal["chosen"], t_plain("layout.chosen"), ""),
    )
    return table.reset_index(drop=True)


def lattice_caption(release: Release, *, whole: bool = False) -> str:
    """The words under the lattice chart (Markdown): how many nodes the search checked,
    what the marks mean, and how many minimal satisfying nodes there are."""
    nodes = lattice_nodes(release)
    checked = (
        "layout.lattice_tagged" if release.algorithm == "optimal" else "layout.lattice_checked"
    )
    parts = [
        t(
            checked,
            evaluated=release.params.get("evaluated_nodes"),
            size=release.params.get("lattice_size"),
        ),
        t("layout.lattice_marks", count=int(nodes["minimal"].sum())),
    ]
    if lattice_zoomed(release) and not whole:
        parts.append(t("layout.zoom_hint"))
    return " ".join(parts)


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


# --------------------------------------------------------------------------- engine tables

TABLE_MADE = "an_table_made"  # engine table → the controls, the file and the outcome of its run
TABLE_CANCELLED = "an_table_cancelled"


def table_workspace(wb: Workbench, key: str, schema: Schema) -> None:
    """The Anonymize page on a table opened in an engine: the controls (the algorithms
    that run on a frequency set), the release file's path, Run and Cancel; the run goes
    through :func:`ui.large_table.anonymize` (recorded) and its release is written to
    the file, not put on the shelf."""
    from ui import large_table
    from ui.layout import controls_and_results
    from ui.workspace import changes, guard_run

    table = wb.table(key)
    left, right = controls_and_results()
    with left:
        values = controls(schema, scope=key, algorithms=large_table.ENGINE_ALGORITHMS)
        st.caption(large_table.algorithm_note())
        out = st.text_input(
            t("lt.out"),
            value=large_table.default_output(table, values["algorithm"]),
            key=f"an_out::{key}::{values['algorithm']}",
            help=t("lt.out_help"),
        )
        keep_order = st.checkbox(
            t("lt.keep_order"), key=keep(f"an_keep_order::{key}"), help=t("lt.keep_order_help")
        )
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
                    lambda: large_table.anonymize(
                        wb, key, schema, values, out, keep_order=keep_order, progress=bar
                    )
                )
            if outcome is None:
                return
            made[key] = {"values": values, "asked": asked, "outcome": outcome}
        kept = made.get(key)
        if kept is None:
            st.info(t("lt.press_run"), icon=":material/play_arrow:")
            return
        differ = changes(kept["asked"], asked)
        if differ:
            st.info(t("an.stale", changes="; ".join(differ)), icon=":material/update:")
        render_table_release(kept["outcome"])


def render_table_release(outcome: Outcome) -> None:
    """A release made on an engine (:class:`privcore.runs.tables.TableRelease`): the
    figures of its report, the file written and the engine's check of it, then its
    classes (sizes in records), the rows of its frequency set with their counts,
    charts, the lattice and the report to download."""
    from ui import large_table

    made = outcome.result
    release: Release = made.release
    report = made.to_dict()
    written = report["engine"]
    lang = current_language()
    st.caption(t("an.columns_used", qi=", ".join(release.qi), sa=", ".join(release.sa)))
    for note in release.notes:
        st.info(escape_md(note_text(note, lang)), icon=":material/info:")
    k_needed = next((int(m["k"]) for m in release.params.get("constraints", []) if "k" in m), None)
    cards = [
        (
            model_title(v.get("parameters"), v["model"], lang),
            requirement(v.get("parameters"), v["requirement"], lang),
            "pass" if v["passed"] else "fail",
            t_plain("an.verdict_detail", rows=v["violating_rows"]),
        )
        for v in report["verdicts"]
    ]
    cards.append(
        (
            t_plain("lt.written_check"),
            f"k = {written['written_k']}"
            + (f" ≥ {k_needed}" if k_needed and written["written_satisfied"] else "")
            + (f" < {k_needed}" if k_needed and not written["written_satisfied"] else ""),
            "pass" if written["written_satisfied"] else "fail",
            t_plain("lt.written_detail", rows=f"{written['rows_written']:,}"),
        )
    )
    verdict_row(cards)
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
    st.markdown(f"**{t('lt.written_title')}**")
    st.text(str(made.out.resolve()))
    st.caption(t("lt.written_rows", rows=f"{made.rows_written:,}", run=_run_label(outcome.run_id)))
    st.info(t("lt.not_shelved"), icon=":material/inventory_2:")
    tabs = st.tabs(
        [
            t("tab.classes"),
            t("lt.tab_frequency_set"),
            t("tab.charts"),
            t("an.tab_lattice"),
            t("tab.download"),
        ],
        key="an_table_view",
        on_change="rerun",
    )
    weights = np.asarray(release.weights, dtype=np.int64)
    with tabs[0]:
        if tabs[0].open:  # only the tab on screen is drawn
            large_table.render_classes(
                release.measurement.models.class_table,
                release.measurement.classes,
                release.frame,
                weights,
                key="an_table_classes",
            )
    with tabs[1]:
        if tabs[1].open:
            st.caption(
                t(
                    "lt.frequency_caption",
                    rows=f"{len(release.frame):,}",
                    records=f"{int(weights.sum()):,}",
                    shown=f"{min(len(release.frame), MAX_FREQUENCY_ROWS):,}",
                )
            )
            shown = np.arange(min(len(release.frame), MAX_FREQUENCY_ROWS))
            st.dataframe(large_table.counted_rows(release.frame, weights, shown), hide_index=True)
    with tabs[2]:
        if tabs[2].open:
            chart(
                release,
                "sizes",
                lambda: class_size_histogram(release.measurement.classes.sizes, report["k"]),
            )
            if release.record_levels:
                chart(release, "levels", lambda: level_chart(release))
            else:
                st.info(t("an.no_levels"), icon=":material/info:")
            loss = {
                figure_label(k, lang): v
                for k, v in release.loss.items()
                if isinstance(v, (int, float)) and not isinstance(v, bool)
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
    with tabs[3]:
        if tabs[3].open:
            if release.lattice is None:
                st.info(t("an.no_lattice"), icon=":material/info:")
            else:
                chart(release, "lattice", lambda: lattice_chart(release))
                st.caption(lattice_caption(release))
    with tabs[4]:
        if tabs[4].open:
            st.download_button(
                t("an.download_report"),
                data=json.dumps(
                    {
                        "release": made.out.name,
                        **report,
                        "qi": list(release.qi),
                        "sa": list(release.sa),
                    },
                    ensure_ascii=False,
                    indent=2,
                    default=str,
                ).encode("utf-8"),
                file_name=f"{file_stem(made.out.stem)}_report.json",
                mime="application/json",
                on_click="ignore",
            )
            st.caption(t("lt.download_note"))


MAX_FREQUENCY_ROWS = 1000  # rows of a release's frequency set shown


def _run_label(run_id: int | None) -> str:
    return f"#{run_id}" if run_id is not None else "—"


def compare(dataset: Dataset, schema: Schema, values: Mapping[str, Any]) -> None:
    """Run several algorithms on the same models and column choice (``values``, the
    page's controls) when asked, and table their results; each run is recorded."""
    algorithms = list(ALGORITHMS)
    chosen = st.multiselect(
        t("an.compare_algorithms"),
        algorithms,
        default=[a for a in ("datafly", "optimal", "mondrian", "mdav", "noise") if a in algorithms],
        format_func=labels(algorithms, algorithm_title),
        key=keep("an_compare"),
    )
    if not heavy_button(t("an.compare_run"), key="an_compare_run", primary=False):
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
        point, failure = {"changed": None, "reidentified": None}, ""
        try:
            point = risk_utility.risk_utility_point(
                dataset.frame, outcome.result, schema.hierarchies
            )
        except PrivcoreError as exc:  # the release is made; only its point is missing
            from ui.i18n import error_text

            failure = error_text(exc)
        rows.append(
            {
                "algorithm": algorithm_title(algorithm),
                **point,
                "k": out["k"],
                "satisfied": out["satisfied"],
                "suppressed": out["suppressed_rows"],
                "classes": out["classes"],
                "loss_name": loss_name(out["loss_headline"]["name"]),
                "loss": out["loss_headline"]["value"],
                "discernibility": out["loss"].get("discernibility"),
                "precision": out["loss"].get("precision"),
                "PL": out["pl"],
                "UL": out["ul"],
                # a run served from the cache spent no compute time of its own
                "seconds": None if served_from_cache(outcome) else out["seconds"],
                "cached": served_from_cache(outcome),
                "run": outcome.run_id,
                "error": failure,
            }
        )
    table = pd.DataFrame(rows)
    points = comparison_points(table)
    if len(points):
        st.markdown(f"**{t('an.ru.title')}**")
        st.caption(t("an.ru.help"))
        with alt.data_transformers.disable_max_rows():
            spec = risk_utility.risk_utility_chart(points).to_dict()
        st.vega_lite_chart(spec=spec, width="stretch")
    st.dataframe(
        table,
        hide_index=True,
        height=38 * (len(table) + 1) + 3,  # every compared algorithm on screen
        column_config={
            "changed": st.column_config.NumberColumn(
                t_plain("an.ru.x"), help=t_plain("an.ru.x_help"), format="percent"
            ),
            "reidentified": st.column_config.NumberColumn(
                t_plain("an.ru.y"), help=t_plain("an.ru.y_help"), format="percent"
            ),
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
            "loss_name": st.column_config.Column(t_plain("an.cmp.loss_name")),
            "loss": st.column_config.NumberColumn(
                t_plain("an.cmp.loss"), help=t_plain("an.cmp.loss_help"), format="%.4f"
            ),
            "PL": st.column_config.NumberColumn(format="%.3f"),
            "UL": st.column_config.NumberColumn(format="%.3f"),
            "precision": st.column_config.NumberColumn(t_plain("an.cmp.precision"), format="%.3f"),
            "seconds": st.column_config.NumberColumn(t_plain("an.cmp.seconds"), format="%.3f"),
        },
    )


def comparison_points(table: pd.DataFrame) -> pd.DataFrame:
    """The risk-vs-utility chart's data: one row per compared algorithm that made a
    release (a refused one has no figures), :data:`ui.risk_utility.POINT_COLUMNS`."""
    columns = list(risk_utility.POINT_COLUMNS)
    if not len(table) or not set(columns) <= set(table.columns):
        return pd.DataFrame(columns=columns)
    return table.loc[table["changed"].notna(), columns].reset_index(drop=True)


__all__ = [
    "compare",
    "comparison_points",
    "controls",
    "controls_for",
    "estimate",
    "expected_seconds",
    "make",
    "render",
    "render_table_release",
    "table_workspace",
]
