"""What a reconstruction found: the rebuilt table, how many tables fit, the certain
records, the fit of noisy statistics and, against the true table, the share rebuilt.

Against the truth, records are paired one to one so that as many pairs as possible
agree: a pair is *exact* when every column agrees, *within tolerance* when every
categorical column agrees and each numeric column differs by at most its tolerance (age
± 1 by default). The shares are the matched pairs over the true records; each share has
its own optimal pairing. Records of one type are interchangeable, so the pairing is
found on the types: exact pairs are Σₜ min(true count, rebuilt count) of each type t;
pairs within tolerance are a maximum flow (:func:`scipy.sparse.csgraph.maximum_flow`)
from the true types (capacity: their counts) to the rebuilt types within tolerance of
them (capacity: theirs) — a maximum bipartite matching of the records, computed on at
most as many nodes as there are distinct types.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import maximum_flow

from privcore.attacks.reconstruction.statistics import Schema
from privcore.classes import distinct

DEFAULT_TOLERANCE = 1.0  # numeric columns: a rebuilt age within ± 1 year of the true one


@dataclass(frozen=True)
class Accuracy:
    """Records rebuilt, against a true table of ``n_true`` records."""

    n_true: int
    n_rebuilt: int
    exact: int
    within_tolerance: int
    tolerance: dict[str, float]

    @property
    def exact_share(self) -> float:
        return self.exact / self.n_true if self.n_true else 0.0

    @property
    def within_tolerance_share(self) -> float:
        return self.within_tolerance / self.n_true if self.n_true else 0.0


@dataclass(frozen=True)
class Fit:
    """A noisy statistic: its published value, the value in the rebuilt table, the gap
    and the error it had to stay within."""

    statistic: str
    published: float
    model: float
    bound: float

    @property
    def deviation(self) -> float:
        return abs(self.published - self.model)


@dataclass
class Reconstruction:
    """The outcome of :func:`~privcore.attacks.reconstruction.reconstruct`.

    ``table`` is the rebuilt table (the best fit of the noisy statistics; any table when
    all are exact), ``None`` when no table was found in time. ``solutions`` are the
    tables found (``table`` first); ``complete`` says that no other table fits, so
    ``len(solutions)`` is their exact number; otherwise at least ``at_least`` fit.
    ``certain`` holds the records that are in *every* fitting table (with multiplicity),
    ``None`` when the time ran out before they were verified.
    """

    table: pd.DataFrame | None
    solutions: list[pd.DataFrame]
    complete: bool
    at_least: int
    certain: pd.DataFrame | None
    fit: list[Fit] = field(default_factory=list)
    accuracy: Accuracy | None = None
    timed_out: bool = False
    message: str = ""
    seconds: float = 0.0
    solves: int = 0

    @property
    def unique(self) -> bool:
        return self.complete and len(self.solutions) == 1

    @property
    def solutions_text(self) -> str:
        """``unique``, ``exactly N`` or ``at least N`` (or ``none found`` in time)."""
        if not self.solutions:
            return "none found"
        if self.unique:
            return "unique"
        if self.complete:
            return f"exactly {len(self.solutions)}"
        return f"at least {self.at_least}"

    @property
    def certain_share(self) -> float | None:
        """Certain records over the rebuilt records."""
        if self.certain is None or self.table is None or not len(self.table):
            return None
        return len(self.certain) / len(self.table)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary (records as lists of dicts)."""
        return {
            "solutions": self.solutions_text,
            "unique": self.unique,
            "records": [] if self.table is None else self.table.to_dict("records"),
            "certain": None if self.certain is None else self.certain.to_dict("records"),
            "exact_share": None if self.accuracy is None else self.accuracy.exact_share,
            "within_tolerance_share": (
                None if self.accuracy is None else self.accuracy.within_tolerance_share
            ),
            "fit": [
                {
                    "statistic": f.statistic,
                    "published": f.published,
                    "model": f.model,
                    "bound": f.bound,
                }
                for f in self.fit
            ],
            "timed_out": self.timed_out,
            "message": self.message,
            "seconds": self.seconds,
            "solves": self.solves,
        }


