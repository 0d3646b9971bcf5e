"""The generalization lattice of full-domain anonymization, with cached node checks.

A node is a vector of hierarchy levels, one per QI (SPEC §1); nodes are ordered
component-wise and the height of a node is the sum of its levels (seed 003 §20.3.1.1).

A node is checked on its frequency set, rolled up from a less general node's
(:mod:`privcore.anonymize.frequency_sets`, LeFevre et al. 2005, Incognito), never on
the rows; its verdict and the group shown at '*' come from
:mod:`privcore.anonymize.lattice_checks`, its losses from
:mod:`privcore.anonymize.lattice_loss`. When class sizes alone decide (k-anonymity), a
node's verdict and losses are read from the frequency sets of the QI combinations
alone — the classes —, far smaller than those with the sensitive values.

Every model of privcore is monotone under generalization (seed 003 lemmas 20.3.1–3):
if a node satisfies the constraints within the suppression budget, so does every more
general node — which is what the tagging of the searches exploits
(:mod:`privcore.anonymize.fulldomain`). A node satisfies when the rows of its violating
classes fit the suppression budget (and the group at '*' holds as one class); its loss
counts the suppressed rows and the class at the top as the release shows them.
"""

from __future__ import annotations

import itertools
import math
from collections import OrderedDict
from functools import cached_property

import numpy as np
import pandas as pd

from privcore.anonymize.base import LatticeTrace, Problem, categorical_text
from privcore.anonymize.frequency_sets import FrequencyCache, FrequencySet, Rollup
from privcore.anonymize.lattice_checks import (
    Judge,
    Judged,
    JudgedCache,
    NodeCheck,
    NodeResult,
    node_result,
)
from privcore.anonymize.lattice_loss import LOSS_METRICS, LossMetrics
from privcore.classes import SUPPRESSED, classes_from_codes
from privcore.data.codes import code_dtype
from privcore.errors import ParameterError

__all__ = [
    "LOSS_METRICS",
    "MATRIX_NODES",
    "FrequencySet",
    "Lattice",
    "NodeCheck",
    "NodeResult",
    "all_nodes",
]

_KEPT_PARTITIONS = 16  # evaluated nodes whose partitions stay in memory
MATRIX_NODES = 2_000_000  # the largest lattice whose nodes are held as one matrix
_TESTED_NODES = 200_000  # up to this size, per-QI level tests make dominance one AND per QI


