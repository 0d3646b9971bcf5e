"""δ-presence and k-map of a release against a population table (SPEC §11).

The population is a table of people holding the release's QI columns with original
values: the attack simulator's synthetic voter roll (:mod:`privcore.attacks.roll`) or an
uploaded register. A person *matches* a class of the release when each of the class's
released cells contains the person's value (:func:`privcore.matching.match_roll`:
ranges, masks, sets, hierarchy labels); F_j is the number of people matching class j,
f_j the records of class j in the release.

- **δ-presence** (Nergiz, Atzori & Clifton, "Hiding the presence of individuals from
  shared databases", SIGMOD 2007): an attacker who knows a person of the population and
  sees the release believes the person is in it with probability
  δ_j = f_j / F_j for the class j the person matches. The release is
  (δ_min, δ_max)-present when δ_min ≤ δ_j ≤ δ_max for every class j: δ_max bounds what
  the attacker can learn about presence, δ_min what they can learn about absence.
- **k-map** (Sweeney 2002; ARX's k-map against a population table): every class
  matches at least k people of the population; the release satisfies k-map for every
  k ≤ min_j F_j, the figure reported.

A short population. The people of a release are people of its population, so
F_j ≥ f_j whenever the population is complete. A register that misses some of them
(F_j < f_j, F_j = 0 included: nobody in it matches the class) is read conservatively,
as :mod:`privcore.measure.report` reads it for the journalist risk: the class's own
records are the people known to match it, F_j is taken as f_j, δ_j = 1 (presence
certain) and the class counts f_j towards k-map. δ is never infinite and never above 1;
the classes read this way are counted (``short_classes``, ``unmatched_classes``) and a
note says so.

Rows whose QIs are all ``*`` (suppressed) form no class, as in the matching and as ARX
leaves suppressed records out of δ-presence and k-map: every person matches them, so
they say nothing about who is present; their records are counted apart. A release with
no class left has no δ and no k-map figure (None), and no class violates a requested
bound.

Frequency sets (SPEC §9): ``weights`` (one per release row) make the release a weighted
frequency set and ``counts`` (one per population row) the population one; f_j counts
records and F_j people, so every figure is that of the expanded tables.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from privcore.core.jsonsafe import plain, plain_fields
from privcore.core.notes import Note
from privcore.core.privacy_parameters import as_float
from privcore.core.progress import Progress
from privcore.core.records import PlainFields
from privcore.data.hierarchy import Hierarchy
from privcore.errors import ParameterError
from privcore.matching import match_roll

__all__ = ["DeltaPresence", "KMap", "PopulationPresence", "delta_presence", "k_map", "presence"]


@dataclass(frozen=True, eq=False)
class DeltaPresence:
    """δ-presence of a release: δ_j = f_j / F_j per class (``per_class``, in the order of
    the release's classes), ``minimum`` and ``maximum`` over the classes (None with no
    class). With bounds requested (``delta_min`` and/or ``delta_max``), ``holds`` says
    whether every class lies within them and ``classes_outside``/``records_outside``
    count those that do not; without bounds both are None/0."""

    minimum: float | None
    maximum: float | None
    per_class: np.ndarray = field(repr=False)
    delta_min: float | None = None
    delta_max: float | None = None
    holds: bool | None = None
    classes_outside: int = 0
    records_outside: int = 0

    def to_dict(self) -> dict[str, Any]:
        return plain_fields(
            self, leave_out=("per_class",), renamed={"minimum": "min", "maximum": "max"}
        )


@dataclass(frozen=True, eq=False)
class KMap(PlainFields):
    """k-map of a release: ``k`` = min_j F_j, the largest k for which every class
    matches at least k people (None with no class). With ``requested`` given, ``holds``
    says whether k-map holds for it (``requested`` ≤ ``k``) and ``classes_below``/
    ``records_below`` count the classes matching fewer people."""

    k: int | None
    requested: int | None = None
    holds: bool | None = None
    classes_below: int = 0
    records_below: int = 0


@dataclass(frozen=True, eq=False)
class PopulationPresence:
    """δ-presence and k-map of one release against one population (module docstring).

    ``classes``: one row per class of the release — its QI cells, ``records`` (f_j),
    ``population`` (F_j as matched), ``population_used`` (max(F_j, f_j)) and ``delta``.
    ``population_size``: people in the population; ``records``: records of the
    release, ``suppressed_records`` among them in no class; ``short_classes``: classes
    with F_j < f_j, ``unmatched_classes``: those with F_j = 0; ``method``: the matching
    strategy ("join" or "bitset"); ``unparsed``: released cells that fit no form (they
    contain nobody), per QI.
    """

    qi: tuple[str, ...]
    delta_presence: DeltaPresence
    k_map: KMap
    classes: pd.DataFrame = field(repr=False)
    population_size: int
    records: int
    suppressed_records: int
    short_classes: int
    unmatched_classes: int
    method: str
    unparsed: dict[str, list[str]]
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return plain(
            {
                "delta_presence": self.delta_presence.to_dict(),
                "k_map": self.k_map.to_dict(),
                "qi": list(self.qi),
                "population": self.population_size,
                "records": self.records,
                "classes": len(self.classes),
                "suppressed_records": self.suppressed_records,
                "short_classes": self.short_classes,
                "unmatched_classes": self.unmatched_classes,
                "method": self.method,
                "unparsed": self.unparsed,
                "notes": list(self.notes),
            }
        )


def presence(
    release: pd.DataFrame,
    qi: Sequence[str],
    population: pd.DataFrame,
    *,
    hierarchies: Mapping[str, Hierarchy] | None = None,
    delta_min: float | None = None,
    delta_max: float | None = None,
    k: int | None = None,
    weights: Any = None,
    counts: Any = None,
    progress: Progress | None = None,
) -> PopulationPresence:
    """δ-presence and k-map of ``release`` against ``population`` over the QIs ``qi``.

    ``hierarchies``: the QIs' hierarchies, whose labels then mean what the hierarchy
    says; ``delta_min``/``delta_max``: bounds to check, in [0, 1] (either may be left
    out); ``k``: a k-map requirement to check (a whole number ≥ 1); ``weights`` and
    ``counts``: the release and the population as weighted frequency sets. Raises
    :class:`ParameterError` for bounds or k out of range, an empty population or bad
    weights/counts, and :class:`~privcore.errors.RoleError` for missing QI columns.
    """
    delta_min, delta_max = _checked_bounds(delta_min, delta_max)
    k = _checked_k(k)
    if len(population) == 0:
        raise ParameterError(
            "The population table has no rows; δ-presence and k-map need the people a "
            "release could be about.",
            code="presence.empty_population",
        )
    matches = match_roll(
        release,
        qi,
        population,
        hierarchies=hierarchies,
        weights=weights,
        counts=counts,
        progress=progress,
    )
    classes = matches.classes
    sizes = classes.sizes.astype(np.int64)
    found = np.asarray(matches.population, dtype=np.int64)
    used = np.maximum(found, sizes)
    delta = sizes / np.maximum(used, 1)
    short = int((found < sizes).sum())
    unmatched = int((found == 0).sum())
    notes: list[str] = []
    if short:
        notes.append(
            Note(
                "presence.population_short",
                f"{short} class(es) match fewer population people than they hold "
                f"({unmatched} match nobody): the population misses some of the release's "
                "people, so each such class is counted at its own size (δ = 1).",
                count=short,
                unmatched=unmatched,
            )
        )
    unparsed = matches.unparsed
    if unparsed:
        notes.append(
            Note(
                "presence.unparsed",
                "Some released cells fit no known form and match nobody: "
                + "; ".join(f"{q}: {', '.join(map(str, v))}" for q, v in unparsed.items()),
                columns=sorted(unparsed),
            )
        )
    table = classes.class_keys(release)
    table["records"] = sizes
    table["population"] = found
    table["population_used"] = used
    table["delta"] = delta
    return PopulationPresence(
        qi=tuple(matches.qi),
        delta_presence=_delta_presence(delta, sizes, delta_min, delta_max),
        k_map=_k_map(used, sizes, k),
        classes=table,
        population_size=matches.n_people,
        records=classes.n_rows,
        suppressed_records=classes.n_suppressed,
        short_classes=short,
        unmatched_classes=unmatched,
        method=matches.method,
        unparsed=unparsed,
        notes=tuple(notes),
    )


def delta_presence(
    release: pd.DataFrame,
    qi: Sequence[str],
    population: pd.DataFrame,
    *,
    delta_min: float | None = None,
    delta_max: float | None = None,
    **options: Any,
) -> DeltaPresence:
    """δ-presence alone (:func:`presence`'s ``delta_presence``; same options)."""
    return presence(
        release, qi, population, delta_min=delta_min, delta_max=delta_max, **options
    ).delta_presence


def k_map(
    release: pd.DataFrame,
    qi: Sequence[str],
    population: pd.DataFrame,
    *,
    k: int | None = None,
    **options: Any,
) -> KMap:
    """k-map alone (:func:`presence`'s ``k_map``; same options)."""
    return presence(release, qi, population, k=k, **options).k_map


def _delta_presence(
    delta: np.ndarray, sizes: np.ndarray, low: float | None, high: float | None
) -> DeltaPresence:
    """min/max of δ_j over the classes and, with bounds, the classes outside them."""
    if not len(delta):
        bounded = low is not None or high is not None
        return DeltaPresence(None, None, delta, low, high, True if bounded else None)
    outside = np.zeros(len(delta), dtype=bool)
    if low is not None:
        outside |= delta < low
    if high is not None:
        outside |= delta > high
    holds = None if low is None and high is None else not bool(outside.any())
    return DeltaPresence(
        minimum=float(delta.min()),
        maximum=float(delta.max()),
        per_class=delta,
        delta_min=low,
        delta_max=high,
        holds=holds,
        classes_outside=int(outside.sum()),
        records_outside=int(sizes[outside].sum()),
    )


def _k_map(population: np.ndarray, sizes: np.ndarray, k: int | None) -> KMap:
    """min_j F_j and, with a requested k, the classes matching fewer people."""
    if not len(population):
        return KMap(None, k, None if k is None else True)
    smallest = int(population.min())
    if k is None:
        return KMap(smallest)
    below = population < k
    return KMap(smallest, k, not bool(below.any()), int(below.sum()), int(sizes[below].sum()))


def _checked_bounds(low: Any, high: Any) -> tuple[float | None, float | None]:
    values = []
    for name, value in (("δ_min", low), ("δ_max", high)):
        if value is None:
            values.append(None)
            continue
        number = as_float(value)
        if isinstance(value, bool) or not 0.0 <= number <= 1.0:
            raise ParameterError(
                f"{name} must be a number from 0 to 1, not {value}.",
                code="presence.bad_delta",
                name=name,
                value=str(value),
            )
        values.append(number)
    if values[0] is not None and values[1] is not None and values[0] > values[1]:
        raise ParameterError(
            f"δ_min ({values[0]}) must not exceed δ_max ({values[1]}).",
            code="presence.bad_delta_order",
            delta_min=values[0],
            delta_max=values[1],
        )
    return values[0], values[1]


def _checked_k(k: Any) -> int | None:
    if k is None:
        return None
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or int(k) < 1:
        raise ParameterError(
            f"k for k-map must be a whole number of at least 1, not {k}.",
            code="presence.bad_k",
            value=str(k),
        )
    return int(k)
