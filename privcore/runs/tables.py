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

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from privcore.core.progress import Progress, Stage
from privcore.data import Schema
from privcore.data.hierarchy import Hierarchy
from privcore.engines.base import COUNT, Engine, max_groups, regrouped
from privcore.errors import DataFormatError, InfeasibleError, ParameterError
from privcore.measure.entropy import ROW_ORDER_SAMPLE, check_row_order
from privcore.models import PrivacyModel
from privcore.report.risk import GDPR_RECORDS, pairs_as_records
from privcore.runs.first_level import first_level_that_fits, in_own_levels, schema_from
from privcore.runs.mondrian_fragments import KeptFragments, mondrian_in_fragments, write_kept
from privcore.runs.table_results import (
    ScannedDataset,
    TableRelease,
    scanned_dataset,
    summed_dataset,
)

#: Algorithms that need each record in memory: they refuse a frequency set whose rows
#: stand for several records (``anonymize.needs_records``); on an engine the table's
#: records are read into memory for them, up to :func:`records_limit`.
NEEDS_RECORDS = (
    "kaca",
    "condensation",
    "mdav",
    "pram",
    "noise",
    "rank_swap",
    "top_bottom",
    "local_suppression",
)


def records_limit() -> int:
    """The most records an algorithm that needs them (:data:`NEEDS_RECORDS`) reads into
    memory from an engine: ``PRIVCORE_MAX_LOCAL_RECODING_ROWS`` when set, else
    ``PRIVCORE_MAX_ROWS`` (the limit of a table in memory)."""
    from privcore.anonymize.base import local_recoding_row_limit
    from privcore.config import limits

    return local_recoding_row_limit() or limits().max_rows


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
    order_copy: str | Path | None = None,
    progress: Progress | None = None,
    **options: Any,
) -> TableRelease:
    """Anonymize the table ``table`` (scanned by ``engine``) and write its release to
    ``out`` (see the module docstring). ``schema`` names the QIs, SAs and identifiers
    (left out of the release) and holds the hierarchies. ``shuffle``: the release's rows
    in an order drawn from ``seed`` (else the table's order). ``order_copy``: a shuffled
    release is also written there in the table's order — the same released values from
    the same search, for the pages and commands that pair it with the table by position
    — while ``out`` stays the file to publish (the one checked again).

    The frequency set is brought into memory when it has at most
    :func:`~privcore.engines.base.max_groups` rows; above that Mondrian runs on fragments
    (:func:`~privcore.runs.mondrian_fragments.mondrian_in_fragments`) and the lattice
    searches start, on DuckDB, from the first generalization whose frequency set fits
    (:mod:`privcore.runs.first_level`; elsewhere ``engines.too_many_groups``). KACA
    and condensation need the records themselves: the table is read into memory for
    them when it has at most :func:`records_limit` rows (:func:`_records_in_memory`),
    and refused above that."""
    from privcore.anonymize import FULL_DOMAIN, anonymize

    check_order_copy(order_copy, out, shuffle)
    stage = Stage(progress)
    qi, sa = list(schema.quasi_identifiers), list(schema.sensitive)
    roles = {c: schema.roles[c] for c in (*qi, *sa)}
    inner = Schema(roles, {c: h for c, h in schema.hierarchies.items() if c in roles})
    settings = dict(max_suppression=max_suppression, seed=seed, **options)
    if algorithm in NEEDS_RECORDS:
        return _records_in_memory(
            engine,
            table,
            schema,
            constraints,
            out,
            algorithm,
            settings,
            shuffle,
            name,
            stage,
            order_copy=order_copy,
        )
    stage(0.0, "Grouping the table in the engine")
    limit = max_groups()
    start, release, source = None, None, table  # source: the table the release is made of
    try:
        grouped = engine.grouped(table, [*qi, *sa], limit=limit)
    except InfeasibleError as exc:
        if exc.code != "engines.too_many_groups" or algorithm not in (*FULL_DOMAIN, "mondrian"):
            raise
        if algorithm == "mondrian":
            grouped, release = mondrian_in_fragments(
                engine, table, inner, constraints, limit, stage.part(0.0, 0.7), settings
            )
        else:  # the search starts where the engine's counts fit
            start, source, grouped = first_level_that_fits(
                engine, table, inner, limit, stage.part(0.0, 0.2)
            )
    if isinstance(release, KeptFragments):  # written from the engine, measured there
        release, check, copy_rows = write_kept(
            engine, table, schema, constraints, release, out, settings=settings, limit=limit,
            shuffle=shuffle, order_copy=order_copy, stage=stage,
        )  # fmt: skip
        rows, dataset = release.n_records, summed_dataset(engine, table, [*qi, *sa], name)
    else:
        if release is None:
            release = anonymize(
                grouped.frame[[*qi, *sa]],
                inner if start is None else schema_from(inner, qi, start),
                constraints,
                algorithm=algorithm,
                progress=stage.part(0.2, 0.7),
                weights=grouped.frame[COUNT].to_numpy(dtype=np.int64),
                **settings,
            )
            if start is not None:
                release = in_own_levels(release, inner, start, limit)
        rows, check, copy_rows = _write_and_check(
            engine, source, grouped, release, schema, constraints, out,
            shuffle_seed=seed if shuffle else None, order_copy=order_copy, stage=stage,
        )  # fmt: skip
        dataset = (
            scanned_dataset(engine, table, grouped.frame, name)
            if start is None
            else summed_dataset(engine, table, [*qi, *sa], name)
        )
    stage(1.0, "Done")
    return TableRelease(
        release=release,
        out=Path(out),
        rows_written=rows,
        written_check=check,
        dataset=dataset,
        order_copy=None if order_copy is None else Path(order_copy),
        order_copy_rows=copy_rows,
    )


