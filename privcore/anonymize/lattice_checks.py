"""The verdict of a lattice node: its classes, which of them fail, and the group at '*'.

A node's classes are those of its frequency set (:mod:`privcore.anonymize.frequency_sets`),
checked with the privacy models with the groups' counts as weights, so the same model
objects serve every node. The rows of the violating classes are suppressed — blanked,
``*`` in every QI — and are the release's suppressed rows (SPEC §13), counted against
the suppression budget; a class whose labels are all ``*`` (the top node's single
class) is a class, generalized to the top. In the released file both show the same
cells, one group G, which an attacker reads as one: a node with suppressed rows and a
class at ``*`` satisfies only when G, as one class, meets every constraint too.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from privcore.anonymize.base import Problem
from privcore.anonymize.frequency_sets import CACHE_GROUPS, FrequencySet
from privcore.classes import (
    SUPPRESSED,
    EquivalenceClasses,
    classes_from_codes,
    passes_as_one_class,
)


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
class Judged:
    """A node's classes and verdict (the parts of :class:`NodeResult` that a frequency
    set decides)."""

    classes: EquivalenceClasses
    failing: np.ndarray
    violating: int
    top_group: np.ndarray
    top_is_class: bool
    suppressed: int
    satisfied: bool


class JudgedCache:
    """The verdicts of nodes checked on their classes alone
    (:meth:`~privcore.anonymize.lattice.Lattice.check`), kept for their losses: which
    classes fail and which show '*' in every QI, per group of the node's class
    frequency set (every group is a class, in first-row order, whichever predecessor it
    was rolled up from). Bounded in total groups."""

    def __init__(self) -> None:
        self._kept: OrderedDict[tuple[int, ...], Judged] = OrderedDict()
        self._groups = 0

    def keep(self, node: tuple[int, ...], judged: Judged) -> None:
        if node in self._kept:
            return
        self._kept[node] = replace(judged, classes=None)
        self._groups += len(judged.failing)
        while self._groups > CACHE_GROUPS and self._kept:
            _, dropped = self._kept.popitem(last=False)
            self._groups -= len(dropped.failing)

    def get(self, node: tuple[int, ...], fs: FrequencySet, qi: Sequence[str]) -> Judged | None:
        found = self._kept.get(node)
        if found is None:
            return None
        m = fs.n_groups
        classes = EquivalenceClasses(
            np.arange(m), fs.weights, np.arange(m), tuple(qi), {}, fs.weights
        )
        return replace(found, classes=classes)


def node_result(node: tuple[int, ...], fs: FrequencySet, judged: Judged) -> NodeResult:
    return NodeResult(
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


class Judge:
    """Judges the nodes of one problem's lattice from their frequency sets."""

    def __init__(self, problem: Problem) -> None:
        self.problem = problem
        self.qi = problem.qi
        hierarchies = [problem.hierarchies[c] for c in self.qi]
        self._n_labels = [
            [len(h.labels(level)) for level in range(h.height + 1)] for h in hierarchies
        ]
        # Per QI and level: which labels are '*' (at the top, every label).
        self._star = [
            [np.asarray(h.labels(g), dtype=object) == SUPPRESSED for g in range(h.height + 1)]
            for h in hierarchies
        ]
        self._has_star = [[bool(t.any()) for t in per_level] for per_level in self._star]

    def judge(self, node: tuple[int, ...], fs: FrequencySet, sensitive: dict) -> Judged:
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
        return Judged(classes, failing, violating, top_group, top_is_class, violating, satisfied)

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
            table = self._star[q][node[q]]
            if not self._has_star[q][node[q]]:  # no label of this level reads '*'
                star[:] = False
                break
            labels = fs.labels[:, q]
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
