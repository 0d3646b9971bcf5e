"""The database-reconstruction attack on a table's own counts: the contingency tables an
agency would publish of a table, and what an attacker rebuilds from them.

Given a table (the truth) and the column sets to publish (``sex,age;race,age``), each
block (the rows with one value of the block column, or the whole table) publishes:

- its total count, and for each column set the count of every cell of the
  contingency table over the columns' domains — empty cells included, as an agency's
  table shows them;
- with a suppression threshold N, every cell (and the total) holding fewer than N
  records is withheld: the attacker knows only that it holds fewer than N;
- with differential privacy at ε, every cell of every table carries discrete Laplace
  noise (:class:`privcore.dp.mechanisms.DiscreteLaplace`, Ghosh, Roughgarden &
  Sundararajan 2009). Adding or removing one person changes one cell of each table by
  one, so each table has L1 sensitivity 1; the budget is split equally across the k
  tables (the column sets and the total): ε/k each, ε in all by sequential composition,
  and ε for the whole table since the blocks are disjoint (parallel composition). No
  cell is suppressed then.

A column's domain is what the attacker assumes it knows of the schema: the whole
range min..max of a column of whole numbers, the distinct values of any other column,
read from the whole table (not per block). The record types are the combinations of the
domains; their number is capped at :data:`MAX_RECORD_TYPES` before any solve.

The attack (:func:`privcore.attacks.reconstruction.reconstruct`, Garfinkel, Abowd & Martindale
2019) rebuilds each block on its own and is compared with the block's true records
(:func:`privcore.attacks.reconstruction.compare`). A noisy count is kept within its error at
β shared by the block's cells (Bonferroni: all cells hold at once with
probability ≥ 1 − β) and fitted by least absolute deviation; β = :data:`BETA` is tiny,
so that noise never makes the tables contradict each other and the fit does the work.

The curve repeats the noisy attack at each ε over ``seeds`` seeds: per ε, the mean
share rebuilt exactly and within tolerance and a 95 % Student t interval of the mean
(mean ± t₀.₉₇₅,ₙ₋₁ · s/√n, clipped to [0, 1]; none with one seed).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from privcore.attacks.reconstruction import (
    Count,
    Noise,
    Publication,
    Reconstruction,
    Schema,
    compare,
    pooled,
    reconstruct,
)
from privcore.attacks.reconstruction.domains import MAX_RECORD_TYPES, domains
from privcore.attacks.reconstruction.linkage import (
    Reidentification,
    default_link_columns,
    reidentify,
)
from privcore.classes import code_counts, members, require_known_columns, value_codes
from privcore.core.progress import Progress, Stage
from privcore.errors import ParameterError

#: The whole table's name when no block column is given.
WHOLE_TABLE = "all"
#: The error each noisy count is kept within is exceeded by any of a block's cells with
#: probability at most BETA: in practice never, so that the noisy tables always fit and
#: the least-absolute-deviation fit does the work.
BETA = 1e-9
#: The δ of the Gaussian noise of the curve, split across the tables with ε.
DEFAULT_DELTA = 1e-6
#: The noise laws of the curve.
NOISE_LAWS = ("discrete_laplace", "gaussian")

__all__ = [
    "MAX_RECORD_TYPES",
    "Attack",
    "LinkInput",
    "ReleaseInput",
    "attack_table",
    "domains",
    "publications",
    "split_blocks",
]


@dataclass
class Attack:
    """The attack on the tables published without noise (``results`` by block, in block
    order; ``truth`` the true records of each block), the tolerance used, and the curve
    (one point per ε; empty without ε)."""

    schema: Schema
    results: dict[str, Reconstruction]
    truth: dict[str, pd.DataFrame]
    tolerance: dict[str, float]
    curve: list[dict[str, Any]] = field(default_factory=list)
    reidentification: Reidentification | None = None
    reidentification_why: str = ""
    release_cells: int = 0

    def records(self, block: str | None) -> pd.DataFrame:
        """The rebuilt records of every block, with the block column when there is one."""
        frames = []
        for name, result in self.results.items():
            table = result.table if result.table is not None else _no_records(self.schema)
            if block is not None:
                table = table.assign(**{block: name})[[block, *self.schema.columns]]
            frames.append(table)
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()

    def summary(self) -> dict[str, Any]:
        """Figures only — counts, shares, the curve — never a value of the table."""
        accuracy = pooled(r.accuracy for r in self.results.values() if r.accuracy is not None)
        certain = [r.certain for r in self.results.values()]
        return {
            "record_types": self.schema.n_types,
            "blocks": len(self.results),
            "people": sum(len(t) for t in self.truth.values()),
            "records_rebuilt": sum(
                0 if r.table is None else len(r.table) for r in self.results.values()
            ),
            "unique_blocks": sum(r.unique for r in self.results.values()),
            "certain": sum(0 if c is None else len(c) for c in certain),
            "certain_unverified_blocks": sum(c is None for c in certain),
            "timed_out_blocks": sum(r.timed_out for r in self.results.values()),
            "exact_share": None if accuracy is None else accuracy.exact_share,
            "within_tolerance_share": (
                None if accuracy is None else accuracy.within_tolerance_share
            ),
            "tolerance": dict(self.tolerance),
            "release_cells": self.release_cells,
            **self._reidentified(),
            "curve": list(self.curve),
        }

    def _reidentified(self) -> dict[str, Any]:
        """The linkage of the rebuilt records to the voter roll, or None with why."""
        if self.reidentification is None:
            return {"reidentified": None, "reidentified_why": self.reidentification_why}
        return self.reidentification.summary()


def _table_cells(schema: Schema, counts: np.ndarray, columns: Sequence[str]) -> np.ndarray:
    """The contingency table over ``columns`` of a vector of counts per record type, as
    a flat vector in mixed radix over the columns' domains (the last varies fastest)."""
    cube = counts.reshape(tuple(schema.sizes))
    axes = [schema.columns.index(c) for c in columns]
    others = tuple(j for j in range(len(schema.columns)) if j not in axes)
    kept = cube.sum(axis=others) if others else cube
    ranked = sorted(axes)  # the kept axes are in schema order; put them in ``columns`` order
    return np.transpose(kept, [ranked.index(a) for a in axes]).reshape(-1)


