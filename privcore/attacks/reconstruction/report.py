"""What a reconstruction found: the rebuilt table, how many tables fit, the certain
records, the fit of noisy statistics and, against the true table, the share rebuilt.

Against the truth, records are paired one to one so that as many pairs as possible
agree (:func:`scipy.optimize.linear_sum_assignment` on the agreement matrix): a pair is
*exact* when every column agrees, *within tolerance* when every categorical column
agrees and each numeric column differs by at most its tolerance (age ± 1 by default).
The shares are the matched pairs over the true records; each share has its own optimal
pairing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy.optimize import linear_sum_assignment

from privcore.attacks.reconstruction.statistics import Schema

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
    true_codes = _codes(truth, schema)
    rebuilt_codes = _codes(rebuilt, schema)
    same = true_codes[:, None, :] == rebuilt_codes[None, :, :]
    exact = same.all(axis=2)
    close = same.copy()
    for j, column in enumerate(schema.columns):
        if column in tolerance:
            values = schema.numbers(column)
            gap = np.abs(values[true_codes[:, j]][:, None] - values[rebuilt_codes[:, j]][None, :])
            close[:, :, j] = gap <= tolerance[column] + 1e-9
    return Accuracy(
        n_true=len(truth),
        n_rebuilt=len(rebuilt),
        exact=_most_pairs(exact),
        within_tolerance=_most_pairs(close.all(axis=2)),
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


def _codes(frame: pd.DataFrame, schema: Schema) -> np.ndarray:
    """(records × columns) domain indices of a table's records."""
    types = schema.type_of(frame)
    return schema.codes()[types] if len(types) else np.zeros((0, len(schema.columns)), int)


def _most_pairs(agree: np.ndarray) -> int:
    """The most pairs (true, rebuilt) that agree, each record in at most one pair."""
    if agree.size == 0:
        return 0
    rows, cols = linear_sum_assignment(agree.astype(np.float64), maximize=True)
    return int(agree[rows, cols].sum())
