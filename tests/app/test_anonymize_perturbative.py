"""The Anonymize page's perturbative releases: their utility shown (English and Chinese),
and the comparison's risk-vs-utility chart, one point per algorithm (helpers checked
against hand-computed values)."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest
from streamlit.dataframe_util import convert_arrow_bytes_to_pandas_df

from tests.app.conftest import ROOT, new_app, no_exceptions

CHINESE = re.compile(r"[\u4e00-\u9fff]")


def open_page(active: str, lang: str = "en"):
    at = new_app()
    at.session_state["lang"] = lang
    at.session_state["workbench"].active = active
    at.switch_page(str(ROOT / "pages" / "anonymize.py"))
    at.run()
    return at


#: the first column's title of the utility table and of the regression table
FIRST_COLUMN = {
    "en": ("Quasi-identifier", "Coefficient"),
    "zh": ("准标识符", "系数"),
}


def table_headed(at, title: str) -> pd.DataFrame:
    (table,) = [d.value for d in at.dataframe if d.value.columns[0] == title]
    return table


def run_algorithm(at, algorithm: str, k: int):
    at.selectbox(key="an_algorithm").set_value(algorithm).run()
    at.slider(key="an_k").set_value(k).run()
    at.button(key="an_run").click().run()
    no_exceptions(at)
    assert not at.error, [e.value for e in at.error]
    return at


# --------------------------------------------------------------------------- helpers


def test_qi_cells_changed_is_the_mean_share_of_changed_cells_over_the_qis():
    from ui.anonymize.risk_utility import qi_cells_changed

    original = pd.DataFrame({"a": [1, 2, 3, 4], "b": ["x", "y", "x", "y"]})
    released = pd.DataFrame({"a": [1.0, "2", "*", "[3-4]"], "b": ["x", "z", "x", "y"]})
    # cells compared as text, 1.0 as "1": a: rows 2 and 3 changed (2/4); b: row 1
    # changed (1/4); mean (0.5 + 0.25) / 2
    assert qi_cells_changed(original, released, ["a", "b"]) == pytest.approx(0.375)
    assert qi_cells_changed(original, released, ["b"]) == pytest.approx(0.25)
    assert qi_cells_changed(original, original, ["a", "b"]) == 0.0


def test_reidentified_share_is_the_stronger_of_exact_and_distance_linkage():
    from ui.anonymize.risk_utility import reidentified_share

    original = pd.DataFrame({"a": [1, 2, 3, 3], "s": ["p", "q", "r", "t"]})
    # unchanged: persons 0 and 1 each match (and are nearest to) their own record only;
    # 2 and 3 tie with each other's record — by either attack 2 of 4
    assert reidentified_share(original, original, ["a"], ["s"]) == pytest.approx(0.5)
    # records 0 and 1 swapped their values: each of persons 0 and 1 matches one record,
    # the other's — a false match, nobody re-identified by either attack
    swapped = original.assign(a=[2, 1, 3, 3])
    assert reidentified_share(original, swapped, ["a"], ["s"]) == 0.0
    # a value moved by noise: the exact join finds nobody, the nearest record is still
    # person 0's own and unique, and 2.6 is person 1's: 2 of 4 by distance
    noised = original.assign(a=[1.2, 2.6, 3.0, 3.0])
    assert reidentified_share(original, noised, ["a"], ["s"]) == pytest.approx(0.5)


def test_close_points_get_labels_moved_apart_and_failing_releases_are_marked():
    from ui.anonymize.risk_utility import label_offsets, risk_utility_chart

    points = pd.DataFrame(
        {
            "algorithm": ["A", "B", "C", "D"],
            "changed": [0.10, 0.12, 0.50, 0.11],
            "reidentified": [0.0, 0.01, 0.0, 0.02],
            "satisfied": [True, False, True, True],
        }
    )
    assert label_offsets(points) == [0, 13, 0, 26]
    spec = risk_utility_chart(points).to_dict()
    (data,) = spec["datasets"].values()
    assert [d["status"] for d in data] == [
        "Constraints met",
        "Constraints not met (not a candidate)",
        "Constraints met",
        "Constraints met",
    ]
    assert [d["dy"] for d in data] == [-7, 6, -7, 19]


def test_comparison_points_leave_out_refused_algorithms_and_feed_the_chart():
    from ui.anonymize.comparison import comparison_points
    from ui.anonymize.risk_utility import risk_utility_chart

    table = pd.DataFrame(
        [
            {
                "algorithm": "Datafly",
                "changed": 1.0,
                "reidentified": 0.0,
                "k": 3,
                "satisfied": True,
            },
            {"algorithm": "KACA", "changed": None, "reidentified": None, "k": None, "error": "x"},
            {"algorithm": "PRAM", "changed": 0.25, "reidentified": 0.5, "k": 1, "satisfied": False},
        ]
    )
    points = comparison_points(table)
    assert list(points.columns) == ["algorithm", "changed", "reidentified", "satisfied"]
    assert points.to_dict("records") == [
        {"algorithm": "Datafly", "changed": 1.0, "reidentified": 0.0, "satisfied": True},
        {"algorithm": "PRAM", "changed": 0.25, "reidentified": 0.5, "satisfied": False},
    ]
    assert comparison_points(pd.DataFrame()).empty
    spec = risk_utility_chart(points).to_dict()
    (data,) = spec["datasets"].values()
    assert [(d["algorithm"], d["changed"], d["reidentified"]) for d in data] == [
        ("Datafly", 1.0, 0.0),
        ("PRAM", 0.25, 0.5),
    ]
    layers = spec["layer"]
    assert {layer["mark"]["type"] for layer in layers} == {"point", "text"}


def test_utility_tables_from_a_utility_dict():
    from ui.anonymize.risk_utility import correlation_summary, regression_table, utility_table

    utility = {
        "numeric": {
            "age": {
                "mean_absolute_change": 1.5,
                "mean_relative_change": 0.04,
                "changed_share": 0.75,
            }
        },
        "categorical": {"sex": {"changed_share": 0.1}},
        "correlation": {"max_abs_difference": 0.2, "mean_abs_difference": 0.1},
        "regression": {
            "target": "age",
            "predictors": ["hours"],
            "original": {"coefficients": {"intercept": 30.0, "hours": 0.5}},
            "released": {"coefficients": {"intercept": 31.0, "hours": 0.4}},
            "interval_overlap": {"intercept": 0.9, "hours": -0.2},
            "mean_interval_overlap": 0.35,
        },
    }
    table = utility_table(utility, ["sex", "age", "zip"])  # zip: no figures, no row
    assert table.iloc[:, 0].tolist() == ["sex", "age"]
    assert table.iloc[1, 1:].tolist() == [1.5, 0.04, 0.75]
    assert table.iloc[0, 3] == 0.1 and pd.isna(table.iloc[0, 1])
    assert correlation_summary(utility) == (0.2, 0.1)
    assert correlation_summary({"correlation": None}) is None
    regression = regression_table(utility)
    assert regression.values.tolist() == [["intercept", 30.0, 31.0, 0.9], ["hours", 0.5, 0.4, -0.2]]
    assert regression_table({"regression": None}) is None


# --------------------------------------------------------------------------- the page


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_mdav_shows_its_utility_in_both_languages(lang):
    # ZIP is a code, which MDAV does not average: the measured QIs are Age and Salary
    at = open_page("hospital", lang)
    bench = at.session_state["workbench"]
    bench.confirmed["hospital"] = (
        bench.schema("hospital")
        .with_role("ZIP", "insensitive")
        .with_role("Salary", "quasi_identifier")
    )
    at = run_algorithm(at.run(), "mdav", 3)
    release = at.session_state["workbench"].last_release
    assert release.algorithm == "mdav" and release.utility is not None
    utility = release.utility
    table = table_headed(at, FIRST_COLUMN[lang][0])
    assert table.iloc[:, 0].tolist() == ["Age", "Salary"]
    age = utility["numeric"]["Age"]
    assert table.iloc[0, 1:].tolist() == pytest.approx(
        [age["mean_absolute_change"], age["mean_relative_change"], age["changed_share"]]
    )
    regression = table_headed(at, FIRST_COLUMN[lang][1])
    assert regression.iloc[:, 0].tolist() == ["intercept", "Salary"]
    assert regression.iloc[:, 3].tolist() == pytest.approx(
        list(utility["regression"]["interval_overlap"].values())
    )
    shown = {m.label: m for m in at.metric}
    titles = {
        "en": ("Largest correlation change", "Mean interval overlap", "Mean absolute change"),
        "zh": ("相关系数的最大变化", "平均区间重叠度", "平均绝对变化"),
    }[lang]
    assert titles[0] in shown and titles[1] in shown
    assert shown[titles[0]].value == f"{utility['correlation']['max_abs_difference']:.3f}"
    assert titles[2] in table.columns
    if lang == "zh":
        assert all(CHINESE.search(m.help or "") for m in shown.values() if m.label in titles)
    # its population-level risk: the four figures of the Privacy level page's risk section
    figures = release.population_risk
    risk_titles = {
        "en": ("Expected re-identifications", "SUDA2 special uniques"),
        "zh": ("预期重识别数", "SUDA2 特殊唯一记录"),
    }[lang]
    expected = figures["individual_risk"]["expected_reidentifications"]
    assert shown[risk_titles[0]].value == f"{expected:.2f}"
    assert shown[risk_titles[1]].value == str(figures["suda2"]["special_uniques"])
    title = {"en": "Population-level risk", "zh": "总体层面风险"}[lang]
    assert any(title in m.value for m in at.markdown)


def test_mdav_on_adult_tables_every_quasi_identifier():
    at = open_page("adult")
    # 3,940 records lie in combinations of the categorical QIs with fewer than 5: they
    # are suppressed, which a limit of 13.1 % allows (at 0 % MDAV refuses in words)
    at.slider(key="an_sup").set_value(13.5).run()
    at = run_algorithm(at, "mdav", 5)
    assert at.session_state["workbench"].last_release.n_suppressed == 3940
    table = table_headed(at, FIRST_COLUMN["en"][0])
    assert table.iloc[:, 0].tolist() == list(at.session_state["workbench"].last_release.qi)
    assert len(table) == 8
    captions = " ".join(c.value for c in at.caption)
    assert "No correlation figures" in captions  # Adult has one numeric QI


def test_the_comparison_places_each_algorithm_on_risk_vs_utility():
    at = open_page("hospital")
    # on Age: ZIP is a code, one stratum per ZIP to MDAV (nine records, nine ZIPs)
    at.multiselect(key="an_qi").set_value(["Age"]).run()
    at.slider(key="an_k").set_value(3).run()
    at.multiselect(key="an_compare").set_value(["datafly", "mdav", "rank_swap"]).run()
    at.button(key="an_compare_run").click().run()
    no_exceptions(at)
    table = next(d.value for d in at.dataframe if "seconds" in d.value.columns)
    assert list(table["algorithm"]) == ["Datafly", "MDAV microaggregation", "Rank swapping"]
    (data,) = [
        convert_arrow_bytes_to_pandas_df(dataset.data.data).to_dict("records")
        for chart in at.get("vega_lite_chart")
        if "layer" in json.loads(chart.proto.spec)
        for dataset in chart.proto.datasets
    ]
    assert [d["algorithm"] for d in data] == list(table["algorithm"])  # one point each
    assert [d["changed"] for d in data] == pytest.approx(list(table["changed"]))
    assert [d["reidentified"] for d in data] == pytest.approx(list(table["reidentified"]))
    # Datafly generalizes every Age cell at k = 3; MDAV replaces each by its group's
    # mean (47.33, 26, 32.67: no age of the group): every cell changed, no exact match
    assert (data[0]["changed"], data[0]["reidentified"]) == (1.0, 0.0)
    assert (data[1]["changed"], data[1]["reidentified"]) == (1.0, 0.0)
    assert 0.0 <= data[2]["changed"] <= 1.0 and 0.0 <= data[2]["reidentified"] <= 1.0
