"""The lattice chart reads on its own, and Home names its data set whole.

- The lattice chart names every node by its levels ("sex 0 · age 4 · …"), labels the
  chosen node and numbers the minimal satisfying nodes (text marks), says in its tooltip
  what each QI's level means and the node's figures, and zooms by default to the heights
  within two of the chosen node; "Whole lattice" shows every height.
- Home shows the data set's name as a line of text, not as a metric cut to a third of
  the page.
"""

from __future__ import annotations

import json
from types import SimpleNamespace

import pandas as pd
import pytest

from privcore.anonymize import anonymize
from privcore.anonymize.base import LatticeTrace
from privcore.data import load_sample
from privcore.models import KAnonymity
from privcore.words.catalog import text
from tests.app.conftest import ROOT, new_app, no_exceptions, open_tab
from ui.common import lattice as view

# --------------------------------------------------------------------------- a hand-made lattice


def hand_made(nodes: list[tuple[int, int]], satisfied: set[tuple[int, int]], chosen):
    """A lattice over two QIs, a (levels 0-2) and b (0-1), traced at ``nodes``."""
    frame = pd.DataFrame(nodes, columns=["a", "b"])
    frame["node"] = [f"({a}, {b})" for a, b in nodes]
    frame["height"] = frame["a"] + frame["b"]
    frame["status"] = ["satisfied" if n in satisfied else "not satisfied" for n in nodes]
    frame["order"] = range(len(nodes))
    frame["suppressed"] = 0.0
    frame["loss"] = float("nan")
    trace = LatticeTrace(("a", "b"), frame, chosen)
    return SimpleNamespace(lattice=trace, schema=None, algorithm="samarati", params={})


