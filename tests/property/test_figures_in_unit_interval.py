"""Every figure defined on [0, 1] stays in [0, 1], for every algorithm (hypothesis).

For each name in ``privcore.anonymize.ALGORITHMS`` (read when the module is collected)
and random small tables — 8–30 rows; 2–3 quasi-identifiers, the first numeric (whole
numbers or decimals), the others text, ZIP-like digit strings or numbers; a numeric
sensitive attribute and sometimes a text one; missing values in some tables — with the
hierarchies :func:`~privcore.data.hierarchy_suggestions.suggest_hierarchies` proposes,
k from 2 to 4 and sometimes an l or t model, the release is made and every figure of

- its measurement (``ReleaseMeasurement.to_dict()`` and ``history_summary()``),
- its report (``Release.to_dict()`` — without ``params``, the request and the search
  trace — and ``Release.history_summary()``),
- the measurement of the same release read back from its CSV text (against a voter roll
  as the population, so that journalist risk is measured too), and
- the linkage and homogeneity attacks on that read-back release (``simulate``)

is classified: :data:`UNIT_INTERVAL` names the figures defined on [0, 1] (PL of every
attribute and of all, DR, UL, GCP/NCP, precision, t, the risks, the shares of the
attacks), :data:`PER_QI` the ones bounded by the number of quasi-identifiers they sum
over (mean WHD), :data:`OTHER` everything else (counts, l, c, C_avg ≥ 1 ideally, text).
A key found in none of them fails the test: a new figure must be classified. Values are
compared with a tolerance of 1e-9 for float rounding. t is requested with the EMD
distances only: Kullback–Leibler divergence (``kl``) is unbounded by definition.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from privcore.anonymize import ALGORITHMS, anonymize
from privcore.attacks import build_roll, simulate
from privcore.data import load
from privcore.data.hierarchy_suggestions import suggest_hierarchies
from privcore.data.samples import load_sample
from privcore.data.schema import Schema
from privcore.data.writing import to_csv_bytes
from privcore.errors import InfeasibleError, ParameterError
from privcore.measure.report import measure_release
from privcore.models import (
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    PrivacyModel,
    RecursiveCLDiversity,
    TCloseness,
)

TOL = 1e-9
QI_MARK, SA_MARK = "{qi}", "{sa}"

#: Figures defined on [0, 1]; a column name in a key is written {qi} or {sa}, a list "[]".
UNIT_INTERVAL = frozenset(
    {
        # SPEC §3: privacy level (of all SAs, of each attribute), DR, UL
        "pl",
        "pl.all",
        f"pl.{QI_MARK}",
        f"pl.{SA_MARK}",
        "dr",
        "ul",
        # SPEC §5: global certainty penalty (and Mondrian's own NCP), precision
        "loss.gcp",
        "loss.ncp",
        "loss.precision",
        # SPEC §2: t of t-closeness (EMD distances)
        f"t_closeness.{SA_MARK}.t",
        f"verdicts[].achieved.t.{SA_MARK}",
        f"record_verdicts[].achieved.t.{SA_MARK}",
        # re-identification risk and its threshold (probabilities and shares of records)
        "risk.prosecutor_max",
        "risk.prosecutor_avg",
        "risk.prosecutor_avg_classes",
        "risk.journalist_max",
        "risk.journalist_avg",
        "risk.marketer",
        "risk.records_at_risk",
        "risk.threshold",
        # SPEC §6: the attacks' shares (their risk block is the risk above)
        "attack.linkage.precision",
        "attack.linkage.baseline",
        "attack.homogeneity.records_exposed_share",
        # the loss of a release that is no generalization (privcore.measure.kind_loss):
        # capped distortion, total variation and Kolmogorov–Smirnov distances, shares
        "loss.distortion",
        "loss.joint_tvd",
        "loss.marginal_distance",
        "loss_headline.value",
        "loss_detail.distortion",
        "loss_detail.joint_tvd",
        "loss_detail.marginal_distance",
        "loss_detail.marginals.marginal_distance",
        f"loss_detail.marginals.columns.{QI_MARK}.distance",
        f"loss_detail.columns.{QI_MARK}.distance",
        f"loss_detail.numeric.{QI_MARK}.changed_share",
        f"loss_detail.categorical.{QI_MARK}.changed_share",
        # distance-based record linkage and the stronger of the two attacks
        "attack.linkage_distance.share",
        "attack.linkage_distance.interval[]",
        "attack.linkage_distance.linked_share",
        "attack.linkage_distance.linked_interval[]",
        "attack.linkage_distance.expected_share",
        "attack.linkage_strongest.share",
        "attack.linkage_strongest.interval[]",
        # SPEC §11: a perturbed release's population-level risk (shares, probabilities)
        "population_risk.sampling_fraction",
        "population_risk.population_uniqueness.share",
        "population_risk.individual_risk.max",
    }
)

#: A sum of one figure in [0, 1] per quasi-identifier: in [0, |QIs it covers|].
PER_QI = {"loss.whd_mean": "loss.loss_columns"}

#: The keys of one verdict (``verdicts[]`` and ``record_verdicts[]``).
VERDICT_KEYS = (
    "model",
    "requirement",
    "passed",
    "violating_classes",
    "violating_rows",
    "achieved.k",
    f"achieved.l.{SA_MARK}",
    f"achieved.c.{SA_MARK}",
    f"achieved.distance.{SA_MARK}",
    "parameters.model",
    "parameters.k",
    "parameters.l",
    "parameters.c",
    "parameters.t",
    "parameters.distance",
    "parameters.attributes",
    "parameters.attributes[]",
)

#: Every other key: counts, l and c, C_avg, totals, levels, text, flags, parameters.
OTHER = frozenset(
    {
        "algorithm",
        "alignment",
        "population_risk.population_uniqueness.model",
        "population_risk.population_uniqueness.count",
        "population_risk.individual_risk.expected_reidentifications",
        "population_risk.suda2.sample_uniques",
        "population_risk.suda2.special_uniques",
        "classes",
        "k",
        "key",
        "needs_alignment[]",
        "node",
        f"node.{QI_MARK}",
        "notes[]",
        "pl_notes.all",
        f"pl_notes.{QI_MARK}",
        f"pl_notes.{SA_MARK}",
        "qi[]",
        "real_records.any",
        "real_records.own",
        f"recursive_c.{SA_MARK}",
        "rows",
        "sa[]",
        "satisfied",
        "satisfied_on",
        "seconds",
        "suppressed_rows",
        "synthetic",
        "unpaired_because",
        f"l_distinct.{SA_MARK}",
        f"l_entropy.{SA_MARK}",
        f"t_closeness.{SA_MARK}.distance",
        "loss.c_avg",
        "loss.discernibility",
        "loss.gcp_columns[]",
        f"loss.levels.{QI_MARK}",
        "loss.loss_columns[]",
        "loss.whd_total",
        "risk.suppressed_rows",
        # the verdicts, on the classes and (a synthetic release) on its records
        *(f"{part}[].{key}" for part in ("verdicts", "record_verdicts") for key in VERDICT_KEYS),
        # the attacks: counts, the tolerance asked for, the roll
        "attack.linkage.targets",
        "attack.linkage.unique_matches",
        "attack.linkage.reidentified",
        "attack.linkage.false_matches",
        f"attack.linkage.attribute_disclosed.{SA_MARK}",
        f"attack.linkage.attribute_within_tolerance.{SA_MARK}",
        "attack.linkage.tolerance",
        "attack.linkage.suppressed_targets",
        # the kind of release and the names around its loss figures
        "kind",
        "loss_headline.name",
        "loss_headline.columns[]",
        "loss.il1s",  # in units of √2 standard deviations: unbounded
        "loss_detail.headline",
        "loss_detail.il1s",
        "loss_detail.il1s_columns[]",
        "loss_detail.not_compared",
        f"loss_detail.numeric.{QI_MARK}.mean_absolute_deviation",
        f"loss_detail.numeric.{QI_MARK}.mean_relative_deviation",
        f"loss_detail.numeric.{QI_MARK}.variance_distortion",
        "loss_detail.correlation",  # None with fewer than two numeric quasi-identifiers
        "loss_detail.correlation.mean_abs_difference",  # differences of correlations: ≤ 2
        "loss_detail.correlation.max_abs_difference",
        f"loss_detail.marginals.columns.{QI_MARK}.measure",
        f"loss_detail.columns.{QI_MARK}.measure",
        "attack.linkage_distance.method",
        "attack.linkage_distance.targets",
        "attack.linkage_distance.reidentified",
        "attack.linkage_distance.linked_to_own",
        "attack.linkage_distance.expected",
        "attack.linkage_distance.unreachable",
        "attack.linkage_distance.numeric_used[]",
        "attack.linkage_distance.categorical_equal[]",
        "attack.linkage_strongest.method",
        "attack.linkage_strongest.reidentified",
        "attack.linkage_strongest.targets",
        "attack.homogeneity.classes_exposed",
        "attack.homogeneity.records_exposed",
        "attack.homogeneity.classes",
        "attack.roll.size",
        "attack.roll.embedded",
        "attack.roll.qi[]",
        "attack.roll.locale",
        "attack.roll.seed",
        "attack.roll.joint",
        "attack.roll.as_of",
        "attack.seconds",
    }
)
#: The attacks' risk block (the same figures, against the attack's voter roll).
ATTACK_RISK = frozenset(
    f"attack.risk.{name}"
    for name in (
        "prosecutor_max",
        "prosecutor_avg",
        "journalist_max",
        "journalist_avg",
        "marketer",
        "records_at_risk",
    )
)
CLASSIFIED = UNIT_INTERVAL | ATTACK_RISK | set(PER_QI) | OTHER

SETTINGS = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# --------------------------------------------------------------------------- figures


def leaves(value: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    """(path, value) of every leaf of a JSON-like value; a list adds the segment "[]"."""
    if isinstance(value, Mapping):
        for name, item in value.items():
            yield from leaves(item, (*path, str(name)))
    elif isinstance(value, list | tuple):
        for item in value:
            yield from leaves(item, (*path[:-1], f"{path[-1]}[]") if path else ("[]",))
    else:
        yield path, value


def generic(path: Sequence[str], qi: Sequence[str], sa: Sequence[str]) -> str:
    """The key of a path with column names written {qi} / {sa}; "before" (the attacks
    on the original table) has the keys of the release's figures."""
    parts = [QI_MARK if p in qi else SA_MARK if p in sa else p for p in path]
    if parts[:2] == ["attack", "before"]:
        parts = ["attack", *parts[2:]]
    return ".".join(parts)


