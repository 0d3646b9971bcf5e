"""Information loss of a lattice node's release, from the node's frequency set.

ncp: GCP, the mean NCP over QI cells (a suppressed cell = 1); whd: the mean WHD per
record (summed over QIs, a suppressed cell = 1 per QI); discernibility: Σ|EC|² + n per
suppressed row, a class generalized to '*' in every QI one class; ul: 1 − UL, the
entropy kept (seed 001), the rows at '*' in every QI one value, as the file shows
them. Costs are summed per label from whole-number record counts, and class sizes are
whole numbers, so a table and its frequency set give the same floats.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from privcore.anonymize.frequency_sets import Rollup
from privcore.anonymize.lattice_checks import NodeResult
from privcore.classes import code_counts, factorize, group_rows
from privcore.core.scaling import unit_of
from privcore.errors import ParameterError
from privcore.measure.loss import whd

LOSS_METRICS = ("ncp", "whd", "discernibility", "ul")


def check_metric(metric: str) -> str:
    """``metric`` if it is one of :data:`LOSS_METRICS`, else a ParameterError."""
    if metric not in LOSS_METRICS:
        raise ParameterError(
            f"Unknown loss metric '{metric}'. Choose one of {', '.join(LOSS_METRICS)}.",
            code="anonymize.unknown_metric",
            metric=metric,
        )
    return metric


class LossMetrics:
    """Per-node loss from the node's frequency set (see
    :meth:`~privcore.anonymize.lattice.Lattice.loss`)."""

    def __init__(self, rollup: Rollup) -> None:
        self.heights = rollup.heights
        problem = rollup.problem
        self.n = problem.n_rows  # records
        self.q = len(rollup.qi)
        weights = problem.weights  # records per row of a frequency set (None: one each)
        # NCP of every label at every level, and WHD of every level (from the leaves).
        self.ncp: list[list[np.ndarray]] = []
        self.whd: list[np.ndarray] = []
        self.leaf_counts: list[np.ndarray] = []
        self.present: list[float] = []  # share of non-missing cells per QI
        for q, column in enumerate(rollup.qi):
            hierarchy = rollup.hierarchies[q]
            leaf = problem.leaf_codes[column]
            known = leaf >= 0
            if weights is None:
                counts = code_counts(leaf[known], len(hierarchy.leaves))
                self.present.append(float(known.mean()) if len(leaf) else 1.0)
            else:  # records per leaf and the records' share of non-missing cells
                counts = code_counts(leaf[known], len(hierarchy.leaves), weights=weights[known])
                counts = np.rint(counts).astype(np.int64)
                self.present.append(float(counts.sum()) / self.n)
            self.leaf_counts.append(counts)
            present = counts > 0
            numeric = pd.api.types.is_numeric_dtype(problem.frame[column].dtype)
            values = pd.to_numeric(pd.Series(hierarchy.leaves), errors="coerce").to_numpy(float)
            per_level = []
            span = 0.0
            if numeric and present.any():
                # ±1e308 in a unit whose range is a float (unit_of); inf and -inf, leaves of
                # their own, outside the range (a label holding one spans all of it: 1)
                values = values * unit_of(values[present])
                known = values[present][np.isfinite(values[present])]
                span = float(known.max() - known.min()) if known.size else 0.0
            for level in range(hierarchy.height + 1):
                codes = hierarchy.codes(level)
                m = len(hierarchy.labels(level))
                if level == 0:
                    per_level.append(np.zeros(m))
                    continue
                if level == hierarchy.height:
                    per_level.append(np.ones(m))
                    continue
                if numeric and span > 0:
                    lo = np.full(m, np.inf)
                    hi = np.full(m, -np.inf)
                    np.minimum.at(lo, codes[present], values[present])  # not rows: leaves
                    np.maximum.at(hi, codes[present], values[present])  # not rows: leaves
                    with np.errstate(invalid="ignore"):
                        width = np.where(hi > lo, hi - lo, 0.0)
                    per_level.append(np.minimum(width / span, 1.0))
                else:
                    under = np.bincount(codes[present], minlength=m)  # not rows: leaves
                    total = max(int(present.sum()), 1)
                    per_level.append(np.where(under > 1, under / total, 0.0))
            self.ncp.append(per_level)
            h = hierarchy.height + 1
            self.whd.append(np.array([whd(h, h - g, h) if g else 0.0 for g in range(h)]))
        self.column_ncp_cost = [
            np.array(
                [
                    float(
                        (self.ncp[q][g][rollup.hierarchies[q].codes(g)] * self.leaf_counts[q]).sum()
                    )
                    for g in range(rollup.heights[q] + 1)
                ]
            )
            for q in range(self.q)
        ]
        self.h_prv = records_entropy(problem.frame, problem.sa, weights)
        self.h_qd = records_entropy(problem.frame, problem.qi, weights)

    def data_free_bound(self, node: tuple[int, ...], metric: str) -> float:
        if metric == "ncp":
            cost = sum(self.column_ncp_cost[q][node[q]] for q in range(self.q))
            return cost / (self.n * self.q)
        if metric == "whd":
            return float(
                sum(
                    self.whd[q][node[q]] * (1.0 if node[q] == self.heights[q] else self.present[q])
                    for q in range(self.q)
                )
            )
        return 0.0

    def loss(self, result: NodeResult, metric: str, *, suppress: bool = True) -> float:
        check_metric(metric)
        fs = result.frequencies
        classes = result.classes
        failing = result.failing if suppress else np.zeros_like(result.failing)
        if metric in ("ncp", "whd"):
            # Costs are summed per label from whole-number record counts, in label
            # order: a node's loss is then the same float whatever order the groups
            # come in (a table and its frequency set give the same ties between nodes).
            group_suppressed = failing[classes.ids]
            w = fs.weights
            suppressed = int(w[group_suppressed].sum())
            kept = np.where(group_suppressed, 0, w)
            cost = float(self.q * suppressed)  # a suppressed record: 1 per QI
            for q in range(self.q):
                level = result.node[q]
                labels = fs.labels[:, q] + 1  # 0: missing, never generalized below the top
                records = code_counts(labels, len(self.ncp[q][level]) + 1, weights=kept)
                records = np.rint(records[1:])
                if metric == "ncp":
                    cost += float(self.ncp[q][level] @ records)
                else:
                    cost += float(self.whd[q][level] * records.sum())
            return cost / (self.n * self.q) if metric == "ncp" else cost / self.n
        sizes = classes.sizes
        top = result.top_group if suppress else np.zeros_like(result.failing)
        kept = ~top
        top_rows = int(sizes[top].sum())
        if metric == "discernibility":
            # The suppressed rows: n each; the class generalized to '*' everywhere: |S|².
            at_top = int(sizes[top & ~failing].sum())
            charge = float(at_top) ** 2 + (top_rows - at_top) * self.n
            return float((sizes[kept].astype(float) ** 2).sum() + charge)
        # ul: 1 − (H(X̄_qd) + H(X_prv)) / (H(X_qd) + H(X_prv)); the '*' rows are one value.
        # Sizes in increasing order, so that the sum does not depend on the classes' order.
        parts = sizes[kept].astype(float)
        if top_rows:
            parts = np.append(parts, top_rows)
        p = np.sort(parts) / self.n
        h_release = float(-(p * np.log2(p)).sum())
        denominator = self.h_qd + self.h_prv
        if denominator <= 0:
            return 0.0
        return 1.0 - (h_release + self.h_prv) / denominator


def records_entropy(
    frame: pd.DataFrame, columns: Sequence[str], weights: np.ndarray | None
) -> float:
    """Shannon entropy in bits of the tuple ``columns`` over the records (missing is one
    value; row i counted ``weights[i]`` times when given): with c the records of each
    distinct tuple and n = Σ c, H = log2 n − (1/n) Σ c log2 c, as
    :func:`privcore.measure.entropy.entropy` defines it (seed 001 §4). The counts are
    summed in increasing order, so a table and its frequency set give the same float."""
    factorized = [factorize(frame[c]) for c in columns]
    groups = group_rows(
        [codes for codes, _ in factorized], [len(u) for _, u in factorized], weights=weights
    )
    counts = np.sort(groups.counts[groups.counts > 0]).astype(np.float64)
    n = float(counts.sum())
    if n == 0 or len(counts) <= 1:
        return 0.0
    return max(math.log2(n) - float(np.dot(counts, np.log2(counts))) / n, 0.0)
