"""KACA: k-anonymity by clustering in attribute hierarchies (local recoding).

Li, Wong, Fu & Pei 2006, "Achieving k-anonymity by clustering in attribute
hierarchical structures" (seed 004; SPEC §4). Every quasi-identifier (QI) needs a
generalization hierarchy.

The algorithm starts from the equivalence classes of the raw table (rows with the same
QI values) and gives every class, per QI, a node of that QI's hierarchy: a level g
(0 = original … H = ``*``) and the label of the class's values at that level. Then,
until every class meets every constraint:

1. take a violating class — the smallest first, ties: the lowest class id;
2. find the nearest other class: the one whose merge adds the least distortion,

       distance(a, b) = cost(a ∪ b) − cost(a) − cost(b),
       cost(class) = |class| · Σ_QI WHD(original → the class's level),

   where the merged class takes, per QI, the lowest common ancestor of the two nodes
   (the lowest level at or above both levels where their labels agree), and WHD is the
   weighted hierarchical distance of SPEC §5 with levels counted 1 = most general …
   h = H + 1 = original, so our level g costs ``whd(H + 1, H + 1 − g, H + 1, beta)``;
   ties: the lowest class id;
3. merge the two (the merged class keeps the lower id).

Classes are checked with the constraint objects themselves (k, the three l-diversities,
t-closeness): every model is monotone under merging (seed 003 lemmas 20.3.1–3), so the
loop ends with every class satisfying, or with one class holding the whole table that
still fails — then no recoding can help and :class:`~privcore.errors.InfeasibleError`
is raised.

Each row is released with the labels of its class's nodes; a locally recoded release
is partitioned by equal released cells, which is exactly KACA's classes (classes that
end on the same nodes are reported as one class).

Suppression (SPEC §2, the rule Datafly uses): the loop stops as soon as the rows of the
classes still violating number at most the budget ⌊MaxSup · n⌋; those rows are
suppressed (every QI shown as ``*``). With MaxSup = 0 every class is merged until it
satisfies. In the release, the suppressed rows and the rows of classes that ended at
``*`` in every QI look alike and are one group
(:func:`~privcore.classes.release_classes`): a class when it meets the constraints as
one class, suppression of every row of it otherwise. When that suppression would exceed
the budget, the loop goes on until no class violates (the group at ``*`` is then a union
of satisfying classes, which satisfies).

Search (:mod:`privcore.anonymize.kaca_classes`, compiled in
:mod:`privcore.anonymize.kaca_search`): per QI, the nodes over the values present in
the data are numbered and tables give, for every pair of nodes, their lowest common
ancestor and its WHD (:mod:`privcore.anonymize.kaca_nodes`); QIs are packed into few
groups of at most 2,048 joint nodes, so that pricing a merge takes one read per group.
A step prices the violating class against the classes that an exact lower bound on the
distance cannot rule out — the same nearest class, ties included, as pricing them all.
With k-anonymity alone a class is checked by its size; otherwise by its rows, kept as
linked lists. Each row's class is found at the end from the merges (pointer jumping).
Adult (30,162 rows, 8 QIs in three groups, 12,458 raw classes) at k = 5: 9,469 merges
in about 0.15 s on one core.

Cost: about (classes) × (violating classes) comparisons; a hosted demo caps it
(:func:`~privcore.anonymize.base.check_local_recoding_cost`), and progress is reported
several times a second, so a run can be cancelled.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from privcore.anonymize import kaca_search
from privcore.anonymize.base import (
    ClassChecker,
    Problem,
    Progress,
    ProgressClock,
    Release,
    check_local_recoding_cost,
    finish,
    report_progress,
    require_local_recoding,
    suppress,
)
from privcore.anonymize.kaca_classes import Classes
from privcore.anonymize.kaca_nodes import QiNodes
from privcore.anonymize.problem import Call, shared_signature
from privcore.classes import classes_from_codes


def _top_group_rows(classes: Classes, qis: list[QiNodes], class_of: np.ndarray) -> np.ndarray:
    """Rows that the release would show as '*' in every QI: those of the violating
    classes (suppressed) and of the classes whose node is labelled '*' in every QI.
    ``class_of``: each row's class id."""
    ids, nodes = classes.live()
    star = np.ones(len(ids), dtype=bool)
    for q, qi in enumerate(qis):
        star &= qi.node_star[nodes[q]]
    violating = classes.violating
    chosen = np.zeros(len(violating), dtype=bool)
    chosen[ids[star | violating[ids]]] = True
    return np.flatnonzero(chosen[class_of])


def _roots(parent: np.ndarray) -> np.ndarray:
    """The class each class ended in, following ``parent`` (a merged class points to
    the class it joined; a class that lives on points to itself) by pointer jumping."""
    root = parent.copy()
    while True:
        hop = root[root]
        if np.array_equal(hop, root):
            return root
        root = hop


