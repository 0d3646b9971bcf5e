"""Spark at scale: rows numbered in place (no table in one task), two tables paired by
a sort-merge join (none broadcast, none collected), every block of Spark work within a
time limit that ends a job in words instead of a hang."""

from __future__ import annotations

import time

import pandas as pd
import pytest

from privcore.engines.failures import engine_errors
from privcore.errors import DataFormatError
from tests.unit.test_engines import SPARK_MISSING, stop_spark  # noqa: F401

pytestmark = pytest.mark.skipif(SPARK_MISSING is not None, reason=str(SPARK_MISSING))


@pytest.fixture(scope="module")
def spark():
    from privcore.engines.spark_engine import SparkEngine

    return SparkEngine()


def plan(frame) -> str:
    return frame._jdf.queryExecution().executedPlan().toString()


def test_rows_of_many_parts_are_numbered_in_path_order_without_a_global_window(spark, tmp_path):
    folder = tmp_path / "parts"
    folder.mkdir()
    sizes = [3, 1, 4, 2]
    start = 0
    for i, size in enumerate(sizes):
        part = pd.DataFrame({"v": range(start, start + size)})
        part.to_parquet(folder / f"part-{i:05d}.parquet", index=False)
        start += size
    table = spark.scan(str(folder))
    numbered = table.numbered("n")
    rows = numbered.toPandas().sort_values("n")
    assert rows["n"].tolist() == list(range(sum(sizes)))
    assert rows["v"].tolist() == list(range(sum(sizes)))  # position = place in path order
    # no row_number() over the whole table (a window without partitions: one task);
    # the one window sums the few counts of the parts
    text = plan(numbered)
    assert "row_number" not in text and "SinglePartition" not in text.split("BroadcastExchange")[0]


def test_two_tables_are_paired_by_a_sort_merge_join(spark, tmp_path):
    frame = pd.DataFrame({"a": range(50), "b": [i % 3 for i in range(50)]})
    frame.to_parquet(tmp_path / "o.parquet", index=False)
    frame.assign(b=frame["b"] + 10).to_parquet(tmp_path / "r.parquet", index=False)
    original, release = (
        spark.scan(str(tmp_path / "o.parquet")),
        spark.scan(str(tmp_path / "r.parquet")),
    )
    paired = spark.paired(original, release)
    text = plan(paired.frame)
    assert "SortMergeJoin" in text
    rows = spark.head(paired, 100)
    assert (rows["r:b"] - rows["o:b"]).eq(10).all() and rows["o:a"].tolist() == list(range(50))


def test_a_job_past_the_time_limit_is_cancelled_in_words_and_the_engine_goes_on(spark):
    session = spark.session
    slow = session.range(0, 10**12, numPartitions=2).selectExpr("sum(id % 7) AS s")
    started = time.monotonic()
    with pytest.raises(DataFormatError) as caught, spark.time_limited(2), engine_errors():
        slow.collect()
    assert caught.value.code == "engines.timeout"
    assert "PRIVCORE_SPARK_TIMEOUT" in str(caught.value)
    assert time.monotonic() - started < 60
    with engine_errors(spark):  # the next job runs (and within the default limit)
        assert session.range(10).count() == 10


def test_the_limit_comes_from_the_environment(monkeypatch):
    from privcore.engines.spark_engine import SPARK_TIMEOUT, spark_timeout

    monkeypatch.delenv("PRIVCORE_SPARK_TIMEOUT", raising=False)
    assert spark_timeout() == SPARK_TIMEOUT == 3600
    monkeypatch.setenv("PRIVCORE_SPARK_TIMEOUT", "90")
    assert spark_timeout() == 90
