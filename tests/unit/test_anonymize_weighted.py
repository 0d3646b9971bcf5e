"""Anonymizing a table given as a weighted frequency set (SPEC §9).

An engine hands the algorithms the distinct (QI, SA) combinations of a table with their
counts; with ``weights`` the algorithms must release what they release on the table
itself. The tables below are generated records; their frequency set is grouped by pandas
and its rows shuffled (an engine gives them in any order), and every record of the
expanded run is compared with the row of the frequency set it belongs to.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from privcore.anonymize import FULL_DOMAIN, anonymize
from privcore.anonymize.lattice import LOSS_METRICS
from privcore.anonymize.spec import reproduce
from privcore.classes import release_classes
from privcore.data.hierarchy import Hierarchy
from privcore.data.samples import load_sample
from privcore.data.schema import Schema
from privcore.errors import InfeasibleError, ParameterError
from privcore.models import DistinctLDiversity, EntropyLDiversity, KAnonymity, TCloseness

Q, S = "quasi_identifier", "sensitive"
REL = 1e-9
SA_VALUES = ["flu", "ulcer", "asthma", "cancer", "cold"]
CITIES = ["Lyon", "Oslo", "Pune", "Lima", "Kobe", "Cork", "Bern", "Riga", "Faro", "Nice"]

# (constraints, suppression limit): k, l in two forms, t, with and without a budget
CASES = {
    "k3": ([KAnonymity(3)], 0.0),
    "k5-sup": ([KAnonymity(5)], 0.1),
    "k2-distinct2-sup": ([KAnonymity(2), DistinctLDiversity(2)], 0.05),
    "entropy1.5": ([EntropyLDiversity(1.5)], 0.0),
    "entropy1.5-sup": ([EntropyLDiversity(1.5)], 0.1),
    "t-equal-sup": ([TCloseness(0.3, "equal")], 0.1),
}
SEEDS = range(4)


# --------------------------------------------------------------------------- helpers


def interval_hierarchy(name: str, domain: int, height: int) -> Hierarchy:
    """Leaves 0..domain-1; level j groups 2**j neighbours (``[0-3]``); the top ``*``."""
    rows = []
    for value in range(domain):
        row = [str(value)]
        for level in range(1, height):
            width = 2**level
            low = value // width * width
            row.append(f"[{low}-{low + width - 1}]")
        rows.append([*row, "*"])
    return Hierarchy(rows, name=name)


def records_case(seed: int) -> tuple[pd.DataFrame, Schema]:
    """100–400 records, 2–4 integer QIs with domains of 2–6 values (hierarchies of
    height 1–3), about 10 % of the QI cells missing in odd seeds, one SA of 2–5 values."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(100, 401))
    data, roles, hierarchies = {}, {}, {}
    for q in range(int(rng.integers(2, 5))):
        name, domain = f"q{q}", int(rng.integers(2, 7))
        data[name] = rng.integers(0, domain, n)
        hierarchies[name] = interval_hierarchy(name, domain, int(rng.integers(1, 4)))
        roles[name] = Q
    data["s"] = np.array(SA_VALUES)[rng.integers(0, int(rng.integers(2, 6)), n)]
    roles["s"] = S
    frame = pd.DataFrame(data)
    if seed % 2:
        for name in hierarchies:
            frame[name] = frame[name].astype(float).mask(rng.random(n) < 0.1)
    return frame, Schema(roles, hierarchies)


def frequency_set(
    records: pd.DataFrame, columns: list[str], seed: int = 0
) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """(the distinct combinations of ``columns``, in a shuffled order; their counts;
    each record's row in it)."""
    grouped = records.groupby(columns, dropna=False, sort=False)
    source = grouped.ngroup().to_numpy()
    table = records.loc[grouped.head(1).index, columns].reset_index(drop=True)
    weights = np.bincount(source, minlength=len(table)).astype(np.int64)
    shuffle = np.random.default_rng(seed).permutation(len(table))
    position = np.empty_like(shuffle)
    position[shuffle] = np.arange(len(shuffle))
    table = table.iloc[shuffle].reset_index(drop=True)
    expanded = table.iloc[position[source]].reset_index(drop=True)
    pd.testing.assert_frame_equal(expanded, records[columns].reset_index(drop=True))
    return table, weights[shuffle], position[source]