def _write_and_check(
    engine: Engine,
    source: Any,
    grouped: Any,
    release: Any,
    schema: Schema,
    constraints: Sequence[PrivacyModel],
    out: str | Path,
    *,
    shuffle_seed: int | None,
    order_copy: str | Path | None,
    stage: Stage,
) -> tuple[int, Any, int | None]:
    """Write ``release`` of the frequency set ``grouped`` of ``source`` through the engine
    to ``out`` (and to ``order_copy`` in the table's order), then check the models on
    the written file in the engine: the rows written, the check, the copy's rows."""
    from privcore.engines.models import release_models

    qi, sa = list(schema.quasi_identifiers), list(schema.sensitive)
    stage(0.7, "Writing the release in the engine")
    released = release.frame[qi].reset_index(drop=True)
    drop = list(schema.identifiers)
    rows = engine.write(source, grouped, released, out, drop=drop, shuffle_seed=shuffle_seed)
    copy_rows = None
    if order_copy is not None:  # the same released values, in the table's order
        stage(0.8, "Writing the copy in the table's order in the engine")
        copy_rows = engine.write(
            source, grouped, released, order_copy, drop=drop, shuffle_seed=None
        )
    stage(0.9, "Checking the written release in the engine")
    check = release_models(
        engine, engine.scan(out), qi, sa, list(constraints), hierarchies=dict(schema.hierarchies)
    )
    return rows, check, copy_rows


def check_order_copy(order_copy: str | Path | None, out: str | Path, shuffle: bool) -> None:
    """A copy in the table's order (``order_copy``) is asked of a shuffled release only,
    and never in the place of the release ``out`` itself."""
    if order_copy is None:
        return
    if not shuffle:
        raise ParameterError(
            "The release keeps the table's row order: it needs no copy in that order. Ask "
            "for the copy only when the release is shuffled.",
            code="engines.order_copy_kept",
        )
    if not str(order_copy).strip() or Path(order_copy).resolve() == Path(out).resolve():
        raise ParameterError(
            "The copy in the table's order needs a file of its own, not the release's: "
            "give another path.",
            code="engines.order_copy_is_out",
            path=str(order_copy),
        )


