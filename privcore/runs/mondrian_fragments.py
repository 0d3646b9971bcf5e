"""Mondrian on a table whose frequency set is too large for memory: the table is cut in
the engine into fragments by the cuts Mondrian itself would make first, Mondrian runs on
each fragment's frequency set with the whole table's domains, and the fragments'
releases are measured as one (De Capitani di Vimercati et al., PerCom 2021)."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from privcore.core.notes import Note
from privcore.core.progress import Progress, Stage
from privcore.core.scaling import unit_of
from privcore.data import Schema
from privcore.data.hierarchy import Hierarchy
from privcore.engines.base import COUNT, Engine, Regrouped
from privcore.errors import InfeasibleError
from privcore.models import PrivacyModel

__all__ = ["mondrian_in_fragments"]


@dataclass(frozen=True, eq=False)
class _Axis:
    """One QI as Mondrian sees it in the whole table: numeric (its range), a hierarchy
    (its leaves present), or a set of values (their number) — ``base``, what its spans
    are shares of (missing counted as one value)."""

    column: str
    kind: str  # "numeric", "hierarchy" or "set"
    base: float
    hierarchy: Hierarchy | None = None
    leaves: np.ndarray | None = None  # hierarchy: the leaves present in the whole table
    low: float = 0.0  # numeric: the smallest and largest number, for a range (``base``)
    high: float = 0.0  # beyond the floats (±1e308: base is inf)

    @property
    def domain(self) -> Any:
        """What Mondrian's ``span_domains`` takes: ``base``, or (low, high) of a numeric
        QI whose range is no float."""
        numeric = self.kind == "numeric"
        return (self.low, self.high) if numeric and not np.isfinite(self.base) else self.base


def _axes(
    engine: Engine, table: Any, qi: Sequence[str], hierarchies: Mapping[str, Hierarchy], limit
) -> list[_Axis]:
    """Each QI's :class:`_Axis`, from its one-column frequency set (a QI with more
    distinct values than ``limit`` is left out: the table is not cut on it, and Mondrian
    measures its spans on each fragment)."""
    axes = []
    for column in qi:
        try:
            values = engine.grouped(table, [column], limit=limit).frame[column]
        except InfeasibleError:
            continue
        missing = int(values.isna().any())
        present = values.dropna()
        if pd.api.types.is_numeric_dtype(values.dtype):  # Mondrian reads numbers as numbers
            low, high = (float(present.min()), float(present.max())) if len(present) else (0, 0)
            with np.errstate(over="ignore"):
                span = float(np.float64(high) - np.float64(low))
            axes.append(_Axis(column, "numeric", span, low=low, high=high))
        elif column in hierarchies:
            leaves = hierarchies[column].encode(present)
            axes.append(
                _Axis(column, "hierarchy", len(leaves) + missing, hierarchies[column], leaves)
            )
        else:
            axes.append(_Axis(column, "set", float(len(values))))
    return axes


def _lca_level(axis: _Axis, leaves: np.ndarray) -> int:
    """The lowest level at which all of ``leaves`` share one label."""
    for level in range(axis.hierarchy.height + 1):
        if len(np.unique(axis.hierarchy.codes(level)[leaves])) <= 1:  # not rows: leaves
            return level
    return axis.hierarchy.height


def _span_and_cut(axis: _Axis, values: pd.Series, counts: np.ndarray) -> tuple[float, Any]:
    """Mondrian's view of a fragment on one QI, from the QI's distinct values in it
    (``values``, their records ``counts``): its normalized span (as
    :func:`privcore.anonymize.mondrian` measures it, in the whole table's terms) and its
    cut — a boolean mask of the values that go left — or None when it has one value.
    Numbers and sets are cut at the lower weighted median (or just below it, whichever
    is more balanced), a hierarchy between two children of the values' lowest common
    ancestor, the most balanced first; missing values, mixed with others, go to a side
    of their own first."""
    missing = values.isna().to_numpy()
    if len(values) < 2:
        return 0.0, None
    if missing.any():
        return 1.0, ~missing  # numbers mixed with missing values: those split off first
    size = int(counts.sum())
    if axis.kind == "hierarchy":
        leaves = axis.hierarchy.encode(values)
        level = _lca_level(axis, leaves)
        node = axis.hierarchy.codes(level)[leaves[0]]
        under = int((axis.hierarchy.codes(level)[axis.leaves] == node).sum())
        span = under / axis.base
        child = axis.hierarchy.codes(level - 1)[leaves]  # level ≥ 1: two values differ
        children = np.unique(child)  # not rows: a node's children
        records = np.array([counts[child == c].sum() for c in children])
        left = np.cumsum(records)[:-1]
        best = int(np.argmax(np.minimum(left, size - left)))
        return span, np.isin(child, children[: best + 1])
    if axis.kind == "numeric":
        numbers = values.to_numpy(dtype=np.float64)
        if np.isfinite(axis.base):
            span = float(numbers.max() - numbers.min()) / axis.base if axis.base else 0.0
        else:  # ±1e308: spans in a unit that holds the whole range
            unit = unit_of([axis.low, axis.high])
            whole = axis.high * unit - axis.low * unit
            span = float(numbers.max() * unit - numbers.min() * unit) / whole
        order = np.argsort(numbers, kind="stable")
    else:
        text = values.astype(str).to_numpy(dtype=object)
        span = len(values) / axis.base
        order = np.argsort(text, kind="stable")
    cumulative = np.cumsum(counts[order])
    x = int(np.searchsorted(cumulative, (size + 1) // 2))  # the lower median's rank
    options = [(x, cumulative[x])] + ([(x - 1, cumulative[x - 1])] if x > 0 else [])
    options = [(r, int(n)) for r, n in options if 0 < n < size]
    rank, _ = min(options, key=lambda o: (-min(o[1], size - o[1]), o[0]))
    mask = np.zeros(len(values), dtype=bool)
    mask[order[: rank + 1]] = True
    return span, mask


def _cut_fragment(
    engine: Engine, part: Any, axes: Sequence[_Axis], limit: int
) -> tuple[Any, Any] | None:
    """The two halves of fragment ``part`` by Mondrian's own first cut: on the QI with
    the largest span (the first of them at a tie), as :func:`_span_and_cut` says."""
    best = None
    for axis in axes:
        grouped = engine.grouped(part, [axis.column], limit=limit)
        counts = grouped.frame[COUNT].to_numpy(dtype=np.int64)
        span, mask = _span_and_cut(axis, grouped.frame[axis.column], counts)
        if mask is not None and (best is None or span > best[0]):
            best = (span, axis.column, grouped, mask)
    if best is None:
        return None
    _, column, grouped, mask = best
    rows = np.flatnonzero(mask)
    return (
        engine.restricted(part, column, _fragment_values(grouped, column, rows)),
        engine.restricted(part, column, _fragment_values(grouped, column, np.flatnonzero(~mask))),
    )


def _fragment_values(grouped: Regrouped, column: str, rows: np.ndarray) -> list:
    """The raw values of ``column`` whose loader's values are the rows ``rows`` of the
    one-column frequency set ``grouped``."""
    chosen = np.isin(grouped.row_of_raw, rows)
    return [None if pd.isna(v) else v for v in grouped.raw[column].to_numpy()[chosen]]


@dataclass(frozen=True)
class KeptFragments:
    """Mondrian's fragments whose releases are kept inside the engine
    (:meth:`~privcore.engines.duckdb_engine.DuckDBEngine.keep_released`): together they
    have more combinations than ``held_limit`` (``PRIVCORE_MAX_ROWS``), so the release
    is written from the engine and measured there by its classes. ``ncp``: Mondrian's
    own GCP over the whole table — each fragment's is a mean over its records against
    the whole table's domains, so the whole's is their mean weighted by records."""

    held_limit: int
    fragments: int = 0
    records: int = 0
    ncp: float = 0.0
    seconds: float = 0.0
    summary: str = "range"


def _keep_in_engine(
    engine: Engine, table: Any, done: Sequence[tuple[Regrouped, pd.DataFrame]], held_limit: int
) -> KeptFragments:
    """Move the fragments' releases held so far into the engine (``engine.keep_released``)
    — or, on an engine that cannot keep them, ``engines.fragments_too_many`` in words."""
    if not hasattr(engine, "keep_released"):
        raise InfeasibleError(
            f"Mondrian's fragments together have more than {held_limit:,} combinations of "
            "the quasi-identifiers and sensitive attributes, more than this installation "
            "holds in memory (PRIVCORE_MAX_ROWS). DuckDB keeps such fragments inside the "
            "engine: run it with the DuckDB engine.",
            code="engines.fragments_too_many",
            limit=held_limit,
        )
    engine.drop_kept()
    for grouped, released in done:
        engine.keep_released(table, grouped, released)
    return KeptFragments(held_limit)


def mondrian_in_fragments(
    engine: Engine,
    table: Any,
    schema: Schema,
    constraints: Sequence[PrivacyModel],
    limit: int,
    progress: Progress,
    settings: Mapping[str, Any],
) -> tuple[Regrouped | None, Any]:
    """Mondrian on a table whose frequency set has more than ``limit`` rows, as the
    Spark Mondrian of De Capitani di Vimercati et al. (PerCom 2021) does: the table is
    cut in the engine into fragments — a fragment whose frequency set has more than
    ``limit`` rows is halved by the cut Mondrian itself would make first
    (:func:`_cut_fragment`: the widest QI in the whole table's terms, at its median or
    between two children of its values' common ancestor), which needs only each QI's
    distinct values and their counts in it —, Mondrian runs on each fragment's
    frequency set with its counts as weights and the whole table's domains
    (``span_domains``), and the fragments' releases are put together. At these sizes
    every such cut leaves far more than k records on each side, so the release is the
    one Mondrian makes on the whole table, up to the tie-breaking of the cut's side;
    every class still meets the models. Returns the frequency set of the whole table
    and its release, measured as one release — or, when the fragments together have
    more combinations than ``PRIVCORE_MAX_ROWS`` (a near-unique table), None and the
    :class:`KeptFragments` whose releases the engine keeps (:func:`write_kept`)."""
    from privcore.anonymize import anonymize
    from privcore.config import limits

    started = time.perf_counter()
    stage = Stage(progress)
    qi, sa = list(schema.quasi_identifiers), list(schema.sensitive)
    axes = _axes(engine, table, qi, schema.hierarchies, limit)
    domains = {axis.column: axis.domain for axis in axes}
    total = engine.rows(table)
    held_limit = limits().max_rows
    todo = [table]
    done: list[tuple[Regrouped, pd.DataFrame]] = []
    kept: KeptFragments | None = None
    records = fragments = held = 0
    ncp_records = 0.0
    try:
        while todo:
            part = todo.pop(0)
            try:
                grouped = engine.grouped(part, [*qi, *sa], limit=limit)
            except InfeasibleError as exc:
                halves = (
                    None
                    if exc.code != "engines.too_many_groups"
                    else _cut_fragment(engine, part, axes, limit)
                )
                if halves is None:
                    raise
                todo[:0] = list(halves)
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
            released = release.frame[qi].reset_index(drop=True)
            fragments += 1
            records += release.n_records
            ncp_records += release.n_records * float(release.extra_loss["ncp"])
            if kept is None and held + len(grouped.frame) > held_limit:
                kept = _keep_in_engine(engine, table, done, held_limit)
                done = []
            if kept is None:
                done.append((grouped, released))
                held += len(grouped.frame)
            else:
                engine.keep_released(table, grouped, released)
            del grouped, release, released
            stage(0.9 * records / total, f"Mondrian on fragment {fragments}")
    except BaseException:  # a failed or cancelled run leaves nothing in the engine
        if kept is not None:
            engine.drop_kept()
        raise
    if kept is not None:
        return None, replace(
            kept,
            fragments=fragments,
            records=records,
            ncp=ncp_records / records if records else 0.0,
            seconds=time.perf_counter() - started,
            summary=str(settings.get("summary", "range")),
        )
    stage(0.9, "Measuring the fragments' release as one")
    return _held_release(done, schema, constraints, settings, started)


def _held_release(
    done: Sequence[tuple[Regrouped, pd.DataFrame]],
    schema: Schema,
    constraints: Sequence[PrivacyModel],
    settings: Mapping[str, Any],
    started: float,
) -> tuple[Regrouped, Any]:
    """The fragments held in memory put together: the whole table's frequency set and
    its release, measured as one release."""
    from privcore.anonymize.base import finish, prepare

    qi, sa = list(schema.quasi_identifiers), list(schema.sensitive)
    frames = [g.frame for g, _ in done]
    offsets = np.cumsum([0] + [len(f) for f in frames[:-1]])
    whole = Regrouped(
        pd.concat(frames, ignore_index=True),
        pd.concat([g.raw for g, _ in done], ignore_index=True),
        np.concatenate([g.row_of_raw + o for (g, _), o in zip(done, offsets, strict=True)]),
    )
    released = pd.concat([r for _, r in done], ignore_index=True)
    weights = whole.frame[COUNT].to_numpy(dtype=np.int64)
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
        params={"summary": settings.get("summary", "range"), "fragments": len(done)},
        started=started,
    )
    return whole, release


def write_kept(
    engine: Engine,
    table: Any,
    schema: Schema,
    constraints: Sequence[PrivacyModel],
    kept: KeptFragments,
    out: str | Path,
    *,
    settings: Mapping[str, Any],
    limit: int,
    shuffle: bool,
    order_copy: str | Path | None = None,
    stage: Stage,
) -> tuple[Any, Any, int | None]:
    """Write the release of Mondrian's fragments kept inside the engine to ``out`` (and,
    for a shuffled release, its copy in the table's order to ``order_copy``), measure
    the written release by its classes inside the engine
    (:func:`~privcore.measure.engine_classes.measure_classes_in_engine`: every model's
    verdict, k, l, t, DR, risk and the loss of the classes; the figures that pair rows
    are left out, with a note) and return the :class:`~privcore.anonymize.Release` —
    its rows stay in the engine (``engine_records``) —, its model report and the rows of
    the copy."""
    from privcore.anonymize import Release
    from privcore.measure.engine_classes import measure_classes_in_engine

    qi, sa = list(schema.quasi_identifiers), list(schema.sensitive)
    drop, seed = list(schema.identifiers), int(settings.get("seed", 0))
    try:
        stage(0.7, "Writing the release from the fragments kept in the engine")
        engine.write_kept(table, out, drop=drop, shuffle_seed=seed if shuffle else None)
        if order_copy is not None:
            stage(0.8, "Writing the copy in the table's order in the engine")
            engine.write_kept(table, order_copy, drop=drop, shuffle_seed=None)
    finally:
        engine.drop_kept()
    stage(0.85, "Measuring the written release by its classes in the engine")
    measurement = measure_classes_in_engine(
        engine, engine.scan(out), qi=qi, sa=sa, models=constraints, limit=limit
    )
    note = Note(
        "anonymize.fragments_in_engine",
        f"Mondrian ran on {kept.fragments} fragments whose combinations together are more "
        f"than this installation holds in memory ({kept.held_limit:,}: PRIVCORE_MAX_ROWS): "
        "each fragment's release was kept inside the engine, the release was written from "
        "them and measured there by its classes. NCP is Mondrian's own, over the whole "
        "table's domains.",
        fragments=kept.fragments,
        limit=kept.held_limit,
    )
    suppressed = int(measurement.models.summary.get("suppressed_rows", 0))
    release = Release(
        frame=pd.DataFrame({c: pd.Series(dtype=object) for c in (*qi, *sa)}),
        algorithm="mondrian",
        qi=tuple(qi),
        sa=tuple(sa),
        removed=tuple(drop),
        class_ids=np.empty(0, dtype=np.int64),
        suppressed=np.zeros(0, dtype=bool),
        node=None,
        measurement=measurement,
        params={
            "algorithm": "mondrian",
            "constraints": [m.to_dict() for m in constraints],
            "max_suppression": float(settings.get("max_suppression", 0.0)),
            "seed": seed,
            "summary": kept.summary,
            "fragments": kept.fragments,
        },
        timings={"total": kept.seconds},
        extra_loss={"ncp": kept.ncp},
        notes=(note, *measurement.notes),
        schema=schema,
        engine_records=(kept.records, suppressed),
    )
    copy_rows = None if order_copy is None else kept.records
    return release, measurement.models, copy_rows
