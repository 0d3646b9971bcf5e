"""The engines' memory by default: DuckDB a quarter of the machine (or its container),
512 MB to 4 GB; Spark 1 GB for the driver and for each executor; each can be set."""

from __future__ import annotations

import pytest

from privcore.engines import duckdb_engine
from privcore.engines.duckdb_engine import DuckDBEngine, default_memory_limit
from privcore.engines.spark_engine import spark_memory

GB = 2**30


@pytest.mark.parametrize(
    ("machine", "expected"),
    [
        (1 * GB, "512MiB"),
        (2 * GB, "512MiB"),
        (8 * GB, "2048MiB"),
        (23 * GB, "4096MiB"),
        (128 * GB, "4096MiB"),
    ],
)
def test_duckdb_takes_a_quarter_of_the_machine_within_bounds(monkeypatch, machine, expected):
    monkeypatch.delenv("PRIVCORE_DUCKDB_MEMORY", raising=False)
    monkeypatch.setattr(duckdb_engine, "machine_memory", lambda: machine)
    assert default_memory_limit() == expected


def test_the_setting_and_the_option_come_first(monkeypatch):
    monkeypatch.setenv("PRIVCORE_DUCKDB_MEMORY", "1500MB")
    assert default_memory_limit() == "1500MB"
    assert DuckDBEngine().memory_limit == "1500MB"
    assert DuckDBEngine(memory_limit="700MB").memory_limit == "700MB"


def test_duckdb_runs_with_the_default_limit(monkeypatch):
    monkeypatch.delenv("PRIVCORE_DUCKDB_MEMORY", raising=False)
    monkeypatch.setattr(duckdb_engine, "machine_memory", lambda: 8 * GB)
    engine = DuckDBEngine()
    (setting,) = engine.connection.execute("SELECT current_setting('memory_limit')").fetchone()
    assert engine.memory_limit == "2048MiB" and setting.replace(" ", "") in ("2.0GiB", "2GiB")


def test_the_machines_memory_is_positive_and_at_most_the_physical():
    import os

    physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    assert 0 < duckdb_engine.machine_memory() <= physical


def test_spark_memory_by_role(monkeypatch):
    monkeypatch.delenv("PRIVCORE_SPARK_DRIVER_MEMORY", raising=False)
    monkeypatch.setenv("PRIVCORE_SPARK_EXECUTOR_MEMORY", "2g")
    assert spark_memory("DRIVER") == "1g"
    assert spark_memory("EXECUTOR") == "2g"