def assert_close(a, b, path: str = "") -> None:
    """Equal, floats to 1e-9 relative (1e-12 absolute near 0), recursively."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), path
        for key in a:
            assert_close(a[key], b[key], f"{path}.{key}")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            assert_close(x, y, f"{path}[{i}]")
    elif isinstance(a, float) or isinstance(b, float):
        if math.isnan(a):
            assert math.isnan(b), path
        else:
            assert b == pytest.approx(a, rel=REL, abs=1e-12), path
    else:
        assert a == b, path


def summary(release) -> dict:
    out = release.history_summary()
    out.pop("seconds")
    return out


def assert_same_release(weighted, rows, source: np.ndarray, qi: list[str], w: np.ndarray):
    """The frequency set's release is the table's: node, the released values of every
    record, classes, suppression, loss and the history's summary."""
    assert weighted.node == rows.node
    per_record = weighted.frame[qi].iloc[source].reset_index(drop=True)
    pd.testing.assert_frame_equal(per_record, rows.frame[qi].reset_index(drop=True))
    assert weighted.n_suppressed == rows.n_suppressed
    assert sorted(weighted.measurement.classes.sizes) == sorted(rows.measurement.classes.sizes)
    assert weighted.satisfied == rows.satisfied
    assert_close(weighted.loss, rows.loss, "loss")
    assert_close(summary(weighted), summary(rows), "summary")
    np.testing.assert_array_equal(weighted.weights, w)


def both(records, schema, constraints, max_suppression, algorithm, seed=0, **options):
    """The release of the table and of its frequency set (or the error of each)."""
    columns = [*schema.quasi_identifiers, *schema.sensitive]
    table, weights, source = frequency_set(records, columns, seed)
    outcome = []
    for df, w in ((records, None), (table, weights)):
        try:
            outcome.append(
                anonymize(
                    df,
                    schema,
                    constraints,
                    algorithm=algorithm,
                    max_suppression=max_suppression,
                    weights=w,
                    **options,
                )
            )
        except InfeasibleError as error:
            outcome.append(error)
    return outcome[0], outcome[1], source, weights


# --------------------------------------------------------------------------- by hand


def by_hand() -> tuple[pd.DataFrame, np.ndarray, Schema]:
    """Four frequency-set rows standing for 3, 1, 2 and 1 records (7 in all)."""
    table = pd.DataFrame({"age": [20, 25, 30, 35], "disease": ["flu", "flu", "cold", "cold"]})
    hierarchy = Hierarchy(
        [
            ["20", "[20-29]", "*"],
            ["25", "[20-29]", "*"],
            ["30", "[30-39]", "*"],
            ["35", "[30-39]", "*"],
        ],
        name="age",
    )
    schema = Schema({"age": Q, "disease": S}, {"age": hierarchy})
    return table, np.array([3, 1, 2, 1], dtype=np.int64), schema


@pytest.mark.parametrize("algorithm", sorted(FULL_DOMAIN))
def test_a_hand_traced_frequency_set(algorithm):
    """k = 4, at most half of the 7 records suppressed: budget ⌊0.5 · 7⌋ = 3 records.
    Level 0: classes of 3, 1, 2, 1 records, all < 4: 7 violate > 3 — fails.
    Level 1: [20-29] holds 3 + 1 = 4 records (passes), [30-39] 2 + 1 = 3 (fails): 3
    records violate ≤ 3; as one group at '*' they are 3 < 4 records, so they are
    suppressed: 3 ≤ 3 — level 1 satisfies, with 3 records (2 rows) suppressed.
    Read as 4 plain rows instead, level 1 has classes of 2 and 2 rows, every row
    violates, and the budget is ⌊0.5 · 4⌋ = 2: it would fail."""
    table, weights, schema = by_hand()
    release = anonymize(
        table, schema, [KAnonymity(4)], algorithm=algorithm, max_suppression=0.5, weights=weights
    )
    assert release.node == (1,)
    assert release.frame["age"].tolist() == ["[20-29]", "[20-29]", "*", "*"]
    assert release.n_suppressed == 3
    assert release.suppressed.tolist() == [False, False, True, True]
    classes = release_classes(
        release.frame, ["age"], ["disease"], models=[KAnonymity(4)], weights=weights
    )
    assert classes.sizes.tolist() == [4] and classes.n_suppressed == 3
    plain = anonymize(table, schema, [KAnonymity(4)], algorithm=algorithm, max_suppression=0.5)
    assert plain.node == (2,)  # the rows alone: only the top, one class of 4 rows


