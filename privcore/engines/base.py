"""The engine protocol and the one form of a frequency set that every engine returns."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import pandas as pd

from privcore.errors import DataFormatError, InfeasibleError, ParameterError

#: The engines, by name (Spark runs where PySpark and Java are installed).
ENGINES = ("pandas", "duckdb", "spark")

#: The name of the count column of a frequency set.
COUNT = "count"


def max_groups() -> int:
    """The most distinct combinations a frequency set brought into memory may have
    (``PRIVCORE_ENGINE_MAX_GROUPS``, default 5,000,000): the algorithms hold it, and
    several copies of it, in memory."""
    from privcore.config import _env_int

    return _env_int("PRIVCORE_ENGINE_MAX_GROUPS", 5_000_000)


def too_many_groups(limit: int, columns: Sequence[str]) -> InfeasibleError:
    return InfeasibleError(
        f"The table has more than {limit:,} distinct combinations of "
        f"{', '.join(columns)}: more than this installation holds in memory "
        "(PRIVCORE_ENGINE_MAX_GROUPS). Mondrian splits such a table into fragments; the "
        "other algorithms need the frequency set in memory: generalize a column first "
        "or raise the limit.",
        code="engines.too_many_groups",
        limit=limit,
        columns=list(columns),
    )


class Engine(Protocol):
    """What an engine does (SPEC §9), and nothing else engine-specific exists outside
    it: scan a table, say its size and columns, show its first rows, group it into a
    frequency set, restrict it to a fragment, pair two tables row for row (and say how
    the rows paired by a key lie in the two files), and write a release by a join with
    each distinct combination's released values. An engine subclasses it and shares
    :meth:`frequency_set` and :meth:`write` (which hands its own work to the engine's
    :meth:`_write_release`)."""

    name: str

    def scan(self, source: str | Path) -> Any:
        """A handle on the table in ``source`` (a Parquet file or a glob of parts, a
        CSV/TSV file; DuckDB also takes ``table=``: a table of a DuckDB database file;
        Spark ``table=``: a table of its catalog, and ORC files)."""

    def rows(self, table: Any) -> int:
        """How many rows the table has."""

    def columns(self, table: Any) -> list[str]:
        """The table's column names, in order."""

    def head(self, table: Any, rows: int) -> pd.DataFrame:
        """The first ``rows`` rows, with the loader's values."""

    def grouped(self, table: Any, columns: Sequence[str], *, limit: int | None = None) -> Any:
        """The :class:`Regrouped` frequency set of ``columns`` (``limit``: more distinct
        combinations is ``engines.too_many_groups``)."""

    def frequency_set(self, table: Any, columns: Sequence[str]) -> pd.DataFrame:
        """The distinct combinations of ``columns`` with their counts, in
        :func:`canonical` form (missing is one value of its own): the ``frame`` of
        :meth:`grouped` (so the two always agree)."""
        return self.grouped(table, columns).frame

    def restricted(self, table: Any, column: str, raw_values: Sequence[Any]) -> Any:
        """The rows whose raw value of ``column`` is one of ``raw_values`` (a fragment)."""

    def paired(self, original: Any, release: Any, *, key: str | None = None) -> Any:
        """Row i of ``original`` beside row i of ``release`` (by position, or by
        ``key``), their columns named ``o:<name>`` and ``r:<name>``."""

    def _check_paired(self, original: Any, release: Any, key: str | None) -> None:
        """Refuse two tables :meth:`paired` cannot pair: by position, unless they have as
        many rows (:func:`check_pairing`); by ``key``, unless it names each row of both
        once (the engine's :meth:`_check_key`)."""
        check_pairing(self.rows(original), self.rows(release), key)
        if key is not None:
            self._check_key(original, release, key)

    def _check_key(self, original: Any, release: Any, key: str) -> None:
        """``key`` is a column of both tables and names each of their rows once."""

    def key_order(self, original: Any, release: Any, key: str) -> dict[str, Any]:
        """How the rows paired by ``key`` lie in the two files, and how the key's values
        follow the original's rows (:func:`key_order_figures`): ``n`` rows paired,
        ``spearman`` and ``rows_in_place`` of their positions, ``original_rows`` and
        ``key_spearman`` (the key's values, ranked as :func:`values_to_rank` ranks them,
        against the original's row positions)."""

    def write(
        self,
        table: Any,
        grouped: Any,
        released: pd.DataFrame,
        out: str | Path,
        *,
        drop: Sequence[str] = (),
        shuffle_seed: int | None = None,
    ) -> int:
        """Write the release: each row's grouped cells replaced by the released values
        of its frequency-set row (``released``: one row per row of ``grouped.frame``),
        the ``drop`` columns left out; ``shuffle_seed``: rows in an order drawn from it
        (None: in the table's order). Returns the rows written."""
        check_released(grouped, released)
        job = ReleaseWrite(grouped, released, Path(out), tuple(drop), shuffle_seed)
        return self._write_release(table, job)

    def _write_release(self, table: Any, job: ReleaseWrite) -> int:
        """The engine's own writing of :meth:`write`'s ``job``; returns the rows written."""


