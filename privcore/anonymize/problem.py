"""The prepared problem every anonymization algorithm works on, and its checks.

:func:`prepare` validates the roles, the constraints and the suppression limit and
factorizes the columns once (leaf codes of the QIs, the sensitive attributes); the
checks refuse, before any work, what an algorithm cannot do: a frequency set where the
records are needed, a model that cannot be checked on a locally recoded release, a
merge loop larger than the installation allows. :class:`ClassChecker` checks one class
(a set of rows) against every constraint, for the algorithms that merge classes.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from privcore.classes import (
    EquivalenceClasses,
    SensitiveAttribute,
    classes_from_codes,
    compact_codes,
    one_class,
    sensitive_attributes,
)
from privcore.core.privacy_parameters import as_float
from privcore.data.codes import checked_counts
from privcore.data.hierarchy import Hierarchy
from privcore.data.schema import Schema
from privcore.errors import HierarchyError, InfeasibleError, ParameterError, RoleError
from privcore.models import PrivacyModel


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
    max_suppression = as_float(max_suppression)
    ParameterError.unless_within(
        max_suppression,
        0.0,
        1.0,
        "The suppression limit must be a share between 0 and 1 (got {value}).",
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
    return checked_counts(
        weights, n_rows, what="row weights of a frequency set", code="anonymize.bad_weights"
    )


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


class Call(NamedTuple):
    """What every algorithm is given besides its own options — the one signature of
    :mod:`privcore.anonymize` (:func:`shared_signature`): the table, its roles, the
    constraints, the suppression limit (a share of the records), the seed, the progress
    callback, and the frequency-set weights (one whole number ≥ 1 per row, or None)."""

    df: pd.DataFrame
    schema: Schema
    constraints: Sequence[PrivacyModel]
    max_suppression: float = 0.0
    seed: int = 0
    progress: Any = None
    weights: np.ndarray | None = None

    def records(self, algorithm: str) -> Call:
        """This call for an algorithm that releases each record on its own: a frequency
        set whose rows stand for several records refused (:func:`records_only`), weights
        all 1 dropped (the rows are the records; the release is an ordinary one)."""
        records_only(self.df, self.weights, algorithm)
        return self._replace(weights=None)

    def prepare(self, *, need_hierarchies: bool) -> Problem:
        """The validated, encoded problem (:func:`prepare`)."""
        return prepare(
            self.df,
            self.schema,
            self.constraints,
            max_suppression=self.max_suppression,
            seed=self.seed,
            need_hierarchies=need_hierarchies,
            weights=self.weights,
        )


def shared_signature(algorithm: Callable[..., Any]) -> Callable[..., Any]:
    """``algorithm(call, **own)`` with the signature every algorithm shares,
    ``(df, schema, constraints, *, max_suppression=0.0, seed=0, progress=None,
    weights=None, **own)``, written here once: ``own`` are the algorithm's own options
    (declared in :data:`privcore.anonymize.ALGORITHMS`)."""

    @functools.wraps(algorithm)
    def shared(
        df: pd.DataFrame,
        schema: Schema,
        constraints: Sequence[PrivacyModel],
        *,
        max_suppression: float = 0.0,
        seed: int = 0,
        progress: Any = None,
        weights: np.ndarray | None = None,
        **own: Any,
    ) -> Any:
        call = Call(df, schema, constraints, max_suppression, seed, progress, weights)
        return algorithm(call, **own)

    own_parameters = list(inspect.signature(algorithm).parameters.values())[1:]
    shared_parameters = list(inspect.signature(shared, follow_wrapped=False).parameters.values())[
        :-1
    ]
    shared.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        shared_parameters + own_parameters,
        return_annotation=inspect.signature(algorithm).return_annotation,
    )
    return shared
