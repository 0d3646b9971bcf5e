"""What every anonymization algorithm shares: the prepared problem, the Release, progress.

One signature for the whole family (ARCHITECTURE.md)::

    anonymize(df, schema, constraints, *, max_suppression, seed, progress=None) -> Release

``constraints`` are privacy-model objects of :mod:`privcore.models`; ``max_suppression``
is the share of rows (0–1) that may be suppressed — shown with every QI as ``*``,
counted, never dropped (SPEC §2); ``progress(fraction, message)`` is called between
steps and may raise :class:`~privcore.errors.CancelledError` to stop the work.

Frequency sets (SPEC §9). ``weights`` (int64 ≥ 1 per row; None: each row one record)
make ``df`` a frequency set, as an engine computes it from a table too large for
memory: row i stands for ``weights[i]`` records identical in every QI and SA. Every
count is then a count of records — the suppression budget, class sizes, the models,
the loss — and the release's frame, one row per row of ``df``, is the mapping the
engine joins with the table to write the records (:meth:`Release.export` refuses it).
The full-domain searches and Mondrian give the release of the expanded table; KACA
and condensation release records one by one and need them (weights > 1 refused).

Missing values, one rendering in every release. A missing quasi-identifier value is
one value of its own (SPEC §1, §9), in no hierarchy, so it is generalized only to the
top: where its class shows it alone it is released as itself, a missing cell (an empty
cell in a written file); where a class of Mondrian mixes it with other values its cell
names it ``NA`` (:data:`privcore.data.cells.MISSING_TEXT`) inside the set or after the
range or value (``{a,NA}``, ``[20-29],NA``, ``45.5,NA``); at the top it is ``*``. The
loader reads an empty cell and a lone ``NA`` as missing, and the released-cell grammar
(:mod:`privcore.data.cells`) reads the other forms, so a written release read back has
the classes it was made with (``tests/unit/test_missing_in_releases.py``).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import math
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from privcore.classes import (
    SUPPRESSED,
    EquivalenceClasses,
    SensitiveAttribute,
    classes_from_codes,
    compact_codes,
    one_class,
    sensitive_attributes,
    top_rows,
)
from privcore.core.jsonsafe import plain
from privcore.core.kinds import ReleaseKind
from privcore.core.notes import Note
from privcore.core.progress import Progress
from privcore.core.progress import report as report_progress
from privcore.data.hierarchy import Hierarchy
from privcore.data.schema import Schema
from privcore.errors import HierarchyError, InfeasibleError, ParameterError, RoleError
from privcore.measure.kind_loss import kind_loss
from privcore.measure.report import ReleaseMeasurement, measure_release
from privcore.models import PrivacyModel, evaluate

SPEC_FORMAT = "privcore-release-spec/1"
SPEC_OPTIONS = (  # algorithm keywords a spec replays
    "loss_metric",
    "summary",
    "beta",
    "pram_retain",
    "pram_alpha",
    "noise_level",
    "noise_kind",
    "swap_percent",
    "top_percentile",
    "bottom_percentile",
)


PROGRESS_INTERVAL = 0.1  # seconds between two progress reports of a long loop


class ProgressClock:
    """Progress reports from a loop, at most every ``interval`` seconds.

    ``due()`` is cheap (one clock read), so a loop asks it at every step and reports
    only when it is due: the caller hears from the work several times a second — and
    can cancel it then (its callback may raise CancelledError) — however long or short
    the steps are.
    """

    def __init__(self, progress: Progress | None, interval: float | None = None) -> None:
        self.progress = progress
        self.interval = PROGRESS_INTERVAL if interval is None else interval
        self._last = time.perf_counter()

    def due(self) -> bool:
        return self.progress is not None and time.perf_counter() - self._last >= self.interval

    def report(self, fraction: float, message: str) -> None:
        report_progress(self.progress, fraction, message)
        self._last = time.perf_counter()


@dataclass(frozen=True, eq=False)
class Problem:
    """The validated input of an algorithm, with each QI encoded once.

    ``leaf_codes[q]`` holds each row's leaf index in QI q's hierarchy (-1 for missing;
    the smallest integer type that holds every index + 1) when the QI has a hierarchy;
    ``sensitive`` the factorized sensitive attributes.

    ``weights`` (None, or int64 ≥ 1 per row) make ``frame`` a frequency set (SPEC §9):
    row i stands for ``weights[i]`` records identical in every QI and SA. Counts — the
    records, the suppression budget, class sizes — are records then, and the sensitive
    attributes' distribution Q counts each row ``weights[i]`` times.
    """

    frame: pd.DataFrame
    qi: tuple[str, ...]
    sa: tuple[str, ...]
    identifiers: tuple[str, ...]
    hierarchies: Mapping[str, Hierarchy]
    constraints: tuple[PrivacyModel, ...]
    max_suppression: float
    seed: int
    leaf_codes: Mapping[str, np.ndarray]
    sensitive: Mapping[str, SensitiveAttribute]
    weights: np.ndarray | None = None

    @property
    def n_rows(self) -> int:
        """Records: the rows of the table, or the sum of the weights of a frequency set."""
        return len(self.frame) if self.weights is None else int(self.weights.sum())

    @property
    def n_table_rows(self) -> int:
        """Rows of ``frame`` (the distinct combinations when it is a frequency set)."""
        return len(self.frame)

    @property
    def budget(self) -> int:
        """Records that may be suppressed: ⌊max_suppression · n⌋ (honoured exactly)."""
        return math.floor(self.max_suppression * self.n_rows + 1e-9)

    def records(self, rows: np.ndarray) -> int:
        """Records in ``rows`` (a boolean mask or indices into ``frame``)."""
        if self.weights is None:
            rows = np.asarray(rows)
            return int(rows.sum()) if rows.dtype == bool else len(rows)
        return int(self.weights[rows].sum())

    @property
    def k(self) -> int:
        """The class size the size-only models (k-anonymity) demand, 1 without one: the
        size of condensation's groups."""
        sizes = [c.minimal_class_size for c in self.constraints if c.size_only]
        return max(sizes, default=1)

    @property
    def minimal_class_size(self) -> int:
        """The fewest records a class needs to meet every constraint (declared by each)."""
        return max((c.minimal_class_size for c in self.constraints), default=1)


