"""The counting behind the lattice searches and KACA: frequency sets grouped in place or
by hashing, the losses read from the classes alone, Incognito's tagging of a subset's
lattice, and KACA's tie threshold and level-by-level merge weights — against hand-computed
values and the slower paths they replace."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from privcore.anonymize.base import prepare
from privcore.anonymize.frequency_sets import frequency_groups
from privcore.anonymize.kaca_classes import near_threshold
from privcore.anonymize.kaca_nodes import QiNodes
from privcore.anonymize.lattice import LOSS_METRICS
from privcore.models import KAnonymity
from tests.unit.test_fulldomain import every_node, new_lattice, random_case
from tests.unit.test_kaca import random_table

fulldomain = importlib.import_module("privcore.anonymize.fulldomain")
frequency_sets = importlib.import_module("privcore.anonymize.frequency_sets")

# Rows (0, 1), (1, 1), (0, 1), (2, 0) with 1, 2, 3, 4 records: groups in order of their
# first row — (0, 1) rows 0 and 2, 1 + 3 = 4 records; (1, 1) row 1, 2; (2, 0) row 3, 4.
KEYS = [np.array([0, 1, 0, 2]), np.array([1, 1, 1, 0])]
WEIGHTS = np.array([1, 2, 3, 4], dtype=np.int64)


def test_groups_counted_in_place_are_the_hand_computed_ones():
    first, counts = frequency_groups(KEYS, [3, 2], WEIGHTS)  # 6 combinations: in place
    assert first.tolist() == [0, 1, 3]
    assert counts.tolist() == [4, 2, 4]
    assert counts.dtype == np.int64


def test_groups_by_hashing_are_the_same(monkeypatch):
    from privcore.classes import rows

    monkeypatch.setattr(rows, "DENSE_SPAN", 1)  # every span is hashed
    first, counts = frequency_groups(KEYS, [3, 2], WEIGHTS)
    assert first.tolist() == [0, 1, 3]
    assert counts.tolist() == [4, 2, 4]


@pytest.mark.parametrize("seed", range(4))
def test_losses_from_the_classes_equal_those_of_the_full_frequency_sets(seed):
    """With k-anonymity alone a node's loss is read from its class frequency set (no
    sensitive values): the same float as from the full frequency set, for every metric
    and every node."""
    df, schema = random_case(seed)
    lattice = new_lattice(df, schema, [KAnonymity(2)], 0.2)
    assert lattice._sizes_decide
    for node in every_node(lattice):
        lattice.check(node)
        full = lattice.evaluate(node)
        for metric in LOSS_METRICS:
            assert lattice.loss(node, metric) == lattice._metrics.loss(full, metric)
            assert lattice.no_suppression_loss(node, metric) == lattice._metrics.loss(
                full, metric, suppress=False
            )


def test_generalizations_are_the_nodes_above_a_marked_one():
    """Levels (2 × 3): (0, 1) marked; above it (0, 1), (0, 2), (1, 1), (1, 2)."""
    marked = np.zeros((2, 3), dtype=bool)
    marked[0, 1] = True
    assert fulldomain._generalizations(marked).tolist() == [
        [False, True, True],
        [False, True, True],
    ]


def test_minimal_nodes_have_no_satisfying_node_one_level_below():
    """Satisfying (0, 2), (1, 0), (1, 1), (1, 2): (1, 1) is above (1, 0), (1, 2) above
    (0, 2) and (1, 1); the minimal ones by height then lexicographically: (1, 0), (0, 2)."""
    satisfied = np.array([[False, False, True], [True, True, True]])
    assert fulldomain._minimal(satisfied) == [(1, 0), (0, 2)]


def test_tie_threshold_is_relative_above_one():
    assert near_threshold(0.5) == 0.5 + 1e-9
    assert near_threshold(2.0) == 2.0 + 2e-9
    assert near_threshold(-4.0) == -4.0 + 4e-9


@pytest.mark.parametrize("seed", [1, 2])
def test_merge_weights_level_by_level_equal_the_table(seed):
    """The WHD of two nodes' common ancestor compared label by label equals the
    node-pair table, for every pair and for one node against all."""
    frame, schema = random_table(seed, 80, 2, missing=True)
    problem = prepare(
        frame, schema, [KAnonymity(2)], max_suppression=0.0, seed=0, need_hierarchies=True
    )
    for name in problem.qi:
        qi = QiNodes(name, problem, 1.0)
        nodes = np.arange(qi.n_nodes)
        a, b = np.meshgrid(nodes, nodes, indexing="ij")
        pairs = qi.merged_weights(a.ravel(), b.ravel()).reshape(a.shape)
        np.testing.assert_array_equal(pairs, qi.merge_weight)
        np.testing.assert_array_equal(qi.merged_weights(nodes[-1], nodes), qi.merge_weight[-1])