@dataclass(frozen=True, eq=False)
class ReleaseWrite:
    """What :meth:`Engine.write` writes: the table's frequency set (``grouped``) and its
    released values (``released``), the file or folder ``out`` (``.parquet``, else CSV),
    the ``drop`` columns and the ``shuffle_seed``."""

    grouped: Regrouped
    released: pd.DataFrame
    out: Path
    drop: tuple[str, ...] = ()
    shuffle_seed: int | None = None

    @property
    def columns(self) -> list[str]:
        """The grouped columns (those whose cells the released values replace)."""
        return [c for c in self.grouped.raw.columns if c != COUNT]

    @property
    def as_csv(self) -> bool:
        """Written as CSV (any ``out`` but ``.parquet``)."""
        return self.out.suffix.lower() != ".parquet"

    @property
    def grouped_rows(self) -> int:
        """The rows of the table ``grouped`` counts (what a join writes)."""
        return int(self.grouped.raw[COUNT].sum())


def check_columns(present: Sequence[str], wanted: Sequence[str]) -> list[str]:
    """``wanted`` as a list, every name one of ``present`` (else a clear error)."""
    wanted = [str(c) for c in wanted]
    missing = [c for c in wanted if c not in set(present)]
    if missing:
        raise ParameterError(
            f"Column(s) not in the table: {', '.join(missing)}.",
            code="engines.missing_columns",
            columns=missing,
        )
    if not wanted:
        raise ParameterError("Name at least one column.", code="engines.no_columns")
    if COUNT in wanted:
        raise ParameterError(
            f"A column named {COUNT!r} cannot be grouped by: a frequency set names its "
            "counts so. Rename the column first.",
            code="engines.reserved_column",
            column=COUNT,
        )
    return wanted


def check_pairing(original_rows: int, release_rows: int, key: str | None) -> None:
    """Two tables paired by position must have as many rows."""
    if key is None and original_rows != release_rows:
        raise DataFormatError(
            f"The original has {original_rows:,} rows and the release {release_rows:,}: "
            "rows are paired by position, so they must be as many (or give a key).",
            code="measure.alignment",
            original_rows=original_rows,
            release_rows=release_rows,
        )


def values_to_rank(values: pd.Series) -> np.ndarray:
    """Values to rank: as numbers when they all are (so "10" sorts after "9"), else as
    text (code-point order)."""
    numbers = pd.to_numeric(values, errors="coerce")
    if numbers.notna().all():
        return numbers.to_numpy(dtype=np.float64)
    return values.astype("str").to_numpy(dtype=object)


