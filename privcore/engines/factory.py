"""The engine named by a front end: :func:`engine`. Kept apart from
:mod:`privcore.engines.base`, which the concrete engines import, so that the base knows
none of them (no import circle)."""

from __future__ import annotations

from privcore.engines.base import ENGINES, Engine
from privcore.errors import ParameterError

__all__ = ["engine"]


def engine(name: str) -> Engine:
    """The engine called ``name`` (one of :data:`ENGINES`)."""
    if name == "pandas":
        from privcore.engines.pandas_engine import PandasEngine

        return PandasEngine()
    if name == "duckdb":
        from privcore.engines.duckdb_engine import DuckDBEngine

        return DuckDBEngine()
    if name == "spark":
        from privcore.engines.spark_engine import SparkEngine

        return SparkEngine()
    raise ParameterError(
        f"Unknown engine {name!r}: choose one of {', '.join(ENGINES)}.",
        code="engines.unknown",
        option="engine",
        allowed=list(ENGINES),
    )
