"""A release's classes checked and summarized inside DuckDB, for a table whose classes
are too many to bring into memory (a near-unique table: exact ages, dates, postcodes).

:func:`engine_class_report` gives what :func:`privcore.models.evaluate` gives on the
classes in memory — one verdict per model, the summary (the worst class of each figure)
and a class table, here of the worst classes only — from the per-class figures of
:func:`~privcore.engines.class_sql.class_figures`. A class fails a model by the tests of
the models' ``class_pass``: k: |c| < k; distinct l: d < l; entropy l: H < ln l − 10⁻¹²;
recursive (c, l): r₁ ≥ c·(r_l + … + r_m); t: distance > t + 10⁻¹² (equal or ordered
distance). Other models and distances are refused in words.

The rows at ``*`` in every QI (:func:`~privcore.classes.release_classes`): they form one
group, a class when it meets every model as one class and suppression otherwise; then it
is left out of the classes and counted in ``suppressed_rows`` (t-closeness's reference
distribution still counts every row).

Besides the verdicts, what comes back is small: the number of classes of each size
(:attr:`EngineClassReport.size_counts`, a few hundred sizes at most, from which the
risk and the loss of the classes are exact sums) and three sums Σ n ln n over groups of
the released rows, from which H(K), H(T) and H(K, T) follow (H = ln N − Σ n ln n / N).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from privcore.engines.class_sql import ClassFigures, class_figures, resolved_distance
from privcore.errors import ParameterError

#: How many of the worst classes the class table lists.
WORST_CLASSES = 1_000


@dataclass(frozen=True)
class EngineClassReport:
    """What :func:`engine_class_report` computes. ``summary`` and ``verdicts`` are in the
    format of :class:`~privcore.models.ModelReport`; ``class_table`` its columns, for the
    ``worst`` classes (failing ones first, then the smallest); ``size_counts`` the number
    of classes of each size (index: size); ``n_ln_n``: Σ n ln n over the released rows
    grouped by their QIs (``"qi"``), by their SAs (``"sa"``) and by both (``"both"``)."""

    summary: dict[str, Any]
    verdicts: list[dict[str, Any]]
    class_table: pd.DataFrame
    size_counts: pd.Series
    n_ln_n: dict[str, float]


@dataclass(frozen=True)
class _Test:
    """How one model reads the figures: the SQL that is true on a failing class, and the
    achieved figure's SQL (one aggregate per attribute) with its shape."""

    failing: str
    achieved: list[str]
    shape: Any  # the achieved figures as the model's ``achieved`` gives them


def _covered(model: Any, index: dict[str, int]) -> list[str]:
    names = list(index) if model.attributes is None else list(model.attributes)
    unknown = [n for n in names if n not in index]
    if not names or unknown:
        raise ParameterError(
            "This privacy model needs a sensitive attribute of the release: "
            f"{', '.join(unknown) or 'none'} is not one.",
            code="roles.no_sensitive",
        )
    return names


def _recursive_c(top: str, tail: str) -> str:
    return f"CASE WHEN {tail} > 0 THEN {top} / {tail} ELSE 'infinity'::DOUBLE END"


def _test(model: Any, index: dict[str, int], kinds: dict[str, str]) -> _Test:
    """The test of ``model`` on the figures (module docstring)."""
    from privcore.models import (
        DistinctLDiversity,
        EntropyLDiversity,
        KAnonymity,
        RecursiveCLDiversity,
        TCloseness,
    )
    from privcore.models.checks import _TOLERANCE

    if isinstance(model, KAnonymity):
        return _Test(f"size < {int(model.k)}", ["min(size)"], lambda w: {"k": w[0]})
    if not isinstance(
        model, DistinctLDiversity | EntropyLDiversity | RecursiveCLDiversity | TCloseness
    ):
        raise ParameterError(
            f"{model.name} is not yet computed inside the engine: measure this release "
            "in memory, or with k, l and t only.",
            code="engines.model_not_in_engine",
            model=str(model.name),
        )
    names = _covered(model, index)
    j = {n: index[n] for n in names}
    if isinstance(model, TCloseness):
        distances = {n: resolved_distance(model.distance, kinds[n]) for n in names}
        column = {n: f"{'te' if distances[n] == 'equal' else 'to'}{j[n]}" for n in names}
        bound = float(model.t) + _TOLERANCE
        return _Test(
            " OR ".join(f"{column[n]} > {bound!r}" for n in names),
            [f"max({column[n]})" for n in names],
            lambda worst: {"t": dict(zip(names, worst, strict=True)), "distance": distances},
        )
    if isinstance(model, DistinctLDiversity):
        failing, aggregate, key = f"d{{j}} < {int(model.l)}", "min(d{j})", "l"
    elif isinstance(model, EntropyLDiversity):
        failing = f"h{{j}} < {math.log(model.l) - _TOLERANCE!r}"
        aggregate, key = "min(exp(h{j}))", "l"
    else:  # recursive (c, l)
        tail = f"tail{{j}}_{int(model.l)}"
        failing = f"top{{j}} >= {float(model.c)!r} * {tail}"
        aggregate, key = f"max({_recursive_c('top{j}', tail)})", "c"
    whole = isinstance(model, DistinctLDiversity)  # distinct counts are whole numbers

    def shape(worst: Sequence[Any]) -> dict[str, Any]:
        figures = {
            n: int(w) if whole and w is not None else w for n, w in zip(names, worst, strict=True)
        }
        return {key: figures}

    return _Test(
        " OR ".join(failing.format(j=j[n]) for n in names),
        [aggregate.format(j=j[n]) for n in names],
        shape,
    )