def check_figures(figures: Mapping[str, Any], qi, sa, where: str) -> set[str]:
    """Every key classified; every [0, 1] figure in [0, 1]; returns the keys seen."""
    seen = {generic(path, qi, sa) for path, _ in leaves(figures)}
    unclassified = sorted(seen - CLASSIFIED)
    assert not unclassified, f"{where}: classify {unclassified} in UNIT_INTERVAL, PER_QI or OTHER"
    for path, value in leaves(figures):
        name = generic(path, qi, sa)
        if name in UNIT_INTERVAL or name in ATTACK_RISK:
            if value is None:
                continue
            assert isinstance(value, int | float) and not isinstance(value, bool), (name, value)
            assert -TOL <= value <= 1 + TOL, f"{where}: {'.'.join(path)} = {value!r}"
        elif name in PER_QI and value is not None:
            columns: Any = figures  # the QIs it covers, where the figures name them
            for part in PER_QI[name].split("."):
                columns = columns.get(part, qi) if isinstance(columns, Mapping) else qi
            assert -TOL <= value <= len(columns) + TOL, f"{where}: {name} = {value!r}"
    return seen


def check_utility(utility: Mapping[str, Any] | None, where: str) -> None:
    """The shares of a perturbative release's utility lie in [0, 1]: cells changed per
    QI, the correlations' changes (absolute differences of two values in [−1, 1] are at
    most 2); the regression's interval overlaps are at most 1 (Karr et al.'s J is
    negative for disjoint intervals) and finite."""
    if utility is None:
        return
    shares = [f["changed_share"] for f in utility["numeric"].values()]
    shares += [f["changed_share"] for f in utility["categorical"].values()]
    for value in shares:
        assert -TOL <= value <= 1 + TOL, f"{where}: utility share {value!r}"
    regression = utility.get("regression") or {}
    for value in (regression.get("interval_overlap") or {}).values():
        assert value is None or (math.isfinite(value) and value <= 1 + TOL), (where, value)
    correlation = utility.get("correlation") or {}
    for name in ("max_abs_difference", "mean_abs_difference"):
        value = correlation.get(name)
        assert value is None or -TOL <= value <= 2 + TOL, f"{where}: {name} = {value!r}"