def test_mondrian_by_hand():
    """Ages 20, 25, 30, 40 standing for 3, 1, 2, 1 records, k = 3. The weighted lower
    median is 25 (records ≤ 20: 3, ≤ 25: 4 ≥ ⌈7/2⌉). Candidate cuts: ≤ 25 | > 25 (4 | 3
    records) and ≤ 20 | > 20 (3 | 4), equally balanced; the lower threshold is tried
    first, and both halves have ≥ 3 records: {20} and {25, 30, 40}. Neither can be cut
    again (< 2k = 6 records). NCP of age (range 20): 0 for the 3 records at 20, (40 −
    25)/20 = 0.75 for the other 4: GCP = 3/7. Means: 20 and (25 + 2·30 + 40)/4 = 31.25.
    Read as 4 plain rows, no cut leaves 3 rows on each side: one class [20-40]."""
    table = pd.DataFrame({"age": [20, 25, 30, 40], "disease": ["flu", "flu", "cold", "cold"]})
    weights = np.array([3, 1, 2, 1], dtype=np.int64)
    schema = Schema({"age": Q, "disease": S})
    models = [KAnonymity(3)]
    release = anonymize(table, schema, models, algorithm="mondrian", weights=weights)
    assert release.frame["age"].tolist() == ["20", "[25-40]", "[25-40]", "[25-40]"]
    assert release.extra_loss["ncp"] == pytest.approx(3 / 7)
    means = anonymize(table, schema, models, algorithm="mondrian", weights=weights, summary="mean")
    assert means.frame["age"].tolist() == ["20", "31.25", "31.25", "31.25"]
    plain = anonymize(table, schema, models, algorithm="mondrian")
    assert plain.frame["age"].tolist() == ["[20-40]"] * 4


# --------------------------------------------------------------------------- equivalence


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("case", list(CASES))
def test_full_domain_on_a_frequency_set_equals_the_table(seed, case):
    """Datafly, Samarati, Incognito and the optimal search give, on the frequency set,
    the table's node, released values per record, classes, suppression, losses and
    lattice walk. Each search uses a loss metric of its own, in turn over the cases."""
    records, schema = records_case(seed)
    constraints, max_suppression = CASES[case]
    qi = list(schema.quasi_identifiers)
    turn = seed + list(CASES).index(case)
    for algorithm in sorted(FULL_DOMAIN):
        options = {}
        if algorithm != "datafly":
            options["loss_metric"] = LOSS_METRICS[(turn + len(algorithm)) % len(LOSS_METRICS)]
        rows, weighted, source, w = both(
            records, schema, constraints, max_suppression, algorithm, seed, **options
        )
        if isinstance(rows, InfeasibleError):
            assert isinstance(weighted, InfeasibleError) and weighted.code == rows.code
            continue
        assert_same_release(weighted, rows, source, qi, w)
        trace_rows, trace_weighted = rows.lattice.nodes, weighted.lattice.nodes
        pd.testing.assert_frame_equal(trace_weighted, trace_rows)


@pytest.mark.parametrize("metric", LOSS_METRICS)
def test_optimal_with_every_loss_metric(metric):
    records, schema = records_case(1)  # with missing QI cells
    for constraints, max_suppression in (CASES["k5-sup"], CASES["t-equal-sup"]):
        rows, weighted, source, w = both(
            records, schema, constraints, max_suppression, "optimal", 7, loss_metric=metric
        )
        assert_same_release(weighted, rows, source, list(schema.quasi_identifiers), w)
        assert weighted.params["loss"] == rows.params["loss"]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("summary_kind", ["range", "mean"])