EVERY_NODE = [(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (2, 1)]
SATISFIED = {(2, 0), (0, 1), (1, 1), (2, 1)}


def marks(nodes: pd.DataFrame) -> dict[tuple[int, int], str]:
    return {(a, b): m for a, b, m in zip(nodes["a"], nodes["b"], nodes["mark"], strict=True) if m}


def test_minimal_nodes_of_a_hand_made_lattice():
    """(0,1) satisfies and its only lower node (0,0) fails: minimal, height 1, number 1
    and chosen. (2,0) satisfies, (1,0) fails: minimal, number 2. (1,1) has a satisfying
    lower node (0,1), (2,1) has (2,0): not minimal."""
    nodes = view.lattice_nodes(hand_made(EVERY_NODE, SATISFIED, (0, 1)))
    assert marks(nodes) == {(0, 1): "chosen (1)", (2, 0): "2"}
    assert nodes.loc[nodes["chosen"], "name"].tolist() == ["a 0 · b 1"]
    # without a hierarchy the tooltip gives the level of the QI's known height
    assert nodes.loc[nodes["chosen"], "level_0"].tolist() == ["level 0 of 2"]


def test_a_node_whose_lower_neighbour_was_not_traced_is_not_called_minimal():
    traced = [n for n in EVERY_NODE if n != (1, 0)]  # (2,0)'s only lower node unknown
    nodes = view.lattice_nodes(hand_made(traced, SATISFIED, (0, 1)))
    assert marks(nodes) == {(0, 1): "chosen (1)"}


def test_a_small_lattice_is_shown_whole_with_its_labels():
    release = hand_made(EVERY_NODE, SATISFIED, (2, 0))
    assert not view.lattice_zoomed(release)
    spec = view.lattice_chart(release).to_dict()
    (data,) = spec["datasets"].values()
    assert {row["mark"] for row in data if row["mark"]} == {"1", "chosen (2)"}
    assert spec["layer"][0]["encoding"]["y"]["scale"]["domain"] == [-0.6, 3.6]
    assert spec["layer"][0]["title"]["subtitle"][0] == "Chosen node: a 2 · b 0"


# --------------------------------------------------------------------------- Adult


@pytest.fixture(scope="module")
def adult_release():
    dataset, schema = load_sample("adult")
    return anonymize(dataset.frame, schema, [KAnonymity(5)], algorithm="optimal")


def minimal_by_sets(nodes: pd.DataFrame, qi: list[str]) -> set[tuple[int, ...]]:
    """The minimal satisfying nodes, the plain way: every lower neighbour is traced and
    fails."""
    status = {tuple(row[qi]): row["status"] for _, row in nodes.iterrows()}
    good = {"satisfied", "tagged satisfied"}
    minimal = set()
    for node, found in status.items():
        if found not in good:
            continue
        lower = [(*node[:q], node[q] - 1, *node[q + 1 :]) for q in range(len(qi)) if node[q]]
        if all(n in status and status[n] not in good for n in lower):
            minimal.add(node)
    return minimal


def status_layer(spec: dict) -> dict:
    """The lattice's nodes: the layer whose colour and shape both say the status."""
    return next(one for one in spec["layer"] if "shape" in one.get("encoding", {}))


def layer(spec: dict, mark: str, filtered: str | None = None) -> dict:
    return next(
        one
        for one in spec["layer"]
        if (one["mark"] if isinstance(one["mark"], str) else one["mark"]["type"]) == mark
        and (filtered is None or filtered in json.dumps(one.get("transform", [])))
    )


def test_adult_lattice_names_labels_and_zoom(adult_release):
    release = adult_release
    qi = list(release.qi)
    nodes = view.lattice_nodes(release)
    found = {tuple(row) for row in nodes.loc[nodes["minimal"], qi].to_numpy().tolist()}
    assert found == minimal_by_sets(release.lattice.nodes, qi)
    assert len(found) == 18
    assert tuple(release.node) in found

    spec = view.lattice_chart(release).to_dict()
    (data,) = spec["datasets"].values()
    chosen_height = sum(release.node)  # 0+4+1+2+3+2+0+0 = 12
    assert chosen_height == 12
    # zoomed by default: heights 10 to 14 only
    assert {row["height"] for row in data} == {10, 11, 12, 13, 14}
    points = status_layer(spec)
    assert points["encoding"]["y"]["scale"]["domain"] == [9.4, 14.6]
    assert "Heights 10–14 of 0–16: those near the chosen node" in points["title"]["subtitle"]
    # the chosen node by name, labelled, numbered with the minimal nodes
    name = "sex 0 · age 4 · race 1 · marital-status 2 · education 3 · native-country 2"
    assert " · ".join(points["title"]["subtitle"][:2]).startswith(f"Chosen node: {name}")
    labels = sorted(row["mark"] for row in data if row["mark"])
    assert labels == sorted(["chosen (1)", *map(str, range(2, 19))])
    for text_layer in (layer(spec, "text", "datum.above"), layer(spec, "text", "!datum.above")):
        assert text_layer["encoding"]["text"]["field"] == "mark"
    assert layer(spec, "point", "datum.chosen")["mark"]["size"] == 420
    # tooltip: the node, what every QI's level means, and its figures
    tooltip = points["encoding"]["tooltip"]
    assert [t["title"] for t in tooltip[1:9]] == qi
    assert {t["field"] for t in tooltip} >= {"name", "height", "status_label", "loss"}
    chosen_row = next(row for row in data if row["chosen"])
    assert chosen_row["level_0"] == "level 0 of 1: the original values (2)"  # sex
    assert chosen_row["level_1"] == "level 4 of 4: one value, *"  # age
    assert chosen_row["level_3"].startswith("level 2 of 2: ")  # marital-status
    assert chosen_row["status_label"] == "checked: satisfies"
    # the whole lattice on request
    whole = view.lattice_chart(release, whole=True).to_dict()
    (every,) = whole["datasets"].values()
    assert {row["height"] for row in every} == set(range(17))
    assert status_layer(whole)["encoding"]["y"]["scale"]["domain"] == [-0.6, 16.6]


def test_adult_lattice_in_chinese(adult_release, monkeypatch):
    monkeypatch.setattr("ui.common.i18n.current_language", lambda: "zh")
    monkeypatch.setattr("ui.common.lattice.current_language", lambda: "zh")
    spec = view.lattice_chart(adult_release).to_dict()
    points = status_layer(spec)
    assert points["title"]["subtitle"][0].startswith("选定节点：sex 0 · age 4")
    assert points["encoding"]["color"]["scale"]["domain"][0] == "已检查：满足"
    # the status by shape too, not by colour alone
    shape = points["encoding"]["shape"]
    assert shape["field"] == "status_label" and shape["scale"]["range"][:2] == ["circle", "cross"]
    (data,) = spec["datasets"].values()
    assert "选定（1）" in {row["mark"] for row in data}
    table = view.lattice_minimal_table(adult_release)
    assert list(table.columns[:2]) == ["编号", "选定"] and len(table) == 18


# --------------------------------------------------------------------------- pages


def lattice_specs(at) -> list[dict]:
    specs = [json.loads(chart.proto.spec) for chart in at.get("vega_lite_chart")]
    return [s for s in specs if "layer" in s and "Generalization lattice" in json.dumps(s)]


def test_the_anonymize_page_zooms_the_lattice_and_shows_it_whole_on_request():
    at = new_app()
    at.session_state["workbench"].active = "adult"
    at.switch_page(str(ROOT / "pages" / "anonymize.py"))
    at.run()
    at.button(key="an_run").click().run()
    no_exceptions(at)
    open_tab(at, "an_view", "Lattice")
    (spec,) = lattice_specs(at)
    # the default 5 % suppression limit lets lower nodes satisfy: heights 5–9 shown
    assert status_layer(spec)["encoding"]["y"]["scale"]["domain"] == [4.4, 9.6]
    assert any("410 minimal satisfying nodes" in c.value for c in at.caption)
    assert any("tick «Whole lattice»" in c.value for c in at.caption)
    assert any(e.label == "Minimal satisfying nodes (410)" for e in at.expander)
    whole = next(c for c in at.checkbox if c.label == text("layout.whole_lattice"))
    whole.check().run()
    no_exceptions(at)
    (spec,) = lattice_specs(at)
    assert status_layer(spec)["encoding"]["y"]["scale"]["domain"] == [-0.6, 16.6]
    assert not any("tick «Whole lattice»" in c.value for c in at.caption)


def test_home_names_the_data_set_in_a_line_not_a_metric():
    at = new_app()
    no_exceptions(at)
    name = "Adult (UCI census, 30,162 rows)"
    assert name not in [m.value for m in at.metric]
    line = [m.value for m in at.markdown if "Data set:" in m.value]
    assert line and "Adult (UCI census, 30,162 rows)" in line[0].replace("\\", "")
    assert [m.label for m in at.metric] == ["Rows", "Quasi-identifiers"]


def test_the_pl_matrix_is_a_readable_heatmap():
    """Releases × attributes with the value printed in every cell, names never cut (no
    label limit), a colour scale from 0 to 1 with its legend, a row height that reads."""
    import pandas as pd

    from ui.measure.view import pl_heatmap

    matrix = pd.DataFrame(
        {"sex": [0.1, 0.2], "native-country": [0.3, 0.0], "all": [0.5, 0.25]},
        index=["Optimal full-domain search k=5 · 04:07", "Mondrian k=5 · 04:09"],
    )
    spec = pl_heatmap(matrix).to_dict()
    cells, labels = spec["layer"]
    assert cells["mark"]["type"] == "rect" and labels["mark"]["type"] == "text"
    encoding = cells["encoding"]  # the shared x and y are in each layer
    assert encoding["x"]["axis"]["labelLimit"] == 0 and encoding["y"]["axis"]["labelLimit"] == 0
    assert encoding["x"]["sort"] == ["sex", "native-country", "all"]
    colour = cells["encoding"]["color"]
    assert colour["scale"]["domain"] == [0, 1] and colour["title"] == "PL"
    assert labels["encoding"]["text"]["format"] == ".3f"
    assert spec["height"] >= 48 * len(matrix)
