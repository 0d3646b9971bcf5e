"""The class summary computed in DuckDB (privcore.engines.class_sql) against the one
computed in memory (privcore.models.evaluate), and against figures worked by hand."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from privcore.classes import release_classes
from privcore.engines.class_report import engine_class_report
from privcore.engines.class_sql import FIGURES
from privcore.engines.duckdb_engine import DuckDBEngine
from privcore.models import evaluate


def summary_here(frame: pd.DataFrame, qi, sa) -> dict:
    report = evaluate(release_classes(frame, qi, sa))
    return report.summary


def summary_in_duckdb(tmp_path, frame: pd.DataFrame, qi, sa) -> dict:
    """The report's summary, with the worst class's t by both distances (read from the
    per-class figures it left)."""
    path = tmp_path / "release.parquet"
    frame.to_parquet(path, index=False)
    engine = DuckDBEngine(threads=1)
    table = engine.scan(path)
    summary = dict(engine_class_report(engine, table, qi, sa).summary)
    summary["t_equal"], summary["t_ordered"] = {}, {}
    for j, name in enumerate(sa):
        found = table.connection.execute(f"SELECT max(te{j}), max(to{j}) FROM {FIGURES}")
        summary["t_equal"][name], summary["t_ordered"][name] = found.fetchall()[0]
    return summary


def verdicts_in_duckdb(engine, table, qi, sa, models) -> list[dict]:
    return engine_class_report(engine, table, qi, sa, models).verdicts


def test_a_table_worked_by_hand(tmp_path):
    # classes: (a) flu, flu, cold  (b) flu  (c) cancer, cold
    frame = pd.DataFrame(
        {
            "zip": ["a", "a", "a", "b", "c", "c"],
            "disease": ["flu", "flu", "cold", "flu", "cancer", "cold"],
        }
    )
    got = summary_in_duckdb(tmp_path, frame, ["zip"], ["disease"])
    assert (got["k"], got["classes"], got["rows"]) == (1, 3, 6)
    assert got["l_distinct"]["disease"] == 1  # class b
    assert got["l_entropy"]["disease"] == pytest.approx(1.0)  # class b: exp(0)
    # recursive c, l = 2: a: 2/1, b: one value (∞), c: 1/1
    assert math.isinf(got["recursive_c"]["disease"])
    # q: flu 3/6, cold 2/6, cancer 1/6; class b: ½(|1 − ½| + ⅓ + ⅙) = ½
    assert got["t_equal"]["disease"] == pytest.approx(0.5)
    assert got["top_share"]["disease"] == pytest.approx(1.0)
    # ordered, ranks cancer < cold < flu, F_Q = 1/6, 3/6, 1; class b: F_P = 0, 0, 1:
    # (1/6 + 3/6 + 0) / 2 = 1/3; class c: F_P = ½, 1, 1: (⅓ + ½ + 0)/2 = 5/12; class a:
    # F_P = 0, ⅓, 1: (1/6 + 1/6)/2 = 1/6
    assert got["t_ordered"]["disease"] == pytest.approx(5 / 12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_same_summary_as_in_memory(tmp_path, seed):
    rng = np.random.default_rng(seed)
    n = 2_000
    frame = pd.DataFrame(
        {
            "age": rng.integers(20, 30, n),
            "zip": rng.choice(["476**", "479**", "*", None], n),
            "sex": rng.choice(["F", "M"], n),
            "disease": rng.choice(["flu", "cold", "cancer", "asthma", None], n),
            "salary": rng.choice([10, 20, 30, 40], n),
        }
    )
    qi, sa = ["age", "zip", "sex"], ["disease", "salary"]
    mine = summary_in_duckdb(tmp_path, frame, qi, sa)
    here = summary_here(frame, qi, sa)
    for key in ("k", "classes", "rows"):
        assert mine[key] == here[key], key
    for attribute in sa:
        assert mine["l_distinct"][attribute] == here["l_distinct"][attribute]
        assert mine["l_entropy"][attribute] == pytest.approx(here["l_entropy"][attribute])
        assert mine["recursive_c"][attribute] == pytest.approx(here["recursive_c"][attribute])
        assert mine["top_share"][attribute] == pytest.approx(here["top_share"][attribute])
    classes = release_classes(frame, qi, sa)
    from privcore.models.distances import t_distance

    for attribute in sa:
        for distance in ("equal", "ordered"):
            expected = t_distance(classes, attribute, distance).max()
            assert mine[f"t_{distance}"][attribute] == pytest.approx(expected), (
                distance,
                attribute,
            )


def test_the_same_verdicts_as_in_memory(tmp_path):
    from privcore.models import (
        DistinctLDiversity,
        EntropyLDiversity,
        KAnonymity,
        RecursiveCLDiversity,
        TCloseness,
    )

    rng = np.random.default_rng(7)
    n = 3_000
    frame = pd.DataFrame(
        {
            "age": rng.integers(20, 26, n),
            "sex": rng.choice(["F", "M", None], n),
            "disease": rng.choice(["flu", "cold", "cancer", "asthma"], n, p=[0.5, 0.3, 0.15, 0.05]),
            "salary": rng.choice([10.0, 20.0, 30.0, np.nan], n),
        }
    )
    qi, sa = ["age", "sex"], ["disease", "salary"]
    models = [
        KAnonymity(150),
        DistinctLDiversity(4),
        EntropyLDiversity(2.5, attributes=("disease",)),
        RecursiveCLDiversity(2.0, 3),
        TCloseness(0.12),
        TCloseness(0.2, distance="equal", attributes=("salary",)),
    ]
    path = tmp_path / "release.parquet"
    frame.to_parquet(path, index=False)
    engine = DuckDBEngine(threads=1)
    mine = verdicts_in_duckdb(engine, engine.scan(path), qi, sa, models)
    here = evaluate(release_classes(frame, qi, sa), models).verdicts
    assert len(mine) == len(here)
    for got, want in zip(mine, here, strict=True):
        for key in ("model", "requirement", "passed", "violating_classes", "violating_rows"):
            assert got[key] == want[key], (key, got, want)
        assert got["parameters"] == want["parameters"]
        for figure, value in want["achieved"].items():
            if isinstance(value, dict):
                for name, number in value.items():
                    assert got["achieved"][figure][name] == pytest.approx(number), (figure, name)
            else:
                assert got["achieved"][figure] == pytest.approx(value), figure
    assert any(not v["passed"] for v in mine) and any(v["passed"] for v in mine)


def test_k_without_sensitive_attributes_and_a_model_refused_in_words(tmp_path):
    from privcore.errors import ParameterError
    from privcore.models import KAnonymity, TCloseness

    frame = pd.DataFrame({"zip": ["a", "a", "b", "b", "b", "c"], "disease": ["x"] * 6})
    path = tmp_path / "release.parquet"
    frame.to_parquet(path, index=False)
    engine = DuckDBEngine(threads=1)
    (verdict,) = verdicts_in_duckdb(engine, engine.scan(path), ["zip"], [], [KAnonymity(2)])
    assert (verdict["passed"], verdict["violating_classes"], verdict["violating_rows"]) == (
        False,
        1,
        1,
    )
    assert verdict["achieved"] == {"k": 1}
    with pytest.raises(ParameterError) as refused:
        verdicts_in_duckdb(
            engine, engine.scan(path), ["zip"], ["disease"], [TCloseness(0.2, "hierarchical")]
        )
    assert refused.value.code == "engines.distance_not_in_engine"


def test_every_class_figure_as_in_memory_with_many_one_value_classes(tmp_path):
    """Classes of one value take a closed form of ordered t, the others running sums:
    every class's figures (as multisets) equal those computed in memory."""
    from privcore.engines.class_sql import class_figures
    from privcore.models.distances import t_distance
    from privcore.models.measures import distinct_values, entropy_l

    rng = np.random.default_rng(3)
    n = 1_500
    frame = pd.DataFrame(
        {
            "age": rng.integers(0, 400, n),
            "disease": rng.choice(["a", "b", "c", "d", None], n),
            "salary": rng.choice([1.0, 2.0, 5.0, 9.0], n),
        }
    )
    path = tmp_path / "release.parquet"
    frame.to_parquet(path, index=False)
    engine = DuckDBEngine(threads=1)
    table = engine.scan(path)
    name = class_figures(engine, table, ["age"], ["disease", "salary"], recursive_l=(3,)).table
    mine = table.connection.execute(f"SELECT * FROM {name}").df()
    classes = release_classes(frame, ["age"], ["disease", "salary"])
    assert (mine["d0"] == 1).sum() > 50  # many classes of one value
    for j, attribute in enumerate(["disease", "salary"]):
        pairs = {
            f"to{j}": t_distance(classes, attribute, "ordered"),
            f"te{j}": t_distance(classes, attribute, "equal"),
            f"d{j}": distinct_values(classes, attribute),
        }
        for column, expected in pairs.items():
            got = np.sort(mine[column].to_numpy(dtype=float))
            assert got == pytest.approx(np.sort(np.asarray(expected, dtype=float))), column
        got = np.sort(np.exp(mine[f"h{j}"].to_numpy(dtype=float)))
        assert got == pytest.approx(np.sort(entropy_l(classes, attribute)))