def test_mondrian_on_a_frequency_set_equals_the_table(seed, summary_kind):
    """Mondrian's cuts are thresholds on codes, so records with equal QIs never part
    (strict partitioning): with weighted medians the frequency set gives the table's
    partitions and released values."""
    records, schema = records_case(seed)
    schema = Schema(schema.roles, {})  # numeric QIs: ranges and means
    qi = list(schema.quasi_identifiers)
    for case in ("k3", "k2-distinct2-sup", "entropy1.5", "t-equal-sup"):
        constraints, _ = CASES[case]
        rows, weighted, source, w = both(
            records, schema, constraints, 0.0, "mondrian", seed, summary=summary_kind
        )
        if isinstance(rows, InfeasibleError):
            assert isinstance(weighted, InfeasibleError) and weighted.code == rows.code
            continue
        assert_same_release(weighted, rows, source, qi, w)
        assert weighted.params["partitions"] == rows.params["partitions"]


def test_mondrian_with_wide_and_unordered_domains():
    """A numeric QI with thousands of distinct values (medians read from sorted codes
    with cumulative weights, not from a histogram), a text QI without hierarchy (sets
    ``{a,b}``) and records repeated up to 6 times: the table's release per record."""
    rng = np.random.default_rng(11)
    distinct = pd.DataFrame(
        {
            "income": rng.integers(0, 200_000, 1500),
            "city": np.array(CITIES)[rng.integers(0, len(CITIES), 1500)],
            "s": np.array(SA_VALUES)[rng.integers(0, 4, 1500)],
        }
    )
    records = distinct.loc[distinct.index.repeat(rng.integers(1, 7, 1500))]
    records = records.sample(frac=1.0, random_state=2).reset_index(drop=True)
    schema = Schema({"income": Q, "city": Q, "s": S})
    for constraints, summary_kind in (
        ([KAnonymity(25)], "range"),
        ([KAnonymity(10), DistinctLDiversity(3)], "mean"),
    ):
        rows, weighted, source, w = both(
            records, schema, constraints, 0.0, "mondrian", 5, summary=summary_kind
        )
        assert w.max() > 1 and weighted.params["partitions"] > 50
        assert_same_release(weighted, rows, source, ["income", "city"], w)


# --------------------------------------------------------------------------- Adult

ADULT_COLUMNS = [
    "sex", "age", "race", "marital-status", "education", "native-country", "workclass",
    "salary-class", "occupation",
]  # fmt: skip


@pytest.fixture(scope="module")
def adult():
    dataset, schema = load_sample("adult")
    assert [*schema.quasi_identifiers, *schema.sensitive] == [
        c for c in ADULT_COLUMNS if c != "occupation"
    ] + ["occupation"]
    table, weights, source = frequency_set(dataset.frame, ADULT_COLUMNS)
    return dataset.frame, schema, table, weights, source


def test_adult_optimal_k5_on_its_frequency_set(adult):
    frame, schema, table, weights, source = adult
    assert len(table) < len(frame) and int(weights.sum()) == len(frame) == 30_162
    rows = anonymize(frame, schema, [KAnonymity(5)], algorithm="optimal")
    weighted = anonymize(table, schema, [KAnonymity(5)], algorithm="optimal", weights=weights)
    assert_same_release(weighted, rows, source, list(schema.quasi_identifiers), weights)


