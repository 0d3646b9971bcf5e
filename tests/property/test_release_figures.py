"""Every figure of an anonymization report equals the written release (hypothesis).

For random settings — any of the seven algorithms, k (up to the whole table, which
sends a full-domain search to the lattice top), an l form, a t distance, a suppression
limit, a seed — on small random tables, the release is written to CSV with privcore's
writer and read back with privcore's loader, and every figure of the report
(``Release.to_dict()`` after a JSON round trip: classes, k, suppressed rows, the
verdicts and what each model achieved, l and t per sensitive attribute, discernibility,
C_avg, WHD, GCP/NCP, precision, PL, DR, UL, real records, the full-domain node) is
recomputed from the file and the original table by the straightforward code below:
plain pandas group-bys and Python over the (few) classes — no privcore.classes, models
or measure code.

The rows whose QIs are all ``*``: those the algorithm blanked are its suppressed rows
(SPEC §13; left out of the classes and checks, charged n each in discernibility, within
the suppression limit), which the written file alone cannot tell from rows generalized
to the top — those are a class like any other. (A file without that record is read by
the rule of privcore.classes: G taken as one class is checked against every requested
model; if it passes it is a class, else its rows are suppressed.)

Two settings are fixed besides: a release at the lattice top (one class of every row)
and a release where every row is suppressed (and the same request without a
suppression budget, which is infeasible).
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from privcore.anonymize import ALGORITHMS, FULL_DOMAIN, anonymize
from privcore.data import load, save
from privcore.data.hierarchy import Hierarchy
from privcore.data.roles import is_measurement
from privcore.data.schema import Schema
from privcore.errors import InfeasibleError
from privcore.history import to_json
from privcore.models import (
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    RecursiveCLDiversity,
    TCloseness,
)
from tests.property.test_anonymize_properties import DISEASE_HIERARCHY, tables

TOL = 1e-9
STAR = "*"
SUPPRESSION = [0.0, 0.05, 0.1, 0.25, 0.5, 1.0]


# --------------------------------------------------------------------------- values


def key(value) -> str | None:
    """A cell as text: integral numbers without '.0', missing as None (39 = 39.0 = '39')."""
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return None
    if isinstance(value, bool | np.bool_):
        return str(value)
    if isinstance(value, int | np.integer):
        return str(int(value))
    if isinstance(value, float | np.floating):
        value = float(value)
        return str(int(value)) if value.is_integer() else repr(value)
    return str(value)


def keys(frame: pd.DataFrame, columns) -> list[tuple]:
    return [tuple(key(v) for v in row) for row in frame[list(columns)].itertuples(index=False)]


def entropy_bits(items: list) -> float:
    n = len(items)
    return -sum(c / n * math.log2(c / n) for c in Counter(items).values())


# --------------------------------------------------------------------------- models


def distribution(values: list) -> dict:
    n = len(values)
    return {v: c / n for v, c in Counter(values).items()}


def text_order(values) -> list:
    """The ordered domain: numeric order for numbers, text order otherwise."""
    if all(isinstance(v, int | float | np.integer | np.floating) for v in values):
        return sorted(values, key=float)
    return sorted(values, key=str)


def t_of(class_values: list, table_values: list, distance: str, hierarchy) -> float:
    p, q = distribution(class_values), distribution(table_values)
    domain = list(q)
    if distance == "equal":
        return 0.5 * sum(abs(p.get(v, 0.0) - q[v]) for v in domain)
    if distance == "kl":
        return sum(pv * math.log(pv / q[v]) for v, pv in p.items())
    if distance == "ordered":
        ordered = text_order(domain)
        if len(ordered) < 2:
            return 0.0
        running, total = 0.0, 0.0
        for v in ordered:
            running += p.get(v, 0.0) - q[v]
            total += abs(running)
        return total / (len(ordered) - 1)
    # hierarchical: Σ over inner nodes N of (level(N)/H) · min(pos(N), neg(N)), the
    # extra of a leaf being p − q, of an inner node the sum of its children's extras
    height = hierarchy.height
    chains = ancestor_table(hierarchy)
    extra = {key(v): p.get(v, 0.0) - q[v] for v in domain}
    cost = 0.0
    for level in range(1, height + 1):
        parent = {chains[key(v)][level - 1]: chains[key(v)][level] for v in domain}
        children: dict = {}
        for node, value in extra.items():
            children.setdefault(parent[node], []).append(value)
        for values in children.values():
            pos = sum(v for v in values if v > 0)
            neg = sum(-v for v in values if v < 0)
            cost += level / height * min(pos, neg)
        extra = {node: sum(values) for node, values in children.items()}
    return cost


def resolved(distance: str, values: list) -> str:
    if distance != "auto":
        return distance
    numeric = all(isinstance(v, int | float | np.integer | np.floating) for v in values)
    return "ordered" if numeric else "equal"


def class_measures(model, groups: list[pd.DataFrame], table: pd.DataFrame, sa, hierarchies):
    """(per-class pass, achieved) of one model over ``groups`` (each a class's rows)."""
    covered = list(getattr(model, "attributes", None) or sa)
    if isinstance(model, KAnonymity):
        sizes = [len(g) for g in groups]
        return [s >= model.k for s in sizes], {"k": min(sizes) if sizes else None}
    passes = [True] * len(groups)
    achieved: dict = {}
    distances = {}
    for name in covered:
        values = [g[name].tolist() for g in groups]
        if isinstance(model, DistinctLDiversity):
            measure = [len(set(map(key, v))) for v in values]
            ok = [m >= model.l for m in measure]
            worst = min(measure) if measure else None
        elif isinstance(model, EntropyLDiversity):
            entropies = [
                -sum(c / len(v) * math.log(c / len(v)) for c in Counter(v).values()) for v in values
            ]
            ok = [h >= math.log(model.l) - 1e-12 for h in entropies]
            worst = min(math.exp(h) for h in entropies) if entropies else None
        elif isinstance(model, RecursiveCLDiversity):
            ratios, ok = [], []
            for v in values:
                counts = sorted(Counter(v).values(), reverse=True)
                tail = sum(counts[model.l - 1 :])
                ok.append(counts[0] < model.c * tail)
                ratios.append(counts[0] / tail if tail else math.inf)
            worst = max(ratios) if ratios else None
            worst = None if worst is not None and math.isinf(worst) else worst
        else:
            table_values = table[name].tolist()
            distance = resolved(model.distance, table_values)
            distances[name] = distance
            measure = [t_of(v, table_values, distance, hierarchies.get(name)) for v in values]
            ok = [m <= model.t + 1e-12 for m in measure]
            worst = max(measure) if measure else None
        passes = [a and b for a, b in zip(passes, ok, strict=True)]
        achieved[name] = worst
    key_name = {
        DistinctLDiversity: "l",
        EntropyLDiversity: "l",
        RecursiveCLDiversity: "c",
        TCloseness: "t",
    }[type(model)]
    out = {key_name: achieved}
    if isinstance(model, TCloseness):
        out["distance"] = distances
    return passes, out


# --------------------------------------------------------------------------- the figures


def ancestor_table(hierarchy: Hierarchy) -> dict[str, list[str]]:
    """leaf → [label at level 0, 1, …, top]."""
    return {
        leaf: [str(hierarchy.labels(g)[hierarchy.codes(g)[i]]) for g in range(hierarchy.height + 1)]
        for i, leaf in enumerate(hierarchy.leaves)
    }


def whd_of_level(g: int, height: int) -> float:
    """WHD(h, h − g) with h = height + 1 levels and weights 1/(j − 1) (SPEC §5)."""
    h = height + 1
    weight = {j: 1.0 / (j - 1) for j in range(2, h + 1)}
    return sum(weight[j] for j in range(h - g + 1, h + 1)) / sum(weight.values())


def hierarchy_loss(original: pd.DataFrame, released: pd.DataFrame, qi, hierarchies):
    """WHD total and mean, GCP and precision over the QIs whose every released cell is
    a label of the original value's ancestors (SPEC §5); None when there is none."""
    levels, ncps = {}, {}
    for column in qi:
        hierarchy = hierarchies[column]
        chains = ancestor_table(hierarchy)
        top = hierarchy.height
        column_levels = []
        for before, after in zip(original[column], released[column], strict=True):
            chain = chains[key(before)]
            after = key(after)
            match = [g for g in range(top + 1) if chain[g] == after]
            if after == STAR:
                match.append(top)
            column_levels.append(min(match) if match else -1)
        if min(column_levels) < 0:
            continue
        levels[column] = column_levels
        present = sorted({key(v) for v in original[column]})
        numeric = pd.api.types.is_numeric_dtype(original[column].dtype)
        cells = []
        for before, g in zip(original[column], column_levels, strict=True):
            if g == 0:
                cells.append(0.0)
            elif g == top:
                cells.append(1.0)
            else:
                label = chains[key(before)][g]
                under = [v for v in present if chains[v][g] == label]
                if numeric:
                    span = max(map(float, present)) - min(map(float, present))
                    width = max(map(float, under)) - min(map(float, under))
                    cells.append(width / span if span > 0 else 0.0)
                else:
                    cells.append(len(under) / len(present) if len(under) > 1 else 0.0)
        ncps[column] = cells
    if not levels:
        return {}
    n = len(original)
    per_record = [
        sum(whd_of_level(levels[c][i], hierarchies[c].height) for c in levels) for i in range(n)
    ]
    total = sum(per_record)
    return {
        "whd_total": total,
        "whd_mean": total / n,
        "gcp": sum(sum(v) for v in ncps.values()) / (n * len(ncps)),
        "precision": 1.0
        - sum(sum(levels[c]) / hierarchies[c].height for c in levels) / (n * len(levels)),
    }


def mondrian_ncp(original: pd.DataFrame, released: pd.DataFrame, qi, hierarchies) -> float:
    """Mondrian's GCP from the released cells: a range [a-b] of a numeric QI costs
    (b − a)/(max − min); a hierarchy label costs the share of the column's values under it
    (0 for a single value)."""
    total = 0.0
    for column in qi:
        values = original[column]
        if pd.api.types.is_numeric_dtype(values.dtype):
            scale = float(values.max() - values.min())
            for cell in released[column]:
                found = re.fullmatch(r"\[(.+)-(.+)\]", str(cell))
                width = float(found.group(2)) - float(found.group(1)) if found else 0.0
                total += width / scale if scale > 0 else 0.0
            continue
        chains = ancestor_table(hierarchies[column])
        present = sorted({key(v) for v in values})
        for cell in released[column]:
            cell = key(cell)
            if cell in present:
                continue
            under = [v for v in present if cell in chains[v]]
            total += len(under) / len(present)
    return total / (len(original) * len(qi))


def expected_report(
    original, released, qi, sa, models, hierarchies, algorithm, blanked=None
) -> dict:
    """The report's figures recomputed from the written file and the original table;
    ``blanked``: the rows the algorithm blanked (its suppressed rows, SPEC §13), which
    the file alone cannot tell from rows generalized to '*'."""
    n = len(released)
    star = released[list(qi)].apply(lambda col: col.map(key) == STAR).all(axis=1).to_numpy()
    suppressed = np.zeros(n, dtype=bool)
    if blanked is not None:
        assert not (blanked & ~star).any(), "a suppressed row shows '*' in every QI"
        suppressed = blanked
    elif star.any():
        group = released[star]
        passes = [class_measures(m, [group], released, sa, hierarchies)[0][0] for m in models]
        suppressed = star if not all(passes) else suppressed
    kept = released[~suppressed]
    class_keys = keys(kept, qi)
    by_key: dict = {}
    for position, class_key in zip(kept.index, class_keys, strict=True):
        by_key.setdefault(class_key, []).append(position)
    groups = [released.loc[rows] for rows in by_key.values()]
    sizes = [len(g) for g in groups]

    verdicts, per_model_pass = [], []
    for model in models:
        passes, achieved = class_measures(model, groups, released, sa, hierarchies)
        per_model_pass.append(passes)
        verdicts.append(
            {
                "model": model.name,
                "achieved": achieved,
                "passed": all(passes),
                "violating_classes": sum(not p for p in passes),
                "violating_rows": sum(s for s, p in zip(sizes, passes, strict=True) if not p),
            }
        )

    t_distance = {}
    for name in sa:
        chosen = next(
            (
                m.distance
                for m in models
                if isinstance(m, TCloseness) and (m.attributes is None or name in m.attributes)
            ),
            "auto",
        )
        distance = resolved(chosen, released[name].tolist())
        measure = [
            t_of(g[name].tolist(), released[name].tolist(), distance, hierarchies.get(name))
            for g in groups
        ]
        t_distance[name] = {"distance": distance, "t": max(measure) if measure else None}

    requested_k = next((m.k for m in models if isinstance(m, KAnonymity)), None)
    if requested_k is None:
        requested_k = min(sizes) if sizes else 1
    loss = {
        "discernibility": sum(s * s for s in sizes) + int(suppressed.sum()) * n,
        "c_avg": (len(kept) / len(groups)) / requested_k if groups else None,
        **hierarchy_loss(original, released, qi, hierarchies),
    }
    if algorithm == "mondrian":
        loss["ncp"] = loss["gcp"] = mondrian_ncp(original, released, qi, hierarchies)

    x_qd, x_prv = keys(original, qi), keys(original, sa)
    r_qd, r_prv = keys(released, qi), keys(released, sa)
    h_x_prv, h_r_prv = entropy_bits(x_prv), entropy_bits(r_prv)
    h_x_qd = entropy_bits(x_qd)
    mi_qd = h_x_qd + entropy_bits(r_qd) - entropy_bits(list(zip(x_qd, r_qd, strict=True)))
    mi_prv = h_x_prv + h_r_prv - entropy_bits(list(zip(x_prv, r_prv, strict=True)))
    h_prv_given_qd = entropy_bits(list(zip(r_prv, r_qd, strict=True))) - entropy_bits(r_qd)
    dr = 0.0 if h_r_prv <= 1e-12 else min(max(1.0 - h_prv_given_qd / h_r_prv, 0.0), 1.0)
    information = 0.0 if h_x_prv <= 1e-12 else min(max(mi_prv / h_x_prv, 0.0), 1.0)
    denominator = h_x_qd + h_x_prv
    ul = 1.0 if denominator <= 1e-12 else (mi_qd + mi_prv) / denominator

    original_rows = keys(original, [*qi, *sa])
    released_rows = keys(released, [*qi, *sa])
    known = set(original_rows)
    return {
        "k": min(sizes) if sizes else None,
        "classes": len(groups),
        "rows": n,
        "suppressed_rows": int(suppressed.sum()),
        "verdicts": verdicts,
        "satisfied": all(v["passed"] for v in verdicts),
        "l_distinct": {
            name: min((len({key(v) for v in g[name]}) for g in groups), default=None) for name in sa
        },
        "t_closeness": t_distance,
        "loss": loss,
        "dr": dr,
        "pl": dr * information,
        "ul": ul,
        "real_records": {
            "own": sum(a == b for a, b in zip(original_rows, released_rows, strict=True)),
            "any": sum(row in known for row in released_rows),
        },
    }


GENERALIZATION_ONLY = ("gcp", "ncp", "precision", "whd_total", "whd_mean")


def _number(cell) -> float:
    """A released cell as a number (">=m" / "<=M" as m / M), NaN when it is none."""
    text = str(cell).strip()
    for sign in (">=", "<=", "≥", "≤"):
        text = text.removeprefix(sign).strip()
    try:
        value = float(text)
    except ValueError:
        return math.nan
    return value if math.isfinite(value) else math.nan


def plain_distortion(original, released, qi, numeric) -> float:
    """Mean over every QI cell of min(1, |x − x'| / (√2·S)) for a number, 1 for a number
    blanked, 1[x ≠ x'] for a category (compared as keys)."""
    total, cells = 0.0, 0
    for column in qi:
        for a, b in zip(original[column].tolist(), released[column].tolist(), strict=True):
            cells += 1
            if column in numeric:
                values = [_number(v) for v in original[column].tolist()]
                values = [v for v in values if not math.isnan(v)]
                mean = sum(values) / len(values)
                spread = math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))
                x, y = _number(a), _number(b)
                if math.isnan(y):
                    total += 1.0
                elif spread > 0:
                    total += min(1.0, abs(x - y) / (math.sqrt(2) * spread))
                else:
                    total += float(x != y)
            else:
                total += float(key(a) != key(b))
    return total / cells


