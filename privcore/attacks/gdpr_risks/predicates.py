"""Predicates of the singling-out attack as arrays, and how many rows of a table each
matches.

A predicate is a conjunction of (column, operator, released cell) terms
(:data:`~privcore.attacks.gdpr_risks.columns.OPERATORS`); it matches an original record
whose values satisfy every term, and a released row whose cells *may* satisfy them
(:mod:`privcore.attacks.gdpr_risks.columns`). Counting is vectorized: one-column
predicates from the rows per value, the others as bit sets of matched rows, packed 64 to
a word, ANDed over the terms and popcounted (:func:`_match_counts`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from privcore.attacks.gdpr_risks.columns import _CELLS, OPERATORS, _Column, _Tables
from privcore.classes import code_counts, group_rows

_FIRST_CHUNK = 4096  # rows of the first chunk when counting can stop early
_PACKED_BYTES = 64 * 2**20  # bit sets of matched rows per block of predicates


@dataclass(frozen=True, eq=False)
class _Queries:
    """Predicates as arrays: query q is the conjunction over j of
    (column ``columns[q, j]``, operator ``ops[q, j]``, released cell ``cells[q, j]``)."""

    columns: np.ndarray  # (q × m) indices into the attacked columns
    ops: np.ndarray
    cells: np.ndarray

    def __len__(self) -> int:
        return len(self.columns)

    def take(self, rows: np.ndarray) -> _Queries:
        return _Queries(self.columns[rows], self.ops[rows], self.cells[rows])

    @staticmethod
    def concat(parts: Sequence[_Queries], width: int) -> _Queries:
        if not parts:
            empty = np.zeros((0, width), dtype=np.int64)
            return _Queries(empty, empty.astype(np.int8), empty)
        return _Queries(
            np.concatenate([p.columns for p in parts]),
            np.concatenate([p.ops for p in parts]),
            np.concatenate([p.cells for p in parts]),
        )


def _match_counts(
    tables: _Tables,
    queries: _Queries,
    codes: np.ndarray,
    *,
    released: bool,
    at_most: int | None = None,
) -> np.ndarray:
    """Rows of a table (domain ``codes`` of original rows, or cell codes of released rows
    when ``released``) matched by each query.

    One-column queries are counted from the rows per value (:meth:`_Column.tally`). The
    others run over the rows in chunks: one bit row per distinct (column, operator, cell)
    of the queries still counted (the chunk's rows it holds for, packed 64 to a word),
    then AND and popcount per query. With ``at_most``, a query stops being counted once
    it reaches that many rows (its count is then "at least ``at_most``"); the first
    chunks are small, so that queries matching many rows stop early."""
    n_queries, width = queries.columns.shape
    counts = np.zeros(n_queries, dtype=np.int64)
    if n_queries == 0:
        return counts
    columns = [tables[c] for c in tables.columns]
    if width == 1:
        for c, column in enumerate(columns):
            rows = np.flatnonzero(queries.columns[:, 0] == c)
            if not len(rows):
                continue
            size = column.n_cells if released else column.domain_size
            per_value = code_counts(codes[:, c], size)
            found = column.tally(queries.ops[rows, 0], queries.cells[rows, 0], per_value, released)
            counts[rows] = np.rint(found).astype(np.int64)
        return counts
    active = np.arange(n_queries)
    start, size = 0, (_FIRST_CHUNK if at_most is not None else len(codes))
    while start < len(codes) and len(active):
        chunk = codes[start : start + size]
        counts[active] += _chunk_counts(columns, queries.take(active), chunk, released)
        if at_most is not None:
            active = active[counts[active] < at_most]
        start += size
        size *= 4
    return counts


def _chunk_counts(
    columns: Sequence[_Column], queries: _Queries, codes: np.ndarray, released: bool
) -> np.ndarray:
    """Rows of ``codes`` matched by each query of two or more columns (bit sets)."""
    n_queries, width = queries.columns.shape
    counts = np.zeros(n_queries, dtype=np.int64)
    n_rows = len(codes)
    words = max(1, -(-n_rows // 64))
    per_block = max(1, _PACKED_BYTES // (width * words * 8))
    chunk = max(1, _CELLS // max(n_rows, 1))
    sizes = [len(columns), len(OPERATORS), max(int(queries.cells.max()) + 1, 1)]
    for start in range(0, n_queries, per_block):
        part = slice(start, min(start + per_block, n_queries))
        flat_columns = queries.columns[part].ravel()
        flat_ops = queries.ops[part].ravel()
        flat_cells = queries.cells[part].ravel()
        groups = group_rows([flat_columns, flat_ops, flat_cells], sizes)
        first = groups.first
        bits = np.zeros((groups.n_groups, words), dtype=np.uint64)
        for c, column in enumerate(columns):
            mine = np.flatnonzero(flat_columns[first] == c)
            for at in range(0, len(mine), chunk):
                rows = mine[at : at + chunk]
                held = column.holds(
                    flat_ops[first[rows]], flat_cells[first[rows]], codes[:, c], released
                )
                packed = np.packbits(held, axis=1, bitorder="little")
                padded = np.zeros((len(rows), words * 8), dtype=np.uint8)
                padded[:, : packed.shape[1]] = packed
                bits[rows] = padded.view(np.uint64)
        predicate_of = groups.ids.reshape(-1, width)
        matched = bits[predicate_of[:, 0]]
        for j in range(1, width):
            matched &= bits[predicate_of[:, j]]
        counts[part] = np.bitwise_count(matched).sum(axis=1, dtype=np.int64)
    return counts


def _distinct_queries(queries: _Queries, accepted: _Queries | None) -> np.ndarray:
    """Positions of the queries that are new: first of their kind in ``queries`` and not
    among ``accepted`` (in order)."""
    parts = [queries] if accepted is None else [accepted, queries]
    every = _Queries.concat(parts, queries.columns.shape[1])
    fields = [every.columns, every.ops.astype(np.int64), every.cells]
    keys = np.column_stack(fields) if len(every) else np.zeros((0, 0), np.int64)
    if keys.shape[1] == 0:
        return np.arange(len(queries))
    sizes = [int(keys[:, i].max()) + 1 for i in range(keys.shape[1])]
    groups = group_rows([keys[:, i] for i in range(keys.shape[1])], sizes)
    first = np.zeros(len(every), dtype=bool)
    first[groups.first] = True
    offset = 0 if accepted is None else len(accepted)
    return np.flatnonzero(first[offset:])


def _random_columns(rng: np.random.Generator, n: int, d: int, m: int) -> np.ndarray:
    """``n`` sets of ``m`` distinct columns out of ``d``, each sorted."""
    return np.sort(np.argsort(rng.random((n, d)), axis=1)[:, :m], axis=1)
