"""Full-domain anonymization (SPEC §4): Datafly, Samarati, Incognito, the optimal search.

Brute force on small random tables: every node of the lattice is checked, and the
algorithms' answers — Incognito's minimal nodes, ``classify``'s satisfaction of every
node, the optimal node's loss, Samarati's height — are compared with the enumeration.
The lattice's own checks are compared with a direct group-by of the generalized table,
and the loss it computes with the independent measurement of the release.
Then the hand-checked hospital table of SPEC §2, and the errors.

Tables: 2–3 integer QIs with domains of 2–6 values (in every third table about 10 % of
the QI cells missing), each with a random nested hierarchy of height 1–3 whose labels
differ from level to level (so a released cell names its level unambiguously); one
categorical SA with a hierarchy; 12–40 rows.
"""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pandas as pd
import pytest

from privcore.anonymize import FULL_DOMAIN, anonymize
from privcore.anonymize.base import prepare
from privcore.anonymize.fulldomain import classify, minimal_satisfying_nodes
from privcore.anonymize.lattice import LOSS_METRICS, Lattice
from privcore.classes import equivalence_classes
from privcore.data.hierarchy import Hierarchy
from privcore.data.samples import load_sample
from privcore.data.schema import Schema
from privcore.errors import HierarchyError, InfeasibleError, ParameterError, RoleError
from privcore.measure.report import measure_release
from privcore.models import (
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    RecursiveCLDiversity,
    TCloseness,
)

Q, S, ID = "quasi_identifier", "sensitive", "identifier"
TOL = 1e-9
SEEDS = range(10)
SA_VALUES = ["flu", "ulcer", "asthma", "cancer"]
SA_HIERARCHY = Hierarchy(
    [
        ["flu", "respiratory", "*"],
        ["asthma", "respiratory", "*"],
        ["ulcer", "digestive", "*"],
        ["cancer", "digestive", "*"],
    ],
    name="s",
)

# Constraint sets and suppression limits. With a budget, "satisfied within the budget"
# is monotone under generalization only for k-anonymity and distinct l-diversity; for
# entropy l, recursive (c,l) and t it is not (merging a passing class with a failing one
# can fail), so the searches may not prune there (the "-sup" cases of those models).
CASES = {
    "k3": ([KAnonymity(3)], 0.0),
    "k3-sup": ([KAnonymity(3)], 0.1),
    "k2-distinct2-sup": ([KAnonymity(2), DistinctLDiversity(2)], 0.1),
    "k2-entropy1.5": ([KAnonymity(2), EntropyLDiversity(1.5)], 0.0),
    "recursive-3-2": ([RecursiveCLDiversity(3.0, 2)], 0.0),
    "t-hierarchical": ([KAnonymity(2), TCloseness(0.3, "hierarchical")], 0.0),
    "t-equal": ([TCloseness(0.35, "equal")], 0.0),
    "entropy1.5-sup": ([KAnonymity(2), EntropyLDiversity(1.5)], 0.25),
    "recursive-2-2-sup": ([RecursiveCLDiversity(2.0, 2)], 0.25),
    "t-equal-sup": ([TCloseness(0.25, "equal")], 0.2),
}


# --------------------------------------------------------------------------- helpers


def nested_hierarchy(rng: random.Random, name: str, domain: int, height: int) -> Hierarchy:
    """Leaves 0..domain-1; each inner level groups the groups of the level below at
    random; the top is ``*``. Labels name their level (``q0.L1.g2``)."""
    columns = [[str(v) for v in range(domain)]]
    groups = list(range(domain))
    n_groups = domain
    for level in range(1, height):
        n_up = rng.randint(1, n_groups)
        parent = [rng.randrange(n_up) for _ in range(n_groups)]
        groups = [parent[g] for g in groups]
        renumber = {g: i for i, g in enumerate(sorted(set(groups)))}
        groups = [renumber[g] for g in groups]
        n_groups = len(renumber)
        columns.append([f"{name}.L{level}.g{g}" for g in groups])
    columns.append(["*"] * domain)
    return Hierarchy([list(row) for row in zip(*columns, strict=True)], name=name)