def prepare(
    frame: pd.DataFrame,
    schema: Schema,
    constraints: Sequence[PrivacyModel],
    *,
    max_suppression: float,
    seed: int,
    need_hierarchies: bool,
    weights: np.ndarray | None = None,
) -> Problem:
    """Validate the input and encode it; every error names the problem for the user.

    ``weights`` (one whole number ≥ 1 per row, or None) make ``frame`` a frequency set
    (see :class:`Problem`)."""
    if not isinstance(frame, pd.DataFrame) or frame.empty:
        raise InfeasibleError("The table has no rows to anonymize.", code="anonymize.empty")
    weights = checked_weights(weights, len(frame))
    qi = tuple(schema.quasi_identifiers)
    sa = tuple(schema.sensitive)
    if not qi:
        raise RoleError(
            "Mark at least one column as quasi-identifier before anonymizing.",
            code="roles.no_qi",
        )
    if not sa:
        raise RoleError(
            "Mark at least one column as sensitive: l-diversity, t-closeness and the "
            "privacy level of the release are measured against it.",
            code="roles.no_sa",
        )
    missing = [c for c in (*qi, *sa) if c not in frame.columns]
    if missing:
        raise RoleError(
            f"The table has no column {', '.join(missing)}.",
            code="roles.unknown_columns",
            columns=missing,
        )
    constraints = tuple(constraints)
    if not constraints:
        raise ParameterError(
            "Choose at least one privacy model (k, l or t).", code="anonymize.no_model"
        )
    for model in constraints:
        if not isinstance(model, PrivacyModel):
            raise ParameterError(f"Not a privacy model: {model!r}.", code="models.not_a_model")
    try:
        max_suppression = float(max_suppression)
    except (TypeError, ValueError):
        max_suppression = math.nan
    if not 0.0 <= max_suppression <= 1.0:
        raise ParameterError(
            f"The suppression limit must be a share between 0 and 1 (got {max_suppression}).",
            code="anonymize.bad_suppression",
            value=max_suppression,
        )
    hierarchies = dict(schema.hierarchies)
    if need_hierarchies:
        without = [c for c in qi if c not in hierarchies]
        if without:
            raise HierarchyError(
                f"This algorithm generalizes along hierarchies; build one for "
                f"{', '.join(without)} on the Data & roles page.",
                code="hierarchy.missing_qi",
                columns=without,
            )
    leaf_codes = {  # the smallest integer type that also holds every leaf index + 1
        c: compact_codes(hierarchies[c].encode(frame[c]), len(hierarchies[c].leaves) + 1)
        for c in qi
        if c in hierarchies
    }
    sensitive = sensitive_attributes(frame, list(sa), hierarchies)
    if weights is not None:  # the same values, each row counted ``weight`` times, Q too
        sensitive = {n: dataclasses.replace(a, weights=weights) for n, a in sensitive.items()}
    problem = Problem(
        frame=frame,
        qi=qi,
        sa=sa,
        identifiers=tuple(schema.identifiers),
        hierarchies=hierarchies,
        constraints=constraints,
        max_suppression=max_suppression,
        seed=int(seed),
        leaf_codes=leaf_codes,
        sensitive=sensitive,
        weights=weights,
    )
    check_feasible(problem)
    return problem


def checked_weights(weights: Any, n_rows: int) -> np.ndarray | None:
    """``weights`` as int64, one whole number ≥ 1 per row of a table of ``n_rows`` rows
    (None stays None: each row is one record); anything else is a
    :class:`~privcore.errors.ParameterError` that says what is wrong."""
    if weights is None:
        return None
    array = np.asarray(weights)
    problem = None
    if array.ndim != 1:
        problem = f"a flat list of one weight per row ({n_rows}), got {array.ndim} dimensions"
    elif len(array) != n_rows:
        problem = f"one per row ({n_rows}), got {len(array)}"
    elif not (np.issubdtype(array.dtype, np.integer) or np.issubdtype(array.dtype, np.floating)):
        problem = f"whole numbers, got values of type {array.dtype}"
    elif not np.all(np.isfinite(array)) or not np.all(array == np.round(array)):
        problem = "whole numbers"
    elif array.size and array.min() < 1:
        problem = f"at least 1 each (a row stands for its records), got {array.min()}"
    if problem is not None:
        raise ParameterError(
            f"The row weights of a frequency set must be {problem}.",
            code="anonymize.bad_weights",
            rows=n_rows,
        )
    return array.astype(np.int64, copy=False)


