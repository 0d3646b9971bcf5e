"""Every figure of an anonymization report equals the written release (hypothesis).

For random settings — any algorithm of ``privcore.anonymize.ALGORITHMS``, k (up to the
whole table, which sends a full-domain search to the lattice top), an l form, a t
distance, a suppression limit, a seed — on small random tables, the release is written
to CSV with privcore's writer and read back with privcore's loader, and every figure of
the report (``Release.to_dict()`` after a JSON round trip: classes, k, suppressed rows,
the verdicts and what each model achieved, l and t per sensitive attribute,
discernibility, C_avg, WHD, GCP/NCP, precision, PL, DR, UL, real records, the
full-domain node, the distortion or marginal distance of a perturbed or synthetic
release) is recomputed from the file and the original table by the straightforward code
below: plain pandas group-bys and Python over the (few) classes — no privcore.classes,
models or measure code.

The tables (:func:`release_tables`) hold numbers, text, codes and missing values:

- sometimes a code column, a QI of 6-digit postal codes stored as numbers, named
  ``zip`` (a code by its name) or ``area`` (a code by its hierarchy, which masks
  digits: ``510630 → 51063* → 5106** → … → *``), added to the QIs or in place of the
  first numeric one — then, when the other QIs are text, a method that changes
  measured numbers has nothing to change and refuses (``ParameterError``
  ``anonymize.codes_not_measurements``, ``anonymize.needs_numeric_qi``,
  ``anonymize.condensation_no_numeric``); so do MDAV and condensation for a measured QI
  with missing values (``anonymize.numeric_qi_incomplete``,
  ``anonymize.condensation_missing``). Each refusal is checked to fit the table. A
  perturbative or synthetic release shows a code only as a code of the original (or
  ``*``, or a missing cell where the original is missing): MDAV, noise, rank swapping
  and top/bottom coding keep every code in its row, PRAM draws present codes,
  condensation permutes them within its groups;
- sometimes a share (up to 20 %) of the cells of some QIs and sensitive attributes is
  missing (NaN in a numeric column, None in a text one).

The rules for missing values the recomputation follows (privcore/anonymize/base.py,
privcore/models.py, privcore/measure/loss.py and kind_loss.py): a missing value is one
value of its own — in the classes, the frequencies, l, the entropies, the real records.
A missing QI value is in no hierarchy: below the top it is released as a missing cell
(level 0 for WHD and precision, NCP 0), at the top as ``*`` (NCP 1); Mondrian names it
``NA`` after a range (``[a-b],NA``: the range's NCP for each of its rows, the missing
one too) or inside a set, and releases a hierarchical QI's partition mixing it with
other values at the root (NCP 1). A categorical NCP is a share of the values present in
the column (the missing value is none of them). A missing sensitive value
ranks last in the ordered distance and hangs from the root of the hierarchy by a chain
of its own (ground distance 1 to every other value) in the hierarchical one. The
distortion compares numbers where both cells are numbers, counts a number blanked as 1
and a missing cell left missing as 0; the marginal distance reads only the numbers of a
numeric column.

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
from privcore.data.hierarchy import Hierarchy, masking_hierarchy
from privcore.data.roles import is_measurement
from privcore.data.schema import Schema
from privcore.errors import InfeasibleError, ParameterError
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


# A number written plainly (no leading zero, no sign but a minus): a text cell that
# spells one is that number (a column that became text, '*' among its numbers, writes
# 510640.0 as "510640.0"); "02139" and "+5" stay text.
PLAIN_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")


def key(value) -> str | None:
    """A cell as text: integral numbers without '.0', missing as None, a text that spells
    a number plainly as that number (39 = 39.0 = '39' = '39.0')."""
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return None
    if isinstance(value, bool | np.bool_):
        return str(value)
    if isinstance(value, int | np.integer):
        return str(int(value))
    if isinstance(value, float | np.floating):
        value = float(value)
        return str(int(value)) if value.is_integer() else repr(value)
    if isinstance(value, str) and PLAIN_NUMBER.fullmatch(value):
        return str(int(value)) if re.fullmatch(r"-?\d+", value) else key(float(value))
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


def is_numeric(values) -> bool:
    """A column of numbers: every value present is a number (missing ones aside)."""
    present = [v for v in values if key(v) is not None]
    return all(isinstance(v, int | float | np.integer | np.floating) for v in present)


def text_order(keys_: list, numeric: bool) -> list:
    """The ordered domain of distinct keys: numeric order for numbers, text order
    otherwise; a missing value (None) last."""
    present = [v for v in keys_ if v is not None]
    ordered = sorted(present, key=float) if numeric else sorted(present)
    return ordered + [None] * (None in keys_)


def chains_with_missing(hierarchy: Hierarchy) -> dict:
    """leaf → its labels at level 0 … top, and for a missing value (None) a chain of
    nodes of its own up to the root."""
    chains: dict = dict(ancestor_table(hierarchy))
    top = str(hierarchy.labels(hierarchy.height)[0])
    chains[None] = [None] + [("missing", g) for g in range(1, hierarchy.height)] + [top]
    return chains


def t_of(class_values: list, table_values: list, distance: str, hierarchy, numeric) -> float:
    """The t of one class (EMD, Li, Li & Venkatasubramanian 2007) over value keys."""
    p, q = distribution(class_values), distribution(table_values)
    domain = list(q)
    if distance == "equal":
        return 0.5 * sum(abs(p.get(v, 0.0) - q[v]) for v in domain)
    if distance == "kl":
        return sum(pv * math.log(pv / q[v]) for v, pv in p.items())
    if distance == "ordered":
        ordered = text_order(domain, numeric)
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
    chains = chains_with_missing(hierarchy)
    extra = {v: p.get(v, 0.0) - q[v] for v in domain}
    cost = 0.0
    for level in range(1, height + 1):
        parent = {chains[v][level - 1]: chains[v][level] for v in domain}
        children: dict = {}
        for node, value in extra.items():
            children.setdefault(parent[node], []).append(value)
        for values in children.values():
            pos = sum(v for v in values if v > 0)
            neg = sum(-v for v in values if v < 0)
            cost += level / height * min(pos, neg)
        extra = {node: sum(values) for node, values in children.items()}
    return cost


def resolved(distance: str, numeric: bool) -> str:
    if distance != "auto":
        return distance
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
        values = [[key(v) for v in g[name]] for g in groups]  # missing: None, one value
        if isinstance(model, DistinctLDiversity):
            measure = [len(set(v)) for v in values]
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
            numeric = is_numeric(table[name])
            table_values = [key(v) for v in table[name]]
            distance = resolved(model.distance, numeric)
            distances[name] = distance
            measure = [
                t_of(v, table_values, distance, hierarchies.get(name), numeric) for v in values
            ]
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
    a label of the original value's ancestors (SPEC §5); None when there is none. A
    missing original is in no hierarchy: a missing released cell is its level 0, ``*``
    its top; its NCP is 0 below the top, 1 at the top."""
    levels, ncps = {}, {}
    for column in qi:
        hierarchy = hierarchies[column]
        chains = ancestor_table(hierarchy)
        top = hierarchy.height
        column_levels = []
        for before, after in zip(original[column], released[column], strict=True):
            after = key(after)
            if key(before) is None:
                match = [0] if after is None else []
            else:
                chain = chains[key(before)]
                match = [g for g in range(top + 1) if chain[g] == after]
            if after == STAR:
                match.append(top)
            column_levels.append(min(match) if match else -1)
        if min(column_levels) < 0:
            continue
        levels[column] = column_levels
        present = sorted({key(v) for v in original[column]} - {None})
        numeric = pd.api.types.is_numeric_dtype(original[column].dtype)
        cells = []
        for before, g in zip(original[column], column_levels, strict=True):
            if g == top:
                cells.append(1.0)
            elif g == 0 or key(before) is None:
                cells.append(0.0)
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
    """Mondrian's GCP from the released cells (Xu et al. 2006), over the values present
    in each column: a range [a-b] of a numeric QI costs (b − a)/(max − min), with a
    missing value among its rows too ([a-b],NA, for each of its rows); a single value
    or a missing cell costs 0. A hierarchy label costs the share of the column's values
    under it (0 for a single value), the root 1."""
    total = 0.0
    for column in qi:
        values = original[column]
        if pd.api.types.is_numeric_dtype(values.dtype):
            scale = float(values.max() - values.min())  # pandas skips missing values
            for cell in released[column]:
                found = re.fullmatch(r"\[(.+)-(.+)\](,NA)?", str(cell))
                width = float(found.group(2)) - float(found.group(1)) if found else 0.0
                total += width / scale if scale > 0 else 0.0
            continue
        hierarchy = hierarchies[column]
        chains = ancestor_table(hierarchy)
        root = str(hierarchy.labels(hierarchy.height)[0])
        present = sorted({key(v) for v in values} - {None})
        for cell in released[column]:
            cell = key(cell)
            if cell is None or cell in present:
                continue
            if cell == root:
                total += 1.0
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
        numeric = is_numeric(released[name])
        distance = resolved(chosen, numeric)
        table_values = [key(v) for v in released[name]]
        measure = [
            t_of([key(v) for v in g[name]], table_values, distance, hierarchies.get(name), numeric)
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
    blanked, 1[x ≠ x'] for a category (compared as keys, missing equal to missing); a
    missing number left missing is no change (0), one that became something is 1."""
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
                if math.isnan(x):
                    total += float(key(b) is not None)
                elif math.isnan(y):
                    total += 1.0
                elif spread > 0:
                    total += min(1.0, abs(x - y) / (math.sqrt(2) * spread))
                else:
                    total += float(x != y)
            else:
                total += float(key(a) != key(b))
    return total / cells


def plain_marginal_distance(original, released, qi, numeric) -> float:
    """Mean over the QIs of the Kolmogorov–Smirnov distance over the numbers of a numeric
    column (1 when only one table has any) or the total variation distance of the value
    frequencies (categories, and a numeric column with no number in either table;
    missing is one value)."""
    distances = []
    for column in qi:
        a = sorted(v for v in map(_number, original[column]) if not math.isnan(v))
        b = sorted(v for v in map(_number, released[column]) if not math.isnan(v))
        if column in numeric and a and b:
            grid = sorted(set(a) | set(b))
            distances.append(
                max(
                    abs(sum(v <= x for v in a) / len(a) - sum(v <= x for v in b) / len(b))
                    for x in grid
                )
            )
        elif column in numeric and (a or b):
            distances.append(1.0)
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
            height = schema.hierarchies[column].height
            for before, after in zip(original[column][~top], released[column][~top], strict=True):
                if key(before) is None:  # in no hierarchy: missing below the top, else '*'
                    assert key(after) == (STAR if level == height else None), (column, after)
                else:
                    assert chains[key(before)][level] == key(after), (column, before, after)
    return report


# --------------------------------------------------------------------------- codes


# Methods that keep every code in its row (MDAV groups within each code; noise, rank
# swapping and top/bottom coding leave codes as they are): a code, or '*' for a row MDAV
# suppressed.
CODES_KEPT = ("mdav", "noise", "rank_swap", "top_bottom")


def check_codes(original: pd.DataFrame, released: pd.DataFrame, codes, algorithm) -> None:
    """A perturbative or synthetic release shows a code column only as codes of the
    original: every released cell is one of the original codes, ``*``, or missing where
    the column has missing values; the methods of :data:`CODES_KEPT` keep each row's
    own code (or ``*``), condensation releases the original codes permuted (and the
    suppression marker)."""
    for column in codes:
        before = [key(v) for v in original[column]]
        after = [key(v) for v in released[column]]
        known = set(before) | {STAR}
        strays = [v for v in after if v not in known]
        assert not strays, (column, strays)
        if algorithm in CODES_KEPT:
            for a, b in zip(before, after, strict=True):
                assert b in (a, STAR), (column, a, b)
        if algorithm == "condensation":
            shown = Counter(v for v in after if v != STAR)
            assert not shown - Counter(before), (column, shown, Counter(before))


# A method refuses a table that gives it nothing to change (only codes, or no number)
# or measured numbers with missing values it cannot average.
REFUSALS = (
    "anonymize.codes_not_measurements",
    "anonymize.needs_numeric_qi",
    "anonymize.condensation_no_numeric",
    "anonymize.numeric_qi_incomplete",
    "anonymize.condensation_missing",
)


def check_refusal(error: ParameterError, df: pd.DataFrame, schema: Schema, codes) -> None:
    """The refusal fits the table: no measured numeric QI (only codes, or no number at
    all) for the first three codes; a measured numeric QI with a missing value for the
    last two."""
    assert error.code in REFUSALS, (error.code, error.message)
    qi = list(schema.quasi_identifiers)
    numbers = [c for c in qi if pd.api.types.is_numeric_dtype(df[c].dtype)]
    measured = [c for c in numbers if c not in codes]
    if error.code in REFUSALS[:3]:
        assert not measured, (error.code, measured)
        if error.code == "anonymize.codes_not_measurements":
            assert numbers and set(error.params["columns"]) == set(numbers)
    else:
        incomplete = [c for c in measured if df[c].isna().any()]
        assert incomplete and set(error.params["columns"]) <= set(incomplete), error.params


# --------------------------------------------------------------------------- strategies


POSTAL_CODES = (510630, 510640, 510650, 100080, 100085, 200030)


@st.composite
def code_columns(draw, n: int) -> tuple[str, list[int], Hierarchy]:
    """A QI of 6-digit postal codes stored as numbers: ``zip`` (a code by its name) or
    ``area`` (a code by its hierarchy), 2–4 codes; its hierarchy masks digits from the
    right, the whole masking hierarchy (510630 → 51063* → … → 5***** → *, height 6) or
    one or two of its levels (510630 → 5106** → *)."""
    name = draw(st.sampled_from(["zip", "area"]))
    domain = draw(st.lists(st.sampled_from(POSTAL_CODES), min_size=2, max_size=4, unique=True))
    values = draw(st.lists(st.sampled_from(domain), min_size=n, max_size=n))
    masking = masking_hierarchy(pd.Series(domain, name=name))
    kept = draw(
        st.one_of(
            st.just(list(range(1, masking.height))),
            st.lists(st.integers(1, masking.height - 1), min_size=1, max_size=2, unique=True),
        )
    )
    if len(kept) == masking.height - 1:
        return name, values, masking
    rows = [
        [leaf] + [str(masking.labels(g)[masking.codes(g)[i]]) for g in sorted(kept)] + [STAR]
        for i, leaf in enumerate(masking.leaves)
    ]
    return name, values, Hierarchy(rows, name=name)


def blank(values: pd.Series, rows: list[int]) -> pd.Series:
    """``values`` with the cells ``rows`` missing: NaN in a number, None in text."""
    if pd.api.types.is_numeric_dtype(values.dtype):
        out = values.astype("float64")
        out.iloc[rows] = math.nan
        return out
    out = values.astype(object)
    out.iloc[rows] = None
    return out


@st.composite
def release_tables(draw) -> tuple[pd.DataFrame, Schema, tuple[str, ...]]:
    """:func:`tables` with, sometimes, a code column (added to the QIs or in place of
    the first) and missing values: a share of 0–20 % of the cells of some QIs and
    sensitive attributes (at least one cell each). Returns the table, its schema and
    the code columns."""
    frame, schema = draw(tables())
    n = len(frame)
    roles, hierarchies = dict(schema.roles), dict(schema.hierarchies)
    codes: tuple[str, ...] = ()
    placement = draw(st.sampled_from(["none", "added", "instead"]))
    if placement != "none":
        name, values, hierarchy = draw(code_columns(n))
        if placement == "instead":
            frame = frame.drop(columns="q0")
            del roles["q0"], hierarchies["q0"]
        frame.insert(1, name, values)
        roles = {"name": roles.pop("name"), name: "quasi_identifier", **roles}
        hierarchies[name] = hierarchy
        codes = (name,)
    schema = Schema(roles, hierarchies)
    share = draw(st.sampled_from([0.0, 0.05, 0.1, 0.2]))
    if share:
        columns = [*schema.quasi_identifiers, *schema.sensitive]
        blanked = draw(st.lists(st.sampled_from(columns), min_size=1, unique=True))
        count = max(1, math.floor(share * n))
        for column in blanked:
            rows = draw(
                st.lists(st.integers(0, n - 1), min_size=count, max_size=count, unique=True)
            )
            frame[column] = blank(frame[column], rows)
    return frame, schema, codes


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
    df, schema, codes = data.draw(release_tables(), label="table")
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
    except ParameterError as error:
        check_refusal(error, df, schema, codes)
        event(f"refused: {error.code}")
        return
    report = check_report(release, df, schema, models, tmp_path)
    released = load(tmp_path / "release.csv").frame
    if codes:
        event("a code column")
        if ALGORITHMS[algorithm].family in ("perturbative", "synthetic"):
            check_codes(df, released, codes, algorithm)
            event("a code column, perturbed or synthesized")
    qi = list(schema.quasi_identifiers)
    if df[qi].isna().any().any():
        event("missing QI values")
        cells = released[qi].stack().astype(str)
        if cells.str.contains(r"\bNA\b").any():
            event("a missing QI value named NA in a cell")
    if df[list(schema.sensitive)].isna().any().any():
        event("missing sensitive values")
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
