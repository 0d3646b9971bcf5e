"""A table generalized to a lattice node inside DuckDB, for a full-domain search on a
table whose raw combinations are too many to bring into memory.

Each quasi-identifier's distinct values are few next to the table's combinations: they
are read once (:meth:`Engine.grouped` of the column alone, the loader's values) and
labelled at every level of the column's hierarchy in Python (:class:`LevelMaps`). A
node is then a join of the table with one small table per QI (raw value → its label at
the node's level): :func:`approximate_node_combinations` estimates how many distinct
combinations (with the SAs) the table has at a node, in one pass (DuckDB's HyperLogLog,
``approx_count_distinct``), and :func:`generalized_table` is the table at a node — a
table like any other to the engine (grouped, written), its QI cells the node's labels,
its rows in the table's order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from privcore.data.hierarchy import Hierarchy
from privcore.engines.base import check_columns


def _quote(name: str) -> str:
    return '"' + str(name).replace('"', '""') + '"'


@dataclass(frozen=True)
class LevelMaps:
    """Per QI, its distinct raw values and their labels at every level of its hierarchy
    (``labels[q]``: a frame with ``raw`` and ``l0`` … ``lH``; a missing value keeps no
    label below the top), registered on the table's connection as ``names[q]``;
    ``distinct[q][level]`` the number of distinct labels (missing counted as one)."""

    qi: tuple[str, ...]
    names: tuple[str, ...]
    labels: tuple[pd.DataFrame, ...]
    distinct: tuple[tuple[int, ...], ...]

    @property
    def heights(self) -> tuple[int, ...]:
        return tuple(len(d) - 1 for d in self.distinct)


def level_maps(
    engine: Any, table: Any, qi: Sequence[str], hierarchies: Mapping[str, Hierarchy]
) -> LevelMaps:
    """The :class:`LevelMaps` of ``qi`` on ``table`` (a DuckDB table of ``engine``):
    every QI needs a hierarchy that covers its values (else ``hierarchy.uncovered``)."""
    qi = check_columns(table.columns, qi)
    names, frames, distinct = [], [], []
    for q, column in enumerate(qi):
        hierarchy = hierarchies[column]
        grouped = engine.grouped(table, [column])
        values = grouped.frame[column].reset_index(drop=True)
        frame = pd.DataFrame({"raw": grouped.raw[column].to_numpy()})
        counts = []
        for level in range(hierarchy.height + 1):
            labels = hierarchy.generalize_values(values, level).to_numpy(dtype=object)
            at_raw = labels[np.asarray(grouped.row_of_raw, dtype=np.int64)]
            frame[f"l{level}"] = pd.array(at_raw, dtype="string")
            distinct_labels = pd.Series(labels, dtype="string")
            counts.append(int(distinct_labels.nunique(dropna=False)))  # not rows: values
        name = f"privcore_levels_{q}"
        table.connection.register(name, frame)
        names.append(name)
        frames.append(frame)
        distinct.append(tuple(counts))
    return LevelMaps(tuple(qi), tuple(names), tuple(frames), tuple(distinct))


def _joined(table: Any, maps: LevelMaps, numbered: bool) -> str:
    """The table (numbered in its order when ``numbered``) joined with every QI's map."""
    rows = table.numbered_sql("__privcore_base_row") if numbered else table.sql
    joins = " ".join(
        f"JOIN {name} m{q} ON t.{_quote(column)} IS NOT DISTINCT FROM m{q}.raw"
        for q, (column, name) in enumerate(zip(maps.qi, maps.names, strict=True))
    )
    return f"({rows}) t {joins}"


def approximate_node_combinations(
    table: Any, maps: LevelMaps, sa: Sequence[str], nodes: Sequence[Sequence[int]]
) -> list[int]:
    """About how many distinct combinations of the QIs (at each node's levels) and the
    SAs ``sa`` the table holds, for each of ``nodes`` — one pass over the table."""
    sa_cells = [f"t.{_quote(c)}" for c in check_columns(table.columns, sa)]
    estimates = []
    for node in nodes:
        cells = [f"m{q}.l{int(level)}" for q, level in enumerate(node)] + sa_cells
        estimates.append(f"approx_count_distinct(hash({', '.join(cells)}))")
    found = table.connection.execute(
        f"SELECT {', '.join(estimates)} FROM {_joined(table, maps, numbered=False)}"
    ).fetchall()[0]
    return [int(e or 0) for e in found]


def generalized_table(engine: Any, table: Any, maps: LevelMaps, node: Sequence[int]) -> Any:
    """``table`` with each QI's cells replaced by their label at ``node``'s level (text;
    missing stays missing below the top; a QI at level 0 keeps its cells), the other
    columns as stored, in the table's order: a table of ``engine`` like the one it came
    from. It is written once into a temporary table of the engine (which spills to disk
    within its memory limit) with each row's position, so that grouping it and writing
    the release from it in the table's order read a table, not the joins again."""
    from privcore.engines.duckdb_engine import DuckDBTable

    level = {c: int(v) for c, v in zip(maps.qi, node, strict=True) if int(v) > 0}
    selects = [
        f"m{maps.qi.index(c)}.l{int(level[c])} AS {_quote(c)}" if c in level else f"t.{_quote(c)}"
        for c in table.columns
    ]
    position = "__privcore_position"
    statement = (
        f"CREATE OR REPLACE TEMP TABLE {GENERALIZED} AS SELECT {', '.join(selects)}, "
        f't."__privcore_base_row" AS {position} FROM {_joined(table, maps, numbered=True)}'
    )
    engine._guard(table, lambda: table.connection.execute(statement).fetchall())
    converters = {c: f for c, f in table.converters.items() if c not in level}
    return DuckDBTable(
        table.connection,
        [_quote(c) for c in table.columns],
        GENERALIZED,
        list(table.columns),
        converters,
        table.name,
        position=position,
    )


#: The temporary table holding a table generalized to a node (:func:`generalized_table`).
GENERALIZED = "privcore_generalized"