def spearman_with_position(values: np.ndarray) -> float | None:
    """Spearman's ρ between ``values`` and their positions 0…n−1: the Pearson correlation
    of the values' ranks (ties get their average rank) with the positions (their own
    ranks). None for n < 2 or when every value is the same."""
    from privcore.classes import distinct

    n = len(values)
    if n < 2:
        return None
    _, inverse, counts = distinct(np.asarray(values), return_inverse=True, return_counts=True)
    ranks = (np.cumsum(counts) - (counts - 1) / 2.0)[inverse.ravel()]
    positions = np.arange(n, dtype=float)
    ranks -= ranks.mean()
    positions -= positions.mean()
    spread = np.sqrt((ranks**2).sum() * (positions**2).sum())
    return float((ranks * positions).sum() / spread) if spread > 0 else None


def squared_rank_differences(release_positions: np.ndarray) -> tuple[int, int]:
    """(Σ d², rows in place) of rows paired by a key, given each pair's position in the
    release in the original's order: ``d`` = the row's rank among the pairs in the
    original minus its rank among them in the release. Σ d² is summed exactly (its
    32-bit halves apart: it passes 2⁶³ above about three million rows)."""
    positions = np.asarray(release_positions, dtype=np.int64)
    release_rank = np.empty(len(positions), dtype=np.int64)
    release_rank[np.argsort(positions, kind="stable")] = np.arange(len(positions))
    difference = np.arange(len(positions), dtype=np.int64) - release_rank
    squares = (difference * difference).astype(np.uint64)
    high = int((squares >> np.uint64(32)).sum(dtype=np.uint64))
    low = int((squares & np.uint64(0xFFFFFFFF)).sum(dtype=np.uint64))
    return (high << 32) + low, int((difference == 0).sum())


def key_order_figures(
    n: int, squared: int, in_place: int, original_rows: int, key_spearman: float | None
) -> dict[str, Any]:
    """The figures of :meth:`Engine.key_order` from what an engine counts: ``n`` rows
    paired by the key, ``squared`` = Σ d² over them (``d``: a row's rank among the pairs
    by its position in the original minus its rank by its position in the release),
    ``in_place`` rows with d = 0. Positions are distinct, so Spearman's ρ is exactly
    1 − 6 Σ d² / (n (n² − 1)) (Spearman 1904; :mod:`privcore.attacks.ordering`), None
    for n < 2."""
    n, squared = int(n), int(squared)
    rho = None if n < 2 else 1.0 - 6 * squared / (n * (n * n - 1))
    if key_spearman is not None and not np.isfinite(key_spearman):
        key_spearman = None
    return {
        "n": n,
        "spearman": rho,
        "rows_in_place": int(in_place),
        "original_rows": int(original_rows),
        "key_spearman": None if key_spearman is None else float(key_spearman),
    }


def _by_value(values: pd.Series, convert) -> pd.Series:
    """``convert`` applied once per distinct value of ``values`` (missing: None), as an
    object Series in Python text; a frequency set may have millions of rows, its
    columns far fewer distinct values."""
    from privcore.data.codes import factorize

    codes, uniques = factorize(values)
    table = np.empty(len(uniques), dtype=object)
    table[:] = [None if v is None or pd.isna(v) else convert(v) for v in uniques]
    return pd.Series(table[codes], dtype=object)


def normalized_text(values: pd.Series) -> pd.Series:
    """Text cells as :func:`privcore.data.load` reads them: surrounding white space
    stripped (``str.strip``), the missing markers and missing cells missing (None).
    Each distinct value is normalized once."""
    from privcore.data.loading import MISSING_MARKERS

    markers = set(MISSING_MARKERS)
    stripped = _by_value(values, lambda v: str(v).strip())
    out = stripped.where(~stripped.isin(markers), None)
    out.index = values.index
    return out.astype(object)


#: A column's conversion: the values the loader gives a Series of distinct raw cells.
Converter = Callable[[pd.Series], pd.Series]