def random_case(seed: int) -> tuple[pd.DataFrame, Schema]:
    """A random small table (see the module docstring), with an identifier column."""
    rng = random.Random(seed)
    n = rng.randint(12, 40)
    n_qi = rng.randint(2, 3)
    data: dict[str, list] = {"id": [f"p{i}" for i in range(n)]}
    roles = {"id": ID}
    hierarchies = {"s": SA_HIERARCHY}
    for q in range(n_qi):
        name = f"q{q}"
        domain = rng.randint(2, 6)
        data[name] = [rng.randrange(domain) for _ in range(n)]
        hierarchies[name] = nested_hierarchy(rng, name, domain, rng.randint(1, 3))
        roles[name] = Q
    m = rng.randint(2, 4)
    data["s"] = [SA_VALUES[i % 2] for i in range(2)] + [
        SA_VALUES[rng.randrange(m)] for _ in range(n - 2)
    ]
    roles["s"] = S
    frame = pd.DataFrame(data)
    if seed % 3 == 2:  # some QI cells missing: one value of their own below the top
        for q in range(n_qi):
            missing = np.array([rng.random() < 0.1 for _ in range(n)])
            frame[f"q{q}"] = frame[f"q{q}"].astype(float).mask(missing)
    return frame, Schema(roles, hierarchies)


def new_lattice(df, schema, constraints, max_suppression) -> Lattice:
    problem = prepare(
        df,
        schema,
        constraints,
        max_suppression=max_suppression,
        seed=0,
        need_hierarchies=True,
    )
    return Lattice(problem)


def every_node(lattice: Lattice) -> list[tuple[int, ...]]:
    return list(itertools.product(*[range(h + 1) for h in lattice.heights]))


def brute_force(lattice: Lattice) -> dict[tuple[int, ...], bool]:
    return {node: lattice.evaluate(node).satisfied for node in every_node(lattice)}


def below(node: tuple[int, ...]) -> list[tuple[int, ...]]:
    """The nodes one level lower in one QI."""
    return [
        tuple(v - (j == i) for j, v in enumerate(node)) for i in range(len(node)) if node[i] > 0
    ]


def minimal_of(satisfied: dict[tuple[int, ...], bool]) -> set[tuple[int, ...]]:
    return {n for n, ok in satisfied.items() if ok and not any(satisfied[b] for b in below(n))}


def direct_check(df, schema, constraints, max_suppression, node) -> bool:
    """Satisfaction of ``node`` without the lattice: generalize the table with the
    hierarchies, group it, check the models on the classes, count violating rows."""
    qi = schema.quasi_identifiers
    frame = df.copy()
    for column, level in zip(qi, node, strict=True):
        frame[column] = schema.hierarchies[column].generalize_values(df[column], level)
    classes = equivalence_classes(frame, qi, schema.sensitive, hierarchies=schema.hierarchies)
    failing = np.zeros(classes.n_classes, dtype=bool)
    for model in constraints:
        failing |= ~model.class_pass(classes)
    # (equivalence_classes sets rows at '*' in every QI aside: the group below has them)
    violating_rows = np.append(failing, False)[classes.ids]
    violating = int(violating_rows.sum())
    # The released file: violating rows at '*'. Its rows at '*' in every QI (those and
    # a class generalized to '*') are one group: a class if it meets every model as one
    # class, else suppressed — and then all of it counts against the budget.
    released = frame.copy()
    for column in qi:
        cells = released[column].astype(object).to_numpy(copy=True)
        cells[violating_rows] = "*"
        released[column] = cells
    top = (released[qi].astype(object) == "*").all(axis=1).to_numpy()
    suppressed = 0
    if top.any():
        group = equivalence_classes(
            released.assign(_one=np.where(top, "top", "other")),
            ["_one"],
            schema.sensitive,
            hierarchies=schema.hierarchies,
        )
        top_class = int(group.ids[np.flatnonzero(top)[0]])
        passes = all(bool(model.class_pass(group)[top_class]) for model in constraints)
        suppressed = 0 if passes else int(top.sum())
    budget = math.floor(max_suppression * len(df) + 1e-9)
    return violating <= budget and suppressed <= budget


def measured_losses(df, release_frame, schema, constraints, blanked=None) -> dict[str, float]:
    """The release measured by privcore.measure (not the lattice), keyed like
    Lattice.loss's metrics; ``blanked``: the rows the lattice suppressed."""
    measurement = measure_release(
        df.drop(columns=schema.identifiers),
        release_frame,
        qi=schema.quasi_identifiers,
        sa=schema.sensitive,
        models=constraints,
        hierarchies=schema.hierarchies,
        blanked=blanked,
    )
    return {
        "ncp": measurement.loss["gcp"],
        "whd": measurement.loss["whd_mean"],
        "discernibility": measurement.loss["discernibility"],
        "ul": 1.0 - measurement.ul,
    }


