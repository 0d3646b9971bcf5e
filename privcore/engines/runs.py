"""Runs on an engine: anonymize and measure a table of any size (SPEC §9).

The engine reads the table and groups it; everything else runs on the **frequency set**
with its counts as weights, exactly as on the table in memory:

- :func:`anonymize_table`: the frequency set of the QIs and SAs is anonymized
  (:func:`privcore.anonymize.anonymize` with ``weights``: the full-domain searches and
  Mondrian), the engine writes the release — the table joined with each distinct
  combination's released values, identifiers left out — and the release's privacy
  models are checked again by the engine on the written file (a ``GROUP BY`` of it).
- :func:`measure_tables`: the original and the release are paired row for row (by
  position in their files, or by a key) in the engine, and the joint frequency set of
  (original QIs and SAs, released QIs and SAs) is measured by
  :func:`privcore.measure.report.measure_release` with its counts as weights.

What the history keeps of such a table (:class:`ScannedDataset`) is the fingerprint of
the frequency set the run read — the same on every engine — never its rows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from privcore.core.progress import Progress, Stage
from privcore.data import Schema
from privcore.data.hierarchy import Hierarchy
from privcore.data.loading import fingerprint
from privcore.engines.base import COUNT, Engine, regrouped
from privcore.models import ModelReport, PrivacyModel

#: Algorithms that need each record in memory: they refuse a frequency set whose rows
#: stand for several records (``anonymize.needs_records``).
NEEDS_RECORDS = ("kaca", "condensation")


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
            "fingerprint_of": "frequency_set",
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
    (``written_check``)."""

    release: Any
    out: Path
    rows_written: int
    written_check: ModelReport
    dataset: ScannedDataset

    def to_dict(self) -> dict[str, Any]:
        """The release's report (the keys of ``anonymize --json`` on every engine), with
        the engine's checks of the written file."""
        out = dict(self.release.to_dict())
        out["engine"] = {
            "name": self.dataset.engine,
            "rows_written": self.rows_written,
            "written_satisfied": bool(self.written_check.satisfied),
            "written_k": self.written_check.summary["k"],
        }
        return out

    def history_summary(self) -> dict[str, Any]:
        return self.release.history_summary()


def anonymize_table(
    engine: Engine,
    table: Any,
    schema: Schema,
    constraints: Sequence[PrivacyModel],
    out: str | Path,
    *,
    algorithm: str = "optimal",
    max_suppression: float = 0.0,
    seed: int = 0,
    name: str = "table",
    shuffle: bool = True,
    progress: Progress | None = None,
    **options: Any,
) -> TableRelease:
    """Anonymize the table ``table`` (scanned by ``engine``) and write its release to
    ``out`` (see the module docstring). ``schema`` names the QIs, SAs and identifiers
    (left out of the release) and holds the hierarchies. ``shuffle``: the release's rows
    in an order drawn from ``seed`` (else the engine's order)."""
    from privcore.anonymize import anonymize
    from privcore.engines.models import release_models

    stage = Stage(progress)
    qi, sa = list(schema.quasi_identifiers), list(schema.sensitive)
    stage(0.0, "Grouping the table in the engine")
    grouped = engine.grouped(table, [*qi, *sa])
    frequency_set = grouped.frame
    weights = frequency_set[COUNT].to_numpy(dtype=np.int64)
    roles = {c: schema.roles[c] for c in (*qi, *sa)}
    release = anonymize(
        frequency_set[[*qi, *sa]],
        Schema(roles, {c: h for c, h in schema.hierarchies.items() if c in roles}),
        constraints,
        algorithm=algorithm,
        max_suppression=max_suppression,
        seed=seed,
        progress=stage.part(0.2, 0.7),
        weights=weights,
        **options,
    )
    stage(0.7, "Writing the release in the engine")
    released = release.frame[qi].reset_index(drop=True)
    rows = engine.write(
        table,
        grouped,
        released,
        out,
        drop=list(schema.identifiers),
        shuffle_seed=seed if shuffle else None,
    )
    stage(0.9, "Checking the written release in the engine")
    written = engine.scan(out)
    check = release_models(
        engine, written, qi, sa, list(constraints), hierarchies=dict(schema.hierarchies)
    )
    stage(1.0, "Done")
    return TableRelease(
        release=release,
        out=Path(out),
        rows_written=rows,
        written_check=check,
        dataset=scanned_dataset(engine, table, frequency_set, name),
    )


def measure_tables(
    engine: Engine,
    original: Any,
    release: Any,
    *,
    qi: Sequence[str],
    sa: Sequence[str],
    models: Sequence[PrivacyModel] = (),
    hierarchies: Mapping[str, Hierarchy] | None = None,
    key: str | None = None,
    name: str = "table",
    progress: Progress | None = None,
    **options: Any,
):
    """Measure ``release`` against ``original`` (both scanned by ``engine``), paired in
    the engine (by position in their files, or by ``key``), from their joint frequency
    set (see the module docstring). ``options``: those of
    :func:`~privcore.measure.report.measure_release` (``risk_threshold``,
    ``t_distance``, ``population``). Returns the measurement and the
    :class:`ScannedDataset` of the original."""
    from privcore.measure.report import measure_release

    stage = Stage(progress)
    qi, sa = [str(c) for c in qi], [str(c) for c in sa]
    stage(0.0, "Pairing the two tables in the engine")
    paired = engine.paired(original, release, key=key)
    columns = [f"o:{c}" for c in (*qi, *sa)] + [f"r:{c}" for c in (*qi, *sa)]
    joint = engine.frequency_set(paired, columns)
    stage(0.6, "Measuring the joint frequency set")
    original_part = joint[[f"o:{c}" for c in (*qi, *sa)]]
    original_part.columns = [*qi, *sa]
    release_part = joint[[f"r:{c}" for c in (*qi, *sa)]]
    release_part.columns = [*qi, *sa]
    weights = joint[COUNT].to_numpy(dtype=np.int64)
    measurement = measure_release(
        original_part,
        release_part,
        qi=qi,
        sa=sa,
        models=models,
        hierarchies=hierarchies,
        weights=weights,
        **options,
    )
    original_set = pd.DataFrame({c: original_part[c] for c in (*qi, *sa)})
    original_set[COUNT] = weights
    original_set = regrouped(original_set, [*qi, *sa], {}).frame  # the original's own set
    stage(1.0, "Done")
    return measurement, scanned_dataset(engine, original, original_set, name)
