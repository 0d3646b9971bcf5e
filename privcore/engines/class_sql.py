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
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from privcore.data.codes import SUPPRESSED
from privcore.engines.base import check_columns
from privcore.errors import ParameterError

_CODED = "privcore_coded"


def _quote(name: str) -> str:
    return '"' + str(name).replace('"', '""') + '"'


@dataclass(frozen=True)
class CodedView:
    """A view of a table with each column replaced by its code (:func:`coded_view`).

    ``name``: the view; per column, in the order coded: ``missing`` (it has a missing
    value, code 0), ``kinds`` (``"numeric"`` when the loader reads numbers, else
    ``"text"``) and ``values`` (the loader's values, code i at position i)."""

    name: str
    missing: list[bool]
    kinds: list[str]
    values: list[pd.Series]


def coded_view(
    engine: Any, table: Any, columns: Sequence[str], *, limit: int | None = None
) -> CodedView:
    """Register, on ``table``'s connection, a view of ``table`` with each of ``columns``
    replaced by its code (``c0``, ``c1``, … in the order given): the rank of the value
    as the loader reads it among the column's distinct values, missing first (a value
    of its own), then numbers ascending or text in code-point order (:class:`CodedView`).
    ``limit``: the most distinct values a column may have."""
    columns = check_columns(table.columns, columns)
    connection = table.connection
    joins, selects, missing, kinds, coded = [], [], [], [], []
    for i, column in enumerate(columns):
        grouped = engine.grouped(table, [column], limit=limit)
        values = grouped.frame[column].reset_index(drop=True)
        coded.append(values)
        missing.append(bool(len(values)) and bool(pd.isna(values.iloc[0])))
        kinds.append("numeric" if values.dtype.kind == "f" else "text")
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
    return CodedView(_CODED, missing, kinds, coded)


FIGURES = "privcore_class_figures"


@dataclass(frozen=True)
class ClassFigures:
    """The per-class figures materialized by :func:`class_figures`: the ``table``'s name,
    per SA its ``kinds`` (``"numeric"`` or ``"text"``: which distance ``auto`` reads),
    per QI its loader ``values`` (code i at position i), the codes of the class at
    ``*`` in every QI (``top``; None when some QI never shows ``*``) and the coded
    ``view`` of the table the figures were counted on (:func:`coded_view`)."""

    table: str
    kinds: dict[str, str]
    values: list[pd.Series]
    top: tuple[int, ...] | None
    view: str


def class_figures(
    engine: Any,
    table: Any,
    qi: Sequence[str],
    sa: Sequence[str],
    *,
    recursive_l: Sequence[int] = (2,),
    limit: int | None = None,
) -> ClassFigures:
    """Materialize, on ``table``'s connection, one row per class of ``table`` by the QIs
    ``qi``: its codes (``c0``, …), ``size``, and for the j-th attribute of ``sa``:
    ``d{j}`` distinct values, ``h{j}`` entropy −Σ p ln p (natural log), ``top{j}`` r₁,
    ``tail{j}_{l}`` r_l + … + r_m (counts sorted descending) for each l of
    ``recursive_l``, ``te{j}`` equal-distance t and ``to{j}`` ordered-distance t (module
    docstring). Returns the table with what reads it (:class:`ClassFigures`)."""
    qi, sa = [str(c) for c in qi], [str(c) for c in sa]
    coded = coded_view(engine, table, [*qi, *sa], limit=limit)
    view, missing, kinds = coded.name, coded.missing, coded.kinds
    connection = table.connection
    keys = ", ".join(f"c{i}" for i in range(len(qi)))
    parts, ctes = [], []  # the first attribute's figures carry the class sizes
    for j in range(len(sa)):
        code = f"c{len(qi) + j}"
        rank, m = _ranks(connection, view, code, missing_first=missing[len(qi) + j])
        # the (class, value) counts, read once by both figures' queries
        ctes.append(
            f"cells{j} AS MATERIALIZED (SELECT {keys}, {rank} AS v, count(*)::DOUBLE AS n "
            f"FROM {view} GROUP BY ALL)"
        )
        parts.append(_attribute_sql(f"cells{j}", keys, j, m, recursive_l))
    if not parts:
        parts.append(f"SELECT {keys}, count(*) AS size FROM {view} GROUP BY {keys}")
    joined = f"({parts[0]}) a0" + "".join(
        f" JOIN ({part}) a{n} USING ({keys})" for n, part in enumerate(parts[1:], start=1)
    )
    size = "size0 AS size, " if sa else ""
    with_cells = f"WITH {', '.join(ctes)} " if ctes else ""
    statement = (
        f"CREATE OR REPLACE TEMP TABLE {FIGURES} AS {with_cells}SELECT {size}* FROM {joined}"
    )
    # DuckDB out of memory within its limit is an error in words (engines.out_of_memory)
    engine._guard(table, lambda: connection.execute(statement).fetchall())
    return ClassFigures(
        FIGURES,
        {name: kinds[len(qi) + j] for j, name in enumerate(sa)},
        coded.values[: len(qi)],
        _top_codes(coded.values[: len(qi)]),
        view,
    )