def check_release(release, df, schema, constraints, max_suppression) -> None:
    """The basic guarantees on an algorithm's own release: measured as
    satisfying, identifiers removed, rows kept, budget honoured, and the lattice's loss
    of the chosen node equal to the independent measurement (release.loss) — the top
    node included, its one all-'*' class being a class."""
    assert release.measurement.models.satisfied
    assert "id" not in release.frame.columns
    assert release.removed == ("id",)
    assert len(release.frame) == len(df)
    assert release.n_suppressed <= math.floor(max_suppression * len(df) + 1e-9)
    lattice = new_lattice(df, schema, constraints, max_suppression)
    assert release.n_suppressed == lattice.evaluate(release.node).suppressed_rows
    measured = {
        "ncp": release.loss["gcp"],
        "whd": release.loss["whd_mean"],
        "discernibility": release.loss["discernibility"],
        "ul": 1.0 - release.measurement.ul,
    }
    for metric in LOSS_METRICS:
        assert lattice.loss(release.node, metric) == pytest.approx(measured[metric], abs=TOL), (
            release.algorithm,
            metric,
        )


CASE_PARAMS = [
    pytest.param(seed, case, id=f"seed{seed}-{case}") for seed in SEEDS for case in CASES
]


def _case(seed: int, case: str):
    df, schema = random_case(seed)
    constraints, max_suppression = CASES[case]
    return df, schema, constraints, max_suppression


# --------------------------------------------------------------------------- brute force


@pytest.mark.parametrize(("seed", "case"), CASE_PARAMS)
def test_lattice_checks_match_a_direct_group_by(seed, case):
    """Lattice.evaluate (rolled-up frequency sets, cached) agrees with generalizing the
    table and grouping it, whatever the order nodes are evaluated in."""
    df, schema, constraints, max_suppression = _case(seed, case)
    lattice = new_lattice(df, schema, constraints, max_suppression)
    nodes = every_node(lattice)
    random.Random(seed).shuffle(nodes)  # roll-ups from varying cached predecessors
    for node in nodes:
        expected = direct_check(df, schema, constraints, max_suppression, node)
        assert lattice.evaluate(node).satisfied == expected, node


@pytest.mark.parametrize(("seed", "case"), CASE_PARAMS)
def test_incognito_returns_exactly_the_minimal_satisfying_nodes(seed, case):
    df, schema, constraints, max_suppression = _case(seed, case)
    expected = minimal_of(brute_force(new_lattice(df, schema, constraints, max_suppression)))
    got = minimal_satisfying_nodes(new_lattice(df, schema, constraints, max_suppression))
    assert len(got) == len(set(got))
    assert set(got) == expected
    if expected:
        release = anonymize(
            df, schema, constraints, algorithm="incognito", max_suppression=max_suppression
        )
        assert release.node in expected
        check_release(release, df, schema, constraints, max_suppression)
        assert sorted(map(tuple, release.params["minimal_nodes"])) == sorted(expected)
    else:
        with pytest.raises(InfeasibleError):
            anonymize(
                df, schema, constraints, algorithm="incognito", max_suppression=max_suppression
            )


@pytest.mark.parametrize(("seed", "case"), CASE_PARAMS)
def test_classify_matches_brute_force_for_every_node(seed, case):
    df, schema, constraints, max_suppression = _case(seed, case)
    expected = brute_force(new_lattice(df, schema, constraints, max_suppression))
    lattice = new_lattice(df, schema, constraints, max_suppression)
    got = classify(lattice)
    assert got.dtype == bool
    assert len(got) == lattice.size == len(expected)
    for row, value in zip(lattice.levels_matrix, got, strict=True):
        node = tuple(int(v) for v in row)
        assert bool(value) == expected[node], node


