"""The generalization lattice of full-domain anonymization, with rolled-up frequency sets.

A node is a vector of hierarchy levels, one per QI (SPEC §1); nodes are ordered
component-wise and the height of a node is the sum of its levels (seed 003 §20.3.1.1).

Frequency sets (LeFevre et al. 2005, Incognito): the table is grouped once into the
distinct combinations of (QI leaf, sensitive values) with their counts — the frequency
set of the bottom node. The frequency set of a more general node is *rolled up* from
that of any less general node already computed, by mapping each group's labels one or
more levels up and summing counts: no rescan of the rows. Privacy models are checked on
the groups with their counts as weights, so the same model objects serve every node.
When class sizes alone decide (k-anonymity), a node's verdict is read from the frequency
sets of the QI combinations alone — the classes —, far smaller than those with the
sensitive values, which still give the losses. A table given as a frequency set
(``Problem.weights``) is grouped with its weights: its bottom frequency set, and so
every node's, is that of the expanded table.

Every model of privcore is monotone under generalization (seed 003 lemmas 20.3.1–3):
if a node satisfies the constraints within the suppression budget, so does every more
general node — which is what the tagging below exploits.

The rows of the violating classes are suppressed — blanked, ``*`` in every QI — and
are the release's suppressed rows (SPEC §13), counted against the suppression budget;
a class whose labels are all ``*`` (the top node's single class) is a class, generalized
to the top. In the released file both show the same cells, one group G, which an
attacker reads as one: a node with suppressed rows and a class at ``*`` satisfies only
when G, as one class, meets every constraint too. A node satisfies when the rows of its
violating classes fit the suppression budget (and that holds); its loss counts the
suppressed rows and the class at the top as the release shows them.
"""

from __future__ import annotations

import itertools
import math
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from privcore.anonymize.base import LatticeTrace, Problem, categorical_text
from privcore.classes import (
    SUPPRESSED,
    EquivalenceClasses,
    classes_from_codes,
    code_counts,
    factorize,
    group_rows,
    passes_as_one_class,
)
from privcore.core.scaling import unit_of
from privcore.data.codes import code_dtype
from privcore.errors import ParameterError

LOSS_METRICS = ("ncp", "whd", "discernibility", "ul")
_CACHE_GROUPS = 4_000_000  # groups kept in rolled-up frequency sets (memory bound)
_KEPT_PARTITIONS = 16  # evaluated nodes whose partitions stay in memory
MATRIX_NODES = 2_000_000  # the largest lattice whose nodes are held as one matrix
_TESTED_NODES = 200_000  # up to this size, per-QI level tests make dominance one AND per QI


@dataclass(frozen=True, eq=False)
class FrequencySet:
    """Distinct (QI labels at ``levels``, sensitive codes) combinations and their counts."""

    levels: tuple[int, ...]
    labels: np.ndarray  # groups × QIs, label index at each QI's level (-1: missing)
    sensitive: np.ndarray  # groups × SAs, value codes
    weights: np.ndarray  # records per group

    @property
    def n_groups(self) -> int:
        return len(self.weights)


@dataclass(frozen=True)
class NodeCheck:
    """The verdict of one node: records violating, records the release would show as
    suppressed (see :class:`NodeResult`), and whether they fit the budget."""

    node: tuple[int, ...]
    violating_rows: int
    satisfied: bool
    suppressed_rows: int = 0


@dataclass(frozen=True, eq=False)
class NodeResult:
    """A node checked against the constraints (counts are records, not groups).

    ``violating_rows``: rows of the classes that fail a constraint (the rows the
    algorithm suppresses). ``top_group`` (per class): the classes whose rows show ``*``
    in every QI in the release — the failing ones and any class labelled ``*`` in every
    QI; ``top_is_class``: those rows, as one class, meet every constraint.
    ``suppressed_rows``: the rows the release shows as suppressed, the violating rows.
    ``satisfied``: they fit the budget and, when a class labelled ``*`` shares their
    cells, ``top_is_class``. A node whose violating rows exceed the budget fails
    whatever its top group is: that group is not examined (``top_group`` = the failing
    classes).
    """

    node: tuple[int, ...]
    violating_rows: int
    satisfied: bool  # within the suppression budget
    classes: EquivalenceClasses
    failing: np.ndarray  # per class
    frequencies: FrequencySet
    top_group: np.ndarray  # per class
    top_is_class: bool
    suppressed_rows: int


@dataclass(frozen=True, eq=False)
class _Judged:
    """A node's classes and verdict (the parts of :class:`NodeResult` that a frequency
    set decides)."""

    classes: EquivalenceClasses
    failing: np.ndarray
    violating: int
    top_group: np.ndarray
    top_is_class: bool
    suppressed: int
    satisfied: bool