def converted_column(values: pd.Series, convert: Converter) -> pd.Series:
    """``values`` converted by ``convert``, which sees each distinct value once (in one
    Series, so that a type is decided on all of them together); a numeric result stays
    numeric (missing: NaN), text is object (missing: None)."""
    from privcore.data.codes import factorize

    codes, uniques = factorize(values.reset_index(drop=True))
    result = convert(pd.Series(uniques, dtype=object)).reset_index(drop=True)
    if len(result) != len(uniques):
        raise ValueError("a converter must return one value per distinct value")
    if pd.api.types.is_bool_dtype(result.dtype) or pd.api.types.is_numeric_dtype(result.dtype):
        return pd.Series(result.to_numpy(dtype=np.float64)[codes], index=values.index)
    table = result.astype(object).where(result.notna(), None).to_numpy(dtype=object)
    return pd.Series(table[codes], index=values.index, dtype=object)


def converted_frame(frame: pd.DataFrame, converters: Mapping[str, Converter]) -> pd.DataFrame:
    """Every column of ``frame`` named in ``converters`` converted
    (:func:`converted_column`), the others as they are."""
    out = frame.reset_index(drop=True).copy()
    for column, convert in converters.items():
        if column in out.columns:
            out[column] = converted_column(out[column], convert)
    return out


@dataclass(frozen=True, eq=False)
class Regrouped:
    """An engine's frequency set as the loader reads the table (``frame``, in
    :func:`canonical` form), and for each distinct combination of raw values the engine
    grouped (``raw``, with their counts) the row of ``frame`` it became (``row_of_raw``):
    what writing a release back through the engine joins on."""

    frame: pd.DataFrame
    raw: pd.DataFrame
    row_of_raw: np.ndarray
    table_rows: np.ndarray | None = None  # in-memory tables: each table row's set row


def _canonical_values(values: pd.Series) -> np.ndarray:
    """The distinct values of a column in :func:`canonical` form: numbers and booleans
    as float64 (missing: NaN), anything else as Python text (missing: None)."""
    if pd.api.types.is_bool_dtype(values.dtype) or pd.api.types.is_numeric_dtype(values.dtype):
        return pd.to_numeric(values, errors="raise").to_numpy(dtype=np.float64)
    out = np.empty(len(values), dtype=object)
    out[:] = [None if v is None or pd.isna(v) else str(v) for v in values.tolist()]
    return out


def _holds_numbers(dtype: Any, uniques: np.ndarray) -> bool:
    """A column of numbers or booleans: by its type, or (an object column, as a column
    of booleans with a missing value comes back) by its distinct values."""
    if pd.api.types.is_bool_dtype(dtype) or pd.api.types.is_numeric_dtype(dtype):
        return True
    if not pd.api.types.is_object_dtype(dtype):
        return False
    present = [v for v in uniques.tolist() if v is not None and not pd.isna(v)]
    return bool(present) and all(
        isinstance(v, (bool, int, float, np.bool_, np.integer, np.floating)) for v in present
    )


