"""The pandas engine: the table in memory, read by :func:`privcore.data.load`."""

from __future__ import annotations

import glob
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from privcore.classes import group_rows
from privcore.data import Dataset, load
from privcore.data.codes import factorize
from privcore.engines.base import COUNT, canonical, check_columns
from privcore.errors import DataFormatError


class PandasEngine:
    """Row-level work on a table held in memory (the default for uploads)."""

    name = "pandas"

    def scan(self, source: str | Path | pd.DataFrame) -> pd.DataFrame:
        """The table of a file read by :func:`privcore.data.load` (a glob of Parquet
        parts: each part read so, then stacked in name order), or a DataFrame as the
        loader would finish it."""
        if isinstance(source, pd.DataFrame):
            return load(source).frame
        parts = sorted(glob.glob(str(source))) if glob.has_magic(str(source)) else [source]
        if not parts:
            raise DataFormatError(f"No file matches {source}.", code="data.not_found")
        frames = [load(part).frame for part in parts]
        return frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)

    def rows(self, table: pd.DataFrame) -> int:
        return len(table)

    def columns(self, table: pd.DataFrame) -> list[str]:
        return [str(c) for c in table.columns]

    def frequency_set(self, table: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
        """Codes per column (:func:`privcore.data.codes.factorize`, missing a value of
        its own), one combined key, counted by :func:`privcore.classes.group_rows`."""
        columns = check_columns(self.columns(table), columns)
        coded = [factorize(table[c]) for c in columns]
        groups = group_rows([c for c, _ in coded], [len(u) for _, u in coded])
        first = table.iloc[groups.first]
        frame = pd.DataFrame({c: first[c].to_numpy() for c in columns})
        frame[COUNT] = groups.counts
        return canonical(frame, columns)


def dataset_of(table: pd.DataFrame, name: str = "table") -> Dataset:
    """The scanned table as a :class:`~privcore.data.Dataset` (for the measurements)."""
    return Dataset(table, name, "dataframe")
