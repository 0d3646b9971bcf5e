"""Engines: where row-level work runs (SPEC §9; ARCHITECTURE "Engines").

Everything above an engine works on **frequency sets** — the distinct combinations of
the chosen columns with their counts — which have far fewer rows than the table. An
engine scans a table and computes its frequency sets; the table itself never has to fit
in memory unless the engine is pandas.

- ``pandas`` (:class:`~privcore.engines.pandas_engine.PandasEngine`): the table read by
  :func:`privcore.data.load`, in memory; group-bys through :mod:`privcore.classes`.
- ``duckdb`` (:class:`~privcore.engines.duckdb_engine.DuckDBEngine`): embedded DuckDB,
  which streams Parquet files and spills to disk; only the frequency set comes back.
- ``spark`` (:class:`~privcore.engines.spark_engine.SparkEngine`): PySpark, on a cluster
  (a ``SparkSession`` of one) or on this machine; needs PySpark and Java 17.

:func:`privcore.engines.models.release_models` checks the privacy models of SPEC §2 on a
released table from its frequency set (counts as weights): the verdicts and figures of
the table in memory, for a table of any size.

Every engine reads a Parquet file (or a glob of Parquet parts) and a CSV/TSV file as the
same table: the loader's rules hold on each (for text files its layout — encoding,
delimiter, names, leading zeros — and its values; for Parquet, surrounding white space
stripped, the missing markers of :data:`privcore.data.loading.MISSING_MARKERS` read as
missing, dates as ``YYYY-MM-DD`` text), and their frequency sets are equal in
:func:`~privcore.engines.base.canonical` form (the tests compare them). An engine also
pairs two tables row for row, restricts a table to a fragment and writes a release
(:class:`~privcore.engines.base.Engine`); :mod:`privcore.runs.tables` runs anonymize,
measure and attack on a table of any size with them.
"""

from __future__ import annotations

from privcore.engines.base import ENGINES, Engine, canonical
from privcore.engines.factory import engine

__all__ = ["ENGINES", "Engine", "canonical", "engine"]