class _FrequencyCache:
    """Frequency sets of nodes, each rolled up from the cached predecessor with the
    fewest groups, bounded in total groups (the least recently used go first; the
    bottom stays).

    The cached nodes' levels are the rows of a matrix (a free row has no groups: inf),
    so that finding the best predecessor is one vectorized dominance test. When only the
    bottom is below a node, the node at level min(level, 1) in every QI is rolled up
    and kept first: the nodes of a search share a few of those, far smaller than the
    bottom. A frequency set does not depend on which predecessor it comes from: groups
    stay numbered in the order of their first row of the table, and counts are sums of
    whole numbers.
    """

    def __init__(self, lattice: Lattice, bottom: FrequencySet) -> None:
        self.lattice = lattice
        self.bottom = bottom
        self._sets: OrderedDict[tuple[int, ...], FrequencySet] = OrderedDict()
        self._groups = 0
        self._slot_of: dict[tuple[int, ...], int] = {}
        self._slot_levels = np.zeros((64, len(bottom.levels)), dtype=np.int64)
        self._slot_groups = np.full(64, np.inf)
        self._free_slots: list[int] = list(range(63, -1, -1))
        self._remember(bottom)

    def get(self, node: tuple[int, ...]) -> FrequencySet:
        found = self._sets.get(node)
        if found is not None:
            self._sets.move_to_end(node)
            return found
        below = np.all(self._slot_levels <= np.asarray(node), axis=1)
        slot = int(np.argmin(np.where(below, self._slot_groups, np.inf)))
        source = self._sets[tuple(int(v) for v in self._slot_levels[slot])]
        if source is self.bottom:
            hub = tuple(min(level, 1) for level in node)
            if hub != node:
                source = self.get(hub)
        fs = self.lattice._roll_up(source, node)
        self._remember(fs)
        return fs

    def _remember(self, fs: FrequencySet) -> None:
        self._sets[fs.levels] = fs
        self._groups += fs.n_groups
        if not self._free_slots:
            grown = len(self._slot_groups)
            self._slot_levels = np.concatenate(
                [self._slot_levels, np.zeros_like(self._slot_levels)]
            )
            self._slot_groups = np.concatenate([self._slot_groups, np.full(grown, np.inf)])
            self._free_slots = list(range(2 * grown - 1, grown - 1, -1))
        slot = self._free_slots.pop()
        self._slot_of[fs.levels] = slot
        self._slot_levels[slot] = fs.levels
        self._slot_groups[slot] = fs.n_groups
        while self._groups > _CACHE_GROUPS and len(self._sets) > 1:
            levels = next(v for v in self._sets if v != self.bottom.levels)
            dropped = self._sets.pop(levels)
            self._groups -= dropped.n_groups
            slot = self._slot_of.pop(levels)
            self._slot_groups[slot] = np.inf
            self._free_slots.append(slot)


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
        self.order: list[tuple[int, ...]] = []  # evaluation order, for the trace
        self.bottom = tuple(0 for _ in self.qi)
        self.top = self.heights
        self._n_labels = [
            [len(h.labels(level)) for level in range(h.height + 1)] for h in self.hierarchies
        ]
        self._up_tables: dict[tuple[int, int, int], np.ndarray] = {}
        self._frequency_sets = _FrequencyCache(self, self._bottom_frequencies(with_sensitive=True))
        self._base = self._frequency_sets.bottom  # the bottom node's frequency set
        # When every constraint is decided by class sizes alone (k-anonymity), a node's
        # verdict needs only the QI combinations and their counts — the classes —, whose
        # frequency sets are smaller; losses still come from the full frequency sets.
        self._sizes_decide = bool(problem.sa) and all(m.size_only for m in problem.constraints)
        self._class_sets = (
            _FrequencyCache(self, self._bottom_frequencies(with_sensitive=False))
            if self._sizes_decide
            else self._frequency_sets
        )
        self._levels_matrix: np.ndarray | None = None
        # Per QI and level: which labels are '*' (at the top, every label).
        self._star = [
            [np.asarray(h.labels(g), dtype=object) == SUPPRESSED for g in range(h.height + 1)]
            for h in self.hierarchies
        ]

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

    # ------------------------------------------------------------------ frequency sets
    def _bottom_frequencies(self, *, with_sensitive: bool) -> FrequencySet:
        problem = self.problem
        leaf = [problem.leaf_codes[c] for c in self.qi]
        names = problem.sa if with_sensitive else ()
        sens = [problem.sensitive[s].codes for s in names]
        cards = [len(h.leaves) + 1 for h in self.hierarchies] + [
            problem.sensitive[s].n_values for s in names
        ]
        shifted = [c + 1 for c in leaf] + sens  # missing (-1) becomes code 0
        groups = group_rows(shifted, cards, weights=problem.weights)  # rows of a freq. set
        weights, first = groups.counts.astype(np.int64), groups.first
        return FrequencySet(
            self.bottom,
            _by_group([c[first] for c in leaf], len(first)),
            _by_group([c[first] for c in sens], len(first)),
            weights,
        )

    def _up_table(self, q: int, source: int, target: int) -> np.ndarray:
        """Labels of QI q at level ``source`` → their ancestors at ``target``, both
        shifted by one (0: missing, which stays missing below the top and joins the top
        label at the top): index ``label + 1``, value ``ancestor + 1``."""
        key = (q, source, target)
        table = self._up_tables.get(key)
        if table is None:
            hierarchy = self.hierarchies[q]
            codes = hierarchy.codes(source)
            # ancestor of a level-`source` label = label at `target` of any leaf below it
            first_leaf = np.zeros(len(hierarchy.labels(source)), dtype=np.int64)
            first_leaf[codes[::-1]] = np.arange(len(codes))[::-1]
            ancestors = np.asarray(hierarchy.codes(target), dtype=np.int64)[first_leaf]
            missing = 1 if target == hierarchy.height else 0
            table = np.concatenate(([missing], ancestors + 1)).astype(np.int64)
            self._up_tables[key] = table
        return table

    def _roll_up(self, source: FrequencySet, node: tuple[int, ...]) -> FrequencySet:
        """The frequency set of ``node`` from that of a less general node: each group's
        labels mapped up, equal groups merged and their counts summed."""
        shifted = [
            self._up_table(q, source.levels[q], node[q])[source.labels[:, q] + 1]
            for q in range(len(self.qi))
        ]
        n_sensitive = source.sensitive.shape[1]
        cards = [self._n_labels[q][level] + 1 for q, level in enumerate(node)]
        cards += [self.problem.sensitive[s].n_values for s in self.problem.sa[:n_sensitive]]
        groups = group_rows(
            shifted + [source.sensitive[:, j] for j in range(n_sensitive)],
            cards,
            weights=source.weights,
        )
        first = groups.first
        labels = _by_group([c[first] - 1 for c in shifted], len(first))
        return FrequencySet(node, labels, source.sensitive[first], groups.counts)

    def frequencies(self, node: tuple[int, ...]) -> FrequencySet:
        """The node's frequency set (QI labels and sensitive values), rolled up from
        the cached predecessor with the fewest groups (:class:`_FrequencyCache`)."""
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
        judged = self._judge(node, fs, {})
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
        judged = self._judge(node, fs, sensitive)
        result = NodeResult(
            node,
            judged.violating,
            judged.satisfied,
            judged.classes,
            judged.failing,
            fs,
            judged.top_group,
            judged.top_is_class,
            judged.suppressed,
        )
        self._results[node] = result
        while len(self._results) > _KEPT_PARTITIONS:
            self._results.popitem(last=False)
        self._record(node, judged.violating, judged.satisfied, judged.suppressed)
        return result

    def _judge(self, node: tuple[int, ...], fs: FrequencySet, sensitive: dict) -> _Judged:
        """The classes of ``fs`` (a frequency set of ``node``), which of them fail a
        constraint, and the verdict (see :class:`NodeResult`)."""
        if fs.sensitive.shape[1] == 0:  # every group is one class, in first-row order
            m = fs.n_groups
            classes = EquivalenceClasses(
                np.arange(m), fs.weights, np.arange(m), tuple(self.qi), sensitive, fs.weights
            )
        else:
            cards = [self._n_labels[q][level] + 1 for q, level in enumerate(node)]
            classes = classes_from_codes(
                [fs.labels[:, q] + 1 for q in range(len(self.qi))],
                cards,
                qi=self.qi,
                sensitive=sensitive,
                weights=fs.weights,
            )
        failing = np.zeros(classes.n_classes, dtype=bool)
        for model in self.problem.constraints:
            failing |= ~model.class_pass(classes)
        violating = int(classes.sizes[failing].sum())
        budget = self.problem.budget
        satisfied = violating <= budget
        if satisfied:
            top_group, top_is_class = self._top_group(node, fs, classes, failing, sensitive)
            # suppressed rows next to a class at '*': one group in the file, checked as one
            mixed = bool(failing.any() and (top_group & ~failing).any())
            satisfied = top_is_class or not mixed
        else:  # the node fails anyway: its group at '*' is not examined
            top_group, top_is_class = failing, False
        return _Judged(classes, failing, violating, top_group, top_is_class, violating, satisfied)

    def _top_group(
        self,
        node: tuple[int, ...],
        fs: FrequencySet,
        classes: EquivalenceClasses,
        failing: np.ndarray,
        sensitive: dict,
    ) -> tuple[np.ndarray, bool]:
        """The classes whose rows show '*' in every QI once released (failing classes
        are suppressed; a class can also be labelled '*' everywhere), and whether those
        rows, as one class, meet every constraint."""
        star = np.ones(fs.n_groups, dtype=bool)
        for q in range(len(self.qi)):
            labels = fs.labels[:, q]
            table = self._star[q][node[q]]
            star &= (labels >= 0) & table[np.maximum(labels, 0)]
        star_class = star[classes.first_row]
        top_group = failing | star_class
        if not top_group.any():
            return top_group, False
        if not failing.any() and int(star_class.sum()) == 1:
            return top_group, True  # one passing class: it is the whole group
        groups = np.flatnonzero(top_group[classes.ids])
        is_class = passes_as_one_class(
            self.problem.constraints,
            groups,
            qi=self.qi,
            sensitive=sensitive,
            weights=fs.weights[groups],
        )
        return top_group, is_class

    # ------------------------------------------------------------------ loss
    def loss(self, node: tuple[int, ...], metric: str) -> float:
        """Information loss of the release at ``node`` (violating classes suppressed).

        ncp: GCP, mean NCP over QI cells (suppressed cell = 1); whd: mean WHD per record
        (sum over QIs, suppressed cell = 1 per QI); discernibility: Σ|EC|² + n per
        suppressed row (the violating rows), a class generalized to '*' in every QI one
        class (:class:`NodeResult`); ul: 1 − UL (entropy kept, seed 001; the rows at '*'
        in every QI one value, as the file shows them).
        """
        result = self.evaluate(node)
        return self._metrics.loss(result, metric)

    def lower_bound(self, node: tuple[int, ...], metric: str) -> float:
        """A lower bound of ``loss`` at ``node`` and every more general node that needs
        no data: the generalization cost as if nothing were suppressed (ncp, whd);
        0 for the others, whose bounds come from evaluated predecessors."""
        return self._metrics.data_free_bound(node, metric)

    def no_suppression_loss(self, node: tuple[int, ...], metric: str) -> float:
        """Loss as if no row were suppressed: monotone under generalization, and never
        above the loss with suppression — a bound for every more general node."""
        return self._metrics.loss(self.evaluate(node), metric, suppress=False)

    @property
    def _metrics(self) -> _LossMetrics:
        if not hasattr(self, "_loss_metrics"):
            self._loss_metrics = _LossMetrics(self)
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