class Lattice:
    """Full-domain generalization lattice of one problem, with cached node checks."""

    def __init__(self, problem: Problem) -> None:
        self.problem = problem
        self.qi = problem.qi
        self.hierarchies = [problem.hierarchies[c] for c in self.qi]
        self.heights = tuple(h.height for h in self.hierarchies)
        self.size = math.prod(h + 1 for h in self.heights)
        # Every checked node keeps its verdict; only the last few keep their partition
        # (the arrays of a node can be as long as the table).
        self._checks: dict[tuple[int, ...], NodeCheck] = {}
        self._results: OrderedDict[tuple[int, ...], NodeResult] = OrderedDict()
        self._class_results: OrderedDict[tuple[int, ...], NodeResult] = OrderedDict()
        self._judged = JudgedCache()
        self.order: list[tuple[int, ...]] = []  # evaluation order, for the trace
        self.bottom = tuple(0 for _ in self.qi)
        self.top = self.heights
        self._rollup = Rollup(problem)
        self._judge = Judge(problem)
        full = self._rollup.bottom(with_sensitive=True)
        self._frequency_sets = FrequencyCache(self._rollup, full)
        self._base = self._frequency_sets.bottom  # the bottom node's frequency set
        # When every constraint is decided by class sizes alone (k-anonymity), a node's
        # verdict needs only the QI combinations and their counts — the classes —, whose
        # frequency sets are smaller; losses still come from the full frequency sets.
        self._sizes_decide = bool(problem.sa) and all(m.size_only for m in problem.constraints)
        self._class_sets = (
            FrequencyCache(self._rollup, self._rollup.bottom(with_sensitive=False))
            if self._sizes_decide
            else self._frequency_sets
        )
        self._levels_matrix: np.ndarray | None = None

    @property
    def monotone(self) -> bool:
        """Whether "satisfied within the suppression budget" is monotone on this lattice,
        from what the models declare.

        Without suppression: when every model is monotone under generalization (all of
        privcore's are, seed 003 lemmas 20.3.1–3). With a budget: when every model is
        also monotone under suppression — only k-anonymity and distinct l-diversity
        are; merging a violating class into a satisfying one can make an entropy-l,
        recursive-(c,l) or t-close class violate, so the violating rows can grow with
        generalization. Searches then evaluate every node instead of tagging.
        """
        constraints = self.problem.constraints
        if self.problem.budget == 0:
            return all(m.monotone_under_generalization for m in constraints)
        return all(m.monotone_under_suppression for m in constraints)

    # ------------------------------------------------------------------ nodes
    def height(self, node: tuple[int, ...]) -> int:
        return int(sum(node))

    def nodes_at(self, height: int) -> list[tuple[int, ...]]:
        """Every node of a given height (lexicographic order)."""
        out = []

        def walk(prefix: list[int], i: int, left: int) -> None:
            if i == len(self.heights):
                if left == 0:
                    out.append(tuple(prefix))
                return
            rest = sum(self.heights[i + 1 :])
            for level in range(max(0, left - rest), min(self.heights[i], left) + 1):
                walk([*prefix, level], i + 1, left - level)

        walk([], 0, height)
        return out

    @property
    def levels_matrix(self) -> np.ndarray:
        """All nodes as rows (mixed-radix order), for vectorized tagging."""
        if self._levels_matrix is None:
            if self.size > MATRIX_NODES:
                raise ParameterError(
                    f"The lattice has {self.size:,} nodes; choose fewer quasi-identifiers or "
                    "shallower hierarchies, or use Mondrian.",
                    code="anonymize.lattice_too_large",
                    nodes=self.size,
                )
            grids = np.meshgrid(*[np.arange(h + 1) for h in self.heights], indexing="ij")
            self._levels_matrix = np.stack([g.ravel() for g in grids], axis=1)
        return self._levels_matrix

    def index(self, node: tuple[int, ...]) -> int:
        idx = 0
        for level, h in zip(node, self.heights, strict=True):
            idx = idx * (h + 1) + level
        return idx

    def successors_mask(self, node: tuple[int, ...]) -> np.ndarray:
        """Per node (rows of :attr:`levels_matrix`): at least as general as ``node``."""
        return self._dominance(node, at_least=True)

    def predecessors_mask(self, node: tuple[int, ...]) -> np.ndarray:
        """Per node (rows of :attr:`levels_matrix`): at most as general as ``node``."""
        return self._dominance(node, at_least=False)

    def _dominance(self, node: tuple[int, ...], *, at_least: bool) -> np.ndarray:
        if self.size > _TESTED_NODES:
            levels, target = self.levels_matrix, np.asarray(node)
            return np.all(levels >= target if at_least else levels <= target, axis=1)
        tests = self._level_tests[0 if at_least else 1]
        mask = tests[0][node[0]].copy()
        for q in range(1, len(node)):
            mask &= tests[q][node[q]]
        return mask

    @cached_property
    def _level_tests(self) -> tuple[list[list[np.ndarray]], list[list[np.ndarray]]]:
        """Per QI q and level g, which nodes have level ≥ g, and ≤ g, in q (one bool per
        node), so that a dominance test is one AND per QI."""
        levels = self.levels_matrix
        at_least = [[levels[:, q] >= g for g in range(h + 1)] for q, h in enumerate(self.heights)]
        at_most = [[levels[:, q] <= g for g in range(h + 1)] for q, h in enumerate(self.heights)]
        return at_least, at_most

    def frequencies(self, node: tuple[int, ...]) -> FrequencySet:
        """The node's frequency set (QI labels and sensitive values), rolled up from
        the cached predecessor with the fewest groups
        (:class:`~privcore.anonymize.frequency_sets.FrequencyCache`)."""
        return self._frequency_sets.get(tuple(int(v) for v in node))

    # ------------------------------------------------------------------ checks
    def check(self, node: tuple[int, ...]) -> NodeCheck:
        """The node's verdict (cached for every node; see :meth:`evaluate`). When class
        sizes alone decide, it is read from the node's classes without the sensitive
        values (the same verdict, from a smaller frequency set)."""
        node = tuple(int(v) for v in node)
        found = self._checks.get(node)
        if found is not None:
            return found
        if not self._sizes_decide:
            self.evaluate(node)
            return self._checks[node]
        fs = self._class_sets.get(node)
        judged = self._judge.judge(node, fs, {})
        self._judged.keep(node, judged)
        return self._record(node, judged.violating, judged.satisfied, judged.suppressed)

    def _record(
        self, node: tuple[int, ...], violating: int, satisfied: bool, suppressed: int
    ) -> NodeCheck:
        found = self._checks.get(node)
        if found is None:
            found = self._checks[node] = NodeCheck(node, violating, satisfied, suppressed)
            self.order.append(node)
        return found

    def evaluate(self, node: tuple[int, ...]) -> NodeResult:
        """Check the constraints at ``node`` (cached); counts in records."""
        node = tuple(int(v) for v in node)
        if node in self._results:
            self._results.move_to_end(node)
            return self._results[node]
        fs = self.frequencies(node)
        sensitive = {
            name: self.problem.sensitive[name].regrouped(fs.sensitive[:, j], fs.weights)
            for j, name in enumerate(self.problem.sa)
        }
        return self._kept(self._results, node, fs, self._judge.judge(node, fs, sensitive))

    def _kept(
        self,
        results: OrderedDict[tuple[int, ...], NodeResult],
        node: tuple[int, ...],
        fs: FrequencySet,
        judged: Judged,
    ) -> NodeResult:
        """The node's result, kept among the last few (``results``) and its verdict
        recorded."""
        result = results[node] = node_result(node, fs, judged)
        while len(results) > _KEPT_PARTITIONS:
            results.popitem(last=False)
        self._record(node, judged.violating, judged.satisfied, judged.suppressed)
        return result

    # ------------------------------------------------------------------ loss
    def loss(self, node: tuple[int, ...], metric: str) -> float:
        """Information loss of the release at ``node`` (violating classes suppressed).

        ncp: GCP, mean NCP over QI cells (suppressed cell = 1); whd: mean WHD per record
        (sum over QIs, suppressed cell = 1 per QI); discernibility: Σ|EC|² + n per
        suppressed row (the violating rows), a class generalized to '*' in every QI one
        class (:class:`NodeResult`); ul: 1 − UL (entropy kept, seed 001; the rows at '*'
        in every QI one value, as the file shows them).
        """
        return self._metrics.loss(self._loss_result(node), metric)

    def lower_bound(self, node: tuple[int, ...], metric: str) -> float:
        """A lower bound of ``loss`` at ``node`` and every more general node that needs
        no data: the generalization cost as if nothing were suppressed (ncp, whd);
        0 for the others, whose bounds come from evaluated predecessors."""
        return self._metrics.data_free_bound(node, metric)

    def no_suppression_loss(self, node: tuple[int, ...], metric: str) -> float:
        """Loss as if no row were suppressed: monotone under generalization, and never
        above the loss with suppression — a bound for every more general node."""
        return self._metrics.loss(self._loss_result(node), metric, suppress=False)

    def _loss_result(self, node: tuple[int, ...]) -> NodeResult:
        """The node checked, for its loss. When class sizes alone decide, from the
        node's classes without the sensitive values (:meth:`check`): the losses read
        only the classes, their sizes and QI labels and which of them fail — the same
        records per label and the same class sizes as the full frequency set gives,
        summed as whole numbers, so the same floats."""
        if not self._sizes_decide:
            return self.evaluate(node)
        node = tuple(int(v) for v in node)
        found = self._class_results.get(node)
        if found is not None:
            self._class_results.move_to_end(node)
            return found
        fs = self._class_sets.get(node)
        judged = self._judged.get(node, fs, self.qi) or self._judge.judge(node, fs, {})
        return self._kept(self._class_results, node, fs, judged)

    @property
    def _metrics(self) -> LossMetrics:
        if not hasattr(self, "_loss_metrics"):
            self._loss_metrics = LossMetrics(self._rollup)
        return self._loss_metrics

    # ------------------------------------------------------------------ release
    def release(self, node: tuple[int, ...]) -> tuple[pd.DataFrame, np.ndarray]:
        """The table generalized at ``node``, rows of violating classes suppressed
        (every QI ``*``), its QIs as text; and the suppressed rows. See
        :meth:`coded_release`, whose categoricals this turns into text."""
        frame, suppressed = self.coded_release(node)
        for column in self.qi:
            frame[column] = categorical_text(frame[column])
        return frame, suppressed

    def coded_release(self, node: tuple[int, ...]) -> tuple[pd.DataFrame, np.ndarray]:
        """The release at ``node`` with its QIs as pandas categoricals of the released
        text, and the suppressed rows: what :func:`~privcore.anonymize.base.finish`
        measures before it turns those columns into text (``coded``).

        Each QI's rows are coded by their label at the node's level, shifted by one
        (0: missing, which stays missing below the top; at the top every row has the one
        label), in the smallest integer type that holds the codes (1 byte per row up to
        126 labels): the codes give the classes, whose violating ones are suppressed,
        and the categories' codes (1 or 2 bytes per row).
        """
        problem = self.problem
        shifted_codes = [self._shifted_codes(q, node[q]) for q in range(len(self.qi))]
        cards = [len(h.labels(level)) + 1 for h, level in zip(self.hierarchies, node, strict=True)]
        classes = classes_from_codes(
            shifted_codes, cards, qi=self.qi, sensitive=problem.sensitive, weights=problem.weights
        )
        failing = np.zeros(classes.n_classes, dtype=bool)
        for model in problem.constraints:
            failing |= ~model.class_pass(classes)
        suppressed = failing[classes.ids]
        del classes
        frame = problem.frame.copy(deep=False)
        for q, column in enumerate(self.qi):
            frame[column] = self._released_column(q, node[q], shifted_codes[q], suppressed)
            shifted_codes[q] = None  # row-sized: freed column by column
        return frame, suppressed

    def _released_column(
        self, q: int, level: int, shifted: np.ndarray, suppressed: np.ndarray
    ) -> pd.Categorical:
        """QI q at ``level`` as a categorical of the labels' text: a row's category is
        its label (``shifted`` − 1; -1: missing), ``*`` where ``suppressed``. Labels are
        turned into text as the pandas ``str`` type turns them, once per label; labels
        with one text share one category; the categories are the distinct texts."""
        labels = np.asarray(self.hierarchies[q].labels(level), dtype=object)
        text = pd.array(np.append(labels, SUPPRESSED).astype(object), dtype="str")
        category, categories = pd.factorize(text)  # not rows: one label per value; -1: missing
        dtype = code_dtype(len(categories) + 1)
        table = np.concatenate(([-1], category[:-1])).astype(dtype)  # shifted code 0: missing
        codes = table[shifted]
        if suppressed.any():
            codes[suppressed] = category[-1]
        return pd.Categorical.from_codes(codes, categories=pd.Index(categories, dtype=object))

    def _shifted_codes(self, q: int, level: int) -> np.ndarray:
        """Per row, 1 + the index of its QI-q label at ``level`` (0: missing), as
        :meth:`~privcore.data.hierarchy.Hierarchy.generalize` labels it (missing stays
        missing below the top; at the top every row has label 0), in
        :func:`~privcore.data.codes.code_dtype` of the labels + 1."""
        hierarchy = self.hierarchies[q]
        n_labels = len(hierarchy.labels(level))
        dtype = code_dtype(n_labels + 1)
        if level == hierarchy.height:
            return np.ones(self.problem.n_table_rows, dtype=dtype)
        # leaf index → label index + 1; the last entry serves leaf index -1 (missing)
        table = np.append(np.asarray(hierarchy.codes(level)) + 1, 0).astype(dtype)
        return table[self.problem.leaf_codes[self.qi[q]]]

    # ------------------------------------------------------------------ trace
    def trace(
        self,
        chosen: tuple[int, ...] | None,
        tagged: np.ndarray | None = None,
        losses: dict[tuple[int, ...], float] | None = None,
        *,
        known: np.ndarray | None = None,
    ) -> LatticeTrace:
        """Every node with how the search met it: evaluated (satisfied or not), tagged
        by monotonicity (``tagged``: the satisfaction of every node, known without
        evaluating most of them — of the nodes in ``known`` only, when given), or not
        visited. Lattices above 5,000 nodes keep only the evaluated nodes, to stay
        chartable."""
        losses = losses or {}
        evaluated = list(self._checks)
        if self.size <= 5000:
            levels = self.levels_matrix
        else:
            levels = np.array(evaluated, dtype=np.int64).reshape(-1, len(self.qi))
            tagged = None
        radix = np.array(
            [math.prod(h + 1 for h in self.heights[i + 1 :]) for i in range(len(self.qi))],
            dtype=np.int64,
        )
        index = levels @ radix if len(levels) else np.zeros(0, dtype=np.int64)
        position = {int(i): p for p, i in enumerate(index)}
        status = np.full(len(levels), "not visited", dtype=object)
        if tagged is not None:
            status[:] = np.where(tagged[index], "tagged satisfied", "tagged not satisfied")
            if known is not None:
                status[~known[index]] = "not visited"
        order = np.full(len(levels), -1, dtype=np.int64)
        suppressed = np.full(len(levels), np.nan)
        loss = np.full(len(levels), np.nan)
        for rank, node in enumerate(self.order):
            p = position[self.index(node)]
            result = self._checks[node]
            status[p] = "satisfied" if result.satisfied else "not satisfied"
            order[p] = rank
            suppressed[p] = result.suppressed_rows if result.satisfied else result.violating_rows
        for node, value in losses.items():
            loss[position[self.index(node)]] = value
        frame = pd.DataFrame(levels, columns=list(self.qi))
        frame["node"] = ["(" + ", ".join(map(str, row)) + ")" for row in levels.tolist()]
        frame["height"] = levels.sum(axis=1)
        frame["status"] = status
        frame["order"] = order
        frame["suppressed"] = suppressed
        frame["loss"] = loss
        return LatticeTrace(self.qi, frame, chosen)


def all_nodes(lattice: Lattice) -> list[tuple[int, ...]]:
    return list(itertools.product(*[range(h + 1) for h in lattice.heights]))
