"""What a run on a table read by an engine gives back: the table as the history keeps
it (:class:`ScannedDataset`: its fingerprint, never its rows) and a release made on the
engine (:class:`TableRelease`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from privcore.data.loading import fingerprint
from privcore.engines.base import COUNT, Engine
from privcore.models import ModelReport


@dataclass(frozen=True)
class ScannedDataset:
    """A table an engine read, as the history keeps it: its ``name``, the engine, how
    many records and columns it has, and the fingerprint of the frequency set of the
    columns the run read (``columns_read``) — equal on every engine."""

    name: str
    engine: str
    records: int
    n_columns: int
    sha256: str
    columns_read: tuple[str, ...]
    fingerprint_of: str = "frequency_set"  # or "row_hashes" (:func:`summed_dataset`)

    @property
    def n_rows(self) -> int:
        return self.records

    def summary(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "sha256": self.sha256,
            "rows": self.records,
            "columns": self.n_columns,
            "format": "engine",
            "engine": self.engine,
            "fingerprint_of": self.fingerprint_of,
            "columns_read": list(self.columns_read),
        }


def scanned_dataset(
    engine: Engine, table: Any, frequency_set: pd.DataFrame, name: str
) -> ScannedDataset:
    columns = [c for c in frequency_set.columns if c != COUNT]
    return ScannedDataset(
        name=name,
        engine=engine.name,
        records=int(frequency_set[COUNT].sum()),
        n_columns=len(engine.columns(table)),
        sha256=fingerprint(frequency_set).sha256,
        columns_read=tuple(columns),
    )


@dataclass(frozen=True, eq=False)
class TableRelease:
    """A release made on an engine: the :class:`~privcore.anonymize.Release` of the
    frequency set (its rows weighted by their counts), the file written, the rows
    written, and the privacy models checked again on the written file
    (``written_check``); when a copy in the table's order was asked for next to a
    shuffled file (``order_copy``), where it went and its rows (``order_copy_rows``)."""

    release: Any
    out: Path
    rows_written: int
    written_check: ModelReport
    dataset: ScannedDataset
    order_copy: Path | None = None
    order_copy_rows: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """The release's report (the keys of ``anonymize --json`` on every engine), with
        the engine's checks of the written file (and ``order_copy``, only when a copy in
        the table's order was written: its path and rows)."""
        out = dict(self.release.to_dict())
        out["engine"] = {
            "name": self.dataset.engine,
            "rows_written": self.rows_written,
            "written_satisfied": bool(self.written_check.satisfied),
            "written_k": self.written_check.summary["k"],
        }
        if self.order_copy is not None:
            out["engine"]["order_copy"] = {
                "path": str(self.order_copy),
                "rows_written": self.order_copy_rows,
            }
        return out

    def history_summary(self) -> dict[str, Any]:
        return self.release.history_summary()


def summed_dataset(engine: Engine, table: Any, columns: Sequence[str], name: str) -> ScannedDataset:
    """What the history keeps of a table whose frequency set is too large to bring into
    memory: its rows and the SHA-256 of (rows, Σ over rows of DuckDB's hash of the
    ``columns``' cells) — a fingerprint of the rows whatever their order, computed in
    the engine (``fingerprint_of``: ``row_hashes``)."""
    import hashlib

    from privcore.engines.class_sql import row_hash_sum

    rows, summed = row_hash_sum(table, columns)
    digest = hashlib.sha256(f"{int(rows)}:{int(summed)}:{'|'.join(columns)}".encode()).hexdigest()
    return ScannedDataset(
        name=name,
        engine=engine.name,
        records=int(rows),
        n_columns=len(engine.columns(table)),
        sha256=digest,
        columns_read=tuple(columns),
        fingerprint_of="row_hashes",
    )