def _no_records(schema: Schema) -> pd.DataFrame:
    """A table of the schema's columns with no record (a block not rebuilt in time)."""
    return schema.records(np.zeros(schema.n_types, dtype=np.int64))


def publications(
    schema: Schema,
    blocks: Mapping[str, pd.DataFrame],
    tables: Sequence[Sequence[str]],
    *,
    suppress_below: int | None = None,
    epsilon: float | None = None,
    rng: np.random.Generator | None = None,
    extra: Mapping[str, Sequence[Count]] | None = None,
    law: str = "discrete_laplace",
    delta: float = DEFAULT_DELTA,
    round_to: int | None = None,
) -> list[Publication]:
    """What each block publishes (see the module's docstring): its total and the cells
    of each table, exact, suppressed below ``suppress_below``, rounded to the nearest
    multiple of ``round_to``, or with noise at ``epsilon`` split across the tables,
    drawn from ``rng`` — of the ``law`` ``discrete_laplace`` (ε-DP) or ``gaussian`` (the
    analytic Gaussian on the integers at (ε, δ), each table at (ε/k, δ/k)); ``extra``: a
    block's other statistics, published as they are (a release's cells)."""
    sets = [tuple(t) for t in tables]
    n_tables = len(sets) + 1
    mechanism = None if epsilon is None else _mechanism(law, epsilon / n_tables, delta / n_tables)
    cells = 1 + sum(math.prod(len(schema.domain(c)) for c in t) for t in sets)
    noise = None if mechanism is None else Noise(law, mechanism.scale, BETA / cells)
    if mechanism is None and round_to is not None and round_to > 1:
        # rounded half up to a multiple of B: the truth lies within ± B/2 of the value
        noise = Noise("bounded", round_to / 2.0)
    out = []
    for name, frame in blocks.items():
        counts = code_counts(schema.type_of(frame), schema.n_types)
        statistics = []
        for index, columns in enumerate([(), *sets]):
            true = _table_cells(schema, counts, columns) if columns else np.array([counts.sum()])
            published: np.ndarray = true
            if mechanism is not None:
                published = np.asarray(mechanism.release(true, rng=rng)).reshape(-1)
            elif noise is not None:  # rounding
                published = np.floor(true / round_to + 0.5) * round_to
            shape = tuple(len(schema.domain(c)) for c in columns)
            grid = np.indices(shape).reshape(len(columns), -1) if columns else np.zeros((0, 1))
            for cell, (value, exact) in enumerate(zip(published, true, strict=True)):
                where = {c: schema.domain(c)[int(grid[j, cell])] for j, c in enumerate(columns)}
                hidden = suppress_below is not None and mechanism is None
                hidden = hidden and exact < suppress_below
                text = ", ".join(f"{c}={v}" for c, v in where.items()) or "all"
                statistics.append(
                    Count(
                        where,
                        None if hidden else float(value),
                        suppressed_below=suppress_below if hidden else None,
                        noise=noise,
                        name=f"table {index} count [{text}]",
                    )
                )
        statistics.extend((extra or {}).get(name, ()))
        out.append(Publication(schema, statistics, name=name))
    return out