def _records_in_memory(
    engine: Engine,
    table: Any,
    schema: Schema,
    constraints: Sequence[PrivacyModel],
    out: str | Path,
    algorithm: str,
    settings: Mapping[str, Any],
    shuffle: bool,
    name: str,
    stage: Stage,
    *,
    order_copy: str | Path | None = None,
) -> TableRelease:
    """KACA or condensation on a table read by an engine: its records read into memory
    (with the loader's values, in the table's order) when there are at most
    :func:`records_limit` of them, else ``engines.needs_records_in_memory``; the release
    made and written as on a table in memory (with its copy in the table's order at
    ``order_copy`` when asked), then checked by the engine on the file."""
    from privcore.anonymize import anonymize
    from privcore.data import save
    from privcore.engines.models import release_models
    from privcore.engines.pandas_engine import PandasEngine

    rows, limit = engine.rows(table), records_limit()
    if rows > limit:
        raise InfeasibleError(
            f"{algorithm} needs the table's records in memory, and the table has "
            f"{rows:,} rows, more than this installation reads into memory for it "
            f"({limit:,}: PRIVCORE_MAX_LOCAL_RECODING_ROWS, else PRIVCORE_MAX_ROWS). Use "
            "a full-domain algorithm or Mondrian, which work on the frequency set.",
            code="engines.needs_records_in_memory",
            algorithm=algorithm,
            rows=rows,
            limit=limit,
        )
    stage(0.0, "Reading the records into memory")
    frame = engine.head(table, rows)
    release = anonymize(
        frame, schema, constraints, algorithm=algorithm, progress=stage.part(0.1, 0.8), **settings
    )
    stage(0.8, "Writing the release")
    seed = int(settings.get("seed", 0))
    save(release.export(shuffle=shuffle, seed=seed), out)
    if order_copy is not None:  # the same release, in the table's order
        save(release.export(shuffle=False, seed=seed), order_copy)
    qi, sa = list(schema.quasi_identifiers), list(schema.sensitive)
    stage(0.9, "Checking the written release in the engine")
    check = release_models(
        engine, engine.scan(out), qi, sa, list(constraints), hierarchies=dict(schema.hierarchies)
    )
    frequency_set = PandasEngine().frequency_set(frame, [*qi, *sa])
    stage(1.0, "Done")
    return TableRelease(
        release=release,
        out=Path(out),
        rows_written=len(frame),
        written_check=check,
        dataset=scanned_dataset(engine, table, frequency_set, name),
        order_copy=None if order_copy is None else Path(order_copy),
        order_copy_rows=None if order_copy is None else len(frame),
    )


def measure_tables(engine: Engine, original: Any, release: Any, **options: Any):
    """Measure ``release`` against ``original`` (both scanned by ``engine``), paired in
    the engine (by position in their files, or by ``key``), from their joint frequency
    set (see the module docstring). ``options``: the pairing's (``qi``, ``sa``, ``key``,
    ``name``, ``progress``: :func:`_on_joint_set`) and those of
    :func:`~privcore.measure.report.measure_release` (``models``, ``hierarchies``,
    ``risk_threshold``, ``t_distance``, ``population``). Returns the measurement and the
    :class:`ScannedDataset` of the original.

    On an engine that measures classes in SQL (DuckDB), a release with more distinct
    combinations of its QIs and SAs than :func:`~privcore.engines.base.max_groups` (an
    estimate decides before any grouping; a joint set found too large falls back too)
    is measured by its own classes inside the engine
    (:func:`~privcore.measure.engine_classes.measure_classes_in_engine`): only
    aggregates come back. So is a release measured with ``alignment`` "none" (without a
    ``key``), and with "auto" when its rows do not line up with the original's; other
    engines refuse those two in words (``engines.alignment_not_in_engine``)."""
    from privcore.measure.report import measure_release

    limit = max_groups()
    in_sql = bool(getattr(engine, "classes_in_sql", False))
    alignment = options.pop("alignment", "position")
    if options.get("key"):  # a key pairs the rows, whatever the alignment
        alignment = "position"
    if alignment != "position" and not in_sql:
        raise ParameterError(
            f"--alignment {alignment} measures the release without pairing its rows, "
            "which an engine does inside itself on DuckDB only: use --engine duckdb, or "
            "pair the rows by position or by a key.",
            code="engines.alignment_not_in_engine",
            alignment=alignment,
        )
    if alignment == "none":
        return _measure_classes(engine, original, release, limit, why=None, **options)
    if in_sql:
        from privcore.engines.class_sql import approximate_combinations

        Stage(options.get("progress"))(0.0, "Counting the release's distinct combinations")
        if approximate_combinations(release, [*options["qi"], *options["sa"]]) > limit:
            return _measure_classes(engine, original, release, limit, **options)
    try:
        return _on_joint_set(
            engine,
            original,
            release,
            measure_release,
            "Measuring",
            0.6,
            own_progress=False,
            group_limit=limit if in_sql else None,
            **options,
        )
    except (InfeasibleError, DataFormatError) as exc:
        too_many = exc.code == "engines.too_many_pairs"
        unpaired = alignment == "auto" and exc.code in ("measure.row_order", "measure.alignment")
        if not in_sql or not (too_many or unpaired):
            raise
        why = exc.code if unpaired else "engines.too_many_groups"
    return _measure_classes(engine, original, release, limit, why=why, **options)