def _literal(text: str) -> str:
    return "'" + str(text).replace("'", "''") + "'"


def _reported_distances(
    models: Sequence[Any], sa: Sequence[str], kinds: dict[str, str], default: str
) -> dict[str, list[str]]:
    """Per SA, the distances of the t-closeness models covering it, else ``default``
    (as :func:`~privcore.models.evaluate` reports t)."""
    from privcore.models import TCloseness

    out: dict[str, list[str]] = {name: [] for name in sa}
    for model in models:
        if isinstance(model, TCloseness):
            for name in list(sa) if model.attributes is None else model.attributes:
                resolved = resolved_distance(model.distance, kinds[name])
                if resolved not in out[name]:
                    out[name].append(resolved)
    for name, distances in out.items():
        if not distances:
            distances.append(resolved_distance(default, kinds[name]))
    return out


def _t_column(distance: str, j: int) -> str:
    return f"{'te' if distance == 'equal' else 'to'}{j}"


class _Reading:
    """The figures table on its connection, read one aggregate row at a time."""

    def __init__(self, connection: Any, figures: ClassFigures, n_qi: int) -> None:
        self.connection, self.figures, self.n_qi = connection, figures, n_qi
        self.table = figures.table

    def one(self, sql: str) -> tuple:
        return self.connection.execute(sql).fetchall()[0]

    def n_ln_n(self, n_sa: int) -> dict[str, float]:
        """Σ n ln n over the released rows grouped by QIs, by SAs and by both (the group
        at ``*`` included, before it may be suppressed)."""
        view, table = self.figures.view, self.table
        qi_codes = [f"c{i}" for i in range(self.n_qi)]
        sa_codes = [f"c{self.n_qi + j}" for j in range(n_sa)]

        def grouped(codes: list[str]) -> float:
            if not codes:
                return 0.0
            return self.one(
                f"SELECT coalesce(sum(n * ln(n)), 0) FROM (SELECT count(*)::DOUBLE AS n "
                f"FROM {view} GROUP BY {', '.join(codes)})"
            )[0]

        by_qi = self.one(f"SELECT coalesce(sum(size * ln(size)), 0) FROM {table}")[0]
        if n_sa == 1:  # Σ_c Σ_v n ln n = Σ_c (|c| ln |c| − |c| H_c)
            both = self.one(f"SELECT coalesce(sum(size * ln(size) - size * h0), 0) FROM {table}")[0]
        else:
            both = by_qi if not n_sa else grouped(qi_codes + sa_codes)
        return {"qi": float(by_qi), "sa": float(grouped(sa_codes)), "both": float(both)}

    def suppress_top(self, tests: Sequence[_Test]) -> int:
        """The group at ``*`` in every QI, suppressed (deleted from the figures) when it
        fails a model as one class; its rows (0 when it stays a class or is absent)."""
        top = self.figures.top
        if top is None or not tests:
            return 0
        where = " AND ".join(f"c{i} = {code}" for i, code in enumerate(top))
        failing = " OR ".join(f"({t.failing})" for t in tests)
        found = self.connection.execute(
            f"SELECT size, {failing} FROM {self.table} WHERE {where}"
        ).fetchall()
        if not found or not found[0][1]:
            return 0
        self.connection.execute(f"DELETE FROM {self.table} WHERE {where}").fetchall()
        return int(found[0][0])