def plain_marginal_distance(original, released, qi, numeric) -> float:
    """Mean over the QIs of the Kolmogorov–Smirnov distance (numbers) or the total
    variation distance of the value frequencies (categories)."""
    distances = []
    for column in qi:
        if column in numeric:
            a = sorted(v for v in map(_number, original[column]) if not math.isnan(v))
            b = sorted(v for v in map(_number, released[column]) if not math.isnan(v))
            grid = sorted(set(a) | set(b))
            distances.append(
                max(
                    abs(sum(v <= x for v in a) / len(a) - sum(v <= x for v in b) / len(b))
                    for x in grid
                )
            )
        else:
            p = Counter(key(v) for v in original[column])
            q = Counter(key(v) for v in released[column])
            n, m = len(original), len(released)
            distances.append(0.5 * sum(abs(p[v] / n - q[v] / m) for v in set(p) | set(q)))
    return sum(distances) / len(distances)


# --------------------------------------------------------------------------- comparison


def same(got, want, where: str) -> None:
    if isinstance(want, dict):
        assert isinstance(got, dict), where
        for name, value in want.items():
            same(got.get(name), value, f"{where}.{name}")
    elif isinstance(want, float):
        assert got is not None and abs(got - want) <= TOL, (where, got, want)
    else:
        assert got == want, (where, got, want)