def all_figures(release, original: pd.DataFrame, models, hierarchies) -> tuple[dict, set[str]]:
    """Every figure source of one release, checked; returns them and the keys seen."""
    qi, sa = list(release.qi), list(release.sa)
    # a perturbative release's utility is checked on its own (check_utility)
    report = {k: v for k, v in release.to_dict().items() if k not in ("params", "utility")}
    check_utility(release.utility, release.algorithm)
    sources = {
        "measurement": release.measurement.to_dict(),
        "measurement history": release.measurement.history_summary(),
        "report": report,
        "report history": release.history_summary(),
    }
    text = to_csv_bytes(release.export(shuffle=False))
    read_back = load(text, filename="release.csv").frame
    roll = build_roll(original, qi, seed=0)
    sources["read back"] = measure_release(
        original,
        read_back,
        qi=qi,
        sa=sa,
        models=models,
        hierarchies=hierarchies,
        population=roll.frame,
    ).to_dict()
    attacks = simulate(original, read_back, qi, sa, roll=roll, hierarchies=hierarchies)
    sources["attacks"] = {"attack": attacks.to_dict()}
    seen: set[str] = set()
    for where, figures in sources.items():
        seen |= check_figures(figures, qi, sa, f"{release.algorithm}, {where}")
    return sources, seen