def records_only(frame: Any, weights: Any, algorithm: str) -> None:
    """Refuse a frequency set where some row stands for several records, for an
    algorithm that releases each record on its own (KACA, condensation: the records of
    one frequency-set row could get different released values, which no mapping row of
    the frequency set can express). Weights all 1 are the records themselves: the
    algorithm runs on them as on any table, and its release is an ordinary one."""
    n_rows = len(frame) if isinstance(frame, pd.DataFrame) else 0
    weights = checked_weights(weights, n_rows)
    if weights is not None and len(weights) and int(weights.max()) > 1:
        raise InfeasibleError(
            f"{algorithm} needs the table's records in memory: run it on the pandas engine "
            "/ an in-memory table.",
            code="anonymize.needs_records",
            algorithm=algorithm,
        )


def check_feasible(problem: Problem) -> None:
    """Constraints no release of this table can meet, caught before any search, from
    what each model declares: a size-only model (k-anonymity) whose class size exceeds
    the table, a model needing more distinct values of a sensitive attribute in every
    class than the whole table holds (l-diversity)."""
    n = problem.n_rows
    for model in problem.constraints:
        size = model.minimal_class_size
        if model.size_only and size > n:
            raise InfeasibleError(
                f"k = {size} is larger than the table ({n} {'row' if n == 1 else 'rows'}): "
                f"no release can be {size}-anonymous.",
                code="anonymize.k_too_large",
                k=size,
                rows=n,
            )
        needed = model.minimal_distinct_values
        if needed <= 1:
            continue
        for name in model.checked_attributes(problem.sa):
            if name not in problem.sensitive:
                continue
            distinct = problem.sensitive[name].n_values  # every value occurs in the table
            if needed > distinct:
                raise InfeasibleError(
                    f"l = {needed} is larger than the number of distinct values of "
                    f"'{name}' ({distinct}): no class can hold {needed} of them.",
                    code="anonymize.l_too_large",
                    l=needed,
                    column=name,
                    distinct=distinct,
                )


def require_local_recoding(problem: Problem, algorithm: str) -> None:
    """Refuse a model that declares it cannot be checked on a locally recoded release
    (``local_recoding = False``) before a local-recoding algorithm starts."""
    refused = [m for m in problem.constraints if not m.local_recoding]
    if refused:
        names = ", ".join(m.name for m in refused)
        raise ParameterError(
            f"{algorithm} recodes each class on its own, and {names} needs one "
            "generalization for the whole table: use a full-domain algorithm (Datafly, "
            "Samarati, Incognito, optimal).",
            code="anonymize.needs_full_domain",
            algorithm=algorithm,
            models=[m.name for m in refused],
        )


LOCAL_RECODING_ROWS_ENV = "PRIVCORE_MAX_LOCAL_RECODING_ROWS"


def local_recoding_row_limit() -> int | None:
    """R of ``PRIVCORE_MAX_LOCAL_RECODING_ROWS`` (unset, empty or not a positive whole
    number: no limit). Read on every call, so a deployment or a test can set it."""
    raw = os.environ.get(LOCAL_RECODING_ROWS_ENV, "").strip().replace("_", "")
    try:
        value = int(raw)
    except ValueError:
        return None
    return value if value > 0 else None


def check_local_recoding_cost(algorithm: str, classes: int, violating: int) -> None:
    """Refuse, before the merging starts, a merge loop larger than this installation
    allows.

    KACA and condensation (for l-diversity and t-closeness) merge violating classes one
    at a time, each merge pricing the class against every class: about
    ``classes × violating`` comparisons in all (KACA: the table's distinct QI
    combinations and those that violate the constraints; condensation: its groups and
    those whose sensitive values fail). With ``PRIVCORE_MAX_LOCAL_RECODING_ROWS`` = R the
    estimate may be at most R × R — the work of a table of R distinct records that all
    violate. A hosted demo sets R so that one visitor's run stays short; a workstation
    sets none.
    """
    limit = local_recoding_row_limit()
    pairs = int(classes) * int(violating)
    if limit is not None and pairs > limit * limit:
        raise ParameterError(
            f"{algorithm} would compare {classes:,} classes with the {violating:,} that "
            f"violate the constraints (about {pairs:,} comparisons); this installation "
            f"allows the work of {limit:,} distinct records ({limit:,} × {limit:,}; "
            f"{LOCAL_RECODING_ROWS_ENV}). Use Mondrian or a full-domain algorithm, "
            "coarser hierarchies, or a sample of the table.",
            code="anonymize.local_recoding_limit",
            algorithm=algorithm,
            classes=int(classes),
            violating=int(violating),
            limit=limit,
            variable=LOCAL_RECODING_ROWS_ENV,
        )


