"""Mondrian's encoding of the quasi-identifiers: ordered integer codes per QI.

Every QI is encoded once as ordered integer codes (:mod:`privcore.anonymize.mondrian`),
so that every cut is a threshold on one column: numeric QIs by the rank of the value
among the table's distinct values, categorical QIs with a hierarchy by their leaves
numbered depth first (the leaves under any node form one run of codes), other
categorical QIs in text order. A missing value is one value of its own, the last code.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from privcore.anonymize.base import Problem
from privcore.classes import present_codes, value_codes
from privcore.core.scaling import unit_of
from privcore.data.codes import code_dtype, is_number
from privcore.data.hierarchy import Hierarchy, value_keys
from privcore.errors import ParameterError

NUMERIC, HIERARCHY, SET = "numeric", "hierarchy", "set"


@dataclass(eq=False)
class Dimension:
    """One QI encoded as ordered integer codes 0..n_values-1 (missing: the last code).

    ``text[c]`` is the released text of the single value c (None for missing).
    Numeric: ``numbers[c]`` its value times ``unit`` (1, or a power of two below it for
    values beyond ±2⁵⁰⁰, :func:`~privcore.core.scaling.unit_of`, so that ranges and sums
    stay finite), ``scale`` the table's range in the same unit. Hierarchy: nodes
    are numbered across levels; ``node_of[j][c]`` is the level-j ancestor of code c,
    ``node_size`` the values under a node, ``node_label`` its label, ``node_starts``
    the codes where each of its children but the first begins.
    """

    name: str
    kind: str
    codes: np.ndarray
    n_values: int
    missing: int
    text: np.ndarray
    numbers: np.ndarray | None = None
    scale: float = 0.0
    unit: float = 1.0
    number_list: list[float] = field(default_factory=list)
    node_of: list[list[int]] = field(default_factory=list)
    node_size: list[int] = field(default_factory=list)
    node_label: list[Any] = field(default_factory=list)
    node_starts: list[list[int]] = field(default_factory=list)
    span_base: float = 0.0  # what spans and NCP divide by, when not n_values

    @property
    def base(self) -> float:
        """The size of the QI's domain that spans and NCP are shares of: its number of
        values (``span_base`` when a larger table's is given)."""
        return self.span_base or self.n_values

    @property
    def present_base(self) -> float:
        """The values of :attr:`base` that are present — the domain a categorical NCP is
        a share of (the missing value is none of them, as in
        :func:`privcore.measure.loss.ncp`); at least 1."""
        return max(self.base - (self.missing >= 0), 1)

    def ancestor(self, a: int, b: int) -> int:
        """The lowest common ancestor (node id) of codes a and b (hierarchy only)."""
        for level in self.node_of:
            if level[a] == level[b]:
                return level[a]
        raise AssertionError("a hierarchy has a single root")  # pragma: no cover


def _with_missing(codes: np.ndarray, n_present: int) -> tuple[np.ndarray, int, int]:
    """Codes with missing (-1) moved to the last code, in the smallest integer type that
    holds them (:func:`~privcore.data.codes.code_dtype`); (codes, n_values, missing code)."""
    has_missing = bool((codes < 0).any())
    if has_missing:
        codes = np.where(codes < 0, n_present, codes)
    n_values = n_present + has_missing
    return codes.astype(code_dtype(n_values)), n_values, n_present if has_missing else -1


def _text_with_missing(text: np.ndarray, missing: int) -> np.ndarray:
    text = np.asarray(text, dtype=object)
    return np.append(text, None).astype(object) if missing >= 0 else text


def _numeric_dimension(name: str, series: pd.Series) -> Dimension:
    codes, uniques = value_codes(series, sort=True)
    numbers = pd.to_numeric(pd.Series(uniques), errors="coerce").to_numpy(dtype=np.float64)
    codes, n_values, missing = _with_missing(codes, len(uniques))
    if np.isinf(numbers).any():
        # "inf" in a CSV reads as infinity: ranges and NCP would become inf and NaN.
        raise ParameterError(
            f"'{name}' has infinite values (inf); Mondrian needs finite numbers. Replace "
            "them or mark them as missing.",
            code="anonymize.infinite_values",
            column=name,
        )
    text = value_keys(pd.Series(uniques, dtype=object)).to_numpy(dtype=object)
    unit = unit_of(numbers)  # ±1e308: ranges and means computed in a unit that fits
    numbers = numbers * unit
    scale = float(numbers[-1] - numbers[0]) if len(numbers) else 0.0
    return Dimension(
        name,
        NUMERIC,
        codes,
        n_values,
        missing,
        _text_with_missing(text, missing),
        numbers=numbers,
        scale=scale,
        unit=unit,
        number_list=numbers.tolist(),
    )


def _set_dimension(name: str, series: pd.Series) -> Dimension:
    codes, uniques = value_codes(series)
    text = value_keys(pd.Series(uniques, dtype=object)).to_numpy(dtype=object)
    order = np.argsort(text.astype(str), kind="stable")  # text order
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    codes = np.append(rank, -1)[codes]  # missing (-1) stays -1
    codes, n_values, missing = _with_missing(codes, len(uniques))
    return Dimension(name, SET, codes, n_values, missing, _text_with_missing(text[order], missing))


def _hierarchy_dimension(name: str, leaf: np.ndarray, hierarchy: Hierarchy) -> Dimension:
    """Depth-first codes of the leaves present in the table, and the node structure."""
    height = hierarchy.height
    n_leaves = len(hierarchy.leaves)
    present = present_codes(leaf, n_leaves)
    # Depth first: sort by the level h-1 label, then h-2, …, then the leaf's row; the
    # leaves under one node then share a key prefix, so they form one run.
    keys = [present] + [hierarchy.codes(j)[present] for j in range(1, height)]
    present = present[np.lexsort(keys)]
    code_of_leaf = np.full(n_leaves + 1, -1, dtype=np.int64)  # index -1: missing
    code_of_leaf[present] = np.arange(len(present))
    codes, n_values, missing = _with_missing(code_of_leaf[leaf], len(present))

    node_of: list[list[int]] = []
    node_size: list[int] = []
    node_label: list[Any] = []
    node_first: list[int] = []
    for j in range(height + 1):
        label_codes = hierarchy.codes(j)[present]
        if missing >= 0:  # a chain of its own below the root
            label_codes = np.append(label_codes, -1 if j < height else 0)
        local, first, inverse, counts = np.unique(  # not rows: one label per present leaf
            label_codes, return_index=True, return_inverse=True, return_counts=True
        )
        labels = np.append(hierarchy.labels(j), None).astype(object)  # -1: missing
        node_of.append((len(node_size) + inverse).tolist())
        node_size.extend(counts.tolist())
        node_label.extend(labels[local].tolist())
        node_first.extend(first.tolist())
    # The children of a level-j node are its level-(j-1) runs; a child begins where the
    # level-(j-1) ancestor changes.
    node_starts: list[list[int]] = [[] for _ in node_size]
    for j in range(1, height + 1):
        below = np.asarray(node_of[j - 1])
        changes = np.flatnonzero(below[1:] != below[:-1]) + 1
        for node in sorted(set(node_of[j])):
            start = node_first[node]
            end = start + node_size[node]
            node_starts[node] = changes[(changes > start) & (changes < end)].tolist()
    text = np.asarray(hierarchy.leaves, dtype=object)[present]
    return Dimension(
        name,
        HIERARCHY,
        codes,
        n_values,
        missing,
        _text_with_missing(text, missing),
        node_of=node_of,
        node_size=node_size,
        node_label=node_label,
        node_starts=node_starts,
    )


def _domain_scale(dim: Dimension, domain: Any) -> float:
    """The range of a numeric QI's whole table (``domain``: the range, or its
    ``(low, high)``, whose difference may be no float) in ``dim``'s unit, the unit made
    smaller first where the whole table's numbers need it."""
    if not isinstance(domain, tuple | list):
        return float(domain) * dim.unit
    low, high = float(domain[0]), float(domain[1])
    unit = min(dim.unit, unit_of([low, high]))
    if unit != dim.unit:  # both powers of two: the numbers rescaled exactly
        factor = unit / dim.unit
        assert dim.numbers is not None
        dim.numbers = dim.numbers * factor
        dim.number_list = dim.numbers.tolist()
        dim.scale *= factor
        dim.unit = unit
    return high * unit - low * unit


def dimensions(problem: Problem, span_domains: Mapping[str, Any] | None = None) -> list[Dimension]:
    """Each QI encoded; ``span_domains`` (by QI) replaces the table's own domain size as
    what spans and NCP are shares of (numeric: the range, or its ``(low, high)``;
    others: the number of values, missing counted as one)."""
    out = []
    domains = dict(span_domains or {})
    for name in problem.qi:
        series = problem.frame[name]
        if is_number(series.dtype):
            out.append(_numeric_dimension(name, series))
        elif name in problem.leaf_codes:
            out.append(
                _hierarchy_dimension(name, problem.leaf_codes[name], problem.hierarchies[name])
            )
        else:
            out.append(_set_dimension(name, series))
        if name in domains:
            dim = out[-1]
            if dim.kind == NUMERIC:
                dim.scale = max(_domain_scale(dim, domains[name]), dim.scale)
            else:
                dim.span_base = max(float(domains[name]), float(dim.n_values))
    return out