def _top_codes(values: Sequence[pd.Series]) -> tuple[int, ...] | None:
    """The codes of ``*`` in every QI (the class of the rows at ``*`` in every QI), or
    None when some QI never shows ``*``."""
    codes = []
    for column in values:
        found = np.flatnonzero(column.astype(object).to_numpy() == SUPPRESSED)
        if not len(found):
            return None
        codes.append(int(found[0]))
    return tuple(codes)


def _ranks(connection: Any, view: str, code: str, *, missing_first: bool) -> tuple[str, int]:
    """The SQL of an attribute's rank in the order of the ordered distance — its code,
    with a missing value (code 0 when there is one) moved last, as it ranks in memory
    (:class:`~privcore.classes.SensitiveAttribute`) — and its number of values m."""
    m = int(connection.execute(f"SELECT count(DISTINCT {code}) FROM {view}").fetchall()[0][0])
    if missing_first and m:
        return f"(CASE WHEN {code} = 0 THEN {m - 1} ELSE {code} - 1 END)", m
    return code, m


def _multi_valued_sql(cells: str, keys: str, m: int, q: str) -> str:
    """CTEs giving, for each class holding two values or more (few in a near-unique
    table), its codes, ``te`` (equal-distance t) and ``tor`` (ordered-distance t) of the
    attribute whose (class, rank) counts are ``cells`` (module docstring), from the
    classes' sizes and distinct counts in ``per_class`` and F_Q, X in ``q``: a segment
    per present value, the crossing point of F_P and F_Q by an as-of join."""
    if m <= 1:
        ordered, joined_ordered, running = "0.0::DOUBLE", "", ""
    else:
        ordered, joined_ordered = "o.tor", f" JOIN ordered o USING ({keys})"
        running = f""",
    running AS (
        SELECT {keys}, v AS a,
               sum(n) OVER (PARTITION BY {keys} ORDER BY v ROWS UNBOUNDED PRECEDING)
                   / size AS c,
               coalesce(lead(v) OVER (PARTITION BY {keys} ORDER BY v), {m}) AS b,
               row_number() OVER (PARTITION BY {keys} ORDER BY v) AS nth
        FROM several
    ),
    crossing AS (
        SELECT running.*, coalesce(q.i + 1, 0) AS s0
        FROM running ASOF LEFT JOIN {q} q ON running.c > q.fq
    ),
    segments AS (
        SELECT {keys}, least(greatest(s0, a), b) AS s, a, b, c, nth FROM crossing
    ),
    parts AS (
        SELECT seg.*, xa.x AS xa, xb.x AS xb, xs.x AS xs FROM segments seg
        JOIN {q} xa ON xa.i = seg.a
        JOIN {q} xb ON xb.i = seg.b
        JOIN {q} xs ON xs.i = seg.s
    ),
    ordered AS (
        SELECT {keys},
               (sum(c * (s - a) - (xs - xa) + (xb - xs) - c * (b - s))
                + sum(CASE WHEN nth = 1 THEN xa ELSE 0 END)) / {m - 1} AS tor
        FROM parts GROUP BY {keys}
    )"""
    return f"""
    several AS (
        SELECT c.*, p.size FROM {cells} c JOIN per_class p USING ({keys}) WHERE p.d >= 2
    ),
    equal AS (
        SELECT {keys}, 0.5 * (sum(abs(n / size - g / rows)) + 1 - sum(g / rows)) AS te
        FROM several JOIN everywhere USING (v) CROSS JOIN total GROUP BY {keys}
    ){running},
    multi AS (SELECT {keys}, e.te, {ordered} AS tor FROM equal e{joined_ordered})"""