class ClassChecker:
    """Checks one class — a set of rows — against every constraint (for the algorithms
    that build classes by merging: KACA, condensation).

    The class is a partition of its own rows, its SAs regrouped so that t-closeness
    keeps the table's distribution Q. Every model is monotone under merging (a union of
    classes is at least as diverse and at least as close to Q as the worst of them), so
    a table whose single class fails cannot be partitioned into satisfying classes.
    """

    def __init__(self, problem: Problem, algorithm: str) -> None:
        self.problem = problem
        self.algorithm = algorithm
        #: Sizes alone decide (every constraint is size-only, as k-anonymity is).
        self.sizes_decide = all(m.size_only for m in problem.constraints)
        self.minimum = problem.minimal_class_size

    def _partition(self, rows: np.ndarray) -> EquivalenceClasses:
        return one_class(rows, qi=self.problem.qi, sensitive=self.problem.sensitive)

    def violates(self, rows: np.ndarray) -> bool:
        """Whether the class made of ``rows`` fails some constraint."""
        if len(rows) < self.minimum:
            return True
        if self.sizes_decide:
            return False
        single = self._partition(rows)
        return any(not bool(model.class_pass(single)[0]) for model in self.problem.constraints)

    def violating_groups(self, group: np.ndarray) -> np.ndarray:
        """Boolean per group id 0..m-1 of ``group`` (one id per row of the table): the
        group fails some constraint. One vectorized check of every group at once."""
        n_groups = int(group.max()) + 1 if len(group) else 0
        partition = classes_from_codes(
            [group], [n_groups], qi=self.problem.qi, sensitive=self.problem.sensitive
        )
        fails = partition.sizes < self.minimum
        for model in self.problem.constraints:
            fails |= ~model.class_pass(partition)
        out = np.zeros(n_groups, dtype=bool)
        out[group[partition.first_row]] = fails
        return out

    def infeasible(self, rows: np.ndarray) -> InfeasibleError:
        """The error for a class holding the whole table that still fails."""
        single = self._partition(rows)
        failing = [m.requirement() for m in self.problem.constraints if not m.satisfied(single)]
        return InfeasibleError(
            f"{self.algorithm} merged the whole table ({len(rows)} rows) into one class and "
            f"it still fails {', '.join(failing)}: no partition of this table into classes "
            "meets the constraints. Loosen them.",
            code="anonymize.infeasible",
            failing=failing,
            rows=len(rows),
        )


#: The loss figures that read how coarse a released cell is against the original it
#: covers: they fit generalized releases only (:data:`privcore.core.kinds.CONSUMERS`).
GENERALIZATION_LOSS = ("gcp", "ncp", "precision", "whd_total", "whd_mean")


@dataclass(frozen=True, eq=False)
class LatticeTrace:
    """How a full-domain search walked the lattice, for the teaching chart.

    ``nodes``: one row per lattice node — levels per QI (one column each), ``height``,
    ``status`` ("satisfied", "not satisfied", "tagged satisfied", "tagged not
    satisfied", "not visited"), ``order`` (evaluation order, -1 if not evaluated),
    ``suppressed`` (for a satisfying node, the rows its release shows as suppressed; for
    another, the rows of its violating classes) and ``loss`` when computed.
    """

    qi: tuple[str, ...]
    nodes: pd.DataFrame
    chosen: tuple[int, ...] | None


