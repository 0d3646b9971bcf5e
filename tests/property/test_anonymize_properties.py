"""Property tests of every registered anonymization algorithm (hypothesis; SPEC §2, §4).

For each name in ``privcore.anonymize.ALGORITHMS`` (read when the module is collected,
so algorithms registered later are tested too) and random small tables, privacy-model
combinations and suppression limits:

- the release satisfies its constraints by the independent measurement
  (``release.measurement.models.satisfied``), or ``InfeasibleError`` is raised — or,
  for a perturbative method that does not enforce them (``enforces_models``), reports
  that measurement as its own verdict;
- every row is kept, in its place; identifiers are removed; sensitive columns are
  released unchanged (except by synthetic releases, which permute them within groups);
- the rows the release shows as suppressed (``release.n_suppressed``: the rows at ``*``
  in every QI when, as one class, they fail the constraints) fit the budget
  ⌊max_suppression · n⌋, and show every QI as ``*``;
- the same seed gives the same release.

Tables: 8–30 rows; an identifier; 2–3 QIs — the first always numeric (integers, so
condensation has a numeric QI), the others integers or text — each with a random nested
hierarchy of height 1–3; a categorical SA with a hierarchy (for the hierarchical t
distance) and sometimes a numeric SA. Rows whose QIs are all ``*`` are one group of the
release: a class when they meet the constraints as one class, suppression otherwise
(:func:`privcore.classes.release_classes`). Every figure of the report is checked
against an independent recomputation from the written file in
``test_release_figures.py``.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from privcore.anonymize import ALGORITHMS, FULL_DOMAIN, anonymize
from privcore.anonymize.base import ClassChecker, prepare
from privcore.anonymize.lattice import Lattice
from privcore.data.hierarchy import Hierarchy
from privcore.data.schema import Schema
from privcore.errors import InfeasibleError
from privcore.models import (
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    PrivacyModel,
    RecursiveCLDiversity,
    TCloseness,
)

Q, S, ID = "quasi_identifier", "sensitive", "identifier"
DISEASES = ["flu", "asthma", "ulcer", "cancer", "gastritis"]
DISEASE_HIERARCHY = Hierarchy(
    [
        ["flu", "respiratory", "*"],
        ["asthma", "respiratory", "*"],
        ["ulcer", "digestive", "*"],
        ["cancer", "digestive", "*"],
        ["gastritis", "digestive", "*"],
    ],
    name="disease",
)
SUPPRESSION = [0.0, 0.05, 0.1, 0.25, 0.5]
SETTINGS = settings(
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
# the algorithms that build classes meeting the constraints (not the lattice searches,
# not the perturbative methods that only report what they have)
LOCAL = tuple(n for n, a in ALGORITHMS.items() if n not in FULL_DOMAIN and a.enforces_models)


# --------------------------------------------------------------------------- strategies


@st.composite
def hierarchies(draw, name: str, keys: list[str]) -> Hierarchy:
    """A random nested hierarchy over ``keys`` (height 1–3; labels name their level)."""
    height = draw(st.integers(1, 3))
    columns = [list(keys)]
    groups = list(range(len(keys)))
    n_groups = len(keys)
    for level in range(1, height):
        n_up = draw(st.integers(1, n_groups))
        parent = draw(st.lists(st.integers(0, n_up - 1), min_size=n_groups, max_size=n_groups))
        groups = [parent[g] for g in groups]
        renumber = {g: i for i, g in enumerate(sorted(set(groups)))}
        groups = [renumber[g] for g in groups]
        n_groups = len(renumber)
        columns.append([f"{name}.L{level}.g{g}" for g in groups])
    columns.append(["*"] * len(keys))
    return Hierarchy([list(row) for row in zip(*columns, strict=True)], name=name)


@st.composite
def tables(draw) -> tuple[pd.DataFrame, Schema]:
    n = draw(st.integers(8, 30))
    n_qi = draw(st.integers(2, 3))
    frame: dict[str, list] = {"name": [f"person {i}" for i in range(n)]}
    roles = {"name": ID}
    hier: dict[str, Hierarchy] = {"disease": DISEASE_HIERARCHY}
    for q in range(n_qi):
        column = f"q{q}"
        domain = draw(st.integers(2, 6))
        codes = draw(st.lists(st.integers(0, domain - 1), min_size=n, max_size=n))
        text = q > 0 and draw(st.booleans())
        if text:
            keys = [f"c{v}" for v in range(domain)]
            frame[column] = [keys[v] for v in codes]
        else:
            keys = [str(v) for v in range(domain)]
            frame[column] = codes
        hier[column] = draw(hierarchies(column, keys))
        roles[column] = Q
    m = draw(st.integers(2, len(DISEASES)))
    frame["disease"] = draw(st.lists(st.sampled_from(DISEASES[:m]), min_size=n, max_size=n))
    roles["disease"] = S
    if draw(st.booleans()):
        salary = st.integers(1, 6).map(lambda v: v * 1000)
        frame["salary"] = draw(st.lists(salary, min_size=n, max_size=n))
        roles["salary"] = S
    frame["note"] = [i % 3 for i in range(n)]
    roles["note"] = "insensitive"
    return pd.DataFrame(frame), Schema(roles, hier)


@st.composite
def constraints(draw, algorithm: str) -> list[PrivacyModel]:
    """k alone; k + distinct l; k + entropy l; k + recursive (c,l); k + t with each
    distance (the hierarchical one on the SA that has a hierarchy)."""
    k = KAnonymity(draw(st.integers(1, 4)))
    kind = draw(
        st.sampled_from(
            ["k", "distinct", "entropy", "recursive", "equal", "ordered", "hierarchical", "kl"]
        )
    )
    if kind == "k":
        return [k]
    if kind == "distinct":
        return [k, DistinctLDiversity(draw(st.integers(1, 3)))]
    if kind == "entropy":
        return [k, EntropyLDiversity(draw(st.floats(1.0, 2.5)))]
    if kind == "recursive":
        return [k, RecursiveCLDiversity(draw(st.floats(1.1, 4.0)), draw(st.integers(1, 3)))]
    if kind == "hierarchical":
        return [k, TCloseness(draw(st.floats(0.1, 0.8)), "hierarchical", ("disease",))]
    top = 2.0 if kind == "kl" else 0.9
    return [k, TCloseness(draw(st.floats(0.05, top)), kind)]


def run(df, schema, models, algorithm, max_suppression, seed):
    return anonymize(
        df, schema, models, algorithm=algorithm, max_suppression=max_suppression, seed=seed
    )


# --------------------------------------------------------------------------- properties


@pytest.mark.parametrize("algorithm", list(ALGORITHMS))
@SETTINGS
@given(data=st.data())
def test_release_properties(algorithm, data):
    df, schema = data.draw(tables(), label="table")
    models = data.draw(constraints(algorithm), label="constraints")
    max_suppression = data.draw(st.sampled_from(SUPPRESSION), label="max_suppression")
    seed = data.draw(st.integers(0, 2**16), label="seed")
    try:
        release = run(df, schema, models, algorithm, max_suppression, seed)
    except InfeasibleError:
        event("infeasible")
        return
    event("released")
    n = len(df)
    qi = schema.quasi_identifiers

    # Constraints hold by the independent measurement. A synthetic release's records
    # are all distinct: its guarantee is on the condensation groups (class_ids). A
    # perturbative method that does not enforce them reports what it has.
    if release.synthetic:
        k = max(m.k for m in models if isinstance(m, KAnonymity))
        assert np.bincount(release.class_ids).min() >= k
        assert release.satisfied
    elif not ALGORITHMS[algorithm].enforces_models:
        assert release.satisfied == release.measurement.models.satisfied
    else:
        assert release.measurement.models.satisfied, release.measurement.models.verdicts
        assert release.satisfied

    # Rows conserved, in place; identifiers removed.
    assert len(release.frame) == n
    assert list(release.frame.index) == list(df.index)
    assert "name" not in release.frame.columns
    assert release.removed == ("name",)
    assert set(release.frame.columns) == set(df.columns) - {"name"}
    assert len(release.class_ids) == len(release.suppressed) == n

    # Suppression within the budget; suppressed rows show '*' in every QI.
    assert release.n_suppressed <= math.floor(max_suppression * n)
    if release.n_suppressed:
        cells = release.frame.loc[release.suppressed, qi].astype(object)
        assert (cells == "*").all().all()
    if not release.synthetic:
        assert release.measurement.models.summary["suppressed_rows"] == release.n_suppressed
        for column in [*schema.sensitive, "note"]:
            pd.testing.assert_series_equal(release.frame[column], df[column])

    # Same seed, same release.
    again = run(df, schema, models, algorithm, max_suppression, seed)
    pd.testing.assert_frame_equal(release.frame, again.frame)
    np.testing.assert_array_equal(release.class_ids, again.class_ids)
    np.testing.assert_array_equal(release.suppressed, again.suppressed)
    assert release.node == again.node


@st.composite
def problems(draw):
    df, schema = draw(tables())
    models = draw(constraints("any"))
    return df, schema, models, draw(st.sampled_from(SUPPRESSION))


@pytest.mark.parametrize("algorithm", FULL_DOMAIN)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=problems())
def test_full_domain_infeasible_only_when_no_node_satisfies(algorithm, problem):
    """A full-domain search raises InfeasibleError exactly when no lattice node
    satisfies the constraints within the budget (brute force), else returns a
    satisfying node — also for entropy l, recursive (c,l) and t with a budget, where
    "satisfied within the budget" is not monotone and no pruning by tags is sound.
    Datafly's greedy path claims less: when it stops, the top fails (its error
    ``anonymize.datafly_top`` says only that, and that another node may pass)."""
    df, schema, models, max_suppression = problem
    try:
        lattice = Lattice(
            prepare(
                df,
                schema,
                models,
                max_suppression=max_suppression,
                seed=0,
                need_hierarchies=True,
            )
        )
    except InfeasibleError:
        event("infeasible before the search")
        return
    nodes = itertools.product(*[range(h + 1) for h in lattice.heights])
    satisfied = {node for node in nodes if lattice.evaluate(node).satisfied}
    try:
        release = run(df, schema, models, algorithm, max_suppression, 0)
    except InfeasibleError as exc:
        if algorithm == "datafly":
            assert exc.code == "anonymize.datafly_top"
            assert lattice.top not in satisfied
        else:
            assert not satisfied
        return
    assert release.node in satisfied


def whole_table_fails(df, schema, models) -> bool:
    """The table as one class (nothing suppressed) fails some constraint."""
    try:
        problem = prepare(df, schema, models, max_suppression=0.0, seed=0, need_hierarchies=False)
    except InfeasibleError:
        return True
    return ClassChecker(problem, "test").violates(np.arange(len(df)))


@pytest.mark.parametrize("algorithm", LOCAL)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=problems())
def test_local_recoding_infeasible_only_when_one_class_fails(algorithm, problem):
    """Mondrian, KACA, condensation, MDAV and local suppression build classes by cutting,
    merging or blanking cells; every model is monotone under merging (a union is at
    least as diverse and as close to Q as its worst part), so a partition that
    satisfies exists exactly when the whole table as one class does — the budget (at
    most half the rows here) cannot rescue a table whose every row would need
    suppressing. InfeasibleError must be raised then; MDAV and local suppression also
    refuse when the rows they blank in every QI (suppressed rows, SPEC §13: strata too
    small, records no cell can fix) are more than the limit allows."""
    df, schema, models, max_suppression = problem
    expected = whole_table_fails(df, schema, models)
    try:
        release = run(df, schema, models, algorithm, max_suppression, 0)
    except InfeasibleError as exc:
        if exc.code == "anonymize.suppression_over_limit":
            assert algorithm in ("mdav", "local_suppression"), exc
            assert exc.params["suppressed"] > exc.params["budget"]
            event("suppression over the limit")
            return
        assert expected, models
        event("infeasible")
        return
    assert not expected, models
    assert release.satisfied