def _measure_classes(
    engine: Engine,
    original: Any,
    release: Any,
    limit: int,
    *,
    name: str = "table",
    progress: Progress | None = None,
    hierarchies: Any = None,
    why: str | None = "engines.too_many_groups",
    **options: Any,
):
    """:func:`measure_tables` of a release measured without pairing its rows — too large
    to pair in memory (``why`` ``engines.too_many_groups``), rows that do not line up
    with ``--alignment auto`` (the pairing's error code), or ``--alignment none``
    (None): its classes measured inside the engine; the original is read once for its
    fingerprint (:func:`summed_dataset`)."""
    from privcore.measure.engine_classes import measure_classes_in_engine

    stage = Stage(progress)
    stage(0.05, "Measuring the release's classes inside the engine")
    measured = measure_classes_in_engine(engine, release, limit=limit, why=why, **options)
    stage(0.95, "Reading the original's fingerprint")
    columns = [*options["qi"], *options["sa"]]
    dataset = summed_dataset(engine, original, columns, name)
    stage(1.0, "Done")
    return measured, dataset


def risk_tables(engine: Engine, original: Any, release: Any, **options: Any):
    """Risk beyond class sizes of ``release`` against ``original`` (both scanned by
    ``engine``), paired in the engine (by position in their files, or by ``key``): the
    estimates of :func:`privcore.report.risk.assess_risk` on their joint frequency set,
    its counts as weights (the three attacks on its record pairs, sampled above
    :data:`~privcore.report.risk.GDPR_RECORDS`). ``options``: the pairing's (``qi``,
    ``sa``, ``key``, ``name``, ``progress``: :func:`_on_joint_set`) and those of
    ``assess_risk`` (``hierarchies``, ``sampling_fraction``, ``population``,
    ``control``, ``seed``, ``gdpr``). Returns the :class:`~privcore.report.risk.RiskAssessment` and
    the :class:`ScannedDataset` of the original."""
    from privcore.report.risk import assess_risk

    return _on_joint_set(engine, original, release, assess_risk, "Assessing", 0.3, **options)


def _on_joint_set(
    engine: Engine,
    original: Any,
    release: Any,
    analysis: Any,
    doing: str,
    paired_at: float,
    *,
    qi: Sequence[str],
    sa: Sequence[str],
    key: str | None = None,
    name: str = "table",
    progress: Progress | None = None,
    own_progress: bool = True,
    group_limit: int | None = None,
    **options: Any,
) -> tuple[Any, ScannedDataset]:
    """Pair the two tables in the engine (by position, or by ``key``), then run
    ``analysis(original_part, release_part, qi=, sa=, weights=, **options)``
    on their joint frequency set, its counts as weights (progress from ``paired_at`` on,
    handed to ``analysis`` when it reports its ``own_progress``); its result and the
    :class:`ScannedDataset` of the original (named ``name``). ``group_limit`` (default:
    :func:`~privcore.engines.base.max_groups` on DuckDB, else none): more joint
    combinations is ``engines.too_many_pairs``, found before they come back."""
    stage = Stage(progress)
    qi, sa = [str(c) for c in qi], [str(c) for c in sa]
    if group_limit is None and getattr(engine, "classes_in_sql", False):
        group_limit = max_groups()  # DuckDB: a near-unique pair set stays in the engine
    stage(0.0, "Pairing the two tables in the engine")
    original_part, release_part, weights = _joint_parts(
        engine, original, release, qi, sa, key, limit=group_limit
    )
    stage(paired_at, f"{doing} the joint frequency set")
    if own_progress:
        options["progress"] = stage.part(paired_at, 1.0)
    result = analysis(original_part, release_part, qi=qi, sa=sa, weights=weights, **options)
    stage(1.0, "Done")
    return result, _original_dataset(engine, original, original_part, weights, name)