@dataclass(frozen=True, eq=False)
class Release:
    """An anonymized table and everything known about how it was made.

    ``frame`` keeps the original row order (row i is record i) with identifiers
    removed; :meth:`export` shuffles it by default. ``class_ids`` (-1 = suppressed) and
    ``suppressed`` are per row: the suppressed rows are the rows the algorithm blanked,
    ``*`` in every QI (SPEC §13) — counted against the suppression limit, left out of
    the classes — while rows at ``*`` because their values were generalized to the top
    of every hierarchy are a class (:func:`~privcore.classes.release_classes` with the
    algorithm's ``blanked`` rows). ``n_suppressed`` is the one figure of suppressed
    records that the report, the measurement and the attack pages read. A synthetic
    release's ``class_ids`` are its condensation groups. ``node`` is the full-domain
    generalization (levels per QI) or None for local recoding and synthetic releases.
    ``measurement`` is the release measured by the independent code path of
    :mod:`privcore.models` and :mod:`privcore.measure`; every figure of
    :meth:`to_dict` comes from it (or from the algorithm's own loss figures,
    ``extra_loss``).
    """

    frame: pd.DataFrame
    algorithm: str
    qi: tuple[str, ...]
    sa: tuple[str, ...]
    removed: tuple[str, ...]
    class_ids: np.ndarray
    suppressed: np.ndarray
    node: tuple[int, ...] | None
    measurement: ReleaseMeasurement
    params: dict[str, Any]
    timings: dict[str, float]
    lattice: LatticeTrace | None = None
    synthetic: bool = False
    #: what the release is (:class:`~privcore.core.kinds.ReleaseKind`), declared by the
    #: method that made it; it decides which loss measures and attacks fit it
    kind: ReleaseKind = ReleaseKind.GENERALIZED
    #: the loss that fits a release other than a generalization
    #: (:func:`~privcore.measure.kind_loss.kind_loss`); empty for a generalization
    kind_loss: Mapping[str, Any] = field(default_factory=dict)
    record_levels: Mapping[str, np.ndarray] | None = None
    extra_loss: Mapping[str, float] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    schema: Schema | None = None  # the roles and hierarchies the algorithm ran with
    source: pd.DataFrame | None = field(default=None, repr=False)  # the input table
    weights: np.ndarray | None = field(default=None, repr=False)  # records per row
    #: a perturbative method's utility (:func:`privcore.measure.utility.perturbation_utility`)
    utility: Mapping[str, Any] | None = None
    #: a perturbative method's population-level risk
    #: (:func:`privcore.anonymize.perturbative.population_risk`)
    population_risk: Mapping[str, Any] | None = None
    #: a synthetic release's privacy models checked on its condensation groups
    #: (:func:`privcore.models.evaluate` of the groups): what ``satisfied`` says
    group_verdicts: Sequence[Mapping[str, Any]] | None = None

    @property
    def n_suppressed(self) -> int:
        """Records suppressed (rows, or the sum of their weights)."""
        if self.weights is None:
            return int(self.suppressed.sum())
        return int(self.weights[self.suppressed].sum())

    @property
    def n_records(self) -> int:
        """Records the release stands for: its rows, or the sum of their weights."""
        return len(self.frame) if self.weights is None else int(self.weights.sum())

    @property
    def loss(self) -> dict[str, Any]:
        """Information loss: the measurement's, plus the algorithm's own figures under
        their own names (Mondrian's ``ncp``). GCP is the measurement's — read from the
        released cells where they are no hierarchy labels — so that a release has one
        GCP on every page, in its file and on the command line.

        A release that is not a generalization (``kind``) has no GCP, precision or WHD
        — its cells cover no original value — so those are None, and its own loss
        figures come instead (:func:`~privcore.measure.kind_loss.kind_loss`: the
        distortion and IL1s of a perturbed release, the marginal distance of a
        synthetic one)."""
        out = {**self.extra_loss, **self.measurement.loss}
        if self.kind is ReleaseKind.GENERALIZED:
            return out
        for name in GENERALIZATION_LOSS:
            if name in out:
                out[name] = None
        for name in ("distortion", "il1s", "joint_tvd", "marginal_distance"):
            if isinstance(self.kind_loss.get(name), (int, float)):
                out[name] = self.kind_loss[name]
        marginals = self.kind_loss.get("marginals")
        if isinstance(marginals, Mapping):
            out["marginal_distance"] = marginals.get("marginal_distance")
        return out

    @property
    def loss_headline(self) -> dict[str, Any]:
        """The one figure that sums up the release's loss, over every quasi-identifier it
        changed: GCP for a generalization, the distortion of a perturbed release, the
        marginal distance of a synthetic one (``name``, ``value``, ``columns``)."""
        name = "gcp" if self.kind is ReleaseKind.GENERALIZED else self.kind_loss["headline"]
        value = self.loss.get(name)
        if name == "gcp" and value is None:
            value = self.loss.get("ncp")
        return {"name": name, "value": value, "columns": list(self.qi)}

    @property
    def satisfied(self) -> bool:
        """The constraints hold on the release's classes — for a synthetic release, on
        its condensation groups (its records are all distinct by construction)."""
        if self.synthetic:
            return bool(self.params.get("groups_satisfy", False))
        return self.measurement.models.satisfied

    def export(self, *, shuffle: bool = True, seed: int | None = None) -> pd.DataFrame:
        """The table to publish: identifiers already removed; rows shuffled unless
        ``shuffle=False`` (a release in the original order leaks identity to anyone who
        knows that order — the unsorted-matching attack).

        A release of a frequency set (``weights``) is a mapping, not the table: its
        engine writes the records (the input joined with it), so it cannot be exported
        here (:class:`~privcore.errors.ParameterError` ``anonymize.weighted_release``)."""
        if self.weights is not None:
            raise ParameterError(
                f"This release stands for {self.n_records:,} records; write it through its engine.",
                code="anonymize.weighted_release",
                records=self.n_records,
            )
        if not shuffle:
            return self.frame.reset_index(drop=True)
        rng = np.random.default_rng(self.params.get("seed", 0) if seed is None else seed)
        return self.frame.iloc[rng.permutation(len(self.frame))].reset_index(drop=True)

    @functools.cached_property
    def fingerprint(self) -> Any:
        """The released table's :func:`~privcore.data.loading.fingerprint` (SHA-256 of
        its rows, no data), computed once: the table is never changed in place. A
        frequency set's release hashes its weights too (:func:`weighted_fingerprint`)."""
        return weighted_fingerprint(self.frame, self.weights)

    def spec(self) -> dict[str, Any]:
        """The generalization applied, as JSON-able data that reproduces the release
        (:func:`privcore.anonymize.spec.reproduce`): the algorithm, its constraints,
        options, suppression limit and seed; the roles and hierarchies it used; the
        full-domain node; and fingerprints (SHA-256, no data) of the input table and of
        the release, so a reproduction is checked cell for cell. A frequency set's
        release records ``weighted`` (its fingerprints include the weights; it is
        reproduced from the same frequency set and weights)."""
        return {
            "format": SPEC_FORMAT,
            "algorithm": self.algorithm,
            "qi": list(self.qi),
            "sa": list(self.sa),
            "removed_identifiers": list(self.removed),
            "node": None if self.node is None else dict(zip(self.qi, self.node, strict=True)),
            "suppressed_rows": self.n_suppressed,
            "constraints": self.params.get("constraints", []),
            "max_suppression": self.params.get("max_suppression", 0.0),
            "seed": self.params.get("seed", 0),
            "options": {k: self.params[k] for k in SPEC_OPTIONS if k in self.params},
            "schema": None if self.schema is None else self.schema.to_dict(),
            "input": None
            if self.source is None
            else weighted_fingerprint(self.source, self.weights).to_dict(),
            "release": self.fingerprint.to_dict(),
            "params": self.params,
            "synthetic": self.synthetic,
            **({} if self.weights is None else {"weighted": True}),
        }

    def spec_json(self) -> str:
        return json.dumps(self.spec(), ensure_ascii=False, indent=2, default=_json_default)

    def history_summary(self) -> dict[str, Any]:
        """The figures the history keeps of a release (pages and CLI alike; no data)."""
        out = self.to_dict()
        keep = (
            "k",
            "classes",
            "suppressed_rows",
            "real_records",
            "seconds",
            "loss",
            "pl",
            "ul",
            "node",
            "satisfied",
            "population_risk",  # a perturbed release's
        )
        return {k: out[k] for k in keep if k in out}

    def to_dict(self) -> dict[str, Any]:
        """Summary for the history and the CLI report (documented keys).

        ``satisfied`` and ``verdicts`` speak of the same partition, named by
        ``satisfied_on``: the release's equivalence classes (``"classes"``), or — for a
        synthetic release — its condensation groups (``"groups"``), whose records are
        all distinct by construction; the models checked on those released records as
        classes are then ``record_verdicts`` (k = 1 there says that no two synthetic
        records are equal, not that a group is smaller than k)."""
        measured = self.measurement.to_dict()
        on_groups = self.synthetic and self.group_verdicts is not None
        verdicts = plain(list(self.group_verdicts)) if on_groups else measured["verdicts"]
        return {
            "algorithm": self.algorithm,
            "k": measured["k"],
            "classes": measured["classes"],
            "rows": measured["rows"],
            "suppressed_rows": measured["suppressed_rows"],
            "real_records": measured["real_records"],
            "seconds": round(self.timings.get("total", 0.0), 4),
            "loss": {k: v for k, v in self.loss.items() if isinstance(v, (int, float))},
            "pl": measured["pl"]["all"],
            "ul": measured["ul"],
            "dr": measured["dr"],
            "node": None if self.node is None else dict(zip(self.qi, self.node, strict=True)),
            "satisfied": self.satisfied,
            "satisfied_on": "groups" if self.synthetic else "classes",
            "verdicts": verdicts,
            **({"record_verdicts": measured["verdicts"]} if on_groups else {}),
            "l_distinct": measured["l_distinct"],
            "t_closeness": measured["t_closeness"],
            "synthetic": self.synthetic,
            "kind": self.kind.value,
            "loss_headline": self.loss_headline,
            **({"loss_detail": plain(dict(self.kind_loss))} if self.kind_loss else {}),
            "params": self.params,
            "notes": list(self.notes),
            **({} if self.utility is None else {"utility": self.utility}),
            **({} if self.population_risk is None else {"population_risk": self.population_risk}),
        }


