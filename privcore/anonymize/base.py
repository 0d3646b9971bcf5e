"""What every anonymization algorithm shares: the prepared problem, the Release, progress.

One signature for the whole family (ARCHITECTURE.md)::

    anonymize(df, schema, constraints, *, max_suppression, seed, progress=None) -> Release

``constraints`` are privacy-model objects of :mod:`privcore.models`; ``max_suppression``
is the share of rows (0–1) that may be suppressed — shown with every QI as ``*``,
counted, never dropped (SPEC §2); ``progress(fraction, message)`` is called between
steps and may raise :class:`~privcore.errors.CancelledError` to stop the work.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from privcore.classes import (
    SUPPRESSED,
    EquivalenceClasses,
    SensitiveAttribute,
    classes_from_codes,
    sensitive_attributes,
)
from privcore.data.hierarchy import Hierarchy
from privcore.data.schema import Schema
from privcore.errors import HierarchyError, InfeasibleError, ParameterError, RoleError
from privcore.measure.report import ReleaseMeasurement, measure_release
from privcore.models import (
    DistinctLDiversity,
    KAnonymity,
    PrivacyModel,
    RecursiveCLDiversity,
)

Progress = Callable[[float, str], None]
SPEC_FORMAT = "privcore-release-spec/1"
SPEC_OPTIONS = ("loss_metric", "summary", "beta")  # algorithm keywords a spec replays


def report_progress(progress: Progress | None, fraction: float, message: str) -> None:
    """Tell the caller how far the work is (it may raise CancelledError to stop it)."""
    if progress is not None:
        progress(min(max(float(fraction), 0.0), 1.0), message)


@dataclass(frozen=True, eq=False)
class Problem:
    """The validated input of an algorithm, with each QI encoded once.

    ``leaf_codes[q]`` holds each row's leaf index in QI q's hierarchy (-1 for missing)
    when the QI has a hierarchy; ``sensitive`` the factorized sensitive attributes.
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

    @property
    def n_rows(self) -> int:
        return len(self.frame)

    @property
    def budget(self) -> int:
        """Rows that may be suppressed: ⌊max_suppression · n⌋ (honoured exactly)."""
        return math.floor(self.max_suppression * self.n_rows + 1e-9)

    @property
    def k(self) -> int:
        return max((c.k for c in self.constraints if isinstance(c, KAnonymity)), default=1)


def prepare(
    frame: pd.DataFrame,
    schema: Schema,
    constraints: Sequence[PrivacyModel],
    *,
    max_suppression: float,
    seed: int,
    need_hierarchies: bool,
) -> Problem:
    """Validate the input and encode it; every error names the problem for the user."""
    if not isinstance(frame, pd.DataFrame) or frame.empty:
        raise InfeasibleError("The table has no rows to anonymize.", code="anonymize.empty")
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
    leaf_codes = {c: hierarchies[c].encode(frame[c]) for c in qi if c in hierarchies}
    sensitive = sensitive_attributes(frame, list(sa), hierarchies)
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
    )
    check_feasible(problem)
    return problem