def engine_class_report(
    engine: Any,
    table: Any,
    qi: Sequence[str],
    sa: Sequence[str],
    models: Sequence[Any] = (),
    *,
    t_distance: str = "auto",
    limit: int | None = None,
    worst: int = WORST_CLASSES,
) -> EngineClassReport:
    """Check ``models`` on the classes of ``table`` (a DuckDB table of ``engine``) by
    the QIs ``qi`` and summarize them, inside the engine (module docstring).
    ``t_distance``: the distance t is reported with for an SA no t-closeness model
    covers. ``limit``: the most distinct values a column may have."""
    from privcore.models import RecursiveCLDiversity
    from privcore.models.report import _model_labels

    qi, sa, models = [str(c) for c in qi], [str(c) for c in sa], list(models)
    recursive_l = [m.l for m in models if isinstance(m, RecursiveCLDiversity)]
    figures = class_figures(engine, table, qi, sa, recursive_l=recursive_l, limit=limit)
    reading = _Reading(table.connection, figures, len(qi))
    index = {name: j for j, name in enumerate(sa)}
    tests = [_test(model, index, figures.kinds) for model in models]
    distances = _reported_distances(models, sa, figures.kinds, t_distance)
    n_ln_n = reading.n_ln_n(len(sa))
    rows = int(reading.one(f"SELECT coalesce(sum(size), 0) FROM {figures.table}")[0])
    suppressed = reading.suppress_top(tests)
    summary = _summary(reading, sa, distances)
    summary.update(rows=rows, suppressed_rows=suppressed)
    verdicts = []
    for model, test in zip(models, tests, strict=True):
        worst_figures = reading.one(f"SELECT {', '.join(test.achieved)} FROM {figures.table}")
        achieved = test.shape(worst_figures)
        count, failing_rows = reading.one(
            f"SELECT count(*), coalesce(sum(size), 0) FROM {figures.table} WHERE {test.failing}"
        )
        verdicts.append(
            {
                "model": model.name,
                "requirement": model.requirement(),
                "achieved": achieved,
                "passed": not count,
                "violating_classes": int(count),
                "violating_rows": int(failing_rows),
                "parameters": model.to_dict(),
            }
        )
    sizes = table.connection.execute(
        f"SELECT size, count(*) FROM {figures.table} GROUP BY size ORDER BY size"
    ).fetchall()
    size_counts = pd.Series(
        [int(c) for _, c in sizes], index=[int(s) for s, _ in sizes], dtype="int64", name="classes"
    )
    labels = _model_labels(models)
    class_table = _worst_classes(reading, qi, sa, distances, tests, labels, worst)
    return EngineClassReport(summary, verdicts, class_table, size_counts, n_ln_n)


def _summary(reading: _Reading, sa: Sequence[str], distances: dict[str, list[str]]) -> dict:
    """The summary of :class:`~privcore.models.ModelReport` (without ``rows`` and
    ``suppressed_rows``): the smallest class and the worst class of each figure."""
    columns = ["count(*)", "min(size)"]
    for j, name in enumerate(sa):
        columns += [
            f"min(d{j})",
            f"min(exp(h{j}))",
            f"max({_recursive_c(f'top{j}', f'tail{j}_2')})",
            f"max({_t_column(distances[name][0], j)})",
            f"max(top{j} / size)",
        ]
    row = reading.one(f"SELECT {', '.join(columns)} FROM {reading.table}")
    classes, k = row[:2]
    summary: dict[str, Any] = {"k": None if k is None else int(k), "classes": int(classes)}
    for key in ("l_distinct", "l_entropy", "recursive_c", "t_closeness", "top_share"):
        summary[key] = {}
    for j, name in enumerate(sa):
        distinct, entropy, recursive, t, top = row[2 + 5 * j : 7 + 5 * j]
        summary["l_distinct"][name] = None if distinct is None else int(distinct)
        summary["l_entropy"][name] = entropy
        summary["recursive_c"][name] = recursive
        summary["t_closeness"][name] = {"distance": distances[name][0], "t": t}
        summary["top_share"][name] = top
    return summary


def _worst_classes(
    reading: _Reading,
    qi: Sequence[str],
    sa: Sequence[str],
    distances: dict[str, list[str]],
    tests: Sequence[_Test],
    labels: Sequence[str],
    worst: int,
) -> pd.DataFrame:
    """The class table of :class:`~privcore.models.ModelReport` for the ``worst``
    classes: those failing a model first, then the smallest (ties: the QI values' order),
    each named by its QI values; ``class`` numbers them in that order."""
    failing = [f"({t.failing})" for t in tests]
    violates = (
        "concat_ws(', ', "
        + ", ".join(
            f"CASE WHEN {f} THEN {_literal(label)} END"
            for f, label in zip(failing, labels, strict=True)
        )
        + ")"
        if tests
        else "''"
    )
    codes = [f"c{i}" for i in range(len(qi))]
    figures = ["size"]
    names = ["size"]
    for j, name in enumerate(sa):
        figures += [f"d{j}", f"exp(h{j})", f"top{j} / size"]
        names += [f"{name} · distinct", f"{name} · entropy l", f"{name} · top share"]
        for distance in distances[name]:
            figures.append(_t_column(distance, j))
            names.append(f"{name} · t ({distance})")
    first = f"({' OR '.join(failing)}) DESC, " if failing else ""
    rows = reading.connection.execute(
        f"SELECT {', '.join(codes + figures)}, {violates} FROM {reading.table} "
        f"ORDER BY {first}size, {', '.join(codes)} LIMIT {int(worst)}"
    ).fetchall()
    table = pd.DataFrame(rows, columns=[*codes, *names, "violates"])
    table.insert(0, "class", range(len(table)))
    for i, values in enumerate(reading.figures.values):
        table[f"c{i}"] = values.iloc[table[f"c{i}"].to_numpy(dtype="int64")].to_numpy()
    return table.rename(columns={f"c{i}": column for i, column in enumerate(qi)})