def _joint_parts(
    engine: Engine,
    original: Any,
    release: Any,
    qi: Sequence[str],
    sa: Sequence[str],
    key,
    *,
    limit: int | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame, np.ndarray]:
    """The joint frequency set of the two tables paired in the engine, as the original's
    rows, the release's rows (aligned) and their counts (``limit``: the most
    combinations brought back)."""
    paired = engine.paired(original, release, key=key)
    columns = [*qi, *sa]
    paired_columns = [f"o:{c}" for c in columns] + [f"r:{c}" for c in columns]
    try:
        joint = engine.grouped(paired, paired_columns, limit=limit).frame
    except InfeasibleError as exc:
        if exc.code != "engines.too_many_groups":
            raise
        raise InfeasibleError(
            f"The original and the release paired have more than {limit:,} distinct "
            "combinations of their quasi-identifiers and sensitive attributes, more than "
            "this installation holds in memory (PRIVCORE_ENGINE_MAX_GROUPS). Measuring "
            "such a release works inside the engine; this analysis needs the pairs in "
            "memory: run it on a sample of the rows, or raise the limit.",
            code="engines.too_many_pairs",
            limit=limit,
        ) from exc
    original_part = joint[[f"o:{c}" for c in columns]].set_axis(columns, axis=1)
    release_part = joint[[f"r:{c}" for c in columns]].set_axis(columns, axis=1)
    weights = joint[COUNT].to_numpy(dtype=np.int64)
    if key is None:
        check_pairs_by_position(original_part, release_part, weights, qi)
    return original_part, release_part, weights


def check_pairs_by_position(
    original_part: pd.DataFrame,
    release_part: pd.DataFrame,
    weights: np.ndarray,
    qi: Sequence[str],
    *,
    seed: int = 0,
) -> None:
    """The check of a pairing by position (:func:`~privcore.measure.entropy.check_row_order`)
    on the record pairs of a joint frequency set: up to ``ROW_ORDER_SAMPLE`` pairs drawn
    by their counts, so that an engine refuses a shuffled release in the words the
    tables in memory get (``measure.row_order``)."""
    total = int(weights.sum())
    if total < 2 or not len(weights):
        return
    rng = np.random.default_rng(seed)
    drawn = rng.choice(len(weights), size=min(total, ROW_ORDER_SAMPLE), p=weights / total)
    check_row_order(
        original_part.iloc[drawn].reset_index(drop=True),
        release_part.iloc[drawn].reset_index(drop=True),
        list(qi),
        seed=seed,
    )


def _original_dataset(
    engine: Engine, table: Any, original_part: pd.DataFrame, weights: np.ndarray, name: str
) -> ScannedDataset:
    """A table's own frequency set (its half of the joint set, merged)."""
    columns = list(original_part.columns)
    frame = original_part.copy()
    frame[COUNT] = weights
    return scanned_dataset(engine, table, regrouped(frame, columns, {}).frame, name)


def attack_tables(engine: Engine, original: Any, release: Any, **options: Any):
    """The attack simulator (linkage and homogeneity, before vs after; SPEC §6) on
    ``release`` and ``original`` (both scanned by ``engine``), paired in the engine (by
    position, or by ``key``), from their joint frequency set with its counts as weights.
    The voter roll is a roll frequency set drawn from it
    (:func:`privcore.attacks.roll.roll_frequency_set`: the data set's people, and the
    others as whole QI tuples of its records): its rows are the data set's distinct QI
    tuples, however many people it stands for. ``options``: the pairing's (``qi``,
    ``sa``, ``key``, ``name``, ``progress``: :func:`_on_joint_set`) and those of
    :func:`privcore.attacks.simulate` (``hierarchies``, ``roll_size``, ``seed``,
    ``tau``, ``risk_threshold``, ``tolerance``). Returns the simulation and the
    :class:`ScannedDataset` of the original."""
    from privcore.attacks import simulate

    return _on_joint_set(engine, original, release, simulate, "Attacking", 0.5, **options)


#: The rows of a table the report's role suggestions read on an engine: the key's
#: column of the original, the release's columns outside the analysis.
SAMPLE_ROWS = 10_000