def _mechanism(law: str, epsilon: float, delta: float):
    """The noise of one table: discrete Laplace at ε, or the analytic Gaussian at (ε, δ),
    both of sensitivity 1 (one person changes one cell by one)."""
    from privcore.dp.mechanisms import DiscreteLaplace, Gaussian

    if law == "discrete_laplace":
        return DiscreteLaplace(1, epsilon)
    if law == "gaussian":
        return Gaussian(1, epsilon, delta)
    raise ParameterError(
        f"Unknown noise law {law!r}: use one of {', '.join(NOISE_LAWS)}.",
        code="reconstruction.noise_law",
        law=law,
    )


def split_blocks(
    frame: pd.DataFrame, columns: Sequence[str], block: str | None
) -> dict[str, pd.DataFrame]:
    """The true records of each block (its published columns), by the block's value as
    text in value order; the whole table as one block named :data:`WHOLE_TABLE`."""
    if block is None:
        return {WHOLE_TABLE: frame[list(columns)].reset_index(drop=True)}
    codes, uniques = value_codes(frame[block], sort=True)
    if (codes < 0).any():
        raise ParameterError(
            f"Column {block!r} has missing values: every record needs a block.",
            code="reconstruction.missing_values",
            column=block,
        )
    rows = members(codes, len(uniques))
    return {
        str(value): frame[list(columns)].iloc[r].reset_index(drop=True)
        for value, r in zip(uniques, rows, strict=True)
    }


def _tolerance(schema: Schema, asked: Mapping[str, float] | float | None) -> dict[str, float]:
    """The tolerance per numeric column: as asked (one number: every numeric column of
    the schema), else ± 1 on a numeric column named ``age`` (any case), else none
    (within tolerance is then exact)."""
    if asked is None:
        return {c: 1.0 for c in schema.columns if c.lower() == "age" and schema.is_numeric(c)}
    if not isinstance(asked, Mapping):
        return {c: float(asked) for c in schema.columns if schema.is_numeric(c)}
    for column in asked:
        if column not in schema.columns or not schema.is_numeric(column):
            raise ParameterError(
                f"The tolerance names {column!r}, which is not a numeric published column.",
                code="reconstruction.tolerance_column",
                column=column,
            )
    return {c: float(w) for c, w in asked.items()}


def _interval(shares: Sequence[float]) -> dict[str, Any]:
    """Mean and 95 % Student t interval of the mean, clipped to [0, 1]."""
    from scipy.stats import t

    values = np.asarray(shares, dtype=np.float64)
    mean = float(values.mean())
    if len(values) < 2:
        return {"mean": mean, "low": None, "high": None}
    half = float(t.ppf(0.975, len(values) - 1) * values.std(ddof=1) / math.sqrt(len(values)))
    return {"mean": mean, "low": max(0.0, mean - half), "high": min(1.0, mean + half)}