@pytest.mark.parametrize(("seed", "case"), CASE_PARAMS)
def test_optimal_has_the_least_loss_of_all_satisfying_nodes(seed, case):
    df, schema, constraints, max_suppression = _case(seed, case)
    satisfied = brute_force(new_lattice(df, schema, constraints, max_suppression))
    candidates = [n for n, ok in satisfied.items() if ok]
    for metric in LOSS_METRICS:
        if not candidates:
            with pytest.raises(InfeasibleError):
                anonymize(
                    df,
                    schema,
                    constraints,
                    algorithm="optimal",
                    max_suppression=max_suppression,
                    loss_metric=metric,
                )
            continue
        reference = new_lattice(df, schema, constraints, max_suppression)
        best = min(reference.loss(n, metric) for n in candidates)
        release = anonymize(
            df,
            schema,
            constraints,
            algorithm="optimal",
            max_suppression=max_suppression,
            loss_metric=metric,
        )
        assert satisfied[release.node], (metric, release.node)
        assert reference.loss(release.node, metric) == pytest.approx(best, abs=TOL), metric
        assert release.params["loss"] == pytest.approx(best, abs=TOL)
        assert release.params["satisfying_nodes"] == len(candidates)
        check_release(release, df, schema, constraints, max_suppression)


@pytest.mark.parametrize(("seed", "case"), CASE_PARAMS)
def test_samarati_picks_the_lowest_satisfying_height_and_its_least_loss(seed, case):
    df, schema, constraints, max_suppression = _case(seed, case)
    satisfied = brute_force(new_lattice(df, schema, constraints, max_suppression))
    heights = [sum(n) for n, ok in satisfied.items() if ok]
    if not heights:
        with pytest.raises(InfeasibleError):
            anonymize(
                df, schema, constraints, algorithm="samarati", max_suppression=max_suppression
            )
        return
    lowest = min(heights)
    at_lowest = sorted(n for n, ok in satisfied.items() if ok and sum(n) == lowest)
    for metric in LOSS_METRICS:
        release = anonymize(
            df,
            schema,
            constraints,
            algorithm="samarati",
            max_suppression=max_suppression,
            loss_metric=metric,
        )
        assert sum(release.node) == lowest == release.params["height"]
        assert satisfied[release.node]
        assert sorted(map(tuple, release.params["candidates"])) == at_lowest
        reference = new_lattice(df, schema, constraints, max_suppression)
        best = min(reference.loss(n, metric) for n in at_lowest)
        assert reference.loss(release.node, metric) == pytest.approx(best, abs=TOL), metric
        check_release(release, df, schema, constraints, max_suppression)


@pytest.mark.parametrize(("seed", "case"), CASE_PARAMS)
def test_datafly_generalizes_the_qi_with_most_distinct_values(seed, case):
    """Replay Datafly by hand: from the bottom, raise the open QI with the most distinct
    generalized values (first in schema order on ties) until the node satisfies."""
    df, schema, constraints, max_suppression = _case(seed, case)
    satisfied = brute_force(new_lattice(df, schema, constraints, max_suppression))
    qi = schema.quasi_identifiers
    node = [0] * len(qi)
    steps = []
    while not satisfied[tuple(node)]:
        distinct = [
            schema.hierarchies[c].generalize_values(df[c], node[i]).nunique(dropna=False)
            if node[i] < schema.hierarchies[c].height
            else -1
            for i, c in enumerate(qi)
        ]
        if max(distinct) < 0:
            node = None
            break
        choice = distinct.index(max(distinct))
        steps.append({"qi": qi[choice], "distinct": distinct[choice]})
        node[choice] += 1
    if node is None:
        with pytest.raises(InfeasibleError):
            anonymize(df, schema, constraints, algorithm="datafly", max_suppression=max_suppression)
        return
    release = anonymize(
        df, schema, constraints, algorithm="datafly", max_suppression=max_suppression
    )
    assert release.node == tuple(node)
    assert release.params["steps"] == steps
    check_release(release, df, schema, constraints, max_suppression)


@pytest.mark.parametrize(("seed", "case"), CASE_PARAMS)
def test_lattice_loss_agrees_with_the_measured_release(seed, case):
    """For every satisfying node: the release the lattice builds is the node's
    generalization (violating classes suppressed), and the loss the lattice computes
    equals the independent measurement (GCP, WHD mean, discernibility, 1 − UL) — the
    rows it suppressed counted as suppressed rows, a class at '*' in every QI as a
    class, the top node included."""
    df, schema, constraints, max_suppression = _case(seed, case)
    lattice = new_lattice(df, schema, constraints, max_suppression)
    qi = schema.quasi_identifiers
    for node, ok in brute_force(lattice).items():
        if not ok:
            continue
        frame, suppressed = lattice.release(node)
        assert len(frame) == len(df)
        assert int(suppressed.sum()) == lattice.evaluate(node).violating_rows
        for column, level in zip(qi, node, strict=True):
            expected = schema.hierarchies[column].generalize_values(df[column], level)
            cells = frame[column].astype(object).to_numpy()
            assert (cells[suppressed] == "*").all()
            released = pd.Series(cells[~suppressed], dtype=object)
            wanted = pd.Series(expected.to_numpy(dtype=object)[~suppressed], dtype=object)
            assert released.isna().tolist() == wanted.isna().tolist()  # missing stays missing
            assert released.dropna().tolist() == wanted.dropna().tolist()
        measured = measured_losses(
            df, frame.drop(columns=["id"]), schema, constraints, blanked=suppressed
        )
        for metric in LOSS_METRICS:
            assert lattice.loss(node, metric) == pytest.approx(measured[metric], abs=TOL), (
                node,
                metric,
            )