def weighted_fingerprint(frame: pd.DataFrame, weights: np.ndarray | None) -> Any:
    """:func:`~privcore.data.loading.fingerprint` of ``frame``; with ``weights`` (a
    frequency set), SHA-256 of that fingerprint and the weights' bytes, with ``rows``
    the records the table stands for — so two frequency sets with the same rows and
    other counts differ."""
    from privcore.data.loading import Fingerprint, fingerprint

    plain = fingerprint(frame)
    if weights is None:
        return plain
    digest = hashlib.sha256(plain.sha256.encode())
    digest.update(b"\x1eweights\x1e")
    digest.update(np.asarray(weights, dtype="<i8").tobytes())
    return Fingerprint(digest.hexdigest(), int(np.sum(weights)), plain.columns)


def _json_default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    return str(value)


def suppress(frame: pd.DataFrame, qi: Sequence[str], rows: np.ndarray) -> pd.DataFrame:
    """Show every QI of ``rows`` (bool mask) as ``*``; the rows stay in place. A text
    column is masked as it is (no Python string per row); another becomes text."""
    out = frame.copy()
    if rows.any():
        for column in qi:
            if out[column].dtype == "str":
                out[column] = out[column].mask(rows, SUPPRESSED)
                continue
            values = out[column].astype(object).to_numpy(copy=True)
            values[rows] = SUPPRESSED
            out[column] = pd.Series(values, index=out.index).astype("str")
    return out


