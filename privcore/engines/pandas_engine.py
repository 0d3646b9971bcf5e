"""The pandas engine: the table in memory, read by :func:`privcore.data.load`."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from privcore.classes import duplicated, group_rows
from privcore.data import Dataset, load
from privcore.data.codes import factorize
from privcore.engines.base import (
    COUNT,
    Engine,
    Regrouped,
    ReleaseWrite,
    check_columns,
    key_order_figures,
    regrouped,
    spearman_with_position,
    squared_rank_differences,
    too_many_groups,
    values_to_rank,
)
from privcore.errors import DataFormatError


class PandasEngine(Engine):
    """Row-level work on a table held in memory (the default for uploads)."""

    name = "pandas"

    def scan(self, source: str | Path | pd.DataFrame) -> pd.DataFrame:
        """The table of a file, a glob of Parquet parts or a folder of them (any
        engine's output, Hive partitions included: :mod:`privcore.data.loading.parts`)
        read by :func:`privcore.data.load`, or a DataFrame as the loader would finish
        it."""
        return load(source).frame

    def rows(self, table: pd.DataFrame) -> int:
        return len(table)

    def columns(self, table: pd.DataFrame) -> list[str]:
        return [str(c) for c in table.columns]

    def paired(
        self, original: pd.DataFrame, release: pd.DataFrame, *, key: str | None = None
    ) -> pd.DataFrame:
        """One table of the two, row i of ``original`` beside row i of ``release`` (by
        position, or by ``key``), their columns named ``o:<name>`` and ``r:<name>``."""
        self._check_paired(original, release, key)
        if key is not None:
            missing = ~original[key].isin(release[key])
            if missing.any():
                raise DataFormatError(
                    f"{int(missing.sum()):,} key(s) of the original are not in the release: "
                    f"every row must be in both to pair them by '{key}'.",
                    code="measure.alignment",
                    key=key,
                )
            release = release.set_index(key).loc[original[key]].reset_index()
        left = original.reset_index(drop=True).add_prefix("o:")
        right = release.reset_index(drop=True).add_prefix("r:")
        return pd.concat([left, right], axis=1)

    def _check_key(self, original: pd.DataFrame, release: pd.DataFrame, key: str) -> None:
        """``key`` is a column of both tables and names each of their rows once."""
        check_columns(self.columns(original), [key])
        check_columns(self.columns(release), [key])
        for side in (original, release):
            if duplicated(side[key]).any():
                raise DataFormatError(
                    f"The key '{key}' repeats: it must name each row once.",
                    code="measure.key_not_unique",
                    key=key,
                )

    def key_order(self, original: pd.DataFrame, release: pd.DataFrame, key: str) -> dict:
        """The rows paired by ``key`` (:meth:`Engine.key_order`): each original row's
        position in the release looked up by its key, the key's values ranked as the
        report ranks them in memory."""
        self._check_key(original, release, key)
        found = pd.Index(release[key]).get_indexer(pd.Index(original[key]))
        paired = found[found >= 0]  # release positions, in the original's order
        squared, in_place = squared_rank_differences(paired)
        rho = spearman_with_position(values_to_rank(original[key]))
        return key_order_figures(len(paired), squared, in_place, len(original), rho)

    def grouped(
        self, table: pd.DataFrame, columns: Sequence[str], *, limit: int | None = None
    ) -> Regrouped:
        """Codes per column (:func:`privcore.data.codes.factorize`, missing a value of
        its own), one combined key, counted by :func:`privcore.classes.group_rows`; the
        table is already read by the loader's rules, so ``raw`` is the frequency set and
        the row of each table row is kept for :meth:`write`."""
        columns = check_columns(self.columns(table), columns)
        coded = [factorize(table[c]) for c in columns]
        groups = group_rows([c for c, _ in coded], [len(u) for _, u in coded])
        if limit is not None and len(groups.counts) > limit:
            raise too_many_groups(limit, columns)
        first = table.iloc[groups.first]
        frame = pd.DataFrame({c: first[c].to_numpy() for c in columns})
        frame[COUNT] = groups.counts
        ordered = regrouped(frame, columns, {})  # in canonical form; rows already distinct
        return Regrouped(
            ordered.frame,
            ordered.frame,
            np.arange(len(ordered.frame)),
            ordered.row_of_raw[groups.ids],
        )

    def restricted(
        self, table: pd.DataFrame, column: str, raw_values: Sequence[object]
    ) -> pd.DataFrame:
        """The rows of ``table`` whose value of ``column`` is one of ``raw_values``
        (None: missing) — a fragment."""
        present = [v for v in raw_values if v is not None and not pd.isna(v)]
        keep = table[column].isin(present)
        if len(present) < len(raw_values):
            keep |= table[column].isna()
        return table[keep.to_numpy()]

    def head(self, table: pd.DataFrame, rows: int) -> pd.DataFrame:
        """The first ``rows`` rows."""
        return table.head(int(rows)).reset_index(drop=True)

    def _write_release(self, table: pd.DataFrame, job: ReleaseWrite) -> int:
        """Write the release of ``table`` (``job.grouped`` by :meth:`grouped`) to
        ``job.out`` with :func:`privcore.data.save` (CSV formula-guarded): each row's
        cells in the grouped columns replaced by the released values of its row of the
        frequency set, the ``drop`` columns left out; rows in the table's order. Returns
        the rows written."""
        from privcore.data import save

        grouped, released = job.grouped, job.released
        rows = grouped.table_rows
        if rows is None or len(rows) != len(table):
            raise ValueError("write a table grouped by this engine's grouped()")
        out_frame = table.drop(columns=list(job.drop)).reset_index(drop=True)
        for column in grouped.frame.columns:
            if column != COUNT and column in out_frame.columns:
                source = released if column in released.columns else grouped.frame
                out_frame[column] = source[column].to_numpy()[rows]
        if job.shuffle_seed is not None:
            order = np.random.default_rng(job.shuffle_seed).permutation(len(out_frame))
            out_frame = out_frame.iloc[order].reset_index(drop=True)
        save(out_frame, job.out)
        return len(out_frame)


def dataset_of(table: pd.DataFrame, name: str = "table") -> Dataset:
    """The scanned table as a :class:`~privcore.data.Dataset` (for the measurements)."""
    return Dataset(table, name, "dataframe")