def check_report(release, df, schema, models, tmp_path) -> dict:
    """Write the release, read it back, recompute, compare; returns the report."""
    report = json.loads(to_json(release.to_dict()))
    path = tmp_path / "release.csv"
    save(release.export(shuffle=False), path)
    released = load(path).frame
    original = df.drop(columns=list(schema.identifiers))
    qi, sa = list(schema.quasi_identifiers), list(schema.sensitive)
    assert list(released.columns) == list(release.frame.columns)
    blanked = np.asarray(release.suppressed, dtype=bool)
    assert int(blanked.sum()) <= math.floor(release.params["max_suppression"] * len(df) + 1e-9)
    want = expected_report(
        original, released, qi, sa, models, schema.hierarchies, release.algorithm, blanked
    )
    loss = want.pop("loss")
    verdicts = want.pop("verdicts")
    if release.synthetic:
        want.pop("satisfied")  # a synthetic release's guarantee is on its groups
    same(report, want, release.algorithm)
    reported_loss = report["loss"]
    generalized = report["kind"] == "generalized"
    for name, value in loss.items():
        if value is None or (not generalized and name in GENERALIZATION_ONLY):
            # a loss that does not fit the release is absent, never a false figure
            assert name not in reported_loss, name
        else:
            same(reported_loss.get(name), value, f"loss.{name}")
    if not generalized:
        numeric = [c for c in qi if is_measurement(original[c], c, schema.hierarchies.get(c))]
        headline = report["loss_headline"]
        if report["kind"] == "perturbed":
            same(headline["value"], plain_distortion(original, released, qi, numeric), "distortion")
        else:
            same(
                headline["value"],
                plain_marginal_distance(original, released, qi, numeric),
                "marginal_distance",
            )
    # a synthetic release's verdicts are its groups'; its records' are record_verdicts
    records = report["record_verdicts"] if release.synthetic else report["verdicts"]
    assert len(records) == len(verdicts)
    for got, expected in zip(records, verdicts, strict=True):
        same(got, expected, f"verdict {expected['model']}")
    if release.algorithm in FULL_DOMAIN:
        node = report["node"]
        top = released[qi].apply(lambda col: col.map(key) == STAR).all(axis=1)
        for column in qi:
            chains = ancestor_table(schema.hierarchies[column])
            level = node[column]
            for before, after in zip(original[column][~top], released[column][~top], strict=True):
                assert chains[key(before)][level] == key(after), (column, before, after)
    return report