def check_feasible(problem: Problem) -> None:
    """Constraints no release of this table can meet, caught before any search."""
    n = problem.n_rows
    for model in problem.constraints:
        if isinstance(model, KAnonymity) and model.k > n:
            raise InfeasibleError(
                f"k = {model.k} is larger than the table ({n} {'row' if n == 1 else 'rows'}): "
                f"no release can be {model.k}-anonymous.",
                code="anonymize.k_too_large",
                k=model.k,
                rows=n,
            )
        if isinstance(model, (DistinctLDiversity, RecursiveCLDiversity)):
            for name in model.attributes or problem.sa:
                if name not in problem.sensitive:
                    continue
                distinct = int(np.unique(problem.sensitive[name].codes).size)
                if model.l > distinct:
                    raise InfeasibleError(
                        f"l = {model.l} is larger than the number of distinct values of "
                        f"'{name}' ({distinct}): no class can hold {model.l} of them.",
                        code="anonymize.l_too_large",
                        l=model.l,
                        column=name,
                        distinct=distinct,
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
        self.only_k = all(isinstance(m, KAnonymity) for m in problem.constraints)

    def _partition(self, rows: np.ndarray) -> EquivalenceClasses:
        problem = self.problem
        return EquivalenceClasses(
            ids=np.zeros(len(rows), dtype=np.int64),
            sizes=np.array([len(rows)], dtype=np.int64),
            first_row=np.zeros(1, dtype=np.int64),
            qi=problem.qi,
            sensitive={
                name: attribute.regrouped(attribute.codes[rows], None)
                for name, attribute in problem.sensitive.items()
            },
        )

    def violates(self, rows: np.ndarray) -> bool:
        """Whether the class made of ``rows`` fails some constraint."""
        if len(rows) < self.problem.k:
            return True
        if self.only_k:
            return False
        single = self._partition(rows)
        return any(not bool(model.class_pass(single)[0]) for model in self.problem.constraints)

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


@dataclass(frozen=True, eq=False)
class LatticeTrace:
    """How a full-domain search walked the lattice, for the teaching chart.

    ``nodes``: one row per lattice node — levels per QI (one column each), ``height``,
    ``status`` ("satisfied", "not satisfied", "tagged satisfied", "tagged not
    satisfied", "not visited"), ``order`` (evaluation order, -1 if not evaluated),
    ``suppressed`` (rows a satisfying node would suppress) and ``loss`` when computed.
    """

    qi: tuple[str, ...]
    nodes: pd.DataFrame
    chosen: tuple[int, ...] | None


@dataclass(frozen=True, eq=False)
class Release:
    """An anonymized table and everything known about how it was made.

    ``frame`` keeps the original row order (row i is record i) with identifiers
    removed; :meth:`export` shuffles it by default. ``class_ids`` (-1 = suppressed) and
    ``suppressed`` are per row. ``node`` is the full-domain generalization (levels per
    QI) or None for local recoding and synthetic releases. ``measurement`` is the
    release measured by the independent code path of :mod:`privcore.models` and
    :mod:`privcore.measure`.
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
    record_levels: Mapping[str, np.ndarray] | None = None
    extra_loss: Mapping[str, float] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    schema: Schema | None = None  # the roles and hierarchies the algorithm ran with
    source: pd.DataFrame | None = field(default=None, repr=False)  # the input table

    @property
    def n_suppressed(self) -> int:
        return int(self.suppressed.sum())

    @property
    def loss(self) -> dict[str, Any]:
        """Information loss: the measurement's, with the algorithm's own figures on top.
        An algorithm that reports NCP over every QI (Mondrian's ranges are no hierarchy
        labels) gives the GCP shown."""
        merged = {**self.measurement.loss, **self.extra_loss}
        if "ncp" in self.extra_loss:
            merged["gcp"] = self.extra_loss["ncp"]
        return merged

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
        knows that order — the unsorted-matching attack)."""
        if not shuffle:
            return self.frame.reset_index(drop=True)
        rng = np.random.default_rng(self.params.get("seed", 0) if seed is None else seed)
        return self.frame.iloc[rng.permutation(len(self.frame))].reset_index(drop=True)

    def spec(self) -> dict[str, Any]:
        """The generalization applied, as JSON-able data that reproduces the release
        (:func:`privcore.anonymize.spec.reproduce`): the algorithm, its constraints,
        options, suppression limit and seed; the roles and hierarchies it used; the
        full-domain node; and fingerprints (SHA-256, no data) of the input table and of
        the release, so a reproduction is checked cell for cell."""
        from privcore.data.loading import fingerprint

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
            "input": None if self.source is None else fingerprint(self.source).to_dict(),
            "release": fingerprint(self.frame).to_dict(),
            "params": self.params,
            "synthetic": self.synthetic,
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
            "seconds",
            "loss",
            "pl",
            "ul",
            "node",
            "satisfied",
        )
        return {k: out[k] for k in keep}

    def to_dict(self) -> dict[str, Any]:
        """Summary for the history and the CLI report (documented keys)."""
        measured = self.measurement.to_dict()
        return {
            "algorithm": self.algorithm,
            "k": measured["k"],
            "classes": measured["classes"],
            "rows": measured["rows"],
            "suppressed_rows": self.n_suppressed,
            "seconds": round(self.timings.get("total", 0.0), 4),
            "loss": {k: v for k, v in self.loss.items() if isinstance(v, (int, float))},
            "pl": measured["pl"]["all"],
            "ul": measured["ul"],
            "dr": measured["dr"],
            "node": None if self.node is None else dict(zip(self.qi, self.node, strict=True)),
            "satisfied": self.satisfied,
            "verdicts": measured["verdicts"],
            "l_distinct": measured["l_distinct"],
            "t_closeness": measured["t_closeness"],
            "synthetic": self.synthetic,
            "params": self.params,
            "notes": list(self.notes),
        }


def _json_default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    return str(value)


def suppress(frame: pd.DataFrame, qi: Sequence[str], rows: np.ndarray) -> pd.DataFrame:
    """Show every QI of ``rows`` (bool mask) as ``*``; the rows stay in place."""
    out = frame.copy()
    if rows.any():
        for column in qi:
            values = out[column].astype(object).to_numpy(copy=True)
            values[rows] = SUPPRESSED
            out[column] = pd.Series(values, index=out.index).astype("str")
    return out


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
) -> Release:
    """Remove identifiers, measure the release independently, and wrap it up."""
    released = released.drop(columns=[c for c in problem.identifiers if c in released.columns])
    measure_started = time.perf_counter()
    measurement = measure_release(
        problem.frame.drop(columns=list(problem.identifiers), errors="ignore"),
        released,
        qi=problem.qi,
        sa=problem.sa,
        models=problem.constraints,
        hierarchies=problem.hierarchies,
    )
    class_ids = measurement.classes.ids if class_override is None else class_override
    groups_satisfy = None
    if synthetic and class_override is not None:
        groups = classes_from_codes(
            [np.asarray(class_override) + 1],
            [int(np.max(class_override)) + 2],
            qi=problem.qi,
            sensitive=problem.sensitive,
        )
        groups_satisfy = all(model.satisfied(groups) for model in problem.constraints)
    total = time.perf_counter() - started
    timings = {
        "search": search_seconds if search_seconds is not None else measure_started - started,
        "measure": time.perf_counter() - measure_started,
        "total": total,
    }
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
        suppressed=np.asarray(suppressed, dtype=bool),
        node=node,
        measurement=measurement,
        params=all_params,
        timings=timings,
        lattice=lattice,
        synthetic=synthetic,
        record_levels=record_levels,
        extra_loss=dict(extra_loss or {}),
        notes=tuple(notes),
        schema=_used_schema(problem),
        source=problem.frame,
    )


def _used_schema(problem: Problem) -> Schema:
    """The roles an algorithm ran with (QIs, SAs, identifiers) and their hierarchies."""
    roles = {
        **{c: "identifier" for c in problem.identifiers if c in problem.frame.columns},
        **{c: "quasi_identifier" for c in problem.qi},
        **{c: "sensitive" for c in problem.sa},
    }
    return Schema(roles, {c: h for c, h in problem.hierarchies.items() if c in roles})