def readiness_tables(
    engine: Engine,
    original: Any,
    release: Any,
    *,
    qi: Sequence[str],
    sa: Sequence[str],
    thresholds: Any = None,
    hierarchies: Mapping[str, Hierarchy] | None = None,
    key: str | None = None,
    algorithm: Mapping[str, Any] | None = None,
    roll_size: int | None = None,
    seed: int = 0,
    shuffled: bool = False,
    progress: Progress | None = None,
    original_name: str = "table",
    release_name: str = "release",
    gdpr: bool = True,
    published_tables: Any = (),
):
    """The readiness report (:func:`privcore.report.readiness`) of ``release`` against
    ``original``, both scanned by ``engine`` and paired in it once (by position in their
    files, or by ``key``): their joint frequency set is measured
    (:func:`~privcore.measure.report.measure_release` with the models the thresholds
    require) and attacked (:func:`~privcore.attacks.simulate` with a roll frequency set
    of ``roll_size`` people drawn with ``seed``) with its counts as weights, and every
    check of :mod:`privcore.report.checks` is evaluated on the figures, as in memory.

    The findings (:func:`privcore.report.findings.findings_of_facts`): rows paired by
    position follow the original's order by construction; with a key, the engine
    computes the rank correlation of the pairs' positions and the rows in place
    (:meth:`~privcore.engines.base.Engine.key_order`). Whether the key looks like an
    identifier, and what the release's other columns look like, is read from the first
    :data:`SAMPLE_ROWS` rows of the tables (a note of the report says so when a table
    has more). The fingerprints are those of the frequency sets read
    (:meth:`ScannedDataset.summary`, with the names). Singling out, linkability and
    inference (unless ``gdpr`` is False and no limit asks for them) are measured on the
    record pairs of the joint frequency set (:func:`pairs_as_records`): all of them up
    to :data:`GDPR_RECORDS`, else a uniform sample of that many (note ``gdpr_sampled``).
    The reconstruction from published tables (a limit on the share rebuilt, or
    ``published_tables``) rebuilds records, which an engine does not hold: it is said
    to be not measured (``not_in_memory``).

    Returns the :class:`~privcore.report.ReadinessReport` and the
    :class:`ScannedDataset` of the original."""
    import datetime as dt

    from privcore.core.jsonsafe import plain
    from privcore.report import ReadinessReport, Thresholds
    from privcore.report.checks import evaluate_checks, notes_of
    from privcore.report.findings import constant_columns
    from privcore.report.readiness import _names

    if not isinstance(thresholds, Thresholds):
        thresholds = Thresholds.from_dict(thresholds)
    qi, sa = _names(qi, "qi"), _names(sa, "sa")
    hierarchies = dict(hierarchies or {})
    algorithm = plain(dict(algorithm)) if algorithm is not None else None
    stage = Stage(progress)

    stage(0.0, "Pairing the two tables in the engine")
    joint = _joint_parts(engine, original, release, qi, sa, key)
    original_part, release_part, weights = joint
    measurement, simulation = _measured_and_attacked(
        joint, qi, sa, key, thresholds, hierarchies, roll_size, seed, stage
    )
    attacks = plain(simulation.to_dict())

    stage(0.85, "Checking row order and columns in the engine")
    records = int(weights.sum())
    constant = constant_columns(original_part, release_part, measurement)
    found, sampled = _engine_findings(
        engine, original, release, key, records, qi, sa, simulation, shuffled, constant
    )
    if thresholds.max_reconstructed_share is not None or published_tables:
        found["reconstruction"] = {"measured": False, "note": {"note": "not_in_memory"}}
    gdpr_figures, gdpr_notes = None, []
    if gdpr or thresholds.needs_gdpr_risks:
        stage(0.9, "Measuring singling out, linkability and inference")
        gdpr_figures, gdpr_notes = _engine_article29(
            original_part, release_part, weights, qi, sa, seed, hierarchies
        )
    checks, reasons, conditions, verdict = evaluate_checks(
        measurement, attacks, found, thresholds, algorithm=algorithm, gdpr_risks=gdpr_figures
    )
    notes = notes_of(measurement, found, key)
    if sampled and (key is not None or found["other_columns"]):
        notes.append({"note": "columns_sampled", "params": {"rows": SAMPLE_ROWS}})
    notes += gdpr_notes
    dataset = _original_dataset(engine, original, original_part, weights, original_name)
    released = _original_dataset(engine, release, release_part, weights, release_name)
    report = ReadinessReport(
        verdict=verdict,
        reasons=reasons,
        conditions=conditions,
        checks=checks,
        fingerprint=dataset.summary(),
        release_fingerprint=released.summary(),
        roles={"qi": qi, "sa": sa, "key": key},
        algorithm=algorithm,
        measurement=measurement,
        attacks=attacks,
        thresholds=thresholds,
        run_ids=[],
        created=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        findings=found,
        notes=notes,
        gdpr_risks=gdpr_figures,
    )
    stage(1.0, "Done")
    return report, dataset