# --------------------------------------------------------------------------- strategies


@st.composite
def requests(draw, n: int):
    """k from 1 to 4, or every row (full-domain searches then end at the top); an l
    form; a t distance (hierarchical on the SA with a hierarchy); a suppression limit."""
    k = draw(st.one_of(st.integers(1, 4), st.just(n)))
    models = [KAnonymity(k)]
    l_form = draw(st.sampled_from(["none", "distinct", "entropy", "recursive"]))
    if l_form == "distinct":
        models.append(DistinctLDiversity(draw(st.integers(1, 3))))
    elif l_form == "entropy":
        models.append(EntropyLDiversity(draw(st.floats(1.0, 2.5))))
    elif l_form == "recursive":
        models.append(RecursiveCLDiversity(draw(st.floats(1.1, 4.0)), draw(st.integers(1, 3))))
    distance = draw(st.sampled_from(["none", "equal", "ordered", "hierarchical", "kl"]))
    if distance == "hierarchical":
        models.append(TCloseness(draw(st.floats(0.1, 0.8)), "hierarchical", ("disease",)))
    elif distance != "none":
        models.append(TCloseness(draw(st.floats(0.05, 2.0 if distance == "kl" else 0.9)), distance))
    return models


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.function_scoped_fixture,
    ],
)
@given(data=st.data())
def test_every_report_figure_equals_the_written_release(data, tmp_path):
    algorithm = data.draw(st.sampled_from(list(ALGORITHMS)), label="algorithm")
    df, schema = data.draw(tables(), label="table")
    models = data.draw(requests(len(df)), label="models")
    max_suppression = data.draw(st.sampled_from(SUPPRESSION), label="max_suppression")
    seed = data.draw(st.integers(0, 2**16), label="seed")
    try:
        release = anonymize(
            df, schema, models, algorithm=algorithm, max_suppression=max_suppression, seed=seed
        )
    except InfeasibleError:
        event("infeasible")
        return
    report = check_report(release, df, schema, models, tmp_path)
    at_top = release.node is not None and all(
        level == schema.hierarchies[c].height
        for c, level in zip(release.qi, release.node, strict=True)
    )
    event(f"{algorithm}: {'the lattice top' if at_top else 'released'}")
    if report["suppressed_rows"]:
        event("some rows suppressed")
    if report["classes"] == 1:
        event("one class")


