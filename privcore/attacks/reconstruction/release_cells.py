"""What a release adds to the published tables: its cells as counts, and the tables an
agency would publish beside it.

A generalized or k-anonymous release is published microdata: each of its rows says that
one person has a value within each released cell. Read over the columns of the attack's
schema, the release's rows with the same cells are a count — "m records have age in
[20-30), sex F and disease flu" — and constrain the rebuilt records like any published
table (Garfinkel, Abowd & Martindale 2019 name the released microdata among the
statistics a reconstruction combines). A released cell is read as the values of the
column's domain it covers (:func:`privcore.data.cells.parse_column`: a range, an
interval, a set, a hierarchy's label, a masked code, ``*``); a missing cell (a
suppressed one) covers the whole domain. Only a release whose every cell is the original
value or a label covering it — a *generalized* release
(:class:`privcore.core.kinds.ReleaseKind`) — can be read so; a perturbed or synthetic
release's values do not cover the truth, and are refused in words.

The tables suggested beside a release (:func:`suggest_tables`) are the marginals an
agency publishes with microdata: each quasi-identifier by each sensitive attribute, then
each pair of quasi-identifiers — as many as keep the attack's record types (the product
of the published columns' domains) within a limit, in that order.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import pandas as pd

from privcore.attacks.reconstruction.domains import MAX_RECORD_TYPES, domains
from privcore.attacks.reconstruction.statistics import Count, Schema
from privcore.classes import group_rows
from privcore.core.kinds import ReleaseKind
from privcore.data.cells import parse_column
from privcore.data.hierarchy import Hierarchy
from privcore.errors import ParameterError

__all__ = ["Suggestion", "release_statistics", "suggest_tables"]


def release_statistics(
    release: pd.DataFrame,
    schema: Schema,
    *,
    hierarchies: Mapping[str, Hierarchy] | None = None,
    kind: ReleaseKind | str = ReleaseKind.GENERALIZED,
    name: str = "release",
) -> list[Count]:
    """The release's rows grouped by their cells on the schema's columns, each group a
    :class:`Count` of the records whose values lie in those cells (see the module's
    docstring). ``hierarchies`` give released labels their meaning; ``kind`` is the
    release's kind, declared by the method that made it (only ``generalized`` is read).
    """
    if ReleaseKind(kind) is not ReleaseKind.GENERALIZED:
        raise ParameterError(
            f"A {ReleaseKind(kind).value} release's values are not labels that cover the "
            "original values, so its cells say nothing certain about the records: only a "
            "generalized release (generalization, local recoding, suppression) is read as "
            "published counts.",
            code="reconstruction.release_kind",
            kind=ReleaseKind(kind).value,
        )
    columns = [c for c in schema.columns if c in release.columns]
    if not columns:
        raise ParameterError(
            "The release has none of the published columns "
            f"({', '.join(schema.columns)}): its cells constrain nothing.",
            code="reconstruction.release_columns",
            columns=list(schema.columns),
        )
    hierarchies = hierarchies or {}
    parsed = [parse_column(release[c], hierarchy=hierarchies.get(c), column=c) for c in columns]
    covers = [
        _covered(cells, schema, column) for cells, column in zip(parsed, columns, strict=True)
    ]
    groups = group_rows([cells.codes for cells in parsed], [len(cells) for cells in parsed])
    out = []
    for group, size in enumerate(groups.counts.tolist()):
        row = int(groups.first[group])
        where: dict[str, Any] = {}
        text = []
        for cells, cover, column in zip(parsed, covers, columns, strict=True):
            label = int(cells.codes[row])
            text.append(f"{column}={_shown(cells.labels[label])}")
            values = cover[label]
            if values is not None:
                where[column] = values
        out.append(Count(where, float(size), name=f"{name} cell [{', '.join(text)}]"))
    return out


def _covered(cells, schema: Schema, column: str) -> list[tuple[Any, ...] | None]:
    """Per released label of ``column``, the domain values it covers (None: all of them,
    no condition), refused in words for a label covering none."""
    domain = schema.domain(column)
    inside = cells.contains(pd.Series(domain, dtype=object))
    out: list[tuple[Any, ...] | None] = []
    for label, row in zip(cells.labels.tolist(), inside, strict=True):
        if label is None or row.all():  # a suppressed (missing) cell or the whole domain
            out.append(None)
            continue
        if not row.any():
            raise ParameterError(
                f"The released value {_shown(label)!r} of column {column!r} covers no value "
                "of the column's domain in the table: the release does not generalize this "
                "table (or its hierarchy is missing).",
                code="reconstruction.release_label",
                column=column,
                value=_shown(label),
            )
        out.append(tuple(v for v, kept in zip(domain, row.tolist(), strict=True) if kept))
    return out


def _shown(label: Any) -> str:
    return "missing" if label is None else str(label)


@dataclass(frozen=True)
class Suggestion:
    """The tables suggested (column sets, in order) and the columns left out, each with
    the reason in words."""

    tables: tuple[tuple[str, ...], ...]
    left_out: dict[str, str] = field(default_factory=dict)

    @property
    def publish(self) -> str:
        """The tables as ``--publish`` writes them (``age,disease;age,sex``)."""
        return ";".join(",".join(t) for t in self.tables)


def suggest_tables(
    frame: pd.DataFrame,
    qi: Sequence[str],
    sensitive: Sequence[str] = (),
    *,
    limit: int | None = None,
) -> Suggestion:
    """The marginals an agency would publish beside a release of ``frame`` (see the
    module's docstring): each QI × each sensitive attribute, then each pair of QIs (a
    single QI alone when nothing else is there), kept in that order while the published
    columns' domains (:func:`~privcore.attacks.reconstruction.domains.domains`) make at
    most ``limit`` record types (``MAX_RECORD_TYPES`` by default). A column with missing
    values, or with more values than the limit alone, is left out with its reason."""
    limit = MAX_RECORD_TYPES if limit is None else int(limit)
    qi, sensitive = list(dict.fromkeys(qi)), [s for s in dict.fromkeys(sensitive) if s not in qi]
    if not qi:
        raise ParameterError(
            "Tables are suggested from the quasi-identifiers: give at least one.",
            code="reconstruction.suggest_no_qi",
        )
    sizes: dict[str, int] = {}
    left_out: dict[str, str] = {}
    for column in [*qi, *sensitive]:
        try:
            sizes[column] = len(domains(frame, [column])[column])
        except ParameterError as exc:
            left_out[column] = str(exc)
    usable_qi = [q for q in qi if q in sizes]
    usable_sa = [s for s in sensitive if s in sizes]
    candidates = [(q, s) for q in usable_qi for s in usable_sa]
    candidates += list(combinations(usable_qi, 2))
    if not candidates:
        candidates = [(q,) for q in usable_qi]
    chosen: list[tuple[str, ...]] = []
    published: set[str] = set()
    for table in candidates:
        columns = published | set(table)
        if math.prod(sizes[c] for c in columns) <= limit:
            chosen.append(table)
            published = columns
    for column in sizes:
        if column not in published and column not in left_out:
            left_out[column] = (
                f"Column {column!r} ({sizes[column]:,} values) would take the record types "
                f"past {limit:,} with the columns already published: coarsen it to publish it."
            )
    if not chosen:
        raise ParameterError(
            "No table can be suggested: every quasi-identifier has missing values or too "
            f"many values (more than {limit:,} record types). Coarsen the columns first.",
            code="reconstruction.suggest_none",
            limit=limit,
        )
    return Suggestion(tuple(chosen), left_out)