# --------------------------------------------------------------------------- regressions


def _non_monotone_case():
    """Entropy 2-diversity with one row of suppression allowed (7 rows, budget 1).

    QI ``a`` (hierarchy 0,1 → A; 2 → B; then *), QI ``b`` constant (height 1).
    At the bottom (and at (0, 1): b is constant) the classes are a=0 [x, y] (entropy
    ln 2), a=1 [x] (fails, 1 row), a=2 [x, y, x, y] (ln 2): 1 violating row ≤ budget,
    so (0, 0) satisfies. One level up A = [x, y, x] fails (3 rows), and the top (4 x,
    3 y) fails (7 rows): merging a passing class with a failing one can fail, so with
    suppression the model is not monotone: no node with a > 0 satisfies, although
    (0, 0) does. A search that tags by monotonicity (the top fails ⇒ every node fails;
    a projection fails ⇒ the full node fails) wrongly finds nothing.
    """
    df = pd.DataFrame(
        {
            "a": [0, 0, 1, 2, 2, 2, 2],
            "b": [0, 0, 0, 0, 0, 0, 0],
            "s": ["x", "y", "x", "x", "y", "x", "y"],
        }
    )
    schema = Schema(
        {"a": Q, "b": Q, "s": S},
        {
            "a": Hierarchy([["0", "A", "*"], ["1", "A", "*"], ["2", "B", "*"]], name="a"),
            "b": Hierarchy([["0", "*"]], name="b"),
        },
    )
    return df, schema, [EntropyLDiversity(2)], 0.15


def test_non_monotone_case_is_what_it_claims():
    df, schema, constraints, max_suppression = _non_monotone_case()
    satisfied = brute_force(new_lattice(df, schema, constraints, max_suppression))
    # b is constant: raising it alone changes no class.
    assert {n for n, ok in satisfied.items() if ok} == {(0, 0), (0, 1)}
    assert len(satisfied) == 6
    release = anonymize(
        df, schema, constraints, algorithm="datafly", max_suppression=max_suppression
    )
    assert release.node == (0, 0)
    assert release.n_suppressed == 1
    assert release.measurement.models.satisfied


@pytest.mark.parametrize("algorithm", FULL_DOMAIN)
def test_non_monotone_models_with_suppression(algorithm):
    """Found while writing these tests: Samarati (top checked first), Incognito (subset
    pruning) and the optimal search (classify) raised InfeasibleError here."""
    df, schema, constraints, max_suppression = _non_monotone_case()
    release = anonymize(
        df, schema, constraints, algorithm=algorithm, max_suppression=max_suppression
    )
    assert release.node == (0, 0)
    assert release.n_suppressed == 1
    assert release.measurement.models.satisfied


def test_classify_non_monotone_with_suppression():
    df, schema, constraints, max_suppression = _non_monotone_case()
    lattice = new_lattice(df, schema, constraints, max_suppression)
    got = classify(lattice)
    for row, value in zip(lattice.levels_matrix, got, strict=True):
        assert bool(value) == (row[0] == 0), row
    lattice = new_lattice(df, schema, constraints, max_suppression)
    assert minimal_satisfying_nodes(lattice) == [(0, 0)]


def _missing_qi_case():
    df = pd.DataFrame({"a": [0, 0, 1, 1, None, None], "b": [0, 1, 0, 1, 0, 1], "s": list("xyxyxy")})
    schema = Schema(
        {"a": Q, "b": Q, "s": S},
        {
            "a": Hierarchy([["0", "A", "*"], ["1", "A", "*"]], name="a"),
            "b": Hierarchy([["0", "B", "*"], ["1", "B", "*"]], name="b"),
        },
    )
    return df, schema, [KAnonymity(2)]