# --------------------------------------------------------------------------- fixed settings


def small_table() -> tuple[pd.DataFrame, Schema]:
    """Eight people: an age (hierarchy 0–9/10–19 → *), a sex (→ *), a disease."""
    ages = [3, 5, 12, 14, 17, 3, 8, 11]
    age = Hierarchy(
        [[str(a), "[0-10)" if a < 10 else "[10-20)", "*"] for a in sorted(set(ages))], name="age"
    )
    sex = Hierarchy([["F", "*"], ["M", "*"]], name="sex")
    frame = pd.DataFrame(
        {
            "name": [f"p{i}" for i in range(8)],
            "age": ages,
            "sex": ["F", "M", "F", "M", "F", "F", "M", "M"],
            "disease": ["flu", "asthma", "ulcer", "flu", "cancer", "ulcer", "flu", "asthma"],
        }
    )
    roles = {"name": "identifier", "age": "quasi_identifier", "sex": "quasi_identifier"}
    roles["disease"] = "sensitive"
    return frame, Schema(roles, {"age": age, "sex": sex, "disease": DISEASE_HIERARCHY})


@pytest.mark.parametrize("algorithm", ["samarati", "datafly", "optimal", "incognito"])
def test_a_search_ending_at_the_top_reports_one_class_of_every_row(algorithm, tmp_path):
    """k = 8 on eight rows: only the top node (every QI '*') satisfies. The release is
    one class of 8 rows: k = 8, one class, nothing suppressed, t = 0 (the class is the
    table), distinct l = 4, discernibility 8² = 64, C_avg = (8/1)/8 = 1."""
    frame, schema = small_table()
    models = [KAnonymity(8), TCloseness(0.2, "equal")]
    release = anonymize(frame, schema, models, algorithm=algorithm, max_suppression=0.05)
    assert release.node == (2, 1)
    report = check_report(release, frame, schema, models, tmp_path)
    assert report["k"] == 8 and report["classes"] == 1 and report["suppressed_rows"] == 0
    assert report["t_closeness"]["disease"] == {"distance": "equal", "t": 0.0}
    assert report["l_distinct"]["disease"] == 4
    assert report["loss"]["discernibility"] == 64 and report["loss"]["c_avg"] == 1.0
    assert report["verdicts"][0]["achieved"] == {"k": 8} and report["satisfied"]


def test_a_release_with_every_row_suppressed(tmp_path):
    """Entropy l = 4.5 cannot hold in any class (four diseases: exp(H) ≤ 4): with every
    row allowed to be suppressed, Datafly suppresses all eight at the bottom node; the
    eight rows at '*', as one class, fail too, so they are suppression: no class, k and
    l none, 8 suppressed, discernibility 8 · 8 = 64. Without a budget: infeasible."""
    frame, schema = small_table()
    models = [KAnonymity(2), EntropyLDiversity(4.5)]
    release = anonymize(frame, schema, models, algorithm="datafly", max_suppression=1.0)
    report = check_report(release, frame, schema, models, tmp_path)
    assert report["classes"] == 0 and report["k"] is None
    assert report["suppressed_rows"] == 8 and report["loss"]["discernibility"] == 64
    assert report["l_distinct"]["disease"] is None
    with pytest.raises(InfeasibleError):
        anonymize(frame, schema, models, algorithm="datafly", max_suppression=0.5)