class _LossMetrics:
    """Per-node loss from the node's frequency set (see :meth:`Lattice.loss`)."""

    def __init__(self, lattice: Lattice) -> None:
        from privcore.measure.loss import whd

        self.lattice = lattice
        problem = lattice.problem
        self.n = problem.n_rows  # records
        self.q = len(lattice.qi)
        weights = problem.weights  # records per row of a frequency set (None: one each)
        # NCP of every label at every level, and WHD of every level (from the leaves).
        self.ncp: list[list[np.ndarray]] = []
        self.whd: list[np.ndarray] = []
        self.leaf_counts: list[np.ndarray] = []
        self.present: list[float] = []  # share of non-missing cells per QI
        for q, column in enumerate(lattice.qi):
            hierarchy = lattice.hierarchies[q]
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
                        (
                            self.ncp[q][g][lattice.hierarchies[q].codes(g)] * self.leaf_counts[q]
                        ).sum()
                    )
                    for g in range(lattice.heights[q] + 1)
                ]
            )
            for q in range(self.q)
        ]
        self.h_prv = _records_entropy(problem.frame, problem.sa, weights)
        self.h_qd = _records_entropy(problem.frame, problem.qi, weights)

    def data_free_bound(self, node: tuple[int, ...], metric: str) -> float:
        if metric == "ncp":
            cost = sum(self.column_ncp_cost[q][node[q]] for q in range(self.q))
            return cost / (self.n * self.q)
        if metric == "whd":
            return float(
                sum(
                    self.whd[q][node[q]]
                    * (1.0 if node[q] == self.lattice.heights[q] else self.present[q])
                    for q in range(self.q)
                )
            )
        return 0.0

    def loss(self, result: NodeResult, metric: str, *, suppress: bool = True) -> float:
        if metric not in LOSS_METRICS:
            raise ParameterError(
                f"Unknown loss metric '{metric}'. Choose one of {', '.join(LOSS_METRICS)}.",
                code="anonymize.unknown_metric",
                metric=metric,
            )
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


def _records_entropy(
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


def _by_group(columns: list[np.ndarray], n_groups: int) -> np.ndarray:
    """Per-group columns as a groups × columns matrix whose columns are contiguous
    (the transpose of a columns × groups array), so that a column is read at once."""
    if not columns:
        return np.zeros((n_groups, 0), dtype=np.int64)
    return np.stack(columns).astype(np.int64, copy=False).T


def all_nodes(lattice: Lattice) -> list[tuple[int, ...]]:
    return list(itertools.product(*[range(h + 1) for h in lattice.heights]))
