"""DP synthetic data against the other ways of releasing the same table, on one workload:
every 2-way and 3-way marginal of the chosen columns, a regression, and the three risks.

Each method makes a release of the same records — MST, AIM or the marginal release
(:func:`privcore.dp.release.dp_release`), a k-anonymous generalization, or a
perturbative method (PRAM, noise, rank swapping, MDAV, condensation:
:func:`privcore.anonymize.anonymize`) — and every release is read on one evaluation
domain:

- a column's values are the original's; a numeric column binned by the DP release is
  read in the DP release's intervals, one with more than
  :data:`~privcore.dp.synthesis.MAX_VALUES` values otherwise in 10 intervals of equal
  width over the original's range (for the evaluation only: nothing is published);
- a released label counts, as in :func:`~privcore.dp.release.compare_releases`,
  1/c for each of the c domain values it covers (uniform spread; ``*`` covers all); a
  perturbed number falls in its interval, or on the nearest value of a column that is
  not binned.

Figures of each method:

- ``tvd2`` / ``tvd3``: the mean total-variation distance ½‖p − p̂‖₁ between the
  original's and the release's k-way marginals, over every set of k columns;
- ``regression``: train on the release, test on the original — one linear-probability
  model per value of the sensitive attribute on the quasi-identifiers (one indicator
  per domain value), fitted by least squares on the release; each original record is
  predicted the value of the highest score: the ``accuracy`` on the original, beside
  the same models fitted on the original (``baseline``) and always guessing the most
  frequent value (``majority``);
- ``risks``: singling out, linkability and inference of the method, each release made
  again from a seeded 80 % and attacked against the other 20 %
  (:func:`privcore.report.risk.held_out_risks`), when asked for;
- ``reconstruction``: the reconstruction lab on the marginals the release publishes —
  its QI × SA tables counted from its records — rebuilt by the integer program of
  :func:`privcore.attacks.reconstruction.reconstruct` and matched to the original's
  records (``exact``: the share rebuilt exactly; a binned column is compared in its
  intervals, a perturbed number in its interval); not measured, in words, for a release
  whose cells are not the columns' values (generalized labels), or too many record
  types;
- ``seconds`` it took to make the release.

A method that cannot release this table (too few rows, an infeasible suppression) is
kept with its reason in words, never dropped in silence.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from privcore.classes import group_rows
from privcore.core.jsonsafe import plain
from privcore.data.cells import parse_column
from privcore.dp.released import coded_values
from privcore.dp.synthesis import Binning, needs_bins
from privcore.errors import PrivcoreError

__all__ = [
    "DP_METHODS",
    "OTHER_METHODS",
    "MethodComparison",
    "MethodFigures",
    "compare_methods",
    "uninformative_majority",
    "workload_figures",
]

DP_METHODS = ("aim", "mst", "marginals")
OTHER_METHODS = ("k_anon", "pram", "noise", "rank_swap", "mdav", "condensation")
EVALUATION_BINS = 10

Progress = Callable[[float, str], None]


@dataclass(frozen=True)
class MethodFigures:
    """One method's figures (module docs), or ``not_measured``: why not, as results keep
    an error — its ``error`` code, ``error_params`` and the English ``message``."""

    method: str
    kind: str
    tvd2: float | None = None
    tvd3: float | None = None
    regression: dict[str, Any] | None = None
    risks: dict[str, Any] | None = None
    reconstruction: dict[str, Any] | None = None
    seconds: float | None = None
    not_measured: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return plain(dict(self.__dict__))


@dataclass(frozen=True)
class MethodComparison:
    """The methods' figures on the same workload (``columns``, ``binnings`` used)."""

    columns: tuple[str, ...]
    methods: tuple[MethodFigures, ...]
    binnings: tuple[dict[str, Any], ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        return {
            "columns": list(self.columns),
            "binnings": list(self.binnings),
            "methods": [m.to_dict() for m in self.methods],
        }


def uninformative_majority(regressions: Iterable[Mapping[str, Any] | None]) -> float | None:
    """The majority guess's accuracy when the model trained on the original itself does
    no better (within half a point): on these columns the regression cannot tell the
    methods apart, whatever each release keeps. None when it can, or nothing was
    measured."""
    measured = [r for r in regressions if r]
    if measured and all(r["baseline"] <= r["majority"] + 0.005 for r in measured):
        return float(measured[0]["majority"])
    return None


# --------------------------------------------------------------------------- domain


@dataclass(frozen=True)
class _Column:
    """A column's raw values (the original's, missing last) and each one's cell of the
    evaluation domain (its interval when binned)."""

    name: str
    raw: pd.Index
    cell: np.ndarray
    cells: int
    binning: Binning | None


def _domain(frame: pd.DataFrame, name: str, binning: Binning | None) -> _Column:
    raw = coded_values(frame[name])[1]
    if binning is None and needs_bins(frame[name]):
        low, high = float(frame[name].min()), float(frame[name].max())
        binning = Binning(name, low, high + (high - low) * 1e-9 or 1.0, EVALUATION_BINS, "eval")
    if binning is None:
        return _Column(name, raw, np.arange(len(raw)), len(raw), None)
    cell = binning.codes(pd.Series(raw, dtype=float))
    return _Column(name, raw, cell, binning.bins, binning)


def _weights(values: pd.Series, column: _Column, hierarchy: Any) -> tuple[np.ndarray, np.ndarray]:
    """Each row's label code and the labels × evaluation-cells weights (module docs)."""
    if column.binning is not None:
        labels = pd.Index(column.binning.labels())
        as_label = labels.get_indexer(values.astype(object))
        if (as_label >= 0).all():  # a release in the evaluation's own intervals
            return as_label.astype(np.int64), np.eye(column.cells)
    cells = parse_column(values, hierarchy=hierarchy, column=column.name)
    cover = cells.contains(pd.Series(column.raw)).astype(float)
    onto = np.zeros((len(column.raw), column.cells))
    onto[np.arange(len(column.raw)), column.cell] = 1.0
    weights = cover @ onto
    empty = np.flatnonzero(weights.sum(axis=1) == 0)  # perturbed numbers, unseen values
    if empty.size:
        weights[empty] = _nearest(np.asarray(cells.labels, dtype=object)[empty], column)
    weights /= weights.sum(axis=1, keepdims=True)
    return np.asarray(cells.codes, dtype=np.int64), weights


def _nearest(labels: np.ndarray, column: _Column) -> np.ndarray:
    """Labels covering no value, all at once: a number falls in its interval, or on the
    nearest value of a numeric column (the lower of two as near); anything else counts
    on every cell alike (as ``*``)."""
    out = np.ones((len(labels), column.cells))
    numbers = pd.to_numeric(pd.Series(labels, dtype=object), errors="coerce")
    numbers = numbers.to_numpy(dtype=float)
    rows = np.flatnonzero(np.isfinite(numbers))
    if column.binning is not None:
        cell = column.binning.codes(pd.Series(numbers[rows]))
    else:
        raw = pd.to_numeric(pd.Series(column.raw), errors="coerce").to_numpy(dtype=float)
        known = np.flatnonzero(np.isfinite(raw))
        if known.size == 0:
            return out
        known = known[np.argsort(raw[known], kind="stable")]
        ordered, wanted = raw[known], numbers[rows]
        above = np.clip(np.searchsorted(ordered, wanted), 1, max(len(ordered) - 1, 1))
        below = above - 1
        above = np.minimum(above, len(ordered) - 1)
        lower = np.abs(wanted - ordered[below]) <= np.abs(ordered[above] - wanted)
        cell = column.cell[known[np.where(lower, below, above)]]
    out[rows] = 0.0
    out[rows, cell] = 1.0
    return out


# --------------------------------------------------------------------------- marginals


@dataclass(frozen=True)
class _Read:
    """A table read on the evaluation domain: its distinct rows' multiplicities and,
    per column, each distinct row's weights over the column's cells."""

    counts: np.ndarray
    weights: dict[str, np.ndarray]

    def marginal(self, clique: Sequence[str]) -> np.ndarray:
        letters = "abcdefgh"[: len(clique)]
        spec = "z," + ",".join(f"z{x}" for x in letters) + "->" + letters
        table = np.einsum(spec, self.counts, *(self.weights[c] for c in clique), optimize=True)
        return table / max(table.sum(), 1e-300)


def _read(table: pd.DataFrame, columns: Sequence[_Column], hierarchies: Mapping[str, Any]):
    coded = [_weights(table[c.name], c, hierarchies.get(c.name)) for c in columns]
    groups = group_rows([codes for codes, _ in coded], [w.shape[0] for _, w in coded])
    first = groups.first
    weights = {c.name: w[codes[first]] for c, (codes, w) in zip(columns, coded, strict=True)}
    return _Read(groups.counts.astype(float), weights)


def workload_figures(
    original: pd.DataFrame,
    released: pd.DataFrame,
    columns: Sequence[str],
    qi: Sequence[str],
    sa: str,
    *,
    binnings: Sequence[Mapping[str, Any]] = (),
    hierarchies: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """``tvd2``, ``tvd3`` and ``regression`` of ``released`` against ``original`` on
    ``columns`` (the module's evaluation domain and formulas)."""
    given = {b["column"]: Binning(**b) for b in binnings}
    domain = [_domain(original, c, given.get(c)) for c in columns]
    truth = _read(original, domain, {})
    release = _read(released, domain, hierarchies or {})
    out: dict[str, Any] = {}
    for k in (2, 3):
        cliques = list(itertools.combinations(columns, k))
        distances = [
            0.5 * float(np.abs(truth.marginal(q) - release.marginal(q)).sum()) for q in cliques
        ]
        out[f"tvd{k}"] = float(np.mean(distances)) if distances else None
    out["regression"] = _regression(truth, release, list(qi), sa)
    return out


def _design(read: _Read, qi: list[str]) -> np.ndarray:
    return np.hstack([np.ones((len(read.counts), 1)), *(read.weights[c] for c in qi)])


def _regression(truth: _Read, release: _Read, qi: list[str], sa: str) -> dict[str, Any] | None:
    """Train on the release, test on the original (module docs)."""
    if not qi:
        return None

    def fit(read: _Read) -> np.ndarray:
        root = np.sqrt(read.counts)[:, None]
        beta, *_ = np.linalg.lstsq(_design(read, qi) * root, read.weights[sa] * root, rcond=None)
        return beta

    x, y = _design(truth, qi), truth.weights[sa]

    def accuracy(beta: np.ndarray) -> float:
        said = np.argmax(x @ beta, axis=1)
        right = y[np.arange(len(said)), said]
        return float(np.sum(truth.counts * right) / np.sum(truth.counts))

    return {
        "target": sa,
        "accuracy": accuracy(fit(release)),
        "baseline": accuracy(fit(truth)),
        "majority": float(truth.marginal([sa]).max()),
    }


# --------------------------------------------------------------------------- methods


def _public_binnings(frame, columns, bounds, bins) -> tuple[dict[str, Any], ...]:
    """The binning of every numeric column with many values, the same for all methods:
    the user's bounds (source "public"), else the original's own range (source "data":
    not private, which a study for the data's owner may use and a release may not)."""
    out = []
    for name in columns:
        series = frame[name]
        if not (name in bounds and pd.api.types.is_numeric_dtype(series)) and not needs_bins(
            series
        ):
            continue
        low, high = bounds.get(name, (float(series.min()), float(series.max())))
        high = float(high) if float(high) > float(low) else float(low) + 1.0
        source = "public" if name in bounds else "data"
        out.append(Binning(name, float(low), high + 1e-9 * (high - low), bins, source))
    return tuple(b.to_dict() for b in out)


def _maker(method: str, qi, sa, schema, options: Mapping[str, Any]):
    """``make(frame)`` → the method's released table of ``frame``."""
    if method in DP_METHODS:
        from privcore.dp.release import dp_release

        def make_dp(frame: pd.DataFrame) -> pd.DataFrame:
            return dp_release(
                frame,
                list(qi),
                sa,
                epsilon=options["epsilon"],
                seed=options["seed"],
                relation=options["relation"],
                method=method,
                delta=options["delta"],
                bounds=options["bounds"] if method != "marginals" else None,
                bins=options["bins"],
            ).records

        return make_dp
    from privcore.anonymize import anonymize
    from privcore.models import KAnonymity

    algorithm = options["algorithm"] if method == "k_anon" else method

    def make_other(frame: pd.DataFrame) -> pd.DataFrame:
        made = anonymize(
            frame,
            schema,
            [KAnonymity(options["k"])],
            algorithm=algorithm,
            max_suppression=options["max_suppression"],
            seed=options["seed"],
        )
        return made.frame

    return make_other


def _kind(method: str) -> str:
    if method in ("aim", "mst", "marginals"):
        return "dp_synthetic"
    return {"k_anon": "generalized", "condensation": "synthetic"}.get(method, "perturbed")


def compare_methods(
    frame: pd.DataFrame,
    qi: Sequence[str],
    sa: str,
    schema: Any,
    *,
    methods: Sequence[str] = (*DP_METHODS, *OTHER_METHODS),
    epsilon: float = 1.0,
    delta: float | None = None,
    relation: str = "add_remove",
    k: int = 5,
    algorithm: str = "optimal",
    max_suppression: float = 0.05,
    bounds: Mapping[str, Any] | None = None,
    bins: int = 10,
    seed: int = 0,
    gdpr: bool = False,
    reconstruction: bool = True,
    progress: Progress | None = None,
) -> MethodComparison:
    """Each of ``methods`` releasing ``frame``'s ``qi`` and ``sa`` (DP ones at ε, δ;
    the others at k with ``algorithm`` for "k_anon", under ``schema``'s roles and
    hierarchies), read on one workload (module docs)."""
    columns = [*qi, sa]
    binnings = _public_binnings(frame, columns, dict(bounds or {}), bins)
    options = {
        "epsilon": epsilon,
        "delta": delta,
        "relation": relation,
        "seed": seed,
        "bins": bins,
        "bounds": {b["column"]: (b["lower"], b["upper"]) for b in binnings},
        "k": k,
        "algorithm": algorithm,
        "max_suppression": max_suppression,
    }
    hierarchies = dict(getattr(schema, "hierarchies", {}) or {})
    found = []
    for step, method in enumerate(methods):
        if progress is not None:
            progress(step / len(methods), f"{method}: releasing and reading the workload")
        make = _maker(method, qi, sa, schema, options)
        started = time.perf_counter()
        try:
            released = make(frame)
            seconds = time.perf_counter() - started
            figures = workload_figures(
                frame, released, columns, qi, sa, binnings=binnings, hierarchies=hierarchies
            )
            risks = _risks(frame, make, qi, sa, seed, hierarchies) if gdpr else None
        except PrivcoreError as exc:
            found.append(MethodFigures(method, _kind(method), not_measured=_reason(exc)))
            continue
        rebuilt = _reconstruction(frame, released, qi, sa, binnings) if reconstruction else None
        found.append(
            MethodFigures(
                method,
                _kind(method),
                seconds=seconds,
                risks=risks,
                reconstruction=rebuilt,
                **figures,
            )
        )
    if progress is not None:
        progress(1.0, "compared")
    return MethodComparison(tuple(columns), tuple(found), binnings)


def _risks(frame, make, qi, sa, seed, hierarchies) -> dict[str, Any]:
    from privcore.report.risk import held_out_risks, not_measured

    try:
        return held_out_risks(
            frame, make, list(qi), [sa], seed=seed, hierarchies=hierarchies
        ).to_dict()
    except PrivcoreError as exc:
        return {"not_measured": not_measured(exc)}


def _reconstruction(frame, released, qi, sa, binnings) -> dict[str, Any]:
    """The reconstruction lab on the release's published QI × SA marginals (module docs):
    the share of the original's records rebuilt exactly, or why it was not measured."""
    from privcore.attacks.reconstruction import Schema as TableSchema
    from privcore.attacks.reconstruction import reconstruct
    from privcore.attacks.reconstruction.domains import domains
    from privcore.attacks.reconstruction.published import publications
    from privcore.dp.synthesis import binned_frame

    columns = [*qi, sa]
    truth = binned_frame(frame, binnings)[columns].reset_index(drop=True)
    published = released[columns].reset_index(drop=True)
    for item in binnings:  # a binned column compared in its intervals
        binning, column = Binning(**item), item["column"]
        labels = pd.Index(binning.labels())
        values = published[column]
        if not values.isin(labels).all() and pd.api.types.is_numeric_dtype(values):
            published[column] = labels.take(binning.codes(values))
    for column in columns:
        if not published[column].isin(truth[column]).all():
            message = (
                f"{column}: the release's cells are not the column's values (generalized "
                "labels or suppressed cells), so its marginals are not tables over them"
            )
            return {"not_measured": _why("compare.generalized_cells", message, column=column)}
    try:
        schema = TableSchema(domains(truth, columns))
        publication = publications(schema, {"all": published}, [(q, sa) for q in qi])[0]
        found = reconstruct(
            publication, truth=truth, max_solutions=1, certain=False, time_limit=30.0
        )
    except PrivcoreError as exc:
        return {"not_measured": _reason(exc)}
    if found.accuracy is None:
        message = "no table fitting the marginals was found in 30 s"
        return {"not_measured": _why("compare.no_table", message, seconds=30)}
    return {
        "exact": found.accuracy.exact_share,
        "rebuilt": found.accuracy.n_rebuilt,
        "records": found.accuracy.n_true,
        "seconds": found.seconds,
    }


def _why(code: str, message: str, **params: Any) -> dict[str, Any]:
    """A reason as results keep an error: code, parameters (words), English message."""
    return {"error": code, "error_params": plain(params), "message": message}


def _reason(exc: PrivcoreError) -> dict[str, Any]:
    return _why(exc.code, str(exc), **dict(exc.params))
