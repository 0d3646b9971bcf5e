"""What the conditions of a readiness report need beyond the measurement and the attack
figures: the row order of the file to publish, what the matching key is, and the other
columns of the release. Aggregates and column names only, never rows."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from privcore.attacks import unsorted_matching_attack
from privcore.attacks.ordering import spearman
from privcore.core.jsonsafe import plain
from privcore.data import Role, suggest_roles
from privcore.engines.base import values_to_rank
from privcore.measure.entropy import NOTE_CONSTANT, entropy
from privcore.report.thresholds import TOLERANCE

__all__ = [
    "ORDER_IN_PLACE",
    "ORDER_Z",
    "constant_columns",
    "findings",
    "findings_of_facts",
    "is_ordered",
]

#: |ρ|·√(n−1) at or above this is an order, not chance (ρ of a random shuffle ~ N(0, 1/(n−1))).
ORDER_Z = 3.0
#: Rows in place at or above min(n, this) is an order (a random shuffle leaves ~1 in place).
ORDER_IN_PLACE = 5
#: An entropy at or below this is a single value (as the privacy level's own test).
SINGLE_VALUE = 1e-12


def _numeric_or_raw(values: pd.Series) -> np.ndarray:
    """Values to rank: as numbers when they all are (so "10" sorts after "9"), else as
    text (:func:`privcore.engines.base.values_to_rank`, which the engines rank alike)."""
    return values_to_rank(values)


def is_ordered(n: int, rho: float | None, in_place: int | None = None) -> bool:
    """Whether ``n`` rows with rank correlation ``rho`` to the original order and
    ``in_place`` rows at their original position follow that order (not chance):
    |ρ|·√(n−1) ≥ 3, or |ρ| = 1 with n ≥ 5, or at least min(n, 5) rows in place."""
    if n < 2:
        return False
    if rho is not None and abs(rho) * math.sqrt(n - 1) >= ORDER_Z:
        return True
    if rho is not None and n >= ORDER_IN_PLACE and abs(rho) >= 1 - TOLERANCE:
        return True  # small tables: exactly in (or against) the order, by no chance
    return in_place is not None and in_place >= min(n, ORDER_IN_PLACE)


def _release_order(original: pd.DataFrame, release: pd.DataFrame, key: str) -> np.ndarray:
    """The original row of each released row, looked up by the key (unique in both and
    the same set of keys: the measurement's alignment has checked it)."""
    position = pd.Index(release[key]).get_indexer(pd.Index(original[key]))
    order = np.empty(len(position), dtype=np.int64)
    order[position] = np.arange(len(position))
    return order


def _order(
    original: pd.DataFrame,
    release: pd.DataFrame,
    key: str | None,
    *,
    aligned: bool,
    shuffled: bool,
) -> dict[str, Any]:
    """The row order of the file under review and of the file to publish.

    ``kept``: the file under review follows the original order (always when its rows
    are matched by position: they are the original's, in order); ``leaks``: the file to
    publish does (``kept`` and not ``shuffled`` before publishing)."""
    order = None if key is None else _release_order(original, release, key)
    ordering = unsorted_matching_attack(original, release, order=order).summary
    rho = ordering.get("spearman")
    in_place = int(ordering.get("reidentified_by_position", 0))
    return _order_finding(len(release), rho, in_place, key, aligned=aligned, shuffled=shuffled)


def _order_finding(
    n: int, rho: float | None, in_place: int, key: str | None, *, aligned: bool, shuffled: bool
) -> dict[str, Any]:
    """The row-order finding of ``n`` rows with rank correlation ``rho`` to the
    original order and ``in_place`` rows at their original position (see :func:`_order`)."""
    kept = key is None or is_ordered(n, rho, in_place)
    return {
        "matched_by": "position" if key is None else "key",
        "aligned": bool(aligned),
        "shuffled": bool(shuffled),
        "spearman": rho,
        "rows_in_place": int(in_place),
        "rows_in_place_share": in_place / n if n else 0.0,
        "kept": bool(kept),
        "leaks": bool(kept and not shuffled),
    }


def _key(original: pd.DataFrame, key: str | None) -> dict[str, Any]:
    """The key: an identifier by name or value pattern, or a row number in disguise."""
    if key is None:
        return _key_finding(None, None, None, 0)
    rho = spearman(_numeric_or_raw(original[key]))
    return _key_finding(key, original[[key]], rho, len(original))


def _key_finding(
    key: str | None, values: pd.DataFrame | None, rho: float | None, rows: int
) -> dict[str, Any]:
    """The key finding: an identifier by name or value pattern (the role suggestion on
    ``values``, the key's column), or a row number in disguise (its values' rank
    correlation ``rho`` with the row position over ``rows`` rows is an order:
    :func:`is_ordered`)."""
    finding: dict[str, Any] = {"column": key, "identifier": False, "sequential": False}
    if key is not None:
        suggestion = suggest_roles(values)[0]
        finding["identifier"] = suggestion.role is Role.IDENTIFIER and suggestion.rule in (
            "value_pattern",
            "name_pattern",
        )
        finding["spearman_with_row"] = rho
        finding["sequential"] = is_ordered(rows, rho)
    finding["leaks"] = bool(finding["identifier"] or finding["sequential"])
    return finding


def _other_columns(
    release: pd.DataFrame, analysed: set[str]
) -> tuple[list[str], list[str], list[str], list[str]]:
    """The release's columns outside the analysis, and those of them that look like
    identifiers, quasi-identifiers (by name or as dates) or sensitive attributes."""
    others = [c for c in map(str, release.columns) if c not in analysed]
    identifiers: list[str] = []
    qi_like: list[str] = []
    sa_like: list[str] = []
    if others:
        frame = release.loc[:, [c for c in release.columns if str(c) in others]]
        for s in suggest_roles(frame):
            if s.role is Role.IDENTIFIER:
                identifiers.append(s.column)
            elif s.role is Role.QUASI_IDENTIFIER and s.rule in ("name_pattern", "dates"):
                qi_like.append(s.column)
            elif s.role is Role.SENSITIVE:
                sa_like.append(s.column)
    return others, identifiers, qi_like, sa_like


def constant_columns(
    original: pd.DataFrame, release: pd.DataFrame, measurement: Mapping[str, Any]
) -> dict[str, list[str]]:
    """Where the attributes whose privacy level is 0 for a single value (the
    measurement's ``pl_notes``: "constant column") have that single value:
    ``{"original": [...], "release": [...]}`` — in the original when H(X) = 0 there
    (Shannon entropy, missing one value), else in the release alone when H(X̄) = 0 —
    the release made it constant. "all" is every sensitive attribute as one tuple. The
    tables may be frequency sets (an engine's paired parts): a single value is one
    whatever the counts."""
    sa = [str(s) for s in measurement.get("sa") or []]
    out: dict[str, list[str]] = {"original": [], "release": []}
    for attribute, note in (measurement.get("pl_notes") or {}).items():
        if NOTE_CONSTANT not in str(note or ""):
            continue
        columns = sa if attribute == "all" else [str(attribute)]
        if not columns or any(c not in original or c not in release for c in columns):
            continue
        if entropy(original, columns) <= SINGLE_VALUE:
            out["original"].append(str(attribute))
        elif entropy(release, columns) <= SINGLE_VALUE:
            out["release"].append(str(attribute))
    return out


def findings(
    original: pd.DataFrame,
    release: pd.DataFrame,
    qi: list[str],
    sa: list[str],
    key: str | None,
    simulation: Any,
    *,
    aligned: bool = False,
    shuffled: bool = False,
    measurement: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Row order, key, other columns, homogeneity, unread cells and — given the
    ``measurement`` — where the single values behind a privacy level of 0 are
    (:func:`constant_columns`), JSON-safe."""
    order = _order(original, release, key, aligned=aligned, shuffled=shuffled)
    constant = constant_columns(original, release, measurement or {})
    return _assembled(order, _key(original, key), release, qi, sa, key, simulation, constant)


def findings_of_facts(
    release_sample: pd.DataFrame,
    qi: list[str],
    sa: list[str],
    key: str | None,
    simulation: Any,
    *,
    order: Mapping[str, Any],
    key_sample: pd.DataFrame | None = None,
    shuffled: bool = False,
    constant: Mapping[str, list[str]] | None = None,
) -> dict[str, Any]:
    """:func:`findings` from facts computed elsewhere — on tables an engine reads
    (:func:`privcore.runs.tables.readiness_tables`), which are never in memory whole:

    - ``order``: the rows paired (``n``), the rank correlation of their positions in
      the two files (``spearman``) and the rows in place (``rows_in_place``); with a
      ``key``, also the original's rows (``original_rows``) and the key values' rank
      correlation with the row position (``key_spearman``) —
      :meth:`privcore.engines.base.Engine.key_order`. Rows paired by position follow
      the original's order by construction: ρ = 1, every row in place.
    - ``key_sample``: rows of the original holding the key column, which the role
      suggestion reads (whether the key looks like an identifier).
    - ``release_sample``: rows of the release whose columns outside the analysis the
      role suggestions read (identifiers, quasi-identifiers and sensitive attributes
      by name or value pattern); a sample of a large table may miss a value pattern.
    - ``simulation``: the attack on the tables, whose homogeneity and unread cells are
      reported as :func:`findings` reports them.
    - ``constant``: :func:`constant_columns` of the paired tables (their frequency sets).

    On the same facts the result equals :func:`findings`."""
    n = int(order["n"])
    found = _order_finding(
        n,
        order.get("spearman"),
        int(order.get("rows_in_place") or 0),
        key,
        aligned=False,
        shuffled=shuffled,
    )
    if key is None:
        key_found = _key_finding(None, None, None, 0)
    else:
        if key_sample is None:
            raise ValueError("a key finding needs a sample of the key column")
        rows = int(order.get("original_rows", n))
        key_found = _key_finding(key, key_sample[[key]], order.get("key_spearman"), rows)
    return _assembled(found, key_found, release_sample, qi, sa, key, simulation, constant)


def _assembled(
    order: dict[str, Any],
    key_found: dict[str, Any],
    release: pd.DataFrame,
    qi: list[str],
    sa: list[str],
    key: str | None,
    simulation: Any,
    constant: Mapping[str, list[str]] | None = None,
) -> dict[str, Any]:
    """The findings, JSON-safe: the order and key findings given, the release's other
    columns, the homogeneity and unread cells of the simulation, and where the single
    values behind a privacy level of 0 are (``constant``)."""
    analysed = {*qi, *sa, *([key] if key is not None else [])}
    others, identifiers, qi_like, sa_like = _other_columns(release, analysed)
    after = simulation.homogeneity["after"].summary
    linkage = simulation.linkage["after"].summary
    unparsed = {str(q): len(cells) for q, cells in (linkage.get("unparsed_cells") or {}).items()}
    return plain(
        {
            "order": order,
            "key": key_found,
            "other_columns": others,
            "identifiers": identifiers,
            "qi_like": qi_like,
            "sa_like": sa_like,
            "homogeneity": {
                "classes_exposed": after.get("classes_exposed", 0),
                "records_exposed": after.get("records_exposed", 0),
                "per_attribute": after.get("per_attribute", {}),
            },
            "unparsed_cells": unparsed,
            "constant": {
                where: list((constant or {}).get(where) or []) for where in ("original", "release")
            },
        }
    )