def _attribute_sql(cells: str, keys: str, j: int, m: int, recursive_l: Sequence[int]) -> str:
    """One row per class: its codes, ``size{j}``, ``d{j}``, ``h{j}``, ``top{j}``,
    ``tail{j}_{l}``, ``te{j}`` and ``to{j}`` of the attribute whose (class, rank)
    counts are ``cells`` (module docstring), its m ranks 0 … m − 1.

    One GROUP BY of the cells gives each class's size, distinct count d, r₁ and
    Σ n ln n (H = ln |c| − Σ n ln n / |c|). A class of one value a — nearly every class
    of a near-unique table — has closed forms: equal t = 1 − q(a), ordered
    t = (2·X(a) + (m − a) − X(m))/(m − 1) (F_P is 0 before a and 1 from a on). Only the
    classes of two values or more are read again, for their t
    (:func:`_multi_valued_sql`) and, where d ≥ l > 2, the ranks of their counts
    (tail_l); tail₂ = |c| − r₁."""
    larger = sorted({int(l) for l in recursive_l} - {1, 2})  # noqa: E741
    tails = f", size - top AS tail{j}_2, size AS tail{j}_1"
    ranked = ""
    if larger:
        tails += "".join(f", coalesce(tail{j}_{l}, 0) AS tail{j}_{l}" for l in larger)  # noqa: E741
        sums = ", ".join(
            f"sum(CASE WHEN r >= {l} THEN n ELSE 0 END) AS tail{j}_{l}"
            for l in larger  # noqa: E741
        )
        ranked = f"""
    LEFT JOIN (
        SELECT {keys}, {sums} FROM (
            SELECT {keys}, n, row_number() OVER (PARTITION BY {keys} ORDER BY n DESC) AS r
            FROM {cells} JOIN per_class USING ({keys}) WHERE d >= {min(larger)}
        ) GROUP BY {keys}
    ) ranks USING ({keys})"""
    q = f"privcore_ordered_q_{j}"
    if m <= 1:
        single_ordered, q_joins = "0.0::DOUBLE", ""
    else:
        single_ordered = f"(2 * xa.x + ({m} - p.v1) - xm.x) / {m - 1}"
        q_joins = f" JOIN {q} xa ON xa.i = p.v1 CROSS JOIN (SELECT x FROM {q} WHERE i = {m}) xm"
    return f"""
    WITH everywhere AS (SELECT v, sum(n) AS g FROM {cells} GROUP BY v),
    total AS (SELECT sum(n) AS rows FROM {cells}),
    cumulative AS (
        SELECT v AS i, sum(g) OVER (ORDER BY v) / sum(g) OVER () AS fq FROM everywhere
    ),
    {q} AS (
        SELECT i, fq, coalesce(sum(fq) OVER (ORDER BY i ROWS BETWEEN UNBOUNDED PRECEDING
                                             AND 1 PRECEDING), 0) AS x
        FROM (SELECT i, fq FROM cumulative
              UNION ALL SELECT {m} AS i, 'infinity'::DOUBLE AS fq)
    ),
    per_class AS (
        SELECT {keys}, sum(n) AS size, count(*) AS d, max(n) AS top,
               sum(n * ln(n)) AS nlnn, min(v) AS v1
        FROM {cells} GROUP BY {keys}
    ),{_multi_valued_sql(cells, keys, m, q)}
    SELECT {keys}, p.size::BIGINT AS size{j}, p.d AS d{j},
           greatest(ln(p.size) - p.nlnn / p.size, 0) AS h{j}, p.top AS top{j}{tails},
           least(greatest(CASE WHEN p.d = 1 THEN 1 - ev.g / total.rows ELSE multi.te END,
                          0), 1) AS te{j},
           least(greatest(CASE WHEN p.d = 1 THEN {single_ordered} ELSE multi.tor END,
                          0), 1) AS to{j}
    FROM per_class p JOIN everywhere ev ON ev.v = p.v1 CROSS JOIN total{q_joins}
    LEFT JOIN multi USING ({keys}){ranked}
    """


def resolved_distance(distance: str, kind: str) -> str:
    """The distance a t-closeness model measures an attribute of ``kind`` with: ``auto``
    is ordered for numbers and equal otherwise; equal and ordered are computed here."""
    resolved = ("ordered" if kind == "numeric" else "equal") if distance == "auto" else distance
    if resolved not in ("equal", "ordered"):
        raise ParameterError(
            f"t-closeness with the {resolved} distance is not yet computed inside the "
            "engine: use the equal or ordered distance, or measure in memory.",
            code="engines.distance_not_in_engine",
            distance=resolved,
        )
    return resolved


def approximate_combinations(table: Any, columns: Sequence[str]) -> int:
    """About how many distinct raw combinations of ``columns`` ``table`` holds: DuckDB's
    HyperLogLog estimate (``approx_count_distinct`` of each row's hash; a few per cent
    off), in one pass with little memory — enough to tell a table of a few thousand
    classes from a near-unique one before grouping it."""
    columns = check_columns(table.columns, columns)
    cells = ", ".join(_quote(c) for c in columns)
    found = table.connection.execute(
        f"SELECT approx_count_distinct(hash({cells})) FROM ({table.sql})"
    ).fetchall()
    return int(found[0][0] or 0)


def row_hash_sum(table: Any, columns: Sequence[str]) -> tuple[int, int]:
    """The rows of ``table`` and the sum over them of DuckDB's hash of their cells in
    ``columns`` (a HUGEINT): a fingerprint of the rows whatever their order."""
    columns = check_columns(table.columns, columns)
    cells = ", ".join(_quote(c) for c in columns)
    rows, summed = table.connection.execute(
        f"SELECT count(*), coalesce(sum(hash({cells})::HUGEINT), 0) FROM ({table.sql})"
    ).fetchall()[0]
    return int(rows), int(summed)