def test_missing_qi_values_ncp_discernibility_ul_agree():
    df, schema, constraints = _missing_qi_case()
    lattice = new_lattice(df, schema, constraints, 0.0)
    frame, _ = lattice.release((1, 1))
    measured = measured_losses(df, frame, schema, constraints)
    for metric in ("ncp", "discernibility", "ul"):
        assert lattice.loss((1, 1), metric) == pytest.approx(measured[metric], abs=TOL)


def test_missing_qi_values_whd_agrees_with_measurement():
    """Found while writing these tests: the lattice charged a missing cell the node's
    WHD, while the measurement (and the lattice's own NCP) leaves it ungeneralized."""
    df, schema, constraints = _missing_qi_case()
    lattice = new_lattice(df, schema, constraints, 0.0)
    frame, _ = lattice.release((1, 1))
    measured = measured_losses(df, frame, schema, constraints)
    # measured: rows 0–3 cost WHD(a→A) + WHD(b→B) = 2/3 each, rows 4–5 (a missing) 1/3.
    assert measured["whd"] == pytest.approx((4 * 2 / 3 + 2 * 1 / 3) / 6, abs=TOL)
    assert lattice.loss((1, 1), "whd") == pytest.approx(measured["whd"], abs=TOL)


# --------------------------------------------------------------------------- SPEC §2 table


@pytest.fixture(scope="module")
def hospital():
    dataset, schema = load_sample("hospital")
    return dataset.frame, schema


def test_hospital_schema_is_as_expected(hospital):
    frame, schema = hospital
    assert schema.quasi_identifiers == ["ZIP", "Age"]
    assert schema.sensitive == ["Salary", "Disease"]
    # ZIP: 47677 → 4767* → 476** → 47*** → 4**** → *; Age: 29 → [20-30) → <40 → *.
    assert schema.hierarchies["ZIP"].height == 5
    assert schema.hierarchies["Age"].height == 3
    assert list(schema.hierarchies["ZIP"].generalize_values(frame["ZIP"], 1)) == [
        "4767*",
        "4760*",
        "4767*",
        "4790*",
        "4790*",
        "4790*",
        "4760*",
        "4767*",
        "4760*",
    ]


def test_datafly_on_the_hospital_table(hospital):
    """Hand trace: ZIP and Age both have 9 distinct values; the tie goes to ZIP (schema
    order) → ZIP level 1 (3 values: 4767*, 4760*, 4790*). Age still has 9 → level 1
    (decades: [20-30), [30-40), [40-50), [50-60): 4 values, ZIP 3) → Age level 2
    (<40, >=40). Classes {rows 1,3,8} 4767*/<40, {2,7,9} 4760*/<40, {4,5,6} 4790*/>=40:
    3-anonymous with nothing suppressed."""
    frame, schema = hospital
    release = anonymize(frame, schema, [KAnonymity(3)], algorithm="datafly", max_suppression=0.0)
    assert release.node == (1, 2)
    assert release.params["steps"] == [
        {"qi": "ZIP", "distinct": 9},
        {"qi": "Age", "distinct": 9},
        {"qi": "Age", "distinct": 4},
    ]
    assert release.n_suppressed == 0
    assert release.measurement.models.satisfied
    assert release.measurement.models.summary["k"] >= 3
    assert release.measurement.models.summary["suppressed_rows"] == 0
    assert list(release.frame["ZIP"]) == [
        "4767*",
        "4760*",
        "4767*",
        "4790*",
        "4790*",
        "4790*",
        "4760*",
        "4767*",
        "4760*",
    ]
    assert list(release.frame["Age"]) == ["<40"] * 3 + [">=40"] * 3 + ["<40"] * 3
    ids = release.class_ids
    groups = sorted(sorted(np.flatnonzero(ids == c).tolist()) for c in set(ids.tolist()))
    assert groups == [[0, 2, 7], [1, 6, 8], [3, 4, 5]]
    pd.testing.assert_series_equal(release.frame["Salary"], frame["Salary"])
    pd.testing.assert_series_equal(release.frame["Disease"], frame["Disease"])