def _small_levels(levels: np.ndarray) -> np.ndarray:
    """Per-row hierarchy levels in the smallest integer type (a level is at most a
    hierarchy's height)."""
    levels = np.asarray(levels)
    return compact_codes(levels, int(levels.max()) + 1 if len(levels) else 1)


def finish(
    problem: Problem,
    released: pd.DataFrame,
    suppressed: np.ndarray,
    *,
    algorithm: str,
    node: tuple[int, ...] | None = None,
    lattice: LatticeTrace | None = None,
    params: Mapping[str, Any] | None = None,
    started: float,
    search_seconds: float | None = None,
    synthetic: bool = False,
    record_levels: Mapping[str, np.ndarray] | None = None,
    extra_loss: Mapping[str, float] | None = None,
    notes: Sequence[str] = (),
    class_override: np.ndarray | None = None,
    coded: Sequence[str] = (),
    kind: ReleaseKind | None = None,
    numeric: Sequence[str] = (),
) -> Release:
    """Remove identifiers, measure the release independently, and wrap it up.

    ``kind`` is what the release is (default: synthetic when ``synthetic``, else a
    generalization); a release of another kind than a generalization also gets the loss
    that fits it (:func:`~privcore.measure.kind_loss.kind_loss`), with ``numeric`` the
    quasi-identifiers that hold measurements.

    ``suppressed`` (a boolean per row) are the rows the algorithm blanked — ``*`` in
    every QI. They are the release's suppressed rows (SPEC §13), whatever they would be
    as one class: the measurement leaves them out of the classes
    (:func:`~privcore.classes.release_classes` with ``blanked``), while rows at ``*``
    because their values were generalized to the top of every hierarchy form a class.
    More suppressed records than the limit allows raise
    :class:`~privcore.errors.InfeasibleError` ``anonymize.suppression_over_limit``
    (:func:`suppression_over_limit`). ``class_override`` gives a synthetic release's
    groups (its ``class_ids``).

    ``coded`` names the columns of ``released`` that the algorithm gives as pandas
    categoricals of their released text (1–2 bytes per row): the release is measured
    in that form — the measurement reads only which cells are equal and the text of
    the distinct cells, the same for a categorical as for its text — and only then are
    those columns turned into the text the release holds (:func:`categorical_text`),
    so that the text (the largest part of a release) and the measurement's row-sized
    arrays are never in memory together.

    For a frequency set (``problem.weights``) ``released`` has one row per row of the
    input, aligned with it — the mapping from each frequency-set row to its released
    values — and is measured with the weights, so that classes, suppression, loss and
    every figure count records; the release keeps the weights.
    """
    released = released.drop(columns=[c for c in problem.identifiers if c in released.columns])
    measure_started = time.perf_counter()
    weighted = {} if problem.weights is None else {"weights": problem.weights}
    blanked = np.asarray(suppressed, dtype=bool)
    measurement = measure_release(
        problem.frame.drop(columns=list(problem.identifiers), errors="ignore"),
        released,
        qi=problem.qi,
        sa=problem.sa,
        models=problem.constraints,
        hierarchies=problem.hierarchies,
        blanked=blanked,
        **weighted,
    )
    if coded:
        released, measurement = _as_text(released, measurement, coded)
    classes = measurement.classes
    if classes.n_suppressed > problem.budget:
        raise suppression_over_limit(problem, classes.n_suppressed, algorithm)
    notes = [*notes, *_top_notes(released, problem, classes)]
    real = measurement.real_records
    if synthetic and real.get("any"):
        notes.append(
            Note(
                "anonymize.real_records",
                f"{real['any']} released row(s) equal a real record of the input in every "
                f"quasi-identifier and sensitive attribute ({real['own']} of them their own "
                "record): synthesis returns the real values of a group whose numeric values "
                "are all equal.",
                any=real["any"],
                own=real["own"],
            )
        )
    class_ids = class_override if synthetic and class_override is not None else classes.ids
    groups_satisfy, group_verdicts = None, None
    if synthetic and class_override is not None:
        groups = classes_from_codes(
            [np.asarray(class_override) + 1],
            [int(np.max(class_override)) + 2],
            qi=problem.qi,
            sensitive=problem.sensitive,
        )
        group_verdicts = evaluate(groups, problem.constraints).verdicts
        groups_satisfy = all(v["passed"] for v in group_verdicts)
    total = time.perf_counter() - started
    timings = {
        "search": search_seconds if search_seconds is not None else measure_started - started,
        "measure": time.perf_counter() - measure_started,
        "total": total,
    }
    if kind is None:
        kind = ReleaseKind.SYNTHETIC if synthetic else ReleaseKind.GENERALIZED
    fitting_loss = (
        {}
        if kind is ReleaseKind.GENERALIZED
        else kind_loss(kind, problem.frame, released, problem.qi, numeric)
    )
    all_params = {
        "algorithm": algorithm,
        "constraints": [m.to_dict() for m in problem.constraints],
        "max_suppression": problem.max_suppression,
        "seed": problem.seed,
        **(params or {}),
        **({"groups_satisfy": groups_satisfy} if groups_satisfy is not None else {}),
    }
    return Release(
        frame=released,
        algorithm=algorithm,
        qi=problem.qi,
        sa=problem.sa,
        removed=tuple(c for c in problem.identifiers if c in problem.frame.columns),
        class_ids=class_ids,
        suppressed=classes.suppressed.copy(),
        node=node,
        measurement=measurement,
        params=all_params,
        timings=timings,
        lattice=lattice,
        synthetic=synthetic,
        kind=kind,
        kind_loss=fitting_loss,
        record_levels=None
        if record_levels is None
        else {c: _small_levels(levels) for c, levels in record_levels.items()},
        extra_loss=dict(extra_loss or {}),
        notes=tuple(notes),
        schema=_used_schema(problem),
        source=problem.frame,
        weights=problem.weights,
        group_verdicts=group_verdicts,
    )