def compare(
    truth: pd.DataFrame,
    rebuilt: pd.DataFrame,
    schema: Schema,
    tolerance: Mapping[str, float] | None = None,
) -> Accuracy:
    """The records of ``rebuilt`` matched one to one to those of ``truth`` (see the
    module's docstring); ``tolerance`` per numeric column, ± 1 when not given."""
    if tolerance is None:
        tolerance = {c: DEFAULT_TOLERANCE for c in schema.columns if schema.is_numeric(c)}
    tolerance = {c: float(t) for c, t in tolerance.items()}
    true_types, true_counts = distinct(schema.type_of(truth), return_counts=True)
    rebuilt_types, rebuilt_counts = distinct(schema.type_of(rebuilt), return_counts=True)
    _, at_true, at_rebuilt = np.intersect1d(true_types, rebuilt_types, return_indices=True)
    exact = int(np.minimum(true_counts[at_true], rebuilt_counts[at_rebuilt]).sum())
    source, target = _within(schema, tolerance, true_types, rebuilt_types)
    return Accuracy(
        n_true=len(truth),
        n_rebuilt=len(rebuilt),
        exact=exact,
        within_tolerance=_most_pairs(true_counts, rebuilt_counts, source, target),
        tolerance=dict(tolerance),
    )


def pooled(accuracies: Iterable[Accuracy]) -> Accuracy | None:
    """The records of several blocks rebuilt, together (shares over all true records)."""
    accuracies = list(accuracies)
    if not accuracies:
        return None
    return Accuracy(
        n_true=sum(a.n_true for a in accuracies),
        n_rebuilt=sum(a.n_rebuilt for a in accuracies),
        exact=sum(a.exact for a in accuracies),
        within_tolerance=sum(a.within_tolerance for a in accuracies),
        tolerance=accuracies[0].tolerance,
    )


def _within(
    schema: Schema,
    tolerance: Mapping[str, float],
    true_types: np.ndarray,
    rebuilt_types: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """The pairs (index among ``true_types``, index among ``rebuilt_types``) of types
    within tolerance of each other: every column equal but the tolerant numeric ones,
    each within its width. Built column by column from the true types' codes, each
    tolerant column widening a type to the domain values within reach."""
    sizes = schema.sizes
    radix = np.concatenate([np.cumprod(sizes[::-1])[::-1][1:], [1]]).astype(np.int64)
    codes = schema.codes()[true_types] if len(true_types) else np.zeros((0, len(sizes)), int)
    source = np.arange(len(true_types), dtype=np.int64)
    neighbour = np.zeros(len(true_types), dtype=np.int64)
    for j, column in enumerate(schema.columns):
        if column not in tolerance:
            neighbour += codes[source, j] * radix[j]
            continue
        values = schema.numbers(column)
        reach = np.abs(values[:, None] - values[None, :]) <= tolerance[column] + 1e-9
        here, there = np.nonzero(reach[codes[source, j]])  # not rows: types × values
        source, neighbour = source[here], neighbour[here] + there * radix[j]
    position = np.searchsorted(rebuilt_types, neighbour)
    position = np.minimum(position, max(len(rebuilt_types) - 1, 0))
    found = len(rebuilt_types) > 0
    hit = rebuilt_types[position] == neighbour if found else np.zeros(len(source), dtype=bool)
    return source[hit], position[hit]


def _most_pairs(
    true_counts: np.ndarray, rebuilt_counts: np.ndarray, source: np.ndarray, target: np.ndarray
) -> int:
    """The most (true, rebuilt) record pairs, each record in at most one, where a true
    record of type ``source[e]`` may pair with a rebuilt one of type ``target[e]``: the
    maximum flow from a source through the true types (their counts) and the allowed
    pairs to the rebuilt types (their counts) and a sink."""
    if not len(source):
        return 0
    a, b = len(true_counts), len(rebuilt_counts)
    sink = a + b + 1
    tails = np.concatenate([np.zeros(a, np.int64), 1 + source, 1 + a + np.arange(b)])
    heads = np.concatenate([1 + np.arange(a), 1 + a + target, np.full(b, sink)])
    capacity = np.concatenate(
        [true_counts, np.minimum(true_counts[source], rebuilt_counts[target]), rebuilt_counts]
    ).astype(np.int32)
    graph = csr_matrix((capacity, (tails, heads)), shape=(sink + 1, sink + 1))
    return int(maximum_flow(graph, 0, sink, method="dinic").flow_value)