# --------------------------------------------------------------------------- strategies


def column_of(draw, n: int, values: st.SearchStrategy) -> list:
    return draw(st.lists(values, min_size=n, max_size=n))


@st.composite
def tables(draw) -> tuple[pd.DataFrame, Schema]:
    n = draw(st.integers(8, 30))
    frame: dict[str, list] = {}
    if draw(st.booleans()):
        frame["age"] = column_of(draw, n, st.integers(18, 80))
    else:
        frame["age"] = [round(v, 1) for v in column_of(draw, n, st.floats(18.0, 80.0))]
    others = draw(
        st.lists(
            st.sampled_from(["sex", "zip", "city", "weight"]), min_size=1, max_size=2, unique=True
        )
    )
    pools = {
        "sex": st.sampled_from(["F", "M"]),
        "zip": st.sampled_from(["47677", "47602", "47678", "47905", "47909", "47906"]),
        "city": st.sampled_from(["Lyon", "Nice", "Metz", "Brest", "Caen", "Dijon"]),
        "weight": st.floats(40.0, 120.0).map(lambda v: round(v, 1)),
    }
    for name in others:
        frame[name] = column_of(draw, n, pools[name])
    qi = ["age", *others]
    frame["salary"] = column_of(draw, n, st.integers(1, 12).map(lambda v: v * 1000))
    sa = ["salary"]
    if draw(st.booleans()):
        diseases = st.sampled_from(["flu", "asthma", "ulcer", "cancer", "gastritis"])
        frame["disease"] = column_of(draw, n, diseases)
        sa.append("disease")
    table = pd.DataFrame(frame)
    if draw(st.booleans()):  # a few missing cells in some columns
        for name in draw(st.lists(st.sampled_from(list(frame)), max_size=3, unique=True)):
            rows = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=3, unique=True))
            table[name] = table[name].astype(object)
            table.loc[rows, name] = None
    table = load(table).frame  # as an upload reads it: missing cells become missing values
    roles = {**dict.fromkeys(qi, "quasi_identifier"), **dict.fromkeys(sa, "sensitive")}
    suggested = suggest_hierarchies(table, [*qi, *sa])
    return table, Schema(roles, {c: s.hierarchy for c, s in suggested.items()})