def categorical_text(series: pd.Series) -> pd.Series:
    """A categorical column as the text column it stands for: each cell the text of its
    category, a missing cell (code -1) missing; the pandas ``str`` type, built in Arrow
    from the codes and the categories (no Python string per row). Its buffers come from
    the system allocator, which reuses the memory the measurement has just freed;
    Arrow's default pool would add them on top of it."""
    values = series.array
    codes = np.asarray(values.codes)
    categories = np.asarray(values.categories, dtype=object)
    dictionary = pa.array(categories, type=pa.large_string())
    indices = pa.array(codes, mask=codes < 0) if (codes < 0).any() else pa.array(codes)
    text = pc.cast(
        pa.DictionaryArray.from_arrays(indices, dictionary),
        pa.large_string(),
        memory_pool=pa.system_memory_pool(),
    )
    return pd.Series(pd.array(text, dtype="str"), index=series.index, name=series.name)


def _as_text(
    released: pd.DataFrame, measurement: ReleaseMeasurement, coded: Sequence[str]
) -> tuple[pd.DataFrame, ReleaseMeasurement]:
    """The release with its ``coded`` (categorical) columns as text, and its measurement
    holding that text: the aligned release (the release's rows, renumbered 0..n-1 as
    :func:`~privcore.measure.report.measure_release` pairs them by position) and the
    class table of the models' report."""
    released = released.copy(deep=False)
    for column in coded:
        released[column] = categorical_text(released[column])
    models = measurement.models
    table = models.class_table
    if table is not None and any(c in table.columns for c in coded):
        table = table.copy(deep=False)
        for column in coded:
            if column in table.columns and isinstance(table[column].dtype, pd.CategoricalDtype):
                table[column] = categorical_text(table[column])
        models = dataclasses.replace(models, class_table=table)
    measurement = dataclasses.replace(
        measurement, release=released.reset_index(drop=True), models=models
    )
    return released, measurement


def suppression_over_limit(problem: Problem, suppressed: int, algorithm: str) -> InfeasibleError:
    """The refusal of a release that would suppress ``suppressed`` records (rows blanked
    in every QI) while the limit allows ``problem.budget``: it names the smallest limit
    that would allow them, ⌈1000 · suppressed / n⌉ / 10 per cent (n the records), so
    that the limit ⌊limit · n⌋ reaches them."""
    n = max(problem.n_rows, 1)
    needed = math.ceil(1000 * suppressed / n - 1e-9) / 10
    return InfeasibleError(
        f"{algorithm}: {suppressed} record(s) would be suppressed (every quasi-identifier "
        f"'*'), above the limit of {problem.budget}. Raise the suppression limit to at "
        f"least {needed:g} %, or loosen the constraints.",
        code="anonymize.suppression_over_limit",
        algorithm=algorithm,
        suppressed=int(suppressed),
        budget=problem.budget,
        needed=f"{needed:g}",
    )


def _top_notes(released: pd.DataFrame, problem: Problem, classes: EquivalenceClasses) -> list[str]:
    """What the rows showing ``*`` in every QI are in the release, in words: the
    suppressed ones (blanked by the algorithm), and those generalized to the top."""
    top = top_rows(released, problem.qi, classes=classes)
    suppressed = classes.n_suppressed
    generalized = problem.records(top & ~classes.suppressed)
    notes = []
    if suppressed:
        notes.append(
            Note(
                "anonymize.top_suppressed",
                f"{suppressed} row(s) were suppressed by the algorithm ('*' in every "
                f"quasi-identifier): counted against the limit, which allows "
                f"{problem.budget}, and left out of the classes.",
                size=suppressed,
                budget=problem.budget,
            )
        )
    if generalized:
        notes.append(
            Note(
                "anonymize.top_class",
                f"{generalized} row(s) show '*' in every quasi-identifier because their "
                "values were generalized to the top of every hierarchy: they are one "
                "equivalence class (the top of the lattice), not suppressed rows.",
                size=generalized,
            )
        )
    return notes


def _used_schema(problem: Problem) -> Schema:
    """The roles an algorithm ran with (QIs, SAs, identifiers) and their hierarchies."""
    roles = {
        **{c: "identifier" for c in problem.identifiers if c in problem.frame.columns},
        **{c: "quasi_identifier" for c in problem.qi},
        **{c: "sensitive" for c in problem.sa},
    }
    return Schema(roles, {c: h for c, h in problem.hierarchies.items() if c in roles})