def _measured_and_attacked(
    joint: tuple[pd.DataFrame, pd.DataFrame, np.ndarray],
    qi: list[str],
    sa: list[str],
    key: str | None,
    thresholds: Any,
    hierarchies: Mapping[str, Hierarchy],
    roll_size: int | None,
    seed: int,
    stage: Stage,
) -> tuple[dict[str, Any], Any]:
    """The joint frequency set measured with the models the thresholds require, and
    attacked with a roll of ``roll_size`` people (its counts as weights): the
    measurement as plain figures, and the simulation."""
    import dataclasses

    from privcore.attacks import simulate
    from privcore.core.jsonsafe import plain
    from privcore.measure.report import measure_release
    from privcore.report.readiness import report_options

    original_part, release_part, weights = joint
    common = {**report_options(qi, sa, thresholds, hierarchies), "weights": weights}
    stage(0.3, "Measuring the release")
    measured = measure_release(original_part, release_part, models=thresholds.models(), **common)
    if key is not None:  # the engine paired the rows by the key: the joint set is aligned
        measured = dataclasses.replace(measured, key=key, alignment="key")
    stage(0.4, "Attacking the release")
    simulation = simulate(
        original_part,
        release_part,
        roll_size=roll_size,
        seed=seed,
        progress=stage.part(0.4, 0.85),
        **common,
    )
    return plain(measured.to_dict()), simulation


def _engine_findings(
    engine: Engine,
    original: Any,
    release: Any,
    key: str | None,
    records: int,
    qi: list[str],
    sa: list[str],
    simulation: Any,
    shuffled: bool,
    constant: Any,
) -> tuple[dict[str, Any], bool]:
    """The report's findings on a table read by an engine: the row order (by
    construction without a key; the engine's rank correlation of the pairs' positions
    with one), the key's and the other columns' look from the first :data:`SAMPLE_ROWS`
    rows; and whether those rows are a sample of a larger table."""
    from privcore.report.findings import findings_of_facts

    if key is None:  # row i of the file under review is row i of the original
        order: dict[str, Any] = {
            "n": records,
            "spearman": 1.0 if records >= 2 else None,
            "rows_in_place": records,
        }
        key_sample = None
        sampled = records > SAMPLE_ROWS
    else:
        order = engine.key_order(original, release, key)
        key_sample = engine.head(original, SAMPLE_ROWS)
        sampled = max(order["original_rows"], engine.rows(release)) > SAMPLE_ROWS
    found = findings_of_facts(
        engine.head(release, SAMPLE_ROWS),
        qi,
        sa,
        key,
        simulation,
        order=order,
        key_sample=key_sample,
        shuffled=shuffled,
        constant=constant,
    )
    return found, sampled


def _engine_article29(
    original_part: pd.DataFrame,
    release_part: pd.DataFrame,
    weights: np.ndarray,
    qi: list[str],
    sa: list[str],
    seed: int,
    hierarchies: Mapping[str, Hierarchy],
) -> tuple[Any, list[dict[str, Any]]]:
    """Singling out, linkability and inference on the record pairs of the joint
    frequency set (all of them up to :data:`GDPR_RECORDS`, else a uniform sample: note
    ``gdpr_sampled``), and the notes to add."""
    from privcore.report.readiness import article29_risks

    paired_original, paired_release, drawn = pairs_as_records(
        original_part, release_part, weights, limit=GDPR_RECORDS, seed=seed
    )
    figures, not_measured = article29_risks(
        paired_original, paired_release, qi, sa, seed=seed, hierarchies=hierarchies
    )
    if not_measured is not None:
        return figures, [not_measured]
    if drawn:
        records = int(weights.sum())
        return figures, [
            {"note": "gdpr_sampled", "params": {"rows": GDPR_RECORDS, "records": records}}
        ]
    return figures, []