@st.composite
def constraints(draw) -> list[PrivacyModel]:
    """k from 2 to 4, alone or with an l form or a t with an EMD distance."""
    models: list[PrivacyModel] = [KAnonymity(draw(st.integers(2, 4)))]
    extra = draw(st.sampled_from(["none", "distinct", "entropy", "recursive", "t"]))
    if extra == "distinct":
        models.append(DistinctLDiversity(2))
    elif extra == "entropy":
        models.append(EntropyLDiversity(draw(st.floats(1.0, 2.0))))
    elif extra == "recursive":
        models.append(RecursiveCLDiversity(3.0, 2))
    elif extra == "t":
        distance = draw(st.sampled_from(["auto", "equal", "ordered", "hierarchical"]))
        models.append(TCloseness(draw(st.floats(0.3, 0.9)), distance))
    return models


# --------------------------------------------------------------------------- properties


def incomplete_numbers(table: pd.DataFrame, schema: Schema) -> bool:
    """A numeric quasi-identifier with a missing value (condensation and MDAV refuse it)."""
    return any(
        pd.api.types.is_numeric_dtype(table[c]) and table[c].isna().any()
        for c in schema.quasi_identifiers
    )


@pytest.mark.parametrize("algorithm", list(ALGORITHMS))
@SETTINGS
@given(data=st.data())
def test_every_unit_figure_stays_in_the_unit_interval(algorithm, data):
    table, schema = data.draw(tables(), label="table")
    models = data.draw(constraints(), label="models")
    max_suppression = data.draw(st.sampled_from([0.0, 0.1, 0.3]), label="max_suppression")
    try:
        release = anonymize(
            table,
            schema,
            models,
            algorithm=algorithm,
            max_suppression=max_suppression,
            seed=data.draw(st.integers(0, 2**16), label="seed"),
        )
    except InfeasibleError:
        event("infeasible")
        return
    except ParameterError as exc:
        refusals = ("anonymize.condensation_missing", "anonymize.numeric_qi_incomplete")
        if exc.code in refusals and incomplete_numbers(table, schema):
            event(f"{algorithm} refuses a missing number")
            return
        raise
    event("released")
    all_figures(release, table, models, schema.hierarchies)


def test_the_classification_names_only_figures_that_exist():
    """Every key of UNIT_INTERVAL and PER_QI occurs in some release of the hospital table
    (every algorithm, k = 2 with distinct 2-diversity and t ≤ 0.9): the lists name no
    figure that is gone."""
    dataset, schema = load_sample("hospital")
    models = [KAnonymity(2), DistinctLDiversity(2), TCloseness(0.9, "ordered")]
    seen: set[str] = set()
    for algorithm in ALGORITHMS:
        # the nine ZIP codes are nine strata of one record: MDAV and local suppression
        # blank every row, which only a limit of 100 % allows
        blanks = algorithm in ("mdav", "local_suppression")
        release = anonymize(
            dataset.frame,
            schema,
            models,
            algorithm=algorithm,
            max_suppression=1.0 if blanks else 0.0,
        )
        seen |= all_figures(release, dataset.frame, models, schema.hierarchies)[1]
    assert (UNIT_INTERVAL | ATTACK_RISK | set(PER_QI)) - seen == set()


def test_condensation_utility_on_the_bundled_tables_is_a_share():
    """Condensation releases synthetic numbers with (nearly) one distinct value per row,
    more distinct values than the original: seed 001's (H(X̄_qd) + H(X̄_prv)) /
    (H(X_qd) + H(X_prv)) then exceeds 1; the mutual-information UL of SPEC §3 cannot."""
    for name in ("hospital", "adult"):
        dataset, schema = load_sample(name)
        table = dataset.frame.head(2000)
        release = anonymize(table, schema, [KAnonymity(5)], algorithm="condensation")
        figures, _ = all_figures(release, table, [KAnonymity(5)], schema.hierarchies)
        assert 0.0 <= figures["measurement"]["ul"] <= 1.0
        assert np.isclose(figures["read back"]["ul"], figures["measurement"]["ul"], atol=1e-12)