def attack_table(
    frame: pd.DataFrame,
    tables: Sequence[Sequence[str]],
    *,
    block: str | None = None,
    suppress_below: int | None = None,
    epsilons: Sequence[float] = (),
    seed: int = 0,
    seeds: int = 1,
    tolerance: Mapping[str, float] | float | None = None,
    max_solutions: int = 10,
    certain: bool = True,
    time_limit: float | None = 60.0,
    release: ReleaseInput | None = None,
    link: LinkInput | None = None,
    round_to: int | None = None,
    noise_law: str = "discrete_laplace",
    delta: float = DEFAULT_DELTA,
    explain: bool = True,
    progress: Progress | None = None,
) -> Attack:
    """The attack on ``frame``'s published ``tables`` (see the module's docstring):
    exact or suppressed tables rebuilt block by block (``time_limit`` seconds per
    block), then the noisy ones at each of ``epsilons`` with seeds ``seed`` …
    ``seed + seeds − 1``; ``certain=False`` leaves the certain records unverified
    (no verifying solves when the tables found are not all); ``tolerance``: per
    numeric column, or one number for every numeric column published. ``release``: a
    generalized release of ``frame`` published
    beside the tables, whose cells constrain the records too (in every attack, the noisy
    ones included: the release itself carries no noise). ``link``: how the rebuilt
    records are linked to a voter roll (:func:`reidentify`; by default on the block and
    the columns a roll lists, with a roll of the table's people). ``round_to``: the
    exact tables' cells rounded to a multiple of it; ``noise_law`` and ``delta``: the
    noise of the curve (:func:`publications`); ``explain=False``: contradicting tables
    are refused without naming the statistics (:func:`reconstruct`)."""
    columns = list(dict.fromkeys(c for t in tables for c in t))
    require_known_columns(frame, [*columns, *([block] if block is not None else [])])
    schema = Schema(domains(frame, columns))
    tolerance = _tolerance(schema, tolerance)
    truth = split_blocks(frame, columns, block)
    extra = {} if release is None else release.statistics(schema, block, list(truth))
    stage = Stage(progress)
    runs = len(epsilons) * seeds
    first = stage.part(0.0, 0.95 / (1 + runs))
    attack = Attack(schema=schema, results={}, truth=truth, tolerance=tolerance)
    attack.release_cells = sum(len(v) for v in extra.values())
    published = publications(
        schema, truth, tables, suppress_below=suppress_below, extra=extra, round_to=round_to
    )
    law = (noise_law, delta)
    for n, publication in enumerate(published):
        first(n / len(published), f"Rebuilding block {n + 1} of {len(published)}")
        attack.results[publication.name] = reconstruct(
            publication,
            max_solutions=max_solutions,
            certain=certain,
            explain=explain,
            truth=truth[publication.name],
            tolerance=tolerance,
            time_limit=time_limit,
            progress=first.part(n / len(published), (n + 1) / len(published)),
        )
    stage(0.95 / (1 + runs), "Linking the rebuilt records to a voter roll")
    _link(attack, frame, block, link or LinkInput(), seed)
    for e, epsilon in enumerate(epsilons):
        shares = []
        for s in range(seeds):
            done = (1 + e * seeds + s) / (1 + runs)
            stage(done, f"ε = {epsilon:g}, seed {seed + s}")
            part = stage.part(done, done + 1 / (1 + runs))
            shares.append(
                _noisy_shares(
                    schema, truth, tables, (epsilon, seed + s), tolerance, time_limit, part,
                    extra, law,
                )
            )  # fmt: skip
        attack.curve.append(
            {
                "epsilon": float(epsilon),
                "seeds": seeds,
                "exact": _interval([x for x, _ in shares]),
                "within_tolerance": _interval([w for _, w in shares]),
            }
        )
    stage(1.0, "Done")
    return attack


