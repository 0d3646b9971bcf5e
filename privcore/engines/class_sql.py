"""The summary of a release's classes computed inside a SQL engine (DuckDB).

:func:`privcore.engines.models.release_models` brings the frequency set of (QIs, SAs)
into memory: one row per distinct combination, which a near-unique table (exact ages,
dates, postcodes) cannot afford. Here only aggregates come back. Each column is first
read as the loader reads it — its distinct raw values, converted and ranked once in
Python (:meth:`Engine.grouped` of that column alone: a column's distinct values are few
next to the table's combinations) — and joined back as an integer code; the engine then
groups the codes.

For each sensitive attribute S, with n(c, v) the rows of class c holding value v,
|c| = Σ_v n(c, v), r₁(c) = max_v n(c, v), N the rows of the table and
q(v) = Σ_c n(c, v) / N (every row, suppressed ones included, as in
:func:`privcore.models.distances.t_distance`):

- distinct l(c) = #{v : n(c, v) > 0};
- entropy l(c) = exp(−Σ_v p ln p), p = n(c, v)/|c| (Machanavajjhala et al. 2007, Def. 4.1);
- recursive c for l = 2: r₁/(|c| − r₁), ∞ with one value (Def. 4.3 with l = 2);
- top share r₁/|c|;
- t with the equal ground distance: ½ Σ_v |p(v) − q(v)| = ½ (Σ_present |p − q| + 1 −
  Σ_present q) (Li, Li, Venkatasubramanian 2007);
- t with the ordered distance over the m values in rank order (the codes):
  (1/(m−1)) Σ_i |F_P(i) − F_Q(i)|, F the cumulative shares. F_P is constant between two
  values present in the class, so the sum is one segment [a, b) per present value a
  (b the next one, or m) plus [0, first): with c = F_P(a), s the number of ranks whose
  F_Q is below c (clipped to [a, b]; an as-of join) and X(x) = Σ_{i<x} F_Q(i), a
  segment is c(s − a) − (X(s) − X(a)) + (X(b) − X(s)) − c(b − s), and [0, first) is
  X(first) — the reading of :func:`privcore.models.distances.t_distance` in SQL.

The summary is the one of :class:`~privcore.models.report.ModelReport` without models:
``k`` (smallest class), ``classes``, ``rows``, and per S the worst class of each figure.
The rows whose QIs are all ``*`` form one class here (the reading without models of
:func:`~privcore.classes.release_classes`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from privcore.engines.base import check_columns

_CODED = "privcore_coded"


def _quote(name: str) -> str:
    return '"' + str(name).replace('"', '""') + '"'


def coded_view(
    engine: Any, table: Any, columns: Sequence[str], *, limit: int | None = None
) -> tuple[str, list[bool]]:
    """Register, on ``table``'s connection, a view of ``table`` with each of ``columns``
    replaced by its code (``c0``, ``c1``, … in the order given): the rank of the value
    as the loader reads it among the column's distinct values, missing first (a value
    of its own), then numbers ascending or text in code-point order. Returns the view's
    name and, per column, whether it has a missing value (code 0). ``limit``: the most
    distinct values a column may have."""
    columns = check_columns(table.columns, columns)
    connection = table.connection
    joins, selects, missing = [], [], []
    for i, column in enumerate(columns):
        grouped = engine.grouped(table, [column], limit=limit)
        first = grouped.frame[column].iloc[0] if len(grouped.frame) else 0
        missing.append(bool(pd.isna(first)))
        mapping = pd.DataFrame(
            {"raw": grouped.raw[column].to_numpy(), "code": grouped.row_of_raw.astype(np.int64)}
        )
        name = f"privcore_codes_{i}"
        connection.register(name, mapping)
        joins.append(f"JOIN {name} m{i} ON t.{_quote(column)} IS NOT DISTINCT FROM m{i}.raw")
        selects.append(f"m{i}.code AS c{i}")
    connection.execute(
        f"CREATE OR REPLACE TEMP VIEW {_CODED} AS SELECT {', '.join(selects)} "
        f"FROM ({table.sql}) t {' '.join(joins)}"
    )
    return _CODED, missing


def class_summary(
    engine: Any, table: Any, qi: Sequence[str], sa: Sequence[str], *, limit: int | None = None
) -> dict[str, Any]:
    """The summary of the classes of ``table`` (a DuckDB table of ``engine``) by the QIs
    ``qi``, with the figures of each sensitive attribute of ``sa`` (module docstring),
    computed in the engine: only one row per attribute comes back."""
    qi, sa = [str(c) for c in qi], [str(c) for c in sa]
    view, missing = coded_view(engine, table, [*qi, *sa], limit=limit)
    keys = ", ".join(f"c{i}" for i in range(len(qi)))
    connection = table.connection
    sizes = (
        f"SELECT count(*) AS classes, min(size) AS k, sum(size) AS total "
        f"FROM (SELECT count(*) AS size FROM {view} GROUP BY {keys})"
    )
    classes, k, rows = connection.execute(sizes).fetchall()[0]
    summary: dict[str, Any] = {
        "k": None if k is None else int(k),
        "classes": int(classes),
        "rows": int(rows or 0),
        "l_distinct": {},
        "l_entropy": {},
        "recursive_c": {},
        "t_equal": {},
        "t_ordered": {},
        "top_share": {},
    }
    for j, attribute in enumerate(sa):
        s = f"c{len(qi) + j}"
        figures = connection.execute(_attribute_sql(view, keys, s)).fetchall()[0]
        distinct, entropy, recursive, t_equal, top = figures
        summary["l_distinct"][attribute] = None if distinct is None else int(distinct)
        summary["l_entropy"][attribute] = entropy
        summary["recursive_c"][attribute] = recursive
        summary["t_equal"][attribute] = t_equal
        summary["top_share"][attribute] = top
        summary["t_ordered"][attribute] = _ordered_t(
            connection, view, keys, s, missing_first=missing[len(qi) + j]
        )
    return summary


def _ordered_t(
    connection: Any, view: str, keys: str, s: str, *, missing_first: bool
) -> float | None:
    """The worst class's t with the ordered distance of the attribute coded ``s``
    (module docstring). A missing value ranks last, as it does in memory
    (:class:`~privcore.classes.SensitiveAttribute`): its code 0 moves to the end."""
    m_all = connection.execute(f"SELECT count(DISTINCT {s}) FROM {view}").fetchall()[0][0]
    if missing_first and m_all:
        s = f"(CASE WHEN {s} = 0 THEN {m_all - 1} ELSE {s} - 1 END)"
    shares = connection.execute(
        f"SELECT {s} AS v, count(*)::DOUBLE AS n FROM {view} GROUP BY 1 ORDER BY 1"
    ).fetchnumpy()
    counts = np.asarray(shares["n"], dtype=np.float64)
    m = len(counts)
    if m == 0:
        return None
    if m == 1:
        return 0.0
    if not np.array_equal(np.asarray(shares["v"]), np.arange(m)):
        raise ValueError("the codes of a column are its ranks 0..m-1")
    f_q = np.cumsum(counts) / counts.sum()  # F_Q(i), strictly increasing
    below = pd.DataFrame(
        {
            "i": np.arange(m + 1, dtype=np.int64),
            "fq": np.append(f_q, np.inf),
            "x": np.concatenate(([0.0], np.cumsum(f_q))),  # X(i) = Σ_{j<i} F_Q(j)
        }
    )
    connection.register("privcore_ordered_q", below)
    sql = f"""
    WITH cells AS (
        SELECT {keys}, {s} AS a, count(*)::DOUBLE AS n FROM {view} GROUP BY {keys}, {s}
    ),
    running AS (
        SELECT {keys}, a,
               sum(n) OVER (PARTITION BY {keys} ORDER BY a ROWS UNBOUNDED PRECEDING)
                   / sum(n) OVER (PARTITION BY {keys}) AS c,
               coalesce(lead(a) OVER (PARTITION BY {keys} ORDER BY a), {m}) AS b,
               row_number() OVER (PARTITION BY {keys} ORDER BY a) AS nth
        FROM cells
    ),
    crossing AS (
        SELECT running.*, coalesce(q.i + 1, 0) AS s0
        FROM running ASOF LEFT JOIN privcore_ordered_q q ON running.c > q.fq
    ),
    segments AS (
        SELECT {keys}, least(greatest(s0, a), b) AS s, a, b, c, nth FROM crossing
    ),
    parts AS (
        SELECT seg.*, xa.x AS xa, xb.x AS xb, xs.x AS xs FROM segments seg
        JOIN privcore_ordered_q xa ON xa.i = seg.a
        JOIN privcore_ordered_q xb ON xb.i = seg.b
        JOIN privcore_ordered_q xs ON xs.i = seg.s
    ),
    per_class AS (
        SELECT sum(c * (s - a) - (xs - xa) + (xb - xs) - c * (b - s))
                   + sum(CASE WHEN nth = 1 THEN xa ELSE 0 END) AS total
        FROM parts GROUP BY {keys}
    )
    SELECT max(least(greatest(total / {m - 1}, 0), 1)) FROM per_class
    """
    return connection.execute(sql).fetchall()[0][0]


def _attribute_sql(view: str, keys: str, s: str) -> str:
    """One row: the worst class's distinct l, entropy l, recursive c (l = 2), equal-
    distance t and top share of the attribute coded ``s`` (module docstring)."""
    return f"""
    WITH cells AS (
        SELECT {keys}, {s} AS v, count(*)::DOUBLE AS n FROM {view} GROUP BY {keys}, {s}
    ),
    everywhere AS (SELECT v, sum(n) AS g FROM cells GROUP BY v),
    total AS (SELECT sum(n) AS rows FROM cells),
    classed AS (
        SELECT cells.*, sum(n) OVER (PARTITION BY {keys}) AS size,
               everywhere.g / total.rows AS q
        FROM cells JOIN everywhere USING (v) CROSS JOIN total
    ),
    per_class AS (
        SELECT count(*) AS distinct_values,
               exp(-sum(n / size * ln(n / size))) AS entropy_l,
               max(n) AS top, any_value(size) AS size,
               least(greatest(0.5 * (sum(abs(n / size - q)) + 1 - sum(q)), 0), 1) AS t_equal
        FROM classed GROUP BY {keys}
    )
    SELECT min(distinct_values), min(entropy_l),
           max(CASE WHEN size > top THEN top / (size - top) ELSE 'infinity'::DOUBLE END),
           max(t_equal), max(top / size)
    FROM per_class
    """
