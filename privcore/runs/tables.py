"""Runs on a table read by an engine: anonymize, measure and attack a table of any size
(SPEC §9).

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
- :func:`attack_tables`: the attack simulator on the same joint frequency set, with a
  voter roll drawn from it (a roll frequency set).

What the history keeps of such a table (:class:`ScannedDataset`) is the fingerprint of
the frequency set the run read — the same on every engine — never its rows.
"""

from __future__ import annotations

import time
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
from privcore.engines.base import COUNT, Engine, Regrouped, max_groups, regrouped
from privcore.errors import InfeasibleError
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
    in an order drawn from ``seed`` (else the table's order).

    The frequency set is brought into memory when it has at most
    :func:`~privcore.engines.base.max_groups` rows; above that Mondrian runs on fragments
    (:func:`_mondrian_in_fragments`) and the other algorithms refuse
    (``engines.too_many_groups``)."""
    from privcore.anonymize import anonymize
    from privcore.engines.models import release_models

    stage = Stage(progress)
    qi, sa = list(schema.quasi_identifiers), list(schema.sensitive)
    roles = {c: schema.roles[c] for c in (*qi, *sa)}
    inner = Schema(roles, {c: h for c, h in schema.hierarchies.items() if c in roles})
    settings = dict(max_suppression=max_suppression, seed=seed, **options)
    stage(0.0, "Grouping the table in the engine")
    limit = max_groups()
    try:
        grouped = engine.grouped(table, [*qi, *sa], limit=limit)
    except InfeasibleError as exc:
        if exc.code != "engines.too_many_groups" or algorithm != "mondrian":
            raise
        grouped, release = _mondrian_in_fragments(
            engine, table, inner, constraints, limit, stage.part(0.0, 0.7), settings
        )
    else:
        release = anonymize(
            grouped.frame[[*qi, *sa]],
            inner,
            constraints,
            algorithm=algorithm,
            progress=stage.part(0.2, 0.7),
            weights=grouped.frame[COUNT].to_numpy(dtype=np.int64),
            **settings,
        )
    frequency_set = grouped.frame
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


def _split_column(engine: Engine, table: Any, qi: Sequence[str], limit: int) -> tuple:
    """The QI a table is split on with its one-column frequency set — the one with the
    most distinct values (numbers before text at a tie), among those whose values fit in
    memory — and each QI's domain size for Mondrian's spans (``span_domains``: numeric,
    the range; other, the number of values, missing counted as one)."""
    best, best_key, domains = None, None, {}
    for column in qi:
        try:
            grouped = engine.grouped(table, [column], limit=limit)
        except InfeasibleError:
            continue
        values = grouped.frame[column]
        numeric = pd.api.types.is_numeric_dtype(values.dtype)
        present = values.dropna()
        if numeric and len(present):
            domains[column] = float(present.max() - present.min())
        else:
            domains[column] = float(len(values))
        key = (len(grouped.frame), numeric)
        if best_key is None or key > best_key:
            best, best_key = (column, grouped), key
    if best is None:
        raise InfeasibleError(
            "No quasi-identifier has few enough distinct values to split the table on.",
            code="engines.no_split_column",
        )
    return (*best, domains)


def _fragment_values(grouped: Regrouped, column: str, rows: np.ndarray) -> list:
    """The raw values of ``column`` whose loader's values are the rows ``rows`` of the
    one-column frequency set ``grouped``."""
    chosen = np.isin(grouped.row_of_raw, rows)
    return [None if pd.isna(v) else v for v in grouped.raw[column].to_numpy()[chosen]]


def _mondrian_in_fragments(
    engine: Engine,
    table: Any,
    schema: Schema,
    constraints: Sequence[PrivacyModel],
    limit: int,
    progress: Progress,
    settings: Mapping[str, Any],
) -> tuple[Regrouped, Any]:
    """Mondrian on a table whose frequency set has more than ``limit`` rows, as the
    Spark Mondrian of De Capitani di Vimercati et al. (PerCom 2021) does: the table is
    cut in the engine into fragments by the quantiles of one QI (:func:`_split_column`;
    contiguous runs of its sorted values holding equal shares of the records, a run
    halved again while its frequency set has more than ``limit`` rows), Mondrian runs on
    each fragment's frequency set with its counts as weights and the whole table's
    domains (``span_domains``: it cuts the QI that is widest in the whole table's
    terms), and the fragments' releases are put together (a fragment's classes never
    mix with another's, so every class still meets the models; only cuts across the
    fragments' borders are given up). Returns the frequency set of the whole table and
    its release, measured as one release."""
    from privcore.anonymize import anonymize
    from privcore.anonymize.base import finish, prepare

    started = time.perf_counter()
    stage = Stage(progress)
    qi, sa = list(schema.quasi_identifiers), list(schema.sensitive)
    column, values, domains = _split_column(engine, table, qi, limit)
    counts = values.frame[COUNT].to_numpy(dtype=np.int64)
    order = np.arange(len(counts))  # the frame is sorted by value (missing first)
    todo = [order[: len(order) // 2], order[len(order) // 2 :]] if len(order) > 1 else [order]
    done: list[tuple[Regrouped, pd.DataFrame]] = []
    records, total = 0, int(counts.sum())
    while todo:
        rows = todo.pop(0)
        part = engine.restricted(table, column, _fragment_values(values, column, rows))
        try:
            grouped = engine.grouped(part, [*qi, *sa], limit=limit)
        except InfeasibleError as exc:
            if exc.code != "engines.too_many_groups" or len(rows) < 2:
                raise
            cumulative = np.cumsum(counts[rows])  # halve by records, not by values
            middle = int(np.searchsorted(cumulative, cumulative[-1] / 2)) + 1
            middle = min(max(middle, 1), len(rows) - 1)
            todo[:0] = [rows[:middle], rows[middle:]]
            continue
        release = anonymize(
            grouped.frame[[*qi, *sa]],
            schema,
            constraints,
            algorithm="mondrian",
            weights=grouped.frame[COUNT].to_numpy(dtype=np.int64),
            span_domains=domains,
            **settings,
        )
        done.append((grouped, release.frame[qi].reset_index(drop=True)))
        records += int(counts[rows].sum())
        stage(0.9 * records / total, f"Mondrian on fragment {len(done)}")
    frames = [g.frame for g, _ in done]
    offsets = np.cumsum([0] + [len(f) for f in frames[:-1]])
    whole = Regrouped(
        pd.concat(frames, ignore_index=True),
        pd.concat([g.raw for g, _ in done], ignore_index=True),
        np.concatenate([g.row_of_raw + o for (g, _), o in zip(done, offsets, strict=True)]),
    )
    released = pd.concat([r for _, r in done], ignore_index=True)
    weights = whole.frame[COUNT].to_numpy(dtype=np.int64)
    stage(0.9, "Measuring the fragments' release as one")
    problem = prepare(
        whole.frame[[*qi, *sa]],
        schema,
        constraints,
        max_suppression=float(settings.get("max_suppression", 0.0)),
        seed=int(settings.get("seed", 0)),
        need_hierarchies=False,
        weights=weights,
    )
    out = whole.frame[[*qi, *sa]].copy()
    for q in qi:
        out[q] = released[q].to_numpy()
    release = finish(
        problem,
        out,
        np.zeros(len(out), dtype=bool),
        algorithm="mondrian",
        params={
            "summary": settings.get("summary", "range"),
            "fragments": len(done),
            "split_on": column,
        },
        started=started,
    )
    return whole, release


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
    original_part, release_part, weights = _joint_parts(engine, original, release, qi, sa, key)
    stage(0.6, "Measuring the joint frequency set")
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
    stage(1.0, "Done")
    return measurement, _original_dataset(engine, original, original_part, weights, name)


def _joint_parts(
    engine: Engine, original: Any, release: Any, qi: Sequence[str], sa: Sequence[str], key
) -> tuple[pd.DataFrame, pd.DataFrame, np.ndarray]:
    """The joint frequency set of the two tables paired in the engine, as the original's
    rows, the release's rows (aligned) and their counts."""
    paired = engine.paired(original, release, key=key)
    columns = [*qi, *sa]
    joint = engine.frequency_set(paired, [f"o:{c}" for c in columns] + [f"r:{c}" for c in columns])
    original_part = joint[[f"o:{c}" for c in columns]].set_axis(columns, axis=1)
    release_part = joint[[f"r:{c}" for c in columns]].set_axis(columns, axis=1)
    return original_part, release_part, joint[COUNT].to_numpy(dtype=np.int64)


def _original_dataset(
    engine: Engine, table: Any, original_part: pd.DataFrame, weights: np.ndarray, name: str
) -> ScannedDataset:
    """The original's own frequency set (the joint set's original half, merged)."""
    columns = list(original_part.columns)
    frame = original_part.copy()
    frame[COUNT] = weights
    return scanned_dataset(engine, table, regrouped(frame, columns, {}).frame, name)


def attack_tables(
    engine: Engine,
    original: Any,
    release: Any,
    *,
    qi: Sequence[str],
    sa: Sequence[str],
    hierarchies: Mapping[str, Hierarchy] | None = None,
    key: str | None = None,
    name: str = "table",
    progress: Progress | None = None,
    **options: Any,
):
    """The attack simulator (linkage and homogeneity, before vs after; SPEC §6) on
    ``release`` and ``original`` (both scanned by ``engine``), paired in the engine (by
    position, or by ``key``), from their joint frequency set with its counts as weights.
    The voter roll is a roll frequency set drawn from it
    (:func:`privcore.attacks.roll.roll_frequency_set`: the data set's people, and the
    others as whole QI tuples of its records): its rows are the data set's distinct QI
    tuples, however many people it stands for. ``options``: those of
    :func:`privcore.attacks.simulate` (``roll_size``, ``seed``, ``tau``,
    ``risk_threshold``, ``tolerance``). Returns the simulation and the
    :class:`ScannedDataset` of the original."""
    from privcore.attacks import simulate

    stage = Stage(progress)
    qi, sa = [str(c) for c in qi], [str(c) for c in sa]
    stage(0.0, "Pairing the two tables in the engine")
    original_part, release_part, weights = _joint_parts(engine, original, release, qi, sa, key)
    stage(0.5, "Attacking the joint frequency set")
    simulation = simulate(
        original_part,
        release_part,
        qi,
        sa,
        weights=weights,
        hierarchies=hierarchies,
        progress=stage.part(0.5, 1.0),
        **options,
    )
    stage(1.0, "Done")
    return simulation, _original_dataset(engine, original, original_part, weights, name)