def _ranked(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(rank of each of ``values`` among the distinct ones in canonical order — missing
    first, then numbers ascending or text in code-point order —, those distinct values).
    Values that are equal get one rank: converted values may merge."""
    if values.dtype.kind == "f":
        missing = np.isnan(values)
        present = np.unique(values[~missing])  # not rows: a column's distinct values
        shift = int(missing.any())
        rank = np.where(missing, 0, np.searchsorted(present, values) + shift)
        ordered = np.concatenate([[np.nan], present]) if shift else present
        return rank.astype(np.int64), ordered
    texts = values.tolist()
    has_missing = any(v is None for v in texts)
    present = sorted({v for v in texts if v is not None})
    index = {v: i + has_missing for i, v in enumerate(present)}
    rank = np.fromiter((0 if v is None else index[v] for v in texts), np.int64, len(texts))
    ordered = np.empty(len(present) + has_missing, dtype=object)
    ordered[:] = ([None] if has_missing else []) + present
    return rank, ordered


def regrouped(
    raw: pd.DataFrame, columns: Sequence[str], converters: Mapping[str, Converter]
) -> Regrouped:
    """The frequency set of the table as the loader reads it, from an engine's frequency
    set of its raw values (``raw``: ``columns`` and ``count``): each column named in
    ``converters`` converted (each distinct value once; e.g. :func:`normalized_text`) —
    a function of the value alone, so the distinct raw combinations that become equal
    merge, their counts added — in :func:`canonical` form. The engine groups the rows;
    this works on the (far fewer) distinct combinations: one factorization per column,
    the canonical order from the ranks of each column's distinct values."""
    from privcore.classes import group_rows
    from privcore.data.codes import factorize

    raw = raw.reset_index(drop=True)
    codes, values = [], []
    for column in columns:
        raw_codes, uniques = factorize(raw[column])
        distinct = pd.Series(uniques, dtype=object)
        if _holds_numbers(raw[column].dtype, uniques):
            distinct = pd.to_numeric(distinct, errors="raise")
        if column in converters:
            distinct = converters[column](distinct).reset_index(drop=True)
            if len(distinct) != len(uniques):
                raise ValueError("a converter must return one value per distinct value")
        rank, ordered = _ranked(_canonical_values(distinct))
        codes.append(rank[raw_codes])
        values.append(ordered)
    groups = group_rows(
        codes, [len(v) for v in values], weights=raw[COUNT].to_numpy(dtype=np.float64)
    )
    kept = [c[groups.first] for c in codes]
    order = np.lexsort(kept[::-1])  # by the first column, then the second, …
    frame = pd.DataFrame(
        {
            c: pd.Series(values[i][kept[i][order]], dtype=values[i].dtype)
            for i, c in enumerate(columns)
        }
    )
    frame[COUNT] = groups.counts[order].astype(np.int64)
    position = np.empty(len(order), dtype=np.int64)  # group id -> row of the sorted set
    position[order] = np.arange(len(order))
    return Regrouped(frame, raw, position[groups.ids])


def canonical(frame: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """A frequency set (``columns`` and ``count``, its rows distinct) in the one form
    every engine returns, so that two engines' sets compare equal with
    :meth:`pandas.DataFrame.equals`: the ``columns`` in order, then ``count`` (int64); a
    numeric column as float64 (missing: NaN), any other as Python text (missing: None);
    rows sorted by the columns, missing first (:func:`regrouped` with no conversion)."""
    return regrouped(frame, columns, {}).frame


def is_text(values: pd.Series) -> bool:
    """A column of text (neither numbers nor booleans)."""
    return not (
        pd.api.types.is_numeric_dtype(values.dtype) or pd.api.types.is_bool_dtype(values.dtype)
    )


def released_columns(grouped: Regrouped, released: pd.DataFrame) -> pd.DataFrame:
    """The table an engine joins with to write a release: one row per distinct raw
    combination it grouped, its raw values (columns ``raw:<name>``, the join key) and the
    released values of its row of the frequency set (columns ``<name>``: those of
    ``released`` — one row per row of ``grouped.frame`` — and, for the frequency set's
    other columns, the values as the loader reads them)."""
    columns = [c for c in grouped.raw.columns if c != COUNT]
    check_released(grouped, released)
    mapping = pd.DataFrame({f"raw:{c}": grouped.raw[c].to_numpy() for c in columns})
    rows = grouped.row_of_raw
    for column in columns:
        source = released if column in released.columns else grouped.frame
        values = source[column].reset_index(drop=True)
        mapping[column] = values.to_numpy()[rows] if len(values) else values
    return mapping


def check_released(grouped: Regrouped, released: pd.DataFrame) -> None:
    """``released`` has one row per row of the frequency set ``grouped.frame``."""
    if len(released) != len(grouped.frame):
        raise ValueError("one released row per row of the frequency set")