class _Merging:
    """KACA's merge loop (compiled: :class:`~privcore.anonymize.kaca_classes.Classes`)
    with the checks of constraints beyond sizes and the progress reports."""

    def __init__(self, problem: Problem, qis: list[QiNodes], progress: Progress | None) -> None:
        self.problem = problem
        self.qis = qis
        self.n = problem.n_rows
        initial = classes_from_codes(
            [q.dense for q in qis],
            [q.n_leaves for q in qis],
            qi=problem.qi,
            sensitive=problem.sensitive,
        )
        failing = np.zeros(initial.n_classes, dtype=bool)
        for model in problem.constraints:
            failing |= ~model.class_pass(initial)
        check_local_recoding_cost("KACA", initial.n_classes, int(failing.sum()))
        self.initial = initial
        self.checker = ClassChecker(problem, "KACA")
        # A class is checked on its rows unless sizes alone decide (k-anonymity).
        row_class = None if self.checker.sizes_decide else initial.ids
        self.classes = Classes(qis, initial.first_row, initial.sizes, failing, row_class)
        report_progress(
            progress,
            0.0,
            f"KACA: {initial.n_classes} classes, {int(failing.sum())} violate the constraints",
        )
        self.progress = progress
        self.clock = ProgressClock(progress)

    @property
    def merges(self) -> int:
        return self.classes.merges

    def merge_until(self, limit: int) -> None:
        """Merge violating classes into their nearest until their rows fit ``limit``.
        The compiled loop pauses for the progress reports: after as many merges as
        take about a quarter of the interval between two reports."""
        classes, checker = self.classes, self.checker
        batch = 1 << 62 if self.progress is None else 1
        while True:
            started = time.perf_counter()
            before = classes.merges
            status = classes.merge(limit, checker.minimum, checker.sizes_decide, batch)
            if status == kaca_search.WHOLE_TABLE:  # the class to merge holds the whole table
                raise checker.infeasible(
                    np.arange(self.n) if checker.sizes_decide else classes.rows_of(classes.last)
                )
            if status == kaca_search.CHECK:
                keep = classes.last
                classes.requeue(keep, checker.violates(classes.rows_of(keep)))
            if self.progress is not None:
                seconds = (time.perf_counter() - started) / max(classes.merges - before, 1)
                batch = max(1, int(self.clock.interval / 4 / seconds))
            if self.clock.due():
                self.clock.report(
                    min(0.85, (self.n - classes.violating_rows) / self.n),
                    f"KACA: {classes.merges} merges, {classes.violating_rows} rows still in "
                    "violating classes",
                )
            if status == kaca_search.DONE:
                return

    def class_of_rows(self) -> np.ndarray:
        """Each row's class id (the class its raw class ended in)."""
        return _roots(self.classes.parent)[self.initial.ids]

    def top_group_fails(self) -> bool:
        """Whether the rows to suppress, with the classes that ended at '*' in every QI,
        exceed the budget and fail the constraints as one group — the group the release
        shows alike (:func:`privcore.classes.release_classes`)."""
        top_group = _top_group_rows(self.classes, self.qis, self.class_of_rows())
        return len(top_group) > self.problem.budget and self.checker.violates(top_group)


def _recoded(
    problem: Problem, qis: list[QiNodes], merging: _Merging
) -> tuple[pd.DataFrame, np.ndarray, dict[str, np.ndarray]]:
    """The released table (each row at its class's nodes; rows of classes still
    violating suppressed), the suppressed rows, and each row's level per QI."""
    classes = merging.classes
    class_of = merging.class_of_rows()
    suppressed = classes.violating[class_of]
    row_nodes = classes.nodes_of(class_of)
    row_nodes[:, suppressed] = 0
    frame = problem.frame.copy()
    record_levels = {}
    for q, qi in enumerate(qis):
        frame[qi.name] = qi.released(row_nodes[q]).set_axis(frame.index)
        record_levels[qi.name] = np.where(suppressed, qi.height, qi.node_level[row_nodes[q]])
    return suppress(frame, problem.qi, suppressed), suppressed, record_levels


@shared_signature
def kaca(call: Call, *, beta: float = 1.0) -> Release:
    """KACA local recoding (Li, Wong, Fu & Pei 2006; see the module docstring).

    ``weights`` (a frequency set): KACA recodes records one by one, so the records of
    one frequency-set row could get different released values — it needs the records
    themselves; weights above 1 raise :class:`~privcore.errors.InfeasibleError`
    ``anonymize.needs_records``, weights all 1 are the records (an ordinary release).

    ``beta`` is the exponent of the WHD weights 1/(j−1)^β (SPEC §5). Deterministic: no
    randomness is used (``seed`` is recorded only). Suppresses the rows of violating
    classes once they fit the budget — unless, together with the classes generalized to
    '*' in every QI, they would show as a group that fails the constraints and exceeds
    the budget: then every violating class is merged. The release records each row's
    level per QI (``record_levels``; suppressed rows at the top) and its class
    (``class_ids`` of the released table, -1 when suppressed); ``params`` gain ``beta``
    and ``merges``.
    """
    progress = call.progress
    started = time.perf_counter()
    call = call.records("KACA")
    problem = call.prepare(need_hierarchies=True)
    require_local_recoding(problem, "KACA")
    qis = [QiNodes(name, problem, beta) for name in problem.qi]
    merging = _Merging(problem, qis, progress)
    merging.merge_until(problem.budget)
    # The rows to suppress and the classes that ended at '*' in every QI show alike in
    # the release: one group, a class if it meets the constraints, else suppression.
    # Suppression beyond the budget is not allowed: then every violating class is merged
    # instead (classes that meet the constraints stay satisfying when merged, so the
    # group left at '*' is then a class).
    if merging.top_group_fails():
        merging.merge_until(0)
    search_seconds = time.perf_counter() - started
    report_progress(progress, 0.9, "KACA: generalizing and measuring the release")
    # Classes still violating fit the suppression budget: their rows are suppressed.
    frame, suppressed, record_levels = _recoded(problem, qis, merging)
    release = finish(
        problem,
        frame,
        suppressed,
        algorithm="kaca",
        params={"beta": float(beta), "merges": merging.merges},
        started=started,
        search_seconds=search_seconds,
        record_levels=record_levels,
    )
    report_progress(progress, 1.0, "Done")
    return release
