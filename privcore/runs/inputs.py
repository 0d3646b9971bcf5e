"""What a run reads besides its request: :class:`Inputs` (the tables, their roles, a
roll, samples), and :class:`Part`, a run recorded inside another one."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from privcore.core.progress import Progress
from privcore.data import Dataset, Schema
from privcore.errors import ParameterError

__all__ = ["EngineTable", "Inputs", "Part"]


@dataclass(eq=False)
class EngineTable:
    """A table an engine reads (DuckDB, Spark: :mod:`privcore.engines`) — the
    ``engine``, its ``handle`` on the table and the table's ``name`` — as a run's
    original or release. A runner given one computes on the engine's frequency sets
    (:mod:`privcore.runs.tables`) instead of rows in memory, and records in ``read`` the
    :class:`~privcore.runs.tables.ScannedDataset` it read; the history keeps that, or
    before it is read ``known`` (what the front end knows of the table) and ``rows``."""

    engine: Any
    handle: Any
    name: str
    rows: int = 0
    known: Mapping[str, Any] = field(default_factory=dict)
    read: Any = None

    @property
    def n_rows(self) -> int:
        return self.rows if self.read is None else self.read.n_rows

    def summary(self) -> dict[str, Any]:
        """What the history keeps of the table: the frequency set's fingerprint once
        read, else what was known of it."""
        if self.read is not None:
            return self.read.summary()
        return {"name": self.name, "engine": str(self.engine.name), **dict(self.known)}


@dataclass(frozen=True, eq=False)
class Inputs:
    """The data a run reads (what the request does not hold).

    ``original``: the table to anonymize, or the original of a release (a
    :class:`~privcore.data.Dataset` in memory, or an :class:`EngineTable`); ``schema``:
    its roles and hierarchies; ``release``: the released table (a DataFrame, or an
    :class:`EngineTable` of the same engine as the original) and ``release_name``;
    ``out``: where a release made on an engine is written;
    ``aligned``: the release's rows are the original's, in order (a release made here),
    so nothing checks the order; ``shuffled``: the file to publish is the release with
    its rows shuffled (the download of a release made here); ``population``: a table of
    people for journalist risk; ``roll``: a voter roll already built; ``samples``:
    logged LDP samples; ``control``: records of the population never released (the
    control set of singling out, linkability and inference); ``algorithm``: how a
    release under report was made; ``release_kind``: what the release is, declared by
    the method that made it (:class:`~privcore.core.kinds.ReleaseKind`; None: a file,
    read as a generalized release); ``blanked``: the rows of ``release`` the method that
    made it blanked in every QI (a boolean per row: ``Release.suppressed`` of a release
    made here), so that its measurement, report and attack count the release's own
    suppressed rows (:func:`privcore.classes.release_classes`); ``second_release``: a
    second release of the same records, its rows paired with ``release``'s (the
    complementary-release attack) and ``second_release_name``; ``names``: extra names
    of what the run read or wrote (file names), recorded with its parameters;
    ``share_key``: the run's result is the same for every session of a server that asks
    with this key (a run on a bundled sample: :func:`ui.common.shared.shared_run_inputs`), so the
    cache of results shared between sessions that :func:`privcore.runs.run` is given
    serves it, computed once; ``work``: a callable ``work(progress) -> (result, summary)``
    that computes the run instead of the library call its request names (a
    :class:`~privcore.runs.requests.TaskRequest`) — recorded all the same.
    """

    original: Dataset | EngineTable | None = None
    schema: Schema | None = None
    release: pd.DataFrame | EngineTable | None = None
    release_name: str | None = None
    aligned: bool = False
    shuffled: bool = False
    population: pd.DataFrame | None = None
    roll: Any = None
    samples: Dataset | None = None
    control: pd.DataFrame | None = None
    algorithm: Mapping[str, Any] | None = None
    release_kind: str | None = None
    blanked: Any = None
    second_release: pd.DataFrame | None = None
    second_release_name: str | None = None
    names: Mapping[str, Any] = field(default_factory=dict)
    out: str | None = None
    share_key: str | None = None
    work: Callable[[Progress | None], tuple] | None = None

    @property
    def on_engine(self) -> bool:
        """Is the original a table an engine reads (then so is its release)?"""
        return isinstance(self.original, EngineTable)

    def describe(self) -> dict[str, Any]:
        """What the history keeps of the inputs besides the fingerprint: names only."""
        out: dict[str, Any] = {}
        if self.release_name is not None:
            out["release"] = self.release_name
        if self.second_release_name is not None:
            out["second_release"] = self.second_release_name
        if self.population is not None:
            out["population_rows"] = len(self.population)
        if self.control is not None:
            out["control_rows"] = len(self.control)
        if self.schema is not None and self.schema.hierarchies:
            out["hierarchies"] = sorted(self.schema.hierarchies)
        out.update(self.names)
        return out

    def need(self, *what: str) -> None:
        missing = [w for w in what if getattr(self, w) is None]
        if missing:
            raise ParameterError(
                f"This run needs {', '.join(missing)}.", code="runs.missing_input", missing=missing
            )


@dataclass(frozen=True)
class Part:
    """A run made inside another one (the readiness report's measurement and attack):
    recorded first, as a run of its own ``kind`` with these ``params`` and ``results``;
    the main run's results then name its id (``<kind>_run``)."""

    kind: str
    params: Mapping[str, Any]
    results: Mapping[str, Any]
