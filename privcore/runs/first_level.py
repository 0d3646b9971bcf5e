"""A full-domain search on a table whose raw combinations are more than
:func:`~privcore.engines.base.max_groups`: it starts from the first generalization the
engine's counts show to fit.

A full-domain search (Datafly, Samarati, Incognito, the optimal search) reads the
frequency set of the QIs and SAs; a near-unique table (exact ages, dates, postcodes)
has about as many combinations as rows. Every node of the lattice above a node L
generalizes the table at L further, so the search can run on the frequency set at L —
the table generalized inside the engine (:mod:`privcore.engines.level_sql`) — with each
hierarchy cut below L's level (its labels at that level as leaves), and find the same
nodes above L that it finds on the raw table.

L is found by raising one QI a level at a time — the QI with the most distinct labels
at its current level (ties: the first in the QIs' order) — until DuckDB's estimate of
the combinations at L is at most :data:`FIT_SHARE` of the limit and the grouping
confirms it. Nodes not above L are not searched, and the release's loss figures and
PL/UL count from L (they understate the loss against the raw values): the release says
so in a note, and its ``node`` and lattice are given in the hierarchies' own levels.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from privcore.core.notes import Note
from privcore.core.progress import Stage
from privcore.data import Hierarchy, Schema
from privcore.engines.base import Engine, too_many_groups
from privcore.errors import InfeasibleError

#: The share of the limit an estimate (a few per cent off) must stay under.
FIT_SHARE = 0.9


def first_level_that_fits(
    engine: Engine, table: Any, schema: Schema, limit: int, stage: Stage
) -> tuple[tuple[int, ...], Any, Any]:
    """The node L (levels per QI) where ``table``'s frequency set of the schema's QIs
    and SAs first fits ``limit`` (module docstring), the table generalized to L and its
    :class:`~privcore.engines.base.Regrouped` frequency set. An engine that cannot
    generalize inside itself, a QI without a hierarchy, or a table that does not fit
    even at the top of every hierarchy is ``engines.too_many_groups`` in words."""
    from privcore.engines.level_sql import (
        approximate_node_combinations,
        generalized_table,
        level_maps,
    )

    qi, sa = list(schema.quasi_identifiers), list(schema.sensitive)
    bare = too_many_groups(limit, [*qi, *sa])
    if not getattr(engine, "classes_in_sql", False) or any(c not in schema.hierarchies for c in qi):
        raise bare
    stage(0.0, "Reading each quasi-identifier's values and their labels at every level")
    maps = level_maps(engine, table, qi, schema.hierarchies)
    path = raising_path(maps)
    if not path:
        raise _too_many_even_at_top(bare, limit, [*qi, *sa])
    stage(0.1, f"Counting the combinations at {len(path)} generalizations in one pass")
    estimates = approximate_node_combinations(table, maps, sa, path)
    for node, estimate in zip(path, estimates, strict=True):
        if estimate > FIT_SHARE * limit:
            continue
        stage(0.5, f"Generalizing the table to levels {dict(zip(qi, node, strict=True))}")
        generalized = generalized_table(engine, table, maps, node)
        try:
            grouped = engine.grouped(generalized, [*qi, *sa], limit=limit)
        except InfeasibleError as exc:
            if exc.code != "engines.too_many_groups":
                raise
            continue
        return tuple(node), generalized, grouped
    raise _too_many_even_at_top(bare, limit, [*qi, *sa])


def raising_path(maps: Any) -> list[tuple[int, ...]]:
    """The nodes met by raising one QI a level at a time from the bottom — the QI with
    the most distinct labels at its current level (ties: the first) — up to the top of
    every hierarchy. The choice reads only each QI's distinct labels per level, so the
    whole path is known before the table is read, and its combinations are estimated
    in one pass."""
    node, path = [0] * len(maps.qi), []
    while True:
        raisable = [q for q in range(len(node)) if node[q] < maps.heights[q]]
        if not raisable:
            return path
        widest = max(raisable, key=lambda q: (maps.distinct[q][node[q]], -q))
        node[widest] += 1
        path.append(tuple(node))


def _too_many_even_at_top(bare: InfeasibleError, limit: int, columns: list[str]) -> InfeasibleError:
    return InfeasibleError(
        f"{bare} Even at the top of every hierarchy the table has more than "
        f"{limit:,} combinations: its sensitive attributes alone are too many.",
        code="engines.too_many_groups",
        limit=limit,
        columns=columns,
    )


def cut_below(hierarchy: Hierarchy, level: int) -> Hierarchy:
    """``hierarchy`` from ``level`` up: its labels at ``level`` are the leaves."""
    if level == 0:
        return hierarchy
    rows = hierarchy.to_frame().iloc[:, level:].drop_duplicates()  # not rows: leaves
    return Hierarchy(rows.reset_index(drop=True), name=hierarchy.name, kind="custom")


def schema_from(schema: Schema, qi: Sequence[str], node: Sequence[int]) -> Schema:
    """``schema`` with each QI's hierarchy cut below its level of ``node``."""
    hierarchies = dict(schema.hierarchies)
    for column, level in zip(qi, node, strict=True):
        hierarchies[column] = cut_below(hierarchies[column], int(level))
    return Schema(dict(schema.roles), hierarchies)


def in_own_levels(release: Any, schema: Schema, node: Sequence[int], limit: int) -> Any:
    """A release searched from ``node`` (levels counted from it) with its node and
    lattice in the levels of ``schema``'s hierarchies (and that schema), the start in
    ``params["start_levels"]`` and a note on what starting there means (module
    docstring)."""
    qi = list(schema.quasi_identifiers)
    start = dict(zip(qi, (int(v) for v in node), strict=True))
    found = release.node
    absolute = (
        None if found is None else tuple(int(a) + int(b) for a, b in zip(found, node, strict=True))
    )
    lattice = release.lattice
    if lattice is not None:
        nodes = lattice.nodes.copy()
        for column, level in start.items():
            if column in nodes.columns:
                nodes[column] = nodes[column] + level
        if "height" in nodes.columns:
            nodes["height"] = nodes["height"] + sum(start.values())
        chosen = None if lattice.chosen is None else absolute
        lattice = replace(lattice, nodes=nodes, chosen=chosen)
    note = Note(
        "engines.search_from_level",
        f"The table has more than {limit:,} combinations of its quasi-identifiers and "
        "sensitive attributes (PRIVCORE_ENGINE_MAX_GROUPS): the search started from the "
        f"levels {_levels(start)}, the first where the engine's counts fit. Nodes below "
        "them were not searched, and the loss figures and PL/UL count from those levels "
        "(they understate the loss against the raw values); the released rows that are "
        "real records are not counted.",
        limit=int(limit),
        levels=_levels(start),
    )
    measurement = release.measurement
    if any(start.values()):  # a row of the table at the start levels is no raw record
        measurement = replace(measurement, real_records={})
    return replace(
        release,
        measurement=measurement,
        node=absolute,
        lattice=lattice,
        notes=(*release.notes, note),
        params={**release.params, "start_levels": start},
        schema=schema,
    )


def _levels(levels: Mapping[str, int]) -> str:
    return ", ".join(f"{column} {level}" for column, level in levels.items())