def test_hospital_minimal_node_by_hand(hospital):
    """Every ZIP is distinct, so ZIP level 0 always fails; with Age at level ≤ 1 the
    three rows aged 43, 47, 52 are split (decades 40s: 2 rows, 50s: 1 row), so Age
    level ≤ 1 always fails. Every satisfying node thus has ZIP ≥ 1 and Age ≥ 2, and
    (1, 2) satisfies: it is the only minimal node, at height 3."""
    frame, schema = hospital
    constraints = [KAnonymity(3)]
    satisfied = brute_force(new_lattice(frame, schema, constraints, 0.0))
    assert {n for n, ok in satisfied.items() if ok} == {
        (z, a) for z in range(1, 6) for a in range(2, 4)
    }
    assert minimal_satisfying_nodes(new_lattice(frame, schema, constraints, 0.0)) == [(1, 2)]
    for algorithm in FULL_DOMAIN:
        metrics = [None] if algorithm == "datafly" else LOSS_METRICS
        for metric in metrics:
            options = {} if metric is None else {"loss_metric": metric}
            release = anonymize(frame, schema, constraints, algorithm=algorithm, **options)
            assert release.node == (1, 2), (algorithm, metric)
            assert release.n_suppressed == 0
            assert release.measurement.models.summary["k"] == 3
    samarati = anonymize(frame, schema, constraints, algorithm="samarati")
    assert samarati.params["height"] == 3
    assert samarati.params["candidates"] == [[1, 2]]
    incognito = anonymize(frame, schema, constraints, algorithm="incognito")
    assert incognito.params["minimal_nodes"] == [[1, 2]]


# --------------------------------------------------------------------------- errors


def test_k_larger_than_the_table_is_infeasible(hospital):
    frame, schema = hospital
    with pytest.raises(InfeasibleError) as info:
        prepare(frame, schema, [KAnonymity(10)], max_suppression=0, seed=0, need_hierarchies=True)
    assert info.value.code == "anonymize.k_too_large"
    assert info.value.params == {"k": 10, "rows": 9}
    for algorithm in FULL_DOMAIN:
        with pytest.raises(InfeasibleError) as info:
            anonymize(frame, schema, [KAnonymity(10)], algorithm=algorithm, max_suppression=1.0)
        assert info.value.code == "anonymize.k_too_large"


@pytest.mark.parametrize(
    "model", [DistinctLDiversity(7), RecursiveCLDiversity(2.0, 7)], ids=["distinct", "recursive"]
)
def test_l_larger_than_the_distinct_sensitive_values_is_infeasible(hospital, model):
    frame, schema = hospital  # Disease has 6 distinct values
    for algorithm in FULL_DOMAIN:
        with pytest.raises(InfeasibleError) as info:
            anonymize(frame, schema, [model], algorithm=algorithm, max_suppression=1.0)
        assert info.value.code == "anonymize.l_too_large"
        assert info.value.params["l"] == 7
        assert info.value.params["column"] == "Disease"
        assert info.value.params["distinct"] == 6


@pytest.mark.parametrize("max_suppression", [0.0, 0.2, 0.5])
def test_top_node_failing_is_infeasible(hospital, max_suppression):
    """Entropy l = 6 on Disease: the whole table (counts 2, 2, 2, 1, 1, 1) has
    exp(entropy) ≈ 5.67 < 6, so even the top node fails for all 9 rows. No class of a
    less general node passes either (it would need 6 rows with 6 different values, and
    no union of ZIP/Age groups has that), so every node fails within a budget < 9."""
    frame, schema = hospital
    counts = frame["Disease"].value_counts().to_numpy(float)
    p = counts / counts.sum()
    assert math.exp(-(p * np.log(p)).sum()) < 6
    constraints = [EntropyLDiversity(6, attributes=("Disease",))]
    satisfied = brute_force(new_lattice(frame, schema, constraints, max_suppression))
    assert not any(satisfied.values())
    budget = math.floor(max_suppression * 9 + 1e-9)
    for algorithm in FULL_DOMAIN:
        with pytest.raises(InfeasibleError) as info:
            anonymize(
                frame, schema, constraints, algorithm=algorithm, max_suppression=max_suppression
            )
        # Datafly's path knows only that the top fails, and says only that
        expected = "anonymize.datafly_top" if algorithm == "datafly" else "anonymize.infeasible"
        assert info.value.code == expected
        assert info.value.params == {"violating": 9, "budget": budget}


def test_everything_may_be_suppressed_with_a_full_budget(hospital):
    """Same constraint, budget 100 %: the bottom node satisfies by suppressing every row."""
    frame, schema = hospital
    constraints = [EntropyLDiversity(6, attributes=("Disease",))]
    release = anonymize(frame, schema, constraints, algorithm="datafly", max_suppression=1.0)
    assert release.node == (0, 0)
    assert release.n_suppressed == 9
    assert (release.frame[["ZIP", "Age"]] == "*").all().all()
    assert len(release.frame) == 9


