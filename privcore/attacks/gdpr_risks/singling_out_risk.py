"""Singling out (:func:`singling_out`), the first risk of the Article 29 Working Party, as
Anonymeter measures it (Giomi et al., PoPETs 2023(2)).

The attacker writes predicates from the release and claims that each picks out exactly
one person (:mod:`privcore.attacks.gdpr_risks.predicates`).

*Univariate*: for every column, "c is missing" when exactly one released row is missing
it, "c ≤ min" and "c ≥ max" for numeric columns, and "c = v" for every value v held by
one released row only; shuffled (seeded), kept when they match exactly one released row.

*Multivariate* (default, ``n_cols`` = 3 columns): a random released row and ``n_cols``
random columns; "c = v" for a categorical column, "c ≥ v" for a numeric value above the
column's median and "c ≤ v" otherwise; kept when the predicate matches exactly one
released row, in batches of 1,000, until ``n_attacks`` distinct predicates or
``max_attempts`` (by default :data:`ATTEMPTS_PER_ATTACK` × ``n_attacks`` candidates;
Anonymeter: 10,000,000).

Success: the predicate matches exactly one training record; on the control set likewise,
its count scaled by the control-size correction when the two sets differ in size
(:func:`~privcore.attacks.gdpr_risks.statistics._size_correction`). Duplicate rows are
dropped from all three tables first (as Anonymeter does). The baseline draws
``n_attacks`` random predicates (random columns, a random released value of each, a
random operator: =, ≠ for categorical columns; =, ≠, >, <, ≥, ≤ for numeric ones) and
counts those matching one training record. The rates divide by ``n_attacks`` even when
fewer predicates could be made (warning ``fewer_queries_than_attacks``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from privcore.attacks.gdpr_risks.columns import OP_GE, OP_IN, OP_LE, _prepare, _Tables
from privcore.attacks.gdpr_risks.inputs import (
    _check_confidence,
    _columns_arg,
    _frame,
    _inputs,
    _whole,
)
from privcore.attacks.gdpr_risks.predicates import (
    _distinct_queries,
    _match_counts,
    _Queries,
    _random_columns,
)
from privcore.attacks.gdpr_risks.results import DEFAULT_ATTACKS, RiskResult
from privcore.attacks.gdpr_risks.statistics import _result, _size_correction
from privcore.classes import code_counts, group_rows
from privcore.data.hierarchy import Hierarchy
from privcore.errors import ParameterError

DEFAULT_N_COLS = 3  # Anonymeter's columns per multivariate predicate
#: Multivariate predicate candidates tried at most, per attack asked for (Anonymeter
#: tries up to 10,000,000 in all; that many would take minutes on a protected release).
ATTEMPTS_PER_ATTACK = 200
_BATCH = 1000  # multivariate candidates per batch, as Anonymeter
_BATCHES_AT_ONCE = 16  # batches of candidates counted together at most


def _release_medians(tables: _Tables, distinct_release: np.ndarray) -> dict[int, float]:
    medians: dict[int, float] = {}
    for c, name in enumerate(tables.columns):
        column = tables[name]
        if column.numeric:
            mids = column.midpoint[distinct_release[:, c]]
            mids = mids[np.isfinite(mids)]
            medians[c] = float(np.median(mids)) if len(mids) else math.nan
    return medians


def _record_queries(
    tables: _Tables,
    released: np.ndarray,
    picked: np.ndarray,
    columns: np.ndarray,
    medians: Mapping[int, float],
) -> _Queries:
    """Multivariate predicates from released rows ``picked`` (cell codes ``released``)
    on ``columns`` (q × m, sorted): "= cell" for categorical columns and missing cells,
    "≥ cell" when the cell's midpoint is above the column's median, else "≤ cell"."""
    cells = released[picked[:, None], columns]
    ops = np.full(columns.shape, OP_IN, dtype=np.int8)
    for c, name in enumerate(tables.columns):
        column = tables[name]
        if not column.numeric:
            continue
        at = columns == c
        mids = column.midpoint[cells[at]]
        above = mids > medians[c]
        op = np.where(above, OP_GE, OP_LE).astype(np.int8)
        op[column.missing_only[cells[at]]] = OP_IN
        ops[at] = op
    return _Queries(columns.astype(np.int64), ops, cells.astype(np.int64))


def _univariate_candidates(tables: _Tables, released: np.ndarray) -> _Queries:
    """Anonymeter's univariate predicates: per column, "is missing" when one released row
    is missing, "≤ least" and "≥ greatest" for numeric columns, "= v" for every value of
    one released row only."""
    columns, ops, cells = [], [], []

    def add(c: int, op: int, cell_list: np.ndarray) -> None:
        columns.append(np.full(len(cell_list), c))
        ops.append(np.full(len(cell_list), op, dtype=np.int8))
        cells.append(np.asarray(cell_list, dtype=np.int64))

    for c, name in enumerate(tables.columns):
        column = tables[name]
        per_cell = code_counts(released[:, c], column.n_cells)
        missing_cells = np.flatnonzero(column.missing_only & (per_cell > 0))
        if per_cell[missing_cells].sum() == 1:
            add(c, OP_IN, missing_cells)
        if column.numeric:
            held = np.flatnonzero((per_cell > 0) & np.isfinite(column.low))
            if len(held):
                add(c, OP_LE, held[[np.argmin(column.high[held])]])
                add(c, OP_GE, held[[np.argmax(column.low[held])]])
        add(c, OP_IN, np.flatnonzero(per_cell == 1))
    if not columns:
        return _Queries.concat([], 1)
    return _Queries(
        np.concatenate(columns)[:, None],
        np.concatenate(ops)[:, None],
        np.concatenate(cells)[:, None],
    )


def _random_queries(
    tables: _Tables, released: np.ndarray, n: int, m: int, rng: np.random.Generator
) -> _Queries:
    """The naive attacker's predicates: ``m`` random columns, a random distinct released
    value of each and a random operator (=, ≠; numeric also >, <, ≥, ≤)."""
    d = len(tables.columns)
    columns = _random_columns(rng, n, d, m)
    draws = rng.random((n, m, 2))
    cells = np.zeros((n, m), dtype=np.int64)
    ops = np.zeros((n, m), dtype=np.int8)
    for c, name in enumerate(tables.columns):
        column = tables[name]
        at = columns == c
        if not at.any():
            continue
        present = np.flatnonzero(code_counts(released[:, c], column.n_cells) > 0)
        choices = column.operators()
        pick = draws[at]
        cells[at] = present[
            np.minimum((pick[:, 0] * len(present)).astype(np.int64), len(present) - 1)
        ]
        ops[at] = choices[
            np.minimum((pick[:, 1] * len(choices)).astype(np.int64), len(choices) - 1)
        ]
    return _Queries(columns.astype(np.int64), ops, cells)


def _distinct(tables: _Tables, which: str) -> np.ndarray:
    """Codes of the distinct rows of a table on the attacked columns, first occurrences
    in row order (Anonymeter drops duplicate rows before singling out)."""
    codes = tables.codes(which, tables.columns)
    groups = group_rows(
        [codes[:, i] for i in range(codes.shape[1])], tables.sizes(which, tables.columns)
    )
    return codes[np.sort(groups.first)]


def singling_out(
    original_train: pd.DataFrame,
    control: pd.DataFrame,
    release: Any,
    *,
    n_attacks: int = DEFAULT_ATTACKS,
    mode: str = "multivariate",
    n_cols: int = DEFAULT_N_COLS,
    columns: Sequence[str] | None = None,
    max_attempts: int | None = None,
    seed: int = 0,
    hierarchies: Mapping[str, Hierarchy] | None = None,
    confidence: float = 0.95,
) -> RiskResult:
    """Singling-out risk of ``release`` (a DataFrame or a Release) made from
    ``original_train``, against the ``control`` records (module docs).

    ``mode``: ``"multivariate"`` (predicates on ``n_cols`` columns) or ``"univariate"``.
    ``columns``: the columns predicates may use (default: every column of the release).
    ``max_attempts``: multivariate candidates tried at most (default
    :data:`ATTEMPTS_PER_ATTACK` × ``n_attacks``). ``parameters`` of the result:
    ``mode``, ``n_cols``, ``columns``, ``queries`` (predicates made),
    ``control_correction`` (the size correction's factor, None when not needed).
    """
    if mode not in ("univariate", "multivariate"):
        raise ParameterError(
            f"The singling-out mode must be 'univariate' or 'multivariate', not {mode!r}.",
            code="gdpr_risk.bad_mode",
            mode=str(mode),
        )
    confidence = _check_confidence(confidence)
    n_attacks = _whole(n_attacks, "n_attacks")
    seed = _whole(seed, "seed", low=0)
    released_frame = _frame(release, "release")
    names = list(released_frame.columns) if columns is None else list(columns)
    names = _columns_arg(names, "singling_out")
    train, control_frame, released_frame = _inputs(original_train, control, release, names)
    width, limit = _width_and_limit(mode, n_cols, len(names), n_attacks, max_attempts)
    streams = np.random.default_rng(seed).spawn(2)
    attack_rng, baseline_rng = streams

    tables = _prepare(train, control_frame, released_frame, names, hierarchies)
    released = _distinct(tables, "release")
    trained = _distinct(tables, "train")
    controlled = _distinct(tables, "control")

    if mode == "univariate":
        queries = _univariate_queries(tables, released, n_attacks, attack_rng)
    else:
        queries = _multivariate_queries(tables, released, n_attacks, width, limit, attack_rng)

    n_success = _singled_out(tables, queries, trained)
    n_control, correction = _control_successes(tables, queries, controlled, len(trained))
    baseline = _random_queries(tables, released, n_attacks, width, baseline_rng)
    n_baseline = _singled_out(tables, baseline, trained)
    warnings = ["fewer_queries_than_attacks"] if len(queries) < n_attacks else []
    return _result(
        "singling_out",
        n_attacks=n_attacks,
        n_success=n_success,
        n_control=n_control,
        n_baseline=n_baseline,
        confidence=confidence,
        parameters={
            "mode": mode,
            "n_cols": width,
            "columns": list(names),
            "queries": len(queries),
            "control_correction": correction,
            "training_records": len(trained),
            "control_records": len(controlled),
        },
        warnings=warnings,
    )


def _width_and_limit(
    mode: str, n_cols: Any, n_names: int, n_attacks: int, max_attempts: Any
) -> tuple[int, int]:
    """Columns per predicate (1 when univariate, at most the ``n_names`` columns given)
    and multivariate candidates tried at most, checked."""
    width = 1 if mode == "univariate" else _whole(n_cols, "n_cols")
    if width > n_names:
        raise ParameterError(
            f"A predicate on {width} columns needs {width} columns; {n_names} are given.",
            code="gdpr_risk.too_many_columns",
            n_cols=width,
            columns=n_names,
        )
    limit = ATTEMPTS_PER_ATTACK * n_attacks if max_attempts is None else max_attempts
    return width, _whole(limit, "max_attempts")


def _singled_out(tables: _Tables, queries: _Queries, records: np.ndarray) -> int:
    """How many of ``queries`` match exactly one of ``records`` (domain codes)."""
    return int((_match_counts(tables, queries, records, released=False, at_most=2) == 1).sum())


def _control_successes(
    tables: _Tables, queries: _Queries, controlled: np.ndarray, n_train: int
) -> tuple[float, float | None]:
    """The queries that single out a control record, and the factor of the control-size
    correction applied to that count (None when the sets have one size or no query
    singles out)."""
    control_matches = _match_counts(tables, queries, controlled, released=False)
    n_control = float((control_matches == 1).sum())
    if len(controlled) == n_train or n_control <= 0:
        return n_control, None
    correction = _size_correction(control_matches, len(controlled), n_train)
    return n_control * correction, correction


def _univariate_queries(
    tables: _Tables, released: np.ndarray, n_attacks: int, rng: np.random.Generator
) -> _Queries:
    """Up to ``n_attacks`` distinct univariate predicates (:func:`_univariate_candidates`)
    in a random order that match exactly one released row."""
    candidates = _univariate_candidates(tables, released)
    candidates = candidates.take(rng.permutation(len(candidates)))
    unique = _match_counts(tables, candidates, released, released=True) == 1
    candidates = candidates.take(np.flatnonzero(unique))
    return candidates.take(_distinct_queries(candidates, None)[:n_attacks])


def _multivariate_queries(
    tables: _Tables,
    released: np.ndarray,
    n_attacks: int,
    width: int,
    limit: int,
    rng: np.random.Generator,
) -> _Queries:
    """Distinct predicates from random released rows that match exactly one released
    row, batch by batch, until ``n_attacks`` of them or ``limit`` candidates.

    The batches are drawn in turn from ``rng`` and counted together, a few at a time (one,
    then twice as many each round, at most :data:`_BATCHES_AT_ONCE`); then they are
    taken in turn as if counted alone, and the batches drawn past the last one needed
    are left unused (``rng`` serves nothing else)."""
    medians = _release_medians(tables, released)
    d = len(tables.columns)
    accepted: list[_Queries] = []
    n_accepted = attempts = 0
    at_once = 1
    while n_accepted < n_attacks and attempts < limit:
        batches: list[_Queries] = []
        while len(batches) < at_once and attempts < limit:
            size = min(_BATCH, limit - attempts)
            picked = rng.integers(0, len(released), size=size)
            columns = _random_columns(rng, size, d, width)
            batches.append(_record_queries(tables, released, picked, columns, medians))
            attempts += size
        candidates = _Queries.concat(batches, width)
        single = _match_counts(tables, candidates, released, released=True, at_most=2) == 1
        ends = np.cumsum([len(batch) for batch in batches])
        for batch, end in zip(batches, ends, strict=True):
            if n_accepted >= n_attacks:
                break
            batch = batch.take(np.flatnonzero(single[end - len(batch) : end]))
            so_far = _Queries.concat(accepted, width) if accepted else None
            new = _distinct_queries(batch, so_far)[: n_attacks - n_accepted]
            accepted.append(batch.take(new))
            n_accepted += len(new)
        at_once = min(2 * at_once, _BATCHES_AT_ONCE)
    return _Queries.concat(accepted, width)