def test_adult_mondrian_k10_on_its_frequency_set(adult):
    """The guarantees hold on the weighted release, every record is released, and its
    GCP is within 5 % of the table's (the two are equal: see the module docstring of
    privcore.anonymize.mondrian)."""
    frame, schema, table, weights, source = adult
    models = [KAnonymity(10)]
    rows = anonymize(frame, schema, models, algorithm="mondrian")
    weighted = anonymize(table, schema, models, algorithm="mondrian", weights=weights)
    qi, sa = list(schema.quasi_identifiers), list(schema.sensitive)
    classes = release_classes(weighted.frame, qi, sa, models=models, weights=weights)
    assert classes.n_rows == 30_162 and classes.n_suppressed == 0
    assert int(classes.sizes.min()) >= 10 and weighted.satisfied
    assert weighted.n_suppressed == 0 and len(weighted.frame) == len(table)
    gcp_rows, gcp_weighted = rows.extra_loss["ncp"], weighted.extra_loss["ncp"]
    assert abs(gcp_weighted - gcp_rows) <= 0.05 * gcp_rows
    assert gcp_weighted == pytest.approx(gcp_rows, rel=REL)
    per_record = weighted.frame[qi].iloc[source].reset_index(drop=True)
    pd.testing.assert_frame_equal(per_record, rows.frame[qi].reset_index(drop=True))


# --------------------------------------------------------------------------- refusals


@pytest.mark.parametrize("algorithm", ["kaca", "condensation"])
def test_record_by_record_algorithms_need_the_records(algorithm):
    records, schema = records_case(0)
    if algorithm == "condensation":
        schema = Schema(schema.roles, {})
    table, weights, _ = frequency_set(records, [*schema.quasi_identifiers, "s"])
    assert weights.max() > 1
    with pytest.raises(InfeasibleError) as info:
        anonymize(table, schema, [KAnonymity(3)], algorithm=algorithm, weights=weights)
    assert info.value.code == "anonymize.needs_records"
    assert "records in memory" in str(info.value)
    # weights all 1: the rows are the records, and the release is the ordinary one
    ones = np.ones(len(table), dtype=np.int64)
    plain = anonymize(table, schema, [KAnonymity(3)], algorithm=algorithm, seed=3)
    same = anonymize(table, schema, [KAnonymity(3)], algorithm=algorithm, seed=3, weights=ones)
    pd.testing.assert_frame_equal(same.frame, plain.frame)
    assert same.weights is None


@pytest.mark.parametrize(
    "weights", [[3, 1, 0, 1], [3, 1, 2], [3, 1.5, 2, 1], [[3, 1, 2, 1]], ["3", "1", "2", "1"]]
)
def test_weights_must_be_whole_numbers_of_at_least_one_per_row(weights):
    table, _, schema = by_hand()
    with pytest.raises(ParameterError) as info:
        anonymize(table, schema, [KAnonymity(2)], weights=weights)
    assert info.value.code == "anonymize.bad_weights"


def test_a_weighted_release_is_written_by_its_engine_and_fingerprinted_with_its_weights():
    table, weights, schema = by_hand()
    release = anonymize(table, schema, [KAnonymity(4)], max_suppression=0.5, weights=weights)
    with pytest.raises(ParameterError) as info:
        release.export()
    assert info.value.code == "anonymize.weighted_release"
    assert "7 records" in str(info.value)
    other = anonymize(
        table, schema, [KAnonymity(4)], max_suppression=0.5, weights=np.array([3, 1, 1, 2])
    )
    assert other.frame.equals(release.frame)  # the same mapping …
    assert other.fingerprint.sha256 != release.fingerprint.sha256  # … for other records
    assert release.fingerprint.rows == 7
    # its spec replays from the same frequency set and weights, and only from them
    spec = release.spec()
    assert spec["weighted"] is True
    again = reproduce(table, spec, weights=weights)
    assert again.fingerprint == release.fingerprint
    with pytest.raises(ParameterError) as info:
        reproduce(table, spec)
    assert info.value.code == "anonymize.spec_needs_weights"
    with pytest.raises(ParameterError) as info:
        reproduce(table, spec, weights=np.array([3, 1, 1, 2]))
    assert info.value.code == "anonymize.spec_other_table"


def test_an_unweighted_release_is_unchanged():
    table, _, schema = by_hand()
    release = anonymize(table, schema, [KAnonymity(2)])
    assert release.weights is None and "weighted" not in release.spec()
    assert len(release.export()) == 4
    assert reproduce(table, release.spec()).fingerprint == release.fingerprint