@pytest.mark.parametrize("algorithm", FULL_DOMAIN)
def test_a_qi_without_hierarchy_is_a_hierarchy_error(hospital, algorithm):
    frame, schema = hospital
    schema = schema.with_hierarchy("Age", None)
    with pytest.raises(HierarchyError) as info:
        anonymize(frame, schema, [KAnonymity(2)], algorithm=algorithm)
    assert info.value.code == "hierarchy.missing_qi"
    assert info.value.params["columns"] == ["Age"]


def test_unknown_algorithm_is_a_parameter_error(hospital):
    frame, schema = hospital
    with pytest.raises(ParameterError) as info:
        anonymize(frame, schema, [KAnonymity(2)], algorithm="no-such-algorithm")
    assert info.value.code == "anonymize.unknown_algorithm"


@pytest.mark.parametrize("algorithm", ["samarati", "incognito", "optimal"])
def test_unknown_loss_metric_is_a_parameter_error(hospital, algorithm):
    frame, schema = hospital
    with pytest.raises(ParameterError) as info:
        anonymize(frame, schema, [KAnonymity(2)], algorithm=algorithm, loss_metric="entropy")
    assert info.value.code == "anonymize.unknown_metric"


def test_lattice_loss_rejects_unknown_metric(hospital):
    frame, schema = hospital
    lattice = new_lattice(frame, schema, [KAnonymity(2)], 0.0)
    with pytest.raises(ParameterError):
        lattice.loss(lattice.top, "precision")


@pytest.mark.parametrize("max_suppression", [-0.01, 1.01, 2, float("nan"), "a lot", None])
@pytest.mark.parametrize("algorithm", FULL_DOMAIN)
def test_suppression_outside_0_1_is_a_parameter_error(hospital, algorithm, max_suppression):
    frame, schema = hospital
    with pytest.raises(ParameterError) as info:
        anonymize(
            frame, schema, [KAnonymity(2)], algorithm=algorithm, max_suppression=max_suppression
        )
    assert info.value.code == "anonymize.bad_suppression"


@pytest.mark.parametrize("max_suppression", [0, 0.0, 1, 1.0])
def test_suppression_bounds_are_allowed(hospital, max_suppression):
    frame, schema = hospital
    release = anonymize(
        frame, schema, [KAnonymity(2)], algorithm="datafly", max_suppression=max_suppression
    )
    assert release.measurement.models.satisfied


@pytest.mark.parametrize("algorithm", FULL_DOMAIN)
def test_no_qi_or_no_sa_is_a_role_error(hospital, algorithm):
    frame, schema = hospital
    no_qi = Schema({"ZIP": "insensitive", "Age": "insensitive", "Salary": S, "Disease": S})
    with pytest.raises(RoleError) as info:
        anonymize(frame, no_qi, [KAnonymity(2)], algorithm=algorithm)
    assert info.value.code == "roles.no_qi"
    no_sa = Schema(
        {"ZIP": Q, "Age": Q, "Salary": "insensitive", "Disease": "insensitive"},
        schema.hierarchies,
    )
    with pytest.raises(RoleError) as info:
        anonymize(frame, no_sa, [KAnonymity(2)], algorithm=algorithm)
    assert info.value.code == "roles.no_sa"


@pytest.mark.parametrize("algorithm", sorted(FULL_DOMAIN))
def test_progress_is_reported_and_cancellation_stops_the_search(algorithm):
    from privcore.errors import CancelledError

    dataset, schema = load_sample("adult")
    seen: list[float] = []

    def follow(fraction: float, message: str) -> None:
        seen.append(fraction)

    anonymize(dataset.frame, schema, [KAnonymity(5)], algorithm=algorithm, progress=follow)
    assert seen and all(0.0 <= f <= 1.0 for f in seen) and seen[-1] == 1.0
    assert seen == sorted(seen)  # progress never goes back

    calls = 0

    def cancel_on_second_report(fraction: float, message: str) -> None:
        nonlocal calls
        calls += 1
        if calls == 2:
            raise CancelledError("Cancelled by the user.", code="cancelled")

    with pytest.raises(CancelledError):
        anonymize(
            dataset.frame,
            schema,
            [KAnonymity(5)],
            algorithm=algorithm,
            progress=cancel_on_second_report,
        )
    assert calls == 2  # nothing reported after the cancellation