def _starred_release(seed: int, n: int = 2_500) -> pd.DataFrame:
    """A release with generalized cells, missing values and rows at '*' in every QI."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "age": rng.choice(["20-29", "30-39", "40-49", "*"], n),
            "zip": rng.choice(["476**", "479**", "*", None], n),
            "disease": rng.choice(["flu", "cold", "cancer", None], n, p=[0.5, 0.3, 0.1, 0.1]),
            "salary": rng.choice([10.0, 20.0, 30.0, np.nan], n),
        }
    )
    top = rng.random(n) < 0.04
    frame.loc[top, ["age", "zip"]] = "*"
    return frame


@pytest.mark.parametrize(
    ("seed", "model_set"),
    [(0, "none"), (1, "k_fails_top"), (2, "all_pass_top"), (3, "mixed")],
)
def test_the_whole_report_as_in_memory_with_the_group_at_star(tmp_path, seed, model_set):
    """Summary, verdicts, suppressed rows, class sizes, the worst classes and the
    entropies equal those of the classes in memory (release_classes + evaluate), the
    group at '*' in every QI a class or suppressed by the same rule."""
    from privcore.measure.entropy import discrimination_rate
    from privcore.models import (
        DistinctLDiversity,
        EntropyLDiversity,
        KAnonymity,
        RecursiveCLDiversity,
        TCloseness,
    )

    frame = _starred_release(seed)
    qi, sa = ["age", "zip"], ["disease", "salary"]
    top_size = int(((frame["age"] == "*") & (frame["zip"] == "*")).sum())
    models = {
        "none": [],
        "k_fails_top": [KAnonymity(top_size + 1)],
        "all_pass_top": [KAnonymity(2), DistinctLDiversity(2)],
        "mixed": [
            KAnonymity(40),
            EntropyLDiversity(2.0, attributes=("disease",)),
            RecursiveCLDiversity(3.0, 2),
            TCloseness(0.15),
        ],
    }[model_set]
    path = tmp_path / "release.parquet"
    frame.to_parquet(path, index=False)
    engine = DuckDBEngine(threads=1)
    mine = engine_class_report(engine, engine.scan(path), qi, sa, models, worst=5)
    classes = release_classes(frame, qi, sa, models=models)
    here = evaluate(classes, models, frame=frame)
    if model_set == "k_fails_top":
        assert classes.n_suppressed == top_size > 0
    assert mine.summary["suppressed_rows"] == here.summary["suppressed_rows"]
    for key in ("k", "classes", "rows"):
        assert mine.summary[key] == here.summary[key], key
    for figure in ("l_distinct", "l_entropy", "recursive_c", "top_share"):
        for attribute in sa:
            assert mine.summary[figure][attribute] == pytest.approx(
                here.summary[figure][attribute]
            ), (figure, attribute)
    for attribute in sa:
        got, want = mine.summary["t_closeness"][attribute], here.summary["t_closeness"][attribute]
        assert got["distance"] == want["distance"]
        assert got["t"] == pytest.approx(want["t"])
    for got, want in zip(mine.verdicts, here.verdicts, strict=True):
        for key in ("model", "passed", "violating_classes", "violating_rows"):
            assert got[key] == want[key], (key, got, want)
    sizes = pd.Series(classes.sizes).value_counts().sort_index()
    assert mine.size_counts.to_dict() == sizes.to_dict()
    # the worst classes: failing first, then the smallest, as in memory's table
    table = here.class_table
    order = table.assign(failing=table["violates"].astype(str) != "").sort_values(
        ["failing", "size", "age", "zip"], ascending=[False, True, True, True], kind="stable"
    )
    assert mine.class_table["size"].tolist() == order["size"].head(5).tolist()
    assert mine.class_table["violates"].tolist() == order["violates"].astype(str).head(5).tolist()
    # DR = 1 − H(T|K)/H(T) from the sums Σ n ln n
    n = len(frame)

    def entropy(sum_n_ln_n: float) -> float:
        return math.log(n) - sum_n_ln_n / n

    h_t = entropy(mine.n_ln_n["sa"])
    h_t_given_k = entropy(mine.n_ln_n["both"]) - entropy(mine.n_ln_n["qi"])
    assert 1 - h_t_given_k / h_t == pytest.approx(discrimination_rate(frame, qi, sa))


def test_the_worst_classes_are_named_by_their_values(tmp_path):
    frame = pd.DataFrame(
        {"zip": ["b", "b", "a", "c", "c", "c"], "disease": ["x", "y", "x", "x", "x", "y"]}
    )
    path = tmp_path / "release.csv"
    frame.to_csv(path, index=False)
    engine = DuckDBEngine(threads=1)
    from privcore.models import KAnonymity

    report = engine_class_report(engine, engine.scan(path), ["zip"], ["disease"], [KAnonymity(2)])
    table = report.class_table
    assert table["zip"].tolist() == ["a", "b", "c"]  # a fails k = 2; then b (2), c (3)
    assert table["size"].tolist() == [1, 2, 3]
    assert table["violates"].tolist() == ["k-anonymity", "", ""]
    assert table["disease · distinct"].tolist() == [1, 2, 2]