@dataclass(frozen=True)
class ReleaseInput:
    """A generalized release of the attacked table, published beside the tables: its
    rows (``frame``), the hierarchies that give its labels their meaning and its kind
    (declared by the method that made it; only ``generalized`` is read). With blocks,
    the release keeps the block column as it is, so that each block's cells are known."""

    frame: pd.DataFrame
    hierarchies: Mapping[str, Any] = field(default_factory=dict)
    kind: str = "generalized"

    def statistics(
        self, schema: Schema, block: str | None, names: Sequence[str]
    ) -> dict[str, list[Count]]:
        """Each block's release cells as counts (:func:`release_statistics`)."""
        from privcore.attacks.reconstruction.release_cells import release_statistics

        def cells(rows: pd.DataFrame) -> list[Count]:
            return release_statistics(rows, schema, hierarchies=self.hierarchies, kind=self.kind)

        if block is None:
            return {WHOLE_TABLE: cells(self.frame)}
        if block not in self.frame.columns:
            raise ParameterError(
                f"The release has no column {block!r}: with blocks, the release must keep "
                "the block column as it is, so that each block's cells are known.",
                code="reconstruction.release_block",
                column=block,
            )
        by_block = split_blocks(self.frame, list(self.frame.columns), block)
        unknown = sorted(set(by_block) - set(names))
        if unknown:
            raise ParameterError(
                f"The release's block {unknown[0]!r} is not a block of the table: the "
                "release must keep the block column as it is.",
                code="reconstruction.release_block",
                column=block,
            )
        return {name: cells(rows) for name, rows in by_block.items()}


@dataclass(frozen=True)
class LinkInput:
    """How the rebuilt records are linked to a voter roll: the linking columns (None:
    :func:`default_link_columns`), the roll's people (None: the table's) and the names'
    locale."""

    link_on: tuple[str, ...] | None = None
    roll_size: int | None = None
    locale: str = "en"


def _link(attack: Attack, frame: pd.DataFrame, block: str | None, link: LinkInput, seed: int):
    """Link the rebuilt records to a voter roll (:func:`reidentify`), or say why not."""
    columns = list(attack.schema.columns)
    link_on = link.link_on
    if link_on is None:
        link_on = default_link_columns(columns, block)
    if not link_on:
        attack.reidentification_why = (
            "No published column is one a voter roll lists (a block, an age, a sex, a ZIP "
            "code): the rebuilt records were not linked to names. Name the linking "
            "columns (--link-on) to link them."
        )
        return
    unknown = [c for c in link_on if c not in [*columns, *([block] if block else [])]]
    if unknown:
        raise ParameterError(
            f"The linking column(s) {', '.join(unknown)} are not published: link on the "
            "block or on published columns.",
            code="reconstruction.link_columns",
            columns=unknown,
        )
    kept = [*([block] if block is not None else []), *columns]
    truth = frame[kept].reset_index(drop=True)
    if block is not None:
        truth[block] = truth[block].map(str)  # the blocks' names, as the records hold them
    attack.reidentification = reidentify(
        truth,
        attack.records(block),
        columns,
        link_on,
        roll_size=link.roll_size,
        seed=seed,
        locale=link.locale,
    )


def _noisy_shares(
    schema: Schema,
    truth: Mapping[str, pd.DataFrame],
    tables: Sequence[Sequence[str]],
    draw: tuple[float, int],
    tolerance: Mapping[str, float],
    time_limit: float | None,
    stage: Stage,
    extra: Mapping[str, Sequence[Count]],
    law: tuple[str, float],
) -> tuple[float, float]:
    """The shares rebuilt exactly and within tolerance, pooled over the blocks, from the
    tables published with noise at ε drawn with a seed (``draw``): the best fit of each
    block, its other tables neither counted nor verified."""
    epsilon, seed = draw
    rng = np.random.default_rng(seed)
    published = publications(
        schema, truth, tables, epsilon=epsilon, rng=rng, extra=extra, law=law[0], delta=law[1]
    )
    accuracies = []
    for n, publication in enumerate(published):
        result = reconstruct(
            publication,
            max_solutions=1,
            certain=False,
            time_limit=time_limit,
            progress=stage.part(n / len(published), (n + 1) / len(published)),
        )
        rebuilt = result.table if result.table is not None else _no_records(schema)
        accuracies.append(compare(truth[publication.name], rebuilt, schema, tolerance))
    together = pooled(accuracies)
    if together is None:
        return 0.0, 0.0
    return together.exact_share, together.within_tolerance_share
